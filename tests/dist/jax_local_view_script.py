"""Run in a fresh process with 8 host CPU devices (``XLA_FLAGS`` set before JAX starts): the local view
on JAX (DIST.LOCAL.1-3) over meshes of 1, 2, 4, 8 and 2x2 devices, as lanes partitioned over the devices
and under ``shard_map``, each device given its shard only. Both equal the simulated workers bit for bit.
Prints one line per check; exit status 1 on the first disagreement."""

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import numpy as np  # noqa: E402

import relax_ref  # noqa: E402
from relax_jax.local_view import LocalView  # noqa: E402

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"


def mlp(n):
    return relax_ref.parse(HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh(({n},), I.Range(0, {n}))]}})
    @R.function
    def main(x: R.DTensor((8, 16), "float32", "mesh[0]", "R"), w1: R.DTensor((16, 32), "float32", "mesh[0]", "S[1]"), w2: R.DTensor((32, 16), "float32", "mesh[0]", "S[0]")) -> R.DTensor((8, 16), "float32", "mesh[0]", "S[0]"):
        h = R.matmul(x, w1)
        g = R.nn.relu(h)
        y = R.matmul(g, w2)
        z = R.ccl.allreduce(y, op_type="sum")
        r = R.dist.redistribute(z, "mesh[0]", "S[0]")
        return r
''')


COLLECTIVES = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4))]})
    @R.function
    def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[1], S[0]"), t: R.Tensor((8, 3), "float32")):
        s = R.ccl.scatter_from_worker0(t, num_workers=4, axis=0)
        g = R.ccl.allgather(s, num_workers=4)
        b = R.ccl.broadcast_from_worker0(s)
        a = R.ccl.allreduce(s, op_type="sum")
        m = R.ccl.allreduce(s, op_type="max")
        y = R.dist.redistribute(x, "mesh[0]", "R, S[1]")
        return (s, g, b, a, m, y)
'''

#: the same collectives on a mesh of one axis (4 workers)
COLLECTIVES_1D = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((4,), I.Range(0, 4))]})
    @R.function
    def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[1]"), t: R.Tensor((8, 3), "float32")):
        s = R.ccl.scatter_from_worker0(t, num_workers=4, axis=0)
        g = R.ccl.allgather(s, num_workers=4)
        b = R.ccl.broadcast_from_worker0(s)
        a = R.ccl.allreduce(s, op_type="sum")
        m = R.ccl.allreduce(s, op_type="max")
        y = R.dist.redistribute(x, "mesh[0]", "S[0]")
        return (s, g, b, a, m, y)
'''


def _same(a, b) -> bool:
    return all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(a, b))


def main() -> int:
    assert len(jax.devices()) == 8, jax.devices()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype("float32")
    w1 = rng.standard_normal((16, 32)).astype("float32")
    w2 = rng.standard_normal((32, 16)).astype("float32")
    want = np.maximum(x @ w1, 0) @ w2
    for n in (1, 2, 4, 8):
        view, under_shard_map = LocalView(mlp(n)), LocalView(mlp(n), shard_map=True)
        out = np.asarray(view(x, w1, w2))
        placed = view.place(x, w1, w2)
        collectives = [ln.split("(")[0].split()[-1] for ln in view.compiled_text(x, w1, w2).splitlines()
                       if " all-" in ln or " collective-permute" in ln or " reduce-scatter" in ln]
        err = float(np.abs(out - want).max())
        shards = len(placed[1].sharding.device_set)
        same = _same([out, out], [under_shard_map(x, w1, w2), LocalView(mlp(n), simulate=True)(x, w1, w2)])
        print(f"mlp on {n}: max error {err:.2e}, w1 on {shards} devices, collectives {collectives}, "
              f"equal under shard_map and simulated: {same}")
        if not view.lanes or view.simulated or err > 1e-3 or shards != n or not same or \
                collectives != (["all-reduce"] if n > 1 else []):
            return 1
    xs = rng.standard_normal((8, 4)).astype("float32")
    t = rng.standard_normal((8, 3)).astype("float32")
    blocks = t.reshape(4, 2, 3)
    want2 = (blocks[0], t, blocks[0], blocks.sum(0), blocks.max(0), xs)
    for label, text in (("2x2", COLLECTIVES), ("4", COLLECTIVES_1D)):
        mod = relax_ref.parse(text)
        lanes, under_shard_map = LocalView(mod, shard_map=False), LocalView(mod, shard_map=True)
        on_devices = under_shard_map(xs, t)
        simulated = LocalView(mod, simulate=True)(xs, t)
        errs = [float(np.abs(np.asarray(a) - w).max()) for a, w in zip(on_devices, want2)]
        # as lanes on 2x2, XLA adds the workers' sums in another order (one all-reduce per mesh axis):
        # all but the sum are equal there; the default on 2x2 is shard_map
        keep = [0, 1, 2, 4, 5] if label == "2x2" else range(6)
        by_lanes = lanes(xs, t)
        same = _same(on_devices, simulated) and _same([by_lanes[i] for i in keep], [simulated[i] for i in keep]) \
            and LocalView(mod).lanes == (label == "4")
        print(f"collectives on {label}: max error {max(errs):.2e}, equal to the simulated workers: {same}")
        if max(errs) >= 1e-5 or not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

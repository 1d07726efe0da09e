"""Run in a fresh process with 8 host CPU devices (``XLA_FLAGS`` set before JAX starts): the local view
on JAX (DIST.LOCAL.1-3) under ``shard_map`` over meshes of 1, 2, 4, 8 and 2x2 devices, arguments placed
by their placements. Prints one line per check; exit status 1 on the first disagreement."""

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


def main() -> int:
    assert len(jax.devices()) == 8, jax.devices()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype("float32")
    w1 = rng.standard_normal((16, 32)).astype("float32")
    w2 = rng.standard_normal((32, 16)).astype("float32")
    want = np.maximum(x @ w1, 0) @ w2
    for n in (1, 2, 4, 8):
        view = LocalView(mlp(n))
        out = np.asarray(view(x, w1, w2))
        placed = view.place(x, w1, w2)
        hlo = view.compiled_text(x, w1, w2)
        err = float(np.abs(out - want).max())
        shards = len(placed[1].sharding.device_set)
        print(f"mlp on {n}: max error {err:.2e}, w1 on {shards} devices, all-reduce in HLO: {'all-reduce' in hlo}")
        if view.simulated or err > 1e-3 or shards != n or (n > 1 and "all-reduce" not in hlo):
            return 1
    mod = relax_ref.parse(COLLECTIVES)
    xs = rng.standard_normal((8, 4)).astype("float32")
    t = rng.standard_normal((8, 3)).astype("float32")
    on_devices = LocalView(mod)(xs, t)
    simulated = LocalView(mod, simulate=True)(xs, t)
    blocks = t.reshape(4, 2, 3)
    want2 = (blocks[0], t, blocks[0], blocks.sum(0), blocks.max(0), xs)
    errs = [float(np.abs(np.asarray(a) - w).max()) for a, w in zip(on_devices, want2)]
    same = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(on_devices, simulated))
    print(f"collectives on 2x2: max error {max(errs):.2e}, equal to the simulated workers: {same}")
    return 0 if max(errs) < 1e-5 and same else 1


if __name__ == "__main__":
    sys.exit(main())

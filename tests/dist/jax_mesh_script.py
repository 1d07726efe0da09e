"""Run in a fresh process with 8 host CPU devices (``XLA_FLAGS`` set before JAX starts): the global
view on JAX's sharding, on meshes of 1, 2, 4 and 2x2 devices (DIST.SEM.1). Prints one line per mesh."""

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import numpy as np  # noqa: E402

import relax_ref  # noqa: E402
from relax_jax.distributed import GlobalView, run_global  # noqa: E402

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"


def module(shape, rows_place, cols_place):
    ids = int(np.prod(shape))
    return relax_ref.parse(HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh({shape}, I.Range(0, {ids}))]}})
    @R.function
    def main(x: R.DTensor((8, 16), "float32", "mesh[0]", "{rows_place}"), w1: R.DTensor((16, 32), "float32", "mesh[0]", "{cols_place}")):
        h = R.matmul(x, w1)
        g = R.nn.relu(h)
        a = R.dist.annotate_sharding(g, "mesh[0]", "{cols_place}")
        r = R.dist.redistribute(a, "mesh[0]", "{rows_place}")
        s = R.sum(r, axis=[1])
        return s
''')


def main() -> int:
    assert len(jax.devices()) == 8, jax.devices()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype("float32")
    w1 = rng.standard_normal((16, 32)).astype("float32")
    want = np.maximum(x @ w1, 0).sum(axis=1)
    for shape, rp, cp in (((1,), "R", "R"), ((2,), "R", "S[1]"), ((4,), "S[0]", "R"), ((2, 2), "S[0], R", "R, S[1]")):
        out = run_global(module(shape, rp, cp), "main", x, w1)
        placed = GlobalView(module(shape, rp, cp), "main").place(x, w1)
        if len(placed[1].sharding.device_set) != int(np.prod(shape)) or \
                (cp != "R" and placed[1].sharding.shard_shape(w1.shape) == w1.shape):
            return 1        # the weight is placed by its placement (sharded unless replicated)
        err = float(np.abs(np.asarray(out) - want).max())
        ndev = len(out.sharding.device_set)
        print(f"mesh {shape}: max error {err:.2e}, result on {ndev} devices")
        if err > 1e-4 or ndev != int(np.prod(shape)):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

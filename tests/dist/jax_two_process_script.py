"""One of two processes of a ``jax.distributed`` run on the loopback address (DIST.SEM.1): each process
has 2 host CPU devices, the mesh spans the 4 devices of both, and every process checks the result.
Usage: ``jax_two_process_script.py PORT PROCESS_ID``; it stops by itself (initialization timeout)."""

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax  # noqa: E402

jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(coordinator_address=f"127.0.0.1:{sys.argv[1]}", num_processes=2,
                           process_id=int(sys.argv[2]), initialization_timeout=60)

import numpy as np  # noqa: E402

import relax_ref  # noqa: E402
from relax_jax.distributed import run_global  # noqa: E402

TEXT = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((4,), I.Range(0, 4))]})
    @R.function
    def main(x: R.DTensor((8, 16), "float32", "mesh[0]", "R"), w: R.DTensor((16, 32), "float32", "mesh[0]", "S[1]")):
        h = R.matmul(x, w)
        r = R.dist.redistribute(h, "mesh[0]", "R")
        return r
"""


def main() -> int:
    assert len(jax.devices()) == 4 and len(jax.local_devices()) == 2, jax.devices()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype("float32")
    w = rng.standard_normal((16, 32)).astype("float32")
    out = run_global(relax_ref.parse(TEXT), "main", x, w)
    local = np.asarray(out.addressable_shards[0].data)
    err = float(np.abs(local - x @ w).max())
    print(f"process {jax.process_index()}: max error {err:.2e}")
    return 0 if err < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())

"""The global view on JAX's sharding (DIST.SEM.1) on 8 host CPU devices: ``jax_mesh_script.py`` runs in a
fresh process, since the device count is fixed when JAX starts (``XLA_FLAGS``)."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_global_view_on_meshes_of_host_devices():
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "executors"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(HERE / "jax_mesh_script.py")], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 4 and all("result on" in ln for ln in lines), out.stdout

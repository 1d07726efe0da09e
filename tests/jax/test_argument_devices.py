"""JAX arrays on another device than the executable's are copied to it, as NumPy arguments are
transferred (JAX refused them on the compiled path): ``argument_devices_script.py`` in a fresh process
with two host CPU devices (the device count is fixed when JAX starts)."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_arrays_on_another_device_are_moved_to_the_executables():
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "executors"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(HERE / "argument_devices_script.py")], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["ok", "exact", "ok", "padded", "ok", "kv"], out.stdout

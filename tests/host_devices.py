"""Running a test script in a fresh process with ``count`` host CPU devices: JAX fixes its device count
when it starts (``XLA_FLAGS``), so the scripts that need several devices run apart from the tests."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_with_host_devices(script: Path, count: int, timeout: int = 600) -> subprocess.CompletedProcess:
    """``script`` run by this interpreter with ``count`` host devices and the checkout on its path."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={count}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "executors"), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=timeout)

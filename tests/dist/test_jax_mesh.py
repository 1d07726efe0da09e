"""The global view on JAX's sharding (DIST.SEM.1) on 8 host CPU devices: ``jax_mesh_script.py`` runs in a
fresh process, since the device count is fixed when JAX starts (``XLA_FLAGS``)."""

import os
import subprocess
import sys
from pathlib import Path

from host_devices import run_with_host_devices

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_global_view_on_meshes_of_host_devices():
    out = run_with_host_devices(HERE / "jax_mesh_script.py", 8)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 4 and all("result on" in ln for ln in lines), out.stdout


def test_local_view_on_host_devices():
    """The local view on JAX (DIST.LOCAL.1-3) as partitioned lanes and under ``shard_map`` on meshes of
    1, 2, 4, 8 and 2x2 host devices, equal to the simulated workers: ``jax_local_view_script.py`` in a
    fresh process (8 devices)."""
    out = run_with_host_devices(HERE / "jax_local_view_script.py", 8)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 6 and all(ln.endswith("True") for ln in lines), out.stdout


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_over_loopback():
    """``jax.distributed.initialize`` on 127.0.0.1: two processes of 2 devices each form one mesh of 4;
    bounded by the initialization timeout and the subprocess timeout."""
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "executors"), env.get("PYTHONPATH", "")])
    port = str(_free_port())
    script = str(HERE / "jax_two_process_script.py")
    procs = [subprocess.Popen([sys.executable, script, port, str(i)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(2)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=300)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(outs)
    assert all("max error" in o for o in outs), outs

"""Time and peak memory of each reproducer (tests/limits/reproducers.py), each in a fresh process.

    python tests/limits/measure.py [--impl ref,jax] [--timeout 20] [NAME ...]
    python tests/limits/measure.py --cli

Prints one line per reproducer and implementation: the outcome (the error class, or what went
wrong), the seconds the evaluation took and the process's peak resident memory. The time limit and
an address-space limit are enforced on the child so that a regression cannot take the machine down.
With ``--cli``: the hostile files of tests/cli/test_cli_hostile.py given to ``relax-ref``, one line
each with the exit status, the wall time of the whole command (imports included), the child's peak
resident memory and its last line of standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import json, resource, sys, time, traceback
sys.setrecursionlimit(10000)
name, impl = sys.argv[1], sys.argv[2]
from tests.limits.reproducers import REPRODUCERS
import relax_ref
import relax_ref.interp
if impl == "jax":
    import relax_jax
rep = {r.name: r for r in REPRODUCERS}[name]
t0 = time.perf_counter()
outcome = "returned"
try:
    mod = relax_ref.parse(rep.text)
    args = rep.args()
    if impl == "ref":
        relax_ref.Interpreter(mod, max_steps=rep.max_steps)(rep.entry, *args)
    else:
        relax_jax.compile(mod, max_steps=rep.max_steps)(rep.entry, *args)
except relax_ref.RelaxError as err:
    outcome = type(err).__name__ + ": " + str(err).splitlines()[0][:150]
except BaseException as err:
    outcome = "NOT A RelaxError " + type(err).__name__ + ": " + str(err).splitlines()[0][:150] if str(err) else type(err).__name__
secs = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps({"outcome": outcome, "seconds": secs, "peak_mb": peak}))
'''


MEMORY_CAP = 6 << 30


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_CAP, MEMORY_CAP))


def measure(name: str, impl: str, timeout: float) -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([root, os.path.join(root, "executors"), env.get("PYTHONPATH", "")])
    try:
        proc = subprocess.run([os.environ.get("MEASURE_PYTHON", sys.executable), "-c", CHILD, name, impl], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=root, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        return {"outcome": f"TIMEOUT after {timeout:g} s", "seconds": timeout, "peak_mb": float("nan")}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1][:150]
        return {"outcome": f"CRASH rc={proc.returncode}: {tail}", "seconds": float("nan"), "peak_mb": float("nan")}
    return json.loads(lines[-1])


def _cli_files(d: str) -> list:
    """The hostile files and the ``relax-ref`` command lines that read them (as the CLI tests)."""
    from relax_ref.testing.hostile_files import write_cli_files

    write_cli_files(d)
    runs = [["run", "good.py", "--inputs", n] for n in (
        "missing.npz", "empty.npz", "pickled.npz", "single.npy", "truncated.npz", "object.npz", "bomb.npz",
        "big_prim.npz", "big_dim.npz")]
    return runs + [["run", "latin1.py", "--inputs", "ok.npz"], ["run", "nothing.py"], ["check", "latin1.py"]]


def measure_cli(timeout: float) -> None:
    import resource
    import tempfile
    import time

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as d:
        for args in _cli_files(d):
            # a fresh interpreter per command; ru_maxrss of the children is the largest child so far,
            # so each command runs under its own measuring parent
            probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
                     "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
                     "print(p.returncode, time.perf_counter() - t, "
                     "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0); "
                     "print((p.stderr.strip().splitlines() or ['-'])[-1][:110])")
            cmd = [sys.executable, "-c", probe, os.environ.get("MEASURE_PYTHON", sys.executable), "-m",
                   "relax_ref.cli", *args]
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=d, env=env, timeout=timeout,
                                  preexec_fn=_limit_memory)
            head, _, last = proc.stdout.strip().partition("\n")
            rc, secs, peak = head.split()
            print(f"{' '.join(args):42s} rc={rc} {float(secs):6.2f}s {float(peak):6.0f}MB  {last}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--impl", default="ref,jax")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--cli", action="store_true", help="the CLI's hostile files instead")
    ns = ap.parse_args(argv)
    if ns.cli:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        measure_cli(ns.timeout)
        return 0
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from tests.limits.reproducers import REPRODUCERS

    for rep in REPRODUCERS:
        if ns.names and rep.name not in ns.names:
            continue
        for impl in ns.impl.split(","):
            r = measure(rep.name, impl, ns.timeout)
            print(f"{rep.name:32s} {impl:4s} {r['seconds']:7.2f}s {r['peak_mb']:8.0f}MB  {r['outcome']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

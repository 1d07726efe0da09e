"""Time and peak memory of each reproducer (tests/limits/reproducers.py), each in a fresh process.

    python tests/limits/measure.py [--impl ref,jax] [--timeout 20] [NAME ...]

Prints one line per reproducer and implementation: the outcome (the error class, or what went
wrong), the seconds the evaluation took and the process's peak resident memory. The time limit and
an address-space limit are enforced on the child so that a regression cannot take the machine down.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--impl", default="ref,jax")
    ap.add_argument("--timeout", type=float, default=20.0)
    ns = ap.parse_args(argv)
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

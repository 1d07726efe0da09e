"""The Python side of compilation: ``jax.jit`` tracing and lowering of the Llama-style example's
``prefill`` and ``decode``, relax_jax (both KV styles) against the hand-written ``jax.jit`` program.

Each phase is timed in process CPU time (tracing and lowering are single-threaded Python, so CPU time
is far steadier than wall time on a loaded machine) around ``jitted.trace`` and ``.lower()``, as the
executor runs them (with the cyclic collector paused where ``relax_jax.guard.gc_paused`` exists); XLA's
compilation is not run. Reported per contender and function: the trace and lower times (minimum over
``--reps`` fresh executables; ``first`` is the first, cold one), ``call`` (everything from
``relax_jax.compile`` -- or ``jax.jit`` -- to the start of XLA's compilation: the executor's plan and
analyses, tracing, checks, lowering; minimum, and ``first call``: the median over the processes of
the first, cold one), the jaxpr's top-level equations and the StableHLO's characters and digest. Tracing does not depend on tensor sizes, so ``deep`` (16 layers, 32 query
over 8 KV heads as the ``1b`` configuration, hidden size 128) has the operations of the 1B model::

    python benchmarks/trace_phases.py --config deep
    python benchmarks/trace_phases.py --config deep --baseline-tree ../other-checkout --rounds 2

Each contender runs in processes of its own; with ``--baseline-tree`` the relax_jax contenders also run
from that checkout (``<name>@base``), the two trees' processes alternating, ``--rounds`` times: before
and after side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

_HERE = Path(__file__).resolve().parent
CONFIGS = {
    "tiny": dict(),
    "deep": dict(num_layers=16, num_heads=32, num_kv_heads=8),
    "1b": dict(vocab_size=32000, hidden_size=2048, num_layers=16, num_heads=32, num_kv_heads=8,
               intermediate_size=5632),
}


class _Stop(Exception):
    pass


def _phases(jitted, args, record: dict) -> None:
    t0 = time.process_time()
    traced = jitted.trace(*args)
    t1 = time.process_time()
    lowered = traced.lower()
    t2 = time.process_time()
    text = lowered.as_text()
    record.update(trace_s=t1 - t0, lower_s=t2 - t1, eqns=len(traced.jaxpr.jaxpr.eqns), hlo_chars=len(text),
                  hlo_md5=hashlib.md5(text.encode()).hexdigest()[:8])


def child(config: str, reps: int, styles: List[str]) -> Dict[str, dict]:
    sys.path[:0] = [str(_HERE.parent / "examples"), str(_HERE)]
    import jax
    import jax.numpy as jnp
    import numpy as np

    import llama_bench as B
    import llama_tiny as L
    import relax_jax
    import relax_jax.executable as EX
    from relax_ref.interp.kv_cache import AttentionKVCache

    cfg = L.Config(**CONFIGS[config])
    model = L.make_model(0, cfg)
    rng = np.random.default_rng(0)
    w = [jnp.asarray(rng.standard_normal(p.shape, np.float32)) for _, p in model.named_parameters()]
    n, cap = 128, 256
    tok = np.zeros((1, n), np.int32)
    one = np.zeros((1, 1), np.int32)
    unit = (cfg.num_kv_heads, cfg.head_dim)
    out: Dict[str, dict] = {}
    current: dict = {}

    try:                    # the executor traces and lowers with the collector paused (where it does)
        from relax_jax.guard import gc_paused
    except ImportError:
        from contextlib import nullcontext as gc_paused

    def patched(jitted, args, limits, options, after_trace=None):
        with gc_paused():
            _phases(jitted, args, current)
        raise _Stop

    def run(name: str, thunk) -> None:
        for rep in range(reps):
            current.clear()
            t0 = time.process_time()
            try:
                thunk()
            except _Stop:
                pass
            r = dict(current, call_s=time.process_time() - t0)
            prev = out.get(name)
            if prev is None:
                out[name] = dict(r, first_trace_s=r["trace_s"], first_lower_s=r["lower_s"], first_call_s=r["call_s"])
            else:
                for p in ("trace_s", "lower_s", "call_s"):
                    prev[p] = min(prev[p], r[p])

    with jax.enable_x64(True):             # as relax_jax traces
        if "jax" in styles:
            bufs = [jnp.zeros((1, cap) + unit, jnp.float32) for _ in range(2 * cfg.num_layers)]
            for entry, fname, args in (("prefill", "prefill", (tok, *w)),
                                       ("decode", "decode_buffered", (one, np.int32(n), *bufs, *w))):
                def thunk(fname=fname, args=args):
                    _phases(jax.jit(B.jax_model(cfg)[fname]), args, current)     # a fresh function
                    raise _Stop
                run(f"jax.{entry}", thunk)
        EX.guarded_compile = patched
        if "relax_jax" in styles:
            mod = L.build_module(model)
            caches = [jnp.zeros((1, n) + unit, jnp.float32) for _ in range(2 * cfg.num_layers)]
            run("relax_jax.prefill",
                lambda: relax_jax.compile(mod, reserve=cap)("prefill", tok, *w))
            run("relax_jax.decode",
                lambda: relax_jax.compile(mod, donate_argnums=L.decode_donation(mod), reserve=cap)(
                    "decode", one, *caches, *w))
        if "relax_jax_kv" in styles:
            kvmod = L.build_kv_module(model, reserve=cap)

            def kv_prefill():
                exe = relax_jax.compile(kvmod)
                objs = [AttentionKVCache(jnp.zeros((cap,) + unit, jnp.float32), 0, 0)
                        for _ in range(2 * cfg.num_layers)]
                exe("prefill", tok, *objs, *w)

            def kv_decode():
                exe = relax_jax.compile(kvmod)
                objs = [AttentionKVCache(jnp.zeros((cap,) + unit, jnp.float32), n, n)
                        for _ in range(2 * cfg.num_layers)]
                exe("decode", one, (n + 1,), *objs, *w)
            run("relax_jax_kv.prefill", kv_prefill)
            run("relax_jax_kv.decode", kv_decode)
    return out


def _spawn(tree: Path, args, styles: List[str]) -> Dict[str, dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(tree / p) for p in ("", "executors", "conformance"))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--config", args.config, "--reps", str(args.reps),
           "--styles", ",".join(styles)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"child failed ({tree}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), default="deep")
    ap.add_argument("--reps", type=int, default=3, help="fresh executables per function in one process")
    ap.add_argument("--rounds", type=int, default=1, help="processes per tree, alternating with the baseline's")
    ap.add_argument("--styles", default="jax,relax_jax,relax_jax_kv")
    ap.add_argument("--baseline-tree", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    styles = args.styles.split(",")
    if args.child:
        print(json.dumps(child(args.config, args.reps, styles)))
        return 0
    here = _HERE.parent
    res: Dict[str, dict] = {}

    def merge(part: Dict[str, dict], suffix: str = "") -> None:
        for k, v in part.items():
            c, f = k.split(".")
            key = f"{c}{suffix}.{f}"
            if key in res:
                for p in ("trace_s", "lower_s", "call_s"):
                    res[key][p] = min(res[key][p], v[p])
                res[key].setdefault("first_call_runs", []).append(v["first_call_s"])
            else:
                res[key] = dict(v, first_call_runs=[v["first_call_s"]])
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):       # each contender in a process of its own: its first call is cold
        for st in styles:
            merge(_spawn(here, args, [st]))
            if args.baseline_tree is not None and st != "jax":
                merge(_spawn(args.baseline_tree.resolve(), args, [st]), "@base")
        loads.append(os.getloadavg()[0])
    load = max(loads)
    print(f"config {args.config}, {args.reps} executables per function, {args.rounds} round(s); "
          f"1-minute load average {min(loads):.1f}-{load:.1f}; CPU seconds")
    print(f"{'contender.function':28s} {'trace':>7s} {'(first)':>8s} {'lower':>7s} {'call':>7s} {'first call':>11s} "
          f"{'eqns':>6s} {'StableHLO':>10s} {'md5':>8s}")
    for k in sorted(res, key=lambda s: (s.split(".")[1], s)):
        v = res[k]
        first = statistics.median(v["first_call_runs"])
        print(f"{k:28s} {v['trace_s']:7.3f} {v['first_trace_s']:8.3f} {v['lower_s']:7.3f} {v['call_s']:7.3f} "
              f"{first:11.3f} {v['eqns']:6d} {v['hlo_chars']:10d} {v['hlo_md5']:>8s}")
    if args.json is not None:
        args.json.write_text(json.dumps(dict(config=args.config, load=loads, results=res), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""XLA's compilation alone (``lowered.compile()`` timed, the lowering held) of the Llama-style decoder's
``prefill`` and ``decode``: the hand-written ``jax.jit`` program of ``llama_bench.jax_model`` against
relax_jax's programs (``concat`` caches, KV-cache objects and, with ``--styles ...,paged``, the paged KV
cache of ``llama_tiny_paged``), split by cause.

Usage::

    python benchmarks/xla_compile.py --config tiny                  # tiny, every variant
    python benchmarks/xla_compile.py --config 1b --variants strict,fast_opts
    python benchmarks/xla_compile.py --config tiny --layers 16       # 16 layers at tiny's hidden size
    python benchmarks/xla_compile.py --config tiny --layers 16 --styles concat,kv,paged --variants strict \
        --pass-log xla.log --json out.json     # + the LLVM kernels XLA compiles per program (``passes``)

The hand-written program is lowered from ``jax.ShapeDtypeStruct`` arguments. A relax_jax program is the
lowering its executable compiles at the call's shapes (prefill of 128 tokens; decode from 128 cached rows
in a capacity of 256; the paged cache: a forward of 128 tokens on an empty sequence, of one token after
128): the call's compilation is intercepted after the lowering, so no XLA compilation of
the executor runs before the timed ones and nothing executes (the weights are ``jnp.zeros`` made once).

Variants of one relax_jax lowering (each compiled anew, JAX's compilation caches cleared):

* ``strict``: the executable's options (``float_rules.compiler_options("strict")``);
* ``fast_opts``: the same HLO with XLA's default options;
* ``no_algsimp_off``: strict, but the algebraic simplifier on; ``no_ynn``: strict, YNN fusions unrestricted;
  ``no_excess``: strict, but ``xla_allow_excess_precision`` left at its default;
* ``fast``: the program traced and compiled with ``float_rules="fast"`` (no multiply barriers, default options);
* ``checks_off``: ``exe.as_jax_function(entry, checks="off")`` at the exact shapes (no run-time checks, no
  bucketing masks), jitted and compiled with the strict options (the ``concat`` style only: its arguments
  are arrays).

Each figure is the median of ``--repeats`` compilations: wall-clock seconds, and ``<key>.cpu`` the CPU seconds
of the process over all its threads (XLA compiles kernels on several threads; on a loaded machine the CPU
figure is the steadier one); ``trace_lower_s`` times the trace and lowering; ``hlo_kchars`` is the
StableHLO size in thousands of characters.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "examples")]

VARIANTS = ("strict", "fast_opts", "no_algsimp_off", "no_ynn", "no_excess", "fast", "checks_off")


class _Captured(Exception):
    def __init__(self, lowered) -> None:
        self.lowered = lowered


def _capture(exe, entry: str, args: list):
    """The lowering ``exe`` compiles for ``exe(entry, *args)`` (its compilation stopped before XLA)."""
    import relax_jax.executable as E

    orig = E.guarded_compile

    def grab(jitted, specs, limits, options=None, after=None):
        traced = jitted.trace(*specs)
        if after is not None:
            after()
        raise _Captured(traced.lower())

    E.guarded_compile = grab
    try:
        exe(entry, *args)
    except _Captured as c:
        return c.lowered
    finally:
        E.guarded_compile = orig
    raise RuntimeError(f"{entry}: no compilation intercepted (already compiled?)")


_LOG_MODULES = "hlo_pass_pipeline=1,cpu_compiler=1,ir_compiler=1,fusion_compiler=1"
_MARK = "@@xla_compile@@ "
_PASS_LOG = []


def _compile_s(lowered, options, repeats: int, label: str = ""):
    """Median wall-clock and CPU seconds (all threads: less moved by other processes' load) of
    ``repeats`` compilations of ``lowered``, JAX's in-memory compilation cache cleared before each."""
    from jax._src.interpreters import pxla

    ts, cs = [], []
    for _ in range(repeats):
        if label and _PASS_LOG:       # a segment of the pass log
            print(_MARK + label, file=sys.stderr, flush=True)
        pxla._cached_compilation.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        lowered.compile(dict(options))
        ts.append(time.perf_counter() - t0)
        cs.append(time.process_time() - c0)
    return statistics.median(ts), statistics.median(cs)


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    r = fn()
    return r, time.perf_counter() - t0, time.process_time() - c0


def pass_table(path: str, top: int = 12) -> dict:
    """Per segment of a ``--pass-log`` file: XLA's stages and its slowest HLO passes (seconds, summed
    over the pass's runs)."""
    import re

    segs: dict = {}
    cur = None
    timed = re.compile(r"\] (.*?) time: .*?\((\d+) us\)")
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith(_MARK):
            cur = segs.setdefault(line[len(_MARK):].strip(), {})
            continue
        m = timed.search(line)
        if cur is None or not m:
            continue
        what = m.group(1)
        if what.startswith("HLO pass: "):
            what = "pass " + what[len("HLO pass: "):]
        elif what.startswith("Compiled LLVM module"):
            what = "LLVM modules (sum)"
            cur["LLVM modules (count)"] = cur.get("LLVM modules (count)", 0) + 1
        elif what.startswith("Compiled MLIR module"):
            what = "MLIR fusion modules (sum)"
            cur["MLIR fusion modules (count)"] = cur.get("MLIR fusion modules (count)", 0) + 1
        elif what.startswith("Running HLO passes on"):
            what = "HLO passes (all)"
        elif what.startswith("Compiling ["):
            what = "backend (JIT, all)"
        cur[what] = cur.get(what, 0.0) + int(m.group(2)) / 1e6
    out = {}
    for label, d in segs.items():
        stages = {k: round(v, 3) for k, v in d.items() if not k.startswith("pass ")}
        passes = sorted(((v, k) for k, v in d.items() if k.startswith("pass ")), reverse=True)[:top]
        out[label] = {**stages, **{k: round(v, 3) for v, k in passes}}
    return out


def _jax_lowerings(cfg, nl: int, rows: int, cap: int, weights) -> dict:
    """``entry -> (lowered, wall s, cpu s)`` of the hand-written program's trace and lowering."""
    import jax
    import llama_bench as B

    fns = B.jax_model(cfg)
    sds = [jax.ShapeDtypeStruct(w.shape, w.dtype) for w in weights]
    tok = jax.ShapeDtypeStruct((1, 128), np.int32)
    buf = jax.ShapeDtypeStruct((1, cap, cfg.num_kv_heads, cfg.head_dim), cfg.dtype)
    dec = jax.jit(fns["decode_buffered"], donate_argnums=tuple(range(2, 2 + 2 * nl)))
    warnings.filterwarnings("ignore", "Some donated buffers were not usable")   # lowered, never run
    return {"prefill": _timed(lambda: jax.jit(fns["prefill"]).lower(tok, *sds)),
            "decode": _timed(lambda: dec.lower(jax.ShapeDtypeStruct((1, 1), np.int32),
                                               jax.ShapeDtypeStruct((), np.int32), *[buf] * (2 * nl), *sds))}


def _paged_cache(exe, history: int, tokens: int):
    """A paged cache of ``exe`` (its ``create_cache`` compiled here, before any capture) holding sequence
    0 with ``history`` tokens and a forward of ``tokens`` more open."""
    from relax_jax.paged_kv_cache import JAX_PAGED
    from relax_ref.values import ShapeValue

    cache = exe("create_cache")
    JAX_PAGED.add_sequence(cache, 0)
    if history:
        JAX_PAGED.begin_forward(cache, ShapeValue([0]), ShapeValue([history]))
        JAX_PAGED.end_forward(cache)
    JAX_PAGED.begin_forward(cache, ShapeValue([0]), ShapeValue([tokens]))
    return cache


def _relax_args(style: str, exe, cfg, nl: int, rows: int, cap: int, weights) -> dict:
    import jax.numpy as jnp
    from relax_ref.interp.kv_cache import AttentionKVCache

    tok = np.zeros((1, 128), np.int32)
    one = np.zeros((1, 1), np.int32)
    if style == "paged":
        return {"prefill": [tok, _paged_cache(exe, 0, 128), *weights],
                "decode": [one, _paged_cache(exe, rows, 1), *weights]}
    if style == "kv":
        bufs = [AttentionKVCache(jnp.zeros((cap, cfg.num_kv_heads, cfg.head_dim), cfg.dtype), rows, rows)
                for _ in range(2 * nl)]
        return {"prefill": [tok, *exe("create_caches"), *weights], "decode": [one, (rows + 1,), *bufs, *weights]}
    bufs = [jnp.zeros((1, rows, cfg.num_kv_heads, cfg.head_dim), cfg.dtype) for _ in range(2 * nl)]
    return {"prefill": [tok, *weights], "decode": [one, *bufs, *weights]}


def _relax_exe(style: str, model, mode: str, reserve: int):
    import llama_tiny as L
    import relax_jax

    if style == "kv":
        return relax_jax.compile(L.build_kv_module(model, reserve=reserve), float_rules=mode)
    if style == "paged":        # as the relax_jax_paged contender of llama_sizes.py (pages of 16 tokens)
        import llama_tiny_paged as LP
        return relax_jax.compile(LP.build_paged_module(model, capacity=reserve, page_size=16), reserve=reserve,
                                 float_rules=mode)
    mod = L.build_module(model)        # as the relax_jax contender of llama_sizes.py
    return relax_jax.compile(mod, donate_argnums=L.decode_donation(mod), reserve=reserve, float_rules=mode,
                             padded_results=L.padded_results(mod))


def measure(args) -> dict:
    import jax
    import jax.numpy as jnp
    import llama_sizes as S
    import llama_tiny as L
    from relax_jax.float_rules import compiler_options

    jax.config.update("jax_enable_compilation_cache", False)
    over = dict(S.CONFIGS[args.config])
    if args.layers:
        over["num_layers"] = args.layers
    cfg = L.Config(**over, dtype=args.dtype)
    model = L.LlamaTiny(cfg)
    nl = cfg.num_layers
    weights = [jnp.zeros(p.shape, cfg.dtype) for _, p in model.named_parameters()]
    rows, cap = 128, 256
    strict = compiler_options("strict")
    variants = [v for v in args.variants.split(",") if v]
    out: dict = {"config": args.config, "layers": nl, "dtype": args.dtype}

    def put(key: str, low, options) -> None:
        out[key], out[key + ".cpu"] = _compile_s(low, options, args.repeats, key)

    def show(prefix: str) -> None:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()
                          if k.startswith(prefix)}), flush=True)

    for entry, (low, wall, cpu) in _jax_lowerings(cfg, nl, rows, cap, weights).items():
        out[f"jax.{entry}.trace_lower_s"], out[f"jax.{entry}.trace_lower_s.cpu"] = wall, cpu
        out[f"jax.{entry}.hlo_kchars"] = round(len(low.as_text()) / 1000, 1)
        put(f"jax.{entry}.default", low, {})
        if "fast_opts" in variants or "strict" in variants:
            put(f"jax.{entry}.strict_opts", low, strict)
        show(f"jax.{entry}")
    opts = {"strict": strict, "fast_opts": {},
            "no_algsimp_off": {k: v for k, v in strict.items() if k != "xla_disable_hlo_passes"},
            "no_ynn": {k: v for k, v in strict.items() if "ynn" not in k},
            "no_excess": {k: v for k, v in strict.items() if k != "xla_allow_excess_precision"}}
    for style in args.styles.split(","):
        name = {"kv": "relax_jax_kv", "paged": "relax_jax_paged"}.get(style, "relax_jax")
        for mode in (("strict",) if "fast" not in variants else ("strict", "fast")):
            exe = _relax_exe(style, model, mode, cap)
            calls = _relax_args(style, exe, cfg, nl, rows, cap, weights)
            for entry in ("prefill", "decode"):
                key = f"{name}.{entry}"
                with jax.enable_x64(True):
                    low, wall, cpu = _timed(lambda: _capture(exe, entry, calls[entry]))
                    out[f"{key}.{mode}.trace_lower_s"], out[f"{key}.{mode}.trace_lower_s.cpu"] = wall, cpu
                    if mode == "fast":
                        out[f"{key}.fast.hlo_kchars"] = round(len(low.as_text()) / 1000, 1)
                        put(f"{key}.fast", low, {})
                        continue
                    out[f"{key}.hlo_kchars"] = round(len(low.as_text()) / 1000, 1)
                    for v in variants:
                        if v in opts:
                            put(f"{key}.{v}", low, opts[v])
                    if "checks_off" in variants and style == "concat":   # cache objects are no JAX arrays
                        fn = jax.jit(exe.as_jax_function(entry, checks="off"))
                        sds = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), calls[entry])
                        low2 = fn.lower(*sds)
                        out[f"{key}.checks_off.hlo_kchars"] = round(len(low2.as_text()) / 1000, 1)
                        put(f"{key}.checks_off", low2, strict)
                show(key)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="tiny", choices=("tiny", "1b"))
    ap.add_argument("--layers", type=int, default=0, help="override the configuration's layer count")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--styles", default="concat,kv")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", default="")
    ap.add_argument("--pass-log", default="", help="XLA's stage and pass timings logged to this file "
                    "(its standard error) and summed per compilation into the JSON (``passes``)")
    args = ap.parse_args(argv)
    if args.pass_log:
        os.environ.update(TF_CPP_MIN_LOG_LEVEL="0", TF_CPP_VMODULE=_LOG_MODULES)
        fd = os.open(args.pass_log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 2)
        _PASS_LOG.append(args.pass_log)
    out = measure(args)
    if args.pass_log:
        sys.stderr.flush()
        out["passes"] = pass_table(args.pass_log)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

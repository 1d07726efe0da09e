"""``llama_bench.py --config tiny|1b``: the Llama-style decoder at a given size, each contender measured
in a fresh process of its own (so that compile time is cold and the peak resident memory is its own).

Contenders (weights random, float32 or with ``--dtype bfloat16`` bfloat16; the same per seed):

* ``jax``: the hand-written program of ``llama_bench.jax_model``: ``prefill`` jitted per prompt length,
  ``decode`` on a preallocated KV buffer per layer, the length a traced scalar, buffers donated;
* ``relax_jax``: ``relax_jax.compile`` of ``llama_tiny.build_module`` (caches grown by ``concat``), its
  decode caches donated (``llama_tiny.decode_donation``) and the caches it returns handles of their
  padded buffers (``padded_results=llama_tiny.padded_results(mod)``, ``relax_jax.PaddedArray``);
* ``relax_jax_exact``: the same with the default result convention (every result an exact ``jax.Array``,
  the caches cut to their rows on every call);
* ``relax_jax_kv``: ``relax_jax.compile`` of ``llama_tiny.build_kv_module`` (KV-cache objects as TVM's
  nn frontend keeps them: preallocated buffers appended in place, donated, the fill count traced);
* ``relax_jax_paged``: ``relax_jax.compile`` of ``llama_tiny_paged.build_paged_module`` (TVM's paged KV
  cache as MLC keeps it, pages of 16 tokens, one fused-qkv attention call per layer; the host adds the
  sequence and brackets every call with ``kv_state_begin_forward`` / ``end_forward``, timed with it;
  the pool donated, the forward's page slots traced, the history bucketed to at least the generation's
  rows, ``reserve``). Its pool holds the rows the others' buffers hold: for a decode at 128 or 1024 rows
  the next power of two of the rows plus the steps (a module built per capacity), for a generation its
  tokens.

Figures per contender (one child process per contender and run):

* ``compile_cold_s``: first ``prefill`` call (128 tokens) plus first ``decode`` call, minus one warm
  call of each: the tracing and XLA compilation of the two functions, JAX's persistent cache off;
* ``compile_cached_s``: the same in a process whose persistent compilation cache was filled by an earlier
  process (``--persistent-cache``);
* ``prefill_128_s`` / ``prefill_512_s``: one warm prefill call of that many tokens (median of the repeats);
* ``decode_128_tok_s`` / ``decode_1024_tok_s``: decode tokens/s with that many cached rows: one over the
  median time of ``--decode-steps`` consecutive steps from there (after one untimed step; the capacity
  the next power of two of the rows plus the steps), each step's logits read back to the host;
* ``generate_cold_s``: a fresh process's first greedy generation of ``--gen-tokens`` tokens after a
  16-token prompt, compilations included (the example's host loop: argmax on the host); the caches of
  ``relax_jax_kv`` reserve the rows of the whole generation (the next power of two of prompt plus
  tokens, as the hand-written program's buffers), and so do the ``concat`` caches of ``relax_jax``
  (``relax_jax.compile(..., reserve=...)``: the bucket of their growing length); ``generate_compiles``: the XLA backend compilations
  of that generation (``jax.monitoring``, every contender alike);
* ``peak_rss_mb``: the process's peak resident memory (``ru_maxrss``) at the end;
* ``decode_128_interleaved_tok_s`` / ``decode_1024_interleaved_tok_s`` (``--sections interleaved``): the
  decode steps of all contenders in one process, alternating step by step (the order rotating), after
  one untimed step each: one over the median of ``--decode-windows`` times ``--decode-steps`` steps (each
  window from fresh caches at the same rows, so every window decodes the same rows). A step is 0.1-1 ms
  at the tiny size, so this is the finer measure of the per-call overhead; separate processes carry the
  load's changes between them. The windows give the median its samples: on a 2-core machine the
  median of one window of 64 steps moves by about 0.1x from window to window (benchmarks/README.md).

``--baseline-tree DIR`` adds the relax_jax contenders once more as ``<name>@base``, their children run
with ``DIR`` (another checkout of the project, e.g. ``git worktree add DIR <commit>``) first on the
import path: before and after a change, side by side in one run.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

import numpy as np

_HERE = Path(__file__).resolve().parent
CONTENDERS = ("jax", "relax_jax", "relax_jax_exact", "relax_jax_kv", "relax_jax_paged")
BASELINE = "jax"
CONFIGS = {
    "tiny": dict(),
    "1b": dict(vocab_size=32000, hidden_size=2048, num_layers=16, num_heads=32, num_kv_heads=8,
               intermediate_size=5632),
}


def pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _weights(model, seed: int, dtype: str = "float32") -> list:
    """Random weights as JAX arrays of ``dtype``, made one parameter at a time (no second host copy
    stays alive)."""
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    out = []
    for _, p in model.named_parameters():
        if len(p.shape) == 1:
            w = 1.0 + 0.02 * rng.standard_normal(p.shape, np.float32)
        else:
            w = rng.standard_normal(p.shape, np.float32) * np.float32(1.0 / np.sqrt(p.shape[0]))
        out.append(jnp.asarray(w, dtype))
        del w
    return out


def _device():
    """JAX's default device, where the hand-written program and the weights live (relax_jax's own
    default is the first CPU device: on an accelerator machine its contenders would run on the host)."""
    import jax

    return jax.devices()[0]


class _Runner:
    """One contender: ``prefill(tokens)``, ``decode_state(length, capacity)`` and ``step(state)``."""

    def __init__(self, name: str, cfg, model, weights: list, reserve: int, capacity: int = 0) -> None:
        import llama_bench as B
        import llama_tiny as L

        self.name, self.cfg, self.w, self.L = name, cfg, weights, L
        self.model, self.reserve, self.capacity = model, reserve, capacity
        if name == "jax":
            self.jj = B.JaxJit(cfg, 0)
        elif name == "relax_jax_paged":
            import llama_tiny_paged as LP
            import relax_jax
            from relax_jax.paged_kv_cache import JAX_PAGED
            from relax_ref.values import ShapeValue

            self.LP, self.ops, self.shape = LP, JAX_PAGED, ShapeValue
            # the history bucket of its sequence: at least the rows of the generation, as the others' caches
            self.exe = relax_jax.compile(LP.build_paged_module(model, capacity=max(reserve, capacity), page_size=16),
                                         reserve=reserve, device=_device())
        else:
            import relax_jax

            if name == "relax_jax_kv":
                self.exe = relax_jax.compile(L.build_kv_module(model, reserve=reserve), device=_device())
            else:   # the caches are donated to each decode step, as the hand-written program's buffers, and
                # their growing length reserves the generation's rows in its bucket; relax_jax takes them
                # back as handles of their padded buffers, relax_jax_exact as exact jax.Arrays
                mod = L.build_module(model)
                padded = L.padded_results(mod) if name == "relax_jax" else None
                self.exe = relax_jax.compile(mod, donate_argnums=L.decode_donation(mod), reserve=reserve,
                                             padded_results=padded, device=_device())
                self.name = "relax_jax"

    def at_capacity(self, capacity: int) -> "_Runner":
        """This contender with its cache's rows at ``capacity``: itself, but for the paged cache, whose
        pool is sized when its module is built (another executable, so that a decode at 128 rows reads
        a pool of the rows the others' buffers hold, not one sized for 1024)."""
        if self.name != "relax_jax_paged" or max(self.reserve, capacity) == max(self.reserve, self.capacity):
            return self
        return _Runner(self.name, self.cfg, self.model, self.w, self.reserve, capacity)

    def prefill(self, tokens: np.ndarray):
        if self.name == "jax":
            return self.jj.prefill(tokens, *self.w)
        if self.name == "relax_jax":
            return self.exe("prefill", tokens, *self.w)
        if self.name == "relax_jax_paged":
            cache = self._paged_cache(0)
            return self._forward("prefill", tokens, cache)
        caches = self.exe("create_caches")
        return self.exe("prefill", tokens, *caches, *self.w)

    def _paged_cache(self, length: int):
        """A fresh paged cache holding sequence 0 of ``length`` tokens (random keys and values)."""
        import jax.numpy as jnp
        from relax_ref.values import ShapeValue

        cache = self.exe("create_cache")
        self.ops.add_sequence(cache, 0)
        if length:
            self.ops.begin_forward(cache, ShapeValue([0]), ShapeValue([length]))
            self.ops.end_forward(cache)
            rng = np.random.default_rng(7)
            cache.pool = jnp.asarray(rng.standard_normal(cache.pool.shape, np.float32), self.cfg.dtype)
        return cache

    def _forward(self, entry: str, tokens: np.ndarray, cache):
        self.ops.begin_forward(cache, self.shape([0]), self.shape([tokens.shape[1]]))
        out = self.exe(entry, tokens, cache, *self.w)
        self.ops.end_forward(cache)
        return out

    def decode_state(self, length: int, capacity: int):
        import jax.numpy as jnp
        from relax_ref.interp.kv_cache import AttentionKVCache

        cfg = self.cfg
        if self.name == "relax_jax_paged":
            return [length, self._paged_cache(length)]
        rng = np.random.default_rng(7)
        rows = capacity if self.name != "relax_jax" else length
        bufs = [jnp.asarray(rng.standard_normal((1, rows, cfg.num_kv_heads, cfg.head_dim), np.float32), cfg.dtype)
                for _ in range(2 * cfg.num_layers)]
        if self.name == "relax_jax_kv":
            bufs = [AttentionKVCache(b[0], length, length) for b in bufs]
        return [length, bufs]

    def step(self, state, token: int = 3):
        length, bufs = state
        tok = np.asarray([[token]], np.int32)
        if self.name == "jax":
            out = self.jj.decode_donated(tok, np.int32(length), *bufs, *self.w)
            state[1] = list(out[1:])
        elif self.name == "relax_jax":
            out = self.exe("decode", tok, *bufs, *self.w)
            state[1] = list(out[1:])
        elif self.name == "relax_jax_paged":
            out = (self._forward("decode", tok, bufs),)
        else:
            out = self.exe("decode", tok, (length + 1,), *bufs, *self.w)
        state[0] = length + 1
        return np.asarray(out[0])

    def generate(self, prompt: List[int], n: int) -> List[int]:
        if self.name == "jax":
            self.jj.capacity = pow2(len(prompt) + n)
            return self.L.generate(self.jj.runner(), self.w, prompt, n)
        if self.name == "relax_jax_paged":
            return self.LP.generate(self.exe, self.ops, self.w, prompt, n)
        run = lambda e, a: self.L._split(e, self.exe(e, *a))  # noqa: E731
        return (self.L.generate_kv if self.name == "relax_jax_kv" else self.L.generate)(run, self.w, prompt, n)


def _timed(fn) -> float:
    t0 = time.perf_counter()
    r = fn()
    np.asarray(r[0] if isinstance(r, (tuple, list)) else r)
    return time.perf_counter() - t0


def child(name: str, config: str, repeats: int, gen_tokens: int, cache_dir: str, what: str,
          decode_steps: int = 0, dtype: str = "float32", decode_windows: int = 1) -> Dict[str, float]:
    """One contender in this process (see the module docstring); returns its figures."""
    import jax

    if cache_dir:
        jax.config.update("jax_compilation_cache_dir", cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    import llama_tiny as L

    if what == "interleaved":
        return interleaved(name.split(","), config, max(decode_steps, repeats), dtype, decode_windows)
    cfg = L.Config(**CONFIGS[config], dtype=dtype)
    model = L.LlamaTiny(cfg)
    # the caches reserve the rows of a whole generation, as the hand-written program's buffers
    # (the paged cache: the tokens of the longest decode measured)
    capacity = 0 if what == "generate" else pow2(1024 + 2 + max(decode_steps, repeats))
    r = _Runner(name, cfg, model, _weights(model, 0, dtype), pow2(16 + gen_tokens), capacity)
    out: Dict[str, float] = {}
    if what == "generate":
        from jax import monitoring

        xla: list = []
        monitoring.register_event_duration_secs_listener(
            lambda ev, *a, **k: xla.append(ev) if ev == "/jax/core/compile/backend_compile_duration" else None)
        t0 = time.perf_counter()
        toks = r.generate(list(range(1, 17)), gen_tokens)
        out["generate_cold_s"] = time.perf_counter() - t0
        out["tokens"] = toks
        out["generate_compiles"] = len(xla)
    else:
        toks = np.arange(128, dtype=np.int32)[None] % cfg.vocab_size
        first_p = _timed(lambda: r.prefill(toks))
        warm_p = _timed(lambda: r.prefill(toks))
        steps = max(decode_steps, repeats)
        st = r.decode_state(128, pow2(128 + 2 + steps))
        first_d = _timed(lambda: r.step(st))
        warm_d = _timed(lambda: r.step(st))
        out["compile_cached_s" if cache_dir else "compile_cold_s"] = max(first_p - warm_p, 0) + max(first_d - warm_d, 0)
        if what == "all":
            out["prefill_128_s"] = statistics.median([warm_p] + [_timed(lambda: r.prefill(toks))
                                                                 for _ in range(repeats - 1)])
            t512 = np.arange(512, dtype=np.int32)[None] % cfg.vocab_size
            _timed(lambda: r.prefill(t512))   # the compiling call, finished before the timed ones
            out["prefill_512_s"] = statistics.median(_timed(lambda: r.prefill(t512)) for _ in range(repeats))
            for length in (128, 1024):
                rl = r.at_capacity(pow2(length + 2 + steps))
                st = rl.decode_state(length, pow2(length + 2 + steps))
                _timed(lambda: rl.step(st))
                out[f"decode_{length}_tok_s"] = 1.0 / statistics.median(_timed(lambda: rl.step(st))
                                                                       for _ in range(steps))
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def interleaved(names: List[str], config: str, steps: int, dtype: str = "float32",
                windows: int = 1) -> Dict[str, float]:
    """The decode steps of ``names`` alternating in this process (``decode_<rows>_interleaved_tok_s``,
    keys ``<contender>.<figure>``): ``windows`` times ``steps`` steps, each window from fresh caches
    at the same rows, the median over all of a contender's steps."""
    import llama_tiny as L

    cfg = L.Config(**CONFIGS[config], dtype=dtype)
    model = L.LlamaTiny(cfg)
    w = _weights(model, 0, dtype)
    runners = {n: _Runner(n, cfg, model, w, pow2(16 + 64), pow2(1024 + 2 + steps)) for n in names}
    out: Dict[str, float] = {}
    for length in (128, 1024):
        at = {n: r.at_capacity(pow2(length + 2 + steps)) for n, r in runners.items()}
        times: Dict[str, List[float]] = {n: [] for n in names}
        for _ in range(windows):
            states = {n: r.decode_state(length, pow2(length + 2 + steps)) for n, r in at.items()}
            for n, r in at.items():
                r.step(states[n])
            for i in range(steps):
                for n in names[i % len(names):] + names[:i % len(names)]:
                    t0 = time.perf_counter()
                    at[n].step(states[n])
                    times[n].append(time.perf_counter() - t0)
            del states
        for n in names:
            out[f"{n}.decode_{length}_interleaved_tok_s"] = 1.0 / statistics.median(times[n])
    return out


def _spawn(name: str, args, cache_dir: str, what: str) -> Dict[str, float]:
    base = name.endswith("@base")
    name = name.split("@")[0]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--config", args.config,
           "--repeats", str(args.repeats), "--gen-tokens", str(args.gen_tokens), "--what", what,
           "--decode-steps", str(args.decode_steps), "--decode-windows", str(args.decode_windows),
           "--dtype", args.dtype]
    if cache_dir:
        cmd += ["--cache-dir", cache_dir]
    first = [str(_HERE), str(_HERE.parent / "examples")]
    if base:
        tree = Path(args.baseline_tree).resolve()
        first = [str(tree), str(tree / "executors")] + first
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(first + [os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{name} ({what}) failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def contenders(args) -> tuple:
    chosen = getattr(args, "contenders", None)
    names = CONTENDERS
    if chosen:          # the hand-written baseline always runs: the ratios are against it
        unknown = set(chosen.split(",")) - set(CONTENDERS)
        if unknown:
            raise SystemExit(f"unknown contenders {sorted(unknown)}; known: {', '.join(CONTENDERS)}")
        names = (BASELINE,) + tuple(c for c in CONTENDERS if c != BASELINE and c in chosen.split(","))
    extra = tuple(f"{c}@base" for c in names if c != BASELINE) if getattr(args, "baseline_tree", None) else ()
    return names + extra


def run_sized(args) -> Dict[str, object]:
    """``--runs`` rounds; in each, every contender in its own processes (order rotating)."""
    names = contenders(args)
    runs: Dict[str, List[Dict[str, float]]] = {c: [] for c in names}
    load = [os.getloadavg()[0]]
    for i in range(args.runs):
        order = names[i % len(names):] + names[:i % len(names)]
        inter: Dict[str, float] = {}
        if "interleaved" in args.sections:      # one process for the contenders of this tree
            inter = _spawn(",".join(n for n in order if "@" not in n), args, "", "interleaved")
        for name in order:
            what = "all" if "all" in args.sections else "compile" if "compile" in args.sections else ""
            figs = _spawn(name, args, "", what) if what else {}
            if "cached" in args.sections:
                with tempfile.TemporaryDirectory() as d:
                    _spawn(name, args, d, "compile")               # fills the persistent cache
                    figs.update({k: v for k, v in _spawn(name, args, d, "compile").items()
                                 if k == "compile_cached_s"})
            figs.update({k.split(".", 1)[1]: v for k, v in inter.items() if k.split(".", 1)[0] == name})
            figs["tokens"] = None
            if "generate" in args.sections:
                gen = _spawn(name, args, "", "generate")
                figs["generate_cold_s"] = gen["generate_cold_s"]
                figs["generate_compiles"] = gen["generate_compiles"]
                figs["tokens"] = gen["tokens"]
            runs[name].append(figs)
            print(f"run {i + 1} {name}: " + ", ".join(f"{k}={v:.4g}" for k, v in figs.items() if k != "tokens"),
                  file=sys.stderr, flush=True)
        load.append(os.getloadavg()[0])
        if args.json:       # what is measured so far, should a later run be stopped
            Path(args.json).write_text(json.dumps(summarize(args, {k: v for k, v in runs.items() if v}, load),
                                                  indent=1))
    return summarize(args, runs, load)


def summarize(args, runs, load) -> Dict[str, object]:
    keys = [k for k in runs[BASELINE][0] if k != "tokens"]    # (an @base contender has no interleaved figures)
    out: Dict[str, object] = {"config": args.config, "dtype": args.dtype, "runs": args.runs, "repeats": args.repeats,
                              "decode_steps": args.decode_steps, "decode_windows": args.decode_windows,
                              "gen_tokens": args.gen_tokens,
                              "contenders": list(runs), "load_1min": load}
    for name, rs in runs.items():
        for k in keys:
            vals = [r[k] for r in rs if k in r]
            if not vals:
                continue
            out[f"{name}.{k}"] = statistics.median(vals)
            out[f"{name}.{k}.runs"] = vals
            base = statistics.median(r[k] for r in runs[BASELINE])
            if name != BASELINE and base:
                out[f"{name}.{k}.ratio"] = statistics.median(vals) / base
                # each run's figure over the same run's hand-written figure: the spread of the ratio
                # itself (a run's load moves both processes of the run more alike than across runs)
                paired = [r[k] / b[k] for r, b in zip(rs, runs[BASELINE]) if k in r and b.get(k)]
                if paired:
                    out[f"{name}.{k}.ratio_runs"] = paired
        # None when no generation ran; in bfloat16 the hand-written program rounds at other places (it
        # fuses operators the Relax program rounds between), so the relax_jax contenders are also
        # compared with each other
        gen = [r["tokens"] for r in rs if r.get("tokens") is not None]
        base_toks = runs[BASELINE][0].get("tokens")
        out[f"{name}.same_tokens"] = (all(t == base_toks for t in gen) if gen and base_toks is not None else None)
        first = next((r[0].get("tokens") for c, r in runs.items() if c != BASELINE and r), None)
        if name != BASELINE:
            out[f"{name}.same_tokens_as_relax_jax"] = all(t == first for t in gen) if gen and first else None
    return out


def print_table(res: Dict[str, object]) -> None:
    keys = sorted({k.split(".")[1] for k in res if k.count(".") == 1 and ".same_tokens" not in k})
    print(f"\nconfig {res['config']} {res.get('dtype', 'float32')}: median of {res['runs']} runs [min-max], ratio vs {BASELINE} "
          f"(load avg 1 min: {', '.join(f'{x:.2f}' for x in res['load_1min'])})")
    names = res.get("contenders", CONTENDERS)
    print("| figure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for k in keys:
        cells = []
        for c in names:
            if f"{c}.{k}.runs" not in res:
                cells.append("-")
                continue
            vals = res[f"{c}.{k}.runs"]
            cell = f"{res[f'{c}.{k}']:.4g} [{min(vals):.4g}-{max(vals):.4g}]"
            if f"{c}.{k}.ratio" in res:
                paired = res.get(f"{c}.{k}.ratio_runs") or []
                spread = f"; runs {min(paired):.2f}-{max(paired):.2f}x" if len(paired) > 1 else ""
                cell += f" ({res[f'{c}.{k}.ratio']:.2f}x{spread})"
            cells.append(cell)
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("same greedy tokens as jax: " + ", ".join(f"{c} {res[f'{c}.same_tokens']}" for c in names) +
          "; as relax_jax: " + ", ".join(f"{c} {res.get(f'{c}.same_tokens_as_relax_jax')}" for c in names
                                        if c != BASELINE))


def main_child(argv: List[str]) -> int:
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--child", required=True)
    p.add_argument("--config", default="tiny")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gen-tokens", type=int, default=64)
    p.add_argument("--cache-dir", default="")
    p.add_argument("--what", default="all")
    p.add_argument("--decode-steps", type=int, default=0)
    p.add_argument("--decode-windows", type=int, default=1)
    p.add_argument("--dtype", default="float32")
    a = p.parse_args(argv)
    print(json.dumps(child(a.child, a.config, a.repeats, a.gen_tokens, a.cache_dir, a.what, a.decode_steps,
                           a.dtype, a.decode_windows)))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(_HERE))
    sys.path.insert(0, str(_HERE.parent / "examples"))
    sys.exit(main_child(sys.argv[1:]))

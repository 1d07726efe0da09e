"""Tokens/s of the tiny Llama-style decoder of ``examples/llama_tiny.py``: relax_jax vs hand-written
``jax.jit`` vs TVM's VM.

``--config tiny|1b [--json out.json]`` runs the sized comparison of ``llama_sizes.py`` instead (each
contender in its own processes; the KV-cache-object style of the example as a third contender).

Run ``python benchmarks/llama_bench.py`` (``--quick``: fewer rounds, 16 generated tokens, no
``jax.jit[exact]`` generation; ``--no-tvm`` to skip TVM). The model is the example's default
configuration (vocabulary 256, hidden 128, 2 layers, 4 query heads over 2 KV heads of 32, SiLU MLP 256,
RoPE), seeded weights. Measured:

* **prefill**: one ``prefill`` call on a prompt of 32 and of 128 tokens (host token ids in, host logits
  out, caches left on the device); tokens/s = prompt length / median call time;
* **decode, end to end**: greedy generation of ``--tokens`` (64) tokens after a ``--prompt-len`` (16)
  token prompt through the example's host loop (``llama_tiny.generate``: prefill, then one ``decode``
  per new token, argmax on the host); tokens/s = new tokens / total time. ``cold`` is the first
  generation of a fresh executable (compilations included), ``warm`` the median of later ones;
* **decode, per step**: one ``decode`` call at a fixed cache length (``--step-len``, 48) after warm-up
  (``jax.jit``: the generation's donated buffered call, its returned buffers fed back, the length kept);
  tokens/s = 1 / median call time;
* for relax_jax: ``exe.stats.compiles`` over the decode loop of the cold generation; for the JAX
  contenders: XLA backend compilations (``jax.monitoring``) over the whole cold generation.

Contenders:

* ``relax_jax``: ``relax_jax.compile`` of the example's graph-level module (default ``shape_buckets="pow2"``;
  the generation executor keeps ``exact_cache_size=max(32, pow2(prompt + tokens))`` exact compilations,
  128 by default, so that a warm generation can reuse them: see ``benchmarks/README.md``);
* ``jax.jit``: the hand-written JAX program (:func:`jax_model`): ``prefill`` jitted per prompt length;
  ``decode`` on a preallocated KV buffer per layer of capacity ``pow2(prompt + tokens)``, the cache
  length passed as a traced scalar, the new row written at that length (``dynamic_update_slice``),
  later positions masked with ``-inf``, buffers donated -- one compilation for the whole generation;
* ``jax.jit[exact]``: the hand-written ``decode`` with the Relax function's signature (caches
  ``(1, m, ...)`` in, ``(1, m + 1, ...)`` out), jitted per cache length -- what an executor without shape
  buckets runs (in the generation table unless ``--quick``: one compilation per step when cold);
* ``tvm``: TVM 0.25 ``relax.build(target="llvm")`` + VM through the example's ``tvm_runner``, weights
  converted to TVM tensors once (untuned default schedules).

All contenders must produce the same greedy token ids, and logits (prefill and every step) within
2e-3 of ``jax.jit``, before any timing is reported. Timed calls alternate between the JAX contenders
(one untimed settle call each per round, then one call each in turn, the order rotating each round;
TVM in groups of its own; ``jax_bench.interleaved``); medians.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
sys.path.insert(0, str(_HERE.parent / "examples"))

import llama_tiny as L  # noqa: E402
from jax_bench import _block, _table, interleaved  # noqa: E402

TOL = 2e-3


# ---------------------------------------------------------------------------------------------------
# The hand-written JAX model
# ---------------------------------------------------------------------------------------------------


def pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _layer_ops(cfg: L.Config):
    """The hand-written model's building blocks (pure JAX, closed over ``cfg``) for :func:`jax_model`."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    hp = lax.Precision.HIGHEST
    nl, heads, kvh, d = cfg.num_layers, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
    group, half = heads // kvh, d // 2
    dt = jnp.dtype(getattr(cfg, "dtype", "float32"))
    f32 = dt == jnp.float32
    eps = np.float32(cfg.rms_eps)
    scale = np.asarray(1.0 / math.sqrt(d), dt)
    inv_freq = np.exp(np.arange(half, dtype=np.float32) * np.float32(-2.0 * math.log(cfg.rope_theta) / d))

    def mm(a, b):      # float32: HIGHEST precision; bfloat16: accumulated in float32, rounded once
        if f32:
            return jnp.matmul(a, b, precision=hp)
        return jnp.matmul(a, b, preferred_element_type=jnp.float32).astype(dt)

    def ein(spec, a, b):
        if f32:
            return jnp.einsum(spec, a, b, precision=hp)
        return jnp.einsum(spec, a, b, preferred_element_type=jnp.float32).astype(dt)

    def split(ws):
        embed, rest = ws[0], ws[1:]
        layers = [rest[9 * i: 9 * i + 9] for i in range(nl)]
        return embed, layers, rest[9 * nl], rest[9 * nl + 1]

    def rms(x, w):
        if not f32:     # the statistics in float32
            x32 = x.astype(jnp.float32)
            return (x32 * lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + eps)).astype(dt) * w
        return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * w

    def rope(x, pos):  # x: (n, heads, d); pos: (n,) float32
        ang = pos[:, None] * inv_freq[None, :]
        emb = jnp.concatenate([ang, ang], axis=-1)[:, None, :]
        rot = jnp.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return x * jnp.cos(emb).astype(dt) + rot * jnp.sin(emb).astype(dt)

    def qkv(h, lw, pos):
        ln1, wq, wk, wv = lw[:4]
        n = h.shape[0]
        x = rms(h, ln1)
        q = mm(x, wq).reshape(n, heads, d)
        k = mm(x, wk).reshape(n, kvh, d)
        v = mm(x, wv).reshape(n, kvh, d)
        return rope(q, pos), rope(k, pos), v

    def attend(q, k, v, visible):  # q: (n, heads, d); k, v: (t, kv, d); visible: (n, t)
        # head-major products, as the Relax program's attention: (kv, group, n, d) x (kv, t, d); the
        # token-major einsum "nkgd,tkd->kgnt" is 1.2-2.5x slower on XLA's CPU backend (512-token prefill)
        n = q.shape[0]
        qh = q.reshape(n, kvh, group, d).transpose(1, 2, 0, 3)
        s = ein("kgnd,ktd->kgnt", qh, k.transpose(1, 0, 2)) * scale
        p = jax.nn.softmax(jnp.where(visible, s.astype(jnp.float32), -jnp.inf), axis=-1).astype(dt)
        return ein("kgnt,ktd->kgnd", p, v.transpose(1, 0, 2)).transpose(2, 0, 1, 3).reshape(n, heads * d)

    def finish(h, o, lw):
        wo, ln2, wg, wu, wd = lw[4:]
        h = h + mm(o, wo)
        x = rms(h, ln2)
        g = jax.nn.silu(mm(x, wg)) * mm(x, wu)
        return h + mm(g, wd)

    def logits_of(h_last, norm, head):
        return mm(rms(h_last, norm), head)

    return SimpleNamespace(nl=nl, kvh=kvh, d=d, split=split, qkv=qkv, attend=attend, finish=finish,
                           logits_of=logits_of)


def jax_model(cfg: L.Config):
    """Pure JAX functions of the model (not jitted), weights in ``model.param_arrays()`` order:

    * ``prefill(tokens (1, n), *w) -> (logits (1, vocab), k_0, v_0, ...)``, caches ``(1, n, kv, d)``;
    * ``decode(token (1, 1), k_0, v_0, ..., *w)``: caches ``(1, m, kv, d)`` -> ``(1, m + 1, kv, d)``
      (the Relax function's signature);
    * ``decode_buffered(token, length, kbuf_0, vbuf_0, ..., *w)``: buffers ``(1, C, kv, d)`` holding
      ``length`` valid rows; the new row is written at ``length``; returns logits and the buffers;
    * ``to_buffers(capacity, *caches)``: caches zero-padded to buffers of ``capacity`` rows.

    With ``cfg.dtype`` bfloat16 the weights, activations and caches are bfloat16 as an idiomatic JAX
    program keeps them: matmuls accumulated in float32 and rounded once, the RMS statistics and the
    softmax in float32, the rotary tables rounded to bfloat16 (the Relax program computes its matmuls,
    softmax and attention the same way, OP.SEM.7, but rounds between its other operators, so the logits
    are not the same bits).
    """
    import jax.numpy as jnp
    from jax import lax

    ops = _layer_ops(cfg)
    nl, split, qkv, attend, finish, logits_of = ops.nl, ops.split, ops.qkv, ops.attend, ops.finish, ops.logits_of

    def prefill(tokens, *ws):
        embed, layers, norm, head = split(ws)
        n = tokens.shape[1]
        h = embed[tokens[0]]
        pos = jnp.arange(n, dtype=jnp.float32)
        causal = jnp.arange(n)[None, :] <= jnp.arange(n)[:, None]
        caches = []
        for lw in layers:
            q, k, v = qkv(h, lw, pos)
            h = finish(h, attend(q, k, v, causal), lw)
            caches += [k[None], v[None]]
        return (logits_of(h[-1:], norm, head), *caches)

    def decode(token, *args):
        caches, ws = args[:2 * nl], args[2 * nl:]
        embed, layers, norm, head = split(ws)
        m = caches[0].shape[1]
        h = embed[token[0]]
        pos = jnp.full((1,), m, jnp.float32)
        visible = jnp.ones((1, m + 1), bool)
        out = []
        for i, lw in enumerate(layers):
            q, k, v = qkv(h, lw, pos)
            k = jnp.concatenate([caches[2 * i][0], k], axis=0)
            v = jnp.concatenate([caches[2 * i + 1][0], v], axis=0)
            h = finish(h, attend(q, k, v, visible), lw)
            out += [k[None], v[None]]
        return (logits_of(h, norm, head), *out)

    def decode_buffered(token, length, *args):
        bufs, ws = args[:2 * nl], args[2 * nl:]
        embed, layers, norm, head = split(ws)
        cap = bufs[0].shape[1]
        h = embed[token[0]]
        pos = jnp.reshape(length, (1,)).astype(jnp.float32)
        visible = (jnp.arange(cap) <= length)[None, :]
        zero = jnp.zeros((), length.dtype)
        out = []
        for i, lw in enumerate(layers):
            q, k, v = qkv(h, lw, pos)
            kb = lax.dynamic_update_slice(bufs[2 * i], k[None], (zero, length, zero, zero))
            vb = lax.dynamic_update_slice(bufs[2 * i + 1], v[None], (zero, length, zero, zero))
            h = finish(h, attend(q, kb[0], vb[0], visible), lw)
            out += [kb, vb]
        return (logits_of(h, norm, head), *out)

    def to_buffers(capacity, *caches):
        return tuple(jnp.pad(c, ((0, 0), (0, capacity - c.shape[1]), (0, 0), (0, 0))) for c in caches)

    return {"prefill": prefill, "decode": decode, "decode_buffered": decode_buffered, "to_buffers": to_buffers}


class JaxJit:
    """Fresh ``jax.jit`` wrappers of :func:`jax_model` (a new instance compiles anew)."""

    def __init__(self, cfg: L.Config, capacity: int) -> None:
        import jax

        fns = jax_model(cfg)
        nl = cfg.num_layers
        self.num_layers = nl
        self.capacity = capacity
        self.prefill = jax.jit(fns["prefill"])
        self.decode = jax.jit(fns["decode"])
        self.decode_buffered = jax.jit(fns["decode_buffered"])
        self.decode_donated = jax.jit(fns["decode_buffered"], donate_argnums=tuple(range(2, 2 + 2 * nl)))
        self.to_buffers = jax.jit(fns["to_buffers"], static_argnums=0)

    def exact_runner(self) -> L.Runner:
        """The ``llama_tiny.Runner`` protocol over the exact-shape decode (one compilation per cache
        length, like a function without buckets)."""

        def run(entry: str, args: list):
            out = (self.prefill if entry == "prefill" else self.decode)(*args)
            return np.asarray(out[0]), list(out[1:])

        return run

    def runner(self) -> L.Runner:
        """The ``llama_tiny.Runner`` protocol over the buffered decode: the opaque cache is one
        ``(buffers, length)`` state."""
        nl = self.num_layers

        def run(entry: str, args: list):
            if entry == "prefill":
                out = self.prefill(args[0], *args[1:])
                state = (self.to_buffers(self.capacity, *out[1:]), args[0].shape[1])
            else:
                token, (bufs, length), ws = args[0], args[1], args[2:]
                out = self.decode_donated(token, np.int32(length), *bufs, *ws)
                state = (out[1:1 + 2 * nl], length + 1)
            return np.asarray(out[0]), [state]

        return run


# ---------------------------------------------------------------------------------------------------
# Contenders
# ---------------------------------------------------------------------------------------------------


class Contender:
    """``setup_s``: time to build the executable; ``run``: a ``llama_tiny.Runner``; ``weights``: the
    weights in the contender's preferred form; ``exe``: the relax_jax executable (or None)."""

    def __init__(self, name: str, setup_s: float, run: L.Runner, weights: list, exe=None) -> None:
        self.name, self.setup_s, self.run, self.weights, self.exe = name, setup_s, run, weights, exe


def make_relax_jax(mod, weights, **kw) -> Contender:
    import jax.numpy as jnp
    import relax_jax

    t0 = time.perf_counter()
    exe = relax_jax.compile(mod, **kw)
    dt = time.perf_counter() - t0

    def run(entry: str, args: list):
        out = exe(entry, *args)
        return np.asarray(out[0]), list(out[1:])

    return Contender("relax_jax", dt, run, [jnp.asarray(w) for w in weights], exe)


def make_jax(cfg, weights, capacity: int) -> Tuple[Contender, JaxJit]:
    import jax.numpy as jnp

    t0 = time.perf_counter()
    jj = JaxJit(cfg, capacity)
    return Contender("jax.jit", time.perf_counter() - t0, jj.runner(), [jnp.asarray(w) for w in weights]), jj


def make_jax_exact(cfg, weights) -> Contender:
    import jax.numpy as jnp

    t0 = time.perf_counter()
    jj = JaxJit(cfg, 0)
    return Contender("jax.jit[exact]", time.perf_counter() - t0, jj.exact_runner(), [jnp.asarray(w) for w in weights])


def make_tvm(mod, weights) -> Contender:
    import tvm

    t0 = time.perf_counter()
    run = L.tvm_runner(mod)
    dt = time.perf_counter() - t0
    return Contender("tvm", dt, run, [tvm.runtime.tensor(np.ascontiguousarray(w)) for w in weights])


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
        from tvm import relax  # noqa: F401
        return True
    except Exception:  # noqa: BLE001 - any import failure means "not installed" here
        return False


# ---------------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------------


def _close(a, b, tol: float = TOL) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol))


def recording(run: L.Runner, exe, xla: list):
    """Wrap ``run`` to record each call's logits and the compile counts after prefill (``exe.stats`` of
    relax_jax, the length of the XLA compilation log ``xla``)."""
    log: Dict[str, object] = {"logits": [], "compiles_after_prefill": None, "xla_after_prefill": None}

    def wrapped(entry: str, args: list):
        logits, caches = run(entry, args)
        log["logits"].append(logits)
        if entry == "prefill":
            log["xla_after_prefill"] = len(xla)
            if exe is not None:
                log["compiles_after_prefill"] = exe.stats.compiles
        return logits, caches

    return wrapped, log


# ---------------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------------


def prompt_ids(n: int, vocab: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, vocab, size=(1, n)).astype(np.int32)


def bench_prefill(args, cfg, cons: Dict[str, Contender], jj: JaxJit) -> list:
    rows = []
    for n in args.prefill_lens:
        toks = prompt_ids(n, cfg.vocab_size, seed=n)
        calls: Dict[str, Callable[[], object]] = {}
        want = np.asarray(jj.prefill(toks, *cons["jax.jit"].weights)[0])
        for name, c in cons.items():
            if name == "jax.jit":
                calls[name] = (lambda w=c.weights: _host_logits(jj.prefill(toks, *w)))
            else:
                calls[name] = (lambda c=c: c.run("prefill", [toks, *c.weights]))
            got = c.run("prefill", [toks, *c.weights])[0] if name != "jax.jit" else want
            if not _close(got, want):
                raise SystemExit(f"prefill n={n}: {name} logits differ from jax.jit")
        times = interleaved(calls, args.rounds, max(args.calls // max(n // 32, 1), 3))
        rows.append((f"prefill n={n}", times))
    return rows


def bench_step(args, cfg, cons: Dict[str, Contender], jj: JaxJit) -> list:
    """One decode call at cache length ``step_len`` (steady state: warm, not advancing)."""
    import jax.numpy as jnp

    m = args.step_len
    toks = prompt_ids(m, cfg.vocab_size, seed=7)
    tok = np.asarray([[5]], np.int32)
    jw = cons["jax.jit"].weights
    caches = jj.prefill(toks, *jw)[1:]
    want = np.asarray(jj.decode(tok, *caches, *jw)[0])
    bufs = jj.to_buffers(jj.capacity, *caches)
    length = jnp.asarray(m, jnp.int32)
    state = {"bufs": bufs}

    def buffered():
        # the generation's donated call; the row written at ``m`` is the same every time, so feeding
        # the returned buffers back repeats one identical step
        out = jj.decode_donated(tok, length, *state["bufs"], *jw)
        state["bufs"] = out[1:]
        return _host_logits(out)

    calls: Dict[str, Callable[[], object]] = {}
    for name, c in cons.items():
        if name == "jax.jit":
            calls[name] = buffered
            calls["jax.jit[exact]"] = lambda: _host_logits(jj.decode(tok, *caches, *jw))
            got = buffered()[0]
        else:
            _, cc = c.run("prefill", [toks, *c.weights])
            calls[name] = (lambda c=c, cc=cc: c.run("decode", [tok, *cc, *c.weights]))
            for _ in range(args.warm):  # past relax_jax's specialize_after (32), should it bucket
                _block(calls[name]())
            got = c.run("decode", [tok, *cc, *c.weights])[0]
        if not _close(got, want):
            raise SystemExit(f"decode m={m}: {name} logits differ from jax.jit")
    times = interleaved(calls, args.rounds, args.calls)
    return [(f"decode step m={m}", times)]


def bench_generate(args, cfg, mod, weights, use_tvm: bool):
    """Cold (fresh executables) then warm greedy generations through ``llama_tiny.generate``."""
    from jax import monitoring

    xla = []

    def listener(name, *a, **k):
        if name == "/jax/core/compile/backend_compile_duration":
            xla.append(name)

    monitoring.register_event_duration_secs_listener(listener)
    prompt = [int(t) for t in prompt_ids(args.prompt_len, cfg.vocab_size, seed=3)[0]]
    capacity = pow2(args.prompt_len + args.tokens)
    builders: List[Tuple[str, Callable[[], Contender]]] = [
        ("relax_jax", lambda: make_relax_jax(mod, weights, exact_cache_size=max(32, capacity))),
        ("jax.jit", lambda: make_jax(cfg, weights, capacity)[0]),
    ]
    if not args.quick:
        builders.append(("jax.jit[exact]", lambda: make_jax_exact(cfg, weights)))
    if use_tvm:
        builders.append(("tvm", lambda: make_tvm(mod, weights)))
    cons: Dict[str, Contender] = {}
    info: Dict[str, Dict[str, object]] = {}
    ids: Dict[str, List[int]] = {}
    logs: Dict[str, Dict[str, object]] = {}
    for name, build in builders:
        gc.collect()
        time.sleep(0.1)
        c = build()
        run, log = recording(c.run, c.exe, xla)
        t0 = time.perf_counter()
        ids[name] = L.generate(run, c.weights, prompt, args.tokens)
        cold = time.perf_counter() - t0
        cons[name] = c
        logs[name] = log
        info[name] = {"setup": c.setup_s, "cold": cold,
                      "xla": (len(xla) - log["xla_after_prefill"]) if name != "tvm" else None,
                      "compiles": (c.exe.stats.compiles - log["compiles_after_prefill"]) if c.exe else None}
    # the check, before anything is reported
    base_ids, base_logits = ids["jax.jit"], logs["jax.jit"]["logits"]
    for name in cons:
        if ids[name] != base_ids:
            raise SystemExit(f"generation: {name} token ids {ids[name]} differ from jax.jit {base_ids}")
        for step, (a, b) in enumerate(zip(logs[name]["logits"], base_logits)):
            if not _close(a, b):
                raise SystemExit(f"generation: {name} logits of step {step} differ from jax.jit")
    calls = {name: (lambda c=c: L.generate(c.run, c.weights, prompt, args.tokens)) for name, c in cons.items()}
    warm = interleaved(calls, args.gen_rounds, 1, gap=0.1)
    return cons, info, warm, base_ids


def _host_logits(out):
    """The runners' convention: logits copied to the host, caches left on the device."""
    return np.asarray(out[0]), out[1:]


def _rate_table(title: str, rows: List[Tuple[str, Dict[str, List[float]]]], tokens_of: Dict[str, int]
                ) -> List[List[str]]:
    names: List[str] = []
    for _, times in rows:
        for n in times:
            if n not in names:
                names.append(n)
    out = []
    for case, times in rows:
        base = statistics.median(times["jax.jit"])
        line = [case]
        for n in names:
            if n not in times:
                line.append("-")
                continue
            t = statistics.median(times[n])
            rate = tokens_of[case] / t
            line.append(f"{rate:,.0f} tok/s, {t * 1e3:.3g} ms" + ("" if n == "jax.jit" else f" ({t / base:.2f}x)"))
        out.append(line)
    _table(title, out, ["case"] + names)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    p.add_argument("--no-tvm", action="store_true", help="skip TVM")
    p.add_argument("--tokens", type=int, default=None, help="tokens generated in the decode run (64; 16 with --quick)")
    p.add_argument("--prompt-len", type=int, default=16, help="prompt length of the decode run")
    p.add_argument("--step-len", type=int, default=48, help="cache length of the per-step decode timing")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--calls", type=int, default=None)
    p.add_argument("--gen-rounds", type=int, default=None, help="warm generations per contender")
    p.add_argument("--config", choices=("tiny", "1b"), default=None,
                   help="sized run (llama_sizes.py): each contender in its own processes, with the KV-cache "
                        "style, compile times, prefill 128/512, decode at 128/1024 cached rows, peak memory")
    p.add_argument("--json", default=None, help="with --config: write every figure and ratio to this file")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                   help="with --config: dtype of the weights, activations and caches of every contender")
    p.add_argument("--runs", type=int, default=3, help="with --config: rounds of child processes")
    p.add_argument("--repeats", type=int, default=None, help="with --config: timed calls per figure (5; 2 for 1b)")
    p.add_argument("--gen-tokens", type=int, default=None, help="with --config: cold generation length (64; 8 for 1b)")
    p.add_argument("--decode-steps", type=int, default=None,
                   help="with --config: timed decode steps per cache length (64; 8 for 1b)")
    p.add_argument("--decode-windows", type=int, default=None,
                   help="with --config: the interleaved decode's windows of --decode-steps steps, each from "
                        "fresh caches (16; 1 for 1b)")
    p.add_argument("--sections", default="all,cached,generate,interleaved",
                   help="with --config: which child processes run (all: every warm figure and compile_cold_s; "
                        "compile: compile_cold_s and peak_rss_mb only; cached: compile_cached_s; generate: "
                        "generate_cold_s; interleaved: the decode steps of all contenders in one process)")
    p.add_argument("--contenders", default=None,
                   help="with --config: the contenders besides jax, comma-separated (default: all of llama_sizes.CONTENDERS)")
    p.add_argument("--baseline-tree", default=None,
                   help="with --config: also run the relax_jax contenders from this checkout (<name>@base)")
    args = p.parse_args(argv)
    if args.config:
        return _sized(args)
    if args.dtype != "float32":
        p.error("--dtype bfloat16 needs --config (the per-call comparison checks logits to float32 accuracy)")
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.calls = args.calls or (6 if args.quick else 16)
    args.gen_rounds = args.gen_rounds or (2 if args.quick else 5)
    args.tokens = args.tokens or (16 if args.quick else 64)
    args.prefill_lens = (32, 128)
    args.warm = 40
    if args.tokens < 2 or args.prompt_len < 1 or args.step_len < 1:
        p.error("--tokens must be at least 2, --prompt-len and --step-len at least 1")

    import jax

    use_tvm = not args.no_tvm and tvm_available()
    cfg = L.Config()
    model = L.make_model(0, cfg)
    mod = L.build_module(model)
    weights = model.param_arrays()
    tvm_note = "yes" if use_tvm else ("no (--no-tvm)" if args.no_tvm else "no (not installed)")
    print(f"jax {jax.__version__}, devices {jax.devices()}, TVM {tvm_note}, {_load()}")
    print(f"model: vocab {cfg.vocab_size}, hidden {cfg.hidden_size}, layers {cfg.num_layers}, heads "
          f"{cfg.num_heads}/{cfg.num_kv_heads} kv of {cfg.head_dim}, mlp {cfg.intermediate_size}")

    # end-to-end generation first: its first run is the cold one
    cons, info, warm, ids = bench_generate(args, cfg, mod, weights, use_tvm)
    print(f"\ngreedy ids ({args.tokens} after a {args.prompt_len}-token prompt) agree across "
          f"{', '.join(cons)}: {ids[:8]}...")
    rows = []
    base = statistics.median(warm["jax.jit"])
    for name, c in cons.items():
        i = info[name]
        w = statistics.median(warm[name])
        rows.append([name, f"{i['setup']:.2f}", f"{i['cold']:.2f}", f"{args.tokens / i['cold']:,.1f}",
                     f"{w * 1e3:.1f}", f"{args.tokens / w:,.0f}", "-" if name == "jax.jit" else f"{w / base:.2f}x",
                     "-" if i["xla"] is None else str(i["xla"]),
                     "-" if i["compiles"] is None else str(i["compiles"])])
    _table(f"Greedy generation: {args.tokens} tokens after a {args.prompt_len}-token prompt (prefill + "
           f"{args.tokens - 1} decode steps, host loop)", rows,
           ["contender", "setup s", "cold s", "cold tok/s", "warm ms", "warm tok/s", "warm ratio",
            "XLA compiles", "exe.stats.compiles"])
    print("  (compile counts: over the decode loop of the cold generation)")

    cons.pop("jax.jit[exact]", None)  # timed per call below through its own jitted functions
    jj = JaxJit(cfg, pow2(max(args.prompt_len + args.tokens, args.step_len + 1)))
    cons["jax.jit"] = Contender("jax.jit", 0.0, jj.runner(), cons["jax.jit"].weights)
    rows = bench_prefill(args, cfg, cons, jj)
    rows += bench_step(args, cfg, cons, jj)
    tokens_of = {r[0]: (int(r[0].split("=")[1]) if r[0].startswith("prefill") else 1) for r in rows}
    _rate_table("Per call  [tokens/s, median ms per call; (ratio of times vs jax.jit)]", rows, tokens_of)
    print(f"\nrelax_jax exact-shape fallbacks: {cons['relax_jax'].exe.fallback_reasons or 'none'}")
    print(f"end: {_load()}")
    return 0


def _sized(args) -> int:
    import json

    import llama_sizes

    args.repeats = args.repeats or (2 if args.config == "1b" else 5)
    args.gen_tokens = args.gen_tokens or (8 if args.config == "1b" else 64)
    args.decode_steps = args.decode_steps or (8 if args.config == "1b" else 64)
    args.decode_windows = args.decode_windows or (1 if args.config == "1b" else 16)
    res = llama_sizes.run_sized(args)
    llama_sizes.print_table(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


def _load() -> str:
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


if __name__ == "__main__":
    sys.exit(main())

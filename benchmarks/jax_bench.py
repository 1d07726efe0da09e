"""Benchmarks of the JAX executor (relax_jax) against hand-written ``jax.jit``, TVM's VM and numpy.

Run ``python benchmarks/jax_bench.py`` (``--quick`` for fewer rounds, ``--only mlp,decoder,conv,
overhead,dynamic`` to select sections, ``--no-tvm`` to skip TVM). One run prints one table per
section; every ratio is taken within the run against hand-written ``jax.jit``: the JAX contenders
alternate call by call and the ratio is the median of the per-pair ratios (see the method in
``benchmarks/README.md``).

Contenders per workload (when applicable):

* ``relax_jax``: the executor on the graph-level module (default pow2 shape buckets);
* ``relax_jax[TIR]``: the executor on TVM's legalized + fused module (TensorIR path; needs TVM);
* ``jax.jit``: the hand-written JAX program (``jax.jit[bucketed]``: pow2 KV-cache buffer, traced
  length, -inf mask, donated buffers -- decode only);
* ``tvm``: ``relax.build(target="llvm")`` + VM (needs TVM);
* ``numpy``.

Section ``fp`` measures the cost of the spec's floating-point rules: the executor's default
``float_rules="strict"`` against ``float_rules="fast"`` on each workload, alternated in one run.

Sections ``overhead`` (per-call host overhead over a bare jitted call with 12 arguments) and ``dynamic``
(64 decode steps with the cache growing 64..127, cold: fresh executor / fresh jit, counting XLA
compilations) measure the executor's own costs.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax_workloads as W  # noqa: E402


# ---------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------


def _block(x):
    import jax

    for leaf in jax.tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


# contenders that run on other libraries' thread pools: timed in groups of their own, so that their
# worker threads (BLAS, TVM's pool) do not spin while a JAX call runs
_OTHER_RUNTIMES = ("numpy", "tvm")


def interleaved(contenders: Dict[str, Callable[[], object]], rounds: int, calls: int,
                gap: float = 0.05) -> Dict[str, List[float]]:
    """Per-call alternation of the JAX contenders: in each round every contender gets one untimed
    settle call, then ``calls`` times each contender makes one timed call in turn (the order rotating
    each round), so that load changes on the machine hit all of them alike. ``numpy`` and ``tvm`` run
    afterwards in groups of ``calls`` timed calls. A short sleep separates rounds. Returns per-call
    times (s)."""
    jaxed = [n for n in contenders if n not in _OTHER_RUNTIMES]
    others = [n for n in contenders if n in _OTHER_RUNTIMES]
    times: Dict[str, List[float]] = {n: [] for n in contenders}
    for r in range(rounds):
        order = jaxed[r % len(jaxed):] + jaxed[:r % len(jaxed)] if jaxed else []
        for n in order:
            _block(contenders[n]())
        for _ in range(calls):
            for n in order:
                fn = contenders[n]
                t0 = time.perf_counter()
                _block(fn())
                times[n].append(time.perf_counter() - t0)
        time.sleep(gap)
        for n in others:
            fn = contenders[n]
            _block(fn())
            for _ in range(calls):
                t0 = time.perf_counter()
                _block(fn())
                times[n].append(time.perf_counter() - t0)
            time.sleep(gap)
    return times


def _median_ms(ts: List[float]) -> float:
    return statistics.median(ts) * 1e3


def _table(title: str, rows: List[List[str]], header: List[str]) -> None:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def _report(title: str, results: Dict[str, Dict[str, List[float]]], base: str = "jax.jit") -> List[List[str]]:
    names = []
    for res in results.values():
        for n in res:
            if n not in names:
                names.append(n)
    rows = []
    for case, res in results.items():
        row = [case]
        for n in names:
            if n in res:
                m = _median_ms(res[n])
                r = ratio(res[n], res[base], paired=n not in _OTHER_RUNTIMES) \
                    if base in res and n != base else None
                row.append(f"{m:.3f}" + (f" ({r:.2f}x)" if r is not None else ""))
            else:
                row.append("-")
        rows.append(row)
    _table(title + f"  [median ms per call; (median of paired ratios vs {base})]", rows, ["case"] + names)
    return rows


def ratio(times: List[float], base: List[float], paired: bool = True) -> float:
    """The ratio of a contender to the baseline: for alternated calls (``paired``, equal counts) the
    median of the per-pair ratios -- each call against the baseline call made next to it, so that
    load changes on the machine cancel out -- else the ratio of the medians."""
    if paired and len(times) == len(base) and times:
        return statistics.median(t / b for t, b in zip(times, base))
    return statistics.median(times) / statistics.median(base)


# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


def _executors(source: str, use_tvm: bool, **kw):
    import relax_jax
    import relax_ref

    graph = relax_jax.compile(relax_ref.parse(source), **kw)
    tir = None
    if use_tvm:
        tir = relax_jax.compile(relax_ref.parse(W.tvm_lowered_text(source)), **kw)
    return graph, tir


def _tvm_call(vm, entry: str, args):
    import tvm

    targs = [tvm.runtime.tensor(np.asarray(a)) for a in args]
    f = vm[entry]
    return lambda: f(*targs)


def _check(name: str, got, want, tol: float = 2e-3) -> None:
    import jax

    g = [np.asarray(x) for x in jax.tree_util.tree_leaves(got)]
    w = [np.asarray(x) for x in jax.tree_util.tree_leaves(want)]
    for a, b in zip(g, w):
        if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol):
            raise SystemExit(f"{name}: result differs from the hand-written JAX result")


# ---------------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------------


def bench_mlp(args, use_tvm: bool) -> None:
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    w1, w2 = W.mlp_weights(rng)
    graph, tir = _executors(W.MLP, use_tvm)
    jf = jax.jit(W.jax_functions()["mlp"])
    npf = W.numpy_functions()["mlp"]
    vm = W.tvm_vm(W.MLP) if use_tvm else None
    results = {}
    for n in (1, 32, 256):
        x = rng.standard_normal((n, 512)).astype(np.float32)
        jx, jw1, jw2 = (jnp.asarray(a) for a in (x, w1, w2))
        c = {"relax_jax": lambda: graph("main", jx, jw1, jw2), "jax.jit": lambda: jf(jx, jw1, jw2)}
        if tir is not None:
            c["relax_jax[TIR]"] = lambda: tir("main", jx, jw1, jw2)
        if vm is not None:
            c["tvm"] = _tvm_call(vm, "main", (x, w1, w2))
        c["numpy"] = lambda: npf(x, w1, w2)
        want = jf(jx, jw1, jw2)
        _check("mlp", graph("main", jx, jw1, jw2), want)
        if tir is not None:
            _check("mlp[TIR]", tir("main", jx, jw1, jw2), want)
        calls = args.calls if n < 256 else max(args.calls // 2, 3)
        if vm is not None and n >= 32:
            slow = {"tvm": c.pop("tvm")}
            results[f"mlp n={n}"] = interleaved(c, args.rounds, calls)
            results[f"mlp n={n}"].update(interleaved(slow, 1, 3))
        else:
            results[f"mlp n={n}"] = interleaved(c, args.rounds, calls)
    _report("MLP x[n,512] -> 2048 -> 512", results)


def bench_decoder(args, use_tvm: bool) -> None:
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(1)
    ws = W.decoder_weights(rng)
    jws = [jnp.asarray(w) for w in ws]
    graph, tir = _executors(W.DECODER, use_tvm)
    exact, _ = _executors(W.DECODER, False, shape_buckets=None)
    fns = W.jax_functions()
    jprefill, jdecode = jax.jit(fns["prefill"]), jax.jit(fns["decode"])
    jbucket = jax.jit(fns["decode_bucketed"])
    npf = W.numpy_functions()
    vm = W.tvm_vm(W.DECODER) if use_tvm else None
    results = {}
    for L in (128, 512):
        x = rng.standard_normal((L, 512)).astype(np.float32)
        jx = jnp.asarray(x)
        c = {"relax_jax": lambda: graph("prefill", jx, *jws), "jax.jit": lambda: jprefill(jx, *jws)}
        if tir is not None:
            c["relax_jax[TIR]"] = lambda: tir("prefill", jx, *jws)
        c["numpy"] = lambda: npf["prefill"](x, *ws)
        want = jprefill(jx, *jws)
        _check("prefill", graph("prefill", jx, *jws), want)
        if tir is not None:
            _check("prefill[TIR]", tir("prefill", jx, *jws), want)
        calls = max(args.calls // (4 if L == 512 else 2), 3)
        results[f"prefill L={L}"] = interleaved(c, args.rounds, calls)
        if vm is not None:
            results[f"prefill L={L}"].update(interleaved({"tvm": _tvm_call(vm, "prefill", (x,) + ws)}, 1, 2))
    L = 100
    x1 = rng.standard_normal((1, 512)).astype(np.float32)
    kc = rng.standard_normal((L, 8, 64)).astype(np.float32)
    vc = rng.standard_normal((L, 8, 64)).astype(np.float32)
    jx1, jkc, jvc = jnp.asarray(x1), jnp.asarray(kc), jnp.asarray(vc)
    kb = jnp.zeros((128, 8, 64), jnp.float32).at[:L].set(jkc)
    vb = jnp.zeros((128, 8, 64), jnp.float32).at[:L].set(jvc)
    length = jnp.asarray(L, jnp.int32)
    c = {"relax_jax": lambda: graph("decode", jx1, jkc, jvc, *jws),
         "relax_jax[exact]": lambda: exact("decode", jx1, jkc, jvc, *jws),
         "jax.jit": lambda: jdecode(jx1, jkc, jvc, *jws),
         "jax.jit[bucketed]": lambda: jbucket(jx1, kb, vb, length, *jws)}
    if tir is not None:
        c["relax_jax[TIR]"] = lambda: tir("decode", jx1, jkc, jvc, *jws)
    if vm is not None:
        c["tvm"] = _tvm_call(vm, "decode", (x1, kc, vc) + ws)
    c["numpy"] = lambda: npf["decode"](x1, kc, vc, *ws)
    want = jdecode(jx1, jkc, jvc, *jws)
    # steady state: a padded shape that recurs gets its own exact compilation after
    # ``specialize_after`` (32) calls; warm past that point before timing
    for exe in (graph, tir):
        if exe is not None:
            for _ in range(40):
                _block(exe("decode", jx1, jkc, jvc, *jws))
    _check("decode", graph("decode", jx1, jkc, jvc, *jws), want)
    if tir is not None:
        _check("decode[TIR]", tir("decode", jx1, jkc, jvc, *jws), want)
    results[f"decode L={L}"] = interleaved(c, args.rounds, args.calls)
    _report("Decoder layer (hidden 512, 8 heads, RMSNorm, SiLU MLP)", results)


def bench_conv(args, use_tvm: bool) -> None:
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(2)
    x, w = W.conv_inputs(rng)
    jx, jw = jnp.asarray(x), jnp.asarray(w)
    graph, tir = _executors(W.CONV, use_tvm)
    jf = jax.jit(W.jax_functions()["conv"])
    npf = W.numpy_functions()["conv"]
    c = {"relax_jax": lambda: graph("main", jx, jw), "jax.jit": lambda: jf(jx, jw)}
    if tir is not None:
        c["relax_jax[TIR]"] = lambda: tir("main", jx, jw)
    c["numpy"] = lambda: npf(x, w)
    want = jf(jx, jw)
    _check("conv", graph("main", jx, jw), want)
    if tir is not None:
        _check("conv[TIR]", tir("main", jx, jw), want)
    res = interleaved(c, args.rounds, max(args.calls // 2, 3))
    if use_tvm:
        res.update(interleaved({"tvm": _tvm_call(W.tvm_vm(W.CONV), "main", (x, w))}, 1, 3))
    _report("Conv block 1x64x56x56 -> conv3x3 -> relu -> maxpool2", {"conv": res})


OVERHEAD_SRC = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(''' + ", ".join(f"a{i}: R.Tensor((1, 512), \"float32\")" for i in range(12)) + ''') -> R.Tensor((1, 512), "float32"):
        with R.dataflow():
            s0 = R.add(a0, a1)
''' + "".join(f"            s{i - 1} = R.add(s{i - 2}, a{i})\n" for i in range(2, 12)) + '''            R.output(s10)
        return s10
'''


def bench_overhead(args, use_tvm: bool) -> None:
    import jax
    import jax.numpy as jnp
    import relax_jax
    import relax_ref

    exe = relax_jax.compile(relax_ref.parse(OVERHEAD_SRC))
    xs = [jnp.asarray(np.full((1, 512), i, np.float32)) for i in range(12)]

    def ref(*a):
        s = a[0] + a[1]
        for t in a[2:]:
            s = s + t
        return s

    jf = jax.jit(ref)
    _check("overhead", exe("main", *xs), jf(*xs))
    c = {"relax_jax": lambda: exe("main", *xs), "jax.jit": lambda: jf(*xs)}
    res = interleaved(c, args.rounds, args.calls * 20, gap=0.02)
    rows = _report("Per-call overhead: 12 arguments [1,512], 11 adds", {"12 args": res})
    d = (_median_ms(res["relax_jax"]) - _median_ms(res["jax.jit"])) * 1e3
    print(f"  host overhead over the bare jitted call: {d:.1f} us")


def bench_dynamic(args, use_tvm: bool) -> None:
    """64 decode steps, KV cache 64..127, everything cold (a fresh executor / a fresh jit)."""
    import jax
    import jax.numpy as jnp
    import relax_jax
    import relax_ref
    from jax import monitoring

    compiles = []

    def listener(name, *a, **k):
        if name == "/jax/core/compile/backend_compile_duration":
            compiles.append(name)

    monitoring.register_event_duration_secs_listener(listener)
    rng = np.random.default_rng(3)
    ws = W.decoder_weights(rng)
    jws = [jnp.asarray(w) for w in ws]
    x = jnp.asarray(rng.standard_normal((1, 512)).astype(np.float32))
    k0 = rng.standard_normal((64, 8, 64)).astype(np.float32)
    v0 = rng.standard_normal((64, 8, 64)).astype(np.float32)
    mod = relax_ref.parse(W.DECODER)
    fns = W.jax_functions()

    def ours():
        exe = relax_jax.compile(mod)
        k, v = jnp.asarray(k0), jnp.asarray(v0)
        for _ in range(64):
            y, k, v = exe("decode", x, k, v, *jws)
        _block((y, k, v))
        return exe.stats.compiles, (y, k)

    def hand():
        f = jax.jit(lambda *a: fns["decode_bucketed"](*a), donate_argnums=(1, 2))
        kb = jnp.zeros((128, 8, 64), jnp.float32).at[:64].set(jnp.asarray(k0))
        vb = jnp.zeros((128, 8, 64), jnp.float32).at[:64].set(jnp.asarray(v0))
        for L in range(64, 128):
            y, kb, vb = f(x, kb, vb, jnp.asarray(L, jnp.int32), *jws)
        _block((y, kb))
        return None, (y, kb[:128])

    def naive():
        f = jax.jit(lambda *a: fns["decode"](*a))
        k, v = jnp.asarray(k0), jnp.asarray(v0)
        for _ in range(64):
            y, k, v = f(x, k, v, *jws)
        _block((y, k))
        return None, (y, k)

    rows = []
    times: Dict[str, List[float]] = {"relax_jax": [], "jax.jit[bucketed]": [], "jax.jit[naive]": []}
    counts: Dict[str, int] = {}
    execs: Dict[str, int] = {}
    for rep in range(args.dyn_reps):
        for name, fn in (("relax_jax", ours), ("jax.jit[bucketed]", hand), ("jax.jit[naive]", naive)):
            if name == "jax.jit[naive]" and rep > 0:
                continue
            gc.collect()
            time.sleep(0.1)
            before = len(compiles)
            t0 = time.perf_counter()
            n, out = fn()
            times[name].append(time.perf_counter() - t0)
            counts[name] = len(compiles) - before
            if n is not None:
                execs[name] = n
    base = statistics.median(times["jax.jit[bucketed]"])
    for name, ts in times.items():
        m = statistics.median(ts)
        rows.append([name, f"{m:.3f}", f"{m / base:.2f}x", str(counts[name]),
                     str(execs.get(name, "-"))])
    _table("64 decode steps, KV cache 64..127, cold  [total s; ratio vs jax.jit[bucketed]]", rows,
           ["variant", "total s", "ratio", "XLA compiles (all)", "exe.stats.compiles"])


ELEMWISE_SRC = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1024, 1024), "float32"), s: R.Tensor((1024, 1024), "float32")) -> R.Tensor((1024, 1024), "float32"):
        with R.dataflow():
            q = R.round(R.divide(x, R.const(0.3, "float32")))
            c = R.clip(q, -128, 127)
            d = R.multiply(c, R.const(0.3, "float32"))
            e = R.subtract(R.multiply(d, s), R.multiply(x, s))
            f = R.add(R.multiply(e, e), R.const(1.0, "float32"))
            R.output(f)
        return f
'''


def _elementwise_jax():
    import jax.numpy as jnp

    def f(x, s):
        q = jnp.clip(jnp.round(x / jnp.float32(0.3)), -128, 127) * jnp.float32(0.3)
        e = q * s - x * s
        return e * e + jnp.float32(1)
    return f


def bench_fp(args, use_tvm: bool) -> None:
    """The cost of the spec's floating-point rules (PRIM.FLOAT.1): the default ``float_rules="strict"``
    against ``float_rules="fast"`` (XLA's own rewrites), alternated call by call on each workload, on the
    graph path and (with TVM) the TensorIR path; ratios against the fast executor and ``jax.jit``."""
    import jax
    import jax.numpy as jnp

    import relax_jax
    import relax_ref

    rng = np.random.default_rng(3)
    fns = W.jax_functions()
    w1, w2 = W.mlp_weights(rng)
    ws = W.decoder_weights(rng)
    jws = [jnp.asarray(w) for w in ws]
    cx, cw = W.conv_inputs(rng)
    ex = (rng.standard_normal((1024, 1024)) * 40).astype(np.float32)
    es = rng.standard_normal((1024, 1024)).astype(np.float32)
    x256 = jnp.asarray(rng.standard_normal((256, 512)).astype(np.float32))
    x128 = jnp.asarray(rng.standard_normal((128, 512)).astype(np.float32))
    x1 = jnp.asarray(rng.standard_normal((1, 512)).astype(np.float32))
    kc = jnp.asarray(rng.standard_normal((100, 8, 64)).astype(np.float32))
    vc = jnp.asarray(rng.standard_normal((100, 8, 64)).astype(np.float32))
    work = [("elementwise 1024x1024", ELEMWISE_SRC, "main", (jnp.asarray(ex), jnp.asarray(es)),
             jax.jit(_elementwise_jax())),
            ("MLP n=256", W.MLP, "main", (x256, jnp.asarray(w1), jnp.asarray(w2)), jax.jit(fns["mlp"])),
            ("prefill L=128", W.DECODER, "prefill", (x128, *jws), jax.jit(fns["prefill"])),
            ("decode L=100", W.DECODER, "decode", (x1, kc, vc, *jws), jax.jit(fns["decode"])),
            ("conv block", W.CONV, "main", (jnp.asarray(cx), jnp.asarray(cw)), jax.jit(fns["conv"]))]
    results, vs_jit = {}, {}
    for label, src, entry, xs, jf in work:
        paths = [("", src)] + ([("[TIR]", W.tvm_lowered_text(src))] if use_tvm else [])
        for tag, text in paths:
            mod = relax_ref.parse(text)
            strict = relax_jax.compile(mod)
            fast = relax_jax.compile(mod, float_rules="fast")
            want = jf(*xs)
            for exe in (strict, fast):
                for _ in range(40 if entry == "decode" else 1):
                    _block(exe(entry, *xs))
                _check(label + tag, exe(entry, *xs), want)
            c = {"strict": lambda s=strict: s(entry, *xs), "fast": lambda f=fast: f(entry, *xs),
                 "jax.jit": lambda: jf(*xs)}
            calls = max(args.calls // 2, 3)
            res = interleaved(c, args.rounds, calls)
            results[label + tag] = {"strict": res["strict"], "fast": res["fast"]}
            vs_jit[label + tag] = res
    _report("Float rules: relax_jax strict vs fast", results, base="fast")
    _report("Float rules: both against jax.jit", vs_jit)


SECTIONS = {"mlp": bench_mlp, "decoder": bench_decoder, "conv": bench_conv, "overhead": bench_overhead,
            "dynamic": bench_dynamic, "fp": bench_fp}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    p.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    p.add_argument("--no-tvm", action="store_true", help="skip the TVM contenders")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--calls", type=int, default=None)
    p.add_argument("--dyn-reps", type=int, default=None)
    args = p.parse_args(argv)
    args.rounds = args.rounds or (3 if args.quick else 7)
    args.calls = args.calls or (8 if args.quick else 24)
    args.dyn_reps = args.dyn_reps or (1 if args.quick else 3)
    import jax

    use_tvm = not args.no_tvm and W.tvm_available()
    print(f"jax {jax.__version__}, devices {jax.devices()}, TVM {'yes' if use_tvm else 'no'}")
    for name in args.only.split(","):
        SECTIONS[name.strip()](args, use_tvm)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""benchmarks/llama_bench.py, correctness only (no timing): at a tiny size, the hand-written JAX model
(exact-shape and buffered decode) and relax_jax agree with the independent numpy implementation on
prefill and two decode steps."""

from pathlib import Path

import numpy as np
import pytest

from file_modules import load_file

pytest.importorskip("jax")
pytest.importorskip("relax_jax")

ROOT = Path(__file__).resolve().parents[2]
TOL = dict(rtol=1e-4, atol=1e-4)

bench = load_file("llama_bench_under_test", ROOT / "benchmarks" / "llama_bench.py")
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))

PROMPT = [3, 14, 15, 9, 2]
NEXT = [7, 11]


@pytest.fixture(scope="module")
def tiny():
    cfg = bench.L.Config(vocab_size=64, hidden_size=32, num_layers=2, num_heads=4, num_kv_heads=2,
                         intermediate_size=64)
    model = bench.L.make_model(0, cfg)
    return cfg, model, bench.L.build_module(model), model.param_arrays()


def _oracle_steps(model):
    """Logits and caches (as (1, m, kv, d) arrays) of prefill(PROMPT) and decode(NEXT[0]), decode(NEXT[1])."""
    out = []
    logits, caches = oracle.forward(model, PROMPT)
    out.append((logits, caches))
    for t in NEXT:
        logits, caches = oracle.forward(model, [t], caches)
        out.append((logits, caches))
    return out


def _flat(caches):
    return [c[None] for kv in caches for c in kv]


def test_hand_written_jax_and_relax_jax_match_numpy(tiny):
    import jax.numpy as jnp

    cfg, model, mod, weights = tiny
    want = _oracle_steps(model)
    jj = bench.JaxJit(cfg, capacity=bench.pow2(len(PROMPT) + len(NEXT)))
    jw = [jnp.asarray(w) for w in weights]
    c_rj = bench.make_relax_jax(mod, weights)

    tokens = np.asarray([PROMPT], np.int32)
    jout = jj.prefill(tokens, *jw)
    rl, rcaches = c_rj.run("prefill", [tokens, *c_rj.weights])
    np.testing.assert_allclose(np.asarray(jout[0])[0], want[0][0], **TOL)
    np.testing.assert_allclose(rl[0], want[0][0], **TOL)
    for got_j, got_r, w in zip(jout[1:], rcaches, _flat(want[0][1])):
        np.testing.assert_allclose(np.asarray(got_j), w, **TOL)
        np.testing.assert_allclose(np.asarray(got_r), w, **TOL)

    jcaches = list(jout[1:])
    bufs = jj.to_buffers(jj.capacity, *jcaches)
    assert bufs[0].shape == (1, jj.capacity, cfg.num_kv_heads, cfg.head_dim)
    for step, t in enumerate(NEXT, start=1):
        tok = np.asarray([[t]], np.int32)
        length = len(PROMPT) + step - 1
        e = jj.decode(tok, *jcaches, *jw)
        b = jj.decode_buffered(tok, np.int32(length), *bufs, *jw)
        rl, rcaches = c_rj.run("decode", [tok, *rcaches, *c_rj.weights])
        for got in (np.asarray(e[0])[0], np.asarray(b[0])[0], rl[0]):
            np.testing.assert_allclose(got, want[step][0], **TOL)
        for got_e, got_b, got_r, w in zip(e[1:], b[1:], rcaches, _flat(want[step][1])):
            np.testing.assert_allclose(np.asarray(got_e), w, **TOL)
            np.testing.assert_allclose(np.asarray(got_b)[:, :length + 1], w, **TOL)
            np.testing.assert_allclose(np.asarray(got_r), w, **TOL)
        jcaches, bufs = list(e[1:]), list(b[1:])


def test_runner_generation_matches_numpy(tiny):
    """The runner used for the timed generation (donated buffers) gives the oracle's greedy ids."""
    import jax.numpy as jnp

    cfg, model, mod, weights = tiny
    jj = bench.JaxJit(cfg, capacity=bench.pow2(len(PROMPT) + 4))
    got = bench.L.generate(jj.runner(), [jnp.asarray(w) for w in weights], PROMPT, 4)
    assert got == oracle.generate(model, PROMPT, 4)


def test_relax_jax_decode_compiles_once_per_cache_bucket(tiny):
    """The decoder's decode function (grouped-query attention: repeat of the KV heads; rotary
    positions broadcast against a static frequency row) runs on pow2 buckets: cache lengths 4..7
    (grown caches 5..8) share one compilation, and the results equal the numpy oracle at every length."""
    import relax_jax

    cfg, model, mod, weights = tiny
    exe = relax_jax.compile(mod)
    rng = np.random.default_rng(0)
    shape = (1, 0, cfg.num_kv_heads, cfg.head_dim)
    before = None
    for m in (4, 5, 6, 7):
        caches = [rng.standard_normal((1, m) + shape[2:]).astype("float32") for _ in range(2 * cfg.num_layers)]
        token = np.asarray([[m]], dtype="int32")
        out = exe("decode", token, *caches, *weights)
        want = relax_ref_decode(mod, token, caches, weights)
        np.testing.assert_allclose(np.asarray(out[0]), want, **TOL)
        if before is None:
            before = exe.stats.compiles
    assert exe.stats.compiles == before, exe.fallback_reasons


def relax_ref_decode(mod, token, caches, weights):
    import relax_ref

    return np.asarray(relax_ref.evaluate(mod, "decode", token, *caches, *weights)[0])


def test_relax_jax_prefill_compiles_once_per_prompt_bucket(tiny):
    """prefill (the last position taken with a symbolic ``strided_slice`` bound, n - 1 .. n) runs on
    pow2 buckets: prompt lengths 5..8 share one compilation, logits and caches equal the reference's."""
    import relax_jax
    import relax_ref

    cfg, model, mod, weights = tiny
    exe = relax_jax.compile(mod, pad_poison=True)
    rng = np.random.default_rng(1)
    before = None
    for n in (5, 6, 7, 8):
        tokens = rng.integers(0, cfg.vocab_size, (1, n)).astype("int32")
        out = exe("prefill", tokens, *weights)
        want = relax_ref.evaluate(mod, "prefill", tokens, *weights)
        for g, w in zip(out, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), **TOL)
        if before is None:
            before = exe.stats.compiles
    assert exe.stats.compiles == before and exe.stats.fallbacks == 0, exe.fallback_reasons


def test_hand_written_bfloat16_program_is_the_model_to_bfloat16_accuracy(tiny):
    """``--dtype bfloat16``: the hand-written program on bfloat16 weights (matmuls accumulated in
    float32, RMS statistics and softmax in float32) computes the float32 model's logits to bfloat16's
    accuracy, prefill and one buffered decode step; its arrays are bfloat16."""
    import dataclasses

    import jax.numpy as jnp

    cfg, model, mod, weights = tiny
    bcfg = dataclasses.replace(cfg, dtype="bfloat16")
    jj = bench.JaxJit(bcfg, capacity=8)
    jw = [jnp.asarray(w, jnp.bfloat16) for w in weights]
    out = jj.prefill(np.asarray([PROMPT], np.int32), *jw)
    assert all(o.dtype == jnp.bfloat16 for o in out)
    want = _oracle_steps(model)
    scale = np.max(np.abs(want[0][0]))
    assert np.max(np.abs(np.asarray(out[0], np.float32)[0] - want[0][0])) < 0.05 * scale
    bufs = jj.to_buffers(8, *out[1:])
    step = jj.decode_buffered(np.asarray([[NEXT[0]]], np.int32), np.int32(len(PROMPT)), *bufs, *jw)
    assert np.max(np.abs(np.asarray(step[0], np.float32)[0] - want[1][0])) < 0.05 * scale

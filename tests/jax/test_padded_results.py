"""``relax_jax.compile(mod, padded_results=...)``: results cut from padded buffers come back as handles of
those buffers (relax_jax.padded.PaddedArray). Values equal the default path's and the reference's;
a handle passed back is passed as its buffer, donated with ``donate_argnums`` (address stable, the
handle deleted as a donated jax.Array is); reading a given-up handle raises a RelaxError."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax import PaddedArray
from relax_ref.errors import RelaxError, RelaxRuntimeError, TypeMismatchError

from program_texts import GROWING_CACHE as _GROW


def _inputs(seed=0, rows=3):
    rng = np.random.default_rng(seed)
    tok = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    w = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    return tok, w, rng.standard_normal((rows, 4), np.float32)


def _loop(exe, steps, rows=3, seed=0):
    tok, w, c0 = _inputs(seed, rows)
    cache, outs, passed = jnp.asarray(c0), [], []
    for _ in range(steps):
        total, grown = exe("step", tok, cache, w)
        outs.append((np.asarray(total), np.asarray(grown).copy()))
        passed.append(cache)
        cache = grown
    return outs, passed, cache


@pytest.mark.parametrize("donate", [False, True])
def test_values_equal_the_default_path_and_the_reference(donate):
    mod = relax_ref.parse(_GROW)
    kw = dict(donate_argnums={"step": (1,)}) if donate else {}
    lazy = relax_jax.compile(mod, padded_results={"step"}, **kw)
    exact = relax_jax.compile(mod, **kw)
    got, passed, _ = _loop(lazy, 14)
    want, _, _ = _loop(exact, 14)
    tok, w, want_cache = _inputs()
    for (gt, gc), (et, ec) in zip(got, want):
        np.testing.assert_array_equal(gt, et)
        np.testing.assert_array_equal(gc, ec)
        ref_total, want_cache = relax_ref.evaluate(mod, "step", np.asarray(tok), want_cache, np.asarray(w))
        np.testing.assert_array_equal(gc, want_cache)
        np.testing.assert_allclose(gt, ref_total, rtol=1e-5)       # sum order (OP.SEM.5)
    handles = [p for p in passed if isinstance(p, PaddedArray)]
    assert len(handles) >= 8                # 4..17 rows: all but the rows on a bucket are handles
    assert all(p.is_deleted() == donate for p in passed[1:])
    assert lazy.stats.host_calls == 0 and lazy.stats.cache_hits >= 10


def test_a_handle_has_the_exact_value_through_every_reading():
    exe = relax_jax.compile(_GROW, padded_results="step")
    _, _, cache = _loop(exe, 2, rows=3)        # 5 rows in a bucket of 8
    assert isinstance(cache, PaddedArray) and not isinstance(cache, jax.Array)
    assert cache.shape == (5, 4) and cache.dtype == np.float32 and cache.ndim == 2 and cache.size == 20
    assert len(cache) == 5 and cache.buffer.shape == (8, 4)
    want = np.asarray(cache).copy()
    assert want.shape == (5, 4)
    exact = cache.array()
    assert isinstance(exact, jax.Array) and exact.shape == (5, 4)
    assert cache.array() is exact               # made once
    np.testing.assert_array_equal(np.asarray(exact), want)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(cache)), want)          # __jax_array__
    np.testing.assert_array_equal(np.asarray(jnp.sum(cache, axis=0)), want.sum(axis=0))
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: x * 2)(cache)), want * 2)   # a pytree leaf
    np.testing.assert_array_equal(np.asarray(jnp.sin(cache)), np.sin(want))
    np.testing.assert_array_equal(np.asarray(jax.device_put(cache)), want)
    np.testing.assert_array_equal(np.asarray(jnp.ones((5, 4), np.float32) + cache), want + 1)
    with pytest.raises(TypeError):
        cache + 1                               # no operators of its own
    np.testing.assert_array_equal(np.asarray(cache, dtype=np.float64), want.astype(np.float64))
    assert cache.block_until_ready() is cache
    assert "PaddedArray(shape=(5, 4)" in repr(cache)


def test_a_donated_buffer_is_grown_in_place():
    exe = relax_jax.compile(_GROW, donate_argnums={"step": (1,)}, padded_results={"step"})
    tok, w, c0 = _inputs(1, rows=17)
    cache = jnp.asarray(c0)
    addresses = []
    for _ in range(10):                          # 18..27 rows: one bucket (32)
        _, cache = exe("step", tok, cache, w)
        addresses.append(cache.buffer.unsafe_buffer_pointer())
    assert len(set(addresses)) == 1              # padded on the first step only, then written in place
    assert exe.stats.host_pads == 1


def test_reading_a_donated_handle_raises():
    exe = relax_jax.compile(_GROW, donate_argnums={"step": (1,)}, padded_results={"step"})
    tok, w, c0 = _inputs(2, rows=5)
    _, h = exe("step", tok, jnp.asarray(c0), w)
    assert isinstance(h, PaddedArray)
    _, grown = exe("step", tok, h, w)
    assert h.is_deleted()
    for read in (np.asarray, jnp.asarray, lambda x: x.array(), lambda x: x.dtype,
                 lambda x: exe("step", tok, x, w), lambda x: exe("pick", np.asarray([0], np.int64), x)):
        with pytest.raises(RelaxRuntimeError, match="donated"):
            read(h)
    assert repr(h) == "PaddedArray(deleted, shape=(6, 4))"
    np.testing.assert_array_equal(np.asarray(grown)[:5], c0)


def test_a_handle_read_before_it_is_donated_keeps_its_reading():
    exe = relax_jax.compile(_GROW, donate_argnums={"step": (1,)}, padded_results={"step"})
    tok, w, c0 = _inputs(3, rows=5)
    _, h = exe("step", tok, jnp.asarray(c0), w)
    kept_np = np.asarray(h)                      # a numpy view of the buffer
    kept = h.array()                             # the exact array, a view of the buffer too
    before = kept_np.copy()
    _, grown = exe("step", tok * 3, h, w)        # the runtime copies a buffer something else shows
    _, grown = exe("step", tok * 5, grown, w)
    assert h.is_deleted() and not kept.is_deleted()
    np.testing.assert_array_equal(kept_np, before)
    np.testing.assert_array_equal(np.asarray(kept), before)
    np.testing.assert_array_equal(np.asarray(grown)[:6], before)


def test_a_handle_at_a_position_not_donated_stays_valid():
    mod = relax_ref.parse(_GROW)
    exe = relax_jax.compile(mod, donate_argnums={"step": (1,)}, padded_results={"step", "pick"})
    tok, w, c0 = _inputs(4, rows=5)
    _, h = exe("step", tok, jnp.asarray(c0), w)
    want = np.asarray(h).copy()
    for i in range(4):                           # general path, then the fast path
        got = exe("pick", np.asarray([i], np.int64), h)
        assert isinstance(got, PaddedArray)
        np.testing.assert_array_equal(np.asarray(got), relax_ref.evaluate(mod, "pick", np.asarray([i], np.int64), want))
    assert not h.is_deleted()
    np.testing.assert_array_equal(np.asarray(h), want)


def test_a_failed_check_with_a_handle_raises_the_reference_error():
    mod = relax_ref.parse(_GROW)
    exe = relax_jax.compile(mod, padded_results={"pick"})
    cache = np.ones((4, 4), np.float32)
    for i in range(3):                           # 5..7 rows (bucket 8): the fast paths are built
        cache = exe("pick", np.asarray([i], np.int64), cache)
    assert isinstance(cache, PaddedArray)
    with pytest.raises(RelaxError) as ref_err:
        relax_ref.evaluate(mod, "pick", np.asarray([99], np.int64), np.asarray(cache))
    with pytest.raises(type(ref_err.value)):
        exe("pick", np.asarray([99], np.int64), cache)
    assert not cache.is_deleted()


def test_handles_cross_buckets_and_executables():
    mod = relax_ref.parse(_GROW)
    exe = relax_jax.compile(mod, padded_results={"step"})
    other = relax_jax.compile(mod)
    tok, w, c0 = _inputs(5, rows=3)
    cache, want = jnp.asarray(c0), c0
    for _ in range(20):                          # 4..23 rows: buckets 4, 8, 16, 32
        _, cache = exe("step", tok, cache, w)
        _, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
    np.testing.assert_array_equal(np.asarray(cache), want)
    _, theirs = other("step", tok, cache, w)      # another executable takes it through its exact array
    assert isinstance(theirs, jax.Array)
    np.testing.assert_array_equal(np.asarray(theirs)[:23], want)


@pytest.mark.parametrize("names, msg", [
    ({"nope"}, "no Relax function"),
    ([1], "strings"),
    (3, "function names"),
])
def test_bad_padded_results(names, msg):
    with pytest.raises(TypeMismatchError, match=msg):
        relax_jax.compile(_GROW, padded_results=names)


def test_the_fast_path_checks_a_replaced_static_argument():
    mod = relax_ref.parse(_GROW)
    exe = relax_jax.compile(mod, padded_results={"step"})
    tok, w, c0 = _inputs(6, rows=5)
    _, cache = exe("step", tok, jnp.asarray(c0), w)
    _, cache = exe("step", tok, cache, w)           # the fast path, its static arguments remembered
    assert exe.stats.cache_hits >= 1
    want = np.asarray(cache).copy()
    w2 = jnp.asarray(np.asarray(w) * 2)             # another weight array: checked and used
    total, grown = exe("step", tok, cache, w2)
    _, ref = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w2))
    np.testing.assert_array_equal(np.asarray(grown), ref)
    with pytest.raises(RelaxError):                 # a wrong dtype where the weight was: the reference's error
        exe("step", tok, grown, np.asarray(w, np.float64))
    with pytest.raises(RelaxError):
        exe("step", tok, grown, w2.reshape(4, 1))


_TWO = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def step(tok: R.Tensor((1, 4), "float32"), k: R.Tensor(("m", 4), "float32"),
             v: R.Tensor(("m", 4), "float32")):
        m = T.int64()
        k2 = R.concat([k, tok], axis=0)
        v2 = R.concat([v, R.multiply(tok, tok)], axis=0)
        total = R.sum(R.add(k2, v2), axis=[0], keepdims=True)
        return (total, k2, v2)
'''


@pytest.mark.parametrize("donate", [False, True])
def test_handles_of_one_call_checked_once_and_a_replaced_one_detected(donate):
    """The handles of one call share one logical shape (the very tuple), which the fast path checks
    once: a handle of that call replaced by one of another length (another call's), or by an array of
    another length, is refused with the reference's error, and nothing donated is deleted before it."""
    mod = relax_ref.parse(_TWO)
    exe = relax_jax.compile(mod, padded_results={"step"}, donate_argnums={"step": (1, 2)} if donate else None)
    rng = np.random.default_rng(11)
    tok = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    k0, v0 = rng.standard_normal((9, 4), np.float32), rng.standard_normal((9, 4), np.float32)
    _, k, v = exe("step", tok, jnp.asarray(k0), jnp.asarray(v0))
    wk, wv = np.concatenate([k0, tok]), np.concatenate([v0, np.asarray(tok) ** 2])
    older = None
    for step in range(3):
        assert type(k) is PaddedArray and (step == 0 or k.shape is v.shape)  # the fast path's: one tuple
        if older is None and not donate:
            older = k                                           # a handle of 10 rows, kept
        total, k, v = exe("step", tok, k, v)
        want = relax_ref.evaluate(mod, "step", np.asarray(tok), wk, wv)
        wk, wv = np.asarray(want[1]), np.asarray(want[2])
        np.testing.assert_array_equal(np.asarray(total), want[0])
        np.testing.assert_array_equal(np.asarray(k), wk)
        np.testing.assert_array_equal(np.asarray(v), wv)
    assert exe.stats.cache_hits >= 2
    replaced = [jnp.asarray(np.zeros((len(wk) + 1, 4), np.float32))]
    if older is not None:
        replaced.append(older)
    for other in replaced:
        for args in ((tok, k, other), (tok, other, v)):
            with pytest.raises(RelaxError):
                exe("step", *args)
            assert not k.is_deleted() and not v.is_deleted()
            np.testing.assert_array_equal(np.asarray(k), wk)
            np.testing.assert_array_equal(np.asarray(v), wv)
    total, k, v = exe("step", tok, k, v)
    want = relax_ref.evaluate(mod, "step", np.asarray(tok), wk, wv)
    np.testing.assert_array_equal(np.asarray(k), want[1])
    np.testing.assert_array_equal(np.asarray(total), want[0])

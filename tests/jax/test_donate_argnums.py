"""``relax_jax.compile(mod, donate_argnums=...)``: the caller donates arguments, as with ``jax.jit``
(relax_jax.donation). Values equal the reference's with and without donation; donated JAX arrays are
deleted by a compiled call; a growing ``concat`` cache is grown in its padded buffer in place."""

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxError, TypeMismatchError

from program_texts import GROWING_CACHE as _GROW


def _mod():
    return relax_ref.parse(_GROW)


def _run(exe, mod, steps=12, rows=3):
    rng = np.random.default_rng(0)
    tok = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    w = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    cache0 = rng.standard_normal((rows, 4), np.float32)
    cache, want = jnp.asarray(cache0), cache0
    pairs = []
    for _ in range(steps):
        total, grown = exe("step", tok, cache, w)
        want_total, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
        np.testing.assert_allclose(np.asarray(total), want_total, rtol=1e-5)   # sum order (OP.SEM.5)
        np.testing.assert_array_equal(np.asarray(grown), want)
        pairs.append((cache, grown))
        cache = grown
    return pairs, w, tok


@pytest.mark.parametrize("donate", [False, True])
def test_values_match_the_reference_with_and_without_donation(donate):
    mod = _mod()
    exe = relax_jax.compile(mod, donate_argnums={"step": (1,)} if donate else None)
    pairs, w, tok = _run(exe, mod)
    for passed, _ in pairs:
        assert passed.is_deleted() == donate        # consumed only when donated
    assert not w.is_deleted() and not tok.is_deleted()
    assert exe.stats.host_calls == 0


def test_donated_parameter_is_aliased_with_a_result():
    mod = _mod()
    exe = relax_jax.compile(mod, donate_argnums={"step": [1]})
    _run(exe, mod, steps=10, rows=17)       # 18..27 rows: one bucket (32)
    assert exe.stats.reused_pads >= 8
    plan = exe._plans["step"]
    assert len(plan.cache) == 1
    c = next(iter(plan.cache.values()))
    assert c.given == ((1, 1),)
    assert "(1, {}, may-alias)" in c.fn.as_text()


def test_in_place_growth_reuses_the_memory():
    mod = _mod()
    exe = relax_jax.compile(mod, donate_argnums={"step": (1,)})
    rng = np.random.default_rng(1)
    tok = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    w = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    cache = jnp.asarray(rng.standard_normal((17, 4), np.float32))
    seen = []
    for _ in range(8):
        _, cache = exe("step", tok, cache, w)
        seen.append(exe._padded_src[id(cache)][1].unsafe_buffer_pointer())
    # after the first step (padded on the host), every step writes into the same padded buffer
    assert len(set(seen[1:])) == 1


def test_a_view_the_caller_keeps_is_not_overwritten():
    mod = _mod()
    exe = relax_jax.compile(mod, donate_argnums={"step": (1,)})
    rng = np.random.default_rng(2)
    tok = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    w = jnp.asarray(rng.standard_normal((1, 4), np.float32))
    _, cache = exe("step", tok, jnp.asarray(rng.standard_normal((17, 4), np.float32)), w)
    kept = np.asarray(cache)            # a numpy view of the result (the padded buffer's memory)
    before = kept.copy()
    _, grown = exe("step", tok, cache, w)
    _, grown2 = exe("step", tok * 2, grown, w)
    np.testing.assert_array_equal(kept, before)
    assert cache.is_deleted()
    np.testing.assert_array_equal(np.asarray(grown2)[:18], before)


def test_argument_passed_twice_and_numpy_arguments():
    src = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def f(a: R.Tensor(("m", 4), "float32"), b: R.Tensor(("m", 4), "float32")):
        m = T.int64()
        c = R.concat([a, b], axis=0)
        return c
'''
    mod = relax_ref.parse(src)
    exe = relax_jax.compile(mod, donate_argnums={"f": (0,)})
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = relax_ref.evaluate(mod, "f", x, x)
    a = jnp.asarray(x)
    np.testing.assert_array_equal(np.asarray(exe("f", a, a)), want)    # one array at two positions
    assert a.is_deleted()
    xn = x.copy()
    np.testing.assert_array_equal(np.asarray(exe("f", xn, x)), want)   # numpy: transferred, kept
    np.testing.assert_array_equal(xn, x)
    for _ in range(3):                                                 # the fast path too
        a = jnp.asarray(x)
        np.testing.assert_array_equal(np.asarray(exe("f", a, a)), want)
        b = jnp.asarray(x)
        np.testing.assert_array_equal(np.asarray(exe("f", b, jnp.asarray(x))), want)
        assert b.is_deleted()


def test_failed_check_in_a_donated_call_raises_the_reference_error():
    mod = _mod()
    exe = relax_jax.compile(mod, donate_argnums={"pick": (1,)})
    cache = np.ones((5, 4), np.float32)
    for i in range(3):                  # warm: the fast paths are built
        cache = exe("pick", np.asarray([i], np.int64), cache)
    with pytest.raises(RelaxError) as ref_err:
        relax_ref.evaluate(mod, "pick", np.asarray([99], np.int64), np.asarray(cache))
    with pytest.raises(type(ref_err.value)):
        exe("pick", np.asarray([99], np.int64), cache)


@pytest.mark.parametrize("spec, msg", [
    ({"nope": (0,)}, "no Relax function"),
    ({"step": (2, 7)}, "not a parameter index"),
    ({"step": ("cache",)}, "integers"),
    ([1, 2], "must map"),
])
def test_bad_donate_argnums(spec, msg):
    with pytest.raises(TypeMismatchError, match=msg):
        relax_jax.compile(_mod(), donate_argnums=spec)


def test_only_tensor_parameters_can_be_donated():
    src = '''
from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32"), s: R.Shape([2])):
        return x
'''
    with pytest.raises(TypeMismatchError, match="not a tensor"):
        relax_jax.compile(src, donate_argnums={"f": (1,)})
    exe = relax_jax.compile(src, donate_argnums={"f": (-2,)})          # negative: from the end
    x = jnp.ones(2, jnp.float32)
    np.testing.assert_array_equal(np.asarray(exe("f", x, (2,))), np.ones(2, np.float32))
    assert x.is_deleted()

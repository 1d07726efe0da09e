"""A deleted JAX array passed to relax_jax (donated to an earlier call, or deleted by the caller) is a
RelaxRuntimeError naming the argument, on the first call and on a warm fast path alike; the other
arguments stay alive."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
relax_jax = pytest.importorskip("relax_jax")

from program_texts import GROWING_CACHE
from relax_ref.errors import RelaxRuntimeError


def _args():
    return jnp.ones((1, 4), jnp.float32), jnp.zeros((3, 4), jnp.float32), jnp.full((1, 4), 2.0, jnp.float32)


@pytest.mark.parametrize("padded, message", [
    (None, r"argument 1 \('cache'\) of 'step' is a deleted JAX array"),
    (("step",), r"a PaddedArray of shape \(5, 4\) was read after its buffer was given up"),
])
def test_a_donated_cache_passed_again_is_an_error(padded, message):
    exe = relax_jax.compile(GROWING_CACHE, donate_argnums={"step": (1,)}, padded_results=padded)
    tok, cache, w = _args()
    for _ in range(3):                  # warm: later calls take the fast path
        old = cache
        total, cache = exe("step", tok, cache, w)
    assert old.is_deleted()
    with pytest.raises(RelaxRuntimeError, match=message):
        exe("step", tok, old, w)
    assert not tok.is_deleted() and not w.is_deleted()
    total, grown = exe("step", tok, cache, w)          # the live cache still works
    np.testing.assert_array_equal(np.asarray(grown)[-1], np.full(4, 2.0, np.float32))
    assert np.asarray(grown).shape == (7, 4)


def test_a_deleted_weight_on_the_first_call():
    exe = relax_jax.compile(GROWING_CACHE)
    tok, cache, w = _args()
    w.delete()
    with pytest.raises(RelaxRuntimeError, match=r"argument 2 \('w'\) of 'step' is a deleted JAX array"):
        exe("step", tok, cache, w)


def test_a_deleted_weight_on_a_warm_call():
    exe = relax_jax.compile(GROWING_CACHE)
    tok, cache, w = _args()
    for _ in range(3):
        exe("step", tok, cache, w)
    w2 = jnp.full((1, 4), 2.0, jnp.float32)
    w2.delete()
    with pytest.raises(RelaxRuntimeError, match=r"argument 2 \('w'\) of 'step'"):
        exe("step", tok, cache, w2)
    total, grown = exe("step", tok, cache, w)
    np.testing.assert_array_equal(np.asarray(total), np.full((1, 4), 2.0, np.float32))

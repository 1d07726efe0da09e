"""The fast paths' tensor checks (JAX arrays by type, their shapes and dtypes left to the compiled
executable; NumPy arrays by dtype): arguments that alternate between JAX and NumPy arrays, of the
right or another dtype or shape, weak-typed JAX scalars, Python and NumPy scalars give the general
path's (the reference's) result or error, and no donated argument is deleted before an error."""

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxError

from program_texts import GROWING_CACHE

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"

SRC = HEADER + '''
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), y: R.Tensor((2, 4), "float32"), s: R.Tensor((), "float32")):
        z = R.add(x, y)
        w = R.multiply(z, s)
        return w
'''

_F32 = np.ones((2, 4), np.float32)

# (y, s) pairs in the order called: the fast path's memo of positions changes between them
_SEQUENCE = [
    (jnp.asarray(_F32), jnp.asarray(2.0, jnp.float32)),
    (_F32 * 3, jnp.asarray(2.0, jnp.float32)),             # NumPy where a JAX array was
    (jnp.asarray(_F32), np.float32(0.5)),                  # a NumPy scalar (0-d)
    (jnp.asarray(_F32), jnp.asarray(4.0)),                 # a weak-typed JAX scalar
    (jnp.asarray(_F32) * 5, np.asarray(2.0, np.float32)),
    (_F32.astype(np.float64), jnp.asarray(2.0, jnp.float32)),      # NumPy of another dtype
    (jnp.asarray(_F32, jnp.float16), jnp.asarray(2.0, jnp.float32)),
    (jnp.ones((2, 5), jnp.float32), jnp.asarray(2.0, jnp.float32)),
    (np.ones((4, 2), np.float32), jnp.asarray(2.0, jnp.float32)),
    (jnp.asarray(_F32), jnp.asarray(2, jnp.int32)),
    (jnp.asarray(_F32), jnp.asarray([2.0], jnp.float32)),
    (jnp.asarray(_F32), 2.0),                              # a Python float
    (_F32.tolist(), jnp.asarray(2.0, jnp.float32)),        # a Python list
    (jnp.asarray(_F32), jnp.asarray(2.0, jnp.float32)),
]


def _outcome(f):
    try:
        return ("ok", np.asarray(f()))
    except RelaxError as e:
        return ("err", type(e))


@pytest.mark.parametrize("donate", [False, True])
def test_arguments_of_every_kind_after_a_warm_fast_path(donate):
    kw = {"donate_argnums": {"main": (0,)}} if donate else {}
    hot = relax_jax.compile(SRC, **kw)
    x0 = np.arange(8, dtype=np.float32).reshape(2, 4)
    for _ in range(3):
        hot("main", jnp.asarray(x0), jnp.asarray(_F32), jnp.asarray(1.0, jnp.float32))
    assert hot._plans["main"].hot is not None
    hits = hot.stats.cache_hits
    for y, s in _SEQUENCE:
        fresh = relax_jax.compile(SRC, **kw)
        x, x2 = jnp.asarray(x0), jnp.asarray(x0)
        got = _outcome(lambda: hot("main", x, y, s))
        general = _outcome(lambda: fresh("main", x2, y, s))
        assert got[0] == general[0], (y, s, got, general)
        if got[0] == "ok":
            np.testing.assert_array_equal(got[1], general[1])
            ref = relax_ref.evaluate(relax_ref.parse(SRC), "main", x0, np.asarray(y), np.asarray(s))
            np.testing.assert_array_equal(got[1], ref)
            if isinstance(s, float) or isinstance(y, list):
                pytest.fail("a Python value taken for a tensor")
        else:
            assert got[1] is general[1], (y, s, got, general)
            assert not x.is_deleted()               # nothing donated before the error
    assert hot.stats.cache_hits >= hits + 4         # the JAX and NumPy arrays of the right kind: fast


def test_a_weak_typed_scalar_and_others_on_the_padded_fast_path():
    exe = relax_jax.compile(GROWING_CACHE, donate_argnums={"step": (1,)}, padded_results={"step"})
    mod = relax_ref.parse(GROWING_CACHE)
    tok, w = jnp.ones((1, 4), jnp.float32), jnp.full((1, 4), 2.0, jnp.float32)
    cache, want = jnp.zeros((3, 4), jnp.float32), np.zeros((3, 4), np.float32)
    for tk, ww in ((tok, w), (tok, w), (tok, w), (np.ones((1, 4), np.float32), w),
                   (tok, np.full((1, 4), 3.0, np.float32)), (tok * 2, jnp.full((1, 4), 0.5))):
        total, cache = exe("step", tk, cache, ww)
        t, want = relax_ref.evaluate(mod, "step", np.asarray(tk), want, np.asarray(ww))
        np.testing.assert_array_equal(np.asarray(cache), want)
        np.testing.assert_array_equal(np.asarray(total), t)
    assert exe._plans["step"].hot is not None
    for bad in (np.ones((1, 4), np.float16), jnp.ones((4,), jnp.float32), 1.0, np.float32(1)):
        with pytest.raises(RelaxError):
            exe("step", tok, cache, bad)
        assert not cache.is_deleted()
        np.testing.assert_array_equal(np.asarray(cache), want)

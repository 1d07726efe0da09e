"""Maxima over a long last axis in XLA's windows (relax_jax.reductions): the same values as one
reduction (NaN, infinities, a padded last window), and on the CPU backend the masked operand of a
softmax's or an attention's maximum is no longer written out for a windowed reduction (XLA fuses it
into the first stage), on the graph path and the TensorIR path alike."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.float_rules import STRICT_OPTIONS
from relax_jax.reductions import WINDOW, reduce, reduce_last, windowed
from relax_ref.transform.legalize_ops import LegalizeOps
from tir_prims import HEADER

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("n", [1, 31, 32, 33, 100, 512, 1000])
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", jnp.bfloat16])
def test_windowed_extremum_is_the_extremum(n, op, dtype):
    x = RNG.standard_normal((3, 5, n)).astype(np.float32)
    x[0, 0, n // 2] = np.nan
    x[1, 1, :] = -np.inf if op == "max" else np.inf
    x[2, 2, -1] = np.inf if op == "max" else -np.inf
    x = jnp.asarray(x).astype(dtype)
    want = np.asarray(getattr(jnp, op)(x, axis=-1, keepdims=True))
    got = np.asarray(jax.jit(lambda v: reduce_last(op, v, keepdims=True))(x))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(reduce(op, x, -1)), want[..., 0])
    np.testing.assert_array_equal(np.asarray(reduce(op, x, 1)), np.asarray(getattr(jnp, op)(x, axis=1)))
    assert (windowed(op, x) is None) == (n <= WINDOW)


def test_only_float_extrema_are_windowed():
    assert windowed("add", jnp.ones((4, 100), jnp.float32)) is None
    assert windowed("max", jnp.ones((4, 100), jnp.int32)) is None
    assert windowed("max", jnp.ones((100,), jnp.float32)).shape == (4,)


SOFTMAX = HEADER + '''
    @R.function
    def main(x: R.Tensor((64, 512), "float32")):
        with R.dataflow():
            y = R.nn.softmax(R.multiply(x, R.const(0.5, "float32")), axis=-1)
            R.output(y)
        return y
'''

ATTENTION = HEADER + '''
    @R.function
    def main(q: R.Tensor((1, "s", 4, 16), "float32"), k: R.Tensor((1, "s", 4, 16), "float32"),
             v: R.Tensor((1, "s", 4, 16), "float32")):
        with R.dataflow():
            y = R.nn.attention(q, k, v, causal_mask="TopLeft")
            R.output(y)
        return y
'''


def _hlo(exe, entry="main"):
    plan = exe._plans[entry]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()


def _windowed_reductions(hlo: str) -> int:
    """The reduce-window instructions of the compiled entry computation."""
    entry = hlo[hlo.index("\nENTRY"):]
    return len(re.findall(r"= \S+ fusion\([^)]*\), kind=kLoop, calls=%wrapped_reduce-window", entry))


@pytest.mark.parametrize("legalized", [False, True])
def test_softmax_maximum_fuses_its_operand(legalized):
    mod = relax_ref.parse(SOFTMAX)
    exe = relax_jax.compile(LegalizeOps()(mod) if legalized else mod)
    x = RNG.standard_normal((64, 512)).astype(np.float32)
    got = np.asarray(exe("main", x))
    np.testing.assert_allclose(got, relax_ref.evaluate(mod, "main", x), rtol=1e-6, atol=1e-7)
    # only the row sum is left to XLA's windowed reduction; the maximum reads the scaled rows in its
    # own fusion (under the strict options; not asserted elsewhere)
    assert _windowed_reductions(_hlo(exe)) == 1


@pytest.mark.parametrize("s", [100, 128])
def test_attention_values_with_windowed_maximum(s):
    mod = relax_ref.parse(ATTENTION)
    exe = relax_jax.compile(mod, pad_poison=True)
    q, k, v = (RNG.standard_normal((1, s, 4, 16)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(np.asarray(exe("main", q, k, v)), relax_ref.evaluate(mod, "main", q, k, v),
                               rtol=1e-5, atol=1e-6)


def test_xla_windows_a_long_reduction_and_not_the_windowed_one():
    """What the module rests on (XLA's CPU backend, jaxlib 0.10): a maximum over 512 becomes a
    reduce-window; the windowed form compiles to reductions only."""
    if jax.default_backend() != "cpu":
        pytest.skip("the tree reduction rewriter measured is the CPU backend's")
    x = jnp.ones((4, 512), jnp.float32)

    def text(f):
        return jax.jit(f).lower(x).compile(dict(STRICT_OPTIONS)).as_text().split("\nENTRY")[1]
    assert "reduce-window" in text(lambda a: jnp.max(a, axis=-1))
    assert "reduce-window" not in text(lambda a: reduce_last("max", a))

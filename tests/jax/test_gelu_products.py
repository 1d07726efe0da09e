"""The GELU's inner products carry no multiply barrier (``relax_jax.ops.elementwise.gelu``): ``x *
sqrt(1/2)`` only feeds ``erf`` and ``erf * 0.5`` is exact, so no contraction can change them; the last
product keeps the barrier unless the result is used only as a factor (``float_rules.PRODUCT_OPS``).
Checked bit for bit against the GELU with a barrier on every product, compiled the same way, on a
million float32 values and the special ones."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax import float_rules

N = 1 << 20

SRC = f'''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def alone(x: R.Tensor(({N},), "float32")) -> R.Tensor(({N},), "float32"):
        return R.nn.gelu(x)

    @R.function
    def factor(x: R.Tensor(({N},), "float32"), w: R.Tensor(({N},), "float32")) -> R.Tensor(({N},), "float32"):
        with R.dataflow():
            g = R.nn.gelu(x)
            y = R.multiply(g, w)
            R.output(y)
        return y
'''


def _inputs():
    rng = np.random.default_rng(9)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.2e-38, 3.4e38, -3.4e38], np.float32)
    dense = np.linspace(-8, 8, N // 2, dtype=np.float32)
    wide = (rng.standard_normal(N // 2 - special.size) * np.exp(rng.uniform(-90, 90, N // 2 - special.size)))
    return np.concatenate([special, dense, np.clip(wide, -3e38, 3e38).astype(np.float32)])


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32))


@pytest.fixture(scope="module")
def want():
    x = _inputs()

    def f(x):
        m = float_rules.rounded_multiply
        h = np.float32(0.5)
        return m(x, h + m(jax.lax.erf(m(x, np.float32(0.5 ** 0.5))), h))
    with jax.enable_x64(True):
        g = jax.jit(f).lower(x).compile(compiler_options=float_rules.STRICT_OPTIONS)
        return x, np.asarray(g(x))


def test_gelu_alone_equals_the_barriered_one(want):
    x, ref = want
    exe = relax_jax.compile(relax_ref.parse(SRC))
    assert _same(exe("alone", x), ref)


def test_gelu_used_as_a_factor_has_no_barrier_and_the_same_bits(want):
    x, ref = want
    mod = relax_ref.parse(SRC)
    assert len(float_rules.factor_only_products(mod)) == 1          # the gelu (the multiply is returned)
    exe = relax_jax.compile(mod)
    assert _same(exe("factor", x, np.ones(N, np.float32)), ref)
    plan = exe._plans["factor"]
    text = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    assert text.count(" reduce-precision(") == 1                    # the returned multiply's own

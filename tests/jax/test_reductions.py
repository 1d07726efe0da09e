"""Maxima over a long last axis in XLA's windows (relax_jax.reductions): the same values as one
reduction (infinities, a padded last window; a row holding a NaN gives one of its elements or NaN),
and on the CPU backend the masked operand of a softmax's or an attention's maximum is no longer
written out for a windowed reduction (XLA fuses it into the first stage), on the graph path and the TensorIR path alike; so are the exponentials that a
softmax sums (``window_sums``; on the TensorIR path only a sum of a buffer that holds no product,
``relax_jax.tir.products.product_free``)."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.float_rules import STRICT_OPTIONS
from relax_jax.reductions import WINDOW, reduce, reduce_last, window_sums, windowed
from relax_jax.tir.products import product_free
from relax_ref.transform.legalize_ops import LegalizeOps
from tir_prims import HEADER

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("n", [1, 31, 32, 33, 100, 512, 1000])
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", jnp.bfloat16])
def test_windowed_extremum_is_the_extremum(n, op, dtype):
    # the data of this case alone (a module-wide generator made the data depend on the tests run before)
    rng = np.random.default_rng([n, 0 if op == "max" else 1, 0 if dtype == "float32" else 1])
    x = rng.standard_normal((3, 5, n)).astype(np.float32)
    x[0, 0, n // 2] = np.nan
    x[1, 1, :] = -np.inf if op == "max" else np.inf
    x[2, 2, -1] = np.inf if op == "max" else -np.inf
    x = jnp.asarray(x).astype(dtype)
    want = np.asarray(getattr(jnp, op)(x, axis=-1, keepdims=True))
    got = np.asarray(jax.jit(lambda v: reduce_last(op, v, keepdims=True))(x))
    eager = np.asarray(reduce(op, x, -1))[..., None]
    # a row holding a NaN: XLA's CPU maximum of it is not always NaN and depends on the lanes the NaN
    # falls in (measured on jaxlib 0.10.2: 6 of 200 random rows of 512 gave another value eagerly in
    # windows than in one reduction), so its value is only some element of the row; R.max / R.min's NaN
    # rule is relax_jax.extreme_fold's, not this module's
    clean = np.ones(want.shape, bool)
    clean[0, 0] = False
    for r in (got, eager):
        np.testing.assert_array_equal(r[clean], want[clean])
        v = np.asarray(x[0, 0], np.float32)
        assert np.isnan(r[0, 0, 0]) or r[0, 0, 0] in v[~np.isnan(v)]
    np.testing.assert_array_equal(np.asarray(reduce(op, x, 1)), np.asarray(getattr(jnp, op)(x, axis=1)))
    assert (windowed(op, x) is None) == (n <= WINDOW)


def test_only_float_extrema_are_windowed():
    assert windowed("add", jnp.ones((4, 100), jnp.float32)) is None
    assert windowed("max", jnp.ones((4, 100), jnp.int32)) is None
    assert windowed("max", jnp.ones((100,), jnp.float32)).shape == (4,)


def test_window_sums_only_whole_windows_of_floats():
    x = jnp.asarray(RNG.standard_normal((3, 128)).astype(np.float32))
    w = window_sums(x)
    assert w.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(w.sum(-1)), np.asarray(x).astype(np.float64).sum(-1), rtol=1e-5, atol=1e-5)
    for same in (x[:, :100], x[:, :32], jnp.ones((3, 64), jnp.int32)):   # a padded copy; one window; ints
        assert window_sums(same) is same


PRODUCTS = HEADER + '''
    @T.prim_func
    def f(a: T.Buffer((T.int64(4), T.int64(64)), "float32"), out: T.Buffer((T.int64(4),), "float32")):
        e = T.alloc_buffer((T.int64(4), T.int64(64)))
        masked = T.alloc_buffer((T.int64(4), T.int64(64)))
        sq = T.alloc_buffer((T.int64(4), T.int64(64)))
        cast_sq = T.alloc_buffer((T.int64(4), T.int64(64)))
        copy = T.alloc_buffer((T.int64(4), T.int64(64)))
        for i, k in T.grid(T.int64(4), T.int64(64)):
            with T.block("elementwise"):
                vi, vk = T.axis.remap("SS", [i, k])
                e[vi, vk] = T.exp(a[vi, vk])
                masked[vi, vk] = T.Select(vk <= vi, e[vi, vk], T.float32(0))
                sq[vi, vk] = a[vi, vk] * a[vi, vk]
                cast_sq[vi, vk] = T.Select(vk <= vi, T.Cast("float32", a[vi, vk] * a[vi, vk]), T.float32(0))
                copy[vi, vk] = sq[vi, vk]
        for i, k in T.grid(T.int64(4), T.int64(64)):
            with T.block("red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    out[vi] = T.float32(0)
                out[vi] = out[vi] + masked[vi, vk] + sq[vi, vk] + cast_sq[vi, vk] + copy[vi, vk]
'''


def test_product_free_buffers():
    func = relax_ref.parse(PRODUCTS)["f"]
    bufs = {b.name: b for b in _alloc_buffers(func.body)}
    assert product_free(func, bufs["e"]) and product_free(func, bufs["masked"])
    assert not any(product_free(func, bufs[n]) for n in ("sq", "cast_sq", "copy"))
    assert not product_free(func, dict(func.buffer_map)[func.params[0]])     # a parameter: not known here


def _alloc_buffers(stmt):
    from relax_ref.ir import tir
    from relax_ref.ir.functor import stmt_children
    if isinstance(stmt, tir.BlockRealize):
        return _alloc_buffers(stmt.block)
    out = list(stmt.alloc_buffers) if isinstance(stmt, tir.Block) else \
        [stmt.buffer] if isinstance(stmt, tir.AllocBuffer) else []
    for c in stmt_children(stmt):
        out += _alloc_buffers(c)
    return out


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
def test_softmax_maximum_and_sum_fuse_their_operands(legalized):
    mod = relax_ref.parse(SOFTMAX)
    exe = relax_jax.compile(LegalizeOps()(mod) if legalized else mod)
    x = RNG.standard_normal((64, 512)).astype(np.float32)
    got = np.asarray(exe("main", x))
    np.testing.assert_allclose(got, relax_ref.evaluate(mod, "main", x), rtol=1e-6, atol=1e-7)
    # nothing is left to XLA's windowed reduction: the maximum reads the scaled rows in its own fusion,
    # the row sum's windows are summed in the fusion of the exponentials (under the strict options; not
    # asserted elsewhere)
    assert _windowed_reductions(_hlo(exe)) == 0


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


def test_a_fused_windowed_sum_contracts_its_products():
    """Why ``window_sums`` takes no products (XLA's CPU backend, jaxlib 0.10): a sum of ``a * b`` in
    windows fused with the product adds each product to the accumulator in one fused multiply-add, XLA's
    own windowed reduction does not. Each row holds ``E * E`` (rounded: ``1 + 2**-11``) and its negation
    ``NEG``: 0 in any order with the products rounded, ``2**-24`` where a product was contracted."""
    if jax.default_backend() != "cpu":
        pytest.skip("the contraction measured is the CPU backend's")
    e, neg = np.float32(1 + 2.0 ** -12), np.float32(-(1 + 2.0 ** -11))
    rows, n = 256, 512
    a, b = np.zeros((rows, n), np.float32), np.zeros((rows, n), np.float32)
    rng = np.random.default_rng(0)
    for r in range(rows):
        i, j = rng.choice(n, 2, replace=False)
        a[r, i], b[r, i], a[r, j], b[r, j] = e, e, neg, 1

    def run(f):
        return np.asarray(jax.jit(f).lower(a, b).compile(dict(STRICT_OPTIONS))(a, b))
    assert np.count_nonzero(run(lambda x, y: jnp.sum(x * y, axis=-1))) == 0
    assert np.count_nonzero(run(lambda x, y: jnp.sum(window_sums(x * y), axis=-1))) > 0

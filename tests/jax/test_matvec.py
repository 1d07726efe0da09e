"""relax_jax's large ``float32`` matrix-vector products, and ``bfloat16`` ones summed in ``float32``
(``relax_jax.ops.linalg._matvec_by_rows``): one row times a weight of 2048 x 2048 to 16 million
elements (from a million for a weight shape the function repeats) is summed by reductions, not XLA's
``dot`` (which compiles a kernel per product); smaller weights, several rows, other dtypes and a row
count the block does not divide keep the ``dot``. The values are OP.LINALG.SEM.1's sums (OP.LINALG.SEM.4's for ``bfloat16``), compared with a float64 numpy
product at a float32 sum's tolerance (OP.SEM.5)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import relax_ref

relax_jax = pytest.importorskip("relax_jax")

from relax_jax.ops import linalg  # noqa: E402

HEAD = "from tvm.script import ir as I, relax as R\n\n\n@I.ir_module\nclass Module:\n"


def _module(m: int, k: int, n: int, dtype: str = "float32"):
    return relax_ref.parse(HEAD + f'''    @R.function
    def main(x: R.Tensor((1, {m}, {k}), "{dtype}"), w: R.Tensor(({k}, {n}), "{dtype}")):
        y = R.matmul(x, w)
        return y
''')


def _args(m: int, k: int, n: int, dtype=np.float32):
    rng = np.random.default_rng(k + n)
    return (rng.standard_normal((1, m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype))


def _hlo(mod, args) -> str:
    return jax.jit(relax_jax.compile(mod).as_jax_function("main")).lower(*args).as_text()


@pytest.mark.parametrize("k, n", [(2048, 2048), (4096, 1100)])
def test_a_large_matvec_is_summed_by_reductions(k, n):
    mod, args = _module(1, k, n), _args(1, k, n)
    with jax.enable_x64(True):
        text = _hlo(mod, args)
    assert "dot_general" not in text and "stablehlo.reduce" in text
    got = np.asarray(relax_jax.compile(mod)("main", *args))
    want = args[0].astype(np.float64) @ args[1].astype(np.float64)
    bound = np.abs(args[0].astype(np.float64)) @ np.abs(args[1].astype(np.float64))
    assert got.shape == (1, 1, n) and got.dtype == np.float32
    assert np.all(np.abs(got - want) <= 2.0 ** -21 * k * bound)


def test_a_large_bfloat16_matvec_sums_in_float32():
    # OP.LINALG.SEM.4: products exact in float32, summed there, rounded once to bfloat16
    import ml_dtypes

    k, n = 2048, 2048
    mod, (x, w) = _module(1, k, n, "bfloat16"), _args(1, k, n)
    x, w = x.astype(ml_dtypes.bfloat16), w.astype(ml_dtypes.bfloat16)
    with jax.enable_x64(True):
        text = _hlo(mod, (x, w))
    assert "dot_general" not in text
    got = np.asarray(relax_jax.compile(mod)("main", x, w)).astype(np.float64)
    exact = x.astype(np.float64) @ w.astype(np.float64)
    bound = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64))
    # one bfloat16 rounding of a float32 sum: half a bfloat16 unit plus the sum's float32 error
    assert np.all(np.abs(got - exact) <= 2.0 ** -8 * np.abs(exact) + 2.0 ** -22 * k * bound)


@pytest.mark.parametrize("m, k, n, dtype", [
    (1, 2048, 1024, np.float32),        # below 2048 x 2048 elements
    (1, 2044, 2400, np.float32),        # rows the block does not divide
    (2, 2048, 2048, np.float32),        # two rows: a matrix product
    (1, 8192, 4096, np.float32),        # above 16 million elements (a vocabulary's head)
    (1, 2048, 2048, np.float64),
])
def test_other_products_keep_the_dot(m, k, n, dtype):
    mod = _module(m, k, n, np.dtype(dtype).name)
    spec = [jax.ShapeDtypeStruct((1, m, k), dtype), jax.ShapeDtypeStruct((k, n), dtype)]
    with jax.enable_x64(True):
        assert "dot_general" in _hlo(mod, spec)


@pytest.mark.parametrize("k, n, repeated, summed", [
    (2048, 2048, False, True), (2048, 2047, False, False), (4096, 4096, False, True), (4096, 4097, False, False),
    (2044, 2400, False, False), (1024, 1024, True, True), (1024, 1023, True, False), (4096, 4097, True, False)])
def test_the_bounds(k, n, repeated, summed):
    a = jax.ShapeDtypeStruct((1, k), np.float32)
    b = jax.ShapeDtypeStruct((k, n), np.float32)
    rep = frozenset({(k, n)}) if repeated else frozenset()
    assert linalg._rows_matvec(a, b, np.dtype(np.float32), rep) is summed


REPEATED = HEAD + """    @R.function
    def main(x: R.Tensor((1, 1, 1024), "float32"), w1: R.Tensor((1024, 1024), "float32"),
             w2: R.Tensor((1024, 1024), "float32"), w3: R.Tensor((1024, 2048), "float32")):
        with R.dataflow():
            h = R.matmul(R.matmul(x, w1), w2)
            y = R.matmul(h, w3)
            R.output(y)
        return y
"""


def test_a_repeated_weight_shape_is_summed_from_a_million_elements():
    mod = relax_ref.parse(REPEATED)
    assert linalg.repeated_weights(mod) == frozenset({(1024, 1024)})
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(1, 1, 1024), (1024, 1024), (1024, 1024),
                                                                 (1024, 2048)]]
    with jax.enable_x64(True):
        text = _hlo(mod, args)
    assert text.count("dot_general") == 1       # the 1024 x 2048 weight: once, two million elements
    got = np.asarray(relax_jax.compile(mod)("main", *args)).astype(np.float64)
    a = [v.astype(np.float64) for v in args]
    want = a[0] @ a[1] @ a[2] @ a[3]
    assert np.allclose(got, want, rtol=1e-4, atol=1e-3 * np.abs(want).max())


def test_a_symbolic_weight_keeps_the_dot():
    k, n = jax.export.symbolic_shape("k, n")
    a = jax.ShapeDtypeStruct((1, k), np.float32)
    b = jax.ShapeDtypeStruct((k, n), np.float32)
    assert linalg._rows_matvec(a, b, np.dtype(np.float32)) is False

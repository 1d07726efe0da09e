"""The products of relax_jax's normalization lowerings and the multiply barrier (PRIM.FLOAT.1).

A product that an add or a subtract consumes keeps the barrier (``float_rules.rounded_multiply``:
group and instance norm's ``mean * mean`` before the variance's subtraction, the scaled value before
``+ beta``); a product that is only summed by a reduction (the squares of a variance or a mean square)
or only used as a factor (the normalized value before ``* gamma``, ``x * r`` before ``* weight``) is
the plain product, and so is ``rms_norm``'s result when it is used only as a factor (a projection's
``matmul``). Checked on the compiled programs (where the barriers are) and on data whose squares
reveal a contraction into their sum: rows ``[a, 0, ..., b, 0, ...]`` where ``round(a*a) + b*b`` and
``a*a + round(b*b)``, rounded, both differ from ``round(a*a) + round(b*b)`` (zeros add exactly, so
the sum's order cannot change it; only a contraction can).
"""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref

relax_jax = pytest.importorskip("relax_jax")

from relax_jax import float_rules  # noqa: E402

HEAD = "from tvm.script import ir as I, relax as R\n\n\n@I.ir_module\nclass Module:\n"
ROWS, N = 32, 256

SRC = HEAD + f'''    @R.function
    def main(x: R.Tensor(({ROWS}, {N}), "float32"), w: R.Tensor(({N},), "float32"),
             p: R.Tensor(({N}, 8), "float32")):
        with R.dataflow():
            y = R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-5)
            z = R.matmul(R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-5), p)
            R.output(y, z)
        return (y, z)

    @R.function
    def ln(x: R.Tensor(({ROWS}, {N}), "float32"), w: R.Tensor(({N},), "float32")):
        y = R.nn.layer_norm(x, w, w, axes=[-1])
        return y

    @R.function
    def gn(x: R.Tensor((4, 8, {N}), "float32"), c: R.Tensor((8,), "float32")):
        y = R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, axes=[2])
        return y

    @R.function
    def inorm(x: R.Tensor((4, 8, {N}), "float32"), c: R.Tensor((8,), "float32")):
        y = R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2])
        return y
'''

#: where the second nonzero element of a row sits (the first is at 0): next to it, and one, two and
#: sixteen vector widths away
OFFSETS = (1, 8, 16, 128)


def _revealing_pairs(count: int, seed: int):
    """``(a, b)`` float32 pairs whose rounded squares' sum differs from a contraction of either square
    into it (computed in float64, where the product of two float32 values is exact)."""
    f32, f64 = np.float32, np.float64
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        a, b = rng.uniform(0.5, 2, 2).astype(f32)
        plain = f32(f32(a * a) + f32(b * b))
        if f32(f64(f32(a * a)) + f64(b) * f64(b)) != plain and f32(f64(f32(b * b)) + f64(a) * f64(a)) != plain:
            out.append((a, b))
    return out


def _rows(rows: int, n: int, seed: int) -> np.ndarray:
    x = np.zeros((rows, n), np.float32)
    for r, (a, b) in enumerate(_revealing_pairs(rows, seed)):
        x[r, 0], x[r, OFFSETS[r % len(OFFSETS)]] = a, b
    return x


def _rms_norm_np(x, w, contract: bool):
    """OP.nn.rms_norm by hand in float32, every operation rounded; ``contract``: each square fused into
    the running sum (what the plain product must never become)."""
    f32, f64 = np.float32, np.float64
    ss = np.zeros(x.shape[0], f32)
    for j in range(x.shape[1]):
        if contract:
            ss = (ss.astype(f64) + x[:, j].astype(f64) ** 2).astype(f32)
        else:
            ss = (ss + (x[:, j] * x[:, j]).astype(f32)).astype(f32)
    mean = (ss / f32(x.shape[1])).astype(f32)[:, None]
    r = (f32(1) / np.sqrt((mean + f32(1e-5)).astype(f32))).astype(f32)
    return ((r * x).astype(f32) * w).astype(f32)


def _barriers(mod, entry, *args) -> int:
    import jax

    with jax.enable_x64(True), float_rules.tracing_mode("strict"):
        text = jax.jit(relax_jax.compile(mod).as_jax_function(entry)).lower(*args).as_text()
    return text.count("reduce_precision")


def test_barriers_only_where_an_add_or_subtract_consumes_the_product():
    mod = relax_ref.parse(SRC)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS, N)).astype(np.float32)
    w = rng.standard_normal(N).astype(np.float32)
    x3 = rng.standard_normal((4, 8, N)).astype(np.float32)
    c = rng.standard_normal(8).astype(np.float32)
    # rms_norm: the returned one's result only (x*x is summed, x*r a factor); none for the one a matmul reads
    assert _barriers(mod, "main", x, w, rng.standard_normal((N, 8)).astype(np.float32)) == 1
    assert _barriers(mod, "ln", x, w) == 1            # norm * gamma before + beta
    assert _barriers(mod, "gn", x3, c) == 2           # mean * mean before the subtraction, and * gamma
    assert _barriers(mod, "inorm", x3, c) == 2


def test_squares_summed_plainly_are_the_reference_bit_for_bit():
    mod = relax_ref.parse(SRC)
    x = _rows(ROWS, N, seed=1)
    w = np.random.default_rng(2).uniform(0.5, 1.5, N).astype(np.float32)
    p = np.random.default_rng(3).standard_normal((N, 8)).astype(np.float32)
    want = _rms_norm_np(x, w, contract=False)
    assert np.any(_rms_norm_np(x, w, contract=True) != want)      # the data reveals a contraction
    ref_y, ref_z = relax_ref.evaluate(mod, "main", x, w, p)
    np.testing.assert_array_equal(np.asarray(ref_y), want)
    got_y, got_z = relax_jax.compile(mod)("main", x, w, p)
    np.testing.assert_array_equal(np.asarray(got_y).view(np.int32), want.view(np.int32))
    np.testing.assert_allclose(np.asarray(got_z), np.asarray(ref_z), rtol=1e-5, atol=1e-5)  # a matmul's sums


@pytest.mark.parametrize("entry", ["gn", "inorm"])
def test_group_and_instance_norm_squares_summed_plainly(entry):
    """The one-pass statistics of group and instance norm on rows whose squares reveal a contraction
    (and whose plain sums are exact in any order): the reference's bit for bit."""
    mod = relax_ref.parse(SRC)
    x = _rows(4 * 8, N, seed=4).reshape(4, 8, N)
    if entry == "gn":
        x[:, [1, 2, 3, 5, 6, 7]] = 0        # one row of each group of 4 channels
    c = np.random.default_rng(5).standard_normal(8).astype(np.float32)
    want = np.asarray(relax_ref.evaluate(mod, entry, x, c))
    got = np.asarray(relax_jax.compile(mod)(entry, x, c))
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_layer_norm_is_the_reference():
    """layer_norm's squares are of ``x - mean``, which rounding makes order-dependent in their sum: the
    reference's within the rounding of a sum's order."""
    mod = relax_ref.parse(SRC)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((ROWS, N)).astype(np.float32)
    w = rng.standard_normal(N).astype(np.float32)
    np.testing.assert_allclose(np.asarray(relax_jax.compile(mod)("ln", x, w)),
                               np.asarray(relax_ref.evaluate(mod, "ln", x, w)), rtol=1e-5, atol=1e-5)

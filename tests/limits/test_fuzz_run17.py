"""Findings of the seventeenth fuzzing run (docs/FUZZING.md, seed 20261223): a cubic ``image.resize3d``
of integer data (or with an integer ``out_dtype``) crashed the relax_jax process (a segmentation fault
in XLA's CPU compiler, jaxlib 0.10.2, while it emitted the transposes it made of the stencil's gathers
fused into their consumers); each read is now a fusion of its own. Found while triaging it: relax_jax's
resize values were 1 ulp off the reference's float32 formula (a product contracted into a fused
multiply-add with the add that consumes it, PRIM.FLOAT.1), so an integer result truncated one lower.
Expected values are hand values or the reference's (both evaluators must agree exactly,
OP.image.resize3d.C5)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("relax_jax")

from limits.fuzz_cases import lists_on_both, relax_main  # noqa: E402

SHAPE = (2, 3, 3, 4, 5)


def _resize(dtype: str, method: str, extra: str = "", out: str = "", size=(4, 6, 7)) -> str:
    res = out or dtype
    od = f', out_dtype="{out}"' if out else ""
    return relax_main(f'x: R.Tensor({SHAPE}, "{dtype}")',
                      f'y = R.image.resize3d(x, {tuple(size)}, method="{method}"{extra}{od})\nreturn y',
                      f'R.Tensor({SHAPE[:2] + tuple(size)}, "{res}")')


def _ramp(dtype: str) -> np.ndarray:
    """A non-constant image: 0..100 in a scrambled order."""
    return (np.arange(int(np.prod(SHAPE))) * 37 % 101).reshape(SHAPE).astype(dtype)


def _agree_exactly(text: str, *args, shape) -> None:
    """``main(*args)`` of ``text`` gives a value of ``shape`` on both evaluators, the same bits."""
    (rk, rv), (jk, jv) = lists_on_both(text, *args)
    assert (rk, jk) == ("value", "value")
    assert np.array_equal(np.asarray(rv), np.asarray(jv))
    assert np.asarray(jv).shape == shape


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
@pytest.mark.parametrize("extra", ["", ", cubic_exclude=1"])
def test_cubic_resize3d_of_integers_of_a_constant_image(dtype, extra):
    """The fuzzed program (uint8 data, ``cubic_exclude=1``) and its integer siblings: a constant image
    interpolates to the constant (the Keys weights of each axis sum to one; truncating a float32 sum
    just below it gives one less), the same on both evaluators."""
    x = np.full(SHAPE, 9, dtype)
    (rk, rv), (jk, jv) = lists_on_both(_resize(dtype, "cubic", extra), x)
    assert (rk, jk) == ("value", "value")
    assert rv == jv
    assert set(np.asarray(jv).ravel().tolist()) <= {8, 9}
    assert np.asarray(jv).shape == (2, 3, 4, 6, 7)


@pytest.mark.parametrize("out", ["uint8", "int32"])
def test_cubic_resize3d_of_float32_data_to_an_integer_out_dtype(out):
    x = np.full(SHAPE, 9.5, "float32")
    (rk, rv), (jk, jv) = lists_on_both(_resize("float32", "cubic", out=out), x)
    assert (rk, jk) == ("value", "value")
    assert rv == jv
    assert set(np.asarray(jv).ravel().tolist()) <= {9}


@pytest.mark.parametrize("dtype, out", [("uint8", ""), ("int8", ""), ("int64", ""), ("float32", "uint8"),
                                        ("float32", ""), ("float32", "float16")])
@pytest.mark.parametrize("extra", ["", ", cubic_exclude=1", ', coordinate_transformation_mode="align_corners"'])
def test_cubic_resize3d_of_a_non_constant_image_agrees_exactly(dtype, out, extra):
    """Both evaluators give the same values, bit for bit, for a non-constant image (the reference's
    float32 formula, each product rounded before the add that consumes it)."""
    (rk, rv), (jk, jv) = lists_on_both(_resize(dtype, "cubic", extra, out), _ramp(dtype))
    assert (rk, jk) == ("value", "value")
    assert np.array_equal(np.asarray(rv), np.asarray(jv))
    assert np.asarray(jv).shape == (2, 3, 4, 6, 7)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32"])
@pytest.mark.parametrize("method", ["cubic", "linear"])
def test_resize3d_to_its_own_size_is_the_identity(dtype, method):
    """With ``asymmetric`` coordinates and the input's size every output position is an input position:
    the fraction is 0, the weights are exactly (0, 1, 0, 0) for cubic, (1, 0) for linear, so the
    result is the input itself on both evaluators."""
    x = _ramp(dtype)
    (rk, rv), (jk, jv) = lists_on_both(
        _resize(dtype, method, ', coordinate_transformation_mode="asymmetric"', size=SHAPE[2:]), x)
    assert (rk, jk) == ("value", "value")
    assert np.array_equal(np.asarray(rv), x)
    assert np.array_equal(np.asarray(jv), x)


# ---------------------------------------------------------------------------------------------------
# siblings: the reference's affine_grid and grid_sample formulas evaluated on JAX arrays
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("size", [(5, 7), (4, 6, 3)])
@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_agrees_exactly(dtype, size, align):
    """``theta[k] + sum of theta[k - 1 - r] * c_r``: each product rounded before it is added, on both."""
    k = len(size)
    theta = np.random.default_rng(17).standard_normal((2, k, k + 1)).astype(dtype)
    text = relax_main(f'th: R.Tensor((2, {k}, {k + 1}), "{dtype}")',
                      f"y = R.image.affine_grid(th, {size}, align_corners={align})\nreturn y")
    (rk, rv), (jk, jv) = lists_on_both(text, theta)
    assert (rk, jk) == ("value", "value")
    assert np.array_equal(np.asarray(rv), np.asarray(jv))
    assert np.asarray(jv).shape == (2, k) + size


@pytest.mark.parametrize("method", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_of_float32_agrees_exactly(method, padding):
    rng = np.random.default_rng(23)
    x = rng.standard_normal((2, 3, 5, 6)).astype("float32")
    g = (rng.standard_normal((2, 2, 4, 7)) * 0.9).astype("float32")
    text = relax_main('x: R.Tensor((2, 3, 5, 6), "float32"), g: R.Tensor((2, 2, 4, 7), "float32")',
                      f'y = R.image.grid_sample(x, g, method="{method}", padding_mode="{padding}")\nreturn y')
    _agree_exactly(text, x, g, shape=(2, 3, 4, 7))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode, ratio, aligned", [("avg", 2, True), ("avg", -1, False), ("max", 2, False),
                                                  ("max", -1, True)])
def test_roi_align_agrees_exactly(dtype, mode, ratio, aligned):
    """relax_jax's own roi_align lowering rounds the bin starts' and the samples' products before the
    adds that consume them, as the reference (OP.vision.roi_align.C6)."""
    x = np.random.default_rng(29).standard_normal((2, 3, 8, 9)).astype(dtype)
    rois = np.array([[0, 1.3, 0.7, 6.1, 5.9], [1, 0.2, 2.5, 8.4, 7.3], [0, 3.3, 1.1, 4.9, 6.6]], dtype)
    text = relax_main(f'x: R.Tensor((2, 3, 8, 9), "{dtype}"), r: R.Tensor((3, 5), "{dtype}")',
                      f'y = R.vision.roi_align(x, r, pooled_size=(3, 2), spatial_scale=0.9, '
                      f'sample_ratio={ratio}, mode="{mode}", aligned={aligned})\nreturn y')
    _agree_exactly(text, x, rois, shape=(3, 3, 3, 2))


@pytest.mark.parametrize("method", ["bilinear", "bicubic"])
def test_grid_sample_of_float16_agrees_exactly(method):
    """float16 products that are subnormal (below 2**-14) keep their value, as the reference's."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 5, 6)).astype("float16")
    g = (rng.standard_normal((2, 2, 4, 7)) * 0.9).astype("float16")
    text = relax_main('x: R.Tensor((2, 3, 5, 6), "float16"), g: R.Tensor((2, 2, 4, 7), "float16")',
                      f'y = R.image.grid_sample(x, g, method="{method}")\nreturn y')
    for _ in range(4):
        (rk, rv), (jk, jv) = lists_on_both(text, x, g)
        assert (rk, jk) == ("value", "value")
        assert np.array_equal(np.asarray(rv), np.asarray(jv))
        x = rng.standard_normal((2, 3, 5, 6)).astype("float16")
        g = (rng.standard_normal((2, 2, 4, 7)) * 0.9).astype("float16")


def test_a_subnormal_float16_product_is_not_flushed():
    """0.001 * 0.01 in float16: the operands are 1049 * 2**-20 and 1311 * 2**-17 (the nearest float16
    values), their product 1375239 * 2**-37 ~ 1.0006e-05 is below the least normal 2**-14, the nearest
    multiple of 2**-24 is 168 * 2**-24 (PRIM.FLOAT.1: one rounding to the result's format)."""
    a, b = np.array([0.001], "float16"), np.array([0.01], "float16")
    assert (a.astype(np.float64) * 2 ** 20, b.astype(np.float64) * 2 ** 17) == (1049.0, 1311.0)
    text = relax_main('a: R.Tensor((1,), "float16"), b: R.Tensor((1,), "float16")', "y = R.multiply(a, b)\nreturn y")
    (rk, rv), (jk, jv) = lists_on_both(text, a, b)
    assert (rk, jk) == ("value", "value")
    assert rv == jv == [168 * 2.0 ** -24]

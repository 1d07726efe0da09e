"""Findings of the eleventh fuzzing run (docs/FUZZING.md, seed 20261216): relax_jax's gathers from an
axis of extent 0 (gather_nd, grad.nll_loss_backward), roi_pool over an image of width or height 0, and
resize with a ``tf_crop_and_resize`` ROI whose source coordinates are not finite."""

from __future__ import annotations

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import relax_main  # noqa: E402
from limits.reproducers import on_both  # noqa: E402


def _main(params: str, ret: str, call: str) -> str:
    """``main(params) -> ret`` binding ``y = call`` and returning it."""
    return relax_main(params, f"y = {call}\nreturn y", ret)


def _same(got, kind=None):
    (ka, va), (kb, vb) = got
    assert ka == kb, got
    if kind is not None:
        assert ka == kind, got
    if ka == "value":
        np.testing.assert_array_equal(va, vb)
    return va


GATHER_ND = _main('x: R.Tensor((0, 4, 5), "float32"), i: R.Tensor(("k", 2), "int64")', 'R.Tensor(("k", 5), "float32")',
                  "R.gather_nd(x, i)")


@pytest.mark.parametrize("i", [np.array([[0, 1], [3, 2]], "int64"), np.array([[0, 0]], "int64")])
def test_gather_nd_from_an_empty_axis(i):
    """The finding: every index into the axis of extent 0 is out of range (op_runtime on both; JAX's
    gather refused the slice with a TypeError)."""
    _same(on_both(GATHER_ND, np.zeros((0, 4, 5), "float32"), i), "op_runtime")


def test_gather_nd_from_an_empty_axis_with_no_index():
    got = _same(on_both(GATHER_ND, np.zeros((0, 4, 5), "float32"), np.zeros((0, 2), "int64")), "value")
    assert got.shape == (0, 5)


@pytest.mark.parametrize("body, ret, ind", [
    ("R.take(x, i, axis=0)", 'R.Tensor((2, 4), "float32")', np.array([0, 1], "int64")),
    ("R.gather_elements(x, i, axis=0)", 'R.Tensor((2, 4), "float32")', np.zeros((2, 4), "int64")),
])
def test_other_gathers_from_an_empty_axis(body, ret, ind):
    params = f'x: R.Tensor((0, 4), "float32"), i: R.Tensor({ind.shape}, "int64")'
    _same(on_both(_main(params, ret, body), np.zeros((0, 4), "float32"), ind), "op_runtime")


NLL = _main('g: R.Tensor((3,), "float32"), p: R.Tensor((3, 0), "float32"), t: R.Tensor((3,), "int64")',
            'R.Tensor((3, 0), "float32")', 'R.grad.nll_loss_backward(g, p, t, reduction="none")')


def test_nll_loss_backward_with_no_class():
    """The finding: a target is outside [0, C) = [0, 0) (op_runtime on both; JAX's gather of the C = 0
    weights failed with a TypeError)."""
    g, p = np.array([-1.0, 0.5, -0.5], "float32"), np.zeros((3, 0), "float32")
    _same(on_both(NLL, g, p, np.array([3, 0, 2], "int64")), "op_runtime")
    got = _same(on_both(NLL, g, p, np.full((3,), -100, "int64")), "value")      # every target ignored
    assert got.shape == (3, 0)


@pytest.mark.parametrize("shape", [(2, 2, 7, 0), (2, 2, 0, 5)])
def test_roi_pool_of_an_empty_image(shape):
    """The finding: every bin of an image of width (or height) 0 is empty, hence 0 (OP.vision.roi_pool.C5);
    relax_jax took a max over a zero-size axis (ValueError)."""
    text = _main(f'x: R.Tensor({shape}, "float32"), rois: R.Tensor((3, 5), "float32")',
                 'R.Tensor((3, 2, 3, 2), "float32")', "R.vision.roi_pool(x, rois, (3, 2), 0.5)")
    rois = np.array([[0, 0, 0, 4, 4], [1, 1.5, 2, 6, 3], [0, 3, 3, 1, 1]], "float32")
    got = _same(on_both(text, np.zeros(shape, "float32"), rois), "value")
    np.testing.assert_array_equal(got, np.zeros((3, 2, 3, 2), "float32"))


RESIZE3D = _main('x: R.Tensor((2, 3, 3, 4, 5), "float32")', 'R.Tensor((2, 3, 3, 4, 3), "float32")',
                 'R.image.resize3d(x, (3, 4, 3), coordinate_transformation_mode="tf_crop_and_resize", '
                 'roi=ROI, extrapolation_value=-7.0METHOD)')
RESIZE2D = _main('x: R.Tensor((2, 3, 4, 5), "float32")', 'R.Tensor((2, 3, 4, 3), "float32")',
                 'R.image.resize2d(x, (4, 3), coordinate_transformation_mode="tf_crop_and_resize", '
                 'roi=ROI, extrapolation_value=-7.0METHOD)')


@pytest.mark.parametrize("method", ["", ', method="nearest_neighbor"', ', method="cubic"'])
@pytest.mark.parametrize("text, roi, shape", [
    (RESIZE3D, "[0.0, 0.1, 0.2, 1.5, -1e300, 1.2]", (2, 3, 3, 4, 5)),     # the finding
    (RESIZE3D, "[0.0, 0.1, 0.2, 1.5, 0.5, 1e39]", (2, 3, 3, 4, 5)),
    (RESIZE2D, "[0.1, 0.2, -1e300, 1.2]", (2, 3, 4, 5)),
    (RESIZE2D, "[-3e38, 0.2, 3e38, 1.2]", (2, 3, 4, 5)),                   # finite ends, an infinite span
])
def test_resize_with_a_source_coordinate_that_is_not_finite(text, roi, shape, method):
    """The reference raised (its ``to_int`` saw the coordinate); relax_jax computed the coordinates
    inside its trace and answered. The check is now decided from the static attributes, for both."""
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    _same(on_both(text.replace("ROI", roi).replace("METHOD", method), x), "op_runtime")


@pytest.mark.parametrize("method", ["", ', method="nearest_neighbor"', ', method="cubic"'])
@pytest.mark.parametrize("text, roi, shape", [
    (RESIZE3D, "[0.0, 0.1, 0.2, 1.5, -2.0, 1.2]", (2, 3, 3, 4, 5)),
    (RESIZE2D, "[0.1, 0.2, -2.5, 1.2]", (2, 3, 4, 5)),
])
def test_resize_with_finite_source_coordinates(text, roi, shape, method):
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    (ka, va), (kb, vb) = on_both(text.replace("ROI", roi).replace("METHOD", method), x)
    assert ka == kb == "value"
    np.testing.assert_allclose(va, vb, rtol=1e-6)      # XLA's contraction of the interpolation (issue 19, 10)

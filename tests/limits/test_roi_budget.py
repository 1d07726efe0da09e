"""RUNTIME.LIMIT.8: roi_align's samples count against the step budget ``max_steps`` on both
evaluators, checked before any sample is taken (an adaptive grid of large finite ROI corners took
seconds at a corner of 1e4 and did not end at 1e6)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import LimitExceededError, RelaxError
from relax_ref.limits import DEFAULT_LIMITS

relax_jax = pytest.importorskip("relax_jax")

TEXT = '''from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 4, 4), "float32"), r: R.Tensor(("n", 5), "float32")):
        y = R.vision.roi_align(x, r, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio={ratio}, layout="NCHW", mode="{mode}")
        return y
'''

X = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)


def _run(which, rois, ratio=-1, mode="avg", limits=None):
    mod = relax_ref.parse(TEXT.format(ratio=ratio, mode=mode))
    if which == "ref":
        return relax_ref.evaluate(mod, "main", X, rois, limits=limits)
    return relax_jax.compile(mod, limits=limits)("main", X, rois)


def _limit_error(which, rois, **kw):
    start = time.perf_counter()
    with pytest.raises(LimitExceededError) as info:
        _run(which, rois, **kw)
    assert time.perf_counter() - start < 30        # before: hours (1e12 samples, one at a time)
    assert info.value.kind == "limit_exceeded" and info.value.limit == "max_steps"
    return info.value


@pytest.mark.parametrize("which", ["ref", "jax"])
@pytest.mark.parametrize("corner", [1e6, 3e38])
def test_an_adaptive_grid_past_max_steps_is_limit_exceeded(which, corner):
    """A corner of 1e6: a grid of 5e5 x 5e5 samples per bin, 1e12 in all, past the default 2**32;
    3e38: the ROI's height overflows float32 (an infinite grid)."""
    rois = np.array([[0, 0, 0, corner, corner]], "float32")
    err = _limit_error(which, rois)
    assert "RUNTIME.LIMIT.8" in str(err) and str(DEFAULT_LIMITS.max_steps) in str(err)
    if which == "ref" and corner == 1e6:
        assert err.value == 4 * 500000 * 500000 and str(err.value) in str(err)


@pytest.mark.parametrize("which", ["ref", "jax"])
@pytest.mark.parametrize("ratio", [-1, 4])
def test_the_samples_of_every_roi_and_bin_count(which, ratio):
    """Two ROIs of 8 x 8 on 2 x 2 bins: grids of 4 x 4 (adaptive, or sample_ratio=4), 2 * 4 * 16 =
    128 samples."""
    rois = np.array([[0, 0, 0, 8, 8], [0, 1, 1, 9, 9]], "float32")
    got = np.asarray(_run(which, rois, ratio=ratio, limits=DEFAULT_LIMITS.with_(max_steps=128)))
    assert got.shape == (2, 1, 2, 2)
    err = _limit_error(which, rois, ratio=ratio, limits=DEFAULT_LIMITS.with_(max_steps=127))
    if which == "ref":
        assert err.value == 128 and "128 samples" in str(err)


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_grids_of_different_shapes_agree_between_the_evaluators(mode):
    """A tall and a wide ROI: relax_jax walks each ROI's grid in the reference's order (its trip
    count is the largest grid, not the largest rows times the largest columns)."""
    rois = np.array([[0, 0, 0, 1, 40], [0, 0, 0, 40, 1], [0, 0.5, 0.5, 3, 2.5]], "float32")
    ref = np.asarray(_run("ref", rois, mode=mode))
    jax = np.asarray(_run("jax", rois, mode=mode))
    np.testing.assert_allclose(jax, ref, rtol=1e-6, atol=1e-6)


def test_a_non_finite_corner_stays_an_op_runtime_error():
    """OP.vision.roi_align.C7 comes first: a NaN corner is not counted as samples."""
    rois = np.array([[0, 0, 0, np.nan, 1e6]], "float32")
    for which in ("ref", "jax"):
        with pytest.raises(RelaxError) as info:
            _run(which, rois)
        assert info.value.kind == "op_runtime"

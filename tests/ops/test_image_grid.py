"""``R.image.affine_grid`` (spec/ops/image.affine_grid.md): inference with symbolic, unknown and
mismatched operands (OP.image.affine_grid.C1-C3), the run-time check (C4), and the legalized kernel
against the conformance cases (C5)."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, StructInfoError
from relax_ref.transform.legalize_ops import LegalizeOps

from ops_helpers import call_sinfo, call_text, dims, legalized_cases_agree


def test_inference():
    t = 't: R.Tensor(("n", 2, 3), "float32")'
    assert dims(call_sinfo(t, "R.image.affine_grid(t, (4, 5))")) == (("n", "2", "4", "5"), "float32", 4)
    assert dims(call_sinfo(t, "R.image.affine_grid(t, 4)")) == (("n", "2", "4", "4"), "float32", 4)
    assert dims(call_sinfo(t + ", s: R.Shape(ndim=2)", "R.image.affine_grid(t, s)")) == (None, "float32", 4)
    u = 'u: R.Tensor(ndim=3, dtype="float16")'
    assert dims(call_sinfo(u, "R.image.affine_grid(u, (2, 3, 4))")) == (None, "float16", 5)


@pytest.mark.parametrize("params,expr", [
    ('t: R.Tensor((1, 2, 3), "float32")', "R.image.affine_grid(t, (2, 3, 4))"),
    ('t: R.Tensor((1, 2, 3, 1), "float32")', "R.image.affine_grid(t, (2, 3))"),
    ('t: R.Tensor((1, 2, 3), "int32")', "R.image.affine_grid(t, (2, 3))"),
    ('t: R.Tensor((1, 2, 3), "float32"), s: R.Shape', "R.image.affine_grid(t, s)"),
    ('t: R.Tensor((1, 2, 3), "float32")', "R.image.affine_grid(t, (2, 3, 4, 5))"),
])
def test_rejected_statically(params, expr):
    with pytest.raises(StructInfoError, match="AffineGrid"):
        relax_ref.parse(call_text(params, expr))


def test_run_time_check_of_unknown_matrix_shape():
    mod = relax_ref.parse(call_text('t: R.Tensor(ndim=3, dtype="float32")', "R.image.affine_grid(t, (2, 3))"))
    with pytest.raises(OpRuntimeError, match="OP.image.affine_grid.C4"):
        relax_ref.evaluate(mod, "main", np.zeros((1, 3, 4), "float32"))
    assert relax_ref.evaluate(mod, "main", np.zeros((2, 2, 3), "float32")).shape == (2, 2, 2, 3)


def test_legalized_cases_agree_and_symbolic_size_stays():
    assert legalized_cases_agree("op_image", tag="op:image.affine_grid") >= 3
    text = call_text('t: R.Tensor((1, 2, 3), "float32"), s: R.Shape(["h", "w"])', "R.image.affine_grid(t, s)")
    assert "R.image.affine_grid" in LegalizeOps()(relax_ref.parse(text)).script()

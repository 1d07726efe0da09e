"""``R.image.affine_grid`` and ``R.image.grid_sample`` (spec/ops/image.affine_grid.md,
spec/ops/image.grid_sample.md): inference with symbolic, unknown and mismatched operands, the run-time
checks, the legalized kernels against the conformance cases, and the JAX executor against the
reference on every combination of grid_sample's attributes."""

import itertools

import numpy as np
import pytest

import relax_jax

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


def test_grid_sample_inference():
    x = 'x: R.Tensor(("n", 3, "h", "w"), "float32"), g: R.Tensor(("n", 2, 5, 6), "float32")'
    assert dims(call_sinfo(x, "R.image.grid_sample(x, g)")) == (("n", "3", "5", "6"), "float32", 4)
    xh = 'x: R.Tensor(("n", "h", "w", 3), "float32"), g: R.Tensor(("n", 2, 5, 6), "float32")'
    assert dims(call_sinfo(xh, 'R.image.grid_sample(x, g, layout="NHWC")')) == (("n", "5", "6", "3"), "float32", 4)
    x3 = 'x: R.Tensor((1, 2, 3, 4, 5), "float32"), g: R.Tensor(ndim=5, dtype="float32")'
    assert dims(call_sinfo(x3, 'R.image.grid_sample(x, g, layout="NCDHW")')) == (None, "float32", 5)


@pytest.mark.parametrize("params,expr", [
    ('x: R.Tensor((1, 2, 3, 4), "float32"), g: R.Tensor((1, 2, 3), "float32")', "R.image.grid_sample(x, g)"),
    ('x: R.Tensor((1, 2, 3, 4), "float32"), g: R.Tensor((1, 2, 3, 3), "float16")', "R.image.grid_sample(x, g)"),
    ('x: R.Tensor((1, 2, 3, 4), "int32"), g: R.Tensor((1, 2, 3, 3), "int32")', "R.image.grid_sample(x, g)"),
    ('x: R.Tensor((1, 2, 3, 4), "float32"), g: R.Tensor((1, 2, 3, 3), "float32")',
     'R.image.grid_sample(x, g, method="cubic")'),
    ('x: R.Tensor((1, 2, 3, 4), "float32"), g: R.Tensor((1, 2, 3, 3), "float32")',
     'R.image.grid_sample(x, g, padding_mode="wrap")'),
    ('x: R.Tensor((1, 2, 3, 4), "float32"), g: R.Tensor((1, 2, 3, 3), "float32")',
     'R.image.grid_sample(x, g, layout="NCDHW")'),
])
def test_grid_sample_rejected_statically(params, expr):
    with pytest.raises(StructInfoError):
        relax_ref.parse(call_text(params, expr))


def test_grid_sample_legalized_cases_agree():
    assert legalized_cases_agree("op_image", tag="op:image.grid_sample") >= 5


@pytest.mark.parametrize("k,method,padding,align", [
    c for c in itertools.product((2, 3), ("nearest", "bilinear", "bicubic"), ("zeros", "border", "reflection"),
                                 (False, True)) if not (c[0] == 3 and c[1] == "bicubic")])
def test_grid_sample_jax_agrees_with_the_reference(k, method, padding, align):
    rng = np.random.default_rng(hash((k, method, padding, align)) % 2 ** 32)
    ds, gs = ((1, 2, 4, 5), (1, 2, 3, 6)) if k == 2 else ((1, 2, 1, 4, 5), (1, 3, 2, 3, 2))
    x = rng.standard_normal(ds).astype("float32")
    g = rng.uniform(-1.6, 1.6, gs).astype("float32")
    layout = "NCHW" if k == 2 else "NCDHW"
    text = call_text(f'x: R.Tensor({ds}, "float32"), g: R.Tensor({gs}, "float32")',
                     f'R.image.grid_sample(x, g, method="{method}", layout="{layout}", padding_mode="{padding}", '
                     f"align_corners={align})")
    mod = relax_ref.parse(text)
    want = relax_ref.evaluate(mod, "main", x, g)
    np.testing.assert_array_equal(np.asarray(relax_jax.compile(mod).as_jax_function("main")(x, g)), want)

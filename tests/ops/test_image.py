"""``R.image.resize2d`` and ``R.image.resize3d``: inference (OP.image.resize2d.C1-C4,
OP.image.resize3d.C1-C4), the reference against independent formulas for the common modes
(OP.image.resize2d.C5, OP.image.resize3d.C5), legalized TIR == reference on static and symbolic
shapes, and inference agreement with the installed TVM (VM agreement is in test_nn_tvm.py)."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, ParseError, StructInfoError
from relax_ref.ir import prim_expr as P
from relax_ref.script.dialect import installed_tvm_dialect
from relax_ref.transform.legalize_ops import LegalizeOps

from ops_helpers import HEADER, call_sinfo, call_text, dims, run_call, same, tvm_module

RNG = np.random.default_rng(3)


X = 'x: R.Tensor(("n", 3, "h", "w"), "float32")'


def test_inference():
    assert dims(call_sinfo(X, "R.image.resize2d(x, (5, 7))")) == (("n", "3", "5", "7"), "float32", 4)
    assert dims(call_sinfo(X, "R.image.resize2d(x, 4)")) == (("n", "3", "4", "4"), "float32", 4)
    assert dims(call_sinfo(X, "R.image.resize2d(x, (4,))")) == (("n", "3", "4", "4"), "float32", 4)
    assert dims(call_sinfo(X, 'R.image.resize2d(x, (5, 7), layout="NHWC", out_dtype="float16")')) == \
        (("n", "5", "7", "w"), "float16", 4)
    assert dims(call_sinfo(X + ', s: R.Shape(ndim=2)', "R.image.resize2d(x, s)")) == (None, "float32", 4)
    assert dims(call_sinfo(X, 'R.image.resize2d(x, R.shape([h * 2, w]))')) == (("n", "3", "h * 2", "w"), "float32", 4)
    call = relax_ref.parse(call_text(X, "R.image.resize2d(x, (5, 7))"))["main"].body.blocks[0].bindings[-1].value
    assert call.attrs["roi"] == tuple(P.FloatImm(0.0, "float32") for _ in range(4))
    assert call.attrs["out_dtype"] == "void"
    for bad, msg in (("R.image.resize2d(x, (5, 7), method='bicubic')", "method"),
                     ("R.image.resize2d(x, (5, 7), layout='NCHWX')", "convertible"),
                     ("R.image.resize2d(x, (5, 7, 2))", "2-dim"),
                     ("R.image.resize2d(x, (5, 7), coordinate_transformation_mode='center')", "coordinate")):
        with pytest.raises(StructInfoError, match=msg):
            relax_ref.parse(call_text(X, bad), check_well_formed=False)
    with pytest.raises(StructInfoError, match="4-dim"):
        relax_ref.parse(call_text('x: R.Tensor((2, 3, 4), "float32")', "R.image.resize2d(x, (5, 7))"),
                        check_well_formed=False)
    with pytest.raises(ParseError):
        relax_ref.parse(call_text(X, "R.image.resize2d(x, (5, 7), roi='all')"), check_well_formed=False)


def bilinear_half_pixel(x, oh, ow):
    """Independent bilinear interpolation (half-pixel centres, clamped borders) in float64."""
    n, c, ih, iw = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        y = max((i + 0.5) * ih / oh - 0.5, -1e9)
        y0 = int(np.floor(y))
        ty = y - y0
        for j in range(ow):
            xx = (j + 0.5) * iw / ow - 0.5
            x0 = int(np.floor(xx))
            tx = xx - x0

            def px(a, b):
                return x[:, :, min(max(a, 0), ih - 1), min(max(b, 0), iw - 1)]

            top = px(y0, x0) * (1 - tx) + px(y0, x0 + 1) * tx
            bot = px(y0 + 1, x0) * (1 - tx) + px(y0 + 1, x0 + 1) * tx
            out[:, :, i, j] = top * (1 - ty) + bot * ty
    return out


def test_reference_against_independent_formulas():
    x = RNG.standard_normal((2, 3, 5, 6)).astype("float32")
    p = 'x: R.Tensor((2, 3, 5, 6), "float32")'
    got = run_call(p, "R.image.resize2d(x, (7, 4))", x)
    np.testing.assert_allclose(got, bilinear_half_pixel(x.astype("float64"), 7, 4), rtol=1e-5, atol=1e-5)
    # nearest, asymmetric, floor: out[i] = x[floor(i * in / out)]
    got = run_call(p, 'R.image.resize2d(x, (10, 12), method="nearest_neighbor", coordinate_transformation_mode='
                      '"asymmetric", rounding_method="floor")', x)
    assert np.array_equal(got, x[:, :, np.arange(10) // 2][:, :, :, np.arange(12) // 2])
    # align_corners bilinear: corners are preserved
    got = run_call(p, 'R.image.resize2d(x, (9, 11), coordinate_transformation_mode="align_corners")', x)
    for a, b in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
        np.testing.assert_allclose(got[:, :, a, b], x[:, :, a, b], rtol=1e-5, atol=1e-6)
    # identity size: every mode returns the input
    for method in ("nearest_neighbor", "linear", "cubic"):
        np.testing.assert_allclose(run_call(p, f'R.image.resize2d(x, (5, 6), method="{method}")', x), x, atol=1e-5)
    # nearest half_pixel with round: half-to-even ties (2x downscale picks even source indices)
    got = run_call(p, 'R.image.resize2d(x, (5, 3), method="nearest_neighbor")', x)
    assert np.array_equal(got, x[:, :, :, [0, 2, 4]])
    # NHWC and out_dtype
    xn = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    got = run_call('x: R.Tensor((2, 5, 6, 3), "float32")',
                   'R.image.resize2d(x, (7, 4), layout="NHWC", out_dtype="float16")', xn)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype("float32"), bilinear_half_pixel(x.astype("float64"), 7, 4).transpose(0, 2, 3, 1),
                               rtol=2e-3, atol=2e-3)
    # integer data: interpolated in float32, converted back by truncation
    xi = np.array([[[[0, 10], [20, 30]]]], "int32")
    got = run_call('x: R.Tensor((1, 1, 2, 2), "int32")', 'R.image.resize2d(x, (3, 3), coordinate_transformation_mode='
                                                           '"align_corners")', xi)
    assert got.dtype == np.int32 and got[0, 0, 1, 1] == 15 and got[0, 0, 0, 1] == 5
    # tf_crop_and_resize outside the image gives the extrapolation value
    got = run_call(p, 'R.image.resize2d(x, (3, 3), coordinate_transformation_mode="tf_crop_and_resize", '
                      'roi=[0.0, 0.0, 2.0, 1.0], extrapolation_value=-7.0)', x)
    assert np.all(got[:, :, 2, :] == -7.0) and np.all(got[:, :, 0, :] != -7.0)
    with pytest.raises(OpRuntimeError):
        run_call(p, 'R.image.resize2d(x, (1, 4), coordinate_transformation_mode="align_corners")', x)


def test_legalized_matches_reference():
    body = '''
a = R.image.resize2d(x, (7, 3), method="nearest_neighbor")
b = R.image.resize2d(x, (7, 3))
c = R.image.resize2d(x, (7, 3), method="cubic", coordinate_transformation_mode="align_corners", cubic_exclude=1)
d = R.image.resize2d(x, (10, 12), method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
e = R.image.resize2d(x, (7, 3), coordinate_transformation_mode="tf_crop_and_resize", roi=[0.1, 0.2, 0.9, 1.2], extrapolation_value=-1.0)
f = R.image.resize2d(x, (9, 4), method="cubic", coordinate_transformation_mode="pytorch_half_pixel")
g = R.image.resize2d(x, (9, 4), method="nearest_neighbor", coordinate_transformation_mode="tf_half_pixel_for_nn", rounding_method="round_prefer_ceil")
h = R.image.resize2d(R.permute_dims(x, [0, 2, 3, 1]), (4, 11), layout="NHWC", out_dtype="float16")
i = R.image.resize2d(x, (3, 2), method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="round_prefer_floor")
return (a, b, c, d, e, f, g, h, i)
'''
    lines = "\n".join("        " + ln for ln in body.strip().split("\n"))
    for shape in ('(1, 3, 5, 6)', '(1, 3, "h", 6)'):
        text = HEADER + f'@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({shape}, "float32")):\n' \
               + lines + "\n"
        mod = relax_ref.parse(text)
        legal = LegalizeOps()(mod)
        assert "R.image.resize2d(" not in legal.script()
        for h in (5, 4) if "h" in shape else (5,):
            x = RNG.standard_normal((1, 3, h, 6)).astype("float32")
            same(relax_ref.evaluate(legal, "main", x), relax_ref.evaluate(mod, "main", x))


@pytest.mark.tvm
def test_inference_matches_tvm():
    pytest.importorskip("tvm")
    for expr in ("R.image.resize2d(x, (5, 7))", 'R.image.resize2d(x, 4, layout="NHWC", out_dtype="float16")',
                 'R.image.resize2d(x, R.shape([h * 2, w]))'):
        text = call_text(X, expr)
        theirs = tvm_module(text)
        ours = relax_ref.parse(text)
        t_line = [ln.strip() for ln in theirs.script().splitlines() if " = R." in ln]
        o_line = [ln.strip() for ln in ours.script(dialect=installed_tvm_dialect()).splitlines() if " = R." in ln]
        assert t_line == o_line


# ---- resize3d (OP.image.resize3d.C1-C5) ------------------------------------------------------------

X3 = 'x: R.Tensor(("n", 2, "d", 4, 5), "float32")'


def test_resize3d_inference():
    assert dims(call_sinfo(X3, "R.image.resize3d(x, (3, 5, 7))")) == (("n", "2", "3", "5", "7"), "float32", 5)
    assert dims(call_sinfo(X3, "R.image.resize3d(x, 4)")) == (("n", "2", "4", "4", "4"), "float32", 5)
    assert dims(call_sinfo(X3, 'R.image.resize3d(x, (3, 5, 7), layout="NDHWC", out_dtype="float16")')) == \
        (("n", "3", "5", "7", "5"), "float16", 5)
    assert dims(call_sinfo(X3 + ', s: R.Shape(ndim=3)', "R.image.resize3d(x, s)")) == (None, "float32", 5)
    call = relax_ref.parse(call_text(X3, "R.image.resize3d(x, (3, 5, 7))"))["main"].body.blocks[0].bindings[-1].value
    assert call.attrs["roi"] == tuple(P.FloatImm(0.0, "float32") for _ in range(6))
    assert call.attrs["rounding_method"] == "" and call.attrs["layout"] == "NCDHW"
    for bad, msg in (("R.image.resize3d(x, (5, 7))", "3-dim"),
                     ("R.image.resize3d(x, (5, 7, 2), layout='NCHW')", "convertible"),
                     ("R.image.resize3d(x, (5, 7, 2), roi=[0.0, 1.0])", "6 values"),
                     ("R.image.resize3d(x, (5, 7, 2), rounding_method='up')", "rounding")):
        with pytest.raises(StructInfoError, match=msg):
            relax_ref.parse(call_text(X3, bad), check_well_formed=False)
    with pytest.raises(StructInfoError, match="5-dim"):
        relax_ref.parse(call_text(X, "R.image.resize3d(x, (5, 7, 2))"), check_well_formed=False)


def trilinear_half_pixel(x, outs):
    """Independent trilinear interpolation (half-pixel centres, clamped borders) in float64, one axis at
    a time."""
    y = np.asarray(x, "float64")
    for axis, out in zip((2, 3, 4), outs):
        n = y.shape[axis]
        src = (np.arange(out) + 0.5) * n / out - 0.5
        lo = np.floor(src).astype(int)
        t = src - lo
        a = np.take(y, np.clip(lo, 0, n - 1), axis=axis)
        b = np.take(y, np.clip(lo + 1, 0, n - 1), axis=axis)
        shape = [1] * y.ndim
        shape[axis] = out
        y = a * (1 - t.reshape(shape)) + b * t.reshape(shape)
    return y


def test_resize3d_reference_against_independent_formula():
    x = RNG.standard_normal((2, 3, 3, 4, 5)).astype("float32")
    p = 'x: R.Tensor((2, 3, 3, 4, 5), "float32")'
    np.testing.assert_allclose(run_call(p, "R.image.resize3d(x, (5, 2, 8))", x), trilinear_half_pixel(x, (5, 2, 8)),
                               rtol=1e-5, atol=1e-5)
    got = run_call(p, 'R.image.resize3d(x, (6, 8, 10), method="nearest_neighbor", '
                      'coordinate_transformation_mode="asymmetric")', x)
    assert np.array_equal(got, x[:, :, np.arange(6) // 2][:, :, :, np.arange(8) // 2][..., np.arange(10) // 2])
    with pytest.raises(OpRuntimeError):
        run_call(p, 'R.image.resize3d(x, (2, 1, 4), coordinate_transformation_mode="align_corners")', x)


def test_resize3d_legalized_matches_reference():
    body = '''
a = R.image.resize3d(x, (4, 3, 7), method="nearest_neighbor")
b = R.image.resize3d(x, (4, 3, 7))
c = R.image.resize3d(x, (4, 3, 7), method="cubic", coordinate_transformation_mode="align_corners", cubic_exclude=1)
d = R.image.resize3d(x, (2, 3, 4), coordinate_transformation_mode="tf_crop_and_resize", roi=[0.1, 0.2, 0.0, 1.5, 0.9, 1.2], extrapolation_value=-1.0)
e = R.image.resize3d(R.permute_dims(x, [0, 2, 3, 4, 1]), (4, 2, 11), layout="NDHWC", out_dtype="float16")
return (a, b, c, d, e)
'''
    lines = "\n".join("        " + ln for ln in body.strip().split("\n"))
    for shape in ('(1, 2, 3, 4, 5)', '(1, 2, "d", 4, 5)'):
        text = HEADER + f'@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({shape}, "float32")):\n' \
               + lines + "\n"
        mod = relax_ref.parse(text)
        legal = LegalizeOps()(mod)
        assert "R.image.resize3d(" not in legal.script()
        for d in (3, 2) if "d" in shape else (3,):
            x = RNG.standard_normal((1, 2, d, 4, 5)).astype("float32")
            same(relax_ref.evaluate(legal, "main", x), relax_ref.evaluate(mod, "main", x))


@pytest.mark.tvm
def test_resize3d_inference_matches_tvm():
    pytest.importorskip("tvm")
    for expr in ("R.image.resize3d(x, (3, 5, 7))", 'R.image.resize3d(x, 4, layout="NDHWC", out_dtype="float16")',
                 'R.image.resize3d(x, R.shape([d * 2, 4, 1]), method="cubic")'):
        text = call_text(X3, expr)
        theirs = tvm_module(text)
        ours = relax_ref.parse(text)
        t_line = [ln.strip() for ln in theirs.script().splitlines() if " = R." in ln]
        o_line = [ln.strip() for ln in ours.script(dialect=installed_tvm_dialect()).splitlines() if " = R." in ln]
        assert t_line == o_line


@pytest.mark.tvm
@pytest.mark.parametrize("desired", [{"relax.nn.conv3d": ["NDHWC", "DHWIO"]}, {"relax.image.resize3d": ["NDHWC"]}])
def test_resize3d_convert_layout_matches_tvm(desired):
    """resize3d follows its data's layout or takes a desired axis swap, as TVM's InferLayoutResize3d."""
    tvm = pytest.importorskip("tvm")
    from relax_ref.transform.convert_layout import ConvertLayout

    text = HEADER + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 5), "float32"), w: R.Tensor((4, 2, 1, 1, 1), "float32")):
        with R.dataflow():
            c = R.nn.conv3d(x, w)
            y = R.image.resize3d(c, (4, 6, 7))
            z = R.image.resize3d(x, (2, 2, 2), method="nearest_neighbor")
            R.output(y, z)
        return (y, z)
'''
    ours = ConvertLayout(desired)(relax_ref.parse(text)).script(dialect=installed_tvm_dialect())
    theirs = tvm.relax.transform.ConvertLayout(desired)(tvm_module(text)).script()
    assert [ln.strip() for ln in ours.splitlines() if " = R." in ln] == \
        [ln.strip() for ln in theirs.splitlines() if " = R." in ln]

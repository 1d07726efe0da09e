"""Struct-info inference of the ``R.nn`` operators (conv, pool, norm, softmax, pad, attention, losses,
misc): static, symbolic, unknown and invalid operands against the constraints OP.nn.<op>.C<n>, the
construction-time attribute completion (OP.NN.ATTR.1) and, with TVM installed, agreement with
TVM 0.25's inferred struct info for the same calls."""

import pytest

import relax_ref
from relax_ref.errors import ParseError, StructInfoError, UnsupportedError
from relax_ref.ir import prim_expr as P

from ops_helpers import (
    call_sinfo, call_text, check_print_roundtrip, check_signatures_match_tvm, check_sinfo_with_tvm, dims,
)


def T(*shape, dtype="float32"):
    return (tuple(str(d) for d in shape), dtype, len(shape))


def rejects(params: str, expr: str, match: str = "", kind=StructInfoError):
    with pytest.raises(kind, match=match):
        relax_ref.parse(call_text(params, expr), check_well_formed=False)


X4 = 'x: R.Tensor((1, 4, 8, 8), "float32")'
XS = 'x: R.Tensor(("n", 4, "h", "w"), "float32")'


# ---------------------------------------------------------------------------------------------------
# conv
# ---------------------------------------------------------------------------------------------------


def test_conv2d_static_and_attribute_completion():
    """OP.nn.conv2d.C1-C6, OP.NN.ATTR.1: one padding value is repeated on every side, two are
    (top/bottom, left/right); a single stride/dilation is repeated; out_layout defaults to the data
    layout and out_dtype to void."""
    p = X4 + ', w: R.Tensor((6, 2, 3, 3), "float32")'
    assert dims(call_sinfo(p, "R.nn.conv2d(x, w, strides=2, padding=1, groups=2)")) == T(1, 6, 4, 4)
    assert dims(call_sinfo(p, "R.nn.conv2d(x, w, padding=(1, 2), groups=2)")) == T(1, 6, 8, 10)
    assert dims(call_sinfo(p, "R.nn.conv2d(x, w, padding=(1, 0, 2, 0), dilation=2, groups=2)")) == T(1, 6, 7, 4)
    mod = relax_ref.parse(call_text(p, "R.nn.conv2d(x, w, strides=2, padding=(1, 2), groups=2)"))
    call = mod["main"].body.blocks[0].bindings[-1].value
    assert call.attrs["padding"] == (1, 2, 1, 2) and call.attrs["strides"] == (2, 2)
    assert call.attrs["dilation"] == (1, 1) and call.attrs["out_layout"] == "NCHW"
    assert call.attrs["out_dtype"] == "void"
    assert dims(call_sinfo(p, 'R.nn.conv2d(x, w, groups=2, out_dtype="float16")')) == T(1, 6, 6, 6, dtype="float16")
    assert dims(call_sinfo(p, 'R.nn.conv2d(x, w, groups=2, out_layout="NHWC")')) == T(1, 6, 6, 6)


def test_conv2d_symbolic_and_layouts():
    """OP.nn.conv2d.C5: ``(in + pad - dil*(k-1) - 1) // stride + 1`` simplified; layouts permute."""
    p = XS + ', k: R.Tensor((6, 4, 3, 3), "float32")'
    assert dims(call_sinfo(p, "R.nn.conv2d(x, k, strides=2)")) == T("n", 6, "(h - 3) // 2 + 1", "(w - 3) // 2 + 1")
    assert dims(call_sinfo(p, "R.nn.conv2d(x, k, padding=1)")) == T("n", 6, "h", "w")
    nhwc = 'x: R.Tensor((1, "h", "w", 4), "float32"), k: R.Tensor((3, 3, 4, 6), "float32")'
    assert dims(call_sinfo(nhwc, 'R.nn.conv2d(x, k, data_layout="NHWC", kernel_layout="HWIO")')) == \
        T(1, "h - 2", "w - 2", 6)
    assert dims(call_sinfo(nhwc, 'R.nn.conv2d(x, k, data_layout="NHWC", kernel_layout="HWIO", out_layout="NCHW")')) == \
        T(1, 6, "h - 2", "w - 2")
    unknown = 'x: R.Tensor("float32", ndim=4), k: R.Tensor((6, 4, 3, 3), "float32")'
    assert dims(call_sinfo(unknown, "R.nn.conv2d(x, k)")) == (None, "float32", 4)
    void = 'x: R.Tensor((1, 4, 5, 5)), k: R.Tensor((6, 4, 3, 3), "float32")'
    assert dims(call_sinfo(void, "R.nn.conv2d(x, k)")) == T(1, 6, 3, 3, dtype="void")


def test_conv_1d_3d_and_transposes():
    """OP.nn.conv1d.C5, OP.nn.conv3d.C5, OP.nn.conv2d_transpose.C5: the transposed size is
    ``(in - 1) * s - pads + dil * (k - 1) + output_padding + 1``."""
    assert dims(call_sinfo('x: R.Tensor((2, 3, "n"), "float32"), w: R.Tensor((5, 3, 3), "float32")',
                           "R.nn.conv1d(x, w, strides=2, padding=1)")) == T(2, 5, "(n - 1) // 2 + 1")
    assert dims(call_sinfo('x: R.Tensor((1, 2, 4, 5, 6), "float32"), w: R.Tensor((3, 2, 3, 3, 3), "float32")',
                           "R.nn.conv3d(x, w, padding=1)")) == T(1, 3, 4, 5, 6)
    p = 'x: R.Tensor((1, 4, "h", 5), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")'
    assert dims(call_sinfo(p, "R.nn.conv2d_transpose(x, w, strides=2, padding=1, output_padding=1)")) == \
        T(1, 3, "h * 2", 10)
    assert dims(call_sinfo(p, "R.nn.conv2d_transpose(x, w, strides=2, groups=2)")) == T(1, 6, "h * 2 + 1", 11)
    assert dims(call_sinfo('x: R.Tensor((1, 4, 5), "float32"), w: R.Tensor((4, 2, 3), "float32")',
                           "R.nn.conv1d_transpose(x, w, strides=3, output_padding=2)")) == T(1, 2, 17)


def test_conv_rejections():
    """OP.nn.conv2d.C1-C4 (struct_info) and the constructor's length checks (parse)."""
    p = X4 + ', w: R.Tensor((6, 3, 3, 3), "float32")'
    rejects(p, "R.nn.conv2d(x, w)", "channel size")
    rejects(X4 + ', w: R.Tensor((5, 2, 3, 3), "float32")', "R.nn.conv2d(x, w, groups=2)", "divisible")
    rejects(X4 + ', w: R.Tensor((6, 4, 3, 3), "int32")', "R.nn.conv2d(x, w)", "same datatype")
    rejects(X4 + ', w: R.Tensor((6, 4, 3), "float32")', "R.nn.conv2d(x, w)", "4-dim")
    rejects(X4 + ', w: R.Tensor((6, 4, 3, 3), "float32")', 'R.nn.conv2d(x, w, data_layout="NCHX")', "convertible")
    rejects(X4 + ', w: R.Tensor((6, 4, 3, 3), "float32")', "R.nn.conv2d(x, w, padding=(1, 2, 3))", "padding",
            ParseError)
    rejects(X4 + ', w: R.Tensor((6, 4, 3, 3), "float32")', "R.nn.conv2d(x, w, groups=0)", "groups", ParseError)
    rejects(X4 + ', w: R.Tensor((4, 3, 3, 3), "float32")',
            "R.nn.conv2d_transpose(x, w, strides=2, output_padding=2)", "output padding")
    rejects(X4 + ', w: R.Tensor((5, 3, 3, 3), "float32")', "R.nn.conv2d_transpose(x, w)", "channel size")
    rejects(X4 + ', w: R.Tensor((6, 4, 3, 3), "float32")', 'R.nn.conv2d(x, w, data_layout="NCHW4c")', "5-dim")
    with pytest.raises(UnsupportedError):
        relax_ref.parse(call_text(X4 + ', w: R.Tensor((6, 4, 3, 3), "float32")',
                                  'R.nn.conv2d(x, w, data_layout="NCH[4c2w]")'), check_well_formed=False)


# ---------------------------------------------------------------------------------------------------
# pools
# ---------------------------------------------------------------------------------------------------


def test_pool_shapes_and_ceil_mode():
    """OP.nn.max_pool2d.C2: floor and ceil modes; a last window starting in the end padding is
    dropped (OP.NN.POOL.C2)."""
    assert dims(call_sinfo(X4, "R.nn.max_pool2d(x, pool_size=3, strides=2, padding=1)")) == T(1, 4, 4, 4)
    assert dims(call_sinfo(X4, "R.nn.max_pool2d(x, pool_size=3, strides=2, padding=1, ceil_mode=True)")) == \
        T(1, 4, 5, 5)
    assert dims(call_sinfo('x: R.Tensor((1, 1, 6, 6), "float32")',
                           "R.nn.max_pool2d(x, pool_size=2, strides=2, padding=1, ceil_mode=True)")) == T(1, 1, 4, 4)
    assert dims(call_sinfo('x: R.Tensor((1, 1, 5, 5), "float32")',
                           "R.nn.avg_pool2d(x, pool_size=2, strides=2, padding=1, ceil_mode=True)")) == T(1, 1, 3, 3)
    assert dims(call_sinfo(XS, "R.nn.max_pool2d(x, pool_size=3, strides=2, padding=1, ceil_mode=True)")) == \
        T("n", 4, "h // 2 + 1", "w // 2 + 1")
    assert dims(call_sinfo(XS, "R.nn.avg_pool2d(x, pool_size=3, strides=1, ceil_mode=True)")) == \
        T("n", 4, "h - 2", "w - 2")
    assert dims(call_sinfo(XS, "R.nn.avg_pool2d(x, (2, 3), (1, 2), (0, 1, 1, 2), (2, 1))")) == \
        T("n", 4, "h - 1", "w // 2 + 1")
    assert dims(call_sinfo(XS, "R.nn.max_pool2d(x, 2, 2)")) == T("n", 4, "h // 2", "w // 2")
    assert dims(call_sinfo('x: R.Tensor((2, "w", 3), "float32")', 'R.nn.max_pool1d(x, 2, 2, layout="NWC")')) == \
        T(2, "w // 2", 3)
    assert dims(call_sinfo('x: R.Tensor((1, 2, 4, 6, 6), "int8")', "R.nn.avg_pool3d(x, 2, 2)")) == \
        T(1, 2, 2, 3, 3, dtype="int8")
    assert dims(call_sinfo('x: R.Tensor("float32", ndim=4)', "R.nn.max_pool2d(x, 2)")) == (None, "float32", 4)
    call = relax_ref.parse(call_text(X4, "R.nn.avg_pool1d(R.reshape(x, (4, 8, 8)), 2)"))["main"].body.blocks[0] \
        .bindings[-1].value
    assert call.attrs["count_include_pad"] is True and call.attrs["padding"] == (0, 0)


def test_pool_rejections():
    """OP.nn.max_pool2d.C1/C3."""
    rejects('x: R.Tensor((1, 4, 8), "float32")', "R.nn.max_pool2d(x, 2)", "4-dim")
    rejects(X4, 'R.nn.max_pool2d(x, 2, layout="NCHWX")', "convertible")
    rejects(X4, "R.nn.max_pool2d(x, (2, 2, 2))", "pool_size", ParseError)
    rejects('x: R.Tensor((1, 4, 8), "float32")', "R.nn.max_pool1d(x, (2, 2))", "pool_size", ParseError)


def test_adaptive_pool():
    """OP.nn.adaptive_avg_pool2d.C2: output_size replaces the spatial dims; None keeps them."""
    assert dims(call_sinfo(XS, "R.nn.adaptive_avg_pool2d(x, (3, 2))")) == T("n", 4, 3, 2)
    assert dims(call_sinfo(XS, "R.nn.adaptive_avg_pool2d(x, 3)")) == T("n", 4, 3, 3)
    assert dims(call_sinfo(XS, "R.nn.adaptive_avg_pool2d(x)")) == T("n", 4, "h", "w")
    assert dims(call_sinfo(XS, 'R.nn.adaptive_avg_pool2d(x, (3, 2), layout="NHWC")')) == T("n", 3, 2, "w")
    assert dims(call_sinfo('x: R.Tensor((1, 3, "w"), "float32")', "R.nn.adaptive_avg_pool1d(x, 5)")) == T(1, 3, 5)
    rejects(XS, "R.nn.adaptive_avg_pool2d(x, (1, 2, 3))", "output_size", ParseError)


# ---------------------------------------------------------------------------------------------------
# softmax, norms
# ---------------------------------------------------------------------------------------------------


def test_softmax_family():
    """OP.nn.softmax.C1-C2: float or bfloat16 input; the axis in range; same struct info."""
    for op in ("softmax", "log_softmax"):
        assert dims(call_sinfo(XS, f"R.nn.{op}(x, axis=1)")) == T("n", 4, "h", "w")
        assert dims(call_sinfo('x: R.Tensor((2, 3), "bfloat16")', f"R.nn.{op}(x)")) == T(2, 3, dtype="bfloat16")
        assert dims(call_sinfo('x: R.Tensor("int32", ndim=-1)', f"R.nn.{op}(x)")) == (None, "int32", -1)
        rejects('x: R.Tensor((2, 3), "int32")', f"R.nn.{op}(x)", "float dtype")
        rejects('x: R.Tensor((2, 3), "float32")', f"R.nn.{op}(x, axis=2)", "out of range")


def test_layer_and_rms_norm():
    """OP.nn.layer_norm.C1-C3 / OP.nn.rms_norm.C1-C3: parameter ranks equal the number of axes and
    their dims must not be provably different; unprovable dims give an unknown shape."""
    p = XS + ', g: R.Tensor(("w",), "float32"), g2: R.Tensor(("m",), "float32")'
    assert dims(call_sinfo(p, "R.nn.layer_norm(x, g, g, axes=[-1])")) == T("n", 4, "h", "w")
    assert dims(call_sinfo(p, "R.nn.layer_norm(x, g2, g2, axes=-1)")) == (None, "float32", 4)
    assert dims(call_sinfo(p, "R.nn.rms_norm(x, g)")) == T("n", 4, "h", "w")
    assert dims(call_sinfo(p, "R.nn.rms_norm(x, g2)")) == (None, "float32", 4)
    rejects(X4 + ', g: R.Tensor((7,), "float32")', "R.nn.layer_norm(x, g, g, axes=[-1])", "unequal")
    rejects(X4 + ', g: R.Tensor((8, 8), "float32")', "R.nn.layer_norm(x, g, g, axes=[-1])", "dimensions")
    rejects(X4 + ', g: R.Tensor((8,), "float16")', "R.nn.layer_norm(x, g, g, axes=[-1])", "same dtype")
    rejects('x: R.Tensor((2, 3), "int32"), g: R.Tensor((3,), "int32")', "R.nn.rms_norm(x, g)", "float dtype")
    rejects(X4 + ', g: R.Tensor((8,), "float32")', "R.nn.layer_norm(x, g, g, axes=[4])", "out of range")


def test_batch_norm():
    """OP.nn.batch_norm.C1-C3: a 3-tuple ``(data, moving_mean, moving_var)``."""
    p = XS + ', g: R.Tensor((4,), "float32")'
    assert dims(call_sinfo(p, "R.nn.batch_norm(x, g, g, g, g, axis=1)")) == \
        (T("n", 4, "h", "w"), T(4), T(4))
    p2 = XS + ', g: R.Tensor(("c",), "float32")'
    assert dims(call_sinfo(p2, "R.nn.batch_norm(x, g, g, g, g, axis=1)")) == \
        ((None, "float32", 4), (None, "float32", 1), (None, "float32", 1))
    rejects(X4 + ', g: R.Tensor((5,), "float32")', "R.nn.batch_norm(x, g, g, g, g, axis=1)", "unequal")


def test_group_and_instance_norm():
    """OP.nn.group_norm.C1-C4, OP.nn.instance_norm.C1-C3."""
    p = XS + ', g: R.Tensor((4,), "float32")'
    assert dims(call_sinfo(p, "R.nn.group_norm(x, g, g, num_groups=2, channel_axis=1, axes=[2, 3])")) == \
        T("n", 4, "h", "w")
    assert dims(call_sinfo(p, "R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3])")) == T("n", 4, "h", "w")
    rejects(p, "R.nn.group_norm(x, g, g, num_groups=3, channel_axis=1, axes=[2, 3])", "divisible")
    rejects(p, "R.nn.group_norm(x, g, g, num_groups=2, channel_axis=1, axes=[1, 2])", "channel_axis")
    rejects(X4 + ', g: R.Tensor((5,), "float32")', "R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3])",
            "size of input")
    rejects('x: R.Tensor((1, 4, 8, 8), "bfloat16"), g: R.Tensor((4,), "bfloat16")',
            "R.nn.group_norm(x, g, g, num_groups=2, channel_axis=1, axes=[2, 3])", "must be float")
    rejects(X4 + ', g: R.Tensor((2, 2), "float32")', "R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3])",
            "ndim=1")


# ---------------------------------------------------------------------------------------------------
# misc
# ---------------------------------------------------------------------------------------------------


def test_pad_prelu_flatten_shuffle_dropout():
    """OP.nn.pad.C1-C3, OP.nn.prelu.C1-C2, OP.nn.batch_flatten.C1-C2, OP.nn.pixel_shuffle.C1-C3,
    OP.nn.dropout.C1."""
    assert dims(call_sinfo(XS, "R.nn.pad(x, [0, 0, 1, 1, 2, 0, 3, 3])")) == T("n", 6, "h + 2", "w + 6")
    assert dims(call_sinfo('x: R.Tensor("float32", ndim=2)', "R.nn.pad(x, [1, 1, 0, 0])")) == (None, "float32", 2)
    rejects(XS, "R.nn.pad(x, [1, 1])", "pad_width")
    rejects(XS, 'R.nn.pad(x, [0, 0, 0, 0, 0, 0, 1, 1], pad_mode="edge")', "pad_mode")
    assert dims(call_sinfo(XS + ', a: R.Tensor((4,), "float32")', "R.nn.prelu(x, a)")) == T("n", 4, "h", "w")
    rejects('x: R.Tensor((2, 3), "int32"), a: R.Tensor((3,), "int32")', "R.nn.prelu(x, a)", "float")
    rejects(XS + ', a: R.Tensor((4,), "float32")', "R.nn.prelu(x, a, axis=4)", "out of range")
    assert dims(call_sinfo(XS, "R.nn.batch_flatten(x)")) == T("n", "4 * h * w")
    assert dims(call_sinfo('x: R.Tensor((2, 3), "float32")', "R.nn.batch_flatten(x)")) == T(2, 3)
    rejects('x: R.Tensor((3,), "float32")', "R.nn.batch_flatten(x)", "at least 2")
    assert dims(call_sinfo('x: R.Tensor((1, 8, "h", 3), "float32")', "R.nn.pixel_shuffle(x, 2)")) == \
        T(1, 2, "h * 2", 6)
    rejects('x: R.Tensor((1, 6, 2, 2), "float32")', "R.nn.pixel_shuffle(x, 2)", "divisible")
    rejects('x: R.Tensor((6, 2), "float32")', "R.nn.pixel_shuffle(x, 2)", "at least 3D")
    assert dims(call_sinfo(XS, "R.nn.dropout(x, 0.1)")) == (T("n", 4, "h", "w"), T("n", 4, "h", "w"))


def test_attention():
    """OP.nn.attention.C1-C4: (B, S, N, H), (B, Skv, N, H), (B, Skv, N, Hv) -> (B, S, N, Hv); with a
    bias argument the op is attention_bias."""
    p = ('q: R.Tensor(("b", "s", 4, 8), "float32"), k: R.Tensor(("b", "t", 2, 8), "float32"), '
         'v: R.Tensor(("b", "t", 2, 6), "float32"), bias: R.Tensor((1, 4, "s", "t"), "float32")')
    assert dims(call_sinfo(p, "R.nn.attention(q, k, v)")) == T("b", "s", 4, 6)
    mod = relax_ref.parse(call_text(p, 'R.nn.attention(q, k, v, bias, causal_mask="TopLeft", scale=0.5)'))
    call = mod["main"].body.blocks[0].bindings[-1].value
    assert call.op.name == "relax.nn.attention_bias" and call.attrs["scale"] == P.FloatImm(0.5, "float32")
    rejects(p, 'R.nn.attention(q, k, v, causal_mask="Diagonal")', "causal_mask")
    rejects(p.replace('2, 8), "float32"), v', '3, 8), "float32"), v'), "R.nn.attention(q, k, v)", "multiple")
    rejects(p, "R.nn.attention(q, v, v)", "dimension of heads")
    rejects('q: R.Tensor((2, 3, 2, 8), "float32"), k: R.Tensor((2, 5, 2, 8), "float32"), '
            'v: R.Tensor((2, 6, 2, 6), "float32")', "R.nn.attention(q, k, v)", "sequence length")
    rejects('q: R.Tensor((2, 3, 8), "float32")', "R.nn.attention(q, q, q)", "4 dimension")
    rejects(p.replace("(1, 4,", "(1, 3,"), "R.nn.attention(q, k, v, bias)", "broadcastable")


def test_losses():
    """OP.nn.cross_entropy_with_logits.C1-C3, OP.nn.nll_loss.C1-C6."""
    p = 'x: R.Tensor(("n", 5), "float32"), y: R.Tensor(("n", 5), "float32")'
    assert dims(call_sinfo(p, "R.nn.cross_entropy_with_logits(x, y)")) == ((), "float32", 0)
    rejects('x: R.Tensor((2, 5), "float32"), y: R.Tensor((3, 5), "float32")',
            "R.nn.cross_entropy_with_logits(x, y)", "same shape")
    rejects('x: R.Tensor((2, 5), "float32"), y: R.Tensor((5,), "float32")',
            "R.nn.cross_entropy_with_logits(x, y)", "same ndim")
    q = 'p: R.Tensor(("n", 5, "d"), "float32"), t: R.Tensor(("n", "d"), "int64"), w: R.Tensor((5,), "float32")'
    assert dims(call_sinfo(q, "R.nn.nll_loss(p, t)")) == ((), "float32", 0)
    assert dims(call_sinfo(q, 'R.nn.nll_loss(p, t, w, reduction="none")')) == T("n", "d")
    assert dims(call_sinfo('p: R.Tensor((5,), "float32"), t: R.Tensor((), "int32")',
                           'R.nn.nll_loss(p, t, reduction="none")')) == ((), "float32", 0)
    rejects(q.replace('"int64"', '"float32"'), "R.nn.nll_loss(p, t)", "int/uint")
    rejects(q.replace("(5,)", "(6,)"), "R.nn.nll_loss(p, t, w)", "classes")
    rejects(q, 'R.nn.nll_loss(p, t, reduction="avg")', "reduction")
    rejects('p: R.Tensor((3, 5), "float32"), t: R.Tensor((4,), "int64")', "R.nn.nll_loss(p, t)", "minibatch")
    rejects('p: R.Tensor((3, 5, 2), "float32"), t: R.Tensor((3,), "int64")', "R.nn.nll_loss(p, t)", "K ")


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM 0.25
# ---------------------------------------------------------------------------------------------------

TVM_CASES = [
    (X4 + ', w: R.Tensor((6, 2, 3, 3), "float32")', "R.nn.conv2d(x, w, strides=2, padding=1, groups=2)"),
    (XS + ', k: R.Tensor((6, 4, 3, 3), "float32")', "R.nn.conv2d(x, k, strides=2)"),
    (XS + ', k: R.Tensor((6, 4, 3, 3), "float32")', "R.nn.conv2d(x, k, strides=(2, 1), padding=(1, 0, 2, 1), dilation=2)"),
    (XS + ', k: R.Tensor((6, 4, 3, 3), "float32")', 'R.nn.conv2d(x, k, out_layout="NHWC", out_dtype="float16")'),
    (X4 + ', w: R.Tensor((6, 3, 3, 3), "float32")', "R.nn.conv2d(x, w)"),
    ('x: R.Tensor((1, 4, "h", 5), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")',
     "R.nn.conv2d_transpose(x, w, strides=2, padding=1, output_padding=1)"),
    ('x: R.Tensor((2, 3, "n"), "float32"), w: R.Tensor((5, 3, 3), "float32")', "R.nn.conv1d(x, w, strides=2, padding=1)"),
    ('x: R.Tensor((1, 2, 4, 5, "n"), "float32"), w: R.Tensor((3, 2, 3, 3, 3), "float32")', "R.nn.conv3d(x, w, padding=1)"),
    ('x: R.Tensor((1, 4, 5), "float32"), w: R.Tensor((4, 2, 3), "float32")',
     "R.nn.conv1d_transpose(x, w, strides=3, output_padding=2)"),
    (XS, "R.nn.max_pool2d(x, pool_size=3, strides=2, padding=1, ceil_mode=True)"),
    (XS, "R.nn.avg_pool2d(x, (2, 3), (1, 2), (0, 1, 1, 2), (2, 1))"),
    (XS, "R.nn.avg_pool2d(x, pool_size=3, strides=1, ceil_mode=True)"),
    ('x: R.Tensor((1, 1, 6, 6), "float32")', "R.nn.max_pool2d(x, pool_size=2, strides=2, padding=1, ceil_mode=True)"),
    ('x: R.Tensor((2, "w", 3), "float32")', 'R.nn.max_pool1d(x, 2, 2, layout="NWC")'),
    (XS, 'R.nn.adaptive_avg_pool2d(x, (3, 2), layout="NHWC")'),
    (XS, "R.nn.adaptive_avg_pool2d(x)"),
    (XS, "R.nn.softmax(x, axis=1)"),
    ('x: R.Tensor((2, 3), "int32")', "R.nn.log_softmax(x)"),
    (XS + ', g: R.Tensor(("w",), "float32")', "R.nn.layer_norm(x, g, g, axes=[-1])"),
    (XS + ', g: R.Tensor(("m",), "float32")', "R.nn.layer_norm(x, g, g, axes=[-1])"),
    (X4 + ', g: R.Tensor((7,), "float32")', "R.nn.layer_norm(x, g, g, axes=[-1])"),
    (XS + ', g: R.Tensor(("w",), "float32")', "R.nn.rms_norm(x, g)"),
    (XS + ', g: R.Tensor((4,), "float32")', "R.nn.batch_norm(x, g, g, g, g, axis=1)"),
    (XS + ', g: R.Tensor((4,), "float32")', "R.nn.group_norm(x, g, g, num_groups=2, channel_axis=1, axes=[2, 3])"),
    (XS + ', g: R.Tensor((4,), "float32")', "R.nn.group_norm(x, g, g, num_groups=3, channel_axis=1, axes=[2, 3])"),
    (XS + ', g: R.Tensor((4,), "float32")', "R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3])"),
    (XS, "R.nn.pad(x, [0, 0, 1, 1, 2, 0, 3, 3])"),
    (XS + ', a: R.Tensor((4,), "float32")', "R.nn.prelu(x, a)"),
    (XS, "R.nn.batch_flatten(x)"),
    ('x: R.Tensor((1, 8, "h", 3), "float32")', "R.nn.pixel_shuffle(x, 2)"),
    (XS, "R.nn.dropout(x, 0.1)"),
    ('q: R.Tensor(("b", "s", 4, 8), "float32"), k: R.Tensor(("b", "t", 2, 8), "float32"), '
     'v: R.Tensor(("b", "t", 2, 6), "float32")', "R.nn.attention(q, k, v)"),
    ('q: R.Tensor((2, 3, 4, 8), "float32"), k: R.Tensor((2, 5, 4, 8), "float32"), '
     'b: R.Tensor((1, 4, 3, 5), "float32")', "R.nn.attention(q, k, k, b)"),
    ('x: R.Tensor(("n", 5), "float32"), y: R.Tensor(("n", 5), "float32")', "R.nn.cross_entropy_with_logits(x, y)"),
    ('p: R.Tensor(("n", 5, "d"), "float32"), t: R.Tensor(("n", "d"), "int64"), w: R.Tensor((5,), "float32")',
     'R.nn.nll_loss(p, t, w, reduction="none")'),
    ('p: R.Tensor((3, 5), "float32"), t: R.Tensor((4,), "int64")', "R.nn.nll_loss(p, t)"),
]


@pytest.mark.tvm
@pytest.mark.parametrize("params,expr", TVM_CASES)
def test_inference_matches_tvm(params, expr):
    check_sinfo_with_tvm(call_text(params, expr), rejects=(StructInfoError, ParseError))


# ---------------------------------------------------------------------------------------------------
# Registry entries: TVM's signatures; print -> parse round trips
# ---------------------------------------------------------------------------------------------------

NN_OPS = [f"nn.conv{k}d{t}" for k in (1, 2, 3) for t in ("", "_transpose")] + \
    [f"nn.{kind}_pool{k}d" for k in (1, 2, 3) for kind in ("max", "avg", "adaptive_avg")] + \
    ["nn.softmax", "nn.log_softmax", "nn.layer_norm", "nn.rms_norm", "nn.group_norm", "nn.instance_norm",
     "nn.batch_norm", "nn.pad", "nn.prelu", "nn.batch_flatten", "nn.pixel_shuffle", "nn.dropout", "nn.attention",
     "nn.attention_bias", "nn.cross_entropy_with_logits", "nn.nll_loss", "image.resize2d"]


def _norm_default(v):
    if isinstance(v, (list, tuple)):
        return tuple(_norm_default(x) for x in v)
    return v


def _defaults_agree(ours, theirs):
    """An integer default equals a one-element list (the constructor repeats it)."""
    ours, theirs = _norm_default(ours), _norm_default(theirs)
    if isinstance(theirs, int) and not isinstance(theirs, bool) and isinstance(ours, tuple):
        theirs = (theirs,)
    return theirs == ours


@pytest.mark.tvm
@pytest.mark.parametrize("name", NN_OPS)
def test_signature_matches_tvm(name):
    """Parameter names, order and attribute defaults equal TVM's Python API (an integer default equals a
    one-element list, the constructor repeats it)."""
    check_signatures_match_tvm((name,), defaults_agree=_defaults_agree)


def test_calls_print_and_reparse():
    """Every operator survives print -> parse in both spellings (OP.NN.ATTR.1-2)."""
    body = [
        "R.nn.conv2d(x, w, strides=2, padding=(1, 0), groups=2)", "R.nn.conv2d_transpose(x, wt, strides=2)",
        "R.nn.max_pool2d(x, 3, 2, 1, ceil_mode=True)", "R.nn.avg_pool2d(x, (2, 1), layout=\"NHWC\")",
        "R.nn.adaptive_avg_pool2d(x, 2)", "R.nn.adaptive_avg_pool2d(x)", "R.nn.softmax(x, axis=1)",
        "R.nn.layer_norm(x, g, g, axes=-1, epsilon=0.001)", "R.nn.batch_norm(x, c, c, c, c, axis=1, momentum=0.3)",
        "R.nn.pad(x, [0, 0, 0, 0, 1, 1, 2, 2], pad_mode=\"circular\")", "R.nn.dropout(x, 0.25)",
        "R.nn.attention(q, q, q, causal_mask=\"TopLeft\", scale=0.5)", "R.nn.attention(q, q, q, b)",
        "R.image.resize2d(x, (4, 5), roi=[0.1, 0.2, 0.3, 0.4], method=\"cubic\")",
    ]
    check_print_roundtrip('x: R.Tensor((1, 4, 8, 8), "float32"), w: R.Tensor((6, 2, 3, 3), "float32"), '
                          'wt: R.Tensor((4, 2, 3, 3), "float32"), g: R.Tensor((8,), "float32"), '
                          'c: R.Tensor((4,), "float32"), q: R.Tensor((1, 3, 2, 4), "float32"), '
                          'b: R.Tensor((1, 2, 3, 3), "float32")', body)

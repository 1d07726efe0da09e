"""Packed data layouts (``NCHW4c``, ``OIHW4i4o``, ...) of the layout-aware operators (spec rules
OP.NN.LAYOUT.1-4): layout parsing and conversion, struct-info inference (shapes recorded from
TVM 0.25 and re-checked against the installed TVM), reference semantics against independent numpy
formulas, and which calls legalize."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, RelaxError, StructInfoError, UnsupportedError
from relax_ref.ops.layouts import LayoutError, UnsupportedLayout, convert, parse_layout
from relax_ref.transform import LegalizeOps

from ops_helpers import HEADER
from ops_helpers import call_text as module

RNG = np.random.default_rng(14)


def shape_of(params: str, expr: str):
    mod = relax_ref.parse(module(params, expr))
    s = mod["main"].body.blocks[0].bindings[-1].var.struct_info
    return None if s.shape_values is None else tuple(str(v) for v in s.shape_values)


# ---------------------------------------------------------------------------------------------------
# Layout strings and conversions
# ---------------------------------------------------------------------------------------------------


def test_layout_parsing():
    lay = parse_layout("OIHW4i4o")
    assert lay.ndim == 6 and lay.primals == ("O", "I", "H", "W")
    assert lay.factor("I") == 4 and lay.factor("H") is None and lay.index_of("o") == 5
    assert parse_layout("4cNCHW").axes[0] == ("c", 4)
    assert parse_layout("NCHW16c").factor("C") == 16
    for bad, why in (("NHW4c", "no primal axis C"), ("NCHW2c4c", "more than once"), ("NCHWC", "more than once"),
                     ("NCHW0c", "positive factor"), ("NCHWc", "positive factor"), ("NC4HW", "before the primal"),
                     ("NCHW4", "trailing"), ("NC-HW", "unexpected"), ("", "non-empty")):
        with pytest.raises(LayoutError, match=why):
            parse_layout(bad)
    with pytest.raises(UnsupportedLayout):
        parse_layout("NCHW[4c2w]")
    with pytest.raises(LayoutError, match="not convertible"):
        convert("NCHW4c", "NCDHW")


def test_shape_conversion_rounds_packed_axes_up():
    conv = convert("NCHW4c", "NCHW")
    assert conv.forward_shape([1, 2, 5, 5, 4], lambda v, f: v * f) == [1, 8, 5, 5]
    assert conv.backward_shape([1, 6, 3, 3], lambda v, f: -(-v // f)) == [1, 2, 3, 3, 4]
    k = convert("OIHW4i4o", "OIHW")
    assert k.forward_shape([2, 3, 3, 3, 4, 4], lambda v, f: v * f) == [8, 12, 3, 3]


@pytest.mark.parametrize("layout,canonical,shape", [
    ("NCHW4c", "NCHW", (2, 3, 2, 5, 4)), ("NHWC8c", "NCHW", (1, 2, 3, 2, 8)), ("4cNCHW", "NCHW", (4, 1, 2, 3, 2)),
    ("OIHW4i4o", "OIHW", (2, 3, 1, 2, 4, 4)), ("NCH2hW", "NCHW", (1, 2, 3, 2, 4)), ("NHWC", "NCHW", (1, 2, 3, 4)),
])
def test_array_conversion_follows_the_index_formula(layout, canonical, shape):
    """canonical[..., X, ...] = packed[..., X // f, ..., X % f, ...] for each packed primal axis X."""
    conv = convert(layout, canonical)
    lay = parse_layout(layout)
    x = RNG.standard_normal(shape).astype("float32")
    got = conv.to_canonical(x)
    dims = [shape[lay.index_of(a)] * (lay.factor(a) or 1) for a in canonical]
    assert got.shape == tuple(dims)
    for idx in np.ndindex(*dims):
        src = [0] * len(shape)
        for a, v in zip(canonical, idx):
            f = lay.factor(a)
            src[lay.index_of(a)] = v if f is None else v // f
            if f is not None:
                src[lay.index_of(a.lower())] = v % f
        assert got[idx] == x[tuple(src)]
    np.testing.assert_array_equal(conv.from_canonical(got), x)


def test_packing_pads_missing_lanes_with_zero():
    conv = convert("NCHW4c", "NCHW")
    y = np.arange(1 * 6 * 2 * 2, dtype="float32").reshape(1, 6, 2, 2) + 1
    p = conv.from_canonical(y)
    assert p.shape == (1, 2, 2, 2, 4)
    assert np.all(p[:, 1, :, :, 2:] == 0)
    np.testing.assert_array_equal(p[0, 1, :, :, 1], y[0, 5])


# ---------------------------------------------------------------------------------------------------
# Inference (the shapes TVM 0.25 infers for the same calls)
# ---------------------------------------------------------------------------------------------------

X4C = 'x: R.Tensor((1, 2, 8, 8, 4), "float32")'
INFER = [
    (X4C + ', w: R.Tensor((16, 8, 3, 3), "float32")', 'R.nn.conv2d(x, w, data_layout="NCHW4c")', (1, 4, 6, 6, 4)),
    (X4C + ', w: R.Tensor((16, 8, 3, 3), "float32")', 'R.nn.conv2d(x, w, data_layout="NCHW4c", out_layout="NCHW")',
     (1, 16, 6, 6)),
    (X4C + ', w: R.Tensor((4, 2, 3, 3, 4, 4), "float32")',
     'R.nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="OIHW4i4o")', (1, 4, 6, 6, 4)),
    ('x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((6, 3, 3, 3), "float32")',
     'R.nn.conv2d(x, w, out_layout="NCHW4c")', (1, 2, 6, 6, 4)),
    ('x: R.Tensor((1, 8, 8, 2, 4), "float32"), w: R.Tensor((16, 8, 3, 3), "float32")',
     'R.nn.conv2d(x, w, data_layout="NHWC4c")', (1, 6, 6, 4, 4)),
    ('x: R.Tensor((1, 2, 8, 4), "float32"), w: R.Tensor((16, 8, 3), "float32")',
     'R.nn.conv1d(x, w, data_layout="NCW4c")', (1, 4, 6, 4)),
    ('x: R.Tensor((1, 2, 4, 4, 4, 4), "float32"), w: R.Tensor((8, 8, 3, 3, 3), "float32")',
     'R.nn.conv3d(x, w, data_layout="NCDHW4c")', (1, 2, 2, 2, 2, 4)),
    ('x: R.Tensor((1, 2, 4, 4, 4), "float32"), w: R.Tensor((8, 6, 3, 3), "float32")',
     'R.nn.conv2d_transpose(x, w, data_layout="NCHW4c")', (1, 2, 6, 6, 4)),
    ('x: R.Tensor((1, 8, 4, 4), "float32"), w: R.Tensor((8, 2, 3, 3, 4), "float32")',
     'R.nn.conv2d_transpose(x, w, kernel_layout="IOHW4o")', (1, 8, 6, 6)),
    (X4C, 'R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c")', (1, 2, 4, 4, 4)),
    ('x: R.Tensor((1, 3, 8, 8, 4), "float32")',
     'R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c", out_layout="NCHW8c")', (1, 2, 4, 4, 8)),
    ('x: R.Tensor((1, 1, 8, 8, 16), "float32")', 'R.nn.avg_pool2d(x, pool_size=(3, 3), padding=(1, 1), '
     'layout="NCHW16c")', (1, 1, 8, 8, 16)),
    ('x: R.Tensor((1, 2, 8, 4), "float32")', 'R.nn.avg_pool1d(x, pool_size=(3,), layout="NCW4c")', (1, 2, 6, 4)),
    ('x: R.Tensor((1, 2, 4, 4, 4, 4), "float32")',
     'R.nn.max_pool3d(x, pool_size=(2, 2, 2), strides=(2, 2, 2), layout="NCDHW4c")', (1, 2, 2, 2, 2, 4)),
    (X4C, 'R.nn.adaptive_avg_pool2d(x, output_size=(3, 3), layout="NCHW4c")', (1, 2, 3, 3, 4)),
    (X4C, 'R.nn.adaptive_avg_pool2d(x, layout="NCHW4c")', (1, 2, 8, 8, 4)),
    ('x: R.Tensor((1, 2, 8, 4), "float32")', 'R.nn.adaptive_avg_pool1d(x, output_size=(3,), layout="NCW4c")',
     (1, 2, 3, 4)),
    ('x: R.Tensor((1, 2, 4, 4, 4), "float32")', 'R.image.resize2d(x, R.shape([8, 8]), layout="NCHW4c")',
     (1, 2, 8, 8, 4)),
    ('x: R.Tensor(("n", 2, "h", 8, 4), "float32")',
     'R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c")', ("n", 2, "h // 2", 4, 4)),
    ('x: R.Tensor((4, 1, 2, 8, 8), "float32")', 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="4cNCHW")',
     (4, 1, 2, 7, 7)),
    ('x: R.Tensor((1, 2, 2, 4, 8), "float32")', 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCH4hW")',
     (1, 2, 2, 4, 7)),
]


@pytest.mark.parametrize("params,expr,want", INFER, ids=[e.split("(")[0] + str(i) for i, (_, e, _) in enumerate(INFER)])
def test_packed_inference(params, expr, want):
    assert shape_of(params, expr) == tuple(str(d) for d in want)


REJECT = [
    (X4C + ', w: R.Tensor((16, 4, 3, 3), "float32")', 'R.nn.conv2d(x, w, data_layout="NCHW4c")', "channel size"),
    ('x: R.Tensor((1, 8, 8, 4), "float32"), w: R.Tensor((16, 4, 3, 3), "float32")',
     'R.nn.conv2d(x, w, data_layout="NHW4c")', "no primal axis C"),
    ('x: R.Tensor((1, 2, 8, 8), "float32"), w: R.Tensor((16, 8, 3, 3), "float32")',
     'R.nn.conv2d(x, w, data_layout="NCHW4c")', "5-dim"),
    ('x: R.Tensor((1, 2, 8, 8, 3), "float32"), w: R.Tensor((16, 8, 3, 3), "float32")',
     'R.nn.conv2d(x, w, data_layout="NCHW4c")', "extent 4, but the data has extent 3"),
    (X4C, 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW2c4c")', "more than once"),
    (X4C, 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCDW4c")', "convertible"),
]


@pytest.mark.parametrize("params,expr,match", REJECT)
def test_packed_rejections(params, expr, match):
    with pytest.raises(StructInfoError, match=match):
        relax_ref.parse(module(params, expr))


def test_grouped_axes_are_unsupported():
    with pytest.raises(UnsupportedError, match="brackets"):
        relax_ref.parse(module('x: R.Tensor((1, 2, 8, 4, 8), "float32")',
                               'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW[4c2w]")'))


@pytest.mark.tvm
@pytest.mark.parametrize("params,expr,want", INFER + [(p, e, None) for p, e, _ in REJECT],
                         ids=[f"c{i}" for i in range(len(INFER) + len(REJECT))])
def test_tvm_infers_the_same(params, expr, want):
    tvm = pytest.importorskip("tvm")
    text = module(params, expr)[len(HEADER):]
    if want is None:
        with pytest.raises(Exception):  # noqa: B017 - any TVM rejection
            tvm.script.from_source(text)
        return
    mod = tvm.script.from_source(text)
    var = mod["main"].body.blocks[0].bindings[-1].var
    got = var.struct_info if hasattr(var, "struct_info") else var.ty  # TVM 0.27 calls it ty
    assert tuple(str(d).replace("T.int64(", "").rstrip(")") if "int64" in str(d) else str(d)
                 for d in got.shape.values) == tuple(str(d) for d in want)


# ---------------------------------------------------------------------------------------------------
# Reference semantics against independent numpy formulas
# ---------------------------------------------------------------------------------------------------


def naive_conv2d(x, w, stride=1, pad=0):
    """x (N, C, H, W), w (O, C, KH, KW), float64 loops."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for b, f, i, j in np.ndindex(n, o, oh, ow):
        out[b, f, i, j] = np.sum(xp[b, :, i * stride:i * stride + kh, j * stride:j * stride + kw] * w[f])
    return out


def unpack_nchwc(x):
    n, co, h, w, ci = x.shape
    return x.transpose(0, 1, 4, 2, 3).reshape(n, co * ci, h, w)


def pack_nchwc(y, f):
    n, c, h, w = y.shape
    co = -(-c // f)
    y = np.concatenate([y, np.zeros((n, co * f - c, h, w), y.dtype)], axis=1)
    return y.reshape(n, co, f, h, w).transpose(0, 1, 3, 4, 2)


def run(params, expr, *args, legalize=False):
    """The reference's result; the JAX executor must compute the same (or raise the same error)."""
    import relax_jax

    mod = relax_ref.parse(module(params, expr))
    if legalize:
        mod = LegalizeOps()(mod)
    try:
        ref = relax_ref.evaluate(mod, "main", *args)
    except RelaxError as e:
        with pytest.raises(type(e)):
            relax_jax.compile(mod)("main", *args)
        raise
    np.testing.assert_allclose(np.asarray(relax_jax.compile(mod)("main", *args)), ref, rtol=1e-5, atol=1e-5)
    return ref


def test_conv2d_packed_data_and_kernel():
    x = RNG.standard_normal((1, 2, 5, 5, 4)).astype("float32")
    wc = RNG.standard_normal((8, 8, 3, 3)).astype("float32")
    # OIHW4i4o: w[oo, io, kh, kw, ii, oi] = wc[oo*4 + oi, io*4 + ii, kh, kw]
    wp = wc.reshape(2, 4, 2, 4, 3, 3).transpose(0, 2, 4, 5, 3, 1)
    want = pack_nchwc(naive_conv2d(unpack_nchwc(x).astype("float64"), wc.astype("float64"), 2, 1), 4)
    got = run('x: R.Tensor((1, 2, 5, 5, 4), "float32"), w: R.Tensor((2, 2, 3, 3, 4, 4), "float32")',
              'R.nn.conv2d(x, w, strides=2, padding=1, data_layout="NCHW4c", kernel_layout="OIHW4i4o")', x, wp)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv2d_packed_output_pads_lanes_with_zero():
    x = RNG.standard_normal((1, 3, 4, 4)).astype("float32")
    w = RNG.standard_normal((6, 3, 3, 3)).astype("float32")
    got = run('x: R.Tensor((1, 3, 4, 4), "float32"), w: R.Tensor((6, 3, 3, 3), "float32")',
              'R.nn.conv2d(x, w, out_layout="NCHW4c")', x, w)
    assert got.shape == (1, 2, 2, 2, 4)
    np.testing.assert_allclose(got, pack_nchwc(naive_conv2d(x.astype("float64"), w.astype("float64")), 4),
                               rtol=1e-5, atol=1e-5)
    assert np.all(got[:, 1, :, :, 2:] == 0)


def test_pools_and_resize_in_packed_layouts():
    x = RNG.standard_normal((1, 2, 4, 6, 4)).astype("float32")
    xc = unpack_nchwc(x)
    mx = xc.reshape(1, 8, 2, 2, 3, 2).max(axis=(3, 5))
    got = run('x: R.Tensor((1, 2, 4, 6, 4), "float32")',
              'R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c")', x)
    np.testing.assert_array_equal(got, pack_nchwc(mx, 4))
    ad = xc.astype("float64").reshape(1, 8, 2, 2, 3, 2).mean(axis=(3, 5))
    got = run('x: R.Tensor((1, 2, 4, 6, 4), "float32")',
              'R.nn.adaptive_avg_pool2d(x, output_size=(2, 3), layout="NCHW4c")', x)
    np.testing.assert_allclose(got, pack_nchwc(ad, 4), rtol=1e-6, atol=1e-6)
    # nearest neighbour, asymmetric coordinates, 2x upscale: out[i] = in[i // 2]
    got = run('x: R.Tensor((1, 2, 4, 6, 4), "float32")',
              'R.image.resize2d(x, R.shape([8, 12]), layout="NCHW4c", method="nearest_neighbor", '
              'coordinate_transformation_mode="asymmetric", rounding_method="floor")', x)
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))


def test_run_time_sub_axis_extent_is_checked():
    x = RNG.standard_normal((1, 2, 4, 4, 3)).astype("float32")
    with pytest.raises(OpRuntimeError, match="extent 4"):
        run('x: R.Tensor((1, 2, 4, 4, "k"), "float32")',
            'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW4c")', x)


# ---------------------------------------------------------------------------------------------------
# Legalization (OP.NN.LAYOUT.4)
# ---------------------------------------------------------------------------------------------------

LEGAL = [
    ('x: R.Tensor((1, 2, 5, 6, 4), "float32")',
     'R.nn.max_pool2d(x, pool_size=(3, 2), strides=(2, 2), padding=(1, 0, 1, 1), layout="NCHW4c")', True),
    ('x: R.Tensor((1, 1, 5, 5, 16), "float32")',
     'R.nn.avg_pool2d(x, pool_size=(3, 3), padding=(1, 1), count_include_pad=True, layout="NCHW16c")', True),
    ('x: R.Tensor((4, 1, 2, 5, 5), "float32")', 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="4cNCHW")', True),
    ('x: R.Tensor((1, 2, 6, 4), "float32")', 'R.nn.adaptive_avg_pool1d(x, output_size=(4,), layout="NCW4c")', True),
    ('x: R.Tensor((1, 2, 3, 3, 4), "float32")', 'R.image.resize2d(x, R.shape([5, 4]), layout="NCHW4c")', True),
    ('x: R.Tensor((1, 3, 3, 2, 4), "float32")', 'R.image.resize2d(x, R.shape([5, 4]), layout="NHWC4c")', False),
    ('x: R.Tensor((1, 2, 2, 3, 3, 4), "float32")', 'R.image.resize3d(x, R.shape([3, 5, 4]), layout="NCDHW4c")', True),
    ('x: R.Tensor((1, 2, 3, 3, 2, 4), "float32")', 'R.image.resize3d(x, R.shape([3, 5, 4]), layout="NDHWC4c")', False),
    ('x: R.Tensor((1, 2, 2, 4, 6), "float32")', 'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCH4hW")', False),
    ('x: R.Tensor((1, 3, 4, 4, 4), "float32")',
     'R.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW4c", out_layout="NCHW8c")', False),
]


@pytest.mark.parametrize("params,expr,legalizes", LEGAL)
def test_legalization_of_packed_layouts(params, expr, legalizes):
    mod = relax_ref.parse(module(params, expr))
    legal = LegalizeOps()(mod)
    text = legal.script()
    assert ("R.call_tir" in text) == legalizes
    x = RNG.standard_normal(tuple(int(d) for d in params.split("((")[1].split(")")[0].split(", "))).astype("float32")
    np.testing.assert_allclose(relax_ref.evaluate(legal, "main", x), relax_ref.evaluate(mod, "main", x),
                               rtol=1e-5, atol=1e-6)


def test_packed_convolutions_stay_unlegalized():
    text = LegalizeOps()(relax_ref.parse(module(X4C + ', w: R.Tensor((16, 8, 3, 3), "float32")',
                                                'R.nn.conv2d(x, w, data_layout="NCHW4c", out_layout="NCHW4c")'))).script()
    assert "R.nn.conv2d(" in text and "R.call_tir" not in text

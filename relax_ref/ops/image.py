"""Image operators: ``image.resize2d`` (spec page ``spec/ops/image.resize2d.md``); the sampling grid
``image.affine_grid`` is defined in :mod:`.image_grid`, ``image.grid_sample`` in :mod:`.image_sample`.

Inference follows TVM 0.25's ``InferStructInfoResize2D``: the spatial dims of the data layout become
the two values of ``size``. The semantics are TOPI's ``resize2d`` kernel (OP.image.resize2d.C5),
written once against a small arithmetic interface (:class:`_NumpyOps` evaluates it on arrays for the
reference semantics, :class:`_TEOps` builds the TensorIR of the legalization), so both compute the
same float32 operations in the same order:

* the source coordinate of output index ``x`` (``coordinate_transformation_mode``):
  ``half_pixel`` ``(x + 0.5) * scale - 0.5``; ``align_corners`` ``(in - 1) / (out - 1) * x``;
  ``asymmetric`` ``scale * x``; ``pytorch_half_pixel`` like ``half_pixel`` but 0 when ``out == 1``;
  ``tf_half_pixel_for_nn`` ``(x + 0.5) * scale``; ``tf_crop_and_resize`` from ``roi``
  (``scale = in / out``, all in float32);
* ``nearest_neighbor``: the index rounded by ``rounding_method`` (``round`` half to even,
  ``round_prefer_floor``, ``round_prefer_ceil``, ``floor`` with a ``1e-5`` nudge, ``ceil``; the
  default is ``round`` for ``align_corners`` and ``floor`` otherwise; ``asymmetric`` floor with a
  static integer upscale factor uses integer division); ``linear``: bilinear interpolation of the
  four neighbours; ``cubic``: the 4x4 cubic convolution with ``cubic_alpha`` (``cubic_exclude``
  drops and renormalizes taps outside the image);
* every read clamps the index to the image; pixels are converted to float32 and the result to the
  output dtype (``out_dtype`` or the data dtype); ``tf_crop_and_resize`` returns
  ``extrapolation_value`` for coordinates outside the image.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from ..errors import OpRuntimeError, ParseError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import ShapeStructInfo, TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .layouts import parse_layout
from .nn import legalizable
from .args import OpArgs
from .image_grid import GRID_OPS
from .image_sample import SAMPLE_OPS
from .opdef import OpDef, arg, attr, build_call

METHODS = ("nearest_neighbor", "linear", "cubic")
COORD_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
               "tf_crop_and_resize")
ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


# ---------------------------------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------------------------------


def _parse(opdef: OpDef, args: list, kwargs: dict, span) -> rx.Call:
    """As TVM's ``resize2d``: an integer (or one-element list) size is used for both dims; ``roi``
    defaults to four zeros and is stored as float32 values."""
    args = list(args)
    if len(args) >= 2:
        args[1] = _size_value(args[1])
    elif "size" in kwargs:
        kwargs = dict(kwargs, size=_size_value(kwargs["size"]))
    call = build_call(_PLAIN, args, kwargs, span)
    a = dict(call.attrs)
    a["roi"] = _roi_value(a.get("roi"), span)
    a["out_dtype"] = a.get("out_dtype") or "void"
    return rx.Call(call.op, call.args, type(call.attrs)(a), (), span=span)


def _size_value(v: Any) -> Any:
    if isinstance(v, (int, P.PrimExpr)) and not isinstance(v, bool):
        return [v, v]
    if isinstance(v, (list, tuple)) and len(v) == 1:
        return [v[0], v[0]]
    return v


def _roi_value(v: Any, span) -> Tuple[P.FloatImm, ...]:
    if v is None:
        vals = (0.0,) * 4
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        vals = (float(v),) * 4
    elif isinstance(v, P.FloatImm):
        vals = (v.value,) * 4
    elif isinstance(v, (list, tuple)):
        vals = tuple(float(x.value) if isinstance(x, (P.FloatImm, P.IntImm)) else float(x) for x in v)
    else:
        raise ParseError(f"R.image.resize2d: unsupported roi {v!r}", span)
    return tuple(P.FloatImm(float(x), "float32") for x in vals)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _resize_infer(call, ctx):
    """OP.image.resize2d.C1-C4."""
    if len(call.args) != 2:
        raise common.error(call,
                           f"Resize2D expects 2 arguments, while the given number of arguments is {len(call.args)}",
                           ctx)
    data = common.arg_sinfo(call, 0, ctx)
    size = common.arg_sinfo(call, 1, ctx)
    if not isinstance(data, TensorStructInfo):
        raise common.error(call, f"Resize2D expects the input data to be a Tensor, while the given data is "
                                 f"{common.describe_sinfo(data)}", ctx)
    if not isinstance(size, ShapeStructInfo):
        raise common.error(call, "Resize2D expects the given output image size to be a Shape, while the given one is "
                                 f"{common.describe_sinfo(size)}", ctx)
    if size.ndim != 2:
        raise common.error(call,
                           "Resize2D expects the given output image size to be a 2-dim shape, while the given one "
                                 f"has ndim {size.ndim}", ctx)
    a = call.attrs
    for key, allowed in (("method", METHODS), ("coordinate_transformation_mode", COORD_MODES),
                         ("rounding_method", ROUNDING)):
        if a.get(key) not in allowed:
            raise common.error(call, f"unknown {key} {a.get(key)!r}; expected one of {', '.join(map(repr, allowed))}",
                               ctx)
    if len(a.get("roi", ())) != 4:
        raise common.error(call, f"roi must have 4 values, got {list(a.get('roi', ()))}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], "NCHW", "data", ctx)
    out_dtype = a.get("out_dtype", "void") or "void"
    if out_dtype == "void":
        out_dtype = data.dtype
    nn_common.check_ndim(call, data, perm, a["layout"], ctx)
    dvals = nn_common.shape_expr_values(data)
    sz = call.args[1]
    if dvals is None or not isinstance(sz, rx.ShapeExpr):
        return TensorStructInfo(None, out_dtype, perm.ndim, data.vdevice)
    nn_common.check_sub_axes(call, data, perm, "data", ctx)
    d = nn_common.forward_shape(dvals, perm, ctx)
    d = d[:2] + list(sz.values)
    return TensorStructInfo(rx.ShapeExpr(tuple(nn_common.backward_shape(d, perm, ctx))), out_dtype, vdevice=data.vdevice)


# ---------------------------------------------------------------------------------------------------
# The kernel, written once over two arithmetic backends
# ---------------------------------------------------------------------------------------------------

F32 = np.float32


class _NumpyOps:
    """Float32 arithmetic on numpy arrays; ``load`` gathers pixels of ``data`` (N, C, H, W)."""

    def __init__(self, data: np.ndarray):
        self.data = data

    def f(self, v):
        return F32(v)

    def fi(self, e):
        return np.asarray(e).astype(F32)

    def add(self, a, b):
        return (np.asarray(a, F32) + np.asarray(b, F32)).astype(F32)

    def sub(self, a, b):
        return (np.asarray(a, F32) - np.asarray(b, F32)).astype(F32)

    def mul(self, a, b):
        return (np.asarray(a, F32) * np.asarray(b, F32)).astype(F32)

    def div(self, a, b):
        with np.errstate(all="ignore"):
            return (np.asarray(a, F32) / np.asarray(b, F32)).astype(F32)

    def neg(self, a):
        return (-np.asarray(a, F32)).astype(F32)

    def floor(self, a):
        return np.floor(a).astype(F32)

    def ceil(self, a):
        return np.ceil(a).astype(F32)

    def round(self, a):
        return np.rint(a).astype(F32)

    def to_int(self, a):
        a = np.asarray(a)
        if not np.all(np.isfinite(a)):
            raise _NonFinite()
        return np.trunc(a).astype(np.int64)

    def iadd(self, a, k):
        return np.asarray(a, np.int64) + k

    def idiv(self, a, b):
        return np.asarray(a, np.int64) // b

    def clamp(self, i, n):
        return np.maximum(np.minimum(np.asarray(i, np.int64), n - 1), 0)

    def lt(self, a, b):
        return np.asarray(a) < b

    def gt(self, a, b):
        return np.asarray(a) > b

    def any_(self, a, b):
        return np.logical_or(a, b)

    def select(self, c, a, b):
        return np.where(c, a, b).astype(F32)

    def load(self, yi, xi):
        return nn_common.tir_cast(self.data[:, :, yi, xi], "float32")


class _NonFinite(Exception):
    pass


class _TEOps:
    """The same operations as TIR expressions (``load`` reads the TE tensor in its layout)."""

    def __init__(self, data: te.Tensor, letters, at):
        self.data, self.letters, self.at = data, letters, at

    def f(self, v):
        return te_ops.const(float(v), "float32")

    def fi(self, e):
        return te_ops.cast("float32", e)

    def add(self, a, b):
        return te_ops.add(a, b)

    def sub(self, a, b):
        return te_ops.sub(a, b)

    def mul(self, a, b):
        return te_ops.mul(a, b)

    def div(self, a, b):
        return te_ops.div(a, b)

    def neg(self, a):
        return te_ops.neg(a)

    def floor(self, a):
        return te_ops.floor(a)

    def ceil(self, a):
        return te_ops.ceil(a)

    def round(self, a):
        # TOPI's resize rounds with ``te.round`` (``tir.round``, ties to even like ``nearbyint``)
        return te_ops.call("round", a)

    def to_int(self, a):
        return te_ops.cast("int32", a)

    def iadd(self, a, k):
        return te_ops.add(a, k) if k else a

    def idiv(self, a, b):
        return te_ops.truncdiv(a, b)

    def clamp(self, i, n):
        return te_ops.max_(te_ops.min_(i, te_ops.sub(n, 1)), 0)

    def lt(self, a, b):
        return te_ops.lt(a, b)

    def gt(self, a, b):
        return te_ops.gt(a, b)

    def any_(self, a, b):
        return te_ops.logical_or(a, b)

    def select(self, c, a, b):
        return te_ops.if_then_else(c, a, b)

    def load(self, yi, xi):
        at = dict(self.at, H=yi, W=xi)
        return te_ops.cast("float32", self.data(*[at[ch] for ch in self.letters]))


def _in_coord(B, x, in_size, out_size, mode: str, start, end, use_int_div: bool):
    """TOPI's ``get_inx`` (float32)."""
    scale = B.div(B.fi(in_size), B.fi(out_size))
    if mode == "half_pixel":
        return B.sub(B.mul(B.add(B.fi(x), B.f(0.5)), scale), B.f(0.5))
    if mode == "align_corners":
        return B.mul(B.div(B.fi(B.iadd(in_size, -1)), B.fi(B.iadd(out_size, -1))), B.fi(x))
    if mode == "asymmetric":
        if use_int_div:
            return B.idiv(x, B.idiv(out_size, in_size))
        return B.mul(scale, B.fi(x))
    if mode == "pytorch_half_pixel":
        return B.select(B.gt(out_size, 1), B.sub(B.mul(B.add(B.fi(x), B.f(0.5)), scale), B.f(0.5)), B.f(0.0))
    if mode == "tf_half_pixel_for_nn":
        return B.mul(B.add(B.fi(x), B.f(0.5)), scale)
    # tf_crop_and_resize
    im1 = B.fi(B.iadd(in_size, -1))
    big = B.add(B.mul(B.f(start), im1),
                B.div(B.mul(B.mul(B.fi(x), B.f(np.float32(end) - np.float32(start))), im1), B.fi(B.iadd(out_size, -1))))
    small = B.mul(B.mul(B.f(0.5), B.f(np.float32(start) + np.float32(end))), im1)
    return B.select(B.gt(out_size, 1), big, small)


def _closest(B, v, rounding: str):
    if rounding == "round":
        return B.to_int(B.round(v))
    if rounding == "round_prefer_floor":
        return B.to_int(B.ceil(B.sub(v, B.f(0.5))))
    if rounding == "round_prefer_ceil":
        return B.to_int(B.floor(B.add(v, B.f(0.5))))
    if rounding == "floor":
        return B.to_int(B.floor(B.add(v, B.f(1e-5))))
    return B.to_int(B.ceil(B.sub(v, B.f(1e-5))))


def _lerp(B, a, b, t):
    return B.add(B.mul(a, B.sub(B.f(1.0), t)), B.mul(b, t))


def _cubic_weights(B, t, alpha: float):
    t2 = B.mul(t, t)
    t3 = B.mul(B.mul(t, t), t)
    w1 = B.mul(B.f(alpha), B.add(B.sub(t3, B.mul(B.f(2), t2)), t))
    w2 = B.add(B.sub(B.mul(B.f(alpha + 2), t3), B.mul(B.f(3 + alpha), t2)), B.f(1))
    w3 = B.sub(B.add(B.mul(B.f(-(alpha + 2)), t3), B.mul(B.f(3 + 2 * alpha), t2)), B.mul(B.f(alpha), t))
    w4 = B.add(B.mul(B.f(-alpha), t3), B.mul(B.f(alpha), t2))
    return [w1, w2, w3, w4]


def _cubic_kernel(B, vals, ws):
    out = B.mul(vals[0], ws[0])
    for v, w in zip(vals[1:], ws[1:]):
        out = B.add(out, B.mul(v, w))
    return out


def resize_value(B, y, x, ih, iw, oh, ow, attrs: Dict[str, Any], int_div: Tuple[bool, bool]):
    """TOPI's ``_resize_2d`` for one output position (or arrays of them)."""
    method = attrs["method"]
    mode = attrs["coordinate_transformation_mode"]
    rounding = attrs["rounding_method"]
    roi = [float(r.value) if isinstance(r, P.FloatImm) else float(r) for r in attrs["roi"]]
    in_x = _in_coord(B, x, iw, ow, mode, roi[1], roi[3], int_div[1])
    in_y = _in_coord(B, y, ih, oh, mode, roi[0], roi[2], int_div[0])
    if method == "nearest_neighbor":
        if rounding == "":
            rounding = "round" if mode == "align_corners" else "floor"
        xi = in_x if int_div[1] else _closest(B, in_x, rounding)
        yi = in_y if int_div[0] else _closest(B, in_y, rounding)
        value = B.load(B.clamp(yi, ih), B.clamp(xi, iw))
    elif method == "linear":
        y0 = B.to_int(B.floor(in_y))
        x0 = B.to_int(B.floor(in_x))
        yl = B.sub(in_y, B.fi(y0))
        xl = B.sub(in_x, B.fi(x0))
        p = [[B.load(B.clamp(B.iadd(y0, j), ih), B.clamp(B.iadd(x0, i), iw)) for i in range(2)] for j in range(2)]
        value = _lerp(B, _lerp(B, p[0][0], p[0][1], xl), _lerp(B, p[1][0], p[1][1], xl), yl)
    else:
        alpha = float(attrs["cubic_alpha"])
        xint = B.to_int(B.floor(in_x))
        xf = B.sub(in_x, B.floor(in_x))
        yint = B.to_int(B.floor(in_y))
        yf = B.sub(in_y, B.floor(in_y))
        p = [[B.load(B.clamp(B.iadd(yint, j - 1), ih), B.clamp(B.iadd(xint, i - 1), iw)) for i in range(4)]
             for j in range(4)]
        wx = _cubic_weights(B, xf, alpha)
        wy = _cubic_weights(B, yf, alpha)
        if int(attrs["cubic_exclude"]):
            for i in range(4):
                wx[i] = B.select(B.any_(B.lt(B.iadd(xint, i - 1), 0), B.gt(B.iadd(xint, i), iw)), B.f(0.0), wx[i])
                wy[i] = B.select(B.any_(B.lt(B.iadd(yint, i - 1), 0), B.gt(B.iadd(yint, i), ih)), B.f(0.0), wy[i])
            sx = B.add(B.add(B.add(wx[0], wx[1]), wx[2]), wx[3])
            sy = B.add(B.add(B.add(wy[0], wy[1]), wy[2]), wy[3])
            wx = [B.div(w, sx) for w in wx]
            wy = [B.div(w, sy) for w in wy]
        cols = [_cubic_kernel(B, p[j], wx) for j in range(4)]
        value = _cubic_kernel(B, cols, wy)
    if mode == "tf_crop_and_resize":
        ext = B.f(float(attrs["extrapolation_value"]))
        out = B.select(B.lt(in_y, 0), ext, B.select(B.gt(in_y, B.fi(B.iadd(ih, -1))), ext, value))
        value = B.select(B.lt(in_x, 0), ext, B.select(B.gt(in_x, B.fi(B.iadd(iw, -1))), ext, out))
    return value


def _int_div_flags(call: rx.Call, attrs) -> Tuple[bool, bool]:
    """TOPI uses integer division for nearest/asymmetric/floor when the target size is a constant
    integer multiple of a constant input size (the IR decides, not the run-time values)."""
    if attrs["method"] != "nearest_neighbor" or attrs["coordinate_transformation_mode"] != "asymmetric" \
            or attrs["rounding_method"] not in ("floor", ""):
        return False, False
    data = call.args[0].struct_info
    size = call.args[1]
    if not isinstance(data, TensorStructInfo) or not isinstance(size, rx.ShapeExpr):
        return False, False
    dvals = nn_common.shape_expr_values(data)
    if dvals is None:
        return False, False
    layout = attrs["layout"]
    flags = []
    for k, axis in enumerate("HW"):
        img, tgt = dvals[layout.index(axis)], size.values[k]
        ok = False
        if isinstance(img, P.IntImm) and isinstance(tgt, P.IntImm) and img.value > 0:
            ratio = float(np.float32(tgt.value) / np.float32(img.value))
            ok = ratio % 1 == 0 and ratio <= 1 / (1e-5 * img.value + 1e-5)
        flags.append(ok)
    return flags[0], flags[1]


# ---------------------------------------------------------------------------------------------------
# Reference and legalization
# ---------------------------------------------------------------------------------------------------


def _check_resize(args: OpArgs) -> None:
    """OP.image.resize2d.C5 at run time: a layout convertible to NCHW and a tensor of its rank, sub-axes
    of their factors (OP.NN.LAYOUT.1-2); no ``align_corners``
    with an output size of 1 (TVM's kernel divides by zero); no empty image to fill a non-empty
    output."""
    op = args.op_name
    perm = nn_common.layout_conversion(args.call, args.attrs["layout"], "NCHW", "data")
    nn_common.check_layout_arg(args, 0, perm, "data")
    oh, ow = (int(v) for v in args.ints(1))
    n, c, ih, iw = nn_common.forward_shape(args.shape(0), perm)
    if args.attrs["coordinate_transformation_mode"] == "align_corners" and (oh == 1 or ow == 1):
        raise args.error(OpRuntimeError, f"{op}: align_corners with an output size of 1 divides by zero (TVM's "
                                         "kernel computes an undefined index)")
    if (ih == 0 or iw == 0) and oh and ow and n and c:
        raise args.error(OpRuntimeError, f"{op}: cannot resize an empty image")


def resize_values(op: str, B, y, x, ih, iw, oh, ow, attrs: Dict[str, Any], int_div: Tuple[bool, bool]):
    """:func:`resize_value` over arrays of output positions; a source coordinate that is not finite
    (from the attributes) is an OpRuntimeError."""
    try:
        return resize_value(B, y, x, ih, iw, oh, ow, attrs, int_div)
    except _NonFinite:
        raise OpRuntimeError(f"{op}: a source coordinate is not finite") from None


def _resize_ref(args, attrs, call, ctx):
    x, size = args
    perm = nn_common.layout_conversion(call, attrs["layout"], "NCHW", "data")
    oh, ow = (int(v) for v in size)
    xc = nn_common.to_canonical(x, perm)
    ih, iw = xc.shape[2], xc.shape[3]
    out_dtype = nn_common.inferred_tensor_dtype(call, nn_common.dtype_of(x))
    B = _NumpyOps(xc)
    y = np.arange(oh, dtype=np.int64).reshape(oh, 1)
    xx = np.arange(ow, dtype=np.int64).reshape(1, ow)
    if xc.size == 0 or oh == 0 or ow == 0:
        out = np.zeros(xc.shape[:2] + (oh, ow), dtype=nn_common.np_dtype(out_dtype))
    else:
        v = resize_values(common.op_name(call), B, y, xx, ih, iw, oh, ow, attrs, _int_div_flags(call, attrs))
        v = np.broadcast_to(v, xc.shape[:2] + (oh, ow))
        out = nn_common.tir_cast(np.asarray(v, F32), out_dtype)
    return np.ascontiguousarray(nn_common.from_canonical(out, perm))


def te_resize2d(data: te.Tensor, out_shape, attrs, int_div, out_dtype: str) -> te.Tensor:
    """TOPI's ``resize2d``; a sub-axis of a packed layout (``NCHW4c``) indexes the same lane of the
    input as of the output."""
    letters = [a for a, _ in parse_layout(attrs["layout"]).axes]
    ih, iw = data.shape[letters.index("H")], data.shape[letters.index("W")]
    oh, ow = out_shape[letters.index("H")], out_shape[letters.index("W")]

    def f(*idx):
        at = {ch: idx[i] for i, ch in enumerate(letters)}
        B = _TEOps(data, letters, at)
        v = resize_value(B, at["H"], at["W"], ih, iw, oh, ow, attrs, int_div)
        return te_ops.cast(out_dtype, v) if out_dtype != "float32" else v

    return te.compute(out_shape, f, name="resize", index_names=[f"i{k}" for k in range(len(letters))])


def _topi_layout(layout: str) -> bool:
    """The layouts TOPI's ``resize2d`` takes: ``NCHW``, ``NHWC``, ``NCHW<x>c`` and ``NCHW<i>n<j>c``
    (TVM's LegalizeOps fails on the others, OP.NN.LAYOUT.4)."""
    if layout in ("NCHW", "NHWC"):
        return True
    lay = parse_layout(layout)
    rest = lay.axes[4:]
    return [a for a, _ in lay.axes[:4]] == list("NCHW") and [a for a, _ in rest] in (["c"], ["n", "c"])


def _resize_legalize(call, ctx):
    if not legalizable(call) or not isinstance(call.args[1], rx.ShapeExpr):
        return None
    attrs = dict(call.attrs)
    if not _topi_layout(attrs["layout"]):
        return None
    out_dtype = call.struct_info.dtype
    flags = _int_div_flags(call, attrs)
    return ctx.call_te(lambda x, s: te_resize2d(x, s, attrs, flags, out_dtype), call.args[0],
                       list(call.struct_info.shape.values), primfunc_name_hint="resize2d")


_PARAMS = (arg("data"), arg("size", "shape"), attr("roi", "any", None), attr("layout", "str", "NCHW"),
           attr("method", "str", "linear"), attr("coordinate_transformation_mode", "str", "half_pixel"),
           attr("rounding_method", "str", "round"), attr("cubic_alpha", "float", -0.75),
           attr("cubic_exclude", "int", 0), attr("extrapolation_value", "float", 0.0), attr("out_dtype", "dtype", None))
_PLAIN = OpDef(name="relax.image.resize2d", script="R.image.resize2d", params=_PARAMS)


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    OPS.append(OpDef(name="relax.image.resize2d", script="R.image.resize2d", params=_PARAMS, infer=_resize_infer,
                   check=_check_resize, reference=_resize_ref, legalize=_resize_legalize, parse_call=_parse,
                   category="image",
                   doc="``R.image.resize2d(data, size, roi=None, layout='NCHW', method='linear', "
                       "coordinate_transformation_mode='half_pixel', rounding_method='round', cubic_alpha=-0.75, "
                       "cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)`` (OP.image.resize2d.C1-C5)."))
    OPS.extend(GRID_OPS)
    OPS.extend(SAMPLE_OPS)


_define_all()

__all__ = ["resize_value", "te_resize2d", "METHODS", "COORD_MODES", "ROUNDING"]

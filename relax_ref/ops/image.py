"""Image operators: ``image.resize2d`` and ``image.resize3d`` (spec pages ``spec/ops/image.resize2d.md``,
``spec/ops/image.resize3d.md``); the sampling grid ``image.affine_grid`` is defined in :mod:`.image_grid`,
``image.grid_sample`` in :mod:`.image_sample`.

Inference follows TVM's ``InferStructInfoResize2D``/``Resize3D``: the spatial dims of the data layout
(``HW`` of ``NCHW``, ``DHW`` of ``NCDHW``) become the values of ``size``. The semantics are TOPI's
``resize2d`` kernel (OP.image.resize2d.C5) over any number of spatial axes (resize3d,
OP.image.resize3d.C5, is the same formula over three), written once against a small arithmetic
interface (:class:`_NumpyOps` evaluates it on arrays for the reference semantics, :class:`_TEOps`
builds the TensorIR of the legalization, the JAX lowering supplies a third), so all compute the same
float32 operations in the same order:

* the source coordinate of output index ``x`` (``coordinate_transformation_mode``):
  ``half_pixel`` ``(x + 0.5) * scale - 0.5``; ``align_corners`` ``(in - 1) / (out - 1) * x``;
  ``asymmetric`` ``scale * x``; ``pytorch_half_pixel`` like ``half_pixel`` but 0 when ``out == 1``;
  ``tf_half_pixel_for_nn`` ``(x + 0.5) * scale``; ``tf_crop_and_resize`` from ``roi``
  (``scale = in / out``, all in float32);
* ``nearest_neighbor``: the index rounded by ``rounding_method`` (``round`` half to even,
  ``round_prefer_floor``, ``round_prefer_ceil``, ``floor`` with a ``1e-5`` nudge, ``ceil``; the
  default is ``round`` for ``align_corners`` and ``floor`` otherwise; ``asymmetric`` floor with a
  static integer upscale factor uses integer division in resize2d only); ``linear``: interpolation
  of the 2 neighbours on each axis, innermost axis first; ``cubic``: the 4-tap cubic convolution on
  each axis with ``cubic_alpha`` (``cubic_exclude`` drops and renormalizes taps outside the image);
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
from .te_arith import TEArith

METHODS = ("nearest_neighbor", "linear", "cubic")
COORD_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
               "tf_crop_and_resize")
ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


# ---------------------------------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------------------------------


def _parse(opdef: OpDef, args: list, kwargs: dict, span) -> rx.Call:
    """As TVM's ``resize2d``/``resize3d``: an integer (or one-element list) size is used for every
    spatial dim; ``roi`` defaults to zeros (two per spatial dim) and is stored as float32 values."""
    k = len(_KINDS[opdef.name].spatial)
    args = list(args)
    if len(args) >= 2:
        args[1] = _size_value(args[1], k)
    elif "size" in kwargs:
        kwargs = dict(kwargs, size=_size_value(kwargs["size"], k))
    call = build_call(_PLAIN[opdef.name], args, kwargs, span)
    a = dict(call.attrs)
    a["roi"] = _roi_value(a.get("roi"), 2 * k, opdef.script, span)
    a["out_dtype"] = a.get("out_dtype") or "void"
    return rx.Call(call.op, call.args, type(call.attrs)(a), (), span=span)


def _size_value(v: Any, k: int) -> Any:
    if isinstance(v, (int, P.PrimExpr)) and not isinstance(v, bool):
        return [v] * k
    if isinstance(v, (list, tuple)) and len(v) == 1:
        return [v[0]] * k
    return v


def _roi_value(v: Any, n: int, script: str, span) -> Tuple[P.FloatImm, ...]:
    if v is None:
        vals = (0.0,) * n
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        vals = (float(v),) * n
    elif isinstance(v, P.FloatImm):
        vals = (v.value,) * n
    elif isinstance(v, (list, tuple)):
        vals = tuple(float(x.value) if isinstance(x, (P.FloatImm, P.IntImm)) else float(x) for x in v)
    else:
        raise ParseError(f"{script}: unsupported roi {v!r}", span)
    return tuple(P.FloatImm(float(x), "float32") for x in vals)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


class _Kind:
    """What tells ``resize2d`` and ``resize3d`` apart: TVM's name in messages, the canonical layout and
    its spatial axes (outermost first)."""

    def __init__(self, title: str, canon: str, spatial: str):
        self.title, self.canon, self.spatial = title, canon, spatial


_KINDS = {"relax.image.resize2d": _Kind("Resize2D", "NCHW", "HW"),
          "relax.image.resize3d": _Kind("Resize3D", "NCDHW", "DHW")}


def _resize_infer(call, ctx):
    """OP.image.resize2d.C1-C4, OP.image.resize3d.C1-C4."""
    kind = _KINDS[common.op_name(call)]
    t, k = kind.title, len(kind.spatial)
    if len(call.args) != 2:
        raise common.error(call,
                           f"{t} expects 2 arguments, while the given number of arguments is {len(call.args)}", ctx)
    data = common.arg_sinfo(call, 0, ctx)
    size = common.arg_sinfo(call, 1, ctx)
    if not isinstance(data, TensorStructInfo):
        raise common.error(call, f"{t} expects the input data to be a Tensor, while the given data is "
                                 f"{common.describe_sinfo(data)}", ctx)
    if not isinstance(size, ShapeStructInfo):
        raise common.error(call, f"{t} expects the given output image size to be a Shape, while the given one is "
                                 f"{common.describe_sinfo(size)}", ctx)
    if size.ndim != k:
        raise common.error(call, f"{t} expects the given output image size to be a {k}-dim shape, while the given "
                                 f"one has ndim {size.ndim}", ctx)
    a = call.attrs
    for key, allowed in (("method", METHODS), ("coordinate_transformation_mode", COORD_MODES),
                         ("rounding_method", ROUNDING)):
        if a.get(key) not in allowed:
            raise common.error(call, f"unknown {key} {a.get(key)!r}; expected one of {', '.join(map(repr, allowed))}",
                               ctx)
    if len(a.get("roi", ())) != 2 * k:
        raise common.error(call, f"roi must have {2 * k} values, got {list(a.get('roi', ()))}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], kind.canon, "data", ctx)
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

    def load(self, *idx):
        return nn_common.tir_cast(self.data[(slice(None), slice(None)) + tuple(idx)], "float32")


class _NonFinite(Exception):
    pass


class _TEOps(TEArith):
    """The same operations as TIR expressions (``load`` reads the TE tensor in its layout)."""

    def __init__(self, data: te.Tensor, letters, at, spatial: str):
        self.data, self.letters, self.at, self.spatial = data, letters, at, spatial

    def fi(self, e):
        return te_ops.cast("float32", e)

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

    def load(self, *idx):
        at = dict(self.at, **dict(zip(self.spatial, idx)))
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


def _interp(B, axis: int, prefix: list, base, frac, sizes, taps: int, weights):
    """The separable interpolation over the spatial axes from ``axis`` inward: the innermost axis is
    combined first (TOPI's order), ``taps`` neighbours per axis starting at ``base + 1 - taps // 2``."""
    if axis == len(sizes):
        return B.load(*[B.clamp(i, n) for i, n in zip(prefix, sizes)])
    vals = [_interp(B, axis + 1, prefix + [B.iadd(base[axis], t + 1 - taps // 2)], base, frac, sizes, taps, weights)
            for t in range(taps)]
    if taps == 2:
        return _lerp(B, vals[0], vals[1], frac[axis])
    return _cubic_kernel(B, vals, weights[axis])


def resize_value(B, pos, ins, outs, attrs: Dict[str, Any], int_div: Tuple[bool, ...]):
    """TOPI's ``_resize_2d`` generalized to any number of spatial axes (outermost first: ``pos`` the
    output indices, ``ins``/``outs`` the input and output extents, ``roi`` the starts then the ends, one
    per axis) for one output position (or arrays of them); OP.image.resize2d.C5, OP.image.resize3d.C5."""
    method = attrs["method"]
    mode = attrs["coordinate_transformation_mode"]
    rounding = attrs["rounding_method"]
    k = len(pos)
    roi = [float(r.value) if isinstance(r, P.FloatImm) else float(r) for r in attrs["roi"]]
    coords = [_in_coord(B, pos[a], ins[a], outs[a], mode, roi[a], roi[k + a], int_div[a]) for a in range(k)]
    if method == "nearest_neighbor":
        if rounding == "":
            rounding = "round" if mode == "align_corners" else "floor"
        idx = [c if int_div[a] else _closest(B, c, rounding) for a, c in enumerate(coords)]
        value = B.load(*[B.clamp(i, n) for i, n in zip(idx, ins)])
    elif method == "linear":
        base = [B.to_int(B.floor(c)) for c in coords]
        frac = [B.sub(c, B.fi(b)) for c, b in zip(coords, base)]
        value = _interp(B, 0, [], base, frac, ins, 2, None)
    else:
        alpha = float(attrs["cubic_alpha"])
        base = [B.to_int(B.floor(c)) for c in coords]
        ws = [_cubic_weights(B, B.sub(c, B.floor(c)), alpha) for c in coords]
        if int(attrs["cubic_exclude"]):
            for a in range(k):
                w = [B.select(B.any_(B.lt(B.iadd(base[a], i - 1), 0), B.gt(B.iadd(base[a], i), ins[a])), B.f(0.0),
                              ws[a][i]) for i in range(4)]
                total = B.add(B.add(B.add(w[0], w[1]), w[2]), w[3])
                ws[a] = [B.div(v, total) for v in w]
        value = _interp(B, 0, [], base, None, ins, 4, ws)
    if mode == "tf_crop_and_resize":
        ext = B.f(float(attrs["extrapolation_value"]))
        for c, n in zip(coords, ins):
            value = B.select(B.lt(c, 0), ext, B.select(B.gt(c, B.fi(B.iadd(n, -1))), ext, value))
    return value


def _int_div_flags(call: rx.Call, attrs) -> Tuple[bool, ...]:
    """TOPI's ``resize2d`` uses integer division for nearest/asymmetric/floor when the target size is a
    constant integer multiple of a constant input size (the IR decides, not the run-time values); its
    ``resize3d`` never does."""
    kind = _KINDS[common.op_name(call)]
    none = (False,) * len(kind.spatial)
    if kind.canon != "NCHW" or attrs["method"] != "nearest_neighbor" \
            or attrs["coordinate_transformation_mode"] != "asymmetric" or attrs["rounding_method"] not in ("floor", ""):
        return none
    data = call.args[0].struct_info
    size = call.args[1]
    if not isinstance(data, TensorStructInfo) or not isinstance(size, rx.ShapeExpr):
        return none
    dvals = nn_common.shape_expr_values(data)
    if dvals is None:
        return none
    layout = attrs["layout"]
    flags = []
    for k, axis in enumerate("HW"):
        img, tgt = dvals[layout.index(axis)], size.values[k]
        ok = False
        if isinstance(img, P.IntImm) and isinstance(tgt, P.IntImm) and img.value > 0:
            ratio = float(np.float32(tgt.value) / np.float32(img.value))
            ok = ratio % 1 == 0 and ratio <= 1 / (1e-5 * img.value + 1e-5)
        flags.append(ok)
    return tuple(flags)


# ---------------------------------------------------------------------------------------------------
# Reference and legalization
# ---------------------------------------------------------------------------------------------------


def _check_resize(args: OpArgs) -> None:
    """OP.image.resize2d.C5 (OP.image.resize3d.C5) at run time: a layout convertible to the canonical one
    and a tensor of its rank, sub-axes of their factors (OP.NN.LAYOUT.1-2); no ``align_corners`` with an
    output size of 1 (TVM's kernel divides by zero); no empty image to fill a non-empty output."""
    op = args.op_name
    kind = _KINDS[common.op_name(args.call)]
    perm = nn_common.layout_conversion(args.call, args.attrs["layout"], kind.canon, "data")
    nn_common.check_layout_arg(args, 0, perm, "data")
    outs = [int(v) for v in args.ints(1)]
    dims = nn_common.forward_shape(args.shape(0), perm)
    if args.attrs["coordinate_transformation_mode"] == "align_corners" and 1 in outs:
        raise args.error(OpRuntimeError, f"{op}: align_corners with an output size of 1 divides by zero (TVM's "
                                         "kernel computes an undefined index)")
    if 0 in dims[2:] and all(outs) and dims[0] and dims[1]:
        raise args.error(OpRuntimeError, f"{op}: cannot resize an empty image")


def resize_values(op: str, B, pos, ins, outs, attrs: Dict[str, Any], int_div: Tuple[bool, ...]):
    """:func:`resize_value` over arrays of output positions; a source coordinate that is not finite
    (from the attributes) is an OpRuntimeError."""
    if attrs["coordinate_transformation_mode"] == "tf_crop_and_resize":
        # decided from the static attributes, in numpy, before any value: relax_jax computes the
        # coordinates inside a trace, where ``to_int`` cannot see them
        roi = [float(r.value) if isinstance(r, P.FloatImm) else float(r) for r in attrs["roi"]]
        k = len(pos)
        N = _NumpyOps(None)
        for a in range(k):
            with np.errstate(all="ignore"):
                c = _in_coord(N, pos[a], ins[a], outs[a], "tf_crop_and_resize", roi[a], roi[k + a], int_div[a])
                finite = bool(np.all(np.isfinite(np.asarray(c))))
            if not finite:
                raise OpRuntimeError(f"{op}: a source coordinate is not finite")
    try:
        return resize_value(B, pos, ins, outs, attrs, int_div)
    except _NonFinite:
        raise OpRuntimeError(f"{op}: a source coordinate is not finite") from None


def output_positions(outs) -> List[np.ndarray]:
    """The output indices of each spatial axis, shaped to broadcast against each other."""
    k = len(outs)
    return [np.arange(o, dtype=np.int64).reshape([o if j == a else 1 for j in range(k)]) for a, o in enumerate(outs)]


def _resize_ref(args, attrs, call, ctx):
    x, size = args
    kind = _KINDS[common.op_name(call)]
    perm = nn_common.layout_conversion(call, attrs["layout"], kind.canon, "data")
    outs = tuple(int(v) for v in size)
    xc = nn_common.to_canonical(x, perm)
    ins = tuple(xc.shape[2:])
    out_dtype = nn_common.inferred_tensor_dtype(call, nn_common.dtype_of(x))
    if xc.size == 0 or 0 in outs:
        out = np.zeros(xc.shape[:2] + outs, dtype=nn_common.np_dtype(out_dtype))
    else:
        v = resize_values(common.op_name(call), _NumpyOps(xc), output_positions(outs), ins, outs, attrs,
                          _int_div_flags(call, attrs))
        v = np.broadcast_to(v, xc.shape[:2] + outs)
        out = nn_common.tir_cast(np.asarray(v, F32), out_dtype)
    return np.ascontiguousarray(nn_common.from_canonical(out, perm))


def te_resize(data: te.Tensor, out_shape, attrs, int_div, out_dtype: str, spatial: str) -> te.Tensor:
    """TOPI's ``resize2d``/``resize3d`` over the ``spatial`` axes; a sub-axis of a packed layout
    (``NCHW4c``) indexes the same lane of the input as of the output."""
    letters = [a for a, _ in parse_layout(attrs["layout"]).axes]
    ins = [data.shape[letters.index(ch)] for ch in spatial]
    outs = [out_shape[letters.index(ch)] for ch in spatial]

    def f(*idx):
        at = {ch: idx[i] for i, ch in enumerate(letters)}
        B = _TEOps(data, letters, at, spatial)
        v = resize_value(B, [at[ch] for ch in spatial], ins, outs, attrs, int_div)
        return te_ops.cast(out_dtype, v) if out_dtype != "float32" else v

    return te.compute(out_shape, f, name="resize", index_names=[f"i{k}" for k in range(len(letters))])


def _topi_layout(layout: str, canon: str) -> bool:
    """The layouts TOPI's kernels take: for ``resize2d`` ``NCHW``, ``NHWC``, ``NCHW<x>c`` and
    ``NCHW<i>n<j>c``; for ``resize3d`` ``NCDHW``, ``NDHWC`` and ``NCDHW<x>c`` (TVM's LegalizeOps fails
    on the others, OP.NN.LAYOUT.4)."""
    if layout in (canon, canon[0] + canon[2:] + canon[1]):
        return True
    lay = parse_layout(layout)
    rest = [a for a, _ in lay.axes[len(canon):]]
    packed = (["c"], ["n", "c"]) if canon == "NCHW" else (["c"],)
    return [a for a, _ in lay.axes[:len(canon)]] == list(canon) and rest in packed


def _resize_legalize(call, ctx):
    if not legalizable(call) or not isinstance(call.args[1], rx.ShapeExpr):
        return None
    kind = _KINDS[common.op_name(call)]
    attrs = dict(call.attrs)
    if not _topi_layout(attrs["layout"], kind.canon):
        return None
    out_dtype = call.struct_info.dtype
    flags = _int_div_flags(call, attrs)
    return ctx.call_te(lambda x, s: te_resize(x, s, attrs, flags, out_dtype, kind.spatial), call.args[0],
                       list(call.struct_info.shape.values), primfunc_name_hint=common.op_name(call).split(".")[-1])


def _params(rounding: str, layout: str):
    return (arg("data"), arg("size", "shape"), attr("roi", "any", None), attr("layout", "str", layout),
            attr("method", "str", "linear"), attr("coordinate_transformation_mode", "str", "half_pixel"),
            attr("rounding_method", "str", rounding), attr("cubic_alpha", "float", -0.75),
            attr("cubic_exclude", "int", 0), attr("extrapolation_value", "float", 0.0),
            attr("out_dtype", "dtype", None))


_PARAMS = {"relax.image.resize2d": _params("round", "NCHW"), "relax.image.resize3d": _params("", "NCDHW")}
_PLAIN = {name: OpDef(name=name, script="R." + name[len("relax."):], params=ps) for name, ps in _PARAMS.items()}


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    for name, dims, rounding, layout in (("resize2d", "H, W", "round", "NCHW"),
                                         ("resize3d", "D, H, W", "", "NCDHW")):
        full = "relax.image." + name
        OPS.append(OpDef(name=full, script="R.image." + name, params=_PARAMS[full], infer=_resize_infer,
                         check=_check_resize, reference=_resize_ref, legalize=_resize_legalize, parse_call=_parse,
                         category="image",
                         doc=f"``R.image.{name}(data, size, roi=None, layout='{layout}', method='linear', "
                             f"coordinate_transformation_mode='half_pixel', rounding_method='{rounding}', "
                             "cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype=None)`` "
                             f"resizes the {dims} dims (OP.image.{name}.C1-C5)."))
        if name == "resize2d":
            OPS.extend(GRID_OPS)
            OPS.extend(SAMPLE_OPS)


_define_all()

__all__ = ["resize_value", "resize_values", "te_resize", "output_positions", "METHODS", "COORD_MODES", "ROUNDING"]

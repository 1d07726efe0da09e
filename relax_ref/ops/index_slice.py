"""Slicing: ``strided_slice`` and ``dynamic_strided_slice`` (spec pages ``spec/ops/<op>.md``), defined as
operators by :mod:`.index`.

Inference mirrors ``InferStructInfoStridedSlice``/``InferStructInfoDynStridedSlice`` of TVM 0.25; the
semantics are Python slicing (OP.strided_slice.*, see :mod:`.index`); the legalizations follow TOPI's
``T_strided_slice_with_axes`` and TVM's three-step legalization of the dynamic slice.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..errors import TypeMismatchError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import (
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)
from . import common
from . import te
from . import te_ops
from . import manipulate_util
from .args import OpArgs

_I64 = manipulate_util.int64


def _tuple_prim_values(s) -> Optional[List[P.PrimExpr]]:
    """TVM's ``UnpackTupleOfPrimValue``: the values of a tuple of prims, or None when unknown."""
    if isinstance(s, ObjectStructInfo) or not isinstance(s, TupleStructInfo):
        return None
    out = []
    for f in s.fields:
        if not isinstance(f, PrimStructInfo) or f.value is None:
            return None
        out.append(f.value)
    return out


def _is_tuple_of_int64(s) -> bool:
    if isinstance(s, ObjectStructInfo):
        return True
    if not isinstance(s, TupleStructInfo):
        return False
    return all(isinstance(f, PrimStructInfo) and f.dtype == "int64" for f in s.fields)


def canonicalize_index(index: P.PrimExpr, extent: P.PrimExpr, stride: P.PrimExpr) -> P.PrimExpr:
    """TOPI's ``CanonicalizeIndex``: Python's clamping of a slice bound (OP.strided_slice.C6)."""
    if all(isinstance(v, P.IntImm) for v in (index, extent, stride)):
        i, e, s = index.value, extent.value, stride.value
        lo, hi = (-1, e - 1) if s < 0 else (0, e)
        if i < 0:
            i += e
        return _I64(min(max(i, lo), hi))
    if isinstance(index, P.PrimVar) and isinstance(extent, P.PrimVar) and index.name == extent.name:
        return index
    neg = te_ops.lt(stride, te_ops.const(0, stride.dtype))
    lo = te_ops.if_then_else(neg, _I64(-1), _I64(0))
    hi = te_ops.if_then_else(neg, te_ops.sub(extent, _I64(1)), extent)
    if not (isinstance(index, P.IntImm) and index.value >= 0):
        index = te_ops.if_then_else(te_ops.lt(index, te_ops.const(0, index.dtype)), te_ops.add(index, extent), index)
    return te_ops.min_(te_ops.max_(index, lo), hi)


def _ceildiv(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm) and b.value != 0:
        # exact: a + b - 1 overflows int64 for a stride near 2**63 (RUNTIME.LIMIT.1); the quotient fits
        return _I64(-((-a.value) // b.value))
    return te_ops.floordiv(te_ops.sub(te_ops.add(a, b), te_ops.const(1, b.dtype)), b)


def slice_length(begin, end, stride, extent, assume_inbound: bool) -> P.PrimExpr:
    """TOPI's ``GetLength`` (OP.strided_slice.C6)."""
    if assume_inbound:
        return _ceildiv(te_ops.sub(end, begin), stride)
    b = canonicalize_index(begin, extent, stride)
    e = canonicalize_index(end, extent, stride)
    return te_ops.if_then_else(te_ops.lt(stride, te_ops.const(0, stride.dtype)), _ceildiv(te_ops.sub(b, e),
                                                                                          te_ops.neg(stride)),
                               _ceildiv(te_ops.sub(e, b), stride))


def _slice_args(call) -> Tuple[Any, Any, Any, Any]:
    axes, begin, end = (a.struct_info for a in call.args[1:4])
    strides = call.args[4].struct_info if len(call.args) > 4 else None
    return axes, begin, end, strides


def strided_slice_infer(call, ctx):
    """OP.strided_slice.C1-C7 (TVM's ``InferStructInfoStridedSlice``)."""
    if not 4 <= len(call.args) <= 5:  # C1
        raise common.error(call, "accepts either (data, axes, begin, end) or (data, axes, begin, end, strides), "
                                 f"but received {len(call.args)} arguments", ctx)
    data = common.arg_sinfo(call, 0, ctx)
    if not isinstance(data, TensorStructInfo):  # C2
        raise common.error(call, f"requires the first argument to be a tensor. However, it has struct info "
                                 f"{common.describe_sinfo(data)}", ctx)
    names = ("axes", "begin", "end", "strides")
    for i, nm in enumerate(names[:len(call.args) - 1]):  # C3
        s = common.arg_sinfo(call, i + 1, ctx)
        if not _is_tuple_of_int64(s):
            raise common.error(call, f"requires the {nm} argument to be a tuple of int64 PrimValues. However, it "
                                     f"has struct info {common.describe_sinfo(s)}", ctx)
    lengths = {nm: len(call.args[i + 1].fields) for i, nm in enumerate(names[:len(call.args) - 1])
               if isinstance(call.args[i + 1], rx.Tuple)}
    if len(set(lengths.values())) > 1:  # C4
        raise common.error(call, "requires that the axes, begin, end, and strides tuples are all the same length, "
                                 f"got {lengths}", ctx)
    shape = _slice_shape(call, ctx, data)
    if shape is None:
        return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
    if isinstance(shape, rx.Expr):
        return TensorStructInfo(shape, data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(rx.ShapeExpr(shape), data.dtype, vdevice=data.vdevice)


def _slice_shape(call, ctx, data: TensorStructInfo):
    if data.shape is None:
        return None
    axes_s, begin_s, end_s, strides_s = _slice_args(call)
    axes = _tuple_prim_values(axes_s)
    if axes is None or not all(isinstance(a, P.IntImm) for a in axes):
        return None
    begin = _tuple_prim_values(begin_s)
    if begin is None:
        return None
    if len(axes) != len(begin):  # C4
        raise common.error(call, f"the number of axes ({len(axes)}) must match the number of 'begin' indices "
                                 f"({len(begin)})", ctx)
    end = _tuple_prim_values(end_s)
    if end is None:
        return None
    if len(axes) != len(end):
        raise common.error(call, f"the number of axes ({len(axes)}) must match the number of 'end' indices "
                                 f"({len(end)})", ctx)
    if strides_s is not None:
        strides = _tuple_prim_values(strides_s)
        if strides is None:
            return None
    else:
        strides = [_I64(1)] * len(axes)
    if len(axes) != len(strides):
        raise common.error(call, f"the number of axes ({len(axes)}) must match the number of strides "
                                 f"({len(strides)})", ctx)
    vals = data.shape_values
    if not axes and vals is None:
        return data.shape
    if vals is None:
        return None
    norm = common.normalize_axes(call, data.ndim, [a.value for a in axes], ctx)  # C5
    assume = bool(call.attrs.get("assume_inbound", False))
    out = list(vals)
    for a, b, e, s in zip(norm, begin, end, strides):
        if isinstance(s, P.IntImm) and s.value == 0:  # C5
            raise common.error(call, f"the stride of axis {a} must be nonzero", ctx)
        dim = manipulate_util.simplify(ctx, slice_length(b, e, s, out[a], assume))
        if isinstance(dim, P.IntImm) and dim.value < 0:  # C6: static extents clamp (TVM: negative)
            dim = _I64(0)
        out[a] = dim
    return tuple(out)


def _slice_tuple(v) -> List[int]:
    return [manipulate_util.int_value(x) for x in v]


def strided_slice_ref(args, attrs, call, ctx):
    x = args[0]
    axes = _slice_tuple(args[1])
    begin, end = _slice_tuple(args[2]), _slice_tuple(args[3])
    strides = _slice_tuple(args[4]) if len(args) > 4 else [1] * len(axes)
    if not len(axes) == len(begin) == len(end) == len(strides):
        raise manipulate_util.runtime_error(call, "axes, begin, end and strides must have the same length")
    assume = bool(attrs.get("assume_inbound", False))
    sl = [slice(None)] * x.ndim
    for a, b, e, s in zip(axes, begin, end, strides):
        if not -x.ndim <= a < x.ndim:
            raise manipulate_util.runtime_error(call, f"axis {a} is out of range for a tensor of rank {x.ndim}")
        if s == 0:
            raise manipulate_util.runtime_error(call, f"the stride of axis {a} is zero")
        d = x.shape[a % x.ndim]
        if assume and not (0 <= b <= d and 0 <= e <= d):  # C7: the assumption must hold
            raise manipulate_util.runtime_error(call,
                                                f"assume_inbound=True, but [{b}, {e}) is not within [0, {d}] on axis "
                                                f"{a}")
        sl[a % x.ndim] = slice(b, e, s)
    out = manipulate_util.copy_out(x[tuple(sl)])
    manipulate_util.check_result_shape(call, ctx, out, infer=strided_slice_infer)
    return out


def check_strided_slice(args: OpArgs) -> None:
    """OP.strided_slice.C3 at run time: an ``R.Object`` argument (accepted statically, as TVM does)
    holds a tuple of integer prim values, or the call is a ``type_mismatch``."""
    names = ("axes", "begin", "end", "strides")
    for i in range(1, len(args)):
        ok = args.kind(i) == "tuple"
        if ok:
            fields = args.fields(i)
            ok = all(fields.kind(j) == "prim" and _dt.is_integer(fields.dtype(j)) for j in range(len(fields)))
        if not ok:
            raise args.error(TypeMismatchError, f"relax.strided_slice: {names[i - 1]} must be a tuple of integer "
                                                f"prim values, got {args.describe(i)}")


def strided_slice_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    axes_s, begin_s, end_s, strides_s = _slice_args(call)
    axes = [a.value for a in _tuple_prim_values(axes_s)]
    begin = _tuple_prim_values(begin_s)
    strides = _tuple_prim_values(strides_s) if strides_s is not None else [_I64(1)] * len(axes)
    data = call.args[0].struct_info
    ndim = data.ndim
    axes = [a % ndim for a in axes]
    if call.attrs.get("assume_inbound", False):
        # as TOPI: the begin indices are used as given (the reference checks the assumption, C7)
        starts = list(begin)
    else:
        starts = [manipulate_util.simplify(ctx, canonicalize_index(b, data.shape.values[a], s))
                  for a, b, s in zip(axes, begin, strides)]
    out_shape = list(call.struct_info.shape.values)

    def fte(x, out_shape, starts, strides):
        def f(*i):
            idx = list(i)
            for a, b, s in zip(axes, starts, strides):
                idx[a] = te_ops.add(te_ops.mul(i[a], s), b)
            return x(*idx)
        return te.compute(out_shape, f, name="T_strided_slice_with_axes", index_names=manipulate_util.axes_names(len(out_shape)))

    return ctx.call_te(fte, call.args[0], out_shape, starts, list(strides), primfunc_name_hint="strided_slice")


# ---------------------------------------------------------------------------------------------------
# dynamic_strided_slice
# ---------------------------------------------------------------------------------------------------


def dyn_slice_infer(call, ctx):
    """OP.dynamic_strided_slice.C1-C3 (TVM's ``InferStructInfoDynStridedSlice``)."""
    common.check_num_args(call, 4, ctx)
    data = common.tensor_arg(call, 0, ctx, "x")
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    for i, nm in ((1, "begin"), (2, "end"), (3, "strides")):
        s = common.arg_sinfo(call, i, ctx)
        if not isinstance(s, TensorStructInfo):  # C1
            raise common.error(call, f"Dynamic strided slice requires the input {nm} to be a tensor", ctx)
        if s.ndim != 1:
            raise common.error(call, f"Dynamic strided slice requires {nm} to be 1d tensor (list of values).", ctx)
        vals = manipulate_util.shape_expr_values(s)
        if vals is None or not isinstance(vals[0], P.IntImm):  # C2
            raise common.error(call, f"Dynamic strided slice requires the input {nm} to have a known integer "
                                     "shape value.", ctx)
        if vals[0].value != data.ndim:
            raise common.error(call, f"Dynamic strided slice requires the number of indices in {nm} to equal the "
                                     "number of axes.", ctx)
        if s.dtype not in ("void", "int64"):  # C3
            raise common.error(call, f"Dynamic strided_slice expects the input {nm} values to be all int64. "
                                     f"However, {nm} has dtype {s.dtype}.", ctx)
    return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def dyn_slice_ref(args, attrs, call, ctx):
    x, b, e, s = args
    sl = []
    for a in range(x.ndim):
        st = int(s[a])
        if st == 0:
            raise manipulate_util.runtime_error(call, f"the stride of axis {a} is zero")
        sl.append(slice(int(b[a]), int(e[a]), st))
    return manipulate_util.copy_out(x[tuple(sl)])


def dyn_slice_legalize(call, ctx):
    """TVM's three steps: a shape kernel computes the extents, ``tensor_to_shape`` + ``match_cast``
    bind fresh symbolic extents, and the slicing kernel reads ``x[i * stride + begin']`` with the
    canonicalized begin."""
    if not manipulate_util.legalizable(call, check_result=False):
        return None
    data = call.args[0].struct_info
    ndim = data.ndim

    def shape_func(x, begin, end, strides):
        def f(i):
            length = _I64(-1)
            for k in range(ndim):
                length = te_ops.select(te_ops.eq(i, _I64(k)), x.shape[k], length)
            return slice_length(begin(i), end(i), strides(i), length, False)
        return te.compute((_I64(ndim),), f, name="T_shape_func_strided_slice_dynamic")

    shape_call = ctx.call_te(shape_func, *call.args, primfunc_name_hint="shape_func")
    dataflow = any(isinstance(a, rx.DataflowVar) for a in call.args)
    VarT = rx.DataflowVar if dataflow else rx.Var
    sv = VarT("shape_tensor", struct_info=TensorStructInfo(rx.ShapeExpr((_I64(ndim),)), "int64"))
    shp = VarT("shape_value", struct_info=ShapeStructInfo(ndim=ndim))
    dims = tuple(P.PrimVar("s", "int64") for _ in range(ndim))
    matched = VarT("shape_matched", struct_info=ShapeStructInfo(dims))

    def slicer(x, begin, end, strides, out_shape):
        def f(*i):
            idx = []
            for k in range(ndim):
                s = strides(_I64(k))
                b = canonicalize_index(begin(_I64(k)), x.shape[k], s)
                idx.append(te_ops.add(te_ops.mul(i[k], s), b))
            return x(*idx)
        return te.compute(out_shape, f, name="T_strided_slice_dynamic", index_names=manipulate_util.axes_names(ndim))

    body = ctx.call_te(slicer, *call.args, list(dims), primfunc_name_hint="dynamic_strided_slice")
    block_t = rx.DataflowBlock if dataflow else rx.BindingBlock
    bindings = (rx.VarBinding(sv, shape_call),
                rx.VarBinding(shp, rx.Call(rx.Op("relax.tensor_to_shape"), (sv,), Attrs())),
                rx.MatchCast(matched, shp, ShapeStructInfo(dims)))
    return rx.SeqExpr((block_t(bindings),), body)


__all__ = ["canonicalize_index", "slice_length", "strided_slice_infer", "strided_slice_ref", "strided_slice_legalize", "check_strided_slice", "dyn_slice_infer", "dyn_slice_ref", "dyn_slice_legalize"]

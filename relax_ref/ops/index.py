"""Indexing operators: ``take``, ``strided_slice``, ``dynamic_strided_slice``, ``gather_elements``,
``gather_nd``, ``index_tensor`` and ``one_hot`` (spec pages ``spec/ops/<op>.md``).

Inference mirrors ``src/relax/op/tensor/index.cc`` and ``manipulate.cc`` of TVM 0.25 (constraint IDs
``OP.<op>.C<n>``); the legalizations follow ``legalize_ops/index.py`` / ``manipulate.py`` and the TOPI
kernels (``T_take``, ``T_strided_slice_with_axes``, ``T_gather``, ``T_gather_nd``, ``advanced_index``,
``T_one_hot``).

Indices out of range (OP.INDEX.RANGE): TVM 0.25's kernels read out of bounds for an index outside
``[0, extent)`` (``take`` in the default "fast" mode, ``gather_elements``, ``gather_nd``,
``index_tensor``; a PyTorch ``x[:, -1]`` imports as ``take(mode="fast")`` of -1). The reference raises ``op_runtime`` instead and names the index;
``take`` with ``mode="clip"``/``"wrap"`` clamps/wraps as TVM does, and ``mode="nan"`` gives NaN.

Slicing (OP.strided_slice.*, kernels and rules in :mod:`.index_slice`): Python slicing semantics (negative indices count from the end,
out-of-range bounds clamp). A static extent that TVM 0.25 computes as negative (``x[4:1]`` of a
``(5,)`` tensor gives TVM ``(-3,)``) is clamped to 0; symbolic extents keep TVM's formula and the
reference raises ``op_runtime`` when the formula disagrees with the slice at run time. The legalized
kernels index with the canonicalized (clamped) begin, where TVM's symbolic kernels use the raw begin
and read out of bounds for a negative one.
"""

from __future__ import annotations

from typing import Any, List

import numpy as np

from ..errors import UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import PrimStructInfo, TensorStructInfo
from . import common
from . import te
from . import te_ops
from . import manipulate_util
from .args import OpArgs
from .manipulate import te_broadcast_to
from .opdef import OpDef, arg, attr
from .index_slice import (
    canonicalize_index, check_strided_slice, dyn_slice_infer, dyn_slice_legalize, dyn_slice_ref, slice_length,
    strided_slice_infer, strided_slice_legalize, strided_slice_ref,
)

_I64 = manipulate_util.int64
TAKE_MODES = ("fast", "clip", "wrap", "nan")


def _names(n: int) -> List[str]:
    return [f"ax{k}" for k in range(n)]


def _check_range(call, idx: np.ndarray, extent: int, what: str) -> None:
    """OP.INDEX.RANGE: every index in ``[0, extent)``."""
    if idx.size and (idx.min() < 0 or idx.max() >= extent):
        bad = idx[(idx < 0) | (idx >= extent)].reshape(-1)[0]
        raise manipulate_util.runtime_error(call, f"{what} {int(bad)} is out of range for an axis of extent {extent}")


# ---------------------------------------------------------------------------------------------------
# take
# ---------------------------------------------------------------------------------------------------


def _take_indices_sinfo(call, ctx) -> TensorStructInfo:
    s = common.arg_sinfo(call, 1, ctx)
    if isinstance(s, TensorStructInfo):
        return s
    if isinstance(s, PrimStructInfo):  # a prim index is a 0-d tensor
        return TensorStructInfo(rx.ShapeExpr(()), s.dtype)
    raise common.error(call, "requires the indices argument to be either a tensor or a scalar value. However, "
                             f"it has struct info {common.describe_sinfo(s)}", ctx)


def _take_infer(call, ctx):
    """OP.take.C1-C5 (TVM's ``InferStructInfoTake``)."""
    common.check_num_args(call, 2, ctx)
    data = common.tensor_arg(call, 0, ctx, "x")
    idx = _take_indices_sinfo(call, ctx)  # C1
    if idx.dtype != "void" and not manipulate_util.is_int_or_uint(idx.dtype):  # C2
        raise common.error(call, "Take op requires the input indices to have integer dtype. However, the given "
                                 f"indices dtype is {idx.dtype}", ctx)
    mode = call.attrs.get("mode", "fast")
    if mode not in TAKE_MODES:  # C5 (spec choice: TVM's kernel treats any other string as "wrap")
        raise common.error(call, f"Take op mode must be one of {', '.join(TAKE_MODES)}, got {mode!r}", ctx)
    axis = call.attrs.get("axis")
    if axis is None and data.ndim != 1:  # C3
        raise common.error(call, "Take op expects the input data to be 1-dimensional tensor when the axis is not "
                                 f"specified. However, the given data tensor has ndim {data.ndim}", ctx)
    if data.ndim == -1 or idx.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    a = common.normalize_axis(call, data.ndim, axis, ctx) if axis is not None else 0  # C4
    dv, iv = manipulate_util.shape_expr_values(data), manipulate_util.shape_expr_values(idx)
    if dv is None or iv is None:
        return TensorStructInfo(None, data.dtype, idx.ndim + data.ndim - 1, data.vdevice)
    shape = tuple(dv[:a]) + tuple(iv) + tuple(dv[a + 1:])
    return TensorStructInfo(rx.ShapeExpr(shape), data.dtype, vdevice=data.vdevice)


def _check_nan_mode(mode: str, dtype: str, span) -> None:
    """``mode="nan"`` writes NaN, so it needs a float tensor (OP.take.C6; TVM fails to build the kernel)."""
    if mode == "nan" and not _dt.is_float(dtype):
        raise UnsupportedError(f"relax.take: mode 'nan' needs a float tensor, got {dtype}", span)


def _check_take(args: OpArgs) -> None:
    """The run-time constraints of ``take`` that every evaluator shares (OP.take.C6)."""
    _check_nan_mode(args.attrs.get("mode", "fast"), args.dtype(0), args.span)


def _take_ref(args, attrs, call, ctx):
    x, ind = args[0], manipulate_util.as_array(args[1])
    axis = attrs.get("axis")
    a = 0 if axis is None else axis % x.ndim
    d = x.shape[a]
    mode = attrs.get("mode", "fast")
    ind = ind.astype(np.int64)
    if mode == "fast":
        _check_range(call, ind, d, "index")  # OP.INDEX.RANGE (TVM reads out of bounds)
    elif mode == "clip":
        if d == 0 and ind.size:
            raise manipulate_util.runtime_error(call, "cannot take from an empty axis")
        ind = np.clip(ind, 0, d - 1)
    elif mode == "wrap":
        if d == 0 and ind.size:
            raise manipulate_util.runtime_error(call, "cannot take from an empty axis")
        ind = np.mod(ind, d) if d else ind
    else:  # "nan" (a float tensor: _check_take)
        bad = (ind < 0) | (ind >= d)
        out = np.take(x, np.where(bad, 0, ind) if d else np.zeros_like(ind), axis=a) if d else \
            np.zeros(x.shape[:a] + ind.shape + x.shape[a + 1:], x.dtype)
        mask = np.reshape(bad, (1,) * a + ind.shape + (1,) * (x.ndim - a - 1))
        return manipulate_util.copy_out(np.where(mask, np.array(np.nan, x.dtype), out))
    return manipulate_util.copy_out(np.take(x, ind, axis=a))


def te_take(x: te.Tensor, ind: Any, axis: int, mode: str) -> te.Tensor:
    """TOPI ``take`` with an axis (``T_take``); ``ind`` is a tensor or a scalar expression."""
    ishape = list(ind.shape) if isinstance(ind, te.Tensor) else []
    shape = list(x.shape[:axis]) + ishape + list(x.shape[axis + 1:])
    d = x.shape[axis]
    k = len(ishape)

    def f(*o):
        pos = o[axis:axis + k]
        v = ind(*pos) if isinstance(ind, te.Tensor) else ind
        if mode == "clip":
            v = te_ops.min_(te_ops.max_(v, te_ops.const(0, v.dtype)), te_ops.sub(te_ops.cast(v.dtype, d),
                                                                                 te_ops.const(1, v.dtype)))
        elif mode == "wrap":
            dd = te_ops.cast(v.dtype, d)
            v = te_ops.truncmod(te_ops.add(te_ops.truncmod(v, dd), dd), dd)
        idx = list(o[:axis]) + [v] + list(o[axis + k:])
        if mode == "nan":
            ok = te_ops.logical_and(te_ops.ge(v, te_ops.const(0, v.dtype)), te_ops.lt(v, te_ops.cast(v.dtype, d)))
            return te_ops.if_then_else(ok, x(*idx), te_ops.const(float("nan"), x.dtype))
        return x(*idx)

    return te.compute(shape, f, name="T_take", index_names=_names(len(shape)))


def _take_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    axis = call.attrs.get("axis")
    a = 0 if axis is None else axis % call.args[0].struct_info.ndim
    mode = call.attrs.get("mode", "fast")
    _check_nan_mode(mode, call.args[0].struct_info.dtype, call.span)
    return ctx.call_te(lambda x, i: te_take(x, i, a, mode), call.args[0], call.args[1],
                       primfunc_name_hint="take")


# ---------------------------------------------------------------------------------------------------
# gather_elements / gather_nd
# ---------------------------------------------------------------------------------------------------


def _gather_elements_infer(call, ctx):
    """OP.gather_elements.C1-C4 (TVM's ``InferStructInfoGatherElements``)."""
    common.check_num_args(call, 2, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "GatherElements", "data")
    idx = manipulate_util.tensor_input(call, 1, ctx, "GatherElements", "indices")  # C1
    if idx.dtype != "void" and not manipulate_util.is_int_dtype(idx.dtype):  # C2
        raise common.error(call, "GatherElements requires the input indices to have int64 dtype. However, the "
                                 f"given indices dtype is {idx.dtype}", ctx)
    if data.ndim == -1 or idx.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    axis = call.attrs.get("axis", 0)
    if not -data.ndim <= axis < data.ndim:  # C3
        raise common.error(call, "GatherElements requires axis to be within the input dimension range "
                                 f"[{-data.ndim}, {data.ndim - 1}]. However, the given axis is {axis}", ctx)
    if data.ndim != idx.ndim:  # C4
        raise common.error(call, "GatherElements requires data and indices to have the same rank. However, data "
                                 f"rank is {data.ndim} while indices rank is {idx.ndim}", ctx)
    if idx.shape is not None:
        return TensorStructInfo(idx.shape, data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, idx.ndim, data.vdevice)


def _gather_elements_ref(args, attrs, call, ctx):
    x, ind = args
    a = attrs.get("axis", 0) % x.ndim
    for d in range(x.ndim):
        if d != a and ind.shape[d] > x.shape[d]:
            raise manipulate_util.runtime_error(call,
                                                f"indices of shape {ind.shape} do not fit data of shape {x.shape}")
    _check_range(call, ind.astype(np.int64), x.shape[a], "index")
    sub = x[tuple(slice(0, ind.shape[d]) if d != a else slice(None) for d in range(x.ndim))]
    return manipulate_util.copy_out(np.take_along_axis(sub, ind.astype(np.int64), axis=a))


def _gather_elements_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    a = call.attrs.get("axis", 0) % call.args[0].struct_info.ndim

    return ctx.call_te(lambda x, ind: manipulate_util.te_gather(x, ind, a), call.args[0], call.args[1],
                       primfunc_name_hint="gather_elements")


def _gather_nd_infer(call, ctx):
    """OP.gather_nd.C1-C5 (TVM's ``InferStructInfoGatherND``)."""
    common.check_num_args(call, 2, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "GatherND", "data")
    idx = manipulate_util.tensor_input(call, 1, ctx, "GatherND", "indices")  # C1
    b = call.attrs.get("batch_dims", 0)
    if b < 0:  # C3
        raise common.error(call, f"GatherND batch_dims must be non-negative, got {b}", ctx)
    if idx.dtype not in ("void", "int64"):  # C2
        raise common.error(call, "GatherND requires the input indices to have int64 dtype. However, the given "
                                 f"indices dtype is {idx.dtype}", ctx)
    if data.ndim == -1 or idx.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    if b > data.ndim:
        raise common.error(call, f"GatherND batch_dims must be in range [0, data.ndim]. However, got "
                                 f"batch_dims={b}, data.ndim={data.ndim}", ctx)
    if b > idx.ndim - 1:
        raise common.error(call, f"GatherND batch_dims cannot exceed indices.ndim-1. However, got batch_dims={b}, "
                                 f"indices.ndim={idx.ndim}", ctx)
    iv, dv = manipulate_util.shape_expr_values(idx), manipulate_util.shape_expr_values(data)
    if iv is None or not isinstance(iv[-1], P.IntImm):
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    l = iv[-1].value
    out_ndim = idx.ndim + data.ndim - l - 1 - b
    if dv is None:
        return TensorStructInfo(None, data.dtype, out_ndim, data.vdevice)
    if l > data.ndim - b:  # C4
        raise common.error(call, "GatherND requires the last dimension of indices to be less than or equal to the "
                                 f"rank of data minus batch_dims. However, the given shapes are indices: {iv}, "
                                 f"data: {dv}, with batch_dims={b}", ctx)
    shape = tuple(iv[:-1]) + tuple(dv[b + l:])  # C5
    return TensorStructInfo(rx.ShapeExpr(shape), data.dtype, vdevice=data.vdevice)


def _gather_nd_ref(args, attrs, call, ctx):
    x, ind = args[0], args[1].astype(np.int64)
    b = attrs.get("batch_dims", 0)
    l = ind.shape[-1]
    if l > x.ndim - b or b > ind.ndim - 1:
        raise manipulate_util.runtime_error(call, f"indices of shape {ind.shape} do not fit data of shape {x.shape}")
    if tuple(ind.shape[:b]) != tuple(x.shape[:b]):
        raise manipulate_util.runtime_error(call,
                                            f"batch dims of indices {ind.shape[:b]} and data {x.shape[:b]} differ")
    lead = ind.shape[:-1]
    flat = ind.reshape(int(np.prod(lead, dtype=np.int64)), l)      # -1 is ambiguous when l == 0
    coords = np.unravel_index(np.arange(flat.shape[0]), lead) if lead else ()
    key = []
    for k in range(b):
        key.append(coords[k])
    for j in range(l):
        _check_range(call, flat[:, j], x.shape[b + j], "index")
        key.append(flat[:, j])
    out = x[tuple(key)] if key else np.broadcast_to(x, (flat.shape[0],) + x.shape)
    return manipulate_util.copy_out(np.reshape(out, tuple(lead) + tuple(x.shape[b + l:])))


def _gather_nd_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    b = call.attrs.get("batch_dims", 0)

    def fte(x, ind):
        k = len(ind.shape) - 1
        l = ind.shape[-1].value
        shape = list(ind.shape[:-1]) + list(x.shape[b + l:])

        def f(*o):
            idx = list(o[:b]) + [ind(*(list(o[:k]) + [_I64(j)])) for j in range(l)] + list(o[k:])
            return x(*idx)

        return te.compute(shape, f, name="T_gather_nd", index_names=_names(len(shape)))

    return ctx.call_te(fte, call.args[0], call.args[1], primfunc_name_hint="gather_nd")


# ---------------------------------------------------------------------------------------------------
# index_tensor
# ---------------------------------------------------------------------------------------------------


def _index_tensor_infer(call, ctx):
    """OP.index_tensor.C1-C5 (TVM's ``InferStructInfoIndexTensor``)."""
    if len(call.args) != 2:
        raise common.error(call, "Index.Tensor op should have 2 arguments", ctx)
    data = common.tensor_arg(call, 0, ctx, "data")
    idx = manipulate_util.tuple_tensor_fields(call, 1, ctx)  # C1
    if not idx:
        raise common.error(call, "index_tensor expects a non-empty tuple of index tensors", ctx)
    for i, s in enumerate(idx):  # C2
        if s.dtype != "void" and not manipulate_util.is_int_dtype(s.dtype):
            raise common.error(call, "index_tensor requires every index tensor to have an integer dtype; index "
                                     f"{i} has dtype {s.dtype}", ctx)
    if data.ndim != -1 and len(idx) > data.ndim:  # C3
        raise common.error(call, f"index_tensor received {len(idx)} index tensors, but data has only {data.ndim} "
                                 "dimensions", ctx)
    shapes, all_known, max_nd = [], True, 0
    for s in idx:
        v = manipulate_util.shape_expr_values(s)
        if v is None:
            all_known = False
        else:
            shapes.append(v)
            max_nd = max(max_nd, len(v))
        if s.ndim != -1:
            max_nd = max(max_nd, s.ndim)
    bshape = None
    unknown = not all_known
    if all_known:  # C4: numpy broadcasting of the index shapes
        out = [_I64(1)] * max_nd
        for v in shapes:
            for ax in range(max_nd):
                li, ri = max_nd - 1 - ax, len(v) - 1 - ax
                if ri < 0:
                    break
                lhs, rhs = out[li], v[ri]
                if isinstance(lhs, P.IntImm) and lhs.value == 1:
                    out[li] = rhs
                    continue
                if isinstance(rhs, P.IntImm) and rhs.value == 1:
                    continue
                if isinstance(lhs, P.IntImm) and isinstance(rhs, P.IntImm) and lhs.value != rhs.value:
                    raise common.error(call, f"index_tensor: cannot broadcast index shapes. Mismatch at axis {li}: "
                                             f"{lhs} vs {rhs}", ctx)
                if not common.prove_equal(ctx, lhs, rhs):
                    unknown = True
                    break
            if unknown:
                break
        if not unknown:
            bshape = out
    out_ndim = -1
    if data.ndim != -1:
        tail = data.ndim - len(idx)
        if bshape is not None:
            out_ndim = len(bshape) + tail
        elif not unknown:
            out_ndim = max_nd + tail
    if bshape is not None:
        dv = manipulate_util.shape_expr_values(data)
        if dv is not None:  # C5
            return TensorStructInfo(rx.ShapeExpr(tuple(bshape) + tuple(dv[len(idx):])), data.dtype,
                                    vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, out_ndim, data.vdevice)


def _index_tensor_ref(args, attrs, call, ctx):
    x = args[0]
    ind = [np.asarray(i).astype(np.int64) for i in args[1]]
    try:
        ind = np.broadcast_arrays(*ind)
    except ValueError:
        raise manipulate_util.runtime_error(call, "the index tensors cannot be broadcast together") from None
    for k, i in enumerate(ind):
        _check_range(call, i, x.shape[k], f"index (tensor {k})")
    return manipulate_util.copy_out(x[tuple(ind)])


def _index_tensor_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    fields = manipulate_util.tuple_fields(call.args[1])
    bshape = list(call.struct_info.shape.values[:call.struct_info.ndim - (call.args[0].struct_info.ndim
                                                                            - len(fields))])

    def fte(x, *rest):
        n = len(fields)
        inds, bs = rest[:n], rest[n:]
        if n > 1:
            inds = [te_broadcast_to(i, bs) for i in inds]
        shape = list(bs) + list(x.shape[n:])

        def f(*o):
            pos = o[:len(bs)]
            return x(*([i(*pos) for i in inds] + list(o[len(bs):])))

        return te.compute(shape, f, name="advanced_index", index_names=_names(len(shape)))

    return ctx.call_te(fte, call.args[0], *fields, *bshape, primfunc_name_hint="index_tensor")


# ---------------------------------------------------------------------------------------------------
# one_hot
# ---------------------------------------------------------------------------------------------------


def _one_hot_infer(call, ctx):
    """OP.one_hot.C1-C5 (TVM's ``InferStructInfoOneHot``)."""
    common.check_num_args(call, 3, ctx)
    idx = common.tensor_arg(call, 0, ctx, "indices")
    on = common.prim_value_arg(call, 1, ctx, "on_value")  # C1
    off = common.prim_value_arg(call, 2, ctx, "off_value")
    if on.value.dtype != off.value.dtype:  # C2
        raise common.error(call, "one_hot: on_value and off_value must have the same dtype, but got "
                                 f"{on.value.dtype} and {off.value.dtype}", ctx)
    depth = call.attrs["depth"]
    if depth <= 0:  # C3
        raise common.error(call, f"one_hot: depth must be positive, but got {depth}", ctx)
    dtype = on.value.dtype
    if idx.dtype != "void" and not manipulate_util.is_int_or_uint(idx.dtype):  # C4
        raise common.error(call, "one_hot op requires the input indices to have integer dtype. However, the given "
                                 f"indices dtype is {idx.dtype}", ctx)
    if idx.ndim == -1:
        return TensorStructInfo(None, dtype, -1, idx.vdevice)
    vals = manipulate_util.shape_expr_values(idx)
    if vals is None:
        return TensorStructInfo(None, dtype, idx.ndim + 1, idx.vdevice)
    axis = call.attrs.get("axis", -1)
    if axis < 0:
        axis += len(vals) + 1
    if not 0 <= axis <= len(vals):  # C5
        raise common.error(call, f"one_hot: axis must be in the range of [0, {len(vals)}], but got "
                                 f"{call.attrs.get('axis', -1)}", ctx)
    shape = list(vals)
    shape.insert(axis, _I64(depth))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=idx.vdevice)


def _one_hot_ref(args, attrs, call, ctx):
    ind, on, off = np.asarray(args[0]).astype(np.int64), args[1], args[2]
    depth = attrs["depth"]
    axis = attrs.get("axis", -1)
    axis = axis + ind.ndim + 1 if axis < 0 else axis
    np_dt = _dt.to_numpy(on.dtype)
    if ind.size == 0:
        # an empty result (the depth may be near 2**63: no arange of it)
        return np.zeros(ind.shape[:axis] + (depth,) + ind.shape[axis:], np_dt)
    hot = np.expand_dims(ind, axis) == np.reshape(np.arange(depth), (1,) * axis + (depth,)
                                                  + (1,) * (ind.ndim - axis))
    return manipulate_util.copy_out(np.where(hot, np.array(on.value).astype(np_dt), np.array(off.value).astype(np_dt)))


def _one_hot_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    depth = call.attrs["depth"]
    axis = call.attrs.get("axis", -1)
    on, off = call.args[1].value, call.args[2].value

    def fte(ind, on, off):
        true_axis = len(ind.shape) if axis == -1 else (axis + len(ind.shape) + 1 if axis < 0 else axis)
        shape = list(ind.shape)
        shape.insert(true_axis, _I64(depth))

        def f(*o):
            pos = [v for k, v in enumerate(o) if k != true_axis]
            return te_ops.select(te_ops.eq(ind(*pos), te_ops.cast(ind.dtype, o[true_axis])), on, off)

        return te.compute(shape, f, name="T_one_hot", index_names=_names(len(shape)))

    return ctx.call_te(fte, call.args[0], on, off, primfunc_name_hint="one_hot")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    def reg(name, params, infer, ref, legalize, doc, **kw):
        OPS.append(OpDef(name=f"relax.{name}", script=f"R.{name}", params=params, infer=infer, reference=ref,
                       legalize=legalize, category="indexing", doc=doc, **kw))

    reg("take", (arg("x"), arg("indices"), attr("axis", "optional_int", None), attr("mode", "str", "fast")),
        _take_infer, _take_ref, _take_legalize,
        "``R.take(x, indices, axis=None, mode='fast')``: select along an axis (OP.take.C1).", check=_check_take)
    reg("strided_slice", (arg("x"), arg("axes", "prim_tuple"), arg("begin", "prim_tuple"),
                          arg("end", "prim_tuple"), arg("strides", "prim_tuple", None),
                          attr("assume_inbound", "bool", False)),
        strided_slice_infer, strided_slice_ref, strided_slice_legalize,
        "``R.strided_slice(x, axes, begin, end, strides=None, assume_inbound=False)``: Python slicing "
        "(OP.strided_slice.C1).", check=check_strided_slice)
    reg("dynamic_strided_slice", (arg("x"), arg("begin"), arg("end"), arg("strides")), dyn_slice_infer,
        dyn_slice_ref, dyn_slice_legalize,
        "``R.dynamic_strided_slice(x, begin, end, strides)``: slicing with tensor bounds "
        "(OP.dynamic_strided_slice.C1).", data_dependent=True)
    reg("gather_elements", (arg("data"), arg("indices"), attr("axis", "int", 0)), _gather_elements_infer,
        _gather_elements_ref, _gather_elements_legalize,
        "``R.gather_elements(data, indices, axis=0)``: take_along_axis (OP.gather_elements.C1).")
    reg("gather_nd", (arg("data"), arg("indices"), attr("batch_dims", "int", 0)), _gather_nd_infer,
        _gather_nd_ref, _gather_nd_legalize,
        "``R.gather_nd(data, indices, batch_dims=0)``: gather index tuples (OP.gather_nd.C1).")
    reg("index_tensor", (arg("data"), arg("indices", "tuple")), _index_tensor_infer, _index_tensor_ref,
        _index_tensor_legalize, "``R.index_tensor(data, indices)``: advanced indexing (OP.index_tensor.C1).")
    reg("one_hot", (arg("indices"), arg("on_value", "prim"), arg("off_value", "prim"), attr("depth", "int"),
                    attr("axis", "int", -1)), _one_hot_infer, _one_hot_ref, _one_hot_legalize,
        "``R.one_hot(indices, on_value, off_value, depth, axis=-1)``: one-hot encoding (OP.one_hot.C1).")


_define_all()

INDEX_OPS = ("take", "strided_slice", "dynamic_strided_slice", "gather_elements", "gather_nd", "index_tensor",
             "one_hot")

__all__ = ["INDEX_OPS", "TAKE_MODES", "canonicalize_index", "slice_length", "te_take"]

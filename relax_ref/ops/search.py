"""Search, sort and set operators: ``argmax argmin sort argsort topk bucketize nonzero unique``
(spec pages ``spec/ops/<op>.md``).

Inference follows TVM 0.25 (``search.cc``, ``sorting.cc``, ``set.cc``), except that relax-ref rejects
an ``axis`` outside ``[-ndim, ndim)`` of ``sort``/``argsort``/``topk`` when the rank is known (TVM
does not check it and crashes later: OP.SEARCH.DIV.1). Semantics (OP.SEARCH.SEM.*):

1. ``argmax``/``argmin`` fold the elements in row-major order of the reduced axes with TVM's
   combiner: the index moves to element ``k`` unless the accumulated value is strictly larger
   (smaller) than ``x[k]``, or equal with a smaller index. The first index wins ties; a NaN is taken
   when met and kept only until the next element (so a NaN is the answer only when it is the last
   element, or when everything after it is NaN). The result is int64. An empty reduction is an
   OpRuntimeError (TVM returns uninitialized memory); the legalized kernel asserts it.
2. ``sort``/``argsort``/``topk`` order stably along ``axis``: equal elements keep their input order
   in both directions, NaN counts as larger than every number (OP.SEARCH.KERNEL.2). TVM 0.25's CPU
   kernel is ``std::stable_sort`` with ``<``/``>``, whose placement of NaNs depends on the algorithm.
3. ``topk`` returns the first ``k`` elements of that order (``largest``: descending), ``k < 1`` or
   ``k`` at least the (static) axis length meaning the whole axis; when the axis length is symbolic
   the result has ``k`` elements and a shorter axis is an OpRuntimeError (TVM reads out of bounds).
4. ``bucketize`` is TVM's binary search (``lo = 0, hi = n``; ``mid = lo + (hi - lo) // 2``; go right
   while ``boundaries[mid] < v``, ``<=`` with ``right``), comparing in the TIR-matched dtype; a NaN
   value gives 0. The result dtype is int64, or int32 with ``out_int32`` (TVM's legalization passes
   the input dtype instead and fails to build for floats: DIV.23).
5. ``nonzero`` returns the int64 ``(ndim, count)`` coordinates in row-major order (a 0-d input
   counts as 1-d). ``unique`` follows numpy's ``unique`` (NaNs collapse), with TVM's handling of
   ``sorted=False`` (order of first occurrence) and a 1-d inverse. Both are data dependent and
   legalize to TVM's packed functions ``relax.run.nonzero`` / ``relax.run.unique``.
6. No TVM kernel (UnsupportedError): ``argmax``/``argmin``/``sort``/``argsort``/``topk`` of bool.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ..errors import OpRuntimeError, ParseError
from ..values import PrimScalar
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import te
from . import te_ops
from . import tir_kernels
from .args import OpArgs
from .checks import element_count, no_kernel, reduce_axes
from .opdef import OpDef, arg, attr
from .statistical import (
    _rows, dtype_of, known_shapes, np_dtype, reduce_axes_of, reduce_source, reduced_shape, reduced_te_shape, sort_order,
    tir_cast, unsupported,
)

# ---------------------------------------------------------------------------------------------------
# argmax / argmin
# ---------------------------------------------------------------------------------------------------


def _infer_arg_extreme(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.argmax.C1 (TVM's ``InferStructInfoArgmaxArgmin``): one tensor; ``axis`` (an int or None)
    normalized; the axis (all axes for None) removed or kept as 1 with ``keepdims``; int64 result --
    with a ShapeExpr of rank > 0 the dtype of its first dim, as TVM."""
    x = common.tensor_args(call, 1, ctx)[0]
    axis = call.attrs.get("axis")
    keepdims = bool(call.attrs.get("keepdims", False))
    ax = -1
    if x.ndim != -1 and axis is not None:
        ax = common.normalize_axis(call, x.ndim, int(axis), ctx)
    out_ndim = common.reduced_ndim(x.ndim, axis is not None, 1, keepdims)
    out_dt = "int64"
    if not isinstance(x.shape, rx.ShapeExpr):
        if axis is None and keepdims and out_ndim != -1:
            return TensorStructInfo(common.ones_shape(call, out_ndim, out_dt, ctx), out_dt, vdevice=x.vdevice)
        if out_ndim == 0:
            return TensorStructInfo(rx.ShapeExpr(()), out_dt, vdevice=x.vdevice)
        return TensorStructInfo(None, out_dt, out_ndim, x.vdevice)
    shape = x.shape.values
    if x.ndim > 0:
        out_dt = shape[0].dtype
    out = []
    for i in range(x.ndim):
        if axis is not None and i != ax:
            out.append(shape[i])
        elif keepdims:
            out.append(P.IntImm(1, out_dt))
    return TensorStructInfo(rx.ShapeExpr(tuple(out)), out_dt, vdevice=x.vdevice)


def _make_ref_arg_extreme(is_max: bool):
    def ref(args, attrs, call, ctx):
        x = args[0]
        dt = dtype_of(x)
        axis = attrs.get("axis")
        axes = reduce_axes_of(None if axis is None else [int(axis)], x.ndim)
        rows = _rows(x, axes)
        n = rows.shape[-1]
        idx = np.full(rows.shape[:-1], -1, dtype=np.int64)
        val = np.full(rows.shape[:-1], _dt.min_value(dt) if is_max else _dt.max_value(dt), dtype=x.dtype)
        for k in range(n):
            v = rows[..., k]
            better = val > v if is_max else val < v
            keep = better | ((val == v) & (idx < k))
            idx = np.where(keep, idx, np.int64(k))
            val = np.where(better, val, v).astype(x.dtype)
        out_dt = call.struct_info.dtype if isinstance(call.struct_info, TensorStructInfo) else "int64"
        return idx.reshape(reduced_shape(x.shape, axes, bool(attrs.get("keepdims")))).astype(np_dtype(out_dt))
    return ref


def _with_assert(func: tir.PrimFunc, cond: P.PrimExpr, message: str) -> tir.PrimFunc:
    """Prefix the body of the root block of a TE-built PrimFunc with ``assert cond, message`` (the flat
    assertion of TVM 0.25)."""
    from dataclasses import replace

    realize = func.body
    root = realize.block
    new_root = replace(root, body=tir.SeqStmt((tir.AssertStmt(cond, message, None), root.body)))
    return replace(func, body=replace(realize, block=new_root))


def _make_legalize_arg_extreme(is_max: bool):
    name = "argmax" if is_max else "argmin"

    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        xs = call.args[0].struct_info
        if xs.dtype == "bool":
            raise unsupported(call, f"{name} of a bool tensor")
        axis = call.attrs.get("axis")
        keepdims = bool(call.attrs.get("keepdims"))
        axes = reduce_axes_of(None if axis is None else [int(axis)], xs.ndim)
        out_dt = call.struct_info.dtype
        holder = {}

        def fcombine(lhs, rhs):
            li, lv = lhs
            ri, rv = rhs
            better = te_ops.gt(lv, rv) if is_max else te_ops.lt(lv, rv)
            upd = te_ops.logical_or(better, te_ops.logical_and(te_ops.eq(lv, rv), te_ops.lt(li, ri)))
            return te_ops.select(upd, li, ri), te_ops.select(better, lv, rv)

        def fidentity(ti, tv):
            return te_ops.const(-1, ti), (te_ops.min_value(tv) if is_max else te_ops.max_value(tv))

        reducer = te.comm_reducer(fcombine, fidentity, name=f"{name}_reducer")

        def fte(x):
            out_shape = reduced_te_shape(x, axes, keepdims)
            names = [f"ax{i}" for i in range(len(out_shape))]
            exts = [x.shape[a] for a in axes]
            holder["count"] = common.shape_product(exts)
            if not axes:
                return te.compute(out_shape, lambda *i: te_ops.const(0, out_dt), name=f"{x.name}_red",
                                  index_names=names)

            def f(*idx):
                rax, src = reduce_source(x, axes, keepdims, idx)
                flat: P.PrimExpr = P.IntImm(0, "int64")
                for a in axes:
                    flat = te_ops.add(te_ops.mul(flat, x.shape[a]), rax[a].var)
                return reducer((flat, x(*src)), axis=[rax[a] for a in axes])

            temp = te.compute(out_shape, f, name=f"{x.name}_red_temp", index_names=names)
            return te.compute(out_shape, lambda *i: te_ops.cast(out_dt, temp[0](*i)), name=f"{x.name}_red",
                              index_names=names)

        from .te_bridge import gen_call_tir_inputs

        pieces = gen_call_tir_inputs(fte, [call.args[0]])
        func = pieces.func
        count = holder["count"]
        if not (isinstance(count, P.IntImm) and count.value > 0):
            kcount = _kernel_count(func, len(xs.shape.values), axes)
            func = _with_assert(func, te_ops.lt(P.IntImm(0, "int64"), kcount), f"{name}: the reduced axis is empty")
        gv = ctx.add_prim_func(func, name)
        return ctx.call_tir(gv, pieces.args, pieces.out_sinfo, pieces.tir_vars)
    return legalize


def _kernel_count(func: tir.PrimFunc, ndim: int, axes: Sequence[int]) -> P.PrimExpr:
    """The number of reduced elements in terms of the kernel's own input buffer."""
    buf = func.buffer_map[0][1]
    return common.shape_product([buf.shape[a] for a in axes])


# ---------------------------------------------------------------------------------------------------
# sort / argsort / topk
# ---------------------------------------------------------------------------------------------------


def _check_sort_axis(call, ctx, x: TensorStructInfo) -> None:
    if x.ndim != -1:
        common.normalize_axis(call, x.ndim, int(call.attrs.get("axis", -1)), ctx)


def _infer_sort(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.sort.C1: the input struct info (TVM's ``InferStructInfoSort``); a known rank must contain
    ``axis`` (OP.SEARCH.DIV.1)."""
    x = common.tensor_args(call, 1, ctx)[0]
    _check_sort_axis(call, ctx, x)
    return x


def _infer_argsort(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.argsort.C1: the input shape with dtype ``dtype`` (the input's for void)."""
    x = common.tensor_args(call, 1, ctx)[0]
    _check_sort_axis(call, ctx, x)
    dt = call.attrs.get("dtype") or "void"
    out = x.dtype if dt == "void" else dt
    if x.shape is not None:
        return TensorStructInfo(x.shape, out, vdevice=x.vdevice)
    return TensorStructInfo(None, out, x.ndim, x.vdevice)


_RET_TYPES = ("both", "values", "indices")


def _infer_topk(call: rx.Call, ctx: Any):
    """OP.topk.C1 (TVM's ``InferStructInfoTopK``): values keep the input dtype, indices have
    ``dtype``; along ``axis`` the length is ``k`` when ``k > 0`` and the dim is symbolic or larger
    than ``k``; ``ret_type`` selects the tuple or one of its fields."""
    x = common.tensor_args(call, 1, ctx)[0]
    _check_sort_axis(call, ctx, x)
    ret = call.attrs.get("ret_type", "both")
    if ret not in _RET_TYPES:
        raise common.error(call, f"unsupported ret_type {ret!r}; expected one of {', '.join(_RET_TYPES)}", ctx)
    dt = call.attrs.get("dtype") or "void"
    idt = x.dtype if dt == "void" else dt
    k = int(call.attrs.get("k", 1))
    if not isinstance(x.shape, rx.ShapeExpr):
        outs = (TensorStructInfo(None, x.dtype, x.ndim, x.vdevice), TensorStructInfo(None, idt, x.ndim, x.vdevice))
    else:
        axis = int(call.attrs.get("axis", -1)) % x.ndim
        shape = list(x.shape.values)
        d = shape[axis]
        if k > 0 and (not isinstance(d, P.IntImm) or k < d.value):
            shape[axis] = P.IntImm(k, "int64")
        outs = (TensorStructInfo(rx.ShapeExpr(tuple(shape)), x.dtype, vdevice=x.vdevice),
                TensorStructInfo(rx.ShapeExpr(tuple(shape)), idt, vdevice=x.vdevice))
    if ret == "both":
        return TupleStructInfo(outs)
    return outs[0] if ret == "values" else outs[1]


def _sorted_along(call, x: np.ndarray, axis: int, descending: bool):
    ax = axis % x.ndim
    moved = np.moveaxis(x, ax, -1)
    order = sort_order(moved, descending)
    vals = np.take_along_axis(moved, order, axis=-1)
    return np.moveaxis(vals, -1, ax), np.moveaxis(order, -1, ax), ax


def _ref_sort(args, attrs, call, ctx):
    x = args[0]
    vals, _, _ = _sorted_along(call, x, int(attrs.get("axis", -1)), bool(attrs.get("descending")))
    return np.ascontiguousarray(vals)


def _ref_argsort(args, attrs, call, ctx):
    x = args[0]
    _, order, _ = _sorted_along(call, x, int(attrs.get("axis", -1)), bool(attrs.get("descending")))
    return np.ascontiguousarray(order).astype(np_dtype(call.struct_info.dtype))


def _topk_len(call, x: np.ndarray, ax: int) -> int:
    """OP.topk.C2: the number of elements kept along the axis (``k`` fits: :func:`_check_topk`)."""
    k = int(call.attrs.get("k", 1))
    n = x.shape[ax]
    xs = call.args[0].struct_info
    static = isinstance(xs, TensorStructInfo) and isinstance(xs.shape, rx.ShapeExpr) and \
        isinstance(xs.shape.values[ax], P.IntImm)
    if k < 1 or (static and k >= n):
        return n
    return k


def _ref_topk(args, attrs, call, ctx):
    x = args[0]
    vals, order, ax = _sorted_along(call, x, int(attrs.get("axis", -1)), bool(attrs.get("largest", True)))
    kk = _topk_len(call, x, ax)
    v = np.ascontiguousarray(np.take(vals, np.arange(kk), axis=ax))
    dt = call.attrs.get("dtype") or "void"
    idt = dtype_of(x) if dt == "void" else dt
    i = np.ascontiguousarray(np.take(order, np.arange(kk), axis=ax)).astype(np_dtype(idt))
    ret = attrs.get("ret_type", "both")
    if ret == "values":
        return v
    if ret == "indices":
        return i
    return v, i


def _legalize_sort_family(kind: str):
    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        xs = call.args[0].struct_info
        if xs.dtype == "bool":
            raise unsupported(call, f"{kind} of a bool tensor")
        ndim = xs.ndim
        if ndim == 0:
            raise unsupported(call, f"{kind} of a 0-d tensor")
        axis = int(call.attrs.get("axis", -1)) % ndim
        kb = tir_kernels.KernelBuilder()
        x = kb.input(call.args[0], "data")
        allocs = []
        if kind == "sort":
            vals = kb.output(x.shape, xs.dtype, "out")
            idx = tir.Buffer("sort_index", x.shape, "int64")
            allocs.append(idx)
            body = tir_kernels.sort_rows_kernel(x, vals, idx, axis, bool(call.attrs.get("descending")), lambda lv: None)
            return kb.call(ctx, body, "sort", allocs)
        if kind == "argsort":
            vals = tir.Buffer("sorted_values", x.shape, xs.dtype)
            allocs.append(vals)
            idx = kb.output(x.shape, call.struct_info.dtype, "out")
            body = tir_kernels.sort_rows_kernel(x, vals, idx, axis, bool(call.attrs.get("descending")), lambda lv: None)
            return kb.call(ctx, body, "argsort", allocs)
        # topk
        ret = call.attrs.get("ret_type", "both")
        sinfos = call.struct_info.fields if isinstance(call.struct_info, TupleStructInfo) else \
            ((call.struct_info, None) if ret == "values" else (None, call.struct_info))
        ref_sinfo = sinfos[0] if sinfos[0] is not None else sinfos[1]
        kk = kb.local(ref_sinfo.shape.values[axis])
        out_shape = list(x.shape)
        out_shape[axis] = kk
        idt = sinfos[1].dtype if sinfos[1] is not None else "int64"
        vals = tir.Buffer("sorted_values", x.shape, xs.dtype)
        idx = tir.Buffer("sorted_index", x.shape, idt)
        allocs += [vals, idx]
        vo = kb.output(out_shape, xs.dtype, "values") if ret in ("both", "values") else None
        io = kb.output(out_shape, idt, "indices") if ret in ("both", "indices") else None

        def emit(lv):
            def copy(jv):
                at = tuple(lv[:axis]) + (jv[0],) + tuple(lv[axis:])
                st = []
                if vo is not None:
                    st.append(tir.BufferStore(vo, tir.BufferLoad(vals, at), at))
                if io is not None:
                    st.append(tir.BufferStore(io, tir.BufferLoad(idx, at), at))
                return tir_kernels.seq(*st)
            return tir_kernels.loop_nest([kk], ["j"], copy)

        body = tir_kernels.sort_rows_kernel(x, vals, idx, axis, bool(call.attrs.get("largest", True)), emit)
        return kb.call(ctx, body, "topk", allocs)
    return legalize


# ---------------------------------------------------------------------------------------------------
# bucketize
# ---------------------------------------------------------------------------------------------------


def _infer_bucketize(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.bucketize.C1: two tensors; ``boundaries`` must be 1-d when its rank is known; the result
    has the shape of ``input_tensor`` and dtype int64 (int32 with ``out_int32``)."""
    x, b = common.tensor_args(call, 2, ctx, ("input_tensor", "boundaries"))
    if b.ndim not in (-1, 1):
        raise common.error(call, f"bucketize requires boundaries to be a 1-D tensor, but got one of rank {b.ndim}", ctx)
    out = "int32" if call.attrs.get("out_int32") else "int64"
    if isinstance(x.shape, rx.ShapeExpr):
        return TensorStructInfo(rx.ShapeExpr(x.shape.values), out, vdevice=x.vdevice)
    return TensorStructInfo(None, out, x.ndim, x.vdevice)


def _matched(da: str, db: str) -> str:
    from .elementwise import matched_dtype

    return matched_dtype(da, db)


def _ref_bucketize(args, attrs, call, ctx):
    x, b = args
    dt = _matched(dtype_of(b), dtype_of(x))
    seq = tir_cast(b, dtype_of(b), dt)
    vals = tir_cast(x, dtype_of(x), dt)
    right = bool(attrs.get("right"))
    n = seq.shape[0]
    lo = np.zeros(vals.shape, np.int64)
    hi = np.full(vals.shape, n, np.int64)
    while True:
        active = lo < hi
        if not np.any(active):
            break
        mid = lo + ((hi - lo) >> 1)
        cur = seq[np.where(active, mid, 0)] if n else np.zeros(vals.shape, seq.dtype)
        go = (cur <= vals) if right else (cur < vals)
        lo = np.where(active & go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)
    return lo.astype(np_dtype(call.struct_info.dtype))


def _legalize_bucketize(call, ctx):
    """TVM's binary search kernel, per element, with ``lo``/``hi`` in 1-element local buffers."""
    if not known_shapes(call):
        return None
    out_dt = call.struct_info.dtype
    kb = tir_kernels.KernelBuilder()
    x = kb.input(call.args[0], "input_tensor")
    b = kb.input(call.args[1], "boundaries")
    out = kb.output(x.shape, out_dt, "out")
    lo = tir.Buffer("lo", (tir_kernels.i64(1),), out_dt, scope="local")
    hi = tir.Buffer("hi", (tir_kernels.i64(1),), out_dt, scope="local")
    zero = (tir_kernels.i64(0),)
    right = bool(call.attrs.get("right"))

    def body(lv):
        lo_v, hi_v = tir.BufferLoad(lo, zero), tir.BufferLoad(hi, zero)
        mid = te_ops.add(lo_v, te_ops.shift_right(te_ops.sub(hi_v, lo_v), te_ops.const(1, out_dt)))
        cur = tir.BufferLoad(b, (te_ops.cast("int64", mid),))
        v = tir.BufferLoad(x, tuple(lv))
        cond = te_ops.le(cur, v) if right else te_ops.lt(cur, v)
        step = tir.IfThenElse(cond, tir.BufferStore(lo, te_ops.add(mid, te_ops.const(1, out_dt)), zero),
                              tir.BufferStore(hi, mid, zero))
        return tir_kernels.seq(tir.BufferStore(lo, te_ops.const(0, out_dt), zero),
                               tir.BufferStore(hi, te_ops.cast(out_dt, b.shape[0]), zero),
                               tir.While(te_ops.lt(lo_v, hi_v), step),
                               tir.BufferStore(out, tir.BufferLoad(lo, zero), tuple(lv)))

    stmt = tir_kernels.loop_nest(list(x.shape), [f"i{k}" for k in range(len(x.shape))], body)
    return kb.call(ctx, stmt, "bucketize", allocs=(lo, hi))


# ---------------------------------------------------------------------------------------------------
# nonzero / unique (data dependent)
# ---------------------------------------------------------------------------------------------------


def _infer_nonzero(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.nonzero.C1: one tensor; ``R.Tensor(ndim=2, dtype="int64")``."""
    x = common.tensor_args(call, 1, ctx)[0]
    return TensorStructInfo(None, "int64", 2, x.vdevice)


def nonzero_values(x: np.ndarray) -> np.ndarray:
    """OP.nonzero.C2: the int64 ``(ndim, count)`` coordinates of the non-zero elements."""
    return np.stack(np.atleast_1d(x).nonzero(), axis=0).astype(np.int64)


def _ref_nonzero(args, attrs, call, ctx):
    return nonzero_values(args[0])


_UNIQUE_FLAGS = ("sorted", "return_index", "return_inverse", "return_counts")


def _flag_value(call, i: int, ctx, name: str) -> int:
    a = call.args[i]
    if not isinstance(a, rx.PrimValue) or not isinstance(a.value, P.IntImm):
        raise common.error(call, f"the argument '{name}' must be a PrimValue holding an integer constant", ctx)
    return int(a.value.value)


def _infer_unique(call: rx.Call, ctx: Any):
    """OP.unique.C1 (TVM's ``InferStructInfoUnique``): ``x`` a tensor; ``sorted`` and an optional
    ``axis`` integer prim values (OP.INFER.3); ``return_index``, ``return_inverse``, ``return_counts``
    integer PrimValue constants; a constant ``axis`` must be in range. The unique values are 1-d (same rank with ``axis``; shape ``(1,)`` for a 0-d
    input); each requested extra output is an int64 1-d tensor (``(1,)`` for a 0-d input)."""
    if len(call.args) not in (5, 6):
        raise common.error(call, f"the operator expects 5 or 6 arguments, but was called with {len(call.args)}", ctx)
    x = common.tensor_arg(call, 0, ctx, "x")
    common.prim_arg(call, 1, ctx, "sorted", integer=True)
    axis_given = len(call.args) == 6
    if axis_given:
        common.prim_arg(call, 5, ctx, "axis", integer=True)
        a = call.args[5]
        if x.ndim != -1 and isinstance(a, rx.PrimValue) and isinstance(a.value, P.IntImm):
            common.normalize_axis(call, x.ndim, int(a.value.value), ctx)
    flags = [_flag_value(call, i, ctx, n) for i, n in zip((2, 3, 4), _UNIQUE_FLAGS[1:])]
    one = rx.ShapeExpr((P.IntImm(1, "int64"),))
    vd = x.vdevice
    if x.ndim == 0:
        outs = [TensorStructInfo(one, x.dtype, vdevice=vd)]
    elif axis_given:
        outs = [TensorStructInfo(None, x.dtype, x.ndim, vd)]
    else:
        outs = [TensorStructInfo(None, x.dtype, 1, vd)]
    for f in flags:
        if f:
            outs.append(TensorStructInfo(one, "int64", vdevice=vd) if x.ndim == 0
                        else TensorStructInfo(None, "int64", 1, vd))
    return outs[0] if len(outs) == 1 else TupleStructInfo(tuple(outs))


def unique_values(x: np.ndarray, is_sorted: bool, ret_index: bool, ret_inverse: bool, ret_counts: bool,
                  axis: Optional[int]):
    """OP.unique.C2: numpy's ``unique`` (first-occurrence order when not sorted), the inverse 1-d."""
    if axis is not None:
        axis = axis % max(x.ndim, 1)
    data = np.atleast_1d(x)
    vals, first, inverse, counts = np.unique(data, return_index=True, return_inverse=True, return_counts=True,
                                             axis=axis)
    inverse = np.asarray(inverse).reshape(-1)
    if not is_sorted:
        perm = np.argsort(first, kind="stable")
        vals = np.take(vals, perm, axis=0 if axis is None else axis)
        first = first[perm]
        counts = counts[perm]
        rank = np.empty_like(perm)
        rank[perm] = np.arange(len(perm))
        inverse = rank[inverse]
    out = [np.ascontiguousarray(vals)]
    if ret_index:
        out.append(np.asarray(first, dtype=np.int64))
    if ret_inverse:
        out.append(np.asarray(inverse, dtype=np.int64))
    if ret_counts:
        out.append(np.asarray(counts, dtype=np.int64))
    return out[0] if len(out) == 1 else tuple(out)


def _prim_int(v: Any) -> int:
    if isinstance(v, PrimScalar):
        return int(v.value)
    return int(v)


def _ref_unique(args, attrs, call, ctx):
    x = args[0]
    flags = [_prim_int(v) for v in args[1:5]]
    axis = _prim_int(args[5]) if len(args) == 6 and args[5] is not None else None
    return unique_values(x, *[bool(f) for f in flags], axis)


def _packed_unique(x, is_sorted, ret_index, ret_inverse, ret_counts, axis=None):
    return unique_values(np.asarray(x), bool(is_sorted), bool(ret_index), bool(ret_inverse), bool(ret_counts),
                         None if axis is None else int(axis))


def _unique_parse_call(opdef, args, kwargs, span):
    """``R.unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
    axis=None)``: Python bools and ints become int64 PrimValues (as TVM's Python API builds them);
    ``axis=None`` leaves the sixth argument out."""
    names = [p.name for p in opdef.params]
    if len(args) > len(names):
        raise ParseError(f"R.unique takes at most {len(names)} arguments, got {len(args)}", span)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise ParseError(f"R.unique got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise ParseError(f"R.unique got multiple values for argument '{k}'", span)
        bound[k] = v
    if "x" not in bound:
        raise ParseError("R.unique missing required argument 'x'", span)
    x = bound["x"]
    if not isinstance(x, rx.Expr):
        raise ParseError("R.unique: argument 'x' must be a Relax expression", span)
    out = [x]
    defaults = {"sorted": True, "return_index": False, "return_inverse": False, "return_counts": False}
    for n in _UNIQUE_FLAGS:
        out.append(_int_prim(bound.get(n, defaults[n]), n, span))
    axis = bound.get("axis")
    if axis is not None:
        out.append(_int_prim(axis, "axis", span))
    return rx.Call(opdef.op, tuple(out), Attrs(), (), span=span)


def _int_prim(v: Any, name: str, span) -> rx.Expr:
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, (bool, int)):
        return rx.PrimValue(P.IntImm(int(v), "int64"), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    raise ParseError(f"R.unique: argument '{name}' must be a bool, an int or a Relax expression", span)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Run-time checks (OpDef.check, every evaluator)
# ---------------------------------------------------------------------------------------------------


def _make_check_arg_extreme(name: str):
    """OP.argmax.C2: no bool kernel; the axis within the rank; the reduced axis is not empty
    (OP.SEARCH.SEM.1)."""

    def check(args: OpArgs) -> None:
        if args.dtype(0) == "bool":
            raise no_kernel(args, f"{name} of a bool tensor")
        axis = args.attrs.get("axis")
        axes = reduce_axes(args, 0, None if axis is None else [int(axis)])
        args.fail_if(element_count(args, 0, axes) == 0, lambda: OpRuntimeError(f"{name}: the reduced axis is empty"))
    return check


def _check_sort(args: OpArgs) -> None:
    """The run-time errors of ``sort`` (OP.SEM.2, its page's error table): no bool kernel; a 0-d tensor
    cannot be sorted."""
    if args.dtype(0) == "bool":
        raise no_kernel(args, f"{args.op_name[len('relax.'):]} of a bool tensor")
    if args.ndim(0) == 0:
        raise args.error(OpRuntimeError, f"{args.op_name}: cannot sort a 0-d tensor along axis "
                                         f"{int(args.attrs.get('axis', -1))}")


def _check_topk(args: OpArgs) -> None:
    """OP.topk.C2: as sort; ``k`` (at least 1, and below a static axis length, else the whole axis)
    does not exceed the length of the axis (OP.SEARCH.SEM.3)."""
    _check_sort(args)
    k = int(args.attrs.get("k", 1))
    ax = int(args.attrs.get("axis", -1)) % args.ndim(0)
    n = args.shape(0)[ax]
    xs = args.call.args[0].struct_info
    static = isinstance(xs, TensorStructInfo) and isinstance(xs.shape, rx.ShapeExpr) and \
        isinstance(xs.shape.values[ax], P.IntImm)
    if k < 1 or (static and args.is_static(n) and k >= n):
        return
    length = f" {n}" if args.is_static(n) else ""
    args.fail_if(n < k, lambda: OpRuntimeError(f"relax.topk: k = {k} exceeds the length{length} of axis {ax}"))


def _check_bucketize(args: OpArgs) -> None:
    """OP.bucketize.C2: the boundaries are 1-D."""
    if args.ndim(1) != 1:
        raise args.error(OpRuntimeError, f"relax.bucketize: boundaries must be 1-D, got shape "
                                         f"{args.size_text(args.shape(1))}")


def _check_unique(args: OpArgs) -> None:
    """OP.unique.C2: ``axis`` within the rank (a 0-d tensor counts as 1-d)."""
    if len(args) == 6 and args.kind(5) != "null":
        axis = int(args.prim(5))
        nd = args.ndim(0)
        if not -max(nd, 1) <= axis < max(nd, 1):
            raise args.error(OpRuntimeError, f"relax.unique: axis {axis} is out of range for a tensor of rank {nd}")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    arg_params = (arg("x"), attr("axis", "optional_int", None), attr("keepdims", "bool", False))
    OPS.append(OpDef(name="relax.argmax", script="R.argmax", params=arg_params, infer=_infer_arg_extreme,
                   check=_make_check_arg_extreme("argmax"), reference=_make_ref_arg_extreme(True),
                   legalize=_make_legalize_arg_extreme(True),
                   category="search", doc="``R.argmax(x, axis=None, keepdims=False)``: int64 index of the "
                                          "first largest element (OP.argmax.C1)."))
    OPS.append(OpDef(name="relax.argmin", script="R.argmin", params=arg_params, infer=_infer_arg_extreme,
                   check=_make_check_arg_extreme("argmin"), reference=_make_ref_arg_extreme(False),
                   legalize=_make_legalize_arg_extreme(False),
                   category="search", doc="``R.argmin(x, axis=None, keepdims=False)``: int64 index of the "
                                          "first smallest element (OP.argmin.C1)."))
    OPS.append(OpDef(name="relax.sort", script="R.sort",
                   params=(arg("x"), attr("axis", "int", -1), attr("descending", "bool", False)),
                   infer=_infer_sort, check=_check_sort, reference=_ref_sort, legalize=_legalize_sort_family("sort"),
                   category="search", notes="TVM 0.25 lowers it in DispatchSortScan, not LegalizeOps",
                   doc="``R.sort(x, axis=-1, descending=False)``: stable sort along ``axis`` (OP.sort.C1)."))
    OPS.append(OpDef(name="relax.argsort", script="R.argsort",
                   params=(arg("data"), attr("axis", "int", -1), attr("descending", "bool", False),
                           attr("dtype", "dtype", "int32")),
                   infer=_infer_argsort, check=_check_sort, reference=_ref_argsort,
                   legalize=_legalize_sort_family("argsort"),
                   category="search", notes="TVM 0.25 lowers it in DispatchSortScan, not LegalizeOps",
                   doc="``R.argsort(data, axis=-1, descending=False, dtype='int32')``: the stable sorting "
                       "permutation (OP.argsort.C1)."))
    OPS.append(OpDef(name="relax.topk", script="R.topk",
                   params=(arg("data"), attr("k", "int", 1), attr("axis", "int", -1),
                           attr("ret_type", "str", "both"), attr("largest", "bool", True),
                           attr("dtype", "dtype", "int32")),
                   infer=_infer_topk, check=_check_topk, reference=_ref_topk, legalize=_legalize_sort_family("topk"),
                   category="search", notes="TVM 0.25 lowers it in DispatchSortScan, not LegalizeOps",
                   doc="``R.topk(data, k=1, axis=-1, ret_type='both', largest=True, dtype='int32')``: the "
                       "k largest (smallest) elements and their indices (OP.topk.C1)."))
    OPS.append(OpDef(name="relax.bucketize", script="R.bucketize",
                   params=(arg("input_tensor"), arg("boundaries"), attr("out_int32", "bool", False),
                           attr("right", "bool", False)),
                   infer=_infer_bucketize, check=_check_bucketize, reference=_ref_bucketize,
                   legalize=_legalize_bucketize,
                   category="search",
                   doc="``R.bucketize(input_tensor, boundaries, out_int32=False, right=False)``: bucket "
                       "index of every element by binary search (OP.bucketize.C1)."))
    OPS.append(OpDef(name="relax.nonzero", script="R.nonzero", params=(arg("x"),), infer=_infer_nonzero,
                   reference=_ref_nonzero, category="search", data_dependent=True,
                   extra={"call_packed": "relax.run.nonzero"},
                   legalize_exempt="data-dependent output shape: LegalizeOps calls the packed function "
                                   "relax.run.nonzero, as TVM 0.25 does",
                   doc="``R.nonzero(x)``: int64 coordinates of the non-zero elements, shape (ndim, count) "
                       "(OP.nonzero.C1)."))
    OPS.append(OpDef(name="relax.unique", script="R.unique",
                   params=(arg("x"), arg("sorted", "prim", True), arg("return_index", "prim", False),
                           arg("return_inverse", "prim", False), arg("return_counts", "prim", False),
                           arg("axis", "prim", None)),
                   infer=_infer_unique, check=_check_unique, reference=_ref_unique, parse_call=_unique_parse_call,
                   category="search", data_dependent=True, extra={"call_packed": "relax.run.unique"},
                   legalize_exempt="data-dependent output shape: LegalizeOps calls the packed function "
                                   "relax.run.unique, as TVM 0.25 does",
                   doc="``R.unique(x, sorted=True, return_index=False, return_inverse=False, "
                       "return_counts=False, axis=None)``: unique elements (OP.unique.C1)."))


_define_all()


def _packed_nonzero(x):
    return nonzero_values(np.asarray(x))


#: TVM's run-time functions that the legalization of ``nonzero`` and ``unique`` calls (host functions
#: over host values); the interpreter's built-in packed functions include them
RUNTIME_FUNCS = {"relax.run.nonzero": _packed_nonzero, "relax.run.unique": _packed_unique}

__all__ = ["nonzero_values", "unique_values", "RUNTIME_FUNCS"]

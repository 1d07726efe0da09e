"""Reductions and scans: ``sum prod mean variance std max min median cumsum cumprod``
(spec pages ``spec/ops/<op>.md``; shared rules on ``spec/ops/statistical.md``, IDs OP.STAT.*).

Inference follows TVM 0.25's ``InferStructInfoStatistical`` (OP.STAT.C1), ``...Extension`` for
``median`` and ``InferStructInfoScan`` for the scans. Reference semantics follow TVM's kernels, with
the decisions below where they are undefined or inconsistent:

* OP.STAT.SEM.1 -- the result keeps the input dtype (also for ``mean``/``variance``/``std`` of integer
  tensors, whose TVM kernels return int64/float32: DIV.23). Integer ``sum``/``prod`` wrap; ``sum`` of
  bool is logical or, ``prod`` of bool is logical and (TIR bool arithmetic).
* OP.STAT.SEM.2 -- a reduction over no elements gives the reducer's identity: 0 (``sum``), 1
  (``prod``), the lowest finite value of the dtype (``max``), the largest (``min``); ``mean`` and
  ``variance`` of no elements divide by zero (NaN for floats, DivisionByZeroError for integers) --
  each output element divides, so a result with no elements (another axis of extent 0) is an empty
  tensor, no error.
  TVM 0.25 returns uninitialized memory there.
* OP.STAT.SEM.3 -- ``max``/``min`` fold the elements in row-major order of the reduced axes with
  ``acc > v ? acc : v`` (``<`` for min) from the identity, TIR's ``Max``/``Min``: a NaN is kept only
  until the next element.
* OP.STAT.SEM.4 -- float ``sum``/``prod``/``mean`` are defined up to reassociation for float32 and
  float64 (OP.SEM.5); float16 accumulates sequentially in the dtype, as TVM's kernels; bfloat16 ``sum prod
  mean variance std`` are their float32 computation rounded once (OP.SEM.7, :func:`.precision.float32_once`).
* OP.STAT.SEM.5 -- ``mean`` is ``sum / count`` with the count converted to the dtype for floats and
  a truncating int64 division for integers; ``variance`` is ``mean((x - mean(x, keepdims))**2)``
  (population variance) computed with the same rules (int64 intermediates for integers);
  ``std`` is ``sqrt(variance)``, for integers ``sqrt`` of the float32 value, truncated to the dtype.
* OP.STAT.SEM.6 -- ``median`` sorts the reduced elements (NaN last, stable) and takes the element at
  position ``(n - 1) // 2`` (the lower median); with exactly one axis it also returns the int64 index
  of that element along the axis. Several axes are reduced together (TVM's kernel only handles the
  first one). A median of no elements is an OpRuntimeError.
* OP.STAT.SEM.7 -- the scans convert every element to the output dtype and accumulate sequentially
  (a bfloat16 output: in float32, each result rounded once, OP.SEM.7);
  ``exclusive`` shifts by one element, starting with the identity.
* Kernels TVM 0.25 cannot produce (UnsupportedError in reference and legalization): ``max``/``min``
  of bool, ``cumsum``/``cumprod`` of bool without ``dtype``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from ..arith import semantics as _sem
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import manipulate_util
from . import te
from . import te_ops
from . import tir_kernels
from .args import OpArgs
from .checks import check_axis, element_count, no_kernel, reduce_axes
from .checks import legalizable as known_shapes
from .opdef import OpDef, arg, attr
from .precision import float32_once

# ---------------------------------------------------------------------------------------------------
# Shared helpers (also used by the search module)
# ---------------------------------------------------------------------------------------------------


def np_dtype(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def dtype_of(a: np.ndarray) -> str:
    return _dt.from_numpy(a.dtype)


def tir_cast(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Elementwise TIR ``Cast`` (PRIM.CAST.1-2) of an array."""
    a = np.asarray(x)
    if src == dst:
        return a.copy()
    if dst == "bool":
        return np.not_equal(a, 0)
    if _dt.is_integer(dst) and _dt.is_float(src):
        return np.asarray(_sem.float_to_int(a, dst)).astype(np_dtype(dst)).reshape(a.shape)
    with np.errstate(all="ignore"):
        return a.astype(np_dtype(dst))


def unsupported(call: rx.Call, what: str) -> UnsupportedError:
    return UnsupportedError(f"{common.op_name(call)}: {what} (TVM 0.25 has no kernel for it)", call.span)


def reduce_axes_of(axis: Optional[Sequence[int]], ndim: int) -> List[int]:
    """Normalized reduced axes, sorted; ``None`` means every axis."""
    if axis is None:
        return list(range(ndim))
    return sorted({a + ndim if a < 0 else a for a in axis})


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> Tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


def _rows(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """``x`` with the reduced axes moved last and flattened into one (row-major order)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    t = np.transpose(x, kept + list(axes))
    r = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return t.reshape(tuple(x.shape[i] for i in kept) + (r,))


def fold(x: np.ndarray, axes: Sequence[int], keepdims: bool, fn, init) -> np.ndarray:
    """Sequential fold ``acc = fn(acc, x_k)`` over the reduced elements in row-major order."""
    rows = _rows(x, axes)
    acc = np.full(rows.shape[:-1], init, dtype=x.dtype)
    with np.errstate(all="ignore"):
        for k in range(rows.shape[-1]):
            acc = np.asarray(fn(acc, rows[..., k])).astype(x.dtype)
    return acc.reshape(reduced_shape(x.shape, axes, keepdims))


def _sum_in_dtype(x: np.ndarray, axes: Sequence[int], keepdims: bool, op: str = "add") -> np.ndarray:
    """OP.STAT.SEM.1/4: ``sum``/``prod`` in the input dtype."""
    dt = dtype_of(x)
    ufunc = np.add if op == "add" else np.multiply
    if dt in ("float16", "bfloat16"):
        return fold(x, axes, keepdims, ufunc, 0 if op == "add" else 1)
    with np.errstate(all="ignore"):
        out = ufunc.reduce(x, axis=tuple(axes), keepdims=keepdims, dtype=x.dtype)
    return np.asarray(out, dtype=x.dtype)


def _count(x: np.ndarray, axes: Sequence[int]) -> int:
    return int(np.prod([x.shape[a] for a in axes], dtype=np.int64))


def _int_div_count(s: np.ndarray, count: int, src: str) -> np.ndarray:
    """TIR ``s / count`` for an integer (or bool) ``s`` and an int64 count: truncating division in the
    matched type (int64, or uint64 for uint64 sums)."""
    wide = "uint64" if src == "uint64" else "int64"
    a = tir_cast(s, src, wide)
    if wide == "uint64":
        return a // np.uint64(count)
    q = np.abs(a) // np.int64(count)
    return np.where(a < 0, -q, q).astype(np.int64)


def _mean_values(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> Tuple[np.ndarray, str]:
    """OP.STAT.SEM.5: the mean and the dtype TVM's kernel computes it in."""
    dt = dtype_of(x)
    s = _sum_in_dtype(x, axes, keepdims)
    count = _count(x, axes)
    if _dt.is_float(dt):
        with np.errstate(all="ignore"):
            return (s / np.asarray(count).astype(x.dtype)).astype(x.dtype), dt
    q = _int_div_count(s, count, dt)
    return q, dtype_of(q)


def _variance_values(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> Tuple[np.ndarray, str]:
    dt = dtype_of(x)
    m, mdt = _mean_values(x, axes, True)
    with np.errstate(all="ignore"):
        if _dt.is_float(dt):
            dev = (x - m).astype(x.dtype)
            sq = (dev * dev).astype(x.dtype)
        else:
            dev = tir_cast(x, dt, mdt) - m
            sq = dev * dev
    return _mean_values(sq, axes, keepdims)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _reduction_out(call, ctx, x: TensorStructInfo, axis, keepdims: bool):
    """The pieces of TVM's reduction inference: (out_ndim, out_shape or None, normalized axes)."""
    axes: List[int] = []
    if x.ndim != -1 and axis is not None:
        axes = common.normalize_axes(call, x.ndim, list(axis), ctx)
    out_ndim = common.reduced_ndim(x.ndim, axis is not None, len(axes), keepdims)
    shape = x.shape_values if isinstance(x.shape, rx.ShapeExpr) else None
    if shape is None:
        return out_ndim, None, axes
    out = []
    for i in range(x.ndim):
        if axis is not None and i not in axes:
            out.append(shape[i])
        elif keepdims:
            out.append(P.IntImm(1, "int64"))
    return out_ndim, tuple(out), axes


def infer_statistical(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.STAT.C1 (TVM's ``InferStructInfoStatistical``): one tensor; normalized, distinct axes; the
    reduced axes are removed (or kept as 1 with ``keepdims``), all of them when ``axis`` is None; the
    dtype and vdevice are kept. Without a ShapeExpr: ``axis=None, keepdims`` gives all-ones of the
    input rank, rank 0 gives ``()``, otherwise only the rank is known."""
    x = common.tensor_args(call, 1, ctx)[0]
    axis, keepdims = call.attrs.get("axis"), bool(call.attrs.get("keepdims", False))
    out_ndim, shape, _ = _reduction_out(call, ctx, x, axis, keepdims)
    if shape is None:
        if axis is None and keepdims and out_ndim != -1:
            return TensorStructInfo(common.ones_shape(call, out_ndim, ctx=ctx), x.dtype, vdevice=x.vdevice)
        if out_ndim == 0:
            return TensorStructInfo(rx.ShapeExpr(()), x.dtype, vdevice=x.vdevice)
        return TensorStructInfo(None, x.dtype, out_ndim, x.vdevice)
    return TensorStructInfo(rx.ShapeExpr(shape), x.dtype, vdevice=x.vdevice)


def infer_median(call: rx.Call, ctx: Any):
    """OP.median.C1 (TVM's ``InferStructInfoStatisticalExtension``): as OP.STAT.C1, but with exactly
    one axis the result is the tuple ``(values, int64 indices)``; without a ShapeExpr and with a
    non-zero output rank the tuple is returned whatever the number of axes."""
    x = common.tensor_args(call, 1, ctx)[0]
    axis, keepdims = call.attrs.get("axis"), bool(call.attrs.get("keepdims", False))
    out_ndim, shape, axes = _reduction_out(call, ctx, x, axis, keepdims)
    vd = x.vdevice
    if shape is None:
        if axis is None and keepdims and out_ndim != -1:
            return TensorStructInfo(common.ones_shape(call, out_ndim, ctx=ctx), x.dtype, vdevice=vd)
        if out_ndim == 0:
            return TensorStructInfo(rx.ShapeExpr(()), x.dtype, vdevice=vd)
        return TupleStructInfo((TensorStructInfo(None, x.dtype, out_ndim, vd),
                                TensorStructInfo(None, "int64", out_ndim, vd)))
    if axis is None or len(axes) > 1:
        return TensorStructInfo(rx.ShapeExpr(shape), x.dtype, vdevice=vd)
    return TupleStructInfo((TensorStructInfo(rx.ShapeExpr(shape), x.dtype, vdevice=vd),
                            TensorStructInfo(rx.ShapeExpr(shape), "int64", vdevice=vd)))


def infer_scan(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.cumsum.C1 / OP.cumprod.C1 (TVM's ``InferStructInfoScan``): the output dtype is ``dtype`` or
    the input's; ``axis=None`` flattens to ``(prod(shape),)``; otherwise the input shape is kept.
    relax-ref also rejects an ``axis`` outside ``[-ndim, ndim)`` when the rank is known (TVM does not
    check it: OP.STAT.DIV.1)."""
    x = common.tensor_args(call, 1, ctx)[0]
    dt = call.attrs.get("dtype") or "void"
    out = x.dtype if dt == "void" else dt
    axis = call.attrs.get("axis")
    if axis is None:
        shape = x.shape_values if isinstance(x.shape, rx.ShapeExpr) else None
        if shape is None:
            return TensorStructInfo(None, out, x.ndim, x.vdevice)
        return TensorStructInfo(rx.ShapeExpr((common.shape_product(shape),)), out, vdevice=x.vdevice)
    if x.ndim != -1:
        common.normalize_axis(call, x.ndim, int(axis), ctx)
    if x.shape is not None:
        return TensorStructInfo(x.shape, out, vdevice=x.vdevice)
    return TensorStructInfo(None, out, x.ndim, x.vdevice)


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


@float32_once
def _ref_sum(args, attrs, call, ctx):
    x = args[0]
    return _sum_in_dtype(x, reduce_axes_of(attrs.get("axis"), x.ndim), bool(attrs.get("keepdims")))


@float32_once
def _ref_prod(args, attrs, call, ctx):
    x = args[0]
    return _sum_in_dtype(x, reduce_axes_of(attrs.get("axis"), x.ndim), bool(attrs.get("keepdims")), "mul")


def _make_ref_extreme(is_max: bool):
    def ref(args, attrs, call, ctx):
        x = args[0]
        dt = dtype_of(x)
        axes = reduce_axes_of(attrs.get("axis"), x.ndim)
        init = _dt.min_value(dt) if is_max else _dt.max_value(dt)
        fn = (lambda a, b: np.where(a > b, a, b)) if is_max else (lambda a, b: np.where(a < b, a, b))
        return fold(x, axes, bool(attrs.get("keepdims")), fn, init)
    return ref


@float32_once
def _ref_mean(args, attrs, call, ctx):
    x = args[0]
    out, src = _mean_values(x, reduce_axes_of(attrs.get("axis"), x.ndim), bool(attrs.get("keepdims")))
    return tir_cast(out, src, dtype_of(x))


@float32_once
def _ref_variance(args, attrs, call, ctx):
    x = args[0]
    out, src = _variance_values(x, reduce_axes_of(attrs.get("axis"), x.ndim), bool(attrs.get("keepdims")))
    return tir_cast(out, src, dtype_of(x))


@float32_once
def _ref_std(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    v, src = _variance_values(x, reduce_axes_of(attrs.get("axis"), x.ndim), bool(attrs.get("keepdims")))
    with np.errstate(all="ignore"):
        if _dt.is_float(dt):
            return np.asarray(_sqrt(dt, v)).astype(x.dtype)
        r = np.asarray(_sqrt("float32", tir_cast(v, src, "float32"))).astype(np.float32)
    return tir_cast(r, "float32", dt)


def _sqrt(dtype: str, v: np.ndarray):
    """The shared TIR ``sqrt`` intrinsic (what the legalized kernel evaluates)."""
    from ..arith import lookup_intrinsic

    return lookup_intrinsic("tir.sqrt")(dtype, v)


def sort_order(rows: np.ndarray, descending: bool) -> np.ndarray:
    """OP.SEARCH.KERNEL.2: the stable permutation sorting each row (last axis); NaN sorts as larger
    than every number (last when ascending, first when descending)."""
    if _dt.is_float_numpy(rows.dtype):       # bfloat16 and the 8-bit floats included
        r = rows.astype(np.float64)
        nan = np.isnan(r)
        key = np.where(nan, 0.0, r)
        if descending:
            return np.lexsort((-key, ~nan), axis=-1)
        return np.lexsort((key, nan), axis=-1)
    # integers and bool: ``~x`` reverses the order exactly (no overflow)
    return np.argsort(~rows if descending else rows, axis=-1, kind="stable")


def _ref_median(args, attrs, call, ctx):
    x = args[0]
    axis = attrs.get("axis")
    keepdims = bool(attrs.get("keepdims"))
    axes = reduce_axes_of(axis, x.ndim)
    rows = _rows(x, axes)
    n = rows.shape[-1]
    order = sort_order(rows, False)
    mid = (n - 1) // 2
    pick = order[..., mid]
    vals = np.take_along_axis(rows, pick[..., None], axis=-1)[..., 0]
    out_shape = reduced_shape(x.shape, axes, keepdims)
    vals = np.asarray(vals, dtype=x.dtype).reshape(out_shape)
    if isinstance(call.struct_info, TupleStructInfo):
        return vals, np.asarray(pick, dtype=np.int64).reshape(out_shape)
    return vals


def _scan_dtype(call: rx.Call, x: np.ndarray) -> str:
    dt = call.attrs.get("dtype") or "void"
    return dtype_of(x) if dt == "void" else dt


def _make_ref_scan(op: str):
    def ref(args, attrs, call, ctx):
        x = args[0]
        out_dt = _scan_dtype(call, x)
        axis = attrs.get("axis")
        if axis is None:
            data = x.reshape(-1)
            ax = 0
        else:
            ax = int(axis) % x.ndim
            data = x
        v = tir_cast(data, dtype_of(x), out_dt)
        if _dt.float32_intermediates(out_dt):     # OP.SEM.7: a float32 accumulator, each result rounded once
            v = v.astype(np.float32)
        ufunc = np.add if op == "add" else np.multiply
        with np.errstate(all="ignore"):
            acc = ufunc.accumulate(v, axis=ax, dtype=v.dtype) if v.size else v.copy()
        n = acc.shape[ax]
        if attrs.get("exclusive") and n:
            first_shape = acc.shape[:ax] + (1,) + acc.shape[ax + 1:]
            ident = np.full(first_shape, 0 if op == "add" else 1, dtype=acc.dtype)
            acc = np.concatenate([ident, np.take(acc, np.arange(n - 1), axis=ax)], axis=ax)
        return np.asarray(acc, dtype=np_dtype(out_dt))
    return ref


# ---------------------------------------------------------------------------------------------------
# Legalization
# ---------------------------------------------------------------------------------------------------


def _const_extent(e: P.PrimExpr) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) else None


def reduced_te_shape(x: te.Tensor, axes: Sequence[int], keepdims: bool) -> List[P.PrimExpr]:
    """The shape of ``x`` reduced over ``axes`` (each kept as 1 with ``keepdims``)."""
    return [P.IntImm(1, "int64") if i in axes else x.shape[i] for i in range(x.ndim) if keepdims or i not in axes]


def reduce_source(x: te.Tensor, axes: Sequence[int], keepdims: bool, idx: Sequence[Any]) -> Tuple[dict, List[Any]]:
    """For one output position ``idx`` of a reduction of ``x`` over ``axes``: the reduce axes
    (``k<a>`` by axis) and the index of ``x`` they read."""
    rax = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in axes}
    src, it = [], iter(idx)
    for d in range(x.ndim):
        if d in axes:
            src.append(rax[d])
            if keepdims:
                next(it)
        else:
            src.append(next(it))
    return rax, src


def te_reduce(x: te.Tensor, axes: Sequence[int], keepdims: bool, reducer, name: Optional[str] = None) -> te.Tensor:
    """A TOPI-style reduction stage ``<x>_red`` over ``axes`` (reduce axes ``k<i>``, output axes
    ``ax<i>``)."""
    out_shape = reduced_te_shape(x, axes, keepdims)

    if not axes:
        return te.compute(out_shape, lambda *i: x(*i), name=name or f"{x.name}_red",
                          index_names=[f"ax{i}" for i in range(len(out_shape))])

    def f(*idx):
        rax, src = reduce_source(x, axes, keepdims, idx)
        return reducer(x(*src), axis=[rax[a] for a in axes])

    return te.compute(out_shape, f, name=name or f"{x.name}_red",
                      index_names=[f"ax{i}" for i in range(len(out_shape))])


def guarded_reduce(x: te.Tensor, axes: Sequence[int], keepdims: bool, reducer, identity) -> te.Tensor:
    """OP.STAT.SEM.2 for kernels: a reduction whose reduced extents are known non-zero constants is
    the single TVM stage; a constant zero extent gives a ``full`` of the identity (as later TVM
    versions do); symbolic extents add a ``T_select`` stage returning the identity when the count
    is zero (a reduction over no elements never runs its ``T.init``)."""
    exts = [x.shape[a] for a in axes]
    consts = [_const_extent(e) for e in exts]
    out_shape = [P.IntImm(1, "int64") if i in axes else x.shape[i] for i in range(x.ndim)
                 if keepdims or i not in axes]
    names = [f"ax{i}" for i in range(len(out_shape))]
    if any(c == 0 for c in consts):
        return te.compute(out_shape, lambda *i: identity, name="T_full", index_names=names)
    red = te_reduce(x, axes, keepdims, reducer)
    if all(c is not None for c in consts):
        return red
    count = common.shape_product(exts)
    return te.compute(out_shape, lambda *i: te_ops.select(te_ops.lt(P.IntImm(0, "int64"), count), red(*i), identity),
                      name="T_select", index_names=names)


def _legal_axes(call: rx.Call) -> Tuple[List[int], bool]:
    x = call.args[0].struct_info
    return reduce_axes_of(call.attrs.get("axis"), x.ndim), bool(call.attrs.get("keepdims"))


def _make_legalize_simple(kind: str):
    reducers = {"sum": (te.sum, 0), "prod": (te.prod, 1), "max": (te.max, None), "min": (te.min, None)}

    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        dt = call.args[0].struct_info.dtype
        if kind in ("max", "min") and dt == "bool":
            raise unsupported(call, f"{kind} of a bool tensor")
        axes, keepdims = _legal_axes(call)
        reducer, ident = reducers[kind]
        if kind == "max":
            ident_e = te_ops.min_value(dt)
        elif kind == "min":
            ident_e = te_ops.max_value(dt)
        else:
            ident_e = te_ops.const(ident, dt)

        def fte(x):
            return guarded_reduce(x, axes, keepdims, reducer, ident_e)

        return ctx.call_te(fte, call.args[0], primfunc_name_hint=kind)
    return legalize


def te_mean(x: te.Tensor, axes: Sequence[int], keepdims: bool) -> te.Tensor:
    """``T_divide = sum / count``: the count is int64; TIR's type matching converts it to the float
    dtype, or divides integers (truncating) in int64."""
    s = guarded_reduce(x, axes, keepdims, te.sum, te_ops.const(0, x.dtype))
    count = common.shape_product([x.shape[a] for a in axes])
    return te.compute(s.shape, lambda *i: te_ops.div(s(*i), count), name="T_divide",
                      index_names=[f"ax{k}" for k in range(len(s.shape))])


def te_variance(x: te.Tensor, axes: Sequence[int], keepdims: bool) -> te.Tensor:
    m = te_mean(x, axes, True)
    names = [f"ax{k}" for k in range(x.ndim)]

    def dev(*i):
        midx = [P.IntImm(0, "int64") if d in axes else i[d] for d in range(x.ndim)]
        return te_ops.sub(x(*i), m(*midx))

    d = te.compute(x.shape, dev, name="T_subtract", index_names=names)
    sq = te.compute(x.shape, lambda *i: te_ops.mul(d(*i), d(*i)), name="T_multiply", index_names=names)
    return te_mean(sq, axes, keepdims)


def _final_cast(t: te.Tensor, dtype: str) -> te.Tensor:
    if t.dtype == dtype:
        return t
    return te.compute(t.shape, lambda *i: te_ops.cast(dtype, t(*i)), name="T_cast",
                      index_names=[f"ax{k}" for k in range(len(t.shape))])


def _make_legalize_moment(kind: str):
    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        axes, keepdims = _legal_axes(call)
        out_dt = call.struct_info.dtype

        def fte(x):
            if kind == "mean":
                return _final_cast(te_mean(x, axes, keepdims), out_dt)
            v = te_variance(x, axes, keepdims)
            if kind == "variance":
                return _final_cast(v, out_dt)
            names = [f"ax{k}" for k in range(len(v.shape))]
            if _dt.is_float(out_dt):
                r = te.compute(v.shape, lambda *i: te.sqrt(v(*i)), name="compute", index_names=names)
            else:
                r = te.compute(v.shape, lambda *i: te.sqrt(te_ops.cast("float32", v(*i))), name="compute",
                               index_names=names)
            return _final_cast(r, out_dt)

        return ctx.call_te(fte, call.args[0], primfunc_name_hint=kind)
    return legalize


def _legalize_scan(op: str):
    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        xs = call.args[0].struct_info
        out_dt = call.struct_info.dtype
        if out_dt == "bool":
            raise unsupported(call, f"{'cumsum' if op == 'add' else 'cumprod'} with bool accumulation")
        axis = call.attrs.get("axis")
        kb = tir_kernels.KernelBuilder()
        x = kb.input(call.args[0], "data")
        if axis is None:
            out = kb.output((common.shape_product(x.shape),), out_dt, "out")
            ax = None
        else:
            ax = int(axis) % xs.ndim
            out = kb.output(x.shape, out_dt, "out")
        body = tir_kernels.scan_kernel(kb, x, out, ax, op, bool(call.attrs.get("exclusive")))
        return kb.call(ctx, body, "cumsum" if op == "add" else "cumprod")
    return legalize


def _te_median(x: te.Tensor, axis: Optional[Sequence[int]], keepdims: bool):
    """TOPI's median (TVM's legalization, OP.STAT.KERNEL.1): ``argsort`` as an extern stage calling
    ``tvm.contrib.sort.argsort`` (ascending, stable, NaN last: TIR.PACKED.3), the data gathered in that
    order, then the element and the position at ``(n - 1) // 2`` gathered through a ``T_full`` index
    tensor; ``axis=None`` sorts the row-major flattening."""
    prod = te_ops.const(1, "int32")
    for d in (range(len(x.shape)) if axis is None else axis):
        prod = te_ops.mul(prod, x.shape[d])
    mid = te_ops.floordiv(te_ops.sub(prod, 1), 2)
    if axis is None:
        x = manipulate_util.te_reshape(x, [prod])
        ax = -1
    else:
        ax = int(axis[0])
    data_buf = te.decl_buffer(x.shape, x.dtype, "data_buf", data_alignment=8)
    out_buf = te.decl_buffer(x.shape, "int64", "out_buf", data_alignment=8)
    order = te.extern(x.shape, [x], lambda ins, outs: te.call_packed("tvm.contrib.sort.argsort", ins[0], outs[0],
                                                                      ax, True),
                      dtype="int64", in_buffers=[data_buf], out_buffers=[out_buf], name="argsort_cpu")
    axn = ax % len(x.shape)
    x_sorted = manipulate_util.te_gather(x, order, axn)
    new_shape = list(x.shape)
    new_shape[axn] = 1
    indices = manipulate_util.te_full(new_shape, te_ops.cast("int64", mid))
    val = manipulate_util.te_gather(x_sorted, indices, axn)
    if axis is None:
        return val if keepdims else manipulate_util.te_squeeze(val, [0])
    idx = manipulate_util.te_gather(order, indices, axn)
    if not keepdims:
        return manipulate_util.te_squeeze(val, [axn]), manipulate_util.te_squeeze(idx, [axn])
    return val, idx


def _topi_median(call) -> bool:
    """TVM's kernel applies (OP.STAT.KERNEL.1): one axis, or all axes without ``keepdims`` (TOPI's
    kernel sorts only the first of several axes and keeps one axis of all), over a dtype the sort
    kernel takes (not bool)."""
    xs = call.args[0].struct_info
    axis = call.attrs.get("axis")
    if xs.dtype == "bool":
        return False
    if axis is None:
        return not call.attrs.get("keepdims") or xs.ndim == 1
    return len(axis) == 1


def _legalize_median(call, ctx):
    """Median kernel (OP.STAT.KERNEL.1): TOPI's where it applies, else per output position the reduced
    elements gathered into a row, sorted (OP.SEARCH.KERNEL.1) and read at position ``(n - 1) // 2``."""
    if not known_shapes(call):
        return None
    if _topi_median(call):
        axis = call.attrs.get("axis")
        return ctx.call_te(lambda x: _te_median(x, axis, bool(call.attrs.get("keepdims"))), call.args[0],
                           primfunc_name_hint="median")
    xs = call.args[0].struct_info
    axes, keepdims = _legal_axes(call)
    kb = tir_kernels.KernelBuilder()
    x = kb.input(call.args[0], "data")
    ndim = len(x.shape)
    kept = [d for d in range(ndim) if d not in axes]
    red_ext = [x.shape[a] for a in axes]
    n = common.shape_product(red_ext)
    out_shape = [P.IntImm(1, "int64") if d in axes else x.shape[d] for d in range(ndim)
                 if keepdims or d not in axes]
    with_index = isinstance(call.struct_info, TupleStructInfo)
    vals_out = kb.output(out_shape, xs.dtype, "median")
    idx_out = kb.output(out_shape, "int64", "median_index") if with_index else None
    row_shape = [x.shape[d] for d in kept] + [n]
    rowv = tir.Buffer("row", tuple(row_shape), xs.dtype)
    rowi = tir.Buffer("row_index", tuple(row_shape), "int64")
    src = tir.Buffer("gathered", tuple(row_shape), xs.dtype)
    mid = te_ops.floordiv(te_ops.sub(n, P.IntImm(1, "int64")), P.IntImm(2, "int64"))

    def gather(lv):
        def inner(rv):
            (j,) = rv
            ridx = tir_kernels.unravel(j, red_ext)
            full, it_k, it_r = [], iter(lv), iter(ridx)
            for d in range(ndim):
                full.append(next(it_r) if d in axes else next(it_k))
            return tir.BufferStore(src, tir.BufferLoad(x, tuple(full)), tuple(lv) + (j,))
        return tir_kernels.loop_nest([n], ["j"], inner)

    gather_stmt = tir_kernels.loop_nest([x.shape[d] for d in kept], [f"i{k}" for k in range(len(kept))], gather)

    def emit(lv):
        out_idx, it = [], iter(lv)
        for d in range(ndim):
            if d in axes:
                if keepdims:
                    out_idx.append(P.IntImm(0, "int64"))
            else:
                out_idx.append(next(it))
        at = tuple(lv) + (mid,)
        st = [tir.BufferStore(vals_out, tir.BufferLoad(rowv, at), tuple(out_idx))]
        if with_index:
            st.append(tir.BufferStore(idx_out, tir.BufferLoad(rowi, at), tuple(out_idx)))
        return tir_kernels.seq(*st)

    sort = tir_kernels.sort_rows_kernel(src, rowv, rowi, len(kept), False, emit)
    return kb.call(ctx, tir_kernels.seq(gather_stmt, sort), "median", allocs=(src, rowv, rowi))


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

_REDUCE_PARAMS = (arg("x"), attr("axis", "optional_ints", None), attr("keepdims", "bool", False))
_SCAN_PARAMS = (arg("data"), attr("axis", "optional_int", None), attr("dtype", "dtype", "void"),
                attr("exclusive", "bool", False))

REDUCTION_OPS = ("sum", "prod", "mean", "variance", "std", "max", "min")
SCAN_OPS = ("cumsum", "cumprod")

_DOCS = {
    "sum": "sum of the elements over ``axis``",
    "prod": "product of the elements over ``axis``",
    "mean": "arithmetic mean over ``axis``",
    "variance": "population variance over ``axis``",
    "std": "population standard deviation over ``axis``",
    "max": "largest element over ``axis``",
    "min": "smallest element over ``axis``",
}


# ---------------------------------------------------------------------------------------------------
# Run-time checks (OpDef.check, every evaluator)
# ---------------------------------------------------------------------------------------------------


def _make_check_reduction(name: str):
    """OP.<op>.C2: the axes are within the rank of the tensor; ``max``/``min`` have no bool kernel;
    the integer ``mean``/``variance``/``std`` of no elements divides by zero where an output element
    exists (OP.STAT.SEM.2, OP.STAT.SEM.5)."""

    def check(args: OpArgs) -> None:
        if name in ("max", "min") and args.dtype(0) == "bool":
            raise no_kernel(args, f"{name} of a bool tensor")
        axes = reduce_axes(args, 0, args.attrs.get("axis"))
        if name in ("mean", "variance", "std") and not _dt.is_float(args.dtype(0)):
            kept = [a for a in range(args.ndim(0)) if a not in axes]
            empty = element_count(args, 0, axes) == 0
            # only an output element divides: an empty result has no division (OP.STAT.SEM.2)
            args.fail_if(args.xp.logical_and(empty, element_count(args, 0, kept) != 0), lambda: DivisionByZeroError(
                "integer division by zero: the reduction has no elements"))
    return check


def _check_median(args: OpArgs) -> None:
    """OP.median.C2: the axes are within the rank; the median of no elements is undefined."""
    axes = reduce_axes(args, 0, args.attrs.get("axis"))
    args.fail_if(element_count(args, 0, axes) == 0, lambda: OpRuntimeError(
        f"{args.op_name}: the median of no elements is undefined"))


def _make_check_scan(op: str):
    """OP.cumsum.C2: no bool accumulation kernel; ``axis`` within the rank."""

    def check(args: OpArgs) -> None:
        dt = args.attrs.get("dtype") or "void"
        if (args.dtype(0) if dt == "void" else dt) == "bool":
            raise no_kernel(args, f"{'cumsum' if op == 'add' else 'cumprod'} with bool accumulation")
        axis = args.attrs.get("axis")
        if axis is not None:
            check_axis(args, int(axis), args.ndim(0))
    return check


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    refs = {"sum": _ref_sum, "prod": _ref_prod, "mean": _ref_mean, "variance": _ref_variance, "std": _ref_std,
            "max": _make_ref_extreme(True), "min": _make_ref_extreme(False)}
    for name in REDUCTION_OPS:
        legal = _make_legalize_simple(name) if name in ("sum", "prod", "max", "min") else \
            _make_legalize_moment(name)
        OPS.append(OpDef(name=f"relax.{name}", script=f"R.{name}", params=_REDUCE_PARAMS, infer=infer_statistical,
                       check=_make_check_reduction(name), reference=refs[name], legalize=legal,
                       category="statistical",
                       doc=f"``R.{name}(x, axis=None, keepdims=False)``: {_DOCS[name]} (OP.{name}.C1)."))
    OPS.append(OpDef(name="relax.median", script="R.median", params=_REDUCE_PARAMS, infer=infer_median,
                   check=_check_median, reference=_ref_median, legalize=_legalize_median, category="statistical",
                   doc="``R.median(x, axis=None, keepdims=False)``: lower median over ``axis``; with one "
                       "axis also the index of the median (OP.median.C1)."))
    OPS.append(OpDef(name="relax.cumsum", script="R.cumsum", params=_SCAN_PARAMS, infer=infer_scan,
                   check=_make_check_scan("add"), reference=_make_ref_scan("add"), legalize=_legalize_scan("add"),
                   category="statistical",
                   notes="TVM 0.25 lowers it in DispatchSortScan, not LegalizeOps",
                   doc="``R.cumsum(data, axis=None, dtype=None, exclusive=False)``: running sum "
                       "(OP.cumsum.C1)."))
    OPS.append(OpDef(name="relax.cumprod", script="R.cumprod", params=_SCAN_PARAMS, infer=infer_scan,
                   check=_make_check_scan("mul"), reference=_make_ref_scan("mul"), legalize=_legalize_scan("mul"),
                   category="statistical",
                   notes="TVM 0.25 lowers it in DispatchSortScan, not LegalizeOps",
                   doc="``R.cumprod(data, axis=None, dtype=None, exclusive=False)``: running product "
                       "(OP.cumprod.C1)."))


_define_all()

__all__ = ["REDUCTION_OPS", "SCAN_OPS", "infer_statistical", "infer_median", "infer_scan", "tir_cast",
           "known_shapes", "fold", "reduce_axes_of", "reduced_shape", "sort_order", "te_reduce",
           "guarded_reduce", "unsupported", "np_dtype", "dtype_of"]

"""Scatter operators: ``scatter_elements``, ``scatter_nd``, ``index_put`` and ``slice_scatter`` (spec
pages ``spec/ops/<op>.md``).

Inference mirrors TVM 0.25's ``manipulate.cc`` (constraint IDs ``OP.<op>.C<n>``). TVM legalizes the
first three into ``te.extern`` kernels (``scatter_elements.generic``, ``scatter_nd.generic``,
``index_put.generic``): a copy of ``data`` followed by a loop over the index positions that stores
(or combines) each update. relax-ref builds the same two-phase kernels directly in TensorIR
(:class:`_Kernel`), with multi-dimensional buffer indexing; ``slice_scatter`` is a TE ``select``
kernel as TOPI's.

Semantics decided here (OP.SCATTER.*):

1. Updates are applied sequentially in row-major order of the index positions, so with duplicate
   indices the last update wins (``"update"``) and reductions combine in that order. TVM's kernels run
   the update loop in parallel: duplicates race there.
2. ``scatter_elements`` and ``index_put`` wrap a negative index once (``i + extent``), as TVM's
   kernels do; ``scatter_nd`` does not wrap. Any index still outside ``[0, extent)`` raises
   ``op_runtime`` (TVM writes out of bounds).
3. ``scatter_elements`` with ``reduction="mean"`` is TVM's running ``out = (out + u) / 2`` (integer
   division truncates). The reduction must be one of the names TVM's kernel accepts (checked by
   inference; TVM only fails when legalizing).
4. ``scatter_elements`` indexes ``data`` at the *position* of each index element. TVM's kernel
   flattens with the data's strides after the axis, which differs when ``indices`` is smaller than
   ``data`` in more than one trailing dimension.
5. ``index_put`` reads ``values`` in row-major order; it must have exactly one element per index
   position (TVM reads out of bounds otherwise).
6. ``slice_scatter`` writes ``src[(i - start) // step]`` at the positions ``start <= i < end`` with
   ``(i - start) % step == 0`` of the axis (TOPI's mask semantics; bounds are not wrapped).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import te
from . import te_ops
from . import manipulate_util
from .opdef import OpDef, arg, attr

_I64 = manipulate_util.int64
SCATTER_ELEMENTS_REDUCTIONS = ("update", "add", "mul", "mean", "min", "max")
SCATTER_ND_REDUCTIONS = ("update", "add", "mul", "min", "max")


# ---------------------------------------------------------------------------------------------------
# Hand-built two-phase kernels
# ---------------------------------------------------------------------------------------------------


class _Kernel:
    """Builds a PrimFunc whose buffers mirror the struct info of Relax arguments: the caller's
    symbolic variables are replaced by kernel-local ones of the same names (TIR.TE.BRIDGE.2)."""

    def __init__(self) -> None:
        self.var_map: Dict[P.PrimVar, P.PrimVar] = {}
        self.params: List[P.PrimVar] = []
        self.buffer_map: List[Tuple[P.PrimVar, tir.Buffer]] = []
        self.names: set = set()

    def _local(self, e: P.PrimExpr) -> P.PrimExpr:
        for v in prim_vars_in(e):
            if v not in self.var_map:
                self.var_map[v] = P.PrimVar(v.name, v.dtype)
        return substitute_prim(e, self.var_map)

    def buffer(self, sinfo: TensorStructInfo, name: str) -> tir.Buffer:
        base, k = name, 1
        while name in self.names:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        buf = tir.Buffer(name, tuple(self._local(d) for d in sinfo.shape.values), sinfo.dtype)
        h = P.PrimVar("var_" + name, "handle")
        self.params.append(h)
        self.buffer_map.append((h, buf))
        return buf

    def loops(self, shape: Sequence[P.PrimExpr], body: Callable[[List[P.PrimVar]], tir.Stmt],
              prefix: str) -> tir.Stmt:
        """A serial loop nest over ``shape`` (int64 loop variables ``<prefix>0, <prefix>1, ...``)."""
        lvs = [P.PrimVar(f"{prefix}{k}", "int64") for k in range(len(shape))]
        stmt = body(lvs)
        for lv, ext in reversed(list(zip(lvs, shape))):
            stmt = tir.For(lv, _I64(0), ext, "serial", stmt)
        return stmt

    def func(self, *stmts: tir.Stmt) -> tir.PrimFunc:
        body = stmts[0] if len(stmts) == 1 else tir.SeqStmt(tuple(stmts))
        return tir.PrimFunc(tuple(self.params), body, tuple(self.buffer_map), attrs={"tir.noalias": True})


def _copy(k: _Kernel, src: tir.Buffer, dst: tir.Buffer) -> tir.Stmt:
    return k.loops(src.shape, lambda i: tir.BufferStore(dst, tir.BufferLoad(src, tuple(i)), tuple(i)), "i")


def _wrap_negative(v: P.PrimExpr, extent: P.PrimExpr) -> P.PrimExpr:
    """TVM's ``k + (k < 0) * extent`` on an int64 index."""
    v = te_ops.cast("int64", v)
    return te_ops.add(v, te_ops.mul(te_ops.cast("int64", te_ops.lt(v, _I64(0))), extent))


def _combine(reduction: str, old: P.PrimExpr, new: P.PrimExpr) -> P.PrimExpr:
    if reduction == "update":
        return new
    if reduction == "add":
        return te_ops.add(old, new)
    if reduction == "mul":
        return te_ops.mul(old, new)
    if reduction == "mean":
        return te_ops.div(te_ops.add(old, new), te_ops.const(2, old.dtype))
    if reduction == "min":
        return te_ops.min_(old, new)
    if reduction == "max":
        return te_ops.max_(old, new)
    raise RelaxError(f"internal: unknown reduction {reduction!r}")


def _np_combine(reduction: str, old, new, dtype: np.dtype):
    with np.errstate(all="ignore"):
        if reduction == "update":
            return new
        if reduction == "add":
            return np.array(old + new, dtype)
        if reduction == "mul":
            return np.array(old * new, dtype)
        if reduction == "mean":
            s = np.array(old + new, dtype)
            if np.issubdtype(dtype, np.integer):
                return np.array(int(s) // 2 if s >= 0 else -((-int(s)) // 2), dtype)
            return np.array(s / np.array(2, dtype), dtype)
        if reduction == "min":
            return new if new < old else old
        if reduction == "max":
            return new if new > old else old
    raise RelaxError(f"internal: unknown reduction {reduction!r}")


def _finish(ctx, call: rx.Call, k: _Kernel, name: str, *stmts: tir.Stmt) -> rx.Call:
    gv = ctx.add_prim_func(k.func(*stmts), name)
    return ctx.call_tir(gv, list(call.args[:1]) + _tensor_args(call), [call.struct_info])


def _tensor_args(call: rx.Call) -> List[rx.Expr]:
    out = []
    for a in call.args[1:]:
        if isinstance(a.struct_info, TupleStructInfo):
            out.extend(manipulate_util.tuple_fields(a))
        else:
            out.append(a)
    return out


def _check_reduction(call, ctx, allowed: Sequence[str], title: str) -> str:
    r = call.attrs.get("reduction", "update")
    if r not in allowed:
        raise common.error(call, f"{title} reduction must be one of [{', '.join(allowed)}], got {r!r}", ctx)
    return r


# ---------------------------------------------------------------------------------------------------
# scatter_elements
# ---------------------------------------------------------------------------------------------------


def _scatter_elements_infer(call, ctx):
    """OP.scatter_elements.C1-C7 (TVM's ``InferStructInfoScatterElements``; C7, the axis, is ours)."""
    common.check_num_args(call, 3, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "ScatterElements", "data")  # C1
    idx = manipulate_util.tensor_input(call, 1, ctx, "ScatterElements", "indices")
    upd = manipulate_util.tensor_input(call, 2, ctx, "ScatterElements", "updates")
    _check_reduction(call, ctx, SCATTER_ELEMENTS_REDUCTIONS, "ScatterElements")  # C6
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    axis = call.attrs.get("axis", 0)
    if not -data.ndim <= axis < data.ndim:  # C7
        raise common.error(call, f"ScatterElements axis {axis} is out of range for data of rank {data.ndim}", ctx)
    if idx.ndim != -1 and upd.ndim != -1:  # C2
        if data.ndim != idx.ndim:
            raise common.error(call, "ScatterElements op requires the data tensor to have the same rank with indices "
                                     f"tensor. However, the given dimensions are indices: {idx.ndim}, data: "
                                     f"{data.ndim}", ctx)
        if idx.ndim != upd.ndim:
            raise common.error(call, "ScatterElements op requires the indices tensor to have the same rank with "
                                     f"updates tensor. However, the given dimensions are indices: {idx.ndim}, "
                                     f"updates: {upd.ndim}", ctx)
    if data.dtype != "void" and upd.dtype != "void" and data.dtype != upd.dtype:  # C3
        raise common.error(call, "ScatterElements op requires the input data to have same type with updates. "
                                 f"However, the given types are data: {data.dtype}, updates: {upd.dtype}", ctx)
    if idx.dtype != "void" and not manipulate_util.is_int_or_uint(idx.dtype):  # C4
        raise common.error(call, "ScatterElements op requires the input indices to have integer dtype. However, the "
                                 f"given indices dtype is {idx.dtype}", ctx)
    iv, uv = manipulate_util.shape_expr_values(idx), manipulate_util.shape_expr_values(upd)
    if iv is not None and uv is not None:  # C5
        for a, b in zip(iv, uv):
            if manipulate_util.prove_not_equal(ctx, a, b):
                raise common.error(call, "ScatterElements op requires the indices tensor to have the same shape with "
                                         f"updates tensor. However, the given shapes are indices: {iv}, updates: {uv}",
                                   ctx)
    dv = manipulate_util.shape_expr_values(data)
    if dv is not None:
        return TensorStructInfo(rx.ShapeExpr(dv), data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def _scatter_elements_ref(args, attrs, call, ctx):
    data, ind, upd = args
    out = manipulate_util.copy_out(data)
    a = attrs.get("axis", 0) % data.ndim
    red = attrs.get("reduction", "update")
    if ind.shape != upd.shape[:ind.ndim] or any(u < i for u, i in zip(upd.shape, ind.shape)):
        if ind.shape != upd.shape:
            raise manipulate_util.runtime_error(call,
                                                f"indices of shape {ind.shape} and updates of shape {upd.shape} differ")
    for d in range(data.ndim):
        if d != a and ind.shape[d] > data.shape[d]:
            raise manipulate_util.runtime_error(call,
                                                f"indices of shape {ind.shape} do not fit data of shape {data.shape}")
    ext = data.shape[a]
    for pos in np.ndindex(*ind.shape):
        k = int(ind[pos])
        k = k + ext if k < 0 else k  # OP.SCATTER.2
        if not 0 <= k < ext:
            raise manipulate_util.runtime_error(call,
                                                f"index {int(ind[pos])} is out of range for an axis of extent {ext}")
        tgt = pos[:a] + (k,) + pos[a + 1:]
        out[tgt] = _np_combine(red, out[tgt], upd[pos], out.dtype)
    return out


def _scatter_elements_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    a = call.attrs.get("axis", 0) % call.args[0].struct_info.ndim
    red = call.attrs.get("reduction", "update")
    k = _Kernel()
    data, ind, upd = (k.buffer(x.struct_info, n) for x, n in zip(call.args, ("data", "indices", "updates")))
    out = k.buffer(call.struct_info, "out_buf")

    def body(i):
        kk = _wrap_negative(tir.BufferLoad(ind, tuple(i)), out.shape[a])
        tgt = tuple(i[:a]) + (kk,) + tuple(i[a + 1:])
        return tir.BufferStore(out, _combine(red, tir.BufferLoad(out, tgt), tir.BufferLoad(upd, tuple(i))), tgt)

    return _finish(ctx, call, k, "scatter_elements", _copy(k, data, out), k.loops(ind.shape, body, "j"))


# ---------------------------------------------------------------------------------------------------
# scatter_nd
# ---------------------------------------------------------------------------------------------------


def _scatter_nd_infer(call, ctx):
    """OP.scatter_nd.C1-C7 (TVM's ``InferStructInfoScatterND``)."""
    common.check_num_args(call, 3, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "ScatterND", "data")  # C1
    idx = manipulate_util.tensor_input(call, 1, ctx, "ScatterND", "indices")
    upd = manipulate_util.tensor_input(call, 2, ctx, "ScatterND", "updates")
    _check_reduction(call, ctx, SCATTER_ND_REDUCTIONS, "ScatterND")  # C7
    if data.dtype == "void" or upd.dtype == "void":  # C2
        raise common.error(call, "ScatterND op requires the input data and updates to have known dtype. However, "
                                 f"the given types are data: {data.dtype}, updates: {upd.dtype}", ctx)
    if data.dtype != upd.dtype:
        raise common.error(call, "ScatterND op requires the input data to have same type with updates. However, "
                                 f"the given types are data: {data.dtype}, updates: {upd.dtype}", ctx)
    if idx.dtype != "void" and not manipulate_util.is_int_or_uint(idx.dtype):  # C3
        raise common.error(call, "ScatterND op requires the input indices to have integer dtype. However, the given "
                                 f"indices dtype is {idx.dtype}", ctx)
    dv, iv, uv = (manipulate_util.shape_expr_values(data), manipulate_util.shape_expr_values(idx),
                  manipulate_util.shape_expr_values(upd))
    if dv is not None and iv is not None and uv is not None:
        kdim = iv[-1] if iv else None
        if not isinstance(kdim, P.IntImm):  # C4
            raise common.error(call, f"ScatterND needs a static shape for the last axis of indices, got {iv}", ctx)
        K = kdim.value
        if len(dv) + len(iv) - K - 1 != len(uv):  # C5
            raise common.error(call, "ScatterND op requires the updates tensor to have the rank of `data tensor + "
                                     "indices tensor - last axis of indices tensor - 1`. However, the given shapes "
                                     f"are data: {dv}, indices: {iv}, updates: {uv}", ctx)
        if K > len(dv):
            raise common.error(call, "ScatterND op requires the last axis of indices tensor to be less than or equal "
                                     f"to the rank of data tensor. However, the given shapes are data: {dv}, "
                                     f"indices: {iv}", ctx)
        expected = tuple(iv[:-1]) + tuple(dv[K:])
        if len(expected) != len(uv) or not all(manipulate_util.can_prove(ctx, te_ops.eq(e, u)) for e, u in zip(expected,
                                                                                                               uv)):
            raise common.error(call, "ScatterND op requires the updates tensor to have the shape with constraint: "
                                     f"`updates.shape = indices.shape[:-1] + data.shape[K:]`, but got updates.shape: "
                                     f"{uv}, indices.shape: {iv}, data.shape: {dv}", ctx)  # C6
    if dv is not None:
        return TensorStructInfo(rx.ShapeExpr(dv), data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def _scatter_nd_ref(args, attrs, call, ctx):
    data, ind, upd = args
    out = manipulate_util.copy_out(data)
    red = attrs.get("reduction", "update")
    K = ind.shape[-1]
    lead = ind.shape[:-1]
    if K > data.ndim or tuple(upd.shape) != tuple(lead) + tuple(data.shape[K:]):  # C6 at run time
        raise manipulate_util.runtime_error(call,
                                            f"updates of shape {upd.shape} do not match indices {ind.shape} and data "
                                                  f"{data.shape}")
    for pos in np.ndindex(*lead):
        tgt = tuple(int(v) for v in ind[pos])
        for j, v in enumerate(tgt):
            if not 0 <= v < data.shape[j]:  # OP.SCATTER.2: no wrapping
                raise manipulate_util.runtime_error(call,
                                                    f"index {v} is out of range for an axis of extent {data.shape[j]}")
        for rest in np.ndindex(*data.shape[K:]):
            out[tgt + rest] = _np_combine(red, out[tgt + rest], upd[pos + rest], out.dtype)
    return out


def _scatter_nd_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    red = call.attrs.get("reduction", "update")
    k = _Kernel()
    data, ind, upd = (k.buffer(x.struct_info, n) for x, n in zip(call.args, ("data", "indices", "updates")))
    out = k.buffer(call.struct_info, "out_buf")
    K = ind.shape[-1].value
    lead = list(ind.shape[:-1])
    rest = list(data.shape[K:])

    def body(i):
        p, r = i[:len(lead)], i[len(lead):]
        tgt = tuple(te_ops.cast("int64", tir.BufferLoad(ind, tuple(p) + (_I64(j),))) for j in range(K)) + tuple(r)
        return tir.BufferStore(out, _combine(red, tir.BufferLoad(out, tgt), tir.BufferLoad(upd, tuple(i))), tgt)

    return _finish(ctx, call, k, "scatter_nd", _copy(k, data, out), k.loops(lead + rest, body, "j"))


# ---------------------------------------------------------------------------------------------------
# index_put
# ---------------------------------------------------------------------------------------------------


def _index_put_indices(call, ctx) -> List[TensorStructInfo]:
    s = common.arg_sinfo(call, 1, ctx)
    if isinstance(s, TupleStructInfo):
        out = []
        for i, f in enumerate(s.fields):
            if not isinstance(f, TensorStructInfo):
                raise common.error(call, "IndexPut requires each index in the indices tuple to be a Tensor. However, "
                                         f"element {i} has struct info {common.describe_sinfo(f)}", ctx)
            out.append(f)
        return out
    if isinstance(s, TensorStructInfo):
        return [s]
    raise common.error(call, "IndexPut requires indices to be a Tensor or a tuple of Tensors. However, the given one "
                             f"has struct info {common.describe_sinfo(s)}", ctx)


def _index_put_infer(call, ctx):
    """OP.index_put.C1-C5 (TVM's ``InferStructInfoIndexPut``)."""
    common.check_num_args(call, 3, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "IndexPut", "data")  # C1
    vals = manipulate_util.tensor_input(call, 2, ctx, "IndexPut", "values")
    idx = _index_put_indices(call, ctx)
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    for i, s in enumerate(idx):
        if s.ndim != -1 and s.ndim < 1:  # C2
            raise common.error(call, "IndexPut requires each index tensor to have at least 1 dimension. However, "
                                     f"index tensor {i} has ndim={s.ndim}", ctx)
        if s.dtype != "void" and not manipulate_util.is_int_or_uint(s.dtype):  # C3
            raise common.error(call, "IndexPut requires each index tensor to have integer dtype. However, index "
                                     f"tensor {i} has dtype={s.dtype}", ctx)
    if len(idx) != data.ndim:  # C4
        raise common.error(call, f"IndexPut requires the number of index tensors ({len(idx)}) to match the data "
                                 f"tensor dimensions ({data.ndim})", ctx)
    if data.dtype != "void" and vals.dtype != "void" and data.dtype != vals.dtype:  # C5
        raise common.error(call, "IndexPut requires the input data to have the same type as values. However, the "
                                 f"given types are data: {data.dtype}, values: {vals.dtype}", ctx)
    dv = manipulate_util.shape_expr_values(data)
    if dv is not None:
        return TensorStructInfo(rx.ShapeExpr(dv), data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def _index_put_ref(args, attrs, call, ctx):
    data, ind, vals = args
    ind = list(ind) if isinstance(ind, tuple) else [ind]
    out = manipulate_util.copy_out(data)
    try:
        b = np.broadcast_arrays(*[np.asarray(i).astype(np.int64) for i in ind])
    except ValueError:
        raise manipulate_util.runtime_error(call, "the index tensors cannot be broadcast together") from None
    n = b[0].size
    if vals.size != n:  # OP.SCATTER.5
        raise manipulate_util.runtime_error(call, f"values has {vals.size} elements for {n} index positions")
    flat_vals = np.reshape(vals, (-1,))
    acc = bool(attrs.get("accumulate", False))
    for k, pos in enumerate(np.ndindex(*b[0].shape)):
        tgt = []
        for d, i in enumerate(b):
            v = int(i[pos])
            v = v + data.shape[d] if v < 0 else v  # OP.SCATTER.2
            if not 0 <= v < data.shape[d]:
                raise manipulate_util.runtime_error(call, f"index {int(i[pos])} is out of range for an axis of extent "
                                                          f"{data.shape[d]}")
            tgt.append(v)
        t = tuple(tgt)
        out[t] = _np_combine("add" if acc else "update", out[t], flat_vals[k], out.dtype)
    return out


def _index_put_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    acc = bool(call.attrs.get("accumulate", False))
    k = _Kernel()
    data = k.buffer(call.args[0].struct_info, "data")
    idx_exprs = _tensor_args(call)[:-1]
    inds = [k.buffer(e.struct_info, f"indices_{i}") for i, e in enumerate(idx_exprs)]
    vals = k.buffer(call.args[2].struct_info, "values")
    out = k.buffer(call.struct_info, "out_buf")
    nd = max(len(b.shape) for b in inds)
    bshape: List[P.PrimExpr] = []
    for ax in range(nd):  # TOPI: the first non-1 extent of each aligned dim
        dim: P.PrimExpr = _I64(1)
        for b in inds:
            j = len(b.shape) - nd + ax
            if j >= 0 and not (isinstance(b.shape[j], P.IntImm) and b.shape[j].value == 1):
                if isinstance(dim, P.IntImm) and dim.value == 1:
                    dim = b.shape[j]
        bshape.append(dim)
    from .manipulate import ravel_index, unravel_index

    def body(i):
        tgt = []
        for d, b in enumerate(inds):
            off = nd - len(b.shape)
            pos = tuple(_I64(0) if isinstance(s, P.IntImm) and s.value == 1 else i[off + j]
                        for j, s in enumerate(b.shape))
            tgt.append(_wrap_negative(tir.BufferLoad(b, pos), out.shape[d]))
        flat = ravel_index(list(i), bshape)
        v = tir.BufferLoad(vals, tuple(unravel_index(flat, vals.shape)))
        t = tuple(tgt)
        return tir.BufferStore(out, _combine("add" if acc else "update", tir.BufferLoad(out, t), v), t)

    check = tir.AssertStmt(te_ops.eq(common.shape_product(vals.shape), common.shape_product(bshape)),
                           "index_put: values must have one element per index position",
                           k.loops(bshape, body, "j"))
    return _finish(ctx, call, k, "index_put", _copy(k, data, out), check)


# ---------------------------------------------------------------------------------------------------
# slice_scatter
# ---------------------------------------------------------------------------------------------------


def _slice_scatter_infer(call, ctx):
    """OP.slice_scatter.C1-C7 (TVM's ``InferStructInfoSliceScatter``)."""
    common.check_num_args(call, 5, ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "SliceScatter", "data")  # C1
    src = manipulate_util.tensor_input(call, 1, ctx, "SliceScatter", "src")
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    ndim, axis = data.ndim, call.attrs.get("axis", 0)
    if not -ndim <= axis < ndim:  # C2
        raise common.error(call, f"SliceScatter requires the input axis to be in the range [{-ndim}, {ndim - 1}]. "
                                 f"However, the input axis is {axis}, while ndim is {ndim}", ctx)
    if src.ndim != -1 and data.ndim != src.ndim:  # C3
        raise common.error(call, "SliceScatter op requires the data tensor to have the same rank as the src tensor. "
                                 f"However, the given dimensions are src: {src.ndim}, data: {data.ndim}", ctx)
    if data.dtype != "void" and src.dtype != "void" and data.dtype != src.dtype:  # C4
        raise common.error(call, "SliceScatter op requires the input data to have the same type as src. However, "
                                 f"the given types are data: {data.dtype}, src: {src.dtype}", ctx)
    bounds = []
    for i, key in ((2, "start"), (3, "end"), (4, "step")):  # C5
        a = call.args[i]
        if not isinstance(a, rx.PrimValue):
            raise common.error(call, f"SliceScatter expects the `{key}` argument to be a PrimValue, but got "
                                     f"{type(a).__name__}", ctx)
        if not manipulate_util.is_int_or_uint(a.value.dtype):
            raise common.error(call, f"SliceScatter expects `{key}` ({a.value}) to be an integer PrimValue, but got "
                                     f"dtype {a.value.dtype}", ctx)
        bounds.append(a.value)
    start, stop, step = bounds
    if manipulate_util.can_prove(ctx, te_ops.lt(step, te_ops.const(1, step.dtype))):  # C6
        raise common.error(call, f"SliceScatter op requires the step ({step}) to be >= 1.", ctx)
    if manipulate_util.can_prove(ctx, te_ops.lt(*te_ops.match_types(stop, start))):
        raise common.error(call, f"SliceScatter op requires start ({start}) <= end ({stop}).", ctx)
    a = axis % ndim
    dv, sv = manipulate_util.shape_expr_values(data), manipulate_util.shape_expr_values(src)
    if dv is not None and sv is not None:  # C7
        num = te_ops.floordiv(te_ops.sub(te_ops.add(te_ops.sub(stop, start), step), te_ops.const(1, step.dtype)), step)
        for i in range(ndim):
            if i != a and manipulate_util.prove_not_equal(ctx, dv[i], sv[i]):
                raise common.error(call, "SliceScatter op requires the data tensor to have the same shape as the src "
                                         f"tensor except at the scatter axis ({a}). Mismatch at dimension {i}.", ctx)
        if manipulate_util.prove_not_equal(ctx, sv[a], num):
            raise common.error(call, "SliceScatter op requires the src tensor's dimension at scatter axis "
                                     f"({a}) to match the number of elements in the slice. Actual src dimension at "
                                     f"axis {a}: {sv[a]}, Expected elements in slice (num_elem): {num}", ctx)
    if data.shape is not None:
        return TensorStructInfo(data.shape, data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)


def _slice_scatter_ref(args, attrs, call, ctx):
    data, src = args[0], args[1]
    start, stop, step = (manipulate_util.int_value(v) for v in args[2:5])
    a = attrs.get("axis", 0) % data.ndim
    if step < 1 or stop < start:
        raise manipulate_util.runtime_error(call, f"invalid slice start={start}, end={stop}, step={step}")
    num = (stop - start + step - 1) // step
    if src.ndim != data.ndim or src.shape[a] != num or any(
            src.shape[d] != data.shape[d] for d in range(data.ndim) if d != a):  # C7 at run time
        raise manipulate_util.runtime_error(call,
                                            f"src of shape {src.shape} does not fit the slice [{start}:{stop}:{step}] "
                                            "of "
                                                  f"axis {a} of data of shape {data.shape}")
    out = manipulate_util.copy_out(data)
    for i in range(max(start, 0), min(stop, data.shape[a])):
        if (i - start) % step == 0:  # OP.SCATTER.6
            sel = [slice(None)] * data.ndim
            src_sel = [slice(None)] * data.ndim
            sel[a], src_sel[a] = i, (i - start) // step
            out[tuple(sel)] = src[tuple(src_sel)]
    return out


def _slice_scatter_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    a = call.attrs.get("axis", 0) % call.args[0].struct_info.ndim

    def fte(x, src, start, stop, step):
        start, stop, step = (te_ops.cast("int64", v) for v in (start, stop, step))

        def f(*i):
            v = i[a]
            rel = te_ops.sub(v, start)
            hit = te_ops.logical_and(te_ops.logical_and(te_ops.ge(v, start), te_ops.lt(v, stop)),
                                     te_ops.eq(te_ops.floormod(rel, step), _I64(0)))
            sidx = list(i)
            sidx[a] = te_ops.floordiv(rel, step)
            return te_ops.if_then_else(hit, src(*sidx), x(*i))

        return te.compute(x.shape, f, name="T_where", index_names=[f"ax{k}" for k in range(len(x.shape))])

    return ctx.call_te(fte, *call.args, primfunc_name_hint="slice_scatter")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    def reg(name, params, infer, ref, legalize, doc):
        OPS.append(OpDef(name=f"relax.{name}", script=f"R.{name}", params=params, infer=infer, reference=ref,
                       legalize=legalize, category="indexing", doc=doc))

    reg("scatter_elements", (arg("data"), arg("indices"), arg("updates"), attr("axis", "int", 0),
                             attr("reduction", "str", "update")),
        _scatter_elements_infer, _scatter_elements_ref, _scatter_elements_legalize,
        "``R.scatter_elements(data, indices, updates, axis=0, reduction='update')`` (OP.scatter_elements.C1).")
    reg("scatter_nd", (arg("data"), arg("indices"), arg("updates"), attr("reduction", "str", "update")),
        _scatter_nd_infer, _scatter_nd_ref, _scatter_nd_legalize,
        "``R.scatter_nd(data, indices, updates, reduction='update')`` (OP.scatter_nd.C1).")
    reg("index_put", (arg("data"), arg("indices", "tuple"), arg("values"), attr("accumulate", "bool", False)),
        _index_put_infer, _index_put_ref, _index_put_legalize,
        "``R.index_put(data, indices, values, accumulate=False)`` (OP.index_put.C1).")
    reg("slice_scatter", (arg("input_tensor"), arg("src"), arg("start", "prim"), arg("end", "prim"),
                          arg("step", "prim"), attr("axis", "int", 0)),
        _slice_scatter_infer, _slice_scatter_ref, _slice_scatter_legalize,
        "``R.slice_scatter(input_tensor, src, start, end, step, axis=0)`` (OP.slice_scatter.C1).")


_define_all()

SCATTER_OPS = ("scatter_elements", "scatter_nd", "index_put", "slice_scatter")

__all__ = ["SCATTER_OPS", "SCATTER_ELEMENTS_REDUCTIONS", "SCATTER_ND_REDUCTIONS"]

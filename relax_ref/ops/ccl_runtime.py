"""The lowering of the collective operators to the runtime's collective library (PASS.LEGALIZE.CCL.1-2)
and that library as packed functions of the reference (CALL.PACKED.9).

``LegalizeOps`` turns a collective into a ``call_dps_packed`` of a ``runtime.disco.*`` function, as
TVM's pass does:

* ``ccl.allreduce(x, op_type, in_group)`` -> ``runtime.disco.allreduce(x, R.shape([code]), in_group)``
  with ``code`` the reduction's number (sum 0, prod 1, min 2, max 3, avg 4);
* ``ccl.allgather(x, n, in_group)`` -> ``runtime.disco.allgather(x, in_group)``, the output's first
  extent ``n`` times ``x``'s;
* ``ccl.broadcast_from_worker0(x)`` -> ``runtime.disco.broadcast_from_worker0(x, False)``;
* ``ccl.scatter_from_worker0(x, n, axis)`` -> ``x`` reshaped so that ``axis`` splits into ``(n, d / n)``,
  the ``n`` axis moved to the front (``permute_dims``, when ``axis`` is not 0), then
  ``runtime.disco.scatter_from_worker0(that, False)``, whose output drops the leading ``n``.

The packed functions run on the calling worker's group (:mod:`relax_ref.ops.collective`) with the
operators' own value rules, so a program gives the same values before and after the pass; the
destination tensor is the last argument. ``runtime.disco.worker_id()`` returns the worker's rank as a
shape of one dimension.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..errors import OpRuntimeError, TypeMismatchError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import ShapeStructInfo, TensorStructInfo
from ..values import ShapeValue
from . import collective

REDUCE_CODES = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}


# ---------------------------------------------------------------------------------------------------
# Values (shared by the operators' references and the packed functions)
# ---------------------------------------------------------------------------------------------------


def allreduce_value(x: np.ndarray, kind: str) -> np.ndarray:
    """Every worker's ``x`` reduced in rank order (DIST.LOCAL.2)."""
    vals = collective.current().exchange(x)
    with np.errstate(all="ignore"):
        acc = vals[0].copy()
        for v in vals[1:]:
            if kind in ("sum", "avg"):
                acc = acc + v
            elif kind == "prod":
                acc = acc * v
            elif kind == "min":
                acc = np.minimum(acc, v)
            else:
                acc = np.maximum(acc, v)
        if kind == "avg":
            acc = acc / len(vals) if _dt.is_float_numpy(x.dtype) else np.trunc(acc / len(vals))
    return np.asarray(acc).astype(x.dtype)


def group_of(op: str, n: int) -> collective.Membership:
    """The calling worker's group, which must have ``n`` workers (OP.ccl.*.C2)."""
    me = collective.current()
    if n != me.size:
        raise OpRuntimeError(f"{op}: num_workers is {n}, but the program runs on {me.size} worker(s) "
                             f"({'OP.' + op.replace('relax.', '', 1)}.C2)")
    return me


def allgather_value(x: np.ndarray, op: str, n: int) -> np.ndarray:
    vals = group_of(op, n).exchange(x)
    if any(v.shape != vals[0].shape for v in vals):
        raise OpRuntimeError(f"{op}: the workers' tensors differ in shape (OP.ccl.allgather.C2)")
    return np.concatenate(vals, axis=0) if x.ndim else np.stack(vals)


def broadcast_value(x: np.ndarray, op: str) -> np.ndarray:
    vals = collective.current().exchange(x)
    if vals[0].shape != x.shape:
        raise OpRuntimeError(f"{op}: worker 0's tensor has another shape (OP.ccl.broadcast_from_worker0.C2)")
    return vals[0].copy()


def scatter_value(x: np.ndarray, op: str, n: int, axis: int) -> np.ndarray:
    me = group_of(op, n)
    src = me.exchange(x)[0]
    if src.shape != x.shape:
        raise OpRuntimeError(f"{op}: worker 0's tensor has another shape (OP.ccl.scatter_from_worker0.C2)")
    return np.split(src, n, axis=axis)[me.rank].copy()


# ---------------------------------------------------------------------------------------------------
# The packed functions (destination-passing: the output tensor comes last)
# ---------------------------------------------------------------------------------------------------


def _tensor(v: Any, fname: str, what: str) -> np.ndarray:
    if not isinstance(v, np.ndarray):
        raise TypeMismatchError(f"{fname}: {what} must be a tensor, got {type(v).__name__}")
    return v


def _store(out: Any, value: np.ndarray, fname: str) -> None:
    out = _tensor(out, fname, "the output")
    if out.shape != value.shape or out.dtype != value.dtype:
        raise OpRuntimeError(f"{fname}: the output is {out.dtype}{list(out.shape)}, the result "
                             f"{value.dtype}{list(value.shape)}")
    out[...] = value


def _disco_allreduce(x, op_code, in_group, out):
    fname = "runtime.disco.allreduce"
    codes = {v: k for k, v in REDUCE_CODES.items()}
    code = tuple(op_code) if isinstance(op_code, ShapeValue) else ()
    if len(code) != 1 or code[0] not in codes:
        raise OpRuntimeError(f"{fname}: the reduction must be a shape of one code 0-4, got {op_code!r}")
    _store(out, allreduce_value(_tensor(x, fname, "the input"), codes[code[0]]), fname)


def _disco_allgather(x, in_group, out):
    fname = "runtime.disco.allgather"
    x = _tensor(x, fname, "the input")
    n = collective.current().size
    _store(out, allgather_value(x, fname, n), fname)


def _disco_broadcast(x, in_group, out):
    fname = "runtime.disco.broadcast_from_worker0"
    _store(out, broadcast_value(_tensor(x, fname, "the input"), fname), fname)


def _disco_scatter(x, in_group, out):
    fname = "runtime.disco.scatter_from_worker0"
    x = _tensor(x, fname, "the input")
    n = collective.current().size
    if x.ndim == 0 or x.shape[0] != n:
        raise OpRuntimeError(f"{fname}: the input's first extent must be the number of workers {n}, "
                             f"got the shape {list(x.shape)}")
    _store(out, scatter_value(x, fname, n, 0)[0], fname)


def _disco_worker_id():
    return ShapeValue((collective.current().rank,))


#: ``name -> function of internal values`` (CALL.PACKED.9)
DISCO_FUNCS = {
    "runtime.disco.allreduce": _disco_allreduce,
    "runtime.disco.allgather": _disco_allgather,
    "runtime.disco.broadcast_from_worker0": _disco_broadcast,
    "runtime.disco.scatter_from_worker0": _disco_scatter,
    "runtime.disco.worker_id": _disco_worker_id,
}


# ---------------------------------------------------------------------------------------------------
# Legalization (PASS.LEGALIZE.CCL.1-2)
# ---------------------------------------------------------------------------------------------------


def _dps(name: str, args, out: TensorStructInfo, span) -> rx.Call:
    return rx.Call(rx.Op("relax.call_dps_packed"), (rx.ExternFunc(name), rx.Tuple(tuple(args), span=span)),
                   Attrs(), (out,), span=span)


def _flag(value: bool) -> rx.PrimValue:
    return rx.PrimValue(P.IntImm(int(bool(value)), "bool"))


def _tensor_sinfo(call: rx.Call) -> Optional[TensorStructInfo]:
    s = call.args[0].struct_info
    if isinstance(s, TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
        return s
    return None


def legalize_allreduce(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    s = _tensor_sinfo(call)
    kind = call.attrs.get("op_type", "sum")
    if s is None or kind not in REDUCE_CODES:
        return None
    code = rx.ShapeExpr((P.IntImm(REDUCE_CODES[kind], "int64"),))
    return _dps("runtime.disco.allreduce", (call.args[0], code, _flag(call.attrs.get("in_group", True))),
                s, call.span)


def legalize_allgather(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    s = _tensor_sinfo(call)
    if s is None or not s.shape.values:
        return None
    n = int(call.attrs["num_workers"])
    first = ctx.analyzer.simplify(P.mul(s.shape.values[0], P.IntImm(n, s.shape.values[0].dtype)))
    out = TensorStructInfo(rx.ShapeExpr((first,) + tuple(s.shape.values[1:])), s.dtype, s.ndim, s.vdevice)
    return _dps("runtime.disco.allgather", (call.args[0], _flag(call.attrs.get("in_group", True))), out,
                call.span)


def legalize_broadcast(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    s = _tensor_sinfo(call)
    if s is None:
        return None
    return _dps("runtime.disco.broadcast_from_worker0", (call.args[0], _flag(False)), s, call.span)


def legalize_scatter(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    s = _tensor_sinfo(call)
    if s is None or not s.shape.values:
        return None
    n, axis = int(call.attrs["num_workers"]), int(call.attrs.get("axis", 0))
    dims = list(s.shape.values)
    if not -len(dims) <= axis < len(dims):
        return None
    axis %= len(dims)
    d = dims[axis]
    if not ctx.analyzer.can_prove_equal(P.floormod(d, P.IntImm(n, d.dtype)), P.IntImm(0, d.dtype)):
        return None          # OP.ccl.scatter_from_worker0.C2 is checked when it runs
    part = ctx.analyzer.simplify(P.floordiv(d, P.IntImm(n, d.dtype)))
    split = dims[:axis] + [P.IntImm(n, d.dtype), part] + dims[axis + 1:]
    x = rx.Call(rx.Op("relax.reshape"), (call.args[0], rx.ShapeExpr(tuple(split))), Attrs(), span=call.span)
    if axis:
        order = [axis] + list(range(axis)) + list(range(axis + 1, len(split)))
        x = rx.Call(rx.Op("relax.permute_dims"), (x,), Attrs({"axes": tuple(order)}), span=call.span)
        split = [split[i] for i in order]
    out = TensorStructInfo(rx.ShapeExpr(tuple(split[1:])), s.dtype, len(split) - 1, s.vdevice)
    return _dps("runtime.disco.scatter_from_worker0", (x, _flag(False)), out, call.span)


def legalize_replica_to_shard(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    """``dist.redistribute_replica_to_shard(x, n, axis)`` on a worker's tensor: the worker's rank is read
    with ``runtime.disco.worker_id`` and bound to a fresh symbolic variable ``worker_id`` by a
    ``match_cast``; the result is ``strided_slice(x, [axis], [worker_id * d // n],
    [(worker_id + 1) * d // n], assume_inbound=True)`` (PASS.LEGALIZE.CCL.2)."""
    s = _tensor_sinfo(call)
    if s is None or not s.shape.values:
        return None
    n, axis = int(call.attrs["num_workers"]), int(call.attrs["axis"])
    dims = s.shape.values
    if not -len(dims) <= axis < len(dims):
        return None
    d = dims[axis % len(dims)]
    dataflow = isinstance(call.args[0], rx.DataflowVar)
    var_t = rx.DataflowVar if dataflow else rx.Var
    rank = P.PrimVar("worker_id", "int64")
    got = var_t("gv", struct_info=ShapeStructInfo(ndim=-1))
    matched = var_t("gv", struct_info=ShapeStructInfo((rank,)))
    read = rx.Call(rx.Op("relax.call_pure_packed"), (rx.ExternFunc("runtime.disco.worker_id"),), Attrs(),
                   (ShapeStructInfo(ndim=-1),), span=call.span)
    nn = P.IntImm(n, d.dtype)
    one = P.IntImm(1, "int64")
    begin = P.floordiv(P.mul(rank, d), nn)
    end = P.floordiv(P.mul(P.add(rank, one), d), nn)
    body = rx.Call(rx.Op("relax.strided_slice"),
                   (call.args[0], rx.Tuple((rx.PrimValue(P.IntImm(axis, "int64")),)),
                    rx.Tuple((rx.PrimValue(begin),)), rx.Tuple((rx.PrimValue(end),))),
                   Attrs({"assume_inbound": True}), span=call.span)
    block_t = rx.DataflowBlock if dataflow else rx.BindingBlock
    bindings = (rx.VarBinding(got, read), rx.MatchCast(matched, got, ShapeStructInfo((rank,))))
    return rx.SeqExpr((block_t(bindings),), body)


__all__ = ["legalize_replica_to_shard", "REDUCE_CODES", "DISCO_FUNCS", "allreduce_value", "allgather_value", "broadcast_value",
           "scatter_value", "group_of", "legalize_allreduce", "legalize_allgather", "legalize_broadcast",
           "legalize_scatter"]

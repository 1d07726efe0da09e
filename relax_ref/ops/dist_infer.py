"""Struct-info inference of operators on DTensors (DIST.OP.1-5): TVM's sharding inference rules.

An operator call whose tensor arguments are DTensors infers the global result with the operator's
own rule (a DTensor is a tensor to it) and then the result's placement: each sharded axis of an
argument is followed to the result axis it becomes (the operator's *axis map*); a mesh axis that
shards some argument axis mapped to result axis ``o`` shards ``o`` in the result; a mesh axis whose
sharded argument axes vanish (a contracted or reduced axis) leaves the result replicated along it
(the workers then hold partial values until an ``allreduce``, which LowerGlobalViewToLocalView
inserts). Operators without an axis map reject DTensors.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..errors import StructInfoError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.distributed import DTensorStructInfo, Placement, PlacementSpec, REPLICA
from ..ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo
from . import common
from .elementwise import ANY_UNARY_OPS, FLOAT_UNARY_OPS
from .elementwise_activation import NN_OPS
from .elementwise_binary import BINARY_OPS
from .statistical import REDUCTION_OPS

#: ``axis_map(call, arg_sinfos, out) -> [ {arg axis: result axis} per tensor argument ]``
UNARY = {f"relax.{n}" for n in tuple(FLOAT_UNARY_OPS) + tuple(ANY_UNARY_OPS)} | {f"relax.nn.{n}" for n in NN_OPS} | {
    "relax.astype", "relax.clip", "relax.wrap_param"}
BINARY = {f"relax.{n}" for n in BINARY_OPS} | {"relax.where"}
SOFTMAX = {"relax.nn.softmax", "relax.nn.log_softmax"}
REDUCE = {f"relax.{n}" for n in REDUCTION_OPS}


def _arg_tensors(call: rx.Call) -> List[TensorStructInfo]:
    """The tensor struct infos of the arguments, fields of tuple arguments included."""
    out: List[TensorStructInfo] = []
    for a in call.args:
        s = a.struct_info
        fields = s.fields if isinstance(s, TupleStructInfo) else (s,)
        out += [f for f in fields if isinstance(f, TensorStructInfo)]
    return out


def has_dtensor_args(call: rx.Call) -> bool:
    return any(isinstance(s, DTensorStructInfo) for s in _arg_tensors(call))


def _identity_map(t: TensorStructInfo) -> Dict[int, int]:
    return {i: i for i in range(max(t.ndim, 0))}


def _broadcast_map(t: TensorStructInfo, out: TensorStructInfo) -> Dict[int, int]:
    off = out.ndim - t.ndim
    ts, os_ = common.shape_of(t), common.shape_of(out)
    m = {}
    for i in range(t.ndim):
        if ts is not None and os_ is not None and isinstance(ts[i], P.IntImm) and ts[i].value == 1 and not (
                isinstance(os_[i + off], P.IntImm) and os_[i + off].value == 1):
            continue          # a broadcast axis is not connected to the result axis
        m[i] = i + off
    return m


def _matmul_maps(a: TensorStructInfo, b: TensorStructInfo, out: TensorStructInfo) -> List[Dict[int, int]]:
    """``a``'s rows and ``b``'s columns become the result's last two axes, batch axes align to the
    right; the contracted axes map to nothing."""
    ma, mb = {}, {}
    if a.ndim >= 2:
        ma[a.ndim - 2] = out.ndim - (2 if b.ndim >= 2 else 1)
    if b.ndim >= 2:
        mb[b.ndim - 1] = out.ndim - 1
    for t, m in ((a, ma), (b, mb)):
        for i in range(t.ndim - 2):
            m[i] = out.ndim - t.ndim + i
    return [ma, mb]


def _reduce_map(call: rx.Call, t: TensorStructInfo) -> Dict[int, int]:
    axes = call.attrs.get("axis")
    keep = bool(call.attrs.get("keepdims", False))
    red = set(range(t.ndim)) if axes is None else {a % t.ndim for a in (axes if isinstance(axes, (list, tuple))
                                                                        else [axes])}
    m, o = {}, 0
    for i in range(t.ndim):
        if i in red:
            if keep:
                o += 1
            continue
        m[i] = o
        o += 1
    return m


def _reshape_map(t: TensorStructInfo, out: TensorStructInfo) -> Dict[int, int]:
    """Axes of equal prefix products and equal extent keep their identity; the first axis of a split
    group maps to the first axis of its output group (TVM's reshape rule). Symbolic extents compare by
    the arithmetic analyzer's proof of equal prefix products; an axis of extent 1 maps nowhere."""
    from ..arith import Analyzer

    ts, os_ = common.shape_of(t), common.shape_of(out)
    if ts is None or os_ is None:
        return {}
    ana = Analyzer()
    one = P.IntImm(1, "int64")
    pre_in, acc = [], one
    for d in ts:
        pre_in.append(acc)
        acc = ana.simplify(P.mul(acc, d))
    pre_out, acc = [], one
    for j, d in enumerate(os_):
        if not any(ana.can_prove_equal(acc, q) for q, _ in pre_out):
            pre_out.append((acc, j))
        acc = ana.simplify(P.mul(acc, d))
    m: Dict[int, int] = {}
    for i, p in enumerate(pre_in):
        if isinstance(ts[i], P.IntImm) and ts[i].value <= 1:
            continue
        for q, j in pre_out:
            if ana.can_prove_equal(p, q):
                m[i] = j
                break
    return m


def axis_maps(call: rx.Call, args: Sequence[TensorStructInfo], out: TensorStructInfo) -> Optional[List[Dict[int, int]]]:
    """The axis map of each tensor argument (DIST.OP.3), or None for an operator without one."""
    name = call.op.name
    if name in UNARY or name in SOFTMAX:
        return [_identity_map(a) for a in args]
    if name in BINARY:
        return [_broadcast_map(a, out) for a in args]
    if name == "relax.matmul" and len(args) == 2:
        return _matmul_maps(args[0], args[1], out)
    if name == "relax.permute_dims":
        axes = call.attrs.get("axes")
        axes = list(range(args[0].ndim))[::-1] if axes is None else [a % args[0].ndim for a in axes]
        return [{a: i for i, a in enumerate(axes)}]
    if name in REDUCE:
        return [_reduce_map(call, args[0])]
    if name == "relax.reshape":
        return [_reshape_map(args[0], out)]
    return None


def infer_on_dtensors(call: rx.Call, ctx: Any, result: StructInfo) -> StructInfo:
    """The DTensor result of an operator call with DTensor arguments, from ``result``, what the
    operator infers for the global tensors (DIST.OP.1-5)."""
    if any(isinstance(a.struct_info, TupleStructInfo) for a in call.args):
        raise common.error(call, f"{call.op.name} has no sharding rule for DTensors (DIST.OP.2)", ctx)
    dargs = [a.struct_info for a in call.args if isinstance(a.struct_info, TensorStructInfo)]
    if not all(isinstance(s, DTensorStructInfo) for s in dargs):
        raise common.error(call, "an operator takes either DTensors or tensors, not both (DIST.OP.1)", ctx)
    mesh = dargs[0].device_mesh
    if any(s.device_mesh != mesh for s in dargs):
        raise common.error(call, "the DTensor arguments lie on different device meshes (DIST.OP.1)", ctx)
    if not isinstance(result, TensorStructInfo) or isinstance(result, TupleStructInfo):
        raise common.error(call, f"{call.op.name} has no sharding rule for DTensors (DIST.OP.2)", ctx)
    out = result.tensor if isinstance(result, DTensorStructInfo) else result
    maps = axis_maps(call, dargs, out)
    if maps is None:
        raise common.error(call, f"{call.op.name} has no sharding rule for DTensors (DIST.OP.2)", ctx)
    specs: List[PlacementSpec] = []
    for j in range(mesh.ndim):
        targets = set()
        for s, m in zip(dargs, maps):
            a = s.placement.specs[j].axis
            if a is not None and a in m:
                targets.add(m[a])
        if len(targets) > 1:
            raise common.error(call, f"the arguments shard different result axes {sorted(targets)} along mesh axis "
                                     f"{j} (DIST.OP.3)", ctx)
        specs.append(PlacementSpec(targets.pop()) if targets else REPLICA)
    if call.op.name in SOFTMAX:
        axis = int(call.attrs.get("axis", -1)) % max(out.ndim, 1)
        if any(s.axis == axis for s in specs):
            raise common.error(call, f"the softmax axis {axis} is sharded (DIST.OP.4)", ctx)
    try:
        return DTensorStructInfo.of(out, mesh, Placement(tuple(specs)))
    except StructInfoError as e:
        raise common.error(call, e.message, ctx) from None


__all__ = ["has_dtensor_args", "infer_on_dtensors", "axis_maps"]

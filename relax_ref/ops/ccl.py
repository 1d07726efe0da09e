"""The collective operators (spec chapter 16, pages ``spec/ops/ccl.*.md``): ``ccl.allreduce``,
``ccl.allgather``, ``ccl.broadcast_from_worker0`` and ``ccl.scatter_from_worker0``.

They are local-view operators (DIST.LOCAL.3): each worker of the group (``relax_ref.ops.collective``)
passes its own tensor and receives the collective's result. Values are combined in rank order, so the
result is deterministic. The group is every worker of the program (TVM's ``in_group`` flag is kept as
an attribute; the reference has one group). Outside a simulated mesh a program is the lone worker of
a group of one: ``allreduce`` and ``broadcast_from_worker0`` are then the identity and
``allgather``/``scatter_from_worker0`` need ``num_workers == 1``. A DTensor argument is a struct-info
error for the others (OP.ccl.allgather.C1 etc.); ``allreduce`` of a DTensor is replicated (TVM's rule).
"""

from __future__ import annotations

from typing import Any, List

from ..errors import OpRuntimeError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.distributed import DTensorStructInfo, Placement
from ..ir.struct_info import StructInfo
from . import common
from .ccl_runtime import (
    allgather_value, allreduce_value, broadcast_value, legalize_allgather, legalize_allreduce, legalize_broadcast,
    legalize_scatter, scatter_value,
)
from .args import OpArgs
from .opdef import OpDef, arg, attr

REDUCE_OPS = ("sum", "prod", "min", "max", "avg")


def _local_tensor(call: rx.Call, ctx: Any, dtensor_ok: bool = False):
    common.check_num_args(call, 1, ctx)
    t = common.tensor_arg(call, 0, ctx, "x")
    if isinstance(t, DTensorStructInfo) and not dtensor_ok:
        raise common.error(call, "collectives take the local tensor of a worker, not an R.DTensor (DIST.LOCAL.3)", ctx)
    return t


def _infer_allreduce(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.ccl.allreduce.C1: one tensor, ``op_type`` one of sum, prod, min, max, avg; the result has its
    struct info. A DTensor (the local view after LowerGlobalViewToLocalView, where it holds each
    worker's partial value) gives the same tensor replicated on its mesh (TVM's rule)."""
    t = _local_tensor(call, ctx, dtensor_ok=True)
    if call.attrs.get("op_type", "sum") not in REDUCE_OPS:
        raise common.error(call, f"op_type must be one of {', '.join(REDUCE_OPS)}", ctx)
    if isinstance(t, DTensorStructInfo):
        return DTensorStructInfo.of(t.tensor, t.device_mesh, Placement.replicated(t.device_mesh.ndim))
    return t


def _infer_gather(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.ccl.allgather.C1: one local tensor; axis 0 grows ``num_workers`` times (TVM keeps an unknown
    shape unknown)."""
    t = _local_tensor(call, ctx)
    n = int(call.attrs.get("num_workers"))
    if n < 1:
        raise common.error(call, f"num_workers must be positive, got {n}", ctx)
    shape = common.shape_of(t)
    if shape is None or not shape:
        return t
    d = shape[0]
    first = P.IntImm(d.value * n, "int64") if isinstance(d, P.IntImm) else P.mul(d, P.IntImm(n, "int64"))
    return common.tensor_sinfo((first,) + tuple(shape[1:]), t.dtype, vdevice=t.vdevice)


def _infer_broadcast(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.ccl.broadcast_from_worker0.C1: one local tensor; its struct info."""
    return _local_tensor(call, ctx)


def _infer_scatter(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.ccl.scatter_from_worker0.C1: a local tensor of known shape whose ``axis`` divides by
    ``num_workers`` (when constant); that axis is divided by ``num_workers``."""
    t = _local_tensor(call, ctx)
    n, axis = int(call.attrs.get("num_workers")), int(call.attrs.get("axis", 0))
    shape = common.shape_of(t)
    if shape is None:
        raise common.error(call, "the input must have a known shape", ctx)
    if n < 1 or not 0 <= axis < len(shape):
        raise common.error(call, f"num_workers {n} must be positive and axis {axis} in [0, {len(shape)})", ctx)
    d = shape[axis]
    if isinstance(d, P.IntImm) and d.value % n:
        raise common.error(call, f"axis {axis} of extent {d.value} does not divide into {n} workers", ctx)
    local = list(shape)
    local[axis] = P.IntImm(d.value // n, "int64") if isinstance(d, P.IntImm) else P.div(d, P.IntImm(n, "int64"))
    return common.tensor_sinfo(local, t.dtype, vdevice=t.vdevice)


def check_scatter(args: OpArgs) -> None:
    """OP.ccl.scatter_from_worker0.C2: the extent of ``axis`` divides by ``num_workers``."""
    n, axis = int(args.attrs["num_workers"]), int(args.attrs.get("axis", 0))
    args.fail_if(args.shape(0)[axis] % n != 0, lambda: OpRuntimeError(
        f"{args.op_name}: axis {axis} does not divide into {n} workers (OP.ccl.scatter_from_worker0.C2)"))


def _ref_allreduce(args, attrs, call, ctx):
    return allreduce_value(args[0], attrs.get("op_type", "sum"))


def _ref_allgather(args, attrs, call, ctx):
    return allgather_value(args[0], "relax.ccl.allgather", int(attrs["num_workers"]))


def _ref_broadcast(args, attrs, call, ctx):
    return broadcast_value(args[0], "relax.ccl.broadcast_from_worker0")


def _ref_scatter(args, attrs, call, ctx):
    return scatter_value(args[0], "relax.ccl.scatter_from_worker0", int(attrs["num_workers"]),
                         int(attrs.get("axis", 0)))


OPS: List[OpDef] = [
    OpDef(name="relax.ccl.allreduce", script="R.ccl.allreduce",
          params=(arg("x"), attr("op_type", "str", "sum"), attr("in_group", "bool", True)),
          infer=_infer_allreduce, reference=_ref_allreduce, category="distributed",
          legalize=legalize_allreduce,
          doc="``R.ccl.allreduce(x, op_type='sum', in_group=True)``: every worker gets the reduction of all "
              "workers' tensors (OP.ccl.allreduce.C1-C2)."),
    OpDef(name="relax.ccl.allgather", script="R.ccl.allgather",
          params=(arg("x"), attr("num_workers", "int"), attr("in_group", "bool", True)),
          infer=_infer_gather, reference=_ref_allgather, category="distributed", legalize=legalize_allgather,
          doc="``R.ccl.allgather(x, num_workers, in_group=True)``: every worker gets all workers' tensors "
              "concatenated along axis 0 in rank order (OP.ccl.allgather.C1-C2)."),
    OpDef(name="relax.ccl.broadcast_from_worker0", script="R.ccl.broadcast_from_worker0", params=(arg("x"),),
          infer=_infer_broadcast, reference=_ref_broadcast, category="distributed",
          legalize=legalize_broadcast,
          doc="``R.ccl.broadcast_from_worker0(x)``: every worker gets worker 0's tensor "
              "(OP.ccl.broadcast_from_worker0.C1-C2)."),
    OpDef(name="relax.ccl.scatter_from_worker0", script="R.ccl.scatter_from_worker0",
          params=(arg("x"), attr("num_workers", "int"), attr("axis", "int", 0)),
          infer=_infer_scatter, check=check_scatter, reference=_ref_scatter, category="distributed",
          legalize=legalize_scatter,
          doc="``R.ccl.scatter_from_worker0(x, num_workers, axis=0)``: worker ``r`` gets block ``r`` of worker "
              "0's tensor along ``axis`` (OP.ccl.scatter_from_worker0.C1-C2)."),
]

__all__ = ["OPS", "REDUCE_OPS"]

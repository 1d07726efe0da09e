"""The ``dist`` operators (spec chapter 16 and pages ``spec/ops/dist.*.md``):
``dist.annotate_sharding``, ``dist.redistribute``, ``dist.redistribute_replica_to_shard`` and
``dist.call_tir_local_view``.

In the global view (DIST.SEM.1) the first three are the identity on values and change only the
struct info; ``redistribute_replica_to_shard`` on a plain tensor is the local-view operator: each
worker keeps its block of ``axis`` (DIST.LOCAL.3). ``call_tir_local_view`` calls a PrimFunc on each
worker's shards (DIST.SEM.2); the interpreter implements it (``relax_ref.interp.dist_calls``) since it
calls back into the evaluator.
"""

from __future__ import annotations

from typing import Any, List

from ..errors import OpRuntimeError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.distributed import DeviceMesh, DTensorStructInfo, Placement
from ..ir.struct_info import StructInfo, TupleStructInfo
from . import collective, common
from .ccl_runtime import legalize_replica_to_shard
from .dist_shards import assemble, shard_of
from .args import OpArgs
from .core_calls import CALL_OPS
from .opdef import OpDef, arg, attr

LOWERED_BY_PASSES = "lowered by the distributed passes (LowerDistIR), not by LegalizeOps"


def layout_attrs(call: rx.Call, ctx: Any, ndim: int):
    """The ``device_mesh`` and ``placement`` attributes, checked against each other and the rank
    (OP.dist.annotate_sharding.C1 / OP.dist.redistribute.C1)."""
    mesh, placement = call.attrs.get("device_mesh"), call.attrs.get("placement")
    if not isinstance(mesh, DeviceMesh):
        raise common.error(call, f"device_mesh must be a device mesh, got {mesh!r}", ctx)
    if not isinstance(placement, Placement):
        raise common.error(call, f"placement must be a placement such as \"S[0], R\", got {placement!r}", ctx)
    if len(placement.specs) != mesh.ndim:
        raise common.error(call, f"the placement \"{placement}\" has {len(placement.specs)} entries for a mesh of "
                                 f"{mesh.ndim} axes (DIST.SI.2)", ctx)
    for s in placement.specs:
        if s.axis is not None and ndim != -1 and s.axis >= ndim:
            raise common.error(call, f"the placement \"{placement}\" shards axis {s.axis} of a tensor of rank {ndim} "
                                     f"(DIST.SI.2)", ctx)
    return mesh, placement


def _infer_annotate(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.dist.annotate_sharding.C1: one tensor (or DTensor) and a valid mesh and placement; the result
    has the argument's struct info (the annotation guides PropagateSharding only)."""
    common.check_num_args(call, 1, ctx)
    t = common.tensor_arg(call, 0, ctx, "input")
    layout_attrs(call, ctx, t.ndim)
    return common.arg_sinfo(call, 0, ctx)


def _infer_redistribute(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.dist.redistribute.C1: one DTensor; the result is its tensor with the given mesh and placement."""
    common.check_num_args(call, 1, ctx)
    s = common.arg_sinfo(call, 0, ctx)
    if not isinstance(s, DTensorStructInfo):
        raise common.error(call, f"the input must be an R.DTensor, got {common.describe_sinfo(s)}", ctx)
    mesh, placement = layout_attrs(call, ctx, s.ndim)
    return DTensorStructInfo.of(s.tensor, mesh, placement)


def _infer_r_to_s(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.dist.redistribute_replica_to_shard.C1-C2: a tensor of known shape whose ``axis`` divides by
    ``num_workers`` (when constant). A plain tensor (local view) gives the local block, axis divided
    by ``num_workers``; a DTensor on a 1-d mesh of ``num_workers`` workers, replicated, gives the
    same tensor with placement ``S[axis]``."""
    common.check_num_args(call, 1, ctx)
    t = common.tensor_arg(call, 0, ctx, "input")
    n, axis = int(call.attrs.get("num_workers")), int(call.attrs.get("axis"))
    shape = common.shape_of(t)
    if shape is None:
        raise common.error(call, "the input must have a known shape", ctx)
    if n < 1 or not 0 <= axis < len(shape):
        raise common.error(call, f"num_workers {n} must be positive and axis {axis} in [0, {len(shape)})", ctx)
    dim = shape[axis]
    if isinstance(dim, P.IntImm) and dim.value % n != 0:
        raise common.error(call, f"axis {axis} of extent {dim.value} does not divide into {n} workers", ctx)
    s = common.arg_sinfo(call, 0, ctx)
    if isinstance(s, DTensorStructInfo):
        if s.device_mesh.ndim != 1 or s.device_mesh.size != n or not s.placement.specs[0].is_replica:
            raise common.error(call, f"a DTensor input must be replicated on a 1-d mesh of {n} workers, got "
                                     f"placement \"{s.placement}\" on {s.device_mesh}", ctx)
        return DTensorStructInfo.of(s.tensor, s.device_mesh, Placement.from_text(f"S[{axis}]"))
    local = list(shape)
    local[axis] = P.IntImm(dim.value // n, "int64") if isinstance(dim, P.IntImm) else P.div(dim, P.IntImm(n, "int64"))
    return common.tensor_sinfo(local, t.dtype, vdevice=t.vdevice)


def _identity(args, attrs, call, ctx):
    return args[0]


def _ref_redistribute(args, attrs, call, ctx):
    """The global view: the identity (DIST.SEM.1). The local view: the workers exchange their shards
    and each keeps the block its new placement gives it (DIST.LOCAL.3)."""
    me = collective.current()
    if not me.local:
        return args[0]
    src = call.args[0].struct_info
    whole = assemble(me.exchange(args[0]), src)
    dst = DTensorStructInfo.of(src.tensor, attrs["device_mesh"], attrs["placement"])
    return shard_of(whole, dst, me.coords)


def check_r_to_s(args: OpArgs) -> None:
    """OP.dist.redistribute_replica_to_shard.C3: the extent of ``axis`` divides by ``num_workers``, and
    on a plain tensor the group has ``num_workers`` workers."""
    n, axis = int(args.attrs["num_workers"]), int(args.attrs["axis"])
    dim = args.shape(0)[axis]
    args.fail_if(dim % n != 0, lambda: OpRuntimeError(
        f"{args.op_name}: axis {axis} does not divide into {n} workers (OP.dist.redistribute_replica_to_shard.C3)"))


def _ref_r_to_s(args, attrs, call, ctx):
    x = args[0]
    me = collective.current()
    if isinstance(call.args[0].struct_info, DTensorStructInfo) and not me.local:
        return x            # the global view: the value is unchanged (DIST.SEM.1)
    n, axis = int(attrs["num_workers"]), int(attrs["axis"])
    if me.size != n:
        raise OpRuntimeError(f"relax.dist.redistribute_replica_to_shard: num_workers is {n}, but the program runs on "
                             f"{me.size} worker(s) (OP.dist.redistribute_replica_to_shard.C3)")
    step = x.shape[axis] // n
    index = [slice(None)] * x.ndim
    index[axis] = slice(me.rank * step, (me.rank + 1) * step)
    return x[tuple(index)].copy()


def _infer_local_view(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.dist.call_tir_local_view.C1: like call_tir, the result is ``out_sinfo``; every output is an
    R.DTensor of known shape."""
    out = CALL_OPS[0].infer(call, ctx)
    fields: List[StructInfo] = list(out.fields) if isinstance(out, TupleStructInfo) else [out]
    for f in fields:
        if not isinstance(f, DTensorStructInfo) or common.shape_of(f) is None:
            raise common.error(call, f"every output of call_tir_local_view must be an R.DTensor of known shape, got "
                                     f"{common.describe_sinfo(f)}", ctx)
    return out


_MESH = attr("device_mesh", "any", doc="a device mesh, or its name \"mesh[i]\" in text")
_PLACE = attr("placement", "any", doc="a placement such as \"S[0], R\"")
_CALL_TIR = CALL_OPS[0]

#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [
    OpDef(name="relax.dist.annotate_sharding", script="R.dist.annotate_sharding", params=(arg("input"), _MESH, _PLACE),
          infer=_infer_annotate, reference=_identity, category="distributed", legalize_exempt=LOWERED_BY_PASSES,
          extra={"dist_attrs": True},
          doc="``R.dist.annotate_sharding(input, device_mesh, placement)``: ``input``; a sharding hint for "
              "PropagateSharding (OP.dist.annotate_sharding.C1)."),
    OpDef(name="relax.dist.redistribute", script="R.dist.redistribute", params=(arg("input"), _MESH, _PLACE),
          infer=_infer_redistribute, reference=_ref_redistribute, category="distributed", legalize_exempt=LOWERED_BY_PASSES,
          extra={"dist_attrs": True},
          doc="``R.dist.redistribute(input, device_mesh, placement)``: the same global tensor laid out anew "
              "(OP.dist.redistribute.C1)."),
    OpDef(name="relax.dist.redistribute_replica_to_shard", script="R.dist.redistribute_replica_to_shard",
          params=(arg("input"), attr("num_workers", "int"), attr("axis", "int")),
          infer=_infer_r_to_s, check=check_r_to_s, reference=_ref_r_to_s, category="distributed",
          legalize=legalize_replica_to_shard,
          doc="``R.dist.redistribute_replica_to_shard(input, num_workers, axis)``: a replicated tensor becomes "
              "sharded along ``axis`` (OP.dist.redistribute_replica_to_shard.C1-C3)."),
    OpDef(name="relax.dist.call_tir_local_view", script="R.dist.call_tir_local_view", params=_CALL_TIR.params,
          infer=_infer_local_view, normalize=_CALL_TIR.normalize, parse_call=_CALL_TIR.parse_call, purity=True,
          category="distributed", legalize_exempt="already lowered: calls a PrimFunc on each worker's shards",
          doc="``R.dist.call_tir_local_view(gvar, args, out_sinfo, tir_vars=None)``: the PrimFunc runs on each "
              "worker's local shards (OP.dist.call_tir_local_view.C1, DIST.SEM.2)."),
]

__all__ = ["OPS", "layout_attrs", "LOWERED_BY_PASSES"]

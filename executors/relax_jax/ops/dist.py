"""Lowerings of the ``dist`` operators (semantics: ``relax_ref.ops.dist``).

Global view (DIST.SEM.1): ``annotate_sharding`` and ``redistribute`` keep the value and, when the
executable runs on a JAX mesh (``relax_jax.compile(mod, mesh=...)``, see ``relax_jax.sharding``),
constrain its layout with ``jax.lax.with_sharding_constraint`` to the ``NamedSharding`` of the
placement; XLA then inserts the collectives. ``redistribute_replica_to_shard`` of a DTensor is the
identity in this view (of a plain tensor: the lone worker keeps the whole axis, num_workers must be 1);
``call_tir_local_view`` needs the local view and is refused here.

Local view (DIST.LOCAL.1-3, ``relax_jax.local_view``): a value is the worker's shard.
``redistribute`` gathers the shards along every tensor axis whose splitting changes
(``lax.all_gather`` over the mesh axes that split it) and keeps the worker's block of the new
placement; ``redistribute_replica_to_shard`` keeps block ``rank`` of ``axis``;
``annotate_sharding`` is the identity; ``call_tir_local_view`` runs the PrimFunc on the shards with
outputs of the shard shapes of ``out_sinfo``.
"""

from __future__ import annotations

from jax import lax

from relax_ref.errors import OpRuntimeError, UnsupportedError
from relax_ref.ir.distributed import DTensorStructInfo, Placement, local_struct_info
from relax_ref.ops.core_calls import dps_outputs

from ..lowering import lowering
from ..sharding import axis_names, constrain, worker_axes, worker_mesh
from ..tir.call import apply_prim_func
from .ccl import gather, worker_index
from .core import _alloc, _result, _tir_vars, _tuple_arg


@lowering("relax.dist.annotate_sharding")
def _annotate(ctx, x):
    return constrain(ctx, x, ctx.attrs["device_mesh"], ctx.attrs["placement"])


@lowering("relax.dist.redistribute")
def _redistribute(ctx, x):
    if not worker_axes(ctx):
        return constrain(ctx, x, ctx.attrs["device_mesh"], ctx.attrs["placement"])
    src = ctx.call.args[0].struct_info
    return reshard(x, src.placement, ctx.attrs["placement"], worker_mesh())


def reshard(x, src: Placement, dst: Placement, mesh):
    """A worker's shard under ``src`` -> its shard under ``dst`` (DIST.LOCAL.3, DIST.PLACE.1)."""
    names = axis_names(mesh)
    before, after = src.sharded_axes(), dst.sharded_axes()
    changed = [a for a in range(x.ndim) if list(before.get(a, [])) != list(after.get(a, []))]
    for a in changed:
        if before.get(a):
            x = gather(x, tuple(names[j] for j in before[a]), a, tiled=True)
    for a in changed:
        js = after.get(a)
        if js:
            parts = 1
            for j in js:
                parts *= mesh.shape[j]
            step = x.shape[a] // parts
            x = lax.dynamic_slice_in_dim(x, worker_index(tuple(names[j] for j in js)) * step, step, a)
    return x


@lowering("relax.dist.redistribute_replica_to_shard")
def _r_to_s(ctx, x):
    n, axis = int(ctx.attrs["num_workers"]), int(ctx.attrs["axis"])
    axes = worker_axes(ctx)
    if isinstance(ctx.call.args[0].struct_info, DTensorStructInfo) and not axes:
        s = ctx.call.args[0].struct_info
        return constrain(ctx, x, s.device_mesh, Placement.from_text(f"S[{axis}]"))
    size = worker_mesh().size if axes else 1
    if n != size:
        raise OpRuntimeError(f"relax.dist.redistribute_replica_to_shard: num_workers is {n}, but the program runs on "
                             f"{size} worker(s) (OP.dist.redistribute_replica_to_shard.C3)")
    if x.shape[axis] % n:
        raise OpRuntimeError(f"relax.dist.redistribute_replica_to_shard: axis {axis} does not divide into {n} workers "
                             f"(OP.dist.redistribute_replica_to_shard.C3)")
    if not axes:
        return x
    step = x.shape[axis] // n
    return lax.dynamic_slice_in_dim(x, worker_index(axes) * step, step, axis)


@lowering("relax.dist.call_tir_local_view", padding="aware")
def _local_view(ctx, *args):
    if not worker_axes(ctx):
        raise UnsupportedError("relax.dist.call_tir_local_view runs on the workers' shards: evaluate the program in "
                               "the local view (DIST.SEM.2)", ctx.call.span)
    vals = ctx.vals
    inputs = list(_tuple_arg(vals[1]))
    infos, is_tuple = dps_outputs(ctx.call)
    outs = [_alloc(ctx, local_struct_info(s) if isinstance(s, DTensorStructInfo) else s) for s in infos]
    tv = _tir_vars(vals, 2)
    apply_prim_func(ctx.walker, vals[0], inputs + outs + tv,
                    [True] * len(inputs) + [False] * (len(outs) + len(tv)), ctx.call)
    return _result(outs, is_tuple)

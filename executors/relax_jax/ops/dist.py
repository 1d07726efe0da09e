"""Lowerings of the ``dist`` operators (semantics: ``relax_ref.ops.dist``). In the global view
(DIST.SEM.1) ``annotate_sharding`` and ``redistribute`` keep the value and, when the executable
runs on a JAX mesh (``relax_jax.compile(mod, mesh=...)``, see ``relax_jax.sharding``), constrain its
layout with ``jax.lax.with_sharding_constraint`` to the ``NamedSharding`` of the placement; XLA then
inserts the collectives. ``redistribute_replica_to_shard`` of a DTensor is the identity in this view
(of a plain tensor: the lone worker keeps the whole axis, num_workers must be 1);
``call_tir_local_view`` needs the local view and is refused here."""

from __future__ import annotations

from relax_ref.errors import OpRuntimeError, UnsupportedError
from relax_ref.ir.distributed import DTensorStructInfo

from ..lowering import lowering
from ..sharding import constrain


@lowering("relax.dist.annotate_sharding", "relax.dist.redistribute")
def _layout(ctx, x):
    return constrain(ctx, x, ctx.attrs["device_mesh"], ctx.attrs["placement"])


@lowering("relax.dist.redistribute_replica_to_shard")
def _r_to_s(ctx, x):
    if isinstance(ctx.call.args[0].struct_info, DTensorStructInfo):
        s = ctx.call.args[0].struct_info
        from relax_ref.ir.distributed import Placement
        return constrain(ctx, x, s.device_mesh, Placement.from_text(f"S[{int(ctx.attrs['axis'])}]"))
    if int(ctx.attrs["num_workers"]) != 1:
        raise OpRuntimeError(f"relax.dist.redistribute_replica_to_shard: num_workers is {ctx.attrs['num_workers']}, "
                             f"but the program runs on 1 worker (OP.dist.redistribute_replica_to_shard.C3)")
    return x


@lowering("relax.dist.call_tir_local_view")
def _local_view(ctx, *args):
    raise UnsupportedError("relax.dist.call_tir_local_view runs on the workers' shards: evaluate the program in the "
                           "local view (DIST.SEM.2)", ctx.call.span)

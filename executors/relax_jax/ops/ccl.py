"""Lowerings of the collective operators (semantics: ``relax_ref.ops.ccl``). Inside ``shard_map``
(the local view, ``relax_jax.sharding.local_view``) they are JAX's collectives over the mesh's axes:
``allreduce`` -> ``lax.psum``/``pmax``/``pmin`` (``avg``: ``psum / n``; ``prod`` by an all-gather),
``allgather`` -> ``lax.all_gather(tiled=True)``, ``broadcast_from_worker0`` and
``scatter_from_worker0`` -> an all-gather and a selection. Outside it the program is the lone worker
of a group of one (DIST.LOCAL.2)."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from relax_ref.errors import OpRuntimeError

from ..lowering import lowering
from ..sharding import worker_axes


def _lone(ctx, n: int):
    if n != 1:
        raise OpRuntimeError(f"{ctx.call.op.name}: num_workers is {n}, but the program runs on 1 worker "
                             f"(OP.{ctx.call.op.name.replace('relax.', '', 1)}.C2)")


@lowering("relax.ccl.allreduce")
def _allreduce(ctx, x):
    axes = worker_axes(ctx)
    if not axes:
        return x
    kind = ctx.attrs.get("op_type", "sum")
    if kind == "sum":
        return lax.psum(x, axes)
    if kind == "max":
        return lax.pmax(x, axes)
    if kind == "min":
        return lax.pmin(x, axes)
    if kind == "avg":
        s = lax.psum(x, axes)
        n = lax.psum(1, axes)
        return (s / n).astype(x.dtype) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.trunc(s / n).astype(x.dtype)
    gathered = lax.all_gather(x, axes)
    return jnp.prod(gathered, axis=0).astype(x.dtype)


@lowering("relax.ccl.allgather")
def _allgather(ctx, x):
    axes = worker_axes(ctx)
    if not axes:
        _lone(ctx, int(ctx.attrs["num_workers"]))
        return x
    return lax.all_gather(x, axes, axis=0, tiled=True) if x.ndim else lax.all_gather(x, axes)


@lowering("relax.ccl.broadcast_from_worker0")
def _broadcast(ctx, x):
    axes = worker_axes(ctx)
    if not axes:
        return x
    return lax.all_gather(x, axes)[0]


@lowering("relax.ccl.scatter_from_worker0")
def _scatter(ctx, x):
    n, axis = int(ctx.attrs["num_workers"]), int(ctx.attrs.get("axis", 0))
    axes = worker_axes(ctx)
    if not axes:
        _lone(ctx, n)
        return x
    src = lax.all_gather(x, axes)[0]
    step = x.shape[axis] // n
    return lax.dynamic_slice_in_dim(src, lax.axis_index(axes) * step, step, axis)

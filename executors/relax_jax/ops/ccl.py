"""Lowerings of the collective operators (semantics: ``relax_ref.ops.ccl``). In the local view
(``relax_jax.local_view``: ``vmap`` lanes, simulated or partitioned over devices, or ``shard_map``)
they are JAX's collectives over the mesh's axes ``m0, m1, ...`` (DIST.LOCAL.3):
``allreduce`` -> ``lax.psum``/``pmax``/``pmin`` (``avg``: ``psum / n``; ``prod`` by an all-gather),
``allgather`` -> ``lax.all_gather(tiled=True)`` (workers in rank order: the mesh's row-major order),
``broadcast_from_worker0`` and ``scatter_from_worker0`` -> an all-gather and a selection. Outside
the local view the program is the lone worker of a group of one (DIST.LOCAL.2)."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from relax_ref.errors import OpRuntimeError

from ..lowering import lowering
from ..sharding import worker_axes, worker_mesh


def _op_code(ctx) -> str:
    return ctx.call.op.name.replace("relax.", "", 1)


def _check_workers(ctx, n: int) -> None:
    """OP.ccl.*.C2: ``num_workers`` is the size of the group the program runs on (DIST.LOCAL.2)."""
    mesh = worker_mesh()
    size = mesh.size if mesh is not None else 1
    if n != size:
        raise OpRuntimeError(f"{ctx.call.op.name}: num_workers is {n}, but the program runs on {size} worker(s) "
                             f"(OP.{_op_code(ctx)}.C2)")


def gather(x, axes, axis: int = 0, tiled: bool = True):
    """Every worker's ``x`` in rank order (row-major over ``axes``): concatenated along ``axis``
    (``tiled``) or stacked on a new leading axis. One ``all_gather`` per mesh axis, the minor axis
    first, so that the same code runs inside ``shard_map`` and under nested ``vmap``s."""
    out = x
    for name in reversed(axes):
        out = lax.all_gather(out, name, axis=axis if tiled else 0, tiled=tiled)
    if not tiled and len(axes) > 1:
        out = out.reshape((-1,) + tuple(x.shape))
    return out


def worker_index(axes):
    """The rank of the worker (its row-major position over ``axes``), traced."""
    idx = lax.axis_index(axes[0])
    for name in axes[1:]:
        idx = idx * lax.psum(1, name) + lax.axis_index(name)
    return idx


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
        n = worker_mesh().size
        return (s / n).astype(x.dtype) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.trunc(s / n).astype(x.dtype)
    return jnp.prod(gather(x, axes, tiled=False), axis=0).astype(x.dtype)


@lowering("relax.ccl.allgather")
def _allgather(ctx, x):
    axes = worker_axes(ctx)
    _check_workers(ctx, int(ctx.attrs["num_workers"]))
    if not axes:
        return x
    return gather(x, axes, 0, tiled=True) if x.ndim else gather(x, axes, tiled=False)


@lowering("relax.ccl.broadcast_from_worker0")
def _broadcast(ctx, x):
    axes = worker_axes(ctx)
    if not axes:
        return x
    return gather(x, axes, tiled=False)[0]


@lowering("relax.ccl.scatter_from_worker0")
def _scatter(ctx, x):
    n, axis = int(ctx.attrs["num_workers"]), int(ctx.attrs.get("axis", 0))
    axes = worker_axes(ctx)
    _check_workers(ctx, n)
    if not axes:
        return x
    if x.shape[axis] % n:
        raise OpRuntimeError(f"{ctx.call.op.name}: axis {axis} does not divide into {n} workers "
                             f"(OP.ccl.scatter_from_worker0.C2)")
    src = gather(x, axes, tiled=False)[0]
    step = x.shape[axis] // n
    return lax.dynamic_slice_in_dim(src, worker_index(axes) * step, step, axis)

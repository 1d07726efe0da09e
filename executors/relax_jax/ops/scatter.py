"""Lowerings of the scatter operators (semantics: ``relax_ref.ops.scatter``): updates applied in the
reference's sequential order (``lax.fori_loop``), so repeated indices and the order-dependent ``mean``
reduction behave as the reference.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..dims import dim_value
from ..lowering import lowering
from .index import range_check, runtime_error


def _combine(red: str, old, new, dtype):
    if red == "update":
        return new
    if red == "add":
        return (old + new).astype(dtype)
    if red == "mul":
        return (old * new).astype(dtype)
    if red == "mean":
        s = (old + new).astype(dtype)
        if jnp.issubdtype(dtype, jnp.integer):
            si = s.astype(jnp.int64)
            return jnp.where(si >= 0, si // 2, -((-si) // 2)).astype(dtype)
        return (s / jnp.asarray(2, dtype)).astype(dtype)
    if red == "min":
        return jnp.where(new < old, new, old)
    if red == "max":
        return jnp.where(new > old, new, old)
    raise ValueError(red)


def _sequential_scatter(out, targets, updates, red: str):
    """Apply ``out[targets[k]] = combine(out[targets[k]], updates[k])`` for k in order; ``targets``
    is a tuple of int64 index vectors, ``updates`` a vector (or rows of trailing elements)."""
    n = updates.shape[0]
    if n == 0 or out.size == 0:
        # nothing to apply; into an empty array every index is out of range, which the caller's
        # range check reports (JAX would raise IndexError indexing an axis of extent 0)
        return out

    def body(k, o):
        t = tuple(ix[k] for ix in targets)
        return o.at[t].set(_combine(red, o[t], updates[k], o.dtype))
    return lax.fori_loop(0, n, body, out)


@lowering("relax.scatter_elements")
def _scatter_elements(ctx, data, ind, upd):
    a = ctx.attrs.get("axis", 0) % data.ndim
    red = ctx.attrs.get("reduction", "update")
    if ind.shape != upd.shape[:ind.ndim] or any(u < i for u, i in zip(upd.shape, ind.shape)):
        if ind.shape != upd.shape:
            raise runtime_error(ctx, f"indices of shape {ind.shape} and updates of shape {upd.shape} differ")
    for d in range(data.ndim):
        if d != a and ind.shape[d] > data.shape[d]:
            raise runtime_error(ctx, f"indices of shape {ind.shape} do not fit data of shape {data.shape}")
    ext = dim_value(data.shape[a])
    k = ind.astype(jnp.int64)
    k = jnp.where(k < 0, k + ext, k)
    range_check(ctx, k, ext, "an index")
    k = jnp.clip(k, 0, max(ext - 1, 0))
    pos = [jnp.arange(n).reshape([n if j == d else 1 for j in range(ind.ndim)]) for d, n in enumerate(ind.shape)]
    tgt = [jnp.broadcast_to(k if d == a else pos[d], ind.shape).reshape(-1) for d in range(data.ndim)]
    u = upd[tuple(slice(0, n) for n in ind.shape)].reshape(-1)
    return _sequential_scatter(data, tuple(tgt), u, red)


@lowering("relax.scatter_nd")
def _scatter_nd(ctx, data, ind, upd):
    red = ctx.attrs.get("reduction", "update")
    K = ind.shape[-1]
    lead = ind.shape[:-1]
    if K > data.ndim or tuple(upd.shape) != tuple(lead) + tuple(data.shape[K:]):
        raise runtime_error(ctx, f"updates of shape {upd.shape} do not match indices {ind.shape} and data {data.shape}")
    flat = ind.astype(jnp.int64).reshape(-1, K)
    for j in range(K):
        range_check(ctx, flat[:, j], dim_value(data.shape[j]), "an index")
    tgt = tuple(jnp.clip(flat[:, j], 0, max(dim_value(data.shape[j]) - 1, 0)) for j in range(K))
    rows = upd.reshape((flat.shape[0],) + tuple(data.shape[K:]))
    return _sequential_scatter(data, tgt, rows, red)


@lowering("relax.index_put")
def _index_put(ctx, data, ind, vals):
    ind = list(ind) if isinstance(ind, tuple) else [ind]
    try:
        shape = jnp.broadcast_shapes(*[jnp.shape(i) for i in ind])
    except ValueError:
        raise runtime_error(ctx, "the index tensors cannot be broadcast together") from None
    b = [jnp.broadcast_to(jnp.asarray(i).astype(jnp.int64), shape).reshape(-1) for i in ind]
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if int(np.prod(vals.shape, dtype=np.int64)) != n:
        raise runtime_error(ctx, f"values has {int(np.prod(vals.shape, dtype=np.int64))} elements for {n} index positions")
    tgt = []
    for d, i in enumerate(b):
        ext = dim_value(data.shape[d])
        v = jnp.where(i < 0, i + ext, i)
        range_check(ctx, v, ext, "an index")
        tgt.append(jnp.clip(v, 0, max(ext - 1, 0)))
    acc = bool(ctx.attrs.get("accumulate", False))
    return _sequential_scatter(data, tuple(tgt), vals.reshape(-1), "add" if acc else "update")


@lowering("relax.slice_scatter")
def _slice_scatter(ctx, data, src, start, stop, step):
    start, stop, step = (int(ctx.static(v)) for v in (start, stop, step))
    a = ctx.attrs.get("axis", 0) % data.ndim
    if step < 1 or stop < start:
        raise runtime_error(ctx, f"invalid slice start={start}, end={stop}, step={step}")
    num = (stop - start + step - 1) // step
    if src.ndim != data.ndim or src.shape[a] != num or any(
            src.shape[d] != data.shape[d] for d in range(data.ndim) if d != a):
        raise runtime_error(ctx, f"src of shape {src.shape} does not fit the slice [{start}:{stop}:{step}] of axis {a} of data "
                       f"of shape {data.shape}")
    out = data
    for i in range(max(start, 0), min(stop, data.shape[a])):
        if (i - start) % step == 0:
            sel = [slice(None)] * data.ndim
            src_sel = [slice(None)] * data.ndim
            sel[a], src_sel[a] = i, (i - start) // step
            out = out.at[tuple(sel)].set(src[tuple(src_sel)])
    return out

"""Buffer access inside a lowered PrimFunc: a buffer either owns its array or views another
buffer's memory (:class:`View`: flat row-major addressing); loads gather and stores scatter at
clamped indices, the bounds themselves being checked by the kernel (TIR.BOUNDS.*), never silently.
"""

from __future__ import annotations

from typing import Optional

import jax.numpy as jnp

from ..prim_jax import is_static


class View:
    """How a buffer accesses memory owned by another buffer: flat row-major addressing."""

    __slots__ = ("shape", "strides", "offset")

    def __init__(self, shape, strides, offset):
        self.shape = shape
        self.strides = strides
        self.offset = offset


def flat_index(idx, view: View):
    flat = view.offset
    for i, s in zip(idx, view.strides):
        flat = flat + jnp.asarray(i, jnp.int64) * s
    return flat


def clip_index(i, n):
    if is_static(i):
        return max(0, min(int(i), max(int(n) - 1, 0)))
    return jnp.clip(jnp.asarray(i, jnp.int64), 0, max(int(n) - 1, 0))


def gather(arr, idx, view: Optional[View]):
    if view is not None:
        flat = arr.reshape(-1)
        f = clip_index(flat_index(idx, view), flat.shape[0])
        return flat[f]
    if arr.ndim == 0:
        if all(is_static(i) for i in idx):
            return arr
        shape = jnp.broadcast_shapes(*[jnp.shape(i) for i in idx]) if idx else ()
        return jnp.broadcast_to(arr, shape)
    if any(n == 0 for n in arr.shape):
        shape = jnp.broadcast_shapes(*[jnp.shape(i) for i in idx])
        return jnp.zeros(shape, arr.dtype)
    cl = tuple(clip_index(i, n) for i, n in zip(idx, arr.shape))
    return arr[cl]


def scatter(arr, idx, val, mask, view: Optional[View]):
    if view is not None:
        flat = arr.reshape(-1)
        f = clip_index(flat_index(idx, view), flat.shape[0])
        old = flat[f]
        new = val if mask is None else jnp.where(mask, val, old)
        return flat.at[f].set(new).reshape(arr.shape)
    if arr.ndim == 0:
        new = val if mask is None else jnp.where(mask, val, arr)
        return jnp.asarray(new, arr.dtype).reshape(())
    if any(n == 0 for n in arr.shape):
        return arr
    cl = tuple(clip_index(i, n) for i, n in zip(idx, arr.shape))
    if mask is None:
        return arr.at[cl].set(val)
    old = arr[cl]
    return arr.at[cl].set(jnp.where(mask, val, old))


__all__ = ["View", "flat_index", "clip_index", "gather", "scatter"]

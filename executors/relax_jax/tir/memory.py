"""Buffer access inside a lowered PrimFunc: a buffer either owns its array or views another
buffer's memory (:class:`View`: flat row-major addressing, possibly reinterpreting the memory as
another dtype of whole bytes, TIR.BUF.4); loads gather and stores scatter at clamped indices, the
bounds themselves being checked by the kernel (TIR.BOUNDS.*), never silently.
"""

from __future__ import annotations

from typing import Optional

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..prim_jax import is_static


class View:
    """How a buffer accesses memory owned by another buffer: flat row-major addressing, in elements
    of ``dtype`` (None: the owner's dtype; otherwise the owner's bytes reinterpreted, as numpy's
    ``ndarray.view`` on a little-endian machine)."""

    __slots__ = ("shape", "strides", "offset", "dtype")

    def __init__(self, shape, strides, offset, dtype=None):
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.dtype = dtype


def flat_memory(arr, dtype=None):
    """The owner's memory as a flat array of ``dtype`` elements (byte sizes of both are whole)."""
    flat = arr.reshape(-1)
    if dtype is None or np.dtype(dtype) == flat.dtype:
        return flat
    so, sv = flat.dtype.itemsize, np.dtype(dtype).itemsize
    if so < sv:
        flat = flat.reshape(-1, sv // so)
    return lax.bitcast_convert_type(flat, dtype).reshape(-1)


def owner_memory(flat, arr):
    """Inverse of :func:`flat_memory`: the flat reinterpreted elements back as ``arr``'s array."""
    if flat.dtype == arr.dtype:
        return flat.reshape(arr.shape)
    so, sv = arr.dtype.itemsize, flat.dtype.itemsize
    if sv < so:
        flat = flat.reshape(-1, so // sv)
    return lax.bitcast_convert_type(flat, arr.dtype).reshape(arr.shape)


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
        flat = flat_memory(arr, view.dtype)
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
        flat = flat_memory(arr, view.dtype)
        f = clip_index(flat_index(idx, view), flat.shape[0])
        old = flat[f]
        new = val if mask is None else jnp.where(mask, val, old)
        return owner_memory(flat.at[f].set(new), arr)
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


__all__ = ["View", "flat_memory", "owner_memory", "flat_index", "clip_index", "gather", "scatter"]

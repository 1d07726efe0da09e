"""Tensors that share a storage (VAL.TENSOR.VIEW.1-2) in the JAX executor.

JAX arrays are values, so sharing is kept explicitly: the boxes made by ``memory.view`` and
``memory.ensure_zero_offset`` and the box they view belong to one :class:`ViewGroup`, whose first
box (the *root*) spans the storage. Each member has a :class:`ViewInfo`: its offset in the root's
bytes and the byte offset it reports (``inspect.tensor_byte_offset``). When the walker mutates a
member in place (:meth:`relax_jax.walker.Walker.mutate`), :func:`propagate` writes the new bytes into
the root's bytes and recomputes every member from them, as the reference interpreter's shared numpy
memory does.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from .errors import TraceAbort


class ViewGroup:
    """The boxes over one storage; ``members[0]`` is the root."""

    __slots__ = ("members",)

    def __init__(self, root: Any) -> None:
        self.members: List[Any] = [root]


class ViewInfo:
    """A member's place in its group: ``offset`` bytes into the root, ``byte_offset`` reported."""

    __slots__ = ("group", "offset", "byte_offset")

    def __init__(self, group: ViewGroup, offset: int, byte_offset: int) -> None:
        self.group = group
        self.offset = offset
        self.byte_offset = byte_offset


def to_bytes(a: Any) -> Any:
    """The little-endian bytes of an array, flattened (a bool is one byte, 0 or 1)."""
    flat = jnp.reshape(a, (-1,))
    if flat.dtype == jnp.bool_:
        return flat.astype(jnp.uint8)
    if flat.dtype.itemsize == 1:
        return lax.bitcast_convert_type(flat, jnp.uint8)
    return jnp.reshape(lax.bitcast_convert_type(flat, jnp.uint8), (-1,))


def from_bytes(b: Any, dtype: Any, shape: Tuple[int, ...]) -> Any:
    """The array of ``dtype`` and ``shape`` whose bytes are ``b`` (as many as it needs)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return jnp.reshape(b != 0, shape)
    if dtype.itemsize == 1:
        return jnp.reshape(lax.bitcast_convert_type(b, dtype), shape)
    return jnp.reshape(lax.bitcast_convert_type(jnp.reshape(b, (-1, dtype.itemsize)), dtype), shape)


def nbytes(box: Any) -> int:
    return int(np.prod(box.data.shape, dtype=np.int64)) * np.dtype(box.data.dtype).itemsize


def join(source: Any, box: Any, relative: int, byte_offset: int) -> None:
    """Make ``box`` a member of ``source``'s group, ``relative`` bytes after ``source``."""
    if source.view is None:
        source.view = ViewInfo(ViewGroup(source), 0, 0)
    info = source.view
    box.view = ViewInfo(info.group, info.offset + relative, byte_offset)
    info.group.members.append(box)


def propagate(walker: Any, box: Any) -> None:
    """After ``box`` (a group member) got new data, every member reads the new bytes."""
    group = box.view.group
    root = group.members[0]
    storage = to_bytes(root.data)
    if box is not root:
        n = nbytes(box)
        storage = lax.dynamic_update_slice(storage, to_bytes(box.data), (box.view.offset,)) if n else storage
    for m in group.members:
        if m is box:
            continue
        if walker.traced and m.level < walker.level:
            raise TraceAbort("a tensor sharing storage with one mutated in a traced branch lives outside it")
        n = nbytes(m)
        m.data = from_bytes(lax.dynamic_slice(storage, (m.view.offset,), (n,)) if n else storage[:0],
                            m.data.dtype, tuple(m.data.shape))

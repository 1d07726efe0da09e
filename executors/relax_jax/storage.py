"""Storage objects and the tensors carved out of them (CALL.ALLOC.2, CALL.ALLOC.3).

``R.memory.alloc_storage`` yields a :class:`relax_jax.values.StorageV`, a flat byte array; ``R.memory.alloc_tensor``
yields a :class:`StorageTVal`, a tensor box whose elements *are* bytes ``[offset, offset + nbytes)`` of
the storage (row-major, little-endian: JAX's bitcasts on the host's byte order). Tensors of one storage
alias: when a box is mutated (:meth:`relax_jax.walker.Walker.mutate`), its bytes are written into the
storage and every other tensor of the storage whose bytes overlap is refreshed from it. A tensor
carved later shows the storage's current bytes.

Both evaluation modes use this: the storage's bytes are a JAX array like any tensor's data. A storage
created outside a traced branch may not be written inside it (the same rule as for tensor boxes).
"""

from __future__ import annotations

from typing import Any, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from .errors import TraceAbort
from .values import StorageV, TVal


def _storage_bytes(st: StorageV) -> Any:
    if st.buf is None:
        st.buf = jnp.zeros((st.nbytes,), jnp.uint8)
    return st.buf


class StorageTVal(TVal):
    """A tensor over bytes ``[offset, offset + nbytes)`` of ``storage``."""

    __slots__ = ("storage", "offset", "nbytes")

    def __init__(self, data: Any, level: int, storage: StorageV, offset: int, nbytes: int) -> None:
        super().__init__(data, None, level)
        self.storage = storage
        self.offset = offset
        self.nbytes = nbytes

    @property
    def span(self) -> Tuple[int, int]:
        return self.offset, self.offset + self.nbytes


def _to_bytes(x: Any) -> Any:
    x = jnp.asarray(x)
    if x.dtype == jnp.bool_:
        return x.astype(jnp.uint8).reshape(-1)
    return jax.lax.bitcast_convert_type(x, jnp.uint8).reshape(-1)


def _from_bytes(b: Any, shape: Tuple[int, ...], dtype: Any) -> Any:
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return (b != 0).reshape(shape)
    if dt.itemsize == 1:
        return jax.lax.bitcast_convert_type(b, dt).reshape(shape)
    return jax.lax.bitcast_convert_type(b.reshape(-1, dt.itemsize), dt).reshape(shape)


def carve(walker, storage: StorageV, offset: int, shape: Tuple[int, ...], dtype: Any) -> StorageTVal:
    """``memory.alloc_tensor``: the caller has checked that the bytes fit (CALL.ALLOC.3)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    data = _from_bytes(_storage_bytes(storage)[offset:offset + n], tuple(shape), dt)
    box = StorageTVal(data, walker.level, storage, offset, n)
    storage.views.append(box)
    return box


def _check_level(walker, level: int) -> None:
    if walker.traced and level < walker.level:
        raise TraceAbort("a storage created outside a traced branch is written inside it")


def write_through(walker, box: StorageTVal) -> None:
    """After ``box.data`` changed: write its bytes into the storage, refresh the overlapping views."""
    st = box.storage
    if box.nbytes == 0:
        return
    _check_level(walker, st.level)
    lo, hi = box.span
    st.buf = _storage_bytes(st).at[lo:hi].set(_to_bytes(box.data))
    for v in st.views:
        if v is box or v.nbytes == 0:
            continue
        vlo, vhi = v.span
        if vlo < hi and lo < vhi:
            _check_level(walker, v.level)
            v.data = _from_bytes(st.buf[vlo:vhi], tuple(v.data.shape), v.data.dtype)


__all__ = ["StorageTVal", "carve", "write_through"]

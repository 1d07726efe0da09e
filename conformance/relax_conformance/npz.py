"""Deterministic ``.npz`` files.

``numpy.savez`` stamps every member with the current time, so regenerating a case would change its
bytes. :func:`write_npz` writes the same container format (a zip of ``.npy`` members, readable by
``numpy.load``) with members sorted by name, a fixed timestamp, fixed permissions and no compression,
so equal arrays always give byte-identical files.

Element types NumPy cannot store natively (bfloat16, float8 variants from ``ml_dtypes``) are stored
as their unsigned-integer bit pattern; the case (or protocol message) names the real dtype and
:func:`as_dtype` reinterprets the bits.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Mapping, Optional

import numpy as np

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)

#: dtypes that are stored as bit patterns, with the width of the carrier integer type
_BIT_CARRIERS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class NpzError(ValueError):
    """An npz file is missing, unreadable or lacks a member."""


def _is_native(dtype: np.dtype) -> bool:
    return dtype.kind in "biufc" and dtype.names is None and dtype.type.__module__ == "numpy"


def dtype_name(arr: np.ndarray) -> str:
    """The Relax dtype name of an array (``float32``, ``bool``, ``bfloat16``...)."""
    return str(arr.dtype)


def to_storable(arr: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Return ``(array to store, dtype to record or None)``; non-native dtypes become bit patterns."""
    arr = np.asarray(arr)
    if _is_native(arr.dtype):
        return np.array(arr, order="C", copy=True), None
    carrier = _BIT_CARRIERS.get(arr.dtype.itemsize)
    if carrier is None:
        raise NpzError(f"cannot store dtype {arr.dtype} in an npz file")
    return np.array(arr, order="C", copy=True).view(carrier), str(arr.dtype)


def np_dtype(name: str) -> np.dtype:
    """The NumPy dtype for a Relax dtype name, including the ``ml_dtypes`` ones."""
    if not isinstance(name, str):
        raise NpzError(f"a dtype must be a string, got {str(name)[:60]!r}")
    try:
        return np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        pass
    import ml_dtypes

    if name.isidentifier() and not name.startswith("_"):
        try:
            dt = np.dtype(getattr(ml_dtypes, name))
        except (AttributeError, TypeError, ValueError):
            dt = None
        if dt is not None and dt.type.__module__.startswith("ml_dtypes"):
            return dt
    raise NpzError(f"unknown dtype {name[:60]!r}")


def as_dtype(stored: np.ndarray, dtype: str | None) -> np.ndarray:
    """Reinterpret a stored array as ``dtype`` (a no-op when ``dtype`` is None or already native)."""
    if dtype is None or str(stored.dtype) == dtype:
        return stored
    target = np_dtype(dtype)
    if _is_native(target):
        raise NpzError(f"an array of {stored.dtype} was recorded as {dtype}")
    if not target.type.__module__.startswith("ml_dtypes") or target.names is not None:
        raise NpzError(f"dtype {dtype!r} is not a tensor element type stored as bits (bfloat16, float8...)")
    if target.itemsize != stored.dtype.itemsize:
        raise NpzError(f"stored bits of width {stored.dtype.itemsize} cannot hold {dtype}")
    return stored.view(target)


def write_npz(path: str | Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` deterministically (members sorted, fixed timestamps)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for key in sorted(arrays):
            arr = np.asarray(arrays[key])
            if not _is_native(arr.dtype):
                raise NpzError(f"member {key!r}: convert {arr.dtype} with to_storable() first")
            member = io.BytesIO()
            np.lib.format.write_array(member, np.array(arr, order="C", copy=True), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, member.getvalue())
    Path(path).write_bytes(buf.getvalue())


def read_npz(path: str | Path, *, max_bytes: Optional[int] = None) -> dict[str, np.ndarray]:
    """Read every member of an npz file into a dict: no pickles, numeric arrays only, and at most
    ``max_bytes`` of uncompressed data (default: relax_ref's bound), checked from the zip headers
    before anything is decompressed (``relax_ref.npz.read_npz``)."""
    from relax_ref import npz as safe

    try:
        return safe.read_npz(path, max_bytes=safe.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes)
    except safe.NpzError as err:
        raise NpzError(err.message) from None


__all__ = ["NpzError", "write_npz", "read_npz", "to_storable", "as_dtype", "np_dtype", "dtype_name"]

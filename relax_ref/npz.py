"""Reading ``.npz`` files that may come from anyone: no pickles, and a size limit checked first.

``numpy.load`` trusts the file: a small archive can declare members that expand to gigabytes (a
decompression bomb), an ``.npy`` header can declare a shape far larger than its data, and every
kind of corruption surfaces as a different exception. :func:`read_npz` reads an npz archive member
by member and refuses, with an :class:`NpzError` naming the file and the problem, before allocating
anything large:

* a path that is not a regular file, or a file that is not a zip archive;
* a member that is not an ``.npy`` array, a duplicate or encrypted member;
* members whose uncompressed sizes (from the zip headers) add up to more than ``max_bytes``
  (default :data:`DEFAULT_MAX_BYTES`); the decompressor never produces more than a header
  declares, so this bounds the memory a read can use;
* an ``.npy`` header that is malformed, declares a dtype that is not a plain number or bool
  (object arrays would need pickles; structured, string and void dtypes are not tensor data), or a
  shape whose size differs from the bytes the member holds;
* data that does not decompress or fails its checksum.

Arrays come back writable, C- or Fortran-ordered as stored, in native byte order.
"""

from __future__ import annotations

import os
import stat
import struct
import zipfile
import zlib
from typing import Dict, Union

import numpy as np

from .files import InputFileError

#: The default bound on the total uncompressed size of an npz file's members (1 GiB).
DEFAULT_MAX_BYTES = 1 << 30

#: ``.npy`` headers longer than this are refused (numpy's own default bound).
MAX_HEADER_BYTES = 10000

#: dtype kinds an array member may have: bool, signed/unsigned integers, floats, complex numbers.
ARRAY_KINDS = "biufc"

PathLike = Union[str, "os.PathLike[str]"]


class NpzError(InputFileError):
    """An ``.npz`` file is missing, unreadable, malformed, too large or holds a non-numeric array."""


def _fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def _read_header(fp, where: str):
    """``(shape, fortran_order, dtype)`` of the ``.npy`` stream ``fp`` (positioned at its start)."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fp, max_header_size=MAX_HEADER_BYTES)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fp, max_header_size=MAX_HEADER_BYTES)
        else:
            raise NpzError(f"{where}: .npy format version {version} is not supported")
    except NpzError:
        raise
    except Exception as err:  # noqa: BLE001 - numpy parses the header with tokenize and ast: any of
        # their exceptions (TokenError, SyntaxError, ValueError, ...) means a malformed header
        raise NpzError(f"{where}: not an .npy array ({type(err).__name__}: {err})") from None
    if dtype.hasobject:
        raise NpzError(f"{where}: object arrays are refused (they can only be stored as pickles)")
    if dtype.kind not in ARRAY_KINDS or dtype.names is not None or dtype.subdtype is not None:
        raise NpzError(f"{where}: dtype {dtype} is not a tensor element type (bool, integer, float or complex)")
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise NpzError(f"{where}: malformed shape {shape!r}")
    return shape, bool(fortran), dtype


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> np.ndarray:
    with zf.open(info) as fp:
        shape, fortran, dtype = _read_header(fp, where)
        count = 1
        for d in shape:
            count *= d
        nbytes = count * dtype.itemsize
        have = info.file_size - fp.tell()
        if nbytes != have:
            raise NpzError(f"{where}: the header declares shape {shape} of {dtype} ({_fmt_bytes(nbytes)}), "
                           f"the member holds {_fmt_bytes(max(have, 0))} of data")
        buf = np.empty(nbytes, np.uint8)
        got = fp.readinto(memoryview(buf)) if nbytes else 0
        if got != nbytes:
            raise NpzError(f"{where}: truncated data ({got} of {nbytes} bytes)")
    flat = buf.view(dtype)
    arr = flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr


def _not_npz(name: str, err: Exception) -> str:
    """Why a file that zipfile refuses is not an npz archive, in words."""
    try:
        with open(name, "rb") as f:
            head = f.read(8)
    except OSError:
        head = b""
    if not head:
        return "empty file, not an npz archive"
    if head.startswith(b"\x93NUMPY"):
        return "a single .npy array, not an npz archive (write inputs with numpy.savez)"
    if head[:1] == b"\x80":
        return "a pickle, not an npz archive (pickles are never loaded)"
    return f"not an npz archive ({err})"


def read_npz(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Dict[str, np.ndarray]:
    """Every member of the npz file ``path`` as ``{name without .npy: array}``; see the module docstring
    for what is refused. ``max_bytes`` bounds the total uncompressed size of the members."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise NpzError(f"{name}: no such file") from None
    except OSError as err:
        raise NpzError(f"{name}: cannot read ({err.strerror or err})") from None
    if not stat.S_ISREG(st.st_mode):
        raise NpzError(f"{name}: not a regular file")
    out: Dict[str, np.ndarray] = {}
    try:
        with open(name, "rb") as f, zipfile.ZipFile(f) as zf:
            infos = zf.infolist()
            seen = set()
            total = 0
            for info in infos:
                if info.filename in seen:
                    raise NpzError(f"{name}: duplicate member {info.filename!r}")
                seen.add(info.filename)
                if not info.filename.endswith(".npy") or info.is_dir():
                    raise NpzError(f"{name}: member {info.filename!r} is not an .npy array")
                if info.flag_bits & 0x1:
                    raise NpzError(f"{name}: member {info.filename!r} is encrypted")
                total += info.file_size
            if total > max_bytes:
                raise NpzError(f"{name}: its members expand to {_fmt_bytes(total)}, more than the limit of "
                               f"{_fmt_bytes(max_bytes)}")
            for info in infos:
                out[info.filename[:-4]] = _read_member(zf, info, f"{name}: member {info.filename!r}")
    except NpzError:
        raise
    except FileNotFoundError:
        raise NpzError(f"{name}: no such file") from None
    except zipfile.BadZipFile as err:
        raise NpzError(f"{name}: {_not_npz(name, err)}") from None
    except (OSError, EOFError, ValueError, zlib.error, struct.error, NotImplementedError, RuntimeError,
            UnicodeDecodeError, zipfile.LargeZipFile) as err:
        raise NpzError(f"{name}: not a readable npz file ({type(err).__name__}: {err})") from None
    return out


__all__ = ["NpzError", "read_npz", "DEFAULT_MAX_BYTES", "ARRAY_KINDS"]

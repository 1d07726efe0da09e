"""Reading the files a user names on the command line.

Errors are :class:`InputFileError` (a :class:`~relax_ref.errors.RelaxError`) with the path and the
problem in one line: a missing file, a directory, a file that is not UTF-8 text, or one larger than
the limit. ``.npz`` inputs are read by :mod:`relax_ref.npz`.
"""

from __future__ import annotations

import os
import stat
from typing import Union

from .errors import RelaxError

#: The largest source text read (64 MiB).
MAX_SOURCE_BYTES = 64 << 20


class InputFileError(RelaxError):
    """A file named by the user cannot be read as what it should be."""

    kind = "input"


def read_source(path: Union[str, "os.PathLike[str]"], limit: int = MAX_SOURCE_BYTES) -> str:
    """The UTF-8 text of ``path`` (a regular file of at most ``limit`` bytes)."""
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode     # before opening: opening a FIFO would wait for a writer
        if stat.S_ISDIR(mode):
            raise InputFileError(f"{name}: is a directory")
        if not stat.S_ISREG(mode):
            raise InputFileError(f"{name}: not a regular file")
        with open(name, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{name}: is a directory") from None
    except OSError as err:
        raise InputFileError(f"{name}: cannot read ({err.strerror or err})") from None
    if len(data) > limit:
        raise InputFileError(f"{name}: larger than the limit of {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InputFileError(f"{name}: not UTF-8 text (byte 0x{data[err.start]:02x} at line {line}, "
                             f"offset {err.start})") from None


__all__ = ["InputFileError", "read_source", "MAX_SOURCE_BYTES"]

"""Hostile input files for tests of the command-line tools and the conformance runner.

Each writer builds, cheaply, a file that a careless reader would choke on:

* :func:`write_npz_bomb` -- a valid npz archive of a few MB whose one member decompresses to
  gigabytes (the compressed stream repeats one flushed deflate block, so it costs nothing to build);
* :func:`nested_json` -- JSON text nested ``depth`` levels deep;
* :func:`write_cli_files` -- a program and the hostile input files of the command line's tests.

The readers under test must refuse these with a clear message, quickly and without allocating what
the file declares.
"""

from __future__ import annotations

import io
import os
import struct
import zlib
from typing import List, Union

import numpy as np

_CHUNK = 1 << 20


def _gf2_times(mat: List[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_square(mat: List[int]) -> List[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of ``A + B`` from ``crc32(A)``, ``crc32(B)`` and ``len(B)`` (zlib's algorithm)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def _crc32_zeros(n_chunks: int) -> int:
    """CRC-32 of ``n_chunks * _CHUNK`` zero bytes, by doubling."""
    result, have = 0, 0          # the crc of the empty string, length 0
    block, block_len = zlib.crc32(bytes(_CHUNK)), _CHUNK
    n = n_chunks
    while n:
        if n & 1:
            result = crc32_combine(result, block, block_len) if have else block
            have += block_len
        n >>= 1
        if n:
            block = crc32_combine(block, block, block_len)
            block_len *= 2
    return result


def write_npz_bomb(path: Union[str, "os.PathLike[str]"], expand_to: int = 3 << 30, name: str = "x") -> int:
    """Write an npz archive with one float64 member of about ``expand_to`` bytes of zeros (rounded up to
    whole MiB, at most 4 GiB - 1 so that no ZIP64 record is needed); returns the file's size."""
    n_chunks = max(1, -(-expand_to // _CHUNK))
    data_len = n_chunks * _CHUNK
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (data_len // 8,)})
    head = header.getvalue()
    size = len(head) + data_len
    if size >= 1 << 32:
        raise ValueError("write_npz_bomb: expand_to must stay below 4 GiB")
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = co.compress(head) + co.flush(zlib.Z_FULL_FLUSH)
    block = co.compress(bytes(_CHUNK)) + co.flush(zlib.Z_FULL_FLUSH)
    last = co.flush(zlib.Z_FINISH)
    stream = first + block * n_chunks + last
    crc = crc32_combine(zlib.crc32(head), _crc32_zeros(n_chunks), data_len)
    fname = f"{name}.npy".encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(stream), size, len(fname), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(stream), size,
                          len(fname), 0, 0, 0, 0, 0, 0)
    cd_offset = len(local) + len(fname) + len(stream)
    cd = central + fname
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(cd), cd_offset, 0)
    blob = local + fname + stream + cd + end
    with open(path, "wb") as f:
        f.write(blob)
    return len(blob)


def nested_json(depth: int) -> str:
    """``[[[ ... ]]]`` nested ``depth`` deep (a valid JSON text no recursive reader can read)."""
    return "[" * depth + "]" * depth


#: the program the command line's hostile inputs are given to
CLI_SOURCE = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), s: R.Shape(["a", "b"]), k: R.Prim("int32")):
        y = R.add(x, x)
        return y
'''


def write_cli_files(d: Union[str, "os.PathLike[str]"]) -> None:
    """Into the folder ``d``: ``good.py`` (:data:`CLI_SOURCE`), ``latin1.py`` (the same ending in a
    Latin-1 byte), ``ok.npz`` (inputs for it) and the inputs a careless reader chokes on: a prim and a
    dim beyond their dtypes (``big_prim.npz``, ``big_dim.npz``), an object array, a lone ``.npy``, an
    empty file, a pickle, a truncated archive and an npz bomb (``bomb.npz``)."""
    import pickle

    def j(name: str) -> str:
        return os.path.join(d, name)

    with open(j("good.py"), "w") as f:
        f.write(CLI_SOURCE)
    with open(j("latin1.py"), "wb") as f:
        f.write(CLI_SOURCE.encode() + b"# caf\xe9\n")
    ok = dict(x=np.ones((2, 4), "float32"), s=np.array([2, 3]), k=np.array(5, "int32"))
    np.savez(j("ok.npz"), **ok)
    np.savez(j("big_prim.npz"), **dict(ok, k=np.array(2 ** 40)))
    np.savez(j("big_dim.npz"), **dict(ok, s=np.array([2 ** 64 - 1, 3], np.uint64)))
    np.savez(j("object.npz"), x=np.array([1, None], dtype=object))
    np.save(j("single.npy"), np.ones(3))
    open(j("empty.npz"), "wb").close()
    with open(j("pickled.npz"), "wb") as f:
        f.write(pickle.dumps({"x": 1}))
    with open(j("ok.npz"), "rb") as f, open(j("truncated.npz"), "wb") as g:
        g.write(f.read()[:120])
    write_npz_bomb(j("bomb.npz"), expand_to=3 << 30)


__all__ = ["write_npz_bomb", "nested_json", "crc32_combine", "CLI_SOURCE", "write_cli_files"]

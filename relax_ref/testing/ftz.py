"""Flush-to-zero for the reference, for the fuzzing harness's comparison (PRIM.FLOAT.6).

PRIM.FLOAT.6 allows an executor that compiles programs to flush subnormal ``float32``/``float64``
values to zero (XLA does on the CPU). A flushed intermediate can change a result by far more than a
rounding error (``floor_mod(-0.25, 3.4e38)``: the quotient is a subnormal, ``floor`` of it ``-1``, of
the flushed ``-0.0`` ``0``). The harness therefore compares a differing float result a second time,
with the reference evaluated under the processor's flush-to-zero and denormals-are-zero modes: a
difference that flushing explains is allowed, one that it does not is a finding.

:func:`flush_denormals` sets the two bits of the SSE control register (``MXCSR``) of the calling
thread through C's ``fegetenv``/``fesetenv`` (glibc on x86-64, where ``fenv_t`` ends with ``MXCSR``);
numpy's arithmetic honours them. Elsewhere :func:`available` is False and nothing is re-checked.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import platform
import sys
from typing import Iterator, Optional

#: MXCSR's flush-to-zero (results) and denormals-are-zero (operands) bits
_FTZ, _DAZ = 0x8000, 0x0040
#: glibc's x86-64 ``fenv_t``: the x87 environment (28 bytes), then ``MXCSR`` (4 bytes)
_FENV_SIZE, _MXCSR_AT = 32, 28

_libm: Optional[ctypes.CDLL] = None


def _lib() -> Optional[ctypes.CDLL]:
    global _libm
    if _libm is None and sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64"):
        try:
            _libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        except OSError:
            _libm = None
    return _libm


def available() -> bool:
    return _lib() is not None


@contextlib.contextmanager
def flush_denormals() -> Iterator[None]:
    """Within the block, subnormal float results and operands of the calling thread are zero."""
    lib = _lib()
    if lib is None:
        raise RuntimeError("flush-to-zero is not available on this platform")
    old = ctypes.create_string_buffer(_FENV_SIZE)
    if lib.fegetenv(old) != 0:
        raise RuntimeError("fegetenv failed")
    raw = old.raw
    mxcsr = int.from_bytes(raw[_MXCSR_AT:_MXCSR_AT + 4], "little") | _FTZ | _DAZ
    new = ctypes.create_string_buffer(raw[:_MXCSR_AT] + mxcsr.to_bytes(4, "little") + raw[_MXCSR_AT + 4:], _FENV_SIZE)
    if lib.fesetenv(new) != 0:
        raise RuntimeError("fesetenv failed")
    try:
        yield
    finally:
        lib.fesetenv(old)


__all__ = ["available", "flush_denormals"]

"""Scalar semantics of TIR arithmetic (spec chapter PRIM), shared by evaluation and constant folding.

Integers are Python ``int`` values already wrapped to their dtype; ``bool`` values are Python ``bool``;
floating-point values are numpy scalars of the dtype (``numpy.float16``, ``ml_dtypes.bfloat16``,
``numpy.float32``, ``numpy.float64``), so every operation rounds exactly like the hardware type.

Rules implemented here (each cited by ID in the spec):

* (PRIM.INT.1) integer results wrap in two's complement to the dtype's width; ``bool`` results are
  ``value != 0``.
* (PRIM.INT.2) ``FloorDiv``/``FloorMod`` round toward negative infinity (the modulo has the sign of the
  divisor); ``Div``/``Mod`` on integers truncate toward zero (the modulo has the sign of the dividend).
  ``INT_MIN // -1`` wraps to ``INT_MIN``.
* (PRIM.INT.3) integer division or modulo by zero raises :class:`~relax_ref.errors.DivisionByZeroError`.
* (PRIM.FLOAT.1) float arithmetic is IEEE arithmetic in the node's dtype; ``FloorDiv`` on floats is
  ``floor(a / b)``, ``FloorMod`` is ``a - floor(a / b) * b`` (each step rounded in the dtype), ``Mod``
  on floats is ``fmod``.
* (PRIM.FLOAT.2) float ``Min(a, b)`` is ``a if a < b else b`` and ``Max(a, b)`` is ``a if a > b else b``
  (TVM's LLVM lowering): ``max(nan, 1) == 1`` but ``max(1, nan)`` is NaN.
* (PRIM.CAST.1) int -> int wraps; anything -> bool is ``value != 0`` (NaN is True); int -> float rounds
  to nearest even.
* (PRIM.CAST.2) float -> int truncates toward zero. A value that does not fit (or NaN/inf) behaves as
  TVM's LLVM code on x86-64, which converts through a signed machine integer: targets of 32 and 64 bits
  (and ``uint32``, which converts through int64) give the intermediate type's minimum
  (``0x80...0``) reinterpreted in the target; 8- and 16-bit targets convert through int32 and then
  wrap; ``uint64`` accepts ``[-2**63, 2**64)`` (negative values wrap) and gives ``2**63`` otherwise.
  Examples: ``int32(nan) == -2**31``, ``uint8(-10.7) == 246``, ``int8(1e10) == 0``.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import DivisionByZeroError, UnsupportedError
from ..ir import dtype as _dt


# ---------------------------------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def int_info(dtype: str) -> tuple[int, bool, int, int]:
    """``(bits, signed, min, max)`` of an integer or bool dtype."""
    if dtype == "bool":
        return 1, False, 0, 1
    if not _dt.is_integer(dtype):
        raise UnsupportedError(f"'{dtype}' is not an integer data type")
    b = _dt.bits(dtype)
    if _dt.is_int(dtype):
        return b, True, -(1 << (b - 1)), (1 << (b - 1)) - 1
    return b, False, 0, (1 << b) - 1


def wrap(value: int, dtype: str) -> int:
    """Two's-complement wrap of a Python int to an integer dtype (PRIM.INT.1); bool gives 0 or 1."""
    if dtype == "bool":
        return int(value != 0)
    b, signed, lo, hi = int_info(dtype)
    if lo <= value <= hi:
        return value
    value &= (1 << b) - 1
    if signed and value > hi:
        value -= 1 << b
    return value


def _check_divisor(b: int, what: str) -> None:
    if b == 0:
        raise DivisionByZeroError(f"integer {what} by zero")


def floordiv(a: int, b: int, dtype: str) -> int:
    """``a // b`` rounding toward negative infinity, wrapped (PRIM.INT.2)."""
    _check_divisor(b, "floor division")
    return wrap(a // b, dtype)


def floormod(a: int, b: int, dtype: str) -> int:
    """Floor modulo: the result has the sign of the divisor (PRIM.INT.2)."""
    _check_divisor(b, "floor modulo")
    return wrap(a % b, dtype)


def truncdiv_exact(a: int, b: int) -> int:
    """Integer division truncating toward zero, unwrapped (PRIM.INT.2); ``b`` is not zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def truncmod_exact(a: int, b: int) -> int:
    """Integer modulo with the sign of the dividend, unwrapped (PRIM.INT.2); ``b`` is not zero."""
    return a - b * truncdiv_exact(a, b)


def truncdiv(a: int, b: int, dtype: str) -> int:
    """Division truncating toward zero, ``T.truncdiv`` (PRIM.INT.2)."""
    _check_divisor(b, "division")
    return wrap(truncdiv_exact(a, b), dtype)


def truncmod(a: int, b: int, dtype: str) -> int:
    """Truncating modulo, ``T.truncmod``: the result has the sign of the dividend (PRIM.INT.2)."""
    _check_divisor(b, "modulo")
    return wrap(a - b * truncdiv_exact(a, b), dtype)


# ---------------------------------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def float_type(dtype: str):
    """The numpy scalar type of a float dtype (``ml_dtypes.bfloat16`` for bfloat16)."""
    if not _dt.is_float(dtype):
        raise UnsupportedError(f"'{dtype}' is not a floating-point data type")
    return _dt.to_numpy(dtype).type


@lru_cache(maxsize=None)
def _mantissa_bits(dtype: str) -> int:
    return int(np.finfo(_dt.to_numpy(dtype)).nmant) + 1


def int_to_float(value: int, dtype: str):
    """Round a Python int to the nearest value of a float dtype, ties to even (PRIM.CAST.1)."""
    ftype = float_type(dtype)
    if -(1 << 53) <= value <= (1 << 53):
        return ftype(float(value))
    p = _mantissa_bits(dtype)
    mag = abs(value)
    shift = mag.bit_length() - p
    if shift > 0:
        q, r = divmod(mag, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        mag = q << shift
    try:
        f = float(mag)
    except OverflowError:
        f = float("inf")
    with np.errstate(over="ignore"):
        return ftype(-f if value < 0 else f)


def float_to_int(x: Any, dtype: str) -> Any:
    """Convert float scalars or arrays to an integer dtype with the rules of (PRIM.CAST.2).

    Returns a numpy array of the target dtype (0-d for scalar input).
    """
    target = _dt.to_numpy(dtype)
    xf = np.asarray(x).astype(np.float64)
    with np.errstate(invalid="ignore"):
        t = np.trunc(xf)
        b, _signed, _lo, _hi = int_info(dtype)
        w = 64 if (b == 64 or dtype == "uint32") else 32
        valid = (t >= -(2.0 ** (w - 1))) & (t < 2.0 ** (w - 1))
        ints = np.where(valid, t, 0.0).astype(np.int64)
        ints = np.where(valid, ints, np.int64(-(2 ** (w - 1))))
        if w == 32:
            ints = ints.astype(np.int32)
        out = ints.astype(target)
        if dtype == "uint64":
            big = (t >= 2.0 ** 63) & (t < 2.0 ** 64)
            if np.any(big):
                high = np.where(big, t - 2.0 ** 63, 0.0).astype(np.int64).astype(np.uint64)
                out = np.where(big, high + np.uint64(2 ** 63), out)
    return out


def to_value(v: Any, dtype: str) -> Any:
    """Coerce a Python or numpy scalar to the canonical representation of ``dtype``.

    ints -> wrapped ``int``, bool -> ``bool``, floats -> numpy scalar of the dtype. Integer dtypes
    accept only integral values (a non-integral float raises UnsupportedError).
    """
    if dtype == "bool":
        return bool(v)
    if _dt.is_integer(dtype):
        if isinstance(v, (bool, np.bool_)):
            return int(v)
        if isinstance(v, (int, np.integer)):
            return wrap(int(v), dtype)
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            return wrap(int(v), dtype)
        raise UnsupportedError(f"value {v!r} is not an integer of type {dtype}")
    if _dt.is_float(dtype):
        if isinstance(v, (bool, np.bool_)):
            return float_type(dtype)(float(v))
        if isinstance(v, (int, np.integer)):
            return int_to_float(int(v), dtype)
        with np.errstate(over="ignore"):
            return float_type(dtype)(v)
    return v


def from_intrinsic(r: Any, dtype: str) -> Any:
    """The canonical value of ``dtype`` for the numpy result ``r`` of an intrinsic (a 0-d array is
    read as its scalar): bool as ``bool``, integers wrapped, floats as the dtype's numpy scalar."""
    if isinstance(r, np.ndarray):
        r = r[()]
    if dtype == "bool":
        return bool(r)
    if _dt.is_integer(dtype):
        return wrap(int(r), dtype)
    if _dt.is_float(dtype):
        return float_type(dtype)(r)
    return r


def cast(value: Any, from_dtype: str, to_dtype: str) -> Any:
    """``T.Cast(to_dtype, value)`` for a scalar of ``from_dtype`` (PRIM.CAST.1-2)."""
    if from_dtype == to_dtype:
        return value
    if to_dtype == "bool":
        return bool(value != 0)
    if _dt.is_integer(to_dtype):
        if _dt.is_float(from_dtype):
            return int(float_to_int(value, to_dtype))
        return wrap(int(value), to_dtype)
    if _dt.is_float(to_dtype):
        if _dt.is_float(from_dtype):
            with np.errstate(over="ignore"):
                return float_type(to_dtype)(value)
        return int_to_float(int(value), to_dtype)
    raise UnsupportedError(f"cast from {from_dtype} to {to_dtype} is not supported")


#: ``+ - * /`` with one formula for every kind of number: Python ints exactly, Python floats in double
#: precision, numpy scalars and arrays in their own dtype (PRIM.FLOAT.1). Shared by evaluation and by the
#: parser's constant folding.
NUMBER_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}


def float_binary(op: str, a: Any, b: Any, dtype: str) -> Any:
    """A float binary operation performed in ``dtype`` (PRIM.FLOAT.1-2); ``a`` and ``b`` are numpy
    scalars (or arrays) of the dtype. ``op`` is one of add sub mul div mod floordiv floormod min max."""
    with np.errstate(all="ignore"):
        if op in NUMBER_BINARY:
            r = NUMBER_BINARY[op](a, b)
        elif op == "mod":
            r = np.fmod(a, b)
        elif op == "floordiv":
            r = np.floor(a / b)
        elif op == "floormod":
            r = a - np.floor(a / b) * b
        elif op == "min":
            r = np.where(a < b, a, b)
        elif op == "max":
            r = np.where(a > b, a, b)
        else:
            raise UnsupportedError(f"unknown float operation '{op}'")
    if isinstance(r, np.ndarray) and r.ndim == 0:
        r = r[()]
    return float_type(dtype)(r) if np.ndim(r) == 0 else r.astype(_dt.to_numpy(dtype))


__all__ = [
    "int_info", "wrap", "floordiv", "floormod", "truncdiv", "truncmod", "float_type", "int_to_float",
    "float_to_int", "to_value", "from_intrinsic", "cast", "float_binary",
]

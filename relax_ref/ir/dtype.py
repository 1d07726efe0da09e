"""Data types (spec rule VAL.DTYPE.*).

A dtype is a plain string as TVM writes it: ``"float32"``, ``"int64"``, ``"bool"``, ``"bfloat16"``,
``"uint8"``, ``"float8_e4m3fn"``, ``"handle"`` and ``"void"`` (unknown / no value). Vector lanes
(``"float32x4"``) are recognised but relax-ref's TensorIR subset does not execute them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Dict

import numpy as np

from ..errors import StructInfoError

VOID = "void"
HANDLE = "handle"

_INT_RE = re.compile(r"^(u?int)(8|16|32|64)$")
_FLOAT_RE = re.compile(r"^(float|bfloat)(16|32|64)$")

#: Every dtype relax-ref accepts for tensors.
TENSOR_DTYPES = (
    "bool",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
    "float8_e4m3fn", "float8_e5m2",
)

_ALIASES = {
    "float": "float32",
    "int": "int32",
    "double": "float64",
    "half": "float16",
    "uint1": "bool",
    "e4m3_float8": "float8_e4m3fn",
    "e5m2_float8": "float8_e5m2",
}


def canonical(dtype: str) -> str:
    """Normalise spellings (``"float"`` -> ``"float32"``); an empty string means ``"void"``."""
    if dtype is None or dtype == "":
        return VOID
    dtype = str(dtype)
    return _ALIASES.get(dtype, dtype)


def is_valid(dtype: str) -> bool:
    d = canonical(dtype)
    return d in TENSOR_DTYPES or d in (VOID, HANDLE)


def check(dtype: str) -> str:
    """Canonicalise and validate a dtype string, raising StructInfoError for unknown ones."""
    d = canonical(dtype)
    if not is_valid(d):
        raise StructInfoError(f"unknown data type '{dtype}'")
    return d


def value_dtype(dtype: str) -> str:
    """(VAL.DTYPE.4) a dtype given to a Relax value -- a tensor's element type, a prim value's type --
    canonicalised: a known dtype (or ``void``, unknown), never ``handle``. The one rule of where
    ``handle`` is refused: the parser's annotations, operator attributes and the dtype arguments of
    the allocation operators all call it (StructInfoError; the parser reports it as a ParseError)."""
    d = check(dtype)
    if d == HANDLE:
        raise StructInfoError(HANDLE_NOT_A_VALUE_DTYPE)
    return d


#: the message of :func:`value_dtype`'s refusal
HANDLE_NOT_A_VALUE_DTYPE = "data type 'handle' is not the dtype of a Relax value (only of TensorIR pointers)"


def is_void(dtype: str) -> bool:
    return canonical(dtype) == VOID


def is_bool(dtype: str) -> bool:
    return dtype == "bool"


def is_int(dtype: str) -> bool:
    """Signed integer (``int8`` .. ``int64``)."""
    return dtype.startswith("int")


def is_uint(dtype: str) -> bool:
    return dtype.startswith("uint")


def is_integer(dtype: str) -> bool:
    """Signed or unsigned integer, excluding bool."""
    return is_int(dtype) or is_uint(dtype)


def is_float(dtype: str) -> bool:
    return dtype.startswith("float") or dtype.startswith("bfloat")


def float32_intermediates(dtype: str) -> bool:
    """Whether float arithmetic on ``dtype`` keeps its intermediate values in float32 and rounds to
    the dtype once, at the result: ``bfloat16`` only (PRIM.FLOAT.7 for a composite intrinsic, OP.SEM.7
    for an operator). ``float16`` rounds every step (PRIM.FLOAT.4)."""
    return dtype == "bfloat16"


def bits(dtype: str) -> int:
    if dtype == "bool":
        return 1
    m = re.search(r"(\d+)", dtype)
    if dtype.startswith("float8"):
        return 8
    if m is None:
        raise StructInfoError(f"data type '{dtype}' has no bit width")
    return int(m.group(1))


@lru_cache(maxsize=None)
def to_numpy(dtype: str) -> np.dtype:
    """The numpy dtype for a Relax dtype (bfloat16 and float8 through ml_dtypes)."""
    d = canonical(dtype)
    if d in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, d))
    if d in TENSOR_DTYPES:
        return np.dtype(d)
    raise StructInfoError(f"data type '{dtype}' has no tensor representation")


def is_float_numpy(dt) -> bool:
    """Whether a numpy dtype holds floats, ml_dtypes' ``bfloat16`` and 8-bit floats included (numpy's
    ``kind`` is ``"V"`` for them and ``np.floating`` does not hold them). Never raises."""
    dt = np.dtype(dt)
    return dt.kind == "f" or (dt.kind == "V" and dt in _ml_floats())


@lru_cache(maxsize=None)
def _ml_floats() -> tuple:
    return tuple(to_numpy(d) for d in ("bfloat16", "float8_e4m3fn", "float8_e5m2"))


#: numpy dtype (or type) -> Relax dtype, filled by :func:`from_numpy` (a dtype's ``name`` is slow to compute)
_FROM_NUMPY: Dict[Any, str] = {}


def from_numpy(dt) -> str:
    """The Relax dtype string for a numpy dtype."""
    try:
        return _FROM_NUMPY[dt]
    except (KeyError, TypeError):
        pass
    key = dt
    dt = np.dtype(dt)
    name = dt.name
    if name == "bool_":
        name = "bool"
    elif name not in TENSOR_DTYPES:
        raise StructInfoError(f"numpy dtype '{dt}' has no Relax equivalent")
    if isinstance(key, (np.dtype, type)):
        _FROM_NUMPY[key] = name
    return name


def min_value(dtype: str):
    if is_float(dtype):
        return float(np.finfo(to_numpy(dtype)).min)
    if dtype == "bool":
        return False
    return int(np.iinfo(to_numpy(dtype)).min)


def max_value(dtype: str):
    if is_float(dtype):
        return float(np.finfo(to_numpy(dtype)).max)
    if dtype == "bool":
        return True
    return int(np.iinfo(to_numpy(dtype)).max)


def wrap_int(value: int, dtype: str) -> int:
    """Two's-complement wrap of a Python int to the width of an integer dtype (PRIM.INT.1)."""
    if dtype == "bool":
        return int(bool(value))
    b = bits(dtype)
    mask = (1 << b) - 1
    value &= mask
    if is_int(dtype) and value >= (1 << (b - 1)):
        value -= 1 << b
    return value


__all__ = [
    "VOID", "HANDLE", "TENSOR_DTYPES", "canonical", "check", "value_dtype", "HANDLE_NOT_A_VALUE_DTYPE", "is_valid",
    "is_void", "is_bool", "is_int", "is_uint", "is_integer", "is_float", "float32_intermediates", "bits", "to_numpy",
    "from_numpy", "min_value", "max_value",
    "wrap_int",
]

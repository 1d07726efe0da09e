"""Run-time values (spec chapter VAL): what the reference interpreter computes with, what operator
reference semantics take and return, and what the JAX executor converts to at the host boundary.

=====================  ===========================================================================
Relax value            Python representation
=====================  ===========================================================================
tensor                 ``numpy.ndarray`` (bfloat16/float8 through ml_dtypes; 0-d for scalars)
tuple                  ``tuple`` of values; the unit value is ``()``
shape                  :class:`ShapeValue` (a ``tuple`` subclass of Python ints)
prim value             :class:`PrimScalar` (value + dtype); the public API returns the Python scalar
string                 ``str``
data type              :class:`DTypeValue`
closure                :class:`Closure`
packed function        :class:`PackedFunc`
PrimFunc reference     :class:`PrimFuncRef` (VAL.PRIMFUNC.1)
VM storage             :class:`Storage` (memory-planning builtins only)
null                   ``None``
=====================  ===========================================================================

Conversions at the API boundary (the stable calling convention of ``relax_ref.evaluate``) are in
:func:`to_public`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Tuple

import weakref

import numpy as np

from .ir import dtype as _dt


class ShapeValue(tuple):
    """A shape value: a tuple of non-negative Python ints (VAL.SHAPE.1)."""

    def __new__(cls, dims=()):
        return super().__new__(cls, map(int, dims))

    def __repr__(self) -> str:
        return f"ShapeValue({tuple(self)!r})"


@dataclass(frozen=True)
class PrimScalar:
    """A prim value with its dtype (VAL.PRIM.1). ``value`` is a Python int/float/bool already
    wrapped to the dtype's range."""

    value: Any
    dtype: str

    def __post_init__(self):
        v = self.value
        if isinstance(v, np.generic):
            v = v.item()
        if self.dtype == "bool":
            v = bool(v)
        elif _dt.is_integer(self.dtype):
            v = _dt.wrap_int(int(v), self.dtype)
        elif _dt.is_float(self.dtype):
            v = float(v)
        object.__setattr__(self, "value", v)


@dataclass(frozen=True)
class DTypeValue:
    """The value of ``R.dtype("...")``."""

    name: str


@dataclass(eq=False)
class Closure:
    """A Relax function value together with its captured environment (VAL.CLOSURE.1). ``env`` is the
    captured Relax environment (by reference); ``sym_env`` stays empty in relax-ref's evaluator,
    because symbolic variables are not captured (EVAL.FUNC.1)."""

    func: Any  # relax_ref.ir.Function
    env: dict = field(default_factory=dict)
    sym_env: dict = field(default_factory=dict)
    name: str = "<closure>"


@dataclass(eq=False)
class PackedFunc:
    """An external function: ``fn(*values) -> value`` (VAL.PACKED.1)."""

    name: str
    fn: Callable[..., Any]

    def __call__(self, *args):
        return self.fn(*args)


@dataclass(eq=False)
class PrimFuncRef:
    """The value of a GlobalVar bound to a TensorIR ``PrimFunc`` (VAL.PRIMFUNC.1).

    Calling it runs the PrimFunc in place on its arguments and returns unit (CALL.PRIMFUNC.1);
    ``call_tir`` and its variants use ``func`` directly."""

    name: str
    func: Any  # relax_ref.ir.tir.PrimFunc


@dataclass(eq=False)
class Storage:
    """A raw allocation made by ``R.memory.alloc_storage`` / ``vm.builtin.alloc_storage``: a flat
    ``uint8`` numpy buffer that tensors are carved out of (``R.memory.alloc_tensor``)."""

    data: np.ndarray


def is_tensor(v: Any) -> bool:
    return isinstance(v, np.ndarray)


#: the words that describe a value in error messages, by kind: ``Tensor((2, 3), float32)``,
#: ``Shape([2, 3])``, ``Prim(1, int64)``, ``Function(f)``, ... (every evaluator describes alike)
VALUE_LABELS = {"tensor": "Tensor", "shape": "Shape", "prim": "Prim", "closure": "Function",
                "packed": "PackedFunc", "primfunc": "PrimFunc", "storage": "Storage"}


def dtype_text(np_dtype: Any) -> str:
    """A numpy dtype by its Relax name, or as numpy writes it when it has none."""
    try:
        return _dt.from_numpy(np.dtype(np_dtype))
    except Exception:  # noqa: BLE001 - describing an arbitrary foreign dtype
        return str(np_dtype)


def describe_value(v: Any, details: Sequence[Tuple[type, str, Callable[[Any], str]]]) -> str:
    """``v`` described for an error message. ``details``: the evaluator's value classes, each with its
    kind (a key of :data:`VALUE_LABELS`) and the text inside the parentheses; tuples, strings, data
    types and null are described here."""
    for cls, kind, detail in details:
        if isinstance(v, cls):
            return f"{VALUE_LABELS[kind]}({detail(v)})"
    if isinstance(v, tuple):
        return "Tuple(" + ", ".join(describe_value(x, details) for x in v) + ")"
    if isinstance(v, str):
        return f"String({v!r})"
    if isinstance(v, DTypeValue):
        return f"DataType({v.name})"
    if v is None:
        return "null"
    return type(v).__name__


_DETAILS = (
    (np.ndarray, "tensor", lambda v: f"{tuple(v.shape)}, {dtype_text(v.dtype)}"),
    (ShapeValue, "shape", lambda v: f"{list(v)}"),
    (PrimScalar, "prim", lambda v: f"{v.value!r}, {v.dtype}"),
    (Closure, "closure", lambda v: v.name),
    (PackedFunc, "packed", lambda v: v.name),
    (PrimFuncRef, "primfunc", lambda v: v.name),
    (Storage, "storage", lambda v: f"{v.data.size} bytes"),
)


def describe(v: Any) -> str:
    """A short description of a value for error messages: ``Tensor((2, 3), float32)``."""
    return describe_value(v, _DETAILS)


def to_public(v: Any) -> Any:
    """Convert an internal value to the public calling convention: numpy arrays, tuples,
    ``ShapeValue``s and Python scalars."""
    if isinstance(v, PrimScalar):
        return v.value
    if isinstance(v, tuple) and not isinstance(v, ShapeValue):
        return tuple(to_public(x) for x in v)
    if isinstance(v, DTypeValue):
        return v.name
    return v


# ---------------------------------------------------------------------------------------------------
# The byte offset of a tensor (VAL.TENSOR.VIEW.1)
# ---------------------------------------------------------------------------------------------------

#: id(array) -> (weak reference to the array, byte offset) for the tensors made by ``memory.view``
_BYTE_OFFSETS: dict = {}


def byte_offset(a: np.ndarray) -> int:
    """The byte offset a tensor reports (``DLTensor::byte_offset``): 0 unless ``a`` was made by
    ``memory.view`` with an offset (VAL.TENSOR.VIEW.1)."""
    entry = _BYTE_OFFSETS.get(id(a))
    if entry is not None and entry[0]() is a:
        return entry[1]
    return 0


def set_byte_offset(a: np.ndarray, offset: int) -> None:
    """Record the byte offset of a view (kept as long as the array lives)."""
    key = id(a)
    if offset:
        _BYTE_OFFSETS[key] = (weakref.ref(a, lambda _r, key=key: _BYTE_OFFSETS.pop(key, None)), int(offset))



def split_entry(args: Sequence[Any], entry: Optional[str]) -> Tuple[str, Tuple[Any, ...]]:
    """The host calling convention (CALL.HOST.1): ``f(mod, "main", x, y)`` or ``f(mod, x, y,
    entry="main")``; without ``entry=`` a first positional string names the function, and with no
    arguments at all the function is ``main``."""
    if entry is not None:
        return entry, tuple(args)
    if args and isinstance(args[0], str):
        return args[0], tuple(args[1:])
    if not args:
        return "main", ()
    raise TypeError("name the function to call: f('main', *args) or f(*args, entry='main')")


__all__ = ["byte_offset", "set_byte_offset", "ShapeValue", "PrimScalar", "DTypeValue", "Closure", "PackedFunc", "PrimFuncRef", "Storage",
           "is_tensor", "describe", "describe_value", "dtype_text", "VALUE_LABELS", "to_public", "split_entry"]

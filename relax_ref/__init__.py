"""relax-ref: the executable reference for Apache TVM's Relax IR."""

from .errors import (
    ArityMismatchError, AssertionFailedError, DivisionByZeroError, DTypeMismatchError, NDimMismatchError,
    OpRuntimeError, PackedFuncError, ParseError, RelaxError, RelaxRuntimeError, ShapeMismatchError, Span,
    StructInfoError, StructInfoMismatchError, TIRBoundsError, TypeMismatchError, UnsupportedError,
    ValueMismatchError, WellFormedError,
)
from .ir import IRModule

__version__ = "0.1.0"

__all__ = [
    "IRModule", "Span", "RelaxError", "ParseError", "WellFormedError", "StructInfoError",
    "UnsupportedError", "RelaxRuntimeError", "StructInfoMismatchError", "TypeMismatchError",
    "ShapeMismatchError", "NDimMismatchError", "DTypeMismatchError", "ArityMismatchError",
    "ValueMismatchError", "TIRBoundsError", "DivisionByZeroError", "AssertionFailedError",
    "PackedFuncError", "OpRuntimeError",
]

"""relax-ref: the executable reference for Apache TVM's Relax IR.

Stable public API::

    relax_ref.parse(text) -> IRModule            # parse + normalize + well-formedness check
    mod.script(dialect="classic" | "tvm-0.25" | "tvm-0.27" | "tvm")   # TVMScript text (tvm: newest)
    relax_ref.structural_equal(a, b)              # alpha-equivalence-aware structural equality
    relax_ref.evaluate(mod, entry, *args)         # the reference interpreter
    relax_ref.Interpreter(mod), relax_ref.register_func(name, fn)
    relax_ref.RelaxError and its subclasses
"""

from __future__ import annotations

from typing import Optional

from .errors import (
    ArityMismatchError, AssertionFailedError, DivisionByZeroError, DTypeMismatchError, NDimMismatchError,
    OpRuntimeError, PackedFuncError, ParseError, RelaxError, RelaxRuntimeError, ShapeMismatchError, Span,
    StructInfoError, StructInfoMismatchError, TIRBoundsError, TypeMismatchError, UnsupportedError,
    ValueMismatchError, WellFormedError,
)
from ._version import __version__
from .ir import IRModule
from .ir import printing as _printing


def _printer():
    from .script import printer

    return printer


_printing.set_printer(_printer)


def parse(text: str, **kwargs) -> IRModule:
    """Parse TVMScript text into a normalized, well-formed IRModule (raises ParseError,
    WellFormedError or StructInfoError)."""
    from .script.parser import parse as _parse

    return _parse(text, **kwargs)


def parse_file(path, **kwargs) -> IRModule:
    """Like :func:`parse`, reading the text from ``path``."""
    from .script.parser import parse_file as _parse_file

    return _parse_file(path, **kwargs)


def structural_equal(a, b, **kwargs) -> bool:
    """Structural equality up to renaming of bound variables (alpha-equivalence)."""
    from .analysis.structural_equal import structural_equal as _se

    return _se(a, b, **kwargs)


def assert_structural_equal(a, b, **kwargs) -> None:
    from .analysis.structural_equal import assert_structural_equal as _ase

    _ase(a, b, **kwargs)


def evaluate(mod: IRModule, *args, entry: Optional[str] = None, vectorize: bool = True):
    """Run function ``entry`` of ``mod`` on the reference interpreter (see relax_ref.interp):
    ``evaluate(mod, "main", x, y)`` or ``evaluate(mod, x, y, entry="main")``.

    ``vectorize=False`` forces the scalar TensorIR path (slow; for cross-checking)."""
    from .interp import evaluate as _evaluate

    return _evaluate(mod, *args, entry=entry, vectorize=vectorize)


_LAZY = {
    "Interpreter": ("relax_ref.interp", "Interpreter"),
    "register_func": ("relax_ref.interp", "register_func"),
    "ShapeValue": ("relax_ref.values", "ShapeValue"),
    "well_formed": ("relax_ref.static.well_formed", "check_well_formed"),
    "normalize": ("relax_ref.static.normalize", "normalize_module"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        mod_name, attr = _LAZY[name]
        return getattr(importlib.import_module(mod_name), attr)
    raise AttributeError(f"module 'relax_ref' has no attribute '{name}'")


__all__ = [
    "IRModule", "parse", "parse_file", "structural_equal", "assert_structural_equal", "evaluate",
    "Interpreter", "register_func", "ShapeValue", "Span", "RelaxError", "ParseError", "WellFormedError",
    "StructInfoError", "UnsupportedError", "RelaxRuntimeError", "StructInfoMismatchError",
    "TypeMismatchError", "ShapeMismatchError", "NDimMismatchError", "DTypeMismatchError",
    "ArityMismatchError", "ValueMismatchError", "TIRBoundsError", "DivisionByZeroError",
    "AssertionFailedError", "PackedFuncError", "OpRuntimeError",
]

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
    ArityMismatchError, AssertionFailedError, DivisionByZeroError, DTypeMismatchError, LimitExceededError,
    NDimMismatchError,
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


def _reader():
    from .script.parser import parse as _parse

    return _parse


_printing.set_printer(_printer)
_printing.set_reader(_reader)


def parse(text, **kwargs) -> IRModule:
    """Parse TVMScript text into a normalized, well-formed IRModule (raises ParseError,
    WellFormedError or StructInfoError). A ``tvm.IRModule`` is read through TVM's printer
    (TEXT.TVM.1); any other object is a TypeMismatchError naming its type."""
    from .script.interop import as_text
    from .script.parser import parse as _parse

    source, file = as_text(text, "relax_ref.parse")
    if file is not None:
        kwargs.setdefault("file", file)
    return _parse(source, **kwargs)


def parse_file(path, **kwargs) -> IRModule:
    """Like :func:`parse`, reading the text from ``path``."""
    from .script.parser import parse_file as _parse_file

    return _parse_file(path, **kwargs)


def structural_equal(a, b, **kwargs) -> bool:
    """Structural equality as TVM defines it (EXPR.EQ.3): up to renaming of bound variables,
    ignoring name hints and spans; ``strict=True`` also compares TIR block names. A
    ``tvm.IRModule`` on either side is converted first (EXPR.EQ.4)."""
    from .analysis.structural_equal import structural_equal as _se
    from .script.interop import as_comparable

    return _se(as_comparable(a), as_comparable(b), **kwargs)


def assert_structural_equal(a, b, **kwargs) -> None:
    """Raise an AssertionError (StructuralMismatchError) with a readable report unless
    ``structural_equal(a, b, **kwargs)``."""
    from .analysis.structural_equal import assert_structural_equal as _ase
    from .script.interop import as_comparable

    _ase(as_comparable(a), as_comparable(b), **kwargs)


def evaluate(mod: IRModule, *args, entry: Optional[str] = None, vectorize: bool = True, limits=None):
    """Run function ``entry`` of ``mod`` on the reference interpreter (see relax_ref.interp):
    ``evaluate(mod, "main", x, y)`` or ``evaluate(mod, x, y, entry="main")``. ``mod`` may be a
    ``tvm.IRModule`` (EXPR.EQ.4).

    ``vectorize=False`` forces the scalar TensorIR path (slow; for cross-checking); ``limits`` (a
    :class:`relax_ref.limits.Limits`) replaces the default budgets of RUNTIME.LIMIT.3-4."""
    from .script.interop import as_module
    from .interp import evaluate as _evaluate

    return _evaluate(as_module(mod, "relax_ref.evaluate"), *args, entry=entry, vectorize=vectorize, limits=limits)


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
    "AssertionFailedError", "PackedFuncError", "OpRuntimeError", "LimitExceededError",
]

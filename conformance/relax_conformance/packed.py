"""The conformance packed functions (spec CALL.PACKED.5), as NumPy code adapters wrap.

Cases that use ``R.call_dps_packed``, ``R.call_packed``, ``R.call_pure_packed`` or
``R.call_inplace_packed`` call only these names (or a deliberately missing one). Styles tell adapters
how to wrap each function in their implementation's calling convention:

* ``identity``: return the argument object itself (no conversion, no copy);
* ``value``: NumPy arrays in, a new NumPy array out;
* ``dps``: inputs followed by ``n_out`` preallocated outputs, written in place; returns unit;
* ``inplace``: mutates its first argument in place and returns that same object.

A call outside a function's stated domain raises :class:`SuiteFuncError`, which adapters report with
the kind ``packed_func`` (as does ``conformance.fail``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


class SuiteFuncError(RuntimeError):
    """A conformance packed function was called outside its domain, or is ``conformance.fail``."""


@dataclass(frozen=True)
class SuiteFunc:
    name: str
    style: str          # "identity", "value", "dps" or "inplace"
    fn: Callable
    doc: str
    n_out: int = 0      # number of trailing output tensors of a "dps" function


def _same_tensors(name: str, *arrays: Any) -> None:
    if not all(isinstance(a, np.ndarray) for a in arrays):
        raise SuiteFuncError(f"{name}: expected tensors, got {[type(a).__name__ for a in arrays]}")
    first = arrays[0]
    for a in arrays[1:]:
        if a.shape != first.shape or a.dtype != first.dtype:
            raise SuiteFuncError(f"{name}: operands differ: {first.shape} {first.dtype} vs {a.shape} {a.dtype}")


def _identity(x: Any) -> Any:
    return x


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _same_tensors("conformance.add", a, b)
    return (a + b).astype(a.dtype)


def _add_dps(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    _same_tensors("conformance.add_dps", a, b, out)
    out[...] = a + b


def _add_inplace(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _same_tensors("conformance.add_inplace", a, b)
    a[...] = a + b
    return a


def _fail(*args: Any) -> None:
    raise SuiteFuncError("conformance.fail was called")


SUITE_FUNCS: dict[str, SuiteFunc] = {f.name: f for f in (
    SuiteFunc("conformance.identity", "identity", _identity, "identity(x) -> x itself"),
    SuiteFunc("conformance.add", "value", _add, "add(a, b) -> a fresh tensor a + b (equal shape and dtype)"),
    SuiteFunc("conformance.add_dps", "dps", _add_dps, "add_dps(a, b, out): writes a + b into out", 1),
    SuiteFunc("conformance.add_inplace", "inplace", _add_inplace, "add_inplace(a, b) -> a, after a += b"),
    SuiteFunc("conformance.fail", "value", _fail, "fail(...) always raises (kind packed_func)"),
)}

#: A name no adapter registers, for cases testing the missing-function error.
MISSING_FUNC = "conformance.not_registered"

__all__ = ["SuiteFunc", "SuiteFuncError", "SUITE_FUNCS", "MISSING_FUNC"]

"""Recognizing objects of other libraries (spec rule EXPR.EQ.4).

Only the module name of an object's type (and of its bases) is read: nothing is imported, so a
``tvm.IRModule`` is recognized without importing ``tvm`` (and nothing here ever does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

import numpy as np

#: plain data that relax-ref's APIs accept besides its own IR (attribute values, arrays)
_PLAIN = (type(None), bool, int, float, str, bytes, np.generic, np.ndarray, Mapping, list, tuple)

_TVM_ROOTS = ("tvm", "tvm_ffi")


def type_name(x) -> str:
    """``module.QualifiedName`` of the type of ``x`` (just the name for built-in types)."""
    mod = type(x).__module__ or ""
    name = type(x).__qualname__
    return name if mod in ("", "builtins") else f"{mod}.{name}"


def _root(mod: Optional[str]) -> str:
    return (mod or "").split(".", 1)[0]


def foreign_type_name(x) -> Optional[str]:
    """The qualified type name of ``x`` when it is neither relax-ref IR nor plain data (a TVM
    object, say), else None."""
    if isinstance(x, _PLAIN):
        return None
    if _root(type(x).__module__) == "relax_ref":
        return None
    return type_name(x)


def is_tvm_object(x) -> bool:
    """True when the type of ``x`` (or one of its bases) is defined by ``tvm`` or ``tvm_ffi``."""
    return any(_root(getattr(t, "__module__", None)) in _TVM_ROOTS for t in type(x).__mro__)


def is_tvm_ir_module(x) -> bool:
    """True for a ``tvm.ir.IRModule`` (recognized by its type's name, without importing tvm)."""
    return is_tvm_object(x) and any(t.__name__ == "IRModule" for t in type(x).__mro__)


__all__ = ["type_name", "foreign_type_name", "is_tvm_object", "is_tvm_ir_module"]

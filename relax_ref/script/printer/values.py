"""Printing of attribute values and constants (spec rules TEXT.ATTR.1, TEXT.CONST.*).

Attribute values: ``True``/``False``, integers, floats in TVM's spelling, double-quoted strings,
``None``, lists for tuples, ``{"key": value}`` dicts with sorted keys, scalar expressions, struct
info and Relax expressions.

Constants (TEXT.CONST.1-3):

* scalars inline: ``R.const(1.5, "float32")``, ``R.const(True, "bool")``; non-finite values as
  ``R.const(float("-inf"), "float32")``, a form both our parser and TVM 0.25 accept (TVM's own
  ``R.const("-inf", ...)`` does not read back);
* other tensors inline as nested lists, ``R.const([[1.0, 2.0], [3.0, 4.0]], "float32")``, unless
  ``show_meta=True`` (for non-empty tensors: TVM 0.25 cannot load an empty ``(2, 0)`` tensor from
  its metadata JSON) or the shape has a zero-length dimension before the last one (a nested list
  cannot express ``(0, 3)``): those print as ``metadata["relax.expr.Constant"][i]`` with TVM's
  metadata header (see :mod:`.metadata`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir.struct_info import StructInfo
from ._format import format_scalar, format_str, python_float


def attr_value(v: Any, prim: Callable, sinfo: Callable = None, expr: Callable = None) -> str:
    """An attribute value as a Python literal; ``prim``/``sinfo``/``expr`` print IR values."""
    if v is None:
        return "None"
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return python_float(float(v))
    if isinstance(v, str):
        return format_str(v)
    if isinstance(v, (P.IntImm, P.FloatImm)) and hasattr(prim, "expr"):
        return prim.expr(v, 0, True)  # typed: a bare literal would read back as a Python number
    if isinstance(v, P.PrimExpr):
        return prim(v)
    if isinstance(v, StructInfo) and sinfo is not None:
        return sinfo(v)
    if isinstance(v, rx.Expr) and expr is not None:
        return expr(v)
    if isinstance(v, Mapping):
        items = sorted(v.items(), key=lambda kv: str(kv[0]))
        return "{" + ", ".join(f"{attr_value(k, prim, sinfo, expr)}: {attr_value(x, prim, sinfo, expr)}"
                               for k, x in items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(attr_value(x, prim, sinfo, expr) for x in v) + "]"
    return format_str(str(v))


def nested_list_representable(shape) -> bool:
    """A nested Python list reproduces ``shape`` unless a dimension before the last is zero."""
    return all(d != 0 for d in tuple(shape)[:-1])


def _nested(arr: np.ndarray) -> str:
    if arr.ndim == 1:
        return "[" + ", ".join(format_scalar(x) for x in arr.tolist()) + "]"
    return "[" + ", ".join(_nested(sub) for sub in arr) + "]"


def _as_python(arr: np.ndarray) -> np.ndarray:
    """Values as Python-printable numbers (ml_dtypes floats widened to float64, exactly)."""
    if arr.dtype.kind in "biuf":
        return arr
    return arr.astype(np.float64)


def constant_inline(c: rx.Constant, dtensor: str = "") -> str:
    """``R.const(value, "dtype")`` for a constant a nested list can express; ``R.dist.const(value,
    R.DTensor(...))`` when ``dtensor`` (the printed DTensor struct info) is given (DIST.TEXT.5)."""
    arr = np.asarray(c.data)
    dtype = c.dtype
    vals = _as_python(arr)
    if dtensor:
        return f"R.dist.const({format_scalar(vals.item()) if arr.ndim == 0 else _nested(vals)}, {dtensor})"
    if arr.ndim == 0:
        return f'R.const({format_scalar(vals.item())}, "{dtype}")'
    return f'R.const({_nested(vals)}, "{dtype}")'


__all__ = ["attr_value", "constant_inline", "nested_list_representable"]

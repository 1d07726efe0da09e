"""Declared bounds of a function's symbolic variables (CALL.FUNC.7).

A function with the attribute ``tir_var_upper_bound`` (``{"n": 1024}``) or ``tir_var_lower_bound``
declares that each symbolic variable its parameters define under that name stays within the bound.
Every call checks it after the parameter check (site ``param``): a variable defined by a dimension or
shape entry that is out of bounds is a ``shape_mismatch``, one defined by an ``R.Prim`` value a
``value_mismatch``. Variables defined by a ``MatchCast`` are not bounded, and names that name no
parameter-defined variable have no effect.

The reference interpreter and the JAX executor share :func:`declared_bounds` (what to check) and
:func:`bound_error` (the error), so both report the same error.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from ..errors import ShapeMismatchError, Span, ValueMismatchError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si

UPPER = "tir_var_upper_bound"
LOWER = "tir_var_lower_bound"


class Bound(NamedTuple):
    """The bounds of one parameter-defined symbolic variable."""

    var: P.PrimVar
    lower: Optional[int]
    upper: Optional[int]
    is_prim: bool  # defined by an R.Prim value (value_mismatch) rather than a dimension (shape_mismatch)


def _defining_positions(s: Optional[si.StructInfo], out: dict) -> None:
    """Bare symbolic variables at binding positions of ``s`` (SI.SYM.1) -> whether the first one is a
    prim value."""
    if isinstance(s, si.TensorStructInfo):
        if isinstance(s.shape, rx.ShapeExpr):
            for e in s.shape.values:
                if isinstance(e, P.PrimVar):
                    out.setdefault(e, False)
        elif s.shape is not None and isinstance(s.shape.struct_info, si.ShapeStructInfo):
            _defining_positions(s.shape.struct_info, out)
    elif isinstance(s, si.ShapeStructInfo):
        for e in s.values or ():
            if isinstance(e, P.PrimVar):
                out.setdefault(e, False)
    elif isinstance(s, si.PrimStructInfo):
        if isinstance(s.value, P.PrimVar):
            out.setdefault(s.value, True)
    elif isinstance(s, si.TupleStructInfo):
        for f in s.fields:
            _defining_positions(f, out)


def _int_map(value: Any) -> dict:
    try:
        return {str(k): int(v) for k, v in dict(value).items()}
    except (TypeError, ValueError):
        return {}


def declared_bounds(func: rx.Function) -> List[Bound]:
    """The bounds to check on a call of ``func``, in the order the parameters define the variables
    (empty when the function declares none)."""
    attrs = func.attrs or {}
    if UPPER not in attrs and LOWER not in attrs:
        return []
    upper, lower = _int_map(attrs.get(UPPER) or {}), _int_map(attrs.get(LOWER) or {})
    defined: dict = {}
    for p in func.params:
        _defining_positions(p.struct_info, defined)
    return [Bound(v, lower.get(v.name), upper.get(v.name), is_prim) for v, is_prim in defined.items()
            if (v.name in upper or v.name in lower) and v.dtype.startswith(("int", "uint"))]


def violates(b: Bound, value: int) -> bool:
    return (b.upper is not None and value > b.upper) or (b.lower is not None and value < b.lower)


def bound_error(b: Bound, value: Any, *, function: str, span: Optional[Span] = None):
    """The error of a call whose variable ``b.var`` has the out-of-bounds ``value``."""
    if b.upper is not None and (value is None or value > b.upper):
        what = f"{b.var.name} = {value} exceeds its declared upper bound {b.upper} ({UPPER})"
    else:
        what = f"{b.var.name} = {value} is below its declared lower bound {b.lower} ({LOWER})"
    cls = ValueMismatchError if b.is_prim else ShapeMismatchError
    return cls(f"function '{function}': {what}", span, site="param", function=function, symbol=b.var.name,
               expected=f"{b.lower if b.lower is not None else '-inf'} <= {b.var.name} <= "
                        f"{b.upper if b.upper is not None else 'inf'}", actual=str(value))


def check_bounds(func: rx.Function, sym: dict, *, function: str, span: Optional[Span] = None) -> None:
    """CALL.FUNC.7 with concrete values (``sym`` maps PrimVar to int)."""
    for b in declared_bounds(func):
        if b.var in sym:
            value = int(sym[b.var])
            if violates(b, value):
                raise bound_error(b, value, function=function, span=span)


__all__ = ["Bound", "declared_bounds", "violates", "bound_error", "check_bounds", "UPPER", "LOWER"]

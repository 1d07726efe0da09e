"""The generator's own bookkeeping: true shapes, value ranges and the values in scope.

The generator does not trust struct info to know what a value *is*: a ``match_cast`` may weaken a
tensor to ``R.Tensor(ndim=2)`` while the generator still knows its shape is ``(n, 4)``. It tracks,
for every tensor in scope (NNSmith's abstract tensors):

* :class:`Dim` -- each dimension as ``coef * var`` or a constant ``coef``, where ``var`` is one of the
  function's *root* symbolic variables (the ones its parameters define). Products of two variables
  are never formed, so equality of dimensions is syntactic and every dimension is an int64 ``PrimExpr``
  that is well defined in the function;
* :class:`Range` -- an interval ``[lo, hi]`` that contains every element, plus whether the value is
  *exact* (bit-for-bit reproducible by any correct lowering: no reduction over floats, no
  transcendental function, no division). Rules use the range to stay clear of NaN, Inf and integer
  overflow, and only feed exact values to discontinuous operators (``floor``, comparisons,
  ``argmax``...), so that a harmless change in rounding cannot flip a result (the NNSmith way of
  avoiding false alarms);
* :class:`TVal` -- a tensor in scope: the Relax expression, its dims, dtype and range.

Symbolic variables take values in ``[1, MAX_SYM]`` (:data:`MAX_SYM`); ranges of reductions are
bounded with that maximum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict, Iterable, Optional, Sequence, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P

#: the largest value a root symbolic variable takes in generated inputs
MAX_SYM = 8

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("int32", "int64")

#: the largest magnitude a generated value may reach, per dtype (far from overflow)
LIMIT = {"float16": 1e3, "float32": 1e6, "float64": 1e8, "int32": 2 ** 20, "int64": 2 ** 30, "bool": 1,
         "int8": 100, "uint8": 200}


def limit(dtype: str) -> float:
    return LIMIT.get(dtype, 1e3)


def is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


def is_int(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


# ---------------------------------------------------------------------------------------------------
# Dimensions
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Dim:
    """``coef * var`` (``var`` a root symbolic variable) or the constant ``coef`` (``var is None``).
    ``vmax`` bounds the variable's value (it is ``MAX_SYM`` for the entry function's variables and
    larger for a helper's variable bound to, say, ``2 * n``); equality ignores it."""

    coef: int
    var: Optional[P.PrimVar] = None
    vmax: int = MAX_SYM

    def __eq__(self, other) -> bool:
        return isinstance(other, Dim) and self.coef == other.coef and self.var is other.var

    def __hash__(self) -> int:
        return hash((self.coef, id(self.var)))

    @property
    def is_static(self) -> bool:
        return self.var is None

    def scaled(self, k: int) -> "Dim":
        return Dim(self.coef * k, self.var, self.vmax)

    def max_value(self) -> int:
        return self.coef * (self.vmax if self.var is not None else 1)

    def min_value(self) -> int:
        return self.coef

    def value(self, env: Dict[P.PrimVar, int]) -> int:
        return self.coef * (env[self.var] if self.var is not None else 1)

    def prim(self, alias: Optional[P.PrimVar] = None) -> P.PrimExpr:
        """The int64 expression of this dim. ``alias`` is a variable defined by a ``match_cast``
        that equals ``var`` (for a symbolic dim) or the whole constant (for a static dim)."""
        if alias is not None:
            return alias if self.coef == 1 or self.var is None else P.mul(alias, P.IntImm(self.coef, "int64"))
        if self.var is None:
            return P.IntImm(self.coef, "int64")
        if self.coef == 1:
            return self.var
        return P.mul(self.var, P.IntImm(self.coef, "int64"))

    def substitute(self, vmap: Dict[P.PrimVar, "Dim"]) -> "Dim":
        if self.var is None:
            return self
        return vmap[self.var].scaled(self.coef)

    def __repr__(self) -> str:
        if self.var is None:
            return str(self.coef)
        return self.var.name if self.coef == 1 else f"{self.coef}*{self.var.name}"


def const(k: int) -> Dim:
    return Dim(int(k), None)


def add_dims(a: Dim, b: Dim) -> Optional[Dim]:
    """``a + b`` when representable (same variable or both constant), else None."""
    if a.var is b.var:
        return Dim(a.coef + b.coef, a.var, a.vmax)
    return None


def numel_factors(dims: Sequence[Dim]) -> Tuple[int, Tuple[Dim, ...]]:
    """The element count as (constant factor, unit variable dims ``1 * var`` with multiplicity)."""
    c = 1
    vs = []
    for d in dims:
        c *= d.coef
        if d.var is not None:
            vs.append(Dim(1, d.var, d.vmax))
    return c, tuple(vs)


def max_numel(dims: Sequence[Dim]) -> int:
    return math.prod(d.max_value() for d in dims)


def shape_values(dims: Sequence[Dim], env: Dict[P.PrimVar, int]) -> Tuple[int, ...]:
    return tuple(d.value(env) for d in dims)


# ---------------------------------------------------------------------------------------------------
# Value ranges
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Range:
    """Every element lies in ``[lo, hi]``; ``exact`` as in the module docstring."""

    lo: float
    hi: float
    exact: bool = True

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    def union(self, other: "Range") -> "Range":
        return Range(min(self.lo, other.lo), max(self.hi, other.hi), self.exact and other.exact)

    def inexact(self) -> "Range":
        return replace(self, exact=False)

    def within(self, dtype: str) -> bool:
        return self.mag <= limit(dtype) and not (math.isnan(self.lo) or math.isnan(self.hi))

    def away_from_zero(self, eps: float) -> bool:
        return self.lo >= eps or self.hi <= -eps

    def contains(self, other: "Range") -> bool:
        return self.lo <= other.lo and other.hi <= self.hi


def span(values: Iterable[float], exact: bool) -> Range:
    vs = list(values)
    return Range(min(vs), max(vs), exact)


def monotone(f, r: Range, exact: bool = False) -> Range:
    """The range of an increasing function over ``r``."""
    return Range(f(r.lo), f(r.hi), exact)


def bool_range(exact: bool = True) -> Range:
    return Range(0.0, 1.0, exact)


# ---------------------------------------------------------------------------------------------------
# Values in scope
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TVal:
    """A tensor in scope: the Relax expression naming it, its true dims, dtype and range."""

    expr: rx.Expr
    dims: Tuple[Dim, ...]
    dtype: str
    range: Range

    @property
    def ndim(self) -> int:
        return len(self.dims)

    @property
    def known_shape(self) -> bool:
        """Its struct info has shape values (a ``match_cast`` may have hidden them)."""
        si = self.expr.struct_info
        return getattr(si, "shape_values", None) is not None

    @property
    def static(self) -> bool:
        return all(d.is_static for d in self.dims)

    def same_type(self, other: "TVal") -> bool:
        return self.dtype == other.dtype and self.dims == other.dims


def broadcast_dims(a: Sequence[Dim], b: Sequence[Dim]) -> Optional[Tuple[Dim, ...]]:
    """NumPy broadcasting of true dims, requiring each pair to be equal or a static 1 (so that the
    result is valid for every value of the symbolic variables)."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else None
        y = b[-i] if i <= len(b) else None
        if x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        elif x == y:
            out.append(x)
        elif x == const(1):
            out.append(y)
        elif y == const(1):
            out.append(x)
        else:
            return None
    return tuple(reversed(out))


__all__ = [
    "MAX_SYM", "FLOAT_DTYPES", "INT_DTYPES", "LIMIT", "limit", "is_float", "is_int", "Dim", "const",
    "add_dims", "numel_factors", "max_numel", "shape_values", "Range", "span", "monotone", "bool_range",
    "TVal", "broadcast_dims",
]

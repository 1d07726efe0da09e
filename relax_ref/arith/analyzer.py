"""Symbolic integer reasoning: the :class:`Analyzer` (spec chapter ARITH).

An analyzer holds *facts* -- variable bindings (``bind``), ranges (``bind_range``) and the blanket
assumption that integer variables without a range are non-negative (``symbolic_nonneg``, true by
default because Relax shape variables are, SI.SYM.*) -- and answers queries:

* :meth:`Analyzer.simplify` -- a canonical, deterministic form that reads like TVM's output
  (``(n + 1) * 4 - 4`` -> ``n * 4``, ``n * 2 // 2`` -> ``n``, ``T.min(n, n + 1)`` -> ``n``);
* :meth:`Analyzer.can_prove` -- True only when the condition provably holds;
* :meth:`Analyzer.can_prove_equal`, :meth:`Analyzer.can_prove_nonneg`;
* :meth:`Analyzer.const_int_bound` -- an interval, ``None`` where no bound beyond the dtype is known.

Every answer is valid under the analyzer's assumptions:

* (ARITH.ASSUME.1) no integer sub-expression of the query overflows its dtype -- the engine reasons over
  the mathematical integers, like TVM's analyzer; constant-only parts are still folded with
  wrap-around (PRIM.INT.1), and the ``+ - *`` normalization is exact under wrap-around anyway;
* (ARITH.ASSUME.2) the query evaluates without error: divisors are non-zero, and a sub-expression
  whose value is not needed (an unused ``Select`` arm, ``x * 0``) may be dropped with its errors;
* (ARITH.ASSUME.3) the facts: bindings, ranges, and -- when ``symbolic_nonneg`` is set -- ``v >= 0``
  for every integer variable without an explicit range (loop variables included).

The engine is in :mod:`relax_ref.arith.simplifier`.

Results are cached per analyzer (cleared by ``bind``/``bind_range``); the module functions
:func:`simplify`, :func:`can_prove` and :func:`can_prove_equal` use shared fact-free analyzers.
"""

from __future__ import annotations

import builtins
from typing import Optional, Tuple, Union

from ..errors import RelaxError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir.functor import prim_vars_in
from . import semantics as _sem
from .simplifier import SimplifyContext, is_index_dtype

ExprOrInt = Union[P.PrimExpr, int]

_CACHE_LIMIT = 8192


def _as_expr(x: ExprOrInt, dtype: str = "int64") -> P.PrimExpr:
    if isinstance(x, P.PrimExpr):
        return x
    if isinstance(x, bool):
        return P.IntImm(int(x), "bool")
    if isinstance(x, int):
        return P.IntImm(x, dtype)
    raise RelaxError(f"expected a scalar expression or an int, got {type(x).__name__}")


class Analyzer:
    """Facts about symbolic variables plus simplification and proving (ARITH.*)."""

    def __init__(self, *, symbolic_nonneg: bool = True):
        self.symbolic_nonneg = bool(symbolic_nonneg)
        self._subst: dict = {}
        self._ranges: dict = {}
        self._sym_ranges: dict = {}
        self._cache: dict = {}
        self._eq_cache: dict = {}

    # -- facts -------------------------------------------------------------------------------------

    def _changed(self) -> None:
        self._cache.clear()
        self._eq_cache.clear()

    def bind(self, var: P.PrimVar, value: ExprOrInt) -> None:
        """Record ``var == value`` (ARITH.FACT.1): ``var`` is replaced by ``value`` in every query.

        Binding a variable again is allowed only to a provably equal value.
        """
        if not isinstance(var, P.PrimVar):
            raise RelaxError(f"bind expects a PrimVar, got {type(var).__name__}")
        if isinstance(value, (bool, int)) and not isinstance(value, P.PrimExpr):
            if _dt.is_integer(var.dtype) or var.dtype == "bool":
                lo, hi = _sem.int_info(var.dtype)[2:]
                if not lo <= int(value) <= hi:
                    raise RelaxError(f"value {value} is outside the range of {var.dtype}", symbol=var.name)
            value = P.IntImm(int(value), var.dtype)
        elif isinstance(value, float) and _dt.is_float(var.dtype):
            value = P.FloatImm(value, var.dtype)
        elif not isinstance(value, P.PrimExpr):
            raise RelaxError(f"bind expects a PrimExpr or an int value, got {type(value).__name__}",
                             symbol=var.name)
        if value.dtype != var.dtype:
            raise RelaxError(f"cannot bind '{var.name}' of type {var.dtype} to a value of type {value.dtype}",
                             symbol=var.name)
        v = self.simplify(value)
        if var in prim_vars_in(v):
            raise RelaxError(f"binding '{var.name}' to {P.to_str(v)} is cyclic", symbol=var.name)
        old = self._subst.get(var)
        if old is not None:
            if not self.can_prove_equal(old, v):
                raise RelaxError(f"'{var.name}' is already bound to {P.to_str(old)}, not {P.to_str(v)}",
                                 symbol=var.name)
            return
        self._subst[var] = v
        self._changed()

    def bind_range(self, var: P.PrimVar, min: ExprOrInt, extent: ExprOrInt) -> None:  # noqa: A002
        """Record ``min <= var < min + extent`` (ARITH.FACT.2). Symbolic bounds are kept too (used
        by proofs such as ``i < n`` for ``i`` in ``[0, n)``); numeric bounds intersect earlier ones."""
        if not isinstance(var, P.PrimVar):
            raise RelaxError(f"bind_range expects a PrimVar, got {type(var).__name__}")
        if not is_index_dtype(var.dtype):
            raise RelaxError(f"bind_range needs an integer variable, '{var.name}' is {var.dtype}",
                             symbol=var.name)
        mn = _as_expr(min, var.dtype)
        ext = _as_expr(extent, mn.dtype)
        mx = P.sub(P.add(mn, ext), 1)
        lo, _ = self._bound_of(mn, clip=False)
        _, hi = self._bound_of(mx, clip=False)
        old = self._ranges.get(var)
        if old is not None:
            lo, hi = builtins.max(lo, old[0]), builtins.min(hi, old[1])
        self._ranges[var] = (lo, hi)
        smn, smx = self.simplify(mn), self.simplify(mx)
        if not (isinstance(smn, P.IntImm) and isinstance(smx, P.IntImm)):
            if var in prim_vars_in(smn) or var in prim_vars_in(smx):
                raise RelaxError(f"the range of '{var.name}' refers to itself", symbol=var.name)
            self._sym_ranges[var] = (smn, smx)
        self._changed()

    def copy(self) -> "Analyzer":
        """An independent analyzer with the same facts."""
        a = Analyzer(symbolic_nonneg=self.symbolic_nonneg)
        a._subst = dict(self._subst)
        a._ranges = dict(self._ranges)
        a._sym_ranges = dict(self._sym_ranges)
        a._cache = dict(self._cache)
        a._eq_cache = dict(self._eq_cache)
        return a

    # -- queries -----------------------------------------------------------------------------------

    def simplify(self, e: ExprOrInt) -> P.PrimExpr:
        """The canonical simplified form of ``e`` (value-preserving under the assumptions)."""
        e = _as_expr(e)
        t = type(e)
        if t is P.IntImm or t is P.FloatImm or t is P.PrimStringImm:
            return e
        if t is P.PrimVar and e not in self._subst:
            return e
        cache = self._cache
        r = cache.get(e)
        if r is not None:
            return r
        ctx = SimplifyContext(self)
        r = ctx.expr(e)
        if not ctx.saw_float:  # FloatImm(0.0) == FloatImm(-0.0): never cache across them
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[e] = r
        return r

    def can_prove(self, cond: Union[P.PrimExpr, bool]) -> bool:
        """True only when ``cond`` holds for every valuation allowed by the facts (ARITH.PROVE.1).

        An integer-typed condition means ``cond != 0``.
        """
        if isinstance(cond, bool):
            return cond
        cond = _as_expr(cond)
        if is_index_dtype(cond.dtype):
            cond = P.NE(cond, P.IntImm(0, cond.dtype))
        s = self.simplify(cond)
        return type(s) is P.IntImm and s.value != 0

    def can_prove_equal(self, a: ExprOrInt, b: ExprOrInt) -> bool:
        """True only when ``a == b`` provably (ARITH.PROVE.2); ints take the other side's dtype."""
        if not isinstance(a, P.PrimExpr) and not isinstance(b, P.PrimExpr):
            return int(a) == int(b)
        a = _as_expr(a, b.dtype if isinstance(b, P.PrimExpr) else "int64")
        b = _as_expr(b, a.dtype)
        key = (a, b)
        r = self._eq_cache.get(key)
        if r is not None:
            return r
        ctx = SimplifyContext(self)
        if is_index_dtype(a.dtype) and is_index_dtype(b.dtype):
            D = ctx.expand(ctx.poly(a)).add(ctx.expand(ctx.poly(b)), -1)
            r = bool(ctx.decide(P.EQ, D))
        else:  # identical simplified expressions have identical values
            r = a.dtype == b.dtype and ctx.expr(a) == ctx.expr(b)
        if not ctx.saw_float:
            if len(self._eq_cache) >= _CACHE_LIMIT:
                self._eq_cache.clear()
            self._eq_cache[key] = r
        return r

    def _bound_of(self, e: P.PrimExpr, clip: bool = True) -> Tuple[int, int]:
        """The interval of an integer expression, clipped to its dtype (or with +-inf for
        unbounded ends when ``clip`` is False)."""
        if not is_index_dtype(e.dtype):
            raise RelaxError(f"expected an integer expression, got type {e.dtype}")
        ctx = SimplifyContext(self)
        lo, hi = ctx.bound(ctx.expand(ctx.poly(e)))
        if not clip:
            return lo, hi
        dlo, dhi = _sem.int_info(e.dtype)[2:]
        return max(lo, dlo), min(hi, dhi)

    def const_int_bound(self, e: ExprOrInt) -> Tuple[Optional[int], Optional[int]]:
        """``(lo, hi)`` with ``lo <= e <= hi`` (ARITH.BOUND.1); ``None`` where the only bound is the
        dtype's own limit. A bool expression gives bounds within ``(0, 1)``; other dtypes
        ``(None, None)``."""
        e = _as_expr(e)
        if e.dtype == "bool":
            s = self.simplify(e)
            return (s.value, s.value) if type(s) is P.IntImm else (0, 1)
        if not is_index_dtype(e.dtype):
            return None, None
        lo, hi = self._bound_of(e)
        dlo, dhi = _sem.int_info(e.dtype)[2:]
        return (None if lo <= dlo else lo), (None if hi >= dhi else hi)

    def can_prove_nonneg(self, e: ExprOrInt) -> bool:
        """True only when ``e >= 0`` provably."""
        e = _as_expr(e)
        if not is_index_dtype(e.dtype):
            return False
        return self._bound_of(e)[0] >= 0

    def can_prove_positive(self, e: ExprOrInt) -> bool:
        """True only when ``e > 0`` provably."""
        e = _as_expr(e)
        if not is_index_dtype(e.dtype):
            return False
        return self._bound_of(e)[0] > 0


_DEFAULT: dict = {}


def _default(symbolic_nonneg: bool = True) -> Analyzer:
    a = _DEFAULT.get(symbolic_nonneg)
    if a is None:
        a = _DEFAULT[symbolic_nonneg] = Analyzer(symbolic_nonneg=symbolic_nonneg)
    return a


def simplify(e: ExprOrInt, *, symbolic_nonneg: bool = True) -> P.PrimExpr:
    """:meth:`Analyzer.simplify` with no facts."""
    return _default(bool(symbolic_nonneg)).simplify(e)


def can_prove(cond: Union[P.PrimExpr, bool], *, symbolic_nonneg: bool = True) -> bool:
    """:meth:`Analyzer.can_prove` with no facts."""
    return _default(bool(symbolic_nonneg)).can_prove(cond)


def can_prove_equal(a: ExprOrInt, b: ExprOrInt, *, symbolic_nonneg: bool = True) -> bool:
    """:meth:`Analyzer.can_prove_equal` with no facts."""
    return _default(bool(symbolic_nonneg)).can_prove_equal(a, b)


__all__ = ["Analyzer", "simplify", "can_prove", "can_prove_equal"]

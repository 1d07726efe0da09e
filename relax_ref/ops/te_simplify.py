"""The simplification a generated kernel's expressions get (TIR.TE.GEN.8).

TVM's ``te.create_prim_func`` passes every data-parallel body and reduction source through its
arithmetic analyzer's ``Simplify``. relax-ref applies its own simplifier (:func:`relax_ref.arith.simplify`,
ARITH.CANON.1) to the integer parts of an expression -- integer sub-expressions without buffer loads,
load indices, integer comparisons; float values keep their form -- followed by TVM's normal forms that
relax-ref's simplifier does not produce:

* ``a <= b`` is rewritten as ``not (b < a)`` and ``a > b``/``a >= b`` as ``b < a``/``b <= a``; the
  negation of a comparison is the opposite comparison with its operands swapped;
* in ``a < b`` over integers, common terms are cancelled (``x + y < x + z`` is ``y < z``,
  ``y - x < z - x`` is ``y < z``, ``x - y < x - z`` is ``z < y``), a constant is moved off a side
  that also has a variable part and merged with the other side's constant: with ``a = x + c1`` and
  ``b = y + c2`` (either constant possibly 0, not both), ``c1 == c2`` gives ``x < y``,
  ``c2 - c1 == 1`` gives ``x <= y``, otherwise the constant difference stays on the side that had a
  constant (``x + (c1 - c2) < y`` or ``x < y + (c2 - c1)``);
* comparisons of a constant with ``x + c``, ``c - x`` or ``x - c`` move the constants together
  (``c1 < x + c2`` is ``c1 - c2 < x``);
* nested floor divisions and modulos by positive constants take TVM's split form
  ``x % upper // lower``: ``x // a // b`` is ``x // (a * b)`` and ``x // l % c`` is ``x % (l * c) // l``
  (when an inner ``% upper`` allows it);
* a lone negated term is ``0 - x`` (relax-ref's simplifier writes ``x * -1``), also inside an expression;
* ``min(x + c, y) - x`` is ``min(c, y - x)`` for an atom ``x``;
* ``max(a, c)`` whose sum ``a`` and constant ``c`` share a factor ``g > 1`` is ``max(a / g, c / g) * g``.

As TVM's generator, which simplifies without the ranges of the axes, no variable is assumed
non-negative (``T.Div(v + 2, 2)`` stays a truncating division, ``max(0 - v, 0)`` stays).

Every rewrite preserves the value under the simplifier's assumptions (ARITH.ASSUME.1: integer
sub-expressions do not wrap around).
"""

from __future__ import annotations

from typing import Optional, Tuple

from ..ir import prim_expr as P
from ..ir.functor import PrimExprMutator

_INDEX = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _offset(e: P.PrimExpr) -> Tuple[P.PrimExpr, int]:
    if isinstance(e, P.Add) and isinstance(e.b, P.IntImm):
        return e.a, e.b.value
    if isinstance(e, P.Sub) and isinstance(e.b, P.IntImm):
        return e.a, -e.b.value
    return e, 0


def _c(v: int, dtype: str) -> P.IntImm:
    return P.IntImm(v, dtype)


def _plus(x: P.PrimExpr, c: int) -> P.PrimExpr:
    if c == 0:
        return x
    return P.Add(x, _c(c, x.dtype)) if c > 0 else P.Sub(x, _c(-c, x.dtype))


def _lt(a: P.PrimExpr, b: P.PrimExpr, depth: int = 0) -> P.PrimExpr:
    """TVM's rewrite rules for ``a < b`` over integers (the subset described above)."""
    if depth > 8 or a.dtype not in _INDEX or a.dtype != b.dtype:
        return P.LT(a, b)
    # cancellation of common terms
    if isinstance(a, P.Add) and isinstance(b, P.Add):
        for x1, y in ((a.a, a.b), (a.b, a.a)):
            for x2, z in ((b.a, b.b), (b.b, b.a)):
                if x1 == x2:
                    return _lt(y, z, depth + 1)
    if isinstance(a, P.Sub) and isinstance(b, P.Sub):
        if a.b == b.b:
            return _lt(a.a, b.a, depth + 1)
        if a.a == b.a:
            return _lt(b.b, a.b, depth + 1)
    ca, cb = isinstance(a, P.IntImm), isinstance(b, P.IntImm)
    if ca and not cb:
        if isinstance(b, P.Add) and isinstance(b.b, P.IntImm):            # c1 < x + c2
            return _lt(_c(a.value - b.b.value, a.dtype), b.a, depth + 1)
        if isinstance(b, P.Sub) and isinstance(b.b, P.IntImm):            # c1 < x - c2
            return _lt(_c(a.value + b.b.value, a.dtype), b.a, depth + 1)
        if isinstance(b, P.Sub) and isinstance(b.a, P.IntImm):            # c1 < c2 - x
            return _lt(b.b, _c(b.a.value - a.value, a.dtype), depth + 1)
        return P.LT(a, b)
    if cb and not ca:
        if isinstance(a, P.Sub) and isinstance(a.b, P.IntImm):            # x - c2 < c1
            return _lt(a.a, _c(b.value + a.b.value, b.dtype), depth + 1)
        if isinstance(a, P.Add) and isinstance(a.b, P.IntImm):            # x + c1 < c2
            return _lt(a.a, _c(b.value - a.b.value, b.dtype), depth + 1)
        if isinstance(a, P.Sub) and isinstance(a.a, P.IntImm):            # c1 - x < c2
            return _lt(_c(a.a.value - b.value, b.dtype), a.b, depth + 1)
        return P.LT(a, b)
    if ca or cb:
        return P.LT(a, b)
    x, c1 = _offset(a)
    y, c2 = _offset(b)
    if c1 == 0 and c2 == 0:
        return P.LT(a, b)
    diff = c2 - c1
    if diff == 0:
        return _lt(x, y, depth + 1)
    if diff == 1:
        return P.LE(x, y)
    if diff < 0 and c2 != 0:
        return _lt(_plus(x, -diff), y, depth + 1)
    if diff > 0 and c1 != 0:
        return _lt(x, _plus(y, diff), depth + 1)
    return P.LT(a, b)


def _not(e: P.PrimExpr) -> P.PrimExpr:
    if isinstance(e, P.LT):
        return P.LE(e.b, e.a)
    if isinstance(e, P.LE):
        return P.LT(e.b, e.a)
    if isinstance(e, P.Not):
        return e.a
    return P.Not(e)


def _pos(e) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) and e.value > 0 else None


def _split(e: P.PrimExpr) -> Tuple[P.PrimExpr, Optional[int], int]:
    """``e`` as TVM's split ``index % upper // lower`` (``upper`` None for none)."""
    if isinstance(e, P.FloorDiv) and _pos(e.b):
        inner = e.a
        if isinstance(inner, P.FloorMod) and _pos(inner.b):
            return inner.a, inner.b.value, e.b.value
        return inner, None, e.b.value
    if isinstance(e, P.FloorMod) and _pos(e.b):
        return e.a, e.b.value, 1
    return e, None, 1


def _make_split(x: P.PrimExpr, upper: Optional[int], lower: int) -> P.PrimExpr:
    d = x.dtype
    if upper is not None:
        x = P.FloorMod(x, P.IntImm(upper, d))
    if lower != 1:
        x = P.FloorDiv(x, P.IntImm(lower, d))
    return x


def _div_split(e: P.FloorDiv) -> P.PrimExpr:
    """``split // c`` (TVM's canonical form of a floor division of a split by a constant)."""
    c = _pos(e.b)
    x, upper, lower = _split(e.a)
    if c is None or (x is e.a and lower == 1 and upper is None):
        return e
    if upper is None or upper % (lower * c) == 0:
        return _make_split(x, upper, lower * c)
    return e


def _mod_split(e: P.FloorMod) -> P.PrimExpr:
    """``split % c``: ``x // l % c`` is ``x % (l * c) // l`` when the split's upper bound allows."""
    c = _pos(e.b)
    x, upper, lower = _split(e.a)
    if c is None or (x is e.a and lower == 1 and upper is None):
        return e
    new_upper = lower * c
    if upper is None or upper % new_upper == 0:
        return _make_split(x, new_upper, lower)
    return e


class _Comparisons(PrimExprMutator):
    def visit_Mul(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        if e.dtype in _INDEX and not isinstance(a, P.IntImm) and isinstance(b, P.Mul):
            # TVM's rewrite rule x * (c1 * y) -> (x * y) * c1
            if isinstance(b.a, P.IntImm) and not isinstance(b.b, P.IntImm):
                return P.Mul(P.Mul(a, b.b), b.a)
            if isinstance(b.b, P.IntImm) and not isinstance(b.a, P.IntImm):
                return P.Mul(P.Mul(a, b.a), b.b)
        return e if a is e.a and b is e.b else P.Mul(a, b)

    def visit_FloorDiv(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        return _div_split(P.FloorDiv(a, b) if a is not e.a or b is not e.b else e)

    def visit_FloorMod(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        return _mod_split(P.FloorMod(a, b) if a is not e.a or b is not e.b else e)

    def visit_LT(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        return _lt(a, b)

    def visit_GT(self, e):
        return _lt(self.visit(e.b), self.visit(e.a))

    def visit_LE(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        if a.dtype not in _INDEX or a.dtype != b.dtype:
            return e if a is e.a and b is e.b else P.LE(a, b)
        return _not(_lt(b, a))

    def visit_GE(self, e):
        return self.visit_LE(P.LE(e.b, e.a))


def _has_load(e: P.PrimExpr) -> bool:
    from ..ir import tir

    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tir.BufferLoad):
            return True
        stack.extend(P.children(x))
    return False


def _full(e: P.PrimExpr) -> P.PrimExpr:
    from ..arith.analyzer import simplify

    # TVM's generator simplifies without the ranges of the axes: no variable is assumed non-negative
    return _Comparisons().visit(_FactorMinMax().visit(_SumOrder().visit(_negation(simplify(e, symbolic_nonneg=False)))))


def _split_key(t: P.PrimExpr) -> Tuple[int, float]:
    """``(lower, upper)`` of a term seen as TVM's split ``index % upper // lower``."""
    lower, upper = 1, float("inf")
    if isinstance(t, P.FloorDiv) and _pos(t.b):
        lower, t = t.b.value, t.a
    if isinstance(t, P.FloorMod) and _pos(t.b):
        upper = t.b.value
    return lower, upper


class _SumOrder(PrimExprMutator):
    """TVM's canonical order of a sum's terms: by scale, then the split's lower and upper factors,
    all descending (stable); rendered positive terms, a positive constant, subtracted terms, a
    negative constant."""

    def visit_Mul(self, e):
        # a lone negated term is ``0 - x`` (``0 - x * c``)
        if e.dtype in _INDEX and isinstance(e.b, P.IntImm) and e.b.value < 0:
            x = self.visit(e.a)
            return P.Sub(P.IntImm(0, e.dtype), x if e.b.value == -1 else P.Mul(x, P.IntImm(-e.b.value, e.dtype)))
        return self.generic_visit(e)

    def visit_Add(self, e):
        return self._sum(e)

    def visit_Sub(self, e):
        return self._sum(e)

    def _sum(self, e):
        if e.dtype not in _INDEX:
            return self.generic_visit(e)
        terms: list = []
        base = [0]

        def walk(x, sign):
            if isinstance(x, P.Add):
                walk(x.a, sign)
                walk(x.b, sign)
            elif isinstance(x, P.Sub):
                walk(x.a, sign)
                walk(x.b, -sign)
            elif isinstance(x, P.IntImm):
                base[0] += sign * x.value
            elif isinstance(x, P.Mul) and isinstance(x.b, P.IntImm):
                terms.append((self.visit(x.a), sign * x.b.value))
            else:
                terms.append((self.visit(x), sign))
        walk(e, 1)
        if not _min_minus(terms) and len(terms) < 2:
            return self.generic_visit(e)
        order = sorted(range(len(terms)), key=lambda i: (-terms[i][1], -_split_key(terms[i][0])[0],
                                                         -_split_key(terms[i][0])[1], i))
        d = e.dtype

        def term(x, k):
            return x if k == 1 else P.Mul(x, P.IntImm(k, d))
        res = None
        for i in order:
            x, k = terms[i]
            if k > 0:
                res = term(x, k) if res is None else P.Add(res, term(x, k))
        if base[0] > 0:
            res = P.IntImm(base[0], d) if res is None else P.Add(res, P.IntImm(base[0], d))
        for i in order:
            x, k = terms[i]
            if k < 0:
                res = P.Sub(P.IntImm(0, d) if res is None else res, term(x, -k))
        if base[0] < 0:
            res = P.Sub(res, P.IntImm(-base[0], d))
        return res


def _min_minus(terms: list) -> bool:
    """TVM's rewrite ``min(x + c, y) - x`` -> ``min(c, y - x)`` on a sum's terms (``x`` an atom with
    coefficient 1 in the ``min``, -1 outside it)."""
    for i, (t, k) in enumerate(terms):
        if k != 1 or not isinstance(t, P.Min) or not isinstance(t.a, P.Add) or not isinstance(t.a.b, P.IntImm):
            continue
        x = t.a.a
        if isinstance(x, (P.Mul, P.Add, P.Sub, P.IntImm)):
            continue
        for j, (u, kj) in enumerate(terms):
            if kj == -1 and u == x:
                terms[i] = (P.Min(t.a.b, P.Sub(t.b, x)), 1)
                del terms[j]
                return True
    return False


class _FactorMinMax(PrimExprMutator):
    """TVM's rewrite ``max(x * c1, c2)`` -> ``max(x, c2 / c1) * c1`` when the sum ``x * c1`` has a common
    factor ``c1 > 1`` of its coefficients and constant that divides ``c2`` (TVM leaves ``min`` alone)."""

    def visit_Max(self, e):
        return self._factor(P.Max, self.generic_visit(e))

    def _factor(self, op, e):
        from math import gcd

        if not isinstance(e, op) or e.dtype not in _INDEX or not isinstance(e.b, P.IntImm):
            return e
        terms, base = _linear_terms(e.a)
        if terms is None or not terms:
            return e
        g = 0
        for _, k in terms:
            g = gcd(g, abs(k))
        g = gcd(gcd(g, abs(base)), abs(e.b.value))
        if g <= 1:
            return e
        d = e.dtype
        inner = None
        for x, k in terms:
            t = x if abs(k) // g == 1 else P.Mul(x, P.IntImm(abs(k) // g, d))
            if k > 0:
                inner = t if inner is None else P.Add(inner, t)
        if base > 0:
            inner = P.IntImm(base // g, d) if inner is None else P.Add(inner, P.IntImm(base // g, d))
        for x, k in terms:
            t = x if abs(k) // g == 1 else P.Mul(x, P.IntImm(abs(k) // g, d))
            if k < 0:
                inner = P.Sub(P.IntImm(0, d) if inner is None else inner, t)
        if base < 0:
            inner = P.Sub(inner, P.IntImm(-base // g, d))
        return P.Mul(op(inner, P.IntImm(e.b.value // g, d)), P.IntImm(g, d))


def _linear_terms(e: P.PrimExpr):
    """The ``(atom, coefficient)`` terms (in order) and the constant of a rendered sum, or None."""
    terms: list = []
    base = [0]

    def walk(x, sign) -> bool:
        if isinstance(x, P.Add):
            return walk(x.a, sign) and walk(x.b, sign)
        if isinstance(x, P.Sub):
            return walk(x.a, sign) and walk(x.b, -sign)
        if isinstance(x, P.IntImm):
            base[0] += sign * x.value
        elif isinstance(x, P.Mul) and isinstance(x.b, P.IntImm):
            terms.append((x.a, sign * x.b.value))
        else:
            terms.append((x, sign))
        return True
    walk(e, 1)
    return terms, base[0]


def _negation(e: P.PrimExpr) -> P.PrimExpr:
    """TVM keeps ``0 - x`` where relax-ref's simplifier writes ``x * -1``."""
    if isinstance(e, P.Mul) and isinstance(e.b, P.IntImm) and e.b.value == -1 and e.dtype in _INDEX:
        return P.Sub(P.IntImm(0, e.dtype), e.a)
    return e


def _linear(e: P.PrimExpr) -> bool:
    """No product of two non-constants and no division or modulo by a non-constant."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, P.Mul) and not isinstance(x.a, P.IntImm) and not isinstance(x.b, P.IntImm):
            return False
        if isinstance(x, (P.FloorDiv, P.FloorMod, P.Div, P.Mod)) and not isinstance(x.b, P.IntImm):
            return False
        stack.extend(P.children(x))
    return True


class _Scoped(PrimExprMutator):
    """Simplifies the integer parts of a kernel expression: load-free integer sub-expressions, load
    indices and integer comparisons; float and other values keep their form."""

    def __init__(self) -> None:
        self.index = False    # inside a load index: loads are atoms

    def visit(self, e: P.PrimExpr) -> P.PrimExpr:
        if e.dtype in _INDEX and not isinstance(e, (P.IntImm, P.PrimVar)) and (self.index or not _has_load(e)):
            if _linear(e):
                return _full(e)
            # TVM's canonical form keeps a product of two non-constants, and a division by one, opaque
            # (its operands are simplified on their own)
            return _Comparisons().visit(super().visit(e))
        return super().visit(e)

    def visit_BufferLoad(self, e):
        from ..ir import tir

        saved, self.index = self.index, True
        try:
            idx = tuple(self.visit(i) for i in e.indices)
        finally:
            self.index = saved
        if all(a is b for a, b in zip(idx, e.indices)):
            return e
        return tir.BufferLoad(e.buffer, idx, e.dtype)

    def generic_visit(self, e):
        out = super().generic_visit(e)
        if isinstance(out, (P.LT, P.LE, P.GT, P.GE)) and out.a.dtype in _INDEX:
            return _Comparisons().visit(out)
        return out


def simplify_compute(e: P.PrimExpr) -> P.PrimExpr:
    """(TIR.TE.GEN.8) ``e`` as ``create_prim_func`` leaves a body or reduction source."""
    return _Scoped().visit(e)


def _has_float(e: P.PrimExpr) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if x.dtype.startswith(("float", "bfloat")):
            return True
        stack.extend(P.children(x))
    return False


def _interval(e: P.PrimExpr):
    """``(lo, hi)`` bounds of an index with a float part, as TVM's interval evaluation gives them: a
    float-valued cast is unbounded (None), ``min``/``max`` clamp, other parts are points."""
    if isinstance(e, P.Cast) and _has_float(e.value):
        return None, None
    if isinstance(e, (P.Min, P.Max)):
        (alo, ahi), (blo, bhi) = _interval(e.a), _interval(e.b)
        op = P.Min if isinstance(e, P.Min) else P.Max

        def pick(x, y, keep_none):
            if x is None or y is None:
                return None if keep_none else (y if x is None else x)
            return op(x, y)
        if isinstance(e, P.Min):   # min: the lower bound needs both, the upper bound either
            return pick(alo, blo, True), pick(ahi, bhi, False)
        return pick(alo, blo, False), pick(ahi, bhi, True)
    if _has_float(e):
        return None, None
    return e, e


def float_index_range(e: P.PrimExpr, extent: P.PrimExpr):
    """(TIR.TE.GEN.6) The region one index with a float part covers: its interval (TVM's int-set
    evaluation) within ``[0, extent)``; None for an index without one (a point)."""
    if not _has_float(e):
        return None
    from ..arith.analyzer import simplify
    from ..ir import tir

    lo, hi = _interval(e)
    lo = P.IntImm(0, "int64") if lo is None else simplify(lo)
    hi = simplify(P.Sub(extent, P.IntImm(1, extent.dtype))) if hi is None else simplify(hi)
    return tir.Range(lo, simplify(P.Add(P.Sub(hi, lo), P.IntImm(1, hi.dtype))))


__all__ = ["simplify_compute", "float_index_range"]

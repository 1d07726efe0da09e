"""Static analysis of TensorIR loop nests for the vectorized lowering.

* :func:`analyze_nest` decides whether a perfect loop nest around a block (or around plain stores) can
  be evaluated as array operations over its iteration domain -- the shared analysis of the reference's
  vectorized path (:mod:`relax_ref.analysis.loop_nest`, TIR.VEC.2) plus a *static* proof that each
  written index maps the points of the spatial loops to distinct elements (the reference checks that
  at run time);
* :func:`linear_form` splits an index expression into ``sum(c_v * v) + rest`` over given variables;
* :class:`Ranges` proves indices in bounds with :class:`relax_ref.arith.Analyzer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional, Sequence, Tuple

from relax_ref.analysis.loop_nest import LoopNest, analyze_loop_nest
from relax_ref.arith.analyzer import Analyzer
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in, substitute_prim

# ---------------------------------------------------------------------------------------------------
# Expression utilities
# ---------------------------------------------------------------------------------------------------


def linear_form(e: P.PrimExpr, vars_: Sequence[P.PrimVar]) -> Optional[Tuple[Dict[P.PrimVar, int], P.PrimExpr]]:
    """``e == sum(coef[v] * v) + rest`` with integer coefficients and ``rest`` free of ``vars_``;
    None when ``e`` is not of that form."""
    vs = set(vars_)

    def go(x) -> Optional[Tuple[Dict, Optional[P.PrimExpr]]]:
        if isinstance(x, P.PrimVar):
            if x in vs:
                return {x: 1}, None
            return {}, x
        if isinstance(x, P.IntImm):
            return {}, x
        if not (prim_vars_in(x).keys() & vs):
            return {}, x
        if isinstance(x, P.Add):
            a, b = go(x.a), go(x.b)
            if a is None or b is None:
                return None
            return _merge(a[0], b[0], 1), _add(a[1], b[1], x.dtype)
        if isinstance(x, P.Sub):
            a, b = go(x.a), go(x.b)
            if a is None or b is None:
                return None
            rest = a[1]
            if b[1] is not None:
                rest = P.Sub(rest if rest is not None else P.IntImm(0, x.dtype), b[1])
            return _merge(a[0], b[0], -1), rest
        if isinstance(x, P.Mul):
            for c, other in ((x.a, x.b), (x.b, x.a)):
                if isinstance(c, P.IntImm):
                    r = go(other)
                    if r is None:
                        return None
                    coefs = {k: v * c.value for k, v in r[0].items()}
                    rest = P.Mul(r[1], c) if r[1] is not None else None
                    return coefs, rest
            return None
        if isinstance(x, P.Cast) and x.dtype.startswith(("int", "uint")) and \
                x.value.dtype.startswith(("int", "uint")):
            r = go(x.value)
            if r is None:
                return None
            return r[0], (P.Cast(x.dtype, r[1]) if r[1] is not None else None)
        return None

    r = go(e)
    if r is None:
        return None
    coefs = {k: v for k, v in r[0].items() if v != 0}
    rest = r[1] if r[1] is not None else P.IntImm(0, e.dtype)
    return coefs, rest


def _merge(a: Dict, b: Dict, sign: int) -> Dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return out


def _add(a, b, dtype):
    if a is None:
        return b
    if b is None:
        return a
    return P.Add(a, b)


# ---------------------------------------------------------------------------------------------------
# Nests
# ---------------------------------------------------------------------------------------------------


@dataclass
class Nest(LoopNest):
    """A nest the JAX executor vectorizes: a :class:`~relax_ref.analysis.loop_nest.LoopNest` whose
    written indices (``flat_index``: with the block bindings substituted) are proven distinct for
    distinct points of the spatial loops."""

    flat_index: Dict[Any, Tuple[P.PrimExpr, ...]] = field(default_factory=dict)


def analyze_nest(s: tir.For) -> Optional[Nest]:
    """The vectorization plan of the nest rooted at ``s`` (TIR.VEC.2, the shared analysis), when the
    written elements are also proven distinct statically; else None (it runs as loops)."""
    n = analyze_loop_nest(s)
    if n is None:
        return None
    binding_of = dict(n.bindings)
    flat_index = {dv: tuple(substitute_bindings(i, binding_of) for i in idx) for dv, idx in n.index_of.items()}
    loop_vars = [lp.loop_var for lp in n.loops]
    svars = [loop_vars[k] for k in n.spatial]
    for idx in flat_index.values():
        if not _injective(idx, svars, {lp.loop_var: lp for lp in n.loops}):
            return None
    return Nest(**{f.name: getattr(n, f.name) for f in fields(LoopNest)}, flat_index=flat_index)


def substitute_bindings(e: P.PrimExpr, binding_of: Dict) -> P.PrimExpr:
    for _ in range(8):
        fv = prim_vars_in(e)
        sub = {v: binding_of[v] for v in fv if v in binding_of}
        if not sub:
            return e
        e = substitute_prim(e, {v: (x if x.dtype == v.dtype else P.cast(v.dtype, x)) for v, x in sub.items()})
    return e


def _static_int(e: P.PrimExpr) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) else None


def _injective(idx: Sequence[P.PrimExpr], svars: Sequence[P.PrimVar], loop_of: Dict) -> bool:
    """Sufficient condition: every spatial variable appears in exactly one index position, each
    position is linear in the spatial variables with coefficients forming a mixed radix (so distinct
    points give distinct values)."""
    if not svars:
        return True
    seen: set = set()
    for e in idx:
        lf = linear_form(e, svars)
        if lf is None:
            used = prim_vars_in(e).keys() & set(svars)
            if used:
                return False
            continue
        coefs, _ = lf
        if not coefs:
            continue
        if seen & coefs.keys():
            return False
        seen |= coefs.keys()
        terms = sorted(((abs(c), v) for v, c in coefs.items()), key=lambda t: t[0])
        span = 0
        for c, v in terms:
            if c <= span:
                return False
            ext = _static_int(loop_of[v].extent)
            if ext is None:
                if (c, v) != terms[-1]:
                    return False
                span = None
                break
            span += c * max(ext - 1, 0)
    return seen == set(svars)


# ---------------------------------------------------------------------------------------------------
# Bounds proofs
# ---------------------------------------------------------------------------------------------------


class Ranges:
    """Known ranges of loop variables (and bindings of iteration variables) for bounds proofs."""

    def __init__(self) -> None:
        self._items: List[Tuple[str, P.PrimVar, Any, Any]] = []
        self._an: Optional[Analyzer] = None

    def push_range(self, var: P.PrimVar, mn: P.PrimExpr, ext: P.PrimExpr) -> None:
        self._items.append(("range", var, mn, ext))
        if isinstance(ext, P.PrimVar):
            # inside the loop its extent is at least 1
            self._items.append(("range", ext, P.IntImm(1, ext.dtype), P.IntImm(1 << 40, ext.dtype)))
        self._an = None

    def _resolve(self, v: P.PrimVar) -> P.PrimVar:
        for kind, var, a, _ in reversed(self._items):
            if kind == "bind" and var is v and isinstance(a, P.PrimVar):
                return self._resolve(a)
        return v

    def _current(self, v: P.PrimVar):
        for kind, var, a, b in reversed(self._items):
            if kind == "range" and var is v:
                return a, P.add(a, b)
        return None

    def push_condition(self, cond: P.PrimExpr, positive: bool) -> None:
        """Add the bounds ``cond`` (or its negation) implies for the arm it guards."""
        for v, lo, hi in condition_ranges(cond, positive):
            v = self._resolve(v)
            cur = self._current(v)
            if cur is None:
                continue
            lo = cur[0] if lo is None else lo
            hi = cur[1] if hi is None else hi
            if lo.dtype != v.dtype:
                lo = P.cast(v.dtype, lo)
            if hi.dtype != v.dtype:
                hi = P.cast(v.dtype, hi)
            self._items.append(("range", v, lo, P.sub(hi, lo)))
            self._an = None

    def push_bind(self, var: P.PrimVar, value: P.PrimExpr) -> None:
        self._items.append(("bind", var, value, None))
        self._an = None

    def mark(self) -> int:
        return len(self._items)

    def pop_to(self, mark: int) -> None:
        if len(self._items) != mark:
            del self._items[mark:]
            self._an = None

    def facts(self) -> tuple:
        """The facts known now (for :meth:`reset`)."""
        return tuple(self._items)

    def reset(self, facts: tuple) -> None:
        """Know exactly ``facts`` (from :meth:`facts`)."""
        self._items = list(facts)
        self._an = None

    def analyzer(self) -> Analyzer:
        if self._an is None:
            an = Analyzer()
            for kind, v, a, b in self._items:
                try:
                    if kind == "range":
                        an.bind_range(v, a, b)
                    elif a.dtype == v.dtype and v not in prim_vars_in(a):
                        an.bind(v, a)
                except Exception:  # noqa: BLE001 - a fact the analyzer cannot take is simply not used
                    pass
            self._an = an
        return self._an

    def in_bounds(self, idx: P.PrimExpr, extent: P.PrimExpr) -> bool:
        """True when ``0 <= idx < extent`` provably."""
        if not idx.dtype.startswith(("int", "uint")) or not extent.dtype.startswith(("int", "uint")):
            return False
        try:
            an = self.analyzer()
            return an.can_prove(P.ge(idx, 0)) and an.can_prove(P.lt(idx, extent))
        except Exception:  # noqa: BLE001 - unprovable: a run-time check is emitted
            return False


def condition_ranges(cond: P.PrimExpr, positive: bool = True) -> List[Tuple[P.PrimVar, Optional[P.PrimExpr], Optional[P.PrimExpr]]]:
    """Bounds ``lo <= v < hi`` implied by ``cond`` (``positive``) or by its negation: conjunctions
    (disjunctions, negated) of comparisons that are linear in one variable with coefficient +-1
    (used to prove the loads of an ``if_then_else`` arm or a branch in bounds)."""
    out: list = []
    stack = [(cond, positive)]
    while stack:
        c, pos = stack.pop()
        if isinstance(c, P.Not):
            stack.append((c.a, not pos))
            continue
        if isinstance(c, P.And) and pos or isinstance(c, P.Or) and not pos:
            stack += [(c.a, pos), (c.b, pos)]
            continue
        if not isinstance(c, (P.LT, P.LE, P.GT, P.GE)):
            continue
        t = type(c)
        if not pos:
            t = {P.LT: P.GE, P.LE: P.GT, P.GT: P.LE, P.GE: P.LT}[t]
        if not c.a.dtype.startswith(("int", "uint")) or not c.b.dtype.startswith(("int", "uint")):
            continue
        # a - b (t) 0  with  a - b == k * v + rest, k = +-1
        diff = P.sub(c.a, c.b)
        cands = [v for v in prim_vars_in(diff)]
        for v in cands:
            lf = linear_form(diff, [v])
            if lf is None or set(lf[0]) != {v} or abs(lf[0][v]) != 1:
                continue
            k, rest = lf[0][v], lf[1]
            # k*v + rest (t) 0  ->  bound on v
            bound = P.neg(rest) if k == 1 else rest        # v (t') bound
            tt = t if k == 1 else {P.LT: P.GT, P.LE: P.GE, P.GT: P.LT, P.GE: P.LE}[t]
            if tt is P.LT:
                out.append((v, None, bound))
            elif tt is P.LE:
                out.append((v, None, P.add(bound, 1)))
            elif tt is P.GT:
                out.append((v, P.add(bound, 1), None))
            else:
                out.append((v, bound, None))
            break
    return out


__all__ = ["linear_form", "Nest", "analyze_nest", "Ranges", "condition_ranges", "substitute_bindings"]

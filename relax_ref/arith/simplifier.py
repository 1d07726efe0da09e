"""The rewriting and bound engine behind :class:`relax_ref.arith.Analyzer` (spec chapter ARITH).

One :class:`SimplifyContext` serves one top-level query. Integer expressions are converted to
:class:`~relax_ref.arith.poly.Poly` over *atoms* -- variables and the non-polynomial nodes
(``//``, ``%``, truncating division, ``min``/``max``, ``Select``, casts, calls, loads, and products of
sums kept for printing) -- and rendered back in a TVM-like form: variables before constants in
products (``n * 4``), positive terms first, then a positive constant, then subtracted terms, then a
negative constant (``n + 1``, ``w + 1 - k``, ``w - k - 1``, as TVM's canonical form), terms
and factors in order of first appearance.

Reasoning model (ARITH.ASSUME.1). The engine reasons over the mathematical integers and assumes that
every integer sub-expression of the query evaluates inside its dtype's range (no wrap-around), as TVM's
analyzer does; constant-only sub-expressions are folded *with* wrap-around (PRIM.INT.1), and the
``+ - *`` normalization is valid under wrap-around anyway (ARITH.CANON.2). It also assumes that the
query evaluates without error: a divisor is taken to be non-zero and an unused ``Select`` arm may be
dropped (ARITH.ASSUME.2). Under these assumptions every rewrite preserves the value.

Bounds (ARITH.BOUND.*) are intervals computed from atom bounds (variables: an explicit range, else
``[0, max]`` when symbolic variables are non-negative, else the dtype's range), refined by rewriting the
polynomial: ``x // c`` replaced by ``(x - x % c) / c``, ``x % c`` by ``x - c * (x // c)``, a case split
on ``min``/``max``/``Select`` atoms, and substitution of variables that have symbolic ranges.

The class is assembled from three modules: this one (atoms, conversion to and from polynomials,
``min``/``max``/``Select``/casts/calls, booleans), :mod:`.division` (``//`` and ``%``) and
:mod:`.bounds` (the bound computations); interval arithmetic is in :mod:`.interval`.
"""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING, Optional

from ..errors import DivisionByZeroError, RelaxError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import prim_vars_in, substitute_prim
from . import semantics as _sem
from .bounds import BoundsMixin
from .division import DivisionMixin, mod_key
from .interval import dtype_bound
from .intrinsics import canonical_name as _intrinsic_name
from .poly import Poly

if TYPE_CHECKING:  # pragma: no cover
    from .analyzer import Analyzer

_CMP = (P.EQ, P.NE, P.LT, P.LE, P.GT, P.GE)
_NEGATE = {P.EQ: P.NE, P.NE: P.EQ, P.LT: P.GE, P.GE: P.LT, P.LE: P.GT, P.GT: P.LE}
_FOLDABLE_INT_CALLS = frozenset({
    "tir.shift_left", "tir.shift_right", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor",
    "tir.bitwise_not", "tir.popcount", "tir.clz",
})


def is_index_dtype(dtype: str) -> bool:
    """Integer dtypes reasoned about as polynomials (bool is not one)."""
    return _dt.is_integer(dtype)


def _size(e: P.PrimExpr) -> int:
    n = 0
    stack = [e]
    while stack:
        x = stack.pop()
        n += 1
        stack.extend(P.children(x))
    return n


def _negates(x: P.PrimExpr, y: P.PrimExpr) -> bool:
    """``y`` is syntactically the negation of ``x`` (``not x``, or the complementary integer
    comparison of the same operands)."""
    if type(y) is P.Not and y.a == x:
        return True
    t = type(x)
    return (t in _NEGATE and type(y) is _NEGATE[t] and not _dt.is_float(x.a.dtype)
            and x.a == y.a and x.b == y.b)


class Atom:
    __slots__ = ("idx", "kind", "expr", "dtype", "a", "b", "c", "bound", "vars", "src_dtype")

    def __init__(self, idx, kind, expr, dtype, a=None, b=None, c=None, src_dtype=None):
        self.idx = idx
        self.kind = kind
        self.expr = expr
        self.dtype = dtype
        self.a = a
        self.b = b
        self.c = c
        self.bound = None
        self.vars = None
        self.src_dtype = src_dtype


class SimplifyContext(DivisionMixin, BoundsMixin):
    """State of one query: the atom table, memoized bounds and the analyzer's facts."""

    def __init__(self, analyzer: "Analyzer"):
        self.an = analyzer
        self.atoms: list[Atom] = []
        self.index: dict = {}
        self.subst_poly: dict = {}
        self.sym_poly: dict = {}
        self.local_bounds: dict = {}
        self.bound_memo: dict = {}
        self.fd_by_mod: dict = {}
        self.saw_float = False

    # ---------------------------------------------------------------------------------------------
    # Atoms
    # ---------------------------------------------------------------------------------------------

    def _register(self, key, kind, expr, dtype, **payload) -> int:
        idx = self.index.get(key)
        if idx is None:
            idx = len(self.atoms)
            self.atoms.append(Atom(idx, kind, expr, dtype, **payload))
            self.index[key] = idx
        return idx

    def _atom_vars(self, at: Atom) -> dict:
        if at.vars is None:
            at.vars = {at.expr: None} if at.kind == "var" else prim_vars_in(at.expr)
        return at.vars

    def _opaque(self, expr: P.PrimExpr) -> Poly:
        return Poly.of_atom(self._register(expr, "opaque", expr, expr.dtype))

    # ---------------------------------------------------------------------------------------------
    # Entry points
    # ---------------------------------------------------------------------------------------------

    def expr(self, e: P.PrimExpr) -> P.PrimExpr:
        """The simplified form of any scalar expression."""
        t = type(e)
        if t is P.IntImm or t is P.PrimStringImm:
            return e
        if t is P.FloatImm:
            self.saw_float = True
            return e
        d = e.dtype
        if is_index_dtype(d):
            return self.best(self.poly(e), d)
        if t is P.PrimVar:
            s = self.an._subst.get(e)
            return e if s is None else self.expr(s)
        if t in _CMP:
            return self._compare(e)
        if t is P.And or t is P.Or:
            return self._logic(e)
        if t is P.Not:
            return self._not(e)
        if t is P.Select:
            c = self.expr(e.condition)
            if type(c) is P.IntImm:
                return self.expr(e.true_value if c.value else e.false_value)
            tv, fv = self.expr(e.true_value), self.expr(e.false_value)
            if tv == fv:
                return tv
            return P.Select(c, tv, fv, d)
        if t is P.Cast:
            if d == "bool" and is_index_dtype(e.value.dtype):  # bool(x) is x != 0
                r = self.decide(P.NE, self.expand(self.poly(e.value)))
                if r is not None:
                    return P.IntImm(int(r), "bool")
            x = self.expr(e.value)
            if x.dtype == d:
                return x
            if type(x) in (P.IntImm, P.FloatImm):
                return self._fold(P.Cast(d, x))
            return P.Cast(d, x)
        if t is P.PrimCall:
            r = self._call(e)
            return r if isinstance(r, P.PrimExpr) else self.best(r, d)
        if t is P.Let:
            r = self._let(e)
            return r if isinstance(r, P.PrimExpr) else self.best(r, d)
        if t is tir.BufferLoad:
            return tir.BufferLoad(e.buffer, tuple(self.expr(i) for i in e.indices), d)
        if isinstance(e, P.BinaryOp):  # float / bool arithmetic: constant folding only
            a, b = self.expr(e.a), self.expr(e.b)
            node = e if (a is e.a and b is e.b) else t(a, b, d)
            if type(a) in (P.IntImm, P.FloatImm) and type(b) in (P.IntImm, P.FloatImm):
                return self._fold(node)
            return node
        raise UnsupportedError(f"cannot simplify scalar expression node {t.__name__}")

    def _fold(self, node: P.PrimExpr) -> P.PrimExpr:
        """Evaluate a node whose operands are constants; a division by zero is left in place."""
        from .evaluate import eval_prim

        try:
            v = eval_prim(node, {})
        except DivisionByZeroError:
            return node
        if _dt.is_float(node.dtype):
            self.saw_float = True
            return P.FloatImm(float(v), node.dtype)
        return P.IntImm(int(v), node.dtype)

    # ---------------------------------------------------------------------------------------------
    # Integer expressions -> polynomials
    # ---------------------------------------------------------------------------------------------

    def poly(self, e: P.PrimExpr) -> Poly:
        """The canonical polynomial of an integer expression (light form: products of sums are atoms)."""
        t = type(e)
        if t is P.IntImm:
            return Poly({}, e.value)
        if not is_index_dtype(e.dtype):
            x = self.expr(e)
            if type(x) is P.IntImm:
                return Poly({}, x.value)
            return self._opaque(x)
        if t is P.PrimVar:
            return self._var_poly(e)
        d = e.dtype
        if t is P.Add or t is P.Sub:
            r = self.poly(e.a).add(self.poly(e.b), 1 if t is P.Add else -1)
            return Poly({}, _sem.wrap(r.const, d)) if not r.terms else r
        if t is P.Mul:
            return self._mul(self.poly(e.a), self.poly(e.b), d)
        if t is P.FloorDiv or t is P.FloorMod:
            return self._floor_divmod(self.poly(e.a), self.poly(e.b), d, t is P.FloorDiv)
        if t is P.Div or t is P.Mod:
            return self._trunc_divmod(self.poly(e.a), self.poly(e.b), d, t is P.Div)
        if t is P.Min or t is P.Max:
            return self._minmax(self.poly(e.a), self.poly(e.b), d, t is P.Min)
        if t is P.Select:
            return self._select(e)
        if t is P.Cast:
            return self._cast(e)
        if t is P.PrimCall:
            r = self._call(e)
            return r if isinstance(r, Poly) else self._int_call_atom(r)
        if t is P.Let:
            r = self._let(e)
            return r if isinstance(r, Poly) else self.poly(r)
        if t is tir.BufferLoad:
            return self._opaque(tir.BufferLoad(e.buffer, tuple(self.expr(i) for i in e.indices), d))
        raise UnsupportedError(f"cannot simplify scalar expression node {t.__name__}")

    def _var_poly(self, v: P.PrimVar) -> Poly:
        s = self.an._subst.get(v)
        if s is not None:
            p = self.subst_poly.get(v)
            if p is None:
                p = self.subst_poly[v] = self.poly(s)
            return p
        return Poly.of_atom(self._register(v, "var", v, v.dtype))

    def _mul(self, A: Poly, B: Poly, d: str) -> Poly:
        if not A.terms:
            r = B.scale(A.const)
            return Poly({}, _sem.wrap(r.const, d)) if not r.terms else r
        if not B.terms:
            return A.scale(B.const)
        sa, sb = A.single(), B.single()
        if sa is not None and sb is not None:
            return A.mul(B)
        # a product involving a sum: kept as one atom for printing, with its expansion attached
        ka = sa[1] if sa is not None else 1
        kb = sb[1] if sb is not None else 1
        A1 = Poly({sa[0]: 1}) if sa is not None else A
        B1 = Poly({sb[0]: 1}) if sb is not None else B
        EA, EB = self.expand(A1), self.expand(B1)
        key = ("prod",) + tuple(sorted((EA.key(), EB.key())))
        idx = self.index.get(key)
        if idx is None:
            node = P.Mul(self.best(A1, d), self.best(B1, d), d)
            idx = self._register(key, "prod", node, d, a=EA.mul(EB))
        return Poly.of_atom(idx, ka * kb)

    # ---------------------------------------------------------------------------------------------
    # Expansion, merging and rendering
    # ---------------------------------------------------------------------------------------------

    def _has_prod(self, L: Poly) -> bool:
        atoms = self.atoms
        for m in L.terms:
            for i in m:
                if atoms[i].kind == "prod":
                    return True
        return False

    def expand(self, L: Poly) -> Poly:
        """The fully expanded polynomial (products of sums multiplied out), merged."""
        if not self._has_prod(L):
            return self.merge(L)
        out = Poly({}, L.const)
        for m, k in L.terms.items():
            t = Poly({}, k)
            for i in m:
                at = self.atoms[i]
                t = t.mul(at.a if at.kind == "prod" else Poly.of_atom(i))
            out = out.add(t)
        return self.merge(out)

    def merge(self, Pl: Poly) -> Poly:
        """Recombination rules (ARITH.CANON.3): ``x // c * c + x % c -> x``,
        ``x - x // c * c -> x % c`` and ``min(a, b) + max(a, b) -> a + b``."""
        atoms = self.atoms
        cand = [(m[0], k) for m, k in Pl.terms.items()
                if len(m) == 1 and atoms[m[0]].kind in ("floormod", "floordiv", "min")]
        for i, k in cand:
            if Pl.terms.get((i,)) != k:
                continue
            at = atoms[i]
            if at.kind == "floormod" and at.c is not None:
                for qi in self.fd_by_mod.get((mod_key(at.a, at.c), at.c), ()):
                    if Pl.terms.get((qi,)) == k * at.c:  # c * (Xq // c) + Xq % c == Xq
                        Pl = Pl.add(Poly({(i,): k, (qi,): k * at.c}), -1).add(self.atoms[qi].a.scale(k))
                        break
            elif at.kind == "floordiv" and at.c is not None and k % at.c == 0:
                kk = -(k // at.c)
                X = at.a
                if X.terms and all(Pl.terms.get(m2) == kk * x for m2, x in X.terms.items()):
                    fm = self._floormod_const(X, at.c, at.dtype)
                    Pl = Pl.add(X.scale(kk), -1).add(Poly.of_atom(i, k), -1).add(fm.scale(kk))
            elif at.kind == "min":
                mi = self.index.get(("max", at.c))
                if mi is not None and Pl.terms.get((mi,)) == k:
                    Pl = Pl.add(Poly({(i,): k, (mi,): k}), -1).add(at.a.scale(k)).add(at.b.scale(k))
        return Pl

    def best(self, L: Poly, d: str) -> P.PrimExpr:
        """Render ``L``; when it holds products of sums, the expanded form if that is smaller."""
        L = self.merge(L)
        if not self._has_prod(L):
            return self.render(L, d)
        rl = self.render(L, d)
        rp = self.render(self.expand(L), d)
        return rp if _size(rp) < _size(rl) else rl

    def _mono(self, m, k: int, d: str) -> P.PrimExpr:
        atoms = self.atoms
        acc = atoms[m[0]].expr
        for i in m[1:]:
            acc = P.Mul(acc, atoms[i].expr, d)
        if k != 1:
            acc = P.Mul(acc, P.IntImm(k, d), d)
        return acc

    def render(self, L: Poly, d: str) -> P.PrimExpr:
        c = L.const
        if not L.terms:
            return P.IntImm(c, d)
        pos = [(m, k) for m, k in L.terms.items() if k > 0]
        neg = [(m, k) for m, k in L.terms.items() if k < 0]
        acc = None
        for m, k in pos:
            t = self._mono(m, k, d)
            acc = t if acc is None else P.Add(acc, t, d)
        if acc is None:
            if len(neg) == 1 and c == 0 and _dt.is_int(d):
                return self._mono(neg[0][0], neg[0][1], d)
            if c > 0:
                acc, c = P.IntImm(c, d), 0
            else:
                acc = P.IntImm(0, d)
        elif c > 0:      # a positive constant precedes the subtracted terms (TVM: ``w + 1 - k``)
            acc, c = P.Add(acc, P.IntImm(c, d), d), 0
        for m, k in neg:
            acc = P.Sub(acc, self._mono(m, -k, d), d)
        if c < 0:
            hi = _sem.int_info(d)[3]
            acc = P.Sub(acc, P.IntImm(-c, d), d) if -c <= hi else P.Add(acc, P.IntImm(c, d), d)
        return acc

    # ---------------------------------------------------------------------------------------------
    # min / max / select / cast / calls / let
    # ---------------------------------------------------------------------------------------------

    def _minmax(self, A: Poly, B: Poly, d: str, is_min: bool) -> Poly:
        """(ARITH.MINMAX.1) constants fold; (ARITH.MINMAX.2) the bounds of ``a - b`` decide;
        (ARITH.MINMAX.3) a common constant moves out: ``min(n + 1, m + 1) -> min(n, m) + 1``."""
        if not A.terms and not B.terms:
            a, b = _sem.wrap(A.const, d), _sem.wrap(B.const, d)
            return Poly({}, min(a, b) if is_min else max(a, b))
        EA, EB = self.expand(A), self.expand(B)
        D = EA.add(EB, -1)
        lo, hi = self.bound(D)
        if hi <= 0:
            return A if is_min else B
        if lo >= 0:
            return B if is_min else A
        c = 0
        if A.terms and B.terms and A.const == B.const and A.const:
            c = A.const
            A, B = A.add_const(-c), B.add_const(-c)
            EA, EB = EA.add_const(-c), EB.add_const(-c)
        kind = "min" if is_min else "max"
        pair = tuple(sorted((EA.key(), EB.key())))
        key = (kind, pair)
        idx = self.index.get(key)
        if idx is None:
            cls = P.Min if is_min else P.Max
            idx = self._register(key, kind, cls(self.best(A, d), self.best(B, d), d), d, a=EA, b=EB,
                                 c=pair)
        return Poly.of_atom(idx).add_const(c)

    def _select(self, e: P.Select) -> Poly:
        cond = self.expr(e.condition)
        if type(cond) is P.IntImm:
            return self.poly(e.true_value if cond.value else e.false_value)
        A, B = self.poly(e.true_value), self.poly(e.false_value)
        EA, EB = self.expand(A), self.expand(B)
        if EA.key() == EB.key():
            return A
        key = ("select", cond, EA.key(), EB.key())
        idx = self.index.get(key)
        if idx is None:
            d = e.dtype
            node = P.Select(cond, self.best(A, d), self.best(B, d), d)
            idx = self._register(key, "select", node, d, a=EA, b=EB, c=cond)
        return Poly.of_atom(idx)

    def _cast(self, e: P.Cast) -> Poly:
        v = e.value
        d = e.dtype
        if v.dtype == d:
            return self.poly(v)
        if is_index_dtype(v.dtype):
            A = self.poly(v)
            if not A.terms:
                return Poly({}, _sem.cast(_sem.wrap(A.const, v.dtype), v.dtype, d))
            sa = A.single()
            if sa is not None and sa[1] == 1 and len(sa[0]) == 1:
                inner = self.atoms[sa[0][0]]
                # (ARITH.CAST.1) a round trip through a type that holds the value is the identity
                if inner.kind == "cast" and inner.src_dtype == d and inner.a is not None:
                    lo, hi = self.bound(inner.a)
                    vlo, vhi = dtype_bound(v.dtype)
                    if vlo <= lo and hi <= vhi:
                        return inner.a
            EA = self.expand(A)
            key = ("cast", d, EA.key())
            idx = self.index.get(key)
            if idx is None:
                idx = self._register(key, "cast", P.Cast(d, self.best(A, v.dtype)), d, a=EA,
                                     src_dtype=v.dtype)
            return Poly.of_atom(idx)
        x = self.expr(v)
        if type(x) in (P.IntImm, P.FloatImm):
            folded = self._fold(P.Cast(d, x))
            return Poly({}, folded.value)
        node = P.Cast(d, x)
        return Poly.of_atom(self._register(node, "cast", node, d, src_dtype=v.dtype))

    def _call(self, e: P.PrimCall):
        """Simplify a call: ``if_then_else``/``likely`` of a constant condition fold, integer bit
        intrinsics of constants fold; the result is a PrimExpr (or a Poly for a folded int arm)."""
        name = _intrinsic_name(e.op)
        d = e.dtype
        if name == "tir.if_then_else" and len(e.args) == 3:
            c = self.expr(e.args[0])
            if type(c) is P.IntImm:
                arm = e.args[1] if c.value else e.args[2]
                return self.poly(arm) if is_index_dtype(d) else self.expr(arm)
            args = (c, self.expr(e.args[1]), self.expr(e.args[2]))
            if args[1] == args[2]:
                return self.poly(e.args[1]) if is_index_dtype(d) else args[1]
            return P.PrimCall(d, e.op, args)
        args = tuple(self.expr(a) for a in e.args)
        if name == "tir.likely" and len(args) == 1 and type(args[0]) is P.IntImm:
            return args[0] if not is_index_dtype(d) else Poly({}, args[0].value)
        if name in _FOLDABLE_INT_CALLS and all(type(a) is P.IntImm for a in args):
            from .evaluate import eval_prim

            try:
                v = eval_prim(P.PrimCall(d, e.op, args), {})
            except RelaxError:
                v = None  # e.g. a negative shift count: left for evaluation to report
            if v is not None:
                return Poly({}, int(v)) if is_index_dtype(d) else P.IntImm(int(v), d)
        return P.PrimCall(d, e.op, args)

    def _int_call_atom(self, call: P.PrimExpr) -> Poly:
        if type(call) is P.IntImm:
            return Poly({}, call.value)
        return self._opaque(call)

    def _let(self, e: P.Let):
        """``Let`` whose value is a constant or a variable is substituted; otherwise the body is
        simplified knowing the bound of the value and the Let is kept while the body uses it."""
        v = self.expr(e.value)
        if type(v) in (P.IntImm, P.FloatImm, P.PrimVar):
            body = substitute_prim(e.body, {e.var: v})
            return self.poly(body) if is_index_dtype(e.dtype) else self.expr(body)
        if is_index_dtype(v.dtype):
            self.local_bounds[e.var] = self.bound(self.expand(self.poly(v)))
        b = self.expr(e.body)
        if e.var not in prim_vars_in(b):
            return b
        node = P.Let(e.var, v, b, e.dtype)
        if is_index_dtype(e.dtype):
            lo, hi = self.bound(self.expand(self.poly(b)))
            idx = self._register(node, "opaque", node, e.dtype)
            self.atoms[idx].bound = self._clip((lo, hi), e.dtype)
            return Poly.of_atom(idx)
        return node

    # ---------------------------------------------------------------------------------------------
    # Booleans
    # ---------------------------------------------------------------------------------------------

    def _compare(self, e: P.CmpOp) -> P.PrimExpr:
        t = type(e)
        a, b = e.a, e.b
        if is_index_dtype(a.dtype) and is_index_dtype(b.dtype):
            A, B = self.poly(a), self.poly(b)
            D = self.expand(A).add(self.expand(B), -1)
            r = self.decide(t, D)
            if r is not None:
                return P.IntImm(int(r), "bool")
            return t(self.best(A, a.dtype), self.best(B, b.dtype))
        x, y = self.expr(a), self.expr(b)
        if type(x) in (P.IntImm, P.FloatImm) and type(y) in (P.IntImm, P.FloatImm):
            return self._fold(t(x, y))
        if x == y and not _dt.is_float(x.dtype):
            return P.IntImm(int(t in (P.EQ, P.LE, P.GE)), "bool")
        return e if (x is a and y is b) else t(x, y)

    def decide(self, t, D: Poly) -> Optional[bool]:
        """Truth of ``D <op> 0`` when the bounds of ``D`` decide it, else None (ARITH.CMP.1)."""
        if t is P.NE:
            r = self.decide(P.EQ, D)
            return None if r is None else not r
        if t is P.EQ:
            if D.is_zero():
                return True
            if not D.terms:
                return False
            g = 0
            for k in D.terms.values():
                g = gcd(g, k)
            if D.const % g:
                return False
            lo, hi = self.bound(D)
            if lo > 0 or hi < 0:
                return False
            if lo == hi == 0:
                return True
            return None
        lo, hi = self.bound(D)
        if t is P.LT:
            return True if hi < 0 else (False if lo >= 0 else None)
        if t is P.LE:
            return True if hi <= 0 else (False if lo > 0 else None)
        if t is P.GT:
            return True if lo > 0 else (False if hi <= 0 else None)
        if t is P.GE:
            return True if lo >= 0 else (False if hi < 0 else None)
        raise UnsupportedError(f"not a comparison: {t.__name__}")

    def _logic(self, e) -> P.PrimExpr:
        is_and = type(e) is P.And
        x = self.expr(e.a)
        if type(x) is P.IntImm:
            if bool(x.value) == is_and:
                return self.expr(e.b)
            return P.IntImm(int(not is_and), "bool")
        y = self.expr(e.b)
        if type(y) is P.IntImm:
            return x if bool(y.value) == is_and else P.IntImm(int(not is_and), "bool")
        if x == y:
            return x
        if _negates(x, y) or _negates(y, x):
            return P.IntImm(int(not is_and), "bool")
        return e if (x is e.a and y is e.b) else type(e)(x, y)

    def _not(self, e: P.Not) -> P.PrimExpr:
        x = self.expr(e.a)
        t = type(x)
        if t is P.IntImm:
            return P.IntImm(int(not x.value), "bool")
        if t is P.Not:
            return x.a
        if t in _NEGATE and not _dt.is_float(x.a.dtype):
            return _NEGATE[t](x.a, x.b)
        return e if x is e.a else P.Not(x)


__all__ = ["SimplifyContext", "is_index_dtype"]

"""Bounds of integer expressions in the simplifier (ARITH.BOUND.*): intervals from atom bounds
(variables: an explicit range, else ``[0, max]`` when symbolic variables are non-negative, else the
dtype's range), refined by rewriting the polynomial (``x // c`` as ``(x - x % c) / c``, ``x % c`` as
``x - c * (x // c)``, case splits on ``min``/``max``/``Select`` atoms, substitution of variables with
symbolic ranges). Mixed into :class:`relax_ref.arith.simplifier.SimplifyContext`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UnsupportedError
from ..ir import prim_expr as P
from . import semantics as _sem
from .interval import cdiv, dtype_bound, fdiv, finite, imul, ipow, lcm, tdiv
from .intrinsics import canonical_name as _intrinsic_name
from .poly import Poly

if TYPE_CHECKING:  # pragma: no cover
    from .simplifier import Atom

BOUND_DEPTH = 2


class BoundsMixin:
    """The bound computations of :class:`~relax_ref.arith.simplifier.SimplifyContext`."""

    @staticmethod
    def _clip(b: tuple, d: str) -> tuple:
        lo, hi = dtype_bound(d)
        return max(b[0], lo), min(b[1], hi)

    def _var_bound(self, v: P.PrimVar) -> tuple:
        lo, hi = dtype_bound(v.dtype)
        r = self.local_bounds.get(v)
        if r is None:
            r = self.an._ranges.get(v)
        if r is not None:
            return max(lo, r[0]), min(hi, r[1])
        if self.an.symbolic_nonneg:
            return max(lo, 0), hi
        return lo, hi

    def atom_bound(self, i: int) -> tuple:
        at = self.atoms[i]
        if at.bound is not None:
            return at.bound
        full = dtype_bound(at.dtype)
        at.bound = full  # guards against re-entry
        b = self._compute_atom_bound(at, full)
        at.bound = b = (max(b[0], full[0]), min(b[1], full[1]))
        return b

    def _compute_atom_bound(self, at: Atom, full: tuple) -> tuple:
        k = at.kind
        if k == "var":
            return self._var_bound(at.expr)
        if k == "prod":
            return self.bound(at.a)
        if k in ("floordiv", "floormod", "truncdiv", "truncmod"):
            xl, xh = self.bound(at.a)
            if at.c is not None:
                c = at.c
                if k == "floordiv":
                    return fdiv(xl, c), fdiv(xh, c)
                if finite(xl, xh) and xl // c == xh // c:
                    return xl - (xl // c) * c, xh - (xl // c) * c
                return 0, c - 1
            bl, bh = self.bound(at.b)
            if bl > bh or xl > xh:
                return full
            m = max(abs(xl), abs(xh))
            if k in ("floordiv", "truncdiv"):
                if (bl > 0 or bh < 0) and finite(xl, xh, bl, bh):
                    # monotone in both operands: the corners are the extremes
                    qs = [x // y if k == "floordiv" else tdiv(x, y) for x in (xl, xh) for y in (bl, bh)]
                    return min(qs), max(qs)
                return -m, m  # |b| >= 1 whenever the division is defined
            mb = max(abs(bl), abs(bh)) - 1
            if mb < 0:  # the divisor is always zero: the expression never has a value
                return full
            if k == "floormod":
                if bl > 0:
                    return (0, min(mb, xh)) if xl >= 0 else (0, mb)
                if bh < 0:
                    return -mb, 0
                return -mb, mb
            # truncmod: the sign of the dividend, magnitude below |b|
            lo = 0 if xl >= 0 else max(-mb, xl)
            hi = 0 if xh <= 0 else min(mb, xh)
            return lo, hi
        if k in ("min", "max"):
            al, ah = self.bound(at.a)
            bl, bh = self.bound(at.b)
            if k == "min":
                return min(al, bl), min(ah, bh)
            return max(al, bl), max(ah, bh)
        if k == "select":
            al, ah = self.bound(at.a)
            bl, bh = self.bound(at.b)
            return min(al, bl), max(ah, bh)
        if k == "cast":
            src = at.src_dtype
            if src == "bool":
                return 0, 1
            if at.a is not None:
                xl, xh = self.bound(at.a)
                if full[0] <= xl and xh <= full[1]:
                    return xl, xh
            return full
        if k == "opaque":
            e = at.expr
            if e.dtype == "bool":
                return 0, 1
            if type(e) is P.PrimCall:
                name = _intrinsic_name(e.op)
                if name in ("tir.popcount", "tir.clz"):
                    return 0, _sem.int_info(e.dtype)[0]
                if name == "tir.if_then_else" and len(e.args) == 3:
                    tl, th = self.bound(self.expand(self.poly(e.args[1])))
                    fl, fh = self.bound(self.expand(self.poly(e.args[2])))
                    return min(tl, fl), max(th, fh)
            return full
        raise UnsupportedError(f"unknown atom kind {k}")

    def base_bound(self, Pl: Poly) -> tuple:
        lo = hi = Pl.const
        for m, k in Pl.terms.items():
            if len(m) == 1:
                a, b = self.atom_bound(m[0])
            else:
                a, b = self._mono_bound(m)
            if k > 0:
                lo += k * a
                hi += k * b
            else:
                lo += k * b
                hi += k * a
        return lo, hi

    def _mono_bound(self, m) -> tuple:
        r = (1, 1)
        i = 0
        while i < len(m):
            j = i
            while j < len(m) and m[j] == m[i]:
                j += 1
            lo, hi = self.atom_bound(m[i])
            r = imul(r, ipow(lo, hi, j - i))
            i = j
        return r

    def bound(self, Pl: Poly, depth: int = BOUND_DEPTH, allow: str = "dmcs") -> tuple:
        """An interval ``(lo, hi)`` containing the value of ``Pl`` (ARITH.BOUND.1-5)."""
        if not Pl.terms:
            return Pl.const, Pl.const
        key = (Pl.key(), depth, allow)
        r = self.bound_memo.get(key)
        if r is not None:
            return r
        lo, hi = self.base_bound(Pl)
        if depth > 0 and lo < hi:
            for vlo, vhi in self._variants(Pl, depth - 1, allow):
                lo, hi = max(lo, vlo), min(hi, vhi)
                if lo >= hi:
                    break
        r = self.bound_memo[key] = (lo, hi)
        return r

    def _variants(self, Pl: Poly, depth: int, allow: str):
        atoms = self.atoms
        linear = {}
        nonlinear = set()
        for m, k in Pl.terms.items():
            if len(m) == 1:
                linear[m[0]] = k
            else:
                nonlinear.update(m)
        lin = [(i, k) for i, k in linear.items() if i not in nonlinear]
        # (ARITH.BOUND.2) x // c == (x - x % c) / c
        if "d" in allow:
            fds = [(i, k) for i, k in lin if atoms[i].kind == "floordiv" and atoms[i].c is not None]
            if fds:
                L = 1
                for i, _k in fds:
                    L = lcm(L, atoms[i].c)
                Q = Pl.scale(L)
                for i, k in fds:
                    at = atoms[i]
                    r = self._div_atom("floormod", at.a, at.c, at.dtype)
                    Q = Q.add(Poly.of_atom(i, k * L), -1).add(at.a.add(r, -1).scale(k * (L // at.c)))
                blo, bhi = self.bound(Q, depth, allow.replace("m", ""))
                yield cdiv(blo, L), fdiv(bhi, L)
        # (ARITH.BOUND.3) x % c == x - c * (x // c)
        if "m" in allow:
            fms = [(i, k) for i, k in lin if atoms[i].kind == "floormod" and atoms[i].c is not None]
            if fms:
                Q = Pl
                for i, k in fms:
                    at = atoms[i]
                    q = self._div_atom("floordiv", at.a, at.c, at.dtype)
                    Q = Q.add(Poly.of_atom(i, k), -1).add(at.a.add(q.scale(at.c), -1).scale(k))
                yield self.bound(Q, depth, allow.replace("d", ""))
        # (ARITH.BOUND.4) case split on min / max / select
        if "c" in allow:
            for i, k in lin:
                at = atoms[i]
                if at.kind not in ("min", "max", "select"):
                    continue
                rest = Pl.add(Poly.of_atom(i, k), -1)
                la, ha = self.bound(rest.add(at.a.scale(k)), depth, allow)
                lb, hb = self.bound(rest.add(at.b.scale(k)), depth, allow)
                if at.kind == "select":
                    yield min(la, lb), max(ha, hb)
                elif (at.kind == "min") == (k > 0):  # the value is below both alternatives
                    yield min(la, lb), min(ha, hb)
                else:
                    yield max(la, lb), max(ha, hb)
                break
        # (ARITH.BOUND.5) variables with symbolic ranges
        if "s" in allow and self.an._sym_ranges:
            for i, k in lin:
                at = atoms[i]
                if at.kind != "var" or at.expr not in self.an._sym_ranges:
                    continue
                v = at.expr
                if any(j != i and v in self._atom_vars(atoms[j]) for m in Pl.terms for j in m):
                    continue
                pmin, pmax = self._sym_polys(v)
                rest = Pl.add(Poly.of_atom(i, k), -1)
                lo_src, hi_src = (pmin, pmax) if k > 0 else (pmax, pmin)
                lo = self.bound(rest.add(lo_src.scale(k)), depth, allow)[0]
                hi = self.bound(rest.add(hi_src.scale(k)), depth, allow)[1]
                yield lo, hi

    def _sym_polys(self, v: P.PrimVar) -> tuple:
        r = self.sym_poly.get(v)
        if r is None:
            mn, mx = self.an._sym_ranges[v]
            r = self.sym_poly[v] = (self.expand(self.poly(mn)), self.expand(self.poly(mx)))
        return r


__all__ = ["BoundsMixin", "BOUND_DEPTH"]

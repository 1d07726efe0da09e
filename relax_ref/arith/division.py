"""Integer division and modulo in the simplifier (spec chapter ARITH): ``//`` and ``%`` by constants
(split into exact quotients and remainders when the bounds allow), by symbolic divisors, and truncating
division. Mixed into :class:`relax_ref.arith.simplifier.SimplifyContext`, whose atom table and
polynomial operations these methods use."""

from __future__ import annotations

from math import gcd

from ..ir import prim_expr as P
from . import semantics as _sem
from .interval import finite, tdiv
from .poly import Poly, mono_divides


def mod_key(X: Poly, c: int) -> tuple:
    """A key equal for polynomials that are congruent modulo ``c``."""
    return tuple(sorted((m, k % c) for m, k in X.terms.items() if k % c)), X.const % c


class DivisionMixin:
    """The division and modulo rewrites of :class:`~relax_ref.arith.simplifier.SimplifyContext`."""

    def _div_atom(self, kind: str, X: Poly, c: int, d: str) -> Poly:
        """The atom ``X // c`` or ``X % c`` (constant divisor ``c > 0``), without further rewriting.

        Atoms are shared between congruent dividends (ARITH.CANON.4): ``X % c`` depends only on ``X``
        modulo ``c`` (``(n - 1) % 8`` is ``(n + 7) % 8``), and ``(X + c*j) // c == X // c + j``, so a
        floor quotient is the atom of the first dividend seen plus a constant.
        """
        EX = self.expand(X)
        if kind == "floormod":
            key = ("floormod", mod_key(EX, c), c)
            idx = self.index.get(key)
            if idx is None:
                node = P.FloorMod(self.best(X, d), P.IntImm(c, d), d)
                idx = self._register(key, kind, node, d, a=EX, c=c)
            return Poly.of_atom(idx)
        key = ("floordiv", tuple(sorted(EX.terms.items())), EX.const % c, c)
        idx = self.index.get(key)
        if idx is None:
            node = P.FloorDiv(self.best(X, d), P.IntImm(c, d), d)
            idx = self._register(key, kind, node, d, a=EX, c=c)
            self.fd_by_mod.setdefault((mod_key(EX, c), c), []).append(idx)
        return Poly.of_atom(idx).add_const(EX.const // c - self.atoms[idx].a.const // c)

    def _floor_divmod(self, A: Poly, B: Poly, d: str, is_div: bool) -> Poly:
        if not B.terms:
            c = B.const
            return self._floordiv_const(A, c, d) if is_div else self._floormod_const(A, c, d)
        return self._sym_divmod(A, B, d, "floordiv" if is_div else "floormod")

    def _floordiv_const(self, A: Poly, c: int, d: str) -> Poly:
        """(ARITH.DIV.1) ``(c*q + r) // c == q + r // c``; (ARITH.DIV.2) ``(g*x + r) // (g*c') ==
        (x + r // g) // c'``; (ARITH.DIV.3) a quotient fixed by the bounds folds."""
        if c == 0:
            return self._sym_divmod(A, Poly({}, 0), d, "floordiv")
        if not A.terms:
            return Poly({}, _sem.floordiv(_sem.wrap(A.const, d), c, d))
        if c == 1:
            return A
        if c < 0:
            return self._floordiv_const(A.scale(-1), -c, d)
        EA = self.expand(A)
        Q, R = {}, {}
        for m, k in EA.terms.items():
            if k % c == 0:
                Q[m] = k // c
            else:
                R[m] = k
        if not R:
            return Poly(Q, EA.const // c)
        g = c
        for k in R.values():
            g = gcd(g, k)
        r0 = EA.const
        c2 = c
        if g > 1:
            R = {m: k // g for m, k in R.items()}
            r0 //= g
            c2 = c // g
        X = Poly(R, r0)
        if c2 == 1:
            return Poly(Q).add(X)
        lo, hi = self.bound(X)
        if finite(lo, hi) and lo // c2 == hi // c2:
            return Poly(Q, lo // c2)
        if not Q and g == 1:
            return self._div_atom("floordiv", A, c, d)
        return Poly(Q).add(self._div_atom("floordiv", X, c2, d))

    def _floormod_const(self, A: Poly, c: int, d: str) -> Poly:
        """(ARITH.MOD.1) multiples of ``c`` drop out of ``x % c``; (ARITH.MOD.2) ``(g*x + r) % (g*c') ==
        g * ((x + r // g) % c') + r % g``; (ARITH.MOD.3) a remainder fixed by the bounds folds."""
        if c == 0:
            return self._sym_divmod(A, Poly({}, 0), d, "floormod")
        if not A.terms:
            return Poly({}, _sem.floormod(_sem.wrap(A.const, d), c, d))
        if c in (1, -1):
            return Poly({}, 0)
        if c < 0:
            return self._floormod_const(A.scale(-1), -c, d).scale(-1)
        EA = self.expand(A)
        R = {}
        for m, k in EA.terms.items():
            k2 = k - c * tdiv(k, c)
            if k2:
                R[m] = k2
        r0 = EA.const - c * tdiv(EA.const, c)
        if not R:
            return Poly({}, r0 % c)
        changed = r0 != EA.const or len(R) != len(EA.terms) or any(EA.terms[m] != k for m, k in R.items())
        g = c
        for k in R.values():
            g = gcd(g, k)
        s = 0
        c2 = c
        if g > 1:
            R = {m: k // g for m, k in R.items()}
            r0, s = divmod(r0, g)
            c2 = c // g
        X = Poly(R, r0)
        if c2 == 1:
            return Poly({}, s)
        lo, hi = self.bound(X)
        if finite(lo, hi) and lo // c2 == hi // c2:
            inner = X.add_const(-(lo // c2) * c2)
        elif not changed and g == 1:
            inner = self._div_atom("floormod", A, c, d)
        else:
            inner = self._div_atom("floormod", X, c2, d)
        return inner.scale(g).add_const(s)

    def _sym_divmod(self, A: Poly, B: Poly, d: str, kind: str) -> Poly:
        """Division by a non-constant (or zero) divisor. (ARITH.DIV.4) ``(b*q + r) // b == q + r // b``
        and ``(b*q + r) % b == r % b`` for a monomial ``b``; a common integer factor cancels
        (``n*4 // (m*2) -> n*2 // m``); a dividend provably in ``[0, b)`` gives ``0`` / itself. The divisor
        is assumed non-zero (ARITH.ASSUME.2); a literal zero divisor is left for evaluation to report."""
        is_div = kind == "floordiv"
        cls = P.FloorDiv if is_div else P.FloorMod
        EA, EB = self.expand(A), self.expand(B)
        if EB.is_zero():
            key = (kind, EA.key(), "zero")
            idx = self.index.get(key)
            if idx is None:
                idx = self._register(key, "opaque", cls(self.best(A, d), P.IntImm(0, d), d), d)
            return Poly.of_atom(idx)
        if not EB.terms:
            return self._floor_divmod(A, EB, d, is_div)
        if EA.key() == EB.key():
            return Poly({}, 1 if is_div else 0)
        scale = 1
        g = gcd(EA.content(), EB.content())
        if g > 1:
            EA, EB = EA.exact_div(g), EB.exact_div(g)
            A, B = EA, EB
            scale = 1 if is_div else g
        sb = EB.single()
        if sb is not None:
            mb, kb = sb
            Q, R = {}, {}
            for m, k in EA.terms.items():
                rest = mono_divides(mb, m) if k % kb == 0 else None
                if rest is not None:
                    Q[rest] = k // kb
                else:
                    R[m] = k
            if Q:
                Rp = Poly(R, EA.const)
                if is_div:
                    qp = Poly({m: k for m, k in Q.items() if m}, Q.get((), 0))
                    return qp if Rp.is_zero() else qp.add(self._sym_divmod(Rp, EB, d, kind))
                return Poly() if Rp.is_zero() else self._sym_divmod(Rp, EB, d, kind).scale(scale)
        # 0 <= A < B (then B > 0 too)
        if self.bound(EA)[0] >= 0 and self.bound(EA.add(EB, -1))[1] < 0:
            return Poly() if is_div else EA.scale(scale)
        key = (kind, EA.key(), EB.key())
        idx = self.index.get(key)
        if idx is None:
            node = cls(self.best(A, d), self.best(B, d), d)
            idx = self._register(key, kind, node, d, a=EA, b=EB)
        return Poly.of_atom(idx, scale)

    def _trunc_divmod(self, A: Poly, B: Poly, d: str, is_div: bool) -> Poly:
        """(ARITH.DIV.5) truncating division equals floor division when the dividend is non-negative
        and the divisor positive; constants fold."""
        if not A.terms and not B.terms and B.const != 0:
            a = _sem.wrap(A.const, d)
            fn = _sem.truncdiv if is_div else _sem.truncmod
            return Poly({}, fn(a, _sem.wrap(B.const, d), d))
        EA, EB = self.expand(A), self.expand(B)
        if (not EB.terms and EB.const > 0) or (EB.terms and self.bound(EB)[0] > 0):
            if self.bound(EA)[0] >= 0:
                return self._floor_divmod(A, B, d, is_div)
        kind = "truncdiv" if is_div else "truncmod"
        key = (kind, EA.key(), EB.key())
        idx = self.index.get(key)
        if idx is None:
            cls = P.Div if is_div else P.Mod
            idx = self._register(key, kind, cls(self.best(A, d), self.best(B, d), d), d, a=EA, b=EB)
        return Poly.of_atom(idx)


__all__ = ["DivisionMixin", "mod_key"]

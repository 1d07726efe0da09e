"""Integer polynomials over atoms: the canonical form of the simplifier (ARITH.CANON.1).

A :class:`Poly` is ``sum(coef * product(atoms)) + const`` with exact (unbounded) integer coefficients.
A monomial is a sorted tuple of atom indices (repetition = power); atoms are numbered by the
simplification context in order of first appearance, which is also the order in which they print.
``terms`` keeps insertion order, so terms print in order of first appearance too.

Addition, subtraction and multiplication of polynomials are exact in the ring of integers and therefore
also in the ring of integers modulo ``2**bits``: normalizing ``+ - *`` is valid under two's-complement
wrap-around (ARITH.CANON.2).
"""

from __future__ import annotations

from math import gcd
from typing import Dict, Tuple

Monomial = Tuple[int, ...]


class Poly:
    """An immutable integer polynomial (by convention: never mutate ``terms`` after construction)."""

    __slots__ = ("terms", "const", "_key")

    def __init__(self, terms: Dict[Monomial, int] | None = None, const: int = 0):
        self.terms = terms if terms is not None else {}
        self.const = const
        self._key = None

    @staticmethod
    def of_atom(idx: int, coef: int = 1) -> "Poly":
        return Poly({(idx,): coef}, 0)

    def is_const(self) -> bool:
        return not self.terms

    def is_zero(self) -> bool:
        return not self.terms and self.const == 0

    def key(self) -> tuple:
        """A hashable canonical key (independent of term order)."""
        k = self._key
        if k is None:
            k = self._key = (tuple(sorted(self.terms.items())), self.const)
        return k

    def add(self, other: "Poly", sign: int = 1) -> "Poly":
        if not other.terms:
            if not other.const:
                return self
            return Poly(self.terms, self.const + sign * other.const)
        t = dict(self.terms)
        for m, k in other.terms.items():
            v = t.get(m, 0) + sign * k
            if v:
                t[m] = v
            else:
                del t[m]
        return Poly(t, self.const + sign * other.const)

    def add_const(self, c: int) -> "Poly":
        return self if not c else Poly(self.terms, self.const + c)

    def scale(self, k: int) -> "Poly":
        if k == 1:
            return self
        if k == 0:
            return Poly({}, 0)
        return Poly({m: c * k for m, c in self.terms.items()}, self.const * k)

    def mul(self, other: "Poly") -> "Poly":
        """Full expansion of the product."""
        if not other.terms:
            return self.scale(other.const)
        if not self.terms:
            return other.scale(self.const)
        t: Dict[Monomial, int] = {}

        def put(m, k):
            v = t.get(m, 0) + k
            if v:
                t[m] = v
            else:
                t.pop(m, None)

        for m1, k1 in self.terms.items():
            for m2, k2 in other.terms.items():
                put(tuple(sorted(m1 + m2)), k1 * k2)
            if other.const:
                put(m1, k1 * other.const)
        if self.const:
            for m2, k2 in other.terms.items():
                put(m2, self.const * k2)
        return Poly(t, self.const * other.const)

    def exact_div(self, g: int) -> "Poly":
        """Divide every coefficient and the constant by ``g`` (which must divide them)."""
        if g == 1:
            return self
        return Poly({m: c // g for m, c in self.terms.items()}, self.const // g)

    def content(self) -> int:
        """gcd of all coefficients and the constant (0 for the zero polynomial)."""
        g = abs(self.const)
        for c in self.terms.values():
            g = gcd(g, c)
            if g == 1:
                break
        return g

    def single(self):
        """``(monomial, coef)`` when the polynomial is one term without constant, else None."""
        if len(self.terms) == 1 and not self.const:
            return next(iter(self.terms.items()))
        return None

    def atoms(self) -> set:
        out = set()
        for m in self.terms:
            out.update(m)
        return out

    def __repr__(self) -> str:  # debugging aid
        parts = [f"{k}*{'*'.join(f'a{i}' for i in m)}" for m, k in self.terms.items()]
        return f"Poly({' + '.join(parts + [str(self.const)])})"


def mono_divides(d: Monomial, m: Monomial):
    """``m / d`` as a monomial when ``d`` divides ``m`` (multiset inclusion), else None."""
    rest = list(m)
    for i in d:
        try:
            rest.remove(i)
        except ValueError:
            return None
    return tuple(rest)


__all__ = ["Poly", "Monomial", "mono_divides"]

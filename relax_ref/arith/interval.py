"""Interval arithmetic on integer bounds for the simplifier (spec chapter ARITH, ARITH.BOUND.*): a bound
is an int or +-``INF``; 64-bit dtype limits count as infinite (:func:`dtype_bound`)."""

from __future__ import annotations

from math import gcd

from . import semantics as _sem

INF = float("inf")


def fdiv(a, b: int):
    """Floor division of a bound (an int or +-INF) by a non-zero int."""
    if a == INF or a == -INF:
        return a if b > 0 else -a
    return a // b


def cdiv(a, b: int):
    """Ceiling division of a bound by a positive int."""
    if a == INF or a == -INF:
        return a
    return -((-a) // b)


def finite(*xs) -> bool:
    return all(x != INF and x != -INF for x in xs)


def dtype_bound(dtype: str) -> tuple:
    """The value range of an integer dtype as used by bounds: 64-bit limits count as infinite
    (ARITH.BOUND.1), so that ``n - 1`` has no upper bound rather than ``2**63 - 2``."""
    bits, signed, lo, hi = _sem.int_info(dtype)
    if bits >= 64:
        return (-INF if signed else 0), INF
    return lo, hi


def tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def ipow(lo, hi, n: int) -> tuple:
    if n == 1:
        return lo, hi
    a, b = lo ** n, hi ** n  # (+-INF) ** n is +-INF
    if n % 2 == 0:
        if lo <= 0 <= hi:
            return 0, max(a, b)
        return min(a, b), max(a, b)
    return a, b


def smul(a, b):
    return 0 if a == 0 or b == 0 else a * b  # 0 * INF is 0 for bounds


def imul(x: tuple, y: tuple) -> tuple:
    c = (smul(x[0], y[0]), smul(x[0], y[1]), smul(x[1], y[0]), smul(x[1], y[1]))
    return min(c), max(c)


__all__ = ["INF", "fdiv", "cdiv", "finite", "dtype_bound", "tdiv", "lcm", "ipow", "smul", "imul"]

"""Buffer regions for ``T.reads`` / ``T.writes`` / block ``T.match_buffer`` sources (TEXT.TIR.4).

``A[i, 0:4]`` is the region ``[(i, 1), (0, 4)]``: an index ``e`` is the one-element range
``[e, e + 1)``, a slice ``lo:hi`` is ``[lo, hi)`` (``lo`` defaults to 0, ``hi`` to the dimension).
The extent ``hi - lo`` is simplified as TVM's parser does (``vi - 2:vi + 2`` has extent 4).
"""

from __future__ import annotations

from typing import Any, List

from ...ir import prim_expr as P
from ...ir import tir
from . import prim


def offset(e: P.PrimExpr):
    """``base + c`` / ``base - c`` / ``c`` -> (base, c)."""
    if isinstance(e, P.IntImm) and e.dtype != "bool":
        return P.IntImm(0, e.dtype), e.value
    if isinstance(e, P.Add) and isinstance(e.b, P.IntImm):
        return e.a, e.b.value
    if isinstance(e, P.Sub) and isinstance(e.b, P.IntImm):
        return e.a, -e.b.value
    return e, 0


def _extent(lo: P.PrimExpr, hi: P.PrimExpr, span) -> P.PrimExpr:
    """``hi - lo`` simplified, as TVM's parser does with a fact-free analyzer: ``2 * vi:vi * 2 + 4``
    has extent 4 and ``vi + 1:vi + j`` extent ``j - 1`` (TEXT.TIR.4)."""
    if isinstance(hi, P.Add) and hi.a == lo:
        return hi.b
    (bl, cl), (bh, ch) = offset(lo), offset(hi)
    if bl == bh:
        return P.IntImm(ch - cl, hi.dtype)
    from ...arith.analyzer import Analyzer

    return Analyzer(symbolic_nonneg=False).simplify(prim.binary("sub", hi, lo, span))


def make_region(ev, buf: tir.Buffer, indices: List[tuple], node) -> tir.BufferRegion:
    ranges = []
    for dim, (kind, a, b, n) in enumerate(indices):
        span = ev.span(n)
        if kind == "index":
            v = ev.index_value(a, n)
            ranges.append(tir.Range(v, P.IntImm(1, v.dtype)))
            continue
        hi = b if b is not None else buf.shape[dim]
        lo = a
        if not isinstance(lo, P.PrimExpr) and not isinstance(hi, P.PrimExpr):
            lo, hi = prim.lit(lo, span=span), prim.lit(hi, span=span)
        elif not isinstance(lo, P.PrimExpr):
            lo = prim.lit(lo, hi.dtype, span)
        elif not isinstance(hi, P.PrimExpr):
            hi = prim.lit(hi, lo.dtype, span)
        lo = ev.index_value(lo, n)
        hi = ev.index_value(hi, n)
        if lo.dtype != hi.dtype:
            lo, hi = P._promote(lo, hi)  # noqa: SLF001
        ranges.append(tir.Range(lo, _extent(lo, hi, span)))
    return tir.BufferRegion(buf, tuple(ranges))


def as_region(ev, v: Any, node) -> tir.BufferRegion:
    """A region argument: a BufferRegion, a BufferLoad (point region) or a whole Buffer."""
    if isinstance(v, tir.BufferRegion):
        return v
    if isinstance(v, tir.BufferLoad):
        return tir.BufferRegion(v.buffer, tuple(tir.Range(i, P.IntImm(1, i.dtype)) for i in v.indices))
    if isinstance(v, tir.Buffer):
        return tir.BufferRegion(v, tuple(tir.Range(P.IntImm(0, d.dtype), d) for d in v.shape))
    raise ev.error(node, f"expected a buffer region such as A[i, 0:4], got {prim.describe(v)}")


__all__ = ["make_region", "as_region", "offset"]

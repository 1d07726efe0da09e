"""Access-region detection for blocks written without ``T.reads`` / ``T.writes`` (TEXT.TIR.4, TIR.BLOCK.5).

TVM fills in a block's read and write regions when the script omits them; so does the parser:

* every ``BufferLoad`` in the block's body and init is a read, every ``BufferStore`` a write;
  accesses inside nested blocks count with the nested block's axes replaced by their bindings;
* loop variables of loops *inside* the block are relaxed to their ranges; the block's own axes and
  outer variables stay symbolic; an index is bounded by simple interval arithmetic (``+``, ``-``,
  multiplication and floor division/modulo by constants, ``min``/``max``, casts); an index of another
  form that uses a relaxed loop variable covers the whole dimension;
* several accesses of one buffer are merged per dimension into ``[min(lo), max(hi)]`` (folded when the
  bounds differ by constants, ``T.min``/``T.max`` otherwise);
* buffers allocated by the block (or blocks inside it) are not listed, and a block with ``T.init``
  does not list the buffers it writes among its reads (as TVM does for reductions).

Only an explicitly absent ``T.reads`` / ``T.writes`` is detected; ``T.reads()`` means "no reads".
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...ir import prim_expr as P
from ...ir import tir
from ...ir.functor import substitute_prim
from . import prim
from .tir_regions import offset

Interval = Tuple[P.PrimExpr, P.PrimExpr]  # inclusive [lo, hi]


def _uses(e: P.PrimExpr, relaxed: Dict[P.PrimVar, Interval]) -> bool:
    if isinstance(e, P.PrimVar):
        return e in relaxed
    return any(_uses(c, relaxed) for c in P.children(e))


def _const(e) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) and e.dtype != "bool" else None


def interval(e: P.PrimExpr, relaxed: Dict[P.PrimVar, Interval]) -> Optional[Interval]:
    """Bounds of ``e`` when relaxed variables range over their intervals; None if unknown."""
    if not _uses(e, relaxed):
        return e, e
    if isinstance(e, P.PrimVar):
        return relaxed[e]
    if isinstance(e, P.Cast):
        r = interval(e.value, relaxed)
        return None if r is None else (prim.cast(e.dtype, r[0]), prim.cast(e.dtype, r[1]))
    if isinstance(e, (P.Add, P.Sub, P.Min, P.Max)):
        a, b = interval(e.a, relaxed), interval(e.b, relaxed)
        if a is None or b is None:
            return None
        if isinstance(e, P.Add):
            return prim.binary("add", a[0], b[0], None), prim.binary("add", a[1], b[1], None)
        if isinstance(e, P.Sub):
            return prim.binary("sub", a[0], b[1], None), prim.binary("sub", a[1], b[0], None)
        op = "min" if isinstance(e, P.Min) else "max"
        return prim.binary(op, a[0], b[0], None), prim.binary(op, a[1], b[1], None)
    if isinstance(e, P.Mul):
        for x, y in ((e.a, e.b), (e.b, e.a)):
            c = _const(y)
            if c is not None:
                r = interval(x, relaxed)
                if r is None:
                    return None
                lo, hi = prim.binary("mul", r[0], c, None), prim.binary("mul", r[1], c, None)
                return (lo, hi) if c >= 0 else (hi, lo)
        return None
    if isinstance(e, P.FloorDiv):
        c = _const(e.b)
        r = interval(e.a, relaxed)
        if c is None or c <= 0 or r is None:
            return None
        return prim.binary("floordiv", r[0], c, None), prim.binary("floordiv", r[1], c, None)
    if isinstance(e, P.FloorMod):
        c = _const(e.b)
        if c is None or c <= 0:
            return None
        return P.IntImm(0, e.dtype), P.IntImm(c - 1, e.dtype)
    return None


def _merge(xs: List[P.PrimExpr], op: str) -> P.PrimExpr:
    out: List[P.PrimExpr] = []
    for x in xs:
        bx, cx = offset(x)
        for i, y in enumerate(out):
            by, cy = offset(y)
            if bx == by:
                if (op == "min" and cx < cy) or (op == "max" and cx > cy):
                    out[i] = x
                break
        else:
            out.append(x)
    acc = out[0]
    for x in out[1:]:
        acc = prim.binary(op, acc, x, None)
    return acc


def _extent(lo: P.PrimExpr, hi: P.PrimExpr) -> P.PrimExpr:
    bl, cl = offset(lo)
    bh, ch = offset(hi)
    if bl == bh:
        return P.IntImm(ch - cl + 1, lo.dtype)
    return prim.binary("sub", prim.binary("add", hi, 1, None), lo, None)


class _Collector:
    def __init__(self) -> None:
        self.reads: Dict[int, Tuple[tir.Buffer, List[List[Optional[Interval]]]]] = {}
        self.writes: Dict[int, Tuple[tir.Buffer, List[List[Optional[Interval]]]]] = {}
        self.order: List[Tuple[str, int]] = []
        self.allocated: set = set()

    def access(self, kind: str, buf: tir.Buffer, indices, relaxed, subst) -> None:
        table = self.reads if kind == "r" else self.writes
        ivs = []
        for i in indices:
            if subst:
                i = substitute_prim(i, subst)
            ivs.append(interval(i, relaxed))
        if id(buf) not in table:
            table[id(buf)] = (buf, [])
            self.order.append((kind, id(buf)))
        table[id(buf)][1].append(ivs)

    def expr(self, e: P.PrimExpr, relaxed, subst) -> None:
        if isinstance(e, tir.BufferLoad):
            self.access("r", e.buffer, e.indices, relaxed, subst)
        for c in P.children(e):
            self.expr(c, relaxed, subst)

    def stmt(self, s: Optional[tir.Stmt], relaxed, subst) -> None:
        if s is None:
            return
        if isinstance(s, tir.BufferStore):
            self.access("w", s.buffer, s.indices, relaxed, subst)
            for i in s.indices:
                self.expr(i, relaxed, subst)
            self.expr(s.value, relaxed, subst)
        elif isinstance(s, tir.For):
            self.expr(s.min, relaxed, subst)
            self.expr(s.extent, relaxed, subst)
            lo = substitute_prim(s.min, subst) if subst else s.min
            ext = substitute_prim(s.extent, subst) if subst else s.extent
            hi = prim.binary("sub", prim.binary("add", lo, ext, None), 1, None)
            inner = dict(relaxed)
            inner[s.loop_var] = (lo, hi)
            self.stmt(s.body, inner, subst)
        elif isinstance(s, tir.BlockRealize):
            inner_subst = dict(subst)
            for iv, val in zip(s.block.iter_vars, s.iter_values):
                inner_subst[iv.var] = substitute_prim(val, subst) if subst else val
            for b in s.block.alloc_buffers:
                self.allocated.add(id(b))
            self.expr(s.predicate, relaxed, subst)
            self.stmt(s.block.init, relaxed, inner_subst)
            self.stmt(s.block.body, relaxed, inner_subst)
        else:
            for attr in ("condition", "value", "min", "extent"):
                v = getattr(s, attr, None)
                if isinstance(v, P.PrimExpr):
                    self.expr(v, relaxed, subst)
            for attr in ("body", "then_case", "else_case", "seq"):
                v = getattr(s, attr, None)
                if isinstance(v, tuple):
                    for x in v:
                        self.stmt(x, relaxed, subst)
                elif isinstance(v, tir.Stmt):
                    self.stmt(v, relaxed, subst)
            if isinstance(s, (tir.AllocBuffer, tir.DeclBuffer)):
                self.allocated.add(id(s.buffer))


def _region(buf: tir.Buffer, accesses: List[List[Optional[Interval]]]) -> tir.BufferRegion:
    ranges = []
    for d, dim in enumerate(buf.shape):
        ivs = [a[d] for a in accesses if d < len(a)]
        if any(iv is None for iv in ivs) or not ivs:
            ranges.append(tir.Range(P.IntImm(0, dim.dtype), dim))
            continue
        lo = _merge([iv[0] for iv in ivs], "min")
        hi = _merge([iv[1] for iv in ivs], "max")
        ranges.append(tir.Range(lo, _extent(lo, hi)))
    return tir.BufferRegion(buf, tuple(ranges))


def detect_access(body: tir.Stmt, init: Optional[tir.Stmt], alloc_buffers, want_reads: bool,
                  want_writes: bool) -> Tuple[Optional[tuple], Optional[tuple]]:
    """Detected (reads, writes) of a block; an entry is None when it was not requested."""
    c = _Collector()
    for b in alloc_buffers:
        c.allocated.add(id(b))
    c.stmt(init, {}, {})
    c.stmt(body, {}, {})
    writes = tuple(_region(buf, acc) for k, i in c.order if k == "w"
                   for buf, acc in [c.writes[i]] if i not in c.allocated)
    written = {id(r.buffer) for r in writes}
    reads = tuple(_region(buf, acc) for k, i in c.order if k == "r"
                  for buf, acc in [c.reads[i]]
                  if i not in c.allocated and not (init is not None and i in written))
    return (reads if want_reads else None), (writes if want_writes else None)


__all__ = ["detect_access", "interval"]

"""Float products of a PrimFunc that need no rounding barrier (PRIM.FLOAT.1 on XLA).

A float32 product is lowered through :func:`relax_jax.float_rules.rounded_multiply`'s barrier because
XLA's CPU backend contracts a multiply with an add or subtract that consumes it. The barrier costs a
round trip through float64, and it keeps XLA from fusing the product into its consumer, so that a
product read by a reduction is written to memory. It is not needed where no consumer can contract:

* inside an expression, a ``Mul`` whose value is an operand of a float ``Mul`` or ``Div``
  (:meth:`relax_jax.prim_jax.PrimLowering.lower_factor`);
* a store ``B[J] = a * b`` into a buffer that the PrimFunc allocates and whose every load is either an
  operand of a float ``Mul`` or ``Div``, or the term of a zero-initialized sum reduction
  ``X[I] = X[I] + B[J]`` (``with T.init(): X[I] = 0``) -- RMSNorm's ``x * x`` before its sum, a
  variance's square. XLA reduces a product without contracting it with the accumulator (measured on
  jaxlib 0.10 for its own reduction emitter and for the YNN reduce fusion, row and column reductions;
  ``tests/jax/test_float_rules.py`` keeps the measurement as a test), and a sum reduction that runs as
  a loop reads the product as a loop operand, computed before the loop.

A buffer whose data variable appears anywhere else (a packed call's argument, a match_buffer source,
a load under a cast or an add) keeps the barrier on every store.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Dict, FrozenSet, Iterable, List, Optional

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import stmt_children, stmt_prim_exprs

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def plain_stores(func: tir.PrimFunc) -> FrozenSet[int]:
    """``id``s of the stores of ``func`` whose value, a float ``Mul``, needs no barrier (cached per
    function)."""
    hit = _CACHE.get(func)
    if hit is None:
        hit = _analyze(func)
        _CACHE[func] = hit
    return hit


def _is_float_mul(e: P.PrimExpr) -> bool:
    return type(e) is P.Mul and _dt.is_float(e.dtype)


def _children(e: P.PrimExpr) -> Iterable[P.PrimExpr]:
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, P.PrimExpr):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, P.PrimExpr))


class _Uses:
    """Every occurrence of a buffer's data variable, classified as allowed or not."""

    def __init__(self) -> None:
        self.bad: set = set()               # data vars used in a way that may contract
        self.stores: Dict[P.PrimVar, List[tir.BufferStore]] = {}

    def expr(self, e: P.PrimExpr, allowed: bool = False) -> None:
        """Walk ``e``; ``allowed``: ``e`` itself is a position where a load needs no barrier."""
        if isinstance(e, tir.BufferLoad):
            if not allowed:
                self.bad.add(e.buffer.data)
            for i in e.indices:
                self.expr(i)
            return
        if isinstance(e, P.PrimVar):
            self.bad.add(e)                 # a data variable as a value: a pointer that escapes
            return
        factor = type(e) in (P.Mul, P.Div) and _dt.is_float(e.dtype)
        for c in _children(e):
            self.expr(c, factor)

    def stmt(self, s: tir.Stmt, block: Optional[tir.Block]) -> None:
        if isinstance(s, tir.BufferStore):
            self.stores.setdefault(s.buffer.data, []).append(s)
            term = _sum_term(s, block)
            if term is not None:
                for i in term.indices:
                    self.expr(i)
                for i in s.indices:
                    self.expr(i)
                return
        if isinstance(s, tir.Block):
            for m in s.match_buffers:
                self.bad.add(m.source.buffer.data)
        for e in stmt_prim_exprs(s):
            self.expr(e)


def _sum_term(s: tir.BufferStore, block: Optional[tir.Block]) -> Optional[tir.BufferLoad]:
    """The load ``B[J]`` of a store ``X[I] = X[I] + B[J]`` in a reduction block whose init stores a
    zero to ``X[I]`` (float, one dtype), else None."""
    v = s.value
    if type(v) is not P.Add or not _dt.is_float(v.dtype) or block is None or block.init is None:
        return None
    if not any(iv.iter_type == "reduce" for iv in block.iter_vars):
        return None
    init = block.init
    if not (isinstance(init, tir.BufferStore) and init.buffer.data is s.buffer.data and init.indices == s.indices
            and isinstance(init.value, P.FloatImm) and init.value.value == 0):
        return None
    for acc, term in ((v.a, v.b), (v.b, v.a)):
        if isinstance(acc, tir.BufferLoad) and acc.buffer.data is s.buffer.data and acc.indices == s.indices and \
                isinstance(term, tir.BufferLoad) and term.dtype == v.dtype and term.buffer.data is not s.buffer.data:
            return term
    return None


def _analyze(func: tir.PrimFunc) -> FrozenSet[int]:
    allocated: set = set()
    uses = _Uses()

    def visit(s: tir.Stmt, block: Optional[tir.Block] = None) -> None:
        if isinstance(s, tir.Block):
            allocated.update(b.data for b in s.alloc_buffers)
            block = s
        elif isinstance(s, tir.AllocBuffer):
            allocated.add(s.buffer.data)
        uses.stmt(s, block)
        for c in stmt_children(s):
            visit(c, block)

    visit(func.body)
    out = set()
    for dv in allocated - uses.bad:
        out.update(id(st) for st in uses.stores.get(dv, ())
                   if _is_float_mul(st.value) and st.value.dtype == st.buffer.dtype)
    return frozenset(out)


__all__ = ["plain_stores"]

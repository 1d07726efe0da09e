"""Loads of a masked copy read from its source where only the kept points are observed (a speed rule).

TVM legalizes a causal attention (and a ``trilu`` before a softmax) into nests over the scores::

    trilu[I]   = T.Select(c(I), scores[I], 0)     # the mask
    red[..]    = max over trilu[I]                 # (reads the masked zeros)
    sub[I]     = trilu[I] - red[..]
    e[I]       = T.exp(sub[I])
    trilu_1[I] = T.Select(c(I), e[I], 0)           # the same mask

``e`` is read only by the second mask, which keeps it where ``c`` holds; so only those points of
``sub`` are ever observed, and there ``trilu[I]`` is ``scores[I]``. :func:`forward_masked_loads` lets
``sub`` read ``scores``: the values at the points the mask keeps are the same, the others are never
read. It is worth a rewrite because XLA's CPU backend otherwise fuses the mask's ``iota`` comparison
into the exponential's loop, which it then vectorizes poorly (on jaxlib 0.10, ``exp(where(j <= i, s,
0) - m)`` over ``(8, 512, 512)`` float32 took 1.6-1.9 ms, ``exp(s - m)`` 0.75-0.95 ms); the maximum
keeps reading the masked copy, whose comparison XLA fuses into the reduction at no measurable cost.
The graph path's ``nn.attention`` applies its mask after the exponential for the same reason
(:mod:`relax_jax.ops.nn_attention`).

The rewrite is limited to what can be proven from the PrimFunc alone:

* a *mask* is the one store into an allocated buffer ``M``, ``M[I] = T.Select(c, A[I], k)``, in a
  block run once at every point of ``M`` (spatial iteration variables ``I`` bound to the loops
  around it, from zero to ``M``'s shape; no init, no predicate, no branch or ``while`` around it),
  ``A`` of ``M``'s shape and dtype, ``c`` reading no buffer, ``k`` a constant; ``A`` is a
  parameter the PrimFunc never stores into, or an allocated buffer stored once, in an earlier block;
* a buffer ``X`` is *observed only where* ``c`` holds when it is allocated, stored once in such a
  block, and every load of it is ``X[I]`` at its reader's iteration variables, either as the kept arm
  of a mask with the same condition (up to the names of the variables) or in the value of another
  such block whose buffer is observed only where ``c`` holds, a value of float arithmetic, casts,
  math intrinsics and index-only ``Select`` conditions (no integer operation a value outside the
  mask could make fail);
* then a load ``M[I]`` in the value of a later block storing such an ``X`` reads ``A[I]``.
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from relax_ref.analysis.loop_nest import loads_in
from relax_ref.arith.intrinsics import canonical_name
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import PrimExprMutator, StmtMutator, stmt_children, stmt_prim_exprs, substitute_prim


_CACHE: "weakref.WeakKeyDictionary[tir.PrimFunc, tir.PrimFunc]" = weakref.WeakKeyDictionary()

#: the math intrinsics a forwarded value may apply (total on floats: NaN or inf, never an error)
_MATH = frozenset({"tir.exp", "tir.exp2", "tir.exp10", "tir.log", "tir.log2", "tir.log10", "tir.log1p", "tir.sqrt",
                   "tir.rsqrt", "tir.tanh", "tir.sigmoid", "tir.erf", "tir.fabs", "tir.sin", "tir.cos"})
_DEPTH = 6

#: position variables: a mask's condition with its iteration variables renamed by position
_POS: Dict[Tuple[int, str], P.PrimVar] = {}


def _pos(k: int, dtype: str) -> P.PrimVar:
    return _POS.setdefault((k, dtype), P.PrimVar(f"pos{k}", dtype))


def forward_masked_loads(func: tir.PrimFunc) -> tir.PrimFunc:
    """``func`` with the loads of a mask read from its source where only the kept points are
    observed (module docstring); ``func`` itself when there are none. Cached per function object."""
    got = _CACHE.get(func)
    if got is None:
        got = _rewrite(func)
        _CACHE[func] = got
    return got


class _Facts:
    """The stores and loads of one PrimFunc, by buffer data variable."""

    def __init__(self, func: tir.PrimFunc) -> None:
        self.params = {b.data for _, b in func.buffer_map}
        self.allocated: set = set()
        self.stores: Dict[P.PrimVar, List[tir.BufferStore]] = {}
        self.simple: Dict[int, Tuple[tir.Block, int]] = {}       # id(store) -> (block, program order)
        self.loads: Dict[P.PrimVar, List[Tuple[tir.BufferLoad, Optional[tir.BufferStore]]]] = {}
        self.shapes: Dict[P.PrimVar, set] = {}
        self.bad: set = set()
        self._order = 0
        self._walk(func.body, ())

    def _walk(self, s: tir.Stmt, loops: Optional[Tuple[tir.For, ...]]) -> None:
        """``loops``: the loops around ``s``; None under a branch or a ``while`` (what runs there may
        not run, or run any number of times)."""
        if isinstance(s, (tir.IfThenElse, tir.While)):
            inner = None
        else:
            inner = loops + (s,) if isinstance(s, tir.For) and loops is not None else loops
        for c in stmt_children(s):
            self._walk(c, inner)
        self._stmt(s, loops)

    def _stmt(self, s: tir.Stmt, loops: Optional[Tuple[tir.For, ...]]) -> None:
        if isinstance(s, tir.BufferStore):
            self.stores.setdefault(s.buffer.data, []).append(s)
            self._shape(s.buffer)
            for i in s.indices:
                self._expr(i, None)
            self._expr(s.value, s)
            return
        if isinstance(s, tir.BlockRealize):
            self._order += 1
            st = None if loops is None else _simple_store(s, loops)
            if st is not None:
                self.simple[id(st)] = (s.block, self._order)
        if isinstance(s, tir.AllocBuffer):
            self.allocated.add(s.buffer.data)
        if isinstance(s, tir.Block):
            self.allocated.update(b.data for b in s.alloc_buffers)
            for m in s.match_buffers:
                self.bad.add(m.source.buffer.data)
                self.bad.add(m.buffer.data)
        for e in stmt_prim_exprs(s):
            if e is not None:
                self._expr(e, None)

    def _shape(self, b: tir.Buffer) -> None:
        self.shapes.setdefault(b.data, set()).add((b.shape, b.dtype))

    def _expr(self, e: P.PrimExpr, store: Optional[tir.BufferStore]) -> None:
        if isinstance(e, tir.BufferLoad):
            self.loads.setdefault(e.buffer.data, []).append((e, store))
            self._shape(e.buffer)
            for i in e.indices:
                self._expr(i, None)     # a load inside an index is no load of the stored value
            return
        if isinstance(e, P.PrimVar):
            self.bad.add(e)             # a data variable used as a value: a pointer that escapes
            return
        for k in P.children(e):
            self._expr(k, store)

    def sole_store(self, dv: P.PrimVar) -> Optional[tir.BufferStore]:
        st = self.stores.get(dv, [])
        return st[0] if len(st) == 1 and id(st[0]) in self.simple else None

    def plain(self, dv: P.PrimVar) -> bool:
        """One buffer object's shape and dtype for ``dv``, no escape."""
        return dv not in self.bad and len(self.shapes.get(dv, ())) == 1


def _simple_store(realize: tir.BlockRealize, loops: Tuple[tir.For, ...]) -> Optional[tir.BufferStore]:
    """The store of a block run once at every point of the stored buffer: spatial iteration variables
    indexing it in order, each bound to one of the loops around the block (all of them, from zero to
    the buffer's extent, in order), no init, no predicate; else None."""
    b = realize.block
    pred = realize.predicate
    if b.init is not None or not isinstance(b.body, tir.BufferStore) or not b.iter_vars or \
            not (pred is None or (isinstance(pred, P.IntImm) and pred.value == 1)):
        return None
    st = b.body
    ivs = b.iter_vars
    if any(iv.iter_type != "spatial" for iv in ivs) or not (len(st.indices) == len(ivs) == len(loops) ==
                                                            len(st.buffer.shape) == len(realize.iter_values)):
        return None
    for iv, i, ext, lp, val in zip(ivs, st.indices, st.buffer.shape, loops, realize.iter_values):
        if i is not iv.var or val is not lp.loop_var or not _zero(iv.dom.min) or not _zero(lp.min) or \
                iv.dom.extent != ext or lp.extent != ext:
            return None
    return st


def _zero(e: P.PrimExpr) -> bool:
    return isinstance(e, P.IntImm) and e.value == 0


def _identity(load: tir.BufferLoad, store: tir.BufferStore) -> bool:
    """``load`` reads its buffer at the store's own indices (its block's iteration variables), with
    the stored buffer's shape."""
    return len(load.indices) == len(store.indices) and \
        all(a is b for a, b in zip(load.indices, store.indices)) and load.buffer.shape == store.buffer.shape


def _mask(facts: _Facts, dv: P.PrimVar):
    """``(condition by position, source buffer, order)`` when ``dv``'s one store is a mask (module
    docstring), else None."""
    st = facts.sole_store(dv)
    if st is None or dv not in facts.allocated or not facts.plain(dv):
        return None
    v = st.value
    if not isinstance(v, P.Select) or not isinstance(v.true_value, tir.BufferLoad) or \
            not isinstance(v.false_value, (P.IntImm, P.FloatImm)) or loads_in(v.condition):
        return None
    src = v.true_value
    a = src.buffer.data
    if not _identity(src, st) or src.buffer.dtype != st.buffer.dtype or not facts.plain(a):
        return None
    block, order = facts.simple[id(st)]
    a_stores = facts.stores.get(a, [])
    if a in facts.params:
        if a_stores:
            return None
    elif a not in facts.allocated or len(a_stores) != 1 or id(a_stores[0]) not in facts.simple or \
            facts.simple[id(a_stores[0])][1] >= order:
        return None
    cond = substitute_prim(v.condition, {iv.var: _pos(k, iv.var.dtype) for k, iv in enumerate(block.iter_vars)})
    return cond, src.buffer, order


def _float_value(e: P.PrimExpr) -> bool:
    """Float arithmetic, casts between floats, math intrinsics and ``Select`` on index-only
    conditions: nothing a value outside the mask can make fail."""
    if isinstance(e, (tir.BufferLoad, P.FloatImm)):
        return _dt.is_float(e.dtype)
    if not _dt.is_float(e.dtype):
        return False
    if isinstance(e, P.Select):
        return not loads_in(e.condition) and _float_value(e.true_value) and _float_value(e.false_value)
    if isinstance(e, P.Cast):
        return _float_value(e.value)
    if isinstance(e, (P.Add, P.Sub, P.Mul, P.Div, P.Min, P.Max)):
        return _float_value(e.a) and _float_value(e.b)
    if isinstance(e, P.PrimCall):
        return canonical_name(e.op) in _MATH and all(_float_value(a) for a in e.args)
    return False


def _observed_under(facts: _Facts, dv: P.PrimVar, cond: P.PrimExpr, depth: int = 0) -> bool:
    """Whether only the points of ``dv`` where ``cond`` (by position) holds are ever observed."""
    st = facts.sole_store(dv)
    readers = facts.loads.get(dv, [])
    if depth > _DEPTH or st is None or dv not in facts.allocated or not facts.plain(dv) or not readers:
        return False
    for load, reader in readers:
        if reader is None or id(reader) not in facts.simple or not _identity(load, reader):
            return False
        m = _mask(facts, reader.buffer.data)
        if m is not None and reader.value.true_value is load:
            if m[0] != cond:
                return False
            continue
        if not _float_value(reader.value) or not _observed_under(facts, reader.buffer.data, cond, depth + 1):
            return False
    return True


class _Forward(PrimExprMutator):
    def __init__(self, store: tir.BufferStore, sources: Dict[P.PrimVar, tir.Buffer]) -> None:
        self.store, self.sources = store, sources

    def visit_BufferLoad(self, e: tir.BufferLoad) -> P.PrimExpr:
        src = self.sources.get(e.buffer.data)
        if src is not None and _identity(e, self.store):
            return tir.BufferLoad(src, e.indices, e.dtype)
        return e                        # index loads and other loads are left alone


def _rewrite(func: tir.PrimFunc) -> tir.PrimFunc:
    facts = _Facts(func)
    masks = {dv: m for dv in facts.stores if (m := _mask(facts, dv)) is not None}
    if not masks:
        return func
    new: Dict[int, P.PrimExpr] = {}
    for dv, stores in facts.stores.items():
        st = facts.sole_store(dv)
        if st is None or st.buffer.data in masks or not _float_value(st.value):
            continue
        order = facts.simple[id(st)][1]
        sources = {m: cs[1] for m, cs in masks.items() if cs[2] < order and _observed_under(facts, dv, cs[0])}
        if sources:
            value = _Forward(st, sources).visit(st.value)
            if value is not st.value:
                new[id(st)] = value
    if not new:
        return func

    class _Stores(StmtMutator):
        def visit_BufferStore(self, s: tir.BufferStore) -> tir.Stmt:
            return replace(s, value=new[id(s)]) if id(s) in new else s

    return replace(func, body=_Stores().visit(func.body))


__all__ = ["forward_masked_loads"]

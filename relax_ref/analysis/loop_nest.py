"""The loop-nest analysis of TensorIR shared by the evaluators that vectorize a nest (TIR.VEC.2):
whether a perfect loop nest around one block (or around plain statements) can run as array operations
over its iteration domain, and its parts -- the loops, the block's bindings, predicate and ``T.init``,
the written buffers with their one index tuple each, the *spatial* loops the written indices depend on,
a recognised reduction (TIR.VEC.4), the buffers it reads and the variables it takes from outside.

The reference interpreter compiles the result to numpy (:mod:`relax_ref.interp.tir_vectorize`, which
checks at run time that written elements are distinct); the JAX executor lowers it to array
operations (``relax_jax.tir.nest``, which proves that statically first). A written buffer is known by
its data variable; two buffers over one data variable, or a load of written memory through another
buffer, disqualify the nest.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ..arith.intrinsics import canonical_name
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import prim_vars_in

# ---------------------------------------------------------------------------------------------------
# Expression utilities
# ---------------------------------------------------------------------------------------------------


def loads_in(e: P.PrimExpr, out: Optional[list] = None) -> list:
    out = [] if out is None else out
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tir.BufferLoad):
            out.append(x)
        stack.extend(P.children(x))
    return out


def reads_buffers(e: P.PrimExpr, data_vars: set) -> bool:
    return any(ld.buffer.data in data_vars for ld in loads_in(e))


def let_vars(e: P.PrimExpr, out: set) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, P.Let):
            out.add(x.var)
        stack.extend(P.children(x))


# ---------------------------------------------------------------------------------------------------
# Leaf statements
# ---------------------------------------------------------------------------------------------------


def simple_stmts(s: Optional[tir.Stmt], stores: list, exprs: list, bound: set) -> bool:
    """Collect the stores and expressions of a leaf; False for unsupported statements."""
    if s is None:
        return True
    if isinstance(s, tir.SeqStmt):
        return all(simple_stmts(c, stores, exprs, bound) for c in s.seq)
    if isinstance(s, tir.BufferStore):
        stores.append(s)
        exprs.append(s.value)
        exprs.extend(s.indices)
        return True
    if isinstance(s, tir.Bind):
        bound.add(s.var)
        exprs.append(s.value)
        return True
    if isinstance(s, tir.LetStmt):
        bound.add(s.var)
        exprs.append(s.value)
        return simple_stmts(s.body, stores, exprs, bound)
    if isinstance(s, tir.IfThenElse):
        exprs.append(s.condition)
        return simple_stmts(s.then_case, stores, exprs, bound) and simple_stmts(s.else_case, stores, exprs, bound)
    if isinstance(s, tir.Evaluate):
        v = s.value
        return isinstance(v, (P.IntImm, P.FloatImm, P.PrimStringImm)) or (
            isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.assume")
    return False


def single_store(s: Optional[tir.Stmt]) -> Optional[tir.BufferStore]:
    while isinstance(s, tir.SeqStmt) and len(s.seq) == 1:
        s = s.seq[0]
    return s if isinstance(s, tir.BufferStore) else None


REDUCERS = {P.Add: "add", P.Mul: "mul", P.Min: "min", P.Max: "max"}


@dataclass
class Reduction:
    """``X[I] = X[I] op operand`` (``acc_first``: accumulator on the left) with optional init."""

    buffer: tir.Buffer
    op: str
    operand: P.PrimExpr
    acc_first: bool
    init_value: Optional[P.PrimExpr]


def recognize_reduction(body, init, written: set) -> Optional[Reduction]:
    st = single_store(body)
    if st is None or st.buffer.dtype == "bool" or type(st.value) not in REDUCERS:
        return None
    if st.value.dtype != st.buffer.dtype:
        return None
    a, b = st.value.a, st.value.b

    def is_acc(x):
        return isinstance(x, tir.BufferLoad) and x.buffer.data is st.buffer.data and x.indices == st.indices

    if is_acc(a) and not reads_buffers(b, written):
        operand, acc_first = b, True
    elif is_acc(b) and not reads_buffers(a, written):
        operand, acc_first = a, False
    else:
        return None
    init_value = None
    if init is not None:
        ist = single_store(init)
        if ist is None or ist.buffer.data is not st.buffer.data or ist.indices != st.indices or \
                reads_buffers(ist.value, written):
            return None
        init_value = ist.value
    return Reduction(st.buffer, REDUCERS[type(st.value)], operand, acc_first, init_value)


# ---------------------------------------------------------------------------------------------------
# Nests
# ---------------------------------------------------------------------------------------------------


@dataclass
class LoopNest:
    """A nest that qualifies for vectorization (see :func:`analyze_loop_nest`)."""

    loops: List[tir.For]
    bindings: List[Tuple[P.PrimVar, P.PrimExpr]]
    predicate: Optional[P.PrimExpr]
    init: Optional[tir.Stmt]
    body: tir.Stmt
    reduce_ivs: List[Tuple[P.PrimVar, P.PrimExpr]]
    written: List[tir.Buffer]                       # one Buffer per written data var
    index_of: Dict[Any, Tuple[P.PrimExpr, ...]]     # data var -> index tuple
    spatial: List[int]                              # loop positions the written indices depend on
    reduction: Optional[Reduction]
    leaf_block: Optional[tir.Block]
    outer_vars: List[P.PrimVar]                     # variables the nest takes from outside
    read_bufs: List[tir.Buffer]                     # buffers it reads and does not write


def perfect_nest(s: tir.For) -> Tuple[List[tir.For], Any]:
    """The loops of the perfect nest rooted at ``s`` and the statement inside them."""
    loops: List[tir.For] = []
    cur: Any = s
    while True:
        while isinstance(cur, tir.SeqStmt) and len(cur.seq) == 1:
            cur = cur.seq[0]
        if not isinstance(cur, tir.For):
            break
        loops.append(cur)
        cur = cur.body
    return loops, cur


def analyze_loop_nest(s: tir.For) -> Optional[LoopNest]:
    """The parts of the nest rooted at ``s`` when it qualifies for vectorization (TIR.VEC.2), else
    None (it runs as loops)."""
    loops, leaf = perfect_nest(s)
    blk = None
    if isinstance(leaf, tir.BlockRealize):
        blk = leaf.block
        if blk.alloc_buffers or blk.match_buffers or len(blk.iter_vars) != len(leaf.iter_values):
            return None
        bindings = [(iv.var, v) for iv, v in zip(blk.iter_vars, leaf.iter_values)]
        pred = leaf.predicate
        if isinstance(pred, P.IntImm) and pred.value:
            pred = None
        init, body = blk.init, blk.body
        reduce_ivs = [(iv.var, iv.dom.min) for iv in blk.iter_vars if iv.iter_type == "reduce"]
    else:
        bindings, pred, init, body, reduce_ivs = [], None, None, leaf, []
    stores: list = []
    exprs: list = []
    bound: set = set()
    if not simple_stmts(body, stores, exprs, bound):
        return None
    init_stores: list = []
    if not simple_stmts(init, init_stores, exprs, bound):
        return None
    all_stores = stores + init_stores
    if not all_stores:
        return None
    # one index tuple (and one buffer) per written data var
    index_of: Dict[Any, Tuple] = {}
    buf_of: Dict[Any, tir.Buffer] = {}
    for st in all_stores:
        dv = st.buffer.data
        prev = index_of.get(dv)
        if prev is None:
            index_of[dv] = st.indices
            buf_of[dv] = st.buffer
        elif prev != st.indices or buf_of[dv] is not st.buffer:
            return None
    wdv = set(index_of)
    loop_vars = [lp.loop_var for lp in loops]
    header = [v for _, v in bindings] + ([pred] if pred is not None else []) + [m for _, m in reduce_ivs]
    for lp in loops[1:]:
        header += [lp.min, lp.extent]
    # loads of written buffers: only at their own index, never in headers or indices
    for e in exprs:
        for ld in loads_in(e):
            dv = ld.buffer.data
            if dv in wdv and (ld.indices != index_of[dv] or ld.buffer is not buf_of[dv]):
                return None
    for e in header + [i for st in all_stores for i in st.indices]:
        if reads_buffers(e, wdv):
            return None
    for lp in loops[1:]:
        for e in (lp.min, lp.extent):
            if loads_in(e) or any(v in prim_vars_in(e) for v in loop_vars):
                return None
    for _, m in reduce_ivs:
        if loads_in(m) or any(v in prim_vars_in(m) for v in loop_vars):
            return None
    lets: set = set()
    for e in exprs + header:
        let_vars(e, lets)
    for st in all_stores:
        fv: dict = {}
        for i in st.indices:
            prim_vars_in(i, fv)
        if any(v in bound or v in lets for v in fv):
            return None
    # spatial axes: loops the written indices depend on (through the block bindings)
    binding_of = dict(bindings)
    dep: set = set()
    for st in all_stores:
        todo = list(itertools.chain.from_iterable(prim_vars_in(i) for i in st.indices))
        seen: set = set()
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in binding_of:
                todo.extend(prim_vars_in(binding_of[v]))
            elif v in loop_vars:
                dep.add(loop_vars.index(v))
    # free (outer) variables and the buffers read
    inner = set(loop_vars) | {v for v, _ in bindings} | bound | lets
    free: dict = {}
    for e in exprs + header:
        prim_vars_in(e, free)
    read_bufs: List[tir.Buffer] = []
    for e in exprs + header:
        for ld in loads_in(e):
            if ld.buffer.data not in wdv and all(b is not ld.buffer for b in read_bufs):
                read_bufs.append(ld.buffer)
    return LoopNest(loops, bindings, pred, init, body, reduce_ivs, [buf_of[d] for d in index_of], index_of,
                    sorted(dep), recognize_reduction(body, init, wdv), blk,
                    [v for v in free if v not in inner], read_bufs)


__all__ = ["loads_in", "reads_buffers", "let_vars", "simple_stmts", "single_store", "REDUCERS", "Reduction",
           "recognize_reduction", "LoopNest", "perfect_nest", "analyze_loop_nest"]

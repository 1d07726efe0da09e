"""Static analysis of TensorIR loop nests for the vectorized lowering.

* :func:`analyze_nest` decides whether a perfect loop nest around a block (or around plain stores) can
  be evaluated as array operations over its iteration domain -- the conditions of the reference's
  vectorized path (TIR.VEC.2) plus a *static* proof that each written index maps the points of the
  spatial loops to distinct elements (the reference checks that at run time);
* :func:`linear_form` splits an index expression into ``sum(c_v * v) + rest`` over given variables;
* :func:`recognize_reduction` finds ``X[I] = X[I] op e`` with an optional ``T.init`` (TIR.VEC.4);
* :class:`Ranges` proves indices in bounds with :class:`relax_ref.arith.Analyzer`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from relax_ref.arith.analyzer import Analyzer
from relax_ref.arith.intrinsics import canonical_name
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in, substitute_prim

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


def linear_form(e: P.PrimExpr, vars_: Sequence[P.PrimVar]) -> Optional[Tuple[Dict[P.PrimVar, int], P.PrimExpr]]:
    """``e == sum(coef[v] * v) + rest`` with integer coefficients and ``rest`` free of ``vars_``;
    None when ``e`` is not of that form."""
    vs = set(vars_)

    def go(x) -> Optional[Tuple[Dict, Optional[P.PrimExpr]]]:
        if isinstance(x, P.PrimVar):
            if x in vs:
                return {x: 1}, None
            return {}, x
        if isinstance(x, P.IntImm):
            return {}, x
        if not (prim_vars_in(x).keys() & vs):
            return {}, x
        if isinstance(x, P.Add):
            a, b = go(x.a), go(x.b)
            if a is None or b is None:
                return None
            return _merge(a[0], b[0], 1), _add(a[1], b[1], x.dtype)
        if isinstance(x, P.Sub):
            a, b = go(x.a), go(x.b)
            if a is None or b is None:
                return None
            rest = a[1]
            if b[1] is not None:
                rest = P.Sub(rest if rest is not None else P.IntImm(0, x.dtype), b[1])
            return _merge(a[0], b[0], -1), rest
        if isinstance(x, P.Mul):
            for c, other in ((x.a, x.b), (x.b, x.a)):
                if isinstance(c, P.IntImm):
                    r = go(other)
                    if r is None:
                        return None
                    coefs = {k: v * c.value for k, v in r[0].items()}
                    rest = P.Mul(r[1], c) if r[1] is not None else None
                    return coefs, rest
            return None
        if isinstance(x, P.Cast) and x.dtype.startswith(("int", "uint")) and \
                x.value.dtype.startswith(("int", "uint")):
            r = go(x.value)
            if r is None:
                return None
            return r[0], (P.Cast(x.dtype, r[1]) if r[1] is not None else None)
        return None

    r = go(e)
    if r is None:
        return None
    coefs = {k: v for k, v in r[0].items() if v != 0}
    rest = r[1] if r[1] is not None else P.IntImm(0, e.dtype)
    return coefs, rest


def _merge(a: Dict, b: Dict, sign: int) -> Dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return out


def _add(a, b, dtype):
    if a is None:
        return b
    if b is None:
        return a
    return P.Add(a, b)


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
class Nest:
    """A vectorizable nest (see :func:`analyze_nest`)."""

    loops: List[tir.For]
    bindings: List[Tuple[P.PrimVar, P.PrimExpr]]
    predicate: Optional[P.PrimExpr]
    init: Optional[tir.Stmt]
    body: tir.Stmt
    reduce_ivs: List[Tuple[P.PrimVar, P.PrimExpr]]
    written: List[tir.Buffer]                # one Buffer per written data var
    index_of: Dict[Any, Tuple[P.PrimExpr, ...]]   # data var -> index tuple
    spatial: List[int]                      # loop positions the written indices depend on
    reduction: Optional[Reduction]
    leaf_block: Optional[tir.Block] = None
    flat_index: Dict[Any, Tuple[P.PrimExpr, ...]] = field(default_factory=dict)  # indices with bindings substituted


def perfect_nest(s: tir.For) -> Tuple[List[tir.For], Any]:
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


def analyze_nest(s: tir.For) -> Optional[Nest]:
    """The vectorization plan of the nest rooted at ``s``, or None (then it runs as loops)."""
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
    flat_index = {dv: tuple(_substitute_bindings(i, binding_of) for i in idx) for dv, idx in index_of.items()}
    spatial = sorted(dep)
    # written elements must be distinct for distinct points of the spatial loops
    svars = [loop_vars[k] for k in spatial]
    for dv, idx in flat_index.items():
        if not _injective(idx, svars, {lp.loop_var: lp for lp in loops}):
            return None
    return Nest(loops, bindings, pred, init, body, reduce_ivs, [buf_of[d] for d in index_of], index_of, spatial,
                recognize_reduction(body, init, wdv), blk, flat_index)


def _substitute_bindings(e: P.PrimExpr, binding_of: Dict) -> P.PrimExpr:
    for _ in range(8):
        fv = prim_vars_in(e)
        sub = {v: binding_of[v] for v in fv if v in binding_of}
        if not sub:
            return e
        e = substitute_prim(e, {v: (x if x.dtype == v.dtype else P.cast(v.dtype, x)) for v, x in sub.items()})
    return e


def _static_int(e: P.PrimExpr) -> Optional[int]:
    return e.value if isinstance(e, P.IntImm) else None


def _injective(idx: Sequence[P.PrimExpr], svars: Sequence[P.PrimVar], loop_of: Dict) -> bool:
    """Sufficient condition: every spatial variable appears in exactly one index position, each
    position is linear in the spatial variables with coefficients forming a mixed radix (so distinct
    points give distinct values)."""
    if not svars:
        return True
    seen: set = set()
    for e in idx:
        lf = linear_form(e, svars)
        if lf is None:
            used = prim_vars_in(e).keys() & set(svars)
            if used:
                return False
            continue
        coefs, _ = lf
        if not coefs:
            continue
        if seen & coefs.keys():
            return False
        seen |= coefs.keys()
        terms = sorted(((abs(c), v) for v, c in coefs.items()), key=lambda t: t[0])
        span = 0
        for c, v in terms:
            if c <= span:
                return False
            ext = _static_int(loop_of[v].extent)
            if ext is None:
                if (c, v) != terms[-1]:
                    return False
                span = None
                break
            span += c * max(ext - 1, 0)
    return seen == set(svars)


# ---------------------------------------------------------------------------------------------------
# Bounds proofs
# ---------------------------------------------------------------------------------------------------


class Ranges:
    """Known ranges of loop variables (and bindings of iteration variables) for bounds proofs."""

    def __init__(self) -> None:
        self._items: List[Tuple[str, P.PrimVar, Any, Any]] = []
        self._an: Optional[Analyzer] = None

    def push_range(self, var: P.PrimVar, mn: P.PrimExpr, ext: P.PrimExpr) -> None:
        self._items.append(("range", var, mn, ext))
        if isinstance(ext, P.PrimVar):
            # inside the loop its extent is at least 1
            self._items.append(("range", ext, P.IntImm(1, ext.dtype), P.IntImm(1 << 40, ext.dtype)))
        self._an = None

    def _resolve(self, v: P.PrimVar) -> P.PrimVar:
        for kind, var, a, _ in reversed(self._items):
            if kind == "bind" and var is v and isinstance(a, P.PrimVar):
                return self._resolve(a)
        return v

    def _current(self, v: P.PrimVar):
        for kind, var, a, b in reversed(self._items):
            if kind == "range" and var is v:
                return a, P.add(a, b)
        return None

    def push_condition(self, cond: P.PrimExpr, positive: bool) -> None:
        """Add the bounds ``cond`` (or its negation) implies for the arm it guards."""
        for v, lo, hi in condition_ranges(cond, positive):
            v = self._resolve(v)
            cur = self._current(v)
            if cur is None:
                continue
            lo = cur[0] if lo is None else lo
            hi = cur[1] if hi is None else hi
            if lo.dtype != v.dtype:
                lo = P.cast(v.dtype, lo)
            if hi.dtype != v.dtype:
                hi = P.cast(v.dtype, hi)
            self._items.append(("range", v, lo, P.sub(hi, lo)))
            self._an = None

    def push_bind(self, var: P.PrimVar, value: P.PrimExpr) -> None:
        self._items.append(("bind", var, value, None))
        self._an = None

    def mark(self) -> int:
        return len(self._items)

    def pop_to(self, mark: int) -> None:
        if len(self._items) != mark:
            del self._items[mark:]
            self._an = None

    def analyzer(self) -> Analyzer:
        if self._an is None:
            an = Analyzer()
            for kind, v, a, b in self._items:
                try:
                    if kind == "range":
                        an.bind_range(v, a, b)
                    elif a.dtype == v.dtype and v not in prim_vars_in(a):
                        an.bind(v, a)
                except Exception:  # noqa: BLE001 - a fact the analyzer cannot take is simply not used
                    pass
            self._an = an
        return self._an

    def in_bounds(self, idx: P.PrimExpr, extent: P.PrimExpr) -> bool:
        """True when ``0 <= idx < extent`` provably."""
        if not idx.dtype.startswith(("int", "uint")) or not extent.dtype.startswith(("int", "uint")):
            return False
        try:
            an = self.analyzer()
            return an.can_prove(P.ge(idx, 0)) and an.can_prove(P.lt(idx, extent))
        except Exception:  # noqa: BLE001 - unprovable: a run-time check is emitted
            return False


def condition_ranges(cond: P.PrimExpr, positive: bool = True) -> List[Tuple[P.PrimVar, Optional[P.PrimExpr], Optional[P.PrimExpr]]]:
    """Bounds ``lo <= v < hi`` implied by ``cond`` (``positive``) or by its negation: conjunctions
    (disjunctions, negated) of comparisons that are linear in one variable with coefficient +-1
    (used to prove the loads of an ``if_then_else`` arm or a branch in bounds)."""
    out: list = []
    stack = [(cond, positive)]
    while stack:
        c, pos = stack.pop()
        if isinstance(c, P.Not):
            stack.append((c.a, not pos))
            continue
        if isinstance(c, P.And) and pos or isinstance(c, P.Or) and not pos:
            stack += [(c.a, pos), (c.b, pos)]
            continue
        if not isinstance(c, (P.LT, P.LE, P.GT, P.GE)):
            continue
        t = type(c)
        if not pos:
            t = {P.LT: P.GE, P.LE: P.GT, P.GT: P.LE, P.GE: P.LT}[t]
        if not c.a.dtype.startswith(("int", "uint")) or not c.b.dtype.startswith(("int", "uint")):
            continue
        # a - b (t) 0  with  a - b == k * v + rest, k = +-1
        diff = P.sub(c.a, c.b)
        cands = [v for v in prim_vars_in(diff)]
        for v in cands:
            lf = linear_form(diff, [v])
            if lf is None or set(lf[0]) != {v} or abs(lf[0][v]) != 1:
                continue
            k, rest = lf[0][v], lf[1]
            # k*v + rest (t) 0  ->  bound on v
            bound = P.neg(rest) if k == 1 else rest        # v (t') bound
            tt = t if k == 1 else {P.LT: P.GT, P.LE: P.GE, P.GT: P.LT, P.GE: P.LE}[t]
            if tt is P.LT:
                out.append((v, None, bound))
            elif tt is P.LE:
                out.append((v, None, P.add(bound, 1)))
            elif tt is P.GT:
                out.append((v, P.add(bound, 1), None))
            else:
                out.append((v, bound, None))
            break
    return out


__all__ = ["loads_in", "reads_buffers", "linear_form", "simple_stmts", "single_store", "Reduction",
           "recognize_reduction", "Nest", "perfect_nest", "analyze_nest", "Ranges", "condition_ranges", "REDUCERS"]

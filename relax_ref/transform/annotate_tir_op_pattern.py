"""AnnotateTIROpPattern: classify each PrimFunc for fusion (PASS.OPPATTERN.*).

Follows TVM 0.25 (``src/relax/analysis/tir_op_pattern_kind.cc``, ``annotate_tir_op_pattern.cc``).
The pattern kinds (:class:`OpPatternKind`) are ``kElemWise=0``, ``kBroadcast=1``, ``kInjective=2``,
``kCommReduce=3``, ``kOutEWiseFusable=4``, ``kTuple=7``, ``kOpaque=8``.

:func:`analyze_op_pattern` walks the function body with one running ``kind`` (starting at
kElemWise) (PASS.OPPATTERN.1):

* the root block contributes only its body; every other block is analysed on its own: its
  ``BufferLoad``s and its single ``BufferStore`` (a second store with different indices makes the
  function opaque; a block without a store is opaque);
* each load is compared with the store: *elementwise* when the index lists are the same
  expressions, *broadcast* when the load indices occur, in order, among the store indices (a
  unit dimension indexed by 0 is skipped), *injective* when the store indices are variables and the
  load indices use only those; otherwise the block is not index-patterned. The block's pattern is
  the maximum over its loads, except that broadcast together with an elementwise load counts as
  elementwise. A patterned block makes ``kind = max(kind, pattern)`` -- or, when it writes a
  parameter buffer while ``kind`` is kCommReduce (softmax-like), ``kind = kOutEWiseFusable``;
* an unpatterned block with reduction iterators is kOutEWiseFusable when its body is a
  multiply-accumulate ``C[..] = C[..] + A[..] * B[..]`` whose operand loads allow reuse (matmul,
  convolution) or when some load index mixes a reduction variable into a larger expression (pooling),
  else kCommReduce; without reduction iterators it is kOpaque (the running kind is *replaced*, so
  opaque wins);
* a store outside every block other than the root (a plain loop program, e.g. a scan written without
  blocks) makes the function kOpaque: such a function is not schedulable and FuseTIR could not
  merge it (relax-ref; TVM's analyzer ignores such stores).

"Same expression" is object identity, like TVM's ``same_as`` (variables are identity-compared
anyway). :class:`AnnotateTIROpPattern` sets the PrimFunc attribute ``op_pattern`` (an int) on every
PrimFunc that does not already carry a nonzero one (PASS.OPPATTERN.2).
"""

from __future__ import annotations

import enum
from dataclasses import replace
from typing import List, Optional, Sequence, Set

from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.module import IRModule
from .pass_infra import Pass, rewrite_functions


class OpPatternKind(enum.IntEnum):
    """TVM's ``OpPatternKind`` (``include/tvm/relax/op_attr_types.h``)."""

    kElemWise = 0
    kBroadcast = 1
    kInjective = 2
    kCommReduce = 3
    kOutEWiseFusable = 4
    kTuple = 7
    kOpaque = 8


K = OpPatternKind


def _same_array(a: Sequence[P.PrimExpr], b: Sequence[P.PrimExpr]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _vars_in(e: P.PrimExpr) -> List[P.PrimVar]:
    """Every PrimVar occurring in ``e`` in visiting order -- loads' indices included, and a load's
    buffer data variable too (TVM's ``UsesVar`` touches it), so a gather ``A[B[i]]`` uses ``B``."""
    out: List[P.PrimVar] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, tir.BufferLoad) and x.buffer.data is not None:
            out.append(x.buffer.data)
        if isinstance(x, P.PrimVar):
            out.append(x)
        elif isinstance(x, P.Let):
            out.append(x.var)
            stack.extend((x.body, x.value))
        else:
            stack.extend(reversed(P.children(x)))
    return out


def _is_const_int(e: P.PrimExpr, value: int) -> bool:
    return isinstance(e, P.IntImm) and e.value == value


def _remove_cast(e: P.PrimExpr) -> P.PrimExpr:
    while isinstance(e, P.Cast):
        e = e.value
    return e


def _is_elemwise(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    return _same_array(store.indices, load.indices)


def _is_broadcast(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    n_store = len(store.buffer.shape)
    j = 0
    for i in range(len(load.buffer.shape)):
        if _is_const_int(load.buffer.shape[i], 1) and _is_const_int(load.indices[i], 0):
            continue
        while j < n_store and store.indices[j] is not load.indices[i]:
            j += 1
        if j == n_store:
            return False
    return True


def _store_vars(store: tir.BufferStore) -> Optional[Set[P.PrimVar]]:
    out: Set[P.PrimVar] = set()
    for i in store.indices:
        if not isinstance(i, P.PrimVar):
            return None
        out.add(i)
    return out


def _is_injective(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    vs = _store_vars(store)
    if vs is None:
        return False
    return all(v in vs for idx in load.indices for v in _vars_in(idx))


def _allows_reuse(store: tir.BufferStore, load: tir.BufferLoad) -> bool:
    vs = _store_vars(store)
    if vs is None:
        return False
    for idx in load.indices:
        for v in _vars_in(idx):
            vs.discard(v)
    return bool(vs)


def _is_fma(body: tir.Stmt) -> bool:
    """``C[i..] = C[i..] + A[..] * B[..]`` (casts ignored) whose operand loads allow reuse."""
    if not isinstance(body, tir.BufferStore):
        return False
    add = _remove_cast(body.value)
    if not isinstance(add, P.Add):
        return False
    mul = _remove_cast(add.b)
    if not isinstance(mul, P.Mul):
        return False
    lhs_acc = _remove_cast(add.a)
    if not (isinstance(lhs_acc, tir.BufferLoad) and lhs_acc.buffer is body.buffer
            and _same_array(body.indices, lhs_acc.indices)):
        return False
    a, b = _remove_cast(mul.a), _remove_cast(mul.b)
    if not (isinstance(a, tir.BufferLoad) and isinstance(b, tir.BufferLoad)):
        return False
    return _allows_reuse(body, a) and _allows_reuse(body, b)


def _is_pure_reduce(reduce_vars: Sequence[P.PrimVar], indices: Sequence[P.PrimExpr]) -> bool:
    rs = set(reduce_vars)
    for e in indices:
        if any(v in rs for v in _vars_in(e)) and not (isinstance(e, P.PrimVar) and e in rs):
            return False
    return True


class _Analyzer:
    """The running state of TVM's ``PatternKindAnalyzer``."""

    def __init__(self, func: tir.PrimFunc) -> None:
        self.param_buffers = {id(b) for _, b in func.buffer_map}
        self.kind = K.kElemWise
        self.store: Optional[tir.BufferStore] = None
        self.loads: List[tir.BufferLoad] = []
        self.block_depth = 0

    # -- expressions --------------------------------------------------------------------------------
    def expr(self, e: Optional[P.PrimExpr]) -> None:
        if e is None:
            return
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, tir.BufferLoad):
                self.loads.append(x)
            stack.extend(reversed(P.children(x)))

    # -- statements ---------------------------------------------------------------------------------
    def stmt(self, s: Optional[tir.Stmt]) -> None:
        if s is None:
            return
        if isinstance(s, tir.BufferStore):
            if self.block_depth == 0:
                # a store outside every (non-root) block: a loop program, not schedulable -- opaque,
                # so that FuseOps never groups it and FuseTIR never has to merge it
                self.kind = K.kOpaque
                return
            if self.store is not None and not _same_array(s.indices, self.store.indices):
                self.kind = K.kOpaque
                return
            self.store = s
            self.expr(s.value)
            for i in s.indices:
                self.expr(i)
        elif isinstance(s, tir.Block):
            self.block(s)
        elif isinstance(s, tir.BlockRealize):
            for v in s.iter_values:
                self.expr(v)
            self.expr(s.predicate)
            self.stmt(s.block)
        elif isinstance(s, tir.SeqStmt):
            for c in s.seq:
                self.stmt(c)
        elif isinstance(s, tir.For):
            self.expr(s.min)
            self.expr(s.extent)
            self.stmt(s.body)
        elif isinstance(s, tir.While):
            self.expr(s.condition)
            self.stmt(s.body)
        elif isinstance(s, tir.IfThenElse):
            self.expr(s.condition)
            self.stmt(s.then_case)
            self.stmt(s.else_case)
        elif isinstance(s, (tir.LetStmt, tir.Bind)):
            self.expr(s.value)
            self.stmt(getattr(s, "body", None))
        elif isinstance(s, tir.AssertStmt):
            self.expr(s.condition)
            self.stmt(s.body)
        elif isinstance(s, tir.Evaluate):
            self.expr(s.value)
        elif isinstance(s, tir.Allocate):
            for e in s.extents:
                self.expr(e)
            self.expr(s.condition)
            self.stmt(s.body)
        elif isinstance(s, tir.DeclBuffer):
            self.stmt(s.body)
        elif isinstance(s, tir.AllocBuffer):
            pass
        else:
            raise TypeError(f"AnnotateTIROpPattern: unknown statement {type(s).__name__}")

    def block(self, b: tir.Block) -> None:
        if b.name == "root":
            self.stmt(b.body)
            return
        self.loads = []
        self.store = None
        self.block_depth += 1
        self.stmt(b.body)
        self.block_depth -= 1
        if self.store is None:
            self.kind = K.kOpaque
            return
        store = self.store
        pattern = K.kElemWise
        has_elemwise = False
        for load in self.loads:
            if _is_elemwise(store, load):
                pattern = max(pattern, K.kElemWise)
                has_elemwise = True
            elif _is_broadcast(store, load):
                pattern = max(pattern, K.kBroadcast)
            elif _is_injective(store, load):
                pattern = max(pattern, K.kInjective)
            else:
                pattern = K.kOpaque
                break
        if pattern == K.kBroadcast and has_elemwise:
            pattern = K.kElemWise
        if pattern != K.kOpaque:
            writes_param = any(id(w.buffer) in self.param_buffers for w in b.writes)
            if writes_param and self.kind == K.kCommReduce:
                self.kind = K.kOutEWiseFusable
            else:
                self.kind = K(max(self.kind, pattern))
            return
        reduce_vars = [iv.var for iv in b.iter_vars if iv.iter_type == "reduce"]
        if reduce_vars:
            if _is_fma(b.body):
                self.kind = K(max(self.kind, K.kOutEWiseFusable))
                return
            for load in self.loads:
                if not _is_pure_reduce(reduce_vars, load.indices):
                    self.kind = K(max(self.kind, K.kOutEWiseFusable))
                    return
            self.kind = K(max(self.kind, K.kCommReduce))
        else:
            self.kind = K.kOpaque


def analyze_op_pattern(func: tir.PrimFunc) -> OpPatternKind:
    """(PASS.OPPATTERN.1) The pattern kind of ``func`` (see the module docstring)."""
    a = _Analyzer(func)
    a.stmt(func.body)
    return a.kind


def annotate_op_pattern(func: tir.PrimFunc) -> tir.PrimFunc:
    """``func`` with attribute ``op_pattern`` unless it already has a nonzero one (PASS.OPPATTERN.2)."""
    if func.attrs.get("op_pattern"):
        return func
    kind = analyze_op_pattern(func)
    if func.attrs.get("op_pattern") == int(kind):
        return func  # an existing 0 recomputed to 0: nothing changes
    return replace(func, attrs=Attrs({**dict(func.attrs.items()), "op_pattern": int(kind)}))


class AnnotateTIROpPattern(Pass):
    """Annotate every PrimFunc of the module with its ``op_pattern`` (PASS.OPPATTERN.2)."""

    name = "AnnotateTIROpPattern"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        # a PrimFunc's struct info does not depend on its attributes: no re-normalization needed
        return rewrite_functions(mod, lambda _gv, f: annotate_op_pattern(f), tir.PrimFunc, normalize=False)


__all__ = ["OpPatternKind", "analyze_op_pattern", "annotate_op_pattern", "AnnotateTIROpPattern"]

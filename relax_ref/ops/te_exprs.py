"""The expressions of :func:`relax_ref.ops.te.create_prim_func` (TIR.TE.GEN.*): the builder-side
buffer of a tensor, the rebinding of builder buffers and axis variables to the final buffers and block
iter vars, comparisons flipped and integer parts brought to ``int64`` as TVM's generator leaves them,
and the read regions of a block computed from its loads.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import PrimExprMutator
from . import te_ops as _ops
from .te_simplify import float_index_range


@dataclass(frozen=True, eq=False)
class ProtoBuffer(tir.Buffer):
    """The builder-side buffer of a tensor; ``create_prim_func`` replaces it by a final buffer."""

    tensor: Any = field(default=None, repr=False)


def loads_in(e: P.PrimExpr, out: List[tir.BufferLoad]) -> None:
    """BufferLoads in pre-order (an outer load before the loads in its indices)."""
    if isinstance(e, tir.BufferLoad):
        out.append(e)
        for i in e.indices:
            loads_in(i, out)
        return
    if isinstance(e, P.Let):
        loads_in(e.value, out)
        loads_in(e.body, out)
        return
    for c in P.children(e):
        loads_in(c, out)


class Rebind(PrimExprMutator):
    """Replace builder buffers by final buffers and axis vars by block iter vars."""

    def __init__(self, buffers: Dict[int, tir.Buffer], vmap: Dict[P.PrimVar, P.PrimExpr]):
        self.buffers = buffers
        self.vmap = vmap

    def visit_buffer(self, b: tir.Buffer) -> tir.Buffer:
        if not isinstance(b, ProtoBuffer):
            return b
        nb = self.buffers.get(id(b))
        if nb is None:
            raise RelaxError(f"create_prim_func: tensor '{b.name}' is read but is neither an argument "
                             "nor produced by a stage reachable from the arguments")
        return nb

    def visit_var(self, v: P.PrimVar) -> P.PrimExpr:
        return self.vmap.get(v, v)


class FlipComparisons(PrimExprMutator):
    """TIR.TE.GEN.4: ``a > b`` -> ``b < a``, ``a >= b`` -> ``b <= a``."""

    def visit_GT(self, e):
        return P.LT(self.visit(e.b), self.visit(e.a))

    def visit_GE(self, e):
        return P.LE(self.visit(e.b), self.visit(e.a))


_CMP_REBUILD = {P.EQ: _ops.eq, P.NE: _ops.ne, P.LT: _ops.lt, P.LE: _ops.le, P.GT: _ops.gt, P.GE: _ops.ge}
_BIN_REBUILD = {P.Add: _ops.add, P.Sub: _ops.sub, P.Mul: _ops.mul, P.Div: _ops.div, P.Mod: _ops.truncmod,
                P.FloorDiv: _ops.floordiv, P.FloorMod: _ops.floormod, P.Min: _ops.min_, P.Max: _ops.max_}


def _rewritable(dtype: str) -> bool:
    return dtype.startswith("int") and dtype in ("int32", "int64")


class _IndexDTypeNormalizer(PrimExprMutator):
    """TIR.TE.GEN.5 (``index_dtype_override="int64"``): integer constants and integer casts in
    index positions, and in comparisons of signed integers inside conditions, become int64; the
    enclosing operator then type-matches its operands."""

    def __init__(self) -> None:
        self.enabled = False
        self.in_condition = False

    def _with(self, enabled: bool, in_condition: bool, e: P.PrimExpr) -> P.PrimExpr:
        saved = (self.enabled, self.in_condition)
        self.enabled, self.in_condition = enabled, in_condition
        try:
            return self.visit(e)
        finally:
            self.enabled, self.in_condition = saved

    def visit_IntImm(self, e):
        if self.enabled and _rewritable(e.dtype) and e.dtype != "int64":
            return P.IntImm(e.value, "int64")
        return e

    def visit_Cast(self, e):
        if self.enabled and _rewritable(e.dtype):
            v = self.visit(e.value)
            return v if v.dtype == "int64" else P.Cast("int64", v)
        v = self.visit(e.value)
        return e if v is e.value else P.Cast(e.dtype, v)

    def visit_BufferLoad(self, e):
        idx = tuple(self._with(True, self.in_condition, i) for i in e.indices)
        if all(a is b for a, b in zip(idx, e.indices)):
            return e
        return tir.BufferLoad(e.buffer, idx, e.dtype)

    def visit_Select(self, e):
        c = self._with(self.enabled, True, e.condition)
        t, f = self.visit(e.true_value), self.visit(e.false_value)
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        t, f = _ops.match_types(t, f)
        return P.Select(c, t, f)

    def visit_PrimCall(self, e):
        if e.op == "tir.if_then_else":
            c = self._with(self.enabled, True, e.args[0])
            t, f = self.visit(e.args[1]), self.visit(e.args[2])
            if c is e.args[0] and t is e.args[1] and f is e.args[2]:
                return e
            t, f = _ops.match_types(t, f)
            return P.PrimCall(t.dtype, e.op, (c, t, f))
        return self.generic_visit(e)

    def generic_visit(self, e):
        if isinstance(e, P.CmpOp) and type(e) in _CMP_REBUILD:
            en = self.in_condition and e.a.dtype.startswith("int") and e.b.dtype.startswith("int")
            a = self._with(en, self.in_condition, e.a)
            b = self._with(en, self.in_condition, e.b)
            if a is e.a and b is e.b:
                return e
            if a.dtype != b.dtype:
                a, b = _ops.match_types(a, b)
            return type(e)(a, b)
        if isinstance(e, P.BinaryOp) and type(e) in _BIN_REBUILD:
            a, b = self.visit(e.a), self.visit(e.b)
            if a is e.a and b is e.b:
                return e
            if a.dtype != b.dtype:
                return _BIN_REBUILD[type(e)](a, b)
            return type(e)(a, b)
        return super().generic_visit(e)


def normalize_value(e: P.PrimExpr) -> P.PrimExpr:
    return _IndexDTypeNormalizer().visit(e)


def normalize_index(e: P.PrimExpr) -> P.PrimExpr:
    n = _IndexDTypeNormalizer()
    n.enabled = True
    return n.visit(e)


def const_offset(a: P.PrimExpr, b: P.PrimExpr) -> Optional[int]:
    """``b - a`` when the two index expressions differ by an integer constant (syntactically)."""
    def split(e):
        if isinstance(e, P.IntImm):
            return None, e.value
        if isinstance(e, P.Add) and isinstance(e.b, P.IntImm):
            return e.a, e.b.value
        if isinstance(e, P.Sub) and isinstance(e.b, P.IntImm):
            return e.a, -e.b.value
        return e, 0

    ba, ca = split(a)
    bb, cb = split(b)
    if ba is None and bb is None:
        return cb - ca
    if ba is None or bb is None:
        return None
    if ba == bb:
        return cb - ca
    return None


def _holds_if_then_else(e: P.PrimExpr) -> bool:
    """Whether ``e`` calls ``if_then_else`` outside the indices of the loads it holds."""
    if isinstance(e, P.PrimCall) and e.op == "tir.if_then_else":
        return True
    if isinstance(e, tir.BufferLoad):
        return False
    return any(_holds_if_then_else(c) for c in P.children(e))


def regions(loads: Sequence[tir.BufferLoad], skip: Sequence[tir.Buffer],
            whole_axis_conditional: bool = False) -> Tuple[tir.BufferRegion, ...]:
    """TIR.TE.GEN.6: one region per buffer in order of first access; ``whole_axis_conditional``
    (TVM 0.27's form, PASS.RELEASE.1): an index holding ``if_then_else`` reads the whole axis."""
    order: List[tir.Buffer] = []
    accesses: Dict[int, List[Tuple[P.PrimExpr, ...]]] = {}
    skip_ids = {id(b) for b in skip}
    for ld in loads:
        if id(ld.buffer) in skip_ids:
            continue
        if id(ld.buffer) not in accesses:
            order.append(ld.buffer)
            accesses[id(ld.buffer)] = []
        if ld.indices not in accesses[id(ld.buffer)]:
            accesses[id(ld.buffer)].append(ld.indices)
    out = []
    one = P.IntImm(1, "int64")
    for buf in order:
        tuples = accesses[id(buf)]
        ranges = []
        for d in range(len(buf.shape)):
            idx = [t[d] for t in tuples]
            first = idx[0]
            if whole_axis_conditional and any(_holds_if_then_else(i) for i in idx):
                ranges.append(tir.Range(P.IntImm(0, "int64"), buf.shape[d]))
                continue
            if all(i == first for i in idx):
                ranges.append(float_index_range(first, buf.shape[d]) or tir.Range(first, one))
                continue
            offs = [const_offset(first, i) for i in idx]
            if all(o is not None for o in offs):
                lo, hi = builtins.min(offs + [0]), builtins.max(offs + [0])
                base = first if lo == 0 else _ops.add(first, P.IntImm(lo, first.dtype))
                ranges.append(tir.Range(base, P.IntImm(hi - lo + 1, "int64")))
            else:
                ranges.append(tir.Range(P.IntImm(0, "int64"), buf.shape[d]))
        out.append(tir.BufferRegion(buf, tuple(ranges)))
    return tuple(out)


__all__ = ["ProtoBuffer", "loads_in", "Rebind", "FlipComparisons", "normalize_value", "normalize_index",
           "const_offset", "regions"]

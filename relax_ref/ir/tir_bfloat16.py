"""``bfloat16`` arithmetic inside a PrimFunc is ``float32`` arithmetic rounded where it is stored
(TIR.BF16.1-3): one definition, a rewrite of the PrimFunc that both evaluators run before executing it
(the reference's TensorIR interpreter and ``relax_jax``'s TensorIR path).

The rewrite is what TVM's ``BF16ComputeLegalize`` does in every TVM release's default TIR pipeline
(witnessed on TVM 0.25 and 0.27, ``tvm.compile`` for LLVM):

* every expression of dtype ``bfloat16`` becomes a ``float32`` expression: a load from a ``bfloat16``
  buffer is converted exactly to ``float32``, arithmetic, ``Select``, intrinsic calls and
  ``T.Cast("bfloat16", x)`` are ``float32`` (an explicit cast to ``bfloat16`` inside an expression
  does not round), a ``bfloat16`` immediate is its written value as a ``float32``, and a
  ``bfloat16`` let-bound variable holds a ``float32`` (TIR.BF16.1);
* a store into a ``bfloat16`` buffer rounds the ``float32`` value once, to nearest even
  (TIR.BF16.2);
* an intermediate buffer the function allocates (``T.alloc_buffer`` in a block or flat, whatever its
  shape) holds ``float32`` values; parameters' buffers and allocated buffers whose data pointer is
  used as a value or viewed through another buffer keep ``bfloat16`` (TIR.BF16.3).

A function without ``bfloat16`` is returned unchanged (the same object). ``T.reinterpret`` keeps its
``bfloat16`` result (its bits), and the operands of packed calls and of TVM's pointer builtins are left
as they are.
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Dict, Optional

from . import prim_expr as P
from . import tir
from .functor import PrimExprMutator, StmtMutator, post_order_visit_stmt, prim_vars_in, stmt_prim_exprs

BF16 = "bfloat16"
F32 = "float32"

#: calls whose operands and result are not computed values (bits, pointers, packed arguments)
_OPAQUE_CALL = ("tir.reinterpret",)


def _is_bf16(dtype: Optional[str]) -> bool:
    return dtype is not None and (dtype == BF16 or dtype.startswith(BF16 + "x"))


def _promoted(dtype: str) -> str:
    return F32 + dtype[len(BF16):] if _is_bf16(dtype) else dtype


def _opaque_call(op: str) -> bool:
    return op in _OPAQUE_CALL or "packed" in op or op.startswith("tir.tvm_") or op == "tir.address_of"


def _up(e: P.PrimExpr) -> P.PrimExpr:
    """``e`` as float32 when it is a (remaining) bfloat16 value."""
    return P.Cast(_promoted(e.dtype), e) if _is_bf16(e.dtype) else e


class _Promote(PrimExprMutator):
    def __init__(self, buffers: Dict[tir.Buffer, tir.Buffer]) -> None:
        self.buffers = buffers
        self.vars: Dict[P.PrimVar, P.PrimVar] = {}

    def var(self, v: P.PrimVar) -> P.PrimVar:
        """The float32 twin of a bfloat16 variable bound by a let (made on first use)."""
        if not _is_bf16(v.dtype):
            return v
        w = self.vars.get(v)
        if w is None:
            w = self.vars[v] = P.PrimVar(v.name, _promoted(v.dtype))
        return w

    def visit_var(self, v: P.PrimVar) -> P.PrimExpr:
        return self.vars.get(v, v)

    def visit(self, e: P.PrimExpr) -> P.PrimExpr:
        if isinstance(e, tir.BufferLoad):
            idx = tuple(self.visit(i) for i in e.indices)
            nb = self.buffers.get(e.buffer)
            if nb is not None:
                return tir.BufferLoad(nb, idx, _promoted(e.dtype))
            load = e if all(a is b for a, b in zip(idx, e.indices)) else tir.BufferLoad(e.buffer, idx, e.dtype)
            return _up(load)
        if isinstance(e, P.FloatImm):
            return P.FloatImm(e.value, _promoted(e.dtype)) if _is_bf16(e.dtype) else e
        if isinstance(e, P.Cast):
            v = _up(self.visit(e.value)) if _is_bf16(e.dtype) else self.visit(e.value)
            if _is_bf16(e.dtype):
                return v if v.dtype == _promoted(e.dtype) else P.Cast(_promoted(e.dtype), v)
            if v is e.value:
                return e
            v = _up(v)
            return v if v.dtype == e.dtype else P.Cast(e.dtype, v)
        if isinstance(e, P.BinaryOp):
            a, b = self.visit(e.a), self.visit(e.b)
            if a is e.a and b is e.b and not _is_bf16(e.dtype):
                return e
            return type(e)(_up(a), _up(b), _promoted(e.dtype))
        if isinstance(e, P.Select):
            c, t, f = self.visit(e.condition), self.visit(e.true_value), self.visit(e.false_value)
            if c is e.condition and t is e.true_value and f is e.false_value and not _is_bf16(e.dtype):
                return e
            return P.Select(c, _up(t), _up(f), _promoted(e.dtype))
        if isinstance(e, P.PrimCall):
            if _opaque_call(e.op):
                return super().visit(e)
            args = tuple(self.visit(a) for a in e.args)
            if all(x is y for x, y in zip(args, e.args)) and not _is_bf16(e.dtype):
                return e
            return P.PrimCall(_promoted(e.dtype), e.op, tuple(_up(a) for a in args))
        if isinstance(e, P.Let):
            value = _up(self.visit(e.value))
            var = self.var(e.var)
            body = self.visit(e.body)
            if value is e.value and var is e.var and body is e.body:
                return e
            return P.Let(var, value, body, body.dtype)
        return super().visit(e)


class _PromoteStmts(StmtMutator):
    def __init__(self, buffers: Dict[tir.Buffer, tir.Buffer]) -> None:
        self.px = _Promote(buffers)
        super().__init__(self.px)
        self.buffers = buffers

    def buf(self, b: tir.Buffer) -> tir.Buffer:
        return self.buffers.get(b, b)

    def region(self, r: tir.BufferRegion) -> tir.BufferRegion:
        nb = self.buffers.get(r.buffer)
        return r if nb is None else tir.BufferRegion(nb, r.region)

    def visit_BufferStore(self, s: tir.BufferStore) -> tir.Stmt:
        value = self.px.visit(s.value)
        idx = tuple(self.px.visit(i) for i in s.indices)
        nb = self.buffers.get(s.buffer)
        if nb is not None:
            return tir.BufferStore(nb, _up(value), idx, span=s.span)
        if _is_bf16(s.buffer.dtype) and value.dtype != s.buffer.dtype:
            value = P.Cast(s.buffer.dtype, value)        # TIR.BF16.2: rounded once, here
        if value is s.value and all(a is b for a, b in zip(idx, s.indices)):
            return s
        return tir.BufferStore(s.buffer, value, idx, span=s.span)

    def visit_LetStmt(self, s: tir.LetStmt) -> tir.Stmt:
        value = _up(self.px.visit(s.value))
        var = self.px.var(s.var)
        body = self.visit(s.body)
        if value is s.value and var is s.var and body is s.body:
            return s
        return tir.LetStmt(var, value, body, span=s.span)

    def visit_Bind(self, s: tir.Bind) -> tir.Stmt:
        value = _up(self.px.visit(s.value))
        var = self.px.var(s.var)
        if value is s.value and var is s.var:
            return s
        return tir.Bind(var, value, span=s.span)

    def visit_AllocBuffer(self, s: tir.AllocBuffer) -> tir.Stmt:
        nb = self.buffers.get(s.buffer)
        return s if nb is None else tir.AllocBuffer(nb, span=s.span)

    def visit_Block(self, s: tir.Block) -> tir.Stmt:
        s2 = self.generic_visit(s)
        if not any(b in self.buffers for b in s.alloc_buffers) and not any(
                r.buffer in self.buffers for r in s.reads + s.writes):
            return s2
        return replace(s2, reads=tuple(self.region(r) for r in s2.reads),
                       writes=tuple(self.region(r) for r in s2.writes),
                       alloc_buffers=tuple(self.buf(b) for b in s2.alloc_buffers))


def _mentions_bfloat16(func: tir.PrimFunc) -> bool:
    found = []

    def expr_has(e) -> bool:
        stack = [e]
        while stack:
            x = stack.pop()
            if _is_bf16(getattr(x, "dtype", None)):
                return True
            stack.extend(P.children(x))
        return False

    def visit(s: tir.Stmt) -> None:
        if found:
            return
        if isinstance(s, tir.BufferStore) and _is_bf16(s.buffer.dtype):
            found.append(s)
        elif isinstance(s, tir.Block) and any(_is_bf16(b.dtype) for b in s.alloc_buffers):
            found.append(s)
        elif isinstance(s, tir.AllocBuffer) and _is_bf16(s.buffer.dtype):
            found.append(s)
        elif any(expr_has(e) for e in stmt_prim_exprs(s) if e is not None):
            found.append(s)
    post_order_visit_stmt(func.body, visit)
    return bool(found)


def _float32_buffers(func: tir.PrimFunc) -> Dict[tir.Buffer, tir.Buffer]:
    """TIR.BF16.3: the bfloat16 buffers the function allocates (any shape), mapped to their float32
    twins; a buffer whose data pointer is used as a value, or that another buffer views
    (``T.match_buffer`` of a block, ``T.decl_buffer`` over the same data), keeps its dtype."""
    allocs = []
    viewed = set()
    opaque = set()

    def visit(s: tir.Stmt) -> None:
        if isinstance(s, tir.Block):
            allocs.extend(s.alloc_buffers)
            viewed.update(id(m.source.buffer) for m in s.match_buffers)
        elif isinstance(s, tir.AllocBuffer):
            allocs.append(s.buffer)
        elif isinstance(s, tir.DeclBuffer):
            opaque.add(s.buffer.data)
        for e in stmt_prim_exprs(s):
            if e is not None:
                opaque.update(v for v in prim_vars_in(e) if v.dtype == "handle")
    post_order_visit_stmt(func.body, visit)
    out = {}
    for b in allocs:
        if _is_bf16(b.dtype) and id(b) not in viewed and b.data not in opaque:
            out[b] = tir.Buffer(b.name, b.shape, _promoted(b.dtype), strides=b.strides, elem_offset=b.elem_offset,
                                scope=b.scope, axis_separators=b.axis_separators, align=b.align,
                                offset_factor=b.offset_factor)
    return out


_CACHE: "weakref.WeakKeyDictionary[tir.PrimFunc, tir.PrimFunc]" = weakref.WeakKeyDictionary()


def compute_in_float32(func: tir.PrimFunc) -> tir.PrimFunc:
    """``func`` with its bfloat16 arithmetic in float32 (TIR.BF16.1-3); ``func`` itself when it has
    none. Cached per function object."""
    got = _CACHE.get(func)
    if got is not None:
        return got
    out = func
    if _mentions_bfloat16(func):
        body = _PromoteStmts(_float32_buffers(func)).visit(func.body)
        if body is not func.body:
            out = replace(func, body=body)
    _CACHE[func] = out
    return out


__all__ = ["compute_in_float32"]

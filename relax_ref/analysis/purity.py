"""Purity of calls and functions (spec rules EXPR.PURITY.*), as TVM 0.25 decides it.

* A call is impure when its callee is an operator registered impure, or when the callee's
  ``FuncStructInfo`` has ``purity=False`` (EXPR.PURITY.1). ``ExternFunc`` callees are opaque and
  impure; ``call_pure_packed`` is the pure wrapper.
* :func:`find_impure_call` looks through an expression without entering nested function literals,
  optionally ignoring recursive calls of ``own_name`` (EXPR.PURITY.2).
* A PrimFunc is pure when it stores only into buffers it allocates with a flat ``AllocBuffer`` and
  calls no side-effecting intrinsic (EXPR.PURITY.3); kernels that write their output buffers are
  therefore impure, so calling a PrimFunc directly is impure.
"""

from __future__ import annotations

from typing import Optional

from ..errors import StructInfoError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import stmt_children, stmt_prim_exprs
from ..ir.struct_info import FuncStructInfo
from .signatures import extern_func_struct_info

#: TIR intrinsics whose call effect is "update state" or "opaque" in TVM 0.25 (EXPR.PURITY.3)
IMPURE_TIR_INTRINSICS = frozenset({
    "call_extern", "call_llvm_intrin", "call_packed", "call_cpacked", "tvm_call_packed",
    "tvm_call_cpacked", "tvm_call_packed_lowered", "tvm_call_cpacked_lowered", "tvm_call_trace_packed",
    "tvm_call_trace_packed_lowered", "tvm_struct_set", "tvm_stack_alloca", "tvm_stack_make_array",
    "tvm_stack_make_shape", "tvm_storage_sync", "tvm_thread_allreduce", "tvm_throw_last_error",
    "tvm_global_barrier_kinit", "tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down",
    "tvm_warp_shuffle_xor", "tvm_warp_activemask", "atomic_add", "prefetch", "print_buffer",
    "lookup_param", "texture2d_store", "texture2d_load", "dma_copy", "dma_wait", "dma_start_group",
    "dma_end_group", "nd_mem_alloc_with_scope", "TVMBackendAllocWorkspace", "TVMBackendFreeWorkspace",
    "anylist_getitem", "anylist_resetitem", "anylist_setitem_call_packed",
    "anylist_setitem_call_cpacked", "TVMBackendAnyListSetPackedArg",
    "TVMBackendAnyListMoveFromPackedReturn",
})


def _intrinsic_name(op: str) -> str:
    for prefix in ("tirx.", "tir."):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op


def callee_struct_info(callee: rx.Expr) -> Optional[FuncStructInfo]:
    """The FuncStructInfo of a (normalized) callee; ``ExternFunc`` gets its default opaque one."""
    si = callee.struct_info
    if si is None and isinstance(callee, rx.ExternFunc):
        si = extern_func_struct_info()
    return si if isinstance(si, FuncStructInfo) else None


def is_impure_call(call: rx.Call) -> bool:
    """Whether ``call`` is impure (EXPR.PURITY.1)."""
    if isinstance(call.op, rx.Op):
        from ..ops import registry

        return not registry.get(call.op.name).purity
    fsi = callee_struct_info(call.op)
    if fsi is None:
        raise StructInfoError(
            f"cannot decide the purity of a call whose callee has struct info {call.op.struct_info!r}",
            call.span)
    return not fsi.purity


def find_impure_call(expr: rx.Expr, own_name: Optional[rx.Expr] = None) -> Optional[rx.Call]:
    """The first impure call inside ``expr`` (a Function's body when ``expr`` is a Function), not
    looking inside nested function literals; calls whose callee is ``own_name`` are ignored
    (EXPR.PURITY.2)."""
    if isinstance(expr, rx.Function):
        expr = expr.body
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, rx.Function):
            continue
        if isinstance(e, rx.Call):
            if not (own_name is not None and e.op is own_name) and is_impure_call(e):
                return e
            stack.extend(reversed(e.args))
            stack.append(e.op)
        elif isinstance(e, rx.Tuple):
            stack.extend(reversed(e.fields))
        elif isinstance(e, rx.TupleGetItem):
            stack.append(e.tuple_value)
        elif isinstance(e, rx.If):
            stack.append(e.false_branch)
            stack.append(e.true_branch)
            stack.append(e.cond)
        elif isinstance(e, rx.SeqExpr):
            stack.append(e.body)
            for b in reversed(e.blocks):
                for binding in reversed(b.bindings):
                    if isinstance(binding.value, rx.Expr):
                        stack.append(binding.value)
    return None


def contains_impure_call(expr: rx.Expr, own_name: Optional[rx.Expr] = None) -> bool:
    return find_impure_call(expr, own_name) is not None


def prim_func_is_pure(func: tir.PrimFunc) -> bool:
    """TVM's ``IsPureFunction`` (EXPR.PURITY.3): no store outside flat ``AllocBuffer`` buffers and
    no side-effecting intrinsic call. A PrimFunc without a body is impure."""
    if func.body is None:
        return False
    internal = set()
    impure = False

    def expr_impure(e: P.PrimExpr) -> bool:
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, P.PrimCall) and _intrinsic_name(x.op) in IMPURE_TIR_INTRINSICS:
                return True
            stack.extend(P.children(x))
        return False

    def visit(s: tir.Stmt) -> None:
        nonlocal impure
        if impure:
            return
        if isinstance(s, tir.AllocBuffer):
            internal.add(s.buffer.data)
        for e in stmt_prim_exprs(s):
            if e is not None and expr_impure(e):
                impure = True
                return
        if isinstance(s, tir.BufferStore) and s.buffer.data not in internal:
            impure = True
            return
        for c in stmt_children(s):
            visit(c)

    visit(func.body)
    return not impure


__all__ = [
    "IMPURE_TIR_INTRINSICS", "callee_struct_info", "is_impure_call", "find_impure_call",
    "contains_impure_call", "prim_func_is_pure",
]

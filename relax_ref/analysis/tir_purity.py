"""Purity of PrimFuncs (spec rule EXPR.PURITY.3), as TVM 0.25's ``IsPureFunction`` decides it: a
PrimFunc is pure when it stores only into buffers it allocates with a flat ``AllocBuffer`` and calls no
side-effecting intrinsic. Kernels that write their output buffers are therefore impure, so calling a
PrimFunc directly is impure."""

from __future__ import annotations

from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import stmt_children, stmt_prim_exprs

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


__all__ = ["IMPURE_TIR_INTRINSICS", "prim_func_is_pure"]

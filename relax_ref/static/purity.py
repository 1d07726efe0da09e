"""Purity of calls and functions (spec rules EXPR.PURITY.*), as TVM 0.25 decides it.

* A call is impure when its callee is an operator registered impure, or when the callee's
  ``FuncStructInfo`` has ``purity=False`` (EXPR.PURITY.1). ``ExternFunc`` callees are opaque and
  impure; ``call_pure_packed`` is the pure wrapper.
* :func:`find_impure_call` looks through an expression without entering nested function literals,
  optionally ignoring recursive calls of ``own_name`` (EXPR.PURITY.2).
* PrimFuncs: :mod:`relax_ref.analysis.tir_purity` (EXPR.PURITY.3).
"""

from __future__ import annotations

from typing import Optional

from ..analysis.signatures import extern_func_struct_info
from ..errors import StructInfoError
from ..ir import expr as rx
from ..ir.struct_info import FuncStructInfo
from ..ops import registry


def callee_struct_info(callee: rx.Expr) -> Optional[FuncStructInfo]:
    """The FuncStructInfo of a (normalized) callee; ``ExternFunc`` gets its default opaque one."""
    si = callee.struct_info
    if si is None and isinstance(callee, rx.ExternFunc):
        si = extern_func_struct_info()
    return si if isinstance(si, FuncStructInfo) else None


def is_impure_call(call: rx.Call) -> bool:
    """Whether ``call`` is impure (EXPR.PURITY.1)."""
    if isinstance(call.op, rx.Op):
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


__all__ = ["callee_struct_info", "is_impure_call", "find_impure_call", "contains_impure_call"]

"""EliminateCommonSubexpr: bind a repeated value once (PASS.CSE.*).

Follows TVM 0.25 (``src/relax/transform/eliminate_common_subexpr.cc``). Per Relax function, bindings
are visited in order; a binding whose value (after earlier replacements) is structurally equal to the
value of an earlier binding in scope -- and, for a ``MatchCast``, casts to the same struct info --
becomes the trivial binding ``var = earlier_var``, and later uses of ``var`` use ``earlier_var``
(PASS.CSE.1). Values that are not calls are left alone with ``call_only``; impure values and allocator
calls are never merged (PASS.CSE.2). Scopes (PASS.CSE.3): a binding made in a branch of an ``If`` is
not seen outside it; a ``DataflowVar`` is not reused after its dataflow block, and the replacements
made inside a dataflow block end with it; a nested function is processed on its own.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..static.purity import contains_impure_call
from ..analysis.structural_equal import structural_equal, structural_hash
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .pass_infra import FunctionPass
from .utils import op_name

#: Operators TVM marks as allocators (``TAllocator``)
ALLOCATORS = frozenset({"relax.builtin.alloc_tensor", "relax.memory.alloc_storage", "relax.memory.alloc_tensor",
                        "relax.vm.alloc_storage", "relax.vm.alloc_tensor"})


class _Table:
    """Values seen so far -> the variables bound to them (first one first)."""

    def __init__(self) -> None:
        self.buckets: Dict[int, List[Tuple[rx.Expr, Optional[object], List[rx.Var]]]] = {}

    def copy(self) -> "_Table":
        t = _Table()
        t.buckets = {h: [(v, c, list(vs)) for v, c, vs in entries] for h, entries in self.buckets.items()}
        return t

    def find(self, value: rx.Expr, cast) -> Tuple[int, Optional[list]]:
        h = hash((structural_hash(value), None if cast is None else structural_hash(cast)))
        for v, c, vars_ in self.buckets.get(h, ()):
            if structural_equal(v, value) and ((c is None) == (cast is None)) and \
                    (c is None or structural_equal(c, cast)):
                return h, vars_
        return h, None

    def add(self, h: int, value: rx.Expr, cast, var: rx.Var) -> None:
        self.buckets.setdefault(h, []).append((value, cast, [var]))

    def drop_dataflow_vars(self) -> None:
        for entries in self.buckets.values():
            for _, _, vars_ in entries:
                vars_[:] = [v for v in vars_ if not isinstance(v, rx.DataflowVar)]


class _CSE(ExprMutator):
    def __init__(self, call_only: bool) -> None:
        super().__init__()
        self.call_only = call_only
        self.table = _Table()

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return super().visit_block(b)
        saved = dict(self.var_remap)
        out = super().visit_block(b)
        self.table.drop_dataflow_vars()
        self.var_remap = saved
        return out

    def visit_binding(self, b: rx.Binding):
        value = self.visit_expr(b.value)
        cast = b.struct_info if isinstance(b, rx.MatchCast) else None
        if isinstance(b, rx.MatchCast):
            out = b if value is b.value else rx.MatchCast(b.var, value, b.struct_info, span=b.span)
        else:
            out = b if value is b.value else rx.VarBinding(b.var, value, span=b.span)
        if self.call_only and not isinstance(value, rx.Call):
            return out
        if contains_impure_call(value) or op_name(value) in ALLOCATORS:
            return out
        h, found = self.table.find(value, cast)
        if found:
            self.var_remap[b.var] = found[0]
            found.append(b.var)
            return rx.VarBinding(b.var, found[0], span=b.span)
        if found is not None:     # the earlier bindings were dataflow variables of a finished block
            found.append(b.var)
        else:
            self.table.add(h, value, cast, b.var)
        return out

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        if self.table.buckets or self.var_remap:
            return _CSE(self.call_only).visit_expr(f)
        return self.generic_mutate_expr(f)

    def _inner(self, e: rx.Expr) -> rx.Expr:
        saved_remap, saved_table = dict(self.var_remap), self.table.copy()
        out = self.visit_expr(e)
        self.var_remap, self.table = saved_remap, saved_table
        return out

    def visit_If(self, e: rx.If) -> rx.Expr:
        c = self.visit_expr(e.cond)
        t = self._inner(e.true_branch)
        f = self._inner(e.false_branch)
        if c is e.cond and t is e.true_branch and f is e.false_branch:
            return e
        return rx.If(c, t, f, span=e.span)


def eliminate_common_subexpr(func: rx.Function, call_only: bool = False) -> rx.Function:
    """(PASS.CSE.1-3) on one function (not re-normalized)."""
    return _CSE(call_only).visit_expr(func)


class EliminateCommonSubexpr(FunctionPass):
    """(PASS.CSE.1-3) ``EliminateCommonSubexpr(call_only=False)``."""

    name = "EliminateCommonSubexpr"
    opt_level = 1

    def __init__(self, call_only: bool = False) -> None:
        self.call_only = bool(call_only)

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return eliminate_common_subexpr(func, self.call_only)


__all__ = ["EliminateCommonSubexpr", "eliminate_common_subexpr", "ALLOCATORS"]

"""ToNonDataflow: dataflow blocks become binding blocks (PASS.TONONDF.*).

Follows TVM 0.25 (``src/relax/transform/to_non_dataflow.cc``): in every Relax function (nested
functions included) each ``DataflowBlock`` becomes a ``BindingBlock`` with the same bindings, and
each ``DataflowVar`` is replaced by a ``Var`` of the same name and struct info (PASS.TONONDF.1).
"""

from __future__ import annotations

from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .pass_infra import FunctionPass


class _ToNonDataflow(ExprMutator):
    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        new = []
        for x in b.bindings:
            value = self.visit_expr(x.value)
            var = x.var
            if isinstance(var, rx.DataflowVar):
                var = rx.Var(name_hint=var.name_hint, struct_info=var.struct_info, span=var.span)
                self.var_remap[x.var] = var
            if value is x.value and var is x.var:
                new.append(x)
            elif isinstance(x, rx.MatchCast):
                new.append(rx.MatchCast(var, value, x.struct_info, span=x.span))
            else:
                new.append(rx.VarBinding(var, value, span=x.span))
        if isinstance(b, rx.DataflowBlock) or any(a is not c for a, c in zip(new, b.bindings)):
            return rx.BindingBlock(tuple(new), span=b.span)
        return b


def to_non_dataflow(func: rx.Function) -> rx.Function:
    """(PASS.TONONDF.1) ``func`` without dataflow blocks (not re-normalized)."""
    return _ToNonDataflow().visit_expr(func)


class ToNonDataflow(FunctionPass):
    """(PASS.TONONDF.1)"""

    name = "ToNonDataflow"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return to_non_dataflow(func)


__all__ = ["ToNonDataflow", "to_non_dataflow"]

"""RemovePurityChecking: force purity and unwrap pure wrappers (PASS.PURITY.*).

Follows TVM 0.25 (``src/relax/transform/remove_purity_checking.cc``), in every Relax function
(nested functions included):

* a function declared pure gets the attribute ``relax.force_pure: True`` (PASS.PURITY.1);
* ``R.call_pure_packed(f, args...)`` becomes ``f(args...)`` (same attributes and ``sinfo_args``),
  ``R.call_inplace_packed(f, args...)`` becomes ``f(args...)`` (attributes dropped), and
  ``R.invoke_pure_closure`` becomes ``R.invoke_closure`` (PASS.PURITY.2).
"""

from __future__ import annotations

from ..ir import expr as rx
from ..ir.attrs import Attrs
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .pass_infra import FunctionPass


class _PurityRemover(ExprMutator):
    def visit_Call(self, call: rx.Call) -> rx.Expr:
        c = self.generic_mutate_expr(call)
        if isinstance(c.op, rx.Op):
            name = c.op.name
            if name == "relax.call_pure_packed":
                return rx.Call(c.args[0], c.args[1:], c.attrs, c.sinfo_args, span=c.span)
            if name == "relax.call_inplace_packed":
                return rx.Call(c.args[0], c.args[1:], Attrs(), c.sinfo_args, span=c.span)
            if name == "relax.invoke_pure_closure":
                return rx.Call(rx.Op("relax.invoke_closure"), c.args, c.attrs, c.sinfo_args, span=c.span)
        return c

    def visit_Function(self, f: rx.Function) -> rx.Expr:
        body = self.visit_expr(f.body)
        attrs = f.attrs
        if f.is_pure and not attrs.get("relax.force_pure"):
            attrs = Attrs({**dict(attrs.items()), "relax.force_pure": True})
        if body is f.body and attrs is f.attrs:
            return f
        return rx.Function(f.params, body, f.ret_struct_info, f.is_pure, attrs=attrs, span=f.span)


def remove_purity_checking(func: rx.Function) -> rx.Function:
    """(PASS.PURITY.1-2) (not re-normalized)"""
    return _PurityRemover().visit_expr(func)


class RemovePurityChecking(FunctionPass):
    """(PASS.PURITY.*)"""

    name = "RemovePurityChecking"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return remove_purity_checking(func)


__all__ = ["RemovePurityChecking", "remove_purity_checking"]

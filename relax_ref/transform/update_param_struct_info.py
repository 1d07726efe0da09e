"""UpdateParamStructInfo: give function parameters new struct info (PASS.PARAMSINFO.*).

Follows TVM 0.25 (``src/relax/transform/update_param_struct_info.cc``): for every parameter of every
Relax function (nested functions included), ``sinfo_func(param)`` returns the parameter's new struct
info or None to keep it (PASS.PARAMSINFO.1). A changed parameter is a new variable of the same name
and kind; the bindings that use it are re-inferred from their new values (a binding whose value's
struct info changes gets a new variable with that struct info, as TVM's mutator re-emits it), and so
is a function's return struct info when its body changes. This may change a public function's
signature: the pass exempts itself from PASS.PRESERVE.2 by its nature (PASS.PARAMSINFO.2), and it is
the caller's promise that the new struct info holds for the values the function receives.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo
from .pass_infra import Pass, rewrite_functions


class _Updater:
    def __init__(self, fn: Callable[[rx.Var], Optional[StructInfo]]) -> None:
        self.fn = fn

    def function(self, f: rx.Function) -> rx.Function:
        from .bind import bind

        var_map = {}
        params = []
        for p in f.params:
            si = self.fn(p)
            if si is None:
                params.append(p)
                continue
            if not isinstance(si, StructInfo):
                raise RelaxError(f"UpdateParamStructInfo: the function returned {type(si).__name__} for "
                                 f"parameter '{p.name_hint}', not struct info or None")
            q = type(p)(name_hint=p.name_hint, struct_info=si, span=p.span)
            var_map[p] = q
            params.append(q)
        body = self._nested(f.body)
        if not var_map and body is f.body:
            return f
        g = rx.Function(tuple(params) + tuple(f.params), body, f.ret_struct_info, f.is_pure, attrs=f.attrs,
                        span=f.span)
        # bind the old parameters to the new ones (they are dropped from the list), then re-infer
        out = bind(g, var_map)
        return rx.Function(out.params, out.body, None if var_map else f.ret_struct_info, f.is_pure,
                           attrs=f.attrs, span=f.span)

    def _nested(self, e: rx.Expr) -> rx.Expr:
        from ..ir.functor import ExprMutator

        upd = self

        class _M(ExprMutator):
            def visit_Function(self, f):
                return upd.function(f)

        return _M().visit_expr(e)


class UpdateParamStructInfo(Pass):
    """(PASS.PARAMSINFO.1-2) ``UpdateParamStructInfo(sinfo_func)``."""

    name = "UpdateParamStructInfo"
    opt_level = 1

    def __init__(self, sinfo_func: Callable[[rx.Var], Optional[StructInfo]]) -> None:
        if not callable(sinfo_func):
            raise RelaxError("UpdateParamStructInfo takes a function from a parameter to struct info or None")
        self.sinfo_func = sinfo_func

    def transform(self, mod: IRModule) -> IRModule:
        upd = _Updater(self.sinfo_func)
        return rewrite_functions(mod, lambda _gv, f: upd.function(f))


__all__ = ["UpdateParamStructInfo"]

"""ComputePrimValue: symbolic prim values computed by host PrimFuncs (PASS.PRIMVALUE.*).

Follows TVM 0.25 (``src/relax/transform/compute_prim_value.cc``):

* (PASS.PRIMVALUE.1) Every ``R.prim_value(e)`` in a Relax function whose ``e`` is neither an integer
  immediate nor a variable becomes a call ``compute_symbolic_expr(R.prim_value(v1), ...)`` of a new
  private PrimFunc whose scalar parameters are the variables of ``e`` in order of first occurrence
  (fresh variables of the same names and dtypes), which returns ``e`` (``T.ret``, return type
  ``e.dtype``) and has the attributes ``tir.is_host_func`` and ``s_tir``. A new PrimFunc structurally
  equal to one added before is not added again (its first name is used); names are
  ``compute_symbolic_expr``, ``compute_symbolic_expr1``, ... A float immediate is computed too.
* (PASS.PRIMVALUE.2) The rewritten call is bound where the prim value was a leaf (an ``If`` condition
  gets a binding ``R.Prim(dtype)`` before the ``If``); the module is otherwise unchanged, and unchanged
  when no prim value is rewritten.
* (PASS.PRIMVALUE.3) Deviation: an operator argument whose operator accepts only a prim value literal
  there (``R.clip``'s bounds, ...) is left alone; TVM 0.25 rewrites it too and leaves a call its own
  struct-info inference rejects.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo
from .pass_infra import Pass, map_functions
from .utils import BindingMutator, fresh_name, renormalize

HINT = "compute_symbolic_expr"


def compute_func(value: P.PrimExpr) -> Tuple[tir.PrimFunc, List[P.PrimVar]]:
    """The host PrimFunc returning ``value`` and the variables its arguments are (PASS.PRIMVALUE.1)."""
    free = list(prim_vars_in(value))
    params = tuple(P.PrimVar(v.name, v.dtype) for v in free)
    body = substitute_prim(value, dict(zip(free, params)))
    stmt = tir.Evaluate(P.PrimCall(value.dtype, "tir.ret", (body,)))
    func = tir.PrimFunc(params, stmt, (), value.dtype, attrs=Attrs({"tir.is_host_func": True, "s_tir": True}))
    return func, free


class _Injector(BindingMutator):
    def __init__(self, mod: IRModule) -> None:
        super().__init__(mod)
        self.names = set(mod)
        self.added: List[Tuple[rx.GlobalVar, tir.PrimFunc]] = []
        self.cache: Dict[int, rx.GlobalVar] = {}

    def _global(self, func: tir.PrimFunc) -> rx.GlobalVar:
        from ..analysis.structural_equal import structural_equal

        for gv, f in self.added:
            if structural_equal(f, func):
                return gv
        name = fresh_name(self.names, HINT)
        self.names.add(name)
        gv = rx.GlobalVar(name)
        self.added.append((gv, func))
        return gv

    def visit_PrimValue(self, e: rx.PrimValue) -> rx.Expr:
        if isinstance(e.value, (P.IntImm, P.PrimVar)):
            return e
        func, free = compute_func(e.value)
        return rx.Call(self._global(func), tuple(rx.PrimValue(v) for v in free))

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        if not isinstance(c.op, rx.Op):
            return self.generic_mutate_expr(c)
        # (PASS.PRIMVALUE.3) an operator argument that must be a prim value literal stays one
        keep = [i for i, a in enumerate(c.args) if isinstance(a, rx.PrimValue)
                and not isinstance(a.value, (P.IntImm, P.PrimVar)) and not self._accepts_var(c, i)]
        if not keep:
            return self.generic_mutate_expr(c)
        args = tuple(a if i in keep else self.visit_expr(a) for i, a in enumerate(c.args))
        if all(x is y for x, y in zip(args, c.args)):
            return c
        return rx.Call(c.op, args, c.attrs, c.sinfo_args, span=c.span)

    def _accepts_var(self, c: rx.Call, i: int) -> bool:
        from ..errors import RelaxError

        probe = rx.Var("probe", struct_info=PrimStructInfo(c.args[i].value.dtype))
        args = tuple(probe if k == i else a for k, a in enumerate(c.args))
        try:
            self.value_struct_info(rx.Call(c.op, args, c.attrs, c.sinfo_args))
        except RelaxError:
            return False
        return True


class ComputePrimValue(Pass):
    """(PASS.PRIMVALUE.1-2)"""

    name = "ComputePrimValue"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        m = _Injector(mod)
        items = map_functions(mod, lambda _gv, f: m.visit_expr(f))
        if items is None:
            return mod
        for gv, f in m.added:
            items[gv] = f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["ComputePrimValue", "compute_func"]

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
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.module import IRModule
from .pass_infra import Pass
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


class ComputePrimValue(Pass):
    """(PASS.PRIMVALUE.1-2)"""

    name = "ComputePrimValue"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        m = _Injector(mod)
        items, changed = {}, False
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function):
                nf = m.visit_expr(f)
                changed |= nf is not f
                items[gv] = nf
            else:
                items[gv] = f
        if not changed:
            return mod
        for gv, f in m.added:
            items[gv] = f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["ComputePrimValue", "compute_func"]

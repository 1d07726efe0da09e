"""DeadCodeElimination: unused functions and unused bindings (PASS.DCE.*).

Follows TVM 0.25 (``src/relax/transform/dead_code_elimination.cc``, ``src/relax/ir/binding_rewrite.cc``
``RemoveAllUnused``, ``src/relax/analysis/udchain.cc``).

1. **Entry functions** (PASS.DCE.1): the names given to the pass, every ``ExternFunc`` and every
   externally linked function (one with a ``global_symbol`` attribute).
2. **Unreachable functions** (PASS.DCE.2): functions not reachable from an entry through
   ``GlobalVar`` references (any reference counts, ``call_tir`` callees included) are removed --
   unless some reachable reference names a function missing from the module, in which case nothing
   is removed.
3. **Unused bindings** (PASS.DCE.3), per Relax function (:func:`remove_all_unused`): a variable is
   *used* by the binding whose value mentions it; variables mentioned outside any ``VarBinding``
   value -- a ``SeqExpr`` body (the function result), a ``MatchCast`` value, anything inside a nested
   function -- are *outputs*, and so is every variable whose bound value contains an impure call
   (not looking into nested functions). Unused variables are found iteratively (a variable used
   only by unused variables is unused). Every ``VarBinding`` of an unused variable is removed, in
   dataflow blocks and elsewhere, nested functions and branches included. ``MatchCast`` bindings are
   never removed (they may define symbolic variables and check values).
4. Step 2 is repeated, since removed bindings may have been the last references to a function
   (PASS.DCE.4). Empty blocks disappear in the re-normalization.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set

from ..static.purity import contains_impure_call
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator, expr_children
from ..ir.module import IRModule
from ..ir.struct_info import FuncStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .pass_infra import Pass
from .utils import renormalize


# ---------------------------------------------------------------------------------------------------
# Unused functions (PASS.DCE.1-2)
# ---------------------------------------------------------------------------------------------------


def _global_refs(e) -> List[str]:
    from ..analysis.free_vars import all_global_vars

    return [g.name_hint for g in all_global_vars(e)]


def entry_function_names(mod: IRModule, extra: Iterable[str] = ()) -> Set[str]:
    """(PASS.DCE.1) Named entries plus ExternFuncs and functions with a ``global_symbol``."""
    out = set()
    for name in extra:
        if name not in mod:
            raise RelaxError(f"DeadCodeElimination: entry function '{name}' is not in the module")
        out.add(name)
    for gv, f in mod.functions_items():
        if isinstance(f, rx.ExternFunc) or f.attrs.get("global_symbol") is not None:
            out.add(gv.name_hint)
    return out


def remove_unused_functions(mod: IRModule, entries: Set[str]) -> IRModule:
    """(PASS.DCE.2) Drop the functions not reachable from ``entries``."""
    call_map: Dict[str, List[str]] = {}
    for gv, f in mod.functions_items():
        call_map[gv.name_hint] = _global_refs(f) if isinstance(f, rx.Function) else []
    reachable = set(entries)
    todo = list(entries)
    while todo:
        name = todo.pop()
        if name not in call_map:
            return mod  # a reference to a function outside the module: keep everything
        for callee in call_map[name]:
            if callee not in reachable:
                reachable.add(callee)
                todo.append(callee)
    dead = [n for n in mod if n not in reachable]
    if not dead:
        return mod
    items = {gv: f for gv, f in mod.functions_items() if gv.name_hint in reachable}
    return IRModule(items, mod.attrs, mod.global_infos)


# ---------------------------------------------------------------------------------------------------
# Unused bindings (PASS.DCE.3)
# ---------------------------------------------------------------------------------------------------


def _shape_vars(s: Optional[StructInfo], out: List[rx.Var]) -> None:
    if isinstance(s, TensorStructInfo) and isinstance(s.shape, rx.Var):
        out.append(s.shape)
    elif isinstance(s, TupleStructInfo):
        for f in s.fields:
            _shape_vars(f, out)
    elif isinstance(s, FuncStructInfo):
        for p in s.params or ():
            _shape_vars(p, out)
        _shape_vars(s.ret, out)


class _UseDef:
    """TVM's ``UDChain``: users of each variable, bound values and outputs."""

    def __init__(self) -> None:
        self.users: Dict[rx.Var, Dict[rx.Var, None]] = {}
        self.bound: Dict[rx.Var, rx.Expr] = {}
        self.outputs: Dict[rx.Var, None] = {}
        self.cur: Optional[rx.Var] = None

    def define(self, v: rx.Var) -> None:
        self.users.setdefault(v, {})

    def use(self, v: rx.Var) -> None:
        if self.cur is not None:
            self.users.setdefault(v, {})[self.cur] = None
        else:
            self.outputs[v] = None

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Var):
            self.use(e)
        elif isinstance(e, (rx.Tuple, rx.TupleGetItem, rx.Call, rx.If)):
            for c in expr_children(e):
                self.expr(c)
            if isinstance(e, rx.Call):
                vs: List[rx.Var] = []
                for s in e.sinfo_args:
                    _shape_vars(s, vs)
                for v in vs:
                    self.use(v)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for binding in b.bindings:
                    self.binding(binding)
            self.expr(e.body)
        elif isinstance(e, rx.Function):
            self.cur = None
            for p in e.params:
                self.define(p)
            self.expr(e.body)

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.VarBinding):
            self.bound[b.var] = b.value
            saved = self.cur
            self.cur = b.var
            if isinstance(b.value, rx.Function):
                self.define(b.var)  # a local function may call itself
            self.expr(b.value)
            self.define(b.var)
            self.cur = saved
        else:
            self.expr(b.value)
            vs: List[rx.Var] = []
            _shape_vars(b.struct_info, vs)
            for v in vs:
                self.use(v)
            self.define(b.var)


def unused_vars(func: rx.Function) -> Set[rx.Var]:
    """(PASS.DCE.3) The variables of ``func`` whose bindings may be removed."""
    ud = _UseDef()
    ud.expr(func)
    exposed = set(ud.outputs)
    for v, value in ud.bound.items():
        if contains_impure_call(value):
            exposed.add(v)
    users = {v: dict(u) for v, u in ud.users.items()}
    unused: Set[rx.Var] = set()
    while True:
        new = [v for v, u in users.items() if not u and v not in exposed and v not in unused]
        if not new:
            return unused
        for v in new:
            unused.add(v)
            users.pop(v, None)
        for u in users.values():
            for v in new:
                u.pop(v, None)


class _Remover(ExprMutator):
    def __init__(self, unused: Set[rx.Var]) -> None:
        super().__init__()
        self.unused = unused

    def visit_binding(self, b: rx.Binding):
        if isinstance(b, rx.VarBinding) and b.var in self.unused:
            return None
        return super().visit_binding(b)


def remove_all_unused(func: rx.Function) -> rx.Function:
    """(PASS.DCE.3) ``func`` without its unused ``VarBinding``s (not re-normalized)."""
    unused = unused_vars(func)
    if not unused:
        return func
    return _Remover(unused).visit_expr(func)


# ---------------------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------------------


def dead_code_elimination(mod: IRModule, entry_functions: Iterable[str] = ()) -> IRModule:
    """(PASS.DCE.1-4)"""
    entries = entry_function_names(mod, entry_functions)
    mod = remove_unused_functions(mod, entries)
    replace = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function):
            nf = remove_all_unused(f)
            if nf is not f:
                replace[gv] = nf
    if replace:
        mod = renormalize(IRModule({gv: replace.get(gv, f) for gv, f in mod.functions_items()},
                                   mod.attrs, mod.global_infos))
    return remove_unused_functions(mod, entries)


class DeadCodeElimination(Pass):
    """``DeadCodeElimination(entry_functions=None)`` (PASS.DCE.*)."""

    name = "DeadCodeElimination"
    opt_level = 1

    def __init__(self, entry_functions: Optional[Iterable[str]] = None) -> None:
        self.entry_functions = tuple(entry_functions or ())

    def transform(self, mod: IRModule) -> IRModule:
        return dead_code_elimination(mod, self.entry_functions)


__all__ = ["DeadCodeElimination", "dead_code_elimination", "remove_all_unused", "unused_vars",
           "remove_unused_functions", "entry_function_names"]

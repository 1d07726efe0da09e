"""Helpers shared by the passes: re-normalization, module surgery, fresh names, function copies.

* :func:`renormalize` -- TVM's plain normalizer over a whole module (``script_annotations=False``:
  variables keep the struct info they were built with; only variables built without struct info get
  their value's) (PASS.UTIL.1).
* :func:`update_module` -- a new module with functions replaced, removed or appended (order kept).
* :func:`fresh_name` -- TVM's name supply: ``hint``, ``hint1``, ``hint2``, ...
* :func:`copy_function` -- a copy of a Relax function with fresh Relax variables and fresh symbolic
  variables for those it defines (TVM's ``CopyWithNewVars`` / ``SymbolicVarRenewMutator``); struct
  info is carried over with the symbolic variables substituted, so nothing is re-inferred
  (PASS.UTIL.2).
* :class:`BindingMutator` -- an ExprMutator that re-emits changed bindings like TVM's (PASS.UTIL.3).
* :func:`op_name` / :func:`is_op` -- the operator called by a call.
"""

from __future__ import annotations

from typing import Dict, Iterable, Mapping, Optional, Sequence, Set, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import ExprMutator, substitute_prim, substitute_struct_info
from ..ir.module import FuncLike, IRModule
from ..ir.struct_info import StructInfo


def renormalize(mod: IRModule) -> IRModule:
    """(PASS.UTIL.1) Normalize every Relax function with the plain normalizer. A GlobalVar whose
    struct info no longer matches its function's signature (a pass changed the parameters) is
    replaced by a fresh one first, so that no call is checked against the old signature."""
    from ..static.normalize import normalize_module

    return normalize_module(_refresh_global_vars(mod), script_annotations=False)


def _refresh_global_vars(mod: IRModule) -> IRModule:
    from ..analysis.signatures import global_struct_info

    stale: Dict[str, rx.GlobalVar] = {}
    for gv, f in mod.functions_items():
        if gv.struct_info is not None and gv.struct_info != global_struct_info(f):
            stale[gv.name_hint] = rx.GlobalVar(gv.name_hint, span=gv.span)
    if not stale:
        return mod

    class _Remap(ExprMutator):
        def visit_GlobalVar(self, g: rx.GlobalVar) -> rx.Expr:
            return stale.get(g.name_hint, g)

    items: Dict[rx.GlobalVar, FuncLike] = {}
    for gv, f in mod.functions_items():
        key = stale.get(gv.name_hint, gv)
        items[key] = _Remap().visit_expr(f) if isinstance(f, rx.Function) else f
    return IRModule(items, mod.attrs, mod.global_infos)


def update_module(mod: IRModule, replace: Optional[Mapping[str, FuncLike]] = None,
                  remove: Iterable[str] = (), append: Sequence[Tuple[str, FuncLike]] = ()) -> IRModule:
    """Functions of ``mod`` in order, with ``replace`` applied (same GlobalVar objects), ``remove``
    dropped and ``append`` added at the end under fresh GlobalVars."""
    replace = dict(replace or {})
    removed = set(remove)
    items: Dict[rx.GlobalVar, FuncLike] = {}
    for gv, f in mod.functions_items():
        if gv.name_hint in removed:
            continue
        items[gv] = replace.get(gv.name_hint, f)
    for name, f in append:
        items[rx.GlobalVar(name)] = f
    return IRModule(items, mod.attrs, mod.global_infos)


def fresh_name(taken: Iterable[str], hint: str) -> str:
    """``hint`` when unused, else ``hint1``, ``hint2``, ..."""
    taken = set(taken)
    if hint not in taken:
        return hint
    k = 1
    while f"{hint}{k}" in taken:
        k += 1
    return f"{hint}{k}"


def op_name(e: rx.Expr) -> Optional[str]:
    """The operator name of a call of an ``Op`` (``"relax.call_tir"``), else None."""
    if isinstance(e, rx.Call) and isinstance(e.op, rx.Op):
        return e.op.name
    return None


def is_op(e: rx.Expr, *names: str) -> bool:
    return op_name(e) in names


def op_call(name: str, *args: rx.Expr, span=None, **attrs) -> rx.Call:
    """A call of operator ``name`` built through the registry (its script-level signature)."""
    from ..ops import registry

    return registry.build_call(registry.get(name), list(args), dict(attrs), span)


def is_tensor_sinfo(s: Optional[StructInfo]) -> bool:
    from ..ir.struct_info import TensorStructInfo

    return isinstance(s, TensorStructInfo)


# ---------------------------------------------------------------------------------------------------
# A mutator re-emitting bindings like TVM's ExprMutator
# ---------------------------------------------------------------------------------------------------


class DropBindings(ExprMutator):
    """Removes the bindings of the variables in ``drop`` (their uses must be gone too)."""

    def __init__(self, drop: Set[rx.Var]) -> None:
        super().__init__()
        self.drop = drop

    def visit_binding(self, b):
        if b.var in self.drop:
            return None
        return super().visit_binding(b)


class BindingMutator(ExprMutator):
    """An :class:`~relax_ref.ir.functor.ExprMutator` whose rebuilt ``VarBinding``s follow TVM's
    ``ExprMutator::ReEmitBinding`` (PASS.UTIL.3): when the bound value changed, the variable is
    recreated (same kind and name) with the new value's struct info -- inferred right away when the
    value's arguments carry struct info (so later rewrites in the same pass see it), else left to
    the re-normalization -- and later uses are remapped. ``MatchCast`` variables keep theirs; a
    local function keeps its variable's declared struct info (it may be recursive)."""

    def __init__(self, module: Optional[IRModule] = None) -> None:
        super().__init__()
        self.module = module
        self._normalizer = None

    def value_struct_info(self, value: rx.Expr) -> Optional[StructInfo]:
        """The struct info ``value`` will have after normalization, when it can be computed now."""
        from ..static.normalize import Normalizer, leaf_struct_info

        if value.struct_info is not None:
            return value.struct_info
        if isinstance(value, (rx.Var, rx.GlobalVar, rx.Op)):
            return None
        si = leaf_struct_info(value)
        if si is not None:
            return si
        if not _children_typed(value):
            return None
        if self._normalizer is None:
            self._normalizer = Normalizer(self.module, script_annotations=False)
        n = self._normalizer
        n.begin_binding_block()
        try:
            out = n.normalize_expr(value)
        finally:
            emitted = n.end_block()
        return out.struct_info if not emitted.bindings else None

    def visit_binding(self, b: rx.Binding):
        return self.rebind(b, self.visit_expr(b.value))

    def rebind(self, b: rx.Binding, value: rx.Expr, var: Optional[rx.Var] = None) -> rx.Binding:
        var = b.var if var is None else var
        if value is b.value and var is b.var:
            return b
        if isinstance(b, rx.MatchCast):
            if var is not b.var:
                self.var_remap[b.var] = var
            return rx.MatchCast(var, value, b.struct_info, span=b.span)
        if value is not b.value:
            if isinstance(value, rx.Function):
                si = var.struct_info
            else:
                si = self.value_struct_info(value)
            if si is None or si != var.struct_info:
                nv = type(var)(name_hint=var.name_hint, struct_info=si, span=var.span)
                self.var_remap[b.var] = nv
                if var is not b.var:
                    self.var_remap[var] = nv
                var = nv
            elif var is not b.var:
                self.var_remap[b.var] = var
        elif var is not b.var:
            self.var_remap[b.var] = var
        return rx.VarBinding(var, value, span=b.span)


def _children_typed(e: rx.Expr) -> bool:
    """Whether every direct operand of ``e`` already has struct info (GlobalVar callees too)."""
    if isinstance(e, rx.Call):
        parts = (e.op,) + tuple(e.args)
    elif isinstance(e, rx.Tuple):
        parts = e.fields
    elif isinstance(e, rx.TupleGetItem):
        parts = (e.tuple_value,)
    else:
        return False
    for x in parts:
        if isinstance(x, rx.Op):
            continue
        if isinstance(x, rx.Tuple):
            if not _children_typed(x) and x.fields:
                return False
            continue
        if x.struct_info is None and not isinstance(x, (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm,
                                                          rx.DataTypeImm, rx.ExternFunc)):
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# Copying functions with fresh variables
# ---------------------------------------------------------------------------------------------------


def fresh_var(v: rx.Var, struct_info: Optional[StructInfo], var_map: Dict[rx.Var, rx.Expr]) -> rx.Var:
    """A new variable like ``v`` (same kind, name and span) with ``struct_info``, recorded as ``v``'s
    replacement in ``var_map``."""
    nv = type(v)(name_hint=v.name_hint, struct_info=struct_info, span=v.span)
    var_map[v] = nv
    return nv


class _Copier:
    """Rebuilds an expression with fresh Relax variables (every variable bound inside) and symbolic
    variables renamed through ``prim_map``; struct info is substituted, never re-inferred."""

    def __init__(self, prim_map: Dict[P.PrimVar, P.PrimExpr], var_map: Optional[Dict[rx.Var, rx.Expr]] = None):
        self.prim_map = prim_map
        self.var_map: Dict[rx.Var, rx.Expr] = dict(var_map or {})

    def si(self, s: Optional[StructInfo]) -> Optional[StructInfo]:
        if s is None:
            return None
        shape_map = {k: v for k, v in self.var_map.items() if isinstance(v, rx.Var)}
        return substitute_struct_info(s, self.prim_map, shape_map)

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        return substitute_prim(e, self.prim_map)

    def new_var(self, v: rx.Var) -> rx.Var:
        return fresh_var(v, self.si(v.struct_info), self.var_map)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.Var):
            return self.var_map.get(e, e)
        if isinstance(e, (rx.GlobalVar, rx.Op, rx.ExternFunc, rx.StringImm, rx.DataTypeImm, rx.Constant)):
            return e
        sinfo = self.si(e.struct_info)
        if isinstance(e, rx.ShapeExpr):
            return rx.ShapeExpr(tuple(self.prim(v) for v in e.values), struct_info=sinfo, span=e.span)
        if isinstance(e, rx.PrimValue):
            return rx.PrimValue(self.prim(e.value), struct_info=sinfo, span=e.span)
        if isinstance(e, rx.Tuple):
            return rx.Tuple(tuple(self.expr(f) for f in e.fields), struct_info=sinfo, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            return rx.TupleGetItem(self.expr(e.tuple_value), e.index, struct_info=sinfo, span=e.span)
        if isinstance(e, rx.Call):
            return rx.Call(self.expr(e.op), tuple(self.expr(a) for a in e.args), e.attrs,
                           tuple(self.si(s) for s in e.sinfo_args), struct_info=sinfo, span=e.span)
        if isinstance(e, rx.If):
            return rx.If(self.expr(e.cond), self.expr(e.true_branch), self.expr(e.false_branch),
                         struct_info=sinfo, span=e.span)
        if isinstance(e, rx.SeqExpr):
            blocks = tuple(self.block(b) for b in e.blocks)
            return rx.SeqExpr(blocks, self.expr(e.body), struct_info=self.si(e.struct_info), span=e.span)
        if isinstance(e, rx.Function):
            params = tuple(self.new_var(p) for p in e.params)
            body = self.expr(e.body)
            return rx.Function(params, body, self.si(e.ret_struct_info), e.is_pure, attrs=e.attrs,
                               struct_info=self.si(e.struct_info), span=e.span)
        raise TypeError(f"cannot copy {type(e).__name__}")

    def block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        for x in b.bindings:
            value = self.expr(x.value)
            if isinstance(x, rx.MatchCast):
                target = self.si(x.struct_info)
                out.append(rx.MatchCast(self.new_var(x.var), value, target, span=x.span))
            else:
                out.append(rx.VarBinding(self.new_var(x.var), value, span=x.span))
        return type(b)(tuple(out), span=b.span)


def copy_function(func: rx.Function, *, renew_symbolic: bool = True,
                  var_map: Optional[Dict[rx.Var, rx.Expr]] = None) -> rx.Function:
    """(PASS.UTIL.2) A copy of ``func`` with fresh variables. With ``renew_symbolic`` every symbolic
    variable defined in ``func`` (by parameter annotations or MatchCast) is replaced by a fresh one of
    the same name. ``var_map`` pre-maps free Relax variables."""
    prim_map: Dict[P.PrimVar, P.PrimExpr] = {}
    if renew_symbolic:
        from ..analysis.free_vars import defined_symbolic_vars

        for v in defined_symbolic_vars(func):
            prim_map[v] = P.PrimVar(v.name, v.dtype)
    return _Copier(prim_map, var_map).expr(func)


__all__ = ["BindingMutator", "DropBindings", "op_call", "renormalize", "update_module", "fresh_name", "fresh_var",
           "op_name", "is_op", "is_tensor_sinfo", "copy_function"]

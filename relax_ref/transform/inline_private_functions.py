"""InlinePrivateFunctions: calls of private Relax functions are replaced by their bodies (PASS.INLINE.*).

Follows TVM 0.25 (``src/relax/transform/inline_functions.cc``):

* (PASS.INLINE.1) The functions inlined are the private Relax functions (no ``global_symbol``) that are
  not recursive -- not on a cycle of the graph of references between the module's functions (a
  reference anywhere counts, in branches and local functions too). Each is removed from the module.
* (PASS.INLINE.2) In every other Relax function, a call ``f(a1, ..., an)`` of such a function is
  replaced by a copy of its body with fresh variables (PASS.UTIL.2), preceded by the bindings
  ``p1 = a1, ..., pn = an`` of new variables named like the parameters with the arguments' struct
  info; symbolic variables the parameters define are replaced by what the arguments' struct info
  gives for them. Calls inside the inlined body are inlined in turn.
* (PASS.INLINE.3) A function where something was inlined is then cleaned by ``CanonicalizeBindings``
  and the removal of unused bindings (PASS.DCE.3).

Where an argument's struct info does not give a value for a symbolic variable the callee's
parameters define (an argument of unknown shape), relax-ref binds that parameter with a
``MatchCast`` to its declared struct info, which defines the variable; TVM leaves it undefined.
A body inlined into a dataflow block has its bindings spliced into the block as dataflow bindings;
when one of them cannot be in a dataflow block, the enclosing block becomes an ordinary block
(PASS.INLINE.4).
"""

from __future__ import annotations

from typing import Dict, List, Set

from ..analysis.graph import strongly_connected_components
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .pass_infra import Pass
from .utils import copy_function, renormalize


def _references(f) -> Set[str]:
    from ..analysis.free_vars import all_global_vars

    if isinstance(f, rx.Function):
        return {g.name_hint for g in all_global_vars(f)}
    return set()


def recursive_functions(mod: IRModule) -> Set[str]:
    """Names of the functions on a cycle of the module's reference graph (Tarjan's components)."""
    graph = {gv.name_hint: _references(f) for gv, f in mod.functions_items()}
    out: Set[str] = set()
    for comp in strongly_connected_components(graph):
        if len(comp) > 1 or comp[0] in graph[comp[0]]:
            out.update(comp)
    return out


def _inlined_body(callee: rx.Function, args) -> rx.SeqExpr:
    from ..analysis.struct_info_ops import definable_sym_vars
    from .bind import bind, infer_symbolic_var_map

    func = copy_function(callee)
    var_map: Dict[rx.Var, rx.Expr] = {}
    bindings: List[rx.Binding] = []
    for p, a in zip(func.params, args):
        var_map[p] = rx.Var(name_hint=p.name_hint, struct_info=a.struct_info)
    sym_map = infer_symbolic_var_map(var_map)
    for p, a in zip(func.params, args):
        missing = [v for v in definable_sym_vars(p.struct_info) if v not in sym_map] if p.struct_info else []
        if missing:
            nv = rx.Var(name_hint=p.name_hint, struct_info=p.struct_info)
            var_map[p] = nv
            bindings.append(rx.MatchCast(nv, a, p.struct_info))
        else:
            bindings.append(rx.VarBinding(var_map[p], a))
    bound = bind(func, var_map, sym_map)
    body = bound.body
    blocks = (rx.BindingBlock(tuple(bindings)),) if bindings else ()
    if isinstance(body, rx.SeqExpr):
        return rx.SeqExpr(blocks + tuple(body.blocks), body.body)
    return rx.SeqExpr(blocks, body)


class _Inliner(ExprMutator):
    def __init__(self, callees: Dict[str, rx.Function]) -> None:
        super().__init__()
        self.callees = callees
        self.stack: List[str] = []

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        node = self.generic_mutate_expr(c)
        if isinstance(node.op, rx.GlobalVar) and node.op.name_hint in self.callees:
            name = node.op.name_hint
            callee = self.callees[name]
            if len(callee.params) != len(node.args):
                raise RelaxError(f"InlinePrivateFunctions: '{name}' takes {len(callee.params)} arguments, "
                                 f"the call passes {len(node.args)}", c.span)
            if name in self.stack:
                raise RelaxError(f"InlinePrivateFunctions: '{name}' is recursive", c.span)
            self.stack.append(name)
            try:
                return self.visit_expr(_inlined_body(callee, node.args))
            finally:
                self.stack.pop()
        return node

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        new = super().visit_block(b)
        if not isinstance(new, rx.DataflowBlock) or new is b:
            return new
        out: List[rx.Binding] = []
        for x in new.bindings:
            if isinstance(x, rx.VarBinding) and isinstance(x.value, rx.SeqExpr):
                spliced = _dataflow_splice(x.value)
                if spliced is None:          # PASS.INLINE.4: the block cannot stay a dataflow block
                    return _demote(new, self.var_remap)
                out.extend(spliced[0])
                out.append(rx.VarBinding(x.var, spliced[1], span=x.span))
            else:
                out.append(x)
        return rx.DataflowBlock(tuple(out), span=new.span)


def _dataflow_splice(seq: rx.SeqExpr):
    """The bindings and result of an inlined body as dataflow bindings (variables become
    DataflowVars), or None when one of them may not be in a dataflow block (an ``If``, a nested
    function or an impure value)."""
    from ..static.purity import contains_impure_call

    flat: List[rx.Binding] = []
    for blk in seq.blocks:
        for x in blk.bindings:
            if isinstance(x.value, (rx.If, rx.SeqExpr, rx.Function)) or contains_impure_call(x.value):
                return None
            flat.append(x)
    remap: Dict[rx.Var, rx.Var] = {}
    for x in flat:
        if not isinstance(x.var, rx.DataflowVar):
            remap[x.var] = rx.DataflowVar(name_hint=x.var.name_hint, struct_info=x.var.struct_info)
    m = ExprMutator()
    m.var_remap = dict(remap)
    out = []
    for x in flat:
        value = m.visit_expr(x.value)
        var = remap.get(x.var, x.var)
        out.append(rx.MatchCast(var, value, x.struct_info, span=x.span) if isinstance(x, rx.MatchCast)
                   else rx.VarBinding(var, value, span=x.span))
    return out, m.visit_expr(seq.body)


def _demote(block: rx.DataflowBlock, outer_remap: Dict[rx.Var, rx.Expr]) -> rx.BindingBlock:
    """The block as a non-dataflow block, its DataflowVars turned into Vars (later uses follow)."""
    remap: Dict[rx.Var, rx.Var] = {}
    for x in block.bindings:
        if isinstance(x.var, rx.DataflowVar):
            remap[x.var] = rx.Var(name_hint=x.var.name_hint, struct_info=x.var.struct_info)
    m = ExprMutator()
    m.var_remap = dict(remap)
    out = []
    for x in block.bindings:
        value = m.visit_expr(x.value)
        var = remap.get(x.var, x.var)
        out.append(rx.MatchCast(var, value, x.struct_info, span=x.span) if isinstance(x, rx.MatchCast)
                   else rx.VarBinding(var, value, span=x.span))
    outer_remap.update(remap)
    return rx.BindingBlock(tuple(out), span=block.span)


def inline_functions(func: rx.Function, callees: Dict[str, rx.Function], mod: IRModule) -> rx.Function:
    """(PASS.INLINE.2-3) ``func`` with calls of ``callees`` inlined (re-normalized when changed)."""
    from ..static.normalize import normalize_function
    from .canonicalize_bindings import canonicalize_bindings
    from .dead_code_elimination import remove_all_unused

    out = _Inliner(callees).visit_expr(func)
    if out is func:
        return func
    out = normalize_function(out, mod, script_annotations=False)
    out = normalize_function(canonicalize_bindings(out), mod, script_annotations=False)
    return remove_all_unused(out)


class InlinePrivateFunctions(Pass):
    """(PASS.INLINE.1-3)"""

    name = "InlinePrivateFunctions"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        private = {gv.name_hint: f for gv, f in mod.functions_items()
                   if isinstance(f, rx.Function) and f.global_symbol is None}
        if not private:
            return mod
        for name in recursive_functions(mod):
            private.pop(name, None)
        if not private:
            return mod
        items = {}
        for gv, f in mod.functions_items():
            if gv.name_hint in private:
                continue
            items[gv] = inline_functions(f, private, mod) if isinstance(f, rx.Function) else f
        return renormalize(IRModule(items, mod.attrs, mod.global_infos))


__all__ = ["InlinePrivateFunctions", "inline_functions", "recursive_functions"]

"""RemoveUnusedOutputs: private functions stop returning tuple fields no caller reads (PASS.UNUSEDOUT.*).

Follows TVM 0.25 (``src/relax/transform/remove_unused_outputs.cc``):

* (PASS.UNUSEDOUT.1) A private function (no ``global_symbol``) whose return struct info is a tuple is a
  candidate. Over every Relax function of the module, a field ``i`` of a call of a candidate is *used*
  when some ``TupleGetItem(v, i)`` reads it, ``v`` being the call or a variable bound (through
  variables) to it; any other use of such a variable uses every field.
* (PASS.UNUSEDOUT.2) A candidate with an unused field returns only the used ones: the fields of its
  result (of the tuple literal it returns, else ``TupleGetItem``s of its result), as a tuple, or alone
  when one field is left; its return struct info keeps the corresponding fields of the old one. Every call becomes a
  tuple literal of the old arity whose used fields read the new call (or are the new call itself)
  and whose unused fields are ``R.prim_value(nan)`` (float64); the variables bound to them are
  re-inferred (PASS.UTIL.3).
* (PASS.UNUSEDOUT.3) ``CanonicalizeBindings`` and ``DeadCodeElimination`` then fold the tuples away.
"""

from __future__ import annotations

from typing import Dict, List

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import ExprVisitor
from ..ir.module import IRModule
from ..ir.struct_info import TupleStructInfo
from .pass_infra import Pass
from .utils import BindingMutator, renormalize


class _Usage(ExprVisitor):
    def __init__(self, masks: Dict[str, List[bool]]) -> None:
        self.masks = masks
        self.known: Dict[rx.Var, rx.Expr] = {}

    def _mask(self, e: rx.Expr):
        if not isinstance(e.struct_info, TupleStructInfo):
            return None
        seen = set()
        while isinstance(e, rx.Var) and e in self.known and e not in seen:
            seen.add(e)
            e = self.known[e]
        if isinstance(e, rx.Call) and isinstance(e.op, rx.GlobalVar):
            return self.masks.get(e.op.name_hint)
        return None

    def visit_binding(self, b: rx.Binding) -> None:
        super().visit_binding(b)
        self.known[b.var] = b.value

    def visit_TupleGetItem(self, e: rx.TupleGetItem) -> None:
        mask = self._mask(e.tuple_value)
        if mask is not None and 0 <= e.index < len(mask):
            mask[e.index] = True
        # the tuple itself is not a use of every field

    def visit_Var(self, v: rx.Var) -> None:
        mask = self._mask(v)
        if mask is not None:
            mask[:] = [True] * len(mask)

    visit_DataflowVar = visit_Var


def _new_result(func: rx.Function, mask: List[bool]) -> rx.Function:
    body = func.body
    result = body.body if isinstance(body, rx.SeqExpr) else body
    fields = []
    for i, used in enumerate(mask):
        if used:
            fields.append(result.fields[i] if isinstance(result, rx.Tuple) else rx.TupleGetItem(result, i))
    new = fields[0] if len(fields) == 1 else rx.Tuple(tuple(fields))
    kept = [f for f, used in zip(func.ret_struct_info.fields, mask) if used]
    ret = kept[0] if len(kept) == 1 else TupleStructInfo(tuple(kept))
    blocks = body.blocks if isinstance(body, rx.SeqExpr) else ()
    return rx.Function(func.params, rx.SeqExpr(tuple(blocks), new), ret, func.is_pure, attrs=func.attrs,
                       span=func.span)


class _CallSites(BindingMutator):
    def __init__(self, masks: Dict[str, List[bool]], gvars: Dict[str, rx.GlobalVar]) -> None:
        super().__init__()
        self.masks = masks
        self.gvars = gvars

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        node = self.generic_mutate_expr(c)
        if not (isinstance(node.op, rx.GlobalVar) and node.op.name_hint in self.masks):
            return node
        mask = self.masks[node.op.name_hint]
        call = rx.Call(self.gvars[node.op.name_hint], node.args, node.attrs, node.sinfo_args, span=node.span)
        n_used = sum(mask)
        out, k = [], 0
        for used in mask:
            if used:
                out.append(call if n_used == 1 else rx.TupleGetItem(call, k))
                k += 1
            else:
                out.append(rx.PrimValue(P.FloatImm(float("nan"), "float64")))
        return rx.Tuple(tuple(out), span=c.span)


def remove_unused_outputs(mod: IRModule) -> IRModule:
    """(PASS.UNUSEDOUT.1-2), without the cleanup of PASS.UNUSEDOUT.3."""
    masks: Dict[str, List[bool]] = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function) and f.global_symbol is None and isinstance(f.ret_struct_info, TupleStructInfo):
            masks[gv.name_hint] = [False] * len(f.ret_struct_info.fields)
    if not masks:
        return mod
    usage = _Usage(masks)
    for _, f in mod.functions_items():
        if isinstance(f, rx.Function):
            usage.visit_expr(f)
    masks = {k: m for k, m in masks.items() if not all(m)}
    if not masks:
        return mod
    gvars = {name: rx.GlobalVar(name) for name in masks}
    items = {}
    for gv, f in mod.functions_items():
        if gv.name_hint in masks:
            gv, f = gvars[gv.name_hint], _new_result(f, masks[gv.name_hint])
        items[gv] = f
    sites = _CallSites(masks, gvars)
    items = {gv: sites.visit_expr(f) if isinstance(f, rx.Function) else f for gv, f in items.items()}
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class RemoveUnusedOutputs(Pass):
    """(PASS.UNUSEDOUT.1-3)"""

    name = "RemoveUnusedOutputs"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        from .canonicalize_bindings import CanonicalizeBindings
        from .dead_code_elimination import DeadCodeElimination

        out = remove_unused_outputs(mod)
        if out is mod:
            return mod
        return DeadCodeElimination()(CanonicalizeBindings()(out))


__all__ = ["RemoveUnusedOutputs", "remove_unused_outputs"]

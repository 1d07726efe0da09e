"""tvm-0.27's form of ``call_tir`` with scalar arguments (TEXT.DIALECT.5).

TVM 0.27 has no ``call_tir(f, args, out, tir_vars=R.shape([n]))``: a PrimFunc takes its scalar
arguments *before* its output buffers and the call passes them in the argument tuple,
``call_tir(f, (x, n), out)``. To print a module in that dialect, :func:`scalars_before_outputs` gives
the equivalent module: every PrimFunc called with ``tir_vars`` gets its trailing scalar parameters moved
in front of its outputs, and every such call passes the scalars as ``PrimValue`` s after its inputs.
The result computes the same, but it is another module (its round trip through tvm-0.27 text gives the
rewritten form). A PrimFunc called both ways, or with different argument counts, cannot be rewritten
and is an ``unsupported`` error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, Set, Tuple

from ...errors import UnsupportedError
from ...ir import expr as rx
from ...ir import tir
from ...ir.functor import ExprMutator, ExprVisitor
from ...ir.module import IRModule

CALL_TIR_OPS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad")


def _is_call_tir(e) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name in CALL_TIR_OPS


class _Uses(ExprVisitor):
    """For each PrimFunc a call_tir calls: the set of (inputs, scalars) it is called with."""

    def __init__(self) -> None:
        self.forms: Dict[str, Set[Tuple[int, int]]] = {}
        self.spans: Dict[str, object] = {}

    def visit_Call(self, c: rx.Call) -> None:
        if _is_call_tir(c) and isinstance(c.args[0], rx.GlobalVar) and len(c.args) >= 2 and \
                isinstance(c.args[1], rx.Tuple):
            n_vars = len(c.args[2].values) if len(c.args) == 3 and isinstance(c.args[2], rx.ShapeExpr) else \
                (-1 if len(c.args) == 3 else 0)
            name = c.args[0].name_hint
            self.forms.setdefault(name, set()).add((len(c.args[1].fields), n_vars))
            self.spans.setdefault(name, c.span)
        self.generic_visit_expr(c)


class _Rewrite(ExprMutator):
    def __init__(self, names: Set[str]) -> None:
        super().__init__()
        self.names = names

    def visit_Call(self, c: rx.Call) -> rx.Expr:
        new = self.generic_mutate_expr(c)
        if _is_call_tir(new) and len(new.args) == 3 and isinstance(new.args[0], rx.GlobalVar) and \
                new.args[0].name_hint in self.names:
            scalars = tuple(rx.PrimValue(v, span=new.span) for v in new.args[2].values)
            args = rx.Tuple(tuple(new.args[1].fields) + scalars, span=new.args[1].span)
            return rx.Call(new.op, (new.args[0], args), new.attrs, new.sinfo_args, span=new.span,
                           struct_info=c.struct_info)
        if new is not c:
            return replace(new, struct_info=c.struct_info)
        return new


def _reorder(f: tir.PrimFunc, n_in: int, n_vars: int) -> tir.PrimFunc:
    params = list(f.params)
    scalars = params[len(params) - n_vars:]
    new = params[:n_in] + scalars + params[n_in:len(params) - n_vars]
    order = {id(p): i for i, p in enumerate(new)}
    bmap = tuple(sorted(f.buffer_map, key=lambda pb: order[id(pb[0])]))
    return replace(f, params=tuple(new), buffer_map=bmap)


def scalars_before_outputs(mod: IRModule, dialect: str) -> IRModule:
    """``mod`` with every ``call_tir(..., tir_vars=...)`` in tvm-0.27's form (see the module
    docstring); ``mod`` itself when it has none."""
    uses = _Uses()
    for _, f in mod.functions_items():
        if isinstance(f, rx.Function):
            uses.visit_expr(f)
    rewrite = {n: forms for n, forms in uses.forms.items() if any(v != 0 for _, v in forms)}
    if not rewrite:
        return mod
    for name, forms in rewrite.items():
        f = mod[name] if name in mod else None
        (n_in, n_vars), = forms if len(forms) == 1 else ((0, -1),)
        if not isinstance(f, tir.PrimFunc) or n_vars < 0 or n_in + n_vars > len(f.params):
            raise UnsupportedError(
                f"{dialect} has no call_tir(..., tir_vars=...): its PrimFuncs take scalar arguments before "
                f"the outputs, and '{name}' cannot be rewritten so (called with different arguments); print "
                f"this module with dialect='tvm-0.25'", uses.spans.get(name))
    items = {}
    for gv, f in mod.functions_items():
        if gv.name_hint in rewrite:
            (n_in, n_vars), = rewrite[gv.name_hint]
            f = _reorder(f, n_in, n_vars)
        elif isinstance(f, rx.Function):
            f = _Rewrite(set(rewrite)).visit_expr(f)
        items[gv] = f
    return IRModule(items, mod.attrs, mod.global_infos)


__all__ = ["scalars_before_outputs", "CALL_TIR_OPS"]

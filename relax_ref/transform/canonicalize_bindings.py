"""CanonicalizeBindings: fold trivial bindings and statically known match casts (PASS.CANON.*).

Follows TVM 0.25 (``src/relax/transform/canonicalize_bindings.cc``): two function-level steps.

1. **Symbolic variables** (PASS.CANON.1, ``CanonicalizeTIRVariables``): a ``MatchCast`` whose target
   has a bare symbolic variable ``m`` where the value's struct info has an expression ``e`` makes
   ``m`` known to be ``e``; from that binding on (the cast itself included, inside the enclosing
   function or ``If`` branch) every occurrence of ``m`` -- in shapes, prim values, struct info -- is
   replaced by ``e`` and simplified. Two casts implying provably different values for ``m`` are an
   error. A branch whose struct info changes is wrapped in a ``MatchCast`` to the ``If``'s
   (substituted) struct info so that the ``If`` keeps it.
2. **Bindings** (PASS.CANON.2, ``CanonicalizeRelaxBindings``), planned over the whole function and
   then applied:

   * known values are unwrapped: ``t[i]`` of a variable bound to a tuple literal is that field, and
     a tuple literal ``(t[0], ..., t[n-1])`` of a ``n``-tuple ``t`` is ``t``;
   * a *trivial* binding -- a ``VarBinding`` whose (unwrapped) value is a variable, or a
     ``MatchCast`` whose variable's struct info equals its value's -- is removed and its variable
     replaced by the bound one (following chains). When a non-dataflow ``Var`` is bound to a
     ``DataflowVar`` and used outside that dataflow block, the ``DataflowVar``'s own binding is
     rebound to the ``Var`` instead;
   * variables bound to constants are replaced by the constant at every use;
   * a non-dataflow ``Var`` defined in a dataflow block and used only inside it becomes a
     ``DataflowVar``;
   * in a dataflow block, a ``DataflowVar`` whose only use is one output binding ``gv = lv`` is
     dropped and ``gv`` bound to its value directly.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from ..analysis.free_vars import all_vars, free_vars
from ..analysis.structural_equal import structural_equal
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import expr_children, substitute_prim
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .pass_infra import Pass, rewrite_functions
from .utils import BindingMutator, _Copier


# ---------------------------------------------------------------------------------------------------
# Step 1: symbolic variables (PASS.CANON.1)
# ---------------------------------------------------------------------------------------------------


def infer_symbolic_var_map(target: StructInfo, value: StructInfo, out: Optional[Dict] = None) -> Dict:
    """TVM's ``InferSymbolicVarMap`` for one pair: bare symbolic variables of ``target`` mapped to
    the corresponding expressions of ``value``."""
    if out is None:
        out = {}

    def prims(ps, vs):
        if ps is None or vs is None or len(ps) != len(vs):
            return
        for p, v in zip(ps, vs):
            if isinstance(p, P.PrimVar) and p.dtype == v.dtype:
                out[p] = v

    if isinstance(target, TensorStructInfo) and isinstance(value, TensorStructInfo):
        prims(target.shape_values, value.shape_values)
    elif isinstance(target, ShapeStructInfo) and isinstance(value, ShapeStructInfo):
        prims(target.values, value.values)
    elif isinstance(target, PrimStructInfo) and isinstance(value, PrimStructInfo):
        if target.value is not None and value.value is not None:
            prims((target.value,), (value.value,))
    elif isinstance(target, TupleStructInfo) and isinstance(value, TupleStructInfo):
        if len(target.fields) == len(value.fields):
            for a, b in zip(target.fields, value.fields):
                infer_symbolic_var_map(a, b, out)
    return out


class _SymbolicCanonicalizer(_Copier):
    """Rebuilds a function substituting known symbolic values; variables are recreated only when
    their struct info changes."""

    def __init__(self) -> None:
        super().__init__({})
        from ..arith import Analyzer

        self.analyzer = Analyzer()
        self.known: Dict[P.PrimVar, P.PrimExpr] = {}
        self.changed = False

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        if not self.known:
            return e
        out = substitute_prim(e, self.known)
        if out is e or out == e:
            return e
        self.changed = True
        return self.analyzer.simplify(out)

    def si(self, s):
        if s is None or not self.known:
            return s
        from ..ir.functor import StructInfoMutator

        outer = self

        class M(StructInfoMutator):
            def visit_prim(self, e):
                return outer.prim(e)

            def visit_shape_var(self, v):
                return outer.var_map.get(v, v)

        return M().visit(s)

    def new_var(self, v: rx.Var) -> rx.Var:
        s = self.si(v.struct_info)
        if s is v.struct_info or s == v.struct_info:
            return v
        nv = type(v)(name_hint=v.name_hint, struct_info=s, span=v.span)
        self.var_map[v] = nv
        return nv

    def expr(self, e):
        if isinstance(e, rx.Function):
            saved = dict(self.known)
            out = super().expr(e)
            self.known = saved
            return out
        if isinstance(e, rx.If):
            cond = self.expr(e.cond)
            saved = dict(self.known)
            t = self.expr(e.true_branch)
            self.known = dict(saved)
            f = self.expr(e.false_branch)
            self.known = saved
            new_si = self.si(e.struct_info)
            t = self._pin(t, new_si, "then_branch_with_dyn")
            f = self._pin(f, new_si, "else_branch_with_dyn")
            return rx.If(cond, t, f, struct_info=new_si, span=e.span)
        return super().expr(e)

    def _pin(self, branch: rx.SeqExpr, si: StructInfo, name: str) -> rx.SeqExpr:
        if si is None or branch.struct_info is None or structural_equal(si, branch.struct_info):
            return branch
        self.changed = True
        v = rx.Var(name_hint=name, struct_info=si)
        return rx.SeqExpr((rx.BindingBlock((rx.MatchCast(v, branch, si),)),), v, struct_info=si)

    def block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        for x in b.bindings:
            if isinstance(x, rx.MatchCast):
                value_si = x.value.struct_info
                for tv, pe in infer_symbolic_var_map(x.var.struct_info, value_si).items():
                    if tv is pe:
                        continue
                    old = self.known.get(tv)
                    if old is not None:
                        if self.analyzer.can_prove(P.ne(old, pe)):
                            raise RelaxError(
                                f"MatchCast statements must be consistent: symbolic variable {tv.name} is "
                                f"{P.to_str(old)} by an earlier cast but {P.to_str(pe)} by the cast to "
                                f"{x.var.name_hint}", x.span, binding=x.var.name_hint, symbol=tv.name)
                    else:
                        # in terms of the variables that stay defined (PASS.CANON.1): ``pe`` may
                        # mention a variable an earlier cast made known and this pass removes
                        self.known[tv] = self.prim(pe)
                value = self.expr(x.value)
                out.append(rx.MatchCast(self.new_var(x.var), value, self.si(x.struct_info), span=x.span))
            else:
                value = self.expr(x.value)
                var = self.new_var(x.var)
                si = self._reinferred(x.value, value)
                if si is not None:
                    # as TVM's mutator re-emits a binding whose call changed: the call's struct info
                    # is inferred again and the variable takes it (PASS.UTIL.3)
                    value = value.with_struct_info(si)
                    if var.struct_info is None or not structural_equal(si, var.struct_info):
                        var = type(x.var)(name_hint=x.var.name_hint, struct_info=si, span=x.var.span)
                        self.var_map[x.var] = var
                out.append(rx.VarBinding(var, value, span=x.span))
        return type(b)(tuple(out), span=b.span)

    def _reinferred(self, old: rx.Expr, new: rx.Expr):
        """The struct info of an operator call whose operands changed, inferred again (or None)."""
        if not (isinstance(old, rx.Call) and isinstance(new, rx.Call) and isinstance(new.op, rx.Op)):
            return None
        if all(a is b for a, b in zip(old.args, new.args)):
            return None
        fresh = rx.Call(new.op, new.args, new.attrs, new.sinfo_args, span=new.span)
        try:
            return BindingMutator().value_struct_info(fresh)
        except RelaxError:
            return None


def canonicalize_tir_variables(func: rx.Function) -> rx.Function:
    """(PASS.CANON.1)"""
    c = _SymbolicCanonicalizer()
    out = c.expr(func)
    return out if c.changed or c.var_map else func


# ---------------------------------------------------------------------------------------------------
# Step 2: bindings (PASS.CANON.2)
# ---------------------------------------------------------------------------------------------------


class _Planner:
    def __init__(self) -> None:
        self.current_block: Optional[rx.BindingBlock] = None
        self.def_blocks: Dict[rx.Var, rx.BindingBlock] = {}
        self.trivial: Dict[rx.Var, rx.Var] = {}
        self.known: Dict[rx.Var, rx.Expr] = {}
        self.to_constant: Dict[rx.Var, rx.Constant] = {}
        self.defined_in_dataflow: Dict[rx.Var, None] = {}
        self.used_outside_home: Set[rx.Var] = set()

    def inside_dataflow(self) -> bool:
        return isinstance(self.current_block, rx.DataflowBlock)

    def unwrap_var(self, e: rx.Expr) -> rx.Expr:
        seen = 0
        while isinstance(e, rx.Var) and e in self.known and seen < 10000:
            e = self.known[e]
            seen += 1
        return e

    def unwrap_known(self, e: rx.Expr) -> Optional[rx.Expr]:
        if isinstance(e, rx.TupleGetItem):
            t = self.unwrap_var(e.tuple_value)
            if isinstance(t, rx.Tuple):
                return t.fields[e.index]
        if isinstance(e, rx.Tuple) and e.fields:
            first = self.unwrap_var(e.fields[0])
            if not isinstance(first, rx.TupleGetItem):
                return None
            tsi = first.tuple_value.struct_info
            if not isinstance(tsi, TupleStructInfo) or len(tsi.fields) != len(e.fields):
                return None
            earlier = self.unwrap_var(first.tuple_value)
            for i, f in enumerate(e.fields):
                el = self.unwrap_var(f)
                if not isinstance(el, rx.TupleGetItem) or el.index != i:
                    return None
                if self.unwrap_var(el.tuple_value) is not earlier:
                    return None
            return earlier
        return None

    # -- traversal --------------------------------------------------------------------------------
    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Var):
            if not self.inside_dataflow() or (e in self.def_blocks and self.current_block is not None
                                              and self.current_block is not self.def_blocks[e]):
                self.used_outside_home.add(e)
        elif isinstance(e, rx.Function):
            saved = self.current_block
            self.current_block = None
            for v in free_vars(e):
                self.used_outside_home.add(v)
            self.expr(e.body)
            self.current_block = saved
        elif isinstance(e, rx.SeqExpr):
            saved = self.current_block
            self.current_block = None
            for b in e.blocks:
                self.current_block = b
                for binding in b.bindings:
                    self.binding(binding)
                self.current_block = None
            self.expr(e.body)
            self.current_block = saved
        else:
            for c in expr_children(e):
                self.expr(c)

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.VarBinding):
            same_si = True
        else:
            same_si = structural_equal(b.var.struct_info, b.value.struct_info)
        value = b.value
        unwrapped = self.unwrap_known(value)
        if unwrapped is not None:
            value = unwrapped
        if isinstance(value, rx.Var) and same_si:
            self.trivial[b.var] = value
        if isinstance(value, rx.Constant):
            self.to_constant[b.var] = value
        self.known[b.var] = value
        self.def_blocks[b.var] = self.current_block
        self.expr(b.value)
        if self.inside_dataflow():
            self.defined_in_dataflow[b.var] = None


class _Plan:
    def __init__(self, p: _Planner) -> None:
        self.replace_usage: Dict[rx.Var, rx.Var] = {}
        self.replace_binding: Dict[rx.Var, rx.Var] = {}
        self.remove: Set[rx.Var] = set()
        self.inline_constant: Dict[rx.Var, rx.Constant] = dict(p.to_constant)
        for v in p.defined_in_dataflow:
            if not isinstance(v, rx.DataflowVar) and v not in p.used_outside_home:
                nv = rx.DataflowVar(name_hint=v.name_hint, struct_info=v.struct_info, span=v.span)
                self.replace_binding[v] = nv
                self.replace_usage[v] = nv
        for bound_var, bound_to in p.trivial.items():
            guard = 0
            while bound_to in p.trivial and guard < 10000:
                bound_to = p.trivial[bound_to]
                guard += 1
            while bound_to in self.replace_binding:
                bound_to = self.replace_binding[bound_to]
            if isinstance(bound_var, rx.DataflowVar) or not isinstance(bound_to, rx.DataflowVar) \
                    or bound_var not in p.used_outside_home:
                self.replace_usage[bound_var] = bound_to
                self.remove.add(bound_var)
            else:
                self.replace_binding[bound_to] = bound_var
                self.replace_usage[bound_to] = bound_var
                self.remove.add(bound_var)


class _Canonicalizer(BindingMutator):
    def __init__(self, plan: _Plan) -> None:
        super().__init__()
        self.plan = plan

    def _usage(self, v: rx.Var) -> rx.Expr:
        guard = 0
        while v in self.plan.replace_usage and guard < 10000:
            nv = self.plan.replace_usage[v]
            if nv is v:
                break
            v = nv
            guard += 1
        c = self.plan.inline_constant.get(v)
        if c is not None:
            return c
        return self.var_remap.get(v, v)

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self._usage(v)

    def visit_DataflowVar(self, v: rx.DataflowVar) -> rx.Expr:
        return self._usage(v)

    def _def(self, v: rx.Var) -> rx.Var:
        guard = 0
        while v in self.plan.replace_binding and guard < 10000:
            nv = self.plan.replace_binding[v]
            if nv is v:
                break
            v = nv
            guard += 1
        return v

    def visit_binding(self, b: rx.Binding):
        if b.var in self.plan.remove:
            return None
        value = self.visit_expr(b.value)
        return self.rebind(b, value, self._def(b.var))

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        nb = super().visit_block(b)
        if not isinstance(nb, rx.DataflowBlock):
            return nb
        return _fold_output_bindings(nb)


def _dataflow_vars(vs) -> List[rx.DataflowVar]:
    return [v for v in vs if isinstance(v, rx.DataflowVar)]


def _fold_output_bindings(block: rx.DataflowBlock) -> rx.DataflowBlock:
    """(PASS.CANON.2, last rule) ``lv = e; gv = lv`` -> ``gv = e`` when ``lv`` has no other use."""
    disqualified: Set[rx.Var] = set()
    outputs: Set[rx.Var] = set()
    candidates: Dict[rx.Var, rx.Expr] = {}
    for b in reversed(block.bindings):
        value = b.value
        if isinstance(b.var, rx.DataflowVar):
            rhs = all_vars(value) if isinstance(value, rx.Function) else free_vars(value)
            disqualified.update(_dataflow_vars(rhs))
            if b.var not in disqualified and b.var in outputs:
                candidates[b.var] = value
        else:
            if isinstance(value, rx.DataflowVar):
                if value in outputs:
                    disqualified.add(value)
                outputs.add(value)
            else:
                rhs = free_vars(value) if isinstance(value, rx.Function) else all_vars(value)
                disqualified.update(_dataflow_vars(rhs))
    if not candidates:
        return block
    out = []
    for b in block.bindings:
        if isinstance(b.var, rx.DataflowVar) and b.var in candidates:
            continue
        if not isinstance(b.var, rx.DataflowVar) and isinstance(b.value, rx.DataflowVar) and b.value in candidates:
            value = candidates[b.value]
            if isinstance(b, rx.MatchCast):
                out.append(rx.MatchCast(b.var, value, b.struct_info, span=b.span))
            else:
                out.append(rx.VarBinding(b.var, value, span=b.span))
            continue
        out.append(b)
    return rx.DataflowBlock(tuple(out), span=block.span)


def canonicalize_relax_bindings(func: rx.Function) -> rx.Function:
    """(PASS.CANON.2)"""
    planner = _Planner()
    planner.expr(func)
    plan = _Plan(planner)
    return _Canonicalizer(plan).visit_expr(func)


def canonicalize_bindings(func: rx.Function) -> rx.Function:
    """Both steps on one function (not re-normalized)."""
    return canonicalize_relax_bindings(canonicalize_tir_variables(func))


class CanonicalizeBindings(Pass):
    """(PASS.CANON.*) TVM's ``CanonicalizeBindings`` (CanonicalizeTIRVariables then
    CanonicalizeRelaxBindings), applied to every Relax function."""

    name = "CanonicalizeBindings"
    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        step1 = _apply(mod, canonicalize_tir_variables)
        return _apply(step1, canonicalize_relax_bindings)


def _apply(mod: IRModule, fn) -> IRModule:
    return rewrite_functions(mod, lambda _gv, f: fn(f))


__all__ = ["CanonicalizeBindings", "canonicalize_bindings", "canonicalize_tir_variables",
           "canonicalize_relax_bindings", "infer_symbolic_var_map"]

"""FuseOpsByPattern and MergeCompositeFunctions: pattern-based grouping for offloading
(PASS.FUSEPAT.*, PASS.MERGECOMP.*).

Follows TVM 0.25 (``src/relax/transform/fuse_ops.cc``, ``merge_composite_functions.cc``), with the
patterns of :mod:`relax_ref.dpl`.

``FuseOpsByPattern(patterns, bind_constants=True, annotate_codegen=False, entry_functions=None)``:

* (PASS.FUSEPAT.1) *Patterns.* Each pattern is a :class:`FusionPattern` or a tuple
  ``(name, pattern[, annotation_patterns[, check[, attrs_getter]]])``; the name starts with the
  backend followed by a period (``"dnnl.conv2d_relu"``). Patterns are applied one after another, each
  to the module the previous one produced.
* (PASS.FUSEPAT.2) *Matching.* In every entry function (the given ones, else every Relax function that
  is not ``Primitive``, ``Composite`` or ``Codegen``), the bindings whose value is a call are visited in
  order; the pattern is matched against the value with the earlier bindings known (PASS.DPL.MATCH.1), and
  ``check(context)``, when given, may reject the match. The bindings of the calls and tuple items the
  pattern matched (not those of wildcards) join the group of the matched binding, which gets the
  attribute ``Composite: name`` (and what ``attrs_getter`` returns for the annotated expressions). A
  match that would take a binding already in an earlier group of several bindings is dropped unless
  it takes every binding of that group.
* (PASS.FUSEPAT.3) *Rewrite.* The groups are rewritten as FuseOps rewrites its groups
  (PASS.FUSEOPS.4): each becomes a private function with ``Primitive: True`` and the group's
  attributes -- a single binding too --, named ``fused_`` followed by the callee names joined by ``_``
  with dots replaced (``fused_relax_nn_conv2d_relax_nn_relu``). Constants stay inside the function
  with ``bind_constants`` and become parameters otherwise.
* (PASS.FUSEPAT.4) *Codegen annotation.* With ``annotate_codegen``, each composite function called from
  a non-composite function is wrapped in a function with the attributes ``Codegen: <backend>`` and
  ``global_symbol: <name>_<backend>`` (so it is named so), whose body binds the composite function
  (without ``Primitive``) to ``local_func`` and returns ``local_func(params...)``.

``MergeCompositeFunctions()`` (on the module's ``main``):

* (PASS.MERGECOMP.1) *Groups.* The bindings of ``main`` are visited in order. A call of a composite
  function starts a group for its backend, or joins the groups of its arguments that are calls for the
  same backend -- those none of the other arguments' groups depends on, directly or not -- merging
  them; any other call is a group of its own. Dependencies between groups are tracked transitively.
* (PASS.MERGECOMP.2) *Rewrite.* The backend groups are rewritten as PASS.FUSEOPS.4 (named after their
  callees, the ``fused_`` prefix of each dropped), then every call of such a grouped function in
  ``main`` calls its replacement named ``<name>_<backend>``, public under that name, with
  ``Codegen: <backend>`` and no ``Primitive``, whose body (made non-dataflow) calls local copies of the
  composite functions (without ``Primitive``) instead of the global ones -- one copy per composite
  function, bound right before its first call. Unused functions are then
  removed (PASS.DCE.*, with ``main`` as entry).
* (PASS.MERGECOMP.3) *Deviation.* A ``match_cast`` binding of ``main``, and every variable bound in a
  nested scope, is a group of its own (never offloaded), and only ``main`` is rewritten; TVM 0.25
  rejects a ``match_cast`` in ``main``, and another function with a dataflow block, with an internal
  error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..dpl import pattern as D
from ..dpl.matcher import extract_matched_expr
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from .annotate_tir_op_pattern import OpPatternKind as K
from .fuse_graph import Group as _Group
from .fuse_ops import make_grouped_functions
from .pass_infra import Pass
from .utils import copy_function, renormalize

COMPOSITE = "Composite"
CODEGEN = "Codegen"
PRIMITIVE = "Primitive"


@dataclass
class FusionPattern:
    """A named pattern for FuseOpsByPattern (TVM's ``FusionPattern``)."""

    name: str
    pattern: Any
    annotation_patterns: Dict[str, Any] = field(default_factory=dict)
    check: Optional[Callable[["PatternCheckContext"], bool]] = None
    attrs_getter: Optional[Callable[[Dict[str, rx.Expr]], Dict[str, Any]]] = None


@dataclass
class PatternCheckContext:
    """What ``check`` sees: the matched call, the annotated expressions, the matched bindings, the
    use lists of the current dataflow block and the map from values to the variables bound to them."""

    matched_expr: rx.Expr
    annotated_expr: Dict[str, rx.Expr]
    matched_bindings: Dict[rx.Var, rx.Expr]
    var_usages: Dict[rx.Var, List[rx.Var]]
    value_to_bound_var: Dict[int, rx.Var]


def codegen_name(composite: str) -> str:
    if "." not in composite:
        raise RelaxError(f"the pattern name '{composite}' must start with a backend name followed by a period")
    return composite.split(".", 1)[0]


def _as_fusion_pattern(p) -> FusionPattern:
    if isinstance(p, FusionPattern):
        return p
    if isinstance(p, (tuple, list)) and 2 <= len(p) <= 5 and isinstance(p[0], str):
        return FusionPattern(*p)
    raise RelaxError(f"a fusion pattern is a FusionPattern or a tuple (name, pattern, ...), got {p!r}")


# ---------------------------------------------------------------------------------------------------
# FuseOpsByPattern
# ---------------------------------------------------------------------------------------------------


def _block_usages(block: rx.DataflowBlock) -> Dict[rx.Var, List[rx.Var]]:
    from ..analysis.free_vars import free_vars

    uses: Dict[rx.Var, List[rx.Var]] = {b.var: [] for b in block.bindings}
    for b in block.bindings:
        for v in free_vars(b.value):
            if v in uses and b.var not in uses[v]:
                uses[v].append(b.var)
    return uses


class _Partitioner:
    """(PASS.FUSEPAT.2) TVM's ``PatternBasedPartitioner``."""

    def __init__(self, fp: FusionPattern) -> None:
        self.fp = fp
        self.group_map: Dict[int, _Group] = {}
        self.vars_in_group: Dict[int, List[rx.Var]] = {}
        self.bindings: Dict[rx.Var, rx.Expr] = {}
        self.value_to_var: Dict[int, rx.Var] = {}
        self.usages: Dict[rx.Var, List[rx.Var]] = {}

    def var_def(self, v: rx.Var) -> None:
        g = _Group(K.kOpaque, v)
        self.group_map[id(v)] = g
        self.vars_in_group[id(g)] = [v]

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Function):
            for p in e.params:
                self.var_def(p)
            self.expr(e.body)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                self.usages = _block_usages(b) if isinstance(b, rx.DataflowBlock) else {}
                for x in b.bindings:
                    self.binding(x)
                self.usages = {}
            self.expr(e.body)
        elif isinstance(e, rx.If):
            for x in (e.cond, e.true_branch, e.false_branch):
                self.expr(x)
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                self.expr(f)
        elif isinstance(e, rx.TupleGetItem):
            self.expr(e.tuple_value)
        elif isinstance(e, rx.Call):
            for a in (e.op,) + tuple(e.args):
                self.expr(a)

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.VarBinding):
            self.bindings[b.var] = b.value
            self.value_to_var[id(b.value)] = b.var
            if isinstance(b.value, rx.Call):
                self.var_def(b.var)
                self.try_match(b)
                return
        self.expr(b.value)
        self.var_def(b.var)

    def _group_of_value(self, e: rx.Expr) -> Optional[_Group]:
        v = self.value_to_var.get(id(e))
        return self.group_map.get(id(v)) if v is not None else None

    def try_match(self, b: rx.VarBinding) -> None:
        call = b.value
        matches = extract_matched_expr(self.fp.pattern, call, self.bindings)
        if matches is None:
            return
        ctx = PatternCheckContext(
            call, {k: matches[p] for k, p in self.fp.annotation_patterns.items() if p in matches},
            {self.value_to_var[id(m)]: m for p, m in matches.items()
             if isinstance(p, (D.CallPattern, D.TupleGetItemPattern)) and id(m) in self.value_to_var},
            self.usages, self.value_to_var)
        if self.fp.check is not None and not self.fp.check(ctx):
            return
        inner = [(p, m) for p, m in matches.items()
                 if (isinstance(p, D.CallPattern) and m is not call) or isinstance(p, D.TupleGetItemPattern)]
        matched_vars = {id(self.value_to_var[id(m)]) for p, m in matches.items()
                        if isinstance(p, (D.CallPattern, D.TupleGetItemPattern)) and id(m) in self.value_to_var}
        for _, m in inner:
            g = self._group_of_value(m)
            if g is not None and g.find_root().num_nodes > 1:
                if not all(id(v) in matched_vars for v in self.vars_in_group.get(id(g), ())):
                    return
        parent = self.group_map[id(b.var)].find_root()
        parent.attrs[COMPOSITE] = self.fp.name
        if self.fp.attrs_getter is not None:
            parent.attrs.update(dict(self.fp.attrs_getter(ctx.annotated_expr)))
        for _, m in inner:
            v = self.value_to_var.get(id(m))
            if v is None:
                continue
            g = self.group_map[id(v)]
            if g is not parent:
                g.num_nodes -= 1
                g.parent = parent
                self.vars_in_group.setdefault(id(parent), []).append(v)
                parent.num_nodes += 1


def _entry_functions(mod: IRModule, names: Optional[Sequence[str]]) -> List[str]:
    if names:
        for n in names:
            if not isinstance(mod.get(n), rx.Function):
                raise RelaxError(f"FuseOpsByPattern: entry function '{n}' is not a Relax function of the module")
        return list(names)
    out = []
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function) and not f.attrs.get(PRIMITIVE) and f.attrs.get(COMPOSITE) is None \
                and f.attrs.get(CODEGEN) is None:
            out.append(gv.name_hint)
    return out


def fuse_ops_by_pattern(mod: IRModule, patterns: Sequence, bind_constants: bool = True,
                        annotate_codegen: bool = False, entry_functions: Optional[Sequence[str]] = None) -> IRModule:
    """(PASS.FUSEPAT.1-4)"""
    for p in patterns:
        fp = _as_fusion_pattern(p)
        group_map: Dict[int, _Group] = {}
        names = _entry_functions(mod, entry_functions)
        for name in names:
            part = _Partitioner(fp)
            part.expr(mod[name])
            for k, g in part.group_map.items():
                if k in group_map:
                    raise RelaxError("FuseOpsByPattern: a variable appears in several partitions (the module "
                                     "is not in single-site assignment)")
                group_map[k] = g
        mod = make_grouped_functions(mod, group_map, lift_constants=not bind_constants,
                                     entry_functions=list(entry_functions) if entry_functions else None)
    if annotate_codegen:
        mod = _annotate_codegen(mod)
    return mod


def _wrap_composite(func: rx.Function) -> rx.Function:
    """(PASS.FUSEPAT.4) ``local_func = <func without Primitive>; output = local_func(params...)``."""
    inner = rx.Function(func.params, func.body, func.ret_struct_info, func.is_pure,
                        attrs={k: v for k, v in func.attrs.items() if k != PRIMITIVE}, span=func.span)
    params = tuple(rx.Var(name_hint=p.name_hint, struct_info=p.struct_info) for p in func.params)
    local = rx.Var(name_hint="local_func")
    output = rx.Var(name_hint="output")
    body = rx.SeqExpr((rx.BindingBlock((rx.VarBinding(local, inner), rx.VarBinding(output, rx.Call(local, params)))),),
                      output)
    return rx.Function(params, body, func.ret_struct_info, inner.is_pure)


def _annotate_codegen(mod: IRModule) -> IRModule:
    renamed: Dict[str, rx.GlobalVar] = {}
    added: Dict[str, rx.Function] = {}
    removed = set()

    class _M(ExprMutator):
        def visit_Call(self, c: rx.Call) -> rx.Expr:
            node = self.generic_mutate_expr(c)
            if isinstance(node.op, rx.GlobalVar) and node.op.name_hint in mod:
                name = node.op.name_hint
                f = mod[name]
                if isinstance(f, rx.Function) and f.attrs.get(COMPOSITE) is not None:
                    if name not in renamed:
                        cg = codegen_name(f.attrs[COMPOSITE])
                        gsym = f"{name}_{cg}"
                        wrapper = _wrap_composite(f)
                        attrs = dict(wrapper.attrs)
                        attrs.update({CODEGEN: cg, "global_symbol": gsym})
                        added[gsym] = rx.Function(wrapper.params, wrapper.body, wrapper.ret_struct_info,
                                                  wrapper.is_pure, attrs=attrs)
                        renamed[name] = rx.GlobalVar(gsym)
                        removed.add(name)
                    return rx.Call(renamed[name], node.args, node.attrs, node.sinfo_args, span=c.span)
            return node

    items = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function) and f.attrs.get(COMPOSITE) is None and f.attrs.get(CODEGEN) is None:
            items[gv] = _M().visit_expr(f)
        else:
            items[gv] = f
    if not renamed:
        return mod
    out = {gv: f for gv, f in items.items() if gv.name_hint not in removed}
    for name, gv in renamed.items():
        out[gv] = added[gv.name_hint]
    return renormalize(IRModule(out, mod.attrs, mod.global_infos))


class FuseOpsByPattern(Pass):
    """(PASS.FUSEPAT.1-4)"""

    name = "FuseOpsByPattern"
    opt_level = 0

    def __init__(self, patterns: Sequence, bind_constants: bool = True, annotate_codegen: bool = False,
                 entry_functions: Optional[Sequence[str]] = None) -> None:
        self.patterns = [_as_fusion_pattern(p) for p in patterns]
        self.bind_constants = bool(bind_constants)
        self.annotate_codegen = bool(annotate_codegen)
        self.entry_functions = list(entry_functions) if entry_functions else None

    def transform(self, mod: IRModule) -> IRModule:
        return fuse_ops_by_pattern(mod, self.patterns, self.bind_constants, self.annotate_codegen,
                                   self.entry_functions)


# ---------------------------------------------------------------------------------------------------
# MergeCompositeFunctions
# ---------------------------------------------------------------------------------------------------


class _CompositeGroups:
    """(PASS.MERGECOMP.1) TVM's ``CompositeGroupsBuilder``."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.memo: Dict[int, _Group] = {}
        self.deps: Dict[int, Dict[int, _Group]] = {}    # root -> {id(root): root}

    def _new(self, codegen: Optional[str] = None) -> _Group:
        g = _Group(K.kOpaque, None)
        if codegen is not None:
            g.attrs[CODEGEN] = codegen
        return g

    def _callee_codegen(self, op) -> Optional[str]:
        if isinstance(op, rx.GlobalVar) and op.name_hint in self.mod:
            f = self.mod[op.name_hint]
            comp = f.attrs.get(COMPOSITE) if isinstance(f, rx.Function) else None
            if comp is not None:
                return codegen_name(comp)
        return None

    def run(self, func: rx.Function) -> Dict[int, _Group]:
        for p in func.params:
            self.memo[id(p)] = self._new()
        self._leaf_groups(func.body)
        self.visit(func.body)
        from ..analysis.free_vars import all_vars

        for v in all_vars(func):     # variables of nested scopes: groups of their own
            self.memo.setdefault(id(v), self._new())
        return {k: g.find_root() for k, g in self.memo.items()}

    def _leaf_groups(self, e) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, (rx.Constant, rx.ShapeExpr, rx.Tuple, rx.TupleGetItem, rx.PrimValue)):
                self.memo.setdefault(id(x), self._new())
            if isinstance(x, rx.SeqExpr):
                stack.extend(b.value for blk in x.blocks for b in blk.bindings)
                stack.append(x.body)
            elif isinstance(x, rx.Tuple):
                stack.extend(x.fields)
            elif isinstance(x, rx.TupleGetItem):
                stack.append(x.tuple_value)
            elif isinstance(x, rx.Call):
                stack.extend(x.args)
            elif isinstance(x, rx.If):
                stack.extend((x.cond, x.true_branch, x.false_branch))

    def visit(self, e: rx.Expr) -> _Group:
        if id(e) in self.memo:
            return self.memo[id(e)]
        if isinstance(e, rx.SeqExpr):
            for blk in e.blocks:
                for b in blk.bindings:
                    # a match_cast is a group of its own (PASS.MERGECOMP.3)
                    self.memo[id(b.var)] = self.visit(b.value) if isinstance(b, rx.VarBinding) else self._new()
            return self.visit(e.body)
        if isinstance(e, rx.Call):
            g = self._call(e)
        elif isinstance(e, rx.Var):
            raise RelaxError(f"MergeCompositeFunctions: variable '{e.name_hint}' is used before it is bound")
        else:
            g = self._new()
        self.memo[id(e)] = g
        return g

    def _group_codegen(self, g: _Group) -> Optional[str]:
        return g.attrs.get(CODEGEN)

    def _call(self, call: rx.Call) -> _Group:
        cg = self._callee_codegen(call.op)
        to_merge: List[_Group] = []
        if cg is not None:
            parent_deps = set()
            for a in call.args:
                ag = self.memo.get(id(a))
                if ag is not None:
                    parent_deps.update(self.deps.get(id(ag.find_root()), {}).keys())
            for a in call.args:
                ag = self.memo.get(id(a))
                if ag is not None and self._group_codegen(ag) == cg and id(ag.find_root()) not in parent_deps:
                    to_merge.append(ag)
        if not to_merge:
            group = self._new(cg)
        else:
            group = to_merge[0]
            group.num_nodes += 1
            for other in to_merge[1:]:
                self._merge(other, group)
        self._update_deps(group, call.args)
        return group

    def _merge(self, src: _Group, dst: _Group) -> None:
        a, b = src.find_root(), dst.find_root()
        if a is b:
            return
        a.parent = b
        b.num_nodes += a.num_nodes
        merged = self.deps.setdefault(id(b), {})
        merged.update(self.deps.pop(id(a), {}))
        for d in self.deps.values():
            if id(a) in d:
                del d[id(a)]
                d[id(b)] = b

    def _update_deps(self, group: _Group, args) -> None:
        root = group.find_root()

        def visit(x) -> None:
            if isinstance(x, rx.GlobalVar):
                return
            if isinstance(x, rx.Tuple):
                for f in x.fields:
                    visit(f)
                return
            ag = self.memo.get(id(x))
            if ag is None:
                raise RelaxError(f"MergeCompositeFunctions: no group for an argument of type {type(x).__name__}")
            ar = ag.find_root()
            if ar is root:
                return
            mine = self.deps.setdefault(id(root), {})
            mine[id(ar)] = ar
            mine.update(self.deps.get(id(ar), {}))

        for a in args:
            visit(a)


def _inline_composites(func: rx.Function, mod: IRModule) -> rx.Function:
    """The body made non-dataflow, calls of composite functions replaced by calls of local copies
    (one copy per composite function, bound before its first call)."""
    from .to_non_dataflow import to_non_dataflow

    local: Dict[str, rx.Var] = {}

    class _M(ExprMutator):
        def visit_binding(self, b: rx.Binding):
            c = b.value
            if isinstance(b, rx.VarBinding) and isinstance(c, rx.Call) and isinstance(c.op, rx.GlobalVar) \
                    and isinstance(mod.get(c.op.name_hint), rx.Function) \
                    and mod[c.op.name_hint].attrs.get(COMPOSITE) is not None:
                out = []
                name = c.op.name_hint
                if name not in local:
                    g = copy_function(mod[name])
                    g = rx.Function(g.params, g.body, g.ret_struct_info, g.is_pure,
                                    attrs={k: v for k, v in g.attrs.items() if k != PRIMITIVE}, span=g.span)
                    local[name] = rx.Var(name_hint="lv")
                    out.append(rx.VarBinding(local[name], g))
                call = rx.Call(local[name], tuple(self.visit_expr(a) for a in c.args), c.attrs, c.sinfo_args,
                               span=c.span)
                out.append(rx.VarBinding(b.var, call, span=b.span))
                return out
            return super().visit_binding(b)

    body = _M().visit_expr(to_non_dataflow(func).body)
    return rx.Function(func.params, body, func.ret_struct_info, func.is_pure, attrs=func.attrs, span=func.span)


def merge_composite_functions(mod: IRModule) -> IRModule:
    """(PASS.MERGECOMP.1-2)"""
    from .dead_code_elimination import dead_code_elimination

    if not isinstance(mod.get("main"), rx.Function):
        raise RelaxError("MergeCompositeFunctions needs a Relax function 'main'")
    groups = _CompositeGroups(mod).run(mod["main"])
    new = make_grouped_functions(mod, groups, entry_functions=["main"])
    renamed: Dict[str, rx.GlobalVar] = {}
    added: Dict[str, rx.Function] = {}

    class _M(ExprMutator):
        def visit_Call(self, c: rx.Call) -> rx.Expr:
            if isinstance(c.op, rx.GlobalVar) and c.op.name_hint in new:
                f = new[c.op.name_hint]
                cg = f.attrs.get(CODEGEN) if isinstance(f, rx.Function) else None
                if cg is not None:
                    name = c.op.name_hint
                    if name not in renamed:
                        gsym = f"{name}_{cg}"
                        g = _inline_composites(f, mod)
                        attrs = {k: v for k, v in g.attrs.items() if k != PRIMITIVE}
                        attrs["global_symbol"] = gsym
                        added[gsym] = rx.Function(g.params, g.body, g.ret_struct_info, g.is_pure, attrs=attrs)
                        renamed[name] = rx.GlobalVar(gsym)
                    return rx.Call(renamed[name], c.args, c.attrs, c.sinfo_args, span=c.span)
            return c

    main = _M().visit_expr(new["main"])
    items = {}
    for gv, f in new.functions_items():
        if gv.name_hint in renamed:
            continue
        items[gv] = main if gv.name_hint == "main" else f
    for gv in renamed.values():
        items[gv] = added[gv.name_hint]
    out = renormalize(IRModule(items, new.attrs, new.global_infos))
    return dead_code_elimination(out, ["main"])


class MergeCompositeFunctions(Pass):
    """(PASS.MERGECOMP.1-2)"""

    name = "MergeCompositeFunctions"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        return merge_composite_functions(mod)


__all__ = ["FuseOpsByPattern", "MergeCompositeFunctions", "FusionPattern", "PatternCheckContext",
           "fuse_ops_by_pattern", "merge_composite_functions", "codegen_name"]

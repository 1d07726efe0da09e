"""FuseOps: group ``call_tir`` bindings of dataflow blocks into primitive functions (PASS.FUSEOPS.*).

Follows TVM 0.25 (``src/relax/transform/fuse_ops.cc`` and ``src/relax/analysis/graph_partitioner.cc``,
the post-dominator fusion algorithm inherited from Relay).

1. **Graph** (PASS.FUSEOPS.1). Every Relax function that is neither ``Primitive`` nor ``Codegen``
   contributes nodes, in post-DFS order: its parameters (external, opaque), then one node per binding
   variable, created when the binding is visited; constants and other leaves (shapes, prim values,
   strings) get opaque nodes at their first use. A binding whose variable is not a DataflowVar is
   external. A ``call_tir``/``call_tir_inplace`` binding takes the callee PrimFunc's ``op_pattern``
   (kOpaque without one) and gets an edge, carrying that pattern, from each field of its argument
   tuple; a ``TupleGetItem`` binding is kInjective (kOpaque on a packed parameter tuple past
   ``num_input``) with an edge from the tuple; any other call is kOpaque with edges from its leaf
   arguments; any other value is kOpaque with edges from every variable and constant inside it; a
   ``MatchCast`` is kOpaque without edges.
2. **Post-dominator tree** (PASS.FUSEOPS.2): in reverse post-DFS order, an external node is a root
   (depth 1); any other node's parent is the least common ancestor of its consumers, and its
   pattern the maximum of the edge patterns and of the patterns met while climbing to the LCA.
3. **Partition** (PASS.FUSEOPS.3): union-find groups, three phases over the nodes in post-DFS
   order. Opaque nodes and nodes without a post-dominator stay alone; no group exceeds
   ``max_depth`` nodes (config ``relax.FuseOps.max_depth``, default 256). Phase 0: a
   kOutEWiseFusable node fuses into its post-dominator when the dominating relation is elementwise
   and every node on the paths up to it is at most kBroadcast. kElemWise/kBroadcast nodes (phases
   0 and 1) fuse when the relation is at most kInjective or kCommReduce and every path node is at
   most kInjective (the sink may also be kCommReduce or kOutEWiseFusable). Phase 1: kInjective
   nodes fuse when every path node is at most kInjective. Phase 2 only concerns tuples (which no
   Relax binding produces). ``fuse_opt_level`` 0 (or a context ``opt_level`` of 0 with the default
   -1) disables fusion.
4. **Rewrite** (PASS.FUSEOPS.4), per dataflow block: each group of more than one binding becomes a
   private function named ``fused_`` + the callee names joined by ``_`` (``fused_matmul_add_relu``),
   with attribute ``Primitive: True``. Its parameters are, in order of first use, the variables
   (and lifted constants, named ``param_0``, ...) the group reads from outside, named like them; a
   tuple parameter only read through ``TupleGetItem`` is split into ``<name>_<i>`` parameters; shape
   and prim-value literals without free symbolic variables stay inline; symbolic variables the body
   needs but the parameters do not define are passed in a trailing ``tir_vars: R.Shape([...])``.
   Its outputs are the group's non-dataflow variables and the variables read by other bindings of
   the block, in that order; several outputs are returned as a tuple and unpacked with
   ``TupleGetItem`` after the call. The function gets fresh symbolic variables. Structurally equal
   functions are shared (TVM's ``BlockBuilder.AddFunction``); a new name that is taken gets a
   numeric suffix. The group's bindings are replaced by one call to the function, emitted at the
   position of the group's last binding (bindings are first ordered by group dependencies, keeping
   the original order where possible), to a fresh ``lv`` DataflowVar -- or a fresh ``gv`` Var when
   the group's single output (else that binding) is a non-dataflow variable. A group none of
   whose values is used is dropped (TVM warns about dead code and does the same).

Steps 1-3 are in :mod:`relax_ref.transform.fuse_graph`, step 4 here.

Deviation: when a fused function returns a tuple, *every* output variable of the group is
re-bound through ``TupleGetItem``; TVM only does this for variables read inside the block, which
leaves a dangling reference when a tuple-returning group also defines a block output
(PASS.FUSEOPS.5).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..analysis.free_vars import free_symbolic_vars
from ..analysis.structural_equal import structural_equal, structural_hash
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..ir.struct_info import ShapeStructInfo, TupleStructInfo
from .fuse_graph import GraphCreator, Group, Partitioner, is_primitive, post_order_leaves
from .pass_infra import Pass, PassContext
from .utils import BindingMutator, copy_function, fresh_name, renormalize

MAX_FUSED_OPS = 256


# ---------------------------------------------------------------------------------------------------
# Building the grouped functions (PASS.FUSEOPS.4)
# ---------------------------------------------------------------------------------------------------


def _is_inlinable_constant(e: rx.Expr) -> bool:
    from ..ir.functor import prim_vars_in

    if isinstance(e, rx.Tuple):
        return all(_is_inlinable_constant(f) for f in e.fields)
    if isinstance(e, rx.PrimValue):
        return not prim_vars_in(e.value)
    if isinstance(e, rx.ShapeExpr):
        return all(not prim_vars_in(v) for v in e.values)
    return False


class _FunctionCreator(ExprMutator):
    def __init__(self, lift_constants: bool = True) -> None:
        super().__init__()
        self.lift_constants = lift_constants
        self.bindings: List[rx.Binding] = []
        self.params: List[rx.Var] = []
        self.arguments: List[rx.Expr] = []
        self.name_hint = "fused"
        self.function: Optional[rx.Function] = None
        self.defined: Set[rx.Var] = set()
        self.n_param_for_const = 0
        self.output_vars: List[rx.Var] = []
        self.partial_tuples: Dict[int, Tuple[rx.Expr, List[int]]] = {}

    def _arg_index(self, e: rx.Expr) -> int:
        for i, a in enumerate(self.arguments):
            if a is e:
                return i
        return -1

    def append_binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.VarBinding):
            v = b.value
            if isinstance(v, rx.Call):
                if isinstance(v.op, rx.Op) and v.op.name in ("relax.call_tir", "relax.call_tir_inplace"):
                    self.name_hint += "_" + v.args[0].name_hint
                    for a in v.args[1].fields:
                        self.check_def_and_update_param(a)
                else:
                    if isinstance(v.op, rx.Op):
                        self.name_hint += "_" + v.op.name
                    elif isinstance(v.op, rx.GlobalVar):
                        n = v.op.name_hint
                        self.name_hint += "_" + (n[len("fused_"):] if n.startswith("fused_") else n)
                    for a in v.args:
                        if isinstance(a, rx.Tuple):
                            for f in a.fields:
                                self.check_def_and_update_param(f)
                        else:
                            self.check_def_and_update_param(a)
                        if isinstance(a.struct_info, TupleStructInfo):
                            self.partial_tuples.pop(id(a), None)
            elif isinstance(v, rx.TupleGetItem):
                self.check_def_and_update_param(v.tuple_value)
                entry = self.partial_tuples.get(id(v.tuple_value))
                if entry is not None and v.index not in entry[1]:
                    entry[1].append(v.index)
            self.defined.add(b.var)
            if not isinstance(b.var, rx.DataflowVar):
                self.append_output(b.var)
        self.bindings.append(b)

    def append_output(self, var: rx.Var) -> int:
        if var not in self.defined:
            raise RelaxError(f"FuseOps: output {var.name_hint} is not defined in its group")
        for i, v in enumerate(self.output_vars):
            if v is var:
                return i
        self.output_vars.append(var)
        return len(self.output_vars) - 1

    def check_def_and_update_param(self, e: rx.Expr) -> None:
        if self._arg_index(e) >= 0:
            return
        is_var = isinstance(e, rx.Var)
        if (not is_var or e not in self.defined) and (self.lift_constants or not isinstance(e, rx.Constant)):
            if is_var:
                name = e.name_hint
            else:
                name = f"param_{self.n_param_for_const}"
                self.n_param_for_const += 1
            if not _is_inlinable_constant(e):
                self.params.append(rx.Var(name_hint=name, struct_info=e.struct_info))
                self.arguments.append(e)
            if isinstance(e.struct_info, TupleStructInfo):
                self.partial_tuples[id(e)] = (e, [])

    # -- ExprMutator: arguments become parameters ---------------------------------------------------
    def visit_expr(self, e: rx.Expr) -> rx.Expr:
        i = self._arg_index(e)
        if i >= 0:
            return self.params[i]
        return super().visit_expr(e)

    def create_function(self, group_attrs: Dict[str, object], module: IRModule) -> None:
        item_remap: Dict[int, Dict[int, rx.Var]] = {}
        for key, (tuple_arg, indices) in self.partial_tuples.items():
            if not indices:
                continue
            idx = self._arg_index(tuple_arg)
            if idx < 0:
                continue
            param = self.params[idx]
            fields = tuple_arg.struct_info.fields
            item_params = [rx.Var(name_hint=f"{param.name_hint}_{k}", struct_info=fields[k]) for k in indices]
            item_args = [rx.TupleGetItem(tuple_arg, k) for k in indices]
            item_remap[key] = dict(zip(indices, item_params))
            self.arguments[idx:idx + 1] = item_args
            self.params[idx:idx + 1] = item_params

        fnames = _Names()
        for p in self.params:
            fnames.taken.add(p.name_hint)
        for b in self.bindings:
            fnames.taken.add(b.var.name_hint)
        outputs: List[Optional[rx.Expr]] = [None] * len(self.output_vars)
        new_bindings: List[rx.Binding] = []

        def out_index(v: rx.Var) -> int:
            for i, o in enumerate(self.output_vars):
                if o is v:
                    return i
            return -1

        for b in self.bindings:
            if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.TupleGetItem):
                remap = item_remap.get(id(b.value.tuple_value))
                if remap is not None:
                    p = remap[b.value.index]
                    self.var_remap[b.var] = p
                    k = out_index(b.var)
                    if k >= 0:
                        outputs[k] = p
                    continue
            k = out_index(b.var)
            value = self.visit_expr(b.value)
            if k >= 0:
                if not isinstance(b, rx.VarBinding):
                    raise RelaxError("FuseOps: only variable bindings may be group outputs")
                nv = rx.Var(name_hint=fnames.fresh("gv"))
                new_bindings.append(rx.VarBinding(nv, value, span=b.span))
                self.var_remap[b.var] = nv
                outputs[k] = nv
            else:
                nv = rx.DataflowVar(name_hint=b.var.name_hint, span=b.var.span)
                self.var_remap[b.var] = nv
                if isinstance(b, rx.MatchCast):
                    new_bindings.append(rx.MatchCast(nv, value, b.struct_info, span=b.span))
                else:
                    new_bindings.append(rx.VarBinding(nv, value, span=b.span))
        if not outputs:
            self.function = None
            return
        body = outputs[0] if len(outputs) == 1 else rx.Tuple(tuple(outputs))
        attrs = dict(group_attrs)
        attrs["Primitive"] = True
        seq = rx.SeqExpr((rx.DataflowBlock(tuple(new_bindings)),), body)
        func = rx.Function(tuple(self.params), seq, None, True, attrs=attrs)
        from ..static.normalize import normalize_function

        func = normalize_function(func, module, script_annotations=False)
        free = free_symbolic_vars(func)
        if free:
            tir_vars = rx.Var(name_hint="tir_vars", struct_info=ShapeStructInfo(tuple(free)))
            self.params.append(tir_vars)
            self.arguments.append(rx.ShapeExpr(tuple(free)))
            func = rx.Function(tuple(func.params) + (tir_vars,), func.body, None, True, attrs=attrs)
            func = normalize_function(func, module, script_annotations=False)
        self.function = copy_function(func)


class _Names:
    """A per-function supply of fresh variable names."""

    def __init__(self) -> None:
        self.taken: Set[str] = set()

    def fresh(self, hint: str) -> str:
        name = fresh_name(self.taken, hint)
        self.taken.add(name)
        return name


def _var_names(func: rx.Function) -> Set[str]:
    from ..analysis.free_vars import all_vars

    return {v.name_hint for v in all_vars(func)}


# ---------------------------------------------------------------------------------------------------
# The rewriting of dataflow blocks (PASS.FUSEOPS.4)
# ---------------------------------------------------------------------------------------------------


class _FunctionTable:
    """Functions of the module plus the added grouped functions, for de-duplication and naming."""

    def __init__(self, mod: IRModule) -> None:
        self.names: Set[str] = set(mod)
        self.by_hash: Dict[int, List[Tuple[str, rx.Function]]] = {}
        self.added: List[Tuple[str, rx.Function]] = []
        self.gvars: Dict[str, rx.GlobalVar] = {}
        for gv, f in mod.functions_items():
            self.gvars[gv.name_hint] = gv
            if isinstance(f, rx.Function):
                self.by_hash.setdefault(structural_hash(f), []).append((gv.name_hint, f))

    def add(self, func: rx.Function, hint: str) -> rx.GlobalVar:
        h = structural_hash(func)
        for name, f in self.by_hash.get(h, ()):
            if structural_equal(f, func):
                return self.gvars[name]
        name = fresh_name(self.names, "".join(c if c.isalnum() or c == "_" else "_" for c in hint))
        self.names.add(name)
        gv = rx.GlobalVar(name)
        self.gvars[name] = gv
        self.by_hash.setdefault(h, []).append((name, func))
        self.added.append((name, func))
        return gv


class _OperatorFusor(BindingMutator):
    def __init__(self, module: IRModule, obj2group: Dict[int, Group], table: _FunctionTable,
                 names: _Names, lift_constants: bool = True) -> None:
        super().__init__(module)
        self.lift_constants = lift_constants
        self.module = module
        self.obj2group = obj2group
        self.table = table
        self.names = names
        self.group_deps: Dict[int, List[Group]] = {}
        self.tuple_get_indices: Dict[rx.Var, int] = {}

    def group_of(self, var: rx.Var) -> Group:
        g = self.obj2group.get(id(var))
        if g is None:
            raise RelaxError(f"FuseOps: variable {var.name_hint} could not be found in any group")
        return g.find_root()

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return super().visit_block(b)
        bindings = b.bindings
        group2func: Dict[int, Tuple[Group, _FunctionCreator]] = {}
        # collect the bindings of each multi-binding group
        for binding in bindings:
            g = self.group_of(binding.var)
            if g.num_nodes == 1 and not g.attrs:
                continue
            if id(g) not in group2func:
                group2func[id(g)] = (g, _FunctionCreator(self.lift_constants))
            group2func[id(g)][1].append_binding(binding)
        # the boundary of each group
        for binding in bindings:
            cur = self.group_of(binding.var)
            for used in post_order_leaves(binding.value):
                if not isinstance(used, rx.Var):
                    continue
                producer = self.group_of(used)
                if producer is not cur:
                    for dep in self.group_deps.get(id(producer), ()):
                        if dep is cur:
                            raise RelaxError(f"FuseOps: a cyclic dependency between the groups of "
                                             f"{binding.var.name_hint} and {used.name_hint}")
                    self.group_deps.setdefault(id(cur), []).append(producer)
                    entry = group2func.get(id(producer))
                    if entry is not None:
                        self.tuple_get_indices[used] = entry[1].append_output(used)
        for g, creator in group2func.values():
            creator.create_function(g.attrs, self.module)
        # emit
        out: List[rx.Binding] = []
        for binding in self._topo_sort(bindings):
            g = self.group_of(binding.var)
            if g.num_nodes == 1 and not g.attrs:
                nb = self.visit_binding(binding)
                out.append(nb)
                continue
            creator = group2func[id(g)][1]
            func = creator.function
            if func is None:
                continue
            if creator.bindings[-1] is not binding:
                continue
            gv = self.table.add(func, creator.name_hint)
            args = tuple(self.visit_expr(a) for a in creator.arguments)
            call = rx.Call(gv, args, span=binding.span)
            # a single output need not be the group's last binding (that one may be dead)
            single = creator.output_vars[0] if len(creator.output_vars) == 1 else binding.var
            if isinstance(single, rx.DataflowVar):
                nv = rx.DataflowVar(name_hint=self.names.fresh("lv"))
            else:
                nv = rx.Var(name_hint=self.names.fresh("gv"))
            out.append(rx.VarBinding(nv, call, span=binding.span))
            if len(creator.output_vars) > 1:
                # several outputs: the function returns a tuple; every output is re-bound
                # (PASS.FUSEOPS.5)
                # re-bound in the order of their bindings, as TVM emits them (the index is the
                # output's position in the returned tuple)
                index = {v: k for k, v in enumerate(creator.output_vars)}
                order = [b.var for b in creator.bindings if b.var in index]
                order += [v for v in creator.output_vars if v not in order]
                for v in order:
                    k = index[v]
                    cls = rx.DataflowVar if isinstance(v, rx.DataflowVar) else rx.Var
                    tv = cls(name_hint=self.names.fresh("lv" if cls is rx.DataflowVar else "gv"))
                    out.append(rx.VarBinding(tv, rx.TupleGetItem(nv, k), span=binding.span))
                    self.var_remap[v] = tv
            else:
                self.var_remap[single] = nv
        if len(out) == len(bindings) and all(x is y for x, y in zip(out, bindings)):
            return b
        return rx.DataflowBlock(tuple(out), span=b.span)

    def _topo_sort(self, bindings) -> List[rx.Binding]:
        per_group: Dict[int, List[rx.Binding]] = {}
        order: List[Group] = []
        for binding in bindings:
            g = self.group_of(binding.var)
            order.append(g)
            per_group.setdefault(id(g), []).append(binding)
        visited: Set[int] = set()
        out: List[rx.Binding] = []

        def dfs(g: Group) -> None:
            stack = [(g, iter(self.group_deps.get(id(g), ())))]
            if id(g) in visited:
                return
            visited.add(id(g))
            while stack:
                cur, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    out.extend(per_group.get(id(cur), ()))
                elif id(nxt) not in visited:
                    visited.add(id(nxt))
                    stack.append((nxt, iter(self.group_deps.get(id(nxt), ()))))

        for g in order:
            dfs(g)
        return out


# ---------------------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------------------


def fuse_ops(mod: IRModule, opt_level: int = 2, max_fuse_depth: int = MAX_FUSED_OPS) -> IRModule:
    """(PASS.FUSEOPS.1-4) The module with the ``call_tir`` groups of every dataflow block fused."""
    creator = GraphCreator(mod)
    graph = creator.create()
    groups = Partitioner(opt_level, max_fuse_depth).partition(graph)
    obj2group = {id(graph.post_dfs_order[i].ref): groups[i].find_root() for i in range(len(groups))}
    return make_grouped_functions(mod, obj2group)


def make_grouped_functions(mod: IRModule, obj2group: Dict[int, Group], lift_constants: bool = True,
                           entry_functions: Optional[List[str]] = None) -> IRModule:
    """(PASS.FUSEOPS.4) The rewriting of every dataflow block of the entry functions (default: every
    Relax function that is neither ``Primitive`` nor ``Codegen``) under a partition of its variables
    (``id(var) -> group``); shared by FuseOps, FuseOpsByPattern and MergeCompositeFunctions."""
    table = _FunctionTable(mod)
    replace: Dict[str, rx.Function] = {}
    names_ = list(entry_functions) if entry_functions else [gv.name_hint for gv, _ in mod.functions_items()]
    for name in names_:
        f = mod[name]
        if not isinstance(f, rx.Function) or is_primitive(f):
            continue
        names = _Names()
        names.taken |= _var_names(f)
        new = _OperatorFusor(mod, obj2group, table, names, lift_constants).visit_expr(f)
        if new is not f:
            replace[name] = new
    if not replace and not table.added:
        return mod
    items = {}
    for gv, f in mod.functions_items():
        items[gv] = replace.get(gv.name_hint, f)
    for name, f in table.added:
        items[table.gvars[name]] = f
    return renormalize(IRModule(items, mod.attrs, mod.global_infos))


class FuseOps(Pass):
    """FuseOps(fuse_opt_level=-1): -1 uses the context's ``opt_level`` (PASS.FUSEOPS.3)."""

    name = "FuseOps"
    opt_level = 0

    def __init__(self, fuse_opt_level: int = -1) -> None:
        self.fuse_opt_level = fuse_opt_level

    def transform(self, mod: IRModule) -> IRModule:
        ctx = PassContext.current()
        level = ctx.opt_level if self.fuse_opt_level == -1 else self.fuse_opt_level
        depth = ctx.get_config("relax.FuseOps.max_depth", MAX_FUSED_OPS)
        return fuse_ops(mod, level, depth)


__all__ = ["FuseOps", "fuse_ops", "make_grouped_functions", "MAX_FUSED_OPS"]

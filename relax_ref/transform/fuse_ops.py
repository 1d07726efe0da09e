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
from .annotate_tir_op_pattern import OpPatternKind
from .pass_infra import Pass, PassContext
from .utils import BindingMutator, copy_function, fresh_name, renormalize

MAX_FUSED_OPS = 256
_LEAF_NODE_TYPES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm)


# ---------------------------------------------------------------------------------------------------
# The indexed forward graph (PASS.FUSEOPS.1)
# ---------------------------------------------------------------------------------------------------


class _Node:
    __slots__ = ("ref", "index", "extern_ref", "pattern", "outputs")

    def __init__(self) -> None:
        self.ref = None
        self.index = -1
        self.extern_ref = False
        self.pattern: Optional[OpPatternKind] = None
        self.outputs: List[Tuple["_Node", OpPatternKind]] = []


class _Graph:
    def __init__(self) -> None:
        self.node_map: Dict[int, _Node] = {}
        self.post_dfs_order: List[_Node] = []


def _is_primitive(f) -> bool:
    return isinstance(f, rx.Function) and bool(f.attrs.get("Primitive")) or \
        isinstance(f, rx.Function) and f.attrs.get("Codegen") is not None


class _GraphCreator:
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.graph = _Graph()
        self.input_params: Set[int] = set()

    def create(self) -> _Graph:
        for _, f in self.mod.functions_items():
            if isinstance(f, rx.Function) and not _is_primitive(f):
                self.visit_function(f)
        return self.graph

    # -- nodes ------------------------------------------------------------------------------------
    def create_node(self, key) -> _Node:
        if id(key) in self.graph.node_map:
            raise RelaxError(f"FuseOps: {key!r} appears at multiple definition sites")
        n = _Node()
        self.graph.node_map[id(key)] = n
        return n

    def add_to_post_dfs(self, node: _Node, key) -> None:
        node.ref = key
        node.index = len(self.graph.post_dfs_order)
        self.graph.post_dfs_order.append(node)

    # -- traversal --------------------------------------------------------------------------------
    def visit_function(self, func: rx.Function) -> None:
        for p in func.params:
            n = self.create_node(p)
            n.extern_ref = True
            n.pattern = OpPatternKind.kOpaque
            self.add_to_post_dfs(n, p)
        num_input = func.attrs.get("num_input")
        if num_input is not None:
            for p in func.params[int(num_input):]:
                self.input_params.add(id(p))
        self.visit_expr(func.body)

    def visit_expr(self, e: rx.Expr) -> None:
        """TVM's ExprVisitor over a function body: only bindings create nodes; nested functions
        reached outside bindings contribute their parameters."""
        if isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for binding in b.bindings:
                    self.visit_binding(binding)
            self.visit_expr(e.body)
        elif isinstance(e, rx.Function):
            self.visit_function(e)
        elif isinstance(e, rx.If):
            self.visit_expr(e.cond)
            self.visit_expr(e.true_branch)
            self.visit_expr(e.false_branch)
        elif isinstance(e, rx.Tuple):
            for f in e.fields:
                self.visit_expr(f)
        elif isinstance(e, rx.TupleGetItem):
            self.visit_expr(e.tuple_value)
        elif isinstance(e, rx.Call):
            self.visit_expr(e.op)
            for a in e.args:
                self.visit_expr(a)

    def visit_binding(self, b: rx.Binding) -> None:
        node = self.create_node(b.var)
        if isinstance(b, rx.MatchCast):
            node.pattern = OpPatternKind.kOpaque
            self.add_to_post_dfs(node, b.var)
            return
        if not isinstance(b.var, rx.DataflowVar):
            node.extern_ref = True
        v = b.value
        if isinstance(v, rx.Call):
            self.visit_call(v, node)
        elif isinstance(v, rx.TupleGetItem):
            pattern = OpPatternKind.kOpaque if (isinstance(v.tuple_value,
                                                           rx.Var) and id(v.tuple_value) in self.input_params) \
                else OpPatternKind.kInjective
            node.pattern = pattern
            self.visit_leaf(v.tuple_value, node, pattern)
        else:
            node.pattern = OpPatternKind.kOpaque
            for leaf in _post_order_leaves(v):
                self.visit_leaf(leaf, node, OpPatternKind.kOpaque)
        self.add_to_post_dfs(node, b.var)

    def visit_call(self, call: rx.Call, node: _Node) -> None:
        pattern = OpPatternKind.kOpaque
        args = call.args
        if isinstance(call.op, rx.Op) and call.op.name in ("relax.call_tir", "relax.call_tir_inplace"):
            gv = call.args[0]
            func = self.mod[gv.name_hint] if isinstance(gv, rx.GlobalVar) and gv.name_hint in self.mod else None
            args = call.args[1].fields if isinstance(call.args[1], rx.Tuple) else (call.args[1],)
            op_pattern = func.attrs.get("op_pattern") if func is not None else None
            pattern = OpPatternKind(int(op_pattern)) if op_pattern is not None else OpPatternKind.kOpaque
        node.pattern = pattern
        for a in args:
            if not (isinstance(a, _LEAF_NODE_TYPES) or isinstance(a, (rx.Tuple, rx.GlobalVar, rx.ExternFunc, rx.Op))):
                raise RelaxError(f"FuseOps expects call arguments to be leaves or tuples, got {type(a).__name__}",
                                 call.span)
            self.visit_leaf(a, node, pattern)

    def visit_leaf(self, leaf: rx.Expr, node: _Node, pattern: OpPatternKind) -> None:
        if isinstance(leaf, rx.Tuple):
            for f in leaf.fields:
                self.visit_leaf(f, node, pattern)
            return
        if not isinstance(leaf, _LEAF_NODE_TYPES):
            return
        leaf_node = self.graph.node_map.get(id(leaf))
        if leaf_node is None:
            leaf_node = self.create_node(leaf)
            leaf_node.pattern = OpPatternKind.kOpaque
            self.add_to_post_dfs(leaf_node, leaf)
        leaf_node.outputs.append((node, pattern))


def _post_order_leaves(e: rx.Expr) -> List[rx.Expr]:
    """Variables and constants inside ``e``, in post order (TVM's ``PostOrderVisit``)."""
    out: List[rx.Expr] = []

    def walk(x) -> None:
        if isinstance(x, (rx.Var, rx.Constant)):
            out.append(x)
        elif isinstance(x, rx.Tuple):
            for f in x.fields:
                walk(f)
        elif isinstance(x, rx.TupleGetItem):
            walk(x.tuple_value)
        elif isinstance(x, rx.Call):
            walk(x.op)
            for a in x.args:
                walk(a)
        elif isinstance(x, rx.If):
            walk(x.cond)
            walk(x.true_branch)
            walk(x.false_branch)
        elif isinstance(x, rx.SeqExpr):
            for b in x.blocks:
                for binding in b.bindings:
                    walk(binding.value)
            walk(x.body)
        elif isinstance(x, rx.Function):
            walk(x.body)

    walk(e)
    return out


# ---------------------------------------------------------------------------------------------------
# Post-dominator tree (PASS.FUSEOPS.2)
# ---------------------------------------------------------------------------------------------------


class _DomNode:
    __slots__ = ("gnode", "parent", "depth", "pattern")

    def __init__(self, gnode: _Node) -> None:
        self.gnode = gnode
        self.parent: Optional["_DomNode"] = None
        self.depth = 0
        self.pattern = OpPatternKind.kOpaque


def _lca(lhs: Optional[_DomNode], rhs: Optional[_DomNode], pattern: List[OpPatternKind]) -> Optional[_DomNode]:
    while lhs is not rhs:
        if lhs is None or rhs is None:
            return None
        if lhs.depth < rhs.depth:
            pattern[0] = max(pattern[0], rhs.pattern)
            rhs = rhs.parent
        elif rhs.depth < lhs.depth:
            pattern[0] = max(pattern[0], lhs.pattern)
            lhs = lhs.parent
        else:
            pattern[0] = max(pattern[0], lhs.pattern, rhs.pattern)
            lhs = lhs.parent
            rhs = rhs.parent
    return lhs


def _post_dom_tree(graph: _Graph) -> List[_DomNode]:
    nodes: List[Optional[_DomNode]] = [None] * len(graph.post_dfs_order)
    for index in range(len(graph.post_dfs_order) - 1, -1, -1):
        gnode = graph.post_dfs_order[index]
        t = _DomNode(gnode)
        if gnode.extern_ref:
            t.depth = 1
            t.parent = None
            t.pattern = OpPatternKind.kOpaque
        else:
            pattern = [OpPatternKind.kElemWise]
            parent: Optional[_DomNode] = None
            if gnode.outputs:
                first, epat = gnode.outputs[0]
                parent = nodes[first.index]
                pattern[0] = max(pattern[0], epat)
                for out, epat in gnode.outputs[1:]:
                    parent = _lca(parent, nodes[out.index], pattern)
                    pattern[0] = max(pattern[0], epat)
            t.depth = parent.depth + 1 if parent is not None else 1
            t.parent = parent
            t.pattern = pattern[0]
        nodes[index] = t
    return nodes  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------------
# Graph partitioner (PASS.FUSEOPS.3)
# ---------------------------------------------------------------------------------------------------


class _Group:
    __slots__ = ("parent", "pattern", "root_ref", "anchor_ref", "num_nodes", "attrs")

    def __init__(self, pattern: OpPatternKind, ref) -> None:
        self.parent: Optional["_Group"] = None
        self.pattern = pattern
        self.root_ref = ref
        self.anchor_ref = ref if pattern == OpPatternKind.kOutEWiseFusable else None
        self.num_nodes = 1
        self.attrs: Dict[str, object] = {}

    def find_root(self) -> "_Group":
        root = self
        while root.parent is not None:
            root = root.parent
        p = self
        while p is not root:
            nxt = p.parent
            p.parent = root
            p = nxt
        return root


def _combine_pattern(lhs: OpPatternKind, rhs: OpPatternKind) -> OpPatternKind:
    if lhs > OpPatternKind.kBroadcast and rhs > OpPatternKind.kBroadcast:
        raise RelaxError("FuseOps: cannot merge two complex groups together")
    return max(lhs, rhs)


class _Partitioner:
    def __init__(self, opt_level: int, max_fuse_depth: int) -> None:
        self.opt_level = opt_level
        self.max_fuse_depth = max_fuse_depth
        self.groups: List[_Group] = []
        self.visited: Set[int] = set()

    def partition(self, graph: _Graph) -> List[_Group]:
        self.groups = [_Group(n.pattern, n.ref) for n in graph.post_dfs_order]
        if self.opt_level == 0:
            return self.groups
        tree = _post_dom_tree(graph)
        for phase in range(3):
            self.run_fuse(graph, tree, phase)
        return self.groups

    def _check_path_(self, src: _Node, sink: _Node, fcond) -> bool:
        if id(src) in self.visited:
            return True
        self.visited.add(id(src))
        g = self.groups[src.index].find_root()
        if not fcond(g.pattern, src is sink):
            return False
        if src is sink:
            return True
        return all(self._check_path_(out, sink, fcond) for out, _ in src.outputs)

    def check_path(self, src: _Node, sink: _Node, fcond) -> bool:
        self.visited = set()
        return all(self._check_path_(out, sink, fcond) for out, _ in src.outputs)

    def merge_from_to(self, child: _Group, parent: _Group) -> None:
        child = child.find_root()
        parent = parent.find_root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor_ref is not None:
            if parent.anchor_ref is not None:
                raise RelaxError("FuseOps: two anchors in one group")
            parent.anchor_ref = child.anchor_ref
            parent.pattern = _combine_pattern(child.pattern, parent.pattern)

    def _commit_fuse_(self, src: _Node, sink: _Node, target: _Group) -> None:
        if src is sink or id(src) in self.visited:
            return
        self.visited.add(id(src))
        self.merge_from_to(self.groups[src.index], target)
        for out, _ in src.outputs:
            self._commit_fuse_(out, sink, target)

    def commit_fuse(self, src: _Node, sink: _Node) -> None:
        target = self.groups[sink.index]
        self.visited = set()
        self._commit_fuse_(src, sink, target)

    def _count_nodes_upto_sink(self, src: _Node, sink: _Node) -> int:
        if src is sink or id(src) in self.visited:
            return 0
        self.visited.add(id(src))
        total = self.groups[src.index].num_nodes
        for out, _ in src.outputs:
            total += self._count_nodes_upto_sink(out, sink)
        return total

    def count_fused_nodes_with_new_child(self, child: _Node, dom_parent: _Node) -> int:
        target = self.groups[dom_parent.index]
        self.visited = set()
        return target.find_root().num_nodes + self._count_nodes_upto_sink(child, dom_parent)

    def run_fuse(self, graph: _Graph, tree: List[_DomNode], phase: int) -> None:
        for nid in range(len(self.groups)):
            graph_node = graph.post_dfs_order[nid]
            dom_node = tree[nid]
            group_node = self.groups[nid]
            if group_node.pattern == OpPatternKind.kOpaque:
                continue
            if dom_node.parent is None:
                continue
            dom_parent = dom_node.parent.gnode
            dom_parent_gindex = dom_parent.index
            if self.count_fused_nodes_with_new_child(graph_node, dom_parent) > self.max_fuse_depth:
                continue
            if phase == 2:
                if group_node.pattern > OpPatternKind.kInjective:
                    continue
                dom_parent_group = self.groups[dom_parent_gindex]
                dom_root_group = dom_parent_group.find_root()
                if dom_root_group.pattern == OpPatternKind.kTuple:
                    continue
                if dom_parent_group.pattern == OpPatternKind.kTuple and \
                        dom_root_group.pattern <= OpPatternKind.kInjective:
                    if self.check_path(graph_node, dom_parent, lambda k, sink: k <= OpPatternKind.kInjective):
                        self.commit_fuse(graph_node, dom_parent)
                continue
            if group_node.find_root() is self.groups[dom_parent_gindex].find_root():
                continue
            if self.groups[dom_parent_gindex].pattern == OpPatternKind.kTuple:
                continue
            if group_node.pattern == OpPatternKind.kOutEWiseFusable:
                if phase != 0:
                    continue
                if dom_node.pattern == OpPatternKind.kElemWise:
                    if self.check_path(graph_node, dom_parent, lambda k, sink: k <= OpPatternKind.kBroadcast):
                        self.commit_fuse(graph_node, dom_parent)
            elif group_node.pattern <= OpPatternKind.kBroadcast:
                if dom_node.pattern <= OpPatternKind.kInjective or dom_node.pattern == OpPatternKind.kCommReduce:
                    def fcond(k, is_sink):
                        if not is_sink:
                            return k <= OpPatternKind.kInjective
                        return k <= OpPatternKind.kBroadcast or k in (OpPatternKind.kCommReduce,
                                                                      OpPatternKind.kInjective,
                                                                      OpPatternKind.kOutEWiseFusable)

                    if self.check_path(graph_node, dom_parent, fcond):
                        self.commit_fuse(graph_node, dom_parent)
            elif group_node.pattern in (OpPatternKind.kInjective, OpPatternKind.kTuple):
                if phase != 1:
                    continue
                if self.check_path(graph_node, dom_parent, lambda k, sink: k <= OpPatternKind.kInjective):
                    self.commit_fuse(graph_node, dom_parent)
            # kCommReduce: nothing to do


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
        name = fresh_name(self.names, hint)
        self.names.add(name)
        gv = rx.GlobalVar(name)
        self.gvars[name] = gv
        self.by_hash.setdefault(h, []).append((name, func))
        self.added.append((name, func))
        return gv


class _OperatorFusor(BindingMutator):
    def __init__(self, module: IRModule, obj2group: Dict[int, _Group], table: _FunctionTable,
                 names: _Names) -> None:
        super().__init__(module)
        self.module = module
        self.obj2group = obj2group
        self.table = table
        self.names = names
        self.group_deps: Dict[int, List[_Group]] = {}
        self.tuple_get_indices: Dict[rx.Var, int] = {}

    def group_of(self, var: rx.Var) -> _Group:
        g = self.obj2group.get(id(var))
        if g is None:
            raise RelaxError(f"FuseOps: variable {var.name_hint} could not be found in any group")
        return g.find_root()

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return super().visit_block(b)
        bindings = b.bindings
        group2func: Dict[int, Tuple[_Group, _FunctionCreator]] = {}
        # collect the bindings of each multi-binding group
        for binding in bindings:
            g = self.group_of(binding.var)
            if g.num_nodes == 1 and not g.attrs:
                continue
            if id(g) not in group2func:
                group2func[id(g)] = (g, _FunctionCreator(True))
            group2func[id(g)][1].append_binding(binding)
        # the boundary of each group
        for binding in bindings:
            cur = self.group_of(binding.var)
            for used in _post_order_leaves(binding.value):
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
                for k, v in enumerate(creator.output_vars):
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
        order: List[_Group] = []
        for binding in bindings:
            g = self.group_of(binding.var)
            order.append(g)
            per_group.setdefault(id(g), []).append(binding)
        visited: Set[int] = set()
        out: List[rx.Binding] = []

        def dfs(g: _Group) -> None:
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
    creator = _GraphCreator(mod)
    graph = creator.create()
    groups = _Partitioner(opt_level, max_fuse_depth).partition(graph)
    obj2group = {id(graph.post_dfs_order[i].ref): groups[i].find_root() for i in range(len(groups))}
    table = _FunctionTable(mod)
    replace: Dict[str, rx.Function] = {}
    for gv, f in mod.functions_items():
        if not isinstance(f, rx.Function) or _is_primitive(f):
            continue
        names = _Names()
        names.taken |= _var_names(f)
        new = _OperatorFusor(mod, obj2group, table, names).visit_expr(f)
        if new is not f:
            replace[gv.name_hint] = new
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


__all__ = ["FuseOps", "fuse_ops", "MAX_FUSED_OPS"]

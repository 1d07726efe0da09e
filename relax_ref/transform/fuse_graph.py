"""The analysis half of FuseOps (PASS.FUSEOPS.1-3): the indexed forward graph of the bindings, its
post-dominator tree and the partition of the nodes into fusion groups (union-find), after TVM 0.25's
``graph_partitioner.cc``. :mod:`relax_ref.transform.fuse_ops` describes the rules and builds the
fused functions from the groups.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import expr_children
from ..ir.module import IRModule
from .annotate_tir_op_pattern import OpPatternKind

LEAF_NODE_TYPES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm)


# ---------------------------------------------------------------------------------------------------
# The indexed forward graph (PASS.FUSEOPS.1)
# ---------------------------------------------------------------------------------------------------


class Node:
    __slots__ = ("ref", "index", "extern_ref", "pattern", "outputs")

    def __init__(self) -> None:
        self.ref = None
        self.index = -1
        self.extern_ref = False
        self.pattern: Optional[OpPatternKind] = None
        self.outputs: List[Tuple["Node", OpPatternKind]] = []


class Graph:
    def __init__(self) -> None:
        self.node_map: Dict[int, Node] = {}
        self.post_dfs_order: List[Node] = []


def is_primitive(f) -> bool:
    return isinstance(f, rx.Function) and bool(f.attrs.get("Primitive")) or \
        isinstance(f, rx.Function) and f.attrs.get("Codegen") is not None


class GraphCreator:
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.graph = Graph()
        self.input_params: Set[int] = set()

    def create(self) -> Graph:
        for _, f in self.mod.functions_items():
            if isinstance(f, rx.Function) and not is_primitive(f):
                self.visit_function(f)
        return self.graph

    # -- nodes ------------------------------------------------------------------------------------
    def create_node(self, key) -> Node:
        if id(key) in self.graph.node_map:
            raise RelaxError(f"FuseOps: {key!r} appears at multiple definition sites")
        n = Node()
        self.graph.node_map[id(key)] = n
        return n

    def add_to_post_dfs(self, node: Node, key) -> None:
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
        else:
            for c in expr_children(e):
                self.visit_expr(c)

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
            for leaf in post_order_leaves(v):
                self.visit_leaf(leaf, node, OpPatternKind.kOpaque)
        self.add_to_post_dfs(node, b.var)

    def visit_call(self, call: rx.Call, node: Node) -> None:
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
            if not (isinstance(a, LEAF_NODE_TYPES) or isinstance(a, (rx.Tuple, rx.GlobalVar, rx.ExternFunc, rx.Op))):
                raise RelaxError(f"FuseOps expects call arguments to be leaves or tuples, got {type(a).__name__}",
                                 call.span)
            self.visit_leaf(a, node, pattern)

    def visit_leaf(self, leaf: rx.Expr, node: Node, pattern: OpPatternKind) -> None:
        if isinstance(leaf, rx.Tuple):
            for f in leaf.fields:
                self.visit_leaf(f, node, pattern)
            return
        if not isinstance(leaf, LEAF_NODE_TYPES):
            return
        leaf_node = self.graph.node_map.get(id(leaf))
        if leaf_node is None:
            leaf_node = self.create_node(leaf)
            leaf_node.pattern = OpPatternKind.kOpaque
            self.add_to_post_dfs(leaf_node, leaf)
        leaf_node.outputs.append((node, pattern))


def post_order_leaves(e: rx.Expr) -> List[rx.Expr]:
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


class DomNode:
    __slots__ = ("gnode", "parent", "depth", "pattern")

    def __init__(self, gnode: Node) -> None:
        self.gnode = gnode
        self.parent: Optional["DomNode"] = None
        self.depth = 0
        self.pattern = OpPatternKind.kOpaque


def _lca(lhs: Optional[DomNode], rhs: Optional[DomNode], pattern: List[OpPatternKind]) -> Optional[DomNode]:
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


def post_dom_tree(graph: Graph) -> List[DomNode]:
    nodes: List[Optional[DomNode]] = [None] * len(graph.post_dfs_order)
    for index in range(len(graph.post_dfs_order) - 1, -1, -1):
        gnode = graph.post_dfs_order[index]
        t = DomNode(gnode)
        if gnode.extern_ref:
            t.depth = 1
            t.parent = None
            t.pattern = OpPatternKind.kOpaque
        else:
            pattern = [OpPatternKind.kElemWise]
            parent: Optional[DomNode] = None
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


class Group:
    __slots__ = ("parent", "pattern", "root_ref", "anchor_ref", "num_nodes", "attrs")

    def __init__(self, pattern: OpPatternKind, ref) -> None:
        self.parent: Optional["Group"] = None
        self.pattern = pattern
        self.root_ref = ref
        self.anchor_ref = ref if pattern == OpPatternKind.kOutEWiseFusable else None
        self.num_nodes = 1
        self.attrs: Dict[str, object] = {}

    def find_root(self) -> "Group":
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


class Partitioner:
    def __init__(self, opt_level: int, max_fuse_depth: int) -> None:
        self.opt_level = opt_level
        self.max_fuse_depth = max_fuse_depth
        self.groups: List[Group] = []
        self.visited: Set[int] = set()

    def partition(self, graph: Graph) -> List[Group]:
        self.groups = [Group(n.pattern, n.ref) for n in graph.post_dfs_order]
        if self.opt_level == 0:
            return self.groups
        tree = post_dom_tree(graph)
        for phase in range(3):
            self.run_fuse(graph, tree, phase)
        return self.groups

    def _check_path_(self, src: Node, sink: Node, fcond) -> bool:
        if id(src) in self.visited:
            return True
        self.visited.add(id(src))
        g = self.groups[src.index].find_root()
        if not fcond(g.pattern, src is sink):
            return False
        if src is sink:
            return True
        return all(self._check_path_(out, sink, fcond) for out, _ in src.outputs)

    def check_path(self, src: Node, sink: Node, fcond) -> bool:
        self.visited = set()
        return all(self._check_path_(out, sink, fcond) for out, _ in src.outputs)

    def merge_from_to(self, child: Group, parent: Group) -> None:
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

    def _commit_fuse_(self, src: Node, sink: Node, target: Group) -> None:
        if src is sink or id(src) in self.visited:
            return
        self.visited.add(id(src))
        self.merge_from_to(self.groups[src.index], target)
        for out, _ in src.outputs:
            self._commit_fuse_(out, sink, target)

    def commit_fuse(self, src: Node, sink: Node) -> None:
        target = self.groups[sink.index]
        self.visited = set()
        self._commit_fuse_(src, sink, target)

    def _count_nodes_upto_sink(self, src: Node, sink: Node) -> int:
        if src is sink or id(src) in self.visited:
            return 0
        self.visited.add(id(src))
        total = self.groups[src.index].num_nodes
        for out, _ in src.outputs:
            total += self._count_nodes_upto_sink(out, sink)
        return total

    def count_fused_nodes_with_new_child(self, child: Node, dom_parent: Node) -> int:
        target = self.groups[dom_parent.index]
        self.visited = set()
        return target.find_root().num_nodes + self._count_nodes_upto_sink(child, dom_parent)

    def run_fuse(self, graph: Graph, tree: List[DomNode], phase: int) -> None:
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


__all__ = ["Node", "Graph", "GraphCreator", "is_primitive", "post_order_leaves", "DomNode", "post_dom_tree",
           "Group", "Partitioner", "LEAF_NODE_TYPES"]

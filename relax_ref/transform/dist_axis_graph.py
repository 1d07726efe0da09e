"""The axis-group graph of PropagateSharding (PASS.SHARD.2-5): which tensor axes of a function must be
sharded alike, and the propagation of sharding annotations through it.

Follows TVM's ``include/tvm/relax/distributed/axis_group_graph.h`` and
``src/relax/distributed/axis_group_graph.cc``.

* A node is an *axis* ``(tensor, dim, tuple_index)`` of a variable or constant; ``dim == -1`` stands
  for the tensor as a whole and carries its device mesh.
* An edge joins two axes that are the same axis of a computation, typed by the producer/consumer
  direction: ``DESCEND`` (producer to consumer), ``ASCEND`` (the reverse) or ``SIBLING`` (two
  operands, e.g. the contracted axes of a matmul). :func:`build_graph` adds the edges of each
  binding (PASS.SHARD.2).
* A *source* is an axis with a spec ``(mesh, mesh_axis)`` from an annotation; each source's spec
  spreads depth first through the graph, stopping at cut points and at other sources of another
  spec. The priority of a spec at an axis is that of the path that reached it: 3 at the source, 2
  for a producer-to-consumer path, 0 for a consumer-to-producer path, 1 for a mixed path. An axis
  takes the spec of highest priority; two specs of equal highest priority are an error
  (PASS.SHARD.3).

TVM's path object accumulates the directions of the edges already tried at a node (the path is
updated in place while the node's edges are walked), so a later edge of a node inherits the
directions of the earlier ones; relax-ref does the same (PASS.SHARD.3).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.distributed import DeviceMesh, DTensorStructInfo
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from ..ops.dist_infer import BINARY, REDUCE, SOFTMAX, UNARY, reshape_axis_pairs

ASCEND, SIBLING, DESCEND = 0, 1, 2
_REVERSE = {ASCEND: DESCEND, DESCEND: ASCEND, SIBLING: SIBLING}

#: operators whose operand and result axes are joined one to one (PASS.SHARD.2)
UNARY_OPS = frozenset(UNARY | {"relax.dist.annotate_sharding", "relax.builtin.stop_lift_params"})
BINARY_OPS = frozenset(BINARY - {"relax.where"})
REDUCE_OPS = frozenset(REDUCE | SOFTMAX)

Axis = Tuple[int, int, int]          # (id of the tensor expression, dim, tuple index)
Spec = Tuple[DeviceMesh, int]        # (mesh, mesh axis); mesh axis -1 for the mesh of a whole tensor


def _priority(direction: int) -> int:
    if direction == 0:
        return 3
    if direction == 1 << ASCEND:
        return 0
    if direction == 1 << DESCEND:
        return 2
    return 1


class AxisGroupGraph:
    """Axes, typed edges, sources and cut points (PASS.SHARD.2-3)."""

    def __init__(self) -> None:
        self.edges: Dict[Axis, List[Tuple[Axis, int]]] = {}
        self.sources: Dict[Axis, Spec] = {}
        self.cuts: Dict[Axis, Spec] = {}
        self.specs: Dict[Axis, Dict[Spec, int]] = {}
        self._keep: List[object] = []      # the expressions whose ids are keys

    def axis(self, e: rx.Expr, dim: int, index: int = 0) -> Axis:
        self._keep.append(e)
        return (id(e), dim, index)

    def join(self, a: Axis, b: Axis, kind: int) -> None:
        self.edges.setdefault(a, []).append((b, kind))
        self.edges.setdefault(b, []).append((a, _REVERSE[kind]))

    def add_source(self, a: Axis, spec: Spec) -> None:
        self.sources[a] = spec

    def add_cut(self, a: Axis, spec: Spec) -> None:
        self.cuts[a] = spec

    def propagate(self) -> None:
        self.specs = {}
        for a, spec in self.sources.items():
            self._spread(a, spec)
        self._choose()

    def _spread(self, start: Axis, spec: Spec) -> None:
        visited: Set[Axis] = set()
        # an explicit depth-first walk: [axis, accumulated direction, remaining edges]
        if not self._enter(start, spec, 0, visited):
            return
        stack = [[start, 0, iter(self.edges.get(start, ()))]]
        while stack:
            frame = stack[-1]
            nxt = next(frame[2], None)
            if nxt is None:
                stack.pop()
                continue
            dst, kind = nxt
            frame[1] |= 1 << kind             # TVM's Path::AddEdge updates the path in place
            if self._enter(dst, spec, frame[1], visited):
                stack.append([dst, frame[1], iter(self.edges.get(dst, ()))])

    def _enter(self, a: Axis, spec: Spec, direction: int, visited: Set[Axis]) -> bool:
        src = self.sources.get(a)
        if a in self.cuts or (src is not None and src != spec) or a in visited:
            return False
        visited.add(a)
        self.specs.setdefault(a, {})[spec] = _priority(direction)
        return True

    def _choose(self) -> None:
        for a, specs in self.specs.items():
            best = max(specs.values())
            top = {s: p for s, p in specs.items() if p == best}
            if len(top) != 1:
                raise UnsupportedError(f"PropagateSharding: an axis (dim {a[1]}) receives {len(top)} different shardings "
                                       f"of equal priority (PASS.SHARD.3)")
            self.specs[a] = top

    def spec_of(self, a: Axis) -> Optional[Spec]:
        s = self.specs.get(a)
        return next(iter(s)) if s else None


# ---------------------------------------------------------------------------------------------------
# Edges of Relax operators (PASS.SHARD.2)
# ---------------------------------------------------------------------------------------------------


def tensor_of(s) -> Optional[TensorStructInfo]:
    """The (global) tensor struct info of a Tensor or DTensor struct info."""
    if isinstance(s, DTensorStructInfo):
        return s.tensor
    if isinstance(s, TensorStructInfo):
        return s
    return None


def _shape(e: rx.Expr) -> Optional[Tuple[P.PrimExpr, ...]]:
    t = tensor_of(e.struct_info)
    v = t.shape_values if t is not None else None
    return tuple(v) if v is not None else None


def _equal(a: P.PrimExpr, b) -> bool:
    from ..arith import can_prove_equal

    return can_prove_equal(a, b)


def _unary(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    if not isinstance(call.args[0], rx.Var):
        return
    n = tensor_of(out.struct_info).ndim
    for i in range(n):
        g.join(g.axis(call.args[0], i), g.axis(out, i), DESCEND)


def _broadcast(g: AxisGroupGraph, out: rx.Var, x1: rx.Expr, x2: rx.Expr, s1, s2, offset: int = 0) -> None:
    """Right-aligned axes of equal extent join both operands to the result; an extent 1 joins only
    the other operand; leading axes of the longer operand join the result (PASS.SHARD.2)."""
    n1, n2 = len(s1), len(s2)
    top = max(n1, n2)
    for i in range(1, min(n1, n2) + 1):
        d1, d2 = s1[n1 - i], s2[n2 - i]
        if _equal(d1, d2):
            g.join(g.axis(x1, n1 - i), g.axis(out, top - i + offset), DESCEND)
            g.join(g.axis(x2, n2 - i), g.axis(out, top - i + offset), DESCEND)
        elif _equal(d1, 1):
            g.join(g.axis(x2, n2 - i), g.axis(out, top - i + offset), DESCEND)
        elif _equal(d2, 1):
            g.join(g.axis(x1, n1 - i), g.axis(out, top - i + offset), DESCEND)
        else:
            raise UnsupportedError(f"PropagateSharding: cannot broadcast {d1} and {d2} (PASS.SHARD.2)")
    longer = x1 if n1 > n2 else x2
    for i in range(abs(n1 - n2)):
        g.join(g.axis(longer, i), g.axis(out, i + offset), DESCEND)


def _binary(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    tensors = [a for a in call.args[:2] if tensor_of(a.struct_info) is not None]
    if len(tensors) < 2:
        if tensors and isinstance(tensors[0], rx.Var):
            for i in range(tensor_of(out.struct_info).ndim):
                g.join(g.axis(tensors[0], i), g.axis(out, i), DESCEND)
        return
    s1, s2 = _shape(tensors[0]), _shape(tensors[1])
    if s1 is None or s2 is None:
        raise UnsupportedError(f"PropagateSharding: {call.op.name} needs operands of known shape (PASS.SHARD.2)")
    _broadcast(g, out, tensors[0], tensors[1], s1, s2)


def _reduce(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    x = call.args[0]
    n = tensor_of(x.struct_info).ndim
    if call.op.name in SOFTMAX:
        axes, keep = [call.attrs.get("axis", -1)], True
    else:
        axes = call.attrs.get("axis")
        axes = [] if axes is None else (list(axes) if isinstance(axes, (list, tuple)) else [axes])
        keep = bool(call.attrs.get("keepdims", False))
    red = {int(a) % n for a in axes} if n > 0 else set()
    j = 0
    for i in range(n):
        if i in red:
            continue
        g.join(g.axis(x, i), g.axis(out, i if keep else j), DESCEND)
        j += 1


def _matmul(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    x1, x2 = call.args[0], call.args[1]
    s1, s2 = _shape(x1), _shape(x2)
    if s1 is None or s2 is None or not s1 or not s2:
        raise UnsupportedError("PropagateSharding: matmul needs operands of known shape (PASS.SHARD.2)")
    pre1, app2 = len(s1) == 1, len(s2) == 1
    n1, n2 = max(len(s1), 2), max(len(s2), 2)
    p1 = list(s1[:len(s1) - 2 + pre1]) if len(s1) >= 2 else []
    p2 = list(s2[:len(s2) - 2 + app2]) if len(s2) >= 2 else []
    top = max(len(p1), len(p2))
    _broadcast(g, out, x1, x2, p1, p2)
    g.join(g.axis(x1, len(s1) - 1), g.axis(x2, n2 - 2), SIBLING)       # the contracted axes
    if not pre1:
        g.join(g.axis(x1, n1 - 2), g.axis(out, top), DESCEND)
        if not app2:
            g.join(g.axis(x2, n2 - 1), g.axis(out, top + 1), DESCEND)
    elif not app2:
        g.join(g.axis(x2, n2 - 1), g.axis(out, top), DESCEND)


def _permute(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    x = call.args[0]
    n = tensor_of(x.struct_info).ndim
    axes = call.attrs.get("axes")
    axes = list(range(n))[::-1] if axes is None else [int(a) % n for a in axes]
    for i, a in enumerate(axes):
        g.join(g.axis(x, a), g.axis(out, i), DESCEND)


def _reshape(g: AxisGroupGraph, out: rx.Var, call: rx.Call) -> None:
    """The axis pairs of DIST.OP.2's reshape rule (:func:`~relax_ref.ops.dist_infer.reshape_axis_pairs`)."""
    x = call.args[0]
    old, new = _shape(x), _shape(out)
    if old is None or new is None:
        raise UnsupportedError("PropagateSharding: reshape needs known shapes (PASS.SHARD.2)")
    for i, j in reshape_axis_pairs(old, new):
        g.join(g.axis(x, i), g.axis(out, j), DESCEND)


def join_call(g: AxisGroupGraph, out: rx.Var, call: rx.Call, mod) -> None:
    """The edges of ``out = call`` (PASS.SHARD.2)."""
    name = call.op.name if isinstance(call.op, rx.Op) else None
    if tensor_of(out.struct_info) is not None and name is not None:
        if name in BINARY_OPS:
            _binary(g, out, call)
        elif name in UNARY_OPS:
            _unary(g, out, call)
        elif name in REDUCE_OPS:
            _reduce(g, out, call)
        elif name == "relax.matmul":
            _matmul(g, out, call)
        elif name == "relax.permute_dims":
            _permute(g, out, call)
        elif name == "relax.reshape":
            _reshape(g, out, call)
    if name in ("relax.call_tir", "relax.dist.call_tir") and isinstance(call.args[0], rx.GlobalVar):
        f = mod[call.args[0].name_hint] if call.args[0].name_hint in mod else None
        if isinstance(f, tir.PrimFunc):
            join_call_tir(g, out, call, f)
    args = call.args[1].fields if name == "relax.call_tir" and isinstance(call.args[1], rx.Tuple) else call.args
    for a in args:                                    # the device mesh follows every tensor operand
        if isinstance(a.struct_info, TensorStructInfo) and not isinstance(a.struct_info, DTensorStructInfo):
            g.join(g.axis(a, -1), g.axis(out, -1), DESCEND)


# ---------------------------------------------------------------------------------------------------
# Edges of TensorIR kernels (PASS.SHARD.4)
# ---------------------------------------------------------------------------------------------------


def _accesses(s, out: List[Tuple[tir.Buffer, tuple]]) -> None:
    """Buffer accesses of a block body in TVM's visiting order (a store after its value's loads)."""
    def expr(e) -> None:
        if e is None:
            return
        if isinstance(e, tir.BufferLoad):
            for i in e.indices:
                expr(i)
            out.append((e.buffer, tuple(e.indices)))
            return
        for c in P.children(e):
            expr(c)

    def stmt(x) -> None:
        if x is None:
            return
        if isinstance(x, tir.BufferStore):
            expr(x.value)
            for i in x.indices:
                expr(i)
            out.append((x.buffer, tuple(x.indices)))
            return
        from ..ir.functor import stmt_children, stmt_prim_exprs
        if not isinstance(x, (tir.Block, tir.BlockRealize)):
            for e in stmt_prim_exprs(x):
                expr(e)
        for c in stmt_children(x):
            stmt(c)

    stmt(s)


def buffer_axis_graph(func: tir.PrimFunc) -> Dict[Tuple[int, int], List[Tuple[int, int]]]:
    """``{(id(buffer), axis): [joined (id(buffer), axis), ...]}`` over every buffer of the kernel
    (PASS.SHARD.4): in each block other than ``root``, an axis of one buffer and an axis of another
    are joined when both are indexed by the same iteration variable, which starts at 0 and spans
    both extents."""
    graph: Dict[Tuple[int, int], List[Tuple[int, int]]] = {}

    def visit_block(b: tir.Block) -> None:
        for c in (b.body, b.init):
            _walk_blocks(c, visit_block)
        if b.name == "root":
            return
        acc: List[Tuple[tir.Buffer, tuple]] = []
        if b.init is not None:
            _accesses(b.init, acc)
        _accesses(b.body, acc)
        doms = {iv.var: iv.dom for iv in b.iter_vars}
        for buf, idx in acc:
            for i, e in enumerate(idx):
                for buf2, idx2 in acc:
                    if buf2 is buf:
                        continue
                    for j, e2 in enumerate(idx2):
                        if _match(e, buf.shape[i], e2, buf2.shape[j], doms):
                            graph.setdefault((id(buf), i), []).append((id(buf2), j))
                            graph.setdefault((id(buf2), j), []).append((id(buf), i))

    _walk_blocks(func.body, visit_block)
    return graph


def axis_group(graph, start: Tuple[int, int], visited: Set[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The axes connected to ``start`` not yet ``visited`` (depth first, in TVM's order)."""
    group, stack = [], [start]
    while stack:
        cur = stack.pop()
        if cur in visited:
            continue
        visited.add(cur)
        group.append(cur)
        stack.extend(reversed(graph.get(cur, [])))
    return group


def buffer_axis_groups(func: tir.PrimFunc) -> List[List[Tuple[int, int]]]:
    """Groups of ``(parameter index, axis)`` of a kernel's buffer parameters joined in
    :func:`buffer_axis_graph` (PASS.SHARD.4); groups of one axis are left out."""
    graph = buffer_axis_graph(func)
    params = {}
    for k, p in enumerate(func.params):
        b = func.buffer_of(p)
        if b is not None:
            params[id(b)] = k
    visited: Set[Tuple[int, int]] = set()
    groups = []
    for k, p in enumerate(func.params):
        b = func.buffer_of(p)
        if b is None:
            continue
        for i in range(len(b.shape)):
            if (id(b), i) not in graph or (id(b), i) in visited:
                continue
            group = axis_group(graph, (id(b), i), visited)
            if len(group) > 1:
                groups.append([(params[bid], ax) for bid, ax in group if bid in params])
    return groups


def _walk_blocks(s, fn) -> None:
    from ..ir.functor import stmt_children

    if s is None:
        return
    if isinstance(s, tir.Block):
        fn(s)
        return
    for c in stmt_children(s):
        _walk_blocks(c, fn)


def _terms(e, doms) -> Optional[List[Tuple[P.PrimExpr, P.PrimVar, P.PrimExpr, P.PrimExpr]]]:
    """``e`` as a sum of ``scale * ((v // lower) % extent)`` terms of block iteration variables
    ``v`` (each term as ``(scale, v, lower, extent)``), or None."""
    if isinstance(e, P.Add):
        a, b = _terms(e.a, doms), _terms(e.b, doms)
        return None if a is None or b is None else a + b
    scale: P.PrimExpr = P.IntImm(1, "int64")
    if isinstance(e, P.Mul) and isinstance(e.b, P.IntImm):
        scale, e = e.b, e.a
    elif isinstance(e, P.Mul) and isinstance(e.a, P.IntImm):
        scale, e = e.a, e.b
    ext = None
    if isinstance(e, P.FloorMod) and isinstance(e.b, P.IntImm):
        ext, e = e.b, e.a
    lower: P.PrimExpr = P.IntImm(1, "int64")
    if isinstance(e, P.FloorDiv) and isinstance(e.b, P.IntImm):
        lower, e = e.b, e.a
    if not isinstance(e, P.PrimVar) or e not in doms or not _equal(doms[e].min, 0):
        return None
    if ext is None:
        ext = P.floordiv(P.add(doms[e].extent, P.sub(lower, P.IntImm(1, "int64"))), lower)
    return [(scale, e, lower, ext)]


def sharding_var(index, doms) -> Optional[P.PrimVar]:
    """TVM's ``GetShardingVarFromIndex``: the iteration variable of the outermost term of ``index``
    (a sum of scaled splits of block iteration variables, with no constant part) when that term's
    modulus takes no effect; else None (PASS.SHARD.4)."""
    if isinstance(index, P.PrimVar):
        return index
    from ..arith import can_prove

    terms = _terms(index, doms)
    if not terms or not all(isinstance(t[0], P.IntImm) for t in terms):
        return None
    scale, v, lower, ext = max(terms, key=lambda t: t[0].value)
    return v if can_prove(P.le(P.floordiv(doms[v].extent, lower), ext)) else None


def _spans(index, shape, doms) -> bool:
    """Whether ``index`` ranges over exactly ``[0, shape)`` (TVM's ``EvalSet(...).MatchRange``)."""
    if isinstance(index, P.PrimVar):
        return index in doms and _equal(doms[index].min, 0) and _equal(doms[index].extent, shape)
    terms = _terms(index, doms)
    if not terms:
        return False
    top: P.PrimExpr = P.IntImm(0, "int64")
    for scale, _v, _lower, ext in terms:
        top = P.add(top, P.mul(scale, P.sub(ext, P.IntImm(1, "int64"))))
    return _equal(P.add(top, P.IntImm(1, "int64")), shape)


def _match(a, shape_a, b, shape_b, doms) -> bool:
    """TVM's ``BufferAxisGraphExtractor::Match``: ``a`` (or ``b``, swapped) is an iteration variable
    spanning its buffer axis, and ``b`` spans its axis with ``a`` as its sharding variable."""
    if isinstance(b, P.PrimVar):
        a, b, shape_a, shape_b = b, a, shape_b, shape_a
    if not isinstance(a, P.PrimVar) or a not in doms:
        return False
    if not _equal(shape_a, doms[a].extent) or not _spans(b, shape_b, doms):
        return False
    return sharding_var(b, doms) is a


def join_call_tir(g: AxisGroupGraph, out: rx.Var, call: rx.Call, func: tir.PrimFunc) -> None:
    """The edges of a ``call_tir`` from its kernel's axis groups (PASS.SHARD.4): in a group that
    holds an output buffer, every input axis joins that output axis (producer to consumer); in a
    group of inputs only, the inputs are joined as siblings."""
    if not isinstance(call.args[1], rx.Tuple):
        return
    operands: List[rx.Expr] = list(call.args[1].fields) + [out]
    n_params = len(func.params)
    out_si = call.sinfo_args[0] if call.sinfo_args else None
    n_out = len(out_si.fields) if isinstance(out_si, TupleStructInfo) else 1
    relax_of = {k: operands[k] for k in range(min(len(operands), n_params)) if func.buffer_of(func.params[k]) is not None}
    for group in buffer_axis_groups(func):
        outs = {m: k - (n_params - n_out) for m, (k, _ax) in enumerate(group) if k >= n_params - n_out}
        if not outs:
            first = group[0]
            for k, ax in group[1:]:
                if k in relax_of and first[0] in relax_of:
                    g.join(g.axis(relax_of[k], ax), g.axis(relax_of[first[0]], first[1]), SIBLING)
            continue
        for m, t_index in outs.items():
            for i, (k, ax) in enumerate(group):
                if i not in outs and k in relax_of:
                    g.join(g.axis(relax_of[k], ax), g.axis(out, group[m][1], t_index), DESCEND)


__all__ = ["AxisGroupGraph", "ASCEND", "DESCEND", "SIBLING", "join_call", "join_call_tir", "buffer_axis_groups", "buffer_axis_graph", "axis_group",
           "tensor_of", "sharding_var", "UNARY_OPS", "BINARY_OPS", "REDUCE_OPS"]

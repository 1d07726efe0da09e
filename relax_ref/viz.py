"""A picture of a Relax function: the dataflow graph of its bindings (``relax-ref viz``).

Nodes are parameters, bindings and the return value; an edge runs from the binding (or parameter)
that defines a variable to every binding that uses it, labelled with the variable's struct info in
short form (``(n, 4) f32``). Node kinds are told apart by shape and colour:

=====================  =====================================================================
kind                   drawing
=====================  =====================================================================
parameter              ellipse, grey
operator call          box (``lv = R.matmul``; literal shape / scalar arguments and attributes
                       on further lines)
``call_tir``           3-D box, blue, with the PrimFunc name (``call_tir_inplace`` too)
packed call            folded box, orange: ``R.call_packed`` / ``R.call_pure_packed`` /
                       ``R.call_dps_packed`` / ``call_inplace_packed`` and calls of an ``ExternFunc``
call of a function     component box, green (``cls.f``), unless the function is fused (below)
``match_cast``         diamond
tuple / tuple item     small boxes
constant               note (shape and dtype, or the value of a scalar)
return                 double octagon
=====================  =====================================================================

Boxes (graphviz clusters): every dataflow block is a dashed box. A *fused group* is a bold, yellow
box: a call of a Relax function with attribute ``Primitive`` (what FuseOps produces) is drawn as the
callee's own bindings inside the box, wired to the caller's arguments; a ``call_tir`` of a fused
PrimFunc (named ``fused_*``, what FuseTIR produces) is drawn inside a box that lists the PrimFunc's
blocks. The two branches of an ``If`` are boxes of their own, joined at the ``If``'s variable.

How much is drawn (``relax-ref viz --function F --collapse --depth N --compact``):

* ``depth``: calls of the module's Relax functions, fused or not, are drawn inside their callers up
  to ``depth`` levels; a deeper call (or every call with ``collapse``, which is ``depth=0``) is one
  node ``lv = cls.f`` whose second line lists what ``f`` computes (``matmul, add, relu``). Without a
  depth, fused groups are drawn inside up to 4 levels and other calls are one node.
* ``compact``: the function's weights (parameters after its ``num_input`` attribute, as the module
  library and TVM's frontends mark them) are named inside their users' labels (``w: q_proj_weight``)
  instead of being nodes with long edges, attributes share lines, edges carry no struct info and the
  spacing is tighter. A decoder layer of a fused model then reads as one column of about twenty nodes:
  the two-layer decode step of ``examples/llama_tiny.py`` after LegalizeOps, AnnotateTIROpPattern and
  FuseOps is 1992x2729 pixels with ``--collapse --compact``, against 4215x6963 by default (2282x6479
  before fusion).

:func:`function_graph` returns a ``graphviz.Digraph``; :func:`render` writes SVG, PNG or DOT. The
Python package ``graphviz`` is needed for both, the ``dot`` program (Debian package ``graphviz``) for
SVG and PNG; without them an ``UnsupportedError`` says what to install.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import UnsupportedError, WellFormedError, did_you_mean
from .ir import expr as rx
from .ir import prim_expr as P
from .ir import struct_info as si
from .ir import tir
from .ir.module import IRModule

FORMATS = ("svg", "png", "dot")

_STYLE = {
    "param": dict(shape="ellipse", style="filled", fillcolor="#e8e8e8"),
    "op": dict(shape="box", style="rounded"),
    "call_tir": dict(shape="box3d", style="filled", fillcolor="#cfe2f3"),
    "packed": dict(shape="folder", style="filled", fillcolor="#fce5cd"),
    "func": dict(shape="component", style="filled", fillcolor="#d9ead3"),
    "fused": dict(shape="component", style="filled,bold", fillcolor="#fff2cc", color="#b45f06"),
    "match_cast": dict(shape="diamond"),
    "tuple": dict(shape="box", style="dashed", fontsize="10"),
    "const": dict(shape="note", fontsize="10"),
    "leaf": dict(shape="box", fontsize="10"),
    "if": dict(shape="invtriangle"),
    "return": dict(shape="doubleoctagon", style="filled", fillcolor="#f4cccc"),
}

_PACKED_OPS = ("relax.call_pure_packed", "relax.call_dps_packed", "relax.call_inplace_packed")
_TIR_OPS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad")
_DTYPE_SHORT = {"float32": "f32", "float16": "f16", "float64": "f64", "bfloat16": "bf16", "int32": "i32",
                "int64": "i64", "int8": "i8", "uint8": "u8", "bool": "bool", "void": "?"}


def _graphviz():
    try:
        import graphviz
    except ImportError:
        raise UnsupportedError("relax-ref viz needs the Python package 'graphviz' (pip install graphviz) and "
                               "the 'dot' program (Debian/Ubuntu: apt-get install graphviz)") from None
    return graphviz


def _dims_text(dims: Sequence[P.PrimExpr]) -> str:
    inner = ", ".join(P.to_str(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


def short_struct_info(s: Optional[si.StructInfo]) -> str:
    """A compact form of struct info for edge labels: ``(n, 4) f32``, ``shape(n, 4)``, ``i64``,
    ``tuple(3)``, ``obj``, ``fn``."""
    if s is None:
        return ""
    if isinstance(s, si.TensorStructInfo):
        dt = _DTYPE_SHORT.get(s.dtype, s.dtype)
        dims = s.shape_values
        if dims is not None:
            return f"{_dims_text(dims)} {dt}"
        return f"ndim={s.ndim} {dt}" if s.ndim >= 0 else f"tensor {dt}"
    if isinstance(s, si.ShapeStructInfo):
        if s.values is not None:
            return f"shape{_dims_text(s.values)}"
        return f"shape(ndim={s.ndim})"
    if isinstance(s, si.PrimStructInfo):
        dt = _DTYPE_SHORT.get(s.dtype, s.dtype)
        return f"{dt} = {P.to_str(s.value)}" if s.value is not None else dt
    if isinstance(s, si.TupleStructInfo):
        return f"tuple({len(s.fields)})"
    if isinstance(s, si.FuncStructInfo):
        return "fn"
    return "obj"


def _literal(e: rx.Expr) -> Optional[str]:
    """Text of an argument shown inside its user's label (not as an edge), or None."""
    if isinstance(e, rx.ShapeExpr):
        return f"shape({', '.join(P.to_str(v) for v in e.values)})"
    if isinstance(e, rx.PrimValue):
        return P.to_str(e.value)
    if isinstance(e, rx.StringImm):
        return repr(e.value)
    if isinstance(e, rx.DataTypeImm):
        return e.value
    if isinstance(e, rx.Constant) and e.data.ndim == 0:
        return f"const {e.data.item()!r}"
    if isinstance(e, rx.Tuple) and e.fields and all(_literal(f) is not None for f in e.fields):
        return "(" + ", ".join(_literal(f) for f in e.fields) + ")"
    return None


def _attr_text(v: Any) -> str:
    if isinstance(v, P.PrimExpr):
        return P.to_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_attr_text(x) for x in v) + "]"
    return repr(v) if isinstance(v, str) else str(v)


def _prim_blocks(f: tir.PrimFunc) -> List[str]:
    from .ir.functor import post_order_visit_stmt

    names: List[str] = []

    def visit(s):
        if isinstance(s, tir.Block) and s.name and s.name != "root":
            names.append(s.name)

    post_order_visit_stmt(f.body, visit)
    return names


class _Scope:
    """One graphviz (sub)graph being filled plus the variable -> node map visible in it."""

    def __init__(self, graph, defs: Dict[int, Tuple[str, Optional[si.StructInfo]]]) -> None:
        self.graph = graph
        self.defs = defs


#: default nesting of fused groups drawn inside their callers when no depth is given
FUSED_DEPTH = 4


def _wrap(items: Sequence[str], width: int = 36) -> List[str]:
    """``items`` joined by ``, `` into lines of about ``width`` characters (compact labels)."""
    lines: List[str] = []
    for it in items:
        if lines and len(lines[-1]) + 2 + len(it) <= width:
            lines[-1] += ", " + it
        else:
            lines.append(it)
    return lines


def _short_name(name: str, limit: int = 36) -> str:
    """A long generated name (``fused_reshape2_strided_slice2_tir_negative1_...``) cut to ``limit``
    characters; the node's second line says what the function computes."""
    return name if len(name) <= limit else name[:limit - 1] + "…"


def _callee_summary(mod: IRModule, f: rx.Function, limit: int = 4) -> str:
    """What a collapsed call computes: the operators and PrimFuncs its body calls, in order, each
    once (``matmul, add, relu``; ``+2 more`` past ``limit``)."""
    from .ir.functor import ExprVisitor

    names: List[str] = []

    class _Calls(ExprVisitor):
        def visit_Call(self, e: rx.Call) -> None:
            self.generic_visit_expr(e)
            add(e)

    def add(e: rx.Call) -> None:
        op = e.op
        if isinstance(op, rx.Op):
            if op.name in _TIR_OPS and e.args and isinstance(e.args[0], rx.GlobalVar):
                name = e.args[0].name_hint
            else:
                name = op.name.replace("relax.", "")
        elif isinstance(op, rx.GlobalVar):
            name = f"cls.{op.name_hint}"
        else:
            return
        if name not in names:
            names.append(name)

    _Calls().visit_expr(f.body)
    head = ", ".join(names[:limit])
    return head + (f", +{len(names) - limit} more" if len(names) > limit else "")


class _Builder:
    def __init__(self, mod: IRModule, depth: Optional[int] = None, compact: bool = False) -> None:
        self.gv = _graphviz()
        self.compact = compact
        #: weights drawn inside their users' labels (compact): id(param) -> its name
        self.weights: Dict[int, str] = {}
        self.mod = mod
        self.count = 0
        self.clusters = 0
        #: None: fused groups drawn inside their callers up to FUSED_DEPTH levels, other calls as one
        #: node; N: calls of any Relax function of the module drawn inside up to N levels (0: none)
        self.depth = depth
        #: edges are added to the top-level graph at the end: an edge statement inside a cluster
        #: would pull both of its nodes into that cluster
        self.edges: List[Tuple[str, str, str]] = []

    # -- ids and drawing helpers ----------------------------------------------------------------
    def fresh(self) -> str:
        self.count += 1
        return f"n{self.count}"

    def cluster(self, parent, label: str, **attrs):
        self.clusters += 1
        sub = parent.subgraph(name=f"cluster_{self.clusters}")
        g = sub.__enter__()
        g.attr(label=label, **attrs)
        return sub, g

    def node(self, graph, kind: str, label: str) -> str:
        nid = self.fresh()
        graph.node(nid, label=label, **_STYLE[kind])
        return nid

    def edge(self, graph, src: str, dst: str, s: Optional[si.StructInfo]) -> None:
        self.edges.append((src, dst, short_struct_info(s)))

    def weight_lines(self, args: Sequence[rx.Expr]) -> List[str]:
        """``w: NAME`` for each argument that is a weight drawn inside the label (compact)."""
        out: List[str] = []
        for a in args:
            if isinstance(a, rx.Tuple):
                out += self.weight_lines(a.fields)
            elif isinstance(a, rx.Var) and id(a) in self.weights:
                out.append(f"w: {self.weights[id(a)]}")
        return out

    # -- inputs of a node ----------------------------------------------------------------------
    def connect(self, scope: _Scope, arg: rx.Expr, dst: str) -> None:
        """Edges for one argument: variables from their definition, tuples field by field, tensor
        constants as their own node; literals are part of the label and give no edge."""
        if isinstance(arg, rx.Var) and id(arg) in self.weights:
            return  # named in the label
        if isinstance(arg, rx.Var):
            d = scope.defs.get(id(arg))
            if d is None:
                raise WellFormedError(f"viz: variable {arg.name_hint} is used before it is defined")
            self.edge(scope.graph, d[0], dst, arg.struct_info)
        elif isinstance(arg, rx.Tuple):
            for f in arg.fields:
                self.connect(scope, f, dst)
        elif isinstance(arg, rx.Constant) and arg.data.ndim > 0:
            c = self.node(scope.graph, "const", f"const\n{short_struct_info(arg.struct_info)}")
            self.edge(scope.graph, c, dst, arg.struct_info)
        elif isinstance(arg, rx.GlobalVar):
            pass  # the callee is named in the label

    # -- functions and bodies ------------------------------------------------------------------
    def function(self, graph, f: rx.Function, name: str) -> None:
        scope = _Scope(graph, {})
        num_input = f.attrs.get("num_input") if self.compact else None
        for i, p in enumerate(f.params):
            if isinstance(num_input, int) and i >= num_input:
                self.weights[id(p)] = p.name_hint
                continue
            nid = self.node(graph, "param", f"{p.name_hint}\n{short_struct_info(p.struct_info)}")
            scope.defs[id(p)] = (nid, p.struct_info)
        out = self.seq(scope, f.body, depth=0)
        ret = self.node(graph, "return", "return")
        self.edge(graph, out[0], ret, f.body.body.struct_info)
        graph.attr(label=f"{name}", labelloc="t", fontsize="16")

    def seq(self, scope: _Scope, body: rx.SeqExpr, depth: int, boxed: bool = True
            ) -> Tuple[str, Optional[si.StructInfo]]:
        """Draw the blocks of ``body`` (dataflow blocks boxed unless ``boxed`` is False); returns
        the node producing its value."""
        for block in body.blocks:
            if isinstance(block, rx.DataflowBlock) and boxed:
                sub, g = self.cluster(scope.graph, "dataflow", style="dashed", color="#888888")
                try:
                    inner = _Scope(g, scope.defs)
                    for b in block.bindings:
                        self.binding(inner, b, depth)
                finally:
                    sub.__exit__(None, None, None)
            else:
                for b in block.bindings:
                    self.binding(scope, b, depth)
        return self.value_node(scope, body.body)

    def value_node(self, scope: _Scope, e: rx.Expr) -> Tuple[str, Optional[si.StructInfo]]:
        """The node producing a leaf or tuple value (a fresh node for tuples and literals)."""
        if isinstance(e, rx.Var):
            d = scope.defs.get(id(e))
            if d is None:
                raise WellFormedError(f"viz: variable {e.name_hint} is used before it is defined")
            return d
        if isinstance(e, rx.Tuple):
            nid = self.node(scope.graph, "tuple", "tuple" if e.fields else "()")
            for f in e.fields:
                self.connect(scope, f, nid)
            return nid, e.struct_info
        lit = _literal(e)
        nid = self.node(scope.graph, "leaf" if not isinstance(e, rx.Constant) else "const",
                        lit if lit is not None else short_struct_info(e.struct_info))
        return nid, e.struct_info

    def binding(self, scope: _Scope, b: rx.Binding, depth: int) -> None:
        v = b.var
        value = b.value
        if isinstance(b, rx.MatchCast):
            nid = self.node(scope.graph, "match_cast", f"{v.name_hint} = match_cast\n{short_struct_info(b.struct_info)}")
            self.connect(scope, value, nid)
        elif isinstance(value, rx.Call):
            nid = self.call(scope, v, value, depth)
        elif isinstance(value, rx.Tuple):
            nid = self.node(scope.graph, "tuple", f"{v.name_hint} = tuple")
            self.connect(scope, value, nid)
        elif isinstance(value, rx.TupleGetItem):
            nid = self.node(scope.graph, "tuple", f"{v.name_hint} = [{value.index}]")
            self.connect(scope, value.tuple_value, nid)
        elif isinstance(value, rx.If):
            nid = self.if_(scope, v, value, depth)
        elif isinstance(value, rx.Var):
            nid = self.node(scope.graph, "leaf", f"{v.name_hint} = {value.name_hint}")
            self.connect(scope, value, nid)
        elif isinstance(value, rx.Function):
            nid = self.node(scope.graph, "func", f"{v.name_hint} = local function")
        else:
            lit = _literal(value)
            kind = "const" if isinstance(value, rx.Constant) else "leaf"
            text = lit if lit is not None else short_struct_info(value.struct_info)
            nid = self.node(scope.graph, kind, f"{v.name_hint} = {text}")
        scope.defs[id(v)] = (nid, v.struct_info)

    # -- calls ---------------------------------------------------------------------------------
    def call(self, scope: _Scope, v: rx.Var, call: rx.Call, depth: int) -> str:
        op = call.op
        extra: List[str] = []
        if isinstance(op, rx.Op):
            if op.name in _TIR_OPS and call.args and isinstance(call.args[0], rx.GlobalVar):
                return self.call_tir(scope, v, call)
            if op.name in _PACKED_OPS:
                callee = call.args[0]
                fname = callee.global_symbol if isinstance(callee, rx.ExternFunc) else \
                    getattr(callee, "name_hint", type(callee).__name__)
                nid = self.node(scope.graph, "packed", f"{v.name_hint} = {op.name.replace('relax.', 'R.')}\n{fname}")
                for a in call.args[1:]:
                    self.connect(scope, a, nid)
                return nid
            from .ops import registry

            opdef = registry.lookup(op.name)
            title = opdef.script if opdef is not None else op.name
            for a in call.args:
                lit = _literal(a)
                if lit is not None:
                    extra.append(lit)
            for k, val in call.attrs.items():
                if val is not None:
                    extra.append(f"{k}={_attr_text(val)}")
            if self.compact and extra:
                extra = _wrap(extra)
            label = "\n".join([f"{v.name_hint} = {title}"] + extra + self.weight_lines(call.args))
            nid = self.node(scope.graph, "op", label)
            for a in call.args:
                self.connect(scope, a, nid)
            return nid
        if isinstance(op, rx.ExternFunc):
            nid = self.node(scope.graph, "packed", f"{v.name_hint} = R.call_packed\n{op.global_symbol}")
            for a in call.args:
                self.connect(scope, a, nid)
            return nid
        if isinstance(op, rx.GlobalVar) and op.name_hint in self.mod:
            callee = self.mod[op.name_hint]
            label = f"{v.name_hint} = cls.{_short_name(op.name_hint)}"
            if isinstance(callee, rx.Function):
                fused = bool(callee.attrs.get("Primitive"))
                limit = (FUSED_DEPTH if fused else 0) if self.depth is None else self.depth
                if depth < limit:
                    return self.fused_call(scope, v, op.name_hint, callee, call, depth, fused)
                if fused or self.depth is not None:
                    label += f"{' (fused)' if fused else ''}\n{_callee_summary(self.mod, callee)}"
                label = "\n".join([label] + self.weight_lines(call.args))
                nid = self.node(scope.graph, "fused" if fused else "func", label)
            else:
                nid = self.node(scope.graph, "call_tir" if isinstance(callee, tir.PrimFunc) else "func", label)
        else:
            nid = self.node(scope.graph, "func", f"{v.name_hint} = call {getattr(op, 'name_hint', 'closure')}")
            if isinstance(op, rx.Var):
                self.connect(scope, op, nid)
        for a in call.args:
            self.connect(scope, a, nid)
        return nid

    def call_tir(self, scope: _Scope, v: rx.Var, call: rx.Call) -> str:
        gv = call.args[0]
        kind = call.op.name.replace("relax.", "")
        prim = self.mod[gv.name_hint] if gv.name_hint in self.mod else None
        lines = [f"{v.name_hint} = {kind}", _short_name(gv.name_hint)] + self.weight_lines(call.args[1:2])
        if len(call.args) > 2 and _literal(call.args[2]) is not None:
            lines.append(f"tir_vars={_literal(call.args[2])}")
        fused = isinstance(prim, tir.PrimFunc) and gv.name_hint.startswith("fused")
        if fused:
            sub, g = self.cluster(scope.graph, f"fused PrimFunc {gv.name_hint}", style="filled,bold",
                                  fillcolor="#fff2cc", color="#b45f06")
            try:
                blocks = _prim_blocks(prim)
                if blocks:
                    lines.append("blocks: " + ", ".join(blocks))
                nid = self.node(g, "call_tir", "\n".join(lines))
            finally:
                sub.__exit__(None, None, None)
        else:
            nid = self.node(scope.graph, "call_tir", "\n".join(lines))
        args = call.args[1]
        self.connect(scope, args, nid)
        return nid

    def fused_call(self, scope: _Scope, v: rx.Var, name: str, callee: rx.Function, call: rx.Call,
                   depth: int, fused: bool = True) -> str:
        """A call of a Primitive function (or of any Relax function, ``fused=False``): its body inside
        a box (bold and yellow when fused), params wired to the caller's arguments."""
        if fused:
            sub, g = self.cluster(scope.graph, f"{v.name_hint} = cls.{name} (fused)", style="filled,bold",
                                  fillcolor="#fff2cc", color="#b45f06")
        else:
            sub, g = self.cluster(scope.graph, f"{v.name_hint} = cls.{name}", style="filled", fillcolor="#f1f7ee",
                                  color="#6aa84f")
        try:
            defs = dict(scope.defs)
            inner = _Scope(g, defs)
            for p, a in zip(callee.params, call.args):
                if isinstance(a, rx.Var) and id(a) in self.weights:
                    self.weights[id(p)] = self.weights[id(a)]
                elif isinstance(a, rx.Var) and id(a) in scope.defs:
                    defs[id(p)] = scope.defs[id(a)]
                else:
                    defs[id(p)] = self.value_node(_Scope(scope.graph, scope.defs), a)
            out = self.seq(inner, callee.body, depth + 1, boxed=not fused)
        finally:
            sub.__exit__(None, None, None)
        return out[0]

    def if_(self, scope: _Scope, v: rx.Var, e: rx.If, depth: int) -> str:
        join = self.node(scope.graph, "if", f"{v.name_hint} = if")
        for label, branch in (("then", e.true_branch), ("else", e.false_branch)):
            sub, g = self.cluster(scope.graph, label, style="dotted")
            try:
                out = self.seq(_Scope(g, dict(scope.defs)), branch, depth)
            finally:
                sub.__exit__(None, None, None)
            self.edge(scope.graph, out[0], join, branch.body.struct_info)
        self.connect(scope, e.cond, join)
        return join


def function_graph(mod: IRModule, entry: str = "main", *, depth: Optional[int] = None, collapse: bool = False,
                   compact: bool = False):
    """The ``graphviz.Digraph`` of Relax function ``entry`` of ``mod`` (see the module docstring).

    ``depth``: how many levels of calls of the module's Relax functions are drawn inside their
    callers (fused or not); deeper calls are one node naming what they compute. Default: fused groups
    drawn inside up to 4 levels, other calls as one node. ``collapse=True`` is ``depth=0``: every
    called or fused function is one node. ``compact=True`` draws a function's weights (the parameters
    after its ``num_input`` attribute, as frontends mark them) inside their users' labels and leaves
    edges unlabelled: a layer of a model then reads as a column of operations."""
    if collapse:
        depth = 0
    if depth is not None and depth < 0:
        raise UnsupportedError(f"viz: the depth must be >= 0, got {depth}")
    if entry not in mod:
        raise WellFormedError(f"the module has no function named '{entry}'{did_you_mean(entry, mod)} (functions: {', '.join(mod)})")
    f = mod[entry]
    if not isinstance(f, rx.Function):
        raise UnsupportedError(f"viz draws Relax functions; '{entry}' is a {type(f).__name__}")
    b = _Builder(mod, depth, compact)
    spacing = dict(nodesep="0.15", ranksep="0.25") if compact else {}
    g = b.gv.Digraph(name=entry, graph_attr=dict(rankdir="TB", fontname="Helvetica", **spacing),
                     node_attr=dict(fontname="Helvetica", fontsize="11"),
                     edge_attr=dict(fontname="Helvetica", fontsize="9", fontcolor="#555555"))
    b.function(g, f, entry)
    for src, dst, label in b.edges:
        g.edge(src, dst, label="" if compact else label)
    return g


def render(mod: IRModule, entry: str = "main", fmt: str = "svg", **options) -> bytes:
    """The picture of ``entry`` as SVG or PNG bytes, or DOT source (``fmt="dot"``); ``options`` are
    those of :func:`function_graph`."""
    if fmt not in FORMATS:
        raise UnsupportedError(f"viz: unknown output format {fmt!r} (one of {', '.join(FORMATS)})")
    g = function_graph(mod, entry, **options)
    if fmt == "dot":
        return g.source.encode("utf-8")
    gv = _graphviz()
    try:
        return g.pipe(format=fmt)
    except gv.ExecutableNotFound:
        raise UnsupportedError("viz: the 'dot' program of Graphviz is not installed (Debian/Ubuntu: "
                               "apt-get install graphviz); `-o FILE.dot` writes the graph source without it") from None
    except gv.CalledProcessError as err:
        raise UnsupportedError(f"viz: dot failed: {err.stderr.decode(errors='replace') if err.stderr else err}") \
            from None


def format_for_path(path: Optional[str]) -> str:
    """The output format implied by a file name (``.svg``, ``.png``, ``.dot``/``.gv``); SVG for
    standard output."""
    if path is None or path == "-":
        return "svg"
    low = path.lower()
    for ext, fmt in ((".svg", "svg"), (".png", "png"), (".dot", "dot"), (".gv", "dot")):
        if low.endswith(ext):
            return fmt
    raise UnsupportedError(f"viz: cannot tell the format of {path!r}: use .svg, .png or .dot")


__all__ = ["function_graph", "render", "short_struct_info", "format_for_path", "FORMATS"]

"""Parsing of ``@T.prim_func`` definitions into TensorIR (TEXT.TIR.1-5), in both spellings.

Dialects. The classic spelling (``from tvm.script import tir as T``, ``T.block``, ``T.block_attr``)
and TVM 0.25's (``tirx as T``, ``T.sblock``, ``T.sblock_alloc_buffer``, ``T.sblock_attr``) are both
accepted everywhere; they differ in three statements, resolved by the text's dialect (see
``header.detect_dialect``):

===============================  ==========================================  ============================
statement                        TVM 0.25 ("tvm")                            classic
===============================  ==========================================  ============================
``T.alloc_buffer(...)``          flat ``AllocBuffer`` statement              inside a block: the block's
                                                                             allocation; at the top level
                                                                             of a function with blocks:
                                                                             the root block's; elsewhere
                                                                             a flat ``AllocBuffer``
``x = e`` / ``x: T.f32 = e``     local scalar: ``AllocBuffer`` of shape      ``LetStmt(x, e, rest)``
                                 (1,), scope "local", + ``BufferStore``;
                                 later ``x`` reads ``x[0]``, ``x = e2``
                                 stores
``x: T.let = e`` / ``T.let[t]``  flat ``Bind(x, e)``                         ``LetStmt(x, e, rest)``
===============================  ==========================================  ============================

``T.sblock_alloc_buffer`` is always a block allocation, ``x = T.bind(e)`` always a ``Bind``, and
``with T.LetStmt(e) as x:`` always a ``LetStmt``.

Root block rule (TIR.BLOCK.5): if the body contains a block, or block allocations /
region ``T.match_buffer``s appear at the function's top level, and the body is not already a single
block without iteration variables (``T.sblock("root")``, or any such block when there are no top-level
allocations; TEXT.TIR.ROOT.1), the body is wrapped in
``BlockRealize((), True, Block("root", body, alloc_buffers=<top-level block allocations>))`` -- as
TVM does. The printer elides that block again (printing the ``# with T.sblock("root"):`` comment),
so print -> parse gives the same structure. A function without blocks gets no root block.

Other decisions: ``T.reads``/``T.writes`` are kept as written, and detected from the block's
accesses when absent, as TVM does (:mod:`.tir_access`); a stored value is cast to the buffer's dtype
(as TVM does); the message of ``assert c, ("Kind", ["part", ...])`` (TVM 0.25's print form) is the
joined parts, the kind is not kept; ``T.evaluate(0)`` is kept; ``@T.prim_func(s_tir=True)`` is
recorded as the attribute ``"s_tir": True`` (as TVM does).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ...ir import prim_expr as P
from ...ir import tir
from ...ir.attrs import Attrs
from . import prim
from .evaluator import Evaluator
from .relax_func import check_attr_value, call_path
from .scope import Scope
from .tir_access import detect_access
from .tir_regions import as_region
from .values import (
    AllocateSpec, BindSpec, BufferSpec, BufferTypeAnnotation, FunctionOptions, GlobalSymDecl, IterVarSpec,
    LetAnnotation, LoopSpec, MetaValue, Ref, ScalarRef, VarDecl,
)

_ZERO = P.IntImm(0, "int32")
_TRUE = P.IntImm(1, "bool")


@dataclass
class BlockFrame:
    name: str
    iter_vars: List[tir.IterVar] = field(default_factory=list)
    iter_values: List[P.PrimExpr] = field(default_factory=list)
    reads: Optional[List[tir.BufferRegion]] = None
    writes: Optional[List[tir.BufferRegion]] = None
    annotations: Dict[str, Any] = field(default_factory=dict)
    predicate: Optional[P.PrimExpr] = None
    init: Optional[tir.Stmt] = None
    alloc_buffers: List[tir.Buffer] = field(default_factory=list)
    match_buffers: List[tir.MatchBufferRegion] = field(default_factory=list)


@dataclass
class _Let:
    """Marker: the statement binds ``var`` over the rest of the sequence (classic LetStmt, or
    ``T.allocate`` when ``alloc`` is set)."""

    var: P.PrimVar
    value: Optional[P.PrimExpr]
    node: ast.AST
    alloc: Any = None


def seq(stmts: List[tir.Stmt]) -> tir.Stmt:
    if not stmts:
        return tir.Evaluate(P.IntImm(0, "int32"))
    if len(stmts) == 1:
        return stmts[0]
    return tir.SeqStmt(tuple(stmts))


_HEADER = ("T.reads", "T.writes", "T.where", "T.block_attr", "T.sblock_attr")


class PrimFuncParser:
    """Parses one ``@T.prim_func``."""

    def __init__(self, ctx, node: ast.FunctionDef, opts: FunctionOptions, outer: Scope) -> None:
        self.ctx = ctx
        self.node = node
        self.opts = opts
        self.name = node.name
        self.scope = outer.child("function")
        self.ev = Evaluator(ctx, self.scope, "tir")
        self.params: List[P.PrimVar] = []
        self.buffer_map: List[tuple] = []
        self.attrs: Dict[str, Any] = {}
        self.blocks: List[BlockFrame] = []
        self.root = BlockFrame("root")
        self.has_blocks = False
        self.uses_blocks = False  # does the body contain a block anywhere (decides classic T.alloc_buffer)
        self.handle_params: Dict[int, P.PrimVar] = {}
        #: symbolic variables declared by identifier strings in parameter buffer shapes (tvm-0.27)
        self.signature_symbols: Dict[str, P.PrimVar] = {}

    def err(self, node, msg, **kw):
        kw.setdefault("function", self.name)
        return self.ev.error(node, msg, **kw)

    # -- signature ---------------------------------------------------------------------------
    def parse(self) -> tir.PrimFunc:
        a = self.node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or a.kw_defaults:
            raise self.err(self.node, "prim_func parameters must be plain annotated names")
        anns = []
        for arg in a.args:
            if arg.annotation is None:
                raise self.err(arg, "a type annotation is required for prim_func parameters", binding=arg.arg)
            anns.append(arg.annotation)
        # scalar parameters first, so that buffer annotations may use them
        kinds = []
        for arg, ann in zip(a.args, anns):
            v = self.ev.eval_node(ann) if not self._is_buffer_annotation(ann) else None
            kinds.append(v)
            if v is not None:
                dtype = self._scalar_param_dtype(v, ann)
                pv = P.PrimVar(arg.arg, dtype)
                self.scope.define(arg.arg, pv)
        self.declare_signature_symbols(anns)
        for arg, ann, v in zip(a.args, anns, kinds):
            if v is None:
                spec = self.ev.eval_node(ann)
                if isinstance(spec, BufferTypeAnnotation):
                    spec = spec.spec
                if not isinstance(spec, BufferSpec) or spec.kind != "Buffer":
                    raise self.err(ann, f"unsupported annotation for parameter '{arg.arg}'")
                handle = P.PrimVar(arg.arg, "handle")
                buf = self.make_buffer(arg.arg, spec)
                self.params.append(handle)
                self.buffer_map.append((handle, buf))
                self.scope.define(arg.arg, buf)
            else:
                pv = self.scope.names[arg.arg]
                self.params.append(pv)
                if pv.dtype == "handle":
                    self.handle_params[id(pv)] = pv
        ret_type = self.ret_type = "void"
        if self.node.returns is not None:
            r = self.ev.eval_node(self.node.returns)
            if r is not None:
                if isinstance(r, Ref) and r.path.startswith("T.") and r.path[2:] in prim.DTYPE_CTORS:
                    ret_type = self.ret_type = prim.DTYPE_CTORS[r.path[2:]]
                else:
                    raise self.err(self.node.returns, "unsupported prim_func return annotation")
        self.uses_blocks = any(
            isinstance(n, ast.With) and any(call_path(self.ev, it.context_expr) in ("T.block", "T.sblock")
                                            for it in n.items)
            for n in ast.walk(self.node))
        stmts = self.parse_stmts(self._strip_docstring(self.node.body), self.scope, top=True)
        body = self.wrap_root(stmts)
        attrs: Dict[str, Any] = {}
        if not self.opts.private:
            attrs["global_symbol"] = self.name
        if self.opts.s_tir:
            attrs["s_tir"] = True
        attrs.update(self.attrs)
        return tir.PrimFunc(tuple(self.params), body, tuple(self.buffer_map), ret_type, attrs=Attrs(attrs),
                            span=self.ev.span(self.node))

    def declare_signature_symbols(self, anns: List[ast.AST]) -> None:
        """tvm-0.27 writes a parameter buffer's symbolic extents as identifier strings,
        ``A: T.Buffer(("m", "n"), "int32")``: each declares a variable of the function, whose dtype
        is that of its declaration at the top of the body (``m, n = T.int32(), T.int32()``), int64
        without one (TEXT.TIR.2)."""
        names: List[str] = []
        for ann in anns:
            if not (isinstance(ann, ast.Call) and self.ev.eval_ref(ann.func) in ("T.Buffer", "T.buffer")):
                continue
            shape = ann.args[0] if ann.args else next((k.value for k in ann.keywords if k.arg == "shape"), None)
            elts = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
            for e in elts:
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.isidentifier() \
                        and e.value not in names:
                    names.append(e.value)
        if not names:
            return
        dtypes: Dict[str, str] = {}
        for st in self.node.body:
            if not isinstance(st, ast.Assign) or len(st.targets) != 1:
                continue
            t, v = st.targets[0], st.value
            pairs = list(zip(t.elts, v.elts)) if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and \
                len(t.elts) == len(v.elts) else [(t, v)]
            for tn, vn in pairs:
                if isinstance(tn, ast.Name) and isinstance(vn, ast.Call) and not vn.args and not vn.keywords:
                    path = self.ev.eval_ref(vn.func) or ""
                    if path.startswith("T.") and path[2:] in prim.DTYPE_CTORS:
                        dtypes.setdefault(tn.id, prim.DTYPE_CTORS[path[2:]])
        for n in names:
            if n in self.scope.names:
                continue
            pv = P.PrimVar(n, dtypes.get(n, "int64"))
            self.scope.define(n, pv)
            self.signature_symbols[n] = pv

    @staticmethod
    def _strip_docstring(body):
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            return body[1:]
        return body

    def _is_buffer_annotation(self, ann: ast.AST) -> bool:
        target = ann.func if isinstance(ann, ast.Call) else ann.value if isinstance(ann, ast.Subscript) else None
        return target is not None and self.ev.eval_ref(target) in ("T.Buffer", "T.buffer")

    def _scalar_param_dtype(self, v: Any, ann: ast.AST) -> str:
        if isinstance(v, VarDecl):
            return v.dtype
        if isinstance(v, Ref) and v.path.startswith("T."):
            name = v.path[2:]
            if name == "handle":
                return "handle"
            if name in prim.DTYPE_CTORS:
                return prim.DTYPE_CTORS[name]
        raise self.err(ann, f"unsupported prim_func parameter annotation: {prim.describe(v)}")

    def wrap_root(self, stmts: List[tir.Stmt]) -> tir.Stmt:
        """The root-block rule (see the module docstring)."""
        body = seq(stmts)
        # a single block realize without iteration variables is the root block whatever its name (as
        # TVM's parser does), unless top-level allocations must go into a block named "root"
        explicit_root = isinstance(body, tir.BlockRealize) and not body.block.iter_vars and (
            body.block.name == "root" or not (self.root.alloc_buffers or self.root.match_buffers))
        if explicit_root:
            if self.root.alloc_buffers or self.root.match_buffers:
                blk = body.block
                body = tir.BlockRealize(body.iter_values, body.predicate, tir.Block(
                    blk.name, blk.iter_vars, blk.reads, blk.writes, blk.body, blk.init,
                    tuple(self.root.alloc_buffers) + blk.alloc_buffers,
                    tuple(self.root.match_buffers) + blk.match_buffers, blk.annotations, span=blk.span))
            return body
        if self.has_blocks or self.root.alloc_buffers or self.root.match_buffers:
            block = tir.Block("root", (), (), (), body, None, tuple(self.root.alloc_buffers),
                              tuple(self.root.match_buffers), Attrs(), span=self.ev.span(self.node))
            return tir.BlockRealize((), _TRUE, block, span=self.ev.span(self.node))
        return body

    # -- buffers -----------------------------------------------------------------------------
    def make_buffer(self, name: str, spec: BufferSpec) -> tir.Buffer:
        return tir.Buffer(name, spec.shape, spec.dtype, spec.data, spec.strides, spec.elem_offset, spec.scope,
                          spec.axis_separators, spec.align, spec.offset_factor)

    def bind_buffer(self, name: str, spec: BufferSpec, target: ast.AST, scope: Scope, out: List[tir.Stmt],
                    top: bool) -> None:
        span = self.ev.span(target)
        if spec.kind == "match_buffer":
            src = spec.source
            if isinstance(src, P.PrimVar):
                if id(src) not in self.handle_params:
                    raise self.err(spec.node, f"T.match_buffer: '{src.name}' is not a handle parameter of this "
                                              f"prim_func")
                if any(p is src for p, _ in self.buffer_map):
                    raise self.err(spec.node, f"the parameter '{src.name}' is already matched to a buffer")
                buf = self.make_buffer(name, spec)
                self.buffer_map.append((src, buf))
                self.buffer_map.sort(key=lambda pb: [i for i, p in enumerate(self.params) if p is pb[0]][0])
            else:
                region = as_region(self.ev, src, spec.node)
                buf = self.make_buffer(name, spec)
                frame = self.blocks[-1] if self.blocks else self.root
                frame.match_buffers.append(tir.MatchBufferRegion(buf, region))
            scope.define(name, buf)
            return
        buf = self.make_buffer(name, spec)
        if spec.kind == "Buffer":
            scope.define(name, buf)
            return
        if spec.kind == "decl_buffer":
            out.append(tir.DeclBuffer(buf, None, span=span))
            scope.define(name, buf)
            return
        classic_block_alloc = spec.kind == "alloc_buffer" and self.ctx.dialect == "classic" and \
            (bool(self.blocks) or (top and self.uses_blocks))
        if spec.kind == "sblock_alloc_buffer" or classic_block_alloc:
            frame = self.blocks[-1] if self.blocks else self.root
            if not self.blocks and not top:
                raise self.err(spec.node, "a block allocation outside any block must be at the top level of the "
                                          "prim_func")
            frame.alloc_buffers.append(buf)
        else:
            out.append(tir.AllocBuffer(buf, span=span))
        scope.define(name, buf)

    def store_value(self, buf: tir.Buffer, value: Any, node: ast.AST) -> P.PrimExpr:
        span = self.ev.span(node)
        if buf.dtype in ("void", ""):
            raise self.err(node, f"buffer '{buf.name}' has dtype void: it has no elements to store into (TIR.BUF.7)")
        if prim.is_num(value):
            return prim.lit(value, buf.dtype, span)
        if isinstance(value, str) and prim._dt.is_float(buf.dtype):  # noqa: SLF001
            return P.FloatImm(prim.parse_float_string(value, span), buf.dtype)
        if not isinstance(value, P.PrimExpr):
            raise self.err(node, f"cannot store {prim.describe(value)} into buffer '{buf.name}'")
        return value if value.dtype == buf.dtype else prim.cast(buf.dtype, value)

    # -- statements --------------------------------------------------------------------------
    def parse_stmts(self, stmts: List[ast.stmt], scope: Scope, top: bool = False) -> List[tir.Stmt]:
        out: List[tir.Stmt] = []
        for i, st in enumerate(stmts):
            r = self.stmt(st, scope, out, top)
            if isinstance(r, _Let):
                inner = scope.child("let")
                inner.define(r.var.name, r.var)
                body = self.parse_stmts(stmts[i + 1:], inner, top)
                out.append(self._scoped(r, seq(body)))
                break
        return out

    def _scoped(self, r: _Let, body: tir.Stmt) -> tir.Stmt:
        span = self.ev.span(r.node)
        if r.alloc is not None:
            a = r.alloc
            return tir.Allocate(r.var, a.dtype, a.extents, a.condition, body, a.scope, span=span)
        return tir.LetStmt(r.var, r.value, body, span=span)

    def stmt(self, node: ast.stmt, scope: Scope, out: List[tir.Stmt], top: bool) -> Optional[_Let]:
        ev = self.ev.with_scope(scope)
        span = ev.span(node)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.err(node, "chained assignments like 'a = b = c' are not supported")
            return self.assign(node.targets[0], node.value, ev, scope, out, top)
        if isinstance(node, ast.AnnAssign):
            return self.ann_assign(node, ev, scope, out)
        if isinstance(node, ast.AugAssign):
            self.aug_assign(node, ev, scope, out)
            return None
        if isinstance(node, ast.For):
            out.append(self.for_loop(node, ev, scope))
            return None
        if isinstance(node, ast.While):
            if node.orelse:
                raise self.err(node, "while ... else is not supported")
            cond = prim.as_prim(ev.eval_node(node.test), span, "while condition")
            body = self.parse_stmts(node.body, scope.child("loop"))
            out.append(tir.While(cond, seq(body), span=span))
            return None
        if isinstance(node, ast.If):
            cond = prim.as_prim(ev.eval_node(node.test), ev.span(node.test), "if condition")
            then = seq(self.parse_stmts(node.body, scope.child("branch")))
            other = seq(self.parse_stmts(node.orelse, scope.child("branch"))) if node.orelse else None
            out.append(tir.IfThenElse(cond, then, other, span=span))
            return None
        if isinstance(node, ast.With):
            self.with_stmt(node, ev, scope, out)
            return None
        if isinstance(node, ast.Expr):
            self.expr_stmt(node, ev, scope, out, top)
            return None
        if isinstance(node, ast.Assert):
            cond = prim.as_prim(ev.eval_node(node.test), ev.span(node.test), "assert condition")
            msg = self.assert_message(ev.eval_node(node.msg) if node.msg is not None else "", node)
            out.append(tir.AssertStmt(cond, msg, None, span=span))
            return None
        if isinstance(node, ast.Pass):
            return None
        if isinstance(node, ast.Return):
            # ``return v`` is tvm-0.27's spelling of ``T.ret(v)`` (TEXT.TIR.7)
            if node.value is None:
                raise self.err(node, "return in a prim_func needs a value (it is T.ret(value))")
            out.append(self.ret_stmt(ev.eval_node(node.value), node, ev, node))
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise self.err(node, "nested function or class definitions are not allowed in a prim_func")
        raise self.err(node, f"unsupported statement in a prim_func: {type(node).__name__}")

    def ret_stmt(self, arg: Any, at: ast.AST, ev: Evaluator, node: ast.AST) -> tir.Stmt:
        """(TIR.FUNC.5) ``T.ret(value)`` (``return value`` in TVM 0.27's spelling): the function's
        result, of its declared return type."""
        if self.ret_type == "void":
            raise self.err(at, "a return value in a prim_func without a return type (annotate it, e.g. "
                               "'-> T.int64')")
        value = prim.as_prim(arg, ev.span(at), "T.ret", self.ret_type if self.ret_type.startswith("int") else "int32")
        if value.dtype != self.ret_type:
            raise self.err(at, f"returning a {value.dtype} value from a prim_func returning {self.ret_type}")
        return tir.Evaluate(P.PrimCall(value.dtype, "tir.ret", (value,)), span=ev.span(node))

    def assert_message(self, msg: Any, node: ast.AST) -> str:
        if isinstance(msg, str):
            return msg
        if isinstance(msg, tuple) and len(msg) == 2 and isinstance(msg[0], str):
            parts = msg[1]
            if isinstance(parts, str):
                return parts
            if isinstance(parts, (list, tuple)) and all(isinstance(p, str) for p in parts):
                return "".join(parts)
        raise self.err(node, "the assert message must be a string or (\"Kind\", [\"message\", ...])")

    def assign(self, target: ast.AST, value_node: ast.AST, ev: Evaluator, scope: Scope, out, top) -> Optional[_Let]:
        value = ev.eval_node(value_node)
        if isinstance(target, ast.Subscript):
            buf = ev.eval_node(target.value)
            if isinstance(buf, ScalarRef):
                buf = buf.buffer
            if not isinstance(buf, tir.Buffer):
                raise self.err(target, "only buffer elements can be assigned with subscripts")
            load = ev.buffer_subscript(buf, target, region=False)
            if not isinstance(load, tir.BufferLoad):
                raise self.err(target, "vector stores (slices) are not supported")
            out.append(tir.BufferStore(buf, self.store_value(buf, value, value_node), load.indices,
                                       span=ev.span(target)))
            return None
        if isinstance(target, ast.Name) and isinstance(value, list) and len(value) == 1 and \
                isinstance(value[0], IterVarSpec):
            value = value[0]  # vi = T.axis.remap("S", [i])
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, list) and value and all(isinstance(v, IterVarSpec) for v in value):
                if len(value) != len(target.elts):
                    raise self.err(target, f"T.axis.remap defines {len(value)} axes, but {len(target.elts)} "
                                           f"names are assigned")
                for t, v in zip(target.elts, value):
                    self.bind_name(t, v, ev, scope, out, top, value_node)
                return None
            if isinstance(value, (tuple, list)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    r = self.bind_name(t, v, ev, scope, out, top, value_node)
                    if r is not None:
                        raise self.err(t, "let-bindings cannot be unpacked from a tuple")
                return None
            raise self.err(target, "tuple assignment needs a tuple of the same length")
        return self.bind_name(target, value, ev, scope, out, top, value_node)

    def bind_name(self, target: ast.AST, value: Any, ev: Evaluator, scope: Scope, out, top,
                  value_node: ast.AST) -> Optional[_Let]:
        if not isinstance(target, ast.Name):
            raise self.err(target, "only names can be assigned")
        name = target.id
        if isinstance(value, MetaValue):
            scope.define(name, value.value)
            return None
        if isinstance(value, VarDecl):
            sym = self.signature_symbols.get(name)
            if sym is not None and scope.lookup(name, None) is sym:
                if sym.dtype != value.dtype:
                    raise self.err(target, f"symbolic variable '{name}' was declared as {sym.dtype}, not "
                                           f"{value.dtype}", symbol=name)
                return None  # the declaration of a signature symbol (``m = T.int32()``)
            scope.define(name, P.PrimVar(name, value.dtype))
            return None
        if isinstance(value, BufferSpec):
            self.bind_buffer(name, value, target, scope, out, top)
            return None
        if isinstance(value, IterVarSpec):
            if not self.blocks:
                raise self.err(value_node, "block axes (T.axis.*) can only be defined inside a block")
            var = P.PrimVar(name, value.dtype)
            frame = self.blocks[-1]
            frame.iter_vars.append(tir.IterVar(var, value.dom, value.iter_type))
            frame.iter_values.append(value.binding)
            scope.define(name, var)
            return None
        if isinstance(value, AllocateSpec):
            return _Let(P.PrimVar(name, "handle"), None, target, value)
        if isinstance(value, BindSpec):
            v = prim.as_prim(value.value, ev.span(value_node), "T.bind")
            dtype = value.dtype or v.dtype
            var = P.PrimVar(name, dtype)
            out.append(tir.Bind(var, prim.cast(dtype, v), span=ev.span(target)))
            scope.define(name, var)
            return None
        if isinstance(value, (Ref, tir.Buffer)) or isinstance(value, GlobalSymDecl):
            scope.define(name, value)
            return None
        existing = scope.lookup(name, None)
        if isinstance(existing, ScalarRef):
            buf = existing.buffer
            out.append(tir.BufferStore(buf, self.store_value(buf, value, value_node), (_ZERO,),
                                       span=ev.span(target)))
            return None
        if isinstance(value, str) and not isinstance(value, bool):
            scope.define(name, value)
            return None
        v = prim.as_prim(value, ev.span(value_node), f"the value assigned to '{name}'")
        if self.ctx.dialect == "classic":
            return _Let(P.PrimVar(name, v.dtype), v, target)
        self.new_scalar(name, v.dtype, v, target, scope, out)
        return None

    def new_scalar(self, name: str, dtype: str, value: Optional[P.PrimExpr], target: ast.AST, scope: Scope,
                   out: List[tir.Stmt]) -> None:
        """TVM 0.25 local scalar: a (1,)-shaped "local" buffer read back as ``name``."""
        span = self.ev.span(target)
        buf = tir.Buffer(name, (P.IntImm(1, "int32"),), dtype, scope="local")
        out.append(tir.AllocBuffer(buf, span=span))
        if value is not None:
            out.append(tir.BufferStore(buf, self.store_value(buf, value, target), (_ZERO,), span=span))
        scope.define(name, ScalarRef(buf))

    def ann_assign(self, node: ast.AnnAssign, ev: Evaluator, scope: Scope, out) -> Optional[_Let]:
        if not isinstance(node.target, ast.Name):
            raise self.err(node.target, "only names can be annotated in a prim_func")
        name = node.target.id
        ann = ev.eval_node(node.annotation)
        if isinstance(ann, Ref) and ann.path == "T.let":
            ann = LetAnnotation(None)
        value = ev.eval_node(node.value) if node.value is not None else None
        span = ev.span(node)
        if isinstance(ann, LetAnnotation):
            if value is None:
                raise self.err(node, "a T.let binding needs a value")
            v = prim.as_prim(value, ev.span(node.value), "T.let value")
            dtype = ann.dtype or v.dtype
            v = prim.cast(dtype, v)
            var = P.PrimVar(name, dtype)
            if self.ctx.dialect == "classic":
                return _Let(var, v, node)
            out.append(tir.Bind(var, v, span=span))
            scope.define(name, var)
            return None
        if isinstance(ann, VarDecl):
            dtype = ann.dtype
        elif isinstance(ann, Ref) and ann.path.startswith("T.") and ann.path[2:] in prim.DTYPE_CTORS:
            dtype = prim.DTYPE_CTORS[ann.path[2:]]
        else:
            raise self.err(node.annotation, "a prim_func binding is annotated with a scalar type (T.float32, ...) "
                                            "or T.let")
        if self.ctx.dialect == "classic":
            if value is None:
                raise self.err(node, "a let binding needs a value")
            v = prim.as_prim(value, ev.span(node.value), "let value")
            return _Let(P.PrimVar(name, dtype), prim.cast(dtype, v), node)
        v = None if value is None else (prim.lit(value, dtype, ev.span(node.value)) if prim.is_num(value) else
                                        prim.as_prim(value, ev.span(node.value), "value"))
        self.new_scalar(name, dtype, v, node.target, scope, out)
        return None

    def aug_assign(self, node: ast.AugAssign, ev: Evaluator, scope: Scope, out) -> None:
        from .evaluator import _BINOPS

        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, "unsupported augmented assignment")
        load_node = ast.copy_location(ast.Subscript(node.target.value, node.target.slice, ast.Load()),
                                      node.target) if isinstance(node.target, ast.Subscript) else \
            ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target) \
            if isinstance(node.target, ast.Name) else None
        if load_node is None:
            raise self.err(node.target, "unsupported augmented assignment target")
        ast.fix_missing_locations(load_node)
        current = ev.eval_node(load_node)
        value = ev.binary(op, current, ev.eval_node(node.value), node)
        if isinstance(node.target, ast.Subscript):
            buf = ev.eval_node(node.target.value)
            if isinstance(buf, ScalarRef):
                buf = buf.buffer
            load = ev.buffer_subscript(buf, node.target, region=False)
            out.append(tir.BufferStore(buf, self.store_value(buf, value, node), load.indices, span=ev.span(node)))
            return
        existing = scope.lookup(node.target.id, None)
        if not isinstance(existing, ScalarRef):
            raise self.err(node.target, "augmented assignment needs a buffer element or a local scalar")
        out.append(tir.BufferStore(existing.buffer, self.store_value(existing.buffer, value, node), (_ZERO,),
                                   span=ev.span(node)))

    def for_loop(self, node: ast.For, ev: Evaluator, scope: Scope) -> tir.Stmt:
        if node.orelse:
            raise self.err(node, "for ... else is not supported")
        spec = ev.eval_node(node.iter)
        if not isinstance(spec, LoopSpec):
            raise self.err(node.iter, "a prim_func loop iterates over range(...), T.serial(...), T.parallel(...), "
                                      "T.vectorized(...), T.unroll(...), T.thread_binding(...) or T.grid(...)")
        targets = node.target.elts if isinstance(node.target, (ast.Tuple, ast.List)) else [node.target]
        group = None
        if isinstance(node.target, ast.Name) and len(spec.loops) > 1:
            # ``for ij in T.grid(m, n)``: the name holds the tuple of loop variables ij_0, ij_1
            group = node.target.id
            targets = [ast.copy_location(ast.Name(f"{group}_{k}", ast.Store()), node.target)
                       for k in range(len(spec.loops))]
        if len(targets) != len(spec.loops):
            raise self.err(node.target, f"the loop defines {len(spec.loops)} variables, but {len(targets)} names "
                                        f"are given")
        inner = scope.child("loop")
        loop_vars = []
        for t, (mn, ext, kind, thread, ann) in zip(targets, spec.loops):
            if not isinstance(t, ast.Name):
                raise self.err(t, "loop variables must be names")
            var = P.PrimVar(t.id, ext.dtype)
            inner.define(t.id, var)
            self.ctx.loop_domains[id(var)] = (var, tir.Range(mn, ext))
            loop_vars.append((var, mn, ext, kind, thread, ann))
        if group is not None:
            inner.define(group, [lv[0] for lv in loop_vars])
        body = seq(self.parse_stmts(node.body, inner))
        for var, mn, ext, kind, thread, ann in reversed(loop_vars):
            body = tir.For(var, mn, ext, kind, body, thread, Attrs(ann), span=ev.span(node))
        return body

    def with_stmt(self, node: ast.With, ev: Evaluator, scope: Scope, out: List[tir.Stmt]) -> None:
        if len(node.items) != 1:
            raise self.err(node, "a with statement in a prim_func has exactly one item")
        item = node.items[0]
        call = item.context_expr
        path = call_path(ev, call)
        span = ev.span(node)
        if path in ("T.block", "T.sblock"):
            if item.optional_vars is not None:
                raise self.err(item.optional_vars, f"'with {path}(...)' does not bind a variable")
            out.append(self.block(node, call, path, ev, scope))
            return
        if path == "T.init":
            if not self.blocks:
                raise self.err(call, "T.init() must be inside a block")
            frame = self.blocks[-1]
            if frame.init is not None:
                raise self.err(call, "a block has at most one T.init()")
            frame.init = seq(self.parse_stmts(node.body, scope.child("init")))
            return
        if path == "T.LetStmt":
            if not isinstance(item.optional_vars, ast.Name) or len(call.args) < 1:
                raise self.err(call, "use 'with T.LetStmt(value) as x:'")
            info = ev.call_info(call, path)
            v = prim.as_prim(info.args[0], ev.span(call), "T.LetStmt value")
            var = P.PrimVar(item.optional_vars.id, v.dtype)
            inner = scope.child("let")
            inner.define(var.name, var)
            out.append(tir.LetStmt(var, v, seq(self.parse_stmts(node.body, inner)), span=span))
            return
        if path == "T.allocate":
            spec = ev.eval_node(call)
            if not isinstance(item.optional_vars, ast.Name):
                raise self.err(call, "use 'with T.allocate(...) as ptr:' or 'ptr = T.allocate(...)'")
            var = P.PrimVar(item.optional_vars.id, "handle")
            inner = scope.child("let")
            inner.define(var.name, var)
            out.append(self._scoped(_Let(var, None, node, spec), seq(self.parse_stmts(node.body, inner))))
            return
        if path == "T.Assert":
            info = ev.call_info(call, path)
            if len(info.args) < 2:
                raise self.err(call, "T.Assert(condition, message)")
            cond = prim.as_prim(info.args[0], ev.span(call), "assert condition")
            msg = self.assert_message(info.args[1], call)
            out.append(tir.AssertStmt(cond, msg, seq(self.parse_stmts(node.body, scope.child("let"))), span=span))
            return
        raise self.err(call, f"unsupported with statement in a prim_func: {path or 'unknown context'}")

    def block(self, node: ast.With, call: ast.Call, path: str, ev: Evaluator, scope: Scope) -> tir.Stmt:
        info = ev.call_info(call, path)
        name = info.args[0] if info.args else info.kwargs.get("name", "")
        for k in info.kwargs:
            if k not in ("name", "no_realize", "exec_scope"):
                raise self.err(call, f"{path} got an unexpected keyword argument '{k}'")
        if not isinstance(name, str):
            raise self.err(call, f"{path}: the block name must be a string")
        frame = BlockFrame(name)
        self.blocks.append(frame)
        self.has_blocks = True
        try:
            body = self.parse_stmts(node.body, scope.child("block"))
        finally:
            self.blocks.pop()
        body_stmt = seq(body)
        reads, writes = frame.reads, frame.writes
        if reads is None or writes is None:
            r, w = detect_access(body_stmt, frame.init, frame.alloc_buffers, reads is None, writes is None)
            reads = r if reads is None else reads
            writes = w if writes is None else writes
        block = tir.Block(name, tuple(frame.iter_vars), tuple(reads), tuple(writes),
                          body_stmt, frame.init, tuple(frame.alloc_buffers), tuple(frame.match_buffers),
                          Attrs(frame.annotations), span=ev.span(node))
        return tir.BlockRealize(tuple(frame.iter_values), frame.predicate if frame.predicate is not None else _TRUE,
                                block, span=ev.span(node))

    def expr_stmt(self, node: ast.Expr, ev: Evaluator, scope: Scope, out: List[tir.Stmt], top: bool) -> None:
        v = node.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return
        path = call_path(ev, v)
        if path == "T.func_attr":
            if not top or self.blocks:
                raise self.err(node, "T.func_attr must be at the top level of the prim_func")
            info = ev.call_info(v, path)
            if len(info.args) != 1 or not isinstance(info.args[0], dict) or info.kwargs:
                raise self.err(v, "T.func_attr expects one dict literal")
            for k, val in info.args[0].items():
                if not isinstance(k, str):
                    raise self.err(v, "function attribute names must be strings")
                self.attrs[k] = check_attr_value(ev, val, v)
            return
        if path in _HEADER:
            self.block_header(path, v, ev)
            return
        if path == "T.evaluate":
            info = ev.call_info(v, path)
            if len(info.args) != 1 or info.kwargs:
                raise self.err(v, "T.evaluate takes one argument")
            out.append(tir.Evaluate(prim.as_prim(info.args[0], ev.span(v), "T.evaluate"), span=ev.span(node)))
            return
        if path == "T.ret":
            info = ev.call_info(v, path)
            if len(info.args) != 1 or info.kwargs:
                raise self.err(v, "T.ret takes one argument")
            out.append(self.ret_stmt(info.args[0], v, ev, node))
            return
        value = ev.eval_node(v)
        if isinstance(value, P.PrimExpr) and not isinstance(value, (P.IntImm, P.FloatImm, P.PrimVar)):
            out.append(tir.Evaluate(value, span=ev.span(node)))
            return
        raise self.err(node, f"this statement has no effect ({prim.describe(value)})")

    def block_header(self, path: str, call: ast.Call, ev: Evaluator) -> None:
        if not self.blocks:
            raise self.err(call, f"{path}(...) must be inside a block")
        frame = self.blocks[-1]
        info = ev.call_info(call, path)
        if path in ("T.reads", "T.writes"):
            if info.kwargs:
                raise self.err(call, f"{path} takes no keyword arguments")
            items: List[Any] = []
            for i, a in enumerate(info.args):
                if isinstance(a, (list, tuple)):
                    items.extend((x, info.node_of(i)) for x in a)
                else:
                    items.append((a, info.node_of(i)))
            regions = [as_region(ev, x, n) for x, n in items]
            if path == "T.reads":
                if frame.reads is not None:
                    raise self.err(call, "T.reads is given twice for this block")
                frame.reads = regions
            else:
                if frame.writes is not None:
                    raise self.err(call, "T.writes is given twice for this block")
                frame.writes = regions
            return
        if path == "T.where":
            if len(info.args) != 1 or info.kwargs:
                raise self.err(call, "T.where takes one condition")
            frame.predicate = prim.as_prim(info.args[0], ev.span(call), "T.where")
            return
        if len(info.args) != 1 or not isinstance(info.args[0], dict) or info.kwargs:
            raise self.err(call, f"{path} expects one dict literal")
        for k, val in info.args[0].items():
            if not isinstance(k, str):
                raise self.err(call, "block attribute names must be strings")
            frame.annotations[k] = check_attr_value(ev, val, call)


__all__ = ["PrimFuncParser", "seq"]

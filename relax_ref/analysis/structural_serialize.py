"""The canonical token stream behind structural equality (spec rules EXPR.EQ.1-EXPR.EQ.4).

:func:`serialize` writes an object (IRModule, function, expression, struct info, TensorIR) as a
list of tokens in which every variable is the position of its definition; two objects are
structurally equal iff their streams are equal (:mod:`.structural_equal` states the rules).
:func:`tracked` runs the same serialization recording, for each token up to a given one, the path
to it and the node it came from (:mod:`.structural_report` turns that into words).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, List, Optional

import numpy as np

from ..errors import RelaxError, TypeMismatchError
from ..ir import expr as rx
from ..ir.distributed import DeviceMesh, DTensorStructInfo, Placement
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ..ir import tir
from ..ir.foreign import foreign_type_name
from ..ir.module import IRModule


class StructuralMismatchError(RelaxError, AssertionError):
    """Raised by :func:`assert_structural_equal`. ``path`` names the first difference in words;
    ``lhs_text`` / ``rhs_text`` are the printed functions (or objects) holding it."""

    kind = "structural_mismatch"

    def __init__(self, message: str, path: str = "", lhs_text: str = "", rhs_text: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.lhs_text = lhs_text
        self.rhs_text = rhs_text


_IGNORED_PRIMFUNC_ATTRS = frozenset({"s_tir"})

def _canon_key(key: str) -> str:
    return "tir." + key[5:] if key.startswith("tirx.") else key


def _canon_intrinsic(op: str) -> str:
    for prefix in ("tirx.", "tir."):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op


def _const_token(c: rx.Constant) -> tuple:
    arr = np.ascontiguousarray(np.asarray(c.data))
    data = arr
    try:
        kind = arr.dtype.kind
        is_float = kind == "f" or (kind == "V" and arr.dtype.itemsize <= 2)
    except TypeError:  # pragma: no cover
        is_float = False
    if is_float and arr.size:
        mask = np.isnan(arr.astype(np.float64))
        if mask.any():
            data = arr.copy()
            data[mask] = np.nan
    return ("const", str(arr.dtype), tuple(arr.shape), data.tobytes())


class _Stop(Exception):
    """Raised by a tracking serializer once it has emitted the token it was asked for."""


class _Serializer:
    """Writes one object as tokens. With ``track=True`` it also records, for every token, the path
    to it (a tuple of components, rendered in words by :mod:`.structural_report`), the innermost
    IR node around it and the source line of the innermost node that has a span."""

    def __init__(self, map_free_vars: bool, strict: bool = False, track: bool = False,
                 stop_after: Optional[int] = None) -> None:
        self.map_free = map_free_vars
        self.strict = strict
        self.track = track
        self.stop_after = stop_after
        self.tokens: List[Any] = []
        #: per token (when tracking): (path components, innermost node, source line or 0)
        self.where: List[tuple] = []
        self.index: dict = {}
        self._path: List[tuple] = []
        self._nodes: List[Any] = []
        self._lines: List[int] = []

    # -- plumbing ----------------------------------------------------------------------------------
    def emit(self, tok) -> None:
        self.tokens.append(tok)
        if self.track:
            node = next((n for n in reversed(self._nodes) if n is not None), None)
            self.where.append((tuple(self._path), node, self._lines[-1] if self._lines else 0))
            if self.stop_after is not None and len(self.tokens) > self.stop_after:
                raise _Stop()

    def push(self, comp: tuple, node=None) -> None:
        if self.track:
            self._path.append(comp)
            self._nodes.append(node)
            # a variable's span is its definition, not this use
            span = None if isinstance(node, (rx.Var, rx.GlobalVar)) else getattr(node, "span", None)
            line = getattr(span, "line", 0) or 0
            self._lines.append(line or (self._lines[-1] if self._lines else 0))

    def pop(self) -> None:
        if self.track:
            self._path.pop()
            self._nodes.pop()
            self._lines.pop()

    def define(self, obj, kind) -> None:
        if obj in self.index:
            self.emit(("redef", kind, self.index[obj]))
        else:
            self.index[obj] = len(self.index)
            self.emit(("def", kind))

    def use(self, obj, kind) -> None:
        idx = self.index.get(obj)
        if idx is not None:
            self.emit(("use", kind, idx))
        elif self.map_free:
            self.index[obj] = len(self.index)
            self.emit(("free", kind))
        else:
            self.emit(("free-id", kind, id(obj)))

    # -- dispatch ------------------------------------------------------------------------------------
    def any(self, x) -> None:
        if isinstance(x, IRModule):
            self.module(x)
        elif isinstance(x, rx.Function):
            self.function(x)
        elif isinstance(x, tir.PrimFunc):
            self.prim_func(x)
        elif isinstance(x, rx.Expr):
            self.expr(x)
        elif isinstance(x, si.StructInfo):
            self.sinfo(x, False)
        elif isinstance(x, P.PrimExpr):
            self.prim(x, False)
        elif isinstance(x, tir.Stmt):
            self.stmt(x)
        elif isinstance(x, rx.Binding):
            self.binding(x)
        elif isinstance(x, rx.BindingBlock):
            self.blocks([x])
        elif isinstance(x, tir.Buffer):
            self.buffer_def(x)
        else:
            self.value(x)

    # -- module ----------------------------------------------------------------------------------------
    def module(self, m: IRModule) -> None:
        names = tuple(sorted(m))
        self.emit(("module", names))
        self.push(("module_attrs",))
        self.attrs(m.attrs)
        self.pop()
        self.push(("global_infos",))
        self.attrs(m.global_infos)
        self.pop()
        for name in names:
            f = m[name]
            self.push(("function", name, "PrimFunc" if isinstance(f, tir.PrimFunc) else "function"), f)
            if isinstance(f, rx.Function):
                self.function(f)
            elif isinstance(f, tir.PrimFunc):
                self.prim_func(f)
            else:
                self.expr(f)
            self.pop()

    # -- Relax -----------------------------------------------------------------------------------------
    def relax_var_kind(self, v: rx.Var) -> str:
        return "dfvar" if isinstance(v, rx.DataflowVar) else "var"

    def define_relax_var(self, v: rx.Var, sinfo_def: bool = False) -> None:
        self.define(v, self.relax_var_kind(v))
        self.push(("annotation",), v.struct_info)
        self.opt_sinfo(v.struct_info, sinfo_def)
        self.pop()

    def function(self, f: rx.Function) -> None:
        self.emit(("function", bool(f.is_pure), len(f.params)))
        for i, p in enumerate(f.params):
            self.push(("param", i, p.name_hint), p)
            self.define_relax_var(p, sinfo_def=True)
            self.pop()
        self.push(("ret",), f.ret_struct_info)
        self.opt_sinfo(f.ret_struct_info, False)
        self.pop()
        self.push(("attrs",))
        self.attrs(f.attrs)
        self.pop()
        self.expr(f.body)

    def opt_sinfo(self, s, def_mode: bool) -> None:
        if s is None:
            self.emit(("no-sinfo",))
        else:
            self.sinfo(s, def_mode)

    def blocks(self, blocks) -> None:
        merged: list = []
        for i, b in enumerate(blocks):
            df = isinstance(b, rx.DataflowBlock)
            if not df and not b.bindings:
                continue
            if not df and merged and not merged[-1][0]:
                merged[-1][1].extend((i, j, x) for j, x in enumerate(b.bindings))
            else:
                merged.append((df, [(i, j, x) for j, x in enumerate(b.bindings)]))
        self.emit(("blocks", len(merged)))
        for df, bindings in merged:
            self.emit(("block", df, len(bindings)))
            for i, j, x in bindings:
                self.push(("binding", i, j, x.var.name_hint, df), x)
                self.binding(x)
                self.pop()

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.MatchCast):
            self.emit(("match_cast",))
            self.push(("value",), b.value)
            self.expr(b.value)
            self.pop()
            self.push(("cast_to",), b.struct_info)
            self.sinfo(b.struct_info, True)
            self.pop()
            self.push(("var",), b.var)
            self.define_relax_var(b.var)
            self.pop()
            return
        self.emit(("bind",))
        if isinstance(b.value, rx.Function):
            self.push(("var",), b.var)
            self.define_relax_var(b.var)
            self.pop()
            self.push(("value",), b.value)
            self.expr(b.value)
            self.pop()
            return
        self.push(("value",), b.value)
        self.expr(b.value)
        self.pop()
        self.push(("var",), b.var)
        self.define_relax_var(b.var)
        self.pop()

    def sub(self, comp: tuple, e) -> None:
        self.push(comp, e)
        self.expr(e)
        self.pop()

    def expr(self, e) -> None:
        if e is None:
            self.emit(("none",))
            return
        if isinstance(e, rx.Var):
            self.use(e, self.relax_var_kind(e))
        elif isinstance(e, rx.GlobalVar):
            self.emit(("gvar", e.name_hint))
        elif isinstance(e, rx.Constant):
            self.emit(_const_token(e))
        elif isinstance(e, rx.ShapeExpr):
            self.emit(("shape", len(e.values)))
            for i, v in enumerate(e.values):
                self.push(("dim", i))
                self.prim(v, False)
                self.pop()
        elif isinstance(e, rx.PrimValue):
            self.emit(("prim_value",))
            self.prim(e.value, False)
        elif isinstance(e, rx.StringImm):
            self.emit(("str", e.value))
        elif isinstance(e, rx.DataTypeImm):
            self.emit(("dtype", e.value))
        elif isinstance(e, rx.Op):
            self.emit(("op", e.name))
        elif isinstance(e, rx.ExternFunc):
            self.emit(("extern", e.global_symbol))
        elif isinstance(e, rx.Tuple):
            self.emit(("tuple", len(e.fields)))
            for i, f in enumerate(e.fields):
                self.sub(("field", i), f)
        elif isinstance(e, rx.TupleGetItem):
            self.emit(("get_item", e.index))
            self.sub(("tuple",), e.tuple_value)
        elif isinstance(e, rx.Call):
            self.call(e)
        elif isinstance(e, rx.If):
            self.emit(("if",))
            self.sub(("cond",), e.cond)
            self.sub(("then",), e.true_branch)
            self.sub(("else",), e.false_branch)
        elif isinstance(e, rx.SeqExpr):
            self.emit(("seq",))
            self.blocks(e.blocks)
            self.sub(("result",), e.body)
        elif isinstance(e, rx.Function):
            self.function(e)
        else:
            self.emit(("unknown-expr", type(e).__name__, id(e)))

    def call(self, e: rx.Call) -> None:
        self.emit(("call", len(e.args), len(e.sinfo_args)))
        self.sub(("callee",), e.op)
        for i, a in enumerate(e.args):
            self.sub(("arg", i), a)
        self.push(("attrs",))
        self.attrs(e.attrs)
        self.pop()
        for i, s in enumerate(e.sinfo_args):
            self.push(("sinfo_arg", i), s)
            self.sinfo(s, False)
            self.pop()

    # -- struct info -----------------------------------------------------------------------------------
    def sinfo(self, s: si.StructInfo, d: bool) -> None:
        if isinstance(s, si.ObjectStructInfo):
            self.emit(("S.object",))
        elif isinstance(s, si.PrimStructInfo):
            self.emit(("S.prim", s.dtype, s.value is not None))
            if s.value is not None:
                self.prim(s.value, d)
        elif isinstance(s, si.ShapeStructInfo):
            self.emit(("S.shape", s.ndim, s.values is not None))
            for i, v in enumerate(s.values or ()):
                self.push(("dim", i))
                self.prim(v, d)
                self.pop()
        elif isinstance(s, si.TensorStructInfo):
            vd = s.vdevice
            vdt = None if vd is None else (vd.kind, vd.vdevice_id, vd.memory_scope)
            shape_kind = "none" if s.shape is None else ("expr" if isinstance(s.shape, rx.ShapeExpr) else "var")
            self.emit(("S.tensor", s.dtype, s.ndim, shape_kind, vdt))
            if isinstance(s, DTensorStructInfo):   # DIST.SI.3: the mesh and the placement are structure
                m = s.device_mesh
                self.emit(("S.dtensor", m.shape, m.device_ids, m.device_range, str(s.placement)))
            if isinstance(s.shape, rx.ShapeExpr):
                for i, v in enumerate(s.shape.values):
                    self.push(("dim", i))
                    self.prim(v, d)
                    self.pop()
            elif s.shape is not None:
                self.sub(("shape",), s.shape)
        elif isinstance(s, si.TupleStructInfo):
            self.emit(("S.tuple", len(s.fields)))
            for i, f in enumerate(s.fields):
                self.push(("field", i), f)
                self.sinfo(f, d)
                self.pop()
        elif isinstance(s, si.FuncStructInfo):
            self.emit(("S.func", s.params is None, len(s.params or ()), bool(s.purity), s.derive_func))
            for i, p in enumerate(s.params or ()):
                self.push(("param", i, None), p)
                self.sinfo(p, True)
                self.pop()
            self.push(("ret",), s.ret)
            self.sinfo(s.ret, d)
            self.pop()
        else:
            self.emit(("S.unknown", repr(s)))

    # -- scalar expressions ------------------------------------------------------------------------------
    def prim(self, e: P.PrimExpr, d: bool) -> None:
        if isinstance(e, P.PrimVar):
            if d and e not in self.index:
                self.define(e, ("pvar", e.dtype))
            else:
                self.use(e, ("pvar", e.dtype))
            return
        if isinstance(e, P.IntImm):
            self.emit(("int", e.dtype, e.value))
            return
        if isinstance(e, P.FloatImm):
            v = e.value
            self.emit(("float", e.dtype, "nan" if v != v else v))
            return
        if isinstance(e, P.PrimStringImm):
            self.emit(("pstr", e.value))
            return
        self.push(("node",), e)
        self.prim_compound(e, d)
        self.pop()

    def prim_compound(self, e: P.PrimExpr, d: bool) -> None:
        if isinstance(e, P.Cast):
            self.emit(("cast", e.dtype))
            self.prim(e.value, d)
        elif isinstance(e, P.BinaryOp):
            self.emit((type(e).__name__, e.dtype))
            self.prim(e.a, d)
            self.prim(e.b, d)
        elif isinstance(e, P.Not):
            self.emit(("not", e.dtype))
            self.prim(e.a, d)
        elif isinstance(e, P.Select):
            self.emit(("select", e.dtype))
            for x in (e.condition, e.true_value, e.false_value):
                self.prim(x, d)
        elif isinstance(e, P.PrimCall):
            self.emit(("pcall", e.dtype, _canon_intrinsic(e.op), len(e.args)))
            for a in e.args:
                self.prim(a, d)
        elif isinstance(e, P.Let):
            self.emit(("let", e.dtype))
            self.prim(e.value, d)
            self.define(e.var, ("pvar", e.var.dtype))
            self.prim(e.body, d)
        elif isinstance(e, tir.BufferLoad):
            self.emit(("load", e.dtype, len(e.indices)))
            self.buffer_use(e.buffer)
            for x in e.indices:
                self.prim(x, d)
        else:
            self.emit(("unknown-prim", type(e).__name__, id(e)))

    # -- values (attributes) ---------------------------------------------------------------------------
    def attrs(self, a: Mapping, canon_keys: bool = False, skip=()) -> None:
        items = [(_canon_key(k) if canon_keys else k, v) for k, v in a.items() if k not in skip]
        items.sort(key=lambda kv: str(kv[0]))
        self.emit(("attrs", tuple(k for k, _ in items)))
        for k, v in items:
            self.push(("attr", k), v)
            self.value(v)
            self.pop()

    def value(self, v) -> None:
        if v is None:
            self.emit(("none",))
        elif isinstance(v, (bool, np.bool_)):
            self.emit(("bool", bool(v)))
        elif isinstance(v, (int, np.integer)):
            self.emit(("i", int(v)))
        elif isinstance(v, (float, np.floating)):
            f = float(v)
            self.emit(("f", "nan" if f != f else f))
        elif isinstance(v, str):
            self.emit(("s", v))
        elif isinstance(v, Mapping):
            self.attrs(v)
        elif isinstance(v, (list, tuple)):
            self.emit(("list", len(v)))
            for i, x in enumerate(v):
                self.push(("item", i), x)
                self.value(x)
                self.pop()
        elif isinstance(v, P.PrimExpr):
            self.prim(v, False)
        elif isinstance(v, si.StructInfo):
            self.sinfo(v, False)
        elif isinstance(v, si.VDevice):
            self.emit(("vdevice", v.kind, v.vdevice_id, v.memory_scope))
        elif isinstance(v, DeviceMesh):
            self.emit(("device_mesh", v.shape, v.device_ids, v.device_range))
        elif isinstance(v, Placement):
            self.emit(("placement", str(v)))
        elif isinstance(v, (rx.Expr, tir.PrimFunc, IRModule)):
            self.any(v)
        elif isinstance(v, tir.Stmt):
            self.stmt(v)
        elif type(v).__name__ == "IndexMap" and hasattr(v, "initial_indices"):
            # an index map binds its own index variables (EXPR.EQ.1)
            self.emit(("index_map", len(v.initial_indices), len(v.final_indices)))
            for iv in v.initial_indices:
                self.define(iv, ("pvar", iv.dtype))
            for f in v.final_indices:
                self.prim(f, False)
        elif foreign_type_name(v) is not None:
            raise TypeMismatchError(
                f"structural_equal compares relax-ref objects; got a {foreign_type_name(v)} "
                "(TVM modules are converted by relax_ref.structural_equal)")
        else:
            self.emit(("other", type(v).__name__, repr(v)))

    # -- TensorIR --------------------------------------------------------------------------------------
    def prim_func(self, f: tir.PrimFunc) -> None:
        self.emit(("prim_func", len(f.params), f.ret_type, len(f.buffer_map)))
        for i, p in enumerate(f.params):
            self.push(("tir_param", i, p.name), p)
            self.define(p, ("pvar", p.dtype))
            self.pop()
        for i, (p, b) in enumerate(f.buffer_map):
            self.push(("buffer_param", i, b.name), b)
            self.use(p, ("pvar", p.dtype))
            self.buffer_def(b)
            self.pop()
        self.push(("attrs",))
        self.attrs(f.attrs, canon_keys=True, skip=_IGNORED_PRIMFUNC_ATTRS)
        self.pop()
        self.stmt(f.body)

    def buffer_def(self, b: tir.Buffer) -> None:
        if b in self.index:
            self.emit(("redef-buffer", self.index[b]))
            return
        self.index[b] = len(self.index)
        self.emit(("buffer", b.dtype, len(b.shape), len(b.strides), b.scope, b.align, b.offset_factor,
                   tuple(b.axis_separators), b.elem_offset is None))
        if b.data is not None:
            if b.data in self.index:
                self.use(b.data, ("pvar", b.data.dtype))
            else:
                self.define(b.data, ("pvar", b.data.dtype))
        for i, x in enumerate(b.shape):
            self.push(("dim", i))
            self.prim(x, True)
            self.pop()
        for x in b.strides:
            self.prim(x, True)
        if b.elem_offset is not None:
            self.prim(b.elem_offset, True)

    def buffer_use(self, b: tir.Buffer) -> None:
        if b not in self.index and b.data is not None and b.data in self.index:
            # a view declared where it is used, over a data variable in scope (WF.TIR.3)
            self.emit(("buffer-at-use",))
            self.buffer_def(b)
        elif b not in self.index and self.map_free:
            self.emit(("free-buffer",))
            self.buffer_def(b)
        else:
            self.use(b, "buffer")

    def region(self, r: tir.BufferRegion) -> None:
        self.emit(("region", len(r.region)))
        self.buffer_use(r.buffer)
        for rng in r.region:
            self.prim(rng.min, False)
            self.prim(rng.extent, False)

    def _flat(self, s) -> list:
        if isinstance(s, tir.SeqStmt):
            out = []
            for x in s.seq:
                out += self._flat(x)
            return out
        return [s]

    def stmt(self, s: Optional[tir.Stmt]) -> None:
        if s is None:
            self.emit(("none",))
            return
        self.push(("node",), s)
        self.stmt_node(s)
        self.pop()

    def stmt_node(self, s: tir.Stmt) -> None:
        if isinstance(s, tir.SeqStmt):
            flat = self._flat(s)
            if len(flat) == 1:
                self.stmt(flat[0])
                return
            self.emit(("seq_stmt", len(flat)))
            for i, x in enumerate(flat):
                self.push(("stmt", i), x)
                self.stmt(x)
                self.pop()
            return
        if isinstance(s, tir.BufferStore):
            self.emit(("store", len(s.indices)))
            self.buffer_use(s.buffer)
            self.push(("stored",), s.value)
            self.prim(s.value, False)
            self.pop()
            for i, x in enumerate(s.indices):
                self.push(("index", i), x)
                self.prim(x, False)
                self.pop()
        elif isinstance(s, tir.Evaluate):
            self.emit(("evaluate",))
            self.prim(s.value, False)
        elif isinstance(s, tir.LetStmt):
            self.emit(("let_stmt",))
            self.prim(s.value, False)
            self.define(s.var, ("pvar", s.var.dtype))
            self.stmt(s.body)
        elif isinstance(s, tir.Bind):
            self.emit(("bind_stmt",))
            self.prim(s.value, False)
            if s.var in self.index:
                self.use(s.var, ("pvar", s.var.dtype))
            else:
                self.define(s.var, ("pvar", s.var.dtype))
        elif isinstance(s, tir.AssertStmt):
            self.emit(("assert", s.message, s.body is not None))
            self.prim(s.condition, False)
            if s.body is not None:
                self.stmt(s.body)
        elif isinstance(s, tir.For):
            self.emit(("for", s.kind, s.thread_binding))
            self.prim(s.min, False)
            self.prim(s.extent, False)
            self.define(s.loop_var, ("pvar", s.loop_var.dtype))
            self.attrs(s.annotations)
            self.push(("loop", s.loop_var.name), s.body)
            self.stmt(s.body)
            self.pop()
        elif isinstance(s, tir.While):
            self.emit(("while",))
            self.prim(s.condition, False)
            self.stmt(s.body)
        elif isinstance(s, tir.IfThenElse):
            self.emit(("if_then_else", s.else_case is not None))
            self.prim(s.condition, False)
            self.push(("then",), s.then_case)
            self.stmt(s.then_case)
            self.pop()
            if s.else_case is not None:
                self.push(("else",), s.else_case)
                self.stmt(s.else_case)
                self.pop()
        elif isinstance(s, tir.AllocBuffer):
            self.emit(("alloc_buffer",))
            self.buffer_def(s.buffer)
        elif isinstance(s, tir.DeclBuffer):
            self.emit(("decl_buffer", s.body is not None))
            self.buffer_def(s.buffer)
            if s.body is not None:
                self.stmt(s.body)
        elif isinstance(s, tir.Allocate):
            self.emit(("allocate", s.dtype, s.scope, len(s.extents), s.condition is not None))
            for x in s.extents:
                self.prim(x, False)
            if s.condition is not None:
                self.prim(s.condition, False)
            self.define(s.buffer_var, ("pvar", s.buffer_var.dtype))
            self.stmt(s.body)
        elif isinstance(s, tir.BlockRealize):
            self.emit(("block_realize", len(s.iter_values)))
            for i, v in enumerate(s.iter_values):
                self.push(("binding_value", i), v)
                self.prim(v, False)
                self.pop()
            self.prim(s.predicate, False)
            self.push(("tir_block", s.block.name), s.block)
            self.block(s.block)
            self.pop()
        else:
            self.emit(("unknown-stmt", type(s).__name__, id(s)))

    def block(self, b: tir.Block) -> None:
        self.emit(("block", b.name if self.strict else None, len(b.iter_vars), len(b.reads), len(b.writes), b.init is not None,
                   len(b.alloc_buffers), len(b.match_buffers)))
        for i, iv in enumerate(b.iter_vars):
            self.push(("iter_var", i, iv.var.name), iv)
            self.emit(("iter_var", iv.iter_type))
            self.prim(iv.dom.min, False)
            self.prim(iv.dom.extent, False)
            self.define(iv.var, ("pvar", iv.var.dtype))
            self.pop()
        for i, ab in enumerate(b.alloc_buffers):
            self.push(("alloc_buffer", i, ab.name), ab)
            self.buffer_def(ab)
            self.pop()
        for i, mb in enumerate(b.match_buffers):
            self.push(("match_buffer", i, mb.buffer.name), mb)
            self.region(mb.source)
            self.buffer_def(mb.buffer)
            self.pop()
        for i, r in enumerate(b.reads):
            self.push(("read", i), r)
            self.region(r)
            self.pop()
        for i, r in enumerate(b.writes):
            self.push(("write", i), r)
            self.region(r)
            self.pop()
        self.push(("annotations",))
        self.attrs(b.annotations)
        self.pop()
        if b.init is not None:
            self.push(("init",), b.init)
            self.stmt(b.init)
            self.pop()
        self.stmt(b.body)



def check_foreign(x, what: str) -> None:
    name = foreign_type_name(x)
    if name is not None:
        raise TypeMismatchError(
            f"{what} compares relax-ref objects (IRModule, Function, PrimFunc, expressions, struct info); "
            f"got a {name}" + (" (relax_ref.structural_equal converts a tvm.IRModule first)"
                               if name.startswith(("tvm.", "tvm_ffi.")) else ""))


def serialize(x, map_free_vars: bool, strict: bool = False) -> _Serializer:
    s = _Serializer(map_free_vars, strict)
    s.any(x)
    return s


def tracked(x, map_free_vars: bool, strict: bool, upto: int) -> _Serializer:
    """The serializer of ``x`` with paths recorded, run until it has emitted token ``upto``."""
    s = _Serializer(map_free_vars, strict, track=True, stop_after=upto)
    s.push(("node",), x)
    try:
        s.any(x)
    except _Stop:
        pass
    return s


__all__ = ["StructuralMismatchError", "check_foreign", "serialize", "tracked"]

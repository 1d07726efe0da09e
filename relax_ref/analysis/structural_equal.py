"""Structural equality and hashing up to renaming of bound variables (spec rule EXPR.EQ.1).

Both sides are serialized to a canonical token stream; two objects are equal iff their streams
are equal. Variables are replaced by the position of their definition in the stream, so names do
not matter and the correspondence between the two sides' variables is a bijection:

* Relax ``Var``/``DataflowVar``: defined by function parameters, bindings, ``MatchCast`` and If
  branch bindings; the var kind and its struct info annotation are part of the comparison.
* Symbolic ``PrimVar``s: defined at their first occurrence in a parameter's struct info, a
  ``MatchCast`` struct info or the parameters of an ``R.Callable``; in TensorIR by PrimFunc
  parameters, loop and block iteration variables, lets, and buffer declarations (shape, strides,
  offset and data pointer of ``buffer_map`` / allocated / matched / declared buffers).
* ``Buffer``s: defined by their declaration (``buffer_map``, block ``alloc_buffers`` and
  ``match_buffers``, ``AllocBuffer``, ``DeclBuffer``) or, for a view over a data variable already
  defined, by their first use; names are ignored.

Anything else used before a definition is *free*: it must be the very same object on both sides,
unless ``map_free_vars=True`` (then free variables are matched in order of appearance, as TVM does).

Other rules: IRModules match functions by name and compare module attributes and global infos;
``GlobalVar``s compare by name; ``Constant``s by dtype, shape and exact bytes, with any NaN equal to
any NaN; floats are NaN-aware; attribute dicts ignore key order. Representation details the text
format does not preserve are not significant (EXPR.EQ.2): boundaries between adjacent non-dataflow
binding blocks and empty non-dataflow blocks; nesting of ``SeqStmt``s and one-element ``SeqStmt``s;
the ``tir.``/``tirx.`` prefix of intrinsic names and of PrimFunc attribute keys; and the PrimFunc
attribute ``s_tir`` (TVM 0.25's marker for block-based parsing, implied by the body).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, List, Optional

import numpy as np

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ..ir import tir
from ..ir.module import IRModule


class StructuralMismatchError(RelaxError, AssertionError):
    """Raised by :func:`assert_structural_equal`; ``path`` locates the first difference."""

    kind = "structural_mismatch"

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


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


class _Serializer:
    def __init__(self, map_free_vars: bool, track_paths: bool = False) -> None:
        self.map_free = map_free_vars
        self.track = track_paths
        self.tokens: List[Any] = []
        self.paths: List[str] = []
        self.index: dict = {}
        self._path: List[str] = []

    # -- plumbing ----------------------------------------------------------------------------------
    def emit(self, tok) -> None:
        self.tokens.append(tok)
        if self.track:
            self.paths.append("".join(self._path))

    def push(self, comp: str) -> None:
        if self.track:
            self._path.append(comp)

    def pop(self) -> None:
        if self.track:
            self._path.pop()

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
        self.push(".attrs")
        self.attrs(m.attrs)
        self.pop()
        self.push(".global_infos")
        self.attrs(m.global_infos)
        self.pop()
        for name in names:
            self.push(f"[{name!r}]")
            f = m[name]
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
        self.push(".struct_info")
        self.opt_sinfo(v.struct_info, sinfo_def)
        self.pop()

    def function(self, f: rx.Function) -> None:
        self.emit(("function", bool(f.is_pure), len(f.params)))
        for i, p in enumerate(f.params):
            self.push(f".params[{i}]")
            self.define_relax_var(p, sinfo_def=True)
            self.pop()
        self.push(".ret_struct_info")
        self.opt_sinfo(f.ret_struct_info, False)
        self.pop()
        self.push(".attrs")
        self.attrs(f.attrs)
        self.pop()
        self.push(".body")
        self.expr(f.body)
        self.pop()

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
                self.push(f".blocks[{i}].bindings[{j}]")
                self.binding(x)
                self.pop()

    def binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.MatchCast):
            self.emit(("match_cast",))
            self.push(".value")
            self.expr(b.value)
            self.pop()
            self.push(".struct_info")
            self.sinfo(b.struct_info, True)
            self.pop()
            self.push(".var")
            self.define_relax_var(b.var)
            self.pop()
            return
        self.emit(("bind",))
        if isinstance(b.value, rx.Function):
            self.push(".var")
            self.define_relax_var(b.var)
            self.pop()
            self.push(".value")
            self.expr(b.value)
            self.pop()
            return
        self.push(".value")
        self.expr(b.value)
        self.pop()
        self.push(".var")
        self.define_relax_var(b.var)
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
                self.push(f".values[{i}]")
                self.prim(v, False)
                self.pop()
        elif isinstance(e, rx.PrimValue):
            self.emit(("prim_value",))
            self.push(".value")
            self.prim(e.value, False)
            self.pop()
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
                self.push(f".fields[{i}]")
                self.expr(f)
                self.pop()
        elif isinstance(e, rx.TupleGetItem):
            self.emit(("get_item", e.index))
            self.push(".tuple_value")
            self.expr(e.tuple_value)
            self.pop()
        elif isinstance(e, rx.Call):
            self.emit(("call", len(e.args), len(e.sinfo_args)))
            self.push(".op")
            self.expr(e.op)
            self.pop()
            for i, a in enumerate(e.args):
                self.push(f".args[{i}]")
                self.expr(a)
                self.pop()
            self.push(".attrs")
            self.attrs(e.attrs)
            self.pop()
            for i, s in enumerate(e.sinfo_args):
                self.push(f".sinfo_args[{i}]")
                self.sinfo(s, False)
                self.pop()
        elif isinstance(e, rx.If):
            self.emit(("if",))
            self.push(".cond")
            self.expr(e.cond)
            self.pop()
            self.push(".true_branch")
            self.expr(e.true_branch)
            self.pop()
            self.push(".false_branch")
            self.expr(e.false_branch)
            self.pop()
        elif isinstance(e, rx.SeqExpr):
            self.emit(("seq",))
            self.blocks(e.blocks)
            self.push(".body")
            self.expr(e.body)
            self.pop()
        elif isinstance(e, rx.Function):
            self.function(e)
        else:
            self.emit(("unknown-expr", type(e).__name__, id(e)))

    # -- struct info -----------------------------------------------------------------------------------
    def sinfo(self, s: si.StructInfo, d: bool) -> None:
        if isinstance(s, si.ObjectStructInfo):
            self.emit(("S.object",))
        elif isinstance(s, si.PrimStructInfo):
            self.emit(("S.prim", s.dtype, s.value is not None))
            if s.value is not None:
                self.push(".value")
                self.prim(s.value, d)
                self.pop()
        elif isinstance(s, si.ShapeStructInfo):
            self.emit(("S.shape", s.ndim, s.values is not None))
            for i, v in enumerate(s.values or ()):
                self.push(f".values[{i}]")
                self.prim(v, d)
                self.pop()
        elif isinstance(s, si.TensorStructInfo):
            vd = s.vdevice
            vdt = None if vd is None else (vd.kind, vd.vdevice_id, vd.memory_scope)
            shape_kind = "none" if s.shape is None else ("expr" if isinstance(s.shape, rx.ShapeExpr) else "var")
            self.emit(("S.tensor", s.dtype, s.ndim, shape_kind, vdt))
            if isinstance(s.shape, rx.ShapeExpr):
                for i, v in enumerate(s.shape.values):
                    self.push(f".shape[{i}]")
                    self.prim(v, d)
                    self.pop()
            elif s.shape is not None:
                self.push(".shape")
                self.expr(s.shape)
                self.pop()
        elif isinstance(s, si.TupleStructInfo):
            self.emit(("S.tuple", len(s.fields)))
            for i, f in enumerate(s.fields):
                self.push(f".fields[{i}]")
                self.sinfo(f, d)
                self.pop()
        elif isinstance(s, si.FuncStructInfo):
            self.emit(("S.func", s.params is None, len(s.params or ()), bool(s.purity), s.derive_func))
            for i, p in enumerate(s.params or ()):
                self.push(f".params[{i}]")
                self.sinfo(p, True)
                self.pop()
            self.push(".ret")
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
        if isinstance(e, P.Cast):
            self.emit(("cast", e.dtype))
            self.prim(e.value, d)
            return
        if isinstance(e, P.BinaryOp):
            self.emit((type(e).__name__, e.dtype))
            self.push(".a")
            self.prim(e.a, d)
            self.pop()
            self.push(".b")
            self.prim(e.b, d)
            self.pop()
            return
        if isinstance(e, P.Not):
            self.emit(("not", e.dtype))
            self.prim(e.a, d)
            return
        if isinstance(e, P.Select):
            self.emit(("select", e.dtype))
            for x in (e.condition, e.true_value, e.false_value):
                self.prim(x, d)
            return
        if isinstance(e, P.PrimCall):
            self.emit(("pcall", e.dtype, _canon_intrinsic(e.op), len(e.args)))
            for i, a in enumerate(e.args):
                self.push(f".args[{i}]")
                self.prim(a, d)
                self.pop()
            return
        if isinstance(e, P.Let):
            self.emit(("let", e.dtype))
            self.prim(e.value, d)
            self.define(e.var, ("pvar", e.var.dtype))
            self.prim(e.body, d)
            return
        if isinstance(e, tir.BufferLoad):
            self.emit(("load", e.dtype, len(e.indices)))
            self.buffer_use(e.buffer)
            for i, x in enumerate(e.indices):
                self.push(f".indices[{i}]")
                self.prim(x, d)
                self.pop()
            return
        self.emit(("unknown-prim", type(e).__name__, id(e)))

    # -- values (attributes) ---------------------------------------------------------------------------
    def attrs(self, a: Mapping, canon_keys: bool = False, skip=()) -> None:
        items = [(_canon_key(k) if canon_keys else k, v) for k, v in a.items() if k not in skip]
        items.sort(key=lambda kv: str(kv[0]))
        self.emit(("attrs", tuple(k for k, _ in items)))
        for k, v in items:
            self.push(f"[{k!r}]")
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
                self.push(f"[{i}]")
                self.value(x)
                self.pop()
        elif isinstance(v, P.PrimExpr):
            self.prim(v, False)
        elif isinstance(v, si.StructInfo):
            self.sinfo(v, False)
        elif isinstance(v, si.VDevice):
            self.emit(("vdevice", v.kind, v.vdevice_id, v.memory_scope))
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
        else:
            self.emit(("other", type(v).__name__, repr(v)))

    # -- TensorIR --------------------------------------------------------------------------------------
    def prim_func(self, f: tir.PrimFunc) -> None:
        self.emit(("prim_func", len(f.params), f.ret_type, len(f.buffer_map)))
        for i, p in enumerate(f.params):
            self.push(f".params[{i}]")
            self.define(p, ("pvar", p.dtype))
            self.pop()
        for i, (p, b) in enumerate(f.buffer_map):
            self.push(f".buffer_map[{i}]")
            self.use(p, ("pvar", p.dtype))
            self.buffer_def(b)
            self.pop()
        self.push(".attrs")
        self.attrs(f.attrs, canon_keys=True, skip=_IGNORED_PRIMFUNC_ATTRS)
        self.pop()
        self.push(".body")
        self.stmt(f.body)
        self.pop()

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
            self.push(f".shape[{i}]")
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
        if isinstance(s, tir.SeqStmt):
            flat = self._flat(s)
            if len(flat) == 1:
                self.stmt(flat[0])
                return
            self.emit(("seq_stmt", len(flat)))
            for i, x in enumerate(flat):
                self.push(f".seq[{i}]")
                self.stmt(x)
                self.pop()
            return
        if isinstance(s, tir.BufferStore):
            self.emit(("store", len(s.indices)))
            self.buffer_use(s.buffer)
            self.push(".value")
            self.prim(s.value, False)
            self.pop()
            for i, x in enumerate(s.indices):
                self.push(f".indices[{i}]")
                self.prim(x, False)
                self.pop()
        elif isinstance(s, tir.Evaluate):
            self.emit(("evaluate",))
            self.prim(s.value, False)
        elif isinstance(s, tir.LetStmt):
            self.emit(("let_stmt",))
            self.prim(s.value, False)
            self.define(s.var, ("pvar", s.var.dtype))
            self.push(".body")
            self.stmt(s.body)
            self.pop()
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
            self.push(".body")
            self.stmt(s.body)
            self.pop()
        elif isinstance(s, tir.While):
            self.emit(("while",))
            self.prim(s.condition, False)
            self.stmt(s.body)
        elif isinstance(s, tir.IfThenElse):
            self.emit(("if_then_else", s.else_case is not None))
            self.prim(s.condition, False)
            self.push(".then_case")
            self.stmt(s.then_case)
            self.pop()
            if s.else_case is not None:
                self.push(".else_case")
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
                self.push(f".iter_values[{i}]")
                self.prim(v, False)
                self.pop()
            self.prim(s.predicate, False)
            self.push(".block")
            self.block(s.block)
            self.pop()
        else:
            self.emit(("unknown-stmt", type(s).__name__, id(s)))

    def block(self, b: tir.Block) -> None:
        self.emit(("block", b.name, len(b.iter_vars), len(b.reads), len(b.writes), b.init is not None,
                   len(b.alloc_buffers), len(b.match_buffers)))
        for i, iv in enumerate(b.iter_vars):
            self.push(f".iter_vars[{i}]")
            self.emit(("iter_var", iv.iter_type))
            self.prim(iv.dom.min, False)
            self.prim(iv.dom.extent, False)
            self.define(iv.var, ("pvar", iv.var.dtype))
            self.pop()
        for i, ab in enumerate(b.alloc_buffers):
            self.push(f".alloc_buffers[{i}]")
            self.buffer_def(ab)
            self.pop()
        for i, mb in enumerate(b.match_buffers):
            self.push(f".match_buffers[{i}]")
            self.region(mb.source)
            self.buffer_def(mb.buffer)
            self.pop()
        for i, r in enumerate(b.reads):
            self.push(f".reads[{i}]")
            self.region(r)
            self.pop()
        for i, r in enumerate(b.writes):
            self.push(f".writes[{i}]")
            self.region(r)
            self.pop()
        self.push(".annotations")
        self.attrs(b.annotations)
        self.pop()
        if b.init is not None:
            self.push(".init")
            self.stmt(b.init)
            self.pop()
        self.push(".body")
        self.stmt(b.body)
        self.pop()


def _serialize(x, map_free_vars: bool, track_paths: bool = False) -> _Serializer:
    s = _Serializer(map_free_vars, track_paths)
    s.any(x)
    return s


def structural_equal(a, b, *, map_free_vars: bool = False) -> bool:
    """True iff ``a`` and ``b`` (modules, functions, expressions, struct info, PrimFuncs,
    statements, scalar expressions, attribute values) are equal up to renaming of bound
    variables (see the module docstring)."""
    if a is b:
        return True
    return _serialize(a, map_free_vars).tokens == _serialize(b, map_free_vars).tokens


def _describe(tok) -> str:
    if isinstance(tok, tuple) and tok and tok[0] == "const":
        return f"constant {tok[1]}{list(tok[2])}"
    if isinstance(tok, tuple) and tok and tok[0] == "free-id":
        return f"free {tok[1]} (object {tok[2]:#x})"
    return repr(tok)


def first_difference(a, b, *, map_free_vars: bool = False) -> Optional[str]:
    """None when equal, else a message naming the path of the first difference."""
    if structural_equal(a, b, map_free_vars=map_free_vars):
        return None
    sa = _serialize(a, map_free_vars, True)
    sb = _serialize(b, map_free_vars, True)
    n = min(len(sa.tokens), len(sb.tokens))
    k = next((i for i in range(n) if sa.tokens[i] != sb.tokens[i]), n)
    path_a = sa.paths[k] if k < len(sa.paths) else (sa.paths[-1] + " (end)" if sa.paths else "<end>")
    path_b = sb.paths[k] if k < len(sb.paths) else (sb.paths[-1] + " (end)" if sb.paths else "<end>")
    ta = _describe(sa.tokens[k]) if k < len(sa.tokens) else "<nothing>"
    tb = _describe(sb.tokens[k]) if k < len(sb.tokens) else "<nothing>"
    where = path_a or "<root>"
    if path_b != path_a:
        where += f" (rhs: {path_b or '<root>'})"
    return f"structural mismatch at {where}: lhs {ta} vs rhs {tb}"


def assert_structural_equal(a, b, *, map_free_vars: bool = False) -> None:
    """Raise :class:`StructuralMismatchError` (an AssertionError) with the path of the first
    difference unless ``structural_equal(a, b)``."""
    msg = first_difference(a, b, map_free_vars=map_free_vars)
    if msg is not None:
        raise StructuralMismatchError(msg, msg.split(":", 1)[0])


def structural_hash(x, *, map_free_vars: bool = False) -> int:
    """A hash consistent with :func:`structural_equal` (within one process: free variables
    that are not mapped hash by identity)."""
    return hash(tuple(_serialize(x, map_free_vars).tokens))


__all__ = ["structural_equal", "assert_structural_equal", "structural_hash", "first_difference",
           "StructuralMismatchError"]

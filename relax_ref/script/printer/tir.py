"""Printing of TensorIR PrimFuncs and statements (spec rules TEXT.TIR.*).

Follows TVM's printer:

* ``@T.prim_func`` with ``private=True`` when there is no ``global_symbol`` and, in the ``tvm``
  dialect, ``s_tir=True`` for functions containing blocks (TEXT.TIR.1). ``T.func_attr`` holds the
  remaining attributes (keys spelled per dialect: ``tir.noalias`` / ``tirx.noalias``).
* A buffer parameter prints inline as ``A: T.Buffer((T.int64(4),), "float32")`` when its shape is
  constant and it has default layout; otherwise the parameter is ``var_a: T.handle`` and the body
  starts with ``n = T.int64()`` declarations and ``A = T.match_buffer(var_a, (n, T.int64(4)))``
  (TEXT.TIR.2).
* An implicit root block (no iter vars, predicate, reads, writes, init, annotations or match
  buffers, named ``root``) prints as the comment ``# with T.block("root"):`` (``T.sblock`` in the
  tvm dialect) followed by its allocations and body (TEXT.TIR.3).
* Loops: ``for i in range(n)``, ``range(lo, hi)``, ``T.serial/parallel/vectorized/unroll(...)``,
  ``T.thread_binding(..., thread=...)``, ``annotations={...}``; directly nested serial loops from
  zero without annotations fold into ``for i, j in T.grid(n, m)`` (TEXT.TIR.4).
* Blocks: iter vars whose binding is an enclosing loop var over the same domain fold into
  ``vi, vj = T.axis.remap("SR", [i, j])``, others print as ``T.axis.spatial/reduce/scan/opaque``;
  then ``T.where``, ``T.reads``, ``T.writes``, ``T.block_attr``, block allocations, match buffers,
  ``with T.init():`` and the body (TEXT.TIR.5).
* Lets: ``LetStmt`` prints as ``with T.LetStmt(v) as x:`` (classic); the flat ``Bind`` as
  ``x = T.bind(v)`` (classic) and ``x: T.let[T.int32] = v`` (tvm). TVM 0.25 has no ``LetStmt``: in
  the tvm dialect it prints as a ``Bind`` followed by its body (reads back as ``Bind``); asserts: ``assert c, "msg"`` / ``with T.Assert(c, "msg"):`` (classic)
  and ``assert c, ("RuntimeError", ["msg"])`` (tvm); ``T.decl_buffer`` is flat (``V = T.decl_buffer(...)``;
  a ``DeclBuffer`` with a body prints as the declaration followed by the body) (TEXT.TIR.6).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ...errors import UnsupportedError
from ...ir import prim_expr as P
from ...ir import tir
from ...ir.attrs import Attrs
from ...ir.functor import post_order_visit_stmt, prim_vars_in, stmt_children, stmt_prim_exprs
from ._format import format_str
from .context import PrintContext
from .prim import PrimPrinter
from .relax import indent
from .values import attr_value

_KIND_PREFIX = {"parallel": "T.parallel", "vectorized": "T.vectorized", "unrolled": "T.unroll"}
_AXIS = {"spatial": "spatial", "reduce": "reduce", "scan": "scan", "opaque": "opaque"}


def _is_int(e, v) -> bool:
    return isinstance(e, P.IntImm) and e.dtype != "bool" and e.value == v


def _zero_or_none(e) -> bool:
    return e is None or _is_int(e, 0)


def fold_add(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """``a + b`` with TVM's constant folding (used for ``range(lo, lo + n)`` and slices)."""
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm) and a.dtype == b.dtype:
        return P.IntImm(a.value + b.value, a.dtype)
    if _is_int(a, 0) and a.dtype == b.dtype:
        return b
    if _is_int(b, 0) and a.dtype == b.dtype:
        return a
    return P.add(a, b)


def contains_block(s: Optional[tir.Stmt]) -> bool:
    if s is None:
        return False
    found = []
    post_order_visit_stmt(s, lambda x: found.append(1) if isinstance(x, tir.BlockRealize) else None)
    return bool(found)


def _statements_per_buffer(body: tir.Stmt) -> Dict[int, int]:
    """For each buffer (by id), how many statements without child statements load or store it."""
    counts: Dict[int, int] = {}

    def visit(s):
        if stmt_children(s):
            return
        seen = {id(s.buffer)} if isinstance(s, tir.BufferStore) else set()
        stack = list(stmt_prim_exprs(s))
        while stack:
            x = stack.pop()
            if isinstance(x, tir.BufferLoad):
                seen.add(id(x.buffer))
            if isinstance(x, P.PrimExpr):
                stack.extend(P.children(x))
        for b in seen:
            counts[b] = counts.get(b, 0) + 1

    post_order_visit_stmt(body, visit)
    return counts


def _uses_var(stmt: tir.Stmt, v: P.PrimVar) -> bool:
    """Whether ``v`` occurs in an expression of ``stmt`` (buffers included)."""
    hit = []

    def visit(s):
        if hit:
            return
        exprs = list(stmt_prim_exprs(s))
        if isinstance(s, tir.BufferStore):
            exprs += list(s.buffer.shape)
        for e in exprs:
            if v in prim_vars_in(e):
                hit.append(1)
                return

    post_order_visit_stmt(stmt, visit)
    return bool(hit)


class TIRPrinter:
    def __init__(self, ctx: PrintContext) -> None:
        self.ctx = ctx
        self.d = ctx.dialect
        self.prim = PrimPrinter(ctx.dialect, "tir", self.var_name, self.buffer_name)
        self.loops: List[tir.For] = []
        self.late_decls: List[str] = []
        self.pending: Optional[List[str]] = None
        self.func_level = 0
        self.data_alias: Dict[P.PrimVar, str] = {}
        self.data_owner: Dict[P.PrimVar, tir.Buffer] = {}
        self.param_data: List[P.PrimVar] = []
        self.shared_views: Dict[int, int] = {}

    # ------------------------------------------------------------------------------------------
    # names
    # ------------------------------------------------------------------------------------------
    def var_name(self, v: P.PrimVar) -> str:
        alias = self.data_alias.get(v)
        if alias is not None:
            return alias
        name = self.ctx.names.get(v)
        if name is None:
            name = self.ctx.names.define(v, v.name, level=self.func_level)
            self.late_decls.append(f"{name} = T.{v.dtype}()")
        return name

    def buffer_name(self, b: tir.Buffer) -> str:
        """The name of ``b``; a buffer used without a declaration (a view over another buffer's
        data, ``T.Buffer(shape, data=A.data)``) is declared right before the statement that first
        uses it, where its data variable is in scope, as TVM prints it -- with ``T.decl_buffer`` in a
        dialect whose release requires the declaration (tvm-0.27) (TEXT.TIR.6)."""
        name = self.ctx.names.get(b)
        if name is None:
            data_known = b.data is not None and (b.data in self.data_alias or self.ctx.names.is_defined(b.data))
            # a view over a parameter's data that several statements use is declared once, at the top
            # of the body: declared per statement it would read back as one buffer per statement
            # (TEXT.RT.1); a view one statement uses is declared right before it, as TVM prints it
            local = self.pending is not None and not (self.shared_views.get(id(b), 0) > 1
                                                      and any(b.data is d for d in self.param_data))
            target = self.pending if local else self.late_decls
            name = self.ctx.names.define(b, b.name, level=None if local else self.func_level, default="buffer")
            # tvm-0.27 reads T.Buffer(..., data=A.data) in a body as no declaration
            call = "T.decl_buffer" if self.ctx.dialect.declared_views else "T.Buffer"
            target.append(f"{name} = {self.buffer_call(call, b, [], force_dtype=True)}")
            if not data_known:
                self.data_alias.setdefault(b.data, f"{name}.data")
        return name

    def define_buffer(self, b: tir.Buffer) -> str:
        name = self.ctx.names.define(b, b.name, default="buffer")
        if b.data is not None and b.data not in self.data_alias and not self.ctx.names.is_defined(b.data):
            self.data_alias[b.data] = f"{name}.data"
            self.data_owner[b.data] = b
        return name

    def define_var(self, v: P.PrimVar) -> str:
        return self.ctx.names.define(v, v.name)

    # ------------------------------------------------------------------------------------------
    # buffers
    # ------------------------------------------------------------------------------------------
    def new_var_decls(self, b: tir.Buffer) -> List[str]:
        """``n = T.int64()`` for the not-yet-defined variables of a buffer's shape/strides/offset."""
        out = []
        exprs = list(b.shape) + list(b.strides) + ([b.elem_offset] if b.elem_offset is not None else [])
        for e in exprs:
            for v in prim_vars_in(e):
                if not self.ctx.names.is_defined(v) and v not in self.data_alias:
                    name = self.define_var(v)
                    out.append(f"{name} = T.{v.dtype}()")
        return out

    def shape_tuple(self, dims) -> str:
        parts = [self.prim(d) for d in dims]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def buffer_call(self, prefix: str, b: tir.Buffer, args: List[str], *, force_dtype=False,
                    omit_scope=False) -> str:
        parts = list(args) + [self.shape_tuple(b.shape)]
        if force_dtype or b.dtype != "float32":
            parts.append(f'"{b.dtype}"')
        data = self.data_alias.get(b.data)
        if data is None and self.ctx.names.is_defined(b.data):
            data = self.ctx.names.get(b.data)
        if data is not None and data != f"{self.ctx.names.get(b)}.data":
            parts.append(f"data={data}")
        if b.strides:
            parts.append(f"strides={self.shape_tuple(b.strides)}")
        if b.elem_offset is not None:  # an explicit offset, even 0, is kept (it is not the default None)
            parts.append(f"elem_offset={self.prim(b.elem_offset)}")
        if b.scope != "global" and not omit_scope:
            parts.append(f"scope={format_str(b.scope)}")
        if b.align != -1:
            parts.append(f"align={b.align}")
        if b.offset_factor != 0:
            parts.append(f"offset_factor={b.offset_factor}")
        if b.axis_separators:
            parts.append(f"axis_separators=[{', '.join(str(int(a)) for a in b.axis_separators)}]")
        return f"{prefix}({', '.join(parts)})"

    def is_simple_buffer(self, b: tir.Buffer) -> bool:
        if b.strides or b.axis_separators or b.scope != "global" or b.align != -1 or b.offset_factor != 0:
            return False
        if any(prim_vars_in(d) for d in b.shape):
            return False
        return b.elem_offset is None or _is_int(b.elem_offset, 0)

    def region(self, r: tir.BufferRegion) -> str:
        name = self.buffer_name(r.buffer)
        if not r.region:
            return f"{name}[()]"
        parts = []
        for rng in r.region:
            if _is_int(rng.extent, 1):
                parts.append(self.prim(rng.min))
            else:
                parts.append(f"{self.prim(rng.min)}:{self.prim(fold_add(rng.min, rng.extent))}")
        return f"{name}[{', '.join(parts)}]"

    def attrs(self, a) -> str:
        return attr_value(a, self.prim)

    # ------------------------------------------------------------------------------------------
    # functions
    # ------------------------------------------------------------------------------------------
    def prim_func(self, f: tir.PrimFunc, name: str) -> List[str]:
        ctx = self.ctx
        ctx.used_ns.add("T")
        ctx.names.push()
        self.func_level = ctx.names.depth() - 1
        self.late_decls = []
        self.loops = []
        self.data_alias = {}
        self.data_owner = {}
        try:
            return self._prim_func(f, name)
        finally:
            ctx.names.pop()

    def _prim_func(self, f: tir.PrimFunc, name: str) -> List[str]:
        buffer_of = {id(p): b for p, b in f.buffer_map}
        self.param_data = [b.data for _, b in f.buffer_map if b.data is not None]
        self.shared_views = _statements_per_buffer(f.body) if f.body is not None else {}
        data_count: Dict[int, int] = {}
        for _, b in f.buffer_map:
            data_count[id(b.data)] = data_count.get(id(b.data), 0) + 1
        inlined = set()
        params = []
        for p in f.params:
            b = buffer_of.get(id(p))
            if (b is not None and self.is_simple_buffer(b) and data_count[id(b.data)] == 1
                    and not (f.body is not None and _uses_var(f.body, p))):
                bname = self.define_buffer(b)
                params.append(f"{bname}: {self.buffer_call('T.Buffer', b, [], force_dtype=True)}")
                inlined.add(id(p))
                continue
            params.append(f"{self.define_var(p)}: T.{p.dtype}")
        lines: List[str] = []
        attrs = {}
        for k, v in f.attrs.items():
            if k == "global_symbol" and v == name:
                continue
            if k == "s_tir":
                continue
            attrs[self.d.translate_attr_key(k)] = v
        if attrs:
            lines.append(f"T.func_attr({self.attrs(Attrs(attrs))})")
        for p in f.params:
            b = buffer_of.get(id(p))
            if b is None or id(p) in inlined:
                continue
            lines += self.new_var_decls(b)
            pname = self.ctx.names.get(p)
            bname = self.define_buffer(b)
            lines.append(f"{bname} = {self.buffer_call('T.match_buffer', b, [pname])}")
        body_lines: List[str] = []
        root = self.implicit_root(f.body)
        if root is not None:
            body_lines.append(self.d.root_comment)
            for ab in root.alloc_buffers:
                body_lines += self.alloc_decl(ab, f"T.{self.d.block_alloc}")
            body_lines += self.stmt(root.body)
        elif f.body is not None:
            body_lines += self.stmt(f.body)
        lines += self.late_decls + body_lines
        if not lines:
            lines = ["T.evaluate(0)"]
        kw = []
        if "global_symbol" not in f.attrs:
            kw.append("private=True")
        if self.d.mark_s_tir and (f.attrs.get("s_tir") or contains_block(f.body)):
            kw.append("s_tir=True")
        decorator = "@T.prim_func" + (f"({', '.join(kw)})" if kw else "")
        ret = f" -> T.{f.ret_type}" if f.ret_type not in ("void", None) else ""
        return [decorator, f"def {name}({', '.join(params)}){ret}:"] + indent(lines)

    def implicit_root(self, body) -> Optional[tir.Block]:
        if not isinstance(body, tir.BlockRealize) or body.iter_values or not _is_true(body.predicate):
            return None
        b = body.block
        if b.name != "root" or b.annotations or b.match_buffers or b.reads or b.writes or b.init is not None \
                or b.iter_vars:
            return None
        inner = b.body
        if b.alloc_buffers:
            return b
        if isinstance(inner, tir.BlockRealize):
            return b if inner.block.iter_vars else None
        return b if contains_block(inner) else None

    def alloc_decl(self, b: tir.Buffer, prefix: str) -> List[str]:
        decls = self.new_var_decls(b)
        bname = self.define_buffer(b)
        return decls + [f"{bname} = {self.buffer_call(prefix, b, [])}"]

    # ------------------------------------------------------------------------------------------
    # statements
    # ------------------------------------------------------------------------------------------
    def stmt(self, s: tir.Stmt) -> List[str]:
        m = getattr(self, "stmt_" + type(s).__name__, None)
        if m is None:
            raise UnsupportedError(f"cannot print TensorIR statement {type(s).__name__}", s.span)
        saved, self.pending = self.pending, []
        try:
            lines = m(s)
            return self.pending + lines
        finally:
            self.pending = saved

    def body(self, s: Optional[tir.Stmt]) -> List[str]:
        """An indented body that Python accepts (``T.evaluate(0)`` when empty)."""
        lines = self.stmt(s) if s is not None else []
        return indent(lines or ["T.evaluate(0)"])

    def stmt_SeqStmt(self, s: tir.SeqStmt) -> List[str]:
        out: List[str] = []
        for x in s.seq:
            out += self.stmt(x)
        return out

    def stmt_BufferStore(self, s: tir.BufferStore) -> List[str]:
        name = self.buffer_name(s.buffer)
        idx = ", ".join(self.prim(i) for i in s.indices) if s.indices else "()"
        return [f"{name}[{idx}] = {self.prim(s.value)}"]

    def stmt_Evaluate(self, s: tir.Evaluate) -> List[str]:
        v = s.value
        if isinstance(v, P.PrimCall) and self.d.bare_prim_values and v.op in ("tir.ret", "tirx.ret") \
                and len(v.args) == 1:
            return [f"return {self.prim(v.args[0])}"]  # tvm-0.27's T.ret(v) (TEXT.TIR.7)
        if isinstance(s.value, P.PrimCall):
            return [self.prim(s.value)]
        return [f"T.evaluate({self.prim(s.value)})"]

    def _let_lines(self, var: P.PrimVar, value: P.PrimExpr) -> str:
        rhs = self.prim(value)
        name = self.define_var(var)
        return f"{name}: T.let[T.{var.dtype}] = {rhs}"

    def stmt_Bind(self, s: tir.Bind) -> List[str]:
        if self.d.is_tvm:
            return [self._let_lines(s.var, s.value)]
        rhs = self.prim(s.value)
        if s.value.dtype != s.var.dtype:
            rhs += f", T.{s.var.dtype}"
        return [f"{self.define_var(s.var)} = T.bind({rhs})"]

    def stmt_LetStmt(self, s: tir.LetStmt) -> List[str]:
        if self.d.is_tvm:
            return [self._let_lines(s.var, s.value)] + (self.stmt(s.body) if s.body is not None else [])
        rhs = self.prim(s.value)
        self.ctx.names.push()
        try:
            name = self.define_var(s.var)
            return [f"with T.LetStmt({rhs}) as {name}:"] + self.body(s.body)
        finally:
            self.ctx.names.pop()

    def stmt_AssertStmt(self, s: tir.AssertStmt) -> List[str]:
        cond = self.prim(s.condition)
        msg = format_str(s.message)
        if self.d.is_tvm:
            head = [f'assert {cond}, ("RuntimeError", [{msg}])']
            return head + (self.stmt(s.body) if s.body is not None else [])
        if s.body is None:
            return [f"assert {cond}, {msg}"]
        return [f"with T.Assert({cond}, {msg}):"] + self.body(s.body)

    def stmt_While(self, s: tir.While) -> List[str]:
        return [f"while {self.prim(s.condition)}:"] + self.body(s.body)

    def stmt_IfThenElse(self, s: tir.IfThenElse) -> List[str]:
        cond = self.prim(s.condition)
        self.ctx.names.push()
        try:
            lines = [f"if {cond}:"] + self.body(s.then_case)
        finally:
            self.ctx.names.pop()
        if s.else_case is not None:
            self.ctx.names.push()
            try:
                lines += ["else:"] + self.body(s.else_case)
            finally:
                self.ctx.names.pop()
        return lines

    def stmt_AllocBuffer(self, s: tir.AllocBuffer) -> List[str]:
        b = s.buffer
        if self.d.is_tvm and b.scope in ("local", "shared"):
            # TVM 0.25 prints local and shared allocations as T.alloc_local / T.alloc_shared (TEXT.TIR.6)
            decls = self.new_var_decls(b)
            bname = self.define_buffer(b)
            return decls + [f"{bname} = {self.buffer_call(f'T.alloc_{b.scope}', b, [], omit_scope=True)}"]
        return self.alloc_decl(b, "T.alloc_buffer")

    def stmt_DeclBuffer(self, s: tir.DeclBuffer) -> List[str]:
        decls = self.new_var_decls(s.buffer)
        view = self.view_call(s.buffer) if self.d.is_tvm else None
        bname = self.define_buffer(s.buffer)
        line = f"{bname} = {view or self.buffer_call('T.decl_buffer', s.buffer, [])}"
        return decls + [line] + (self.stmt(s.body) if s.body is not None else [])

    def view_call(self, b: tir.Buffer) -> Optional[str]:
        """``A.view(d0, d1)`` / ``A.view("dtype")`` for a declared buffer over the data of buffer ``A``
        that keeps A's layout (strides, offset, scope, alignment, axis separators), as TVM 0.25 prints
        it (TEXT.TIR.6); None when the declaration needs ``T.decl_buffer``."""
        owner = self.data_owner.get(b.data)
        if owner is None or owner is b or not self.ctx.names.is_defined(owner):
            return None
        if (b.strides != owner.strides or b.scope != owner.scope or b.align != owner.align
                or b.offset_factor != owner.offset_factor or b.axis_separators != owner.axis_separators):
            return None
        name = self.ctx.names.get(owner)
        same_offset = b.elem_offset == owner.elem_offset or (
            _zero_or_none(b.elem_offset) and _zero_or_none(owner.elem_offset))
        if b.dtype == owner.dtype:
            if not same_offset or not b.shape or any(_is_int(d, -1) for d in b.shape):
                return None
            return f"{name}.view({', '.join(self.prim(d) for d in b.shape)})"
        # a dtype view: the last dimension scales by the ratio of the bit widths
        from ...ir import dtype as _dt

        if not (_zero_or_none(b.elem_offset) and _zero_or_none(owner.elem_offset)) or not owner.shape \
                or len(b.shape) != len(owner.shape) or b.shape[:-1] != owner.shape[:-1]:
            return None
        last, old_last = b.shape[-1], owner.shape[-1]
        if not (isinstance(last, P.IntImm) and isinstance(old_last, P.IntImm) and last.dtype == old_last.dtype):
            return None
        nb, ob = _dt.bits(b.dtype), _dt.bits(owner.dtype)
        expect = old_last.value // (nb // ob) if nb >= ob and nb % ob == 0 else \
            old_last.value * (ob // nb) if nb < ob and ob % nb == 0 else None
        if expect != last.value:
            return None
        return f'{name}.view("{b.dtype}")'

    def stmt_Allocate(self, s: tir.Allocate) -> List[str]:
        if self.d.is_tvm:
            raise UnsupportedError(f"T.allocate does not exist in {self.d.name}; print with dialect='classic'", s.span)
        extents = "[" + ", ".join(self.prim(e) for e in s.extents) + "]"
        args = [extents, f'"{s.dtype}"', format_str(s.scope)]
        if s.condition is not None and not _is_true(s.condition):
            args.append(self.prim(s.condition))
        self.ctx.names.push()
        try:
            name = self.define_var(s.buffer_var)
            return [f"with T.allocate({', '.join(args)}) as {name}:"] + self.body(s.body)
        finally:
            self.ctx.names.pop()

    # -- loops -------------------------------------------------------------------------------------
    def stmt_For(self, s: tir.For) -> List[str]:
        grid = []
        grid_vars = set()
        loop = s
        while isinstance(loop, tir.For):
            if (loop.kind != "serial" or not _is_int(loop.min, 0) or loop.annotations
                    or loop.thread_binding is not None or any(v in grid_vars for v in prim_vars_in(loop.extent))):
                break
            grid.append(loop)
            grid_vars.add(loop.loop_var)
            loop = loop.body
        self.ctx.names.push()
        try:
            if len(grid) > 1:
                names = []
                extents = []
                for g in grid:
                    extents.append(self.prim(g.extent))
                    names.append(self.define_var(g.loop_var))
                self.loops.extend(grid)
                try:
                    body = self.body(grid[-1].body)
                finally:
                    del self.loops[-len(grid):]
                return [f"for {', '.join(names)} in T.grid({', '.join(extents)}):"] + body
            args = []
            if _is_int(s.min, 0):
                args.append(self.prim(s.extent))
            else:
                args += [self.prim(s.min), self.prim(fold_add(s.min, s.extent))]
            kw = []
            if s.kind == "serial":
                prefix = "range" if not s.annotations else "T.serial"
            elif s.kind == "thread_binding":
                prefix = "T.thread_binding"
                kw.append(f"thread={format_str(s.thread_binding or '')}")
            elif s.kind in _KIND_PREFIX:
                prefix = _KIND_PREFIX[s.kind]
            else:
                raise UnsupportedError(f"unknown loop kind '{s.kind}'", s.span)
            if s.annotations:
                kw.append(f"annotations={self.attrs(s.annotations)}")
            name = self.define_var(s.loop_var)
            self.loops.append(s)
            try:
                body = self.body(s.body)
            finally:
                self.loops.pop()
            return [f"for {name} in {prefix}({', '.join(args + kw)}):"] + body
        finally:
            self.ctx.names.pop()

    # -- blocks ------------------------------------------------------------------------------------
    def stmt_BlockRealize(self, r: tir.BlockRealize) -> List[str]:
        b = r.block
        loop_of = {lp.loop_var: lp for lp in self.loops}
        self.ctx.names.push()
        try:
            lines: List[str] = []
            pending: List[int] = []

            def single(i: int) -> None:
                iv = b.iter_vars[i]
                kind = _AXIS.get(iv.iter_type)
                if kind is None:
                    raise UnsupportedError(f"unknown block iter var type '{iv.iter_type}'", b.span)
                if _is_int(iv.dom.min, 0):
                    dom = self.prim(iv.dom.extent)
                else:
                    dom = f"({self.prim(iv.dom.min)}, {self.prim(fold_add(iv.dom.min, iv.dom.extent))})"
                value = self.prim(r.iter_values[i])
                lines.append(f"{self.define_var(iv.var)} = T.axis.{kind}({dom}, {value})")

            def flush() -> None:
                if len(pending) == 1:
                    single(pending[0])
                elif pending:
                    lhs = [self.define_var(b.iter_vars[i].var) for i in pending]
                    vals = [self.prim(r.iter_values[i]) for i in pending]
                    kinds = "".join("S" if b.iter_vars[i].iter_type == "spatial" else "R" for i in pending)
                    lines.append(f'{", ".join(lhs)} = T.axis.remap("{kinds}", [{", ".join(vals)}])')
                pending.clear()

            for i, iv in enumerate(b.iter_vars):
                value = r.iter_values[i] if i < len(r.iter_values) else None
                loop = loop_of.get(value) if isinstance(value, P.PrimVar) else None
                if (iv.iter_type in ("spatial", "reduce") and loop is not None
                        and loop.min == iv.dom.min and loop.extent == iv.dom.extent):
                    pending.append(i)
                else:
                    flush()
                    single(i)
            flush()
            if not _is_true(r.predicate):
                lines.append(f"T.where({self.prim(r.predicate)})")
            lines.append(f"T.reads({', '.join(self.region(x) for x in b.reads)})")
            lines.append(f"T.writes({', '.join(self.region(x) for x in b.writes)})")
            if b.annotations:
                lines.append(f"T.{self.d.block_attr}({self.attrs(b.annotations)})")
            for ab in b.alloc_buffers:
                lines += self.alloc_decl(ab, f"T.{self.d.block_alloc}")
            for mb in b.match_buffers:
                decls = self.new_var_decls(mb.buffer)
                src = self.region(mb.source)
                bname = self.define_buffer(mb.buffer)
                lines += decls + [f"{bname} = {self.buffer_call('T.match_buffer', mb.buffer, [src])}"]
            if b.init is not None:
                self.ctx.names.push()
                try:
                    lines += ["with T.init():"] + self.body(b.init)
                finally:
                    self.ctx.names.pop()
            if b.body is not None:
                lines += self.stmt(b.body)
            return [f"with T.{self.d.block}({format_str(b.name)}):"] + indent(lines or ["T.evaluate(0)"])
        finally:
            self.ctx.names.pop()


def _is_true(e) -> bool:
    return isinstance(e, P.IntImm) and e.value == 1


__all__ = ["TIRPrinter", "fold_add", "contains_block"]

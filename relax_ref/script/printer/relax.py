"""Printing of Relax functions, bindings and expressions (spec rules TEXT.FUNC.*, TEXT.BIND.*).

Follows TVM's printer:

* ``@R.function`` (``pure=False``, ``private=True`` for top-level functions without a
  ``global_symbol``), return and parameter annotations with string dims for symbolic variables the
  signature introduces, then at the top of the body ``n = T.int64()`` re-declarations,
  ``R.func_attr({...})`` (without a ``global_symbol`` equal to the function name) and
  ``cls = Module`` (TEXT.FUNC.1-2).
* Every binding carries its struct info annotation, except ``R.call_tir``/``R.call_dps_packed``
  bindings whose var has exactly the call's ``out_sinfo`` (TEXT.BIND.1). A binding whose value and
  var both have unit struct info prints as a bare expression statement (``R.print(...)``).
* ``with R.dataflow():`` blocks end with ``R.output(...)`` listing the non-dataflow vars in binding
  order (TEXT.BIND.2).
* ``y = If(...)`` prints as ``if c: ... else: ...`` where each branch ends by binding ``y``: when the
  branch result is the var of the branch's last binding, that binding is printed under the name
  ``y`` with the branch var's own annotation;
  otherwise the branch prints its bindings and then ``y: S = result`` (TVM's form) (TEXT.BIND.3).
* Local functions print as nested ``@R.function`` definitions named after their binding var.
* Operator calls print through the registry (``OpDef.script``): every ``Call.args`` entry
  positionally, then ``name=value`` for each ``attr`` parameter present, in declaration order, then
  struct-info arguments; an ``OpDef.print_call(call, printer)`` hook overrides this (TEXT.CALL.1).
  The hook returns the call's text and may use ``printer.expr(e)``, ``printer.attr(value)``,
  ``printer.sinfo(struct_info)``, ``printer.prim(prim_expr)``, ``printer.callee(e)`` (an ExternFunc
  as its name string), ``printer.attr_kwargs(call, opdef)`` and ``printer.op_script_name(call, opdef)``.
  ``call_tir``/``call_tir_inplace``/``call_dps_packed``, ``print``, ``assert_op`` and
  ``call_packed`` follow TVM's special forms.
"""

from __future__ import annotations

import json

from typing import List, Optional

from ...errors import UnsupportedError
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import struct_info as si
from ...ir.attrs import Attrs
from ...ir.distributed import DeviceMesh, DTensorStructInfo, Placement
from ...ir.functor import ExprVisitor
from ._format import format_str
from .context import FuncFrame, PrintContext
from .prim import PrimPrinter
from .struct_info import StructInfoPrinter
from .values import attr_value, constant_inline, nested_list_representable

INDENT = "    "

#: ops whose binding annotation is omitted when equal to the call's out_sinfo (TVM's rule)
_HIDE_ANNOTATION_OPS = ("relax.call_tir", "relax.call_dps_packed")
#: operators whose script functions require ``sinfo_args``: an empty list is printed (TEXT.CALL.1)
_SINFO_ARGS_REQUIRED = ("relax.call_pure_packed", "relax.call_inplace_packed", "relax.invoke_closure",
                        "relax.invoke_pure_closure")
_CALL_TIR_FAMILY = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed",
                    "relax.call_tir_with_grad")


def indent(lines: List[str]) -> List[str]:
    return [INDENT + ln if ln else ln for ln in lines]


def out_sinfo_of(call: rx.Call) -> Optional[si.StructInfo]:
    """The struct info a ``call_tir``-like call produces: its single ``sinfo_args`` entry, or the
    tuple of several."""
    if len(call.sinfo_args) == 1:
        return call.sinfo_args[0]
    return si.TupleStructInfo(tuple(call.sinfo_args))


class RelaxPrinter:
    """Prints Relax constructs into lists of lines (4-space relative indentation)."""

    def __init__(self, ctx: PrintContext, tir_printer=None) -> None:
        self.ctx = ctx
        self.tir_printer = tir_printer
        self.sinfo = StructInfoPrinter(ctx, relax_var_name=self.var)
        self.prim = PrimPrinter(ctx.dialect, "relax", ctx.relax_prim_var)

    # ------------------------------------------------------------------------------------------
    # names
    # ------------------------------------------------------------------------------------------
    def define_var(self, v: rx.Var) -> str:
        return self.ctx.names.define(v, v.name_hint)

    def var(self, v: rx.Var) -> str:
        """The printed name of a var; a var used before (or without) a definition is named on
        first sight."""
        name = self.ctx.names.get(v)
        return name if name is not None else self.ctx.names.define(v, v.name_hint)

    # ------------------------------------------------------------------------------------------
    # functions
    # ------------------------------------------------------------------------------------------
    def function(self, f: rx.Function, name: str, *, top_level: bool) -> List[str]:
        ctx = self.ctx
        ctx.used_ns.add("R")
        ctx.names.push()
        frame = FuncFrame(name_level=ctx.names.depth() - 1)
        ctx.relax_funcs.append(frame)
        saved_sig = (ctx.signature_vars, ctx.sig_frame)
        if len(ctx.relax_funcs) == 1:
            ctx.referenced = referenced_vars(f)
        try:
            ctx.signature_vars, ctx.sig_frame = set(), frame
            typevars = ctx.dialect.typevar_symbols
            ret = self.sinfo(f.ret_struct_info) if f.ret_struct_info is not None and not typevars else None
            params = []
            for p in f.params:
                pname = self.scalar_param(p) if typevars else None
                if pname is not None:  # the parameter is the symbol: its value is written by its name
                    params.append(f"{pname}: {self.sinfo(si.PrimStructInfo(p.struct_info.dtype))}")
                    continue
                pname = self.define_var(p)
                if typevars and isinstance(p.struct_info, si.PrimStructInfo):
                    # a scalar parameter that is not a symbol: R.Prim("int64"), which a recursive local
                    # function reads back as no symbol (T.int64 would be one: TEXT.DIALECT.3)
                    params.append(f"{pname}: {self.sinfo(p.struct_info, True)}")
                    continue
                params.append(f"{pname}: {self.sinfo(p.struct_info)}" if p.struct_info is not None else pname)
            if typevars and f.ret_struct_info is not None:
                ret = self.sinfo(f.ret_struct_info)
            ctx.signature_vars, ctx.sig_frame = saved_sig
            attrs = dict(f.attrs)
            if top_level and attrs.get("global_symbol") == name:
                del attrs["global_symbol"]
            if attrs:
                frame.decls.append(f"R.func_attr({self.attr(Attrs(attrs))})")
            kw = []
            if not f.is_pure:
                kw.append("pure=False")
            if top_level and "global_symbol" not in f.attrs:
                kw.append("private=True")
            decorator = "@R.function" + (f"({', '.join(kw)})" if kw else "")
            if isinstance(f.body, rx.SeqExpr):
                body = self.seq_expr(f.body, use_ret=True)
            else:
                body = [f"return {self.expr(f.body)}"]
            head = f"def {name}({', '.join(params)})" + (f" -> {ret}" if ret is not None else "") + ":"
            typevar_decls = [f'{n} = TypeVar("{n}")' for n in frame.typevars]
            return typevar_decls + [decorator, head] + indent(frame.decls + body)
        finally:
            ctx.relax_funcs.pop()
            ctx.names.pop()
            ctx.signature_vars, ctx.sig_frame = saved_sig

    def scalar_param(self, p: rx.Var) -> Optional[str]:
        """tvm-0.27: a parameter ``R.Prim(value=k)`` whose value is a symbol no other parameter holds is
        written ``k: T.int64`` -- the parameter *is* the symbol, under one name (TEXT.DIALECT.3).
        Returns the name, or None for any other parameter."""
        s = p.struct_info
        if not (isinstance(s, si.PrimStructInfo) and isinstance(s.value, P.PrimVar) and s.value.dtype == "int64"):
            return None
        v = s.value
        if v in self.ctx.param_symbols:
            return None
        name = self.ctx.names.get(v)
        if name is not None:
            raise UnsupportedError(
                f"{self.ctx.dialect.name} cannot write the scalar parameter '{p.name_hint}' holding the symbol "
                f"'{name}' that an earlier parameter introduces (a scalar parameter is its own symbol there); "
                f"print this module with dialect='tvm-0.25'", p.span)
        name = self.ctx.names.define(v, v.name)
        self.ctx.names.alias(p, name)
        self.ctx.param_symbols[v] = name
        if self.ctx.signature_vars is not None:
            self.ctx.signature_vars.add(v)
        return name

    def seq_expr(self, s: rx.SeqExpr, use_ret: bool) -> List[str]:
        self.ctx.names.push()
        try:
            lines: List[str] = []
            for b in s.blocks:
                lines += self.block(b)
            body = self.expr(s.body)
            lines.append(f"return {body}" if use_ret else body)
            return lines
        finally:
            self.ctx.names.pop()

    # ------------------------------------------------------------------------------------------
    # blocks and bindings
    # ------------------------------------------------------------------------------------------
    def block(self, b: rx.BindingBlock) -> List[str]:
        if isinstance(b, rx.DataflowBlock):
            inner: List[str] = []
            outputs = []
            for binding in b.bindings:
                inner += self.binding(binding)
                if not isinstance(binding.var, rx.DataflowVar):
                    outputs.append(self.var(binding.var))
            inner.append(f"R.output({', '.join(outputs)})")
            return ["with R.dataflow():"] + indent(inner)
        lines: List[str] = []
        for binding in b.bindings:
            lines += self.binding(binding)
        return lines

    def annotation(self, var: rx.Var, value: Optional[rx.Expr]) -> str:
        """``": S"`` for a binding's var, or ``""`` when TVM omits it (call_tir out_sinfo)."""
        if var.struct_info is None:
            return ""
        if (isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and value.op.name in _HIDE_ANNOTATION_OPS
                and value.sinfo_args):
            from ...analysis.structural_equal import structural_equal

            if structural_equal(out_sinfo_of(value), var.struct_info):
                return ""
        return ": " + self.sinfo(var.struct_info)

    def binding(self, b: rx.Binding, name: Optional[str] = None) -> List[str]:
        """The lines of one binding; ``name`` overrides the var's name (the If-branch result)."""
        value = b.value
        if isinstance(b, rx.MatchCast):
            if self.ctx.dialect.prim_annotation == "T" and _has_prim_value(b.struct_info):
                raise UnsupportedError(f"{self.ctx.dialect.name} has no R.Prim(value=...): a match_cast to a scalar "
                                       f"value cannot be printed in it; print this module with "
                                       f"dialect='tvm-0.25'", b.span)
            rhs = f"R.match_cast({self.expr(value)}, {self.sinfo(b.struct_info)})"
            ann = self.annotation(b.var, value)
            lhs = name if name is not None else self.define_var(b.var)
            return [f"{lhs}{ann} = {rhs}"]
        if isinstance(value, rx.If):
            ann = self.annotation(b.var, value)
            lhs = name if name is not None else self.define_var(b.var)
            return self.if_binding(lhs, ann, value)
        if isinstance(value, rx.Function):
            lhs = name if name is not None else self.define_var(b.var)
            return self.function(value, lhs, top_level=False)
        if name is None and _is_unit(value.struct_info) and _is_unit(b.var.struct_info) \
                and b.var not in self.ctx.referenced:
            return [self.expr(value)]
        ann = self.annotation(b.var, value)
        rhs = self.bound_value(value, ann)
        lhs = name if name is not None else self.define_var(b.var)
        return [f"{lhs}{ann} = {rhs}"]

    def if_binding(self, name: str, ann: str, e: rx.If) -> List[str]:
        cond = self.expr(e.cond)
        then = self.branch(e.true_branch, name, ann)
        other = self.branch(e.false_branch, name, ann)
        return [f"if {cond}:"] + indent(then) + ["else:"] + indent(other)

    def branch(self, s: rx.Expr, name: str, ann: str) -> List[str]:
        if not isinstance(s, rx.SeqExpr):
            return [f"{name}{ann} = {self.bound_value(s, ann)}"]
        self.ctx.names.push()
        try:
            blocks = list(s.blocks)
            merged = None
            if blocks and not isinstance(blocks[-1], rx.DataflowBlock) and blocks[-1].bindings:
                last = blocks[-1].bindings[-1]
                # a leaf value bound last would be read back as the branch's value itself (TEXT.STMT.4)
                if last.var is s.body and not (isinstance(last, rx.VarBinding) and rx.is_leaf_or_tuple(last.value)):
                    merged = last
            lines: List[str] = []
            for i, b in enumerate(blocks):
                if merged is not None and i == len(blocks) - 1:
                    for binding in b.bindings[:-1]:
                        lines += self.binding(binding)
                    lines += self.binding(merged, name=name)
                else:
                    lines += self.block(b)
            if merged is None:
                lines.append(f"{name}{ann} = {self.bound_value(s.body, ann)}")
            return lines
        finally:
            self.ctx.names.pop()

    # ------------------------------------------------------------------------------------------
    # expressions
    # ------------------------------------------------------------------------------------------
    def expr(self, e: rx.Expr, top: bool = False) -> str:
        ctx = self.ctx
        ctx.used_ns.add("R")
        if isinstance(e, rx.Var):
            return self.var(e)
        if isinstance(e, rx.GlobalVar):
            if ctx.module is not None and ctx.relax_funcs:
                return f"{ctx.module_alias()}.{e.name_hint}"
            return e.name_hint
        if isinstance(e, rx.Constant):
            return self.constant(e)
        if isinstance(e, rx.ShapeExpr):
            return f"R.shape([{', '.join(self.prim(v) for v in e.values)}])"
        if isinstance(e, rx.PrimValue):
            return self.prim_value(e)
        if isinstance(e, rx.StringImm):
            return f"R.str({format_str(e.value)})"
        if isinstance(e, rx.DataTypeImm):
            return f'R.dtype("{e.value}")'
        if isinstance(e, rx.Tuple):
            if not e.fields:
                return "R.tuple()"
            fields = [self.expr(f) for f in e.fields]
            if len(fields) == 1:
                return f"({fields[0]},)"
            return ", ".join(fields) if top else "(" + ", ".join(fields) + ")"
        if isinstance(e, rx.TupleGetItem):
            t = e.tuple_value
            if isinstance(t, rx.Tuple):
                # ``(a, b)[0]`` would index the Python tuple and read back as ``a``
                return f"R.tuple({', '.join(self.expr(f) for f in t.fields)})[{e.index}]"
            return f"{self.expr(t)}[{e.index}]"
        if isinstance(e, rx.Call):
            return self.call(e)
        if isinstance(e, rx.ExternFunc):
            text = format_str(e.global_symbol)
            s = e.struct_info
            if s is not None and not _default_extern_sinfo(s):
                return f"R.ExternFunc({text}, {self.sinfo(s)})"
            return f"R.ExternFunc({text})"
        if isinstance(e, rx.Op):
            ctx.used_ns.add("I")
            return f"I.Op({format_str(e.name)})"
        raise UnsupportedError(f"a {type(e).__name__} can only be printed as the value of a binding",
                               e.span)

    def typed_expr(self, e: rx.Expr, top: bool = False) -> str:
        """:meth:`expr`, where a bare integer would not read back as a scalar value: tvm-0.27 reads
        ``a = 5`` (a binding without annotation, an If branch's value) as a tensor constant and refuses
        ``f(5)`` for a function call, so such an integer is written ``T.int64(5)`` there."""
        if isinstance(e, rx.PrimValue):
            return self.prim_value(e, typed=True)
        return self.expr(e, top=top)

    def bound_value(self, e: rx.Expr, ann: str) -> str:
        """The right-hand side of a binding annotated ``ann`` (``""``: none)."""
        return self.expr(e, top=True) if ann else self.typed_expr(e, top=True)

    def prim_value(self, e: rx.PrimValue, typed: bool = False) -> str:
        """``R.prim_value(v)``; tvm-0.27 writes the scalar itself (``n + 1``, ``1``,
        ``T.float32(0.5)``, ``T.bool(True)``; an integer as ``T.int64(1)`` when ``typed``, see
        :meth:`typed_expr`), except a scalar parameter's symbol alone, which would read back as the
        parameter (TEXT.DIALECT.3)."""
        v = e.value
        if isinstance(v, P.IntImm) and v.dtype == "bool":
            self.ctx.used_ns.add("T")
            text = f"T.bool({'True' if v.value else 'False'})"  # a bare True reads as an int64 scalar
            return text if self.ctx.dialect.bare_prim_values else f"R.prim_value({text})"
        if not self.ctx.dialect.bare_prim_values or (isinstance(v, P.PrimVar) and v in self.ctx.param_symbols):
            return f"R.prim_value({self.prim(v)})"
        text = self.prim(v)
        if typed and isinstance(v, P.IntImm) and "T." not in text:
            text = f"T.{v.dtype}({text})"
        if "T." in text:
            self.ctx.used_ns.add("T")
        return text

    def constant(self, c: rx.Constant) -> str:
        arr = c.data
        if isinstance(c.struct_info, DTensorStructInfo) and nested_list_representable(arr.shape):
            return constant_inline(c, self.sinfo(c.struct_info))
        if arr.ndim == 0:
            return constant_inline(c)
        representable = nested_list_representable(arr.shape)
        # TVM 0.25 cannot load an empty tensor with a trailing zero dimension from its JSON
        if not representable or (self.ctx.show_meta and arr.size):
            i = self.ctx.add_metadata_constant(c)
            return f'metadata["{self.ctx.dialect.constant_key}"][{i}]'
        return constant_inline(c)

    def attr(self, v) -> str:
        if isinstance(v, si.VDevice):
            return format_str(self.sinfo.vdevice(v))
        if isinstance(v, DeviceMesh):
            return self.sinfo.mesh(v)
        if isinstance(v, Placement):
            return format_str(str(v))
        if isinstance(v, str) and v == "void" and self.ctx.dialect.void_dtype_none:
            return "None"  # TVM 0.27 writes an unknown dtype attribute (out_dtype) as None
        return attr_value(v, self.prim, self.sinfo, self.expr)

    def sinfo_tuple(self, items) -> str:
        # nested: TVM 0.27 prints a prim struct info here as T.int64 but reads only R.Prim("int64")
        parts = [self.sinfo(s, nested=True) for s in items]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def callee(self, e: rx.Expr) -> str:
        """A callee-position argument: an ExternFunc prints as its name string (TVM)."""
        if isinstance(e, rx.ExternFunc):
            return format_str(e.global_symbol)
        return self.expr(e)

    # ------------------------------------------------------------------------------------------
    # calls
    # ------------------------------------------------------------------------------------------
    def call(self, c: rx.Call) -> str:
        op = c.op
        if isinstance(op, rx.Op):
            from ...ops import registry

            opdef = registry.lookup(op.name)
            if opdef is not None and opdef.print_call is not None:
                return opdef.print_call(c, self)
            special = _SPECIAL.get(op.name)
            if special is not None:
                text = special(self, c, opdef)
                if text is not None:
                    return text
            return self.generic_op_call(c, opdef)
        kw = self.ctx.dialect.sinfo_args_kw
        if isinstance(op, rx.ExternFunc):
            parts = [format_str(op.global_symbol)] + [self.expr(a) for a in c.args]
            parts += [f"{k}={self.attr(v)}" for k, v in sorted(c.attrs.items())]
            if c.sinfo_args:
                parts.append(f"{kw}={self.sinfo_tuple(c.sinfo_args)}")
            return f"R.call_packed({', '.join(parts)})"
        parts = [self.typed_expr(a) for a in c.args]
        parts += [f"{k}={self.attr(v)}" for k, v in sorted(c.attrs.items())]
        if c.sinfo_args:
            parts.append(f"{kw}={self.sinfo_tuple(c.sinfo_args)}")
        return f"{self.expr(op)}({', '.join(parts)})"

    def accepts_keyword(self, script: str, name: str) -> bool:
        """Does the dialect's ``script`` (``"R.layout_transform"``) take the keyword ``name``? (A release
        may drop one: TEXT.DIALECT.1.)"""
        return name not in self.ctx.dialect.removed_keywords.get(script, ())

    def keyword(self, name: str) -> str:
        """A struct-info keyword of a call in this dialect (``out_sinfo`` / ``out_ty``)."""
        d = self.ctx.dialect
        return {"out_sinfo": d.out_sinfo_kw, "sinfo_args": d.sinfo_args_kw}.get(name, name)

    def op_script_name(self, c: rx.Call, opdef) -> str:
        if opdef is not None:
            return opdef.script
        name = c.op.name
        return "R." + name[len("relax."):] if name.startswith("relax.") else name

    def generic_op_call(self, c: rx.Call, opdef) -> str:
        if c.sinfo_args and not c.attrs and opdef is not None and not any(p.kind == "sinfo" for p in opdef.params):
            # the operator's script function takes no struct-info arguments: TVM's spelling (TEXT.CALL.1)
            args = ", ".join(self.expr(a) for a in c.args) + ("," if len(c.args) == 1 else "")
            return f'{self.ctx.dialect.emit_with_sinfo}("{c.op.name}", ({args}), {self.sinfo_tuple(c.sinfo_args)})'
        parts = [self.callee(c.args[0])] if c.args else []
        parts += [self.expr(a) for a in c.args[1:]]
        parts += self.attr_kwargs(c, opdef)
        if c.sinfo_args:
            sparams = [p for p in opdef.params if p.kind == "sinfo"] if opdef is not None else []
            if len(sparams) == 1 and sparams[0].name != "sinfo_args":
                if len(c.sinfo_args) == 1:
                    value = self.sinfo(c.sinfo_args[0])
                else:
                    value = "[" + ", ".join(self.sinfo(s) for s in c.sinfo_args) + "]"
                parts.append(f"{self.keyword(sparams[0].name)}={value}")
            elif c.op.name == "relax.call_inplace_packed":
                # TVM's call_inplace_packed takes struct infos only: an object struct info is written
                # called (R.Object()), not as the bare constructor its call_pure_packed also accepts
                items = [self.sinfo(s, nested=True) + ("()" if isinstance(s, si.ObjectStructInfo) else "")
                         for s in c.sinfo_args]
                parts.append(f"{self.keyword('sinfo_args')}=[{', '.join(items)}]")
            else:
                parts.append(f"{self.keyword('sinfo_args')}={self.sinfo_tuple(c.sinfo_args)}")
        elif c.op.name in _SINFO_ARGS_REQUIRED:
            # their sinfo_args are required in text: an empty list is written, or the print would not
            # parse back (found by fuzzing: R.call_pure_packed(..., sinfo_args=()), TEXT.CALL.1)
            parts.append(f"{self.keyword('sinfo_args')}=[]")
        return f"{self.op_script_name(c, opdef)}({', '.join(parts)})"

    def attr_kwargs(self, c: rx.Call, opdef, skip=()) -> List[str]:
        """``name=value`` for the attributes: declared ``attr`` parameters in order, then any
        others sorted by name."""
        out = []
        seen = set(skip)
        if opdef is not None:
            lacking = self.ctx.dialect.removed_keywords.get(opdef.script, ())
            for p in opdef.attr_params():
                if p.name in c.attrs and p.name not in seen:
                    seen.add(p.name)
                    if p.name in lacking and self._lacking_keyword(c, opdef, p):
                        continue
                    out.append(f"{p.name}={self.attr(c.attrs[p.name])}")
        for k in sorted(c.attrs):
            if k not in seen:
                out.append(f"{k}={self.attr(c.attrs[k])}")
        return out


    def _lacking_keyword(self, c: rx.Call, opdef, p) -> bool:
        """A keyword the dialect's release does not take (TEXT.DIALECT.1): left out when the call
        gives its default (what the release always does), refused otherwise (TEXT.DIALECT.5)."""
        value = c.attrs[p.name]
        if not p.required and getattr(value, "value", value) == p.default:
            return True
        raise UnsupportedError(
            f"{self.ctx.dialect.name} cannot write {opdef.script}({p.name}={self.attr(value)}): the release "
            f"has no '{p.name}'; print this module with dialect='tvm-0.27'", c.span)


class _VarUses(ExprVisitor):
    def __init__(self) -> None:
        self.used: set = set()

    def visit_Var(self, v: rx.Var) -> None:
        self.used.add(v)

    visit_DataflowVar = visit_Var


def referenced_vars(f: rx.Function) -> set:
    """The variables a function (with its nested functions) refers to."""
    v = _VarUses()
    v.visit_expr(f)
    return v.used


def _has_prim_value(s) -> bool:
    """Does struct info ``s`` contain an ``R.Prim(value=...)``?"""
    if isinstance(s, si.PrimStructInfo):
        return s.value is not None
    if isinstance(s, si.TupleStructInfo):
        return any(_has_prim_value(f) for f in s.fields)
    if isinstance(s, si.FuncStructInfo):
        return any(_has_prim_value(p) for p in (s.params or ())) or _has_prim_value(s.ret)
    return False


def _is_unit(s) -> bool:
    return isinstance(s, si.TupleStructInfo) and not s.fields


def _default_extern_sinfo(s) -> bool:
    return (isinstance(s, si.FuncStructInfo) and s.params is None and not s.purity
            and isinstance(s.ret, si.ObjectStructInfo))


# ---------------------------------------------------------------------------------------------------
# TVM's special call forms
# ---------------------------------------------------------------------------------------------------


def _print_call_tir(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    name = c.op.name
    if len(c.args) not in (2, 3) or not c.sinfo_args:
        return None
    parts = [p.callee(c.args[0]), p.expr(c.args[1])]
    if len(c.sinfo_args) == 1 and not isinstance(c.sinfo_args[0], si.TupleStructInfo):
        out = p.sinfo(c.sinfo_args[0])
    else:
        items = c.sinfo_args[0].fields if len(c.sinfo_args) == 1 else c.sinfo_args
        out = "[" + ", ".join(p.sinfo(s) for s in items) + "]"
    parts.append(f"{p.keyword('out_sinfo')}={out}")
    skip = set()
    if name == "relax.call_tir_inplace":
        idx = c.attrs.get("inplace_indices", ())
        idx = idx if isinstance(idx, (tuple, list)) else (idx,)
        parts.append(f"inplace_indices=[{', '.join(str(int(i)) for i in idx)}]")
        skip.add("inplace_indices")
    if len(c.args) == 3:
        if name == "relax.call_dps_packed":
            return None
        if not p.ctx.dialect.tir_vars:
            raise UnsupportedError(f"{p.ctx.dialect.name} has no call_tir(..., tir_vars=...): its PrimFuncs take "
                                   f"scalar arguments before the outputs; print this module with "
                                   f"dialect='tvm-0.25'", c.span)
        parts.append(f"tir_vars={p.expr(c.args[2])}")
    parts += p.attr_kwargs(c, opdef, skip=skip)
    outs = c.sinfo_args[0].fields if isinstance(c.sinfo_args[0], si.TupleStructInfo) else c.sinfo_args
    if name == "relax.call_tir" and any(isinstance(s, DTensorStructInfo) for s in outs):
        return f"R.dist.call_tir({', '.join(parts)})"     # DIST.TEXT.4
    return f"{p.op_script_name(c, opdef)}({', '.join(parts)})"


def _print_print(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    if not c.args or not isinstance(c.args[0], rx.StringImm) or c.attrs:
        return None
    parts = [p.expr(a) for a in c.args[1:]] + [f"format={p.expr(c.args[0])}"]
    return f"{p.op_script_name(c, opdef)}({', '.join(parts)})"


def _print_assert(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    if len(c.args) < 2 or not isinstance(c.args[1], rx.StringImm) or c.attrs:
        return None
    fargs = [p.expr(a) for a in c.args[2:]]
    if len(fargs) > 1 and p.ctx.dialect.list_format_args:
        fargs = ["[" + ", ".join(fargs) + "]"]  # TVM 0.27 reads several format arguments only as a list
    parts = [p.expr(c.args[0])] + fargs + [f"format={p.expr(c.args[1])}"]
    return f"{p.op_script_name(c, opdef)}({', '.join(parts)})"


def _print_builtin_with_ctx(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    if c.sinfo_args or c.attrs or len(c.args) != 2 or not p.ctx.dialect.explicit_empty_ty_args:
        return None
    # TVM 0.27 needs the (empty) struct-info arguments written out
    return f"{p.op_script_name(c, opdef)}({p.callee(c.args[0])}, {p.expr(c.args[1])}, {p.keyword('sinfo_args')}=[])"


def _print_call_py_func(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    if len(c.args) != 2 or not isinstance(c.args[0], rx.StringImm) or not isinstance(c.args[1], rx.Tuple) \
            or len(c.sinfo_args) != 1 or c.attrs:
        return None
    out = c.sinfo_args[0]
    out_text = ("[" + ", ".join(p.sinfo(s) for s in out.fields) + "]" if isinstance(out, si.TupleStructInfo)
                else p.sinfo(out))
    parts = [json.dumps(c.args[0].value)] + [p.expr(a) for a in c.args[1].fields]
    parts.append(f"{p.keyword('out_sinfo')}={out_text}")
    return f"{p.op_script_name(c, opdef)}({', '.join(parts)})"


def _print_reshape(p: RelaxPrinter, c: rx.Call, opdef) -> Optional[str]:
    """A target with a literal 0 that the parser would read as a copy of the input's dim is written
    with the ``-1`` that resolves to it (``relax_ref.ops.manipulate.reshape_spelling``, TEXT.RT.1)."""
    from ...ops.manipulate import reshape_spelling

    spelled = reshape_spelling(c)
    if spelled is None:
        return None
    return f"{p.op_script_name(c, opdef)}({p.callee(c.args[0])}, R.shape([{', '.join(p.prim(v) for v in spelled)}]))"


_SPECIAL = {
    "relax.reshape": _print_reshape,
    "relax.call_tir": _print_call_tir,
    "relax.call_tir_inplace": _print_call_tir,
    "relax.call_dps_packed": _print_call_tir,
    "relax.call_tir_with_grad": _print_call_tir,
    "relax.dist.call_tir_local_view": _print_call_tir,
    "relax.print": _print_print,
    "relax.assert_op": _print_assert,
    "relax.call_builtin_with_ctx": _print_builtin_with_ctx,
    "relax.call_py_func": _print_call_py_func,
}

__all__ = ["RelaxPrinter", "indent", "out_sinfo_of", "INDENT"]

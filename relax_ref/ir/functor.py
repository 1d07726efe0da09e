"""Generic traversal of the IR: visitors and mutators dispatching on node class.

* :class:`PrimExprMutator` / :func:`substitute_prim` / :func:`prim_vars_in` for scalar expressions.
* :class:`StructInfoMutator` / :func:`substitute_struct_info` / :func:`struct_info_prim_vars`.
* :class:`ExprVisitor` and :class:`ExprMutator` for Relax (``visit_<ClassName>`` methods; the mutator
  rebuilds a node only when a child changed, so identity is preserved where nothing changed).
* :class:`StmtVisitor` / :class:`StmtMutator` for TensorIR statements.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Callable, Dict, Iterable, Optional

from . import expr as rx
from . import prim_expr as P
from . import struct_info as si
from . import tir

# ---------------------------------------------------------------------------------------------------
# Scalar expressions
# ---------------------------------------------------------------------------------------------------


class PrimExprMutator:
    """Rebuilds scalar expressions bottom-up. Override ``visit_<Class>`` or :meth:`visit_var`."""

    def visit(self, e: P.PrimExpr) -> P.PrimExpr:
        m = getattr(self, "visit_" + type(e).__name__, None)
        if m is not None:
            return m(e)
        return self.generic_visit(e)

    def visit_var(self, v: P.PrimVar) -> P.PrimExpr:
        return v

    def visit_PrimVar(self, v: P.PrimVar) -> P.PrimExpr:
        return self.visit_var(v)

    def visit_buffer(self, b: tir.Buffer) -> tir.Buffer:
        return b

    def generic_visit(self, e: P.PrimExpr) -> P.PrimExpr:
        if isinstance(e, (P.IntImm, P.FloatImm, P.PrimStringImm)):
            return e
        if isinstance(e, P.BinaryOp):
            a, b = self.visit(e.a), self.visit(e.b)
            if a is e.a and b is e.b:
                return e
            return type(e)(a, b, e.dtype)
        if isinstance(e, P.Not):
            a = self.visit(e.a)
            return e if a is e.a else P.Not(a)
        if isinstance(e, P.Cast):
            v = self.visit(e.value)
            return e if v is e.value else P.Cast(e.dtype, v)
        if isinstance(e, P.Select):
            c, t, f = self.visit(e.condition), self.visit(e.true_value), self.visit(e.false_value)
            if c is e.condition and t is e.true_value and f is e.false_value:
                return e
            return P.Select(c, t, f, e.dtype)
        if isinstance(e, P.PrimCall):
            args = tuple(self.visit(a) for a in e.args)
            if all(x is y for x, y in zip(args, e.args)):
                return e
            return P.PrimCall(e.dtype, e.op, args)
        if isinstance(e, P.Let):
            value, body = self.visit(e.value), self.visit(e.body)
            if value is e.value and body is e.body:
                return e
            return P.Let(e.var, value, body, e.dtype)
        if isinstance(e, tir.BufferLoad):
            buf = self.visit_buffer(e.buffer)
            idx = tuple(self.visit(i) for i in e.indices)
            if buf is e.buffer and all(x is y for x, y in zip(idx, e.indices)):
                return e
            return tir.BufferLoad(buf, idx, e.dtype)
        raise TypeError(f"unknown PrimExpr node {type(e).__name__}")


class _Substituter(PrimExprMutator):
    def __init__(self, vmap):
        self.vmap = vmap

    def visit_var(self, v):
        r = self.vmap.get(v)
        if r is None:
            return v
        if isinstance(r, int):
            return P.IntImm(r, v.dtype)
        return r


def substitute_prim(e: P.PrimExpr, vmap: Dict[P.PrimVar, P.PrimExpr]) -> P.PrimExpr:
    """Replace variables by expressions (the map may also hold Python ints)."""
    if not vmap:
        return e
    return _Substituter(vmap).visit(e)


def prim_vars_in(e: P.PrimExpr, out: Optional[dict] = None) -> dict:
    """The PrimVars occurring in ``e`` (a dict used as an ordered set: ``{var: None}``)."""
    if out is None:
        out = {}
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, P.PrimVar):
            out.setdefault(x, None)
        elif isinstance(x, P.Let):
            stack.append(x.value)
            stack.append(x.body)
        else:
            stack.extend(reversed(P.children(x)))
    return out


# ---------------------------------------------------------------------------------------------------
# Struct info
# ---------------------------------------------------------------------------------------------------


class StructInfoMutator:
    """Maps a function over the PrimExprs (and shape Vars) inside struct info."""

    def visit_prim(self, e: P.PrimExpr) -> P.PrimExpr:
        return e

    def visit_shape_var(self, v: rx.Var):
        return v

    def visit(self, s: si.StructInfo) -> si.StructInfo:
        if isinstance(s, si.PrimStructInfo):
            if s.value is None:
                return s
            v = self.visit_prim(s.value)
            return s if v is s.value else si.PrimStructInfo(s.dtype, v)
        if isinstance(s, si.ShapeStructInfo):
            if s.values is None:
                return s
            vals = tuple(self.visit_prim(v) for v in s.values)
            return s if all(a is b for a, b in zip(vals, s.values)) else si.ShapeStructInfo(vals)
        if isinstance(s, si.TensorStructInfo):
            if s.shape is None:
                return s
            if isinstance(s.shape, rx.ShapeExpr):
                vals = tuple(self.visit_prim(v) for v in s.shape.values)
                if all(a is b for a, b in zip(vals, s.shape.values)):
                    return s
                return si.TensorStructInfo(rx.ShapeExpr(vals), s.dtype, vdevice=s.vdevice)
            new_shape = self.visit_shape_var(s.shape)
            if new_shape is s.shape:
                return s
            if new_shape is None:
                return si.TensorStructInfo(None, s.dtype, s.ndim, s.vdevice)
            return si.TensorStructInfo(new_shape, s.dtype, vdevice=s.vdevice)
        if isinstance(s, si.TupleStructInfo):
            fs = tuple(self.visit(f) for f in s.fields)
            return s if all(a is b for a, b in zip(fs, s.fields)) else si.TupleStructInfo(fs)
        if isinstance(s, si.FuncStructInfo):
            params = None if s.params is None else tuple(self.visit(p) for p in s.params)
            ret = self.visit(s.ret)
            if ret is s.ret and (params is None or all(a is b for a, b in zip(params, s.params))):
                return s
            return si.FuncStructInfo(params, ret, s.purity, s.derive_func)
        return s


class _SISubst(StructInfoMutator):
    def __init__(self, vmap, shape_map=None):
        self.vmap = vmap
        self.shape_map = shape_map or {}

    def visit_prim(self, e):
        return substitute_prim(e, self.vmap)

    def visit_shape_var(self, v):
        return self.shape_map.get(v, v)


def substitute_struct_info(s: si.StructInfo, vmap: Dict[P.PrimVar, P.PrimExpr],
                           shape_map: Optional[dict] = None) -> si.StructInfo:
    """Substitute symbolic variables (and, optionally, shape-typed Relax Vars) inside struct info."""
    if not vmap and not shape_map:
        return s
    return _SISubst(vmap, shape_map).visit(s)


def struct_info_prim_vars(s: si.StructInfo, out: Optional[dict] = None) -> dict:
    """Every PrimVar mentioned in struct info, in order of first occurrence."""
    if out is None:
        out = {}
    if isinstance(s, si.PrimStructInfo):
        if s.value is not None:
            prim_vars_in(s.value, out)
    elif isinstance(s, si.ShapeStructInfo):
        for v in s.values or ():
            prim_vars_in(v, out)
    elif isinstance(s, si.TensorStructInfo):
        if isinstance(s.shape, rx.ShapeExpr):
            for v in s.shape.values:
                prim_vars_in(v, out)
    elif isinstance(s, si.TupleStructInfo):
        for f in s.fields:
            struct_info_prim_vars(f, out)
    elif isinstance(s, si.FuncStructInfo):
        for p in s.params or ():
            struct_info_prim_vars(p, out)
        struct_info_prim_vars(s.ret, out)
    return out


# ---------------------------------------------------------------------------------------------------
# Relax expressions
# ---------------------------------------------------------------------------------------------------


def expr_children(e: rx.Expr) -> tuple:
    """The sub-expressions of a ``Tuple``, ``TupleGetItem``, ``Call`` (the callee, then the arguments)
    or ``If`` (the condition, then the branches), in evaluation order; ``()`` for any other node (a
    ``SeqExpr`` holds its sub-expressions in bindings, a ``Function`` in its body)."""
    if isinstance(e, rx.Tuple):
        return e.fields
    if isinstance(e, rx.TupleGetItem):
        return (e.tuple_value,)
    if isinstance(e, rx.Call):
        return (e.op,) + tuple(e.args)
    if isinstance(e, rx.If):
        return (e.cond, e.true_branch, e.false_branch)
    return ()


class ExprVisitor:
    """Pre-order visitor over Relax expressions, bindings and blocks."""

    def visit_expr(self, e: rx.Expr) -> None:
        m = getattr(self, "visit_" + type(e).__name__, None)
        if m is not None:
            m(e)
        else:
            self.generic_visit_expr(e)

    def generic_visit_expr(self, e: rx.Expr) -> None:
        if isinstance(e, (rx.Tuple, rx.TupleGetItem, rx.Call, rx.If)):
            for c in expr_children(e):
                self.visit_expr(c)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                self.visit_block(b)
            self.visit_expr(e.body)
        elif isinstance(e, rx.Function):
            for p in e.params:
                self.visit_var_def(p)
            self.visit_expr(e.body)

    def visit_block(self, b: rx.BindingBlock) -> None:
        for binding in b.bindings:
            self.visit_binding(binding)

    def visit_binding(self, b: rx.Binding) -> None:
        self.visit_expr(b.value)
        self.visit_var_def(b.var)

    def visit_var_def(self, v: rx.Var) -> None:
        pass


class ExprMutator:
    """Post-order rebuilding mutator. ``visit_<Class>`` methods may be overridden; vars are
    remapped through ``self.var_remap`` (used when a binding's var had to be recreated)."""

    def __init__(self) -> None:
        self.var_remap: Dict[rx.Var, rx.Expr] = {}

    def visit_expr(self, e: rx.Expr) -> rx.Expr:
        m = getattr(self, "visit_" + type(e).__name__, None)
        if m is not None:
            return m(e)
        return self.generic_mutate_expr(e)

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.var_remap.get(v, v)

    def visit_DataflowVar(self, v: rx.DataflowVar) -> rx.Expr:
        return self.var_remap.get(v, v)

    def generic_mutate_expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.Tuple):
            fs = tuple(self.visit_expr(f) for f in e.fields)
            if all(a is b for a, b in zip(fs, e.fields)):
                return e
            return rx.Tuple(fs, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            t = self.visit_expr(e.tuple_value)
            return e if t is e.tuple_value else rx.TupleGetItem(t, e.index, span=e.span)
        if isinstance(e, rx.Call):
            op = self.visit_expr(e.op)
            args = tuple(self.visit_expr(a) for a in e.args)
            if op is e.op and all(a is b for a, b in zip(args, e.args)):
                return e
            return rx.Call(op, args, e.attrs, e.sinfo_args, span=e.span)
        if isinstance(e, rx.If):
            c = self.visit_expr(e.cond)
            t = self.visit_expr(e.true_branch)
            f = self.visit_expr(e.false_branch)
            if c is e.cond and t is e.true_branch and f is e.false_branch:
                return e
            return rx.If(c, t, f, span=e.span)
        if isinstance(e, rx.SeqExpr):
            blocks = [self.visit_block(b) for b in e.blocks]
            body = self.visit_expr(e.body)
            if body is e.body and all(a is b for a, b in zip(blocks, e.blocks)):
                return e
            return rx.SeqExpr(tuple(blocks), body, span=e.span)
        if isinstance(e, rx.Function):
            body = self.visit_expr(e.body)
            if body is e.body:
                return e
            return rx.Function(e.params, body, e.ret_struct_info, e.is_pure, attrs=e.attrs, span=e.span)
        return e

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        new = [self.visit_binding(x) for x in b.bindings]
        flat = []
        for x in new:
            if x is None:
                continue
            if isinstance(x, (list, tuple)):
                flat.extend(x)
            else:
                flat.append(x)
        if len(flat) == len(b.bindings) and all(a is c for a, c in zip(flat, b.bindings)):
            return b
        return type(b)(tuple(flat), span=b.span)

    def visit_binding(self, b: rx.Binding):
        """Return the new binding, a list of bindings, or None to drop it."""
        value = self.visit_expr(b.value)
        if value is b.value:
            return b
        if isinstance(b, rx.MatchCast):
            return rx.MatchCast(b.var, value, b.struct_info, span=b.span)
        return rx.VarBinding(b.var, value, span=b.span)


# ---------------------------------------------------------------------------------------------------
# TensorIR statements
# ---------------------------------------------------------------------------------------------------

_STMT_CHILD_FIELDS = {
    tir.LetStmt: ("body",), tir.AssertStmt: ("body",), tir.For: ("body",), tir.While: ("body",),
    tir.IfThenElse: ("then_case", "else_case"), tir.DeclBuffer: ("body",), tir.Allocate: ("body",),
    tir.Block: ("body", "init"), tir.BlockRealize: ("block",),
}


def stmt_children(s: tir.Stmt) -> tuple:
    if isinstance(s, tir.SeqStmt):
        return s.seq
    names = _STMT_CHILD_FIELDS.get(type(s), ())
    return tuple(c for c in (getattr(s, n) for n in names) if c is not None)


def post_order_visit_stmt(s: tir.Stmt, fn: Callable[[tir.Stmt], None]) -> None:
    for c in stmt_children(s):
        post_order_visit_stmt(c, fn)
    fn(s)


def stmt_prim_exprs(s: tir.Stmt) -> Iterable[P.PrimExpr]:
    """The scalar expressions held directly by a statement (not by its child statements)."""
    if isinstance(s, tir.BufferStore):
        yield s.value
        yield from s.indices
    elif isinstance(s, tir.Evaluate):
        yield s.value
    elif isinstance(s, (tir.LetStmt, tir.Bind)):
        yield s.value
    elif isinstance(s, tir.AssertStmt):
        yield s.condition
    elif isinstance(s, tir.For):
        yield s.min
        yield s.extent
    elif isinstance(s, (tir.While, tir.IfThenElse)):
        yield s.condition
    elif isinstance(s, tir.Allocate):
        yield from s.extents
        if s.condition is not None:
            yield s.condition
    elif isinstance(s, tir.BlockRealize):
        yield from s.iter_values
        yield s.predicate


class StmtMutator:
    """Rebuilds statements; ``expr_mutator`` (optional) is applied to every scalar expression."""

    def __init__(self, expr_mutator: Optional[PrimExprMutator] = None) -> None:
        self.expr_mutator = expr_mutator

    def visit_expr(self, e):
        return e if self.expr_mutator is None or e is None else self.expr_mutator.visit(e)

    def visit(self, s: Optional[tir.Stmt]) -> Optional[tir.Stmt]:
        if s is None:
            return None
        m = getattr(self, "visit_" + type(s).__name__, None)
        if m is not None:
            return m(s)
        return self.generic_visit(s)

    def generic_visit(self, s: tir.Stmt) -> tir.Stmt:
        changes = {}
        if isinstance(s, tir.SeqStmt):
            seq = tuple(self.visit(c) for c in s.seq)
            if all(a is b for a, b in zip(seq, s.seq)):
                return s
            return tir.SeqStmt(tuple(x for x in seq if x is not None), span=s.span)
        for f in fields(s):
            if f.name == "span":
                continue
            v = getattr(s, f.name)
            if isinstance(v, tir.Stmt):
                nv = self.visit(v)
            elif isinstance(v, P.PrimExpr):
                nv = self.visit_expr(v)
            elif isinstance(v, tuple) and v and isinstance(v[0], P.PrimExpr):
                nv = tuple(self.visit_expr(x) for x in v)
                if all(a is b for a, b in zip(nv, v)):
                    nv = v
            else:
                continue
            if nv is not v:
                changes[f.name] = nv
        return replace(s, **changes) if changes else s


__all__ = [
    "PrimExprMutator", "substitute_prim", "prim_vars_in", "StructInfoMutator", "substitute_struct_info",
    "struct_info_prim_vars", "expr_children", "ExprVisitor", "ExprMutator", "stmt_children", "post_order_visit_stmt",
    "stmt_prim_exprs", "StmtMutator",
]

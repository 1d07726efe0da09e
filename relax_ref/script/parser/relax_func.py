"""Parsing of ``@R.function`` definitions into raw Relax IR (see the raw-IR contract; TEXT.EXPR.1-8).

Signature (TEXT.FUNC.2, TEXT.SINFO.2, TEXT.SYM.2): every parameter needs a struct-info annotation.
Identifier strings in the parameter annotations (``R.Tensor(("n", 4))``, ``R.Shape(["n"])``,
``R.Prim(value="n")``) declare the function's symbolic variables, all of them before any annotation is
converted, so parameters may use them in any order; other strings (``"n * 2"``) are expressions over
names in scope. A parameter may not share its name with a symbolic variable of the signature (TVM:
"already defined"). The return annotation may use only names already in scope.

Body (TEXT.STMT.1-9): bindings ``y = e`` / ``y: S = e`` / ``y = R.match_cast(x, S)`` / ``a, b = e``,
expression statements (bound to ``_``), ``with R.dataflow(): ... R.output(...)``, ``if``/``else``
(both branches end by binding the same name; see :meth:`RelaxFunctionParser.parse_branch` for TVM's
branch-body rule), local ``@R.function`` definitions, ``n = T.int64()`` declarations,
``R.func_attr({...})`` (anywhere), and exactly one ``return`` as the last statement.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import struct_info as si
from ...ir.attrs import Attrs
from . import prim
from .calls import check_attr_value
from .evaluator import Evaluator
from .function_options import function_options
from .relax_builtins import const_array, to_relax_expr
from .scope import Scope
from .struct_info import collect_symbol_names, is_si_ref, prim_type_ref, to_struct_info
from .values import (
    FunctionOptions, GlobalSymDecl, MatchCastPair, MetaValue, PrimProxy, Ref, SIProxy, TypeVarDecl, VarDecl,
)

Emit = Callable[[rx.Binding], None]


@dataclass
class DataflowState:
    """The dataflow block being parsed: which names ``R.output`` exports, and where each name is
    bound for the last time (that binding creates a ``Var``; every other one a ``DataflowVar``)."""

    outputs: Dict[str, int]
    index: int = 0


@dataclass
class SeqBuilder:
    """Collects the binding blocks of one SeqExpr."""

    blocks: List[rx.BindingBlock] = field(default_factory=list)
    current: List[rx.Binding] = field(default_factory=list)

    def emit(self, b: rx.Binding) -> None:
        self.current.append(b)

    def flush(self) -> None:
        if self.current:
            self.blocks.append(rx.BindingBlock(tuple(self.current)))
            self.current = []

    def add_dataflow(self, bindings: List[rx.Binding], span) -> None:
        self.flush()
        self.blocks.append(rx.DataflowBlock(tuple(bindings), span=span))

    def finish(self) -> Tuple[rx.BindingBlock, ...]:
        self.flush()
        return tuple(self.blocks)


def call_path(ev: Evaluator, node: ast.AST) -> Optional[str]:
    """The canonical name of the callee if ``node`` is a call of a TVMScript construct."""
    if isinstance(node, ast.Call):
        return ev.eval_ref(node.func)
    return None


def bound_names(stmt: ast.stmt) -> List[str]:
    """Names a statement binds in its block (used to find the last binding of a dataflow output)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return _target_names(stmt.targets[0])
    if isinstance(stmt, ast.AnnAssign):
        return _target_names(stmt.target)
    if isinstance(stmt, ast.FunctionDef):
        return [stmt.name]
    if isinstance(stmt, ast.If) and stmt.body:
        return bound_names(stmt.body[-1])
    return []


def _target_names(t: ast.AST) -> List[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        out: List[str] = []
        for e in t.elts:
            out.extend(_target_names(e))
        return out
    return []


def is_recursive(node: ast.FunctionDef) -> bool:
    """Does the body call the function by its own name (TVM's rule for local recursion)?"""
    for sub in ast.walk(node):
        if sub is node:
            continue
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == node.name:
            return True
    return False


_UNSUPPORTED_STMTS = {
    ast.For: "for loops are not supported in Relax functions",
    ast.While: "while loops are not supported in Relax functions",
    ast.AugAssign: "augmented assignment (+=) is not supported in Relax functions",
    ast.Delete: "del is not supported in TVMScript",
    ast.Import: "imports are only allowed at the top of the text",
    ast.ImportFrom: "imports are only allowed at the top of the text",
    ast.Raise: "raise is not supported in TVMScript",
    ast.Try: "try is not supported in TVMScript",
    ast.Assert: "assert is not supported in Relax functions; use R.assert_op",
    ast.Global: "global is not supported in TVMScript",
    ast.Nonlocal: "nonlocal is not supported in TVMScript",
    ast.ClassDef: "class definitions are not allowed inside a function",
    ast.Pass: "pass is not supported in Relax functions",
    ast.Break: "break is not supported in Relax functions",
    ast.Continue: "continue is not supported in Relax functions",
    ast.AsyncFunctionDef: "async functions are not supported in TVMScript",
    ast.AsyncWith: "async with is not supported in TVMScript",
    ast.AsyncFor: "async for is not supported in TVMScript",
}


class RelaxFunctionParser:
    """Parses one ``@R.function`` (global or local) into a raw :class:`~relax_ref.ir.Function`."""

    def __init__(self, ctx, node: ast.FunctionDef, opts: FunctionOptions, outer: Scope, *,
                 inner: bool = False, valueless: frozenset = frozenset(), keep_values: bool = False) -> None:
        self.ctx = ctx
        self.node = node
        self.opts = opts
        self.inner = inner
        self.outer = outer
        self.scope = outer.child("function")
        self.ev = Evaluator(ctx, self.scope, "relax")
        self.attrs: Dict[str, Any] = {}
        self.name = node.name
        #: tvm-0.27 scalar parameters (``k: T.int64``): name -> the symbolic variable the parameter is
        self.prim_params: Dict[str, P.PrimVar] = {}
        #: scalar parameters whose symbol nothing uses: they get ``R.Prim(dtype)`` without a value
        self.valueless = valueless
        #: a recursive local function keeps its scalar parameters' values (its variable's struct info,
        #: built before the body is read, must be the function's)
        self.keep_values = keep_values

    def err(self, node, msg, **kw):
        kw.setdefault("function", self.name)
        return self.ev.error(node, msg, **kw)

    # -- signature -----------------------------------------------------------------------------
    def _check_arguments(self) -> None:
        a = self.node.args
        if a.vararg or a.kwarg:
            raise self.err(a.vararg or a.kwarg, "*args / **kwargs parameters are not supported")
        if a.kwonlyargs or a.posonlyargs:
            raise self.err((a.kwonlyargs or a.posonlyargs)[0], "keyword-only / positional-only parameters are "
                                                               "not supported")
        if a.defaults or a.kw_defaults:
            d = (a.defaults or [x for x in a.kw_defaults if x is not None])
            raise self.err(d[0] if d else self.node, "parameters cannot have default values")
        seen = set()
        for arg in a.args:
            if arg.arg in seen:
                raise self.err(arg, f"duplicate parameter name '{arg.arg}'", binding=arg.arg)
            seen.add(arg.arg)

    def declare_signature(self, scope: Scope, ev: Evaluator) -> Tuple[List[Any], Optional[si.StructInfo]]:
        """Evaluate the annotations, declare the signature's symbolic variables in ``scope`` and convert
        the return annotation. Returns (raw parameter annotations, return struct info)."""
        for arg in self.node.args.args:
            if arg.annotation is None:
                raise self.err(arg, "a type annotation is required for function parameters", binding=arg.arg)
            dtype = self._scalar_param_dtype(arg.annotation, ev)
            if dtype == "int64":  # a symbol is an int64 variable (other scalars are plain parameters)
                # tvm-0.27: the parameter is the symbolic variable of its name (TEXT.DIALECT.3)
                pv = P.PrimVar(arg.arg, dtype)
                self.prim_params[arg.arg] = pv
                scope.define(arg.arg, pv)
        raw = [ev.eval_node(arg.annotation) for arg in self.node.args.args]
        params = {arg.arg: arg for arg in self.node.args.args}
        for arg, r in zip(self.node.args.args, raw):
            if not (isinstance(r, (SIProxy, si.StructInfo)) or is_si_ref(r)):
                raise self.err(arg.annotation, f"the annotation of parameter '{arg.arg}' is not a Relax struct-info "
                                               f"annotation ({prim.describe(r)})", binding=arg.arg)
            for n in collect_symbol_names(r):
                if n in self.prim_params:
                    continue
                if n in params:
                    raise self.err(params[n], f"parameter '{n}' has the same name as the symbolic variable "
                                              f"'{n}' declared in the signature", binding=n, symbol=n)
                if n not in scope.names:
                    scope.define(n, P.PrimVar(n, "int64"))
        ret = None
        if self.node.returns is not None:
            ret = to_struct_info(ev, ev.eval_node(self.node.returns), self.node.returns, signature=True)
        return raw, ret

    def _scalar_param_dtype(self, ann: ast.AST, ev: Evaluator) -> Optional[str]:
        """The dtype of a scalar parameter annotation without a value -- ``T.int64``, or
        ``R.Prim("int64")`` (TVM 0.27 makes either parameter its own symbol; TVM 0.25 rejects a symbol
        of that name, so every dialect reads it so: TEXT.DIALECT.3) -- else None."""
        dtype = prim_type_ref(Ref(ev.eval_ref(ann) or ""))
        if dtype is not None:
            return dtype
        if self.keep_values:
            return None  # a recursive local function: only T.int64 parameters are symbols
        if isinstance(ann, ast.Call) and ev.eval_ref(ann.func) == "R.Prim" and not any(
                kw.arg == "value" for kw in ann.keywords) and len(ann.args) <= 1:
            p = ev.eval_node(ann)
            if isinstance(p, PrimProxy) and p.value is None and isinstance(p.dtype, str) and p.dtype != "void":
                return p.dtype
        return None

    def signature_struct_info(self) -> si.FuncStructInfo:
        """The FuncStructInfo of the signature, built in a throw-away frame (for local recursion)."""
        scope = self.scope.parent.child("function")
        ev = Evaluator(self.ctx, scope, "relax")
        raw, ret = self.declare_signature(scope, ev)
        params = []
        for arg, r in zip(self.node.args.args, raw):
            s = to_struct_info(ev, r, arg.annotation, signature=True)
            pv = self.prim_params.get(arg.arg)
            if pv is not None and arg.arg not in self.valueless:
                s = si.PrimStructInfo(pv.dtype, pv)
            params.append(s)
        return si.FuncStructInfo(tuple(params), ret if ret is not None else si.ObjectStructInfo(), self.opts.pure)

    # -- whole function ------------------------------------------------------------------------
    def parse(self) -> rx.Function:
        self._check_arguments()
        raw, ret = self.declare_signature(self.scope, self.ev)
        params = []
        for arg, r in zip(self.node.args.args, raw):
            s = to_struct_info(self.ev, r, arg.annotation, signature=True)
            pv = self.prim_params.get(arg.arg)
            if pv is not None and arg.arg not in self.valueless:
                s = si.PrimStructInfo(pv.dtype, pv)
            params.append(rx.Var(arg.arg, struct_info=s, span=self.ev.span(arg)))
        fn = self._parse_rest(params, ret)
        unused = frozenset(n for n, pv in self.prim_params.items()
                           if n not in self.valueless and not symbol_used(fn, pv, params))
        if unused and not self.keep_values:
            # a scalar parameter whose symbol nothing else uses is just a scalar: parse again without
            # the value (TEXT.DIALECT.3)
            again = RelaxFunctionParser(self.ctx, self.node, self.opts, self.outer, inner=self.inner,
                                        valueless=self.valueless | unused)
            return again.parse()
        return fn

    def _parse_rest(self, params: List[rx.Var], ret: Optional[si.StructInfo]) -> rx.Function:
        for v in params:
            self.scope.define(v.name_hint, v)
        body = self.parse_body(self.node.body)
        attrs: Dict[str, Any] = {}
        if not self.opts.private and not self.inner:
            attrs["global_symbol"] = self.name
        if "global_symbol" in self.attrs and (self.opts.private or self.inner):
            raise self.err(self.node, "a private function cannot have a 'global_symbol' attribute")
        attrs.update(self.attrs)
        return rx.Function(tuple(params), body, ret, self.opts.pure, attrs=Attrs(attrs),
                           span=self.ev.span(self.node))

    def parse_body(self, stmts: List[ast.stmt]) -> rx.SeqExpr:
        seq = SeqBuilder()
        body = list(stmts)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            body = body[1:]
        for i, st in enumerate(body):
            if isinstance(st, ast.Return) and i != len(body) - 1:
                raise self.err(st, "a single return statement is allowed, as the last statement of the function")
        if not body or not isinstance(body[-1], ast.Return):
            last = body[-1] if body else self.node
            raise self.err(last, f"function '{self.name}' must end with a return statement")
        for st in body[:-1]:
            self.stmt(st, self.scope, seq.emit, seq, None)
        ret_node = body[-1]
        if ret_node.value is None:
            raise self.err(ret_node, "return needs a value (use 'return R.tuple()' for no value)")
        value = self.ev.with_scope(self.scope).eval_node(ret_node.value)
        ret = to_relax_expr(self.ev, value, ret_node.value)
        return rx.SeqExpr(seq.finish(), ret, span=self.ev.span(ret_node))

    # -- statements ----------------------------------------------------------------------------
    def stmt(self, node: ast.stmt, scope: Scope, emit: Emit, seq: Optional[SeqBuilder],
             df: Optional[DataflowState]) -> None:
        ev = self.ev.with_scope(scope)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.err(node, "chained assignments like 'a = b = c' are not supported")
            value = ev.eval_node(node.value)
            self.bind(node.targets[0], value, None, node.value, scope, emit, df)
        elif isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise self.err(node, "an annotated binding needs a value: 'y: S = expr'")
            if not isinstance(node.target, ast.Name):
                raise self.err(node.target, "only a variable name can be annotated")
            ann = to_struct_info(ev, ev.eval_node(node.annotation), node.annotation, signature=False)
            value = ev.eval_node(node.value)
            self.bind(node.target, value, ann, node.value, scope, emit, df)
        elif isinstance(node, ast.Expr):
            self.expr_stmt(node, ev, scope, emit, df)
        elif isinstance(node, ast.With):
            self.with_stmt(node, ev, scope, seq, df)
        elif isinstance(node, ast.If):
            self.if_stmt(node, ev, scope, emit, df)
        elif isinstance(node, ast.FunctionDef):
            self.local_function(node, ev, scope, emit, df)
        elif isinstance(node, ast.Return):
            raise self.err(node, "a single return statement is allowed, as the last statement of the function")
        else:
            msg = _UNSUPPORTED_STMTS.get(type(node), f"unsupported statement {type(node).__name__}")
            raise self.err(node, msg)

    def make_var(self, name: str, ann: Optional[si.StructInfo], node: ast.AST,
                 df: Optional[DataflowState]) -> rx.Var:
        span = self.ev.span(node)
        if df is not None and df.outputs.get(name) != df.index:
            return rx.DataflowVar(name, struct_info=ann, span=span)
        return rx.Var(name, struct_info=ann, span=span)

    def bind(self, target: ast.AST, value: Any, ann: Optional[si.StructInfo], value_node: ast.AST,
             scope: Scope, emit: Emit, df: Optional[DataflowState]) -> None:
        """Bind ``target = value`` following TVM's ``bind_assign_value`` (contract point 2)."""
        if isinstance(target, (ast.Tuple, ast.List)):
            if ann is not None:
                raise self.err(target, "a tuple of targets cannot be annotated")
            n = len(target.elts)
            if isinstance(value, rx.Expr):
                # TEXT.STMT.1: ``a, b = e`` binds ``a = e[0]`` and ``b = e[1]``; a compound ``e`` is
                # bound first (to a variable named ``_``) so that it is evaluated once
                if not isinstance(value, rx.Var):
                    tmp = self.make_var("_", None, value_node, df)
                    emit(rx.VarBinding(tmp, value, span=self.ev.span(value_node)))
                    value = tmp
                value = tuple(rx.TupleGetItem(value, i, span=self.ev.span(t)) for i, t in enumerate(target.elts))
            if not isinstance(value, (tuple, list)) or len(value) != n:
                raise self.err(target, f"tuple unpacking needs a tuple of {n} values on the right-hand side, got "
                                       f"{prim.describe(value)}")
            nodes = value_node.elts if isinstance(value_node, (ast.Tuple, ast.List)) and \
                len(value_node.elts) == n else [value_node] * n
            for t, v, vn in zip(target.elts, value, nodes):
                self.bind(t, v, None, vn, scope, emit, df)
            return
        if not isinstance(target, ast.Name):
            raise self.err(target, "only variable names can be bound in Relax functions")
        name = target.id
        span = self.ev.span(target)
        if isinstance(value, MetaValue):
            scope.define(name, value.value)  # x = I.meta_var(v): x names v
            return
        if isinstance(value, TypeVarDecl):
            # tvm-0.27 declares the symbols of a local function's signature in the enclosing body; as at
            # the top level, every function that uses the name gets its own variable (TEXT.DIALECT.3)
            if value.name != name:
                raise self.err(target, f"TypeVar binding '{name}' must match its declared name '{value.name}'",
                               symbol=name)
            scope.define(name, GlobalSymDecl(name, value.dtype))
            return
        if isinstance(value, VarDecl):
            if ann is not None and not (isinstance(ann, si.PrimStructInfo) and ann.value is None
                                        and ann.dtype == value.dtype):
                raise self.err(target, "a symbolic variable declaration can only be annotated with its own dtype "
                                       f"(T.{value.dtype})")
            self.declare_symbolic(name, value, scope, target)
            return
        if isinstance(value, MatchCastPair):
            if ann is not None and ann != value.struct_info:
                raise self.err(target, "the annotation of a match_cast binding must equal its struct info",
                               binding=name)
            var = self.make_var(name, None, target, df)
            emit(rx.MatchCast(var, value.value, value.struct_info, span=self.ev.span(value_node)))
            scope.define(name, var)
            return
        if isinstance(value, (int, float)):
            if isinstance(ann, si.PrimStructInfo) and ann.dtype is not None:
                # ``y: T.int32 = 2`` is the scalar value (TVM 0.25 rejects a constant under that annotation)
                value = rx.PrimValue(prim.lit(value, ann.dtype, self.ev.span(value_node)),
                                     span=self.ev.span(value_node))
            else:
                arr = const_array(self.ev.with_scope(scope), value, None, value_node)
                value = rx.Constant(arr, span=self.ev.span(value_node))
        elif isinstance(value, tuple):
            value = to_relax_expr(self.ev, value, value_node)
        elif isinstance(value, P.PrimExpr) and self.ctx.relax_dialect.prim_bindings:
            # tvm-0.27: ``y = n + 1`` binds the scalar value (tvm-0.25: it names the expression)
            value = rx.PrimValue(value, span=self.ev.span(value_node))
        # a Relax scalar's value is known: a bound scalar value (tvm-0.27), or a copy of a scalar variable
        held = prim.scalar_of(value) if self.ctx.relax_dialect.prim_bindings or isinstance(value, rx.Var) else None
        if held is not None and (ann is None or (isinstance(ann, si.PrimStructInfo) and ann.value is None
                                                 and ann.dtype == held.dtype)):
            # the variable stands for its value in later scalar positions (``z = y * 2``)
            ann = si.PrimStructInfo(held.dtype, held)
        if isinstance(value, rx.Expr):
            var = self.make_var(name, ann, target, df)
            emit(rx.VarBinding(var, value, span=span))
            scope.define(name, var)
            return
        if ann is not None:
            raise self.err(value_node, f"an annotated binding needs a Relax expression, got {prim.describe(value)}",
                           binding=name)
        # a script-level alias (``cls = Module``, ``k = n + 1``): no binding is emitted
        scope.define(name, value)

    def declare_symbolic(self, name: str, decl: VarDecl, scope: Scope, node: ast.AST) -> None:
        """``n = T.int64()``: reuse the variable of that name in scope (the signature's, or one declared
        earlier), else declare a new one (contract point 7)."""
        existing, _ = scope.lookup_with_frame(name)
        if existing is None or isinstance(existing, GlobalSymDecl):
            scope.define(name, P.PrimVar(name, decl.dtype))
            return
        if isinstance(existing, P.PrimVar):
            if existing.dtype != decl.dtype:
                raise self.err(node, f"symbolic variable '{name}' was declared as {existing.dtype}, not {decl.dtype}",
                               symbol=name)
            scope.define(name, existing)
            return
        raise self.err(node, f"cannot redefine '{name}' ({prim.describe(existing)}) as a symbolic variable",
                       symbol=name)

    def expr_stmt(self, node: ast.Expr, ev: Evaluator, scope: Scope, emit: Emit, df) -> None:
        v = node.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return  # a docstring / comment string
        path = call_path(ev, v)
        if path == "R.func_attr":
            self.func_attr(v, ev)
            return
        if path == "R.output":
            raise self.err(node, "R.output may only be the last statement of a dataflow block")
        value = ev.eval_node(v)
        if isinstance(value, MatchCastPair):
            raise self.err(node, "R.match_cast must be bound to a variable: y = R.match_cast(x, S)")
        if not isinstance(value, (rx.Expr, tuple)):
            raise self.err(node, f"this statement has no effect: {prim.describe(value)} is not a Relax expression")
        expr = to_relax_expr(ev, value, v)
        var = self.make_var("_", None, v, df)
        # (TEXT.STMT.6) only a unit value may stand alone; the normalizer, which infers the value's
        # struct info, rejects any other with a parse error at this statement
        self.ctx.unit_statements.append(var)
        emit(rx.VarBinding(var, expr, span=ev.span(node)))

    def func_attr(self, call: ast.Call, ev: Evaluator) -> None:
        if len(call.args) != 1 or call.keywords:
            raise self.err(call, "R.func_attr takes one dict argument")
        d = ev.eval_node(call.args[0])
        if not isinstance(d, dict):
            raise self.err(call.args[0], "R.func_attr expects a dict literal")
        for k, val in d.items():
            if not isinstance(k, str):
                raise self.err(call.args[0], "function attribute names must be strings")
            self.attrs[k] = check_attr_value(self.ev, val, call.args[0])

    def with_stmt(self, node: ast.With, ev: Evaluator, scope: Scope, seq: Optional[SeqBuilder], df) -> None:
        if len(node.items) != 1:
            raise self.err(node, "only 'with R.dataflow():' is supported in Relax functions")
        item = node.items[0]
        if call_path(ev, item.context_expr) != "R.dataflow":
            raise self.err(item.context_expr, "only 'with R.dataflow():' is supported in Relax functions")
        if item.optional_vars is not None:
            raise self.err(item.optional_vars, "'with R.dataflow()' does not bind a variable")
        if item.context_expr.args or item.context_expr.keywords:
            raise self.err(item.context_expr, "R.dataflow() takes no arguments")
        if df is not None or seq is None:
            raise self.err(node, "dataflow blocks cannot be nested")
        self.dataflow_block(node, scope, seq)

    def dataflow_block(self, node: ast.With, scope: Scope, seq: SeqBuilder) -> None:
        body = list(node.body)
        ev = self.ev.with_scope(scope)
        for st in body:
            if isinstance(st, ast.With):
                raise self.err(st, "dataflow blocks cannot be nested")
        outs = [(i, st) for i, st in enumerate(body)
                if isinstance(st, ast.Expr) and call_path(ev, st.value) == "R.output"]
        if len(outs) > 1:
            raise self.err(outs[1][1], "R.output can be called only once per dataflow block")
        out_names: List[str] = []
        # a block without R.output exports nothing (TVM reads it so)
        if outs:
            i, st = outs[0]
            if i != len(body) - 1:
                raise self.err(st, "R.output must be the last statement of the dataflow block")
            call = st.value
            if call.keywords:
                raise self.err(call, "R.output takes only variable names")
            for a in call.args:
                if not isinstance(a, ast.Name):
                    raise self.err(a, "R.output takes only variable names")
                if a.id in out_names:
                    raise self.err(a, f"'{a.id}' is listed twice in R.output")
                out_names.append(a.id)
            body = body[:-1]
        last: Dict[str, int] = {}
        for i, st in enumerate(body):
            for n in bound_names(st):
                last[n] = i
        for n in out_names:
            if n not in last:
                a = next(x for x in outs[0][1].value.args if x.id == n)
                raise self.err(a, f"R.output: '{n}' is not bound in this dataflow block", binding=n)
        df = DataflowState({n: last[n] for n in out_names})
        inner = scope.child("dataflow")
        bindings: List[rx.Binding] = []
        for i, st in enumerate(body):
            df.index = i
            self.stmt(st, inner, bindings.append, None, df)
        seq.add_dataflow(bindings, self.ev.span(node))
        for n, v in inner.names.items():
            if isinstance(v, rx.DataflowVar):
                continue
            if isinstance(v, rx.Var) and n not in out_names:
                continue
            scope.define(n, v)

    def parse_branch(self, stmts: List[ast.stmt], scope: Scope, where: ast.AST,
                     suffix: str) -> Tuple[rx.SeqExpr, str, ast.AST]:
        """One branch of an if (TEXT.STMT.4), as TVM builds it: the last statement binds the branch's
        result name ``v``; that binding is removed and its value becomes the branch's body. A leaf
        value (a variable, a constant, a tuple of leaves, ...) is the body itself; any other value is
        bound to a variable named ``v_then`` / ``v_else`` (keeping the annotation), which is the body."""
        bscope = scope.child("branch")
        seq = SeqBuilder()
        if not stmts:
            raise self.err(where, "an if branch cannot be empty")
        for st in stmts:
            self.stmt(st, bscope, seq.emit, seq, None)
        last = stmts[-1]
        names = bound_names(last)
        if isinstance(last, ast.Expr) and seq.current and seq.current[-1].var.name_hint == "_":
            names = ["_"]  # an expression statement binds "_" (TVM: the branch's value is its unit result)
        elif len(names) != 1 or not isinstance(last, (ast.Assign, ast.AnnAssign, ast.If, ast.FunctionDef)):
            raise self.err(last, "the last statement of each if/else branch must bind the variable that "
                                 "holds the branch's value")
        name = names[0]
        v = seq.current[-1].var if isinstance(last, ast.Expr) else bscope.names.get(name)
        if not isinstance(v, rx.Var):
            raise self.err(last, f"the last statement of a branch must bind a Relax value to '{name}'",
                           binding=name)
        body: rx.Expr = v
        final = seq.current[-1] if seq.current else None
        if isinstance(final, rx.VarBinding) and final.var is v:
            seq.current.pop()
            if rx.is_leaf_or_tuple(final.value):
                body = final.value
            else:
                body = rx.Var(f"{name}_{suffix}", struct_info=v.struct_info, span=v.span)
                seq.emit(rx.VarBinding(body, final.value, span=final.span))
        return rx.SeqExpr(seq.finish(), body, span=self.ev.span(last)), name, last

    def if_stmt(self, node: ast.If, ev: Evaluator, scope: Scope, emit: Emit, df) -> None:
        if not node.orelse:
            raise self.err(node, "an if statement in a Relax function needs an else branch")
        cond_v = ev.eval_node(node.test)
        if isinstance(cond_v, bool):
            # TVM 0.27 writes a constant condition bare, without any other spelling of its own (TEXT.DIALECT.2)
            cond_v = P.IntImm(int(cond_v), "bool")
        elif prim.is_num(cond_v):
            raise self.err(node.test, "the condition of an if must be a Relax value, not a Python literal")
        cond = to_relax_expr(ev, cond_v, node.test)
        then_seq, then_name, _ = self.parse_branch(node.body, scope, node, "then")
        else_seq, else_name, else_last = self.parse_branch(node.orelse, scope, node, "else")
        if then_name != else_name:
            raise self.err(else_last, f"both branches of an if must end by binding the same variable "
                                      f"('{then_name}' in the then branch, '{else_name}' in the else branch)",
                           binding=else_name)
        var = self.make_var(then_name, None, node, df)
        emit(rx.VarBinding(var, rx.If(cond, then_seq, else_seq, span=ev.span(node)), span=ev.span(node)))
        scope.define(then_name, var)

    def local_function(self, node: ast.FunctionDef, ev: Evaluator, scope: Scope, emit: Emit, df) -> None:
        opts = function_options(self.ctx, ev, node)
        if opts.kind == "tir":
            raise self.err(node, "an inline prim_func is not allowed inside a Relax function; define it in the "
                                 "module")
        recursive = is_recursive(node)
        sub = RelaxFunctionParser(self.ctx, node, opts, scope, inner=True, keep_values=recursive)
        self_var = None
        outer = scope
        if recursive:
            if node.returns is None:
                raise self.err(node, f"the recursive local function '{node.name}' needs a return annotation")
            fsi = sub.signature_struct_info()
            self_var = self.make_var(node.name, fsi, node, df)
            outer = scope.child("block")
            outer.define(node.name, self_var)
            sub = RelaxFunctionParser(self.ctx, node, opts, outer, inner=True, keep_values=True)
        fn = sub.parse()
        var = self_var if self_var is not None else self.make_var(node.name, None, node, df)
        emit(rx.VarBinding(var, fn, span=ev.span(node)))
        scope.define(node.name, var)


def symbol_used(fn: rx.Function, pv: P.PrimVar, params: List[rx.Var]) -> bool:
    """Does the symbolic variable ``pv`` occur in the raw function ``fn`` other than as the value of
    the scalar parameter it names? (Variables are visited once, the parameters' struct info except
    that parameter's.)"""
    seen = set()
    own = next((p for p in params if isinstance(p.struct_info, si.PrimStructInfo) and p.struct_info.value is pv),
               None)
    stack: List[Any] = [fn.ret_struct_info, fn.body] + [p.struct_info for p in params if p is not own]
    while stack:
        x = stack.pop()
        if x is None or isinstance(x, (str, int, float, bool, bytes)):
            continue
        if x is pv:
            return True
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, rx.Var):
            if x is not own:
                stack.append(x.struct_info)
            continue
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif isinstance(x, dict) or hasattr(x, "items") and callable(getattr(x, "items")):
            for k, v in x.items():
                stack.append(k)
                stack.append(v)
        elif dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                stack.append(getattr(x, f.name, None))
    return False


__all__ = ["RelaxFunctionParser", "SeqBuilder", "DataflowState", "call_path", "bound_names", "is_recursive",
           "check_attr_value"]

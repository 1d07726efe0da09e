"""Binding values to variables: ``bind`` and the passes BindParams and BindSymbolicVars (PASS.BIND.*).

:func:`bind` is TVM's ``relax::Bind``: Relax variables are replaced by expressions (a bound function
parameter disappears from the parameter list) and symbolic variables by scalar expressions, everywhere
-- values, struct info of parameters and casts, ``sinfo_args``, the return annotation. A scalar
expression that the substitution changed is simplified (PASS.BIND.1). A binding whose value changed
gets a fresh variable whose struct info is re-inferred from its value; a ``MatchCast`` keeps its
(substituted) target.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Union

import numpy as np

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import substitute_prim
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .pass_infra import Pass
from .utils import fresh_var, renormalize


class _Binder:
    """Rebuilds an expression under ``var_map`` (Relax) and ``sym_map`` (symbolic); unchanged
    sub-expressions keep their identity."""

    def __init__(self, var_map: Mapping[rx.Var, rx.Expr], sym_map: Mapping[P.PrimVar, P.PrimExpr]) -> None:
        self.var_map: Dict[rx.Var, rx.Expr] = dict(var_map)
        self.sym_map = dict(sym_map)

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        out = substitute_prim(e, self.sym_map)
        if out is e:
            return e
        from ..arith import simplify

        return simplify(out)

    def si(self, s: Optional[StructInfo]) -> Optional[StructInfo]:
        if s is None or not self.sym_map:
            return s
        from ..ir.functor import StructInfoMutator

        binder = self

        class _M(StructInfoMutator):
            def visit_prim(self, e):
                return binder.prim(e)

        return _M().visit(s)

    def var_def(self, v: rx.Var) -> rx.Var:
        s = self.si(v.struct_info)
        if s is v.struct_info:
            return v
        return fresh_var(v, s, self.var_map)

    def expr(self, e: rx.Expr) -> rx.Expr:
        if isinstance(e, rx.Var):
            return self.var_map.get(e, e)
        if isinstance(e, (rx.GlobalVar, rx.Op, rx.ExternFunc, rx.StringImm, rx.DataTypeImm, rx.Constant)):
            return e
        if isinstance(e, rx.ShapeExpr):
            vals = tuple(self.prim(v) for v in e.values)
            return e if all(a is b for a, b in zip(vals, e.values)) else rx.ShapeExpr(vals, span=e.span)
        if isinstance(e, rx.PrimValue):
            v = self.prim(e.value)
            return e if v is e.value else rx.PrimValue(v, span=e.span)
        if isinstance(e, rx.Tuple):
            fs = tuple(self.expr(f) for f in e.fields)
            return e if all(a is b for a, b in zip(fs, e.fields)) else rx.Tuple(fs, span=e.span)
        if isinstance(e, rx.TupleGetItem):
            t = self.expr(e.tuple_value)
            return e if t is e.tuple_value else rx.TupleGetItem(t, e.index, span=e.span)
        if isinstance(e, rx.Call):
            op = self.expr(e.op)
            args = tuple(self.expr(a) for a in e.args)
            sargs = tuple(self.si(s) for s in e.sinfo_args)
            if op is e.op and all(a is b for a, b in zip(args, e.args)) and all(
                    a is b for a, b in zip(sargs, e.sinfo_args)):
                return e
            return rx.Call(op, args, e.attrs, sargs, span=e.span)
        if isinstance(e, rx.If):
            c, t, f = self.expr(e.cond), self.expr(e.true_branch), self.expr(e.false_branch)
            if c is e.cond and t is e.true_branch and f is e.false_branch:
                return e
            return rx.If(c, t, f, span=e.span)
        if isinstance(e, rx.SeqExpr):
            blocks = tuple(self.block(b) for b in e.blocks)
            body = self.expr(e.body)
            if body is e.body and all(a is b for a, b in zip(blocks, e.blocks)):
                return e
            return rx.SeqExpr(blocks, body, span=e.span)
        if isinstance(e, rx.Function):
            return self.function(e)
        raise TypeError(f"cannot bind in {type(e).__name__}")

    def function(self, f: rx.Function) -> rx.Function:
        params = []
        changed = False
        for p in f.params:
            if p in self.var_map:
                changed = True
                continue
            q = self.var_def(p)
            changed |= q is not p
            params.append(q)
        body = self.expr(f.body)
        ret = self.si(f.ret_struct_info)
        if not changed and body is f.body and ret is f.ret_struct_info:
            return f
        return rx.Function(tuple(params), body, ret, f.is_pure, attrs=f.attrs, span=f.span)

    def block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        changed = False
        for x in b.bindings:
            value = self.expr(x.value)
            if isinstance(x, rx.MatchCast):
                target = self.si(x.struct_info)
                var = self.var_def(x.var)
                if value is x.value and target is x.struct_info and var is x.var:
                    out.append(x)
                    continue
                out.append(rx.MatchCast(var, value, target, span=x.span))
            else:
                var = self.var_def(x.var)
                if value is x.value and var is x.var:
                    out.append(x)
                    continue
                if isinstance(value, rx.Function):
                    nv = var
                else:   # re-inferred from the new value (TVM's ReEmitBinding)
                    nv = type(x.var)(name_hint=x.var.name_hint, struct_info=None, span=x.var.span)
                self.var_map[x.var] = nv
                out.append(rx.VarBinding(nv, value, span=x.span))
            changed = True
        return type(b)(tuple(out), span=b.span) if changed else b


def bind(expr: rx.Expr, var_map: Optional[Mapping[rx.Var, rx.Expr]] = None,
         sym_map: Optional[Mapping[P.PrimVar, Union[P.PrimExpr, int]]] = None) -> rx.Expr:
    """(PASS.BIND.1) ``expr`` with Relax and symbolic variables replaced (not re-normalized)."""
    syms = {k: (P.IntImm(v, k.dtype) if isinstance(v, int) else v) for k, v in (sym_map or {}).items()}
    return _Binder(var_map or {}, syms).expr(expr)


def infer_symbolic_var_map(var_map: Mapping[rx.Var, rx.Expr]) -> Dict[P.PrimVar, P.PrimExpr]:
    """(PASS.BIND.2) Symbolic variables fixed by binding parameters to values: where a parameter's
    struct info has a bare variable and the value's has an expression at the same place."""
    out: Dict[P.PrimVar, P.PrimExpr] = {}

    def prim(a, b):
        if isinstance(a, P.PrimVar) and b is not None:
            out[a] = b

    def walk(a: Optional[StructInfo], b: Optional[StructInfo]) -> None:
        if isinstance(a, TensorStructInfo) and isinstance(b, TensorStructInfo):
            if isinstance(a.shape, rx.ShapeExpr) and isinstance(b.shape, rx.ShapeExpr) \
                    and len(a.shape.values) == len(b.shape.values):
                for x, y in zip(a.shape.values, b.shape.values):
                    prim(x, y)
        elif isinstance(a, ShapeStructInfo) and isinstance(b, ShapeStructInfo):
            if a.values is not None and b.values is not None and len(a.values) == len(b.values):
                for x, y in zip(a.values, b.values):
                    prim(x, y)
        elif isinstance(a, PrimStructInfo) and isinstance(b, PrimStructInfo):
            if a.value is not None and b.value is not None:
                prim(a.value, b.value)
        elif isinstance(a, TupleStructInfo) and isinstance(b, TupleStructInfo) and len(a.fields) == len(b.fields):
            for x, y in zip(a.fields, b.fields):
                walk(x, y)

    for var, value in var_map.items():
        walk(var.struct_info, _struct_info_of(value))
    return out


def _struct_info_of(e: rx.Expr) -> Optional[StructInfo]:
    if e.struct_info is not None:
        return e.struct_info
    from ..static.normalize import leaf_struct_info

    return leaf_struct_info(e)


# ---------------------------------------------------------------------------------------------------
# BindParams
# ---------------------------------------------------------------------------------------------------


def _as_expr(value: Any) -> rx.Expr:
    if isinstance(value, rx.Expr):
        return value
    arr = np.asarray(value)
    if arr.dtype == object:
        raise RelaxError(f"cannot bind a value of type {type(value).__name__} to a parameter")
    c = rx.Constant(arr)
    from ..static.normalize import constant_struct_info

    return c.with_struct_info(constant_struct_info(c))


def _lookup_param(func: rx.Function, key: Union[str, rx.Var], fname: str) -> rx.Var:
    if isinstance(key, rx.Var):
        if not any(p is key for p in func.params):
            raise RelaxError(f"function '{fname}' has no parameter {key.name_hint!r} (the given Var)")
        return key
    matches = [p for p in func.params if p.name_hint == key]
    if not matches:
        names = [p.name_hint for p in func.params]
        raise RelaxError(f"function '{fname}' has no parameter named '{key}' (parameters: {names})")
    if len(matches) > 1:
        raise RelaxError(f"function '{fname}' has several parameters named '{key}'")
    return matches[0]


def function_bind_params(func: rx.Function, params: Mapping[Union[str, rx.Var], Any],
                         fname: str = "") -> rx.Function:
    """(PASS.BIND.3) ``func`` with the given parameters replaced by values (numpy arrays become
    constants) and the symbolic variables their shapes fix replaced too."""
    var_map: Dict[rx.Var, rx.Expr] = {}
    for key, value in params.items():
        p = _lookup_param(func, key, fname)
        if p in var_map:
            raise RelaxError(f"parameter '{p.name_hint}' of '{fname}' is bound twice")
        var_map[p] = _as_expr(value)
    return bind(func, var_map, infer_symbolic_var_map(var_map))


class BindParams(Pass):
    """(PASS.BIND.3) ``BindParams(func_name, params)``: bind parameters of the function named
    ``func_name`` (its ``global_symbol`` when it is public, else its name) to constants."""

    name = "BindParams"
    opt_level = 0

    def __init__(self, func_name: str, params: Mapping[Union[str, rx.Var], Any]) -> None:
        self.func_name = func_name
        self.params = dict(params)

    def transform(self, mod: IRModule) -> IRModule:
        replace = {}
        for gv, f in mod.functions_items():
            name = gv.name_hint
            if not isinstance(f, rx.Function):
                continue
            gsym = f.attrs.get("global_symbol") if f.attrs else None
            if (gsym if gsym is not None else name) == self.func_name:
                replace[name] = function_bind_params(f, self.params, name)
        if not replace:
            return mod
        from .utils import update_module

        return renormalize(update_module(mod, replace))


# ---------------------------------------------------------------------------------------------------
# BindSymbolicVars
# ---------------------------------------------------------------------------------------------------


def _sym_value(v: Any) -> P.PrimExpr:
    if isinstance(v, bool):
        raise RelaxError("a symbolic variable cannot be bound to a bool")
    if isinstance(v, int):
        return P.IntImm(v, "int64")
    if isinstance(v, P.PrimExpr):
        return v
    raise RelaxError(f"a symbolic variable can be bound to an int or a scalar expression, not {type(v).__name__}")


def function_bind_symbolic_vars(func: rx.Function, binding_map: Mapping[Union[str, P.PrimVar], Any],
                                fname: str = "") -> rx.Function:
    """(PASS.BIND.4) ``func`` with its symbolic variables (named by string or given as variables)
    replaced by values."""
    if not binding_map:
        return func
    from ..analysis.free_vars import defined_symbolic_vars, free_symbolic_vars

    defined = defined_symbolic_vars(func)
    by_name: Dict[str, list] = {}
    for v in defined:
        by_name.setdefault(v.name, []).append(v)
    sym_map: Dict[P.PrimVar, P.PrimExpr] = {}
    for key, value in binding_map.items():
        if isinstance(key, str):
            found = by_name.get(key)
            if not found:
                raise RelaxError(f"function '{fname}' has no symbolic variable named '{key}' "
                                 f"(it has {sorted(by_name)})", symbol=key)
            if len(found) > 1:
                raise RelaxError(f"function '{fname}' has several symbolic variables named '{key}'", symbol=key)
            var = found[0]
        elif isinstance(key, P.PrimVar):
            if not any(key is v for v in defined):
                raise RelaxError(f"function '{fname}' does not define the symbolic variable '{key.name}'",
                                 symbol=key.name)
            var = key
        else:
            raise RelaxError(f"a symbolic variable is named by a string or a PrimVar, not {type(key).__name__}")
        if var in sym_map:
            raise RelaxError(f"symbolic variable '{var.name}' is bound twice", symbol=var.name)
        sym_map[var] = _sym_value(value)
    out = bind(func, {}, sym_map)
    free = free_symbolic_vars(out)
    if free:
        raise RelaxError(f"binding leaves the symbolic variables {[v.name for v in free]} of '{fname}' undefined")
    return out


class BindSymbolicVars(Pass):
    """(PASS.BIND.4) ``BindSymbolicVars(binding_map, func_name=None)``."""

    name = "BindSymbolicVars"
    opt_level = 1

    def __init__(self, binding_map: Mapping[Union[str, P.PrimVar], Any], func_name: Optional[str] = None) -> None:
        self.binding_map = dict(binding_map)
        self.func_name = func_name

    def transform(self, mod: IRModule) -> IRModule:
        from ..analysis.free_vars import defined_symbolic_vars
        from .utils import update_module

        replace = {}
        if self.func_name is not None:
            if self.func_name not in mod:
                raise RelaxError(f"the module has no function '{self.func_name}'", function=self.func_name)
            f = mod[self.func_name]
            if not isinstance(f, rx.Function):
                raise RelaxError(f"'{self.func_name}' is not a Relax function", function=self.func_name)
            new = function_bind_symbolic_vars(f, self.binding_map, self.func_name)
            if new is not f:
                replace[self.func_name] = new
        else:
            used = set()
            for gv, f in mod.functions_items():
                name = gv.name_hint
                if not isinstance(f, rx.Function):
                    continue
                defined = defined_symbolic_vars(f)
                names = {v.name for v in defined}
                sub = {}
                for k, v in self.binding_map.items():
                    if (k in names) if isinstance(k, str) else any(k is d for d in defined):
                        sub[k] = v
                        used.add(k if isinstance(k, str) else id(k))
                new = function_bind_symbolic_vars(f, sub, name)
                if new is not f:
                    replace[name] = new
            unused = [k for k in self.binding_map if (k if isinstance(k, str) else id(k)) not in used]
            if unused:
                raise RelaxError(f"the binding map names symbolic variables no function of the module defines: "
                                 f"{[k if isinstance(k, str) else k.name for k in unused]}")
        if not replace:
            return mod
        return renormalize(update_module(mod, replace))


__all__ = ["bind", "infer_symbolic_var_map", "function_bind_params", "function_bind_symbolic_vars", "BindParams",
           "BindSymbolicVars"]

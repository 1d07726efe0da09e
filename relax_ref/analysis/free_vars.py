"""Variable analyses over Relax expressions: free / bound / all variables, symbolic variables and
global references (used by passes and by the well-formedness checker).

* :func:`free_vars` -- Relax variables used but not bound inside ``expr`` (VAR.FREE.1), including
  shape-typed vars that struct info refers to (``R.Tensor(s)``).
* :func:`bound_vars` -- parameters and binding variables defined inside ``expr``.
* :func:`all_vars` -- both.
* :func:`free_symbolic_vars` / :func:`defined_symbolic_vars` -- symbolic (TIR) variables used without
  a definition / defined by parameter annotations and ``MatchCast`` (SI.SYM.2, SI.SYM.3).
* :func:`all_global_vars` -- every ``GlobalVar`` referenced; :func:`called_global_vars` -- those in
  ``Call.op`` position.

All results are lists in order of first occurrence, without duplicates (identity).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ..ir import expr as rx
from ..ir.functor import expr_children, prim_vars_in
from ..ir.struct_info import FuncStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .struct_info_ops import definable_sym_vars, sym_vars_in_struct_info


def _shape_vars_in_sinfo(si: Optional[StructInfo], out: list) -> None:
    """Relax Vars used as tensor shapes inside struct info (function struct info excluded)."""
    if isinstance(si, TensorStructInfo):
        if isinstance(si.shape, rx.Var):
            out.append(si.shape)
    elif isinstance(si, TupleStructInfo):
        for f in si.fields:
            _shape_vars_in_sinfo(f, out)


class _VarCollector:
    def __init__(self) -> None:
        self.used: Dict[rx.Var, None] = {}
        self.bound: Dict[rx.Var, None] = {}
        self.globals: Dict[rx.GlobalVar, None] = {}
        self.called: Dict[rx.GlobalVar, None] = {}

    def _sinfo(self, si: Optional[StructInfo]) -> None:
        refs: list = []
        _shape_vars_in_sinfo(si, refs)
        for v in refs:
            self.used.setdefault(v, None)

    def _bind(self, v: rx.Var) -> None:
        self.bound.setdefault(v, None)
        self.used.setdefault(v, None)
        self._sinfo(v.struct_info)

    def expr(self, e: rx.Expr) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, rx.Var):
                self.used.setdefault(x, None)
                self._sinfo(x.struct_info)
            elif isinstance(x, rx.GlobalVar):
                self.globals.setdefault(x, None)
            elif isinstance(x, rx.Tuple):
                stack.extend(reversed(x.fields))
            elif isinstance(x, rx.TupleGetItem):
                stack.append(x.tuple_value)
            elif isinstance(x, rx.Call):
                if isinstance(x.op, rx.GlobalVar):
                    self.called.setdefault(x.op, None)
                for s in x.sinfo_args:
                    self._sinfo(s)
                self._sinfo(x.struct_info)
                stack.extend(reversed(x.args))
                stack.append(x.op)
            elif isinstance(x, rx.If):
                self._sinfo(x.struct_info)
                stack.append(x.false_branch)
                stack.append(x.true_branch)
                stack.append(x.cond)
            elif isinstance(x, rx.SeqExpr):
                for b in x.blocks:
                    for binding in b.bindings:
                        self._bind(binding.var)
                        if isinstance(binding, rx.MatchCast):
                            self._sinfo(binding.struct_info)
                        self.expr(binding.value)
                stack.append(x.body)
            elif isinstance(x, rx.Function):
                for p in x.params:
                    self._bind(p)
                stack.append(x.body)


def free_vars(expr: rx.Expr) -> List[rx.Var]:
    """Relax variables (incl. DataflowVars) used in ``expr`` but not bound inside it (VAR.FREE.1)."""
    c = _VarCollector()
    c.expr(expr)
    return [v for v in c.used if v not in c.bound]


def bound_vars(expr: rx.Expr) -> List[rx.Var]:
    """Parameters and binding variables defined inside ``expr`` (VAR.FREE.2)."""
    c = _VarCollector()
    c.expr(expr)
    return list(c.bound)


def all_vars(expr: rx.Expr) -> List[rx.Var]:
    c = _VarCollector()
    c.expr(expr)
    return list(c.used)


def all_global_vars(expr: rx.Expr) -> List[rx.GlobalVar]:
    """Every GlobalVar referenced in ``expr`` (as callee or as a value, e.g. a call_tir callee)."""
    c = _VarCollector()
    c.expr(expr)
    return list(c.globals)


def called_global_vars(expr: rx.Expr) -> List[rx.GlobalVar]:
    """GlobalVars in ``Call.op`` position inside ``expr``."""
    c = _VarCollector()
    c.expr(expr)
    return list(c.called)


class _SymCollector:
    """Symbolic-variable definitions and uses, as TVM's ``SymbolicVarCollector`` (SI.SYM.2-3)."""

    def __init__(self) -> None:
        self.defined: Dict = {}
        self.free: Dict = {}

    def _require(self, si: Optional[StructInfo]) -> None:
        if si is None:
            return
        if isinstance(si, FuncStructInfo) and si.params is not None:
            local = set()
            for p in si.params:
                local.update(definable_sym_vars(p, tensor_var_shapes=False))
            for v in sym_vars_in_struct_info(si):
                if v not in self.defined and v not in local:
                    self.free.setdefault(v, None)
            return
        for v in sym_vars_in_struct_info(si):
            if v not in self.defined:
                self.free.setdefault(v, None)

    def _provide(self, si: StructInfo) -> None:
        for v in definable_sym_vars(si, tensor_var_shapes=False):
            self.defined.setdefault(v, None)

    def expr(self, e: rx.Expr) -> None:
        if isinstance(e, rx.Function):
            for p in e.params:
                self._provide(p.struct_info)
            for p in e.params:
                self._require(p.struct_info)
            self.expr(e.body)
            if e.ret_struct_info is not None:
                self._require(e.ret_struct_info)
            return
        if isinstance(e, (rx.Var, rx.GlobalVar, rx.ExternFunc, rx.Op, rx.Constant, rx.StringImm,
                          rx.DataTypeImm)):
            return
        if isinstance(e, rx.ShapeExpr):
            for v in e.values:
                for pv in prim_vars_in(v):
                    if pv not in self.defined:
                        self.free.setdefault(pv, None)
            return
        if isinstance(e, rx.PrimValue):
            for pv in prim_vars_in(e.value):
                if pv not in self.defined:
                    self.free.setdefault(pv, None)
            return
        if isinstance(e, rx.Call):
            self.expr(e.op)
            for s in e.sinfo_args:
                self._require(s)
            for a in e.args:
                self.expr(a)
        elif isinstance(e, (rx.Tuple, rx.TupleGetItem, rx.If)):
            for c in expr_children(e):
                self.expr(c)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for binding in b.bindings:
                    if isinstance(binding, rx.MatchCast):
                        self._provide(binding.struct_info)
                        self._require(binding.struct_info)
                    else:
                        self._require(binding.var.struct_info)
                    self.expr(binding.value)
            self.expr(e.body)
        self._require(e.struct_info)


def free_symbolic_vars(expr: rx.Expr) -> list:
    """Symbolic variables used in ``expr`` without a definition inside it (SI.SYM.3)."""
    c = _SymCollector()
    c.expr(expr)
    return list(c.free)


def defined_symbolic_vars(expr: rx.Expr) -> list:
    """Symbolic variables defined inside ``expr`` by parameter annotations or MatchCast (SI.SYM.2)."""
    c = _SymCollector()
    c.expr(expr)
    return list(c.defined)


__all__ = [
    "free_vars", "bound_vars", "all_vars", "all_global_vars", "called_global_vars",
    "free_symbolic_vars", "defined_symbolic_vars",
]

"""Well-formedness of normalized Relax IR (spec chapter WF), following TVM 0.25's
``src/relax/analysis/well_formed.cc`` rule for rule, plus light checks of PrimFuncs.

:func:`check_well_formed(mod_or_func)` returns None or raises the first violation found -- a
``WellFormedError``, or a ``StructInfoError`` for the struct-info rules WF.OPVALID.1, WF.SINFO.2 and
WF.SINFO.3 -- carrying the span of the offending node, the function name, the binding name and, for
symbolic-variable rules, the symbol. :func:`is_well_formed` answers with a bool.

=====  ==================  ========================================================================
TVM    rule ID             statement
=====  ==================  ========================================================================
W1     WF.SINFO.1          every expression except ``Op`` has struct info
W2     WF.GLOBAL.1         a GlobalVar is the module's GlobalVar of its name; its struct info is a
                           ``FuncStructInfo``
W3     WF.GLOBAL.2         a ``global_symbol`` attribute equals the GlobalVar's name
W4     WF.PARAM.1          a Relax Var is a parameter of at most one function
W5     WF.SYM.2            a symbolic variable occurs in at most one function (not checked for the
                           struct info of ``Call.op`` nor of a GlobalVar used as a value, e.g. by
                           ``make_closure``; TVM 0.25 counts the latter, DIV.31)
W6     WF.VAR.1            variables are defined before use (a local function may use its own var)
W7     WF.VAR.2            each Var / DataflowVar is defined once
W8     WF.SYM.1            symbolic variables are defined before use; definitions are bare
                           occurrences in parameter struct info, MatchCast struct info and the
                           parameters of a ``FuncStructInfo``
W9     WF.DATAFLOW.1       DataflowVars are defined and used only inside their dataflow block
W10    WF.IF.1             variables bound inside If branches are invisible after the If
W11    WF.SEQ.1            a SeqExpr is only a function body or an If branch
W12    WF.ANF.1            tuple fields, ``TupleGetItem.tuple``, ``If.cond``, ``Call.op``,
                           ``Call.args`` and SeqExpr bodies are leaves or tuples
W13    WF.FUNC.1           every Function has ``ret_struct_info``
W14    WF.DATAFLOW.2       no If inside a dataflow block
W15    WF.DATAFLOW.3       no impure call inside a dataflow block
W16    WF.PURITY.1         a pure function without ``relax.force_pure`` contains no impure call
                           (nested function literals excluded)
W17    WF.PURITY.2         ``relax.force_pure`` requires ``is_pure``
W18    WF.PRIMFUNC.1       a PrimFunc may not be bound inside a Relax function
W19    WF.OPNORM.1         calls of operators with a normalize hook are already normalized
W20    WF.OPVALID.1        operator ``validate`` hooks pass (call_tir: out_sinfo vs. PrimFunc)
W21    WF.SINFO.2          every call's struct info is re-inferable and not provably wrong
                           (``base_check(stored, inferred) >= FAIL_L1``)
W22    WF.SINFO.3          ``VarBinding``: ``is_base_of(var, value)``
W23    WF.SHAPE.1          ShapeExpr values have an integer dtype
--     WF.ATTR.1           ``tir_var_upper_bound`` / ``tir_var_lower_bound`` map names to integers
                           (TVM 0.25 rejects other values when building)
--     WF.TIR.1-3          PrimFuncs: ``buffer_map`` keys are parameters; variables and buffers are
                           declared before use (loop / block / let variables scoped)
--     WF.DATAFLOW.4       (spec only, ``spec_strict=True``) no call that may recurse into the
                           enclosing global function inside a dataflow block; TVM 0.25 does not check
=====  ==================  ========================================================================

relax-ref also checks the symbolic variables of every leaf's struct info (TVM skips e.g. a
``PrimValue`` used directly as an argument), so an undefined symbolic variable is always reported.
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from typing import Dict, Optional, Set, Union

from ..errors import RelaxError, Span, StructInfoError, WellFormedError
from ..limits import INT64_MAX, INT64_MIN
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import prim_vars_in
from ..ir.module import IRModule
from ..ir.struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from ..analysis.context import InferContext, make_analyzer
from ..ir.distributed import DTensorStructInfo
from .dist_checks import dtensor_violation
from .purity import find_impure_call, is_impure_call
from ..analysis.struct_info_ops import BaseCheckResult, format_struct_info, is_base_of, struct_info_base_check
from ..ops import registry
from .normalize import infer_call_struct_info
from ..analysis.free_vars import called_global_vars

_DEFAULT = 0
_MATCH_DEF = 1
_LEAVES = (rx.Var, rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm, rx.GlobalVar,
           rx.ExternFunc, rx.Op)


def _is_leaf_or_tuple(e) -> bool:
    return isinstance(e, _LEAVES) or isinstance(e, rx.Tuple)


def _kind(e) -> str:
    return type(e).__name__


class _Checker:
    def __init__(self, mod: Optional[IRModule], check_struct_info: bool, spec_strict: bool) -> None:
        self.mod = mod
        self.check_struct_info = check_struct_info
        self.spec_strict = spec_strict
        self.analyzer = make_analyzer()
        self.var_set: Set[rx.Var] = set()
        self.recur_vars: Set[rx.Var] = set()
        self.df_vars: Set[rx.Var] = set()
        self.sym_vars: Set[P.PrimVar] = set()
        self.param_func: Dict[rx.Var, object] = {}
        self.sym_func: Dict[P.PrimVar, object] = {}
        self.func_names: Dict[int, str] = {}
        self.is_dataflow = False
        self.cur_func: Optional[rx.Function] = None
        self.mode = _DEFAULT
        self.function: Optional[str] = None
        self.binding: Optional[str] = None
        self.span: Optional[Span] = None
        self.recursive_callees: Set[str] = set()

    # -- errors ---------------------------------------------------------------------------------
    def err(self, msg: str, node=None, *, cls=WellFormedError, symbol: Optional[str] = None) -> RelaxError:
        span = getattr(node, "span", None) if node is not None else None
        if isinstance(node, (rx.Var, rx.GlobalVar)) and self.span is not None:
            span = self.span  # a variable's own span is its definition site; report the use
        return cls(msg, span or self.span, binding=self.binding, function=self.function, symbol=symbol)

    def fname(self, f) -> str:
        if f is None:
            return "(anonymous function)"
        n = self.func_names.get(id(f))
        return f'"{n}"' if n is not None else "(anonymous function)"

    def ctx(self, call: rx.Call) -> InferContext:
        return InferContext(self.analyzer, self.mod, call.span, self.binding, self.function)

    # -- module ---------------------------------------------------------------------------------
    def module(self, mod: IRModule) -> None:
        for gv, f in mod.functions_items():
            if isinstance(f, rx.Function):
                self.func_names[id(f)] = gv.name_hint
        for gv, f in mod.functions_items():
            self.function = gv.name_hint
            self.binding = None
            self.span = getattr(f, "span", None)
            if isinstance(f, rx.Function):
                gs = f.attrs.get("global_symbol")
                if gs is not None and gs != gv.name_hint:
                    raise self.err(f"global_symbol '{gs}' differs from the GlobalVar name '{gv.name_hint}'",
                                   f)  # (WF.GLOBAL.2)
                if self.spec_strict:
                    self.recursive_callees = _callees_reaching(mod, gv.name_hint)
                self.visit_expr(f)
            elif isinstance(f, tir.PrimFunc):
                check_prim_func(f, gv.name_hint)

    # -- expressions ----------------------------------------------------------------------------
    def visit_expr(self, e) -> None:
        if isinstance(e, tir.PrimFunc):
            raise self.err("Inline PrimFunc is disallowed in Relax IR.", e)  # (WF.PRIMFUNC.1)
        if not isinstance(e, rx.Expr):
            raise self.err(f"{_kind(e)} is not a Relax expression", e)
        if not isinstance(e, rx.Op) and e.struct_info is None:
            raise self.err(f"expression {_kind(e)} has no struct info", e)  # (WF.SINFO.1)
        m = getattr(self, "visit_" + type(e).__name__, None)
        if m is None:
            raise self.err(f"unknown expression kind {_kind(e)}", e)
        m(e)

    def check_sinfo(self, e) -> None:
        if not self.check_struct_info:
            return
        if e.struct_info is None:
            raise self.err(f"expression {_kind(e)} has no struct info", e)
        self.visit_struct_info(e.struct_info)

    def visit_GlobalVar(self, gv: rx.GlobalVar) -> None:
        if self.mod is not None:
            if gv.name_hint not in self.mod or self.mod.get_global_var(gv.name_hint) is not gv:
                raise self.err(f"GlobalVar {gv.name_hint} is not defined.", gv)  # (WF.GLOBAL.1)
        if gv.struct_info is not None and not isinstance(gv.struct_info, FuncStructInfo):
            raise self.err(f"GlobalVar {gv.name_hint} must have function struct info", gv)
        # (WF.SYM.2) a GlobalVar's signature belongs to its function: its symbolic variables are not
        # counted for the function that uses it (TVM 0.25 counts them for a GlobalVar used as a value,
        # which makes its own LambdaLift output ill-formed; DIV.31)
        saved, self.cur_func = self.cur_func, None
        try:
            self.check_sinfo(gv)
        finally:
            self.cur_func = saved

    def visit_Op(self, e: rx.Op) -> None:
        return None

    def visit_ExternFunc(self, e) -> None:
        self.check_sinfo(e)

    visit_Constant = visit_ExternFunc
    visit_StringImm = visit_ExternFunc
    visit_DataTypeImm = visit_ExternFunc
    visit_PrimValue = visit_ExternFunc

    def visit_ShapeExpr(self, e: rx.ShapeExpr) -> None:
        self._shape_values(e)
        self.check_sinfo(e)

    def _shape_values(self, e: rx.ShapeExpr) -> None:
        for v in e.values:
            self.visit_prim(v)
            if not _dt.is_int(v.dtype):
                raise self.err(f"ShapeExpr values must be integers, got dtype {v.dtype}", e)  # (WF.SHAPE.1)

    def visit_Tuple(self, t: rx.Tuple) -> None:
        for i, f in enumerate(t.fields):
            if not _is_leaf_or_tuple(f):
                raise self.err(f"tuple field {i} is a {_kind(f)}, not a leaf (not in ANF)", f)  # (WF.ANF.1)
            self.visit_expr(f)
        self.check_sinfo(t)

    def visit_TupleGetItem(self, e: rx.TupleGetItem) -> None:
        if not _is_leaf_or_tuple(e.tuple_value):
            raise self.err("the tuple of a TupleGetItem must be a leaf (not in ANF)", e)
        self.visit_expr(e.tuple_value)
        self.check_sinfo(e)

    def visit_Var(self, v: rx.Var) -> None:
        if v not in self.var_set and v not in self.recur_vars:
            raise self.err(f"Var {v.name_hint} is not defined.", v)  # (WF.VAR.1)
        self.check_sinfo(v)

    def visit_DataflowVar(self, v: rx.DataflowVar) -> None:
        if not self.is_dataflow:
            raise self.err(f"DataflowVar {v.name_hint} is used outside DataflowBlock.", v)  # (WF.DATAFLOW.1)
        if v not in self.df_vars:
            raise self.err(f"DataflowVar {v.name_hint} is not defined.", v)  # (WF.VAR.1)
        self.check_sinfo(v)

    def visit_Function(self, f: rx.Function) -> None:
        outermost = self.cur_func is None
        if outermost:
            self.cur_func = f
        saved = (set(self.var_set), set(self.df_vars), set(self.sym_vars), self.is_dataflow, self.span)
        self.sym_vars = set()
        self.is_dataflow = False
        self.span = f.span or self.span
        old_mode, self.mode = self.mode, _MATCH_DEF
        for p in f.params:
            if p.struct_info is not None:
                self.visit_struct_info(p.struct_info)
        self.mode = old_mode
        for key in ("tir_var_upper_bound", "tir_var_lower_bound"):
            self._bounds_attr(f, key)
        force_pure = bool(f.attrs.get("relax.force_pure", False))
        if force_pure and not f.is_pure:
            raise self.err("relax.force_pure is set on a function declared impure (pure=False)",
                           f)  # (WF.PURITY.2)
        for p in f.params:
            self.visit_var_def(p)
            if p in self.param_func:
                raise self.err(f"parameter {p.name_hint} is shared by function {self.fname(self.param_func[p])} "
                               f"and function {self.fname(self.cur_func)}", p)  # (WF.PARAM.1)
            self.param_func[p] = self.cur_func
        if f.ret_struct_info is None:
            raise self.err("function has no ret_struct_info", f)  # (WF.FUNC.1)
        self.visit_struct_info(f.ret_struct_info)
        if self.check_struct_info and not force_pure and f.is_pure:
            impure = find_impure_call(f.body)
            if impure is not None:
                raise self.err(f"function {self.fname(f) if outermost else '(anonymous function)'} is "
                               f"annotated as pure but contains an impure call: {_describe_call(impure)} "
                               f"(declare it pure=False, set relax.force_pure, or use a pure variant such as "
                               f"call_pure_packed)", impure)  # (WF.PURITY.1)
        self.visit_seq(f.body)
        self.var_set, self.df_vars, self.sym_vars, self.is_dataflow, self.span = saved
        if outermost:
            self.cur_func = None

    def _bounds_attr(self, f: rx.Function, key: str) -> None:
        """(WF.ATTR.1) a declared-bounds attribute maps names to integers of the int64 range."""
        value = f.attrs.get(key)
        if value is None:
            return
        items = getattr(value, "items", None)
        ok = callable(items) and all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                     for k, v in items())
        if not ok:
            raise self.err(f"attribute {key} must map names of symbolic variables to integers, got {value!r}",
                           f)
        for k, v in items():
            if not INT64_MIN <= v <= INT64_MAX:
                raise self.err(f"attribute {key}: the bound {v} of {k} is outside the int64 range", f)

    def visit_Call(self, call: rx.Call) -> None:
        if not _is_leaf_or_tuple(call.op):
            raise self.err("the callee of a call must be a leaf (not in ANF)", call)  # (WF.ANF.1)
        saved, self.cur_func = self.cur_func, None
        self.visit_expr(call.op)
        self.cur_func = saved
        for i, a in enumerate(call.args):
            if not _is_leaf_or_tuple(a):
                raise self.err(f"argument {i} of a call is a {_kind(a)}, not a leaf (not in ANF)", a)  # (WF.ANF.1)
            self.visit_expr(a)
        for s in call.sinfo_args:
            self.visit_struct_info(s)
        self.check_sinfo(call)
        if self.is_dataflow and self.check_struct_info:
            if is_impure_call(call):
                raise self.err(f"Impure function call {_describe_call(call)} occurs within a dataflow block.",
                               call)  # (WF.DATAFLOW.3)
            if self.spec_strict and isinstance(call.op, rx.GlobalVar) and \
                    call.op.name_hint in self.recursive_callees:
                raise self.err(f"Call of {call.op.name_hint} may recurse into {self.function} inside a "
                               f"dataflow block", call)  # (WF.DATAFLOW.4)
        if isinstance(call.op, rx.Op):
            self._op_checks(call)
        if self.check_struct_info and call.struct_info is not None:
            self._reinfer(call)

    def _op_checks(self, call: rx.Call) -> None:
        opdef = registry.lookup(call.op.name)
        if opdef is None:
            raise self.err(f"unknown operator {call.op.name}", call, cls=StructInfoError)
        if opdef.normalize is not None and opdef.extra.get("wf_normalized_check", True):
            try:
                out = opdef.normalize(call, self.ctx(call))
            except RelaxError as e:
                raise self.err(f"the call of {call.op.name} is not in the operator's normal form: normalizing "
                               f"it fails with: {e.message}", call)  # (WF.OPNORM.1)
            if out is not call:
                raise self.err(f"the call of {call.op.name} is not in the operator's normal form (normalizing "
                               f"it changes it)", call)  # (WF.OPNORM.1)
        if opdef.validate is not None:
            try:
                opdef.validate(call, self.ctx(call))
            except RelaxError as e:
                raise self.err(f"validation of {call.op.name} failed: {e.message}",
                               call, cls=StructInfoError)  # (WF.OPVALID.1)

    def _reinfer(self, call: rx.Call) -> None:
        try:
            inferred = infer_call_struct_info(replace(call, struct_info=None), self.ctx(call))
        except RelaxError as e:
            raise self.err(f"the struct info of the call of {_describe_call(call)} cannot be re-inferred: "
                           f"{e.message}", call, cls=StructInfoError)  # (WF.SINFO.2)
        if struct_info_base_check(call.struct_info, inferred, self.analyzer) < BaseCheckResult.FAIL_L1:
            raise self.err(f"All information in StructInfo annotations must be correct: the call of "
                           f"{_describe_call(call)} is annotated {format_struct_info(call.struct_info)} but "
                           f"produces {format_struct_info(inferred)}", call, cls=StructInfoError)  # (WF.SINFO.2)

    def visit_If(self, e: rx.If) -> None:
        if self.is_dataflow:
            raise self.err("an If cannot appear in a dataflow block", e)  # (WF.DATAFLOW.2)
        if not _is_leaf_or_tuple(e.cond):
            raise self.err("the condition of an If must be a leaf (not in ANF)", e)  # (WF.ANF.1)
        self.visit_expr(e.cond)
        saved_vars, saved_syms = set(self.var_set), set(self.sym_vars)
        self.visit_seq(e.true_branch)
        self.var_set, self.sym_vars = set(saved_vars), set(saved_syms)  # (WF.IF.1)
        self.visit_seq(e.false_branch)
        self.var_set, self.sym_vars = saved_vars, saved_syms
        self.check_sinfo(e)

    def visit_SeqExpr(self, e: rx.SeqExpr) -> None:
        raise self.err("a SeqExpr may only be a function body or an If branch", e)  # (WF.SEQ.1)

    def visit_seq(self, seq) -> None:
        if not isinstance(seq, rx.SeqExpr):
            raise self.err(f"a function body or If branch must be a SeqExpr, got {_kind(seq)}", seq)  # (WF.SEQ.1)
        for b in seq.blocks:
            self.visit_block(b)
        if not _is_leaf_or_tuple(seq.body):
            raise self.err("the body of a SeqExpr must be a leaf (not in ANF)", seq.body)  # (WF.ANF.1)
        self.visit_expr(seq.body)
        self.check_sinfo(seq)

    # -- bindings -------------------------------------------------------------------------------
    def visit_block(self, b: rx.BindingBlock) -> None:
        if isinstance(b, rx.DataflowBlock):
            saved = self.is_dataflow
            self.is_dataflow = True
            for binding in b.bindings:
                self.visit_binding(binding)
            self.is_dataflow = saved
            self.df_vars.clear()
        else:
            for binding in b.bindings:
                self.visit_binding(binding)

    def visit_binding(self, b: rx.Binding) -> None:
        saved = (self.binding, self.span)
        self.binding = b.var.name_hint if b.var is not None else None
        self.span = b.span or self.span
        if isinstance(b, rx.MatchCast):
            self.visit_expr(b.value)
            old, self.mode = self.mode, _MATCH_DEF
            self.visit_struct_info(b.struct_info)
            self.mode = old
            self.visit_struct_info(b.struct_info)
            self.visit_var_def(b.var)
        elif isinstance(b, rx.VarBinding):
            is_lambda = isinstance(b.value, rx.Function)
            if is_lambda:
                self.recur_vars.add(b.var)
            self.visit_expr(b.value)
            self.visit_var_def(b.var)
            if self.check_struct_info and b.var.struct_info is not None and \
                    getattr(b.value, "struct_info", None) is not None:
                if not is_base_of(b.var.struct_info, b.value.struct_info, self.analyzer):
                    raise self.err(f"Expression of type {format_struct_info(b.value.struct_info)} cannot be "
                                   f"assigned to a variable of type {format_struct_info(b.var.struct_info)}",
                                   b, cls=StructInfoError)  # (WF.SINFO.3)
            if is_lambda:
                self.recur_vars.discard(b.var)
        else:
            raise self.err(f"unknown binding kind {_kind(b)}", b)
        self.binding, self.span = saved

    def visit_var_def(self, v: rx.Var) -> None:
        if isinstance(v, rx.DataflowVar):
            if not self.is_dataflow:
                raise self.err(f"DataflowVar {v.name_hint} is defined outside DataflowBlock.", v)  # (WF.DATAFLOW.1)
            if v in self.df_vars:
                raise self.err(f"DataflowVar {v.name_hint} is defined more than once.", v)  # (WF.VAR.2)
            self.df_vars.add(v)
        else:
            if v in self.var_set:
                raise self.err(f"Var {v.name_hint} is defined more than once.", v)  # (WF.VAR.2)
            self.var_set.add(v)
        self.check_sinfo(v)

    # -- struct info and symbolic variables -----------------------------------------------------
    def visit_struct_info(self, si: StructInfo) -> None:
        if isinstance(si, PrimStructInfo):
            if si.value is not None:
                self.sinfo_prim(si.value)
        elif isinstance(si, ShapeStructInfo):
            for v in si.values or ():
                self.sinfo_prim(v)
        elif isinstance(si, TensorStructInfo):
            if si.shape is not None:
                self.sinfo_shape(si.shape)
            if isinstance(si, DTensorStructInfo):
                bad = dtensor_violation(si, self.mod)
                if bad is not None:
                    raise self.err(bad)
        elif isinstance(si, TupleStructInfo):
            for f in si.fields:
                self.visit_struct_info(f)
        elif isinstance(si, FuncStructInfo):
            if si.params is not None:
                old, self.mode = self.mode, _MATCH_DEF
                for p in si.params:
                    self.visit_struct_info(p)
                self.mode = old
            self.visit_struct_info(si.ret)

    def sinfo_shape(self, shape) -> None:
        if self.mode == _MATCH_DEF:
            if isinstance(shape, rx.Var):
                self.var_set.add(shape)
            elif isinstance(shape, rx.ShapeExpr):
                for v in shape.values:
                    self.sinfo_prim(v)
            return
        if isinstance(shape, rx.ShapeExpr):
            self._shape_values(shape)  # a shape inside struct info: values only (no W1 on the node)
        else:
            self.visit_expr(shape)

    def sinfo_prim(self, e: P.PrimExpr) -> None:
        if self.mode == _MATCH_DEF:
            if isinstance(e, P.PrimVar):
                self.sym_vars.add(e)
        else:
            self.visit_prim(e)

    def visit_prim(self, e: P.PrimExpr) -> None:
        for v in prim_vars_in(e):
            if v not in self.sym_vars:
                raise self.err(f"Symbolic Var {v.name} is not defined.", symbol=v.name)  # (WF.SYM.1)
            if self.cur_func is None:
                continue
            owner = self.sym_func.get(v)
            if owner is not None and owner is not self.cur_func:
                raise self.err(f"symbolic variable {v.name} occurs in both function {self.fname(owner)} and "
                               f"function {self.fname(self.cur_func)}", symbol=v.name)  # (WF.SYM.2)
            self.sym_func.setdefault(v, self.cur_func)


def _describe_call(call: rx.Call) -> str:
    op = call.op
    if isinstance(op, rx.Op):
        return op.name
    if isinstance(op, rx.ExternFunc):
        return f'ExternFunc("{op.global_symbol}")'
    return getattr(op, "name_hint", _kind(op))


def _callees_reaching(mod: IRModule, name: str) -> Set[str]:
    """Global functions from which ``name`` is reachable through calls (incl. itself) (WF.DATAFLOW.4)."""
    graph: Dict[str, Set[str]] = {}
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function):
            graph[gv.name_hint] = {g.name_hint for g in called_global_vars(f)}
    reach = {name}
    changed = True
    while changed:
        changed = False
        for caller, callees in graph.items():
            if caller not in reach and callees & reach:
                reach.add(caller)
                changed = True
    return reach


# ---------------------------------------------------------------------------------------------------
# PrimFuncs (WF.TIR.*)
# ---------------------------------------------------------------------------------------------------


class _TIRChecker:
    def __init__(self, func: tir.PrimFunc, name: Optional[str]) -> None:
        self.func = func
        self.name = name

    def err(self, msg: str, span=None, symbol=None) -> WellFormedError:
        return WellFormedError(msg, span or self.func.span, function=self.name, symbol=symbol)

    def expr(self, e: P.PrimExpr, env: Set, bufs: Set, span=None) -> None:
        stack = [(e, env)]
        while stack:
            x, scope = stack.pop()
            if isinstance(x, P.PrimVar):
                if x not in scope:
                    raise self.err(f"variable {x.name} is used but not defined in the PrimFunc", span,
                                   symbol=x.name)  # (WF.TIR.2)
            elif isinstance(x, P.Let):
                stack.append((x.value, scope))
                stack.append((x.body, scope | {x.var}))
            else:
                if isinstance(x, tir.BufferLoad):
                    self.use_buffer(x.buffer, scope, bufs, span)
                for c in P.children(x):
                    stack.append((c, scope))

    def use_buffer(self, buf: tir.Buffer, env: Set, bufs: Set, span=None) -> None:
        """(WF.TIR.3) A buffer is used after its declaration, or it is a view over a data variable in
        scope (``T.Buffer(shape, data=A.data)`` written where it is used, as TVM prints it); such a
        view is declared at its first use."""
        if buf in bufs:
            return
        if buf.data is not None and buf.data in env:
            self.declare_buffer(buf, env, bufs, span)
            return
        raise self.err(f"buffer {buf.name} is used but not declared in the PrimFunc", span)

    def declare_buffer(self, buf: tir.Buffer, env: Set, bufs: Set, span=None, define_bare: bool = False) -> None:
        exprs = list(buf.shape) + list(buf.strides) + ([buf.elem_offset] if buf.elem_offset is not None else [])
        if define_bare:
            for d in exprs:
                if isinstance(d, P.PrimVar):
                    env.add(d)
        for d in exprs:
            self.expr(d, env, bufs, span)
        env.add(buf.data)
        bufs.add(buf)

    def check(self) -> None:
        f = self.func
        params = set(f.params)
        env: Set = set(f.params)
        bufs: Set = set()
        for p, buf in f.buffer_map:
            if p not in params:
                raise self.err(f"buffer_map entry for {getattr(p, 'name', p)!r} ({buf.name}) is not a parameter "
                               f"of the PrimFunc")  # (WF.TIR.1)
        for p, buf in f.buffer_map:
            for d in list(buf.shape) + list(buf.strides) + ([buf.elem_offset] if buf.elem_offset is not None else []):
                if isinstance(d, P.PrimVar):
                    env.add(d)
        for p, buf in f.buffer_map:
            self.declare_buffer(buf, env, bufs)
        if f.body is not None:
            self.stmt(f.body, env, bufs)

    def region(self, r: tir.BufferRegion, env, bufs, span) -> None:
        self.use_buffer(r.buffer, env, bufs, span)
        for rng in r.region:
            self.expr(rng.min, env, bufs, span)
            self.expr(rng.extent, env, bufs, span)

    def stmt(self, s: tir.Stmt, env: Set, bufs: Set) -> None:
        span = s.span
        if isinstance(s, tir.SeqStmt):
            for c in s.seq:
                self.stmt(c, env, bufs)
        elif isinstance(s, tir.BufferStore):
            self.use_buffer(s.buffer, env, bufs, span)
            self.expr(s.value, env, bufs, span)
            for i in s.indices:
                self.expr(i, env, bufs, span)
        elif isinstance(s, tir.Evaluate):
            self.expr(s.value, env, bufs, span)
        elif isinstance(s, tir.LetStmt):
            self.expr(s.value, env, bufs, span)
            self.stmt(s.body, env | {s.var}, set(bufs))
        elif isinstance(s, tir.Bind):
            self.expr(s.value, env, bufs, span)
            env.add(s.var)
        elif isinstance(s, tir.AssertStmt):
            self.expr(s.condition, env, bufs, span)
            if s.body is not None:
                self.stmt(s.body, set(env), set(bufs))
        elif isinstance(s, tir.For):
            self.expr(s.min, env, bufs, span)
            self.expr(s.extent, env, bufs, span)
            self.stmt(s.body, env | {s.loop_var}, set(bufs))
        elif isinstance(s, tir.While):
            self.expr(s.condition, env, bufs, span)
            self.stmt(s.body, set(env), set(bufs))
        elif isinstance(s, tir.IfThenElse):
            self.expr(s.condition, env, bufs, span)
            self.stmt(s.then_case, set(env), set(bufs))
            if s.else_case is not None:
                self.stmt(s.else_case, set(env), set(bufs))
        elif isinstance(s, tir.AllocBuffer):
            self.declare_buffer(s.buffer, env, bufs, span)
        elif isinstance(s, tir.DeclBuffer):
            if s.body is None:
                self.declare_buffer(s.buffer, env, bufs, span)
            else:
                e2, b2 = set(env), set(bufs)
                self.declare_buffer(s.buffer, e2, b2, span)
                self.stmt(s.body, e2, b2)
        elif isinstance(s, tir.Allocate):
            for x in s.extents:
                self.expr(x, env, bufs, span)
            if s.condition is not None:
                self.expr(s.condition, env, bufs, span)
            if s.body is not None:
                self.stmt(s.body, env | {s.buffer_var}, set(bufs))
            else:
                env.add(s.buffer_var)
        elif isinstance(s, tir.BlockRealize):
            for v in s.iter_values:
                self.expr(v, env, bufs, span)
            self.expr(s.predicate, env, bufs, span)
            self.block(s.block, env, bufs)
        elif isinstance(s, tir.Block):
            self.block(s, env, bufs)
        else:
            raise self.err(f"unknown TensorIR statement {_kind(s)}", span)

    def block(self, b: tir.Block, env: Set, bufs: Set) -> None:
        span = b.span
        e2, b2 = set(env), set(bufs)
        for iv in b.iter_vars:
            self.expr(iv.dom.min, env, bufs, span)
            self.expr(iv.dom.extent, env, bufs, span)
        for iv in b.iter_vars:
            e2.add(iv.var)
        for buf in b.alloc_buffers:
            self.declare_buffer(buf, e2, b2, span)
        for mb in b.match_buffers:
            self.region(mb.source, e2, b2, span)
            self.declare_buffer(mb.buffer, e2, b2, span, define_bare=True)
        for r in b.reads:
            self.region(r, e2, b2, span)
        for r in b.writes:
            self.region(r, e2, b2, span)
        if b.init is not None:
            self.stmt(b.init, set(e2), set(b2))
        if b.body is not None:
            self.stmt(b.body, e2, b2)


def check_prim_func(func: tir.PrimFunc, name: Optional[str] = None) -> None:
    """Light well-formedness of a PrimFunc (WF.TIR.1-3): ``buffer_map`` keys are parameters; scalar
    variables (parameters, bare buffer-shape variables, loop / block / let variables) and buffers
    are declared before use."""
    _TIRChecker(func, name).check()


# ---------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------


#: modules found well-formed with the default options; a module is immutable, so it is checked once
#: however often it is parsed, evaluated or compiled
_WELL_FORMED: "weakref.WeakSet[IRModule]" = weakref.WeakSet()


def check_well_formed(obj: Union[IRModule, rx.Function], *, check_struct_info: bool = True,
                      spec_strict: bool = False) -> None:
    """Raise the first well-formedness violation of a module or function (WF.*), or return None.

    ``check_struct_info=False`` skips the struct-info rules (as TVM's flag of the same name);
    ``spec_strict=True`` also enforces the informal spec's ban on recursive calls in dataflow
    blocks (WF.DATAFLOW.4), which TVM 0.25 does not check. A module that passed with the default
    options is not checked again."""
    if isinstance(obj, IRModule):
        default = check_struct_info and not spec_strict
        if default and obj in _WELL_FORMED:
            return
        _Checker(obj, check_struct_info, spec_strict).module(obj)
        if default:
            _WELL_FORMED.add(obj)
    elif isinstance(obj, rx.Function):
        c = _Checker(None, check_struct_info, False)
        c.function = obj.global_symbol
        c.span = obj.span
        c.visit_expr(obj)
    else:
        raise TypeError(f"check_well_formed expects an IRModule or a Function, got {type(obj).__name__}")


well_formed = check_well_formed


def is_well_formed(obj: Union[IRModule, rx.Function], **kwargs) -> bool:
    """``True`` when :func:`check_well_formed` finds no violation."""
    try:
        check_well_formed(obj, **kwargs)
    except (WellFormedError, StructInfoError):
        return False
    return True


__all__ = ["check_well_formed", "well_formed", "is_well_formed", "check_prim_func"]

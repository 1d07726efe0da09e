"""Analyses over the struct-info lattice (spec chapter SI): erasure to static types, the four-level
base check, least common ancestor, erasure to well-defined struct info and call-result derivation.

These follow TVM 0.25 (``src/relax/analysis/struct_info_analysis.cc``) rule for rule:

* :func:`struct_info_base_check` -- ``StructInfoBaseCheck`` with the levels of
  :class:`BaseCheckResult` (SI.BASE.1-SI.BASE.9); :func:`is_base_of` is ``== PASS``.
* :func:`struct_info_lca` -- the unifier used for ``If`` (SI.LCA.1-SI.LCA.7).
* :func:`erase_to_well_defined` -- drop symbolic information that mentions variables not in scope
  (SI.ERASE.1-SI.ERASE.4).
* :func:`derive_call_ret_struct_info` -- the struct info of a call of a non-operator callee; binds
  the callee's bare symbolic parameters to the caller's expressions (SI.CALL.1-SI.CALL.5).
* :func:`definable_sym_vars` / :func:`sym_vars_in_struct_info` -- symbolic variables *defined* by
  (bare occurrences) and *used* in struct info (SI.SYM.2, SI.SYM.3); they live in
  :mod:`relax_ref.analysis.struct_info_vars` and are re-exported here.

``analyzer`` arguments take a :class:`relax_ref.arith.Analyzer`; a fresh one is made when omitted.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

from ..errors import StructInfoError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import prim_vars_in
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo,
)
from ..ir.distributed import DTensorStructInfo
from .context import make_analyzer
from .struct_info_vars import definable_sym_vars, signature_sym_vars, sym_vars_in_struct_info

VOID = "void"

#: The derive function of ``ExternFunc`` struct info (SI.FUNC.3).
INFER_BY_SINFO_ARGS = "tvm.relax.struct_info.infer_by_sinfo_args"


class BaseCheckResult(IntEnum):
    """Result of :func:`struct_info_base_check` (SI.BASE.1). Ordered: a smaller level is a worse
    failure, and combining results takes the minimum."""

    #: the value sets are disjoint: a definite mismatch
    FAIL_L0 = 0
    #: not a superset judging by static kinds, ndim and dtype alone (may still pass at run time)
    FAIL_L1 = 1
    #: kinds agree but symbolic values cannot be proven equal (or are missing on the derived side)
    FAIL_L2 = 2
    #: the base contains the derived
    PASS = 3


PASS = BaseCheckResult.PASS
L0 = BaseCheckResult.FAIL_L0
L1 = BaseCheckResult.FAIL_L1
L2 = BaseCheckResult.FAIL_L2


def _combine(a: BaseCheckResult, b: BaseCheckResult) -> BaseCheckResult:
    return a if a < b else b


def _ndim_check(lhs: int, rhs: int) -> BaseCheckResult:
    """The rank part of SI.BASE.4/SI.BASE.5: an unknown base rank (-1) holds anything; an unknown
    derived rank only possibly matches (L1); two known ranks must be equal."""
    if lhs == -1 or lhs == rhs:
        return PASS
    return L1 if rhs == -1 else L0


def _refine(lhs, rhs, match: Callable) -> BaseCheckResult:
    """An optional refinement (a prim value, shape values, a tensor's shape; SI.BASE.3-SI.BASE.5):
    absent in the base holds anything; absent in the derived only possibly holds (L2)."""
    if lhs is None:
        return PASS
    if rhs is None:
        return L2
    return match(lhs, rhs)


def _fieldwise(lhs: Sequence, rhs: Sequence, match: Callable) -> BaseCheckResult:
    """Pairwise ``match`` of two sequences of equal length, the weakest result (SI.BASE.4, SI.BASE.6);
    the pair after the first L0 is still matched (it may bind symbolic variables), as TVM does."""
    if len(lhs) != len(rhs):
        return L0
    ret = PASS
    for a, b in zip(lhs, rhs):
        r = match(a, b)
        if ret == L0:
            return ret
        ret = _combine(r, ret)
    return ret


def _analyzer(analyzer):
    return analyzer if analyzer is not None else make_analyzer()


# ---------------------------------------------------------------------------------------------------
# Message formatting (independent of the script printer, so analyses never depend on it)
# ---------------------------------------------------------------------------------------------------


def format_struct_info(si: Optional[StructInfo]) -> str:
    """A compact TVMScript-like rendering of struct info, used in error messages."""
    if si is None:
        return "<none>"
    if isinstance(si, ObjectStructInfo):
        return "R.Object"
    if isinstance(si, PrimStructInfo):
        if si.value is not None:
            return f"R.Prim(value={P.to_str(si.value)})"
        return f'R.Prim("{si.dtype}")'
    if isinstance(si, ShapeStructInfo):
        if si.values is not None:
            return f"R.Shape([{', '.join(P.to_str(v) for v in si.values)}])"
        return f"R.Shape(ndim={si.ndim})"
    if isinstance(si, DTensorStructInfo):
        inner = format_struct_info(si.tensor)[len("R.Tensor("):-1]
        return f'R.DTensor({inner}, device_mesh={si.device_mesh}, placement="{si.placement}")'
    if isinstance(si, TensorStructInfo):
        parts = []
        if isinstance(si.shape, rx.ShapeExpr):
            vals = ", ".join(P.to_str(v) for v in si.shape.values)
            parts.append(f"({vals},)" if len(si.shape.values) == 1 else f"({vals})")
        elif si.shape is not None:
            parts.append(si.shape.name_hint)
        if si.dtype != VOID:
            parts.append(f'dtype="{si.dtype}"')
        if si.shape is None and si.ndim != -1:
            parts.append(f"ndim={si.ndim}")
        if si.vdevice is not None:
            parts.append(f'vdevice="{si.vdevice}"')
        return f"R.Tensor({', '.join(parts)})"
    if isinstance(si, TupleStructInfo):
        return f"R.Tuple({', '.join(format_struct_info(f) for f in si.fields)})"
    if isinstance(si, FuncStructInfo):
        if si.params is None:
            extra = f', derive_func="{si.derive_func}"' if si.derive_func else ""
            return f"R.Callable(ret={format_struct_info(si.ret)}, purity={si.purity}{extra})"
        ps = ", ".join(format_struct_info(p) for p in si.params)
        return f"R.Callable(({ps}{',' if len(si.params) == 1 else ''}), {format_struct_info(si.ret)}, {si.purity})"
    return repr(si)


# ---------------------------------------------------------------------------------------------------
# Static types (SI.TYPE.1)
# ---------------------------------------------------------------------------------------------------


def erase_to_static_type(si: StructInfo) -> StructInfo:
    """The "traditional type" of struct info, expressed as value-free struct info (SI.TYPE.1):
    tensors keep dtype and ndim, shapes keep ndim, prims keep dtype, opaque functions become
    ``R.Callable(ret=R.Object)``, other functions keep their erased params and return."""
    if isinstance(si, DTensorStructInfo):
        return DTensorStructInfo(None, si.dtype, si.ndim, None, si.device_mesh, si.placement)
    if isinstance(si, TensorStructInfo):
        return TensorStructInfo(None, si.dtype, si.ndim)
    if isinstance(si, ShapeStructInfo):
        return ShapeStructInfo(ndim=si.ndim)
    if isinstance(si, PrimStructInfo):
        return PrimStructInfo(si.dtype)
    if isinstance(si, TupleStructInfo):
        return TupleStructInfo(tuple(erase_to_static_type(f) for f in si.fields))
    if isinstance(si, FuncStructInfo):
        if si.params is None:
            return FuncStructInfo.opaque(ObjectStructInfo(), si.purity)
        return FuncStructInfo(tuple(erase_to_static_type(p) for p in si.params),
                              erase_to_static_type(si.ret), si.purity)
    return ObjectStructInfo()


static_type = erase_to_static_type


# ---------------------------------------------------------------------------------------------------
# Alpha-equality of struct info (function signatures may use different symbolic variables)
# ---------------------------------------------------------------------------------------------------


class _AlphaEq:
    """Structural equality of struct info where symbolic variables are matched up to a consistent
    renaming (TVM's structural equality of ``FuncStructInfo`` maps parameter variables)."""

    def __init__(self) -> None:
        self.fwd: Dict[P.PrimVar, P.PrimVar] = {}
        self.bwd: Dict[P.PrimVar, P.PrimVar] = {}

    def prim(self, a, b) -> bool:
        if isinstance(a, P.PrimVar) or isinstance(b, P.PrimVar):
            if not (isinstance(a, P.PrimVar) and isinstance(b, P.PrimVar)) or a.dtype != b.dtype:
                return False
            fa, fb = self.fwd.get(a), self.bwd.get(b)
            if fa is None and fb is None:
                self.fwd[a] = b
                self.bwd[b] = a
                return True
            return fa is b and fb is a
        if type(a) is not type(b):
            return False
        if isinstance(a, (P.IntImm, P.FloatImm, P.PrimStringImm)):
            return a == b
        if a.dtype != b.dtype:
            return False
        if isinstance(a, P.PrimCall) and a.op != b.op:
            return False
        ca, cb = P.children(a), P.children(b)
        if isinstance(a, P.Let):
            if not self.prim(a.var, b.var):
                return False
        if len(ca) != len(cb):
            return False
        if hasattr(a, "buffer") and a.buffer is not b.buffer:
            return False
        return all(self.prim(x, y) for x, y in zip(ca, cb))

    def prims(self, a, b) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return len(a) == len(b) and all(self.prim(x, y) for x, y in zip(a, b))

    def sinfo(self, a: StructInfo, b: StructInfo) -> bool:
        if type(a) is not type(b):
            return False
        if isinstance(a, ObjectStructInfo):
            return True
        if isinstance(a, PrimStructInfo):
            if a.dtype != b.dtype:
                return False
            return (a.value is None and b.value is None) or (
                a.value is not None and b.value is not None and self.prim(a.value, b.value))
        if isinstance(a, ShapeStructInfo):
            return a.ndim == b.ndim and self.prims(a.values, b.values)
        if isinstance(a, TensorStructInfo):
            if a.dtype != b.dtype or a.ndim != b.ndim or a.vdevice != b.vdevice:
                return False
            if isinstance(a, DTensorStructInfo) and (a.device_mesh, a.placement) != (b.device_mesh, b.placement):
                return False
            if isinstance(a.shape, rx.ShapeExpr) and isinstance(b.shape, rx.ShapeExpr):
                return self.prims(a.shape.values, b.shape.values)
            return a.shape is b.shape
        if isinstance(a, TupleStructInfo):
            return len(a.fields) == len(b.fields) and all(self.sinfo(x, y) for x, y in zip(a.fields, b.fields))
        if isinstance(a, FuncStructInfo):
            if a.purity != b.purity or a.derive_func != b.derive_func:
                return False
            if (a.params is None) != (b.params is None):
                return False
            if a.params is not None:
                if len(a.params) != len(b.params):
                    return False
                if not all(self.sinfo(x, y) for x, y in zip(a.params, b.params)):
                    return False
            return self.sinfo(a.ret, b.ret)
        return a == b


def struct_info_alpha_equal(a: StructInfo, b: StructInfo) -> bool:
    """Structural equality of struct info up to a consistent renaming of symbolic variables."""
    if a is b or a == b:
        return True
    return _AlphaEq().sinfo(a, b)


# ---------------------------------------------------------------------------------------------------
# Base check (SI.BASE.*)
# ---------------------------------------------------------------------------------------------------


def _is_int_imm(e) -> bool:
    return isinstance(e, P.IntImm)


def can_prove_shape_equal(a, b, analyzer) -> bool:
    """Two shapes (``ShapeExpr``/``Var`` or value sequences) are provably equal (SI.LCA.4)."""
    if a is b:
        return True
    if isinstance(a, rx.ShapeExpr):
        a = a.values
    elif isinstance(a, rx.Expr):
        return False
    if isinstance(b, rx.ShapeExpr):
        b = b.values
    elif isinstance(b, rx.Expr):
        return False
    if len(a) != len(b):
        return False
    return all(x == y or analyzer.can_prove_equal(x, y) for x, y in zip(a, b))


class _PairRule:
    """A rule over two struct infos of one kind, dispatched on that kind to the rule's ``_prim``,
    ``_shape``, ``_tensor``, ``_tuple`` or ``_func``."""

    def __init__(self, analyzer) -> None:
        self.analyzer = analyzer

    def _same_kind(self, lhs: StructInfo, rhs: StructInfo):
        if isinstance(lhs, PrimStructInfo):
            return self._prim(lhs, rhs)
        if isinstance(lhs, ShapeStructInfo):
            return self._shape(lhs, rhs)
        if isinstance(lhs, TensorStructInfo):
            return self._tensor(lhs, rhs)
        if isinstance(lhs, TupleStructInfo):
            return self._tuple(lhs, rhs)
        if isinstance(lhs, FuncStructInfo):
            return self._func(lhs, rhs)
        raise StructInfoError(f"unknown struct info {lhs!r}")


class _BaseChecker(_PairRule):
    """``StructInfoBaseChecker``: is ``lhs`` (the base) a superset of ``rhs`` (the derived)?"""

    fast_path = True

    def check(self, lhs: StructInfo, rhs: StructInfo) -> BaseCheckResult:
        if self.fast_path and (lhs is rhs or lhs == rhs):
            return PASS  # (SI.BASE.2)
        if isinstance(lhs, ObjectStructInfo):
            return PASS  # (SI.BASE.2)
        if type(rhs) is not type(lhs):
            # (SI.BASE.2): an Object-typed derived is possibly anything (L1); other kinds are disjoint
            return L1 if isinstance(rhs, ObjectStructInfo) else L0
        return self._same_kind(lhs, rhs)

    def _tuple(self, lhs: TupleStructInfo, rhs: TupleStructInfo) -> BaseCheckResult:
        return self._array(lhs.fields, rhs.fields)

    # (SI.BASE.3)
    def _prim(self, lhs: PrimStructInfo, rhs: PrimStructInfo) -> BaseCheckResult:
        if lhs.dtype != rhs.dtype:
            return L0
        return _refine(lhs.value, rhs.value, self.prim_value_match)

    # (SI.BASE.4)
    def _shape(self, lhs: ShapeStructInfo, rhs: ShapeStructInfo) -> BaseCheckResult:
        ndim = _ndim_check(lhs.ndim, rhs.ndim)
        if ndim != PASS:
            return ndim
        return _refine(lhs.values, rhs.values, self.shape_match_values)

    # (SI.BASE.5; DIST.SI.4: a DTensor's mesh and placement must also agree, else L1)
    def _tensor(self, lhs: TensorStructInfo, rhs: TensorStructInfo) -> BaseCheckResult:
        if isinstance(lhs, DTensorStructInfo):
            other = PASS if (lhs.device_mesh, lhs.placement) == (rhs.device_mesh, rhs.placement) else L1
            return min(self._tensor(lhs.tensor, rhs.tensor), other)
        if lhs.dtype != VOID and lhs.dtype != rhs.dtype:
            return L1 if rhs.dtype == VOID else L0
        ndim = _ndim_check(lhs.ndim, rhs.ndim)
        if ndim != PASS:
            return ndim
        if lhs.vdevice is not None:
            if rhs.vdevice is None:
                return L1
            if lhs.vdevice != rhs.vdevice:
                return L0
        return _refine(lhs.shape, rhs.shape, self.shape_match_exprs)

    # (SI.BASE.7)
    def _func(self, lhs: FuncStructInfo, rhs: FuncStructInfo) -> BaseCheckResult:
        if lhs.purity and not rhs.purity:
            return L0
        if lhs.params is None:
            if lhs.derive_func is not None:
                return PASS if lhs.derive_func == rhs.derive_func else L2
            return self.check(lhs.ret, rhs.ret)
        if rhs.params is None:
            return L2
        if struct_info_alpha_equal(lhs, rhs):
            return PASS
        return _combine(self.func_params_check(lhs.params, rhs.params), self.check(lhs.ret, rhs.ret))

    # -- customisation points -----------------------------------------------------------------
    def prim_value_match(self, lhs: P.PrimExpr, rhs: P.PrimExpr) -> BaseCheckResult:
        if _is_int_imm(lhs) and _is_int_imm(rhs):
            return PASS if lhs.value == rhs.value else L0
        if lhs == rhs or self.analyzer.can_prove_equal(lhs, rhs):
            return PASS
        return L2

    def shape_match_values(self, lhs: Sequence[P.PrimExpr], rhs: Sequence[P.PrimExpr]) -> BaseCheckResult:
        return _fieldwise(lhs, rhs, self.prim_value_match)

    def shape_match_exprs(self, lhs: rx.Expr, rhs: rx.Expr) -> BaseCheckResult:
        if lhs is rhs:
            return PASS
        if isinstance(lhs, rx.ShapeExpr) and isinstance(rhs, rx.ShapeExpr):
            return self.shape_match_values(lhs.values, rhs.values)
        return L2

    def func_params_check(self, lhs: Sequence[StructInfo], rhs: Sequence[StructInfo]) -> BaseCheckResult:
        res = self._array(lhs, rhs)
        return L2 if res == L1 else res  # (SI.BASE.7): parameter L1 failures are only L2

    def _array(self, lhs: Sequence[StructInfo], rhs: Sequence[StructInfo]) -> BaseCheckResult:
        return _fieldwise(lhs, rhs, self.check)  # (SI.BASE.6)


def struct_info_base_check(base: StructInfo, derived: StructInfo, analyzer=None) -> BaseCheckResult:
    """TVM's ``StructInfoBaseCheck(base, derived)`` (SI.BASE.1-SI.BASE.8)."""
    return _BaseChecker(_analyzer(analyzer)).check(base, derived)


def is_base_of(base: StructInfo, derived: StructInfo, analyzer=None) -> bool:
    """``base`` provably contains ``derived``: the base check passes (SI.BASE.8)."""
    return struct_info_base_check(base, derived, analyzer) == PASS


# ---------------------------------------------------------------------------------------------------
# Call argument checking with binding of the callee's symbolic variables (SI.CALL.*)
# ---------------------------------------------------------------------------------------------------


class BindingBaseChecker(_BaseChecker):
    """The base check used for call arguments (SI.CALL.2): a *bare* symbolic variable of the
    parameter (or a shape-typed Relax var used as a tensor shape) is bound to the argument's
    expression at its first occurrence; later occurrences must be provably equal (else L2).
    Composite parameter expressions (``n + 1``) are not solved. Inside function-typed parameters
    nothing is bound. There is no identity fast path, so every pair is visited."""

    fast_path = False

    def __init__(self, analyzer) -> None:
        super().__init__(analyzer)
        self.populate = True
        self.shape_var_map: Dict[P.PrimVar, P.PrimExpr] = {}
        self.var_map: Dict[rx.Var, rx.Expr] = {}

    def prim_value_match(self, lhs, rhs):
        if not self.populate or not isinstance(lhs, P.PrimVar):
            return super().prim_value_match(lhs, rhs)
        bound = self.shape_var_map.get(lhs)
        if bound is None:
            self.shape_var_map[lhs] = rhs
            return PASS
        if bound == rhs or self.analyzer.can_prove_equal(bound, rhs):
            return PASS
        return L2

    def shape_match_exprs(self, lhs, rhs):
        if not self.populate:
            return super().shape_match_exprs(lhs, rhs)
        if isinstance(lhs, rx.Var):
            bound = self.var_map.get(lhs)
            if bound is None:
                self.var_map[lhs] = rhs
                return PASS
            return PASS if can_prove_shape_equal(bound, rhs, self.analyzer) else L2
        if not isinstance(rhs, rx.ShapeExpr):
            return L2
        return self.shape_match_values(lhs.values, rhs.values)

    def func_params_check(self, lhs, rhs):
        saved, self.populate = self.populate, False
        try:
            return super().func_params_check(lhs, rhs)
        finally:
            self.populate = saved


#: derive functions of opaque ``FuncStructInfo`` by name: ``fn(call, ctx) -> StructInfo`` (SI.FUNC.3)
DERIVE_FUNCS: Dict[str, Callable] = {}


def infer_by_sinfo_args(call: rx.Call, ctx=None) -> StructInfo:
    """``tvm.relax.struct_info.infer_by_sinfo_args``: no sinfo_args -> ``R.Object``, one -> it,
    several -> a tuple of them (SI.FUNC.3)."""
    if not call.sinfo_args:
        return ObjectStructInfo()
    if len(call.sinfo_args) == 1:
        return call.sinfo_args[0]
    return TupleStructInfo(tuple(call.sinfo_args))


DERIVE_FUNCS[INFER_BY_SINFO_ARGS] = infer_by_sinfo_args


def apply_derive_func(name: str, call: rx.Call, ctx) -> StructInfo:
    fn = DERIVE_FUNCS.get(name)
    if fn is None:
        raise UnsupportedError(f"unknown struct-info derive function '{name}'", call.span)
    return fn(call, ctx)


def derive_ret_from_arg_sinfos(func_sinfo: FuncStructInfo, arg_sinfos: Sequence[StructInfo], analyzer,
                               *, callee_name: str = "callee", arg_spans: Sequence = (), span=None,
                               ctx=None) -> StructInfo:
    """Core of :func:`derive_call_ret_struct_info` for a non-opaque signature (SI.CALL.1-4)."""
    params = func_sinfo.params
    if len(params) != len(arg_sinfos):
        err = StructInfoError(
            f"Number of arguments and parameters mismatch: {callee_name} "
            f"({format_struct_info(func_sinfo)}) takes {len(params)} parameters but is called with "
            f"{len(arg_sinfos)} arguments", span)
        if ctx is not None:
            err.with_context(binding=ctx.binding, function=ctx.function)
        raise err
    checker = BindingBaseChecker(analyzer)
    for i, (p, a) in enumerate(zip(params, arg_sinfos)):
        res = checker.check(p, a)
        if res in (L0, L1):
            aspan = arg_spans[i] if i < len(arg_spans) and arg_spans[i] is not None else span
            err = StructInfoError(
                f"Argument {i} type mismatch: expected {format_struct_info(p)}, given "
                f"{format_struct_info(a)}", aspan)
            if ctx is not None:
                err.with_context(binding=ctx.binding, function=ctx.function)
            raise err
    return erase_to_well_defined(func_sinfo.ret, checker.shape_var_map, checker.var_map, analyzer)


def derive_call_ret_struct_info(func_sinfo: FuncStructInfo, call: rx.Call, ctx) -> StructInfo:
    """The struct info of ``call`` whose callee has ``func_sinfo`` (SI.CALL.1-SI.CALL.5).

    Opaque callees use their derive function, else their ``ret``. Otherwise the argument count must
    match, each argument is checked against its parameter with :class:`BindingBaseChecker` (L0 and
    L1 are errors "Argument i type mismatch", L2 is accepted), and the result is the return struct
    info with the callee's symbolic variables replaced by the caller's expressions and everything
    else erased. ``ctx`` is an :class:`~relax_ref.analysis.context.InferContext`."""
    if func_sinfo.params is None:
        if func_sinfo.derive_func is not None:
            return apply_derive_func(func_sinfo.derive_func, call, ctx)
        return func_sinfo.ret
    for a in call.args:
        if a.struct_info is None:
            raise StructInfoError("derive_call_ret_struct_info needs normalized arguments", a.span or call.span)
    name = getattr(call.op, "name_hint", None) or type(call.op).__name__
    # a Var argument's span is its definition site, so only other arguments locate the error
    arg_spans = [None if isinstance(a, rx.Var) else a.span for a in call.args]
    return derive_ret_from_arg_sinfos(
        func_sinfo, [a.struct_info for a in call.args], ctx.analyzer, callee_name=name,
        arg_spans=arg_spans, span=call.span or getattr(ctx, "span", None), ctx=ctx)


# ---------------------------------------------------------------------------------------------------
# LCA (SI.LCA.*)
# ---------------------------------------------------------------------------------------------------


class _LCAFinder(_PairRule):
    def lca(self, lhs: StructInfo, rhs: StructInfo) -> StructInfo:
        if lhs is rhs or lhs == rhs:
            return lhs
        if isinstance(lhs, ObjectStructInfo):
            return lhs
        if type(rhs) is not type(lhs):
            return ObjectStructInfo()  # (SI.LCA.1)
        return self._same_kind(lhs, rhs)

    def _tuple(self, lhs: TupleStructInfo, rhs: TupleStructInfo) -> StructInfo:
        fields = self._array(lhs.fields, rhs.fields)
        if fields is None:
            return ObjectStructInfo()
        if all(a is b for a, b in zip(fields, lhs.fields)):
            return lhs
        return TupleStructInfo(fields)  # (SI.LCA.5)

    def _prim(self, lhs: PrimStructInfo, rhs: PrimStructInfo) -> StructInfo:
        # (SI.LCA.2)
        if lhs.dtype != rhs.dtype:
            return ObjectStructInfo()
        if lhs.value is None or rhs.value is None or not (
                lhs.value == rhs.value or self.analyzer.can_prove_equal(lhs.value, rhs.value)):
            return lhs if lhs.value is None else PrimStructInfo(lhs.dtype)
        return lhs

    def _shape(self, lhs: ShapeStructInfo, rhs: ShapeStructInfo) -> StructInfo:
        # (SI.LCA.3)
        ndim = lhs.ndim if lhs.ndim == rhs.ndim else -1
        if (lhs.ndim != rhs.ndim or lhs.values is None or rhs.values is None
                or not can_prove_shape_equal(lhs.values, rhs.values, self.analyzer)):
            if lhs.values is None and lhs.ndim == ndim:
                return lhs
            return ShapeStructInfo(ndim=ndim)
        return lhs

    def _tensor(self, lhs: TensorStructInfo, rhs: TensorStructInfo) -> StructInfo:
        # (SI.LCA.4; DIST.SI.5: DTensors of one mesh and placement join as their tensors, others at Object)
        if isinstance(lhs, DTensorStructInfo):
            if (lhs.device_mesh, lhs.placement) != (rhs.device_mesh, rhs.placement):
                return ObjectStructInfo()
            t = self._tensor(lhs.tensor, rhs.tensor)
            return DTensorStructInfo.of(t, lhs.device_mesh, lhs.placement)
        dtype = lhs.dtype if lhs.dtype == rhs.dtype else VOID
        ndim = lhs.ndim if lhs.ndim == rhs.ndim else -1
        vdev = lhs.vdevice if (lhs.vdevice is not None and rhs.vdevice is not None
                               and lhs.vdevice == rhs.vdevice) else None
        if (lhs.ndim != rhs.ndim or lhs.shape is None or rhs.shape is None
                or not can_prove_shape_equal(lhs.shape, rhs.shape, self.analyzer)):
            if lhs.shape is None and lhs.dtype == dtype and lhs.ndim == ndim and (
                    lhs.vdevice is None or vdev is not None):
                return lhs
            return TensorStructInfo(None, dtype, ndim, vdev)
        if lhs.dtype != dtype or (lhs.vdevice is not None and vdev is None):
            return TensorStructInfo(lhs.shape, dtype, vdevice=vdev)
        return lhs

    def _func(self, lhs: FuncStructInfo, rhs: FuncStructInfo) -> StructInfo:
        # (SI.LCA.6) the result is pure only if both are. Deviation: TVM 0.25 returns ``lhs``
        # unchanged when the signatures unify to it, so LCA(pure, impure) is pure there (unsound).
        purity = lhs.purity and rhs.purity

        def keep(f: FuncStructInfo) -> FuncStructInfo:
            return f if f.purity == purity else FuncStructInfo(f.params, f.ret, purity, f.derive_func)

        if lhs.params is None:
            if lhs.derive_func is not None:
                if lhs.derive_func == rhs.derive_func:
                    return keep(lhs)
                return FuncStructInfo.opaque(ObjectStructInfo(), purity)
            ret = self.lca(lhs.ret, rhs.ret)
            if ret is lhs.ret:
                return keep(lhs)
            return FuncStructInfo.opaque(ret, purity)
        if rhs.params is None:
            return FuncStructInfo.opaque(self.lca(lhs.ret, rhs.ret), purity)
        if struct_info_alpha_equal(lhs, rhs):
            return lhs
        params = self._array(lhs.params, rhs.params)
        ret = self.lca(lhs.ret, rhs.ret)
        if params is not None and all(a is b for a, b in zip(params, lhs.params)) and ret is lhs.ret:
            return keep(lhs)
        if params is None:
            return FuncStructInfo.opaque(ret, purity)
        return FuncStructInfo(params, ret, purity)

    def _array(self, lhs, rhs) -> Optional[Tuple[StructInfo, ...]]:
        if lhs is rhs:
            return tuple(lhs)
        if len(lhs) != len(rhs):
            return None
        return tuple(self.lca(a, b) for a, b in zip(lhs, rhs))


def struct_info_lca(a: StructInfo, b: StructInfo, analyzer=None) -> StructInfo:
    """The least common ancestor of two struct infos, as TVM's ``StructInfoLCA`` (SI.LCA.1-7)."""
    return _LCAFinder(_analyzer(analyzer)).lca(a, b)


# ---------------------------------------------------------------------------------------------------
# EraseToWellDefined (SI.ERASE.*)
# ---------------------------------------------------------------------------------------------------

SymScope = Union[None, Mapping[P.PrimVar, P.PrimExpr], Iterable[P.PrimVar]]
VarScope = Union[None, Mapping[rx.Var, rx.Expr], Iterable[rx.Var]]


def _as_map(scope) -> dict:
    if scope is None:
        return {}
    if isinstance(scope, Mapping):
        return dict(scope)
    return {v: v for v in scope}


class _Undefined(Exception):
    pass


class _Eraser:
    def __init__(self, sym_map: dict, var_map: dict, analyzer) -> None:
        self.sym_map = sym_map
        self.var_map = var_map
        self.analyzer = analyzer

    def prim(self, e: P.PrimExpr) -> P.PrimExpr:
        """Substitute in-scope variables; raise _Undefined on an out-of-scope one."""
        vs = prim_vars_in(e)
        if not vs:
            return e
        sub = {}
        for v in vs:
            if v not in self.sym_map:
                raise _Undefined()
            r = self.sym_map[v]
            if r is not v:
                if isinstance(r, int):
                    r = P.IntImm(r, "int64")
                elif isinstance(r, P.IntImm) and r.dtype != "int64":
                    r = P.IntImm(r.value, "int64")
                sub[v] = r
        if not sub:
            return e
        from ..ir.functor import substitute_prim

        return self.analyzer.simplify(substitute_prim(e, sub))  # (SI.ERASE.2)

    def visit(self, si: StructInfo) -> StructInfo:
        if isinstance(si, PrimStructInfo):
            if si.value is None:
                return si
            try:
                v = self.prim(si.value)
            except _Undefined:
                return PrimStructInfo(si.dtype)
            return si if v is si.value else PrimStructInfo(si.dtype, v)
        if isinstance(si, ShapeStructInfo):
            if si.values is None:
                return si
            try:
                vals = tuple(self.prim(v) for v in si.values)
            except _Undefined:
                return ShapeStructInfo(ndim=si.ndim)
            if all(a is b for a, b in zip(vals, si.values)):
                return si
            return ShapeStructInfo(vals)
        if isinstance(si, TensorStructInfo):
            if si.shape is None:
                return si
            try:
                shape = self.shape(si.shape)
            except _Undefined:
                if isinstance(si, DTensorStructInfo):
                    return DTensorStructInfo(None, si.dtype, si.ndim, si.vdevice, si.device_mesh, si.placement)
                return TensorStructInfo(None, si.dtype, si.ndim, si.vdevice)
            if shape is si.shape:
                return si
            if isinstance(si, DTensorStructInfo):
                return DTensorStructInfo(shape, si.dtype, -1, si.vdevice, si.device_mesh, si.placement)
            return TensorStructInfo(shape, si.dtype, vdevice=si.vdevice)
        if isinstance(si, TupleStructInfo):
            fs = tuple(self.visit(f) for f in si.fields)
            if all(a is b for a, b in zip(fs, si.fields)):
                return si
            return TupleStructInfo(fs)
        # (SI.ERASE.3): function struct info is always well-defined; Object has nothing to erase
        return si

    def shape(self, shape: rx.Expr) -> rx.Expr:
        if isinstance(shape, rx.ShapeExpr):
            vals = tuple(self.prim(v) for v in shape.values)
            if all(a is b for a, b in zip(vals, shape.values)):
                return shape
            return rx.ShapeExpr(vals, span=shape.span)
        if isinstance(shape, rx.Var):
            if shape not in self.var_map:  # (SI.ERASE.4)
                raise _Undefined()
            return self.var_map[shape]
        raise _Undefined()


def erase_to_well_defined(si: StructInfo, sym_vars_in_scope: SymScope = None,
                          relax_vars_in_scope: VarScope = None, analyzer=None) -> StructInfo:
    """Drop the parts of ``si`` that mention variables not in scope (SI.ERASE.1).

    ``sym_vars_in_scope`` / ``relax_vars_in_scope`` are either collections of the variables in
    scope or mappings ``var -> replacement`` (symbolic variables to int64 expressions, shape-typed
    Relax vars to a ``ShapeExpr`` or ``Var``). ``None`` means nothing is in scope. A prim value,
    shape value list or tensor shape mentioning an out-of-scope variable is replaced by its
    dtype/ndim-only form; substituted expressions are simplified (SI.ERASE.2). Function struct info
    is returned unchanged (SI.ERASE.3)."""
    return _Eraser(_as_map(sym_vars_in_scope), _as_map(relax_vars_in_scope), _analyzer(analyzer)).visit(si)


# ---------------------------------------------------------------------------------------------------
# Symbolic variables in struct info (SI.SYM.*)
# ---------------------------------------------------------------------------------------------------


__all__ = [
    "BaseCheckResult", "format_struct_info", "erase_to_static_type", "static_type",
    "struct_info_alpha_equal", "can_prove_shape_equal", "struct_info_base_check", "is_base_of",
    "BindingBaseChecker", "DERIVE_FUNCS", "INFER_BY_SINFO_ARGS", "infer_by_sinfo_args",
    "apply_derive_func", "derive_ret_from_arg_sinfos", "derive_call_ret_struct_info", "struct_info_lca",
    "erase_to_well_defined", "definable_sym_vars", "sym_vars_in_struct_info", "signature_sym_vars",
]

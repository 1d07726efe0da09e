"""Struct info that needs no normalizer state (NORM.INFER.1-3, NORM.FUNC.1): of a leaf, of a call whose
callee and arguments carry struct info (the operator's ``infer`` or the callee's function struct
info), of what an operator alone infers for a call, and of a function from its body.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..analysis.context import InferContext, make_analyzer
from ..analysis.signatures import extern_func_struct_info
from ..analysis.struct_info_ops import (
    derive_call_ret_struct_info, erase_to_well_defined, format_struct_info, is_base_of, signature_sym_vars,
)
from ..errors import RelaxError, StructInfoError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.module import IRModule
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo,
)
from ..ops import registry


def constant_struct_info(c: rx.Constant) -> TensorStructInfo:
    """``R.Tensor(shape, dtype)`` of a constant (NORM.INFER.3)."""
    return TensorStructInfo(rx.ShapeExpr(tuple(P.IntImm(int(d), "int64") for d in c.data.shape)), c.dtype)


def leaf_struct_info(e: rx.Expr) -> Optional[StructInfo]:
    """Struct info of a leaf that does not depend on context (NORM.INFER.3); None for Var,
    GlobalVar and Op."""
    if isinstance(e, rx.Constant):
        return constant_struct_info(e)
    if isinstance(e, rx.ShapeExpr):
        return ShapeStructInfo(e.values)
    if isinstance(e, rx.PrimValue):
        return PrimStructInfo(e.value.dtype, e.value)
    if isinstance(e, (rx.StringImm, rx.DataTypeImm)):
        return ObjectStructInfo()
    if isinstance(e, rx.ExternFunc):
        return extern_func_struct_info()
    return None


def _check_static_sizes(s: StructInfo, call: rx.Call) -> None:
    """RUNTIME.LIMIT.1: a constant size an operator infers is never negative -- a
    negative one is an int64 overflow of the operator's size arithmetic."""
    values = None
    if isinstance(s, TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
        values = s.shape.values
    elif isinstance(s, ShapeStructInfo) and s.values is not None:
        values = s.values
    elif isinstance(s, TupleStructInfo):
        for f in s.fields:
            _check_static_sizes(f, call)
        return
    for v in values or ():
        if isinstance(v, P.IntImm) and v.value < 0:
            raise StructInfoError(f"{call.op.name}: an inferred size is {v.value}: the size overflows int64 "
                                  "(RUNTIME.LIMIT.1)", call.span)


def infer_call_struct_info(call: rx.Call, ctx: InferContext) -> StructInfo:
    """Struct info of a call whose callee and arguments carry struct info (NORM.INFER.1-2): the
    operator's ``infer`` for ``Op`` callees, :func:`derive_call_ret_struct_info` otherwise."""
    if isinstance(call.op, rx.Op):
        try:
            opdef = registry.get(call.op.name)
        except RelaxError as err:
            raise StructInfoError(err.message, call.span) from None
        if opdef.infer is None:
            raise UnsupportedError(f"operator {call.op.name} has no struct-info inference", call.span)
        si = opdef.infer(call, ctx)
        if not isinstance(si, StructInfo):
            raise StructInfoError(f"internal: inference of {call.op.name} returned {si!r}", call.span)
        _check_static_sizes(si, call)
        return si
    fsi = call.op.struct_info
    if fsi is None and isinstance(call.op, rx.ExternFunc):
        fsi = extern_func_struct_info()
    if not isinstance(fsi, FuncStructInfo):
        raise StructInfoError(
            f"the callee of a call must have function struct info, but it has "
            f"{format_struct_info(fsi)}", call.span)
    return derive_call_ret_struct_info(fsi, call, ctx)


def operator_struct_info(call: rx.Call, module: Optional[IRModule] = None) -> Optional[StructInfo]:
    """What the operator itself infers for ``call`` (NORM.INFER.1) with only the module as context:
    an evaluator compares results with it, since an annotation on the binding may be less precise than
    the call (or wrong, which the run-time result check reports, EVAL.CALL.3). None for a call that is
    not an operator call without ``sinfo_args``, and when the inference needs more than the module
    (it then raises a RelaxError)."""
    if not isinstance(call.op, rx.Op) or call.sinfo_args:
        return None
    opdef = registry.lookup(call.op.name)
    if opdef is None or opdef.infer is None:
        return None
    try:
        sinfo = opdef.infer(call, InferContext(make_analyzer(), module))
    except RelaxError:
        return None
    return sinfo if isinstance(sinfo, StructInfo) else None


def function_return_struct_info(params: Sequence[rx.Var], body_sinfo: StructInfo,
                                declared: Optional[StructInfo], analyzer=None) -> StructInfo:
    """TVM's Function constructor rule (NORM.FUNC.1): the body's struct info, erased to the symbolic
    variables definable from the parameters, when ``declared`` is None or a base of it; otherwise
    ``declared``."""
    if declared is None or is_base_of(declared, body_sinfo, analyzer):
        defs = signature_sym_vars(p.struct_info for p in params)
        return erase_to_well_defined(body_sinfo, defs, None, analyzer)
    return declared

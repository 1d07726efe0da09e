"""Struct info that needs no normalizer state (NORM.INFER.1-3, NORM.FUNC.1): of a leaf, of a call whose
callee and arguments carry struct info (the operator's ``infer`` or the callee's function struct
info), of what an operator alone infers for a call, and of a function from its body.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..analysis.context import InferContext, make_analyzer
from ..analysis.signatures import extern_func_struct_info
from ..analysis.struct_info_ops import (
    derive_call_ret_struct_info, erase_to_well_defined, format_struct_info, is_base_of, signature_sym_vars,
)
from ..errors import OpRuntimeError, RelaxError, StructInfoError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.module import IRModule
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo,
)
from ..ops import registry
from ..ops.dist_infer import has_dtensor_args, infer_on_dtensors


def _DIST_AWARE(name: str) -> bool:
    """Operators whose own inference handles DTensors: the dist and ccl families and call_tir."""
    return name.startswith(("relax.dist.", "relax.ccl.")) or name == "relax.call_tir"


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
        if has_dtensor_args(call) and not _DIST_AWARE(call.op.name):
            si = infer_on_dtensors(call, ctx, si)     # DIST.OP.1-5
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


#: argument nodes an operator's inference reads only through their struct info or their (structurally
#: compared) value
_KEYED_ARGS = (rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm)


def inference_key(call: rx.Call) -> Optional[Tuple[Any, ...]]:
    """What an operator's own struct info for ``call`` depends on (NORM.INFER.1): the operator, its
    attributes (values tagged with their types: ``1`` and ``1.0`` differ) and the struct info of each
    variable argument or the value of a shape, prim value, string or dtype argument; None for a
    call with other arguments or ``sinfo_args``, or with something unhashable."""
    if not isinstance(call.op, rx.Op) or call.sinfo_args:
        return None
    parts = _arg_keys(call.args)
    if parts is None:
        return None
    key = (call.op.name, _tagged(tuple(call.attrs.items())), parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _arg_keys(args: Sequence[Any]) -> Optional[Tuple[Any, ...]]:
    """The key parts of ``args``: a variable by its struct info, a shape, prim value, string or dtype
    by its value, a tuple literal (``concat``'s tensors, ``strided_slice``'s axes) by its fields'
    parts; None for anything else."""
    parts: List[Any] = []
    for a in args:
        if isinstance(a, rx.Var):
            parts.append((0, a.struct_info))
        elif isinstance(a, _KEYED_ARGS):
            parts.append((type(a), a))
        elif isinstance(a, rx.Tuple):
            fields = _arg_keys(a.fields)
            if fields is None:
                return None
            parts.append((rx.Tuple, fields))
        else:
            return None
    return tuple(parts)


def _tagged(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_tagged(x) for x in v)
    return (type(v), v)


def underspecified_tensor_args(call: rx.Call) -> Tuple[int, ...]:
    """Indices of the tensor arguments of an operator call whose struct info leaves the rank or the
    dtype open (``R.Tensor``, ``R.Tensor(ndim=2)``): the operator's inference could not check them."""
    hit = _LOOSE.get(id(call))
    if hit is not None and hit[0] is call:
        return hit[1]
    out = []
    if isinstance(call.op, rx.Op):
        for i, a in enumerate(call.args):
            if _loose(a.struct_info):
                out.append(i)
    if len(_LOOSE) > 100000:
        _LOOSE.clear()
    _LOOSE[id(call)] = (call, tuple(out))
    return tuple(out)


def _loose(s: Any) -> bool:
    """A tensor struct info with an open rank or dtype, or a tuple holding one."""
    if isinstance(s, TensorStructInfo):
        return s.ndim == -1 or s.dtype == "void"
    return isinstance(s, TupleStructInfo) and any(_loose(f) for f in s.fields)


def actual_struct_info(values: Sequence[Any], of_tensor: Callable[[Any], Optional[StructInfo]]) -> Dict[int, StructInfo]:
    """OP.SEM.6: index -> the struct info of the actual value of each argument that is a tensor
    (``of_tensor``, the evaluator's) or a tuple of them (a ``TupleStructInfo`` of its fields'), for
    :func:`check_inference_on_values`. Shared by the evaluators."""
    def one(v: Any) -> Optional[StructInfo]:
        s = of_tensor(v)
        if s is not None or type(v) is not tuple:
            return s
        fields = [one(x) for x in v]
        return None if any(f is None for f in fields) else TupleStructInfo(tuple(fields))
    out = {}
    for i, v in enumerate(values):
        s = one(v)
        if s is not None:
            out[i] = s
    return out


#: call id -> (call, under-specified argument indices)
_LOOSE: Dict[int, Tuple[rx.Call, Tuple[int, ...]]] = {}


def check_loose_call(call: rx.Call, run_check, actual: Dict[int, StructInfo], module: Optional[IRModule] = None) -> None:
    """For a call with under-specified tensor arguments: the operator's run-time check
    (``run_check()``), then :func:`check_inference_on_values`. A check that fails with something
    other than a RelaxError met operands its inference would have rejected (a rank it assumes): the
    inference's error is raised instead (OP.SEM.6)."""
    try:
        run_check()
    except RelaxError:
        raise
    except Exception:   # noqa: BLE001 - the check assumed what inference establishes
        check_inference_on_values(call, actual, module)
        raise
    check_inference_on_values(call, actual, module)


def check_inference_on_values(call: rx.Call, actual: Dict[int, StructInfo], module: Optional[IRModule] = None) -> None:
    """OP.SEM.6: the operator's inference rules (ranks, dtypes, attributes against shapes) applied at
    run time, for a call with arguments under-specified statically (:func:`underspecified_tensor_args`),
    to the struct info of the actual values of its tensor arguments ``actual`` (index -> struct info;
    every tensor argument, so that a symbolic size of one meets the value of another, not a variable
    the probe cannot resolve). A rule that fails is an OpRuntimeError with the inference's message."""
    opdef = registry.lookup(call.op.name)
    if opdef is None or opdef.infer is None or not actual:
        return
    args = tuple(rx.Var(f"arg{i}", struct_info=actual[i]) if i in actual else a for i, a in enumerate(call.args))
    probe = rx.Call(call.op, args, call.attrs, call.sinfo_args, span=call.span)
    try:
        opdef.infer(probe, InferContext(make_analyzer(), module))
    except RelaxError as err:
        if isinstance(err, (StructInfoError, UnsupportedError)):
            raise OpRuntimeError(err.message, call.span) from None
        raise


def function_return_struct_info(params: Sequence[rx.Var], body_sinfo: StructInfo,
                                declared: Optional[StructInfo], analyzer=None) -> StructInfo:
    """TVM's Function constructor rule (NORM.FUNC.1): the body's struct info, erased to the symbolic
    variables definable from the parameters, when ``declared`` is None or a base of it; otherwise
    ``declared``."""
    if declared is None or is_base_of(declared, body_sinfo, analyzer):
        defs = signature_sym_vars(p.struct_info for p in params)
        return erase_to_well_defined(body_sinfo, defs, None, analyzer)
    return declared

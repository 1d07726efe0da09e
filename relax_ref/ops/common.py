"""Shared struct-info inference helpers for every operator category (spec NORM.OP.*).

Operator ``infer(call, ctx)`` functions receive a normalized :class:`~relax_ref.ir.Call` (every argument
has struct info) and an inference context with at least ``ctx.analyzer`` (an arithmetic analyzer with
``can_prove_equal``), ``ctx.module`` and ``ctx.span``. The helpers here implement TVM 0.25's common
inference rules (``src/relax/op/op_common.{h,cc}``, ``tensor/binary.cc``) so that each category only
writes what is specific to it. Every failure raises :class:`~relax_ref.errors.StructInfoError` with
the call's span (TVM raises ``TypeError`` / ``ValueError`` at the same places).

Arguments and counts
    :func:`check_num_args`, :func:`arg_sinfo`, :func:`tensor_arg`, :func:`tensor_args`,
    :func:`prim_value_arg`, :func:`tuple_of_tensors_arg`
Dtypes (NORM.OP.DTYPE)
    :func:`is_float_dtype` (TVM's ``is_float``: float16/bfloat16/float32/float64, *not* float8),
    :func:`require_float`, :func:`binary_arith_dtype` (same dtype required; void wins; a bool operand
    makes the result the LHS dtype), :func:`same_dtype`
Shapes and broadcasting (NORM.OP.BCAST)
    :func:`shape_of` (dims of a tensor or prim operand), :func:`prove_equal`,
    :func:`broadcast_shapes` (tri-state result), :func:`broadcast_shapes_or_error`,
    :func:`shape_product`
Axes (NORM.OP.AXIS)
    :func:`normalize_axis`, :func:`normalize_axes`
Virtual devices
    :func:`binary_vdevice`, :func:`common_vdevice`
Whole rules
    :func:`infer_unary` (elementwise unary: same struct info, optional float check and output dtype),
    :func:`infer_binary_broadcast` (tensor/prim operands, TVM's ``InferStructInfoBroadcast``)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import StructInfoError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import (
    PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo, VDevice,
)

# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------


def op_name(call: rx.Call) -> str:
    """``relax.add`` for an operator call (for messages)."""
    op = call.op
    return op.name if isinstance(op, rx.Op) else type(op).__name__


def error(call: rx.Call, message: str, ctx: Any = None) -> StructInfoError:
    """A StructInfoError ``In relax.xxx, <message>`` carrying the call's span (or ``ctx.span``) and,
    when the context knows them, the binding and function names."""
    text = f"In {op_name(call)}, {message}"
    make = getattr(ctx, "error", None)
    err = make(text) if callable(make) else StructInfoError(text)
    return err.with_span(call.span if call.span is not None else getattr(ctx, "span", None))


def describe_sinfo(s: Optional[StructInfo]) -> str:
    """A short rendering of struct info for messages (independent of the printer)."""
    if s is None:
        return "<none>"
    if isinstance(s, TensorStructInfo):
        vals = s.shape_values
        if vals is not None:
            dims = ", ".join(str(v) for v in vals)
            return f"R.Tensor(({dims}{',' if len(vals) == 1 else ''}), {s.dtype!r})"
        return f"R.Tensor({s.dtype!r}, ndim={s.ndim})"
    if isinstance(s, PrimStructInfo):
        return f"R.Prim({s.dtype!r})" if s.value is None else f"R.Prim(value={s.value})"
    if isinstance(s, ShapeStructInfo):
        return f"R.Shape(ndim={s.ndim})" if s.values is None else f"R.Shape([{', '.join(map(str, s.values))}])"
    if isinstance(s, TupleStructInfo):
        return "R.Tuple(" + ", ".join(describe_sinfo(f) for f in s.fields) + ")"
    return "R." + type(s).__name__.replace("StructInfo", "")


# ---------------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------------


def check_num_args(call: rx.Call, n: int, ctx: Any = None) -> None:
    """The call must have exactly ``n`` arguments."""
    if len(call.args) != n:
        raise error(call, f"the operator expects {n} arguments, but was called with {len(call.args)}", ctx)


def arg_sinfo(call: rx.Call, i: int, ctx: Any = None) -> StructInfo:
    """The struct info of argument ``i`` (which must have been normalized)."""
    if i >= len(call.args):
        raise error(call, f"missing argument {i}", ctx)
    s = call.args[i].struct_info
    if s is None:
        raise error(call, f"argument {i} has no struct info (the call is not normalized)", ctx)
    return s


def tensor_arg(call: rx.Call, i: int, ctx: Any = None, name: Optional[str] = None) -> TensorStructInfo:
    """The TensorStructInfo of argument ``i``; StructInfoError if it is not a tensor."""
    s = arg_sinfo(call, i, ctx)
    if not isinstance(s, TensorStructInfo):
        what = f"argument {i}" + (f" ({name})" if name else "")
        raise error(call, f"{what} must be a tensor, but it has struct info {describe_sinfo(s)}", ctx)
    return s


def tensor_args(call: rx.Call, n: int, ctx: Any = None,
                names: Optional[Sequence[str]] = None) -> List[TensorStructInfo]:
    """Check the argument count and that every argument is a tensor (TVM's
    ``GetInputTensorStructInfo``)."""
    check_num_args(call, n, ctx)
    return [tensor_arg(call, i, ctx, names[i] if names else None) for i in range(n)]


def prim_value_arg(call: rx.Call, i: int, ctx: Any = None, name: Optional[str] = None) -> rx.PrimValue:
    """Argument ``i`` must be a ``PrimValue`` literal (as ``clip`` bounds)."""
    a = call.args[i] if i < len(call.args) else None
    if not isinstance(a, rx.PrimValue):
        what = f"argument {i}" + (f" ({name})" if name else "")
        raise error(call, f"{what} must be a PrimValue, got {type(a).__name__}", ctx)
    return a


def prim_arg(call: rx.Call, i: int, ctx: Any = None, name: Optional[str] = None, *,
             integer: bool = False) -> PrimStructInfo:
    """Argument ``i`` must be a prim value (a literal or not) of a numeric dtype -- of an integer or bool
    dtype when ``integer`` -- : an operator's flag, index or scalar passed as an argument, which the
    evaluators read as one number (OP.INFER.3)."""
    from ..ir import dtype as _dt

    s = arg_sinfo(call, i, ctx)
    ok = isinstance(s, PrimStructInfo) and (_dt.is_integer(s.dtype) or _dt.is_bool(s.dtype)
                                            or (not integer and _dt.is_float(s.dtype)))
    if not ok:
        what = f"argument {i}" + (f" ({name})" if name else "")
        kind = "an integer prim value (R.Prim of an integer or bool dtype)" if integer else \
            "a prim value (R.Prim of a numeric dtype)"
        raise error(call, f"{what} must be {kind}, but it has struct info {describe_sinfo(s)}", ctx)
    return s


def tuple_of_tensors_arg(call: rx.Call, i: int, ctx: Any = None) -> List[TensorStructInfo]:
    """Argument ``i`` must be a tuple whose fields are all tensors (concat, stack, ...)."""
    s = arg_sinfo(call, i, ctx)
    if not isinstance(s, TupleStructInfo):
        raise error(call, f"expects a tuple of tensors, but the input has struct info {describe_sinfo(s)}", ctx)
    out = []
    for f in s.fields:
        if not isinstance(f, TensorStructInfo):
            raise error(call, f"expects a tuple of tensors, but the input has struct info {describe_sinfo(s)}",
                        ctx)
        out.append(f)
    return out


# ---------------------------------------------------------------------------------------------------
# Dtypes
# ---------------------------------------------------------------------------------------------------

_TVM_FLOATS = ("float16", "bfloat16", "float32", "float64")


def is_float_dtype(dtype: str) -> bool:
    """TVM's ``DataType::is_float()`` for inference: float16, bfloat16, float32, float64.
    (float8 types are *not* floats for these checks.)"""
    return dtype in _TVM_FLOATS


def require_float(call: rx.Call, sinfo: TensorStructInfo, ctx: Any = None) -> None:
    """NORM.OP.DTYPE.2: a known dtype must be a float; void (unknown) passes."""
    if sinfo.dtype != "void" and not is_float_dtype(sinfo.dtype):
        raise error(call, "the operator requires the input tensor to have float dtype. However, the given "
                          f"input dtype is {sinfo.dtype}", ctx)


def _dtype_of(s: StructInfo) -> str:
    return s.dtype  # TensorStructInfo or PrimStructInfo


def binary_arith_dtype(call: rx.Call, lhs: StructInfo, rhs: StructInfo, ctx: Any = None) -> str:
    """NORM.OP.DTYPE.1 (TVM's ``InferBinaryArithOpOutDtype``): void if either dtype is unknown;
    otherwise the dtypes must be equal, except that when either is ``bool`` the result is the LHS
    dtype (TVM 0.25 quirk: ``add(bool, f32)`` is inferred bool, ``add(f32, bool)`` float32)."""
    a, b = _dtype_of(lhs), _dtype_of(rhs)
    if a == "void" or b == "void":
        return "void"
    if a != b and a != "bool" and b != "bool":
        raise error(call, "binary operators must have the same datatype for both operands. However, the "
                          f"LHS has datatype {a} ({describe_sinfo(lhs)}) and the RHS has datatype {b} "
                          f"({describe_sinfo(rhs)})", ctx)
    return a


def same_dtype(call: rx.Call, sinfos: Sequence[TensorStructInfo], ctx: Any = None, what: str = "") -> str:
    """All known dtypes must be equal; void if any is unknown."""
    dts = [s.dtype for s in sinfos]
    if any(d == "void" for d in dts):
        return "void"
    if len(set(dts)) > 1:
        raise error(call, f"data types {', '.join(dts)} must be equal{(' for ' + what) if what else ''}", ctx)
    return dts[0]


# ---------------------------------------------------------------------------------------------------
# Shapes and broadcasting
# ---------------------------------------------------------------------------------------------------


def shape_of(s: StructInfo) -> Optional[Tuple[P.PrimExpr, ...]]:
    """The dims of a tensor operand when known; a prim operand counts as shape ``[1]`` (TVM 0.25
    quirk, NORM.OP.BCAST.3)."""
    if isinstance(s, PrimStructInfo):
        return (P.IntImm(1, "int64"),)
    if isinstance(s, TensorStructInfo):
        return s.shape_values
    return None


def ndim_of(s: StructInfo) -> int:
    """The rank of a tensor operand (-1 if unknown); a prim operand has rank 1."""
    if isinstance(s, PrimStructInfo):
        return 1
    if isinstance(s, TensorStructInfo):
        return s.ndim
    return -1


def prove_equal(ctx: Any, a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """Whether ``a == b`` provably holds (structural equality first, then ``ctx.analyzer``)."""
    if a == b:
        return True
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm):
        return a.value == b.value
    analyzer = getattr(ctx, "analyzer", None)
    if analyzer is None:
        return False
    return bool(analyzer.can_prove_equal(a, b))


@dataclass(frozen=True)
class BroadcastResult:
    """``status`` is ``"ok"`` (``shape`` set), ``"conflict"`` (``message`` set) or ``"unknown"``."""

    status: str
    shape: Optional[Tuple[P.PrimExpr, ...]] = None
    message: str = ""


def broadcast_shapes(ctx: Any, a: Sequence[P.PrimExpr], b: Sequence[P.PrimExpr]) -> BroadcastResult:
    """NORM.OP.BCAST.1: numpy broadcasting of two symbolic shapes, right-aligned, dim by dim:
    a literal 1 takes the other dim; provably equal dims give the first operand's dim; two distinct
    integer constants conflict; anything else makes the whole result unknown."""
    na, nb = len(a), len(b)
    out: List[P.PrimExpr] = []
    for i in range(1, min(na, nb) + 1):
        d0, d1 = a[na - i], b[nb - i]
        c0 = d0.value if isinstance(d0, P.IntImm) else None
        c1 = d1.value if isinstance(d1, P.IntImm) else None
        if c0 == 1:
            out.append(d1)
        elif c1 == 1:
            out.append(d0)
        elif prove_equal(ctx, d0, d1):
            out.append(d0)
        elif c0 is not None and c1 is not None:
            return BroadcastResult("conflict", message=(
                f"the first input shape at dim {na - i} is {d0} and the second input shape at dim "
                f"{nb - i} is {d1}, which are not broadcastable."))
        else:
            return BroadcastResult("unknown")
    longer = a if na > nb else b
    for i in range(min(na, nb) + 1, max(na, nb) + 1):
        out.append(longer[max(na, nb) - i])
    return BroadcastResult("ok", tuple(reversed(out)))


def broadcast_shapes_or_error(call: rx.Call, ctx: Any, a: Sequence[P.PrimExpr],
                              b: Sequence[P.PrimExpr]) -> Optional[Tuple[P.PrimExpr, ...]]:
    """The broadcast shape, None when unknown, StructInfoError on a provable conflict."""
    r = broadcast_shapes(ctx, a, b)
    if r.status == "conflict":
        raise error(call, r.message, ctx)
    return r.shape


def shape_product(values: Iterable[P.PrimExpr]) -> P.PrimExpr:
    """The product of shape values (int64 ``1`` for none), constants folded."""
    from . import te_ops

    out: P.PrimExpr = P.IntImm(1, "int64")
    for v in values:
        out = te_ops.mul(out, v)
    return out


# ---------------------------------------------------------------------------------------------------
# Axes
# ---------------------------------------------------------------------------------------------------


#: the most dimensions a shape that inference lists out may have (RUNTIME.LIMIT.1): a stated rank is
#: only a number (up to ``2**31 - 1``, SI.TENSOR.1), a listed shape holds one value per dimension
MAX_LISTED_RANK = 1 << 16


def ones_shape(call: rx.Call, ndim: int, dtype: str = "int64", ctx: Any = None) -> rx.ShapeExpr:
    """The shape ``(1,) * ndim`` (a reduction over every axis with ``keepdims``); more than
    :data:`MAX_LISTED_RANK` dimensions is a struct_info error (RUNTIME.LIMIT.1)."""
    if ndim > MAX_LISTED_RANK:
        raise error(call, f"the result's shape would list {ndim} dimensions, more than the {MAX_LISTED_RANK} "
                          "a listed shape may have", ctx)
    return rx.ShapeExpr((P.IntImm(1, dtype),) * ndim)


def reduced_ndim(ndim: int, axis_given: bool, n_axes: int, keepdims: bool) -> int:
    """The rank of a reduction's result (TVM's reduction inference, OP.STAT.C1, OP.argmax.C1): the
    input's with ``keepdims``; 0 when every axis is reduced (no axis given); unknown (-1) with an
    unknown input rank; otherwise ``ndim - n_axes``."""
    if keepdims:
        return ndim
    if not axis_given:
        return 0
    return -1 if ndim == -1 else ndim - n_axes


def normalize_axes(call: rx.Call, ndim: int, axes: Sequence[int], ctx: Any = None) -> List[int]:
    """NORM.OP.AXIS.1: negative axes count from the end; out-of-range and repeated axes are errors.
    ``ndim`` must be known."""
    if ndim < 0:
        raise error(call, "internal: normalize_axes needs a known rank", ctx)
    seen = set()                 # never O(ndim): a stated rank may be up to 2**31 - 1 (SI.TENSOR.1)
    out = []
    for axis in axes:
        a = int(axis)
        if a < -ndim or a >= ndim:
            raise error(call, f"the input axis {a} is out of range. The input tensor has {ndim} dimensions, "
                              f"so axis should be in range [{-ndim}, {ndim}).", ctx)
        if a < 0:
            a += ndim
        if a in seen:
            raise error(call, "the input axes is required to be non-repetitive. However, there are multiple "
                              f"given axes referring to axis {a}", ctx)
        seen.add(a)
        out.append(a)
    return out


def normalize_axis(call: rx.Call, ndim: int, axis: int, ctx: Any = None) -> int:
    return normalize_axes(call, ndim, [axis], ctx)[0]


# ---------------------------------------------------------------------------------------------------
# Virtual devices
# ---------------------------------------------------------------------------------------------------


def binary_vdevice(call: rx.Call, lhs: StructInfo, rhs: StructInfo, ctx: Any = None) -> Optional[VDevice]:
    """TVM's ``InferBinaryArithOpOutVDevice``: the defined one; both defined must be equal."""
    a = lhs.vdevice if isinstance(lhs, TensorStructInfo) else None
    b = rhs.vdevice if isinstance(rhs, TensorStructInfo) else None
    if a is None:
        return b
    if b is None:
        return a
    if a != b:
        raise error(call, f"VDevice {a} and {b} must be equal for binary operators", ctx)
    return a


def common_vdevice(sinfos: Sequence[TensorStructInfo]) -> Optional[VDevice]:
    """The first defined vdevice, or None when two defined ones differ (ternary ops)."""
    found: Optional[VDevice] = None
    for s in sinfos:
        if s.vdevice is not None:
            if found is None:
                found = s.vdevice
            elif s.vdevice != found:
                return None
    return found


# ---------------------------------------------------------------------------------------------------
# Whole inference rules
# ---------------------------------------------------------------------------------------------------


def infer_unary(call: rx.Call, ctx: Any = None, *, require_float_dtype: bool = False,
                out_dtype: Optional[str] = None) -> TensorStructInfo:
    """NORM.OP.UNARY.1: one tensor argument; the result keeps its shape (ShapeExpr or shape var),
    ndim and vdevice, with ``out_dtype`` (default: the input dtype)."""
    x = tensor_args(call, 1, ctx)[0]
    if require_float_dtype:
        require_float(call, x, ctx)
    dtype = x.dtype if out_dtype is None else out_dtype
    if dtype == x.dtype:
        return x
    return TensorStructInfo(x.shape, dtype, x.ndim if x.shape is None else -1, x.vdevice)


def infer_binary_broadcast(call: rx.Call, ctx: Any = None, *,
                           out_dtype: Optional[str] = None) -> StructInfo:
    """NORM.OP.BCAST.2 (TVM's ``InferStructInfoBroadcast``). Operands are tensors or prim values.

    * dtype: ``out_dtype`` when given (comparisons: ``"bool"``, no dtype check), else
      :func:`binary_arith_dtype`;
    * two prim operands give ``R.Prim(dtype)``;
    * known shapes broadcast (:func:`broadcast_shapes`; a prim operand is shape ``[1]``); a provable
      conflict is an error;
    * otherwise, two tensors with the *same* shape variable keep it; else the result has unknown
      shape and ndim ``max`` (or -1 if either is unknown).
    """
    check_num_args(call, 2, ctx)
    lhs, rhs = arg_sinfo(call, 0, ctx), arg_sinfo(call, 1, ctx)
    for side, s in (("LHS", lhs), ("RHS", rhs)):
        if not isinstance(s, (TensorStructInfo, PrimStructInfo)):
            raise error(call, f"arguments to binary operators must be either R.Tensor or R.Prim types, but "
                              f"the {side} has struct info {describe_sinfo(s)}", ctx)
    dtype = binary_arith_dtype(call, lhs, rhs, ctx) if out_dtype is None else out_dtype
    if isinstance(lhs, PrimStructInfo) and isinstance(rhs, PrimStructInfo):
        return PrimStructInfo(dtype)
    vdev = binary_vdevice(call, lhs, rhs, ctx)
    la, lb = ndim_of(lhs), ndim_of(rhs)
    ndim = -1 if la == -1 or lb == -1 else max(la, lb)
    sa, sb = shape_of(lhs), shape_of(rhs)
    if sa is not None and sb is not None:
        shape = broadcast_shapes_or_error(call, ctx, sa, sb)
        if shape is not None:
            return TensorStructInfo(rx.ShapeExpr(shape), dtype, vdevice=vdev)
    if (isinstance(lhs, TensorStructInfo) and isinstance(rhs, TensorStructInfo)
            and lhs.shape is not None and lhs.shape is rhs.shape):
        return TensorStructInfo(lhs.shape, dtype, vdevice=vdev)
    return TensorStructInfo(None, dtype, ndim, vdev)


def tensor_sinfo(shape: Union[None, Sequence[P.PrimExpr], rx.Expr], dtype: str, ndim: int = -1,
                 vdevice: Optional[VDevice] = None) -> TensorStructInfo:
    """Build a TensorStructInfo from a dims sequence (wrapped in a ShapeExpr), a shape expression,
    or None (unknown shape with ``ndim``)."""
    if shape is None:
        return TensorStructInfo(None, dtype, ndim, vdevice)
    if isinstance(shape, rx.Expr):
        return TensorStructInfo(shape, dtype, vdevice=vdevice)
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=vdevice)


__all__ = [
    "op_name", "error", "describe_sinfo", "check_num_args", "arg_sinfo", "tensor_arg", "tensor_args",
    "prim_value_arg", "tuple_of_tensors_arg", "is_float_dtype", "require_float", "binary_arith_dtype",
    "same_dtype", "shape_of", "ndim_of", "prove_equal", "BroadcastResult", "broadcast_shapes",
    "broadcast_shapes_or_error", "shape_product", "normalize_axes", "normalize_axis", "binary_vdevice",
    "common_vdevice", "infer_unary", "infer_binary_broadcast", "tensor_sinfo",
]

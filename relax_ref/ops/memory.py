"""Views and lowering markers: ``memory.view``, ``memory.ensure_zero_offset`` and
``builtin.stop_lift_params`` (spec pages ``spec/ops/memory.view.md``,
``spec/ops/memory.ensure_zero_offset.md``, ``spec/ops/builtin.stop_lift_params.md``).

``memory.view(x, shape, dtype, relative_byte_offset)`` is a tensor over ``x``'s storage
(VAL.TENSOR.VIEW.1-2): an omitted shape, dtype or offset is the empty tuple ``R.tuple()`` (the
dtype may also be ``R.null_value()``), meaning "as ``x``" (offset 0). Inference follows TVM 0.27's
``InferStructInfoView``: the view must provably not extend beyond ``x`` (OP.memory.view.C5);
at run time the bytes it covers must lie within ``x``'s (OP.memory.view.C6).

In the reference interpreter a view is a numpy array over the same memory as ``x`` (so an in-place
write through either is seen by both) whose byte offset is recorded with
:func:`relax_ref.values.set_byte_offset`. ``ensure_zero_offset`` returns ``x`` when its offset is 0,
a new array object over the same memory (offset 0) when the offset is a multiple of 64, and a copy
otherwise. ``stop_lift_params`` is
the identity (a marker for LiftTransformParams).
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..errors import OpRuntimeError, ParseError, StructInfoError, TypeMismatchError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import (
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from ..values import DTypeValue, ShapeValue, byte_offset, set_byte_offset
from . import common
from .args import OpArgs
from .opdef import OpDef, Param, arg, convert_arg

# ---------------------------------------------------------------------------------------------------
# Script form
# ---------------------------------------------------------------------------------------------------


def _void() -> rx.Tuple:
    return rx.Tuple(())


def _is_empty_tuple(e: Any) -> bool:
    """``R.tuple()`` as written (how the printer writes an omitted shape or offset, as TVM does)."""
    return isinstance(e, rx.Tuple) and not e.fields


def _parse_view(opdef: OpDef, args, kwargs, span) -> rx.Call:
    """``R.memory.view(data, shape=None, dtype=None, relative_byte_offset=None)`` as TVM's Python
    API builds it: an omitted shape or offset is ``R.tuple()``, an omitted dtype ``R.null_value()``."""
    names = ("data", "shape", "dtype", "relative_byte_offset")
    if len(args) > 4:
        raise ParseError(f"R.memory.view takes at most 4 arguments, got {len(args)}", span)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise ParseError(f"R.memory.view got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise ParseError(f"R.memory.view got multiple values for argument '{k}'", span)
        bound[k] = v
    if "data" not in bound:
        raise ParseError("R.memory.view missing required argument 'data'", span)
    data = convert_arg(Param("data"), bound["data"], span)
    shape = bound.get("shape")
    shape = _void() if shape is None or _is_empty_tuple(shape) else \
        convert_arg(Param("shape", "arg", "shape"), shape, span)
    dtype = bound.get("dtype")
    if dtype is None:
        dtype = rx.Call(rx.Op("relax.null_value"), (), span=span)
    elif isinstance(dtype, str):
        dtype = rx.DataTypeImm(_dt.check(dtype), span=span)
    elif not isinstance(dtype, rx.Expr):
        raise ParseError(f"R.memory.view: dtype must be a dtype, got {dtype!r}", span)
    off = bound.get("relative_byte_offset")
    off = _void() if off is None or _is_empty_tuple(off) else \
        convert_arg(Param("relative_byte_offset", "arg", "prim"), off, span)
    return rx.Call(opdef.op, (data, shape, dtype, off), span=span)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _is_void(s: Optional[StructInfo]) -> bool:
    return isinstance(s, TupleStructInfo) and len(s.fields) == 0


def _is_null_value(e: rx.Expr, ctx: Any) -> bool:
    e = _resolve(e, ctx)
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.null_value"


def _resolve(e: rx.Expr, ctx: Any) -> rx.Expr:
    seen = 0
    while isinstance(e, rx.Var) and seen < 64:
        bound = ctx.lookup_binding(e) if hasattr(ctx, "lookup_binding") else None
        if bound is None:
            break
        e, seen = bound, seen + 1
    return e


def elem_bytes(dtype: str) -> int:
    """Bytes per element (a bool is one byte)."""
    return 1 if dtype == "bool" else (_dt.bits(dtype) + 7) // 8


def _view_dtype(call: rx.Call, ctx: Any):
    """(present, dtype or None) for the dtype argument (OP.memory.view.C3)."""
    a = call.args[2]
    if _is_void(a.struct_info) or _is_null_value(a, ctx):
        return False, None
    v = _resolve(a, ctx)
    if isinstance(v, rx.DataTypeImm):
        if v.value == "void":
            raise common.error(call, "the dtype must be a concrete tensor dtype, not void (use R.null_value() to "
                                     "keep the input's dtype)", ctx)
        try:
            return True, _dt.value_dtype(v.value)
        except StructInfoError as err:
            raise common.error(call, err.message, ctx) from None
    if isinstance(a.struct_info, ObjectStructInfo):
        return True, None
    raise common.error(call, f"the dtype must be a DataTypeImm, R.null_value() or R.tuple(), but it has struct info "
                             f"{common.describe_sinfo(a.struct_info)}", ctx)


def _view_offset(call: rx.Call, ctx: Any) -> Optional[P.PrimExpr]:
    """The relative byte offset when known (OP.memory.view.C4)."""
    a = call.args[3]
    s = a.struct_info
    if _is_void(s):
        return P.IntImm(0, "int64")
    if not isinstance(s, PrimStructInfo):
        raise common.error(call, f"the relative_byte_offset must be an int64 prim value or R.tuple(), but it has "
                                 f"struct info {common.describe_sinfo(s)}", ctx)
    if s.dtype != "int64":
        raise common.error(call, f"the relative_byte_offset must be a 64-bit integer, but it has dtype {s.dtype}", ctx)
    return a.value if isinstance(a, rx.PrimValue) else None


def _prove(ctx: Any, cond: P.PrimExpr) -> bool:
    analyzer = getattr(ctx, "analyzer", None)
    return analyzer is not None and bool(analyzer.can_prove(cond))


def _nelems(dims) -> Optional[P.PrimExpr]:
    return None if dims is None else common.shape_product(dims)


def infer_view(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.memory.view.C1-C5 (TVM 0.27's ``InferStructInfoView``)."""
    common.check_num_args(call, 4, ctx)
    x = common.tensor_arg(call, 0, ctx, "data")
    shape_s = common.arg_sinfo(call, 1, ctx)
    if _is_void(shape_s):
        shape_s = None
    elif not isinstance(shape_s, ShapeStructInfo):
        raise common.error(call, f"the shape must be a shape or R.tuple(), but it has struct info "
                                 f"{common.describe_sinfo(shape_s)}", ctx)
    present, vdt = _view_dtype(call, ctx)
    off = _view_offset(call, ctx)
    in_dims = x.shape_values
    out_dims, out_ndim = None, -1
    if shape_s is not None and shape_s.values is not None:
        out_dims = tuple(shape_s.values)
    elif shape_s is not None:
        out_ndim = shape_s.ndim
    elif in_dims is not None:
        out_dims = tuple(in_dims)
    else:
        out_ndim = x.ndim
    out_dtype = (vdt or "void") if present else x.dtype
    n_in, n_out = _nelems(in_dims), _nelems(out_dims)
    b_in = None if x.dtype == "void" else elem_bytes(x.dtype)
    b_out = None if out_dtype == "void" else elem_bytes(out_dtype)
    too_big = "the view would extend beyond the bytes of the viewed tensor"
    i64 = lambda v: P.IntImm(v, "int64")  # noqa: E731
    if n_in is not None and n_out is not None and b_in and b_out:
        end = P.mul(n_out, i64(b_out)) if off is None else P.add(P.mul(n_out, i64(b_out)), off)
        if _prove(ctx, P.gt(end, P.mul(n_in, i64(b_in)))):
            raise common.error(call, too_big, ctx)
    elif b_in and b_out and shape_s is None:
        if b_out > b_in:
            raise common.error(call, f"{too_big}: the element size grows from {b_in} to {b_out} bytes without a new "
                                     "shape", ctx)
    elif n_in is not None and n_out is not None and not present:
        if _prove(ctx, P.gt(n_out, n_in)):
            raise common.error(call, f"{too_big}: {n_out} elements from {n_in}", ctx)
    elif off is not None and shape_s is None and vdt is None:
        if _prove(ctx, P.gt(off, i64(0))):
            raise common.error(call, f"{too_big}: an offset of {off} bytes with neither fewer elements nor "
                                     "smaller ones", ctx)
    if out_dims is not None:
        return TensorStructInfo(rx.ShapeExpr(out_dims), out_dtype, vdevice=x.vdevice)
    return TensorStructInfo(None, out_dtype, out_ndim, x.vdevice)


def infer_stop_lift_params(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.builtin.stop_lift_params.C1: one tensor; its struct info (TVM's unary arithmetic rule)."""
    common.check_num_args(call, 1, ctx)
    return common.tensor_arg(call, 0, ctx, "x")


def infer_ensure_zero_offset(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.memory.ensure_zero_offset.C1: one argument; its struct info (TVM 0.27 accepts any)."""
    common.check_num_args(call, 1, ctx)
    return common.arg_sinfo(call, 0, ctx)


# ---------------------------------------------------------------------------------------------------
# Run-time constraints and reference
# ---------------------------------------------------------------------------------------------------


def view_layout(args: OpArgs):
    """(shape, dtype, relative offset) of the view from the evaluated arguments (the kinds of the
    omitted ones: ``tuple`` for ``R.tuple()``, ``null`` for ``R.null_value()``)."""
    shape = args.shape(0) if args.kind(1) == "tuple" else tuple(args.ints(1))
    dtype = args.dtype(0) if args.kind(2) in ("tuple", "null") else args.values[2].name
    off = 0 if args.kind(3) == "tuple" else args.prim(3)
    return shape, dtype, off


def _check_view_dtype_value(args: OpArgs) -> None:
    """OP.memory.view.C3 at run time: an ``R.Object`` dtype argument holds a data type."""
    if args.kind(2) not in ("dtype", "tuple", "null"):
        raise args.error(TypeMismatchError, f"{args.op_name}: the dtype must be a data type, got {args.describe(2)} "
                                            "(OP.memory.view.C3)")


def check_view(args: OpArgs) -> None:
    """OP.memory.view.C6: ``0 <= relative_byte_offset`` and the view's bytes end within ``data``'s."""
    _check_view_dtype_value(args)
    shape, dtype, off = view_layout(args)
    n_out = 1
    for d in shape:
        n_out = n_out * d
    n_in = 1
    for d in args.shape(0):
        n_in = n_in * d
    end = off + n_out * elem_bytes(dtype)
    args.fail_if((off < 0) | (end > n_in * elem_bytes(args.dtype(0))) if not isinstance(off, int)
                 else (off < 0) or (end > n_in * elem_bytes(args.dtype(0))),
                 lambda: OpRuntimeError(f"{args.op_name}: a view of {args.size_text(shape)} {dtype} at byte offset "
                                        f"{off if isinstance(off, int) else '?'} does not lie within the bytes of "
                                        f"{args.describe(0)} (OP.memory.view.C6)"))


def _ref_view(args, attrs, call, ctx):
    x = args[0]
    shape = tuple(int(d) for d in args[1]) if isinstance(args[1], ShapeValue) else x.shape
    dtype = _dt.from_numpy(x.dtype) if not isinstance(args[2], DTypeValue) else args[2].name
    off = 0 if isinstance(args[3], tuple) else int(args[3].value)
    if not x.flags.c_contiguous:
        raise UnsupportedError("relax.memory.view: the tensor is not stored contiguously (an interpreter invariant "
                               "was broken)", call.span)
    raw = x.reshape(-1).view(np.uint8)
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(_dt.to_numpy(dtype)).itemsize
    out = raw[off:off + n].view(_dt.to_numpy(dtype)).reshape(shape)
    set_byte_offset(out, byte_offset(x) + off)
    return out


def check_tensor(args: OpArgs) -> None:
    """OP.memory.ensure_zero_offset.C2: the argument is a tensor at run time."""
    if args.kind(0) != "tensor":
        raise args.error(OpRuntimeError, f"{args.op_name}: expects a tensor, got {args.describe(0)} "
                                         "(OP.memory.ensure_zero_offset.C2)")


#: byte offsets that are multiples of this keep sharing the storage in ``ensure_zero_offset``
ALLOC_ALIGNMENT = 64


def _ref_ensure_zero_offset(args, attrs, call, ctx):
    x = args[0]
    off = byte_offset(x)
    if off == 0:
        return x
    return x.view() if off % ALLOC_ALIGNMENT == 0 else np.array(x, copy=True, order="C")


def _ref_identity(args, attrs, call, ctx):
    return args[0]


_VIEW_EXEMPT = ("a view is a new container over the same storage, not a computation; TVM 0.27 lowers it in "
                "LowerRuntimeBuiltin to runtime.TVMTensorCreateView, which has no TensorIR counterpart")
_EZO_EXEMPT = ("it changes only the container (TVM 0.27 lowers it in LowerRuntimeBuiltin to "
               "vm.builtin.ensure_zero_offset); there is no TensorIR for it")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [
    OpDef(name="relax.memory.view", script="R.memory.view",
          params=(arg("data"), arg("shape", "optional_expr", None), arg("dtype", "optional_expr", None),
                  arg("relative_byte_offset", "optional_expr", None)),
          parse_call=_parse_view, infer=infer_view, check=check_view, reference=_ref_view,
          legalize_exempt=_VIEW_EXEMPT, category="memory",
          doc="``R.memory.view(data, shape, dtype, relative_byte_offset)``: a tensor over ``data``'s storage "
              "(OP.memory.view.C1-C6, VAL.TENSOR.VIEW.1)."),
    OpDef(name="relax.memory.ensure_zero_offset", script="R.memory.ensure_zero_offset", params=(arg("data"),),
          infer=infer_ensure_zero_offset, check=check_tensor, reference=_ref_ensure_zero_offset, legalize_exempt=_EZO_EXEMPT,
          category="memory",
          doc="``R.memory.ensure_zero_offset(data)``: ``data`` with byte offset 0, sharing its storage "
              "(OP.memory.ensure_zero_offset.C1)."),
    OpDef(name="relax.builtin.stop_lift_params", script="R.builtin.stop_lift_params", params=(arg("x"),),
          infer=infer_stop_lift_params, reference=_ref_identity, legalize=lambda call, ctx: call.args[0], category="memory",
          doc="``R.builtin.stop_lift_params(x)``: ``x`` (a marker for LiftTransformParams, "
              "OP.builtin.stop_lift_params.C1)."),
]

__all__ = ["infer_view", "elem_bytes", "view_layout", "ALLOC_ALIGNMENT"]

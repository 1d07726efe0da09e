"""Tensor inspection: ``inspect.tensor_dtype_code``, ``tensor_dtype_bits``, ``tensor_dtype_lanes``,
``tensor_ndim``, ``tensor_shape_i``, ``tensor_stride_i``, ``tensor_byte_offset`` and
``tensor_elem_offset`` (spec pages ``spec/ops/inspect.*.md``), and ``size`` (``spec/ops/size.md``).

Each reads one field of the tensor's DLPack container and returns it as a prim value of a fixed
dtype (TVM 0.27's inference): the dtype code (DLPack's numbering), bits and lanes, the rank, the
extent and the (compact) stride of an axis, the byte offset and the element offset. A tensor is
compact (VAL.TENSOR.1), so a stride is the product of the extents after its axis; the byte offset is
0 except for the tensors made by ``memory.view`` (VAL.TENSOR.VIEW.1).

Legalization: when the argument's struct info decides the field (every field but the offsets), the
call folds into a ``PrimValue``; TVM instead emits host functions that read the DLTensor with
``tvm_struct_get``, which relax-ref's TensorIR (buffers, no raw handles) has no counterpart for. The
offsets are not decided statically and keep their call (``legalize_exempt``).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import PrimStructInfo, TensorStructInfo
from ..values import PrimScalar, byte_offset
from . import common
from . import te_ops
from .args import OpArgs
from .opdef import OpDef, arg

#: DLPack's type codes (``DLDataTypeCode``) of the dtypes relax-ref knows
DLPACK_CODES = {"int": 0, "uint": 1, "float": 2, "bfloat": 4, "bool": 6, "float8_e4m3fn": 10, "float8_e5m2": 12}


def dtype_code(dtype: str) -> int:
    """DLPack's type code of a dtype."""
    if dtype in DLPACK_CODES:
        return DLPACK_CODES[dtype]
    if dtype.startswith("bfloat"):
        return DLPACK_CODES["bfloat"]
    for prefix in ("uint", "int", "float"):
        if dtype.startswith(prefix):
            return DLPACK_CODES[prefix]
    raise ValueError(f"no DLPack type code for {dtype}")


def dtype_bits(dtype: str) -> int:
    """Bits per lane as DLPack stores them (bool: 8)."""
    return 8 if dtype == "bool" else _dt.bits(dtype)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _tensor(call: rx.Call, n: int, ctx: Any) -> TensorStructInfo:
    """C1 of every page: ``n`` arguments, the first a tensor."""
    common.check_num_args(call, n, ctx)
    return common.tensor_arg(call, 0, ctx, "tensor")


def _axis(call: rx.Call, t: TensorStructInfo, ctx: Any) -> Optional[int]:
    """C2 of the axis pages: a prim axis of integer dtype; a constant axis is in ``[0, ndim)``."""
    s = common.arg_sinfo(call, 1, ctx)
    if not isinstance(s, PrimStructInfo):
        raise common.error(call, f"the axis must be a prim value, but it has struct info {common.describe_sinfo(s)}",
                           ctx)
    if s.dtype != "void" and not _dt.is_integer(s.dtype):
        raise common.error(call, f"the axis must be an integer, but it has dtype {s.dtype}", ctx)
    a = call.args[1]
    v = a.value if isinstance(a, rx.PrimValue) else s.value
    if not isinstance(v, P.IntImm):
        return None
    if v.value < 0 or (t.ndim != -1 and v.value >= t.ndim):
        raise common.error(call, f"axis {v.value} is out of range for a tensor of rank {t.ndim}", ctx)
    return v.value


def _fixed(dtype: str, nargs: int = 1) -> Callable[[rx.Call, Any], PrimStructInfo]:
    def infer(call: rx.Call, ctx: Any) -> PrimStructInfo:
        t = _tensor(call, nargs, ctx)
        if nargs == 2:
            _axis(call, t, ctx)
        return PrimStructInfo(dtype)
    return infer


# ---------------------------------------------------------------------------------------------------
# Run-time constraints and reference
# ---------------------------------------------------------------------------------------------------


def check_axis(args: OpArgs) -> None:
    """C3 of the axis pages: ``0 <= axis < ndim`` at run time."""
    nd = args.ndim(0)
    a = args.prim(1)
    name = args.op_name.replace("relax.", "")
    args.fail_if((a < 0) | (a >= nd) if not isinstance(a, int) else (a < 0 or a >= nd), lambda: OpRuntimeError(
        f"{args.op_name}: axis {a if isinstance(a, int) else '?'} is out of range for a tensor of rank {nd} "
        f"(OP.{name}.C3)"))


def _ref(field: Callable[..., int], dtype: str):
    def ref(args, attrs, call, ctx):
        return PrimScalar(field(*args), dtype)
    return ref


def _stride(x, axis) -> int:
    out = 1
    for n in x.shape[int(axis.value) + 1:]:
        out *= int(n)
    return out


def _elem_offset(x) -> int:
    dt = _dt.from_numpy(x.dtype)
    return byte_offset(x) // ((dtype_bits(dt) + 7) // 8)


FIELDS = {
    "tensor_dtype_code": (lambda x: dtype_code(_dt.from_numpy(x.dtype)), "uint8"),
    "tensor_dtype_bits": (lambda x: dtype_bits(_dt.from_numpy(x.dtype)), "uint8"),
    "tensor_dtype_lanes": (lambda x: 1, "uint16"),
    "tensor_ndim": (lambda x: x.ndim, "int32"),
    "tensor_shape_i": (lambda x, a: x.shape[int(a.value)], "int64"),
    "tensor_stride_i": (_stride, "int64"),
    "tensor_byte_offset": (byte_offset, "uint64"),
    "tensor_elem_offset": (_elem_offset, "uint64"),
}


# ---------------------------------------------------------------------------------------------------
# Legalization (folding what the struct info decides)
# ---------------------------------------------------------------------------------------------------


def _static_value(name: str, call: rx.Call) -> Optional[P.PrimExpr]:
    t = call.args[0].struct_info
    if name in ("tensor_dtype_code", "tensor_dtype_bits", "tensor_dtype_lanes"):
        if t.dtype == "void":
            return None
        v = {"tensor_dtype_code": dtype_code, "tensor_dtype_bits": dtype_bits,
             "tensor_dtype_lanes": lambda d: 1}[name](t.dtype)
        return P.IntImm(v, FIELDS[name][1])
    if name == "tensor_ndim":
        return None if t.ndim == -1 else P.IntImm(t.ndim, "int32")
    a = call.args[1]
    if not (isinstance(a, rx.PrimValue) and isinstance(a.value, P.IntImm)) or t.shape_values is None:
        return None
    dims = t.shape_values
    if name == "tensor_shape_i":
        return dims[a.value.value]
    out: P.PrimExpr = P.IntImm(1, "int64")
    for d in dims[a.value.value + 1:]:
        out = common.shape_product([out, d])
    return out


def _legalize(name: str):
    def legalize(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
        v = _static_value(name, call)
        if v is None:
            return None
        if v.dtype != FIELDS[name][1]:
            v = P.Cast(FIELDS[name][1], v)
        return rx.PrimValue(v, span=call.span)
    return legalize


_OFFSET_EXEMPT = ("the offset of a tensor is not decided by its struct info (memory.view); TVM reads it from the "
                  "DLTensor with tvm_struct_get, which relax-ref's TensorIR does not express")


def _define(name: str) -> OpDef:
    field, dtype = FIELDS[name]
    axis = name in ("tensor_shape_i", "tensor_stride_i")
    params = (arg("tensor"), arg("axis", "prim")) if axis else (arg("tensor"),)
    offset = name in ("tensor_byte_offset", "tensor_elem_offset")
    return OpDef(name=f"relax.inspect.{name}", script=f"R.inspect.{name}", params=params,
                 infer=_fixed(dtype, 2 if axis else 1), check=check_axis if axis else None,
                 reference=_ref(field, dtype), legalize=None if offset else _legalize(name),
                 legalize_exempt=_OFFSET_EXEMPT if offset else "", category="inspection",
                 doc=f"``R.inspect.{name}(tensor{', axis' if axis else ''})``: a field of the tensor's "
                     f"container as ``R.Prim('{dtype}')`` (OP.inspect.{name}.C1).")


# ---------------------------------------------------------------------------------------------------
# size
# ---------------------------------------------------------------------------------------------------


def _size_infer(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.size.C1-C2: one tensor; a 0-d int64 tensor."""
    common.check_num_args(call, 1, ctx)
    common.tensor_arg(call, 0, ctx, "input")
    return TensorStructInfo(rx.ShapeExpr(()), "int64")


def _size_ref(args, attrs, call, ctx):
    return np.asarray(int(np.prod(args[0].shape, dtype=np.int64)), dtype=np.int64)


def _size_legalize(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    """A kernel computing the product of the input's extents (TVM: ``prod(shape_to_tensor(shape_of(x)))``)."""
    from . import te
    from .statistical import known_shapes

    if not known_shapes(call):
        return None

    def fte(x: te.Tensor) -> te.Tensor:
        return te.compute((), lambda: te_ops.cast("int64", common.shape_product(x.shape)), name="T_size")

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="size")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [_define(n) for n in FIELDS] + [
    OpDef(name="relax.size", script="R.size", params=(arg("input"),), infer=_size_infer, reference=_size_ref,
          legalize=_size_legalize, category="inspection",
          doc="``R.size(input)``: the number of elements as a 0-d int64 tensor (OP.size.C1-C2)."),
]

__all__ = ["DLPACK_CODES", "dtype_code", "dtype_bits", "FIELDS"]

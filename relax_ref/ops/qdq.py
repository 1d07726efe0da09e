"""Quantization: ``quantize`` and ``dequantize`` (spec pages ``spec/ops/quantize.md``,
``spec/ops/dequantize.md``).

Both take ``(data, scale, zero_point)`` with attributes ``axis`` (the channel axis, default -1) and
``out_dtype``. ``scale`` and ``zero_point`` are each per-tensor (0-d, or every dim 1) or per-channel
(1-d, as long as ``data``'s ``axis`` dim). Arithmetic follows TIR's operand matching (TIR.TE.OPS.2):

* ``quantize``: ``q = data / scale`` (in the wider float of the two); for integer ``out_dtype``
  ``q = round_half_even(q)``; then ``q + zero_point`` (the zero point converted to ``q``'s float
  type), clamped to the finite range of ``out_dtype`` and converted (OP.quantize.C5);
* ``dequantize``: integer data is widened to int32 and float data to float32, the zero point is
  subtracted (operand matching again: int32 for integer zero points, float otherwise), the difference
  is multiplied by ``scale`` in float32; a float16 ``out_dtype`` clamps to +-65504 before the
  conversion (OP.dequantize.C5).
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te
from . import te_ops
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .elementwise_util import try_scalar_const
from .statistical import known_shapes, tir_cast

QUANT_OUT = ("int8", "uint8", "int16", "uint16", "float8_e4m3fn", "float8_e5m2")
DEQUANT_IN = ("int8", "uint8", "int16", "uint16", "int32", "float8_e4m3fn", "float8_e5m2", "float16", "float32")
DEQUANT_OUT = ("float16", "float32")
QUANT_IN = ("float16", "float32")
SCALE_DTYPES = ("float16", "float32")
ZP_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float16")


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _is_per_tensor(s: TensorStructInfo, ctx) -> bool:
    """0-d, or a known shape whose every dim is provably 1."""
    if s.ndim == 0:
        return True
    vals = s.shape_values
    return bool(vals) and all(common.prove_equal(ctx, d, te_ops.const(1, d.dtype)) for d in vals)


def _infer(name: str, in_dtypes, out_dtypes):
    def infer(call: rx.Call, ctx: Any) -> TensorStructInfo:
        """OP.<op>.C1-C5 (TVM's quantize/dequantize inference)."""
        out_dtype = call.attrs.get("out_dtype")
        if out_dtype not in out_dtypes:
            raise common.error(call, f"unsupported out_dtype {out_dtype} (expected one of {', '.join(out_dtypes)})",
                               ctx)
        data, scale, zp = common.tensor_args(call, 3, ctx, ("data", "scale", "zero_point"))
        if "void" not in (data.dtype, scale.dtype, zp.dtype):
            for what, s, allowed in (("data", data, in_dtypes), ("scale", scale, SCALE_DTYPES),
                                     ("zero_point", zp, ZP_DTYPES)):
                if s.dtype not in allowed:
                    raise common.error(call, f"the {what} dtype must be one of {', '.join(allowed)}, "
                                             f"but it is {s.dtype}", ctx)
        axis = int(call.attrs.get("axis", -1))
        if data.ndim > 0:
            a = axis + data.ndim if axis < 0 else axis
            if not 0 <= a < data.ndim:
                raise common.error(call, f"axis {axis} is out of range for a tensor of rank {data.ndim}", ctx)
            dims = data.shape_values
            for what, s in (("scale", scale), ("zero_point", zp)):
                if _is_per_tensor(s, ctx) or s.ndim == -1 or s.shape_values is None:
                    continue
                if s.ndim != 1:
                    raise common.error(call, f"{what} must be 0-d, all dims 1, or 1-d, but it has rank {s.ndim}", ctx)
                if dims is not None and not common.prove_equal(ctx, s.shape_values[0], dims[a]):
                    raise common.error(call, f"the input shape at dim {axis} is {dims[a]}, but the size of "
                                             f"{what} is {s.shape_values[0]}", ctx)
        elif data.ndim == 0:
            for what, s in (("scale", scale), ("zero_point", zp)):
                if s.shape_values is not None and not _is_per_tensor(s, ctx):
                    raise common.error(call, f"{what} must be per-tensor (0-d or all dims 1) for a 0-d input", ctx)
        dt = out_dtype if "void" not in (data.dtype, scale.dtype, zp.dtype) else "void"
        return TensorStructInfo(data.shape, dt, data.ndim if data.shape is None else -1, data.vdevice)
    infer.__name__ = f"infer_{name}"
    return infer


# ---------------------------------------------------------------------------------------------------
# Run-time constraints
# ---------------------------------------------------------------------------------------------------


def check(args: OpArgs) -> None:
    """OP.<op>.C4 at run time: each quantization parameter is per-tensor or has the channel count."""
    name = args.op_name.replace("relax.", "")
    nd = args.ndim(0)
    axis = int(args.attrs.get("axis", -1))
    for i, what in ((1, "scale"), (2, "zero_point")):
        shp = args.shape(i)
        static = args.static_shape(i)
        if static is not None and all(n == 1 for n in static):
            continue
        if nd == 0 or len(shp) != 1:
            raise args.error(OpRuntimeError, f"{args.op_name}: {what} of shape {args.size_text(shp)} is neither "
                                             f"per-tensor nor per-channel (OP.{name}.C4)")
        n = args.shape(0)[axis % nd]
        args.fail_if(shp[0] != n, lambda what=what: OpRuntimeError(
            f"{args.op_name}: the size of {what} does not match the input's axis {axis} (OP.{name}.C4)"))


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


def promote(a: str, b: str) -> str:
    """The dtype TIR's operand matching (TIR.TE.OPS.2) gives ``a op b``."""
    from ..ir import prim_expr as P

    x, y = te_ops.match_types(P.PrimVar("a", a), P.PrimVar("b", b))
    return x.dtype


def channel(p: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A quantization parameter laid out to broadcast against the data."""
    if p.ndim == 0 or p.size == 1 or ndim == 0:
        return p.reshape(())
    shape = [1] * ndim
    shape[axis % ndim] = p.shape[0]
    return p.reshape(shape)


def clamp_cast(v: np.ndarray, src: str, dst: str) -> np.ndarray:
    """TIR's ``max(min(v, max_value(dst)), min_value(dst))`` (``a < b ? a : b``: a NaN becomes the
    largest value) converted to ``dst``."""
    lo, hi = np.asarray(_dt.min_value(dst), v.dtype), np.asarray(_dt.max_value(dst), v.dtype)
    with np.errstate(invalid="ignore"):
        v = np.where(v < hi, v, hi)
        v = np.where(v > lo, v, lo)
    return tir_cast(v, src, dst)


def _ref_quantize(args, attrs, call, ctx):
    x, s, z = args
    out = attrs.get("out_dtype")
    xd, sd, zd = (_dt.from_numpy(a.dtype) for a in (x, s, z))
    ft = promote(xd, sd)
    with np.errstate(all="ignore"):
        q = x.astype(_dt.to_numpy(ft)) / channel(s, x.ndim, attrs.get("axis", -1)).astype(_dt.to_numpy(ft))
        if _dt.is_integer(out):
            q = np.rint(q)
        rt = promote(ft, zd)
        q = q.astype(_dt.to_numpy(rt)) + tir_cast(channel(z, x.ndim, attrs.get("axis", -1)), zd, rt)
    return clamp_cast(np.asarray(q), rt, out)


def _ref_dequantize(args, attrs, call, ctx):
    x, s, z = args
    out = attrs.get("out_dtype")
    xd, sd, zd = (_dt.from_numpy(a.dtype) for a in (x, s, z))
    wide = "float32" if _dt.is_float(xd) else "int32"
    sub_t = promote(wide, zd)
    axis = attrs.get("axis", -1)
    with np.errstate(all="ignore"):
        d = tir_cast(tir_cast(x, xd, wide), wide, sub_t) - tir_cast(channel(z, x.ndim, axis), zd, sub_t)
        d = np.asarray(d).astype(_dt.to_numpy(sub_t))
        mt = promote(sub_t, "float32")
        r = tir_cast(d, sub_t, mt) * tir_cast(channel(s, x.ndim, axis), sd, "float32").astype(_dt.to_numpy(mt))
    r = np.asarray(r).astype(_dt.to_numpy(mt))
    if out == mt:
        return r
    return clamp_cast(r, mt, out)


# ---------------------------------------------------------------------------------------------------
# Legalization
# ---------------------------------------------------------------------------------------------------


def _param(p: Any, idx, axis: int):
    if not isinstance(p, te.Tensor):       # a scalar constant, inlined (TVM's _try_convert_to_scalar_const)
        return p
    if all(isinstance(d, type(te_ops.const(1, "int64"))) and d.value == 1 for d in p.shape):
        return p(*([0] * len(p.shape)))
    return p(idx[axis])


def _te_quantize(out: str, axis: int):
    def fte(x: te.Tensor, s: te.Tensor, z: te.Tensor) -> te.Tensor:
        def body(*i):
            q = te_ops.div(x(*i), _param(s, i, axis))
            if _dt.is_integer(out):
                q = te_ops.call("round", q)       # TOPI rounds with tir.round (ties to even)
            q = te_ops.add(q, _param(z, i, axis))
            return te_ops.cast(out, te_ops.max_(te_ops.min_(q, te_ops.max_value(out)), te_ops.min_value(out)))
        return te.compute(x.shape, body, name="quantized")
    return fte


def _te_dequantize(out: str, axis: int):
    def fte(x: te.Tensor, s: te.Tensor, z: te.Tensor) -> te.Tensor:
        wide = "float32" if _dt.is_float(x.dtype) else "int32"

        def body(*i):
            d = te_ops.sub(te_ops.cast(wide, x(*i)), _param(z, i, axis))
            r = te_ops.mul(d, te_ops.cast("float32", _param(s, i, axis)))
            if out == "float32":
                return r
            return te_ops.cast(out, te_ops.max_(te_ops.min_(r, te_ops.max_value(out)), te_ops.min_value(out)))
        return te.compute(x.shape, body, name="dequantized")
    return fte


def _legalize(make):
    def legalize(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
        if not known_shapes(call):
            return None
        x = call.args[0].struct_info
        axis = int(call.attrs.get("axis", -1))
        axis = axis + x.ndim if axis < 0 else axis
        data, scale, zp = call.args
        return ctx.call_te(make(call.attrs.get("out_dtype"), axis), data, try_scalar_const(scale),
                           try_scalar_const(zp), primfunc_name_hint=call.op.name.replace("relax.", ""))
    return legalize


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [
    OpDef(name="relax.quantize", script="R.quantize",
          params=(arg("data"), arg("scale"), arg("zero_point"), attr("axis", "int", -1),
                  attr("out_dtype", "dtype", "int8")),
          infer=_infer("quantize", QUANT_IN, QUANT_OUT), check=check, reference=_ref_quantize,
          legalize=_legalize(_te_quantize), category="quantization",
          doc="``R.quantize(data, scale, zero_point, axis=-1, out_dtype='int8')``: "
              "``clamp(round(data / scale) + zero_point)`` (OP.quantize.C1-C5)."),
    OpDef(name="relax.dequantize", script="R.dequantize",
          params=(arg("data"), arg("scale"), arg("zero_point"), attr("axis", "int", -1),
                  attr("out_dtype", "dtype", "float32")),
          infer=_infer("dequantize", DEQUANT_IN, DEQUANT_OUT), check=check, reference=_ref_dequantize,
          legalize=_legalize(_te_dequantize), category="quantization",
          doc="``R.dequantize(data, scale, zero_point, axis=-1, out_dtype='float32')``: "
              "``scale * (data - zero_point)`` (OP.dequantize.C1-C5)."),
]

__all__ = ["promote", "channel", "clamp_cast"]

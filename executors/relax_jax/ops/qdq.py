"""Lowerings of ``quantize`` and ``dequantize`` (semantics: ``relax_ref.ops.qdq``): elementwise over
the data with the parameters broadcast along the channel axis, TIR's operand matching written out.
"""

from __future__ import annotations

import jax.numpy as jnp

from relax_ref.ir import dtype as _dt
from relax_ref.ops.qdq import promote

from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from .common import dtype_of, tvm_max, tvm_min


def _channel(p, ndim: int, axis: int):
    if p.ndim == 0 or p.size == 1 or ndim == 0:
        return p.reshape(())
    shape = [1] * ndim
    shape[axis % ndim] = p.shape[0]
    return p.reshape(shape)


def _clamp_cast(v, src: str, dst: str):
    lo = jnp.asarray(_dt.min_value(dst), v.dtype)
    hi = jnp.asarray(_dt.max_value(dst), v.dtype)
    return cast(tvm_max(tvm_min(v, hi), lo), src, dst)


@lowering("relax.quantize")
def _quantize(ctx, x, s, z):
    out = ctx.attrs.get("out_dtype")
    axis = int(ctx.attrs.get("axis", -1))
    xd, sd, zd = dtype_of(x), dtype_of(s), dtype_of(z)
    ft = promote(xd, sd)
    q = cast(x, xd, ft) / cast(_channel(s, x.ndim, axis), sd, ft)
    if _dt.is_integer(out):
        q = jnp.round(q)
    rt = promote(ft, zd)
    q = cast(q, ft, rt) + cast(_channel(z, x.ndim, axis), zd, rt)
    return _clamp_cast(q, rt, out)


@lowering("relax.dequantize")
def _dequantize(ctx, x, s, z):
    out = ctx.attrs.get("out_dtype")
    axis = int(ctx.attrs.get("axis", -1))
    xd, sd, zd = dtype_of(x), dtype_of(s), dtype_of(z)
    wide = "float32" if _dt.is_float(xd) else "int32"
    sub_t = promote(wide, zd)
    d = cast(cast(x, xd, wide), wide, sub_t) - cast(_channel(z, x.ndim, axis), zd, sub_t)
    d = d.astype(np_dtype(sub_t))
    r = cast(d, sub_t, "float32") * cast(_channel(s, x.ndim, axis), sd, "float32")
    if out == "float32":
        return r
    return _clamp_cast(r, "float32", out)

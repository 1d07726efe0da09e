"""Lowerings of the tensor inspection operators (semantics: ``relax_ref.ops.inspect``): fields of the
tensor box, never its data, so padded inputs are fine (the logical extents are read)."""

from __future__ import annotations

import jax.numpy as jnp

from relax_ref.ops.inspect import dtype_bits, dtype_code

from ..lowering import lowering
from ..values import PrimV, SymInt
from .common import dtype_of


def _box(ctx):
    return ctx.vals[0]


def _byte_offset(ctx) -> int:
    v = _box(ctx).view
    return 0 if v is None else v.byte_offset


def _axis(ctx, a: PrimV) -> int:
    return int(ctx.static(a, "axis"))


@lowering("relax.inspect.tensor_dtype_code", padding="aware")
def _code(ctx, x):
    return PrimV(dtype_code(dtype_of(x)), "uint8")


@lowering("relax.inspect.tensor_dtype_bits", padding="aware")
def _bits(ctx, x):
    return PrimV(dtype_bits(dtype_of(x)), "uint8")


@lowering("relax.inspect.tensor_dtype_lanes", padding="aware")
def _lanes(ctx, x):
    return PrimV(1, "uint16")


@lowering("relax.inspect.tensor_ndim", padding="aware")
def _ndim(ctx, x):
    return PrimV(x.ndim, "int32")


@lowering("relax.inspect.tensor_shape_i", padding="aware")
def _shape_i(ctx, x, axis):
    d = ctx.dims(0)[_axis(ctx, axis)]
    return PrimV(d.val, "int64", d)


@lowering("relax.inspect.tensor_stride_i", padding="aware")
def _stride_i(ctx, x, axis):
    out = SymInt.static(1)
    val = 1
    dims = ctx.dims(0)[_axis(ctx, axis) + 1:]
    for d in dims:
        val = val * d.val
    if all(d.is_static for d in dims):
        out = SymInt.static(int(val))
        return PrimV(int(val), "int64", out)
    return PrimV(val, "int64")


@lowering("relax.inspect.tensor_byte_offset", padding="aware")
def _byte(ctx, x):
    return PrimV(_byte_offset(ctx), "uint64")


@lowering("relax.inspect.tensor_elem_offset", padding="aware")
def _elem(ctx, x):
    return PrimV(_byte_offset(ctx) // ((dtype_bits(dtype_of(x)) + 7) // 8), "uint64")


@lowering("relax.size", padding="aware")
def _size(ctx, x):
    n = 1
    for d in ctx.dims(0):
        n = n * d.val
    return jnp.asarray(n, jnp.int64)

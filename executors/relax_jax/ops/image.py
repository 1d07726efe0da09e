"""Lowerings of ``image.resize2d``, ``image.resize3d``, ``image.affine_grid`` and ``image.grid_sample`` (semantics:
``relax_ref.ops.image``, ``relax_ref.ops.image_grid``, ``relax_ref.ops.image_sample``): the reference's formulas evaluated on JAX arrays. Exact shapes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


from ..dims import dim_value
from ..float_rules import rounded_multiply
from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from .common import dtype_of
from .nn_common import F32, from_canonical, inferred_out_dtype, layout_perm, to_canonical


class _JaxOps:
    """The reference's float32 resize arithmetic on JAX arrays; ``load`` gathers from the data."""

    def __init__(self, data) -> None:
        self.data = data

    def f(self, v):
        return F32.type(v)

    def fi(self, e):
        return jnp.asarray(e).astype(F32)

    def add(self, a, b):
        return (jnp.asarray(a, F32) + jnp.asarray(b, F32)).astype(F32)

    def sub(self, a, b):
        return (jnp.asarray(a, F32) - jnp.asarray(b, F32)).astype(F32)

    def mul(self, a, b):
        # rounded once, never contracted with the add that consumes it (PRIM.FLOAT.1)
        return rounded_multiply(jnp.asarray(a, F32), jnp.asarray(b, F32))

    def div(self, a, b):
        return (jnp.asarray(a, F32) / jnp.asarray(b, F32)).astype(F32)

    def neg(self, a):
        return (-jnp.asarray(a, F32)).astype(F32)

    def floor(self, a):
        return jnp.floor(a).astype(F32)

    def ceil(self, a):
        return jnp.ceil(a).astype(F32)

    def round(self, a):
        return jnp.round(a).astype(F32)

    def to_int(self, a):
        a = jnp.asarray(a)
        if not isinstance(a, jax.core.Tracer) and not bool(np.all(np.isfinite(np.asarray(a)))):
            from relax_ref.ops.image import _NonFinite

            raise _NonFinite()
        return jnp.trunc(a).astype(jnp.int64)

    def iadd(self, a, k):
        return jnp.asarray(a, jnp.int64) + k

    def idiv(self, a, b):
        return jnp.asarray(a, jnp.int64) // b

    def clamp(self, i, n):
        return jnp.maximum(jnp.minimum(jnp.asarray(i, jnp.int64), n - 1), 0)

    def lt(self, a, b):
        return jnp.asarray(a) < b

    def gt(self, a, b):
        return jnp.asarray(a) > b

    def any_(self, a, b):
        return jnp.logical_or(a, b)

    def select(self, c, a, b):
        return jnp.where(c, a, b).astype(F32)

    def load(self, *idx):
        v = self.data[(slice(None), slice(None)) + tuple(idx)]
        # each read materialized: under the strict float rules (no algebraic simplifier) XLA's CPU
        # compiler fused the gathers of a cubic 3-D stencil into their consumers as tens of thousands
        # of transposes and crashed the process while emitting them (jaxlib 0.10.2, integer data or
        # an integer result); the barrier keeps each gather a fusion of its own. Values unchanged.
        return jax.lax.optimization_barrier(cast(v, dtype_of(v), "float32"))


@lowering("relax.image.resize2d", "relax.image.resize3d")
def _resize(ctx, x, size):
    from relax_ref.ops.image import _KINDS, _int_div_flags, output_positions, resize_values

    attrs = dict(ctx.attrs)
    perm = layout_perm(ctx, attrs["layout"], _KINDS[ctx.op_name].canon, "data")
    outs = tuple(ctx.ints(size))
    xc = to_canonical(x, perm)
    ins = tuple(dim_value(d) for d in xc.shape[2:])
    out_dtype = inferred_out_dtype(ctx, x)
    if int(np.prod(xc.shape, dtype=np.int64)) == 0 or 0 in outs:
        out = jnp.zeros(tuple(xc.shape[:2]) + outs, np_dtype(out_dtype))
    else:
        # the data in float32 once, as each load converts it (the arithmetic is float32's): XLA's CPU
        # compiler crashed on the gathers of 8- and 16-bit float data under the strict options
        xc = cast(xc, dtype_of(xc), "float32")
        v = resize_values(ctx.op_name, _JaxOps(xc), output_positions(outs), ins, outs, attrs,
                          _int_div_flags(ctx.call, attrs))
        v = jnp.broadcast_to(v, tuple(xc.shape[:2]) + outs)
        out = cast(jnp.asarray(v, F32), "float32", out_dtype)
    return from_canonical(out, perm)


@lowering("relax.image.affine_grid")
def _affine_grid(ctx, theta, size):
    from relax_ref.ops.image_grid import ArrayOps, affine_grid_array

    class _Rounded(ArrayOps):
        def mul(self, a, b):
            # rounded once, never contracted with the add that consumes it (PRIM.FLOAT.1)
            return rounded_multiply(self.xp.asarray(a, self.dt), self.xp.asarray(b, self.dt)).astype(self.dt)

    return affine_grid_array(jnp, theta, ctx.ints(size), bool(ctx.attrs["align_corners"]), ops=_Rounded)


@lowering("relax.image.grid_sample")
def _grid_sample(ctx, data, grid):
    from relax_ref.ops.image_sample import ArrayOps, sample_array

    class _Rounded(ArrayOps):
        def mul(self, a, b):
            # rounded once, never contracted with the add that consumes it (PRIM.FLOAT.1)
            return rounded_multiply(self.xp.asarray(a, self.dt), self.xp.asarray(b, self.dt)).astype(self.dt)

    layout = ctx.attrs["layout"]
    perm = layout_perm(ctx, layout, "NCDHW" if layout == "NCDHW" else "NCHW", "data")
    y = sample_array(jnp, to_canonical(data, perm), grid, ctx.attrs["method"], ctx.attrs["padding_mode"],
                     bool(ctx.attrs["align_corners"]), ctx.op_name, ops=_Rounded)
    return from_canonical(y, perm)

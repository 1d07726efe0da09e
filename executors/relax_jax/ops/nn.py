"""Lowerings of the ``R.nn.*`` operators of ``relax_ref.ops.nn``: softmax, log_softmax, pad, prelu,
batch_flatten, pixel_shuffle, dropout (the other neural-network families have their own modules).

Padding-aware: ``softmax``/``log_softmax`` (padded positions of the axis are ``-inf`` before the max
and contribute 0 to the sum), ``batch_flatten``, ``dropout`` and ``prelu`` (on axes other than the
channel); ``pad`` and ``pixel_shuffle`` need exact shapes.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from relax_ref.ops.nn import pad_plan
from relax_ref.ops.nn_common import intermediate_dtype

from ..dims import dim_value
from ..errors import NeedsExact
from ..laxops import astype
from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from ..reductions import reduce, window_sums
from ..values import ShapeV, SymInt
from .common import dtype_of
from .manipulate import reshape_padded
from .nn_common import FOps, axis_mask, box


# ---------------------------------------------------------------------------------------------------
# softmax, log_softmax
# ---------------------------------------------------------------------------------------------------


def _softmax_parts(ctx, x, axis):
    """The stages of softmax in the operator's intermediate dtype (bfloat16: float32, OP.SEM.7)."""
    dt = intermediate_dtype(dtype_of(x))
    x = x.astype(np_dtype(dt))
    f = FOps(dt)
    m_valid = axis_mask(x, axis, ctx.valid(0)[axis])
    xm = x if m_valid is None else jnp.where(m_valid, x, jnp.asarray(-np.inf, x.dtype))
    m = reduce("max", xm, axis, keepdims=True)
    e = f.intrin(jnp.exp, f.sub(x, m))
    if m_valid is not None:
        e = jnp.where(m_valid, e, jnp.zeros((), e.dtype))
    # a sum over the last axis starts in windows, fused with the exponentials (relax_jax.reductions)
    s = f.sum(window_sums(astype(e, f.cd)) if axis == e.ndim - 1 else e, axis=axis, keepdims=True)
    return f, m, e, s


def _axis(ctx, x) -> int:
    return int(ctx.attrs["axis"]) % x.ndim


@lowering("relax.nn.softmax", padding="aware")
def _softmax(ctx, x):
    axis = _axis(ctx, x)
    if x.shape[axis] == 0:      # an empty axis: an empty result, no maximum to take
        return box(ctx, x, ctx.valid(0))
    f, m, e, s = _softmax_parts(ctx, x, axis)
    return box(ctx, f.div(e, s).astype(x.dtype), ctx.valid(0))


@lowering("relax.nn.log_softmax", padding="aware")
def _log_softmax(ctx, x):
    axis = _axis(ctx, x)
    if x.shape[axis] == 0:      # an empty axis: an empty result, no maximum to take
        return box(ctx, x, ctx.valid(0))
    f, m, e, s = _softmax_parts(ctx, x, axis)
    xw = x.astype(f.t)
    return box(ctx, f.sub(f.sub(xw, m), f.intrin(jnp.log, s)).astype(x.dtype), ctx.valid(0))


# ---------------------------------------------------------------------------------------------------
# pad, prelu, batch_flatten, pixel_shuffle, dropout
# ---------------------------------------------------------------------------------------------------


@lowering("relax.nn.pad")
def _pad(ctx, x):
    widths = tuple(int(v) for v in ctx.attrs["pad_width"])
    mode = ctx.attrs.get("pad_mode", "constant")
    value = float(ctx.attrs.get("pad_value", 0.0))
    idx_per_axis, valid_per_axis = pad_plan(ctx.op_name, tuple(int(n) for n in x.shape), widths, mode)
    fill = cast(jnp.asarray(value, jnp.float64), "float64", dtype_of(x))
    if int(np.prod(x.shape, dtype=np.int64)) == 0:
        return jnp.full(tuple(len(i) for i in idx_per_axis), fill, x.dtype)
    if x.ndim == 0:
        return x
    out = x[np.ix_(*idx_per_axis)]
    if mode == "constant":
        mask = np.ones(out.shape, dtype=bool)
        for d, v in enumerate(valid_per_axis):
            shape = [1] * x.ndim
            shape[d] = len(v)
            mask &= v.reshape(shape)
        out = jnp.where(mask, out, fill).astype(x.dtype)
    return out


@lowering("relax.nn.prelu", padding="aware")
def _prelu(ctx, x, alpha):
    dt = dtype_of(x)
    axis = int(ctx.attrs["axis"]) % max(x.ndim, 1)
    if ctx.padded(0, [axis]) or ctx.padded(1):
        raise NeedsExact("prelu along a padded axis")
    shape = [1] * x.ndim
    shape[axis] = alpha.shape[0]
    a = cast(alpha, dtype_of(alpha), dt).reshape(shape)
    f = FOps(dt)
    return box(ctx, jnp.where(x > np.asarray(0, np_dtype(dt)), x, f.mul(x, a)).astype(x.dtype), ctx.valid(0))


@lowering("relax.nn.batch_flatten", padding="aware")
def _batch_flatten(ctx, x):
    dims = ctx.vals[0].dims()
    if any(not d.is_static for d in dims[1:]):
        raise NeedsExact("batch_flatten of a tensor padded on an inner axis")
    rest = int(np.prod([dim_value(d.val) for d in dims[1:]], dtype=np.int64))
    return reshape_padded(ctx, x, 0, ShapeV([dims[0], SymInt.static(rest)]))


@lowering("relax.nn.pixel_shuffle")
def _pixel_shuffle(ctx, x):
    r = int(ctx.attrs["upscale_factor"])
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    nl = len(lead)
    perm = list(range(nl)) + [nl, nl + 3, nl + 1, nl + 4, nl + 2]
    return jnp.transpose(y, perm).reshape(*lead, c // (r * r), h * r, w * r)


@lowering("relax.nn.dropout", padding="aware")
def _dropout(ctx, x):
    v = ctx.valid(0)
    return box(ctx, x, v), box(ctx, jnp.ones(x.shape, x.dtype), v)


# ---------------------------------------------------------------------------------------------------
# Normalizations
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# image.resize2d
# ---------------------------------------------------------------------------------------------------



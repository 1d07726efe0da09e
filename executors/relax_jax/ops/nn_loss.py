"""Lowerings of the losses (semantics: ``relax_ref.ops.nn_loss``). Exact shapes.
"""

from __future__ import annotations

import jax.numpy as jnp

from relax_ref.ir import dtype as _dt

from ..dims import dim_value
from ..lowering import lowering
from ..prim_jax import cast
from .common import dtype_of, float32_once
from .nn_common import FOps, inferred_out_dtype


@lowering("relax.nn.cross_entropy_with_logits")
@float32_once
def _cross_entropy(ctx, x, y):
    dt = inferred_out_dtype(ctx, x)
    x, y = cast(x, dtype_of(x), dt), cast(y, dtype_of(y), dt)
    if _dt.is_float(dt):
        f = FOps(dt)
        s = f.sum(f.mul(x, y), axis=None)
        neg = -s
        if x.ndim > 1:
            return f.div(neg, f.const(float(x.shape[0])))
        return neg
    s = jnp.sum(x.astype(jnp.int64) * y.astype(jnp.int64)).astype(x.dtype).astype(jnp.int64)
    neg = (-s).astype(x.dtype).astype(jnp.int64)
    if x.ndim > 1:
        n = dim_value(x.shape[0])
        q = jnp.abs(neg) // n
        return jnp.where(neg < 0, -q, q).astype(x.dtype)
    return neg.astype(x.dtype)


@lowering("relax.nn.nll_loss")
@float32_once
def _nll_loss(ctx, pred, targets, weights=None):
    dt = dtype_of(pred)
    reduction = ctx.attrs.get("reduction", "mean")
    ignore = int(ctx.attrs.get("ignore_index", -100))
    f = FOps(dt)
    ncls = int(pred.shape[0] if pred.ndim == 1 else pred.shape[1])
    w = jnp.ones((ncls,), pred.dtype) if weights is None else cast(weights, dtype_of(weights), dt)
    if ncls == 0:
        # no classes: every target is ignored or out of range (the check's error, OP.nn.nll_loss's run-time
        # check); one zero class stands in so that nothing gathers from an empty axis
        pred = jnp.zeros(pred.shape[:1] + (1,) + pred.shape[2:] if pred.ndim > 1 else (1,), pred.dtype)
        w = jnp.zeros((1,), pred.dtype)
    t = targets.astype(jnp.int64)
    valid = t != ignore
    tc = jnp.clip(jnp.where(valid, t, 0), 0, max(ncls - 1, 0))
    zero = f.const(0)
    if pred.ndim == 1:
        out = jnp.where(valid, f.mul(-pred[tc], w[tc]), zero)
        if reduction == "mean":
            return f.div(out, jnp.where(valid, w[tc], zero))
        return out
    p = jnp.take_along_axis(pred, jnp.expand_dims(tc, 1), axis=1)[:, 0]
    out = jnp.where(valid, f.mul(-p, w[tc]), zero).astype(pred.dtype)
    if reduction == "none":
        return out
    total = f.sum(out, axis=None)
    if reduction == "sum":
        return total
    wsum = f.sum(jnp.where(valid, w[tc], zero), axis=None)
    return f.div(total, wsum)

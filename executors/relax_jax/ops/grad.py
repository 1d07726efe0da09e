"""Lowerings of the gradient operators (semantics: ``relax_ref.ops.grad``): the markers return their
argument's box; ``take_backward`` is a scatter-add, ``nll_loss_backward`` the one-hot weighted
gradient, the pooling gradients the reference's formula (``relax_ref.ops.grad_pool``) on JAX arrays.
Exact shapes."""

from __future__ import annotations

import jax.numpy as jnp

from ..lowering import lowering


@lowering("relax.grad.no_grad", "relax.grad.start_checkpoint", "relax.grad.end_checkpoint", padding="aware")
def _marker(ctx, x):
    return ctx.vals[0]


@lowering("relax.grad.take_backward")
def _take_backward(ctx, g, x, idx):
    axis = ctx.attrs.get("axis")
    i = idx.astype(jnp.int64)
    if axis is None:
        return jnp.zeros((x.size,), x.dtype).at[i].add(g.reshape(-1)).reshape(x.shape)
    ax = axis % x.ndim
    out = jnp.moveaxis(jnp.zeros(x.shape, x.dtype), ax, 0).at[i].add(jnp.moveaxis(g, ax, 0))
    return jnp.moveaxis(out, 0, ax)


@lowering("relax.grad.nll_loss_backward")
def _nll_loss_backward(ctx, g, p, t, w=None):
    dt = p.dtype
    c = p.shape[0] if p.ndim == 1 else p.shape[1]
    if p.size == 0:
        # no class or no sample: the result is empty (a target, if any, is outside [0, C), which the
        # shared check reports), and XLA cannot gather from C = 0 weights
        return jnp.zeros(p.shape, dt)
    w = jnp.ones((c,), dt) if w is None else w
    ign = int(ctx.attrs.get("ignore_index", -100))
    red = ctx.attrs.get("reduction", "mean")
    t = t.astype(jnp.int64)
    keep = t != ign
    tc = jnp.where(keep, t, 0)
    # the weights in the predictions' dtype first, as the reference's result: jax promotes no 8-bit float
    # implicitly (a float8 weight with float32 predictions)
    wt = jnp.where(keep, w[tc].astype(dt), jnp.zeros((), dt))
    gg = jnp.broadcast_to(g, t.shape).astype(dt)
    if red == "mean":
        gg = (gg / jnp.sum(wt, dtype=dt)).astype(dt)
    val = (-wt * gg).astype(dt)
    if p.ndim == 1:
        return jnp.where((jnp.arange(c) == tc) & keep, val, jnp.zeros((), dt)).astype(dt)
    onehot = jnp.arange(c).reshape((1, c) + (1,) * (p.ndim - 2)) == tc[:, None]
    return jnp.where(onehot & keep[:, None], val[:, None], jnp.zeros((), dt)).astype(dt)


@lowering("relax.grad.max_pool2d_backward", "relax.grad.avg_pool2d_backward")
def _pool2d_backward(ctx, g, x):
    from relax_ref.ops.grad_pool import pool_grad_canonical

    from .nn_common import from_canonical, layout_perm, to_canonical

    perm = layout_perm(ctx, ctx.attrs["layout"], "NCHW", "data")
    operm = layout_perm(ctx, ctx.attrs["out_layout"], "NCHW", "output")
    k, s, p, d = (tuple(int(v) for v in ctx.attrs[n]) for n in ("pool_size", "strides", "padding", "dilation"))
    kind = "max" if "max_pool" in ctx.op_name else "avg"
    y = pool_grad_canonical(jnp, kind, to_canonical(g, operm), to_canonical(x, perm), k, s, p, d,
                            bool(ctx.attrs["ceil_mode"]), bool(ctx.attrs["count_include_pad"]), ctx.op_name)
    return from_canonical(y, perm)

"""Lowering of ``multinomial_from_uniform`` (semantics: ``relax_ref.ops.sampling``): the running sum
of each probability row, then the count of sums not above the sample."""

from __future__ import annotations

import jax.numpy as jnp

from ..lowering import lowering
from ..prim_jax import np_dtype


@lowering("relax.multinomial_from_uniform")
def _multinomial(ctx, prob, u, idx):
    dtype = ctx.attrs.get("dtype", "int64")
    vocab = prob.shape[1]
    c = jnp.cumsum(prob, axis=1, dtype=prob.dtype)
    rows = c[jnp.clip(idx[:, 0].astype(jnp.int64), 0, max(prob.shape[0] - 1, 0))]
    below = jnp.sum(rows <= u.astype(prob.dtype), axis=1)
    return jnp.minimum(below, max(vocab - 1, 0)).reshape(-1, 1).astype(np_dtype(dtype))

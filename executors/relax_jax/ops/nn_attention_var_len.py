"""Lowering of ``nn.attention_var_len`` (semantics: ``relax_ref.ops.nn_attention_var_len``): one masked
attention over all rows, a query row seeing the key rows of its own sequence only (and the causal
mask in the sequence's local positions); rows outside every sequence are 0. Exact shapes."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import prim_expr as P

from ..lowering import lowering
from ..prim_jax import np_dtype
from .common import dtype_of, float32_once
from .nn_common import FOps


def _segments(starts, n: int):
    """(sequence index or -1, local position, sequence length) of each of ``n`` rows."""
    rows = jnp.arange(n, dtype=jnp.int64)
    seg = jnp.searchsorted(starts, rows, side="right") - 1
    nseg = starts.shape[0] - 1
    inside = (seg >= 0) & (seg < nseg)
    segc = jnp.clip(seg, 0, max(nseg - 1, 0))
    length = starts[segc + 1] - starts[segc]
    return jnp.where(inside, segc, -1), rows - starts[segc], length


@lowering("relax.nn.attention_var_len")
@float32_once                  # bfloat16: float32 stages, rounded once (OP.SEM.7), as the reference
def _attention_var_len(ctx, q, k, v, sq, sk, mq, mk):
    dt = dtype_of(q)
    f = FOps(dt)
    mask = ctx.attrs.get("causal_mask")
    scale = ctx.attrs.get("scale")
    _, tq, nh, e = q.shape
    tk, nkv = k.shape[1], k.shape[2]
    if tq == 0 or tk == 0:      # no rows, or no keys (then no sequence has queries, C5): zeros
        return jnp.zeros(q.shape[:3] + (v.shape[3],), np_dtype(dt))
    rep = nh // nkv
    qs, qpos, qlen = _segments(sq.astype(jnp.int64), tq)
    ks, kpos, _ = _segments(sk.astype(jnp.int64), tk)
    allowed = (qs[:, None] == ks[None, :]) & (qs[:, None] >= 0)
    if mask is not None:
        off = jnp.zeros_like(qlen) if mask == "TopLeft" else jnp.abs(qlen - _klen_of(sk, qs))
        allowed = allowed & (kpos[None, :] <= qpos[:, None] + off[:, None])
    cd = f.cd
    qt = jnp.transpose(q[0], (1, 0, 2))
    kt = jnp.repeat(jnp.transpose(k[0], (1, 0, 2)), rep, axis=0)
    vt = jnp.repeat(jnp.transpose(v[0], (1, 0, 2)), rep, axis=0)
    p = jnp.matmul(qt.astype(cd), jnp.swapaxes(kt, -1, -2).astype(cd), precision=lax.Precision.HIGHEST).astype(
        np_dtype(dt))
    if scale is not None:
        sv = float(scale.value if isinstance(scale, P.FloatImm) else scale)
        p = f.mul(p, np.asarray(sv, np.float32).astype(np_dtype(dt)))
    else:
        p = f.div(p, f.intrin(jnp.sqrt, f.const(float(e))))
    neg = jnp.asarray(-np.inf, p.dtype)
    pm = jnp.where(allowed[None], p, neg)
    m = jnp.max(pm, axis=-1, keepdims=True)
    m = jnp.where(jnp.isfinite(m), m, jnp.zeros((), p.dtype))
    ex = jnp.where(allowed[None], jnp.exp(p - m), jnp.zeros((), p.dtype))
    s = jnp.sum(ex, axis=-1, keepdims=True)
    w = ex / jnp.where(s > 0, s, jnp.ones((), p.dtype))
    o = jnp.matmul(w.astype(cd), vt.astype(cd), precision=lax.Precision.HIGHEST).astype(np_dtype(dt))
    return jnp.transpose(o, (1, 0, 2))[None]


def _klen_of(sk, qs):
    """The key length of each query row's sequence."""
    sk = sk.astype(jnp.int64)
    qc = jnp.clip(qs, 0, max(sk.shape[0] - 2, 0))
    return sk[qc + 1] - sk[qc]

"""Lowering of ``nn.attention`` and ``nn.attention_bias`` (semantics: ``relax_ref.ops.nn_attention``):
padding-aware along the sequence axes (padded keys are excluded from the max and the sum, padded value
rows are zeroed, the causal offset uses the logical lengths).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import prim_expr as P

from ..dims import dim_value
from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import np_dtype
from .common import dtype_of
from .nn_common import FOps, box


@lowering("relax.nn.attention", "relax.nn.attention_bias", padding="aware")
def _attention(ctx, q, k, v, bias=None):
    dt = dtype_of(q)
    mask = ctx.attrs.get("causal_mask")
    scale = ctx.attrs.get("scale")
    sv = None if scale is None else float(scale.value if isinstance(scale, P.FloatImm) else scale)
    f = FOps(dt)
    qd, kd = ctx.vals[0].dims(), ctx.vals[1].dims()
    if ctx.padded(0, [0, 2, 3]) or ctx.padded(1, [0, 2, 3]) or ctx.padded(2, [0, 2, 3]):
        raise NeedsExact("attention with padded batch, head or feature axes")
    bsz, s, nh, e = q.shape
    if k.shape[1] != v.shape[1]:
        raise NeedsExact("key and value padded differently")
    nkv = dim_value(k.shape[2])
    rep = nh // nkv
    cd = f.cd
    qt = jnp.transpose(q, (0, 2, 1, 3))
    kt = jnp.transpose(k, (0, 2, 1, 3))
    vt = jnp.transpose(v, (0, 2, 1, 3))
    if rep > 1:
        kt = jnp.repeat(kt, rep, axis=1)
        vt = jnp.repeat(vt, rep, axis=1)
    kvalid = ctx.valid(1)[1]
    skv_phys = dim_value(k.shape[1])
    kmask = None
    if kvalid is not None:
        kmask = (jnp.arange(skv_phys, dtype=jnp.int64) < jnp.asarray(kvalid.val, jnp.int64))[None, :]
        vt = jnp.where(kmask[..., None], vt, jnp.zeros((), vt.dtype))
    p = jnp.matmul(qt.astype(cd), jnp.swapaxes(kt, -1, -2).astype(cd), precision=lax.Precision.HIGHEST).astype(
        np_dtype(dt))
    if sv is not None:
        p = f.mul(p, np.asarray(sv, np.float32).astype(np_dtype(dt)))
    else:
        p = f.div(p, f.intrin(jnp.sqrt, f.const(float(e))))
    if bias is not None:
        if ctx.padded(3):
            raise NeedsExact("attention bias with padding")
        p = f.add(p, jnp.broadcast_to(bias, p.shape))
    neg = jnp.asarray(-np.inf, p.dtype)
    if mask is None:
        keep = kmask
        pm = p
    else:
        sq = qd[1].val if not qd[1].is_static else dim_value(qd[1].val)
        sk = kd[1].val if not kd[1].is_static else dim_value(kd[1].val)
        offset = 0 if mask == "TopLeft" else jnp.abs(jnp.asarray(sq, jnp.int64) - jnp.asarray(sk, jnp.int64))
        causal = jnp.arange(skv_phys, dtype=jnp.int64)[None, :] <= \
            jnp.arange(dim_value(q.shape[1]), dtype=jnp.int64)[:, None] + offset
        pm = jnp.where(causal, p, f.const(0))
        keep = causal if kmask is None else jnp.logical_and(causal, kmask)
    mx = pm if kmask is None else jnp.where(kmask, pm, neg)
    m = jnp.max(mx, axis=-1, keepdims=True)
    ex = f.intrin(jnp.exp, f.sub(pm, m))
    if keep is not None:
        ex = jnp.where(keep, ex, f.const(0))
    ssum = f.sum(ex, axis=-1, keepdims=True)
    sm = f.div(ex, ssum)
    o = jnp.matmul(sm.astype(cd), vt.astype(cd), precision=lax.Precision.HIGHEST).astype(np_dtype(dt))
    out = jnp.transpose(o, (0, 2, 1, 3))
    return box(ctx, out, (None, ctx.valid(0)[1], None, None))

"""Lowering of ``nn.attention`` and ``nn.attention_bias`` (semantics: ``relax_ref.ops.nn_attention``):
padding-aware along the sequence axes (padded keys are excluded from the max and the sum, padded value
rows are zeroed, the causal offset uses the logical lengths).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import prim_expr as P
from relax_ref.ops.nn_common import intermediate_dtype

from ..dims import dim_value
from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import np_dtype
from ..reductions import reduce_last
from .common import dtype_of
from .nn_common import FOps, box


@lowering("relax.nn.attention", "relax.nn.attention_bias", padding="aware")
def _attention(ctx, q, k, v, bias=None):
    out_dt = dtype_of(q)
    dt = intermediate_dtype(out_dt)                 # bfloat16: float32 stages, rounded once (OP.SEM.7)
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
    k, v = _repeat_sources(ctx.walker, k, v)
    if dt != out_dt:
        q, k, v = (t.astype(np_dtype(dt)) for t in (q, k, v))
        bias = None if bias is None else bias.astype(np_dtype(dt))
    nkv = dim_value(k.shape[2])
    rep = nh // nkv
    cd = f.cd
    kvalid = ctx.valid(1)[1]
    skv_phys = dim_value(k.shape[1])
    kmask = None
    if kvalid is not None:
        kmask = (jnp.arange(skv_phys, dtype=jnp.int64) < jnp.asarray(kvalid.val, jnp.int64))[None, :]
        v = jnp.where(kmask.reshape(1, skv_phys, 1, 1), v, jnp.zeros((), v.dtype))
    qg = q.reshape(bsz, s, nkv, rep, e).astype(cd)
    p = _scores(k.astype(cd), qg, dim_value(s), rep, e)
    p = p.reshape(bsz, nh, s, skv_phys).astype(np_dtype(dt))
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
        fill = None if kmask is None else neg
    else:
        sq = qd[1].val if not qd[1].is_static else dim_value(qd[1].val)
        sk = kd[1].val if not kd[1].is_static else dim_value(kd[1].val)
        offset = 0 if mask == "TopLeft" else jnp.abs(jnp.asarray(sq, jnp.int64) - jnp.asarray(sk, jnp.int64))
        causal = jnp.arange(skv_phys, dtype=jnp.int64)[None, :] <= \
            jnp.arange(dim_value(q.shape[1]), dtype=jnp.int64)[:, None] + offset
        keep = causal if kmask is None else jnp.logical_and(causal, kmask)
        # the causally masked scores count as 0 in the row's maximum, the padded keys not at all
        fill = f.const(0) if kmask is None else jnp.where(kmask, f.const(0), neg)
    # the scores are read once, with their fill (the masks are (rows, keys) only): the maximum and the
    # exponential both read that one array, so XLA fuses the scaling into it and keeps one score-sized
    # buffer where reading the scaled scores twice kept two; the exponential of a kept score is the
    # same either way, and the others are zeroed below
    pf = p if keep is None else jnp.where(keep, p, fill)
    m = reduce_last("max", pf, keepdims=True)     # in windows, the masking fused (relax_jax.reductions)
    ex = f.intrin(jnp.exp, f.sub(pf, m))
    if keep is not None:
        ex = jnp.where(keep, ex, f.const(0))
    ssum = f.sum(ex, axis=-1, keepdims=True)
    sm = f.div(ex, ssum)
    sg = sm.astype(cd).reshape(bsz, nkv, rep, s, skv_phys)
    # the probabilities are the left operand: the values are copied as rows of ``e`` into
    # ``(b, g, t, e)`` (an operand order XLA would otherwise pick the other way round)
    o = lax.dot_general(sg, v.astype(cd), (((4,), (1,)), ((0, 1), (0, 2))), precision=lax.Precision.HIGHEST)
    out = jnp.transpose(o, (0, 3, 1, 2, 4)).reshape(bsz, s, nh, v.shape[3]).astype(np_dtype(out_dt))
    return box(ctx, out, (None, ctx.valid(0)[1], None, None))


def _repeat_sources(walker, k, v):
    """``k`` and ``v`` or, when both are ``repeat`` results along the head axis of this trace (the
    grouped-query spelling ``R.repeat(k, group, axis=2)`` before ``R.nn.attention``), their sources:
    repeating each KV head consecutively is what the grouped form reads anyway."""
    ek, ev = walker.repeats.get(id(k)), walker.repeats.get(id(v))
    if ek is None or ev is None or ek[0] is not k or ev[0] is not v:
        return k, v
    if ek[3] != 2 or ev[3] != 2 or ek[2] != ev[2] or ek[1].ndim != 4 or ev[1].ndim != 4:
        return k, v
    return ek[1], ev[1]


def _scores(k, qg, s: int, rep: int, e: int):
    """``q @ k^T`` per query head in the grouped-query form (query head ``g * rep + r`` reads KV head
    ``g``, ``qg`` is ``(b, s, g, rep, e)``, ``k`` is ``(b, t, g, e)``), as ``(b, g, rep, s, t)``.

    The operand order decides which layout copy XLA makes around the dot (the values are the same
    dot products either way). With the keys as the left operand XLA copies them as rows of ``e`` into
    ``(b, g, t, e)`` and the product comes out as ``(b, g, t, s, rep)``, which must be transposed
    (``rep * s * t`` elements per KV head); with the queries on the left (put in ``(b, g, rep, s, e)``
    order first: ``rep * s * e`` elements) the product is already in order and XLA transposes the keys
    instead (``t * e`` elements per KV head). So the keys go left
    when ``rep * s < e``: decoding (one query row, the cache long) must not transpose the whole cache,
    and prefill (as many query rows as keys) must not transpose the ``s x t`` scores."""
    hp = lax.Precision.HIGHEST
    if rep * s < e:
        p = lax.dot_general(k, qg, (((3,), (4,)), ((0, 2), (0, 2))), precision=hp)
        return jnp.transpose(p, (0, 1, 4, 3, 2))
    qt = jnp.transpose(qg, (0, 2, 3, 1, 4))
    return lax.dot_general(qt, k, (((4,), (3,)), ((0, 1), (0, 2))), precision=hp)

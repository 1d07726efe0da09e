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

from .. import laxops
from ..dims import dim_value, is_symbolic_dim
from ..errors import NeedsExact
from ..laxops import astype
from ..lowering import lowering
from ..prim_jax import np_dtype
from ..reductions import reduce_last, window_sums
from .common import dtype_of
from .nn_common import FOps, box

I64 = np.dtype(np.int64)


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
        q, k, v = (astype(t, np_dtype(dt)) for t in (q, k, v))
        bias = None if bias is None else astype(bias, np_dtype(dt))
    nkv = dim_value(k.shape[2])
    rep = nh // nkv
    cd = f.cd
    kvalid = ctx.valid(1)[1]
    skv_phys = dim_value(k.shape[1])
    kmask = None
    share = _sharing(ctx.walker)
    if kvalid is not None:
        kmask = share(("kmask", skv_phys, _size_key(kvalid)), [kvalid.val],
                      lambda: laxops.iota_lt(skv_phys, astype(kvalid.val, I64), (1, skv_phys), 1))
        v = laxops.where(laxops.reshape(kmask, (1, skv_phys, 1, 1)), v, np.zeros((), v.dtype))
    qg = astype(laxops.reshape(q, (bsz, s, nkv, rep, e)), cd)
    p = _scores(astype(k, cd), qg, dim_value(s), rep, e)
    p = astype(laxops.reshape(p, (bsz, nh, s, skv_phys)), np_dtype(dt))
    if sv is not None:
        p = f.mul(p, np.asarray(sv, np.float32).astype(np_dtype(dt)))
    else:
        p = f.div(p, f.intrin(jnp.sqrt, f.const(float(e))))
    if bias is not None:
        if ctx.padded(3):
            raise NeedsExact("attention bias with padding")
        p = f.add(p, jnp.broadcast_to(bias, p.shape))
    neg = np.asarray(-np.inf, p.dtype)
    if mask is None:
        keep = kmask
        fill = None if kmask is None else neg
    else:
        def masks():
            keep = _causal(mask, qd[1], kd[1], dim_value(q.shape[1]), skv_phys)
            if kmask is not None:
                keep = lax.bitwise_and(keep, lax.broadcast_in_dim(kmask, keep.shape, (0, 1)))
            # the causally masked scores count as 0 in the row's maximum, the padded keys not at all
            return keep, (f.const(0) if kmask is None else laxops.where(kmask, f.const(0), neg))
        # the same masks for every layer of a model (the same lengths): built once per trace
        keep, fill = share(("causal", mask, str(dt), dim_value(q.shape[1]), skv_phys, _size_key(qd[1]),
                            _size_key(kd[1]), id(kmask)), [qd[1].val, kd[1].val, kmask], masks)
    # the maximum reads the scores with their fill (the masks are (rows, keys) only); the exponential
    # reads the scores themselves and the mask zeroes its masked values after it: the exponential of a
    # kept score is the same either way, and no mask is computed in the exponentials' loop, which
    # XLA's CPU backend vectorizes poorly with an iota comparison in it (on jaxlib 0.10 an
    # ``exp(x - m)`` over (8, 512, 512) with the causal mask fused took 1.6-1.9 ms, alone 0.75-0.95
    # ms); the mask's select moves into the row sum's and the division's loops, where it costs
    # nothing measurable
    pf = p if keep is None else laxops.where(keep, p, fill)
    m = reduce_last("max", pf, keepdims=True)     # in windows, the masking fused (relax_jax.reductions)
    if keep is None:
        ex = f.intrin(jnp.exp, f.sub(pf, m))
    else:
        ex = laxops.where(keep, f.intrin(jnp.exp, f.sub(p, m)), f.const(0))
    ssum = f.sum(window_sums(astype(ex, cd)), axis=-1, keepdims=True)     # summed where they are made
    sm = f.div(ex, ssum)
    sg = laxops.reshape(astype(sm, cd), (bsz, nkv, rep, s, skv_phys))
    # the probabilities are the left operand: the values are copied as rows of ``e`` into
    # ``(b, g, t, e)`` (an operand order XLA would otherwise pick the other way round)
    o = lax.dot_general(sg, astype(v, cd), (((4,), (1,)), ((0, 1), (0, 2))), precision=lax.Precision.HIGHEST)
    out = astype(laxops.reshape(lax.transpose(o, (0, 3, 1, 2, 4)), (bsz, s, nh, v.shape[3])), np_dtype(out_dt))
    return box(ctx, out, (None, ctx.valid(0)[1], None, None))


def _size_key(d) -> tuple:
    """A logical length in a sharing key: static by value, traced by the identity of its value."""
    return (0, d.val) if type(d.val) is int else (1, id(d.val), d.phys)


def _sharing(walker):
    """``share(key, keep, make)``: ``make()`` once per trace for ``key`` at the top level of a traced
    walk (:meth:`relax_jax.op_memo.OpMemo.shared`), made each time elsewhere."""
    if walker.traced and walker.level == 0:
        return walker.op_memo.shared
    return lambda key, keep, make: make()


def _causal(mask: str, dq, dk, sq_phys: int, skv_phys: int):
    """The ``(rows, keys)`` causal mask: key ``j`` is kept for query row ``i`` when ``j <= i + offset``,
    the offset 0 for ``TopLeft`` and ``|Skv - S|`` (logical lengths) otherwise -- decided while
    tracing when both lengths are static, or one traced length (prefill: 0)."""
    if any(is_symbolic_dim(v) for v in (dq.val, dk.val, sq_phys, skv_phys)):     # under jax.export
        sq, sk = dq.val, dk.val
        offset = 0 if mask == "TopLeft" else jnp.abs(jnp.asarray(sq, jnp.int64) - jnp.asarray(sk, jnp.int64))
        return jnp.arange(skv_phys, dtype=jnp.int64)[None, :] <= jnp.arange(sq_phys, dtype=jnp.int64)[:, None] + offset
    if mask == "TopLeft" or dq.val is dk.val:
        offset = 0
    elif dq.is_static and dk.is_static:
        offset = abs(dim_value(dq.val) - dim_value(dk.val))
    else:
        sq = astype(dq.val if not dq.is_static else np.int64(dim_value(dq.val)), I64)
        sk = astype(dk.val if not dk.is_static else np.int64(dim_value(dk.val)), I64)
        offset = lax.abs(lax.sub(sq, sk))
    keys = lax.broadcast_in_dim(lax.iota(I64, skv_phys), (sq_phys, skv_phys), (1,))
    rows = lax.broadcast_in_dim(lax.iota(I64, sq_phys), (sq_phys, skv_phys), (0,))
    if not (isinstance(offset, int) and offset == 0):
        rows = lax.add(rows, lax.broadcast_in_dim(astype(np.int64(offset) if isinstance(offset, int) else offset, I64),
                                                  (sq_phys, skv_phys), ()))
    return lax.le(keys, rows)


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
        return lax.transpose(p, (0, 1, 4, 3, 2))
    qt = lax.transpose(qg, (0, 2, 3, 1, 4))
    return lax.dot_general(qt, k, (((4,), (3,)), ((0, 1), (0, 2))), precision=hp)

"""The values of TVM's paged KV cache (spec rules CALL.PAGEDKV.8 and CALL.PAGEDKV.9): rotary position
embedding as TVM applies it, and the causal attention of each new token over its sequence's history,
written once over an array namespace (``numpy`` for the reference, ``jax.numpy`` for relax_jax).

The page pool of one cache is an array of shape ``(layers, 2, (pages + 1) * P, kv_heads, head_dim)``:
axis 1 holds keys and values, axis 2 the flat slots (page ``p``'s slot ``o`` is ``p * P + o``); the
extra last page is a scratch page that padded reads and writes use.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

ROPE_NONE, ROPE_NORMAL, ROPE_INLINE = 0, 1, 2


def rope(xp: Any, x: Any, pos: Any, scale: float, theta: float) -> Any:
    """CALL.PAGEDKV.9: ``x`` (N, H, D) rotated at the positions ``pos`` (N,), computed in float32:
    ``y[d] = cos(f_d) x[d] + sin(f_d) r[d]`` with ``f_d = pos * scale / theta ** ((2 d mod D) / D)``,
    ``r[d] = -x[d + D/2]`` for ``d < D/2`` and ``x[d - D/2]`` otherwise."""
    d = x.shape[-1]
    half = d // 2
    idx = xp.arange(d, dtype=xp.float32)
    inv = xp.asarray(theta, xp.float32) ** -((2 * idx) % d / xp.asarray(d, xp.float32))
    f = (xp.asarray(pos).astype(xp.float32) * xp.asarray(scale, xp.float32))[:, None, None] * inv
    xf = x.astype(xp.float32)
    rot = xp.concatenate([-xf[..., half:], xf[..., :half]], axis=-1)
    return (xp.cos(f) * xf + xp.sin(f) * rot).astype(x.dtype)


def split_qkv(qkv: Any, hq: int, hkv: int) -> Tuple[Any, Any, Any]:
    """CALL.PAGEDKV.8: the fused ``(T, hq + 2 hkv, D)`` tensor's query, key and value heads."""
    return qkv[:, :hq], qkv[:, hq:hq + hkv], qkv[:, hq + hkv:]


def stored_keys(xp: Any, k: Any, pos: Any, mode: int, scale: float, theta: float) -> Any:
    """The keys a forward writes into the pages: rotated at their positions in the normal rope mode,
    as given otherwise (CALL.PAGEDKV.9)."""
    return rope(xp, k, pos, scale, theta) if mode == ROPE_NORMAL else k


def attend(xp: Any, q: Any, k_hist: Any, v_hist: Any, pos: Any, seq: Any, hist_len: Any, mode: int,
           scale: float, theta: float, sm_scale: float, new_v: Any = None, cond: Optional[Callable] = None) -> Any:
    """CALL.PAGEDKV.8: the attention output (T, hq, D) of the queries ``q`` (T, hq, D) at positions
    ``pos`` (T,) of the batch sequences ``seq`` (T,), over the keys/values ``k_hist``/``v_hist``
    (B, L, hkv, D) read from the pages (position ``j`` of sequence ``b`` at ``[b, j]``; ``hist_len``
    (B,) the valid lengths). Query head ``h`` reads key/value head ``h // (hq / hkv)``; token ``t``
    attends to positions ``j <= pos[t]``; the scores are ``sm_scale * <q, k>`` in float32.

    A masked position contributes nothing, whatever it holds (an infinity or a NaN stored by a later
    token of the same forward): its score is replaced, and when a value the forward stored is not
    finite the weighted sum reads the fresh positions through :func:`_fresh_values` and
    :func:`_nonfinite_sum` (else 0 times each masked value is 0). The history read past a sequence's
    length must be finite (the scratch page). ``new_v`` (T, hkv, D), when given, are the values this
    forward stored (padding tokens' rows finite), which decide that branch (``cond(pred, f, g, x)``,
    ``lax.cond`` in a trace; by default a Python branch)."""
    t, hq, d = q.shape
    b, length, hkv, _ = k_hist.shape
    if mode != ROPE_NONE:
        q = rope(xp, q, pos, scale, theta)
    if mode == ROPE_INLINE:
        j = xp.tile(xp.arange(length), b)
        k_hist = rope(xp, k_hist.reshape(b * length, hkv, d), j, scale, theta).reshape(b, length, hkv, d)
    group = hq // hkv
    # grouped-query scores of every token against every batch sequence's history, (T, B, hkv, group, L),
    # the other sequences masked, and the output of its own sequence taken: no history is gathered per
    # token (a (T, L, hq, D) copy), and no other sequence's values enter a token's output
    qg = q.astype(xp.float32).reshape(t, hkv, group, d)
    scores = xp.einsum("tkgd,blkd->tbkgl", qg, k_hist.astype(xp.float32)) * xp.asarray(sm_scale, xp.float32)
    jpos = xp.arange(length)
    mine = seq[:, None] == xp.arange(b)[None, :]                                          # (T, B)
    ok = mine[:, :, None] & (jpos[None, None, :] <= pos[:, None, None]) & (jpos[None, None, :] < hist_len[None, :, None])
    scores = xp.where(ok[:, :, None, None, :], scores, xp.asarray(-xp.inf, xp.float32))
    scores = scores - scores.max(axis=(1, 4), keepdims=True)
    w = xp.exp(scores)
    w = w / w.sum(axis=(1, 4), keepdims=True)
    vf = v_hist.astype(xp.float32)
    if new_v is not None:
        bad = xp.any(~xp.isfinite(new_v))
    else:
        bad = xp.any(_fresh_values(xp, vf, mine, pos, hist_len)[0][:, :, None, None] & ~xp.isfinite(vf))

    def exact(w: Any) -> Any:
        fresh, v_safe = _fresh_values(xp, vf, mine, pos, hist_len)
        return xp.einsum("tbkgl,blkd->tbkgd", w, v_safe) + _nonfinite_sum(xp, w, ok & fresh[None], vf)

    def plain(w: Any) -> Any:           # every value a token may not see is finite: 0 times it is 0
        return xp.einsum("tbkgl,blkd->tbkgd", w, vf)
    run = cond if cond is not None else (lambda p, f, g, x: f(x) if p else g(x))
    out = run(bad, exact, plain, w)
    out = out[xp.arange(t), seq]                                                        # its own sequence's
    return out.reshape(t, hq, d).astype(q.dtype)


def _fresh_values(xp: Any, vf: Any, mine: Any, pos: Any, hist_len: Any) -> Tuple[Any, Any]:
    """The *fresh* positions (B, L) of the values ``vf`` (float32) -- from a sequence's first new token
    up to its length, visible to some of its tokens only -- and the values the weighted sum reads: a
    position before the first new token as stored (every token of the sequence sees it), a fresh one
    when finite, 0 otherwise (its non-finite values are :func:`_nonfinite_sum`'s)."""
    length = vf.shape[1]
    jpos = xp.arange(length)
    first = xp.where(mine, pos[:, None], length).min(axis=0)                              # (B,)
    shared = jpos[None, :] < first[:, None]
    fresh = ~shared & (jpos[None, :] < hist_len[:, None])
    keep = shared[:, :, None, None] | (fresh[:, :, None, None] & xp.isfinite(vf))
    return fresh, xp.where(keep, vf, xp.asarray(0, xp.float32))


def _nonfinite_sum(xp: Any, w: Any, seen: Any, v: Any) -> Any:
    """The weighted sum of the non-finite fresh values over the positions each token sees (``seen``,
    (T, B, L)), as float32 arithmetic gives it term by term: NaN where one is NaN, where an infinity
    meets a zero weight or both infinities meet; otherwise the infinity met; 0 where none."""
    f32 = xp.float32
    seen_w = seen[:, :, None, None, :]
    pos_w, zero_w = (seen_w & (w > 0)).astype(f32), (seen_w & (w == 0)).astype(f32)
    nan = xp.einsum("tbl,blkd->tbkd", seen.astype(f32), xp.isnan(v).astype(f32))[:, :, :, None] > 0
    pinf = xp.einsum("tbkgl,blkd->tbkgd", pos_w, (v == xp.inf).astype(f32)) > 0
    ninf = xp.einsum("tbkgl,blkd->tbkgd", pos_w, (v == -xp.inf).astype(f32)) > 0
    zinf = xp.einsum("tbkgl,blkd->tbkgd", zero_w, xp.isinf(v).astype(f32)) > 0
    inf = xp.asarray(xp.inf, f32)
    return xp.where(nan | zinf | (pinf & ninf), xp.asarray(xp.nan, f32),
                    xp.where(pinf, inf, xp.where(ninf, -inf, xp.asarray(0, f32))))


__all__ = ["rope", "split_qkv", "stored_keys", "attend", "ROPE_NONE", "ROPE_NORMAL", "ROPE_INLINE"]

"""The values of TVM's paged KV cache (spec rules CALL.PAGEDKV.8 and CALL.PAGEDKV.9): rotary position
embedding as TVM applies it, and the causal attention of each new token over its sequence's history,
written once over an array namespace (``numpy`` for the reference, ``jax.numpy`` for relax_jax).

The page pool of one cache is an array of shape ``(layers, 2, (pages + 1) * P, kv_heads, head_dim)``:
axis 1 holds keys and values, axis 2 the flat slots (page ``p``'s slot ``o`` is ``p * P + o``); the
extra last page is a scratch page that padded reads and writes use.
"""

from __future__ import annotations

from typing import Any, Tuple

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
           scale: float, theta: float, sm_scale: float, new_v: Any = None, ctrl: Any = None) -> Any:
    """CALL.PAGEDKV.8: the attention output (T, hq, D) of the queries ``q`` (T, hq, D) at positions
    ``pos`` (T,) of the batch sequences ``seq`` (T,), over the keys/values ``k_hist``/``v_hist``
    (B, L, hkv, D) read from the pages (position ``j`` of sequence ``b`` at ``[b, j]``; ``hist_len``
    (B,) the valid lengths). Query head ``h`` reads key/value head ``h // (hq / hkv)``; token ``t``
    attends to positions ``j <= pos[t]``; the scores are ``sm_scale * <q, k>`` in float32.

    A masked position contributes nothing, whatever it holds (an infinity or a NaN stored by a later
    token of the same forward): its score is replaced, and when a value may not be finite the weighted
    sum is taken token by token over the values it sees (:func:`_token_sums`); otherwise 0 times each
    masked value is 0. The history read past a sequence's length must be finite (the scratch page).
    ``new_v`` (T, hkv, D), when given, are the values this forward stored (padding tokens' rows
    finite): the only values that may not be finite at a masked position, so they decide. ``ctrl``
    gives ``cond(pred, f, g, x)`` and ``map(f, xs)`` (``jax.lax`` in a trace; by default Python)."""
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
    ok = ((seq[:, None] == xp.arange(b)[None, :])[:, :, None] & (jpos[None, None, :] <= pos[:, None, None])
          & (jpos[None, None, :] < hist_len[None, :, None]))                                 # (T, B, L)
    scores = xp.where(ok[:, :, None, None, :], scores, xp.asarray(-xp.inf, xp.float32))
    scores = scores - scores.max(axis=(1, 4), keepdims=True)
    w = xp.exp(scores)
    w = w / w.sum(axis=(1, 4), keepdims=True)
    vf = v_hist.astype(xp.float32)

    def plain(w: Any) -> Any:
        # the values first: XLA's CPU backend then reads them in their rows' layout (the weights second,
        # the dot over the history unchanged up to its summation order, which the rule leaves free),
        # where the weights first made it transpose the values read through the page table
        return xp.einsum("blkd,tbkgl->tbkgd", vf, w)
    if t == 1:          # one new token: every position it does not see is finite (another sequence's are dropped)
        out = plain(w)
    else:
        ctrl = ctrl if ctrl is not None else _HostControl(xp)
        bad = xp.any(~xp.isfinite(new_v if new_v is not None else vf))
        out = ctrl.cond(bad, lambda w: _token_sums(xp, ctrl, w, ok, vf), plain, w)
    out = out[xp.arange(t), seq]                                                        # its own sequence's
    return out.reshape(t, hq, d).astype(q.dtype)


def _token_sums(xp: Any, ctrl: Any, w: Any, ok: Any, vf: Any) -> Any:
    """The weighted sums (T, B, hkv, group, D) token by token, each over the values it sees (the others
    read as 0): a non-finite value enters only the sums of the tokens that see it."""
    def one(i: Any) -> Any:
        seen = xp.where(ok[i][:, :, None, None], vf, xp.asarray(0, xp.float32))
        return xp.einsum("bkgl,blkd->bkgd", w[i], seen)
    return ctrl.map(one, xp.arange(w.shape[0]))


class _HostControl:
    """``ctrl`` of :func:`attend` on the host: a Python branch and a loop."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def cond(self, pred: Any, f: Any, g: Any, x: Any) -> Any:
        return f(x) if pred else g(x)

    def map(self, f: Any, xs: Any) -> Any:
        return self.xp.stack([f(x) for x in xs])


__all__ = ["rope", "split_qkv", "stored_keys", "attend", "ROPE_NONE", "ROPE_NORMAL", "ROPE_INLINE"]

"""The values of TVM's paged KV cache (spec rules CALL.PAGEDKV.8 and CALL.PAGEDKV.9): rotary position
embedding as TVM applies it, and the causal attention of each new token over its sequence's history,
written once over an array namespace (``numpy`` for the reference, ``jax.numpy`` for relax_jax).

The page pool of one cache is an array of shape ``(layers, 2, (pages + 1) * P, kv_heads, head_dim)``:
axis 1 holds keys and values, axis 2 the flat slots (page ``p``'s slot ``o`` is ``p * P + o``); the
extra last page is a scratch page that padded reads and writes use.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

ROPE_NONE, ROPE_NORMAL, ROPE_INLINE = 0, 1, 2


def rope(xp: Any, x: Any, pos: Any, scale: float, theta: float) -> Any:
    """CALL.PAGEDKV.9: ``x`` (N, H, D) rotated at the positions ``pos`` (N,), computed in float32:
    ``y[d] = cos(f_d) x[d] + sin(f_d) r[d]`` with ``f_d = pos * scale / theta ** ((2 d mod D) / D)``,
    ``r[d] = -x[d + D/2]`` for ``d < D/2`` and ``x[d - D/2]`` otherwise."""
    d = x.shape[-1]
    half = d // 2
    f = (xp.asarray(pos).astype(xp.float32) * xp.asarray(scale, xp.float32))[:, None, None] * _inverse_freq(d, theta)
    xf = x.astype(xp.float32)
    rot = xp.concatenate([-xf[..., half:], xf[..., :half]], axis=-1)
    return (xp.cos(f) * xf + xp.sin(f) * rot).astype(x.dtype)


def _inverse_freq(d: int, theta: float) -> np.ndarray:
    """``1 / theta ** ((2 d mod D) / D)`` (D,) in float32, computed by numpy whatever the array
    namespace: it depends on the configuration alone (a constant of a compiled program, where XLA
    computed it in a kernel of its own at run time)."""
    idx = np.arange(d, dtype=np.float32)
    return np.float32(theta) ** -((2 * idx) % d / np.float32(d))


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
    gives ``cond(pred, f, g, x)``, ``map(f, xs)`` and the last axis's ``max_last(x)`` and
    ``sum_last(x)`` (keeping it; an array library may sum in any order, OP.SEM.5), by default
    Python's control and ``xp``'s reductions (:class:`HostControl`).

    The row maximum is taken over the masked scores; the exponential over the scores themselves, a
    select zeroing its masked points after it: the exponential of a kept score is the same either
    way, a masked point's (which may overflow or be a NaN) is dropped, and the exponentials' loop
    computes no mask (which XLA's CPU backend vectorizes poorly beside an exponential)."""
    t, hq, d = q.shape
    b, length, hkv, _ = k_hist.shape
    if mode != ROPE_NONE:
        q = rope(xp, q, pos, scale, theta)
    if mode == ROPE_INLINE:
        j = xp.tile(xp.arange(length), b)
        k_hist = rope(xp, k_hist.reshape(b * length, hkv, d), j, scale, theta).reshape(b, length, hkv, d)
    group = hq // hkv
    # grouped-query scores of every token against every batch sequence's history, the other sequences
    # masked, and the output of its own sequence taken: no history is gathered per token (a (T, L, hq, D)
    # copy), and no other sequence's values enter a token's output; the scores' axes: :func:`_score_dot`
    ctrl = ctrl if ctrl is not None else HostControl(xp)
    spec = _score_dot(t)
    axes = spec[-5:]
    named = {"tkgd": q.astype(xp.float32).reshape(t, hkv, group, d), "blkd": k_hist.astype(xp.float32)}
    scores = xp.einsum(spec, *[named[o] for o in spec[:9].split(",")]) * xp.asarray(sm_scale, xp.float32)
    # token t sees position j of sequence b when b is its sequence, j <= pos[t] and j < hist_len[b]: one
    # bound per (t, b) (-1 for another sequence), so that the mask is one comparison per score
    last = xp.minimum(pos[:, None], hist_len[None, :] - 1)
    if b > 1:           # (one batch sequence: every token's, a padding token's too: batch entry 0)
        last = xp.where(seq[:, None] == xp.arange(b)[None, :], last, -1)
    ok = xp.arange(length)[None, None, :] <= last[:, :, None]                               # (T, B, L)
    okb = xp.expand_dims(xp.transpose(ok, ["tbl".index(a) for a in axes if a in "tbl"]),
                         (axes.index("k"), axes.index("g")))
    bax, hax = axes.index("b"), axes.index("l")

    def over_history(last_axis: Any, reduce: Any, x: Any) -> Any:     # each token's reduction
        x = last_axis(x) if hax == x.ndim - 1 else reduce(x, axis=hax, keepdims=True)
        return reduce(x, axis=bax, keepdims=True)
    top = over_history(ctrl.max_last, xp.max, xp.where(okb, scores, xp.asarray(-xp.inf, xp.float32)))
    with np.errstate(over="ignore", invalid="ignore"):      # (a masked point's exponential: dropped)
        w = xp.where(okb, xp.exp(scores - top), xp.asarray(0, xp.float32))
    w = w / over_history(ctrl.sum_last, xp.sum, w)
    vf = v_hist.astype(xp.float32)

    def plain(w: Any) -> Any:
        # the values first: XLA's CPU backend then reads them in their rows' layout (the weights second,
        # the dot over the history unchanged up to its summation order, which the rule leaves free),
        # where the weights first made it transpose the values read through the page table
        return xp.einsum(f"blkd,{axes}->tbkgd", vf, w)
    if t == 1:          # one new token: every position it does not see is finite (another sequence's are dropped)
        out = plain(w)
    else:
        bad = xp.any(~xp.isfinite(new_v if new_v is not None else vf))
        out = ctrl.cond(bad, lambda w: _token_sums(xp, ctrl, xp.einsum(f"{axes}->tbkgl", w), ok, vf), plain, w)
    out = out[:, 0] if b == 1 else out[xp.arange(t), seq]                               # its own sequence's
    return out.reshape(t, hq, d).astype(q.dtype)


def _score_dot(tokens: int) -> str:
    """The einsum of :func:`attend`'s scores from the queries ``tkgd`` and the keys ``blkd`` (``t``
    tokens, ``b`` batch sequences, ``k`` key/value heads, ``g`` query heads per key head, ``l`` history
    positions, ``d`` the head's values), its result in the dot's own order (the batch axis, then the
    left operand's axes, then the right's): XLA's CPU backend transposes no score then, where another
    order left a chain of copies inside the masked maximum's loop in relax_jax's compilations (which
    run without the algebraic simplifier). Several tokens: the queries on the left, the history last
    (the row reductions run over the last axis, :class:`HostControl`). One token: the keys on the left,
    which the dot then reads in their rows' layout, where with the queries on the left it transposed
    the whole history gathered through the page table."""
    return "blkd,tkgd->kbltg" if tokens == 1 else "tkgd,blkd->ktgbl"


def _token_sums(xp: Any, ctrl: Any, w: Any, ok: Any, vf: Any) -> Any:
    """The weighted sums (T, B, hkv, group, D) of the weights ``w`` (T, B, hkv, group, L) token by token,
    each over the values it sees (``ok`` (T, B, L); the others read as 0): a non-finite value enters only
    the sums of the tokens that see it."""
    def one(i: Any) -> Any:
        seen = xp.where(ok[i][:, :, None, None], vf, xp.asarray(0, xp.float32))
        return xp.einsum("bkgl,blkd->bkgd", w[i], seen)
    return ctrl.map(one, xp.arange(w.shape[0]))


class HostControl:
    """``ctrl`` of :func:`attend` on the host: a Python branch and a loop, ``xp``'s reductions."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def cond(self, pred: Any, f: Any, g: Any, x: Any) -> Any:
        return f(x) if pred else g(x)

    def map(self, f: Any, xs: Any) -> Any:
        return self.xp.stack([f(x) for x in xs])

    def max_last(self, x: Any) -> Any:
        return x.max(axis=-1, keepdims=True)

    def sum_last(self, x: Any) -> Any:
        return x.sum(axis=-1, keepdims=True)


__all__ = ["rope", "split_qkv", "stored_keys", "attend", "HostControl", "ROPE_NONE", "ROPE_NORMAL", "ROPE_INLINE"]

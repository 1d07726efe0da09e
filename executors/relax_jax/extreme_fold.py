"""The running float ``max``/``min`` fold of PRIM.FLOAT.2, vectorized (one definition for the graph
path's ``R.max``/``R.min`` and the TensorIR path's ``T.max``/``T.min`` reductions).

A fold ``acc = sel(acc, v)`` over a row in order, where ``sel`` is ``Max``/``Min``'s selection with the
accumulator on the left (*accumulator first*: ``acc > v ? acc : v``, ``<`` for min) or on the right
(*value first*: ``v > acc ? v : acc``). Every comparison with a NaN is false, so:

* accumulator first: a NaN element becomes the accumulator and is replaced by the next element; the
  result is NaN when the last element is NaN, else the extreme of the elements after the last NaN
  (the incoming accumulator counts only when the row has no NaN);
* value first: NaN elements are skipped; a NaN incoming accumulator stays.

A row (or any contiguous segment of a fold) is summarised as ``(has_nan, value)`` -- ``value`` is the
state after the segment when it holds a NaN, else the segment's extreme (``has_nan`` is None for value
first) -- so segments combine in order (:func:`then`) and apply to an incoming accumulator
(:func:`apply`). A segment applied to an accumulator must hold at least one valid element.

Everything is order-independent vector reductions, without a conditional. With the accumulator first
over a row longer than a window (:data:`relax_jax.reductions.WINDOW`), the row is reduced in windows of
32 by the plain NaN-propagating extreme -- the reduction a fold without NaNs would compute, fused with
the operations producing the row -- and a window whose extreme is NaN holds a NaN: the last such window
is folded exactly from its 32 elements, gathered, and followed by the extreme of the windows after it.
A row is read once, as by the plain reduction; the exact part works on one window per row.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from .reductions import WINDOW

Summary = Tuple[Optional[Any], Any]


def _extreme(x: Any, is_max: bool, axis: Any = -1) -> Any:
    return jnp.max(x, axis=axis) if is_max else jnp.min(x, axis=axis)


def select(a: Any, b: Any, is_max: bool) -> Any:
    """PRIM.FLOAT.2's ``Max(a, b)`` / ``Min(a, b)``: ``a > b ? a : b`` (``<`` for min)."""
    return jnp.where(a > b if is_max else a < b, a, b)


def summarize(r: Any, valid: Any, is_max: bool, acc_first: bool) -> Summary:
    """The summary of folding the last axis of the float array ``r`` in order, skipping the elements
    where ``valid`` (broadcastable to ``r``; None: all) is False."""
    ident = jnp.asarray(-np.inf if is_max else np.inf, r.dtype)
    n = r.shape[-1]
    if not acc_first:
        ok = None if valid is None else jnp.broadcast_to(valid, r.shape)
        skip = jnp.isnan(r) if ok is None else jnp.isnan(r) | ~ok
        return None, _extreme(jnp.where(skip, ident, r), is_max) if n else jnp.full(r.shape[:-1], ident)
    if n == 0:
        return jnp.zeros(r.shape[:-1], bool), jnp.full(r.shape[:-1], ident)
    if isinstance(n, (int, np.integer)) and n > WINDOW:
        return _summarize_windows(r, valid, is_max)
    return _summarize_row(r, valid, is_max)


def _summarize_row(r: Any, valid: Any, is_max: bool) -> Summary:
    """The accumulator-first summary from the index of the last NaN (a maximum over the row) and the
    extreme of the valid elements after it: two passes over the row."""
    ident = jnp.asarray(-np.inf if is_max else np.inf, r.dtype)
    n = r.shape[-1]
    ok = None if valid is None else jnp.broadcast_to(valid, r.shape)
    nan = jnp.isnan(r) if ok is None else jnp.isnan(r) & ok
    pos = jnp.arange(n, dtype=jnp.int32)
    last_nan = jnp.max(jnp.where(nan, pos, -1), axis=-1, keepdims=True)
    last_valid = n - 1 if ok is None else jnp.max(jnp.where(ok, pos, -1), axis=-1)
    keep = (pos > last_nan) & ~nan
    if ok is not None:
        keep = keep & ok
    ext = _extreme(jnp.where(keep, r, ident), is_max)
    has_nan = last_nan[..., 0] >= 0
    ends_nan = has_nan & (last_nan[..., 0] == last_valid)
    return has_nan, jnp.where(ends_nan, jnp.asarray(np.nan, r.dtype), ext)


def _window_valid(valid: Any, shape: tuple, k: int) -> Any:
    """Whether each window of 32 along the last axis of ``shape`` holds a valid element (``valid``
    broadcastable to ``shape``, reduced at its own size): shape ``shape[:-1] + (k,)``."""
    v = jnp.asarray(valid)
    v = v.reshape((1,) * (len(shape) - v.ndim) + v.shape)
    if v.shape[-1] == 1:
        return jnp.broadcast_to(v, shape[:-1] + (k,))
    v = jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, k * WINDOW - shape[-1])])
    return jnp.broadcast_to(jnp.any(v.reshape(v.shape[:-1] + (k, WINDOW)), axis=-1), shape[:-1] + (k,))


def _summarize_windows(r: Any, valid: Any, is_max: bool) -> Summary:
    """The accumulator-first summary of a row longer than a window (module docstring): the windows'
    plain extremes; the last window whose extreme is NaN folded exactly (gathered); then the extreme
    of the windows after it, which hold no NaN, when one of them holds a valid element."""
    ident = jnp.asarray(-np.inf if is_max else np.inf, r.dtype)
    n = r.shape[-1]
    k = -(-n // WINDOW)
    lead = r.shape[:-1]
    x = r if valid is None else jnp.where(valid, r, ident)
    if k * WINDOW != n:
        x = jnp.pad(x, [(0, 0)] * len(lead) + [(0, k * WINDOW - n)], constant_values=ident)
    xw = x.reshape(lead + (k, WINDOW))
    wext = _extreme(xw, is_max)                         # (..., k): NaN where a window holds a NaN
    widx = jnp.arange(k, dtype=jnp.int32)
    last = jnp.max(jnp.where(jnp.isnan(wext), widx, -1), axis=-1)
    has_nan = last >= 0
    after = widx > last[..., None]
    tail = _extreme(jnp.where(after, wext, ident), is_max)
    if valid is None:
        tail_valid = last < k - 1
    else:
        tail_valid = jnp.any(after & _window_valid(valid, r.shape, k), axis=-1)
    # the exact fold of the last window with a NaN (window 0 where none: not used)
    at = jnp.maximum(last, 0)
    win = jnp.take_along_axis(xw, at[..., None, None], axis=-2)[..., 0, :]
    pos = at[..., None] * WINDOW + jnp.arange(WINDOW, dtype=jnp.int32)
    win_ok = pos < n
    if valid is not None:
        vv = jnp.asarray(valid)
        vv = vv.reshape((1,) * (r.ndim - vv.ndim) + vv.shape)
        if vv.shape[-1] != 1:
            vv = jnp.pad(vv, [(0, 0)] * (vv.ndim - 1) + [(0, k * WINDOW - n)])
            vv = jnp.take_along_axis(jnp.broadcast_to(vv.reshape(vv.shape[:-1] + (k, WINDOW)), lead + (k, WINDOW)),
                                     at[..., None, None], axis=-2)[..., 0, :]
        win_ok = win_ok & vv
    _, inside = _summarize_row(win, win_ok, is_max)
    exact = jnp.where(tail_valid, select(inside, tail, is_max), inside)
    return has_nan, jnp.where(has_nan, exact, tail)


def apply(s: Summary, acc: Any, is_max: bool, acc_first: bool) -> Any:
    """The accumulator after folding the segment ``s`` into ``acc``."""
    has_nan, v = s
    if not acc_first:
        return select(v, acc, is_max)
    return jnp.where(has_nan, v, select(acc, v, is_max))


def then(s1: Summary, s2: Summary, is_max: bool, acc_first: bool) -> Summary:
    """The summary of segment ``s1`` followed by segment ``s2``."""
    h1, v1 = s1
    h2, v2 = s2
    if not acc_first:
        return None, select(v2, v1, is_max)
    return jnp.logical_or(h1, h2), apply(s2, v1, is_max, acc_first)


__all__ = ["Summary", "select", "summarize", "apply", "then"]

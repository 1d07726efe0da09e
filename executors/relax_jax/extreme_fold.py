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
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import jax.numpy as jnp
import numpy as np

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
    ok = None if valid is None else jnp.broadcast_to(valid, r.shape)
    nan = jnp.isnan(r) if ok is None else jnp.isnan(r) & ok
    if not acc_first:
        skip = nan if ok is None else nan | ~ok
        return None, _extreme(jnp.where(skip, ident, r), is_max) if n else jnp.full(r.shape[:-1], ident)
    if n == 0:
        return jnp.zeros(r.shape[:-1], bool), jnp.full(r.shape[:-1], ident)
    pos = jnp.arange(n, dtype=jnp.int64)
    last_nan = jnp.max(jnp.where(nan, pos, -1), axis=-1, keepdims=True)
    last_valid = n - 1 if ok is None else jnp.max(jnp.where(ok, pos, -1), axis=-1)
    keep = (pos > last_nan) & ~nan
    if ok is not None:
        keep = keep & ok
    ext = _extreme(jnp.where(keep, r, ident), is_max)
    has_nan = last_nan[..., 0] >= 0
    ends_nan = has_nan & (last_nan[..., 0] == last_valid)
    return has_nan, jnp.where(ends_nan, jnp.asarray(np.nan, r.dtype), ext)


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

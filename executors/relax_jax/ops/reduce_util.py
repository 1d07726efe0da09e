"""Reduction helpers with padding masks (shared by statistical, search and nn lowerings)."""

from __future__ import annotations

from typing import Any, Sequence, Tuple

import jax.numpy as jnp
from jax import lax

from relax_ref.ir import dtype as _dt

from .. import extreme_fold
from ..dims import dim_value
from ..lowering import LowerCtx


def valid_along(ctx: LowerCtx, i: int, x: Any, axes: Sequence[int]) -> Any:
    """Bool mask (broadcastable to ``x``) of the valid elements along ``axes`` of argument ``i``;
    None when those axes are exact."""
    valid = ctx.valid(i)
    m = None
    for a in axes:
        d = valid[a]
        if d is None:
            continue
        shape = [1] * x.ndim
        shape[a] = x.shape[a]
        c = jnp.arange(x.shape[a], dtype=jnp.int64).reshape(shape) < d.val
        m = c if m is None else jnp.logical_and(m, c)
    return m


def count(ctx: LowerCtx, i: int, x: Any, axes: Sequence[int]) -> Any:
    """The number of (logical) reduced elements: a Python int, or a traced int64 scalar."""
    n: Any = 1
    valid = ctx.valid(i)
    for a in axes:
        d = valid[a]
        if d is None:
            n = n * dim_value(x.shape[a])
        else:
            n = jnp.asarray(n, jnp.int64) * jnp.asarray(d.val, jnp.int64)
    return n


def rows(x: Any, axes: Sequence[int]) -> Any:
    """``x`` with the reduced axes moved last and flattened (row-major)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    t = jnp.transpose(x, kept + list(axes))
    r = 1
    for a in axes:
        r *= dim_value(x.shape[a])
    return t.reshape(tuple(x.shape[i] for i in kept) + (r,))


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> Tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


def sequential_fold(r: Any, valid: Any, fn, init: Any) -> Any:
    """Fold the last axis of ``r`` in order (``acc = fn(acc, v)``), skipping invalid elements."""
    moved = jnp.moveaxis(r, -1, 0)
    vmoved = None if valid is None else jnp.moveaxis(jnp.broadcast_to(valid, r.shape), -1, 0)
    acc0 = jnp.full(r.shape[:-1], init, r.dtype)

    def step(acc, xs):
        if vmoved is None:
            v = xs
            return fn(acc, v).astype(r.dtype), None
        v, ok = xs
        return jnp.where(ok, fn(acc, v), acc).astype(r.dtype), None

    xs = moved if vmoved is None else (moved, vmoved)
    acc, _ = lax.scan(step, acc0, xs)
    return acc


def select_extreme(r: Any, valid: Any, is_max: bool, init: Any) -> Any:
    """OP.STAT.SEM.3 over the last axis: the fold ``acc > v ? acc : v`` (``<`` for min) from ``init``
    (:mod:`relax_jax.extreme_fold`): a NaN is the result only when it is the last element; otherwise
    the extreme of the elements after the last NaN (all elements when there is none)."""
    ident = jnp.asarray(init, r.dtype)
    if r.shape[-1] == 0:
        return jnp.full(r.shape[:-1], ident, r.dtype)
    if jnp.issubdtype(r.dtype, jnp.floating):
        s = extreme_fold.summarize(r, valid, is_max, True)
        # a row with no valid element keeps ``init``
        return extreme_fold.apply(s, ident, is_max, True).astype(r.dtype)
    ok = jnp.ones(r.shape, bool) if valid is None else jnp.broadcast_to(valid, r.shape)
    vals = jnp.where(ok, r, ident)
    return jnp.max(vals, axis=-1) if is_max else jnp.min(vals, axis=-1)


def identity_of(op: str, dtype: str) -> Any:
    if op == "add":
        return 0
    if op == "mul":
        return 1
    if op == "max":
        return _dt.min_value(dtype)
    return _dt.max_value(dtype)


__all__ = ["valid_along", "count", "rows", "reduced_shape", "sequential_fold", "select_extreme",
           "identity_of"]

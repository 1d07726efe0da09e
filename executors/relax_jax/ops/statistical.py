"""Lowerings of the reductions and scans (semantics: ``relax_ref.ops.statistical``, OP.STAT.*).

All are padding-aware: padded elements of reduced axes are replaced by the reducer's identity (or
excluded from order-dependent folds), ``mean``/``variance`` divide by the logical element count, scans
are exact along a padded axis (a prefix does not depend on what follows it). The operators' run-time
constraints (axes, kernels, empty reductions) are their ``check`` in ``relax_ref.ops.statistical``.

* float32/float64 ``sum``/``prod``/``mean`` reassociate (OP.STAT.SEM.4); float16 accumulates
  sequentially in the dtype (``lax.scan``), as the reference; bfloat16 reductions and scans are their
  float32 computation rounded once (OP.SEM.7, ``float32_once``);
* ``max``/``min`` follow the select fold of OP.STAT.SEM.3 exactly, NaN placement included;
* ``median`` sorts with NaN last (stable) and takes the lower median (OP.STAT.SEM.6).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import dtype as _dt
from relax_ref.ir.struct_info import TupleStructInfo
from relax_ref.ops.statistical import reduce_axes_of

from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import cast, is_static, np_dtype
from .common import dtype_of, float32_once
from .reduce_util import (
    count, identity_of, reduced_shape, rows, select_extreme, sequential_fold, valid_along,
)


def _low16(dt: str) -> bool:
    return dt in ("float16", "bfloat16")


def _sum(ctx, x, axes, keepdims: bool, op: str = "add"):
    """OP.STAT.SEM.1/4: sum/prod in the input dtype over the logical elements."""
    dt = dtype_of(x)
    t = np_dtype(dt)
    m = valid_along(ctx, 0, x, axes)
    if not axes:
        return x
    if _low16(dt):
        r = rows(x, axes)
        vr = None if m is None else rows(jnp.broadcast_to(m, x.shape), axes)
        fn = (lambda a, b: a + b) if op == "add" else (lambda a, b: a * b)
        out = sequential_fold(r, vr, fn, identity_of(op, dt))
        return out.reshape(reduced_shape(x.shape, axes, keepdims))
    if dt == "bool":
        xi = x.astype(jnp.int64)
        if m is not None:
            xi = jnp.where(m, xi, identity_of(op, "int64"))
        s = jnp.sum(xi, axis=tuple(axes), keepdims=keepdims) if op == "add" else \
            jnp.prod(xi, axis=tuple(axes), keepdims=keepdims)
        return s != 0
    if m is not None:
        x = jnp.where(m, x, jnp.asarray(identity_of(op, dt), t))
    if op == "add":
        return jnp.sum(x, axis=tuple(axes), keepdims=keepdims, dtype=t)
    return jnp.prod(x, axis=tuple(axes), keepdims=keepdims, dtype=t)


@lowering("relax.sum", padding="aware")
@float32_once
def _sum_op(ctx, x):
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    return _sum(ctx, x, axes, bool(ctx.attrs.get("keepdims")))


@lowering("relax.prod", padding="aware")
@float32_once
def _prod_op(ctx, x):
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    return _sum(ctx, x, axes, bool(ctx.attrs.get("keepdims")), "mul")


def _extreme(is_max: bool):
    def low(ctx, x):
        dt = dtype_of(x)
        axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
        keepdims = bool(ctx.attrs.get("keepdims"))
        if not axes:
            return x
        init = _dt.min_value(dt) if is_max else _dt.max_value(dt)
        m = valid_along(ctx, 0, x, axes)
        r = rows(x, axes)
        vr = None if m is None else rows(jnp.broadcast_to(m, x.shape), axes)
        out = select_extreme(r, vr, is_max, init)
        return out.reshape(reduced_shape(x.shape, axes, keepdims)).astype(x.dtype)
    return low


lowering("relax.max", padding="aware")(_extreme(True))
lowering("relax.min", padding="aware")(_extreme(False))


def _int_div_count(ctx, s, n, src: str):
    """TIR ``s / count`` (truncating, int64 or uint64)."""
    wide = "uint64" if src == "uint64" else "int64"
    a = cast(s, src, wide)
    if is_static(n):
        nn = np.asarray(max(int(n), 1)).astype(np_dtype(wide))
    else:
        nn = jnp.maximum(n, 1).astype(np_dtype(wide))    # n == 0 fails the operator's check
    if wide == "uint64":
        return a // nn
    q = jnp.abs(a) // nn
    return jnp.where(a < 0, -q, q).astype(jnp.int64)


def _mean_values(ctx, x, axes, keepdims: bool, n=None):
    dt = dtype_of(x)
    s = _sum(ctx, x, axes, keepdims)
    if n is None:
        n = count(ctx, 0, x, axes)
    if _dt.is_float(dt):
        nf = jnp.asarray(n).astype(x.dtype)
        return (s / nf).astype(x.dtype), dt
    q = _int_div_count(ctx, s, n, dt)
    return q, dtype_of(q)


def _variance_values(ctx, x, axes, keepdims: bool):
    dt = dtype_of(x)
    n = count(ctx, 0, x, axes)
    m, mdt = _mean_values(ctx, x, axes, True, n)
    if _dt.is_float(dt):
        dev = (x - m).astype(x.dtype)
        sq = (dev * dev).astype(x.dtype)
    else:
        dev = cast(x, dt, mdt) - m
        sq = dev * dev
    return _mean_values(ctx, sq, axes, keepdims, n)


@lowering("relax.mean", padding="aware")
@float32_once
def _mean(ctx, x):
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    out, src = _mean_values(ctx, x, axes, bool(ctx.attrs.get("keepdims")))
    return cast(out, src, dtype_of(x))


@lowering("relax.variance", padding="aware")
@float32_once
def _variance(ctx, x):
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    out, src = _variance_values(ctx, x, axes, bool(ctx.attrs.get("keepdims")))
    return cast(out, src, dtype_of(x))


@lowering("relax.std", padding="aware")
@float32_once
def _std(ctx, x):
    dt = dtype_of(x)
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    v, src = _variance_values(ctx, x, axes, bool(ctx.attrs.get("keepdims")))
    if _dt.is_float(dt):
        if _low16(dt):
            return jnp.sqrt(v.astype(jnp.float32)).astype(x.dtype)
        return jnp.sqrt(v).astype(x.dtype)
    r = jnp.sqrt(cast(v, src, "float32")).astype(jnp.float32)
    return cast(r, "float32", dt)


def sort_keys(r, valid, descending: bool):
    """A stable sort permutation of the last axis: NaN sorts as larger than every number; invalid
    (padded) elements go last."""
    n = r.shape[-1]
    pos = jnp.broadcast_to(jnp.arange(n, dtype=jnp.int64), r.shape)
    pad = jnp.zeros(r.shape, bool) if valid is None else ~jnp.broadcast_to(valid, r.shape)
    if jnp.issubdtype(r.dtype, jnp.floating):
        f = r.astype(jnp.float64) if r.dtype != jnp.float64 else r
        nan = jnp.isnan(f)
        key = jnp.where(nan, 0.0, f)
        if descending:
            operands = (pad.astype(jnp.int8), (~nan).astype(jnp.int8), -key, pos)
        else:
            operands = (pad.astype(jnp.int8), nan.astype(jnp.int8), key, pos)
    else:
        if r.dtype == jnp.bool_:
            k = r.astype(jnp.int8)
        else:
            k = r
        key = jnp.invert(k) if descending else k
        operands = (pad.astype(jnp.int8), key, pos)
    out = lax.sort(operands, dimension=r.ndim - 1, num_keys=len(operands) - 1, is_stable=True)
    return out[-1]


@lowering("relax.median", padding="aware")
def _median(ctx, x):
    axes = reduce_axes_of(ctx.attrs.get("axis"), x.ndim)
    keepdims = bool(ctx.attrs.get("keepdims"))
    if len(axes) > 1 and ctx.padded(0, axes):
        raise NeedsExact("median over several padded axes")
    m = valid_along(ctx, 0, x, axes)
    r = rows(x, axes)
    vr = None if m is None else rows(jnp.broadcast_to(m, x.shape), axes)
    n = count(ctx, 0, x, axes)
    order = sort_keys(r, vr, False)
    mid = (n - 1) // 2
    if is_static(mid):
        pick = order[..., int(mid)]
    else:
        pick = jnp.take_along_axis(order, jnp.broadcast_to(jnp.asarray(mid, jnp.int64), order.shape[:-1])[..., None],
                                   axis=-1)[..., 0]
    vals = jnp.take_along_axis(r, pick[..., None], axis=-1)[..., 0]
    out_shape = reduced_shape(x.shape, axes, keepdims)
    vals = vals.reshape(out_shape).astype(x.dtype)
    if isinstance(ctx.walker.inferred(ctx.call), TupleStructInfo):
        return vals, pick.astype(jnp.int64).reshape(out_shape)
    return vals


def _scan(op: str):
    def low(ctx, x):
        dt_attr = ctx.attrs.get("dtype") or "void"
        src = dtype_of(x)
        out_dt = src if dt_attr == "void" else dt_attr
        axis = ctx.attrs.get("axis")
        if axis is None:
            if ctx.padded(0) and x.ndim > 1:
                raise NeedsExact("scan of a flattened padded tensor")
            data = x.reshape(-1)
            ax = 0
        else:
            ax = int(axis) % x.ndim
            data = x
        v = cast(data, src, out_dt)
        if v.size == 0:
            return v
        if _dt.float32_intermediates(out_dt):      # OP.SEM.7: a float32 accumulator, rounded once
            v = v.astype(jnp.float32)
        if out_dt == "float16":
            moved = jnp.moveaxis(v, ax, 0)

            def step(acc, e):
                nxt = (acc + e) if op == "add" else (acc * e)
                nxt = nxt.astype(v.dtype)
                return nxt, nxt
            init = jnp.full(moved.shape[1:], identity_of(op, out_dt), v.dtype)
            _, acc = lax.scan(step, init, moved)
            acc = jnp.moveaxis(acc, 0, ax)
        else:
            acc = jnp.cumsum(v, axis=ax, dtype=v.dtype) if op == "add" else jnp.cumprod(v, axis=ax, dtype=v.dtype)
        if ctx.attrs.get("exclusive"):
            n = acc.shape[ax]
            first_shape = acc.shape[:ax] + (1,) + acc.shape[ax + 1:]
            ident = jnp.full(first_shape, identity_of(op, out_dt), acc.dtype)
            acc = jnp.concatenate([ident, lax.slice_in_dim(acc, 0, n - 1, axis=ax)], axis=ax)
        return acc.astype(np_dtype(out_dt))
    return low


lowering("relax.cumsum", padding="aware")(_scan("add"))
lowering("relax.cumprod", padding="aware")(_scan("mul"))

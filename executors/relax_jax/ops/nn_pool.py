"""Lowerings of the poolings (semantics: ``relax_ref.ops.nn_pool``): the reference's per-kernel-position
algorithm on JAX arrays, with the shared window plans. Exact shapes.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from relax_ref.ir import dtype as _dt
from relax_ref.ops.nn_pool import (
    adaptive_ranges, adaptive_windows, outer_and, pool_attrs, pool_counts, pool_crop, pool_pad_widths,
    pool_padded_is_small, pool_plan, pool_taps, pool_windows,
)

from ..lowering import lowering
from ..prim_jax import np_dtype
from .common import dtype_of, float32_once
from .nn_common import F32, FOps, SPATIAL, from_canonical, layout_perm, to_canonical


def _pool_lowering(kind: str, nsp: int):
    def low(ctx, x):
        sp = SPATIAL[nsp]
        tgt = "NC" + sp
        perm = layout_perm(ctx, ctx.attrs["layout"], tgt, "data")
        operm = layout_perm(ctx, ctx.attrs["out_layout"], tgt, "output")
        xc = to_canonical(x, perm)
        dt = dtype_of(xc)
        if kind == "adaptive":
            size = ctx.attrs.get("output_size")
            size = tuple(int(s) for s in xc.shape[2:]) if size is None else tuple(int(v) for v in size)
            y = _adaptive(ctx, xc, size, dt)
            return from_canonical(y, operm)
        kernel, strides, padding, dilation = pool_attrs(ctx.attrs)
        ceil_mode, include_pad = bool(ctx.attrs["ceil_mode"]), bool(ctx.attrs["count_include_pad"])
        spatial = tuple(int(n) for n in xc.shape[2:])
        pads, outs = pool_plan(ctx.op_name, spatial, kernel, strides, padding, dilation, ceil_mode)
        fill = np.asarray(_dt.min_value(dt) if kind == "max" else 0).astype(np_dtype(dt))
        out_shape = tuple(xc.shape[:2]) + tuple(outs)
        size = int(np.prod(out_shape, dtype=np.int64))
        acc = jnp.full(out_shape, fill, xc.dtype)
        f = FOps(dt) if _dt.is_float(dt) else None
        if size:
            for v in _windows(xc, pads, outs, kernel, strides, dilation, fill):
                if kind == "max":
                    acc = jnp.where(acc > v, acc, v).astype(xc.dtype)
                elif f is not None:
                    acc = f.add(acc, v)
                elif dt == "bool":
                    acc = acc | v
                else:
                    acc = (acc.astype(jnp.int64) + v.astype(jnp.int64)).astype(xc.dtype)
        if kind == "max":
            return from_canonical(acc, operm)
        count = pool_counts(ctx.op_name, spatial, outs, kernel, strides, padding, dilation, include_pad, f is None)
        if f is not None:
            y = f.div(acc, count.astype(np_dtype(dt)))
        else:
            a64 = acc.astype(jnp.int64)
            q = jnp.abs(a64) // count
            y = jnp.where(a64 < 0, -q, q).astype(xc.dtype)
        return from_canonical(y, operm)
    return low


def _windows(x, pads, outs, kernel, strides, dilation, fill):
    """The reference's windows (``relax_ref.ops.nn_pool._pool_windows``): strided slices of the padded
    input, or the shared taps when padding would be large (nothing beyond the result is allocated, and
    XLA never sees a huge padded shape)."""
    spatial = tuple(int(n) for n in x.shape[2:])
    if pool_padded_is_small(spatial, pads):
        xp = jnp.pad(x, pool_pad_widths(pads), constant_values=fill)
        xp = xp[pool_crop(pads, xp.shape)]
        for window in pool_windows(kernel, strides, dilation, outs):
            yield xp[window]
        return
    for idx, inside in pool_taps(spatial, outs, kernel, strides, pads, dilation):
        if 0 in spatial:
            yield jnp.full(tuple(x.shape[:2]) + tuple(outs), fill, x.dtype)
            continue
        v = x[(slice(None), slice(None)) + np.ix_(*idx)]
        yield jnp.where(jnp.asarray(outer_and(inside)), v, fill)


def _adaptive(ctx, x, out_size, dt: str):
    ranges = adaptive_ranges(ctx.op_name, tuple(int(n) for n in x.shape[2:]), out_size, not _dt.is_float(dt))
    f = FOps(dt) if _dt.is_float(dt) else None
    out = jnp.zeros(tuple(x.shape[:2]) + tuple(out_size), dtype=x.dtype)
    for pos, flat, cnt in adaptive_windows(x, ranges, out_size):
        if f is not None:
            if dt in ("float16", "bfloat16"):
                from .reduce_util import sequential_fold

                s = sequential_fold(flat, None, lambda a, b: (a.astype(F32) + b.astype(F32)).astype(a.dtype), 0)
            else:
                s = jnp.sum(flat, axis=-1).astype(x.dtype)
            val = f.div(s, f.const(float(cnt)))
        else:
            s = flat.astype(jnp.int64).sum(axis=-1).astype(x.dtype).astype(jnp.int64)
            q = jnp.abs(s) // cnt
            val = jnp.where(s < 0, -q, q).astype(x.dtype)
        out = out.at[(slice(None), slice(None)) + pos].set(val)
    return out


for _k in (1, 2, 3):
    lowering(f"relax.nn.max_pool{_k}d")(_pool_lowering("max", _k))
    lowering(f"relax.nn.avg_pool{_k}d")(float32_once(_pool_lowering("avg", _k)))       # OP.SEM.7
    lowering(f"relax.nn.adaptive_avg_pool{_k}d")(float32_once(_pool_lowering("adaptive", _k)))

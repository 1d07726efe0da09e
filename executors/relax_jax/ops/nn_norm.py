"""Lowerings of the normalizations (semantics: ``relax_ref.ops.nn_norm``): ``layer_norm``/``rms_norm``
are padding-aware (padded reduced positions contribute 0 and the element count is the logical one);
``group_norm``, ``instance_norm`` and ``batch_norm`` need exact shapes.

Products (PRIM.FLOAT.1, ``relax_jax.float_rules``): a product that an add or a subtract consumes goes
through the multiply barrier (``mean * mean`` before the variance's subtraction, the scaled value
before ``+ beta``); one read only by a sum reduction (the squares summed into a variance or a mean
square: XLA adds a product to a reduction's accumulator without contracting them,
``tests/jax/test_tir_products.py``) or only as a factor of another multiply (the normalized value
before ``* gamma``) is the plain product (``with plain_products():``), rounded once by construction.
``rms_norm``'s last operation is its only product that may need the barrier, so the walker lowers
it plain too when its result is used only as a factor (``float_rules.PRODUCT_OPS``).
"""

from __future__ import annotations

from typing import Any, List, Sequence

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ops.nn_norm import batch_norm_formula

from .. import laxops
from ..dims import dim_value
from ..errors import NeedsExact
from ..float_rules import plain_products, rounded_multiply
from ..laxops import astype
from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from .common import dtype_of, float32_once
from .nn_common import F32, FOps, axis_mask, box, compute_dtype


def _runtime_axes(ctx, x, axes: Sequence[int]) -> List[int]:
    return [a % x.ndim for a in axes]


def _axes_attr(ctx) -> List[int]:
    v = ctx.attrs["axes"]
    return [int(a) for a in (v if isinstance(v, (list, tuple)) else (v,))]


def _param_along(ctx, i: int, p, x, axes: Sequence[int], what: str):
    """Parameter ``p`` (argument ``i``, dim ``d`` along ``axes[d]``) broadcast against ``x``; the
    operator's check has matched the logical sizes."""
    for k, a in enumerate(axes):
        if p.shape[k] != x.shape[a]:
            raise NeedsExact(f"{what} padded differently from the data")
    order = sorted(range(len(axes)), key=lambda d: axes[d])
    q = lax.transpose(p, order) if p.ndim else p
    shape = [1] * x.ndim
    for d in order:
        shape[axes[d]] = x.shape[axes[d]]
    return laxops.reshape(q, shape)


def _masked_count(ctx, x, ax, dtype):
    valid = ctx.valid(0)
    n: Any = 1
    static = True
    for a in ax:
        if valid[a] is None:
            n = n * dim_value(x.shape[a])
        else:
            static = False
            n = jnp.asarray(n, jnp.int64) * jnp.asarray(valid[a].val, jnp.int64)
    if static:
        return np.asarray(float(n)).astype(dtype)[()]
    return n.astype(dtype)


def _mask_reduced(ctx, x, ax):
    m = None
    valid = ctx.valid(0)
    for a in ax:
        c = axis_mask(x, a, valid[a])
        if c is not None:
            m = c if m is None else jnp.logical_and(m, c)
    return m


@lowering("relax.nn.layer_norm", padding="aware")
@float32_once
def _layer_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    eps = float(ctx.attrs["epsilon"])
    cd = compute_dtype(dt)
    ax = tuple(sorted(axes))
    xs = x.astype(cd)
    m = _mask_reduced(ctx, x, ax)
    n = _masked_count(ctx, x, ax, cd)
    xz = xs if m is None else jnp.where(m, xs, 0)
    mean = (jnp.sum(xz, axis=ax, keepdims=True) / n).astype(cd)
    d = (xs - mean).astype(cd)
    dz = d if m is None else jnp.where(m, d, 0)
    with plain_products():                  # summed, and a factor of ``* gamma``
        var_sum = jnp.sum(rounded_multiply(dz, dz).astype(cd), axis=ax, keepdims=True)
        r = (np.asarray(1, cd) / jnp.sqrt(((var_sum / n).astype(cd) + np.asarray(eps, cd)).astype(cd))).astype(cd)
        norm = rounded_multiply(d, r).astype(cd).astype(np_dtype(dt))
    f = FOps(dt)
    g = _param_along(ctx, 1, gamma, x, axes, "gamma")
    b = _param_along(ctx, 2, beta, x, axes, "beta")
    return box(ctx, f.add(f.mul(norm, g), b), ctx.valid(0))


@lowering("relax.nn.rms_norm", padding="aware")
def _rms_norm(ctx, x, weight):
    dt = dtype_of(x)
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    eps = float(ctx.attrs["epsilon"])
    wd = "float64" if dt == "float64" else "float32"
    ax = tuple(sorted(axes))
    x32 = cast(x, dt, "float32")
    w = _param_along(ctx, 1, cast(weight, dtype_of(weight), "float32"), x, axes, "weight")
    m = _mask_reduced(ctx, x, ax)
    n = _masked_count(ctx, x, ax, np.float32)
    xz = x32 if m is None else laxops.where(m, x32, np.zeros((), x32.dtype))
    with plain_products():                  # summed, and a factor of ``* weight``
        sq = astype(rounded_multiply(xz, xz), F32)
        ss = laxops.reduce_sum(sq, axis=ax, keepdims=True)
        mean_sq = astype(laxops.divide(ss, n), F32)
        eps_c = np.asarray(np.asarray(eps, np_dtype(dt)), np_dtype(wd))
        f = FOps(wd)
        one = np.asarray(1, np_dtype(wd))
        r = f.intrin(lambda v: laxops.divide(one, laxops.fast_fn(jnp.sqrt)(v)), f.add(mean_sq, eps_c))
        rx = f.mul(r, x32)
    out = f.mul(rx, w)                      # the result: plain only where the walker finds it a factor
    return box(ctx, cast(out, wd, dt), ctx.valid(0))


def _group_stats(xs, red, n, eps):
    """OP.NN.NORM.SEM.2's one-pass statistics; each product rounded on its own (PRIM.FLOAT.1:
    ``mean * mean`` contracted into the subtraction changes the variance -- to ``inf`` instead of
    ``inf - inf = nan`` when the squares overflow -- so it keeps the barrier; the squares go only into
    their sum, which XLA never contracts them with)."""
    sx = jnp.sum(xs, axis=red, keepdims=True)
    with plain_products():
        sx2 = jnp.sum(rounded_multiply(xs, xs).astype(xs.dtype), axis=red, keepdims=True)
    mean = (sx / n).astype(xs.dtype)
    var = ((sx2 / n).astype(xs.dtype) - rounded_multiply(mean, mean).astype(xs.dtype)).astype(xs.dtype)
    r = (np.asarray(1, xs.dtype) / jnp.sqrt((var + np.asarray(eps, xs.dtype)).astype(xs.dtype))).astype(xs.dtype)
    return mean, r


@lowering("relax.nn.group_norm")
def _group_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    ca = _runtime_axes(ctx, x, [int(ctx.attrs["channel_axis"])])[0]
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    g_count = int(ctx.attrs["num_groups"])
    eps = float(ctx.attrs["epsilon"])
    cd = compute_dtype(dt)
    c = dim_value(x.shape[ca])
    shape = list(x.shape)
    gshape = shape[:ca] + [g_count, c // g_count] + shape[ca + 1:]
    xs = x.reshape(gshape).astype(cd)
    red = tuple(sorted([ca + 1] + [a if a < ca else a + 1 for a in axes]))
    n = np.asarray(float(np.prod([gshape[a] for a in red], dtype=np.int64)), np.float32).astype(cd)
    mean, r = _group_stats(xs, red, n, eps)
    with plain_products():                  # a factor of ``* gamma``
        norm = rounded_multiply((xs - mean).astype(cd), r).astype(cd).astype(np_dtype(dt)).reshape(shape)
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = FOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


@lowering("relax.nn.instance_norm")
@float32_once
def _instance_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    ca = _runtime_axes(ctx, x, [int(ctx.attrs["channel_axis"])])[0]
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    eps = float(ctx.attrs["epsilon"])
    cd = compute_dtype(dt)
    c = dim_value(x.shape[ca])
    xs = x.astype(cd)
    red = tuple(sorted(axes))
    n = np.asarray(float(np.prod([x.shape[a] for a in red], dtype=np.int64)), np_dtype(dt)).astype(cd)
    mean, r = _group_stats(xs, red, n, eps)
    with plain_products():                  # a factor of ``* gamma``
        norm = rounded_multiply((xs - mean).astype(cd), r).astype(cd).astype(np_dtype(dt))
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = FOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


@lowering("relax.nn.batch_norm")
@float32_once
def _batch_norm(ctx, x, gamma, beta, mm, mv):
    """The kernel's arithmetic over :class:`FOps` (OP.nn.batch_norm.C4-C5)."""
    ax = _runtime_axes(ctx, x, [int(ctx.attrs["axis"])])[0]
    eps = float(ctx.attrs["epsilon"])
    return batch_norm_formula(x, gamma, beta, mm, mv, ax, eps, bool(ctx.attrs["center"]), bool(ctx.attrs["scale"]),
                              float(ctx.attrs["momentum"]), bool(ctx.attrs["training"]), FOps, cast)

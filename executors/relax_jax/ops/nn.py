"""Lowerings of the ``R.nn.*`` and ``R.image.*`` operators (semantics: ``relax_ref.ops.nn``,
``nn_norm``, ``nn_attention``, ``nn_conv``, ``nn_pool``, ``nn_loss``, ``image``).

Padding-aware: ``softmax``/``log_softmax`` (padded positions of the axis are ``-inf`` before the max
and contribute 0 to the sum), ``layer_norm``/``rms_norm`` (padded reduced positions contribute 0 and the
element count is the logical one), ``attention`` (padded keys are excluded from the max and the sum,
padded value rows are zeroed, the causal offset uses the logical lengths), ``batch_flatten``,
``dropout`` and ``prelu`` (on axes other than the channel). Convolutions are ``lax.conv_general_dilated``
(``Precision.HIGHEST``, operands converted to the output dtype first, 16-bit floats accumulated in
float32); transposed convolutions, pooling and resizing follow the reference's per-kernel-position
algorithm on JAX arrays. These need exact shapes.
"""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ops.nn import pad_plan
from relax_ref.ops.nn_conv import conv_transpose_sizes
from relax_ref.ops.nn_pool import adaptive_ranges, pool_attrs, pool_counts, pool_plan

from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from ..values import ShapeV, SymInt, TVal
from .common import dtype_of
from .manipulate import reshape_padded

F32 = np.dtype("float32")


def _cd(dt: str) -> np.dtype:
    return F32 if dt in ("float16", "bfloat16") else np_dtype(dt)


class FOps:
    """Float arithmetic rounding every operation to ``dtype`` (16-bit floats through float32)."""

    def __init__(self, dtype: str):
        self.dtype = dtype
        self.t = np_dtype(dtype)
        self.cd = _cd(dtype)

    def _run(self, fn, *xs):
        return jnp.asarray(fn(*[jnp.asarray(x).astype(self.cd) for x in xs])).astype(self.t)

    def add(self, a, b):
        return self._run(jnp.add, a, b)

    def sub(self, a, b):
        return self._run(jnp.subtract, a, b)

    def mul(self, a, b):
        return self._run(jnp.multiply, a, b)

    def div(self, a, b):
        return self._run(jnp.divide, a, b)

    def const(self, v):
        return np.asarray(v).astype(self.t)[()]

    def intrin(self, fn, x):
        return self._run(fn, x)

    def sum(self, x, axis, keepdims=False):
        return jnp.sum(jnp.asarray(x).astype(self.cd), axis=axis, keepdims=keepdims).astype(self.t)


def _box(ctx, data, valid) -> TVal:
    return TVal(data, tuple(valid) if valid is not None else None, ctx.walker.level)


def _axis_mask(x, axis: int, d: Optional[SymInt]):
    if d is None:
        return None
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    return jnp.arange(x.shape[axis], dtype=jnp.int64).reshape(shape) < jnp.asarray(d.val, jnp.int64)


# ---------------------------------------------------------------------------------------------------
# softmax, log_softmax
# ---------------------------------------------------------------------------------------------------


def _softmax_parts(ctx, x, axis):
    dt = dtype_of(x)
    f = FOps(dt)
    m_valid = _axis_mask(x, axis, ctx.valid(0)[axis])
    xm = x if m_valid is None else jnp.where(m_valid, x, jnp.asarray(-np.inf, x.dtype))
    m = jnp.max(xm, axis=axis, keepdims=True)
    e = f.intrin(jnp.exp, f.sub(x, m))
    if m_valid is not None:
        e = jnp.where(m_valid, e, jnp.zeros((), e.dtype))
    s = f.sum(e, axis=axis, keepdims=True)
    return f, m, e, s


def _axis(ctx, x) -> int:
    return int(ctx.attrs["axis"]) % x.ndim


@lowering("relax.nn.softmax", padding="aware")
def _softmax(ctx, x):
    axis = _axis(ctx, x)
    f, m, e, s = _softmax_parts(ctx, x, axis)
    return _box(ctx, f.div(e, s), ctx.valid(0))


@lowering("relax.nn.log_softmax", padding="aware")
def _log_softmax(ctx, x):
    axis = _axis(ctx, x)
    f, m, e, s = _softmax_parts(ctx, x, axis)
    return _box(ctx, f.sub(f.sub(x, m), f.intrin(jnp.log, s)), ctx.valid(0))


# ---------------------------------------------------------------------------------------------------
# pad, prelu, batch_flatten, pixel_shuffle, dropout
# ---------------------------------------------------------------------------------------------------


@lowering("relax.nn.pad")
def _pad(ctx, x):
    widths = tuple(int(v) for v in ctx.attrs["pad_width"])
    mode = ctx.attrs.get("pad_mode", "constant")
    value = float(ctx.attrs.get("pad_value", 0.0))
    idx_per_axis, valid_per_axis = pad_plan(ctx.op_name, tuple(int(n) for n in x.shape), widths, mode)
    fill = cast(jnp.asarray(value, jnp.float64), "float64", dtype_of(x))
    if int(np.prod(x.shape, dtype=np.int64)) == 0:
        return jnp.full(tuple(len(i) for i in idx_per_axis), fill, x.dtype)
    if x.ndim == 0:
        return x
    out = x[np.ix_(*idx_per_axis)]
    if mode == "constant":
        mask = np.ones(out.shape, dtype=bool)
        for d, v in enumerate(valid_per_axis):
            shape = [1] * x.ndim
            shape[d] = len(v)
            mask &= v.reshape(shape)
        out = jnp.where(mask, out, fill).astype(x.dtype)
    return out


@lowering("relax.nn.prelu", padding="aware")
def _prelu(ctx, x, alpha):
    dt = dtype_of(x)
    axis = int(ctx.attrs["axis"]) % max(x.ndim, 1)
    if ctx.padded(0, [axis]) or ctx.padded(1):
        raise NeedsExact("prelu along a padded axis")
    shape = [1] * x.ndim
    shape[axis] = alpha.shape[0]
    a = cast(alpha, dtype_of(alpha), dt).reshape(shape)
    f = FOps(dt)
    return _box(ctx, jnp.where(x > np.asarray(0, np_dtype(dt)), x, f.mul(x, a)).astype(x.dtype), ctx.valid(0))


@lowering("relax.nn.batch_flatten", padding="aware")
def _batch_flatten(ctx, x):
    dims = ctx.vals[0].dims()
    if any(not d.is_static for d in dims[1:]):
        raise NeedsExact("batch_flatten of a tensor padded on an inner axis")
    rest = int(np.prod([int(d.val) for d in dims[1:]], dtype=np.int64))
    return reshape_padded(ctx, x, 0, ShapeV([dims[0], SymInt.static(rest)]))


@lowering("relax.nn.pixel_shuffle")
def _pixel_shuffle(ctx, x):
    r = int(ctx.attrs["upscale_factor"])
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    nl = len(lead)
    perm = list(range(nl)) + [nl, nl + 3, nl + 1, nl + 4, nl + 2]
    return jnp.transpose(y, perm).reshape(*lead, c // (r * r), h * r, w * r)


@lowering("relax.nn.dropout", padding="aware")
def _dropout(ctx, x):
    v = ctx.valid(0)
    return _box(ctx, x, v), _box(ctx, jnp.ones(x.shape, x.dtype), v)


# ---------------------------------------------------------------------------------------------------
# Normalizations
# ---------------------------------------------------------------------------------------------------


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
    q = jnp.transpose(p, order) if p.ndim else p
    shape = [1] * x.ndim
    for d in order:
        shape[axes[d]] = x.shape[axes[d]]
    return q.reshape(shape)


def _masked_count(ctx, x, ax, dtype):
    valid = ctx.valid(0)
    n: Any = 1
    static = True
    for a in ax:
        if valid[a] is None:
            n = n * int(x.shape[a])
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
        c = _axis_mask(x, a, valid[a])
        if c is not None:
            m = c if m is None else jnp.logical_and(m, c)
    return m


@lowering("relax.nn.layer_norm", padding="aware")
def _layer_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    eps = float(ctx.attrs["epsilon"])
    cd = _cd(dt)
    ax = tuple(sorted(axes))
    xs = x.astype(cd)
    m = _mask_reduced(ctx, x, ax)
    n = _masked_count(ctx, x, ax, cd)
    xz = xs if m is None else jnp.where(m, xs, 0)
    mean = (jnp.sum(xz, axis=ax, keepdims=True) / n).astype(cd)
    d = (xs - mean).astype(cd)
    dz = d if m is None else jnp.where(m, d, 0)
    var_sum = jnp.sum((dz * dz).astype(cd), axis=ax, keepdims=True)
    r = (np.asarray(1, cd) / jnp.sqrt(((var_sum / n).astype(cd) + np.asarray(eps, cd)).astype(cd))).astype(cd)
    norm = (d * r).astype(cd).astype(np_dtype(dt))
    f = FOps(dt)
    g = _param_along(ctx, 1, gamma, x, axes, "gamma")
    b = _param_along(ctx, 2, beta, x, axes, "beta")
    return _box(ctx, f.add(f.mul(norm, g), b), ctx.valid(0))


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
    sq = (x32 * x32).astype(np.float32)
    if m is not None:
        sq = jnp.where(m, sq, 0)
    ss = jnp.sum(sq, axis=ax, keepdims=True)
    mean_sq = (ss / n).astype(np.float32)
    eps_c = np.asarray(np.asarray(eps, np_dtype(dt)), np_dtype(wd))
    f = FOps(wd)
    r = f.intrin(lambda v: np.asarray(1, np_dtype(wd)) / jnp.sqrt(v), f.add(mean_sq, eps_c))
    out = f.mul(f.mul(r, x32), w)
    return _box(ctx, cast(out, wd, dt), ctx.valid(0))


def _group_stats(xs, red, n, eps):
    sx = jnp.sum(xs, axis=red, keepdims=True)
    sx2 = jnp.sum((xs * xs).astype(xs.dtype), axis=red, keepdims=True)
    mean = (sx / n).astype(xs.dtype)
    var = ((sx2 / n).astype(xs.dtype) - (mean * mean).astype(xs.dtype)).astype(xs.dtype)
    r = (np.asarray(1, xs.dtype) / jnp.sqrt((var + np.asarray(eps, xs.dtype)).astype(xs.dtype))).astype(xs.dtype)
    return mean, r


@lowering("relax.nn.group_norm")
def _group_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    ca = _runtime_axes(ctx, x, [int(ctx.attrs["channel_axis"])])[0]
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    g_count = int(ctx.attrs["num_groups"])
    eps = float(ctx.attrs["epsilon"])
    cd = _cd(dt)
    c = int(x.shape[ca])
    shape = list(x.shape)
    gshape = shape[:ca] + [g_count, c // g_count] + shape[ca + 1:]
    xs = x.reshape(gshape).astype(cd)
    red = tuple(sorted([ca + 1] + [a if a < ca else a + 1 for a in axes]))
    n = np.asarray(float(np.prod([gshape[a] for a in red], dtype=np.int64)), np.float32).astype(cd)
    mean, r = _group_stats(xs, red, n, eps)
    norm = ((xs - mean).astype(cd) * r).astype(cd).astype(np_dtype(dt)).reshape(shape)
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = FOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


@lowering("relax.nn.instance_norm")
def _instance_norm(ctx, x, gamma, beta):
    dt = dtype_of(x)
    ca = _runtime_axes(ctx, x, [int(ctx.attrs["channel_axis"])])[0]
    axes = _runtime_axes(ctx, x, _axes_attr(ctx))
    eps = float(ctx.attrs["epsilon"])
    cd = _cd(dt)
    c = int(x.shape[ca])
    xs = x.astype(cd)
    red = tuple(sorted(axes))
    n = np.asarray(float(np.prod([x.shape[a] for a in red], dtype=np.int64)), np_dtype(dt)).astype(cd)
    mean, r = _group_stats(xs, red, n, eps)
    norm = ((xs - mean).astype(cd) * r).astype(cd).astype(np_dtype(dt))
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = FOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


@lowering("relax.nn.batch_norm")
def _batch_norm(ctx, x, gamma, beta, mm, mv):
    dt = dtype_of(x)
    ax = _runtime_axes(ctx, x, [int(ctx.attrs["axis"])])[0]
    eps = float(ctx.attrs["epsilon"])
    center, scale = bool(ctx.attrs["center"]), bool(ctx.attrs["scale"])
    momentum, training = float(ctx.attrs["momentum"]), bool(ctx.attrs["training"])
    c = int(x.shape[ax])
    bshape = [1] * x.ndim
    bshape[ax] = c
    f = FOps(dt)
    wide = "float32" if dt in ("float16", "bfloat16") else dt
    fw = FOps(wide)
    red = tuple(a for a in range(x.ndim) if a != ax)
    if training:
        count = float(np.prod([x.shape[a] for a in red], dtype=np.int64))
        cnt = f.const(count)
        mean = f.div(f.sum(x, axis=red), cnt)
        d = f.sub(x, mean.reshape(bshape))
        var = f.div(f.sum(f.mul(d, d), axis=red), cnt)
        m_b, v_b = mean.reshape(bshape), var.reshape(bshape)
    else:
        m_b, v_b = mm.reshape(bshape), mv.reshape(bshape)
        d = f.sub(x, m_b)
    denom = fw.intrin(jnp.sqrt, fw.add(cast(v_b, dt, wide), fw.const(eps)))
    out = fw.div(cast(d, dt, wide), denom)
    if scale:
        out = fw.mul(out, cast(gamma.reshape(bshape), dt, wide))
    if center:
        out = fw.add(out, cast(beta.reshape(bshape), dt, wide))
    out = cast(out, wide, dt)
    if training:
        new_mean = f.add(f.mul(f.const(1 - momentum), mm), f.mul(f.const(momentum), mean))
        new_var = f.add(f.mul(f.const(1 - momentum), mv), f.mul(f.const(momentum), var))
        return out, new_mean, new_var
    return out, mm, mv


# ---------------------------------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------------------------------

@lowering("relax.nn.attention", "relax.nn.attention_bias", padding="aware")
def _attention(ctx, q, k, v, bias=None):
    dt = dtype_of(q)
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
    nkv = int(k.shape[2])
    rep = nh // nkv
    cd = f.cd
    qt = jnp.transpose(q, (0, 2, 1, 3))
    kt = jnp.transpose(k, (0, 2, 1, 3))
    vt = jnp.transpose(v, (0, 2, 1, 3))
    if rep > 1:
        kt = jnp.repeat(kt, rep, axis=1)
        vt = jnp.repeat(vt, rep, axis=1)
    kvalid = ctx.valid(1)[1]
    skv_phys = int(k.shape[1])
    kmask = None
    if kvalid is not None:
        kmask = (jnp.arange(skv_phys, dtype=jnp.int64) < jnp.asarray(kvalid.val, jnp.int64))[None, :]
        vt = jnp.where(kmask[..., None], vt, jnp.zeros((), vt.dtype))
    p = jnp.matmul(qt.astype(cd), jnp.swapaxes(kt, -1, -2).astype(cd), precision=lax.Precision.HIGHEST).astype(
        np_dtype(dt))
    if sv is not None:
        p = f.mul(p, np.asarray(sv, np.float32).astype(np_dtype(dt)))
    else:
        p = f.div(p, f.intrin(jnp.sqrt, f.const(float(e))))
    if bias is not None:
        if ctx.padded(3):
            raise NeedsExact("attention bias with padding")
        p = f.add(p, jnp.broadcast_to(bias, p.shape))
    neg = jnp.asarray(-np.inf, p.dtype)
    if mask is None:
        keep = kmask
        pm = p
    else:
        sq = qd[1].val if not qd[1].is_static else int(qd[1].val)
        sk = kd[1].val if not kd[1].is_static else int(kd[1].val)
        offset = 0 if mask == "TopLeft" else jnp.abs(jnp.asarray(sq, jnp.int64) - jnp.asarray(sk, jnp.int64))
        causal = jnp.arange(skv_phys, dtype=jnp.int64)[None, :] <= \
            jnp.arange(int(q.shape[1]), dtype=jnp.int64)[:, None] + offset
        pm = jnp.where(causal, p, f.const(0))
        keep = causal if kmask is None else jnp.logical_and(causal, kmask)
    mx = pm if kmask is None else jnp.where(kmask, pm, neg)
    m = jnp.max(mx, axis=-1, keepdims=True)
    ex = f.intrin(jnp.exp, f.sub(pm, m))
    if keep is not None:
        ex = jnp.where(keep, ex, f.const(0))
    ssum = f.sum(ex, axis=-1, keepdims=True)
    sm = f.div(ex, ssum)
    o = jnp.matmul(sm.astype(cd), vt.astype(cd), precision=lax.Precision.HIGHEST).astype(np_dtype(dt))
    out = jnp.transpose(o, (0, 2, 1, 3))
    return _box(ctx, out, (None, ctx.valid(0)[1], None, None))


# ---------------------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------------------

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _layout_perm(ctx, layout: str, target: str, what: str):
    from relax_ref.ops import nn_common as N

    return N.layout_perm(ctx.call, layout, target, what)


def _to_canonical(x, perm):
    return jnp.transpose(x, tuple(perm))


def _from_canonical(y, perm):
    return jnp.transpose(y, tuple(int(i) for i in np.argsort(perm)))


def _acc_dtype(out_dtype: str):
    if _dt.is_float(out_dtype):
        return F32 if out_dtype in ("float16", "bfloat16") else np_dtype(out_dtype)
    return np.dtype("int64")


def _to_acc(x, out_dtype: str):
    v = cast(x, dtype_of(x), out_dtype) if dtype_of(x) != out_dtype else x
    if out_dtype == "bool":
        return v.astype(jnp.int64)
    return v.astype(_acc_dtype(out_dtype))


def _finish(acc, out_dtype: str):
    if out_dtype == "bool":
        return acc != 0
    return acc.astype(np_dtype(out_dtype))


def _out_dtype(ctx, x) -> str:
    from relax_ref.ir.struct_info import TensorStructInfo

    s = ctx.walker.inferred(ctx.call)
    if isinstance(s, TensorStructInfo) and s.dtype != "void":
        return s.dtype
    return dtype_of(x)


def conv(ctx, x, w, strides, padding, dilation, groups: int, out_dtype: str):
    nsp = x.ndim - 2
    pads = [(padding[i], padding[i + nsp]) for i in range(nsp)]
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    sp = _SPATIAL[nsp]
    dn = lax.conv_dimension_numbers(xa.shape, wa.shape, ("NC" + sp, "OI" + sp, "NC" + sp))
    prec = lax.Precision.HIGHEST if jnp.issubdtype(xa.dtype, jnp.floating) else None
    acc = lax.conv_general_dilated(xa, wa, window_strides=tuple(strides), padding=pads,
                                   rhs_dilation=tuple(dilation), dimension_numbers=dn,
                                   feature_group_count=groups, precision=prec, preferred_element_type=xa.dtype)
    return _finish(acc, out_dtype)


def conv_transpose(ctx, x, w, strides, padding, output_padding, dilation, groups: int, out_dtype: str):
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    ksz = w.shape[2:]
    cg = c // groups
    full_len, out_len = conv_transpose_sizes(ctx.op_name, tuple(x.shape), tuple(w.shape), strides, padding,
                                             output_padding, dilation, groups)
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    xg = xa.reshape((n, groups, cg, -1))
    wg = wa.reshape((groups, cg, og) + tuple(ksz))
    full = jnp.zeros((n, groups, og) + tuple(full_len), dtype=xa.dtype)
    if int(np.prod(x.shape, dtype=np.int64)) and int(np.prod(w.shape, dtype=np.int64)):
        prec = lax.Precision.HIGHEST if jnp.issubdtype(xa.dtype, jnp.floating) else None
        for kk in itertools.product(*[range(k) for k in ksz]):
            wk = jnp.swapaxes(wg[(slice(None), slice(None), slice(None)) + kk], 1, 2)
            contrib = jnp.matmul(wk[None], xg, precision=prec).reshape((n, groups, og) + tuple(x.shape[2:]))
            sl = tuple(slice(kk[i] * dilation[i], kk[i] * dilation[i] + (x.shape[2 + i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(nsp))
            full = full.at[(slice(None), slice(None), slice(None)) + sl].add(contrib)
    crop = tuple(slice(padding[i], padding[i] + out_len[i]) for i in range(nsp))
    out = full[(slice(None), slice(None), slice(None)) + crop]
    return _finish(out.reshape((n, groups * og) + tuple(out_len)), out_dtype)


def _conv_lowering(nsp: int, transpose: bool):
    def low(ctx, x, w):
        sp = _SPATIAL[nsp]
        dtgt, ktgt = "NC" + sp, ("IO" if transpose else "OI") + sp
        dperm = _layout_perm(ctx, ctx.attrs["data_layout"], dtgt, "data")
        kperm = _layout_perm(ctx, ctx.attrs["kernel_layout"], ktgt, "kernel")
        operm = _layout_perm(ctx, ctx.attrs["out_layout"], dtgt, "output")
        out_dtype = _out_dtype(ctx, x)
        xc, wc = _to_canonical(x, dperm), _to_canonical(w, kperm)
        strides, padding, dilation = (tuple(int(v) for v in ctx.attrs[k]) for k in ("strides", "padding", "dilation"))
        groups = int(ctx.attrs["groups"])
        if transpose:
            opad = tuple(int(v) for v in ctx.attrs["output_padding"])
            y = conv_transpose(ctx, xc, wc, strides, padding, opad, dilation, groups, out_dtype)
        else:
            y = conv(ctx, xc, wc, strides, padding, dilation, groups, out_dtype)
        return _from_canonical(y, operm)
    return low


for _k in (1, 2, 3):
    lowering(f"relax.nn.conv{_k}d")(_conv_lowering(_k, False))
    lowering(f"relax.nn.conv{_k}d_transpose")(_conv_lowering(_k, True))


# ---------------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------------


def _pool_lowering(kind: str, nsp: int):
    def low(ctx, x):
        sp = _SPATIAL[nsp]
        tgt = "NC" + sp
        perm = _layout_perm(ctx, ctx.attrs["layout"], tgt, "data")
        operm = _layout_perm(ctx, ctx.attrs["out_layout"], tgt, "output")
        xc = _to_canonical(x, perm)
        dt = dtype_of(xc)
        if kind == "adaptive":
            size = ctx.attrs.get("output_size")
            size = tuple(int(s) for s in xc.shape[2:]) if size is None else tuple(int(v) for v in size)
            y = _adaptive(ctx, xc, size, dt)
            return _from_canonical(y, operm)
        kernel, strides, padding, dilation = pool_attrs(ctx.attrs)
        ceil_mode, include_pad = bool(ctx.attrs["ceil_mode"]), bool(ctx.attrs["count_include_pad"])
        spatial = tuple(int(n) for n in xc.shape[2:])
        pads, outs = pool_plan(ctx.op_name, spatial, kernel, strides, padding, dilation, ceil_mode)
        fill = _dt.min_value(dt) if kind == "max" else 0
        xp = jnp.pad(xc, [(0, 0), (0, 0)] + [(max(p, 0), max(q, 0)) for p, q in pads],
                     constant_values=np.asarray(fill).astype(np_dtype(dt)))
        crop = tuple(slice(max(-p, 0), xp.shape[2 + i] - max(-q, 0)) for i, (p, q) in enumerate(pads))
        xp = xp[(slice(None), slice(None)) + crop]
        out_shape = tuple(xc.shape[:2]) + tuple(outs)
        size = int(np.prod(out_shape, dtype=np.int64))
        acc = jnp.full(out_shape, np.asarray(fill).astype(np_dtype(dt)), xc.dtype)
        f = FOps(dt) if _dt.is_float(dt) else None
        if size:
            for kk in itertools.product(*[range(k) for k in kernel]):
                sl = tuple(slice(kk[i] * dilation[i], kk[i] * dilation[i] + (outs[i] - 1) * strides[i] + 1, strides[i])
                           for i in range(nsp))
                v = xp[(slice(None), slice(None)) + sl]
                if kind == "max":
                    acc = jnp.where(acc > v, acc, v).astype(xc.dtype)
                elif f is not None:
                    acc = f.add(acc, v)
                elif dt == "bool":
                    acc = acc | v
                else:
                    acc = (acc.astype(jnp.int64) + v.astype(jnp.int64)).astype(xc.dtype)
        if kind == "max":
            return _from_canonical(acc, operm)
        count = pool_counts(ctx.op_name, spatial, outs, kernel, strides, padding, dilation, include_pad, f is None)
        if f is not None:
            y = f.div(acc, count.astype(np_dtype(dt)))
        else:
            a64 = acc.astype(jnp.int64)
            q = jnp.abs(a64) // count
            y = jnp.where(a64 < 0, -q, q).astype(xc.dtype)
        return _from_canonical(y, operm)
    return low


def _adaptive(ctx, x, out_size, dt: str):
    nsp = x.ndim - 2
    ranges = adaptive_ranges(ctx.op_name, tuple(int(n) for n in x.shape[2:]), out_size, not _dt.is_float(dt))
    f = FOps(dt) if _dt.is_float(dt) else None
    out = jnp.zeros(tuple(x.shape[:2]) + tuple(out_size), dtype=x.dtype)
    for pos in itertools.product(*[range(m) for m in out_size]):
        win = tuple(slice(*ranges[i][pos[i]]) for i in range(nsp))
        block = x[(slice(None), slice(None)) + win]
        cnt = int(np.prod([ranges[i][pos[i]][1] - ranges[i][pos[i]][0] for i in range(nsp)], dtype=np.int64))
        flat = block.reshape(x.shape[0], x.shape[1], -1)
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
    lowering(f"relax.nn.avg_pool{_k}d")(_pool_lowering("avg", _k))
    lowering(f"relax.nn.adaptive_avg_pool{_k}d")(_pool_lowering("adaptive", _k))


# ---------------------------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------------------------


@lowering("relax.nn.cross_entropy_with_logits")
def _cross_entropy(ctx, x, y):
    dt = _out_dtype(ctx, x)
    x, y = cast(x, dtype_of(x), dt), cast(y, dtype_of(y), dt)
    if _dt.is_float(dt):
        f = FOps(dt)
        s = f.sum(f.mul(x, y), axis=None)
        neg = -s
        if x.ndim > 1:
            return f.div(neg, f.const(float(x.shape[0])))
        return neg
    s = jnp.sum(x.astype(jnp.int64) * y.astype(jnp.int64)).astype(x.dtype).astype(jnp.int64)
    neg = (-s).astype(x.dtype).astype(jnp.int64)
    if x.ndim > 1:
        n = int(x.shape[0])
        q = jnp.abs(neg) // n
        return jnp.where(neg < 0, -q, q).astype(x.dtype)
    return neg.astype(x.dtype)


@lowering("relax.nn.nll_loss")
def _nll_loss(ctx, pred, targets, weights=None):
    dt = dtype_of(pred)
    reduction = ctx.attrs.get("reduction", "mean")
    ignore = int(ctx.attrs.get("ignore_index", -100))
    f = FOps(dt)
    ncls = int(pred.shape[0] if pred.ndim == 1 else pred.shape[1])
    w = jnp.ones((ncls,), pred.dtype) if weights is None else cast(weights, dtype_of(weights), dt)
    t = targets.astype(jnp.int64)
    valid = t != ignore
    tc = jnp.clip(jnp.where(valid, t, 0), 0, max(ncls - 1, 0))
    zero = f.const(0)
    if pred.ndim == 1:
        out = jnp.where(valid, f.mul(-pred[tc], w[tc]), zero)
        if reduction == "mean":
            return f.div(out, jnp.where(valid, w[tc], zero))
        return out
    p = jnp.take_along_axis(pred, jnp.expand_dims(tc, 1), axis=1)[:, 0]
    out = jnp.where(valid, f.mul(-p, w[tc]), zero).astype(pred.dtype)
    if reduction == "none":
        return out
    total = f.sum(out, axis=None)
    if reduction == "sum":
        return total
    wsum = f.sum(jnp.where(valid, w[tc], zero), axis=None)
    return f.div(total, wsum)


# ---------------------------------------------------------------------------------------------------
# image.resize2d
# ---------------------------------------------------------------------------------------------------


class _JaxOps:
    """The reference's float32 resize arithmetic on JAX arrays; ``load`` gathers from the data."""

    def __init__(self, data) -> None:
        self.data = data

    def f(self, v):
        return F32.type(v)

    def fi(self, e):
        return jnp.asarray(e).astype(F32)

    def add(self, a, b):
        return (jnp.asarray(a, F32) + jnp.asarray(b, F32)).astype(F32)

    def sub(self, a, b):
        return (jnp.asarray(a, F32) - jnp.asarray(b, F32)).astype(F32)

    def mul(self, a, b):
        return (jnp.asarray(a, F32) * jnp.asarray(b, F32)).astype(F32)

    def div(self, a, b):
        return (jnp.asarray(a, F32) / jnp.asarray(b, F32)).astype(F32)

    def neg(self, a):
        return (-jnp.asarray(a, F32)).astype(F32)

    def floor(self, a):
        return jnp.floor(a).astype(F32)

    def ceil(self, a):
        return jnp.ceil(a).astype(F32)

    def round(self, a):
        return jnp.round(a).astype(F32)

    def to_int(self, a):
        a = jnp.asarray(a)
        if not isinstance(a, jax.core.Tracer) and not bool(np.all(np.isfinite(np.asarray(a)))):
            from relax_ref.ops.image import _NonFinite

            raise _NonFinite()
        return jnp.trunc(a).astype(jnp.int64)

    def iadd(self, a, k):
        return jnp.asarray(a, jnp.int64) + k

    def idiv(self, a, b):
        return jnp.asarray(a, jnp.int64) // b

    def clamp(self, i, n):
        return jnp.maximum(jnp.minimum(jnp.asarray(i, jnp.int64), n - 1), 0)

    def lt(self, a, b):
        return jnp.asarray(a) < b

    def gt(self, a, b):
        return jnp.asarray(a) > b

    def any_(self, a, b):
        return jnp.logical_or(a, b)

    def select(self, c, a, b):
        return jnp.where(c, a, b).astype(F32)

    def load(self, yi, xi):
        v = self.data[:, :, yi, xi]
        return cast(v, dtype_of(v), "float32")


@lowering("relax.image.resize2d")
def _resize2d(ctx, x, size):
    from relax_ref.ops.image import _int_div_flags, resize_values

    attrs = dict(ctx.attrs)
    perm = _layout_perm(ctx, attrs["layout"], "NCHW", "data")
    oh, ow = ctx.ints(size)
    xc = _to_canonical(x, perm)
    ih, iw = int(xc.shape[2]), int(xc.shape[3])
    out_dtype = _out_dtype(ctx, x)
    y = np.arange(oh, dtype=np.int64).reshape(oh, 1)
    xx = np.arange(ow, dtype=np.int64).reshape(1, ow)
    if int(np.prod(xc.shape, dtype=np.int64)) == 0 or oh == 0 or ow == 0:
        out = jnp.zeros(tuple(xc.shape[:2]) + (oh, ow), np_dtype(out_dtype))
    else:
        v = resize_values(ctx.op_name, _JaxOps(xc), y, xx, ih, iw, oh, ow, attrs, _int_div_flags(ctx.call, attrs))
        v = jnp.broadcast_to(v, tuple(xc.shape[:2]) + (oh, ow))
        out = cast(jnp.asarray(v, F32), "float32", out_dtype)
    return _from_canonical(out, perm)

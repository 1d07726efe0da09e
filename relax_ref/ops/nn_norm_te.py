"""The TOPI kernels of the normalizations (OP.NN.NORM.SEM.*), written with :mod:`.te` for the legalizations
of :mod:`.nn_norm`: ``layer_norm``, ``rms_norm``, ``instance_norm``, ``group_norm`` and ``batch_norm``, with
TOPI's stage names."""

from __future__ import annotations

from typing import Any, List, Sequence

from ..ir import prim_expr as P
from . import nn_common
from . import te
from . import te_ops


def _names(n: int) -> List[str]:
    return [f"ax{k}" for k in range(n)]


def _split(idx: Sequence[Any], red: Sequence[int]):
    kept = [v for i, v in enumerate(idx) if i not in red]
    reduced = [v for i, v in enumerate(idx) if i in red]
    return kept, reduced


def _with_reduce(kept: Sequence[Any], raxes: Sequence[Any], red: Sequence[int], ndim: int) -> List[Any]:
    out, k, r = [], 0, 0
    for i in range(ndim):
        if i in red:
            out.append(raxes[r])
            r += 1
        else:
            out.append(kept[k])
            k += 1
    return out


def _extent(shape, red, dtype: str) -> P.PrimExpr:
    e = te_ops.const(1, dtype)
    for a in red:
        e = te_ops.mul(e, te_ops.cast(dtype, shape[a]))
    return e


def _param_index(axes: Sequence[int], idx: Sequence[Any]) -> List[Any]:
    return [idx[a] for a in axes]


def te_layer_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, axes: Sequence[int], eps: float) -> te.Tensor:
    """TOPI ``layer_norm``: <x>_sum, <x>_mean, <x>_var_sum, T_layer_norm."""
    nd = x.ndim
    axes = [a % nd for a in axes]
    red = sorted(set(axes))
    low = nn_common.low_precision(x.dtype)
    cd = "float32" if low else x.dtype
    kept_shape = [x.shape[i] for i in range(nd) if i not in red]

    def load(idx):
        v = x(*idx)
        return te_ops.cast("float32", v) if low else v

    k1 = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]
    s = te.compute(kept_shape, lambda *i: te.sum(load(_with_reduce(i, k1, red, nd)), axis=k1), name=f"{x.name}_sum",
                   index_names=_names(len(kept_shape)))
    ext = _extent(x.shape, red, cd)
    mean = te.compute(kept_shape, lambda *i: te_ops.div(s(*i), ext), name=f"{x.name}_mean",
                      index_names=_names(len(kept_shape)))
    k2 = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]

    def var_body(*i):
        d = te_ops.sub(load(_with_reduce(i, k2, red, nd)), mean(*i))
        return te.sum(te_ops.mul(d, d), axis=k2)

    var_sum = te.compute(kept_shape, var_body, name=f"{x.name}_var_sum", index_names=_names(len(kept_shape)))

    def out(*i):
        kept, _ = _split(i, red)
        v = te_ops.mul(te_ops.sub(load(i), mean(*kept)),
                       te.rsqrt(te_ops.add(te_ops.div(var_sum(*kept), ext), te_ops.const(eps, cd))))
        if low:
            v = te_ops.cast(x.dtype, v)
        return te_ops.add(te_ops.mul(v, gamma(*_param_index(axes, i))), beta(*_param_index(axes, i)))

    return te.compute(x.shape, out, name="T_layer_norm", index_names=_names(nd))


def te_rms_norm(x: te.Tensor, w: te.Tensor, axes: Sequence[int], eps: float) -> te.Tensor:
    """TOPI ``rms_norm`` in float32: T_cast, T_multiply (x^2), T_multiply_red, rsqrt, T_rms_norm,
    T_cast."""
    nd = x.ndim
    axes = [a % nd for a in axes]
    red = sorted(set(axes))
    names = _names(nd)
    x32 = te.compute(x.shape, lambda *i: te_ops.cast("float32", x(*i)), name="T_cast", index_names=names)
    w32 = te.compute(w.shape, lambda *i: te_ops.cast("float32", w(*i)), name="T_cast", index_names=_names(w.ndim))
    sq = te.compute(x.shape, lambda *i: te_ops.mul(x32(*i), x32(*i)), name="T_multiply", index_names=names)
    kept_shape = [x.shape[i] for i in range(nd) if i not in red]
    ks = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]
    ssum = te.compute(kept_shape, lambda *i: te.sum(sq(*_with_reduce(i, ks, red, nd)), axis=ks),
                      name="T_multiply_red", index_names=_names(len(kept_shape)))
    ext = _extent(x.shape, red, "float32")
    r = te.compute(kept_shape, lambda *i: te.rsqrt(te_ops.add(te_ops.div(ssum(*i), ext), te_ops.const(eps, x.dtype))),
                   name="rsqrt",
                   index_names=_names(len(kept_shape)))
    y = te.compute(x.shape, lambda *i: te_ops.mul(te_ops.mul(r(*_split(i, red)[0]), x32(*i)), w32(*_param_index(axes,
                                                                                                                i))),
                   name="T_rms_norm", index_names=names)
    return te.compute(x.shape, lambda *i: te_ops.cast(x.dtype, y(*i)), name="T_cast", index_names=names)


def _tuple_sum():
    return te.comm_reducer(lambda a, b: tuple(te_ops.add(p, q) for p, q in zip(a, b)),
                           lambda *ts: tuple(te_ops.const(0, t) for t in ts), name="tuple_sum")


def te_instance_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, channel_axis: int, axes: Sequence[int],
                     eps: float) -> te.Tensor:
    """TOPI ``instance_norm``: <x>_red_temp (sum x, sum x^2), T_instance_norm."""
    nd = x.ndim
    ca = channel_axis % nd
    red = sorted(set(a % nd for a in axes))
    low = nn_common.low_precision(x.dtype)
    cd = "float32" if low else x.dtype

    def load(idx):
        v = x(*idx)
        return te_ops.cast("float32", v) if low else v

    kept_shape = [x.shape[i] for i in range(nd) if i not in red]
    ks = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]
    reducer = _tuple_sum()

    def stats(*i):
        v = load(_with_reduce(i, ks, red, nd))
        return reducer((v, te_ops.mul(v, v)), axis=ks)

    sx, sx2 = te.compute(kept_shape, stats, name=f"{x.name}_red_temp", index_names=_names(len(kept_shape)))
    ext = _extent(x.shape, red, x.dtype)

    def out(*i):
        kept, _ = _split(i, red)
        mean = te_ops.div(sx(*kept), ext)
        var = te_ops.sub(te_ops.div(sx2(*kept), ext), te_ops.mul(mean, mean))
        v = te_ops.mul(te_ops.sub(load(i), mean), te.rsqrt(te_ops.add(var, te_ops.const(eps, cd))))
        if low:
            v = te_ops.cast(x.dtype, v)
        return te_ops.add(te_ops.mul(v, gamma(i[ca])), beta(i[ca]))

    return te.compute(x.shape, out, name="T_instance_norm", index_names=_names(nd))


def te_group_norm(x: te.Tensor, gamma: te.Tensor, beta: te.Tensor, num_groups: int, channel_axis: int,
                  axes: Sequence[int], eps: float) -> te.Tensor:
    """TOPI ``group_norm``: reshape C -> (G, C/G), <x>_red_temp, T_group_norm, reshape back."""
    from .manipulate import te_reshape

    nd = x.ndim
    ca = channel_axis % nd
    low = nn_common.low_precision(x.dtype)
    cd = "float32" if low else x.dtype
    shape = list(x.shape)
    gsize = te_ops.floordiv(shape[ca], nn_common.i64(num_groups))
    gshape = shape[:ca] + [nn_common.i64(num_groups), gsize] + shape[ca + 1:]
    xr = te_reshape(x, gshape)
    if low:
        xr = te.compute(gshape, lambda *i: te_ops.cast("float32", xr(*i)), name="T_cast", index_names=_names(nd + 1))
    gr = te_reshape(gamma, [nn_common.i64(num_groups), gsize])
    br = te_reshape(beta, [nn_common.i64(num_groups), gsize])
    red = sorted([ca + 1] + [a if a < ca else a + 1 for a in (b % nd for b in axes)])
    kept_shape = [gshape[i] for i in range(nd + 1) if i not in red]
    ks = [te.reduce_axis(gshape[a], f"k{a}") for a in red]
    reducer = _tuple_sum()

    def stats(*i):
        v = xr(*_with_reduce(i, ks, red, nd + 1))
        return reducer((v, te_ops.mul(v, v)), axis=ks)

    sx, sx2 = te.compute(kept_shape, stats, name=f"{x.name}_red_temp", index_names=_names(len(kept_shape)))
    ext = te_ops.const(1.0, "float32")
    for a in red:
        ext = te_ops.mul(ext, te_ops.cast("float32", gshape[a]))

    def out(*i):
        kept, _ = _split(i, red)
        mean = te_ops.div(sx(*kept), ext)
        var = te_ops.sub(te_ops.div(sx2(*kept), ext), te_ops.mul(mean, mean))
        v = te_ops.mul(te_ops.sub(xr(*i), mean), te.rsqrt(te_ops.add(var, te_ops.cast(cd, te_ops.const(eps, x.dtype)))))
        if low:
            v = te_ops.cast(x.dtype, v)
        return te_ops.add(te_ops.mul(v, gr(i[ca], i[ca + 1])), br(i[ca], i[ca + 1]))

    y = te.compute(gshape, out, name="T_group_norm", index_names=_names(nd + 1))
    return te_reshape(y, shape)


def te_batch_norm(x, gamma, beta, mm, mv, axis: int, eps: float, center: bool, scale: bool, momentum: float,
                  training: bool):
    """TOPI ``batch_norm``: a stage per TOPI operation (sums, reshapes of the per-channel vectors to
    ``[1, .., C, .., 1]``, broadcast arithmetic), as TVM's legalization builds it. Low-precision data
    keep the fused stage that widens to float32 (:func:`_te_batch_norm_wide`)."""
    if nn_common.low_precision(x.dtype):
        return _te_batch_norm_wide(x, gamma, beta, mm, mv, axis, eps, center, scale, momentum, training)
    from .elementwise_util import broadcast_compute
    from .manipulate_util import te_reshape

    nd = x.ndim
    ax = axis % nd
    dt = x.dtype
    shape = [nn_common.i64(1)] * nd
    shape[ax] = x.shape[ax]
    red = [a for a in range(nd) if a != ax]

    def binary(fn, a, b, name):
        out_shape = a.shape if isinstance(a, te.Tensor) and a.ndim == nd else b.shape
        return broadcast_compute(fn, [a, b], out_shape, dt, name)

    def vec(fn, a, b, name):
        ta, tb = isinstance(a, te.Tensor), isinstance(b, te.Tensor)
        n = _broadcast_dim(a.shape[0], b.shape[0]) if ta and tb else (a if ta else b).shape[0]
        return te.compute((n,), lambda c: fn(a(c) if ta else a, b(c) if tb else b), name=name, index_names=["ax0"])

    def total(t):
        ks = [te.reduce_axis(t.shape[a], f"k{a}") for a in red]
        return te.compute((t.shape[ax],), lambda c: te.sum(t(*_with_reduce([c], ks, red, nd)), axis=ks),
                          name=f"{t.name}_red", index_names=["ax0"])

    if training:
        count = None
        for a in red:
            count = x.shape[a] if count is None else te_ops.mul(count, x.shape[a])
        count = te_ops.cast(dt, count if count is not None else nn_common.i64(1))
        mean = vec(te_ops.div, total(x), count, "T_divide")
        mean_rs = te_reshape(mean, shape)
        centered = binary(te_ops.sub, x, mean_rs, "T_subtract")
        sq = binary(te_ops.mul, binary(te_ops.sub, x, mean_rs, "T_subtract"),
                    binary(te_ops.sub, x, mean_rs, "T_subtract"), "T_multiply")
        var = vec(te_ops.div, total(sq), count, "T_divide")
        var_rs = te_reshape(var, shape)
    else:
        mean, var = mm, mv
        centered = binary(te_ops.sub, x, te_reshape(mm, shape), "T_subtract")
        var_rs = te_reshape(mv, shape)
    shifted = te.compute(var_rs.shape, lambda *i: te_ops.add(var_rs(*i), te_ops.const(eps, dt)), name="T_add",
                         index_names=_names(nd))
    root = te.compute(shifted.shape, lambda *i: te.sqrt(shifted(*i)), name="compute",
                      index_names=[f"i{k}" for k in range(nd)])
    y = binary(te_ops.div, centered, root, "T_divide")
    if scale:
        y = binary(te_ops.mul, y, te_reshape(gamma, shape), "T_multiply")
    if center:
        y = binary(te_ops.add, y, te_reshape(beta, shape), "T_add")
    if training:
        keep, take = te_ops.const(1 - momentum, dt), te_ops.const(momentum, dt)
        m1 = vec(te_ops.add, vec(te_ops.mul, keep, mm, "T_multiply"), vec(te_ops.mul, take, mean, "T_multiply"),
                 "T_add")
        v1 = vec(te_ops.add, vec(te_ops.mul, keep, mv, "T_multiply"), vec(te_ops.mul, take, var, "T_multiply"),
                 "T_add")
    else:
        one = te_ops.const(1, dt)
        m1 = vec(te_ops.mul, mm, one, "T_multiply")
        v1 = vec(te_ops.mul, mv, one, "T_multiply")
    return [y, m1, v1]


def _broadcast_dim(a: P.PrimExpr, b: P.PrimExpr) -> P.PrimExpr:
    """TOPI's broadcast of two extents: equal ones, the other of a literal 1, the larger of
    two symbolic variables."""
    if a is b or (isinstance(a, P.IntImm) and isinstance(b, P.IntImm) and a.value == b.value):
        return a
    if isinstance(a, P.IntImm) and a.value == 1:
        return b
    if isinstance(b, P.IntImm) and b.value == 1:
        return a
    if isinstance(a, P.PrimVar) and isinstance(b, P.PrimVar):
        return te_ops.max_(a, b)
    return b if isinstance(a, P.PrimVar) else a


def _te_batch_norm_wide(x, gamma, beta, mm, mv, axis: int, eps: float, center: bool, scale: bool,
                        momentum: float, training: bool):
    """batch_norm of low-precision data: the statistics in one stage each, the normalization computed
    in float32 and rounded once."""
    nd = x.ndim
    ax = axis % nd
    dt = x.dtype
    wide = "float32"
    names = _names(nd)
    red = [a for a in range(nd) if a != ax]
    if training:
        count = nn_common.i64(1)
        for a in red:
            count = te_ops.mul(count, x.shape[a])
        ks = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]
        s = te.compute((x.shape[ax],), lambda c: te.sum(x(*_with_reduce([c], ks, red, nd)), axis=ks),
                       name=f"{x.name}_red", index_names=["ax0"])
        mean = te.compute((x.shape[ax],), lambda c: te_ops.div(s(c), te_ops.cast(dt, count)), name="T_divide",
                          index_names=["ax0"])
        ks2 = [te.reduce_axis(x.shape[a], f"k{a}") for a in red]

        def vbody(c):
            d = te_ops.sub(x(*_with_reduce([c], ks2, red, nd)), mean(c))
            return te.sum(te_ops.mul(d, d), axis=ks2)

        vs = te.compute((x.shape[ax],), vbody, name="T_multiply_red", index_names=["ax0"])
        var = te.compute((x.shape[ax],), lambda c: te_ops.div(vs(c), te_ops.cast(dt, count)), name="T_divide",
                         index_names=["ax0"])
    else:
        mean, var = mm, mv

    def out(*i):
        c = i[ax]
        d = te_ops.sub(x(*i), mean(c))
        v = te_ops.div(te_ops.cast(wide, d), te.sqrt(te_ops.add(te_ops.cast(wide, var(c)), te_ops.const(eps, wide))))
        if scale:
            v = te_ops.mul(v, te_ops.cast(wide, gamma(c)))
        if center:
            v = te_ops.add(v, te_ops.cast(wide, beta(c)))
        return te_ops.cast(dt, v)

    y = te.compute(x.shape, out, name="T_batch_norm", index_names=names)
    if training:
        m1 = te.compute((x.shape[ax],), lambda c: te_ops.add(te_ops.mul(te_ops.const(1 - momentum, dt), mm(c)),
                                                             te_ops.mul(te_ops.const(momentum, dt), mean(c))),
                        name="T_add", index_names=["ax0"])
        v1 = te.compute((x.shape[ax],), lambda c: te_ops.add(te_ops.mul(te_ops.const(1 - momentum, dt), mv(c)),
                                                             te_ops.mul(te_ops.const(momentum, dt), var(c))),
                        name="T_add", index_names=["ax0"])
    else:
        m1 = te.compute((x.shape[ax],), lambda c: te_ops.mul(mm(c), te_ops.const(1, dt)), name="T_multiply",
                        index_names=["ax0"])
        v1 = te.compute((x.shape[ax],), lambda c: te_ops.mul(mv(c), te_ops.const(1, dt)), name="T_multiply",
                        index_names=["ax0"])
    return [y, m1, v1]

__all__ = ["te_layer_norm", "te_rms_norm", "te_group_norm", "te_instance_norm", "te_batch_norm"]

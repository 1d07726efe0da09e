"""Normalization operators: ``nn.layer_norm``, ``nn.group_norm``, ``nn.instance_norm``,
``nn.rms_norm`` and ``nn.batch_norm`` (spec pages ``spec/ops/nn.<op>.md``, shared rules OP.NN.NORM.*).

Inference follows TVM 0.25 (``NormCheckDtypeAndShape`` for layer/rms/batch norm,
``InferStructInfoGroupNorm``/``InstanceNorm``). Semantics follow the TOPI kernels (OP.NN.NORM.SEM.*):

1. Statistics of 16-bit float inputs are computed in float32; the normalized value is rounded to
   the dtype before ``gamma``/``beta`` are applied in the dtype (layer, group and instance norm).
2. ``layer_norm``: two-pass mean and (population) variance over ``axes``;
   ``(x - mean) * rsqrt(var + eps) * gamma + beta`` -- ``gamma`` and ``beta`` are always applied
   (the ``center``/``scale`` attributes are ignored, as by TVM's legalization). ``gamma`` dim ``d``
   corresponds to ``axes[d]``.
3. ``group_norm`` and ``instance_norm``: one pass computing ``sum x`` and ``sum x^2``;
   ``var = E[x^2] - E[x]^2`` (TVM's formula, which can lose precision); ``gamma``/``beta`` indexed
   by channel; ``center``/``scale`` ignored.
4. ``rms_norm``: computed in float32 for every dtype (also float64, as TVM's kernel):
   ``x * rsqrt(mean(x^2) + eps) * weight``, rounded to the dtype.
5. ``batch_norm``: with ``training=True`` (the default) the batch mean and variance over every axis
   but ``axis`` normalize the data and the result's second and third fields are
   ``(1 - momentum) * moving + momentum * batch_stat``; with ``training=False`` the moving statistics
   normalize the data and are returned unchanged. ``scale``/``center`` select whether ``gamma``/
   ``beta`` are applied. ``(x - mean) / sqrt(var + eps)``, in float32 for 16-bit floats.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import nn_common
from .nn import is_float, legalizable
from .args import OpArgs
from .checks import check_axis, float_only
from .precision import float32_once
from .opdef import OpDef, arg, attr
from .nn_norm_te import te_batch_norm, te_group_norm, te_instance_norm, te_layer_norm, te_rms_norm

_ARG_NAMES = {
    "relax.nn.layer_norm": ("data", "gamma", "beta"),
    "relax.nn.rms_norm": ("data", "weight"),
    "relax.nn.batch_norm": ("data", "gamma", "beta", "moving_mean", "moving_var"),
    "relax.nn.group_norm": ("data", "gamma", "beta"),
    "relax.nn.instance_norm": ("data", "gamma", "beta"),
}


def _axes_attr(call) -> List[int]:
    v = call.attrs["axes"]
    return [int(a) for a in (v if isinstance(v, (list, tuple)) else (v,))]


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def norm_check(call, ctx, axes: Sequence[int]) -> Tuple[List[TensorStructInfo], bool]:
    """TVM's ``NormCheckDtypeAndShape`` (OP.NN.NORM.C1-C3): returns the argument struct infos and
    whether the shape relation is unknown."""
    names = _ARG_NAMES[common.op_name(call)]
    ts = common.tensor_args(call, len(names), ctx, names)
    data = ts[0]
    axes_nn: List[int] = []
    if data.ndim != -1:
        axes_nn = common.normalize_axes(call, data.ndim, list(axes), ctx)
    n_axis = len(axes)
    if data.dtype != "void" and not (is_float(data.dtype) or data.dtype == "bfloat16"):
        raise common.error(call, f"the operator requires the input data to have float dtype. However, the given data "
                                 f"dtype is {data.dtype}", ctx)
    for i in range(1, len(ts)):
        if ts[i].dtype != data.dtype:
            raise common.error(call, "the operator requires all the input tensors to have the same dtype. However, the "
                                     f"{names[i]} has dtype {ts[i].dtype} which is other than the input data's dtype "
                                     f"{data.dtype}", ctx)
        if ts[i].ndim != n_axis:
            raise common.error(call, f"the operator requires the input {names[i]} to have as many dimensions as the "
                                     f"length of input axes. However, the given one has ndim {ts[i].ndim}, which is "
                                     f"other than the length of axes {n_axis}", ctx)
    lengths: List[Sequence[P.PrimExpr]] = []
    dvals = nn_common.shape_expr_values(data)
    if dvals is not None:
        lengths.append([dvals[a] for a in axes_nn])
    for t in ts[1:]:
        v = nn_common.shape_expr_values(t)
        if v is not None:
            lengths.append(list(v))
    for other in lengths[1:]:
        for d in range(n_axis):
            a, b = lengths[0][d], other[d]
            if nn_common.provably_unequal(ctx, a, b):
                raise common.error(call, "the operator requires the input gamma, beta, etc., to have size same as the "
                                         "lengths of the data on the given axes. However, there exists "
                                         f"{list(lengths[0])} "
                                         f"and {list(other)} that are unequal.", ctx)
            if not common.prove_equal(ctx, a, b):
                return ts, True
    return ts, False


def _layer_rms_infer(call, ctx):
    """OP.nn.layer_norm.C1-C3 / OP.nn.rms_norm.C1-C3: the data's struct info, or only its dtype, rank
    and vdevice when a parameter length is not provably equal to the data's."""
    ts, unknown = norm_check(call, ctx, _axes_attr(call))
    x = ts[0]
    if unknown:
        return TensorStructInfo(None, x.dtype, x.ndim, x.vdevice)
    return x


def _batch_norm_infer(call, ctx):
    """OP.nn.batch_norm.C1-C3: ``(data, moving_mean, moving_var)`` struct infos."""
    ts, unknown = norm_check(call, ctx, [int(call.attrs["axis"])])
    x = ts[0]
    if unknown:
        return TupleStructInfo((TensorStructInfo(None, x.dtype, x.ndim, x.vdevice),
                                TensorStructInfo(None, x.dtype, 1, x.vdevice),
                                TensorStructInfo(None, x.dtype, 1, x.vdevice)))
    return TupleStructInfo((x, ts[3], ts[4]))


def _channel_norm_check(call, ctx, group: bool) -> TensorStructInfo:
    """OP.nn.group_norm.C1-C4 / OP.nn.instance_norm.C1-C3."""
    names = _ARG_NAMES[common.op_name(call)]
    ts = common.tensor_args(call, 3, ctx, names)
    data = ts[0]
    channel_axis = -1
    if data.ndim != -1:
        channel_axis = common.normalize_axis(call, data.ndim, int(call.attrs["channel_axis"]), ctx)
        axes = common.normalize_axes(call, data.ndim, _axes_attr(call), ctx)
        if channel_axis in axes:
            raise common.error(call,
                               f"the operator expects that channel_axis must not be in axes, but got channel_axis: "
                                     f"{channel_axis}, axes: {_axes_attr(call)}", ctx)
    dvals = nn_common.shape_expr_values(data)
    if group:
        if data.dtype != "void" and not is_float(data.dtype):
            raise common.error(call, f"the operator expects that data must be float, but got {data.dtype}", ctx)
        g = int(call.attrs["num_groups"])
        if g <= 0:
            raise common.error(call, f"num_groups must be positive, got {g}", ctx)
        if dvals is not None and channel_axis != -1 and nn_common.can_prove(
                ctx, P.ne(P.floormod(dvals[channel_axis], nn_common.i64(g)), nn_common.i64(0))):
            raise common.error(call,
                               f"the operator expects that the size of channel_axis must be divisible by {g}, but "
                                     f"got {dvals[channel_axis]}", ctx)
    for i in (1, 2):
        if ts[i].dtype != data.dtype:
            raise common.error(call,
                               f"the operator expects that all inputs must have the same dtype, but got {ts[i].dtype} "
                                     f"and {data.dtype}", ctx)
        if ts[i].ndim != 1:
            raise common.error(call, f"the operator expects that all inputs must have ndim=1, but got {ts[i].ndim}",
                               ctx)
        v = nn_common.shape_expr_values(ts[i])
        if v is not None and dvals is not None and channel_axis != -1:
            if nn_common.provably_unequal(ctx, dvals[channel_axis], v[0]):
                raise common.error(call,
                                   f"the operator expects that the size of input {i} must be equal to the size of "
                                         f"channel_axis, but got {v[0]} and {dvals[channel_axis]}", ctx)
    return data


def _group_norm_infer(call, ctx):
    return _channel_norm_check(call, ctx, True)


def _instance_norm_infer(call, ctx):
    return _channel_norm_check(call, ctx, False)


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


def _check_params(args: OpArgs, axes: Sequence[int], params: Sequence[Tuple[int, str]]) -> None:
    """Each parameter ``(argument, name)`` has the data's sizes along ``axes`` (OP.nn.layer_norm.C4)."""
    xs = args.shape(0)
    want = tuple(xs[a] for a in axes)
    for i, what in params:
        ps = args.shape(i)

        def mismatch(ps=ps, what=what) -> OpRuntimeError:
            return OpRuntimeError(f"{args.op_name}: {what} of shape {args.size_text(ps)} does not match the data's "
                                  f"sizes {args.size_text(want)} on axes {list(axes)}")

        if len(ps) != len(want):
            raise mismatch().with_span(args.span)
        for p, w in zip(ps, want):
            if args.is_static(p) and args.is_static(w):
                if p != w:
                    raise mismatch().with_span(args.span)
            else:
                args.fail_if(args.xp.asarray(p) != args.xp.asarray(w), mismatch)


def _make_check_layer_norm(params: Sequence[Tuple[int, str]]):
    """OP.nn.layer_norm.C4 / OP.nn.rms_norm.C4 at run time: float data; the axes within its rank; the
    parameters shaped as the data along them."""

    def check(args: OpArgs) -> None:
        float_only(args, 0, "data")
        nd = args.ndim(0)
        axes = [check_axis(args, a, nd) for a in _axes_attr(args.call)]
        _check_params(args, axes, params)
    return check


def _make_check_channel_norm(grouped: bool):
    """OP.nn.group_norm.C5, and the run-time errors of ``instance_norm`` (OP.SEM.2), at run time: float
    data; the channel axis and axes within its rank; (group_norm) channels that split into the groups;
    gamma and beta of one value per channel."""

    def check(args: OpArgs) -> None:
        float_only(args, 0, "data")
        nd = args.ndim(0)
        ca = check_axis(args, int(args.attrs["channel_axis"]), nd)
        for a in _axes_attr(args.call):
            check_axis(args, a, nd)
        c = args.shape(0)[ca]
        if grouped:
            g = int(args.attrs["num_groups"])
            if g <= 0 or c % g != 0:
                raise args.error(OpRuntimeError, f"{args.op_name}: {c} channels cannot be split into {g} groups")
        for i, what in ((1, "gamma"), (2, "beta")):
            if args.shape(i) != (c,):
                raise args.error(OpRuntimeError, f"{args.op_name}: {what} of shape {args.size_text(args.shape(i))} "
                                                 f"does not match {c} channels")
    return check


def _check_batch_norm(args: OpArgs) -> None:
    """OP.nn.batch_norm.C5 at run time: float data; the axis within its rank; gamma, beta and the
    moving statistics of one value per element of the axis."""
    float_only(args, 0, "data")
    ax = check_axis(args, int(args.attrs["axis"]), args.ndim(0))
    c = args.shape(0)[ax]
    for i, what in ((1, "gamma"), (2, "beta"), (3, "moving_mean"), (4, "moving_var")):
        if args.shape(i) != (c,):
            raise args.error(OpRuntimeError, f"{args.op_name}: {what} of shape {args.size_text(args.shape(i))} does "
                                             f"not match axis {ax} of size {c}")


def _runtime_axes(call, x: np.ndarray, axes: Sequence[int]) -> List[int]:
    return [a % x.ndim for a in axes]


def _param_along(call, p: np.ndarray, x: np.ndarray, axes: Sequence[int], what: str) -> np.ndarray:
    """Parameter ``p`` (dim ``d`` along ``axes[d]``) broadcast against ``x``."""
    order = sorted(range(len(axes)), key=lambda d: axes[d])
    q = np.transpose(p, order) if p.ndim else p
    shape = [1] * x.ndim
    for d in order:
        shape[axes[d]] = x.shape[axes[d]]
    return q.reshape(shape)


def layer_norm_np(call, x, gamma, beta, axes: Sequence[int], eps: float) -> np.ndarray:
    dt = nn_common.dtype_of(x)
    cd = nn_common.compute_dtype(dt)
    ax = tuple(sorted(axes))
    xs = x.astype(nn_common.np_dtype(cd))
    n = np.array(float(np.prod([x.shape[a] for a in ax], dtype=np.int64)), dtype=nn_common.np_dtype(cd))
    with np.errstate(all="ignore"):
        mean = (np.sum(xs, axis=ax, keepdims=True) / n).astype(xs.dtype)
        d = (xs - mean).astype(xs.dtype)
        var_sum = np.sum((d * d).astype(xs.dtype), axis=ax, keepdims=True)
        r = nn_common.intrin("rsqrt", cd, ((var_sum / n).astype(xs.dtype) + np.array(eps,
                                                                                     dtype=xs.dtype)).astype(xs.dtype))
        norm = nn_common.rounded((d * r).astype(xs.dtype), dt)
    f = nn_common.FloatOps(dt)
    g = _param_along(call, gamma, x, axes, "gamma")
    b = _param_along(call, beta, x, axes, "beta")
    return f.add(f.mul(norm, g), b)


def rms_norm_np(call, x, weight, axes: Sequence[int], eps: float) -> np.ndarray:
    """TOPI's kernel: the squares are summed in float32; ``eps`` is a constant of the data dtype, so
    the rest is computed in float32, or float64 for float64 data."""
    dt = nn_common.dtype_of(x)
    wd = "float64" if dt == "float64" else "float32"
    ax = tuple(sorted(axes))
    x32 = nn_common.tir_cast(x, "float32")
    w = _param_along(call, nn_common.tir_cast(weight, "float32"), x, axes, "weight")
    n = np.float32(float(np.prod([x.shape[a] for a in ax], dtype=np.int64)))
    eps_c = np.array(eps, dtype=nn_common.np_dtype(dt)).astype(nn_common.np_dtype(wd))
    f = nn_common.FloatOps(wd)
    with np.errstate(all="ignore"):
        ss = np.sum((x32 * x32).astype(np.float32), axis=ax, keepdims=True)
        mean_sq = (ss / n).astype(np.float32)
    r = f.intrin("rsqrt", f.add(mean_sq, eps_c))
    out = f.mul(f.mul(r, x32), w)
    return nn_common.tir_cast(out, dt)


def _group_stats(xs: np.ndarray, red_axes: Tuple[int, ...], n: np.ndarray, eps: float):
    with np.errstate(all="ignore"):
        sx = np.sum(xs, axis=red_axes, keepdims=True)
        sx2 = np.sum((xs * xs).astype(xs.dtype), axis=red_axes, keepdims=True)
        mean = (sx / n).astype(xs.dtype)
        var = ((sx2 / n).astype(xs.dtype) - (mean * mean).astype(xs.dtype)).astype(xs.dtype)
        r = nn_common.intrin("rsqrt", nn_common.dtype_of(xs), (var + np.array(eps, dtype=xs.dtype)).astype(xs.dtype))
    return mean, r


def group_norm_np(call, x, gamma, beta, num_groups: int, channel_axis: int, axes: Sequence[int],
                  eps: float) -> np.ndarray:
    dt = nn_common.dtype_of(x)
    cd = nn_common.compute_dtype(dt)
    ca = channel_axis % x.ndim
    c = x.shape[ca]
    shape = list(x.shape)
    gshape = shape[:ca] + [num_groups, c // num_groups] + shape[ca + 1:]
    xs = x.reshape(gshape).astype(nn_common.np_dtype(cd))
    red = [ca + 1] + [a if a < ca else a + 1 for a in (ax % x.ndim for ax in axes)]
    red_t = tuple(sorted(red))
    n = np.array(float(np.prod([gshape[a] for a in red_t], dtype=np.int64)), dtype=np.float32).astype(xs.dtype)
    mean, r = _group_stats(xs, red_t, n, eps)
    with np.errstate(all="ignore"):
        norm = nn_common.rounded((((xs - mean).astype(xs.dtype)) * r).astype(xs.dtype), dt).reshape(shape)
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = nn_common.FloatOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


def instance_norm_np(call, x, gamma, beta, channel_axis: int, axes: Sequence[int], eps: float) -> np.ndarray:
    dt = nn_common.dtype_of(x)
    cd = nn_common.compute_dtype(dt)
    ca = channel_axis % x.ndim
    c = x.shape[ca]
    xs = x.astype(nn_common.np_dtype(cd))
    red = tuple(sorted(a % x.ndim for a in axes))
    # TVM's reduce extent is a constant of the data dtype (float16 for float16 data)
    n = np.array(float(np.prod([x.shape[a] for a in red], dtype=np.int64)),
                 dtype=nn_common.np_dtype(dt)).astype(xs.dtype)
    mean, r = _group_stats(xs, red, n, eps)
    with np.errstate(all="ignore"):
        norm = nn_common.rounded((((xs - mean).astype(xs.dtype)) * r).astype(xs.dtype), dt)
    bshape = [1] * x.ndim
    bshape[ca] = c
    f = nn_common.FloatOps(dt)
    return f.add(f.mul(norm, gamma.reshape(bshape)), beta.reshape(bshape))


def batch_norm_formula(x, gamma, beta, mm, mv, ax: int, eps: float, center: bool, scale: bool,
                       momentum: float, training: bool, ops: Any, cast: Any):
    """The order of operations of ``batch_norm`` (OP.nn.batch_norm.C4-C5, TVM's legalized kernel), over
    an evaluator's own arithmetic: ``ops(dtype)`` rounds every operation to ``dtype`` (``add sub mul
    div const sum sqrt``), ``cast(x, from_dtype, to_dtype)`` is TIR's ``Cast``. Division and
    scale/shift are computed in float32 for 16-bit floats. Returns ``(out, mean, var)``."""
    dt = _dt.from_numpy(np.dtype(x.dtype))
    bshape = [1] * x.ndim
    bshape[ax] = x.shape[ax]
    f = ops(dt)
    wide = "float32" if nn_common.low_precision(dt) else dt
    fw = ops(wide)
    red = tuple(a for a in range(x.ndim) if a != ax)
    if training:
        cnt = f.const(float(np.prod([x.shape[a] for a in red], dtype=np.int64)))
        mean = f.div(f.sum(x, axis=red), cnt)
        d = f.sub(x, mean.reshape(bshape))
        var = f.div(f.sum(f.mul(d, d), axis=red), cnt)
        v_b = var.reshape(bshape)
    else:
        v_b = mv.reshape(bshape)
        d = f.sub(x, mm.reshape(bshape))
    out = fw.div(cast(d, dt, wide), fw.sqrt(fw.add(cast(v_b, dt, wide), fw.const(eps))))
    if scale:
        out = fw.mul(out, cast(gamma.reshape(bshape), dt, wide))
    if center:
        out = fw.add(out, cast(beta.reshape(bshape), dt, wide))
    out = cast(out, wide, dt)
    if not training:
        return out, mm, mv
    new_mean = f.add(f.mul(f.const(1 - momentum), mm), f.mul(f.const(momentum), mean))
    new_var = f.add(f.mul(f.const(1 - momentum), mv), f.mul(f.const(momentum), var))
    return out, new_mean, new_var


def batch_norm_np(call, x, gamma, beta, mm, mv, axis: int, eps: float, center: bool, scale: bool,
                  momentum: float, training: bool):
    out, mean, var = batch_norm_formula(x, gamma, beta, mm, mv, axis % x.ndim, eps, center, scale, momentum,
                                        training, nn_common.FloatOps, lambda v, _src, dst: nn_common.tir_cast(v, dst))
    if not training:
        return out, np.array(mm, copy=True), np.array(mv, copy=True)
    return out, mean, var


@float32_once
def _layer_norm_ref(args, attrs, call, ctx):
    x, g, b = args
    return layer_norm_np(call, x, g, b, _runtime_axes(call, x, _axes_attr(call)), float(attrs["epsilon"]))


def _rms_norm_ref(args, attrs, call, ctx):
    x, w = args
    return rms_norm_np(call, x, w, _runtime_axes(call, x, _axes_attr(call)), float(attrs["epsilon"]))


def _group_norm_ref(args, attrs, call, ctx):
    x, g, b = args
    ca = _runtime_axes(call, x, [int(attrs["channel_axis"])])[0]
    return group_norm_np(call, x, g, b, int(attrs["num_groups"]), ca, _runtime_axes(call, x, _axes_attr(call)),
                         float(attrs["epsilon"]))


@float32_once
def _instance_norm_ref(args, attrs, call, ctx):
    x, g, b = args
    ca = _runtime_axes(call, x, [int(attrs["channel_axis"])])[0]
    return instance_norm_np(call, x, g, b, ca, _runtime_axes(call, x, _axes_attr(call)), float(attrs["epsilon"]))


@float32_once
def _batch_norm_ref(args, attrs, call, ctx):
    x, g, b, mm, mv = args
    ax = _runtime_axes(call, x, [int(attrs["axis"])])[0]
    return batch_norm_np(call, x, g, b, mm, mv, ax, float(attrs["epsilon"]), bool(attrs["center"]),
                         bool(attrs["scale"]), float(attrs["momentum"]), bool(attrs["training"]))


# ---------------------------------------------------------------------------------------------------
# Legalization (TOPI's kernels, in :mod:`.nn_norm_te`)
# ---------------------------------------------------------------------------------------------------


def _legalize_layer_norm(call, ctx):
    if not legalizable(call):
        return None
    axes, eps = _axes_attr(call), float(call.attrs["epsilon"])
    return ctx.call_te(lambda x, g, b: te_layer_norm(x, g, b, axes, eps), *call.args, primfunc_name_hint="layer_norm")


def _legalize_rms_norm(call, ctx):
    if not legalizable(call):
        return None
    axes, eps = _axes_attr(call), float(call.attrs["epsilon"])
    return ctx.call_te(lambda x, w: te_rms_norm(x, w, axes, eps), *call.args, primfunc_name_hint="rms_norm")


def _legalize_group_norm(call, ctx):
    if not legalizable(call):
        return None
    a = call.attrs
    g, ca, axes, eps = int(a["num_groups"]), int(a["channel_axis"]), _axes_attr(call), float(a["epsilon"])
    return ctx.call_te(lambda x, gm, bt: te_group_norm(x, gm, bt, g, ca, axes, eps), *call.args,
                       primfunc_name_hint="group_norm")


def _legalize_instance_norm(call, ctx):
    if not legalizable(call):
        return None
    a = call.attrs
    ca, axes, eps = int(a["channel_axis"]), _axes_attr(call), float(a["epsilon"])
    return ctx.call_te(lambda x, gm, bt: te_instance_norm(x, gm, bt, ca, axes, eps), *call.args,
                       primfunc_name_hint="instance_norm")


def _legalize_batch_norm(call, ctx):
    if not legalizable(call):
        return None
    a = call.attrs
    kw = dict(axis=int(a["axis"]), eps=float(a["epsilon"]), center=bool(a["center"]), scale=bool(a["scale"]),
              momentum=float(a["momentum"]), training=bool(a["training"]))
    return ctx.call_te(lambda *xs: te_batch_norm(*xs, **kw), *call.args, primfunc_name_hint="batch_norm")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


def _norm_axes_constructor(attrs, span):
    v = attrs.get("axes")
    attrs["axes"] = tuple(int(a) for a in (v if isinstance(v, (list, tuple)) else (v,)))
    return attrs


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    eps = attr("epsilon", "float", 1e-5)
    OPS.append(nn_common.with_constructor(OpDef(
        name="relax.nn.layer_norm", script="R.nn.layer_norm",
        params=(arg("data"), arg("gamma"), arg("beta"), attr("axes", "int_or_ints"), eps,
                attr("center", "bool", True), attr("scale", "bool", True)),
        infer=_layer_rms_infer, check=_make_check_layer_norm(((1, "gamma"), (2, "beta"))), reference=_layer_norm_ref,
        legalize=_legalize_layer_norm, category="nn",
        doc="``R.nn.layer_norm(data, gamma, beta, axes, epsilon=1e-5, center=True, scale=True)`` "
            "(OP.nn.layer_norm.C1-C4)."), _norm_axes_constructor))
    OPS.append(nn_common.with_constructor(OpDef(
        name="relax.nn.rms_norm", script="R.nn.rms_norm",
        params=(arg("data"), arg("weight"), attr("axes", "int_or_ints", (-1,)), eps),
        infer=_layer_rms_infer, check=_make_check_layer_norm(((1, "weight"),)), reference=_rms_norm_ref,
        legalize=_legalize_rms_norm, category="nn",
        doc="``R.nn.rms_norm(data, weight, axes=-1, epsilon=1e-5)`` (OP.nn.rms_norm.C1-C4)."),
        _norm_axes_constructor))
    OPS.append(nn_common.with_constructor(OpDef(
        name="relax.nn.group_norm", script="R.nn.group_norm",
        params=(arg("data"), arg("gamma"), arg("beta"), attr("num_groups", "int"), attr("channel_axis", "int"),
                attr("axes", "int_or_ints"), eps, attr("center", "bool", True), attr("scale", "bool", True)),
        infer=_group_norm_infer, check=_make_check_channel_norm(True), reference=_group_norm_ref,
        legalize=_legalize_group_norm, category="nn",
        doc="``R.nn.group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5, center=True, "
            "scale=True)`` (OP.nn.group_norm.C1-C5)."), _norm_axes_constructor))
    OPS.append(nn_common.with_constructor(OpDef(
        name="relax.nn.instance_norm", script="R.nn.instance_norm",
        params=(arg("data"), arg("gamma"), arg("beta"), attr("channel_axis", "int"), attr("axes", "int_or_ints"),
                eps, attr("center", "bool", True), attr("scale", "bool", True)),
        infer=_instance_norm_infer, check=_make_check_channel_norm(False), reference=_instance_norm_ref,
        legalize=_legalize_instance_norm, category="nn",
        doc="``R.nn.instance_norm(data, gamma, beta, channel_axis, axes, epsilon=1e-5, center=True, scale=True)`` "
            "(OP.nn.instance_norm.C1-C4)."), _norm_axes_constructor))
    OPS.append(OpDef(
        name="relax.nn.batch_norm", script="R.nn.batch_norm",
        params=(arg("data"), arg("gamma"), arg("beta"), arg("moving_mean"), arg("moving_var"), attr("axis", "int"),
                eps, attr("center", "bool", True), attr("scale", "bool", True), attr("momentum", "float", 0.1),
                attr("training", "bool", True)),
        infer=_batch_norm_infer, check=_check_batch_norm, reference=_batch_norm_ref, legalize=_legalize_batch_norm,
        category="nn",
        doc="``R.nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis, epsilon=1e-5, center=True, "
            "scale=True, momentum=0.1, training=True)`` -> (out, new_mean, new_var) (OP.nn.batch_norm.C1-C5)."))


_define_all()

__all__ = ["norm_check", "layer_norm_np", "rms_norm_np", "group_norm_np", "instance_norm_np", "batch_norm_np", "batch_norm_formula",
           "te_layer_norm", "te_rms_norm", "te_group_norm", "te_instance_norm", "te_batch_norm"]

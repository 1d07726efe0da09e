"""Neural-network operators without windows or statistics: ``nn.softmax``, ``nn.log_softmax``,
``nn.pad``, ``nn.prelu``, ``nn.batch_flatten``, ``nn.pixel_shuffle`` and ``nn.dropout`` (spec pages
``spec/ops/nn.<op>.md``; shared rules on ``spec/ops/nn.md``).

The other ``R.nn`` families live in :mod:`.nn_conv` (convolutions), :mod:`.nn_pool` (pooling),
:mod:`.nn_norm` (normalizations), :mod:`.nn_attention` and :mod:`.nn_loss`; the elementwise
activations (``relu``, ``gelu``, ...) are in :mod:`.elementwise`.

Semantics follow TVM 0.25's TOPI kernels (OP.NN.SEM.*):

* ``softmax(x)[.., i, ..] = exp(x_i - m) / sum_j exp(x_j - m)`` with ``m`` the TIR ``max``
  reduction of the axis; ``log_softmax = x - m - log(sum_j exp(x_j - m))``. Each stage is rounded
  to the dtype; sums are defined up to reassociation (OP.SEM.5).
* ``pad`` reads ``x[i - before]`` inside the input and otherwise: ``pad_value`` converted to the
  dtype (``constant``), the mirror index without repeating the edge (``reflect``; a pad wider than
  ``dim - 1`` is an ``op_runtime`` error, TVM reads out of bounds), the clamped index
  (``replicate``) or the index modulo the dim (``circular``). Negative widths crop.
* ``prelu(x, alpha) = x > 0 ? x : x * alpha[c]`` along ``axis`` (an ``alpha`` of length 1 is
  broadcast).
* ``dropout`` is evaluated in inference mode: ``(x, ones_like(x))`` (OP.nn.dropout.C2).
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .args import OpArgs
from .checks import check_axis, float_only, legalizable
from .opdef import OpDef, arg, attr
from .te_simplify import simplify_compute

# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


def is_float(dtype: str) -> bool:
    """TVM's ``DataType::is_float()``: float16/32/64 (not bfloat16)."""
    return dtype in ("float16", "float32", "float64")


def _axis_names(n: int, prefix: str = "i") -> List[str]:
    return [f"{prefix}{k}" for k in range(n)]


# ---------------------------------------------------------------------------------------------------
# softmax, log_softmax
# ---------------------------------------------------------------------------------------------------


def _softmax_infer(call, ctx):
    """OP.nn.softmax.C1-C2 (TVM's ``InferStructInfoSoftmax``): a float or bfloat16 tensor; the axis
    in range; the result is the input's struct info."""
    x = common.tensor_args(call, 1, ctx)[0]
    if x.ndim == -1:
        return x
    if x.dtype != "void" and not (is_float(x.dtype) or x.dtype == "bfloat16"):
        raise common.error(call, "Softmax requires the input tensor to have float dtype. However, the given input "
                                 f"dtype is {x.dtype}", ctx)
    common.normalize_axis(call, x.ndim, int(call.attrs["axis"]), ctx)
    return x


def _check_softmax(args: OpArgs) -> None:
    """OP.nn.softmax.C2 at run time: a float tensor; the axis within its rank."""
    float_only(args, 0, "data")
    check_axis(args, int(args.attrs["axis"]), args.ndim(0))


def _softmax_axis(call, x: np.ndarray) -> int:
    return int(call.attrs["axis"]) % x.ndim


def softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    """OP.nn.softmax.C3: TOPI's four stages, each rounded to the dtype (bfloat16: in float32, rounded
    once, OP.SEM.7)."""
    dt = nn_common.dtype_of(x)
    wide = nn_common.intermediate_dtype(dt)
    x = x.astype(nn_common.np_dtype(wide))
    f = nn_common.FloatOps(wide)
    m = nn_common.tir_max_reduce(x, axis, keepdims=True)
    e = f.intrin("exp", f.sub(x, m))
    s = f.sum(e, axis=axis, keepdims=True)
    return nn_common.rounded(f.div(e, s), dt)


def log_softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    dt = nn_common.dtype_of(x)
    wide = nn_common.intermediate_dtype(dt)
    x = x.astype(nn_common.np_dtype(wide))
    f = nn_common.FloatOps(wide)
    m = nn_common.tir_max_reduce(x, axis, keepdims=True)
    s = f.sum(f.intrin("exp", f.sub(x, m)), axis=axis, keepdims=True)
    return nn_common.rounded(f.sub(f.sub(x, m), f.intrin("log", s)), dt)


def _softmax_ref(args, attrs, call, ctx):
    x = args[0]
    return softmax_np(x, _softmax_axis(call, x))


def _log_softmax_ref(args, attrs, call, ctx):
    x = args[0]
    return log_softmax_np(x, _softmax_axis(call, x))


def _insert(idx: Sequence[Any], axis: int, k: Any) -> List[Any]:
    idx = list(idx)
    return idx[:axis] + [k] + idx[axis:]


def _drop(idx: Sequence[Any], axis: int) -> List[Any]:
    return [v for i, v in enumerate(idx) if i != axis]


def _softmax_maxelem(x: te.Tensor, axis: int):
    """The first stage of TOPI's softmax and log_softmax, ``T_softmax_maxelem`` (the maximum along
    ``axis``), with the shape, the normalized axis and the reduced shape."""
    shape = list(x.shape)
    axis = axis % len(shape)
    reduced = _drop(shape, axis)
    k1 = te.reduce_axis(shape[axis], "k")
    maxelem = te.compute(reduced, lambda *i: te.max(x(*_insert(i, axis, k1)), axis=k1), name="T_softmax_maxelem",
                         index_names=_axis_names(len(reduced)))
    return shape, axis, reduced, maxelem


def te_softmax(x: te.Tensor, axis: int) -> te.Tensor:
    """TOPI ``softmax``: T_softmax_maxelem, T_softmax_exp, T_softmax_expsum, T_softmax_norm."""
    shape, axis, reduced, maxelem = _softmax_maxelem(x, axis)
    exp = te.compute(shape, lambda *i: te.exp(te_ops.sub(x(*i), maxelem(*_drop(i, axis)))), name="T_softmax_exp",
                     index_names=_axis_names(len(shape)))
    k2 = te.reduce_axis(shape[axis], "k")
    expsum = te.compute(reduced, lambda *i: te.sum(exp(*_insert(i, axis, k2)), axis=k2), name="T_softmax_expsum",
                        index_names=_axis_names(len(reduced)))
    return te.compute(shape, lambda *i: te_ops.div(exp(*i), expsum(*_drop(i, axis))), name="T_softmax_norm",
                      attrs={"axis": axis}, index_names=_axis_names(len(shape)))


def te_log_softmax(x: te.Tensor, axis: int) -> te.Tensor:
    """TOPI ``log_softmax``: T_softmax_maxelem, compute (the exp sum), compute (the result)."""
    shape, axis, reduced, maxelem = _softmax_maxelem(x, axis)
    k2 = te.reduce_axis(shape[axis], "k")
    expsum = te.compute(reduced, lambda *i: te.sum(te.exp(te_ops.sub(x(*_insert(i, axis, k2)), maxelem(*i))), axis=k2),
                        name="compute", index_names=_axis_names(len(reduced)))
    return te.compute(shape, lambda *i: te_ops.sub(te_ops.sub(x(*i), maxelem(*_drop(i, axis))),
                                                   te.log(expsum(*_drop(i, axis)))),
                      name="compute", attrs={"axis": axis}, index_names=_axis_names(len(shape)))


def _softmax_legalize(fn, name):
    def legalize(call, ctx):
        if not legalizable(call):
            return None
        axis = int(call.attrs["axis"])
        return ctx.call_te(lambda x: fn(x, axis), call.args[0], primfunc_name_hint=name)
    return legalize


# ---------------------------------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------------------------------

PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_infer(call, ctx):
    """OP.nn.pad.C1-C3 (TVM's ``InferStructInfoPad``): ``pad_width`` has two values per dim; each dim
    grows by ``before + after``; the result has no vdevice (as TVM)."""
    x = common.tensor_args(call, 1, ctx)[0]
    mode = call.attrs.get("pad_mode", "constant")
    if mode not in PAD_MODES:
        raise common.error(call, f"unknown pad_mode {mode!r}; expected one of {', '.join(PAD_MODES)}", ctx)
    widths = tuple(int(v) for v in call.attrs["pad_width"])
    if x.ndim == -1 or len(widths) != 2 * x.ndim:
        raise common.error(call, f"Illegal pad_width {list(widths)} for a tensor of "
                                 f"{'unknown rank' if x.ndim == -1 else f'rank {x.ndim}'} (two values per dim)", ctx)
    vals = nn_common.shape_expr_values(x)
    if vals is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    out = [te_ops.add(v, nn_common.i64(widths[2 * i] + widths[2 * i + 1])) for i, v in enumerate(vals)]
    return TensorStructInfo(rx.ShapeExpr(tuple(out)), x.dtype)


def pad_plan(op: str, shape: Sequence[int], widths: Sequence[int], mode: str
             ) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    """OP.nn.pad.C4: per axis, the source index of every output position and whether it is inside
    the input (``constant`` fills the others); OpRuntimeError for widths the mode cannot realize
    (cropping below zero, more than one reflection, the edge of an empty axis, padding an empty
    tensor). Shared by every evaluator."""
    idx_per_axis, valid_per_axis = [], []
    for d, size in enumerate(shape):
        before, after = widths[2 * d], widths[2 * d + 1]
        size = int(size)
        n_out = size + before + after
        if n_out < 0:
            raise OpRuntimeError(f"{op}: pad widths ({before}, {after}) crop axis {d} of size {size} below zero")
        i = np.arange(n_out, dtype=np.int64) - before
        valid = (i >= 0) & (i < size)
        if mode == "constant":
            src = np.where(valid, i, 0)
        elif mode == "reflect":
            src = np.where(i < 0, -i, np.where(i >= size, 2 * size - 2 - i, i))
            if n_out and (np.any(src < 0) or np.any(src >= size)):
                raise OpRuntimeError(f"{op}: reflect padding of ({before}, {after}) needs more than one reflection "
                                     f"of axis {d} of size {size}")
            valid = np.ones_like(valid)
        elif mode == "replicate":
            if size == 0 and n_out:
                raise OpRuntimeError(f"{op}: cannot replicate the edge of an empty axis")
            src = np.clip(i, 0, max(size - 1, 0))
            valid = np.ones_like(valid)
        else:  # circular
            if size == 0 and n_out:
                raise OpRuntimeError(f"{op}: cannot wrap around an empty axis")
            src = np.mod(i + size, size) if size else i
            valid = np.ones_like(valid)
        idx_per_axis.append(src)
        valid_per_axis.append(valid)
    if int(np.prod(shape, dtype=np.int64)) == 0 and mode != "constant" and \
            any(len(i) and np.any(v) for i, v in zip(idx_per_axis, valid_per_axis)):
        raise OpRuntimeError(f"{op}: cannot {mode}-pad an empty tensor")
    return idx_per_axis, valid_per_axis


def pad_np(call, x: np.ndarray, widths: Sequence[int], mode: str, value: float) -> np.ndarray:
    """OP.nn.pad.C4: out[i] = x[map(i - before)] per axis (the plan of :func:`pad_plan`)."""
    idx_per_axis, valid_per_axis = pad_plan(common.op_name(call), x.shape, widths, mode)
    if x.size == 0:
        out_shape = tuple(len(i) for i in idx_per_axis)
        return np.full(out_shape, nn_common.tir_cast(np.array(value, dtype=np.float64), nn_common.dtype_of(x)),
                       dtype=x.dtype)
    out = x[np.ix_(*idx_per_axis)] if x.ndim else x.copy()
    if mode == "constant" and x.ndim:
        mask = np.ones(out.shape, dtype=bool)
        for d, v in enumerate(valid_per_axis):
            shape = [1] * x.ndim
            shape[d] = len(v)
            mask &= v.reshape(shape)
        fill = nn_common.tir_cast(np.array(value, dtype=np.float64), nn_common.dtype_of(x))
        out = np.where(mask, out, fill).astype(x.dtype)
    return np.ascontiguousarray(out)


def _check_pad(args: OpArgs) -> None:
    """OP.nn.pad.C3-C4 at run time: two widths per axis, which the mode can realize
    (:func:`pad_plan`)."""
    widths = tuple(int(v) for v in args.attrs["pad_width"])
    nd = args.ndim(0)
    if len(widths) != 2 * nd:
        raise args.error(OpRuntimeError, f"{args.op_name}: pad_width {list(widths)} does not have two values per "
                                         f"dim of a rank-{nd} tensor")
    shape = args.static_shape(0)
    if shape is not None:
        try:
            pad_plan(args.op_name, shape, widths, args.attrs.get("pad_mode", "constant"))
        except OpRuntimeError as e:
            raise e.with_span(args.span)


def _pad_ref(args, attrs, call, ctx):
    x = args[0]
    widths = tuple(int(v) for v in attrs["pad_width"])
    return pad_np(call, x, widths, attrs.get("pad_mode", "constant"), float(attrs.get("pad_value", 0.0)))


def te_pad(x: te.Tensor, before: Sequence[Any], after: Sequence[Any], pad_value: Any = 0.0,
           name: str = "PadInput", index_names=None) -> te.Tensor:
    """TOPI ``pad`` (constant): ``if_then_else(inside, x[i - before], pad_value)``; axes without
    padding index directly."""
    n = x.ndim
    out_shape = [simplify_compute(te_ops.add(te_ops.add(x.shape[i], before[i]), after[i])) for i in range(n)]  # TOPI's
    value = pad_value if isinstance(pad_value, P.PrimExpr) else te_ops.const(pad_value, x.dtype)

    def f(*i):
        conds = []
        idx = []
        for d in range(n):
            b, a = before[d], after[d]
            if te_ops.is_const(te_ops.as_expr(b), 0) and te_ops.is_const(te_ops.as_expr(a), 0):
                idx.append(i[d])
            else:
                idx.append(te_ops.sub(i[d], b))
                conds.append(te_ops.le(b, i[d]))
                conds.append(te_ops.lt(i[d], te_ops.add(x.shape[d], b)))
        if not conds:
            return x(*idx)
        c = conds[0]
        for more in conds[1:]:
            c = te_ops.logical_and(c, more)
        return te_ops.if_then_else(c, x(*idx), value)

    names = index_names or _axis_names(n)
    return te.compute(out_shape, f, name=name, index_names=names)


def _te_mode_pad(x: te.Tensor, before, after, mode: str) -> te.Tensor:
    n = x.ndim
    out_shape = [te_ops.add(te_ops.add(x.shape[i], before[i]), after[i]) for i in range(n)]

    def f(*i):
        idx = []
        for d in range(n):
            size = x.shape[d]
            orig = te_ops.sub(i[d], before[d])
            if mode == "reflect":
                idx.append(te_ops.if_then_else(te_ops.lt(orig, 0), te_ops.neg(orig),
                                               te_ops.if_then_else(te_ops.ge(orig, size),
                                                                   te_ops.sub(te_ops.sub(te_ops.mul(2, size), 2), orig),
                                                              orig)))
            elif mode == "replicate":
                idx.append(te_ops.if_then_else(te_ops.lt(orig, 0), nn_common.i64(0),
                                               te_ops.if_then_else(te_ops.ge(orig, size), te_ops.sub(size, 1), orig)))
            else:
                idx.append(te_ops.floormod(te_ops.add(orig, size), size))
        return x(*idx)

    names = {"reflect": "ReflectPadInput", "replicate": "ReplicatePadInput", "circular": "CircularPadInput"}
    return te.compute(out_shape, f, name=names[mode], index_names=_axis_names(n))


def _pad_legalize(call, ctx):
    if not legalizable(call):
        return None
    widths = [int(v) for v in call.attrs["pad_width"]]
    before, after = [nn_common.i64(v) for v in widths[::2]], [nn_common.i64(v) for v in widths[1::2]]
    mode = call.attrs.get("pad_mode", "constant")
    if mode == "constant":
        value = float(call.attrs.get("pad_value", 0.0))
        return ctx.call_te(lambda x: te_pad(x, before, after, value, name="PadInput"), call.args[0],
                           primfunc_name_hint="pad")
    return ctx.call_te(lambda x: _te_mode_pad(x, before, after, mode), call.args[0],
                       primfunc_name_hint=f"{mode}_pad")


# ---------------------------------------------------------------------------------------------------
# prelu
# ---------------------------------------------------------------------------------------------------


def _prelu_infer(call, ctx):
    """OP.nn.prelu.C1-C2 (TVM's ``InferStructInfoPRelu``): a float16/32/64 ``data`` (bfloat16 is
    rejected) and an axis in range; ``alpha`` must be a tensor and is otherwise unchecked; the
    result is the data's struct info."""
    if len(call.args) != 2:
        raise common.error(call, f"the operator expects 2 arguments, but was called with {len(call.args)}", ctx)
    x = common.tensor_arg(call, 0, ctx, "data")
    common.tensor_arg(call, 1, ctx, "alpha")
    if x.ndim == -1:
        return x
    if x.dtype != "void" and not is_float(x.dtype):
        raise common.error(call, "Prelu requires the input tensor to have float dtype. However, the given input dtype "
                                 f"is {x.dtype}", ctx)
    common.normalize_axis(call, x.ndim, int(call.attrs["axis"]), ctx)
    return x


def _check_prelu(args: OpArgs) -> None:
    """OP.nn.prelu.C3 at run time: a float tensor; ``alpha`` of one value or one per element of the
    axis."""
    float_only(args, 0, "data")
    xs, als = args.shape(0), args.shape(1)
    axis = int(args.attrs["axis"]) % max(len(xs), 1)
    n = xs[axis]

    def mismatch() -> OpRuntimeError:
        size = n if args.is_static(n) else "?"
        return OpRuntimeError(f"{args.op_name}: alpha of shape {args.size_text(als)} does not match axis {axis} of "
                              f"size {size} (expected (1,) or ({size},))")

    if len(als) != 1 or (als[0] != 1 and args.is_static(n) and als[0] != n):
        raise mismatch().with_span(args.span)
    if als[0] != 1 and not args.is_static(n):
        args.fail_if(args.xp.asarray(n) != als[0], mismatch)


def _prelu_ref(args, attrs, call, ctx):
    x, alpha = args
    dt = nn_common.dtype_of(x)
    axis = int(attrs["axis"]) % max(x.ndim, 1)
    shape = [1] * x.ndim
    shape[axis] = alpha.shape[0]
    a = nn_common.tir_cast(alpha, dt).reshape(shape)
    f = nn_common.FloatOps(dt)
    return np.where(x > nn_common.float_const(0, dt), x, f.mul(x, a)).astype(x.dtype)


def te_prelu(x: te.Tensor, slope: te.Tensor, axis: int) -> te.Tensor:
    """TOPI ``prelu``: ``Select(x > 0, x, x * slope[c])`` (a length-1 slope is broadcast first)."""
    axis = axis % x.ndim
    if isinstance(slope.shape[0], P.IntImm) and slope.shape[0].value == 1:
        s0 = slope
        slope = te.compute((x.shape[axis],), lambda c: s0(0), name="slope_broadcasted")
    return te.compute(x.shape, lambda *i: te_ops.select(te_ops.gt(x(*i), te_ops.const(0, x.dtype)), x(*i),
                                                        te_ops.mul(x(*i), slope(i[axis]))),
                      name="compute", index_names=_axis_names(x.ndim))


def _prelu_legalize(call, ctx):
    if not legalizable(call):
        return None
    x, alpha = call.args[0].struct_info, call.args[1].struct_info
    axis = int(call.attrs["axis"]) % x.ndim
    a0 = alpha.shape.values[0] if alpha.ndim == 1 else None
    if alpha.ndim != 1:
        return None
    if not (isinstance(a0, P.IntImm) and a0.value == 1 or common.prove_equal(ctx, a0, x.shape.values[axis])):
        return None  # TOPI's prelu requires a static match of the slope length
    return ctx.call_te(lambda d, s: te_prelu(d, s, axis), call.args[0], call.args[1], primfunc_name_hint="prelu")


# ---------------------------------------------------------------------------------------------------
# batch_flatten
# ---------------------------------------------------------------------------------------------------


def _batch_flatten_infer(call, ctx):
    """OP.nn.batch_flatten.C1-C2: rank >= 2; ``(d0, d1 * d2 * ...)`` (rank 2 is returned unchanged)."""
    x = common.tensor_args(call, 1, ctx)[0]
    if x.ndim == -1:
        return TensorStructInfo(None, x.dtype, 2, x.vdevice)
    if x.ndim < 2:
        raise common.error(call, f"batch_flatten expects input tensor to have at least 2 dimensions, but got {x.ndim}",
                           ctx)
    if x.ndim == 2:
        return x
    vals = nn_common.shape_expr_values(x)
    if vals is None:
        return TensorStructInfo(None, x.dtype, 2, x.vdevice)
    flat = nn_common.i64(1)
    for v in vals[1:]:
        flat = te_ops.mul(flat, v)
    return TensorStructInfo(rx.ShapeExpr((vals[0], flat)), x.dtype, vdevice=x.vdevice)


def _check_batch_flatten(args: OpArgs) -> None:
    """OP.nn.batch_flatten.C2 at run time: a tensor of rank at least 2."""
    if args.ndim(0) < 2:
        raise args.error(OpRuntimeError, f"{args.op_name}: expects a tensor of rank >= 2, got rank {args.ndim(0)}")


def _batch_flatten_ref(args, attrs, call, ctx):
    x = args[0]
    rest = int(np.prod(x.shape[1:], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(x.shape[0], rest).copy()


def _batch_flatten_legalize(call, ctx):
    if not legalizable(call):
        return None
    from .manipulate import te_reshape

    shape = list(call.struct_info.shape.values)
    return ctx.call_te(lambda x, s: te_reshape(x, s), call.args[0], shape, primfunc_name_hint="reshape")


# ---------------------------------------------------------------------------------------------------
# pixel_shuffle
# ---------------------------------------------------------------------------------------------------


def _pixel_shuffle_infer(call, ctx):
    """OP.nn.pixel_shuffle.C1-C3: ``upscale_factor > 0``; rank >= 3; the channel dim (``-3``) must be
    divisible by ``r * r`` when constant; ``(.., C / r^2, H * r, W * r)``; no vdevice (as TVM)."""
    x = common.tensor_args(call, 1, ctx)[0]
    r = int(call.attrs["upscale_factor"])
    if r <= 0:
        raise common.error(call, f"Upscale factor must be positive, got {r}", ctx)
    if x.ndim == -1 or x.ndim < 3:
        raise common.error(call, "PixelShuffle requires at least 3D input tensor"
                                 f"{'' if x.ndim == -1 else f', got rank {x.ndim}'}", ctx)
    vals = nn_common.shape_expr_values(x)
    if vals is None:
        return TensorStructInfo(None, x.dtype, x.ndim)
    c, h, w = vals[-3:]
    if isinstance(c, P.IntImm):
        if c.value % (r * r) != 0:
            raise common.error(call, "Number of input channels must be divisible by the square of the upscale factor, "
                                     f"got {c.value} channels and factor {r}", ctx)
        c_out: P.PrimExpr = nn_common.i64(c.value // (r * r))
    else:
        c_out = nn_common.simplify(ctx, P.floordiv(c, nn_common.i64(r * r)))
    out = list(vals[:-3]) + [c_out, te_ops.mul(h, nn_common.i64(r)), te_ops.mul(w, nn_common.i64(r))]
    return TensorStructInfo(rx.ShapeExpr(tuple(out)), x.dtype)


def _check_pixel_shuffle(args: OpArgs) -> None:
    """OP.nn.pixel_shuffle.C4 at run time: the channels divide by the square of the factor."""
    r = int(args.attrs["upscale_factor"])
    c = args.shape(0)[-3]
    if args.is_static(c) and c % (r * r) != 0:
        raise args.error(OpRuntimeError, f"{args.op_name}: {c} channels are not divisible by {r * r}")


def _pixel_shuffle_ref(args, attrs, call, ctx):
    x = args[0]
    r = int(attrs["upscale_factor"])
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    nl = len(lead)
    perm = list(range(nl)) + [nl, nl + 3, nl + 1, nl + 4, nl + 2]
    return np.ascontiguousarray(np.transpose(y, perm).reshape(*lead, c // (r * r), h * r, w * r))


def te_pixel_shuffle(x: te.Tensor, r: int) -> te.Tensor:
    rc = te_ops.const(r, "int32")
    c, h, w = x.shape[-3:]
    out_shape = list(x.shape[:-3]) + [te_ops.floordiv(c, te_ops.mul(rc, rc)), te_ops.mul(h, rc), te_ops.mul(w, rc)]

    def f(*i):
        co, ho, wo = i[-3:]
        hi, ho_off = te_ops.floordiv(ho, rc), te_ops.floormod(ho, rc)
        wi, wo_off = te_ops.floordiv(wo, rc), te_ops.floormod(wo, rc)
        ci = te_ops.add(te_ops.add(te_ops.mul(te_ops.mul(co, rc), rc), te_ops.mul(ho_off, rc)), wo_off)
        return x(*(list(i[:-3]) + [ci, hi, wi]))

    return te.compute(out_shape, f, name="PixelShuffle", index_names=_axis_names(x.ndim))


def _pixel_shuffle_legalize(call, ctx):
    if not legalizable(call):
        return None
    r = int(call.attrs["upscale_factor"])
    return ctx.call_te(lambda x: te_pixel_shuffle(x, r), call.args[0], primfunc_name_hint="pixel_shuffle")


# ---------------------------------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------------------------------


def _dropout_infer(call, ctx):
    """OP.nn.dropout.C1: one tensor; the result is ``(data, data)`` struct info."""
    x = common.tensor_args(call, 1, ctx)[0]
    return TupleStructInfo((x, x))


def _dropout_ref(args, attrs, call, ctx):
    """OP.nn.dropout.C2: inference mode -- the input unchanged and a mask of ones."""
    x = args[0]
    return (np.array(x, copy=True), np.ones(x.shape, dtype=x.dtype))


def _dropout_legalize(call, ctx):
    """(PASS.RELEASE.1) TVM 0.27's form: one kernel ``dropout`` computing ``(x, ones_like(x))``, the
    values of OP.nn.dropout.C2; TVM 0.25 keeps the call."""
    if not ctx.release.legalize_dropout:
        return None

    def te_dropout(x):
        one = te.const(1.0 if x.dtype.startswith(("float", "bfloat")) else 1, x.dtype)
        return [te.compute(x.shape, lambda *i: x(*i), name="compute"),
                te.compute(x.shape, lambda *i: one, name="T_full_like",
                           index_names=[f"ax{k}" for k in range(len(x.shape))])]

    return ctx.call_te(te_dropout, call.args[0], primfunc_name_hint="dropout")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    OPS.append(OpDef(name="relax.nn.softmax", script="R.nn.softmax",
                   params=(arg("data"), attr("axis", "int", -1)), infer=_softmax_infer, check=_check_softmax,
                   reference=_softmax_ref,
                   legalize=_softmax_legalize(te_softmax, "softmax"), category="nn",
                   doc="``R.nn.softmax(data, axis=-1)``: exp(x - max) / sum(exp(x - max)) along axis "
                       "(OP.nn.softmax.C1-C3)."))
    OPS.append(OpDef(name="relax.nn.log_softmax", script="R.nn.log_softmax",
                   params=(arg("data"), attr("axis", "int", -1)), infer=_softmax_infer, check=_check_softmax,
                   reference=_log_softmax_ref,
                   legalize=_softmax_legalize(te_log_softmax, "log_softmax"), category="nn",
                   doc="``R.nn.log_softmax(data, axis=-1)``: x - max - log(sum(exp(x - max))) "
                       "(OP.nn.log_softmax.C1-C3)."))
    OPS.append(OpDef(name="relax.nn.pad", script="R.nn.pad",
                   params=(arg("data"), attr("pad_width", "ints"), attr("pad_mode", "str", "constant"),
                           attr("pad_value", "float", 0.0)),
                   infer=_pad_infer, check=_check_pad, reference=_pad_ref, legalize=_pad_legalize, category="nn",
                   print_call=nn_common.print_in_order(("pad_width", "pad_value", "pad_mode")),
                   doc="``R.nn.pad(data, pad_width, pad_mode='constant', pad_value=0.0)`` (OP.nn.pad.C1-C4)."))
    OPS.append(OpDef(name="relax.nn.prelu", script="R.nn.prelu",
                   params=(arg("data"), arg("alpha"), attr("axis", "int", 1)), infer=_prelu_infer,
                   check=_check_prelu, reference=_prelu_ref, legalize=_prelu_legalize, category="nn",
                   doc="``R.nn.prelu(data, alpha, axis=1)``: x > 0 ? x : alpha[c] * x (OP.nn.prelu.C1-C3)."))
    OPS.append(OpDef(name="relax.nn.batch_flatten", script="R.nn.batch_flatten", params=(arg("data"),),
                   infer=_batch_flatten_infer, check=_check_batch_flatten, reference=_batch_flatten_ref,
                   legalize=_batch_flatten_legalize,
                   category="nn", doc="``R.nn.batch_flatten(data)``: reshape to (d0, d1*d2*...) "
                                      "(OP.nn.batch_flatten.C1-C2)."))
    OPS.append(OpDef(name="relax.nn.pixel_shuffle", script="R.nn.pixel_shuffle",
                   params=(arg("data"), attr("upscale_factor", "int")), infer=_pixel_shuffle_infer,
                   check=_check_pixel_shuffle, reference=_pixel_shuffle_ref, legalize=_pixel_shuffle_legalize,
                   category="nn",
                   doc="``R.nn.pixel_shuffle(data, upscale_factor)``: (.., C*r*r, H, W) -> (.., C, H*r, W*r) "
                       "(OP.nn.pixel_shuffle.C1-C4)."))
    OPS.append(OpDef(name="relax.nn.dropout", script="R.nn.dropout", params=(arg("data"), attr("rate", "float", 0.5)),
                   infer=_dropout_infer, reference=_dropout_ref, legalize=_dropout_legalize, category="nn",
                   doc="``R.nn.dropout(data, rate=0.5)``: (data, mask); evaluated in inference mode "
                       "(OP.nn.dropout.C1-C2)."))


_define_all()

__all__ = ["softmax_np", "log_softmax_np", "te_softmax", "te_log_softmax", "te_pad", "pad_np", "pad_plan", "te_prelu",
           "te_pixel_shuffle", "legalizable", "is_float", "PAD_MODES"]

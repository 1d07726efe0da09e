"""Replicating elements and summing replicas away: ``broadcast_to``, ``collapse_sum_like``,
``collapse_sum_to``, ``repeat``, ``tile`` (entries in :mod:`relax_ref.ops.manipulate`, decisions recorded
there and on the operators' spec pages).
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from . import manipulate_util
from . import te
from . import te_ops
from .manipulate_util import manipulation_op
from .opdef import arg, attr

_I64 = manipulate_util.int64


def _broadcast_to_infer(call, ctx):
    """OP.broadcast_to.C1-C4 (TVM's ``InferStructInfoBroadcastTo``)."""
    if len(call.args) != 2:
        raise common.error(call, "broadcast_to should take 2 arguments.", ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "broadcast_to", "data")  # C1
    tgt = manipulate_util.shape_input(call, 1, ctx, "broadcast_to", "new shape")
    if data.ndim != -1 and tgt.ndim != -1 and tgt.ndim < data.ndim:  # C2
        raise common.error(call, "broadcast_to expects the input shape to have the number of ndim at least as "
                                 f"the input tensor's. However, the given tensor has ndim {data.ndim} while the "
                                 f"target shape has ndim {tgt.ndim}", ctx)
    result = TensorStructInfo(call.args[1], data.dtype, vdevice=data.vdevice)
    old = data.shape_values
    if old is None or tgt.values is None:
        return result
    for i in range(1, len(old) + 1):  # C3
        o, t = old[-i], tgt.values[-i]
        if isinstance(o, P.IntImm) and o.value == 1:
            continue
        if manipulate_util.prove_not_equal(ctx, o, t):
            raise common.error(call, "broadcast_to expects the input tensor shape is broadcastable to the target "
                                     f"shape. The target shape at dim {len(tgt.values) - i} is {t} while the input "
                                     f"tensor shape at dim {len(old) - i} is {o}, which are not equal.", ctx)
    return result


def _broadcast_to_ref(args, attrs, call, ctx):
    x, shape = args
    shape = tuple(int(d) for d in shape)
    ok = len(shape) >= x.ndim and all(d == 1 or d == t for d, t in zip(x.shape[::-1], shape[::-1]))
    if not ok:  # C3 at run time
        raise manipulate_util.runtime_error(call, f"cannot broadcast a tensor of shape {x.shape} to {shape}")
    return manipulate_util.copy_out(np.broadcast_to(x, shape))


def te_broadcast_to(x: te.Tensor, shape: Sequence[P.PrimExpr], checks: Optional[list] = None) -> te.Tensor:
    """TOPI ``broadcast_to`` (``T_broadcast_to``). An input dim that is the literal 1 is read at 0; a
    dim that is its target dim (the same constant, or the same symbolic expression, which is 1 exactly
    when the output's extent is 1, so the index is 0 then) is indexed by the output index; any other dim (symbolic, so it
    may be 1 at run time) is read at 0 when it is 1 and at the output index otherwise, guarded by a
    run-time check that it is 1 or the target dim (OP.broadcast_to.C3; TVM 0.25's TOPI requires it to
    equal the target dim statically and aborts when it cannot prove so)."""
    off = len(shape) - len(x.shape)

    def static_eq(d, t) -> bool:
        if isinstance(d, P.IntImm) and isinstance(t, P.IntImm):
            return d.value == t.value
        return d == t       # the same expression over the same variables

    def f(*i):
        idx = []
        for k, d in enumerate(x.shape):
            t = shape[off + k]
            if isinstance(d, P.IntImm) and d.value == 1:
                idx.append(_I64(0))
            elif static_eq(d, t) or isinstance(d, P.IntImm):
                idx.append(i[off + k])
            else:
                idx.append(te_ops.if_then_else(te_ops.eq(d, _I64(1)), _I64(0), i[off + k]))
        return x(*idx)

    if checks is not None:
        for k, d in enumerate(x.shape):
            t = shape[off + k]
            if isinstance(d, P.IntImm) and d.value == 1 or static_eq(d, t):
                continue
            ok = te_ops.eq(d, t) if isinstance(d, P.IntImm) else te_ops.logical_or(te_ops.eq(d, _I64(1)), te_ops.eq(d,
                                                                                                                    t))
            checks.append((ok, f"broadcast_to: dimension {k} of the input must be 1 or equal to the target "
                               "dimension"))
    return te.compute(shape, f, name="T_broadcast_to", index_names=manipulate_util.axes_names(len(shape)))


def _broadcast_to_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    checks: List[Tuple[P.PrimExpr, str]] = []
    return manipulate_util.call_te_with_asserts(ctx, lambda x, *dims: te_broadcast_to(x, dims, checks),
                                                [call.args[0]] + list(call.struct_info.shape_values), "broadcast_to",
                                                checks)


def _check_collapse(call, ctx, data: Sequence[P.PrimExpr], target: Sequence[P.PrimExpr]) -> None:
    """OP.collapse_sum_to.C3 (TVM's ``CheckCollapseShape``): right-aligned, each target dim equals the
    data dim or is the literal 1; extra leading data dims are summed."""
    t_ax = len(target) - 1
    for d_ax in range(len(data) - 1, -1, -1):
        if t_ax < 0:
            continue
        d0, d1 = data[d_ax], target[t_ax]
        if common.prove_equal(ctx, d0, d1) or (isinstance(d1, P.IntImm) and d1.value == 1):
            t_ax -= 1
        elif isinstance(d0, P.IntImm) and isinstance(d1, P.IntImm):
            raise common.error(call, f"the data shape at dim {d_ax} is {d0} and the target shape at dim {t_ax} is "
                                     f"{d1}, which do not match the rule of collapse sum.", ctx)
        else:
            raise common.error(call, "fails to match the axes because of unknown dim or symbolic shape. In this "
                                     f"position the dim of data shape is {d0} while the dim of target shape is "
                                     f"{d1}. If it is symbolic, consider use MatchCast first.", ctx)


def _collapse_like_infer(call, ctx):
    """OP.collapse_sum_like.C1-C3 (TVM's ``InferStructInfoCollapseSumLike``)."""
    data, target = common.tensor_args(call, 2, ctx)
    if data.shape_values is not None and target.shape_values is not None:
        _check_collapse(call, ctx, data.shape_values, target.shape_values)
    if target.shape is not None:
        return TensorStructInfo(target.shape, data.dtype, vdevice=target.vdevice)
    return TensorStructInfo(None, data.dtype, target.ndim, target.vdevice)


def _collapse_to_infer(call, ctx):
    """OP.collapse_sum_to.C1-C4 (TVM's ``InferStructInfoCollapseSumTo``)."""
    if len(call.args) != 2:
        raise common.error(call, "CollapseSumTo should have 2 arguments", ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "CollapseSumTo", "data")
    shape = manipulate_util.shape_input(call, 1, ctx, "CollapseSumTo", "shape")
    if data.shape_values is not None and shape.values is not None:
        _check_collapse(call, ctx, data.shape_values, shape.values)
    return TensorStructInfo(call.args[1], data.dtype, vdevice=data.vdevice)


def collapse_sum_axes(shape: Sequence[int], target: Tuple[int, ...], error: Callable[[str], Exception]) -> List[int]:
    """The axes that ``collapse_sum_to`` sums over (kept with size 1) to reduce ``shape`` to ``target``:
    the leading extra axes and every axis where the target is 1 and the data is not. Any other
    difference raises ``error(message)`` (OP.collapse_sum_to.C3 at run time)."""
    if len(target) > len(shape):
        raise error(f"cannot collapse a tensor of shape {tuple(shape)} to {target}")
    lead = len(shape) - len(target)
    axes = list(range(lead))
    for k, t in enumerate(target):
        d = shape[lead + k]
        if d == t:
            continue
        if t != 1:
            raise error(f"cannot collapse a tensor of shape {tuple(shape)} to {target}")
        axes.append(lead + k)
    return axes


def collapse_sum_np(call, x: np.ndarray, target: Sequence[int]) -> np.ndarray:
    target = tuple(int(t) for t in target)
    axes = collapse_sum_axes(x.shape, target, lambda msg: manipulate_util.runtime_error(call, msg))
    with np.errstate(all="ignore"):
        out = np.sum(x, axis=tuple(axes), keepdims=True, dtype=x.dtype) if axes else x
    return manipulate_util.copy_out(np.reshape(out, target))


def _collapse_like_ref(args, attrs, call, ctx):
    return collapse_sum_np(call, args[0], args[1].shape)


def _collapse_to_ref(args, attrs, call, ctx):
    return collapse_sum_np(call, args[0], tuple(args[1]))


def te_collapse_sum(x: te.Tensor, target: Sequence[P.PrimExpr]) -> te.Tensor:
    """TOPI ``collapse_sum``: a sum over the leading data dims and the dims collapsed to 1."""
    ishape, oshape = list(x.shape), list(target)
    reduce_axes: List[int] = []
    squeeze: List[int] = []
    o_ax = len(oshape) - 1
    for i_ax in range(len(ishape) - 1, -1, -1):
        if o_ax >= 0 and (ishape[i_ax] == oshape[o_ax] or (
                isinstance(ishape[i_ax], P.IntImm) and isinstance(oshape[o_ax], P.IntImm)
                and ishape[i_ax].value == oshape[o_ax].value)):
            o_ax -= 1
            continue
        reduce_axes.append(i_ax)
        if o_ax < 0:
            squeeze.append(i_ax)
        elif isinstance(oshape[o_ax], P.IntImm) and oshape[o_ax].value == 1:
            o_ax -= 1
    if not reduce_axes:
        return te.compute(ishape, lambda *i: x(*i), name="tensor", index_names=manipulate_util.axes_names(len(ishape)))
    reduce_axes.reverse()
    raxes = {a: te.reduce_axis(ishape[a], f"k{a}") for a in reduce_axes}
    kept = [a for a in range(len(ishape)) if a not in squeeze]

    def f(*o):
        idx = []
        pos = dict(zip(kept, o))
        for a in range(len(ishape)):
            idx.append(raxes[a].var if a in raxes else pos[a])
        return te.sum(x(*idx), axis=[raxes[a] for a in reduce_axes])

    return te.compute(oshape, f, name=f"{x.name}_red", index_names=manipulate_util.axes_names(len(oshape)))


def _collapse_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    target = list(call.struct_info.shape_values)
    return ctx.call_te(lambda x, *t: te_collapse_sum(x, t), call.args[0], *target,
                       primfunc_name_hint="collapse_sum")


def _repeat_infer(call, ctx):
    """OP.repeat.C1-C3 (TVM's ``InferStructInfoRepeat``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    repeats = call.attrs["repeats"]
    axis = call.attrs.get("axis")
    if repeats < 0:  # C2 (TVM infers a negative extent)
        raise common.error(call, f"Repeat requires a non-negative number of repeats, got {repeats}", ctx)
    if axis is not None and data.ndim != -1 and not -data.ndim <= axis < data.ndim:  # C1
        raise common.error(call, "Repeat requires the input axis belongs range [-data.struct_info.ndim, "
                                 f"data.struct_info.ndim - 1]. However, the input axis is {axis}, while ndim is "
                                 f"{data.ndim}", ctx)
    vals = manipulate_util.shape_expr_values(data)
    if vals is None:
        if axis is not None:
            return data if repeats == 1 else TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
        return TensorStructInfo(None, data.dtype, 1, data.vdevice)
    if axis is None:
        n = manipulate_util.simplify(ctx, te_ops.mul(common.shape_product(vals), _I64(repeats)))
        return TensorStructInfo(rx.ShapeExpr((n,)), data.dtype, vdevice=data.vdevice)
    a = axis % data.ndim
    shape = list(vals)
    shape[a] = manipulate_util.simplify(ctx, te_ops.mul(shape[a], _I64(repeats)))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), data.dtype, vdevice=data.vdevice)


def _repeat_ref(args, attrs, call, ctx):
    x = args[0]
    axis = attrs.get("axis")
    if axis is None:
        return manipulate_util.copy_out(np.repeat(np.reshape(x, (-1,)), attrs["repeats"]))
    return manipulate_util.copy_out(np.repeat(x, attrs["repeats"], axis=axis % x.ndim))


def _repeat_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    repeats, axis = call.attrs["repeats"], call.attrs.get("axis")

    def fte(x):
        if axis is None:
            x = manipulate_util.te_reshape(x, [common.shape_product(x.shape)])
            a = 0
        else:
            a = axis % len(x.shape)
        shape = list(x.shape)
        shape[a] = te_ops.mul(_I64(repeats), shape[a])

        def f(*i):
            idx = list(i)
            idx[a] = te_ops.floordiv(i[a], _I64(repeats)) if repeats else i[a]
            return x(*idx)

        return te.compute(shape, f, name="T_repeat", index_names=manipulate_util.axes_names(len(shape)))

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="repeat")


def _tile_infer(call, ctx):
    """OP.tile.C1-C2 (TVM's ``InferStructInfoTile``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    reps = list(call.attrs["repeats"])
    if any(r < 0 for r in reps):  # C1
        raise common.error(call, f"Tile requires non-negative repeats, got {reps}", ctx)
    vals = manipulate_util.shape_expr_values(data)
    ndim, l = data.ndim, len(reps)
    if vals is None:
        if ndim == -1:
            return TensorStructInfo(None, data.dtype, -1, data.vdevice)
        if l > ndim:
            return TensorStructInfo(None, data.dtype, l, data.vdevice)
        if any(r != 1 for r in reps):
            return TensorStructInfo(None, data.dtype, ndim, data.vdevice)
        return data
    out_ndim = max(l, ndim)
    l_delta, nd_delta = out_ndim - l, out_ndim - ndim
    shape = []
    for i in range(out_ndim):
        if i < l_delta:
            shape.append(vals[i - nd_delta])
        elif i < nd_delta:
            shape.append(_I64(reps[i - l_delta]))
        else:
            shape.append(manipulate_util.simplify(ctx, te_ops.mul(vals[i - nd_delta], _I64(reps[i - l_delta]))))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), data.dtype, vdevice=data.vdevice)


def _tile_ref(args, attrs, call, ctx):
    return manipulate_util.copy_out(np.tile(args[0], tuple(attrs["repeats"])))


def te_tile(x: te.Tensor, reps: Sequence[int]) -> te.Tensor:
    """TOPI ``tile`` (``T_tile``): ``x[i mod shape]`` over the tiled shape."""
    ndim, rdim = len(x.shape), len(reps)
    if ndim >= rdim:
        dshape, rshape = list(x.shape), [_I64(1)] * (ndim - rdim) + [_I64(r) for r in reps]
    else:
        dshape, rshape = [_I64(1)] * (rdim - ndim) + list(x.shape), [_I64(r) for r in reps]
    shape = [te_ops.mul(d, r) for d, r in zip(dshape, rshape)]
    names = manipulate_util.axes_names(len(shape))
    if manipulate_util.is_empty(shape):
        return te.compute(shape, lambda *i: te_ops.cast(x.dtype, 0), name="T_tile", index_names=names)
    off = max(rdim - ndim, 0)
    return te.compute(shape, lambda *i: x(*[te_ops.floormod(i[off + k], x.shape[k]) for k in range(ndim)]),
                      name="T_tile", index_names=names)


def _tile_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    reps = list(call.attrs["repeats"])
    return ctx.call_te(lambda x: te_tile(x, reps), call.args[0], primfunc_name_hint="tile")


#: the entries of this module, listed in :data:`relax_ref.ops.manipulate.OPS`
BROADCAST_TO = manipulation_op(
    "broadcast_to", (arg("x"), arg("shape", "shape")), _broadcast_to_infer, _broadcast_to_ref,
    _broadcast_to_legalize, "``R.broadcast_to(x, shape)``: numpy broadcasting (OP.broadcast_to.C1).")
COLLAPSE_SUM_LIKE = manipulation_op(
    "collapse_sum_like", (arg("data"), arg("collapse_target")), _collapse_like_infer, _collapse_like_ref,
    _collapse_legalize, "``R.collapse_sum_like(data, collapse_target)``: sum to the target's shape "
                        "(OP.collapse_sum_like.C1).")
COLLAPSE_SUM_TO = manipulation_op(
    "collapse_sum_to", (arg("data"), arg("shape", "shape")), _collapse_to_infer, _collapse_to_ref,
    _collapse_legalize, "``R.collapse_sum_to(data, shape)``: sum broadcast dims away (OP.collapse_sum_to.C1).")
REPEAT = manipulation_op(
    "repeat", (arg("data"), attr("repeats", "int"), attr("axis", "optional_int", None)), _repeat_infer,
    _repeat_ref, _repeat_legalize, "``R.repeat(data, repeats, axis=None)``: numpy.repeat (OP.repeat.C1).")
TILE = manipulation_op(
    "tile", (arg("data"), attr("repeats", "ints")), _tile_infer, _tile_ref, _tile_legalize,
    "``R.tile(data, repeats)``: numpy.tile (OP.tile.C1).")

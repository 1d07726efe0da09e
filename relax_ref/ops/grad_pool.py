"""The pooling gradients ``grad.max_pool2d_backward`` and ``grad.avg_pool2d_backward`` (spec pages
``spec/ops/grad.{max,avg}_pool2d_backward.md``), part of the gradient family (:mod:`.grad`).

Both are the vector-Jacobian products of the forward pools ``nn.max_pool2d`` / ``nn.avg_pool2d`` with
the same attributes (windows, padding and counts of OP.NN.POOL.SEM.1-3; ``tests/ops/test_grad.py``
checks them against ``jax.vjp`` of the forward operators as the JAX executor compiles them):

* each output position ``o`` and kernel position ``k`` (row-major ``(kh, kw)``) give a contribution
  ``c[o, k]``: for the max pool ``output_grad[o]`` when ``k`` is the first kernel position whose value
  equals the window's maximum (padding holds the lowest value of the dtype), else 0; for the average
  pool ``output_grad[o] / count[o]`` in the dtype (truncating division for integers);
* the gradient of a data position is the sum, in row-major kernel order, of the contributions of the
  windows that read it (``h + pad_top - kh * dilation_h = oh * stride_h``); a contribution that
  falls on padding is dropped.

The formula is written once over an array namespace (:func:`pool_grad_canonical`), evaluated by the
reference with numpy and by the JAX executor with ``jax.numpy``; the legalization builds the same
sums in TensorIR (:func:`te_pool_grad`).
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import StructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .args import OpArgs
from .layouts import parse_layout
from .nn import legalizable, te_pad
from .nn_pool import pool_counts, pool_plan, te_pool, te_window_count
from .opdef import OpDef, arg, attr

_ATTR_ORDER = ("pool_size", "strides", "dilation", "padding", "ceil_mode", "count_include_pad", "layout",
               "out_layout")


def _kind(call_or_name: Any) -> str:
    name = call_or_name if isinstance(call_or_name, str) else common.op_name(call_or_name)
    return "max" if "max_pool" in name else "avg"


def _complete(attrs, span):
    """As ``nn.max_pool2d``: an integer or one-element size is repeated, a 2-value padding is
    symmetric, ``out_layout`` defaults to ``layout``."""
    attrs["padding"] = nn_common.complete_padding(attrs["padding"], 2, "R.grad.pool2d_backward", span)
    for key in ("pool_size", "strides", "dilation"):
        attrs[key] = nn_common.repeat_to(attrs[key], 2, key, "R.grad.pool2d_backward", span, allow_one=True)
    if attrs.get("out_layout") is None:
        attrs["out_layout"] = attrs["layout"]
    return attrs


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _infer(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.grad.max_pool2d_backward.C1-C2 (and avg): two tensors, the pool's attributes; ``data``'s
    struct info."""
    g, x = common.tensor_args(call, 2, ctx, ("output_grad", "data"))
    a = call.attrs
    kernel = nn_common.require_attr_len(call, "pool_size", 2, ctx)
    strides = nn_common.require_attr_len(call, "strides", 2, ctx)
    padding = nn_common.require_attr_len(call, "padding", 4, ctx)
    dilation = nn_common.require_attr_len(call, "dilation", 2, ctx)
    if any(v <= 0 for v in kernel + strides + dilation) or any(v < 0 for v in padding):
        raise common.error(call, "pool_size, strides and dilation must be positive and padding not negative, got "
                                 f"{list(kernel)}, {list(strides)}, {list(dilation)}, {list(padding)}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], "NCHW", "data", ctx)
    operm = nn_common.layout_conversion(call, a["out_layout"], "NCHW", "output", ctx)
    nn_common.check_ndim(call, x, perm, a["layout"], ctx)
    nn_common.check_ndim(call, g, operm, a["out_layout"], ctx)
    if g.dtype != "void" and x.dtype != "void" and g.dtype != x.dtype:
        raise common.error(call, f"output_grad ({g.dtype}) and data ({x.dtype}) must have the same dtype", ctx)
    return x


# ---------------------------------------------------------------------------------------------------
# Run-time check
# ---------------------------------------------------------------------------------------------------


def _attrs(attrs) -> Tuple[Tuple[int, ...], ...]:
    return tuple(tuple(int(v) for v in attrs[n]) for n in ("pool_size", "strides", "padding", "dilation"))


def check_pool_grad(args: OpArgs) -> None:
    """OP.grad.max_pool2d_backward.C3 (and avg): ``output_grad`` has the shape of the forward pool's
    result (OP.nn.max_pool2d.C3), windows that fit, no integer average over an empty window."""
    op = args.op_name
    perm = nn_common.layout_conversion(args.call, args.attrs["layout"], "NCHW", "data")
    operm = nn_common.layout_conversion(args.call, args.attrs["out_layout"], "NCHW", "output")
    nn_common.check_layout_arg(args, 1, perm, "data")
    nn_common.check_layout_arg(args, 0, operm, "output_grad")
    d = nn_common.forward_shape(args.shape(1), perm)
    k, s, p, dl = _attrs(args.attrs)
    try:
        _, outs = pool_plan(op, d[2:], k, s, p, dl, bool(args.attrs["ceil_mode"]))
    except OpRuntimeError as e:
        raise e.with_span(args.span)
    # the shape of output_grad before the window counts, whose plan is as long as the pool's result
    # (a padding of 2**32 made one of 16 GiB where output_grad has 2 rows)
    want = nn_common.backward_shape(list(d[:2]) + list(outs), operm)
    got = args.shape(0)
    rule = f"OP.grad.{_kind(op)}_pool2d_backward.C3"
    for a, b in zip(got, want):
        args.fail_if(a != b, lambda: OpRuntimeError(
            f"{op}: output_grad of shape {args.size_text(got)} is not the shape of the pool's result "
            f"{args.size_text(want)} ({rule})"))
    if _kind(op) == "avg":
        try:
            pool_counts(op, d[2:], outs, k, s, p, dl, bool(args.attrs["count_include_pad"]),
                        not _dt.is_float(args.dtype(1)))
        except OpRuntimeError as e:
            raise e.with_span(args.span)


# ---------------------------------------------------------------------------------------------------
# The formula, over an array namespace
# ---------------------------------------------------------------------------------------------------


def _first_max(xp, x, kernel, strides, pads, dilation, outs):
    """Per output position the row-major index of the first kernel position holding the window's
    maximum (``kh * kw`` when none equals it, as for NaN)."""
    fill = _dt.min_value(_dt.from_numpy(np.dtype(x.dtype)))
    xpad = xp.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads], constant_values=fill)
    wins = []
    for kh in range(kernel[0]):
        for kw in range(kernel[1]):
            h0, w0 = kh * dilation[0], kw * dilation[1]
            wins.append(xpad[:, :, h0:h0 + (outs[0] - 1) * strides[0] + 1:strides[0],
                             w0:w0 + (outs[1] - 1) * strides[1] + 1:strides[1]])
    acc = xp.full(wins[0].shape, fill, dtype=x.dtype)
    for v in wins:
        acc = xp.where(acc > v, acc, v)
    first = xp.full(wins[0].shape, len(wins), dtype=np.int64)
    for k in reversed(range(len(wins))):
        first = xp.where(wins[k] == acc, k, first)
    return first


def _truncdiv(xp, a, count):
    q = xp.abs(a.astype(np.int64)) // count
    return xp.where(a < 0, -q, q).astype(a.dtype)


def pool_grad_canonical(xp, kind: str, g, x, kernel, strides, padding, dilation, ceil_mode: bool,
                        count_include_pad: bool, op: str = "relax.grad.pool2d_backward"):
    """The gradient in the canonical layout: ``g`` ``(N, C, OH, OW)``, ``x`` ``(N, C, H, W)``."""
    spatial = tuple(int(v) for v in x.shape[2:])
    pads, outs = pool_plan(op, spatial, kernel, strides, padding, dilation, ceil_mode)
    if kind == "max":
        first = _first_max(xp, x, kernel, strides, pads, dilation, outs) if g.size else None
    else:
        integer = np.issubdtype(np.dtype(x.dtype), np.integer)
        count = pool_counts(op, spatial, outs, kernel, strides, padding, dilation, count_include_pad, integer)
        if integer:
            share = _truncdiv(xp, g, count)
        else:
            share = (g / xp.asarray(count, dtype=g.dtype)).astype(g.dtype)
    out = xp.zeros(x.shape, dtype=x.dtype)
    if g.size == 0 or x.size == 0:
        return out
    rows = []
    for i in range(2):
        pos = np.arange(spatial[i], dtype=np.int64)
        rows.append([])
        for r in range(kernel[i]):
            num = pos + padding[i] - r * dilation[i]
            ok = (num >= 0) & (num % strides[i] == 0) & (num // strides[i] < outs[i])
            rows[i].append((np.clip(num // strides[i], 0, outs[i] - 1), ok))
    for kh in range(kernel[0]):
        for kw in range(kernel[1]):
            (oh, okh), (ow, okw) = rows[0][kh], rows[1][kw]
            if kind == "max":
                c = xp.where(first == kh * kernel[1] + kw, g, xp.zeros((), g.dtype))
            else:
                c = share
            c = xp.take(xp.take(c, oh, axis=2), ow, axis=3)
            out = xp.where((okh[:, None] & okw[None, :]), out + c, out).astype(x.dtype)
    return out


def _reference(args, attrs, call, ctx):
    g, x = args
    perm = nn_common.layout_conversion(call, attrs["layout"], "NCHW", "data")
    operm = nn_common.layout_conversion(call, attrs["out_layout"], "NCHW", "output")
    k, s, p, d = _attrs(attrs)
    with np.errstate(all="ignore"):
        y = pool_grad_canonical(np, _kind(call), nn_common.to_canonical(g, operm), nn_common.to_canonical(x, perm),
                                k, s, p, d, bool(attrs["ceil_mode"]), bool(attrs["count_include_pad"]),
                                common.op_name(call))
    return np.ascontiguousarray(nn_common.from_canonical(y, perm))


# ---------------------------------------------------------------------------------------------------
# Legalization
# ---------------------------------------------------------------------------------------------------


def te_pool_grad(g: te.Tensor, x: te.Tensor, kind: str, kernel, strides, padding, dilation, ceil_mode: bool,
                 count_include_pad: bool, layout: str) -> te.Tensor:
    """The gradient as sums over the kernel positions (row-major), ``g`` and ``x`` in ``layout``."""
    lay = parse_layout(layout)
    axes = [lay.index_of(c) for c in "HW"]
    nd = x.ndim
    names = [f"ax{i}" for i in range(nd)]
    kk = kernel[0] * kernel[1]
    if kind == "max":
        mx = te_pool(x, g.shape, "max", kernel, strides, padding, dilation, ceil_mode, False, layout)
        before = [nn_common.i64(0)] * nd
        after = [nn_common.i64(0)] * nd
        for i, ax in enumerate(axes):
            before[ax] = nn_common.i64(padding[i])
            after[ax] = nn_common.i64(padding[i + 2] + (strides[i] - 1 if ceil_mode else 0))
        temp = te_pad(x, before, after, te_ops.min_value(x.dtype), name="pad_temp", index_names=names)
        rk = [te.reduce_axis(nn_common.i64(kernel[i]), f"rk{i}") for i in range(2)]

        def first(*o):
            idx = list(o)
            for i, ax in enumerate(axes):
                idx[ax] = te_ops.add(te_ops.mul(o[ax], nn_common.i64(strides[i])),
                                     te_ops.mul(rk[i].var, nn_common.i64(dilation[i])))
            pos = te_ops.add(te_ops.mul(rk[0].var, nn_common.i64(kernel[1])), rk[1].var)
            return te.min(te_ops.select(te_ops.eq(temp(*idx), mx(*o)), pos, nn_common.i64(kk)), axis=rk)

        arg = te.compute(g.shape, first, name="pool_grad_first_max", index_names=names)
    rv = [te.reduce_axis(nn_common.i64(kernel[i]), f"rv{i}") for i in range(2)]

    def body(*idx):
        o = list(idx)
        conds = []
        for i, ax in enumerate(axes):
            num = te_ops.sub(te_ops.add(idx[ax], nn_common.i64(padding[i])),
                             te_ops.mul(rv[i].var, nn_common.i64(dilation[i])))
            o[ax] = te_ops.floordiv(num, nn_common.i64(strides[i]))
            conds += [te_ops.ge(num, nn_common.i64(0)),
                      te_ops.eq(te_ops.floormod(num, nn_common.i64(strides[i])), nn_common.i64(0)),
                      te_ops.lt(o[ax], g.shape[ax])]
        ok = conds[0]
        for c in conds[1:]:
            ok = te_ops.logical_and(ok, c)
        zero = te_ops.const(0, x.dtype)
        if kind == "max":
            pos = te_ops.add(te_ops.mul(rv[0].var, nn_common.i64(kernel[1])), rv[1].var)
            val = te_ops.select(te_ops.eq(arg(*o), pos), g(*o), zero)
        else:
            num = te_window_count(x, o, axes, kernel, strides, padding, dilation, count_include_pad)
            if _dt.is_float(x.dtype):
                val = te_ops.div(g(*o), te_ops.cast(x.dtype, num))
            else:
                val = te_ops.cast(x.dtype, te_ops.truncdiv(te_ops.cast("int64", g(*o)), num))
        return te.sum(te_ops.if_then_else(ok, val, zero), axis=rv)

    return te.compute(x.shape, body, name="T_pool_grad", index_names=names)


def _legalize(call: rx.Call, ctx: Any):
    if not legalizable(call):
        return None
    a = call.attrs
    layout = a["layout"]
    lay = parse_layout(layout)
    if a["out_layout"] != layout or any(lay.factor(c) is not None for c in "HW"):
        return None
    k, s, p, d = _attrs(a)
    kind = _kind(call)
    ceil_mode, cip = bool(a["ceil_mode"]), bool(a["count_include_pad"])
    if kind == "avg" and _topi_avg(call, k, s, p, d, ceil_mode, cip):
        axes = [lay.index_of(c) for c in "HW"]
        return ctx.call_te(lambda g, x: te_topi_avg_pool_grad(g, x, k, s, p, ceil_mode, cip, axes), *call.args,
                           primfunc_name_hint="avg_pool2d_backward")
    return ctx.call_te(lambda g, x: te_pool_grad(g, x, kind, k, s, p, d, ceil_mode, cip, layout), *call.args,
                       primfunc_name_hint=f"{kind}_pool2d_backward")


def _topi_avg(call, kernel, strides, padding, dilation, ceil_mode: bool, count_include_pad: bool) -> bool:
    """TOPI's average-pool gradient applies (OP.grad.avg_pool2d_backward.KERNEL.1): a float dtype (its
    integer division would widen the result), no dilation (TOPI has none), and not ``count_include_pad``
    with ``ceil_mode`` (TOPI divides every window by ``kh * kw``, also those past the explicit padding)."""
    if not _dt.is_float(call.struct_info.dtype) or any(v != 1 for v in dilation):
        return False
    if count_include_pad and ceil_mode:
        return False
    return True


def _make(kind: str) -> OpDef:
    name = f"grad.{kind}_pool2d_backward"
    params = (arg("output_grad"), arg("data"), attr("pool_size", "ints", (1, 1)), attr("strides", "ints", (1, 1)),
              attr("padding", "ints", (0, 0, 0, 0)), attr("dilation", "ints", (1, 1)),
              attr("ceil_mode", "bool", False), attr("count_include_pad", "bool", False),
              attr("layout", "str", "NCHW"), attr("out_layout", "optional_str", None))
    d = OpDef(name=f"relax.{name}", script=f"R.{name}", params=params, infer=_infer, check=check_pool_grad,
              reference=_reference, legalize=_legalize, category="gradient",
              print_call=nn_common.print_in_order(_ATTR_ORDER),
              doc=f"``R.{name}(output_grad, data, pool_size, strides, padding, dilation, ceil_mode, "
                  f"count_include_pad, layout, out_layout)``: the gradient of ``nn.{kind}_pool2d`` "
                  f"(OP.{name}.C1-C4).")
    return nn_common.with_constructor(d, _complete)


#: the pooling gradients (read by :mod:`.grad`)
POOL_OPS: List[OpDef] = [_make("max"), _make("avg")]


def te_topi_avg_pool_grad(g: te.Tensor, x: te.Tensor, kernel, strides, padding, ceil_mode: bool,
                          count_include_pad: bool, axes: Sequence[int]) -> te.Tensor:
    """TOPI's ``pool_grad`` of the average pool (OP.grad.avg_pool2d_backward.KERNEL.1): per data
    position the sum over the ``ceil(k / s)`` output positions whose window may cover it, counting
    down from ``(h + pad_top) / s``."""
    (kh, kw), (sh, sw) = kernel, strides
    pt, pl, pb, pr = padding
    if ceil_mode:
        pb, pr = pb + sh - 1, pr + sw - 1
    i32 = lambda v: P.IntImm(v, "int32")  # noqa: E731
    height, width = x.shape[axes[0]], x.shape[axes[1]]
    out_h = g.shape[axes[0]]
    out_w = g.shape[axes[1]]
    wh = te.reduce_axis(nn_common.i64((kh + sh - 1) // sh), "wh")
    ww = te.reduce_axis(nn_common.i64((kw + sw - 1) // sw), "ww")
    whv, wwv = wh.var, ww.var

    def body(*inds):
        pad_h = te_ops.add(inds[axes[0]], i32(pt))
        pad_w = te_ops.add(inds[axes[1]], i32(pl))
        o = list(inds)
        o[axes[0]] = te_ops.sub(te_ops.div(pad_h, i32(sh)), whv)
        o[axes[1]] = te_ops.sub(te_ops.div(pad_w, i32(sw)), wwv)
        low_h = te_ops.select(te_ops.lt(pad_h, i32(kh)), P.IntImm(0, pad_h.dtype),
                              te_ops.add(te_ops.div(te_ops.sub(pad_h, i32(kh)), i32(sh)), i32(1)))
        low_w = te_ops.select(te_ops.lt(pad_w, i32(kw)), P.IntImm(0, pad_w.dtype),
                              te_ops.add(te_ops.div(te_ops.sub(pad_w, i32(kw)), i32(sw)), i32(1)))
        if count_include_pad:
            factor = te_ops.mul(i32(kh), i32(kw))
        else:
            hs = te_ops.sub(te_ops.mul(o[axes[0]], i32(sh)), i32(pt))
            ws = te_ops.sub(te_ops.mul(o[axes[1]], i32(sw)), i32(pl))
            he = te_ops.min_(te_ops.add(hs, i32(kh)), height)
            we = te_ops.min_(te_ops.add(ws, i32(kw)), width)
            hs = te_ops.max_(hs, P.IntImm(0, hs.dtype))
            ws = te_ops.max_(ws, P.IntImm(0, ws.dtype))
            factor = te_ops.max_(te_ops.mul(te_ops.sub(he, hs), te_ops.sub(we, ws)), P.IntImm(1, he.dtype))
        # TOPI's (a and b) and (c and d), as TVM's simplifier leaves it: ((a and b) and c) and d
        ok = te_ops.logical_and(te_ops.logical_and(
            te_ops.logical_and(te_ops.ge(o[axes[0]], low_h), te_ops.lt(o[axes[0]], out_h)),
            te_ops.ge(o[axes[1]], low_w)), te_ops.lt(o[axes[1]], out_w))
        return te.sum(te_ops.if_then_else(ok, te_ops.div(g(*o), factor), te_ops.const(0, g.dtype)), axis=[wh, ww])

    return te.compute(x.shape, body, name="T_pool_grad", index_names=[f"ax{i}" for i in range(x.ndim)])


__all__ = ["POOL_OPS", "pool_grad_canonical", "te_pool_grad", "te_topi_avg_pool_grad"]

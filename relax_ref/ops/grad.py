"""Gradient operators: the markers ``grad.no_grad``, ``grad.start_checkpoint``,
``grad.end_checkpoint`` and the backward operators ``grad.take_backward`` and
``grad.nll_loss_backward`` (spec pages ``spec/ops/grad.*.md``); the pooling gradients are defined in
:mod:`.grad_pool`.

The markers are the identity on values (their argument itself); they only guide the Gradient pass.
The backward operators are the vector-Jacobian products of ``take`` and ``nn.nll_loss`` with respect
to their data argument (``tests/ops/test_grad.py`` checks them against ``jax.vjp`` of the forward
operators as the JAX executor compiles them):

* ``take_backward(g, x, indices, axis)``: zeros shaped like ``x``, then ``g`` added at ``indices``
  along ``axis`` (along the flattened ``x`` when ``axis`` is absent), repeated indices accumulating
  (TVM 0.27's legalization: a serial loop over the indices);
* ``nll_loss_backward(g, predictions, targets, weights=None, reduction, ignore_index)``: at each
  target position the target class receives ``-w[t] * g'`` (0 where ``t == ignore_index``), with
  ``g' = g`` for ``none``, ``g`` broadcast for ``sum`` and ``g / sum(w[t] over the kept targets)``
  for ``mean``; every other class receives 0.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.struct_info import StructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .args import OpArgs
from .nn_loss import REDUCTIONS
from .grad_pool import POOL_OPS
from .opdef import OpDef, arg, attr
from .statistical import known_shapes

# ---------------------------------------------------------------------------------------------------
# Markers
# ---------------------------------------------------------------------------------------------------


def _infer_no_grad(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.grad.no_grad.C1: one argument; its struct info."""
    common.check_num_args(call, 1, ctx)
    return common.arg_sinfo(call, 0, ctx)


def _infer_checkpoint(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.grad.start_checkpoint.C1 / OP.grad.end_checkpoint.C1: one argument, a variable; its struct
    info."""
    common.check_num_args(call, 1, ctx)
    if not isinstance(call.args[0], rx.Var):
        raise common.error(call, "the argument must be a variable", ctx)
    return common.arg_sinfo(call, 0, ctx)


def _identity(args, attrs, call, ctx):
    return args[0]


def _legalize_identity(call: rx.Call, ctx: Any) -> rx.Expr:
    return call.args[0]


# ---------------------------------------------------------------------------------------------------
# take_backward
# ---------------------------------------------------------------------------------------------------


def _infer_take_backward(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.grad.take_backward.C1-C2: three tensors, ``output_grad`` of ``x``'s dtype; the result has
    ``x``'s struct info."""
    g, x, idx = common.tensor_args(call, 3, ctx, ("output_grad", "x", "indices"))
    if "void" not in (g.dtype, x.dtype) and g.dtype != x.dtype:
        raise common.error(call, f"output_grad has dtype {g.dtype}, but x has dtype {x.dtype}: the gradient "
                                 "accumulates in x's dtype", ctx)
    if idx.ndim not in (-1, 1):
        raise common.error(call, f"indices must be 1-D, but it has rank {idx.ndim}", ctx)
    if idx.dtype != "void" and not _dt.is_integer(idx.dtype):
        raise common.error(call, f"indices must be integers, but they have dtype {idx.dtype}", ctx)
    axis = call.attrs.get("axis")
    if axis is not None and x.ndim != -1 and not -x.ndim <= axis < x.ndim:
        raise common.error(call, f"axis {axis} is out of range for a tensor of rank {x.ndim}", ctx)
    return x


def _take_layout(args: OpArgs):
    axis = args.attrs.get("axis")
    xs = args.shape(1)
    if axis is None:
        n = 1
        for d in xs:
            n = n * d
        return None, n
    return axis % len(xs), xs[axis % len(xs)]


def check_take_backward(args: OpArgs) -> None:
    """OP.grad.take_backward.C3: the gradient has the shape of ``take``'s result and every index lies
    in ``[0, n)`` (``n`` the extent of ``axis``, or the size of ``x``)."""
    op = args.op_name
    axis, n = _take_layout(args)
    xs, gs, m = args.shape(1), args.shape(0), args.shape(2)[0]
    want = (m,) if axis is None else tuple(xs[:axis]) + (m,) + tuple(xs[axis + 1:])
    if len(gs) != len(want):
        raise args.error(OpRuntimeError, f"{op}: output_grad of shape {args.size_text(gs)} is not the shape of take's "
                                         f"result {args.size_text(want)} (OP.grad.take_backward.C3)")
    for a, b in zip(gs, want):
        args.fail_if(a != b, lambda: OpRuntimeError(
            f"{op}: output_grad is not shaped as take's result (OP.grad.take_backward.C3)"))
    idx = args.data(2)
    args.fail_if(args.xp.logical_or(idx < 0, idx >= n), lambda: OpRuntimeError(
        f"{op}: an index is outside [0, n) (OP.grad.take_backward.C3)"), region=args.shape(2))


def _ref_take_backward(args, attrs, call, ctx):
    g, x, idx = args
    axis = attrs.get("axis")
    out = np.zeros(x.shape if axis is not None else (x.size,), x.dtype)
    ax = 0 if axis is None else axis % x.ndim
    moved = np.moveaxis(out, ax, 0)
    gm = np.moveaxis(g.reshape(-1) if axis is None else g, ax, 0)
    with np.errstate(all="ignore"):
        for l, i in enumerate(idx.astype(np.int64)):
            moved[i] = moved[i] + gm[l]          # in order: repeated indices accumulate left to right
    return out.reshape(x.shape)


def _legalize_take_backward(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    if not known_shapes(call):
        return None
    axis = call.attrs.get("axis")
    x_s = call.args[1].struct_info
    ax = None if axis is None else axis % x_s.ndim

    def fte(g: te.Tensor, x: te.Tensor, idx: te.Tensor) -> te.Tensor:
        n = idx.shape[0]

        def body(*i):
            k = te.reduce_axis(n, "l")
            if ax is None:
                flat = te_ops.const(0, "int64")
                for d, j in zip(x.shape, i):
                    flat = te_ops.add(te_ops.mul(flat, d), j)
                hit = te_ops.eq(te_ops.cast("int64", idx(k)), flat)
                val = g(k)
            else:
                hit = te_ops.eq(te_ops.cast("int64", idx(k)), i[ax])
                val = g(*(i[:ax] + (k,) + i[ax + 1:]))
            return te.sum(te_ops.select(hit, val, te_ops.const(0, x.dtype)), axis=[k])
        return te.compute(x.shape, body, name="T_take_backward")

    return ctx.call_te(fte, *call.args, primfunc_name_hint="take_backward")


# ---------------------------------------------------------------------------------------------------
# nll_loss_backward
# ---------------------------------------------------------------------------------------------------


def _infer_nll_backward(call: rx.Call, ctx: Any) -> StructInfo:
    """OP.grad.nll_loss_backward.C1-C2, C4: 3 or 4 tensors, a known reduction, ``C`` weights where the
    sizes are known; ``predictions``' struct info."""
    if len(call.args) not in (3, 4):
        raise common.error(call, "the operator takes 3 or 4 arguments", ctx)
    ts = [common.tensor_arg(call, i, ctx) for i in range(len(call.args))]
    if call.attrs.get("reduction", "mean") not in REDUCTIONS:
        raise common.error(call, f"reduction must be one of {', '.join(REDUCTIONS)}", ctx)
    if len(ts) == 4:
        pv, wv = nn_common.shape_expr_values(ts[1]), nn_common.shape_expr_values(ts[3])
        c = None if not pv else pv[0] if len(pv) == 1 else pv[1]
        if c is not None and wv is not None and len(wv) == 1 and nn_common.provably_unequal(ctx, c, wv[0]):
            raise common.error(call, f"{wv[0]} weights for {c} classes "
                                     "(OP.grad.nll_loss_backward.C4)", ctx)
    return ts[1]


def check_nll_backward(args: OpArgs) -> None:
    """OP.grad.nll_loss_backward.C3: the shapes of nll_loss (predictions ``(C,)`` with a 0-d target, or
    ``(N, C, ...)`` with targets ``(N, ...)``), a float gradient shaped as nll_loss's result, and every
    target in ``[0, C)`` or equal to ``ignore_index``; OP.grad.nll_loss_backward.C4: ``C`` weights."""
    op = args.op_name
    ps, ts, gs = args.shape(1), args.shape(2), args.shape(0)
    red = args.attrs.get("reduction", "mean")
    want_t = () if len(ps) == 1 else (ps[0],) + tuple(ps[2:])
    want_g = () if red != "none" else want_t
    bad = len(ps) < 1 or len(ts) != len(want_t) or len(gs) != len(want_g)
    if not bad and len(args) == 4:
        bad = args.ndim(3) != 1
    if bad:
        raise args.error(OpRuntimeError, f"{op}: shapes {args.size_text(gs)}, {args.size_text(ps)}, "
                                         f"{args.size_text(ts)} are not those of nll_loss (OP.grad.nll_loss_backward.C3)")
    for a, b in list(zip(ts, want_t)) + list(zip(gs, want_g)):
        args.fail_if(a != b, lambda: OpRuntimeError(f"{op}: shapes do not match (OP.grad.nll_loss_backward.C3)"))
    c = ps[0] if len(ps) == 1 else ps[1]
    if len(args) == 4:
        args.fail_if(args.shape(3)[0] != c, lambda: OpRuntimeError(
            f"{op}: {args.size_text(args.shape(3))} weights for {args.size_text((c,))} classes "
            "(OP.grad.nll_loss_backward.C4)"))
    t = args.data(2)
    ign = int(args.attrs.get("ignore_index", -100))
    xp = args.xp
    args.fail_if(xp.logical_and(t != ign, xp.logical_or(t < 0, t >= c)), lambda: OpRuntimeError(
        f"{op}: a target is outside [0, C) (OP.grad.nll_loss_backward.C3)"), region=ts)


def _ref_nll_backward(args, attrs, call, ctx):
    g, p, t = args[:3]
    dt = p.dtype
    c = p.shape[0] if p.ndim == 1 else p.shape[1]
    if p.size == 0:
        return np.zeros(p.shape, dt)       # no sample, or no class (and every target ignored)
    w = args[3] if len(args) == 4 else np.ones((c,), dt)
    ign = int(attrs.get("ignore_index", -100))
    red = attrs.get("reduction", "mean")
    t = t.astype(np.int64)
    keep = t != ign
    tc = np.where(keep, t, 0)
    wt = np.where(keep, w[tc], np.zeros((), dt)).astype(dt)
    with np.errstate(all="ignore"):
        if red == "mean":
            gg = (np.broadcast_to(g, t.shape) / wt.sum(dtype=dt)).astype(dt)
        else:
            gg = np.broadcast_to(g, t.shape).astype(dt)
        val = (-wt * gg).astype(dt)
    out = np.zeros(p.shape, dt)
    if p.ndim == 1:
        out[tc[()]] = val[()] if keep[()] else 0
        return out
    onehot = np.arange(c).reshape((1, c) + (1,) * (p.ndim - 2)) == tc[:, None]
    return np.where(onehot & keep[:, None], val[:, None], np.zeros((), dt)).astype(dt)


def _legalize_nll_backward(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    if not known_shapes(call):
        return None
    red = call.attrs.get("reduction", "mean")
    ign = int(call.attrs.get("ignore_index", -100))

    def fte(g: te.Tensor, p: te.Tensor, t: te.Tensor, w: Optional[te.Tensor] = None) -> te.Tensor:
        dt = p.dtype

        def wt(*j):
            tj = te_ops.cast("int64", t(*j))
            keep = te_ops.ne(tj, te_ops.const(ign, "int64"))
            safe = te_ops.select(keep, tj, te_ops.const(0, "int64"))
            wv = te_ops.const(1, dt) if w is None else w(safe)
            return keep, tj, te_ops.select(keep, wv, te_ops.const(0, dt))

        total = None
        if red == "mean":
            ks = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(t.shape)]
            total = te.compute((), lambda: te.sum(wt(*ks)[2], axis=ks) if ks else wt()[2], name="T_weight_sum")

        def body(*i):
            j = (i[0],) + i[2:] if p.ndim > 1 else ()
            cls = i[1] if p.ndim > 1 else i[0]
            keep, tj, wv = wt(*j)
            gv = g() if red != "none" else g(*j)
            if total is not None:
                gv = te_ops.div(gv, total())
            hit = te_ops.logical_and(keep, te_ops.eq(tj, cls))
            return te_ops.select(hit, te_ops.neg(te_ops.mul(wv, gv)), te_ops.const(0, dt))
        return te.compute(p.shape, body, name="pred_grad")

    return ctx.call_te(fte, *call.args, primfunc_name_hint="nll_loss_backward")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [
    OpDef(name="relax.grad.no_grad", script="R.grad.no_grad", params=(arg("input"),), infer=_infer_no_grad,
          reference=_identity, legalize=_legalize_identity, category="gradient",
          doc="``R.grad.no_grad(input)``: ``input`` (a marker for the Gradient pass, OP.grad.no_grad.C1)."),
    OpDef(name="relax.grad.start_checkpoint", script="R.grad.start_checkpoint", params=(arg("input"),),
          infer=_infer_checkpoint, reference=_identity, legalize=_legalize_identity, category="gradient",
          doc="``R.grad.start_checkpoint(input)``: ``input`` (OP.grad.start_checkpoint.C1)."),
    OpDef(name="relax.grad.end_checkpoint", script="R.grad.end_checkpoint", params=(arg("input"),),
          infer=_infer_checkpoint, reference=_identity, legalize=_legalize_identity, category="gradient",
          doc="``R.grad.end_checkpoint(input)``: ``input`` (OP.grad.end_checkpoint.C1)."),
    OpDef(name="relax.grad.take_backward", script="R.grad.take_backward",
          params=(arg("output_grad"), arg("x"), arg("indices"), attr("axis", "optional_int", None)),
          infer=_infer_take_backward, check=check_take_backward, reference=_ref_take_backward,
          legalize=_legalize_take_backward, category="gradient",
          doc="``R.grad.take_backward(output_grad, x, indices, axis=None)``: the gradient of ``take`` "
              "(OP.grad.take_backward.C1-C3)."),
    OpDef(name="relax.grad.nll_loss_backward", script="R.grad.nll_loss_backward",
          params=(arg("output_grad"), arg("predictions"), arg("targets"), arg("weights", "optional_expr", None),
                  attr("reduction", "str", "mean"), attr("ignore_index", "int", -100)),
          infer=_infer_nll_backward, check=check_nll_backward, reference=_ref_nll_backward,
          legalize=_legalize_nll_backward, category="gradient",
          doc="``R.grad.nll_loss_backward(output_grad, predictions, targets, weights=None, reduction='mean', "
              "ignore_index=-100)``: the gradient of ``nn.nll_loss`` (OP.grad.nll_loss_backward.C1-C3)."),
] + POOL_OPS

__all__ = ["OPS"]

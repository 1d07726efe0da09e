"""Losses: ``nn.cross_entropy_with_logits`` and ``nn.nll_loss`` (spec pages
``spec/ops/nn.cross_entropy_with_logits.md`` and ``spec/ops/nn.nll_loss.md``).

Semantics (TVM 0.25's legalization and ``topi.nn.nll_loss``):

* ``cross_entropy_with_logits(x, y) = -sum(x * y) / x.shape[0]`` for rank > 1, ``-sum(x * y)`` for
  rank <= 1 (integer division truncates).
* ``nll_loss``: per target position ``out = t != ignore_index ? -p[n, t, ...] * w[t] : 0`` and
  ``wt = t != ignore_index ? w[t] : 0`` (``w`` defaults to ones); ``reduction`` ``none`` returns
  ``out``, ``sum`` its sum and ``mean`` ``sum(out) / sum(wt)`` (NaN when every target is ignored).
  For 1-d predictions (``(C,)`` with a scalar target) ``sum`` returns the single value. A target
  outside ``[0, C)`` that is not ``ignore_index`` is an ``op_runtime`` error (TVM reads out of
  bounds).
"""

from __future__ import annotations

from typing import List

import numpy as np

from ..errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .nn import legalizable
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .precision import float32_once

REDUCTIONS = ("none", "sum", "mean")


# ---------------------------------------------------------------------------------------------------
# cross_entropy_with_logits
# ---------------------------------------------------------------------------------------------------


def _ce_infer(call, ctx):
    """OP.nn.cross_entropy_with_logits.C1-C3: two tensors of equal rank whose dims are not provably
    different; a scalar result with the binary-arithmetic dtype."""
    x, y = common.tensor_args(call, 2, ctx, ("predictions", "labels"))
    dtype = common.binary_arith_dtype(call, x, y, ctx)
    vdev = common.binary_vdevice(call, x, y, ctx)
    if x.ndim != -1 and y.ndim != -1 and x.ndim != y.ndim:
        raise common.error(call,
                           "CrossEntropy requires predictions and labels to have the same ndim. However, the ndim "
                                 f"of predictions is {x.ndim} while the ndim of labels is {y.ndim}", ctx)
    xv, yv = nn_common.shape_expr_values(x), nn_common.shape_expr_values(y)
    if xv is not None and yv is not None:
        for i, (a, b) in enumerate(zip(xv, yv)):
            if nn_common.provably_unequal(ctx, a, b):
                raise common.error(call,
                                   "CrossEntropy requires the predictions and labels to have the same shape. However, "
                                         f"the shape of predictions at dim {i} is {a} while the shape of labels at "
                                         "this dim "
                                         f"is {b}", ctx)
    return TensorStructInfo(rx.ShapeExpr(()), dtype, vdevice=vdev)


@float32_once
def _ce_ref(args, attrs, call, ctx):
    x, y = args
    dt = nn_common.inferred_tensor_dtype(call, nn_common.dtype_of(x))
    x, y = nn_common.tir_cast(x, dt), nn_common.tir_cast(y, dt)
    if _dt.is_float(dt):
        f = nn_common.FloatOps(dt)
        s = f.sum(f.mul(x, y), axis=None)
        neg = -s
        if x.ndim > 1:
            return np.asarray(f.div(neg, f.const(float(x.shape[0]))))
        return np.asarray(neg)
    with np.errstate(all="ignore"):
        s = np.asarray(np.sum((x.astype(np.int64) * y.astype(np.int64)))).astype(x.dtype).astype(np.int64)
        neg = (-s).astype(x.dtype).astype(np.int64)
    if x.ndim > 1:
        n = x.shape[0]
        q = abs(int(neg)) // n
        return np.asarray(-q if neg < 0 else q).astype(x.dtype)
    return np.asarray(neg).astype(x.dtype)


def te_cross_entropy(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    prod = te.compute(x.shape, lambda *i: te_ops.mul(x(*i), y(*i)), name="T_multiply",
                      index_names=[f"ax{k}" for k in range(x.ndim)])
    ks = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(x.shape)]
    s = te.compute((), lambda: te.sum(prod(*ks), axis=ks) if ks else prod(), name="T_multiply_red")
    neg = te.compute((), lambda: te_ops.neg(s()), name="T_negative")
    if x.ndim > 1:
        n = x.shape[0]
        if _dt.is_float(x.dtype):
            return te.compute((), lambda: te_ops.div(neg(), te_ops.cast(x.dtype, n)), name="T_divide")
        return te.compute((), lambda: te_ops.truncdiv(neg(), te_ops.cast(x.dtype, n)), name="T_divide")
    return neg


def _ce_legalize(call, ctx):
    if not legalizable(call):
        return None
    if call.args[0].struct_info.dtype != call.args[1].struct_info.dtype or call.struct_info.dtype == "bool":
        return None
    return ctx.call_te(te_cross_entropy, call.args[0], call.args[1], primfunc_name_hint="cross_entropy_with_logits")


# ---------------------------------------------------------------------------------------------------
# nll_loss
# ---------------------------------------------------------------------------------------------------


def _nll_infer(call, ctx):
    """OP.nn.nll_loss.C1-C6 (TVM's ``InferStructInfoNLLLoss``)."""
    if len(call.args) not in (2, 3):
        raise common.error(call, "NLLLoss op should take 2 or 3 arguments", ctx)
    reduction = call.attrs.get("reduction", "mean")
    if reduction not in REDUCTIONS:
        raise common.error(call, "The argument reduction of NLLLoss should be one of the following values: none, mean, "
                                 f"sum. However, the given value is {reduction}", ctx)
    pred = common.tensor_arg(call, 0, ctx, "predictions")
    tgt = common.tensor_arg(call, 1, ctx, "targets")
    wgt = common.tensor_arg(call, 2, ctx, "weights") if len(call.args) == 3 else None
    if wgt is not None:
        dtype = common.binary_arith_dtype(call, pred, wgt, ctx)
        vdev = common.binary_vdevice(call, pred, wgt, ctx)
    else:
        dtype, vdev = pred.dtype, pred.vdevice
    if tgt.dtype != "void" and not (tgt.dtype.startswith("int") or tgt.dtype.startswith("uint")):
        raise common.error(call,
                           "NLLLoss expects the dtype of targets to be int/uint. However, the dtype of targets is "
                                 f"{tgt.dtype}", ctx)
    k = None
    if pred.ndim != -1:
        if pred.ndim < 1:
            raise common.error(call,
                               "NLLLoss expects the ndim of predictions >= 1. However, the ndim of predictions is "
                                     f"{pred.ndim}", ctx)
        k = 0 if pred.ndim <= 2 else pred.ndim - 2
    if tgt.ndim != -1:
        k_tgt = 0 if tgt.ndim <= 1 else tgt.ndim - 1
        if k is not None and k != k_tgt:
            raise common.error(call,
                               "NLLLoss expects number of dimensions K inferred from different arguments to be equal. "
                                     f"However, K from predictions is {k} while K from targets is {k_tgt}", ctx)
    if wgt is not None and wgt.ndim not in (-1, 1):
        raise common.error(call,
                           f"NLLLoss expects the ndim of weights == 1. However, the ndim of weights is {wgt.ndim}",
                           ctx)
    pv = nn_common.shape_expr_values(pred)
    n_dim = c_dim = None
    out_shape = []
    if pv is not None:
        if len(pv) == 1:
            c_dim = pv[0]
        else:
            n_dim, c_dim = pv[0], pv[1]
            out_shape = [pv[0]] + list(pv[2:])
    tv = nn_common.shape_expr_values(tgt)
    if tv is not None:
        if len(tv) == 0:
            if n_dim is not None:
                raise common.error(call,
                                   "Shape mismatch for NLLLoss. Predictions shape is (N, C, ...) while targets is a "
                                         "scalar", ctx)
        else:
            if n_dim is not None and nn_common.provably_unequal(ctx, n_dim, tv[0]):
                raise common.error(call,
                                   "NLLLoss expects minibatch size N inferred from different arguments to be equal. "
                                         f"However, N from predictions is {n_dim} while N from targets is {tv[0]}", ctx)
            if n_dim is None and c_dim is not None:
                raise common.error(call, "Shape mismatch for NLLLoss. Predictions shape is (C,) while targets is not a "
                                         "scalar", ctx)
            if len(tv) > 1 and pv is not None:
                for i in range(1, len(tv)):
                    if nn_common.provably_unequal(ctx, out_shape[i], tv[i]):
                        raise common.error(call, "Shape mismatch for NLLLoss. The prediction shape at this dim is "
                                                 f"{out_shape[i]} while the target shape at this dim is {tv[i]}", ctx)
    if wgt is not None:
        wv = nn_common.shape_expr_values(wgt)
        if wv is not None and c_dim is not None and nn_common.provably_unequal(ctx, c_dim, wv[0]):
            raise common.error(call,
                               "NLLLoss expects number of classes C inferred from different arguments to be equal. "
                                     f"However, C from predictions is {c_dim} while C from weights is {wv[0]}", ctx)
    if reduction == "none":
        if pv is not None:
            return TensorStructInfo(rx.ShapeExpr(tuple(out_shape)), dtype, vdevice=vdev)
        return TensorStructInfo(None, dtype, -1 if pred.ndim == -1 else pred.ndim - 1, vdev)
    return TensorStructInfo(rx.ShapeExpr(()), dtype, vdevice=vdev)


def nll_loss_np(call, pred, targets, weights, reduction: str, ignore_index: int) -> np.ndarray:
    dt = nn_common.dtype_of(pred)
    f = nn_common.FloatOps(dt)
    ncls = pred.shape[0] if pred.ndim == 1 else pred.shape[1]
    w = np.ones((ncls,), dtype=pred.dtype) if weights is None else nn_common.tir_cast(weights, dt)
    if ncls == 0:
        # no classes: every target is ignored (any other is the check's error, OP.nn.nll_loss.C7); one
        # zero class stands in so that nothing reads from an empty axis
        pred = np.zeros(pred.shape[:1] + (1,) + pred.shape[2:] if pred.ndim > 1 else (1,), pred.dtype)
        w = np.zeros((1,), pred.dtype)
    t = targets.astype(np.int64)
    valid = t != ignore_index
    tc = np.where(valid, t, 0)
    zero = f.const(0)
    if pred.ndim == 1:
        out = np.where(valid, f.mul(-pred[tc], w[tc]), zero)
        if reduction == "mean":
            return np.asarray(f.div(out, np.where(valid, w[tc], zero)))
        return np.asarray(out)
    p = np.take_along_axis(pred, np.expand_dims(tc, 1), axis=1)[:, 0]
    out = np.where(valid, f.mul(-p, w[tc]), zero).astype(pred.dtype)
    if reduction == "none":
        return out
    total = f.sum(out, axis=None)
    if reduction == "sum":
        return np.asarray(total)
    wsum = f.sum(np.where(valid, w[tc], zero), axis=None)
    return np.asarray(f.div(total, wsum))


@float32_once
def _nll_ref(args, attrs, call, ctx):
    pred, targets = args[:2]
    weights = args[2] if len(args) == 3 else None
    return nll_loss_np(call, pred, targets, weights, attrs.get("reduction", "mean"),
                       int(attrs.get("ignore_index", -100)))


def te_nll_loss(pred: te.Tensor, targets: te.Tensor, weights: te.Tensor, reduction: str,
                ignore_index: int) -> te.Tensor:
    """``topi.nn.nll_loss`` with ``if_then_else`` instead of ``Select`` (the ignored branch does not read
    the predictions at ``ignore_index``)."""
    zero = te_ops.const(0, pred.dtype)

    def cls(*i):
        return te_ops.cast("int64", targets(*i))

    def is_valid(c):
        return te_ops.ne(c, te_ops.const(ignore_index, "int64"))

    if pred.ndim == 1:
        t = te.compute((), lambda: te_ops.if_then_else(is_valid(cls()), te_ops.mul(te_ops.neg(pred(cls())),
                                                                                   weights(cls())), zero),
                       name="nll_loss")
        if reduction == "mean":
            wt = te.compute((), lambda: te_ops.if_then_else(is_valid(cls()), weights(cls()), zero), name="nll_loss")
            return te.compute((), lambda: te_ops.div(t(), wt()), name="T_divide")
        return t
    tshape = list(targets.shape)
    names = [f"ax{k}" for k in range(len(tshape))]

    def loss(*i):
        c = cls(*i)
        pidx = [i[0], c] + list(i[1:])
        return te_ops.if_then_else(is_valid(c), te_ops.mul(te_ops.neg(pred(*pidx)), weights(c)), zero)

    t = te.compute(tshape, loss, name="nll_loss", index_names=names)
    if reduction == "none":
        return t
    ks = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(tshape)]
    tsum = te.compute((), lambda: te.sum(t(*ks), axis=ks), name="nll_loss_red")
    if reduction == "sum":
        return tsum
    w = te.compute(tshape, lambda *i: te_ops.if_then_else(is_valid(cls(*i)), weights(cls(*i)), zero), name="nll_loss",
                   index_names=names)
    ks2 = [te.reduce_axis(d, f"k{i}") for i, d in enumerate(tshape)]
    wsum = te.compute((), lambda: te.sum(w(*ks2), axis=ks2), name="nll_loss_red")
    return te.compute((), lambda: te_ops.div(tsum(), wsum()), name="T_divide")


def _nll_legalize(call, ctx):
    if not legalizable(call):
        return None
    pred = call.args[0].struct_info
    if not _dt.is_float(pred.dtype) or (len(call.args) == 3 and call.args[2].struct_info.dtype != pred.dtype):
        return None
    reduction, ignore = call.attrs.get("reduction", "mean"), int(call.attrs.get("ignore_index", -100))
    if len(call.args) == 3:
        return ctx.call_te(lambda p, t, w: te_nll_loss(p, t, w, reduction, ignore), *call.args,
                           primfunc_name_hint="nll_loss")

    def without_weight(p, t):
        c = p.shape[1] if p.ndim > 1 else p.shape[0]
        w = te.compute((c,), lambda i: te_ops.const(1, p.dtype), name="T_full", index_names=["ax0"])
        return te_nll_loss(p, t, w, reduction, ignore)

    return ctx.call_te(without_weight, *call.args, primfunc_name_hint="nll_loss_without_weight")


# ---------------------------------------------------------------------------------------------------
# Run-time checks (OpDef.check, every evaluator)
# ---------------------------------------------------------------------------------------------------


def _check_ce(args: OpArgs) -> None:
    """OP.nn.cross_entropy_with_logits.C2-C3: predictions and labels of one shape; a TVM kernel for the
    dtype; an integer loss over a batch divides by its (non-zero) size."""
    op = args.op_name
    xs, ys = args.shape(0), args.shape(1)
    if xs != ys:
        raise args.error(OpRuntimeError, f"{op}: predictions {args.size_text(xs)} and labels {args.size_text(ys)} "
                                         "differ")
    dt = nn_common.inferred_tensor_dtype(args.call, args.dtype(0))
    if _dt.is_float(dt):
        return
    if dt == "bool":
        raise args.error(UnsupportedError, f"{op}: bool operands (TVM 0.25 has no kernel for them)")
    if len(xs) > 1:
        args.fail_if(xs[0] == 0, lambda: DivisionByZeroError(f"{op}: integer division by a zero batch size"))


def _check_nll(args: OpArgs) -> None:
    """OP.nn.nll_loss.C5-C7: float predictions; weights of one per class; every target a class or
    ``ignore_index``; targets shaped as the predictions without the class axis."""
    op = args.op_name
    dt = args.dtype(0)
    if not _dt.is_float(dt):
        raise args.error(UnsupportedError, f"{op}: predictions of dtype {dt} (only floats)")
    ps = args.shape(0)
    ncls = ps[0] if len(ps) == 1 else ps[1]
    ws = args.shape(2) if len(args) == 3 else (ncls,)
    if ws != (ncls,):
        raise args.error(OpRuntimeError, f"{op}: weights of shape {args.size_text(ws)} for {ncls} classes")
    ignore = int(args.attrs.get("ignore_index", -100))
    t = args.xp.asarray(args.data(1)).astype(np.int64)
    args.fail_if((t != ignore) & ((t < 0) | (t >= ncls)), lambda: OpRuntimeError(
        f"{op}: a target is outside [0, {ncls}) and is not ignore_index {ignore}"))
    ts = args.shape(1)
    if len(ps) == 1:
        if ts:
            raise args.error(OpRuntimeError, f"{op}: 1-d predictions need a scalar target")
    elif ts != (ps[0],) + tuple(ps[2:]):
        raise args.error(OpRuntimeError, f"{op}: targets of shape {args.size_text(ts)} for predictions of shape "
                                         f"{args.size_text(ps)}")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    OPS.append(OpDef(name="relax.nn.cross_entropy_with_logits", script="R.nn.cross_entropy_with_logits",
                   params=(arg("predictions"), arg("labels")), infer=_ce_infer, check=_check_ce, reference=_ce_ref,
                   legalize=_ce_legalize, category="nn",
                   doc="``R.nn.cross_entropy_with_logits(predictions, labels)``: -sum(x * y) / batch "
                       "(OP.nn.cross_entropy_with_logits.C1-C4)."))
    OPS.append(OpDef(name="relax.nn.nll_loss", script="R.nn.nll_loss",
                   params=(arg("predictions"), arg("targets"), arg("weights", "optional_expr", None),
                           attr("reduction", "str", "mean"), attr("ignore_index", "int", -100)),
                   infer=_nll_infer, check=_check_nll, reference=_nll_ref, legalize=_nll_legalize, category="nn",
                   doc="``R.nn.nll_loss(predictions, targets, weights=None, reduction='mean', ignore_index=-100)`` "
                       "(OP.nn.nll_loss.C1-C7)."))


_define_all()

__all__ = ["nll_loss_np", "te_nll_loss", "te_cross_entropy", "REDUCTIONS"]

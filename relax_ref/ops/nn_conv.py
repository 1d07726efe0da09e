"""Convolutions: ``nn.conv1d``, ``nn.conv2d``, ``nn.conv3d`` and ``nn.conv{1,2,3}d_transpose``
(spec pages ``spec/ops/nn.<op>.md``, shared rules OP.NN.CONV.*).

Inference follows TVM 0.25's ``InferStructInfoConv{1,2,3}d`` and ``...Transpose`` (shapes converted
to the canonical layouts ``NC<sp>``/``OI<sp>`` or ``IO<sp>``, checks, output dims simplified by the
analyzer). The reference semantics are vectorized numpy (one matrix product per kernel position):

* OP.NN.CONV.SEM.1 -- ``conv``: ``out[n, o, p] = sum_{c, k} xpad[n, g*Cg + c, p*s + k*d] * w[o, c, k]``
  with ``g = o // (O / groups)``, zero padding ``padding`` (begins then ends), operands converted to
  the output dtype first (TIR Cast); integers wrap, float sums are defined up to reassociation
  (OP.SEM.5); 16-bit floats accumulate in float32 and are rounded once.
* OP.NN.CONV.SEM.2 -- ``conv_transpose``: the adjoint scatter ``full[n, g*Og + o, i*s + k*d] +=
  x[n, g*Cg + c, i] * w[g*Cg + c, o, k]`` cropped to ``[pad_begin, pad_begin + out)``; the
  ``output_padding`` extra positions at the end receive only zero contributions.
* OP.NN.CONV.SEM.3 -- at run time the channel relations (``C == I * groups``, ``O % groups == 0``;
  ``C == I`` and ``C % groups == 0`` for transposes) and a non-negative output size are checked
  (``op_runtime``).

Legalization mirrors ``topi.nn.conv`` (``pad_temp`` + ``conv<k>d_<layout>``) and
``topi.nn.group_conv{1,2,3}d_transpose_nc*`` (``data_dilate``, ``data_pad``, ``kernel_transform``,
``compute``) under TVM's conditions: same input/output layout; in TVM 0.25's form no grouped
convolution with symbolic channels, and for transposes dilation 1 only (TVM 0.27's dilates the kernel
first, ``kernel_dilate``; PASS.RELEASE.1); for transposes the canonical layouts. Other calls stay
unlegalized, as in TVM; so does a call whose channel relations (OP.NN.CONV.SEM.3) cannot be proved
statically, since the kernels do not check them.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .te_simplify import simplify_compute
from .nn import legalizable, te_pad
from .args import OpArgs
from .opdef import OpDef, arg, attr

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _spec(op: str) -> Tuple[int, bool]:
    """(number of spatial dims, transposed) of ``relax.nn.conv<k>d[_transpose]``."""
    base = op.replace("relax.nn.", "")
    return int(base[4]), base.endswith("_transpose")


def _canonical(nsp: int, transpose: bool) -> Tuple[str, str]:
    sp = _SPATIAL[nsp]
    return "NC" + sp, ("IO" if transpose else "OI") + sp


# ---------------------------------------------------------------------------------------------------
# Construction (OP.NN.ATTR.1)
# ---------------------------------------------------------------------------------------------------


def _make_constructor(op: str):
    nsp, transpose = _spec(op)
    script = "R.nn." + op.replace("relax.nn.", "")

    def complete(attrs: Dict[str, Any], span):
        # conv1d does not repeat a single stride or dilation: TVM's constructor requires length 1
        attrs["padding"] = nn_common.complete_padding(attrs["padding"], nsp, script, span)
        for key in ("strides", "dilation") + (("output_padding",) if transpose else ()):
            attrs[key] = nn_common.repeat_to(attrs[key], nsp, key, script, span)
        if int(attrs["groups"]) <= 0:
            from ..errors import ParseError

            raise ParseError(f"{script}: the number of groups is expected to be positive; got {attrs['groups']}", span)
        if attrs.get("out_layout") is None:
            attrs["out_layout"] = attrs["data_layout"]
        if attrs.get("out_dtype") is None:
            attrs["out_dtype"] = "void"
        return attrs

    return complete


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _conv_infer(call, ctx):
    """OP.nn.conv2d.C1-C6 (and the 1-d/3-d/transposed analogues)."""
    nsp, transpose = _spec(common.op_name(call))
    data, weight = common.tensor_args(call, 2, ctx, ("data", "weight"))
    a = call.attrs
    dtgt, ktgt = _canonical(nsp, transpose)
    strides = nn_common.require_attr_len(call, "strides", nsp, ctx)
    padding = nn_common.require_attr_len(call, "padding", 2 * nsp, ctx)
    dilation = nn_common.require_attr_len(call, "dilation", nsp, ctx)
    opad = nn_common.require_attr_len(call, "output_padding", nsp, ctx) if transpose else (0,) * nsp
    groups = int(a["groups"])
    if groups <= 0:
        raise common.error(call, f"the number of groups must be positive, got {groups}", ctx)
    if any(v <= 0 for v in strides + dilation):
        raise common.error(call, f"strides and dilation must be positive, got {list(strides)}, {list(dilation)}", ctx)
    if any(v < 0 for v in opad):
        raise common.error(call, f"output_padding must not be negative, got {list(opad)}", ctx)
    dperm = nn_common.layout_conversion(call, a["data_layout"], dtgt, "data", ctx)
    kperm = nn_common.layout_conversion(call, a["kernel_layout"], ktgt, "kernel", ctx)
    operm = nn_common.layout_conversion(call, a["out_layout"], dtgt, "output", ctx)
    nn_common.check_ndim(call, data, dperm, a["data_layout"], ctx)
    nn_common.check_ndim(call, weight, kperm, a["kernel_layout"], ctx)
    out_dtype = a.get("out_dtype", "void") or "void"
    if out_dtype == "void":
        out_dtype = common.binary_arith_dtype(call, data, weight, ctx)
    vdev = common.binary_vdevice(call, data, weight, ctx)
    dvals, kvals = nn_common.shape_expr_values(data), nn_common.shape_expr_values(weight)
    if dvals is None or kvals is None:
        return TensorStructInfo(None, out_dtype, operm.ndim, vdev)
    nn_common.check_sub_axes(call, data, dperm, "data", ctx)
    nn_common.check_sub_axes(call, weight, kperm, "kernel", ctx)
    d = nn_common.forward_shape(dvals, dperm, ctx)
    k = nn_common.forward_shape(kvals, kperm, ctx)
    g = nn_common.i64(groups)
    if not transpose:
        if nn_common.provably_unequal(ctx, d[1], P.mul(k[1], g)):
            raise common.error(call,
                               "The channel size of the data should equal to the product of input channel size of "
                                     f"the weight and the number of groups. However, the data channel size is {d[1]} "
                                     "while "
                                     f"the weight input channel size and number of groups are {k[1]} and {groups}", ctx)
        if nn_common.can_prove(ctx, P.ne(P.floormod(k[0], g), nn_common.i64(0))):
            raise common.error(call,
                               "the operator expects the number of output channels to be divisible by the number of "
                                     f"groups. However, the number of output channels is {k[0]} while the number of "
                                     "groups "
                                     f"is {groups}", ctx)
    else:
        if nn_common.provably_unequal(ctx, d[1], k[0]):
            raise common.error(call,
                               "the operator expects the channel size of the data should equal to the input channel "
                                     f"size of the weight. However, the data channel size is {d[1]} while the weight "
                                     "input "
                                     f"channel size is {k[0]}", ctx)
        if nn_common.can_prove(ctx, P.ne(P.floormod(k[0], g), nn_common.i64(0))):
            raise common.error(call,
                               "the operator expects the number of input channels to be divisible by the number of "
                                     f"groups. However, the number of input channels is {k[0]} while the number of "
                                     f"groups is {groups}", ctx)
        if any(op >= s for op, s in zip(opad, strides)):
            raise common.error(call, f"the operator expects the output padding less than the strides, but the output "
                                     f"padding is {list(opad)} while the strides are {list(strides)}", ctx)
    out = [d[0], P.mul(k[1], g) if transpose else k[0]]
    for i in range(nsp):
        x_in, kk = d[2 + i], k[2 + i]
        pad = nn_common.i64(padding[i] + padding[i + nsp])
        if transpose:
            e = P.add(P.add(P.add(P.sub(P.mul(P.sub(x_in, nn_common.i64(1)), nn_common.i64(strides[i])), pad),
                                  P.mul(nn_common.i64(dilation[i]), P.sub(kk, nn_common.i64(1)))),
                                  nn_common.i64(opad[i])), nn_common.i64(1))
        else:
            num = P.sub(P.sub(P.add(x_in, pad), P.mul(nn_common.i64(dilation[i]), P.sub(kk, nn_common.i64(1)))),
                        nn_common.i64(1))
            e = P.add(P.floordiv(num, nn_common.i64(strides[i])), nn_common.i64(1))
        out.append(nn_common.simplify(ctx, e))
    if transpose:
        out[1] = nn_common.simplify(ctx, out[1])
    return TensorStructInfo(rx.ShapeExpr(tuple(nn_common.backward_shape(out, operm, ctx))), out_dtype, vdevice=vdev)


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


def _acc_dtype(out_dtype: str) -> np.dtype:
    if _dt.is_float(out_dtype):
        return np.dtype("float32") if nn_common.low_precision(out_dtype) else nn_common.np_dtype(out_dtype)
    return np.dtype("int64")


def _to_acc(x: np.ndarray, out_dtype: str) -> np.ndarray:
    """Operands converted to the output dtype (TIR Cast), then widened for accumulation."""
    v = nn_common.tir_cast(x, out_dtype) if nn_common.dtype_of(x) != out_dtype else x
    if out_dtype == "bool":
        return v.astype(np.int64)
    return v.astype(_acc_dtype(out_dtype))


def _finish(acc: np.ndarray, out_dtype: str) -> np.ndarray:
    if out_dtype == "bool":
        return acc != 0
    with np.errstate(all="ignore"):
        return acc.astype(nn_common.np_dtype(out_dtype))


def conv_out_sizes(op: str, xs: Sequence[int], ws: Sequence[int], strides, padding, dilation,
                   groups: int) -> List[int]:
    """OP.NN.CONV.SEM.1: the output spatial sizes of a convolution of data ``xs`` (N, C, *S) with a
    weight ``ws`` (O, C/groups, *K); OpRuntimeError when the channels and groups do not match or a
    window does not fit."""
    nsp = len(xs) - 2
    c, o, cg = xs[1], ws[0], ws[1]
    if cg * groups != c or o % groups != 0:
        raise OpRuntimeError(f"{op}: data with {c} channels, weight with {o} output and {cg} input channels and "
                             f"{groups} groups do not match")
    ksz = ws[2:]
    osz = []
    for i in range(nsp):
        pads = (padding[i], padding[i + nsp])
        num = xs[2 + i] + pads[0] + pads[1] - dilation[i] * (ksz[i] - 1) - 1
        if num < -strides[i]:
            raise OpRuntimeError(f"{op}: the window does not fit in spatial dim {i} (input {xs[2 + i]}, padding "
                                 f"{pads}, kernel {ksz[i]}, dilation {dilation[i]})")
        osz.append(num // strides[i] + 1)
    return osz


def conv_transpose_sizes(op: str, xs: Sequence[int], ws: Sequence[int], strides, padding, output_padding,
                         dilation, groups: int) -> Tuple[List[int], List[int]]:
    """OP.NN.CONV.SEM.2: ``(full, out)`` spatial sizes of a transposed convolution of data ``xs``
    (N, C, *S) with a weight ``ws`` (C, O/groups, *K) -- the scattered extent and the cropped output;
    OpRuntimeError when the channels and groups do not match or an output size or padding is negative."""
    nsp = len(xs) - 2
    c, ci = xs[1], ws[0]
    if ci != c or c % groups != 0:
        raise OpRuntimeError(f"{op}: data with {c} channels, weight with {ci} input channels and {groups} groups "
                             "do not match")
    ksz = ws[2:]
    full_len, out_len = [], []
    for i in range(nsp):
        span_i = (xs[2 + i] - 1) * strides[i] + dilation[i] * (ksz[i] - 1) + 1
        ol = span_i - padding[i] - padding[i + nsp] + output_padding[i]
        if ol < 0 or padding[i] < 0:
            raise OpRuntimeError(f"{op}: the output size {ol} of spatial dim {i} is negative or the padding "
                                 f"{padding[i]} is negative")
        out_len.append(ol)
        full_len.append(max(span_i + output_padding[i], padding[i] + ol, 0))
    return full_len, out_len


def _conv_params(attrs) -> Tuple[Tuple[int, ...], Tuple[int, ...], Tuple[int, ...], int]:
    strides, padding, dilation = (tuple(int(v) for v in attrs[k]) for k in ("strides", "padding", "dilation"))
    return strides, padding, dilation, int(attrs["groups"])


def _check_conv(args: OpArgs) -> None:
    """OP.NN.LAYOUT.1-2 at run time: layouts convertible to the canonical ones; data and weight of the
    layouts' ranks, sub-axes of their factors; channels, groups and windows that fit (:func:`conv_out_sizes`,
    :func:`conv_transpose_sizes`)."""
    op = args.op_name
    nsp, transpose = _spec(op)
    dtgt, ktgt = _canonical(nsp, transpose)
    dperm = nn_common.layout_conversion(args.call, args.attrs["data_layout"], dtgt, "data")
    kperm = nn_common.layout_conversion(args.call, args.attrs["kernel_layout"], ktgt, "kernel")
    nn_common.layout_conversion(args.call, args.attrs["out_layout"], dtgt, "output")
    nn_common.check_layout_arg(args, 0, dperm, "data")
    nn_common.check_layout_arg(args, 1, kperm, "weight")
    xs, ws = nn_common.forward_shape(args.shape(0), dperm), nn_common.forward_shape(args.shape(1), kperm)
    strides, padding, dilation, groups = _conv_params(args.attrs)
    try:
        if transpose:
            conv_transpose_sizes(op, xs, ws, strides, padding, tuple(int(v) for v in args.attrs["output_padding"]),
                                 dilation, groups)
        else:
            conv_out_sizes(op, xs, ws, strides, padding, dilation, groups)
    except OpRuntimeError as e:
        raise e.with_span(args.span)


def conv_np(call, x: np.ndarray, w: np.ndarray, strides, padding, dilation, groups: int, out_dtype: str) -> np.ndarray:
    """OP.NN.CONV.SEM.1 in the canonical layouts: ``x`` (N, C, *S), ``w`` (O, C/groups, *K)."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    ksz = w.shape[2:]
    pads = [(padding[i], padding[i + nsp]) for i in range(nsp)]
    osz = conv_out_sizes(common.op_name(call), x.shape, w.shape, strides, padding, dilation, groups)
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    xp = np.pad(xa, [(0, 0), (0, 0)] + [(max(p, 0), max(q, 0)) for p, q in pads])
    crop = tuple(slice(max(-p, 0), xp.shape[2 + i] - max(-q, 0)) for i, (p, q) in enumerate(pads))
    xp = xp[(slice(None), slice(None)) + crop]
    og = o // groups
    xg = xp.reshape((n, groups, cg) + xp.shape[2:])
    wg = wa.reshape((groups, og, cg) + tuple(ksz))
    acc = np.zeros((n, groups, og, int(np.prod(osz, dtype=np.int64))), dtype=xa.dtype)
    if acc.size and cg:
        for kk in itertools.product(*[range(k) for k in ksz]):
            sl = tuple(slice(kk[i] * dilation[i], kk[i] * dilation[i] + (osz[i] - 1) * strides[i] + 1, strides[i])
                       for i in range(nsp))
            patch = xg[(slice(None), slice(None), slice(None)) + sl].reshape(n, groups, cg, -1)
            wk = wg[(slice(None), slice(None), slice(None)) + kk]
            with np.errstate(all="ignore"):
                acc += np.matmul(wk[None], patch)
    return _finish(acc.reshape((n, o) + tuple(osz)), out_dtype)


def conv_transpose_np(call, x: np.ndarray, w: np.ndarray, strides, padding, output_padding, dilation, groups: int,
                      out_dtype: str) -> np.ndarray:
    """OP.NN.CONV.SEM.2 in the canonical layouts: ``x`` (N, C, *S), ``w`` (C, O/groups, *K)."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    ksz = w.shape[2:]
    cg = c // groups
    full_len, out_len = conv_transpose_sizes(common.op_name(call), x.shape, w.shape, strides, padding, output_padding,
                                             dilation, groups)
    xa, wa = _to_acc(x, out_dtype), _to_acc(w, out_dtype)
    # the spatial element count spelled out: ``-1`` cannot be inferred when the batch is empty
    xg = xa.reshape((n, groups, cg, int(np.prod(x.shape[2:], dtype=np.int64))))
    wg = wa.reshape((groups, cg, og) + tuple(ksz))
    full = np.zeros((n, groups, og) + tuple(full_len), dtype=xa.dtype)
    if x.size and w.size:
        for kk in itertools.product(*[range(k) for k in ksz]):
            wk = np.swapaxes(wg[(slice(None), slice(None), slice(None)) + kk], 1, 2)  # (G, Og, Cg)
            with np.errstate(all="ignore"):
                contrib = np.matmul(wk[None], xg).reshape((n, groups, og) + x.shape[2:])
            sl = tuple(slice(kk[i] * dilation[i], kk[i] * dilation[i] + (x.shape[2 + i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(nsp))
            with np.errstate(all="ignore"):
                full[(slice(None), slice(None), slice(None)) + sl] += contrib
    crop = tuple(slice(padding[i], padding[i] + out_len[i]) for i in range(nsp))
    out = full[(slice(None), slice(None), slice(None)) + crop]
    return _finish(np.ascontiguousarray(out).reshape((n, groups * og) + tuple(out_len)), out_dtype)


def _conv_ref(args, attrs, call, ctx):
    x, w = args
    nsp, transpose = _spec(common.op_name(call))
    dtgt, ktgt = _canonical(nsp, transpose)
    dperm = nn_common.layout_conversion(call, attrs["data_layout"], dtgt, "data")
    kperm = nn_common.layout_conversion(call, attrs["kernel_layout"], ktgt, "kernel")
    operm = nn_common.layout_conversion(call, attrs["out_layout"], dtgt, "output")
    out_dtype = nn_common.inferred_tensor_dtype(call, nn_common.dtype_of(x))
    xc, wc = nn_common.to_canonical(x, dperm), nn_common.to_canonical(w, kperm)
    strides, padding, dilation, groups = _conv_params(attrs)
    if transpose:
        opad = tuple(int(v) for v in attrs["output_padding"])
        y = conv_transpose_np(call, xc, wc, strides, padding, opad, dilation, groups, out_dtype)
    else:
        y = conv_np(call, xc, wc, strides, padding, dilation, groups, out_dtype)
    return np.ascontiguousarray(nn_common.from_canonical(y, operm))


# ---------------------------------------------------------------------------------------------------
# Legalization (TOPI)
# ---------------------------------------------------------------------------------------------------


def te_conv(x: te.Tensor, w: te.Tensor, out_shape: Sequence[Any], strides, padding, dilation, groups: int,
            data_layout: str, kernel_layout: str, out_dtype: str) -> te.Tensor:
    """``topi.nn.conv``: ``pad_temp`` then ``[group_]conv<k>d_<layout>`` summing over ``rc, r*``."""
    nsp = x.ndim - 2
    dtgt, ktgt = "NC" + _SPATIAL[nsp], "OI" + _SPATIAL[nsp]
    dperm = [data_layout.index(a) for a in dtgt]          # canonical i -> layout position
    kperm = [kernel_layout.index(a) for a in ktgt]
    dfrom = list(np.argsort(dperm))                       # layout position -> canonical i
    kfrom = list(np.argsort(kperm))
    dshape = [x.shape[p] for p in dperm]
    kshape = [w.shape[p] for p in kperm]
    in_c, num_filter = dshape[1], kshape[0]
    before = [nn_common.i64(0), nn_common.i64(0)] + [nn_common.i64(padding[i]) for i in range(nsp)]
    after = [nn_common.i64(0), nn_common.i64(0)] + [nn_common.i64(padding[i + nsp]) for i in range(nsp)]
    temp = te_pad(x, [before[i] for i in dfrom], [after[i] for i in dfrom], 0.0, name="pad_temp")
    cg = te_ops.floordiv(in_c, nn_common.i64(groups))
    rc = te.reduce_axis(cg, "rc")
    rs = [te.reduce_axis(kshape[2 + i], f"r{'yxz'[i]}") for i in range(nsp)]
    red_order = [rc] + rs
    red_from = [int(v) for v in dfrom[1:]]
    red_from = [v - 1 if v > dfrom[0] else v for v in red_from]
    red_axes = [red_order[i] for i in red_from]

    def body(*idx):
        canon = [idx[p] for p in dperm]
        nn_, ff = canon[0], canon[1]
        dims = canon[2:]
        if groups == 1:
            ch = rc.var
        else:
            ch = te_ops.add(te_ops.mul(te_ops.floordiv(ff, te_ops.floordiv(num_filter, nn_common.i64(groups))), cg),
                            rc.var)
        src = [nn_, ch] + [te_ops.add(te_ops.mul(dims[i], nn_common.i64(strides[i])),
                                      te_ops.mul(rs[i].var, nn_common.i64(dilation[i])))
                           for i in range(nsp)]
        xv = temp(*[src[i] for i in dfrom])
        kidx = [ff, rc.var] + [r.var for r in rs]
        wv = w(*[kidx[i] for i in kfrom])
        if xv.dtype != out_dtype:
            xv = te_ops.cast(out_dtype, xv)
        if wv.dtype != out_dtype:
            wv = te_ops.cast(out_dtype, wv)
        return te.sum(te_ops.mul(xv, wv), axis=red_axes)

    names = ["nn", "ff", "yy", "xx", "zz"][: nsp + 2]
    prefix = "group_" if groups > 1 else ""
    return te.compute(out_shape, body, name=f"{prefix}conv{nsp}d_{data_layout.lower()}",
                      index_names=[names[i] for i in dfrom])


def _te_dilate(x: te.Tensor, strides: Sequence[int], name: str = "data_dilate") -> te.Tensor:
    """TOPI ``dilate`` on the spatial dims (``data_dilate``, ``kernel_dilate``)."""
    nsp = x.ndim - 2
    full = [1, 1] + list(strides)
    out_shape = [x.shape[i] if full[i] == 1 else
                 simplify_compute(te_ops.add(te_ops.mul(te_ops.sub(x.shape[i], 1), nn_common.i64(full[i])), nn_common.i64(1)))  # TOPI's
                 for i in range(x.ndim)]

    def f(*i):
        conds, idx = [], []
        for d in range(x.ndim):
            if full[d] == 1:
                idx.append(i[d])
            else:
                idx.append(te_ops.floordiv(i[d], nn_common.i64(full[d])))
                conds.append(te_ops.eq(te_ops.floormod(i[d], nn_common.i64(full[d])), nn_common.i64(0)))
        if not conds:
            return x(*idx)
        c = conds[0]
        for more in conds[1:]:
            c = te_ops.logical_and(c, more)
        return te_ops.if_then_else(c, x(*idx), te_ops.const(0, x.dtype))

    return te.compute(out_shape, f, name=name, index_names=[f"i{k}" for k in range(x.ndim)])


def te_conv_transpose(x: te.Tensor, w: te.Tensor, out_shape: Sequence[Any], strides, padding, output_padding,
                      groups: int, out_dtype: str, dilation: Sequence[int] = ()) -> te.Tensor:
    """``topi.nn.group_conv<k>d_transpose_nc*``: dilate, pad by ``k - 1 - pad``, flip the kernel
    (``kernel_transform``) and convolve; a dilation other than 1 first dilates the kernel
    (``kernel_dilate``, TVM 0.27's legalization: the same sums with zero terms added)."""
    nsp = x.ndim - 2
    if any(d != 1 for d in dilation):
        w = _te_dilate(w, dilation, name="kernel_dilate")
    ksz = list(w.shape[2:])
    dil = _te_dilate(x, strides)
    before = [nn_common.i64(0), nn_common.i64(0)] + [te_ops.sub(te_ops.sub(ksz[i], 1),
                                                                nn_common.i64(padding[i])) for i in range(nsp)]
    after = [nn_common.i64(0),
             nn_common.i64(0)] + [te_ops.add(te_ops.sub(te_ops.sub(ksz[i], 1), nn_common.i64(padding[i + nsp])),
                                             nn_common.i64(output_padding[i]))
                                                    for i in range(nsp)]
    dpad = te_pad(dil, before, after, 0.0, name="data_pad")
    in_c, og = x.shape[1], w.shape[1]     # TOPI takes the input channels from the data

    def kt(o, i, *h):
        return w(*([i, o] + [te_ops.sub(te_ops.sub(ksz[d], 1), h[d]) for d in range(nsp)]))

    ktrans = te.compute([og, in_c] + ksz, kt, name="kernel_transform",
                        index_names=["o", "i"] + ["h", "w", "d"][:nsp] if nsp > 1 else ["o", "i", "w"])
    cg = te_ops.floordiv(in_c, nn_common.i64(groups))
    dc = te.reduce_axis(cg, "dc")
    ds = [te.reduce_axis(ksz[i], "d" + ("hwd"[i] if nsp > 1 else "w")) for i in range(nsp)]

    def body(b, c, *sp):
        if groups == 1:
            ch, ko = dc.var, c
        else:
            ch = te_ops.add(te_ops.mul(te_ops.floordiv(c, og), cg), dc.var)
            ko = te_ops.floormod(c, og)
        xv = dpad(*([b, ch] + [te_ops.add(sp[i], ds[i].var) for i in range(nsp)]))
        wv = ktrans(*([ko, ch] + [r.var for r in ds]))
        if xv.dtype != out_dtype:
            xv = te_ops.cast(out_dtype, xv)
        if wv.dtype != out_dtype:
            wv = te_ops.cast(out_dtype, wv)
        return te.sum(te_ops.mul(xv, wv), axis=[dc] + ds)

    return te.compute(out_shape, body, name="compute", index_names=["b", "c"] + (["h", "w", "d"][:nsp] if nsp > 1
                                                                                  else ["w"]))


def _channels_hold(ctx, data_s, w_s, a, transpose: bool, groups: int) -> bool:
    """OP.NN.CONV.SEM.3's channel relations, proved statically: the kernels do not check them, so a
    convolution whose channel counts are symbolic and not provably related keeps its call (and its
    run-time check) at every release (PASS.RELEASE.2)."""
    dl, kl = a["data_layout"], a["kernel_layout"]
    if "C" not in dl or "I" not in kl or "O" not in kl:
        return True     # packed layouts are not legalized (see below)
    c = data_s.shape.values[dl.index("C")]
    i = w_s.shape.values[kl.index("I")]
    o = w_s.shape.values[kl.index("O")]
    g = nn_common.i64(groups)
    an = ctx.analyzer
    if transpose:
        return an.can_prove_equal(c, i) and an.can_prove_equal(te_ops.floormod(c, g), nn_common.i64(0))
    return (an.can_prove_equal(c, te_ops.mul(i, g))
            and an.can_prove_equal(te_ops.floormod(o, g), nn_common.i64(0)))


def _conv_legalize(call, ctx):
    if not legalizable(call):
        return None
    nsp, transpose = _spec(common.op_name(call))
    a = call.attrs
    if a["out_layout"] != a["data_layout"]:
        return None
    if len(a["data_layout"]) != nsp + 2 or len(a["kernel_layout"]) != nsp + 2:
        return None  # packed layouts: TVM's TOPI convolutions take none (OP.NN.LAYOUT.4)
    groups = int(a["groups"])
    out_dtype = call.struct_info.dtype
    # TOPI computes the output shape itself: the inferred shape, not an annotation stamped on the call
    out_shape = list(_conv_infer(call, ctx).shape.values)
    strides, padding, dilation = (tuple(int(v) for v in a[k]) for k in ("strides", "padding", "dilation"))
    data_s, w_s = call.args[0].struct_info, call.args[1].struct_info
    if not _channels_hold(ctx, data_s, w_s, a, transpose, groups):
        return None
    if transpose:
        dtgt, ktgt = _canonical(nsp, True)
        if a["data_layout"] != dtgt or a["kernel_layout"] != ktgt:
            return None
        if any(d != 1 for d in dilation) and not ctx.release.legalize_dilated_conv_transpose:
            return None     # PASS.RELEASE.1: TVM 0.25 keeps a dilated transposed convolution
        opad = tuple(int(v) for v in a["output_padding"])
        return ctx.call_te(lambda x, w, s: te_conv_transpose(x, w, s, strides, padding, opad, groups, out_dtype,
                                                             dilation),
                           call.args[0], call.args[1], out_shape, primfunc_name_hint=f"conv{nsp}d_transpose")
    if groups != 1 and not ctx.release.legalize_symbolic_group_conv:
        dl, kl = a["data_layout"], a["kernel_layout"]
        ic = data_s.shape.values[dl.index("C")]
        oc = w_s.shape.values[kl.index("O")]
        if not isinstance(ic, P.IntImm) or not isinstance(oc, P.IntImm):
            return None     # PASS.RELEASE.1: TVM 0.25 keeps a grouped convolution of symbolic channels
    dl, kl = a["data_layout"], a["kernel_layout"]
    return ctx.call_te(lambda x, w, s: te_conv(x, w, s, strides, padding, dilation, groups, dl, kl, out_dtype),
                       call.args[0], call.args[1], out_shape, primfunc_name_hint=f"conv{nsp}d")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


def _make(nsp: int, transpose: bool) -> OpDef:
    name = f"conv{nsp}d" + ("_transpose" if transpose else "")
    dl, kl = _canonical(nsp, transpose)
    one = 1 if nsp == 1 else tuple([1] * nsp)
    zero = 0 if nsp == 1 else tuple([0] * nsp)
    params = [arg("data"), arg("weight"), attr("strides", "ints", one), attr("padding", "ints", zero)]
    if transpose:
        params.append(attr("output_padding", "ints", zero))
    params += [attr("dilation", "ints", one), attr("groups", "int", 1), attr("data_layout", "str", dl),
               attr("kernel_layout", "str", kl), attr("out_layout", "optional_str", None),
               attr("out_dtype", "dtype", None)]
    what = "transposed convolution" if transpose else "convolution"
    d = OpDef(name=f"relax.nn.{name}", script=f"R.nn.{name}", params=tuple(params), infer=_conv_infer,
              check=_check_conv, reference=_conv_ref, legalize=_conv_legalize, category="nn",
              doc=f"``R.nn.{name}(data, weight, ...)``: {nsp}-d {what} (OP.nn.{name}.C1-C6).")
    return nn_common.with_constructor(d, _make_constructor(d.name))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    for nsp in (1, 2, 3):
        for transpose in (False, True):
            OPS.append(_make(nsp, transpose))


_define_all()

__all__ = ["conv_np", "conv_transpose_np", "te_conv", "te_conv_transpose"]

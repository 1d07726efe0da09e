"""Pooling: ``nn.max_pool{1,2,3}d``, ``nn.avg_pool{1,2,3}d`` and ``nn.adaptive_avg_pool{1,2,3}d``
(spec pages ``spec/ops/nn.<op>.md``, shared rules OP.NN.POOL.*).

Inference follows TVM 0.25's ``InferStructInfoPool{1,2,3}D`` (including the ``ceil_mode`` fix of
apache/tvm#18641: a last window that would start in the end padding is dropped) and
``InferStructInfoAdaptiveAvgPool{1,2,3}D``. No dtype is checked.

Semantics (TOPI's ``pool_impl_nd`` and ``adaptive_pool_impl``), in the canonical ``NC<sp>`` layout:

* OP.NN.POOL.SEM.1 -- windows: output ``o`` of a spatial dim reads input positions ``o*s - pb + r*d``
  for ``r < k``; positions outside the input are padding (``ceil_mode`` adds ``s - 1`` positions of
  end padding so the division rounds up).
* OP.NN.POOL.SEM.2 -- ``max``: the padding value is the lowest finite value of the dtype; the window is
  folded in row-major order with TIR's ``acc > v ? acc : v`` from that value.
* OP.NN.POOL.SEM.3 -- ``avg``: the window sum (padding counts 0) accumulated sequentially in the
  dtype, divided by ``count`` converted to the dtype (truncating division for integers). With
  ``count_include_pad`` the count is the number of window positions inside the explicitly padded
  input (the ``ceil_mode`` extra padding excluded); otherwise the number inside the input, at least 1
  (TOPI's formulas with truncating division).
* OP.NN.POOL.SEM.4 -- adaptive average: output ``i`` of an input dim of size ``n`` pooled to ``m``
  averages ``[floor(i*n/m), ceil((i+1)*n/m))``; ``output_size=None`` keeps the input size.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import LimitExceededError, OpRuntimeError
from ..limits import fits_int64
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .layouts import parse_layout
from .nn import legalizable, te_pad
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .precision import float32_once

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _kind(op: str) -> Tuple[str, int]:
    """("max" | "avg" | "adaptive", number of spatial dims)."""
    base = op.replace("relax.nn.", "")
    nsp = int(base[-2])
    if base.startswith("adaptive"):
        return "adaptive", nsp
    return base[:3], nsp


# ---------------------------------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------------------------------


def _pool_constructor(op: str):
    _, nsp = _kind(op)
    script = "R.nn." + op.replace("relax.nn.", "")

    def complete(attrs: Dict[str, Any], span):
        attrs["padding"] = nn_common.complete_padding(attrs["padding"], nsp, script, span)
        for key in ("pool_size", "strides", "dilation"):
            attrs[key] = nn_common.repeat_to(attrs[key], nsp, key, script, span, allow_one=nsp > 1)
        if attrs.get("out_layout") is None:
            attrs["out_layout"] = attrs["layout"]
        return attrs

    return complete


def _adaptive_constructor(op: str):
    _, nsp = _kind(op)
    script = "R.nn." + op.replace("relax.nn.", "")

    def complete(attrs: Dict[str, Any], span):
        v = attrs.get("output_size")
        if v is not None:
            attrs["output_size"] = nn_common.repeat_to(v, nsp, "output_size", script, span, allow_one=nsp > 1)
        if attrs.get("out_layout") is None:
            attrs["out_layout"] = attrs["layout"]
        return attrs

    return complete


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def pool_arith_overflow(n: int, k: int, s: int, pb: int, pe: int, d: int, ceil_mode: bool):
    """The intermediate of OP.NN.POOL.C2's output-size arithmetic on an input extent ``n`` that lies
    outside int64 (RUNTIME.LIMIT.1: the arithmetic is int64's), or None when every one fits."""
    steps = [n + pb, n + pb + pe, d * (k - 1), n + pb + pe - d * (k - 1) - 1]
    if ceil_mode:
        steps.append(steps[-1] + s - 1)
    for v in steps:
        if not fits_int64(v):
            return v
    return None


def pool_out_dim(ctx, x_in: P.PrimExpr, k: int, s: int, pb: int, pe: int, d: int, ceil_mode: bool) -> P.PrimExpr:
    """OP.NN.POOL.C2: ``(in + pb + pe - d*(k-1) - 1 [+ s - 1]) // s + 1``, minus one in ceil mode when
    the last window would start in the end padding."""
    num = P.sub(P.sub(P.add(x_in, nn_common.i64(pb + pe)), nn_common.i64(d * (k - 1))), nn_common.i64(1))
    if ceil_mode:
        num = P.add(num, nn_common.i64(s - 1))
    raw = P.add(P.floordiv(num, nn_common.i64(s)), nn_common.i64(1))
    if not ceil_mode:
        return nn_common.simplify(ctx, raw)
    invalid = P.ge(P.mul(P.sub(raw, nn_common.i64(1)), nn_common.i64(s)), P.add(x_in, nn_common.i64(pb)))
    if nn_common.can_prove(ctx, invalid):
        return nn_common.simplify(ctx, P.sub(raw, nn_common.i64(1)))
    if nn_common.can_prove(ctx, P.logical_not(invalid)):
        return nn_common.simplify(ctx, raw)
    return nn_common.simplify(ctx, P.PrimCall("int64", "tir.if_then_else", (invalid, P.sub(raw, nn_common.i64(1)),
                                                                            raw)))


def _pool_infer(call, ctx):
    """OP.nn.max_pool2d.C1-C3 (and the other pools)."""
    _, nsp = _kind(common.op_name(call))
    x = common.tensor_args(call, 1, ctx)[0]
    a = call.attrs
    tgt = "NC" + _SPATIAL[nsp]
    kernel = nn_common.require_attr_len(call, "pool_size", nsp, ctx)
    strides = nn_common.require_attr_len(call, "strides", nsp, ctx)
    padding = nn_common.require_attr_len(call, "padding", 2 * nsp, ctx)
    dilation = nn_common.require_attr_len(call, "dilation", nsp, ctx)
    if any(v <= 0 for v in kernel + strides + dilation):
        raise common.error(call, "pool_size, strides and dilation must be positive, got "
                            f"{list(kernel)}, {list(strides)}, {list(dilation)}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], tgt, "data", ctx)
    operm = nn_common.layout_conversion(call, a["out_layout"], tgt, "output", ctx)
    nn_common.check_ndim(call, x, perm, a["layout"], ctx)
    vals = nn_common.shape_expr_values(x)
    if vals is None:
        return TensorStructInfo(None, x.dtype, operm.ndim, x.vdevice)
    nn_common.check_sub_axes(call, x, perm, "data", ctx)
    d = nn_common.forward_shape(vals, perm, ctx)
    out = [d[0], d[1]]
    for i in range(nsp):
        if isinstance(d[2 + i], P.IntImm):
            bad = pool_arith_overflow(int(d[2 + i].value), kernel[i], strides[i], padding[i], padding[i + nsp],
                                      dilation[i], bool(a["ceil_mode"]))
            if bad is not None:
                raise common.error(call, f"the output size of spatial dim {i} needs the intermediate {bad}: the size "
                                         "arithmetic overflows int64 (RUNTIME.LIMIT.1)", ctx)
        out.append(pool_out_dim(ctx, d[2 + i], kernel[i], strides[i], padding[i], padding[i + nsp], dilation[i],
                                bool(a["ceil_mode"])))
    return TensorStructInfo(rx.ShapeExpr(tuple(nn_common.backward_shape(out, operm, ctx))), x.dtype, vdevice=x.vdevice)


def _adaptive_infer(call, ctx):
    """OP.nn.adaptive_avg_pool2d.C1-C2 (and 1-d/3-d)."""
    _, nsp = _kind(common.op_name(call))
    x = common.tensor_args(call, 1, ctx)[0]
    a = call.attrs
    tgt = "NC" + _SPATIAL[nsp]
    size = a.get("output_size")
    if size is not None:
        size = nn_common.require_attr_len(call, "output_size", nsp, ctx)
        if any(v < 0 for v in size):
            raise common.error(call, f"output_size must not be negative, got {list(size)}", ctx)
    perm = nn_common.layout_conversion(call, a["layout"], tgt, "data", ctx)
    operm = nn_common.layout_conversion(call, a["out_layout"], tgt, "output", ctx)
    nn_common.check_ndim(call, x, perm, a["layout"], ctx)
    vals = nn_common.shape_expr_values(x)
    if vals is None:
        if x.shape is not None and a["out_layout"] == a["layout"] and size is None:
            return x
        return TensorStructInfo(None, x.dtype, operm.ndim, x.vdevice)
    nn_common.check_sub_axes(call, x, perm, "data", ctx)
    d = nn_common.forward_shape(vals, perm, ctx)
    if size is not None:
        d = d[:2] + [nn_common.i64(v) for v in size]
    return TensorStructInfo(rx.ShapeExpr(tuple(nn_common.backward_shape(d, operm, ctx))), x.dtype, vdevice=x.vdevice)


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


def _truncdiv(a: np.ndarray, b: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.int64)
    q = np.abs(a) // abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _out_len(n: int, k: int, s: int, pb: int, pe: int, d: int, ceil_mode: bool) -> int:
    num = n + pb + pe - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    raw = num // s + 1
    if ceil_mode and (raw - 1) * s >= n + pb:
        raw -= 1
    return raw


def _counts(n: int, o: int, k: int, s: int, pb: int, pe: int, d: int, include_pad: bool) -> np.ndarray:
    """OP.NN.POOL.SEM.3: TOPI's per-position element counts along one spatial dim."""
    start = np.arange(o, dtype=np.int64) * s - pb
    end = start + (k - 1) * d
    if include_pad:
        end = np.minimum(end, n + pe - 1)
        return _truncdiv(end - start, d) + 1
    jumps = np.maximum(_truncdiv(d - 1 - start, d), 0)
    end = np.minimum(end, n - 1)
    return _truncdiv(end - (start + d * jumps), d) + 1


def pool_plan(op: str, spatial: Sequence[int], kernel, strides, padding, dilation, ceil_mode: bool
              ) -> Tuple[List[Tuple[int, int]], List[int]]:
    """OP.NN.POOL.SEM.1: per spatial dim the (before, after) padding of the windowed input and the output
    size; OpRuntimeError when a window does not fit."""
    nsp = len(spatial)
    pads, outs = [], []
    for i, n in enumerate(spatial):
        pb, pe = padding[i], padding[i + nsp] + (strides[i] - 1 if ceil_mode else 0)
        bad = pool_arith_overflow(int(n), kernel[i], strides[i], padding[i], padding[i + nsp], dilation[i], ceil_mode)
        if bad is not None:
            raise LimitExceededError(f"{op}: the output size of spatial dim {i} (input {n}) needs the intermediate "
                                     f"{bad}: the size arithmetic overflows int64", limit="int64", value=bad)
        o = _out_len(n, kernel[i], strides[i], padding[i], padding[i + nsp], dilation[i], ceil_mode)
        if o < 0:
            raise OpRuntimeError(f"{op}: the window does not fit in spatial dim {i} (input {n})")
        pads.append((pb, pe))
        outs.append(o)
    return pads, outs


def pool_pad_widths(pads: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """``np.pad`` widths of the canonical (N, C, *S) input for :func:`pool_plan`'s ``pads`` (the
    positive part; a negative pad is cropped by :func:`pool_crop`)."""
    return [(0, 0), (0, 0)] + [(max(p, 0), max(q, 0)) for p, q in pads]


def pool_crop(pads: Sequence[Tuple[int, int]], padded_shape: Sequence[int]) -> tuple:
    """The index of the padded input with negative pads cut off (OP.NN.POOL.SEM.1)."""
    return (slice(None), slice(None)) + tuple(slice(max(-p, 0), padded_shape[2 + i] - max(-q, 0))
                                              for i, (p, q) in enumerate(pads))


def pool_windows(kernel, strides, dilation, outs: Sequence[int]) -> Iterator[tuple]:
    """For every kernel offset, the index of the (padded, cropped) input that the offset reads for all
    output positions at once: a strided slice per spatial dim (OP.NN.POOL.SEM.1-2)."""
    for kk in itertools.product(*[range(k) for k in kernel]):
        yield (slice(None), slice(None)) + tuple(
            slice(kk[i] * dilation[i], kk[i] * dilation[i] + (outs[i] - 1) * strides[i] + 1, strides[i])
            for i in range(len(outs)))


#: a padded input up to this many times the input's size (plus a constant) is built; past it the
#: windows are read tap by tap (:func:`pool_taps`), so that a huge stride or padding allocates nothing
#: beyond the result (RUNTIME.LIMIT.3)
PADDED_GROWTH = 4


def pool_padded_is_small(spatial: Sequence[int], pads: Sequence[Tuple[int, int]]) -> bool:
    """Whether the padded input of a pooling is of a size comparable to the input's."""
    n_in, n_pad = 1, 1
    for n, (p, q) in zip(spatial, pads):
        n_in *= int(n)
        n_pad *= int(n) + max(int(p), 0) + max(int(q), 0)
    return n_pad <= PADDED_GROWTH * n_in + 4096


def pool_taps(spatial: Sequence[int], outs: Sequence[int], kernel, strides, pads, dilation):
    """OP.NN.POOL.SEM.1 without a padded copy: for every kernel position ``kk``, per spatial dim the
    input index read by each output position (clipped into the input) and whether it lies inside the
    input; a tap outside it reads the fill value (padding, the overhang of ``ceil_mode``). Yields
    ``(indices, inside)``, two lists of int64 arrays, one per spatial dim."""
    for kk in itertools.product(*[range(k) for k in kernel]):
        idx, inside = [], []
        for i, n in enumerate(spatial):
            first = kk[i] * dilation[i] - pads[i][0]
            pos = [first + o * strides[i] for o in range(outs[i])]     # Python ints: no wrap-around
            inside.append(np.array([0 <= v < n for v in pos], dtype=bool))
            idx.append(np.array([min(max(v, 0), max(n - 1, 0)) for v in pos], dtype=np.int64))
        yield idx, inside


def pool_counts(op: str, spatial: Sequence[int], outs: Sequence[int], kernel, strides, padding, dilation,
                include_pad: bool, integer: bool) -> np.ndarray:
    """OP.NN.POOL.SEM.3: the element count of every window of an average pool (over the spatial dims);
    an integer average over an empty window is an OpRuntimeError."""
    nsp = len(spatial)
    count = np.ones((1,) * nsp, dtype=np.int64)
    for i in range(nsp):
        c = _counts(spatial[i], outs[i], kernel[i], strides[i], padding[i], padding[i + nsp], dilation[i],
                    include_pad)
        shape = [1] * nsp
        shape[i] = outs[i]
        count = count * c.reshape(shape)
    if not include_pad:
        count = np.maximum(count, 1)
    if integer and np.any(count == 0):
        raise OpRuntimeError(f"{op}: integer average over an empty window")
    return count


def adaptive_ranges(op: str, spatial: Sequence[int], out_size: Sequence[int], integer: bool
                    ) -> List[List[Tuple[int, int]]]:
    """OP.NN.POOL.SEM.4: per spatial dim the ``[start, end)`` of every output position's window;
    OpRuntimeError for a negative output size or an integer average over an empty window."""
    ranges = []
    for i, (n, m) in enumerate(zip(spatial, out_size)):
        if m < 0:
            raise OpRuntimeError(f"{op}: negative output size {m}")
        rs = []
        for o in range(m):
            start = (o * n) // m
            t = ((o + 1) * n) // m
            end = t if ((o + 1) * n) % m == 0 else t + 1
            rs.append((start, end))
        ranges.append(rs)
    if integer and all(out_size) and any(e == b for rs in ranges for b, e in rs):
        raise OpRuntimeError(f"{op}: integer average over an empty window")
    return ranges


def pool_attrs(attrs) -> Tuple[Tuple[int, ...], ...]:
    return tuple(tuple(int(v) for v in attrs[n]) for n in ("pool_size", "strides", "padding", "dilation"))


def _check_pool(args: OpArgs) -> None:
    """OP.NN.LAYOUT.1-2 at run time: layouts convertible to the canonical one; a tensor of the layout's
    rank, sub-axes of their factors; windows that fit (:func:`pool_plan`, :func:`adaptive_ranges`); no integer average
    over an empty window."""
    op = args.op_name
    kind, nsp = _kind(op)
    tgt = "NC" + _SPATIAL[nsp]
    perm = nn_common.layout_conversion(args.call, args.attrs["layout"], tgt, "data")
    nn_common.layout_conversion(args.call, args.attrs["out_layout"], tgt, "output")
    nn_common.check_layout_arg(args, 0, perm, "data")
    spatial = nn_common.forward_shape(args.shape(0), perm)[2:]
    integer = not _dt.is_float(args.dtype(0))
    try:
        if kind == "adaptive":
            size = args.attrs.get("output_size")
            adaptive_ranges(op, spatial, spatial if size is None else [int(v) for v in size], integer)
        else:
            k, s, p, d = pool_attrs(args.attrs)
            _, outs = pool_plan(op, spatial, k, s, p, d, bool(args.attrs["ceil_mode"]))
            if kind == "avg":
                pool_counts(op, spatial, outs, k, s, p, d, bool(args.attrs["count_include_pad"]), integer)
    except OpRuntimeError as e:
        raise e.with_span(args.span)


def pool_np(call, x: np.ndarray, kind: str, kernel, strides, padding, dilation, ceil_mode: bool,
            count_include_pad: bool) -> np.ndarray:
    """OP.NN.POOL.SEM.1-3 in the canonical layout (N, C, *S)."""
    dt = nn_common.dtype_of(x)
    pads, outs = pool_plan(common.op_name(call), x.shape[2:], kernel, strides, padding, dilation, ceil_mode)
    fill = _dt.min_value(dt) if kind == "max" else 0
    out_shape = x.shape[:2] + tuple(outs)
    if kind == "max":
        acc = np.full(out_shape, fill, dtype=x.dtype)
    else:
        acc = np.zeros(out_shape, dtype=x.dtype)
    f = nn_common.FloatOps(dt) if _dt.is_float(dt) else None
    if acc.size:
        for v in _pool_windows(x, pads, outs, kernel, strides, dilation, fill):
            if kind == "max":
                acc = np.where(acc > v, acc, v).astype(x.dtype)
            elif f is not None:
                acc = f.add(acc, v)
            else:
                with np.errstate(all="ignore"):
                    acc = (acc.astype(np.int64) + v.astype(np.int64)).astype(x.dtype) if dt != "bool" \
                        else (acc | v)
    if kind == "max":
        return acc
    count = pool_counts(common.op_name(call), x.shape[2:], outs, kernel, strides, padding, dilation, count_include_pad,
                        f is None)
    if f is not None:
        return f.div(acc, count.astype(nn_common.np_dtype(dt)))
    a64 = acc.astype(np.int64)
    q = np.abs(a64) // count
    return np.where(a64 < 0, -q, q).astype(x.dtype)


def _pool_windows(x: np.ndarray, pads, outs, kernel, strides, dilation, fill):
    """The input values each kernel position reads, one array of the result's shape per position:
    strided slices of the padded input, or taps (:func:`pool_taps`) when padding would be large."""
    if pool_padded_is_small(x.shape[2:], pads):
        xp = np.pad(x, pool_pad_widths(pads), constant_values=fill)
        xp = xp[pool_crop(pads, xp.shape)]
        for window in pool_windows(kernel, strides, dilation, outs):
            yield xp[window]
        return
    for idx, inside in pool_taps(x.shape[2:], outs, kernel, strides, pads, dilation):
        if 0 in x.shape[2:]:        # every tap of an empty input is outside it
            yield np.full(x.shape[:2] + tuple(outs), fill, dtype=x.dtype)
            continue
        v = x[(slice(None), slice(None)) + np.ix_(*idx)]
        yield np.where(outer_and(inside), v, np.asarray(fill, x.dtype))


def outer_and(masks):
    """The outer conjunction of per-dim boolean vectors: an array of their lengths' shape."""
    out = np.ones((1,) * len(masks), dtype=bool)
    for i, m in enumerate(masks):         # (np.ix_ would read boolean vectors as index lists)
        shape = [1] * len(masks)
        shape[i] = len(m)
        out = out & np.asarray(m, dtype=bool).reshape(shape)
    return out


def adaptive_windows(x, ranges, out_size: Sequence[int]):
    """For each output position ``pos`` of an adaptive pool of ``x`` (canonical layout, numpy or JAX)
    over the windows ``ranges`` (:func:`adaptive_ranges`): ``(pos, window, count)``, the window's
    elements flattened to ``(N, C, count)``."""
    nsp = x.ndim - 2
    for pos in itertools.product(*[range(m) for m in out_size]):
        win = tuple(slice(*ranges[i][pos[i]]) for i in range(nsp))
        block = x[(slice(None), slice(None)) + win]
        cnt = int(np.prod([ranges[i][pos[i]][1] - ranges[i][pos[i]][0] for i in range(nsp)], dtype=np.int64))
        # the window's element count spelled out: ``-1`` cannot be inferred when the batch is empty
        yield pos, block.reshape(x.shape[0], x.shape[1], int(np.prod(block.shape[2:], dtype=np.int64))), cnt


def adaptive_pool_np(call, x: np.ndarray, out_size: Sequence[int]) -> np.ndarray:
    """OP.NN.POOL.SEM.4 in the canonical layout."""
    dt = nn_common.dtype_of(x)
    ranges = adaptive_ranges(common.op_name(call), x.shape[2:], out_size, not _dt.is_float(dt))
    out = np.zeros(x.shape[:2] + tuple(out_size), dtype=x.dtype)
    f = nn_common.FloatOps(dt) if _dt.is_float(dt) else None
    for pos, flat, cnt in adaptive_windows(x, ranges, out_size):
        if f is not None:
            s = np.zeros(x.shape[:2], dtype=x.dtype)
            for j in range(flat.shape[-1]):
                s = f.add(s, flat[..., j])
            out[(slice(None), slice(None)) + pos] = f.div(s, f.const(float(cnt)))
        else:
            s = flat.astype(np.int64).sum(axis=-1).astype(x.dtype).astype(np.int64)
            q = np.abs(s) // cnt
            out[(slice(None), slice(None)) + pos] = np.where(s < 0, -q, q).astype(x.dtype)
    return out


def _pool_ref_in_dtype(args, attrs, call, ctx):
    x = args[0]
    kind, nsp = _kind(common.op_name(call))
    tgt = "NC" + _SPATIAL[nsp]
    perm = nn_common.layout_conversion(call, attrs["layout"], tgt, "data")
    operm = nn_common.layout_conversion(call, attrs["out_layout"], tgt, "output")
    xc = nn_common.to_canonical(x, perm)
    if kind == "adaptive":
        size = attrs.get("output_size")
        size = tuple(xc.shape[2:]) if size is None else tuple(int(v) for v in size)
        y = adaptive_pool_np(call, xc, size)
    else:
        k, s, p, d = pool_attrs(attrs)
        y = pool_np(call, xc, kind, k, s, p, d, bool(attrs["ceil_mode"]), bool(attrs["count_include_pad"]))
    return np.ascontiguousarray(nn_common.from_canonical(y, operm))


_pool_ref_float32 = float32_once(_pool_ref_in_dtype)


def _pool_ref(args, attrs, call, ctx):
    """Max pooling in the dtype (exact); average pooling on bfloat16 sums and divides in float32 and
    rounds once (OP.SEM.7)."""
    if _kind(common.op_name(call))[0] == "max":
        return _pool_ref_in_dtype(args, attrs, call, ctx)
    return _pool_ref_float32(args, attrs, call, ctx)


# ---------------------------------------------------------------------------------------------------
# Legalization (TOPI)
# ---------------------------------------------------------------------------------------------------


def _names(n: int) -> List[str]:
    return [f"ax{k}" for k in range(n)]


def _spatial_axes(layout: str, nsp: int) -> List[int]:
    """Tensor axes of the spatial dims of ``layout`` (packed layouts count a sub-axis as one axis)."""
    lay = parse_layout(layout)
    return [lay.index_of(c) for c in _SPATIAL[nsp]]


def _topi_layout(layout: str, nsp: int) -> bool:
    """TOPI's pools take a layout whose spatial axes are not split (``NCHW16c`` yes, ``NCH4hW`` no:
    TVM's LegalizeOps fails on those, OP.NN.LAYOUT.4)."""
    lay = parse_layout(layout)
    return all(lay.factor(c) is None for c in _SPATIAL[nsp])


def te_pool(x: te.Tensor, out_shape, kind: str, kernel, strides, padding, dilation, ceil_mode: bool,
            count_include_pad: bool, layout: str) -> te.Tensor:
    """TOPI ``pool_impl_nd``: ``pad_temp`` (when any padding), ``pool_max`` or ``pool_sum`` +
    ``pool_avg``."""
    nsp = len(kernel)
    axes = _spatial_axes(layout, nsp)
    nd = x.ndim
    before = [nn_common.i64(0)] * nd
    after = [nn_common.i64(0)] * nd
    offset = [strides[i] - 1 if ceil_mode else 0 for i in range(nsp)]
    do_pad = False
    for i, ax in enumerate(axes):
        before[ax] = nn_common.i64(padding[i])
        after[ax] = nn_common.i64(padding[i + nsp] + offset[i])
        do_pad = do_pad or padding[i] != 0 or padding[i + nsp] + offset[i] != 0
    fill = te_ops.min_value(x.dtype) if kind == "max" else te_ops.const(0, x.dtype)
    temp = te_pad(x, before, after, fill, name="pad_temp", index_names=_names(nd)) if do_pad else x
    rv = [te.reduce_axis(nn_common.i64(kernel[i]), f"rv{i}") for i in range(nsp)]

    def window(*o):
        idx = list(o)
        for i, ax in enumerate(axes):
            idx[ax] = te_ops.add(te_ops.mul(o[ax], nn_common.i64(strides[i])), te_ops.mul(rv[i].var,
                                                                                          nn_common.i64(dilation[i])))
        return temp(*idx)

    if kind == "max":
        return te.compute(out_shape, lambda *o: te.max(window(*o), axis=rv), name="pool_max",
                          attrs={"schedule_rule": "meta_schedule.pool_max"}, index_names=_names(nd))
    psum = te.compute(out_shape, lambda *o: te.sum(window(*o), axis=rv), name="pool_sum", index_names=_names(nd))

    def avg(*o):
        num = te_window_count(x, o, axes, kernel, strides, padding, dilation, count_include_pad)
        s = psum(*o)
        if _dt.is_float(x.dtype):
            return te_ops.div(s, te_ops.cast(x.dtype, num))
        return te_ops.cast(x.dtype, te_ops.truncdiv(te_ops.cast("int64", s), num))

    return te.compute(out_shape, avg, name="pool_avg", attrs={"schedule_rule": "meta_schedule.pool_avg"},
                      index_names=_names(nd))


def te_window_count(x: te.Tensor, o, axes, kernel, strides, padding, dilation, count_include_pad: bool):
    """OP.NN.POOL.SEM.3 as a TIR expression: the element count of the window of output position ``o``
    (``axes``: the tensor axes of the spatial dims)."""
    nsp = len(kernel)
    num = te_ops.const(1, "int64")
    for i, ax in enumerate(axes):
        d = nn_common.i64(dilation[i])
        start = te_ops.sub(te_ops.mul(o[ax], nn_common.i64(strides[i])), nn_common.i64(padding[i]))
        end = te_ops.add(start, nn_common.i64((kernel[i] - 1) * dilation[i]))
        if count_include_pad:
            end = te_ops.min_(end, te_ops.sub(te_ops.add(x.shape[ax], nn_common.i64(padding[i + nsp])),
                                              nn_common.i64(1)))
            cnt = te_ops.add(te_ops.truncdiv(te_ops.sub(end, start), d), nn_common.i64(1))
        else:
            jumps = te_ops.max_(te_ops.truncdiv(te_ops.sub(te_ops.sub(d, nn_common.i64(1)), start), d),
                                nn_common.i64(0))
            end = te_ops.min_(end, te_ops.sub(x.shape[ax], nn_common.i64(1)))
            cnt = te_ops.add(te_ops.truncdiv(te_ops.sub(end, te_ops.add(start, te_ops.mul(d, jumps))), d),
                             nn_common.i64(1))
        num = te_ops.mul(num, cnt)
    if not count_include_pad:
        num = te_ops.max_(num, nn_common.i64(1))
    return num


def _max_window(n: Any, m: Any) -> Any:
    """The largest adaptive window of ``n`` positions pooled to ``m`` (exact for constants, a bound
    ``n // m + 2`` otherwise)."""
    if isinstance(n, P.IntImm) and isinstance(m, P.IntImm):
        nv, mv = n.value, m.value
        best = 0
        for o in range(mv):
            t = ((o + 1) * nv) // mv
            end = t if ((o + 1) * nv) % mv == 0 else t + 1
            best = max(best, end - (o * nv) // mv)
        return nn_common.i64(best)
    return te_ops.add(te_ops.floordiv(n, m), nn_common.i64(2))


def te_adaptive_avg_pool(x: te.Tensor, out_shape, layout: str, nsp: int) -> te.Tensor:
    """TOPI ``adaptive_pool`` (avg): ``adaptive_pool_sum`` over each window and ``adaptive_pool_avg``.
    The window extents depend on the output position, which this TE builder expresses as a
    reduction over the largest window with a guard (``if_then_else``)."""
    axes = _spatial_axes(layout, nsp)
    nd = x.ndim
    uniform = _uniform_windows(x, out_shape, axes)
    if uniform is not None:
        return _te_adaptive_avg_pool_uniform(x, out_shape, axes, uniform)

    def bounds(o, i):
        ax = axes[i]
        n, m = x.shape[ax], out_shape[ax]
        start = te_ops.floordiv(te_ops.mul(o[ax], n), m)
        t = te_ops.floordiv(te_ops.mul(te_ops.add(o[ax], nn_common.i64(1)), n), m)
        end = te_ops.select(te_ops.eq(te_ops.floormod(te_ops.mul(te_ops.add(o[ax], nn_common.i64(1)), n), m),
                                      nn_common.i64(0)), t, te_ops.add(t, nn_common.i64(1)))
        return start, end

    rv = [te.reduce_axis(_max_window(x.shape[axes[i]], out_shape[axes[i]]), f"rv{i}") for i in range(nsp)]

    def body(*o):
        idx = list(o)
        conds = []
        for i, ax in enumerate(axes):
            start, end = bounds(o, i)
            idx[ax] = te_ops.add(start, rv[i].var)
            conds.append(te_ops.lt(idx[ax], end))
        c = conds[0]
        for more in conds[1:]:
            c = te_ops.logical_and(c, more)
        return te.sum(te_ops.if_then_else(c, x(*idx), te_ops.const(0, x.dtype)), axis=rv)

    psum = te.compute(out_shape, body, name="adaptive_pool_sum", index_names=_names(nd))

    def avg(*o):
        factor = te_ops.const(1, x.dtype)
        for i in range(nsp):
            start, end = bounds(o, i)
            factor = te_ops.mul(factor, te_ops.cast(x.dtype, te_ops.cast("int32", te_ops.sub(end, start))))
        return te_ops.div(psum(*o), factor)

    return te.compute(out_shape, avg, name="adaptive_pool_avg",
                      attrs={"schedule_rule": "meta_schedule.adaptive_pool_avg"}, index_names=_names(nd))


def _uniform_windows(x: te.Tensor, out_shape, axes) -> Optional[List[int]]:
    """The window extent of every spatial axis when each input extent is a multiple of its output
    extent (all windows alike), else None."""
    sizes = []
    for ax in axes:
        n, m = x.shape[ax], out_shape[ax]
        if not (isinstance(n, P.IntImm) and isinstance(m, P.IntImm)) or m.value <= 0 or n.value % m.value:
            return None
        sizes.append(n.value // m.value)
    return sizes


def _te_adaptive_avg_pool_uniform(x: te.Tensor, out_shape, axes, sizes: Sequence[int]) -> te.Tensor:
    """Adaptive average pooling with windows of one size (TOPI's kernel as TVM simplifies it): output
    ``o`` sums ``x[o * k + rv]`` over ``rv < k`` and divides by the constant window size (no division
    for windows of one element)."""
    nd = x.ndim
    rv = [te.reduce_axis(nn_common.i64(k), f"rv{i}") for i, k in enumerate(sizes)]

    def body(*o):
        idx = list(o)
        for i, ax in enumerate(axes):
            start = o[ax] if sizes[i] == 1 else te_ops.mul(o[ax], nn_common.i64(sizes[i]))
            idx[ax] = te_ops.add(start, rv[i].var)
        return te.sum(x(*idx), axis=rv)

    psum = te.compute(out_shape, body, name="adaptive_pool_sum", index_names=_names(nd))
    count = int(np.prod(sizes))

    def avg(*o):
        return psum(*o) if count == 1 else te_ops.div(psum(*o), te_ops.const(float(count), x.dtype))

    return te.compute(out_shape, avg, name="adaptive_pool_avg",
                      attrs={"schedule_rule": "meta_schedule.adaptive_pool_avg"}, index_names=_names(nd))


def _pool_legalize(call, ctx):
    if not legalizable(call):
        return None
    a = call.attrs
    if a.get("out_layout") != a["layout"]:
        return None
    kind, nsp = _kind(common.op_name(call))
    out_shape = list(call.struct_info.shape.values)
    layout = a["layout"]
    if not _topi_layout(layout, nsp):
        return None
    name = common.op_name(call).replace("relax.nn.", "")
    if kind == "adaptive":
        if not _dt.is_float(call.struct_info.dtype):
            return None
        return ctx.call_te(lambda x, s: te_adaptive_avg_pool(x, s, layout, nsp), call.args[0], out_shape,
                           primfunc_name_hint=name)
    k, s, p, d = (tuple(int(v) for v in a[n]) for n in ("pool_size", "strides", "padding", "dilation"))
    ceil_mode, cip = bool(a["ceil_mode"]), bool(a["count_include_pad"])
    return ctx.call_te(lambda x, sh: te_pool(x, sh, kind, k, s, p, d, ceil_mode, cip, layout), call.args[0],
                       out_shape, primfunc_name_hint=name)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


def _make_pool(kind: str, nsp: int) -> OpDef:
    name = f"{kind}_pool{nsp}d"
    ones = tuple([1] * nsp)
    cip_default = kind == "avg" and nsp != 2
    params = (arg("data"), attr("pool_size", "ints", ones), attr("strides", "ints", ones),
              attr("padding", "ints", tuple([0] * (2 if nsp == 1 else nsp))), attr("dilation", "ints", ones),
              attr("ceil_mode", "bool", False), attr("count_include_pad", "bool", cip_default),
              attr("layout", "str", "NC" + _SPATIAL[nsp]), attr("out_layout", "optional_str", None))
    d = OpDef(name=f"relax.nn.{name}", script=f"R.nn.{name}", params=params, infer=_pool_infer,
              check=_check_pool, reference=_pool_ref,
              legalize=_pool_legalize, category="nn",
              print_call=nn_common.print_in_order(("pool_size", "strides", "dilation", "padding", "ceil_mode",
                                                   "count_include_pad", "layout", "out_layout")),
              doc=f"``R.nn.{name}(data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, "
                  f"layout, out_layout)``: {nsp}-d {kind} pooling (OP.nn.{name}.C1-C3).")
    return nn_common.with_constructor(d, _pool_constructor(d.name))


def _make_adaptive(nsp: int) -> OpDef:
    name = f"adaptive_avg_pool{nsp}d"
    params = (arg("data"), attr("output_size", "optional_ints", None), attr("layout", "str", "NC" + _SPATIAL[nsp]),
              attr("out_layout", "optional_str", None))
    d = OpDef(name=f"relax.nn.{name}", script=f"R.nn.{name}", params=params, infer=_adaptive_infer,
              check=_check_pool, reference=_pool_ref, legalize=_pool_legalize, category="nn",
              doc=f"``R.nn.{name}(data, output_size=None, layout, out_layout)``: {nsp}-d adaptive average pooling "
                  f"(OP.nn.{name}.C1-C3).")
    return nn_common.with_constructor(d, _adaptive_constructor(d.name))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    for nsp in (1, 2, 3):
        OPS.append(_make_pool("max", nsp))
        OPS.append(_make_pool("avg", nsp))
        OPS.append(_make_adaptive(nsp))


_define_all()

__all__ = ["pool_np", "adaptive_pool_np", "te_pool", "te_window_count", "pool_plan", "pool_counts", "te_adaptive_avg_pool", "pool_out_dim"]

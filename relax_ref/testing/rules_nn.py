"""Generator rules for neural-network, linear-algebra and indexing operators (part of the table in
:mod:`relax_ref.testing.rules`; same conventions).

Spatial operators (``conv2d``, pooling) need static spatial dims because their output extents
(``H - k + 1``) are not of the form ``c * n``; the batch dim may be symbolic. Weights, ``gamma`` /
``beta`` and index tensors are constants drawn in safe ranges; index tensors stay in bounds.
"""

from __future__ import annotations

import math
from typing import List, Optional

from .domain import Range, TVal, const, max_numel, numel_factors
from .rule_kit import OpRule, Result, call, kind_of, one, partner, range_fits


def _norm(op: str) -> OpRule:
    """``layer_norm`` / ``rms_norm`` over the last axis (static, so gamma/beta are constants)."""
    def build(g, x: TVal) -> Optional[Result]:
        d = x.dims[-1]
        if not d.is_static:
            return None
        gamma, rg = g.constant((d,), x.dtype, Range(0.5, 1.5))
        bound = math.sqrt(d.coef) * rg.mag + 1.0
        if op == "relax.nn.layer_norm":
            beta, rb = g.constant((d,), x.dtype, Range(-1.0, 1.0))
            c = call(op, x.expr, gamma, beta, axes=[-1])
            bound += rb.mag
        else:
            c = call(op, x.expr, gamma, axes=[-1])
        return one(c, x.dims, x.dtype, Range(-bound, bound, False))

    return OpRule(op, ("float",), build, min_rank=1)


def _spatial_static(x: TVal) -> bool:
    return x.ndim == 4 and all(d.is_static for d in x.dims[1:])


def _conv2d(g, x: TVal) -> Optional[Result]:
    if not _spatial_static(x):
        return None
    n, c, h, w = x.dims
    k = g.src.integer(1, min(3, h.coef, w.coef))
    o = g.src.integer(1, 3)
    weight, rw = g.constant((const(o), c, const(k), const(k)), x.dtype, Range(-1.0, 1.0))
    pad = g.src.integer(0, 1)
    stride = g.src.integer(1, 2)
    oh = (h.coef + 2 * pad - k) // stride + 1
    ow = (w.coef + 2 * pad - k) // stride + 1
    m = c.coef * k * k * x.range.mag * rw.mag
    r = Range(-m, m, False)
    if not range_fits(r, x.dtype):
        return None
    cl = call("relax.nn.conv2d", x.expr, weight, strides=[stride, stride], padding=[pad, pad])
    return one(cl, (n, const(o), const(oh), const(ow)), x.dtype, r)


def _pool(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        if not _spatial_static(x):
            return None
        n, c, h, w = x.dims
        k = g.src.integer(1, min(2, h.coef, w.coef))
        s = g.src.integer(1, 2)
        oh, ow = (h.coef - k) // s + 1, (w.coef - k) // s + 1
        r = x.range if op == "relax.nn.max_pool2d" else x.range.inexact()
        cl = call(op, x.expr, pool_size=[k, k], strides=[s, s])
        return one(cl, (n, c, const(oh), const(ow)), x.dtype, r)

    return OpRule(op, ("float",), build, min_rank=4, max_rank=4)


def _adaptive_pool(g, x: TVal) -> Optional[Result]:
    if not _spatial_static(x):
        return None
    n, c, h, w = x.dims
    if g.src.boolean(50):
        cl = call("relax.nn.adaptive_avg_pool2d", x.expr, output_size=[1, 1])
        dims = (n, c, const(1), const(1))
    else:
        cl = call("relax.nn.adaptive_avg_pool2d", x.expr)
        dims = x.dims
    return one(cl, dims, x.dtype, x.range.inexact())


def _pad(g, x: TVal) -> Optional[Result]:
    widths: List[int] = []
    dims = []
    for d in x.dims:
        a, b = (g.src.integer(0, 1), g.src.integer(0, 1)) if d.is_static else (0, 0)
        widths += [a, b]
        dims.append(const(d.coef + a + b) if d.is_static else d)
    r = x.range.union(Range(0.0, 0.0))
    return one(call("relax.nn.pad", x.expr, pad_width=widths), tuple(dims), x.dtype, r)


def _batch_flatten(g, x: TVal) -> Optional[Result]:
    c, vs = numel_factors(x.dims[1:])
    if len(vs) > 1:
        return None
    rest = vs[0].scaled(c) if vs else const(c)
    return one(call("relax.nn.batch_flatten", x.expr), (x.dims[0], rest), x.dtype, x.range)


def _prelu(g, x: TVal) -> Optional[Result]:
    d = x.dims[1]
    if not d.is_static:
        return None
    alpha, ra = g.constant((d,), x.dtype, Range(0.0, 0.5))
    r = Range(min(x.range.lo * ra.hi, x.range.lo, 0.0), max(x.range.hi, 0.0), x.range.exact and ra.exact)
    return one(call("relax.nn.prelu", x.expr, alpha, axis=1), x.dims, x.dtype, r)


def _outer(g, x: TVal) -> Optional[Result]:
    y = g.pick(lambda t: t.ndim == 1 and t.dtype == x.dtype)
    if y is None:
        return None
    r = Range(-x.range.mag * y.range.mag, x.range.mag * y.range.mag,
              x.range.exact and y.range.exact)
    return one(call("relax.outer", x.expr, y.expr), (x.dims[0], y.dims[0]), x.dtype, r)


def _einsum(g, x: TVal) -> Optional[Result]:
    if g.src.boolean(50):
        return one(call("relax.einsum", [x.expr], subscripts="ij->ji"), x.dims[::-1], x.dtype, x.range)
    k = x.dims[1]
    y = g.pick(lambda t: t.ndim == 2 and t.dtype == x.dtype and t.dims[0] == k)
    if y is None:
        return None
    m = x.range.mag * y.range.mag * k.max_value()
    r = Range(-m, m, False)
    if not range_fits(r, x.dtype):
        return None
    return one(call("relax.einsum", [x.expr, y.expr], subscripts="ij,jk->ik"), (x.dims[0], y.dims[1]), x.dtype, r)


def _median(g, x: TVal) -> Optional[Result]:
    keep = g.src.boolean(30)
    dims = tuple(const(1) for _ in x.dims) if keep else ()
    return one(call("relax.median", x.expr, keepdims=keep), dims, x.dtype, x.range)


def _topk(g, x: TVal) -> Optional[Result]:
    d = x.dims[-1]
    k = g.src.integer(1, d.min_value())
    dims = x.dims[:-1] + (const(k),)
    c = call("relax.topk", x.expr, k=k, axis=-1, ret_type="values", largest=g.src.boolean(50))
    return one(c, dims, x.dtype, x.range)


def _collapse_sum_to(g, x: TVal) -> Optional[Result]:
    drop = g.src.integer(0, x.ndim - 1)
    target = tuple(const(1) if d.is_static and g.src.boolean(40) else d for d in x.dims[drop:])
    n = max_numel(x.dims) // max(1, max_numel(target))
    r = Range(min(x.range.lo * n, x.range.lo, 0.0), max(x.range.hi * n, x.range.hi, 0.0),
              x.range.exact and kind_of(x.dtype) == "int")
    return one(call("relax.collapse_sum_to", x.expr, g.shape(target)), target, x.dtype, r)


def _one_hot(g, x: TVal) -> Optional[Result]:
    if x.range.lo < 0 or x.range.hi > 8 or x.ndim > 2:
        return None
    depth = int(x.range.hi) + 1
    c = call("relax.one_hot", x.expr, 1.0, 0.0, depth=depth)
    return one(c, x.dims + (const(depth),), "float32", Range(0.0, 1.0, True))


def _gather_elements(g, x: TVal) -> Optional[Result]:
    if not x.static:
        return None
    axis = g.src.integer(0, x.ndim - 1)
    idx, _ = g.constant(x.dims, "int64", Range(0, x.dims[axis].coef - 1))
    return one(call("relax.gather_elements", x.expr, idx, axis=axis), x.dims, x.dtype, x.range)


def _mod(g, x: TVal) -> Optional[Result]:

    p = partner(g, x, pred=lambda y: y.range.away_from_zero(1))
    if p is None:
        return None
    y, dims = p
    m = y.range.mag
    return one(call("relax.mod", x.expr, y.expr), dims, x.dtype, Range(-m, m, True))


def _eye_like(g, x: TVal) -> Optional[Result]:
    return one(call("relax.eye_like", x.expr, g.src.integer(-1, 1)), x.dims, x.dtype, Range(0.0, 1.0, True))


def extra_rules() -> List[OpRule]:
    return [
        _norm("relax.nn.layer_norm"), _norm("relax.nn.rms_norm"),
        OpRule("relax.nn.conv2d", ("float",), _conv2d, min_rank=4, max_rank=4),
        _pool("relax.nn.max_pool2d"), _pool("relax.nn.avg_pool2d"),
        OpRule("relax.nn.adaptive_avg_pool2d", ("float",), _adaptive_pool, min_rank=4, max_rank=4),
        OpRule("relax.nn.pad", ("float",), _pad, min_rank=1),
        OpRule("relax.nn.batch_flatten", ("float", "int"), _batch_flatten, min_rank=2),
        OpRule("relax.nn.prelu", ("float",), _prelu, min_rank=2),
        OpRule("relax.outer", ("float", "int"), _outer, min_rank=1, max_rank=1),
        OpRule("relax.einsum", ("float",), _einsum, min_rank=2, max_rank=2),
        OpRule("relax.median", ("float", "int"), _median, min_rank=1),
        OpRule("relax.topk", ("float", "int"), _topk, min_rank=1),
        OpRule("relax.collapse_sum_to", ("float", "int"), _collapse_sum_to, min_rank=1),
        OpRule("relax.one_hot", ("int",), _one_hot),
        OpRule("relax.gather_elements", ("float", "int"), _gather_elements, min_rank=1),
        OpRule("relax.mod", ("int",), _mod),
        OpRule("relax.eye_like", ("float", "int"), _eye_like, min_rank=2, max_rank=2),
    ]


__all__ = ["extra_rules"]

"""Generator rules for shape manipulation, indexing, sorting, linear algebra and creation operators
(part of the table in :mod:`relax_ref.testing.rules`; same conventions)."""

from __future__ import annotations

from typing import List, Optional, Tuple

from .domain import Dim, Range, TVal, add_dims, broadcast_dims, const, max_numel, numel_factors
from .rule_kit import OpRule, Out, Result, call, kind_of, one, range_fits


# ---------------------------------------------------------------------------------------------------
# Shape manipulation
# ---------------------------------------------------------------------------------------------------


def _factorize(c: int) -> List[int]:
    out, p = [], 2
    while p * p <= c:
        while c % p == 0:
            out.append(p)
            c //= p
        p += 1
    if c > 1:
        out.append(c)
    return out


def _reshape_target(g, x: TVal) -> Optional[Tuple[Dim, ...]]:
    c, vs = numel_factors(x.dims)
    rank = g.src.integer(1, 4)
    if len(vs) > rank:
        return None
    coefs = [1] * rank
    for p in _factorize(c):
        coefs[g.src.integer(0, rank - 1)] *= p
    slots = g.src.permutation(rank)[:len(vs)]
    var_of = {s: v for s, v in zip(slots, vs)}
    return tuple(var_of[i].scaled(coefs[i]) if i in var_of else const(coefs[i]) for i in range(rank))


def _reshape(g, x: TVal) -> Optional[Result]:
    dims = _reshape_target(g, x)
    if dims is None:
        return None
    shape = list(g.shape(dims).values)
    if len(dims) > 1 and x.known_shape and g.src.boolean(20):
        shape[g.src.integer(0, len(dims) - 1)] = -1
    return one(call("relax.reshape", x.expr, shape), dims, x.dtype, x.range)


def _permute(g, x: TVal) -> Optional[Result]:
    if g.src.boolean(15):
        return one(call("relax.permute_dims", x.expr), x.dims[::-1], x.dtype, x.range)
    perm = g.src.permutation(x.ndim)
    return one(call("relax.permute_dims", x.expr, axes=perm), tuple(x.dims[p] for p in perm), x.dtype, x.range)


def _expand_dims(g, x: TVal) -> Optional[Result]:
    a = g.src.integer(0, x.ndim)
    dims = x.dims[:a] + (const(1),) + x.dims[a:]
    axis = a - (x.ndim + 1) if g.src.boolean(20) else a
    return one(call("relax.expand_dims", x.expr, axis=[axis]), dims, x.dtype, x.range)


def _squeeze(g, x: TVal) -> Optional[Result]:
    ones = [i for i, d in enumerate(x.dims) if d == const(1)]
    if not ones:
        return None
    axes = [i for i in ones if g.src.boolean(60)] or ones[:1]
    dims = tuple(d for i, d in enumerate(x.dims) if i not in axes)
    return one(call("relax.squeeze", x.expr, axis=axes), dims, x.dtype, x.range)


def _flatten(g, x: TVal) -> Optional[Result]:
    c, vs = numel_factors(x.dims)
    if len(vs) > 1:
        return None
    return one(call("relax.flatten", x.expr), (vs[0].scaled(c) if vs else const(c),), x.dtype, x.range)


def _broadcast_to(g, x: TVal) -> Optional[Result]:
    pool = [d for d in g.scope_dims()] + [const(2), const(3)]
    lead = [g.src.choice(pool) for _ in range(g.src.integer(0, 4 - x.ndim))] if x.ndim < 4 else []
    dims = tuple(lead) + tuple(g.src.choice(pool) if d == const(1) and g.src.boolean(60) else d for d in x.dims)
    if max_numel(dims) > 4096:
        return None
    return one(call("relax.broadcast_to", x.expr, g.shape(dims)), dims, x.dtype, x.range)


def _concat(g, x: TVal) -> Optional[Result]:
    axis = g.src.integer(0, x.ndim - 1)

    def fits(y: TVal) -> bool:
        return y.dtype == x.dtype and y.ndim == x.ndim and all(
            a == b for i, (a, b) in enumerate(zip(x.dims, y.dims)) if i != axis) \
            and add_dims(x.dims[axis], y.dims[axis]) is not None

    parts = [x]
    for _ in range(g.src.integer(1, 2)):
        y = g.pick(fits)
        if y is None:
            break
        parts.append(y)
    d = parts[0].dims[axis]
    for y in parts[1:]:
        d = add_dims(d, y.dims[axis])
    dims = x.dims[:axis] + (d,) + x.dims[axis + 1:]
    rng = parts[0].range
    for y in parts[1:]:
        rng = rng.union(y.range)
    return one(call("relax.concat", [p.expr for p in parts], axis=axis), dims, x.dtype, rng)


def _split(g, x: TVal) -> Optional[Result]:
    axis = g.src.integer(0, x.ndim - 1)
    d = x.dims[axis]
    divs = [k for k in (2, 3, 4) if d.coef % k == 0]
    if divs and g.src.boolean(70):
        k = g.src.choice(divs)
        parts = [Dim(d.coef // k, d.var, d.vmax)] * k
        c = call("relax.split", x.expr, indices_or_sections=k, axis=axis)
    elif d.is_static and d.coef >= 2:
        cut = g.src.integer(1, d.coef - 1)
        parts = [const(cut), const(d.coef - cut)]
        c = call("relax.split", x.expr, indices_or_sections=[cut], axis=axis)
    else:
        return None
    outs = tuple(Out(x.dims[:axis] + (p,) + x.dims[axis + 1:], x.dtype, x.range) for p in parts)
    return Result(c, outs, is_tuple=True)


def _stack(g, x: TVal) -> Optional[Result]:
    parts = [x]
    y = g.pick(lambda t: t.same_type(x))
    if y is not None:
        parts.append(y)
    axis = g.src.integer(0, x.ndim)
    dims = x.dims[:axis] + (const(len(parts)),) + x.dims[axis:]
    rng = parts[0].range.union(parts[-1].range)
    return one(call("relax.stack", [p.expr for p in parts], axis=axis), dims, x.dtype, rng)


def _flip(g, x: TVal) -> Optional[Result]:
    axis = g.src.integer(0, x.ndim - 1)
    return one(call("relax.flip", x.expr, axis=axis), x.dims, x.dtype, x.range)


def _repeat(g, x: TVal) -> Optional[Result]:
    k = g.src.integer(1, 3)
    if g.src.boolean(25):
        c, vs = numel_factors(x.dims)
        if len(vs) > 1:
            return None
        dims = (vs[0].scaled(c * k) if vs else const(c * k),)
        return one(call("relax.repeat", x.expr, repeats=k), dims, x.dtype, x.range)
    axis = g.src.integer(0, x.ndim - 1)
    dims = x.dims[:axis] + (x.dims[axis].scaled(k),) + x.dims[axis + 1:]
    return one(call("relax.repeat", x.expr, repeats=k, axis=axis), dims, x.dtype, x.range)


def _tile(g, x: TVal) -> Optional[Result]:
    reps = [g.src.integer(1, 2) for _ in range(g.src.integer(1, max(1, x.ndim)))]
    n = max(len(reps), x.ndim)
    xd = (const(1),) * (n - x.ndim) + x.dims
    rd = [1] * (n - len(reps)) + reps
    dims = tuple(d.scaled(r) for d, r in zip(xd, rd))
    if max_numel(dims) > 4096:
        return None
    return one(call("relax.tile", x.expr, repeats=reps), dims, x.dtype, x.range)


def _strided_slice(g, x: TVal) -> Optional[Result]:
    static = [i for i, d in enumerate(x.dims) if d.is_static and d.coef >= 2]
    if not static:
        return None
    axis = g.src.choice(static)
    n = x.dims[axis].coef
    begin = g.src.integer(0, n - 1)
    # the whole rest of the axis half of the time, so that strides > 1 take several elements
    end = n if g.src.boolean(50) else g.src.integer(begin + 1, n)
    span = end - begin
    # mostly a stride > 1 where one still takes two elements or more
    stride = g.src.integer(2, (span + 1) // 2) if span >= 3 and g.src.boolean(65) else 1
    size = (end - begin + stride - 1) // stride
    dims = x.dims[:axis] + (const(size),) + x.dims[axis + 1:]
    c = call("relax.strided_slice", x.expr, axes=[axis], begin=[begin], end=[end], strides=[stride])
    return one(c, dims, x.dtype, x.range)


def _take(g, x: TVal) -> Optional[Result]:
    static = [i for i, d in enumerate(x.dims) if d.is_static]
    if not static:
        return None
    axis = g.src.choice(static)
    k = g.src.integer(1, 3)
    idx, _ = g.constant((const(k),), "int64", Range(0, x.dims[axis].coef - 1))
    dims = x.dims[:axis] + (const(k),) + x.dims[axis + 1:]
    return one(call("relax.take", x.expr, idx, axis=axis), dims, x.dtype, x.range)


def _tri(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        k = g.src.integer(-1, 1)
        r = x.range.union(Range(0.0, 0.0))
        return one(call(op, x.expr, k), x.dims, x.dtype, r)

    return OpRule(op, ("float", "int"), build, min_rank=2)


def _sort(g, x: TVal) -> Optional[Result]:
    axis = g.src.integer(-1, x.ndim - 1)
    return one(call("relax.sort", x.expr, axis=axis, descending=g.src.boolean(50)), x.dims, x.dtype, x.range)


# ---------------------------------------------------------------------------------------------------
# Linear algebra and creation
# ---------------------------------------------------------------------------------------------------


def _matmul(g, x: TVal) -> Optional[Result]:
    k = x.dims[-1]

    def fits(y: TVal) -> bool:
        if y.dtype != x.dtype or y.ndim == 0:
            return False
        inner = y.dims[0] if y.ndim == 1 else y.dims[-2]
        if inner != k:
            return False
        return x.ndim <= 2 or y.ndim <= 2 or broadcast_dims(x.dims[:-2], y.dims[:-2]) is not None

    y = g.pick(fits)
    if y is None:
        if not k.is_static:
            return None
        dims = (k, g.src.choice([const(2), const(1), const(3)])) if g.src.boolean(70) else (k,)
        c, r = g.constant(dims, x.dtype, g.default_range(x.dtype))
        y = TVal(c, dims, x.dtype, r)
    xb = x.dims[:-2]
    yb = y.dims[:-2] if y.ndim >= 2 else ()
    batch = broadcast_dims(xb, yb)
    if batch is None:
        return None
    dims = batch + (x.dims[-2:-1] if x.ndim >= 2 else ()) + ((y.dims[-1],) if y.ndim >= 2 else ())
    m = x.range.mag * y.range.mag * k.max_value()
    r = Range(-m, m, x.range.exact and y.range.exact and kind_of(x.dtype) == "int")
    if not range_fits(r, x.dtype):
        return None
    return one(call("relax.matmul", x.expr, y.expr), dims, x.dtype, r)


def _like(op: str, value: float) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        if op == "relax.full_like":
            v = g.src.choice([2.0, -1.5, 0.5]) if kind_of(x.dtype) == "float" else g.src.choice([2, -1, 3])
            c, _ = g.constant((), x.dtype, Range(v, v))
            return one(call(op, x.expr, c), x.dims, x.dtype, Range(v, v, True))
        return one(call(op, x.expr), x.dims, x.dtype, Range(value, value, True))

    return OpRule(op, ("float", "int"), build)


def _creation(op: str) -> OpRule:
    """``zeros``/``ones``/``full`` with the shape of ``x`` (a new value independent of ``x``)."""
    def build(g, x: TVal) -> Optional[Result]:
        if op == "relax.full":
            v = g.src.choice([1.5, -2.0]) if kind_of(x.dtype) == "float" else g.src.choice([3, -2])
            c, _ = g.constant((), x.dtype, Range(v, v))
            return one(call(op, g.shape(x.dims), c, dtype=x.dtype), x.dims, x.dtype, Range(v, v, True))
        v = 0.0 if op == "relax.zeros" else 1.0
        return one(call(op, g.shape(x.dims), dtype=x.dtype), x.dims, x.dtype, Range(v, v, True))

    return OpRule(op, ("float", "int"), build)


def shape_rules() -> List[OpRule]:
    return [
        OpRule("relax.reshape", ("float", "int", "bool"), _reshape, weight=2),
        OpRule("relax.permute_dims", ("float", "int", "bool"), _permute, min_rank=2),
        OpRule("relax.expand_dims", ("float", "int", "bool"), _expand_dims, max_rank=3),
        OpRule("relax.squeeze", ("float", "int", "bool"), _squeeze, min_rank=1),
        OpRule("relax.flatten", ("float", "int", "bool"), _flatten),
        OpRule("relax.broadcast_to", ("float", "int", "bool"), _broadcast_to),
        OpRule("relax.concat", ("float", "int"), _concat, min_rank=1),
        OpRule("relax.split", ("float", "int"), _split, min_rank=1),
        OpRule("relax.stack", ("float", "int"), _stack, max_rank=3),
        OpRule("relax.flip", ("float", "int"), _flip, min_rank=1),
        OpRule("relax.repeat", ("float", "int"), _repeat, min_rank=1),
        OpRule("relax.tile", ("float", "int"), _tile, min_rank=1, max_rank=3),
        OpRule("relax.strided_slice", ("float", "int"), _strided_slice, min_rank=1),
        OpRule("relax.take", ("float", "int"), _take, min_rank=1),
        _tri("relax.tril"), _tri("relax.triu"),
        OpRule("relax.sort", ("float", "int"), _sort, min_rank=1),
        OpRule("relax.matmul", ("float", "int"), _matmul, min_rank=1, weight=2),
        _like("relax.zeros_like", 0.0), _like("relax.ones_like", 1.0), _like("relax.full_like", 0.0),
        _creation("relax.zeros"), _creation("relax.ones"), _creation("relax.full"),
    ]


__all__ = ["shape_rules"]

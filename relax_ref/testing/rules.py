"""Generator rules: how to build a *valid* call of each operator (NNSmith-style operator specs).

:data:`RULES` maps an operator name to an :class:`OpRule`: the dtype classes (``"float"``, ``"int"``,
``"bool"``) and ranks its first operand may have, and a ``build(g, x)`` function that, given the
generator ``g`` and a first operand ``x`` (a :class:`~relax_ref.testing.domain.TVal`), draws the
remaining operands and attributes so that the call is well typed *for every value of the symbolic
variables*, and returns a :class:`Result` -- the call plus the true dims, dtype and value range of
each output -- or ``None`` when ``x`` does not fit (the generator then tries something else).

A rule is *active* when its operator is registered with struct-info inference and reference
semantics (:func:`active_rules`), so adding a rule for an operator that is not implemented yet is
harmless; adding an operator to the registry activates its rule. To add a rule, write ``build`` with
the helpers below and add ``OpRule(...)`` to the table.

What ``build`` may use from ``g`` (implemented by :class:`relax_ref.testing.program.FunctionGen`):

* ``g.src`` -- the choice :class:`~relax_ref.testing.source.Source`;
* ``g.pick(pred) -> TVal | None`` -- a tensor in scope satisfying ``pred``;
* ``g.shape(dims) -> ShapeExpr`` and ``g.dim(d) -> PrimExpr`` -- expressions for true dims (possibly
  through variables a ``match_cast`` made equal to them);
* ``g.constant(dims, dtype, range) -> (Constant, Range)`` -- a constant tensor (static dims only);
* ``g.scope_dims() -> list[Dim]`` -- the dims of the tensors in scope.

Value ranges keep every result finite and far from overflow; discontinuous operators (rounding,
comparisons, ``argmax``, integer conversion of floats) only receive *exact* operands (see
:mod:`relax_ref.testing.domain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..ir import expr as rx
from ..ops import registry
from .domain import (
    MAX_SYM, Dim, Range, TVal, add_dims, bool_range, broadcast_dims, const, is_float, is_int,
    max_numel, numel_factors,
)


@dataclass(frozen=True)
class Out:
    """One output of a call: true dims, dtype and range."""

    dims: Tuple[Dim, ...]
    dtype: str
    range: Range


@dataclass(frozen=True)
class Result:
    """What a rule builds: the call and its outputs (several for a tuple-valued call)."""

    call: rx.Call
    outs: Tuple[Out, ...]
    is_tuple: bool = False


@dataclass(frozen=True)
class OpRule:
    op: str
    kinds: Tuple[str, ...]
    build: Callable[..., Optional[Result]]
    min_rank: int = 0
    max_rank: int = 4
    weight: int = 1

    def accepts(self, x: TVal) -> bool:
        return kind_of(x.dtype) in self.kinds and self.min_rank <= x.ndim <= self.max_rank


def kind_of(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    return "float" if is_float(dtype) else "int"


def call(op: str, *args, **kwargs) -> rx.Call:
    """Build ``R.<op>(*args, **kwargs)`` through the registry's script signature."""
    return registry.build_call(registry.get(op), list(args), kwargs)


def one(c: rx.Call, dims, dtype: str, rng: Range) -> Result:
    return Result(c, (Out(tuple(dims), dtype, rng),))


def _ok(rng: Range, dtype: str) -> bool:
    return rng.within(dtype) and math.isfinite(rng.lo) and math.isfinite(rng.hi)


# ---------------------------------------------------------------------------------------------------
# Elementwise unary operators
# ---------------------------------------------------------------------------------------------------

# (op, transfer(range) -> Range | None, kinds, needs exact input)
def _mono(f, exact=False):
    return lambda r: Range(f(r.lo), f(r.hi), exact and r.exact)


def _neg(r):
    return Range(-r.hi, -r.lo, r.exact)


def _abs(r):
    lo = 0.0 if r.lo <= 0 <= r.hi else min(abs(r.lo), abs(r.hi))
    return Range(lo, r.mag, r.exact)


def _square(r):
    a = _abs(r)
    return Range(a.lo * a.lo, a.hi * a.hi, r.exact)


def _relu(r):
    return Range(max(r.lo, 0.0), max(r.hi, 0.0), r.exact)


def _bounded(lo, hi):
    return lambda r: Range(lo, hi, False)


def _when(pred, transfer):
    return lambda r: transfer(r) if pred(r) else None


def _rounding(f):
    return lambda r: Range(float(f(r.lo)), float(f(r.hi)), True) if r.exact else None


UNARY: List[Tuple[str, Callable, Tuple[str, ...]]] = [
    ("relax.nn.relu", _relu, ("float",)),
    ("relax.negative", _neg, ("float", "int")),
    ("relax.abs", _abs, ("float", "int")),
    ("relax.square", _when(lambda r: r.mag <= 100, _square), ("float", "int")),
    ("relax.exp", _when(lambda r: r.hi <= 5, _mono(math.exp)), ("float",)),
    ("relax.log", _when(lambda r: r.lo >= 0.25, _mono(math.log)), ("float",)),
    ("relax.sqrt", _when(lambda r: r.lo >= 0, _mono(math.sqrt)), ("float",)),
    ("relax.rsqrt", _when(lambda r: r.lo >= 0.25, lambda r: Range(1 / math.sqrt(r.hi), 1 / math.sqrt(r.lo), False)),
     ("float",)),
    ("relax.sin", _bounded(-1.0, 1.0), ("float",)),
    ("relax.cos", _bounded(-1.0, 1.0), ("float",)),
    ("relax.tanh", _mono(math.tanh), ("float",)),
    ("relax.sigmoid", _mono(lambda v: 1 / (1 + math.exp(min(-v, 700.0)))), ("float",)),
    ("relax.erf", _mono(math.erf), ("float",)),
    ("relax.atan", _mono(math.atan), ("float",)),
    ("relax.asinh", _mono(math.asinh), ("float",)),
    ("relax.tan", _when(lambda r: r.mag <= 1.0, _mono(math.tan)), ("float",)),
    ("relax.asin", _when(lambda r: r.mag <= 0.9, _mono(math.asin)), ("float",)),
    ("relax.acos", _when(lambda r: r.mag <= 0.9, lambda r: Range(math.acos(r.hi), math.acos(r.lo), False)),
     ("float",)),
    ("relax.atanh", _when(lambda r: r.mag <= 0.9, _mono(math.atanh)), ("float",)),
    ("relax.acosh", _when(lambda r: r.lo >= 1.1, _mono(math.acosh)), ("float",)),
    ("relax.sinh", _when(lambda r: r.mag <= 4, _mono(math.sinh)), ("float",)),
    ("relax.cosh", _when(lambda r: r.mag <= 4, lambda r: Range(1.0, math.cosh(r.mag), False)), ("float",)),
    ("relax.floor", _rounding(math.floor), ("float",)),
    ("relax.ceil", _rounding(math.ceil), ("float",)),
    ("relax.round", _rounding(round), ("float",)),
    ("relax.trunc", _rounding(math.trunc), ("float",)),
    ("relax.sign", lambda r: Range(-1.0, 1.0, True) if r.exact else None, ("float", "int")),
    ("relax.nn.gelu", lambda r: Range(-0.2, max(r.hi, 0.0), False), ("float",)),
    ("relax.nn.gelu_tanh", lambda r: Range(-0.2, max(r.hi, 0.0), False), ("float",)),
    ("relax.nn.silu", lambda r: Range(-0.3, max(r.hi, 0.0), False), ("float",)),
    ("relax.nn.selu", lambda r: Range(-1.8, 1.06 * max(r.hi, 0.0), False), ("float",)),
    ("relax.bitwise_not", lambda r: Range(-r.hi - 1, -r.lo - 1, True), ("int",)),
    ("relax.logical_not", lambda r: bool_range(r.exact), ("bool",)),
]


def _unary_rule(op: str, transfer: Callable, kinds) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        r = transfer(x.range)
        if r is None or not _ok(r, x.dtype):
            return None
        if kind_of(x.dtype) == "int":
            r = Range(math.floor(r.lo), math.ceil(r.hi), True)
        return one(call(op, x.expr), x.dims, x.dtype, r)

    return OpRule(op, tuple(kinds), build)


def _predicate(op: str) -> OpRule:
    """isfinite / isnan / isinf: the inputs are finite, so the result is a constant mask."""
    def build(g, x: TVal) -> Optional[Result]:
        return one(call(op, x.expr), x.dims, "bool", bool_range())

    return OpRule(op, ("float",), build)


def _leakyrelu(g, x: TVal) -> Optional[Result]:
    alpha = g.src.choice([0.01, 0.25, 0.5])
    r = Range(min(x.range.lo * alpha, x.range.lo, 0.0), max(x.range.hi, 0.0), False)
    return one(call("relax.nn.leakyrelu", x.expr, alpha=alpha), x.dims, x.dtype, r)


def _softplus(g, x: TVal) -> Optional[Result]:
    if x.range.hi > 10:
        return None
    r = Range(0.0, math.log1p(math.exp(x.range.hi)) + 1e-3, False)
    return one(call("relax.nn.softplus", x.expr), x.dims, x.dtype, r)


def _clip(g, x: TVal) -> Optional[Result]:
    lo = g.src.choice([-1, 0, -2])
    hi = lo + g.src.choice([1, 2, 3])
    if kind_of(x.dtype) == "float":
        a, b = float(lo), float(hi)
    else:
        a, b = lo, hi
    c = call("relax.clip", x.expr, a, b)
    r = Range(max(min(x.range.lo, hi), lo), min(max(x.range.hi, lo), hi), x.range.exact)
    return one(c, x.dims, x.dtype, r)


# ---------------------------------------------------------------------------------------------------
# Elementwise binary operators (broadcasting)
# ---------------------------------------------------------------------------------------------------


def partner(g, x: TVal, *, pred=None, allow_const: bool = True) -> Optional[Tuple[TVal, Tuple[Dim, ...]]]:
    """A second operand broadcast-compatible with ``x`` (same dtype): a tensor in scope or a new
    constant (a scalar or a static suffix of ``x``'s dims). Returns it with the broadcast dims."""
    other = g.src.boolean(85)  # usually a different value: ``x - x`` hides operand order and most faults

    def fits(y: TVal) -> bool:
        return y.dtype == x.dtype and broadcast_dims(x.dims, y.dims) is not None and (pred is None or pred(y)) \
            and not (other and y.expr is x.expr)

    y = g.pick(fits) if g.src.boolean(75) else None
    if y is None and allow_const:
        suffix = [d for d in x.dims[::-1]]
        k = 0
        while k < len(suffix) and suffix[k].is_static and g.src.boolean(50):
            k += 1
        dims = tuple(reversed(suffix[:k]))
        rng = g.default_range(x.dtype)
        if pred is not None:
            rng = g.src.choice([Range(0.5, 2.0), Range(1.0, 3.0)]) if kind_of(x.dtype) == "float" else Range(1, 4)
        c, r = g.constant(dims, x.dtype, rng)
        y = TVal(c, dims, x.dtype, r)
        if pred is not None and not pred(y):
            return None
    if y is None:
        return None
    return y, broadcast_dims(x.dims, y.dims)


def _arith(op: str, f: Callable[[Range, Range], Optional[Range]], kinds, divisor: bool = False) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        pred = (lambda y: y.range.away_from_zero(0.5 if kind_of(y.dtype) == "float" else 1)) if divisor else None
        p = partner(g, x, pred=pred)
        if p is None:
            return None
        y, dims = p
        a, b = (x, y) if not g.src.boolean(20) or divisor else (y, x)
        r = f(a.range, b.range)
        if r is None or not _ok(r, x.dtype) or max_numel(dims) > 4096:
            return None
        if kind_of(x.dtype) == "int":
            r = Range(math.floor(r.lo), math.ceil(r.hi), True)
        return one(call(op, a.expr, b.expr), dims, x.dtype, r)

    return OpRule(op, tuple(kinds), build, weight=2)


def _corners(f, a: Range, b: Range, exact: bool) -> Range:
    vs = [f(p, q) for p in (a.lo, a.hi) for q in (b.lo, b.hi)]
    return Range(min(vs), max(vs), exact)


def _add(a, b):
    return Range(a.lo + b.lo, a.hi + b.hi, a.exact and b.exact)


def _sub(a, b):
    return Range(a.lo - b.hi, a.hi - b.lo, a.exact and b.exact)


def _mul(a, b):
    return _corners(lambda p, q: p * q, a, b, a.exact and b.exact)


def _div(a, b):
    return _corners(lambda p, q: p / q, a, b, False)


def _floordiv(a, b):
    if not (a.exact and b.exact):
        return None
    r = _corners(lambda p, q: p / q, a, b, True)
    return Range(math.floor(r.lo) - 1, math.ceil(r.hi) + 1, True)


def _floormod(a, b):
    if not (a.exact and b.exact):
        return None
    m = b.mag
    return Range(-m, m, True)


def _max(a, b):
    return Range(max(a.lo, b.lo), max(a.hi, b.hi), a.exact and b.exact)


def _min(a, b):
    return Range(min(a.lo, b.lo), min(a.hi, b.hi), a.exact and b.exact)


def _power(a, b):
    if a.lo < 0.5 or b.mag > 2:
        return None
    return _corners(lambda p, q: p ** q, a, b, False)


def _atan2(a, b):
    return Range(-math.pi, math.pi, False)


def _log_add_exp(a, b):
    if max(a.hi, b.hi) > 20:
        return None
    return Range(max(a.lo, b.lo), max(a.hi, b.hi) + math.log(2), False)


def _bitwise(a, b):
    if a.lo < 0 or b.lo < 0:
        return None
    top = 2 ** max(1, int(max(a.hi, b.hi)).bit_length()) - 1
    return Range(0, top, True)


def _shift_left(a, b):
    if a.lo < 0 or b.lo < 0 or b.hi > 4:
        return None
    return Range(0, a.hi * 2 ** b.hi, True)


def _shift_right(a, b):
    if a.lo < 0 or b.lo < 0 or b.hi > 4:
        return None
    return Range(0, a.hi, True)


BINARY = [
    ("relax.add", _add, ("float", "int")),
    ("relax.subtract", _sub, ("float", "int")),
    ("relax.multiply", _mul, ("float", "int")),
    ("relax.maximum", _max, ("float", "int")),
    ("relax.minimum", _min, ("float", "int")),
    ("relax.power", _power, ("float",)),
    ("relax.atan2", _atan2, ("float",)),
    ("relax.log_add_exp", _log_add_exp, ("float",)),
    ("relax.bitwise_and", _bitwise, ("int",)),
    ("relax.bitwise_or", _bitwise, ("int",)),
    ("relax.bitwise_xor", _bitwise, ("int",)),
    ("relax.left_shift", _shift_left, ("int",)),
    ("relax.right_shift", _shift_right, ("int",)),
]
DIVISIONS = [
    ("relax.divide", _div, ("float",)),
    ("relax.floor_divide", _floordiv, ("float", "int")),
    ("relax.floor_mod", _floormod, ("float", "int")),
]


def _compare(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        if not x.range.exact:
            return None
        p = partner(g, x, pred=lambda y: y.range.exact)
        if p is None:
            return None
        y, dims = p
        return one(call(op, x.expr, y.expr), dims, "bool", bool_range())

    return OpRule(op, ("float", "int"), build)


def _logical(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        p = partner(g, x, allow_const=False)
        if p is None:
            return None
        y, dims = p
        return one(call(op, x.expr, y.expr), dims, "bool", bool_range(x.range.exact and y.range.exact))

    return OpRule(op, ("bool",), build)


def _where(g, x: TVal) -> Optional[Result]:
    """``where(cond, a, b)`` with ``x`` as ``a``; the condition is a bool tensor in scope."""
    c = g.pick(lambda t: t.dtype == "bool" and broadcast_dims(t.dims, x.dims) is not None)
    if c is None:
        return None
    p = partner(g, x)
    if p is None:
        return None
    y, dims = p
    dims = broadcast_dims(c.dims, dims)
    if dims is None:
        return None
    return one(call("relax.where", c.expr, x.expr, y.expr), dims, x.dtype, x.range.union(y.range))


def _fma(g, x: TVal) -> Optional[Result]:
    ys = [g.pick(lambda t: t.same_type(x)) for _ in range(2)]
    if any(y is None for y in ys):
        return None
    r = _add(_mul(x.range, ys[0].range), ys[1].range)
    if not _ok(r, x.dtype):
        return None
    return one(call("relax.ewise_fma", x.expr, ys[0].expr, ys[1].expr), x.dims, x.dtype, r.inexact())


def _astype(g, x: TVal) -> Optional[Result]:
    k = kind_of(x.dtype)
    targets = {"float": ["float32", "int32", "float16", "float64"], "int": ["float32", "int64", "int32"],
               "bool": ["int32", "float32"]}[k]
    t = g.src.choice([d for d in targets if d != x.dtype] or targets)
    r = x.range
    if is_int(t) and k == "float":
        if not r.exact:
            return None
        r = Range(math.trunc(r.lo), math.trunc(r.hi), True)
    if t == "float16":
        if r.mag > 100:
            return None
        r = r.inexact()
    if not _ok(r, t):
        return None
    return one(call("relax.astype", x.expr, dtype=t), x.dims, t, r)


# ---------------------------------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------------------------------


def _axes(g, x: TVal, allow_none: bool = True) -> Optional[Tuple[int, ...]]:
    """Reduction axes: None (all) or a sorted subset, possibly written with negative indices."""
    if x.ndim == 0:
        return None
    if allow_none and g.src.boolean(20):
        return None
    axes = [a for a in range(x.ndim) if g.src.boolean(40)] or [g.src.integer(0, x.ndim - 1)]
    return tuple(a - x.ndim if g.src.boolean(20) else a for a in axes)


def _reduced_dims(x: TVal, axes, keepdims: bool) -> Tuple[Tuple[Dim, ...], int]:
    red = set(range(x.ndim)) if axes is None else {a % x.ndim for a in axes}
    count = 1
    out = []
    for i, d in enumerate(x.dims):
        if i in red:
            count *= d.max_value()
            if keepdims:
                out.append(const(1))
        else:
            out.append(d)
    return tuple(out), count


def _reduction(op: str, transfer: Callable[[Range, int], Optional[Range]], kinds) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        axes = _axes(g, x)
        keep = g.src.boolean(30)
        dims, count = _reduced_dims(x, axes, keep)
        r = transfer(x.range, count)
        if r is None or not _ok(r, x.dtype):
            return None
        kw = {"keepdims": keep}
        if axes is not None:
            kw["axis"] = list(axes)
        return one(call(op, x.expr, **kw), dims, x.dtype, r)

    return OpRule(op, tuple(kinds), build, min_rank=1)


def _sum_t(r: Range, n: int) -> Range:
    return Range(min(r.lo * n, r.lo, 0.0), max(r.hi * n, r.hi, 0.0), r.exact)


def _sum_float(r: Range, n: int) -> Range:
    return _sum_t(r, n).inexact()


def _prod_t(r: Range, n: int) -> Optional[Range]:
    if n * math.log(max(r.mag, 1.0)) > math.log(1e5):
        return None
    m = max(r.mag, 1.0) ** n
    return Range(-m, m, False)


def _mean_t(r: Range, n: int) -> Range:
    return Range(r.lo, r.hi, False)


def _var_t(r: Range, n: int) -> Range:
    w = r.hi - r.lo
    return Range(0.0, w * w, False)


def _std_t(r: Range, n: int) -> Range:
    return Range(0.0, r.hi - r.lo, False)


def _extreme_t(r: Range, n: int) -> Range:
    return r


def _argext(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        if not x.range.exact:
            return None
        keep = g.src.boolean(30)
        if x.ndim > 0 and g.src.boolean(80):
            axis = g.src.integer(0, x.ndim - 1)
            dims, _ = _reduced_dims(x, (axis,), keep)
            c = call(op, x.expr, axis=axis, keepdims=keep)
        else:
            dims, _ = _reduced_dims(x, None, keep)
            c = call(op, x.expr, keepdims=keep)
        return one(c, dims, "int64", Range(0, max_numel(x.dims), True))

    return OpRule(op, ("float", "int"), build, min_rank=1)


def _scan(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        axis = g.src.integer(0, x.ndim - 1)
        n = x.dims[axis].max_value()
        if op == "relax.cumsum":
            r = _sum_t(x.range, n)
            r = r if kind_of(x.dtype) == "int" else r.inexact()
        else:
            r = _prod_t(x.range, n)
        if r is None or not _ok(r, x.dtype):
            return None
        excl = g.src.boolean(30)
        return one(call(op, x.expr, axis=axis, exclusive=excl), x.dims, x.dtype, r)

    return OpRule(op, ("float", "int"), build, min_rank=1)


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
    if not _ok(r, x.dtype):
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


# ---------------------------------------------------------------------------------------------------
# nn operators (active once registered)
# ---------------------------------------------------------------------------------------------------


def _softmax(op: str) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        if x.range.hi - x.range.lo > 30:
            return None
        axis = g.src.integer(-1, x.ndim - 1)
        if op == "relax.nn.softmax":
            r = Range(0.0, 1.0, False)
        else:
            n = max(d.max_value() for d in x.dims)
            r = Range(-(x.range.hi - x.range.lo) - math.log(n * MAX_SYM) - 1, 0.0, False)
        return one(call(op, x.expr, axis=axis), x.dims, x.dtype, r)

    return OpRule(op, ("float",), build, min_rank=1)


# ---------------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------------


def _table() -> Dict[str, OpRule]:
    rules: List[OpRule] = []
    rules += [_unary_rule(op, f, kinds) for op, f, kinds in UNARY]
    rules += [_arith(op, f, kinds) for op, f, kinds in BINARY]
    rules += [_arith(op, f, kinds, divisor=True) for op, f, kinds in DIVISIONS]
    rules += [_predicate(op) for op in ("relax.isfinite", "relax.isnan", "relax.isinf")]
    rules += [OpRule("relax.nn.leakyrelu", ("float",), _leakyrelu), OpRule("relax.nn.softplus", ("float",), _softplus),
              OpRule("relax.clip", ("float", "int"), _clip)]
    rules += [_compare(op) for op in ("relax.equal", "relax.not_equal", "relax.less", "relax.less_equal",
                                      "relax.greater", "relax.greater_equal")]
    rules += [_logical(op) for op in ("relax.logical_and", "relax.logical_or", "relax.logical_xor")]
    rules += [OpRule("relax.where", ("float", "int"), _where), OpRule("relax.ewise_fma", ("float",), _fma),
              OpRule("relax.astype", ("float", "int", "bool"), _astype)]
    rules += [
        _reduction("relax.sum", _sum_float, ("float",)),
        _reduction("relax.sum", _sum_t, ("int",)),
        _reduction("relax.mean", _mean_t, ("float",)),
        _reduction("relax.max", _extreme_t, ("float", "int")),
        _reduction("relax.min", _extreme_t, ("float", "int")),
        _reduction("relax.prod", _prod_t, ("float",)),
        _reduction("relax.variance", _var_t, ("float",)),
        _reduction("relax.std", _std_t, ("float",)),
        _argext("relax.argmax"), _argext("relax.argmin"),
        _scan("relax.cumsum"), _scan("relax.cumprod"),
    ]
    rules += [
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
        _softmax("relax.nn.softmax"), _softmax("relax.nn.log_softmax"),
    ]
    from .rules_nn import extra_rules  # noqa: E402 - it uses the helpers defined above

    rules += extra_rules()
    table: Dict[str, OpRule] = {}
    for r in rules:
        key = r.op if r.op not in table else f"{r.op}#{len(table)}"
        table[key] = r
    return table


#: every rule, keyed by operator name (a second rule for the same operator gets a ``#n`` suffix)
RULES: Dict[str, OpRule] = _table()


def is_available(op: str) -> bool:
    """The operator is registered with inference and reference semantics."""
    d = registry.lookup(op)
    return d is not None and d.infer is not None and d.reference is not None


def active_rules(ops: Optional[Sequence[str]] = None) -> List[OpRule]:
    """The rules whose operators are available (optionally only those named in ``ops``), in table
    order (simplest first, which is where shrinking goes)."""
    out = []
    for r in RULES.values():
        if ops is not None and r.op not in ops:
            continue
        if is_available(r.op):
            out.append(r)
    return out


def rule_ops() -> List[str]:
    """The operator names that have a rule."""
    return sorted({r.op for r in RULES.values()})


__all__ = ["Out", "Result", "OpRule", "RULES", "active_rules", "is_available", "rule_ops", "kind_of", "call",
           "partner"]

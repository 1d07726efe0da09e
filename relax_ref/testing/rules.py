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
the helpers of :mod:`relax_ref.testing.rule_kit` and add ``OpRule(...)`` to the table (the rules of
shape, indexing and creation operators are in :mod:`.rules_shape`, of neural-network operators in
:mod:`.rules_nn`).

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
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..interp.op_table import IMPLEMENTATIONS
from ..ops import registry
from .domain import MAX_SYM, Dim, Range, TVal, bool_range, broadcast_dims, const, is_int, max_numel
from .rule_kit import OpRule, Out, Result, call, kind_of, one, partner, range_fits
from .rules_nn import extra_rules
from .rules_shape import shape_rules


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
        if r is None or not range_fits(r, x.dtype):
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


def _arith(op: str, f: Callable[[Range, Range], Optional[Range]], kinds, divisor: bool = False) -> OpRule:
    def build(g, x: TVal) -> Optional[Result]:
        pred = (lambda y: y.range.away_from_zero(0.5 if kind_of(y.dtype) == "float" else 1)) if divisor else None
        p = partner(g, x, pred=pred)
        if p is None:
            return None
        y, dims = p
        a, b = (x, y) if not g.src.boolean(20) or divisor else (y, x)
        r = f(a.range, b.range)
        if r is None or not range_fits(r, x.dtype) or max_numel(dims) > 4096:
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
    if not range_fits(r, x.dtype):
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
    if not range_fits(r, t):
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
        if r is None or not range_fits(r, x.dtype):
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
        if r is None or not range_fits(r, x.dtype):
            return None
        excl = g.src.boolean(30)
        return one(call(op, x.expr, axis=axis, exclusive=excl), x.dims, x.dtype, r)

    return OpRule(op, ("float", "int"), build, min_rank=1)


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
    rules += shape_rules()
    rules += [_softmax("relax.nn.softmax"), _softmax("relax.nn.log_softmax")]
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
    return d is not None and d.infer is not None and op in IMPLEMENTATIONS


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

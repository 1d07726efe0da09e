"""Symbolic integers under bucketing: evaluation of shape expressions, physical bounds, bucket
policies.

A symbolic variable bound at a function boundary has a logical value (traced under bucketing) and a
physical size, its bucket. Any shape expression over such variables evaluates (:func:`eval_sym`) to a
:class:`~relax_jax.values.SymInt` whose ``phys`` is the expression evaluated at the buckets. That is an
upper bound of the logical value exactly when the expression is *monotone* (non-decreasing in every
variable, :func:`is_monotone`); otherwise ``phys`` is ``None`` and an array of that extent cannot be
laid out, which makes the function fall back to exact shapes.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from relax_ref.arith.analyzer import Analyzer
from relax_ref.arith.evaluate import eval_prim
from relax_ref.errors import RelaxRuntimeError, UnsupportedError
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir.functor import prim_vars_in, substitute_prim

from .dims import NotADimension, dims_equal, eval_dim, is_symbolic_dim, dim_value
from .prim_jax import PrimLowering, is_static
from .values import SymInt

# ---------------------------------------------------------------------------------------------------
# Bucket policies
# ---------------------------------------------------------------------------------------------------


class ShapeBuckets:
    """How symbolic sizes are rounded up to compiled sizes.

    * ``ShapeBuckets("pow2")`` (the default): the next power of two (0 and 1 stay themselves);
    * ``ShapeBuckets([8, 64, 512])``: the smallest listed size that fits; larger values use the next
      power of two;
    * ``ShapeBuckets(fn)``: ``fn(n) -> int >= n``;
    * ``ShapeBuckets(None)``: no bucketing (every distinct size compiles separately).
    """

    def __init__(self, policy: Union[str, Sequence[int], Callable[[int], int], None] = "pow2") -> None:
        if isinstance(policy, ShapeBuckets):
            policy = policy.policy
        if policy is False:
            policy = None
        if isinstance(policy, str) and policy != "pow2":
            raise UnsupportedError(f"unknown shape bucket policy {policy!r} (use 'pow2', a list of sizes, a "
                                   "function or None)")
        if isinstance(policy, (list, tuple)):
            sizes = sorted(int(s) for s in policy)
            if any(s < 0 for s in sizes):
                raise UnsupportedError("shape bucket sizes must be non-negative")
            policy = tuple(sizes)
        elif policy is not None and not isinstance(policy, str) and not callable(policy):
            raise UnsupportedError(f"shape_buckets must be 'pow2', a list of sizes, a function or None, got "
                                   f"{type(policy).__name__}")
        self.policy = policy

    @property
    def enabled(self) -> bool:
        return self.policy is not None

    def __call__(self, n: int) -> int:
        n = int(n)
        p = self.policy
        if p is None:
            return n
        if isinstance(p, tuple):
            for s in p:
                if s >= n:
                    return s
            return _pow2(n)
        if p == "pow2":
            return _pow2(n)
        b = int(p(n))
        if b < n:
            raise UnsupportedError(f"the shape bucket function returned {b} for size {n}; it must be >= n")
        return b

    def __repr__(self) -> str:
        return f"ShapeBuckets({self.policy!r})"


def reserve_rows(n: Any) -> Optional[int]:
    """``relax_jax.compile(reserve=n)``: the rows a growing value may reach (a variable that a
    function's result extends, ``v + c``, e.g. a cache grown by ``concat``, is bucketed to at least
    the bucket of ``n``, so a loop growing it up to ``n`` compiles once), or None."""
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise UnsupportedError(f"reserve must be a non-negative integer, got {n!r}")
    return int(n)


def _pow2(n: int) -> int:
    if n <= 1:
        return n
    return 1 << (n - 1).bit_length()


# ---------------------------------------------------------------------------------------------------
# Monotonicity
# ---------------------------------------------------------------------------------------------------


def _has_vars(e: P.PrimExpr) -> bool:
    return bool(prim_vars_in(e))


def _const_value(e: P.PrimExpr) -> Optional[int]:
    if isinstance(e, P.IntImm):
        return e.value
    return None


def is_monotone(e: P.PrimExpr) -> bool:
    """True when ``e`` is provably non-decreasing in every variable (all variables being
    non-negative sizes): sums, differences with variable-free subtrahends, products with
    non-negative constants or of subtraction-free monotone factors, floor/trunc division by a
    positive constant, min, max and integer casts of such expressions."""
    if isinstance(e, (P.IntImm, P.PrimVar)):
        return True
    if isinstance(e, P.Add):
        return is_monotone(e.a) and is_monotone(e.b)
    if isinstance(e, P.Sub):
        return is_monotone(e.a) and not _has_vars(e.b)
    if isinstance(e, P.Mul):
        ca, cb = _const_value(e.a), _const_value(e.b)
        if ca is not None:
            return ca >= 0 and is_monotone(e.b)
        if cb is not None:
            return cb >= 0 and is_monotone(e.a)
        return _subtraction_free(e.a) and _subtraction_free(e.b)
    if isinstance(e, (P.FloorDiv, P.Div)):
        c = _const_value(e.b)
        return c is not None and c > 0 and is_monotone(e.a)
    if isinstance(e, (P.Min, P.Max)):
        return is_monotone(e.a) and is_monotone(e.b)
    if isinstance(e, P.Cast):
        return _dt.is_integer(e.dtype) and _dt.is_integer(e.value.dtype) and is_monotone(e.value)
    return False


def _subtraction_free(e: P.PrimExpr) -> bool:
    if isinstance(e, (P.IntImm,)):
        return e.value >= 0
    if isinstance(e, P.PrimVar):
        return True
    if isinstance(e, (P.Add, P.Mul, P.Min, P.Max)):
        return _subtraction_free(e.a) and _subtraction_free(e.b)
    if isinstance(e, (P.FloorDiv, P.Div)):
        c = _const_value(e.b)
        return c is not None and c > 0 and _subtraction_free(e.a)
    if isinstance(e, P.Cast):
        return _dt.is_integer(e.dtype) and _subtraction_free(e.value)
    return False


def is_nonnegative(e: P.PrimExpr, size_vars) -> bool:
    """True when ``e`` is provably ``>= 0`` given that the variables whose ids are in ``size_vars`` are
    (extents of tensors and entries of shape values, VAL.SHAPE.1): built from those variables and
    non-negative constants by sums, products, min, max and floor/truncating division by positive
    constants (an overflow is checked where the expression is evaluated, RUNTIME.LIMIT.1)."""
    if isinstance(e, P.IntImm):
        return e.value >= 0
    if isinstance(e, P.PrimVar):
        return id(e) in size_vars
    if isinstance(e, (P.Add, P.Mul, P.Min, P.Max)):
        return is_nonnegative(e.a, size_vars) and is_nonnegative(e.b, size_vars)
    if isinstance(e, (P.FloorDiv, P.Div)):
        c = _const_value(e.b)
        return c is not None and c > 0 and is_nonnegative(e.a, size_vars)
    return False


# ---------------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------------

_LOWER = PrimLowering()


def eval_sym(e: P.PrimExpr, sym: Mapping[P.PrimVar, SymInt],
             check: Optional[Callable[..., None]] = None) -> SymInt:
    """The :class:`SymInt` of an integer expression. Raises RelaxRuntimeError naming the variable
    when one has no value."""
    t = type(e)
    if t is P.IntImm:                   # the common cases first: a constant extent, a variable
        return SymInt(int(e.value), int(e.value), e)
    if t is P.PrimVar:
        s = sym.get(e)
        if s is not None and not is_symbolic_dim(s.val):
            if s.is_static:
                return SymInt(int(s.val), int(s.val), s.expr)
            val = _LOWER.lower(e, {e: s.val})
            if not is_static(val):
                return SymInt(None if s.phys is None else int(s.phys), val, s.expr)
    fv = prim_vars_in(e)
    vals = {}
    for v in fv:
        s = sym.get(v)
        if s is None:
            raise RelaxRuntimeError(f"symbolic variable '{v.name}' has no value", symbol=v.name)
        vals[v] = s
    if all(s.is_static for s in vals.values()):
        if any(is_symbolic_dim(s.val) for s in vals.values()):
            return _eval_dims(e, vals)
        r = eval_prim(e, {v: s.val for v, s in vals.items()})
        r = int(r) if not isinstance(r, float) else r
        exprs = {v: s.expr for v, s in vals.items()}
        expr = substitute_prim(e, exprs) if exprs and all(x is not None for x in exprs.values()) else (
            e if not fv else None)
        return SymInt(r, r, expr) if isinstance(r, int) else SymInt(None, r, None)
    low = _lowering_for(check)
    val = low.lower(e, {v: s.val for v, s in vals.items()})
    phys = None
    if is_monotone(e) and all(s.phys is not None for s in vals.values()):
        try:
            phys = int(eval_prim(e, {v: s.phys for v, s in vals.items()}))
        except Exception:  # noqa: BLE001 - no physical bound (e.g. overflow); callers fall back
            phys = None
    exprs = {v: s.expr for v, s in vals.items()}
    expr = substitute_prim(e, exprs) if all(x is not None for x in exprs.values()) else None
    if is_static(val):
        return SymInt.static(int(val), expr)
    return SymInt(phys, val, expr)


def _eval_dims(e: P.PrimExpr, vals: Mapping[P.PrimVar, SymInt]) -> SymInt:
    """``e`` over ``jax.export`` dimension expressions (:mod:`relax_jax.dims`)."""
    try:
        r = eval_dim(e, {v: s.val for v, s in vals.items()})
    except NotADimension as err:
        raise UnsupportedError(f"under symbolic export: {err}") from None
    exprs = {v: s.expr for v, s in vals.items()}
    return SymInt.static(r, substitute_prim(e, exprs) if all(x is not None for x in exprs.values()) else None)


def upper_bound(s: SymInt, var_bounds: Mapping[P.PrimVar, int]) -> Optional[int]:
    """A static upper bound of ``s``: its value when static; else its expression over the entry
    function's variables evaluated at their bounds (``var_bounds``: under growth-aware buckets a
    variable ``v`` whose results reach ``v + c`` is at most ``bucket - c``) when the expression is
    monotone; else its physical bound ``phys`` (None when unknown)."""
    if s.is_static:
        return dim_value(s.val)
    e = s.expr
    if e is not None and var_bounds:
        fv = prim_vars_in(e)
        if fv and all(v in var_bounds for v in fv) and is_monotone(e):
            try:
                b = int(eval_prim(e, {v: var_bounds[v] for v in fv}))
            except Exception:  # noqa: BLE001 - no bound from the expression (e.g. overflow)
                b = None
            if b is not None:
                return b if s.phys is None else min(b, s.phys)
    return s.phys


def eval_value(e: P.PrimExpr, sym: Mapping[P.PrimVar, SymInt], check=None) -> Any:
    """The value of any scalar expression (ints, floats, bools): static or traced."""
    fv = prim_vars_in(e)
    for v in fv:
        if v not in sym:
            raise RelaxRuntimeError(f"symbolic variable '{v.name}' has no value", symbol=v.name)
    if all(sym[v].is_static for v in fv):
        if any(is_symbolic_dim(sym[v].val) for v in fv):
            return _eval_dims(e, sym).val
        return eval_prim(e, {v: sym[v].val for v in fv})
    low = _lowering_for(check)
    return low.lower(e, {v: sym[v].val for v in fv})


def _lowering_for(check) -> PrimLowering:
    """``check(bad, make, mask)`` is an error sink's check; the lowering's hook takes
    ``(bad, mask, make)``."""
    if check is None:
        return _LOWER
    return PrimLowering(check=lambda bad, mask, make: check(bad, make, mask))


def host_value_fn(e: Any, sym_vars: Sequence[P.PrimVar]) -> Callable[[Sequence[int]], int]:
    """A function giving the host value of ``e`` (an int, or an integer expression over ``sym_vars``)
    from the symbolic values in ``sym_vars``' order: a fill delta, a view's requested rows. The common
    shapes are inline (a constant, a variable, a variable plus or minus a constant)."""
    if isinstance(e, (int, np.integer)):
        return lambda vals, c=int(e): c
    if isinstance(e, P.IntImm):
        return lambda vals, c=int(e.value): c
    pos = {v: i for i, v in enumerate(sym_vars)}
    if isinstance(e, P.PrimVar) and e in pos:
        i = pos[e]
        return lambda vals: vals[i]
    if isinstance(e, (P.Add, P.Sub)) and isinstance(e.a, P.PrimVar) and e.a in pos and isinstance(e.b, P.IntImm):
        i, c = pos[e.a], int(e.b.value) if isinstance(e, P.Add) else -int(e.b.value)
        return lambda vals: vals[i] + c

    def general(vals, e=e):
        return int(eval_prim(e, dict(zip(sym_vars, vals))))
    return general


_ANALYZER = Analyzer()


def provably_equal(a: SymInt, b: SymInt) -> Optional[bool]:
    """True/False when decidable without running, None when it depends on traced values."""
    if a.is_static and b.is_static:
        return dims_equal(a.val, b.val)
    if a.val is b.val:
        return True
    if a.expr is not None and b.expr is not None:
        try:
            if _ANALYZER.can_prove_equal(a.expr, b.expr):
                return True
        except Exception:  # noqa: BLE001 - the prover gives up: decide at run time
            return None
    return None


__all__ = ["ShapeBuckets", "is_monotone", "eval_sym", "eval_value", "provably_equal", "host_value_fn"]

"""Symbolic dimensions of ``jax.export`` (shape polymorphism) inside the executor.

Under :func:`relax_jax.export.export_function` the arguments' shapes hold *dimension expressions*
(``jax.export.symbolic_shape``): sizes known while tracing as expressions over dimension variables,
not as integers. The executor treats such a size as static (:class:`~relax_jax.values.SymInt` with the
expression as its value and its physical extent), so arrays are laid out at exactly that size, and
evaluates Relax shape expressions over them here: ``+ - *``, floor division and modulo (the same floor
semantics as TIR's ``floordiv``/``floormod``), ``min``/``max`` and integer casts. Anything else (a
comparison, a truncating division, a value read from data) has no dimension expression and raises
:class:`NotADimension`, which export reports as unsupported.

Dimension variables are at least 1 (``jax.export``'s assumption); a comparison JAX cannot decide
for every value of the variables is undecided (:func:`dims_equal` returns None) rather than false.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from jax.export import is_symbolic_dim as _jax_is_symbolic_dim

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P


class NotADimension(Exception):
    """A scalar expression over symbolic dimensions that is not itself a dimension expression."""


def is_symbolic_dim(v: Any) -> bool:
    """True for a ``jax.export`` dimension expression (never for a plain int)."""
    return not isinstance(v, int) and _jax_is_symbolic_dim(v)


def dim_value(v: Any) -> Any:
    """A size or integer known while tracing as itself: ``int(v)``, except that a dimension
    expression stays one (the executor writes ``dim_value(d.val)`` where it needs a static size)."""
    return v if is_symbolic_dim(v) else int(v)


def dims_differ(a: Any, b: Any) -> bool:
    """``a != b`` for ints; for dimension expressions, True only when they differ for every value of
    the dimension variables (JAX's ``!=`` is true whenever it cannot prove equality)."""
    if not is_symbolic_dim(a) and not is_symbolic_dim(b):
        return a != b
    return dims_equal(a, b) is False


def _binary(e: P.BinaryOp, a: Any, b: Any) -> Any:
    t = type(e)
    if t is P.Add:
        return a + b
    if t is P.Sub:
        return a - b
    if t is P.Mul:
        return a * b
    if t in (P.FloorDiv, P.FloorMod):
        if is_symbolic_dim(b) or not isinstance(b, int) or b <= 0:
            raise NotADimension(f"{type(e).__name__} by {b} is not a dimension expression (a positive "
                                "constant divisor is)")
        return a // b if t is P.FloorDiv else a % b
    if t in (P.Min, P.Max):
        from jax import core

        return core.min_dim(a, b) if t is P.Min else core.max_dim(a, b)
    raise NotADimension(f"{type(e).__name__} of symbolic dimensions is not a dimension expression")


def eval_dim(e: P.PrimExpr, env: Mapping[P.PrimVar, Any]) -> Any:
    """The value of the integer expression ``e`` when the variables of ``env`` hold ints or
    dimension expressions: an int or a dimension expression. Raises :class:`NotADimension`."""
    t = type(e)
    if t is P.IntImm and e.dtype != "bool":
        return e.value
    if t is P.PrimVar:
        return env[e]
    if isinstance(e, P.BinaryOp) and not isinstance(e, P.CmpOp) and _dt.is_integer(e.dtype):
        return _binary(e, eval_dim(e.a, env), eval_dim(e.b, env))
    if t is P.Cast and _dt.is_integer(e.dtype) and _dt.is_integer(e.value.dtype):
        return eval_dim(e.value, env)
    raise NotADimension(f"'{P.to_str(e)}' is not a dimension expression of jax.export")


def dims_equal(a: Any, b: Any) -> Optional[bool]:
    """Whether two sizes (ints or dimension expressions) are equal for every value of the dimension
    variables: True, False, or None when JAX cannot decide."""
    if not is_symbolic_dim(a) and not is_symbolic_dim(b):
        return int(a) == int(b)
    diff = a - b
    if not is_symbolic_dim(diff):
        return int(diff) == 0
    try:
        if diff >= 1 or diff <= -1:
            return False
    except Exception:  # noqa: BLE001 - jax's InconclusiveDimensionOperation: undecided
        return None
    return None


__all__ = ["NotADimension", "is_symbolic_dim", "dim_value", "dims_differ", "eval_dim", "dims_equal"]

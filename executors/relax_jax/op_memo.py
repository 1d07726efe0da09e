"""Repeated operator calls of one trace, lowered once.

A model's layers often recompute the same value from the same inputs: every attention layer of the
Llama example builds its rotary table (``arange``, ``multiply``, ``exp``, ``expand_dims``, ``concat``,
``cos``, ``sin``, ``reshape``) from the same positions, 12 operator calls per layer. While tracing, a
call of a pure operator whose arguments are the same values as an earlier call's of the same
operator (the same traced arrays, the same static or symbolic sizes) with the same attributes and
argument struct info (:func:`_static_key`) has that earlier call's result: the walker gives it a fresh
box of the same array instead of lowering the operator again (fewer equations to trace and lower,
one check site where the two calls would emit the same one first). Values are unchanged: an
operator's lowering is a function of its arguments, attributes and struct info, and it runs once
where it ran twice on the same inputs (EVAL.CALL.1, CALL.OP.1: an operator's semantics is
applied to the argument values, the attributes and ``sinfo_args``; the operators memoized have no
effect besides their result).

Only the operators of :data:`MEMO_OPS` (no packed calls, no in-place or memory operators, no views
that share storage) at the top level of a trace (never inside traced control flow, whose values
may not leave the branch), on arguments that are plain tensor boxes (``TVal``, no storage view),
prim values, shapes, strings, data types or tuples of them; results that are plain tensor boxes or
tuples of them.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import jax
import numpy as np

from relax_ref import values as rv
from relax_ref.ir import expr as rx

from .values import PrimV, ShapeV, SymInt, TVal

#: pure tensor operators whose lowering is a function of its arguments, attributes and struct info
MEMO_OPS = frozenset({
    "relax.arange", "relax.multiply", "relax.add", "relax.subtract", "relax.divide", "relax.exp",
    "relax.cos", "relax.sin", "relax.negative", "relax.expand_dims", "relax.reshape", "relax.concat",
    "relax.astype", "relax.broadcast_to", "relax.permute_dims", "relax.squeeze", "relax.full",
    "relax.zeros", "relax.ones", "relax.tril", "relax.triu", "relax.less", "relax.less_equal",
    "relax.greater", "relax.greater_equal", "relax.equal", "relax.not_equal", "relax.where",
})

_NO = object()
#: constants of at most this many elements are keyed by value
_SMALL = 64


def _sym_key(d: SymInt, keep: list) -> Any:
    """A size: static by its value, traced by the identity of its traced value (with its bound and
    its expression over the entry's symbolic variables)."""
    if type(d.val) is int:
        return d.val
    keep.append(d.val)
    return ("sym", id(d.val), d.phys, d.expr)


def _arg_key(a: Any, keep: list) -> Any:
    """A hashable key of an argument value that equals another's only for the same value; ``_NO``
    for a value this memo does not key."""
    t = type(a)
    if t is TVal:
        if a.view is not None:
            return _NO
        if a.valid is None and not isinstance(a.data, jax.core.Tracer) and np.size(a.data) <= _SMALL:
            c = np.asarray(a.data)      # a small array known while tracing: by its value
            return ("c", str(c.dtype), c.shape, c.tobytes())
        keep.append(a.data)
        valid = None if a.valid is None else tuple(None if v is None else _sym_key(v, keep) for v in a.valid)
        return ("t", id(a.data), valid)
    if t is PrimV:
        v = a.val
        if type(v) in (int, float, bool):
            return ("p", a.dtype, type(v), v, None if a.sym is None else _sym_key(a.sym, keep))
        keep.append(v)                  # a traced scalar (a symbolic size under bucketing): by identity
        return ("pv", a.dtype, id(v))
    if t is ShapeV:
        return ("s",) + tuple(_sym_key(d, keep) for d in a)
    if t is tuple:
        parts = tuple(_arg_key(x, keep) for x in a)
        return _NO if any(p is _NO for p in parts) else ("tuple",) + parts
    if t is str or t is rv.DTypeValue:
        try:
            hash(a)
        except TypeError:
            return _NO
        return (t, a)
    return _NO


def _expr_key(a: Any) -> Any:
    if isinstance(a, (rx.Var, rx.Constant)):
        return (0, a.struct_info)
    if isinstance(a, (rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm)):
        return (type(a), a)
    if isinstance(a, rx.Tuple):
        return (rx.Tuple,) + tuple(_expr_key(f) for f in a.fields)
    return _NO


def _tagged(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_tagged(x) for x in v)
    return (type(v), v)


def _static_key(call: Any) -> Any:
    """What the call's lowering reads besides its argument values: the operator, its attributes
    (tagged with their types: ``1`` and ``1.0`` differ), ``sinfo_args`` and each argument's struct
    info (a shape, prim value, string or dtype argument by its value); None when unhashable."""
    parts = tuple(_expr_key(a) for a in call.args)
    if any(p is _NO or (type(p) is tuple and _NO in p) for p in parts):
        return None
    key = (call.op.name, _tagged(tuple(call.attrs.items())), parts, tuple(call.sinfo_args))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _const_key(e: Any) -> Any:
    """A small Relax constant by its value (its array is made anew at each evaluation)."""
    c = np.asarray(e.data)
    if c.size > _SMALL:
        return _NO
    return ("c", str(c.dtype), c.shape, c.tobytes())


def _fresh(r: Any) -> Any:
    """A new box of each array of ``r`` (a memoized result must not alias a box another binding
    holds: an in-place call may rebind one box's array)."""
    if type(r) is TVal:
        return TVal(r.data, r.valid, r.level)
    return tuple(_fresh(x) for x in r)


def _memoizable(r: Any) -> bool:
    if type(r) is TVal:
        return r.view is None and r.level == 0
    return type(r) is tuple and all(_memoizable(x) for x in r)


class OpMemo:
    """The memo of one traced walk: ``key(...)`` for a call, ``get``/``put`` of its result."""

    def __init__(self) -> None:
        self._d: Dict[Any, Tuple[Any, list]] = {}

    def key(self, call: Any, args: list, frame: Any, plain: bool) -> Optional[Tuple[Any, list]]:
        """``(key, keep)`` of an operator call (``keep``: the objects whose identities the key uses,
        held by the memo so that they are not reused), or None when the call is not memoized."""
        if call.op.name not in MEMO_OPS:
            return None
        keep: list = [frame]
        parts = tuple(_const_key(e) if isinstance(e, rx.Constant) else _arg_key(a, keep)
                      for e, a in zip(call.args, args))
        if any(p is _NO for p in parts):
            return None
        ik = _static_key(call)
        if ik is None:
            return None
        return (ik, parts, id(frame), plain), keep

    def get(self, key: Any) -> Any:
        hit = self._d.get(key)
        return None if hit is None else _fresh(hit[0])

    def put(self, key: Any, keep: list, result: Any) -> None:
        if _memoizable(result):
            self._d[key] = (result, keep)

    def shared(self, key: Any, keep: list, make: Any) -> Any:
        """A traced value that a lowering builds from sizes alone (an attention's masks), made once per
        trace for ``key`` (whose identities ``keep`` holds); the caller's walker is at the top level."""
        hit = self._d.get(("shared", key))
        if hit is None:
            hit = self._d[("shared", key)] = (make(), keep)
        return hit[0]


__all__ = ["MEMO_OPS", "OpMemo"]

"""Which parameters of a function an in-place call consumes (CALL.INPLACE.6).

A parameter ``p`` of a function is *consumed* when

1. a binding of the function's top-level blocks passes ``p`` (or a variable bound to it) as an in-place
   argument of ``R.call_tir_inplace`` (an input named by ``inplace_indices``) or of
   ``R.call_inplace_packed`` (an argument named by ``inplace_indices``);
2. neither ``p`` nor a variable bound to it (or to an in-place result on it) before the last such call
   is used after that call, by a later binding or the function's result (the last-use table of
   KillAfterLastUse, :func:`relax_ref.transform.lower_memory.last_uses`), and no function literal
   captures one: after its last in-place call the program reads the tensor only through the call's
   result;
3. the function's result holds the mutated tensor: it is the result of the last in-place call on ``p``
   (followed through variable bindings, further in-place calls, tuple literals and ``TupleGetItem``), so
   the caller receives the new contents without reading ``p``.

An executor whose values are immutable buffers (XLA) may then compute the result in ``p``'s buffer
(buffer donation) instead of copying it first; the caller's handle of ``p`` is consumed.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, FrozenSet, Optional, Set, Tuple

from ..ir import expr as rx
from .lower_memory import last_uses
from .utils import op_name

_INPLACE_OPS = ("relax.call_tir_inplace", "relax.call_inplace_packed")
_UNUSED = object()


def _indices(call: rx.Call) -> Tuple[int, ...]:
    idx = call.attrs.get("inplace_indices")
    if isinstance(idx, int):
        return (idx,)
    return tuple(int(i) for i in (idx or ()))


def _inplace_args(call: rx.Call) -> Tuple[Tuple[int, rx.Expr], ...]:
    """``(output index, argument)`` of each in-place argument of an in-place call."""
    name = op_name(call)
    if name == "relax.call_tir_inplace":
        args = call.args[1].fields if isinstance(call.args[1], rx.Tuple) else ()
    elif name == "relax.call_inplace_packed":
        args = call.args[1:]
    else:
        return ()
    out = []
    for j, i in enumerate(_indices(call)):
        if 0 <= i < len(args):
            out.append((j, args[i]))
    return tuple(out)


def _captured(func: rx.Function) -> Set[rx.Var]:
    """Variables that a function literal nested in ``func`` uses."""
    from ..analysis.free_vars import free_vars
    from ..ir.functor import ExprVisitor

    seen: Set[rx.Var] = set()

    class _F(ExprVisitor):
        def visit_Function(self, f):
            if f is not func:
                seen.update(free_vars(f))
                return
            self.generic_visit_expr(f)

    _F().visit_expr(func)
    return seen


def consumed_params(func: rx.Function, among: Optional[AbstractSet[int]] = None) -> FrozenSet[int]:
    """The indices of the parameters of ``func`` that its in-place calls consume (module docstring);
    with ``among``, only those of the parameters at these indices (a caller that can act on some
    parameters only -- an executor donating tensors, not objects -- skips a scan of the function for
    each other one)."""
    if not isinstance(func, rx.Function) or not isinstance(func.body, rx.SeqExpr):
        return frozenset()
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    candidates = _reaching_inplace(func.params, bindings)
    if among is not None:
        candidates = {p for k, p in enumerate(func.params) if k in among and p in candidates}
    if not candidates:
        return frozenset()
    last = last_uses(func)
    captured = _captured(func)
    out = set()
    for k, p in enumerate(func.params):
        if p in candidates and _consumed(p, bindings, func.body.body, last, captured):
            out.add(k)
    return frozenset(out)


def _reaching_inplace(params, bindings) -> Set[rx.Var]:
    """The parameters that may reach an in-place argument (condition 1), in one pass: each variable
    bound to a parameter, a tuple holding one or a field of such a tuple, or an in-place call on one
    may hold those parameters (a superset of :func:`_consumed`'s holders, which follows the exact
    fields and outputs). The other parameters (a model's weights) cannot be consumed."""
    may: Dict[rx.Var, FrozenSet[rx.Var]] = {p: frozenset((p,)) for p in params}
    reach: Set[rx.Var] = set()
    none: FrozenSet[rx.Var] = frozenset()
    for b in bindings:
        v = b.value
        if isinstance(v, rx.Var):
            held = may.get(v, none)
        elif isinstance(v, rx.TupleGetItem):
            held = may.get(v.tuple_value, none) if isinstance(v.tuple_value, rx.Var) else none
        elif isinstance(v, rx.Tuple):
            held = none.union(*(may.get(f, none) for f in v.fields if isinstance(f, rx.Var)))
        elif isinstance(v, rx.Call) and op_name(v) in _INPLACE_OPS:
            held = none.union(*(may.get(a, none) for _, a in _inplace_args(v) if isinstance(a, rx.Var)))
            reach |= held
        else:
            continue
        if held:
            may[b.var] = held
    return reach


def _consumed(p: rx.Var, bindings, result: rx.Expr, last: Dict[rx.Var, Optional[rx.Var]], captured) -> bool:
    holders = {p}                          # variables holding the tensor (aliases of p's buffer)
    tuples: Dict[rx.Var, Set[int]] = {}    # tuple variables and the fields that hold it
    consumers = []                         # the binding variables of the in-place calls on it
    for b in bindings:
        v = b.value
        if isinstance(v, rx.Var) and v in holders:
            holders.add(b.var)
        elif isinstance(v, rx.Var) and v in tuples:
            tuples[b.var] = tuples[v]
        elif isinstance(v, rx.TupleGetItem) and isinstance(v.tuple_value, rx.Var) and \
                v.index in tuples.get(v.tuple_value, ()):
            holders.add(b.var)
        elif isinstance(v, rx.Tuple):
            fields = {i for i, f in enumerate(v.fields) if isinstance(f, rx.Var) and f in holders}
            if fields:
                tuples[b.var] = fields
        elif isinstance(v, rx.Call) and op_name(v) in _INPLACE_OPS:
            outs = {j for j, a in _inplace_args(v) if isinstance(a, rx.Var) and a in holders}
            if not outs:
                continue
            consumers.append(b.var)
            if len(_indices(v)) == 1:
                holders.add(b.var)
            else:
                tuples[b.var] = outs
    if not consumers or (holders | set(tuples)) & captured:
        return False
    final = consumers[-1]
    order = {b.var: i for i, b in enumerate(bindings)}
    # (2) a holder bound before the last in-place call is last used at or before it (never in the result)
    for h in holders | set(tuples):
        if h is p or order.get(h, -1) < order[final]:
            use = last.get(h, _UNUSED)
            if use is _UNUSED:
                continue
            if use is None or use not in order or order[use] > order[final]:
                return False
    # (3) the result holds the tensor
    return _holds(result, holders, tuples)


def _holds(e: rx.Expr, holders, tuples) -> bool:
    if isinstance(e, rx.Var):
        return e in holders or e in tuples
    if isinstance(e, rx.Tuple):
        return any(_holds(f, holders, tuples) for f in e.fields)
    return False


__all__ = ["consumed_params"]

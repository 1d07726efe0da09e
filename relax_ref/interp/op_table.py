"""The reference interpreter's operator implementations, keyed by operator name (CALL.OP.1), and
:func:`apply`, how the interpreter runs an operator: its ``check``, then its implementation.

Built once, when this module is imported: the registry's reference semantics (``OpDef.reference``),
and for the core operators whose semantics call back into the evaluator (``call_tir`` and its family,
closures, printing, allocation) the interpreter's own (:data:`relax_ref.interp.core_ops.CORE`). An
operator missing here has no reference implementation; evaluating a call to it raises
UnsupportedError.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Dict, Mapping, Sequence, Tuple

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ops import registry
from ..ops.args import ValueArgs
from ..ops.opdef import OpDef
from .core_ops import CORE


def _table() -> Dict[str, Callable[..., Any]]:
    out = {d.name: d.reference for d in registry.all_ops() if d.reference is not None}
    out.update({name: fn for name, fn in CORE.items() if registry.lookup(name) is not None})
    return out


#: operator name -> ``fn(args, attrs, call, ctx)`` (``ctx``: :class:`~relax_ref.interp.relax.EvalContext`)
IMPLEMENTATIONS: Mapping[str, Callable[..., Any]] = MappingProxyType(_table())

def resolve(call: rx.Call) -> Tuple[OpDef, Callable[..., Any]]:
    """The registry entry of operator ``call.op`` and its implementation here; UnsupportedError for an
    unknown operator or one without reference semantics (CALL.OP.1)."""
    name = call.op.name
    opdef = registry.lookup(name)
    if opdef is None:
        raise UnsupportedError(f"unknown operator '{name}'", call.span)
    impl = IMPLEMENTATIONS.get(name)
    if impl is None:
        raise UnsupportedError(
            f"operator '{name}' has no reference implementation; relax-ref cannot evaluate it", call.span)
    return opdef, impl


def apply(call: rx.Call, args: Sequence[Any], ctx: Any = None) -> Any:
    """Run operator ``call.op`` on the evaluated ``args``: the registry entry's ``check``
    (OP.<op>.C<n>), then this table's implementation. ``ctx`` is the interpreter's
    :class:`~relax_ref.interp.relax.EvalContext` (operators whose semantics call back into the
    evaluator need it; the others accept ``None``)."""
    opdef, impl = resolve(call)
    return run(opdef, impl, call, args, ctx)


def run(opdef: OpDef, impl: Callable[..., Any], call: rx.Call, args: Sequence[Any], ctx: Any = None) -> Any:
    """:func:`apply` with the entry and implementation already resolved (:func:`resolve`)."""
    if opdef.check is not None:
        opdef.check(ValueArgs(call, args, getattr(getattr(ctx, "interp", None), "limits", None)))
    return impl(args, call.attrs, call, ctx)


__all__ = ["IMPLEMENTATIONS", "resolve", "apply", "run"]

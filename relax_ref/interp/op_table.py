"""The reference interpreter's operator implementations, keyed by operator name (CALL.OP.1).

Built once, when this module is imported: the registry's reference semantics (``OpDef.reference``),
and for the core operators whose semantics call back into the evaluator (``call_tir`` and its family,
closures, printing, allocation) the interpreter's own (:data:`relax_ref.interp.core_ops.CORE`). An
operator missing here has no reference implementation; evaluating a call to it raises
UnsupportedError.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Dict, Mapping

from ..ops import registry
from .core_ops import CORE


def _table() -> Dict[str, Callable[..., Any]]:
    out = {d.name: d.reference for d in registry.all_ops() if d.reference is not None}
    out.update({name: fn for name, fn in CORE.items() if registry.lookup(name) is not None})
    return out


#: operator name -> ``fn(args, attrs, call, ctx)`` (``ctx``: :class:`~relax_ref.interp.relax.EvalContext`)
IMPLEMENTATIONS: Mapping[str, Callable[..., Any]] = MappingProxyType(_table())

__all__ = ["IMPLEMENTATIONS"]

"""The table of TVMScript constructs the evaluator calls, and the arguments of such a call.

:data:`HANDLERS` maps a canonical dotted name (``R.Tensor``, ``T.Buffer``, ``I.vdevice``) to the function
that evaluates a call of it; the builtin modules (``relax_builtins``, ``tir_builtins``, ``prim_builtins``,
``module``) fill it when they are imported, and the evaluator (:mod:`.evaluator`) dispatches through it.
:func:`check_attr_value` checks the value of an attribute given as a keyword argument.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ...ir import expr as rx
from ...ir import prim_expr as P
from . import prim

if TYPE_CHECKING:
    from .evaluator import Evaluator

#: canonical dotted name -> handler(evaluator, CallInfo) -> value
HANDLERS: Dict[str, Callable[["Evaluator", "CallInfo"], Any]] = {}

#: constructs that are statements, with the message given when one is used as a value
STATEMENT_ONLY: Dict[str, str] = {}


@dataclass
class CallInfo:
    """A call with evaluated arguments; ``arg_nodes[i]`` is the node of ``args[i]``."""

    node: ast.Call
    path: str
    args: List[Any]
    kwargs: Dict[str, Any]
    arg_nodes: List[ast.AST]
    kw_nodes: Dict[str, ast.AST] = field(default_factory=dict)

    def node_of(self, index_or_name) -> ast.AST:
        if isinstance(index_or_name, int):
            if 0 <= index_or_name < len(self.arg_nodes):
                return self.arg_nodes[index_or_name]
            return self.node
        return self.kw_nodes.get(index_or_name, self.node)


def bind_params(ev: "Evaluator", info: CallInfo, params: Tuple[Tuple[str, Any], ...], *,
                varargs: Optional[str] = None, varkw: bool = False) -> Dict[str, Any]:
    """Bind a builtin call's arguments to ``params`` = ((name, default), ...); ``REQUIRED`` marks a
    required one. ``varargs`` names a parameter collecting extra positionals (it is not in ``params``).
    ParseErrors name the construct and give its location (TEXT.2)."""
    out: Dict[str, Any] = {}
    names = [p for p, _ in params]
    pos = list(info.args)
    if len(pos) > len(params) and varargs is None:
        raise ev.error(info.node, f"{info.path} takes at most {len(params)} positional argument"
                                  f"{'s' if len(params) != 1 else ''}, got {len(pos)}")
    for (name, _), v in zip(params, pos):
        out[name] = v
    if varargs is not None:
        out[varargs] = tuple(pos[len(params):])
    extra = {}
    for k, v in info.kwargs.items():
        if k not in names:
            if varkw:
                extra[k] = v
                continue
            raise ev.error(info.kw_nodes.get(k, info.node),
                           f"{info.path} got an unexpected keyword argument '{k}'")
        if k in out:
            raise ev.error(info.kw_nodes.get(k, info.node),
                           f"{info.path} got multiple values for argument '{k}'")
        out[k] = v
    for name, default in params:
        if name not in out:
            if default is REQUIRED:
                raise ev.error(info.node, f"{info.path} missing required argument '{name}'")
            out[name] = default
    if varkw:
        out["**"] = extra
    return out


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


def check_attr_value(ev: Evaluator, v: Any, node: ast.AST) -> Any:
    """Attribute values are literals (numbers, strings, bools, None), scalar expressions, or lists and
    dicts of them (TEXT.FUNC.3)."""
    if v is None or isinstance(v, (bool, int, float, str, P.PrimExpr)):
        return v
    if isinstance(v, (tuple, list)):
        return tuple(check_attr_value(ev, x, node) for x in v)
    if isinstance(v, dict):
        return {str(k) if not isinstance(k, P.PrimVar) else k: check_attr_value(ev, x, node) for k, x in v.items()}
    if isinstance(v, (rx.StringImm,)):
        return v.value
    raise ev.error(node, f"unsupported attribute value: {prim.describe(v)}")


__all__ = ["HANDLERS", "STATEMENT_ONLY", "CallInfo", "bind_params", "REQUIRED", "check_attr_value"]

"""The kind and the options of a decorated function: ``@R.function(pure=..., private=...)`` or
``@T.prim_func(private=..., s_tir=...)`` (TEXT.MOD.2), read by the module parser and by local Relax
functions."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .values import FunctionOptions

if TYPE_CHECKING:
    from .evaluator import Evaluator
    from .module import ParseContext


def bool_option(ev: Evaluator, kw: ast.keyword, what: str) -> bool:
    if not isinstance(kw.value, ast.Constant) or not isinstance(kw.value.value, bool):
        raise ev.error(kw.value, f"{what}: the option '{kw.arg}' must be True or False")
    return kw.value.value


_OPTIONS = {"R.function": ("relax", ("pure", "private", "check_well_formed")),
            "T.prim_func": ("tir", ("private", "s_tir", "check_well_formed"))}


def function_options(ctx: ParseContext, ev: Evaluator, node: ast.FunctionDef) -> FunctionOptions:
    """The kind and options of a decorated function (TEXT.MOD.2)."""
    if len(node.decorator_list) != 1:
        raise ev.error(node, f"function '{node.name}' needs exactly one decorator, @R.function or @T.prim_func")
    dec = node.decorator_list[0]
    call = dec if isinstance(dec, ast.Call) else None
    path = ev.eval_ref(call.func if call is not None else dec)
    if path not in _OPTIONS:
        raise ev.error(dec, f"unsupported decorator on '{node.name}' (expected @R.function or @T.prim_func)")
    kind, allowed = _OPTIONS[path]
    opts = FunctionOptions(kind)
    if call is not None:
        if call.args:
            raise ev.error(call.args[0], f"@{path} takes only keyword options")
        for kw in call.keywords:
            if kw.arg == "normalize" and ctx.decorator_options:
                bool_option(ev, kw, f"@{path}")
                continue
            if kw.arg not in allowed:
                raise ev.error(kw.value if kw.arg is None else kw, f"@{path} got an unexpected option "
                                                                   f"'{kw.arg}'")
            setattr(opts, kw.arg, bool_option(ev, kw, f"@{path}"))
    return opts


__all__ = ["bool_option", "function_options"]

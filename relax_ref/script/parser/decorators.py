"""Support for the Python decorators ``@I.ir_module``, ``@R.function`` and ``@T.prim_func``
(``from relax_ref.script import ir as I, relax as R, tir as T``; TEXT.1).

A decorated class or function is never run as TVMScript: its source text is fetched with
:func:`inspect.getsource`, dedented, and parsed by the text parser with positions mapped back to the
real file. Python still evaluates what it always evaluates at definition time -- decorator calls,
parameter annotations (without ``from __future__ import annotations``) and class-body statements
such as ``I.module_attrs({...})`` -- so every name of the three namespaces is an inert
:class:`Marker` that records nothing and does nothing.

Names of the decorated function's module that refer to the namespace modules (``import ... as rx``)
become aliases, and module-level ``n = T.int64()`` markers become symbolic variable declarations.
The decorators accept one option the text parser does not: ``normalize=False`` returns raw IR.
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
import types
from typing import Any, Dict, Optional

from ...errors import ParseError
from .source import Source


class Marker:
    """An inert stand-in for a TVMScript construct in positions Python evaluates."""

    __slots__ = ("_path", "_args", "_kwargs")

    def __init__(self, path: str, args: tuple = (), kwargs: Optional[dict] = None) -> None:
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_args", args)
        object.__setattr__(self, "_kwargs", dict(kwargs or {}))

    def __call__(self, *args, **kwargs) -> "Marker":
        return Marker(self._path, args, kwargs)

    def __getitem__(self, item) -> "Marker":
        return Marker(self._path + "[]", (item,))

    def __getattr__(self, name: str) -> "Marker":
        if name.startswith("_"):
            raise AttributeError(name)
        return Marker(f"{self._path}.{name}")

    def __setattr__(self, name, value):
        raise AttributeError("TVMScript markers are immutable")

    def __repr__(self) -> str:
        return f"<TVMScript {self._path}>"

    @property
    def script_path(self) -> str:
        return self._path

    @property
    def is_declaration(self) -> bool:
        """``T.int64()`` (no arguments) at module level: a symbolic variable declaration."""
        return self._path.startswith("T.") and not self._args and not self._kwargs


#: the namespace modules (``relax_ref.script.ir`` / ``.relax`` / ``.tir``) and the root each stands for
_NAMESPACES = {f"{__name__.rsplit('.', 2)[0]}.{name}": root for name, root in (("ir", "I"), ("relax", "R"),
                                                                                ("tir", "T"))}


def _namespace_roots(globals_: Dict[str, Any]) -> Dict[str, str]:
    roots = {}
    for name, value in list(globals_.items()):
        if isinstance(value, types.ModuleType) and value.__name__ in _NAMESPACES:
            roots[name] = _NAMESPACES[value.__name__]
    return roots


def _global_decls(globals_: Dict[str, Any]) -> Dict[str, str]:
    from .prim import DTYPE_CTORS

    out = {}
    for name, value in list(globals_.items()):
        if isinstance(value, Marker) and value.is_declaration and value.script_path[2:] in DTYPE_CTORS:
            out[name] = DTYPE_CTORS[value.script_path[2:]]
    return out


def defined_in_class(obj: Any) -> bool:
    """True for a function defined in a class body (its decorator must leave it to ``@I.ir_module``)."""
    parts = getattr(obj, "__qualname__", "").split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


def source_of(obj: Any) -> Source:
    """The dedented source of a class or function, with positions in its file."""
    try:
        lines, start = inspect.getsourcelines(obj)
        file = inspect.getsourcefile(obj) or "<unknown>"
    except (OSError, TypeError) as e:
        raise ParseError(f"cannot read the source of {getattr(obj, '__qualname__', obj)!r}: {e}") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    first_raw = next((l for l in lines if l.strip()), "")
    first_new = next((l for l in text.splitlines(True) if l.strip()), "")
    col = len(first_raw) - len(first_raw.lstrip()) - (len(first_new) - len(first_new.lstrip()))
    full = "".join(linecache.getlines(file)) or None
    return Source(text, file, max(start - 1, 0), col, full)


def function_decorator(f: Any, normalize: bool) -> Any:
    """``@R.function`` / ``@T.prim_func`` with or without options: parse the decorated function,
    or leave it to its ``@I.ir_module`` class (TEXT.1); ``f`` is None when options were given."""

    def wrap(fn):
        if defined_in_class(fn):
            return fn
        return decorate(fn, normalize=normalize, want_function=True)

    return wrap(f) if f is not None else wrap


def decorate(obj: Any, *, normalize: bool, want_function: bool):
    """Parse a decorated class (-> IRModule) or function (-> Function / PrimFunc)."""
    from . import parse_snippet

    src = source_of(obj)
    globals_ = getattr(obj, "__globals__", None)
    if globals_ is None:
        mod = inspect.getmodule(obj)
        globals_ = vars(mod) if isinstance(mod, types.ModuleType) else {}
    res = parse_snippet(src, extra_aliases=_namespace_roots(globals_), global_decls=_global_decls(globals_),
                        normalize=normalize, check_well_formed=True, decorator_options=True)
    if want_function:
        return res.module[res.function_names[0]]
    return res.module


__all__ = ["Marker", "defined_in_class", "source_of", "decorate"]

"""Scoped, collision-free names for printed variables (spec rule TEXT.NAME.1).

Like TVM's printer, a variable is printed under its name hint, with characters other than
letters, digits and ``_`` replaced by ``_``; when a *live* definition already uses that name, the
first free ``name_1``, ``name_2``, ... is taken. Names are released when the scope that defined them
ends, so sibling scopes (two functions, two If branches, two loops) reuse names. Names that would
shadow the printer's own vocabulary (``R``, ``T``, ``I``, ``cls``, ``metadata``, Python keywords,
``range``, ``float``) are never handed out.
"""

from __future__ import annotations

import keyword
from typing import Dict, List, Optional

RESERVED = frozenset({"R", "T", "I", "cls", "metadata", "range", "float", "tvm", "Module"}) | frozenset(
    keyword.kwlist) | frozenset(getattr(keyword, "softkwlist", ()))


def sanitize(hint: str, default: str = "v") -> str:
    """Replace characters that cannot appear in a Python identifier."""
    name = "".join(c if (c == "_" or c.isalnum()) and c.isascii() else "_" for c in (hint or ""))
    if not name:
        name = default
    if name[0].isdigit():
        name = default + "_" + name
    return name


class NameTable:
    """Objects (compared by identity) to printed names, organised in nested scopes."""

    def __init__(self, reserved=RESERVED) -> None:
        self._names: Dict[object, str] = {}
        self._live: Dict[str, int] = {n: 1 for n in reserved}
        self._scopes: List[List[object]] = [[]]

    # -- scopes ------------------------------------------------------------------------------
    def push(self) -> None:
        self._scopes.append([])

    def pop(self) -> None:
        for obj in self._scopes.pop():
            name = self._names.pop(obj, None)
            if name is not None:
                self._live[name] -= 1
                if not self._live[name]:
                    del self._live[name]

    def depth(self) -> int:
        return len(self._scopes)

    # -- definitions -------------------------------------------------------------------------
    def define(self, obj: object, hint: str, *, level: Optional[int] = None, default: str = "v",
               avoid=()) -> str:
        """Give ``obj`` a fresh name derived from ``hint`` in the innermost scope (or the scope at
        ``level``, an index into the scope stack), not one of ``avoid``. Defining an object twice
        returns its name."""
        if obj in self._names:
            return self._names[obj]
        base = sanitize(hint, default)
        name = base
        i = 1
        while name in self._live or name in avoid:
            name = f"{base}_{i}"
            i += 1
        self._names[obj] = name
        self._live[name] = 1
        scope = self._scopes[-1] if level is None else self._scopes[level]
        scope.append(obj)
        return name

    def alias(self, obj: object, name: str) -> None:
        """Print ``obj`` under the live ``name`` of another object, in the innermost scope (tvm-0.27's
        scalar parameter and its symbol are one name)."""
        self._names[obj] = name
        self._live[name] = self._live.get(name, 0) + 1
        self._scopes[-1].append(obj)

    def reserve(self, name: str) -> None:
        """Mark ``name`` as taken in the innermost scope without an object (e.g. a function name)."""
        marker = object()
        self._names[marker] = name
        self._live[name] = self._live.get(name, 0) + 1
        self._scopes[-1].append(marker)

    def get(self, obj: object) -> Optional[str]:
        return self._names.get(obj)

    def is_defined(self, obj: object) -> bool:
        return obj in self._names


__all__ = ["NameTable", "sanitize", "RESERVED"]

"""Lexical scopes of the parser: a chain of name -> value frames (TEXT.EXPR.1).

A name is looked up innermost first. Function bodies, dataflow blocks, if-branches, loops and
blocks open frames; names defined in a frame disappear when it is closed, which is how TVMScript
makes dataflow variables and branch-local variables invisible afterwards.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Optional, Tuple

_MISSING = object()


class Scope:
    """One frame; ``parent`` is the enclosing frame (None for the module level)."""

    __slots__ = ("names", "parent", "kind")

    def __init__(self, parent: Optional["Scope"] = None, kind: str = "block") -> None:
        self.names: Dict[str, Any] = {}
        self.parent = parent
        self.kind = kind

    def child(self, kind: str = "block") -> "Scope":
        return Scope(self, kind)

    def define(self, name: str, value: Any) -> None:
        self.names[name] = value

    def lookup(self, name: str, default: Any = _MISSING) -> Any:
        s: Optional[Scope] = self
        while s is not None:
            v = s.names.get(name, _MISSING)
            if v is not _MISSING:
                return v
            s = s.parent
        if default is _MISSING:
            raise KeyError(name)
        return default

    def lookup_with_frame(self, name: str) -> Tuple[Any, Optional["Scope"]]:
        s: Optional[Scope] = self
        while s is not None:
            v = s.names.get(name, _MISSING)
            if v is not _MISSING:
                return v, s
            s = s.parent
        return None, None

    def contains(self, name: str) -> bool:
        return any(name in f.names for f in self.frames())

    def frames(self) -> Iterator["Scope"]:
        s: Optional[Scope] = self
        while s is not None:
            yield s
            s = s.parent

    def nearest(self, kind: str) -> Optional["Scope"]:
        for f in self.frames():
            if f.kind == kind:
                return f
        return None


__all__ = ["Scope"]

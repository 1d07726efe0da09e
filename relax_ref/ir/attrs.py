"""Immutable, hashable attribute dictionaries for calls, functions, PrimFuncs and modules."""

from __future__ import annotations

from typing import Any, Iterator, Mapping


def freeze(value: Any) -> Any:
    """Convert lists to tuples and dicts to :class:`Attrs`, recursively (so values are hashable)."""
    if isinstance(value, Attrs):
        return value
    if isinstance(value, Mapping):
        return Attrs(value)
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


class Attrs(Mapping):
    """A frozen, insertion-ordered mapping ``str -> value``. Equality ignores order."""

    __slots__ = ("_items", "_dict", "_hash")

    def __init__(self, items: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        d: dict = {}
        if items:
            for k, v in (items.items() if isinstance(items, Mapping) else items):
                d[str(k)] = freeze(v)
        for k, v in kwargs.items():
            d[k] = freeze(v)
        object.__setattr__(self, "_dict", d)
        object.__setattr__(self, "_items", tuple(d.items()))
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, key, value):
        raise AttributeError("Attrs is immutable")

    def __getitem__(self, key: str) -> Any:
        return self._dict[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Attrs):
            return self._dict == other._dict
        if isinstance(other, Mapping):
            return self._dict == {k: freeze(v) for k, v in other.items()}
        return NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            try:
                h = hash(frozenset(self._items))
            except TypeError:
                h = hash(tuple(sorted(self._dict)))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        return f"Attrs({self._dict!r})"

    def with_items(self, **updates: Any) -> "Attrs":
        d = dict(self._dict)
        d.update(updates)
        return Attrs(d)

    def without(self, *keys: str) -> "Attrs":
        return Attrs({k: v for k, v in self._dict.items() if k not in keys})


EMPTY = Attrs()

__all__ = ["Attrs", "EMPTY", "freeze"]

"""Data layouts of the layout-aware operators, packed ones included (spec rule OP.NN.LAYOUT.1-3).

A layout names the axes of a tensor, outermost first: an upper-case letter is a *primal* axis
(``N``, ``C``, ``H``, ...), a number followed by a lower-case letter a *sub-axis* of fixed extent
splitting the primal axis of the same letter (``NCHW4c``: the channel index is ``C * 4 + c``). This is
TVM's ``SLayout`` without the bracketed grouped axes. An operator works in its *canonical* layout
(``NCHW``, ``OIHW``, ...: primal axes only); a :class:`LayoutConversion` maps shapes and arrays between
an operator's layout and its canonical one, as TVM's ``SBijectiveLayout`` does for shapes:

* forward (layout -> canonical): a primal axis ``X`` with a sub-axis of extent ``f`` has extent
  ``X * f``; the sub-axis' own extent must be ``f`` (OP.NN.LAYOUT.2);
* backward (canonical -> layout): ``X`` becomes ``ceildiv(X, f)`` and the sub-axis ``f``; lanes
  beyond ``X`` hold zero, as ``R.layout_transform`` pads (OP.NN.LAYOUT.3).

The array conversions take the array namespace (``numpy`` or ``jax.numpy``) as an argument, so the
reference and the executors share one definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np


class LayoutError(ValueError):
    """An invalid layout string, or a layout that does not convert to the required one."""


class UnsupportedLayout(LayoutError):
    """A valid TVM layout this module does not handle (bracketed grouped axes)."""


@dataclass(frozen=True)
class Layout:
    """A parsed layout: ``axes[i]`` is ``(letter, None)`` for a primal axis and ``(letter, factor)``
    (lower-case letter) for a sub-axis."""

    name: str
    axes: Tuple[Tuple[str, Optional[int]], ...]

    @property
    def ndim(self) -> int:
        return len(self.axes)

    @property
    def primals(self) -> Tuple[str, ...]:
        return tuple(a for a, f in self.axes if f is None)

    @property
    def is_packed(self) -> bool:
        return any(f is not None for _, f in self.axes)

    def factor(self, primal: str) -> Optional[int]:
        """The extent of the sub-axis of ``primal``, or None when it has none."""
        low = primal.lower()
        return next((f for a, f in self.axes if a == low and f is not None), None)

    def index_of(self, letter: str) -> int:
        """The position of the axis ``letter`` (a primal or a sub-axis letter), -1 when absent."""
        return next((i for i, (a, _) in enumerate(self.axes) if a == letter), -1)


def parse_layout(text: str) -> Layout:
    """Parse ``text`` (``"NCHW"``, ``"NCHW16c"``, ``"OIHW4i4o"``, ``"4cNCHW"``). LayoutError for
    anything TVM's ``SLayout`` rejects, and for its bracketed grouped axes (not supported here)."""
    if not isinstance(text, str) or not text:
        raise LayoutError(f"a layout must be a non-empty string, got {text!r}")
    axes: List[Tuple[str, Optional[int]]] = []
    digits = ""
    for ch in text:
        if ch.isdigit() and ch.isascii():
            digits += ch
        elif "A" <= ch <= "Z":
            if digits:
                raise LayoutError(f"invalid layout {text}: a factor {digits} before the primal axis {ch}")
            axes.append((ch, None))
        elif "a" <= ch <= "z":
            if not digits or int(digits) <= 0:
                raise LayoutError(f"invalid layout {text}: the sub-axis {ch} needs a positive factor before it")
            axes.append((ch, int(digits)))
            digits = ""
        elif ch in "[]":
            raise UnsupportedLayout(f"the layout {text} groups axes in brackets, which is not supported")
        else:
            raise LayoutError(f"invalid layout {text}: unexpected character {ch!r}")
    if digits:
        raise LayoutError(f"invalid layout {text}: a trailing factor {digits}")
    letters = [a for a, _ in axes]
    for a, f in axes:
        if letters.count(a) > 1:
            kind = "sub-axis" if f is not None else "axis"
            raise LayoutError(f"invalid layout {text}: the {kind} {a} appears more than once")
        if f is not None and a.upper() not in letters:
            raise LayoutError(f"invalid layout {text}: the sub-axis {a} has no primal axis {a.upper()}")
    return Layout(text, tuple(axes))


@dataclass(frozen=True)
class LayoutConversion:
    """Between ``layout`` and the canonical layout ``canonical`` (primal axes only, same set)."""

    layout: Layout
    canonical: str

    @property
    def ndim(self) -> int:
        return self.layout.ndim

    @property
    def is_permutation(self) -> bool:
        return not self.layout.is_packed

    def perm(self) -> Tuple[int, ...]:
        """``perm[i]``: the position in the layout of the i-th canonical axis (primal positions)."""
        return tuple(self.layout.index_of(a) for a in self.canonical)

    def sub_axes(self) -> List[Tuple[int, int]]:
        """(position, factor) of every sub-axis of the layout."""
        return [(i, f) for i, (_, f) in enumerate(self.layout.axes) if f is not None]

    # -- shapes --------------------------------------------------------------------------------------
    def forward_shape(self, values: Sequence[Any], mul) -> List[Any]:
        """Canonical dims from the layout's dims (``mul(dim, factor)`` builds the product)."""
        out = []
        for a in self.canonical:
            v = values[self.layout.index_of(a)]
            f = self.layout.factor(a)
            out.append(v if f is None else mul(v, f))
        return out

    def backward_shape(self, canonical: Sequence[Any], ceildiv) -> List[Any]:
        """The layout's dims from canonical dims (``ceildiv(dim, factor)`` builds the quotient)."""
        out: List[Any] = []
        for a, f in self.layout.axes:
            if f is not None:
                out.append(f)
            else:
                v = canonical[self.canonical.index(a)]
                g = self.layout.factor(a)
                out.append(v if g is None else ceildiv(v, g))
        return out

    # -- arrays --------------------------------------------------------------------------------------
    def to_canonical(self, x, xp=np):
        """The canonical array of ``x`` (laid out in ``layout``): each packed primal axis is merged with
        its sub-axis, outer index major."""
        if self.is_permutation:
            return xp.transpose(x, self.perm())
        order: List[int] = []
        dims: List[int] = []
        for a in self.canonical:
            p = self.layout.index_of(a)
            q = self.layout.index_of(a.lower())
            order += [p] if q < 0 else [p, q]
            dims.append(int(x.shape[p]) * (1 if q < 0 else int(x.shape[q])))
        return xp.reshape(xp.transpose(x, tuple(order)), tuple(dims))

    def from_canonical(self, y, xp=np):
        """``y`` (canonical) laid out in ``layout``: packed primal axes are padded with zeros to a
        multiple of their factor, split, and the axes put in the layout's order."""
        if self.is_permutation:
            return xp.transpose(y, tuple(int(i) for i in np.argsort(self.perm())))
        pads, split, names = [], [], []
        for k, a in enumerate(self.canonical):
            f = self.layout.factor(a)
            n = int(y.shape[k])
            if f is None:
                pads.append((0, 0))
                split.append(n)
                names.append(a)
            else:
                outer = -(-n // f)
                pads.append((0, outer * f - n))
                split += [outer, f]
                names += [a, a.lower()]
        if any(p for _, p in pads):
            y = xp.pad(y, pads)
        y = xp.reshape(y, tuple(split))
        return xp.transpose(y, tuple(names.index(a) for a, _ in self.layout.axes))


def convert(layout: str, canonical: str) -> LayoutConversion:
    """The conversion of ``layout`` to ``canonical``. LayoutError when ``layout`` is invalid or its
    primal axes are not exactly those of ``canonical`` (TVM's ``SBijectiveLayout`` is undefined)."""
    lay = parse_layout(layout)
    if sorted(lay.primals) != sorted(canonical):
        raise LayoutError(f"the layout {layout} is not convertible from {canonical}")
    return LayoutConversion(lay, canonical)


__all__ = ["Layout", "LayoutConversion", "LayoutError", "UnsupportedLayout", "parse_layout", "convert"]

"""Data layouts for ConvertLayout (PASS.LAYOUT.1-3): TVM's ``SLayout`` strings and the layout decisions
of layout inference.

A layout is a string of axes (PASS.LAYOUT.1): an upper-case letter is a *primal* axis, a lower-case
letter preceded by a factor is a *sub-axis* splitting the primal axis of the same letter
(``"NCHW4c"``: the channel axis split into ``C`` blocks of 4). Layout inference names the axes of a
tensor of rank ``n`` ``"ABC..."`` in their original order (the *initial* layout) and describes a
converted tensor by a permutation of those letters, possibly with sub-axes (``"ACDB"``, ``"ABCD4b"``).
A layout *decision* is a layout, the empty layout (a scalar), or :data:`UNKNOWN` (a tensor of
unknown rank); tuples have nested lists of decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import prim_expr as P

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Axis:
    name: str               # one letter
    factor: Optional[int] = None   # the factor of a sub-axis

    @property
    def primal(self) -> bool:
        return self.name.isupper()

    def text(self) -> str:
        return self.name if self.factor is None else f"{self.factor}{self.name}"


class SLayout:
    """(PASS.LAYOUT.1) A parsed layout string."""

    __slots__ = ("axes", "name")

    def __init__(self, spec) -> None:
        if isinstance(spec, SLayout):
            self.axes, self.name = spec.axes, spec.name
            return
        if isinstance(spec, (list, tuple)):
            axes = tuple(spec)
        else:
            axes = _parse(str(spec))
        self.axes: Tuple[Axis, ...] = axes
        self.name = "".join(a.text() for a in axes)

    @property
    def ndim(self) -> int:
        return len(self.axes)

    @property
    def ndim_primal(self) -> int:
        return sum(1 for a in self.axes if a.primal)

    def index_of(self, axis) -> int:
        name = axis.name if isinstance(axis, Axis) else str(axis)
        for i, a in enumerate(self.axes):
            if a.name == name:
                return i
        return -1

    def __getitem__(self, i: int) -> Axis:
        return self.axes[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, SLayout) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"SLayout({self.name!r})"

    def factor_of(self, primal: str) -> Optional[int]:
        for a in self.axes:
            if a.name == primal.lower() and a.factor is not None:
                return a.factor
        return None


def _parse(text: str) -> Tuple[Axis, ...]:
    axes: List[Axis] = []
    factor = ""
    for c in text:
        if c.isdigit():
            factor += c
        elif c.isalpha():
            if c.isupper():
                if factor:
                    raise RelaxError(f"invalid layout '{text}': a factor before the primal axis {c}")
                axes.append(Axis(c))
            else:
                if not factor:
                    raise RelaxError(f"invalid layout '{text}': the sub-axis {c} needs a factor")
                axes.append(Axis(c, int(factor)))
            factor = ""
        else:
            raise RelaxError(f"invalid layout '{text}'")
    if factor:
        raise RelaxError(f"invalid layout '{text}': a trailing factor")
    return tuple(axes)


class _Unknown:
    name = "unknown_dim"

    def __repr__(self) -> str:
        return "UNKNOWN"


#: The decision for a tensor of unknown rank
UNKNOWN = _Unknown()


def initial_layout(ndim: int) -> SLayout:
    if not 0 <= ndim <= 26:
        raise RelaxError(f"layout inference supports up to 26 dimensions, not {ndim}")
    return SLayout(_LETTERS[:ndim])


def initial_decision(ndim: int):
    return UNKNOWN if ndim < 0 else initial_layout(ndim)


def decision_name(d) -> str:
    return d.name


def decisions_equal(a, b) -> bool:
    """(PASS.LAYOUT.2) Equality of (nested) decisions by name."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            decisions_equal(x, y) for x, y in zip(a, b))
    return a.name == b.name


def transpose_like(inp: SLayout, src: SLayout, dst: SLayout) -> SLayout:
    """The axes of ``inp`` arranged as ``dst`` arranges ``src``'s."""
    if not (src.ndim == dst.ndim == inp.ndim):
        raise RelaxError("layouts must have the same number of axes")
    return SLayout([inp.axes[_index(src, dst[i])] for i in range(src.ndim)])


def transpose_str_like(inp: str, src: SLayout, dst: SLayout) -> str:
    if not (src.ndim == dst.ndim == len(inp)):
        raise RelaxError("layouts must have the same number of axes")
    return "".join(inp[_index(src, dst[i])] for i in range(src.ndim))


def _index(layout: SLayout, axis: Axis) -> int:
    i = layout.index_of(axis)
    if i < 0:
        raise RelaxError(f"axis {axis.name} is not in layout {layout.name}")
    return i


def transpose_sub_layout_str_like(ref: str, src: str, desired: str) -> str:
    out = []
    for c in desired:
        if c.isupper():
            i = src.find(c)
            if i < 0:
                raise RelaxError(f"axis {c} is not in layout {src}")
            out.append(ref[i])
        elif c.isdigit():
            out.append(c)
        elif c.islower():
            i = src.find(c.upper())
            if i < 0:
                raise RelaxError(f"axis {c} is not in layout {src}")
            out.append(ref[i].lower())
    return "".join(out)


def transpose_sub_layout_like(ref: SLayout, src: SLayout, desired: SLayout) -> SLayout:
    return SLayout(transpose_sub_layout_str_like(ref.name, src.name, desired.name))


def find_axis(dst: SLayout, axis: int) -> int:
    """The position of the initial axis ``axis`` in ``dst`` (its name without factors)."""
    axis = (axis + dst.ndim) % dst.ndim if dst.ndim else axis
    letters = "".join(c for c in dst.name if not c.isdigit())
    return letters.find(chr(ord("A") + axis))


def follow_decision(src: SLayout, dst_ndim: int) -> SLayout:
    """``src`` extended to rank ``dst_ndim`` by leading broadcast axes."""
    n = src.ndim
    if n == dst_ndim:
        return src
    if n > dst_ndim:
        raise RelaxError(f"cannot broadcast a layout of rank {n} to rank {dst_ndim}")
    extra = dst_ndim - n
    name = initial_layout(extra).name + "".join(chr(ord(src.name[i]) + extra) for i in range(n))
    return SLayout(name)


# ---------------------------------------------------------------------------------------------------
# Bijective layouts (packed axes) (PASS.LAYOUT.3)
# ---------------------------------------------------------------------------------------------------


def _check_bijective(src: SLayout, dst: SLayout) -> None:
    ps = sorted(a.name for a in src.axes if a.primal)
    pd = sorted(a.name for a in dst.axes if a.primal)
    if ps != pd:
        raise RelaxError(f"layouts {src.name} and {dst.name} have different primal axes")


def _full_index(src: SLayout, values: Sequence[P.PrimExpr], primal: str):
    from ..ops import te_ops as O

    v = values[src.index_of(primal)]
    f = src.factor_of(primal)
    if f is not None:
        v = O.add(O.mul(v, P.IntImm(f, v.dtype)), values[src.index_of(primal.lower())])
    return v


def forward_index(src: SLayout, dst: SLayout, values: Sequence[P.PrimExpr]) -> List[P.PrimExpr]:
    """Indices in ``dst`` of the element at ``values`` in ``src``."""
    from ..ops import te_ops as O

    _check_bijective(src, dst)
    out = []
    for a in dst.axes:
        prim = a.name.upper()
        x = _full_index(src, values, prim)
        f = dst.factor_of(prim)
        if a.primal:
            out.append(O.floordiv(x, P.IntImm(f, x.dtype)) if f is not None else x)
        else:
            out.append(O.floormod(x, P.IntImm(a.factor, x.dtype)))
    return out


def forward_shape(src: SLayout, dst: SLayout, shape: Sequence[P.PrimExpr]) -> List[P.PrimExpr]:
    from ..ops import te_ops as O

    _check_bijective(src, dst)
    out = []
    for a in dst.axes:
        prim = a.name.upper()
        x = shape[src.index_of(prim)]
        fs = src.factor_of(prim)
        if fs is not None:
            x = O.mul(x, shape[src.index_of(prim.lower())])
        if a.primal:
            f = dst.factor_of(prim)
            out.append(O.floordiv(x, P.IntImm(f, x.dtype)) if f is not None else x)
        else:
            out.append(P.IntImm(a.factor, x.dtype))
    return out


def can_prove_layout_transform(src: SLayout, dst: SLayout, shape: Sequence[P.PrimExpr]) -> bool:
    """Whether converting a tensor of ``shape`` from ``src`` to ``dst`` and back gives the same
    constant dimensions (a packed axis must divide evenly)."""
    from ..arith import Analyzer

    try:
        fwd = forward_shape(src, dst, shape)
        back = forward_shape(dst, src, fwd)
    except RelaxError:
        return False
    an = Analyzer()
    for a, b in zip(shape, back):
        if isinstance(a, P.IntImm) and not an.can_prove_equal(a, b):
            return False
    return True


__all__ = ["SLayout", "Axis", "UNKNOWN", "initial_layout", "initial_decision", "decisions_equal", "transpose_like",
           "transpose_str_like", "transpose_sub_layout_str_like", "transpose_sub_layout_like", "find_axis",
           "follow_decision", "forward_index", "forward_shape", "can_prove_layout_transform"]

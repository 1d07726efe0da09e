"""What generator rules are made of (see :mod:`relax_ref.testing.rules`): the outputs a rule
reports (:class:`Out`, :class:`Result`), the rule itself (:class:`OpRule`) and the helpers every rule
uses to build calls."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from ..ir import expr as rx
from ..ops import registry
from .domain import Dim, Range, TVal, broadcast_dims, is_float


@dataclass(frozen=True)
class Out:
    """One output of a call: true dims, dtype and range."""

    dims: Tuple[Dim, ...]
    dtype: str
    range: Range


@dataclass(frozen=True)
class Result:
    """What a rule builds: the call and its outputs (several for a tuple-valued call)."""

    call: rx.Call
    outs: Tuple[Out, ...]
    is_tuple: bool = False


@dataclass(frozen=True)
class OpRule:
    op: str
    kinds: Tuple[str, ...]
    build: Callable[..., Optional[Result]]
    min_rank: int = 0
    max_rank: int = 4
    weight: int = 1

    def accepts(self, x: TVal) -> bool:
        return kind_of(x.dtype) in self.kinds and self.min_rank <= x.ndim <= self.max_rank


def kind_of(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    return "float" if is_float(dtype) else "int"


def call(op: str, *args, **kwargs) -> rx.Call:
    """Build ``R.<op>(*args, **kwargs)`` through the registry's script signature."""
    return registry.build_call(registry.get(op), list(args), kwargs)


def one(c: rx.Call, dims, dtype: str, rng: Range) -> Result:
    return Result(c, (Out(tuple(dims), dtype, rng),))


def range_fits(rng: Range, dtype: str) -> bool:
    """Whether the range is finite and within the dtype's values."""
    return rng.within(dtype) and math.isfinite(rng.lo) and math.isfinite(rng.hi)


def partner(g, x: TVal, *, pred=None, allow_const: bool = True) -> Optional[Tuple[TVal, Tuple[Dim, ...]]]:
    """A second operand broadcast-compatible with ``x`` (same dtype): a tensor in scope or a new
    constant (a scalar or a static suffix of ``x``'s dims). Returns it with the broadcast dims."""
    other = g.src.boolean(85)  # usually a different value: ``x - x`` hides operand order and most faults

    def fits(y: TVal) -> bool:
        return y.dtype == x.dtype and broadcast_dims(x.dims, y.dims) is not None and (pred is None or pred(y)) \
            and not (other and y.expr is x.expr)

    y = g.pick(fits) if g.src.boolean(75) else None
    if y is None and allow_const:
        suffix = [d for d in x.dims[::-1]]
        k = 0
        while k < len(suffix) and suffix[k].is_static and g.src.boolean(50):
            k += 1
        dims = tuple(reversed(suffix[:k]))
        rng = g.default_range(x.dtype)
        if pred is not None:
            rng = g.src.choice([Range(0.5, 2.0), Range(1.0, 3.0)]) if kind_of(x.dtype) == "float" else Range(1, 4)
        c, r = g.constant(dims, x.dtype, rng)
        y = TVal(c, dims, x.dtype, r)
        if pred is not None and not pred(y):
            return None
    if y is None:
        return None
    return y, broadcast_dims(x.dims, y.dims)


__all__ = ["Out", "Result", "OpRule", "kind_of", "call", "one", "range_fits", "partner"]

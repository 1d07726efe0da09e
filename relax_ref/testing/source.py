"""Choice sources: where the program generator gets its random decisions.

The generator (:mod:`relax_ref.testing.program`) never calls a random number generator directly; it
asks a *source* for bounded integers. Three sources implement the same small protocol:

* :class:`HypothesisSource` -- wraps a Hypothesis ``draw``; Hypothesis then shrinks the choices
  (used by the strategies in :mod:`relax_ref.testing.strategies` and by ``check_pass``);
* :class:`RandomSource` -- a seeded ``random.Random`` that records every choice (fast; used by the
  benchmark and the campaign);
* :class:`ReplaySource` -- replays a recorded choice list; a missing or out-of-range choice reads as
  the lower bound. The campaign's shrinker (:mod:`relax_ref.testing.shrink`) edits choice lists and
  replays them.

Every choice is ``integer(lo, hi)``; the other methods are derived from it so that all three sources
make exactly the same decisions from the same choice list. Generators are written so that the
*smallest* choice is the *simplest* program (fewest bindings, first rule of a table, no optional
construct), which is what makes shrinking produce small programs (Hypothesis' design rule).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
import random
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar

T = TypeVar("T")


class Source(ABC):
    """The protocol: ``integer`` is abstract, the rest is derived."""

    @abstractmethod
    def integer(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def position(self) -> int:
        """How many choices have been made (-1 when the source does not record them)."""
        return -1

    def record_span(self, start: int, counts: Tuple[int, ...] = ()) -> None:
        """Mark the choices from ``start`` to now as one unit (a generation step): the shrinker
        tries deleting such spans whole (Hypothesis' "delete an example"), lowering by one the
        choices at the positions ``counts`` (the step counts the step was drawn under)."""

    def boolean(self, percent: int = 50) -> bool:
        """True with probability about ``percent``/100 under random sources; shrinks to False."""
        if percent <= 0:
            return False
        return self.integer(0, 99) >= 100 - min(percent, 100)

    def choice(self, items: Sequence[T]) -> T:
        """An element of ``items``; shrinks towards the first."""
        if not items:
            raise IndexError("choice from an empty sequence")
        return items[self.integer(0, len(items) - 1)]

    def weighted(self, items: Sequence[T], weights: Sequence[int]) -> T:
        """An element of ``items`` chosen with integer ``weights``; shrinks towards the first."""
        total = sum(weights)
        if total <= 0:
            raise IndexError("weighted choice with no positive weight")
        k = self.integer(0, total - 1)
        for item, w in zip(items, weights):
            if k < w:
                return item
            k -= w
        return items[-1]

    def subset(self, items: Sequence[T], max_size: Optional[int] = None) -> List[T]:
        """A sub-list of ``items`` (order kept); shrinks towards the empty list."""
        out = [x for x in items if self.boolean(40)]
        return out[:max_size] if max_size is not None else out

    def permutation(self, n: int) -> List[int]:
        """A permutation of ``range(n)``; shrinks towards the identity."""
        rest = list(range(n))
        out = []
        while rest:
            out.append(rest.pop(self.integer(0, len(rest) - 1)))
        return out


class HypothesisSource(Source):
    """Choices drawn from a Hypothesis ``draw`` function (``st.composite`` / ``st.data()``)."""

    def __init__(self, draw: Callable) -> None:
        from hypothesis import strategies as st

        self._draw = draw
        self._st = st
        self._cache = {}

    def integer(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        key = (lo, hi)
        strat = self._cache.get(key)
        if strat is None:
            strat = self._cache[key] = self._st.integers(lo, hi)
        return self._draw(strat)


class _RecordingSource(Source):
    """A source that records its choices (``.choices``, offsets from the lower bound) and the spans
    marked by :meth:`record_span` (``.spans``)."""

    choices: List[int]
    spans: List[Tuple[int, int, Tuple[int, ...]]]

    def position(self) -> int:
        return len(self.choices)

    def record_span(self, start: int, counts: Tuple[int, ...] = ()) -> None:
        if 0 <= start < len(self.choices):
            self.spans.append((start, len(self.choices), tuple(counts)))


class RandomSource(_RecordingSource):
    """A seeded random source that records its choices (``.choices``) for replay and shrinking."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self.choices: List[int] = []
        self.spans: List[Tuple[int, int, Tuple[int, ...]]] = []

    def integer(self, lo: int, hi: int) -> int:
        v = lo if hi <= lo else self._rng.randint(lo, hi)
        self.choices.append(v - lo)
        return v


class ReplaySource(_RecordingSource):
    """Replays choices recorded as offsets from the lower bound (as :class:`RandomSource` stores
    them); an exhausted list or an offset beyond the range gives the lower bound. ``.choices`` holds
    the offsets actually used, so a replay can be recorded again."""

    def __init__(self, choices: Sequence[int]) -> None:
        self._given = list(choices)
        self._pos = 0
        self.choices: List[int] = []
        self.spans: List[Tuple[int, int, Tuple[int, ...]]] = []

    def integer(self, lo: int, hi: int) -> int:
        off = self._given[self._pos] if self._pos < len(self._given) else 0
        self._pos += 1
        if off < 0 or lo + off > hi:
            off = 0
        self.choices.append(off)
        return lo + off


__all__ = ["Source", "HypothesisSource", "RandomSource", "ReplaySource"]

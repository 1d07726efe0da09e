"""Shrinking without Hypothesis: minimize a recorded choice list (and a pass sequence).

The campaign (:mod:`relax_ref.testing.campaign`) generates programs from a seeded
:class:`~relax_ref.testing.source.RandomSource`, which records every decision as a list of
non-negative offsets. :func:`shrink_choices` edits that list and replays it through
:class:`~relax_ref.testing.source.ReplaySource` (a missing or out-of-range offset reads as the
simplest choice), keeping an edit when the regenerated program still fails *the same way*
(``still_fails(program) -> bool``). The edits are Hypothesis' basic ones, on the choice sequence:

1. truncate the list (every later decision becomes the simplest one);
2. delete runs of 8, 4, 2 and 1 choices;
3. set single choices to 0, then halve them, then decrement them.

A candidate is kept only if its replayed choice list is smaller in shortlex order (shorter, or as
long and lexicographically smaller), so shrinking terminates; the generator's "smallest choice is
the simplest program" design makes a smaller list a smaller module. Every attempt costs a
generation and a check, so the budget is a number of attempts and a wall-clock limit.

:func:`shrink_sequence` removes passes from a failing sequence while it still fails the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from ..errors import RelaxError
from .program import GenConfig, Program, generate
from .source import ReplaySource


@dataclass
class ShrinkResult:
    """The smallest failing program found, its choice list and how many attempts were made."""

    program: Program
    choices: Tuple[int, ...]
    attempts: int
    improved: int


def _key(choices: Sequence[int]) -> Tuple[int, Tuple[int, ...]]:
    return len(choices), tuple(choices)


def replay(choices: Sequence[int], config: GenConfig) -> Optional[Program]:
    """The program the generator makes from ``choices``, or None if it cannot make a valid one."""
    src = ReplaySource(choices)
    try:
        prog = generate(src, config)
    except Exception:  # noqa: BLE001 - a candidate the generator cannot follow is just not smaller
        return None
    # drop the trailing simplest choices: they are implied by exhaustion
    used = list(src.choices)
    while used and used[-1] == 0:
        used.pop()
    spans = tuple(sp for sp in src.spans if sp[1] <= len(used))
    return Program(prog.mod, prog.entry, prog.params, prog.sym_vars, tuple(used), spans)


def _candidates(cur: List[int]):
    n = len(cur)
    # 1. truncation, coarse to fine
    for keep in sorted({n // 4, n // 2, (3 * n) // 4, n - 1}):
        if 0 <= keep < n:
            yield cur[:keep]
    # 2. deletion of runs
    for run in (8, 4, 2, 1):
        for i in range(n - run, -1, -1):
            yield cur[:i] + cur[i + run:]
    # 3. simplification of single values
    for i in range(n):
        if cur[i] > 0:
            yield cur[:i] + [0] + cur[i + 1:]
    for i in range(n):
        if cur[i] > 1:
            yield cur[:i] + [cur[i] // 2] + cur[i + 1:]
        if cur[i] > 0:
            yield cur[:i] + [cur[i] - 1] + cur[i + 1:]


class _Stop(Exception):
    pass


def shrink_choices(choices: Sequence[int], still_fails: Callable[[Program], bool], config: GenConfig, *,
                   max_attempts: int = 300, seconds: float = 60.0) -> ShrinkResult:
    """Minimize ``choices`` (see the module docstring). ``still_fails`` must be true for the
    program of ``choices`` itself; the result is that program when nothing smaller fails.

    The edits run as passes that continue where they are after a success (Hypothesis' way, rather
    than restarting from the first edit): deleting whole generation steps (the spans the generator
    recorded), truncation, zeroing single choices from the front (the
    early choices are structural: parameters, ranks, the number of bindings), deleting runs of 8, 4,
    2 and 1 choices from the back, and lowering single values by binary search."""
    start = time.monotonic()
    best = replay(choices, config)
    if best is None:
        raise RelaxError("the recorded choices no longer generate a valid program")
    state = {"best": best, "cur": list(best.choices), "attempts": 0, "improved": 0}
    seen = {tuple(state["cur"])}

    def attempt(cand: List[int]) -> bool:
        if state["attempts"] >= max_attempts or time.monotonic() - start > seconds:
            raise _Stop()
        t = tuple(cand)
        if t in seen:
            return False
        seen.add(t)
        prog = replay(cand, config)
        if prog is None or _key(prog.choices) >= _key(state["cur"]):
            return False
        if prog.choices != t and prog.choices in seen:
            return False
        seen.add(prog.choices)
        state["attempts"] += 1
        try:
            fails = still_fails(prog)
        except RelaxError:
            fails = False  # e.g. the smaller program fails on the reference interpreter
        if fails:
            state["best"], state["cur"] = prog, list(prog.choices)
            state["improved"] += 1
        return fails

    try:
        progress = True
        while progress:
            progress = False
            # whole generation steps, last first: each success removes a binding (or a construct);
            # first with the step counts lowered (a clean deletion), then without
            k = 0
            while True:
                spans = sorted(set(state["best"].spans), key=lambda sp: (-sp[0], sp[1]))
                if k >= len(spans):
                    break
                a, b, counts = spans[k]
                cur = state["cur"]
                ok = False
                if b <= len(cur):
                    lowered = list(cur)
                    for c in counts:
                        if c < a and lowered[c] > 0:
                            lowered[c] -= 1
                    ok = (lowered != cur and attempt(lowered[:a] + lowered[b:])) or attempt(cur[:a] + cur[b:])
                if ok:
                    progress = True
                else:
                    k += 1
            cur = state["cur"]
            for keep in sorted({len(cur) // 8, len(cur) // 4, len(cur) // 2, (3 * len(cur)) // 4}):
                if keep < len(state["cur"]) and attempt(state["cur"][:keep]):
                    progress = True
                    break
            i = 0
            while i < len(state["cur"]):
                cur = state["cur"]
                if cur[i] > 0 and attempt(cur[:i] + [0] + cur[i + 1:]):
                    progress = True
                i += 1
            for run in (8, 4, 2, 1):
                i = len(state["cur"]) - run
                while i >= 0:
                    cur = state["cur"]
                    if i + run <= len(cur) and attempt(cur[:i] + cur[i + run:]):
                        progress = True
                    i = min(i - 1, len(state["cur"]) - run)
            for i in range(len(state["cur"])):
                lo = 0
                while i < len(state["cur"]) and state["cur"][i] > lo + 1:
                    cur = state["cur"]
                    mid = (lo + cur[i]) // 2
                    if attempt(cur[:i] + [mid] + cur[i + 1:]):
                        progress = True
                    else:
                        lo = mid
    except _Stop:
        pass
    return ShrinkResult(state["best"], tuple(state["cur"]), state["attempts"], state["improved"])


def shrink_sequence(passes: Sequence[str], still_fails: Callable[[Sequence[str]], bool], *,
                    max_attempts: int = 20) -> Tuple[str, ...]:
    """Remove passes from ``passes`` one at a time (first to last) while the sequence still fails."""
    cur = list(passes)
    attempts = 0
    i = 0
    while i < len(cur) and len(cur) > 1 and attempts < max_attempts:
        cand = cur[:i] + cur[i + 1:]
        attempts += 1
        if still_fails(cand):
            cur = cand
        else:
            i += 1
    return tuple(cur)


__all__ = ["ShrinkResult", "replay", "shrink", "shrink_choices", "shrink_sequence"]


def shrink(choices: Sequence[int], still_fails: Callable[[List[int]], Optional[List[int]]], *,
           seconds: float = 60.0, max_attempts: int = 300) -> List[int]:
    """Choice-list form used by the campaign: ``still_fails(candidate)`` returns the choices the
    replay actually used when the candidate still fails the same way, else None. Returns the
    smallest failing list found (``choices`` itself when nothing smaller fails)."""
    start = time.monotonic()
    cur = list(choices)
    seen = {tuple(cur)}
    attempts = 0
    progress = True
    while progress:
        progress = False
        for cand in _candidates(cur):
            if attempts >= max_attempts or time.monotonic() - start > seconds:
                return cur
            if tuple(cand) in seen:
                continue
            seen.add(tuple(cand))
            attempts += 1
            used = still_fails(list(cand))
            if used is None:
                continue
            used = list(used)
            while used and used[-1] == 0:
                used.pop()
            if _key(used) < _key(cur):
                cur = used
                seen.add(tuple(cur))
                progress = True
                break
    return cur

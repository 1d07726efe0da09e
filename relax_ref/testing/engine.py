"""The search loop behind ``check_pass``: programs until a budget runs out, then shrinking.

:func:`search` generates programs with seeded :class:`~relax_ref.testing.source.RandomSource`\\ s
(program ``i`` of a run with seed ``s`` uses the seed ``s * 1_000_003 + i``), each under a
configuration chosen by the coverage-guided :class:`~relax_ref.testing.schedule.Scheduler`, and
checks every one with :func:`~relax_ref.testing.oracle.check_case` until one fails, the time budget
(``seconds``) is spent or ``max_examples`` programs have run. The first failure is then shrunk for
at most ``shrink_seconds``: its recorded choice list is minimized with
:func:`~relax_ref.testing.shrink.shrink_choices` under the same configuration and input seed, keeping
an edit only when the smaller program fails with the same symptom in the same pass.

Everything is deterministic given the seed except where the time budget cuts the run: a run with a
larger budget checks a longer prefix of the same sequence of programs. :class:`SearchStats` records
what happened (programs, programs per second, examples and seconds to the first failure, shrink time,
binding counts before and after shrinking, coverage).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.module import IRModule
from .coverage import Coverage, program_features, universe
from .oracle import InvalidCaseError, Outcome, check_case
from .profiles import Profile
from .program import GenConfig, GenerationError, Program, generate
from .schedule import Scheduler
from .reduce import reduce_program
from .shrink import shrink_choices
from .source import RandomSource

#: symptoms that are not failures of the pass (:mod:`relax_ref.testing.tvm_bridge`): such programs are skipped
NOT_PASS_FAILURES = ("tvm-load", "read-back")


def count_bindings(mod: IRModule) -> int:
    """Bindings of every Relax function of ``mod``, nested ones included (If branches, closures)."""
    n = 0
    stack: List[Any] = [f for _, f in mod.relax_functions()]
    while stack:
        e = stack.pop()
        if isinstance(e, rx.Function):
            stack.append(e.body)
        elif isinstance(e, rx.SeqExpr):
            for b in e.blocks:
                for x in b.bindings:
                    n += 1
                    v = x.value
                    if isinstance(v, rx.Function):
                        stack.append(v)
                    elif isinstance(v, rx.If):
                        stack += [v.true_branch, v.false_branch]
            stack.append(e.body)
        elif isinstance(e, rx.If):
            stack += [e.true_branch, e.false_branch]
    return n


@dataclass
class SearchStats:
    """What one :func:`search` did (times in seconds)."""

    seed: int
    programs: int = 0
    invalid: int = 0
    generation_errors: int = 0
    seconds: float = 0.0
    found_at: Optional[int] = None          # 1-based number of the failing program
    seconds_to_failure: Optional[float] = None
    shrink_seconds: float = 0.0
    shrink_attempts: int = 0
    bindings_before: Optional[int] = None
    bindings_after: Optional[int] = None
    failing_seed: Optional[int] = None
    config: Optional[GenConfig] = None
    coverage: Optional[Coverage] = None
    modes: Dict[str, int] = field(default_factory=dict)
    first_invalid: str = ""
    choices: Tuple[int, ...] = ()           # the shrunk program's choices (replay under ``config``)
    program: Optional[Program] = None       # the shrunk failing program (inputs come from its params)
    skipped: Dict[str, int] = field(default_factory=dict)  # programs skipped per symptom (tvm-load, read-back)

    @property
    def programs_per_second(self) -> float:
        return self.programs / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        parts = [f"{self.programs} programs in {self.seconds:.1f} s ({self.programs_per_second:.0f}/s), seed {self.seed}"]
        if self.found_at is not None:
            parts.append(f"failure at program {self.found_at} after {self.seconds_to_failure:.1f} s; shrunk in "
                         f"{self.shrink_seconds:.1f} s ({self.shrink_attempts} attempts) from "
                         f"{self.bindings_before} to {self.bindings_after} bindings")
        if self.invalid or self.generation_errors:
            parts.append(f"{self.invalid} invalid programs, {self.generation_errors} generator errors")
        if self.skipped:
            parts.append("skipped: " + ", ".join(f"{n} {k}" for k, n in self.skipped.items()))
        if self.coverage is not None:
            parts.append(self.coverage.summary(missing=self.found_at is None))
        return "; ".join(parts)

    def as_dict(self) -> Dict[str, Any]:
        return {"seed": self.seed, "programs": self.programs, "seconds": round(self.seconds, 3),
                "programs_per_second": round(self.programs_per_second, 2), "found_at": self.found_at,
                "seconds_to_failure": None if self.seconds_to_failure is None else round(self.seconds_to_failure, 3),
                "shrink_seconds": round(self.shrink_seconds, 3), "shrink_attempts": self.shrink_attempts,
                "bindings_before": self.bindings_before, "bindings_after": self.bindings_after,
                "invalid": self.invalid, "generation_errors": self.generation_errors, "skipped": dict(self.skipped),
                "modes": dict(self.modes),
                "coverage": self.coverage.as_dict() if self.coverage is not None else None}


def program_seed(seed: int, i: int) -> int:
    return seed * 1_000_003 + i


@dataclass
class _Case:
    program: Program
    config: GenConfig
    seed: int
    outcome: Outcome
    chain: Sequence[Callable[[IRModule], IRModule]]
    untested: int


#: ``chains(program_seed) -> (passes, untested)``: the passes to check one program with
Chains = Callable[[int], Tuple[Sequence[Callable[[IRModule], IRModule]], int]]


def search(chain: Sequence[Callable[[IRModule], IRModule]], budget: Profile, *, config: Optional[GenConfig] = None,
           sizes: Sequence[int] = (1, 3), untested: int = 0, signature: bool = True,
           tolerances: Optional[Mapping[str, Tuple[float, float]]] = None, timeout: Optional[float] = 60.0,
           guided: bool = True, poison: bool = True, chains: Optional[Chains] = None,
           observe: Optional[Callable[[Outcome, Program, int], bool]] = None) -> Tuple[Optional[Outcome], SearchStats]:
    """Run the search (see the module docstring); returns the shrunk failing outcome (None when every
    program passed) and the statistics. ``chains`` draws the passes per program (default: ``chain``
    for every program, its first ``untested`` passes preparing the input); ``observe(outcome,
    program, seed)`` sees every outcome and returns whether a failure ends the search (default: every
    failure does)."""
    base = config if config is not None else GenConfig()
    sched = Scheduler(base, budget.seed, guided=guided)
    cov = Coverage(universe(sched.ops))
    stats = SearchStats(seed=budget.seed, coverage=cov)
    start = time.perf_counter()
    deadline = start + budget.seconds
    failing: Optional[_Case] = None
    kw = dict(sizes=sizes, tolerances=tolerances, signature=signature, timeout=timeout, poison=poison)
    i = 0
    while time.perf_counter() < deadline and (budget.max_examples is None or i < budget.max_examples):
        cfg = sched.next(cov)
        pseed = program_seed(budget.seed, i)
        i += 1
        try:
            prog = generate(RandomSource(pseed), cfg)
        except Exception as err:  # noqa: BLE001 - a generator bug must not end the search; it is reported
            stats.generation_errors += 1
            msg = err.message if isinstance(err, GenerationError) else f"{type(err).__name__}: {err}"
            stats.first_invalid = stats.first_invalid or f"program seed {pseed}: {msg.splitlines()[0]}"
            continue
        stats.programs += 1
        cov.record(program_features(prog.mod))
        passes, prep = chains(pseed) if chains is not None else (chain, untested)
        try:
            outcome = check_case(prog, passes, seed=pseed, untested=prep, **kw)
        except InvalidCaseError as err:
            stats.invalid += 1
            stats.first_invalid = stats.first_invalid or f"program seed {pseed}: {err.message.splitlines()[0]}"
            continue
        if outcome.symptom in NOT_PASS_FAILURES:
            # TVM could not read relax-ref's text, or relax-ref TVM's: not the pass's failure
            stats.skipped[outcome.symptom] = stats.skipped.get(outcome.symptom, 0) + 1
            stats.first_invalid = stats.first_invalid or f"program seed {pseed}: {outcome.headline()[:300]}"
            continue
        stop = observe(outcome, prog, pseed) if observe is not None else not outcome.ok
        if not outcome.ok and stop:
            failing = _Case(prog, cfg, pseed, outcome, passes, prep)
            stats.found_at = stats.programs
            stats.seconds_to_failure = time.perf_counter() - start
            break
    stats.seconds = time.perf_counter() - start
    stats.modes = dict(sched.counts)
    if stats.invalid or stats.generation_errors or stats.skipped:
        warnings.warn(f"check_pass: {stats.invalid} generated programs failed on the reference interpreter, "
                      f"{stats.generation_errors} could not be generated (generator bugs), "
                      f"{sum(stats.skipped.values())} could not be exchanged with TVM {dict(stats.skipped)} "
                      f"(first: {stats.first_invalid})", RuntimeWarning, stacklevel=3)
    if failing is None:
        return None, stats
    stats.failing_seed = failing.seed
    stats.config = failing.config
    return _shrink(failing, budget, stats, **kw), stats


def _shrink(case: _Case, budget: Profile, stats: SearchStats, **kw) -> Outcome:
    """Minimize the failing case while it fails the same way (module docstring): the pass sequence
    first (passes that do not matter are dropped), then the program's choices, then its IR."""
    from .shrink import shrink_sequence

    orig = case.outcome
    stats.bindings_before = count_bindings(case.program.mod)
    t0 = time.perf_counter()
    end = t0 + budget.shrink_seconds
    target = orig.failed_pass
    chain = list(case.chain)
    untested = case.untested
    best = [(orig, case.program)]

    def run(prog: Program, passes, prep) -> Optional[Outcome]:
        try:
            out = check_case(prog, passes, seed=case.seed, untested=prep, **kw)
        except InvalidCaseError:
            return None
        if out.symptom == orig.symptom and out.failed_pass == target:
            return out
        return None

    if untested == 0 and len(chain) > 1 and budget.shrink_seconds > 0:
        by_name = {pass_name_of(p): p for p in chain}
        names = shrink_sequence([pass_name_of(p) for p in chain],
                                lambda seq: run(case.program, [by_name[n] for n in seq], 0) is not None)
        chain = [by_name[n] for n in names]

    def still_fails(prog: Program) -> bool:
        out = run(prog, chain, untested)
        if out is not None:
            best.append((out, prog))
            return True
        return False

    if budget.shrink_seconds > 0 and case.program.choices:
        try:
            res = shrink_choices(case.program.choices, still_fails, case.config,
                                 seconds=max(0.0, 0.6 * budget.shrink_seconds - (time.perf_counter() - t0)),
                                 max_attempts=budget.shrink_attempts or 100_000)
            stats.shrink_attempts = res.attempts
        except RelaxError:
            pass  # the recorded choices no longer replay (cannot happen for RandomSource programs)
    left = end - time.perf_counter()
    if left > 0:
        reduce_program(best[-1][1], still_fails, seconds=left)
    if len(best) == 1 and len(chain) != len(case.chain):
        out = run(case.program, chain, untested)  # the shorter sequence on the original program
        if out is not None:
            best.append((out, case.program))
    stats.shrink_seconds = time.perf_counter() - t0
    final, prog = best[-1]
    stats.bindings_after = count_bindings(final.before)
    stats.choices = prog.choices
    stats.program = prog
    return final


def pass_name_of(p: Any) -> str:
    from .oracle import pass_name

    return pass_name(p)


__all__ = ["search", "SearchStats", "count_bindings", "program_seed"]

"""``check_pass`` and ``check_pass_sequence``: property tests of passes, usable from any pytest.

::

    from relax_ref.testing import check_pass, check_pass_sequence
    from relax_ref.transform import LegalizeOps

    def test_legalize():
        check_pass(LegalizeOps())                  # the active profile's budget (two minutes by default)

``check_pass(pass_, ...)`` draws programs, applies the ``prepare`` passes and then ``pass_``, and
asserts the oracles of :mod:`relax_ref.testing.oracle`: (a) the output is well formed, (b) the
reference interpreter gives the same results before and after at every size in ``sizes``
(tolerances per dtype; the output runs with ``call_tir`` outputs poisoned, as TVM leaves them
uninitialized), (c) public signatures are kept (parameters unchanged, return struct info not
weakened) unless ``signature=False``. The search (:mod:`relax_ref.testing.engine`) runs until
``seconds`` have passed or ``max_examples`` programs have been checked -- both default to the
settings profile (:mod:`relax_ref.testing.profiles`: ``quick`` for CI, ``default``, ``deep`` for
nightly runs) -- choosing operators and program shapes by coverage. A failure is shrunk for at
most ``shrink_seconds`` and raised as :class:`~relax_ref.testing.oracle.PassCheckError` (an
``AssertionError``): the symptom, how it was found (programs, seconds, seed -- the same seed finds
it again), and the shrunk input module and the pass output as TVMScript in ``dialect`` (default: the
newest TVM release's spelling). With ``bundle_dir`` the failure is also written as a bundle
(:mod:`relax_ref.testing.bundle`). When every program passes, ``check_pass`` returns the
:class:`~relax_ref.testing.engine.SearchStats` (programs, programs per second, coverage).

``pass_`` (and each ``prepare`` pass) may be a relax-ref pass, any callable ``IRModule -> IRModule``,
or a TVM pass object (``tvm.ir.transform.Pass``, when TVM is installed), which runs in TVM on the
program printed as TVMScript (:mod:`relax_ref.testing.tvm_bridge`).

``strategy=`` (a Hypothesis strategy of ``Program`` or ``IRModule`` values) or ``settings=`` (Hypothesis
settings) select the Hypothesis-driven check instead: Hypothesis draws and shrinks the programs and
``max_examples`` (default 30) bounds the run. Do not call these helpers inside another ``@given`` test.

``check_pass_sequence(passes, ...)`` draws *sequences* of up to ``max_length`` passes from
``passes`` (Tzer's lesson: bugs often need a particular sequence) and checks after every pass. By
default the first failure is shrunk and raised like ``check_pass``; with ``stop_on_failure=False``
every failure is bundled (one bundle per kind of failure) and a :class:`SequenceReport` with the
counts per pass is returned instead. Budgets and profiles are those of ``check_pass``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from ..errors import UnsupportedError
from .bundle import write_bundle
from .domain import MAX_SYM
from .engine import SearchStats, search
from .oracle import Outcome, PassCheckError, check_case, pass_name
from .profiles import resolve
from .program import GenConfig, Program
from .strategies import programs

DEFAULT_SIZES = (1, 3)

#: the spelling of reproducers: the newest TVM release's
DEFAULT_DIALECT = "tvm"


def _settings(max_examples: int, settings) -> hsettings:
    if settings is not None:
        return settings
    return hsettings(max_examples=max_examples, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                            HealthCheck.filter_too_much])


def _check_sizes(sizes: Sequence[int]) -> Tuple[int, ...]:
    sizes = tuple(int(s) for s in sizes)
    if not sizes or any(s < 1 or s > MAX_SYM for s in sizes):
        # generated value ranges assume every symbolic variable is at least 1 (domain.MAX_SYM)
        raise UnsupportedError(f"sizes must be non-empty and within [1, {MAX_SYM}], got {sizes}")
    return sizes


def _as_program(x: Any) -> Program:
    if isinstance(x, Program):
        return x
    from ..ir.module import IRModule

    if isinstance(x, IRModule):
        return Program.from_module(x)
    raise UnsupportedError(f"a program strategy must produce Program or IRModule values, got {type(x).__name__}")


def as_pass(p: Any) -> Callable:
    """``p`` as a callable ``IRModule -> IRModule``: TVM pass objects are wrapped by
    :func:`relax_ref.testing.tvm_bridge.tvm_pass`; anything else callable is used as it is."""
    mod = type(p).__module__ or ""
    if mod.startswith(("tvm.", "tvm_ffi")) or mod == "tvm":
        from .tvm_bridge import tvm_pass

        return tvm_pass(p)
    if not callable(p):
        raise UnsupportedError(f"a pass must be callable (IRModule -> IRModule), got {type(p).__name__}")
    return p


def check_pass(pass_: Callable, *, seconds: Optional[float] = None, max_examples: Optional[int] = None,
               shrink_seconds: Optional[float] = None, seed: Optional[int] = None, profile: Optional[str] = None,
               sizes: Sequence[int] = DEFAULT_SIZES, strategy=None, config: Optional[GenConfig] = None,
               prepare: Sequence[Callable] = (), signature: bool = True,
               tolerances: Optional[Mapping[str, Tuple[float, float]]] = None, timeout: Optional[float] = 60.0,
               bundle_dir=None, settings=None, dialect: str = DEFAULT_DIALECT, guided: bool = True,
               poison: bool = True) -> Optional[SearchStats]:
    """Property-test ``pass_`` (see the module docstring). ``guided=False`` turns the coverage-guided
    choice of operators and shapes off (every program from ``config`` as given); ``poison=False``
    evaluates outputs with zero-filled ``call_tir`` outputs (the reference's own semantics)."""
    sizes = _check_sizes(sizes)
    chain = [as_pass(p) for p in prepare] + [as_pass(pass_)]
    try:
        return _check_pass(chain, pass_, len(prepare), seconds=seconds, max_examples=max_examples,
                           shrink_seconds=shrink_seconds, seed=seed, profile=profile, sizes=sizes, strategy=strategy,
                           config=config, signature=signature, tolerances=tolerances, timeout=timeout,
                           bundle_dir=bundle_dir, settings=settings, dialect=dialect, guided=guided, poison=poison)
    finally:
        _close_workers(chain, [pass_, *prepare])


def _close_workers(chain, given) -> None:
    """End the TVM workers of the passes ``as_pass`` wrapped here (not those the caller made)."""
    mine = {id(p) for p in given}
    for p in chain:
        if id(p) not in mine and type(p).__name__ == "TvmPass":
            p.close()


def _check_pass(chain, pass_, untested: int, *, seconds, max_examples, shrink_seconds, seed, profile, sizes,
                strategy, config, signature, tolerances, timeout, bundle_dir, settings, dialect, guided,
                poison) -> Optional[SearchStats]:
    prepare = chain[:untested]
    if strategy is not None or settings is not None:
        _check_with_hypothesis(chain, len(prepare), strategy if strategy is not None else programs(config),
                               max_examples if max_examples is not None else 30, settings, sizes=sizes,
                               signature=signature, tolerances=tolerances, timeout=timeout, bundle_dir=bundle_dir,
                               dialect=dialect, poison=poison)
        return None
    budget = resolve(profile, seconds=seconds, max_examples=max_examples, shrink_seconds=shrink_seconds, seed=seed)
    outcome, stats = search(chain, budget, config=config, sizes=sizes, untested=len(prepare), signature=signature,
                            tolerances=tolerances, timeout=timeout, guided=guided, poison=poison)
    if outcome is None:
        return stats
    if bundle_dir is not None:
        write_bundle(bundle_dir, outcome, seed=stats.failing_seed, choices=stats.choices or None,
                     extra={"config": repr(stats.config)})
    notes = (f"found by check_pass({pass_name(chain[-1])}, seed={stats.seed}, profile={budget.name!r}) "
             f"[{stats.describe()}]")
    raise PassCheckError(outcome, dialect=dialect, notes=notes, stats=stats)


def _check_with_hypothesis(chain, untested: int, strat, max_examples: int, settings, *, sizes, signature, tolerances,
                           timeout, bundle_dir, dialect, poison) -> None:
    @_settings(max_examples, settings)
    @given(prog=strat, seed=st.integers(0, 2 ** 16))
    def run(prog, seed):
        program = _as_program(prog)
        outcome = check_case(program, chain, sizes=sizes, seed=seed, tolerances=tolerances,
                             signature=signature, timeout=timeout, untested=untested, poison=poison)
        if not outcome.ok:
            if bundle_dir is not None:
                write_bundle(bundle_dir, outcome, seed=seed, choices=program.choices or None)
            raise PassCheckError(outcome, dialect=dialect)

    run()


@dataclass
class SequenceReport:
    """What :func:`check_pass_sequence` saw with ``stop_on_failure=False``."""

    programs: int = 0
    per_pass: Dict[str, Counter] = field(default_factory=dict)
    bundles: List[str] = field(default_factory=list)
    stats: Optional[SearchStats] = None

    def record(self, outcome: Outcome) -> None:
        self.programs += 1
        last = len(outcome.passes) if outcome.ok else outcome.failed_at + 1
        for i, name in enumerate(outcome.passes[:last]):
            c = self.per_pass.setdefault(name, Counter())
            c["ok" if outcome.ok or i < outcome.failed_at else outcome.symptom] += 1

    @property
    def failures(self) -> int:
        return sum(c[k] for c in self.per_pass.values() for k in c if k != "ok")


def check_pass_sequence(passes: Sequence[Callable], *, max_length: int = 4, seconds: Optional[float] = None,
                        max_examples: Optional[int] = None, shrink_seconds: Optional[float] = None,
                        seed: Optional[int] = None, profile: Optional[str] = None,
                        sizes: Sequence[int] = DEFAULT_SIZES, strategy=None, config: Optional[GenConfig] = None,
                        signature: bool = True, tolerances=None, timeout: Optional[float] = 60.0,
                        bundle_dir=None, stop_on_failure: bool = True, settings=None,
                        dialect: str = DEFAULT_DIALECT, guided: bool = True,
                        poison: bool = True) -> Optional[SequenceReport]:
    """Property-test random sequences drawn from ``passes`` (see the module docstring): each program
    gets a sequence of 1 to ``max_length`` passes drawn from its seed."""
    if not passes:
        raise UnsupportedError("check_pass_sequence needs at least one pass")
    given = list(passes)
    passes = [as_pass(p) for p in passes]
    try:
        return _check_sequences(passes, max_length=max_length, seconds=seconds, max_examples=max_examples,
                                shrink_seconds=shrink_seconds, seed=seed, profile=profile, sizes=_check_sizes(sizes),
                                strategy=strategy, config=config, signature=signature, tolerances=tolerances,
                                timeout=timeout, bundle_dir=bundle_dir, stop_on_failure=stop_on_failure,
                                settings=settings, dialect=dialect, guided=guided, poison=poison)
    finally:
        _close_workers(passes, given)


def _check_sequences(passes, *, max_length, seconds, max_examples, shrink_seconds, seed, profile, sizes, strategy,
                     config, signature, tolerances, timeout, bundle_dir, stop_on_failure, settings, dialect, guided,
                     poison) -> Optional[SequenceReport]:
    report = SequenceReport()
    seen = set()

    def record(outcome: Outcome, program: Program, pseed: int) -> bool:
        if not stop_on_failure:
            report.record(outcome)
        if outcome.ok:
            return False
        if bundle_dir is not None:
            path = write_bundle(bundle_dir, outcome, seed=pseed, choices=program.choices or None)
            if str(path) not in seen:
                seen.add(str(path))
                report.bundles.append(str(path))
        return stop_on_failure

    if strategy is not None or settings is not None:
        _sequences_with_hypothesis(passes, max_length, strategy if strategy is not None else programs(config),
                                   max_examples if max_examples is not None else 30, settings, record,
                                   sizes=sizes, signature=signature, tolerances=tolerances, timeout=timeout,
                                   dialect=dialect, poison=poison)
        return None if stop_on_failure else report

    def chains(pseed: int):
        rng = random.Random(f"sequence:{pseed}")
        return [rng.choice(passes) for _ in range(rng.randint(1, max_length))], 0

    budget = resolve(profile, seconds=seconds, max_examples=max_examples, shrink_seconds=shrink_seconds, seed=seed)
    outcome, stats = search([], budget, config=config, sizes=sizes, signature=signature, tolerances=tolerances,
                            timeout=timeout, guided=guided, poison=poison, chains=chains, observe=record)
    report.stats = stats
    if outcome is not None:
        notes = f"found by check_pass_sequence(seed={stats.seed}, profile={budget.name!r}) [{stats.describe()}]"
        raise PassCheckError(outcome, dialect=dialect, notes=notes, stats=stats)
    return None if stop_on_failure else report


def _sequences_with_hypothesis(passes, max_length, strat, max_examples, settings, record, *, sizes, signature,
                               tolerances, timeout, dialect, poison) -> None:
    @_settings(max_examples, settings)
    @given(prog=strat, seq=st.lists(st.sampled_from(list(passes)), min_size=1, max_size=max_length),
           seed=st.integers(0, 2 ** 16))
    def run(prog, seq, seed):
        program = _as_program(prog)
        outcome = check_case(program, seq, sizes=sizes, seed=seed, tolerances=tolerances,
                             signature=signature, timeout=timeout, poison=poison)
        if record(outcome, program, seed):
            raise PassCheckError(outcome, dialect=dialect)

    run()


__all__ = ["check_pass", "check_pass_sequence", "SequenceReport", "DEFAULT_SIZES", "DEFAULT_DIALECT", "as_pass"]

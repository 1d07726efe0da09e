"""``check_pass`` and ``check_pass_sequence``: property tests of passes, usable from any pytest.

::

    from relax_ref.testing import check_pass, check_pass_sequence
    from relax_ref.transform import LegalizeOps

    def test_legalize():
        check_pass(LegalizeOps(), max_examples=30)

``check_pass(pass_, ...)`` draws programs (:func:`relax_ref.testing.strategies.programs`), applies
the ``prepare`` passes and then ``pass_``, and asserts the oracles of :mod:`relax_ref.testing.oracle`:
(a) the output is well formed, (b) the reference interpreter gives the same results before and
after at every size in ``sizes`` (tolerances per dtype), (c) public signatures are kept (parameters
unchanged, return struct info not weakened) unless ``signature=False``. A failure raises
:class:`~relax_ref.testing.oracle.PassCheckError` (an ``AssertionError``) after Hypothesis has shrunk
the program; its message is the symptom and both modules printed as TVMScript. With ``bundle_dir``
the failure is also written as a bundle (:mod:`relax_ref.testing.bundle`).

``check_pass_sequence(passes, ...)`` draws *sequences* of up to ``max_length`` passes from
``passes`` (Tzer's lesson: bugs often need a particular sequence) and checks after every pass. By
default the first failure is shrunk and raised like ``check_pass``; with ``stop_on_failure=False``
every failure is bundled (one bundle per kind of failure) and a :class:`SequenceReport` with the
counts per pass is returned instead.

Both call a Hypothesis ``@given`` test internally, so do not call them from inside another
``@given`` test. ``settings=`` replaces the Hypothesis settings (``max_examples`` is then ignored).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from ..errors import UnsupportedError
from .bundle import write_bundle
from .domain import MAX_SYM
from .oracle import Outcome, PassCheckError, check_case
from .program import GenConfig, Program
from .strategies import programs

DEFAULT_SIZES = (1, 3)


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


def check_pass(pass_: Callable, *, max_examples: int = 30, sizes: Sequence[int] = DEFAULT_SIZES,
               strategy=None, config: Optional[GenConfig] = None, prepare: Sequence[Callable] = (),
               signature: bool = True, tolerances: Optional[Mapping[str, Tuple[float, float]]] = None,
               timeout: Optional[float] = 60.0, bundle_dir=None, settings=None) -> None:
    """Property-test ``pass_`` (see the module docstring). ``strategy`` may produce ``Program`` or
    ``IRModule`` values (default: :func:`~relax_ref.testing.strategies.programs` with ``config``)."""
    sizes = _check_sizes(sizes)
    strat = strategy if strategy is not None else programs(config)
    chain = list(prepare) + [pass_]

    @_settings(max_examples, settings)
    @given(prog=strat, seed=st.integers(0, 2 ** 16))
    def run(prog, seed):
        program = _as_program(prog)
        outcome = check_case(program, chain, sizes=sizes, seed=seed, tolerances=tolerances,
                             signature=signature, timeout=timeout, untested=len(prepare))
        if not outcome.ok:
            if bundle_dir is not None:
                write_bundle(bundle_dir, outcome, seed=seed, choices=program.choices or None)
            raise PassCheckError(outcome)

    run()


@dataclass
class SequenceReport:
    """What :func:`check_pass_sequence` saw with ``stop_on_failure=False``."""

    programs: int = 0
    per_pass: Dict[str, Counter] = field(default_factory=dict)
    bundles: List[str] = field(default_factory=list)

    def record(self, outcome: Outcome) -> None:
        self.programs += 1
        last = len(outcome.passes) if outcome.ok else outcome.failed_at + 1
        for i, name in enumerate(outcome.passes[:last]):
            c = self.per_pass.setdefault(name, Counter())
            c["ok" if outcome.ok or i < outcome.failed_at else outcome.symptom] += 1

    @property
    def failures(self) -> int:
        return sum(c[k] for c in self.per_pass.values() for k in c if k != "ok")


def check_pass_sequence(passes: Sequence[Callable], *, max_length: int = 4, max_examples: int = 30,
                        sizes: Sequence[int] = DEFAULT_SIZES, strategy=None, config: Optional[GenConfig] = None,
                        signature: bool = True, tolerances=None, timeout: Optional[float] = 60.0,
                        bundle_dir=None, stop_on_failure: bool = True, settings=None) -> Optional[SequenceReport]:
    """Property-test random sequences drawn from ``passes`` (see the module docstring)."""
    if not passes:
        raise UnsupportedError("check_pass_sequence needs at least one pass")
    sizes = _check_sizes(sizes)
    strat = strategy if strategy is not None else programs(config)
    report = SequenceReport()
    seen = set()

    @_settings(max_examples, settings)
    @given(prog=strat, seq=st.lists(st.sampled_from(list(passes)), min_size=1, max_size=max_length),
           seed=st.integers(0, 2 ** 16))
    def run(prog, seq, seed):
        program = _as_program(prog)
        outcome = check_case(program, seq, sizes=sizes, seed=seed, tolerances=tolerances,
                             signature=signature, timeout=timeout)
        if not stop_on_failure:
            report.record(outcome)
        if outcome.ok:
            return
        if bundle_dir is not None:
            path = write_bundle(bundle_dir, outcome, seed=seed, choices=program.choices or None)
            if str(path) not in seen:
                seen.add(str(path))
                report.bundles.append(str(path))
        if stop_on_failure:
            raise PassCheckError(outcome)

    run()
    return None if stop_on_failure else report


__all__ = ["check_pass", "check_pass_sequence", "SequenceReport", "DEFAULT_SIZES"]

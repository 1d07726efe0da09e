"""Running cases against an adapter and judging the outcome.

Per case: skip if the adapter declares a feature the case requires unsupported; ``load`` the text;
for ``invalid``/``malformed`` cases the load must fail with an error of that class (and a matching
``error_kind``); otherwise every run must either return a value equal to the expected one or fail
with a matching run-time error. The first run that does not behave decides the case.

Each result that is not a pass records the *behaviour* that decided it, in a short fixed form:
``load: error KIND``, ``load: no error``, ``run N: error KIND``, ``run N: wrong value``,
``run N: a value`` (an error was expected) or ``adapter error``. A known divergence matches only
when the behaviour is the one it records, so that a new failure of a listed case is not hidden.
"""

from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from . import vocab
from .adapter import Adapter, AdapterError, LoadError, RunError, Unsupported
from .case import CaseSpec, RunSpec
from .divergences import Divergence
from .values import describe, mismatches


@dataclass
class CaseResult:
    case_id: str
    category: str
    result: str                           # one of vocab.RESULTS
    detail: str = ""
    kind: Optional[str] = None            # the error kind the implementation reported, if any
    run_index: Optional[int] = None       # the run that decided a failure
    duration: float = 0.0
    divergence: Optional[Divergence] = None
    stale_divergence: bool = False
    tags: tuple = field(default_factory=tuple)
    behaviour: str = ""                   # what decided a result other than pass (module docstring)


class _Verdict(Exception):
    def __init__(self, result: str, detail: str, kind: Optional[str] = None, run: Optional[int] = None,
                 behaviour: str = ""):
        super().__init__(detail)
        self.result, self.detail, self.kind, self.run = result, detail, kind, run
        self.behaviour = behaviour


def _where(run: Optional[int]) -> str:
    return "load" if run is None else f"run {run}"


def _expectation_text(expect: str, kind: Optional[str]) -> str:
    return f"{expect}" + (f" ({kind})" if kind else "")


def _judge_error(expect: str, expected_kind: Optional[str], err: AdapterError, phase: str,
                 run: Optional[int]) -> None:
    """Raise the verdict for an implementation error met while expecting ``expect``."""
    actual_phase = vocab.expect_for_kind(err.kind)
    got = f"{phase} error {err.label}: {err.message}"
    behaviour = f"{_where(run)}: error {err.label}"
    if expect == "return":
        raise _Verdict("fail", f"expected a value, got {got}", err.label, run, behaviour)
    if actual_phase is not None and actual_phase != expect:
        raise _Verdict("fail", f"expected {_expectation_text(expect, expected_kind)}, got {got}", err.label, run,
                       behaviour)
    if vocab.kind_matches(expected_kind, err.kind, err.site):
        return
    raise _Verdict("fail", f"expected {_expectation_text(expect, expected_kind)}, got {got}", err.label, run,
                   behaviour)





def _case_data(read: Callable[[], Any], case: CaseSpec, run: RunSpec) -> Any:
    try:
        return read()
    except Exception as err:  # noqa: BLE001 - NpzError, ValueSpecError, OSError: the case, not the adapter
        raise _Verdict("error", f"cannot read the data of run {run.index}: {err}", None, run.index,
                       "case data") from None


def _check_run(adapter: Adapter, handle: Any, case: CaseSpec, run: RunSpec) -> None:
    args = _case_data(lambda: case.inputs(run), case, run)
    try:
        out = adapter.run(handle, case.entry, args)
    except RunError as err:
        _judge_error(run.expect, run.error_kind, err, "run", run.index)
        return
    if run.expect == "runtime_error":
        raise _Verdict("fail", f"expected {_expectation_text('runtime_error', run.error_kind)}, "
                               f"got a value {describe(out)}", None, run.index, f"{_where(run.index)}: a value")
    expected = _case_data(lambda: case.expected(run), case, run)
    diffs = mismatches(expected, out, run.rtol, run.atol)
    if diffs:
        more = f" (+{len(diffs) - 3} more)" if len(diffs) > 3 else ""
        raise _Verdict("fail", "; ".join(diffs[:3]) + more, None, run.index, f"{_where(run.index)}: wrong value")


def judge_case(adapter: Adapter, case: CaseSpec) -> tuple[str, str, Optional[str], Optional[int]]:
    """Run one case; returns ``(result, detail, reported kind, deciding run)``."""
    result, detail, kind, run, _ = judge_case_behaviour(adapter, case)
    return result, detail, kind, run


def judge_case_behaviour(adapter: Adapter, case: CaseSpec) -> tuple[str, str, Optional[str], Optional[int], str]:
    """:func:`judge_case` plus the behaviour that decided a result other than pass (module docstring)."""
    missing = sorted(set(case.requires) & set(adapter.unsupported_features))
    if missing:
        return "skip", f"the adapter declares {', '.join(missing)} unsupported", None, None, ""
    handle = None
    try:
        try:
            handle = adapter.load(case.text, case)
        except LoadError as err:
            if case.expect not in vocab.LOAD_EXPECTS:
                raise _Verdict("fail", f"expected the module to load, got load error {err.label}: "
                                       f"{err.message}", err.label, None, f"load: error {err.label}") from None
            _judge_error(case.expect, case.error_kind, err, "load", None)
            return "pass", "", err.label, None, ""
        if case.expect in vocab.LOAD_EXPECTS:
            raise _Verdict("fail", f"expected {_expectation_text(case.expect, case.error_kind)}, "
                                   "but the module loaded without error", None, None, "load: no error")
        for run in case.runs:
            _check_run(adapter, handle, case, run)
        return "pass", "", None, None, ""
    except _Verdict as v:
        return v.result, v.detail, v.kind, v.run, v.behaviour
    except Unsupported as u:
        return "skip", f"the adapter declares {u.feature} unsupported" + (f": {u.message}" if u.message else ""), \
            None, None, ""
    except Exception:  # noqa: BLE001 - an adapter bug must not stop the suite
        return "error", "the adapter raised unexpectedly:\n" + traceback.format_exc(limit=6), None, None, \
            "adapter error"
    finally:
        if handle is not None:
            try:
                adapter.release(handle)
            except Exception:  # noqa: BLE001 - release problems are reported by the next load
                pass


def run_cases(cases: list[CaseSpec], factory: Callable[[], Adapter], *, jobs: int = 1,
              divergences: Optional[dict[str, Divergence]] = None,
              progress: Optional[Callable[[CaseResult], None]] = None,
              first_adapter: Optional[Adapter] = None, close_adapters: bool = True) -> list[CaseResult]:
    """Run ``cases`` with ``jobs`` worker threads, each owning an adapter made by ``factory``; the
    adapters are closed at the end unless ``close_adapters`` is false (the caller reuses them)."""
    divergences = divergences or {}
    local = threading.local()
    made: list[Adapter] = []
    lock = threading.Lock()
    spare = [first_adapter] if first_adapter is not None else []

    def adapter_for_thread() -> Adapter:
        a = getattr(local, "adapter", None)
        if a is None:
            with lock:
                a = spare.pop() if spare else None
            if a is None:
                a = factory()
            with lock:
                made.append(a)
            local.adapter = a
        return a

    def one(case: CaseSpec) -> CaseResult:
        start = time.monotonic()
        try:
            adapter = adapter_for_thread()
            result, detail, kind, run, behaviour = judge_case_behaviour(adapter, case)
        except Exception:  # noqa: BLE001 - the adapter could not even be created
            result, detail, kind, run, behaviour = "error", "cannot create the adapter:\n" + \
                traceback.format_exc(limit=4), None, None, "adapter error"
        res = CaseResult(case.id, case.category, result, detail, kind, run, time.monotonic() - start,
                         tags=case.tags, behaviour=behaviour)
        div = divergences.get(case.id)
        if div is not None:
            res.divergence = div
            if result in ("fail", "error"):
                if div.behaviour == behaviour:
                    res.result = "known-divergence"
                else:
                    res.detail = (f"listed as a known divergence with the behaviour '{div.behaviour}', "
                                  f"but the behaviour is now '{behaviour}': {detail}")
            elif result == "pass":
                res.stale_divergence = True
        if progress is not None:
            progress(res)
        return res

    try:
        if jobs <= 1:
            results = [one(c) for c in cases]
        else:
            pool = ThreadPoolExecutor(max_workers=jobs)
            try:
                results = list(pool.map(one, cases))
            except BaseException:
                # an interrupt: drop the cases not started, and stop the implementations at once so
                # that the threads waiting on them return
                pool.shutdown(wait=False, cancel_futures=True)
                _kill_all(made + spare)
                raise
            pool.shutdown()
    except BaseException:
        _kill_all(made + spare)
        raise
    finally:
        for a in (made + spare) if close_adapters else ():
            try:
                a.close()
            except Exception:  # noqa: BLE001 - closing is best effort at the end of a run
                pass
    return results


def _kill_all(adapters: list) -> None:
    for a in adapters:
        kill = getattr(a, "kill", None)
        if kill is not None:
            try:
                kill()
            except Exception:  # noqa: BLE001 - best effort while stopping
                pass


def select_cases(cases: Iterable[CaseSpec], filters: Iterable[str]) -> list[CaseSpec]:
    """Cases matching any filter: a tag, a category, a case name, or a glob over ``category/name``."""
    import fnmatch

    filters = list(filters)
    if not filters:
        return list(cases)
    out = []
    for c in cases:
        if any(f in c.tags or f in (c.category, c.name) or fnmatch.fnmatchcase(c.id, f) for f in filters):
            out.append(c)
    return out


def is_unexpected(r: CaseResult) -> bool:
    """Results that make the run exit non-zero."""
    return r.result in ("fail", "error") or r.stale_divergence


__all__ = ["CaseResult", "judge_case", "judge_case_behaviour", "run_cases", "select_cases", "is_unexpected"]

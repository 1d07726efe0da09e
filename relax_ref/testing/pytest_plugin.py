"""pytest integration of ``check_pass``: a test factory, a fixture and command-line options.

Test factory (no plugin needed)::

    from relax_ref.testing import pass_test
    from relax_ref.transform import AnnotateTIROpPattern, FuseOps, LegalizeOps

    test_fuse_ops = pass_test(FuseOps(), prepare=[LegalizeOps(), AnnotateTIROpPattern()])

``pass_test(pass_, **kwargs)`` returns a test function that calls ``check_pass(pass_, **kwargs)``;
assigned to a ``test_*`` name it is collected like any other test (``pass_`` may be a zero-argument
factory, called when the test runs, so that collection builds nothing).

Plugin (``pytest -p relax_ref.testing.pytest_plugin`` or ``pytest_plugins = [...]`` in a conftest):

* ``--check-pass-profile quick|default|deep`` selects the settings profile of every ``check_pass``
  call in the run (:mod:`relax_ref.testing.profiles`; it sets ``RELAX_REF_CHECK_PROFILE``), and
  ``--check-pass-seed N`` the seed (``RELAX_REF_CHECK_SEED``);
* the ``pass_checker`` fixture is ``check_pass`` that also records the search statistics of each
  call (programs, programs per second, coverage) as test properties (they appear in JUnit XML) and
  in the terminal summary.
"""

from __future__ import annotations

import os
from typing import Any, Callable, List

from .profiles import ENV_VAR, SEED_ENV_VAR


def pass_test(pass_: Any, **kwargs) -> Callable[[], None]:
    """A pytest test function checking ``pass_`` (or the pass ``pass_()`` returns) with
    ``check_pass(pass_, **kwargs)``."""
    from .check import check_pass

    def test() -> None:
        p = pass_() if _is_factory(pass_) else pass_
        check_pass(p, **kwargs)

    name = getattr(pass_, "name", None) or getattr(pass_, "__name__", None) or type(pass_).__name__
    test.__name__ = f"test_{name}"
    test.__doc__ = f"check_pass({name}) -- the oracles of relax_ref.testing on generated programs."
    return test


def _is_factory(f: Any) -> bool:
    """A plain function or class taking no argument (a pass instance is called with a module)."""
    import inspect

    if inspect.isclass(f):
        return True
    if not inspect.isfunction(f):
        return False
    return all(p.default is not inspect.Parameter.empty for p in inspect.signature(f).parameters.values())


_REPORTS: List[str] = []


def pytest_addoption(parser) -> None:  # pragma: no cover - exercised through pytest itself
    group = parser.getgroup("relax-ref", "relax-ref property testing of passes")
    group.addoption("--check-pass-profile", default=None,
                    help="settings profile of check_pass: quick (CI), default, deep (nightly)")
    group.addoption("--check-pass-seed", type=int, default=None, help="seed of every check_pass search")


def pytest_configure(config) -> None:  # pragma: no cover
    profile = config.getoption("--check-pass-profile", None)
    if profile:
        os.environ[ENV_VAR] = profile
    seed = config.getoption("--check-pass-seed", None)
    if seed is not None:
        os.environ[SEED_ENV_VAR] = str(seed)


def pytest_terminal_summary(terminalreporter) -> None:  # pragma: no cover
    if _REPORTS:
        terminalreporter.section("check_pass")
        for line in _REPORTS:
            terminalreporter.write_line(line)


try:  # the fixture is only defined where pytest is importable
    import pytest

    @pytest.fixture
    def pass_checker(request, record_property):
        """``check_pass`` recording its statistics on the test (see the module docstring)."""
        from .check import check_pass

        def run(pass_, **kwargs):
            stats = check_pass(pass_, **kwargs)
            if stats is not None:
                record_property("check_pass_programs", stats.programs)
                record_property("check_pass_programs_per_second", round(stats.programs_per_second, 1))
                if stats.coverage is not None:
                    record_property("check_pass_coverage", stats.coverage.as_dict())
                _REPORTS.append(f"{request.node.nodeid}: {stats.describe()}")
            return stats

        return run
except ImportError:  # pragma: no cover
    pass


__all__ = ["pass_test"]

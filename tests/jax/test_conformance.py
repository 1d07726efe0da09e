"""The conformance suite on the JAX executor: every case the reference interpreter passes must pass
on ``--impl jax`` too (values, and run-time errors of the same kinds)."""

from pathlib import Path

import pytest

from relax_conformance import run_cases
from relax_conformance.adapters import make_inprocess
from relax_conformance.case import discover_cases

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"


@pytest.fixture(scope="module")
def cases():
    found, errors = discover_cases([CASES])
    assert not errors
    assert len(found) > 100
    return found


def test_jax_passes_every_case_ref_passes(cases):
    ref = {r.case_id: r.result for r in run_cases(cases, make_inprocess("ref"))}
    passing = [c for c in cases if ref[c.id] == "pass"]
    assert len(passing) > 100
    results = run_cases(passing, make_inprocess("jax"))
    bad = [(r.case_id, r.result, r.detail[:300]) for r in results if r.result != "pass"]
    assert not bad, bad


def test_jax_adapter_is_registered():
    from relax_conformance.adapters import BUILTIN

    assert BUILTIN["jax"] == "relax_conformance.adapters.jax:JaxAdapter"
    adapter = make_inprocess("jax")()
    assert "relax_jax" in adapter.name

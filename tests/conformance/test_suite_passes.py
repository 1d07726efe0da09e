"""The whole conformance suite passes on the reference interpreter and on the JAX executor.

This is what ``relax-conformance run --impl ref,jax`` checks, inside the test session: the same
adapters in the same worker processes (so that a crash or a hang of an implementation is a failing
case, not a dead test session), the same judgement and the same divergence list. Each
implementation's cases run once, split into one test per category so that pytest-xdist spreads
them over its workers; a failing test lists every case of its category that failed, with the
behaviour that decided it.
"""

from pathlib import Path

import pytest

from relax_conformance.adapters import make_adapter_factory
from relax_conformance.case import discover_cases
from relax_conformance.divergences import for_impl, load_divergences
from relax_conformance.gen import default_cases_root
from relax_conformance.runner import is_unexpected, run_cases

IMPLS = ("ref", "jax")
#: the features each implementation declares unsupported (its cases are skipped, not passed)
UNSUPPORTED = {"ref": set(), "jax": set()}
CATEGORIES = sorted(p.name for p in Path(default_cases_root()).iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def suite():
    cases, errors = discover_cases([default_cases_root()])
    assert not errors, "\n".join(map(str, errors))
    by_cat: dict = {}
    for c in cases:
        by_cat.setdefault(c.category, []).append(c)
    return by_cat


@pytest.fixture(scope="module")
def adapters():
    """One worker process per implementation, kept for the module (restarted after a crash)."""
    made: dict = {}

    def get(impl):
        if impl not in made:
            made[impl] = make_adapter_factory(impl, timeout=120)()
        return made[impl]

    yield get
    for a in made.values():
        a.close()


def test_categories_are_the_suite():
    cases, _ = discover_cases([default_cases_root()])
    assert sorted({c.category for c in cases}) == CATEGORIES
    assert len(cases) > 1000


@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("impl", IMPLS)
def test_every_case_passes(suite, adapters, impl, category):
    adapter = adapters(impl)
    divergences = for_impl(load_divergences(), impl)
    results = run_cases(suite[category], lambda: adapter, divergences=divergences, close_adapters=False)
    assert len(results) == len(suite[category])
    # a skip is not a pass: only a case that needs a feature the implementation declares unsupported
    # may skip (both run every case, the local-view ones included, DIST.LOCAL.1), and the declarations
    # are pinned
    assert set(adapter.unsupported_features) == UNSUPPORTED[impl]
    requires = {c.id: set(c.requires) for c in suite[category]}
    bad = [r for r in results if is_unexpected(r)
           or (r.result == "skip" and not requires[r.case_id] & UNSUPPORTED[impl])]
    assert not bad, f"{len(bad)} of {len(results)} {category} cases do not pass on {impl}:\n" + "\n".join(
        f"  {r.case_id}: {r.result} ({r.behaviour or 'stale divergence'}): {r.detail.strip()[:600]}" for r in bad)


def test_jax_adapter_is_registered():
    from relax_conformance.adapters import BUILTIN, make_inprocess

    assert BUILTIN["jax"] == "relax_conformance.adapters.jax:JaxAdapter"
    adapter = make_inprocess("jax")()
    assert "relax_jax" in adapter.name

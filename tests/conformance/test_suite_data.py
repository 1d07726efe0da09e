"""The checked-in suite is consistent: cases are exactly what the generators write, the rendered
tables are current, every case is valid and cites rules the spec defines, and generators do not use an
implementation as their oracle."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import relax_conformance
from relax_conformance import coverage, divergences
from relax_conformance.case import discover_cases
from relax_conformance.gen import default_cases_root
from relax_conformance.packed import MISSING_FUNC, SUITE_FUNCS
from relax_conformance.regen import check_current, default_generators_dir, generator_scripts

from file_modules import load_file

CONFORMANCE = Path(relax_conformance.__file__).resolve().parents[1]
REPO = CONFORMANCE.parent


@pytest.fixture(scope="module")
def suite():
    cases, errors = discover_cases([default_cases_root()])
    assert [str(e) for e in errors] == []
    return cases


def test_regenerating_changes_nothing():
    assert check_current() == []


def test_generators_do_not_use_an_implementation_as_oracle():
    forbidden = ("relax_ref.interp", "relax_ref.evaluate", "tvm", "relax_jax")
    scripts = generator_scripts(default_generators_dir())
    assert scripts
    # the scripts and the helper modules they import from the same directory
    for script in sorted(default_generators_dir().glob("*.py")):
        tree = ast.parse(script.read_text(), str(script))
        names = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            assert not any(name == f or name.startswith(f + ".") for f in forbidden), (script.name, name)
        assert "evaluate(" not in script.read_text(), script.name


def test_coverage_table_is_current(suite):
    assert coverage.default_path().read_text() == coverage.render(suite), \
        "run `relax-conformance coverage`"


def test_divergence_table_is_current_and_names_real_cases(suite):
    divs = divergences.load_divergences()
    rendered = divergences.default_path().with_name("DIVERGENCES.md").read_text()
    assert rendered == divergences.render_markdown(divs), "run `relax-conformance divergences`"
    ids = {c.id for c in suite}
    assert [d.case for d in divs if d.case not in ids] == []


#: the runtime's own functions a case tagged ``lowered`` may call (CALL.PACKED.5, .6, .8, .9, CALL.SHAPEHEAP.*)
RUNTIME_PREFIXES = ("vm.builtin.", "relax.run.", "runtime.TVMTensorCreateView", "runtime.disco.")
#: the KV-cache object's functions, which a case tagged ``kv_cache`` may call (CALL.KVCACHE.*)
KV_CACHE_PREFIX = "vm.builtin.attention_kv_cache_"
#: the paged KV cache's functions, which a case tagged ``paged_kv_cache`` may call (CALL.PAGEDKV.*)
PAGED_KV_PREFIXES = ("vm.builtin.paged_attention_kv_cache_", "vm.builtin.kv_state_", KV_CACHE_PREFIX)


def test_cases_use_only_conformance_packed_functions(suite):
    allowed = set(SUITE_FUNCS) | {MISSING_FUNC}
    for case in suite:
        names = re.findall(r'R\.call_\w*packed\(\s*"([^"]+)"', case.text)
        names += re.findall(r'R\.call_builtin_with_ctx\(\s*"([^"]+)"', case.text)
        for name in names:
            runtime = ("lowered" in case.tags and name.startswith(RUNTIME_PREFIXES)) or \
                ("kv_cache" in case.tags and name.startswith(KV_CACHE_PREFIX)) or \
                ("paged_kv_cache" in case.tags and name.startswith(PAGED_KV_PREFIXES))
            assert name in allowed or runtime, (case.id, name)


def test_every_case_has_an_oracle_and_a_valid_layout(suite):
    assert len(suite) >= 120
    for case in suite:
        assert case.spec and case.oracle
        assert (case.expect in ("invalid", "malformed")) == (not case.runs), case.id
        if case.spelling == "classic":
            assert "classic-spelling" in case.requires, case.id


def test_cited_rules_exist_in_the_spec(suite):
    tool = REPO / "spec" / "tools" / "rule_ids.py"
    if not tool.exists():
        pytest.skip("the spec tools are not part of this checkout")
    rule_ids = load_file("_spec_rule_ids", tool)
    rules = rule_ids.defined_ids(REPO / "spec")
    undefined = sorted({(rid, c.id) for c in suite for rid in c.spec if rid not in rules})
    assert undefined == []


def test_subnormal_values_are_compared_with_a_tolerance_that_allows_flushing(suite):
    """PRIM.FLOAT.6: an executor that compiles may flush subnormal float32/float64 values to zero, so
    a run whose inputs or expected results hold one compares with atol of at least the dtype's
    smallest normal value."""
    from relax_conformance.npz import read_npz

    bad, checked = [], 0
    for case in suite:
        for run in case.runs:
            files = [run.inputs] + ([run.expected] if run.expected else [])
            for name in files:
                for key, arr in read_npz(case.path / name).items():
                    if arr.dtype not in (np.float32, np.float64) or not arr.size:
                        continue
                    checked += 1
                    tiny = np.finfo(arr.dtype).tiny
                    a = np.abs(arr[np.isfinite(arr)])
                    if np.any((a > 0) & (a < tiny)) and run.atol < tiny:
                        bad.append(f"{case.id} run {run.index} {name}:{key}")
    assert bad == [] and checked > 1000

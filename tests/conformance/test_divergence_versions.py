"""Known divergences per release: an entry holds for the releases it lists, a run is judged against the
entries of the release that runs, and recording a report of one release leaves the others' entries alone.

The implementation is the subprocess protocol's example (``conformance/examples/toy_impl.py``), made
wrong with ``TOY_BUG`` and given a version with ``TOY_VERSION``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import relax_conformance
from relax_conformance.divergences import (DivergenceFileError, for_impl, load_divergences, record_behaviours,
                                           release_of, render_markdown)
from relax_conformance.gen import Case, module_text, write_cases

PKG_PARENT = Path(relax_conformance.__file__).resolve().parents[1]
TOY = PKG_PARENT / "examples" / "toy_impl.py"
ENTRY = {"impl": "toy", "case": "t/add", "category": "tvm-bug", "observed": "x", "reason": "y",
         "behaviour": "run 0: wrong value"}

ADD = module_text('''
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.add(x, y)
        return z
''')


@pytest.fixture(scope="module")
def cases_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("cases")
    x, y = np.array([1.5, -2.0], "float32"), np.array([0.25, 4.0], "float32")
    write_cases("t", [Case("add", ADD, runs=[([x, y], x + y)], spec=["CALL.FUNC.2"])], root)
    return root


def _write(path, *entries):
    path.write_text(json.dumps({"format_version": 1, "divergences": list(entries)}))
    return path


def _run(cases_root, tmp_path, divs, version=None, bug="add_is_sub"):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PKG_PARENT), env.get("PYTHONPATH", "")])
    env.pop("TOY_VERSION", None)
    if bug:
        env["TOY_BUG"] = bug
    if version:
        env["TOY_VERSION"] = version
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "relax_conformance", "run", "--impl", f"cmd:{sys.executable} {TOY}",
                           "--cases", str(cases_root), "--divergences", str(divs), "--divergence-key", "toy",
                           "--json", str(report), "-q"], capture_output=True, text=True, env=env, timeout=300)
    return proc.returncode, json.loads(report.read_text())


def test_release_of_a_version():
    assert release_of("0.27.0.post1") == "0.27"
    assert release_of("0.25.0") == "0.25"
    assert release_of("1.2") == "1.2"


def test_entries_are_picked_by_release(tmp_path):
    path = _write(tmp_path / "d.json", dict(ENTRY, versions=["0.25"]),
                  dict(ENTRY, behaviour="run 0: error crash", versions=["0.27", "0.28"]),
                  dict(ENTRY, case="t/other"))
    divs = load_divergences(path)
    assert for_impl(divs, "toy", "0.25.0")["t/add"].behaviour == "run 0: wrong value"
    assert for_impl(divs, "toy", "0.27.0.post1")["t/add"].behaviour == "run 0: error crash"
    assert set(for_impl(divs, "toy", "0.26.1")) == {"t/other"}  # a release no entry of t/add lists
    assert set(for_impl(divs, "toy", None)) == {"t/add", "t/other"}  # no version: every entry
    text = render_markdown(divs)
    assert "(2 cases; 0.25: 2; 0.27: 2; 0.28: 2)" in text
    assert "| `t/add` | tvm-bug | 0.27, 0.28 | `run 0: error crash` |" in text
    assert "| `t/other` | tvm-bug | all |" in text


@pytest.mark.parametrize("entries, problem", [
    ([dict(ENTRY, versions=["0.25"]), dict(ENTRY, versions=["0.27", "0.25"])], "duplicate entry .* release 0.25"),
    ([dict(ENTRY), dict(ENTRY, versions=["0.27"])], "duplicate entry"),
    ([dict(ENTRY, versions=["0.27"]), dict(ENTRY)], "duplicate entry"),
    ([dict(ENTRY, versions=[])], "non-empty list"),
    ([dict(ENTRY, versions="0.25")], "non-empty list"),
    ([dict(ENTRY, versions=["0.25.0"])], "non-empty list"),
    ([dict(ENTRY, versions=["0.25", "0.25"])], "twice"),
])
def test_malformed_version_lists(tmp_path, entries, problem):
    with pytest.raises(DivergenceFileError, match=problem):
        load_divergences(_write(tmp_path / "d.json", *entries))


def test_a_run_is_judged_against_its_release(cases_root, tmp_path):
    divs = _write(tmp_path / "d.json", dict(ENTRY, versions=["0.25"]))
    rc, report = _run(cases_root, tmp_path, divs, version="0.25.0")
    assert rc == 0 and report["version"] == "0.25.0"
    assert report["cases"][0]["result"] == "known-divergence"
    # the same failure on a release the entry does not list is unexpected
    rc, report = _run(cases_root, tmp_path, divs, version="0.27.0")
    assert rc == 1 and report["cases"][0]["result"] == "fail" and report["cases"][0]["divergence"] is None
    # a release that no longer shows it: the entry is stale for that release only
    divs = _write(tmp_path / "d.json", dict(ENTRY, versions=["0.25", "0.27"]))
    rc, report = _run(cases_root, tmp_path, divs, version="0.27.1", bug=None)
    assert rc == 1 and report["cases"][0]["stale_divergence"] is True
    divs = _write(tmp_path / "d.json", dict(ENTRY, versions=["0.25"]))
    rc, report = _run(cases_root, tmp_path, divs, version="0.27.1", bug=None)
    assert rc == 0 and report["cases"][0]["result"] == "pass" and not report["cases"][0]["stale_divergence"]


def test_recording_a_release_splits_a_shared_entry(cases_root, tmp_path):
    shared = dict(ENTRY, behaviour="run 0: error crash", versions=["0.25", "0.27"])
    divs = _write(tmp_path / "d.json", shared, dict(ENTRY, case="t/gone", versions=["0.25"]))
    _, report = _run(cases_root, tmp_path, divs, version="0.27.0")
    text, notes = record_behaviours(divs, report, "toy")
    (tmp_path / "d.json").write_text(text)
    by_release = {d.versions: d for d in load_divergences(tmp_path / "d.json") if d.case == "t/add"}
    assert by_release[("0.25",)].behaviour == "run 0: error crash"  # the other release keeps its behaviour
    assert by_release[("0.27",)].behaviour == "run 0: wrong value"
    assert len(notes) == 1 and "a new entry for 0.27" in notes[0]  # t/gone is not an entry of 0.27
    # a passing case is noted as stale for the report's release
    _, report = _run(cases_root, tmp_path, divs, version="0.27.0", bug=None)
    _, notes = record_behaviours(tmp_path / "d.json", report, "toy")
    assert notes == ["t/add: passes on toy 0.27 (a stale entry: remove 0.27 from its versions); "
                     "behaviour left as is"]

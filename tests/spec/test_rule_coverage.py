"""Every normative rule of the spec is cited by a conformance case or marked «not observable: <why>»
(``check_ids.py --require-cases``), and the checker enforces the marker's form.

Synthetic IDs are assembled from parts so that the repository-wide citation scan does not read them as
citations of real rules.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "spec" / "tools"
W = "W" + "F"


def _load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


rule_ids = _load("rule_ids")
check_ids = _load("check_ids")


def test_every_normative_rule_is_cited_by_a_case_or_marked_not_observable():
    report = check_ids.check(ROOT, require_cases=True)
    assert report.uncited == [], "rules without a case: " + ", ".join(r.id for r in report.uncited)
    assert report.unexplained == [] and report.observed == []
    assert report.ok


def test_the_command_line_check_passes():
    """The step CI runs."""
    out = subprocess.run([sys.executable, str(TOOLS / "check_ids.py"), "--require-cases"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "marked not observable" in out.stdout


def _repo(tmp_path: Path, rules: str, cited=()) -> Path:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "00-intro.md").write_text("# Intro\n\n" + rules, encoding="utf-8")
    case = tmp_path / "conformance" / "cases" / "cat" / "one"
    case.mkdir(parents=True)
    (case / "meta.json").write_text(json.dumps({"spec": list(cited) or [f"{W}.ZZ.9"]}), encoding="utf-8")
    return tmp_path


def test_not_observable_with_a_reason_is_exempt(tmp_path):
    root = _repo(tmp_path, f"**({W}.ZZ.1)** A rule no module can show.\n«not observable: the parser forbids it»\n\n"
                           f"**({W}.ZZ.9)** A rule with a case.\n")
    report = check_ids.check(root, require_cases=True)
    assert report.uncited == [] and report.ok and report.not_observable == 1
    rule = rule_ids.parse_definitions(root / "spec").rules[f"{W}.ZZ.1"]
    assert rule.not_observable and not rule.unexplained and not rule.needs_case


def test_not_observable_needs_a_reason(tmp_path):
    root = _repo(tmp_path, f"**({W}.ZZ.1)** A rule. «not observable»\n\n**({W}.ZZ.2)** Another. "
                           f"«not observable:  »\n\n**({W}.ZZ.9)** Cited.\n")
    report = check_ids.check(root)
    assert sorted(r.id for r in report.unexplained) == [f"{W}.ZZ.1", f"{W}.ZZ.2"]
    assert not report.ok
    assert check_ids.main(["--root", str(root)]) == 1


def test_a_rule_marked_not_observable_that_a_case_cites_is_an_error(tmp_path):
    root = _repo(tmp_path, f"**({W}.ZZ.1)** A rule. «not observable: so it says»\n\n**({W}.ZZ.9)** Cited.\n",
                 cited=[f"{W}.ZZ.1", f"{W}.ZZ.9"])
    assert check_ids.check(root).ok                       # only --require-cases compares with cases
    strict = check_ids.check(root, require_cases=True)
    assert [r.id for r in strict.observed] == [f"{W}.ZZ.1"] and not strict.ok
    assert strict.to_json()["not_observable_but_cited_by_cases"] == [f"{W}.ZZ.1"]

"""The ``## Conformance cases`` section of every operator page lists the cases that cite the page's rules
(``spec/tools/op_cases.py``).

Synthetic IDs in this file are assembled from parts (``OP + ".C1"``) so that the repository-wide
citation scan does not mistake them for citations of real rules.
"""


from pathlib import Path
from types import SimpleNamespace

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "spec" / "tools"


def _load(name: str):
    return load_file(name, TOOLS / f"{name}.py")  # the tools import each other by these names


rule_ids = _load("rule_ids")
op_cases = _load("op_cases")

OP = "OP." + "zz"     # a synthetic operator page's constraint prefix
GROUP = "OP." + "ZZ"  # a synthetic category rule prefix


def _case(case_id: str, *spec: str):
    return SimpleNamespace(id=case_id, spec=tuple(spec))


# ---------------------------------------------------------------------------------------------------
# The real pages
# ---------------------------------------------------------------------------------------------------


def test_every_operator_page_lists_its_cases():
    updates = op_cases.plan(ROOT)
    assert len(updates) > 150
    stale = [u for u in updates if not u.current]
    detail = [f"{u.path.name}: +{u.added} -{u.removed}" for u in stale]
    assert not stale, ("operator pages whose '## Conformance cases' section is not current; run "
                       "`python spec/tools/op_cases.py`:\n" + "\n".join(detail))


def test_check_command_passes_on_the_repository(capsys):
    assert op_cases.main(["--check"]) == 0
    assert "ok:" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------------
# The section, on synthetic pages
# ---------------------------------------------------------------------------------------------------

PAGE_HEAD = (
    "# `relax.zz` — a test operator\n\n"
    "## Struct-info inference\n\n"
    f"* **({OP}.C1)** First.\n"
    f"* **({OP}.C2)** Second.\n\n"
    "## TVM divergences\n\nNone known.\n\n"
)


def test_rewrite_section_in_the_middle_of_a_page():
    text = (PAGE_HEAD + "## Conformance cases\n\n* `cat/old`\n* `cat/kept`\n\n\n"
            "## Notes\n\nUnchanged.\n")
    new = op_cases.rewrite(text, ["cat/kept", "cat/b", "cat/a"], [f"{OP}.C2"])
    assert new == (PAGE_HEAD + "## Conformance cases\n\n* `cat/a`\n* `cat/b`\n* `cat/kept`\n\n"
                   f"Constraints without a case: `{OP}.C2`.\n\n## Notes\n\nUnchanged.\n")
    # idempotent
    assert op_cases.rewrite(new, ["cat/a", "cat/b", "cat/kept"], [f"{OP}.C2"]) == new


def test_rewrite_section_at_the_end_of_a_page():
    text = PAGE_HEAD + "## Conformance cases\n* `cat/old`\n\n\n"
    new = op_cases.rewrite(text, ["cat/x"], [])
    assert new == PAGE_HEAD + "## Conformance cases\n\n* `cat/x`\n"
    # no trailing newline at all
    assert op_cases.rewrite(PAGE_HEAD + "## Conformance cases", ["cat/x"], []) == new


def test_only_the_without_line_when_no_case_cites_the_page():
    text = PAGE_HEAD + "## Conformance cases\n\nNone yet.\n"
    new = op_cases.rewrite(text, [], [f"{OP}.C10", f"{OP}.C2", f"{OP}.C3"])
    assert new.endswith("## Conformance cases\n\n"
                        f"Constraints without a case: `{OP}.C2`, `{OP}.C3`, `{OP}.C10`.\n")
    assert op_cases.rewrite(text, [], []).endswith("## Conformance cases\n\nNone yet.\n")


def test_annotations_and_notes_are_kept():
    text = (PAGE_HEAD + "## Conformance cases\n\n"
            "* `cat/a` (C1; return): described\n"
            "* `cat/gone` (C2; return)\n\n"
            "Constraints without a case: C2. A stale explanation.\n\n"
            "A note that stays.\n")
    new = op_cases.rewrite(text, ["cat/a", "cat/b"], [])
    assert new == (PAGE_HEAD + "## Conformance cases\n\n"
                   "* `cat/a` (C1; return): described\n* `cat/b`\n\n"
                   "A note that stays.\n")


def test_headings_in_code_blocks_do_not_end_the_section():
    text = PAGE_HEAD + "## Conformance cases\n\n* `cat/a`\n\n```\n## not a heading\n```\n"
    start, end = op_cases.section_span(text)
    assert end == len(text)
    assert op_cases.section_span(PAGE_HEAD) is None


# ---------------------------------------------------------------------------------------------------
# Which cases count for a page
# ---------------------------------------------------------------------------------------------------


def _rules(*ids: str) -> dict:
    return {i: rule_ids.RuleDef(i, "spec/ops/zz.md", 1) for i in ids}


def test_renamed_and_group_citations_count(monkeypatch):
    rules = _rules(f"{OP}.C1", f"{OP}.C2", f"{GROUP}.SEM.1")
    monkeypatch.setitem(rule_ids.RENAMED, f"{OP}.C9", f"{OP}.C2")
    cases = [_case("cat/direct", f"{OP}.C1"), _case("cat/renamed", f"{OP}.C9"),
             _case("cat/group", f"{GROUP}.*"), _case("cat/other", "WF" + ".NOT.1")]
    by_rule = op_cases.citing_cases(cases, rules)
    assert by_rule == {f"{OP}.C1": {"cat/direct"}, f"{OP}.C2": {"cat/renamed"},
                       f"{GROUP}.SEM.1": {"cat/group"}}


def test_natural_order():
    ids = [f"{OP}.C10", f"{OP}.C2", f"{GROUP}.SEM.11", f"{GROUP}.SEM.3"]
    assert sorted(ids, key=op_cases.natural_key) == [
        f"{GROUP}.SEM.3", f"{GROUP}.SEM.11", f"{OP}.C2", f"{OP}.C10"]


def test_plan_on_a_synthetic_spec(tmp_path):
    ops = tmp_path / "spec" / "ops"
    ops.mkdir(parents=True)
    (ops / "zz.md").write_text(PAGE_HEAD + "## Conformance cases\n\n* `cat/stale`\n", encoding="utf-8")
    (ops / "yy.md").write_text(f"# yy\n\n* **({OP}.C3)** No section here.\n", encoding="utf-8")
    (ops / "_TEMPLATE.md").write_text("## Conformance cases\n\n<cases>\n", encoding="utf-8")
    (ops / "README.md").write_text("## Conformance cases\n\nIndex.\n", encoding="utf-8")
    cases = [_case("cat/one", f"{OP}.C1", "WF" + ".NOT.1"), _case("cat/three", f"{OP}.C3")]
    updates = op_cases.plan(tmp_path, cases=cases)
    assert [u.path.name for u in updates] == ["zz.md"]
    (u,) = updates
    assert not u.current and u.added == ["cat/one"] and u.removed == ["cat/stale"]
    assert u.new.endswith("## Conformance cases\n\n* `cat/one`\n\n"
                          f"Constraints without a case: `{OP}.C2`.\n")
    assert u.old == (ops / "zz.md").read_text(encoding="utf-8")  # plan writes nothing

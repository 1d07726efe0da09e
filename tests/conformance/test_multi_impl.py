"""``--impl ref,jax``: several implementations in one run, one summary each plus an overall table."""

import pytest

from relax_conformance.cli import main, split_impls


def test_split_impls():
    assert split_impls("ref") == ["ref"]
    assert split_impls("ref,jax") == ["ref", "jax"]
    assert split_impls('cmd:python impl.py --a,b') == ['cmd:python impl.py --a,b']
    assert split_impls("pkg.mod:Adapter") == ["pkg.mod:Adapter"]


def test_run_two_implementations(tmp_path, capsys):
    """--json and --junit name one file each, whatever the number of implementations: the JSON holds
    one report per implementation (``runs``), the JUnit file one testsuite per implementation and
    category under a root with the totals."""
    import json
    import xml.etree.ElementTree as ET

    from relax_conformance.report import runs_of

    pytest.importorskip("jax")
    out, xml = tmp_path / "r.json", tmp_path / "r.xml"
    code = main(["run", "--impl", "ref,jax", "--filter", "closures", "-q", "--json", str(out), "--junit", str(xml)])
    assert code == 0
    cap = capsys.readouterr()
    assert "all implementations" in cap.out and "jax" in cap.out
    assert f"wrote {out} (ref, jax)" in cap.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.xml"]
    runs = runs_of(json.loads(out.read_text()))
    assert [r["impl"] for r in runs] == ["ref", "jax"]
    n = len(runs[0]["cases"])
    assert n > 0 and len(runs[1]["cases"]) == n and all(r["unexpected"] == 0 for r in runs)
    root = ET.parse(xml).getroot()
    assert root.get("tests") == str(2 * n) and root.get("failures") == "0"
    assert {s.get("name").split(".")[0] for s in root.iter("testsuite")} == {"ref", "jax"}


def test_unknown_impl_in_list_fails_cleanly(capsys):
    assert main(["run", "--impl", "ref,nonexistent", "--filter", "closures", "-q"]) == 2

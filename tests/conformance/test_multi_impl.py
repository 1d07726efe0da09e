"""``--impl ref,jax``: several implementations in one run, one summary each plus an overall table."""

import pytest

from relax_conformance.cli import main, split_impls


def test_split_impls():
    assert split_impls("ref") == ["ref"]
    assert split_impls("ref,jax") == ["ref", "jax"]
    assert split_impls('cmd:python impl.py --a,b') == ['cmd:python impl.py --a,b']
    assert split_impls("pkg.mod:Adapter") == ["pkg.mod:Adapter"]


def test_run_two_implementations(tmp_path, capsys):
    pytest.importorskip("jax")
    out = tmp_path / "r.json"
    code = main(["run", "--impl", "ref,jax", "--filter", "closures", "-q", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "all implementations" in text and "jax" in text
    assert (tmp_path / "r.ref.json").is_file() and (tmp_path / "r.jax.json").is_file()


def test_unknown_impl_in_list_fails_cleanly(capsys):
    assert main(["run", "--impl", "ref,nonexistent", "--filter", "closures", "-q"]) == 2

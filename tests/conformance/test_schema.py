"""The JSON Schemas of the case format (conformance/schemas, relax_conformance.schema): current, every
shipped case valid, broken cases rejected, and every message of a real protocol conversation valid."""

import copy
import json
import shutil
import sys
from pathlib import Path

import pytest

from relax_conformance import schema
from relax_conformance.adapters import subprocess as sp_adapter
from relax_conformance.case import discover_cases
from relax_conformance.gen import default_cases_root
from relax_conformance.runner import run_cases

ROOT = Path(__file__).resolve().parents[2]
META = schema.load("meta")
PROTOCOL = schema.load("protocol")


def test_schema_files_are_current():
    for name in schema.NAMES:
        assert schema.path(name).read_text() == schema.text(name), f"run python -m relax_conformance.schema --write"


def test_every_case_is_valid():
    metas = sorted(default_cases_root().rglob("meta.json"))
    assert len(metas) > 1000
    bad = {str(p): schema.validate(json.loads(p.read_text()), META) for p in metas}
    assert not {k: v for k, v in bad.items() if v}


BASE = {"format_version": 1, "entry": "main", "expect": "return", "args": [{"kind": "tensor", "key": "a0"}],
        "outputs": {"kind": "tuple", "fields": [{"kind": "tensor", "key": "r_0"}]},
        "runs": [{"inputs": "run0.in.npz", "expected": "run0.out.npz"}], "spec": ["OP.flip.C1"],
        "tags": ["op:flip"], "oracle": "numpy-formula"}


@pytest.mark.parametrize("change, problem", [
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"expect": "works"}, "is not one of"),
    ({"format_version": 2}, "must be 1"),
    ({"spec": []}, "at least 1"),
    ({"entry": "not a name"}, "does not match"),
    ({"error_kind": "shape_mismatch"}, "must be null"),
    ({"error_kind": "bogus", "expect": "runtime_error"}, "is not one of"),
    ({"expect": "invalid", "error_kind": "struct_info"}, "at most 0"),
    ({"oracle": "the implementation"}, "is not one of"),
    ({"outputs": {"kind": "matrix", "key": "r"}}, "allowed forms"),
    ({"runs": [{"inputs": "run0.in.npz"}]}, "missing key 'expected'"),
    ({"rtol": -1}, ">= 0"),
])
def test_broken_meta_is_rejected(change, problem):
    meta = {**copy.deepcopy(BASE), **change}
    errs = schema.validate(meta, META)
    assert any(problem in e for e in errs), errs
    assert not schema.validate(BASE, META)


def test_missing_required_key():
    meta = copy.deepcopy(BASE)
    del meta["oracle"]
    assert schema.validate(meta, META) == ["$: missing key 'oracle'"]


@pytest.mark.parametrize("impl", ["python", "node"])
def test_a_conversation_follows_the_protocol_schema(monkeypatch, impl):
    """Every request the runner sends and every reply of the example implementations validates."""
    if impl == "node" and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    seen = []

    def dumps(msg, _orig=sp_adapter.dumps):
        seen.append(("request", msg))
        return _orig(msg)

    def loads(line, _orig=sp_adapter.loads):
        msg = _orig(line)
        seen.append(("reply", msg))
        return msg

    monkeypatch.setattr(sp_adapter, "dumps", dumps)
    monkeypatch.setattr(sp_adapter, "loads", loads)
    from relax_conformance.adapters import make_adapter_factory

    program = (f"{sys.executable} {ROOT / 'conformance/examples/toy_impl.py'}" if impl == "python"
               else f"{shutil.which('node')} {ROOT / 'conformance/examples/add_impl.js'}")
    cases, errors = discover_cases([default_cases_root() / "op_elementwise"])
    assert not errors
    cases = [c for c in cases if c.name in ("add", "add_dtype_mismatch", "subtract", "multiply_broadcast")]
    results = run_cases(cases, make_adapter_factory(f"cmd:{program}"))
    assert any(r.result == "pass" for r in results)
    assert {kind for kind, _ in seen} == {"request", "reply"}
    for kind, msg in seen:
        errs = schema.validate(msg, {"$ref": f"#/$defs/{kind}", "$defs": PROTOCOL["$defs"]})
        assert not errs, (kind, msg, errs)

"""The modules of the symbolic-shape and memory categories read back unchanged after printing them in every
dialect the printer knows (TEXT.RT.1): a case text must not depend on one TVMScript spelling unless that
is its point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import relax_ref
from relax_ref import structural_equal
from relax_ref.script.printer import DIALECTS

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"
CATEGORIES = ("symbolic_calls", "symbolic_data", "symbolic_branches", "symbolic_closures", "symbolic_tir",
              "memory", "tir_rules", "module_rules")


def _modules():
    """The modules of the cases that load (invalid and malformed ones have no module to print)."""
    for cat in CATEGORIES:
        for path in sorted((CASES / cat).glob("*/module.py")):
            if json.loads((path.parent / "meta.json").read_text())["expect"] in ("return", "runtime_error"):
                yield pytest.param(path, id=f"{cat}/{path.parent.name}")


@pytest.mark.parametrize("path", list(_modules()))
def test_case_module_prints_and_reads_back(path):
    mod = relax_ref.parse(path.read_text())
    for dialect in DIALECTS:
        again = relax_ref.parse(mod.script(dialect=dialect))
        assert structural_equal(mod, again, map_free_vars=True), dialect

"""The modules of the symbolic-shape, memory and rule categories read back after printing them in every
dialect the printer knows (TEXT.RT.1, TEXT.DIALECT.5): unchanged in classic and tvm-0.25; in tvm-0.27
they must read back, as the equivalent module where that dialect cannot write the same one (scalar
annotations by dtype only, tir_vars as scalar arguments). A dialect that declares a module unwritable
(``unsupported``) is skipped for it; a case text depends on one spelling only when that is its point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import relax_ref
from relax_ref import structural_equal
from relax_ref.errors import UnsupportedError
from relax_ref.script.printer import DIALECTS

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"
CATEGORIES = ("symbolic_calls", "symbolic_data", "symbolic_branches", "symbolic_closures", "symbolic_tir",
              "memory", "tir_rules", "module_rules")
#: dialects whose round trip may give an equivalent, not an equal, module (TEXT.DIALECT.5)
EQUIVALENT_ONLY = {"tvm-0.27"}


def _modules():
    """The modules of the cases that load (invalid and malformed ones have no module to print)."""
    for cat in CATEGORIES:
        for path in sorted((CASES / cat).glob("*/module.py")):
            if json.loads((path.parent / "meta.json").read_text())["expect"] in ("return", "runtime_error"):
                yield path


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("path", [pytest.param(p, id=f"{p.parent.parent.name}/{p.parent.name}") for p in _modules()])
def test_case_module_prints_and_reads_back(path, dialect):
    mod = relax_ref.parse(path.read_text())
    try:
        text = mod.script(dialect=dialect)
    except UnsupportedError as e:
        pytest.skip(f"{dialect} cannot write this module: {e.message}")
    again = relax_ref.parse(text)
    if dialect not in EQUIVALENT_ONLY:
        assert structural_equal(mod, again, map_free_vars=True)

"""Every module of the conformance suite that relax-ref accepts prints, in every dialect, to a text that
parses back to a structurally equal module (TEXT.RT.1): what the parser accepts, the printer can write
and the parser reads again.

A dialect may refuse a construct it cannot write (an ``unsupported`` error naming it, TEXT.DIALECT.5),
and tvm-0.27 writes an equivalent module where it has no spelling (an ``R.Prim(value=...)`` annotation,
``call_tir(..., tir_vars=...)``, TEXT.DIALECT.5): both are listed so that a new one is noticed, and the
equivalent module is itself printed to a fixpoint.
"""

import json
from pathlib import Path

import pytest

import relax_ref
from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.errors import RelaxError, UnsupportedError

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"
DIALECTS = ("classic", "tvm-0.25", "tvm-0.27")

#: (case, dialect) pairs the printer refuses, with the construct it names
REFUSED = {
    ("checks/prim_param_symbolic_value", "tvm-0.27"): "scalar parameter",
    ("match_cast/prim_value", "tvm-0.27"): "R.Prim(value=...)",
}

#: cases tvm-0.27 writes as an equivalent module (TEXT.DIALECT.5), and what it cannot spell
EQUIVALENT_027 = {
    "call_tir/tir_vars": "tir_vars",
    "op_core/call_tir": "tir_vars",
    "op_core/call_tir_with_grad": "tir_vars",
    "text/tir_handle_and_scalar_params": "tir_vars",
    "checks/prim_param_literal_value": "R.Prim(value=...)",
    "semantics/prim_value_param_float_nan": "R.Prim(value=...)",
    "text/prim_value_annotation_dtype": "R.Prim(value=...)",
}


def _accepted_modules():
    for meta in sorted(CASES.glob("*/*/meta.json")):
        if json.loads(meta.read_text())["expect"] == "malformed":
            continue
        name = str(meta.parent.relative_to(CASES))
        try:
            yield name, relax_ref.parse((meta.parent / "module.py").read_text())
        except RelaxError:
            continue  # rejected by design (expect: invalid)


def test_every_suite_module_round_trips_in_every_dialect():
    failures, refused, equivalent, checked = [], {}, set(), 0
    for name, mod in _accepted_modules():
        for dialect in DIALECTS:
            try:
                text = mod.script(dialect=dialect, show_meta=True)
            except UnsupportedError as e:
                refused[(name, dialect)] = e.message
                continue
            checked += 1
            try:
                back = relax_ref.parse(text)
            except RelaxError as e:
                failures.append(f"{name} [{dialect}]: the printed text does not parse: {e.message}")
                continue
            if structural_equal(mod, back):
                continue
            if dialect == "tvm-0.27" and name in EQUIVALENT_027:
                equivalent.add(name)
                again = back.script(dialect=dialect, show_meta=True)
                if again != text or not structural_equal(back, relax_ref.parse(again)):
                    failures.append(f"{name} [{dialect}]: the equivalent module does not print to a fixpoint")
                continue
            failures.append(f"{name} [{dialect}]: parses back to a different module")
    assert checked > 2000
    assert not failures, "\n".join(failures)
    assert equivalent == EQUIVALENT_027.keys()
    assert refused.keys() == REFUSED.keys(), refused
    for key, construct in REFUSED.items():
        assert construct in refused[key]


@pytest.mark.parametrize("call, message", [
    ('R.astype(x, "handle")', "'handle' is not a tensor element type"),
    ('R.zeros(R.shape([2]), "handle")', "'handle' is not a tensor element type"),
    ('R.vm.alloc_storage(R.shape([8]), R.prim_value(0), "flot32")', "unknown data type 'flot32'"),
    ('R.memory.alloc_storage(R.shape([8]), 0, "global", "int65")', "unknown data type 'int65'"),
])
def test_what_the_printer_could_not_write_back_is_rejected_at_parse(call, message):
    from relax_ref.errors import ParseError

    text = f'''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        y = {call}
        return x
'''
    with pytest.raises(ParseError, match=message):
        relax_ref.parse(text)


def test_a_view_used_by_several_statements_is_declared_once():
    text = (CASES / "semantics" / "buffer_view_aliases" / "module.py").read_text()
    mod = relax_ref.parse(text)
    for dialect in DIALECTS:
        printed = mod.script(dialect=dialect)
        assert printed.count("Bflat = T.Buffer(") == 1, dialect
        assert structural_equal(mod, relax_ref.parse(printed))

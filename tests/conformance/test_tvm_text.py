"""The TVM adapter's translation of suite cases into the installed release's dialect (no TVM needed)."""

import pytest

from relax_conformance.adapter import Unsupported
from relax_conformance.adapters.tvm_text import (
    case_dialect, operators_of, text_for, unsupported_features,
)
from relax_conformance.case import discover_cases
from relax_conformance.gen import default_cases_root
from relax_ref.errors import RelaxError
from relax_ref.script.parser import parse
from relax_ref.script.translate import unreadable_spellings


@pytest.fixture(scope="module")
def cases():
    found, errors = discover_cases([default_cases_root()])
    assert errors == []
    return {c.id: c for c in found}


def _text(case):
    return case.path.joinpath("module.py").read_text(encoding="utf-8")


def _verdict(text):
    """What relax-ref makes of a text: ``ok``, or the class of its static error."""
    try:
        parse(text)
    except RelaxError as err:
        return type(err).__name__
    return "ok"


def test_each_release_reads_only_its_own_spelling():
    assert unsupported_features("tvm-0.25") == {"classic-spelling", "tvm-0.27-spelling", "mixed-releases"}
    assert unsupported_features("tvm-0.27") == {"classic-spelling", "tvm-0.25-spelling", "mixed-releases"}


def test_case_dialect_comes_from_the_spelling_features(cases):
    assert case_dialect(cases["checks/tuple_param"]) == "tvm-0.25"
    assert case_dialect(cases["call_tir/classic_block_reduction"]) == "classic"
    assert case_dialect(cases["text_dialects/out_ty_and_ty_args"]) == "tvm-0.27"
    assert case_dialect(cases["text_dialects/prim_value_float_is_float32_in_tvm025"]) == "tvm-0.25"


def test_a_case_in_the_release_dialect_goes_as_written(cases):
    for cid, dialect in (("checks/tuple_param", "tvm-0.25"), ("text_dialects/out_ty_and_ty_args", "tvm-0.27")):
        text = _text(cases[cid])
        assert text_for(text, cases[cid], dialect) == (text, "as written")


def test_keywords_and_scalar_parameters_are_respelled(cases):
    case = cases["call_tir/tir_vars"]
    assert "out_sinfo=" in _text(case) and "tir_vars=" in _text(case)
    text, how = text_for(_text(case), case, "tvm-0.27")
    assert how == "printed in tvm-0.27"
    assert "out_ty=" in text and "out_sinfo" not in text and "tir_vars" not in text


def test_a_fault_of_the_text_goes_as_written(cases):
    # re-printing would bind the expression statement to a name and so repair the fault
    case = cases["malformed/non_unit_expression_statement"]
    assert text_for(_text(case), case, "tvm-0.27") == (_text(case), "as written")


def test_a_fault_of_the_ir_is_kept_by_the_translation(cases):
    case = cases["invalid/binding_annotation_dtype"]
    text, how = text_for(_text(case), case, "tvm-0.27")
    assert how == "printed in tvm-0.27"
    assert _verdict(text) == _verdict(_text(case)) == "StructInfoError"


def test_the_function_order_of_the_text_is_kept(cases):
    # a call of a later function without a return annotation is R.Object (NORM.GLOBAL.4)
    case = cases["semantics/later_function_without_return_annotation"]
    text, _ = text_for(_text(case), case, "tvm-0.27")
    assert text.index("def main") < text.index("def helper")
    assert _verdict(text) == "StructInfoError"


def test_a_module_the_release_cannot_express_is_unsupported(cases):
    case = cases["match_cast/prim_value"]
    with pytest.raises(Unsupported) as info:
        text_for(_text(case), case, "tvm-0.27")
    assert info.value.feature == "tvm-0.25-spelling"
    assert "R.Prim(value=...)" in info.value.message


def test_a_text_that_must_go_as_written_in_an_unread_spelling_is_unsupported(cases):
    case = cases["text/parameter_named_like_symbolic_var"]
    assert unreadable_spellings(_text(case), "tvm-0.25", "tvm-0.27") == ["R.Prim(value=...)"]
    with pytest.raises(Unsupported) as info:
        text_for(_text(case), case, "tvm-0.27")
    assert "does not read R.Prim(value=...)" in info.value.message


def test_unreadable_spellings_are_found_by_keyword():
    text = ("y = R.call_tir(f, (x,), out_sinfo=R.Tensor((3,), 'float32'), tir_vars=R.shape([n]))\n"
            "z = R.call_pure_packed('g', y, sinfo_args=R.Object)\n"
            "w = R.layout_transform(x, index_map=m, axis_separators=[1])\n")
    assert unreadable_spellings(text, "tvm-0.25", "tvm-0.27") == [
        "out_sinfo=", "tir_vars=", "sinfo_args=", "R.layout_transform(axis_separators=...)"]
    assert unreadable_spellings(text, "tvm-0.25", "tvm-0.25") == []
    assert unreadable_spellings("def f(:\n", "tvm-0.25", "tvm-0.27") == []


def test_every_translated_case_keeps_its_static_verdict(cases):
    """relax-ref reads each case translated to tvm-0.27 as it reads the case: the same module fault, or
    none; the cases the release cannot express are those with an R.Prim(value=...) annotation
    (TEXT.DIALECT.5), and a malformed text in TVM 0.25's spelling, which goes as written (the suite
    writes the same fault in TVM 0.27's spelling too)."""
    unsupported, changed = [], []
    for cid, case in sorted(cases.items()):
        if set(case.requires) & unsupported_features("tvm-0.27"):
            continue
        try:
            text, how = text_for(_text(case), case, "tvm-0.27")
        except Unsupported:
            unsupported.append(cid)
            continue
        if how != "as written" and _verdict(text) != _verdict(_text(case)):
            changed.append(cid)
    assert changed == []
    assert unsupported == [
        "checks/prim_param_literal_value", "checks/prim_param_symbolic_value", "match_cast/prim_value",
        "op_misc/call_py_func_output_without_shape", "semantics/prim_value_param_float_nan", "symbolic_branches/join_drops_different_prim_values",
        "symbolic_branches/join_keeps_an_equal_prim_value", "symbolic_calls/callee_binds_through_prim_value",
        "symbolic_calls/callee_binds_through_prim_value_entry", "symbolic_calls/deeply_nested_tuple_parameter",
        "symbolic_calls/nested_tuple_argument", "symbolic_calls/nested_tuple_argument_entry",
        "symbolic_calls/nested_tuple_result", "symbolic_closures/callable_signature_does_not_hold_for_a_prim_value",
        "text/impossible_prim_value_cast", "text/parameter_named_like_symbolic_var",
        "text/prim_value_annotation_dtype", "tir_rules/cast_to_handle", "tir_rules/cast_to_void",
        "tir_rules/void_buffer_load"]
    # a parse fault must go as written, and the TensorIR fault cases are written with TVM 0.25's out_sinfo=
    written_025 = ("tir_rules/cast_to_handle", "tir_rules/cast_to_void", "tir_rules/void_buffer_load")
    assert all("R.Prim(value" in _text(cases[cid]) for cid in unsupported
               if cid not in ("op_misc/call_py_func_output_without_shape", *written_025))
    assert all("out_sinfo=" in _text(cases[cid]) for cid in written_025)
    assert "out_ty=" in _text(cases["op_misc/call_py_func_output_without_shape_out_ty"])


def test_a_dropped_scalar_value_makes_the_case_unsupported(cases):
    # tvm-0.27 annotates a scalar parameter by its dtype only: printing it would drop the check of the
    # value that the case is about (TEXT.DIALECT.5), so the translation refuses
    case = cases["checks/prim_param_literal_value"]
    with pytest.raises(Unsupported) as info:
        text_for(_text(case), case, "tvm-0.27")
    assert "the value of R.Prim(value=3) cannot be written" in info.value.message


_RUN_CATEGORIES = ("call_tir", "checks", "closures", "control_flow", "expressions", "match_cast", "packed",
                   "recursion", "semantics", "text")


def test_translated_cases_compute_what_the_cases_compute(cases):
    """Every translated case of the categories about the language evaluates, in relax-ref, to what the
    case as written evaluates to, or fails with the same error (a bare ``a = 5`` read back as a tensor
    constant, or a dropped check, would show here)."""
    from relax_conformance.adapter import AdapterError
    from relax_conformance.adapters.ref import RefAdapter
    from relax_conformance.values import mismatches

    ref = RefAdapter()

    def outcome(text, case, run):
        try:
            return ("value", ref.run(ref.load(text, case), case.entry, case.inputs(run)))
        except AdapterError as err:
            return ("error", err.label)

    differ = []
    for cid, case in sorted(cases.items()):
        if case.category not in _RUN_CATEGORIES or set(case.requires) & unsupported_features("tvm-0.27"):
            continue
        try:
            text, how = text_for(_text(case), case, "tvm-0.27")
        except Unsupported:
            continue
        if how == "as written":
            continue
        for run in case.runs:
            a, b = outcome(_text(case), case, run), outcome(text, case, run)
            same = a[0] == b[0] and (a[1] == b[1] if a[0] == "error" else not mismatches(a[1], b[1], 0.0, 0.0))
            if not same:
                differ.append((cid, run.index, a, b))
    assert differ == []


def test_operators_of_a_case(cases):
    assert operators_of(_text(cases["op_misc/reverse_sequence_hand"])) == ["relax.reverse_sequence"]
    assert operators_of("def f(:\n") == []


@pytest.mark.tvm
def test_an_operator_the_release_lacks_skips_the_case(cases):
    """A case calling an operator relax-ref knows and the installed TVM does not register is skipped,
    naming the operator; one the release has goes on to TVM."""
    tvm = pytest.importorskip("tvm")
    from relax_conformance.adapters.tvm import TvmAdapter

    adapter = TvmAdapter()
    case = cases["op_misc/reverse_sequence_hand"]
    try:
        tvm.ir.Op.get("relax.reverse_sequence")
        registered = True
    except Exception:  # noqa: BLE001
        registered = False
    if registered:
        adapter.load(_text(case), case)
        return
    with pytest.raises(Unsupported) as info:
        adapter.load(_text(case), case)
    assert info.value.feature == "operator:relax.reverse_sequence"
    assert "has no operator relax.reverse_sequence" in info.value.message

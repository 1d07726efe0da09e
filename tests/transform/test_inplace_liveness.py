"""CALL.INPLACE.6: the parameters an in-place call consumes (relax_ref.transform.inplace_liveness)."""

import pytest

import relax_ref
from relax_ref.transform.inplace_liveness import consumed_params
from program_texts import case_text

#: the module of the case ``invalid/call_tir_inplace_index_out_of_range`` up to the body of ``main``
_CASE = case_text("invalid", "call_tir_inplace_index_out_of_range")
_HEAD = _CASE[:_CASE.index("        cls = Module\n") + len("        cls = Module\n")]
_CALL = "R.call_tir_inplace(cls.add_into, ({a}, y), inplace_indices=[0], out_sinfo=R.Tensor((4,), 'float32'))"

CASES = {
    # the result is returned and x is never read again: consumed
    "returned": ([f"z = {_CALL.format(a='x')}"], "z", {0}),
    "chain": ([f"z = {_CALL.format(a='x')}", f"u = {_CALL.format(a='z')}"], "(u, y)", {0}),
    "through_an_alias": (["a = x", f"z = {_CALL.format(a='a')}"], "z", {0}),
    "result_aliased": ([f"z = {_CALL.format(a='x')}", "w = z", "s = R.add(z, y)"], "(w, s)", {0}),
    "read_between_the_calls": ([f"z = {_CALL.format(a='x')}", "s = R.add(z, y)", f"u = {_CALL.format(a='z')}"],
                               "(u, s)", {0}),
    "read_after_the_last_call": ([f"z = {_CALL.format(a='x')}", f"u = {_CALL.format(a='z')}", "s = R.add(z, y)"],
                                 "(u, s)", set()),
    "through_a_tuple": (["t = (y, x)", "a = t[1]", f"z = {_CALL.format(a='a')}"], "z", {0}),
    "tuple_field_read_after": (["t = (y, x)", "a = t[1]", f"z = {_CALL.format(a='a')}", "w = R.add(t[1], y)"],
                               "(z, w)", set()),
    "packed": (["z = R.call_inplace_packed('conformance.add_inplace', x, y, inplace_indices=[0], "
                "sinfo_args=R.Tensor((4,), 'float32'))"], "z", {0}),
    # x read after the call, the new contents not returned, or x returned under its old name: kept
    "read_after": ([f"z = {_CALL.format(a='x')}", "w = R.add(x, y)"], "(z, w)", set()),
    "not_returned": ([f"z = {_CALL.format(a='x')}", "w = R.add(y, y)"], "w", set()),
    "old_name_returned": ([f"z = {_CALL.format(a='x')}"], "(z, x)", set()),
    "alias_read_after": (["a = x", f"z = {_CALL.format(a='x')}", "w = R.add(a, y)"], "(z, w)", set()),
    "read_only_input": ([f"z = {_CALL.format(a='y')}"], "z", {1}),
    "no_inplace_call": (["z = R.add(x, y)"], "z", set()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_consumed_params(name):
    lines, ret, want = CASES[name]
    src = _HEAD + "".join(f"        {ln}\n" for ln in lines) + f"        return {ret}\n"
    mod = relax_ref.parse(src)
    assert set(consumed_params(mod["main"])) == want


def test_captured_by_a_closure_is_not_consumed():
    src = _HEAD + f"""        z = {_CALL.format(a='x')}

        @R.function
        def g(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            r = R.add(t, x)
            return r

        return (z, g)
"""
    mod = relax_ref.parse(src)
    assert consumed_params(mod["main"]) == frozenset()


def test_dataflow_block():
    src = _HEAD + f"""        with R.dataflow():
            z = {_CALL.format(a='x')}
            a = R.add(z, y)
            R.output(z, a)
        return (z, a)
"""
    assert consumed_params(relax_ref.parse(src)["main"]) == frozenset({0})


def test_among_restricts_the_parameters_asked_about():
    # both parameters consumed (each by an in-place call of its own, both results returned); asking about
    # one index answers for that one alone, asking about none scans nothing
    lines = [f"z = {_CALL.format(a='x')}", f"u = {_CALL.format(a='y')}"]
    src = _HEAD + "".join(f"        {ln}\n" for ln in lines) + "        return (z, u)\n"
    func = relax_ref.parse(src)["main"]
    assert consumed_params(func) == frozenset({0, 1})
    assert consumed_params(func, frozenset({1})) == frozenset({1})
    assert consumed_params(func, frozenset({0})) == frozenset({0})
    assert consumed_params(func, frozenset()) == frozenset()

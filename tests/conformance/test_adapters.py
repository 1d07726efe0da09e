"""The TVM adapter on a few suite cases (in worker processes), and ``--impl`` validation. The whole suite
runs on ``ref`` and ``jax`` in test_suite_passes.py."""

import pytest

from relax_conformance.adapters import ImplSpecError, make_adapter_factory
from relax_conformance.case import discover_cases
from relax_conformance.divergences import for_impl, load_divergences
from relax_conformance.gen import default_cases_root
from relax_conformance.runner import run_cases, select_cases

TVM_CASES = [
    "checks/symbolic_shared_dim",        # symbolic binding across parameters, shape_mismatch
    "checks/tuple_param",                # arity/type/dtype errors on a tuple parameter
    "match_cast/bind_two_dims",          # match_cast binds n, m; shapes returned
    "match_cast/const_dim",              # match_cast_failed (a condition on the site)
    "call_tir/reduction_block_init",     # s_tir blocks with T.init
    "call_tir/tir_vars",                 # tir_vars after the outputs
    "packed/call_dps_packed",            # conformance packed functions registered in TVM
    "invalid/binary_dtype_mismatch",     # struct_info classification
    "malformed/undefined_variable",      # parse classification
    "call_tir/integer_division_by_zero",  # SIGFPE in TVM: a crash of one case, a known divergence
    "call_tir/classic_block_reduction",  # classic spelling: skipped
]


def _select(ids):
    cases, errors = discover_cases([default_cases_root()])
    assert errors == []
    chosen = select_cases(cases, ids)
    assert sorted(c.id for c in chosen) == sorted(ids)
    return chosen


@pytest.mark.tvm
def test_tvm_adapter_runs_cases_in_isolated_workers():
    pytest.importorskip("tvm")
    results = {r.case_id: r for r in run_cases(_select(TVM_CASES), make_adapter_factory("tvm", timeout=120),
                                               jobs=2, divergences=for_impl(load_divergences(), "tvm"))}
    expected = {c: "pass" for c in TVM_CASES}
    expected["call_tir/integer_division_by_zero"] = "known-divergence"
    expected["call_tir/classic_block_reduction"] = "skip"
    assert {k: r.result for k, r in results.items()} == expected, \
        {k: r.detail for k, r in results.items() if r.result != expected[k]}
    assert results["call_tir/integer_division_by_zero"].kind == "crash"
    assert "SIGFPE" in results["call_tir/integer_division_by_zero"].detail


@pytest.mark.tvm
def test_tvm_error_classification():
    pytest.importorskip("tvm")
    from relax_conformance.adapters.tvm import classify_runtime

    msg = ("Check failed: input_shape[i] == reg (3 vs. 4) : ErrorContext(match_cast, struct_info=R.Tensor((4,), "
           "dtype=\"float32\"))  match_cast error,  shape[0] mismatch to specified constant.")
    assert classify_runtime(RuntimeError(msg)) == ("shape_mismatch", "match_cast")
    msg = ("Check failed: (DataType(ptr->dtype) == dtype) is false: ErrorContext(fn=main, loc=param[0], param=x, "
           "annotation=R.Tensor((n, 4), dtype=\"float32\"))  expect Tensor with dtype float32 but get float64")
    assert classify_runtime(ValueError(msg)) == ("dtype_mismatch", "param")
    assert classify_runtime(AssertionError("bad")) == ("assert_failed", None)
    assert classify_runtime(RuntimeError("something else entirely")) == ("unclassified", None)


def test_unknown_impl_is_refused():
    with pytest.raises(ImplSpecError):
        make_adapter_factory("nonsense")
    with pytest.raises(ImplSpecError):
        make_adapter_factory("cmd:")

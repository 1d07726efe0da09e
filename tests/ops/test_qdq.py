"""quantize / dequantize (spec/ops/quantize.md, spec/ops/dequantize.md): inference with symbolic and
unknown shapes, the run-time parameter check, legalization against the conformance cases, and TVM's
inference on the same calls."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, StructInfoError

from ops_helpers import call_sinfo as _call_sinfo, call_text, calls_text as _calls_text, check_sinfo_with_tvm, \
    legalized_cases_agree


def _params(ps):
    return ", ".join(f"{n}: {a}" for n, a in ps)


def call_sinfo(ps, expr):
    return _call_sinfo(_params(ps), expr)


def calls_text(ps, exprs):
    return _calls_text(_params(ps), exprs)


def test_legalized_cases_agree():
    assert legalized_cases_agree("op_quantize") >= 7


def test_symbolic_shape_is_kept_and_unknown_dtype_propagates():
    s = call_sinfo([("x", 'R.Tensor(("n", 4), "float32")'), ("s", 'R.Tensor((4,), "float32")'),
                    ("z", 'R.Tensor((), "int8")')], 'R.quantize(x, s, z, out_dtype="uint8")')
    assert s.dtype == "uint8" and str(s.shape_values[0]) == "n"
    s = call_sinfo([("x", 'R.Tensor(("n", 4))'), ("s", 'R.Tensor((4,), "float32")'),
                    ("z", 'R.Tensor((), "int8")')], "R.dequantize(x, s, z)")
    assert s.dtype == "void" and s.ndim == 2


def test_singleton_parameters_are_per_tensor_on_any_axis():
    s = call_sinfo([("x", 'R.Tensor((2, 3), "int8")'), ("s", 'R.Tensor((1, 1), "float32")'),
                    ("z", 'R.Tensor((1,), "int8")')], "R.dequantize(x, s, z, axis=0)")
    assert s.dtype == "float32"


def test_zero_d_data_takes_per_tensor_parameters_only():
    with pytest.raises(StructInfoError):
        call_sinfo([("x", 'R.Tensor((), "float32")'), ("s", 'R.Tensor((2,), "float32")'),
                    ("z", 'R.Tensor((), "int8")')], "R.quantize(x, s, z)")


def test_nan_and_infinity_saturate_as_tir_min_max():
    mod = relax_ref.parse(calls_text([("x", 'R.Tensor((3,), "float32")')],
                                     ['R.quantize(x, R.const(1, "float32"), R.const(0, "int8"))']))
    (got,) = relax_ref.evaluate(mod, "main", np.array([np.nan, np.inf, -np.inf], "float32"))
    np.testing.assert_array_equal(got, np.array([127, 127, -128], "int8"))


def test_unknown_parameter_shape_is_checked_at_run_time():
    mod = relax_ref.parse(calls_text([("x", 'R.Tensor((2, 3), "float32")'), ("s", 'R.Tensor(ndim=2, dtype="float32")'),
                                      ("z", 'R.Tensor((), "int8")')], ["R.quantize(x, s, z)"]))
    with pytest.raises(OpRuntimeError, match="OP.quantize.C4"):
        relax_ref.evaluate(mod, "main", np.zeros((2, 3), "float32"), np.ones((3, 2), "float32"), np.array(0, "int8"))


@pytest.mark.tvm
@pytest.mark.parametrize("params,expr", [
    ([("x", 'R.Tensor(("n", 4), "float32")'), ("s", 'R.Tensor((4,), "float32")'), ("z", 'R.Tensor((4,), "int8")')],
     'R.quantize(x, s, z, out_dtype="int16")'),
    ([("x", 'R.Tensor((2, 4), "float16")'), ("s", 'R.Tensor((), "float16")'), ("z", 'R.Tensor((1,), "float16")')],
     'R.quantize(x, s, z, axis=0, out_dtype="float8_e4m3fn")'),
    ([("x", 'R.Tensor((2, 4), "float32")'), ("s", 'R.Tensor((4,), "float32")'), ("z", 'R.Tensor((4,), "int8")')],
     "R.quantize(x, s, z, axis=0)"),
    ([("x", 'R.Tensor((2, 4), "float64")'), ("s", 'R.Tensor((4,), "float32")'), ("z", 'R.Tensor((4,), "int8")')],
     "R.quantize(x, s, z)"),
    ([("x", 'R.Tensor((2, "c"), "int8")'), ("s", 'R.Tensor(("c",), "float32")'), ("z", 'R.Tensor(("c",), "int8")')],
     'R.dequantize(x, s, z, out_dtype="float16")'),
    ([("x", 'R.Tensor((2, 4), "int8")'), ("s", 'R.Tensor((4,), "float32")'), ("z", 'R.Tensor((4,), "float32")')],
     "R.dequantize(x, s, z)"),
    ([("x", 'R.Tensor((2, 4), "int8")'), ("s", 'R.Tensor((4,), "float32")'), ("z", 'R.Tensor((4,), "int8")')],
     "R.dequantize(x, s, z, axis=2)"),
])
def test_inference_agrees_with_tvm(params, expr):
    # an unknown parameter dtype is not among these: TVM 0.25 rejects it, TVM 0.27 infers an unknown
    # result dtype (as relax-ref, OP.quantize.C2)
    check_sinfo_with_tvm(call_text(_params(params), expr))

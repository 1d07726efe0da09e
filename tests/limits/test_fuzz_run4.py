"""Findings of the fourth fuzzing run (docs/FUZZING.md, seed 20261205) outside the operator limits:
run-time inference on operands whose static dtype is open, a packed call without its result's struct
info, and the harness's comparison of infinite prim values."""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import ParseError
from relax_ref.testing.compare import compare

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import FUNC_HEAD as HEAD, lists_on_both as _both  # noqa: E402


def test_fma_with_a_dtype_open_operand_checks_its_rules_on_the_values():
    """OP.SEM.6: ``b`` has no dtype, so ewise_fma's rules run again on the values; ``a`` and ``c`` are
    ``(n,)`` and ``b`` is ``(4,)``, and with n bound to 4 the shapes agree (the rule once compared
    ``n`` against 4 without the binding and raised op_runtime while relax_jax computed)."""
    text = HEAD + ('    def main(a: R.Tensor(("n",), "int32"), b: R.Tensor(("n",)), c: R.Tensor(("n",), "int32"))'
                   ' -> R.Tensor(("n",), "int32"):\n        y = R.ewise_fma(a, b, c)\n        return y\n')
    a = np.array([19, 1, -23, -46], "int32")
    b = np.array([3, 17, 32, 35], "int32")
    c = np.array([-2, 31, -41, -12], "int32")
    expected = (a * b + c).tolist()
    assert _both(text, a, b, c) == [("value", expected)] * 2
    # a dtype that differs from the others' is still refused at run time, on both evaluators
    assert _both(text, a, b.astype("float32"), c) == [("op_runtime", None)] * 2


@pytest.mark.parametrize("op", ["R.call_pure_packed(\"f\", x, sinfo_args=None)",
                                "R.call_inplace_packed(\"f\", x, inplace_indices=[0], sinfo_args=None)"])
def test_a_packed_call_needs_its_sinfo_args(op):
    """TVM refuses ``sinfo_args=None`` ("required to have type_args"); relax-ref accepted it and printed
    a call its parser then refused (the round trip broke)."""
    text = HEAD + f"    def main(x: R.Tensor((2,), \"float32\")):\n        y = {op}\n        return y\n"
    with pytest.raises(ParseError, match="sinfo_args"):
        relax_ref.parse(text)


def test_equal_infinite_prim_values_compare_equal():
    assert compare(float("-inf"), float("-inf")) is None
    assert compare(float("inf"), float("inf")) is None
    assert compare(float("inf"), float("-inf")) is not None
    assert compare(float("nan"), float("nan")) is None

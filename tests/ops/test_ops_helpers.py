"""The shared comparison helpers cannot pass vacuously: dims that never evaluate are not equal, a
point where only one side is defined is a difference, and result comparisons check their counts."""

import numpy as np
import pytest

from relax_ref.ir import prim_expr as P

from ops_helpers import check_calls, same, same_leaves, same_values

n, m = P.PrimVar("n"), P.PrimVar("m")
ZERO = P.IntImm(0, "int64")


def test_same_values_compares_where_both_are_defined():
    assert same_values(n * 2, n + n)
    assert same_values(P.IntImm(3, "int64"), P.IntImm(3, "int64"))  # no variables: one assignment
    assert same_values(P.FloorDiv(n, m), P.FloorDiv(n, m))  # undefined at m = 0 on both sides
    assert not same_values(n * 2, n + 1)


def test_same_values_fails_when_nothing_evaluates():
    undefined = P.FloorDiv(n, ZERO)
    assert not same_values(undefined, undefined)


def test_same_values_fails_when_only_one_side_is_undefined():
    assert not same_values(P.FloorDiv(n, m) * ZERO, ZERO)


def test_result_comparisons_check_counts():
    a = np.zeros(2, "float32")
    with pytest.raises(AssertionError):
        same((a, a), (a,))
    with pytest.raises(AssertionError):
        same_leaves(((a, a), a), (a, a))
    with pytest.raises(AssertionError):  # two expressions, one expected value
        check_calls('x: R.Tensor((2,), "float32")', ["R.abs(x)", "R.negative(x)"], [a], [a], legalize=False)
    check_calls('x: R.Tensor((2,), "float32")', ["R.abs(x)", "R.negative(x)"], [a], [a, a])

"""The budgets that stop programs which never end (spec chapter 15): the iterations of one execution
of a TensorIR while loop (RUNTIME.LIMIT.4, ``max_while_steps``) and the Relax calls active at once
(RUNTIME.LIMIT.7, ``max_depth``), the same count on the reference and on relax_jax -- host mode,
compiled code and the functions relax_jax inlines while tracing."""

from __future__ import annotations

import numpy as np
import pytest

from relax_ref.errors import LimitExceededError
from relax_ref.limits import DEFAULT_LIMITS, CallDepth, Limits, python_recursion_limit

from limits.reproducers import on_both, recursion

relax_jax = pytest.importorskip("relax_jax")

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"

#: a for loop of 3 iterations, each running a while loop of A[0] iterations
WHILE_IN_FOR = HEAD + '''    @T.prim_func
    def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):
        v = T.alloc_buffer((T.int64(1),), "int64")
        B[0] = T.int64(0)
        for i in range(T.int64(3)):
            v[0] = A[0]
            while v[0] > T.int64(0):
                v[0] = v[0] - T.int64(1)
                B[0] = B[0] + T.int64(1)

    @R.function
    def main(x: R.Tensor((1,), "int64")) -> R.Tensor((1,), "int64"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int64"))
        return y
'''

#: down(n) recurses n times; at the bottom it calls leaf, which calls leaf2 (neither recursive)
RECURSION = HEAD + '''    @R.function
    def leaf2(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        r = R.add(n, R.const(7, "int64"))
        return r

    @R.function
    def leaf(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        r = cls.leaf2(n)
        return r

''' + recursion("cls.leaf(n)")

#: main -> a -> b: three calls active at once, none recursive (relax_jax inlines them when tracing)
CHAIN = HEAD + '''    @R.function
    def b(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.multiply(x, x)
        return y

    @R.function
    def a(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        y = cls.b(x)
        z = R.add(y, x)
        return z

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        y = cls.a(x)
        return y
'''


def _outcomes(text, *args, **limits):
    return on_both(text, *args, by_limit=True, **limits)


def test_the_new_budgets_are_validated_and_default():
    assert DEFAULT_LIMITS.max_while_steps == 1 << 16 and DEFAULT_LIMITS.max_depth == 1000
    assert Limits(max_bytes=1, max_steps=1).max_depth == 1000
    for bad in (dict(max_while_steps=0), dict(max_depth=-1), dict(max_depth=True)):
        with pytest.raises(LimitExceededError):
            Limits(max_bytes=1, max_steps=1, **bad)
    assert python_recursion_limit(1000) >= 20000


def test_call_depth_counts_active_calls():
    d = CallDepth(2)
    d.enter("f")
    d.enter("g")
    with pytest.raises(LimitExceededError) as info:
        d.enter("h")
    assert info.value.limit == "max_depth" and "'h'" in info.value.message and d.room() == 0
    d.leave()
    d.enter("h")
    assert d.depth == 2


@pytest.mark.parametrize("n,budget", [(4, 4), (5, 4), (0, 1), (300, 299)])
def test_while_budget_is_per_execution_on_both(n, budget):
    """RUNTIME.LIMIT.4: each execution of the while loop runs n iterations (3n in all): within a
    budget of n it runs, one more iteration than the budget is an error on both evaluators."""
    got = _outcomes(WHILE_IN_FOR, np.array([n], "int64"), max_while_steps=budget)
    if n <= budget:
        assert [k for k, _ in got] == ["value", "value"]
        assert all(int(v[0]) == 3 * n for _, v in got)
    else:
        assert [k for k, _ in got] == ["max_while_steps", "max_while_steps"]


def test_while_loop_counts_against_max_steps_too():
    """The iterations of the while loops also count towards the call's max_steps (3 + 3n)."""
    got = _outcomes(WHILE_IN_FOR, np.array([10], "int64"), max_steps=3 + 30)
    assert [k for k, _ in got] == ["value", "value"]
    got = _outcomes(WHILE_IN_FOR, np.array([10], "int64"), max_steps=3 + 29)
    assert [k for k, _ in got] == ["max_steps", "max_steps"]


@pytest.mark.parametrize("n,budget", [(5, 9), (5, 8), (0, 4), (0, 3), (96, 100), (96, 99)])
def test_call_depth_on_both(n, budget):
    """RUNTIME.LIMIT.7: main, n + 1 calls of down, leaf and leaf2 are active at the bottom: n + 4
    calls. relax_jax runs the recursion in host mode and would enter leaf in its compiled form; near
    the budget it runs it call by call, so the count is exact."""
    got = _outcomes(RECURSION, np.array(n, "int64"), max_depth=budget)
    if n + 4 <= budget:
        assert [k for k, _ in got] == ["value", "value"] and all(int(v) == 7 for _, v in got)
    else:
        assert [k for k, _ in got] == ["max_depth", "max_depth"]


@pytest.mark.parametrize("budget,ok", [(3, True), (2, False), (1, False)])
def test_call_depth_counts_inlined_calls(budget, ok):
    """relax_jax inlines a and b into main's compiled code; the depth it counts while tracing is the
    reference's (three calls active)."""
    x = np.array([1.0, 2.0], "float32")
    got = _outcomes(CHAIN, x, max_depth=budget)
    if ok:
        assert [k for k, _ in got] == ["value", "value"]
        for _, v in got:
            np.testing.assert_array_equal(v, x * x + x)
    else:
        assert [k for k, _ in got] == ["max_depth", "max_depth"]


def test_unbounded_recursion_is_limit_exceeded_with_the_default_budget():
    """Recursion that never ends (the default max_depth): limit_exceeded naming the function, not a
    Python RecursionError or an exhausted stack."""
    got = _outcomes(RECURSION, np.array(10 ** 9, "int64"))
    assert [k for k, _ in got] == ["max_depth", "max_depth"]

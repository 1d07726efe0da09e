"""The limits of spec chapter 15 (RUNTIME.LIMIT.1-6), configured and enforced alike on the reference
interpreter and on relax_jax: the byte budget, the step budget (the same count whichever way the
loops run), host integers and shapes, and the compile-time guard of relax_jax."""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import LimitExceededError
from relax_ref.limits import DEFAULT_LIMITS, Limits, StepBudget, check_alloc, check_in_dtype, check_int64, resolve

relax_jax = pytest.importorskip("relax_jax")

from limits.reproducers import on_both as _both  # noqa: E402

NEST = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(8), T.int64(8)), "float32"), B: T.Buffer((T.int64(8), T.int64(8)), "float32")):
        for i in range(T.int64(8)):
            for j in range(T.int64(8)):
                B[i, j] = A[i, j] * T.float32(2)

    @R.function
    def main(x: R.Tensor((8, 8), "float32")) -> R.Tensor((8, 8), "float32"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((8, 8), "float32"))
        return y
'''

WHILE = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):
        v = T.alloc_buffer((T.int64(1),), "int64")
        v[0] = A[0]
        while v[0] > T.int64(0):
            v[0] = v[0] - T.int64(1)
        B[0] = v[0]

    @R.function
    def main(x: R.Tensor((1,), "int64")) -> R.Tensor((1,), "int64"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int64"))
        return y
'''

ZEROS = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n"])):
        n = T.int64()
        y = R.zeros(s, "float64")
        return y
'''


def test_limits_are_validated():
    assert resolve(max_steps=7).max_steps == 7 and resolve().max_bytes == DEFAULT_LIMITS.max_bytes
    with pytest.raises(LimitExceededError):
        Limits(max_bytes=0, max_steps=1)
    with pytest.raises(LimitExceededError):
        Limits(max_bytes=10, max_steps=True)


def test_int64_and_dtype_ranges():
    """RUNTIME.LIMIT.1-2: the bounds themselves are in range, one past them is not."""
    assert check_int64(2 ** 63 - 1, "x") == 2 ** 63 - 1 and check_int64(-2 ** 63, "x") == -2 ** 63
    for v in (2 ** 63, -2 ** 63 - 1):
        with pytest.raises(LimitExceededError) as info:
            check_int64(v, "size")
        assert info.value.value == v and str(v) in info.value.message
    assert check_in_dtype(255, "uint8", "x") == 255
    with pytest.raises(LimitExceededError):
        check_in_dtype(256, "uint8", "x")
    with pytest.raises(LimitExceededError):
        check_in_dtype(-129, "int8", "x")


def test_check_alloc_counts_bytes_before_allocating():
    lim = Limits(max_bytes=1024, max_steps=10)
    assert check_alloc((16, 16), "float32", lim) == 1024
    with pytest.raises(LimitExceededError) as info:
        check_alloc((16, 17), "float32", lim)
    assert info.value.limit == "max_bytes" and info.value.value == 16 * 17 * 4
    with pytest.raises(LimitExceededError) as info:
        check_alloc((2 ** 32, 2 ** 32), "bool", lim)
    assert info.value.limit == "int64"


def test_step_budget_counts_every_iteration():
    b = StepBudget(10)
    b.take(4)
    b.take(6)
    with pytest.raises(LimitExceededError) as info:
        b.take(1)
    assert info.value.value == 11 and b.used == 10


@pytest.mark.parametrize("budget,ok", [(8 + 64, True), (8 + 64 - 1, False)])
def test_nest_steps_are_the_same_scalar_vectorized_and_compiled(budget, ok):
    """RUNTIME.LIMIT.4: 8 + 8*8 iterations, whether the nest runs point by point, as arrays or
    compiled; one fewer step in the budget is an error everywhere."""
    mod = relax_ref.parse(NEST)
    x = np.arange(64, dtype="float32").reshape(8, 8)
    runs = [lambda: relax_ref.Interpreter(mod, vectorize=False, max_steps=budget)("main", x),
            lambda: relax_ref.Interpreter(mod, vectorize=True, max_steps=budget)("main", x),
            lambda: relax_jax.compile(mod, max_steps=budget)("main", x)]
    for run in runs:
        if ok:
            np.testing.assert_array_equal(np.asarray(run()), x * 2)
        else:
            with pytest.raises(LimitExceededError):
                run()


@pytest.mark.parametrize("n,budget", [(5, 5), (6, 5), (0, 1), (1000, 999)])
def test_while_steps_on_both(n, budget):
    """RUNTIME.LIMIT.4: a while loop counts each iteration; past the budget it stops with an error."""
    got = _both(WHILE, np.array([n], "int64"), max_steps=budget)
    if n <= budget:
        assert [k for k, _ in got] == ["value", "value"] and all(int(v[0]) == 0 for _, v in got)
    else:
        assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]


def test_byte_budget_is_configurable_on_both():
    """RUNTIME.LIMIT.3: the same program is legal or not depending on the configured budget, the
    same way on both evaluators."""
    text = ZEROS.replace("from tvm.script import ir as I, relax as R", "from tvm.script import ir as I, relax as R, tirx as T")
    s = relax_ref.ShapeValue((1000,))
    assert [k for k, _ in _both(text, s, max_bytes=8000)] == ["value", "value"]
    assert [k for k, _ in _both(text, s, max_bytes=7999)] == ["limit_exceeded", "limit_exceeded"]


def test_host_values_are_not_wrapped():
    """RUNTIME.LIMIT.2, VAL.HOST.1 on both evaluators: out-of-range integers, shapes past int64,
    negative host shapes and non-numeric arrays are errors."""
    prim = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(n: R.Prim("int8")) -> R.Prim("int8"):
        return n
'''
    assert [k for k, _ in _both(prim, 127)] == ["value", "value"]
    assert [k for k, _ in _both(prim, 128)] == ["limit_exceeded", "limit_exceeded"]
    shape = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=2)) -> R.Shape(ndim=2):
        return s
'''
    assert [k for k, _ in _both(shape, (2 ** 63, 1))] == ["limit_exceeded", "limit_exceeded"]
    assert [k for k, _ in _both(shape, (-1, 1))] == ["type_mismatch", "type_mismatch"]
    tensor = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        return x
'''
    for bad in (np.array(["a"]), np.array([None], dtype=object), np.array(["2020-01-01"], dtype="datetime64[D]")):
        assert [k for k, _ in _both(tensor, bad)] == ["type_mismatch", "type_mismatch"]


def test_jax_guard_checks_every_array_of_a_computation():
    """RUNTIME.LIMIT.5: the guard sees intermediates, not only results."""
    import jax
    import jax.numpy as jnp

    from relax_jax.guard import check_jaxpr

    def f(x):
        big = jnp.broadcast_to(x, (1 << 16, 1 << 16))
        return big.sum()

    jaxpr = jax.make_jaxpr(f)(jax.ShapeDtypeStruct((1,), np.float32))
    check_jaxpr(jaxpr, Limits(max_bytes=1 << 40, max_steps=1))
    with pytest.raises(LimitExceededError):
        check_jaxpr(jaxpr, Limits(max_bytes=1 << 20, max_steps=1))

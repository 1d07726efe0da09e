"""The executor's API: calling conventions, result kinds, errors, host mode, caching, devices, x64."""

import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import (
    AssertionFailedError, DivisionByZeroError, DTypeMismatchError, NDimMismatchError, PackedFuncError,
    ShapeMismatchError, TIRBoundsError,
)
from relax_ref.values import ShapeValue
from program_texts import FACT, SHIFT_TOP, case_text

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"


def mod(body: str):
    return relax_ref.parse(HEADER + body)


ADD = mod('''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        z = R.add(x, y)
        return z
''')


def test_numpy_and_jax_arguments_give_jax_arrays():
    exe = relax_jax.compile(ADD)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = exe("main", x, x)
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(np.asarray(out), x + x)
    out2 = exe("main", jnp.asarray(x), jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(out2), x + x)


def test_bucketed_sizes_share_one_compilation():
    exe = relax_jax.compile(ADD)
    for n in (5, 6, 7, 8):
        x = np.ones((n, 4), np.float32) * n
        assert np.asarray(exe("main", x, x)).shape == (n, 4)
    assert exe.stats.compiles == 1
    assert exe.stats.cache_hits == 3
    exe("main", np.ones((9, 4), np.float32), np.ones((9, 4), np.float32))
    assert exe.stats.compiles == 2


def test_exact_shapes_without_buckets():
    exe = relax_jax.compile(ADD, shape_buckets=None)
    for n in (5, 6, 5):
        exe("main", np.ones((n, 4), np.float32), np.ones((n, 4), np.float32))
    assert exe.stats.compiles == 2


def test_custom_bucket_list():
    exe = relax_jax.compile(ADD, shape_buckets=[16, 64])
    for n in (3, 16, 17, 64):
        exe("main", np.ones((n, 4), np.float32), np.ones((n, 4), np.float32))
    assert exe.stats.compiles == 2


def test_tuples_shapes_and_prims_in_results():
    m = mod('''
    @R.function
    def main(x: R.Tensor(("n",), "int64"), k: R.Prim("int64")) -> R.Tuple(R.Tensor(("n",), "int64"), R.Shape(["n"]), R.Prim("int64")):
        n = T.int64()
        y = R.add(x, x)
        s = R.shape_of(x)
        return (y, s, k)
''')
    exe = relax_jax.compile(m)
    y, s, k = exe("main", np.arange(3, dtype=np.int64), 7)
    assert np.asarray(y).dtype == np.int64
    assert list(np.asarray(y)) == [0, 2, 4]
    assert isinstance(s, ShapeValue) and tuple(s) == (3,)
    assert k == 7


def test_int64_is_exact_without_changing_global_x64():
    before = jax.config.jax_enable_x64
    m = mod('''
    @R.function
    def main(x: R.Tensor((2,), "int64")) -> R.Tensor((2,), "int64"):
        y = R.multiply(x, x)
        return y
''')
    big = np.array([3_000_000_000, -5], np.int64)
    out = relax_jax.compile(m)("main", big)
    assert np.asarray(out).dtype == np.int64
    assert list(np.asarray(out)) == [9_000_000_000_000_000_000, 25]   # needs 64-bit integers
    assert jax.config.jax_enable_x64 == before


@pytest.mark.parametrize("args, err", [
    ((np.ones((3, 4), np.float32), np.ones((4, 4), np.float32)), ShapeMismatchError),
    ((np.ones((3, 4), np.float32), np.ones((3, 4), np.int32)), DTypeMismatchError),
    ((np.ones((3, 4, 1), np.float32), np.ones((3, 4), np.float32)), NDimMismatchError),
])
def test_entry_checks_raise_the_reference_errors(args, err):
    exe = relax_jax.compile(ADD)
    with pytest.raises(err) as jerr:
        exe("main", *args)
    with pytest.raises(err) as rerr:
        relax_ref.evaluate(ADD, "main", *args)
    assert jerr.value.site == rerr.value.site == "param"


def test_data_dependent_error_reruns_on_host():
    m = mod('''
    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        z = R.floor_divide(x, y)
        return z
''')
    exe = relax_jax.compile(m)
    x = np.array([4, 5, 6], np.int32)
    np.testing.assert_array_equal(np.asarray(exe("main", x, np.array([2, 2, 3], np.int32))), [2, 2, 2])
    with pytest.raises(DivisionByZeroError):
        exe("main", x, np.array([1, 0, 1], np.int32))
    assert exe.stats.error_reruns == 1
    # padding never triggers the check: the padded element of y is not a divisor of a valid element
    np.testing.assert_array_equal(np.asarray(exe("main", x, np.array([1, 1, 1], np.int32))), x)


#: ``shift``: B[i] = A[i + k] over a symbolic length, a public member
SHIFT = textwrap.indent(SHIFT_TOP, "    ")


def test_assert_op_and_tir_bounds():
    m = mod(SHIFT + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: R.Prim("int64")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([0]))
        return y

    @R.function(pure=False)
    def check(x: R.Tensor((), "bool")) -> R.Tensor((), "bool"):
        u = R.assert_op(x, format="x must hold")
        return x
''')
    exe = relax_jax.compile(m)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(exe("main", x, 0)), x)
    with pytest.raises(AssertionFailedError, match="x must hold"):
        exe("check", np.array(False))
    assert bool(np.asarray(exe("check", np.array(True))))


def test_tir_out_of_bounds_is_reported_not_clamped():
    m = mod(SHIFT + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([1]))
        return y
''')
    exe = relax_jax.compile(m)
    with pytest.raises(TIRBoundsError):
        exe("main", np.arange(3, dtype=np.float32))
    with pytest.raises(TIRBoundsError):
        relax_ref.evaluate(m, "main", np.arange(3, dtype=np.float32))


def test_packed_functions_run_on_host():
    m = mod('''
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.call_pure_packed("test.double", x, sinfo_args=R.Tensor((3,), "float32"))
        z = R.add(y, x)
        return z
''')
    exe = relax_jax.compile(m)
    exe.register_func("test.double", lambda a: a * 2)
    np.testing.assert_array_equal(np.asarray(exe("main", np.ones(3, np.float32))), [3, 3, 3])
    assert exe.stats.host_calls == 1 and "host mode" in exe.fallback_reasons["main"]
    exe2 = relax_jax.compile(m)
    with pytest.raises(PackedFuncError):
        exe2("main", np.ones(3, np.float32))


def test_direct_primfunc_call_writes_numpy_arguments():
    m = relax_ref.parse(case_text("call_tir", "direct_primfunc_call_mutates"))
    exe = relax_jax.compile(m)
    x, y = np.arange(3, dtype=np.float32), np.zeros(3, np.float32)
    out = exe("main", x, y)
    np.testing.assert_array_equal(np.asarray(out), x + 1)
    np.testing.assert_array_equal(y, x + 1)


def test_if_on_traced_condition_uses_cond_and_static_one_is_decided():
    m = mod('''
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        return y
''')
    exe = relax_jax.compile(m)
    x = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(np.asarray(exe("main", np.array(True), x)), [2, 4, 6])
    np.testing.assert_array_equal(np.asarray(exe("main", np.array(False), x)), [1, 4, 9])
    assert exe.stats.compiles == 1 and exe.stats.host_calls == 0


def test_recursion_runs_on_host():
    m = mod('''
''' + FACT)
    exe = relax_jax.compile(m)
    assert int(np.asarray(exe("fact", np.array(5, np.int64)))) == 120
    assert "recursive" in exe._plans["fact"].host_reason


def test_specialization_of_a_recurring_padded_shape():
    exe = relax_jax.compile(ADD, specialize_after=3)
    x = np.ones((5, 4), np.float32)
    for _ in range(4):
        exe("main", x, x)
    assert exe.stats.specializations == 1
    assert exe.stats.compiles == 2


def test_device_argument():
    exe = relax_jax.compile(ADD, device="cpu")
    out = exe("main", np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
    assert list(out.devices())[0].platform == "cpu"


def test_text_input_and_missing_function():
    exe = relax_jax.compile(HEADER + '''
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
''')
    np.testing.assert_array_equal(np.asarray(exe("main", np.ones(2, np.float32))), [1, 1])
    with pytest.raises(relax_ref.RelaxError):
        exe("nope")


def test_lowerings_are_in_the_executor_table():
    from relax_ref.ops import registry

    for name in ("relax.add", "relax.matmul", "relax.call_tir", "relax.sum", "relax.nn.softmax"):
        assert registry.lookup(name) is not None
        assert isinstance(relax_jax.LOWERINGS[name], relax_jax.JaxLowering)


# -- the per-call fast path (relax_jax.hotpath) ---------------------------------------------------------


def _warm_add(n: int = 8):
    exe = relax_jax.compile(ADD)
    x = jnp.ones((n, 4), jnp.float32)
    exe("main", x, x)
    exe("main", x, x)
    assert exe._plans["main"].hot is not None
    return exe, x


def test_fast_path_serves_repeated_calls():
    exe, x = _warm_add()
    hits = exe.stats.cache_hits
    for _ in range(5):
        np.testing.assert_array_equal(np.asarray(exe("main", x, x)), np.full((8, 4), 2, np.float32))
    assert exe.stats.cache_hits == hits + 5
    assert exe.stats.compiles == 1


@pytest.mark.parametrize("bad, err", [
    (lambda x: x.astype(jnp.float16), DTypeMismatchError),
    (lambda x: np.asarray(x, np.float64), DTypeMismatchError),
    (lambda x: np.asarray(x, np.int32), DTypeMismatchError),
    (lambda x: jnp.ones((8, 5), jnp.float32), ShapeMismatchError),
    (lambda x: jnp.ones((8,), jnp.float32), NDimMismatchError),
    (lambda x: jnp.ones((4, 4), jnp.float32), ShapeMismatchError),   # n = 8 vs n = 4
])
def test_fast_path_leaves_mismatches_to_the_checked_path(bad, err):
    exe, x = _warm_add()
    with pytest.raises(err):
        exe("main", x, bad(x))
    # and the fast path still serves good calls afterwards
    np.testing.assert_array_equal(np.asarray(exe("main", x, x)), np.full((8, 4), 2, np.float32))


def test_fast_path_numpy_arguments_of_the_right_dtype():
    exe, x = _warm_add()
    xn = np.asarray(x)
    out = exe("main", xn, xn)
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(np.asarray(out), xn + xn)


def test_fast_path_is_not_used_under_tracing():
    exe, x = _warm_add()
    f = jax.jit(lambda a: exe("main", a, a))
    np.testing.assert_array_equal(np.asarray(f(x)), np.full((8, 4), 2, np.float32))


def test_fast_path_other_sizes_in_the_bucket_are_cut():
    exe, x = _warm_add(8)
    y = jnp.ones((5, 4), jnp.float32)
    out = exe("main", y, y)
    assert out.shape == (5, 4)
    assert exe.stats.compiles == 1


def test_fast_path_of_a_function_with_run_time_checks_raises_the_reference_error():
    m = mod('''
    @R.function
    def main(x: R.Tensor((4,), "float32"), i: R.Tensor((1,), "int64")) -> R.Tensor((1,), "float32"):
        y = R.take(x, i, axis=0)
        return y
''')
    exe = relax_jax.compile(m)
    x = jnp.arange(4, dtype=jnp.float32)
    ok = jnp.asarray([2], jnp.int64) if jax.config.jax_enable_x64 else np.asarray([2], np.int64)
    for _ in range(3):
        assert float(np.asarray(exe("main", x, ok))[0]) == 2.0
    assert exe._plans["main"].hot is not None
    hits = exe.stats.cache_hits
    with pytest.raises(relax_ref.OpRuntimeError):
        exe("main", x, np.asarray([4], np.int64))
    assert float(np.asarray(exe("main", x, ok))[0]) == 2.0
    assert exe.stats.cache_hits > hits


def test_padded_fast_path_serves_sizes_inside_a_bucket_and_still_specializes():
    exe = relax_jax.compile(ADD, specialize_after=6)
    for n in (5, 6, 7, 5, 6, 7):
        x = np.full((n, 4), n, np.float32)
        out = exe("main", x, x)
        assert out.shape == (n, 4)
        np.testing.assert_array_equal(np.asarray(out), 2 * x)
    plan = exe._plans["main"]
    assert plan.hot is not None and exe.stats.compiles == 1
    for _ in range(6):
        out = exe("main", np.ones((5, 4), np.float32), np.ones((5, 4), np.float32))
    assert exe.stats.specializations == 1 and exe.stats.compiles == 2
    np.testing.assert_array_equal(np.asarray(out), np.full((5, 4), 2, np.float32))
    with pytest.raises(ShapeMismatchError):
        exe("main", np.ones((6, 4), np.float32), np.ones((7, 4), np.float32))
    with pytest.raises(DTypeMismatchError):
        exe("main", np.ones((6, 4), np.float32), np.ones((6, 4), np.float64))

"""Findings of the fuzzing harness (docs/FUZZING.md), each a regression test on both evaluators:
poolings whose stride or padding is huge read their windows tap by tap (no padded copy: nothing
beyond the result is allocated and XLA never sees a huge shape), scatter_elements into an empty axis,
arange under tracing."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ops import nn_pool

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import HEAD, kinds_on_both, relax_main as _main  # noqa: E402
from limits.reproducers import on_both as _both  # noqa: E402


def test_max_pool_with_a_stride_of_2p31_and_ceil_mode():
    """The fuzz finding that aborted XLA (a padded input of 2**31 rows): one window per spatial dim,
    starting one row and column before the input (padding 1), so the maximum of x[..., :2, :2]."""
    x = np.random.default_rng(7).standard_normal((1, 3, 5, 6)).astype("float32")
    text = _main('x: R.Tensor(("n", 3, "h", 6), "float32")',
                 "y = R.nn.max_pool2d(x, pool_size=3, strides=2147483648, padding=1, ceil_mode=True)\nreturn y")
    expected = x[:, :, :2, :2].max(axis=(2, 3), keepdims=True)
    for kind, got in _both(text, x):
        assert kind == "value"
        np.testing.assert_array_equal(got, expected)


def test_avg_pool_with_a_huge_stride_counts_its_window():
    x = np.arange(2 * 7, dtype="float32").reshape(1, 2, 7)
    text = _main('x: R.Tensor((1, 2, 7), "float32")',
                 "y = R.nn.avg_pool1d(x, pool_size=3, strides=4611686018427387904, padding=[1, 1], ceil_mode=True, "
                 "count_include_pad=False)\nreturn y")
    expected = x[:, :, :2].mean(axis=2, keepdims=True)
    for kind, got in _both(text, x):
        assert kind == "value"
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_pool_size_arithmetic_past_int64():
    """RUNTIME.LIMIT.1: in ceil mode the output size adds stride - 1 to the extent; with a stride of
    2**63 - 1 that overflows int64: a struct_info error for a constant extent, limit_exceeded at run
    time for a symbolic one (the inference had wrapped it to an output size of 0)."""
    attrs = "pool_size=3, strides=9223372036854775807, padding=[1, 1], ceil_mode=True"
    static = _main('x: R.Tensor((1, 2, 7), "float32")', f"y = R.nn.avg_pool1d(x, {attrs})\nreturn y")
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(static)
    assert info.value.kind == "struct_info" and "overflows int64" in str(info.value)
    sym = _main('x: R.Tensor((1, 2, "w"), "float32")', f"y = R.nn.avg_pool1d(x, {attrs})\nreturn y")
    got = _both(sym, np.ones((1, 2, 7), "float32"))
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]


CONFIGS = list(itertools.product(("max", "avg"), ((3, 2), (2, 3)), ((1, 1), (2, 2), (3, 1)), ((0, 0), (1, 2), (2, 0)),
                                 (1, 2), (False, True), (False, True)))


@pytest.mark.parametrize("kind,spatial,kernel_stride,pad,dil,ceil,include", CONFIGS[::7])
def test_taps_read_what_the_padded_input_holds(monkeypatch, kind, spatial, kernel_stride, pad, dil, ceil, include):
    """The two ways of reading the windows agree value for value (OP.NN.POOL.SEM.1-3)."""
    k, s = kernel_stride
    x = np.random.default_rng(3).standard_normal((2, 2) + spatial).astype("float32")
    args = (SimpleNamespace(op=None), x, kind, (k, k), (s, s), (pad[0], pad[0], pad[1], pad[1]), (dil, dil), ceil, include)
    try:
        padded = nn_pool.pool_np(*args)
    except RelaxError:
        padded = "error"
    monkeypatch.setattr(nn_pool, "pool_padded_is_small", lambda spatial, pads: False)
    try:
        taps = nn_pool.pool_np(*args)
    except RelaxError:
        taps = "error"
    if isinstance(padded, str) or isinstance(taps, str):
        assert padded == taps
    else:
        np.testing.assert_array_equal(taps, padded)


def test_scatter_elements_into_an_empty_axis():
    """Every index into an axis of extent 0 is out of range: op_runtime on both (relax_jax raised
    IndexError); with no indices at all the result is the (empty) data."""
    text = _main('d: R.Tensor(("n", 0), "float32"), i: R.Tensor(("n", "k"), "int64"), u: R.Tensor(("n", "k"), "float32")',
                 'y = R.scatter_elements(d, i, u, axis=1, reduction="add")\nreturn y')
    d = np.ones((2, 0), "float32")
    got = _both(text, d, np.array([[0, 4], [1, 2]], "int64"), np.ones((2, 2), "float32"))
    assert [k for k, _ in got] == ["op_runtime", "op_runtime"]
    got = _both(text, d, np.zeros((2, 0), "int64"), np.zeros((2, 0), "float32"))
    assert [k for k, _ in got] == ["value", "value"] and all(v.shape == (2, 0) for _, v in got)


@pytest.mark.parametrize("body,expected", [
    ('a = R.add(R.prim_value(T.int64(2)), R.prim_value(T.int64(3)))\nreturn a', 5),
    ('a = R.multiply(R.prim_value(T.float32(2)), R.prim_value(T.float32(3)))\nreturn a', 6.0),
])
def test_operators_on_known_prim_values_while_tracing(body, expected):
    """An operator whose operands are all known prim values, in a function relax_jax compiles (the
    fuzz finding reached it through R.arange): a prim value, not a TracerArrayConversionError."""
    text = _main('x: R.Tensor((3,), "float32")', body)
    for kind, got in _both(text, np.ones(3, "float32")):
        assert kind == "value" and got.shape == () and got == expected


def test_eye_like_with_a_tensor_for_k_is_a_struct_info_error():
    """Found by the 30-minute run: R.eye_like(a, b) with b a tensor crashed at run time (TypeError on
    both evaluators); k is a PrimValue, as eye's (OP.eye_like.C1)."""
    text = _main('a: R.Tensor(("m", "n"), "float32"), b: R.Tensor(("n",), "float32")', "y = R.eye_like(a, b)\nreturn y")
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    assert info.value.kind == "struct_info" and "'k'" in str(info.value)


@pytest.mark.parametrize("literal, expected", [
    ("T.float32(-1e300)", np.float32(-np.inf)),       # the fuzz finding: beyond float32, so -inf
    ("T.float32(0.1)", np.float32(0.1)),               # not a float32: the check compares float32(0.1)
    ("T.float32(1e-50)", np.float32(0.0)),              # below float32's subnormals: 0
    ("T.float16(70000.0)", np.float16(np.inf)),
])
def test_a_float_prim_literal_is_its_value_rounded_to_its_dtype(literal, expected):
    """A returned ``R.prim_value`` of a float literal: its struct info ``R.Prim(value=lit)`` describes
    the literal rounded once to its dtype (SI.PRIM.1, VAL.DTYPE.6), so the return check of the
    reference accepts the value it computed, as relax_jax does (the reference raised a value mismatch)."""
    for kind, got in _both(_main("", f"return R.prim_value({literal})")):
        assert kind == "value"
        assert float(got) == float(expected)


def test_a_float_prim_annotation_compares_rounded_values():
    text = _main('x: R.Prim(value=T.float32(0.1))', "return x")
    for kind, got in _both(text, 0.1):             # the host float 0.1 converted to float32 matches
        assert kind == "value" and got == np.float32(0.1)
    for kind, _ in _both(text, 0.2):
        assert kind == "value_mismatch"


def test_a_kv_cache_builtin_with_too_few_arguments_is_an_arity_mismatch():
    """Found by the third 30-minute run: attention_kv_cache_append given one argument raised a
    TypeError on both evaluators."""
    text = _main('a: R.Tensor((2, 3), "float32")',
                 'c = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", a, inplace_indices=[0], '
                 'sinfo_args=R.Object())\nreturn c')
    assert [k for k, _ in _both(text, np.ones((2, 3), "float32"))] == ["arity_mismatch", "arity_mismatch"]


@pytest.mark.parametrize("host", [10 ** 400, -10 ** 400, 2 ** 64 + 1])
def test_a_host_integer_for_a_float_prim_is_rounded_on_both(host):
    """Found by the third 30-minute run: a Python int beyond float64 for an R.Prim("float32")
    parameter raised OverflowError in relax_jax; both round it to the dtype (VAL.DTYPE.6)."""
    text = _main('b: R.Prim("float32")', "return b")
    expected = float(np.float32(np.inf if host > 2 ** 1024 else -np.inf if host < -2 ** 1024 else float(host)))
    for kind, got in _both(text, host):
        assert kind == "value" and float(got) == expected


def test_an_ndim_beyond_int32_is_a_parse_error():
    """Found by the third 30-minute run: R.Tensor(ndim=10**30) reached numpy (OverflowError) through
    expand_dims' inference; a rank of the text beyond int32 is a parse error (SI.SHAPE.1, RUNTIME.LIMIT.1)."""
    text = _main('v: R.Tensor("float32", ndim=1000000000000000000000000000000)', "w = R.expand_dims(v, axis=[1])\nreturn w")
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    assert info.value.kind == "parse" and "does not fit in int32" in str(info.value)


# ---------------------------------------------------------------------------------------------------
# The third 30-minute run's findings on limits and allocations (docs/FUZZING.md)
# ---------------------------------------------------------------------------------------------------


def _both_with(text, args, **limits):
    """(kind, value or the error's message) on both, for the argument list ``args``."""
    return kinds_on_both(text, *args, messages=True, **limits)


ONE_HOT = _main('i: R.Tensor(("n", 3), "int32")',
                "y = R.one_hot(i, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), "
                "depth=9223372036854775807)\nreturn y")


@pytest.mark.parametrize("rows", [0, 2])
def test_one_hot_with_a_depth_near_2p63(rows):
    """RUNTIME.LIMIT.1: with rows the element count is past int64; without, the result is empty but
    its other dimensions span more bytes than int64 holds (numpy refused it with a ValueError, XLA
    aborted the relax_jax worker): limit_exceeded on both, before anything is built."""
    got = _both_with(ONE_HOT, [np.zeros((rows, 3), "int32")])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]
    if rows == 0:
        assert all("outside the int64 range" in m for _, m in got)


def test_an_empty_one_hot_of_a_moderate_depth_is_empty():
    text = ONE_HOT.replace("9223372036854775807", "5")
    for kind, v in _both_with(text, [np.zeros((0, 3), "int32")]):
        assert kind == "value" and np.asarray(v).shape == (0, 3, 5)


def test_broadcast_to_without_a_dtype_checks_its_element_count():
    """The element-count check ran only for a known dtype: broadcast_to of an R.Tensor((1,)) to
    (2**32, 2**32) reached numpy ("iterator is too large") and aborted XLA. An unknown dtype counts
    one byte per element (a lower bound of the size)."""
    text = _main("x: R.Tensor((1,))", "y = R.broadcast_to(x, (4294967296, 4294967296))\nreturn y")
    got = _both_with(text, [np.ones(1, "float32")])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]
    text = _main("x: R.Tensor((1,))", "y = R.broadcast_to(x, (1024, 1024))\nreturn y")
    got = _both_with(text, [np.ones(1, "float32")], max_bytes=1 << 19)
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]     # 1 MiB at one byte each


@pytest.mark.parametrize("shape", [(3, 4), (0, 4), (3, 0), (1, 1)])
@pytest.mark.parametrize("static", [True, False])
def test_strided_slice_with_a_stride_near_2p63(shape, static):
    """relax_jax handed XLA a slice whose length it computed as stop - start + step - 1 (int64
    overflow: an abort or a mismatched buffer); the inference wrapped the same sum. Both take the
    slice numpy takes."""
    x = np.arange(int(np.prod(shape)), dtype="int16").reshape(shape)
    sinfo = f"{shape}" if static else '("n", "m")'
    text = _main(f'x: R.Tensor({sinfo}, "int16")',
                 "y = R.strided_slice(x, [0, 1], [1, -1], [100, 0], [9223372036854775807, -1])\nreturn y")
    expected = x[1:100:9223372036854775807, -1:0:-1]
    if static:
        assert relax_ref.parse(text)["main"].body.body.struct_info.shape.values[0].value == expected.shape[0]
    got = _both_with(text, [x])
    if not static and shape[0] > 1:
        # the symbolic extent ceil((100 - 1) / (2**63 - 1)) is computed in int64 at run time and wraps
        # (as TVM's); both evaluators report the mismatch with the result alike
        assert [k for k, _ in got] == ["op_runtime", "op_runtime"]
        return
    for kind, v in got:
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(v), expected)


@pytest.mark.parametrize("ind, kind", [([4, 4], "op_runtime"), ([], "value")])
def test_index_tensor_into_an_empty_axis(ind, kind):
    """relax_jax's gather from an axis of extent 0 failed in XLA (TypeError); every index into it is
    out of range (op_runtime), and no index at all is an empty result."""
    text = _main('x: R.Tensor((0, 3), "float32"), i: R.Tensor(("k",), "int64"), j: R.Tensor(("k",), "int64")',
                 "y = R.index_tensor(x, (i, j))\nreturn y")
    got = _both_with(text, [np.ones((0, 3), "float32"), np.array(ind, "int64"), np.zeros(len(ind), "int64")])
    assert [k for k, _ in got] == [kind, kind]
    if kind == "value":
        assert all(np.asarray(v).shape == (0,) for _, v in got)


def test_memory_view_checks_its_size_before_its_bounds():
    """RUNTIME.LIMIT.3: the result's size (from its struct info) is checked before the operator's own
    run-time checks, on both evaluators (relax_jax reported the bounds of the view first)."""
    text = _main('x: R.Tensor((4,), "float32")',
                 'y = R.memory.view(x, R.shape([9223372036854775807]), R.dtype("int16"), R.prim_value(6))\nreturn y')
    got = _both_with(text, [np.ones(4, "float32")])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]


@pytest.mark.parametrize("reserve", ["[4, 4294967296]", "[4294967296, 3]"])
def test_a_kv_cache_beyond_the_budget_is_not_allocated(reserve):
    text = _main("", 'c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), '
                     f'"float32"), R.shape({reserve}), R.prim_value(0), sinfo_args=R.Object)\nreturn c')
    got = _both_with(text, [])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]
    assert all("KV cache" in m for _, m in got)


@pytest.mark.parametrize("body", [
    "y = R.nn.pad(x, [0, 0, 0, 0, 0, 0, 0, 4294967296])\nreturn y",
    "y = R.nn.adaptive_avg_pool2d(x, (3, 2147483648))\nreturn y",
])
def test_the_result_size_comes_before_a_host_side_plan(body):
    """relax_jax ran the operator's checks, which build a plan as long as the result (pad_plan,
    adaptive_ranges), before the result's size: a MemoryError, or a minute of Python, where the
    reference reported limit_exceeded."""
    text = _main('x: R.Tensor((1, 1, 2, 2), "float32")', body)
    got = _both_with(text, [np.ones((1, 1, 2, 2), "float32")])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]


def test_an_xla_resource_exhausted_error_is_an_allocation_failure():
    from relax_ref.limits import is_allocation_failure

    class JaxRuntimeError(RuntimeError):
        pass
    assert is_allocation_failure(JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 4294967296 bytes."))
    assert not is_allocation_failure(JaxRuntimeError("INVALID_ARGUMENT: something else"))
    assert not is_allocation_failure(RuntimeError("RESOURCE_EXHAUSTED"))


_UNDER_BUDGET = r'''
import resource, sys
import numpy as np
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import relax_ref, relax_jax
from relax_ref.errors import RelaxError
text = sys.argv[1]
mod = relax_ref.parse(text)
for run in (lambda: relax_ref.evaluate(mod, "main"), lambda: relax_jax.compile(mod)("main")):
    try:
        run()
        print("value")
    except RelaxError as e:
        print(e.kind)
'''


@pytest.mark.parametrize("body", [
    "y = R.arange(2, 2147483648, 3)\nreturn y",                 # 5.3 GiB of int64
    'y = R.zeros(R.shape([1073741824]), "float32")\nreturn y',   # 4 GiB
])
def test_an_allocation_that_fails_under_the_budget_is_limit_exceeded(body):
    """RUNTIME.LIMIT.3: a size under max_bytes (8 GiB here) that the process cannot allocate (an
    address space of 3 GiB) is limit_exceeded on both evaluators (relax_jax raised MemoryError, or
    XLA's RESOURCE_EXHAUSTED)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, RELAX_REF_MAX_BYTES=str(8 << 30), JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", _UNDER_BUDGET, _main("", body)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.stdout.split() == ["limit_exceeded", "limit_exceeded"], out.stderr[-2000:]


TIR_LONG_LOOP = HEAD + '''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(2147483648)):
            B[i % T.int64(4)] = A[i % T.int64(4)] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
'''


def test_a_long_tir_loop_under_the_harness_budget_fails_on_entry():
    """The third run's hang: a loop of 2**31 iterations is within relax-ref's default step budget
    (2**32) and takes 20 s compiled, hours on the reference. The harness evaluates with a budget of
    2**20 steps (fuzz_worker.DEFAULT_BUDGETS), under which both report limit_exceeded when the loop is
    entered (RUNTIME.LIMIT.4)."""
    from relax_ref.testing.fuzz_worker import DEFAULT_BUDGETS

    got = _both_with(TIR_LONG_LOOP, [np.ones(4, "float32")], max_steps=DEFAULT_BUDGETS["RELAX_REF_MAX_STEPS"])
    assert [k for k, _ in got] == ["limit_exceeded", "limit_exceeded"]


# ---------------------------------------------------------------------------------------------------
# The fourth run's findings (25 minutes, seed 20261205, docs/FUZZING.md)
# ---------------------------------------------------------------------------------------------------


def test_avg_pool_backward_checks_output_grad_before_its_window_counts():
    """A padding of 2**32 gives a forward result of 2**31 rows; the window counts (one per row, 16 GiB)
    were built before output_grad's shape (2 rows) was compared: a MemoryError on relax_jax."""
    text = _main('g: R.Tensor((2, 3, 2, 3), "float32"), x: R.Tensor((2, 3, 5, 6), "float32")',
                 "y = R.grad.avg_pool2d_backward(g, x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 4294967296, 1])"
                 "\nreturn y")
    got = _both_with(text, [np.ones((2, 3, 2, 3), "float32"), np.ones((2, 3, 5, 6), "float32")])
    assert [k for k, _ in got] == ["op_runtime", "op_runtime"]
    assert all("is not the shape of the pool's result" in m for _, m in got)


def test_a_loose_argument_is_checked_against_the_other_arguments_values():
    """OP.SEM.6: ewise_fma with b: R.Tensor(("n",)) (no dtype): the reference re-ran the inference with
    b's value, (4,), against a's and c's symbolic ("n",) and reported unequal shapes; relax_jax (with
    padded sizes, ranks only) returned the value. Every tensor argument's value takes part."""
    text = _main('a: R.Tensor(("n",), "int32"), b: R.Tensor(("n",)), c: R.Tensor(("n",), "int32")',
                 "y = R.ewise_fma(a, b, c)\nreturn y")
    a, b, c = (np.array(v, "int32") for v in ([19, 1, -23, -46], [3, 17, 32, 35], [-2, 31, -41, -12]))
    for kind, v in _both_with(text, [a, b, c]):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(v), a * b + c)
    for kind, _ in _both_with(text, [a, b.astype("float32"), c]):
        assert kind == "op_runtime"                      # the dtypes differ at run time


@pytest.mark.parametrize("call", ["call_pure_packed", "call_inplace_packed"])
def test_packed_calls_require_their_sinfo_args(call):
    """sinfo_args=None parsed and printed as no sinfo_args, which did not parse back (a roundtrip
    finding); TVM raises 'is required to have type_args': a parse error."""
    extra = ", inplace_indices=[0]" if call == "call_inplace_packed" else ""
    text = _main('a: R.Tensor((2, 3), "float32")',
                 f'c = R.{call}("vm.builtin.attention_kv_cache_create", a, R.shape([1, 3]), R.prim_value(-1)'
                 f'{extra}, sinfo_args=None)\nreturn c')
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    assert info.value.kind == "parse" and "sinfo_args" in str(info.value)

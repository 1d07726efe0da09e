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

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n    @R.function\n"


def _main(params: str, body: str) -> str:
    return HEAD + f"    def main({params}):\n" + "".join(f"        {line}\n" for line in body.strip().splitlines())


def _both(text, *args):
    mod = relax_ref.parse(text)
    out = []
    for run in (lambda: relax_ref.evaluate(mod, "main", *args), lambda: relax_jax.compile(mod)("main", *args)):
        try:
            out.append(("value", np.asarray(run())))
        except RelaxError as err:
            out.append((err.kind, None))
    return out


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


def test_an_ndim_beyond_int64_is_a_parse_error():
    """Found by the third 30-minute run: R.Tensor(ndim=10**30) reached numpy (OverflowError) through
    expand_dims' inference; an integer of the text beyond int64 is a parse error (RUNTIME.LIMIT.1)."""
    text = _main('v: R.Tensor("float32", ndim=1000000000000000000000000000000)', "w = R.expand_dims(v, axis=[1])\nreturn w")
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    assert info.value.kind == "parse" and "does not fit in int64" in str(info.value)

"""Every reproducer of the hardening campaign (tests/limits/reproducers.py) ends in a RelaxError on the
reference and on relax_jax (RUNTIME.LIMIT.*, ERR.1) -- never another exception, an abort of the
process, a hang or a wrap-around -- and the reproducers whose programs are defined give the same
value on both, checked against a numpy oracle. ``python tests/limits/measure.py`` reports the time
and peak memory of each in a fresh process."""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import LimitExceededError, RelaxError

from limits.reproducers import DEFINED, REPRODUCERS

relax_jax = pytest.importorskip("relax_jax")


def _run(rep, impl: str):
    mod = relax_ref.parse(rep.text)
    args = rep.args()
    if impl == "ref":
        return relax_ref.Interpreter(mod, max_steps=rep.max_steps)(rep.entry, *args)
    return relax_jax.compile(mod, max_steps=rep.max_steps)(rep.entry, *args)


def _kind(rep, impl: str) -> str:
    with pytest.raises(RelaxError) as info:
        _run(rep, impl)
    return info.value.kind


@pytest.mark.parametrize("rep", REPRODUCERS, ids=[r.name for r in REPRODUCERS])
def test_reproducer_is_a_relax_error_on_both(rep):
    kinds = {impl: _kind(rep, impl) for impl in ("ref", "jax")}
    assert kinds["ref"] == kinds["jax"], kinds
    if rep.stage == "parse":
        # a text that does not parse, or no text at all (None, bytes: the entry points take a str or a
        # tvm.IRModule and name the type of anything else, EXPR.EQ.4)
        expected = ("parse", "struct_info") if isinstance(rep.text, str) else ("type_mismatch",)
        assert kinds["ref"] in expected, kinds


LIMIT_KINDS = {
    "broadcast_to_2p31_squared": "limit_exceeded", "tir_loop_2p62": "limit_exceeded",
    "tir_while_forever": "limit_exceeded", "zeros_2p40": "limit_exceeded",
    "tir_while_forever_default_budget": "limit_exceeded", "deep_recursion": "limit_exceeded",
    "prim_int64_arg_2p64_minus_1": "limit_exceeded", "host_shape_1e30": "limit_exceeded",
    "int_tensor_1e30": "type_mismatch", "tir_read_near_int64_max": "out_of_bounds",
    "ones_2p64_plus_3": "parse", "reshape_2p64_plus_6": "parse", "adaptive_avg_pool2d_1e30": "parse",
    "repeat_2p62": "struct_info", "conv2d_strides_0": "struct_info", "bucketed_add_broadcast": "op_runtime",
    "bucketed_multiply_broadcast": "op_runtime", "bucketed_floor_mod_broadcast": "op_runtime",
    "matmul_python_float": "op_runtime", "scatter_python_float": "op_runtime",
    "int_mean_empty_axis": "division_by_zero", "object_array_dtypeless": "type_mismatch",
    "one_hot_empty_depth_2p63_minus_1": "limit_exceeded", "broadcast_to_void_2p64": "limit_exceeded",
    "memory_view_size_and_bounds": "limit_exceeded", "kv_cache_create_4_by_2p32": "limit_exceeded",
    "pad_2p32": "limit_exceeded", "adaptive_avg_pool2d_2p31": "limit_exceeded",
    "index_tensor_empty_axis": "op_runtime", "tir_loop_2p31_harness_budget": "limit_exceeded",
}


@pytest.mark.parametrize("name", sorted(LIMIT_KINDS))
def test_reproducer_kind_on_the_reference(name):
    """The kinds the spec gives (RUNTIME.LIMIT.1-4, OP.SEM.2, OP.SEM.6, OP.STAT.SEM.2, VAL.HOST.1)."""
    rep = {r.name: r for r in REPRODUCERS}[name]
    assert _kind(rep, "ref") == LIMIT_KINDS[name]


@pytest.mark.parametrize("case", DEFINED, ids=[c[0] for c in DEFINED])
def test_defined_reproducer_values(case):
    name, text, args, expected = case
    mod = relax_ref.parse(text)
    got_ref = relax_ref.evaluate(mod, "main", *args())
    got_jax = np.asarray(relax_jax.compile(mod)("main", *args()))
    for got in (got_ref, got_jax):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_the_limit_error_names_the_value():
    rep = {r.name: r for r in REPRODUCERS}["prim_int64_arg_2p64_minus_1"]
    for impl in ("ref", "jax"):
        with pytest.raises(LimitExceededError) as info:
            _run(rep, impl)
        assert info.value.value == 2 ** 64 - 1 and info.value.limit == "dtype"
        assert str(2 ** 64 - 1) in str(info.value)

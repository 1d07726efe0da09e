"""Checks relax_jax makes on the host before a compiled call (relax_jax.host_checks): ``R.take`` of a
small index parameter, and an attention KV cache's view against its fill count (CALL.KVCACHE.1). The
compilation then carries no error code; a failing check runs the call in host mode, so the error is
the reference's, the first in execution order, with the cache states the reference leaves. Checks that
may not run (inside a branch) or whose data is large stay in the compiled code."""

from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import OpRuntimeError, RelaxError
from relax_ref.interp.kv_cache import AttentionKVCache
from relax_jax.host_checks import MAX_HOST_ELEMENTS

from file_modules import load_file
from program_texts import KV_CREATE, KV_STEP_SUM

ROOT = Path(__file__).resolve().parents[2]

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def step(ids: R.Tensor((1, 1), "int32"), table: R.Tensor((8, 4), "float32"),
             k: R.Tensor((1, "m", 4), "float32")) -> R.Tuple(R.Tensor((1, 4), "float32"), R.Tensor((1, "m + 1", 4), "float32")):
        m = T.int64()
        e = R.take(table, ids, axis=0)
        k1 = R.concat([k, e], axis=1)
        return (R.sum(k1, axis=[1]), k1)

    @R.function
    def two(ids: R.Tensor((2,), "int32"), big: R.Tensor((16, 2), "float32"),
            small: R.Tensor((4, 2), "float32")) -> R.Tensor((2, 2), "float32"):
        doubled = R.multiply(ids, R.const(2, "int32"))
        a = R.take(big, doubled, axis=0)
        b = R.take(small, ids, axis=0)
        return R.add(a, b)

    @R.function
    def branchy(ids: R.Tensor((2,), "int32"), table: R.Tensor((4, 2), "float32"),
                flag: R.Tensor((), "bool")) -> R.Tensor((2, 2), "float32"):
        if flag:
            r = R.take(table, ids, axis=0)
            y = r
        else:
            y = R.zeros(R.shape([2, 2]), "float32")
        return y

    @R.function
    def many(ids: R.Tensor(("n",), "int32"), table: R.Tensor((4, 2), "float32")) -> R.Tensor(("n", 2), "float32"):
        n = T.int64()
        return R.take(table, ids, axis=0)
''' + KV_CREATE + KV_STEP_SUM

MOD = relax_ref.parse(SRC)
TABLE = np.arange(32, dtype="float32").reshape(8, 4)


def _compilations(exe, name):
    plan = exe._plans[name]
    return list(plan.cache.values()) + list(plan.exact_cache.values())


def _error(fn):
    with pytest.raises(RelaxError) as info:
        fn()
    return info.value


def _same_error(got, want):
    """The same error: its kind, function, binding and source position (relax_jax words an index
    error without the index)."""
    assert type(got) is type(want), (got, want)
    assert (got.function, got.binding, got.span) == (want.function, want.binding, want.span), (got, want)


@pytest.mark.parametrize("kind", ["numpy", "jax"])
def test_a_decode_step_takes_its_token_ids_without_an_error_code(kind):
    exe, ref = relax_jax.compile(MOD), relax_ref.Interpreter(MOD)
    conv = np.asarray if kind == "numpy" else jnp.asarray
    k = np.zeros((1, 3, 4), "float32")
    for i in range(6):      # the padded fast path after the first calls
        ids = conv(np.array([[i % 8]], "int32"))
        got, want = exe("step", ids, TABLE, k), ref("step", np.asarray(ids), TABLE, k)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0])
        k = np.asarray(got[1])
    comps = _compilations(exe, "step")
    assert comps and all(not c.has_code and c.host is not None for c in comps)
    for bad in (8, -1, 2**31 - 1):
        ids = conv(np.array([[bad]], "int32"))
        got = _error(lambda: exe("step", ids, TABLE, k))
        _same_error(got, _error(lambda: ref("step", np.asarray(ids), TABLE, k)))
        assert isinstance(got, OpRuntimeError) and "out of range" in str(got)
    # after the errors, the fast path still serves
    hits = exe.stats.cache_hits
    exe("step", conv(np.array([[7]], "int32")), TABLE, k)
    assert exe.stats.cache_hits == hits + 1


def test_the_first_failing_check_gives_the_error():
    """The host check of ``small``'s take fails, but the take of ``big`` (a check site in the compiled
    code, its indices computed) comes first: its error, as on the reference."""
    exe, ref = relax_jax.compile(MOD), relax_ref.Interpreter(MOD)
    big, small = np.ones((16, 2), "float32"), np.ones((4, 2), "float32")
    np.testing.assert_array_equal(np.asarray(exe("two", np.array([1, 3], "int32"), big, small)),
                                  ref("two", np.array([1, 3], "int32"), big, small))
    assert all(c.has_code and c.host is not None for c in _compilations(exe, "two"))
    for ids in ([1, 5], [1, 9], [9, 1]):   # the second take fails; both fail (the first's error); both again
        a = np.array(ids, "int32")
        got = _error(lambda: exe("two", a, big, small))
        _same_error(got, _error(lambda: ref("two", a, big, small)))
    assert "extent 16" in str(_error(lambda: exe("two", np.array([9, 1], "int32"), big, small)))


def test_a_take_in_a_branch_keeps_its_check_in_the_compiled_code():
    exe, ref = relax_jax.compile(MOD), relax_ref.Interpreter(MOD)
    table, bad = np.ones((4, 2), "float32"), np.array([1, 7], "int32")
    for flag in (False, True):
        f = np.array(flag)
        if flag:
            _same_error(_error(lambda: exe("branchy", bad, table, f)), _error(lambda: ref("branchy", bad, table, f)))
        else:       # the branch does not run: no error on either
            np.testing.assert_array_equal(np.asarray(exe("branchy", bad, table, f)), ref("branchy", bad, table, f))
            np.testing.assert_array_equal(np.asarray(exe("branchy", bad, table, f)), np.zeros((2, 2), "float32"))


def test_large_indices_keep_their_check_site():
    exe, ref = relax_jax.compile(MOD, shape_buckets=None), relax_ref.Interpreter(MOD)
    table = np.ones((4, 2), "float32")
    ids = np.zeros(MAX_HOST_ELEMENTS + 1, "int32")
    exe("many", ids, table)
    assert all(c.has_code and c.host is None for c in _compilations(exe, "many"))
    ids[-1] = 4
    _same_error(_error(lambda: exe("many", ids, table)), _error(lambda: ref("many", ids, table)))


def _kv(exe, rows):
    c = exe("create", np.arange(6, dtype="float32").reshape(2, 3))
    room = np.zeros((rows, 3), "float32")
    room[:c.fill] = np.asarray(c.data)[:c.fill]
    return AttentionKVCache(jnp.asarray(room), int(c.fill), int(c.pos))


def test_a_kv_view_of_other_rows_fails_as_on_the_reference():
    exe, ref = relax_jax.compile(MOD), relax_ref.Interpreter(MOD)
    cache = _kv(exe, 64)
    for i in range(5):                      # the decode fast path after the first calls
        cache, _ = exe("step_sum", cache, np.full((1, 3), i, "float32"), (3 + i,))
    assert all(not c.has_code and c.host is not None for c in _compilations(exe, "step_sum"))
    mine = AttentionKVCache(np.array(cache.data), int(cache.fill), int(cache.pos))
    b = np.ones((1, 3), "float32")
    for wrong in (lambda f: f, lambda f: f + 2, lambda f: 0):
        wrong = wrong(cache.fill)           # (each failing call appended its row: the fill count moved)
        got = _error(lambda: exe("step_sum", cache, b, (wrong,)))
        _same_error(got, _error(lambda: ref("step_sum", mine, b, (wrong,))))
        assert (cache.fill, cache.pos) == (mine.fill, mine.pos)     # the append before the view stays
        np.testing.assert_array_equal(np.asarray(cache.data)[:cache.fill], np.asarray(mine.data)[:mine.fill])
    _, t = exe("step_sum", cache, b, (cache.fill + 1,))
    _, want = ref("step_sum", mine, b, (mine.fill + 1,))
    np.testing.assert_array_equal(np.asarray(t), want)


@pytest.mark.parametrize("style", ["concat", "kv"])
def test_the_llama_decode_step_has_no_error_code(style):
    llama = load_file("llama_tiny_example", ROOT / "examples" / "llama_tiny.py")
    model = llama.make_model(0)
    mod = llama.build_module(model) if style == "concat" else llama.build_kv_module(model, reserve=32)
    exe = relax_jax.compile(mod)
    run = lambda e, a: llama._split(e, exe(e, *a))  # noqa: E731
    gen = llama.generate if style == "concat" else llama.generate_kv
    gen(run, model.param_arrays(), [1, 2, 3], 4)
    comps = _compilations(exe, "decode")
    assert comps and all(not c.has_code for c in comps)

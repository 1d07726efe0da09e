"""consumed_params(func, among=...) (CALL.INPLACE.6) answers for the parameters asked about exactly
what the whole scan answers for them, and relax_jax, which asks about its tensor parameters only,
still computes in-place results of a consumed tensor parameter next to a cache object parameter with
the reference's values."""

import itertools

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.transform.inplace_liveness import consumed_params
from program_texts import case_text
from program_texts import KV_CREATE

_CASE = case_text("invalid", "call_tir_inplace_index_out_of_range")
_HEAD = _CASE[:_CASE.index("        cls = Module\n") + len("        cls = Module\n")]
_CALL = "R.call_tir_inplace(cls.add_into, ({a}, y), inplace_indices=[0], out_sinfo=R.Tensor((4,), 'float32'))"

BODIES = [
    ([f"z = {_CALL.format(a='x')}", f"u = {_CALL.format(a='y')}"], "(z, u)"),
    ([f"z = {_CALL.format(a='x')}", "w = R.add(x, y)"], "(z, w)"),
    (["t = (y, x)", "a = t[1]", f"z = {_CALL.format(a='a')}"], "z"),
    ([f"z = {_CALL.format(a='y')}"], "z"),
    ([f"z = {_CALL.format(a='x')}", f"u = {_CALL.format(a='z')}", "s = R.add(z, y)"], "(u, s)"),
    (["z = R.add(x, y)"], "z"),
]


@pytest.mark.parametrize("k", range(len(BODIES)))
def test_among_is_the_whole_answer_restricted(k):
    lines, ret = BODIES[k]
    src = _HEAD + "".join(f"        {ln}\n" for ln in lines) + f"        return {ret}\n"
    func = relax_ref.parse(src)["main"]
    whole = consumed_params(func)
    for r in range(4):
        for among in itertools.combinations([0, 1, 2, 7], r):
            for kind in (frozenset, set):
                assert consumed_params(func, kind(among)) == whole & frozenset(among)


_KV_AND_TENSOR = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @T.prim_func
    def bump(A: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            A[i] = A[i] + T.float32(1)

''' + KV_CREATE + '''
    @R.function
    def step(c: R.Object, b: R.Tensor((1, 3), "float32"), x: R.Tensor((4,), "float32")):
        cls = Module
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([3, 3]),
                               sinfo_args=R.Tensor((3, 3), "float32"))
        y = R.call_tir_inplace(cls.bump, (x,), inplace_indices=[0], out_sinfo=R.Tensor((4,), "float32"))
        return (c1, v, y)
'''


def test_a_consumed_tensor_next_to_a_cache_object():
    mod = relax_ref.parse(_KV_AND_TENSOR)
    assert consumed_params(mod["step"]) == frozenset({0, 2})
    assert consumed_params(mod["step"], frozenset({1, 2})) == frozenset({2})
    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((1, 3), 7, np.float32)
    x, rx = np.arange(4, dtype=np.float32), np.arange(4, dtype=np.float32)
    cache = exe("create", a)
    c1, v, y = exe("step", cache, b, x)
    interp = relax_ref.Interpreter(mod)
    rc = interp("create", a)
    _, rv, ry = interp("step", rc, b, rx)
    np.testing.assert_array_equal(np.asarray(v), rv)
    np.testing.assert_array_equal(np.asarray(y), ry)
    np.testing.assert_array_equal(np.asarray(y), np.arange(4, dtype=np.float32) + 1)
    np.testing.assert_array_equal(x, rx)        # the caller's array after the call: as on the reference

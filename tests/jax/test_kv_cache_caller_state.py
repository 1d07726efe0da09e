"""KV-cache steps (CALL.KVCACHE.1-3) whose cache a caller changed between calls: fill counts and
window positions set to negative, full, past-capacity, int32- and int64-limit values, NumPy integers,
booleans and non-integers; a cache buffer moved to NumPy; view lengths beyond int32. relax_jax, on its
fast path (after warm steps) and on a first call, gives the reference evaluator's result or error."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.interp.kv_cache import AttentionKVCache
from program_texts import KV_CREATE, KV_STEP_SUM

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
''' + KV_CREATE + KV_STEP_SUM

_MOD = relax_ref.parse(SRC)

_CHANGES = {
    "fill=-1": lambda c: setattr(c, "fill", -1),
    "fill=capacity": lambda c: setattr(c, "fill", c.data.shape[0]),
    "fill=capacity-1": lambda c: setattr(c, "fill", c.data.shape[0] - 1),
    "fill=2**31-1": lambda c: setattr(c, "fill", 2**31 - 1),
    "fill=2**31": lambda c: setattr(c, "fill", 2**31),
    "fill=-2**31": lambda c: setattr(c, "fill", -2**31),
    "fill=2**64": lambda c: setattr(c, "fill", 2**64),
    "fill=int64": lambda c: setattr(c, "fill", np.int64(3)),
    "fill=int32": lambda c: setattr(c, "fill", np.int32(3)),
    "fill=True": lambda c: setattr(c, "fill", True),
    "fill=2.0": lambda c: setattr(c, "fill", 2.0),
    "fill=None": lambda c: setattr(c, "fill", None),
    "pos=-1": lambda c: setattr(c, "pos", -1),
    "pos=2**31": lambda c: setattr(c, "pos", 2**31),
    "pos=int32": lambda c: setattr(c, "pos", np.int32(3)),
    "pos=1.5": lambda c: setattr(c, "pos", 1.5),
    "pos=2**63": lambda c: setattr(c, "pos", 2**63),
    "pos=2**64": lambda c: setattr(c, "pos", 2**64),
    "fill=capacity+1": lambda c: setattr(c, "fill", c.data.shape[0] + 1),
    "data=numpy": lambda c: setattr(c, "data", np.asarray(c.data)),
    "data=float64": lambda c: setattr(c, "data", np.asarray(c.data, np.float64)),
}


def _outcome(f):
    try:
        return ("ok", f())
    except RelaxError as e:
        return ("err", type(e))


def _changed(change, warm):
    """An executable, its cache after ``warm`` steps then ``change``, and the reference's copy of it."""
    exe = relax_jax.compile(_MOD)
    cache = exe("create", np.arange(6, dtype="float32").reshape(2, 3))
    for i in range(warm):
        exe("step_sum", cache, np.full((1, 3), i, "float32"), (3 + i,))
    _CHANGES[change](cache)
    return exe, cache, AttentionKVCache(np.array(cache.data), cache.fill, cache.pos)


@pytest.mark.parametrize("warm", [4, 0])
@pytest.mark.parametrize("change", sorted(_CHANGES))
def test_a_cache_the_caller_changed(change, warm):
    exe, cache, ref = _changed(change, warm)
    m = int(cache.fill) + 1 if isinstance(cache.fill, (int, np.integer)) else 3
    b = np.full((1, 3), 9, "float32")
    got = _outcome(lambda: exe("step_sum", cache, b, (m,)))
    want = _outcome(lambda: relax_ref.Interpreter(_MOD)("step_sum", ref, b, (m,)))
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        np.testing.assert_array_equal(np.asarray(got[1][1]), want[1][1])
        assert int(cache.fill) == int(ref.fill)
        np.testing.assert_array_equal(np.asarray(cache.data)[:ref.fill], np.asarray(ref.data)[:ref.fill])
    else:
        assert got[1] is want[1]


@pytest.mark.parametrize("m", [2**31 - 1, 2**31, 2**31 + 3, 2**33, 2**63 - 1, 2**63, 2**64 + 5, -2**63, -2**63 - 1, -1, 0])
def test_a_view_length_far_from_the_fill_count_on_the_fast_path(m):
    exe = relax_jax.compile(_MOD)
    cache = exe("create", np.arange(6, dtype="float32").reshape(2, 3))
    for i in range(4):
        exe("step_sum", cache, np.full((1, 3), i, "float32"), (3 + i,))
    assert exe._plans["step_sum"].hot is not None
    ref = AttentionKVCache(np.array(cache.data), cache.fill, cache.pos)
    b = np.full((1, 3), 9, "float32")
    got = _outcome(lambda: exe("step_sum", cache, b, (m,)))
    want = _outcome(lambda: relax_ref.Interpreter(_MOD)("step_sum", ref, b, (m,)))
    assert got[0] == want[0] == "err" and got[1] is want[1], (got, want)
    # the cache goes on from where the reference's is
    got = exe("step_sum", cache, b, (ref.fill + 1,))
    want = relax_ref.Interpreter(_MOD)("step_sum", ref, b, (ref.fill + 1,))
    np.testing.assert_array_equal(np.asarray(got[1]), want[1])


_OUT_OF_RANGE = ("fill=-1", "fill=-2**31", "fill=2**31", "fill=2**64", "fill=capacity+1", "pos=-1", "pos=2**63",
                 "pos=2**64")


@pytest.mark.parametrize("warm", [4, 0])
@pytest.mark.parametrize("change", _OUT_OF_RANGE)
def test_counts_outside_their_range_are_an_error(change, warm):
    """CALL.KVCACHE.1: 0 <= fill <= reserved rows, 0 <= position < 2**63; a cache a caller set outside
    is an op_runtime error of the function that receives it, on both evaluators."""
    from relax_ref.errors import OpRuntimeError

    exe, cache, ref = _changed(change, warm)
    b = np.full((1, 3), 9, "float32")
    with pytest.raises(OpRuntimeError, match="fill count"):
        relax_ref.Interpreter(_MOD)("step_sum", ref, b, (3,))
    with pytest.raises(OpRuntimeError, match="fill count"):
        exe("step_sum", cache, b, (3,))

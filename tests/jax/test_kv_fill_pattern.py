"""The KV caches' fill counts and window positions in the packed vector (relax_jax.plan.lift): where all
caches of a call agree, the vector carries one value for all (plan.lift_pattern, part of the
compilation's key), so that every layer's kernels read the same element. A call whose caches disagree,
after calls whose caches agreed (and back), on the fast path and on a first call, gives the reference
evaluator's values (CALL.KVCACHE.1-3). One cache object passed as two cache parameters gives the
reference's values (host mode); two cache objects over one buffer are a RelaxRuntimeError."""

import itertools

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxRuntimeError
from relax_ref.interp.kv_cache import AttentionKVCache
from relax_jax.plan import lift_pattern, lifted_slots, lifted_values
from program_texts import KV_CREATE

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
''' + KV_CREATE + '''
    @R.function
    def one(c: R.Object, b: R.Tensor((1, 3), "float32")) -> R.Object:
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        return c1

    @R.function
    def both(c: R.Object, d: R.Object, b: R.Tensor((1, 3), "float32"), s: R.Shape(["m", "n"])
             ) -> R.Tuple(R.Object, R.Object, R.Tensor((3,), "float32")):
        m = T.int64()
        n = T.int64()
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        d1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", d, b * R.const(2, "float32"),
                                   inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([m, 3]),
                               sinfo_args=R.Tensor((m, 3), "float32"))
        w = R.call_pure_packed("vm.builtin.attention_kv_cache_view", d1, R.shape([n, 3]),
                               sinfo_args=R.Tensor((n, 3), "float32"))
        t = R.sum(v, axis=[0]) + R.sum(w, axis=[0]) * R.const(10, "float32")
        return (c1, d1, t)
'''

_MOD = relax_ref.parse(SRC)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_lifted_values_round_trip(n):
    """Under the pattern of the values themselves, each lifted scalar reads back its own value."""
    for fills, poss in itertools.product([[7] * n, list(range(n))], [[0] * n, list(range(10, 10 + n))]):
        scalars = [x for pair in zip(fills, poss) for x in pair]
        pattern = lift_pattern(scalars)
        packed = lifted_values(scalars, pattern)
        assert [packed[k] for k in lifted_slots(len(scalars), pattern)] == scalars
        assert len(packed) == (1 if pattern[0] else n) + (1 if pattern[1] else n) if n else packed == []
        assert pattern == (len(set(fills)) <= 1, len(set(poss)) <= 1)


def _pair(exe_or_ref, seed):
    a = np.arange(6, dtype="float32").reshape(2, 3) + seed
    return exe_or_ref("create", a), exe_or_ref("create", a * 3)


def _copy(c):
    return AttentionKVCache(np.array(c.data), int(c.fill), int(c.pos))


# per step: what the caller does to the caches first ("c+": one more row in c only, "pos": d's window
# position set apart from c's, "": nothing)
_SCHEDULES = {
    "agree, then disagree, then agree": ["", "", "", "c+", "", "", "c+"],
    "disagree from the first call": ["c+", "", "", "c+", ""],
    "positions disagree": ["", "", "pos", "", ""],
}


@pytest.mark.parametrize("schedule", sorted(_SCHEDULES))
def test_caches_that_agree_and_disagree(schedule):
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe, 0)
    rc, rd = _copy(c), _copy(d)
    for i, what in enumerate(_SCHEDULES[schedule]):
        b = np.full((1, 3), i + 1, "float32")
        if what == "c+":
            c = exe("one", c, b)
            rc = ref("one", rc, b)
        elif what == "pos":
            d.pos = rd.pos = 1
        m, n = int(c.fill) + 1, int(d.fill) + 1
        got = exe("both", c, d, b, (m, n))
        want = ref("both", rc, rd, b, (m, n))
        c, d = got[0], got[1]
        rc, rd = want[0], want[1]
        np.testing.assert_array_equal(np.asarray(got[2]), want[2], err_msg=f"step {i} ({what!r})")
        for x, y in ((c, rc), (d, rd)):
            assert (int(x.fill), int(x.pos)) == (int(y.fill), int(y.pos))
            np.testing.assert_array_equal(np.asarray(x.data)[:y.fill], np.asarray(y.data)[:y.fill])


def test_agreeing_caches_compile_once_per_pattern():
    """Growing fill counts that keep agreeing select one compilation; the first disagreement one more,
    and agreeing again takes the first one back (no compilation per fill count)."""
    exe = relax_jax.compile(_MOD)
    c, d = _pair(exe, 1)
    b = np.ones((1, 3), "float32")

    def step():
        nonlocal c, d
        c, d, _ = exe("both", c, d, b, (int(c.fill) + 1, int(d.fill) + 1))
    step()
    first = exe.stats.compiles
    step()
    assert exe.stats.compiles == first
    c = exe("one", c, b)
    after_one = exe.stats.compiles
    step()
    assert exe.stats.compiles == after_one + 1
    d = exe("one", d, b)
    step()
    step()
    assert exe.stats.compiles == after_one + 1


@pytest.mark.parametrize("warm", [0, 3])
def test_one_cache_in_two_parameters(warm):
    """The two appends go to the one cache in order, as the reference evaluator's, on a first call and
    after warm calls with two caches (the fast path's compilation)."""
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe, 2)
    b = np.ones((1, 3), "float32")
    for _ in range(warm):
        c, d, _ = exe("both", c, d, b, (int(c.fill) + 1, int(d.fill) + 1))
    rc = _copy(c)
    m = int(c.fill) + 2
    got = exe("both", c, c, b * 5, (m, m))
    want = ref("both", rc, rc, b * 5, (m, m))
    np.testing.assert_array_equal(np.asarray(got[2]), want[2])
    assert got[0] is c and got[1] is c and int(c.fill) == int(rc.fill) == m
    np.testing.assert_array_equal(np.asarray(c.data)[:m], np.asarray(rc.data)[:m])
    # and the caches keep working afterwards
    rd, n = _copy(d), int(d.fill) + 1
    _, _, t = exe("both", c, d, b, (m + 1, n))
    r2 = ref("both", rc, rd, b, (m + 1, n))
    np.testing.assert_array_equal(np.asarray(t), r2[2])


def test_two_caches_over_one_buffer_are_an_error():
    exe = relax_jax.compile(_MOD)
    c, _ = _pair(exe, 0)
    d = AttentionKVCache(c.data, c.fill, c.pos)
    b = np.ones((1, 3), "float32")
    with pytest.raises(RelaxRuntimeError, match="one buffer"):
        exe("both", c, d, b, (3, 3))
    assert not c.data.is_deleted() and int(c.fill) == 2     # nothing ran, nothing donated
    got = exe("both", c, _copy(d), b, (3, 3))
    assert int(got[0].fill) == 3

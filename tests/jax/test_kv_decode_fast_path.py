"""The fast path of a decode step with KV-cache parameters (relax_jax.kvhot): one total-length shape
``R.Shape([m])``, caches whose fill counts and window positions agree, one row appended to each. The
path checks all caches at once (kvhot._decode_hot). Whatever the caller does between steps -- rewinds
the fill counts, moves the window positions, passes another length, replaces a cache's buffer, passes a
tensor where a cache goes, makes the positions disagree -- each call gives the reference evaluator's
values and cache states (CALL.KVCACHE.1-3), and the steps that need nothing else stay on the fast path."""

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.interp.kv_cache import AttentionKVCache
from program_texts import KV_CREATE

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
''' + KV_CREATE + '''
    @R.function
    def decode(b: R.Tensor((1, 3), "float32"), s: R.Shape(["m"]), c: R.Object, d: R.Object,
               w: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Object, R.Object):
        m = T.int64()
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        d1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", d, b * R.const(2, "float32"),
                                   inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([m, 3]),
                               sinfo_args=R.Tensor((m, 3), "float32"))
        u = R.call_pure_packed("vm.builtin.attention_kv_cache_view", d1, R.shape([m, 3]),
                               sinfo_args=R.Tensor((m, 3), "float32"))
        t = (R.sum(v, axis=[0]) + R.sum(u, axis=[0]) * R.const(10, "float32")) * w
        return (t, c1, d1)
'''

_MOD = relax_ref.parse(SRC)
_W = np.array([1.0, 2.0, 3.0], "float32")


def _copy(c):
    return AttentionKVCache(np.array(c.data), int(c.fill), int(c.pos))


def _pair(exe):
    """Two caches holding two rows each, with room for 64 (no step grows them: the steps stay on the
    fast path, each after another)."""
    a = np.arange(6, dtype="float32").reshape(2, 3)
    out = []
    for c in (exe("create", a), exe("create", a * 3)):
        room = np.zeros((64, 3), "float32")
        room[:c.fill] = np.asarray(c.data)[:c.fill]
        out.append(AttentionKVCache(jnp.asarray(room), int(c.fill), int(c.pos)))
    return tuple(out)


def _same(x, y, what):
    assert (int(x.fill), int(x.pos)) == (int(y.fill), int(y.pos)), what
    np.testing.assert_array_equal(np.asarray(x.data)[:y.fill], np.asarray(y.data)[:y.fill], err_msg=what)


def _run(schedule):
    """Steps of ``decode`` on relax_jax and the reference; ``schedule``: per step, what the caller does
    to both sides' caches first. Returns the executable."""
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe)
    rc, rd = _copy(c), _copy(d)
    for i, what in enumerate(schedule):
        b = np.full((1, 3), i + 1, "float32")
        m = int(c.fill) + 1
        if what == "rewind":            # both caches drop their last row
            c.fill -= 1
            d.fill -= 1
            rc.fill -= 1
            rd.fill -= 1
            m -= 1
        elif what == "pos":             # both windows moved (they still agree)
            c.pos = d.pos = rc.pos = rd.pos = 1
        elif what == "buffer":          # c's buffer replaced by another of the same shape
            new = np.asarray(c.data) + 5
            c.data = jnp.asarray(new)
            rc.data = np.array(new)
        got = exe("decode", b, (m,), c, d, _W)
        want = ref("decode", b, (m,), rc, rd, _W)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0], err_msg=f"step {i} ({what!r})")
        assert got[1] is c and got[2] is d
        _same(c, want[1], f"step {i} ({what!r}) c")
        _same(d, want[2], f"step {i} ({what!r}) d")
        rc, rd = want[1], want[2]
    return exe


def test_plain_steps_stay_on_the_fast_path():
    exe = _run([""] * 6)
    assert "_decode_hot" in exe._plans["decode"].hot.__qualname__      # the path under test
    assert exe.stats.cache_hits >= 5


@pytest.mark.parametrize("what", ["rewind", "pos", "buffer"])
@pytest.mark.parametrize("at", [1, 3])
def test_a_change_between_steps_is_seen(what, at):
    """The change comes after fast-path steps (at 3) or after the first compiled call (at 1); the steps
    after it go on from the changed state."""
    schedule = [""] * 6
    schedule[at] = what
    exe = _run(schedule)
    assert exe.stats.cache_hits >= 4


def test_another_length_than_expected():
    """A total length other than the caches' next one: the reference's check fails on both sides, and
    the following step with the right length is right."""
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe)
    rc, rd = _copy(c), _copy(d)
    b = np.ones((1, 3), "float32")
    for _ in range(3):
        exe("decode", b, (int(c.fill) + 1,), c, d, _W)
        ref("decode", b, (int(rc.fill) + 1,), rc, rd, _W)
    m = int(c.fill) + 2                                  # the view would read a row never written
    with pytest.raises(relax_ref.RelaxError) as want:
        ref("decode", b, (m,), _copy(rc), _copy(rd), _W)
    with pytest.raises(type(want.value)):
        exe("decode", b, (m,), c, d, _W)


def test_caches_that_disagree_after_agreeing():
    """One cache advanced alone between fast-path steps: another pattern (the general path), same values."""
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe)
    rc, rd = _copy(c), _copy(d)
    b = np.ones((1, 3), "float32")
    for i in range(4):
        if i == 3:
            c.pos = rc.pos = 1                           # positions now disagree
        m = int(c.fill) + 1
        got = exe("decode", b * i, (m,), c, d, _W)
        want = ref("decode", b * i, (m,), rc, rd, _W)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0], err_msg=f"step {i}")
        _same(c, want[1], f"step {i} c")
        _same(d, want[2], f"step {i} d")
        rc, rd = want[1], want[2]


def test_a_wrong_kind_of_cache_argument():
    """A tensor where a cache goes, after fast-path steps: the general path raises the reference's error."""
    exe = relax_jax.compile(_MOD)
    ref = relax_ref.Interpreter(_MOD)
    c, d = _pair(exe)
    b = np.ones((1, 3), "float32")
    for _ in range(3):
        exe("decode", b, (int(c.fill) + 1,), c, d, _W)
    hits = exe.stats.cache_hits
    m = int(d.fill) + 1
    with pytest.raises(relax_ref.RelaxError) as want:
        ref("decode", b, (m,), np.zeros((4, 3), "float32"), _copy(d), _W)
    with pytest.raises(type(want.value)):
        exe("decode", b, (m,), np.zeros((4, 3), "float32"), d, _W)
    assert exe.stats.cache_hits == hits

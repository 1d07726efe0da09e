"""TVM's paged KV cache on the reference (CALL.PAGEDKV.*): the page accounting of the bookkeeping,
atomic failures, rotary embedding facts, and that a prefill equals the same tokens decoded one by one
(the attention is causal and the pages hold what the forward wrote)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.errors import ArityMismatchError, OpRuntimeError, TypeMismatchError
from relax_ref.interp import paged_attention as pa
from relax_ref.interp.paged_kv_cache import NUMPY_PAGED, PAGED_KV_FUNCS, PagedKVCache
from relax_ref.interp.paged_state import PagedState
from relax_ref.values import PrimScalar, ShapeValue


def make(layers=1, hq=2, hkv=1, d=4, page=4, capacity=16, batch=4, chunk=16, mode=1, n_args=28):
    args = [ShapeValue([batch, capacity, chunk, page, 0]), ShapeValue([0, layers]), hq, hkv, d, d,
            ShapeValue([0] * layers), False, mode, 1.0, 10000.0, None, np.zeros((), "float32")]
    args += [None] * (n_args - len(args))
    return PAGED_KV_FUNCS["vm.builtin.paged_attention_kv_cache_create"](*args)


def test_pages_shared_at_a_fork_and_copied_when_partial():
    s = PagedState(num_pages=6, page_size=4, max_batch=4, chunk=32)
    s.add(0)
    s.begin([0], [10])                 # 3 pages
    s.end()
    assert s.available() == 3
    copy = s.fork(0, 1, 9)            # shares pages 0-1, copies one slot of page 2
    assert copy == (s.tables[0][2], s.tables[1][2], 1) and s.available() == 2
    assert s.tables[1][:2] == s.tables[0][:2]
    s.remove(0)                        # page 2 of the parent freed, pages 0-1 still held by the child
    assert s.available() == 3
    s.popn(1, 9)
    assert s.available() == 6 and s.lengths[1] == 0 and s.tables[1] == []


def test_capacity_error_changes_nothing():
    s = PagedState(num_pages=3, page_size=4, max_batch=4, chunk=32)
    s.add(0)
    s.add(1)
    with pytest.raises(OpRuntimeError, match="full"):
        s.begin([0, 1], [8, 5])       # 2 + 2 pages of 3
    assert s.forward is None and s.lengths == {0: 0, 1: 0} and s.available() == 3


@pytest.mark.parametrize("ids, lens, message", [
    ([0], [1, 2], "1 sequence ids but 2 append lengths"),
    ([], [], "a batch of 0 sequences"),
    ([0, 1, 2], [1, 1, 1], "a batch of 3 sequences"),
    ([0, 0], [1, 1], "appears twice"),
    ([0, 7], [1, 1], "the sequence 7 is not in the KV cache"),
    ([0, 1], [2, 0], "the append length 0 of the sequence 1 is not positive"),
    ([0, 1], [5, 4], "9 tokens in one forward exceed the prefill chunk size 8"),
])
def test_a_forward_that_cannot_begin_changes_nothing(ids, lens, message):
    """CALL.PAGEDKV.7: each requirement of ``begin_forward`` is an ``op_runtime`` error raised before the
    state changes."""
    s = PagedState(num_pages=8, page_size=4, max_batch=2, chunk=8)
    s.add(0)
    s.add(1)
    with pytest.raises(OpRuntimeError, match=message):
        s.begin(ids, lens)
    assert s.forward is None and s.lengths == {0: 0, 1: 0} and s.available() == 8
    s.begin([0], [1])
    with pytest.raises(OpRuntimeError, match="between kv_state_begin_forward and kv_state_end_forward"):
        s.begin([1], [1])
    assert s.forward == ((0, 0, 1),)


def test_popn_into_a_shared_partial_page_copies_it():
    s = PagedState(num_pages=4, page_size=4, max_batch=4, chunk=32)
    s.add(0)
    s.begin([0], [8])
    s.end()
    s.fork(0, 1, -1)
    shared = list(s.tables[1])
    assert shared == s.tables[0] and s.available() == 2
    copy = s.popn(1, 2)
    assert copy == (shared[1], s.tables[1][1], 2) and s.tables[1][1] != shared[1]
    assert s.available() == 1 and s.refs[shared[1]] == 1


def test_rope_is_identity_at_zero_and_keeps_the_norm():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2, 8)).astype("float32")
    np.testing.assert_allclose(pa.rope(np, x, np.zeros(3), 1.0, 10000.0), x, rtol=1e-6)
    y = pa.rope(np, x, np.array([1, 7, 300]), 1.0, 10000.0)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-5)
    # dimension 0 pairs with dimension 4 at the angle pos * scale (theta ** 0 == 1)
    a = 7.0
    want = x[1, :, 0] * math.cos(a) - x[1, :, 4] * math.sin(a)
    np.testing.assert_allclose(y[1, :, 0], want, rtol=1e-5)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_prefill_equals_token_by_token_decode(mode):
    rng = np.random.default_rng(mode)
    qkv = rng.standard_normal((6, 4, 4)).astype("float32")
    fused = PAGED_KV_FUNCS["vm.builtin.attention_kv_cache_attention_with_fused_qkv"]
    f = {k.rsplit(".", 1)[1]: v for k, v in PAGED_KV_FUNCS.items()}
    a, b = make(mode=mode), make(mode=mode)
    f["kv_state_add_sequence"](a, 0)
    f["kv_state_add_sequence"](b, 0)
    f["kv_state_begin_forward"](a, ShapeValue([0]), ShapeValue([6]))
    whole = np.zeros((6, 2, 4), "float32")
    fused(a, 0, 0.5, qkv, whole)
    f["kv_state_end_forward"](a)
    for t in range(6):
        f["kv_state_begin_forward"](b, ShapeValue([0]), ShapeValue([1]))
        one = np.zeros((1, 2, 4), "float32")
        fused(b, 0, 0.5, qkv[t:t + 1], one)
        f["kv_state_end_forward"](b)
        np.testing.assert_allclose(one[0], whole[t], rtol=1e-5, atol=1e-6)


def test_create_arguments():
    c = make(n_args=29)
    assert isinstance(c, PagedKVCache) and c.config.num_pages == 5     # ceil(16 / 4) + 1
    with pytest.raises(ArityMismatchError):
        make(n_args=27)
    with pytest.raises(OpRuntimeError, match="multiple"):
        make(hq=3, hkv=2)
    with pytest.raises(TypeMismatchError):
        PAGED_KV_FUNCS["vm.builtin.kv_state_add_sequence"](np.zeros(3), 0)
    with pytest.raises(ArityMismatchError):
        PAGED_KV_FUNCS["vm.builtin.kv_state_popn"](c, 0)
    assert NUMPY_PAGED.num_available_pages(c) == PrimScalar(5, "int64")



def _check_invariants(s: PagedState) -> None:
    """CALL.PAGEDKV.2: a table of ceil(n / P) pages; a page is free exactly when no table holds it;
    a page two tables share is full in both, at the same index."""
    held = {}
    for seq, table in s.tables.items():
        n = s.lengths[seq]
        assert len(table) == -(-n // s.page_size)
        for i, p in enumerate(table):
            held.setdefault(p, []).append((seq, i))
    assert s.available() == s.num_pages - len(held)
    for p, users in held.items():
        assert s.refs[p] == len(users)
        if len(users) > 1:
            assert len({i for _, i in users}) == 1
            for seq, i in users:
                assert s.lengths[seq] >= (i + 1) * s.page_size


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "fork", "popn", "remove", "forward"]),
                          st.integers(0, 4), st.integers(0, 4), st.integers(-1, 12)), max_size=30))
def test_random_operations_keep_the_page_invariants(ops):
    s = PagedState(num_pages=12, page_size=3, max_batch=3, chunk=10)
    for op, a, b, k in ops:
        before = (dict(s.lengths), {q: list(t) for q, t in s.tables.items()}, list(s.refs))
        try:
            if op == "add":
                s.add(a)
            elif op == "fork":
                s.fork(a, b, k)
            elif op == "popn":
                s.popn(a, k)
            elif op == "remove":
                s.remove(a)
            else:
                s.begin(sorted({a, b}), [max(k, 1)] * len({a, b}))
                s.end()
        except OpRuntimeError:
            assert (s.lengths, s.tables, s.refs) == before     # a failed requirement changes nothing
        _check_invariants(s)


def _prefill(cache, qkv, layer=0):
    fused = PAGED_KV_FUNCS["vm.builtin.attention_kv_cache_attention_with_fused_qkv"]
    NUMPY_PAGED.begin_forward(cache, ShapeValue([0]), ShapeValue([qkv.shape[0]]))
    out = np.zeros((qkv.shape[0], 2, 4), "float32")
    fused(cache, layer, 0.5, qkv, out)
    NUMPY_PAGED.end_forward(cache)
    return out


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("part", ["key", "value"])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_masked_position_contributes_nothing_whatever_it_holds(mode, part, bad):
    """CALL.PAGEDKV.8: a token attends only to the positions up to its own; a later token of the same
    prefill chunk holding an infinity or a NaN changes none of the earlier tokens' outputs (as TVM's
    kernel, which never reads them), which equal those of the chunk without it."""
    rng = np.random.default_rng(5)
    qkv = rng.standard_normal((4, 4, 4)).astype("float32")
    qkv[3, 2 if part == "key" else 3] = bad                 # token 3's key or value head
    a, b = make(mode=mode), make(mode=mode)
    for c in (a, b):
        NUMPY_PAGED.add_sequence(c, 0)
    whole, clean = _prefill(a, qkv), _prefill(b, qkv[:3])
    assert np.all(np.isfinite(whole[:3])) and np.array_equal(whole[:3], clean)
    if part == "value":                                     # token 3 sees its own value, with a weight > 0
        assert (np.all(np.isnan(whole[3])) if np.isnan(bad) else np.all(whole[3] == bad))


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_stored_non_finite_value_reaches_the_tokens_that_see_it(bad):
    """The other side of the rule: a position a token attends to enters its sum as float32 arithmetic
    gives it (an infinity with a positive weight stays infinite, a NaN is NaN)."""
    rng = np.random.default_rng(6)
    qkv = rng.standard_normal((3, 4, 4)).astype("float32")
    qkv[1, 3] = bad
    c = make(mode=1)
    NUMPY_PAGED.add_sequence(c, 0)
    first = _prefill(c, qkv)
    later = _prefill(c, rng.standard_normal((2, 4, 4)).astype("float32"))    # sees position 1 as history
    assert np.all(np.isfinite(first[0]))
    for out in (first[1:], later):
        assert np.all(np.isnan(out)) if np.isnan(bad) else np.all(out == bad)

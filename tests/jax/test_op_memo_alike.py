"""relax_jax.op_memo and the attention masks made once per trace, on calls that look alike and are
not: the same operator on the same values with other attributes, constants of the same value in
another dtype or sign of zero, the same call inside traced branches, a run-time error of the first of
two equal calls, and one executable traced at several shapes (no value of one trace reaches another).
Expected values are numpy formulas or the reference evaluator's."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxError

HEADER = "from tvm.script import ir as I, relax as R, tir as T\n\n@I.ir_module\nclass Module:\n"

_ATTRS = HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", "n"), "float32")):
        a = R.tril(x, k=0)
        b = R.tril(x, k=1)
        c = R.astype(x, "float16")
        d = R.astype(x, "int32")
        e = R.expand_dims(x, axis=[0])
        f = R.expand_dims(x, axis=[1])
        g = R.divide(R.const(1.0, "float32"), R.const(0.0, "float32"))
        h = R.divide(R.const(1.0, "float32"), R.const(-0.0, "float32"))
        i = R.add(R.const(1, "int32"), R.const(2, "int32"))
        j = R.add(R.const(1, "int64"), R.const(2, "int64"))
        return (a, b, c, d, e, f, g, h, i, j)
'''


def test_calls_that_differ_in_attributes_or_constants_are_not_shared():
    x = (np.arange(16, dtype=np.float32).reshape(4, 4) - 7.5) * 1.25
    exe = relax_jax.compile(_ATTRS, shape_buckets=None)
    got = exe("main", x)
    assert exe.stats.host_calls == 0                 # traced: the memo is a trace's
    want = (np.tril(x, 0), np.tril(x, 1), x.astype(np.float16), x.astype(np.int32),
            x[None], x[:, None], np.float32(np.inf), np.float32(-np.inf), np.int32(3), np.int64(3))
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == np.shape(w)
        np.testing.assert_array_equal(g, w)
    assert np.signbit(np.asarray(got[7]))            # 1 / -0.0, not the result of 1 / 0.0


_BRANCHES = HEADER + '''
    @R.function
    def main(x: R.Tensor((4,), "float32"), p: R.Tensor((), "bool")):
        if p:
            b = R.exp(x)
            c = R.add(b, R.const(1.0, "float32"))
            r = c
        else:
            d = R.exp(x)
            e = R.subtract(d, R.const(1.0, "float32"))
            r = e
        f = R.exp(x)
        g = R.multiply(r, f)
        a = R.exp(x)
        return (a, g)
'''


@pytest.mark.parametrize("p", [True, False])
def test_the_same_call_inside_traced_branches(p):
    x = np.array([0.0, 0.5, -1.0, 2.0], np.float32)
    exe = relax_jax.compile(_BRANCHES, shape_buckets=None)
    mod = relax_ref.parse(_BRANCHES)
    got = exe("main", x, np.array(p))
    want = relax_ref.evaluate(mod, "main", x, np.array(p))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)
    # the other branch on the same executable
    assert exe.stats.host_calls == 0
    got = exe("main", x, np.array(not p))
    want = relax_ref.evaluate(mod, "main", x, np.array(not p))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


_RESHAPES = HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        a = R.reshape(x, R.shape([2, n // 2]))
        b = R.reshape(x, R.shape([2, n // 2]))
        return (a, b)
'''


def test_an_error_of_two_equal_calls_is_the_first_ones():
    exe = relax_jax.compile(_RESHAPES)
    mod = relax_ref.parse(_RESHAPES)
    x = np.arange(6, dtype=np.float32)
    a, b = exe("main", x)
    np.testing.assert_array_equal(np.asarray(a), x.reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(b), x.reshape(2, 3))
    bad = np.arange(5, dtype=np.float32)
    with pytest.raises(RelaxError) as ref_err:
        relax_ref.evaluate(mod, "main", bad)
    with pytest.raises(RelaxError) as got_err:
        exe("main", bad)
    assert type(got_err.value) is type(ref_err.value)
    # at the first binding on both (the message's detail may name the shape only on the reference)
    assert "binding 'a'" in str(ref_err.value) and "binding 'a'" in str(got_err.value)


_TABLES = HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        p1 = R.arange(R.prim_value(0), R.prim_value(n), R.prim_value(1), dtype="float32")
        p2 = R.arange(R.prim_value(0), R.prim_value(4), R.prim_value(1), dtype="float32")
        p3 = R.arange(R.prim_value(0), R.prim_value(n), R.prim_value(1), dtype="float32")
        a = R.multiply(x, R.expand_dims(R.cos(p1), axis=[1]))
        b = R.multiply(x, R.expand_dims(R.cos(p3), axis=[1]))
        return (a, b, p2)
'''


@pytest.mark.parametrize("buckets", [None, "pow2"])
def test_one_executable_traced_at_several_lengths(buckets):
    """A traced size and a constant of the same value are different keys; each trace has its own
    memo (no array of one trace reaches the next: a stale tracer would raise)."""
    exe = relax_jax.compile(_TABLES, shape_buckets=buckets)
    for n in (4, 3, 5, 9, 4, 2):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4) / 7
        a, b, p2 = exe("main", x)
        t = np.cos(np.arange(n, dtype=np.float32))[:, None]
        np.testing.assert_allclose(np.asarray(a), x * t, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(b), x * t, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(p2), np.arange(4, dtype=np.float32))


_ATTN2 = HEADER + '''
    @R.function
    def main(q: R.Tensor((1, "n", 2, 4), "float32"), k: R.Tensor((1, "m", 2, 4), "float32"),
             v: R.Tensor((1, "m", 2, 4), "float32"), k2: R.Tensor((1, "n", 2, 4), "float32")):
        a = R.nn.attention(q, k, v, causal_mask="BottomRight")
        b = R.nn.attention(q, k, v, causal_mask="TopLeft")
        c = R.nn.attention(q, k2, k2, causal_mask="BottomRight")
        d = R.nn.attention(R.astype(q, "float16"), R.astype(k, "float16"), R.astype(v, "float16"),
                           causal_mask="BottomRight")
        e = R.nn.attention(q, k, v, causal_mask="BottomRight")
        return (a, b, c, d, e)
'''


@pytest.mark.parametrize("buckets", [None, "pow2"])
@pytest.mark.parametrize("n,m", [(3, 5), (5, 5), (5, 7), (2, 9)])
def test_attention_masks_of_other_lengths_kinds_and_dtypes_are_not_shared(buckets, n, m):
    rng = np.random.default_rng(n * 10 + m)
    q, k2 = (rng.standard_normal((1, n, 2, 4)).astype(np.float32) for _ in range(2))
    k, v = (rng.standard_normal((1, m, 2, 4)).astype(np.float32) for _ in range(2))
    exe = relax_jax.compile(_ATTN2, shape_buckets=buckets)
    got = exe("main", q, k, v, k2)
    want = relax_ref.evaluate(relax_ref.parse(_ATTN2), "main", q, k, v, k2)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.dtype == w.dtype
        tol = 2e-3 if w.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32), rtol=tol, atol=tol, err_msg=str(i))


def test_no_memo_outlives_its_trace():
    import gc

    import relax_jax.op_memo as M
    exe = relax_jax.compile(_TABLES)
    for n in (2, 3, 5, 9, 17):
        exe("main", np.ones((n, 4), np.float32))
    gc.collect()
    assert exe.stats.compiles >= 3
    assert not [o for o in gc.get_objects() if isinstance(o, M.OpMemo)]   # nor the arrays it keeps

"""relax_jax.op_memo: a repeated call of a pure operator on the same values is lowered once, with the
values of lowering it twice (EVAL.CALL.1)."""

import jax
import numpy as np

import relax_jax
import relax_jax.executable as EX
import relax_jax.walker as W

# two "layers" that each build the same table from the same size (as a model's rotary tables), then
# use it on their own input; expected values from numpy below
_SRC = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        p1 = R.arange(R.prim_value(0), R.prim_value(n), R.prim_value(1), dtype="float32")
        q1 = R.multiply(p1, R.const(0.5, "float32"))
        e1 = R.expand_dims(R.cos(q1), axis=[1])
        a = R.multiply(x, e1)
        p2 = R.arange(R.prim_value(0), R.prim_value(n), R.prim_value(1), dtype="float32")
        q2 = R.multiply(p2, R.const(0.5, "float32"))
        e2 = R.expand_dims(R.cos(q2), axis=[1])
        b = R.multiply(y, e2)
        return (a, b)
'''

# the same operator on the same value twice, one result then rebound in place: the other keeps its
# value (a memoized result is a box of its own)
_INPLACE = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bump(A: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        for i, j in T.grid(T.int64(4), T.int64(8)):
            A[i, j] = A[i, j] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        cls = Module
        u = R.negative(x)
        v = R.negative(x)
        w = R.call_tir_inplace(cls.bump, (u,), inplace_indices=[0], out_sinfo=R.Tensor((4, 8), "float32"))
        return (v, w)
'''


def _expected(x, y):
    n = x.shape[0]
    t = np.cos(np.arange(n, dtype=np.float32) * np.float32(0.5))[:, None]
    return x * t, y * t


def _equations(monkeypatch, memo: bool, x, y) -> int:
    if not memo:
        monkeypatch.setattr(W, "MEMO_OPS", frozenset())
    seen = {}
    orig = EX.guarded_compile

    def spy(jitted, specs, *a, **k):
        seen["n"] = len(jitted.trace(*specs).jaxpr.jaxpr.eqns)
        return orig(jitted, specs, *a, **k)
    monkeypatch.setattr(EX, "guarded_compile", spy)
    exe = relax_jax.compile(_SRC)
    a, b = exe("main", x, y)
    ea, eb = _expected(x, y)
    np.testing.assert_allclose(np.asarray(a), ea, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(b), eb, rtol=1e-6, atol=1e-6)
    monkeypatch.undo()
    return seen["n"], np.asarray(a), np.asarray(b)


def test_repeated_table_is_lowered_once(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.standard_normal((5, 4)).astype(np.float32)
    n_memo, a1, b1 = _equations(monkeypatch, True, x, y)
    n_plain, a2, b2 = _equations(monkeypatch, False, x, y)
    assert n_memo < n_plain                      # the second table's equations are gone
    assert np.array_equal(a1, a2) and np.array_equal(b1, b2)   # bit for bit the values of lowering it twice


def test_memoized_result_is_a_box_of_its_own():
    exe = relax_jax.compile(_INPLACE)
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    v, w = exe("main", x)
    np.testing.assert_array_equal(np.asarray(v), -x)
    np.testing.assert_array_equal(np.asarray(w), -x + 1)
    assert exe.stats.host_calls == 0             # traced (the memo is a trace's)


# two attention layers over the same lengths: their causal and padding masks are built once per trace
_ATTN = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, "n", 2, 4), "float32"), k: R.Tensor((1, "n", 2, 4), "float32"),
             v: R.Tensor((1, "n", 2, 4), "float32")):
        a = R.nn.attention(q, k, v, causal_mask="BottomRight")
        b = R.nn.attention(a, k, v, causal_mask="BottomRight")
        return b
'''


def _attention_run(monkeypatch, share: bool, args):
    import relax_jax.ops.nn_attention as NA
    if not share:
        monkeypatch.setattr(NA, "_sharing", lambda walker: (lambda key, keep, make: make()))
    seen = {}
    orig = EX.guarded_compile

    def spy(jitted, specs, *a, **k):
        seen["n"] = len(jitted.trace(*specs).jaxpr.jaxpr.eqns)
        return orig(jitted, specs, *a, **k)
    monkeypatch.setattr(EX, "guarded_compile", spy)
    out = np.asarray(relax_jax.compile(_ATTN)("main", *args))    # 5 rows in a bucket of 8: padded keys
    monkeypatch.undo()
    return seen["n"], out


def test_attention_masks_built_once(monkeypatch):
    import relax_ref
    rng = np.random.default_rng(1)
    args = [rng.standard_normal((1, 5, 2, 4)).astype(np.float32) for _ in range(3)]
    n_shared, shared = _attention_run(monkeypatch, True, args)
    n_plain, plain = _attention_run(monkeypatch, False, args)
    assert n_shared < n_plain
    assert np.array_equal(shared, plain)
    want = np.asarray(relax_ref.evaluate(relax_ref.parse(_ATTN), "main", *args))
    np.testing.assert_allclose(shared, want, rtol=1e-5, atol=1e-6)

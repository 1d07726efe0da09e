"""The vectorized TensorIR path agrees with the scalar path [TIR.VEC.1-TIR.VEC.5].

A property test generates random block nests (elementwise maps, broadcasts, transposes, reductions
with and without ``T.init``, predicates, ``if_then_else`` guards, ``Select``, casts, integer division)
and requires both paths to give the same result -- exactly for integers and elementwise floats, within
1e-5 for floating-point reductions (TIR.VEC.4) -- and the vectorized path to have been taken.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from relax_ref.interp import run_prim_func
from relax_ref.interp import tir_vectorize as tv
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

import interp_tir_builders as tb


class counting:
    """Context manager counting nests executed by the vectorized path (``.runs``)."""

    def __enter__(self):
        self.runs = 0
        self._orig = tv.NestPlan._run_ranges
        orig = self._orig

        def wrapped(plan, env, ranges, arrays):
            ok = orig(plan, env, ranges, arrays)
            self.runs += int(ok)
            return ok
        tv.NestPlan._run_ranges = wrapped
        return self

    def __exit__(self, *exc):
        tv.NestPlan._run_ranges = self._orig
        return False


@pytest.fixture
def count_vectorized():
    with counting() as c:
        yield c


def both(func, args):
    outs = []
    for vec in (False, True):
        a = [x.copy() for x in args]
        run_prim_func(func, a, vectorize=vec)
        outs.append(a)
    return outs


# ---------------------------------------------------------------------------------------------------
# Random nests
# ---------------------------------------------------------------------------------------------------

_DTYPES = ["int32", "int64", "float32", "float64"]


def _const(dtype, v):
    return P.FloatImm(float(v), dtype) if dtype.startswith("float") else P.IntImm(int(v), dtype)


@st.composite
def nests(draw):
    dtype = draw(st.sampled_from(_DTYPES))
    is_float = dtype.startswith("float")
    n_sp = draw(st.integers(1, 3))
    n_red = draw(st.integers(0, 2))
    exts = [draw(st.integers(1, 5)) for _ in range(n_sp + n_red)]
    kinds = ["S"] * n_sp + ["R"] * n_red
    order = draw(st.permutations(list(range(n_sp + n_red))))      # loop order over the axes
    loop_vars = [P.PrimVar(f"l{k}", "int64") for k in range(len(exts))]
    iv = [tir.IterVar(P.PrimVar(f"v{a}", "int64"), tir.Range(tb.i64(0), tb.i64(exts[a])),
                      "spatial" if kinds[a] == "S" else "reduce") for a in range(len(exts))]
    ivar = [x.var for x in iv]
    # inputs: each indexed by a random selection/permutation of the axes
    inputs = []
    for j in range(draw(st.integers(1, 2))):
        axes = draw(st.lists(st.integers(0, len(exts) - 1), min_size=1, max_size=3, unique=True))
        inputs.append((tb.buf(f"I{j}", [exts[a] for a in axes], dtype), axes))

    def leaf(d):
        choice = d(st.integers(0, 4))
        if choice <= 1:
            b, axes = inputs[d(st.integers(0, len(inputs) - 1))]
            return tir.BufferLoad(b, tuple(ivar[a] for a in axes))
        if choice == 2:   # a guarded, shifted load
            b, axes = inputs[d(st.integers(0, len(inputs) - 1))]
            k = d(st.integers(0, len(axes) - 1))
            idx = [ivar[a] for a in axes]
            idx[k] = idx[k] + tb.i64(1)
            guard = P.lt(ivar[axes[k]] + tb.i64(1), tb.i64(exts[axes[k]]))
            return P.PrimCall(dtype, "tir.if_then_else", (guard, tir.BufferLoad(b, tuple(idx)), _const(dtype, 7)))
        if choice == 3:
            return P.cast(dtype, ivar[d(st.integers(0, len(ivar) - 1))])
        return _const(dtype, d(st.integers(-3, 3)))

    def expr(d, depth):
        if depth == 0 or d(st.booleans()):
            return leaf(d)
        op = d(st.sampled_from(["add", "sub", "mul", "min", "max", "select", "cast", "div"]))
        a, b = expr(d, depth - 1), expr(d, depth - 1)
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        if op == "min":
            return P.min_(a, b)
        if op == "max":
            return P.max_(a, b)
        if op == "select":
            return P.select(P.gt(a, b), a, b - _const(dtype, 1))
        if op == "cast":
            other = "float32" if not is_float else "int32"
            return P.cast(dtype, P.cast(other, a))
        if is_float:
            return a / _const(dtype, d(st.sampled_from([2, 4, -8])))
        return P.floordiv(a, _const(dtype, d(st.sampled_from([2, 3, -5]))))

    d = draw
    value = expr(d, 3)
    out_axes = list(range(n_sp))
    if d(st.booleans()):
        out_axes = d(st.permutations(out_axes))     # a transposed output
    C = tb.buf("C", [exts[a] for a in out_axes], dtype)
    cidx = tuple(ivar[a] for a in out_axes)
    acc = tir.BufferLoad(C, cidx)
    red = d(st.sampled_from(["add", "max", "min", "mul"] if n_red else ["none", "add"]))
    if red == "none":
        body, init = tir.BufferStore(C, value, cidx), None
    else:
        if red == "mul":
            value = P.select(P.gt(value, _const(dtype, 1)), _const(dtype, 2), _const(dtype, 1))
        comb = {"add": lambda x, y: x + y, "max": P.max_, "min": P.min_, "mul": lambda x, y: x * y}[red]
        body = tir.BufferStore(C, comb(acc, value) if d(st.booleans()) else comb(value, acc), cidx)
        init = tir.BufferStore(C, _const(dtype, d(st.integers(-2, 2))), cidx) \
            if n_red and d(st.integers(0, 4)) else None
    pred = None
    if d(st.integers(0, 3)) == 0:
        a = d(st.integers(0, len(exts) - 1))
        pred = P.lt(loop_vars[order.index(a)] * 2, tb.i64(exts[a]))
    bindings = [loop_vars[order.index(a)] for a in range(len(exts))]
    blk = tir.Block("b", tuple(iv), (), (), body, init)
    stmt = tir.BlockRealize(tuple(bindings), pred, blk)
    for pos in reversed(range(len(exts))):
        a = order[pos]
        stmt = tir.For(loop_vars[pos], tb.i64(0), tb.i64(exts[a]), "serial", stmt)
    func = tb.prim_func([b for b, _ in inputs] + [C], stmt)
    seed = d(st.integers(0, 2 ** 16))
    points = int(np.prod(exts))
    return func, [b for b, _ in inputs] + [C], dtype, red != "none" and is_float, seed, points


def _data(bufs, dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for b in bufs:
        shape = tuple(s.value for s in b.shape)
        if dtype.startswith("float"):
            out.append((rng.standard_normal(shape) * 3).astype(dtype))
        else:
            out.append(rng.integers(-6, 7, shape).astype(dtype))
    return out


@given(nests())
def test_random_nests_agree(case):
    """[TIR.VEC.1] [TIR.VEC.4] scalar and vectorized paths agree, and the vectorized one ran."""
    func, bufs, dtype, float_reduction, seed, points = case
    args = _data(bufs, dtype, seed)
    with counting() as c:
        scalar, vector = both(func, args)
    assert c.runs == (1 if points >= tv.MIN_POINTS else 0)
    for x, y in zip(scalar, vector):
        if float_reduction:
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(y, x)


# ---------------------------------------------------------------------------------------------------
# Specific situations
# ---------------------------------------------------------------------------------------------------


def test_matmul_both_strategies_agree(count_vectorized, monkeypatch):
    """[TIR.VEC.3] [TIR.VEC.4] scan (exact order) and full (reassociating) strategies."""
    f = tb.matmul_func(16, 12, 40)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((16, 40)).astype(np.float32), rng.standard_normal((40, 12)).astype(np.float32)
    c_scalar = np.zeros((16, 12), np.float32)
    run_prim_func(f, [a, b, c_scalar], vectorize=False)
    for full_max in (0, 10 ** 6):
        monkeypatch.setattr(tv, "FULL_MAX_M", full_max)
        c = np.zeros((16, 12), np.float32)
        run_prim_func(f, [a, b, c])
        if full_max == 0:
            np.testing.assert_array_equal(c, c_scalar)      # the scan keeps the scalar order
        else:
            np.testing.assert_allclose(c, c_scalar, rtol=1e-5, atol=1e-5)
    assert count_vectorized.runs == 2


def test_chunked_execution(count_vectorized, monkeypatch):
    """[TIR.VEC.3] nests larger than the point limit run in chunks of the outer loop."""
    monkeypatch.setattr(tv, "LIMIT", 16)
    f = tb.matmul_func(9, 7, 5, dtype="int64")
    a = np.arange(45, dtype=np.int64).reshape(9, 5)
    b = np.arange(35, dtype=np.int64).reshape(5, 7) - 10
    scalar, vector = both(f, [a, b, np.zeros((9, 7), np.int64)])
    np.testing.assert_array_equal(vector[2], a @ b)
    assert count_vectorized.runs >= 9 // 2


def test_aliased_arguments_fall_back(count_vectorized, parse_ir):
    """[TIR.VEC.3] when an output array is also passed as an input, the scalar path runs."""
    from relax_ref.script.parser import parse_module

    f = parse_module('''
@I.ir_module
class Module:
    @T.prim_func
    def shift(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
        for i in range(7):
            B[i + 1] = A[i] + 1
''')["shift"]
    x = np.zeros(8, dtype=np.int32)
    run_prim_func(f, [x, x])
    np.testing.assert_array_equal(x, np.arange(8))  # each store feeds the next load
    assert count_vectorized.runs == 0


def test_non_injective_store_falls_back(count_vectorized):
    """[TIR.VEC.3] ``B[i % 2] = B[i % 2] * 3 + A[i]`` depends on the order of i: scalar path."""
    A, B = tb.buf("A", (6,), "int64"), tb.buf("B", (2,), "int64")

    def body(i):
        idx = (P.floormod(i, tb.i64(2)),)
        return tir.BufferStore(B, tir.BufferLoad(B, idx) * tb.i64(3) + tir.BufferLoad(A, (i,)), idx)
    f = tb.prim_func([A, B], tb.grid([6], body))
    scalar, vector = both(f, [np.arange(6, dtype=np.int64), np.ones(2, np.int64)])
    np.testing.assert_array_equal(vector[1], scalar[1])
    np.testing.assert_array_equal(scalar[1], [((1 * 3 + 0) * 3 + 2) * 3 + 4, ((1 * 3 + 1) * 3 + 3) * 3 + 5])
    assert count_vectorized.runs == 0


def test_tuple_reduction_argmax_is_vectorized(count_vectorized, parse_ir):
    """[TIR.VEC.2] TVM's argmax (two accumulators updated through lets) runs vectorized, exactly."""
    from relax_ref.script.parser import parse_module

    f = parse_module('''
@I.ir_module
class Module:
    @T.prim_func
    def argmax(x: T.Buffer((T.int64(6), T.int64(9)), "float32"), out: T.Buffer((T.int64(6),), "int64")):
        v0 = T.alloc_buffer((T.int64(6),), "int64")
        v1 = T.alloc_buffer((T.int64(6),))
        for a, k in T.grid(T.int64(6), T.int64(9)):
            with T.block("red"):
                va, vk = T.axis.remap("SR", [a, k])
                with T.init():
                    v0[va] = T.int64(-1)
                    v1[va] = T.float32(-3.4e38)
                t0: T.let[T.int64] = T.Select(v1[va] > x[va, vk] or v1[va] == x[va, vk] and v0[va] < vk, v0[va], vk)
                t1: T.let[T.float32] = T.Select(v1[va] > x[va, vk], v1[va], x[va, vk])
                v0[va] = t0
                v1[va] = t1
        for a in range(T.int64(6)):
            with T.block("o"):
                va = T.axis.spatial(T.int64(6), a)
                out[va] = v0[va]
''')["argmax"]
    x = np.random.default_rng(3).integers(0, 4, (6, 9)).astype(np.float32)
    scalar, vector = both(f, [x, np.zeros(6, np.int64)])
    np.testing.assert_array_equal(vector[1], x.argmax(axis=1))
    np.testing.assert_array_equal(scalar[1], x.argmax(axis=1))
    assert count_vectorized.runs == 2


def test_float_max_with_nan_uses_exact_order():
    """[TIR.VEC.4] the full strategy hands NaN inputs to the exact scan."""
    A, B = tb.buf("A", (3, 4)), tb.buf("B", (3,))

    def body(i, k):
        return tb.block("m", "SR", [i, k],
                        lambda vi, vk: tir.BufferStore(B, P.max_(tir.BufferLoad(B, (vi,)),
                                                                  tir.BufferLoad(A, (vi, vk))), (vi,)),
                        lambda vi, vk: tir.BufferStore(B, P.FloatImm(-1e30, "float32"), (vi,)),
                        doms=[tb.i64(3), tb.i64(4)])
    f = tb.prim_func([A, B], tb.grid([3, 4], body))
    a = np.array([[1, np.nan, 2, 0], [np.nan, 1, 1, 1], [1, 2, 3, np.nan]], np.float32)
    scalar, vector = both(f, [a, np.zeros(3, np.float32)])
    np.testing.assert_array_equal(vector[1], scalar[1])
    assert scalar[1][0] == 2 and scalar[1][1] == 1 and np.isnan(scalar[1][2])

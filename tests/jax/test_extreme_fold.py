"""Property tests of PRIM.FLOAT.2's running float ``max``/``min`` fold as relax_jax computes it
(:mod:`relax_jax.extreme_fold`, TIR.VEC.4, OP.STAT.SEM.3): rows holding NaNs, infinities and signed
zeros, both operand orders, padded points, rows shorter and longer than a window of 32, segments
combined in order. Every expected value is a plain Python loop over the row.

A zero among tied extremes may come back with either sign: the comparisons of PRIM.FLOAT.3 do not tell
``-0.0`` from ``+0.0``, and the vector extreme does not keep the sign the sequential fold would (the
values are compared with ``-0.0 == 0.0``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jnp = pytest.importorskip("jax.numpy")
relax_jax = pytest.importorskip("relax_jax")
import relax_ref  # noqa: E402
from relax_jax import extreme_fold  # noqa: E402

FMAX = -3.4028234663852886e38
SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, FMAX]


def _sel(a: float, b: float, is_max: bool) -> float:
    return a if (a > b if is_max else a < b) else b


def py_fold(row, ok, is_max: bool, acc_first: bool, init: float) -> float:
    """``acc = Max(acc, v)`` (accumulator first) or ``acc = Max(v, acc)`` in order, skipping the
    points where ``ok`` is False."""
    acc = init
    for v, o in zip(row, ok):
        if o:
            acc = _sel(acc, float(v), is_max) if acc_first else _sel(float(v), acc, is_max)
    return acc


def _same(got, want) -> bool:
    return bool(np.isnan(got) and np.isnan(want)) or got == want


elements = st.one_of(st.sampled_from(SPECIAL), st.floats(-4, 4, width=32))


@st.composite
def rows(draw, max_len: int = 130):
    n = draw(st.sampled_from([1, 2, 5, 31, 32, 33, 40, 63, 64, 65, 96, 100, max_len]))
    r = draw(st.integers(1, 4))
    nan_rate = draw(st.sampled_from([0.0, 0.02, 0.2, 0.9]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.choice(np.asarray(SPECIAL[1:], "float32"), (r, n))
    x = np.where(rng.random((r, n)) < 0.5, x, rng.standard_normal((r, n)).astype("float32"))
    x[rng.random((r, n)) < nan_rate] = np.nan
    # a NaN pinned at the end, just before and just after a window boundary
    for pos in draw(st.lists(st.sampled_from([0, n - 1, 31, 32, 63, 64]), max_size=3)):
        if pos < n:
            x[rng.integers(0, r), pos] = np.nan
    kind = draw(st.sampled_from(["none", "prefix", "random", "row"]))
    if kind == "none":
        valid = None
    elif kind == "prefix":       # a padded extent: the valid points are a prefix of every row
        valid = (np.arange(n) < draw(st.integers(1, n)))[None, :]
    elif kind == "random":
        valid = rng.random((r, n)) < 0.7
    else:                        # one flag per row, broadcast along it
        valid = rng.random((r, 1)) < 0.7
    return x.astype("float32"), valid


@settings(deadline=None)
@given(rows(), st.booleans(), st.booleans(), st.sampled_from([FMAX, float("nan"), 0.0, -0.0, 1.0, float("inf"),
                                                            float("-inf")]))
def test_summary_applied_to_an_accumulator_is_the_loop_fold(data, is_max, acc_first, init):
    x, valid = data
    ok = np.ones(x.shape, bool) if valid is None else np.broadcast_to(valid, x.shape)
    s = extreme_fold.summarize(jnp.asarray(x), None if valid is None else jnp.asarray(valid), is_max, acc_first)
    got = np.asarray(extreme_fold.apply(s, jnp.full(x.shape[:-1], init, "float32"), is_max, acc_first))
    for i in range(x.shape[0]):
        if ok[i].any():          # a segment applied to an accumulator holds a valid element
            want = np.float32(py_fold(x[i], ok[i], is_max, acc_first, np.float32(init)))
            assert _same(got[i], want), (x[i].tolist(), ok[i].tolist(), is_max, acc_first, init, got[i], want)


@settings(deadline=None)
@given(rows(), st.booleans(), st.booleans(), st.data())
def test_segments_combined_in_order_are_the_fold_of_the_row(data, is_max, acc_first, draw):
    """A row cut in two (the TensorIR path's unrolled parts): the first segment's summary ``then`` the
    second's, applied to the init, is the fold of the whole row."""
    x, _ = data
    n = x.shape[-1]
    if n < 2:
        return
    cut = draw.draw(st.integers(1, n - 1))
    a = extreme_fold.summarize(jnp.asarray(x[:, :cut]), None, is_max, acc_first)
    b = extreme_fold.summarize(jnp.asarray(x[:, cut:]), None, is_max, acc_first)
    s = extreme_fold.then(a, b, is_max, acc_first)
    got = np.asarray(extreme_fold.apply(s, jnp.full(x.shape[:-1], FMAX, "float32"), is_max, acc_first))
    for i in range(x.shape[0]):
        want = np.float32(py_fold(x[i], [True] * n, is_max, acc_first, np.float32(FMAX)))
        assert _same(got[i], want), (x[i].tolist(), cut, got[i], want)


def _tir_program(op: str, acc_first: bool) -> str:
    val = f"T.{op}(B[vi], A[vi, vj])" if acc_first else f"T.{op}(A[vi, vj], B[vi])"
    return f'''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row_fold(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i, j in T.grid(n, m):
            with T.block("fold"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(-3.4028234663852886e38)
                B[vi] = {val}

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.row_fold, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


_EXES: dict = {}


def _exe(key, text: str):
    if key not in _EXES:
        _EXES[key] = relax_jax.compile(relax_ref.parse(text))
    return _EXES[key]


@settings(deadline=None, max_examples=25)
@given(rows(), st.sampled_from(["max", "min"]), st.booleans())
def test_tensorir_block_reduction_padded_to_its_bucket(data, op, acc_first):
    """``T.max(B[vi], A[vi, vj])`` (or ``T.max(A[vi, vj], B[vi])``, ``T.min``) over a symbolic row
    length, run at its power-of-two bucket: the padded points are absent from the fold."""
    x, _ = data
    got = np.asarray(_exe(("tir", op, acc_first), _tir_program(op, acc_first))("main", x))
    for i in range(x.shape[0]):
        want = np.float32(py_fold(x[i], [True] * x.shape[1], op == "max", acc_first, np.float32(FMAX)))
        assert _same(got[i], want), (x[i].tolist(), got[i], want)


GRAPH = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.{op}(x, axis=[1])
        return y
'''


@settings(deadline=None, max_examples=25)
@given(rows(), st.sampled_from(["max", "min"]))
def test_graph_path_max_and_min_padded_to_their_bucket(data, op):
    """``R.max`` / ``R.min`` (OP.STAT.SEM.3: the accumulator-first fold from the dtype's lowest /
    highest finite value) over a symbolic row length at its bucket."""
    x, _ = data
    got = np.asarray(_exe(("graph", op), GRAPH.replace("{op}", op))("main", x))
    init = np.float32(FMAX if op == "max" else -FMAX)
    for i in range(x.shape[0]):
        want = np.float32(py_fold(x[i], [True] * x.shape[1], op == "max", True, init))
        assert _same(got[i], want), (x[i].tolist(), got[i], want)

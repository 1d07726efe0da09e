"""Finding of the twelfth fuzzing run (docs/FUZZING.md, seed 20261217): relax_jax's TensorIR block
reduction ``T.max(acc, v)`` over a row holding a NaN. The fold follows PRIM.FLOAT.2 in the order of the
reduction loops (TIR.VEC.4); every expected value here is a plain Python fold."""

from __future__ import annotations

import math

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

from limits.reproducers import on_both  # noqa: E402

NAN = float("nan")
FMAX = -3.4028234663852886e38


def _sel(a: float, b: float, op: str) -> float:
    """PRIM.FLOAT.2: ``Max(a, b) = a > b ? a : b``, ``Min(a, b) = a < b ? a : b``."""
    return a if (a > b if op == "max" else a < b) else b


def fold(op: str, acc_first: bool, init: float, seq) -> float:
    acc = init
    for v in seq:
        acc = _sel(acc, float(v), op) if acc_first else _sel(float(v), acc, op)
    return acc


def _program(op: str, acc_first: bool, init: str, m: str = "T.int64(3)", rows: str = "n") -> str:
    val = f"T.{op}(B[vi], A[vi, vj])" if acc_first else f"T.{op}(A[vi, vj], B[vi])"
    return f'''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row_fold(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, ({rows}, {m}), "float32")
        B = T.match_buffer(b, ({rows},), "float32")
        for i, j in T.grid({rows}, {m}):
            with T.block("fold"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = {init}
                B[vi] = {val}

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.row_fold, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


def _check(text: str, x: np.ndarray, expected) -> None:
    got = on_both(text, x)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, np.asarray(expected, "float32"))


ROWS = [[NAN, 0.5, 0.5], [0.5, NAN, 0.25], [0.5, 0.25, NAN], [NAN, NAN, NAN], [-0.25, 0.25, 0.5],
        [NAN, -np.inf, 0.25], [NAN, -np.inf, -np.inf], [2.0, NAN, -1.0]]


def test_the_finding():
    """The minimized reproducer: the row ``[nan, 0.5, 0.5]`` gives 0.5 (relax_jax gave -FLT_MAX)."""
    x = np.array([[-0.25, 0.25, 0.5], [NAN, 0.5, 0.5]], "float32")
    _check(_program("max", True, "T.float32(-3.4028234663852886e38)"), x, [0.5, 0.5])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("acc_first", [True, False])
@pytest.mark.parametrize("init", [FMAX, 0.0, NAN])
def test_nan_first_middle_last_and_all(op, acc_first, init):
    x = np.array(ROWS, "float32")
    spelled = "T.float32(" + ("-3.4028234663852886e38" if init == FMAX else repr(init) if not math.isnan(init)
                              else '"nan"') + ")"
    _check(_program(op, acc_first, spelled), x, [fold(op, acc_first, init, r) for r in x])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("acc_first", [True, False])
@pytest.mark.parametrize("m", [3, 5])
def test_symbolic_padded_reduction_extent(op, acc_first, m):
    """A symbolic reduction extent of 3 or 5 runs padded to its bucket: the padded points are absent
    from the fold (an identity after a NaN would change the result)."""
    x = np.array([[NAN, 0.5, 0.25, NAN, 1.0][:m], [0.5, 0.25, NAN, 0.5, NAN][:m],
                  [0.5, 0.25, 0.75, -1.0, 2.0][:m]], "float32")
    _check(_program(op, acc_first, "T.float32(-3.4028234663852886e38)", m="m"), x,
           [fold(op, acc_first, FMAX, r) for r in x])


def _pool(op: str, order: str) -> str:
    """``B[i] = op(B[i], A[i + k, j])`` over the reduction loops in ``order`` (``k`` is unrolled: it
    appears in an index next to the spatial ``i``)."""
    loops = {"kj": "for i, k, j in T.grid(T.int64(2), T.int64(2), T.int64(3)):",
             "jk": "for i, j, k in T.grid(T.int64(2), T.int64(3), T.int64(2)):"}[order]
    return f'''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def pool(A: T.Buffer((T.int64(3), T.int64(3)), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        {loops}
            with T.block("p"):
                vi = T.axis.spatial(T.int64(2), i)
                vk = T.axis.reduce(T.int64(2), k)
                vj = T.axis.reduce(T.int64(3), j)
                with T.init():
                    B[vi] = T.float32(-3.4028234663852886e38)
                B[vi] = T.{op}(B[vi], A[vi + vk, vj])

    @R.function
    def main(x: R.Tensor((3, 3), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        y = R.call_tir(cls.pool, (x,), out_sinfo=R.Tensor((2,), "float32"))
        return y
'''


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("order", ["kj", "jk"])
@pytest.mark.parametrize("x", [
    [[NAN, 0.5, 0.25], [0.75, -1.0, 0.5], [NAN, 2.0, 0.0]],
    [[0.5, 0.25, NAN], [0.75, NAN, 0.5], [1.0, 2.0, NAN]],
    [[0.5, 0.25, 0.125], [0.75, -1.0, 0.5], [1.0, 2.0, 0.0]],
])
def test_an_unrolled_reduction_axis(op, order, x):
    """The unrolled axis ``k`` outside (``kj``: the parts are consecutive runs of the fold) and inside
    (``jk``: interleaved) the other reduction axis."""
    a = np.array(x, "float32")
    expected = []
    for i in range(2):
        pts = [(k, j) for k in range(2) for j in range(3)] if order == "kj" else \
            [(k, j) for j in range(3) for k in range(2)]
        expected.append(fold(op, True, FMAX, [a[i + k, j] for k, j in pts]))
    _check(_pool(op, order), a, expected)


def test_the_graph_path_fold_is_unchanged():
    """R.max's fold (OP.STAT.SEM.3) now shares the TensorIR path's definition."""
    text = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4,), "float32"):
        y = R.max(x, axis=[1])
        return y
'''
    x = np.array([[NAN, 0.5, 0.5], [0.5, NAN, 0.25], [0.5, 0.25, NAN], [-0.25, 0.25, 0.5]], "float32")
    _check(text, x, [fold("max", True, -np.inf, r) for r in x])


def _pool1d(op: str, init: str) -> str:
    """Every reduction axis unrolled (``k`` next to ``i``) with a constant init, as pooling."""
    return f'''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def pool(A: T.Buffer((T.int64(6),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i, k in T.grid(T.int64(4), T.int64(3)):
            with T.block("p"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = {init}
                B[vi] = T.{op}(B[vi], A[vi + vk])

    @R.function
    def main(x: R.Tensor((6,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.pool, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
'''


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("init, spelled", [(FMAX, "T.float32(-3.4028234663852886e38)"), (0.0, "T.float32(0)"),
                                           (NAN, 'T.float32("nan")')])
def test_every_reduction_axis_unrolled(op, init, spelled):
    """Windows ``[nan, .5, .25]``, ``[.5, .25, nan]``, ``[.25, nan, -1]``, ``[nan, -1, nan]``."""
    a = np.array([NAN, 0.5, 0.25, NAN, -1.0, NAN], "float32")
    _check(_pool1d(op, spelled), a, [fold(op, True, init, a[i:i + 3]) for i in range(4)])

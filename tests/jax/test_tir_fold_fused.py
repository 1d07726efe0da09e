"""The exact float max/min fold of a TensorIR block reduction (PRIM.FLOAT.2, TIR.VEC.4) over computed
operands: no conditional, the operand reduced in windows fused with the operations producing it (never
written out whole), the window holding a row's last NaN gathered and folded exactly. Expected values
are plain Python folds."""

from __future__ import annotations

import re

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")
import relax_ref  # noqa: E402

NAN = float("nan")
FMAX = -3.4028234663852886e38


def _program(value: str, params: str, args: str) -> str:
    return f'''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row_max({params}, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        I = T.match_buffer(ix, (n,), "int64")
        C = T.match_buffer(c, (m,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i, j in T.grid(n, m):
            with T.block("fold"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(-3.4028234663852886e38)
                B[vi] = T.max(B[vi], {value})

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), ix: R.Tensor(("n",), "int64"),
             c: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.row_max, ({args}), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


GATHER = _program("A[vi, vj] * T.float32(0.5) + C[I[vi]]", "a: T.handle, ix: T.handle, c: T.handle", "x, ix, c")


def _fold(row) -> float:
    acc = FMAX
    for v in row:
        acc = acc if acc > float(v) else float(v)
    return acc


def _both(text: str, *args) -> list:
    from relax_ref.errors import RelaxError

    mod = relax_ref.parse(text)
    out = []
    for run in (lambda: relax_ref.Interpreter(mod)("main", *args), lambda: relax_jax.compile(mod)("main", *args)):
        try:
            out.append(("value", np.asarray(run())))
        except RelaxError as err:
            out.append((err.kind, None))
    return out


def _inputs():
    x = np.array([[NAN, 0.5, 0.25, 1.0], [0.5, 0.25, NAN, -1.0], [2.0, -1.0, 0.5, NAN], [0.5, 1.5, -2.0, 0.0]],
                 "float32")
    ix = np.array([3, 0, 2, 1], "int64")
    c = np.array([0.25, -0.5, 1.0, 0.0], "float32")
    return x, ix, c


def test_a_gathered_computed_operand_with_nan_rows():
    """``A[vi, vj] * 0.5 + C[I[vi]]`` (a gather with a bounds check site) over rows holding NaNs."""
    x, ix, c = _inputs()
    want = [_fold(r) for r in (x * np.float32(0.5) + c[ix][:, None]).astype("float32")]
    got = _both(GATHER, x, ix, c)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, np.asarray(want, "float32"))


def test_an_out_of_bounds_gather_in_a_row_with_a_nan_is_reported():
    """The gather's bounds check site is recorded once (the row with the bad index holds a NaN)."""
    x, ix, c = _inputs()
    ix[2] = 4
    assert _both(GATHER, x, ix, c) == [("out_of_bounds", None), ("out_of_bounds", None)]


def _entry_hlo(exe) -> str:
    plan = exe._plans["main"]
    hlo = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    return hlo[hlo.index("ENTRY"):]


def _fused_without_conditional(hlo: str, rows: int, cols: int) -> None:
    """No conditional, and no float array of the operand's shape computed in the entry computation
    (the windowed reduction and the gather of the NaN window read the parameters)."""
    assert " conditional(" not in hlo, hlo
    computed = [ln for ln in hlo.splitlines() if re.search(rf"= f32\[{rows},{cols}\]", ln) and " parameter(" not in ln]
    assert not computed, hlo


def test_the_operand_is_fused_into_the_reduction():
    """``A[vi, vj] * 0.5 + C[I[vi]]`` over rows of 256: computed inside the windowed reduction and
    inside the gather of one window per row, never as a whole array."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256)).astype("float32")
    ix = rng.integers(0, 256, 64).astype("int64")
    c = rng.standard_normal(256).astype("float32")
    exe = relax_jax.compile(relax_ref.parse(GATHER))
    want = [_fold(r) for r in (x * np.float32(0.5) + c[ix][:, None]).astype("float32")]
    np.testing.assert_array_equal(np.asarray(exe("main", x, ix, c)), np.asarray(want, "float32"))
    _fused_without_conditional(_entry_hlo(exe), 64, 256)
    x[3, 17] = x[3, 200] = x[9, 255] = x[11, 31] = x[11, 32] = NAN
    want = [_fold(r) for r in (x * np.float32(0.5) + c[ix][:, None]).astype("float32")]
    np.testing.assert_array_equal(np.asarray(exe("main", x, ix, c)), np.asarray(want, "float32"))


CHAIN = '''from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def masked_max(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, n), "float32")
        B = T.match_buffer(b, (n,), "float32")
        S = T.alloc_buffer((n, n), "float32")
        M = T.alloc_buffer((n, n), "float32")
        for i, j in T.grid(n, n):
            with T.block("scale"):
                vi, vj = T.axis.remap("SS", [i, j])
                S[vi, vj] = A[vi, vj] * T.float32(0.125)
        for i, j in T.grid(n, n):
            with T.block("mask"):
                vi, vj = T.axis.remap("SS", [i, j])
                M[vi, vj] = T.Select(vj <= vi, S[vi, vj], T.float32(-1.0))
        for i, j in T.grid(n, n):
            with T.block("fold"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(-3.4028234663852886e38)
                B[vi] = T.max(B[vi], M[vi, vj])

    @R.function
    def main(x: R.Tensor(("n", "n"), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.masked_max, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


def _masked(x):
    n = x.shape[0]
    s = (x * np.float32(0.125)).astype("float32")
    return np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], s, np.float32(-1.0))


def test_a_chain_of_map_nests_fuses_into_the_fold():
    """The scaled and masked scores are written by map nests: XLA computes them inside the fold's
    reductions, and a row with a NaN folds exactly."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 64)).astype("float32")
    exe = relax_jax.compile(relax_ref.parse(CHAIN))
    np.testing.assert_array_equal(np.asarray(exe("main", x)), np.asarray([_fold(r) for r in _masked(x)], "float32"))
    _fused_without_conditional(_entry_hlo(exe), 64, 64)
    x[5, 2] = NAN
    x[9, 9] = NAN
    x[12, 3] = NAN
    got = _both(CHAIN, x)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, np.asarray([_fold(r) for r in _masked(x)], "float32"))


LOOPED = CHAIN.replace('''        for i, j in T.grid(n, n):
            with T.block("scale"):''', '''        for t in range(T.int64(2)):
          for i, j in T.grid(n, n):
            with T.block("scale"):''').replace('''        for i, j in T.grid(n, n):
            with T.block("mask"):''', '''          for i, j in T.grid(n, n):
            with T.block("mask"):''').replace('''        for i, j in T.grid(n, n):
            with T.block("fold"):''', '''          for i, j in T.grid(n, n):
            with T.block("fold"):''').replace("A[vi, vj] * T.float32(0.125)", "A[vi, vj] * T.float32(0.125) + T.Cast(\"float32\", t)")


def test_map_nests_and_the_fold_inside_a_traced_loop():
    """The nests and the fold run in the body of a loop (a ``while_loop``). The last round (``t = 1``)
    folds the rows of ``A * 0.125 + 1`` masked."""
    x = np.array([[NAN, 0.5, 0.25], [0.5, 0.25, NAN], [2.0, -1.0, 0.5]], "float32")
    s = (x * np.float32(0.125) + np.float32(1.0)).astype("float32")
    m = np.where(np.arange(3)[None, :] <= np.arange(3)[:, None], s, np.float32(-1.0))
    b = np.asarray([_fold(r) for r in m], "float32")
    got = _both(LOOPED, x)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, b)

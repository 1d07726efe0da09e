"""The exact float max/min fold of a TensorIR block reduction (PRIM.FLOAT.2, TIR.VEC.4) runs in the
branch of a ``lax.cond`` taken only when a row holds a NaN; the branch evaluates the operand anew from
the buffers it loads, so the common case compiles to the fused reduction alone. Expected values are
plain Python folds."""

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
    """The branch re-evaluates ``A[vi, vj] * 0.5 + C[I[vi]]`` (a gather with a bounds check site)."""
    x, ix, c = _inputs()
    want = [_fold(r) for r in (x * np.float32(0.5) + c[ix][:, None]).astype("float32")]
    got = _both(GATHER, x, ix, c)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, np.asarray(want, "float32"))


def test_an_out_of_bounds_gather_in_a_row_with_a_nan_is_reported():
    """The check site comes from the evaluation outside the branch (the branch records none)."""
    x, ix, c = _inputs()
    ix[2] = 4
    assert _both(GATHER, x, ix, c) == [("out_of_bounds", None), ("out_of_bounds", None)]


def _cond_operands(hlo: str) -> list:
    """(shape, defining op) of each operand passed to the conditionals' branches."""
    defs = {}
    for line in hlo.splitlines():
        m = re.match(r"\s*(?:ROOT )?(%\S+) = (.*)$", line)
        if m:
            defs[m.group(1)] = m.group(2)
    out = []
    for line in hlo.splitlines():
        m = re.search(r" conditional\(([^)]*)\)", line)
        if not m:
            continue
        for name in [s.strip() for s in m.group(1).split(",")][1:]:
            d = defs[name]
            args = re.search(r" tuple\(([^)]*)\)", d)
            for arg in ([s.strip() for s in args.group(1).split(",") if s.strip()] if args else [name]):
                out.append((defs[arg].split(" ")[0], "parameter" if " parameter(" in defs[arg] else "computed"))
    return out


def test_the_branch_takes_the_loaded_buffers_not_the_operand():
    """No computed value of the operand's size goes into the conditional (the common case is the
    fused reduction alone)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256)).astype("float32")
    ix = rng.integers(0, 256, 64).astype("int64")
    c = rng.standard_normal(256).astype("float32")
    exe = relax_jax.compile(relax_ref.parse(GATHER))
    want = [_fold(r) for r in (x * np.float32(0.5) + c[ix][:, None]).astype("float32")]
    np.testing.assert_array_equal(np.asarray(exe("main", x, ix, c)), np.asarray(want, "float32"))
    plan = exe._plans["main"]
    hlo = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    ops = _cond_operands(hlo)
    assert ops, hlo
    for shape, how in ops:
        dims = [int(d) for d in re.findall(r"\d+", shape.split("[", 1)[1].split("]")[0])] if "[" in shape else []
        assert how == "parameter" or int(np.prod(dims)) < 64 * 256, (shape, how)


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


def test_a_chain_of_map_nests_is_computed_anew_in_the_branch():
    """The scaled and masked scores are written by map nests: the branch runs them again from ``A``,
    so neither goes into the conditional, and a row with a NaN folds exactly."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 64)).astype("float32")
    exe = relax_jax.compile(relax_ref.parse(CHAIN))
    np.testing.assert_array_equal(np.asarray(exe("main", x)), np.asarray([_fold(r) for r in _masked(x)], "float32"))
    plan = exe._plans["main"]
    hlo = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    ops = _cond_operands(hlo)
    assert ops, hlo
    for shape, how in ops:
        dims = [int(d) for d in re.findall(r"\d+", shape.split("[", 1)[1].split("]")[0])] if "[" in shape else []
        assert how == "parameter" or int(np.prod(dims)) < 64 * 64, (shape, how)
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
    """The nests run in the body of a loop (a ``while_loop``): what the branch computes anew stays in
    the loop body's trace. The last round (``t = 1``) folds the rows of ``A * 0.125 + 1`` masked."""
    x = np.array([[NAN, 0.5, 0.25], [0.5, 0.25, NAN], [2.0, -1.0, 0.5]], "float32")
    s = (x * np.float32(0.125) + np.float32(1.0)).astype("float32")
    m = np.where(np.arange(3)[None, :] <= np.arange(3)[:, None], s, np.float32(-1.0))
    b = np.asarray([_fold(r) for r in m], "float32")
    got = _both(LOOPED, x)
    for kind, value in got:
        assert kind == "value", got
        np.testing.assert_array_equal(value, b)

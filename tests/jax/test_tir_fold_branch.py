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

"""XLA's CPU backend hands softmax (subtract, exp, sum, divide) to its YNN library fusion, which brings
its own ``exp`` and its own division; under both rule sets its results keep PRIM.FLOAT.5 (``exp``
within 4 ulp) and, under the strict rules, PRIM.FLOAT.1 (the division is a division, not a
multiplication by the reciprocal, which the fast rules allow). Checked on the graph path
(``R.nn.softmax``) and on the TensorIR path (its legalized kernels), on rows built so that each
element's rounding is visible:

* rows ``[0, d_1, ..., d_n]`` with every ``d`` in ``[-86, -30]``: the sum is exactly 1 (every term is
  far below half an ulp of 1), so each result is YNN's ``exp(d)`` itself, compared with the correctly
  rounded value;
* rows ``[0, d, -150, ..., -150]`` with ``d`` in ``[-16, 0)``: the results are ``1 / s`` and
  ``e / s`` with ``s = 1 + e``; they must come out of some ``e`` within 4 ulp of ``exp(d)`` through
  two correctly rounded divisions (and, under the fast rules, possibly through a reciprocal).
"""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.transform.legalize_ops import LegalizeOps

ROWS, COLS = 64, 256

SRC = f'''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(({ROWS}, {COLS}), "float32")) -> R.Tensor(({ROWS}, {COLS}), "float32"):
        with R.dataflow():
            y = R.nn.softmax(x, axis=-1)
            R.output(y)
        return y
'''


def _exp(d):
    """The correctly rounded float32 exp (float64 exp is within 1 ulp of float64, far finer)."""
    return np.exp(np.asarray(d, np.float64)).astype(np.float32)


def _ulps(a, b):
    ia = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    return np.abs(ia - ib)


def _neighbours(v, k=4):
    """The float32 values within ``k`` ulp of the positive ``v``."""
    i = np.float32(v).view(np.int32)
    return np.arange(i - k, i + k + 1, dtype=np.int32).view(np.float32)


def _executable(path, mode):
    mod = relax_ref.parse(SRC)
    if path == "tir":
        mod = LegalizeOps()(mod)
    return relax_jax.compile(mod, float_rules=mode)


def _fused_ops(exe):
    """The operations inside the YNN fusions of the compiled entry (what the test exercises)."""
    import re

    plan = exe._plans["main"]
    text = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    ops = set()
    for c in re.findall(r"kind=kCustom, calls=%([\w.]+)", text):
        body = text.split("%" + c + " (")[1].split("\n}")[0]
        ops |= set(re.findall(r" ([a-z][a-z-]*)\(", body))
    return ops


PATHS = ["graph", "tir"]
MODES = ["strict", "fast"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_exp_inside_the_fusion_is_within_four_ulp(path, mode):
    rng = np.random.default_rng(1)
    x = rng.uniform(-86, -30, (ROWS, COLS)).astype(np.float32)
    x[:, 0] = 0
    exe = _executable(path, mode)
    y = np.asarray(exe("main", x))
    assert np.all(y[:, 0] == 1)
    assert int(_ulps(y[:, 1:], _exp(x[:, 1:])).max()) <= 4         # PRIM.FLOAT.5


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_division_inside_the_fusion(path, mode):
    rng = np.random.default_rng(2)
    d = -rng.uniform(1e-3, 16, ROWS).astype(np.float32)
    x = np.full((ROWS, COLS), -150, np.float32)
    x[:, 0] = 0
    x[:, 1] = d
    exe = _executable(path, mode)
    y = np.asarray(exe("main", x))
    assert not np.any(y[:, 2:])
    f32 = np.float32
    for r in range(ROWS):
        ok = False
        for e in _neighbours(_exp(d[r])):
            s = f32(f32(1) + e)
            if y[r, 0] == f32(f32(1) / s) and y[r, 1] == f32(e / s):
                ok = True                                               # two divisions (PRIM.FLOAT.1)
            elif mode == "fast" and y[r, 0] == f32(f32(1) / s) and y[r, 1] == f32(e * f32(f32(1) / s)):
                ok = True                                               # the reciprocal the fast rules allow
        assert ok, (r, d[r], y[r, :2])


@pytest.mark.parametrize("path", PATHS)
def test_the_softmax_runs_in_a_ynn_fusion(path):
    """What the tests above exercise on this jaxlib (a change of XLA's fusion shows here first): under
    the strict rules the whole softmax, division included, is one YNN fusion (on 7 of the 64 rows of
    the division test a reciprocal would round differently); under the fast rules XLA takes the
    division out as a reciprocal and a multiply."""
    exe = _executable(path, "strict")
    exe("main", np.zeros((ROWS, COLS), np.float32))
    assert {"subtract", "exponential", "reduce", "divide"} <= _fused_ops(exe)

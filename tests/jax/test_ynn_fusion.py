"""XLA's CPU backend hands reductions, elementwise operations and dots to its YNN library fusion.

* Under the fast rules softmax (subtract, exp, sum) runs in one YNN fusion, which brings its own
  ``exp``; its results keep PRIM.FLOAT.5 (``exp`` within 4 ulp), and the division becomes a
  multiplication by the reciprocal, which the fast rules allow.
* Under the strict rules XLA's algebraic simplifier is off, and then a YNN fusion broadcasts a
  reduction's result wrongly when it goes back along the reduced leading axis of a tensor of rank 3
  or more (``x + sum(x, axis=0, keepdims=True)``, ``softmax(x, axis=0)``: off by whole units on
  jaxlib 0.10). The strict options restrict YNN to single dots (``float_rules.STRICT_OPTIONS``), so
  XLA's own loops compute softmax, and its division is a division (PRIM.FLOAT.1).

Checked on the graph path (``R.nn.softmax``) and on the TensorIR path (its legalized kernels), on
rows built so that each element's rounding is visible:

* rows ``[0, d_1, ..., d_n]`` with every ``d`` in ``[-86, -30]``: the sum is exactly 1 (every term is
  far below half an ulp of 1), so each result is the ``exp(d)`` of the fusion itself, compared with
  the correctly rounded value;
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
def test_ynn_fuses_the_softmax_only_under_the_fast_rules(path):
    """What the tests above exercise on this jaxlib (a change of XLA's fusion shows here first): under
    the fast rules the softmax's reduction runs in a YNN fusion (with its subtract and exp on the
    graph path); under the strict rules YNN fuses single dots only (``STRICT_OPTIONS``), and the
    softmax has no YNN fusion."""
    for mode in MODES:
        exe = _executable(path, mode)
        exe("main", np.zeros((ROWS, COLS), np.float32))
        ops = _fused_ops(exe)
        assert ("reduce" in ops) == (mode == "fast"), (mode, ops)
    exe = _executable("graph", "fast")
    exe("main", np.zeros((ROWS, COLS), np.float32))
    assert {"subtract", "exponential", "reduce"} <= _fused_ops(exe)


LEADING = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 32, 128), "float32")):
        with R.dataflow():
            s = R.sum(x, axis=[0], keepdims=True)
            y = R.add(x, s)
            z = R.nn.softmax(x, axis=0)
            R.output(y, z)
        return (y, z)
'''


@pytest.mark.parametrize("path", PATHS)
def test_a_reduction_over_the_leading_axis_broadcast_back(path):
    """A reduction over axis 0 of a rank-3 tensor, used elementwise with the tensor: with YNN's
    default fusions and the simplifier off, jaxlib 0.10 added ``sum[t, 0]`` to every channel of row
    ``t`` (off by 6.9) and computed the softmax off by whole units; under the strict rules both are
    the reference's (the sum of two floats and the add bit for bit)."""
    mod = relax_ref.parse(LEADING)
    x = np.random.default_rng(3).standard_normal((2, 32, 128)).astype(np.float32)
    want_y, want_z = (np.asarray(v) for v in relax_ref.evaluate(mod, "main", x))
    exe = relax_jax.compile(LegalizeOps()(mod) if path == "tir" else mod)
    y, z = (np.asarray(v) for v in exe("main", x))
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_allclose(z, want_z, rtol=1e-5, atol=1e-7)


def test_ynn_fusions_without_the_simplifier_broadcast_wrongly():
    """The jaxlib behaviour behind the restriction in ``STRICT_OPTIONS``: XLA's options of the strict
    rules without the YNN restriction put ``x + sum(x, axis=0, keepdims=True)`` into a YNN fusion, which
    computes it wrongly in some processes and not in others (it depends on what ran before in the
    process, so the wrong value is not asserted here); with the restriction there is no such fusion and
    the sums are numpy's, every time."""
    import jax
    import jax.numpy as jnp

    from relax_jax.float_rules import STRICT_OPTIONS

    x = np.random.default_rng(4).standard_normal((2, 32, 128)).astype(np.float32)
    want = x + (x[0] + x[1])[None]
    f = jax.jit(lambda a: a + jnp.sum(a, axis=0, keepdims=True))
    loose = {k: v for k, v in STRICT_OPTIONS.items() if k != "xla_cpu_experimental_ynn_fusion_type"}
    broken = f.lower(x).compile(loose)
    assert "__ynn_fusion" in broken.as_text()
    strict = f.lower(x).compile(STRICT_OPTIONS)
    assert "__ynn_fusion" not in strict.as_text()
    np.testing.assert_array_equal(np.asarray(strict(x)), want)

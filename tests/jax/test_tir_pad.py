"""A pad nest (``P = if_then_else(box, A[v + c], 0)``) read by a convolution nest of the same PrimFunc:
the convolution reads ``A`` with its own zero padding (relax_jax.tir.pad), so the padded copy is not
materialised. Values equal to the reference interpreter's; the rule stays off where ``P`` is not
exactly ``A`` zero-padded, and a later write to ``P`` or ``A`` keeps the values the program means."""

import re

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.transform.legalize_ops import LegalizeOps
from tir_prims import HEADER

RNG = np.random.default_rng(5)


def _hlo(exe, entry):
    plan = exe._plans[entry]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()


@pytest.mark.parametrize("kw", [
    dict(strides=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1)),
    dict(strides=(2, 1), dilation=(1, 2), padding=(1, 2, 0, 3)),
    dict(strides=(1, 1), dilation=(1, 1), padding=(2, 0, 0, 0)),      # one side (both bounds compared)
])
def test_legalized_padded_convolution_reads_the_unpadded_input(kw):
    src = HEADER + f'''
    @R.function
    def main(x: R.Tensor((2, 3, 9, 11), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, strides={kw["strides"]}, padding={kw["padding"]}, dilation={kw["dilation"]})
            R.output(y)
        return y
'''
    mod = relax_ref.parse(src)
    exe = relax_jax.compile(LegalizeOps()(mod))
    x = RNG.standard_normal((2, 3, 9, 11)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w), rtol=1e-5,
                               atol=1e-5)
    p = kw["padding"]
    padded = f"{9 + p[0] + p[2]},{11 + p[1] + p[3]}"
    assert not re.search(rf"f32\[[0-9,]*{padded}\]", _hlo(exe, "main"))


KERNEL = '''
    @T.prim_func
    def k(X: T.Buffer((T.int64(2), T.int64(6)), "float32"), W: T.Buffer((T.int64(3),), "float32"),
          Y: T.Buffer((T.int64(2), T.int64(6)), "float32")):
        A = T.alloc_buffer((T.int64(2), T.int64(6)))
        P = T.alloc_buffer((T.int64(2), T.int64(8)))
        for i, j in T.grid(T.int64(2), T.int64(6)):
            with T.block("copy"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = X[vi, vj] * T.float32(3)
        for i, j in T.grid(T.int64(2), T.int64(8)):
            with T.block("pad"):
                vi, vj = T.axis.remap("SS", [i, j])
                P[vi, vj] = T.if_then_else({cond}, A[vi, vj - T.int64(1)], T.float32(0))
{between}
        for i, j, r in T.grid(T.int64(2), T.int64(6), T.int64(3)):
            with T.block("conv"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + P[vi, vj + vr] * W[vr]

    @R.function
    def main(x: R.Tensor((2, 6), "float32"), w: R.Tensor((3,), "float32")) -> R.Tensor((2, 6), "float32"):
        cls = Module
        y = R.call_tir(cls.k, (x, w), out_sinfo=R.Tensor((2, 6), "float32"))
        return y
'''

EXACT = "T.int64(1) <= vj and vj < T.int64(7)"
REWRITE_P = '''        for i in range(T.int64(2)):
            with T.block("poke"):
                vi = T.axis.spatial(T.int64(2), i)
                P[vi, T.int64(0)] = T.float32(5)'''
REWRITE_A = '''        for i, j in T.grid(T.int64(2), T.int64(6)):
            with T.block("poke"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = T.float32(9)'''


@pytest.mark.parametrize("cond, between, rule", [
    (EXACT, "", True),
    # the box is one short of the source: P is not A zero-padded
    ("T.int64(1) <= vj and vj < T.int64(6)", "", False),
    # an extra conjunct
    (EXACT + " and vi < T.int64(1)", "", False),
    # P written again before the convolution reads it
    (EXACT, REWRITE_P, False),
    # A written after the padding: the convolution still reads the old A (through P)
    (EXACT, REWRITE_A, True),
])
def test_pad_rule_values_and_scope(cond, between, rule):
    src = HEADER + KERNEL.format(cond=cond, between=between)
    mod = relax_ref.parse(src)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    w = RNG.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w), rtol=1e-6,
                               atol=1e-6)
    assert (re.search(r"f32\[2,8\]", _hlo(exe, "main")) is None) == rule

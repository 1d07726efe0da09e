"""The strict options of a program with 16-bit float values (``relax_jax.float_rules.for_16bit_floats``):
XLA's reshape mover off with the algebraic simplifier, so that a ``bfloat16`` attention's output,
transposed between XLA's conversions to and from ``float32``, does not grow a chain of transposes
and copies round after round of the simplification pipeline (measured: 300 per layer before)."""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref

relax_jax = pytest.importorskip("relax_jax")

from relax_jax import float_rules  # noqa: E402

SRC = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 128, 4, 32), "{dt}"), k: R.Tensor((1, 128, 4, 32), "{dt}"),
             v: R.Tensor((1, 128, 4, 32), "{dt}"), w: R.Tensor((128, 128), "{dt}")):
        with R.dataflow():
            o = R.nn.attention(q, k, v, causal_mask="BottomRight")
            h = R.reshape(o, R.shape([1, 128, 128]))
            y = R.matmul(h, w)
            R.output(y)
        return y
'''


def _compiled_text(dt: str):
    import ml_dtypes

    mod = relax_ref.parse(SRC.format(dt=dt))
    exe = relax_jax.compile(mod)
    rng = np.random.default_rng(0)
    npdt = ml_dtypes.bfloat16 if dt == "bfloat16" else np.dtype(dt)
    args = [rng.standard_normal(s).astype(npdt) for s in [(1, 128, 4, 32)] * 3 + [(128, 128)]]
    out = np.asarray(exe("main", *args))
    plan = exe._plans["main"]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text(), out, args


@pytest.mark.parametrize("dt", ["bfloat16", "float16", "float32"])
def test_no_chain_of_transposes(dt):
    text, out, _ = _compiled_text(dt)
    assert text.count(" transpose(") <= 12       # 6 in float32; 294 (bfloat16) and 104 (float16) before
    assert out.shape == (1, 128, 128) and np.all(np.isfinite(out.astype(np.float32)))


def test_the_options():
    strict = float_rules.compiler_options("strict")
    half = float_rules.for_16bit_floats(strict)
    assert half["xla_disable_hlo_passes"].split(",") == ["algsimp", "reshape-mover"]
    assert {k: v for k, v in half.items() if k != "xla_disable_hlo_passes"} == \
        {k: v for k, v in strict.items() if k != "xla_disable_hlo_passes"}
    assert float_rules.for_16bit_floats(half) == half
    assert float_rules.for_16bit_floats({}) == {}          # float_rules="fast": XLA's own passes

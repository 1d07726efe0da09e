"""OP.SEM.7 / PRIM.FLOAT.7 / OP.LINALG.SEM.4 on the reference and relax_jax: a bfloat16 operator keeps
float32 intermediates and rounds once at its result; float16 still rounds every stage. Expected values
are NumPy formulas (float64, rounded with ml_dtypes), never an implementation's."""

import ml_dtypes
import numpy as np
import pytest

import relax_ref
from relax_ref.ir import dtype as _dt

BF16 = ml_dtypes.bfloat16


def _module(params, call, ret):
    plist = ", ".join(f"{n}: {a}" for n, a in params)
    return relax_ref.parse(f'''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main({plist}) -> {ret}:
        with R.dataflow():
            y = {call}
            R.output(y)
        return y
''')


def _evaluators():
    out = [("ref", lambda mod, *a: np.asarray(relax_ref.evaluate(mod, "main", *a)))]
    try:
        import relax_jax
    except ImportError:          # relax_jax needs jax
        return out
    out.append(("jax", lambda mod, *a: np.asarray(relax_jax.compile(mod)("main", *a))))
    return out


EVALUATORS = _evaluators()


def _bits(x):
    return np.asarray(x).view(np.uint16).tolist()


def test_only_bfloat16_keeps_float32_intermediates():
    assert _dt.float32_intermediates("bfloat16")
    assert not any(_dt.float32_intermediates(d) for d in ("float16", "float32", "float64", "int8"))


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_bfloat16_matmul_sums_in_float32_and_rounds_once(name, run):
    rng = np.random.default_rng(3)
    a = (rng.integers(-32, 33, (3, 40)) / 8.0).astype(BF16)        # eighths: float32 sums are exact
    b = (rng.integers(-32, 33, (40, 4)) / 8.0).astype(BF16)
    mod = _module([("a", 'R.Tensor((3, 40), "bfloat16")'), ("b", 'R.Tensor((40, 4), "bfloat16")')],
                  "R.matmul(a, b)", 'R.Tensor((3, 4), "bfloat16")')
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(BF16)
    per_step = np.zeros((3, 4))
    for k in range(40):          # TVM's kernel (DIV.43): the accumulator rounded every step
        per_step = (per_step + a[:, k:k + 1].astype(np.float64) * b[k:k + 1, :].astype(np.float64)).astype(BF16)
        per_step = per_step.astype(np.float64)
    assert _bits(per_step.astype(BF16)) != _bits(want)
    assert _bits(run(mod, a, b)) == _bits(want)


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_float16_matmul_still_rounds_every_product_and_sum(name, run):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 24)).astype(np.float16)
    b = rng.standard_normal((24, 3)).astype(np.float16)
    mod = _module([("a", 'R.Tensor((2, 24), "float16")'), ("b", 'R.Tensor((24, 3), "float16")')],
                  "R.matmul(a, b)", 'R.Tensor((2, 3), "float16")')
    acc = np.zeros((2, 3), np.float16)
    for k in range(24):
        prod = (a[:, k:k + 1].astype(np.float64) * b[k:k + 1, :].astype(np.float64)).astype(np.float16)
        acc = (acc.astype(np.float64) + prod.astype(np.float64)).astype(np.float16)
    assert _bits(run(mod, a, b)) == _bits(acc)


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_bfloat16_softmax_rounds_once(name, run):
    x = np.array([[0.5, -1.25, 2.0, 0.75, -0.375, 1.5, 0.0, -2.5]], np.float32).astype(BF16)
    mod = _module([("x", 'R.Tensor((1, 8), "bfloat16")')], "R.nn.softmax(x, axis=-1)", 'R.Tensor((1, 8), "bfloat16")')
    w = x.astype(np.float64)
    e = np.exp(w - w.max())
    assert _bits(run(mod, x)) == _bits((e / e.sum()).astype(BF16))


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_float16_softmax_rounds_every_stage(name, run):
    x = np.array([[0.5, -1.25, 2.0, 0.75, -0.375, 1.5, 0.0, -2.5]], np.float16)
    mod = _module([("x", 'R.Tensor((1, 8), "float16")')], "R.nn.softmax(x, axis=-1)", 'R.Tensor((1, 8), "float16")')
    w = x.astype(np.float64)
    e = np.exp(w - w.max()).astype(np.float16)
    s = e.astype(np.float32).sum().astype(np.float16)             # the sum in float32, rounded (a stage)
    want = (e.astype(np.float64) / np.float64(s)).astype(np.float16)
    assert _bits(run(mod, x)) == _bits(want)


def _selu64(w):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * (np.maximum(w, 0) + np.minimum(0, alpha * (np.exp(w) - 1)))


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_bfloat16_selu_and_softplus_round_once(name, run):
    """The formula (constants and attributes exact) rounded once; rounding each stage, or the constants
    to bfloat16, changes some of these results."""
    x = np.array([[-2.5, -1.375, -0.625, -0.09375, 0.3125, 0.8125, 1.4375, 2.75]], np.float32).astype(BF16)
    w = x.astype(np.float64)
    t = 'R.Tensor((1, 8), "bfloat16")'
    got = run(_module([("x", t)], "R.nn.selu(x)", t), x)
    assert _bits(got) == _bits(_selu64(w).astype(BF16))
    got = run(_module([("x", t)], "R.nn.softplus(x, beta=0.7, threshold=1.5)", t), x)
    soft = np.where(0.7 * w > 1.5, w, np.log1p(np.exp(0.7 * w)) / 0.7)
    assert _bits(got) == _bits(soft.astype(BF16))


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_bfloat16_sum_mean_and_cumsum_keep_a_float32_accumulator(name, run):
    """Sixteenths: every float32 partial sum is exact, so the expected values are exact sums rounded once
    (TVM's sum and cumsum round the accumulator at every step, DIV.43; checked to differ here)."""
    x = (np.random.default_rng(9).integers(-128, 129, (2, 48)) / 16.0).astype(BF16)
    w = x.astype(np.float64)
    t, r = 'R.Tensor((2, 48), "bfloat16")', 'R.Tensor((2,), "bfloat16")'
    by_step = np.zeros((2, 48))
    acc = np.zeros(2)
    for k in range(48):
        acc = (acc + w[:, k]).astype(BF16).astype(np.float64)
        by_step[:, k] = acc
    assert _bits(by_step.astype(BF16)) != _bits(np.cumsum(w, 1).astype(BF16))
    assert _bits(run(_module([("x", t)], "R.sum(x, axis=[1])", r), x)) == _bits(w.sum(1).astype(BF16))
    assert _bits(run(_module([("x", t)], "R.mean(x, axis=[1])", r), x)) == _bits((w.sum(1) / 48).astype(BF16))
    assert _bits(run(_module([("x", t)], "R.cumsum(x, axis=1)", t), x)) == _bits(np.cumsum(w, 1).astype(BF16))


@pytest.mark.parametrize("name,run", EVALUATORS)
def test_float16_sum_and_cumsum_still_accumulate_in_float16(name, run):
    x = (np.random.default_rng(10).standard_normal((2, 40)) * 50).astype(np.float16)
    t = 'R.Tensor((2, 40), "float16")'
    acc = np.zeros(2, np.float16)
    steps = np.zeros((2, 40), np.float16)
    for k in range(40):
        acc = (acc.astype(np.float64) + x[:, k].astype(np.float64)).astype(np.float16)
        steps[:, k] = acc
    assert _bits(run(_module([("x", t)], "R.sum(x, axis=[1])", 'R.Tensor((2,), "float16")'), x)) == _bits(acc)
    assert _bits(run(_module([("x", t)], "R.cumsum(x, axis=1)", t), x)) == _bits(steps)

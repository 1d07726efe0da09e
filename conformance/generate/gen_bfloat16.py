"""bfloat16 operators (OP.SEM.7, PRIM.FLOAT.7, OP.LINALG.SEM.4): each listed operator keeps its
intermediate values in float32 and rounds to bfloat16 once, at its result.

Every case compares bit for bit (``rtol = atol = 0``) and is built so that the comparison is fair to
any conforming implementation and still separates the rules:

* ``matmul``: the operands are multiples of 1/8 in [-4, 4], so every product and every partial sum
  is exact in float32 and the float32 sum does not depend on its order; the expected value is the
  exact sum rounded once. Rounding the accumulator at every step (TVM's kernel, DIV.43) or every
  product before its sum (the per-node rule) gives other values for some elements (checked here).
* ``sigmoid``, ``rsqrt``, ``silu``, ``softmax``, ``log_softmax``, ``attention``: the expected value is the
  formula in float64 rounded once to bfloat16; inputs are kept only where that value lies at least
  1/64 of a bfloat16 unit away from a rounding boundary, so any float32 evaluation (errors of a few
  float32 units, about 1/65536 of a bfloat16 unit) rounds to the same bfloat16 value. Each case also
  checks here that rounding every step of the formula changes some results.

Oracles: NumPy float64 formulas, rounded once with ``ml_dtypes`` (float64 to bfloat16 rounds once).
"""

import math

import ml_dtypes
import numpy as np

from relax_conformance.gen import Case

from case_helpers import module, rng_for, tensor

CATEGORY = "bfloat16"
BF16 = ml_dtypes.bfloat16
EXACT = dict(rtol=0.0, atol=0.0)
RULES = ["OP.SEM.7"]


def _bf(x):
    return np.asarray(x, np.float64).astype(BF16)


def _w(x):
    return np.asarray(x).astype(np.float64)


def _step(x):
    """One rounding step of a per-node evaluation: to bfloat16 and back to float64."""
    return _w(_bf(x))


def _robust(v) -> np.ndarray:
    """Elements whose rounding to bfloat16 no float32 evaluation error can change: at least 1/64 of a
    bfloat16 unit from the midpoint between two bfloat16 values (zero is exact)."""
    v = np.abs(_w(v))
    with np.errstate(divide="ignore", invalid="ignore"):
        ulp = np.exp2(np.floor(np.log2(np.where(v > 0, v, 1.0))) - 7)
        frac = np.mod(v / ulp, 1.0)
    return (v == 0) | ((v > 1e-30) & (np.abs(frac - 0.5) >= 1 / 64))


def _differs(got, want) -> bool:
    return bool(np.any(_bf(got).view(np.uint16) != _bf(want).view(np.uint16)))


def _pick(rng, shape, scale, ok):
    """Rows of bfloat16 values (along the last axis of ``shape``) drawn until ``ok(row)`` holds for each."""
    rows = []
    n = int(np.prod(shape[:-1]))
    while len(rows) < n:
        row = _bf(rng.standard_normal(shape[-1]) * scale)
        if ok(row):
            rows.append(row)
    return np.stack(rows).reshape(shape)


def _eighths(rng, *shape):
    return _bf(rng.integers(-32, 33, shape) / 8.0)


def _matmul_by_step(a, b):
    """TVM's kernel: the accumulator rounded to bfloat16 at every step (float32 product and sum)."""
    acc = np.zeros(a.shape[:-1] + (b.shape[-1],))
    for k in range(a.shape[-1]):
        acc = _step(acc + _w(a[..., k:k + 1]) * _w(b[k:k + 1, :]))
    return acc


def _matmul_by_node(a, b):
    """The per-node rule: each product rounded, then each sum."""
    acc = np.zeros(a.shape[:-1] + (b.shape[-1],))
    for k in range(a.shape[-1]):
        acc = _step(acc + _step(_w(a[..., k:k + 1]) * _w(b[k:k + 1, :])))
    return acc


def matmul_cases():
    out = []
    rng = rng_for("bfloat16_matmul")
    ids = RULES + ["OP.matmul.C1", "OP.LINALG.SEM.1", "OP.LINALG.SEM.4", "DIV.43"]
    tags = ["op:matmul", "bfloat16", "float"]
    for name, sa, sb, desc in (
            ("matmul_bfloat16", (4, 64), (64, 5), "a 4x64 by 64x5 product"),
            ("matmul_bfloat16_batched_weight", (2, 3, 48), (48, 6), "x @ W with a batched left operand, as a "
                                                                    "model's projections")):
        a, b = _eighths(rng, *sa), _eighths(rng, *sb)
        want = _w(a) @ _w(b)
        assert _differs(_matmul_by_step(a, b), want) and _differs(_matmul_by_node(a, b), want)
        out.append(Case(name, module([("a", tensor(sa, "bfloat16")), ("b", tensor(sb, "bfloat16"))], "R.matmul(a, b)",
                                     tensor(sa[:-1] + sb[-1:], "bfloat16")),
                        runs=[([a, b], _bf(want))], spec=ids, tags=tags, **EXACT,
                        description=f"{desc}: float32 products and sums, rounded once to bfloat16 (operands in "
                                    "eighths: every float32 partial sum is exact)"))
    return out


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _sigmoid_by_node(x):
    return _step(1.0 / _step(1.0 + _step(np.exp(-x))))


def elementwise_cases():
    out = []
    rng = rng_for("bfloat16_elementwise")
    shape = (4, 16)
    for op, call, fn, by_node, scale, extra in (
            ("sigmoid", "R.sigmoid(x)", _sigmoid, _sigmoid_by_node, 4.0, ["PRIM.FLOAT.7", "OP.sigmoid.C2"]),
            ("nn_silu", "R.nn.silu(x)", lambda x: x * _sigmoid(x), lambda x: _step(x * _sigmoid_by_node(x)), 4.0,
             ["PRIM.FLOAT.7", "OP.nn.silu.C2"]),
            ("rsqrt", "R.rsqrt(x)", lambda x: 1.0 / np.sqrt(x), lambda x: _step(1.0 / _step(np.sqrt(x))), 8.0,
             ["PRIM.FLOAT.7", "OP.rsqrt.C2"])):
        def ok(row, fn=fn, op=op):
            if op == "rsqrt" and np.any(_w(row) <= 0):
                return False
            return bool(np.all(_robust(fn(_w(row)))))
        if op == "rsqrt":
            x = _pick(rng, shape, 1.0, lambda r, ok=ok: ok(_bf(np.abs(_w(r)) * scale + 0.01)))
            x = _bf(np.abs(_w(x)) * scale + 0.01)
            assert np.all(_robust(fn(_w(x))))
        else:
            x = _pick(rng, shape, scale, ok)
        want = fn(_w(x))
        assert _differs(by_node(_w(x)), want)
        name = op + "_bfloat16"
        out.append(Case(name, module([("x", tensor(shape, "bfloat16"))], call, tensor(shape, "bfloat16")),
                        runs=[([x], _bf(want))], spec=RULES + extra + ["OP.ELEMWISE.EVAL.1"],
                        tags=[f"op:{call[2:call.index('(')]}", "bfloat16", "float"], **EXACT,
                        description="the float32 formula rounded once to bfloat16 (rounding every step changes "
                                    "some of these results)"))
    return out


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _softmax_by_stage(x):
    e = _step(np.exp(x - x.max(-1, keepdims=True)))
    s = np.zeros(x.shape[:-1] + (1,))
    for k in range(x.shape[-1]):
        s = _step(s + e[..., k:k + 1])
    return _step(e / s)


def _log_softmax_by_stage(x):
    m = x.max(-1, keepdims=True)
    e = _step(np.exp(_step(x - m)))
    s = np.zeros(x.shape[:-1] + (1,))
    for k in range(x.shape[-1]):
        s = _step(s + e[..., k:k + 1])
    return _step(_step(x - m) - _step(np.log(s)))


def softmax_cases():
    out = []
    rng = rng_for("bfloat16_softmax")
    shape = (6, 16)
    for op, fn, by_stage in (("softmax", _softmax, _softmax_by_stage),
                             ("log_softmax", _log_softmax, _log_softmax_by_stage)):
        x = _pick(rng, shape, 3.0, lambda r, fn=fn: bool(np.all(_robust(fn(_w(r))))))
        want = fn(_w(x))
        assert _differs(by_stage(_w(x)), want)
        out.append(Case(f"nn_{op}_bfloat16", module([("x", tensor(shape, "bfloat16"))], f"R.nn.{op}(x, axis=-1)",
                                                     tensor(shape, "bfloat16")),
                        runs=[([x], _bf(want))], spec=RULES + [f"OP.nn.{op}.C3"],
                        tags=[f"op:nn.{op}", "bfloat16", "float"], **EXACT,
                        description="the maximum, the exponentials, their sum and the quotient in float32, the "
                                    "result rounded once (rounding every stage changes some of these results)"))
    return out


def _attention(q, k, v, scale, causal):
    """``softmax(q k^T * scale) v`` per head in float64; ``causal``: TopLeft mask (key j <= query i)."""
    s = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if causal:
        keep = np.arange(k.shape[1])[None, :] <= np.arange(q.shape[1])[:, None]
        s = np.where(keep, s, 0.0)
        e = np.where(keep, np.exp(s - s.max(-1, keepdims=True)), 0.0)
    else:
        e = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("bhqk,bkhd->bqhd", e / e.sum(-1, keepdims=True), v)


def attention_cases():
    out = []
    rng = rng_for("bfloat16_attention")
    qs, ks = (1, 4, 2, 8), (1, 6, 2, 8)
    for name, call, scale, causal, extra, desc in (
            ("nn_attention_bfloat16", "R.nn.attention(q, k, v)", 1 / math.sqrt(8), False, [],
             "scores scaled by 1/sqrt(8)"),
            ("nn_attention_bfloat16_scale_causal", 'R.nn.attention(q, k, v, scale=0.3, causal_mask="TopLeft")',
             float(np.float32(0.3)), True, ["OP.nn.attention.C5", "DIV.23"],
             "scale 0.3 (the float32 attribute, not rounded to bfloat16) and a TopLeft causal mask")):
        while True:
            q, k, v = _bf(rng.standard_normal(qs)), _bf(rng.standard_normal(ks)), _bf(rng.standard_normal(ks))
            if name.endswith("causal"):
                q = _bf(rng.standard_normal((1, 6, 2, 8)))
            want = _attention(_w(q), _w(k), _w(v), scale, causal)
            if np.all(_robust(want)):
                break
        out.append(Case(name, module([("q", tensor(q.shape, "bfloat16")), ("k", tensor(ks, "bfloat16")),
                                      ("v", tensor(ks, "bfloat16"))], call, tensor(q.shape, "bfloat16")),
                        runs=[([q, k, v], _bf(want))], spec=RULES + ["OP.nn.attention.C1"] + extra,
                        tags=["op:nn.attention", "bfloat16", "float"], **EXACT,
                        description=f"{desc}: scores, weights and the weighted sum in float32, the result rounded "
                                    "once to bfloat16"))
    return out


def generate():
    return {CATEGORY: matmul_cases() + elementwise_cases() + softmax_cases() + attention_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_bfloat16"])

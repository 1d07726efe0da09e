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


_GELU_C = 0.5 ** 0.5
_GELU_TANH_C = math.sqrt(2.0 / math.pi)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _f32(x):
    """One float32 rounding (a stage of a float32 evaluation)."""
    return np.asarray(x, np.float64).astype(np.float32).astype(np.float64)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu(x, c=lambda v: v, s=lambda v: v):
    erf = _erf
    return s(x * s(c(0.5) + s(s(erf(s(x * c(_GELU_C)))) * c(0.5))))


def _gelu_tanh(x, c=lambda v: v, s=lambda v: v):
    m1, m2 = s(c(0.5) * x), s(c(_GELU_TANH_C) * x)
    a1 = s(c(1.0) + s(s(c(0.044715) * x) * x))
    return s(m1 * s(c(1.0) + s(np.tanh(s(m2 * a1)))))


def _selu(x, c=lambda v: v, s=lambda v: v):
    neg = np.minimum(0.0, s(c(_SELU_ALPHA) * s(s(np.exp(x)) - 1.0)))
    return s(c(_SELU_SCALE) * s(np.maximum(x, 0.0) + neg))


def _softplus(beta, threshold):
    def f(x, c=lambda v: v, s=lambda v: v):
        bx = s(c(beta) * x)
        soft = s(s(1.0 / c(beta)) * s(np.log(s(1.0 + s(np.exp(bx))))))
        return np.where(bx > c(threshold), x, soft)
    return f


def activation_cases():
    """gelu, gelu_tanh, selu, softplus: the float64 formula (constants and attributes exact) rounded once;
    inputs kept where that value is robust and a float32 evaluation (every stage and constant rounded to
    float32) rounds to the same bfloat16 value, so float32 transcendental errors cannot decide a case
    (arguments below about -3 are left out: ``1 + tanh`` and ``0.5 + erf * 0.5`` cancel there)."""
    out = []
    rng = rng_for("bfloat16_activation")
    shape = (4, 16)
    for op, call, fn in (
            ("gelu", "R.nn.gelu(x)", _gelu),
            ("gelu_tanh", "R.nn.gelu_tanh(x)", _gelu_tanh),
            ("selu", "R.nn.selu(x)", _selu),
            ("softplus", "R.nn.softplus(x, beta=0.7, threshold=1.5)", _softplus(0.7, 1.5))):
        def ok(row, fn=fn):
            w = _w(row)
            want = fn(w)
            return bool(np.all(w > -3.0) and np.all(_robust(want))
                        and not _differs(fn(w, c=_f32, s=_f32), want))
        x = _pick(rng, shape, 1.5, ok)
        want = fn(_w(x))
        assert _differs(fn(_w(x), c=_step, s=_step), want)
        out.append(Case(f"nn_{op}_bfloat16", module([("x", tensor(shape, "bfloat16"))], call,
                                                    tensor(shape, "bfloat16")),
                        runs=[([x], _bf(want))], spec=RULES + [f"OP.nn.{op}.C2", "OP.ELEMWISE.SEM.7"],
                        tags=[f"op:nn.{op}", "bfloat16", "float"], **EXACT,
                        description="every stage in float32 (the constants and attributes as float32 values), "
                                    "the result rounded once to bfloat16 (rounding every stage, constants "
                                    "included, changes some of these results)"))
    return out


def _fold_by_step(x, fn, init):
    """TVM's reduction kernel (DIV.43): the accumulator is the bfloat16 result, rounded at every step."""
    acc = np.full(x.shape[:-1], init, np.float64)
    outs = []
    for k in range(x.shape[-1]):
        acc = _step(fn(acc, x[..., k]))
        outs.append(acc)
    return acc, np.stack(outs, -1)


def _products(rng, *shape):
    """Factors whose significands are 1, 3 or 5 (at most 3 bits): a product of up to 8 is exact in
    float32 (5**8 < 2**24), so any float32 evaluation order gives the exact product."""
    return _bf(rng.choice([0.625, 0.75, 1.25, 1.5, -1.25, -0.75, 1.0], size=shape))


def reduction_cases():
    """sum, prod, mean, variance, std and the scans: a float32 accumulator, each result rounded once.
    sum/prod/scan operands make every float32 partial result exact (sixteenths; factors of
    :func:`_products`), so their expected values are exact results rounded once; mean, variance and std
    keep rows whose float64 result is robust. TVM's sum, prod, cumsum and cumprod round their
    accumulator (the result buffer) at every step: DIV.43."""
    out = []
    rng = rng_for("bfloat16_reduction")
    tags = ["bfloat16", "float"]
    x = _bf(rng.integers(-128, 129, (4, 64)) / 16.0)     # sixteenths of at most 8 significant bits
    total = _w(x).sum(-1)
    assert _differs(_fold_by_step(_w(x), np.add, 0.0)[0], total)
    p = _products(rng, 4, 8)
    prod = _w(p).prod(-1)
    assert _differs(_fold_by_step(_w(p), np.multiply, 1.0)[0], prod)
    for name, call, arg, shp, want, ids in (
            ("sum_bfloat16", "R.sum(x, axis=[1])", x, (4,), total, ["OP.STAT.SEM.4", "DIV.43"]),
            ("prod_bfloat16", "R.prod(x, axis=[1])", p, (4,), prod, ["OP.STAT.SEM.4", "DIV.43"]),
            ("cumsum_bfloat16", "R.cumsum(x, axis=1)", x, (4, 64), np.cumsum(_w(x), -1),
             ["OP.STAT.SEM.7", "DIV.43"]),
            ("cumprod_bfloat16", "R.cumprod(x, axis=1)", p, (4, 8), np.cumprod(_w(p), -1),
             ["OP.STAT.SEM.7", "DIV.43"])):
        out.append(Case(name, module([("x", tensor(arg.shape, "bfloat16"))], call, tensor(shp, "bfloat16")),
                        runs=[([arg], _bf(want))], spec=RULES + ids,
                        tags=[f"op:{call[2:call.index('(')]}"] + tags, **EXACT,
                        description="a float32 accumulator (every partial result exact here), each result "
                                    "rounded once to bfloat16; TVM rounds its accumulator at every step"))

    def moments(w):
        m = w.mean(-1, keepdims=True)
        var = ((w - m) ** 2).mean(-1)
        return w.mean(-1), var, np.sqrt(var)

    def robust_row(row):
        return all(bool(np.all(_robust(v))) for v in moments(_w(row)[None]))

    y = _pick(rng, (3, 300), 2.0, robust_row)
    mean, var, std = moments(_w(y))
    by_step = _fold_by_step(_w(y), np.add, 0.0)[0]
    assert _differs(_step(by_step / 300.0), mean)
    for op, want in (("mean", mean), ("variance", var), ("std", std)):
        out.append(Case(f"{op}_bfloat16", module([("x", tensor(y.shape, "bfloat16"))], f"R.{op}(x, axis=[1])",
                                                 tensor((3,), "bfloat16")),
                        runs=[([y], _bf(want))], spec=RULES + ["OP.STAT.SEM.4", "OP.STAT.SEM.5"],
                        tags=[f"op:{op}"] + tags, **EXACT,
                        description="300 elements per row: the sums, the count 300 (not a bfloat16 value) and "
                                    "the quotients in float32, the result rounded once to bfloat16"))
    return out


def _eighths_in(rng, shape, lo=-32, hi=33):
    return _bf(rng.integers(lo, hi, shape) / 8.0)


def division_cases():
    """floor_divide and floor_mod: ``floor(a / b)`` of the float32 quotient; a quotient just below an
    integer (within half a bfloat16 unit, far beyond float32's error) separates one rounding from two.
    Pairs whose exact quotient lies within 2**-12 of an integer are left out; the expected values are
    exact: ``floor`` of the exact quotient (an integer below 256) and ``a - q * b``, rounded once."""
    out = []
    rng = rng_for("bfloat16_division")
    n = 32
    a = _bf(rng.standard_normal(4 * n) * 24.0)
    b = _bf(rng.standard_normal(4 * n) * 3.0)
    q = _w(a) / _w(b)
    frac = q - np.round(q)
    keep = (np.abs(_w(b)) > 0.25) & (np.abs(frac) > 2.0 ** -12) & (np.abs(q) < 255)
    # a few pairs whose quotient is just below an integer (rounded to it in bfloat16)
    near = []
    while len(near) < 6:
        bb = _bf(rng.uniform(0.5, 4.0))
        k = int(rng.integers(2, 60))
        below = np.asarray(_bf(k * _w(bb))).reshape(1).view(np.uint16) - np.uint16(1)   # the next bfloat16 down
        aa = below.view(BF16)[0]
        qq = _w(aa) / _w(bb)
        if 2.0 ** -12 < k - qq and _w(_bf(qq)) == k:
            near.append((aa, bb))
    a = np.concatenate([np.array([p[0] for p in near], a.dtype), a[keep]])[:n]
    b = np.concatenate([np.array([p[1] for p in near], b.dtype), b[keep]])[:n]
    q = np.floor(_w(a) / _w(b))
    mod = _w(a) - q * _w(b)
    assert _differs(np.floor(_step(_w(a) / _w(b))), q)
    assert np.all(_robust(mod))
    for op, want in (("floor_divide", q), ("floor_mod", mod)):
        out.append(Case(f"{op}_bfloat16", module([("a", tensor((n,), "bfloat16")), ("b", tensor((n,), "bfloat16"))],
                                                 f"R.{op}(a, b)", tensor((n,), "bfloat16")),
                        runs=[([a, b], _bf(want))], spec=RULES + ["OP.ELEMWISE.SEM.1", "OP.ELEMWISE.SEM.7"],
                        tags=[f"op:{op}", "bfloat16", "float"], **EXACT,
                        description="the float32 quotient floored (and a - q * b) rounded once to bfloat16; "
                                    "rounding the quotient to bfloat16 first moves quotients just below an "
                                    "integer up to it"))
    return out


def _avg_windows(x, k, stride):
    n, c, h, w = x.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * stride:i * stride + k, j * stride:j * stride + k].mean((2, 3))
    return out


def _avg_by_step(x, k, stride):
    n, c, h, w = x.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            acc = np.zeros((n, c))
            for di in range(k):
                for dj in range(k):
                    acc = _step(acc + x[:, :, i * stride + di, j * stride + dj])
            out[:, :, i, j] = _step(acc / (k * k))
    return out


def pool_cases():
    """avg_pool2d and adaptive_avg_pool2d: the window sums (of eighths: exact in float32) and the
    quotient by the count in float32, rounded once; inputs redrawn until every average is robust."""
    out = []
    rng = rng_for("bfloat16_pool")
    while True:
        x = _bf(rng.integers(-96, 97, (1, 2, 9, 9)) / 8.0)
        want3, want2 = _avg_windows(_w(x), 3, 3), _avg_windows(_w(x), 3, 2)
        if np.all(_robust(want3)) and np.all(_robust(want2)) and _differs(_avg_by_step(_w(x), 3, 2), want2):
            break
    shape = (1, 2, 9, 9)
    for name, call, want, oshape in (
            ("nn_avg_pool2d_bfloat16", "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2])", want2, (1, 2, 4, 4)),
            ("nn_adaptive_avg_pool2d_bfloat16", "R.nn.adaptive_avg_pool2d(x, output_size=[3, 3])", want3,
             (1, 2, 3, 3))):
        op = call[2:call.index("(")]
        out.append(Case(name, module([("x", tensor(shape, "bfloat16"))], call, tensor(oshape, "bfloat16")),
                        runs=[([x], _bf(want))], spec=RULES, tags=[f"op:{op}", "bfloat16", "float"], **EXACT,
                        description="window sums and the division by the count in float32, each average rounded "
                                    "once to bfloat16"))
    return out


def loss_cases():
    """nll_loss (mean): the weighted picks, their sum, the sum of the weights and the quotient in
    float32, rounded once (TVM keeps the two sums in intermediate buffers)."""
    rng = rng_for("bfloat16_loss")
    while True:
        p = _bf(rng.standard_normal((8, 5)))
        t = rng.integers(0, 5, 8).astype(np.int64)
        wt = _bf(np.abs(rng.standard_normal(5)) + 0.5)
        num = -(_w(p)[np.arange(8), t] * _w(wt)[t]).sum()
        den = _w(wt)[t].sum()
        if np.all(_robust(num / den)) and _differs(_step(_step(num) / _step(den)), num / den):
            break
    return [Case("nn_nll_loss_bfloat16", module([("p", tensor((8, 5), "bfloat16")), ("t", tensor((8,), "int64")),
                                                 ("w", tensor((5,), "bfloat16"))], "R.nn.nll_loss(p, t, w)",
                                                tensor((), "bfloat16")),
                 runs=[([p, t, wt], _bf(num / den))], spec=RULES, tags=["op:nn.nll_loss", "bfloat16", "float"],
                 **EXACT, description="mean reduction: the weighted sum and the weight sum in float32, the "
                                      "quotient rounded once to bfloat16")]


def contraction_cases():
    """einsum and conv2d: products and sums of eighths (exact in float32) rounded once; TVM's kernels
    accumulate in the bfloat16 result buffer (DIV.43), checked here to give other values."""
    out = []
    rng = rng_for("bfloat16_contraction")
    a, b = _eighths_in(rng, (4, 64)), _eighths_in(rng, (64, 5))
    want = _w(a) @ _w(b)
    assert _differs(_matmul_by_step(a, b), want)
    out.append(Case("einsum_bfloat16", module([("a", tensor((4, 64), "bfloat16")), ("b", tensor((64, 5), "bfloat16"))],
                                              'R.einsum((a, b), "ij,jk->ik")', tensor((4, 5), "bfloat16")),
                    runs=[([a, b], _bf(want))], spec=RULES + ["OP.LINALG.SEM.2", "DIV.43"],
                    tags=["op:einsum", "bfloat16", "float"], **EXACT,
                    description="a matrix product written as einsum: float32 products and sums, rounded once"))
    x, w = _eighths_in(rng, (1, 8, 6, 6)), _eighths_in(rng, (3, 8, 3, 3))
    conv = np.zeros((1, 3, 4, 4))
    step = np.zeros((1, 3, 4, 4))
    for rc in range(8):
        for ry in range(3):
            for rx in range(3):
                term = np.einsum("nhw,o->nohw", _w(x)[:, rc, ry:ry + 4, rx:rx + 4], _w(w)[:, rc, ry, rx])
                conv, step = conv + term, _step(step + term)
    assert _differs(step, conv)
    out.append(Case("nn_conv2d_bfloat16", module([("x", tensor((1, 8, 6, 6), "bfloat16")),
                                                  ("w", tensor((3, 8, 3, 3), "bfloat16"))], "R.nn.conv2d(x, w)",
                                                 tensor((1, 3, 4, 4), "bfloat16")),
                    runs=[([x, w], _bf(conv))], spec=RULES + ["DIV.43"], tags=["op:nn.conv2d", "bfloat16", "float"],
                    **EXACT, description="float32 products and sums over channels and the window, rounded once"))
    return out


def norm_cases():
    """layer_norm and batch_norm (training): statistics, normalization, scale and shift in float32, the
    result rounded once (rows redrawn until every float64 result is robust). TVM has no bfloat16
    layer_norm kernel; its batch_norm returns float32 values (DIV.23)."""
    out = []
    rng = rng_for("bfloat16_norm")
    eps = 1e-5
    while True:
        x = _bf(rng.standard_normal((4, 16)) * 2.0 + 0.5)
        g, b = _bf(1 + rng.standard_normal(16) * 0.3), _bf(rng.standard_normal(16) * 0.3)
        w = _w(x)
        mu, var = w.mean(1, keepdims=True), w.var(1, keepdims=True)
        norm = (w - mu) / np.sqrt(var + eps)
        want = norm * _w(g) + _w(b)
        if np.all(_robust(want)) and _differs(_step(_step(_step(norm) * _w(g)) + _w(b)), want):
            break
    out.append(Case("nn_layer_norm_bfloat16", module([("x", tensor((4, 16), "bfloat16")), ("g", tensor((16,), "bfloat16")),
                                                      ("b", tensor((16,), "bfloat16"))],
                                                     "R.nn.layer_norm(x, g, b, axes=[1], epsilon=1e-05)",
                                                     tensor((4, 16), "bfloat16")),
                    runs=[([x, g, b], _bf(want))], spec=RULES + ["OP.nn.layer_norm.C4"],
                    tags=["op:nn.layer_norm", "bfloat16", "float"], **EXACT,
                    description="statistics, normalization, gamma and beta in float32, rounded once (rounding "
                                "the normalized value and each affine step changes some results)"))
    while True:
        x = _bf(rng.standard_normal((16, 4)) * 2.0 + 0.5)
        g, b = _bf(1 + rng.standard_normal(4) * 0.3), _bf(rng.standard_normal(4) * 0.3)
        mm, mv = _bf(rng.standard_normal(4) * 0.3), _bf(1 + np.abs(rng.standard_normal(4)))
        w = _w(x)
        mu, var = w.mean(0), w.var(0)
        want = (w - mu) / np.sqrt(var + eps) * _w(g) + _w(b)
        new_m, new_v = 0.9 * _w(mm) + 0.1 * mu, 0.9 * _w(mv) + 0.1 * var
        if all(np.all(_robust(v)) for v in (want, new_m, new_v)):
            break
    ret = f"R.Tuple({tensor((16, 4), 'bfloat16')}, {tensor((4,), 'bfloat16')}, {tensor((4,), 'bfloat16')})"
    params = [("x", tensor((16, 4), "bfloat16"))] + [(n, tensor((4,), "bfloat16")) for n in ("g", "b", "m", "v")]
    out.append(Case("nn_batch_norm_bfloat16_training", module(params,
                                                              "R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=1e-05, "
                                                              "momentum=0.1, training=True)", ret),
                    runs=[([x, g, b, mm, mv], (_bf(want), _bf(new_m), _bf(new_v)))],
                    spec=RULES + ["OP.nn.batch_norm.C5", "DIV.23"], tags=["op:nn.batch_norm", "bfloat16", "float"],
                    **EXACT, description="batch statistics, normalization and the moving statistics in float32, "
                                         "each result rounded once to bfloat16"))
    return out


def var_len_cases():
    """attention_var_len over two sequences (3 and 4 queries, 4 and 5 keys, grouped heads, TopLeft
    causal mask): float64 attention per sequence rounded once, inputs redrawn until robust. TVM has no
    legalization of the operator."""
    rng = rng_for("bfloat16_attention_var_len")
    sq, sk = np.array([0, 3, 7], np.int32), np.array([0, 4, 9], np.int32)
    while True:
        q = _bf(rng.standard_normal((1, 7, 4, 8)))
        k, v = _bf(rng.standard_normal((1, 9, 2, 8))), _bf(rng.standard_normal((1, 9, 2, 5)))
        want = np.zeros((1, 7, 4, 5))
        for a, b, c, d in ((0, 3, 0, 4), (3, 7, 4, 9)):
            kk = np.repeat(_w(k)[:, c:d], 2, axis=2)
            vv = np.repeat(_w(v)[:, c:d], 2, axis=2)
            want[:, a:b] = _attention(_w(q)[:, a:b], kk, vv, 1 / math.sqrt(8), True)
        if np.all(_robust(want)):
            break
    params = [("q", tensor((1, 7, 4, 8), "bfloat16")), ("k", tensor((1, 9, 2, 8), "bfloat16")),
              ("v", tensor((1, 9, 2, 5), "bfloat16")), ("sq", tensor((3,), "int32")), ("sk", tensor((3,), "int32")),
              ("mq", tensor((), "int32")), ("mk", tensor((), "int32"))]
    return [Case("nn_attention_var_len_bfloat16",
                 module(params, 'R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="TopLeft")',
                        tensor((1, 7, 4, 5), "bfloat16")),
                 runs=[([q, k, v, sq, sk, np.array(4, np.int32), np.array(5, np.int32)], _bf(want))],
                 spec=RULES + ["OP.nn.attention_var_len.C3"], tags=["op:nn.attention_var_len", "bfloat16", "float"],
                 **EXACT, description="two sequences, grouped heads, a TopLeft mask: scores, weights and the "
                                      "weighted sum in float32, rounded once to bfloat16")]


# ---------------------------------------------------------------------------------------------------
# TensorIR: bfloat16 arithmetic in float32, rounded where stored (TIR.BF16.1-3)
# ---------------------------------------------------------------------------------------------------

_TIR_HEAD = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(64),), "bfloat16"), B: T.Buffer((T.int64(64),), "bfloat16"), C: T.Buffer((T.int64(64),), "bfloat16")):
'''

_TIR_MAIN = '''
    @R.function
    def main(a: R.Tensor((64,), "bfloat16"), b: R.Tensor((64,), "bfloat16")) -> R.Tensor((64,), "bfloat16"):
        cls = Module
        y = R.call_tir(cls.k, (a, b), out_sinfo=R.Tensor((64,), "bfloat16"))
        return y
'''


def _tir_module(body: str) -> str:
    lines = "\n".join("        " + ln for ln in body.strip().split("\n"))
    return _TIR_HEAD + lines + "\n" + _TIR_MAIN


def _r32(x):
    """Rounded to bfloat16 and back, as float32 (one store into a bfloat16 buffer)."""
    return np.asarray(x, np.float32).astype(BF16).astype(np.float32)


def tir_cases():
    """Hand-written PrimFuncs on bfloat16 buffers, evaluated as TVM's default TIR pipeline does
    (``BF16ComputeLegalize``): expected values are NumPy float32 arithmetic in the text's order, rounded
    to bfloat16 where the function stores into a parameter's buffer. Each case checks here that rounding
    every bfloat16 operation (the reading of PRIM.FLOAT.4 alone) gives other values."""
    rng = rng_for("bfloat16_tir")
    a = _bf(rng.standard_normal(64)).astype(np.float32)
    b = _bf(rng.standard_normal(64)).astype(np.float32)
    tenth = np.float32(0.1)
    tags = ["call_tir", "bfloat16", "float"]
    out = []

    def add(name, body, want, per_op, spec, desc):
        assert _differs(per_op, want), name
        out.append(Case(name, _tir_module(body), runs=[([a.astype(BF16), b.astype(BF16)], want.astype(BF16))],
                        spec=["TIR.BF16.1", "TIR.BF16.2"] + spec, tags=tags, **EXACT, description=desc))

    add("tir_expression_rounds_at_store",
        "for i in range(T.int64(64)):\n    C[i] = A[i] * B[i] + A[i] * A[i]",
        _r32(a * b + a * a), _r32(_r32(a * b) + _r32(a * a)), ["PRIM.FLOAT.4"],
        "C[i] = A[i] * B[i] + A[i] * A[i] on bfloat16 buffers: both products and the sum in float32, rounded "
        "once by the store")
    add("tir_cast_and_immediate_do_not_round",
        'for i in range(T.int64(64)):\n    C[i] = T.Cast("bfloat16", T.Cast("float32", A[i]) * T.Cast("float32", B[i])) '
        '+ A[i] * T.bfloat16(0.1)',
        _r32(a * b + a * tenth), _r32(_r32(a * b) + _r32(a * _r32(tenth))), [],
        "an explicit cast to bfloat16 inside an expression and a bfloat16 immediate are float32 values: "
        "(a * b) + a * 0.1 in float32 (0.1 as a float32), rounded once by the store")
    add("tir_let_holds_float32",
        "for i in range(T.int64(64)):\n    p = A[i] * B[i]\n    C[i] = p + A[i] * A[i]",
        _r32(a * b + a * a), _r32(_r32(a * b) + _r32(a * a)), [],
        "a bfloat16 value bound to a variable (p = A[i] * B[i]) holds the float32 product, rounded only by "
        "the store")
    add("tir_scratch_buffer_holds_float32",
        'S = T.alloc_buffer((T.int64(64),), "bfloat16")\nfor i in range(T.int64(64)):\n    S[i] = A[i] * B[i]\n'
        'for i in range(T.int64(64)):\n    C[i] = S[i] + A[i] * A[i]',
        _r32(a * b + a * a), _r32(_r32(a * b) + _r32(a * a)), ["TIR.BF16.3"],
        "a bfloat16 scratch buffer of constant shape that the function allocates holds float32 values: "
        "S = a * b, C = S + a * a rounded once")
    sym = _TIR_HEAD.replace('A: T.Buffer((T.int64(64),), "bfloat16"), B: T.Buffer((T.int64(64),), "bfloat16"), '
                            'C: T.Buffer((T.int64(64),), "bfloat16")', 'a: T.handle, b: T.handle, c: T.handle')
    sym += '''        n = T.int64()
        A = T.match_buffer(a, (n,), "bfloat16")
        B = T.match_buffer(b, (n,), "bfloat16")
        C = T.match_buffer(c, (n,), "bfloat16")
        S = T.alloc_buffer((n,), "bfloat16")
        for i in range(n):
            S[i] = A[i] * B[i]
        for i in range(n):
            C[i] = S[i] + A[i] * A[i]
''' + _TIR_MAIN.replace("(64,)", '("n",)').replace("        cls = Module", "        n = T.int64()\n        cls = Module").replace(
        'out_sinfo=R.Tensor(("n",)', "out_sinfo=R.Tensor((n,)")
    want, per_op = _r32(a * b + a * a), _r32(_r32(a * b) + _r32(a * a))
    assert _differs(per_op, want)
    out.append(Case("tir_symbolic_scratch_buffer_holds_float32", sym,
                    runs=[([a.astype(BF16), b.astype(BF16)], want.astype(BF16)),
                          ([a[:5].astype(BF16), b[:5].astype(BF16)], want[:5].astype(BF16))],
                    spec=["TIR.BF16.1", "TIR.BF16.2", "TIR.BF16.3"], tags=tags + ["symbolic"], **EXACT,
                    description="a bfloat16 scratch buffer of symbolic size n holds float32 values too: "
                                "S = a * b, C = S + a * a rounded once (n = 64 and 5)"))
    add("tir_parameter_buffer_rounds_each_store",
        "for i in range(T.int64(64)):\n    C[i] = A[i] * B[i]\nfor i in range(T.int64(64)):\n"
        "    C[i] = C[i] + A[i] * A[i]",
        _r32(_r32(a * b) + a * a), _r32(_r32(a * b) + _r32(a * a)), ["TIR.BF16.3"],
        "a parameter's bfloat16 buffer rounds every store: C = a * b (rounded), then C + a * a in float32, "
        "rounded again")
    return out


def generate():
    return {CATEGORY: matmul_cases() + elementwise_cases() + softmax_cases() + attention_cases()
            + activation_cases() + reduction_cases() + division_cases() + pool_cases() + loss_cases()
            + contraction_cases() + norm_cases() + var_len_cases() + tir_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_bfloat16"])

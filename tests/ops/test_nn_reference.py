"""Reference semantics of the ``R.nn`` operators against independent formulas written here (naive
loops or float64 numpy), including the TVM-kernel details the spec pages state: zero/lowest padding,
ceil mode, both ``count_include_pad`` rules, layouts, groups, dilation, integer accumulation,
training/inference ``batch_norm``, the causal masks of attention, ``ignore_index``, and the run-time
errors (OP.SEM.2)."""

import itertools

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, UnsupportedError

from ops_helpers import call_text, run_call

RNG = np.random.default_rng(5)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def close(a, b, tol=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype("float64"), np.asarray(b, dtype="float64"), rtol=tol, atol=tol)


def tensor(name, arr, dtype=None):
    dims = ", ".join(str(d) for d in arr.shape) + ("," if arr.ndim == 1 else "")
    return f'{name}: R.Tensor(({dims}), "{dtype or arr.dtype}")'


# ---------------------------------------------------------------------------------------------------
# Independent formulas
# ---------------------------------------------------------------------------------------------------


def naive_conv(x, w, stride, pad, dil, groups):
    """x (N, C, *S), w (O, C/g, *K), pad = begins + ends; float64 loops."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    outs = [(x.shape[2 + i] + pad[i] + pad[i + nsp] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    y = np.zeros((n, o) + tuple(outs))
    og = o // groups
    for b, oc in itertools.product(range(n), range(o)):
        g = oc // og
        for pos in itertools.product(*[range(v) for v in outs]):
            acc = 0.0
            for ci in range(cg):
                for kk in itertools.product(*[range(k) for k in ks]):
                    src = [pos[i] * stride[i] - pad[i] + kk[i] * dil[i] for i in range(nsp)]
                    if all(0 <= s < x.shape[2 + i] for i, s in enumerate(src)):
                        acc += float(x[(b, g * cg + ci) + tuple(src)]) * float(w[(oc, ci) + kk])
            y[(b, oc) + pos] = acc
    return y


def naive_conv_transpose(x, w, stride, pad, opad, dil, groups):
    """x (N, C, *S), w (C, O/g, *K): the scatter form, cropped by the padding."""
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    ks = w.shape[2:]
    outs = [(x.shape[2 + i] - 1) * stride[i] - pad[i] - pad[i + nsp] + dil[i] * (ks[i] - 1) + opad[i] + 1
            for i in range(nsp)]
    y = np.zeros((n, og * groups) + tuple(outs))
    cg = c // groups
    for b, ci in itertools.product(range(n), range(c)):
        g = ci // cg
        for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
            for o in range(og):
                for kk in itertools.product(*[range(k) for k in ks]):
                    dst = [pos[i] * stride[i] + kk[i] * dil[i] - pad[i] for i in range(nsp)]
                    if all(0 <= d < outs[i] for i, d in enumerate(dst)):
                        y[(b, g * og + o) + tuple(dst)] += float(x[(b, ci) + pos]) * float(w[(ci, o) + kk])
    return y


def naive_pool(x, kind, ks, st, pad, dil, ceil_mode, include_pad):
    nsp = x.ndim - 2
    outs = []
    for i in range(nsp):
        n = x.shape[2 + i]
        span = n + pad[i] + pad[i + nsp] - dil[i] * (ks[i] - 1) - 1
        o = (span + (st[i] - 1 if ceil_mode else 0)) // st[i] + 1
        if ceil_mode and (o - 1) * st[i] >= n + pad[i]:
            o -= 1
        outs.append(o)
    y = np.zeros(x.shape[:2] + tuple(outs))
    lowest = np.finfo(x.dtype).min
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos in itertools.product(*[range(v) for v in outs]):
            vals, inside_pad = [], 0
            for kk in itertools.product(*[range(k) for k in ks]):
                src = [pos[i] * st[i] - pad[i] + kk[i] * dil[i] for i in range(nsp)]
                if all(0 <= s < x.shape[2 + i] for i, s in enumerate(src)):
                    vals.append(float(x[(b, c) + tuple(src)]))
                if all(s < x.shape[2 + i] + pad[i + nsp] for i, s in enumerate(src)):
                    inside_pad += 1
            if kind == "max":
                y[(b, c) + pos] = max(vals) if vals else lowest
            else:
                cnt = inside_pad if include_pad else max(len(vals), 1)
                y[(b, c) + pos] = sum(vals) / cnt
    return y


def naive_adaptive(x, out):
    nsp = x.ndim - 2
    y = np.zeros(x.shape[:2] + tuple(out))
    for pos in itertools.product(*[range(m) for m in out]):
        sl = []
        for i in range(nsp):
            n, m = x.shape[2 + i], out[i]
            sl.append(slice(int(np.floor(pos[i] * n / m)), int(np.ceil((pos[i] + 1) * n / m))))
        y[(slice(None), slice(None)) + pos] = x[(slice(None), slice(None)) + tuple(sl)].astype("float64").mean(
            axis=tuple(range(2, 2 + nsp)))
    return y


# ---------------------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stride,pad,dil,groups", [((1, 1), (0, 0, 0, 0), (1, 1), 1), ((2, 1), (1, 0, 2, 1), (1, 2), 2),
                                                    ((2, 2), (1, 1, 1, 1), (2, 1), 4)])
def test_conv2d_matches_naive_loops(stride, pad, dil, groups):
    """OP.NN.CONV.SEM.1."""
    x, w = f32(2, 4, 6, 5), f32(4, 4 // groups, 3, 2)
    expr = f"R.nn.conv2d(x, w, strides={stride}, padding={pad}, dilation={dil}, groups={groups})"
    close(run_call(tensor("x", x) + ", " + tensor("w", w), expr, x, w), naive_conv(x, w, stride, pad, dil, groups),
          1e-4)


def test_conv_layouts_1d_3d_and_int8():
    """Layouts are permutations of the canonical order (OP.NN.LAYOUT.1); int8 operands with
    out_dtype int32 accumulate exactly; int8 results wrap."""
    x, w = f32(1, 3, 5, 6), f32(4, 3, 2, 3)
    ref = naive_conv(x, w, (1, 2), (1, 0, 0, 1), (1, 1), 1)
    xn, wn = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    got = run_call(tensor("x", xn) + ", " + tensor("w", wn),
                   'R.nn.conv2d(x, w, strides=(1, 2), padding=(1, 0, 0, 1), data_layout="NHWC", kernel_layout="HWIO")',
                   xn, wn)
    close(got, ref.transpose(0, 2, 3, 1), 1e-4)
    got = run_call(tensor("x", x) + ", " + tensor("w", w),
                   'R.nn.conv2d(x, w, strides=(1, 2), padding=(1, 0, 0, 1), out_layout="NHWC")', x, w)
    close(got, ref.transpose(0, 2, 3, 1), 1e-4)
    x1, w1 = f32(2, 2, 9), f32(4, 1, 3)
    close(run_call(tensor("x", x1) + ", " + tensor("w", w1), "R.nn.conv1d(x, w, strides=2, padding=(2, 1), groups=2, "
                   "dilation=2)", x1, w1), naive_conv(x1, w1, (2,), (2, 1), (2,), 2), 1e-4)
    x3, w3 = f32(1, 2, 3, 4, 3), f32(2, 2, 2, 2, 2)
    close(run_call(tensor("x", x3) + ", " + tensor("w", w3), "R.nn.conv3d(x, w, padding=1, strides=(1, 2, 1))", x3, w3),
          naive_conv(x3, w3, (1, 2, 1), (1,) * 6, (1, 1, 1), 1), 1e-4)
    xi = RNG.integers(-128, 128, (1, 2, 4, 4)).astype("int8")
    wi = RNG.integers(-128, 128, (3, 2, 3, 3)).astype("int8")
    exact = naive_conv(xi.astype("int64"), wi.astype("int64"), (1, 1), (1,) * 4, (1, 1), 1).astype("int64")
    got32 = run_call(tensor("x", xi) + ", " + tensor("w", wi), 'R.nn.conv2d(x, w, padding=1, out_dtype="int32")',
                     xi, wi)
    assert got32.dtype == np.int32 and np.array_equal(got32, exact.astype("int32"))
    got8 = run_call(tensor("x", xi) + ", " + tensor("w", wi), "R.nn.conv2d(x, w, padding=1)", xi, wi)
    assert got8.dtype == np.int8 and np.array_equal(got8, exact.astype("int8"))


@pytest.mark.parametrize("nsp,stride,pad,opad,dil,groups", [
    (2, (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 1), (2, (2, 1), (0, 1, 1, 2), (1, 0), (1, 1), 2),
    (2, (3, 2), (0, 0, 0, 0), (2, 1), (2, 1), 1), (1, (3,), (1, 0), (2,), (1,), 2)])
def test_conv_transpose_matches_scatter(nsp, stride, pad, opad, dil, groups):
    """OP.NN.CONV.SEM.2."""
    x = f32(*((1, 4) + (4, 3)[:nsp]))
    w = f32(*((4, 3) + (3, 2)[:nsp]))
    op = f"conv{nsp}d_transpose"
    expr = f"R.nn.{op}(x, w, strides={stride}, padding={pad}, output_padding={opad}, dilation={dil}, groups={groups})"
    close(run_call(tensor("x", x) + ", " + tensor("w", w), expr, x, w),
          naive_conv_transpose(x, w, stride, pad, opad, dil, groups), 1e-4)


def test_conv_runtime_checks():
    """OP.NN.CONV.SEM.3: channel relations are checked at run time when inference could not."""
    x, w = f32(1, 3, 4, 4), f32(2, 2, 3, 3)
    with pytest.raises(OpRuntimeError):
        run_call('x: R.Tensor((1, "c", 4, 4), "float32"), w: R.Tensor((2, "d", 3, 3), "float32")', "R.nn.conv2d(x, w)",
                 x, w)


def test_conv_large_block():
    """A 1x64x56x56 3x3 block on the reference (its speed is measured by benchmarks/, not here)."""
    x, w = f32(1, 64, 56, 56), f32(64, 64, 3, 3)
    mod = relax_ref.parse(call_text(tensor("x", x) + ", " + tensor("w", w), "R.nn.conv2d(x, w, padding=1)"))
    y = relax_ref.evaluate(mod, "main", x, w)
    assert y.shape == (1, 64, 56, 56)
    probe = float(np.sum(x[0, :, 9:12, 19:22].astype("float64") * w[5].astype("float64")))
    assert abs(float(y[0, 5, 10, 20]) - probe) < 1e-3


# ---------------------------------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("ks,st,pad,dil,ceil,inc", [
    ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, False), ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, True),
    ((2, 3), (1, 2), (0, 1, 1, 2), (2, 1), True, False), ((2, 2), (3, 3), (1, 0, 0, 1), (1, 1), True, True),
    ((3, 2), (2, 2), (2, 1, 2, 1), (2, 2), True, True)])
def test_pool2d_matches_naive(kind, ks, st, pad, dil, ceil, inc):
    """OP.NN.POOL.SEM.1-3."""
    x = f32(1, 2, 7, 6)
    expr = (f"R.nn.{kind}_pool2d(x, pool_size={ks}, strides={st}, padding={pad}, dilation={dil}, ceil_mode={ceil}, "
            f"count_include_pad={inc})")
    close(run_call(tensor("x", x), expr, x), naive_pool(x, kind, ks, st, pad, dil, ceil, inc))


def test_pool_layouts_1d_3d_int_and_empty_windows():
    x = f32(2, 7, 3)
    got = run_call(tensor("x", x), 'R.nn.max_pool1d(x, 3, 2, 1, ceil_mode=True, layout="NWC")', x)
    close(got, naive_pool(x.transpose(0, 2, 1), "max", (3,), (2,), (1, 1), (1,), True, False).transpose(0, 2, 1))
    x3 = f32(1, 2, 3, 4, 5)
    close(run_call(tensor("x", x3), "R.nn.avg_pool3d(x, 2, 2, 1)", x3),
          naive_pool(x3, "avg", (2, 2, 2), (2, 2, 2), (1,) * 6, (1, 1, 1), False, True))
    xi = RNG.integers(-50, 50, (1, 1, 4, 4)).astype("int32")
    got = run_call(tensor("x", xi), "R.nn.avg_pool2d(x, 3, 1, 1)", xi)
    s = naive_pool(xi.astype("float64"), "avg", (3, 3), (1, 1), (1,) * 4, (1, 1), False, False) * \
        naive_pool(np.ones_like(xi, dtype="float64"), "avg", (3, 3), (1, 1), (1,) * 4, (1, 1), False, True)
    cnt = naive_pool(np.ones_like(xi, dtype="float64"), "avg", (3, 3), (1, 1), (1,) * 4, (1, 1), False, True) * 9
    sums = np.rint(s * 9).astype("int64")
    assert got.dtype == np.int32 and np.array_equal(got, (np.sign(sums) * (np.abs(sums) // np.rint(cnt).astype("int64")))
                                                      .astype("int32"))
    # a window entirely in the padding: the lowest finite value (max) and 0 (avg)
    y = f32(1, 1, 2, 2)
    got = run_call(tensor("y", y), "R.nn.max_pool2d(y, 1, 1, padding=(1, 1, 0, 0))", y)
    assert got[0, 0, 0, 0] == np.finfo("float32").min
    assert run_call(tensor("y", y), "R.nn.avg_pool2d(y, 1, 1, padding=(1, 1, 0, 0))", y)[0, 0, 0, 0] == 0


def test_adaptive_avg_pool():
    """OP.NN.POOL.SEM.4."""
    x = f32(2, 3, 7, 6)
    close(run_call(tensor("x", x), "R.nn.adaptive_avg_pool2d(x, (3, 4))", x), naive_adaptive(x, (3, 4)))
    close(run_call(tensor("x", x), "R.nn.adaptive_avg_pool2d(x)", x), x)
    xn = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    close(run_call(tensor("x", xn), 'R.nn.adaptive_avg_pool2d(x, (4, 5), layout="NHWC")', xn),
          naive_adaptive(x, (4, 5)).transpose(0, 2, 3, 1))
    x1 = f32(1, 2, 5)
    close(run_call(tensor("x", x1), "R.nn.adaptive_avg_pool1d(x, 3)", x1), naive_adaptive(x1, (3,)))
    x3 = f32(1, 1, 3, 4, 5)
    close(run_call(tensor("x", x3), "R.nn.adaptive_avg_pool3d(x, (2, 3, 2))", x3), naive_adaptive(x3, (2, 3, 2)))


# ---------------------------------------------------------------------------------------------------
# softmax, norms
# ---------------------------------------------------------------------------------------------------


def test_softmax_and_log_softmax():
    """OP.nn.softmax.C3, OP.nn.log_softmax.C3 (float64 formulas)."""
    x = f32(3, 4, 5) * 5
    for axis in (-1, 0, 1):
        e = np.exp(x.astype("float64") - x.max(axis=axis, keepdims=True))
        close(run_call(tensor("x", x), f"R.nn.softmax(x, axis={axis})", x), e / e.sum(axis=axis, keepdims=True))
        close(run_call(tensor("x", x), f"R.nn.log_softmax(x, axis={axis})", x),
              x - x.max(axis=axis, keepdims=True) - np.log(e.sum(axis=axis, keepdims=True)))
    h = (x / 4).astype("float16")
    got = run_call(tensor("h", h), "R.nn.softmax(h)", h)
    e = np.exp(h.astype("float64") - h.max(-1, keepdims=True))
    assert got.dtype == np.float16
    close(got, e / e.sum(-1, keepdims=True), 2e-3)
    with pytest.raises(UnsupportedError):
        run_call('x: R.Tensor("int32", ndim=-1)', "R.nn.softmax(x)", np.ones((2, 2), "int32"))


def _ln(x, axes, eps=1e-5):
    x = x.astype("float64")
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def test_norms():
    """OP.NN.NORM.SEM.1-4 against float64 formulas."""
    x = f32(2, 4, 3, 5)
    g, b = f32(3, 5), f32(3, 5)
    close(run_call(tensor("x", x) + ", " + tensor("g", g) + ", " + tensor("b", b),
                   "R.nn.layer_norm(x, g, b, axes=[2, 3], epsilon=1e-3)", x, g, b), _ln(x, (2, 3), 1e-3) * g + b, 1e-4)
    gt = np.ascontiguousarray(g.T)
    close(run_call(tensor("x", x) + ", " + tensor("g", gt), "R.nn.layer_norm(x, g, g, axes=[3, 2])", x, gt),
          _ln(x, (2, 3)) * g + g, 1e-4)
    c = f32(4)
    close(run_call(tensor("x", x) + ", " + tensor("c", c), "R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, "
                   "axes=[2, 3])", x, c),
          (_ln(x.reshape(2, 2, 2, 3, 5), (2, 3, 4)).reshape(x.shape) * c[:, None, None] + c[:, None, None]), 1e-4)
    close(run_call(tensor("x", x) + ", " + tensor("c", c), "R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2, 3])",
                   x, c), _ln(x, (2, 3)) * c[:, None, None] + c[:, None, None], 1e-4)
    wv = f32(5)
    x64 = x.astype("float64")
    close(run_call(tensor("x", x) + ", " + tensor("w", wv), "R.nn.rms_norm(x, w)", x, wv),
          x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + 1e-5) * wv, 1e-4)
    h = x.astype("float16")
    got = run_call(tensor("h", h) + ", " + tensor("g", g.astype("float16")) + ", " + tensor("b", b.astype("float16")),
                   "R.nn.layer_norm(h, g, b, axes=[2, 3])", h, g.astype("float16"), b.astype("float16"))
    assert got.dtype == np.float16
    close(got, _ln(h, (2, 3)) * g.astype("float16") + b.astype("float16"), 2e-2)


def test_batch_norm_inference_and_training():
    """OP.nn.batch_norm.C4-C5: training=False uses and returns the moving statistics; training=True
    normalizes with the batch statistics and updates the moving ones with momentum."""
    x = f32(3, 4, 5)
    g, b, mm, mv = f32(4), f32(4), f32(4), np.abs(f32(4)) + 0.5
    p = ", ".join([tensor("x", x), tensor("g", g), tensor("b", b), tensor("mm", mm), tensor("mv", mv)])
    out, m1, v1 = run_call(p, "R.nn.batch_norm(x, g, b, mm, mv, axis=1, training=False)", x, g, b, mm, mv)
    bc = (None, slice(None), None)
    close(out, (x - mm[bc]) / np.sqrt(mv[bc] + 1e-5) * g[bc] + b[bc], 1e-5)
    assert np.array_equal(m1, mm) and np.array_equal(v1, mv)
    out, m1, v1 = run_call(p, "R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.2, center=False)", x, g, b, mm, mv)
    bm, bv = x.astype("float64").mean(axis=(0, 2)), x.astype("float64").var(axis=(0, 2))
    close(out, (x - bm[bc]) / np.sqrt(bv[bc] + 1e-5) * g[bc], 1e-4)
    close(m1, 0.8 * mm + 0.2 * bm, 1e-5)
    close(v1, 0.8 * mv + 0.2 * bv, 1e-5)


# ---------------------------------------------------------------------------------------------------
# pad, prelu, flatten, pixel_shuffle, dropout
# ---------------------------------------------------------------------------------------------------


def test_pad_modes():
    """OP.nn.pad.C4: constant, reflect, replicate (edge), circular (wrap); negative widths crop."""
    x = f32(2, 3, 4)
    widths = [0, 0, 2, 1, 3, 2]
    np_w = [(0, 0), (2, 1), (3, 2)]
    p = tensor("x", x)
    close(run_call(p, f"R.nn.pad(x, {widths}, pad_value=1.5)", x), np.pad(x, np_w, constant_values=1.5))
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        close(run_call(p, f'R.nn.pad(x, {widths}, pad_mode="{mode}")', x), np.pad(x, np_w, mode=np_mode))
    close(run_call(p, "R.nn.pad(x, [0, 0, -1, 1, 0, -2])", x), np.pad(x[:, 1:, :2], [(0, 0), (0, 1), (0, 0)]))
    xi = np.arange(6, dtype="int32").reshape(2, 3)
    got = run_call(tensor("x", xi), "R.nn.pad(x, [1, 0, 0, 1], pad_value=-2.7)", xi)
    assert got.dtype == np.int32 and np.array_equal(got, np.pad(xi, [(1, 0), (0, 1)], constant_values=-2))
    with pytest.raises(OpRuntimeError):
        run_call(p, 'R.nn.pad(x, [0, 0, 3, 0, 0, 0], pad_mode="reflect")', x)


def test_prelu_flatten_shuffle_dropout():
    x = f32(2, 3, 4)
    a = f32(3)
    close(run_call(tensor("x", x) + ", " + tensor("a", a), "R.nn.prelu(x, a)", x, a),
          np.where(x > 0, x, x * a[None, :, None]))
    a1 = f32(1)
    close(run_call(tensor("x", x) + ", " + tensor("a", a1), "R.nn.prelu(x, a, axis=2)", x, a1),
          np.where(x > 0, x, x * a1[0]))
    with pytest.raises(OpRuntimeError):
        run_call(tensor("x", x) + ', a: R.Tensor(("k",), "float32")', "R.nn.prelu(x, a)", x, f32(2))
    close(run_call(tensor("x", x), "R.nn.batch_flatten(x)", x), x.reshape(2, 12))
    y = f32(2, 8, 2, 3)
    got = run_call(tensor("y", y), "R.nn.pixel_shuffle(y, 2)", y)
    ref = np.zeros((2, 2, 4, 6), "float32")
    for n, c, h, w in itertools.product(range(2), range(2), range(4), range(6)):
        ref[n, c, h, w] = y[n, c * 4 + (h % 2) * 2 + (w % 2), h // 2, w // 2]
    assert np.array_equal(got, ref)
    out, mask = run_call(tensor("x", x), "R.nn.dropout(x, 0.4)", x)
    assert np.array_equal(out, x) and np.array_equal(mask, np.ones_like(x))


# ---------------------------------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------------------------------


def naive_attention(q, k, v, bias=None, scale=None, mask=None):
    b, s, n, h = q.shape
    skv, nkv = k.shape[1], k.shape[2]
    out = np.zeros((b, s, n, v.shape[3]))
    sc = scale if scale is not None else 1 / np.sqrt(h)
    for bi, hi in itertools.product(range(b), range(n)):
        kh = hi // (n // nkv)
        p = q[bi, :, hi].astype("float64") @ k[bi, :, kh].astype("float64").T * sc
        if bias is not None:
            p = p + np.broadcast_to(bias, (b, n, s, skv))[bi, hi]
        if mask is not None:
            off = 0 if mask == "TopLeft" else abs(s - skv)
            keep = np.arange(skv)[None] <= np.arange(s)[:, None] + off
            pm = np.where(keep, p, 0.0)
            e = np.where(keep, np.exp(pm - pm.max(-1, keepdims=True)), 0.0)
        else:
            e = np.exp(p - p.max(-1, keepdims=True))
        out[bi, :, hi] = (e / e.sum(-1, keepdims=True)) @ v[bi, :, kh].astype("float64")
    return out


@pytest.mark.parametrize("s,skv,mask", [(3, 5, None), (3, 5, "TopLeft"), (3, 5, "BottomRight"), (5, 3, "BottomRight"),
                                        (4, 4, "TopLeft")])
def test_attention(s, skv, mask):
    """OP.nn.attention.C5 (masks by lower-triangular offset: 0 or |S - S_kv|)."""
    q, k, v = f32(2, s, 2, 4), f32(2, skv, 2, 4), f32(2, skv, 2, 3)
    p = ", ".join([tensor("q", q), tensor("k", k), tensor("v", v)])
    m = "None" if mask is None else f'"{mask}"'
    close(run_call(p, f"R.nn.attention(q, k, v, causal_mask={m})", q, k, v), naive_attention(q, k, v, mask=mask), 1e-5)


def test_attention_bias_scale_and_grouped_heads():
    q, k, v, b = f32(2, 3, 4, 4), f32(2, 5, 2, 4), f32(2, 5, 2, 3), f32(1, 4, 1, 5)
    p = ", ".join([tensor("q", q), tensor("k", k), tensor("v", v), tensor("b", b)])
    close(run_call(p, "R.nn.attention(q, k, v, b, scale=0.25)", q, k, v, b),
          naive_attention(q, k, v, bias=b, scale=0.25), 1e-5)
    # a score row far below zero: the masked zeros take part in the max (TVM's kernel), so the row
    # underflows to 0 / 0
    q2 = np.full((1, 2, 1, 1), -100.0, "float32")
    k2 = np.full((1, 2, 1, 1), 100.0, "float32")
    got = run_call(", ".join([tensor("q", q2), tensor("k", k2)]), 'R.nn.attention(q, k, k, causal_mask="TopLeft")',
                   q2, k2)
    assert np.isnan(got[0, 0, 0, 0])


# ---------------------------------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------------------------------


def test_nll_loss():
    """OP.nn.nll_loss.C7: weights, ignore_index, the three reductions, 1-d predictions."""
    p, w = f32(4, 5, 3), np.abs(f32(5))
    t = np.array([[0, 2, 4], [1, 1, 3], [4, 0, 2], [3, 3, 0]], "int64")
    ref = np.zeros((4, 3))
    wt = np.zeros((4, 3))
    for n, d in itertools.product(range(4), range(3)):
        if t[n, d] != 3:
            ref[n, d] = -p[n, t[n, d], d] * w[t[n, d]]
            wt[n, d] = w[t[n, d]]
    args = ", ".join([tensor("p", p), tensor("t", t), tensor("w", w)])
    close(run_call(args, 'R.nn.nll_loss(p, t, w, reduction="none", ignore_index=3)', p, t, w), ref)
    close(run_call(args, 'R.nn.nll_loss(p, t, w, reduction="sum", ignore_index=3)', p, t, w), ref.sum())
    close(run_call(args, "R.nn.nll_loss(p, t, w, ignore_index=3)", p, t, w), ref.sum() / wt.sum())
    p2, t2 = f32(3, 4), np.array([1, 0, 3], "int32")
    close(run_call(tensor("p", p2) + ", " + tensor("t", t2), "R.nn.nll_loss(p, t)", p2, t2),
          -np.mean([p2[i, t2[i]] for i in range(3)]))
    p1, t1 = f32(4), np.array(2, "int64")
    close(run_call(tensor("p", p1) + ', t: R.Tensor((), "int64")', 'R.nn.nll_loss(p, t, reduction="sum")', p1, t1),
          -p1[2])
    with pytest.raises(OpRuntimeError):
        run_call(tensor("p", p2) + ", " + tensor("t", t2), "R.nn.nll_loss(p, t)", p2, np.array([1, 4, 0], "int32"))


def test_cross_entropy_with_logits():
    x, y = f32(3, 4), f32(3, 4)
    close(run_call(tensor("x", x) + ", " + tensor("y", y), "R.nn.cross_entropy_with_logits(x, y)", x, y),
          -(x.astype("float64") * y).sum() / 3)
    v = f32(5)
    close(run_call(tensor("x", v) + ", " + tensor("y", v), "R.nn.cross_entropy_with_logits(x, y)", v, v),
          -(v.astype("float64") ** 2).sum())
    xi = np.array([[1, 2], [3, 4], [5, 6]], "int32")
    got = run_call(tensor("x", xi) + ", " + tensor("y", xi), "R.nn.cross_entropy_with_logits(x, y)", xi, xi)
    assert got.dtype == np.int32 and int(got) == -(91 // 3)

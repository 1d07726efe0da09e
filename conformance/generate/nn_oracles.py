"""The float64 oracles of the neural-network cases (gen_ops_nn.py): naive loops over windows and
NumPy formulas, written from the spec pages (spec/ops/nn.md), never from an implementation."""

import itertools

import numpy as np


def r32(x):
    return np.asarray(x, dtype="float64").astype("float32")


def conv(x, w, stride, pad, dil, groups):
    """x (N, C, *S), w (O, C/g, *K), pad = begins + ends."""
    x, w = np.asarray(x, "float64"), np.asarray(w, "float64")
    nsp = x.ndim - 2
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    outs = [(x.shape[2 + i] + pad[i] + pad[i + nsp] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad[i], pad[i + nsp]) for i in range(nsp)])
    y = np.zeros((x.shape[0], o) + tuple(outs))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for pos in itertools.product(*[range(v) for v in outs]):
            sl = tuple(slice(pos[i] * stride[i], pos[i] * stride[i] + dil[i] * (ks[i] - 1) + 1, dil[i])
                       for i in range(nsp))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            y[(slice(None), oc) + pos] = (patch * w[oc]).reshape(x.shape[0], -1).sum(axis=1)
    return y


def conv_transpose(x, w, stride, pad, opad, dil, groups):
    """x (N, C, *S), w (C, O/g, *K): scatter, cropped by the padding."""
    x, w = np.asarray(x, "float64"), np.asarray(w, "float64")
    nsp = x.ndim - 2
    c, og = w.shape[:2]
    ks = w.shape[2:]
    outs = [(x.shape[2 + i] - 1) * stride[i] - pad[i] - pad[i + nsp] + dil[i] * (ks[i] - 1) + opad[i] + 1
            for i in range(nsp)]
    y = np.zeros((x.shape[0], og * groups) + tuple(outs))
    cg = c // groups
    for ci in range(c):
        g = ci // cg
        for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
            for kk in itertools.product(*[range(k) for k in ks]):
                dst = [pos[i] * stride[i] + kk[i] * dil[i] - pad[i] for i in range(nsp)]
                if all(0 <= d < outs[i] for i, d in enumerate(dst)):
                    y[(slice(None), slice(g * og, (g + 1) * og)) + tuple(dst)] += \
                        x[(slice(None), ci) + pos][:, None] * w[(ci, slice(None)) + kk][None, :]
    return y


def pool(x, kind, ks, st, pad, dil, ceil_mode, include_pad):
    x = np.asarray(x)
    nsp = x.ndim - 2
    outs = []
    for i in range(nsp):
        n = x.shape[2 + i]
        o = (n + pad[i] + pad[i + nsp] - dil[i] * (ks[i] - 1) - 1 + (st[i] - 1 if ceil_mode else 0)) // st[i] + 1
        if ceil_mode and (o - 1) * st[i] >= n + pad[i]:
            o -= 1
        outs.append(o)
    y = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*[range(v) for v in outs]):
        vals, count = [], 0
        for kk in itertools.product(*[range(k) for k in ks]):
            src = [pos[i] * st[i] - pad[i] + kk[i] * dil[i] for i in range(nsp)]
            if all(0 <= s < x.shape[2 + i] for i, s in enumerate(src)):
                vals.append(x[(slice(None), slice(None)) + tuple(src)].astype("float64"))
            if all(s < x.shape[2 + i] + pad[i + nsp] for i, s in enumerate(src)):
                count += 1
        if kind == "max":
            y[(slice(None), slice(None)) + pos] = np.max(vals, axis=0) if vals else np.finfo(x.dtype).min
        else:
            total = np.sum(vals, axis=0) if vals else 0.0
            y[(slice(None), slice(None)) + pos] = total / (count if include_pad else max(len(vals), 1))
    return y


def adaptive(x, out):
    x = np.asarray(x, "float64")
    nsp = x.ndim - 2
    y = np.zeros(x.shape[:2] + tuple(out))
    for pos in itertools.product(*[range(m) for m in out]):
        sl = tuple(slice((pos[i] * x.shape[2 + i]) // out[i], -((-(pos[i] + 1) * x.shape[2 + i]) // out[i]))
                   for i in range(nsp))
        y[(slice(None), slice(None)) + pos] = x[(slice(None), slice(None)) + sl].mean(axis=tuple(range(2, 2 + nsp)))
    return y


def softmax(x, axis):
    x = np.asarray(x, "float64")
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def normalize(x, axes, eps):
    x = np.asarray(x, "float64")
    m = x.mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def attention(q, k, v, bias=None, scale=None, mask=None):
    q, k, v = (np.asarray(a, "float64") for a in (q, k, v))
    b, s, n, h = q.shape
    skv = k.shape[1]
    out = np.zeros((b, s, n, v.shape[3]))
    sc = scale if scale is not None else 1 / np.sqrt(h)
    for bi, hi in itertools.product(range(b), range(n)):
        p = q[bi, :, hi] @ k[bi, :, hi].T * sc
        if bias is not None:
            p = p + np.broadcast_to(np.asarray(bias, "float64"), (b, n, s, skv))[bi, hi]
        if mask is None:
            e = np.exp(p - p.max(-1, keepdims=True))
        else:
            off = 0 if mask == "TopLeft" else abs(s - skv)
            keep = np.arange(skv)[None] <= np.arange(s)[:, None] + off
            pm = np.where(keep, p, 0.0)
            e = np.where(keep, np.exp(pm - pm.max(-1, keepdims=True)), 0.0)
        out[bi, :, hi] = e / e.sum(-1, keepdims=True) @ v[bi, :, hi]
    return out


def avg_pool_f16(x, k):
    """avg_pool2d without padding, stride 1: the window folded in float16 in row-major order (each
    addition computed exactly in float64 and rounded to float16), then divided by the count in float16."""
    n, c, h, w = x.shape
    y = np.zeros((n, c, h - k + 1, w - k + 1), "float16")
    for pos in np.ndindex(*y.shape):
        acc = np.float16(0)
        for r, s in itertools.product(range(k), range(k)):
            acc = np.float16(np.float64(acc) + np.float64(x[pos[0], pos[1], pos[2] + r, pos[3] + s]))
        y[pos] = np.float16(np.float64(acc) / np.float64(k * k))
    return y

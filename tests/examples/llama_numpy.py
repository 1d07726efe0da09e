"""An independent numpy implementation of the tiny Llama decoder of ``examples/llama_tiny.py``
(written from the model's definition, not from relax-ref), used as the oracle in the tests."""

from __future__ import annotations

import numpy as np


def rms_norm(x, w, eps):
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + eps) * w).astype(np.float32)


def rope(x, pos, theta):
    """x: (n, heads, d); pos: (n,) absolute positions."""
    d = x.shape[-1]
    inv = theta ** (-2.0 * np.arange(d // 2) / d)
    ang = pos[:, None].astype(np.float64) * inv[None, :]
    emb = np.concatenate([ang, ang], axis=-1)[:, None, :]
    rot = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return (x * np.cos(emb) + rot * np.sin(emb)).astype(np.float32)


def attention(q, k, v, offset):
    """q: (n, H, d); k, v: (t, KV, d); query i sees keys j <= offset + i."""
    n, heads, d = q.shape
    t, kv_heads, _ = k.shape
    group = heads // kv_heads
    out = np.empty_like(q, dtype=np.float64)
    mask = np.arange(t)[None, :] <= (offset + np.arange(n))[:, None]
    for h in range(heads):
        s = q[:, h].astype(np.float64) @ k[:, h // group].astype(np.float64).T / np.sqrt(d)
        s = np.where(mask, s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        out[:, h] = p @ v[:, h // group]
    return out.astype(np.float32)


def silu(x):
    return x / (1.0 + np.exp(-x))


def forward(model, tokens, caches=None):
    """``tokens``: (n,) ids; ``caches``: list of (k, v) of shape (m, KV, d) or None.
    Returns (logits of the last position (vocab,), new caches)."""
    cfg = model.cfg
    n = len(tokens)
    h = model.embed.weight.data[np.asarray(tokens)]
    new = []
    for i, layer in enumerate(model.layers):
        a = layer.attn
        x = rms_norm(h, layer.input_norm.weight.data, cfg.rms_eps)
        q = (x @ a.q_proj.weight.data).reshape(n, cfg.num_heads, cfg.head_dim)
        k = (x @ a.k_proj.weight.data).reshape(n, cfg.num_kv_heads, cfg.head_dim)
        v = (x @ a.v_proj.weight.data).reshape(n, cfg.num_kv_heads, cfg.head_dim)
        m = 0 if caches is None else caches[i][0].shape[0]
        pos = m + np.arange(n)
        q, k = rope(q, pos, cfg.rope_theta), rope(k, pos, cfg.rope_theta)
        if caches is not None:
            k = np.concatenate([caches[i][0], k], axis=0)
            v = np.concatenate([caches[i][1], v], axis=0)
        new.append((k, v))
        o = attention(q, k, v, m).reshape(n, cfg.num_heads * cfg.head_dim)
        h = h + o @ a.o_proj.weight.data
        x = rms_norm(h, layer.post_norm.weight.data, cfg.rms_eps)
        mlp = layer.mlp
        g = silu(x @ mlp.gate_proj.weight.data) * (x @ mlp.up_proj.weight.data)
        h = h + g @ mlp.down_proj.weight.data
    logits = rms_norm(h[-1:], model.norm.weight.data, cfg.rms_eps) @ model.lm_head.weight.data
    return logits[0], new


def generate(model, prompt, num_tokens):
    logits, caches = forward(model, list(prompt))
    out = []
    for step in range(num_tokens):
        nxt = int(np.argmax(logits))
        out.append(nxt)
        if step + 1 == num_tokens:
            break
        logits, caches = forward(model, [nxt], caches)
    return out


def bf16_ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance of two bfloat16 arrays in units in the last place (signs by their order)."""
    def ordered(x):
        u = x.view(np.uint16).astype(np.int32)
        return np.where(u >= 0x8000, 0x8000 - u, u)
    return np.abs(ordered(a) - ordered(b))

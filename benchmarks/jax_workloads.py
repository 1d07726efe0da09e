"""Benchmark workloads of the JAX executor, each written once in Relax TVMScript, plus hand-written
``jax.jit`` and numpy versions of the same computation and helpers for TVM's legalized + fused form.

Workloads (float32):

* ``mlp``: ``x[n, 512] @ W1[512, 2048] -> gelu -> @ W2[2048, 512]``;
* ``decoder``: a decoder layer (hidden 512, 8 heads of 64, RMSNorm, SiLU-gated MLP of width 1408):
  ``prefill(x[L, 512])`` with causal attention, and ``decode(x[1, 512], K[L, 8, 64], V[L, 8, 64])``
  returning ``(y, K[L + 1], V[L + 1])`` (the new key/value row concatenated to the cache);
* ``conv``: ``x[1, 64, 56, 56]`` -> 3x3 conv (64 filters, padding 1) -> relu -> 2x2/2 max-pool.
"""

from __future__ import annotations

import math
from typing import Dict, Tuple

import numpy as np

HIDDEN, HEADS, HEAD_DIM, FFN = 512, 8, 64, 1408

MLP = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 512), "float32"), w1: R.Tensor((512, 2048), "float32"),
             w2: R.Tensor((2048, 512), "float32")) -> R.Tensor(("n", 512), "float32"):
        with R.dataflow():
            h = R.matmul(x, w1)
            g = R.nn.gelu(h)
            y = R.matmul(g, w2)
            R.output(y)
        return y
'''

_DECODER_WEIGHTS = '''ln1: R.Tensor((512,), "float32"), wq: R.Tensor((512, 512), "float32"),
               wk: R.Tensor((512, 512), "float32"), wv: R.Tensor((512, 512), "float32"),
               wo: R.Tensor((512, 512), "float32"), ln2: R.Tensor((512,), "float32"),
               wg: R.Tensor((512, 1408), "float32"), wu: R.Tensor((512, 1408), "float32"),
               wd: R.Tensor((1408, 512), "float32")'''

DECODER = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def prefill(x: R.Tensor(("L", 512), "float32"), ''' + _DECODER_WEIGHTS + ''') -> R.Tensor(("L", 512), "float32"):
        L = T.int64()
        with R.dataflow():
            h = R.nn.rms_norm(x, ln1, axes=[-1], epsilon=1e-5)
            q = R.reshape(R.matmul(h, wq), R.shape([1, L, 8, 64]))
            k = R.reshape(R.matmul(h, wk), R.shape([1, L, 8, 64]))
            v = R.reshape(R.matmul(h, wv), R.shape([1, L, 8, 64]))
            o = R.nn.attention(q, k, v, causal_mask="TopLeft")
            o2 = R.reshape(o, R.shape([L, 512]))
            x2 = R.add(x, R.matmul(o2, wo))
            h2 = R.nn.rms_norm(x2, ln2, axes=[-1], epsilon=1e-5)
            m = R.multiply(R.nn.silu(R.matmul(h2, wg)), R.matmul(h2, wu))
            y = R.add(x2, R.matmul(m, wd))
            R.output(y)
        return y

    @R.function
    def decode(x: R.Tensor((1, 512), "float32"), kc: R.Tensor(("L", 8, 64), "float32"),
               vc: R.Tensor(("L", 8, 64), "float32"), ''' + _DECODER_WEIGHTS + ''') -> R.Tuple(
            R.Tensor((1, 512), "float32"), R.Tensor(("L + 1", 8, 64), "float32"),
            R.Tensor(("L + 1", 8, 64), "float32")):
        L = T.int64()
        with R.dataflow():
            h = R.nn.rms_norm(x, ln1, axes=[-1], epsilon=1e-5)
            q = R.reshape(R.matmul(h, wq), R.shape([1, 8, 64]))
            k = R.reshape(R.matmul(h, wk), R.shape([1, 8, 64]))
            v = R.reshape(R.matmul(h, wv), R.shape([1, 8, 64]))
            k2 = R.concat([kc, k], axis=0)
            v2 = R.concat([vc, v], axis=0)
            qh = R.permute_dims(q, [1, 0, 2])
            kh = R.permute_dims(k2, [1, 2, 0])
            s = R.multiply(R.matmul(qh, kh), R.const(0.125, "float32"))
            p = R.nn.softmax(s, axis=-1)
            vh = R.permute_dims(v2, [1, 0, 2])
            o = R.permute_dims(R.matmul(p, vh), [1, 0, 2])
            o2 = R.reshape(o, R.shape([1, 512]))
            x2 = R.add(x, R.matmul(o2, wo))
            h2 = R.nn.rms_norm(x2, ln2, axes=[-1], epsilon=1e-5)
            m = R.multiply(R.nn.silu(R.matmul(h2, wg)), R.matmul(h2, wu))
            y = R.add(x2, R.matmul(m, wd))
            R.output(y, k2, v2)
        return (y, k2, v2)
'''.replace("from tvm.script import ir as I, relax as R", "from tvm.script import ir as I, relax as R, tirx as T")

CONV = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 56, 56), "float32"), w: R.Tensor((64, 64, 3, 3), "float32")
             ) -> R.Tensor((1, 64, 28, 28), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1])
            r = R.nn.relu(c)
            y = R.nn.max_pool2d(r, pool_size=[2, 2], strides=[2, 2])
            R.output(y)
        return y
'''

SOURCES = {"mlp": MLP, "decoder": DECODER, "conv": CONV}


# ---------------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------------


def mlp_weights(rng) -> Tuple[np.ndarray, np.ndarray]:
    return ((rng.standard_normal((512, 2048)) / math.sqrt(512)).astype(np.float32),
            (rng.standard_normal((2048, 512)) / math.sqrt(2048)).astype(np.float32))


def decoder_weights(rng) -> Tuple[np.ndarray, ...]:
    def w(a, b):
        return (rng.standard_normal((a, b)) / math.sqrt(a)).astype(np.float32)
    ln1 = (1 + 0.1 * rng.standard_normal(512)).astype(np.float32)
    ln2 = (1 + 0.1 * rng.standard_normal(512)).astype(np.float32)
    return (ln1, w(512, 512), w(512, 512), w(512, 512), w(512, 512), ln2, w(512, FFN), w(512, FFN), w(FFN, 512))


def conv_inputs(rng) -> Tuple[np.ndarray, np.ndarray]:
    return (rng.standard_normal((1, 64, 56, 56)).astype(np.float32),
            (rng.standard_normal((64, 64, 3, 3)) / math.sqrt(64 * 9)).astype(np.float32))


# ---------------------------------------------------------------------------------------------------
# Hand-written JAX (the yardstick)
# ---------------------------------------------------------------------------------------------------


def jax_functions() -> Dict[str, object]:
    """Plain ``jax.jit`` versions of the workloads (float32, HIGHEST matmul precision, as the
    executor's lowerings)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    hp = lax.Precision.HIGHEST

    def mlp(x, w1, w2):
        h = jnp.matmul(x, w1, precision=hp)
        g = h * (0.5 + lax.erf(h * np.float32(0.5 ** 0.5)) * np.float32(0.5))
        return jnp.matmul(g, w2, precision=hp)

    def rms(x, w):
        ms = jnp.mean(x * x, axis=-1, keepdims=True)
        return x * lax.rsqrt(ms + np.float32(1e-5)) * w

    def mlp_block(x2, ln2, wg, wu, wd):
        h2 = rms(x2, ln2)
        g = jnp.matmul(h2, wg, precision=hp)
        m = g * jax.nn.sigmoid(g) * jnp.matmul(h2, wu, precision=hp)
        return x2 + jnp.matmul(m, wd, precision=hp)

    def prefill(x, ln1, wq, wk, wv, wo, ln2, wg, wu, wd):
        L = x.shape[0]
        h = rms(x, ln1)
        q = jnp.matmul(h, wq, precision=hp).reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = jnp.matmul(h, wk, precision=hp).reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2)
        v = jnp.matmul(h, wv, precision=hp).reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2)
        s = jnp.matmul(q, k.transpose(0, 2, 1), precision=hp) / np.float32(math.sqrt(HEAD_DIM))
        causal = jnp.arange(L)[None, :] <= jnp.arange(L)[:, None]
        s = jnp.where(causal, s, -jnp.inf)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.matmul(p, v, precision=hp).transpose(1, 0, 2).reshape(L, HIDDEN)
        x2 = x + jnp.matmul(o, wo, precision=hp)
        return mlp_block(x2, ln2, wg, wu, wd)

    def decode(x, kc, vc, ln1, wq, wk, wv, wo, ln2, wg, wu, wd):
        h = rms(x, ln1)
        q = jnp.matmul(h, wq, precision=hp).reshape(HEADS, 1, HEAD_DIM)
        k = jnp.matmul(h, wk, precision=hp).reshape(1, HEADS, HEAD_DIM)
        v = jnp.matmul(h, wv, precision=hp).reshape(1, HEADS, HEAD_DIM)
        k2 = jnp.concatenate([kc, k], axis=0)
        v2 = jnp.concatenate([vc, v], axis=0)
        s = jnp.matmul(q, k2.transpose(1, 2, 0), precision=hp) * np.float32(0.125)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.matmul(p, v2.transpose(1, 0, 2), precision=hp).transpose(1, 0, 2).reshape(1, HIDDEN)
        x2 = x + jnp.matmul(o, wo, precision=hp)
        return mlp_block(x2, ln2, wg, wu, wd), k2, v2

    def decode_bucketed(x, kbuf, vbuf, length, ln1, wq, wk, wv, wo, ln2, wg, wu, wd):
        """The KV cache lives in a buffer of capacity B (a power of two >= L + 1); ``length`` (L) is
        traced; the new row is written at ``length`` and positions > L are masked with -inf."""
        h = rms(x, ln1)
        q = jnp.matmul(h, wq, precision=hp).reshape(HEADS, 1, HEAD_DIM)
        k = jnp.matmul(h, wk, precision=hp).reshape(1, HEADS, HEAD_DIM)
        v = jnp.matmul(h, wv, precision=hp).reshape(1, HEADS, HEAD_DIM)
        zero = jnp.zeros((), length.dtype)
        kbuf = lax.dynamic_update_slice(kbuf, k, (length, zero, zero))
        vbuf = lax.dynamic_update_slice(vbuf, v, (length, zero, zero))
        s = jnp.matmul(q, kbuf.transpose(1, 2, 0), precision=hp) * np.float32(0.125)
        s = jnp.where(jnp.arange(kbuf.shape[0])[None, None, :] <= length, s, -jnp.inf)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.matmul(p, vbuf.transpose(1, 0, 2), precision=hp).transpose(1, 0, 2).reshape(1, HIDDEN)
        x2 = x + jnp.matmul(o, wo, precision=hp)
        return mlp_block(x2, ln2, wg, wu, wd), kbuf, vbuf

    def conv(x, w):
        c = lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                     precision=hp)
        r = jnp.maximum(c, 0)
        return lax.reduce_window(r, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    return {"mlp": mlp, "prefill": prefill, "decode": decode, "decode_bucketed": decode_bucketed, "conv": conv}


# ---------------------------------------------------------------------------------------------------
# numpy
# ---------------------------------------------------------------------------------------------------


def numpy_functions() -> Dict[str, object]:
    from scipy.special import erf

    def mlp(x, w1, w2):
        h = x @ w1
        g = h * (0.5 + erf(h * np.float32(0.5 ** 0.5)).astype(np.float32) * np.float32(0.5))
        return g @ w2

    def rms(x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(1e-5)) * w

    def softmax(s):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def mlp_block(x2, ln2, wg, wu, wd):
        h2 = rms(x2, ln2)
        g = h2 @ wg
        return x2 + ((g / (1 + np.exp(-g))) * (h2 @ wu)) @ wd

    def prefill(x, ln1, wq, wk, wv, wo, ln2, wg, wu, wd):
        L = x.shape[0]
        h = rms(x, ln1)
        q, k, v = ((h @ w).reshape(L, HEADS, HEAD_DIM).transpose(1, 0, 2) for w in (wq, wk, wv))
        s = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(HEAD_DIM))
        s = np.where(np.arange(L)[None, :] <= np.arange(L)[:, None], s, -np.inf)
        o = (softmax(s) @ v).transpose(1, 0, 2).reshape(L, HIDDEN)
        return mlp_block(x + o @ wo, ln2, wg, wu, wd)

    def decode(x, kc, vc, ln1, wq, wk, wv, wo, ln2, wg, wu, wd):
        h = rms(x, ln1)
        q = (h @ wq).reshape(HEADS, 1, HEAD_DIM)
        k2 = np.concatenate([kc, (h @ wk).reshape(1, HEADS, HEAD_DIM)], axis=0)
        v2 = np.concatenate([vc, (h @ wv).reshape(1, HEADS, HEAD_DIM)], axis=0)
        p = softmax(q @ k2.transpose(1, 2, 0) * np.float32(0.125))
        o = (p @ v2.transpose(1, 0, 2)).transpose(1, 0, 2).reshape(1, HIDDEN)
        return mlp_block(x + o @ wo, ln2, wg, wu, wd), k2, v2

    def conv(x, w):
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = np.stack([xp[0, :, i:i + 56, j:j + 56] for i in range(3) for j in range(3)], axis=1)  # C,9,H,W
        c = (w.reshape(64, 64 * 9) @ cols.reshape(64 * 9, 56 * 56)).reshape(1, 64, 56, 56)
        r = np.maximum(c, 0)
        return r.reshape(1, 64, 28, 2, 28, 2).max(axis=(3, 5))

    return {"mlp": mlp, "prefill": prefill, "decode": decode, "conv": conv}


# ---------------------------------------------------------------------------------------------------
# TVM: legalized + fused modules (TensorIR path) and the TVM VM
# ---------------------------------------------------------------------------------------------------


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
        return True
    except Exception:  # noqa: BLE001 - any import failure means "not installed" here
        return False


def tvm_module(source: str):
    """The workload parsed by TVM."""
    import tvm  # noqa: F401
    from tvm.script import from_source

    body = "\n".join(line for line in source.splitlines() if not line.startswith(("from ", "import ")))
    return from_source(body)


def tvm_lowered_text(source: str) -> str:
    """TVM's ``LegalizeOps`` + ``AnnotateTIROpPattern`` + ``FuseOps`` + ``FuseTIR`` of the workload,
    printed as TVMScript (the module the executor's TensorIR path runs)."""
    import tvm
    from tvm import relax

    mod = tvm_module(source)
    seq = tvm.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(), relax.transform.FoldConstant(),
        relax.transform.FuseOps(), relax.transform.FuseTIR(), relax.transform.DeadCodeElimination(),
    ])
    text = seq(mod).script()
    # ``layout_free_placeholders`` block attributes (a scheduling hint naming buffers) are dropped:
    # relax-ref's parser accepts only constant attribute values, and the hint has no semantics
    return "\n".join(line for line in text.splitlines() if "layout_free_placeholders" not in line)


def tvm_vm(source: str):
    """``relax.build(target="llvm")`` of the workload and a VM on the CPU."""
    import tvm
    from tvm import relax

    mod = tvm_module(source)
    ex = relax.build(mod, target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())


__all__ = ["SOURCES", "MLP", "DECODER", "CONV", "mlp_weights", "decoder_weights", "conv_inputs", "jax_functions",
           "numpy_functions", "tvm_available", "tvm_module", "tvm_lowered_text", "tvm_vm", "HIDDEN", "HEADS",
           "HEAD_DIM", "FFN"]

"""Rotary position embedding (RoPE, "rotate half" form) computed inside the Relax program.

For head dimension ``d`` (even), frequencies ``inv_freq[i] = theta^(-2i/d)`` (``i < d/2``) and
positions ``p = offset, offset+1, ..., offset+n-1``, the angle table is
``emb[p] = concat(p * inv_freq, p * inv_freq)`` and

    rope(x)[..., p, :, :] = x * cos(emb[p]) + rotate_half(x) * sin(emb[p])
    rotate_half(x) = concat(-x[..., d/2:], x[..., :d/2])

with ``x`` laid out ``(batch, seq, heads, d)``. The positions start at ``offset`` -- the length of
the KV cache, usually a symbolic dimension -- so one program serves every decoding step. Everything is
built from scalar constants and ``R.arange`` (no tensor constants), so the program prints without
metadata.
"""

from __future__ import annotations

import math
from typing import Tuple

from ...builder import const, op
from ...builder._span import caller_span
from ...errors import StructInfoError
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir.struct_info import TensorStructInfo
from .core import Module, emit


def tensor_dims(e: rx.Expr, ndim: int, what: str) -> tuple:
    """The dimensions of a tensor expression of known rank ``ndim`` (StructInfoError otherwise)."""
    s = e.struct_info
    dims = s.shape_values if isinstance(s, TensorStructInfo) else None
    if dims is None or len(dims) != ndim:
        raise StructInfoError(f"{what}: expected a tensor of rank {ndim} with known dimensions, got {s}",
                              caller_span())
    return dims


def static_dim(d: P.PrimExpr, what: str) -> int:
    if not isinstance(d, P.IntImm):
        raise StructInfoError(f"{what} must be a static dimension, got {d}", caller_span())
    return d.value


class RotaryEmbedding(Module):
    """RoPE for heads of size ``head_dim`` with base ``theta`` (no parameters), applied to
    activations of ``dtype``: the angle table is computed in float32 and its cosine and sine rounded
    to ``dtype`` (as Hugging Face's Llama does for half-precision models)."""

    def __init__(self, head_dim: int, theta: float = 10000.0, dtype: str = "float32") -> None:
        if head_dim % 2:
            raise StructInfoError(f"rotary embedding needs an even head dimension, got {head_dim}", caller_span())
        self.head_dim = head_dim
        self.theta = float(theta)
        self.dtype = dtype

    def cos_sin(self, n: P.PrimExpr, offset: P.PrimExpr) -> Tuple[rx.Var, rx.Var]:
        """``cos(emb)`` and ``sin(emb)`` of shape ``(1, n, 1, head_dim)`` for positions
        ``offset .. offset+n-1``."""
        d, half = self.head_dim, self.head_dim // 2
        inv_freq = emit(op.exp(op.multiply(op.arange(0, half, 1, dtype="float32"),
                                           const(-2.0 * math.log(self.theta) / d, "float32"))))
        pos = emit(op.arange(offset, offset + n, 1, dtype="float32"))
        freqs = emit(op.multiply(op.expand_dims(pos, axis=1), op.expand_dims(inv_freq, axis=0)))
        table = emit(op.concat([freqs, freqs], axis=1))
        cos, sin = op.cos(table), op.sin(table)
        if self.dtype != "float32":     # the table in float32, rounded once to the activations' dtype
            cos, sin = op.astype(cos, self.dtype), op.astype(sin, self.dtype)
        return emit(op.reshape(cos, [1, n, 1, d])), emit(op.reshape(sin, [1, n, 1, d]))

    def apply(self, x: rx.Expr, cos: rx.Expr, sin: rx.Expr) -> rx.Var:
        """``x * cos + rotate_half(x) * sin`` for ``x`` of shape ``(batch, n, heads, head_dim)``."""
        dims = tensor_dims(x, 4, "rotary embedding input")
        if static_dim(dims[3], "rotary embedding head dimension") != self.head_dim:
            raise StructInfoError(f"rotary embedding for head dimension {self.head_dim} applied to {x.struct_info}",
                                  caller_span())
        half = self.head_dim // 2
        x1 = op.strided_slice(x, axes=[3], begin=[0], end=[half])
        x2 = op.strided_slice(x, axes=[3], begin=[half], end=[self.head_dim])
        rot = emit(op.concat([op.negative(x2), x1], axis=3))
        return emit(op.add(op.multiply(x, cos), op.multiply(rot, sin)))

    def forward(self, q: rx.Expr, k: rx.Expr, offset: P.PrimExpr = 0) -> Tuple[rx.Var, rx.Var]:
        """Rotate queries and keys (both ``(batch, n, heads, head_dim)``) for positions starting at
        ``offset``."""
        n = tensor_dims(q, 4, "rotary embedding query")[1]
        off = P.IntImm(offset, "int64") if isinstance(offset, int) else offset
        cos, sin = self.cos_sin(n, off)
        return self.apply(q, cos, sin), self.apply(k, cos, sin)


__all__ = ["RotaryEmbedding", "tensor_dims", "static_dim"]

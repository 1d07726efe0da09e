"""Linear, Embedding and RMSNorm: the stateless-shape building blocks of the module library.

Each ``forward`` takes Relax expressions whose leading dimensions may be symbolic (batch, sequence)
and emits into the active :class:`~relax_ref.builder.BlockBuilder` function, returning the bound
variable (which carries the inferred struct info).
"""

from __future__ import annotations

import math

from ...builder import op
from ...ir import expr as rx
from .core import Module, Parameter, emit


class Linear(Module):
    """``y = x @ weight (+ bias)`` with ``weight`` of shape ``(in_features, out_features)``;
    ``x``: ``(..., in_features)`` -> ``(..., out_features)`` (``R.matmul``, ``R.add``).
    Initial weights are N(0, 1/in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = False, dtype: str = "float32") -> None:
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter((in_features, out_features), dtype, "normal", 1.0 / math.sqrt(in_features))
        self.bias = Parameter((out_features,), dtype, "normal", 0.02) if bias else None

    def forward(self, x: rx.Expr) -> rx.Var:
        y = emit(op.matmul(x, self.weight.expr))
        if self.bias is not None:
            y = emit(op.add(y, self.bias.expr))
        return y


class Embedding(Module):
    """Row lookup ``weight[ids]``: ``ids`` of any shape (integer dtype) -> ``ids.shape + (dim,)``
    (``R.take`` along axis 0). Initial rows are N(0, 1)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, dtype: str = "float32") -> None:
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = Parameter((num_embeddings, embedding_dim), dtype, "normal", 1.0)

    def forward(self, ids: rx.Expr) -> rx.Var:
        return emit(op.take(self.weight.expr, ids, axis=0))


class RMSNorm(Module):
    """``x / sqrt(mean(x², axis=-1) + eps) * weight`` over the last axis (``R.nn.rms_norm``).
    Initial weights are 1 + N(0, 0.1²) so that the scale matters."""

    def __init__(self, dim: int, eps: float = 1e-5, dtype: str = "float32") -> None:
        self.dim = dim
        self.eps = float(eps)
        self.weight = Parameter((dim,), dtype, "ones_jitter", 0.1)

    def forward(self, x: rx.Expr) -> rx.Var:
        return emit(op.nn.rms_norm(x, self.weight.expr, axes=[-1], epsilon=self.eps))


__all__ = ["Linear", "Embedding", "RMSNorm"]

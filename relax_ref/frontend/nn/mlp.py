"""The SiLU-gated MLP of Llama-style models: ``down(silu(gate(x)) * up(x))``."""

from __future__ import annotations

from ...builder import op
from ...ir import expr as rx
from .core import Module, emit
from .layers import Linear


class GatedMLP(Module):
    """``x: (..., hidden)`` -> ``(..., hidden)`` through an ``intermediate``-wide SiLU gate
    (``R.nn.silu``, ``R.multiply``)."""

    def __init__(self, hidden_size: int, intermediate_size: int, dtype: str = "float32") -> None:
        self.gate_proj = Linear(hidden_size, intermediate_size, dtype=dtype)
        self.up_proj = Linear(hidden_size, intermediate_size, dtype=dtype)
        self.down_proj = Linear(intermediate_size, hidden_size, dtype=dtype)

    def forward(self, x: rx.Expr) -> rx.Var:
        gate = emit(op.nn.silu(self.gate_proj.forward(x)))
        return self.down_proj.forward(emit(op.multiply(gate, self.up_proj.forward(x))))


__all__ = ["GatedMLP"]

"""A small module library that emits Relax through :class:`relax_ref.builder.BlockBuilder`.

Modules: :class:`Linear`, :class:`Embedding`, :class:`RMSNorm`, :class:`RotaryEmbedding`,
:class:`Attention` (grouped-query, functional KV cache), :class:`GatedMLP` (SiLU-gated). Inputs may
have symbolic batch and sequence dimensions; weights are static-shaped :class:`Parameter`\\ s passed as
function parameters (:meth:`Module.bind_params`, :func:`build_function`) with seeded random values
(:meth:`Module.init_params`, :meth:`Module.param_arrays`).

Example::

    bb = BlockBuilder()
    mlp = GatedMLP(64, 128).init_params(seed=0)
    b, n = bb.sym_var("b"), bb.sym_var("n")
    x = var("x", Tensor((b, n, 64), "float32"))
    build_function(bb, "main", [x], mlp, mlp.forward)
    mod = bb.get()
    y = relax_ref.evaluate(mod, "main", x_value, *mlp.param_arrays())
"""

from __future__ import annotations

from .attention import Attention
from .core import Module, Parameter, build_function, emit
from .kv_cache import CacheObjects, KVCache
from .layers import Embedding, Linear, RMSNorm
from .mlp import GatedMLP
from .rotary import RotaryEmbedding

__all__ = [
    "Module", "Parameter", "build_function", "emit", "Linear", "Embedding", "RMSNorm", "RotaryEmbedding",
    "Attention", "GatedMLP", "KVCache", "CacheObjects",
]

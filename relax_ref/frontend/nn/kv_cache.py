"""KV-cache objects as TVM's ``relax.frontend.nn.KVCache`` writes them (CALL.KVCACHE.*).

A cache is an ``R.Object`` manipulated through TVM's runtime functions: :meth:`KVCache.create` emits
``R.call_pure_packed("vm.builtin.attention_kv_cache_create", zeros, reserve, 0)``,
:func:`append` emits ``R.call_inplace_packed("vm.builtin.attention_kv_cache_append", cache, value,
inplace_indices=[0])`` (the cache mutated and returned) and :func:`view` emits
``R.call_pure_packed("vm.builtin.attention_kv_cache_view", cache, shape)`` for the whole cached
sequence. :class:`CacheObjects` is what ``Attention.forward`` takes instead of a pair of cache tensors:
the key and value caches of one layer and the total sequence length after the new tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...builder import Object, Tensor, op, prim_value, shape
from ...ir import expr as rx
from ...ir import prim_expr as P
from .core import emit

PREFIX = "vm.builtin.attention_kv_cache_"


class KVCache:
    """A cache of rows of shape ``unit_shape`` (``(kv_heads, head_dim)``), ``reserve`` rows preallocated."""

    def __init__(self, reserve: int, unit_shape: Sequence[int], dtype: str = "float32") -> None:
        self.reserve = int(reserve)
        self.unit_shape = [int(u) for u in unit_shape]
        self.dtype = dtype

    def create(self, name_hint: str = "") -> rx.Var:
        """CALL.KVCACHE.1: an empty cache (fill count 0) of ``reserve`` rows."""
        dims = shape([self.reserve, *self.unit_shape])
        return emit(op.call_pure_packed(PREFIX + "create", op.zeros(dims, self.dtype), dims, prim_value(0),
                                        sinfo_args=Object()), name_hint)


def append(cache: rx.Expr, value: rx.Expr) -> rx.Var:
    """CALL.KVCACHE.2: ``value``'s rows appended; the cache itself, mutated."""
    return emit(op.call_inplace_packed(PREFIX + "append", cache, value, inplace_indices=[0], sinfo_args=Object()))


def view(cache: rx.Expr, length: P.PrimExpr, unit_shape: Sequence[int], dtype: str) -> rx.Var:
    """CALL.KVCACHE.5: the ``length`` cached rows (checked at run time to be all of them)."""
    dims = [length, *unit_shape]
    return emit(op.call_pure_packed(PREFIX + "view", cache, shape(dims), sinfo_args=Tensor(dims, dtype)))


@dataclass(frozen=True)
class CacheObjects:
    """One layer's key and value caches and the total sequence length once the new tokens are in."""

    k: rx.Expr
    v: rx.Expr
    total: P.PrimExpr


__all__ = ["KVCache", "CacheObjects", "append", "view"]

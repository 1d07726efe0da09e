"""Causal multi-head attention with grouped-query KV heads and a functional KV cache.

``Attention.forward(x, cache)`` with ``x: (b, n, hidden)`` and ``cache = (k_cache, v_cache)`` of shape
``(b, m, kv_heads, head_dim)`` (or ``None`` for an empty cache) returns ``(out, k_all, v_all)``:
``out: (b, n, hidden)`` and the extended cache ``(b, m + n, kv_heads, head_dim)``. Query positions are
``m .. m+n-1`` (rotary embedding offset ``m``); query ``i`` attends to keys ``j <= m + i``
(``R.nn.attention`` with ``causal_mask="BottomRight"``, OP.nn.attention.C5). With ``cache`` a
:class:`~relax_ref.frontend.nn.kv_cache.CacheObjects` (KV-cache objects as TVM's nn frontend keeps them,
batch 1) the new keys and values are appended to the objects, the whole caches viewed, and the
returned caches are the objects.

Grouped-query attention: ``num_heads`` is a multiple of ``num_kv_heads``; query head ``h`` uses KV head
``h // (num_heads / num_kv_heads)``. The KV heads are expanded with ``R.repeat`` (each repeated
consecutively, the grouping above) before ``R.nn.attention``, because TVM's attention kernel supports
only equal head counts.

When the key length is a compound expression (``m + n``), the extended cache tensors are
``match_cast`` to a fresh symbolic length ``kv_len`` before the heads are expanded: TVM 0.25's attention
legalization requires the key and value lengths to be the *same object* (its batch-matmul asserts
``XK == YK`` by reference). The cast is checked at run time and does not change values. It is applied
to the returned cache tensors (not to temporaries) because TVM 0.25's ``StaticPlanBlockMemory`` does not
treat a ``match_cast`` as a use of its source and may hand the source's storage to a later tensor while
the cast variable is still live (a silent wrong result; fixed in TVM after 0.25). A caller that drops
the returned caches can still meet that TVM bug; relax-ref and the JAX executor are unaffected.
"""

from __future__ import annotations

from typing import Optional, Tuple, Union

from ...builder import BlockBuilder, Tensor, op, sym_var
from ...builder._span import caller_span
from ...errors import StructInfoError
from ...ir import expr as rx
from ...ir import prim_expr as P
from .core import Module, emit
from .kv_cache import CacheObjects
from .kv_cache import append as kv_append
from .kv_cache import view as kv_view
from .layers import Linear
from .rotary import RotaryEmbedding, static_dim, tensor_dims


class Attention(Module):
    """Projections ``q_proj, k_proj, v_proj, o_proj`` (no bias) and a rotary embedding."""

    def __init__(self, hidden_size: int, num_heads: int, num_kv_heads: Optional[int] = None,
                 head_dim: Optional[int] = None, rope_theta: float = 10000.0, dtype: str = "float32") -> None:
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        if num_heads % num_kv_heads:
            raise StructInfoError(f"num_heads {num_heads} is not a multiple of num_kv_heads {num_kv_heads}",
                                  caller_span())
        head_dim = hidden_size // num_heads if head_dim is None else head_dim
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim
        self.q_proj = Linear(hidden_size, num_heads * head_dim, dtype=dtype)
        self.k_proj = Linear(hidden_size, num_kv_heads * head_dim, dtype=dtype)
        self.v_proj = Linear(hidden_size, num_kv_heads * head_dim, dtype=dtype)
        self.o_proj = Linear(num_heads * head_dim, hidden_size, dtype=dtype)
        self.rope = RotaryEmbedding(head_dim, rope_theta, dtype)
        self.dtype = dtype

    def _heads(self, y: rx.Expr, b, n, heads: int) -> rx.Var:
        return emit(op.reshape(y, [b, n, heads, self.head_dim]))

    def _check_cache(self, c: rx.Expr, what: str) -> P.PrimExpr:
        dims = tensor_dims(c, 4, what)
        if static_dim(dims[2], f"{what} heads") != self.num_kv_heads or \
                static_dim(dims[3], f"{what} head dimension") != self.head_dim:
            raise StructInfoError(f"{what} must have shape (batch, length, {self.num_kv_heads}, {self.head_dim}), "
                                  f"got {c.struct_info}", caller_span())
        return dims[1]

    def forward(self, x: rx.Expr, cache: Optional[Union[Tuple[rx.Expr, rx.Expr], CacheObjects]] = None
                ) -> Tuple[rx.Var, rx.Var, rx.Var]:
        b, n, hid = tensor_dims(x, 3, "attention input")
        if static_dim(hid, "attention hidden size") != self.hidden_size:
            raise StructInfoError(f"attention for hidden size {self.hidden_size} applied to {x.struct_info}",
                                  caller_span())
        q = self._heads(self.q_proj.forward(x), b, n, self.num_heads)
        k = self._heads(self.k_proj.forward(x), b, n, self.num_kv_heads)
        v = self._heads(self.v_proj.forward(x), b, n, self.num_kv_heads)
        if isinstance(cache, CacheObjects):
            return self._forward_objects(x, q, k, v, cache, b, n)
        offset: P.PrimExpr = P.IntImm(0, "int64")
        if cache is not None:
            offset = self._check_cache(cache[0], "key cache")
            self._check_cache(cache[1], "value cache")
        q, k = self.rope.forward(q, k, offset)
        if cache is not None:
            k = emit(op.concat([cache[0], k], axis=1))
            v = emit(op.concat([cache[1], v], axis=1))
        k_all, v_all = k, v
        kv_len = tensor_dims(k, 4, "keys")[1]
        if not isinstance(kv_len, (P.PrimVar, P.IntImm)):
            t = sym_var("kv_len")
            bb = BlockBuilder.current()
            k = bb.match_cast(k, Tensor((b, t, self.num_kv_heads, self.head_dim), self.dtype))
            v = bb.match_cast(v, Tensor((b, t, self.num_kv_heads, self.head_dim), self.dtype))
        return self._attend(q, k, v, b, n), k_all, v_all

    def _attend(self, q, k, v, b, n) -> rx.Var:
        group = self.num_heads // self.num_kv_heads
        if group > 1:
            k = emit(op.repeat(k, group, axis=2))
            v = emit(op.repeat(v, group, axis=2))
        o = emit(op.nn.attention(q, k, v, causal_mask="BottomRight"))
        o = emit(op.reshape(o, [b, n, self.num_heads * self.head_dim]))
        return self.o_proj.forward(o)

    def _forward_objects(self, x, q, k, v, cache: CacheObjects, b, n) -> Tuple[rx.Var, rx.Var, rx.Var]:
        """KV-cache objects (batch 1): the new rows appended, the whole cache viewed (CALL.KVCACHE.*);
        returns the output and the (mutated) cache objects."""
        if not (isinstance(b, P.IntImm) and b.value == 1):
            raise StructInfoError(f"KV-cache objects hold one sequence: batch must be 1, got {x.struct_info}",
                                  caller_span())
        total = cache.total
        q, k = self.rope.forward(q, k, total - n)
        unit = [self.num_kv_heads, self.head_dim]
        kc = kv_append(cache.k, emit(op.reshape(k, [n, *unit])))
        vc = kv_append(cache.v, emit(op.reshape(v, [n, *unit])))
        k = emit(op.reshape(kv_view(kc, total, unit, self.dtype), [1, total, *unit]))
        v = emit(op.reshape(kv_view(vc, total, unit, self.dtype), [1, total, *unit]))
        return self._attend(q, k, v, b, n), kc, vc


__all__ = ["Attention"]

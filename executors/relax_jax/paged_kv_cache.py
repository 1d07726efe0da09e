"""TVM's paged KV cache in the executor (CALL.PAGEDKV.*): the reference's rules
(:class:`relax_ref.interp.paged_kv_cache.PagedOps`, the bookkeeping of
:class:`relax_ref.interp.paged_state.PagedState`, the formulas of
:mod:`relax_ref.interp.paged_attention`) over a preallocated JAX page pool.

The pool is one device array per cache, allocated at ``create`` with every page of the capacity.
Each layer's attention is one compiled kernel that writes the new keys/values into their page slots
and attends over the gathered history; the pool is donated to it, so XLA updates the pages in place.
The page table, the token positions and the history lengths reach the kernel as traced integer
arrays padded to power-of-two buckets (tokens, sequences, history length): one compilation serves
every step of a generation within a bucket. The sequence functions only change the host-side
bookkeeping (and copy a partial page at a fork, in place). The functions run on the host (a
function that calls them is run in host mode; a paged cache never enters a traced function).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Dict, List, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.interp import paged_attention as pa
from relax_ref.interp.paged_kv_cache import PagedConfig, PagedOps, arity_checked
from relax_ref.interp.paged_state import PREFIX, ForwardPlan
from relax_ref.values import PrimScalar

from .errors import NeedsExact
from .prim_jax import is_static
from .values import PackedV, PrimV, ShapeV, TVal


def _bucket(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


@partial(jax.jit, static_argnames=("hq", "hkv", "mode", "scale", "theta"), donate_argnums=(0,))
def _forward_kernel(pool, layer, qkv, write, pos, seq, hist, hist_len, sm, *, hq, hkv, mode, scale, theta):
    q, k, v = pa.split_qkv(qkv, hq, hkv)
    keys = pa.stored_keys(jnp, k, pos, mode, scale, theta)
    pool = pool.at[layer, 0, write].set(keys).at[layer, 1, write].set(v.astype(pool.dtype))
    pages = pool[layer]
    out = pa.attend(jnp, q, pages[0][hist], pages[1][hist], pos, seq, hist_len, mode, scale, theta, sm)
    return pool, out


@partial(jax.jit, static_argnames=("n",), donate_argnums=(0,))
def _copy_kernel(pool, src, dst, *, n):
    rows = lax.dynamic_slice_in_dim(pool, src, n, axis=2)
    return lax.dynamic_update_slice_in_dim(pool, rows, dst, axis=2)


def _forward(pool: Any, layer: int, qkv: Any, plan: ForwardPlan, cfg: PagedConfig, sm: float) -> Tuple[Any, Any]:
    scratch = cfg.num_pages * cfg.page_size
    t, (b, length) = plan.tokens, plan.hist.shape
    tp, bp, lp = _bucket(t), _bucket(b), _bucket(length)
    hist = np.full((bp, lp), scratch, np.int32)
    hist[:b, :length] = plan.hist
    hist_len = np.zeros(bp, np.int32)
    hist_len[:b] = (plan.hist < scratch).sum(axis=1)

    def pad(a: np.ndarray, fill: int) -> np.ndarray:
        return np.concatenate([a.astype(np.int32), np.full(tp - t, fill, np.int32)])
    qkv = jnp.asarray(qkv)
    if tp > t:
        qkv = jnp.pad(qkv, [(0, tp - t), (0, 0), (0, 0)])
    pool, out = _forward_kernel(pool, jnp.int32(layer), qkv, pad(plan.write, scratch), pad(plan.pos, 0),
                                pad(plan.seq, 0), hist, hist_len, jnp.float32(sm), hq=cfg.num_qo_heads,
                                hkv=cfg.num_kv_heads, mode=cfg.rope_mode, scale=cfg.rope_scale, theta=cfg.rope_theta)
    return pool, out[:t]


def _read(pool: Any, slots: np.ndarray) -> Tuple[Any, Any]:
    idx = jnp.asarray(slots.astype(np.int32))
    return pool[:, 0][:, idx], pool[:, 1][:, idx]


JAX_PAGED = PagedOps(lambda shape, dtype: jnp.zeros(shape, dtype),
                     lambda pool, src, dst, n: _copy_kernel(pool, jnp.int32(src), jnp.int32(dst), n=n),
                     _forward, _read)


def _arg(v: Any) -> Any:
    """An executor value as the rules take it (host mode: every value is concrete)."""
    if isinstance(v, TVal):
        if v.padded:
            raise NeedsExact("a paged KV-cache function on a padded tensor")
        return v.data
    if isinstance(v, ShapeV):
        return tuple(int(d.val) for d in v)
    if isinstance(v, PrimV):
        val = v.val if is_static(v.val) else np.asarray(v.val).item()
        return PrimScalar(val, v.dtype)
    if isinstance(v, tuple):
        return tuple(_arg(x) for x in v)
    return v


def _native(name: str, rule: Any, dps: int = 0) -> PackedV:
    checked = arity_checked(name, rule)

    def run(walker: Any, args: List[Any], call: Any) -> Any:
        r = checked(*[_arg(a) for a in args])
        if dps:                                 # the destination tensors are the last ``dps`` arguments
            values = (r,) if dps == 1 else r
            for box, value in zip(args[len(args) - dps:], values):
                walker.mutate(box, value)
            return None
        if r is None:
            return None
        return walker._from_host(r, {})
    run.native = True
    return PackedV(name, run)


def paged_kv_cache_builtins() -> Dict[str, PackedV]:
    """The paged KV cache's functions of the executor."""
    dps = {PREFIX + "attention_kv_cache_attention_with_fused_qkv": 1, PREFIX + "attention_kv_cache_debug_get_kv": 2}
    return {name: _native(name, rule, dps.get(name, 0)) for name, rule in JAX_PAGED.methods().items()}


__all__ = ["JAX_PAGED", "paged_kv_cache_builtins"]

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
bookkeeping (and copy a partial page at a fork, in place).

**Caches as parameters.** A function that takes a paged cache (an ``R.Object`` parameter) while a
forward is open compiles as a whole, as a serving loop calls ``prefill`` and ``decode``: the host
keeps the bookkeeping (``kv_state_*``, ``begin_forward`` / ``end_forward`` around the call) and passes
the page pool (donated) and the open forward's plan (:class:`~relax_ref.interp.paged_state.ForwardPlan`:
write slots, positions, batch indices, history slots and lengths, padded to their buckets) as traced
arrays; each attention call of the function (:class:`TracedPaged`) writes its layer's pages and
attends in the compiled code, and the new pool is written back into the cache object after the
call. The compilation key holds the configuration, the pool's shape and the plan's buckets, so one
compilation serves every decode step of a generation within a history bucket. What the plan must
agree with -- the token count of each call's fused qkv and output -- is recorded while tracing and
checked on the host before the call (a mismatch runs the call in host mode, which reports the
reference's error before anything is donated). Any other paged function inside a compiled function,
or an attention call under traced control flow, makes the function run in host mode.
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

from .errors import NeedsExact, TraceAbort
from .prim_jax import is_static
from .values import PackedV, PrimV, ShapeV, TVal


def _bucket(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def _forward_body(pool, layer, qkv, write, pos, seq, hist, hist_len, sm, *, hq, hkv, mode, scale, theta, scratch):
    """One layer's forward (CALL.PAGEDKV.8): the new keys (rotated, CALL.PAGEDKV.9) and values written
    into their slots, then the attention over the gathered history. Padding tokens (slot ``scratch``)
    write zeros, so the scratch page never holds what a masked read could turn into a NaN."""
    q, k, v = pa.split_qkv(qkv, hq, hkv)
    keys = pa.stored_keys(jnp, k, pos, mode, scale, theta)
    real = (write != scratch)[:, None, None]
    zero = jnp.zeros((), pool.dtype)
    pool = pool.at[layer, 0, write].set(jnp.where(real, keys.astype(pool.dtype), zero))
    pool = pool.at[layer, 1, write].set(jnp.where(real, v.astype(pool.dtype), zero))
    pages = pool[layer]
    out = pa.attend(jnp, q, pages[0][hist], pages[1][hist], pos, seq, hist_len, mode, scale, theta, sm)
    return pool, out


_forward_kernel = jax.jit(_forward_body, static_argnames=("hq", "hkv", "mode", "scale", "theta", "scratch"),
                          donate_argnums=(0,))


@partial(jax.jit, static_argnames=("n",), donate_argnums=(0,))
def _copy_kernel(pool, src, dst, *, n):
    rows = lax.dynamic_slice_in_dim(pool, src, n, axis=2)
    return lax.dynamic_update_slice_in_dim(pool, rows, dst, axis=2)


def _buckets(state: Any) -> Tuple[int, int, int]:
    """The buckets of the open forward's token count, batch size and longest history."""
    batch = state.forward
    return (_bucket(sum(n for _, _, n in batch)), _bucket(len(batch)), _bucket(max(old + n for _, old, n in batch)))


def _padded_plan(plan: ForwardPlan, cfg: PagedConfig) -> List[np.ndarray]:
    """``[write, pos, seq, hist, hist_len]`` as int32 arrays padded to their buckets: padding tokens
    write the scratch slot at position 0 of batch entry 0, padding history reads the scratch slot."""
    scratch = cfg.num_pages * cfg.page_size
    t, (b, length) = plan.tokens, plan.hist.shape
    tp, bp, lp = _bucket(t), _bucket(b), _bucket(length)
    hist = np.full((bp, lp), scratch, np.int32)
    hist[:b, :length] = plan.hist
    hist_len = np.zeros(bp, np.int32)
    hist_len[:b] = (plan.hist < scratch).sum(axis=1)

    def pad(a: np.ndarray, fill: int) -> np.ndarray:
        return np.concatenate([a.astype(np.int32), np.full(tp - t, fill, np.int32)])
    return [pad(plan.write, scratch), pad(plan.pos, 0), pad(plan.seq, 0), hist, hist_len]


def _statics(cfg: PagedConfig) -> Dict[str, Any]:
    return dict(hq=cfg.num_qo_heads, hkv=cfg.num_kv_heads, mode=cfg.rope_mode, scale=cfg.rope_scale,
                theta=cfg.rope_theta, scratch=cfg.num_pages * cfg.page_size)


def _forward(pool: Any, layer: int, qkv: Any, plan: ForwardPlan, cfg: PagedConfig, sm: float) -> Tuple[Any, Any]:
    t = plan.tokens
    write, pos, seq, hist, hist_len = _padded_plan(plan, cfg)
    qkv = jnp.asarray(qkv)
    if write.shape[0] > t:
        qkv = jnp.pad(qkv, [(0, write.shape[0] - t), (0, 0), (0, 0)])
    pool, out = _forward_kernel(pool, jnp.int32(layer), qkv, write, pos, seq, hist, hist_len, jnp.float32(sm),
                                **_statics(cfg))
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


# -- a paged cache as a parameter of a compiled function ---------------------------------------------------

ATTENTION = PREFIX + "attention_kv_cache_attention_with_fused_qkv"
#: the arrays a cache parameter passes: the pool, then the padded plan (``_padded_plan``)
PAGED_INPUTS = 6


class TracedPaged:
    """A paged cache parameter inside a compiled function: its configuration, ``data`` the traced
    page pool, the traced plan arrays, ``path`` the parameter's position and ``rows`` the token counts
    (ints, or expressions over the entry's symbolic variables) its attention calls need the open
    forward to have."""

    __slots__ = ("config", "data", "plan", "path", "rows")

    def __init__(self, config: PagedConfig, data: Any, plan: List[Any]) -> None:
        self.config, self.data, self.plan = config, data, plan
        self.path: tuple = ()
        self.rows: List[Any] = []

    def __repr__(self) -> str:
        return f"TracedPaged({tuple(self.data.shape)}, {self.data.dtype})"


def is_ready(cache: Any) -> bool:
    """Whether a call can pass ``cache`` to a compiled function: a paged cache on the device with a
    forward open (otherwise host mode decides, and reports what is wrong)."""
    return isinstance(cache.pool, jax.Array) and cache.state.forward is not None


def static_fact(cache: Any) -> tuple:
    """The cache's part of a compilation key."""
    return ("paged", cache.config, tuple(cache.pool.shape), str(cache.pool.dtype), _buckets(cache.state))


def arg_specs(cache: Any) -> List[Any]:
    tp, bp, lp = _buckets(cache.state)
    i32 = np.dtype(np.int32)
    return [jax.ShapeDtypeStruct(tuple(cache.pool.shape), cache.pool.dtype)] + \
        [jax.ShapeDtypeStruct((tp,), i32)] * 3 + [jax.ShapeDtypeStruct((bp, lp), i32), jax.ShapeDtypeStruct((bp,), i32)]


def flat_inputs(cache: Any) -> List[Any]:
    """The pool and the padded plan of the open forward."""
    return [cache.pool] + _padded_plan(cache.state.plan(ATTENTION[len(PREFIX):]), cache.config)


def paged_hot_inputs(cache: Any, fact: tuple, rows: Tuple[int, ...]) -> Any:
    """The compiled inputs of ``cache`` when it fits the compilation of key part ``fact`` and static token
    counts ``rows`` (the fast path, :mod:`relax_jax.kvhot`); None otherwise."""
    if not is_ready(cache) or static_fact(cache) != fact:
        return None
    tokens = sum(n for _, _, n in cache.state.forward)
    if any(r != tokens for r in rows):
        return None
    return flat_inputs(cache)


def rows_match(args: Any, records: List[Any], sym: Dict[Any, int], get_path: Any) -> bool:
    """Whether every paged cache of a call is passed once and its open forward has the token count its
    attention calls need (``records``: ``(path, rows)`` of a compilation)."""
    from relax_ref.arith.evaluate import eval_prim

    seen = set()
    for path, rows in records:
        cache = get_path(args, path)
        if id(cache) in seen:
            return False
        seen.add(id(cache))
        tokens = sum(n for _, _, n in cache.state.forward)
        for r in rows:
            if (r if isinstance(r, int) else int(eval_prim(r, sym))) != tokens:
                return False
    return True


def _fit(a: Any, n: int, fill: int) -> Any:
    """A traced plan array cut or padded (with ``fill``) to ``n`` entries along its first axis."""
    m = int(a.shape[0])
    if m >= n:
        return a[:n]
    return jnp.concatenate([a, jnp.full((n - m,) + tuple(a.shape[1:]), fill, a.dtype)])


def _rows(t: Any, what: str) -> Any:
    d = t.dim(0)
    if d.is_static:
        return int(d.val)
    if d.expr is None:
        raise TraceAbort(f"{ATTENTION}: {what} whose row count the host cannot know")
    return d.expr


def _traced_attention(walker: Any, args: List[Any]) -> None:
    """CALL.PAGEDKV.8 inside a compiled function: what the reference checks is static here (or
    recorded for the host); the layer's pages are written and attended over in the trace."""
    if len(args) != 5:
        raise TraceAbort(f"{ATTENTION} with {len(args)} arguments")
    c, layer, sm, qkv, out = args
    cfg = c.config
    if not isinstance(layer, PrimV) or not is_static(layer.val) or isinstance(layer.val, bool) or \
            not isinstance(layer.val, (int, np.integer)) or not isinstance(sm, PrimV) or \
            not cfg.layer_begin <= int(layer.val) < cfg.layer_begin + cfg.num_layers:
        raise TraceAbort(f"{ATTENTION}: a layer or scale the host checks")
    heads = (cfg.num_qo_heads + 2 * cfg.num_kv_heads, cfg.head_dim)
    for t, tail in ((qkv, heads), (out, (cfg.num_qo_heads, cfg.head_dim))):
        if not isinstance(t, TVal) or t.ndim != 3 or tuple(t.data.shape[1:]) != tail or str(t.data.dtype) != cfg.dtype \
                or (t.valid is not None and any(d is not None for d in t.valid[1:])):
            raise TraceAbort(f"{ATTENTION}: a tensor the host checks")
    c.rows += [_rows(qkv, "a fused qkv"), _rows(out, "an output")]
    n = int(qkv.data.shape[0])
    write, pos, seq, hist, hist_len = c.plan
    scratch = cfg.num_pages * cfg.page_size
    sm_val = jnp.asarray(sm.val, jnp.float32)
    c.data, o = _forward_body(c.data, jnp.int32(int(layer.val) - cfg.layer_begin), qkv.data, _fit(write, n, scratch),
                              _fit(pos, n, 0), _fit(seq, n, 0), hist, hist_len, sm_val, **_statics(cfg))
    walker.mutate(out, _fit(o, int(out.data.shape[0]), 0))


def _native(name: str, rule: Any, dps: int = 0) -> PackedV:
    checked = arity_checked(name, rule)

    def run(walker: Any, args: List[Any], call: Any) -> Any:
        if walker.traced:
            if name == ATTENTION and args and isinstance(args[0], TracedPaged) and walker.level == 0:
                _traced_attention(walker, args)
                return None
            raise TraceAbort(f"{name} in a compiled function", permanent=True)
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
    run.traceable = True
    return PackedV(name, run)


def paged_kv_cache_builtins() -> Dict[str, PackedV]:
    """The paged KV cache's functions of the executor."""
    dps = {PREFIX + "attention_kv_cache_attention_with_fused_qkv": 1, PREFIX + "attention_kv_cache_debug_get_kv": 2}
    return {name: _native(name, rule, dps.get(name, 0)) for name, rule in JAX_PAGED.methods().items()}


__all__ = ["JAX_PAGED", "TracedPaged", "PAGED_INPUTS", "paged_kv_cache_builtins", "is_ready", "static_fact",
           "arg_specs", "flat_inputs", "rows_match", "paged_hot_inputs"]

"""TVM's paged KV cache (``vm.builtin.paged_attention_kv_cache_create``, the ``vm.builtin.kv_state_*``
methods and the ``vm.builtin.attention_kv_cache_*`` methods of a paged cache; spec rules
CALL.PAGEDKV.1 to CALL.PAGEDKV.10).

A cache is a :class:`PagedKVCache`: its configuration (CALL.PAGEDKV.1), its bookkeeping
(:class:`~relax_ref.interp.paged_state.PagedState`) and a page pool of an array library
(:mod:`relax_ref.interp.paged_attention`). :class:`PagedOps` holds the rules over a backend (the
pool's allocation, page copy, the per-layer forward and reads): the reference's numpy backend below
mutates the pool in place; relax_jax's runs a compiled kernel on a donated pool. The kernels TVM's
``create`` takes as arguments are accepted and never called (CALL.PAGEDKV.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ..errors import ArityMismatchError, TypeMismatchError, UnsupportedError
from ..limits import check_alloc
from ..values import PrimScalar, ShapeValue, describe
from . import paged_attention as pa
from .kv_cache import arity_checked
from .paged_state import PREFIX, PagedState, paged_error

CREATE = PREFIX + "paged_attention_kv_cache_create"


@dataclass(frozen=True)
class PagedConfig:
    """CALL.PAGEDKV.1: the fixed parameters of a cache."""

    page_size: int
    layer_begin: int
    num_layers: int
    num_qo_heads: int
    num_kv_heads: int
    head_dim: int
    rope_mode: int
    rope_scale: float
    rope_theta: float
    dtype: str
    num_pages: int
    max_batch: int
    chunk: int

    def pool_shape(self) -> Tuple[int, ...]:
        return (self.num_layers, 2, (self.num_pages + 1) * self.page_size, self.num_kv_heads, self.head_dim)


class PagedKVCache:
    """A paged KV cache object (CALL.PAGEDKV.1), compared by identity."""

    __slots__ = ("config", "state", "pool")

    def __init__(self, config: PagedConfig, pool: Any) -> None:
        self.config = config
        self.state = PagedState(config.num_pages, config.page_size, config.max_batch, config.chunk)
        self.pool = pool

    def __repr__(self) -> str:
        c = self.config
        return (f"PagedKVCache(layers={c.num_layers}, pages={c.num_pages}x{c.page_size}, "
                f"heads={c.num_qo_heads}/{c.num_kv_heads}x{c.head_dim}, {c.dtype})")


# -- argument checks ---------------------------------------------------------------------------------------


def _int(v: Any, fn: str, what: str) -> int:
    if isinstance(v, PrimScalar):
        v = v.value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeMismatchError(f"{PREFIX}{fn}: {what} must be an integer, got {describe(v)}")
    return int(v)


def _float(v: Any, fn: str, what: str) -> float:
    if isinstance(v, PrimScalar):
        v = v.value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeMismatchError(f"{PREFIX}{fn}: {what} must be a number, got {describe(v)}")
    return float(v)


def _flag(v: Any, fn: str, what: str) -> bool:
    if isinstance(v, PrimScalar):
        v = v.value
    if not isinstance(v, (bool, int, np.bool_, np.integer)):
        raise TypeMismatchError(f"{PREFIX}{fn}: {what} must be a bool, got {describe(v)}")
    return bool(v)


def _shape(v: Any, fn: str, what: str) -> Tuple[int, ...]:
    if type(v) is ShapeValue:           # (its dimensions are Python ints, VAL.SHAPE.1)
        return v
    if not isinstance(v, (ShapeValue, tuple)) or not all(isinstance(d, (int, np.integer)) for d in v):
        raise TypeMismatchError(f"{PREFIX}{fn}: {what} must be a shape, got {describe(v)}")
    return tuple(int(d) for d in v)


def _is_tensor(v: Any) -> bool:
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, (ShapeValue, PagedKVCache))


def _tensor(v: Any, fn: str, what: str) -> Any:
    if not _is_tensor(v):
        raise TypeMismatchError(f"{PREFIX}{fn}: {what} must be a tensor, got {describe(v)}")
    return v


def _cache(v: Any, fn: str) -> PagedKVCache:
    if not isinstance(v, PagedKVCache):
        raise TypeMismatchError(f"{PREFIX}{fn} expects a paged KV cache, got {describe(v)}")
    return v


def parse_config(args: Tuple[Any, ...]) -> PagedConfig:
    """CALL.PAGEDKV.1: the configuration from ``create``'s 28 or 29 arguments."""
    fn = "paged_attention_kv_cache_create"
    if len(args) not in (28, 29):
        raise ArityMismatchError(f"{CREATE} expects 28 or 29 arguments, got {len(args)}")
    cfg = _shape(args[0], fn, "the cache configuration")
    if len(cfg) not in (5, 6):
        raise paged_error(fn, f"the cache configuration {list(cfg)} must have 5 or 6 entries")
    max_batch, capacity, chunk, page, sliding = cfg[:5]
    indptr = _shape(args[1], fn, "the layer partition")
    if len(indptr) != 2 or not 0 <= indptr[0] < indptr[1]:
        raise paged_error(fn, f"the layer partition {list(indptr)} must be [begin, end) of one group")
    hq, hkv, dqk, dv = (_int(args[i], fn, w) for i, w in
                        ((2, "the query head count"), (3, "the key/value head count"),
                         (4, "the key head dimension"), (5, "the value head dimension")))
    kinds = _shape(args[6], fn, "the attention kinds")
    transfer = _flag(args[7], fn, "the KV transfer switch")
    mode = _int(args[8], fn, "the rope mode")
    scale, theta = _float(args[9], fn, "the rope scale"), _float(args[10], fn, "the rope theta")
    init = _tensor(args[12], fn, "the dtype witness")
    for v, what in ((max_batch, "the sequence count"), (capacity, "the token capacity"),
                    (chunk, "the prefill chunk size"), (page, "the page size"), (hq, "the query heads"),
                    (hkv, "the key/value heads"), (dqk, "the head dimension")):
        if v < 1:
            raise paged_error(fn, f"{what} must be positive, got {v}")
    if hq % hkv:
        raise paged_error(fn, f"{hq} query heads are not a multiple of {hkv} key/value heads")
    if mode not in (pa.ROPE_NONE, pa.ROPE_NORMAL, pa.ROPE_INLINE):
        raise paged_error(fn, f"the rope mode {mode} is not 0 (none), 1 (normal) or 2 (inline)")
    if mode != pa.ROPE_NONE and dqk % 2:
        raise paged_error(fn, f"rope needs an even head dimension, got {dqk}")
    if len(kinds) < indptr[1]:
        raise paged_error(fn, f"{len(kinds)} attention kinds for layers up to {indptr[1]}")
    unsupported = [(dqk != dv, "a value head dimension other than the key's (MLA)"),
                   (any(k != 0 for k in kinds), "attention kinds other than 0 (MHA)"),
                   (bool(sliding), "the sliding window"), (transfer, "KV transfer"),
                   (_is_tensor(args[11]), "rope extension factors")]
    for bad, what in unsupported:
        if bad:
            raise UnsupportedError(f"{CREATE}: {what} is not specified")
    pages = -(-capacity // page) + 1
    return PagedConfig(page, indptr[0], indptr[1] - indptr[0], hq, hkv, dqk, mode, scale, theta,
                       str(init.dtype), pages, max_batch, chunk)


class PagedOps:
    """The rules of CALL.PAGEDKV.* over a backend: ``zeros(shape, dtype)``, ``copy(pool, src, dst, n)``
    (slots ``[dst, dst + n)`` := ``[src, src + n)``, flat), ``forward(pool, layer, qkv, plan, config,
    sm_scale)`` -> ``(pool, out)``, ``read(pool, slots)`` -> ``(k, v)`` of shape (layers, n, hkv, D)."""

    def __init__(self, zeros: Callable, copy: Callable, forward: Callable, read: Callable) -> None:
        self.zeros, self.copy, self.forward, self.read = zeros, copy, forward, read

    def create(self, *args: Any) -> PagedKVCache:
        cfg = parse_config(args)
        check_alloc(cfg.pool_shape(), cfg.dtype, None, f"{CREATE}: the page pool")   # RUNTIME.LIMIT.1/3
        return PagedKVCache(cfg, self.zeros(cfg.pool_shape(), cfg.dtype))

    def _copy(self, c: PagedKVCache, copy: Any) -> None:
        if copy is not None:
            src, dst, n = copy
            p = c.config.page_size
            c.pool = self.copy(c.pool, src * p, dst * p, n)

    def add_sequence(self, cache: Any, seq: Any) -> None:
        _cache(cache, "kv_state_add_sequence").state.add(_int(seq, "kv_state_add_sequence", "the sequence id"))

    def remove_sequence(self, cache: Any, seq: Any) -> None:
        fn = "kv_state_remove_sequence"
        _cache(cache, fn).state.remove(_int(seq, fn, "the sequence id"))

    def fork_sequence(self, cache: Any, parent: Any, child: Any, pos: Any = -1) -> None:
        fn = "kv_state_fork_sequence"
        c = _cache(cache, fn)
        self._copy(c, c.state.fork(_int(parent, fn, "the parent id"), _int(child, fn, "the child id"),
                                   _int(pos, fn, "the fork position")))

    def popn(self, cache: Any, seq: Any, n: Any) -> None:
        fn = "kv_state_popn"
        c = _cache(cache, fn)
        self._copy(c, c.state.popn(_int(seq, fn, "the sequence id"), _int(n, fn, "the pop count")))

    def clear(self, cache: Any) -> None:
        _cache(cache, "kv_state_clear").state.clear()

    def begin_forward(self, cache: Any, seq_ids: Any, lengths: Any, tree: Any = None) -> None:
        fn = "kv_state_begin_forward"
        c = _cache(cache, fn)
        if tree is not None:
            raise UnsupportedError(f"{PREFIX}{fn}: token trees (the fourth argument) are not specified")
        c.state.begin(_shape(seq_ids, fn, "the sequence ids"), _shape(lengths, fn, "the append lengths"))

    def end_forward(self, cache: Any) -> None:
        _cache(cache, "kv_state_end_forward").state.end()

    def attention(self, cache: Any, layer: Any, sm_scale: Any, qkv: Any, out: Any) -> Any:
        """CALL.PAGEDKV.8: the output value; the caller writes it into ``out`` (DPS)."""
        fn = "attention_kv_cache_attention_with_fused_qkv"
        c = _cache(cache, fn)
        cfg = c.config
        lay, sm = _int(layer, fn, "the layer id"), _float(sm_scale, fn, "the softmax scale")
        qkv, out = _tensor(qkv, fn, "the fused qkv"), _tensor(out, fn, "the output")
        plan = c.state.plan(fn)
        if not cfg.layer_begin <= lay < cfg.layer_begin + cfg.num_layers:
            raise paged_error(fn, f"the layer {lay} is outside the cache's layers "
                                  f"[{cfg.layer_begin}, {cfg.layer_begin + cfg.num_layers})")
        want = (plan.tokens, cfg.num_qo_heads + 2 * cfg.num_kv_heads, cfg.head_dim)
        if tuple(qkv.shape) != want or str(qkv.dtype) != cfg.dtype:
            raise paged_error(fn, f"the fused qkv is {tuple(qkv.shape)} {qkv.dtype}, the forward needs "
                                  f"{want} {cfg.dtype}")
        o_want = (plan.tokens, cfg.num_qo_heads, cfg.head_dim)
        if tuple(out.shape) != o_want or str(out.dtype) != cfg.dtype:
            raise paged_error(fn, f"the output is {tuple(out.shape)} {out.dtype}, the forward needs "
                                  f"{o_want} {cfg.dtype}")
        c.pool, value = self.forward(c.pool, lay - cfg.layer_begin, qkv, plan, cfg, sm)
        return value

    def num_available_pages(self, cache: Any) -> PrimScalar:
        return PrimScalar(_cache(cache, "attention_kv_cache_get_num_available_pages").state.available(), "int64")

    def total_sequence_length(self, cache: Any) -> PrimScalar:
        return PrimScalar(_cache(cache, "attention_kv_cache_get_total_sequence_length").state.total_length(), "int64")

    def empty(self, cache: Any) -> PrimScalar:
        return PrimScalar(_cache(cache, "attention_kv_cache_empty").state.empty(), "bool")

    def query_positions(self, cache: Any) -> np.ndarray:
        fn = "attention_kv_cache_get_query_positions"
        return _cache(cache, fn).state.plan(fn).pos.astype(np.int32)

    def debug_get_kv(self, cache: Any, seq: Any, start: Any, end: Any, k: Any, v: Any) -> Tuple[Any, Any]:
        """CALL.PAGEDKV.10: the stored keys and values of ``[start, end)``; the caller writes them."""
        fn = "attention_kv_cache_debug_get_kv"
        c = _cache(cache, fn)
        cfg = c.config
        s, a, b = _int(seq, fn, "the sequence id"), _int(start, fn, "the start"), _int(end, fn, "the end")
        length = c.state.seq(fn, s)
        if not 0 <= a < b <= length:
            raise paged_error(fn, f"the range [{a}, {b}) is not a non-empty range of the sequence's {length} tokens")
        want = (cfg.num_layers, b - a, cfg.num_kv_heads, cfg.head_dim)
        for t, what in ((k, "keys"), (v, "values")):
            t = _tensor(t, fn, f"the {what} output")
            if tuple(t.shape) != want or str(t.dtype) != cfg.dtype:
                raise paged_error(fn, f"the {what} output is {tuple(t.shape)} {t.dtype}, the range needs "
                                      f"{want} {cfg.dtype}")
        return self.read(c.pool, c.state.slots(s, a, b))

    def methods(self) -> Dict[str, Callable]:
        """The functions by name, before the caller wraps the DPS ones."""
        m = {"kv_state_add_sequence": self.add_sequence, "kv_state_remove_sequence": self.remove_sequence,
             "kv_state_fork_sequence": self.fork_sequence, "kv_state_popn": self.popn,
             "kv_state_clear": self.clear, "kv_state_begin_forward": self.begin_forward,
             "kv_state_end_forward": self.end_forward,
             "attention_kv_cache_attention_with_fused_qkv": self.attention,
             "attention_kv_cache_get_num_available_pages": self.num_available_pages,
             "attention_kv_cache_get_total_sequence_length": self.total_sequence_length,
             "attention_kv_cache_empty": self.empty,
             "attention_kv_cache_get_query_positions": self.query_positions,
             "attention_kv_cache_debug_get_kv": self.debug_get_kv}
        out = {PREFIX + k: f for k, f in m.items()}
        out[CREATE] = self.create
        return out


# -- the reference's numpy backend ---------------------------------------------------------------------------


def _np_copy(pool: np.ndarray, src: int, dst: int, n: int) -> np.ndarray:
    pool[:, :, dst:dst + n] = pool[:, :, src:src + n]
    return pool


def _np_forward(pool: np.ndarray, layer: int, qkv: Any, plan: Any, cfg: PagedConfig, sm: float):
    q, k, v = pa.split_qkv(np.asarray(qkv), cfg.num_qo_heads, cfg.num_kv_heads)
    pool[layer, 0, plan.write] = pa.stored_keys(np, k, plan.pos, cfg.rope_mode, cfg.rope_scale, cfg.rope_theta)
    pool[layer, 1, plan.write] = v
    hist_len = (plan.hist < cfg.num_pages * cfg.page_size).sum(axis=1)
    out = pa.attend(np, q, pool[layer, 0][plan.hist], pool[layer, 1][plan.hist], plan.pos, plan.seq, hist_len,
                    cfg.rope_mode, cfg.rope_scale, cfg.rope_theta, sm)
    return pool, out


def _np_read(pool: np.ndarray, slots: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    return pool[:, 0][:, slots], pool[:, 1][:, slots]


NUMPY_PAGED = PagedOps(lambda shape, dtype: np.zeros(shape, dtype), _np_copy, _np_forward, _np_read)


def _reference_table() -> Dict[str, Callable]:
    funcs = dict(NUMPY_PAGED.methods())
    att, dbg = funcs[PREFIX + "attention_kv_cache_attention_with_fused_qkv"], funcs[PREFIX + "attention_kv_cache_debug_get_kv"]

    def attention(cache, layer, sm_scale, qkv, out):
        np.copyto(out, att(cache, layer, sm_scale, qkv, out))

    def debug_get_kv(cache, seq, start, end, k, v):
        kk, vv = dbg(cache, seq, start, end, k, v)
        np.copyto(k, kk)
        np.copyto(v, vv)

    funcs[PREFIX + "attention_kv_cache_attention_with_fused_qkv"] = attention
    funcs[PREFIX + "attention_kv_cache_debug_get_kv"] = debug_get_kv
    return {name: arity_checked(name, f) for name, f in funcs.items()}


PAGED_KV_FUNCS: Dict[str, Callable] = _reference_table()

__all__ = ["PagedConfig", "PagedKVCache", "PagedOps", "NUMPY_PAGED", "PAGED_KV_FUNCS", "parse_config", "arity_checked"]

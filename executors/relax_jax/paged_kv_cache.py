"""TVM's paged KV cache in the executor (CALL.PAGEDKV.*): the reference's rules
(:class:`relax_ref.interp.paged_kv_cache.PagedOps`, the bookkeeping of
:class:`relax_ref.interp.paged_state.PagedState`, the formulas of
:mod:`relax_ref.interp.paged_attention`) over a preallocated JAX page pool.

The pool is one device array per cache, allocated at ``create`` with every page of the capacity (a
function that only creates a cache runs in host mode, :func:`relax_jax.plan.allocates_only`; one that
creates a cache and computes compiles, the pool zeros in the compiled code).
Each layer's attention called on the host is one compiled kernel that writes the new keys/values
into their page slots and attends over the history read through the page table; the pool is
donated to it, so XLA updates the pages in place. The forward's plan reaches the kernel as traced
int32 arrays padded to power-of-two buckets (tokens, sequences, history length,
:func:`_plan_arrays`): each new token's slot, position and batch index, and each sequence's history
length and page table (and, in a compiled function, the runs of slots a forward of several tokens
fills; there a one-token forward passes one row, its sequence's and its token's slot,
:func:`plan_count`). One compilation serves every step of a generation within a bucket. The sequence
functions only change the host-side bookkeeping (and copy a partial page at a fork, in place).

**Caches as parameters.** A function that takes a paged cache (an ``R.Object`` parameter) while a
forward is open compiles as a whole, as a serving loop calls ``prefill`` and ``decode``: the host
keeps the bookkeeping (``kv_state_*``, ``begin_forward`` / ``end_forward`` around the call) and passes
the page pool (donated) and the open forward's plan as traced arrays; each attention call of the
function (:class:`TracedPaged`) writes its layer's pages and attends in the compiled code, and the
new pool is written back into the cache object after the call. The layer index of each call comes in
as a scalar argument of its own (:func:`layer_inputs`), not as a constant: every layer's attention is
then the same HLO up to its operands, and XLA compiles those kernels once instead of once per layer
(with constant indices, folded into each layer's slices and scatter indices, 16 layers compiled
about four times the kernels of the KV-cache style). The compilation key holds the
configuration, the pool's shape and the plan's buckets; the history's bucket is at least that of the
executable's ``reserve`` (``relax_jax.compile(reserve=n)``: the rows a sequence is declared to reach),
so one compilation serves every decode step of a generation up to it. What the plan must agree with
-- the token count of each call's fused qkv and output -- is recorded while tracing and checked on
the host before the call (a mismatch runs the call in host mode, which reports the reference's error
before anything is donated). Any other paged function inside a compiled function, or an attention
call under traced control flow, makes the function run in host mode.

Each attention call is a call of its own in the function's trace (:func:`_layer_call`: traced and
lowered once for all the layers) and takes the plain weighted sums of CALL.PAGEDKV.8; a forward that
stored a value that is not finite -- where those sums would let a masked value in -- sets the
function's error code at a site (:func:`recompute_on_host`) on which the executable computes the
call again in host mode, whose per-layer kernels take the exact sums. Where the call gives up an
argument to XLA (``donate_argnums``, or a consumed in-place argument under ``donate_inplace``), it
could not be computed again: the exact branch is compiled in instead.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Dict, List, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.errors import RelaxRuntimeError
from relax_ref.interp import paged_attention as pa
from relax_ref.interp.paged_kv_cache import CREATE, PagedConfig, PagedKVCache, PagedOps, arity_checked
from relax_ref.interp.paged_state import PREFIX, ForwardPlan
from relax_ref.values import PrimScalar, ShapeValue

from .errors import NeedsExact, TraceAbort
from .prim_jax import is_static
from .reductions import reduce_last, window_sums
from .transfer import filled
from .values import PackedV, PrimV, ShapeV, TVal


#: the position of a padding token: past every history
_PAD_POS = 1 << 30


def _bucket(n: int) -> int:
    return 1 << (int(n) - 1).bit_length() if n > 1 else 1


#: every slot of a plan (:func:`_plan_arrays`, :func:`_fit`) is one of the pool's, none negative: the pool's
#: gathers and scatters skip JAX's negative-index wrap and bounds handling, which XLA's CPU backend
#: otherwise computes per element inside the history read (half of its cost in a decode step)
_IN_BOUNDS = dict(mode="promise_in_bounds", wrap_negative_indices=False)


def _write_chunks(pool, layer, kv, chunks, page):
    """``kv`` (2, T, hkv, D) written into layer ``layer`` of the pool by the runs of ``chunks`` (3, C):
    run ``c`` puts its ``chunks[2, c]`` tokens from token ``chunks[1, c]`` on at slot ``chunks[0, c]``,
    within one page. Each run is a window of ``page`` slots read, its first rows replaced and written
    back (``dynamic_update_slice``), in one loop: the same kernels for every layer, which XLA compiles
    once, where a scatter is a kernel of its own per layer. A window never passes the pool's end (a
    run starts in a real page, the scratch page is last); an unused run (no tokens) rewrites the
    scratch page as it is."""
    kv = lax.pad(kv, np.zeros((), kv.dtype), [(0, 0, 0), (0, page, 0), (0, 0, 0), (0, 0, 0)])
    z = np.int32(0)
    window = (1, 2, page) + tuple(kv.shape[2:])
    keep_rows = np.arange(page, dtype=np.int32)[None, None, :, None, None]     # a constant (an iota: a kernel)

    def run(c, pool):
        dst, src, count = chunks[0, c], chunks[1, c], chunks[2, c]
        rows = lax.dynamic_slice(kv, (z, src, z, z), window[1:], allow_negative_indices=False)
        start = (layer, z, dst, z, z)
        old = lax.dynamic_slice(pool, start, window, allow_negative_indices=False)
        new = lax.select(lax.broadcast_in_dim(keep_rows < count, window, tuple(range(5))), rows[None], old)
        return lax.dynamic_update_slice(pool, new, start, allow_negative_indices=False)
    return lax.fori_loop(0, int(chunks.shape[1]), run, pool)


class _TracedControl:
    """``ctrl`` of :func:`relax_ref.interp.paged_attention.attend` in a trace: ``jax.lax``'s branch and
    loop, the row maximum and the exponentials' row sum in the windows of :mod:`relax_jax.reductions`
    (each first stage fused with the loop making its operand; the exponentials are no product)."""

    cond = staticmethod(lax.cond)
    map = staticmethod(lax.map)

    @staticmethod
    def max_last(x):
        return reduce_last("max", x, keepdims=True)

    @staticmethod
    def sum_last(x):
        return jnp.sum(window_sums(x), axis=-1, keepdims=True)


_TRACED = _TracedControl()


class _PlainSums(_TracedControl):
    """``ctrl`` of a compiled function's attention calls (:func:`_layer_call`): the plain weighted
    sums always, each branch's predicate -- whether a value the forward stored is not finite -- kept in
    ``flags`` for the function's error code (:func:`recompute_on_host`). The exact branch, a loop over
    the tokens, was up to half of the XLA compilation of a 16-layer prefill (XLA inlines each layer's);
    a forward that needs it is rare (a model that stores an infinity or a NaN) and is computed again
    on the host, whose per-layer kernels take the branch."""

    def __init__(self) -> None:
        self.flags: List[Any] = []

    def cond(self, pred, f, g, x):
        self.flags.append(pred)
        return g(x)


def recompute_on_host() -> RelaxRuntimeError:
    """The error-code site of a compiled function's attention call whose forward stored a value that is
    not finite (:class:`_PlainSums`): never an error the caller sees. The executable computes the call
    again in host mode, from the pool as the compiled call left it: every write of the forward lands in
    the same slot again, and each layer's attention reads only slots the forward does not write and
    the ones its own call has just written, so the result is the one the call would have given
    (CALL.PAGEDKV.8). A compilation makes the site only where nothing else the call consumes is lost to
    donation (:attr:`TracedPaged.recompute`)."""
    return RelaxRuntimeError(f"{ATTENTION}: a compiled forward stored a value that is not finite; "
                             "the call is computed again on the host")


def _forward_body(pool, layer, qkv, tok, seqs, sm, chunks=None, *, hq, hkv, mode, scale, theta, page, scratch,
                  ctrl=_TRACED):
    """One layer's forward (CALL.PAGEDKV.8) over the plan of :func:`_plan_arrays`: the new keys
    (rotated, CALL.PAGEDKV.9) and values written into their slots, then the attention over the
    history read through the page table (whole pages, :func:`_history`); ``ctrl``: the attention's
    control (:class:`_TracedControl`, or :class:`_PlainSums` in a compiled function).
    Padding tokens (slot ``scratch``, position ``_PAD_POS``) write zeros into the scratch page, or with
    ``chunks`` (the plan's runs of slots, :func:`_write_chunks`) nothing."""
    write, pos, seq = tok[0], tok[1], tok[2]
    hist_len, table = seqs[:, 0], seqs[:, 1:]
    q, k, v = pa.split_qkv(qkv, hq, hkv)
    keys = pa.stored_keys(jnp, k, pos, mode, scale, theta)
    if write.shape[0] == 1:     # one token (a decode step; never a padding token): its key and value as
        new_k, new_v = keys.astype(pool.dtype), v.astype(pool.dtype)        # one slice of the pool
        zero_i = jnp.zeros((), write.dtype)
        pool = lax.dynamic_update_slice(pool, jnp.stack([new_k, new_v])[None],
                                        (jnp.asarray(layer, write.dtype), zero_i, write[0], zero_i, zero_i),
                                        allow_negative_indices=False)
    else:
        real = (write != scratch)[:, None, None]
        zero = jnp.zeros((), pool.dtype)
        new_v = jnp.where(real, v.astype(pool.dtype), zero)
        new_k = jnp.where(real, keys.astype(pool.dtype), zero)
        if chunks is not None:
            pool = _write_chunks(pool, layer, jnp.stack([new_k, new_v]), chunks, page)
        else:
            # keys and values in one scatter: XLA's CPU backend compiles a kernel for every scatter
            # (identical ones are not shared, as fusions are), so two per layer doubled them
            pool = pool.at[layer, :, write].set(jnp.stack([new_k, new_v], axis=1), **_IN_BOUNDS)
    k_hist, v_hist = _history(pool, layer, table, hist_len, page)
    out = pa.attend(jnp, q, k_hist, v_hist, pos, seq, hist_len, mode, scale, theta, sm, new_v=new_v, ctrl=ctrl)
    return pool, out


def _history(pool, layer, table, hist_len, page):
    """The keys and values (B, pages * ``page``, hkv, D) of layer ``layer`` that the page table
    ``table`` (B, pages) reads, whole pages at a time; a value past its sequence's length (``hist_len``
    (B,)) reads as zero (the attention masks those keys, CALL.PAGEDKV.8, and a value there must be
    finite: a stale slot of the last page may hold anything).

    A gather of whole pages: XLA's CPU backend computes a gather's indices per element of its result
    and fuses the heads-major transpose of the attention's dot into it, so a gather of single slots
    (one index per row of ``hkv * D`` values) cost about five times the gather of the same rows as
    pages (one index per ``page`` rows)."""
    b, n = table.shape
    layers, _, slots = pool.shape[:3]
    tail = tuple(pool.shape[3:])
    pages = pool.reshape((layers, 2, slots // page, page) + tail)[layer]
    k_hist = pages[0].at[table].get(**_IN_BOUNDS).reshape((b, n * page) + tail)
    v_hist = pages[1].at[table].get(**_IN_BOUNDS).reshape((b, n * page) + tail)
    seen = (jnp.arange(n * page, dtype=hist_len.dtype)[None, :] < hist_len[:, None])[:, :, None, None]
    return k_hist, jnp.where(seen, v_hist, jnp.zeros((), v_hist.dtype))


_STATIC_NAMES = ("hq", "hkv", "mode", "scale", "theta", "page", "scratch")
_forward_kernel = jax.jit(_forward_body, static_argnames=_STATIC_NAMES, donate_argnums=(0,))


@partial(jax.jit, static_argnames=_STATIC_NAMES + ("recompute",))
def _layer_call(pool, layer, qkv, tok, seqs, sm, chunks, *, hq, hkv, mode, scale, theta, page, scratch, recompute):
    """One attention call inside a compiled function (:func:`_traced_attention`), a call of its own in
    the function's trace: JAX traces and lowers it once for all the layers of a model (their operands
    have the same types and the layer index is traced), where inlined, every layer traced the
    attention's few hundred operations again (about two thirds of a 16-layer prefill's trace and
    lowering). XLA
    inlines the calls, so the compiled code is the same. With ``recompute`` the plain sums
    (:class:`_PlainSums`) and whether a value the forward stored was not finite (None: no branch, a
    forward of one token)."""
    ctrl = _PlainSums() if recompute else _TRACED
    pool, out = _forward_body(pool, layer, qkv, tok, seqs, sm, chunks, hq=hq, hkv=hkv, mode=mode, scale=scale,
                              theta=theta, page=page, scratch=scratch, ctrl=ctrl)
    flags = getattr(ctrl, "flags", [])
    return pool, out, (jnp.any(jnp.stack(flags)) if flags else None)


@partial(jax.jit, static_argnames=("n",), donate_argnums=(0,))
def _copy_kernel(pool, src, dst, *, n):
    rows = lax.dynamic_slice_in_dim(pool, src, n, axis=2)
    return lax.dynamic_update_slice_in_dim(pool, rows, dst, axis=2)


def _history_bucket(longest: int, reserve: Optional[int]) -> int:
    """The bucket of a forward's longest history: at least the bucket of ``reserve``
    (``relax_jax.compile(reserve=...)``, the rows a sequence is declared to reach), so one compilation
    serves a generation's decode steps up to it."""
    return _bucket(reserve) if reserve is not None and longest <= reserve else _bucket(longest)


def _buckets(state: Any, reserve: Optional[int] = None) -> Tuple[int, int, int]:
    """The buckets of the open forward's token count, batch size and longest history
    (:func:`_history_bucket`)."""
    batch = state.forward
    if len(batch) == 1:                 # one sequence (a decode step, a single prefill)
        (_, old, tokens), = batch
        return _bucket(tokens), 1, _history_bucket(old + tokens, reserve)
    longest, tokens = max(old + n for _, old, n in batch), sum(n for _, _, n in batch)
    return _bucket(tokens), _bucket(len(batch)), _history_bucket(longest, reserve)


def _chunk_count(tp: int, bp: int, page: int) -> int:
    """The runs of a plan's chunk table (:func:`_plan_arrays`, several tokens): a sequence's ``n`` new
    tokens touch at most ``(n - 1) // page + 2`` pages."""
    return tp // page + 2 * bp


def _one_token(row: Any) -> Tuple[Any, Any]:
    """The plan's ``tok`` (3, 1) and ``seqs`` (1, 1 + pages) of a one-token forward from its row
    (:func:`_one_token_row`): the token is the sequence's last (position ``length - 1``), in the slot
    the row ends with, batch entry 0."""
    pos = row[0, 0] - 1
    return jnp.stack([row[0, -1], pos, jnp.zeros((), row.dtype)])[:, None], row[:, :-1]


def _slot(table: Any, pos: Any, page: int) -> Any:
    """The pool slot of position ``pos`` of a sequence whose page table is ``table`` (or of each
    position of an array of them, ``table`` an array)."""
    return table[pos // page] * page + pos % page


def _one_token_row(length: int, table: List[int], pad: List[int], page: int) -> np.ndarray:
    """A one-token forward's plan (:func:`_plan_arrays`): its sequence's length and page table, padded
    with the scratch page (``pad``: as many as the bucket's pages), and its token's slot."""
    pos = length - 1
    return np.array([[length] + table + pad[len(table):] + [_slot(table, pos, page)]], np.int32)


def _plan_arrays(state: Any, cfg: PagedConfig, buckets: Tuple[int, int, int]) -> List[np.ndarray]:
    """The open forward's plan as int32 arrays padded to ``buckets``: ``tok`` (3, tokens) the
    slot, position and batch index of each new token (padding tokens write the scratch slot, as batch
    entry 0), ``seqs`` (batch, 1 + pages) each sequence's history length
    followed by its page table (padding pages: the scratch page), and ``chunks`` (3, runs) the runs of
    consecutive slots within a page that the new tokens fill (first slot, first token, token count;
    unused runs: the scratch page, no tokens; :func:`_write_chunks`). A padding token's position is past
    every history (it lowers no sequence's first new position, CALL.PAGEDKV.8's masks). A one-token
    forward's plan is its ``seqs`` followed by its token's slot (:func:`plan_count`,
    :func:`_one_token_row`; the token's position read off it in the trace, :func:`_one_token`). Written
    from the bookkeeping directly (:meth:`~relax_ref.interp.paged_state.PagedState.plan` is the
    reference's)."""
    tp, bp, lp = buckets
    size, scratch_page = cfg.page_size, cfg.num_pages
    if tp == 1:                         # one sequence's one new token (a decode step): no runs, bp == 1
        (s, old, _), = state.forward
        return [_one_token_row(old + 1, state.tables[s], [scratch_page] * -(-lp // size), size)]
    tok = np.zeros((3, tp), np.int32)
    tok[0], tok[1] = scratch_page * size, _PAD_POS
    seqs = np.full((bp, 1 + -(-lp // size)), scratch_page, np.int32)
    seqs[:, 0] = 0
    chunks = np.zeros((3, _chunk_count(tp, bp, size)), np.int32)
    chunks[0] = scratch_page * size
    t = c = 0
    for b, (s, old, n) in enumerate(state.forward):
        table = state.tables[s]
        seqs[b, 1:1 + len(table)] = table
        seqs[b, 0] = old + n
        if n == 1:
            tok[0, t], tok[1, t], tok[2, t] = _slot(table, old, size), old, b
        else:
            p = np.arange(old, old + n)
            tok[0, t:t + n] = _slot(np.asarray(table), p, size)
            tok[1, t:t + n], tok[2, t:t + n] = p, b
        if tp > 1:
            p = old
            while p < old + n:
                count = min(size - p % size, old + n - p)
                chunks[:, c] = _slot(table, p, size), t + p - old, count
                p, c = p + count, c + 1
        t += n
    return [tok, seqs, chunks]


def _statics(cfg: PagedConfig) -> Dict[str, Any]:
    return dict(hq=cfg.num_qo_heads, hkv=cfg.num_kv_heads, mode=cfg.rope_mode, scale=cfg.rope_scale,
                theta=cfg.rope_theta, page=cfg.page_size, scratch=cfg.num_pages * cfg.page_size)


def _forward(pool: Any, layer: int, qkv: Any, plan: ForwardPlan, cfg: PagedConfig, sm: float) -> Tuple[Any, Any]:
    """One layer's call on the host (a compiled kernel): the reference's plan in the layout of
    :func:`_plan_arrays` (a page's first slot names the page)."""
    size, scratch = cfg.page_size, cfg.num_pages * cfg.page_size
    t, (b, length) = plan.tokens, plan.hist.shape
    tp, bp, npg = _bucket(t), _bucket(b), -(-_bucket(length) // size)
    tok = np.zeros((3, tp), np.int32)
    tok[0], tok[1] = scratch, _PAD_POS
    tok[:, :t] = plan.write, plan.pos, plan.seq
    seqs = np.full((bp, 1 + npg), cfg.num_pages, np.int32)
    seqs[:, 0] = 0
    seqs[:b, 0] = (plan.hist < scratch).sum(axis=1)
    seqs[:b, 1:1 + -(-length // size)] = plan.hist[:, ::size] // size
    qkv = jnp.asarray(qkv)
    if tp > t:
        qkv = jnp.pad(qkv, [(0, tp - t), (0, 0), (0, 0)])
    pool, out = _forward_kernel(pool, jnp.int32(layer), qkv, tok, seqs, jnp.float32(sm), **_statics(cfg))
    return pool, out[:t]


def _read(pool: Any, slots: np.ndarray) -> Tuple[Any, Any]:
    idx = jnp.asarray(slots.astype(np.int32))
    return pool[:, 0][:, idx], pool[:, 1][:, idx]


JAX_PAGED = PagedOps(lambda shape, dtype: filled(shape, 0, dtype),
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
#: the layer indices per layer count and device (:func:`layer_inputs`)
_LAYER_IDS: Dict[Any, List[Any]] = {}


def plan_count(cache: Any) -> int:
    """How many plan arrays a cache parameter passes (:func:`_plan_arrays`): one for a one-token forward
    (a decode step), three otherwise. A cache parameter passes its pool, its plan and one int32 scalar
    per layer (:func:`layer_inputs`)."""
    forward = cache.state.forward
    return 1 if len(forward) == 1 and forward[0][2] == 1 else 3


def input_count(cache: Any) -> int:
    """How many flat arguments a cache parameter passes (:func:`arg_specs`)."""
    return 1 + plan_count(cache) + cache.config.num_layers


def layer_inputs(cache: Any) -> List[Any]:
    """The layer indices ``0 .. num_layers - 1`` as int32 scalars on the pool's device (made once per
    device and layer count): arguments of the compiled function, so that no layer's kernels carry
    their index as a constant (see the module docstring)."""
    key = (cache.config.num_layers, cache.pool.sharding)
    ids = _LAYER_IDS.get(key)
    if ids is None:
        ids = _LAYER_IDS[key] = [jax.device_put(np.int32(i), cache.pool.sharding)
                                 for i in range(cache.config.num_layers)]
    return ids


class TracedPaged:
    """A paged cache parameter inside a compiled function: its configuration, ``data`` the traced
    page pool, the traced plan ``tok, seqs, chunks`` (a one-token forward passes one row, its ``seqs``
    and its token's slot: its ``tok`` is read off it here, once for all the layers, and it has no
    ``chunks``), ``layers`` the traced layer indices (:func:`layer_inputs`),
    ``path`` the parameter's position and ``rows`` the token counts (ints, or expressions over the
    entry's symbolic variables) its attention calls need the open forward to have; ``recompute``:
    whether a call may be computed again on the host (:func:`recompute_on_host`; otherwise each
    attention call of several tokens compiles its exact branch)."""

    __slots__ = ("config", "data", "plan", "layers", "path", "rows", "recompute")

    def __init__(self, config: PagedConfig, data: Any, plan: List[Any], layers: List[Any]) -> None:
        if len(plan) == 1:              # a one-token forward (plan_count)
            plan = [*_one_token(plan[0]), None]
        self.config, self.data, self.plan, self.layers = config, data, plan, layers
        self.path: tuple = ()
        self.rows: List[Any] = []
        self.recompute = False

    def __repr__(self) -> str:
        return f"TracedPaged({tuple(self.data.shape)}, {self.data.dtype})"


def is_ready(cache: Any) -> bool:
    """Whether a call can pass ``cache`` to a compiled function: a paged cache on the device with a
    forward open (otherwise host mode decides, and reports what is wrong)."""
    return isinstance(cache.pool, jax.Array) and cache.state.forward is not None


def static_fact(cache: Any, reserve: Optional[int] = None) -> tuple:
    """The cache's part of a compilation key (``reserve``: the executable's, see :func:`_buckets`)."""
    return ("paged", cache.config, tuple(cache.pool.shape), str(cache.pool.dtype), _buckets(cache.state, reserve))


def arg_specs(cache: Any, reserve: Optional[int] = None) -> List[Any]:
    tp, bp, lp = _buckets(cache.state, reserve)
    i32 = np.dtype(np.int32)
    seqs = jax.ShapeDtypeStruct((bp, 1 + -(-lp // cache.config.page_size)), i32)
    runs = _chunk_count(tp, bp, cache.config.page_size)
    # (a one-token forward: its row, the sequence's ``seqs`` and its token's slot, :func:`_one_token_row`)
    plan = [jax.ShapeDtypeStruct((1, seqs.shape[1] + 1), i32)] if tp == 1 else \
        [jax.ShapeDtypeStruct((3, tp), i32), seqs, jax.ShapeDtypeStruct((3, runs), i32)]
    return [jax.ShapeDtypeStruct(tuple(cache.pool.shape), cache.pool.dtype)] + plan + \
        [jax.ShapeDtypeStruct((), i32)] * cache.config.num_layers


def flat_inputs(cache: Any, reserve: Optional[int] = None) -> List[Any]:
    """The pool, the padded plan of the open forward (:func:`_plan_arrays`) and the layer indices."""
    return [cache.pool] + _plan_arrays(cache.state, cache.config, _buckets(cache.state, reserve)) + \
        layer_inputs(cache)


def paged_hot_inputs(cache: Any, fact: tuple, rows: Tuple[int, ...], reserve: Optional[int] = None) -> Any:
    """The pool and plan of ``cache`` (its compiled inputs but the layer indices) when it fits the
    compilation of key part ``fact`` and static token counts ``rows`` (the fast path,
    :mod:`relax_jax.kvhot`, which checks that the pool is a JAX array); None otherwise. The pool's
    shape and dtype are the compiled executable's to check (as a tensor argument's: ``TypeError``
    before anything runs)."""
    state, cfg = cache.state, cache.config
    forward = state.forward
    if forward is None:
        return None
    buckets = _buckets(state, reserve)
    if fact[4] != buckets or not (fact[1] is cfg or fact[1] == cfg):
        return None
    tokens = forward[0][2] if len(forward) == 1 else sum(n for _, _, n in forward)
    for r in rows:
        if r != tokens:
            return None
    return [cache.pool] + _plan_arrays(state, cfg, buckets)


def paged_hot_reader(fact: tuple, rows: Tuple[int, ...], reserve: Optional[int] = None) -> Any:
    """:func:`paged_hot_inputs` of one compilation (key part ``fact``, static token counts ``rows``) as
    a function of the cache. A one-token compilation (a decode step) reads the open forward directly:
    one sequence, one token, the history bucket of :func:`_buckets`, the plan row."""
    cfg, (tp, _, lp) = fact[1], fact[4]
    if tp != 1 or any(r != 1 for r in rows):
        return lambda cache: paged_hot_inputs(cache, fact, rows, reserve)
    page = cfg.page_size
    pad = [cfg.num_pages] * -(-lp // page)

    def read(cache: Any) -> Any:
        state = cache.state
        forward = state.forward
        if forward is None or len(forward) != 1 or not (cache.config is cfg or cache.config == cfg):
            return None
        (s, old, n), = forward
        if n != 1 or _history_bucket(old + 1, reserve) != lp:
            return None
        return [cache.pool, _one_token_row(old + 1, state.tables[s], pad, page)]
    return read


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
    tok, seqs, chunks = c.plan
    if int(tok.shape[1]) != n:          # the plan's token bucket against the fused qkv's rows
        tok = jnp.stack([_fit(tok[0], n, cfg.num_pages * cfg.page_size), _fit(tok[1], n, _PAD_POS), _fit(tok[2], n, 0)])
    sm_val = jnp.asarray(sm.val, jnp.float32)
    c.data, o, bad = _layer_call(c.data, c.layers[int(layer.val) - cfg.layer_begin], qkv.data, tok, seqs, sm_val,
                                 chunks, recompute=c.recompute, **_statics(cfg))
    if bad is not None:
        walker.sink_check(bad, recompute_on_host)
    walker.mutate(out, _fit(o, int(out.data.shape[0]), 0))


def _traced_create(checked: Any, args: List[Any]) -> PagedKVCache:
    """CALL.PAGEDKV.1 inside a compiled function: the configuration is static (shapes and integers
    known while tracing, the dtype witness's dtype), the pool is zeros in the compiled code, and the
    new cache leaves it as its pool (``pytree``: ``("PKVnew", config)``). Anything not static is
    decided on the host."""
    host = []
    for a in args:
        if isinstance(a, ShapeV) and all(d.is_static for d in a):
            host.append(ShapeValue([int(d.val) for d in a]))
        elif isinstance(a, PrimV) and is_static(a.val):
            host.append(PrimScalar(a.val.item() if isinstance(a.val, np.generic) else a.val, a.dtype))
        elif isinstance(a, TVal) and a.valid is None:
            host.append(jax.ShapeDtypeStruct(tuple(a.data.shape), a.data.dtype))    # read for its dtype
        else:
            raise TraceAbort(f"{CREATE} with an argument the host decides")
    return checked(*host)


def _native(name: str, rule: Any, dps: int = 0) -> PackedV:
    checked = arity_checked(name, rule)

    def run(walker: Any, args: List[Any], call: Any) -> Any:
        if walker.traced:
            if name == ATTENTION and args and isinstance(args[0], TracedPaged) and walker.level == 0:
                _traced_attention(walker, args)
                return None
            if name == CREATE and walker.level == 0:
                return _traced_create(checked, args)
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


__all__ = ["JAX_PAGED", "TracedPaged", "plan_count", "paged_kv_cache_builtins", "is_ready", "static_fact",
           "arg_specs", "flat_inputs", "rows_match", "paged_hot_inputs", "paged_hot_reader", "input_count",
           "layer_inputs", "recompute_on_host"]

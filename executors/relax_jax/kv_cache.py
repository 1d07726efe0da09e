"""TVM's attention KV-cache functions in the executor (CALL.KVCACHE.*): the reference's rules
(:class:`relax_ref.interp.kv_cache.KVCacheOps`) over JAX arrays.

A cache is the reference's :class:`~relax_ref.interp.kv_cache.AttentionKVCache` holding a JAX array:
a preallocated buffer of the reserved rows, written with ``lax.dynamic_update_slice`` at the fill
count (in place once XLA reuses the buffer). The functions run in both modes of the walker: eagerly in
host mode, and inside a trace when the fill counts are known while tracing (a cache created in the
traced function). A cache created in the traced function may be a result: it leaves the compiled code
as its buffer with its static fill count (``walker.flatten``), so a ``create_caches`` function is one
compilation, not host mode. A cache mutated inside traced control flow sends the call to host mode
(``TraceAbort``).

**Caches as parameters** (``R.Object`` parameters holding a cache). The compiled function receives the
buffer, the fill count and the window position as traced values (:class:`TracedKV`): the buffer's
capacity is part of the compilation key, the fill count is not, so one compilation serves every step
of a generation. While tracing, each append at a static offset ``d`` from the incoming fill count
records the rows it needs (``need``: ``d + n``); before each call the executor grows a cache whose
capacity (after any growth the trace itself made for a longer append) is below ``fill + need``
(doubling, CALL.KVCACHE.2; a new capacity is a new compilation; a program that creates its caches
with the rows of the whole generation never grows them; a call at a capacity not compiled yet that
must grow first is traced there, to learn ``need``, and compiled only at the new capacity) and
after it writes the new buffer into the same cache object (the call mutates it, as the reference's)
and adds the static delta to its fill count, so the host never reads the count back. The buffer is
donated to the call (XLA updates it in place). A view of a traced fill count is checked against the
requested shape by the host before the call (:class:`relax_jax.host_checks.ViewRows`; a check site
where the requested length is not known to the host). A length bound only by a shape argument (the decode
step's ``R.Shape([m])``) takes the caches' capacity as its bucket (``layouts.cache_tied_vars``): every
step of a generation within the capacity is the same compilation. Operations whose effect on the fill count is not static
(pop, clear, update, the sliding window, the one-argument view) run in host mode.
"""

from __future__ import annotations

from typing import Any, Dict, List

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.interp.kv_cache import AttentionKVCache, KVCacheOps, grown_rows, kv_error
from relax_ref.ir import prim_expr as P

from .errors import NeedsExact, TraceAbort
from .host_checks import ViewRows
from .laxops import astype
from .prim_jax import is_static
from .values import PackedV, PrimV, ShapeV, TVal


def _write(buf: Any, row: int, value: Any, n: int) -> Any:
    part = value[:n]
    if part.shape[0] == 0:
        return buf
    if isinstance(row, np.integer):     # a NumPy fill count (an int32 one would not match the zeros)
        row = int(row)
    start = (row,) + (0,) * (buf.ndim - 1)
    return lax.dynamic_update_slice(buf, part.astype(buf.dtype), start)


JAX_KV = KVCacheOps(lambda shape, dtype: jnp.zeros(shape, dtype), _write, lambda buf, n: buf[:n])


def _arg(walker: Any, v: Any, fn: str) -> Any:
    """An executor value as the rules take it: arrays, int tuples, ints (all known while tracing)."""
    if isinstance(v, TVal):
        if v.padded:
            raise NeedsExact(f"{fn} on a padded tensor")
        return v.data
    if isinstance(v, ShapeV):
        if not v.is_static:
            raise TraceAbort(f"{fn}: a shape known only at run time")
        return tuple(int(d.val) for d in v)
    if isinstance(v, PrimV):
        if not is_static(v.val):
            raise TraceAbort(f"{fn}: a count known only at run time")
        return int(v.val)
    if isinstance(v, tuple):
        return tuple(_arg(walker, x, fn) for x in v)
    return v


class TracedKV:
    """A cache parameter inside a compiled function: ``data`` (traced buffer of static capacity),
    ``fill`` / ``pos`` (traced int64), ``delta`` the rows appended since entry (an int, or an expression
    over the entry's symbolic variables that the host evaluates), ``phys`` its static upper bound,
    ``need`` the most rows past the incoming fill count any append wrote, ``path`` the parameter's
    position."""

    __slots__ = ("data", "fill", "pos", "delta", "phys", "need", "path")

    def __init__(self, data: Any, fill: Any, pos: Any, path: tuple) -> None:
        self.data, self.fill, self.pos, self.path = data, fill, pos, path
        self.delta: Any = 0
        self.phys = 0
        self.need = 0

    def __repr__(self) -> str:
        return f"TracedKV({tuple(self.data.shape)}, {self.data.dtype})"


def _traced_append(walker: Any, c: TracedKV, value: Any) -> TracedKV:
    if not isinstance(value, TVal) or (value.padded and any(d is not None for d in value.valid[1:])):
        raise TraceAbort("attention_kv_cache_append of a non-tensor value or one padded past its rows")
    v = value.data
    if str(v.dtype) != str(c.data.dtype) or tuple(v.shape[1:]) != tuple(c.data.shape[1:]) or \
            v.ndim != c.data.ndim:
        raise TraceAbort("attention_kv_cache_append of a value the cache does not hold")   # host reports it
    n = int(v.shape[0])                 # the physical rows: padding rows land past the fill count
    rows = value.dim(0)                  # the logical rows (traced under bucketing)
    if not rows.is_static and rows.expr is None:
        raise TraceAbort("attention_kv_cache_append of a value whose length the host cannot know")
    c.need = max(c.need, c.phys + n)
    cap = int(c.data.shape[0])
    if c.need > cap:       # grown while tracing: an empty cache's first long append (CALL.KVCACHE.2)
        new = grown_rows(cap, c.need, "append")
        c.data = _pad_rows(c.data, new - cap)
    if n:       # a fill count is never negative: no wrap of negative indices to trace and compile
        start = (c.fill,) + (0,) * (c.data.ndim - 1)
        c.data = lax.dynamic_update_slice(c.data, v, start, allow_negative_indices=False)
    c.fill = lax.add(c.fill, astype(rows.val, c.fill.dtype))
    c.delta = c.delta + (int(rows.val) if rows.is_static else rows.expr)
    c.phys += n
    return c


def _pad_rows(x: Any, rows: int) -> Any:
    """``x`` with ``rows`` zero rows appended (``jnp.pad``'s ``pad``, bound directly)."""
    return lax.pad(x, np.zeros((), x.dtype), [(0, rows, 0)] + [(0, 0, 0)] * (x.ndim - 1))


def _traced_view(walker: Any, c: TracedKV, shape: Any, call: Any) -> TVal:
    if not isinstance(shape, ShapeV) or len(shape) != c.data.ndim or \
            any(not d.is_static or int(d.val) != int(c.data.shape[i]) for i, d in enumerate(shape) if i):
        raise TraceAbort("attention_kv_cache_view with a shape known only at run time")
    d0 = shape[0]
    cap = int(c.data.shape[0])
    phys = int(d0.phys) if d0.phys is not None else None
    if phys is None:
        raise TraceAbort("attention_kv_cache_view of an unbounded length")
    data = c.data if phys >= cap else lax.slice_in_dim(c.data, 0, phys, axis=0)
    if phys > cap:
        data = _pad_rows(data, phys - cap)
    want_expr = P.IntImm(int(d0.val), "int64") if d0.is_static else d0.expr
    if not (c.path and want_expr is not None and walker.sink.check_on_host(ViewRows(c.path, want_expr, c.delta))):
        want = astype(d0.val, np.dtype(np.int64))
        fill = c.fill

        def err():
            return kv_error("view: the requested rows are not the cached rows").with_span(
                call.span if call is not None else None)
        walker.sink.check(lax.ne(want, fill), err)
    valid = None if d0.is_static else (d0,) + (None,) * (c.data.ndim - 1)
    return TVal(data, valid, walker.level)


def _traced_call(walker: Any, name: str, args: List[Any], call: Any) -> Any:
    short = name[len("vm.builtin.attention_kv_cache_"):]
    if short == "append" and len(args) == 2:
        return _traced_append(walker, args[0], args[1])
    if short == "view" and len(args) == 2:
        return _traced_view(walker, args[0], args[1], call)
    raise TraceAbort(f"{name} on a cache parameter")


def _native(name: str, rule: Any) -> PackedV:
    def run(walker: Any, args: List[Any], call: Any) -> Any:
        if walker.traced and walker.level > 0:
            raise TraceAbort(f"{name} inside traced control flow")
        if any(isinstance(a, TracedKV) for a in args) or any(
                isinstance(a, tuple) and any(isinstance(x, TracedKV) for x in a) for a in args):
            return _traced_call(walker, name, args, call)
        r = rule(*[_arg(walker, a, name) for a in args])
        if r is None or isinstance(r, AttentionKVCache):
            return r
        return TVal(r, None, walker.level)
    run.native = True
    run.traceable = True
    return PackedV(name, run)


def kv_cache_builtins() -> Dict[str, PackedV]:
    """The ``vm.builtin.attention_kv_cache_*`` functions of the executor."""
    return {name: _native(name, rule) for name, rule in JAX_KV.table().items()}


__all__ = ["JAX_KV", "TracedKV", "kv_cache_builtins"]

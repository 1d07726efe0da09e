"""The per-call fast path of a compiled function with KV-cache parameters (CALL.KVCACHE.*).

A decode step of a model that keeps its caches as KV-cache objects passes the token, the total length
as a shape (``R.Shape([m])``), the cache objects and the weights. After one call has gone through the
general path (:meth:`relax_jax.executable.Executable._dispatch`), :func:`make_kv_hot` builds a
closure for that compiled entry that does only what the step needs: it reads the symbolic values off
the shape arguments, checks that they select this compilation's buckets and that every cache has the
compiled buffer shape and room for the rows the function appends, passes the buffers (donated), the
fill counts and the symbolic-size vector, writes the new buffers and fill counts into the cache objects
and returns the result. It covers signatures of tensors of static shape, shapes whose entries are
integers or bare symbolic variables, and top-level cache objects; results of unpadded tensors, the
cache objects and tuples of them.

Anything else -- another bucket, a cache that must grow, an argument of another kind, a shape or dtype
the executable was not compiled for (``TypeError`` before anything runs) -- returns :data:`MISS` and
the general path takes the call. A failed run-time check (the error code the compiled function
returns) raises the check's error as the general path does: the caches were donated, so there is no
host re-run.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref.arith.evaluate import eval_prim
from relax_ref.interp.kv_cache import AttentionKVCache, grown_rows
from relax_ref.interp.paged_kv_cache import PagedKVCache
from relax_ref.ir import prim_expr as P

from .hotpath import _JAX_ARRAY_TYPES, MISS, _identity_checker, _is_array
from .layouts import KVCacheParam, ShapeParam, TensorParam, get_path
from .paged_kv_cache import TracedPaged, paged_hot_inputs
from .plan import pack_sym

_T, _S, _KV = 0, 1, 2
_INT64_MAX = (1 << 63) - 1


def _items(layouts, var_pos: dict) -> Optional[list]:
    """Per parameter ``(kind, info)``; None when a parameter is not covered."""
    from relax_ref.ir import dtype as _dt

    items = []
    for l in layouts:
        if isinstance(l, TensorParam):
            if l.dims is None or l.dtype == "void" or not all(isinstance(d, P.IntImm) for d in l.dims):
                return None
            items.append((_T, _dt.to_numpy(l.dtype)))
        elif isinstance(l, ShapeParam):
            if l.values is None:
                return None
            dims = []
            for d in l.values:
                if isinstance(d, P.IntImm):
                    dims.append((0, int(d.value)))
                elif isinstance(d, P.PrimVar) and id(d) in var_pos:
                    dims.append((1, var_pos[id(d)]))
                else:
                    return None
            items.append((_S, tuple(dims)))
        elif isinstance(l, KVCacheParam):
            items.append((_KV, None))
        else:
            return None
    return items


def _exporter(spec) -> Optional[Callable[[tuple, tuple], Any]]:
    """``(leaves, args) -> result`` for a result of unpadded tensors, cache parameters and tuples."""
    pos = [0]

    def build(sp):
        kind = sp[0]
        if kind == "T":
            if any(e is not None for e in sp[1]):
                raise LookupError("padded")
            i = pos[0]
            pos[0] += 1
            return lambda out, args: out[i]
        if kind == "KV":
            path = sp[1]
            if len(path) != 1:
                raise LookupError("nested cache")
            j = path[0]
            return lambda out, args: args[j]
        if kind == "U":
            parts = [build(f) for f in sp[1]]
            return lambda out, args: tuple(p(out, args) for p in parts)
        raise LookupError(kind)

    try:
        return build(spec)
    except LookupError:
        return None


def make_kv_hot(exe, plan, compiled, bucketing: bool, key) -> Optional[Callable]:
    """The fast path for ``plan`` using ``compiled`` (a function with cache parameters), or None when
    its signature or result is not covered (see the module docstring)."""
    if compiled.mutated or plan.bounds or not compiled.kv or getattr(compiled, "donated", ()):
        return None             # (consumed in-place parameters: the general path decides what to donate)
    # paged caches (CALL.PAGEDKV.*): every cache parameter paged, each call's token counts static
    rows_of = {p[0]: rows for p, rows in compiled.paged}
    paged = bool(rows_of)
    static_rows = all(isinstance(r, int) for rs in rows_of.values() for r in rs)
    if paged and (len(rows_of) != len(compiled.kv) or not static_rows):
        return None
    sym_vars = plan.sym_vars
    var_pos = {id(v): i for i, v in enumerate(sym_vars)}
    items = _items(plan.layouts, var_pos)
    export = _exporter(compiled.out_spec)
    if items is None or export is None:
        return None
    kv_facts = [f for f in key[2] if isinstance(f, tuple) and f and f[0] == ("paged" if paged else "kv")]
    kv_args = [i for i, (kind, _) in enumerate(items) if kind == _KV]
    if len(kv_facts) != len(kv_args) or any(len(p) != 1 for p, _, _, _ in compiled.kv):
        return None
    if paged:
        return _paged_hot(exe, plan, compiled, items, dict(zip(kv_args, kv_facts)), rows_of, export)
    return _attention_hot(exe, plan, compiled, bucketing, key, items, dict(zip(kv_args, kv_facts)), export)


def _attention_hot(exe, plan, compiled, bucketing: bool, key, items, facts, export) -> Callable:
    """The fast path of a function whose cache parameters are attention KV caches (CALL.KVCACHE.*):
    ``facts`` maps each cache argument's index to its compilation-key fact (shape, dtype)."""
    sym_vars = plan.sym_vars
    kv_args = list(facts)
    shapes = {i: (f[1], np.dtype(f[2])) for i, f in facts.items()}
    # per cache written by the function: (argument index, fill delta, rows needed, capacity after)
    writes = []
    for path, delta, need, cap_out in compiled.kv:
        if not isinstance(delta, int):
            delta = _delta_fn(delta, sym_vars)
        writes.append((path[0], delta, need, cap_out))
    need_of = {i: (need, cap) for i, _, need, cap in writes}
    buckets = tuple(key[1])
    caps = [shapes[i][0][0] for i in kv_args if shapes[i][0]]
    cap = min(caps) if caps and plan.cap_tied else None      # as layouts.cache_capacity
    bucket = plan.bucket
    nsym, nparams = len(sym_vars), len(items)
    fn, has_code, builders, stats = compiled.fn, compiled.has_code, compiled.builders, exe.stats
    n_kv_out = len(compiled.kv)
    # the tensors (the weights, the token) checked by identity once they passed (hotpath), each run of
    # consecutive tensor parameters passed on as one slice
    tensors_ok = _identity_checker([i for i, (kind, _) in enumerate(items) if kind == _T],
                                   lambda a, i: _tensor_ok(a, items[i][1]))
    segments = []
    for i, (kind, info) in enumerate(items):
        if kind == _T and segments and segments[-1][0] == _T and segments[-1][2] == i:
            segments[-1] = (_T, segments[-1][1], i + 1, None)
        else:
            segments.append((kind, i, i + 1, info))

    def hot(args):
        if len(args) != nparams or not tensors_ok(args):
            return MISS
        vals: List[Any] = [None] * nsym
        flat: list = []
        seen = set()
        for kind, i, end, info in segments:
            if kind == _T:
                flat += args[i:end]
                continue
            a = args[i]
            if kind == _S:
                if not isinstance(a, tuple) or len(a) != len(info):
                    return MISS
                for (k, x), n in zip(info, a):
                    if type(n) is not int or not 0 <= n <= _INT64_MAX:
                        return MISS
                    if k == 0:
                        if n != x:
                            return MISS
                    elif vals[x] is None:
                        vals[x] = n
                    elif vals[x] != n:
                        return MISS
            else:
                if type(a) is not AttentionKVCache:
                    return MISS
                d, fill, p = a.data, a.fill, a.pos
                if (type(d) not in _JAX_ARRAY_TYPES and not _is_array(d)) or type(fill) is not int or \
                        type(p) is not int or id(d) in seen:
                    return MISS
                shape, dt = shapes[i]
                if d.shape != shape or d.dtype != dt:
                    return MISS
                room = need_of.get(i)
                if room is not None and fill + room[0] > room[1]:
                    return MISS             # the cache must grow: the general path grows it
                seen.add(id(d))
                flat += [d, np.int64(fill), np.int64(p)]
        if nsym:
            for j in range(nsym):
                v = vals[j]
                if v is None or (bucket(sym_vars[j], v, cap) if bucketing else v) != buckets[j]:
                    return MISS
            flat.append(pack_sym(vals))
        with jax.enable_x64(True):
            try:
                out = fn(*flat)
            except TypeError:
                return MISS                 # not compiled for these shapes or dtypes: nothing ran
            end = len(out) - (1 if has_code else 0)
            start = end - n_kv_out
            for (i, delta, _, _), data in zip(writes, out[start:end]):
                cache = args[i]
                cache.data = data
                cache.fill += delta if type(delta) is int else delta(vals)
            if has_code:
                code = int(np.asarray(out[-1]))
                if code:
                    raise builders[code - 1]()
        stats.cache_hits += 1
        return export(out[:start], args)

    return hot


def _tensor_ok(a: Any, dtype: Any) -> bool:
    """Whether ``a`` is a concrete array a tensor parameter of NumPy dtype ``dtype`` takes (the compiled
    function checks a JAX array's shape and dtype itself; a NumPy array's dtype it would convert)."""
    t = type(a)
    return t in _JAX_ARRAY_TYPES or (t is np.ndarray and a.dtype == dtype) or (t is not np.ndarray and _is_array(a))


def _paged_hot(exe, plan, compiled, items, facts, rows_of, export) -> Optional[Callable]:
    """The fast path of a function whose cache parameters are paged caches (a decode step): tensors of
    static shape and the caches; each cache checked against its compilation's key (configuration, pool,
    plan buckets) and token counts, its pool and padded plan passed, the new pool written back."""
    if plan.sym_vars or any(kind == _S for kind, _ in items):
        return None
    fn, has_code, builders, stats, nparams = compiled.fn, compiled.has_code, compiled.builders, exe.stats, len(items)
    n_kv_out, reserve = len(compiled.kv), plan.reserve
    order = [p[0] for p, _, _, _ in compiled.kv]

    def hot(args):
        if len(args) != nparams:
            return MISS
        flat: list = []
        seen = set()
        for i, (kind, info) in enumerate(items):
            a = args[i]
            if kind == _T:
                t = type(a)
                if not (t in _JAX_ARRAY_TYPES or (t is np.ndarray and a.dtype == info) or
                        (t is not np.ndarray and _is_array(a))):
                    return MISS
                flat.append(a)
                continue
            inputs = paged_hot_inputs(a, facts[i], rows_of.get(i, ()), reserve) if type(a) is PagedKVCache else None
            if inputs is None or id(a) in seen:
                return MISS
            seen.add(id(a))
            flat += inputs
        with jax.enable_x64(True):
            try:
                out = fn(*flat)
            except TypeError:
                return MISS                 # not compiled for these shapes or dtypes: nothing ran
            end = len(out) - (1 if has_code else 0)
            start = end - n_kv_out
            for i, data in zip(order, out[start:end]):
                args[i].pool = data
            if has_code:
                code = int(np.asarray(out[-1]))
                if code:
                    raise builders[code - 1]()
        stats.cache_hits += 1
        return export(out[:start], args)

    return hot


def _delta_fn(expr, sym_vars) -> Callable[[list], int]:
    """The host value of a fill delta over the symbolic variables (as ``Executable._write_caches``)."""
    def run(vals, expr=expr):
        return int(eval_prim(expr, dict(zip(sym_vars, vals))))
    return run


# ---------------------------------------------------------------------------------------------------
# The host side of a compiled call's cache parameters (the general path)
# ---------------------------------------------------------------------------------------------------


def kv_records(caches) -> tuple:
    """A compilation's records of its traced cache parameters: ``(path, fill delta, rows needed, capacity
    after)`` per cache (the delta None for a paged cache, whose pool alone is written back), and
    ``(path, token counts)`` per paged cache (checked by :func:`relax_jax.paged_kv_cache.rows_match`)."""
    kv, paged = [], []
    for c in caches:
        if isinstance(c, TracedPaged):
            kv.append((c.path, None, 0, 0))
            paged.append((c.path, tuple(c.rows)))
        else:
            kv.append((c.path, c.delta, c.need, int(c.data.shape[0])))
    return kv, paged


def must_grow(args, kv) -> bool:
    """Whether :func:`grow_caches` would grow a cache (``kv``: a compilation's cache records)."""
    for path, delta, need, cap_out in kv:
        if delta is None:
            continue
        cache = get_path(args, path)
        cap = int(cache.data.shape[0])
        if cache.fill + need > cap_out and grown_rows(cap, cache.fill + need, "append") != cap:
            return True
    return False


def grow_caches(args, kv) -> bool:
    """Grow each cache parameter whose capacity is below ``fill + need`` (CALL.KVCACHE.2)."""
    grew = False
    for path, delta, need, cap_out in kv:
        if delta is None:
            continue
        cache = get_path(args, path)
        cap = int(cache.data.shape[0])
        if cache.fill + need <= cap_out:
            continue
        new = grown_rows(cap, cache.fill + need, "append")
        if new != cap:
            pad = [(0, new - cap)] + [(0, 0)] * (cache.data.ndim - 1)
            cache.data = jnp.pad(cache.data, pad)
            grew = True
    return grew


def write_caches(args, kv, has_code: bool, out, sym) -> tuple:
    """The new buffers written into the caller's cache objects, their fill counts advanced by the
    deltas known to the host (ints, or expressions over the symbolic variables); returns the other
    outputs."""
    end = len(out) - (1 if has_code else 0)
    start = end - len(kv)
    for (path, delta, _, _), data in zip(kv, out[start:end]):
        cache = get_path(args, path)
        if delta is None:
            cache.pool = data            # a paged cache: its bookkeeping stays on the host
            continue
        cache.data = data
        cache.fill += delta if isinstance(delta, int) else int(eval_prim(delta, sym))
    return tuple(out[:start]) + tuple(out[end:])


__all__ = ["make_kv_hot", "kv_records", "must_grow", "grow_caches", "write_caches"]

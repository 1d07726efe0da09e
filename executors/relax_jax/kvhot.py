"""The per-call fast path of a compiled function with KV-cache parameters (CALL.KVCACHE.*).

A decode step of a model that keeps its caches as KV-cache objects passes the token, the total length
as a shape (``R.Shape([m])``), the cache objects and the weights. After one call has gone through the
general path (:meth:`relax_jax.executable.Executable._dispatch`), :func:`make_kv_hot` builds a
closure for that compiled entry that does only what the step needs: it reads the symbolic values off
the shape arguments, checks that they select this compilation's buckets and that every cache has the
compiled buffer shape and room for the rows the function appends, passes the buffers (donated) and
the symbolic-size vector that carries the fill counts too (:func:`relax_jax.plan.lift`), writes the new
buffers and fill counts into the cache objects and returns the result. It covers signatures of tensors
of static shape, shapes whose entries are integers or bare symbolic variables, and top-level cache
objects; results of unpadded tensors, the cache objects and tuples of them.

Anything else -- another bucket, a cache that must grow, an argument of another kind, a shape or dtype
the executable was not compiled for (``TypeError`` before anything runs) -- returns :data:`MISS` and
the general path takes the call. A failed run-time check (the error code the compiled function
returns) raises the check's error as the general path does: the caches were donated, so there is no
host re-run.
"""

from __future__ import annotations

import operator
import struct
from typing import Any, Callable, List, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref.arith.evaluate import eval_prim
from relax_ref.interp.kv_cache import AttentionKVCache, grown_rows
from relax_ref.interp.paged_kv_cache import PagedKVCache
from relax_ref.ir import prim_expr as P

from .hotpath import _JAX_ARRAY_TYPES, _WIDE, MISS, _is_array, _tensor_checker, _out_avals, _picker, direct_call
from .layouts import KVCacheParam, ShapeParam, TensorParam, get_path
from .symbolic import host_value_fn
from .paged_kv_cache import TracedPaged, layer_inputs, paged_hot_reader, recompute_on_host
from .plan import sym_struct

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
        tree = build(spec)
    except LookupError:
        return None
    fields = spec[1] if spec[0] == "U" else ()
    if len(fields) < 2 or any(f[0] not in ("T", "KV") for f in fields):
        return tree
    # a flat tuple: one C-level pick from the tensor leaves followed by the arguments
    n, k, idx = pos[0], 0, []
    for f in fields:
        if f[0] == "T":
            idx.append(k)
            k += 1
        else:
            idx.append(n + f[1][0])
    get = operator.itemgetter(*idx)
    return lambda out, args: get((*out, *args))


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
    ``facts`` maps each cache argument's index to its compilation-key fact (shape, dtype).

    Per call: the tensors' types checked in one pass (:func:`~relax_jax.hotpath._tensor_checker`), shapes
    and dtypes by the executable (``TypeError`` before anything runs: MISS); each variable against its
    bucket; the fill counts and positions in the vector of the symbolic values (:func:`relax_jax.plan.lift`),
    one value each where the key says they agree (:func:`relax_jax.plan.lift_pattern`); 64-bit mode only
    for 64-bit values. A decode step's signature has a closure of its own (:func:`_decode_hot`)."""
    sym_vars, nsym, nparams = plan.sym_vars, len(plan.sym_vars), len(items)
    caps = [f[1][0] for f in facts.values() if f[1]]
    cap = min(caps) if caps and plan.cap_tied else None      # as layouts.cache_capacity
    ranges = _kv_ranges(plan, bucketing, tuple(key[1]), cap)
    shapes = [(i, info) for i, (kind, info) in enumerate(items) if kind == _S]
    one = (shapes[0][0], shapes[0][1][0][1]) if len(shapes) == 1 and len(shapes[0][1]) == 1 and \
        shapes[0][1][0][0] == 1 else None      # (position, variable index) of the one shape of one variable
    caches, writes = _cache_rows(compiled, facts, sym_vars)
    # the compiled arguments: the parameters but the shapes, each cache as its buffer
    kept = [i for i, (kind, _) in enumerate(items) if kind != _S]
    pick = _picker(kept)
    pick_data = operator.itemgetter(*[kept.index(i) for i, _ in caches]) if len(caches) > 1 else None
    fn, has_code, builders, stats = direct_call(compiled.fn), compiled.has_code, compiled.builders, exe.stats
    n_kv_out, host = len(compiled.kv), compiled.host       # (host: the checks made before the call)
    one_fill, one_pos = compiled.pattern                   # (plan.lift_pattern, checked per call)
    ncaches = len(caches)
    spack = sym_struct(nsym + (1 if one_fill else ncaches) + (1 if one_pos else ncaches))   # (plan.sym_packer, inline)
    narrow = _narrow_kv(compiled, items)
    tensors_ok = _tensor_checker([i for i, (kind, _) in enumerate(items) if kind == _T],
                                 [info for kind, info in items if kind == _T])
    if one is not None and nsym == 1 and ranges is not None and one_fill and one_pos and narrow and \
            all(type(d) is int for _, d in writes):
        step = _decode_hot(fn, nparams, tensors_ok, one[0], ranges[0], caches, kept, writes, spack, export,
                           n_kv_out, (has_code, host), builders, stats)
        if step is not None:
            return step

    def hot(args):
        if len(args) != nparams or not tensors_ok(args):
            return MISS
        vals: List[Any] = [None] * nsym
        if one is not None:                 # (a decode step's R.Shape([m]): _read_shape inline)
            a = args[one[0]]
            n = a[0] if type(a) is tuple and len(a) == 1 else None
            if type(n) is not int or not 0 <= n <= _INT64_MAX:
                return MISS
            vals[one[1]] = n
        else:
            for i, info in shapes:
                if _read_shape(args[i], info, vals) is MISS:
                    return MISS
        flat = list(args)
        fills: List[int] = []
        poss: List[int] = []
        if _take_caches(args, caches, flat, fills, poss) is MISS:
            return MISS
        if ranges is None:
            if any(v is None or (plan.bucket(sym_vars[j], v, cap) if bucketing else v) != key[1][j]
                   for j, v in enumerate(vals[:nsym])):
                return MISS
        else:
            for v, (lo, hi) in zip(vals, ranges):
                if v is None or v < lo or v > hi:
                    return MISS
        flat = pick(flat)
        if ncaches > 1 and len(set(map(id, pick_data(flat)))) != ncaches:
            return MISS                     # one buffer in two caches: the general path decides
        # (after the symbolic values: plan.lifted_values; another pattern is another compilation)
        if (one_fill and fills.count(fills[0]) != ncaches) or (one_pos and poss.count(poss[0]) != ncaches) or \
                (host is not None and host(args, vals)):
            return MISS                     # another pattern (another compilation), or a failing host check
        if one_fill:
            del fills[1:]
        if one_pos:
            del poss[1:]
        try:
            packed = np.frombuffer(spack(*vals, *fills, *poss), np.int32)
        except struct.error:
            return MISS                     # a value outside int64: the general path decides
        try:
            if narrow:
                out = fn(*flat, packed)
            else:
                with jax.enable_x64(True):
                    out = fn(*flat, packed)
        except (TypeError, ValueError):   # (ValueError: an array on another device)
            return MISS                     # not compiled for these shapes or dtypes: nothing ran
        end = len(out) - (1 if has_code else 0)
        start = end - n_kv_out
        for (i, delta), data in zip(writes, out[start:end]):
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


def _cache_rows(compiled, facts, sym_vars) -> Tuple[list, list]:
    """Per cache argument: its index and the greatest fill count it takes without growing (a cache not
    written: its capacity, CALL.KVCACHE.1); per cache written: its index and fill delta (an int or a
    function of the symbolic values), in the order of the compiled outputs."""
    limit = {path[0]: cap_out - need for path, _, need, cap_out in compiled.kv}
    caches = [(i, limit.get(i, facts[i][1][0] if facts[i][1] else None)) for i in facts]
    writes = [(path[0], delta if isinstance(delta, int) else host_value_fn(delta, sym_vars))
              for path, delta, _, _ in compiled.kv]
    return caches, writes


def _narrow_kv(compiled, items) -> bool:
    """Whether the call runs without JAX's 64-bit mode: no 64-bit tensor argument or result."""
    outs = _out_avals(compiled.fn)
    return outs is not None and not any(np.dtype(info) in _WIDE for kind, info in items if kind == _T) and \
        not any(dt in _WIDE for _, dt in outs)


def _take_caches(args, caches: list, flat: list, fills: list, poss: list) -> Any:
    """Each cache argument's buffer into ``flat`` and its fill count and position onto ``fills`` and
    ``poss``; MISS when one is no attention cache of a JAX buffer and integer counts, has a negative
    count (CALL.KVCACHE.1's error) or must grow (the general path grows it)."""
    for i, lim in caches:
        a = args[i]
        if type(a) is not AttentionKVCache:
            return MISS
        d, fill, p = a.data, a.fill, a.pos
        if (type(d) not in _JAX_ARRAY_TYPES and not _is_array(d)) or type(fill) is not int or type(p) is not int:
            return MISS
        if fill < 0 or p < 0 or (lim is not None and fill > lim):
            return MISS
        flat[i] = d
        fills.append(fill)
        poss.append(p)
    return None


_KV_TYPE, _INT_TYPE = frozenset([AttentionKVCache]), frozenset([int])


def _decode_hot(fn, nparams: int, tensors_ok, spos: int, rng: tuple, caches: list, kept: list, writes: list,
                spack, export, n_kv_out: int, checks: tuple, builders, stats) -> Optional[Callable]:
    """:func:`_attention_hot`'s path for a decode step's signature: one shape argument of one variable
    (``spos``; its values ``rng``), caches whose fill counts and positions travel as one value each
    (``compiled.pattern``), constant fill deltas, no 64-bit mode. The same checks as the general closure,
    made over all caches at once (C-level passes over their types, fills and positions), and the
    compiled arguments passed without an intermediate list; None when the caches are not one run of
    the compiled arguments (the general closure then serves). ``checks``: whether the compilation has
    an error code, and its checks made before the call (``Compiled.host``)."""
    has_code, host = checks
    n = len(caches)
    at = [kept.index(i) for i, _ in caches]
    if not n or at != list(range(at[0], at[0] + n)):
        return None
    before, after = _span(kept[:at[0]]), _span(kept[at[0] + n:])
    get_caches = operator.itemgetter(*[i for i, _ in caches]) if n > 1 else (lambda a, i=caches[0][0]: (a[i],))
    get_written = operator.itemgetter(*[i for i, _ in writes]) if len(writes) > 1 else \
        (lambda a, i=writes[0][0]: (a[i],)) if writes else (lambda a: ())
    deltas = tuple(d for _, d in writes)
    lims = [lim for _, lim in caches if lim is not None]
    lim = min(lims) if lims else _INT64_MAX
    lo, hi = max(rng[0], 0), min(rng[1], _INT64_MAX)
    data_of, fill_of, pos_of = operator.attrgetter("data"), operator.attrgetter("fill"), operator.attrgetter("pos")

    def hot(args):
        if len(args) != nparams or not tensors_ok(args):
            return MISS
        a = args[spos]
        m = a[0] if type(a) is tuple and len(a) == 1 else None
        if type(m) is not int or m < lo or m > hi:
            return MISS
        cs = get_caches(args)
        if not _KV_TYPE.issuperset(map(type, cs)):
            return MISS
        fills, poss, datas = tuple(map(fill_of, cs)), tuple(map(pos_of, cs)), tuple(map(data_of, cs))
        if not (_INT_TYPE.issuperset(map(type, fills)) and _INT_TYPE.issuperset(map(type, poss))):
            return MISS
        f, p = fills[0], poss[0]
        if fills.count(f) != n or poss.count(p) != n or f > lim or f < 0 or p < 0:
            return MISS                     # another pattern (another compilation), the caches must grow, or an error
        if not _JAX_ARRAY_TYPES.issuperset(map(type, datas)) and not all(map(_is_array, datas)):
            return MISS
        if n > 1 and len(set(map(id, datas))) != n:
            return MISS                     # one buffer in two caches: the general path decides
        if host is not None and host(args, (m,)):
            return MISS                     # a check made before the call fails: the general path raises
        try:
            packed = np.frombuffer(spack(m, f, p), np.int32)
        except struct.error:
            return MISS                     # a value outside int64: the general path decides
        try:
            out = fn(*before(args), *datas, *after(args), packed)
        except (TypeError, ValueError):   # (ValueError: an array on another device)
            return MISS                     # not compiled for these shapes or dtypes: nothing ran
        del datas, packed                   # (the given-up buffers released while the computation may run)
        end = len(out) - (1 if has_code else 0)
        start = end - n_kv_out
        for cache, data, delta in zip(get_written(args), out[start:end], deltas):
            cache.data = data
            cache.fill += delta
        result = export(out[:start], args)
        if has_code:
            code = int(np.asarray(out[-1]))
            if code:
                raise builders[code - 1]()
        stats.cache_hits += 1
        return result

    return hot


def _span(idx: List[int]) -> Callable[[Any], tuple]:
    """The tuple of the arguments at ``idx``: one C-level slice where they are consecutive."""
    if not idx:
        return lambda a: ()
    if idx == list(range(idx[0], idx[0] + len(idx))):
        return operator.itemgetter(slice(idx[0], idx[0] + len(idx)))
    return operator.itemgetter(*idx) if len(idx) > 1 else (lambda a, i=idx[0]: (a[i],))


def _read_shape(a: Any, info: tuple, vals: list) -> Any:
    """The symbolic values a shape argument binds, written into ``vals`` (``info``: per entry ``(0,
    extent)`` or ``(1, variable index)``); MISS when it is no tuple of such values."""
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
    return None


def _kv_ranges(plan, bucketing: bool, buckets: tuple, cap: Optional[int]) -> Optional[tuple]:
    """The values of each variable that select this compilation, an interval each (the value itself
    without bucketing; :meth:`relax_jax.plan.Plan.bucket_range` at the caches' capacity ``cap``), or
    None: the bucket of each value is computed per call."""
    if not bucketing:
        return tuple((b, b) for b in buckets)
    ranges = [plan.bucket_range(v, b, cap) for v, b in zip(plan.sym_vars, buckets)]
    return None if any(r is None for r in ranges) else tuple(ranges)


def _paged_hot(exe, plan, compiled, items, facts, rows_of, export) -> Optional[Callable]:
    """The fast path of a function whose cache parameters are paged caches (a decode step): tensors of
    static shape (checked as :func:`_attention_hot` checks them) and the caches; each cache checked
    against its compilation's key (configuration, plan buckets) and token counts, its pool and padded
    plan passed, the new pool written back. The pool's shape and dtype, as a tensor's, the compiled
    executable checks itself (``TypeError`` before anything runs: MISS); JAX's 64-bit mode is entered
    only for 64-bit arguments or results."""
    if plan.sym_vars or any(kind == _S for kind, _ in items):
        return None
    fn, has_code, builders, stats = direct_call(compiled.fn), compiled.has_code, compiled.builders, exe.stats
    nparams, host = len(items), compiled.host
    n_kv_out, reserve = len(compiled.kv), plan.reserve
    order = [p[0] for p, _, _, _ in compiled.kv]
    tensors_ok = _tensor_checker([i for i, (kind, _) in enumerate(items) if kind == _T],
                                 [info for kind, info in items if kind == _T])
    # per cache parameter, from the last: its inputs replace it in the flat arguments (the earlier
    # positions stay where they are)
    caches = [(i, paged_hot_reader(facts[i], rows_of.get(i, ()), reserve))
              for i, (kind, _) in enumerate(items) if kind == _KV][::-1]
    # per cache parameter: the layer indices (layer_inputs), taken at its first call (on the device the
    # compiled executable runs on: a pool elsewhere fails the call, ValueError, before anything runs)
    layer_ids: dict = {}
    wide = {str(d) for d in _WIDE}
    outs = _out_avals(compiled.fn)
    narrow = outs is not None and not any(np.dtype(info) in _WIDE for kind, info in items if kind == _T) and \
        not any(dt in _WIDE for _, dt in outs) and not any(f[3] in wide for f in facts.values())

    def hot(args):
        if len(args) != nparams or not tensors_ok(args):
            return MISS
        flat = list(args)
        for i, read in caches:
            a = args[i]
            inputs = read(a) if type(a) is PagedKVCache else None
            if inputs is None or (type(inputs[0]) not in _JAX_ARRAY_TYPES and not _is_array(inputs[0])):
                return MISS
            ids = layer_ids.get(i)
            if ids is None:
                ids = layer_ids[i] = layer_inputs(a)
            flat[i:i + 1] = inputs + ids
        if len(caches) > 1 and len({id(args[i]) for i, _ in caches}) < len(caches):
            return MISS                     # (a cache passed twice: the general path reports it)
        if host is not None and host(args, ()):
            return MISS                     # a check made before the call fails: the general path raises
        try:
            if narrow:
                out = fn(*flat)
            else:
                with jax.enable_x64(True):
                    out = fn(*flat)
        except (TypeError, ValueError):   # (ValueError: an array on another device)
            return MISS                     # not compiled for these shapes or dtypes: nothing ran
        end = len(out) - (1 if has_code else 0)
        start = end - n_kv_out
        for i, data in zip(order, out[start:end]):
            args[i].pool = data
        if has_code:
            code = int(np.asarray(out[-1]))
            if code and builders[code - 1] is recompute_on_host:
                return MISS                 # the general path computes the call again (on the host)
            if code:
                raise builders[code - 1]()
        stats.cache_hits += 1
        return export(out[:start], args)

    return hot


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

"""Parameter layouts of a compiled Relax function and the host-side work on arguments.

A parameter's struct info becomes a layout (:class:`TensorParam`, :class:`PrimParam`,
:class:`ShapeParam`, :class:`TupleParam`; :class:`NotJittable` when the function runs on the host).
From the layouts: the symbolic variables the parameters bind (:func:`sym_vars_of`), whether every
dimension can be bucketed, the fast binding of arguments without the reference checker
(:func:`fast_match`, EVAL.CHECK.*), the static facts of the compile key, the physical shapes and
argument specs of a compilation, the flattening of arguments into the compiled function's inputs
and their reconstruction as executor values inside the trace (:func:`rebuild_param`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

import jax
import numpy as np

from relax_ref import values as rv
from relax_ref.arith.evaluate import eval_prim
from relax_ref.arith.semantics import int_to_float
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.interp.kv_cache import AttentionKVCache, counts_valid
from relax_ref.interp.paged_kv_cache import PagedKVCache
from relax_ref.ir.functor import prim_vars_in
from relax_ref.limits import INT64_MAX, dtype_range

from .symbolic import eval_sym, is_monotone
from . import paged_kv_cache as paged
from .kv_cache import TracedKV
from .transfer import pad_to
from .values import PrimV, ShapeV, SymInt, TVal


class NotJittable(Exception):
    pass


@dataclass
class TensorParam:
    dims: Optional[Tuple[P.PrimExpr, ...]]  # None: unknown shape (static in the key)
    ndim: int
    dtype: str                              # "void": dtype taken from the argument (in the key)


@dataclass
class PrimParam:
    dtype: str
    value: Optional[P.PrimExpr]


@dataclass
class ShapeParam:
    values: Optional[Tuple[P.PrimExpr, ...]]
    ndim: int


@dataclass
class TupleParam:
    fields: Tuple[Any, ...]


@dataclass
class KVCacheParam:
    """An ``R.Object`` parameter: compiled when it holds a KV cache (CALL.KVCACHE.*), whose buffer
    shape and dtype are in the key, its fill count and window position traced (relax_jax.kv_cache),
    or a paged KV cache with an open forward (CALL.PAGEDKV.*), whose configuration, pool shape and plan
    buckets are in the key, its pool and plan traced (relax_jax.paged_kv_cache)."""


def layout_of(s: Optional[si.StructInfo]) -> Any:
    if isinstance(s, si.TensorStructInfo):
        if isinstance(s.shape, rx.ShapeExpr):
            return TensorParam(tuple(s.shape.values), len(s.shape.values), s.dtype)
        if s.shape is not None:
            raise NotJittable("a tensor parameter whose shape is a shape variable")
        return TensorParam(None, s.ndim, s.dtype)
    if isinstance(s, si.PrimStructInfo):
        if s.dtype == "void":
            raise NotJittable("a prim parameter of unknown dtype")
        return PrimParam(s.dtype, s.value)
    if isinstance(s, si.ShapeStructInfo):
        return ShapeParam(s.values, s.ndim)
    if isinstance(s, si.TupleStructInfo):
        return TupleParam(tuple(layout_of(f) for f in s.fields))
    if isinstance(s, si.ObjectStructInfo):
        return KVCacheParam()
    raise NotJittable(f"a parameter of struct info {type(s).__name__}")


def size_var_ids(layouts) -> FrozenSet[int]:
    """The ids of the variables bound bare by tensor extents or shape values: never negative
    (VAL.SHAPE.1)."""
    out = set()

    def visit(l):
        dims = l.dims if isinstance(l, TensorParam) else l.values if isinstance(l, ShapeParam) else None
        if dims is not None:
            out.update(id(d) for d in dims if isinstance(d, P.PrimVar))
        elif isinstance(l, TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return frozenset(out)


def sym_vars_of(layouts) -> List[P.PrimVar]:
    """Symbolic variables bound bare by the parameters, in binding order."""
    out: List[P.PrimVar] = []

    def visit(l):
        if isinstance(l, TensorParam) and l.dims is not None:
            for d in l.dims:
                if isinstance(d, P.PrimVar) and all(d is not x for x in out):
                    out.append(d)
        elif isinstance(l, PrimParam) and isinstance(l.value, P.PrimVar):
            if all(l.value is not x for x in out):
                out.append(l.value)
        elif isinstance(l, ShapeParam) and l.values is not None:
            for d in l.values:
                if isinstance(d, P.PrimVar) and all(d is not x for x in out):
                    out.append(d)
        elif isinstance(l, TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return out


def cache_tied_vars(layouts, sym_vars) -> frozenset:
    """The ids of the variables whose bucket follows the caches' capacity: with top-level cache
    parameters, a variable bound only by shape parameters (no tensor's or scalar's extent): its bucket
    is the capacity when the value fits in it (:meth:`relax_jax.plan.Plan.bucket`), so one
    compilation per capacity serves every length of a generation (CALL.KVCACHE.5)."""
    if not any(isinstance(l, KVCacheParam) for l in layouts):
        return frozenset()
    other: dict = {}
    in_shape: dict = {}

    def visit(l):
        if isinstance(l, TensorParam) and l.dims is not None:
            for d in l.dims:
                prim_vars_in(d, other)
        elif isinstance(l, PrimParam) and l.value is not None:
            prim_vars_in(l.value, other)
        elif isinstance(l, ShapeParam) and l.values is not None:
            for d in l.values:
                if isinstance(d, P.PrimVar):
                    in_shape[d] = None
                else:
                    prim_vars_in(d, other)
        elif isinstance(l, TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return frozenset(id(v) for v in sym_vars if v in in_shape and v not in other)


def cache_capacity(args, layouts) -> Optional[int]:
    """The least reserved rows of the top-level cache arguments (None without one)."""
    caps = [int(a.data.shape[0]) for a, l in zip(args, layouts)
            if isinstance(l, KVCacheParam) and isinstance(a, AttentionKVCache) and getattr(a.data, "ndim", 0)]
    return min(caps) if caps else None


def headroom_of(ret: Optional[si.StructInfo], sym_vars) -> Dict[Any, int]:
    """For each parameter variable ``v``, the largest ``c > 0`` of a result extent ``v + c``."""
    out: Dict[Any, int] = {}
    ids = {id(v): v for v in sym_vars}

    def visit(s):
        if isinstance(s, si.TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
            for d in s.shape.values:
                if isinstance(d, P.Add):
                    a, b = d.a, d.b
                    if isinstance(b, P.PrimVar) and isinstance(a, P.IntImm):
                        a, b = b, a
                    if isinstance(a, P.PrimVar) and id(a) in ids and isinstance(b, P.IntImm) and 0 < b.value <= 64:
                        out[a] = max(out.get(a, 0), int(b.value))
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)
    visit(ret)
    return out


def all_dims_bucketable(layouts) -> bool:
    ok = True

    def visit(l):
        nonlocal ok
        if isinstance(l, TensorParam) and l.dims is not None:
            for d in l.dims:
                if not isinstance(d, (P.IntImm, P.PrimVar)) and not is_monotone(d):
                    ok = False
        elif isinstance(l, TupleParam):
            for f in l.fields:
                visit(f)
    for l in layouts:
        visit(l)
    return ok


def prim_val(a: Any) -> Any:
    return a.value if isinstance(a, rv.PrimScalar) else a


_DTYPE_NAMES: Dict[Any, Optional[str]] = {}


def np_dtype_name(dt) -> Optional[str]:
    name = _DTYPE_NAMES.get(dt, _DTYPE_NAMES)
    if name is not _DTYPE_NAMES:
        return name
    try:
        name = _dt.from_numpy(np.dtype(dt))
    except Exception:  # noqa: BLE001 - a foreign dtype: the reference checker reports it
        name = None
    _DTYPE_NAMES[dt] = name
    return name


def _match_dim(d: P.PrimExpr, n: int, sym: Dict, pending: list) -> bool:
    """Whether the value ``n`` can stand for the dim ``d``: a constant must equal it, a symbolic
    variable is bound by its first value and must equal it after; an expression is checked later
    (appended to ``pending``)."""
    if isinstance(d, P.IntImm):
        return d.value == n
    if isinstance(d, P.PrimVar):
        b = sym.get(d)
        if b is None:
            sym[d] = n
            return True
        return b == n
    pending.append((d, n))
    return True


def fast_match(a: Any, l: Any, sym: Dict, pending: list) -> bool:
    if isinstance(l, TensorParam):
        if not isinstance(a, (np.ndarray, jax.Array)):
            return False
        if a.dtype.kind in "OUSMm":
            return False        # not a tensor: the host path reports it (VAL.HOST.1)
        shape = a.shape
        if l.ndim != -1 and len(shape) != l.ndim:
            return False
        if l.dtype != "void" and np_dtype_name(a.dtype) != l.dtype:
            return False  # noqa: SIM103
        if l.dims is not None:
            for d, n in zip(l.dims, shape):
                if not _match_dim(d, int(n), sym, pending):
                    return False
        return True
    if isinstance(l, PrimParam):
        if isinstance(a, rv.PrimScalar):
            if a.dtype != l.dtype:
                return False
            a = a.value
        if isinstance(a, bool) or not isinstance(a, (int, float, np.generic)):
            return False
        if isinstance(a, np.generic):
            dn = np_dtype_name(a.dtype)
            if dn != l.dtype:
                return False
        elif isinstance(a, float) and not _dt.is_float(l.dtype):
            return False
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            if not (_dt.is_integer(l.dtype) or _dt.is_float(l.dtype)):
                return False
            rng = dtype_range(l.dtype)
            if rng is not None and not rng[0] <= int(a) <= rng[1]:
                return False    # out of the dtype's range: the host path reports it (RUNTIME.LIMIT.2)
        if l.value is not None:
            if not _dt.is_integer(l.dtype):
                return False
            return _match_dim(l.value, int(a), sym, pending)
        return True
    if isinstance(l, ShapeParam):
        if isinstance(a, rv.ShapeValue):
            vals = tuple(a)
        elif isinstance(a, (tuple, list)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                   for x in a):
            vals = tuple(int(x) for x in a)
        else:
            return False
        if any(not 0 <= n <= INT64_MAX for n in vals):
            return False        # RUNTIME.LIMIT.1: the host path reports it
        if l.ndim != -1 and len(vals) != l.ndim:
            return False
        if l.values is not None:
            for d, n in zip(l.values, vals):
                if not _match_dim(d, n, sym, pending):
                    return False
        return True
    if isinstance(l, TupleParam):
        if not isinstance(a, (tuple, list)) or isinstance(a, rv.ShapeValue) or len(a) != len(l.fields):
            return False
        return all(fast_match(x, f, sym, pending) for x, f in zip(a, l.fields))
    if isinstance(l, KVCacheParam):
        if isinstance(a, PagedKVCache):
            return paged.is_ready(a)
        return isinstance(a, AttentionKVCache) and isinstance(a.data, jax.Array) and isinstance(a.fill, int) \
            and isinstance(a.pos, int) and counts_valid(a)       # (else host mode: the reference's error)
    return False


def static_facts(a: Any, l: Any, out: list, bucketing: bool, reserve: Optional[int] = None) -> None:
    if isinstance(l, TensorParam):
        if l.dims is None:
            out.append(tuple(a.shape))
        if l.dtype == "void":
            out.append(str(np.dtype(a.dtype)))
    elif isinstance(l, PrimParam):
        if not bucketing and _dt.is_integer(l.dtype) and l.value is None:
            out.append(int(prim_val(a)))
    elif isinstance(l, ShapeParam):
        if l.values is None:
            out.append(tuple(int(x) for x in a))
    elif isinstance(l, TupleParam):
        for x, f in zip(a, l.fields):
            static_facts(x, f, out, bucketing, reserve)
    elif isinstance(l, KVCacheParam):
        if isinstance(a, PagedKVCache):
            out.append(paged.static_fact(a, reserve))
        else:
            out.append(("kv", tuple(a.data.shape), str(a.data.dtype)))


def _phys_dims(l: TensorParam, a: Any, buckets, sym: Dict) -> Tuple[int, ...]:
    if l.dims is None:
        return tuple(a.shape)
    out = []
    for d, n in zip(l.dims, a.shape):
        if isinstance(d, P.IntImm) or buckets is None:
            out.append(int(n))
        else:
            out.append(int(eval_prim(d, {v: buckets(v) for v in _vars(d)})))
    return tuple(out)


def _vars(e) -> list:
    return list(prim_vars_in(e))


def arg_specs(args, layouts, buckets, sym, phys_shapes, specs, reserve: Optional[int] = None) -> None:
    for a, l in zip(args, layouts):
        if isinstance(l, TensorParam):
            shape = _phys_dims(l, a, buckets, sym)
            phys_shapes.append(shape)
            specs.append(jax.ShapeDtypeStruct(shape, np.dtype(a.dtype)))
        elif isinstance(l, PrimParam):
            if l.value is None:
                specs.append(jax.ShapeDtypeStruct((), _dt.to_numpy(l.dtype)))
        elif isinstance(l, ShapeParam):
            pass
        elif isinstance(l, TupleParam):
            arg_specs(a, l.fields, buckets, sym, phys_shapes, specs, reserve)
        elif isinstance(l, KVCacheParam) and isinstance(a, PagedKVCache):
            specs += paged.arg_specs(a, reserve)
        elif isinstance(l, KVCacheParam):
            specs.append(jax.ShapeDtypeStruct(tuple(a.data.shape), a.data.dtype))
            specs += [jax.ShapeDtypeStruct((), np.int64)] * 2


def needs_padding(args, layouts, phys_shapes) -> bool:
    it = iter(phys_shapes)
    return _np_rec(args, layouts, it)


def _np_rec(args, layouts, it) -> bool:
    for a, l in zip(args, layouts):
        if isinstance(l, TensorParam):
            if tuple(a.shape) != next(it):
                return True
        elif isinstance(l, TupleParam):
            if _np_rec(a, l.fields, it):
                return True
    return False


def flatten_args(args, layouts, it, flat, pad=pad_to, reserve: Optional[int] = None) -> None:
    for a, l in zip(args, layouts):
        if isinstance(l, TensorParam):
            flat.append(pad(a, next(it)))
        elif isinstance(l, PrimParam):
            if l.value is None:
                v = prim_val(a)
                if _dt.is_float(l.dtype) and isinstance(v, int) and not isinstance(v, bool):
                    v = int_to_float(v, l.dtype)    # rounded as the reference does, past float64 too (VAL.DTYPE.6)
                flat.append(np.asarray(v, _dt.to_numpy(l.dtype)))
        elif isinstance(l, TupleParam):
            flatten_args(a, l.fields, it, flat, pad, reserve)
        elif isinstance(l, KVCacheParam):
            flat += paged.flat_inputs(a, reserve) if isinstance(a, PagedKVCache) else \
                [a.data, np.int64(a.fill), np.int64(a.pos)]


def rebuild_param(a: Any, l: Any, it, senv: Dict, bucketing: bool) -> Any:
    """The traced executor value of one parameter inside the compiled function."""
    if isinstance(l, TensorParam):
        data = next(it)
        if l.dims is None:
            return TVal(data)
        dims = []
        for d in l.dims:
            if isinstance(d, P.IntImm):
                dims.append(None)
            else:
                s = eval_sym(d, senv)
                dims.append(None if s.is_static else s)
        return TVal(data, tuple(dims))
    if isinstance(l, PrimParam):
        if l.value is None:
            v = next(it)
            if not bucketing and _dt.is_integer(l.dtype):
                return PrimV(int(prim_val(a)), l.dtype, SymInt.static(int(prim_val(a))))
            return PrimV(v, l.dtype)
        s = eval_sym(l.value, senv)
        return PrimV(s.val, l.dtype, s)
    if isinstance(l, ShapeParam):
        if l.values is None:
            return ShapeV(int(x) for x in a)
        return ShapeV(eval_sym(d, senv) for d in l.values)
    if isinstance(l, TupleParam):
        return tuple(rebuild_param(x, f, it, senv, bucketing) for x, f in zip(a, l.fields))
    if isinstance(l, KVCacheParam) and isinstance(a, PagedKVCache):
        return paged.TracedPaged(a.config, next(it), [next(it) for _ in range(paged.plan_count(a))],
                                 [next(it) for _ in range(a.config.num_layers)])
    if isinstance(l, KVCacheParam):
        return TracedKV(next(it), next(it), next(it), ())
    raise TypeError(f"bad layout {l!r}")


def kv_params(params, path=()) -> list:
    """The cache parameters (``TracedKV``, ``TracedPaged``) of a traced call, each given its path."""
    out = []
    for i, p in enumerate(params):
        if isinstance(p, (TracedKV, paged.TracedPaged)):
            p.path = path + (i,)
            out.append(p)
        elif isinstance(p, tuple) and not isinstance(p, ShapeV):
            out.extend(kv_params(p, path + (i,)))
    return out


def kv_flat_positions(args, layouts, pos=None) -> List[int]:
    """The positions of the cache buffers (KV-cache buffers, page pools) among the flat arguments (the
    order of ``arg_specs``)."""
    pos = pos if pos is not None else [0]
    out: List[int] = []
    for a, l in zip(args, layouts):
        if isinstance(l, TensorParam):
            pos[0] += 1
        elif isinstance(l, PrimParam):
            pos[0] += l.value is None
        elif isinstance(l, TupleParam):
            out += kv_flat_positions(a, l.fields, pos)
        elif isinstance(l, KVCacheParam):
            out.append(pos[0])
            pos[0] += paged.input_count(a) if isinstance(a, PagedKVCache) else 3
    return out


def kv_count_positions(args, layouts) -> List[int]:
    """The positions among the flat arguments (the order of ``arg_specs``) of each attention cache's fill
    count and window position (the two after its buffer; a paged cache has none)."""
    out: List[int] = []
    for p, a in zip(kv_flat_positions(args, layouts), _cache_args(args, layouts)):
        if not isinstance(a, PagedKVCache):
            out += [p + 1, p + 2]
    return out


def kv_counts(args, layouts) -> List[int]:
    """Each attention cache's fill count and window position, in the order of :func:`kv_count_positions`
    (the values :func:`relax_jax.plan.lift` takes out of the flat arguments)."""
    out: List[int] = []
    for a in _cache_args(args, layouts):
        if not isinstance(a, PagedKVCache):
            out += [int(a.fill), int(a.pos)]
    return out


def aliased_caches(args, layouts) -> Optional[str]:
    """``"object"`` when two cache parameters of a call are one cache object, ``"buffer"`` when two
    attention cache objects hold one buffer, else None. A compilation gives each parameter a buffer of
    its own (and donates each): a call with one object twice is evaluated in host mode, where the
    writes go to the one cache in order; two objects over one buffer would each see only their own
    writes, where the reference evaluator's writes land in the one buffer (an error)."""
    caches = _cache_args(args, layouts)
    if len(caches) < 2:
        return None
    if len(set(map(id, caches))) != len(caches):
        return "object"
    buffers = [id(a.data) for a in caches if isinstance(a, AttentionKVCache)]
    return "buffer" if len(set(buffers)) != len(buffers) else None


def _cache_args(args, layouts) -> list:
    """The arguments of the cache parameters, in the order of :func:`kv_flat_positions`."""
    out: list = []
    for a, l in zip(args, layouts):
        if isinstance(l, KVCacheParam):
            out.append(a)
        elif isinstance(l, TupleParam):
            out += _cache_args(a, l.fields)
    return out


def tensor_flat_positions(args, layouts, params) -> Tuple[int, ...]:
    """The positions among the flat arguments (the order of ``arg_specs``) of the tensor parameters whose
    indices are in ``params`` (the parameters an in-place call consumes, CALL.INPLACE.6)."""
    out: List[int] = []
    pos = [0]
    for k, (a, l) in enumerate(zip(args, layouts)):
        if isinstance(l, TensorParam):
            if k in params:
                out.append(pos[0])
            pos[0] += 1
        else:
            kv_flat_positions([a], [l], pos)
    return tuple(out)


def has_kv(layouts) -> bool:
    return any(isinstance(l, KVCacheParam) or (isinstance(l, TupleParam) and has_kv(l.fields)) for l in layouts)


def param_leaves(params, path=()) -> list:
    out = []
    for i, p in enumerate(params):
        if isinstance(p, TVal):
            out.append((path + (i,), p, p.data))
        elif isinstance(p, tuple) and not isinstance(p, ShapeV):
            out.extend(param_leaves(p, path + (i,)))
    return out


def get_path(args, path):
    v = args
    for i in path:
        v = v[i]
    return v


__all__ = [
    "NotJittable", "KVCacheParam", "TensorParam", "PrimParam", "ShapeParam", "TupleParam", "layout_of", "sym_vars_of",
    "headroom_of", "cache_tied_vars", "cache_capacity", "all_dims_bucketable", "prim_val", "np_dtype_name", "fast_match", "static_facts",
    "arg_specs", "needs_padding", "kv_params", "kv_flat_positions", "kv_count_positions", "kv_counts", "aliased_caches", "tensor_flat_positions", "has_kv", "flatten_args", "rebuild_param", "param_leaves", "get_path",
]

"""Relax values as JAX pytrees: ``flatten`` gives the JAX arrays of a value (the leaves) and a hashable
description of the rest (the spec), ``unflatten`` rebuilds the value. Used for ``lax.cond`` results
(:meth:`Walker._traced_if`) and for a compiled function's outputs (:mod:`relax_jax.executable`, whose
fast paths read the same spec layout)."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref import values as rv
from relax_ref.ir import prim_expr as P
from relax_ref.interp.kv_cache import AttentionKVCache
from relax_ref.interp.paged_kv_cache import PagedKVCache

from .dims import dim_value
from .errors import TraceAbort
from .kv_cache import TracedKV
from .paged_kv_cache import TracedPaged
from .values import PrimV, ShapeV, SymInt, TVal, describe


def flatten(v: Any, new_caches: bool = False, host_vars: Optional[FrozenSet[int]] = None) -> Tuple[list, Any]:
    """``(leaves, spec)``: the JAX arrays of ``v`` and a hashable description of the rest.
    ``new_caches`` (a compiled function's result): a KV cache created in the trace leaves as its buffer
    with its static fill count and window position (``("KVnew", fill, pos)``, CALL.KVCACHE.1), a paged
    cache created there as its page pool (``("PKVnew", config)``, CALL.PAGEDKV.1), each object once (a
    second reference to it sends the call to host mode, which keeps the identity).

    A padded tensor's logical extent is an entry ``(phys, expr, carried)`` of its ``("T", ...)`` spec:
    the physical size, the extent's expression over the entry's symbolic variables (None when it has
    none) and whether a leaf (an int64 scalar after the tensor) carries its value. ``host_vars`` (the
    ids of the variables whose values the caller of a compiled function knows): an extent whose
    expression the host computes from them alone (:func:`host_known`) gets no leaf; the compiled
    function then has no output the host would not read (each costs about a microsecond a call)."""
    leaves: list = []
    spec = _flatten(v, leaves, set() if new_caches else None, host_vars)
    return leaves, spec


def host_known(e: Any, host_vars: FrozenSet[int]) -> bool:
    """Whether extent expression ``e`` is an integer function of the variables ``host_vars`` that the
    host evaluates without failing: constants, those variables, ``+``, ``-``, ``*``, ``min``, ``max``
    (a division could divide by zero, so its value is read back where the compiled code decided)."""
    if isinstance(e, P.IntImm):
        return True
    if isinstance(e, P.PrimVar):
        return id(e) in host_vars
    if isinstance(e, _HOST_OPS):
        return host_known(e.a, host_vars) and host_known(e.b, host_vars)
    return False


_HOST_OPS = (P.Add, P.Sub, P.Mul, P.Min, P.Max)


def _flatten(v: Any, leaves: list, seen: Optional[set] = None, host_vars: Optional[FrozenSet[int]] = None) -> Any:
    if isinstance(v, TVal):
        leaves.append(v.data)
        vs = []
        for d in (v.valid or (None,) * v.ndim):
            if d is None:
                vs.append(None)
            elif host_vars is not None and d.expr is not None and host_known(d.expr, host_vars):
                vs.append((d.phys, d.expr, False))
            else:
                leaves.append(jnp.asarray(d.val, jnp.int64))
                # the extent's expression over the entry's symbolic variables lets the host know it
                # without reading it back (executable._extent)
                vs.append((d.phys, d.expr, True))
        return ("T", tuple(vs))
    if isinstance(v, ShapeV):
        out = []
        for d in v:
            if d.is_static:
                out.append(("s", dim_value(d.val)))
            else:
                leaves.append(jnp.asarray(d.val, jnp.int64))
                out.append(("t", d.phys))
        return ("S", tuple(out))
    if isinstance(v, PrimV):
        if v.is_static:
            val = v.val.item() if isinstance(v.val, np.generic) else v.val
            return ("Ps", val, v.dtype, v.sym is not None)
        leaves.append(jnp.asarray(v.val))
        return ("Pt", v.dtype, v.sym.phys if v.sym is not None else "none")
    if isinstance(v, tuple):
        return ("U", tuple(_flatten(x, leaves, seen, host_vars) for x in v))
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, rv.DTypeValue):
        return ("dt", v.name)
    if v is None:
        return ("null",)
    if isinstance(v, (TracedKV, TracedPaged)):
        return ("KV", v.path)     # a cache parameter, written back into the caller's object
    if seen is not None and isinstance(v, AttentionKVCache) and type(v.fill) is int and type(v.pos) is int \
            and id(v) not in seen:
        seen.add(id(v))
        leaves.append(v.data)
        return ("KVnew", v.fill, v.pos)
    if seen is not None and type(v) is PagedKVCache and v.state.empty() and v.state.forward is None \
            and id(v) not in seen:
        seen.add(id(v))                 # a paged cache created in the trace (CALL.PAGEDKV.1): its pool
        leaves.append(v.pool)
        return ("PKVnew", v.config)
    raise TraceAbort(f"a {describe(v)} cannot leave compiled code")


def unflatten(spec: Any, leaves: list, level: int = 0, args: Any = None,
              sym: Optional[Dict[P.PrimVar, int]] = None) -> Any:
    """The value of ``spec`` over ``leaves``; a cache parameter (``("KV", path)``) is the caller's
    object at ``path`` of ``args``; an extent without a leaf is its expression's value at ``sym`` (the
    entry's symbolic values)."""
    it = iter(leaves)
    return _unflatten(spec, it, level, args, sym)


def _unflatten(spec: Any, it, level: int, args: Any = None, sym: Optional[Dict[P.PrimVar, int]] = None) -> Any:
    kind = spec[0]
    if kind == "KV":
        if args is None:
            raise TraceAbort("a KV cache parameter flows out of traced control flow")
        v = args
        for i in spec[1]:
            v = v[i]
        return v
    if kind == "T":
        data = next(it)
        valid = []
        for ent in spec[1]:
            if ent is None:
                valid.append(None)
            elif ent[2]:
                valid.append(SymInt(ent[0], next(it), ent[1]))
            else:
                if sym is None:
                    raise ValueError("an extent computed on the host needs the symbolic values")
                valid.append(SymInt(ent[0], host_extent(ent[1], sym), ent[1]))
        return TVal(data, tuple(valid), level)
    if kind == "S":
        dims = []
        for k, x in spec[1]:
            dims.append(SymInt.static(x) if k == "s" else SymInt(x, next(it), None))
        return ShapeV(dims)
    if kind == "Ps":
        val, dtype, is_sym = spec[1], spec[2], spec[3]
        return PrimV(val, dtype, SymInt.static(val) if is_sym else None)
    if kind == "Pt":
        val = next(it)
        phys = spec[2]
        return PrimV(val, spec[1], None if phys == "none" else SymInt(phys, val, None))
    if kind == "U":
        return tuple(_unflatten(s, it, level, args, sym) for s in spec[1])
    if kind == "str":
        return spec[1]
    if kind == "dt":
        return rv.DTypeValue(spec[1])
    if kind == "null":
        return None
    if kind == "KVnew":
        return AttentionKVCache(next(it), spec[1], spec[2])
    if kind == "PKVnew":
        return PagedKVCache(spec[1], next(it))
    raise ValueError(f"bad value spec {spec!r}")


def host_extent(e: Any, sym: Dict[P.PrimVar, int]) -> int:
    """The value of a :func:`host_known` extent expression at the symbolic values ``sym``."""
    if isinstance(e, P.IntImm):
        return int(e.value)
    if isinstance(e, P.PrimVar):
        return int(sym[e])
    a, b = host_extent(e.a, sym), host_extent(e.b, sym)
    return _HOST_FNS[type(e)](a, b)


_HOST_FNS = {P.Add: lambda x, y: x + y, P.Sub: lambda x, y: x - y, P.Mul: lambda x, y: x * y, P.Min: min, P.Max: max}

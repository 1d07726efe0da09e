"""The per-call fast path of an executable.

After a function has been called once, :func:`make_hot` builds a closure specialised to its most
recently used compiled entry: it checks the arguments against the parameters' struct info with
precomputed expectations (kind, rank, numpy dtype, static dims, symbolic dims and the bucket each one
must fall in), assembles the symbolic-size vector, calls the compiled function and returns its
result with a precomputed exporter. Anything it does not cover -- a new bucket, an argument needing
conversion or padding, a failing check, padded results, an error code -- returns :data:`MISS`, and the
general path (:meth:`relax_jax.executable.Executable._call`) handles the call, raising the
reference's errors.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import jax
import numpy as np

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P

MISS = object()

_ARRAY_TYPES: set = {np.ndarray}


def _is_array(a: Any) -> bool:
    t = type(a)
    if t in _ARRAY_TYPES:
        return True
    if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer):
        _ARRAY_TYPES.add(t)
        return True
    return False


def _exporter(spec) -> Optional[Callable[[tuple], Any]]:
    """A direct function from the compiled outputs to the public result, valid when every padded
    extent equals its physical size (all symbolic values sit exactly on their buckets); None when an
    output needs host conversion (prim values, shapes, strings)."""
    idx: List[Any] = []
    pos = 0

    def walk(sp):
        nonlocal pos
        kind = sp[0]
        if kind == "T":
            i = pos
            pos += 1 + sum(1 for v in sp[1] if v is not None)
            return i
        if kind == "U":
            return tuple(walk(f) for f in sp[1])
        raise LookupError(kind)

    try:
        tree = walk(spec)
    except LookupError:
        return None
    if isinstance(tree, int):
        return lambda out: out[tree]
    if all(isinstance(t, int) for t in tree):
        ids = tuple(tree)
        return lambda out: tuple(out[i] for i in ids)

    def build(t, out):
        return out[t] if isinstance(t, int) else tuple(build(x, out) for x in t)
    return lambda out: build(tree, out)


def _phys_value(v, layouts, phys_shapes) -> Optional[int]:
    """The physical extent of a parameter axis given by bare variable ``v``."""
    for l, phys in zip(layouts, phys_shapes):
        for d, n in zip(l.dims, phys):
            if d is v:
                return int(n)
    return None


def make_hot(exe, plan, compiled, bucketing: bool, key) -> Optional[Callable]:
    """The fast path for ``plan`` using ``compiled`` (None when the signature is not covered)."""
    from .executable import _TensorParam

    if compiled.has_code or compiled.mutated:
        return None
    export = _exporter(compiled.out_spec)
    if export is None:
        return None
    layouts = plan.layouts
    if not all(isinstance(l, _TensorParam) and l.dims is not None and l.dtype != "void" for l in layouts):
        return None
    sym_vars = plan.sym_vars
    var_pos = {id(v): i for i, v in enumerate(sym_vars)}
    buckets = exe.buckets
    bucket_of = key[1]
    specs: List[Tuple[np.dtype, int, Tuple]] = []
    for l, phys in zip(layouts, compiled.phys_shapes):
        dims = []
        for d, ph in zip(l.dims, phys):
            if isinstance(d, P.IntImm):
                dims.append((0, d.value))
            elif isinstance(d, P.PrimVar):
                dims.append((1, var_pos[id(d)]))
            else:
                return None
        specs.append((_dt.to_numpy(l.dtype), len(l.dims), tuple(dims), tuple(phys)))
    nsym = len(sym_vars)
    fn = compiled.fn
    # the physical size each variable's value must equal for the results to need no cutting
    phys_of = [_phys_value(v, layouts, compiled.phys_shapes) for v in sym_vars]
    if bucketing and any(p is None for p in phys_of):
        return None
    lo_hi = []
    for i in range(nsym):
        b = bucket_of[i]
        if bucketing:
            lo_hi.append(b)
        else:
            lo_hi.append(b)

    def hot(args):
        if len(args) != len(specs):
            return MISS
        vals = [None] * nsym
        for a, (dt, nd, dims, phys) in zip(args, specs):
            if not _is_array(a) or a.dtype != dt:
                return MISS
            shp = a.shape
            if len(shp) != nd or shp != phys and not bucketing:
                return MISS
            for (kind, v), n in zip(dims, shp):
                if kind == 0:
                    if v != n:
                        return MISS
                else:
                    cur = vals[v]
                    if cur is None:
                        vals[v] = n
                    elif cur != n:
                        return MISS
            if shp != phys:
                return MISS          # needs padding: the general path pads
        if nsym:
            for i in range(nsym):
                if (plan.bucket(sym_vars[i], vals[i]) if bucketing else vals[i]) != lo_hi[i]:
                    return MISS
                if bucketing and vals[i] != phys_of[i]:
                    return MISS          # padded: results must be cut (general path)
            with jax.enable_x64(True):
                out = fn(*args, np.asarray(vals, np.int64))
        else:
            with jax.enable_x64(True):
                out = fn(*args)
        exe.stats.cache_hits += 1
        return export(out)

    return hot


__all__ = ["make_hot", "MISS"]

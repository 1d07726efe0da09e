"""The per-call fast path of an executable.

After a function has been called once, :func:`make_hot` builds a closure specialised to its most
recently used compiled entry. It accepts the call only when every argument is a concrete array with
exactly the compiled physical shape (so no padding in and no cutting out, and the symbolic-size vector
is a constant kept on the device), lets the compiled executable check shapes and dtypes, and returns
the result with a precomputed exporter. Anything it does not cover -- a new bucket, an argument needing
conversion or padding, a mismatch, padded results, a failed run-time check (the error code the
compiled function returns, read back) -- returns :data:`MISS`, and the general path (:meth:`relax_jax.executable.Executable._call`) handles the call, raising the
reference's errors.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import jax
import numpy as np

from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P

MISS = object()

_JAX_ARRAY_TYPES: set = set()


def _is_array(a: Any) -> bool:
    """Whether ``a`` is a concrete (non-traced) JAX array; registers its type for the fast check."""
    if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer):
        _JAX_ARRAY_TYPES.add(type(a))
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
    """The fast path for ``plan`` using ``compiled`` (None when the signature is not covered).

    The path accepts only arguments whose shapes equal the compiled physical shapes, so every
    symbolic value equals its physical extent and the symbolic-size vector is a constant, made once
    on the device. Shapes (and the dtypes of JAX arrays) are checked by the compiled executable
    itself, which raises ``TypeError`` on any mismatch: the general path then takes the call and
    raises the reference's error. NumPy arguments have their dtype checked here, since the
    executable would convert them silently."""
    from .executable import _TensorParam

    if compiled.mutated:
        return None
    export = _exporter(compiled.out_spec)
    if export is None:
        return None
    layouts = plan.layouts
    if not all(isinstance(l, _TensorParam) and l.dims is not None and l.dtype != "void" for l in layouts):
        return None
    sym_vars = plan.sym_vars
    np_dtypes = []
    for l, phys in zip(layouts, compiled.phys_shapes):
        if len(l.dims) != len(phys):
            return None
        for d, n in zip(l.dims, phys):
            if isinstance(d, P.IntImm):
                if d.value != n:
                    return None
            elif not isinstance(d, P.PrimVar):
                return None
        np_dtypes.append(_dt.to_numpy(l.dtype))
    fn = compiled.fn
    nparams = len(layouts)
    extra: tuple = ()
    if sym_vars:
        # the value each variable takes when every argument has its physical shape; the path is
        # valid only if that value selects this very compilation (growth-aware buckets may not)
        vals = []
        for v, b in zip(sym_vars, key[1]):
            n = _phys_value(v, layouts, compiled.phys_shapes)
            if n is None or (plan.bucket(v, n) if bucketing else n) != b:
                return None
            vals.append(n)
        if _consistent(layouts, compiled.phys_shapes) is False:
            return None
        with jax.enable_x64(True):
            symvec = jax.device_put(np.asarray(vals, np.int64), exe.device)
        extra = (symvec,)
    checks = [(i, dt) for i, dt in enumerate(np_dtypes)]
    stats = exe.stats
    has_code = compiled.has_code

    def hot(args):
        if len(args) != nparams:
            return MISS
        for i, dt in checks:
            a = args[i]
            t = type(a)
            if t in _JAX_ARRAY_TYPES:
                continue
            if t is np.ndarray and a.dtype == dt:
                continue
            if _is_array(a) and not isinstance(a, np.ndarray):
                continue                # another concrete jax.Array type (now registered)
            return MISS
        try:
            out = fn(*args, *extra)
        except TypeError:
            return MISS                 # a shape or dtype the executable was not compiled for
        if has_code:
            if int(out[-1]):
                return MISS             # a run-time check failed: the general path re-runs and raises
            out = out[:-1]
        stats.cache_hits += 1
        return export(out)

    return hot


def _consistent(layouts, phys_shapes) -> bool:
    """Whether the physical shapes give each symbolic variable a single value."""
    seen: dict = {}
    for l, phys in zip(layouts, phys_shapes):
        for d, n in zip(l.dims, phys):
            if isinstance(d, P.PrimVar):
                if seen.setdefault(id(d), n) != n:
                    return False
    return True


__all__ = ["make_hot", "MISS"]

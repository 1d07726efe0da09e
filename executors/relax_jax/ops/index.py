"""Lowerings of the indexing operators (semantics: ``relax_ref.ops.index``).

Indices out of range are run-time checks (OP.INDEX.RANGE: ``op_runtime``), evaluated over the valid
indices only; the gathers themselves use clamped indices. ``take`` is padding-aware (the indexed axis
and the index tensor may be padded); ``strided_slice`` handles padding on the axes it does not slice;
``dynamic_strided_slice`` has a data-dependent shape and runs on the host.
"""

from __future__ import annotations

from typing import Any, List

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.errors import OpRuntimeError

from ..dims import dim_value, dims_differ
from ..errors import NeedsExact
from ..host_checks import IndexRange, host_param
from ..lowering import lowering
from ..prim_jax import is_static, np_dtype
from ..symbolic import upper_bound
from ..values import PrimV, SymInt, TVal


def runtime_error(ctx, msg: str) -> OpRuntimeError:
    return ctx.error(OpRuntimeError, f"{ctx.op_name}: {msg}")


def range_check(ctx, idx, extent, what: str, valid=None) -> None:
    bad = (idx < 0) | (idx >= jnp.asarray(extent, jnp.int64))
    name = ctx.op_name
    ctx.check(bad, lambda: OpRuntimeError(f"{name}: {what} is out of range for an axis of extent "
                                          f"{extent if is_static(extent) else '?'}"), valid)


def _range_on_host(ctx, ibox, extent) -> bool:
    """Whether the host checks the indices before each call (:class:`relax_jax.host_checks.IndexRange`):
    a small tensor parameter, taken at the function's top level along an axis of static extent."""
    if isinstance(ibox, PrimV) or not is_static(extent) or ctx.walker.level != 0:
        return False
    path = host_param(ctx.walker.sink, ibox.data)
    return path is not None and ctx.walker.sink.check_on_host(IndexRange(path, int(extent)))


def _box(ctx, data, valid) -> TVal:
    return TVal(data, tuple(valid) if valid is not None else None, ctx.walker.level)


@lowering("relax.take", padding="aware")
def _take(ctx, x, ind):
    ibox = ctx.vals[1]
    if isinstance(ibox, PrimV):
        ind = jnp.asarray(ibox.val, np_dtype(ibox.dtype))
        ivalid: tuple = ()
    else:
        ivalid = ctx.valid(1)
    axis = ctx.attrs.get("axis")
    a = 0 if axis is None else axis % x.ndim
    xvalid = ctx.valid(0)
    d = ctx.vals[0].dim(a)
    extent = dim_value(d.val) if d.is_static else d.val
    phys = dim_value(x.shape[a])
    mode = ctx.attrs.get("mode", "fast")
    ind = ind.astype(jnp.int64)
    imask = ctx.valid_mask(ind.shape, ivalid) if ivalid else None
    if mode == "fast":
        if not _range_on_host(ctx, ibox, extent):
            range_check(ctx, ind, extent, "an index", imask)
    elif mode in ("clip", "wrap"):
        if is_static(extent):
            if extent == 0 and ind.size:
                raise runtime_error(ctx, "cannot take from an empty axis")
        else:
            ctx.check(jnp.asarray(extent) == 0, lambda: OpRuntimeError("cannot take from an empty axis"))
        if mode == "clip":
            ind = jnp.clip(ind, 0, jnp.asarray(extent, jnp.int64) - 1)
        else:
            ind = jnp.mod(ind, jnp.maximum(jnp.asarray(extent, jnp.int64), 1))
    if phys == 0:
        out = jnp.zeros(x.shape[:a] + ind.shape + x.shape[a + 1:], x.dtype)
    else:
        out = jnp.take(x, jnp.clip(ind, 0, phys - 1), axis=a)
    if mode == "nan":
        bad = (ind < 0) | (ind >= jnp.asarray(extent, jnp.int64))
        mask = jnp.reshape(bad, (1,) * a + ind.shape + (1,) * (x.ndim - a - 1))
        out = jnp.where(mask, jnp.asarray(np.nan, x.dtype), out)
    valid = list(xvalid[:a]) + list(ivalid if ivalid else (None,) * ind.ndim) + list(xvalid[a + 1:])
    return _box(ctx, out, valid)


def _values(v) -> List[int]:
    out = []
    for x in v:
        if isinstance(x, PrimV):
            if not is_static(x.val):
                raise NeedsExact("a slice bound is not static")
            out.append(dim_value(x.val))
        else:
            out.append(int(x))
    return out


def _traced_values(v) -> List[Any]:
    """Slice bounds: Python ints, or traced int64 scalars for symbolic bounds under bucketing."""
    out: List[Any] = []
    for x in v:
        if isinstance(x, PrimV):
            out.append(dim_value(x.val) if is_static(x.val) else jnp.asarray(x.val, jnp.int64))
        else:
            out.append(int(x))
    return out


def _clamp_bound(i, d):
    """A slice bound in Python's convention for a positive stride: negative counts from the end,
    then clamped to ``[0, d]`` (OP.strided_slice.C6)."""
    i = jnp.where(i < 0, i + d, i)
    return jnp.clip(i, 0, d)


def _exact_slice(b: int, e: int, s: int, d: int) -> slice:
    """``slice(b, e, s)`` on an axis of extent ``d`` as an equivalent slice whose stride is at most the
    extent: JAX computes a slice's length in int64 (``stop - start + step - 1``), which a stride near
    2**63 overflows (an XLA abort or a mismatched buffer; RUNTIME.LIMIT.1)."""
    r = range(*slice(b, e, s).indices(d))
    if len(r) == 0:
        return slice(0, 0, 1)
    if len(r) == 1:
        return slice(r[0], r[0] + 1, 1)
    return slice(r.start, r.stop if r.stop >= 0 else None, r.step)


def _static_slice(x, sl):
    """``x[tuple(sl)]`` for slices of :func:`_exact_slice` (or ``slice(None)``): the ``slice`` that
    indexing binds for positive strides, bound directly."""
    if not all(type(d) is int for d in x.shape):
        return x[tuple(sl)]
    starts, limits, steps = [], [], []
    for d, s in zip(x.shape, sl):
        r = range(*s.indices(dim_value(d)))
        if r.step < 0:
            return x[tuple(sl)]
        starts.append(r.start if len(r) else 0)
        limits.append(r.start + (len(r) - 1) * r.step + 1 if len(r) else 0)
        steps.append(r.step)
    if starts == [0] * len(starts) and limits == [dim_value(d) for d in x.shape]:
        return x
    return lax.slice(x, starts, limits, None if all(k == 1 for k in steps) else steps)


def _strided_slice_traced(ctx, x, axes, begin, end, strides):
    """strided_slice with symbolic bounds or of a padded axis: each sliced axis becomes a gather (or a
    ``dynamic_slice`` when its length is static and the stride 1) of the length the inferred struct
    info gives, static or bounded (then the result is padded)."""
    assume = bool(ctx.attrs.get("assume_inbound", False))
    valid = list(ctx.valid(0))
    dims = ctx.walker.sinfo_dims(ctx.walker.inferred(ctx.call), ctx.frame)
    if dims is None:
        raise NeedsExact("a slice bound is not static")
    out = x
    for a, b, e, st in zip(axes, begin, end, strides):
        if not -x.ndim <= a < x.ndim:
            raise runtime_error(ctx, f"axis {a} is out of range for a tensor of rank {x.ndim}")
        a %= x.ndim
        if st == 0:
            raise runtime_error(ctx, f"the stride of axis {a} is zero")
        if st < 0:
            raise NeedsExact("a slice with a negative stride and a bound that is not static")
        d0 = ctx.vals[0].dim(a)
        d = jnp.asarray(dim_value(d0.val) if d0.is_static else d0.val, jnp.int64)
        bj, ej = jnp.asarray(b, jnp.int64), jnp.asarray(e, jnp.int64)
        if assume:
            bad = (bj < 0) | (bj > d) | (ej < 0) | (ej > d)
            ctx.check(bad, lambda a=a: OpRuntimeError(
                f"relax.strided_slice: assume_inbound=True, but the slice is not within the extent of axis {a}"))
        lo, hi = _clamp_bound(bj, d), _clamp_bound(ej, d)
        length = jnp.maximum(-((lo - hi) // st), 0)      # ceil((hi - lo) / st), no int64 overflow for a huge st
        dd = dims[a]
        if dd.is_static:
            size = dim_value(dd.val)
            ctx.check(length != size, lambda a=a, size=size: OpRuntimeError(
                f"relax.strided_slice: the result extent on axis {a} differs from its struct info ({size})"))
            new_valid = None
        else:
            # a slice is never longer than its axis: the axis' physical extent bounds it
            ub = upper_bound(dd, ctx.walker.var_bounds)
            size = dim_value(out.shape[a]) if ub is None else min(ub, dim_value(out.shape[a]))
            ctx.check(length != jnp.asarray(dd.val, jnp.int64), lambda a=a: OpRuntimeError(
                f"relax.strided_slice: the result extent on axis {a} differs from its struct info"))
            new_valid = SymInt(size, length, dd.expr)
        phys = dim_value(out.shape[a])
        if phys == 0 or size == 0:
            shape = list(out.shape)
            shape[a] = size
            out = jnp.zeros(shape, out.dtype)
        elif st == 1 and new_valid is None and size <= phys:
            # in bounds whenever the length is right (checked above): no clamping of the start
            out = lax.dynamic_slice_in_dim(out, lo, size, axis=a)
        else:
            idx = jnp.clip(lo + jnp.arange(size, dtype=jnp.int64) * st, 0, phys - 1)
            out = jnp.take(out, idx, axis=a)
        valid[a] = new_valid
    return _box(ctx, out, valid)


@lowering("relax.strided_slice", padding="aware")
def _strided_slice(ctx, x, axes, begin, end, strides=None):
    axes = _values(axes)
    strides_v = _values(strides) if strides is not None else [1] * len(axes)
    tb, te = _traced_values(begin), _traced_values(end)
    padded = [a for a in axes if -x.ndim <= a < x.ndim and ctx.valid(0)[a % x.ndim] is not None]
    if not all(is_static(v) for v in tb + te) or padded:
        if not len(axes) == len(tb) == len(te) == len(strides_v):
            raise runtime_error(ctx, "axes, begin, end and strides must have the same length")
        return _strided_slice_traced(ctx, x, axes, tb, te, strides_v)
    begin, end, strides = _values(begin), _values(end), strides_v
    if not len(axes) == len(begin) == len(end) == len(strides):
        raise runtime_error(ctx, "axes, begin, end and strides must have the same length")
    assume = bool(ctx.attrs.get("assume_inbound", False))
    valid = list(ctx.valid(0))
    sl = [slice(None)] * x.ndim
    for a, b, e, s in zip(axes, begin, end, strides):
        if not -x.ndim <= a < x.ndim:
            raise runtime_error(ctx, f"axis {a} is out of range for a tensor of rank {x.ndim}")
        if s == 0:
            raise runtime_error(ctx, f"the stride of axis {a} is zero")
        if valid[a % x.ndim] is not None:
            raise NeedsExact("strided_slice of a padded axis")
        d = dim_value(x.shape[a % x.ndim])
        if assume and not (0 <= b <= d and 0 <= e <= d):
            raise runtime_error(ctx, f"assume_inbound=True, but [{b}, {e}) is not within [0, {d}] on axis {a}")
        sl[a % x.ndim] = _exact_slice(b, e, s, d)
    out = _static_slice(x, sl)
    dims = ctx.walker.sinfo_dims(ctx.walker.inferred(ctx.call), ctx.frame)
    if dims is not None:
        for k, (dd, n) in enumerate(zip(dims, out.shape)):
            if dd.is_static and valid[k] is None and dims_differ(dim_value(dd.val), n):
                raise runtime_error(ctx, f"the result has extent {n} on axis {k}, its struct info says {dd.val}")
    return _box(ctx, out, valid)


@lowering("relax.dynamic_strided_slice", host_only=True)
def _dyn_slice(ctx, x, b, e, s):
    b, e, s = (np.asarray(t) for t in (b, e, s))
    sl = []
    for a in range(x.ndim):
        st = int(s[a])
        if st == 0:
            raise runtime_error(ctx, f"the stride of axis {a} is zero")
        sl.append(slice(int(b[a]), int(e[a]), st))
    return x[tuple(sl)]


@lowering("relax.gather_elements")
def _gather_elements(ctx, x, ind):
    a = ctx.attrs.get("axis", 0) % x.ndim
    for d in range(x.ndim):
        if d != a and ind.shape[d] > x.shape[d]:
            raise runtime_error(ctx, f"indices of shape {ind.shape} do not fit data of shape {x.shape}")
    ind = ind.astype(jnp.int64)
    range_check(ctx, ind, dim_value(x.shape[a]), "an index")
    sub = x[tuple(slice(0, ind.shape[d]) if d != a else slice(None) for d in range(x.ndim))]
    if x.shape[a] == 0:
        return jnp.zeros(ind.shape, x.dtype)
    return jnp.take_along_axis(sub, jnp.clip(ind, 0, x.shape[a] - 1), axis=a)


@lowering("relax.gather_nd")
def _gather_nd(ctx, x, ind):
    ind = ind.astype(jnp.int64)
    b = ctx.attrs.get("batch_dims", 0)
    last = ind.shape[-1]
    if last > x.ndim - b or b > ind.ndim - 1:
        raise runtime_error(ctx, f"indices of shape {ind.shape} do not fit data of shape {x.shape}")
    if tuple(ind.shape[:b]) != tuple(x.shape[:b]):
        raise runtime_error(ctx, f"batch dims of indices {ind.shape[:b]} and data {x.shape[:b]} differ")
    lead = ind.shape[:-1]
    flat = ind.reshape(int(np.prod(ind.shape[:-1], dtype=np.int64)), last)   # -1 is ambiguous when last == 0
    n = flat.shape[0]
    coords = jnp.unravel_index(jnp.arange(n), lead) if lead else ()
    key = []
    for k in range(b):
        key.append(coords[k])
    for j in range(last):
        ext = dim_value(x.shape[b + j])
        range_check(ctx, flat[:, j], ext, "an index")
        key.append(jnp.clip(flat[:, j], 0, max(ext - 1, 0)))
    if x.size == 0:
        # an axis of extent 0: every index into it is out of range (checked above), and XLA cannot
        # gather a slice from it; the result is empty or the call fails
        return jnp.zeros(tuple(lead) + tuple(x.shape[b + last:]), x.dtype)
    out = x[tuple(key)] if key else jnp.broadcast_to(x, (n,) + x.shape)
    return jnp.reshape(out, tuple(lead) + tuple(x.shape[b + last:]))


@lowering("relax.index_tensor")
def _index_tensor(ctx, x, ind):
    ind = [jnp.asarray(i).astype(jnp.int64) for i in ind]
    try:
        shape = jnp.broadcast_shapes(*[i.shape for i in ind])
    except ValueError:
        raise runtime_error(ctx, "the index tensors cannot be broadcast together") from None
    ind = [jnp.broadcast_to(i, shape) for i in ind]
    out_idx = []
    for k, i in enumerate(ind):
        ext = dim_value(x.shape[k])
        range_check(ctx, i, ext, f"an index (tensor {k})")
        out_idx.append(jnp.clip(i, 0, max(ext - 1, 0)))
    if any(dim_value(x.shape[k]) == 0 for k in range(len(ind))):
        # an axis of extent 0: every index into it is out of range (checked above), and XLA cannot
        # gather from it; the result is empty or the call fails
        return jnp.zeros(tuple(shape) + tuple(x.shape[len(ind):]), x.dtype)
    return x[tuple(out_idx)]


@lowering("relax.one_hot", padding="aware")
def _one_hot(ctx, ind, on, off):
    """The new axis is exact; every other axis keeps the index tensor's padding (the padded rows hold
    whatever their garbage indices select, and are cut away)."""
    ind = ind.astype(jnp.int64)
    depth = ctx.attrs["depth"]
    axis = ctx.attrs.get("axis", -1)
    axis = axis + ind.ndim + 1 if axis < 0 else axis
    t = np_dtype(on.dtype)
    shape = tuple(ind.shape[:axis]) + (depth,) + tuple(ind.shape[axis:])
    if ind.size == 0:
        out = jnp.zeros(shape, t)      # no iota of a depth near 2**63 (XLA aborts on its byte size)
    else:
        hot = jnp.expand_dims(ind, axis) == lax.broadcasted_iota(jnp.int64, shape, axis)
        out = jnp.where(hot, jnp.asarray(on.val).astype(t), jnp.asarray(off.val).astype(t))
    if not ctx.padded(0):
        return out
    valid = list(ctx.valid(0))
    return TVal(out, tuple(valid[:axis]) + (None,) + tuple(valid[axis:]), ctx.walker.level)


# ---------------------------------------------------------------------------------------------------
# Scatters (sequential semantics)
# ---------------------------------------------------------------------------------------------------



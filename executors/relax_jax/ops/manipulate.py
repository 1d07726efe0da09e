"""Lowerings of the manipulation operators (semantics: ``relax_ref.ops.manipulate``).

Padding: ``permute_dims``, ``expand_dims``, ``squeeze`` carry each axis's padding along; ``reshape`` and
``flatten`` are exact when only the leading axis is padded on both sides (the valid elements are then
a prefix of the flat buffer in both layouts) -- any other padded reshape compiles for exact shapes;
``concat`` along a padded axis places each operand at its logical offset
(``dynamic_update_slice``); ``flip`` of a padded axis gathers ``n - 1 - i``; ``split``, ``broadcast_to``
and ``take``-like ops handle padding on the axes they do not touch. ``repeat``, ``tile``, ``stack``,
``meshgrid``, ``collapse_sum_*`` need exact shapes.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.errors import OpRuntimeError
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.ir.distributed import DTensorStructInfo
from relax_ref.ops import collective
from relax_ref.ops.dist_shards import local_reshape_hint, reshape_target
from relax_ref.ops.manipulate_broadcast import collapse_sum_axes
from relax_ref.ops.manipulate_join import split_bounds

from .. import laxops
from ..dims import dim_value, dims_differ, dims_equal, is_symbolic_dim
from ..errors import NeedsExact
from ..lowering import lowering
from ..prim_jax import is_static
from ..symbolic import upper_bound
from ..values import ShapeV, SymInt, TVal


def _rt(ctx, msg: str) -> OpRuntimeError:
    return ctx.error(OpRuntimeError, f"{ctx.op_name}: {msg}")


def _box(ctx, data, valid) -> TVal:
    return TVal(data, tuple(valid) if valid is not None else None, ctx.walker.level)


def _static_prod(dims) -> Any:
    n: Any = 1
    for d in dims:
        if d.is_static:
            n = n * dim_value(d.val)
        else:
            n = jnp.asarray(n, jnp.int64) * jnp.asarray(d.val, jnp.int64)
    return n


def _same_count(a_dims, b_dims) -> bool:
    """Whether two lists of extents provably hold as many elements: equal products of their static
    extents and the same symbolic factors (the extents' expressions over the entry's variables, as a
    multiset), so an identity of polynomials; False when undecided."""
    def factors(e, acc):          # a product's constant and its other factors
        if isinstance(e, P.Mul):
            return factors(e.b, factors(e.a, acc))
        if isinstance(e, P.IntImm):
            return (acc[0] * e.value, acc[1])
        acc[1].append(e)
        return acc

    def split(dims):
        n, rest = 1, []
        for d in dims:
            if d.is_static and not is_symbolic_dim(d.val):
                n *= dim_value(d.val)
            elif d.expr is None:
                return None
            else:
                n, rest = factors(d.expr, (n, rest))
        return n, rest
    a, b = split(a_dims), split(b_dims)
    if a is None or b is None or a[0] != b[0] or len(a[1]) != len(b[1]) or not a[1]:
        return False
    rest = list(b[1])
    for e in a[1]:
        k = next((i for i, f in enumerate(rest) if f is e or (not isinstance(e, P.PrimVar) and f == e)), None)
        if k is None:
            return False
        del rest[k]
    return True


def _eq_check(ctx, a: Any, b: Any, msg: str) -> None:
    if is_static(a) and is_static(b):
        if int(a) != int(b):
            raise _rt(ctx, msg)
        return
    if is_symbolic_dim(a) or is_symbolic_dim(b):  # jax.export: decided while tracing when JAX can
        same = dims_equal(a, b)
        if same is False:
            raise _rt(ctx, msg)
        if same:
            return
    ctx.check(jnp.asarray(a) != jnp.asarray(b), lambda: OpRuntimeError(f"{ctx.op_name}: {msg}"))


def _leading_padded_only(dims) -> bool:
    return all(d.is_static for d in dims[1:])


def _prefix_layout(dims) -> bool:
    """At most one padded axis, preceded only by static unit axes and followed by static ones: the
    valid elements are then a prefix of the row-major buffer."""
    padded = [k for k, d in enumerate(dims) if not d.is_static]
    if len(padded) > 1:
        return False
    if not padded:
        return True
    k = padded[0]
    return all(dim_value(d.val) == 1 for d in dims[:k])


def reshape_padded(ctx, x, i: int, shape: ShapeV):
    """Reshape argument ``i`` to ``shape`` (logical dims); exact on padded data when only the
    leading axis is padded on both sides."""
    dims = ctx.vals[i].dims()
    if any(is_static(d.val) and dim_value(d.val) < 0 for d in shape if d.is_static):
        raise _rt(ctx, f"cannot reshape a tensor of shape {x.shape} to {[d.val for d in shape]}")
    if not _same_count(dims, shape):         # decided while tracing: no run-time check in the program
        xin, out_n = _static_prod(dims), _static_prod(shape)
        _eq_check(ctx, xin, out_n, f"cannot reshape a tensor of shape {tuple(x.shape)} "
                                   f"({xin if is_static(xin) else '?'} elements) to the new shape")
    if not ctx.padded(i) and shape.is_static:
        return laxops.reshape(x, shape.ints())
    if not _prefix_layout(dims) or not _prefix_layout(shape) or not shape:
        raise NeedsExact("reshape of a tensor padded on an inner axis")
    phys = [int(d.phys if not d.is_static else d.val) for d in shape]
    if int(np.prod(phys, dtype=np.int64)) != int(np.prod(x.shape, dtype=np.int64)):
        raise NeedsExact("reshape whose padded sizes do not match")
    return _box(ctx, laxops.reshape(x, phys), [None if d.is_static else d for d in shape])


@lowering("relax.reshape", padding="aware")
def _reshape(ctx, x, shape):
    if not isinstance(shape, ShapeV):
        raise _rt(ctx, "the new shape must be a shape value")
    if collective.current().local and isinstance(ctx.call.struct_info, DTensorStructInfo):
        if not shape.is_static:                                                     # DIST.LOCAL.4
            raise NeedsExact("reshape of a DTensor to a symbolic shape in the local view")
        shape = ShapeV(reshape_target(ctx.call, shape.ints()))
        if int(np.prod(shape.ints(), dtype=np.int64)) != int(np.prod(x.shape, dtype=np.int64)):
            raise _rt(ctx, f"cannot reshape a tensor of shape {tuple(x.shape)} to {shape.ints()}"
                           f"{local_reshape_hint(ctx.call)}")
    return reshape_padded(ctx, x, 0, shape)


@lowering("relax.flatten", padding="aware")
def _flatten(ctx, x):
    return reshape_padded(ctx, x, 0, ShapeV([_flat_dim(ctx.vals[0].dims())]))


def _flat_dim(dims) -> SymInt:
    n = _static_prod(dims)
    if is_static(n):
        return SymInt.static(int(n))
    ph = 1
    for d in dims:
        ph *= int(d.phys if not d.is_static else d.val)
    return SymInt(ph, n, None)


@lowering("relax.permute_dims", padding="aware")
def _permute(ctx, x):
    axes = ctx.attrs.get("axes")
    perm = list(range(x.ndim - 1, -1, -1)) if axes is None else [a % x.ndim for a in axes]
    valid = ctx.valid(0)
    return _box(ctx, jnp.transpose(x, perm), [valid[p] for p in perm])


@lowering("relax.expand_dims", padding="aware")
def _expand(ctx, x):
    out_ndim = x.ndim + len(ctx.attrs["axis"])
    axes = sorted(a % out_ndim for a in ctx.attrs["axis"])
    valid = iter(ctx.valid(0))
    out_valid = [None if k in axes else next(valid) for k in range(out_ndim)]
    return _box(ctx, jnp.expand_dims(x, tuple(axes)), out_valid)


@lowering("relax.squeeze", padding="aware")
def _squeeze(ctx, x):
    axis = ctx.attrs.get("axis")
    dims = ctx.vals[0].dims()
    valid = ctx.valid(0)
    if any(not d.is_static and d.phys == 1 for d in dims):
        raise NeedsExact("squeeze of a padded axis of bucket 1")
    if axis is None:
        drop = [a for a in range(x.ndim) if dims[a].is_static and dim_value(dims[a].val) == 1]
    else:
        s = ctx.call.args[0].struct_info
        static = s.shape_values if isinstance(s, TensorStructInfo) else None
        drop = []
        for a in sorted({a % x.ndim for a in axis}) if x.ndim else []:
            d = dims[a]
            if not d.is_static:
                raise NeedsExact("squeeze of a padded axis")
            if dim_value(d.val) == 1:
                drop.append(a)
                continue
            sd = static[a] if static is not None and a < len(static) else None
            if isinstance(sd, P.IntImm):
                continue
            raise _rt(ctx, f"cannot squeeze axis {a} of extent {d.val} (it must be 1)")
    out = jnp.squeeze(x, axis=tuple(drop)) if drop else x
    return _box(ctx, out, [v for k, v in enumerate(valid) if k not in drop])


@lowering("relax.concat", padding="aware")
def _concat(ctx, xs):
    boxes = list(ctx.vals[0])
    ndim = boxes[0].ndim
    a0 = ctx.attrs.get("axis", 0)
    axis = 0 if a0 is None else a0 % max(ndim, 1)
    if a0 is None and any(b.ndim != 1 for b in boxes):
        raise _rt(ctx, "concat without an axis needs 1-D tensors")
    for b in boxes[1:]:
        if b.ndim != ndim:
            raise _rt(ctx, f"tensors of shapes {boxes[0].shape} and {b.shape} cannot be concatenated on axis {axis}")
        for d in range(ndim):
            if d == axis:
                continue
            da, db = boxes[0].dim(d), b.dim(d)
            if da.is_static and db.is_static:
                if dims_differ(dim_value(da.val), dim_value(db.val)):
                    raise _rt(ctx, f"tensors of shapes {boxes[0].shape} and {b.shape} cannot be concatenated on "
                                   f"axis {axis}")
            else:
                if b.data.shape[d] != boxes[0].data.shape[d]:
                    raise NeedsExact("concat of tensors padded differently")
                if not _same_count([da], [db]):
                    _eq_check(ctx, da.val, db.val, "tensors cannot be concatenated (extents differ)")
    padded_axis = any(b.valid is not None and b.valid[axis] is not None for b in boxes)
    other_valid = list(boxes[0].valid) if boxes[0].valid is not None else [None] * ndim
    if not padded_axis:
        out = jnp.concatenate([b.data for b in boxes], axis=axis)
        other_valid[axis] = None
        return _box(ctx, out, other_valid)
    phys = sum(dim_value(b.data.shape[axis]) for b in boxes)
    shape = list(boxes[0].data.shape)
    rest = boxes
    bound = _concat_bound(ctx, boxes, axis)
    if bound is not None and bound < phys and all(b.valid is None or b.valid[axis] is None for b in boxes[1:]):
        # the total is bounded (e.g. a cache of L <= bucket - 1 rows plus one row): keep the first
        # operand's buffer, grown to the bound if needed, and write the exact operands after its valid
        # prefix; every write ends at or before the bound, so none is clamped
        first = boxes[0].data
        phys = max(bound, dim_value(first.shape[axis]))
        if phys > first.shape[axis]:
            widths = [(0, 0)] * ndim
            widths[axis] = (0, phys - dim_value(first.shape[axis]))
            first = jnp.pad(first, widths)
        out = first
        d0 = boxes[0].dim(axis)
        off: Any = dim_value(d0.val) if d0.is_static else d0.val
        rest = boxes[1:]
    else:
        shape[axis] = phys
        out = jnp.zeros(shape, boxes[0].data.dtype)
        off = 0
    for b in rest:
        start = [0] * ndim
        start[axis] = jnp.asarray(off, jnp.int64) if not is_static(off) else off
        out = lax.dynamic_update_slice(out, b.data.astype(out.dtype), start)
        d = b.dim(axis)
        off = off + (dim_value(d.val) if d.is_static else d.val)
    other_valid[axis] = SymInt(phys, jnp.asarray(off, jnp.int64), _sum_expr([b.dim(axis) for b in boxes]))
    return _box(ctx, out, other_valid)


def _sum_expr(dims) -> Any:
    """The sum of the extents as an expression over the entry variables (None when one has none)."""
    e: Any = None
    for d in dims:
        x = P.IntImm(dim_value(d.val)) if d.is_static else d.expr
        if x is None:
            return None
        e = x if e is None else e + x
    return e


def _concat_bound(ctx, boxes, axis: int) -> Optional[int]:
    """A static upper bound of the concatenated extent (None when one operand has none)."""
    total = 0
    for b in boxes:
        ub = upper_bound(b.dim(axis), ctx.walker.var_bounds)
        if ub is None:
            return None
        total += ub
    return total


@lowering("relax.split", padding="aware")
def _split(ctx, x):
    ios = ctx.attrs["indices_or_sections"]
    axis = ctx.attrs.get("axis", 0) % x.ndim
    valid = list(ctx.valid(0))
    if valid[axis] is not None:
        raise NeedsExact("split along a padded axis")
    if (ios if isinstance(ios, int) else len(ios) + 1) == 1:
        return _box(ctx, x, valid)
    parts = tuple(lax.slice_in_dim(x, b, e, axis=axis) for b, e in split_bounds(dim_value(x.shape[axis]), ios))
    s = ctx.walker.inferred(ctx.call)
    fields = s.fields if hasattr(s, "fields") else [s]
    for p, f in zip(parts, fields):
        dims = ctx.walker.sinfo_dims(f, ctx.frame)
        if dims is not None:
            for k, (d, n) in enumerate(zip(dims, p.shape)):
                if k == axis and d.is_static and dims_differ(dim_value(d.val), n):
                    raise _rt(ctx, f"a part has extent {n} on axis {axis}, its struct info says {d.val}")
    return tuple(_box(ctx, p, valid) for p in parts)


@lowering("relax.broadcast_to", padding="aware")
def _broadcast_to(ctx, x, shape):
    dims = ctx.vals[0].dims()
    tgt = list(shape)
    if len(tgt) < len(dims):
        raise _rt(ctx, f"cannot broadcast a tensor of shape {x.shape} to {[d.val for d in tgt]}")
    off = len(tgt) - len(dims)
    phys = []
    for k, t in enumerate(tgt):
        if t.is_static:
            phys.append(dim_value(t.val))
        elif t.phys is None:
            raise NeedsExact("broadcast to an unbounded extent")
        else:
            phys.append(dim_value(t.phys))
    for k, d in enumerate(dims):
        t = tgt[off + k]
        if d.is_static and t.is_static:
            if dims_differ(dim_value(d.val), 1) and dims_differ(dim_value(d.val), dim_value(t.val)):
                raise _rt(ctx, f"cannot broadcast a tensor of shape {tuple(dim_value(e.val) for e in dims)} to "
                               f"{tuple(dim_value(e.val) for e in tgt) if all(e.is_static for e in tgt) else '?'}")
        else:
            if x.shape[k] != phys[off + k]:
                if d.is_static and dim_value(d.val) == 1:
                    continue
                raise NeedsExact("broadcast of a padded axis")
            if not _same_count([d], [t]):
                _eq_check(ctx, d.val, t.val, "cannot broadcast (extents differ)")
    out = jnp.broadcast_to(x, tuple(phys))
    return _box(ctx, out, [None if t.is_static else t for t in tgt])


def _collapse(ctx, x, target: Sequence[int]):
    target = tuple(int(t) for t in target)
    axes = collapse_sum_axes(x.shape, target, lambda msg: _rt(ctx, msg))
    out = jnp.sum(x, axis=tuple(axes), keepdims=True, dtype=x.dtype) if axes else x
    return jnp.reshape(out, target)


@lowering("relax.collapse_sum_like")
def _collapse_like(ctx, x, t):
    return _collapse(ctx, x, t.shape)


@lowering("relax.collapse_sum_to")
def _collapse_to(ctx, x, shape):
    return _collapse(ctx, x, ctx.ints(shape))


@lowering("relax.repeat", padding="aware")
def _repeat(ctx, x):
    """Padded axes other than the repeated one stay padded (each output element copies the input
    element at the same position of those axes); a padded repeated axis or a flattening repeat needs
    exact shapes."""
    axis = ctx.attrs.get("axis")
    valid = ctx.valid(0)
    if axis is None:
        if any(d is not None for d in valid):
            ctx.require_exact("repeat without an axis flattens a padded tensor")
        return jnp.repeat(jnp.reshape(x, (-1,)), ctx.attrs["repeats"])
    ax = axis % x.ndim
    if valid[ax] is not None:
        ctx.require_exact("repeat along a padded axis")
    out = _repeat_axis(x, ctx.attrs["repeats"], ax)
    if ctx.walker.traced and isinstance(ctx.attrs["repeats"], int):
        ctx.walker.repeats[id(out)] = (out, x, ctx.attrs["repeats"], ax)
    if all(d is None for d in valid):
        return out
    return _box(ctx, out, valid)


def _repeat_axis(x, r, ax: int):
    """``jnp.repeat(x, r, axis=ax)``; for a static count, the broadcast and reshape it binds."""
    shape = tuple(x.shape)
    if type(r) is not int or r < 0 or not all(type(d) is int for d in shape):
        return jnp.repeat(x, r, axis=ax)
    dims = tuple(range(ax + 1)) + tuple(range(ax + 2, x.ndim + 1))
    b = lax.broadcast_in_dim(x, shape[:ax + 1] + (r,) + shape[ax + 1:], dims)
    return lax.reshape(b, shape[:ax] + (shape[ax] * r,) + shape[ax + 1:])


@lowering("relax.tile")
def _tile(ctx, x):
    return jnp.tile(x, tuple(ctx.attrs["repeats"]))


@lowering("relax.flip", padding="aware")
def _flip(ctx, x):
    axis = ctx.attrs["axis"] % x.ndim
    valid = ctx.valid(0)
    d = valid[axis]
    if d is None:
        return _box(ctx, jnp.flip(x, axis=axis), valid)
    n = x.shape[axis]
    idx = jnp.clip(jnp.asarray(d.val, jnp.int64) - 1 - jnp.arange(n, dtype=jnp.int64), 0, n - 1)
    return _box(ctx, jnp.take(x, idx, axis=axis), valid)


@lowering("relax.stack")
def _stack(ctx, xs):
    xs = list(xs)
    for x in xs[1:]:
        if x.shape != xs[0].shape:
            raise _rt(ctx, f"cannot stack tensors of shapes {xs[0].shape} and {x.shape}")
    axis = (ctx.attrs.get("axis", 0) or 0) % (xs[0].ndim + 1)
    return jnp.stack(xs, axis=axis)


@lowering("relax.meshgrid")
def _meshgrid(ctx, xs):
    indexing = ctx.attrs.get("indexing", "ij") or "ij"
    return tuple(jnp.meshgrid(*list(xs), indexing=indexing))


@lowering("relax.reverse_sequence")
def _reverse_sequence(ctx, x, lens):
    n = x.ndim
    sa = int(ctx.attrs.get("seq_axis", 1)) % n
    ba = int(ctx.attrs.get("batch_axis", 0)) % n
    idx = list(jnp.indices(x.shape, dtype=jnp.int64))
    ln = lens.astype(jnp.int64)[idx[ba]]
    pos = idx[sa]
    d = x.shape[sa]
    idx[sa] = jnp.where((ln <= 1) | (ln <= pos), pos, jnp.where(ln > d, d - 1 - pos, ln - 1 - pos))
    return x[tuple(idx)]

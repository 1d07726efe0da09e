"""Lowerings of ``memory.view``, ``memory.ensure_zero_offset`` and ``builtin.stop_lift_params``
(semantics: ``relax_ref.ops.memory``). A view is a new box over the bytes of its source, joined to
the source's :class:`relax_jax.views.ViewGroup` so that in-place writes reach every member."""

from __future__ import annotations

import numpy as np
from jax import lax

from relax_ref.ops.memory import ALLOC_ALIGNMENT
from relax_ref.values import DTypeValue

from ..lowering import lowering
from ..prim_jax import np_dtype
from ..values import ShapeV, TVal
from ..views import from_bytes, join, to_bytes


@lowering("relax.memory.view")
def _view(ctx, x, shape, dtype, off):
    src = ctx.vals[0]
    out_shape = tuple(x.shape) if not isinstance(shape, ShapeV) else ctx.ints(shape)
    dt = np_dtype(dtype.name) if isinstance(dtype, DTypeValue) else x.dtype
    rel = 0 if isinstance(off, tuple) else int(ctx.static(off, "relative_byte_offset"))
    n = int(np.prod(out_shape, dtype=np.int64)) * np.dtype(dt).itemsize
    raw = to_bytes(x)
    data = from_bytes(lax.dynamic_slice(raw, (rel,), (n,)) if n else raw[:0], dt, out_shape)
    box = TVal(data, None, ctx.walker.level)
    base = 0 if src.view is None else src.view.byte_offset
    join(src, box, rel, base + rel)
    return box


@lowering("relax.memory.ensure_zero_offset", padding="aware")
def _ensure_zero_offset(ctx, x):
    src = ctx.vals[0]
    if not isinstance(src, TVal) or src.view is None or src.view.byte_offset == 0:
        return src
    box = TVal(src.data, src.valid, ctx.walker.level)
    if src.view.byte_offset % ALLOC_ALIGNMENT == 0:
        join(src, box, 0, 0)
    return box


@lowering("relax.builtin.stop_lift_params", padding="aware")
def _stop_lift_params(ctx, x):
    return ctx.vals[0]

"""Buffers of the TensorIR evaluator: binding arrays to buffers, views, bounds errors (TIR.BUF.*).

The evaluator's environment (a ``dict``) maps

* each bound :class:`~relax_ref.ir.tir.Buffer` to the numpy array holding its elements, shaped like
  the buffer (a view when the buffer aliases other memory);
* each buffer *data variable* (a ``handle`` PrimVar: ``buffer.data``, or the variable of a classic
  ``T.allocate``) to the array that owns the memory;
* scalar PrimVars to their values (see :mod:`relax_ref.interp.tir_expr`).

A buffer that is used without having been bound itself is resolved through its data variable
(TIR.BUF.4): the owner array is flattened and the buffer's ``elem_offset``, ``shape`` and ``strides``
select the view. Every access is bounds-checked against the buffer's own shape (TIR.BOUNDS.1).
"""

from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from ..errors import RelaxRuntimeError, TIRBoundsError, UnsupportedError
from ..ir import dtype as _dt
from ..limits import check_alloc
from ..ir import prim_expr as P
from ..ir import tir


def eval_index_expr(e: P.PrimExpr, env: Dict) -> int:
    """Evaluate a (shape / offset / stride) scalar expression to a Python int in ``env``."""
    from ..arith.evaluate import eval_prim

    return int(eval_prim(e, env))


def bounds_error(buf: tir.Buffer, indices: Sequence[int], shape: Sequence[int], *, write: bool,
                 span=None) -> TIRBoundsError:
    """The error for an out-of-bounds access (TIR.BOUNDS.1)."""
    idx = tuple(int(i) for i in indices)
    shp = tuple(int(s) for s in shape)
    kind = "write to" if write else "read of"
    return TIRBoundsError(
        f"out-of-bounds {kind} buffer '{buf.name}' at index {list(idx)} (shape {list(shp)})",
        span, buffer=buf.name, indices=idx, shape=shp)


def view_of(base: np.ndarray, buf: tir.Buffer, env: Dict) -> np.ndarray:
    """The array of ``buf`` viewed over the memory of ``base`` (TIR.BUF.4)."""
    shape = tuple(eval_index_expr(s, env) for s in buf.shape)
    off = 0 if buf.elem_offset is None else eval_index_expr(buf.elem_offset, env)
    dt = _dt.to_numpy(buf.dtype)
    if not buf.strides and off == 0 and base.shape == shape and base.dtype == dt:
        return base
    if not base.flags.c_contiguous:
        raise UnsupportedError(
            f"buffer '{buf.name}' is a view of a non-contiguous array; relax-ref only re-views dense memory")
    flat = base.reshape(-1)
    if flat.dtype != dt:
        if (flat.size * flat.dtype.itemsize) % dt.itemsize:
            raise UnsupportedError(f"buffer '{buf.name}' reinterprets {flat.dtype} memory as {dt} with a "
                                   "size that does not divide")
        flat = flat.view(dt)
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if buf.strides:
        strides = tuple(eval_index_expr(s, env) for s in buf.strides)
        last = off + sum((n - 1) * s for n, s in zip(shape, strides) if n > 0)
        if size and (off < 0 or last >= flat.size or min(strides, default=0) < 0):
            raise TIRBoundsError(
                f"buffer '{buf.name}' (shape {list(shape)}, strides {list(strides)}, offset {off}) "
                f"exceeds its memory of {flat.size} elements", buffer=buf.name, shape=shape)
        return np.lib.stride_tricks.as_strided(flat[off:], shape, tuple(s * dt.itemsize for s in strides))
    if off < 0 or off + size > flat.size:
        raise TIRBoundsError(
            f"buffer '{buf.name}' (shape {list(shape)}, offset {off}) exceeds its memory of "
            f"{flat.size} elements", buffer=buf.name, shape=shape)
    return flat[off:off + size].reshape(shape)


def buffer_array(env: Dict, buf: tir.Buffer) -> np.ndarray:
    """The array bound to ``buf``, resolving (and caching) a view through its data variable."""
    arr = env.get(buf)
    if arr is not None:
        return arr
    base = env.get(buf.data)
    if not isinstance(base, np.ndarray):
        raise RelaxRuntimeError(f"buffer '{buf.name}' is accessed but was never allocated or bound")
    arr = view_of(base, buf, env)
    env[buf] = arr
    return arr


#: key of the environment entry holding the evaluation's :class:`~relax_ref.limits.Limits`
LIMITS = object()
#: key of the environment entry holding the call's :class:`~relax_ref.limits.StepBudget`
STEPS = object()


def alloc_array(buf: tir.Buffer, env: Dict) -> np.ndarray:
    """Fresh zero-filled storage for an allocated buffer (TIR.BUF.5: allocations start at zero;
    TVM leaves them uninitialised, so a program that reads before writing is not portable). The size
    is checked against RUNTIME.LIMIT.1/3 before allocating."""
    shape = tuple(eval_index_expr(s, env) for s in buf.shape)
    for d, n in enumerate(shape):
        if n < 0:
            raise RelaxRuntimeError(f"buffer '{buf.name}' has negative extent {n} in dimension {d}")
    check_alloc(shape, buf.dtype, env.get(LIMITS), f"buffer '{buf.name}'")
    return np.zeros(shape, dtype=_dt.to_numpy(buf.dtype))


def bind_alloc(env: Dict, buf: tir.Buffer, arr: np.ndarray) -> None:
    env[buf] = arr
    env[buf.data] = arr


def match_region(env: Dict, region: tir.BufferRegion, target: tir.Buffer,
                 bind_var) -> np.ndarray:
    """``T.match_buffer(region, ...)`` inside a block (TIR.BLOCK.MATCH.1): the view of the source
    region, with the target buffer's symbolic shape, strides and offset bound through ``bind_var``.

    The region's extents must equal the target shape after dropping leading unit extents."""
    src = buffer_array(env, region.buffer)
    mins = [eval_index_expr(r.min, env) for r in region.region]
    exts = [eval_index_expr(r.extent, env) for r in region.region]
    for d, (m, e, n) in enumerate(zip(mins, exts, src.shape)):
        if m < 0 or e < 0 or m + e > n:
            raise bounds_error(region.buffer, mins, src.shape, write=False)
    view = src[tuple(slice(m, m + e) for m, e in zip(mins, exts))]
    k = len(target.shape)
    lead = view.shape[:len(view.shape) - k] if len(view.shape) >= k else ()
    if len(view.shape) < k or any(x != 1 for x in lead):
        raise UnsupportedError(
            f"match_buffer '{target.name}' of rank {k} cannot view a region of shape {list(view.shape)}")
    view = view.reshape(view.shape[len(view.shape) - k:])
    for d, (dim, n) in enumerate(zip(target.shape, view.shape)):
        bind_var(dim, n, f"{target.name}.shape[{d}]")
    item = view.dtype.itemsize
    if target.strides:
        for d, (s, st) in enumerate(zip(target.strides, view.strides)):
            bind_var(s, st // item, f"{target.name}.strides[{d}]")
    if target.elem_offset is not None:
        base = src
        while base.base is not None and isinstance(base.base, np.ndarray):
            base = base.base
        offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
        bind_var(target.elem_offset, offset, f"{target.name}.elem_offset")
    if np.dtype(view.dtype) != _dt.to_numpy(target.dtype):
        raise UnsupportedError(
            f"match_buffer '{target.name}' of dtype {target.dtype} cannot view {view.dtype} data")
    return view


__all__ = ["eval_index_expr", "bounds_error", "view_of", "buffer_array", "alloc_array", "bind_alloc",
           "match_region"]

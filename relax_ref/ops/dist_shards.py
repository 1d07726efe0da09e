"""Shards of distributed tensors (DIST.PLACE.1, DIST.LOCAL.1): the block of a global tensor a worker
holds, and the global tensor assembled from the workers' blocks. Used by the local-view evaluator
(``relax_ref.interp.workers``) and by ``redistribute`` in the local view."""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import expr as rx
from ..ir.distributed import DTensorStructInfo, shard_index, shard_parts
from . import collective


def _block(shape, s: DTensorStructInfo, coords) -> tuple:
    index = []
    for axis, extent in enumerate(shape):
        n = shard_parts(s.placement, s.device_mesh, axis)
        k = shard_index(s.placement, s.device_mesh, axis, coords)
        step = extent // n
        index.append(slice(k * step, (k + 1) * step))
    return tuple(index)


def local_extents(shape: Sequence[int], s: DTensorStructInfo) -> Tuple[int, ...]:
    """The extents of a worker's block of a tensor of global ``shape`` under ``s``'s placement
    (DIST.LOCAL.1); an axis that does not split evenly is an ``op_runtime`` error (DIST.WF.2)."""
    out = [int(d) for d in shape]
    for axis in s.placement.sharded_axes():
        n = shard_parts(s.placement, s.device_mesh, axis)
        if axis >= len(out) or out[axis] % n:
            extent = out[axis] if axis < len(out) else None
            raise OpRuntimeError(f"axis {axis} of extent {extent} does not split evenly under \"{s.placement}\" "
                                 f"(DIST.WF.2)")
        out[axis] //= n
    return tuple(out)


def reshape_target(call: rx.Call, shape: Sequence[int]) -> Tuple[int, ...]:
    """The shape a ``reshape`` call gives its operand (DIST.LOCAL.4): ``shape`` itself, or, when a
    worker of the local view reshapes a DTensor, the worker's block of ``shape`` under the placement
    of the call's inferred DTensor result."""
    s = call.struct_info
    if isinstance(s, DTensorStructInfo) and collective.current().local:
        return local_extents(shape, s)
    return tuple(int(d) for d in shape)


def local_reshape_hint(call: rx.Call) -> str:
    """What an error of a worker's ``reshape`` adds to its message (DIST.LOCAL.4)."""
    if isinstance(call.struct_info, DTensorStructInfo) and collective.current().local:
        return (f" (a worker's block under \"{call.struct_info.placement}\": a sharded axis that the reshape "
                "does not keep cannot be reshaped in the local view, DIST.LOCAL.4)")
    return ""


def shard_of(x: np.ndarray, s: DTensorStructInfo, coords: Sequence[int]) -> np.ndarray:
    """The block of the global tensor ``x`` that the worker at mesh ``coords`` holds (DIST.PLACE.1)."""
    local_extents(x.shape, s)                  # DIST.WF.2
    return np.ascontiguousarray(x[_block(x.shape, s, coords)])


def assemble(shards: Sequence[np.ndarray], s: DTensorStructInfo) -> np.ndarray:
    """The global tensor from every worker's shard (workers in rank order); a replicated block is taken
    from the worker of coordinate 0 along the replicating mesh axes (DIST.LOCAL.1)."""
    mesh = s.device_mesh
    first = shards[0]
    shape = list(first.shape)
    for axis in s.placement.sharded_axes():
        shape[axis] *= shard_parts(s.placement, mesh, axis)
    out = np.empty(tuple(shape), first.dtype)
    for w, part in enumerate(shards):
        coords = mesh.coords(w)
        if any(c != 0 and spec.is_replica for c, spec in zip(coords, s.placement.specs)):
            continue
        out[_block(out.shape, s, coords)] = part
    return out


__all__ = ["shard_of", "assemble", "local_extents", "reshape_target", "local_reshape_hint"]

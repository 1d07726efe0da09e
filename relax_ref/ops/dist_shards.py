"""Shards of distributed tensors (DIST.PLACE.1, DIST.LOCAL.1): the block of a global tensor a worker
holds, and the global tensor assembled from the workers' blocks. Used by the local-view evaluator
(``relax_ref.interp.workers``) and by ``redistribute`` in the local view."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import OpRuntimeError
from ..ir.distributed import DTensorStructInfo, shard_index, shard_parts


def _block(shape, s: DTensorStructInfo, coords) -> tuple:
    index = []
    for axis, extent in enumerate(shape):
        n = shard_parts(s.placement, s.device_mesh, axis)
        k = shard_index(s.placement, s.device_mesh, axis, coords)
        step = extent // n
        index.append(slice(k * step, (k + 1) * step))
    return tuple(index)


def shard_of(x: np.ndarray, s: DTensorStructInfo, coords: Sequence[int]) -> np.ndarray:
    """The block of the global tensor ``x`` that the worker at mesh ``coords`` holds (DIST.PLACE.1)."""
    for axis in s.placement.sharded_axes():
        if x.shape[axis] % shard_parts(s.placement, s.device_mesh, axis):
            raise OpRuntimeError(f"axis {axis} of extent {x.shape[axis]} does not split evenly under \"{s.placement}\" "
                             f"(DIST.WF.2)")
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


__all__ = ["shard_of", "assemble"]

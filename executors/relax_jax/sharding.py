"""The global view on JAX's sharding (DIST.SEM.1): a DTensor's placement as a ``NamedSharding`` of a
``jax.sharding.Mesh`` whose axes are the device mesh's (named ``m0``, ``m1``, ...).

``relax_jax.distributed.run_global(mod, entry, *args)`` compiles the module for the mesh (the
arguments and results replicated over it: ``Executable(mesh=...)``) and runs the function with the
mesh active: ``annotate_sharding`` and ``redistribute`` then become
``jax.lax.with_sharding_constraint`` to the ``NamedSharding`` of their placement (see
``relax_jax.ops.dist``), and XLA's partitioner lays the computation out and inserts the collectives. The values are those of the
global view: the placement changes no value. The same code runs on any JAX backend and on several
processes (after ``jax.distributed.initialize``, ``jax.devices()`` spans them).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from relax_ref.errors import UnsupportedError
from relax_ref.ir.distributed import DeviceMesh, Placement

_STATE = threading.local()


def axis_names(mesh: DeviceMesh) -> Tuple[str, ...]:
    return tuple(f"m{j}" for j in range(mesh.ndim))


def partition_spec(placement: Placement, mesh: DeviceMesh, ndim: int):
    """``PartitionSpec`` of a placement: tensor axis ``a`` split by the mesh axes sharding it (in
    order, the first outermost, DIST.PLACE.1)."""
    from jax.sharding import PartitionSpec

    names = axis_names(mesh)
    by_axis = placement.sharded_axes()
    entries = []
    for a in range(ndim):
        js = by_axis.get(a, [])
        entries.append(None if not js else (names[js[0]] if len(js) == 1 else tuple(names[j] for j in js)))
    return PartitionSpec(*entries)


def jax_mesh(mesh: DeviceMesh, devices: Optional[Sequence[Any]] = None):
    """A ``jax.sharding.Mesh`` of the mesh's shape over ``devices`` (default: the first ``mesh.size``
    devices of ``jax.devices()``, in the mesh's row-major order)."""
    import jax
    from jax.sharding import Mesh

    devs = list(devices) if devices is not None else jax.devices()
    if len(devs) < mesh.size:
        raise UnsupportedError(f"the device mesh {mesh} needs {mesh.size} devices, JAX has {len(devs)}")
    return Mesh(np.array(devs[:mesh.size]).reshape(mesh.shape), axis_names(mesh))


@contextlib.contextmanager
def on_mesh(jmesh):
    old = getattr(_STATE, "mesh", None)
    _STATE.mesh = jmesh
    try:
        yield
    finally:
        _STATE.mesh = old


def constrain(ctx, x, mesh: DeviceMesh, placement: Placement):
    """``with_sharding_constraint`` to the placement when a mesh is active (else the value itself)."""
    jmesh = getattr(_STATE, "mesh", None)
    if jmesh is None or getattr(_STATE, "local_axes", None) or ctx.mode != "traced":
        return x
    import jax
    from jax.sharding import NamedSharding

    if tuple(jmesh.devices.shape) != mesh.shape:
        return x
    return jax.lax.with_sharding_constraint(x, NamedSharding(jmesh, partition_spec(placement, mesh, x.ndim)))


def worker_axes(ctx) -> Tuple[str, ...]:
    """The mesh axes the collectives run over in the local view (the ``vmap`` lanes or ``shard_map`` of
    ``relax_jax.local_view``); empty outside it: a lone worker (DIST.LOCAL.2)."""
    return tuple(getattr(_STATE, "local_axes", None) or ())


def worker_mesh() -> Optional[DeviceMesh]:
    """The device mesh of the local view being traced (None outside it)."""
    return getattr(_STATE, "local_mesh", None)


@contextlib.contextmanager
def worker_scope(mesh: DeviceMesh):
    """Trace in the local view of ``mesh`` (DIST.LOCAL.1): the collectives run over its axes
    (``m0``, ``m1``, ...), and struct-info checks match DTensors against the workers' shards (the
    reference's matcher reads the membership of :mod:`relax_ref.ops.collective`, here a group whose
    exchanges are refused: a traced worker exchanges values through JAX's collectives only)."""
    from relax_ref.ops import collective

    old = (getattr(_STATE, "local_axes", None), getattr(_STATE, "local_mesh", None))
    _STATE.local_axes, _STATE.local_mesh = axis_names(mesh), mesh
    collective.join(_TracedGroup(mesh.size), 0, (0,) * mesh.ndim)
    try:
        yield
    finally:
        collective.leave()
        _STATE.local_axes, _STATE.local_mesh = old


class _TracedGroup:
    """A worker group of ``size`` whose host exchanges are refused (the workers are traced)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def exchange(self, rank: int, value: Any):
        raise UnsupportedError("a host-side exchange between traced workers (the local view on JAX runs its "
                               "collectives as JAX collectives)")

    def abort(self) -> None:
        pass


__all__ = ["partition_spec", "jax_mesh", "on_mesh", "constrain", "worker_axes", "worker_mesh", "worker_scope"]

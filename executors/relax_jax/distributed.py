"""Running distributed Relax on JAX. The global view (DIST.SEM.1): :func:`run_global` and
:class:`GlobalView` compile a function for a ``jax.sharding.Mesh`` of its device mesh (see
:mod:`relax_jax.sharding`): every DTensor argument is placed with the ``NamedSharding`` of its
placement, ``annotate_sharding`` / ``redistribute`` become ``with_sharding_constraint``, the result
keeps the ``NamedSharding`` of the return placement, and XLA's partitioner inserts the collectives.
The local view (DIST.LOCAL.1-3): :mod:`relax_jax.local_view` (``shard_map``), re-exported here.

Launch on several processes or hosts: start one process per host with
``jax.distributed.initialize(coordinator_address, num_processes, process_id)`` before anything else;
``jax.devices()`` then lists every process's devices, and the same call runs unchanged (the guide
``docs/guides/distributed-jax.md``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import jax
import numpy as np

from relax_ref.errors import UnsupportedError
from relax_ref.interp.workers import function_mesh
from relax_ref.ir import struct_info as si
from relax_ref.ir.distributed import DTensorStructInfo
from relax_ref.script.interop import as_module

from .executable import Executable
from .local_view import LocalView, run_local
from .sharding import jax_mesh, on_mesh, partition_spec


def _sharding(jmesh, mesh, s: Optional[si.StructInfo], ndim: int):
    from jax.sharding import NamedSharding, PartitionSpec

    if isinstance(s, DTensorStructInfo):
        return NamedSharding(jmesh, partition_spec(s.placement, mesh, ndim))
    return NamedSharding(jmesh, PartitionSpec())


class GlobalView:
    """``entry`` in the global view as one ``jax.jit`` over the mesh: arguments (tensors) placed by
    their placements, the result by the return placement. Functions ``as_jax_function`` cannot trace
    (host-only constructs, run-time checks on data) are refused with ``UnsupportedError``; ``run_global``
    then runs them through ``Executable(mesh=...)``."""

    def __init__(self, mod, entry: str = "main", *, devices: Optional[Sequence[Any]] = None, **compile_kwargs):
        self.exe = mod if isinstance(mod, Executable) else Executable(as_module(mod, "GlobalView", text=True),
                                                                       **compile_kwargs)
        self.entry = entry
        self.func = self.exe.mod[entry]
        self.mesh = function_mesh(self.func)
        self.jmesh = jax_mesh(self.mesh, devices)
        self._fn = self.exe.as_jax_function(entry)
        self._jitted: dict = {}

    def place(self, *args: Any) -> list:
        """The arguments, each ``device_put`` with the ``NamedSharding`` of its parameter's placement."""
        out = []
        for a, p in zip(args, self.func.params):
            if not isinstance(p.struct_info, (si.TensorStructInfo,)):
                raise UnsupportedError("GlobalView takes tensor arguments only")
            a = a if isinstance(a, jax.Array) else np.asarray(a)
            out.append(jax.device_put(a, _sharding(self.jmesh, self.mesh, p.struct_info, a.ndim)))
        return out

    def __call__(self, *args: Any) -> Any:
        placed = self.place(*args)
        key = tuple((tuple(a.shape), str(a.dtype)) for a in placed)
        fn = self._jitted.get(key)
        if fn is None:
            ret = self.func.ret_struct_info
            out = _sharding(self.jmesh, self.mesh, ret, ret.ndim) if isinstance(ret, si.TensorStructInfo) and \
                ret.ndim >= 0 else None
            fn = self._jitted[key] = jax.jit(self._fn, in_shardings=tuple(a.sharding for a in placed),
                                             out_shardings=out)
        with on_mesh(self.jmesh):
            return fn(*placed)


def run_global(mod, entry: str, *args, devices: Optional[Sequence[Any]] = None, **compile_kwargs):
    """Run ``entry`` in the global view with its DTensor arguments sharded over JAX devices."""
    mod = as_module(mod, "relax_jax.distributed.run_global", text=True)
    func = mod[entry]
    if all(isinstance(p.struct_info, si.TensorStructInfo) for p in func.params):
        try:
            return GlobalView(mod, entry, devices=devices, **compile_kwargs)(*args)
        except UnsupportedError:
            pass
    jmesh = jax_mesh(function_mesh(func), devices)
    exe = Executable(mod, mesh=jmesh, **compile_kwargs)
    with on_mesh(jmesh):
        return exe(*args, entry=entry)


__all__ = ["run_global", "GlobalView", "LocalView", "run_local"]

"""Running distributed Relax on JAX (DIST.SEM.1): :func:`run_global` compiles a module for a
``jax.sharding.Mesh`` of the entry function's device mesh (see :mod:`relax_jax.sharding`) and calls it.

Launch on several processes or hosts: start one process per host with
``jax.distributed.initialize(coordinator_address, num_processes, process_id)`` before anything else;
``jax.devices()`` then lists every process's devices, and the same call runs unchanged.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from relax_ref.interp.workers import function_mesh
from relax_ref.script.interop import as_module

from .executable import Executable
from .sharding import jax_mesh, on_mesh


def run_global(mod, entry: str, *args, devices: Optional[Sequence[Any]] = None, **compile_kwargs):
    """Run ``entry`` in the global view with its DTensor arguments sharded over JAX devices."""
    mod = as_module(mod, "relax_jax.distributed.run_global", text=True)
    func = mod[entry]
    jmesh = jax_mesh(function_mesh(func), devices)
    exe = Executable(mod, mesh=jmesh, **compile_kwargs)
    with on_mesh(jmesh):
        return exe(*args, entry=entry)


__all__ = ["run_global"]

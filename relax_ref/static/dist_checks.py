"""Well-formedness of distributed struct info (DIST.WF.1-2), called by
:mod:`relax_ref.static.well_formed` for every struct info it visits.

* DIST.WF.1: in a module that declares device meshes in its global infos, every DTensor's mesh is
  one of them (a standalone function carries its meshes inline, as ``R.device_mesh(...)``).
* DIST.WF.2: a tensor axis sharded over mesh axes ``J`` has, where its extent is a known constant,
  an extent divisible by the product of the extents of ``J`` (every worker holds an equal shard).
"""

from __future__ import annotations

from typing import Optional

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.distributed import DeviceMesh, DTensorStructInfo


def declared_meshes(mod) -> tuple:
    """The device meshes of a module's global infos, in order of their keys."""
    out = []
    if mod is None:
        return ()
    for _, infos in sorted(mod.global_infos.items()):
        if isinstance(infos, tuple):
            out += [m for m in infos if isinstance(m, DeviceMesh)]
    return tuple(out)


def dtensor_violation(si: DTensorStructInfo, mod) -> Optional[str]:
    """The message of the first DIST.WF violation of ``si`` in ``mod``, else None."""
    meshes = declared_meshes(mod)
    if meshes and si.device_mesh not in meshes:
        return (f"the device mesh {si.device_mesh} of {si} is not declared in the module's global infos "
                f"(DIST.WF.1)")
    if not isinstance(si.shape, rx.ShapeExpr):
        return None
    for axis, mesh_axes in si.placement.sharded_axes().items():
        n = 1
        for j in mesh_axes:
            n *= si.device_mesh.shape[j]
        dim = si.shape.values[axis]
        if isinstance(dim, P.IntImm) and dim.value % n != 0:
            return (f"axis {axis} of extent {dim.value} is sharded into {n} parts by the placement \"{si.placement}\", "
                    f"which does not divide it (DIST.WF.2)")
    return None


__all__ = ["declared_meshes", "dtensor_violation"]

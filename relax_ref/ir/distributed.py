"""Relax's distributed IR (spec chapter 16, DIST.*): device meshes, placements and the struct info
of a distributed tensor.

* :class:`DeviceMesh` (DIST.MESH.1): a logical n-d arrangement of device ids -- a shape and the ids
  in row-major order, written either as a range (``R.device_mesh((2, 2), I.Range(0, 4))``) or as a
  list (``R.device_mesh((2,), [5, 7])``). A module declares its meshes in its global infos
  (``I.module_global_infos({"mesh": [...]})``); struct info refers to them as ``"mesh[0]"``.
* :class:`Placement` (DIST.PLACE.1): one :class:`PlacementSpec` per mesh axis -- ``R`` (the tensor
  is replicated along that mesh axis) or ``S[k]`` (tensor axis ``k`` is split along it), written
  ``"S[1], R"``.
* :class:`DTensorStructInfo` (DIST.SI.1): a tensor's struct info plus the mesh and the placement. It
  refines :class:`~relax_ref.ir.struct_info.TensorStructInfo`: its shape, dtype and ndim are those of
  the *global* tensor, which is the value of a DTensor in the global view (DIST.SEM.1); it is a
  kind of its own for the struct-info lattice (a Tensor and a DTensor are unrelated, DIST.SI.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from ..errors import StructInfoError
from .struct_info import TensorStructInfo


def _mesh_size(shape: Tuple[int, ...]) -> int:
    """The product of a mesh's extents, each a positive integer (DIST.MESH.1)."""
    n = 1
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise StructInfoError(f"device mesh: every extent must be a positive integer, got {d!r} (DIST.MESH.1)")
        n *= d
    return n


@dataclass(frozen=True)
class DeviceMesh:
    """``R.device_mesh(shape, ids)`` (DIST.MESH.1): ``prod(shape) == len(device_ids)``, ids distinct
    and non-negative. ``device_range`` is ``(start, extent)`` when the mesh was written as a range;
    its ids are then a :class:`range`, never enumerated (a range of ``2**63`` ids costs nothing)."""

    shape: Tuple[int, ...]
    device_ids: Sequence[int]
    device_range: Optional[Tuple[int, int]] = None

    def __post_init__(self):
        shape = tuple(self.shape)
        ids = self.device_ids if isinstance(self.device_ids, range) else tuple(self.device_ids)
        n = _mesh_size(shape)
        count = ids.stop - ids.start if isinstance(ids, range) else len(ids)   # len() of a range stops at 2**63
        if count != n:
            raise StructInfoError(f"device mesh: a mesh of shape {shape} holds {n} devices, but {count} device "
                                  f"ids are given (DIST.MESH.1)")
        if isinstance(ids, range):
            if ids.step != 1 or ids.start < 0:
                raise StructInfoError(f"device mesh: device ids must be non-negative integers, got the range "
                                      f"[{ids.start}, {ids.stop}) (DIST.MESH.1)")
        else:
            for i in ids:
                if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                    raise StructInfoError(f"device mesh: device ids must be non-negative integers, got {i!r} "
                                          f"(DIST.MESH.1)")
            if len(set(ids)) != len(ids):
                raise StructInfoError(f"device mesh: device ids must be distinct, got {list(ids)} (DIST.MESH.1)")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "device_ids", ids)

    @staticmethod
    def from_range(shape, start: int, extent: int) -> "DeviceMesh":
        """The mesh of the ids ``start, ..., start + extent - 1``: the shape and the count are checked
        before anything is enumerated (DIST.MESH.1)."""
        return DeviceMesh(tuple(shape), range(start, start + extent), (start, extent))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return _mesh_size(self.shape)

    def coords(self, worker: int) -> Tuple[int, ...]:
        """The mesh coordinates of the ``worker``-th device (row-major)."""
        out = []
        for d in reversed(self.shape):
            out.append(worker % d)
            worker //= d
        return tuple(reversed(out))

    def __str__(self) -> str:
        shape = "(" + ", ".join(str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "") + ")"
        if self.device_range is not None:
            return f"R.device_mesh({shape}, R.Range({self.device_range[0]}, "\
                   f"{self.device_range[0] + self.device_range[1]}))"
        return f"R.device_mesh({shape}, [{', '.join(str(i) for i in self.device_ids)}])"


@dataclass(frozen=True)
class PlacementSpec:
    """``R`` (``axis is None``) or ``S[axis]`` for one mesh axis (DIST.PLACE.1)."""

    axis: Optional[int] = None

    @property
    def is_replica(self) -> bool:
        return self.axis is None

    def __str__(self) -> str:
        return "R" if self.axis is None else f"S[{self.axis}]"


REPLICA = PlacementSpec(None)


def shard(axis: int) -> PlacementSpec:
    return PlacementSpec(axis)


@dataclass(frozen=True)
class Placement:
    """One spec per mesh axis (DIST.PLACE.1); the text is the specs joined by ``", "``."""

    specs: Tuple[PlacementSpec, ...]

    def __post_init__(self):
        object.__setattr__(self, "specs", tuple(self.specs))

    def __str__(self) -> str:
        return ", ".join(str(s) for s in self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    def sharded_axes(self):
        """``{tensor axis: [mesh axes]}`` of the sharded specs, mesh axes in order."""
        out: dict = {}
        for j, s in enumerate(self.specs):
            if s.axis is not None:
                out.setdefault(s.axis, []).append(j)
        return out

    @staticmethod
    def replicated(n: int) -> "Placement":
        return Placement((REPLICA,) * n)

    @staticmethod
    def from_text(text: str) -> "Placement":
        """Read ``"S[1], R"`` (DIST.PLACE.2): specs separated by commas; ``R`` or ``S[k]`` with ``k`` a
        non-negative integer; blanks are ignored. Anything else is a StructInfoError."""
        if not isinstance(text, str):
            raise StructInfoError(f"a placement must be a string such as \"S[0], R\", got {text!r}")
        body = "".join(text.split())
        if body == "":
            return Placement(())
        specs = []
        for part in body.split(","):
            if part == "R":
                specs.append(REPLICA)
            elif part.startswith("S[") and part.endswith("]") and part[2:-1].isdigit() and part[2:-1].isascii():
                specs.append(shard(int(part[2:-1])))
            else:
                raise StructInfoError(f"invalid placement {text!r}: each entry must be R or S[k] (DIST.PLACE.2)")
        return Placement(tuple(specs))


@dataclass(frozen=True)
class DTensorStructInfo(TensorStructInfo):
    """``R.DTensor(shape, dtype, device_mesh, placement)`` (DIST.SI.1-3).

    DIST.SI.2: the placement has one spec per mesh axis, and a shard axis ``k`` satisfies
    ``0 <= k < ndim`` (checked when the rank is known)."""

    device_mesh: Optional[DeviceMesh] = None
    placement: Optional[Placement] = None

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.device_mesh, DeviceMesh):
            raise StructInfoError(f"R.DTensor needs a device mesh, got {self.device_mesh!r} (DIST.SI.1)")
        if not isinstance(self.placement, Placement):
            raise StructInfoError(f"R.DTensor needs a placement, got {self.placement!r} (DIST.SI.1)")
        if len(self.placement.specs) != self.device_mesh.ndim:
            raise StructInfoError(
                f"the placement \"{self.placement}\" has {len(self.placement.specs)} entries, but the device mesh "
                f"has {self.device_mesh.ndim} axes (DIST.SI.2)")
        for s in self.placement.specs:
            if s.axis is not None and self.ndim != -1 and s.axis >= self.ndim:
                raise StructInfoError(f"the placement \"{self.placement}\" shards axis {s.axis} of a tensor of rank "
                                      f"{self.ndim} (DIST.SI.2)")

    @staticmethod
    def of(tensor: TensorStructInfo, mesh: DeviceMesh, placement: Placement) -> "DTensorStructInfo":
        return DTensorStructInfo(tensor.shape, tensor.dtype, tensor.ndim, tensor.vdevice, mesh, placement)

    @property
    def tensor(self) -> TensorStructInfo:
        """The struct info of the global tensor."""
        return TensorStructInfo(self.shape, self.dtype, self.ndim, self.vdevice)


def shard_parts(placement: Placement, mesh: DeviceMesh, axis: int) -> int:
    """Into how many blocks the mesh axes splitting ``axis`` cut it (DIST.PLACE.1)."""
    n = 1
    for j in placement.sharded_axes().get(axis, ()):
        n *= mesh.shape[j]
    return n


def shard_index(placement: Placement, mesh: DeviceMesh, axis: int, coords: Tuple[int, ...]) -> int:
    """The block of ``axis`` held by the worker at mesh ``coords`` (the first splitting mesh axis
    outermost, DIST.PLACE.1)."""
    k = 0
    for j in placement.sharded_axes().get(axis, ()):
        k = k * mesh.shape[j] + coords[j]
    return k


def local_struct_info(s: DTensorStructInfo) -> TensorStructInfo:
    """The struct info of a worker's shard (DIST.LOCAL.1): sharded constant extents divided; a sharded
    extent that is not constant leaves the shape unknown (rank and dtype kept)."""
    from .expr import ShapeExpr
    from .prim_expr import IntImm

    vals = s.shape_values
    if vals is None:
        return TensorStructInfo(None, s.dtype, s.ndim, s.vdevice)
    out = list(vals)
    for axis in s.placement.sharded_axes():
        n = shard_parts(s.placement, s.device_mesh, axis)
        if not isinstance(out[axis], IntImm):
            return TensorStructInfo(None, s.dtype, s.ndim, s.vdevice)
        out[axis] = IntImm(out[axis].value // n, "int64")
    return TensorStructInfo(ShapeExpr(tuple(out)), s.dtype, vdevice=s.vdevice)


def is_dtensor(s) -> bool:
    return isinstance(s, DTensorStructInfo)


__all__ = ["shard_parts", "shard_index", "local_struct_info", "DeviceMesh", "PlacementSpec", "Placement", "REPLICA", "shard", "DTensorStructInfo", "is_dtensor"]

"""Structural information (spec chapter SI): the static "type" of every Relax value.

``ObjectStructInfo`` is the top of the lattice. ``TensorStructInfo.shape`` is either ``None``
(unknown), a :class:`~relax_ref.ir.expr.ShapeExpr` (known dims, possibly symbolic) or a Relax
``Var`` whose struct info is a ``ShapeStructInfo`` (SI.2). Unknown dtype is ``"void"``; unknown rank
is ``ndim == -1``.

The analyses over this lattice -- erasure, ``is_base_of`` (with its four levels), LCA and
``erase_to_well_defined`` -- live in :mod:`relax_ref.analysis.struct_info_ops`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from ..errors import StructInfoError
from . import dtype as _dt
from . import printing
from .expr import ShapeExpr, Var

#: the largest rank a struct info may state (SI.SHAPE.1, SI.TENSOR.1: ``ndim`` is a signed 32-bit integer)
MAX_NDIM = (1 << 31) - 1
from .prim_expr import IntImm, PrimExpr


class StructInfo:
    """Base class of struct info nodes (frozen dataclasses, structural equality)."""

    __slots__ = ()

    def __str__(self) -> str:
        return printing.printer().struct_info_to_str(self)


@dataclass(frozen=True)
class ObjectStructInfo(StructInfo):
    """``R.Object``: any value."""


@dataclass(frozen=True)
class PrimStructInfo(StructInfo):
    """``R.Prim(dtype)`` or ``R.Prim(value=v)`` (SI.PRIM.1: the value's dtype is the dtype)."""

    dtype: str = "void"
    value: Optional[PrimExpr] = None

    def __post_init__(self):
        if self.value is not None:
            if self.dtype in (None, "void", ""):
                object.__setattr__(self, "dtype", self.value.dtype)
        object.__setattr__(self, "dtype", _dt.canonical(self.dtype))


@dataclass(frozen=True)
class ShapeStructInfo(StructInfo):
    """``R.Shape([...])`` / ``R.Shape(ndim=k)`` / ``R.Shape`` (ndim -1)."""

    values: Optional[Tuple[PrimExpr, ...]] = None
    ndim: int = -1

    def __post_init__(self):
        if self.values is not None:
            vals = tuple(IntImm(v, "int64") if isinstance(v, int) else v for v in self.values)
            for v in vals:
                if not isinstance(v, PrimExpr):
                    raise StructInfoError(f"shape value {v!r} is not a PrimExpr")
            object.__setattr__(self, "values", vals)
            if self.ndim not in (-1, len(vals)):
                raise StructInfoError(f"ShapeStructInfo: ndim {self.ndim} disagrees with {len(vals)} values")
            object.__setattr__(self, "ndim", len(vals))
        elif self.ndim < -1:
            raise StructInfoError(f"ShapeStructInfo: ndim must be >= -1, got {self.ndim}")
        elif self.ndim > MAX_NDIM:
            raise StructInfoError(f"ShapeStructInfo: ndim {self.ndim} does not fit in int32 (at most {MAX_NDIM})")


@dataclass(frozen=True)
class VDevice:
    """A virtual device: ``kind:index:scope`` (e.g. ``llvm:0:global``)."""

    kind: str = "llvm"
    vdevice_id: int = 0
    memory_scope: str = "global"

    def __str__(self) -> str:
        return f"{self.kind}:{self.vdevice_id}:{self.memory_scope}"


@dataclass(frozen=True)
class TensorStructInfo(StructInfo):
    """``R.Tensor(shape, dtype)`` / ``R.Tensor(dtype, ndim=k)``.

    ``shape`` is ``None``, a ``ShapeExpr`` or a shape-typed Relax ``Var``. ``ndim`` is derived from
    a known shape (SI.TENSOR.2).
    """

    shape: Optional[object] = None  # ShapeExpr | Var | None
    dtype: str = "void"
    ndim: int = -1
    vdevice: Optional[VDevice] = None

    def __post_init__(self):
        object.__setattr__(self, "dtype", _dt.canonical(self.dtype))
        if self.shape is not None:
            if isinstance(self.shape, ShapeExpr):
                n = len(self.shape.values)
            elif isinstance(self.shape, Var):
                ssi = self.shape.struct_info
                n = ssi.ndim if isinstance(ssi, ShapeStructInfo) else -1
            else:
                raise StructInfoError(f"TensorStructInfo shape must be a ShapeExpr or a Var, got {self.shape!r}")
            if self.ndim not in (-1, n) and n != -1:
                raise StructInfoError(f"TensorStructInfo: ndim {self.ndim} disagrees with shape of rank {n}")
            if n != -1:
                object.__setattr__(self, "ndim", n)
        elif self.ndim < -1:
            raise StructInfoError(f"TensorStructInfo: ndim must be >= -1, got {self.ndim}")
        elif self.ndim > MAX_NDIM:
            raise StructInfoError(f"TensorStructInfo: ndim {self.ndim} does not fit in int32 (at most {MAX_NDIM})")

    @property
    def shape_values(self) -> Optional[Tuple[PrimExpr, ...]]:
        """The dims when the shape is a ``ShapeExpr`` (or a Var whose struct info has values)."""
        if isinstance(self.shape, ShapeExpr):
            return self.shape.values
        if self.shape is not None:
            ssi = self.shape.struct_info
            if isinstance(ssi, ShapeStructInfo):
                return ssi.values
        return None

    @property
    def is_unknown_ndim(self) -> bool:
        return self.ndim == -1


@dataclass(frozen=True)
class TupleStructInfo(StructInfo):
    """``R.Tuple(S1, S2, ...)``; ``R.Tuple()`` is unit (SI.TUPLE.1)."""

    fields: Tuple[StructInfo, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "fields", tuple(self.fields))


@dataclass(frozen=True)
class FuncStructInfo(StructInfo):
    """``R.Callable(params, ret, purity)``. ``params is None`` means opaque (SI.FUNC.2); an opaque
    function may carry ``derive_func`` (the name of a struct-info deriver, e.g.
    ``"tvm.relax.struct_info.infer_by_sinfo_args"``)."""

    params: Optional[Tuple[StructInfo, ...]] = None
    ret: StructInfo = field(default_factory=ObjectStructInfo)
    purity: bool = True
    derive_func: Optional[str] = None

    def __post_init__(self):
        if self.params is not None:
            object.__setattr__(self, "params", tuple(self.params))

    @property
    def is_opaque(self) -> bool:
        return self.params is None

    @staticmethod
    def opaque(ret: Optional[StructInfo] = None, purity: bool = False,
               derive_func: Optional[str] = None) -> "FuncStructInfo":
        return FuncStructInfo(None, ret if ret is not None else ObjectStructInfo(), purity, derive_func)


def unit() -> TupleStructInfo:
    """The struct info of the unit value ``R.tuple()``."""
    return TupleStructInfo(())


def is_unit(si: StructInfo) -> bool:
    return isinstance(si, TupleStructInfo) and len(si.fields) == 0


def func_struct_info(f) -> FuncStructInfo:
    """``FuncStructInfo`` of a Relax function from its parameters and return struct info."""
    return FuncStructInfo(
        tuple(p.struct_info if p.struct_info is not None else ObjectStructInfo() for p in f.params),
        f.ret_struct_info if f.ret_struct_info is not None else ObjectStructInfo(),
        f.is_pure,
    )


__all__ = [
    "StructInfo", "ObjectStructInfo", "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo",
    "TupleStructInfo", "FuncStructInfo", "VDevice", "unit", "is_unit", "func_struct_info",
]

"""Relax expressions, bindings, blocks and functions (spec chapter EXPR).

Conventions:

* Nodes are frozen dataclasses. Nodes that are *values* of the shape language (``ShapeExpr``,
  ``PrimValue``, ``StringImm``, ``DataTypeImm``, ``Op``, ``ExternFunc``) compare structurally, so that
  struct info containing them compares structurally too. All other nodes -- variables above all --
  compare by identity, as in TVM; use :func:`relax_ref.structural_equal` to compare programs.
* Every expression has keyword-only ``struct_info`` (filled in by the normalizer,
  :mod:`relax_ref.static.normalize`) and ``span`` fields, both ignored by equality.
* A ``Var``'s ``struct_info`` is its declared or inferred struct info; it is fixed at construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional, Tuple

import numpy as np

from ..errors import Span
from .attrs import EMPTY, Attrs
from .prim_expr import PrimExpr

if TYPE_CHECKING:  # struct info refers to expressions (shapes), expressions carry struct info
    from .struct_info import StructInfo


@dataclass(frozen=True, eq=False)
class Expr:
    """Base of Relax expressions."""

    struct_info: Optional[StructInfo] = field(default=None, kw_only=True, compare=False, repr=False)
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)

    def with_struct_info(self, si: StructInfo) -> "Expr":
        """A copy of this (non-variable) node carrying ``si``."""
        if isinstance(self, Var):
            raise TypeError("a Var's struct info is fixed at construction")
        return replace(self, struct_info=si)


# ---------------------------------------------------------------------------------------------------
# Leaves
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Var(Expr):
    """A Relax variable (EXPR.VAR.1). Identity-compared; ``name_hint`` is only a name."""

    name_hint: str = "v"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name_hint!r})@{id(self) & 0xFFFF:04x}"


@dataclass(frozen=True, eq=False)
class DataflowVar(Var):
    """A variable local to one dataflow block (EXPR.DATAFLOW.2)."""


@dataclass(frozen=True, eq=False)
class GlobalVar(Expr):
    """Names a function of the module. Identity-compared within one module; structural equality
    compares names."""

    name_hint: str = "main"

    def __repr__(self) -> str:
        return f"GlobalVar({self.name_hint!r})"


@dataclass(frozen=True, eq=False)
class Constant(Expr):
    """A constant tensor. ``data`` is a numpy array (bfloat16 via ml_dtypes); never mutated."""

    data: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self):
        arr = np.asarray(self.data)
        if arr.flags.writeable:
            arr = arr.copy()
            arr.setflags(write=False)
        object.__setattr__(self, "data", arr)

    @property
    def dtype(self) -> str:
        from .dtype import from_numpy

        return from_numpy(self.data.dtype)


@dataclass(frozen=True)
class ShapeExpr(Expr):
    """``R.shape([d0, d1, ...])``: a shape value computed from symbolic int64 expressions."""

    values: Tuple[PrimExpr, ...] = ()

    def __post_init__(self):
        from .prim_expr import IntImm, cast

        vals = []
        for v in self.values:
            if isinstance(v, bool):
                raise TypeError("shape values must be integers")
            if isinstance(v, int):
                v = IntImm(v, "int64")
            elif isinstance(v, PrimExpr) and v.dtype != "int64" and not v.dtype.startswith(("float", "bool")):
                v = cast("int64", v)
            vals.append(v)
        object.__setattr__(self, "values", tuple(vals))


@dataclass(frozen=True)
class PrimValue(Expr):
    """``R.prim_value(v)``: a scalar value; its struct info carries the value (SI.PRIM.2)."""

    value: PrimExpr = None  # type: ignore[assignment]


@dataclass(frozen=True)
class StringImm(Expr):
    """``R.str("...")``."""

    value: str = ""


@dataclass(frozen=True)
class DataTypeImm(Expr):
    """``R.dtype("float32")``."""

    value: str = "void"


@dataclass(frozen=True)
class Op(Expr):
    """A reference to a registered operator by name (``relax.add``); only valid as ``Call.op``."""

    name: str = ""

    def __repr__(self) -> str:
        return f"Op({self.name!r})"


@dataclass(frozen=True)
class ExternFunc(Expr):
    """A packed function looked up by name at run time (EXPR.EXTERN.1)."""

    global_symbol: str = ""


# ---------------------------------------------------------------------------------------------------
# Compound expressions
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tuple(Expr):
    fields: Tuple[Expr, ...] = ()  # type: ignore[valid-type]

    def __post_init__(self):
        object.__setattr__(self, "fields", tuple(self.fields))


@dataclass(frozen=True, eq=False)
class TupleGetItem(Expr):
    tuple_value: Expr = None  # type: ignore[assignment]
    index: int = 0


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """``op(args...)`` where ``op`` is an ``Op``, ``GlobalVar``, ``ExternFunc`` or any function-valued
    expression. ``attrs`` are the operator's attributes; ``sinfo_args`` the explicit struct infos
    (``out_sinfo`` of ``call_tir``, ``sinfo_args`` of ``call_packed``)."""

    op: Expr = None  # type: ignore[assignment]
    args: Tuple[Expr, ...] = ()  # type: ignore[valid-type]
    attrs: Attrs = EMPTY
    sinfo_args: Tuple[StructInfo, ...] = ()  # type: ignore[valid-type]

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "sinfo_args", tuple(self.sinfo_args))
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs or {}))


@dataclass(frozen=True, eq=False)
class If(Expr):
    """``if cond: ... else: ...``; both branches are SeqExprs (EXPR.IF.1)."""

    cond: Expr = None  # type: ignore[assignment]
    true_branch: "SeqExpr" = None  # type: ignore[assignment]
    false_branch: "SeqExpr" = None  # type: ignore[assignment]


# ---------------------------------------------------------------------------------------------------
# Bindings and blocks
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Binding:
    var: Var = None  # type: ignore[assignment]
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True, eq=False)
class VarBinding(Binding):
    """``var = value``."""

    value: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class MatchCast(Binding):
    """``var = R.match_cast(value, struct_info)``: checks ``value`` against ``struct_info`` at run
    time, binds new symbolic variables, and binds ``var`` to the same value (EVAL.MATCHCAST.*)."""

    value: Expr = None  # type: ignore[assignment]
    struct_info: StructInfo = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class BindingBlock:
    bindings: Tuple[Binding, ...] = ()  # type: ignore[valid-type]
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "bindings", tuple(self.bindings))


@dataclass(frozen=True, eq=False)
class DataflowBlock(BindingBlock):
    """A pure, control-flow-free block; only here may DataflowVars be bound (EXPR.DATAFLOW.1)."""


@dataclass(frozen=True, eq=False)
class SeqExpr(Expr):
    blocks: Tuple[BindingBlock, ...] = ()  # type: ignore[valid-type]
    body: Expr = None  # type: ignore[assignment]

    def __post_init__(self):
        object.__setattr__(self, "blocks", tuple(self.blocks))


# ---------------------------------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BaseFunc:
    attrs: Attrs = field(default=EMPTY, kw_only=True)
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs or {}))

    @property
    def global_symbol(self) -> Optional[str]:
        return self.attrs.get("global_symbol")


@dataclass(frozen=True, eq=False)
class Function(Expr, BaseFunc):
    """A Relax function (EXPR.FUNC.*). ``ret_struct_info`` is always set after normalization."""

    params: Tuple[Var, ...] = ()  # type: ignore[valid-type]
    body: SeqExpr = None  # type: ignore[assignment]
    ret_struct_info: Optional[StructInfo] = None
    is_pure: bool = True

    def __post_init__(self):
        BaseFunc.__post_init__(self)
        object.__setattr__(self, "params", tuple(self.params))


LEAF_TYPES = (Var, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, GlobalVar, ExternFunc, Op)


def is_leaf(e: Expr) -> bool:
    """Leaf expressions in the sense of the normal form (WF.ANF.1)."""
    return isinstance(e, LEAF_TYPES)


def is_leaf_or_tuple(e: Expr) -> bool:
    if isinstance(e, Tuple):
        return all(is_leaf_or_tuple(f) for f in e.fields)
    return is_leaf(e)


__all__ = [
    "Expr", "Var", "DataflowVar", "GlobalVar", "Constant", "ShapeExpr", "PrimValue", "StringImm",
    "DataTypeImm", "Op", "ExternFunc", "Tuple", "TupleGetItem", "Call", "If", "Binding", "VarBinding",
    "MatchCast", "BindingBlock", "DataflowBlock", "SeqExpr", "BaseFunc", "Function",
    "LEAF_TYPES", "is_leaf", "is_leaf_or_tuple",
]

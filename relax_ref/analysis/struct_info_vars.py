"""The symbolic variables of struct info (spec SI.SYM): those a struct info can *define* (bare
occurrences, as TVM's ``DefinableTIRVarsInStructInfo``) and those it *uses* (``TIRVarsInStructInfo``).

Pure walks over the struct-info tree, used by the base check's callers, the well-formedness checker,
call-result derivation and the passes; :mod:`relax_ref.analysis.struct_info_ops` re-exports them.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional, Tuple

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.functor import prim_vars_in
from ..ir.struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)


def _shape_values_of(shape) -> Optional[Tuple[P.PrimExpr, ...]]:
    if isinstance(shape, rx.ShapeExpr):
        return shape.values
    if isinstance(shape, rx.Var) and isinstance(shape.struct_info, ShapeStructInfo):
        return shape.struct_info.values
    return None


def _walk_prims(si: StructInfo, fn: Callable[[P.PrimExpr], None], *, tensor_var_shapes: bool) -> None:
    if isinstance(si, PrimStructInfo):
        if si.value is not None:
            fn(si.value)
    elif isinstance(si, ShapeStructInfo):
        for v in si.values or ():
            fn(v)
    elif isinstance(si, TensorStructInfo):
        vals = si.shape.values if isinstance(si.shape, rx.ShapeExpr) else (
            _shape_values_of(si.shape) if tensor_var_shapes else None)
        for v in vals or ():
            fn(v)
    elif isinstance(si, TupleStructInfo):
        for f in si.fields:
            _walk_prims(f, fn, tensor_var_shapes=tensor_var_shapes)
    elif isinstance(si, FuncStructInfo):
        for p in si.params or ():
            _walk_prims(p, fn, tensor_var_shapes=tensor_var_shapes)
        _walk_prims(si.ret, fn, tensor_var_shapes=tensor_var_shapes)


def definable_sym_vars(si: StructInfo, *, tensor_var_shapes: bool = True) -> List[P.PrimVar]:
    """Symbolic variables that ``si`` can define: those occurring *bare* (as a whole dimension,
    shape value or prim value), in order of first occurrence (SI.SYM.2). With
    ``tensor_var_shapes`` a tensor whose shape is a shape-typed Relax var contributes that var's
    values (as TVM's ``DefinableTIRVarsInStructInfo``)."""
    out: Dict[P.PrimVar, None] = {}

    def fn(e):
        if isinstance(e, P.PrimVar):
            out.setdefault(e, None)

    _walk_prims(si, fn, tensor_var_shapes=tensor_var_shapes)
    return list(out)


def sym_vars_in_struct_info(si: StructInfo) -> List[P.PrimVar]:
    """Every symbolic variable used anywhere in ``si`` (SI.SYM.3), in order of first occurrence."""
    out: Dict[P.PrimVar, None] = {}
    _walk_prims(si, lambda e: prim_vars_in(e, out), tensor_var_shapes=True)
    return list(out)


def signature_sym_vars(params: Iterable[StructInfo]) -> List[P.PrimVar]:
    """Symbolic variables defined by a function signature: bare occurrences in any parameter, in any
    order (SI.SYM.2)."""
    out: Dict[P.PrimVar, None] = {}
    for p in params:
        for v in definable_sym_vars(p):
            out.setdefault(v, None)
    return list(out)


__all__ = ["definable_sym_vars", "sym_vars_in_struct_info", "signature_sym_vars"]

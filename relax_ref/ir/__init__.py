"""The relax-ref IR: scalar expressions, struct info, Relax expressions, TensorIR and IRModule.

Relax names are exported at this level; TensorIR and scalar nodes are reached through the
submodules (``relax_ref.ir.tir``, ``relax_ref.ir.prim_expr``) to keep the two vocabularies apart.
"""

from . import dtype, prim_expr, tir
from .attrs import Attrs
from .expr import (
    LEAF_TYPES, BaseFunc, Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm,
    Expr, ExternFunc, Function, GlobalVar, If, MatchCast, Op, PrimValue, SeqExpr, ShapeExpr, StringImm,
    Tuple, TupleGetItem, Var, VarBinding, is_leaf, is_leaf_or_tuple,
)
from .module import IRModule
from .prim_expr import PrimExpr, PrimVar
from .struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo,
    TupleStructInfo, VDevice, func_struct_info, is_unit, unit,
)
from .tir import Buffer, PrimFunc

__all__ = [
    "dtype", "prim_expr", "tir", "Attrs", "LEAF_TYPES", "BaseFunc", "Binding", "BindingBlock", "Call",
    "Constant", "DataflowBlock", "DataflowVar", "DataTypeImm", "Expr", "ExternFunc", "Function",
    "GlobalVar", "If", "MatchCast", "Op", "PrimValue", "SeqExpr", "ShapeExpr", "StringImm", "Tuple",
    "TupleGetItem", "Var", "VarBinding", "func_struct_info", "is_leaf", "is_leaf_or_tuple", "IRModule",
    "PrimExpr", "PrimVar", "FuncStructInfo", "ObjectStructInfo", "PrimStructInfo", "ShapeStructInfo",
    "StructInfo", "TensorStructInfo", "TupleStructInfo", "VDevice", "is_unit", "unit", "Buffer",
    "PrimFunc",
]

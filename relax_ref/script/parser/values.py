"""The kinds of values the parser's evaluator produces besides IR nodes and Python literals.

The evaluator never touches a real Python object named by the text: a name resolves to one of the
values below, to an IR node (Relax expression, scalar expression, buffer, struct info) held in the
parser's own scope, or to a plain literal (int, float, bool, str, None, tuples/lists/dicts of them).
A dotted name such as ``R.nn.softmax`` is a :class:`Ref` carrying the *string* ``"R.nn.softmax"``;
what it means is decided by table look-up when it is called (TEXT.SAFE.2).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ...ir import expr as rx
from ...ir import tir
from ...ir.struct_info import StructInfo

#: Canonical roots of the script vocabulary: ``I`` (ir), ``R`` (relax), ``T`` (tir / tirx)
ROOTS = ("I", "R", "T")


#: full module paths of the TVMScript namespaces, reached through ``tvm`` (``@tvm.script.ir_module``,
#: ``tvm.script.parser.relax.function``), and the canonical root each one means (TEXT.MOD.1)
CANONICAL_PATHS = {
    "tvm.script.ir": "I", "tvm.script.parser.ir": "I", "tvm.script.relax": "R",
    "tvm.script.parser.relax": "R", "tvm.script.tir": "T", "tvm.script.tirx": "T",
    "tvm.script.parser.tir": "T", "tvm.script.parser.tirx": "T",
    "tvm.script.ir_module": "I.ir_module", "tvm.script.parser.ir_module": "I.ir_module",
    # TVM's Python API used inside TVMScript: ``relax.op.nn.conv2d`` is ``R.nn.conv2d``,
    # ``relax.const`` is ``R.const``, ``tirx.min`` is ``T.min``
    "tvm.relax.op": "R", "tvm.relax.const": "R.const", "tvm.relax.call_tir": "R.call_tir",
    "tvm.relax.call_tir_inplace": "R.call_tir_inplace", "tvm.relax.call_dps_packed": "R.call_dps_packed",
    "tvm.relax.call_pure_packed": "R.call_pure_packed", "tvm.relax.prim_value": "R.prim_value",
    "tvm.relax.ExternFunc": "R.ExternFunc", "tvm.relax.ShapeExpr": "R.ShapeExpr",
    "tvm.relax.TupleGetItem": "R.TupleGetItem", "tvm.relax.Tuple": "R.tuple",
    "tvm.tirx": "T", "tvm.tir": "T", "tvm.ir.VDevice": "I.vdevice",
}


@dataclass(frozen=True)
class Ref:
    """A canonical dotted TVMScript name (``"R"``, ``"R.nn"``, ``"T.axis.remap"``, ``"range"``);
    the long spellings of :data:`CANONICAL_PATHS` become their canonical root."""

    path: str

    def child(self, name: str) -> "Ref":
        path = f"{self.path}.{name}"
        return Ref(CANONICAL_PATHS.get(path, path))


@dataclass(frozen=True, eq=False)
class ModuleRef:
    """The ``@I.ir_module`` class name (or its alias ``cls``); attribute access yields GlobalVars."""

    name: str
    gvars: Mapping[str, rx.GlobalVar]


@dataclass(frozen=True)
class VarDecl:
    """``T.int64()``: a declaration of a scalar variable, named by the assignment that binds it."""

    dtype: str


@dataclass(frozen=True)
class TypeVarDecl(VarDecl):
    """``TypeVar("n")`` (tvm-0.27): a module-level declaration of the int64 symbolic variable ``n``."""

    name: str = ""


@dataclass(frozen=True, eq=False)
class GlobalSymDecl:
    """A module-level ``n = T.int64()``: every function that uses ``n`` gets its own PrimVar."""

    name: str
    dtype: str


@dataclass(frozen=True, eq=False)
class MatchCastPair:
    """The value of ``R.match_cast(value, struct_info)`` before it is bound."""

    value: rx.Expr
    struct_info: StructInfo
    node: ast.AST


@dataclass(frozen=True, eq=False)
class MetadataTable:
    """The decoded ``metadata = tvm.ir.load_json(...)`` header: key -> list of values."""

    tables: Mapping[str, Tuple[Any, ...]]


@dataclass(frozen=True, eq=False)
class MetadataList:
    key: str
    items: Tuple[Any, ...]


# ---------------------------------------------------------------------------------------------------
# Struct-info proxies: R.Tensor(...) etc. are kept as written until the context (signature or body)
# decides whether string dims are allowed.
# ---------------------------------------------------------------------------------------------------


class SIProxy:
    """Base of struct-info proxies; ``node`` is the call that produced it (for spans)."""

    node: Optional[ast.AST]


@dataclass(frozen=True, eq=False)
class TensorProxy(SIProxy):
    shape: Any = None  # None | list of dims (int, PrimExpr, str) | Relax ShapeExpr / Var
    dtype: Optional[str] = None
    vdevice: Optional[str] = None
    ndim: int = -1
    node: Optional[ast.AST] = None
    dim_nodes: Tuple[Optional[ast.AST], ...] = ()


@dataclass(frozen=True, eq=False)
class ShapeProxy(SIProxy):
    values: Optional[List[Any]] = None
    ndim: int = -1
    node: Optional[ast.AST] = None
    dim_nodes: Tuple[Optional[ast.AST], ...] = ()


@dataclass(frozen=True, eq=False)
class PrimProxy(SIProxy):
    dtype: Optional[str] = None
    value: Any = None
    node: Optional[ast.AST] = None
    value_node: Optional[ast.AST] = None


@dataclass(frozen=True, eq=False)
class DTensorProxy(SIProxy):
    """``R.DTensor(...)`` as written: the tensor part, the mesh (a ``DeviceMesh`` or its name
    ``"mesh[0]"``) and the placement text (DIST.TEXT.1)."""

    tensor: Any = None          # a TensorProxy
    device_mesh: Any = None     # DeviceMesh | str
    placement: Any = ""
    node: Optional[ast.AST] = None


@dataclass(frozen=True)
class MeshRange:
    """``I.Range(begin, end)`` / ``R.Range(begin, end)``: the device ids of a mesh (DIST.MESH.1)."""

    begin: int
    end: int


@dataclass(frozen=True, eq=False)
class TupleProxy(SIProxy):
    fields: Tuple[Any, ...] = ()
    node: Optional[ast.AST] = None


@dataclass(frozen=True, eq=False)
class ObjectProxy(SIProxy):
    node: Optional[ast.AST] = None


@dataclass(frozen=True, eq=False)
class CallableProxy(SIProxy):
    params: Optional[Tuple[Any, ...]] = None
    ret: Any = None
    purity: Optional[bool] = None
    derive_func: Optional[str] = None
    node: Optional[ast.AST] = None


# ---------------------------------------------------------------------------------------------------
# TensorIR helper values
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BufferSpec:
    """The arguments of ``T.Buffer`` / ``T.match_buffer`` / ``T.alloc_buffer`` /
    ``T.sblock_alloc_buffer`` / ``T.decl_buffer``; the assignment that binds it supplies the name."""

    kind: str  # "Buffer" | "match_buffer" | "alloc_buffer" | "sblock_alloc_buffer" | "decl_buffer"
    shape: Tuple[Any, ...]
    dtype: str = "float32"
    source: Any = None  # match_buffer: the handle PrimVar or a BufferRegion
    strides: Tuple[Any, ...] = ()
    elem_offset: Any = None
    scope: str = "global"
    align: int = -1
    offset_factor: int = 0
    axis_separators: Tuple[int, ...] = ()
    node: Optional[ast.AST] = None
    data: Any = None  # the pointer variable of a buffer view (``data=``)


@dataclass(frozen=True, eq=False)
class MetaValue:
    """``T.meta_var(v)`` / ``I.meta_var(v)``: a value the script names; assigning it only names it."""

    value: Any


@dataclass(frozen=True, eq=False)
class InspectProxy:
    """``x.dtype`` / ``x.shape`` / ``x.strides`` of a Relax tensor before the field is chosen
    (``x.dtype.bits``, ``x.shape[0]``): TVM's run-time inspection of a DLTensor (TEXT.EXPR.9)."""

    tensor: rx.Expr
    field: str  # "dtype" | "shape" | "strides" | "astype" (the method, before it is called)


@dataclass(frozen=True, eq=False)
class BufferMethod:
    """``A.view`` before it is called: a method of a buffer (TEXT.TIR.6)."""

    buffer: tir.Buffer
    name: str


@dataclass(frozen=True, eq=False)
class AllocateSpec:
    """``T.allocate(extents, dtype, scope, condition)``: the assignment (or ``with ... as``) names the
    pointer variable; the rest of the sequence (or the with body) is the allocation's scope."""

    extents: Tuple[Any, ...]
    dtype: str
    scope: str
    condition: Any = None


@dataclass(frozen=True, eq=False)
class ScalarRef:
    """A TVM 0.25 scalar (``t: T.float32 = ...``): a local buffer of shape (1,) read as ``t``."""

    buffer: tir.Buffer


@dataclass(frozen=True, eq=False)
class IterVarSpec:
    """``T.axis.spatial(dom, binding)`` and friends, before the assignment names the variable."""

    iter_type: str
    dom: tir.Range
    binding: Any
    dtype: str


@dataclass(frozen=True, eq=False)
class LoopSpec:
    """``range(...)`` / ``T.serial(...)`` / ``T.grid(...)``: one entry per nested loop."""

    #: one (min, extent, kind, thread, annotations) per loop
    loops: Tuple[Tuple[Any, Any, str, Optional[str], Mapping[str, Any]], ...]


@dataclass(frozen=True, eq=False)
class BindSpec:
    """``T.bind(value)``: a flat let; the assignment names the variable."""

    value: Any
    dtype: Optional[str] = None


@dataclass(frozen=True, eq=False)
class LetAnnotation:
    """``T.let`` / ``T.let[T.int32]`` used as an annotation."""

    dtype: Optional[str] = None


@dataclass(frozen=True, eq=False)
class BufferTypeAnnotation:
    """A parameter annotation ``T.Buffer(...)``."""

    spec: BufferSpec


@dataclass
class FunctionOptions:
    """Decorator options of ``@R.function(...)`` / ``@T.prim_func(...)``."""

    kind: str  # "relax" | "tir"
    pure: bool = True
    private: bool = False
    check_well_formed: bool = True
    s_tir: bool = False
    extra: Dict[str, Any] = field(default_factory=dict)


__all__ = [
    "ROOTS", "Ref", "ModuleRef", "VarDecl", "TypeVarDecl", "CANONICAL_PATHS", "GlobalSymDecl", "MatchCastPair", "MetadataTable",
    "MetadataList", "AllocateSpec", "SIProxy", "TensorProxy", "ShapeProxy", "PrimProxy", "TupleProxy", "ObjectProxy",
    "CallableProxy", "BufferSpec", "BufferMethod", "InspectProxy", "MetaValue", "ScalarRef", "IterVarSpec", "LoopSpec", "BindSpec", "LetAnnotation",
    "BufferTypeAnnotation", "FunctionOptions", "DTensorProxy", "MeshRange",
]

"""The TensorIR subset that ``call_tir`` reaches (spec chapter TIR).

A :class:`PrimFunc` has scalar/handle parameters; handle parameters are mapped to :class:`Buffer`s by
``buffer_map`` (``A: T.Buffer(...)`` or ``A = T.match_buffer(a, ...)``). Its body is a statement tree of
loops (:class:`For`), blocks (:class:`BlockRealize` / :class:`Block`, spelled ``T.block`` classically and
``T.sblock`` in TVM >= 0.25), stores, conditionals and flat allocations.

Buffers and PrimVars are identity-compared; everything else compares structurally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from ..errors import Span
from . import dtype as _dt
from .attrs import EMPTY, Attrs
from .prim_expr import FloatImm, IntImm, PrimCall, PrimExpr, PrimVar


@dataclass(frozen=True, eq=False)
class Buffer:
    """A multi-dimensional view of memory (TIR.BUF.*). Dense row-major unless ``strides`` is given."""

    name: str
    shape: Tuple[PrimExpr, ...]
    dtype: str = "float32"
    data: Optional[PrimVar] = None
    strides: Tuple[PrimExpr, ...] = ()
    elem_offset: Optional[PrimExpr] = None
    scope: str = "global"
    axis_separators: Tuple[int, ...] = ()
    align: int = -1
    offset_factor: int = 0

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(IntImm(s, "int32") if isinstance(s, int) else s
                                                for s in self.shape))
        object.__setattr__(self, "strides", tuple(self.strides))
        if self.data is None:
            object.__setattr__(self, "data", PrimVar(self.name, "handle"))

    def __repr__(self) -> str:
        return f"Buffer({self.name!r}, {len(self.shape)}-d, {self.dtype})@{id(self) & 0xFFFF:04x}"


@dataclass(frozen=True)
class BufferLoad(PrimExpr):
    buffer: Buffer
    indices: Tuple[PrimExpr, ...]
    dtype: str = field(default=None)  # type: ignore[assignment]

    def __post_init__(self):
        object.__setattr__(self, "indices", tuple(self.indices))
        if self.dtype is None:
            object.__setattr__(self, "dtype", self.buffer.dtype)

    def __hash__(self):
        return hash((id(self.buffer), self.indices))


@dataclass(frozen=True)
class Range:
    """``[min, min + extent)``."""

    min: PrimExpr
    extent: PrimExpr


# ---------------------------------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stmt:
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True)
class BufferStore(Stmt):
    buffer: Buffer = None  # type: ignore[assignment]
    value: PrimExpr = None  # type: ignore[assignment]
    indices: Tuple[PrimExpr, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "indices", tuple(self.indices))


@dataclass(frozen=True)
class Evaluate(Stmt):
    value: PrimExpr = None  # type: ignore[assignment]


@dataclass(frozen=True)
class LetStmt(Stmt):
    """``with T.LetStmt(value) as var:`` / ``var: T.let = value`` scoped over ``body``."""

    var: PrimVar = None  # type: ignore[assignment]
    value: PrimExpr = None  # type: ignore[assignment]
    body: "Stmt" = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Bind(Stmt):
    """TVM 0.25's flat let (``T.bind``): ``var`` is bound for the rest of the enclosing sequence."""

    var: PrimVar = None  # type: ignore[assignment]
    value: PrimExpr = None  # type: ignore[assignment]


@dataclass(frozen=True)
class AssertStmt(Stmt):
    condition: PrimExpr = None  # type: ignore[assignment]
    message: str = ""
    body: Optional["Stmt"] = None


@dataclass(frozen=True)
class SeqStmt(Stmt):
    seq: Tuple["Stmt", ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "seq", tuple(self.seq))


FOR_KINDS = ("serial", "parallel", "vectorized", "unrolled", "thread_binding")


@dataclass(frozen=True)
class For(Stmt):
    """A loop ``for loop_var in [min, min + extent)``. Every kind executes serially (TIR.LOOP.1)."""

    loop_var: PrimVar = None  # type: ignore[assignment]
    min: PrimExpr = None  # type: ignore[assignment]
    extent: PrimExpr = None  # type: ignore[assignment]
    kind: str = "serial"
    body: "Stmt" = None  # type: ignore[assignment]
    thread_binding: Optional[str] = None
    annotations: Attrs = EMPTY


@dataclass(frozen=True)
class While(Stmt):
    condition: PrimExpr = None  # type: ignore[assignment]
    body: "Stmt" = None  # type: ignore[assignment]


@dataclass(frozen=True)
class IfThenElse(Stmt):
    condition: PrimExpr = None  # type: ignore[assignment]
    then_case: "Stmt" = None  # type: ignore[assignment]
    else_case: Optional["Stmt"] = None


@dataclass(frozen=True)
class AllocBuffer(Stmt):
    """Flat allocation (``T.alloc_buffer`` outside a block in TVM 0.25): the buffer lives until the
    end of the enclosing sequence."""

    buffer: Buffer = None  # type: ignore[assignment]


@dataclass(frozen=True)
class DeclBuffer(Stmt):
    """``T.decl_buffer``: declares a buffer view (flat form, body optional)."""

    buffer: Buffer = None  # type: ignore[assignment]
    body: Optional["Stmt"] = None


@dataclass(frozen=True)
class Allocate(Stmt):
    """Classic ``T.allocate`` (a raw allocation bound to ``buffer_var``) scoped over ``body``."""

    buffer_var: PrimVar = None  # type: ignore[assignment]
    dtype: str = "float32"
    extents: Tuple[PrimExpr, ...] = ()
    condition: Optional[PrimExpr] = None
    body: Optional["Stmt"] = None
    scope: str = "global"


@dataclass(frozen=True)
class IterVar:
    """A block iteration variable with domain ``dom`` and type spatial / reduce / scan / opaque."""

    var: PrimVar
    dom: Range
    iter_type: str = "spatial"  # "spatial" | "reduce" | "scan" | "opaque"


@dataclass(frozen=True)
class BufferRegion:
    buffer: Buffer
    region: Tuple[Range, ...]

    def __hash__(self):
        return hash((id(self.buffer), self.region))


@dataclass(frozen=True)
class MatchBufferRegion:
    buffer: Buffer
    source: BufferRegion


@dataclass(frozen=True)
class Block(Stmt):
    """A block (``T.block`` / ``T.sblock``). ``init`` runs when every reduce iter var is at its
    minimum (TIR.BLOCK.INIT.1)."""

    name: str = ""
    iter_vars: Tuple[IterVar, ...] = ()
    reads: Tuple[BufferRegion, ...] = ()
    writes: Tuple[BufferRegion, ...] = ()
    body: "Stmt" = None  # type: ignore[assignment]
    init: Optional["Stmt"] = None
    alloc_buffers: Tuple[Buffer, ...] = ()
    match_buffers: Tuple[MatchBufferRegion, ...] = ()
    annotations: Attrs = EMPTY

    def __post_init__(self):
        for f in ("iter_vars", "reads", "writes", "alloc_buffers", "match_buffers"):
            object.__setattr__(self, f, tuple(getattr(self, f)))


@dataclass(frozen=True)
class BlockRealize(Stmt):
    """Executes ``block`` with its iter vars bound to ``iter_values`` when ``predicate`` holds."""

    iter_values: Tuple[PrimExpr, ...] = ()
    predicate: PrimExpr = None  # type: ignore[assignment]
    block: Block = None  # type: ignore[assignment]

    def __post_init__(self):
        object.__setattr__(self, "iter_values", tuple(self.iter_values))
        if self.predicate is None:
            object.__setattr__(self, "predicate", IntImm(1, "bool"))


# ---------------------------------------------------------------------------------------------------
# PrimFunc
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PrimFunc:
    """A TensorIR function. ``params`` are PrimVars (``handle`` for buffers, scalars otherwise);
    ``buffer_map`` maps handle params to buffers, in parameter order."""

    params: Tuple[PrimVar, ...] = ()
    body: Stmt = None  # type: ignore[assignment]
    buffer_map: Tuple[Tuple[PrimVar, Buffer], ...] = ()
    ret_type: str = "void"
    attrs: Attrs = field(default=EMPTY, kw_only=True)
    span: Optional[Span] = field(default=None, kw_only=True, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(self.params))
        bm = self.buffer_map
        if isinstance(bm, dict):
            bm = tuple(bm.items())
        object.__setattr__(self, "buffer_map", tuple(tuple(p) for p in bm))
        if not isinstance(self.attrs, Attrs):
            object.__setattr__(self, "attrs", Attrs(self.attrs or {}))

    @property
    def global_symbol(self) -> Optional[str]:
        return self.attrs.get("global_symbol")

    def buffer_of(self, param: PrimVar) -> Optional[Buffer]:
        for p, b in self.buffer_map:
            if p is param:
                return b
        return None


def pack_buffer(buf: Buffer) -> PrimExpr:
    """``T.tvm_stack_make_array`` describing ``buf`` (TEXT.TIR.PACKED.1, what ``T.call_packed`` and TVM's
    ``tir.call_packed`` pass for a buffer argument): its data pointer, shape, strides (0: compact), rank,
    a zero of its dtype and its element offset."""
    idx = buf.shape[0].dtype if buf.shape else "int32"
    shape = PrimCall("handle", "tir.tvm_stack_make_shape", tuple(buf.shape))
    strides = PrimCall("handle", "tir.tvm_stack_make_shape", tuple(buf.strides)) if buf.strides \
        else IntImm(0, "int32")
    zero = FloatImm(0.0, buf.dtype) if _dt.is_float(buf.dtype) else IntImm(0, buf.dtype)
    offset = buf.elem_offset if buf.elem_offset is not None else IntImm(0, idx)
    return PrimCall("handle", "tir.tvm_stack_make_array",
                    (buf.data, shape, strides, IntImm(len(buf.shape), "int32"), zero, offset))


__all__ = [
    "Buffer", "BufferLoad", "Range", "Stmt", "BufferStore", "Evaluate", "LetStmt", "Bind", "AssertStmt",
    "SeqStmt", "FOR_KINDS", "For", "While", "IfThenElse", "AllocBuffer", "DeclBuffer", "Allocate",
    "IterVar", "BufferRegion", "MatchBufferRegion", "Block", "BlockRealize", "PrimFunc", "pack_buffer",
]

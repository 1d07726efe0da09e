"""Extern stages of the TE builder (TVM's ``te.extern``, TIR.TE.GEN.9).

An extern stage computes its output tensors with a statement over declared buffers instead of an
expression per element -- in TOPI typically a packed call such as
``call_packed("tvm.contrib.sort.argsort", ins[0], outs[0], axis, True)``, the CPU kernel of ``argsort``
that the legalization of ``median`` uses. This module holds the stage itself (:class:`ExternOp`), the
buffer declaration and packed-call helpers, and what :func:`relax_ref.ops.te.create_prim_func` does with
such a stage:

* a tensor an extern stage reads is bound to the stage's input buffer when it is a function argument
  (the parameter's buffer *is* that buffer, e.g. ``data_buf`` with ``align=8``); a computed tensor keeps
  its own buffer and the statement is rewritten to use it (its loads, stores and data pointer);
* the stage's output buffers are the output tensors' buffers (allocated in the root block unless they
  are arguments);
* the stage becomes one opaque block named after it, without iter vars, reads or writes.

The constructor :func:`relax_ref.ops.te.extern` lives with the other TE constructors.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Sequence, Tuple

from ..errors import RelaxError
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.attrs import Attrs
from ..ir.functor import PrimExprMutator, StmtMutator
from .te_ops import as_expr


@dataclass(eq=False)
class ExternOp:
    """A stage computed by a statement over declared buffers (TVM's ``te.extern``)."""

    name: str
    inputs: Tuple[Any, ...]           # te.Tensor
    input_buffers: Tuple[tir.Buffer, ...]
    output_buffers: Tuple[tir.Buffer, ...]
    body: tir.Stmt
    attrs: Attrs
    outputs: List[Any] = field(default_factory=list)


def decl_buffer(shape: Sequence, dtype: str = "float32", name: str = "buffer",
                data_alignment: int = -1) -> tir.Buffer:
    """A buffer for an extern stage (TVM's ``tir.decl_buffer``): compact, offset 0; integer extents
    become int64 constants."""
    dims = tuple(P.IntImm(d, "int64") if isinstance(d, int) and not isinstance(d, bool) else d for d in shape)
    return tir.Buffer(name, dims, dtype, align=data_alignment)


def call_packed(name: str, *args) -> P.PrimExpr:
    """``T.call_packed(name, *args)`` as TVM's ``tir.call_packed`` builds it: a buffer argument becomes
    its array descriptor (:func:`relax_ref.ir.tir.pack_buffer`), a string a string immediate, a Python
    number or bool a constant (int32, bool)."""
    conv = [tir.pack_buffer(a) if isinstance(a, tir.Buffer) else P.PrimStringImm(a) if isinstance(a, str)
            else as_expr(a) for a in args]
    return P.PrimCall("int32", "tir.tvm_call_packed", (P.PrimStringImm(name),) + tuple(conv))


def extern_binds(order: Sequence[Any]) -> Dict[int, tir.Buffer]:
    """The declared buffers of the tensors extern stages read and write, by ``id(tensor)`` (the first
    extern stage reading a tensor gives its buffer; an output's own buffer wins)."""
    bound: Dict[int, tir.Buffer] = {}
    for op in order:
        if isinstance(op, ExternOp):
            for t, b in zip(op.inputs, op.input_buffers):
                bound.setdefault(id(t), b)
    for op in order:
        if isinstance(op, ExternOp):
            for t, b in zip(op.outputs, op.output_buffers):
                bound[id(t)] = b
    return bound


class _BufferSubst(PrimExprMutator):
    """Loads of the declared input buffers and their data pointers, moved to the final buffers."""

    def __init__(self, bmap: Dict[int, tir.Buffer], data: Dict[P.PrimVar, tir.Buffer]):
        self.bmap = bmap
        self.data = data

    def visit_buffer(self, b: tir.Buffer) -> tir.Buffer:
        return self.bmap.get(id(b), b)

    def visit_var(self, v: P.PrimVar) -> P.PrimExpr:
        nb = self.data.get(v)
        return v if nb is None else nb.data


class _SubstStmt(StmtMutator):
    def visit_BufferStore(self, st: tir.BufferStore) -> tir.Stmt:
        new = self.generic_visit(st)
        nb = self.expr_mutator.visit_buffer(new.buffer)
        return new if nb is new.buffer else replace(new, buffer=nb)


def extern_stmt(op: ExternOp, buffers: Dict[int, tir.Buffer], block_name: str) -> tir.Stmt:
    """The opaque block of an extern stage; ``buffers`` maps ``id(tensor.buffer)`` to final buffers."""
    bmap: Dict[int, tir.Buffer] = {}
    data: Dict[P.PrimVar, tir.Buffer] = {}
    for t, b in zip(op.inputs, op.input_buffers):
        actual = buffers.get(id(t.buffer))
        if actual is None:
            raise RelaxError(f"create_prim_func: extern '{op.name}' reads '{t.name}', which is neither an "
                             "argument nor produced by a stage reachable from the arguments")
        if actual is not b:
            bmap[id(b)] = actual
            data[b.data] = actual
    body = op.body
    if bmap:
        body = _SubstStmt(_BufferSubst(bmap, data)).visit(body)
    block = tir.Block(name=block_name, body=body, annotations=op.attrs)
    return tir.BlockRealize((), P.IntImm(1, "bool"), block)


__all__ = ["ExternOp", "decl_buffer", "call_packed", "extern_binds", "extern_stmt"]

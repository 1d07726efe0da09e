"""RewriteDataflowReshape: reshape kernels become ``R.reshape`` (PASS.RESHAPE.*).

Follows TVM 0.25 (``src/relax/transform/rewrite_dataflow_reshape.cc`` and ``HasReshapePattern`` in
``src/relax/analysis/tir_op_pattern_kind.cc``). Inside dataflow blocks only, a binding of a
``DataflowVar`` to ``R.call_tir(f, (args...), out_sinfo)`` is replaced by ``R.reshape(arg,
<output shape>)`` when (PASS.RESHAPE.1):

* exactly one tensor argument ``arg`` is read by ``f`` (a buffer parameter referenced in its body);
* ``f`` has the reshape pattern (:func:`has_reshape_pattern`): its body is the root block, every
  loop nest leads to a block with only spatial iterators whose body is ``dst[...] = src[...]``
  between the first and the last buffer parameters, and the row-major flattened indices of the two
  sides are provably equal (when one side is indexed exactly by the block iterators over the whole
  buffer, the other side is checked after expressing every iterator through one fused iterator);
* the argument and the result have the same known dtype and known rank, and provably the same
  number of elements.

Bindings of non-dataflow variables and blocks outside dataflow are left alone. Assertions leading
the kernel (relax-ref's legalization of symbolic reshapes checks the element counts) are ignored:
``R.reshape`` performs the same check.

relax-ref proves the index equalities with its own analyzer (:mod:`relax_ref.arith`) instead of
TVM's iterator-map simplifier, so it may recognize a different (usually smaller) set of kernels;
it never rewrites a kernel that is not a reshape (PASS.RESHAPE.2).
"""

from __future__ import annotations

from typing import List, Optional, Set

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.functor import substitute_prim
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo
from .pass_infra import FunctionPass
from .tir_utils import split_leading_asserts
from .utils import BindingMutator


def _flatten(buffer: tir.Buffer, indices) -> P.PrimExpr:
    idx: P.PrimExpr = P.IntImm(0, indices[0].dtype if indices else "int64")
    for dim, i in zip(buffer.shape, indices):
        idx = P.add(P.mul(idx, dim), i)
    return idx


class _ReshapeDetector:
    def __init__(self, src: tir.Buffer, dst: tir.Buffer) -> None:
        from ..arith import Analyzer

        self.src = src
        self.dst = dst
        self.analyzer = Analyzer()
        self.is_reshape = False

    def stmt(self, s: tir.Stmt) -> None:
        if isinstance(s, tir.For):
            self.analyzer.bind_range(s.loop_var, s.min, s.extent)
            if not isinstance(s.body, (tir.For, tir.BlockRealize)):
                return
            self.stmt(s.body)
        elif isinstance(s, tir.BlockRealize):
            if any(iv.iter_type != "spatial" for iv in s.block.iter_vars):
                return
            self.block(s.block)

    def block(self, b: tir.Block) -> None:
        if isinstance(b.body, tir.For):
            self.stmt(b.body)
            return
        for iv in b.iter_vars:
            self.analyzer.bind_range(iv.var, iv.dom.min, iv.dom.extent)
        store = b.body
        if not isinstance(store, tir.BufferStore) or not isinstance(store.value, tir.BufferLoad):
            return
        load = store.value
        if store.buffer is not self.dst or load.buffer is not self.src:
            return
        a = self.analyzer

        def trivial(buffer: tir.Buffer, indices) -> bool:
            if len(indices) != len(b.iter_vars):
                return False
            for i, iv in enumerate(b.iter_vars):
                if not (indices[i] is iv.var and a.can_prove_equal(iv.dom.min, 0)
                        and a.can_prove_equal(buffer.shape[i], iv.dom.extent)):
                    return False
            return True

        nontrivial = None
        if trivial(self.dst, store.indices):
            nontrivial = (self.src, load.indices)
        elif trivial(self.src, load.indices):
            nontrivial = (self.dst, store.indices)
        if nontrivial is not None and b.iter_vars:
            dtype = b.iter_vars[0].var.dtype
            fused = P.PrimVar("fused", dtype)
            inverse = {}
            stride: P.PrimExpr = P.IntImm(1, dtype)
            for iv in reversed(b.iter_vars):
                inverse[iv.var] = P.floormod(P.floordiv(fused, stride), iv.dom.extent)
                stride = P.mul(stride, iv.dom.extent)
            flat = substitute_prim(a.simplify(_flatten(*nontrivial)), inverse)
            a2 = a.copy()
            a2.bind_range(fused, P.IntImm(0, dtype), stride)
            if a2.can_prove_equal(flat, fused):
                self.is_reshape = True
                return
        src_idx = _flatten(self.src, load.indices)
        dst_idx = _flatten(self.dst, store.indices)
        if a.can_prove_equal(src_idx, dst_idx):
            self.is_reshape = True


def has_reshape_pattern(func: tir.PrimFunc) -> bool:
    """(PASS.RESHAPE.1) Whether ``func`` copies its first buffer into its last as a reshape."""
    bufs = [func.buffer_of(p) for p in func.params if func.buffer_of(p) is not None]
    if len(bufs) < 2:
        return False
    _asserts, body = split_leading_asserts(func.body)
    if not isinstance(body, tir.BlockRealize):
        return False
    d = _ReshapeDetector(bufs[0], bufs[-1])
    d.stmt(body)
    return d.is_reshape


def _buffers_used(func: tir.PrimFunc) -> Set[int]:
    used: Set[int] = set()

    def expr(e) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if x is None:
                continue
            if isinstance(x, tir.BufferLoad):
                used.add(id(x.buffer))
            stack.extend(P.children(x))

    def stmt(s) -> None:
        if s is None:
            return
        if isinstance(s, tir.BufferStore):
            used.add(id(s.buffer))
            expr(s.value)
            for i in s.indices:
                expr(i)
            return
        if isinstance(s, tir.Block):
            for r in s.reads + s.writes:
                used.add(id(r.buffer))
            for m in s.match_buffers:
                used.add(id(m.source.buffer))
        from ..ir.functor import stmt_children, stmt_prim_exprs

        for e in stmt_prim_exprs(s):
            expr(e)
        for c in stmt_children(s):
            stmt(c)

    stmt(func.body)
    return used


def used_tensor_arg_indices(func: tir.PrimFunc, num_args: int) -> List[int]:
    used = _buffers_used(func)
    out = []
    for i in range(min(num_args, len(func.params))):
        buf = func.buffer_of(func.params[i])
        if buf is not None and id(buf) in used:
            out.append(i)
    return out


def _product(vals) -> P.PrimExpr:
    if not vals:
        return P.IntImm(1, "int64")
    p = vals[0]
    for v in vals[1:]:
        p = P.mul(p, v)
    return p


class _Rewriter(BindingMutator):
    def __init__(self, mod: IRModule) -> None:
        super().__init__(mod)
        self.mod = mod

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return b
        return super().visit_block(b)

    def visit_binding(self, b: rx.Binding):
        if not isinstance(b.var, rx.DataflowVar) or not isinstance(b, rx.VarBinding):
            return super().visit_binding(b)
        value = self.visit_expr(b.value)
        new = self.rewrite(value)
        return self.rebind(b, new if new is not None else value)

    def rewrite(self, call) -> Optional[rx.Expr]:
        if not (isinstance(call, rx.Call) and isinstance(call.op, rx.Op) and call.op.name == "relax.call_tir"):
            return None
        gv = call.args[0]
        func = self.mod[gv.name_hint] if isinstance(gv, rx.GlobalVar) and gv.name_hint in self.mod else None
        if not isinstance(func, tir.PrimFunc) or not isinstance(call.args[1], rx.Tuple):
            return None
        args = call.args[1].fields
        used = used_tensor_arg_indices(func, len(args))
        if len(used) != 1:
            return None
        arg = args[used[0]]
        if not has_reshape_pattern(func):
            return None
        inp, res = arg.struct_info, call.struct_info
        if not (isinstance(inp, TensorStructInfo) and isinstance(res, TensorStructInfo)):
            return None
        if inp.dtype == "void" or inp.dtype != res.dtype or inp.ndim == -1 or res.ndim == -1:
            return None
        iv, rv = inp.shape_values, res.shape_values
        if iv is None or rv is None or not isinstance(res.shape, rx.ShapeExpr):
            return None
        from ..arith import Analyzer

        if not Analyzer().can_prove_equal(_product(list(iv)), _product(list(rv))):
            return None
        return rx.Call(rx.Op("relax.reshape"), (arg, res.shape), span=call.span)


def rewrite_dataflow_reshape(func: rx.Function, mod: IRModule) -> rx.Function:
    """(PASS.RESHAPE.1) (not re-normalized)"""
    return _Rewriter(mod).visit_expr(func)


class RewriteDataflowReshape(FunctionPass):
    """(PASS.RESHAPE.*)"""

    name = "RewriteDataflowReshape"
    opt_level = 0

    def transform_function(self, func: rx.Function, mod: IRModule, name: str) -> rx.Function:
        return rewrite_dataflow_reshape(func, mod)


__all__ = ["RewriteDataflowReshape", "rewrite_dataflow_reshape", "has_reshape_pattern", "used_tensor_arg_indices"]

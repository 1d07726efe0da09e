"""Faults in the TensorIR that ``LegalizeOps`` produces (one operator family each).

Each function takes the real ``LegalizeOps`` (or any pass that creates kernels) and returns a mutant
that rewrites the kernels the pass created, chosen by their names (``floor_mod``, ``floor_mod1``,
...). They model the classes of bugs TVM fixed in its legalizations and TOPI kernels: reductions
without their init or over a wrong range (``[Relax] Fix matmul and reductions with zero-size
dimension return uninitialized memory``), truncating instead of flooring integer division, attributes
the lowering ignores (``[Relax] Fix bucketize output dtype during legalization``, TVM-F3's ``keepdims``),
off-by-one boundaries and indices (``Fix topi.strided_slice output shape``, ``Fix legalizing strided
slice``), and symbolic dims mistaken for broadcast dims (TVM-F10).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional, Set

from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import tir
from ...ir.attrs import Attrs
from ...ir.module import IRModule
from ...ir.struct_info import TensorStructInfo
from ...ir.functor import post_order_visit_stmt
from .base import (
    symbolic_dims_at_zero,
    BindingRewriter, StmtRewrite, is_const, kernel_buffers, mutant, name_matches, rewrite_bindings,
    rewrite_kernels,
)

REDUCTIONS = ("sum", "prod", "max", "min", "mean", "variance", "std", "median")
BROADCAST_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "floor_divide",
                    "floor_mod", "atan2", "log_add_exp", "equal", "not_equal", "less", "less_equal", "greater",
                    "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                    "logical_and", "logical_or", "logical_xor", "where")


def _named(*bases: str) -> Callable[[str, tir.PrimFunc], bool]:
    return lambda name, f: name_matches(name, bases)


def _kernels(inner, short: str, select, make):
    return mutant(inner, short, post=lambda before, after: rewrite_kernels(before, after, select, make))


# -- reductions --------------------------------------------------------------------------------------


def reduction_init_dropped(inner):
    """Reduction blocks lose their ``T.init()``: the accumulator starts from whatever the output
    buffer held (garbage in TVM, which the oracle's poisoned outputs reproduce)."""
    def make(f):
        return StmtRewrite(lambda s: replace(s, init=None) if isinstance(s, tir.Block) and s.init is not None else None)

    return _kernels(inner, "reduction_init_dropped", lambda n, f: True, make)


def _reduce_loop_vars(f: tir.PrimFunc) -> Set[int]:
    out: Set[int] = set()

    def visit(s):
        if isinstance(s, tir.BlockRealize):
            for iv, val in zip(s.block.iter_vars, s.iter_values):
                if iv.iter_type == "reduce" and isinstance(val, P.PrimVar):
                    out.add(id(val))

    post_order_visit_stmt(f.body, visit)
    return out


def reduce_loop_off_by_one(inner):
    """A reduction loop over a symbolic extent runs ``extent - 1`` times (a bound simplified one
    step too far): the last element of a symbolic axis is never reduced."""
    def make(f):
        red = _reduce_loop_vars(f)

        def fn(s):
            if isinstance(s, tir.For) and id(s.loop_var) in red and not is_const(s.extent):
                return tir.For(s.loop_var, s.min, P.Sub(s.extent, P.IntImm(1, s.extent.dtype)), s.kind, s.body,
                               s.thread_binding, s.annotations, span=s.span)
            return None

        return StmtRewrite(fn)

    return _kernels(inner, "reduce_loop_off_by_one", lambda n, f: True, make)


def keepdims_ignored(inner):
    """TVM-F3: a reduction over every axis with ``keepdims=True`` is lowered to shape ``(1,)``
    instead of ``(1, ..., 1)``; later operators see the wrong rank."""
    def fn(b: rx.Binding, rw: BindingRewriter):
        v = b.value
        if not (isinstance(b, rx.VarBinding) and isinstance(v, rx.Call) and isinstance(v.op, rx.Op)
                and v.op.name == "relax.call_tir" and isinstance(v.args[0], rx.GlobalVar)
                and name_matches(v.args[0].name_hint, REDUCTIONS)):
            return b
        si = v.sinfo_args[0] if v.sinfo_args else None
        vals = si.shape_values if isinstance(si, TensorStructInfo) else None
        if vals is None or len(vals) < 2 or not all(isinstance(d, P.IntImm) and d.value == 1 for d in vals):
            return b
        from ..rules import call

        tmp = type(b.var)(name_hint=b.var.name_hint + "_red")
        new = type(b.var)(name_hint=b.var.name_hint)
        rw.var_remap[b.var] = new
        return [rx.VarBinding(tmp, v, span=b.span),
                rx.VarBinding(new, call("relax.reshape", tmp, rx.ShapeExpr((P.IntImm(1, "int64"),))), span=b.span)]

    return mutant(inner, "keepdims_ignored", post=lambda before, after: rewrite_bindings(after, fn))


# -- arithmetic ----------------------------------------------------------------------------------------


def floor_mod_as_trunc_mod(inner):
    """Integer ``floor_mod`` / ``floor_divide`` lowered with truncating ``%`` and ``/`` (C semantics):
    wrong whenever the operands have different signs."""
    def make(f):
        def fn(e):
            if isinstance(e, P.FloorMod) and not e.dtype.startswith("float"):
                return P.Mod(e.a, e.b, e.dtype)
            if isinstance(e, P.FloorDiv) and not e.dtype.startswith("float"):
                return P.Div(e.a, e.b, e.dtype)
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "floor_mod_as_trunc_mod", _named("floor_mod", "floor_divide"), make)


def round_half_up(inner):
    """``round`` lowered as ``floor(x + 0.5)`` instead of rounding half to even: wrong at
    ``0.5, 2.5, -1.5, ...``."""
    def make(f):
        def fn(e):
            if isinstance(e, P.PrimCall) and e.op == "tir.nearbyint":
                x = e.args[0]
                return P.PrimCall(e.dtype, "tir.floor", (P.Add(x, P.FloatImm(0.5, x.dtype)),))
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "round_half_up", _named("tir_round", "round"), make)


def astype_floor_cast(inner):
    """A float-to-integer ``astype`` floors instead of truncating toward zero: wrong for negative
    non-integers (``-0.75`` becomes ``-1``)."""
    def make(f):
        def fn(e):
            if isinstance(e, P.Cast) and not e.dtype.startswith(("float", "bool")) \
                    and e.value.dtype.startswith("float"):
                return P.Cast(e.dtype, P.PrimCall(e.value.dtype, "tir.floor", (e.value,)))
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "astype_floor_cast", _named("cast"), make)


def argmax_ties_last(inner):
    """``argmax`` / ``argmin`` keep the *last* index among equal values instead of the first (the
    tie-break comparison reversed)."""
    def make(f):
        def fn(e):
            if isinstance(e, P.LT) and isinstance(e.a, tir.BufferLoad) and e.a.dtype in ("int64", "int32") \
                    and isinstance(e.b, P.PrimVar):
                return P.GT(e.a, e.b)
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "argmax_ties_last", _named("argmax", "argmin"), make)


# -- indexing --------------------------------------------------------------------------------------------


def concat_boundary_off_by_one(inner):
    """``concat``'s selection between its inputs uses ``<`` for ``<=``: the first element of each
    later input is read past the end of the previous one."""
    def make(f):
        def fn(e):
            if isinstance(e, P.LE) and isinstance(e.a, P.IntImm) and e.a.value == 0 and isinstance(e.b, P.Sub):
                return P.LT(e.a, e.b)
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "concat_boundary_off_by_one", _named("concatenate", "concat"), make)


def flip_off_by_one(inner):
    """``flip`` reads ``x[n - i]`` instead of ``x[n - 1 - i]`` (one past the end at ``i = 0``)."""
    def make(f):
        def fn(e):
            if not isinstance(e, tir.BufferLoad):
                return None
            idx = list(e.indices)
            for k, i in enumerate(idx):
                if isinstance(i, P.Sub) and isinstance(i.a, P.IntImm):
                    idx[k] = P.Sub(P.IntImm(i.a.value + 1, i.a.dtype), i.b, i.dtype)
                    return tir.BufferLoad(e.buffer, tuple(idx), e.dtype)
                if isinstance(i, P.Sub) and isinstance(i.a, P.Sub) and isinstance(i.a.b, P.IntImm) \
                        and i.a.b.value == 1:
                    idx[k] = P.Sub(i.a.a, i.b, i.dtype)
                    return tir.BufferLoad(e.buffer, tuple(idx), e.dtype)
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "flip_off_by_one", _named("flip", "reverse_sequence"), make)


def strided_slice_stride_ignored(inner):
    """``strided_slice`` ignores its stride when indexing the input (``x[begin + i]`` instead of
    ``x[begin + i * stride]``) while keeping the output shape."""
    def make(f):
        def fn(e):
            if isinstance(e, P.Mul) and isinstance(e.a, P.PrimVar) and isinstance(e.b, P.IntImm) and e.b.value > 1:
                return e.a
            return None

        return StmtRewrite(expr_fn=fn)

    return _kernels(inner, "strided_slice_stride_ignored", _named("strided_slice"), make)


def symbolic_dim_broadcast(inner):
    """TVM-F10's class: in a broadcasting binary kernel (operands of different shapes), a symbolic
    dim of an operand is taken for a broadcast dim and read at index 0."""
    def select(name: str, f: tir.PrimFunc) -> bool:
        if not name_matches(name, BROADCAST_BINARY):
            return False
        bufs = kernel_buffers(f)[:-1]
        return len(bufs) >= 2 and len({(len(b.shape), tuple(map(str, b.shape))) for b in bufs}) > 1

    def make(f):
        inputs = {id(b) for b in kernel_buffers(f)[:-1]}

        return symbolic_dims_at_zero(inputs)

    return _kernels(inner, "symbolic_dim_broadcast", select, make)


# -- attributes ------------------------------------------------------------------------------------------


def cumsum_exclusive_ignored(inner):
    """``cumsum`` / ``cumprod`` lowered without looking at ``exclusive`` (an attribute the
    legalization drops): exclusive scans come out inclusive."""
    def pre(mod: IRModule) -> Optional[IRModule]:
        def fn(b: rx.Binding, rw: BindingRewriter):
            v = b.value
            if isinstance(b, rx.VarBinding) and isinstance(v, rx.Call) and isinstance(v.op, rx.Op) \
                    and v.op.name in ("relax.cumsum", "relax.cumprod") and v.attrs.get("exclusive"):
                attrs = Attrs({**dict(v.attrs.items()), "exclusive": False})
                return rx.VarBinding(b.var, rx.Call(v.op, v.args, attrs, v.sinfo_args, span=v.span), span=b.span)
            return b

        return rewrite_bindings(mod, fn)

    return mutant(inner, "cumsum_exclusive_ignored", pre=pre)


__all__ = ["reduction_init_dropped", "reduce_loop_off_by_one", "keepdims_ignored", "floor_mod_as_trunc_mod",
           "round_half_up", "astype_floor_cast", "argmax_ties_last", "concat_boundary_off_by_one",
           "flip_off_by_one", "strided_slice_stride_ignored", "symbolic_dim_broadcast", "cumsum_exclusive_ignored"]

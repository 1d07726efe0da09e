"""Faults of passes that create or rewrite functions: LambdaLift, FuseOps, FuseTIR and
RemoveUnusedParameters / ExpandTupleArguments.

Modelled on TVM-F5 (FuseOps drops an output binding), TVM-F8 and ``Handle symbolic variables in
LambdaLift`` (symbolic variables shared between the caller and the lifted function), TVM-F9
(a lifted closure's parameter removed while ``make_closure`` still passes it), ``Preserve
symbolic variables in FuseOps`` (fused functions' parameters erased to ``R.Tensor(ndim=k)``), ``Fix
bug for tir expression in shape in fuse_tir`` and ``Fix FuseTIR when the same buffer is read
multiple times with different access pattern`` (index and buffer confusion inside fused kernels),
and ``Fix RemoveUnusedParameters symbolic var promotion``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional

from ...analysis.struct_info_ops import struct_info_alpha_equal
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import tir
from ...ir.functor import ExprMutator
from ...ir.module import IRModule
from ...ir.struct_info import TensorStructInfo
from ...transform import Pass
from .base import (
    symbolic_dims_at_zero,
    StmtRewrite, is_const, mutant, renormalize_or_raise, rewrite_bindings, rewrite_kernels,
)


def _new_functions(before: IRModule, after: IRModule) -> Dict[str, rx.Function]:
    old = {id(f) for _, f in before.functions_items()}
    return {gv.name_hint: f for gv, f in after.relax_functions() if id(f) not in old and gv.name_hint not in before}


def _module_with(after: IRModule, changed: Dict[str, object]) -> IRModule:
    items = {gv: changed.get(gv.name_hint, f) for gv, f in after.functions_items()}
    return IRModule(items, after.attrs, after.global_infos)


# ---------------------------------------------------------------------------------------------------
# LambdaLift
# ---------------------------------------------------------------------------------------------------


def _make_closure_args(v) -> Optional[rx.Call]:
    if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and v.op.name == "relax.make_closure" \
            and isinstance(v.args[0], rx.GlobalVar) and isinstance(v.args[1], rx.Tuple):
        return v
    return None


def lambda_lift_capture_dropped(inner) -> Pass:
    """The last captured variable is dropped from both the lifted function's parameters and the
    ``make_closure`` call, but the lifted body still uses it."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        lifted = _new_functions(before, after)
        victim: Dict[str, int] = {}

        def fn(b, rw):
            c = _make_closure_args(b.value)
            if c is None or c.args[0].name_hint not in lifted or not c.args[1].fields or victim:
                return b
            victim[c.args[0].name_hint] = len(c.args[1].fields)
            caps = rx.Tuple(c.args[1].fields[:-1])
            return rx.VarBinding(b.var, rx.Call(c.op, (c.args[0], caps), c.attrs, c.sinfo_args, span=c.span),
                                 span=b.span)

        out = rewrite_bindings(after, fn)
        if out is None:
            return None
        name = next(iter(victim))
        f = out[name]
        g = rx.Function(f.params[:-1], f.body, f.ret_struct_info, f.is_pure, attrs=f.attrs, span=f.span)
        return renormalize_or_raise(_module_with(out, {name: g}))

    return mutant(inner, "capture_dropped", post=post)


def lambda_lift_captures_swapped(inner) -> Pass:
    """``make_closure`` passes two captured values of the same struct info in the wrong order."""
    def fn(b, rw):
        c = _make_closure_args(b.value)
        if c is None or len(c.args[1].fields) < 2:
            return b
        fs: List[rx.Expr] = list(c.args[1].fields)
        for i in range(len(fs) - 1):
            if fs[i] is not fs[i + 1] and struct_info_alpha_equal(fs[i].struct_info, fs[i + 1].struct_info):
                fs[i], fs[i + 1] = fs[i + 1], fs[i]
                return rx.VarBinding(b.var, rx.Call(c.op, (c.args[0], rx.Tuple(tuple(fs))), c.attrs, c.sinfo_args,
                                                    span=c.span), span=b.span)
        return b

    return mutant(inner, "captures_swapped", post=lambda before, after: rewrite_bindings(after, fn))


def _defined_sym(f: rx.Function) -> Dict[str, P.PrimVar]:
    from ...analysis.free_vars import defined_symbolic_vars

    return {v.name: v for v in defined_symbolic_vars(f)}


def lambda_lift_symbolic_vars_shared(inner) -> Pass:
    """The lifted function keeps the symbolic variables of the function it was lifted from
    (instead of its own), so one variable is defined in two functions."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        from ...transform.utils import _Copier

        outer: Dict[str, P.PrimVar] = {}
        for _, f in after.relax_functions():
            if f.attrs.get("global_symbol"):
                outer.update(_defined_sym(f))
        changed = {}
        for name, f in _new_functions(before, after).items():
            pmap = {v: outer[v.name] for v in _defined_sym(f).values() if v.name in outer and outer[v.name] is not v}
            if pmap:
                changed[name] = _Copier(pmap).expr(f)
        if not changed:
            return None
        return renormalize_or_raise(_module_with(after, changed))

    return mutant(inner, "symbolic_vars_shared", post=post)


# ---------------------------------------------------------------------------------------------------
# FuseOps
# ---------------------------------------------------------------------------------------------------


def fuse_ops_drops_output(inner) -> Pass:
    """TVM-F5: of a fused group with several outputs, one output's ``TupleGetItem`` binding is not
    emitted, so its later uses refer to an undefined variable."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        fused = set(_new_functions(before, after))
        calls: Dict[int, str] = {}
        done = []

        def fn(b, rw):
            v = b.value
            if isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar) and v.op.name_hint in fused:
                calls[id(b.var)] = v.op.name_hint
            if not done and isinstance(v, rx.TupleGetItem) and v.index >= 1 and id(v.tuple_value) in calls:
                done.append(b)
                return None
            return b

        return rewrite_bindings(after, fn, only=lambda name, f: name not in fused)

    return mutant(inner, "drops_output", post=post)


def fuse_ops_symbolic_vars_erased(inner) -> Pass:
    """Fused functions get parameters erased to ``R.Tensor(ndim=k)`` (``EraseToWellDefined`` run
    without the parameters in scope), while their bodies still use the symbolic shapes."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        changed = {}
        for name, f in _new_functions(before, after).items():
            if not f.attrs.get("Primitive"):
                continue
            remap: Dict[rx.Var, rx.Var] = {}
            for p in f.params:
                s = p.struct_info
                if isinstance(s, TensorStructInfo) and s.shape_values is not None \
                        and any(not is_const(d) for d in s.shape_values):
                    remap[p] = rx.Var(p.name_hint, struct_info=TensorStructInfo(None, s.dtype, ndim=s.ndim))
            if not remap:
                continue
            m = ExprMutator()
            m.var_remap.update(remap)
            body = m.visit_expr(f.body)
            changed[name] = rx.Function(tuple(remap.get(p, p) for p in f.params), body, f.ret_struct_info, f.is_pure,
                                        attrs=f.attrs, span=f.span)
        if not changed:
            return None
        return renormalize_or_raise(_module_with(after, changed))

    return mutant(inner, "symbolic_vars_erased", post=post)


# ---------------------------------------------------------------------------------------------------
# FuseTIR
# ---------------------------------------------------------------------------------------------------


def _alloc_buffers(f: tir.PrimFunc) -> List[tir.Buffer]:
    out: List[tir.Buffer] = []

    def visit(s):
        if isinstance(s, tir.Block):
            out.extend(s.alloc_buffers)
        elif isinstance(s, tir.AllocBuffer):
            out.append(s.buffer)

    from ...ir.functor import post_order_visit_stmt

    post_order_visit_stmt(f.body, visit)
    return out


def fuse_tir_intermediate_symbolic_index(inner) -> Pass:
    """In a fused kernel, the loads of an intermediate buffer use index 0 along its symbolic dims (the
    intermediate's shape was matched against a broadcast operand's)."""
    def make(f):
        inter = {id(b) for b in _alloc_buffers(f)}

        return symbolic_dims_at_zero(inter)

    return mutant(inner, "intermediate_symbolic_index",
                  post=lambda before, after: rewrite_kernels(before, after, lambda n, f: bool(_alloc_buffers(f)), make))


def fuse_tir_intermediates_merged(inner) -> Pass:
    """Two intermediate buffers of a fused kernel with the same shape and dtype are given one
    allocation although both are live (a reuse decision without a liveness check)."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        from ...transform.tir_utils import TIRRewriter

        changed = {}
        old = {id(f) for _, f in before.prim_funcs()}
        for gv, f in after.prim_funcs():
            if id(f) in old:
                continue
            bufs = _alloc_buffers(f)
            pair = None
            for i, a in enumerate(bufs):
                for b in bufs[i + 1:]:
                    if a.dtype == b.dtype and tuple(map(str, a.shape)) == tuple(map(str, b.shape)):
                        pair = (a, b)
                        break
                if pair:
                    break
            if pair is None:
                continue
            a, b = pair
            rw = TIRRewriter(buffer_map={id(b): a})
            body = rw.stmt(_drop_alloc(f.body, b))
            changed[gv.name_hint] = replace(f, body=body)
        if not changed:
            return None
        return _module_with(after, changed)

    return mutant(inner, "intermediates_merged", post=post)


def _drop_alloc(s: tir.Stmt, buf: tir.Buffer) -> tir.Stmt:
    def fn(x):
        if isinstance(x, tir.Block) and any(b is buf for b in x.alloc_buffers):
            return replace(x, alloc_buffers=tuple(b for b in x.alloc_buffers if b is not buf))
        return None

    return StmtRewrite(fn).visit(s)


# ---------------------------------------------------------------------------------------------------
# RemoveUnusedParameters
# ---------------------------------------------------------------------------------------------------


def remove_unused_params_symbolic_var_lost(inner) -> Pass:
    """A removed parameter was the only definition of a symbolic variable the function still uses,
    and the variable is not re-introduced as a parameter (the promotion step skipped)."""
    from ...transform import fuse_tir

    return mutant(inner, "symbolic_var_lost", patches=[(fuse_tir, "free_symbolic_vars", lambda orig: lambda e: [])])


def expand_tuple_fields_reversed(inner) -> Pass:
    """At call sites the flattened fields of a tuple argument are passed in reverse order when their
    struct info allows it."""
    def post(before: IRModule, after: IRModule) -> Optional[IRModule]:
        changed_fns = {gv.name_hint for gv, f in after.relax_functions()
                       if gv.name_hint in before and before[gv.name_hint] is not f
                       and len(f.params) > len(before[gv.name_hint].params)}
        if not changed_fns:
            return None

        def fn(b, rw):
            v = b.value
            if not (isinstance(v, rx.Call) and isinstance(v.op, rx.GlobalVar) and v.op.name_hint in changed_fns):
                return b
            args = list(v.args)
            for i in range(len(args) - 1):
                x, y = args[i], args[i + 1]
                if isinstance(x, rx.Var) and isinstance(y, rx.Var) and x is not y \
                        and struct_info_alpha_equal(x.struct_info, y.struct_info):
                    args[i], args[i + 1] = y, x
                    return rx.VarBinding(b.var, rx.Call(v.op, tuple(args), v.attrs, v.sinfo_args, span=v.span),
                                         span=b.span)
            return b

        return rewrite_bindings(after, fn)

    return mutant(inner, "fields_reversed", post=post)


__all__ = ["lambda_lift_capture_dropped", "lambda_lift_captures_swapped", "lambda_lift_symbolic_vars_shared",
           "fuse_ops_drops_output", "fuse_ops_symbolic_vars_erased", "fuse_tir_intermediate_symbolic_index",
           "fuse_tir_intermediates_merged", "remove_unused_params_symbolic_var_lost", "expand_tuple_fields_reversed"]

"""Faults at the level of Relax bindings: liveness, scoping, rebinding, common subexpressions.

Modelled on TVM's fixed bugs in its binding-level passes: ``Handle assignment of non-dataflow var
to a dataflow var in CanonicalizeBindings`` (a DataflowVar escaping its block), ``Fix
EliminiateCommonSubexpr removing alloc tensor`` (CSE merging what is not the same value),
``Keep R.ExternFunc in dead-code elimination`` and ``FoldConstant with DCE in dataflow block``
(liveness that misses a kind of use), TVM-F5 (an output binding dropped), ``Preserve existing
DataflowBlock in ConvertToDataflow`` (block restructuring), ``Preserve symbolic variables in
FuseOps`` (``EraseToWellDefined`` weakening struct info).

:func:`drop_binding` and :func:`swap_operands` are the two generic mutants kept from the first
version of this module: they apply to any pass.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from ...analysis.free_vars import free_vars
from ...analysis.struct_info_ops import struct_info_alpha_equal
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir.functor import ExprMutator
from ...ir.module import IRModule
from ...ir.struct_info import FuncStructInfo, TensorStructInfo
from ...transform import Pass
from .base import BindingRewriter, mutant, renormalize_or_raise, rewrite_bindings, rewrite_functions, uses_in

NON_COMMUTATIVE = frozenset({
    "relax.subtract", "relax.divide", "relax.floor_divide", "relax.floor_mod", "relax.power", "relax.less",
    "relax.less_equal", "relax.greater", "relax.greater_equal", "relax.atan2", "relax.left_shift",
    "relax.right_shift",
})


# ---------------------------------------------------------------------------------------------------
# The two generic mutants
# ---------------------------------------------------------------------------------------------------


def _replace_body(f: rx.Function, blocks) -> rx.Function:
    body = rx.SeqExpr(tuple(blocks), f.body.body, struct_info=f.body.struct_info, span=f.body.span)
    return rx.Function(f.params, body, f.ret_struct_info, f.is_pure, attrs=f.attrs, span=f.span,
                       struct_info=f.struct_info)


def _drop_used_binding(f: rx.Function) -> Optional[rx.Function]:
    blocks = list(f.body.blocks)
    for bi in range(len(blocks) - 1, -1, -1):
        bindings = list(blocks[bi].bindings)
        for i in range(len(bindings) - 1, -1, -1):
            var = bindings[i].var
            later = [b.value for b in bindings[i + 1:]] + [b.value for blk in blocks[bi + 1:] for b in blk.bindings]
            later.append(f.body.body)
            if any(var in free_vars(e) for e in later if isinstance(e, rx.Expr)):
                del bindings[i]
                blocks[bi] = type(blocks[bi])(tuple(bindings), span=blocks[bi].span)
                return _replace_body(f, blocks)
    return None


def _swapped(c: rx.Call) -> Optional[rx.Call]:
    if not isinstance(c.op, rx.Op):
        return None
    if c.op.name in NON_COMMUTATIVE and len(c.args) == 2:
        a, b = c.args
        if a is b or not struct_info_alpha_equal(a.struct_info, b.struct_info):
            return None
        return rx.Call(c.op, (b, a), c.attrs, c.sinfo_args, struct_info=c.struct_info, span=c.span)
    if c.op.name == "relax.call_tir" and isinstance(c.args[1], rx.Tuple) and len(c.args[1].fields) >= 2:
        fs: List[rx.Expr] = list(c.args[1].fields)
        if fs[0] is fs[1] or not struct_info_alpha_equal(fs[0].struct_info, fs[1].struct_info):
            return None
        fs[0], fs[1] = fs[1], fs[0]
        args = (c.args[0], rx.Tuple(tuple(fs), struct_info=c.args[1].struct_info)) + tuple(c.args[2:])
        return rx.Call(c.op, args, c.attrs, c.sinfo_args, struct_info=c.struct_info, span=c.span)
    return None


def _swap_all(f: rx.Function) -> Optional[rx.Function]:
    blocks = list(f.body.blocks)
    changed = False
    for bi, block in enumerate(blocks):
        bindings = list(block.bindings)
        for i, b in enumerate(bindings):
            v = b.value if isinstance(b, rx.VarBinding) else None
            new = _swapped(v) if isinstance(v, rx.Call) else None
            if new is not None:
                bindings[i] = rx.VarBinding(b.var, new, span=b.span)
                changed = True
        blocks[bi] = type(block)(tuple(bindings), span=block.span)
    return _replace_body(f, blocks) if changed else None


def _on_main(fn):
    def post(before: IRModule, out: IRModule) -> Optional[IRModule]:
        if "main" not in out or not isinstance(out["main"], rx.Function):
            return None
        f = fn(out["main"])
        return None if f is None else out.with_function("main", f)

    return post


def drop_binding(pass_) -> Pass:
    """``pass_`` followed by dropping the last binding of ``main`` that is still used: the output
    refers to an undefined variable (``ill-formed``)."""
    return mutant(pass_, "drop_binding", post=_on_main(_drop_used_binding))


def swap_operands(pass_) -> Pass:
    """``pass_`` followed by swapping the operands of every call in ``main``'s top-level bindings to a
    non-commutative binary operator (``subtract``, ``divide``, comparisons, ...) or to a ``call_tir``
    whose first two inputs have the same struct info: well formed, but computes something else."""
    return mutant(pass_, "swap_operands", post=_on_main(_swap_all))


# ---------------------------------------------------------------------------------------------------
# CanonicalizeBindings
# ---------------------------------------------------------------------------------------------------


def _later_uses(blocks, start: int, body) -> Dict[int, int]:
    out: Dict[int, int] = {}
    for blk in blocks[start:]:
        for b in blk.bindings:
            uses_in(b.value, out)
    uses_in(body, out)
    return out


class _EscapeDataflowVar(ExprMutator):
    """The first output of a dataflow block that is used after the block is rebound as a
    DataflowVar, and every use follows it."""

    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def visit_SeqExpr(self, e: rx.SeqExpr):
        if not self.done:
            for i, blk in enumerate(e.blocks):
                if not isinstance(blk, rx.DataflowBlock):
                    continue
                later = _later_uses(e.blocks, i + 1, e.body)
                for b in blk.bindings:
                    if isinstance(b, rx.VarBinding) and not isinstance(b.var, rx.DataflowVar) and later.get(id(b.var)):
                        self.var_remap[b.var] = rx.DataflowVar(b.var.name_hint, struct_info=b.var.struct_info)
                        self.done = True
                        break
                if self.done:
                    break
        return self.generic_mutate_expr(e)

    def visit_binding(self, b: rx.Binding):
        nb = super().visit_binding(b)
        new_var = self.var_remap.get(b.var)
        if new_var is not None and isinstance(nb, rx.VarBinding) and nb.var is b.var:
            return rx.VarBinding(new_var, nb.value, span=nb.span)
        return nb


def dataflow_var_escapes(inner) -> Pass:
    """A block output is rebound as a ``DataflowVar`` (as when ``gv = lv`` is folded the wrong way
    round), so its uses after the block refer to a DataflowVar outside its block."""
    def each(name, f):
        m = _EscapeDataflowVar()
        nf = m.visit_expr(f)
        return nf if m.done else None

    return mutant(inner, "dataflow_var_escapes", post=lambda before, after: rewrite_functions(after, each))


def if_const_inverted(inner) -> Pass:
    """An ``If`` on a constant condition is folded to the branch the condition does *not* select."""
    def fn(b: rx.Binding, rw: BindingRewriter):
        v = b.value
        if isinstance(b, rx.VarBinding) and isinstance(v, rx.If) and isinstance(v.cond, rx.PrimValue) \
                and isinstance(v.cond.value, P.IntImm):
            from ...transform.utils import _Copier

            taken = v.false_branch if v.cond.value.value else v.true_branch
            other = _Copier({}).expr(taken)
            t, f = (other, taken) if v.cond.value.value else (taken, other)
            return rx.VarBinding(b.var, rx.If(v.cond, t, f, span=v.span), span=b.span)
        return b

    return mutant(inner, "if_const_inverted", post=lambda before, after: rewrite_bindings(after, fn))


# ---------------------------------------------------------------------------------------------------
# DeadCodeElimination
# ---------------------------------------------------------------------------------------------------


def _drop_vars(mod: IRModule, victims_of) -> Optional[IRModule]:
    def each(name, f):
        victims = victims_of(f)
        if not victims:
            return None
        rw = BindingRewriter(lambda b, r: None if id(b.var) in victims else b)
        nf = rw.visit_expr(f)
        return nf if rw.changed else None

    return rewrite_functions(mod, each)


def _pure_bindings(f: rx.Function) -> List[rx.Binding]:
    out: List[rx.Binding] = []

    def seq(e):
        for blk in e.blocks:
            for b in blk.bindings:
                out.append(b)
                if isinstance(b.value, rx.If):
                    seq(b.value.true_branch)
                    seq(b.value.false_branch)

    seq(f.body)
    return out


def dce_ignores_closure_captures(inner) -> Pass:
    """Liveness does not look into local functions: a value used only by a closure it captures is
    removed as dead."""
    def victims(f: rx.Function):
        outside = uses_in(f.body, closures=False)
        everywhere = uses_in(f.body)
        return {id(b.var) for b in _pure_bindings(f) if isinstance(b, rx.VarBinding)
                and not isinstance(b.value, rx.Function) and everywhere.get(id(b.var)) and not outside.get(id(b.var))}

    return mutant(inner, "ignores_closure_captures", post=lambda before, after: _drop_vars(after, victims))


def _cond_vars(e, out: set) -> None:
    if isinstance(e, rx.SeqExpr):
        for blk in e.blocks:
            for b in blk.bindings:
                _cond_vars(b.value, out)
    elif isinstance(e, rx.If):
        if isinstance(e.cond, rx.Var):
            out.add(id(e.cond))
        _cond_vars(e.true_branch, out)
        _cond_vars(e.false_branch, out)
    elif isinstance(e, rx.Function):
        _cond_vars(e.body, out)


def dce_ignores_if_condition(inner) -> Pass:
    """An ``If`` condition does not count as a use: the binding computing it is removed."""
    def victims(f: rx.Function):
        conds: set = set()
        _cond_vars(f.body, conds)
        if not conds:
            return set()
        other: Dict[int, int] = {}
        for b in _pure_bindings(f):
            v = b.value
            if isinstance(v, rx.If):
                uses_in(v.true_branch, other)
                uses_in(v.false_branch, other)
            else:
                uses_in(v, other)
        uses_in(f.body.body, other)
        return {id(b.var) for b in _pure_bindings(f) if id(b.var) in conds and not other.get(id(b.var))}

    return mutant(inner, "ignores_if_condition", post=lambda before, after: _drop_vars(after, victims))


def dce_removes_match_cast(inner) -> Pass:
    """A ``match_cast`` whose variable is unused is removed like a dead binding -- its check and the
    symbolic variables it defines go with it."""
    def victims(f: rx.Function):
        used = uses_in(f.body)
        return {id(b.var) for b in _pure_bindings(f) if isinstance(b, rx.MatchCast) and not used.get(id(b.var))}

    return mutant(inner, "removes_match_cast", post=lambda before, after: _drop_vars(after, victims))


# ---------------------------------------------------------------------------------------------------
# EliminateCommonSubexpr
# ---------------------------------------------------------------------------------------------------


def _call_key(v) -> Optional[Tuple]:
    if isinstance(v, rx.Call) and isinstance(v.op, rx.Op):
        return (v.op.name,) + tuple(id(a) if isinstance(a, rx.Var) else repr(a) for a in v.args)
    return None


class _MergeIgnoringAttrs(ExprMutator):
    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        seen: Dict[Tuple, rx.Binding] = {}
        out = []
        changed = False
        for x in b.bindings:
            x = self.visit_binding(x)
            key = _call_key(x.value) if isinstance(x, rx.VarBinding) else None
            first = seen.get(key) if key is not None else None
            if first is not None and first.value.attrs != x.value.attrs \
                    and struct_info_alpha_equal(first.var.struct_info, x.var.struct_info):
                self.var_remap[x.var] = first.var
                changed = True
                continue
            if key is not None and key not in seen:
                seen[key] = x
            out.append(x)
        if not changed and all(a is c for a, c in zip(out, b.bindings)) and len(out) == len(b.bindings):
            return b
        return type(b)(tuple(out), span=b.span)


def cse_ignores_attrs(inner) -> Pass:
    """Two calls of the same operator on the same arguments are merged although their attributes
    differ (``flip(x, axis=0)`` and ``flip(x, axis=1)``, ``astype`` to other dtypes of equal size...)."""
    def each(name, f):
        m = _MergeIgnoringAttrs()
        nf = m.visit_expr(f)
        return nf if m.var_remap else None

    return mutant(inner, "ignores_attrs", post=lambda before, after: rewrite_functions(after, each))


def _branch_calls(e: rx.SeqExpr) -> Dict[Tuple, rx.Var]:
    out: Dict[Tuple, rx.Var] = {}
    for blk in e.blocks:
        for b in blk.bindings:
            key = _call_key(b.value) if isinstance(b, rx.VarBinding) else None
            if key is not None:
                out.setdefault(key + (repr(b.value.attrs),), b.var)
    return out


class _ReuseAcrossBranches(ExprMutator):
    def __init__(self) -> None:
        super().__init__()
        self.hits = 0

    def visit_If(self, e: rx.If):
        e = self.generic_mutate_expr(e)
        known = _branch_calls(e.true_branch)
        if not known:
            return e
        remap: Dict[rx.Var, rx.Var] = {}
        blocks = []
        for blk in e.false_branch.blocks:
            keep = []
            for b in blk.bindings:
                key = _call_key(b.value) if isinstance(b, rx.VarBinding) else None
                hit = known.get(key + (repr(b.value.attrs),)) if key is not None else None
                if hit is not None and struct_info_alpha_equal(hit.struct_info, b.var.struct_info):
                    remap[b.var] = hit
                    continue
                keep.append(b)
            blocks.append(type(blk)(tuple(keep), span=blk.span))
        if not remap:
            return e
        self.hits += 1
        sub = ExprMutator()
        sub.var_remap.update(remap)
        fb = sub.visit_expr(rx.SeqExpr(tuple(blocks), e.false_branch.body, span=e.false_branch.span))
        return rx.If(e.cond, e.true_branch, fb, span=e.span)


def cse_across_branches(inner) -> Pass:
    """A computation repeated in the ``else`` branch of an ``If`` is replaced by the ``then``
    branch's variable, which is not in scope there."""
    def each(name, f):
        m = _ReuseAcrossBranches()
        nf = m.visit_expr(f)
        return nf if m.hits else None

    return mutant(inner, "across_branches", post=lambda before, after: rewrite_functions(after, each))


# ---------------------------------------------------------------------------------------------------
# ToNonDataflow, ConvertToDataflow, Normalize, FoldConstant
# ---------------------------------------------------------------------------------------------------


class _KeepTupleItemDataflowVars(ExprMutator):
    """The input's dataflow blocks become plain blocks, but DataflowVars bound to ``TupleGetItem``
    keep their kind."""

    def __init__(self) -> None:
        super().__init__()
        self.kept = 0

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        if not isinstance(b, rx.DataflowBlock):
            return super().visit_block(b)
        out = []
        for x in b.bindings:
            x = self.visit_binding(x)
            if isinstance(x.var, rx.DataflowVar) and not isinstance(x.value, rx.TupleGetItem):
                nv = rx.Var(x.var.name_hint, struct_info=x.var.struct_info)
                self.var_remap[x.var] = nv
                x = rx.MatchCast(nv, x.value, x.struct_info, span=x.span) if isinstance(x, rx.MatchCast) \
                    else rx.VarBinding(nv, x.value, span=x.span)
            elif isinstance(x.var, rx.DataflowVar):
                self.kept += 1
            out.append(x)
        return rx.BindingBlock(tuple(out), span=b.span)


def to_non_dataflow_keeps_tuple_items(inner) -> Pass:
    """Converting dataflow blocks, the variables bound to ``TupleGetItem`` stay DataflowVars (one
    binding kind missed by the conversion)."""
    def each(name, f):
        m = _KeepTupleItemDataflowVars()
        nf = m.visit_expr(f)
        return nf if m.kept else None

    return mutant(inner, "keeps_tuple_item_dataflow_vars", post=lambda before, after: rewrite_functions(before, each))


class _HoistFromBranch(ExprMutator):
    def __init__(self) -> None:
        super().__init__()
        self.hoisted = 0

    def visit_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        out = []
        for x in b.bindings:
            x = self.visit_binding(x)
            if self.hoisted == 0 and isinstance(x, rx.VarBinding) and isinstance(x.value, rx.If):
                found = _dependent_branch_binding(x.value.true_branch)
                if found is not None:
                    moved, branch = found
                    out.append(moved)
                    x = rx.VarBinding(x.var, rx.If(x.value.cond, branch, x.value.false_branch, span=x.value.span),
                                      span=x.span)
                    self.hoisted += 1
            out.append(x)
        if self.hoisted and not isinstance(b, rx.DataflowBlock):
            return rx.BindingBlock(tuple(out), span=b.span)
        return type(b)(tuple(out), span=b.span) if len(out) != len(b.bindings) or \
            any(a is not c for a, c in zip(out, b.bindings)) else b


def _dependent_branch_binding(seq: rx.SeqExpr):
    """A binding of the branch that uses a variable bound earlier in the branch, and the branch
    without it."""
    bound: Dict[int, rx.Var] = {}
    for bi, blk in enumerate(seq.blocks):
        for i, b in enumerate(blk.bindings):
            if isinstance(b, rx.VarBinding) and any(id(v) in bound for v in free_vars(b.value)):
                rest = blk.bindings[:i] + blk.bindings[i + 1:]
                blocks = list(seq.blocks)
                blocks[bi] = type(blk)(tuple(rest), span=blk.span)
                return b, rx.SeqExpr(tuple(blocks), seq.body, span=seq.span)
            bound[id(b.var)] = b.var
    return None


def convert_to_dataflow_hoists_branch_binding(inner) -> Pass:
    """A binding of an ``If`` branch is hoisted in front of the ``If`` without checking that it
    depends on an earlier binding of the same branch."""
    def each(name, f):
        m = _HoistFromBranch()
        nf = m.visit_expr(f)
        return nf if m.hoisted else None

    return mutant(inner, "hoists_branch_binding", post=lambda before, after: rewrite_functions(after, each))


def normalize_weakens_return(inner) -> Pass:
    """The entry's return struct info is re-derived without its shape (``EraseToWellDefined``
    applied where the shape was well defined): the public signature gets weaker."""
    def post(before: IRModule, out: IRModule) -> Optional[IRModule]:
        if "main" not in out or not isinstance(out["main"], rx.Function):
            return None
        f = out["main"]
        r = f.ret_struct_info
        if not isinstance(r, TensorStructInfo) or r.shape is None:
            return None
        weak = TensorStructInfo(None, r.dtype, ndim=r.ndim)
        fsi = FuncStructInfo(tuple(p.struct_info for p in f.params), weak, f.is_pure)
        g = rx.Function(f.params, f.body, weak, f.is_pure, attrs=f.attrs, span=f.span, struct_info=fsi)
        return out.with_function(rx.GlobalVar("main", struct_info=fsi), g)

    return mutant(inner, "weakens_return", post=post)


def fold_constant_wrong_dtype(inner) -> Pass:
    """Folded results are stored in the dtype of the evaluation (float64 / int64) instead of the
    call's dtype."""
    def post(before: IRModule, out: IRModule) -> Optional[IRModule]:
        old = set()

        def collect(e):
            if isinstance(e, rx.Constant):
                old.add(id(e.data))

        _walk_constants(before, collect)
        hits = [0]

        class Widen(ExprMutator):
            def visit_Constant(self, c: rx.Constant):
                if id(c.data) in old:
                    return c
                data = np.asarray(c.data)
                wide = {"f": np.float64, "i": np.int64}.get(data.dtype.kind)
                if wide is None or data.dtype == wide:
                    return c
                hits[0] += 1
                return rx.Constant(data.astype(wide))

        items = {}
        for gv, f in out.functions_items():
            items[gv] = Widen().visit_expr(f) if isinstance(f, rx.Function) else f
        if not hits[0]:
            return None
        return renormalize_or_raise(IRModule(items, out.attrs, out.global_infos))

    return mutant(inner, "wrong_dtype", post=post)


def _walk_constants(mod: IRModule, fn) -> None:
    stack = [f for _, f in mod.relax_functions()]
    while stack:
        e = stack.pop()
        if isinstance(e, rx.Constant):
            fn(e)
        elif isinstance(e, rx.Function):
            stack.append(e.body)
        elif isinstance(e, rx.SeqExpr):
            for blk in e.blocks:
                for b in blk.bindings:
                    stack.append(b.value)
            stack.append(e.body)
        elif isinstance(e, rx.Call):
            stack.extend(e.args)
        elif isinstance(e, rx.Tuple):
            stack.extend(e.fields)
        elif isinstance(e, rx.TupleGetItem):
            stack.append(e.tuple_value)
        elif isinstance(e, rx.If):
            stack += [e.true_branch, e.false_branch]


__all__ = ["NON_COMMUTATIVE", "drop_binding", "swap_operands", "dataflow_var_escapes", "if_const_inverted",
           "dce_ignores_closure_captures", "dce_ignores_if_condition", "dce_removes_match_cast", "cse_ignores_attrs",
           "cse_across_branches", "to_non_dataflow_keeps_tuple_items", "convert_to_dataflow_hoists_branch_binding",
           "normalize_weakens_return", "fold_constant_wrong_dtype"]

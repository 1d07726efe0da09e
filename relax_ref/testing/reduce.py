"""Reducing a failing program on the IR, after the choice-list shrinker.

The choice-list shrinker (:mod:`relax_ref.testing.shrink`) can only make programs the generator
would make. :func:`reduce_program` then edits the module itself, keeping an edit only when the
smaller program still fails the same way (``still_fails``):

* **an earlier result** -- the entry function returns an earlier top-level value instead of its
  result, the bindings after it are cut and everything the new result does not need is removed
  (:class:`~relax_ref.transform.DeadCodeElimination`, so unused helpers go too). The earliest value
  that still fails wins: the reproducer is the shortest prefix of the program that shows the bug;
* **zeros for a value** -- a top-level binding of a tensor with a known shape gets the value
  ``R.zeros(shape, dtype)`` (C-Reduce's "replace by 0"), cutting it off from what it was computed
  from, which dead-code elimination then removes (a call of a helper or a closure, a branch...).
  Tried from the last binding to the first, as long as the time allows.

The entry's parameters never change, so the program's inputs (drawn from the generator's value
ranges for those parameters) stay valid.
"""

from __future__ import annotations

import time
from typing import Callable, List, Optional

from ..static.well_formed import check_well_formed
from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo
from .program import Program


def _top_level(f: rx.Function) -> List[rx.Binding]:
    return [b for blk in f.body.blocks for b in blk.bindings]


def _with_entry(program: Program, g: rx.Function) -> Optional[Program]:
    """``program`` with ``g`` for its entry, cleaned of what no longer matters (None when invalid)."""
    from ..transform import DeadCodeElimination
    from ..transform.utils import renormalize

    try:
        mod = renormalize(program.mod.with_function(program.entry, g))
        mod = DeadCodeElimination()(mod)
        check_well_formed(mod)
    except RelaxError:
        return None
    return Program(mod, program.entry, program.params, program.sym_vars, ())


def with_result(program: Program, var: rx.Var) -> Optional[Program]:
    """``program`` whose entry returns ``var`` (a top-level binding variable), cut after it and
    cleaned of what it does not use; None when that is not a valid program."""

    f = program.mod[program.entry]
    blocks = []
    result: Optional[rx.Var] = None
    for blk in f.body.blocks:
        keep = []
        for b in blk.bindings:
            if b.var is var:
                result = var
                if isinstance(var, rx.DataflowVar):
                    result = rx.Var(var.name_hint, struct_info=var.struct_info)
                    b = rx.MatchCast(result, b.value, b.struct_info, span=b.span) if isinstance(b, rx.MatchCast) \
                        else rx.VarBinding(result, b.value, span=b.span)
                keep.append(b)
                break
            keep.append(b)
        blocks.append(type(blk)(tuple(keep), span=blk.span))
        if result is not None:
            break
    if result is None:
        return None
    body = rx.SeqExpr(tuple(blocks), result)
    g = rx.Function(f.params, body, None, f.is_pure, attrs=f.attrs, span=f.span)
    return _with_entry(program, g)


def with_zeros(program: Program, var: rx.Var) -> Optional[Program]:
    """``program`` with the top-level binding of ``var`` given the value ``R.zeros`` of its shape,
    cleaned of what no longer matters; None when ``var``'s shape is unknown or the result is invalid."""
    from .rules import call

    si = var.struct_info
    if not isinstance(si, TensorStructInfo) or si.shape_values is None or si.dtype in ("void", ""):
        return None
    f = program.mod[program.entry]
    blocks = []
    found = False
    for blk in f.body.blocks:
        out = []
        for b in blk.bindings:
            if b.var is var and isinstance(b, rx.VarBinding):
                if _is_zeros(b.value):
                    return None
                b = rx.VarBinding(var, call("relax.zeros", rx.ShapeExpr(tuple(si.shape_values)), dtype=si.dtype),
                                  span=b.span)
                found = True
            out.append(b)
        blocks.append(type(blk)(tuple(out), span=blk.span))
    if not found:
        return None
    g = rx.Function(f.params, rx.SeqExpr(tuple(blocks), f.body.body), f.ret_struct_info, f.is_pure,
                    attrs=f.attrs, span=f.span)
    return _with_entry(program, g)


def _is_zeros(e) -> bool:
    return isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name == "relax.zeros"


def _fails(cand: Optional[Program], still_fails) -> bool:
    if cand is None:
        return False
    try:
        return bool(still_fails(cand))
    except RelaxError:
        return False


def reduce_program(program: Program, still_fails: Callable[[Program], bool], *, seconds: float = 10.0) -> Program:
    """The smallest variant of ``program`` found that still fails (see the module docstring)."""
    deadline = time.monotonic() + seconds
    f = program.mod[program.entry]
    if not isinstance(f, rx.Function) or not isinstance(f.body, rx.SeqExpr):
        return program
    cands = [b.var for b in _top_level(f) if not isinstance(b.value, rx.Function)]
    for var in cands[:-1]:
        if time.monotonic() > deadline:
            return program
        cand = with_result(program, var)
        if _fails(cand, still_fails):
            program = cand
            break
    progress = True
    while progress:
        progress = False
        for b in reversed(_top_level(program.mod[program.entry])):
            if time.monotonic() > deadline:
                return program
            cand = with_zeros(program, b.var)
            if _fails(cand, still_fails):
                program = cand
                progress = True
                break
    return program


__all__ = ["with_result", "with_zeros", "reduce_program"]

"""Deliberately broken passes, to show that the oracles catch real bugs (mutation testing of the
checker itself).

* :func:`drop_binding(pass_)` -- after ``pass_``, removes the last binding of the entry function
  whose variable is still used later: the output refers to an undefined variable (``ill-formed``);
* :func:`swap_operands(pass_)` -- after ``pass_``, swaps the two operands of every call in the
  entry function's top-level bindings to a non-commutative binary operator (``subtract``,
  ``divide``, comparisons, ...) or to a ``call_tir`` whose first two inputs have the same struct
  info: the output is well formed but computes something else (``mismatch``, unless the swap
  does not reach the result or the operands happen to be equal).

Both leave a module they cannot mutate unchanged, so a property test of a mutant fails exactly
when the generator produces a program that exposes the injected bug.
"""

from __future__ import annotations

from typing import Callable, List, Optional

from ..analysis.free_vars import free_vars
from ..analysis.struct_info_ops import struct_info_alpha_equal
from ..ir import expr as rx
from ..ir.module import IRModule
from ..transform import Pass

NON_COMMUTATIVE = frozenset({
    "relax.subtract", "relax.divide", "relax.floor_divide", "relax.floor_mod", "relax.power", "relax.less",
    "relax.less_equal", "relax.greater", "relax.greater_equal", "relax.atan2", "relax.left_shift",
    "relax.right_shift",
})


class _Mutant(Pass):
    def __init__(self, inner: Callable[[IRModule], IRModule], mutate, name: str) -> None:
        self.inner = inner
        self.mutate = mutate
        self.name = name

    def transform(self, mod: IRModule) -> IRModule:
        out = self.inner(mod)
        if "main" not in out or not isinstance(out["main"], rx.Function):
            return out
        f = self.mutate(out["main"])
        return out if f is None else out.with_function("main", f)


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


def drop_binding(pass_: Callable[[IRModule], IRModule]) -> Pass:
    """``pass_`` followed by dropping a binding that is still used (see the module docstring)."""
    return _Mutant(pass_, _drop_used_binding, f"{getattr(pass_, 'name', 'pass')}+drop_binding")


def swap_operands(pass_: Callable[[IRModule], IRModule]) -> Pass:
    """``pass_`` followed by swapping the operands of non-commutative calls (see the module docstring)."""
    return _Mutant(pass_, _swap_all, f"{getattr(pass_, 'name', 'pass')}+swap_operands")


__all__ = ["drop_binding", "swap_operands", "NON_COMMUTATIVE"]

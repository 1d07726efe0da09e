"""Replacing GlobalVar objects inside Relax functions (NORM.GLOBAL.1-4): when normalizing a module gives a
global function new struct info, its GlobalVar is made anew and every reference to the old object is
redirected. Unlike :class:`relax_ref.ir.functor.ExprMutator`, rebuilt nodes keep their struct info and
untouched nodes keep their identity.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict

from ..ir import expr as rx


class GlobalVarRemapper:
    """Replaces GlobalVar objects, preserving struct info and identity of untouched nodes."""

    def __init__(self, mapping: Dict[rx.GlobalVar, rx.GlobalVar]) -> None:
        self.mapping = mapping

    def function(self, f: rx.Function) -> rx.Function:
        body = self.expr(f.body)
        return f if body is f.body else replace(f, body=body)

    def expr(self, e):
        if isinstance(e, rx.GlobalVar):
            return self.mapping.get(e, e)
        if isinstance(e, rx.Tuple):
            fs = tuple(self.expr(x) for x in e.fields)
            return e if all(a is b for a, b in zip(fs, e.fields)) else replace(e, fields=fs)
        if isinstance(e, rx.TupleGetItem):
            t = self.expr(e.tuple_value)
            return e if t is e.tuple_value else replace(e, tuple_value=t)
        if isinstance(e, rx.Call):
            op = self.expr(e.op)
            args = tuple(self.expr(a) for a in e.args)
            if op is e.op and all(a is b for a, b in zip(args, e.args)):
                return e
            return replace(e, op=op, args=args)
        if isinstance(e, rx.If):
            c, t, f = self.expr(e.cond), self.expr(e.true_branch), self.expr(e.false_branch)
            if c is e.cond and t is e.true_branch and f is e.false_branch:
                return e
            return replace(e, cond=c, true_branch=t, false_branch=f)
        if isinstance(e, rx.SeqExpr):
            blocks = tuple(self.block(b) for b in e.blocks)
            body = self.expr(e.body)
            if body is e.body and all(a is b for a, b in zip(blocks, e.blocks)):
                return e
            return replace(e, blocks=blocks, body=body)
        if isinstance(e, rx.Function):
            return self.function(e)
        return e

    def block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        new = []
        changed = False
        for binding in b.bindings:
            v = self.expr(binding.value)
            if v is not binding.value:
                changed = True
                binding = replace(binding, value=v)
            new.append(binding)
        return replace(b, bindings=tuple(new)) if changed else b


__all__ = ["GlobalVarRemapper"]

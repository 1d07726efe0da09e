"""Rewriting with dataflow patterns: ``rewrite_call`` (PASS.DPL.REWRITE.*).

(PASS.DPL.REWRITE.1) ``rewrite_call(pattern, rewriter, func)`` rewrites every ``SeqExpr`` of ``func``
(nested functions and branches included): its bindings are visited in order with the values of the
earlier bindings known (PASS.DPL.MATCH.1); where ``pattern`` matches a bound value (or the ``SeqExpr``'s
result), ``rewriter(value, matches)`` -- ``matches`` mapping each sub-pattern to what it matched --
gives the replacement, and a result that is the value itself (or None) leaves it. A rewritten binding
is not offered to later matches of the same round (its old value is forgotten). Rounds repeat until
one changes nothing (at most 100, then an error); the result is normalized, so replacements may be
nested expressions. This is TVM's ``PatternMatchingRewriter`` built from a pattern.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir.functor import ExprMutator
from .matcher import Matcher
from .pattern import DFPattern

MAX_ROUNDS = 100


def _rewrite_expr(pattern: DFPattern, rewriter, e: rx.Expr, known: Dict[rx.Var, rx.Expr]) -> Optional[rx.Expr]:
    m = Matcher(known)
    if not m.match(pattern, e):
        return None
    out = rewriter(e, dict(m.memo))
    if out is None or out is e:
        return None
    if not isinstance(out, rx.Expr):
        raise RelaxError(f"rewrite_call: the rewriter returned {type(out).__name__}, not a Relax expression")
    return out


class _Rewriter(ExprMutator):
    def __init__(self, pattern: DFPattern, rewriter) -> None:
        super().__init__()
        self.pattern = pattern
        self.rewriter = rewriter
        self.changed = False

    def visit_SeqExpr(self, s: rx.SeqExpr) -> rx.Expr:
        s = self.generic_mutate_expr(s)      # inner scopes first
        known: Dict[rx.Var, rx.Expr] = {}
        blocks = []
        changed = False
        for b in s.blocks:
            out = []
            for x in b.bindings:
                new = _rewrite_expr(self.pattern, self.rewriter, x.value, known)
                if new is None:
                    known[x.var] = x.value
                    out.append(x)
                    continue
                changed = True
                if isinstance(x, rx.MatchCast):
                    out.append(rx.MatchCast(x.var, new, x.struct_info, span=x.span))
                else:
                    out.append(rx.VarBinding(type(x.var)(name_hint=x.var.name_hint, span=x.var.span), new,
                                             span=x.span))
                    self.var_remap[x.var] = out[-1].var
            blocks.append(type(b)(tuple(out), span=b.span))
        if changed:
            plain = ExprMutator()
            plain.var_remap = self.var_remap
            body = plain.visit_expr(s.body)
        else:
            body = s.body
        new_body = _rewrite_expr(self.pattern, self.rewriter, body, known)
        if new_body is not None:
            body, changed = new_body, True
        if not changed:
            return s
        self.changed = True
        return rx.SeqExpr(tuple(self._remap_block(b) for b in blocks), body, span=s.span)

    def _remap_block(self, b: rx.BindingBlock) -> rx.BindingBlock:
        plain = ExprMutator()
        plain.var_remap = self.var_remap
        return plain.visit_block(b)


def rewrite_call(pattern: DFPattern, rewriter: Callable[[rx.Expr, Dict[DFPattern, rx.Expr]], Optional[rx.Expr]],
                 func: rx.Function, module=None) -> rx.Function:
    """(PASS.DPL.REWRITE.1) ``func`` with every match of ``pattern`` replaced by ``rewriter``'s result."""
    from ..static.normalize import normalize_function

    if not isinstance(func, rx.Function):
        raise RelaxError("rewrite_call rewrites a Relax function")
    for _ in range(MAX_ROUNDS):
        r = _Rewriter(pattern, rewriter)
        new = r.visit_expr(func)
        if not r.changed:
            return func
        func = normalize_function(new, module, script_annotations=False)
    raise RelaxError(f"rewrite_call: still rewriting after {MAX_ROUNDS} rounds (the rewriter keeps producing "
                     f"matches)")


__all__ = ["rewrite_call", "MAX_ROUNDS"]

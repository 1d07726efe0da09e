"""Matching dataflow patterns against Relax expressions (PASS.DPL.MATCH.*), as TVM's ``DFPatternMatcher``.

* (PASS.DPL.MATCH.1) *Bindings.* With a map ``var2val`` from variables to the values they are bound to,
  a variable is replaced by its value (repeatedly) before it is matched, and so is a ``SeqExpr``
  without bindings by its body; so ``is_op("relax.relu")(is_op("relax.add")(...))`` matches
  ``y = relu(x)`` where ``x = add(...)``.
* (PASS.DPL.MATCH.2) *Memo.* A pattern that matched once must match the very same expression when it is
  met again in the same match (shared sub-patterns denote one expression). A failed alternative
  forgets what it matched.
* (PASS.DPL.MATCH.3) *Calls.* ``CallPattern(op, args)`` matches a call whose callee matches ``op`` and
  whose arguments match ``args`` one to one (with ``varg_default_wildcard``, the call may have more
  arguments); calls of ``relax.add`` and ``relax.multiply`` also match with their two arguments
  swapped. Where the callee does not match, ``divide(multiply(a, b), c)`` also matches
  ``multiply(a, divide(b, c))`` (and the mirrored forms), as in TVM.
* (PASS.DPL.MATCH.4) *Leaves.* An ``ExprPattern`` matches a structurally equal expression; a
  ``VarPattern`` a variable of that name (any with ""), ``DataflowVarPattern`` only a
  ``DataflowVar``; ``GlobalVarPattern`` a GlobalVar whose name contains the given text;
  ``ExternFuncPattern`` an ``ExternFunc`` of that symbol (any with ""); ``ConstantPattern`` a
  constant; the wildcard anything.
* (PASS.DPL.MATCH.5) *Constraints.* ``has_dtype`` and ``has_shape`` look at the matched expression's
  own struct info (a variable's, not its value's); ``has_shape`` requires provably equal dimensions.
  ``has_struct_info`` requires the matched expression's struct info to be provably derived from the
  given one (relax-ref decides this statically; TVM may also accept it under a symbolic condition it
  records). ``has_attr`` compares call attributes or function attributes (all given keys present and
  equal); operator attributes are not modelled and never match.
* (PASS.DPL.MATCH.6) *Tuples.* ``TuplePattern`` matches a tuple literal field by field,
  ``UnorderedTuplePattern`` in any order, ``TupleGetItemPattern`` a ``TupleGetItem`` with that index
  (any index with -1).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ..analysis.structural_equal import structural_equal
from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo
from . import pattern as D


class Matcher:
    def __init__(self, var2val: Optional[Dict[rx.Var, rx.Expr]] = None) -> None:
        self.var2val = var2val or {}
        self.memo: Dict[D.DFPattern, rx.Expr] = {}
        self.matched: List[D.DFPattern] = []
        from ..arith import Analyzer

        self.analyzer = Analyzer()

    # -- plumbing ---------------------------------------------------------------------------------
    def unwrap(self, e: rx.Expr) -> rx.Expr:
        seen = 0
        while True:
            if isinstance(e, rx.Var) and not isinstance(e, rx.GlobalVar) and e in self.var2val:
                e = self.var2val[e]
            elif isinstance(e, rx.SeqExpr) and not e.blocks:
                e = e.body
            else:
                return e
            seen += 1
            if seen > 10000:
                return e

    def clear(self, watermark: int) -> None:
        for p in self.matched[watermark:]:
            self.memo.pop(p, None)
        del self.matched[watermark:]

    def match(self, p: D.DFPattern, e0: rx.Expr) -> bool:
        e = self.unwrap(e0)
        if p in self.memo:
            return self.memo[p] is e
        watermark = len(self.matched)
        ok = self._dispatch(p, e, e0)
        if ok:
            self.memo[p] = e
            self.matched.append(p)
        else:
            self.clear(watermark)
        return ok

    # -- patterns ---------------------------------------------------------------------------------
    def _dispatch(self, p: D.DFPattern, e: rx.Expr, e0: rx.Expr) -> bool:
        if isinstance(p, D.WildcardPattern):
            return True
        if isinstance(p, D.OrPattern):
            return self.match(p.left, e) or self.match(p.right, e)
        if isinstance(p, D.AndPattern):
            return self.match(p.left, e) and self.match(p.right, e)
        if isinstance(p, D.NotPattern):
            return not self.match(p.reject, e)
        if isinstance(p, D.CallPattern):
            return self._call(p, e)
        if isinstance(p, D.ExprPattern):
            return _expr_equal(p.expr, e)
        if isinstance(p, D.DataflowVarPattern):
            return isinstance(e, rx.DataflowVar) and p.name_hint in ("", e.name_hint)
        if isinstance(p, D.VarPattern):
            return isinstance(e, rx.Var) and p.name_hint in ("", e.name_hint)
        if isinstance(p, D.GlobalVarPattern):
            return isinstance(e, rx.GlobalVar) and p.name_hint in e.name_hint
        if isinstance(p, D.ExternFuncPattern):
            return isinstance(e, rx.ExternFunc) and p.global_symbol in ("", e.global_symbol)
        if isinstance(p, D.ConstantPattern):
            return isinstance(e, rx.Constant)
        if isinstance(p, D.TuplePattern):
            return isinstance(e, rx.Tuple) and len(e.fields) == len(p.fields) and all(
                self.match(a, b) for a, b in zip(p.fields, e.fields))
        if isinstance(p, D.UnorderedTuplePattern):
            return isinstance(e, rx.Tuple) and len(e.fields) == len(p.fields) and \
                self._unordered(list(p.fields), list(e.fields), [False] * len(e.fields))
        if isinstance(p, D.TupleGetItemPattern):
            return isinstance(e, rx.TupleGetItem) and p.index in (-1, e.index) and \
                self.match(p.tuple_value, e.tuple_value)
        if isinstance(p, D.FunctionPattern):
            return self._function(p, e)
        if isinstance(p, D.DataTypePattern):
            si = e0.struct_info     # no jump: a variable has its value's dtype
            return isinstance(si, TensorStructInfo) and si.dtype == p.dtype and self.match(p.pattern, e0)
        if isinstance(p, D.ShapePattern):
            si = e0.struct_info
            vals = si.shape_values if isinstance(si, TensorStructInfo) else None
            return vals is not None and self._dims_equal(p.shape, vals) and self.match(p.pattern, e0)
        if isinstance(p, D.PrimArrPattern):
            return isinstance(e, rx.ShapeExpr) and self._dims_equal(p.fields, e.values)
        if isinstance(p, D.StructInfoPattern):
            if not self.match(p.pattern, e0):
                return False
            from ..analysis.struct_info_ops import is_base_of

            return e.struct_info is not None and is_base_of(p.struct_info, e.struct_info, self.analyzer)
        if isinstance(p, D.AttrPattern):
            return self.match(p.pattern, e) and _attrs_match(e, p.attrs)
        raise TypeError(f"unknown pattern {type(p).__name__}")

    def _dims_equal(self, a, b) -> bool:
        return len(a) == len(b) and all(self.analyzer.can_prove_equal(x, y) for x, y in zip(a, b))

    def _args(self, pats, exprs) -> bool:
        watermark = len(self.matched)
        ok = all(self.match(p, x) for p, x in zip(pats, exprs))
        if not ok:
            self.clear(watermark)
        return ok

    def _call(self, p: D.CallPattern, e: rx.Expr) -> bool:
        if not isinstance(e, rx.Call):
            return False
        watermark = len(self.matched)
        if self.match(p.op, e.op):
            n_pat, n_arg = len(p.args or ()), len(e.args)
            if (p.varg_default_wildcard and n_arg < n_pat) or (not p.varg_default_wildcard and n_arg != n_pat):
                return False
            if self._args(p.args or (), e.args):
                return True
            if isinstance(e.op, rx.Op) and e.op.name in ("relax.add", "relax.multiply"):
                return self._args(p.args or (), tuple(reversed(e.args)))
            return False
        self.clear(watermark)
        return self._associative(p, e, watermark)

    def _associative(self, p: D.CallPattern, e: rx.Call, watermark: int) -> bool:
        if _pattern_op(p) == "relax.divide" and p.args and isinstance(p.args[0], D.CallPattern):
            inner = p.args[0]
            if _pattern_op(inner) == "relax.multiply" and _expr_op(e) == "relax.multiply" and \
                    any(_expr_op(a) == "relax.divide" for a in e.args[:2]):
                for k in range(2):
                    div = D.CallPattern(p.op, (inner.args[k], p.args[1]))
                    mul = D.CallPattern(inner.op, (inner.args[(k + 1) % 2], div))
                    if self.match(mul, e):
                        return True
                    self.clear(watermark)
                return False
        if _pattern_op(p) == "relax.multiply":
            for k in range(2):
                inner = p.args[k] if p.args and len(p.args) > k else None
                if isinstance(inner, D.CallPattern) and _pattern_op(inner) == "relax.divide" and \
                        _expr_op(e) == "relax.divide" and any(_expr_op(a) == "relax.multiply" for a in e.args[:2]):
                    mul = D.CallPattern(p.op, (inner.args[0], p.args[(k + 1) % 2]))
                    div = D.CallPattern(inner.op, (mul, inner.args[1]))
                    return self.match(div, e)
        return False

    def _function(self, p: D.FunctionPattern, e: rx.Expr) -> bool:
        if not isinstance(e, rx.Function):
            return False
        if p.params is not None:
            if len(p.params) != len(e.params) or not all(self.match(a, b) for a, b in zip(p.params, e.params)):
                return False
        return self.match(p.body, e.body)

    def _unordered(self, pats, fields, used) -> bool:
        if not pats:
            return True
        for i, f in enumerate(fields):
            if used[i]:
                continue
            watermark = len(self.matched)
            if self.match(pats[0], f):
                used[i] = True
                if self._unordered(pats[1:], fields, used):
                    return True
                used[i] = False
            self.clear(watermark)
        return False


def _pattern_op(p: D.CallPattern) -> Optional[str]:
    if isinstance(p.op, D.ExprPattern) and isinstance(p.op.expr, rx.Op):
        return p.op.expr.name
    return None


def _expr_op(e) -> Optional[str]:
    if isinstance(e, rx.Call) and isinstance(e.op, rx.Op):
        return e.op.name
    return None


def _expr_equal(a: rx.Expr, b: rx.Expr) -> bool:
    if isinstance(a, rx.Op) or isinstance(b, rx.Op):
        return isinstance(a, rx.Op) and isinstance(b, rx.Op) and a.name == b.name
    if a is b:
        return True
    return structural_equal(a, b)


def _attrs_match(e: rx.Expr, attrs) -> bool:
    if isinstance(e, rx.Call):
        have = e.attrs
    elif isinstance(e, rx.Function):
        have = e.attrs
    else:
        return False
    from ..ir.attrs import freeze

    for k, v in attrs.items():
        if have is None or k not in have or have[k] != freeze(v):
            return False
    return True


def match(pattern: D.DFPattern, expr: rx.Expr, var2val: Optional[Dict[rx.Var, rx.Expr]] = None) -> bool:
    """(PASS.DPL.MATCH.*) Whether ``pattern`` matches ``expr``."""
    return Matcher(var2val).match(pattern, expr)


def extract_matched_expr(pattern: D.DFPattern, expr: rx.Expr,
                         var2val: Optional[Dict[rx.Var, rx.Expr]] = None) -> Optional[Dict[D.DFPattern, rx.Expr]]:
    """The expression every sub-pattern matched (by pattern object), or None when there is no match."""
    m = Matcher(var2val)
    if not m.match(pattern, expr):
        return None
    return dict(m.memo)


__all__ = ["Matcher", "match", "extract_matched_expr"]

D.MATCHER.update(match=match, extract_matched_expr=extract_matched_expr)

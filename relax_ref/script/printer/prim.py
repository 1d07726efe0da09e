"""Printing of scalar (TIR) expressions in Relax and TensorIR contexts (spec rules TEXT.PRIM.*).

Conventions, following TVM's printer:

* Literals of the context's default integer dtype print bare (``int32`` inside TensorIR, ``int64``
  inside Relax struct info and shape expressions); other dtypes carry their constructor:
  ``T.int64(4)``, ``T.float32(0.0)``, ``T.bool(True)``, ``T.float32("inf")`` (TEXT.PRIM.1).
* ``a + b``-style operator sugar is used only when TVM's own operator would rebuild exactly the
  same node, i.e. when both operands have the same dtype and no constant folding applies
  (``x + 0``, ``2 * 3``); otherwise the node constructor is printed (``T.Add(x, 0)``) and its
  literal operands carry their dtype (TEXT.PRIM.2).
* Integer ``Div`` prints as ``T.truncdiv`` (classic) / ``T.Div`` (tvm); ``Mod`` as ``T.truncmod``;
  ``Min``/``Max`` as ``T.min``/``T.max`` -- or as the node constructors ``T.Div``, ``T.Mod``,
  ``T.Min``, ``T.Max`` where those functions would fold; ``Select``, ``Cast``, ``Let`` as ``T.Select``, ``T.Cast``,
  ``T.Let(body, where={v: value})``; intrinsic calls as ``T.<name>(...)`` with the dtype first for
  ``reinterpret``/``call_extern``/``call_pure_extern`` (TEXT.PRIM.3); ``tvm_call_packed`` /
  ``tvm_call_cpacked`` print as ``T.call_packed`` / ``T.call_cpacked`` (TEXT.TIR.PACKED.1).
* Comparisons inside comparisons are parenthesised, so Python never reads a chained comparison.
"""

from __future__ import annotations

import math
from typing import Callable, Tuple

from ...errors import UnsupportedError
from ...ir import dtype as _dt
from ...ir import prim_expr as P
from ...ir import tir
from ._format import format_float, format_str, nonfinite_word
from .dialect import Dialect

# Python operator precedences (higher binds tighter)
P_OR, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_UNARY, P_ATOM = 2, 3, 4, 5, 10, 11, 12, 15

_SUGAR = {
    P.Add: ("+", P_ADD, "Add"), P.Sub: ("-", P_ADD, "Sub"), P.Mul: ("*", P_MUL, "Mul"),
    P.FloorDiv: ("//", P_MUL, "FloorDiv"), P.FloorMod: ("%", P_MUL, "FloorMod"),
    P.LT: ("<", P_CMP, "LT"), P.LE: ("<=", P_CMP, "LE"), P.GT: (">", P_CMP, "GT"),
    P.GE: (">=", P_CMP, "GE"), P.EQ: ("==", P_CMP, "EQ"), P.NE: ("!=", P_CMP, "NE"),
    P.And: ("and", P_AND, "And"), P.Or: ("or", P_OR, "Or"),
}

_FUNCS = {P.Mod: ("truncmod", "Mod"), P.Min: ("min", "Min"), P.Max: ("max", "Max")}

#: intrinsics whose result dtype is printed as the first argument (TVM's TScriptDtypePrintLocation)
DTYPE_FIRST_INTRINSICS = frozenset({"reinterpret", "call_extern", "call_pure_extern",
                                    "call_llvm_intrin", "call_llvm_pure_intrin"})


#: intrinsics whose result dtype is printed as the last argument (TEXT.TIR.7)
DTYPE_LAST_INTRINSICS = frozenset({"tvm_struct_get"})

#: intrinsics TVM prints under another name (``tir.tvm_call_packed`` prints as ``T.call_packed``)
PRINTED_NAMES = {"tvm_call_packed": "call_packed", "tvm_call_cpacked": "call_cpacked"}


def _is_const(e) -> bool:
    return isinstance(e, (P.IntImm, P.FloatImm))


def _is_value(e, v) -> bool:
    return _is_const(e) and e.value == v


def would_fold(e: P.BinaryOp) -> bool:
    """True when TVM's operator for ``e`` would not rebuild ``e`` itself: the operand dtypes
    differ (a cast would be inserted) or TVM's constant folder simplifies it."""
    a, b = e.a, e.b
    if a.dtype != b.dtype:
        return True
    both = _is_const(a) and _is_const(b)
    t = type(e)
    if both and t in (P.Add, P.Sub, P.Mul, P.Div) and a.dtype.startswith(("float", "bfloat")) \
            and _dt.bits(a.dtype) not in (32, 64):
        both = False  # narrow float immediates do not fold under + - * / (PRIM.DTYPE.3)
    if t is P.Add:
        return both or _is_value(a, 0) or _is_value(b, 0)
    if t is P.Sub:
        return both or _is_value(b, 0)
    if t is P.Mul:
        return both or _is_value(a, 0) or _is_value(a, 1) or _is_value(b, 0) or _is_value(b, 1)
    if t in (P.FloorDiv, P.FloorMod, P.Div, P.Mod):
        # a literal zero divisor: TVM's operator raises "Divide by zero" instead of building the node
        return both or _is_value(a, 0) or _is_value(b, 1) or _is_value(b, 0)
    if t in (P.And, P.Or):
        return isinstance(a, P.IntImm) or isinstance(b, P.IntImm)
    return both


def intrinsic_name(op: str) -> str:
    """``tir.exp`` / ``tirx.exp`` -> ``exp``."""
    for prefix in ("tirx.", "tir."):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op


class PrimPrinter:
    """Prints scalar expressions. ``mode`` is ``"tir"`` or ``"relax"`` (which integer dtype prints
    bare); ``var_name``/``buffer_name`` map variables and buffers to their printed names (and may
    declare them as a side effect)."""

    def __init__(self, dialect: Dialect, mode: str, var_name: Callable[[P.PrimVar], str],
                 buffer_name: Callable[[tir.Buffer], str] = None) -> None:
        self.dialect = dialect
        self.mode = mode
        self.var_name = var_name
        self.buffer_name = buffer_name or (lambda b: b.name)
        self.bare_int = "int64" if mode == "relax" else "int32"

    # ------------------------------------------------------------------------------------------
    def __call__(self, e: P.PrimExpr) -> str:
        return self.expr(e)

    def expr(self, e: P.PrimExpr, need: int = 0, typed: bool = False) -> str:
        text, prec = self._doc(e, typed)
        return f"({text})" if prec < need else text

    # ------------------------------------------------------------------------------------------
    def literal(self, e, typed: bool = False) -> Tuple[str, int]:
        if isinstance(e, P.IntImm):
            if e.dtype == "bool":
                if self.mode == "relax" and not typed:
                    return ("True" if e.value else "False"), P_ATOM
                return f"T.bool({'True' if e.value else 'False'})", P_ATOM
            if e.dtype == self.bare_int and not (typed and self.mode == "relax"):
                return str(e.value), (P_UNARY if e.value < 0 else P_ATOM)
            return f"T.{e.dtype}({e.value})", P_ATOM
        v = e.value
        if math.isinf(v) or math.isnan(v):
            return f'T.{e.dtype}("{nonfinite_word(v)}")', P_ATOM
        return f"T.{e.dtype}({format_float(v)})", P_ATOM

    def _args(self, args, typed=False) -> str:
        return ", ".join(self.expr(a, 0, typed) for a in args)

    def _doc(self, e: P.PrimExpr, typed: bool) -> Tuple[str, int]:
        if isinstance(e, P.PrimVar):
            return self.var_name(e), P_ATOM
        if isinstance(e, (P.IntImm, P.FloatImm)):
            return self.literal(e, typed)
        if isinstance(e, P.PrimStringImm):
            return format_str(e.value), P_ATOM
        t = type(e)
        if t in _SUGAR:
            sym, prec, ctor = _SUGAR[t]
            if not would_fold(e):
                if prec == P_CMP:
                    lhs = self.expr(e.a, P_CMP + 1)
                    rhs = self.expr(e.b, P_CMP + 1)
                else:
                    lhs = self.expr(e.a, prec)
                    rhs = self.expr(e.b, prec + 1)
                return f"{lhs} {sym} {rhs}", prec
            return f"T.{ctor}({self._args((e.a, e.b), typed=True)})", P_ATOM
        if t is P.Div:
            is_int = not (e.a.dtype.startswith(("float", "bfloat")))
            if not would_fold(e):
                if not is_int:
                    return f"{self.expr(e.a, P_MUL)} / {self.expr(e.b, P_MUL + 1)}", P_MUL
                if self.dialect.truncdiv == "truncdiv":
                    return f"T.truncdiv({self._args((e.a, e.b))})", P_ATOM
            return f"T.Div({self._args((e.a, e.b), typed=True)})", P_ATOM
        if t in _FUNCS:
            # T.truncmod / T.min / T.max fold constants like the operators: use the node otherwise
            func, ctor = _FUNCS[t]
            folds = would_fold(e) if t is P.Mod else (e.a.dtype != e.b.dtype or self._both_literal(e.a, e.b))
            if folds:
                return f"T.{ctor}({self._args((e.a, e.b), typed=True)})", P_ATOM
            return f"T.{func}({self._args((e.a, e.b))})", P_ATOM
        if t is P.Not:
            if _is_const(e.a):
                return f"T.Not({self.expr(e.a, 0, True)})", P_ATOM
            return f"not {self.expr(e.a, P_NOT)}", P_NOT
        if t is P.Cast:
            return f'T.Cast("{e.dtype}", {self.expr(e.value, 0, True)})', P_ATOM
        if t is P.Select:
            return f"T.Select({self._args((e.condition, e.true_value, e.false_value), typed=True)})", P_ATOM
        if t is P.Let:
            var = self.var_name(e.var)
            return (f"T.Let({self.expr(e.body)}, where={{{var}: {self.expr(e.value, 0, True)}}})",
                    P_ATOM)
        if t is P.PrimCall:
            return self._call(e), P_ATOM
        if t is tir.BufferLoad:
            name = self.buffer_name(e.buffer)
            if not e.indices:
                return f"{name}[()]", P_ATOM
            return f"{name}[{self._args(e.indices)}]", P_ATOM
        raise UnsupportedError(f"cannot print scalar expression node {type(e).__name__}")

    def _both_literal(self, a, b) -> bool:
        return _is_const(a) and _is_const(b)

    def _call(self, e: P.PrimCall) -> str:
        name = intrinsic_name(e.op)
        name = PRINTED_NAMES.get(name, name)
        args = list(e.args)
        if name in DTYPE_FIRST_INTRINSICS:
            return f'T.{name}("{e.dtype}"{", " if args else ""}{self._args(args)})'
        if name in DTYPE_LAST_INTRINSICS:
            return f'T.{name}({self._args(args)}{", " if args else ""}"{e.dtype}")'
        if name == "if_then_else" and len(args) == 3:
            return (f"T.if_then_else({self.expr(args[0])}, "
                    f"{self._args(args[1:], self._both_literal(args[1], args[2]))})")
        return f"T.{name}({self._args(args, typed=all(_is_const(a) for a in args))})"


__all__ = ["PrimPrinter", "would_fold", "intrinsic_name", "DTYPE_FIRST_INTRINSICS",
           "P_OR", "P_AND", "P_NOT", "P_CMP", "P_ADD", "P_MUL", "P_UNARY", "P_ATOM"]

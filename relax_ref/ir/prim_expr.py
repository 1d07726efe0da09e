"""Scalar (TIR) expressions: symbolic shapes, prim values and TensorIR arithmetic (spec chapter PRIM).

Nodes are frozen dataclasses with structural equality, except :class:`PrimVar`, whose identity *is* the
variable (two ``n = T.int64()`` declarations in two functions are two different variables).

Semantics: integer arithmetic wraps in two's complement at the dtype's width (PRIM.INT.1);
``FloorDiv``/``FloorMod`` round toward negative infinity (PRIM.INT.2), ``Div``/``Mod`` on integers
truncate toward zero (``T.truncdiv``/``T.truncmod``, PRIM.INT.3), ``Div`` on floats is IEEE division
(PRIM.FLOAT.1). Comparisons, ``And``, ``Or`` and ``Not`` yield ``bool`` (PRIM.BOOL.1). ``Select``
evaluates both arms; ``if_then_else`` (a :class:`PrimCall`) only the taken one (PRIM.SELECT.1).

Builder helpers (``add``, ``mul``, ``floordiv``, ...) and Python operators on nodes apply TIR's dtype
promotion (PRIM.DTYPE.1): int32 with int64 gives int64, int with float gives the float, a Python
literal takes the other operand's dtype. ``==`` is *structural equality*, never an EQ node; use
:func:`eq` for that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Tuple, Union

from . import dtype as _dt


class PrimExpr:
    """Base class of scalar expressions. Every node has a ``dtype`` attribute."""

    __slots__ = ()
    dtype: str

    # -- builder sugar -------------------------------------------------------------------------
    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __sub__(self, other):
        return sub(self, other)

    def __rsub__(self, other):
        return sub(other, self)

    def __mul__(self, other):
        return mul(self, other)

    def __rmul__(self, other):
        return mul(other, self)

    def __floordiv__(self, other):
        return floordiv(self, other)

    def __rfloordiv__(self, other):
        return floordiv(other, self)

    def __mod__(self, other):
        return floormod(self, other)

    def __rmod__(self, other):
        return floormod(other, self)

    def __truediv__(self, other):
        return div(self, other)

    def __rtruediv__(self, other):
        return div(other, self)

    def __neg__(self):
        return neg(self)

    def __str__(self) -> str:  # compact infix form, used in messages
        return to_str(self)

    def __bool__(self):
        raise TypeError("a PrimExpr has no truth value; use relax_ref.arith to decide it")


# ---------------------------------------------------------------------------------------------------
# Leaves
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PrimVar(PrimExpr):
    """A symbolic scalar variable (TIR ``Var``): shape variables, loop variables, block iter vars.

    Identity-compared. ``dtype`` is ``int64`` for Relax shape variables.
    """

    name: str
    dtype: str = "int64"

    def __repr__(self) -> str:
        return f"PrimVar({self.name!r}, {self.dtype!r})@{id(self) & 0xFFFF:04x}"


@dataclass(frozen=True)
class IntImm(PrimExpr):
    """Integer (or bool) constant. The value is wrapped to the dtype's width on construction."""

    value: int
    dtype: str = "int64"

    def __post_init__(self):
        v = self.value
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            v = int(v)
        object.__setattr__(self, "value", _dt.wrap_int(v, self.dtype) if self.dtype != "handle" else v)


@dataclass(frozen=True)
class FloatImm(PrimExpr):
    value: float
    dtype: str = "float32"

    def __post_init__(self):
        object.__setattr__(self, "value", float(self.value))

    def __eq__(self, other):  # NaN constants are structurally equal to each other
        if not isinstance(other, FloatImm) or other.dtype != self.dtype:
            return False
        a, b = self.value, other.value
        return a == b or (a != a and b != b)

    def __hash__(self):
        v = self.value
        return hash(("FloatImm", self.dtype, "nan" if v != v else v))


@dataclass(frozen=True)
class PrimStringImm(PrimExpr):
    """A string argument of a TIR intrinsic call (e.g. the name in ``T.call_extern``)."""

    value: str
    dtype: str = "handle"


# ---------------------------------------------------------------------------------------------------
# Compound nodes
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cast(PrimExpr):
    dtype: str
    value: PrimExpr


@dataclass(frozen=True)
class BinaryOp(PrimExpr):
    a: PrimExpr
    b: PrimExpr
    dtype: str = field(default=None)  # type: ignore[assignment]

    def __post_init__(self):
        if self.dtype is None:
            object.__setattr__(self, "dtype", self._result_dtype())

    def _result_dtype(self) -> str:
        return self.a.dtype


class Add(BinaryOp):
    pass


class Sub(BinaryOp):
    pass


class Mul(BinaryOp):
    pass


class Div(BinaryOp):
    """IEEE division on floats; truncating division (``T.truncdiv``) on integers."""


class Mod(BinaryOp):
    """Truncating modulo (``T.truncmod``): the result has the sign of the dividend."""


class FloorDiv(BinaryOp):
    pass


class FloorMod(BinaryOp):
    """Floor modulo: the result has the sign of the divisor."""


class Min(BinaryOp):
    pass


class Max(BinaryOp):
    pass


class CmpOp(BinaryOp):
    def _result_dtype(self) -> str:
        return "bool"


class EQ(CmpOp):
    pass


class NE(CmpOp):
    pass


class LT(CmpOp):
    pass


class LE(CmpOp):
    pass


class GT(CmpOp):
    pass


class GE(CmpOp):
    pass


class And(CmpOp):
    pass


class Or(CmpOp):
    pass


# dataclass() must be applied to each subclass so that they get their own __init__/__eq__/__hash__
for _cls in (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or):
    dataclass(frozen=True)(_cls)


@dataclass(frozen=True)
class Not(PrimExpr):
    a: PrimExpr
    dtype: str = "bool"


@dataclass(frozen=True)
class Select(PrimExpr):
    """``T.Select(c, t, f)``: both arms are evaluated."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr
    dtype: str = field(default=None)  # type: ignore[assignment]

    def __post_init__(self):
        if self.dtype is None:
            object.__setattr__(self, "dtype", self.true_value.dtype)


@dataclass(frozen=True)
class PrimCall(PrimExpr):
    """Call of a TIR intrinsic: ``op`` is the full name (``"tir.exp"``, ``"tir.if_then_else"``, ...)."""

    dtype: str
    op: str
    args: Tuple[PrimExpr, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(self.args))


@dataclass(frozen=True)
class Let(PrimExpr):
    """``T.Let(var, value, body)`` expression form."""

    var: PrimVar
    value: PrimExpr
    body: PrimExpr
    dtype: str = field(default=None)  # type: ignore[assignment]

    def __post_init__(self):
        if self.dtype is None:
            object.__setattr__(self, "dtype", self.body.dtype)


# ---------------------------------------------------------------------------------------------------
# Builders with TIR dtype promotion
# ---------------------------------------------------------------------------------------------------

ExprLike = Union[PrimExpr, int, float, bool]


def const(value, dtype: str | None = None) -> PrimExpr:
    """A constant of the given dtype (default: int64 for ints, float32 for floats, bool for bools)."""
    if isinstance(value, PrimExpr):
        return value if dtype is None or value.dtype == dtype else cast(dtype, value)
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int64"
        else:
            dtype = "float32"
    if _dt.is_float(dtype):
        return FloatImm(float(value), dtype)
    return IntImm(int(value), dtype)


def _promote(a: ExprLike, b: ExprLike) -> tuple[PrimExpr, PrimExpr]:
    if not isinstance(a, PrimExpr) and not isinstance(b, PrimExpr):
        a = const(a)
    if not isinstance(a, PrimExpr):
        b_dt = b.dtype  # type: ignore[union-attr]
        if isinstance(a, float) and not _dt.is_float(b_dt):
            return FloatImm(a, "float32"), cast("float32", b)  # type: ignore[arg-type]
        return const(a, b_dt if b_dt != "bool" else "int32"), b  # type: ignore[return-value]
    if not isinstance(b, PrimExpr):
        a_dt = a.dtype
        if isinstance(b, float) and not _dt.is_float(a_dt):
            return cast("float32", a), FloatImm(b, "float32")
        return a, const(b, a_dt if a_dt != "bool" else "int32")
    if a.dtype == b.dtype:
        return a, b
    da, db = a.dtype, b.dtype
    fa, fb = _dt.is_float(da), _dt.is_float(db)
    if fa and not fb:
        return a, cast(da, b)
    if fb and not fa:
        return cast(db, a), b
    if fa and fb:
        target = da if _dt.bits(da) >= _dt.bits(db) else db
    else:
        if da == "bool":
            return cast(db, a), b
        if db == "bool":
            return a, cast(da, b)
        target = da if _dt.bits(da) >= _dt.bits(db) else db
    return (a if a.dtype == target else cast(target, a)), (b if b.dtype == target else cast(target, b))


def cast(dtype: str, value: ExprLike) -> PrimExpr:
    if not isinstance(value, PrimExpr):
        return const(value, dtype)
    if value.dtype == dtype:
        return value
    if isinstance(value, IntImm) and not _dt.is_float(dtype) and dtype != "handle":
        return IntImm(value.value if dtype != "bool" else int(value.value != 0), dtype)
    if isinstance(value, IntImm) and _dt.is_float(dtype):
        return FloatImm(float(value.value), dtype)
    if isinstance(value, FloatImm) and _dt.is_float(dtype):
        # TVM's ``tir::cast`` folds a float constant into one of the new float dtype with the same
        # written value (``make_const``); the implicit promotion of PRIM.DTYPE.1 goes through it
        return FloatImm(value.value, dtype)
    return Cast(dtype, value)


def add(a, b) -> PrimExpr:
    return Add(*_promote(a, b))


def sub(a, b) -> PrimExpr:
    return Sub(*_promote(a, b))


def mul(a, b) -> PrimExpr:
    return Mul(*_promote(a, b))


def div(a, b) -> PrimExpr:
    return Div(*_promote(a, b))


def truncdiv(a, b) -> PrimExpr:
    return Div(*_promote(a, b))


def truncmod(a, b) -> PrimExpr:
    return Mod(*_promote(a, b))


def floordiv(a, b) -> PrimExpr:
    return FloorDiv(*_promote(a, b))


def floormod(a, b) -> PrimExpr:
    return FloorMod(*_promote(a, b))


def min_(a, b) -> PrimExpr:
    return Min(*_promote(a, b))


def max_(a, b) -> PrimExpr:
    return Max(*_promote(a, b))


def eq(a, b) -> PrimExpr:
    return EQ(*_promote(a, b))


def ne(a, b) -> PrimExpr:
    return NE(*_promote(a, b))


def lt(a, b) -> PrimExpr:
    return LT(*_promote(a, b))


def le(a, b) -> PrimExpr:
    return LE(*_promote(a, b))


def gt(a, b) -> PrimExpr:
    return GT(*_promote(a, b))


def ge(a, b) -> PrimExpr:
    return GE(*_promote(a, b))


def logical_and(a, b) -> PrimExpr:
    return And(const(a, "bool") if not isinstance(a, PrimExpr) else a,
               const(b, "bool") if not isinstance(b, PrimExpr) else b)


def logical_or(a, b) -> PrimExpr:
    return Or(const(a, "bool") if not isinstance(a, PrimExpr) else a,
              const(b, "bool") if not isinstance(b, PrimExpr) else b)


def logical_not(a) -> PrimExpr:
    return Not(a)


def neg(a: PrimExpr) -> PrimExpr:
    if isinstance(a, IntImm):
        return IntImm(-a.value, a.dtype)
    if isinstance(a, FloatImm):
        return FloatImm(-a.value, a.dtype)
    zero = FloatImm(0.0, a.dtype) if _dt.is_float(a.dtype) else IntImm(0, a.dtype)
    return Sub(zero, a)


def select(c, t, f) -> PrimExpr:
    t, f = _promote(t, f)
    return Select(c, t, f)


# ---------------------------------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------------------------------

BINARY_SYMBOLS = {
    Add: "+", Sub: "-", Mul: "*", FloorDiv: "//", FloorMod: "%",
    EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">=", And: "and", Or: "or",
}
_PREC = {Or: 1, And: 2, EQ: 4, NE: 4, LT: 4, LE: 4, GT: 4, GE: 4, Add: 6, Sub: 6, Mul: 7, FloorDiv: 7,
         FloorMod: 7}


def children(e: PrimExpr) -> tuple:
    """Direct PrimExpr operands of a node (BufferLoad indices included)."""
    if isinstance(e, BinaryOp):
        return (e.a, e.b)
    if isinstance(e, (Not,)):
        return (e.a,)
    if isinstance(e, Cast):
        return (e.value,)
    if isinstance(e, Select):
        return (e.condition, e.true_value, e.false_value)
    if isinstance(e, PrimCall):
        return e.args
    if isinstance(e, Let):
        return (e.value, e.body)
    idx = getattr(e, "indices", None)
    if idx is not None:
        return tuple(idx)
    return ()


def to_str(e: PrimExpr, _parent_prec: int = 0) -> str:
    """A compact infix rendering for messages: ``n * 2 // 2``, ``T.min(n, 4)``."""
    if isinstance(e, PrimVar):
        return e.name
    if isinstance(e, IntImm):
        if e.dtype == "bool":
            return "True" if e.value else "False"
        return str(e.value)
    if isinstance(e, FloatImm):
        return repr(e.value)
    if isinstance(e, PrimStringImm):
        return repr(e.value)
    if isinstance(e, Cast):
        return f"T.Cast({e.dtype!r}, {to_str(e.value)})"
    if type(e) in BINARY_SYMBOLS:
        prec = _PREC[type(e)]
        s = f"{to_str(e.a, prec)} {BINARY_SYMBOLS[type(e)]} {to_str(e.b, prec + 1)}"
        return f"({s})" if prec < _parent_prec else s
    if isinstance(e, Div):
        return f"T.truncdiv({to_str(e.a)}, {to_str(e.b)})" if not _dt.is_float(e.dtype) else \
            f"({to_str(e.a, 8)} / {to_str(e.b, 8)})"
    if isinstance(e, Mod):
        return f"T.truncmod({to_str(e.a)}, {to_str(e.b)})"
    if isinstance(e, Min):
        return f"T.min({to_str(e.a)}, {to_str(e.b)})"
    if isinstance(e, Max):
        return f"T.max({to_str(e.a)}, {to_str(e.b)})"
    if isinstance(e, Not):
        return f"not {to_str(e.a, 9)}"
    if isinstance(e, Select):
        return f"T.Select({to_str(e.condition)}, {to_str(e.true_value)}, {to_str(e.false_value)})"
    if isinstance(e, PrimCall):
        name = e.op[4:] if e.op.startswith("tir.") else e.op
        return f"T.{name}({', '.join(to_str(a) for a in e.args)})"
    if isinstance(e, Let):
        return f"T.Let({to_str(e.body)}, where={{{e.var.name}: {to_str(e.value)}}})"
    buf = getattr(e, "buffer", None)
    if buf is not None:
        return f"{buf.name}[{', '.join(to_str(i) for i in e.indices)}]"
    return repr(e)


__all__ = [
    "PrimExpr", "PrimVar", "IntImm", "FloatImm", "PrimStringImm", "Cast", "BinaryOp", "Add", "Sub", "Mul",
    "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "CmpOp", "EQ", "NE", "LT", "LE", "GT", "GE",
    "And", "Or", "Not", "Select", "PrimCall", "Let", "const", "cast", "add", "sub", "mul", "div",
    "truncdiv", "truncmod", "floordiv", "floormod", "min_", "max_", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "neg", "select", "children", "to_str",
]

"""Scalar-expression construction for the parser: literals, arithmetic with TIR dtype rules and
eager constant folding, and the ``T.*`` scalar vocabulary (PRIM.DTYPE.1, TEXT.TIR.5, TEXT.EXPR.8).

TVM folds constants while it builds expressions (``T.int64(2) + 3`` is ``T.int64(5)``, ``x + 0`` is
``x``); the same small set of folds is applied here so that parsed programs match TVM's. Arithmetic
between two Python literals is done in Python, but only on numbers and with bounded results, so no
text can make the parser compute something huge.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, Optional

import numpy as np

from ...arith.semantics import NUMBER_BINARY, truncdiv_exact, truncmod_exact
from ...errors import ParseError, Span, StructInfoError
from ...ir import dtype as _dt
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir.struct_info import PrimStructInfo

#: ``T.<name>`` -> dtype for the scalar type constructors
DTYPE_CTORS: Dict[str, str] = {
    "bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
}

_PY_LIMIT = 1 << 256
_FLOAT_WORD = re.compile(r"^[+-]?(inf|infinity|nan)$", re.IGNORECASE)
_FLOAT_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

Num = (int, float, bool)


def is_num(v: Any) -> bool:
    return isinstance(v, Num)


def parse_float_string(s: str, span: Optional[Span]) -> float:
    """``"inf"``, ``"-inf"``, ``"nan"`` (as TVM prints non-finite constants) or a decimal literal."""
    t = s.strip()
    if _FLOAT_WORD.match(t) or _FLOAT_NUM.match(t):
        return float(t)
    raise ParseError(f"'{s}' is not a floating-point literal (expected a number, 'inf', '-inf' or 'nan')",
                     span)


def check_dtype(s: Any, span: Optional[Span], *, allow_handle: bool = True, what: str = "dtype") -> str:
    if isinstance(s, rx.DataTypeImm):
        s = s.value
    if not isinstance(s, str):
        raise ParseError(f"{what} must be a string such as \"float32\", got {describe(s)}", span)
    try:
        d = _dt.check(s)
    except StructInfoError:
        raise ParseError(f"unknown data type '{s}'", span) from None
    if not allow_handle:
        try:
            _dt.value_dtype(d)
        except StructInfoError as e:
            raise ParseError(e.message, span) from None
    return d


def describe(v: Any) -> str:
    """A short description of a script value for error messages."""
    if isinstance(v, bool):
        return f"the bool {v}"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the string {v!r}"
    if v is None:
        return "None"
    if isinstance(v, rx.Expr):
        return f"a Relax {type(v).__name__}"
    if isinstance(v, P.PrimExpr):
        return f"the scalar expression {P.to_str(v)}"
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {len(v)} items"
    if isinstance(v, dict):
        return "a dict"
    from .values import Ref

    if isinstance(v, Ref):
        return f"'{v.path}'"
    return f"a {type(v).__name__}"


def _check_int_range(value: int, dtype: str, span: Optional[Span]) -> None:
    if dtype in ("bool", "handle"):
        return
    lo, hi = _dt.min_value(dtype), _dt.max_value(dtype)
    if not lo <= value <= hi:
        raise ParseError(f"literal value {value} is out of range for {dtype}", span)


def lit(v: Any, dtype: Optional[str] = None, span: Optional[Span] = None, int_dtype: str = "int32") -> P.PrimExpr:
    """A Python literal as a scalar constant. Default dtypes follow TVM (PRIM.DTYPE.2): bool -> bool,
    int -> ``int_dtype`` (int32 in TensorIR, int64 in Relax shape positions; int64 if it does not fit),
    float -> float32."""
    if isinstance(v, P.PrimExpr):
        return v if dtype is None else cast(dtype, v)
    if dtype is None:
        if isinstance(v, bool):
            dtype = "bool"
        elif isinstance(v, int):
            dtype = int_dtype if int_dtype != "int32" or -(1 << 31) <= v < (1 << 31) else "int64"
        elif isinstance(v, float):
            dtype = "float32"
        else:
            raise ParseError(f"expected a scalar, got {describe(v)}", span)
    if _dt.is_float(dtype):
        if isinstance(v, str):
            v = parse_float_string(v, span)
        if not isinstance(v, Num):
            raise ParseError(f"expected a number for {dtype}, got {describe(v)}", span)
        return P.FloatImm(float(v), dtype)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ParseError(f"cannot make a {dtype} constant from {v}", span)
        v = int(v)
    if not isinstance(v, (int, bool)):
        raise ParseError(f"expected an integer for {dtype}, got {describe(v)}", span)
    v = int(v)
    if dtype == "bool":
        return P.IntImm(1 if v else 0, "bool")
    _check_int_range(v, dtype, span)
    return P.IntImm(v, dtype)


def scalar_of(v: Any) -> Optional[P.PrimExpr]:
    """The scalar expression a Relax value stands for in a scalar position, or None: a
    ``PrimValue``'s value, and the value a Relax variable's (written) ``R.Prim(value=...)`` struct
    info says it holds -- tvm-0.27's ``k: T.int64`` parameters and ``y = n + 1`` bindings
    (TEXT.DIALECT.3)."""
    if isinstance(v, rx.PrimValue):
        return v.value
    if isinstance(v, rx.Var):
        s = v.struct_info
        if isinstance(s, PrimStructInfo) and s.value is not None:
            return s.value
    return None


def as_prim(v: Any, span: Optional[Span], what: str = "value", int_dtype: str = "int32") -> P.PrimExpr:
    """Any scalar-like script value as a PrimExpr (Python ints become ``int_dtype``)."""
    if isinstance(v, P.PrimExpr):
        return v
    if isinstance(v, Num):
        return lit(v, span=span, int_dtype=int_dtype)
    s = scalar_of(v)
    if s is not None:
        return s
    raise ParseError(f"{what}: expected a scalar expression, got {describe(v)}", span)


def cast(dtype: str, v: Any) -> P.PrimExpr:
    if not isinstance(v, P.PrimExpr):
        return lit(v, dtype)
    if isinstance(v, P.FloatImm) and not _dt.is_float(dtype) and dtype != "handle":
        if math.isfinite(v.value):
            return P.IntImm(int(v.value) if dtype != "bool" else int(v.value != 0), dtype)
    if isinstance(v, P.FloatImm) and _dt.is_float(dtype):
        return P.FloatImm(v.value, dtype)
    return P.cast(dtype, v)


# ---------------------------------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------------------------------


def _has_float(a, b) -> bool:
    return isinstance(a, float) or isinstance(b, float)


def _py_binary(op: str, a, b, span: Optional[Span]):
    """Arithmetic on two Python numbers, bounded (TEXT.SAFE.3)."""
    try:
        if op in NUMBER_BINARY:
            r = NUMBER_BINARY[op](a, b)
        elif op == "floordiv":
            r = a // b
        elif op == "floormod":
            r = a % b
        elif op == "truncdiv":
            r = float(math.trunc(a / b)) if _has_float(a, b) else truncdiv_exact(a, b)
        elif op == "truncmod":
            r = math.fmod(a, b) if _has_float(a, b) else truncmod_exact(a, b)
        elif op == "min":
            r = min(a, b)
        elif op == "max":
            r = max(a, b)
        elif op == "pow":
            if isinstance(b, int) and not isinstance(a, float):
                if b < 0 or b > 256 or abs(a) > _PY_LIMIT:
                    raise ParseError("integer power out of the supported range", span)
            r = a ** b
            if isinstance(r, complex):
                raise ParseError("power of a negative number with a fractional exponent", span)
        elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
            r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op]
        elif op == "and":
            r = bool(a) and bool(b)
        elif op == "or":
            r = bool(a) or bool(b)
        else:
            raise ParseError(f"operator '{op}' is not supported on numbers", span)
    except ZeroDivisionError:
        raise ParseError("division by zero in a constant expression", span) from None
    except OverflowError:
        raise ParseError("numeric overflow in a constant expression", span) from None
    if isinstance(r, int) and not isinstance(r, bool) and abs(r) >= _PY_LIMIT:
        raise ParseError("integer constant too large", span)
    return r


#: integer immediates that fold exactly; on integers ``div`` truncates (PRIM.INT.2)
_INT_FOLDS = {"add": "add", "sub": "sub", "mul": "mul", "floordiv": "floordiv", "floormod": "floormod",
              "truncdiv": "truncdiv", "div": "truncdiv", "truncmod": "truncmod", "min": "min", "max": "max"}


def _int_fold(op: str, a: int, b: int, dtype: str, span: Optional[Span]):
    """``a <op> b`` of two integer immediates, or None where it does not fold (a zero divisor)."""
    if op not in _INT_FOLDS or (b == 0 and (op in _DIVS or op in _MODS)):
        return None
    return P.IntImm(_py_binary(_INT_FOLDS[op], a, b, span), dtype)


_CMP = {"eq": P.eq, "ne": P.ne, "lt": P.lt, "le": P.le, "gt": P.gt, "ge": P.ge}
_ARITH = {"add": P.add, "sub": P.sub, "mul": P.mul, "div": P.div, "floordiv": P.floordiv,
          "floormod": P.floormod, "truncdiv": P.truncdiv, "truncmod": P.truncmod, "min": P.min_,
          "max": P.max_}


def _is_const(e, v) -> bool:
    return isinstance(e, (P.IntImm, P.FloatImm)) and e.dtype != "bool" and e.value == v


def binary(op: str, a: Any, b: Any, span: Optional[Span]) -> Any:
    """``a <op> b`` for scalar operands (PrimExprs or Python numbers) with TIR semantics.

    ``op`` is one of add sub mul div floordiv floormod truncdiv truncmod min max pow eq ne lt le gt
    ge and or. Python-number operands on both sides compute in Python (bounded).
    """
    if is_num(a) and is_num(b):
        return _py_binary(op, a, b, span)
    for v in (a, b):
        if not isinstance(v, P.PrimExpr) and not is_num(v):
            raise ParseError(f"operand of '{op}' must be a scalar expression, got {describe(v)}", span)
    if op in ("and", "or"):
        x = lit(a, "bool", span) if is_num(a) else a
        y = lit(b, "bool", span) if is_num(b) else b
        for e in (x, y):
            if e.dtype != "bool":
                raise ParseError(f"'{op}' needs boolean operands, got {e.dtype}", span)
        # TVM's parser builds the node for `and`/`or` without folding (TEXT.PRIM.2)
        return P.And(x, y) if op == "and" else P.Or(x, y)
    if op == "pow":
        x, y = P._promote(a, b)  # noqa: SLF001 (shared promotion rule)
        if not _dt.is_float(x.dtype):
            raise ParseError("'**' on integer scalar expressions is not supported; use T.pow on floats",
                             span)
        return P.PrimCall(x.dtype, "tir.pow", (x, y))
    if op in _CMP:
        # comparisons of scalar expressions build the node, never fold (TEXT.PRIM.2): TVM's parser
        # uses the node constructors for them (`T.int32(1) < 2` is `T.LT(1, 2)`)
        return _CMP[op](a, b)
    if op == "div":
        x, y = P._promote(a, b)  # noqa: SLF001
        if not _dt.is_float(x.dtype):
            raise ParseError("'/' on integer scalar expressions is ambiguous; use '//' (floor division), "
                             "T.truncdiv or T.floordiv", span)
    if op not in _ARITH:
        raise ParseError(f"operator '{op}' is not supported on scalar expressions", span)
    e = _ARITH[op](a, b)
    return fold(op, e, span)


def _round(value: float, dtype: str) -> float:
    """A float result rounded to the precision of ``dtype`` (float32 arithmetic is single precision)."""
    if dtype == "float64" or value != value:
        return value
    with np.errstate(over="ignore"):
        return float(np.asarray(value, dtype=_dt.to_numpy(dtype)))


_DIVS = ("div", "truncdiv", "floordiv")
_MODS = ("truncmod", "floormod")


def fold(op: str, e: P.PrimExpr, span: Optional[Span]) -> P.PrimExpr:
    """TVM's eager constant folding (PRIM.DTYPE.3): integer immediates fold; float immediates fold
    under ``min``/``max`` at every width but under ``+ - * /`` only for 32- and 64-bit floats (a
    ``float16``, ``bfloat16`` or ``float8`` ``T.float16(1.0) / T.float16(2.0)`` stays a division);
    ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` give ``x``; ``x * 0`` and ``0 / x`` give 0; modulo by 1
    gives 0. A divisor that is the immediate 0 is never folded: the node stays and fails when
    evaluated."""
    x, y = e.a, e.b
    if _is_const(y, 0) and (op in _DIVS or op in _MODS):
        return e
    if isinstance(x, P.IntImm) and isinstance(y, P.IntImm) and x.dtype != "bool":
        folded = _int_fold(op, x.value, y.value, e.dtype, span)
        if folded is not None:
            return folded
    if isinstance(x, P.FloatImm) and isinstance(y, P.FloatImm) and (
            op in ("min", "max") or (op in ("add", "sub", "mul", "div") and _dt.bits(e.dtype) in (32, 64))):
        return P.FloatImm(_round(_py_binary(op, x.value, y.value, span), e.dtype), e.dtype)
    zero = P.FloatImm(0.0, e.dtype) if _dt.is_float(e.dtype) else P.IntImm(0, e.dtype)
    if op == "add":
        if _is_const(y, 0):
            return x
        if _is_const(x, 0):
            return y
    elif op == "sub":
        if _is_const(y, 0):
            return x
    elif op == "mul":
        if _is_const(y, 1):
            return x
        if _is_const(x, 1):
            return y
        if _is_const(y, 0) or _is_const(x, 0):
            return zero
    elif op in _DIVS:
        if _is_const(y, 1):
            return x
        if _is_const(x, 0):
            return zero
    elif op in _MODS:
        if _is_const(y, 1) or _is_const(x, 0):
            return zero
    return e


def negate(a: Any, span: Optional[Span]) -> Any:
    if is_num(a):
        return -a
    if not isinstance(a, P.PrimExpr):
        raise ParseError(f"cannot negate {describe(a)}", span)
    return P.neg(a)


def logical_not(a: Any, span: Optional[Span]) -> Any:
    if is_num(a):
        return not a
    if not isinstance(a, P.PrimExpr):
        raise ParseError(f"'not' needs a boolean scalar, got {describe(a)}", span)
    if a.dtype != "bool":
        raise ParseError(f"'not' needs a boolean scalar, got {a.dtype}", span)
    return P.Not(a)  # built, never folded, as TVM's parser does (TEXT.PRIM.2)


# ---------------------------------------------------------------------------------------------------
# T.* scalar functions (shared by the Relax and the TensorIR contexts)
# ---------------------------------------------------------------------------------------------------

UNARY_MATH = (
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "tan",
    "sin", "cos", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "erf", "sigmoid",
    "floor", "ceil", "round", "nearbyint", "trunc", "fabs",
)
BOOL_UNARY = ("isnan", "isinf", "isfinite")
BINARY_MATH = ("pow", "atan2", "fmod", "copysign", "hypot", "nextafter", "ldexp")
INT_UNARY = ("popcount", "clz", "bitwise_not")
INT_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right")
#: the bitwise intrinsics TVM also accepts on ``bool`` operands (its kernels for bool
#: ``logical_xor`` use ``T.bitwise_xor``); the shifts and ``popcount``/``clz`` need integers
BOOL_BITWISE = frozenset(("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"))


def _bitwise_operand_ok(name: str, dtype: str) -> bool:
    return _dt.is_integer(dtype) or (dtype == "bool" and name in BOOL_BITWISE)


def _literal_like(v: Any, other: P.PrimExpr, name: str, span: Optional[Span]) -> P.PrimExpr:
    """A Python literal operand of a bitwise intrinsic takes the other operand's dtype; next to a
    ``bool`` it must be 0 or 1 (``T.bitwise_and(b, 1)`` is ``T.bitwise_and(b, T.bool(True))``)."""
    if other.dtype == "bool":
        if isinstance(v, float) or v not in (0, 1):
            raise ParseError(f"T.{name}: {v!r} is not a bool value (0 or 1)", span)
    return lit(v, other.dtype, span)


def intrinsic(name: str, args: list, span: Optional[Span], int_dtype: str = "int32") -> P.PrimExpr:
    """``T.<name>(args)`` for the math intrinsics, as ``PrimCall(dtype, "tir.<name>", args)``."""
    def need(n):
        if len(args) != n:
            raise ParseError(f"T.{name} takes {n} argument{'s' if n != 1 else ''}, got {len(args)}", span)

    if name in UNARY_MATH or name in INT_UNARY:
        need(1)
        x = as_prim(args[0], span, f"T.{name}", int_dtype)
        if name in INT_UNARY and not _bitwise_operand_ok(name, x.dtype):
            need_what = "an integer or bool" if name in BOOL_BITWISE else "an integer"
            raise ParseError(f"T.{name} needs {need_what} argument, got {x.dtype}", span)
        return P.PrimCall(x.dtype, f"tir.{name}", (x,))
    if name in BOOL_UNARY:
        need(1)
        x = as_prim(args[0], span, f"T.{name}", int_dtype)
        return P.PrimCall("bool", f"tir.{name}", (x,))
    if name in BINARY_MATH or name in INT_BINARY:
        need(2)
        a, b = args[0], args[1]
        if not isinstance(a, P.PrimExpr) and not isinstance(b, P.PrimExpr):
            a = lit(a, span=span, int_dtype=int_dtype)
        if name in INT_BINARY:
            if not isinstance(a, P.PrimExpr):
                a = _literal_like(a, b, name, span)
            elif not isinstance(b, P.PrimExpr):
                b = _literal_like(b, a, name, span)
        x, y = P._promote(a, b)  # noqa: SLF001
        if name in INT_BINARY and not _bitwise_operand_ok(name, x.dtype):
            need_what = "integer or bool" if name in BOOL_BITWISE else "integer"
            raise ParseError(f"T.{name} needs {need_what} arguments, got {x.dtype}", span)
        return P.PrimCall(x.dtype, f"tir.{name}", (x, y))
    if name == "likely":
        need(1)
        x = as_prim(args[0], span, "T.likely", int_dtype)
        return P.PrimCall(x.dtype, "tir.likely", (x,))
    raise ParseError(f"unknown intrinsic T.{name}", span)


INTRINSICS = frozenset(UNARY_MATH + BOOL_UNARY + BINARY_MATH + INT_UNARY + INT_BINARY + ("likely",))


def abs_(x: Any, span: Optional[Span]) -> Any:
    if is_num(x):
        return abs(x)
    x = as_prim(x, span, "T.abs")  # a Python number was handled above
    if _dt.is_float(x.dtype):
        return P.PrimCall(x.dtype, "tir.fabs", (x,))
    if _dt.is_uint(x.dtype) or x.dtype == "bool":
        return x
    if isinstance(x, P.IntImm):
        return P.IntImm(abs(x.value), x.dtype)
    return P.Select(P.ge(x, 0), x, P.Sub(P.IntImm(0, x.dtype), x))


def ceildiv(a: Any, b: Any, span: Optional[Span]) -> Any:
    if is_num(a) and is_num(b):
        if isinstance(a, float) or isinstance(b, float):
            raise ParseError("T.ceildiv needs integer operands", span)
        if b == 0:
            raise ParseError("division by zero in a constant expression", span)
        return -((-a) // b)
    a, b = as_prim(a, span, "T.ceildiv operand"), as_prim(b, span, "T.ceildiv operand")
    x, y = P._promote(a, b)  # noqa: SLF001
    if not _dt.is_integer(x.dtype):
        raise ParseError("T.ceildiv needs integer operands", span)
    return binary("floordiv", binary("sub", binary("add", x, y, span), 1, span), y, span)


def limit_value(which: str, dtype: str, span: Optional[Span]) -> P.PrimExpr:
    """``T.max_value`` / ``T.min_value`` / ``T.infinity`` as constants (TVM folds them)."""
    if which == "infinity":
        if not _dt.is_float(dtype):
            raise ParseError(f"T.infinity needs a floating-point dtype, got {dtype}", span)
        return P.FloatImm(float("inf"), dtype)
    if _dt.is_float(dtype):
        info = np.finfo(_dt.to_numpy(dtype))
        return P.FloatImm(float(info.max if which == "max_value" else info.min), dtype)
    v = _dt.max_value(dtype) if which == "max_value" else _dt.min_value(dtype)
    return P.IntImm(int(v), dtype)


__all__ = [
    "DTYPE_CTORS", "is_num", "parse_float_string", "check_dtype", "describe", "lit", "as_prim", "scalar_of",
    "cast",
    "binary", "fold", "negate", "logical_not", "intrinsic", "INTRINSICS", "abs_", "ceildiv", "limit_value",
]

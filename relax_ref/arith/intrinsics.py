"""TIR intrinsic functions: the table used by scalar evaluation and by the vectorized TensorIR path.

Naming (PRIM.CALL.1). TVM 0.25 registers its scalar intrinsics under the ``tirx.`` prefix
(``T.exp(x)`` builds ``Call(Op("tirx.exp"), [x])``, printed back as ``T.exp(x)``); earlier releases used
``tir.``. relax-ref's IR stores the name with the ``tir.`` prefix — ``PrimCall("float32", "tir.exp",
(x,))`` — which maps one-to-one to the script spelling ``T.exp``. :func:`canonical_name` accepts the
``tirx.`` spelling too.

Calling convention. ``INTRINSICS[name](dtype, *args)``: ``dtype`` is the call's result dtype and each
argument is a numpy scalar or array in its own dtype; the result is a numpy scalar or array of
``dtype``. Float arguments are first converted to the result dtype (PRIM.CALL.2). Transcendental
functions (exp, log, sin, pow, erf, ...) then evaluate in float64 and round once to the result dtype:
the result is the correctly rounded value of the function at the dtype's argument (barring rare
double-rounding ties) and does not depend on the platform's vectorized float32 routines, whose last
bit varies between CPUs. Exact operations (floor, fabs, copysign, nextafter, fmod, ldexp, shifts, ...)
compute directly in the dtype. Composite definitions (``sigmoid``, ``rsqrt``) round every step in the
dtype, like TVM's lowering of them, except on ``bfloat16``: the formula rounded once, as TVM evaluates
a bfloat16 expression in float32 (PRIM.FLOAT.7).

Semantics choices where TVM leaves behaviour to the target (documented per entry):

* ``tir.round`` rounds half to even, like ``tir.nearbyint`` (TVM's LLVM lowering:
  ``T.round(2.5) == 2.0``); ``floor``/``ceil``/``round``/``nearbyint``/``trunc`` of an integer is the
  integer itself (TVM folds them so).
* Shifts: a count ``>= bits`` shifts every bit out (``0``, or ``-1`` for a negative value shifted
  right); a negative count raises :class:`~relax_ref.errors.OpRuntimeError`. ``shift_right`` is
  arithmetic on signed and logical on unsigned types.
* ``clz(0)`` is the bit width; ``popcount`` counts the bits of the two's-complement representation.
* ``fma(a, b, c)`` is ``a * b + c`` with two roundings.
* ``max_value``/``min_value``/``infinity``/``abs`` are script helpers that TVM folds when the
  expression is built (``T.max_value("int32")`` is an ``IntImm``, ``T.abs`` of an int a ``Select``);
  they are listed so that such calls, when present, evaluate.
* Transcendental functions of an integer result type are not defined (UnsupportedError).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict

import numpy as np

from ..errors import OpRuntimeError, UnsupportedError
from ..ir import dtype as _dt
from . import semantics as _sem


@dataclass(frozen=True)
class Intrinsic:
    """One TIR intrinsic: ``fn(dtype, *args)`` plus its arity (``-1`` = variadic) and a description."""

    name: str
    fn: Callable[..., Any]
    arity: int
    description: str

    def __call__(self, dtype: str, *args: Any) -> Any:
        if self.arity >= 0 and len(args) != self.arity:
            raise UnsupportedError(
                f"intrinsic '{self.name}' takes {self.arity} argument(s), got {len(args)}")
        r = self.fn(dtype, *args)
        if isinstance(r, np.ndarray) and r.ndim == 0:
            r = r[()]
        return r


INTRINSICS: Dict[str, Intrinsic] = {}


def canonical_name(name: str) -> str:
    """``"tirx.exp"`` -> ``"tir.exp"``; names already starting with ``"tir."`` are unchanged."""
    if name.startswith("tirx."):
        return "tir." + name[5:]
    return name


def lookup(name: str) -> Intrinsic:
    """The intrinsic of a call name (either prefix); UnsupportedError when unknown."""
    it = INTRINSICS.get(canonical_name(name))
    if it is None:
        raise UnsupportedError(f"TIR intrinsic '{name}' is not supported")
    return it


def _register(name: str, arity: int, description: str):
    def deco(fn):
        INTRINSICS["tir." + name] = Intrinsic("tir." + name, fn, arity, description)
        return fn
    return deco


def _np(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def _as(x: Any, dtype: str) -> np.ndarray:
    a = np.asarray(x)
    t = _np(dtype)
    if a.dtype == t:
        return a
    if _dt.is_integer(dtype) and _dt.is_float_numpy(a.dtype):
        return _sem.float_to_int(a, dtype)
    with np.errstate(all="ignore"):
        return a.astype(t)


def _require_float(name: str, dtype: str) -> None:
    if not _dt.is_float(dtype):
        raise UnsupportedError(f"'{name}' is defined for floating-point results only, not {dtype}")


def _require_int(name: str, dtype: str) -> None:
    if not (_dt.is_integer(dtype) or dtype == "bool"):
        raise UnsupportedError(f"'{name}' is defined for integer types only, not {dtype}")


def _wide(x: Any, dtype: str) -> np.ndarray:
    """The argument rounded to ``dtype``, widened (exactly) to float64."""
    return _as(x, dtype).astype(np.float64)


def _float_unary(name: str, ufunc, description: str) -> None:
    def fn(dtype, x):
        _require_float("tir." + name, dtype)
        with np.errstate(all="ignore"):
            return ufunc(_wide(x, dtype)).astype(_np(dtype))
    _register(name, 1, description)(fn)


def _float_binary(name: str, ufunc, description: str, exact: bool = False) -> None:
    def fn(dtype, x, y):
        _require_float("tir." + name, dtype)
        with np.errstate(all="ignore"):
            if exact:
                return ufunc(_as(x, dtype), _as(y, dtype))
            return ufunc(_wide(x, dtype), _wide(y, dtype)).astype(_np(dtype))
    _register(name, 2, description)(fn)


for _name, _uf, _desc in [
    ("exp", np.exp, "e raised to x"),
    ("exp2", np.exp2, "2 raised to x"),
    ("log", np.log, "natural logarithm; NaN for x < 0, -inf at 0"),
    ("log2", np.log2, "base-2 logarithm"),
    ("log10", np.log10, "base-10 logarithm"),
    ("log1p", np.log1p, "log(1 + x), accurate near 0"),
    ("sqrt", np.sqrt, "square root; NaN for x < 0"),
    ("sin", np.sin, "sine (radians)"),
    ("cos", np.cos, "cosine (radians)"),
    ("tan", np.tan, "tangent (radians)"),
    ("sinh", np.sinh, "hyperbolic sine"),
    ("cosh", np.cosh, "hyperbolic cosine"),
    ("tanh", np.tanh, "hyperbolic tangent"),
    ("asin", np.arcsin, "arc sine; NaN outside [-1, 1]"),
    ("acos", np.arccos, "arc cosine; NaN outside [-1, 1]"),
    ("atan", np.arctan, "arc tangent"),
    ("asinh", np.arcsinh, "inverse hyperbolic sine"),
    ("acosh", np.arccosh, "inverse hyperbolic cosine; NaN for x < 1"),
    ("atanh", np.arctanh, "inverse hyperbolic tangent; +-inf at +-1, NaN outside"),
]:
    _float_unary(_name, _uf, _desc)

for _name, _uf, _desc, _exact in [
    ("atan2", np.arctan2, "atan2(y, x): angle of the point (x, y), in (-pi, pi]", False),
    ("pow", np.power, "pow(x, y): x raised to y (IEEE pow: pow(x, 0) == 1 even for NaN x)", False),
    ("fmod", np.fmod, "fmod(x, y): remainder with the sign of x (C fmod, exact)", True),
    ("copysign", np.copysign, "copysign(x, y): |x| with the sign bit of y", True),
    ("hypot", np.hypot, "hypot(x, y): sqrt(x*x + y*y) without intermediate overflow", False),
    ("nextafter", np.nextafter, "nextafter(x, y): the next representable value of the dtype after x "
                                "toward y", True),
]:
    _float_binary(_name, _uf, _desc, _exact)


@_register("exp10", 1, "10 raised to x")
def _exp10(dtype, x):
    _require_float("tir.exp10", dtype)
    with np.errstate(all="ignore"):
        return np.power(10.0, _wide(x, dtype)).astype(_np(dtype))


@_register("rsqrt", 1, "1 / sqrt(x), two roundings in the dtype; bfloat16: rounded once (PRIM.FLOAT.7)")
def _rsqrt(dtype, x):
    _require_float("tir.rsqrt", dtype)
    with np.errstate(all="ignore"):
        if _dt.float32_intermediates(dtype):
            return (1.0 / np.sqrt(_wide(x, dtype))).astype(_np(dtype))
        return _np(dtype).type(1) / np.sqrt(_as(x, dtype))


@_register("sigmoid", 1, "1 / (1 + exp(-x)), each step rounded in the dtype; bfloat16: the formula "
                         "rounded once (PRIM.FLOAT.7)")
def _sigmoid(dtype, x):
    _require_float("tir.sigmoid", dtype)
    t = _np(dtype)
    with np.errstate(all="ignore"):
        if _dt.float32_intermediates(dtype):
            return (1.0 / (1.0 + np.exp(-_wide(x, dtype)))).astype(t)
        one = t.type(1)
        e = np.exp(-_wide(x, dtype)).astype(t)
        return one / (one + e)


@_register("erf", 1, "the Gauss error function")
def _erf(dtype, x):
    from scipy.special import erf

    _require_float("tir.erf", dtype)
    with np.errstate(all="ignore"):
        return erf(_wide(x, dtype)).astype(_np(dtype))


def _rounding(name: str, ufunc, description: str) -> None:
    def fn(dtype, x):
        if _dt.is_float(dtype):
            with np.errstate(all="ignore"):
                return ufunc(_as(x, dtype))
        _require_int("tir." + name, dtype)
        return _as(x, dtype)
    _register(name, 1, description)(fn)


_rounding("floor", np.floor, "largest integral value <= x (identity on integers)")
_rounding("ceil", np.ceil, "smallest integral value >= x (identity on integers)")
_rounding("trunc", np.trunc, "x rounded toward zero (identity on integers)")
_rounding("round", np.rint, "x rounded to the nearest integral value, ties to even as in TVM's LLVM "
                            "lowering (identity on integers)")
_rounding("nearbyint", np.rint, "x rounded to the nearest integral value, ties to even (identity on "
                                "integers)")


def _int_abs(dtype, x):
    a = _as(x, dtype)
    if _dt.is_uint(dtype) or dtype == "bool":
        return a
    with np.errstate(all="ignore"):
        return np.abs(a)  # wraps: abs(INT_MIN) == INT_MIN


@_register("fabs", 1, "absolute value (on integers: two's-complement abs, abs(INT_MIN) == INT_MIN)")
def _fabs(dtype, x):
    if _dt.is_float(dtype):
        return np.abs(_as(x, dtype))
    _require_int("tir.fabs", dtype)
    return _int_abs(dtype, x)


@_register("abs", 1, "absolute value; script helper (TVM builds fabs for floats, a Select for ints)")
def _abs(dtype, x):
    return _fabs(dtype, x)


def _is_float_array(a: np.ndarray) -> bool:
    return a.dtype.kind not in "iub"  # numpy floats, and ml_dtypes' bfloat16 / float8 types


@_register("isnan", 1, "True where x is NaN (always False for integers); result bool")
def _isnan(dtype, x):
    a = np.asarray(x)
    return np.isnan(a) if _is_float_array(a) else np.zeros(a.shape, bool)


@_register("isinf", 1, "True where x is +-inf (always False for integers); result bool")
def _isinf(dtype, x):
    a = np.asarray(x)
    return np.isinf(a) if _is_float_array(a) else np.zeros(a.shape, bool)


@_register("isfinite", 1, "True where x is neither NaN nor +-inf (always True for integers); result "
                          "bool")
def _isfinite(dtype, x):
    a = np.asarray(x)
    return np.isfinite(a) if _is_float_array(a) else np.ones(a.shape, bool)


@_register("ldexp", 2, "ldexp(x, e): x * 2**e, computed exactly then rounded to the dtype")
def _ldexp(dtype, x, e):
    _require_float("tir.ldexp", dtype)
    ex = np.clip(np.asarray(e).astype(np.int64), -100000, 100000).astype(np.int32)
    with np.errstate(all="ignore"):
        return np.ldexp(_as(x, dtype), ex)


@_register("fma", 3, "fma(a, b, c): a * b + c, two roundings in the dtype (wrapping on integers)")
def _fma(dtype, a, b, c):
    if _dt.is_float(dtype):
        with np.errstate(all="ignore"):
            return _as(a, dtype) * _as(b, dtype) + _as(c, dtype)
    _require_int("tir.fma", dtype)
    u = _unsigned_of(dtype)
    with np.errstate(all="ignore"):
        r = _as(a, dtype).astype(u) * _as(b, dtype).astype(u) + _as(c, dtype).astype(u)
    return r.astype(_np(dtype))


@_register("likely", 1, "likely(c): c itself (a branch-prediction hint)")
def _likely(dtype, x):
    return _as(x, dtype)


@_register("if_then_else", 3, "if_then_else(c, t, f): t where c else f; scalar evaluation evaluates "
                              "only the taken arm, the array form selects element-wise")
def _if_then_else(dtype, c, t, f):
    return np.where(np.asarray(c).astype(bool), _as(t, dtype), _as(f, dtype)).astype(_np(dtype))


@_register("reinterpret", 1, "reinterpret(x): the bits of x read as the result dtype (same width)")
def _reinterpret(dtype, x):
    a = np.asarray(x)
    t = _np(dtype)
    if a.dtype.itemsize != t.itemsize:
        raise UnsupportedError(f"tir.reinterpret from {a.dtype} to {dtype} changes the bit width")
    return np.array(a, copy=True).view(t)


@_register("max_value", 0, "the largest finite value of the dtype (script helper)")
def _max_value(dtype):
    return np.asarray(_dt.max_value(dtype)).astype(_np(dtype))


@_register("min_value", 0, "the smallest finite value of the dtype (script helper)")
def _min_value(dtype):
    return np.asarray(_dt.min_value(dtype)).astype(_np(dtype))


@_register("infinity", 0, "+inf for floats, the largest value for integers (script helper)")
def _infinity(dtype):
    if _dt.is_float(dtype):
        return np.asarray(np.inf).astype(_np(dtype))
    return _max_value(dtype)


# -- bit manipulation ---------------------------------------------------------------------------------


def _unsigned_of(dtype: str) -> np.dtype:
    return np.dtype(f"uint{max(_sem.int_info(dtype)[0], 8)}")


def _shift_count(s: Any) -> np.ndarray:
    cnt = np.asarray(s).astype(np.int64)
    if np.any(cnt < 0):
        raise OpRuntimeError("shift by a negative count (undefined behaviour in TVM)")
    return cnt


@_register("shift_left", 2, "shift_left(a, s): a << s, wrapping; counts >= the bit width give 0")
def _shift_left(dtype, a, s):
    _require_int("tir.shift_left", dtype)
    bits = _sem.int_info(dtype)[0]
    x = _as(a, dtype)
    cnt = _shift_count(s)
    u = x.astype(_unsigned_of(dtype)) if dtype != "bool" else x.astype(np.uint8)
    safe = np.minimum(cnt, max(bits - 1, 0)).astype(u.dtype)
    r = np.left_shift(u, safe)
    r = np.where(cnt >= bits, np.zeros_like(r), r)
    return _as(r, dtype) if dtype != "bool" else (r & 1).astype(bool)


@_register("shift_right", 2, "shift_right(a, s): a >> s, arithmetic for signed and logical for "
                             "unsigned types; counts >= the bit width give 0 or -1")
def _shift_right(dtype, a, s):
    _require_int("tir.shift_right", dtype)
    bits = _sem.int_info(dtype)[0]
    x = _as(a, dtype)
    cnt = _shift_count(s)
    safe = np.minimum(cnt, max(bits - 1, 0)).astype(x.dtype if dtype != "bool" else np.uint8)
    if dtype == "bool":
        return np.where(cnt >= 1, False, x)
    r = np.right_shift(x, safe)
    fill = np.where(x < 0, np.array(-1).astype(x.dtype), np.array(0).astype(x.dtype)) \
        if _dt.is_int(dtype) else np.zeros_like(x)
    return np.where(cnt >= bits, fill, r).astype(x.dtype)


def _bitwise(name: str, ufunc, description: str) -> None:
    def fn(dtype, a, b):
        _require_int("tir." + name, dtype)
        return ufunc(_as(a, dtype), _as(b, dtype))
    _register(name, 2, description)(fn)


_bitwise("bitwise_and", np.bitwise_and, "bitwise and of the two's-complement representations")
_bitwise("bitwise_or", np.bitwise_or, "bitwise or of the two's-complement representations")
_bitwise("bitwise_xor", np.bitwise_xor, "bitwise exclusive or of the two's-complement representations")


@_register("bitwise_not", 1, "bitwise complement (~x == -x - 1 on signed types; logical not on bool)")
def _bitwise_not(dtype, a):
    _require_int("tir.bitwise_not", dtype)
    return np.invert(_as(a, dtype))


@_register("popcount", 1, "number of 1 bits in the two's-complement representation")
def _popcount(dtype, a):
    _require_int("tir.popcount", dtype)
    u = _as(a, dtype).astype(_unsigned_of(dtype)) if dtype != "bool" else _as(a, dtype).astype(np.uint8)
    return np.bitwise_count(u).astype(_np(dtype))


@_register("clz", 1, "number of leading zero bits in the dtype's width; clz(0) is the width")
def _clz(dtype, a):
    _require_int("tir.clz", dtype)
    bits = _sem.int_info(dtype)[0]
    u = _as(a, dtype).astype(_unsigned_of(dtype)).astype(np.uint64)
    n = np.zeros(u.shape, np.int64)  # bit length, by binary search over the width
    step = 32
    while step >= 1:
        big = (u >> np.uint64(step)) != 0
        n = np.where(big, n + step, n)
        u = np.where(big, u >> np.uint64(step), u)
        step //= 2
    n = n + (u != 0)
    return (bits - n).astype(_np(dtype))


__all__ = ["Intrinsic", "INTRINSICS", "canonical_name", "lookup"]

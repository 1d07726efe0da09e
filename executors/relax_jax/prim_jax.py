"""Scalar (TIR) expressions as JAX computations, with the semantics of chapter PRIM.

:class:`PrimLowering` turns a :class:`~relax_ref.ir.prim_expr.PrimExpr` into a JAX value given an
environment mapping variables to values. A value is either *static* (a Python or numpy scalar) or a
JAX array; arrays broadcast against each other, so one call evaluates an expression at every point of
an iteration domain (the vectorized TensorIR path) or at one point (scalar loops).

Static subtrees are folded with :func:`relax_ref.arith.evaluate.eval_prim`, so constants follow the
reference bit for bit. Array results have exactly the node's dtype:

* integers wrap (PRIM.INT.1); integer ``Div``/``Mod`` truncate, ``FloorDiv``/``FloorMod`` floor
  (PRIM.INT.2); a zero divisor at a point that executes is reported through the ``check`` hook as
  :class:`~relax_ref.errors.DivisionByZeroError` (PRIM.INT.3);
* float ``min``/``max`` are the selects ``a < b ? a : b`` / ``a > b ? a : b`` (PRIM.FLOAT.2);
* casts follow PRIM.CAST.1-2 (float to integer truncates; out-of-range and NaN give the minimum of the
  32- or 64-bit integer, then wrap to the target);
* ``Select`` evaluates both arms; ``if_then_else`` evaluates each arm under the mask of the points that
  take it, so checks in the untaken arm never fire (PRIM.SELECT.1);
* intrinsics (PRIM.CALL.1) are computed in the dtype (16-bit floats through float32). Transcendental
  functions use XLA's float implementations, which may differ from the reference's correctly rounded
  values in the last bits.

Hooks: ``load(node, indices, mask)`` returns the value of a ``BufferLoad`` (``indices()`` lowers its
indices: a load that needs no per-point index, a slice, need not evaluate them); ``check(bad, mask, make)``
records a run-time error condition (``make()`` builds the error).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.arith.evaluate import eval_prim
from relax_ref.arith.intrinsics import canonical_name
from relax_ref.errors import DivisionByZeroError, OpRuntimeError, RelaxRuntimeError, UnsupportedError
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

from .float_rules import plain_products, rounded_multiply

StaticTypes = (bool, int, float, np.generic)


def is_static(v: Any) -> bool:
    return isinstance(v, StaticTypes)


def np_dtype(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def const(v: Any, dtype: str) -> Any:
    """A static value as a numpy scalar of ``dtype`` (bool as ``numpy.bool_``)."""
    if dtype == "bool":
        return np.bool_(bool(v))
    t = np_dtype(dtype)
    if _dt.is_integer(dtype):
        return t.type(_dt.wrap_int(int(v), dtype))
    with np.errstate(all="ignore"):
        return t.type(v)


def as_array(v: Any, dtype: str) -> Any:
    """``v`` as a JAX value of ``dtype`` (static values stay numpy scalars of the dtype)."""
    if is_static(v):
        return const(v, dtype)
    if v.dtype != np_dtype(dtype):
        return v.astype(np_dtype(dtype))
    return v


# ---------------------------------------------------------------------------------------------------
# Casts (PRIM.CAST.1-2)
# ---------------------------------------------------------------------------------------------------


def float_to_int(x: Any, dtype: str) -> Any:
    """Float to integer: truncate; NaN and values outside the 32-bit (64-bit for 64-bit targets and
    uint32) range give that range's minimum, which then wraps to ``dtype``."""
    target = np_dtype(dtype)
    xf = jnp.asarray(x).astype(jnp.float64)
    t = jnp.trunc(xf)
    bits = _dt.bits(dtype)
    w = 64 if (bits == 64 or dtype == "uint32") else 32
    lo, hi = -(2.0 ** (w - 1)), 2.0 ** (w - 1)
    valid = (t >= lo) & (t < hi)
    ints = jnp.where(valid, t, 0.0).astype(jnp.int64)
    ints = jnp.where(valid, ints, jnp.int64(-(2 ** (w - 1))))
    if w == 32:
        ints = ints.astype(jnp.int32)
    out = ints.astype(target)
    if dtype == "uint64":
        big = (t >= 2.0 ** 63) & (t < 2.0 ** 64)
        high = jnp.where(big, t - 2.0 ** 63, 0.0).astype(jnp.int64).astype(jnp.uint64)
        out = jnp.where(big, high + jnp.uint64(2 ** 63), out)
    return out


def cast(v: Any, src: str, dst: str) -> Any:
    """``T.Cast(dst, v)`` for a value of dtype ``src``."""
    if src == dst:
        return v
    if is_static(v):
        from relax_ref.arith import semantics as _sem

        return const(_sem.cast(_static_value(v, src), src, dst), dst)
    if dst == "bool":
        return v != jnp.zeros((), v.dtype)
    if _dt.is_integer(dst) and _dt.is_float(src):
        return float_to_int(v, dst)
    return v.astype(np_dtype(dst))


def _static_value(v: Any, dtype: str) -> Any:
    if dtype == "bool":
        return bool(v)
    if _dt.is_integer(dtype):
        return int(v)
    return np_dtype(dtype).type(v)


# ---------------------------------------------------------------------------------------------------
# Intrinsics
# ---------------------------------------------------------------------------------------------------


def _wide_float(fn):
    """A float function computed in float32 for 16-bit floats and rounded back."""
    def f(dtype, x):
        if dtype in ("float16", "bfloat16"):
            return fn(x.astype(jnp.float32)).astype(np_dtype(dtype))
        return fn(x)
    return f


def _erf(x):
    return lax.erf(x)


def _sigmoid(dtype, x):
    if _dt.float32_intermediates(dtype):         # PRIM.FLOAT.7: the float32 formula, rounded once
        return _sigmoid("float32", x.astype(jnp.float32)).astype(np_dtype(dtype))
    one = const(1, dtype)
    if dtype == "float16":
        e = jnp.exp(-x.astype(jnp.float32)).astype(np_dtype(dtype))
    else:
        e = jnp.exp(-x)
    return one / (one + e)


def _rsqrt(dtype, x):
    if _dt.float32_intermediates(dtype):         # PRIM.FLOAT.7
        return _rsqrt("float32", x.astype(jnp.float32)).astype(np_dtype(dtype))
    return const(1, dtype) / jnp.sqrt(x)


def _int_abs(dtype, x):
    if _dt.is_uint(dtype) or dtype == "bool":
        return x
    return jnp.abs(x)


def _rounding(fn):
    def f(dtype, x):
        if _dt.is_float(dtype):
            return fn(x)
        return x
    return f


def _unsigned(dtype: str):
    return np.dtype(f"uint{max(_dt.bits(dtype), 8)}")


def _shift_left(dtype, a, s):
    bits = _dt.bits(dtype)
    cnt = jnp.asarray(s).astype(jnp.int64)
    u = a.astype(_unsigned(dtype)) if dtype != "bool" else a.astype(jnp.uint8)
    safe = jnp.minimum(cnt, max(bits - 1, 0)).astype(u.dtype)
    r = jnp.left_shift(u, safe)
    r = jnp.where(cnt >= bits, jnp.zeros_like(r), r)
    if dtype == "bool":
        return (r & 1).astype(bool)
    return r.astype(np_dtype(dtype))


def _shift_right(dtype, a, s):
    bits = _dt.bits(dtype)
    cnt = jnp.asarray(s).astype(jnp.int64)
    if dtype == "bool":
        return jnp.where(cnt >= 1, False, a)
    safe = jnp.minimum(cnt, max(bits - 1, 0)).astype(a.dtype)
    r = jnp.right_shift(a, safe)
    if _dt.is_int(dtype):
        fill = jnp.where(a < 0, jnp.array(-1, a.dtype), jnp.array(0, a.dtype))
    else:
        fill = jnp.zeros_like(a)
    return jnp.where(cnt >= bits, fill, r)


def _clz(dtype, a):
    bits = _dt.bits(dtype)
    u = a.astype(_unsigned(dtype)).astype(jnp.uint64)
    n = jnp.zeros(u.shape, jnp.int64)
    step = 32
    while step >= 1:
        big = (u >> jnp.uint64(step)) != 0
        n = jnp.where(big, n + step, n)
        u = jnp.where(big, u >> jnp.uint64(step), u)
        step //= 2
    n = n + (u != 0)
    return (bits - n).astype(np_dtype(dtype))


def _popcount(dtype, a):
    u = a.astype(_unsigned(dtype)) if dtype != "bool" else a.astype(jnp.uint8)
    return lax.population_count(u).astype(np_dtype(dtype))


def _isx(fn, const_val):
    def f(dtype, x):
        if jnp.issubdtype(x.dtype, jnp.floating):
            return fn(x)
        return jnp.full(jnp.shape(x), const_val, bool)
    return f


def _fma(dtype, a, b, c):
    if _dt.is_float(dtype):
        return a * b + c
    u = _unsigned(dtype)
    return (a.astype(u) * b.astype(u) + c.astype(u)).astype(np_dtype(dtype))


def _reinterpret(dtype, x):
    t = np_dtype(dtype)
    if np.dtype(x.dtype).itemsize != t.itemsize:
        raise UnsupportedError(f"tir.reinterpret from {x.dtype} to {dtype} changes the bit width")
    return lax.bitcast_convert_type(x, t)


def _ldexp(dtype, x, e):
    ex = jnp.clip(jnp.asarray(e).astype(jnp.int64), -100000, 100000).astype(jnp.int32)
    return jnp.ldexp(x, ex).astype(np_dtype(dtype))


#: name -> (fn(dtype, *args), float_only, convert float args to dtype)
INTRINSICS: Dict[str, Callable[..., Any]] = {}
_FLOAT_ONLY = set()


def _reg(name: str, fn, float_only: bool = False) -> None:
    INTRINSICS["tir." + name] = fn
    if float_only:
        _FLOAT_ONLY.add("tir." + name)


for _n, _f in [("exp", jnp.exp), ("exp2", jnp.exp2), ("log", jnp.log), ("log2", jnp.log2),
               ("log10", jnp.log10), ("log1p", jnp.log1p), ("sqrt", jnp.sqrt), ("sin", jnp.sin),
               ("cos", jnp.cos), ("tan", jnp.tan), ("sinh", jnp.sinh), ("cosh", jnp.cosh),
               ("tanh", jnp.tanh), ("asin", jnp.arcsin), ("acos", jnp.arccos), ("atan", jnp.arctan),
               ("asinh", jnp.arcsinh), ("acosh", jnp.arccosh), ("atanh", jnp.arctanh), ("erf", _erf),
               ("exp10", lambda x: jnp.power(jnp.asarray(10.0, x.dtype), x))]:
    _reg(_n, _wide_float(_f), True)
for _n, _f in [("atan2", jnp.arctan2), ("pow", jnp.power), ("hypot", jnp.hypot)]:
    _reg(_n, (lambda g: lambda dtype, a, b: (g(a.astype(jnp.float32), b.astype(jnp.float32)).astype(np_dtype(dtype))
                                             if dtype in ("float16", "bfloat16") else g(a, b)))(_f), True)
_reg("fmod", lambda dtype, a, b: jnp.fmod(a, b), True)
_reg("copysign", lambda dtype, a, b: jnp.copysign(a, b), True)
_reg("nextafter", lambda dtype, a, b: jnp.nextafter(a, b), True)
_reg("rsqrt", _rsqrt, True)
_reg("sigmoid", _sigmoid, True)
_reg("ldexp", _ldexp, True)
_reg("floor", _rounding(jnp.floor))
_reg("ceil", _rounding(jnp.ceil))
_reg("trunc", _rounding(jnp.trunc))
_reg("round", _rounding(jnp.round))
_reg("nearbyint", _rounding(jnp.round))
_reg("fabs", lambda dtype, x: jnp.abs(x) if _dt.is_float(dtype) else _int_abs(dtype, x))
_reg("abs", lambda dtype, x: jnp.abs(x) if _dt.is_float(dtype) else _int_abs(dtype, x))
_reg("isnan", _isx(jnp.isnan, False))
_reg("isinf", _isx(jnp.isinf, False))
_reg("isfinite", _isx(jnp.isfinite, True))
_reg("fma", _fma)
_reg("likely", lambda dtype, x: x)
_reg("reinterpret", _reinterpret)
_reg("shift_left", _shift_left)
_reg("shift_right", _shift_right)
_reg("bitwise_and", lambda dtype, a, b: jnp.bitwise_and(a, b))
_reg("bitwise_or", lambda dtype, a, b: jnp.bitwise_or(a, b))
_reg("bitwise_xor", lambda dtype, a, b: jnp.bitwise_xor(a, b))
_reg("bitwise_not", lambda dtype, a: jnp.invert(a))
_reg("popcount", _popcount)
_reg("clz", _clz)

#: intrinsics whose arguments keep their own dtype (not converted to the result dtype)
_OWN_ARG_DTYPES = {"tir.isnan", "tir.isinf", "tir.isfinite", "tir.reinterpret", "tir.ldexp",
                   "tir.shift_left", "tir.shift_right"}
#: intrinsics that take integer arguments only
_INT_ONLY = {"tir.shift_left", "tir.shift_right", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor",
             "tir.bitwise_not", "tir.popcount", "tir.clz"}


# ---------------------------------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------------------------------


def and_mask(mask: Any, cond: Any) -> Any:
    """Combine an execution mask with a condition (``None`` = everywhere)."""
    if mask is None:
        if is_static(cond):
            return None if bool(cond) else np.bool_(False)
        return cond
    if cond is None:
        return mask
    if is_static(cond):
        return mask if bool(cond) else np.bool_(False)
    if is_static(mask):
        return cond if bool(mask) else np.bool_(False)
    return jnp.logical_and(mask, cond)


def not_(c: Any) -> Any:
    if is_static(c):
        return np.bool_(not bool(c))
    return jnp.logical_not(c)


# ---------------------------------------------------------------------------------------------------
# The lowering
# ---------------------------------------------------------------------------------------------------

LoadHook = Callable[[tir.BufferLoad, Callable[[], list], Any], Any]
CheckHook = Callable[[Any, Any, Callable[[], Exception]], None]

_ARITH = {P.Add: "add", P.Sub: "sub", P.Mul: "mul", P.Div: "div", P.Mod: "mod", P.FloorDiv: "floordiv",
          P.FloorMod: "floormod", P.Min: "min", P.Max: "max"}
_CMP = {P.EQ: jnp.equal, P.NE: jnp.not_equal, P.LT: jnp.less, P.LE: jnp.less_equal, P.GT: jnp.greater,
        P.GE: jnp.greater_equal}
_DIV_WORD = {"div": "division", "mod": "modulo", "floordiv": "floor division", "floormod": "floor modulo"}


class PrimLowering:
    """Lower scalar expressions to JAX (see the module docstring)."""

    def __init__(self, load: Optional[LoadHook] = None, check: Optional[CheckHook] = None, scope=None) -> None:
        self.load = load
        self.check = check
        self.scope = scope
        self._fv: Dict[int, tuple] = {}
        #: the node being lowered is a float ``Mul`` whose value is used only as a factor (PRIM.FLOAT.1)
        self._factor = False

    # -- static folding -------------------------------------------------------------------------------

    def _free(self, e: P.PrimExpr) -> tuple:
        """(free variables, has loads) of ``e`` (cached by node identity)."""
        hit = self._fv.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1], hit[2]
        fv: dict = {}
        loads = False
        bound: set = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, P.PrimVar):
                fv[x] = None
            elif isinstance(x, tir.BufferLoad):
                loads = True
            elif isinstance(x, P.Let):
                bound.add(x.var)
            stack.extend(P.children(x))
        vs = tuple(v for v in fv if v not in bound)
        self._fv[id(e)] = (e, vs, loads)
        return vs, loads

    def __call__(self, e: P.PrimExpr, env: Mapping, mask: Any = None) -> Any:
        return self.lower(e, env, mask)

    def lower_factor(self, e: P.PrimExpr, env: Mapping, mask: Any = None) -> Any:
        """``lower(e)`` for an ``e`` whose value is used only as a factor of products and quotients:
        a float ``Mul`` at its top is the plain product, which no consumer can contract with an add
        (PRIM.FLOAT.1; the barrier of :func:`relax_jax.float_rules.rounded_multiply` is not needed)."""
        prev = self._factor
        self._factor = type(e) is P.Mul
        try:
            return self.lower(e, env, mask)
        finally:
            self._factor = prev

    def lower(self, e: P.PrimExpr, env: Mapping, mask: Any = None) -> Any:
        t = type(e)
        if t is P.IntImm or t is P.FloatImm:
            return const(e.value, e.dtype)
        if t is P.PrimVar:
            try:
                v = env[e]
            except KeyError:
                raise RelaxRuntimeError(f"TIR variable '{e.name}' is used but not bound", symbol=e.name) from None
            return as_array(v, e.dtype) if not is_static(v) else const(v, e.dtype)
        fv, loads = self._free(e)
        if not loads and all(is_static(env.get(v, None)) and v in env for v in fv):
            try:
                r = eval_prim(e, {v: env[v] for v in fv})
            except (DivisionByZeroError, OpRuntimeError) as err:
                if mask is not None and is_static(mask) and not bool(mask):
                    return const(0, e.dtype)
                if self.check is None:
                    raise
                self.check(np.bool_(True), mask, lambda err=err: err)
                return const(0, e.dtype)
            return const(r, e.dtype) if not isinstance(r, str) else r
        if t in _ARITH:
            return self._arith(e, _ARITH[t], env, mask)
        if t in _CMP:
            a, b = self.lower(e.a, env, mask), self.lower(e.b, env, mask)
            common = e.a.dtype
            if e.a.dtype != e.b.dtype:
                common = e.a.dtype if _dt.is_float(e.a.dtype) else e.b.dtype
                a, b = cast(a, e.a.dtype, common), cast(b, e.b.dtype, common)
            if t is P.NE and _dt.is_float(common):
                # ordered: a NaN operand gives False (PRIM.FLOAT.3)
                return jnp.logical_or(jnp.less(a, b), jnp.greater(a, b))
            return _CMP[t](a, b)
        if t is P.And:
            return jnp.logical_and(self.lower(e.a, env, mask), self.lower(e.b, env, mask))
        if t is P.Or:
            return jnp.logical_or(self.lower(e.a, env, mask), self.lower(e.b, env, mask))
        if t is P.Not:
            return jnp.logical_not(self.lower(e.a, env, mask))
        if t is P.Select:
            c = self.lower(e.condition, env, mask)
            a = cast(self.lower(e.true_value, env, mask), e.true_value.dtype, e.dtype)
            b = cast(self.lower(e.false_value, env, mask), e.false_value.dtype, e.dtype)
            return jnp.where(c, a, b).astype(np_dtype(e.dtype))
        if t is P.Cast:
            return cast(self.lower(e.value, env, mask), e.value.dtype, e.dtype)
        if t is P.Let:
            inner = dict(env)
            inner[e.var] = self.lower(e.value, env, mask)
            return self.lower(e.body, inner, mask)
        if t is P.PrimCall:
            return self._call(e, env, mask)
        if t is tir.BufferLoad:
            if self.load is None:
                raise UnsupportedError(f"cannot load from buffer '{e.buffer.name}' here")
            return self.load(e, lambda: [self.lower(i, env, mask) for i in e.indices], mask)
        raise UnsupportedError(f"cannot lower scalar expression node {t.__name__} to JAX")

    # -- arithmetic -----------------------------------------------------------------------------------

    def _arith(self, e: P.BinaryOp, op: str, env: Mapping, mask: Any) -> Any:
        d = e.dtype
        plain, self._factor = self._factor, False
        if _dt.is_float(d) and op in ("mul", "div"):
            # the operands of a float product or quotient are factors: a product among them cannot
            # become the multiply of an fma (PRIM.FLOAT.1)
            a = cast(self.lower_factor(e.a, env, mask), e.a.dtype, d)
            b = cast(self.lower_factor(e.b, env, mask), e.b.dtype, d)
        else:
            a = cast(self.lower(e.a, env, mask), e.a.dtype, d)
            b = cast(self.lower(e.b, env, mask), e.b.dtype, d)
        if _dt.is_float(d):
            if d == "float16" and op in ("add", "sub"):
                # in float32, rounded once: XLA's CPU backend (jaxlib 0.10.2) keeps a chain of float16
                # operations in float32 whatever xla_allow_excess_precision says (PRIM.FLOAT.1)
                f = jnp.add if op == "add" else jnp.subtract
                r = f(jnp.asarray(a).astype(np.float32), jnp.asarray(b).astype(np.float32))
                return lax.reduce_precision(r, exponent_bits=5, mantissa_bits=10).astype(np.float16)
            if op == "add":
                return jnp.add(a, b)
            if op == "sub":
                return jnp.subtract(a, b)
            if op == "mul":
                if plain:
                    with plain_products():
                        return rounded_multiply(a, b)
                return rounded_multiply(a, b)
            if op == "div":
                return jnp.divide(a, b).astype(np_dtype(d))
            if op == "mod":
                return jnp.fmod(a, b)
            if op == "floordiv":
                return jnp.floor(jnp.divide(a, b)).astype(np_dtype(d))
            if op == "floormod":
                return (a - rounded_multiply(jnp.floor(jnp.divide(a, b)).astype(np_dtype(d)), b)).astype(np_dtype(d))
            if op == "min":
                return jnp.where(jnp.less(a, b), a, b)
            if op == "max":
                return jnp.where(jnp.greater(a, b), a, b)
        if d == "bool":
            ia, ib = as_array(a, "int64"), as_array(b, "int64")
            sub = P.BinaryOp  # noqa: F841 - documentation: bool arithmetic is int64 arithmetic then != 0
            r = self._int_op(op, jnp.asarray(ia), jnp.asarray(ib), "int64", mask)
            return r != 0
        if not _dt.is_integer(d):
            raise UnsupportedError(f"arithmetic on data type '{d}' is not supported")
        return self._int_op(op, a, b, d, mask)

    def _int_op(self, op: str, a: Any, b: Any, d: str, mask: Any) -> Any:
        if op == "add":
            return jnp.add(a, b)
        if op == "sub":
            return jnp.subtract(a, b)
        if op == "mul":
            return jnp.multiply(a, b)
        if op == "min":
            return jnp.minimum(a, b)
        if op == "max":
            return jnp.maximum(a, b)
        # divisions: check for zero divisors at executing points, then compute with a safe divisor
        if is_static(b):
            if int(b) == 0:
                if self.check is not None:
                    self.check(np.bool_(True), mask, lambda: DivisionByZeroError(f"integer {_DIV_WORD[op]} by zero"))
                b = const(1, d)
        else:
            zero = b == 0
            if self.check is not None:
                self.check(zero, mask, lambda: DivisionByZeroError(f"integer {_DIV_WORD[op]} by zero"))
            b = jnp.where(zero, jnp.ones((), b.dtype), b)
        if _dt.is_int(d) and not (is_static(b) and int(b) != -1):
            # the most negative value divided by -1 overflows (PRIM.INT.4)
            lowest = const(_dt.min_value(d), d)
            ovf = jnp.logical_and(jnp.equal(a, lowest), jnp.equal(b, -1))
            if self.check is not None:
                word = _DIV_WORD[op]
                self.check(ovf, mask, lambda: OpRuntimeError(
                    f"{word} of the most negative {d} value by -1 overflows (PRIM.INT.4)"))
            b = jnp.where(ovf, jnp.ones((), np_dtype(d)), b)
        if op == "div":
            r = lax.div(*jnp.broadcast_arrays(jnp.asarray(a, np_dtype(d)), jnp.asarray(b, np_dtype(d))))
        elif op == "mod":
            r = lax.rem(*jnp.broadcast_arrays(jnp.asarray(a, np_dtype(d)), jnp.asarray(b, np_dtype(d))))
        elif op == "floordiv":
            r = jnp.floor_divide(a, b)
        else:
            r = jnp.remainder(a, b)
        return jnp.asarray(r).astype(np_dtype(d))

    # -- calls ------------------------------------------------------------------------------------------

    def _call(self, e: P.PrimCall, env: Mapping, mask: Any) -> Any:
        name = canonical_name(e.op)
        d = e.dtype
        if name == "tir.if_then_else":
            if len(e.args) != 3:
                raise UnsupportedError("T.if_then_else takes 3 arguments")
            c = self.lower(e.args[0], env, mask)
            if is_static(c):
                arm = e.args[1] if bool(c) else e.args[2]
                return cast(self.lower(arm, env, mask), arm.dtype, d)
            if self.scope is not None:
                with self.scope(e.args[0], True):
                    a = cast(self.lower(e.args[1], env, and_mask(mask, c)), e.args[1].dtype, d)
                with self.scope(e.args[0], False):
                    b = cast(self.lower(e.args[2], env, and_mask(mask, not_(c))), e.args[2].dtype, d)
            else:
                a = cast(self.lower(e.args[1], env, and_mask(mask, c)), e.args[1].dtype, d)
                b = cast(self.lower(e.args[2], env, and_mask(mask, not_(c))), e.args[2].dtype, d)
            return jnp.where(c, a, b).astype(np_dtype(d))
        if name in ("tir.max_value", "tir.min_value", "tir.infinity"):
            from relax_ref.arith.intrinsics import lookup as _lookup

            return const(_lookup(name)(d)[()] if hasattr(_lookup(name)(d), "shape") else _lookup(name)(d), d)
        fn = INTRINSICS.get(name)
        if fn is None:
            raise UnsupportedError(f"TIR intrinsic '{e.op}' is not supported by the JAX executor")
        if name in _FLOAT_ONLY and not _dt.is_float(d):
            raise UnsupportedError(f"'{name}' is defined for floating-point results only, not {d}")
        if name in _INT_ONLY and not (_dt.is_integer(d) or d == "bool"):
            raise UnsupportedError(f"'{name}' is defined for integer types only, not {d}")
        args = []
        for a in e.args:
            v = self.lower(a, env, mask)
            if name not in _OWN_ARG_DTYPES:
                v = cast(v, a.dtype, d) if (_dt.is_float(a.dtype) or _dt.is_integer(a.dtype) or
                                            a.dtype == "bool") else v
            args.append(jnp.asarray(v))
        if name in ("tir.shift_left", "tir.shift_right"):
            bits = _dt.bits(d) if d != "bool" else 1
            cnt = args[1]
            if self.check is not None:
                self.check((cnt < 0) | (cnt >= bits), mask, lambda: OpRuntimeError(
                    f"shift amount is out of range [0, {bits}) for {d} (PRIM.INT.7)"))
            args[0] = as_array(args[0], d)
        r = fn(d, *args)
        return jnp.asarray(r).astype(np_dtype(d))


__all__ = ["PrimLowering", "cast", "float_to_int", "const", "as_array", "is_static", "and_mask", "not_",
           "np_dtype", "INTRINSICS"]

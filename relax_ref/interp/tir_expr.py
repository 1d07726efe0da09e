"""Scalar TensorIR expressions compiled to Python closures (TIR.EXPR.*, semantics PRIM.*).

:func:`compile_scalar` turns a :class:`~relax_ref.ir.prim_expr.PrimExpr` into a function
``f(env) -> value`` that computes exactly what :func:`relax_ref.arith.evaluate.eval_prim` computes
(the shared semantics live in :mod:`relax_ref.arith.semantics` and the intrinsic table
:data:`relax_ref.arith.intrinsics.INTRINSICS`); compiling once per PrimFunc keeps the scalar loop
interpreter fast. Value representation (PRIM.EVAL.1): ``int`` (already wrapped) for integer dtypes,
``bool`` for bool, a numpy scalar of the dtype for floats.

Buffer loads are bounds-checked (TIR.BOUNDS.1) and raise :class:`~relax_ref.errors.TIRBoundsError`
naming the buffer, the indices and the shape; integer division by zero raises
:class:`~relax_ref.errors.DivisionByZeroError` (PRIM.INT.3). ``Select`` evaluates both arms,
``if_then_else`` only the taken one; ``And``/``Or`` evaluate both operands (PRIM.BOOL.1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Dict

import numpy as np

from ..arith import semantics as _sem
from ..arith.intrinsics import canonical_name, lookup as _lookup_intrinsic
from ..errors import OpRuntimeError, RelaxRuntimeError, UnsupportedError, WellFormedError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir import tir
from .tir_buffers import bounds_error, buffer_array
from .tir_packed import MAKE_ARRAY, MAKE_SHAPE, PACKED_CALLS, compile_make_array, compile_packed_call, compile_shape
from ..values import ShapeValue

Fn = Callable[[Dict], Any]


def is_int_dtype(d: str) -> bool:
    return _dt.is_integer(d)


def coerce(v: Any, dtype: str) -> Any:
    """Canonical scalar representation of ``v`` for ``dtype`` (see module docstring)."""
    return _sem.to_value(v, dtype)


def const_value(e: P.PrimExpr) -> Any:
    if isinstance(e, P.IntImm):
        return bool(e.value) if e.dtype == "bool" else e.value
    if isinstance(e, P.FloatImm):
        with np.errstate(over="ignore"):
            return _sem.float_type(e.dtype)(e.value)
    raise TypeError(e)


def _var(v: P.PrimVar) -> Fn:
    def f(env):
        try:
            return env[v]
        except KeyError:
            raise RelaxRuntimeError(f"TIR variable '{v.name}' is used but not bound", symbol=v.name) from None
    return f


def _converted(fn: Fn, src: str, dst: str) -> Fn:
    """``fn``'s value converted from ``src`` to ``dst`` (used where the IR mixes dtypes)."""
    if src == dst:
        return fn
    return lambda env: _sem.cast(fn(env), src, dst)


# ---------------------------------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------------------------------


def _int_arith(op: str, fa: Fn, fb: Fn, d: str) -> Fn:
    lo, hi = (_sem.int_info(d)[2], _sem.int_info(d)[3]) if d != "bool" else (0, 1)
    wrap = _sem.wrap
    as_bool = d == "bool"

    def fin(r):
        if lo <= r <= hi:
            return bool(r) if as_bool else r
        r = wrap(r, d)
        return bool(r) if as_bool else r

    if op == "add":
        return lambda env: fin(fa(env) + fb(env))
    if op == "sub":
        return lambda env: fin(fa(env) - fb(env))
    if op == "mul":
        return lambda env: fin(fa(env) * fb(env))
    if op == "min":
        def fmin(env):
            a, b = fa(env), fb(env)
            return a if a <= b else b
        return fmin
    if op == "max":
        def fmax(env):
            a, b = fa(env), fb(env)
            return a if a >= b else b
        return fmax
    sem = {"div": _sem.truncdiv, "mod": _sem.truncmod, "floordiv": _sem.floordiv,
           "floormod": _sem.floormod}[op]
    lowest = _dt.min_value(d) if _dt.is_int(d) else None

    def fdiv(env):
        a, b = int(fa(env)), int(fb(env))
        if b == -1 and a == lowest:
            raise OpRuntimeError(f"{_DIV_NAMES[op]} of the most negative {d} value by -1 overflows "
                                 "(PRIM.INT.4)")
        r = sem(a, b, d)
        return bool(r) if as_bool else r
    return fdiv


#: what the run-time errors of integer division call each operation
_DIV_NAMES = {"div": "division", "mod": "modulo", "floordiv": "floor division", "floormod": "floor modulo"}
_SHIFTS = ("tir.shift_left", "tir.shift_right")


def shift_count_error(dtype: str, count: Any) -> OpRuntimeError:
    """The error for a shift amount outside ``[0, bits)`` (PRIM.INT.7)."""
    return OpRuntimeError(f"shift amount {int(count)} is out of range [0, {_sem.int_info(dtype)[0]}) for "
                          f"{dtype} (PRIM.INT.7)")


def _float_arith(op: str, fa: Fn, fb: Fn, d: str) -> Fn:
    if op == "add":
        return lambda env: fa(env) + fb(env)
    if op == "sub":
        return lambda env: fa(env) - fb(env)
    if op == "mul":
        return lambda env: fa(env) * fb(env)
    if op == "div":
        return lambda env: fa(env) / fb(env)
    if op == "min":
        def fmin(env):
            a, b = fa(env), fb(env)
            return a if a < b else b
        return fmin
    if op == "max":
        def fmax(env):
            a, b = fa(env), fb(env)
            return a if a > b else b
        return fmax
    fb_ = _sem.float_binary
    return lambda env: fb_(op, fa(env), fb(env), d)


_ARITH = {P.Add: "add", P.Sub: "sub", P.Mul: "mul", P.Div: "div", P.Mod: "mod", P.FloorDiv: "floordiv",
          P.FloorMod: "floormod", P.Min: "min", P.Max: "max"}

_CMP = {P.EQ: lambda a, b: a == b, P.NE: lambda a, b: a != b, P.LT: lambda a, b: a < b,
        P.LE: lambda a, b: a <= b, P.GT: lambda a, b: a > b, P.GE: lambda a, b: a >= b}


def _ordered_ne(a, b) -> bool:
    """Float ``NE`` is the ordered comparison, as TVM's code generator emits it (``fcmp one``): any
    NaN operand makes it False (PRIM.FLOAT.3)."""
    return bool(a < b or a > b)


def _intrinsic_arg(fn: Fn, dtype: str) -> Fn:
    if dtype == "bool":
        return lambda env: np.bool_(fn(env))
    if _dt.is_integer(dtype):
        t = _dt.to_numpy(dtype).type
        return lambda env: t(fn(env))
    return fn


class CachedCompiler(ABC):
    """Compiles every expression node once: ``compile(e)`` returns the closure ``_compile(e)`` made
    the first time it met this very node (by identity; the node is kept alive with its closure)."""

    def __init__(self) -> None:
        self._cache: Dict[int, tuple] = {}

    def compile(self, e: P.PrimExpr) -> Any:
        hit = self._cache.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        fn = self._compile(e)
        self._cache[id(e)] = (e, fn)
        return fn

    @abstractmethod
    def _compile(self, e: P.PrimExpr) -> Any:
        """The closure that evaluates ``e``."""

    @staticmethod
    @abstractmethod
    def convert(fn: Any, src: str, dst: str) -> Any:
        """The closure ``fn`` with its value converted from ``src`` to ``dst``."""

    def comparison_operands(self, e: P.PrimExpr):
        """The compiled operands of the comparison ``e`` in their common dtype (a float operand's when
        the dtypes differ), and that dtype."""
        fa, fb = self.compile(e.a), self.compile(e.b)
        common = e.a.dtype
        if e.a.dtype != e.b.dtype:
            common = e.a.dtype if _dt.is_float(e.a.dtype) else e.b.dtype
            fa, fb = self.convert(fa, e.a.dtype, common), self.convert(fb, e.b.dtype, common)
        return fa, fb, common

    def if_then_else_operands(self, e: P.PrimCall):
        """The compiled condition and branches of ``T.if_then_else`` (branches in the call's dtype)."""
        if len(e.args) != 3:
            raise UnsupportedError("T.if_then_else takes 3 arguments")
        c, t, f = e.args
        return self.compile(c), self.convert(self.compile(t), t.dtype, e.dtype), \
            self.convert(self.compile(f), f.dtype, e.dtype)


class ScalarCompiler(CachedCompiler):
    """Compiles scalar expressions; ``span`` (optional) is attached to the errors raised."""

    convert = staticmethod(_converted)

    def _compile(self, e: P.PrimExpr) -> Fn:
        if isinstance(e, (P.IntImm, P.FloatImm)):
            c = const_value(e)
            return lambda env: c
        if isinstance(e, P.PrimStringImm):
            s = e.value
            return lambda env: s
        if isinstance(e, P.PrimVar):
            return _var(e)
        t = type(e)
        if t in _ARITH:
            d = e.dtype
            fa = _converted(self.compile(e.a), e.a.dtype, d)
            fb = _converted(self.compile(e.b), e.b.dtype, d)
            if _dt.is_float(d):
                return _float_arith(_ARITH[t], fa, fb, d)
            if _dt.is_integer(d) or d == "bool":
                return _int_arith(_ARITH[t], fa, fb, d)
            raise UnsupportedError(f"arithmetic on data type '{d}' is not supported")
        if t in _CMP:
            cmp = _CMP[t]
            fa, fb, common = self.comparison_operands(e)
            if t is P.NE and _dt.is_float(common):
                cmp = _ordered_ne
            return lambda env: bool(cmp(fa(env), fb(env)))
        if t is P.And:
            fa, fb = self.compile(e.a), self.compile(e.b)

            def fand(env):
                a = fa(env)
                b = fb(env)
                return bool(a) and bool(b)
            return fand
        if t is P.Or:
            fa, fb = self.compile(e.a), self.compile(e.b)

            def f_or(env):
                a = fa(env)
                b = fb(env)
                return bool(a) or bool(b)
            return f_or
        if t is P.Not:
            fa = self.compile(e.a)
            return lambda env: not fa(env)
        if t is P.Select:
            fc = self.compile(e.condition)
            ft = _converted(self.compile(e.true_value), e.true_value.dtype, e.dtype)
            ff = _converted(self.compile(e.false_value), e.false_value.dtype, e.dtype)

            def fsel(env):
                c = fc(env)
                a = ft(env)
                b = ff(env)
                return a if c else b
            return fsel
        if t is P.Cast:
            fv = self.compile(e.value)
            src, dst = e.value.dtype, e.dtype
            cast = _sem.cast
            return lambda env: cast(fv(env), src, dst)
        if t is P.Let:
            fv = self.compile(e.value)
            fbody = self.compile(e.body)
            var = e.var

            def flet(env):
                v = fv(env)
                missing = var not in env
                old = env.get(var)
                env[var] = v
                try:
                    return fbody(env)
                finally:
                    if missing:
                        del env[var]
                    else:
                        env[var] = old
            return flet
        if t is P.PrimCall:
            return self._call(e)
        if t is tir.BufferLoad:
            return self._load(e)
        raise UnsupportedError(f"cannot evaluate TensorIR expression node {t.__name__}")

    # -- intrinsic calls --------------------------------------------------------------------------

    def _call(self, e: P.PrimCall) -> Fn:
        name = canonical_name(e.op)
        d = e.dtype
        if name == "tir.if_then_else":
            fc, ft, ff = self.if_then_else_operands(e)
            return lambda env: ft(env) if fc(env) else ff(env)
        if name == "tir.likely" and len(e.args) == 1:
            return self.compile(e.args[0])
        if name in PACKED_CALLS:
            return compile_packed_call(self.compile, e)
        if name == MAKE_ARRAY:
            return compile_make_array(self.compile, e)
        if name == MAKE_SHAPE:
            shape = compile_shape(self.compile, e)
            return lambda env: ShapeValue(shape(env))
        try:
            intr = _lookup_intrinsic(name)
        except UnsupportedError as err:
            msg = err.message

            def unsupported(env):
                raise UnsupportedError(msg)
            return unsupported
        args = [_intrinsic_arg(self.compile(a), a.dtype) for a in e.args]
        if name in _SHIFTS and len(args) == 2 and (_dt.is_integer(d) or d == "bool"):
            bits = _sem.int_info(d)[0]
            fx, fs = args

            def shift(env):
                x, s = fx(env), fs(env)
                if not 0 <= int(s) < bits:
                    raise shift_count_error(d, s)
                return _sem.from_intrinsic(intr(d, x, s), d)
            return shift
        if len(args) == 1:
            a0 = args[0]
            return lambda env: _sem.from_intrinsic(intr(d, a0(env)), d)
        return lambda env: _sem.from_intrinsic(intr(d, *[a(env) for a in args]), d)

    # -- buffer loads -----------------------------------------------------------------------------

    def _load(self, e: tir.BufferLoad) -> Fn:
        buf = e.buffer
        idx = [self.compile(i) for i in e.indices]
        d = buf.dtype
        if _dt.is_integer(d):
            conv = int
        elif d == "bool":
            conv = bool
        else:
            conv = None

        def fail(arr, ix):
            raise bounds_error(buf, ix, arr.shape, write=False)

        def get(env):
            try:
                return env[buf]
            except KeyError:
                return buffer_array(env, buf)

        n = len(idx)
        if n == 1:
            f0 = idx[0]

            def load1(env):
                arr = get(env)
                i = f0(env)
                if not 0 <= i < arr.shape[0]:
                    fail(arr, (i,))
                v = arr[i]
                return conv(v) if conv is not None else v
            return load1
        if n == 2:
            f0, f1 = idx

            def load2(env):
                arr = get(env)
                i, j = f0(env), f1(env)
                s = arr.shape
                if not (0 <= i < s[0] and 0 <= j < s[1]):
                    fail(arr, (i, j))
                v = arr[i, j]
                return conv(v) if conv is not None else v
            return load2

        def loadn(env):
            arr = get(env)
            ix = tuple(f(env) for f in idx)
            if len(ix) != arr.ndim:
                raise WellFormedError(
                    f"buffer '{buf.name}' of rank {arr.ndim} is accessed with {len(ix)} indices (WF.TIR.4)")
            for i, s in zip(ix, arr.shape):
                if not 0 <= i < s:
                    fail(arr, ix)
            v = arr[ix]
            return conv(v) if conv is not None else v
        return loadn


def compile_scalar(e: P.PrimExpr) -> Fn:
    """A closure computing ``e`` (one-off compilation; :class:`ScalarCompiler` shares work)."""
    return ScalarCompiler().compile(e)


__all__ = ["ScalarCompiler", "compile_scalar", "coerce", "const_value", "is_int_dtype"]

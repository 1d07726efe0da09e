"""TensorIR expressions evaluated on whole numpy arrays (the vectorized path, TIR.VEC.*).

:class:`ArrayCompiler` turns a scalar expression into ``f(aenv, mask) -> value`` where every free
variable may be bound to a numpy array (one element per point of an iteration domain, laid out so that
arrays broadcast against each other) or to a numpy scalar. The result is, element by element, exactly
what the scalar evaluator (:mod:`relax_ref.interp.tir_expr`) computes for each point.

``mask`` (``None`` = every point) marks the points whose evaluation actually happens in the scalar
program: points outside it (a false block predicate, the untaken arm of ``if_then_else``) must not
raise. Bounds checks (TIR.BOUNDS.1) and division-by-zero checks (PRIM.INT.3) therefore consider only
masked-in points; for the others, out-of-range indices are clamped and zero divisors replaced so that
numpy can compute a (discarded) value.

Values are numpy arrays or numpy scalars of exactly the node's dtype.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import numpy as np

from ..arith import semantics as _sem
from ..arith.intrinsics import canonical_name, lookup as _lookup_intrinsic
from ..errors import DivisionByZeroError, OpRuntimeError, RelaxRuntimeError, UnsupportedError, WellFormedError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir import tir
from .tir_buffers import bounds_error, buffer_array
from .tir_expr import CachedCompiler, shift_count_error

AFn = Callable[["ArrayEnv", Any], Any]


class Register:
    """A written buffer promoted to one private element per domain point (see tir_vectorize)."""

    __slots__ = ("buffer", "acc", "oob", "index", "written")

    def __init__(self, buffer, acc, oob, index, written):
        self.buffer = buffer
        self.acc = acc          # array, one element per point of the spatial domain
        self.oob = oob          # bool array (out-of-bounds points) or None
        self.index = index      # tuple of index arrays (for error messages)
        self.written = written  # bool array: points whose element was stored to


class ArrayEnv:
    """Variables (arrays or numpy scalars), the scalar environment (buffers) and registers.

    ``axes`` maps ``id(array)`` of each loop-variable array to ``(array, position, start, count)``:
    the array holds ``start, start + 1, ...`` along layout axis ``position`` (of ``ndim`` axes). Loads
    indexed only by such arrays and scalars become views (no gather)."""

    __slots__ = ("vars", "env", "regs", "axes", "ndim")

    def __init__(self, vars: Dict, env: Dict, regs: Optional[Dict] = None, ndim: int = 0):
        self.vars = vars
        self.env = env
        self.regs = regs or {}
        self.axes: Dict[int, tuple] = {}
        self.ndim = ndim


def np_scalar(v: Any, dtype: str) -> Any:
    """A numpy scalar of ``dtype`` for a canonical scalar value."""
    return _dt.to_numpy(dtype).type(v)


def and_mask(mask, cond):
    """Combine a mask with a condition (either may be None / a numpy bool / an array)."""
    if mask is None:
        return cond
    if cond is None:
        return mask
    return np.logical_and(mask, cond)


def any_in(bad, mask) -> bool:
    """Whether any point is both ``bad`` and in ``mask``."""
    if mask is None:
        return bool(np.any(bad))
    return bool(np.any(np.logical_and(bad, mask)))


def first_point(bad, mask, arrays):
    """The values of ``arrays`` at the first point (C order) that is bad and masked in."""
    sel = bad if mask is None else np.logical_and(bad, mask)
    shape = np.broadcast_shapes(np.shape(sel), *[np.shape(a) for a in arrays])
    sel = np.broadcast_to(sel, shape)
    pos = int(np.flatnonzero(sel)[0])
    at = np.unravel_index(pos, shape) if shape else ()
    return tuple(int(np.broadcast_to(a, shape)[at]) for a in arrays)


def _view_load(arr: np.ndarray, ix, ae: "ArrayEnv"):
    """``arr[ix]`` as a view when every index is a scalar or a loop-variable array that stays in
    bounds (each layout axis at most once); None otherwise."""
    sl = []
    pos_list = []
    for i, n in zip(ix, arr.shape):
        if isinstance(i, np.ndarray) and i.ndim:
            info = ae.axes.get(id(i))
            if info is None or info[0] is not i:
                return None
            _, pos, lo, cnt = info
            if lo < 0 or lo + cnt > n or pos in pos_list:
                return None
            sl.append(slice(lo, lo + cnt))
            pos_list.append(pos)
        else:
            k = int(i)
            if not 0 <= k < n:
                return None
            sl.append(k)
    v = arr[tuple(sl)]
    if not pos_list:
        return v
    order = sorted(range(len(pos_list)), key=lambda j: pos_list[j])
    if order != list(range(len(order))):
        v = v.transpose(order)
    shape = [1] * ae.ndim
    for p, n in zip(sorted(pos_list), v.shape):
        shape[p] = n
    return v.reshape(shape)


def _cast_array(x, src: str, dst: str):
    if src == dst:
        return x
    if dst == "bool":
        return np.not_equal(x, 0)
    a = np.asarray(x)
    if _dt.is_integer(dst) and _dt.is_float(src):
        r = _sem.float_to_int(a, dst)
    else:
        r = a.astype(_dt.to_numpy(dst))
    return r[()] if r.ndim == 0 else r


def _converted(fn: AFn, src: str, dst: str) -> AFn:
    if src == dst:
        return fn
    return lambda ae, m: _cast_array(fn(ae, m), src, dst)


def _safe_divisor(b, mask, what):
    zero = np.equal(b, 0)
    if np.any(zero):
        if any_in(zero, mask):
            raise DivisionByZeroError(f"integer {what} by zero")
        b = np.where(zero, np.ones_like(b), b)
    return b


def _int_div(op: str, d: str) -> Callable:
    t = _dt.to_numpy(d)
    lowest = _dt.min_value(d) if _dt.is_int(d) else None
    what = {"div": "division", "mod": "modulo", "floordiv": "floor division", "floormod": "floor modulo"}[op]

    def f(a, b, mask):
        b = _safe_divisor(b, mask, what)
        if lowest is not None:
            # the most negative value by -1 overflows: an error at the points that execute (PRIM.INT.4)
            ovf = np.logical_and(np.equal(a, lowest), np.equal(b, -1))
            if np.any(ovf):
                if any_in(ovf, mask):
                    raise OpRuntimeError(f"{what} of the most negative {d} value by -1 overflows (PRIM.INT.4)")
                b = np.where(ovf, np.ones_like(b), b)
        if op == "floordiv":
            r = np.floor_divide(a, b)
        elif op == "floormod":
            r = np.remainder(a, b)
        elif op == "mod":
            r = np.fmod(a, b)
        else:
            q = np.floor_divide(a, b)
            r_ = a - q * b
            fix = np.logical_and(np.not_equal(r_, 0), np.not_equal(np.less(a, 0), np.less(b, 0)))
            r = q + fix.astype(t)
        r = np.asarray(r).astype(t, copy=False)
        return r[()] if r.ndim == 0 else r
    return f


_ARITH = {P.Add: "add", P.Sub: "sub", P.Mul: "mul", P.Div: "div", P.Mod: "mod", P.FloorDiv: "floordiv",
          P.FloorMod: "floormod", P.Min: "min", P.Max: "max"}
_CMP = {P.EQ: np.equal, P.NE: np.not_equal, P.LT: np.less, P.LE: np.less_equal, P.GT: np.greater,
        P.GE: np.greater_equal}


def _ordered_not_equal(a, b):
    """Float ``NE`` on arrays: ordered, so a NaN operand gives False, as in TVM's generated code
    (PRIM.FLOAT.3)."""
    return np.logical_or(np.less(a, b), np.greater(a, b))


def _fix(r, t):
    """Make sure a numpy result has dtype ``t`` (numpy may promote scalars)."""
    if isinstance(r, np.ndarray):
        return r if r.dtype == t else r.astype(t)
    return t.type(r) if not isinstance(r, t.type) else r


class ArrayCompiler(CachedCompiler):
    """Compiles expressions for array evaluation. ``registers``: buffers whose loads read the
    promoted per-point register instead of memory (see :mod:`relax_ref.interp.tir_vectorize`)."""

    convert = staticmethod(_converted)

    def __init__(self, registers=()) -> None:
        super().__init__()
        self.registers = set(id(b) for b in registers)

    def _compile(self, e: P.PrimExpr) -> AFn:
        t = type(e)
        if t in (P.IntImm, P.FloatImm):
            if e.dtype == "bool":
                c = np.bool_(e.value)
            elif t is P.IntImm:
                c = np_scalar(e.value, e.dtype)
            else:
                with np.errstate(over="ignore"):
                    c = _sem.float_type(e.dtype)(e.value)
            return lambda ae, m: c
        if t is P.PrimVar:
            v = e

            def var(ae, m):
                try:
                    return ae.vars[v]
                except KeyError:
                    raise RelaxRuntimeError(f"TIR variable '{v.name}' is used but not bound",
                                            symbol=v.name) from None
            return var
        if t in _ARITH:
            return self._arith(e, _ARITH[t])
        if t in _CMP:
            ufunc = _CMP[t]
            fa, fb, common = self.comparison_operands(e)
            if t is P.NE and _dt.is_float(common):
                ufunc = _ordered_not_equal
            return lambda ae, m: ufunc(fa(ae, m), fb(ae, m))
        if t is P.And:
            fa, fb = self.compile(e.a), self.compile(e.b)
            return lambda ae, m: np.logical_and(fa(ae, m), fb(ae, m))
        if t is P.Or:
            fa, fb = self.compile(e.a), self.compile(e.b)
            return lambda ae, m: np.logical_or(fa(ae, m), fb(ae, m))
        if t is P.Not:
            fa = self.compile(e.a)
            return lambda ae, m: np.logical_not(fa(ae, m))
        if t is P.Select:
            fc = self.compile(e.condition)
            ft = _converted(self.compile(e.true_value), e.true_value.dtype, e.dtype)
            ff = _converted(self.compile(e.false_value), e.false_value.dtype, e.dtype)
            nt = _dt.to_numpy(e.dtype)

            def select(ae, m):
                c = fc(ae, m)
                a = ft(ae, m)
                b = ff(ae, m)
                if not isinstance(c, np.ndarray):
                    return a if c else b
                return _fix(np.where(c, a, b), nt)
            return select
        if t is P.Cast:
            fv = self.compile(e.value)
            src, dst = e.value.dtype, e.dtype
            return lambda ae, m: _cast_array(fv(ae, m), src, dst)
        if t is P.Let:
            fv, fbody, var = self.compile(e.value), self.compile(e.body), e.var

            def let(ae, m):
                val = fv(ae, m)
                had = var in ae.vars
                old = ae.vars.get(var)
                ae.vars[var] = val
                try:
                    return fbody(ae, m)
                finally:
                    if had:
                        ae.vars[var] = old
                    else:
                        del ae.vars[var]
            return let
        if t is P.PrimCall:
            return self._call(e)
        if t is tir.BufferLoad:
            return self._load(e)
        if t is P.PrimStringImm:
            raise UnsupportedError("string immediates have no array value")
        raise UnsupportedError(f"cannot evaluate TensorIR expression node {t.__name__} on arrays")

    def _arith(self, e: P.BinaryOp, op: str) -> AFn:
        d = e.dtype
        fa = _converted(self.compile(e.a), e.a.dtype, d)
        fb = _converted(self.compile(e.b), e.b.dtype, d)
        nt = _dt.to_numpy(d)
        if _dt.is_float(d):
            simple = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
            if op in simple:
                uf = simple[op]
                return lambda ae, m: _fix(uf(fa(ae, m), fb(ae, m)), nt)
            if op == "min":
                def fmin(ae, m):
                    a, b = fa(ae, m), fb(ae, m)
                    return _fix(np.where(np.less(a, b), a, b), nt)
                return fmin
            if op == "max":
                def fmax(ae, m):
                    a, b = fa(ae, m), fb(ae, m)
                    return _fix(np.where(np.greater(a, b), a, b), nt)
                return fmax
            fbin = _sem.float_binary
            return lambda ae, m: fbin(op, fa(ae, m), fb(ae, m), d)
        if not (_dt.is_integer(d) or d == "bool"):
            raise UnsupportedError(f"arithmetic on data type '{d}' is not supported")
        if d == "bool":
            wide = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum,
                    "max": np.maximum}
            if op in wide:
                uf = wide[op]
                return lambda ae, m: np.not_equal(
                    uf(np.asarray(fa(ae, m), np.int64), np.asarray(fb(ae, m), np.int64)), 0)[()]
            div = _int_div(op, "int64")
            return lambda ae, m: np.not_equal(
                div(np.asarray(fa(ae, m), np.int64), np.asarray(fb(ae, m), np.int64), m), 0)[()]
        simple = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum,
                  "max": np.maximum}
        if op in simple:
            uf = simple[op]
            return lambda ae, m: _fix(uf(fa(ae, m), fb(ae, m)), nt)
        div = _int_div(op, d)
        return lambda ae, m: div(fa(ae, m), fb(ae, m), m)

    def _call(self, e: P.PrimCall) -> AFn:
        name = canonical_name(e.op)
        d = e.dtype
        nt = _dt.to_numpy(d)
        if name == "tir.if_then_else":
            fc, ft, ff = self.if_then_else_operands(e)

            def ite(ae, m):
                c = fc(ae, m)
                if not isinstance(c, np.ndarray):
                    return ft(ae, m) if c else ff(ae, m)
                a = ft(ae, and_mask(m, c))
                b = ff(ae, and_mask(m, np.logical_not(c)))
                return _fix(np.where(c, a, b), nt)
            return ite
        if name == "tir.likely" and len(e.args) == 1:
            return self.compile(e.args[0])
        intr = _lookup_intrinsic(name)  # UnsupportedError: the caller falls back to the scalar path
        args = [self.compile(a) for a in e.args]
        if name in ("tir.shift_left", "tir.shift_right") and len(args) == 2 and (_dt.is_integer(d) or d == "bool"):
            bits = _sem.int_info(d)[0]
            fx, fs = args

            def shift(ae, m):
                x, s = fx(ae, m), fs(ae, m)
                bad = np.logical_or(np.less(s, 0), np.greater_equal(s, bits))
                if np.any(bad):
                    if any_in(bad, m):
                        raise shift_count_error(d, first_point(bad, m, [s])[0])
                    s = np.where(bad, np.zeros_like(s), s)  # points that do not execute (TIR.VEC.5)
                return _fix(intr(d, x, s), nt)
            return shift
        return lambda ae, m: _fix(intr(d, *[a(ae, m) for a in args]), nt)

    def _load(self, e: tir.BufferLoad) -> AFn:
        buf = e.buffer
        if id(buf) in self.registers:
            def reg_load(ae, m):
                reg = ae.regs[buf]
                if reg.oob is not None and any_in(reg.oob, m):
                    raise bounds_error(buf, first_point(reg.oob, m, reg.index),
                                       buffer_array(ae.env, buf).shape, write=False)
                return reg.acc
            return reg_load
        idx = [self.compile(i) for i in e.indices]

        def load(ae, m):
            arr = buffer_array(ae.env, buf)
            ix = [f(ae, m) for f in idx]
            if len(ix) != arr.ndim:
                raise WellFormedError(
                    f"buffer '{buf.name}' of rank {arr.ndim} is accessed with {len(ix)} indices (WF.TIR.4)")
            if ae.axes:
                v = _view_load(arr, ix, ae)
                if v is not None:
                    return v
            bad = None
            for i, n in zip(ix, arr.shape):
                b = np.logical_or(np.less(i, 0), np.greater_equal(i, n))
                bad = b if bad is None else np.logical_or(bad, b)
            if bad is not None and np.any(bad):
                if any_in(bad, m):
                    raise bounds_error(buf, first_point(bad, m, ix), arr.shape, write=False)
                ix = [np.clip(i, 0, max(n - 1, 0)) for i, n in zip(ix, arr.shape)]
                if any(n == 0 for n in arr.shape):
                    # every point is masked out and the buffer is empty: any value will do
                    return np.zeros(np.broadcast_shapes(*[np.shape(i) for i in ix]), arr.dtype)
            return arr[tuple(ix)]
        return load


__all__ = ["ArrayCompiler", "ArrayEnv", "Register", "np_scalar", "and_mask", "any_in", "first_point"]

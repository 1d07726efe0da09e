"""Exact evaluation of scalar (TIR) expressions (spec chapter PRIM).

:func:`eval_prim` computes the value of a :class:`~relax_ref.ir.prim_expr.PrimExpr` under an
environment mapping :class:`PrimVar` to values, with TIR semantics (rules in
:mod:`relax_ref.arith.semantics`):

* integers wrap to the node's dtype (PRIM.INT.1); ``FloorDiv``/``FloorMod`` floor, integer ``Div``/``Mod``
  truncate (PRIM.INT.2); integer division by zero raises DivisionByZeroError (PRIM.INT.3);
* float arithmetic happens in the node's dtype (PRIM.FLOAT.1-2);
* comparisons, ``And``, ``Or`` and ``Not`` give ``bool`` (PRIM.BOOL.1); both operands of ``And``/``Or``
  are evaluated (no short circuit, as in TVM's code generation);
* ``Select`` evaluates both arms, the intrinsic ``tir.if_then_else`` only the taken one (PRIM.SELECT.1);
* ``Let`` binds its variable for the body (PRIM.LET.1); a ``BufferLoad`` asks the ``load`` callback
  (PRIM.LOAD.1); intrinsic calls use :data:`relax_ref.arith.intrinsics.INTRINSICS` (PRIM.CALL.1).

Results: ``int`` for integer dtypes, ``bool`` for bool, a numpy scalar of the dtype for floats
(``numpy.float32``, ``ml_dtypes.bfloat16``, ...), ``str`` for string immediates. Environment values
may be Python or numpy scalars; they are coerced to the variable's dtype (an int variable accepts only
integral values).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import numpy as np

from ..errors import RelaxError, RelaxRuntimeError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import prim_expr as P
from ..ir import tir
from . import semantics as _sem
from .intrinsics import lookup as _lookup_intrinsic

LoadFn = Callable[[Any, tuple], Any]


class _Evaluator:
    __slots__ = ("env", "load")

    def __init__(self, env: Mapping, load: Optional[LoadFn]):
        self.env = env
        self.load = load

    def ev(self, e: P.PrimExpr) -> Any:
        fn = _DISPATCH.get(type(e))
        if fn is None:
            raise UnsupportedError(f"cannot evaluate scalar expression node {type(e).__name__}")
        return fn(self, e)

    # -- leaves ----------------------------------------------------------------------------------

    def int_imm(self, e: P.IntImm) -> Any:
        return bool(e.value) if e.dtype == "bool" else e.value

    def float_imm(self, e: P.FloatImm) -> Any:
        with np.errstate(over="ignore"):
            return _sem.float_type(e.dtype)(e.value)

    def string_imm(self, e: P.PrimStringImm) -> Any:
        return e.value

    def var(self, e: P.PrimVar) -> Any:
        try:
            v = self.env[e]
        except KeyError:
            raise RelaxRuntimeError(f"symbolic variable '{e.name}' has no value", symbol=e.name) from None
        try:
            return _sem.to_value(v, e.dtype)
        except RelaxError as err:
            raise err.with_context(symbol=e.name)

    # -- arithmetic --------------------------------------------------------------------------------

    def _binary(self, e: P.BinaryOp, int_fn, float_op: str) -> Any:
        a, b = self.ev(e.a), self.ev(e.b)
        d = e.dtype
        if _dt.is_float(d):
            return _sem.float_binary(float_op, _sem.to_value(a, d), _sem.to_value(b, d), d)
        if d == "bool" or _dt.is_integer(d):
            r = int_fn(int(a), int(b), d)
            return bool(r) if d == "bool" else r
        raise UnsupportedError(f"arithmetic on data type '{d}' is not supported")

    def add(self, e):
        return self._binary(e, lambda a, b, d: _sem.wrap(a + b, d), "add")

    def sub(self, e):
        return self._binary(e, lambda a, b, d: _sem.wrap(a - b, d), "sub")

    def mul(self, e):
        return self._binary(e, lambda a, b, d: _sem.wrap(a * b, d), "mul")

    def div(self, e):
        return self._binary(e, _sem.truncdiv, "div")

    def mod(self, e):
        return self._binary(e, _sem.truncmod, "mod")

    def floordiv(self, e):
        return self._binary(e, _sem.floordiv, "floordiv")

    def floormod(self, e):
        return self._binary(e, _sem.floormod, "floormod")

    def min(self, e):
        return self._binary(e, lambda a, b, d: a if a <= b else b, "min")

    def max(self, e):
        return self._binary(e, lambda a, b, d: a if a >= b else b, "max")

    # -- logic -------------------------------------------------------------------------------------

    def _compare(self, e: P.CmpOp, op) -> bool:
        a, b = self.ev(e.a), self.ev(e.b)
        da, db = e.a.dtype, e.b.dtype
        if _dt.is_float(da) or _dt.is_float(db):
            with np.errstate(all="ignore"):
                return bool(op(np.float64(a), np.float64(b)))
        return bool(op(int(a), int(b)))

    def eq(self, e):
        return self._compare(e, lambda a, b: a == b)

    def ne(self, e):
        return self._compare(e, lambda a, b: a != b)

    def lt(self, e):
        return self._compare(e, lambda a, b: a < b)

    def le(self, e):
        return self._compare(e, lambda a, b: a <= b)

    def gt(self, e):
        return self._compare(e, lambda a, b: a > b)

    def ge(self, e):
        return self._compare(e, lambda a, b: a >= b)

    def and_(self, e):
        a, b = self.ev(e.a), self.ev(e.b)
        return bool(a) and bool(b)

    def or_(self, e):
        a, b = self.ev(e.a), self.ev(e.b)
        return bool(a) or bool(b)

    def not_(self, e):
        return not bool(self.ev(e.a))

    def select(self, e: P.Select):
        c = self.ev(e.condition)
        t, f = self.ev(e.true_value), self.ev(e.false_value)
        return _sem.to_value(t if c else f, e.dtype)

    def cast(self, e: P.Cast):
        v = self.ev(e.value)
        return _sem.cast(v, e.value.dtype, e.dtype)

    # -- calls, let, loads ---------------------------------------------------------------------------

    def call(self, e: P.PrimCall):
        if e.op in ("tir.if_then_else", "tirx.if_then_else"):
            if len(e.args) != 3:
                raise UnsupportedError("tir.if_then_else takes 3 arguments")
            c = self.ev(e.args[0])
            return _sem.to_value(self.ev(e.args[1] if c else e.args[2]), e.dtype)
        fn = _lookup_intrinsic(e.op)
        args = []
        for a in e.args:
            v = self.ev(a)
            if a.dtype == "bool":
                v = np.bool_(v)
            elif _dt.is_integer(a.dtype):
                v = _dt.to_numpy(a.dtype).type(v)
            args.append(v)
        r = fn(e.dtype, *args)
        return _sem.from_intrinsic(r, e.dtype)

    def let(self, e: P.Let):
        v = self.ev(e.value)
        inner = dict(self.env)
        inner[e.var] = v
        return _Evaluator(inner, self.load).ev(e.body)

    def buffer_load(self, e: tir.BufferLoad):
        idx = tuple(self.ev(i) for i in e.indices)
        if self.load is None:
            raise UnsupportedError(
                f"cannot evaluate the load from buffer '{e.buffer.name}' without a load callback")
        return _sem.to_value(self.load(e.buffer, idx), e.dtype)


_DISPATCH = {
    P.IntImm: _Evaluator.int_imm, P.FloatImm: _Evaluator.float_imm, P.PrimStringImm: _Evaluator.string_imm,
    P.PrimVar: _Evaluator.var, P.Add: _Evaluator.add, P.Sub: _Evaluator.sub, P.Mul: _Evaluator.mul,
    P.Div: _Evaluator.div, P.Mod: _Evaluator.mod, P.FloorDiv: _Evaluator.floordiv,
    P.FloorMod: _Evaluator.floormod, P.Min: _Evaluator.min, P.Max: _Evaluator.max, P.EQ: _Evaluator.eq,
    P.NE: _Evaluator.ne, P.LT: _Evaluator.lt, P.LE: _Evaluator.le, P.GT: _Evaluator.gt, P.GE: _Evaluator.ge,
    P.And: _Evaluator.and_, P.Or: _Evaluator.or_, P.Not: _Evaluator.not_, P.Select: _Evaluator.select,
    P.Cast: _Evaluator.cast, P.PrimCall: _Evaluator.call, P.Let: _Evaluator.let,
    tir.BufferLoad: _Evaluator.buffer_load,
}


def eval_prim(e: P.PrimExpr, env: Mapping[P.PrimVar, Any], load: Optional[LoadFn] = None) -> Any:
    """The value of ``e`` with TIR semantics (PRIM.*).

    ``env`` maps the free PrimVars of ``e`` to values; ``load(buffer, indices)`` returns the element of
    a buffer for ``BufferLoad`` nodes (indices are Python ints). An unbound variable raises a
    RelaxRuntimeError naming it; integer division by zero raises DivisionByZeroError; a load without
    ``load`` or an unknown intrinsic raises UnsupportedError.
    """
    return _Evaluator(env, load).ev(e)


__all__ = ["eval_prim"]

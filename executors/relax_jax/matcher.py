"""Run-time struct-info checks (EVAL.CHECK.*) on executor values.

Host mode uses the reference interpreter's :class:`relax_ref.interp.checks.Matcher` itself, on
stand-in values (:func:`to_reference`: a tensor becomes a zero-stride numpy view of its shape and
dtype), so errors are exactly the reference's.

Traced mode uses :class:`TracedMatcher`, which follows the same three phases (structure, binding,
comparison; EVAL.CHECK.1-4). Structure (kinds, ranks, dtypes, arities) is static and fails at trace
time by raising the reference's error class; a dimension or prim value comparison that involves traced
values becomes a check site of the error sink (:mod:`relax_jax.errors`) unless the two sides are
provably equal symbolically. Either way, the executor re-runs a failing call in host mode, which
reports the reference's exact error.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref.errors import (
    ArityMismatchError, DTypeMismatchError, NDimMismatchError, RelaxRuntimeError, ShapeMismatchError,
    TypeMismatchError, ValueMismatchError,
)
from relax_ref import values as rv
from relax_ref.interp.checks import Matcher
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si

from .symbolic import eval_sym, eval_value, provably_equal
from .values import ClosureV, PackedV, PrimFuncV, PrimV, ShapeV, SymInt, TVal

# ---------------------------------------------------------------------------------------------------
# Stand-ins for the reference matcher (host mode: every value is concrete)
# ---------------------------------------------------------------------------------------------------


def _stand_in_tensor(t: TVal) -> np.ndarray:
    dt = np.dtype(t.data.dtype)
    return np.broadcast_to(np.zeros((), dt), tuple(int(d.val) for d in t.dims()))


def to_reference(v: Any, env_fn=None) -> Any:
    """A reference-interpreter value with the same kind, rank, dtype and shape (tensor contents
    are not needed by struct-info checks)."""
    if isinstance(v, TVal):
        return _stand_in_tensor(v)
    if isinstance(v, ShapeV):
        return rv.ShapeValue(int(d.val) for d in v)
    if isinstance(v, PrimV):
        val = v.val
        if not isinstance(val, (bool, int, float, np.generic)):
            val = np.asarray(val).item()
        return rv.PrimScalar(val, v.dtype)
    if isinstance(v, tuple):
        return tuple(to_reference(x) for x in v)
    if isinstance(v, ClosureV):
        return rv.Closure(v.func, {}, {}, v.name)
    if isinstance(v, PackedV):
        return rv.PackedFunc(v.name, v.fn)
    if isinstance(v, PrimFuncV):
        return rv.PrimFuncRef(v.name, v.func)
    return v


class _EnvView(Mapping):
    """The Relax environment as the reference matcher reads it (shape values only)."""

    def __init__(self, env: Mapping) -> None:
        self._env = env

    def __getitem__(self, k):
        v = self._env[k]
        return to_reference(v) if isinstance(v, ShapeV) else v

    def get(self, k, default=None):
        try:
            return self[k]
        except KeyError:
            return default

    def __iter__(self):
        return iter(self._env)

    def __len__(self):
        return len(self._env)


def host_check(pairs: List[Tuple[Any, Any, str]], sym: Dict, *, site: str, function: str, bind: bool,
               env: Mapping, span) -> None:
    """Run the reference matcher over ``(value, struct info, binding)`` pairs; ``sym`` maps PrimVar
    to :class:`SymInt` and receives new bindings."""
    isym = {k: int(s.val) if isinstance(s.val, (int, np.integer)) else s.val for k, s in sym.items()}
    m = Matcher(isym, site=site, function=function, bind=bind, env=_EnvView(env), span=span)
    for v, s, b in pairs:
        m.match(to_reference(v), s, b)
    m.finish()
    if bind:
        for k, val in isym.items():
            if k not in sym:
                sym[k] = SymInt.static(val, k) if isinstance(val, int) and not isinstance(val, bool) \
                    else SymInt(None, val, None)


# ---------------------------------------------------------------------------------------------------
# Traced matcher
# ---------------------------------------------------------------------------------------------------

_SITE_TEXT = {"param": "parameter '{b}' of function '{f}'", "return": "return value of function '{f}'",
              "match_cast": "match_cast binding '{b}' in function '{f}'",
              "call_result": "result of the call bound to '{b}' in function '{f}'"}


class TracedMatcher:
    """The three-phase check over traced values (see the module docstring)."""

    def __init__(self, walker, sym: Dict, *, site: str, function: str, bind: bool, env: Mapping,
                 span) -> None:
        self.walker = walker
        self.sym = sym
        self.site = site
        self.function = function
        self.bind = bind
        self.env = env
        self.span = span
        self._pairs: List[Tuple[Any, Any, str]] = []

    def _where(self, binding: str) -> str:
        return _SITE_TEXT.get(self.site, "{b}").format(b=binding, f=self.function)

    def _fail(self, cls, what: str, binding: str):
        return cls(f"{self._where(binding)}: {what}", self.span, site=self.site, function=self.function,
                   binding=binding)

    def match(self, value: Any, sinfo: Optional[si.StructInfo], binding: str) -> None:
        self._pairs.append((value, sinfo, binding))

    def finish(self) -> None:
        pairs, self._pairs = self._pairs, []
        positions: list = []
        for v, s, b in pairs:
            self._structure(v, s, b, "", positions)
        pending = []
        for pos in positions:
            if not self._bind(*pos):
                pending.append(pos)
        for pos in pending:
            self._compare(*pos)

    # -- phase 1 -------------------------------------------------------------------------------------

    def _structure(self, v, s, binding, path, positions) -> None:
        at = f"{path} " if path else ""
        if s is None or isinstance(s, si.ObjectStructInfo):
            return
        if isinstance(s, si.TensorStructInfo):
            if not isinstance(v, TVal):
                raise self._fail(TypeMismatchError, f"{at}expected a tensor", binding)
            if s.ndim != -1 and v.ndim != s.ndim:
                raise self._fail(NDimMismatchError, f"{at}rank is {v.ndim}, expected {s.ndim}", binding)
            if s.dtype != "void":
                dt = _dt.from_numpy(np.dtype(v.data.dtype))
                if dt != s.dtype:
                    raise self._fail(DTypeMismatchError, f"{at}dtype is {dt}, expected {s.dtype}", binding)
            if isinstance(s.shape, rx.ShapeExpr):
                for d, e in enumerate(s.shape.values):
                    positions.append((e, v.dim(d), f"{at}shape[{d}]", binding, ShapeMismatchError))
            elif s.shape is not None:
                positions.append((s.shape, v.dims(), f"{at}shape", binding, ShapeMismatchError))
            return
        if isinstance(s, si.ShapeStructInfo):
            if not isinstance(v, ShapeV):
                raise self._fail(TypeMismatchError, f"{at}expected a shape", binding)
            if s.ndim != -1 and len(v) != s.ndim:
                raise self._fail(NDimMismatchError, f"{at}rank is {len(v)}, expected {s.ndim}", binding)
            if s.values is not None:
                for d, (e, n) in enumerate(zip(s.values, v)):
                    positions.append((e, n, f"{at}shape[{d}]", binding, ShapeMismatchError))
            return
        if isinstance(s, si.PrimStructInfo):
            if not isinstance(v, PrimV):
                raise self._fail(TypeMismatchError, f"{at}expected a prim value", binding)
            if s.dtype != "void" and v.dtype != s.dtype:
                raise self._fail(DTypeMismatchError, f"{at}dtype is {v.dtype}, expected {s.dtype}", binding)
            if s.value is not None:
                actual = v.sym if v.sym is not None else v
                positions.append((s.value, actual, f"{at}value", binding, ValueMismatchError))
            return
        if isinstance(s, si.TupleStructInfo):
            if not isinstance(v, tuple) or isinstance(v, ShapeV):
                raise self._fail(TypeMismatchError, f"{at}expected a tuple", binding)
            if len(v) != len(s.fields):
                raise self._fail(ArityMismatchError, f"{at}tuple has {len(v)} fields, expected {len(s.fields)}",
                                 binding)
            for i, (x, f) in enumerate(zip(v, s.fields)):
                self._structure(x, f, binding, f"{path}[{i}]" if path else f"field [{i}]", positions)
            return
        if isinstance(s, si.FuncStructInfo):
            if not isinstance(v, (ClosureV, PackedV, PrimFuncV)):
                raise self._fail(TypeMismatchError, f"{at}expected a function", binding)
            return
        raise RelaxRuntimeError(f"cannot check a value against {type(s).__name__}", self.span)

    # -- phases 2 and 3 ------------------------------------------------------------------------------

    def _same(self, want: Any, actual: Any, what: str, binding: str, cls) -> None:
        """Assert ``want == actual`` (SymInt / PrimV / static values)."""
        if isinstance(want, SymInt) and isinstance(actual, SymInt):
            r = provably_equal(want, actual)
            if r is True:
                return
            if r is False:
                raise self._fail(cls, f"{what} is {actual.val}, expected {want.val}", binding)
            bad = jnp.asarray(want.val) != jnp.asarray(actual.val)
        else:
            a = actual.val if isinstance(actual, (SymInt, PrimV)) else actual
            w = want.val if isinstance(want, (SymInt, PrimV)) else want
            if isinstance(a, (bool, int, float, np.generic)) and isinstance(w, (bool, int, float, np.generic)):
                if isinstance(a, (bool, np.bool_)) or isinstance(w, (bool, np.bool_)):
                    ok = bool(a) == bool(w)
                else:
                    ok = a == w
                if not ok:
                    raise self._fail(cls, f"{what} is {a}, expected {w}", binding)
                return
            bad = jnp.asarray(w) != jnp.asarray(a)
        fail = self._fail(cls, f"{what} differs from the annotation", binding)
        self.walker.sink.check(bad, lambda: fail)

    def _bind(self, expr, actual, what, binding, cls) -> bool:
        if isinstance(expr, rx.Var):
            return False
        if isinstance(expr, (P.IntImm, P.FloatImm)):
            want = bool(expr.value) if expr.dtype == "bool" else expr.value
            self._same(want, actual, what, binding, cls)
            return True
        if isinstance(expr, P.PrimVar):
            if expr in self.sym:
                self._same(self.sym[expr], actual, what, binding, cls)
                return True
            if self.bind:
                if isinstance(actual, SymInt):
                    self.sym[expr] = actual
                elif isinstance(actual, PrimV):
                    self.sym[expr] = SymInt.static(actual.val, None) if actual.is_static and \
                        _dt.is_integer(actual.dtype) else SymInt(None, actual.val, None)
                else:
                    self.sym[expr] = SymInt.static(actual)
                return True
        return False

    def _compare(self, expr, actual, what, binding, cls) -> None:
        if isinstance(expr, rx.Var):
            want = self.env.get(expr)
            if not isinstance(want, ShapeV):
                raise RelaxRuntimeError(f"shape variable '{expr.name_hint}' has no value", self.span,
                                        function=self.function, binding=binding)
            if len(want) != len(actual):
                raise self._fail(cls, f"{what} has rank {len(actual)}, expected {len(want)}", binding)
            for w, a in zip(want, actual):
                self._same(w, a, what, binding, cls)
            return
        missing = [v for v in _vars(expr) if v not in self.sym]
        if missing:
            raise RelaxRuntimeError(f"{self._where(binding)}: symbolic variable '{missing[0].name}' has no value",
                                    self.span, function=self.function, binding=binding, symbol=missing[0].name)
        if _dt.is_integer(expr.dtype) and isinstance(actual, SymInt):
            want = eval_sym(expr, self.sym, check=self.walker.sink_check)
        else:
            want = eval_value(expr, self.sym, check=self.walker.sink_check)
        self._same(want, actual, what, binding, cls)


def _vars(e) -> list:
    from relax_ref.ir.functor import prim_vars_in

    return list(prim_vars_in(e))


__all__ = ["to_reference", "host_check", "TracedMatcher"]

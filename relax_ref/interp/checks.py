"""Run-time struct-info checks (EVAL.CHECK.*): function parameters, ``MatchCast`` and return values.

A check compares values with struct infos and, at parameter and match-cast sites (*bind mode*), binds
the symbolic variables the struct infos introduce. All (value, struct info) pairs of a site go through
three phases together (EVAL.CHECK.1), and the first failure in phase order, then pair order, then
depth-first order is reported:

1. structure (EVAL.CHECK.2): kinds, ranks, dtypes and tuple arities, recursing into tuples;
2. binding (EVAL.CHECK.3): each dimension or ``R.Prim(value=...)`` position that is an immediate or a
   bound variable is compared, an unbound bare variable is bound (bind mode);
3. comparison (EVAL.CHECK.4): the remaining (compound) expressions, such as ``n * 2``, are evaluated
   and compared; a tensor shape given by a Relax variable is compared with that variable's value.

Failures raise (EVAL.CHECK.8): :class:`TypeMismatchError` (wrong kind of value),
:class:`NDimMismatchError` (rank), :class:`DTypeMismatchError`, :class:`ShapeMismatchError` (a dimension),
:class:`ArityMismatchError` (tuple length) or :class:`ValueMismatchError` (a prim value). Each error has
``site`` (``"param"``, ``"return"``, ``"match_cast"`` or ``"call_result"``), the function name, the parameter or binding
name, ``expected`` -- the annotation with every bound symbolic variable replaced by its value, e.g.
``R.Tensor((3, 4), "float32")`` -- and ``actual`` (a description of the value).

``vdevice`` is never checked (EVAL.CHECK.7). Float prim values compare with ``==`` (EVAL.CHECK.5).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..arith.evaluate import eval_prim
from ..errors import (
    ArityMismatchError, DTypeMismatchError, NDimMismatchError, RelaxError, RelaxRuntimeError,
    ShapeMismatchError, Span, StructInfoMismatchError, TypeMismatchError, ValueMismatchError,
)
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ..ir.functor import prim_vars_in, substitute_prim
from ..ir.distributed import DTensorStructInfo, local_struct_info
from ..ops import collective
from ..ops.args import value_kind
from ..values import ShapeValue, describe

_SITE_TEXT = {"param": "parameter '{b}' of function '{f}'", "return": "return value of function '{f}'",
              "match_cast": "match_cast binding '{b}' in function '{f}'",
              "call_result": "result of the call bound to '{b}' in function '{f}'"}


# ---------------------------------------------------------------------------------------------------
# Rendering struct info with bound values substituted
# ---------------------------------------------------------------------------------------------------


def render_prim(e: P.PrimExpr, sym: Mapping) -> str:
    """``e`` with bound symbolic variables replaced by their values (fully bound: evaluated)."""
    fv = prim_vars_in(e)
    if fv and all(v in sym for v in fv):
        try:
            v = eval_prim(e, sym)
            return repr(bool(v)) if isinstance(v, bool) else str(v)
        except RelaxError:
            pass
    vmap = {v: P.IntImm(int(sym[v]), v.dtype) for v in fv if v in sym and _dt.is_integer(v.dtype)}
    return P.to_str(substitute_prim(e, vmap) if vmap else e)


def render_sinfo(s: Optional[si.StructInfo], sym: Mapping = None, env: Mapping = None) -> str:
    """TVMScript spelling of struct info, with bound symbolic values substituted."""
    sym = sym or {}
    if s is None or isinstance(s, si.ObjectStructInfo):
        return "R.Object"
    if isinstance(s, si.PrimStructInfo):
        if s.value is not None:
            return f"R.Prim(value={render_prim(s.value, sym)})"
        return f'R.Prim("{s.dtype}")' if s.dtype != "void" else "R.Prim"
    if isinstance(s, si.ShapeStructInfo):
        if s.values is not None:
            return "R.Shape([" + ", ".join(render_prim(v, sym) for v in s.values) + "])"
        return f"R.Shape(ndim={s.ndim})" if s.ndim != -1 else "R.Shape"
    if isinstance(s, si.TensorStructInfo):
        parts = []
        vals = s.shape.values if isinstance(s.shape, rx.ShapeExpr) else None
        if vals is not None:
            dims = ", ".join(render_prim(v, sym) for v in vals)
            parts.append(f"({dims},)" if len(vals) == 1 else f"({dims})")
        elif s.shape is not None:
            val = env.get(s.shape) if env is not None else None
            parts.append(str(tuple(val)) if isinstance(val, ShapeValue) else s.shape.name_hint)
        if s.dtype != "void":
            parts.append(f'"{s.dtype}"')
        if vals is None and s.shape is None and s.ndim != -1:
            parts.append(f"ndim={s.ndim}")
        return "R.Tensor(" + ", ".join(parts) + ")" if parts else "R.Tensor"
    if isinstance(s, si.TupleStructInfo):
        return "R.Tuple(" + ", ".join(render_sinfo(f, sym, env) for f in s.fields) + ")"
    if isinstance(s, si.FuncStructInfo):
        return "R.Callable"
    return type(s).__name__


# ---------------------------------------------------------------------------------------------------
# The matcher
# ---------------------------------------------------------------------------------------------------


class Matcher:
    """One check site: ``match(pairs, σ, mode)`` of EVAL.CHECK.1. Call :meth:`match` for every
    (value, struct info) pair of the site, in order, then :meth:`finish`, which runs the three phases
    over all pairs together. ``sym`` is the symbolic environment (PrimVar -> value), extended in place
    in bind mode (``bind=True``); ``env`` the Relax environment (for shapes given by a Relax
    variable).

    The phases and their errors are decided here for every evaluator; what a value looks like is
    the *value model*, the methods under "values" below, which an evaluator with other values
    overrides (the JAX executor's ``relax_jax.matcher.TracedMatcher``, whose sizes may only be known
    at run time)."""

    def __init__(self, sym: Dict, *, site: str, function: str, bind: bool = True,
                 env: Optional[Mapping] = None, span: Optional[Span] = None) -> None:
        self.sym = sym
        self.site = site
        self.function = function
        self.bind = bind
        self.env = env
        self.span = span
        self._pairs: List[Tuple[Any, Any, str]] = []

    # -- values (the reference's; overridden by other evaluators) -------------------------------------

    def kind(self, v: Any) -> str:
        """The kind of value ``v`` (:data:`relax_ref.ops.args.KINDS`)."""
        return value_kind(v)

    def describe(self, v: Any) -> str:
        return describe(v)

    def tensor_dtype(self, v: Any) -> str:
        try:
            return _dt.from_numpy(v.dtype)
        except RelaxError:
            return str(v.dtype)

    def sizes(self, v: Any) -> Tuple[Any, ...]:
        """The sizes of a tensor's shape, or of a shape value."""
        return tuple(int(n) for n in (v.shape if isinstance(v, np.ndarray) else v))

    def prim_actual(self, v: Any) -> Any:
        """What the ``value`` of a prim struct info is compared with."""
        return v.value

    def text(self, x: Any) -> str:
        """A compared value (a size, a prim value or a tuple of sizes) in a message."""
        return str(x)

    def shape_value(self, var: rx.Var) -> Optional[Tuple[Any, ...]]:
        """The sizes of the shape bound to a Relax variable, or None when it has no shape value."""
        want = self.env.get(var) if self.env is not None else None
        return tuple(want) if isinstance(want, ShapeValue) else None

    def require_equal(self, want: Any, actual: Any, fail) -> None:
        """Raise ``fail()`` unless ``want == actual`` (EVAL.CHECK.5: floats with ``==``)."""
        if not _same(want, actual):
            raise fail()

    def bound_value(self, actual: Any) -> Any:
        """What an unbound symbolic variable is bound to."""
        return actual

    def evaluate(self, expr: P.PrimExpr, actual: Any) -> Any:
        """A compound expression over bound variables."""
        v = eval_prim(expr, self.sym)
        return v.item() if isinstance(v, np.generic) else v

    def render_sym(self) -> Mapping:
        """The bound symbolic values an expected struct info is rendered with."""
        return self.sym

    # -- errors ------------------------------------------------------------------------------------

    def _where(self, binding: str) -> str:
        return _SITE_TEXT.get(self.site, "{b}").format(b=binding, f=self.function)

    def _fail(self, cls, what: str, sinfo: si.StructInfo, value: Any, binding: str,
              symbol: Optional[str] = None) -> StructInfoMismatchError:
        expected = render_sinfo(sinfo, self.render_sym(), self.env)
        actual = self.describe(value)
        return cls(f"{self._where(binding)}: {what}: expected {expected}, got {actual}", self.span, site=self.site,
                   expected=expected, actual=actual, function=self.function, binding=binding, symbol=symbol)

    # -- entry points --------------------------------------------------------------------------------

    def match(self, value: Any, sinfo: Optional[si.StructInfo], binding: str) -> None:
        """Add one pair (checked by :meth:`finish`)."""
        self._pairs.append((value, sinfo, binding))

    def finish(self) -> None:
        """Run the structure, binding and comparison phases over all pairs (EVAL.CHECK.1-4)."""
        pairs, self._pairs = self._pairs, []
        positions: List[Tuple[Any, ...]] = []
        for value, sinfo, binding in pairs:                       # phase 1 (EVAL.CHECK.2)
            self._structure(value, sinfo, binding, sinfo, value, "", positions)
        pending = []
        for pos in positions:                                      # phase 2 (EVAL.CHECK.3)
            if not self._bind_position(*pos):
                pending.append(pos)
        for pos in pending:                                        # phase 3 (EVAL.CHECK.4)
            self._compare_position(*pos)

    # -- phase 1 -------------------------------------------------------------------------------------

    def _structure(self, v: Any, s: Optional[si.StructInfo], binding: str, top, topv, path: str,
                   positions: list) -> None:
        at = f"{path} " if path else ""
        if s is None or isinstance(s, si.ObjectStructInfo):
            return
        if isinstance(s, DTensorStructInfo) and collective.current().local:
            s = local_struct_info(s)      # a worker holds its shard (DIST.LOCAL.1)
        kind = self.kind(v)
        if isinstance(s, si.TensorStructInfo):
            if kind != "tensor":
                raise self._fail(TypeMismatchError, f"{at}expected a tensor", top, topv, binding)
            sizes = self.sizes(v)
            if s.ndim != -1 and len(sizes) != s.ndim:
                raise self._fail(NDimMismatchError, f"{at}rank is {len(sizes)}, expected {s.ndim}", top, topv,
                                 binding)
            if s.dtype != "void":
                dt = self.tensor_dtype(v)
                if dt != s.dtype:
                    raise self._fail(DTypeMismatchError, f"{at}dtype is {dt}, expected {s.dtype}", top, topv,
                                     binding)
            if isinstance(s.shape, rx.ShapeExpr):
                for d, (e, n) in enumerate(zip(s.shape.values, sizes)):
                    positions.append((e, n, f"{at}shape[{d}]", top, topv, binding, ShapeMismatchError))
            elif s.shape is not None:
                positions.append((s.shape, sizes, f"{at}shape", top, topv, binding, ShapeMismatchError))
            return
        if isinstance(s, si.ShapeStructInfo):
            if kind != "shape":
                raise self._fail(TypeMismatchError, f"{at}expected a shape", top, topv, binding)
            sizes = self.sizes(v)
            if s.ndim != -1 and len(sizes) != s.ndim:
                raise self._fail(NDimMismatchError, f"{at}rank is {len(sizes)}, expected {s.ndim}", top, topv,
                                 binding)
            if s.values is not None:
                for d, (e, n) in enumerate(zip(s.values, sizes)):
                    positions.append((e, n, f"{at}shape[{d}]", top, topv, binding, ShapeMismatchError))
            return
        if isinstance(s, si.PrimStructInfo):
            if kind != "prim":
                raise self._fail(TypeMismatchError, f"{at}expected a prim value", top, topv, binding)
            if s.dtype != "void" and v.dtype != s.dtype:
                raise self._fail(DTypeMismatchError, f"{at}dtype is {v.dtype}, expected {s.dtype}", top, topv,
                                 binding)
            if s.value is not None:
                positions.append((s.value, self.prim_actual(v), f"{at}value", top, topv, binding,
                                  ValueMismatchError))
            return
        if isinstance(s, si.TupleStructInfo):
            if kind != "tuple":
                raise self._fail(TypeMismatchError, f"{at}expected a tuple", top, topv, binding)
            if len(v) != len(s.fields):
                raise self._fail(ArityMismatchError, f"{at}tuple has {len(v)} fields, expected "
                                 f"{len(s.fields)}", top, topv, binding)
            for i, (x, f) in enumerate(zip(v, s.fields)):
                self._structure(x, f, binding, top, topv, f"{path}[{i}]" if path else f"field [{i}]", positions)
            return
        if isinstance(s, si.FuncStructInfo):
            if kind not in ("closure", "packed", "prim_func"):
                raise self._fail(TypeMismatchError, f"{at}expected a function", top, topv, binding)
            return
        raise RelaxRuntimeError(f"cannot check a value against {type(s).__name__}", self.span)

    # -- phases 2 and 3 ------------------------------------------------------------------------------

    def _bind_position(self, expr, actual, what, top, topv, binding, cls) -> bool:
        """Phase 2 for one position; False if it is left for the comparison phase."""
        if isinstance(expr, rx.Var):
            return False
        if isinstance(expr, (P.IntImm, P.FloatImm)):
            # a float literal denotes its value rounded once to its dtype (SI.PRIM.1, VAL.DTYPE.6):
            # R.Prim(value=T.float32(0.1)) describes float32(0.1), and a finite literal beyond float32 -inf
            want = eval_prim(expr, {}) if isinstance(expr, P.FloatImm) else (
                bool(expr.value) if expr.dtype == "bool" else expr.value)
            self.require_equal(want, actual, lambda: self._fail(
                cls, f"{what} is {self.text(actual)}, expected {want}", top, topv, binding))
            return True
        if isinstance(expr, P.PrimVar):
            if expr in self.sym:
                want = self.sym[expr]
                self.require_equal(want, actual, lambda: self._fail(
                    cls, f"{what} is {self.text(actual)}, but {expr.name} = {self.text(want)} was bound earlier",
                    top, topv, binding, symbol=expr.name))
                return True
            if self.bind:
                self.sym[expr] = self.bound_value(actual)
                return True
        return False

    def _compare_position(self, expr, actual, what, top, topv, binding, cls) -> None:
        if isinstance(expr, rx.Var):       # a tensor shape given by a Relax variable
            want = self.shape_value(expr)
            if want is None:
                raise RelaxRuntimeError(
                    f"shape variable '{expr.name_hint}' of {render_sinfo(top)} has no value", self.span,
                    function=self.function, binding=binding)

            def differ():
                return self._fail(cls, f"{what} is {self.text(actual)}, expected {expr.name_hint} = "
                                       f"{self.text(want)}", top, topv, binding)

            if len(want) != len(actual):
                raise differ()
            for w, a in zip(want, actual):
                self.require_equal(w, a, differ)
            return
        want = self._eval(expr, actual, top, binding)
        self.require_equal(want, actual, lambda: self._fail(
            cls, f"{what} is {self.text(actual)}, but {P.to_str(expr)} = {self.text(want)}", top, topv, binding))

    def _eval(self, expr, actual, top, binding):
        missing = [v for v in prim_vars_in(expr) if v not in self.sym]
        if missing:
            raise RelaxRuntimeError(
                f"{self._where(binding)}: symbolic variable '{missing[0].name}' of "
                f"{render_sinfo(top, self.render_sym(), self.env)} has no value",
                self.span, function=self.function, binding=binding, symbol=missing[0].name)
        try:
            return self.evaluate(expr, actual)
        except RelaxError as e:
            raise e.with_span(self.span).with_context(function=self.function, binding=binding)


def _same(want, actual) -> bool:
    """Equality of a dimension or prim value (EVAL.CHECK.5: floats with ==, so NaN never matches)."""
    if isinstance(want, (bool, np.bool_)) or isinstance(actual, (bool, np.bool_)):
        return bool(want) == bool(actual)
    return want == actual


def check_value(value: Any, sinfo: Optional[si.StructInfo], sym: Dict, *, site: str, function: str,
                binding: str, bind: bool = True, env: Optional[Mapping] = None,
                span: Optional[Span] = None) -> None:
    """Check one value at a site (both phases)."""
    m = Matcher(sym, site=site, function=function, bind=bind, env=env, span=span)
    m.match(value, sinfo, binding)
    m.finish()


__all__ = ["Matcher", "check_value", "render_sinfo", "render_prim"]

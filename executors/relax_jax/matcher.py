"""Run-time struct-info checks (EVAL.CHECK.*) on executor values.

Host mode uses the reference interpreter's :class:`relax_ref.interp.checks.Matcher` itself, on
stand-in values (:func:`to_reference`: a tensor becomes a zero-stride numpy view of its shape and
dtype), so errors are exactly the reference's.

Traced mode uses :class:`TracedMatcher`, the reference's matcher with the walker's value model: the
three phases (structure, binding, comparison; EVAL.CHECK.1-4) and their errors are the reference's.
Structure (kinds, ranks, dtypes, arities) is static and fails at trace time; a dimension or prim value
comparison that involves traced values becomes a check site of the error sink (:mod:`relax_jax.errors`)
unless the two sides are provably equal symbolically. Either way, the executor re-runs a failing call
in host mode, which reports the reference's exact error.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref import values as rv
from relax_ref.interp.checks import Matcher
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P

from .op_args import jax_value_kind
from .symbolic import eval_value, provably_equal
from .values import PrimV, ShapeV, SymInt, TVal, describe, host_prim, reference_callable

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
        return host_prim(v)
    if isinstance(v, tuple):
        return tuple(to_reference(x) for x in v)
    ref = reference_callable(v)
    return v if ref is None else ref


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


class TracedMatcher(Matcher):
    """The reference's three-phase check (:class:`relax_ref.interp.checks.Matcher`) over the walker's
    values in traced mode: sizes and prim values are :class:`SymInt` / :class:`PrimV`, a comparison
    that is not decided statically (nor provably equal symbolically) becomes a check site of the
    error sink."""

    def __init__(self, walker, sym: Dict, *, site: str, function: str, bind: bool, env: Mapping,
                 span) -> None:
        super().__init__(sym, site=site, function=function, bind=bind, env=env, span=span)
        self.walker = walker

    def kind(self, v: Any) -> str:
        return jax_value_kind(v)

    def describe(self, v: Any) -> str:
        return describe(v)

    def tensor_dtype(self, v: TVal) -> str:
        return _dt.from_numpy(np.dtype(v.data.dtype))

    def sizes(self, v: Any) -> Tuple[Any, ...]:
        return tuple(v.dims()) if isinstance(v, TVal) else tuple(v)

    def prim_actual(self, v: PrimV) -> Any:
        return v.sym if v.sym is not None else v

    def text(self, x: Any) -> str:
        if isinstance(x, tuple):
            return "(" + ", ".join(self.text(n) for n in x) + ("," if len(x) == 1 else "") + ")"
        v = x.val if isinstance(x, (SymInt, PrimV)) else x
        return str(v) if isinstance(v, (bool, int, float, np.generic)) else "?"

    def shape_value(self, var: rx.Var) -> Optional[Tuple[Any, ...]]:
        want = self.env.get(var)
        return tuple(want) if isinstance(want, ShapeV) else None

    def render_sym(self) -> Mapping:
        return {k: int(v.val) for k, v in self.sym.items() if isinstance(v, SymInt) and v.is_static}

    def require_equal(self, want: Any, actual: Any, fail) -> None:
        """``want == actual`` decided statically when it can be (provably, or on static values), else a
        check site."""
        if isinstance(want, SymInt) and isinstance(actual, SymInt):
            r = provably_equal(want, actual)
            if r is True:
                return
            if r is False:
                raise fail()
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
                    raise fail()
                return
            bad = jnp.asarray(w) != jnp.asarray(a)
        self.walker.sink.check(bad, fail)

    def bound_value(self, actual: Any) -> SymInt:
        if isinstance(actual, SymInt):
            return actual
        if isinstance(actual, PrimV):
            return SymInt.static(actual.val, None) if actual.is_static and _dt.is_integer(actual.dtype) \
                else SymInt(None, actual.val, None)
        return SymInt.static(actual)

    def evaluate(self, expr: P.PrimExpr, actual: Any) -> Any:
        if _dt.is_integer(expr.dtype) and isinstance(actual, SymInt):
            return self.walker.eval_sym(expr, self.sym)
        return eval_value(expr, self.sym, check=self.walker.sink_check)


__all__ = ["to_reference", "host_check", "TracedMatcher"]

"""Adapter for relax_jax, the JAX/XLA executor (``--impl jax``).

``load`` parses with relax_ref (parse, normalize, well-formedness: the executor shares the front end)
and compiles with ``relax_jax.compile`` (default shape bucketing); ``run`` calls the executable and
converts JAX arrays to numpy. Run-time errors are ``relax_ref.errors`` classes, as for ``ref``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..adapter import Adapter, LoadError, RunError
from ..packed import SUITE_FUNCS
from ..values import Prim, Shape
from .ref import error_kind, error_site


class JaxAdapter(Adapter):
    """relax_jax in this process."""

    #: relax_jax supports every feature a case may require (FORMAT.md section 9)
    #: the local view (simulated workers, DIST.LOCAL.1) is the reference's; relax_jax runs the global view
    unsupported_features: frozenset = frozenset({"dist-local-view"})

    def __init__(self) -> None:
        import jax
        import relax_jax
        import relax_ref
        from relax_ref import values as rv

        self._relax_ref = relax_ref
        self._relax_jax = relax_jax
        self._rv = rv
        self._jax = jax
        self.name = f"relax_jax {relax_ref.__version__} (jax {jax.__version__})"
        self._funcs = {spec.name: spec.fn for spec in SUITE_FUNCS.values()}

    def _to_exe(self, v: Any) -> Any:
        rv = self._rv
        if isinstance(v, np.ndarray):
            return v
        if isinstance(v, Shape):
            return rv.ShapeValue(v)
        if isinstance(v, Prim):
            return rv.PrimScalar(v.value, v.dtype)
        if isinstance(v, tuple):
            return tuple(self._to_exe(x) for x in v)
        return v

    def _from_exe(self, v: Any) -> Any:
        rv = self._rv
        if isinstance(v, self._jax.Array):
            return np.asarray(v)
        if isinstance(v, np.ndarray):
            return v
        if isinstance(v, rv.ShapeValue):
            return Shape(v)
        if isinstance(v, rv.PrimScalar):
            return Prim(v.value, v.dtype)
        if isinstance(v, tuple):
            return tuple(self._from_exe(x) for x in v)
        if isinstance(v, (bool, int, float, np.generic)):
            return Prim(v, None)
        return v

    def load(self, text: str, case: Any) -> Any:
        try:
            mod = self._relax_ref.parse(text)
            self._relax_ref.well_formed(mod)    # also when the text deferred it (TEXT.MOD.3, EVAL.PROG.2)
        except self._relax_ref.RelaxError as err:
            raise LoadError(error_kind(err), str(err), error_site(err)) from None
        exe = self._relax_jax.compile(mod)
        for name, fn in self._funcs.items():
            exe.register_func(name, fn)
        return exe

    def run(self, handle: Any, entry: str, args: list) -> Any:
        try:
            out = handle(entry, *[self._to_exe(a) for a in args])
        except self._relax_ref.RelaxError as err:
            raise RunError(error_kind(err), str(err), error_site(err)) from None
        return self._from_exe(out)


__all__ = ["JaxAdapter"]

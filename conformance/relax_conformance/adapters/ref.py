"""Adapter for relax_ref, the reference interpreter (``--impl ref``).

``load`` is ``relax_ref.parse(text)`` (parse, normalize, well-formedness); ``run`` is
``relax_ref.evaluate(mod, entry, *args)``. Errors are ``relax_ref.errors`` classes whose ``kind`` is
the vocabulary kind and whose ``site`` (run-time struct-info errors) is reported with it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..adapter import Adapter, LoadError, RunError
from ..packed import SUITE_FUNCS
from ..values import Prim, Shape
from .. import vocab


def error_kind(err: Exception) -> str:
    """The vocabulary kind of a relax_ref error."""
    kind = getattr(err, "kind", None)
    return kind if kind in vocab.ALL_REPORTABLE_KINDS else "unclassified"


def error_site(err: Exception):
    site = getattr(err, "site", None)
    return site if site in vocab.SITES else None


def to_relax_value(rv: Any, v: Any) -> Any:
    """A suite value (numpy array, :class:`Shape`, :class:`Prim`, tuple) as an argument of relax_ref or
    of an executor built on its values (``rv``: :mod:`relax_ref.values`)."""
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, Shape):
        return rv.ShapeValue(v)
    if isinstance(v, Prim):
        return rv.PrimScalar(v.value, v.dtype)
    if isinstance(v, tuple):
        return tuple(to_relax_value(rv, x) for x in v)
    return v


def from_relax_value(rv: Any, v: Any, as_numpy: Callable[[Any], Any] = lambda v: v) -> Any:
    """A result of relax_ref (or of an executor built on its values) as a suite value; ``as_numpy``
    turns the executor's own arrays into numpy arrays (and leaves anything else as it is)."""
    v = as_numpy(v)
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, rv.ShapeValue):
        return Shape(v)
    if isinstance(v, rv.PrimScalar):
        return Prim(v.value, v.dtype)
    if isinstance(v, rv.DTypeValue):
        return v.name
    if isinstance(v, tuple):
        return tuple(from_relax_value(rv, x, as_numpy) for x in v)
    if isinstance(v, (bool, int, float, np.generic)):
        return Prim(v, None)
    return v


def load_module(relax_ref: Any, text: str) -> Any:
    """Parse ``text`` with relax_ref's front end; errors become :class:`LoadError`. A text may defer
    the well-formedness check (``check_well_formed=False``, TEXT.MOD.3); loading still checks before
    anything runs (EVAL.PROG.2)."""
    try:
        mod = relax_ref.parse(text)
        relax_ref.well_formed(mod)
        return mod
    except relax_ref.RelaxError as err:
        raise LoadError(error_kind(err), str(err), error_site(err)) from None


class RefAdapter(Adapter):
    """relax_ref in this process."""

    def __init__(self) -> None:
        import relax_ref
        from relax_ref import values as rv

        self._relax_ref = relax_ref
        self._rv = rv
        self.name = f"relax_ref {relax_ref.__version__}"
        for spec in SUITE_FUNCS.values():
            # relax_ref hands packed functions the program's own numpy arrays, so every style
            # (identity, value, dps, inplace) is the NumPy definition itself
            relax_ref.register_func(spec.name, spec.fn)

    def load(self, text: str, case: Any) -> Any:
        mod = load_module(self._relax_ref, text)
        if "dist-local-view" in tuple(getattr(case, "requires", ()) or ()):
            return _LocalView(mod)       # run on the simulated workers of its mesh (DIST.LOCAL.1)
        return mod

    def run(self, handle: Any, entry: str, args: list) -> Any:
        import io

        # R.print output is part of a program's behaviour but not of a case's expectation; keep it
        # off the runner's terminal (the progress bar)
        try:
            values = [to_relax_value(self._rv, a) for a in args]
            if isinstance(handle, _LocalView):
                from relax_ref.interp.workers import evaluate_local

                out = evaluate_local(handle.mod, entry, *values, stdout=io.StringIO())
            else:
                interp = self._relax_ref.Interpreter(handle, stdout=io.StringIO())
                out = interp(entry, *values)
        except self._relax_ref.RelaxError as err:
            raise RunError(error_kind(err), str(err), error_site(err)) from None
        return from_relax_value(self._rv, out)


class _LocalView:
    """A module whose case runs in the local view (feature ``dist-local-view``)."""

    def __init__(self, mod) -> None:
        self.mod = mod


__all__ = ["RefAdapter", "error_kind", "error_site", "from_relax_value", "load_module", "to_relax_value"]

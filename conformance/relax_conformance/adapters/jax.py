"""Adapter for relax_jax, the JAX/XLA executor (``--impl jax``).

``load`` parses with relax_ref (parse, normalize, well-formedness: the executor shares the front end)
and compiles with ``relax_jax.compile`` (default shape bucketing); ``run`` calls the executable and
converts JAX arrays to numpy. Run-time errors are ``relax_ref.errors`` classes, as for ``ref``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..adapter import Adapter, RunError
from ..packed import SUITE_FUNCS
from .ref import error_kind, error_site, from_relax_value, load_module, to_relax_value


class JaxAdapter(Adapter):
    """relax_jax in this process."""

    #: relax_jax supports every feature a case may require (FORMAT.md section 9); a local-view case
    #: (``dist-local-view``) runs on ``relax_jax.local_view``: on a mesh of devices when the process has
    #: enough of them, else the workers simulated as vmap lanes on one device, with the same collectives

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

    def _as_numpy(self, v: Any) -> Any:
        return np.asarray(v) if isinstance(v, self._jax.Array) else v

    def load(self, text: str, case: Any) -> Any:
        exe = self._relax_jax.compile(load_module(self._relax_ref, text))
        for name, fn in self._funcs.items():
            exe.register_func(name, fn)
        if "dist-local-view" in tuple(getattr(case, "requires", ()) or ()):
            return _LocalView(exe)
        return exe

    def run(self, handle: Any, entry: str, args: list) -> Any:
        try:
            out = handle(entry, *[to_relax_value(self._rv, a) for a in args])
        except self._relax_ref.RelaxError as err:
            raise RunError(error_kind(err), str(err), error_site(err)) from None
        return from_relax_value(self._rv, out, self._as_numpy)


class _LocalView:
    """A module whose case runs in the local view (DIST.LOCAL.1): one ``LocalView`` per entry."""

    def __init__(self, exe) -> None:
        self.exe = exe
        self.views: dict = {}

    def __call__(self, entry: str, *args: Any) -> Any:
        from relax_jax.local_view import LocalView

        view = self.views.get(entry)
        if view is None:
            view = self.views[entry] = LocalView(self.exe, entry)
        return view(*args)


__all__ = ["JaxAdapter"]

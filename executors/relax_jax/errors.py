"""Run-time error detection inside compiled code.

Compiled JAX code cannot raise. A computation that may fail (an integer division by a data value, an
out-of-bounds TensorIR access that is not provably in bounds, ``R.assert_op`` on a traced condition,
a traced struct-info comparison) registers a *check site* with an :class:`ErrorSink`; the sink
threads one ``int32`` *error code* through the computation: ``0`` while nothing failed, else the site
number of the first failing check in execution order. Code that runs eagerly (host mode) raises at
the check instead.

Internal exceptions that steer compilation (never seen by users):

* :class:`NeedsExact` -- an operation cannot be computed exactly on padded arrays; the function is
  compiled again for exact shapes;
* :class:`TraceAbort` -- tracing met something only host evaluation can do (a packed function, a
  data-dependent shape, recursion, a failed static check); the call runs in host mode.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.errors import RelaxError

from .prim_jax import is_static


class NeedsExact(Exception):
    """Raised while tracing with padded shapes when an operation cannot be made exact."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TraceAbort(Exception):
    """Raised while tracing when the function must be evaluated on the host. ``permanent`` means it
    always will (the construct does not depend on argument shapes)."""

    def __init__(self, reason: str, permanent: bool = False, error: Optional[RelaxError] = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent
        self.error = error


Builder = Callable[[], RelaxError]


class ErrorSink:
    """Check sites of one compiled computation (``traced=True``) or eager checks (``traced=False``)."""

    def __init__(self, traced: bool) -> None:
        self.traced = traced
        self.code: Any = 0
        self.builders: List[Builder] = []
        #: a compiled entry's tensor parameters the host may read, ``id(traced data) -> (path, data)``
        #: (None: no check moves to the host, :mod:`relax_jax.host_checks`)
        self.host_params: Optional[dict] = None
        self.host_checks: List[Any] = []

    def check_on_host(self, check: Any) -> bool:
        """Make ``check`` (:mod:`relax_jax.host_checks`) on the host before each call instead of in the
        compiled code; False when this computation has no host side (the caller records a check site)."""
        if not self.traced or self.host_params is None:
            return False
        self.host_checks.append(check)
        return True

    def check(self, bad: Any, make: Builder, mask: Any = None) -> None:
        """Record that ``make()`` is the error when ``bad`` holds at some point of ``mask``."""
        if mask is not None:
            if is_static(mask):
                if not bool(mask):
                    return
            else:
                bad = jnp.logical_and(bad, mask)
        if is_static(bad):
            if not bool(bad):
                return
            if not self.traced:
                raise make()
            any_bad = np.bool_(True)
        else:
            any_bad = jnp.any(bad) if jnp.ndim(bad) else bad
            if not self.traced:
                if bool(any_bad):
                    raise make()
                return
        if is_static(self.code) and int(self.code) != 0:
            return              # an earlier site fails unconditionally: its error comes first
        self.builders.append(make)
        site = np.int32(len(self.builders))
        if is_static(self.code):
            self.code = site if is_static(any_bad) else _select(any_bad, site, np.int32(0))
        else:
            self.code = _select(_and(_eq0(self.code), any_bad), site, self.code)

    @property
    def has_checks(self) -> bool:
        return bool(self.builders)

    def error_for(self, code: int) -> RelaxError:
        return self.builders[int(code) - 1]()


def _is_bool(x: Any) -> bool:
    return getattr(x, "dtype", None) == np.bool_ and getattr(x, "shape", None) == ()


def _eq0(code: Any) -> Any:
    return lax.eq(code, np.int32(0)) if getattr(code, "dtype", None) == np.int32 and code.shape == () else code == 0


def _and(a: Any, b: Any) -> Any:
    return lax.bitwise_and(a, b) if _is_bool(a) and _is_bool(b) else a & b


def _select(pred: Any, site: Any, other: Any) -> Any:
    """``jnp.where(pred, site, other)`` of a bool scalar and int32 scalars, as the ``select`` it binds."""
    if _is_bool(pred) and getattr(other, "dtype", None) == np.int32 and np.shape(other) == ():
        return lax.select(pred, np.asarray(site, np.int32), other if not isinstance(other, np.generic)
                          else np.asarray(other))
    return jnp.where(pred, site, other)


__all__ = ["NeedsExact", "TraceAbort", "ErrorSink"]

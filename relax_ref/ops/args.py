"""The evaluated arguments of an operator call as the operator's ``check`` sees them (spec rule OP.0).

An operator's run-time constraints (``OP.<op>.C<n>``) are written once, as ``OpDef.check(args)``,
and every evaluator calls it with its own view of the evaluated ``Call.args`` before the operator's
implementation, which then only computes. :class:`OpArgs` is that view: value kinds, dtypes and the
logical shapes of the arguments, the attributes and the call. A check raises the operator's error:

* for a condition known from kinds, dtypes, attributes and static sizes, ``raise args.error(cls, msg)``;
* for a condition on data, or on a size an evaluator only knows while running (the JAX executor's
  bucketed sizes), ``args.fail_if(bad, make_error)``: ``bad`` is a bool or an array of bools computed
  with the evaluator's array namespace ``args.xp``; the evaluator raises ``make_error()`` when any
  element holds (the compiled JAX code reports it through a check site).

A size in ``args.shape(i)`` is a Python int, or -- for the JAX executor under shape bucketing -- a
scalar of the evaluator that is only known at run time (``args.is_static(n)`` tells). Messages must
not format such a size: :func:`size_text` writes ``?`` for it.

:class:`ValueArgs` is the view of the values of :mod:`relax_ref.values` (the reference interpreter).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from ..errors import RelaxError
from ..limits import DEFAULT_LIMITS, Limits
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..values import (
    Closure, DTypeValue, PackedFunc, PrimFuncRef, PrimScalar, ShapeValue, Storage, describe,
)

#: the kinds of argument values
KINDS = ("tensor", "tuple", "shape", "prim", "string", "dtype", "closure", "packed", "prim_func",
         "storage", "null", "other")


class CallView:
    """What every view of an operator call (its checked arguments, a backend's lowering context)
    reads from the call itself, ``self.call``."""

    __slots__ = ()
    call: rx.Call

    @property
    def attrs(self):
        return self.call.attrs

    @property
    def span(self):
        return self.call.span

    @property
    def op_name(self) -> str:
        return self.call.op.name

    def error(self, cls, message: str, **kw) -> RelaxError:
        """An error of the operator at the call (raise it)."""
        return cls(message, self.call.span, **kw)


class OpArgs(CallView, ABC):
    """The evaluated arguments of ``call`` (see the module docstring); a backend implements the
    accessors marked below over its own values."""

    #: the evaluator's array namespace (``numpy`` or ``jax.numpy``)
    xp: Any = np

    def __init__(self, call: rx.Call, values: Sequence[Any], limits: Optional[Limits] = None) -> None:
        self.call = call
        self.values = values
        #: the budgets of the evaluation (RUNTIME.LIMIT.8: an operator's own work counts against
        #: ``max_steps``); :data:`~relax_ref.limits.DEFAULT_LIMITS` when the evaluator gives none
        self.limits = DEFAULT_LIMITS if limits is None else limits

    def __len__(self) -> int:
        return len(self.values)

    # -- values (backend) ------------------------------------------------------------------------------

    @abstractmethod
    def kind(self, i: int) -> str:
        """One of :data:`KINDS`."""
        raise NotImplementedError

    @abstractmethod
    def describe(self, i: int) -> str:
        """The value for an error message (``Tensor((2, 3), float32)``)."""
        raise NotImplementedError

    @abstractmethod
    def dtype(self, i: int) -> str:
        """The dtype of a tensor or prim value."""
        raise NotImplementedError

    @abstractmethod
    def shape(self, i: int) -> Tuple[Any, ...]:
        """The logical shape of a tensor (sizes: see the module docstring); ``()`` for a prim value."""
        raise NotImplementedError

    @abstractmethod
    def data(self, i: int) -> Any:
        """A tensor's array, or a prim value's scalar, in the evaluator's namespace; where the
        evaluator pads a tensor, only the region of its logical shape counts (``fail_if(...,
        region=...)``)."""
        raise NotImplementedError

    @abstractmethod
    def prim(self, i: int) -> Any:
        """The Python scalar of a prim value (a run-time scalar of the evaluator when not static)."""
        raise NotImplementedError

    @abstractmethod
    def ints(self, i: int) -> Tuple[Any, ...]:
        """The sizes of a shape value."""
        raise NotImplementedError

    @abstractmethod
    def fail_if(self, bad: Any, make: Callable[[], RelaxError], *, region: Optional[Tuple[Any, ...]] = None) -> None:
        """Raise ``make()`` when ``bad`` (a bool, or an array of bools) holds anywhere. ``region``: the
        logical shape ``bad`` is laid over when it is an array of a padded evaluator (elements beyond it
        do not count)."""
        raise NotImplementedError

    @abstractmethod
    def fields(self, i: int) -> "OpArgs":
        """The same view over the fields of the tuple argument ``i``."""
        raise NotImplementedError

    # -- derived ---------------------------------------------------------------------------------------

    def ndim(self, i: int) -> int:
        return len(self.shape(i))

    def is_static(self, n: Any) -> bool:
        return isinstance(n, (int, np.integer))

    def static_shape(self, i: int) -> Optional[Tuple[int, ...]]:
        """The shape as ints, or None when a size is not static."""
        s = self.shape(i)
        return tuple(int(n) for n in s) if all(self.is_static(n) for n in s) else None

    def size_text(self, shape: Sequence[Any]) -> str:
        """``(2, ?)``: a shape for a message (``?`` for a size that is not static)."""
        return size_text(shape, self.is_static)


def size_text(shape: Sequence[Any], is_static: Callable[[Any], bool] = lambda n: True) -> str:
    return str(tuple(int(n) if is_static(n) else "?" for n in shape))


def value_kind(v: Any) -> str:
    """The kind of a value of :mod:`relax_ref.values`."""
    if isinstance(v, np.ndarray):
        return "tensor"
    if isinstance(v, ShapeValue):
        return "shape"
    if isinstance(v, tuple):
        return "tuple"
    if isinstance(v, PrimScalar):
        return "prim"
    if isinstance(v, str):
        return "string"
    if isinstance(v, DTypeValue):
        return "dtype"
    if isinstance(v, Closure):
        return "closure"
    if isinstance(v, PackedFunc):
        return "packed"
    if isinstance(v, PrimFuncRef):
        return "prim_func"
    if isinstance(v, Storage):
        return "storage"
    if v is None:
        return "null"
    return "other"


class ValueArgs(OpArgs):
    """:class:`OpArgs` over the values of :mod:`relax_ref.values` (exact numpy arrays)."""

    xp = np

    def kind(self, i: int) -> str:
        return value_kind(self.values[i])

    def describe(self, i: int) -> str:
        return describe(self.values[i])

    def dtype(self, i: int) -> str:
        v = self.values[i]
        if isinstance(v, PrimScalar):
            return v.dtype
        return _dt.from_numpy(np.asarray(v).dtype)

    def shape(self, i: int) -> Tuple[Any, ...]:
        v = self.values[i]
        return () if isinstance(v, PrimScalar) else tuple(np.shape(v))

    def data(self, i: int) -> Any:
        v = self.values[i]
        return v.value if isinstance(v, PrimScalar) else v

    def prim(self, i: int) -> Any:
        v = self.values[i]
        return v.value if isinstance(v, PrimScalar) else v

    def ints(self, i: int) -> Tuple[Any, ...]:
        return tuple(self.values[i])

    def fail_if(self, bad: Any, make: Callable[[], RelaxError], *, region: Optional[Tuple[Any, ...]] = None) -> None:
        if np.any(bad):
            raise make().with_span(self.span)

    def fields(self, i: int) -> "OpArgs":
        return ValueArgs(self.call, list(self.values[i]), self.limits)


__all__ = ["OpArgs", "ValueArgs", "KINDS", "value_kind", "size_text"]

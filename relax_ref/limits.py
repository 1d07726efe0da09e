"""Limits as part of the semantics (spec rules RUNTIME.LIMIT.1-5).

Every evaluator of relax-ref enforces the same limits, written once here:

* (RUNTIME.LIMIT.1) every size, extent, index and integer attribute is a signed 64-bit integer: a value
  outside ``[-2**63, 2**63)`` -- a host shape dimension, a host integer for an ``int64`` parameter, a
  tensor's element count -- is a :class:`~relax_ref.errors.LimitExceededError` naming the value, never
  a silent wrap-around (:func:`check_int64`);
* (RUNTIME.LIMIT.2) a host integer handed to an integer dtype must lie in that dtype's range
  (:func:`check_in_dtype`);
* (RUNTIME.LIMIT.3) no allocation of a tensor or buffer larger than ``max_bytes`` is attempted
  (:func:`check_alloc`, checked before allocating);
* (RUNTIME.LIMIT.4) one call of a PrimFunc executes at most ``max_steps`` loop iterations, every
  iteration of every ``for`` and ``while`` loop counting one (:class:`StepBudget`); a ``for`` loop whose
  extent would take the count past the budget fails when it is entered; one execution of a ``while``
  loop runs at most ``max_while_steps`` iterations;
* (RUNTIME.LIMIT.7) at most ``max_depth`` calls of Relax functions are active at once
  (:class:`CallDepth`): unbounded recursion is an error, not an exhausted stack;
* (RUNTIME.LIMIT.8) an operator whose work its argument values size (``roi_align``'s adaptive
  sampling grids) counts that work against ``max_steps`` before doing it;
* (RUNTIME.LIMIT.9) the local view runs at most ``max_workers`` workers (:func:`check_workers`).

:class:`Limits` holds the budgets. The defaults are :data:`DEFAULT_LIMITS` (a quarter of the machine's
memory, 2**32 steps, 2**16 iterations of one while loop, a call depth of 1000, 1024 workers),
overridable with the environment variables ``RELAX_REF_MAX_BYTES``, ``RELAX_REF_MAX_STEPS``,
``RELAX_REF_MAX_WHILE_STEPS``, ``RELAX_REF_MAX_DEPTH`` and ``RELAX_REF_MAX_WORKERS`` and per evaluator (``Interpreter(mod, limits=...)``,
``relax_jax.compile(mod, limits=...)``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from .errors import LimitExceededError, Span
from .ir import dtype as _dt

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

#: the largest rank of a tensor at run time (RUNTIME.LIMIT.1): numpy's, kept by every evaluator
MAX_RANK = 64

#: the step budget when nothing else is configured
DEFAULT_MAX_STEPS = 1 << 32
#: the iterations of one execution of a while loop when nothing else is configured: a loop that never
#: ends stops in well under a second on the reference (a while loop runs one iteration at a time everywhere)
DEFAULT_MAX_WHILE_STEPS = 1 << 16
#: the call depth when nothing else is configured
DEFAULT_MAX_DEPTH = 1000
#: the workers of the local view when nothing else is configured
DEFAULT_MAX_WORKERS = 1024
#: the byte budget when the machine's memory cannot be read
FALLBACK_MAX_BYTES = 4 << 30


def _machine_bytes() -> Optional[int]:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        v = int(text, 0)
    except ValueError:
        return default
    return v if v > 0 else default


def default_max_bytes() -> int:
    """A quarter of the machine's physical memory (4 GiB when it cannot be read)."""
    total = _machine_bytes()
    return total // 4 if total else FALLBACK_MAX_BYTES


@dataclass(frozen=True)
class Limits:
    """The resource budgets of an evaluation (RUNTIME.LIMIT.3, RUNTIME.LIMIT.4, RUNTIME.LIMIT.7,
    RUNTIME.LIMIT.9)."""

    max_bytes: int
    max_steps: int
    max_while_steps: int = DEFAULT_MAX_WHILE_STEPS
    max_depth: int = DEFAULT_MAX_DEPTH
    max_workers: int = DEFAULT_MAX_WORKERS

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_steps", "max_while_steps", "max_depth", "max_workers"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                raise LimitExceededError(f"{name} must be a positive integer, got {v!r}", limit=name)
            object.__setattr__(self, name, int(v))

    def with_(self, **changes: Any) -> "Limits":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


DEFAULT_LIMITS = Limits(max_bytes=_env_int("RELAX_REF_MAX_BYTES", default_max_bytes()),
                        max_steps=_env_int("RELAX_REF_MAX_STEPS", DEFAULT_MAX_STEPS),
                        max_while_steps=_env_int("RELAX_REF_MAX_WHILE_STEPS", DEFAULT_MAX_WHILE_STEPS),
                        max_depth=_env_int("RELAX_REF_MAX_DEPTH", DEFAULT_MAX_DEPTH),
                        max_workers=_env_int("RELAX_REF_MAX_WORKERS", DEFAULT_MAX_WORKERS))


def resolve(limits: Optional[Limits] = None, *, max_bytes: Optional[int] = None,
            max_steps: Optional[int] = None, max_while_steps: Optional[int] = None,
            max_depth: Optional[int] = None) -> Limits:
    """``limits`` (default :data:`DEFAULT_LIMITS`) with the given budgets replaced."""
    base = DEFAULT_LIMITS if limits is None else limits
    if not isinstance(base, Limits):
        raise LimitExceededError(f"limits must be a relax_ref.limits.Limits, got {type(base).__name__}")
    return base.with_(max_bytes=max_bytes, max_steps=max_steps, max_while_steps=max_while_steps,
                      max_depth=max_depth)


# ---------------------------------------------------------------------------------------------------
# Integers (RUNTIME.LIMIT.1, RUNTIME.LIMIT.2)
# ---------------------------------------------------------------------------------------------------


def fits_int64(v: int) -> bool:
    return INT64_MIN <= v <= INT64_MAX


def check_int64(v: Any, what: str, span: Optional[Span] = None) -> int:
    """``v`` as a Python int when it lies in the int64 range; else LimitExceededError naming it."""
    n = int(v)
    if not INT64_MIN <= n <= INT64_MAX:
        raise LimitExceededError(f"{what} {n} is outside the int64 range", span, limit="int64", value=n)
    return n


def dtype_range(dtype: str) -> Optional[tuple]:
    """``(min, max)`` of an integer (or bool) dtype, None for other dtypes."""
    if dtype == "bool":
        return (0, 1)
    if not _dt.is_integer(dtype):
        return None
    try:
        return int(_dt.min_value(dtype)), int(_dt.max_value(dtype))
    except (TypeError, ValueError):
        return None


def check_in_dtype(v: int, dtype: str, what: str, span: Optional[Span] = None) -> int:
    """A host integer ``v`` for ``dtype``: LimitExceededError when it lies outside the dtype's range."""
    rng = dtype_range(dtype)
    if rng is not None and not rng[0] <= v <= rng[1]:
        raise LimitExceededError(f"{what} {v} does not fit in {dtype} ([{rng[0]}, {rng[1]}])", span,
                                 limit="dtype", value=v)
    return v


# ---------------------------------------------------------------------------------------------------
# Allocations (RUNTIME.LIMIT.1, RUNTIME.LIMIT.3)
# ---------------------------------------------------------------------------------------------------


def element_count(shape: Iterable[Any], what: str = "tensor", span: Optional[Span] = None) -> int:
    """The number of elements of ``shape`` (each size and the count in int64)."""
    n = 1
    for d in shape:
        n *= check_int64(d, f"{what}: size", span)
    return check_int64(n, f"{what}: element count", span)


def itemsize(dtype: str) -> int:
    """Bytes per element of ``dtype`` as stored (numpy's item size; the bit width rounded up to bytes
    for a dtype numpy has no type for)."""
    try:
        return int(_dt.to_numpy(dtype).itemsize)
    except Exception:   # noqa: BLE001 - a dtype without a tensor representation
        try:
            return max(1, (_dt.bits(dtype) + 7) // 8)
        except Exception:   # noqa: BLE001
            return 1


def check_rank(ndim: int, what: str = "tensor", span: Optional[Span] = None) -> None:
    """RUNTIME.LIMIT.1: a tensor at run time has at most ``MAX_RANK`` dimensions; LimitExceededError
    naming the rank before anything is allocated."""
    if ndim > MAX_RANK:
        raise LimitExceededError(f"{what} of rank {ndim}: a tensor has at most {MAX_RANK} dimensions", span,
                                 limit="rank", value=ndim)


def check_alloc(shape: Sequence[Any], dtype: str, limits: Optional[Limits] = None, what: str = "tensor",
                span: Optional[Span] = None) -> int:
    """The byte size of a ``dtype`` tensor of ``shape``; LimitExceededError, before anything is
    allocated, when a size or the element count is outside int64 or the size exceeds ``max_bytes``.
    An unknown dtype (``void``) counts one byte per element, a lower bound of its size."""
    lim = DEFAULT_LIMITS if limits is None else limits
    check_rank(len(shape), what, span)
    n = element_count(shape, what, span)
    nbytes = n * itemsize(dtype)
    if n == 0:
        # an empty tensor is still described by its extents: numpy and XLA compute the bytes of its
        # non-empty axes, which must lie in int64 too (R.one_hot of an empty tensor, depth 2**63 - 1)
        span_bytes = itemsize(dtype)
        for d in shape:
            span_bytes *= max(int(d), 1)
        if span_bytes > INT64_MAX:
            raise LimitExceededError(
                f"{what} of shape {tuple(int(d) for d in shape)} and dtype {dtype}: empty, but its non-empty "
                f"dimensions span {span_bytes} bytes, outside the int64 range", span, limit="int64", value=span_bytes)
    if nbytes > lim.max_bytes:
        raise LimitExceededError(
            f"{what} of shape {tuple(int(d) for d in shape)} and dtype {dtype} needs {nbytes} bytes, more than "
            f"max_bytes = {lim.max_bytes}", span, limit="max_bytes", value=nbytes)
    return nbytes


def allocation_error(err: BaseException, what: str = "tensor", span: Optional[Span] = None) -> LimitExceededError:
    """The LimitExceededError for numpy's failure to allocate (MemoryError, 'array is too big'), where
    a size could not be checked beforehand (RUNTIME.LIMIT.3)."""
    return LimitExceededError(f"{what}: the allocation failed ({type(err).__name__}: {err})", span,
                              limit="max_bytes")


def is_allocation_failure(err: BaseException) -> bool:
    """Whether ``err`` is numpy's report of an allocation it cannot make, or XLA's
    (``RESOURCE_EXHAUSTED``, an out-of-memory runtime error of JAX)."""
    if isinstance(err, MemoryError):
        return True
    text = str(err)
    if isinstance(err, RuntimeError) and type(err).__name__ in ("JaxRuntimeError", "XlaRuntimeError"):
        return "RESOURCE_EXHAUSTED" in text or "Out of memory" in text
    return isinstance(err, ValueError) and ("array is too big" in text or "maximum supported dimension" in text
                                            or "negative dimensions" in text)


# ---------------------------------------------------------------------------------------------------
# Steps (RUNTIME.LIMIT.4)
# ---------------------------------------------------------------------------------------------------


class StepBudget:
    """The loop iterations of one PrimFunc call, counted against ``max_steps``."""

    __slots__ = ("max", "used", "paused")

    def __init__(self, max_steps: int) -> None:
        self.max = int(max_steps)
        self.used = 0
        self.paused = 0

    def take(self, n: int, span: Optional[Span] = None, what: str = "loop") -> None:
        """Count ``n`` iterations; LimitExceededError when the total passes ``max_steps``."""
        if self.paused or n <= 0:
            return
        total = self.used + int(n)
        if total > self.max:
            raise LimitExceededError(
                f"{what}: {total} loop iterations in one PrimFunc call exceed max_steps = {self.max}", span,
                limit="max_steps", value=total)
        self.used = total

    def give_back(self, n: int) -> None:
        self.used -= int(n)


def while_limit_error(limit: int, span: Optional[Span] = None, value: Optional[int] = None) -> LimitExceededError:
    """RUNTIME.LIMIT.4: one execution of a while loop past ``max_while_steps`` iterations."""
    return LimitExceededError(f"while loop: more than max_while_steps = {limit} iterations", span,
                              limit="max_while_steps", value=value)


# ---------------------------------------------------------------------------------------------------
# Calls (RUNTIME.LIMIT.7)
# ---------------------------------------------------------------------------------------------------


class CallDepth:
    """The calls of Relax functions active at once, counted against ``max_depth``."""

    __slots__ = ("max", "depth")

    def __init__(self, max_depth: int) -> None:
        self.max = int(max_depth)
        self.depth = 0

    def enter(self, name: str, span: Optional[Span] = None) -> None:
        """One more active call (of function ``name``); LimitExceededError past ``max_depth``."""
        if self.depth >= self.max:
            raise depth_error(self.max, name, span)
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    def room(self) -> int:
        """How many more calls may become active."""
        return self.max - self.depth


def depth_error(limit: int, name: Optional[str] = None, span: Optional[Span] = None) -> LimitExceededError:
    """RUNTIME.LIMIT.7: a call past ``max_depth`` active calls (``name``: the function called; None
    when the implementation's own stack ran out first)."""
    what = f"calling '{name}'" if name else "the implementation's stack is exhausted"
    return LimitExceededError(f"{what}: more than max_depth = {limit} nested function calls", span,
                              limit="max_depth", value=limit + 1 if name else None)


# ---------------------------------------------------------------------------------------------------
# Workers (RUNTIME.LIMIT.9)
# ---------------------------------------------------------------------------------------------------


def check_workers(n: int, limits: Optional[Limits] = None, what: str = "the local view",
                  span: Optional[Span] = None) -> int:
    """RUNTIME.LIMIT.9: ``n`` workers (a device mesh's size) for the local view; LimitExceededError,
    before any worker is started, past ``max_workers``."""
    lim = DEFAULT_LIMITS if limits is None else limits
    n = int(n)
    if n > lim.max_workers:
        raise LimitExceededError(f"{what}: a device mesh of {n} devices needs {n} workers, more than "
                                 f"max_workers = {lim.max_workers}", span, limit="max_workers", value=n)
    return n


def python_recursion_limit(max_depth: int) -> int:
    """The Python recursion limit an evaluator sets so that ``max_depth`` nested Relax calls fit on
    Python's stack (an evaluation takes some tens of Python frames per Relax call)."""
    return max(20000, 64 * int(max_depth) + 5000)


__all__ = [
    "INT64_MIN", "INT64_MAX", "MAX_RANK", "check_rank", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_WHILE_STEPS", "DEFAULT_MAX_DEPTH", "Limits", "DEFAULT_LIMITS", "resolve", "fits_int64",
    "check_int64", "dtype_range", "check_in_dtype", "element_count", "itemsize", "check_alloc",
    "allocation_error", "is_allocation_failure", "StepBudget", "default_max_bytes", "while_limit_error",
    "CallDepth", "depth_error", "python_recursion_limit", "DEFAULT_MAX_WORKERS", "check_workers",
]

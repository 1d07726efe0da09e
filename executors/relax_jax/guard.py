"""The compile-time guard of the JAX executor (RUNTIME.LIMIT.1, RUNTIME.LIMIT.3): XLA aborts the whole
process on an array whose element count overflows int64 ("overflow in static extent product"), so
no computation reaches XLA before every array in it -- results and intermediates, inside loops and
branches -- has been checked: its element count must fit int64 and its size must not exceed
``max_bytes``. A violation is a :class:`~relax_ref.errors.LimitExceededError`, raised before
lowering.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Optional

import jax.numpy as jnp
import numpy as np

from relax_ref.errors import LimitExceededError
from relax_ref.limits import INT64_MAX, Limits

from .float_rules import for_16bit_floats


def _jaxprs_in(value: Any) -> Iterator[Any]:
    """The jaxprs held by an equation parameter (sub-computations of loops, branches, calls)."""
    if hasattr(value, "jaxpr") and hasattr(value, "consts"):        # ClosedJaxpr
        yield value.jaxpr
    elif hasattr(value, "eqns") and hasattr(value, "outvars"):      # Jaxpr
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _jaxprs_in(v)


_HALF_FLOATS = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def _check_aval(aval: Any, limits: Limits) -> bool:
    """RUNTIME.LIMIT.1/3 for one array; whether it is a 16-bit float array."""
    shape = getattr(aval, "shape", None)
    dtype = getattr(aval, "dtype", None)
    if shape is None or dtype is None:
        return False
    half = dtype in _HALF_FLOATS
    n = 1
    for d in shape:
        if not isinstance(d, (int, np.integer)):
            return half
        n *= int(d)
    if n > INT64_MAX:
        raise LimitExceededError(f"an array of shape {tuple(shape)} has {n} elements, outside the int64 range",
                                 limit="int64", value=n)
    nbytes = n * np.dtype(dtype).itemsize
    if nbytes > limits.max_bytes:
        raise LimitExceededError(f"an array of shape {tuple(shape)} and dtype {np.dtype(dtype).name} needs "
                                 f"{nbytes} bytes, more than max_bytes = {limits.max_bytes}",
                                 limit="max_bytes", value=nbytes)
    return half


def check_jaxpr(jaxpr: Any, limits: Limits) -> bool:
    """Check every array of ``jaxpr`` (a Jaxpr or ClosedJaxpr) and of its sub-jaxprs; whether one of
    them is a 16-bit float array (:func:`relax_jax.float_rules.for_16bit_floats`)."""
    stack = list(_jaxprs_in(jaxpr))
    seen = set()
    half = False
    while stack:
        jx = stack.pop()
        if id(jx) in seen:
            continue
        seen.add(id(jx))
        for v in list(jx.invars) + list(jx.outvars):
            half |= _check_aval(getattr(v, "aval", None), limits)
        for eqn in jx.eqns:
            for v in eqn.outvars:
                half |= _check_aval(getattr(v, "aval", None), limits)
            for p in eqn.params.values():
                stack.extend(_jaxprs_in(p))
    return half


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (and back on after it, if it was on).

    Tracing and lowering a large function allocate objects that mostly live on (the jaxpr, its
    tracers, the MLIR module), so the collector's thresholds start full collections one after the
    other, each walking every object of the process (the Relax module, the trace so far): about a
    tenth of the CPU time of tracing and lowering a 16-layer model. Nothing is freed later than the
    next collection; no value changes."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def guarded_compile(jitted: Any, args: Any, limits: Limits, compiler_options: Optional[Dict[str, Any]] = None,
                    after_trace: Optional[Callable[[], None]] = None) -> Any:
    """``jitted.lower(*args).compile(compiler_options)`` after :func:`check_jaxpr` of the traced
    computation; ``after_trace()`` runs once the trace is done, before anything is lowered (it may
    raise to abandon the compilation). Tracing and lowering run with the collector paused
    (:func:`gc_paused`). A computation with 16-bit float arrays compiles with
    :func:`relax_jax.float_rules.for_16bit_floats` of the options."""
    with gc_paused():
        traced = jitted.trace(*args)
        if after_trace is not None:
            after_trace()
        half = check_jaxpr(traced.jaxpr, limits)
        lowered = traced.lower()
    if half and compiler_options:
        compiler_options = for_16bit_floats(compiler_options)
    return lowered.compile(compiler_options)


__all__ = ["check_jaxpr", "gc_paused", "guarded_compile"]

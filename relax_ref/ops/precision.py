"""The bfloat16 rule of the reference operators (OP.SEM.7): an operator on ``bfloat16`` is its
``float32`` definition rounded once, at its result.

Which dtype keeps float32 intermediates is :func:`relax_ref.ir.dtype.float32_intermediates` (the one
definition, also read by the scalar intrinsics and by relax_jax's lowerings); :func:`float32_once`
applies it to a reference function that is written once for every float dtype.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..ir import dtype as _dt


def _is_bfloat16(a: Any) -> bool:
    return isinstance(a, np.ndarray) and _dt.float32_intermediates(_dt.from_numpy(a.dtype))


def float32_once(reference: Callable[..., Any]) -> Callable[..., Any]:
    """A reference function ``(args, attrs, call, ctx)`` whose ``bfloat16`` operator is its ``float32``
    definition rounded once (OP.SEM.7): ``bfloat16`` operands are widened to float32 (exactly), the
    function computes with float32 intermediates and constants, and each float32 result is rounded to
    bfloat16 once. Other dtypes call the function as it is (float16 rounds every stage)."""
    @functools.wraps(reference)
    def wrapped(args, attrs, call, ctx):
        if not any(_is_bfloat16(a) for a in args):
            return reference(args, attrs, call, ctx)
        bf = _dt.to_numpy("bfloat16")
        out = reference([a.astype(np.float32) if _is_bfloat16(a) else a for a in args], attrs, call, ctx)
        if isinstance(out, tuple):
            return tuple(o.astype(bf) if o.dtype == np.float32 else o for o in out)
        return np.asarray(out).astype(bf)
    return wrapped


__all__ = ["float32_once"]

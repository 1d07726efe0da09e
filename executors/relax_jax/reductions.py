"""Maxima, minima and an attention's row sums over a long last axis, in the windows XLA's CPU
backend reduces them in anyway.

For an axis longer than 32 elements, XLA's CPU backend rewrites a reduction into a windowed
reduction (``reduce-window`` over windows of 32, padded with the identity) and a reduction of the
windows (its tree reduction rewriter), and then fuses no producer into the windowed reduction: its
operand (the masked, scaled scores of an attention) is written out whole and read back. Reduced
here as ``x.reshape(..., n / 32, 32)`` over the last axis, then over the windows, the first stage is
a reduction over 32 elements that XLA fuses with the operations producing its operand. A maximum or
a minimum is exact in any order, so the values are the same (but for a row holding a NaN: XLA's CPU
maximum of it is not always NaN, and which element it gives depends on the vector lanes the NaN falls
in; R.max's and R.min's NaN rule is :mod:`relax_jax.extreme_fold`'s). Sums are defined up to reassociation
(OP.SEM.5); summed in windows, XLA vectorizes the fused first stage and the last bits move, and a
product that such a fused sum consumes is contracted into it (PRIM.FLOAT.1; measured on jaxlib 0.10,
``tests/jax/test_reductions.py``, where XLA's own windowed reduction contracts none). So sums are left
to XLA but one: the row sums of a softmax's or an attention's exponentials (no product among them,
:func:`window_sums`), where a prefill over 512 keys then writes and reads one score-sized array fewer (the masked
exponentials before XLA's windowed reduction; measured on ``benchmarks/jax_bench.py``'s decoder
prefill, the error against the reference unchanged: 3.2e-6 at most at L=512 either way).

Where jaxlib's YNN library fusions run a softmax as one kernel (the default compiler options), the
strict float rules keep them to single dots (:data:`relax_jax.float_rules.STRICT_OPTIONS`), so this
is part of the softmax's cost under those rules: a causal softmax over 512 keys writes and reads
one score-sized array fewer.
"""

from __future__ import annotations

from typing import Any, Optional

import jax.numpy as jnp
import numpy as np

#: the window XLA's CPU backend reduces a long axis in
WINDOW = 32

_OPS = {"max": jnp.max, "min": jnp.min}
_FLOATS = (np.dtype("float16"), np.dtype(jnp.bfloat16), np.dtype("float32"), np.dtype("float64"))


def windowed(op: str, x: Any) -> Optional[Any]:
    """``x`` with its last axis reduced by ``op`` (``max`` or ``min``) within windows of
    :data:`WINDOW`, the last window padded with the identity: shape ``(..., ceil(n / 32))``; None
    when the last axis is not longer than a window (or not static), ``op`` is another reduction or
    ``x`` is not a float array."""
    n = x.shape[-1] if x.ndim else 0
    if not isinstance(n, (int, np.integer)):       # a symbolic dimension (jax.export): left to XLA
        return None
    if op not in _OPS or n <= WINDOW or np.dtype(x.dtype) not in _FLOATS:
        return None
    k = -(-n // WINDOW)
    if k * WINDOW != n:
        fill = np.asarray(-np.inf if op == "max" else np.inf, x.dtype)
        x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, k * WINDOW - n)], constant_values=fill)
    return _OPS[op](x.reshape(x.shape[:-1] + (k, WINDOW)), axis=-1)


def window_sums(x: Any) -> Any:
    """``x`` (a float array) with its last axis summed within windows of :data:`WINDOW`: shape
    ``(..., n / 32)``, to be summed over the windows; ``x`` itself when that axis is not a multiple of
    the window longer than one (padding it would write a copy). For a sum whose operand is no product
    (an attention's exponentials): the first stage fuses with the operations that make its operand,
    where XLA's own windowed reduction of the row reads it back from memory (module docstring); the
    windows are the ones XLA sums the row in."""
    n = x.shape[-1] if x.ndim else 0
    if not isinstance(n, (int, np.integer)) or n <= WINDOW or n % WINDOW or np.dtype(x.dtype) not in _FLOATS:
        return x
    return jnp.sum(x.reshape(x.shape[:-1] + (n // WINDOW, WINDOW)), axis=-1)


def reduce_last(op: str, x: Any, keepdims: bool = False) -> Any:
    """``x`` reduced over its last axis by ``op`` (``max`` or ``min``), in windows when that axis is
    long (module docstring)."""
    w = windowed(op, x)
    return _OPS[op](x if w is None else w, axis=-1, keepdims=keepdims)


def reduce(op: str, x: Any, axis: Any, keepdims: bool = False) -> Any:
    """``x`` reduced by ``op`` (``max`` or ``min``) over ``axis`` (an int or a tuple of ints), through
    :func:`reduce_last` when that is the last axis alone."""
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if x.ndim and len(axes) == 1 and int(axes[0]) % x.ndim == x.ndim - 1:
        return reduce_last(op, x, keepdims)
    return _OPS[op](x, axis=axis, keepdims=keepdims)


__all__ = ["WINDOW", "windowed", "window_sums", "reduce_last", "reduce"]

"""``lax`` forms of the ``jax.numpy`` calls the lowerings make most, for the speed of tracing.

Under ``jax.jit`` a ``jax.numpy`` function costs several times the ``lax`` primitive it binds (its
own ``jit`` wrapper, argument checks and dtype promotion), and the walker's trace time grows with the
number of such calls: a 16-layer decoder makes thousands. The functions here bind the primitives
that the ``jax.numpy`` spelling binds, for operands that need no promotion (the same dtype; the
callers convert first), so the traced computation -- and every value -- is the same; a conversion to
the dtype an array already has binds nothing, as ``astype`` does. Anything else (mixed dtypes,
Python scalars, 16-bit float reductions) falls back to ``jax.numpy``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_ARRAY_TYPES = (jax.core.Tracer, jax.Array)


def _aval(x: Any):
    return x.aval if isinstance(x, jax.core.Tracer) else jax.typeof(x)


def astype(x: Any, dtype: Any) -> Any:
    """``jnp.asarray(x).astype(dtype)``: nothing bound when ``x`` is an array of ``dtype`` already
    (not weakly typed)."""
    if isinstance(x, _ARRAY_TYPES):
        a = _aval(x)
        if a.dtype == dtype and not a.weak_type:
            return x
        return lax.convert_element_type(x, dtype)
    return jnp.asarray(x).astype(dtype)


def _shape(x: Any) -> Tuple[int, ...]:
    return x.shape if isinstance(x, (jax.core.Tracer, jax.Array, np.ndarray)) else tuple(np.shape(x))


def _static(shapes: Sequence[Tuple[Any, ...]]) -> bool:
    """Whether every extent is an int (not a ``jax.export`` dimension expression)."""
    return all(type(d) is int for s in shapes for d in s)


def _same_dtype(xs: Sequence[Any]) -> Optional[np.dtype]:
    """The dtype all of ``xs`` share as strongly typed arrays or numpy values, else None."""
    dt = None
    for x in xs:
        if isinstance(x, _ARRAY_TYPES):
            a = _aval(x)
            if a.weak_type:
                return None
            d = a.dtype
        elif isinstance(x, (np.ndarray, np.generic)):
            d = x.dtype
        else:
            return None
        if dt is None:
            dt = d
        elif d != dt:
            return None
    return dt


def _broadcast(shapes: Sequence[Tuple[int, ...]]) -> Optional[Tuple[int, ...]]:
    """The numpy broadcast of ``shapes`` (None when they do not broadcast)."""
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        k = nd - len(s)
        for a, d in enumerate(s):
            o = out[k + a]
            if d != o:
                if o == 1:
                    out[k + a] = d
                elif d != 1:
                    return None
    return tuple(out)


def _ranked(xs: Sequence[Any]) -> Optional[list]:
    """``xs`` brought to one rank as ``jax.numpy`` broadcasting does (leading axes of 1; a rank-0
    operand stays a scalar), or None when their shapes do not broadcast."""
    shapes = [_shape(x) for x in xs]
    if not _static(shapes) or _broadcast(shapes) is None:
        return None
    nd = max(len(s) for s in shapes)
    out = []
    for x, s in zip(xs, shapes):
        if 0 < len(s) < nd:
            k = nd - len(s)
            x = lax.broadcast_in_dim(x, (1,) * k + s, tuple(range(k, nd)))
        out.append(x)
    return out


def _binary(prim, jfn):
    def f(a: Any, b: Any) -> Any:
        if _same_dtype((a, b)) is None:
            return jfn(a, b)
        r = _ranked((a, b))
        if r is None:
            return jfn(a, b)
        return prim(*r)
    f.__name__ = jfn.__name__
    f.__doc__ = f"``jnp.{jfn.__name__}`` of operands of one dtype as the ``lax`` primitive."
    return f


add = _binary(lax.add, jnp.add)
subtract = _binary(lax.sub, jnp.subtract)
multiply = _binary(lax.mul, jnp.multiply)


def _divide(a: Any, b: Any) -> Any:
    dt = _same_dtype((a, b))
    if dt is None or not jnp.issubdtype(dt, jnp.inexact):
        return jnp.divide(a, b)
    r = _ranked((a, b))
    return jnp.divide(a, b) if r is None else lax.div(*r)


divide = _divide

#: unary ``jax.numpy`` functions that bind one primitive on a float operand
_UNARY = {jnp.exp: lax.exp, jnp.log: lax.log, jnp.sqrt: lax.sqrt, jnp.cos: lax.cos, jnp.sin: lax.sin,
          jnp.tanh: lax.tanh, jnp.negative: lax.neg}

#: binary ``jax.numpy`` functions and their forms here
_BINARY = {jnp.add: add, jnp.subtract: subtract, jnp.multiply: multiply, jnp.divide: divide}


def _unary(prim, jfn):
    def f(x: Any) -> Any:
        dt = _same_dtype((x,))
        if dt is None or not jnp.issubdtype(dt, jnp.floating):
            return jfn(x)
        return prim(x)
    return f


_FAST_UNARY = {k: _unary(v, k) for k, v in _UNARY.items()}


def fast_fn(fn: Any) -> Any:
    """The form of ``fn`` here when there is one (a ``jax.numpy`` unary or binary function), else
    ``fn``."""
    return _FAST_UNARY.get(fn) or _BINARY.get(fn, fn)


def where(cond: Any, x: Any, y: Any) -> Any:
    """``jnp.where(cond, x, y)`` for ``x`` and ``y`` of one dtype and a boolean ``cond``."""
    if _same_dtype((x, y)) is None or _same_dtype((cond,)) != np.dtype(bool):
        return jnp.where(cond, x, y)
    shapes = [_shape(v) for v in (cond, x, y)]
    shape = _broadcast(shapes) if _static(shapes) else None
    if shape is None:
        return jnp.where(cond, x, y)
    nd = len(shape)
    args = []
    for v, s in zip((cond, x, y), shapes):
        if s != shape:
            v = lax.broadcast_in_dim(v, shape, tuple(range(nd - len(s), nd)))
        args.append(v)
    return lax.select(*args)


def reshape(x: Any, shape: Sequence[int]) -> Any:
    """``x.reshape(shape)`` of an array (no ``-1``; a ``jax.export`` dimension goes to
    ``jnp.reshape``)."""
    if not all(isinstance(d, (int, np.integer)) for d in shape) or not _static([_shape(x)]):
        return jnp.reshape(x, tuple(shape))
    shape = tuple(int(d) for d in shape)
    if isinstance(x, _ARRAY_TYPES):
        if _aval(x).shape == shape:
            return x
        return lax.reshape(x, shape)
    return jnp.reshape(x, shape)


def _keep(r: Any, shape: Tuple[int, ...], axes: Tuple[int, ...]) -> Any:
    kept = tuple(1 if a in axes else d for a, d in enumerate(shape))
    return lax.broadcast_in_dim(r, kept, tuple(a for a in range(len(shape)) if a not in axes))


def _reduce_axes(x: Any, axis: Any) -> Tuple[int, ...]:
    nd = len(_shape(x))
    axes = tuple(range(nd)) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    return tuple(sorted(int(a) % nd for a in axes))


def reduce_sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jnp.sum`` of a ``float32``/``float64`` array (no promotion, accumulated in the dtype)."""
    dt = _same_dtype((x,))
    if dt not in (np.dtype("float32"), np.dtype("float64")) or not isinstance(x, _ARRAY_TYPES) or \
            not _static([_shape(x)]):
        return jnp.sum(x, axis=axis, keepdims=keepdims)
    axes = _reduce_axes(x, axis)
    r = lax.reduce_sum(x, axes)
    return _keep(r, _shape(x), axes) if keepdims else r


def reduce_max(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jnp.max`` of a ``float32``/``float64`` array."""
    dt = _same_dtype((x,))
    if dt not in (np.dtype("float32"), np.dtype("float64")) or not isinstance(x, _ARRAY_TYPES) or \
            not _static([_shape(x)]):
        return jnp.max(x, axis=axis, keepdims=keepdims)
    axes = _reduce_axes(x, axis)
    r = lax.reduce_max(x, axes)
    return _keep(r, _shape(x), axes) if keepdims else r


def iota_lt(n: int, bound: Any, shape: Sequence[int], axis: int) -> Any:
    """``jnp.arange(n, dtype=int64).reshape(shape) < bound``: True on the first ``bound`` positions of
    ``axis`` (``shape`` is all 1 but ``n`` on ``axis``)."""
    if not _static([tuple(shape), (n,)]):
        return jnp.arange(n, dtype=jnp.int64).reshape(tuple(shape)) < bound
    io = lax.iota(np.int64, int(n))
    shape = tuple(int(d) for d in shape)
    if shape != (int(n),):
        io = lax.reshape(io, shape)
    return jnp.less(io, bound) if not isinstance(bound, _ARRAY_TYPES) or _same_dtype((bound,)) != np.dtype(np.int64) \
        else lax.lt(io, bound)


__all__ = ["astype", "add", "subtract", "multiply", "divide", "fast_fn", "where", "reshape", "reduce_sum", "reduce_max",
           "iota_lt"]

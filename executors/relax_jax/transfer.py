"""Moving values between the host and compiled code: padding arguments to their buckets, cutting
padded results to their logical shapes (on the host, without per-shape compilations), aliasing host
views on the device, the host form of executor values passed between compiled functions, and the
arguments as the compiled code takes them (plain native-order NumPy arrays, JAX arrays on the
executable's device).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import SingleDeviceSharding

from relax_ref import values as rv
from relax_ref.arith.evaluate import eval_prim
from relax_ref.interp.kv_cache import AttentionKVCache
from relax_ref.interp.paged_kv_cache import PagedKVCache
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir.functor import prim_vars_in

from .values import PrimV, ShapeV, SymInt, TVal


def _poison(dtype: np.dtype) -> Any:
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "b":
        return True
    if dtype.kind in "iu":
        return np.iinfo(dtype).max
    return 0


#: the largest array :func:`filled` makes on the host and copies to the device
HOST_FILL_BYTES = 32 << 20


def filled(shape: Tuple[int, ...], value: Any, dtype: Any) -> Any:
    """``shape`` filled with ``value`` on JAX's default device, outside any trace (host mode, a paged
    cache's pool). Up to :data:`HOST_FILL_BYTES` made by numpy and copied, without an XLA compilation
    (``jnp.full`` compiles a kernel per shape and dtype: 11 ms for a scalar, 35 ms for a larger shape on a
    2-core CPU, against 1.2 ms to copy a small model's page pool); a larger array is filled on the
    device, faster than the copy (135 MB: 39 ms against 67-100 ms) once its kernel is compiled."""
    dt = np.dtype(dtype)
    if int(np.prod(shape, dtype=np.int64)) * dt.itemsize <= HOST_FILL_BYTES:
        return jax.device_put(np.full(shape, value, dt))
    return jnp.full(shape, value, dt)


def pad_to(a: Any, shape: Tuple[int, ...], poison: bool = False) -> Any:
    if tuple(a.shape) == shape:
        return a
    src = np.asarray(a)
    out = np.full(shape, _poison(src.dtype), src.dtype) if poison else np.zeros(shape, src.dtype)
    out[tuple(slice(0, n) for n in src.shape)] = src
    return out


def views_to_device(host: List[np.ndarray], device, sharding) -> List[Any]:
    """JAX arrays of host arrays (views of padded buffers), aliasing them where the backend can (the
    CPU). ``jax.device_put(..., may_alias=True)`` does the same with 5-10x the Python overhead per
    array (40-50 us against 5 us), which matters once per result per call of a decode loop; it is
    the fallback when JAX's internal transfer entry point is not there. The abstract value of a shape
    is made once per call (the caches of a decode step share one: making it costs as much as the
    transfer)."""
    put = _direct_put()
    if put is not None:
        try:
            avals: Dict[Tuple[Any, Any], Any] = {}
            return [put(a, device, sharding, avals) for a in host]
        except (TypeError, ValueError, AttributeError):
            pass
    return list(jax.device_put(host, device, may_alias=True))


@functools.lru_cache(maxsize=None)
def _direct_put() -> Optional[Callable[..., Any]]:
    """JAX's internal single-array transfer, when this JAX version has it."""
    try:
        from jax._src import core as _core
        from jax._src.lib import xla_client as _xc
    except ImportError:
        return None
    if not (callable(getattr(_xc, "batched_device_put", None)) and hasattr(_core, "ShapedArray")):
        return None

    def put(a, device, sharding, avals):
        key = (a.shape, a.dtype)
        aval = avals.get(key)
        if aval is None:
            aval = avals[key] = _core.ShapedArray(a.shape, a.dtype)
        return _xc.batched_device_put(aval, sharding, [a], [device], True)
    return put


def _extent(d: SymInt, sym: Optional[Dict[P.PrimVar, int]]) -> int:
    """A logical extent on the host: from its expression over the entry's symbolic values when it has
    one (no read from the device), else read back."""
    if d.is_static:
        return int(d.val)
    if d.expr is not None and sym:
        fv = prim_vars_in(d.expr)
        if all(x in sym for x in fv):
            r = eval_prim(d.expr, {x: sym[x] for x in fv})
            if isinstance(r, (int, np.integer)):
                return int(r)
    return int(np.asarray(d.val))


def collect_cuts(v: Any, out: list, seen: set, sym: Optional[Dict[P.PrimVar, int]] = None,
                  memo: Optional[Dict[Any, int]] = None) -> None:
    """The padded tensors of result ``v`` with their logical shapes, each once (``memo``: extents
    by expression, as results often share one, e.g. the ``L + 1`` rows of every KV cache)."""
    if memo is None:
        memo = {}
    if isinstance(v, TVal):
        if v.valid is not None and id(v) not in seen:
            seen.add(id(v))
            shape = []
            for d, n in zip(v.valid, v.data.shape):
                if d is None:
                    shape.append(int(n))
                elif d.expr is not None:
                    e = memo.get(d.expr)
                    if e is None:
                        e = memo[d.expr] = _extent(d, sym)
                    shape.append(e)
                else:
                    shape.append(_extent(d, sym))
            shape = tuple(shape)
            if shape != tuple(v.data.shape):
                out.append((v, shape))
    elif isinstance(v, tuple) and not isinstance(v, ShapeV):
        for x in v:
            collect_cuts(x, out, seen, sym, memo)


def cut(x: Any, shape: Tuple[int, ...]) -> Any:
    if tuple(x.shape) == tuple(shape):
        return x
    return np.asarray(x)[tuple(slice(0, n) for n in shape)]


def _unpad(t: TVal, device) -> Any:
    data = t.data
    if t.valid is None:
        return data
    shape = tuple(int(np.asarray(d.val)) for d in t.dims())
    if shape == tuple(data.shape):
        return data
    # cut through host memory: slicing on the device would compile one XLA slice per logical shape
    view = np.asarray(data)[tuple(slice(0, n) for n in shape)]
    return views_to_device([view], device, SingleDeviceSharding(device))[0]


def unpad_value(v: Any, device) -> Any:
    if isinstance(v, TVal):
        return TVal(_unpad(v, device))
    if isinstance(v, ShapeV):
        return ShapeV(int(np.asarray(d.val)) for d in v)
    if isinstance(v, PrimV):
        val = v.val if isinstance(v.val, (bool, int, float, np.generic)) else np.asarray(v.val).item()
        return PrimV(val, v.dtype, SymInt.static(val) if _dt.is_integer(v.dtype) else None)
    if isinstance(v, tuple):
        return tuple(unpad_value(x, device) for x in v)
    return v


def exportable_arg(a: Any) -> bool:
    if isinstance(a, (TVal, ShapeV, PrimV)):
        return True
    if isinstance(a, tuple):
        return all(exportable_arg(x) for x in a)
    return False


def to_user(a: Any) -> Any:
    if isinstance(a, TVal):
        return a.data
    if isinstance(a, ShapeV):
        return rv.ShapeValue(int(d.val) for d in a)
    if isinstance(a, PrimV):
        val = a.val if isinstance(a.val, (bool, int, float, np.generic)) else np.asarray(a.val).item()
        if isinstance(val, np.generic):
            return val
        return _dt.to_numpy(a.dtype).type(val) if a.dtype != "bool" else np.bool_(val)
    if isinstance(a, tuple):
        return tuple(to_user(x) for x in a)
    return a


# ---------------------------------------------------------------------------------------------------
# Arguments as the compiled code takes them
# ---------------------------------------------------------------------------------------------------


def plain_arrays(args: Sequence[Any]) -> Sequence[Any]:
    """``args`` with each NumPy array that JAX does not take as it is (a masked array, a subclass, a
    byte order other than the machine's) as a plain native-order array of its values, as the reference
    reads it (its mask ignored); ``args`` itself when there is none."""
    def plain(a: Any) -> Any:
        if isinstance(a, np.ndarray) and (type(a) is not np.ndarray or not a.dtype.isnative):
            return np.asarray(a).astype(a.dtype.newbyteorder("="), copy=False)
        if type(a) is tuple:
            return tuple(plain(x) for x in a)
        return a
    out = tuple(plain(a) for a in args)
    return args if all(x is a for x, a in zip(out, args)) else out


def on_device(args: Sequence[Any], want: Any) -> Sequence[Any]:
    """``args`` with each JAX array placed elsewhere than ``want`` (the executable's sharding) copied
    there, as NumPy arguments are transferred (a KV cache's buffer replaced in its object); ``args``
    itself when none is."""
    def move(a: Any) -> Any:
        if isinstance(a, jax.Array):
            if isinstance(a, jax.core.Tracer) or a.is_deleted() or a.sharding == want:
                return a
            return jax.device_put(a, want)
        if type(a) is tuple:
            return tuple(move(x) for x in a)
        if isinstance(a, AttentionKVCache) and isinstance(a.data, jax.Array):
            a.data = move(a.data)
        elif isinstance(a, PagedKVCache) and isinstance(a.pool, jax.Array):
            a.pool = move(a.pool)
        return a
    out = tuple(move(a) for a in args)
    return args if all(x is a for x, a in zip(out, args)) else out


__all__ = ["pad_to", "views_to_device", "collect_cuts", "cut", "unpad_value", "exportable_arg", "to_user", "plain_arrays",
           "on_device"]

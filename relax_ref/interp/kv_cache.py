"""TVM's attention KV-cache object and its ``vm.builtin.attention_kv_cache_*`` functions (spec rules
CALL.KVCACHE.1 to CALL.KVCACHE.8).

A cache is a mutable object holding a *reserved* buffer (``data``, first axis the reserved rows) of
which the first ``fill`` rows are the cached sequence; ``pos`` is the next row written by the windowed
(sliding-window) append. ``relax.frontend.nn.KVCache`` creates one with ``attention_kv_cache_create``
(through ``R.call_pure_packed``), appends with ``attention_kv_cache_append`` (through
``R.call_inplace_packed``, the cache argument mutated and returned) and reads it with
``attention_kv_cache_view``. Every failed requirement is ``op_runtime`` (TVM's internal check).

The functions receive the interpreter's values (numpy arrays, :class:`ShapeValue`,
:class:`PrimScalar`) and are shared by the reference and, through :class:`KVCacheOps`, by relax_jax:
the rules are written once, over an array namespace.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ..errors import ArityMismatchError, OpRuntimeError, TypeMismatchError
from ..values import PrimScalar, ShapeValue, describe
from ..limits import INT64_MAX, check_alloc


class AttentionKVCache:
    """A KV cache (CALL.KVCACHE.1): ``data`` the reserved buffer, ``fill`` the cached rows, ``pos`` the
    windowed append position. An object, compared by identity."""

    __slots__ = ("data", "fill", "pos")

    def __init__(self, data: Any, fill: int, pos: int) -> None:
        self.data = data
        self.fill = fill
        self.pos = pos

    def __repr__(self) -> str:
        return f"AttentionKVCache({tuple(self.data.shape)}, {self.data.dtype}, fill={self.fill})"


def kv_error(msg: str) -> OpRuntimeError:
    return OpRuntimeError(f"vm.builtin.attention_kv_cache_{msg}")


def _int(v: Any, what: str) -> int:
    if isinstance(v, PrimScalar):
        v = v.value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeMismatchError(f"vm.builtin.attention_kv_cache_{what} must be an integer, got {describe(v)}")
    return int(v)


def _cache(v: Any, fn: str) -> AttentionKVCache:
    if not isinstance(v, AttentionKVCache):
        raise TypeMismatchError(f"vm.builtin.attention_kv_cache_{fn} expects a KV cache, got {describe(v)}")
    for what in ("fill", "pos"):        # a caller may have set them: integers (CALL.KVCACHE.1)
        if not isinstance(getattr(v, what), (int, np.integer)):
            raise TypeMismatchError(f"vm.builtin.attention_kv_cache_{fn}: the cache's {what} must be an "
                                    f"integer, got {describe(getattr(v, what))}")
    if not counts_valid(v):
        raise kv_error(f"{fn}: the cache's fill count {v.fill} and window position {v.pos} must satisfy "
                       f"0 <= fill <= {int(v.data.shape[0])} (its reserved rows) and 0 <= position < 2**63")
    return v


def counts_valid(c: AttentionKVCache) -> bool:
    """CALL.KVCACHE.1: the fill count is within the reserved rows and the window position a
    non-negative int64 (a caller may have set either)."""
    return 0 <= c.fill <= int(c.data.shape[0]) and 0 <= c.pos <= INT64_MAX


def _tensor(v: Any, fn: str) -> Any:
    if not hasattr(v, "shape") or not hasattr(v, "dtype") or isinstance(v, (AttentionKVCache, ShapeValue)):
        raise TypeMismatchError(f"vm.builtin.attention_kv_cache_{fn} expects a tensor, got {describe(v)}")
    return v


def grown_rows(reserved: int, needed: int, fn: str) -> int:
    """CALL.KVCACHE.2: the reserved rows double until they hold ``needed`` rows."""
    if needed <= reserved:
        return reserved
    if reserved <= 0:
        raise kv_error(f"{fn}: a cache of 0 reserved rows cannot grow to {needed}")
    while reserved < needed:
        reserved *= 2
    return reserved


def _check_unit(c: AttentionKVCache, value: Any, fn: str) -> None:
    """CALL.KVCACHE.3: the value has the cache's dtype, rank and row shape."""
    if str(value.dtype) != str(c.data.dtype):
        raise kv_error(f"{fn}: dtype mismatch: the cache holds {c.data.dtype}, the value is {value.dtype}")
    if len(value.shape) != len(c.data.shape) or tuple(value.shape[1:]) != tuple(c.data.shape[1:]):
        raise kv_error(f"{fn}: a value of shape {tuple(value.shape)} does not have the cache's row shape "
                    f"{tuple(c.data.shape[1:])}")


class KVCacheOps:
    """The rules of CALL.KVCACHE.* over an array library: ``empty(shape, dtype)``, ``write(buf, row,
    value, n)`` (``buf`` with rows ``[row, row + n)`` replaced by the first ``n`` rows of ``value``, a
    new or the same buffer) and ``read(buf, n)`` (the first ``n`` rows). The reference's numpy
    instance mutates in place and views; relax_jax's writes functionally."""

    def __init__(self, empty: Callable, write: Callable, read: Callable) -> None:
        self.empty, self.write, self.read = empty, write, read

    def _reserve(self, c: AttentionKVCache, rows: int, fn: str) -> None:
        cap = int(c.data.shape[0])
        new = grown_rows(cap, rows, fn)
        if new != cap:
            check_alloc((new,) + tuple(c.data.shape[1:]), str(c.data.dtype), None, f"{fn}: the grown KV cache")
            buf = self.empty((new,) + tuple(c.data.shape[1:]), c.data.dtype)
            c.data = self.write(buf, 0, c.data, cap)

    def create(self, init: Any, reserve: Any, init_fill: Any = -1) -> AttentionKVCache:
        """CALL.KVCACHE.1: a cache of ``reserve`` rows holding ``init``; ``fill`` is ``init_fill`` when
        it is non-negative, else the rows of ``init``; an ``init_fill`` past the rows of the buffer (after
        the append) is an error."""
        init = _tensor(init, "create")
        if not isinstance(reserve, (ShapeValue, tuple)):
            raise TypeMismatchError(f"vm.builtin.attention_kv_cache_create expects a reserve shape, got "
                                    f"{describe(reserve)}")
        reserve = tuple(int(d) for d in reserve)
        if len(reserve) < 1 or len(reserve) != len(init.shape):
            raise kv_error(f"create: the reserve shape {list(reserve)} must have the rank of the initial "
                        f"value {tuple(init.shape)} (at least 1)")
        check_alloc(reserve, str(init.dtype), None, "create: the KV cache's reserved buffer")   # RUNTIME.LIMIT.1/3
        c = AttentionKVCache(self.empty(reserve, init.dtype), 0, 0)
        self.append(c, init, "create")
        k = _int(init_fill, "create's fill count")
        if k > int(c.data.shape[0]):
            raise kv_error(f"create: the fill count {k} is past the cache's {int(c.data.shape[0])} reserved rows")
        if k >= 0:
            c.fill = c.pos = k
        return c

    def append(self, cache: Any, value: Any, fn: str = "append") -> AttentionKVCache:
        """CALL.KVCACHE.2: ``value``'s rows written after the cached ones; the cache grows by
        doubling; returns the cache itself (mutated)."""
        c = _cache(cache, fn)
        _check_unit(c, _tensor(value, fn), fn)
        n = int(value.shape[0])
        self._reserve(c, c.fill + n, fn)
        c.data = self.write(c.data, c.fill, value, n)
        c.fill += n
        return c

    def update(self, cache: Any, value: Any) -> AttentionKVCache:
        """CALL.KVCACHE.4: ``value`` (exactly ``fill`` rows) replaces the cached rows."""
        c = _cache(cache, "update")
        _check_unit(c, _tensor(value, "update"), "update")
        if int(value.shape[0]) != c.fill:
            raise kv_error(f"update: a value of {int(value.shape[0])} rows for a cache holding {c.fill}")
        c.data = self.write(c.data, 0, value, c.fill)
        return c

    def view(self, cache: Any, shape: Any = None) -> Any:
        """CALL.KVCACHE.5: the cached rows, a tensor of shape ``(fill,) + row shape``; a given shape
        must be exactly that."""
        c = _cache(cache, "view")
        want = (c.fill,) + tuple(int(d) for d in c.data.shape[1:])
        if shape is not None:
            if not isinstance(shape, (ShapeValue, tuple)):
                raise TypeMismatchError(f"vm.builtin.attention_kv_cache_view expects a shape, got {describe(shape)}")
            got = tuple(int(d) for d in shape)
            if got != want:
                raise kv_error(f"view: the requested shape {list(got)} is not the cached {list(want)}")
        return self.read(c.data, c.fill)

    def window_override(self, cache: Any, value: Any, max_size: Any, sinks: Any = 0) -> AttentionKVCache:
        """CALL.KVCACHE.6: a sliding window of ``max_size`` rows whose first ``sinks`` rows stay."""
        fn = "window_override"
        c = _cache(cache, fn)
        _check_unit(c, _tensor(value, fn), fn)
        m, s, n = _int(max_size, "window size"), _int(sinks, "sink count"), int(value.shape[0])
        if s < 0 or n > m - s:
            raise kv_error(f"{fn}: {n} rows do not fit a window of {m} rows with {s} sinks")
        if c.pos > m:
            raise kv_error(f"{fn}: the window position {c.pos} is past the window of {m} rows "
                           f"(a larger window wrote the cache before)")
        self._reserve(c, min(c.fill + n, m), fn)
        first = min(n, m - c.pos)
        if first > 0:
            c.data = self.write(c.data, c.pos, value, first)
        c.fill = min(c.fill + n, m)
        c.pos = min(c.pos + n, m)
        if first < n:
            rest = n - first
            tail = value[first:]
            c.data = self.write(c.data, s, tail, rest)
            c.pos = rest + s
        return c

    def window_override_with_sinks(self, cache: Any, value: Any, max_size: Any, sinks: Any) -> AttentionKVCache:
        return self.window_override(cache, value, max_size, sinks)

    def popn(self, caches: Any, n: Any) -> None:
        """CALL.KVCACHE.7: each cache of the tuple drops its last ``n`` rows."""
        k = _int(n, "array_popn count")
        cs = self._caches(caches, "array_popn")
        for c in cs:
            if not 0 <= k <= c.fill:
                raise kv_error(f"array_popn: cannot pop {k} rows of a cache holding {c.fill}")
        for c in cs:
            c.fill -= k
        return None

    def clear(self, caches: Any) -> None:
        """CALL.KVCACHE.8: each cache of the tuple becomes empty (its reserved rows stay)."""
        for c in self._caches(caches, "array_clear"):
            c.fill = c.pos = 0
        return None

    @staticmethod
    def _caches(caches: Any, fn: str) -> Tuple[AttentionKVCache, ...]:
        if not isinstance(caches, tuple) or isinstance(caches, ShapeValue):
            raise TypeMismatchError(f"vm.builtin.attention_kv_cache_{fn} expects a tuple of KV caches, got "
                                    f"{describe(caches)}")
        return tuple(_cache(c, fn) for c in caches)

    def table(self) -> Dict[str, Callable]:
        p = "vm.builtin.attention_kv_cache_"
        funcs = {p + "create": self.create, p + "append": self.append, p + "update": self.update,
                 p + "view": self.view, p + "window_override": self.window_override,
                 p + "window_override_with_sinks": self.window_override_with_sinks,
                 p + "array_popn": self.popn, p + "array_clear": self.clear}
        return {name: arity_checked(name, f) for name, f in funcs.items()}


def arity_checked(name: str, method: Callable) -> Callable:
    """The builtin with its argument count checked (a call with too few or too many arguments is an
    ``arity_mismatch``, never a crash of the evaluator); ``fn`` is an internal parameter, not an argument;
    a builtin taking ``*args`` checks its count itself. Used by the paged KV cache too."""
    params = [q for q in inspect.signature(method).parameters.values() if q.name != "fn"]
    if any(q.kind is q.VAR_POSITIONAL for q in params):
        return method
    lo, hi = sum(q.default is q.empty for q in params), len(params)

    def call(*args: Any) -> Any:
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise ArityMismatchError(f"{name} expects {want} arguments, got {len(args)}")
        return method(*args)
    return call


def _np_write(buf: np.ndarray, row: int, value: Any, n: int) -> np.ndarray:
    buf[row:row + n] = np.asarray(value)[:n]
    return buf


NUMPY_KV = KVCacheOps(lambda shape, dtype: np.zeros(shape, dtype), _np_write, lambda buf, n: buf[:n])
KV_CACHE_FUNCS: Dict[str, Callable] = NUMPY_KV.table()

__all__ = ["AttentionKVCache", "KVCacheOps", "kv_error", "NUMPY_KV", "KV_CACHE_FUNCS", "grown_rows", "arity_checked"]

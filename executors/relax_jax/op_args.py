"""The JAX executor's view of an operator call's arguments for the operator's ``check``
(:class:`relax_ref.ops.args.OpArgs`): the walker calls ``OpDef.check`` with it before the lowering.

Sizes are logical: an axis padded to its bucket has a traced size (not static), and ``data(i)`` is the
padded array; a condition on data laid over a padded region is masked with ``region``. A static
failure raises at once (in both modes); a traced one becomes a check site of the computation.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref import values as rv
from relax_ref.errors import RelaxError
from relax_ref.ir import dtype as _dt
from relax_ref.ops.args import OpArgs

from .dims import dim_value
from .prim_jax import is_static
from .values import ClosureV, PackedV, PrimFuncV, PrimV, ShapeV, StorageV, SymInt, TVal, describe


def jax_value_kind(v: Any) -> str:
    if isinstance(v, TVal):
        return "tensor"
    if isinstance(v, ShapeV):
        return "shape"
    if isinstance(v, tuple):
        return "tuple"
    if isinstance(v, PrimV):
        return "prim"
    if isinstance(v, str):
        return "string"
    if isinstance(v, rv.DTypeValue):
        return "dtype"
    if isinstance(v, ClosureV):
        return "closure"
    if isinstance(v, PackedV):
        return "packed"
    if isinstance(v, PrimFuncV):
        return "prim_func"
    if isinstance(v, StorageV):
        return "storage"
    if v is None:
        return "null"
    return "other"


class JaxArgs(OpArgs):
    """:class:`~relax_ref.ops.args.OpArgs` over the walker's values; ``sink_check(bad, make, mask)``
    records a run-time condition (the walker's error sink)."""

    xp = jnp

    def __init__(self, call, values, sink_check: Callable[..., None], limits=None) -> None:
        super().__init__(call, values, limits)
        self._sink_check = sink_check
        self._by_expr: dict = {}

    def kind(self, i: int) -> str:
        return jax_value_kind(self.values[i])

    def describe(self, i: int) -> str:
        return describe(self.values[i])

    def dtype(self, i: int) -> str:
        v = self.values[i]
        if isinstance(v, PrimV):
            return v.dtype
        return _dt.from_numpy(np.dtype(v.data.dtype))

    def shape(self, i: int) -> Tuple[Any, ...]:
        """The logical sizes of a tensor argument. Traced sizes of one symbolic expression are one
        value across the call's arguments (the key and value lengths ``m + 1`` of an attention over two
        grown caches): a check that compares them by identity knows them equal without a check site."""
        v = self.values[i]
        if isinstance(v, TVal):
            return tuple(self._same(d) for d in v.dims())
        return ()

    def _same(self, d: SymInt) -> Any:
        size = _size(d)
        if d.expr is None or is_static(size):
            return size
        return self._by_expr.setdefault(d.expr, size)

    def data(self, i: int) -> Any:
        v = self.values[i]
        return v.val if isinstance(v, PrimV) else v.data

    def prim(self, i: int) -> Any:
        v = self.values[i]
        val = v.val
        return val.item() if isinstance(val, np.generic) else val

    def ints(self, i: int) -> Tuple[Any, ...]:
        return tuple(_size(d) for d in self.values[i])

    def fail_if(self, bad: Any, make: Callable[[], RelaxError], *, region: Optional[Tuple[Any, ...]] = None) -> None:
        if is_static(bad) or isinstance(bad, np.ndarray):
            if np.any(bad):
                raise make().with_span(self.span)
            return
        self._sink_check(bad, make, _region_mask(jnp.shape(bad), region))

    def fields(self, i: int) -> OpArgs:
        return JaxArgs(self.call, list(self.values[i]), self._sink_check, self.limits)


def _size(d: SymInt) -> Any:
    """A logical size: static, or bounded by a bucket of 0 (then 0), or the traced value."""
    if d.is_static:
        return dim_value(d.val)
    return 0 if d.phys == 0 else d.val


def _region_mask(shape: Tuple[int, ...], region: Optional[Tuple[Any, ...]]) -> Any:
    """True inside the logical ``region`` (right-aligned over ``shape``); None when it covers all."""
    if region is None:
        return None
    m = None
    offset = len(shape) - len(region)
    for a, n in enumerate(region):
        ax = a + offset
        if ax < 0 or (is_static(n) and int(n) == shape[ax]):
            continue
        s = [1] * len(shape)
        s[ax] = shape[ax]
        c = jnp.arange(shape[ax], dtype=jnp.int64).reshape(s) < n
        m = c if m is None else jnp.logical_and(m, c)
    return m


__all__ = ["JaxArgs", "jax_value_kind"]

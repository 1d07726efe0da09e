"""Values of the JAX executor while it evaluates a Relax function.

Both evaluation modes of :mod:`relax_jax.walker` (``traced``: inside ``jax.jit``; ``host``: eagerly,
on concrete arrays) use these representations:

=====================  ===========================================================================
Relax value            representation
=====================  ===========================================================================
tensor                 :class:`TVal` -- a *box* holding a JAX array; boxes give Relax's aliasing
                       semantics (EVAL.VAR.1): a PrimFunc called directly, ``call_tir_inplace`` and
                       in-place packed calls replace ``box.data`` and every variable bound to the
                       box sees the new value
shape                  :class:`ShapeV` -- a tuple of :class:`SymInt`
prim value             :class:`PrimV`
tuple                  ``tuple``
function               :class:`ClosureV` (Relax function + environment), :class:`PrimFuncV`,
                       :class:`PackedV` (host mode only)
string / dtype / null  ``str`` / :class:`relax_ref.values.DTypeValue` / ``None``
=====================  ===========================================================================

**Padding.** Under shape bucketing an array is larger than the tensor it holds: each axis has a
*physical* extent (the array's) and a *logical* one (the tensor's). The valid elements are the prefix
``[0, logical)`` of every axis; what lies beyond is unspecified. ``TVal.valid[i]`` is ``None`` when axis
``i`` is exact and otherwise the :class:`SymInt` of its logical extent (traced).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from relax_ref.ir import prim_expr as P
from relax_ref import values as rv
from relax_ref.values import describe_value, dtype_text

from .dims import dim_value, is_symbolic_dim


class SymInt:
    """An integer known to the executor: ``val`` is the logical value (a Python int, or a traced JAX
    int64 scalar under bucketing), ``phys`` a static upper bound of it (equal to ``val`` when
    static; ``None`` when no bound is known) and ``expr`` the value as an expression over the entry
    function's symbolic variables (``None`` when not symbolic, e.g. computed from data).
    """

    __slots__ = ("phys", "val", "expr")

    def __init__(self, phys: Optional[int], val: Any, expr: Optional[P.PrimExpr] = None) -> None:
        self.phys = phys
        self.val = val
        self.expr = expr

    @staticmethod
    def static(v: int, expr: Optional[P.PrimExpr] = None) -> "SymInt":
        """A size known while tracing: an int, or a ``jax.export`` dimension expression
        (:mod:`relax_jax.dims`)."""
        v = v if is_symbolic_dim(v) else int(v)
        return SymInt(v, v, expr)

    @property
    def is_static(self) -> bool:
        return isinstance(self.val, (int, np.integer)) or is_symbolic_dim(self.val)

    def __repr__(self) -> str:
        return f"SymInt(phys={self.phys}, val={self.val!r})"


#: the :class:`SymInt` of a static extent (shared: a SymInt is never changed once made)
_STATIC: dict = {}


class TVal:
    """A tensor box. ``data`` is the (possibly padded) JAX array, ``valid`` the per-axis logical extents
    (``None`` entries, or ``valid is None``, mean exact), ``level`` the nesting depth of traced
    control flow that created the box (a traced branch may not mutate an outer box), ``view`` the
    :class:`relax_jax.views.ViewInfo` of a box that shares storage with others (``memory.view``), or
    ``None``."""

    __slots__ = ("data", "valid", "level", "view")

    def __init__(self, data: Any, valid: Optional[Tuple[Optional[SymInt], ...]] = None, level: int = 0,
                 view: Any = None) -> None:
        self.data = data
        if valid is not None and all(v is None for v in valid):
            valid = None
        self.valid = valid
        self.level = level
        self.view = view

    @property
    def shape(self) -> tuple:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return len(self.data.shape)

    @property
    def padded(self) -> bool:
        return self.valid is not None

    def dim(self, i: int) -> SymInt:
        """The logical extent of axis ``i``."""
        if self.valid is not None and self.valid[i] is not None:
            return self.valid[i]
        n = self.data.shape[i]
        if type(n) is int:
            s = _STATIC.get(n)
            if s is None:
                s = _STATIC[n] = SymInt(n, n, None)
            return s
        return SymInt.static(n)

    def dims(self) -> Tuple[SymInt, ...]:
        return tuple(self.dim(i) for i in range(self.ndim))

    def __repr__(self) -> str:
        return f"TVal({tuple(self.data.shape)}, {self.data.dtype}{', padded' if self.padded else ''})"


class ShapeV(tuple):
    """A shape value: a tuple of :class:`SymInt`."""

    def __new__(cls, dims=()):
        return super().__new__(cls, (d if isinstance(d, SymInt) else SymInt.static(d) for d in dims))

    @property
    def is_static(self) -> bool:
        return all(d.is_static for d in self)

    def ints(self) -> Tuple[int, ...]:
        return tuple(dim_value(d.val) for d in self)

    def __repr__(self) -> str:
        return f"ShapeV({[d.val if d.is_static else '?' for d in self]})"


class PrimV:
    """A prim value: ``val`` (Python/numpy scalar when static, JAX scalar when traced) of ``dtype``;
    ``sym`` is its :class:`SymInt` when it is a symbolic integer (so it can become a dimension)."""

    __slots__ = ("val", "dtype", "sym")

    def __init__(self, val: Any, dtype: str, sym: Optional[SymInt] = None) -> None:
        self.val = val
        self.dtype = dtype
        self.sym = sym

    @property
    def is_static(self) -> bool:
        return isinstance(self.val, (bool, int, float, np.generic))

    def __repr__(self) -> str:
        return f"PrimV({self.val!r}, {self.dtype})"


class ClosureV:
    """A Relax function value: ``func`` with the captured environment ``env`` (EVAL.FUNC.1);
    ``captured`` holds extra trailing arguments for ``make_closure`` (CALL.CLOSURE.2)."""

    __slots__ = ("func", "env", "name", "captured", "global_name")

    def __init__(self, func: Any, env: Any, name: str, captured: tuple = (), global_name: Optional[str] = None):
        self.func = func
        self.env = env
        self.name = name
        self.captured = captured
        self.global_name = global_name

    def __repr__(self) -> str:
        return f"ClosureV({self.name})"


class PrimFuncV:
    """The value of a GlobalVar bound to a PrimFunc (VAL.PRIMFUNC.1)."""

    __slots__ = ("name", "func")

    def __init__(self, name: str, func: Any) -> None:
        self.name = name
        self.func = func

    def __repr__(self) -> str:
        return f"PrimFuncV({self.name})"


class PackedV:
    """A packed function (host mode only): ``fn`` takes and returns reference interpreter values;
    ``captured`` are trailing arguments added by ``make_closure``."""

    __slots__ = ("name", "fn", "captured")

    def __init__(self, name: str, fn: Any, captured: tuple = ()) -> None:
        self.name = name
        self.fn = fn
        self.captured = captured

    def __repr__(self) -> str:
        return f"PackedV({self.name})"


class StorageV:
    """A storage block from ``alloc_storage`` (CALL.ALLOC.2): ``nbytes`` bytes held in ``buf`` (a uint8
    JAX array, made on first use); ``views`` are the tensors carved out of it
    (:mod:`relax_jax.storage`), which alias its bytes; ``level`` is the traced-control-flow depth that
    created it."""

    __slots__ = ("nbytes", "buf", "views", "level")

    def __init__(self, nbytes: int, level: int = 0) -> None:
        self.nbytes = nbytes
        self.buf = None
        self.views: list = []
        self.level = level

    def __repr__(self) -> str:
        return f"Storage({self.nbytes} bytes)"


_DETAILS = (
    (TVal, "tensor", lambda v: f"{tuple(d.val if d.is_static else '?' for d in v.dims())}, "
                               f"{dtype_text(v.data.dtype)}"),
    (ShapeV, "shape", lambda v: f"{[d.val if d.is_static else '?' for d in v]}"),
    (PrimV, "prim", lambda v: f"{v.val if v.is_static else '?'}, {v.dtype}"),
    (ClosureV, "closure", lambda v: v.name),
    (PackedV, "packed", lambda v: v.name),
    (PrimFuncV, "primfunc", lambda v: v.name),
    (StorageV, "storage", lambda v: f"{v.nbytes} bytes"),
)


def describe(v: Any) -> str:
    """A short description for error messages, in the reference interpreter's words."""
    return describe_value(v, _DETAILS)


def host_prim(v: PrimV) -> rv.PrimScalar:
    """The reference's scalar of a concrete :class:`PrimV` (a 0-d array read as its item)."""
    val = v.val
    if not isinstance(val, (bool, int, float, np.generic)):
        val = np.asarray(val).item()
    return rv.PrimScalar(val, v.dtype)


def reference_callable(v: Any) -> Any:
    """The reference's value of a closure, packed function or PrimFunc reference (None for any
    other value)."""
    if isinstance(v, ClosureV):
        return rv.Closure(v.func, {}, {}, v.name)
    if isinstance(v, PackedV):
        return rv.PackedFunc(v.name, v.fn)
    if isinstance(v, PrimFuncV):
        return rv.PrimFuncRef(v.name, v.func)
    return None


__all__ = ["SymInt", "TVal", "ShapeV", "PrimV", "ClosureV", "PrimFuncV", "PackedV", "StorageV", "describe",
           "host_prim", "reference_callable"]

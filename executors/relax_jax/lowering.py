"""The operator lowering interface: how a registry entry becomes JAX code.

A lowering is a :class:`JaxLowering` in the executor's table :data:`LOWERINGS`, keyed by operator name
(the :func:`lowering` decorator adds it when the module of :mod:`relax_jax.ops` defining it is
imported; the table does not change afterwards). The operator's run-time constraints are not the
lowering's business: the walker calls the operator's ``check`` (``relax_ref.ops.opdef.OpDef.check``)
first. ``relax-ref ops`` shows the operators that have a lowering.

``fn(ctx, *args)`` receives the evaluated ``Call.args``:

=====================  ===========================================================================
argument               what the lowering gets
=====================  ===========================================================================
tensor                 the JAX array (physical: possibly padded, see below)
prim value             :class:`~relax_jax.values.PrimV` (``.val`` static scalar or traced JAX scalar,
                       ``.dtype``)
shape                  :class:`~relax_jax.values.ShapeV` (tuple of :class:`~relax_jax.values.SymInt`;
                       ``ctx.ints(shape)`` gives Python ints or requests exact shapes)
tuple                  a tuple of the above
string / dtype / null  ``str`` / ``DTypeValue`` / ``None``
=====================  ===========================================================================

and returns a JAX array (the output tensor), a tuple of them, a :class:`PrimV`, a :class:`ShapeV`, or a
:class:`~relax_jax.values.TVal` when it sets the output's padding itself. ``ctx`` is a
:class:`LowerCtx`: the call (``ctx.call``, ``ctx.attrs``, ``ctx.out_sinfo``), padding information,
``ctx.check(bad, make_error)`` for run-time errors, ``ctx.error(cls, message)`` for errors decided at
trace time, ``ctx.mode`` (``"traced"`` inside ``jax.jit``, ``"host"`` when running eagerly).

**Errors.** A lowering raises the same :mod:`relax_ref.errors` class as the operator's reference
implementation. Conditions on static information (shapes, dtypes, attributes) raise directly;
conditions on data (a zero integer divisor, an index out of range) go through ``ctx.check(bad,
make)``, which raises in host mode and records a check site in compiled code.

**Padding** (shape bucketing). A symbolic dimension is padded to its bucket: the array is larger than
the tensor and only the prefix ``[0, n)`` of a padded axis is valid; padding content is unspecified
(it may hold garbage, NaN or infinities). ``padding=`` declares what the lowering does about it:

* ``"none"`` (default): the lowering expects exact inputs. If any tensor argument is padded (or a shape
  argument is not static) the executor compiles the function for exact shapes instead -- never a
  wrong answer;
* ``"elementwise"``: each output element depends only on the input elements at the same (broadcast)
  position, so computing on the padded arrays is exact; the output's padding follows its struct info;
* ``"aware"``: the lowering handles padded inputs itself. It reads ``ctx.valid(i)`` (per-axis logical
  extents of tensor argument ``i``: ``None`` for an exact axis, else a
  :class:`~relax_jax.values.SymInt` whose ``.val`` is a traced scalar), masks what must not leak into
  valid results with ``ctx.mask(x, i, axes, fill)`` (reductions fill with their identity, softmax with
  ``-inf``, contractions with zero), produces the physical output shape ``ctx.out_shape`` and may raise
  ``ctx.require_exact(reason)`` for cases it cannot handle (e.g. a reshape merging a padded axis).

``host_only=True`` marks lowerings that need concrete values (data-dependent output shapes, side
effects): functions calling them run eagerly on the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref.errors import RelaxError
from relax_ref.ir import dtype as _dt
from relax_ref.ir import struct_info as si
from relax_ref.ops.args import CallView

from .dims import dim_value
from .errors import NeedsExact
from .prim_jax import is_static
from .values import PrimV, ShapeV, SymInt, TVal

PADDING_MODES = ("none", "elementwise", "aware")


@dataclass(frozen=True)
class JaxLowering:
    """A JAX lowering of one operator (see the module docstring)."""

    fn: Callable[..., Any]
    padding: str = "none"
    host_only: bool = False
    name: str = ""

    def __post_init__(self):
        if self.padding not in PADDING_MODES:
            raise ValueError(f"padding must be one of {PADDING_MODES}, got {self.padding!r}")

    def __call__(self, ctx: "LowerCtx", *args: Any) -> Any:
        if args and all(isinstance(a, PrimV) and is_static(a.val) for a in args):
            # operands all known while tracing (prim values): the result is computed now, so that it
            # stays a known value (a staged computation could not be read back as one)
            import jax

            with jax.ensure_compile_time_eval():
                return self.fn(ctx, *args)
        return self.fn(ctx, *args)


#: operator name -> its lowering (filled by the modules of :mod:`relax_jax.ops` as they are imported)
LOWERINGS: Dict[str, JaxLowering] = {}


def lowering(*names: str, padding: str = "none", host_only: bool = False):
    """Decorator: ``@lowering("relax.add", "relax.subtract", padding="elementwise")``."""

    def deco(fn):
        for n in names:
            LOWERINGS[n] = JaxLowering(fn, padding, host_only, n)
        return fn
    return deco


class LowerCtx(CallView):
    """What a lowering may use (see the module docstring)."""

    __slots__ = ("walker", "call", "vals", "frame")

    def __init__(self, walker, call, vals: Sequence[Any], frame) -> None:
        self.walker = walker
        self.call = call
        self.vals = vals
        self.frame = frame

    # -- the call ------------------------------------------------------------------------------------

    @property
    def out_sinfo(self) -> Optional[si.StructInfo]:
        return self.call.struct_info

    @property
    def mode(self) -> str:
        return self.walker.mode

    def out_dtype(self) -> str:
        s = self.call.struct_info
        if isinstance(s, (si.TensorStructInfo, si.PrimStructInfo)) and s.dtype != "void":
            return s.dtype
        raise self.error(RelaxError, f"{self.op_name}: the output dtype is unknown")

    # -- padding -------------------------------------------------------------------------------------

    def valid(self, i: int) -> Tuple[Optional[SymInt], ...]:
        """Per-axis logical extents of tensor argument ``i`` (``None`` = exact axis)."""
        v = self.vals[i]
        if not isinstance(v, TVal):
            raise TypeError(f"argument {i} of {self.op_name} is not a tensor")
        return v.valid if v.valid is not None else (None,) * v.ndim

    def dims(self, i: int) -> Tuple[SymInt, ...]:
        """Logical extents of tensor argument ``i``."""
        return self.vals[i].dims()

    def padded(self, i: Optional[int] = None, axes: Optional[Sequence[int]] = None) -> bool:
        """Whether argument ``i`` (default: any tensor argument) is padded (on ``axes``)."""
        idx = range(len(self.vals)) if i is None else [i]
        for k in idx:
            v = self.vals[k]
            if isinstance(v, TVal) and v.valid is not None:
                ax = range(v.ndim) if axes is None else axes
                if any(v.valid[a] is not None for a in ax):
                    return True
        return False

    def require_exact(self, reason: str) -> None:
        """Request exact-shape compilation when anything is padded."""
        if self.padded() or any(isinstance(v, ShapeV) and not v.is_static for v in self.vals):
            raise NeedsExact(f"{self.op_name}: {reason}")

    def mask(self, x: Any, i: int, axes: Optional[Sequence[int]] = None, fill: Any = 0) -> Any:
        """``x`` (shaped like argument ``i``) with the padded part of ``axes`` replaced by ``fill``."""
        valid = self.valid(i)
        ax = range(len(valid)) if axes is None else [a % len(valid) for a in axes]
        m = None
        for a in ax:
            d = valid[a]
            if d is None:
                continue
            shape = [1] * len(valid)
            shape[a] = x.shape[a]
            iota = jnp.arange(x.shape[a], dtype=jnp.int64).reshape(shape)
            c = iota < d.val
            m = c if m is None else jnp.logical_and(m, c)
        if m is None:
            return x
        return jnp.where(m, x, jnp.asarray(fill, x.dtype))

    def valid_mask(self, shape: Sequence[int], dims: Sequence[Optional[SymInt]]) -> Any:
        """A bool array of ``shape``: True inside the logical extents ``dims`` (None = exact axis);
        ``None`` when nothing is padded."""
        m = None
        for a, d in enumerate(dims):
            if d is None or d.is_static and d.val == shape[a]:
                continue
            s = [1] * len(shape)
            s[a] = shape[a]
            c = jnp.arange(shape[a], dtype=jnp.int64).reshape(s) < d.val
            m = c if m is None else jnp.logical_and(m, c)
        return m

    def out_dims(self, k: Optional[int] = None) -> Optional[Tuple[SymInt, ...]]:
        """Logical extents of the output tensor (field ``k`` of a tuple output) from its struct info,
        or None when its shape is not known."""
        s = self.walker.inferred(self.call)
        if k is not None:
            s = s.fields[k]
        return self.walker.sinfo_dims(s, self.frame)

    @property
    def out_shape(self) -> Tuple[int, ...]:
        """The physical shape of the output tensor (its struct info evaluated at the buckets)."""
        return self.out_shape_of(None)

    def out_shape_of(self, k: Optional[int]) -> Tuple[int, ...]:
        dims = self.out_dims(k)
        if dims is None:
            self.require_exact("the output shape is not known")
            raise self.error(RelaxError, f"{self.op_name}: the output shape is not known")
        out = []
        for d in dims:
            if d.phys is None:
                raise NeedsExact(f"{self.op_name}: an output extent has no static bound")
            out.append(dim_value(d.phys))
        return tuple(out)

    def out_valid(self, k: Optional[int] = None) -> Tuple[Optional[SymInt], ...]:
        dims = self.out_dims(k)
        return tuple(None if d.is_static else d for d in dims)

    # -- static values -------------------------------------------------------------------------------

    def ints(self, shape: Any) -> Tuple[int, ...]:
        """Python ints of a shape value (requests exact shapes when a dimension is traced)."""
        out = []
        for d in shape:
            if isinstance(d, SymInt):
                if not d.is_static:
                    raise NeedsExact(f"{self.op_name}: needs a static shape")
                out.append(dim_value(d.val))
            else:
                out.append(int(d))
        return tuple(out)

    def static(self, v: Any, what: str = "value") -> Any:
        """The static Python value of a prim value / SymInt (requests exact shapes when traced; a
        traced non-symbolic value cannot be made static and aborts tracing)."""
        if isinstance(v, PrimV):
            if v.is_static:
                return v.val.item() if isinstance(v.val, np.generic) else v.val
            if v.sym is not None:
                raise NeedsExact(f"{self.op_name}: the {what} must be static")
            from .errors import TraceAbort

            raise TraceAbort(f"{self.op_name}: the {what} depends on data", permanent=False)
        if isinstance(v, SymInt):
            if v.is_static:
                return dim_value(v.val)
            raise NeedsExact(f"{self.op_name}: the {what} must be static")
        return v

    # -- errors --------------------------------------------------------------------------------------

    def check(self, bad: Any, make: Callable[[], RelaxError], mask: Any = None) -> None:
        """Record a data-dependent error condition (raises immediately in host mode)."""
        self.walker.sink.check(bad, make, mask)

    # -- services ------------------------------------------------------------------------------------

    def call_function(self, fn: Any, *args: Any) -> Any:
        """Call a function value (closure, PrimFunc, packed function) with walker values."""
        return self.walker.call_value(fn, list(args), self.call)

    def prim(self, val: Any, dtype: str) -> PrimV:
        return PrimV(val, dtype)


def jnp_dtype(dtype: str):
    """The JAX dtype of a Relax dtype."""
    return _dt.to_numpy(dtype)


def is_traced(v: Any) -> bool:
    return not is_static(v) and not isinstance(v, np.ndarray)


__all__ = ["JaxLowering", "LowerCtx", "lowering", "LOWERINGS", "PADDING_MODES", "jnp_dtype",
           "is_traced"]

"""Helpers shared by the operator lowerings."""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref.ir import dtype as _dt

from ..dims import dim_value
from ..errors import NeedsExact
from ..float_rules import rounded_multiply
from ..laxops import astype, fast_fn
from ..lowering import LowerCtx
from ..prim_jax import is_static, np_dtype
from ..values import PrimV, SymInt, TVal

F32 = np.dtype("float32")


def dtype_of(x: Any) -> str:
    """The Relax dtype of an array or prim value."""
    if isinstance(x, PrimV):
        return x.dtype
    return _dt.from_numpy(np.dtype(x.dtype))


def low_precision(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def fcompute(dtype: str, fn: Callable[..., Any], *xs: Any) -> Any:
    """A float function as TVM's CPU kernels compute it: 16-bit floats through float32, rounded back
    after each call (OP.ELEMWISE.SEM.7)."""
    t = np_dtype(dtype)
    if fn is jnp.multiply:
        fn = rounded_multiply           # one rounding per node, never contracted (PRIM.FLOAT.1)
    if low_precision(dtype):
        return astype(fast_fn(fn)(*[astype(x, F32) for x in xs]), t)
    return astype(fast_fn(fn)(*[operand(x) for x in xs]), t)


def operand(x: Any) -> Any:
    """``x`` as ``jnp.asarray`` gives it to an operation: arrays and numpy values as they are (the
    operations of :mod:`relax_jax.laxops` take them), Python scalars as JAX arrays."""
    return x if isinstance(x, (jax.Array, jax.core.Tracer, np.ndarray, np.generic)) else jnp.asarray(x)


def _rounded(out: Any, bf: Any) -> Any:
    """Float32 results (an array, a box, or a tuple of them) rounded to bfloat16."""
    if isinstance(out, tuple):
        return tuple(_rounded(o, bf) for o in out)
    if isinstance(out, TVal):
        return TVal(_rounded(out.data, bf), out.valid, out.level)
    return out.astype(bf) if out.dtype == F32 else out


def float32_once(lowering_fn: Callable[..., Any]) -> Callable[..., Any]:
    """A lowering whose ``bfloat16`` operator is its ``float32`` definition rounded once (OP.SEM.7,
    ``relax_ref.ops.precision.float32_once``): bfloat16 operands widened to float32, the result
    rounded to bfloat16 once."""
    @functools.wraps(lowering_fn)
    def low(ctx, *xs):
        if not any(not isinstance(x, PrimV) and _dt.float32_intermediates(dtype_of(x)) for x in xs):
            return lowering_fn(ctx, *xs)
        bf = np_dtype("bfloat16")
        out = lowering_fn(ctx, *(x if isinstance(x, PrimV) or x.dtype != bf else x.astype(F32) for x in xs))
        return _rounded(out, bf)
    return low


def c(value: Any, dtype: str) -> Any:
    """A scalar constant of ``dtype``."""
    return np.asarray(value).astype(np_dtype(dtype))[()]


def as_array(x: Any) -> Any:
    """A tensor operand, or a prim operand as a shape-``[1]`` array (NORM.OP.BCAST.3)."""
    if isinstance(x, PrimV):
        return jnp.reshape(jnp.asarray(x.val, np_dtype(x.dtype)), (1,))
    return x


def logical_shape(ctx: LowerCtx, i: int) -> Tuple[Any, ...]:
    """Logical extents of argument ``i`` (Python ints or traced scalars)."""
    v = ctx.vals[i]
    if isinstance(v, TVal):
        return tuple(dim_value(d.val) if d.is_static else d.val for d in v.dims())
    if isinstance(v, PrimV):
        return (1,)
    return ()


def broadcast_padding(ctx: LowerCtx, idx: Sequence[int]) -> None:
    """Request exact shapes when a padded axis of the operands ``idx`` would broadcast against a
    different physical extent (a static 1 broadcasts against a padded axis exactly). Whether the
    shapes broadcast at all is the operator's check (``relax_ref.ops.checks.check_broadcast``)."""
    shapes = []
    for i in idx:
        v = ctx.vals[i]
        if isinstance(v, TVal):
            shapes.append(v.dims())
        elif isinstance(v, PrimV):
            shapes.append((SymInt.static(1),))
        else:
            shapes.append(())
    nd = max((len(s) for s in shapes), default=0)
    cols = [[None] * (nd - len(s)) + list(s) for s in shapes]
    for a in range(nd):
        col = [c[a] for c in cols if c[a] is not None]
        if any(not d.is_static for d in col):
            phys = {d.phys for d in col if not d.is_static} | {dim_value(d.val) for d in col if d.is_static}
            if len(phys - {1}) > 1:
                raise NeedsExact("a padded axis is broadcast")


def finish(ctx: LowerCtx, out: Any, operands: Sequence[Any], dtype: str) -> Any:
    """A PrimV for all-prim operands, else the array converted to ``dtype``."""
    if operands and all(isinstance(o, PrimV) for o in operands):
        v = jnp.asarray(out).astype(np_dtype(dtype)).reshape(-1)[0]
        if all(is_static(o.val) for o in operands):
            v = np.asarray(v).item()
        return PrimV(v, dtype)
    return astype(out, np_dtype(dtype))


def inferred_dtype(ctx: LowerCtx, fallback: str) -> str:
    from relax_ref.ir.struct_info import PrimStructInfo, TensorStructInfo

    s = ctx.call.struct_info
    if isinstance(s, (TensorStructInfo, PrimStructInfo)) and s.dtype != "void":
        return s.dtype
    return fallback


def tvm_max(a, b):
    """OP.ELEMWISE.SEM.2: ``a > b ? a : b``."""
    return jnp.where(a > b, a, b)


def tvm_min(a, b):
    return jnp.where(a < b, a, b)


__all__ = ["dtype_of", "low_precision", "fcompute", "c", "as_array", "logical_shape", "broadcast_padding",
           "finish", "inferred_dtype", "tvm_max", "tvm_min", "F32", "operand"]

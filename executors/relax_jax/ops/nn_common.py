"""Helpers shared by the lowerings of the neural-network families (``nn``, ``nn_norm``, ``nn_attention``,
``nn_conv``, ``nn_pool``, ``nn_loss``, ``image``): float arithmetic rounded as TVM's kernels round it,
valid-region masks and boxes, canonical layouts.
"""

from __future__ import annotations

from typing import Optional

import jax.numpy as jnp
import numpy as np

from relax_ref.ops import nn_common as ref_nn_common
from relax_ref.ops.layouts import LayoutConversion

from .. import laxops
from ..float_rules import rounded_multiply
from ..laxops import astype, fast_fn
from ..prim_jax import np_dtype
from ..values import SymInt, TVal
from .common import dtype_of


F32 = np.dtype("float32")


def compute_dtype(dt: str) -> np.dtype:
    return F32 if dt in ("float16", "bfloat16") else np_dtype(dt)


class FOps:
    """Float arithmetic rounding every operation to ``dtype`` (16-bit floats through float32)."""

    def __init__(self, dtype: str):
        self.dtype = dtype
        self.t = np_dtype(dtype)
        self.cd = compute_dtype(dtype)

    def _run(self, fn, *xs):
        return astype(fast_fn(fn)(*[astype(x, self.cd) for x in xs]), self.t)

    def add(self, a, b):
        return self._run(jnp.add, a, b)

    def sub(self, a, b):
        return self._run(jnp.subtract, a, b)

    def mul(self, a, b):
        """Rounded once and never contracted with the add or subtract that consumes it (PRIM.FLOAT.1)."""
        return self._run(rounded_multiply, a, b)

    def div(self, a, b):
        return self._run(jnp.divide, a, b)

    def const(self, v):
        return np.asarray(v).astype(self.t)[()]

    def intrin(self, fn, x):
        return self._run(fn, x)

    def sqrt(self, x):
        return self._run(jnp.sqrt, x)

    def sum(self, x, axis, keepdims=False):
        return astype(laxops.reduce_sum(astype(x, self.cd), axis=axis, keepdims=keepdims), self.t)


def box(ctx, data, valid) -> TVal:
    return TVal(data, tuple(valid) if valid is not None else None, ctx.walker.level)


def axis_mask(x, axis: int, d: Optional[SymInt]):
    if d is None:
        return None
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    return laxops.iota_lt(x.shape[axis], astype(d.val, np.dtype(np.int64)), shape, axis)


SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def layout_perm(ctx, layout: str, target: str, what: str):
    """The conversion of ``layout`` (plain or packed, ``NCHW4c``) to the canonical ``target``
    (OP.NN.LAYOUT.1), the reference's :func:`relax_ref.ops.nn_common.layout_conversion`."""
    return ref_nn_common.layout_conversion(ctx.call, layout, target, what)


def to_canonical(x, perm):
    if isinstance(perm, LayoutConversion):
        return perm.to_canonical(x, jnp)
    return jnp.transpose(x, tuple(perm))


def from_canonical(y, perm):
    """``y`` in the layout; a packed axis is padded with zero lanes (OP.NN.LAYOUT.3)."""
    if isinstance(perm, LayoutConversion):
        return perm.from_canonical(y, jnp)
    return jnp.transpose(y, tuple(int(i) for i in np.argsort(perm)))


def inferred_out_dtype(ctx, x) -> str:
    from relax_ref.ir.struct_info import TensorStructInfo

    s = ctx.walker.inferred(ctx.call)
    if isinstance(s, TensorStructInfo) and s.dtype != "void":
        return s.dtype
    return dtype_of(x)

"""Lowerings of ``astype`` and ``wrap_param`` (semantics: ``relax_ref.ops.datatype``): TIR's cast,
elementwise, so exact on padded data.
"""

from __future__ import annotations

import jax.numpy as jnp

from ..lowering import lowering
from ..prim_jax import cast, np_dtype
from ..values import PrimV
from .common import dtype_of


@lowering("relax.astype", "relax.wrap_param", padding="elementwise")
def _astype(ctx, x):
    if isinstance(x, PrimV):
        x = jnp.asarray(x.val, np_dtype(x.dtype))
    src = dtype_of(x)
    return cast(x, src, ctx.attrs.get("dtype") or src)

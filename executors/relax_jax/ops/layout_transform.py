"""Lowering of ``layout_transform`` (semantics: ``relax_ref.ops.layout_transform``): the reference's
index-map evaluation (static shapes) and one scatter.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from relax_ref.errors import OpRuntimeError
from relax_ref.ir import prim_expr as P

from ..lowering import lowering


@lowering("relax.layout_transform")
def _layout_transform(ctx, x):
    from relax_ref.ops.layout_transform import _grid, _np_eval, _pad_scalar, map_shape

    imap = ctx.attrs["index_map"]
    shape = map_shape(imap, [P.IntImm(int(d), "int64") for d in x.shape])
    out_shape = tuple(int(d.value) for d in shape)
    _check_inferred(ctx, out_shape)
    pad = _pad_scalar(ctx.call, np.dtype(x.dtype))
    out = jnp.full(out_shape, pad, x.dtype)
    size = int(np.prod(x.shape, dtype=np.int64)) if x.shape else 1
    if size:
        env = _grid(imap, tuple(int(d) for d in x.shape), list(imap.initial_indices))
        idx = tuple(np.broadcast_to(np.asarray(_np_eval(f, env)), (size,)) for f in imap.final_indices)
        out = out.at[idx].set(jnp.reshape(x, (-1,)))
    return out


def _check_inferred(ctx, got) -> None:
    """OP.SEM.3 as the reference checks it, with the operator's own struct info and before the
    binding's annotation (EVAL.CALL.3): a symbolic inferred extent that evaluates to another size
    than the map gives for the run-time shape is ``op_runtime``."""
    dims = ctx.walker.sinfo_dims(ctx.walker.inferred(ctx.call), ctx.frame)
    if dims is None or len(dims) != len(got):
        return
    want = tuple(int(d.val) if d.is_static else None for d in dims)
    if any(w is not None and w != g for w, g in zip(want, got)):
        raise ctx.error(OpRuntimeError, f"{ctx.op_name}: the result has shape {got}, but the struct info inferred "
                                        f"for the call evaluates to {want} (a negative or inconsistent extent)")

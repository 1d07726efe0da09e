"""Sampling: ``multinomial_from_uniform`` (spec page ``spec/ops/multinomial_from_uniform.md``).

``multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype="int64")``: for each row ``i``
of the ``(n, 1)`` samples, with ``c`` the running sum of row ``sample_indices[i, 0]`` of the
``(batch, vocab)`` probabilities (summed left to right in ``prob``'s dtype), the result is the
smallest ``j`` with ``uniform_sample[i, 0] < c[j]``, or ``vocab - 1`` when there is none (TVM's
``get_sample_index`` kernel over the cumulative sum).

Legalization: none. TVM 0.27 does not legalize the operator either: DispatchSampling lowers it to a
GPU kernel, and on CPU programs call ``vm.builtin.multinomial_from_uniform``.
"""

from __future__ import annotations

from typing import Any, List

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from .args import OpArgs
from .opdef import OpDef, arg, attr


def infer(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.multinomial_from_uniform.C1-C5 (TVM 0.27's inference)."""
    prob, u, idx = common.tensor_args(call, 3, ctx, ("prob", "uniform_sample", "sample_indices"))
    dtype = call.attrs.get("dtype", "int64")
    for what, s in (("prob", prob), ("uniform_sample", u)):
        if s.dtype != "void" and not (_dt.is_float(s.dtype) and not s.dtype.startswith("float8")):
            raise common.error(call, f"{what} must have a float dtype, but it has {s.dtype}", ctx)
    if idx.dtype != "void" and not _dt.is_int(idx.dtype):
        raise common.error(call, f"sample_indices must have an int dtype, but it has {idx.dtype}", ctx)
    if -1 in (prob.ndim, u.ndim, idx.ndim):
        return TensorStructInfo(None, dtype, -1, prob.vdevice)
    for what, s in (("prob", prob), ("uniform_sample", u), ("sample_indices", idx)):
        if s.ndim != 2:
            raise common.error(call, f"{what} must be 2-D, but it has rank {s.ndim}", ctx)
    pv, uv, iv = prob.shape_values, u.shape_values, idx.shape_values
    if not isinstance(prob.shape, rx.ShapeExpr) or not isinstance(u.shape, rx.ShapeExpr) \
            or not isinstance(idx.shape, rx.ShapeExpr):
        return TensorStructInfo(None, dtype, 2, prob.vdevice)
    n = uv[0]
    if not common.prove_equal(ctx, n, iv[0]):
        raise common.error(call, f"uniform_sample has {n} rows and sample_indices {iv[0]}; they must be equal", ctx)
    one = lambda d: isinstance(d, P.IntImm) and d.value == 1  # noqa: E731
    if not (one(uv[1]) and one(iv[1])):
        raise common.error(call, "uniform_sample and sample_indices must have shape (n, 1)", ctx)
    return TensorStructInfo(rx.ShapeExpr((n, P.IntImm(1, "int64"))), dtype, vdevice=prob.vdevice)


def check(args: OpArgs) -> None:
    """OP.multinomial_from_uniform.C6: every sample index is a row of ``prob``; the shapes agree."""
    batch = args.shape(0)[0]
    xp = args.xp
    ids = args.data(2)
    args.fail_if(args.shape(1)[0] != args.shape(2)[0], lambda: OpRuntimeError(
        f"{args.op_name}: uniform_sample and sample_indices have different row counts (OP.multinomial_from_uniform.C6)"))
    args.fail_if(xp.logical_or(ids < 0, ids >= batch), lambda: OpRuntimeError(
        f"{args.op_name}: a sample index is outside the rows of prob (OP.multinomial_from_uniform.C6)"),
        region=args.shape(2))


def reference(args, attrs, call, ctx):
    prob, u, idx = args
    dtype = attrs.get("dtype", "int64")
    vocab = prob.shape[1]
    with np.errstate(all="ignore"):
        c = np.cumsum(prob, axis=1, dtype=prob.dtype)
    rows = c[idx[:, 0].astype(np.int64)] if len(idx) else np.zeros((0, vocab), prob.dtype)
    below = (rows <= u.astype(prob.dtype)).sum(axis=1) if vocab else np.zeros(len(idx), np.int64)
    out = np.minimum(below, max(vocab - 1, 0))
    return out.reshape(-1, 1).astype(_dt.to_numpy(dtype))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = [
    OpDef(name="relax.multinomial_from_uniform", script="R.multinomial_from_uniform",
          params=(arg("prob"), arg("uniform_sample"), arg("sample_indices"), attr("dtype", "dtype", "int64")),
          infer=infer, check=check, reference=reference, category="sampling",
          legalize_exempt="TVM 0.27 has no legalization (DispatchSampling lowers it to a GPU kernel; CPU programs "
                          "call vm.builtin.multinomial_from_uniform)",
          doc="``R.multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype='int64')``: inverse-CDF "
              "sampling (OP.multinomial_from_uniform.C1-C6)."),
]

__all__ = ["infer", "reference"]

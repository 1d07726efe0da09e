"""``reverse_sequence`` (spec page ``spec/ops/reverse_sequence.md``), listed in the ``OPS`` of
:mod:`relax_ref.ops.manipulate`.

``reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0)``: for every index ``b`` along
``batch_axis`` the first ``L = seq_lengths[b]`` positions along ``seq_axis`` are reversed and the
rest kept (TOPI's rule: ``L <= 1`` keeps everything, ``L`` beyond the extent reverses the whole
axis).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..ir import expr as rx
from . import common
from . import manipulate_util
from . import te
from . import te_ops
from .opdef import arg, attr


def infer(call: rx.Call, ctx: Any):
    """OP.reverse_sequence.C1-C5 (TVM 0.27's inference)."""
    common.check_num_args(call, 2, ctx)
    data = common.tensor_arg(call, 0, ctx, "data")
    lens = common.tensor_arg(call, 1, ctx, "seq_lengths")
    if lens.ndim not in (-1, 1):
        raise common.error(call, f"seq_lengths must be 1-D, but it has rank {lens.ndim}", ctx)
    if lens.dtype != "void" and lens.dtype not in ("int32", "int64"):
        raise common.error(call, f"seq_lengths must have dtype int32 or int64, but it has {lens.dtype}", ctx)
    seq_axis, batch_axis = int(call.attrs.get("seq_axis", 1)), int(call.attrs.get("batch_axis", 0))
    if data.ndim != -1:
        n = data.ndim
        for name, a in (("seq_axis", seq_axis), ("batch_axis", batch_axis)):
            if not -n <= a < n:
                raise common.error(call, f"{name} {a} is out of range for a tensor of rank {n}", ctx)
        dims, ldims = data.shape_values, lens.shape_values
        if dims is not None and ldims is not None:
            b = dims[batch_axis % n]
            if manipulate_util.prove_not_equal(ctx, ldims[0], b):
                raise common.error(call, f"seq_lengths has {ldims[0]} entries, but the batch axis has extent {b}", ctx)
    return data


def check(args) -> None:
    """OP.reverse_sequence.C4 at run time: one length per batch index."""
    from ..errors import OpRuntimeError

    n = args.ndim(0)
    b = args.shape(0)[int(args.attrs.get("batch_axis", 0)) % n]
    m = args.shape(1)[0]
    args.fail_if(m != b, lambda: OpRuntimeError(
        f"{args.op_name}: seq_lengths has {args.size_text((m,))[1:-2]} entries for a batch axis of extent "
        f"{args.size_text((b,))[1:-2]} (OP.reverse_sequence.C4)"))


def source_index(pos: np.ndarray, length: np.ndarray, extent: int) -> np.ndarray:
    """TOPI's index along the sequence axis read for output position ``pos``."""
    return np.where((length <= 1) | (length <= pos), pos, np.where(length > extent, extent - 1 - pos, length - 1 - pos))


def reference(args, attrs, call, ctx):
    x, lens = args
    n = x.ndim
    sa, ba = int(attrs.get("seq_axis", 1)) % n, int(attrs.get("batch_axis", 0)) % n
    idx = np.indices(x.shape, dtype=np.int64)
    src = source_index(idx[sa], lens.astype(np.int64)[idx[ba]], x.shape[sa])
    idx[sa] = src
    return manipulate_util.copy_out(x[tuple(idx)])


def legalize(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
    if not manipulate_util.legalizable(call):
        return None
    n = call.args[0].struct_info.ndim
    sa = int(call.attrs.get("seq_axis", 1)) % n
    ba = int(call.attrs.get("batch_axis", 0)) % n

    def fte(x: te.Tensor, lens: te.Tensor) -> te.Tensor:
        def f(*i):
            ln = te_ops.cast("int64", lens(i[ba]))
            d = x.shape[sa]
            rev = te_ops.if_then_else(te_ops.gt(ln, d), te_ops.sub(te_ops.sub(d, 1), i[sa]),
                                      te_ops.sub(te_ops.sub(ln, 1), i[sa]))
            keep = te_ops.logical_or(te_ops.le(ln, 1), te_ops.le(ln, i[sa]))
            idx = list(i)
            idx[sa] = te_ops.if_then_else(keep, i[sa], rev)
            return x(*idx)
        return te.compute(x.shape, f, name="T_reverse_sequence", index_names=manipulate_util.axes_names(n))

    return ctx.call_te(fte, call.args[0], call.args[1], primfunc_name_hint="reverse_sequence")


PARAMS = (arg("data"), arg("seq_lengths"), attr("seq_axis", "int", 1), attr("batch_axis", "int", 0))
DOC = ("``R.reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0)``: the first ``seq_lengths[b]`` "
       "positions of each batch index reversed (OP.reverse_sequence.C1-C5).")

__all__ = ["infer", "check", "reference", "legalize", "source_index", "PARAMS", "DOC"]

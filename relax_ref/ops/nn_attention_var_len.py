"""Attention over concatenated sequences: ``nn.attention_var_len`` (spec page
``spec/ops/nn.attention_var_len.md``).

``R.nn.attention_var_len(queries, keys, values, seqstart_q, max_seqlen_q, seqstart_k=None,
max_seqlen_k=None, scale=None, causal_mask=None, window_size=None)`` builds a call with the seven
arguments ``(queries, keys, values, seqstart_q, seqstart_k, max_seqlen_q, max_seqlen_k)`` (the key
ones default to the query ones). Queries ``(1, Tq, N, E)``, keys ``(1, Tk, Nkv, E)`` and values
``(1, Tk, Nkv, Ev)`` hold ``B`` sequences concatenated along axis 1: sequence ``i`` is query rows
``[seqstart_q[i], seqstart_q[i+1])`` and key/value rows ``[seqstart_k[i], seqstart_k[i+1])``; its
output rows are ``nn.attention`` of that sequence alone (same scale, causal mask and head grouping,
OP.nn.attention.C5). Query rows outside every sequence are 0.

Legalization: none. TVM 0.27's LegalizeOps raises for this operator ("not supported yet"); only its
CUTLASS offload computes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OpRuntimeError, ParseError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import TensorStructInfo
from ..limits import check_alloc
from . import common
from . import nn_common
from .args import OpArgs
from .checks import float_only
from .nn_attention import CAUSAL_MASKS, _scale_value, attention_np
from .opdef import OpDef, Param, arg, attr, convert_arg

NAMES = ("queries", "keys", "values", "seqstart_q", "max_seqlen_q", "seqstart_k", "max_seqlen_k", "scale",
         "causal_mask", "window_size")


def parse(opdef, args, kwargs, span) -> rx.Call:
    if len(args) > len(NAMES):
        raise ParseError(f"R.nn.attention_var_len takes at most {len(NAMES)} arguments, got {len(args)}", span)
    b = dict(zip(NAMES, args))
    for k, v in kwargs.items():
        if k not in NAMES or k in b:
            raise ParseError(f"R.nn.attention_var_len: unexpected or repeated argument '{k}'", span)
        b[k] = v
    for k in NAMES[:5]:
        if b.get(k) is None:
            raise ParseError(f"R.nn.attention_var_len missing required argument '{k}'", span)
    e = {k: convert_arg(Param(k), b[k], span) for k in NAMES[:5]}
    sk = e["seqstart_q"] if b.get("seqstart_k") is None else convert_arg(Param("k"), b["seqstart_k"], span)
    mk = e["max_seqlen_q"] if b.get("max_seqlen_k") is None else convert_arg(Param("k"), b["max_seqlen_k"], span)
    ws = b.get("window_size")
    attrs = {"scale": _scale_value(b.get("scale"), span), "causal_mask": b.get("causal_mask"),
             "window_size": None if ws is None else int(ws)}
    if attrs["causal_mask"] is not None and not isinstance(attrs["causal_mask"], str):
        raise ParseError("R.nn.attention_var_len: causal_mask must be a string", span)
    return rx.Call(opdef.op, (e["queries"], e["keys"], e["values"], e["seqstart_q"], sk, e["max_seqlen_q"], mk),
                   Attrs(attrs), span=span)


def print_call(call: rx.Call, printer) -> str:
    a = call.args
    parts = [printer.expr(x) for x in (a[0], a[1], a[2], a[3], a[5])]
    parts += [f"seqstart_k={printer.expr(a[4])}", f"max_seqlen_k={printer.expr(a[6])}"]
    for k in ("scale", "causal_mask", "window_size"):
        if call.attrs.get(k) is not None:
            parts.append(f"{k}={printer.attr(call.attrs[k])}")
    return f"R.nn.attention_var_len({', '.join(parts)})"


def infer(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.nn.attention_var_len.C1-C3 (TVM 0.27 applies the rule of ``nn.attention`` to the first three)."""
    ts = common.tensor_args(call, 7, ctx, ("query", "key", "value", "seqstart_q", "seqstart_k", "max_seqlen_q",
                                            "max_seqlen_k"))
    mask = call.attrs.get("causal_mask")
    if mask is not None and mask not in CAUSAL_MASKS:
        raise common.error(call, f"causal_mask must be None, 'TopLeft' or 'BottomRight', got {mask!r}", ctx)
    for t, nm in zip(ts[:3], ("query", "key", "value")):
        if t.ndim != 4:
            raise common.error(call, f"The {nm} should have 4 dimension, namely [batch size, sequence length, number "
                                     "of heads, dimension of heads].", ctx)
    q, k, v = (nn_common.shape_expr_values(t) for t in ts[:3])
    if q is None or k is None or v is None:
        return TensorStructInfo(None, ts[0].dtype, 4, ts[0].vdevice)
    pairs = ((q[0], k[0], "batch size"), (q[0], v[0], "batch size"), (k[1], v[1], "sequence length"),
             (q[3], k[3], "dimension of heads"))
    for a, c, dim in pairs:
        if nn_common.provably_unequal(ctx, a, c):
            raise common.error(call, f"the {dim} {a} and {c} should be the same", ctx)
    for c in (k[2], v[2]):
        if nn_common.can_prove(ctx, P.ne(P.floormod(q[2], c), nn_common.i64(0))):
            raise common.error(call, f"the number of query heads {q[2]} should be a multiple of {c}", ctx)
    return TensorStructInfo(rx.ShapeExpr((q[0], q[1], q[2], v[3])), ts[0].dtype, vdevice=ts[0].vdevice)


def check(args: OpArgs) -> None:
    """OP.nn.attention_var_len.C4-C6 at run time."""
    op = args.op_name
    float_only(args, 0, "data")
    if args.attrs.get("window_size") is not None:
        raise args.error(UnsupportedError, f"{op}: sliding-window attention (window_size) has no TVM kernel")
    qs, ks, vs = args.shape(0), args.shape(1), args.shape(2)
    if qs[0] != 1 or ks[0] != 1 or vs[0] != 1 or ks[1] != vs[1] or qs[3] != ks[3] or ks[2] != vs[2] \
            or ks[2] == 0 or qs[2] % ks[2]:
        raise args.error(OpRuntimeError, f"{op}: query {args.size_text(qs)}, key {args.size_text(ks)} and value "
                                         f"{args.size_text(vs)} do not match, or the batch size is not 1 "
                                         "(OP.nn.attention_var_len.C4)")
    for i in (3, 4):
        if args.ndim(i) != 1 or args.shape(i)[0] < 1 or not args.dtype(i).startswith("int"):
            raise args.error(OpRuntimeError, f"{op}: seqstart tensors must be non-empty 1-D integer tensors "
                                             "(OP.nn.attention_var_len.C5)")
    if args.shape(3)[0] != args.shape(4)[0]:
        raise args.error(OpRuntimeError, f"{op}: seqstart_q and seqstart_k describe different numbers of sequences "
                                         "(OP.nn.attention_var_len.C5)")
    scores = (1, qs[2], qs[1], ks[1])
    if all(args.is_static(n) for n in scores):
        # RUNTIME.LIMIT.3: the scores of all rows against all rows, as nn.attention's, before the data checks
        check_alloc(scores, args.dtype(0), args.limits, f"{op}: the scores", args.span)
    xp = args.xp
    sq, sk = args.data(3).astype(xp.int64), args.data(4).astype(xp.int64)
    lq, lk = sq[1:] - sq[:-1], sk[1:] - sk[:-1]
    bad = xp.any(lq < 0) | xp.any(lk < 0) | (sq[0] < 0) | (sk[0] < 0) | (sq[-1] > qs[1]) | (sk[-1] > ks[1])
    bad = bad | xp.any((lq > 0) & (lk == 0))
    args.fail_if(bad, lambda: OpRuntimeError(
        f"{op}: the sequence starts must be non-decreasing within the rows, and every sequence with queries needs "
        "keys (OP.nn.attention_var_len.C5)"))
    for i, lens in ((5, lq), (6, lk)):
        mx = args.data(i).reshape(-1)
        args.fail_if((mx.shape[0] != 1) | xp.any(lens > mx[0]) if mx.shape[0] == 1 else True, lambda: OpRuntimeError(
            f"{op}: a max_seqlen tensor holds one value, at least every sequence length (OP.nn.attention_var_len.C6)"))


def reference(args, attrs, call, ctx):
    q, k, v, sq, sk = args[:5]
    scale = attrs.get("scale")
    sv = None if scale is None else float(scale.value if isinstance(scale, P.FloatImm) else scale)
    out = np.zeros(q.shape[:3] + (v.shape[3],), q.dtype)
    for i in range(len(sq) - 1):
        a, b, c, d = int(sq[i]), int(sq[i + 1]), int(sk[i]), int(sk[i + 1])
        if b > a:
            out[:, a:b] = attention_np(call, q[:, a:b], k[:, c:d], v[:, c:d], None, sv, attrs.get("causal_mask"))
    return out


PARAMS = (arg("queries"), arg("keys"), arg("values"), arg("seqstart_q"), arg("seqstart_k"), arg("max_seqlen_q"),
          arg("max_seqlen_k"), attr("scale", "any", None), attr("causal_mask", "optional_str", None),
          attr("window_size", "any", None))

#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS = [
    OpDef(name="relax.nn.attention_var_len", script="R.nn.attention_var_len", params=PARAMS, infer=infer,
          check=check, reference=reference, parse_call=parse, print_call=print_call, category="nn",
          legalize_exempt="TVM 0.27's LegalizeOps rejects it (only its CUTLASS offload computes it); there is no "
                          "TensorIR form of the ragged batch here either",
          doc="``R.nn.attention_var_len(queries, keys, values, seqstart_q, max_seqlen_q, seqstart_k=None, "
              "max_seqlen_k=None, scale=None, causal_mask=None, window_size=None)``: attention over concatenated "
              "sequences (OP.nn.attention_var_len.C1-C6)."),
]

__all__ = ["parse", "print_call", "infer", "check", "reference", "PARAMS"]

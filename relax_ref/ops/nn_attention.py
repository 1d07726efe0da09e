"""Scaled dot-product attention: ``nn.attention`` and ``nn.attention_bias`` (spec pages
``spec/ops/nn.attention.md`` and ``spec/ops/nn.attention_bias.md``).

``R.nn.attention(query, key, value, bias=None, scale=None, causal_mask=None, window_size=None)``
builds ``relax.nn.attention_bias`` when ``bias`` is given (as TVM's constructor does), and
``R.nn.attention_bias(..., bias=None)`` builds ``relax.nn.attention``.

Semantics (TVM 0.25's legalization ``_te_attention``), per batch ``b`` and query head ``h``
(OP.nn.attention.C5):

1. ``p[i, j] = sum_e q[b, i, h, e] * k[b, j, h', e]`` then ``p * scale`` when ``scale`` is given,
   else ``p / sqrt(H)``; ``h' = h // (N / N_kv)`` (grouped-query attention when the key/value
   tensors have fewer heads; TVM's kernel only supports equal head counts).
2. ``attention_bias`` adds ``bias[b, h, i, j]`` (broadcast over size-1 dims).
3. Without a causal mask: ``softmax`` over ``j``. With ``causal_mask`` the kernel keeps
   ``j <= i + offset`` (``offset = 0`` for ``"TopLeft"``, ``|S - S_kv|`` for ``"BottomRight"``), sets
   the other scores to 0, takes ``m = max_j`` of the *masked* scores (zeros included), and
   normalizes ``exp(p - m)`` over the kept positions only.
4. ``out[b, i, h, :] = sum_j s[i, j] * v[b, j, h', :]``.

Float arithmetic rounds each stage to the dtype; sums and products are defined up to reassociation.
``window_size`` (sliding-window attention) has no TVM kernel: UnsupportedError.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..errors import OpRuntimeError, ParseError, UnsupportedError
from ..ir import expr as rx
from ..limits import check_alloc
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import TensorStructInfo
from . import common
from . import nn_common
from . import te
from . import te_ops
from .nn import legalizable, te_softmax
from .args import OpArgs
from .checks import float_only
from .opdef import OpDef, arg, attr, build_call

CAUSAL_MASKS = ("TopLeft", "BottomRight")


# ---------------------------------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------------------------------


def _scale_value(v: Any, span) -> Optional[P.FloatImm]:
    if v is None:
        return None
    if isinstance(v, P.FloatImm):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return P.FloatImm(float(v), "float32")
    if isinstance(v, P.IntImm):
        return P.FloatImm(float(v.value), "float32")
    raise ParseError(f"R.nn.attention: scale must be a float, got {v!r}", span)


def _parse(opdef: OpDef, args: list, kwargs: dict, span) -> rx.Call:
    """Bind like TVM's ``attention``: the op is ``attention_bias`` exactly when ``bias`` is given."""
    plain = _PLAIN[opdef.name]
    call = build_call(plain, args, kwargs, span)
    a = dict(call.attrs)
    a["scale"] = _scale_value(a.get("scale"), span)
    ws = a.get("window_size")
    a["window_size"] = None if ws is None else int(ws)
    name = "relax.nn.attention_bias" if len(call.args) == 4 else "relax.nn.attention"
    return rx.Call(rx.Op(name), call.args, Attrs(a), (), span=span)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def _attention_infer(call, ctx):
    """OP.nn.attention.C1-C4 (TVM's ``InferStructInfoAttention``)."""
    n = 4 if common.op_name(call) == "relax.nn.attention_bias" else 3
    names = ("query", "key", "value", "bias")[:n]
    ts = common.tensor_args(call, n, ctx, names)
    mask = call.attrs.get("causal_mask")
    if mask is not None and mask not in CAUSAL_MASKS:
        raise common.error(call, f"causal_mask must be None, 'TopLeft' or 'BottomRight', got {mask!r}", ctx)
    for t, nm in zip(ts[:3], names):
        if t.ndim != 4:
            raise common.error(call,
                               f"The {nm} should have 4 dimension, namely [batch size, sequence length, number of "
                                     "heads, dimension of heads].", ctx)
    q, k, v = (nn_common.shape_expr_values(t) for t in ts[:3])
    if q is None or k is None or v is None:
        return TensorStructInfo(None, ts[0].dtype, 4, ts[0].vdevice)
    b, s, h, e = q
    skv, ev = k[1], v[3]

    def equal(a, c, m1, m2, dim):
        if nn_common.provably_unequal(ctx, a, c):
            raise common.error(call,
                               f"The {m1} {dim} and the {m2} {dim} should be the same. However, the {dim} of {m1} is "
                                     f"{a} while the {dim} of {m2} is {c}", ctx)

    def multiple(a, c, m1, m2, dim):
        if nn_common.can_prove(ctx, P.ne(P.floormod(a, c), nn_common.i64(0))):
            raise common.error(call,
                               f"The {m1} {dim} should be a multiple of {m2} {dim}. However, the {dim} of {m1} is {a} "
                                     f"while the {dim} of {m2} is {c}", ctx)

    equal(b, k[0], "query", "key", "batch size")
    equal(b, v[0], "query", "value", "batch size")
    multiple(h, k[2], "query", "key", "number of heads")
    multiple(h, v[2], "query", "value", "number of heads")
    equal(skv, v[1], "key", "value", "sequence length")
    equal(e, k[3], "query", "key", "dimension of heads")
    if n == 4:
        bias = ts[3]
        if bias.ndim != 4:
            raise common.error(call, f"The bias should have 4 dimensions. However, the bias input has {bias.ndim} "
                                     "dimensions.", ctx)
        bv = nn_common.shape_expr_values(bias)
        if bv is not None:
            for a, c, dim in ((b, bv[0], "batch size"), (h, bv[1], "number of heads"), (s, bv[2], "sequence length")):
                if nn_common.provably_unequal(ctx, a, c) and not (isinstance(c, P.IntImm) and c.value == 1):
                    raise common.error(call, f"The query {dim} and the bias {dim} should be the same or broadcastable. "
                                             f"However, the {dim} of query is {a} while the {dim} of bias is {c}", ctx)
            equal(skv, bv[3], "key", "bias", "sequence length")
    return TensorStructInfo(rx.ShapeExpr((b, s, h, ev)), ts[0].dtype, vdevice=ts[0].vdevice)


# ---------------------------------------------------------------------------------------------------
# Reference semantics
# ---------------------------------------------------------------------------------------------------


def attention_np(call, q, k, v, bias, scale: Optional[float], causal_mask: Optional[str]) -> np.ndarray:
    """TVM's attention stages, each rounded to the dtype; bfloat16 in float32, rounded once (OP.SEM.7)."""
    out_dt = nn_common.dtype_of(q)
    dt = nn_common.intermediate_dtype(out_dt)
    wide = nn_common.np_dtype(dt)
    q, k, v = q.astype(wide), k.astype(wide), v.astype(wide)
    bias = None if bias is None else bias.astype(wide)
    f = nn_common.FloatOps(dt)
    bsz, s, nh, e = q.shape
    skv, nkv = k.shape[1], k.shape[2]
    rep = nh // nkv
    qt = np.transpose(q, (0, 2, 1, 3))                          # (B, N, S, H)
    kt = np.repeat(np.transpose(k, (0, 2, 1, 3)), rep, axis=1)  # (B, N, Skv, H)
    vt = np.repeat(np.transpose(v, (0, 2, 1, 3)), rep, axis=1)
    cd = f.cd
    with np.errstate(all="ignore"):
        p = nn_common.rounded(np.matmul(qt.astype(cd), np.swapaxes(kt, -1, -2).astype(cd)), dt)
    if scale is not None:
        # the float32 attribute in the intermediate dtype (bfloat16: kept in float32, OP.SEM.7)
        p = f.mul(p, np.array(scale, dtype=np.float32).astype(wide))
    else:
        p = f.div(p, f.intrin("sqrt", f.const(float(e))))
    if bias is not None:
        p = f.add(p, np.broadcast_to(bias, p.shape))
    if causal_mask is None:
        sm = f.div(*_exp_sum(f, p, None))
    else:
        offset = 0 if causal_mask == "TopLeft" else abs(s - skv)
        keep = np.arange(skv)[None, :] <= np.arange(s)[:, None] + offset
        pm = np.where(keep, p, f.const(0))
        ex, ssum = _exp_sum(f, pm, keep)
        sm = f.div(ex, ssum)
    with np.errstate(all="ignore"):
        o = nn_common.rounded(np.matmul(sm.astype(cd), vt.astype(cd)), out_dt)  # (B, N, S, Hv)
    return np.ascontiguousarray(np.transpose(o, (0, 2, 1, 3)))


def _exp_sum(f: nn_common.FloatOps, p: np.ndarray, keep: Optional[np.ndarray]):
    m = nn_common.tir_max_reduce(p, p.ndim - 1, keepdims=True)
    ex = f.intrin("exp", f.sub(p, m))
    if keep is not None:
        ex = np.where(keep, ex, f.const(0))
    return ex, f.sum(ex, axis=-1, keepdims=True)


def _attention_ref(args, attrs, call, ctx):
    q, k, v = args[:3]
    bias = args[3] if len(args) == 4 else None
    mask = attrs.get("causal_mask")
    scale = attrs.get("scale")
    sv = None if scale is None else float(scale.value if isinstance(scale, P.FloatImm) else scale)
    return attention_np(call, q, k, v, bias, sv, mask)


# ---------------------------------------------------------------------------------------------------
# Legalization (TVM's ``_te_attention``)
# ---------------------------------------------------------------------------------------------------


def _names(n: int) -> List[str]:
    return [f"ax{k}" for k in range(n)]


def te_attention(q: te.Tensor, k: te.Tensor, v: te.Tensor, bias: Optional[te.Tensor], scale: Optional[P.FloatImm],
                 causal_mask: Optional[str]) -> te.Tensor:
    from .manipulate import te_reshape, te_transpose

    b, s, nh, e = q.shape
    skv, ev = v.shape[1], v.shape[3]
    bs = te_ops.mul(b, nh)
    q3 = te_reshape(te_transpose(q, [0, 2, 1, 3]), [bs, s, e])
    k3 = te_reshape(te_transpose(k, [0, 2, 1, 3]), [bs, skv, e])
    v3 = te_reshape(te_transpose(v, [0, 2, 1, 3]), [bs, skv, ev])
    r = te.reduce_axis(e, "k")
    p = te.compute([bs, s, skv], lambda i, j, kk: te.sum(te_ops.mul(q3(i, j, r), k3(i, kk, r)), axis=r),
                   name="T_batch_matmul_NT", index_names=["b", "i", "j"])
    if scale is not None:
        p = te.compute(p.shape, lambda *i: te_ops.mul(p(*i), te_ops.cast(p.dtype, scale)), name="T_multiply",
                       index_names=_names(3))
    else:
        p = te.compute(p.shape, lambda *i: te_ops.div(p(*i), te.sqrt(te_ops.cast(p.dtype, e))), name="T_divide",
                       index_names=_names(3))
    if bias is not None:
        p4 = te_reshape(p, [b, nh, s, skv])

        def add_bias(i0, i1, i2, i3):
            idx = [i0, i1, i2, i3]
            bidx = [nn_common.i64(0) if isinstance(bias.shape[d], P.IntImm) and bias.shape[d].value == 1 else idx[d]
                    for d in range(4)]
            return te_ops.add(p4(*idx), bias(*bidx))

        p = te_reshape(te.compute([b, nh, s, skv], add_bias, name="T_add", index_names=_names(4)), [bs, s, skv])
    if causal_mask is None:
        sm = te_softmax(p, -1)
    else:
        offset = nn_common.i64(0) if causal_mask == "TopLeft" else te_ops.abs_(te_ops.sub(s, skv))

        def keep(i, j):
            return te_ops.le(j, te_ops.add(i, offset))

        zero = te_ops.const(0, p.dtype)
        pm = te.compute(p.shape, lambda a, i, j: te_ops.select(keep(i, j), p(a, i, j), zero), name="trilu",
                        index_names=["i0", "i1", "i2"])
        kk = te.reduce_axis(skv, "k")
        mx = te.compute([bs, s, 1], lambda a, i, _: te.max(pm(a, i, kk), axis=kk), name="T_max",
                        index_names=_names(3))
        ex = te.compute(p.shape, lambda a, i,
                        j: te_ops.select(keep(i, j), te.exp(te_ops.sub(pm(a, i, j), mx(a, i, nn_common.i64(0)))),
                                                               zero), name="trilu", index_names=["i0", "i1", "i2"])
        k2 = te.reduce_axis(skv, "k")
        ssum = te.compute([bs, s, 1], lambda a, i, _: te.sum(ex(a, i, k2), axis=k2), name="T_sum",
                          index_names=_names(3))
        sm = te.compute(p.shape, lambda a, i, j: te_ops.div(ex(a, i, j), ssum(a, i, nn_common.i64(0))), name="T_divide",
                        index_names=_names(3))
    r2 = te.reduce_axis(skv, "k")
    o = te.compute([bs, s, ev], lambda i, j, kk: te.sum(te_ops.mul(sm(i, j, r2), v3(i, r2, kk)), axis=r2),
                   name="T_batch_matmul_NN", index_names=["b", "i", "j"])
    return te_transpose(te_reshape(o, [b, nh, s, ev]), [0, 2, 1, 3])


def _attention_legalize(call, ctx):
    if not legalizable(call):
        return None
    a = call.attrs
    if a.get("window_size") is not None:
        raise UnsupportedError(f"{common.op_name(call)}: sliding-window attention (window_size) cannot be legalized "
                               "(TVM 0.25 asserts the same)", call.span)
    q, k = call.args[0].struct_info, call.args[1].struct_info
    v = call.args[2].struct_info
    if not (common.prove_equal(ctx, q.shape.values[2], k.shape.values[2])
            and common.prove_equal(ctx, q.shape.values[2], v.shape.values[2])):
        return None  # grouped-query attention: TVM's kernel assumes equal head counts
    scale, mask = a.get("scale"), a.get("causal_mask")
    if common.op_name(call) == "relax.nn.attention_bias":
        return ctx.call_te(lambda q_, k_, v_, b_: te_attention(q_, k_, v_, b_, scale, mask), *call.args,
                           primfunc_name_hint="attention_bias")
    return ctx.call_te(lambda q_, k_, v_: te_attention(q_, k_, v_, None, scale, mask), *call.args,
                       primfunc_name_hint="attention")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

_COMMON = (attr("scale", "any", None), attr("causal_mask", "optional_str", None), attr("window_size", "any", None))
_PLAIN = {
    "relax.nn.attention": OpDef(name="relax.nn.attention", script="R.nn.attention",
                                params=(arg("query"), arg("key"), arg("value"), arg("bias", "optional_expr", None))
                                + _COMMON),
    "relax.nn.attention_bias": OpDef(name="relax.nn.attention_bias", script="R.nn.attention_bias",
                                     params=(arg("query"), arg("key"), arg("value"),
                                             arg("bias", "optional_expr", None)) + _COMMON),
}


# ---------------------------------------------------------------------------------------------------
# Run-time checks (OpDef.check, every evaluator)
# ---------------------------------------------------------------------------------------------------


def _check_attention(args: OpArgs) -> None:
    """OP.nn.attention.C2-C5 at run time: float operands; no sliding window (no TVM 0.25 kernel); a known
    causal mask; query ``(B, S, N, E)``, key ``(B, Skv, Nkv, E)`` and value ``(B, Skv, Nkv, Ev)`` with
    ``N`` a multiple of ``Nkv``; a bias that broadcasts to the scores ``(B, N, S, Skv)``."""
    op = args.op_name
    float_only(args, 0, "data")
    if args.attrs.get("window_size") is not None:
        raise args.error(UnsupportedError, f"{op}: sliding-window attention (window_size) has no TVM 0.25 kernel")
    mask = args.attrs.get("causal_mask")
    if mask is not None and mask not in CAUSAL_MASKS:
        raise args.error(UnsupportedError, f"{op}: unknown causal_mask {mask!r}")
    qs, ks, vs = args.shape(0), args.shape(1), args.shape(2)

    def mismatch() -> OpRuntimeError:
        return OpRuntimeError(f"{op}: query {args.size_text(qs)}, key {args.size_text(ks)} and value "
                              f"{args.size_text(vs)} do not match")

    if len(qs) != 4 or len(ks) != 4 or len(vs) != 4:
        raise mismatch().with_span(args.span)
    xp = args.xp
    for a, b in ((qs[0], ks[0]), (qs[0], vs[0]), (ks[1], vs[1]), (ks[3], qs[3]), (ks[2], vs[2])):
        if args.is_static(a) and args.is_static(b):
            if a != b:
                raise mismatch().with_span(args.span)
        elif a is not b:                # one traced size is equal to itself: nothing to check
            args.fail_if(xp.asarray(a) != xp.asarray(b), mismatch)
    nh, nkv = qs[2], ks[2]
    if args.is_static(nh) and args.is_static(nkv) and (nkv == 0 or nh % nkv != 0):
        raise mismatch().with_span(args.span)
    if len(args) == 4:
        scores = (qs[0], qs[2], qs[1], ks[1])
        bs = args.shape(3)
        if all(args.is_static(n) for n in bs + scores) and not _broadcasts_to(bs, scores):
            raise args.error(OpRuntimeError, f"{op}: bias of shape {args.size_text(bs)} does not broadcast to the "
                                             f"scores {args.size_text(scores)}")
    scores = (qs[0], qs[2], qs[1], ks[1])
    if all(args.is_static(n) for n in scores):
        # RUNTIME.LIMIT.3: the score matrix is the operator's own buffer, larger than its operands
        # and its result when the sequences are long
        check_alloc(scores, args.dtype(0), args.limits, f"{op}: the scores", args.span)


def _broadcasts_to(shape, target) -> bool:
    """Whether ``numpy.broadcast_to`` takes ``shape`` to ``target``."""
    if len(shape) > len(target):
        return False
    return all(a == b or a == 1 for a, b in zip(shape[::-1], target[::-1]))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    for name, plain in _PLAIN.items():
        short = name.replace("relax.", "")
        OPS.append(OpDef(name=name, script=plain.script, params=plain.params, infer=_attention_infer,
                       check=_check_attention, reference=_attention_ref, legalize=_attention_legalize,
                       parse_call=_parse, category="nn",
                       print_call=nn_common.print_in_order(("scale", "causal_mask", "window_size")),
                       doc=f"``{plain.script}(query, key, value, bias=None, scale=None, causal_mask=None, "
                           f"window_size=None)``: scaled dot-product attention (OP.{short}.C1-C5)."))


_define_all()

__all__ = ["attention_np", "te_attention", "CAUSAL_MASKS"]

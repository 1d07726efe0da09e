"""Linear algebra: ``matmul``, ``einsum``, ``outer`` (spec pages ``spec/ops/<op>.md``).

Inference follows TVM 0.25 (``linear_algebra.cc`` and TOPI's ``InferEinsumShape``). Semantics
(OP.LINALG.SEM.*):

1. ``matmul`` is numpy's ``matmul``: a 1-d left operand gets a leading 1 and a 1-d right operand a
   trailing 1, both removed from the result; batch dims broadcast. Elements are multiplied and
   summed in ``out_dtype`` (both operands converted to it first) or, without it, in the TIR-matched
   dtype of the operands, and the result is converted to the inferred dtype (the LHS dtype when one
   operand is bool, DIV.23). Integer products and sums wrap; bool products are ``and`` and bool sums
   ``or``; float sums are defined up to reassociation (OP.SEM.5). A zero-length reduction gives 0
   (TVM 0.25 returns uninitialized memory). Reduction or batch dims that turn out different at run
   time (and not broadcastable) are an OpRuntimeError (OP.SEM.2).
2. ``einsum`` is TVM's ``topi.einsum``: the product of the operands' elements summed over the labels
   that are not in the output. Label extents broadcast (a dim of 1 is read at index 0), ellipsis
   sub-shapes broadcast as numpy shapes, a label repeated in one operand takes the diagonal.
   Implicit mode (no ``->``) outputs the labels that occur once, in ASCII order, after the ellipsis.
   relax-ref rejects (StructInfoError) an output label that no input has or that is repeated, and
   an output ellipsis without an input ellipsis; TVM 0.25 crashes on the first and accepts the
   others with nonsensical results (OP.LINALG.DIV.1).
3. ``outer`` is ``x1[i] * x2[j]`` in the TIR-matched dtype, converted to ``x1``'s dtype (TVM infers
   ``x1``'s dtype without checking ``x2``'s).
4. (OP.LINALG.SEM.5) float16 ``matmul`` and ``einsum`` accumulate sequentially in float16 in the kernel's loop order
   (``einsum``: the summed labels in ASCII order, a summed ellipsis outermost), every product and
   sum rounded, as TVM 0.25 and 0.27 (:func:`sequential_contraction`, :func:`einsum_loop_plan`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te
from . import te_ops
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .statistical import dtype_of, known_shapes, np_dtype, tir_cast

# ---------------------------------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------------------------------


def float32_contraction(dtype: str) -> bool:
    """Whether a ``matmul`` or ``einsum`` in ``dtype`` multiplies and sums in float32 and rounds once
    (OP.LINALG.SEM.4): ``bfloat16`` (OP.SEM.7) and the 8-bit floats, whose products are exact in
    float32 (numpy's ``einsum`` has no loops for these ml_dtypes types; XLA computes them so)."""
    return _dt.float32_intermediates(dtype) or dtype.startswith("float8")


def sequential_contraction(dtype: str) -> bool:
    """Whether a ``matmul`` or ``einsum`` in ``dtype`` accumulates sequentially in the dtype, each
    product and each partial sum rounded, in the kernel's loop order (OP.LINALG.SEM.5): ``float16``,
    as TVM 0.25 and 0.27 compute it."""
    return dtype == "float16"


def _matmul_vdevice(a: TensorStructInfo, b: TensorStructInfo):
    """TVM's matmul rule: both defined and equal -> it; both defined and different -> undefined;
    otherwise the defined one."""
    if a.vdevice is not None and b.vdevice is not None:
        return a.vdevice if a.vdevice == b.vdevice else None
    return a.vdevice if a.vdevice is not None else b.vdevice


def infer_matmul(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.matmul.C1-C4 (TVM's ``InferStructInfoMatmul``)."""
    x1, x2 = common.tensor_args(call, 2, ctx, ("x1", "x2"))
    vdev = _matmul_vdevice(x1, x2)
    out_dtype = call.attrs.get("out_dtype") or "void"
    if out_dtype == "void":
        out_dtype = common.binary_arith_dtype(call, x1, x2, ctx)
    if x1.ndim == -1 or x2.ndim == -1:
        return TensorStructInfo(None, out_dtype, -1, vdev)
    for side, s in (("LHS", x1), ("RHS", x2)):
        if s.ndim == 0:
            raise common.error(call, f"matmul operands must not be scalar, but the {side} has struct info "
                                     f"{common.describe_sinfo(s)}, which is a zero-dimensional tensor", ctx)
    n1, n2 = x1.ndim, x2.ndim
    pre, app = int(n1 == 1), int(n2 == 1)
    n1, n2 = max(n1, 2), max(n2, 2)
    out_ndim = max(n1, n2) - pre - app
    if not isinstance(x1.shape, rx.ShapeExpr) or not isinstance(x2.shape, rx.ShapeExpr):
        return TensorStructInfo(None, out_dtype, out_ndim, vdev)
    s1, s2 = x1.shape.values, x2.shape.values
    prefix1 = s1[:len(s1) - 2 + pre]
    prefix2 = s2[:len(s2) - 2 + app]
    prefix = common.broadcast_shapes_or_error(call, ctx, prefix1, prefix2)
    if prefix is None:
        return TensorStructInfo(None, out_dtype, out_ndim, vdev)
    k1, k2 = s1[-1], s2[n2 - 2]
    analyzer = getattr(ctx, "analyzer", None)
    if (isinstance(k1, P.IntImm) and isinstance(k2, P.IntImm) and k1.value != k2.value) or \
            (analyzer is not None and analyzer.can_prove(te_ops.ne(k1, k2))):
        raise common.error(call, "matmul requires the reduction length of the operands to be equal, but the LHS "
                                 f"has shape {common.describe_sinfo(x1)} and the RHS has shape "
                                 f"{common.describe_sinfo(x2)}: the "
                                 f"reduction dimensions {k1} and {k2} are not equal", ctx)
    out = list(prefix)
    if not pre:
        out.append(s1[n1 - 2])
    if not app:
        out.append(s2[n2 - 1])
    return TensorStructInfo(rx.ShapeExpr(tuple(out)), out_dtype, vdevice=vdev)


def _compute_dtype(call: rx.Call, da: str, db: str) -> str:
    od = call.attrs.get("out_dtype") or "void"
    if od != "void":
        return od
    from .elementwise import matched_dtype

    return matched_dtype(da, db)


def _check_matmul(args: OpArgs) -> None:
    """OP.matmul.C2 at run time: equal reduction lengths; batch shapes that broadcast (a vector
    operand counts as a matrix of one row or column)."""
    sa, sb = args.shape(0), args.shape(1)
    sa = (1,) + sa if len(sa) == 1 else sa
    sb = sb + (1,) if len(sb) == 1 else sb
    xp = args.xp

    def lengths() -> OpRuntimeError:
        return OpRuntimeError(f"relax.matmul: reduction lengths {_size(args, sa[-1])} and {_size(args, sb[-2])} differ")

    ka, kb = sa[-1], sb[-2]
    if args.is_static(ka) and args.is_static(kb):
        if ka != kb:
            raise lengths().with_span(args.span)
    else:
        args.fail_if(xp.asarray(ka) != xp.asarray(kb), lengths)
    ba, bb = sa[:-2], sb[:-2]
    nb = max(len(ba), len(bb))
    ba, bb = (1,) * (nb - len(ba)) + tuple(ba), (1,) * (nb - len(bb)) + tuple(bb)

    def batches() -> OpRuntimeError:
        return OpRuntimeError(f"relax.matmul: batch shapes {args.size_text(sa[:-2])} and {args.size_text(sb[:-2])} "
                              "cannot be broadcast")

    for x, y in zip(ba, bb):
        if args.is_static(x) and args.is_static(y):
            if x != y and 1 not in (x, y):
                raise batches().with_span(args.span)
        elif not (args.is_static(x) and x == 1) and not (args.is_static(y) and y == 1):
            args.fail_if(xp.asarray(x) != xp.asarray(y), batches)


def _size(args: OpArgs, n: Any) -> Any:
    return n if args.is_static(n) else "?"


def _ref_matmul(args, attrs, call, ctx):
    a, b = args
    da, db = dtype_of(a), dtype_of(b)
    cd = _compute_dtype(call, da, db)
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    x = tir_cast(a2, da, cd)
    y = tir_cast(b2, db, cd)
    with np.errstate(all="ignore"):
        if float32_contraction(cd):            # OP.LINALG.SEM.4: float32 sums, rounded once
            r = np.matmul(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype)
        elif sequential_contraction(cd):       # OP.LINALG.SEM.5
            r = _matmul_16bit(x, y)
        else:
            r = np.matmul(x, y)
    if a.ndim == 1:
        r = r[..., 0, :]
    if b.ndim == 1:
        r = r[..., 0]
    out_dt = call.struct_info.dtype if isinstance(call.struct_info, TensorStructInfo) else cd
    if out_dt == "void":                # operands of unknown dtype: the computed one
        out_dt = cd
    return tir_cast(np.asarray(r, dtype=x.dtype), cd, out_dt)


def _matmul_16bit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float16 matmul accumulating sequentially in the dtype, each product and sum rounded (as TVM's
    kernel, OP.LINALG.SEM.5)."""
    shape = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    xb = np.broadcast_to(x, shape + x.shape[-2:])
    yb = np.broadcast_to(y, shape + y.shape[-2:])
    acc = np.zeros(shape + (x.shape[-2], y.shape[-1]), dtype=x.dtype)
    for k in range(x.shape[-1]):
        acc = (acc + (xb[..., :, k:k + 1] * yb[..., k:k + 1, :]).astype(x.dtype)).astype(x.dtype)
    return acc


def _zero_guard(red: te.Tensor, count: P.PrimExpr, dtype: str, name: str) -> te.Tensor:
    """OP.LINALG.SEM.1 for kernels: 0 when the reduction has no elements (a reduction over no elements
    never runs ``T.init``)."""
    if isinstance(count, P.IntImm) and count.value > 0:
        return red
    return te.compute(red.shape, lambda *i: te_ops.select(te_ops.lt(P.IntImm(0, "int64"), count), red(*i),
                                                                 te_ops.const(0, dtype)), name=name)


def _legalize_matmul(call, ctx):
    """TVM's ``te_matmul``: one ``matmul`` reduction stage (``T_select`` guard for a reduction length
    that is not a known non-zero constant, ``T_full`` of 0 for a constant zero length, ``T_cast`` when
    the inferred dtype differs from the product dtype)."""
    if not known_shapes(call):
        return None
    out_sinfo = call.struct_info
    od = call.attrs.get("out_dtype") or "void"

    def te_matmul(a, b):
        a_shape, b_shape = list(a.shape), list(b.shape)
        a_pre = len(a_shape) == 1
        b_app = len(b_shape) == 1
        if a_pre:
            a_shape.insert(0, P.IntImm(1, "int64"))
        if b_app:
            b_shape.append(P.IntImm(1, "int64"))
        a_larger = len(a_shape) > len(b_shape)
        offset = abs(len(a_shape) - len(b_shape))
        prefix = common.broadcast_shapes(ctx, a_shape[:-2], b_shape[:-2]).shape
        out_shape = list(prefix)
        if not a_pre:
            out_shape.append(a_shape[-2])
        if not b_app:
            out_shape.append(b_shape[-1])
        kext = a_shape[-1]
        prod_dt = od if od != "void" else te_ops.match_types(P.PrimVar("a", a.dtype), P.PrimVar("b", b.dtype))[0].dtype
        if isinstance(kext, P.IntImm) and kext.value == 0:
            res = te.compute(out_shape, lambda *i: te_ops.const(0, prod_dt), name="matmul")
        else:
            def compute(*idx):
                k = te.reduce_axis(kext, "k")
                ai, bi = [], []
                for i in range(offset):
                    (ai if a_larger else bi).append(idx[i])
                for i in range(offset, len(out_shape) - (2 - int(a_pre) - int(b_app))):
                    ad = a_shape[i if a_larger else i - offset]
                    bd = b_shape[i if not a_larger else i - offset]
                    if isinstance(ad, P.IntImm) and isinstance(bd, P.IntImm) and ad.value == bd.value:
                        ai.append(idx[i])
                        bi.append(idx[i])
                    else:
                        ai.append(P.IntImm(0, "int64") if isinstance(ad, P.IntImm) and ad.value == 1 else idx[i])
                        bi.append(P.IntImm(0, "int64") if isinstance(bd, P.IntImm) and bd.value == 1 else idx[i])
                if not a_pre:
                    ai.append(idx[-2 + int(b_app)])
                ai.append(k)
                bi.append(k)
                if not b_app:
                    bi.append(idx[-1])
                if od != "void":
                    term = te_ops.mul(te_ops.cast(od, a(*ai)), te_ops.cast(od, b(*bi)))
                else:
                    term = te_ops.mul(a(*ai), b(*bi))
                return te.sum(term, axis=k)

            red = te.compute(out_shape, compute, name="matmul")
            res = _zero_guard(red, kext, red.dtype, "T_select")
        if res.dtype != out_sinfo.dtype:
            res = te.compute(res.shape, lambda *i: te_ops.cast(out_sinfo.dtype, res(*i)), name="T_cast")
        return res

    return ctx.call_te(te_matmul, call.args[0], call.args[1], primfunc_name_hint="matmul")


# ---------------------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------------------

ELLIPSIS = "..."


class EinsumEquation:
    """TOPI's ``EinsumEquation::FromString`` (OP.einsum.C2): labels are ASCII letters, spaces are
    ignored, one ``->`` at most, one ellipsis per operand at most; without ``->`` the output is the
    ellipsis (if any input has one) followed by the labels that occur exactly once, in ASCII order."""

    def __init__(self, inputs: List[List[str]], output: List[str]):
        self.inputs = inputs
        self.output = output

    @staticmethod
    def parse(text: str) -> "EinsumEquation":
        inputs: List[List[str]] = []
        cur: List[str] = []
        has_arrow = False
        has_ellipsis = False
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == " ":
                pass
            elif c in "-,":
                if c == "-":
                    if has_arrow:
                        raise ValueError("the equation can only have one arrow")
                    if i + 1 >= n or text[i + 1] != ">":
                        raise ValueError("invalid arrow")
                    i += 1
                    has_arrow = True
                elif has_arrow:
                    raise ValueError("the output subscript cannot contain ','")
                inputs.append(cur)
                cur = []
                has_ellipsis = False
            elif c == ".":
                if has_ellipsis:
                    raise ValueError("an ellipsis can only appear once per operand and in the output")
                if text[i:i + 3] != "...":
                    raise ValueError("invalid ellipsis")
                cur.append(ELLIPSIS)
                has_ellipsis = True
                i += 2
            elif c.isascii() and c.isalpha():
                cur.append(c)
            else:
                raise ValueError(f"invalid character {c!r}")
            i += 1
        if has_arrow:
            output = cur
        else:
            inputs.append(cur)
            counts: Dict[str, int] = {}
            for sub in inputs:
                for lab in sub:
                    counts[lab] = counts.get(lab, 0) + 1
            output = ([ELLIPSIS] if ELLIPSIS in counts else []) + sorted(
                lab for lab, c in counts.items() if lab != ELLIPSIS and c == 1)
        return EinsumEquation(inputs, output)


def _einsum_broadcast_extent(call, ctx, e1: P.PrimExpr, e2: P.PrimExpr) -> P.PrimExpr:
    """TOPI's ``GetBroadcastedExtent``."""
    c1 = e1.value if isinstance(e1, P.IntImm) else None
    c2 = e2.value if isinstance(e2, P.IntImm) else None
    if c1 is not None and c2 is not None:
        if c1 == c2:
            return e1
        if c1 == 1 or c2 == 1:
            return P.IntImm(max(c1, c2), "int64")
        raise common.error(call, f"einsum cannot broadcast the extents {c1} and {c2} of one label", ctx)
    if c1 is not None:
        return e2
    if c2 is not None:
        return e1
    if e1 == e2:
        return e1
    return te_ops.max_(e1, e2)


def _einsum_broadcast_shapes(call, ctx, s1: Sequence[P.PrimExpr], s2: Sequence[P.PrimExpr]) -> List[P.PrimExpr]:
    """TOPI's ``detail::BroadcastShape`` (for ellipsis sub-shapes)."""
    out: List[P.PrimExpr] = []
    n1, n2 = len(s1), len(s2)
    for i in range(1, min(n1, n2) + 1):
        a, b = s1[n1 - i], s2[n2 - i]
        ca = a.value if isinstance(a, P.IntImm) else None
        cb = b.value if isinstance(b, P.IntImm) else None
        if a == b or (ca is not None and ca == cb):
            out.append(a)
        elif ca == 1:
            out.append(b)
        elif cb == 1:
            out.append(a)
        elif ca is None and cb is None:
            out.append(te_ops.max_(a, b))
        elif ca is None:
            out.append(b)
        elif cb is None:
            out.append(a)
        else:
            raise common.error(call, f"einsum: incompatible broadcast dims {a} and {b} of the ellipsis", ctx)
    longer = s1 if n1 > n2 else s2
    for i in range(min(n1, n2) + 1, max(n1, n2) + 1):
        out.append(longer[max(n1, n2) - i])
    return list(reversed(out))


class EinsumShapes:
    """Label extents and the ellipsis shape of an equation applied to operand shapes (TOPI's
    ``EinsumBuilder::InferShape``); every failure raises through ``fail(message)``."""

    def __init__(self, call, ctx, eq: EinsumEquation, shapes: Sequence[Sequence[P.PrimExpr]]):
        def fail(msg):
            raise common.error(call, f"einsum: {msg}", ctx)

        if len(eq.inputs) != len(shapes):
            fail(f"the equation has {len(eq.inputs)} operands but {len(shapes)} tensors are given")
        self.extent: Dict[str, P.PrimExpr] = {}
        ell_shapes: List[List[P.PrimExpr]] = []
        for sub, shape in zip(eq.inputs, shapes):
            labels = [lab for lab in sub if lab != ELLIPSIS]
            if ELLIPSIS in sub:
                if len(labels) > len(shape):
                    fail(f"the subscript {''.join(sub)} has more labels than its operand has dims ({len(shape)})")
            elif len(labels) != len(shape):
                fail(f"the subscript {''.join(sub)} has {len(labels)} labels but its operand has {len(shape)} dims")
            dim = 0
            for lab in sub:
                if lab == ELLIPSIS:
                    k = len(shape) - len(labels)
                    ell_shapes.append(list(shape[dim:dim + k]))
                    dim += k
                else:
                    e = shape[dim]
                    dim += 1
                    self.extent[lab] = e if lab not in self.extent else \
                        _einsum_broadcast_extent(call, ctx, self.extent[lab], e)
        self.ellipsis: Optional[List[P.PrimExpr]] = None
        if ell_shapes:
            ell = max(ell_shapes, key=len)
            for s in ell_shapes:
                ell = _einsum_broadcast_shapes(call, ctx, ell, s)
            self.ellipsis = ell
        seen = set()
        for lab in eq.output:
            if lab in seen:
                fail(f"the output label {lab!r} is repeated")
            seen.add(lab)
            if lab == ELLIPSIS:
                if self.ellipsis is None:
                    fail("the output has an ellipsis but no operand has one")
            elif lab not in self.extent:
                fail(f"the output label {lab!r} does not occur in any operand")
        self.output_shape: List[P.PrimExpr] = []
        for lab in eq.output:
            self.output_shape += list(self.ellipsis) if lab == ELLIPSIS else [self.extent[lab]]


def _einsum_equation(call, ctx) -> EinsumEquation:
    try:
        return EinsumEquation.parse(call.attrs.get("subscripts", ""))
    except ValueError as e:
        raise common.error(call, f"cannot parse the einsum equation {call.attrs.get('subscripts')!r}: {e}",
                           ctx) from None


def infer_einsum(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.einsum.C1-C3 (TVM's ``InferStructInfoEinsum``)."""
    common.check_num_args(call, 1, ctx)
    ops = common.tuple_of_tensors_arg(call, 0, ctx)
    if not ops:
        raise common.error(call, "einsum expects at least one tensor in the input tuple, but the tuple is empty", ctx)
    vdev = None
    unknown = False
    for s in ops:
        if not unknown and s.vdevice is not None:
            if vdev is None:
                vdev = s.vdevice
            elif s.vdevice != vdev:
                unknown = True
    if unknown:
        vdev = None
    dt = ops[0].dtype
    shapes = []
    for s in ops:
        if s.dtype != dt:
            raise common.error(call, "einsum expects all input tensors to have the same dtype, but the input contains "
                                     f"tensors with dtype {dt} and {s.dtype}", ctx)
        if not isinstance(s.shape, rx.ShapeExpr):
            return TensorStructInfo(None, dt, s.ndim, vdev)
        shapes.append(s.shape.values)
    eq = _einsum_equation(call, ctx)
    info = EinsumShapes(call, ctx, eq, shapes)
    return TensorStructInfo(rx.ShapeExpr(tuple(info.output_shape)), dt, vdevice=vdev)


def _runtime_extent(a: int, b: int, what: str) -> int:
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    raise OpRuntimeError(f"relax.einsum: {what} has the incompatible extents {a} and {b}")


def einsum_plan(eq: EinsumEquation, shapes: Sequence[Sequence[int]]) -> Tuple[str, List[Tuple[int, ...]]]:
    """OP.LINALG.SEM.2 on operand shapes: the numpy equation and the shape each operand is broadcast
    to; OpRuntimeError when the operands do not fit the equation (count, ranks, label extents,
    ellipsis shapes). Shared by every evaluator."""
    spec, targets, _ = einsum_loop_plan(eq, shapes)
    return spec, targets


def einsum_loop_plan(eq: EinsumEquation, shapes: Sequence[Sequence[int]]) -> Tuple[str, List[Tuple[int, ...]], str]:
    """:func:`einsum_plan` and the letters of its equation that are summed, in the kernel's loop order
    (OP.LINALG.SEM.5: the ellipsis dims first, then the labels in ASCII order; the last varies
    fastest)."""
    if len(eq.inputs) != len(shapes):
        raise OpRuntimeError(f"relax.einsum: the equation has {len(eq.inputs)} operands but {len(shapes)} "
                             "tensors are given")
    extent: Dict[str, int] = {}
    ells: List[Tuple[int, ...]] = []
    for sub, shape in zip(eq.inputs, shapes):
        shape = tuple(int(n) for n in shape)
        labels = [lab for lab in sub if lab != ELLIPSIS]
        k = len(shape) - len(labels)
        if k < 0 or (k and ELLIPSIS not in sub):
            raise OpRuntimeError(f"relax.einsum: operand of shape {shape} does not match {''.join(sub)}")
        dim = 0
        for lab in sub:
            if lab == ELLIPSIS:
                ells.append(shape[dim:dim + k])
                dim += k
            else:
                extent[lab] = shape[dim] if lab not in extent else \
                    _runtime_extent(extent[lab], shape[dim], f"label {lab!r}")
                dim += 1
    ell: Tuple[int, ...] = ()
    if ells:
        try:
            ell = tuple(np.broadcast_shapes(*ells))
        except ValueError:
            raise OpRuntimeError(f"relax.einsum: ellipsis shapes {ells} cannot be broadcast") from None
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    name = {lab: next(letters) for lab in sorted(extent)}
    ell_names = [next(letters) for _ in ell]
    terms, targets = [], []
    for sub, shape in zip(eq.inputs, shapes):
        labels = [lab for lab in sub if lab != ELLIPSIS]
        k = len(shape) - len(labels)
        letters_of, target = [], []
        for lab in sub:
            if lab == ELLIPSIS:
                letters_of += ell_names[len(ell) - k:]
                target += list(ell[len(ell) - k:])
            else:
                letters_of.append(name[lab])
                target.append(extent[lab])
        targets.append(tuple(target))
        terms.append("".join(letters_of))
    out = "".join("".join(ell_names) if lab == ELLIPSIS else name[lab] for lab in eq.output)
    order = "".join(c for c in "".join(ell_names) + "".join(name[lab] for lab in sorted(extent)) if c not in out)
    return ",".join(terms) + "->" + out, targets, order


def einsum_aligned(spec: str, order: str) -> List[Tuple[str, Tuple[int, ...]]]:
    """For the sequential contraction (OP.LINALG.SEM.5) of :func:`einsum_loop_plan`'s equation: per
    operand, the unary equation that takes its diagonals and orders its letters as the output's then
    ``order``'s (no arithmetic), and the axes of ``output + order`` that the result's dims fill (the
    others are 1)."""
    terms, out = spec.split("->")
    full = out + order
    res = []
    for t in terms.split(","):
        kept = "".join(c for c in full if c in t)
        res.append((t + "->" + kept, tuple(full.index(c) for c in kept)))
    return res


def parse_einsum(subscripts: str) -> EinsumEquation:
    """The equation of ``relax.einsum``; OpRuntimeError when it does not parse."""
    try:
        return EinsumEquation.parse(subscripts)
    except ValueError as e:
        raise OpRuntimeError(f"relax.einsum: {e}") from None


def _check_einsum(args: OpArgs) -> None:
    """OP.einsum.C2 at run time: an equation that parses and fits the operands (:func:`einsum_plan`)."""
    ops = args.fields(0)
    try:
        einsum_plan(parse_einsum(args.attrs.get("subscripts", "")), [ops.shape(i) for i in range(len(ops))])
    except OpRuntimeError as e:
        raise e.with_span(args.span)


def einsum_values(call, eq: EinsumEquation, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """OP.LINALG.SEM.2 on values (see the module docstring)."""
    spec, targets, order = einsum_loop_plan(eq, [a.shape for a in arrays])
    views = [np.broadcast_to(a, t) for a, t in zip(arrays, targets)]
    dt = _dt.from_numpy(arrays[0].dtype) if arrays else "float32"
    if float32_contraction(dt):
        views = [v.astype(np.float32) for v in views]     # OP.LINALG.SEM.4: float32 products and sums, rounded once
    with np.errstate(all="ignore"):
        r = _einsum_sequential(spec, order, views) if sequential_contraction(dt) else np.einsum(spec, *views)
    return np.asarray(r, dtype=arrays[0].dtype)


def _einsum_sequential(spec: str, order: str, views: Sequence[np.ndarray]) -> np.ndarray:
    """OP.LINALG.SEM.5: for each reduction index in loop order, the operands' product (left to right,
    each product rounded) added to the accumulator in the dtype; no reduction: the product."""
    full = spec.split("->")[1] + order
    aligned = []
    for (unary, axes), v in zip(einsum_aligned(spec, order), views):
        a = np.einsum(unary, v)
        shape = [1] * len(full)
        for ax, n in zip(axes, a.shape):
            shape[ax] = n
        aligned.append(a.reshape(shape))
    nout = len(full) - len(order)
    out_shape = np.broadcast_shapes(*[a.shape[:nout] for a in aligned])
    red_shape = np.broadcast_shapes(*[a.shape[nout:] for a in aligned])
    dtype = views[0].dtype

    def product(idx):
        p = None
        for a in aligned:
            t = a[(Ellipsis,) + tuple(i if n > 1 else 0 for i, n in zip(idx, a.shape[nout:]))]
            p = t if p is None else (p * t).astype(dtype)
        return np.broadcast_to(p, out_shape)

    if not order:
        return np.array(product(()), dtype=dtype)
    acc = np.zeros(out_shape, dtype)
    for idx in np.ndindex(*red_shape):
        acc = (acc + product(idx)).astype(dtype)
    return acc


def _ref_einsum(args, attrs, call, ctx):
    (ops,) = args
    return einsum_values(call, parse_einsum(attrs.get("subscripts", "")), [np.asarray(a) for a in ops])


def _legalize_einsum(call, ctx):
    """TOPI's ``einsum`` kernel: one ``T_einsum`` stage, the product of the operands summed over the
    reduction labels (alphabetically, ellipsis dims first, named ``k``) -- with the zero guard of
    OP.LINALG.SEM.1."""
    if not known_shapes(call) or any(not isinstance(f, TensorStructInfo) or not isinstance(f.shape, rx.ShapeExpr)
                                     for f in call.args[0].struct_info.fields):
        return None
    t = call.args[0]
    fields = list(t.fields) if isinstance(t, rx.Tuple) else \
        [rx.TupleGetItem(t, i, struct_info=s) for i, s in enumerate(t.struct_info.fields)]
    eq = EinsumEquation.parse(call.attrs["subscripts"])

    def te_einsum(*xs):
        info = EinsumShapes(call, ctx, eq, [x.shape for x in xs])
        red_labels = sorted({lab for sub in eq.inputs for lab in sub} - set(eq.output),
                            key=lambda lab: "" if lab == ELLIPSIS else lab)
        ell = info.ellipsis or []
        count: P.PrimExpr = P.IntImm(1, "int64")
        for lab in red_labels:
            count = common.shape_product([count] + (list(ell) if lab == ELLIPSIS else [info.extent[lab]]))

        def compute(*idx):
            lab_idx: Dict[str, Any] = {}
            ell_idx: List[Any] = []
            pos = 0
            for lab in eq.output:
                if lab == ELLIPSIS:
                    ell_idx = list(idx[pos:pos + len(ell)])
                    pos += len(ell)
                else:
                    lab_idx[lab] = idx[pos]
                    pos += 1
            raxes = []
            for lab in red_labels:
                if lab == ELLIPSIS:
                    for d in ell:
                        ra = te.reduce_axis(d, "k")
                        raxes.append(ra)
                        ell_idx.append(ra.var)
                else:
                    ra = te.reduce_axis(info.extent[lab], lab)
                    raxes.append(ra)
                    lab_idx[lab] = ra.var
            result = None
            for sub, x in zip(eq.inputs, xs):
                k = len(x.shape) - len([lab for lab in sub if lab != ELLIPSIS])
                ind, dim = [], 0
                for lab in sub:
                    if lab == ELLIPSIS:
                        for j in range(len(ell_idx) - k, len(ell_idx)):
                            ind.append(_bcast_index(ell_idx[j], x.shape[dim], ell[j]))
                            dim += 1
                    else:
                        ind.append(_bcast_index(lab_idx[lab], x.shape[dim], info.extent[lab]))
                        dim += 1
                term = x(*ind)
                result = term if result is None else te_ops.mul(result, term)
            if raxes:
                return te.sum(result, axis=raxes)
            return result

        if any(isinstance(e, P.IntImm) and e.value == 0 for e in _reduced_extents(red_labels, info)):
            return te.compute(info.output_shape, lambda *i: te_ops.const(0, xs[0].dtype), name="T_einsum")
        red = te.compute(info.output_shape, compute, name="T_einsum")
        return _zero_guard(red, count, red.dtype, "T_select") if red_labels else red

    return ctx.call_te(te_einsum, *fields, primfunc_name_hint="einsum")


def _reduced_extents(red_labels, info: EinsumShapes) -> List[P.PrimExpr]:
    out: List[P.PrimExpr] = []
    for lab in red_labels:
        out += list(info.ellipsis or []) if lab == ELLIPSIS else [info.extent[lab]]
    return out


def _bcast_index(index, extent: P.PrimExpr, bextent: P.PrimExpr):
    """TOPI's ``GetIndexForBroadcastedDim``."""
    if isinstance(extent, P.IntImm) and extent.value == 1 and \
            not (isinstance(bextent, P.IntImm) and bextent.value == 1):
        return P.IntImm(0, "int64")
    return index


# ---------------------------------------------------------------------------------------------------
# outer
# ---------------------------------------------------------------------------------------------------


def infer_outer(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.outer.C1: two tensors of rank exactly 1 (an unknown rank is rejected, as TVM); the result is
    ``(n, m)`` with ``x1``'s dtype, rank 2 when a shape is unknown; no vdevice."""
    x1, x2 = common.tensor_args(call, 2, ctx, ("x1", "x2"))
    if x1.ndim != 1 or x2.ndim != 1:
        raise common.error(call, "outer requires both inputs to be 1-D tensors, but they have ranks "
                                 f"{x1.ndim} and {x2.ndim}", ctx)
    if not isinstance(x1.shape, rx.ShapeExpr) or not isinstance(x2.shape, rx.ShapeExpr):
        return TensorStructInfo(None, x1.dtype, 2)
    return TensorStructInfo(rx.ShapeExpr((x1.shape.values[0], x2.shape.values[0])), x1.dtype)


def _ref_outer(args, attrs, call, ctx):
    a, b = args
    from .elementwise import matched_dtype

    da, db = dtype_of(a), dtype_of(b)
    cd = matched_dtype(da, db)
    with np.errstate(all="ignore"):
        r = np.multiply.outer(tir_cast(a, da, cd), tir_cast(b, db, cd))
    out_dt = call.struct_info.dtype if isinstance(call.struct_info, TensorStructInfo) and \
        call.struct_info.dtype != "void" else da
    return tir_cast(np.asarray(r, dtype=np_dtype(cd)), cd, out_dt)


def _legalize_outer(call, ctx):
    if not known_shapes(call):
        return None
    out_dt = call.struct_info.dtype

    def te_outer(a, b):
        return te.compute((a.shape[0], b.shape[0]), lambda i, j: te_ops.cast(out_dt, te_ops.mul(a[i], b[j])),
                          name="outer")

    return ctx.call_te(te_outer, call.args[0], call.args[1], primfunc_name_hint="outer")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    OPS.append(OpDef(name="relax.matmul", script="R.matmul",
                   params=(arg("x1"), arg("x2"), attr("out_dtype", "dtype", "void")),
                   infer=infer_matmul, check=_check_matmul, reference=_ref_matmul, legalize=_legalize_matmul,
                   category="linalg",
                   doc="``R.matmul(x1, x2, out_dtype=None)``: numpy-style (batched, broadcasting) matrix "
                       "product (OP.matmul.C1)."))
    OPS.append(OpDef(name="relax.einsum", script="R.einsum",
                   params=(arg("operands", "tuple"), attr("subscripts", "str")),
                   infer=infer_einsum, check=_check_einsum, reference=_ref_einsum, legalize=_legalize_einsum,
                   category="linalg",
                   doc="``R.einsum(operands, subscripts)``: Einstein summation over a tuple of tensors "
                       "(OP.einsum.C1)."))
    OPS.append(OpDef(name="relax.outer", script="R.outer", params=(arg("x1"), arg("x2")), infer=infer_outer,
                   reference=_ref_outer, legalize=_legalize_outer, category="linalg",
                   doc="``R.outer(x1, x2)``: outer product of two 1-D tensors (OP.outer.C1)."))


_define_all()

__all__ = ["infer_matmul", "infer_einsum", "infer_outer", "EinsumEquation", "EinsumShapes", "einsum_values",
           "einsum_loop_plan", "einsum_aligned", "sequential_contraction",
           "ELLIPSIS"]

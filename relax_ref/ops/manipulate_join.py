"""Joining and cutting tensors: ``concat``, ``split``, ``stack``, ``meshgrid`` (entries in
:mod:`relax_ref.ops.manipulate`, decisions recorded there and on the operators' spec pages).
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import manipulate_util
from . import te
from . import te_ops
from .manipulate_util import manipulation_op
from .opdef import arg, attr

_I64 = manipulate_util.int64


def _tuple_common(call, ctx, fields: Sequence[TensorStructInfo], title: str):
    """dtype (void wins, mismatch is an error) and vdevice (None when two differ) of a tensor tuple."""
    dtype, void, vdev, vdev_unknown = "void", False, None, False
    for s in fields:
        if s.dtype == "void":
            void = True
        elif dtype == "void":
            dtype = s.dtype
        elif s.dtype != dtype:
            raise common.error(call, f"{title} expects all input tensors to have the same dtype. However, the "
                                     f"input contains tensors with dtype {dtype} and {s.dtype}", ctx)
        if not vdev_unknown and s.vdevice is not None:
            if vdev is None:
                vdev = s.vdevice
            elif s.vdevice != vdev:
                vdev_unknown = True
    return ("void" if void else dtype), (None if vdev_unknown else vdev)


def _shape_values_for_check(fields: Sequence[TensorStructInfo]):
    """TVM: ShapeExpr values, plus the known values of shape variables (``shape_unknown`` is set
    whenever a field's shape is not a ShapeExpr)."""
    values, unknown = [], False
    for s in fields:
        if isinstance(s.shape, rx.ShapeExpr):
            values.append(s.shape.values)
            continue
        unknown = True
        if s.shape_values is not None:
            values.append(s.shape_values)
    return values, unknown


def _concat_infer(call, ctx):
    """OP.concat.C1-C5 (TVM's ``InferStructInfoConcat``)."""
    if len(call.args) != 1:
        raise common.error(call, "Concat op should have 1 argument", ctx)
    fields = manipulate_util.tuple_tensor_fields(call, 0, ctx)  # C1
    if not fields:
        raise common.error(call, "Concat op expects at least one tensor in the input Tuple. However, the given "
                                 "input Tuple is empty.", ctx)
    axis_attr = call.attrs.get("axis", 0)
    out_ndim = -1 if axis_attr is not None else 1
    for s in fields:  # C3
        if out_ndim == -1:
            out_ndim = s.ndim
        elif s.ndim != -1 and s.ndim != out_ndim:
            raise common.error(call, "Concat expects all input tensors to have same ndim. However, the input "
                                     f"contains tensors with ndim {out_ndim} and {s.ndim}", ctx)
    dtype, vdev = _tuple_common(call, ctx, fields, "Concat")  # C2
    if out_ndim == -1:
        return fields[0] if len(fields) == 1 else TensorStructInfo(None, dtype, -1, vdev)
    axis = common.normalize_axis(call, out_ndim, axis_attr, ctx) if axis_attr is not None else 0  # C4
    if len(fields) == 1:
        return fields[0]
    values, unknown = _shape_values_for_check(fields)
    if not values:
        return TensorStructInfo(None, dtype, out_ndim, vdev)
    out = _concat_shape(call, ctx, values, axis)  # C4, C5
    if unknown or out is None:
        return TensorStructInfo(None, dtype, out_ndim, vdev)
    return TensorStructInfo(rx.ShapeExpr(out), dtype, vdevice=vdev)


def _concat_shape(call, ctx, values, axis):
    first = values[0][axis]
    if all(v[axis] == first for v in values):
        total = te_ops.mul(first, _I64(len(values)))
    else:
        total = _I64(0)
        for v in values:
            total = te_ops.add(total, v[axis])
    unknown = False
    for d in range(len(values[0])):
        if d == axis:
            continue
        for v in values[1:]:
            if manipulate_util.prove_not_equal(ctx, v[d], values[0][d]):
                raise common.error(call, "Concat expects the input tensors to have the same shape on every "
                                         "dimension except the one indicated by the input axis. However, the input "
                                         f"contains tensors whose shapes on dimension {d} is {values[0][d]} and "
                                         f"{v[d]}", ctx)
            if not common.prove_equal(ctx, v[d], values[0][d]):
                unknown = True
    if unknown:
        return None
    out = list(values[0])
    out[axis] = total
    return tuple(out)


def _concat_axis(attrs, ndim: int) -> int:
    a = attrs.get("axis", 0)
    return 0 if a is None else a % max(ndim, 1)


def _concat_ref(args, attrs, call, ctx):
    xs = list(args[0])
    ndim = xs[0].ndim
    axis = _concat_axis(attrs, ndim)
    if attrs.get("axis", 0) is None and any(x.ndim != 1 for x in xs):
        raise manipulate_util.runtime_error(call, "concat without an axis needs 1-D tensors")
    for x in xs[1:]:
        if x.ndim != ndim or any(x.shape[d] != xs[0].shape[d] for d in range(ndim) if d != axis):
            raise manipulate_util.runtime_error(call, f"tensors of shapes {xs[0].shape} and {x.shape} cannot be "
                                                      f"concatenated on axis {axis}")  # C5 at run time
    return manipulate_util.copy_out(np.concatenate(xs, axis=axis))


def te_concat(xs: Sequence[te.Tensor], axis: int) -> te.Tensor:
    """TOPI ``concatenate`` (``T_concat``): nested ``if_then_else`` on the offset along ``axis``."""
    sizes = [x.shape[axis] for x in xs]
    total = sizes[0]
    for s in sizes[1:]:
        total = te_ops.add(total, s)
    shape = list(xs[0].shape)
    shape[axis] = manipulate_util.simplify(None, total)

    def f(*i):
        ret = xs[0](*i)
        ind = i[axis]
        for k in range(len(xs) - 1):
            ind = te_ops.sub(ind, sizes[k])
            idx = list(i)
            idx[axis] = ind
            ret = te_ops.if_then_else(te_ops.ge(ind, _I64(0)), xs[k + 1](*idx), ret)
        return ret

    return te.compute(shape, f, name="T_concat", index_names=manipulate_util.axes_names(len(shape)))


def _concat_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    fields = manipulate_util.tuple_fields(call.args[0])
    axis = _concat_axis(call.attrs, call.struct_info.ndim)
    checks: List[Tuple[P.PrimExpr, str]] = []

    def fte(*xs):
        for x in xs[1:]:
            for d in range(len(x.shape)):
                if d != axis:
                    checks.append((te_ops.eq(x.shape[d], xs[0].shape[d]), f"concat: dimension {d} differs"))
        return te_concat(xs, axis)

    return manipulate_util.call_te_with_asserts(ctx, fte, fields, "concatenate", checks)


def _ceildiv(a: P.PrimExpr, b: int) -> P.PrimExpr:
    return te_ops.floordiv(te_ops.add(a, _I64(b - 1)), _I64(b))


def _split_parts(call, ctx, d: P.PrimExpr, ios) -> List[P.PrimExpr]:
    """The extents of the parts along the split axis (OP.split.C2-C3)."""
    def simp(e):
        return manipulate_util.simplify(ctx, e)

    if isinstance(ios, int):
        n = ios
        c = simp(_ceildiv(d, n))
        if isinstance(d, P.IntImm):  # static: Python slicing clamps (TVM: negative extents)
            dv, cv = d.value, c.value
            parts = [min((i + 1) * cv, dv) - min(i * cv, dv) for i in range(n - 1)]
            parts.append(dv - min((n - 1) * cv, dv))
            return [_I64(p) for p in parts]
        last = simp(te_ops.sub(d, te_ops.mul(c, _I64(n - 1))))
        return [c] * (n - 1) + [last]
    out = []
    for i in range(len(ios) + 1):
        left = _I64(0) if i == 0 else _I64(ios[i - 1])
        right = _I64(ios[i]) if i < len(ios) else d
        left = te_ops.min_(te_ops.max_(left, _I64(0)), d)
        right = te_ops.min_(te_ops.max_(right, _I64(0)), d)
        out.append(simp(te_ops.max_(te_ops.sub(right, left), _I64(0))))
    return out


def _split_infer(call, ctx):
    """OP.split.C1-C4 (TVM's ``InferStructInfoSplit``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    ios = call.attrs["indices_or_sections"]
    if isinstance(ios, int) and ios <= 0:  # C1
        raise common.error(call, "Split op expects the input number of sections to be a positive integer. "
                                 f"However, the given number of sections is {ios}", ctx)
    vals = manipulate_util.shape_expr_values(data)
    axis = -1 if data.ndim == -1 else common.normalize_axis(call, data.ndim, call.attrs.get("axis", 0), ctx)
    n_out = ios if isinstance(ios, int) else len(ios) + 1
    if n_out == 1:
        return data
    if vals is None:
        return TupleStructInfo(tuple(TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
                                     for _ in range(n_out)))
    parts = _split_parts(call, ctx, vals[axis], ios)
    fields = []
    for p in parts:
        shape = list(vals)
        shape[axis] = p
        fields.append(TensorStructInfo(rx.ShapeExpr(tuple(shape)), data.dtype, vdevice=data.vdevice))
    return TupleStructInfo(tuple(fields))


def split_bounds(d: int, ios) -> List[Tuple[int, int]]:
    """``(begin, end)`` of every part for a run-time extent ``d`` (Python slicing, clamped)."""
    if isinstance(ios, int):
        c = -(-d // ios)
        cuts = [min(i * c, d) for i in range(ios)] + [d]
        return [(cuts[i], max(cuts[i], cuts[i + 1])) for i in range(ios)]
    pts = [0] + [min(max(v, 0), d) for v in ios] + [d]
    return [(pts[i], max(pts[i], pts[i + 1])) for i in range(len(pts) - 1)]


def _split_ref(args, attrs, call, ctx):
    x = args[0]
    ios = attrs["indices_or_sections"]
    axis = attrs.get("axis", 0) % x.ndim
    if (ios if isinstance(ios, int) else len(ios) + 1) == 1:
        return manipulate_util.copy_out(x)
    parts = tuple(manipulate_util.copy_out(np.take(x, np.arange(b, e), axis=axis))
                  for b, e in split_bounds(x.shape[axis], ios))
    manipulate_util.check_result_shape(call, ctx, parts, infer=_split_infer)
    return parts


def _topi_sections(d: P.PrimExpr, n: int) -> Tuple[List[P.PrimExpr], List[P.PrimExpr]]:
    """TOPI's ``split_sections`` (OP.split.KERNEL.1): the section ``(d + n - 1) // n``, unsimplified, part
    ``i`` begins at ``section * i``; the parts' extents are the differences of the begins (the last
    ``d - begin``), as TOPI writes them."""
    seg = te_ops.floordiv(te_ops.sub(te_ops.add(d, _I64(n)), _I64(1)), _I64(n))
    begins = [_I64(0)] + [te_ops.mul(seg, _I64(i)) for i in range(1, n)]
    sizes = [te_ops.sub(begins[i + 1], begins[i]) for i in range(n - 1)] + [te_ops.sub(d, begins[-1])]
    return sizes, begins


def _split_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    s = call.struct_info
    if isinstance(s, TensorStructInfo):  # one part: the identity
        return ctx.call_te(lambda x: te.compute(x.shape, lambda *i: x(*i), name="T_split_sections",
                                                index_names=manipulate_util.axes_names(len(x.shape))),
                           call.args[0], primfunc_name_hint="split")
    axis = call.attrs.get("axis", 0) % call.args[0].struct_info.ndim
    sizes = [f.shape.values[axis] for f in s.fields]
    ios = call.attrs["indices_or_sections"]
    d = call.args[0].struct_info.shape.values[axis]
    begins: List[P.PrimExpr] = []
    for i in range(len(sizes)):
        if isinstance(ios, int):
            begins.append(manipulate_util.simplify(ctx,
                                                   te_ops.min_(te_ops.mul(manipulate_util.simplify(ctx,
                                                                                                   _ceildiv(d, ios)),
                                                                                                   _I64(i)), d)))
        else:
            begins.append(manipulate_util.simplify(ctx, _I64(0) if i == 0 else te_ops.min_(te_ops.max_(_I64(ios[i - 1]),
                                                                                                       _I64(0)), d)))
    name = "T_split_sections" if isinstance(ios, int) else "T_split"
    if isinstance(ios, int):
        topi = _topi_sections(d, ios)
        if all(manipulate_util.can_prove(ctx, te_ops.eq(a, b)) for a, b in zip(topi[0], sizes)):
            sizes, begins = topi

    def fte(x, sizes, begins):
        outs = []
        for size, begin in zip(sizes, begins):
            shape = list(x.shape)
            shape[axis] = size

            def f(*i, _b=begin):
                idx = list(i)
                idx[axis] = te_ops.add(i[axis], _b)
                return x(*idx)

            outs.append(te.compute(shape, f, name=name, index_names=manipulate_util.axes_names(len(shape))))
        return outs

    return ctx.call_te(fte, call.args[0], sizes, begins, primfunc_name_hint="split")


def _stack_infer(call, ctx):
    """OP.stack.C1-C5 (TVM's ``InferStructInfoStack``)."""
    if len(call.args) != 1:
        raise common.error(call, "Stack op should have 1 argument", ctx)
    fields = manipulate_util.tuple_tensor_fields(call, 0, ctx)  # C1
    if not fields:
        raise common.error(call, "Stack op expects at least one tensor in the input Tuple. However, the given "
                                 "input Tuple is empty.", ctx)
    first_ndim = fields[0].ndim
    for s in fields:  # C3
        if s.ndim != -1 and first_ndim != -1 and s.ndim != first_ndim:
            raise common.error(call, f"Stack expects all input tensors to have same ndim. Found {first_ndim} and "
                                     f"{s.ndim}", ctx)
    dtype, vdev = _tuple_common(call, ctx, fields, "Stack")  # C2
    out_ndim = first_ndim + 1  # TVM: an unknown first rank gives 0 output dims, so every axis fails
    axis = common.normalize_axis(call, out_ndim, call.attrs.get("axis", 0) or 0, ctx)  # C4
    values, unknown = _shape_values_for_check(fields)
    if len(fields) == 1:
        if not values:
            return TensorStructInfo(None, dtype, out_ndim, vdev)
        shape = list(values[0])
        shape.insert(axis, _I64(1))
        return TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=vdev)
    if not values:
        return TensorStructInfo(None, dtype, out_ndim, vdev)
    maybe = False
    for d in range(len(values[0])):  # C5
        for v in values[1:]:
            if manipulate_util.prove_not_equal(ctx, v[d], values[0][d]):
                raise common.error(call, "Stack expects all input tensors to have identical shapes. Dimension "
                                         f"{d} differs between tensors: {values[0][d]} vs {v[d]}", ctx)
            if not common.prove_equal(ctx, v[d], values[0][d]):
                maybe = True
    if unknown or maybe:
        return TensorStructInfo(None, dtype, out_ndim, vdev)
    shape = list(values[0])
    shape.insert(axis, _I64(len(fields)))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=vdev)


def _stack_ref(args, attrs, call, ctx):
    xs = list(args[0])
    for x in xs[1:]:
        if x.shape != xs[0].shape:  # C5 at run time
            raise manipulate_util.runtime_error(call, f"cannot stack tensors of shapes {xs[0].shape} and {x.shape}")
    axis = (attrs.get("axis", 0) or 0) % (xs[0].ndim + 1)
    return manipulate_util.copy_out(np.stack(xs, axis=axis))


def _stack_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    fields = manipulate_util.tuple_fields(call.args[0])
    axis = (call.attrs.get("axis", 0) or 0) % call.struct_info.ndim
    checks: List[Tuple[P.PrimExpr, str]] = []

    def fte(*xs):
        for x in xs[1:]:
            for d in range(len(x.shape)):
                checks.append((te_ops.eq(x.shape[d], xs[0].shape[d]), f"stack: dimension {d} differs"))
        shape = list(xs[0].shape)
        shape.insert(axis, _I64(len(xs)))

        def f(*i):
            idx = [v for k, v in enumerate(i) if k != axis]
            ret = xs[0](*idx)
            for k in range(len(xs) - 1):
                ret = te_ops.if_then_else(te_ops.eq(i[axis], _I64(k + 1)), xs[k + 1](*idx), ret)
            return ret

        return te.compute(shape, f, name="T_stack", index_names=manipulate_util.axes_names(len(shape)))

    return manipulate_util.call_te_with_asserts(ctx, fte, fields, "stack", checks)


def _meshgrid_infer(call, ctx):
    """OP.meshgrid.C1-C4 (TVM's ``InferStructInfoMeshgrid``)."""
    if len(call.args) != 1:
        raise common.error(call, "meshgrid op expects 1 Tuple input argument.", ctx)
    fields = manipulate_util.tuple_tensor_fields(call, 0, ctx)
    if not fields:
        raise common.error(call, "meshgrid expects at least one 1D tensor in the input Tuple.", ctx)
    indexing = call.attrs.get("indexing", "ij") or "ij"
    if indexing not in ("ij", "xy"):  # C4
        raise common.error(call, f"meshgrid indexing must be 'ij' or 'xy', got {indexing!r}", ctx)
    lengths, unknown = [], False
    dtype, vdev = "void", None
    vdev_unknown = False
    for i, s in enumerate(fields):
        if s.ndim != 1:  # C1
            raise common.error(call, f"meshgrid expects each input tensor to be 1D. Got ndim = {s.ndim} at index {i}",
                               ctx)
        if s.dtype == "void":
            continue
        if dtype == "void":
            dtype = s.dtype
        elif s.dtype != dtype:  # C2
            raise common.error(call, "meshgrid expects all input tensors to have the same dtype. Found "
                                     f"{s.dtype} and {dtype}", ctx)
        vals = manipulate_util.shape_expr_values(s)
        if vals is not None:
            lengths.append(vals[0])
        else:
            unknown = True
        if not vdev_unknown and s.vdevice is not None:
            if vdev is None:
                vdev = s.vdevice
            elif s.vdevice != vdev:
                vdev_unknown = True
    if vdev_unknown:
        vdev = None
    n = len(fields)
    if not unknown and len(lengths) == n:
        shape = list(lengths)
        if indexing == "xy" and n >= 2:  # C3
            shape[0], shape[1] = shape[1], shape[0]
        out = TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=vdev)
    else:
        out = TensorStructInfo(None, dtype, n, vdev)
    return TupleStructInfo(tuple(out for _ in range(n)))


def _meshgrid_ref(args, attrs, call, ctx):
    xs = list(args[0])
    indexing = attrs.get("indexing", "ij") or "ij"
    return tuple(manipulate_util.copy_out(g) for g in np.meshgrid(*xs, indexing=indexing))


def _meshgrid_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    fields = manipulate_util.tuple_fields(call.args[0])
    cart = (call.attrs.get("indexing", "ij") or "ij") == "xy" and len(fields) >= 2

    def fte(*xs):
        src = [(1 - i if cart and i < 2 else i) for i in range(len(xs))]
        shape = [xs[s].shape[0] for s in src]
        outs = []
        for i, x in enumerate(xs):
            outs.append(te.compute(shape, lambda *idx, _x=x, _s=src[i]: _x(idx[_s]), name="T_meshgrid",
                                   index_names=manipulate_util.axes_names(len(shape))))
        return outs

    out = ctx.call_te(fte, *fields, primfunc_name_hint="meshgrid")
    if len(fields) == 1:  # one output: call_tir gives the tensor itself, the operator a 1-tuple
        return rx.Tuple((out,), span=call.span)
    return out


#: the entries of this module, listed in :data:`relax_ref.ops.manipulate.OPS`
CONCAT = manipulation_op(
    "concat", (arg("tensors", "tuple"), attr("axis", "optional_int", 0)), _concat_infer, _concat_ref,
    _concat_legalize, "``R.concat(tensors, axis=0)``: join along an axis (OP.concat.C1).")
SPLIT = manipulation_op(
    "split", (arg("x"), attr("indices_or_sections", "int_or_ints"), attr("axis", "int", 0)), _split_infer,
    _split_ref, _split_legalize,
    "``R.split(x, indices_or_sections, axis=0)``: ceil-size sections or cut points (OP.split.C1).")
STACK = manipulation_op(
    "stack", (arg("tensors", "tuple"), attr("axis", "optional_int", 0)), _stack_infer, _stack_ref,
    _stack_legalize, "``R.stack(tensors, axis=0)``: join along a new axis (OP.stack.C1).")
MESHGRID = manipulation_op(
    "meshgrid", (arg("tensors", "tuple"), attr("indexing", "optional_str", "ij")), _meshgrid_infer,
    _meshgrid_ref, _meshgrid_legalize, "``R.meshgrid(tensors, indexing='ij')``: coordinate grids (OP.meshgrid.C1).")

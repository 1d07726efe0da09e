"""Manipulation operators: ``reshape``, ``permute_dims``, ``expand_dims``, ``squeeze``, ``flatten``,
``concat``, ``split``, ``broadcast_to``, ``collapse_sum_like``, ``collapse_sum_to``, ``repeat``,
``tile``, ``flip``, ``stack``, ``meshgrid`` (spec pages ``spec/ops/<op>.md``).

Each entry has TVM 0.25's script name and parameters, struct-info inference mirroring
``src/relax/op/tensor/manipulate.cc`` (constraint IDs ``OP.<op>.C<n>``), numpy reference semantics
and a legalization built with :mod:`relax_ref.ops.te` after TVM's ``legalize_ops/manipulate.py``
(TOPI kernels ``T_reshape``, ``T_transpose``, ``T_concat`` ...).

Decisions where TVM 0.25 is inconsistent (each recorded on the op's page under "TVM divergences"):

* ``reshape``: ``-1`` and ``0`` are resolved when the call is built (the script parser and
  :func:`reshape_call`), as TVM's ``ConvertNewShapeToExpr``. An element count that differs at run time
  (TVM accepts ``(b, 32) -> (b, 72)`` and reads out of bounds) raises ``op_runtime``, and the
  legalized kernel asserts it. A shape *variable* as target with known values is legalized through
  the values of its struct info (TVM's legalization fails with an ``AssertionError``).
* ``split`` into sections: static dims whose TVM formula is negative (``1`` split in ``3`` gives TVM
  ``(1, 1, -1)``) are clamped as Python slicing does (``(1, 0, 0)``); with symbolic dims TVM's formula
  is kept and the reference raises ``op_runtime`` when it evaluates to a different extent.
* ``squeeze`` with explicit axes keeps a dim known statically to differ from 1 (TVM); a symbolic dim
  that is not 1 at run time raises ``op_runtime`` (TVM's kernel silently reads index 0).
* ``broadcast_to``: a symbolic input dim must be 1 or equal to the target dim at run time
  (``op_runtime``; TVM's kernel reads out of bounds when a symbolic dim is 1).
* ``meshgrid(indexing="xy")`` infers numpy's swapped first two
  dims (TVM infers the "ij" shape while its kernel produces the swapped one); ``repeat``/``tile``
  reject negative repeat counts statically (TVM infers negative extents).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import ParseError, StructInfoError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import ShapeStructInfo, TensorStructInfo, TupleStructInfo
from . import common
from . import te
from . import te_ops
from . import manipulate_util
from .opdef import OpDef, arg, attr

_I64 = manipulate_util.int64


# ---------------------------------------------------------------------------------------------------
# Shared TE building blocks (TOPI's ravel/unravel, broadcast indexing)
# ---------------------------------------------------------------------------------------------------


def ravel_index(indices: Sequence[P.PrimExpr], shape: Sequence[P.PrimExpr]) -> P.PrimExpr:
    """TOPI's ``RavelIndex``: row-major flat index."""
    if not indices:
        return _I64(0)
    idx = indices[0]
    for i, s in zip(indices[1:], shape[1:]):
        idx = te_ops.add(te_ops.mul(idx, s), i)
    return idx


def unravel_index(idx: P.PrimExpr, shape: Sequence[P.PrimExpr]) -> List[P.PrimExpr]:
    """TOPI's ``UnravelIndex`` (every coordinate taken modulo its extent)."""
    out: List[P.PrimExpr] = []
    for s in reversed(list(shape)):
        out.append(te_ops.floormod(idx, s))
        idx = te_ops.floordiv(idx, s)
    return list(reversed(out))


def _is_empty(shape: Sequence[P.PrimExpr]) -> bool:
    return any(isinstance(d, P.IntImm) and d.value == 0 for d in shape)


def te_reshape(x: te.Tensor, newshape: Sequence[P.PrimExpr], name: str = "T_reshape") -> te.Tensor:
    """TOPI ``reshape``: ``x[unravel(ravel(i, newshape), x.shape)]`` (zeros for an empty shape)."""
    newshape = [te._int64(d) for d in newshape]
    if _is_empty(newshape) or _is_empty(x.shape):
        return te.compute(newshape, lambda *i: te_ops.cast(x.dtype, 0), name=name,
                          index_names=[f"ax{k}" for k in range(len(newshape))])
    return te.compute(newshape, lambda *i: x(*unravel_index(ravel_index(list(i), newshape), x.shape)),
                      name=name, index_names=[f"ax{k}" for k in range(len(newshape))])


def _axes_names(n: int) -> List[str]:
    return [f"ax{k}" for k in range(n)]


# ---------------------------------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------------------------------


def _reshape_infer(call, ctx):
    """OP.reshape.C1-C4 (TVM's ``InferStructInfoReshape``)."""
    if len(call.args) != 2:
        raise common.error(call, "Reshape op should take 2 arguments", ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "Reshape", "data")  # C1
    new = manipulate_util.shape_input(call, 1, ctx, "Reshape", "new shape")  # C2
    target = call.args[1]
    if call.attrs.get(_UNRESOLVED):  # C5: built before the input's struct info was known
        target = rx.ShapeExpr(resolve_new_shape(call.args[0], target.values, call.span, StructInfoError))
        new = ShapeStructInfo(target.values)
    old_values = data.shape_values
    if new.values is not None and old_values is not None:  # C3
        new_prod = common.shape_product(new.values)
        old_prod = common.shape_product(old_values)
        if manipulate_util.prove_not_equal(ctx, old_prod, new_prod):
            raise common.error(call, "Reshape expects the new shape to be convertible from the old shape. However, "
                                     f"the old shape has {old_prod} elements while the new shape "
                                     f"{', '.join(map(str, new.values))} has {new_prod}", ctx)
    if isinstance(target, rx.Var) and new.values is not None:  # C4
        return TensorStructInfo(rx.ShapeExpr(new.values), data.dtype, vdevice=data.vdevice)
    return TensorStructInfo(target, data.dtype, vdevice=data.vdevice)


#: transient attribute of a reshape call whose ``0``/``-1`` are not resolved yet (OP.reshape.C5)
_UNRESOLVED = "unresolved_shape"


def _reshape_normalize(call, ctx):
    """OP.reshape.C5 (normal form): the script parser builds a call before the struct info of a bound
    input is inferred; such a call carries ``unresolved_shape=True`` and its target still holds
    ``0``/``-1``. Normalization replaces the target by the resolved shape and drops the marker."""
    if not call.attrs.get(_UNRESOLVED):
        return call
    target = call.args[1]
    vals = resolve_new_shape(call.args[0], target.values, call.span, StructInfoError)
    return rx.Call(call.op, (call.args[0], rx.ShapeExpr(vals, span=target.span)), Attrs(), call.sinfo_args,
                   struct_info=call.struct_info, span=call.span)


def resolve_new_shape(x: rx.Expr, values: Sequence[Any], span=None, error=ParseError) -> Tuple[P.PrimExpr, ...]:
    """OP.reshape.C5 (TVM's ``ConvertNewShapeToExpr``): ``0`` copies the input dim at the same
    position, a single ``-1`` becomes ``old_size // product(other dims)`` (simplified); other
    constants must be positive and every value an integer."""
    vals: List[P.PrimExpr] = []
    for v in values:
        if isinstance(v, rx.PrimValue):
            v = v.value
        if isinstance(v, bool) or not isinstance(v, (int, P.PrimExpr)):
            raise error(f"R.reshape: the new shape must be integers or integer expressions, got {v!r}",
                             span)
        e = _I64(v) if isinstance(v, int) else v
        if not manipulate_util.is_int_dtype(e.dtype):
            raise error("R.reshape requires the new shape values to be all integers, got a value of "
                             f"dtype {e.dtype}", span)
        vals.append(e)
    infer_at = -1
    zeros = []
    for i, e in enumerate(vals):
        if isinstance(e, P.IntImm) and e.value == 0:
            zeros.append(i)
        elif isinstance(e, P.IntImm) and e.value == -1:
            if infer_at != -1:
                raise error("R.reshape accepts at most one -1 in the new shape", span)
            infer_at = i
        elif isinstance(e, P.IntImm) and e.value < 0:
            raise error("R.reshape requires all values in the new shape to be positive except a single "
                             f"-1, got {e.value}", span)
    if infer_at == -1 and not zeros:
        return tuple(vals)
    s = x.struct_info if isinstance(x, rx.Expr) else None
    old = s.shape_values if isinstance(s, TensorStructInfo) else None
    if old is None:
        raise error("R.reshape expects the input tensor to have a known shape when the new shape "
                         "contains 0 or -1", span)
    for i in zeros:
        if i >= len(old):
            raise error(f"R.reshape: the new shape has 0 at position {i}, but the input has rank "
                             f"{len(old)}", span)
        vals[i] = old[i]
    if infer_at != -1:
        vals[infer_at] = manipulate_util.simplify(None, _cancel_floordiv(list(old), [e for i, e in enumerate(vals)
                                                                                       if i != infer_at]))
    return tuple(vals)


def _cancel_floordiv(num: List[P.PrimExpr], den: List[P.PrimExpr]) -> P.PrimExpr:
    """``product(num) // product(den)`` after removing the factors common to both (shape dims are
    positive, as TVM's simplifier assumes): ``(n * m) // (n * 2)`` is ``m // 2``."""
    num, den = list(num), [d for d in den if not (isinstance(d, P.IntImm) and d.value <= 0)]
    for d in list(den):
        if not isinstance(d, P.IntImm) and d in num:
            num.remove(d)
            den.remove(d)
    return te_ops.floordiv(common.shape_product(num), common.shape_product(den))


def reshape_call(x: rx.Expr, shape: Any, span=None) -> rx.Call:
    """Build ``R.reshape(x, shape)`` as TVM's ``relax.op.reshape`` does (OP.reshape.C5)."""
    if isinstance(shape, rx.Expr) and not isinstance(shape, (rx.ShapeExpr, rx.Tuple)):
        target = shape
    else:
        if isinstance(shape, rx.ShapeExpr):
            values = list(shape.values)
        elif isinstance(shape, rx.Tuple):
            values = list(shape.fields)
        elif isinstance(shape, (list, tuple)):
            values = list(shape)
        elif isinstance(shape, (int, P.PrimExpr)) and not isinstance(shape, bool):
            values = [shape]
        else:
            raise ParseError(f"R.reshape: expected a shape, got {shape!r}", span)
        s = x.struct_info if isinstance(x, rx.Expr) else None
        pending = not isinstance(s, TensorStructInfo) and any(
            isinstance(v, P.IntImm) and v.value <= 0 or isinstance(v, int) and not isinstance(v, bool) and v <= 0
            for v in values)
        if pending:  # resolved when the call is normalized (the input's struct info is inferred then)
            values = tuple(P.IntImm(v, "int64") if isinstance(v, int) and not isinstance(v, bool) else
                           (v.value if isinstance(v, rx.PrimValue) else v) for v in values)
            target = rx.ShapeExpr(tuple(values), span=span)
            return rx.Call(rx.Op("relax.reshape"), (x, target), Attrs({_UNRESOLVED: True}), span=span)
        target = rx.ShapeExpr(resolve_new_shape(x, values, span), span=span)
    return rx.Call(rx.Op("relax.reshape"), (x, target), Attrs(), span=span)


def _reshape_parse(opdef, args, kwargs, span):
    bound = _bind(opdef, args, kwargs, span)
    return reshape_call(bound["x"], bound["shape"], span)


def _bind(opdef: OpDef, args: list, kwargs: dict, span) -> dict:
    """Bind script arguments to ``opdef.params`` (errors as ``build_call``)."""
    params = list(opdef.params)
    if len(args) > len(params):
        raise ParseError(f"{opdef.script} takes at most {len(params)} arguments, got {len(args)}", span)
    bound = dict(zip([p.name for p in params], args))
    for k, v in kwargs.items():
        if k not in [p.name for p in params]:
            raise ParseError(f"{opdef.script} got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise ParseError(f"{opdef.script} got multiple values for argument '{k}'", span)
        bound[k] = v
    for p in params:
        if p.name not in bound:
            if p.required:
                raise ParseError(f"{opdef.script} missing required argument '{p.name}'", span)
            bound[p.name] = p.default
    return bound


def _reshape_ref(args, attrs, call, ctx):
    x, shape = args
    shape = tuple(int(d) for d in shape)
    if int(np.prod(shape, dtype=np.int64)) != x.size or any(d < 0 for d in shape):  # C3 at run time
        raise manipulate_util.runtime_error(call, f"cannot reshape a tensor of shape {x.shape} ({x.size} elements) to "
                                                  f"{shape}")
    return manipulate_util.copy_out(np.reshape(x, shape))


def _reshape_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    newshape = list(call.struct_info.shape.values)
    checks: List[Tuple[P.PrimExpr, str]] = []

    def fte(x, *dims):
        checks.append((te_ops.eq(common.shape_product(x.shape), common.shape_product(dims)),
                       "reshape: the element count of the input differs from the new shape's"))
        return te_reshape(x, dims)

    return manipulate_util.call_te_with_asserts(ctx, fte, [call.args[0]] + newshape, "reshape", checks)


# ---------------------------------------------------------------------------------------------------
# permute_dims
# ---------------------------------------------------------------------------------------------------


def _permute_axes(call, ctx, ndim: int) -> List[int]:
    axes = call.attrs.get("axes")
    if axes is None:
        return list(range(ndim - 1, -1, -1))
    return common.normalize_axes(call, ndim, axes, ctx)


def _permute_infer(call, ctx):
    """OP.permute_dims.C1-C3 (TVM's ``InferStructInfoPermuteDims``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    axes = call.attrs.get("axes")
    if axes is None and data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    if axes is not None and data.ndim != -1 and len(axes) != data.ndim:  # C1
        raise common.error(call, "PermuteDims expects the number of input axes to equal the ndim of the input "
                                 f"tensor. However, the tensor ndim is {data.ndim} while the given number of axes "
                                 f"is {len(axes)}", ctx)
    if data.ndim == -1:  # C2: TVM normalizes the axes against the rank -1, which rejects every axis
        raise common.error(call, f"the input axis {axes[0] if axes else 0} is out of range: the input tensor has "
                                 "an unknown number of dimensions", ctx)
    perm = _permute_axes(call, ctx, data.ndim)  # C2
    if perm == list(range(data.ndim)):
        return data
    vals = manipulate_util.shape_expr_values(data)
    if vals is None:
        return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr(tuple(vals[a] for a in perm)), data.dtype, vdevice=data.vdevice)


def _permute_ref(args, attrs, call, ctx):
    x = args[0]
    axes = attrs.get("axes")
    perm = list(range(x.ndim - 1, -1, -1)) if axes is None else [a % x.ndim for a in axes]
    return manipulate_util.copy_out(np.transpose(x, perm))


def te_transpose(x: te.Tensor, axes: Sequence[int]) -> te.Tensor:
    """TOPI ``transpose`` (``T_transpose``)."""
    shape = [x.shape[a] for a in axes]

    def f(*i):
        idx: List[Any] = [None] * len(axes)
        for k, a in enumerate(axes):
            idx[a] = i[k]
        return x(*idx)

    return te.compute(shape, f, name="T_transpose", index_names=_axes_names(len(shape)))


def _permute_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    perm = _permute_axes(call, ctx, call.args[0].struct_info.ndim)
    return ctx.call_te(lambda x: te_transpose(x, perm), call.args[0], primfunc_name_hint="transpose")


# ---------------------------------------------------------------------------------------------------
# expand_dims
# ---------------------------------------------------------------------------------------------------


def _expand_infer(call, ctx):
    """OP.expand_dims.C1-C2 (TVM's ``InferStructInfoExpandDims``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    axis = list(call.attrs["axis"])
    if not axis:
        return data
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    out_ndim = data.ndim + len(axis)
    axes = common.normalize_axes(call, out_ndim, axis, ctx)  # C1
    vals = manipulate_util.shape_expr_values(data)
    if vals is None:
        return TensorStructInfo(None, data.dtype, out_ndim, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr(_expanded_shape(vals, axes)), data.dtype, vdevice=data.vdevice)


def _expanded_shape(vals: Sequence[Any], axes: Sequence[int]) -> Tuple[Any, ...]:
    out_ndim = len(vals) + len(axes)
    it = iter(vals)
    return tuple(_I64(1) if i in axes else next(it) for i in range(out_ndim))


def _expand_ref(args, attrs, call, ctx):
    x = args[0]
    out_ndim = x.ndim + len(attrs["axis"])
    return manipulate_util.copy_out(np.expand_dims(x, tuple(a % out_ndim for a in attrs["axis"])))


def _expand_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    out_ndim = call.struct_info.ndim
    axes = [a % out_ndim for a in call.attrs["axis"]]
    data_dims = [i for i in range(out_ndim) if i not in axes]

    def fte(x):
        shape = _expanded_shape(list(x.shape), axes)
        return te.compute(shape, lambda *i: x(*[i[d] for d in data_dims]), name="expand_dims",
                          index_names=[f"i{k}" for k in range(out_ndim)])

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="expand_dims")


# ---------------------------------------------------------------------------------------------------
# squeeze
# ---------------------------------------------------------------------------------------------------


def _squeeze_infer(call, ctx):
    """OP.squeeze.C1-C3 (TVM's ``InferStructInfoSqueeze``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    axis = call.attrs.get("axis")
    if axis is not None and len(axis) == 0:
        return data
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    vals = data.shape_values
    remove = [False] * data.ndim
    if axis is not None:
        axes = common.normalize_axes(call, data.ndim, axis, ctx)  # C1
        if vals is None:
            return TensorStructInfo(None, data.dtype, data.ndim - len(axes), data.vdevice)
        for a in axes:  # C2: a static dim other than 1 is kept
            d = vals[a]
            if not isinstance(d, P.IntImm) or d.value == 1:
                remove[a] = True
    else:
        if vals is None:
            return TensorStructInfo(None, data.dtype, -1, data.vdevice)
        for i, d in enumerate(vals):
            if not isinstance(d, P.IntImm):
                return TensorStructInfo(None, data.dtype, -1, data.vdevice)
            if d.value == 1:
                remove[i] = True
    out = tuple(d for d, r in zip(vals, remove) if not r)
    if isinstance(data.shape, rx.Var):
        if len(out) == data.ndim:
            return data
        if axis is not None:
            return TensorStructInfo(None, data.dtype, len(out), data.vdevice)
        return TensorStructInfo(None, data.dtype, -1, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr(out), data.dtype, vdevice=data.vdevice)


def _static_dims(s) -> Optional[Tuple[Any, ...]]:
    return s.shape_values if isinstance(s, TensorStructInfo) else None


def _squeeze_ref(args, attrs, call, ctx):
    x = args[0]
    axis = attrs.get("axis")
    if axis is None:
        return manipulate_util.copy_out(np.squeeze(x))
    static = _static_dims(call.args[0].struct_info) if call.args else None
    keep = []
    for a in sorted({a % x.ndim for a in axis}) if x.ndim else []:
        if x.shape[a] == 1:
            continue
        d = static[a] if static is not None and a < len(static) else None
        if isinstance(d, P.IntImm):
            keep.append(a)  # C2: statically known non-1 dims are kept (TVM)
            continue
        raise manipulate_util.runtime_error(call,
                                            f"cannot squeeze axis {a} of extent {x.shape[a]} (it must be 1)")  # C3
    drop = tuple(a % x.ndim for a in axis if a % x.ndim not in keep and x.shape[a % x.ndim] == 1)
    return manipulate_util.copy_out(np.squeeze(x, axis=tuple(sorted(set(drop)))) if drop else x)


def _squeeze_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    axis = call.attrs.get("axis")
    checks: List[Tuple[P.PrimExpr, str]] = []

    def fte(x):
        ndim = len(x.shape)
        if axis is None:
            removed = [i for i, d in enumerate(x.shape) if isinstance(d, P.IntImm) and d.value == 1]
        else:
            removed = sorted({a % ndim for a in axis
                              if not isinstance(x.shape[a % ndim], P.IntImm) or x.shape[a % ndim].value == 1})
        for a in removed:
            if not isinstance(x.shape[a], P.IntImm):
                checks.append((te_ops.eq(x.shape[a], 1), f"squeeze: axis {a} must have extent 1"))
        shape = [d for i, d in enumerate(x.shape) if i not in removed]

        def f(*i):
            it = iter(i)
            return x(*[_I64(0) if k in removed else next(it) for k in range(ndim)])

        return te.compute(shape, f, name="T_squeeze", index_names=_axes_names(len(shape)))

    return manipulate_util.call_te_with_asserts(ctx, fte, [call.args[0]], "squeeze", checks)


# ---------------------------------------------------------------------------------------------------
# flatten
# ---------------------------------------------------------------------------------------------------


def _flatten_infer(call, ctx):
    """OP.flatten.C1 (TVM's ``InferStructInfoFlatten``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    if data.ndim == -1:
        return TensorStructInfo(None, data.dtype, 1, data.vdevice)
    if data.ndim == 0:
        return TensorStructInfo(rx.ShapeExpr((_I64(1),)), data.dtype, vdevice=data.vdevice)
    if data.ndim == 1:
        return data
    vals = manipulate_util.shape_expr_values(data)
    if vals is None:
        return TensorStructInfo(None, data.dtype, 1, data.vdevice)
    return TensorStructInfo(rx.ShapeExpr((common.shape_product(vals),)), data.dtype, vdevice=data.vdevice)


def _flatten_ref(args, attrs, call, ctx):
    return manipulate_util.copy_out(np.reshape(args[0], (-1,)))


def _flatten_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    return ctx.call_te(lambda x, *dims: te_reshape(x, dims), call.args[0], *call.struct_info.shape.values,
                       primfunc_name_hint="reshape")


# ---------------------------------------------------------------------------------------------------
# concat
# ---------------------------------------------------------------------------------------------------


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

    return te.compute(shape, f, name="T_concat", index_names=_axes_names(len(shape)))


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


# ---------------------------------------------------------------------------------------------------
# split
# ---------------------------------------------------------------------------------------------------


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


def _split_bounds(d: int, ios) -> List[Tuple[int, int]]:
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
                  for b, e in _split_bounds(x.shape[axis], ios))
    manipulate_util.check_result_shape(call, ctx, parts)
    return parts


def _split_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    s = call.struct_info
    if isinstance(s, TensorStructInfo):  # one part: the identity
        return ctx.call_te(lambda x: te.compute(x.shape, lambda *i: x(*i), name="T_split_sections",
                                                index_names=_axes_names(len(x.shape))),
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

    def fte(x, sizes, begins):
        outs = []
        for size, begin in zip(sizes, begins):
            shape = list(x.shape)
            shape[axis] = size

            def f(*i, _b=begin):
                idx = list(i)
                idx[axis] = te_ops.add(i[axis], _b)
                return x(*idx)

            outs.append(te.compute(shape, f, name=name, index_names=_axes_names(len(shape))))
        return outs

    return ctx.call_te(fte, call.args[0], sizes, begins, primfunc_name_hint="split")


# ---------------------------------------------------------------------------------------------------
# broadcast_to
# ---------------------------------------------------------------------------------------------------


def _broadcast_to_infer(call, ctx):
    """OP.broadcast_to.C1-C4 (TVM's ``InferStructInfoBroadcastTo``)."""
    if len(call.args) != 2:
        raise common.error(call, "broadcast_to should take 2 arguments.", ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "broadcast_to", "data")  # C1
    tgt = manipulate_util.shape_input(call, 1, ctx, "broadcast_to", "new shape")
    if data.ndim != -1 and tgt.ndim != -1 and tgt.ndim < data.ndim:  # C2
        raise common.error(call, "broadcast_to expects the input shape to have the number of ndim at least as "
                                 f"the input tensor's. However, the given tensor has ndim {data.ndim} while the "
                                 f"target shape has ndim {tgt.ndim}", ctx)
    result = TensorStructInfo(call.args[1], data.dtype, vdevice=data.vdevice)
    old = data.shape_values
    if old is None or tgt.values is None:
        return result
    for i in range(1, len(old) + 1):  # C3
        o, t = old[-i], tgt.values[-i]
        if isinstance(o, P.IntImm) and o.value == 1:
            continue
        if manipulate_util.prove_not_equal(ctx, o, t):
            raise common.error(call, "broadcast_to expects the input tensor shape is broadcastable to the target "
                                     f"shape. The target shape at dim {len(tgt.values) - i} is {t} while the input "
                                     f"tensor shape at dim {len(old) - i} is {o}, which are not equal.", ctx)
    return result


def _broadcast_to_ref(args, attrs, call, ctx):
    x, shape = args
    shape = tuple(int(d) for d in shape)
    ok = len(shape) >= x.ndim and all(d == 1 or d == t for d, t in zip(x.shape[::-1], shape[::-1]))
    if not ok:  # C3 at run time
        raise manipulate_util.runtime_error(call, f"cannot broadcast a tensor of shape {x.shape} to {shape}")
    return manipulate_util.copy_out(np.broadcast_to(x, shape))


def te_broadcast_to(x: te.Tensor, shape: Sequence[P.PrimExpr], checks: Optional[list] = None) -> te.Tensor:
    """TOPI ``broadcast_to`` (``T_broadcast_to``). An input dim that is the literal 1 is read at 0; a
    static dim equal to its target dim is indexed by the output index; any other dim (symbolic, so it
    may be 1 at run time) is read at 0 when it is 1 and at the output index otherwise, guarded by a
    run-time check that it is 1 or the target dim (OP.broadcast_to.C3; TVM 0.25's TOPI requires it to
    equal the target dim statically and aborts when it cannot prove so)."""
    off = len(shape) - len(x.shape)

    def static_eq(d, t) -> bool:
        return isinstance(d, P.IntImm) and isinstance(t, P.IntImm) and d.value == t.value

    def f(*i):
        idx = []
        for k, d in enumerate(x.shape):
            t = shape[off + k]
            if isinstance(d, P.IntImm) and d.value == 1:
                idx.append(_I64(0))
            elif static_eq(d, t) or isinstance(d, P.IntImm):
                idx.append(i[off + k])
            else:
                idx.append(te_ops.if_then_else(te_ops.eq(d, _I64(1)), _I64(0), i[off + k]))
        return x(*idx)

    if checks is not None:
        for k, d in enumerate(x.shape):
            t = shape[off + k]
            if isinstance(d, P.IntImm) and d.value == 1 or static_eq(d, t):
                continue
            ok = te_ops.eq(d, t) if isinstance(d, P.IntImm) else te_ops.logical_or(te_ops.eq(d, _I64(1)), te_ops.eq(d,
                                                                                                                    t))
            checks.append((ok, f"broadcast_to: dimension {k} of the input must be 1 or equal to the target "
                               "dimension"))
    return te.compute(shape, f, name="T_broadcast_to", index_names=_axes_names(len(shape)))


def _broadcast_to_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    checks: List[Tuple[P.PrimExpr, str]] = []
    return manipulate_util.call_te_with_asserts(ctx, lambda x, *dims: te_broadcast_to(x, dims, checks),
                                                [call.args[0]] + list(call.struct_info.shape_values), "broadcast_to",
                                                checks)


# ---------------------------------------------------------------------------------------------------
# collapse_sum_like / collapse_sum_to
# ---------------------------------------------------------------------------------------------------


def _check_collapse(call, ctx, data: Sequence[P.PrimExpr], target: Sequence[P.PrimExpr]) -> None:
    """OP.collapse_sum_to.C3 (TVM's ``CheckCollapseShape``): right-aligned, each target dim equals the
    data dim or is the literal 1; extra leading data dims are summed."""
    t_ax = len(target) - 1
    for d_ax in range(len(data) - 1, -1, -1):
        if t_ax < 0:
            continue
        d0, d1 = data[d_ax], target[t_ax]
        if common.prove_equal(ctx, d0, d1) or (isinstance(d1, P.IntImm) and d1.value == 1):
            t_ax -= 1
        elif isinstance(d0, P.IntImm) and isinstance(d1, P.IntImm):
            raise common.error(call, f"the data shape at dim {d_ax} is {d0} and the target shape at dim {t_ax} is "
                                     f"{d1}, which do not match the rule of collapse sum.", ctx)
        else:
            raise common.error(call, "fails to match the axes because of unknown dim or symbolic shape. In this "
                                     f"position the dim of data shape is {d0} while the dim of target shape is "
                                     f"{d1}. If it is symbolic, consider use MatchCast first.", ctx)


def _collapse_like_infer(call, ctx):
    """OP.collapse_sum_like.C1-C3 (TVM's ``InferStructInfoCollapseSumLike``)."""
    data, target = common.tensor_args(call, 2, ctx)
    if data.shape_values is not None and target.shape_values is not None:
        _check_collapse(call, ctx, data.shape_values, target.shape_values)
    if target.shape is not None:
        return TensorStructInfo(target.shape, data.dtype, vdevice=target.vdevice)
    return TensorStructInfo(None, data.dtype, target.ndim, target.vdevice)


def _collapse_to_infer(call, ctx):
    """OP.collapse_sum_to.C1-C4 (TVM's ``InferStructInfoCollapseSumTo``)."""
    if len(call.args) != 2:
        raise common.error(call, "CollapseSumTo should have 2 arguments", ctx)
    data = manipulate_util.tensor_input(call, 0, ctx, "CollapseSumTo", "data")
    shape = manipulate_util.shape_input(call, 1, ctx, "CollapseSumTo", "shape")
    if data.shape_values is not None and shape.values is not None:
        _check_collapse(call, ctx, data.shape_values, shape.values)
    return TensorStructInfo(call.args[1], data.dtype, vdevice=data.vdevice)


def collapse_sum_np(call, x: np.ndarray, target: Sequence[int]) -> np.ndarray:
    target = tuple(int(t) for t in target)
    if len(target) > x.ndim:
        raise manipulate_util.runtime_error(call, f"cannot collapse a tensor of shape {x.shape} to {target}")
    lead = x.ndim - len(target)
    axes = list(range(lead))
    for k, t in enumerate(target):
        d = x.shape[lead + k]
        if d == t:
            continue
        if t == 1:
            axes.append(lead + k)
            continue
        raise manipulate_util.runtime_error(call, f"cannot collapse a tensor of shape {x.shape} to {target}")
    with np.errstate(all="ignore"):
        out = np.sum(x, axis=tuple(axes), keepdims=True, dtype=x.dtype) if axes else x
    return manipulate_util.copy_out(np.reshape(out, target))


def _collapse_like_ref(args, attrs, call, ctx):
    return collapse_sum_np(call, args[0], args[1].shape)


def _collapse_to_ref(args, attrs, call, ctx):
    return collapse_sum_np(call, args[0], tuple(args[1]))


def te_collapse_sum(x: te.Tensor, target: Sequence[P.PrimExpr]) -> te.Tensor:
    """TOPI ``collapse_sum``: a sum over the leading data dims and the dims collapsed to 1."""
    ishape, oshape = list(x.shape), list(target)
    reduce_axes: List[int] = []
    squeeze: List[int] = []
    o_ax = len(oshape) - 1
    for i_ax in range(len(ishape) - 1, -1, -1):
        if o_ax >= 0 and (ishape[i_ax] == oshape[o_ax] or (
                isinstance(ishape[i_ax], P.IntImm) and isinstance(oshape[o_ax], P.IntImm)
                and ishape[i_ax].value == oshape[o_ax].value)):
            o_ax -= 1
            continue
        reduce_axes.append(i_ax)
        if o_ax < 0:
            squeeze.append(i_ax)
        elif isinstance(oshape[o_ax], P.IntImm) and oshape[o_ax].value == 1:
            o_ax -= 1
    if not reduce_axes:
        return te.compute(ishape, lambda *i: x(*i), name="tensor", index_names=_axes_names(len(ishape)))
    reduce_axes.reverse()
    raxes = {a: te.reduce_axis(ishape[a], f"k{a}") for a in reduce_axes}
    kept = [a for a in range(len(ishape)) if a not in squeeze]

    def f(*o):
        idx = []
        pos = dict(zip(kept, o))
        for a in range(len(ishape)):
            idx.append(raxes[a].var if a in raxes else pos[a])
        return te.sum(x(*idx), axis=[raxes[a] for a in reduce_axes])

    return te.compute(oshape, f, name=f"{x.name}_red", index_names=_axes_names(len(oshape)))


def _collapse_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    target = list(call.struct_info.shape_values)
    return ctx.call_te(lambda x, *t: te_collapse_sum(x, t), call.args[0], *target,
                       primfunc_name_hint="collapse_sum")


# ---------------------------------------------------------------------------------------------------
# repeat / tile / flip
# ---------------------------------------------------------------------------------------------------


def _repeat_infer(call, ctx):
    """OP.repeat.C1-C3 (TVM's ``InferStructInfoRepeat``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    repeats = call.attrs["repeats"]
    axis = call.attrs.get("axis")
    if repeats < 0:  # C2 (TVM infers a negative extent)
        raise common.error(call, f"Repeat requires a non-negative number of repeats, got {repeats}", ctx)
    if axis is not None and data.ndim != -1 and not -data.ndim <= axis < data.ndim:  # C1
        raise common.error(call, "Repeat requires the input axis belongs range [-data.struct_info.ndim, "
                                 f"data.struct_info.ndim - 1]. However, the input axis is {axis}, while ndim is "
                                 f"{data.ndim}", ctx)
    vals = manipulate_util.shape_expr_values(data)
    if vals is None:
        if axis is not None:
            return data if repeats == 1 else TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
        return TensorStructInfo(None, data.dtype, 1, data.vdevice)
    if axis is None:
        n = manipulate_util.simplify(ctx, te_ops.mul(common.shape_product(vals), _I64(repeats)))
        return TensorStructInfo(rx.ShapeExpr((n,)), data.dtype, vdevice=data.vdevice)
    a = axis % data.ndim
    shape = list(vals)
    shape[a] = manipulate_util.simplify(ctx, te_ops.mul(shape[a], _I64(repeats)))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), data.dtype, vdevice=data.vdevice)


def _repeat_ref(args, attrs, call, ctx):
    x = args[0]
    axis = attrs.get("axis")
    if axis is None:
        return manipulate_util.copy_out(np.repeat(np.reshape(x, (-1,)), attrs["repeats"]))
    return manipulate_util.copy_out(np.repeat(x, attrs["repeats"], axis=axis % x.ndim))


def _repeat_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    repeats, axis = call.attrs["repeats"], call.attrs.get("axis")

    def fte(x):
        if axis is None:
            x = te_reshape(x, [common.shape_product(x.shape)])
            a = 0
        else:
            a = axis % len(x.shape)
        shape = list(x.shape)
        shape[a] = te_ops.mul(_I64(repeats), shape[a])

        def f(*i):
            idx = list(i)
            idx[a] = te_ops.floordiv(i[a], _I64(repeats)) if repeats else i[a]
            return x(*idx)

        return te.compute(shape, f, name="T_repeat", index_names=_axes_names(len(shape)))

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="repeat")


def _tile_infer(call, ctx):
    """OP.tile.C1-C2 (TVM's ``InferStructInfoTile``)."""
    data = common.tensor_args(call, 1, ctx)[0]
    reps = list(call.attrs["repeats"])
    if any(r < 0 for r in reps):  # C1
        raise common.error(call, f"Tile requires non-negative repeats, got {reps}", ctx)
    vals = manipulate_util.shape_expr_values(data)
    ndim, l = data.ndim, len(reps)
    if vals is None:
        if ndim == -1:
            return TensorStructInfo(None, data.dtype, -1, data.vdevice)
        if l > ndim:
            return TensorStructInfo(None, data.dtype, l, data.vdevice)
        if any(r != 1 for r in reps):
            return TensorStructInfo(None, data.dtype, ndim, data.vdevice)
        return data
    out_ndim = max(l, ndim)
    l_delta, nd_delta = out_ndim - l, out_ndim - ndim
    shape = []
    for i in range(out_ndim):
        if i < l_delta:
            shape.append(vals[i - nd_delta])
        elif i < nd_delta:
            shape.append(_I64(reps[i - l_delta]))
        else:
            shape.append(manipulate_util.simplify(ctx, te_ops.mul(vals[i - nd_delta], _I64(reps[i - l_delta]))))
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), data.dtype, vdevice=data.vdevice)


def _tile_ref(args, attrs, call, ctx):
    return manipulate_util.copy_out(np.tile(args[0], tuple(attrs["repeats"])))


def te_tile(x: te.Tensor, reps: Sequence[int]) -> te.Tensor:
    """TOPI ``tile`` (``T_tile``): ``x[i mod shape]`` over the tiled shape."""
    ndim, rdim = len(x.shape), len(reps)
    if ndim >= rdim:
        dshape, rshape = list(x.shape), [_I64(1)] * (ndim - rdim) + [_I64(r) for r in reps]
    else:
        dshape, rshape = [_I64(1)] * (rdim - ndim) + list(x.shape), [_I64(r) for r in reps]
    shape = [te_ops.mul(d, r) for d, r in zip(dshape, rshape)]
    names = _axes_names(len(shape))
    if _is_empty(shape):
        return te.compute(shape, lambda *i: te_ops.cast(x.dtype, 0), name="T_tile", index_names=names)
    off = max(rdim - ndim, 0)
    return te.compute(shape, lambda *i: x(*[te_ops.floormod(i[off + k], x.shape[k]) for k in range(ndim)]),
                      name="T_tile", index_names=names)


def _tile_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    reps = list(call.attrs["repeats"])
    return ctx.call_te(lambda x: te_tile(x, reps), call.args[0], primfunc_name_hint="tile")


def _flip_infer(call, ctx):
    """OP.flip.C1 (TVM's ``InferStructInfoFlip``)."""
    if len(call.args) != 1:
        raise common.error(call, "Flip op should take 1 argument", ctx)
    data = common.tensor_args(call, 1, ctx)[0]
    axis = call.attrs["axis"]
    if data.ndim != -1 and not -data.ndim <= axis < data.ndim:
        raise common.error(call, "Flip requires the input axis belongs range [-ndim, ndim - 1]. However, the input "
                                 f"axis is {axis}, while ndim is {data.ndim}", ctx)
    return data


def _flip_ref(args, attrs, call, ctx):
    x = args[0]
    return manipulate_util.copy_out(np.flip(x, axis=attrs["axis"] % x.ndim))


def _flip_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    axis = call.attrs["axis"] % call.args[0].struct_info.ndim

    def fte(x):
        def f(*i):
            idx = list(i)
            idx[axis] = te_ops.sub(te_ops.sub(x.shape[axis], _I64(1)), i[axis])
            return x(*idx)
        return te.compute(x.shape, f, name="T_reverse_sequence", index_names=_axes_names(len(x.shape)))

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="flip")


# ---------------------------------------------------------------------------------------------------
# stack
# ---------------------------------------------------------------------------------------------------


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

        return te.compute(shape, f, name="T_stack", index_names=_axes_names(len(shape)))

    return manipulate_util.call_te_with_asserts(ctx, fte, fields, "stack", checks)


# ---------------------------------------------------------------------------------------------------
# meshgrid
# ---------------------------------------------------------------------------------------------------


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
                                   index_names=_axes_names(len(shape))))
        return outs

    out = ctx.call_te(fte, *fields, primfunc_name_hint="meshgrid")
    if len(fields) == 1:  # one output: call_tir gives the tensor itself, the operator a 1-tuple
        return rx.Tuple((out,), span=call.span)
    return out


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

_RESHAPE_PARAMS = (arg("x"), arg("shape", "shape"))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    def reg(name, params, infer, ref, legalize, doc, **kw):
        OPS.append(OpDef(name=f"relax.{name}", script=f"R.{name}", params=params, infer=infer, reference=ref,
                       legalize=legalize, category="manipulation", doc=doc, **kw))

    reg("reshape", _RESHAPE_PARAMS, _reshape_infer, _reshape_ref, _reshape_legalize,
        "``R.reshape(x, shape)``: same elements in a new shape; -1 and 0 resolved when built (OP.reshape.C1).",
        parse_call=_reshape_parse, normalize=_reshape_normalize)
    reg("permute_dims", (arg("x"), attr("axes", "optional_ints", None)), _permute_infer, _permute_ref,
        _permute_legalize, "``R.permute_dims(x, axes=None)``: transpose (OP.permute_dims.C1).")
    reg("expand_dims", (arg("x"), attr("axis", "ints")), _expand_infer, _expand_ref, _expand_legalize,
        "``R.expand_dims(x, axis)``: insert unit dims (OP.expand_dims.C1).")
    reg("squeeze", (arg("x"), attr("axis", "optional_ints", None)), _squeeze_infer, _squeeze_ref,
        _squeeze_legalize, "``R.squeeze(x, axis=None)``: drop unit dims (OP.squeeze.C1).")
    reg("flatten", (arg("x"),), _flatten_infer, _flatten_ref, _flatten_legalize,
        "``R.flatten(x)``: 1-D view of all elements (OP.flatten.C1).")
    reg("concat", (arg("tensors", "tuple"), attr("axis", "optional_int", 0)), _concat_infer, _concat_ref,
        _concat_legalize, "``R.concat(tensors, axis=0)``: join along an axis (OP.concat.C1).")
    reg("split", (arg("x"), attr("indices_or_sections", "int_or_ints"), attr("axis", "int", 0)), _split_infer,
        _split_ref, _split_legalize,
        "``R.split(x, indices_or_sections, axis=0)``: ceil-size sections or cut points (OP.split.C1).")
    reg("broadcast_to", (arg("x"), arg("shape", "shape")), _broadcast_to_infer, _broadcast_to_ref,
        _broadcast_to_legalize, "``R.broadcast_to(x, shape)``: numpy broadcasting (OP.broadcast_to.C1).")
    reg("collapse_sum_like", (arg("data"), arg("collapse_target")), _collapse_like_infer, _collapse_like_ref,
        _collapse_legalize, "``R.collapse_sum_like(data, collapse_target)``: sum to the target's shape "
                            "(OP.collapse_sum_like.C1).")
    reg("collapse_sum_to", (arg("data"), arg("shape", "shape")), _collapse_to_infer, _collapse_to_ref,
        _collapse_legalize, "``R.collapse_sum_to(data, shape)``: sum broadcast dims away "
                            "(OP.collapse_sum_to.C1).")
    reg("repeat", (arg("data"), attr("repeats", "int"), attr("axis", "optional_int", None)), _repeat_infer,
        _repeat_ref, _repeat_legalize, "``R.repeat(data, repeats, axis=None)``: numpy.repeat (OP.repeat.C1).")
    reg("tile", (arg("data"), attr("repeats", "ints")), _tile_infer, _tile_ref, _tile_legalize,
        "``R.tile(data, repeats)``: numpy.tile (OP.tile.C1).")
    reg("flip", (arg("data"), attr("axis", "int")), _flip_infer, _flip_ref, _flip_legalize,
        "``R.flip(data, axis)``: reverse one axis (OP.flip.C1).")
    reg("stack", (arg("tensors", "tuple"), attr("axis", "optional_int", 0)), _stack_infer, _stack_ref,
        _stack_legalize, "``R.stack(tensors, axis=0)``: join along a new axis (OP.stack.C1).")
    reg("meshgrid", (arg("tensors", "tuple"), attr("indexing", "optional_str", "ij")), _meshgrid_infer,
        _meshgrid_ref, _meshgrid_legalize, "``R.meshgrid(tensors, indexing='ij')``: coordinate grids "
                                           "(OP.meshgrid.C1).")


_define_all()

MANIPULATE_OPS = ("reshape", "permute_dims", "expand_dims", "squeeze", "flatten", "concat", "split",
                  "broadcast_to", "collapse_sum_like", "collapse_sum_to", "repeat", "tile", "flip", "stack",
                  "meshgrid")

__all__ = ["MANIPULATE_OPS", "reshape_call", "resolve_new_shape", "te_reshape", "te_transpose", "te_concat",
           "te_broadcast_to", "te_tile", "te_collapse_sum", "ravel_index", "unravel_index", "collapse_sum_np"]

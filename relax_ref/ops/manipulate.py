"""Manipulation operators: ``reshape``, ``permute_dims``, ``expand_dims``, ``squeeze``, ``flatten``,
``concat``, ``split``, ``broadcast_to``, ``collapse_sum_like``, ``collapse_sum_to``, ``repeat``,
``tile``, ``flip``, ``stack``, ``meshgrid`` (spec pages ``spec/ops/<op>.md``).

Each entry has TVM 0.25's script name and parameters, struct-info inference mirroring
``src/relax/op/tensor/manipulate.cc`` (constraint IDs ``OP.<op>.C<n>``), numpy reference semantics
and a legalization built with :mod:`relax_ref.ops.te` after TVM's ``legalize_ops/manipulate.py``
(TOPI kernels ``T_reshape``, ``T_transpose``, ``T_concat`` ...).

This module holds the family's table :data:`OPS` and the reshaping operators; joining and cutting
(``concat``, ``split``, ``stack``, ``meshgrid``) live in :mod:`.manipulate_join`, replication and its
inverse (``broadcast_to``, ``collapse_sum_*``, ``repeat``, ``tile``) in :mod:`.manipulate_broadcast`.

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

from ..errors import ParseError, StructInfoError, UnsupportedError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import ShapeStructInfo, TensorStructInfo
from . import common
from . import manipulate_broadcast, manipulate_join, manipulate_sequence
from . import manipulate_util
from . import te
from . import te_ops
from .manipulate_broadcast import collapse_sum_np, te_broadcast_to, te_collapse_sum, te_tile
from .manipulate_join import te_concat
from .dist_shards import local_reshape_hint, reshape_target
from .manipulate_util import manipulation_op, ravel_index, te_reshape, unravel_index
from .opdef import OpDef, arg, attr

_I64 = manipulate_util.int64


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


def reshape_spelling(call: rx.Call) -> Optional[Tuple[P.PrimExpr, ...]]:
    """The new shape to print for ``call`` when its target holds a literal 0 that is not a copy
    (TEXT.RT.1, OP.reshape.C5), else None (the target as it is). The parser reads a ``0`` of the new
    shape as "the input's dim at that position", so the ``0`` that ``-1`` resolved to (``(0, 3, 4)``
    reshaped to ``(4, -1)`` is ``(4, 0)``) is spelled as that ``-1`` again. TVM 0.25 and 0.27 print
    ``R.shape([4, 0])`` and read it back as ``(4, 3)``. A target that no spelling resolves to (two
    such zeros, built by a pass) is an UnsupportedError."""
    target = call.args[1] if len(call.args) == 2 else None
    if not isinstance(target, rx.ShapeExpr) or call.attrs.get(_UNRESOLVED) or \
            not any(isinstance(v, P.IntImm) and v.value == 0 for v in target.values):
        return None
    vals = list(target.values)

    def resolves(spelled) -> bool:
        try:
            return resolve_new_shape(call.args[0], spelled, call.span, StructInfoError) == tuple(vals)
        except StructInfoError:
            return False

    if resolves(vals):
        return None
    for i, v in enumerate(vals):
        if isinstance(v, P.IntImm) and v.value == 0:
            spelled = vals[:i] + [P.IntImm(-1, "int64")] + vals[i + 1:]
            if resolves(spelled):
                return tuple(spelled)
    raise UnsupportedError(f"R.reshape to ({', '.join(map(str, vals))}): no new shape resolves to it in "
                           "TVMScript (a 0 there copies the input's dim)", call.span)


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
    shape = reshape_target(call, shape)                                             # DIST.LOCAL.4
    if int(np.prod(shape, dtype=np.int64)) != x.size or any(d < 0 for d in shape):  # C3 at run time
        raise manipulate_util.runtime_error(call, f"cannot reshape a tensor of shape {x.shape} ({x.size} elements) to "
                                                  f"{shape}{local_reshape_hint(call)}")
    return manipulate_util.copy_out(np.reshape(x, shape))


def _reshape_legalize(call, ctx):
    if not manipulate_util.legalizable(call):
        return None
    newshape = list(call.struct_info.shape.values)
    checks: List[Tuple[P.PrimExpr, str]] = []

    def fte(x, *dims):
        checks.append((te_ops.eq(common.shape_product(x.shape), common.shape_product(dims)),
                       "reshape: the element count of the input differs from the new shape's"))
        return manipulate_util.te_reshape(x, dims)

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
    vals = manipulate_util.shape_expr_values(data)
    if axes is None and vals is None and data.ndim > 1:  # no O(ndim) axis list (SI.TENSOR.1)
        return TensorStructInfo(None, data.dtype, data.ndim, data.vdevice)
    perm = _permute_axes(call, ctx, data.ndim)  # C2
    if perm == list(range(data.ndim)):
        return data
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

    return te.compute(shape, f, name="T_transpose", index_names=manipulate_util.axes_names(len(shape)))


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
    remove = set()  # the removed axes (never O(ndim): a stated rank may be 2**31 - 1, SI.TENSOR.1)
    if axis is not None:
        axes = common.normalize_axes(call, data.ndim, axis, ctx)  # C1
        if vals is None:
            return TensorStructInfo(None, data.dtype, data.ndim - len(axes), data.vdevice)
        for a in axes:  # C2: a static dim other than 1 is kept
            d = vals[a]
            if not isinstance(d, P.IntImm) or d.value == 1:
                remove.add(a)
    else:
        if vals is None:
            return TensorStructInfo(None, data.dtype, -1, data.vdevice)
        for i, d in enumerate(vals):
            if not isinstance(d, P.IntImm):
                return TensorStructInfo(None, data.dtype, -1, data.vdevice)
            if d.value == 1:
                remove.add(i)
    out = tuple(d for i, d in enumerate(vals) if i not in remove)
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
        return manipulate_util.te_squeeze(x, removed)

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
    return ctx.call_te(lambda x, *dims: manipulate_util.te_reshape(x, dims), call.args[0],
                       *call.struct_info.shape.values,
                       primfunc_name_hint="reshape")


# ---------------------------------------------------------------------------------------------------
# flip
# ---------------------------------------------------------------------------------------------------


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
        return te.compute(x.shape, f, name="T_reverse_sequence", index_names=manipulate_util.axes_names(len(x.shape)))

    return ctx.call_te(fte, call.args[0], primfunc_name_hint="flip")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

_RESHAPE_PARAMS = (arg("x"), arg("shape", "shape"))


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    def reg(name, params, infer, ref, legalize, doc, **kw):
        OPS.append(manipulation_op(name, params, infer, ref, legalize, doc, **kw))

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
    OPS.extend((manipulate_join.CONCAT, manipulate_join.SPLIT, manipulate_broadcast.BROADCAST_TO,
                manipulate_broadcast.COLLAPSE_SUM_LIKE, manipulate_broadcast.COLLAPSE_SUM_TO,
                manipulate_broadcast.REPEAT, manipulate_broadcast.TILE))
    reg("flip", (arg("data"), attr("axis", "int")), _flip_infer, _flip_ref, _flip_legalize,
        "``R.flip(data, axis)``: reverse one axis (OP.flip.C1).")
    OPS.extend((manipulate_join.STACK, manipulate_join.MESHGRID))
    reg("reverse_sequence", manipulate_sequence.PARAMS, manipulate_sequence.infer, manipulate_sequence.reference,
        manipulate_sequence.legalize, manipulate_sequence.DOC, check=manipulate_sequence.check)

_define_all()

#: TVM 0.25's manipulation operators (reverse_sequence, TVM 0.27's, is listed in OPS only)
MANIPULATE_OPS = ("reshape", "permute_dims", "expand_dims", "squeeze", "flatten", "concat", "split",
                  "broadcast_to", "collapse_sum_like", "collapse_sum_to", "repeat", "tile", "flip", "stack",
                  "meshgrid")

__all__ = ["MANIPULATE_OPS", "reshape_call", "reshape_spelling", "resolve_new_shape", "te_reshape", "te_transpose", "te_concat",
           "te_broadcast_to", "te_tile", "te_collapse_sum", "ravel_index", "unravel_index", "collapse_sum_np"]

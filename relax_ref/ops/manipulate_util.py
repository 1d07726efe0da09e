"""Helpers shared by the manipulation and indexing operators (:mod:`relax_ref.ops.manipulate`,
:mod:`relax_ref.ops.index`, :mod:`relax_ref.ops.scatter`, :mod:`relax_ref.ops.layout_transform`).

Inference
    :func:`shape_expr_values` (dims only when the shape is a ``ShapeExpr``, TVM's
    ``shape.as<ShapeExprNode>()``), :func:`tensor_input` (a tensor argument with TVM's wording),
    :func:`tuple_tensor_fields`, :func:`simplify`.
Reference semantics
    :func:`as_array`, :func:`int_value`, :func:`check_result_shape` (OP.SEM.3: the value of a call
    must belong to its inferred struct info; when a TVM 0.25 shape formula disagrees with the actual
    result at run time the call raises ``op_runtime`` instead of returning a value of the wrong shape).
Legalization
    :func:`legalizable`, :func:`tuple_fields` (the fields of a tuple argument as expressions usable
    by ``call_te``), :func:`call_te_with_asserts` (``call_te`` plus run-time ``T.Assert`` checks
    wrapped around the generated kernel); TE building blocks :func:`ravel_index`,
    :func:`unravel_index`, :func:`te_reshape`, :func:`axes_names`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.struct_info import (
    PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from ..values import PrimScalar
from . import common, te, te_ops
from .opdef import OpDef

# ---------------------------------------------------------------------------------------------------
# Inference helpers
# ---------------------------------------------------------------------------------------------------


def shape_expr_values(s: TensorStructInfo) -> Optional[Tuple[P.PrimExpr, ...]]:
    """The dims of ``s`` when its shape is a ``ShapeExpr`` literal (not a shape variable)."""
    if isinstance(s.shape, rx.ShapeExpr):
        return s.shape.values
    return None


def int64(v: int) -> P.IntImm:
    return P.IntImm(int(v), "int64")


def tensor_input(call: rx.Call, i: int, ctx: Any, op_title: str, what: str) -> TensorStructInfo:
    """Argument ``i`` must be a tensor: ``<op_title> requires the input <what> to be a Tensor``."""
    s = common.arg_sinfo(call, i, ctx)
    if not isinstance(s, TensorStructInfo):
        raise common.error(call, f"{op_title} requires the input {what} to be a Tensor. However, the given one "
                                 f"has struct info {common.describe_sinfo(s)}", ctx)
    return s


def shape_input(call: rx.Call, i: int, ctx: Any, op_title: str, what: str = "shape") -> ShapeStructInfo:
    s = common.arg_sinfo(call, i, ctx)
    if not isinstance(s, ShapeStructInfo):
        raise common.error(call, f"{op_title} requires the input {what} to be Shape. However, the given one has "
                                 f"struct info {common.describe_sinfo(s)}", ctx)
    return s


def tuple_tensor_fields(call: rx.Call, i: int, ctx: Any) -> List[TensorStructInfo]:
    """TVM's ``GetTensorStructInfoFromTuple``: argument ``i`` is a tuple of tensors."""
    return common.tuple_of_tensors_arg(call, i, ctx)


def simplify(ctx: Any, e: P.PrimExpr) -> P.PrimExpr:
    """``ctx.analyzer.simplify(e)`` (a fresh analyzer when the context has none)."""
    analyzer = getattr(ctx, "analyzer", None)
    if analyzer is None:
        from ..arith import Analyzer

        analyzer = Analyzer()
    return analyzer.simplify(e)


def can_prove(ctx: Any, cond: P.PrimExpr) -> bool:
    analyzer = getattr(ctx, "analyzer", None)
    if analyzer is None:
        from ..arith import Analyzer

        analyzer = Analyzer()
    return bool(analyzer.can_prove(cond))


def prove_not_equal(ctx: Any, a: P.PrimExpr, b: P.PrimExpr) -> bool:
    """Whether ``a != b`` provably holds (TVM's ``CanProve(a != b)``)."""
    if isinstance(a, P.IntImm) and isinstance(b, P.IntImm):
        return a.value != b.value
    from . import te_ops

    a, b = te_ops.match_types(a, b)
    return can_prove(ctx, P.NE(a, b))


def is_int_dtype(dtype: str) -> bool:
    """TVM's ``dtype.is_int()``: a signed integer type."""
    return _dt.is_int(dtype)


def is_int_or_uint(dtype: str) -> bool:
    return _dt.is_int(dtype) or _dt.is_uint(dtype)


# ---------------------------------------------------------------------------------------------------
# Reference helpers
# ---------------------------------------------------------------------------------------------------


def as_array(v: Any) -> np.ndarray:
    if isinstance(v, PrimScalar):
        return np.array(v.value, dtype=_dt.to_numpy(v.dtype))
    return np.asarray(v)


def int_value(v: Any) -> int:
    """A Python int from a PrimScalar (or an int)."""
    if isinstance(v, PrimScalar):
        return int(v.value)
    return int(v)


def runtime_error(call: rx.Call, message: str) -> OpRuntimeError:
    return OpRuntimeError(f"{common.op_name(call)}: {message}", call.span)


def _eval_dims(ctx: Any, dims: Sequence[P.PrimExpr]) -> Optional[Tuple[int, ...]]:
    ev = getattr(ctx, "eval_prim", None)
    if ev is None:
        return None
    try:
        return tuple(int(ev(d)) for d in dims)
    except Exception:  # noqa: BLE001 - a dim that cannot be evaluated here is simply not checked
        return None


def _inferred(call: rx.Call, ctx: Any, infer: Callable[[rx.Call, Any], Any]) -> Any:
    """The operator's own struct info for ``call`` (NORM.INFER.1, by its ``infer``), else the call's."""
    from ..analysis.context import InferContext, make_analyzer
    from ..errors import RelaxError

    try:
        s = infer(call, InferContext(make_analyzer(), getattr(ctx, "module", None)))
    except RelaxError:
        return call.struct_info
    return s if isinstance(s, StructInfo) else call.struct_info


def check_result_shape(call: rx.Call, ctx: Any, value: Any, sinfo: Optional[StructInfo] = None,
                       infer: Optional[Callable[[rx.Call, Any], Any]] = None) -> None:
    """OP.SEM.3: raise ``op_runtime`` when the inferred ``ShapeExpr`` dims of the call (evaluated in
    the current symbolic environment) disagree with the shape of ``value``. Used by the operators
    whose TVM 0.25 shape formula can be negative or wrong for some run-time sizes (``split``,
    ``strided_slice``). Given the operator's ``infer``, the struct info is the operator's own (an
    annotation on the binding may replace the call's, and is checked after the operator with site
    ``call_result``, EVAL.CALL.3). Without an evaluation context nothing is checked."""
    s = sinfo if sinfo is not None else call.struct_info if infer is None else _inferred(call, ctx, infer)
    if isinstance(s, TupleStructInfo) and isinstance(value, tuple):
        for f, v in zip(s.fields, value):
            check_result_shape(call, ctx, v, f)
        return
    if not isinstance(s, TensorStructInfo) or not isinstance(s.shape, rx.ShapeExpr):
        return
    want = _eval_dims(ctx, s.shape.values)
    if want is None:
        return
    got = tuple(np.shape(value))
    if want != got:
        raise runtime_error(call, f"the result has shape {got}, but the struct info inferred for the call "
                                  f"evaluates to {want} (a negative or inconsistent extent)")


def copy_out(a: np.ndarray) -> np.ndarray:
    """A fresh contiguous array (operator results never alias their inputs)."""
    return np.array(a, copy=True, order="C")


# ---------------------------------------------------------------------------------------------------
# Legalization helpers
# ---------------------------------------------------------------------------------------------------


def _sinfo_known(s: Optional[StructInfo]) -> bool:
    if isinstance(s, TensorStructInfo):
        return isinstance(s.shape, rx.ShapeExpr) and s.dtype != "void"
    if isinstance(s, TupleStructInfo):
        return all(_sinfo_known(f) for f in s.fields)
    if isinstance(s, PrimStructInfo):
        return s.dtype != "void"
    if isinstance(s, ShapeStructInfo):
        return s.values is not None
    return False


def legalizable(call: rx.Call, *, check_result: bool = True) -> bool:
    """Every argument (tensors, tuples of tensors, prims, shapes) and, unless ``check_result`` is
    False, the result have known shapes (``ShapeExpr``) and dtypes."""
    if not all(_sinfo_known(a.struct_info) for a in call.args):
        return False
    return not check_result or _sinfo_known(call.struct_info)


def tuple_fields(e: rx.Expr) -> List[rx.Expr]:
    """The fields of a tuple-valued argument as expressions: the fields of a ``Tuple`` literal, else
    ``TupleGetItem`` nodes (carrying the field struct info) that the normalizer binds."""
    if isinstance(e, rx.Tuple):
        return list(e.fields)
    s = e.struct_info
    if not isinstance(s, TupleStructInfo):
        raise OpRuntimeError("internal: expected a tuple-typed argument", getattr(e, "span", None))
    return [rx.TupleGetItem(e, i, struct_info=f, span=e.span) for i, f in enumerate(s.fields)]


def call_te_with_asserts(ctx: Any, fte: Callable[..., Any], args: Sequence[Any], name: str,
                         asserts: List[Tuple[P.PrimExpr, str]]) -> rx.Call:
    """``ctx.call_te(fte, *args, primfunc_name_hint=name)`` where ``fte`` may append
    ``(condition, message)`` pairs (over the kernel's own shape variables) to ``asserts``; each becomes
    a ``T.Assert`` around the kernel body, checked before anything is computed."""
    from .te_bridge import gen_call_tir_inputs

    del asserts[:]
    pieces = gen_call_tir_inputs(fte, list(args), {})
    func = pieces.func
    body = func.body
    from ..arith import can_prove

    # a condition that holds for every value of the shape variables needs no check
    live = [(c, m) for c, m in asserts if not (isinstance(c, P.IntImm) and c.value) and not can_prove(c)]
    for cond, msg in reversed(live):
        body = tir.AssertStmt(cond, msg, body)
    if live:
        func = dataclasses.replace(func, body=body)
    gv = ctx.add_prim_func(func, name)
    return ctx.call_tir(gv, pieces.args, pieces.out_sinfo, pieces.tir_vars)


# ---------------------------------------------------------------------------------------------------
# TE building blocks (TOPI's ravel/unravel, reshape)
# ---------------------------------------------------------------------------------------------------


def ravel_index(indices: Sequence[P.PrimExpr], shape: Sequence[P.PrimExpr]) -> P.PrimExpr:
    """TOPI's ``RavelIndex``: row-major flat index."""
    if not indices:
        return int64(0)
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


def is_empty(shape: Sequence[P.PrimExpr]) -> bool:
    """A shape with a dimension statically 0."""
    return any(isinstance(d, P.IntImm) and d.value == 0 for d in shape)


def te_reshape(x: te.Tensor, newshape: Sequence[P.PrimExpr], name: str = "T_reshape") -> te.Tensor:
    """TOPI ``reshape``: ``x[unravel(ravel(i, newshape), x.shape)]`` (zeros for an empty shape)."""
    newshape = [te._int64(d) for d in newshape]
    if is_empty(newshape) or is_empty(x.shape):
        return te.compute(newshape, lambda *i: te_ops.cast(x.dtype, 0), name=name,
                          index_names=[f"ax{k}" for k in range(len(newshape))])
    return te.compute(newshape, lambda *i: x(*unravel_index(ravel_index(list(i), newshape), x.shape)),
                      name=name, index_names=[f"ax{k}" for k in range(len(newshape))])


def axes_names(n: int) -> List[str]:
    """TOPI's iteration-variable names ``ax0 .. ax{n-1}``."""
    return [f"ax{k}" for k in range(n)]


def te_full(shape: Sequence[P.PrimExpr], value: P.PrimExpr, name: str = "T_full") -> te.Tensor:
    """TOPI ``full``: every element is ``value`` (already of the result dtype)."""
    return te.compute(shape, lambda *i: value, name=name, index_names=axes_names(len(shape)))


def te_gather(x: te.Tensor, ind: te.Tensor, axis: int, name: str = "T_gather") -> te.Tensor:
    """TOPI ``gather`` (``gather_elements``): ``x`` at ``ind``'s positions with the index along
    ``axis`` read from ``ind`` (no cast, no bounds check)."""
    def f(*i):
        idx = list(i)
        idx[axis] = ind(*i)
        return x(*idx)

    return te.compute(ind.shape, f, name=name, index_names=axes_names(len(ind.shape)))


def te_squeeze(x: te.Tensor, removed: Sequence[int], name: str = "T_squeeze") -> te.Tensor:
    """TOPI ``squeeze`` of the axes ``removed`` (each of extent 1: index 0)."""
    ndim = len(x.shape)
    shape = [d for i, d in enumerate(x.shape) if i not in removed]

    def f(*i):
        it = iter(i)
        return x(*[int64(0) if k in removed else next(it) for k in range(ndim)])

    return te.compute(shape, f, name=name, index_names=axes_names(len(shape)))


def manipulation_op(name: str, params, infer, ref, legalize, doc: str, **kw) -> OpDef:
    """The entry of the manipulation operator ``relax.<name>`` (script name ``R.<name>``)."""
    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=params, infer=infer, reference=ref,
                 legalize=legalize, category="manipulation", doc=doc, **kw)


__all__ = [
    "shape_expr_values", "int64", "tensor_input", "shape_input", "tuple_tensor_fields", "simplify",
    "can_prove", "prove_not_equal", "is_int_dtype", "is_int_or_uint", "as_array", "int_value",
    "runtime_error", "check_result_shape", "copy_out", "legalizable", "tuple_fields",
    "call_te_with_asserts", "ravel_index", "unravel_index", "is_empty", "te_reshape", "axes_names",
    "te_full", "te_gather", "te_squeeze",
    "manipulation_op",
]

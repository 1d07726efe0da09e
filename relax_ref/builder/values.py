"""Struct-info constructors and leaf/compound expression helpers for building Relax from Python.

These mirror the TVMScript spellings (``R.Tensor``, ``R.Shape``, ``R.const``, ``R.shape``, ...) but
take Python objects instead of source text:

* dimensions are ``int`` or scalar expressions (``PrimExpr``); symbolic dimensions are ``PrimVar``s
  made with :func:`sym_var` (or :meth:`BlockBuilder.sym_var`) and shared by identity -- a string
  dimension is rejected, since ``"n"`` would not say *which* ``n`` is meant (SI.TENSOR.1);
* constants follow TVM's ``R.const`` default dtypes: ints -> ``int32``, floats -> ``float32``,
  bools -> ``bool`` (TEXT.EXPR.5).

Nothing here normalizes: the results are raw IR for :class:`~relax_ref.builder.BlockBuilder`.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from ..errors import StructInfoError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import struct_info as si
from ._span import caller_span

Dim = Union[int, P.PrimExpr]


# ---------------------------------------------------------------------------------------------------
# Symbolic variables
# ---------------------------------------------------------------------------------------------------


def sym_var(name: str, dtype: str = "int64") -> P.PrimVar:
    """A fresh symbolic scalar variable (a shape variable when ``dtype`` is ``int64``)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise StructInfoError(f"symbolic variable name must be an identifier, got {name!r}", caller_span())
    return P.PrimVar(name, _dt.check(dtype))


def _dim(d: Any, what: str) -> P.PrimExpr:
    if isinstance(d, bool):
        raise StructInfoError(f"{what}: a dimension must be an integer or a scalar expression, got {d!r}",
                              caller_span())
    if isinstance(d, (int, np.integer)):
        if int(d) < 0:
            raise StructInfoError(f"{what}: a dimension must be non-negative, got {int(d)}", caller_span())
        return P.IntImm(int(d), "int64")
    if isinstance(d, P.PrimExpr):
        if not _dt.is_integer(d.dtype):
            raise StructInfoError(f"{what}: a dimension must have an integer dtype, got {d.dtype} ({d})",
                                  caller_span())
        return d if d.dtype == "int64" else P.cast("int64", d)
    if isinstance(d, str):
        raise StructInfoError(f"{what}: string dimension {d!r}: make a symbolic variable with "
                              f"sym_var({d!r}) and use it", caller_span())
    raise StructInfoError(f"{what}: a dimension must be an integer or a scalar expression, got "
                          f"{type(d).__name__} {d!r}", caller_span())


def _dims(values: Sequence[Any], what: str) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise StructInfoError(f"{what}: expected a list of dimensions, got {values!r}", caller_span())
    return tuple(_dim(d, what) for d in values)


# ---------------------------------------------------------------------------------------------------
# Struct info constructors (SI.*)
# ---------------------------------------------------------------------------------------------------


def Tensor(shape: Union[Sequence[Dim], rx.Var, None] = None, dtype: str = "void", ndim: int = -1,
           vdevice: Optional[si.VDevice] = None) -> si.TensorStructInfo:
    """``R.Tensor(shape, dtype)``; ``shape`` a list of dims, a shape-typed ``Var`` or None (then
    ``ndim`` may give the rank) (SI.TENSOR.1-2)."""
    if isinstance(shape, str):  # R.Tensor("float32") spelling
        shape, dtype = None, shape
    if shape is None or isinstance(shape, rx.Var):
        return si.TensorStructInfo(shape, _dt.check(dtype), ndim, vdevice)
    return si.TensorStructInfo(rx.ShapeExpr(_dims(shape, "Tensor shape")), _dt.check(dtype), ndim, vdevice)


def Shape(values: Optional[Sequence[Dim]] = None, ndim: int = -1) -> si.ShapeStructInfo:
    """``R.Shape([d0, d1, ...])`` or ``R.Shape(ndim=k)`` (SI.SHAPE.1)."""
    if values is None:
        return si.ShapeStructInfo(None, ndim)
    return si.ShapeStructInfo(_dims(values, "Shape values"), ndim)


def Prim(dtype: Optional[str] = None, value: Optional[Dim] = None) -> si.PrimStructInfo:
    """``R.Prim(dtype)`` or ``R.Prim(value=v)`` (SI.PRIM.1)."""
    if value is None:
        if dtype is None:
            raise StructInfoError("Prim needs a dtype or a value", caller_span())
        return si.PrimStructInfo(_dt.check(dtype))
    v = P.IntImm(int(value), "int64") if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
        else value
    if not isinstance(v, P.PrimExpr):
        raise StructInfoError(f"Prim value must be an integer or a scalar expression, got {value!r}", caller_span())
    if dtype is not None and _dt.check(dtype) != v.dtype:
        v = P.cast(_dt.check(dtype), v)
    return si.PrimStructInfo(v.dtype, v)


def Tuple(*fields: si.StructInfo) -> si.TupleStructInfo:
    """``R.Tuple(S1, S2, ...)``; ``Tuple()`` is unit (SI.TUPLE.1)."""
    if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
        fields = tuple(fields[0])
    for f in fields:
        if not isinstance(f, si.StructInfo):
            raise StructInfoError(f"Tuple fields must be struct info, got {f!r}", caller_span())
    return si.TupleStructInfo(tuple(fields))


def Object() -> si.ObjectStructInfo:
    """``R.Object``: any value."""
    return si.ObjectStructInfo()


def Callable(params: Optional[Sequence[si.StructInfo]] = None, ret: Optional[si.StructInfo] = None,
             purity: Optional[bool] = None) -> si.FuncStructInfo:
    """``R.Callable(params, ret, purity)``; ``params=None`` is opaque (SI.FUNC.1-2). Default purity:
    True for a known signature, False for an opaque one (TEXT.SINFO.1)."""
    ret = ret if ret is not None else si.ObjectStructInfo()
    if params is None:
        return si.FuncStructInfo.opaque(ret, purity=bool(purity) if purity is not None else False)
    return si.FuncStructInfo(tuple(params), ret, True if purity is None else bool(purity))


# ---------------------------------------------------------------------------------------------------
# Variables and leaves
# ---------------------------------------------------------------------------------------------------


def var(name: str, struct_info: si.StructInfo) -> rx.Var:
    """A function parameter ``name: struct_info`` (EXPR.VAR.1)."""
    if not isinstance(struct_info, si.StructInfo):
        raise StructInfoError(f"parameter {name}: struct info expected, got {struct_info!r}", caller_span())
    return rx.Var(name_hint=name, struct_info=struct_info, span=caller_span())


def const(value: Any, dtype: Optional[str] = None) -> rx.Constant:
    """``R.const(value, dtype)`` (TEXT.EXPR.5). ``value`` is a number, a nested list or a numpy
    array (an array keeps its dtype unless ``dtype`` is given)."""
    if isinstance(value, np.ndarray):
        arr = value if dtype is None else value.astype(_dt.to_numpy(_dt.check(dtype)))
        _dt.from_numpy(arr.dtype)  # rejects dtypes Relax cannot express
        return rx.Constant(arr, span=caller_span())
    flat = np.asarray(value, dtype=object).ravel().tolist() if isinstance(value, (list, tuple)) else [value]
    if dtype is None:
        if any(isinstance(x, float) for x in flat):
            dtype = "float32"
        elif flat and all(isinstance(x, (bool, np.bool_)) for x in flat):
            dtype = "bool"
        else:
            dtype = "int32"
    dtype = _dt.check(dtype)
    if dtype == "void":
        raise StructInfoError("const needs a concrete dtype", caller_span())
    if _dt.is_integer(dtype) and dtype != "bool":
        for x in flat:
            if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and \
                    not _dt.min_value(dtype) <= int(x) <= _dt.max_value(dtype):
                raise StructInfoError(f"const: {x} is out of range for {dtype}", caller_span())
    try:
        arr = np.array(value, dtype=_dt.to_numpy(dtype))
    except (TypeError, ValueError, OverflowError) as e:
        raise StructInfoError(f"const: cannot build a {dtype} tensor from {value!r} ({e})", caller_span()) from None
    return rx.Constant(arr, span=caller_span())


def shape(values: Sequence[Dim]) -> rx.ShapeExpr:
    """``R.shape([d0, d1, ...])``: a shape value."""
    return rx.ShapeExpr(_dims(values, "shape"), span=caller_span())


def prim_value(value: Union[int, float, P.PrimExpr], dtype: Optional[str] = None) -> rx.PrimValue:
    """``R.prim_value(v)``: ints are ``int64``, floats ``float32`` unless ``dtype`` says otherwise."""
    if isinstance(value, bool):
        v: P.PrimExpr = P.IntImm(int(value), "bool")
    elif isinstance(value, (int, np.integer)):
        v = P.IntImm(int(value), "int64")
    elif isinstance(value, (float, np.floating)):
        v = P.FloatImm(float(value), "float32")
    elif isinstance(value, P.PrimExpr):
        v = value
    else:
        raise StructInfoError(f"prim_value expects a number or a scalar expression, got {value!r}", caller_span())
    if dtype is not None and _dt.check(dtype) != v.dtype:
        v = P.const(value, _dt.check(dtype)) if isinstance(value, (int, float)) else P.cast(_dt.check(dtype), v)
    return rx.PrimValue(v, span=caller_span())


def string(value: str) -> rx.StringImm:
    """``R.str("...")``."""
    if not isinstance(value, str):
        raise StructInfoError(f"string expects a str, got {value!r}", caller_span())
    return rx.StringImm(value, span=caller_span())


def dtype(value: str) -> rx.DataTypeImm:
    """``R.dtype("float32")``."""
    return rx.DataTypeImm(_dt.check(value), span=caller_span())


def tuple_(*fields: rx.Expr) -> rx.Tuple:
    """``R.tuple(a, b, ...)`` (``tuple_()`` is unit)."""
    if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
        fields = tuple(fields[0])
    for f in fields:
        if not isinstance(f, rx.Expr):
            raise StructInfoError(f"tuple fields must be Relax expressions, got {f!r}", caller_span())
    return rx.Tuple(tuple(fields), span=caller_span())


def get_item(tup: rx.Expr, index: int) -> rx.TupleGetItem:
    """``tup[index]``."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise StructInfoError(f"tuple index must be an int, got {index!r}", caller_span())
    return rx.TupleGetItem(tup, index, span=caller_span())


def extern(name: str) -> rx.ExternFunc:
    """``R.ExternFunc(name)``: a packed function looked up by name (EXPR.EXTERN.1)."""
    return rx.ExternFunc(name, span=caller_span())


def call_packed(func: Union[str, rx.ExternFunc], *args: rx.Expr,
                sinfo_args: Union[si.StructInfo, Sequence[si.StructInfo], None] = None) -> rx.Call:
    """``R.call_packed(name, *args, sinfo_args=...)`` (impure; CALL.PACKED.2)."""
    callee = rx.ExternFunc(func) if isinstance(func, str) else func
    if not isinstance(callee, rx.ExternFunc):
        raise StructInfoError(f"call_packed expects a function name, got {func!r}", caller_span())
    items = () if sinfo_args is None else (sinfo_args,) if isinstance(sinfo_args, si.StructInfo) \
        else tuple(sinfo_args)
    return rx.Call(callee, tuple(args), sinfo_args=items, span=caller_span())


def call(func: rx.Expr, *args: rx.Expr) -> rx.Call:
    """A call of a function-valued expression (a ``GlobalVar`` of the module, a closure ...)."""
    return rx.Call(func, tuple(args), span=caller_span())


def if_(cond: rx.Expr, true_branch: rx.Expr, false_branch: rx.Expr) -> rx.If:
    """``If(cond, then, else)``: the branches are expressions (or SeqExprs); the builder normalizes
    them into SeqExprs (EXPR.IF.1)."""
    return rx.If(cond, _seq(true_branch), _seq(false_branch), span=caller_span())


def _seq(e: rx.Expr) -> rx.SeqExpr:
    return e if isinstance(e, rx.SeqExpr) else rx.SeqExpr((), e)


__all__ = [
    "sym_var", "Tensor", "Shape", "Prim", "Tuple", "Object", "Callable", "var", "const", "shape", "prim_value",
    "string", "dtype", "tuple_", "get_item", "extern", "call_packed", "call", "if_",
]

"""Struct info of module-level functions, i.e. of the GlobalVars naming them (NORM.GLOBAL.*).

* Relax ``Function``: ``R.Callable(param struct infos, ret_struct_info, is_pure)`` (NORM.GLOBAL.1).
* ``PrimFunc``: each buffer parameter becomes ``R.Tensor(buffer shape cast to int64, dtype)``, each
  scalar parameter ``R.Prim(dtype)`` (a bare ``T.handle`` without buffer: ``R.Object``); the return
  is ``R.Tuple()`` (void ``ret_type``), ``R.Prim(dtype)`` or ``R.Object``; purity is TVM's
  ``IsPureFunction`` -- false for any kernel writing to its parameters (NORM.GLOBAL.2).
* ``ExternFunc``: opaque, impure, derived by ``infer_by_sinfo_args`` (NORM.GLOBAL.3).
"""

from __future__ import annotations

from typing import Optional

from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir import tir
from ..ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)
from .tir_purity import prim_func_is_pure

INFER_BY_SINFO_ARGS = "tvm.relax.struct_info.infer_by_sinfo_args"


def extern_func_struct_info() -> FuncStructInfo:
    """Default struct info of an ``ExternFunc`` (NORM.GLOBAL.3)."""
    return FuncStructInfo.opaque(ObjectStructInfo(), purity=False, derive_func=INFER_BY_SINFO_ARGS)


def _int64(e: P.PrimExpr) -> P.PrimExpr:
    if e.dtype == "int64":
        return e
    return P.cast("int64", e)


def prim_func_struct_info(func: tir.PrimFunc) -> FuncStructInfo:
    """The GlobalVar struct info of a PrimFunc (NORM.GLOBAL.2)."""
    params = []
    for p in func.params:
        buf = func.buffer_of(p)
        if buf is not None:
            params.append(TensorStructInfo(rx.ShapeExpr(tuple(_int64(d) for d in buf.shape)), buf.dtype))
        elif p.dtype == "handle":
            params.append(ObjectStructInfo())
        else:
            params.append(PrimStructInfo(p.dtype))
    rt = func.ret_type
    if rt in (None, "void", ""):
        ret: StructInfo = TupleStructInfo(())
    elif rt == "handle" or not isinstance(rt, str):
        ret = ObjectStructInfo()
    else:
        ret = PrimStructInfo(rt)
    return FuncStructInfo(tuple(params), ret, prim_func_is_pure(func))


def function_struct_info(func: rx.Function, ret: Optional[StructInfo] = None) -> FuncStructInfo:
    """``R.Callable(params, ret, is_pure)`` of a Relax function; ``ret`` overrides the declared
    return (``R.Object`` when neither is known) (NORM.GLOBAL.1)."""
    r = ret if ret is not None else func.ret_struct_info
    return FuncStructInfo(
        tuple(p.struct_info if p.struct_info is not None else ObjectStructInfo() for p in func.params),
        r if r is not None else ObjectStructInfo(), func.is_pure)


def global_struct_info(func) -> StructInfo:
    """Struct info of the GlobalVar bound to ``func`` in a module (NORM.GLOBAL.1-3)."""
    if isinstance(func, rx.Function):
        return function_struct_info(func)
    if isinstance(func, tir.PrimFunc):
        return prim_func_struct_info(func)
    if isinstance(func, rx.ExternFunc):
        return func.struct_info if func.struct_info is not None else extern_func_struct_info()
    raise TypeError(f"not a module function: {func!r}")


__all__ = [
    "INFER_BY_SINFO_ARGS", "extern_func_struct_info", "prim_func_struct_info", "function_struct_info",
    "global_struct_info",
]

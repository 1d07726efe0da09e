"""Data type operators: ``astype`` and ``wrap_param`` (spec pages ``spec/ops/astype.md``,
``spec/ops/wrap_param.md``).

Both keep the input's shape (expression or variable), rank and vdevice and change the dtype
(OP.astype.C1, OP.wrap_param.C1, TVM's ``InferStructInfoAstype`` / ``InferStructInfoWrapParam``).
Every element is converted with TIR's ``Cast`` (PRIM.CAST.1-2): integers wrap, anything to bool is
``!= 0``, float to integer truncates (out-of-range values as TVM's x86-64 code, chapter PRIM).

``astype`` legalizes as TVM does: a 0-d constant operand folds into a constant, anything else becomes
TOPI's ``T_cast`` kernel. ``wrap_param`` (a marker used by mixed-precision rewriting) has no
legalization in TVM 0.25; relax-ref legalizes it to the same cast kernel (its meaning is the cast).
"""

from __future__ import annotations

from typing import Any, List

import numpy as np

from ..ir import expr as rx
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te
from . import te_ops
from .opdef import OpDef, arg, attr
from .statistical import dtype_of, known_shapes, tir_cast


def infer_astype(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.astype.C1: one tensor; its struct info with the new ``dtype``."""
    x = common.tensor_args(call, 1, ctx)[0]
    dt = call.attrs.get("dtype") or "void"
    if dt == x.dtype:
        return x
    return TensorStructInfo(x.shape, dt, x.ndim if x.shape is None else -1, x.vdevice)


def _ref_cast(args, attrs, call, ctx):
    x = args[0]
    return tir_cast(x, dtype_of(x), attrs.get("dtype") or dtype_of(x))


def te_cast(x: te.Tensor, dtype: str) -> te.Tensor:
    """TOPI's ``cast``: ``T_cast[i] = cast(dtype, x[i])`` (a copy for the same dtype)."""
    return te.compute(x.shape, lambda *i: te_ops.cast(dtype, x(*i)), name="T_cast",
                      index_names=[f"ax{k}" for k in range(len(x.shape))])


def _make_legalize(name: str):
    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        dt = call.struct_info.dtype
        a = call.args[0]
        if name == "astype" and isinstance(a, rx.Constant) and a.data.ndim == 0:
            return rx.Constant(tir_cast(np.asarray(a.data), a.dtype, dt), span=call.span)
        return ctx.call_te(lambda x: te_cast(x, dt), a, primfunc_name_hint="cast")
    return legalize


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    OPS.append(OpDef(name="relax.astype", script="R.astype", params=(arg("x"), attr("dtype", "dtype")),
                   infer=infer_astype, reference=_ref_cast, legalize=_make_legalize("astype"), category="datatype",
                   doc="``R.astype(x, dtype)``: elementwise conversion with TIR's Cast (OP.astype.C1)."))
    OPS.append(OpDef(name="relax.wrap_param", script="R.wrap_param",
                   params=(arg("data"), attr("dtype", "dtype", "float32")),
                   infer=infer_astype, reference=_ref_cast, legalize=_make_legalize("wrap_param"),
                   category="datatype", notes="TVM 0.25 has no legalization; relax-ref legalizes it as a cast",
                   doc="``R.wrap_param(data, dtype='float32')``: a parameter converted to ``dtype`` "
                       "(OP.wrap_param.C1)."))


_define_all()

__all__ = ["infer_astype", "te_cast"]

"""Helpers of the elementwise operators (:mod:`relax_ref.ops.elementwise`): numpy evaluation with TVM's
kernel semantics (16-bit floats through float32, the shared TIR intrinsics, ``a > b ? a : b``) and the
broadcast TE stages of the legalizations.
"""

from __future__ import annotations

from typing import Any, Callable, List, Sequence

import numpy as np

from ..arith import lookup_intrinsic
from ..errors import UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import PrimStructInfo, TensorStructInfo
from ..values import PrimScalar
from . import common
from . import te
from . import te_ops


F32 = np.dtype("float32")


def np_dtype(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def dtype_of(a: Any) -> str:
    if isinstance(a, PrimScalar):
        return a.dtype
    return _dt.from_numpy(a.dtype)


def as_array(a: Any) -> np.ndarray:
    """A tensor operand, or a prim operand as a shape-``[1]`` array (NORM.OP.BCAST.3)."""
    if isinstance(a, PrimScalar):
        return np.array([a.value], dtype=np_dtype(a.dtype))
    return np.asarray(a)


def matched_dtype(da: str, db: str) -> str:
    """The dtype TIR's type matching computes ``a op b`` in (TIR.TE.OPS.2)."""
    a, b = te_ops.match_types(P.PrimVar("a", da), P.PrimVar("b", db))
    return a.dtype


def low_precision(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def fcompute(dtype: str, fn: Callable[..., np.ndarray], *xs: np.ndarray) -> np.ndarray:
    """Apply a float function as TVM's CPU kernels do: 16-bit floats through float32, rounded back."""
    with np.errstate(all="ignore"):
        if low_precision(dtype):
            out = fn(*[np.asarray(x).astype(F32) for x in xs])
        else:
            out = fn(*[np.asarray(x) for x in xs])
        return np.asarray(out).astype(np_dtype(dtype))


def np_intrinsic(name: str, dtype: str, *xs: np.ndarray) -> np.ndarray:
    """A TIR intrinsic applied elementwise, with the shared scalar semantics of chapter PRIM
    (:data:`relax_ref.arith.INTRINSICS`): the same function the TensorIR interpreter evaluates for
    ``T.<name>`` in a legalized kernel."""
    with np.errstate(all="ignore"):
        return np.asarray(lookup_intrinsic(f"tir.{name}")(dtype, *xs)).astype(np_dtype(dtype))


def tvm_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """OP.ELEMWISE.SEM.2: ``a > b ? a : b``."""
    return np.where(a > b, a, b)


def tvm_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a < b, a, b)


def np_const(value, dtype: str) -> np.ndarray:
    """A scalar constant of ``dtype`` (as ``tir.const``)."""
    return np.array(value, dtype=np_dtype(dtype))


def unsupported(call: rx.Call, what: str) -> UnsupportedError:
    return UnsupportedError(f"{common.op_name(call)}: {what} (TVM 0.25 has no kernel for it)", call.span)


def inferred_dtype(call: rx.Call, fallback: str) -> str:
    s = call.struct_info
    if isinstance(s, (TensorStructInfo, PrimStructInfo)) and s.dtype != "void":
        return s.dtype
    return fallback


def finish(call: rx.Call, out: np.ndarray, operands: Sequence[Any], dtype: str):
    """Return a PrimScalar for two prim operands, else the array converted to ``dtype``."""
    if all(isinstance(o, PrimScalar) for o in operands):
        v = np.asarray(out).astype(np_dtype(dtype)).reshape(-1)[0]
        return PrimScalar(v.item(), dtype)
    return np.asarray(out).astype(np_dtype(dtype))


def shapes_known(call: rx.Call) -> bool:
    """Legalizable: every tensor argument and the result have a ShapeExpr shape and known dtype."""
    for a in list(call.args) + [call]:
        s = a.struct_info
        if isinstance(s, TensorStructInfo):
            if s.shape_values is None or s.dtype == "void" or not isinstance(s.shape, rx.ShapeExpr):
                return False
        elif isinstance(s, PrimStructInfo):
            if s.dtype == "void":
                return False
        else:
            return False
    return True


def result_shape(call: rx.Call) -> List[P.PrimExpr]:
    return list(call.struct_info.shape.values)


def try_scalar_const(e: rx.Expr) -> Any:
    """TVM's ``_try_convert_to_scalar_const``: a 0-d Constant becomes its value as an IntImm/FloatImm
    of the constant's dtype; anything else is returned unchanged."""
    if isinstance(e, rx.Constant) and e.data.ndim == 0:
        dtype = e.dtype
        v = e.data.reshape(-1)[0].item()
        if _dt.is_float(dtype):
            return P.FloatImm(float(v), dtype)
        return P.IntImm(int(v), dtype)
    return e


def _elem(x: Any, out_idx: Sequence[P.PrimVar], out_shape: Sequence[P.PrimExpr]) -> P.PrimExpr:
    """Read a broadcast operand at the output index (TOPI's rule: index 0 where the operand's dim is
    a literal 1 and the output's is not)."""
    if not isinstance(x, te.Tensor):
        return te_ops.as_expr(x)
    off = len(out_shape) - x.ndim
    idx = []
    for d, dim in enumerate(x.shape):
        od = out_shape[off + d]
        if isinstance(dim, P.IntImm) and dim.value == 1 and not (isinstance(od, P.IntImm) and od.value == 1):
            idx.append(P.IntImm(0, "int64"))
        else:
            idx.append(out_idx[off + d])
    return x(*idx)


def broadcast_compute(fn: Callable[..., P.PrimExpr], operands: Sequence[Any], out_shape: Sequence[P.PrimExpr],
                      out_dtype: str, name: str) -> te.Tensor:
    """A ``T_<op>`` stage over ``out_shape`` (axes ``ax0, ax1, ...``) applying ``fn`` to the
    broadcast operands (te tensors or scalars); the result is cast to ``out_dtype`` if needed."""
    def body(*idx):
        v = fn(*[_elem(o, idx, out_shape) for o in operands])
        return v if v.dtype == out_dtype else te_ops.cast(out_dtype, v)

    return te.compute(out_shape, body, name=name, index_names=[f"ax{i}" for i in range(len(out_shape))])


def elemwise_compute(fn: Callable[[P.PrimExpr], P.PrimExpr], x: te.Tensor, name: str = "compute",
                      ax: bool = False) -> te.Tensor:
    names = [f"ax{i}" if ax else f"i{i}" for i in range(x.ndim)]
    return te.compute(x.shape, lambda *i: fn(x(*i)), name=name, index_names=names)

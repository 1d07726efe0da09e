"""The binary elementwise operators (arithmetic, comparison, logic, shifts), ``where`` and ``ewise_fma``
(entries listed in :data:`relax_ref.ops.elementwise.OPS`; semantics OP.ELEMWISE.SEM.* in that module's
docstring and on the operators' spec pages).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from ..errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te
from . import te_ops
from .args import OpArgs
from .checks import check_broadcast, no_kernel
from .elementwise_util import (
    F32, as_array, broadcast_compute, dtype_of, fcompute, finish, inferred_dtype, matched_dtype, np_dtype, np_intrinsic,
    result_shape, shapes_known, try_scalar_const, tvm_max, tvm_min, unsupported,
)
from .opdef import OpDef, arg
from .precision import float32_once


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) == (b < 0), q, -q)


#: float binary operators whose formula has several stages (OP.ELEMWISE.SEM.7); on bfloat16 each is its
#: float32 formula rounded once (OP.SEM.7)
MULTI_STAGE = ("floor_divide", "floor_mod", "log_add_exp")


def _ref_binary(name: str, a: np.ndarray, b: np.ndarray, dt: str, call) -> np.ndarray:
    """``a op b`` in the matched dtype ``dt`` (both operands already converted)."""
    if name in MULTI_STAGE and _dt.float32_intermediates(dt):
        return _ref_binary(name, a.astype(F32), b.astype(F32), "float32", call).astype(a.dtype)
    if dt == "bool" and name in _BOOL_AS_INT:
        out = _ref_binary(name, a.astype(np.int64), b.astype(np.int64), "int64", call)
        return out != 0
    isf = _dt.is_float(dt)
    with np.errstate(all="ignore"):
        if name == "add":
            return fcompute(dt, np.add, a, b)
        if name == "subtract":
            return fcompute(dt, np.subtract, a, b)
        if name == "multiply":
            return fcompute(dt, np.multiply, a, b)
        if name == "divide":
            if isf:
                return fcompute(dt, np.divide, a, b)
            return _trunc_div(a, b).astype(a.dtype)
        if name == "floor_divide":
            if isf:
                return np.floor(fcompute(dt, np.divide, a, b))
            return np.floor_divide(a, b)
        if name == "mod":
            if isf:
                return np_intrinsic("fmod", dt, a, b)
            return np.fmod(a, b)
        if name == "floor_mod":
            if isf:
                q = np.floor(fcompute(dt, np.divide, a, b))
                return fcompute(dt, np.subtract, a, fcompute(dt, np.multiply, q, b))
            return np.mod(a, b)
        if name == "power":
            return np_intrinsic("pow", dt, a, b)
        if name == "maximum":
            return tvm_max(a, b)
        if name == "minimum":
            return tvm_min(a, b)
        if name == "atan2":
            return np_intrinsic("atan2", dt, a, b)
        if name == "log_add_exp":
            return np_intrinsic("log", dt, fcompute(dt, np.add, np_intrinsic("exp", dt, a), np_intrinsic("exp", dt, b)))
        if name == "bitwise_and":
            return np.bitwise_and(a, b)
        if name == "bitwise_or":
            return np.bitwise_or(a, b)
        if name in ("bitwise_xor", "logical_xor"):
            return np.bitwise_xor(a, b)
        if name == "logical_and":
            return np.logical_and(a, b)
        if name == "logical_or":
            return np.logical_or(a, b)
        if name == "left_shift":
            return np.left_shift(a, b)
        if name == "right_shift":
            return np.right_shift(a, b)
        if name == "equal":
            return np.equal(a, b)
        if name == "not_equal":
            if isf:  # OP.ELEMWISE.SEM.5: an ordered comparison, as TVM's kernel (fcmp one)
                return np.not_equal(a, b) & ~np.isnan(a) & ~np.isnan(b)
            return np.not_equal(a, b)
        if name == "less":
            return np.less(a, b)
        if name == "less_equal":
            return np.less_equal(a, b)
        if name == "greater":
            return np.greater(a, b)
        if name == "greater_equal":
            return np.greater_equal(a, b)
    raise KeyError(name)


#: binary ops: (TE scalar function, kind) where kind is "arith" | "cmp"
_BINARY: Dict[str, Tuple[Callable[[P.PrimExpr, P.PrimExpr], P.PrimExpr], str, str]] = {
    "add": (te_ops.add, "arith", "a + b"),
    "subtract": (te_ops.sub, "arith", "a - b"),
    "multiply": (te_ops.mul, "arith", "a * b"),
    "divide": (te_ops.div, "arith", "a / b (truncating on integers)"),
    "floor_divide": (None, "arith", "floor(a / b)"),
    "mod": (te_ops.truncmod, "arith", "truncated remainder (sign of a)"),
    "floor_mod": (None, "arith", "floored remainder (sign of b)"),
    "power": (te_ops.power, "arith", "a ** b (floats)"),
    "maximum": (te_ops.max_, "arith", "a > b ? a : b"),
    "minimum": (te_ops.min_, "arith", "a < b ? a : b"),
    "atan2": (te_ops.atan2, "arith", "atan2(a, b) (floats)"),
    "log_add_exp": (None, "arith", "log(exp(a) + exp(b)) (floats)"),
    "bitwise_and": (te_ops.bitwise_and, "arith", "a & b (integers, bool)"),
    "bitwise_or": (te_ops.bitwise_or, "arith", "a | b (integers, bool)"),
    "bitwise_xor": (te_ops.bitwise_xor, "arith", "a ^ b (integers, bool)"),
    "logical_and": (te_ops.logical_and, "arith", "a && b (bool)"),
    "logical_or": (te_ops.logical_or, "arith", "a || b (bool)"),
    "logical_xor": (te_ops.bitwise_xor, "arith", "a ^ b (bool, integers)"),
    "left_shift": (te_ops.shift_left, "arith", "a << b (integers)"),
    "right_shift": (te_ops.shift_right, "arith", "a >> b (integers)"),
    "equal": (te_ops.eq, "cmp", "a == b"),
    "not_equal": (te_ops.ne, "cmp", "a != b"),
    "less": (te_ops.lt, "cmp", "a < b"),
    "less_equal": (te_ops.le, "cmp", "a <= b"),
    "greater": (te_ops.gt, "cmp", "a > b"),
    "greater_equal": (te_ops.ge, "cmp", "a >= b"),
}


def _te_floor_divide(a, b):
    """TOPI's floor_divide: ``floor(a / b)`` on floats, ``floordiv`` on integers, ``a / b`` otherwise
    (bool)."""
    a, b = te_ops.match_types(te_ops.as_expr(a), te_ops.as_expr(b))
    if _dt.is_float(a.dtype):
        return te.call("floor", te_ops.div(a, b))
    if _dt.is_integer(a.dtype):
        return te_ops.floordiv(a, b)
    return te_ops.div(a, b)


def _te_floor_mod(a, b):
    """TOPI's floor_mod: ``a - floor(a / b) * b`` on floats, ``floormod`` on integers,
    ``a - a / b * b`` otherwise (bool)."""
    a, b = te_ops.match_types(te_ops.as_expr(a), te_ops.as_expr(b))
    if _dt.is_float(a.dtype):
        return te_ops.sub(a, te_ops.mul(te.call("floor", te_ops.div(a, b)), b))
    if _dt.is_integer(a.dtype):
        return te_ops.floormod(a, b)
    return te_ops.sub(a, te_ops.mul(te_ops.div(a, b), b))


def _te_log_add_exp(a, b):
    a, b = te_ops.match_types(a, b)
    if not _dt.is_float(a.dtype):
        raise UnsupportedError(f"log_add_exp requires float operands, got {a.dtype}")
    return te.log(te_ops.add(te.exp(a), te.exp(b)))


def _te_atan2(a, b):
    a, b = te_ops.match_types(a, b)
    if not _dt.is_float(a.dtype):
        raise UnsupportedError(f"atan2 requires float operands, got {a.dtype}")
    return te_ops.atan2(a, b)


_TE_SPECIAL = {"floor_divide": _te_floor_divide, "floor_mod": _te_floor_mod,
               "log_add_exp": _te_log_add_exp, "atan2": _te_atan2}


def _binary_no_kernel(name: str, dt: str) -> Optional[str]:
    """What TVM's legalization has no kernel for, at the matched dtype (OP.ELEMWISE.DIV.3), or None."""
    isf = _dt.is_float(dt)
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor") and isf:
        return f"{name} of {dt} operands"
    if name in ("left_shift", "right_shift") and (isf or dt == "bool"):
        return f"{name} of {dt} operands"
    if name in ("logical_and", "logical_or") and dt != "bool":
        return f"{name} of {dt} operands (only bool)"
    if name in ("power", "log_add_exp", "atan2") and not isf:
        return f"{name} of {dt} operands (only floats)"
    return None


def _operand(args: OpArgs, i: int, dt: str) -> Any:
    """Operand ``i`` converted to the matched dtype ``dt`` (a prim value as a shape-``[1]`` array)."""
    xp = args.xp
    v = xp.asarray(args.data(i), dtype=np_dtype(args.dtype(i)))
    return xp.reshape(v, (1,)).astype(np_dtype(dt)) if args.kind(i) == "prim" else v.astype(np_dtype(dt))


def _make_check_binary(name: str):
    """OP.<op>.C2 at run time: a TVM kernel for the matched dtype; operands that broadcast; for the
    integer divisions a non-zero divisor and no ``INT_MIN / -1``; shift amounts in ``[0, bits)``
    (OP.ELEMWISE.SEM.1-6)."""

    def check(args: OpArgs) -> None:
        dt = matched_dtype(args.dtype(0), args.dtype(1))
        why = _binary_no_kernel(name, dt)
        if why is not None:
            raise no_kernel(args, why)
        region = check_broadcast(args, (0, 1))
        op = args.op_name
        if name in _DIVISIONS and not _dt.is_float(dt):
            cdt = "int64" if dt == "bool" else dt
            a, b = _operand(args, 0, dt).astype(np_dtype(cdt)), _operand(args, 1, dt).astype(np_dtype(cdt))
            args.fail_if(b == 0, lambda: DivisionByZeroError(f"{op}: integer division by zero"), region=region)
            if _dt.is_int(cdt):
                lo = _dt.min_value(cdt)
                bad = (a == args.xp.asarray(lo, dtype=np_dtype(cdt))) & (b == -1)
                args.fail_if(bad, lambda: OpRuntimeError(f"{op}: integer division overflow ({lo} / -1)"),
                             region=region)
        if name in ("left_shift", "right_shift"):
            b, bits = _operand(args, 1, dt), _dt.bits(dt)
            args.fail_if((b < 0) | (b >= bits), lambda: OpRuntimeError(
                f"{op}: shift amount out of range [0, {bits}) for {dt}"), region=region)
    return check


_DIVISIONS = ("divide", "floor_divide", "mod", "floor_mod")


#: ops computed on bool operands as integer arithmetic on 0/1 with a ``!= 0`` result
_BOOL_AS_INT = {"add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "maximum",
                "minimum"}


def binary_op(name: str) -> OpDef:
    te_fn, kind, doc = _BINARY[name]
    te_fn = _TE_SPECIAL.get(name, te_fn)

    def infer(call, ctx):
        return common.infer_binary_broadcast(call, ctx, out_dtype="bool" if kind == "cmp" else None)

    def reference(args, attrs, call, ctx):
        a, b = args
        da, db = dtype_of(a), dtype_of(b)
        dt = matched_dtype(da, db)
        xa, xb = as_array(a).astype(np_dtype(dt)), as_array(b).astype(np_dtype(dt))
        out = _ref_binary(name, xa, xb, dt, call)
        out_dt = "bool" if kind == "cmp" else inferred_dtype(call, da)
        return finish(call, out, args, out_dt)

    def legalize(call, ctx):
        if not shapes_known(call) or not isinstance(call.struct_info, TensorStructInfo):
            return None
        a0, a1 = call.args
        a1 = try_scalar_const(a1)
        if isinstance(a1, rx.Expr):
            a0 = try_scalar_const(a0)
        dt = matched_dtype(_arg_dtype(a0), _arg_dtype(a1))
        why = _binary_no_kernel(name, dt)
        if why is not None:
            raise unsupported(call, why)
        out_dtype = call.struct_info.dtype

        def te_binary(x, y, out_shape):
            return broadcast_compute(te_fn, [x, y], out_shape, out_dtype, f"T_{name}")

        return ctx.call_te(te_binary, a0, a1, result_shape(call), primfunc_name_hint=name)

    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x1"), arg("x2")), infer=infer,
                 check=_make_check_binary(name), reference=reference, legalize=legalize, category="elementwise",
                 doc=f"``R.{name}(x1, x2)``: {doc}, with numpy-style broadcasting (OP.{name}.C1).")


def _arg_dtype(a: Any) -> str:
    if isinstance(a, P.PrimExpr):
        return a.dtype
    return a.struct_info.dtype


def _where_infer(call, ctx):
    """OP.where.C1 (TVM's ``InferStructInfoWhere``): three tensors; ``condition`` must be bool;
    ``x1``/``x2`` follow the binary dtype rule; three-way broadcasting of ShapeExpr shapes."""
    cond, x1, x2 = common.tensor_args(call, 3, ctx, ("condition", "x1", "x2"))
    vdev = common.common_vdevice([cond, x1, x2])
    if cond.dtype != "bool":
        raise common.error(call, "where requires the input condition tensor to have boolean dtype. However, "
                                 f"the given condition dtype is {cond.dtype}", ctx)
    dtype = common.binary_arith_dtype(call, x1, x2, ctx)
    ndim = -1 if -1 in (cond.ndim, x1.ndim, x2.ndim) else max(cond.ndim, x1.ndim, x2.ndim)
    shapes = [s.shape for s in (cond, x1, x2)]
    if all(isinstance(s, rx.ShapeExpr) for s in shapes):
        b = common.broadcast_shapes_or_error(call, ctx, shapes[1].values, shapes[2].values)
        if b is not None:
            b = common.broadcast_shapes_or_error(call, ctx, shapes[0].values, b)
        if b is None:
            return TensorStructInfo(None, dtype, ndim, vdev)
        return TensorStructInfo(rx.ShapeExpr(b), dtype, vdevice=vdev)
    if shapes[0] is not None and shapes[0] is shapes[1] and shapes[0] is shapes[2]:
        return TensorStructInfo(shapes[0], dtype, vdevice=vdev)
    return TensorStructInfo(None, dtype, ndim, vdev)


def _check_where(args: OpArgs) -> None:
    """OP.where.C2: the three operands broadcast together."""
    check_broadcast(args, (0, 1, 2))


def _where_reference(args, attrs, call, ctx):
    cond, x1, x2 = args
    dt = matched_dtype(dtype_of(x1), dtype_of(x2))
    a, b = np.asarray(x1).astype(np_dtype(dt)), np.asarray(x2).astype(np_dtype(dt))
    out = np.where(cond, a, b)
    return out.astype(np_dtype(inferred_dtype(call, dtype_of(x1))))


def _where_legalize(call, ctx):
    if not shapes_known(call):
        return None
    out_dtype = call.struct_info.dtype

    def te_where(c, x, y, out_shape):
        def f(cv, xv, yv):
            # TVM's simplified form of ``condition != 0`` for a bool condition
            test = P.LT(P.IntImm(0, "int32"), te_ops.cast("int32", cv)) if cv.dtype == "bool" \
                else te_ops.ne(cv, te_ops.const(0, cv.dtype))
            return te_ops.select(test, xv, yv)
        return broadcast_compute(f, [c, x, y], out_shape, out_dtype, "T_where")

    return ctx.call_te(te_where, call.args[0], call.args[1], call.args[2], result_shape(call),
                       primfunc_name_hint="where")


def _fma_infer(call, ctx):
    """OP.ewise_fma.C1: three tensors of equal rank, dtype and (provably) shape."""
    ts = common.tensor_args(call, 3, ctx, ("x1", "x2", "x3"))
    ndim = -1
    for t in ts:
        if t.ndim != -1:
            if ndim == -1:
                ndim = t.ndim
            elif t.ndim != ndim:
                raise common.error(call, "the 3 arguments of EwiseFMA must have the same number of dimensions", ctx)
    if any(t.dtype == "void" for t in ts):
        dtype = "void"
    elif len({t.dtype for t in ts}) > 1:
        raise common.error(call, f"data types {ts[0].dtype}, {ts[1].dtype}, and {ts[2].dtype} must be equal "
                                 "for EwiseFMA", ctx)
    else:
        dtype = ts[0].dtype
    vdev = common.common_vdevice(ts)
    shapes = [t.shape for t in ts]
    if all(isinstance(s, rx.ShapeExpr) for s in shapes):
        out = []
        for d1, d2, d3 in zip(*(s.values for s in shapes)):
            if common.prove_equal(ctx, d1, d2) and common.prove_equal(ctx, d2, d3):
                out.append(d1)
            else:
                raise common.error(call, "the 3 arguments of EwiseFMA must have the same shape", ctx)
        return TensorStructInfo(rx.ShapeExpr(tuple(out)), dtype, vdevice=vdev)
    if shapes[0] is not None and shapes[0] is shapes[1] and shapes[0] is shapes[2]:
        return TensorStructInfo(shapes[0], dtype, vdevice=vdev)
    return TensorStructInfo(None, dtype, ndim, vdev)


def _check_fma(args: OpArgs) -> None:
    """OP.ewise_fma.C2: the three operands have one shape."""
    shapes = [args.shape(i) for i in range(3)]

    def differ() -> OpRuntimeError:
        return OpRuntimeError("relax.ewise_fma: operand shapes " + ", ".join(args.size_text(s) for s in shapes)
                              + " differ")

    if len({len(s) for s in shapes}) > 1:
        raise differ().with_span(args.span)
    xp = args.xp
    for a, b, c in zip(*shapes):
        if all(args.is_static(n) for n in (a, b, c)):
            if not a == b == c:
                raise differ().with_span(args.span)
        else:
            args.fail_if((xp.asarray(a) != xp.asarray(b)) | (xp.asarray(b) != xp.asarray(c)), differ)


@float32_once
def _fma_reference(args, attrs, call, ctx):
    x1, x2, x3 = args
    dt = dtype_of(x1)
    if dt == "bool":
        return (x1.astype(np.int64) * x2.astype(np.int64) + x3.astype(np.int64)) != 0
    if _dt.is_float(dt):
        return fcompute(dt, np.add, fcompute(dt, np.multiply, x1, x2), x3)
    with np.errstate(all="ignore"):
        return (x1 * x2 + x3).astype(x1.dtype)


BINARY_OPS = tuple(sorted(_BINARY))

WHERE = OpDef(name="relax.where", script="R.where", params=(arg("condition"), arg("x1"), arg("x2")),
              infer=_where_infer, check=_check_where, reference=_where_reference, legalize=_where_legalize,
              category="elementwise",
              doc="``R.where(condition, x1, x2)``: x1 where condition else x2, broadcasting all "
                  "three (OP.where.C1).")
EWISE_FMA = OpDef(name="relax.ewise_fma", script="R.ewise_fma", params=(arg("x1"), arg("x2"), arg("x3")),
                  infer=_fma_infer, check=_check_fma, reference=_fma_reference, category="elementwise",
                  legalize_exempt="TVM 0.25 registers no legalization for relax.ewise_fma",
                  doc="``R.ewise_fma(x1, x2, x3)``: x1 * x2 + x3 on equal shapes (OP.ewise_fma.C1).")

__all__ = ["BINARY_OPS", "binary_op", "WHERE", "EWISE_FMA"]

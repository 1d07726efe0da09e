"""Creation operators: ``full full_like zeros zeros_like ones ones_like arange tril triu eye eye_like
hamming_window`` (spec pages ``spec/ops/<op>.md``).

Inference follows TVM 0.25 (``src/relax/op/tensor/create.cc``) with the divergences below; values
follow TVM's TOPI kernels evaluated with TIR semantics (OP.CREATE.SEM.*):

1. ``full``/``full_like``/``ones``/``zeros`` (and ``_like``) convert the fill value to the output
   dtype with TIR's ``Cast`` (``full(.., 2.7, "int32")`` is 2).
2. ``arange(start, end, step)``: element ``i`` is ``cast(dtype, start + step * i)`` computed with TIR's
   type matching (an integer index next to a float step is converted to the float type). The length
   is TVM's inferred length: ``(end - start + step - 1) // step`` for integer arguments,
   ``int64(ceil(float32(end - start) / step))`` otherwise. Divergences (OP.CREATE.DIV.1): for a negative
   integer constant step relax-ref infers ``(end - start + step + 1) // step`` (TVM 0.25's formula
   counts one or two elements too many), a constant negative length is 0, and a zero step is a
   StructInfoError. A static ``arange`` is legalized to a constant, as TVM's LegalizeOps does; TVM
   computes it with numpy, which differs from these values for a float range with an integer dtype.
3. ``tril``/``triu`` keep ``x[.., r, c]`` where ``r >= c - k`` (``r <= c - k``) and write 0 elsewhere;
   ``k`` is converted to int32 first (TOPI).
4. ``eye``/``eye_like``: 1 where ``i == j - k``, else 0. ``eye_like`` uses ``dtype`` when given (TVM's
   kernel ignores it and returns ``x``'s dtype: DIV.23).
5. ``hamming_window(N, periodic, alpha, beta)``: ``[1]`` for ``N == 1``; otherwise element ``i`` of
   ``alpha - beta * cos(2 pi i / (M - 1))`` with ``M = N + 1`` when ``periodic`` else ``N``, each
   operation rounded in ``dtype`` as TOPI's kernel computes it.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence

import numpy as np

from ..errors import OpRuntimeError, ParseError
from ..values import PrimScalar
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.attrs import Attrs
from ..ir.struct_info import PrimStructInfo, ShapeStructInfo, TensorStructInfo
from . import common
from . import te
from . import te_ops
from . import manipulate_util
from .args import OpArgs
from .opdef import OpDef, arg, attr, convert_attr
from .statistical import dtype_of, known_shapes, np_dtype, tir_cast

# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


def _prim_of(v: Any) -> Any:
    """A PrimScalar's value as a numpy scalar of its dtype (TIR semantics)."""
    if isinstance(v, PrimScalar):
        return np.asarray(v.value).astype(np_dtype(v.dtype))[()]
    return v


def _int_of(v: Any) -> int:
    return int(v.value) if isinstance(v, PrimScalar) else int(v)


def _shape_of(v: Any) -> tuple:
    return tuple(int(d) for d in v)


def _fill(call, fill: np.ndarray, dtype: str, shape: Sequence[int]) -> np.ndarray:
    f = np.asarray(fill)
    v = tir_cast(f, dtype_of(f), dtype)
    return np.full(tuple(shape), v, dtype=np_dtype(dtype))


def _prim_value_arg(call: rx.Call, i: int, name: str, ctx: Any) -> P.PrimExpr:
    a = call.args[i] if i < len(call.args) else None
    if not isinstance(a, rx.PrimValue):
        raise common.error(call, f"expects the argument '{name}' to be a PrimValue, but got "
                                 f"{type(a).__name__ if a is not None else 'nothing'}", ctx)
    return a.value


def _to_prim_value(v: Any, name: str, span) -> rx.Expr:
    """TVM's ``PrimValue(v)`` of a Python argument: bool and int give int64, float gives float32."""
    if isinstance(v, rx.Expr):
        return v
    if isinstance(v, bool):
        return rx.PrimValue(P.IntImm(int(v), "int64"), span=span)
    if isinstance(v, int):
        return rx.PrimValue(P.IntImm(v, "int64"), span=span)
    if isinstance(v, float):
        return rx.PrimValue(P.FloatImm(v, "float32"), span=span)
    if isinstance(v, P.PrimExpr):
        return rx.PrimValue(v, span=span)
    raise ParseError(f"argument '{name}': expected a number, a symbolic expression or a PrimValue, got {v!r}", span)


def _bind(opdef: OpDef, args, kwargs, span, names: Sequence[str]) -> dict:
    if len(args) > len(names):
        raise ParseError(f"{opdef.script} takes at most {len(names)} arguments, got {len(args)}", span)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise ParseError(f"{opdef.script} got an unexpected keyword argument '{k}'", span)
        if k in bound:
            raise ParseError(f"{opdef.script} got multiple values for argument '{k}'", span)
        bound[k] = v
    return bound


def _dtype_attr(opdef: OpDef, v: Any, span) -> str:
    p = next(p for p in opdef.params if p.name == "dtype")
    return convert_attr(p, v, span)


def _shape_values_of(e: rx.Expr) -> Optional[Sequence[P.PrimExpr]]:
    if isinstance(e, rx.ShapeExpr):
        return e.values
    s = e.struct_info
    if isinstance(s, ShapeStructInfo) and s.values is not None:
        return s.values
    return None


# ---------------------------------------------------------------------------------------------------
# full / ones / zeros and their _like forms
# ---------------------------------------------------------------------------------------------------


def _infer_full(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.full.C1-C3 (TVM's ``InferStructInfoFull``): ``shape`` has ShapeStructInfo, ``fill_value`` is
    a 0-d tensor; the result has the shape expression itself and ``dtype`` (void: the fill's)."""
    common.check_num_args(call, 2, ctx)
    shape = common.arg_sinfo(call, 0, ctx)
    if not isinstance(shape, ShapeStructInfo):
        raise common.error(call, f"full requires the input shape to be a Shape, but got {common.describe_sinfo(shape)}",
                           ctx)
    fill = common.arg_sinfo(call, 1, ctx)
    if not isinstance(fill, TensorStructInfo) or fill.ndim != 0:
        raise common.error(call, "full requires the fill value to be a zero-rank tensor, but got "
                                 f"{common.describe_sinfo(fill)}", ctx)
    dt = call.attrs.get("dtype") or "void"
    out = fill.dtype if dt == "void" else dt
    return TensorStructInfo(call.args[0], out, vdevice=fill.vdevice)


def _infer_full_like(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.full_like.C1-C2: two tensors, the fill value 0-d; the result is ``x``'s struct info with
    ``dtype`` when given."""
    x, fill = common.tensor_args(call, 2, ctx, ("x", "fill_value"))
    if fill.ndim != 0:
        raise common.error(call,
                           f"full_like requires the fill value to be a zero-rank tensor, but it has rank {fill.ndim}",
                           ctx)
    return _with_dtype(x, call.attrs.get("dtype") or "void")


def _with_dtype(x: TensorStructInfo, dt: str) -> TensorStructInfo:
    if dt == "void" or dt == x.dtype:
        return x
    return TensorStructInfo(x.shape, dt, x.ndim if x.shape is None else -1, x.vdevice)


def _infer_ones_zeros(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.zeros.C1 / OP.ones.C1: one argument with ShapeStructInfo; the result has that shape and
    ``dtype`` (no vdevice)."""
    common.check_num_args(call, 1, ctx)
    s = common.arg_sinfo(call, 0, ctx)
    if not isinstance(s, ShapeStructInfo):
        raise common.error(call,
                           f"ones/zeros require the input shape to be a Shape, but got {common.describe_sinfo(s)}", ctx)
    return TensorStructInfo(call.args[0], call.attrs.get("dtype") or "void")


def _infer_like(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.zeros_like.C1 / OP.ones_like.C1: ``x``'s struct info with ``dtype`` when given."""
    x = common.tensor_args(call, 1, ctx)[0]
    return _with_dtype(x, call.attrs.get("dtype") or "void")


def _ref_full(args, attrs, call, ctx):
    shape, fill = args
    return _fill(call, fill, call.struct_info.dtype, _shape_of(shape))


def _ref_full_like(args, attrs, call, ctx):
    x, fill = args
    return _fill(call, fill, call.struct_info.dtype, x.shape)


def _make_ref_const(value: int, like: bool):
    def ref(args, attrs, call, ctx):
        shape = args[0].shape if like else _shape_of(args[0])
        dt = call.struct_info.dtype
        return np.full(shape, value, dtype=np_dtype(dt))
    return ref


def _scalar_const_value(e: rx.Expr) -> Any:
    """TVM's ``_try_convert_to_scalar_const(.., python_native=True)``: the Python value of a 0-d
    constant, else the expression."""
    if isinstance(e, rx.Constant) and e.data.ndim == 0:
        return e.data.reshape(-1)[0].item()
    return e


def _te_full(shape, dtype: str, fill: Any) -> te.Tensor:
    if isinstance(fill, te.Tensor):
        value = te_ops.cast(dtype, fill())
    elif isinstance(fill, bool):
        value = te_ops.cast(dtype, P.IntImm(int(fill), "bool"))
    else:
        value = te_ops.cast(dtype, te_ops.as_expr(fill))
    return manipulate_util.te_full(shape, value)


def _make_legalize_full(kind: str, const_fill: Optional[float], name: str):
    """TVM's ``_full``: TOPI's ``full`` over the output shape with the fill value converted to the
    dtype; a 0-d constant fill is inlined. Only ShapeExpr shapes are legalized."""
    def legalize(call, ctx):
        if not known_shapes(call):
            return None
        out = call.struct_info
        if kind == "like":
            shape = list(call.args[0].struct_info.shape.values)
        else:
            vals = _shape_values_of(call.args[0])
            if vals is None:
                return None
            shape = list(vals)
        dt = out.dtype
        if const_fill is not None:
            return ctx.call_te(lambda s: _te_full(s, dt, const_fill), shape, primfunc_name_hint=name)
        fill = _scalar_const_value(call.args[1])
        if isinstance(fill, rx.Expr):
            return ctx.call_te(lambda s, f: _te_full(s, dt, f), shape, fill, primfunc_name_hint=name)
        return ctx.call_te(lambda s: _te_full(s, dt, fill), shape, primfunc_name_hint=name)
    return legalize


# ---------------------------------------------------------------------------------------------------
# arange
# ---------------------------------------------------------------------------------------------------


def arange_length(call: rx.Call, ctx: Any, start: P.PrimExpr, end: P.PrimExpr, step: P.PrimExpr) -> P.PrimExpr:
    """OP.arange.C2: the number of elements (see the module docstring, item 2)."""
    from ..arith import eval_prim, simplify

    ints = all(_dt.is_int(e.dtype) for e in (start, end, step))
    if isinstance(step, (P.IntImm, P.FloatImm)) and step.value == 0:
        raise common.error(call, "arange requires a non-zero step", ctx)
    if ints:
        if isinstance(step, P.IntImm) and step.value < 0:
            n = te_ops.floordiv(te_ops.add(te_ops.add(te_ops.sub(end, start), step), 1), step)
        else:
            n = te_ops.floordiv(te_ops.sub(te_ops.add(te_ops.sub(end, start), step), 1), step)
    else:
        n = te_ops.cast("int64", te_ops.ceil(te_ops.div(te_ops.cast("float32", te_ops.sub(end, start)), step)))
    from ..ir.functor import prim_vars_in

    if not prim_vars_in(n):
        value = eval_prim(n, {})
        if isinstance(value, float) or not isinstance(value, (int, np.integer)):
            value = int(value)
        return P.IntImm(max(int(value), 0), "int64")
    n = simplify(n)
    if n.dtype != "int64":
        n = te_ops.cast("int64", n)
    return n


def _infer_arange(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.arange.C1-C2: ``start``, ``end``, ``step`` are PrimValues; the result is 1-d of
    :func:`arange_length` elements with ``dtype`` (no vdevice)."""
    common.check_num_args(call, 3, ctx)
    s, e, st = (_prim_value_arg(call, i, n, ctx) for i, n in enumerate(("start", "end", "step")))
    n = arange_length(call, ctx, s, e, st)
    return TensorStructInfo(rx.ShapeExpr((n,)), call.attrs.get("dtype") or "void")


def _arange_value_dtypes(start: str, step: str):
    """The dtypes TIR computes ``step * i`` and ``start + step * i`` in (``i`` is int64)."""
    prod = te_ops.match_types(P.PrimVar("s", step), P.PrimVar("i", "int64"))[0].dtype
    total = te_ops.match_types(P.PrimVar("a", start), P.PrimVar("p", prod))[0].dtype
    return prod, total


def _ref_arange(args, attrs, call, ctx):
    start, end, step = args
    exprs = [_const_expr(v) for v in (start, end, step)]
    n = arange_length(call, ctx, *exprs).value
    dt = call.struct_info.dtype
    prod_dt, tot_dt = _arange_value_dtypes(start.dtype, step.dtype)
    i = np.arange(n, dtype=np.int64)
    with np.errstate(all="ignore"):
        sv = tir_cast(np.asarray(_prim_of(step)), step.dtype, prod_dt)
        p = (sv * tir_cast(i, "int64", prod_dt)).astype(np_dtype(prod_dt))
        a = tir_cast(np.asarray(_prim_of(start)), start.dtype, tot_dt)
        t = (a + tir_cast(p, prod_dt, tot_dt)).astype(np_dtype(tot_dt))
    return tir_cast(t, tot_dt, dt)


def _const_expr(v: PrimScalar) -> P.PrimExpr:
    if _dt.is_float(v.dtype):
        return P.FloatImm(float(v.value), v.dtype)
    return P.IntImm(int(v.value), v.dtype)


def _legalize_arange(call, ctx):
    """TOPI's ``arange``: ``T_arange[i] = cast(dtype, start + step * i)`` over the inferred length.
    With constant arguments, TVM 0.25 folds the call into a constant; relax-ref does too, with the
    values of the reference (item 2 of the module docstring)."""
    if not known_shapes(call):
        return None
    if all(isinstance(a.value, (P.IntImm, P.FloatImm)) for a in call.args):
        vals = [PrimScalar(a.value.value, a.value.dtype) for a in call.args]
        return rx.Constant(_ref_arange(vals, call.attrs, call, ctx))
    start, end, step = (a.value for a in call.args)
    n = call.struct_info.shape.values[0]
    dt = call.struct_info.dtype

    def te_arange(s, st, length):
        return te.compute((length,), lambda i: te_ops.cast(dt, te_ops.add(s, te_ops.mul(st, i))), name="T_arange")

    return ctx.call_te(te_arange, start, step, n, primfunc_name_hint="arange")


def _arange_parse_call(opdef, args, kwargs, span):
    """``R.arange(start, end=None, step=1, dtype=None)`` as TVM's Python API: one argument is the end;
    the default dtype is int64 when all three are integers, else float32."""
    b = _bind(opdef, args, kwargs, span, ("start", "end", "step", "dtype"))
    if "start" not in b:
        raise ParseError("R.arange missing required argument 'start'", span)
    start, end, step = b["start"], b.get("end"), b.get("step", 1)
    if end is None:
        start, end = 0, start
    vals = [_to_prim_value(v, n, span) for v, n in ((start, "start"), (end, "end"), (step, "step"))]
    dtype = b.get("dtype")
    if dtype is None:
        ints = all(isinstance(v, rx.PrimValue) and _dt.is_int(v.value.dtype) for v in vals)
        dtype = "int64" if ints else "float32"
    return rx.Call(opdef.op, tuple(vals), Attrs({"dtype": _dtype_attr(opdef, dtype, span)}), (), span=span)


# ---------------------------------------------------------------------------------------------------
# tril / triu
# ---------------------------------------------------------------------------------------------------


def _infer_trilu(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.tril.C1-C2: ``x`` a tensor of rank >= 2 (when known), ``k`` a prim value; the result is
    ``x``'s struct info."""
    common.check_num_args(call, 2, ctx)
    x = common.tensor_arg(call, 0, ctx, "x")
    k = common.arg_sinfo(call, 1, ctx)
    if not isinstance(k, PrimStructInfo):
        raise common.error(call,
                           f"the argument 'k' must be a prim value, but has struct info {common.describe_sinfo(k)}",
                           ctx)
    if x.ndim != -1 and x.ndim < 2:
        raise common.error(call, "requires the input tensor to have at least two dimensions, but the given input has "
                                 f"{x.ndim} dimension(s)", ctx)
    return x


def _make_ref_trilu(upper: bool):
    def ref(args, attrs, call, ctx):
        x, k = args
        kk = np.int64(tir_cast(np.asarray(_prim_of(k)), k.dtype, "int32"))
        r = np.arange(x.shape[-2], dtype=np.int64)[:, None]
        c = np.arange(x.shape[-1], dtype=np.int64)[None, :]
        keep = (r <= c - kk) if upper else (r >= c - kk)
        return np.where(keep, x, np.zeros((), dtype=x.dtype)).astype(x.dtype)
    return ref


def _make_legalize_trilu(upper: bool):
    def legalize(call, ctx):
        if not known_shapes(call):
            return None

        def te_trilu(x, k):
            k32 = te_ops.cast("int32", k) if k.dtype != "int32" else k

            def f(*idx):
                r, c = idx[-2], idx[-1]
                shifted = te_ops.sub(c, k32)
                check = te_ops.le(r, shifted) if upper else te_ops.ge(r, shifted)
                return te_ops.select(check, x(*idx), te_ops.const(0, x.dtype))

            return te.compute(x.shape, f, name="trilu")

        return ctx.call_te(te_trilu, call.args[0], call.args[1], primfunc_name_hint="triu" if upper else "tril")
    return legalize


# ---------------------------------------------------------------------------------------------------
# eye / eye_like
# ---------------------------------------------------------------------------------------------------


def _infer_eye(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.eye.C1: three PrimValue arguments ``n, m, k``; the result is ``(n, m)`` with ``dtype``."""
    common.check_num_args(call, 3, ctx)
    n = _prim_value_arg(call, 0, "n", ctx)
    m = _prim_value_arg(call, 1, "m", ctx)
    _prim_value_arg(call, 2, "k", ctx)
    return TensorStructInfo(rx.ShapeExpr((n, m)), call.attrs.get("dtype") or "void")


def _infer_eye_like(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.eye_like.C1: ``x`` a tensor of rank 2 (or unknown rank), ``k`` a PrimValue; the result has
    ``x``'s shape, ``dtype`` (void: ``x``'s) and vdevice. (TVM 0.25 crashes when ``x`` has no shape;
    relax-ref then infers rank 2 with an unknown shape.)"""
    common.check_num_args(call, 2, ctx)
    x = common.tensor_arg(call, 0, ctx, "x")
    _prim_value_arg(call, 1, "k", ctx)      # as eye's k (a tensor there crashed at run time)
    if x.ndim not in (-1, 2):
        raise common.error(call, f"eye_like expects the input tensor to be 2-dimensional, but got {x.ndim} dimensions",
                           ctx)
    dt = call.attrs.get("dtype") or "void"
    out = x.dtype if dt == "void" else dt
    if x.shape is None:
        return TensorStructInfo(None, out, 2, x.vdevice)
    return TensorStructInfo(x.shape, out, vdevice=x.vdevice)


def _eye_values(n: int, m: int, k: int, dtype: str) -> np.ndarray:
    i = np.arange(n, dtype=np.int64)[:, None]
    j = np.arange(m, dtype=np.int64)[None, :]
    return np.where(i == j - k, 1, 0).astype(np_dtype(dtype))


def _ref_eye(args, attrs, call, ctx):
    n, m, k = (_int_of(a) for a in args)
    return _eye_values(n, m, k, call.struct_info.dtype)


def _ref_eye_like(args, attrs, call, ctx):
    x, k = args
    return _eye_values(x.shape[0], x.shape[1], _int_of(k), call.struct_info.dtype)


def _te_eye(n, m, k, dtype: str) -> te.Tensor:
    one, zero = te_ops.const(1, dtype), te_ops.const(0, dtype)
    return te.compute((n, m), lambda i, j: te_ops.if_then_else(te_ops.eq(i, te_ops.sub(j, k)), one, zero), name="eye")


def _legalize_eye(call, ctx):
    if not known_shapes(call):
        return None
    n, m = call.struct_info.shape.values
    dt = call.struct_info.dtype
    return ctx.call_te(lambda nn, mm, kk: _te_eye(nn, mm, kk, dt), n, m, call.args[2], primfunc_name_hint="eye")


def _legalize_eye_like(call, ctx):
    if not known_shapes(call):
        return None
    n, m = call.args[0].struct_info.shape.values
    dt = call.struct_info.dtype
    return ctx.call_te(lambda nn, mm, kk: _te_eye(nn, mm, kk, dt), n, m, call.args[1],
                       primfunc_name_hint="eye_like")


def _eye_parse_call(opdef, args, kwargs, span):
    """``R.eye(n, m=None, k=0, dtype="float32")`` as TVM's Python API (``m`` defaults to ``n``)."""
    b = _bind(opdef, args, kwargs, span, ("n", "m", "k", "dtype"))
    if "n" not in b:
        raise ParseError("R.eye missing required argument 'n'", span)
    n = b["n"]
    m = b.get("m")
    m = n if m is None else m
    vals = (_to_prim_value(n, "n", span), _to_prim_value(m, "m", span), _to_prim_value(b.get("k", 0), "k", span))
    return rx.Call(opdef.op, vals, Attrs({"dtype": _dtype_attr(opdef, b.get("dtype", "float32"), span)}), (),
                   span=span)


# ---------------------------------------------------------------------------------------------------
# hamming_window
# ---------------------------------------------------------------------------------------------------


def _infer_hamming(call: rx.Call, ctx: Any) -> TensorStructInfo:
    """OP.hamming_window.C1-C3: ``dtype`` must not be an integer type; ``window_size`` is a PrimValue
    that must not be provably < 1, ``periodic`` an integer prim value, ``alpha`` and ``beta`` prim values
    (OP.INFER.3); the result is ``(window_size,)``."""
    common.check_num_args(call, 4, ctx)
    dt = call.attrs.get("dtype") or "void"
    if _dt.is_integer(dt) and dt != "bool":
        raise common.error(call, f"hamming_window expects the dtype to be a float type, but got {dt}", ctx)
    n = _prim_value_arg(call, 0, "window_size", ctx)
    common.prim_arg(call, 1, ctx, "periodic", integer=True)
    common.prim_arg(call, 2, ctx, "alpha")
    common.prim_arg(call, 3, ctx, "beta")
    analyzer = getattr(ctx, "analyzer", None)
    if (isinstance(n, P.IntImm) and n.value < 1) or \
            (analyzer is not None and analyzer.can_prove(te_ops.lt(n, te_ops.const(1, n.dtype)))):
        raise common.error(call, f"hamming_window expects the window size to be greater than zero, but got {n}", ctx)
    if analyzer is not None:
        n = analyzer.simplify(n)
    if n.dtype != "int64" and _dt.is_integer(n.dtype):
        n = te_ops.cast("int64", n)
    return TensorStructInfo(rx.ShapeExpr((n,)), dt)


_TWO_PI = 2 * math.pi


def hamming_values(n: int, periodic: bool, alpha: PrimScalar, beta: PrimScalar, dtype: str) -> np.ndarray:
    """OP.CREATE.SEM.5 with TIR rounding of every operation."""
    from ..arith import lookup_intrinsic

    npdt = np_dtype(dtype)
    if n == 1:
        return np.ones(1, dtype=npdt)
    m = n + 1 if periodic else n
    with np.errstate(all="ignore"):
        idx = np.arange(n, dtype=np.int64).astype(npdt)
        ang = (np.asarray(_TWO_PI).astype(npdt) * idx).astype(npdt)
        ang = (ang / np.asarray(m - 1).astype(npdt)).astype(npdt)
        cosv = np.asarray(lookup_intrinsic("tir.cos")(dtype, ang)).astype(npdt)
        bdt = _matched(beta.dtype, dtype)
        bc = (tir_cast(np.asarray(_prim_of(beta)), beta.dtype, bdt) * tir_cast(cosv, dtype, bdt)).astype(np_dtype(bdt))
        adt = _matched(alpha.dtype, bdt)
        r = (tir_cast(np.asarray(_prim_of(alpha)), alpha.dtype, adt) - tir_cast(bc, bdt, adt)).astype(np_dtype(adt))
    return tir_cast(r, adt, dtype)


def _matched(a: str, b: str) -> str:
    return te_ops.match_types(P.PrimVar("a", a), P.PrimVar("b", b))[0].dtype


def _ref_hamming(args, attrs, call, ctx):
    n, periodic, alpha, beta = args
    size = _int_of(n)
    return hamming_values(size, bool(_int_of(periodic)), alpha, beta, call.struct_info.dtype)


def _legalize_hamming(call, ctx):
    """One ``T_hamming_window`` stage with the arithmetic of TOPI's multi-stage kernel; a symbolic
    window size selects 1 when it is 1. Not legalized when ``periodic`` is not a constant."""
    if not known_shapes(call):
        return None
    nv, pv, av, bv = (a.value if isinstance(a, rx.PrimValue) else None for a in call.args)
    if not isinstance(pv, P.IntImm) or nv is None or av is None or bv is None:
        return None
    dt = call.struct_info.dtype
    periodic = bool(pv.value)
    length = call.struct_info.shape.values[0]

    def te_hamming(n, alpha, beta, out_len):
        def f(i):
            m = te_ops.add(n, 1) if periodic else n
            ang = te_ops.mul(te_ops.const(_TWO_PI, dt), te_ops.cast(dt, i))
            ang = te_ops.div(ang, te_ops.cast(dt, te_ops.sub(m, 1)))
            val = te_ops.cast(dt, te_ops.sub(alpha, te_ops.mul(beta, te.cos(ang))))
            if isinstance(n, P.IntImm):
                return te_ops.const(1, dt) if n.value == 1 else val
            return te_ops.select(te_ops.eq(n, te_ops.const(1, n.dtype)), te_ops.const(1, dt), val)
        return te.compute((out_len,), f, name="T_hamming_window")

    return ctx.call_te(te_hamming, nv, av, bv, length, primfunc_name_hint="hamming_window")


def _hamming_parse_call(opdef, args, kwargs, span):
    """``R.hamming_window(window_size, periodic, alpha, beta, dtype)``: Python numbers and bools become
    PrimValues as in TVM's Python API."""
    names = ("window_size", "periodic", "alpha", "beta", "dtype")
    b = _bind(opdef, args, kwargs, span, names)
    for n in names:
        if n not in b:
            raise ParseError(f"R.hamming_window missing required argument '{n}'", span)
    vals = tuple(_to_prim_value(b[n], n, span) for n in names[:4])
    return rx.Call(opdef.op, vals, Attrs({"dtype": _dtype_attr(opdef, b["dtype"], span)}), (), span=span)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Run-time checks (OpDef.check, every evaluator)
# ---------------------------------------------------------------------------------------------------


def _check_fill(args: OpArgs) -> None:
    """OP.full.C2: the fill value is a 0-d tensor."""
    fs = args.shape(1)
    if fs:
        raise args.error(OpRuntimeError, f"{args.op_name}: the fill value must be a 0-d tensor, got shape "
                                         f"{args.size_text(fs)}")


def _check_trilu(args: OpArgs) -> None:
    """OP.tril.C2: a tensor of rank at least 2."""
    if args.ndim(0) < 2:
        raise args.error(OpRuntimeError, f"{args.op_name}: the input must have at least two dimensions")


def _check_eye(args: OpArgs) -> None:
    """The run-time error of ``eye`` (OP.SEM.2, its page's error table): sizes that are not negative."""
    n, m = args.prim(0), args.prim(1)
    if any(args.is_static(v) and v < 0 for v in (n, m)):
        text = ", ".join(str(int(v)) if args.is_static(v) else "?" for v in (n, m))
        raise args.error(OpRuntimeError, f"relax.eye: negative size ({text})")


def _check_eye_like(args: OpArgs) -> None:
    """OP.eye_like.C1 at run time: a 2-d tensor."""
    if args.ndim(0) != 2:
        raise args.error(OpRuntimeError, f"relax.eye_like: the input must be 2-D, got shape "
                                         f"{args.size_text(args.shape(0))}")


def _check_hamming(args: OpArgs) -> None:
    """OP.hamming_window.C2: a window size that is not negative."""
    size = args.prim(0)
    if args.is_static(size) and size < 0:
        raise args.error(OpRuntimeError, f"relax.hamming_window: negative window size {int(size)}")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    reg = OPS.append
    reg(OpDef(name="relax.full", script="R.full",
              params=(arg("shape", "shape"), arg("fill_value"), attr("dtype", "dtype", "void")),
              infer=_infer_full, check=_check_fill, reference=_ref_full, legalize=_make_legalize_full("full", None,
                                                                                                      "full"),
              category="create", extra={"requires_arg_shapes": False},
              doc="``R.full(shape, fill_value, dtype=None)``: a tensor filled with a 0-d tensor's value "
                  "(OP.full.C1)."))
    reg(OpDef(name="relax.full_like", script="R.full_like",
              params=(arg("x"), arg("fill_value"), attr("dtype", "dtype", "void")),
              infer=_infer_full_like, check=_check_fill, reference=_ref_full_like,
              legalize=_make_legalize_full("like", None, "full"),
              category="create", doc="``R.full_like(x, fill_value, dtype=None)`` (OP.full_like.C1)."))
    for name, value in (("zeros", 0), ("ones", 1)):
        reg(OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("shape", "shape"), attr("dtype", "dtype")),
                  infer=_infer_ones_zeros, reference=_make_ref_const(value, False),
                  legalize=_make_legalize_full("shape", float(value), name), category="create",
                  doc=f"``R.{name}(shape, dtype)`` (OP.{name}.C1)."))
        reg(OpDef(name=f"relax.{name}_like", script=f"R.{name}_like",
                  params=(arg("x"), attr("dtype", "dtype", "void")),
                  infer=_infer_like, reference=_make_ref_const(value, True),
                  legalize=_make_legalize_full("like", float(value), name), category="create",
                  doc=f"``R.{name}_like(x, dtype=None)`` (OP.{name}_like.C1)."))
    reg(OpDef(name="relax.arange", script="R.arange",
              params=(arg("start", "prim"), arg("end", "prim", None), arg("step", "prim", 1),
                      attr("dtype", "dtype", "void")),
              infer=_infer_arange, reference=_ref_arange, legalize=_legalize_arange, parse_call=_arange_parse_call,
              category="create",
              doc="``R.arange(start, end=None, step=1, dtype=None)``: evenly spaced values (OP.arange.C1)."))
    for name, upper in (("tril", False), ("triu", True)):
        reg(OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x"), arg("k", "prim", 0)),
                  infer=_infer_trilu, check=_check_trilu, reference=_make_ref_trilu(upper),
                  legalize=_make_legalize_trilu(upper),
                  category="create",
                  doc=f"``R.{name}(x, k=0)``: the {'upper' if upper else 'lower'} triangle of the last two "
                      f"dims (OP.{name}.C1)."))
    reg(OpDef(name="relax.eye", script="R.eye",
              params=(arg("n", "prim"), arg("m", "prim", None), arg("k", "prim", 0), attr("dtype", "dtype", "float32")),
              infer=_infer_eye, check=_check_eye, reference=_ref_eye, legalize=_legalize_eye,
              parse_call=_eye_parse_call,
              category="create", doc="``R.eye(n, m=None, k=0, dtype='float32')`` (OP.eye.C1)."))
    reg(OpDef(name="relax.eye_like", script="R.eye_like",
              params=(arg("x"), arg("k", "prim", 0), attr("dtype", "dtype", "void")),
              infer=_infer_eye_like, check=_check_eye_like, reference=_ref_eye_like, legalize=_legalize_eye_like,
              category="create",
              doc="``R.eye_like(x, k=0, dtype=None)`` (OP.eye_like.C1)."))
    reg(OpDef(name="relax.hamming_window", script="R.hamming_window",
              params=(arg("window_size", "prim"), arg("periodic", "prim"), arg("alpha", "prim"), arg("beta", "prim"),
                      attr("dtype", "dtype")),
              infer=_infer_hamming, check=_check_hamming, reference=_ref_hamming, legalize=_legalize_hamming,
              parse_call=_hamming_parse_call, category="create",
              doc="``R.hamming_window(window_size, periodic, alpha, beta, dtype)`` (OP.hamming_window.C1)."))


_define_all()

__all__ = ["arange_length", "hamming_values"]

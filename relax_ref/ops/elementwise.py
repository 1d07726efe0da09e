"""Elementwise operators: unary math, binary broadcasting arithmetic/comparison/logic, ``where``,
``ewise_fma``, ``clip`` and the elementwise ``nn`` activations (spec pages ``spec/ops/<op>.md``).

Every entry has TVM 0.25's script name and parameters, struct-info inference (through
:mod:`relax_ref.ops.common`), reference semantics over numpy and a legalization built with
:mod:`relax_ref.ops.te` mirroring TVM's ``LegalizeOps`` kernels (PrimFunc names ``tir_exp``, ``add``,
``gelu`` ...; block names ``compute``, ``T_add`` ...).

Semantics follow TVM's kernels where they differ from numpy (OP.ELEMWISE.SEM.*):

1. Integer ``divide`` truncates, ``mod`` takes the dividend's sign, ``floor_divide``/``floor_mod``
   floor; a zero integer divisor raises :class:`~relax_ref.errors.DivisionByZeroError` and
   ``INT_MIN / -1`` raises :class:`~relax_ref.errors.OpRuntimeError` (TVM's process dies with
   SIGFPE in both cases). Float ``floor_divide`` is ``floor(a / b)``, float ``floor_mod`` is
   ``a - floor(a / b) * b`` and float ``mod`` is C ``fmod``.
2. ``maximum(a, b)`` is ``a > b ? a : b`` and ``minimum(a, b)`` is ``a < b ? a : b`` (measured on TVM:
   a NaN in the first operand is dropped, in the second propagated); ``relu(x) = max(x, 0)`` maps NaN
   to 0 and ``clip`` maps NaN to the upper bound, by the same rules.
3. ``round`` is half-to-even; ``sign`` of NaN is 0; ``log_add_exp`` is the naive
   ``log(exp(a) + exp(b))`` (it overflows as TVM's kernel does); ``isfinite``/``isinf``/``isnan`` of
   integers are constants; ``floor``/``ceil``/``round``/``trunc`` of integers and bools are the
   identity; integer ``abs``/``negative``/``square`` wrap.
4. Mixed operand dtypes are matched as TIR does (an integer or bool operand is converted to the float
   type, the narrower integer to the wider) before computing; comparisons accept mixed dtypes.
5. Float ``not_equal`` is an ordered comparison as in TVM's kernel: a NaN operand gives False
   (``equal`` and the order comparisons are False for NaN as in IEEE).
6. Shifts by a negative amount or by at least the bit width raise OpRuntimeError (undefined in
   TVM's kernels, which return inconsistent values).
7. Each TIR operation of the legalized kernel rounds to the dtype: arithmetic on float16/bfloat16 is
   carried out in float32 and rounded back (as TVM's CPU kernels), transcendental functions are
   the shared TIR intrinsics of :data:`relax_ref.arith.INTRINSICS` (so a legalized kernel run by the
   TensorIR interpreter reproduces the reference), and multi-stage kernels (gelu, gelu_tanh, selu,
   softplus, log_add_exp, floor_mod) round after every stage; float16 ``erf`` goes through float32.

Decisions where TVM 0.25 is inconsistent (OP.ELEMWISE.DIV.*):

* **Bool LHS quirk.** Inference gives ``add(bool, f32)`` the LHS dtype ``bool`` while TVM's kernel
  returns float32 (and its LegalizeOps silently changes the binding's type). relax-ref keeps the
  inferred type: the reference computes in the matched dtype and converts to the inferred dtype
  (nonzero is True), and the legalized kernel ends with the same cast.
* **Prim operands.** A PrimValue operand counts as shape ``[1]`` in inference, so ``add`` of a 0-d
  tensor and a prim value is inferred ``(1,)``; TVM's kernel returns shape ``()``. The reference and
  the legalized kernel follow the inferred ``(1,)``. ``add`` of two prim values infers ``R.Prim``; TVM
  cannot legalize it, relax-ref leaves it unlegalized too (the reference computes it).
* **No TVM kernel.** Where TVM 0.25's legalization rejects the operand dtypes (bitwise ops and
  ``logical_xor`` on floats, shifts on floats or bool, ``logical_and``/``logical_or``/``logical_not``
  on non-bool values, ``power``/``log_add_exp`` on non-floats, ``negative``/``sign`` on unsigned or
  bool values, ``abs`` and the ``isnan`` family on bool) -- and for ``atan2`` of integers, whose
  kernel TVM cannot compile and whose TIR intrinsic is undefined -- inference still succeeds as in
  TVM, and both the reference and the legalization raise :class:`~relax_ref.errors.UnsupportedError`.
* **TVM CPU backend gaps.** Some kernels that TVM 0.25 legalizes cannot be compiled by its LLVM
  backend: arithmetic, comparisons, min/max, ``square``, ``relu`` and ``clip`` on bool tensors;
  ``acos acosh asin asinh atan cosh sinh atan2`` on float16; ``isnan isinf isfinite power
  log_add_exp`` on bfloat16. relax-ref computes them with the TIR semantics of the legalized kernel
  (bool arithmetic is integer arithmetic on 0/1 whose result is ``!= 0``: ``add`` is or,
  ``subtract`` is xor, ``multiply`` is and; 16-bit float math goes through float32).
* ``ewise_fma`` has no legalization in TVM 0.25 (``legalize_exempt``).
* ``nn.relu6`` is a Python composite in TVM 0.25 (``clip(x, 0, 6)``), not an operator; ``log2`` and
  ``log10`` are not Relax operators in 0.25. They are not registered.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from ..values import PrimScalar
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import PrimStructInfo, TensorStructInfo
from . import common
from . import te
from . import te_ops
from .args import OpArgs
from .checks import check_broadcast, no_kernel
from .opdef import OpDef, arg, attr, build_call

# ---------------------------------------------------------------------------------------------------
# numpy helpers
# ---------------------------------------------------------------------------------------------------

_F32 = np.dtype("float32")


def _np(dtype: str) -> np.dtype:
    return _dt.to_numpy(dtype)


def _dtype_of(a: Any) -> str:
    if isinstance(a, PrimScalar):
        return a.dtype
    return _dt.from_numpy(a.dtype)


def _as_array(a: Any) -> np.ndarray:
    """A tensor operand, or a prim operand as a shape-``[1]`` array (NORM.OP.BCAST.3)."""
    if isinstance(a, PrimScalar):
        return np.array([a.value], dtype=_np(a.dtype))
    return np.asarray(a)


def matched_dtype(da: str, db: str) -> str:
    """The dtype TIR's type matching computes ``a op b`` in (TIR.TE.OPS.2)."""
    a, b = te_ops.match_types(P.PrimVar("a", da), P.PrimVar("b", db))
    return a.dtype


def _low_precision(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def _fcompute(dtype: str, fn: Callable[..., np.ndarray], *xs: np.ndarray) -> np.ndarray:
    """Apply a float function as TVM's CPU kernels do: 16-bit floats through float32, rounded back."""
    with np.errstate(all="ignore"):
        if _low_precision(dtype):
            out = fn(*[np.asarray(x).astype(_F32) for x in xs])
        else:
            out = fn(*[np.asarray(x) for x in xs])
        return np.asarray(out).astype(_np(dtype))


def _intrin(name: str, dtype: str, *xs: np.ndarray) -> np.ndarray:
    """A TIR intrinsic applied elementwise, with the shared scalar semantics of chapter PRIM
    (:data:`relax_ref.arith.INTRINSICS`): the same function the TensorIR interpreter evaluates for
    ``T.<name>`` in a legalized kernel."""
    from ..arith import lookup_intrinsic

    with np.errstate(all="ignore"):
        return np.asarray(lookup_intrinsic(f"tir.{name}")(dtype, *xs)).astype(_np(dtype))


def _tvm_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """OP.ELEMWISE.SEM.2: ``a > b ? a : b``."""
    return np.where(a > b, a, b)


def _tvm_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a < b, a, b)


def _c(value, dtype: str) -> np.ndarray:
    """A scalar constant of ``dtype`` (as ``tir.const``)."""
    return np.array(value, dtype=_np(dtype))


def _unsupported(call: rx.Call, what: str) -> UnsupportedError:
    return UnsupportedError(f"{common.op_name(call)}: {what} (TVM 0.25 has no kernel for it)", call.span)


def _inferred_dtype(call: rx.Call, fallback: str) -> str:
    s = call.struct_info
    if isinstance(s, (TensorStructInfo, PrimStructInfo)) and s.dtype != "void":
        return s.dtype
    return fallback


def _finish(call: rx.Call, out: np.ndarray, operands: Sequence[Any], dtype: str):
    """Return a PrimScalar for two prim operands, else the array converted to ``dtype``."""
    if all(isinstance(o, PrimScalar) for o in operands):
        v = np.asarray(out).astype(_np(dtype)).reshape(-1)[0]
        return PrimScalar(v.item(), dtype)
    return np.asarray(out).astype(_np(dtype))


# ---------------------------------------------------------------------------------------------------
# Legalization helpers
# ---------------------------------------------------------------------------------------------------


def _known(call: rx.Call) -> bool:
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


def _out_shape(call: rx.Call) -> List[P.PrimExpr]:
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


def _elemwise_compute(fn: Callable[[P.PrimExpr], P.PrimExpr], x: te.Tensor, name: str = "compute",
                      ax: bool = False) -> te.Tensor:
    names = [f"ax{i}" if ax else f"i{i}" for i in range(x.ndim)]
    return te.compute(x.shape, lambda *i: fn(x(*i)), name=name, index_names=names)


# ---------------------------------------------------------------------------------------------------
# Unary operators
# ---------------------------------------------------------------------------------------------------

#: float-only unary ops; each is the TIR intrinsic of the same name (``T.exp`` ...)
_FLOAT_UNARY = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp", "log",
                "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh")


def _unary_doc(name: str, text: str) -> str:
    return f"``R.{name}(x)``: {text}"


def _make_float_unary(name: str) -> OpDef:
    def infer(call, ctx):
        return common.infer_unary(call, ctx, require_float_dtype=True)

    def reference(args, attrs, call, ctx):
        x = args[0]
        dt = _dtype_of(x)
        if name == "erf" and dt == "float16":  # TVM's kernel: erf of the value cast to float32
            return _intrin("erf", "float32", x.astype(_F32)).astype(x.dtype)
        return _intrin(name, dt, x)

    def legalize(call, ctx):
        if not _known(call):
            return None
        if name == "erf":
            def te_erf(x):
                if x.dtype == "float16":
                    a = _elemwise_compute(lambda v: te_ops.cast("float32", v), x)
                    b = _elemwise_compute(te.erf, a)
                    return _elemwise_compute(lambda v: te_ops.cast("float16", v), b)
                return _elemwise_compute(te.erf, x)
            return ctx.call_te(te_erf, call.args[0], primfunc_name_hint="erf")
        intrin = getattr(te, name)
        return ctx.call_te(lambda x: _elemwise_compute(intrin, x), call.args[0],
                           primfunc_name_hint=f"tir_{name}")

    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x"),), infer=infer,
                 reference=reference, legalize=legalize, category="elementwise",
                 doc=_unary_doc(name, f"elementwise {name}; float dtypes only (OP.{name}.C1)."))


def _identity_if_int(fn: Callable[[np.ndarray], np.ndarray]):
    def f(x: np.ndarray) -> np.ndarray:
        dt = _dtype_of(x)
        if not _dt.is_float(dt):
            return np.array(x, copy=True)
        return _fcompute(dt, fn, x)
    return f


def _ref_abs(x, call):
    dt = _dtype_of(x)
    if _dt.is_uint(dt):
        return np.array(x, copy=True)
    with np.errstate(all="ignore"):
        return np.abs(x)


def _ref_negative(x, call):
    with np.errstate(all="ignore"):
        return np.negative(x)


def _ref_sign(x, call):
    dt = _dtype_of(x)
    one, mone, zero = _c(1, dt), _c(-1, dt), _c(0, dt)
    return np.where(x > zero, one, np.where(x < zero, mone, zero)).astype(x.dtype)


def _ref_square(x, call):
    with np.errstate(all="ignore"):
        return np.multiply(x, x)


def _ref_check(kind: str):
    fns = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}
    const = {"isnan": False, "isinf": False, "isfinite": True}

    def f(x, call):
        dt = _dtype_of(x)
        if not _dt.is_float(dt):
            return np.full(x.shape, const[kind], dtype=bool)
        return fns[kind](x.astype(_F32) if _low_precision(dt) else x)
    return f


def _ref_logical_not(x, call):
    return np.logical_not(x)


def _ref_bitwise_not(x, call):
    return np.invert(x)


def _te_abs(x):
    return _elemwise_compute(te_ops.abs_, x)


def _te_negative(x):
    return _elemwise_compute(te_ops.neg, x)


def _te_sign(x):
    dt = x.dtype
    zero, one, mone = te_ops.const(0, dt), te_ops.const(1, dt), te_ops.const(-1, dt)

    def f(v):
        return te_ops.select(te_ops.gt(v, zero), one, te_ops.select(te_ops.lt(v, zero), mone, zero))

    return _elemwise_compute(f, x, name="T_sign", ax=True)


def _te_square(x):
    return _elemwise_compute(lambda v: te_ops.mul(v, v), x, name="T_multiply", ax=True)


_TE_UNARY: Dict[str, Callable[[te.Tensor], te.Tensor]] = {
    "abs": _te_abs,
    "negative": _te_negative,
    "sign": _te_sign,
    "square": _te_square,
    "floor": lambda x: _elemwise_compute(te_ops.floor, x),
    "ceil": lambda x: _elemwise_compute(te_ops.ceil, x),
    "trunc": lambda x: _elemwise_compute(te_ops.trunc, x),
    "round": lambda x: _elemwise_compute(te_ops.round_, x),
    "isnan": lambda x: _elemwise_compute(te_ops.isnan, x),
    "isinf": lambda x: _elemwise_compute(te_ops.isinf, x),
    "isfinite": lambda x: _elemwise_compute(te_ops.isfinite, x),
    "logical_not": lambda x: _elemwise_compute(te_ops.logical_not, x, name="T_logical_not", ax=True),
    "bitwise_not": lambda x: _elemwise_compute(te_ops.bitwise_not, x, name="T_bitwise_not", ax=True),
}

_ANY_UNARY: Dict[str, Tuple[Optional[str], Callable, str]] = {
    # name: (output dtype or None, reference(x, call), doc)
    "abs": (None, _ref_abs, "absolute value (wraps for the most negative integer)"),
    "negative": (None, _ref_negative, "-x (wraps for the most negative integer)"),
    "sign": (None, _ref_sign, "1, -1 or 0 (0 for NaN)"),
    "square": (None, _ref_square, "x * x"),
    "floor": (None, lambda x, call: _identity_if_int(np.floor)(x), "floor (identity on integers)"),
    "ceil": (None, lambda x, call: _identity_if_int(np.ceil)(x), "ceil (identity on integers)"),
    "trunc": (None, lambda x, call: _identity_if_int(np.trunc)(x), "trunc (identity on integers)"),
    "round": (None, lambda x, call: _identity_if_int(np.rint)(x), "round half to even"),
    "isnan": ("bool", _ref_check("isnan"), "NaN test (False for integers)"),
    "isinf": ("bool", _ref_check("isinf"), "infinity test (False for integers)"),
    "isfinite": ("bool", _ref_check("isfinite"), "finiteness test (True for integers)"),
    "logical_not": (None, _ref_logical_not, "logical not; bool only at run time"),
    "bitwise_not": (None, _ref_bitwise_not, "bitwise not; integers and bool only at run time"),
}


#: unary op -> predicate on the input dtype for "TVM 0.25 has no kernel" (OP.ELEMWISE.DIV.3)
_UNARY_NO_KERNEL: Dict[str, Callable[[str], bool]] = {
    "abs": lambda dt: dt == "bool",
    "negative": lambda dt: dt == "bool" or _dt.is_uint(dt),
    "sign": lambda dt: dt == "bool" or _dt.is_uint(dt),
    "isnan": lambda dt: dt == "bool",
    "isinf": lambda dt: dt == "bool",
    "isfinite": lambda dt: dt == "bool",
    "logical_not": lambda dt: dt != "bool",
    "bitwise_not": lambda dt: _dt.is_float(dt),
}


def _make_check_unary(name: str):
    """OP.<op>.C2: a TVM kernel for the input dtype (OP.ELEMWISE.DIV.3)."""
    lacks = _UNARY_NO_KERNEL[name]
    only = " (only bool)" if name == "logical_not" else ""

    def check(args: OpArgs) -> None:
        dt = args.dtype(0)
        if lacks(dt):
            raise no_kernel(args, f"{name} of a {dt} tensor{only}")
    return check


def _make_any_unary(name: str) -> OpDef:
    out_dtype, ref, doc = _ANY_UNARY[name]
    te_fn = _TE_UNARY[name]
    lacks_kernel = _UNARY_NO_KERNEL.get(name, lambda dt: False)

    def infer(call, ctx):
        return common.infer_unary(call, ctx, out_dtype=out_dtype)

    def reference(args, attrs, call, ctx):
        return np.asarray(ref(args[0], call))

    def legalize(call, ctx):
        if not _known(call):
            return None
        dt = call.args[0].struct_info.dtype
        if lacks_kernel(dt):
            raise _unsupported(call, f"{name} of a {dt} tensor")
        return ctx.call_te(te_fn, call.args[0], primfunc_name_hint=f"tir_{name}")

    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x"),), infer=infer,
                 check=_make_check_unary(name) if name in _UNARY_NO_KERNEL else None,
                 reference=reference, legalize=legalize, category="elementwise",
                 doc=_unary_doc(name, doc + f" (OP.{name}.C1)."))


# ---------------------------------------------------------------------------------------------------
# clip
# ---------------------------------------------------------------------------------------------------


def _clip_infer(call, ctx):
    """OP.clip.C1: ``min``/``max`` must be PrimValue literals; the result is the struct info of ``x``
    whatever it is (TVM's ``ReturnStructInfoFromArg<0>``)."""
    common.check_num_args(call, 3, ctx)
    common.prim_value_arg(call, 1, ctx, "min")
    common.prim_value_arg(call, 2, ctx, "max")
    return common.arg_sinfo(call, 0, ctx)


def _check_clip(args: OpArgs) -> None:
    """OP.clip.C2: the clipped value is a tensor."""
    if args.kind(0) != "tensor":
        raise args.error(UnsupportedError, "relax.clip: only tensor inputs can be clipped at run time")


def _clip_reference(args, attrs, call, ctx):
    x, lo, hi = args
    dt = _dtype_of(x)
    lo_v = np.array(lo.value).astype(_np(dt))
    hi_v = np.array(hi.value).astype(_np(dt))
    return _tvm_max(_tvm_min(x, hi_v), lo_v).astype(x.dtype)


def _clip_legalize(call, ctx):
    if not _known(call) or not isinstance(call.struct_info, TensorStructInfo):
        return None

    def te_clip(x, a_min, a_max):
        def f(v):
            lo = te_ops.cast(v.dtype, a_min)
            hi = te_ops.cast(v.dtype, a_max)
            return te_ops.max_(te_ops.min_(v, hi), lo)
        return _elemwise_compute(f, x)

    return ctx.call_te(te_clip, call.args[0], call.args[1], call.args[2], primfunc_name_hint="tir_clip")


def _clip_parse_call(opdef: OpDef, args: list, kwargs: dict, span):
    """As TVM's Python API: Python numbers become PrimValues (ints int64, floats float64)."""
    def conv(v):
        if isinstance(v, bool):
            return rx.PrimValue(P.IntImm(int(v), "bool"), span=span)
        if isinstance(v, int):
            return rx.PrimValue(P.IntImm(v, "int64"), span=span)
        if isinstance(v, float):
            return rx.PrimValue(P.FloatImm(v, "float64"), span=span)
        return v
    args = [a if i == 0 else conv(a) for i, a in enumerate(args)]
    kwargs = {k: (conv(v) if k in ("min", "max") else v) for k, v in kwargs.items()}
    return build_call(_CLIP_PLAIN, args, kwargs, span)


_CLIP_PARAMS = (arg("x"), arg("min", "prim"), arg("max", "prim"))
_CLIP_PLAIN = OpDef(name="relax.clip", script="R.clip", params=_CLIP_PARAMS)


# ---------------------------------------------------------------------------------------------------
# Binary operators
# ---------------------------------------------------------------------------------------------------


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) == (b < 0), q, -q)


def _ref_binary(name: str, a: np.ndarray, b: np.ndarray, dt: str, call) -> np.ndarray:
    """``a op b`` in the matched dtype ``dt`` (both operands already converted)."""
    if dt == "bool" and name in _BOOL_AS_INT:
        out = _ref_binary(name, a.astype(np.int64), b.astype(np.int64), "int64", call)
        return out != 0
    isf = _dt.is_float(dt)
    with np.errstate(all="ignore"):
        if name == "add":
            return _fcompute(dt, np.add, a, b)
        if name == "subtract":
            return _fcompute(dt, np.subtract, a, b)
        if name == "multiply":
            return _fcompute(dt, np.multiply, a, b)
        if name == "divide":
            if isf:
                return _fcompute(dt, np.divide, a, b)
            return _trunc_div(a, b).astype(a.dtype)
        if name == "floor_divide":
            if isf:
                return np.floor(_fcompute(dt, np.divide, a, b))
            return np.floor_divide(a, b)
        if name == "mod":
            if isf:
                return _intrin("fmod", dt, a, b)
            return np.fmod(a, b)
        if name == "floor_mod":
            if isf:
                q = np.floor(_fcompute(dt, np.divide, a, b))
                return _fcompute(dt, np.subtract, a, _fcompute(dt, np.multiply, q, b))
            return np.mod(a, b)
        if name == "power":
            return _intrin("pow", dt, a, b)
        if name == "maximum":
            return _tvm_max(a, b)
        if name == "minimum":
            return _tvm_min(a, b)
        if name == "atan2":
            return _intrin("atan2", dt, a, b)
        if name == "log_add_exp":
            return _intrin("log", dt, _fcompute(dt, np.add, _intrin("exp", dt, a), _intrin("exp", dt, b)))
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
    v = xp.asarray(args.data(i), dtype=_np(args.dtype(i)))
    return xp.reshape(v, (1,)).astype(_np(dt)) if args.kind(i) == "prim" else v.astype(_np(dt))


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
            a, b = _operand(args, 0, dt).astype(_np(cdt)), _operand(args, 1, dt).astype(_np(cdt))
            args.fail_if(b == 0, lambda: DivisionByZeroError(f"{op}: integer division by zero"), region=region)
            if _dt.is_int(cdt):
                lo = _dt.min_value(cdt)
                bad = (a == args.xp.asarray(lo, dtype=_np(cdt))) & (b == -1)
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


def _make_binary(name: str) -> OpDef:
    te_fn, kind, doc = _BINARY[name]
    te_fn = _TE_SPECIAL.get(name, te_fn)

    def infer(call, ctx):
        return common.infer_binary_broadcast(call, ctx, out_dtype="bool" if kind == "cmp" else None)

    def reference(args, attrs, call, ctx):
        a, b = args
        da, db = _dtype_of(a), _dtype_of(b)
        dt = matched_dtype(da, db)
        xa, xb = _as_array(a).astype(_np(dt)), _as_array(b).astype(_np(dt))
        out = _ref_binary(name, xa, xb, dt, call)
        out_dt = "bool" if kind == "cmp" else _inferred_dtype(call, da)
        return _finish(call, out, args, out_dt)

    def legalize(call, ctx):
        if not _known(call) or not isinstance(call.struct_info, TensorStructInfo):
            return None
        a0, a1 = call.args
        a1 = try_scalar_const(a1)
        if isinstance(a1, rx.Expr):
            a0 = try_scalar_const(a0)
        dt = matched_dtype(_arg_dtype(a0), _arg_dtype(a1))
        why = _binary_no_kernel(name, dt)
        if why is not None:
            raise _unsupported(call, why)
        out_dtype = call.struct_info.dtype

        def te_binary(x, y, out_shape):
            return broadcast_compute(te_fn, [x, y], out_shape, out_dtype, f"T_{name}")

        return ctx.call_te(te_binary, a0, a1, _out_shape(call), primfunc_name_hint=name)

    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x1"), arg("x2")), infer=infer,
                 check=_make_check_binary(name), reference=reference, legalize=legalize, category="elementwise",
                 doc=f"``R.{name}(x1, x2)``: {doc}, with numpy-style broadcasting (OP.{name}.C1).")


def _arg_dtype(a: Any) -> str:
    if isinstance(a, P.PrimExpr):
        return a.dtype
    return a.struct_info.dtype


# ---------------------------------------------------------------------------------------------------
# where, ewise_fma
# ---------------------------------------------------------------------------------------------------


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
    dt = matched_dtype(_dtype_of(x1), _dtype_of(x2))
    a, b = np.asarray(x1).astype(_np(dt)), np.asarray(x2).astype(_np(dt))
    out = np.where(cond, a, b)
    return out.astype(_np(_inferred_dtype(call, _dtype_of(x1))))


def _where_legalize(call, ctx):
    if not _known(call):
        return None
    out_dtype = call.struct_info.dtype

    def te_where(c, x, y, out_shape):
        def f(cv, xv, yv):
            # TVM's simplified form of ``condition != 0`` for a bool condition
            test = P.LT(P.IntImm(0, "int32"), te_ops.cast("int32", cv)) if cv.dtype == "bool" \
                else te_ops.ne(cv, te_ops.const(0, cv.dtype))
            return te_ops.select(test, xv, yv)
        return broadcast_compute(f, [c, x, y], out_shape, out_dtype, "T_where")

    return ctx.call_te(te_where, call.args[0], call.args[1], call.args[2], _out_shape(call),
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


def _fma_reference(args, attrs, call, ctx):
    x1, x2, x3 = args
    dt = _dtype_of(x1)
    if dt == "bool":
        return (x1.astype(np.int64) * x2.astype(np.int64) + x3.astype(np.int64)) != 0
    if _dt.is_float(dt):
        return _fcompute(dt, np.add, _fcompute(dt, np.multiply, x1, x2), x3)
    with np.errstate(all="ignore"):
        return (x1 * x2 + x3).astype(x1.dtype)


# ---------------------------------------------------------------------------------------------------
# nn activations
# ---------------------------------------------------------------------------------------------------


def _relu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    return _tvm_max(x, _c(0, dt)).astype(x.dtype)


def _leakyrelu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    alpha = _c(attrs["alpha"], dt)
    with np.errstate(all="ignore"):
        scaled = _fcompute(dt, np.multiply, x, alpha)
    return np.where(x > _c(0, dt), x, scaled).astype(x.dtype)


def _staged(dt: str):
    """Evaluate float ops in dtype ``dt`` with rounding after each one (OP.ELEMWISE.SEM.7)."""
    def op(fn, *xs):
        return _fcompute(dt, fn, *xs)
    return op


def _gelu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    f = _staged(dt)
    t1 = f(np.multiply, x, _c(0.5 ** 0.5, dt))
    e = _intrin("erf", "float32", t1.astype(_F32)).astype(t1.dtype) if dt == "float16" else _intrin("erf", dt, t1)
    t2 = f(np.multiply, e, _c(0.5, dt))
    t3 = f(np.add, _c(0.5, dt), t2)
    return f(np.multiply, x, t3)


def _gelu_tanh_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    f = _staged(dt)
    m1 = f(np.multiply, _c(0.5, dt), x)
    m2 = f(np.multiply, _c(math.sqrt(2.0 / math.pi), dt), x)
    m3 = f(np.multiply, _c(0.044715, dt), x)
    m4 = f(np.multiply, m3, x)
    a1 = f(np.add, _c(1.0, dt), m4)
    m5 = f(np.multiply, m2, a1)
    th = _intrin("tanh", dt, m5)
    a2 = f(np.add, _c(1.0, dt), th)
    return f(np.multiply, m1, a2)


def _silu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    s = _intrin("sigmoid", dt, x)
    return _fcompute(dt, np.multiply, x, s)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    f = _staged(dt)
    pos = _tvm_max(x, _c(0, dt))
    e = _intrin("exp", dt, x)
    sub = f(np.subtract, e, _c(1, dt))
    mul = f(np.multiply, _c(_SELU_ALPHA, dt), sub)
    neg = _tvm_min(_c(0, dt), mul)
    s = f(np.add, pos, neg)
    return f(np.multiply, _c(_SELU_SCALE, dt), s)


def _softplus_ref(args, attrs, call, ctx):
    x = args[0]
    dt = _dtype_of(x)
    f = _staged(dt)
    b, t = _c(attrs["beta"], dt), _c(attrs["threshold"], dt)
    bx = f(np.multiply, b, x)
    inv = f(np.divide, _c(1, dt), b)
    soft = f(np.multiply, inv, _intrin("log", dt, f(np.add, _c(1, dt), _intrin("exp", dt, bx))))
    return np.where(bx > t, x, soft).astype(x.dtype)


def _te_relu(x):
    return _elemwise_compute(lambda v: te_ops.max_(v, te_ops.const(0, v.dtype)), x)


def _te_leaky_relu(x, alpha):
    def f(v):
        return te_ops.select(te_ops.gt(v, te_ops.const(0, v.dtype)), v, te_ops.mul(v, te_ops.const(alpha, v.dtype)))
    return _elemwise_compute(f, x)


def _bc(name: str, fn, *xs, shape) -> te.Tensor:
    return broadcast_compute(fn, list(xs), shape, _operand_dtype(xs), name)


def _operand_dtype(xs) -> str:
    for x in xs:
        if isinstance(x, te.Tensor):
            return x.dtype
    return te_ops.as_expr(xs[0]).dtype


def _te_gelu(x):
    dt, s = x.dtype, list(x.shape)
    m = _bc("T_multiply", te_ops.mul, x, te_ops.const(0.5 ** 0.5, dt), shape=s)
    if dt == "float16":
        c1 = _elemwise_compute(lambda v: te_ops.cast("float32", v), m)
        c2 = _elemwise_compute(te.erf, c1)
        e = _elemwise_compute(lambda v: te_ops.cast("float16", v), c2)
    else:
        e = _elemwise_compute(te.erf, m)
    m2 = _bc("T_multiply", te_ops.mul, e, te_ops.const(0.5, dt), shape=s)
    a = _bc("T_add", te_ops.add, te_ops.const(0.5, dt), m2, shape=s)
    return _bc("T_multiply", te_ops.mul, x, a, shape=s)


def _te_gelu_tanh(x):
    dt, s = x.dtype, list(x.shape)
    m1 = _bc("T_multiply", te_ops.mul, te_ops.const(0.5, dt), x, shape=s)
    m2 = _bc("T_multiply", te_ops.mul, te_ops.const(math.sqrt(2.0 / math.pi), dt), x, shape=s)
    m3 = _bc("T_multiply", te_ops.mul, te_ops.const(0.044715, dt), x, shape=s)
    m4 = _bc("T_multiply", te_ops.mul, m3, x, shape=s)
    a1 = _bc("T_add", te_ops.add, te_ops.const(1, dt), m4, shape=s)
    m5 = _bc("T_multiply", te_ops.mul, m2, a1, shape=s)
    th = _elemwise_compute(te.tanh, m5)
    a2 = _bc("T_add", te_ops.add, te_ops.const(1.0, dt), th, shape=s)
    return _bc("T_multiply", te_ops.mul, m1, a2, shape=s)


def _te_silu(x):
    sg = _elemwise_compute(te.sigmoid, x)
    return _bc("T_multiply", te_ops.mul, x, sg, shape=list(x.shape))


def _te_selu(x):
    dt, s = x.dtype, list(x.shape)
    pos = _bc("T_maximum", te_ops.max_, x, te_ops.const(0, dt), shape=s)
    e = _elemwise_compute(te.exp, x)
    sub = _bc("T_subtract", te_ops.sub, e, te_ops.const(1, dt), shape=s)
    mul = _bc("T_multiply", te_ops.mul, te_ops.const(_SELU_ALPHA, dt), sub, shape=s)
    neg = _bc("T_minimum", te_ops.min_, te_ops.const(0, dt), mul, shape=s)
    add = _bc("T_add", te_ops.add, pos, neg, shape=s)
    return _bc("T_multiply", te_ops.mul, te_ops.const(_SELU_SCALE, dt), add, shape=s)


def _te_softplus(x, beta, threshold):
    def f(v):
        b = te_ops.const(beta, v.dtype)
        t = te_ops.const(threshold, v.dtype)
        bx = te_ops.mul(b, v)
        soft = te_ops.mul(te_ops.div(1, b), te.log(te_ops.add(1, te.exp(bx))))
        return te_ops.select(te_ops.gt(bx, t), v, soft)
    return _elemwise_compute(f, x)


def _nn_legalize(te_fn, name: str, attr_names: Sequence[str] = ()):
    def legalize(call, ctx):
        if not _known(call):
            return None
        extra = [call.attrs[a] for a in attr_names]
        return ctx.call_te(te_fn, call.args[0], *extra, primfunc_name_hint=name)
    return legalize


def _make_nn(name: str, float_only: bool, reference, te_fn, primfunc: str, attrs_params=(),
             doc: str = "") -> OpDef:
    def infer(call, ctx):
        return common.infer_unary(call, ctx, require_float_dtype=float_only)

    def ref(args, a, call, ctx):
        return np.asarray(reference(args, a, call, ctx))

    return OpDef(name=f"relax.nn.{name}", script=f"R.nn.{name}", params=(arg("data"),) + tuple(attrs_params),
                 infer=infer, reference=ref,
                 legalize=_nn_legalize(te_fn, primfunc, [p.name for p in attrs_params]),
                 category="elementwise", doc=f"``R.nn.{name}``: {doc} (OP.nn.{name}.C1).")


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

FLOAT_UNARY_OPS = _FLOAT_UNARY
ANY_UNARY_OPS = tuple(sorted(_ANY_UNARY))
BINARY_OPS = tuple(sorted(_BINARY))
NN_OPS = ("relu", "leakyrelu", "gelu", "gelu_tanh", "silu", "selu", "softplus")


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = []


def _define_all() -> None:
    for n in FLOAT_UNARY_OPS:
        OPS.append(_make_float_unary(n))
    for n in ANY_UNARY_OPS:
        OPS.append(_make_any_unary(n))
    OPS.append(OpDef(name="relax.clip", script="R.clip", params=_CLIP_PARAMS, infer=_clip_infer,
                   check=_check_clip, reference=_clip_reference, legalize=_clip_legalize, parse_call=_clip_parse_call,
                   category="elementwise",
                   doc="``R.clip(x, min, max)``: ``max(min(x, max), min)`` with the bounds cast to "
                       "x's dtype; bounds are PrimValues (OP.clip.C1)."))
    for n in BINARY_OPS:
        OPS.append(_make_binary(n))
    OPS.append(OpDef(name="relax.where", script="R.where", params=(arg("condition"), arg("x1"), arg("x2")),
                   infer=_where_infer, check=_check_where, reference=_where_reference, legalize=_where_legalize,
                   category="elementwise",
                   doc="``R.where(condition, x1, x2)``: x1 where condition else x2, broadcasting all "
                       "three (OP.where.C1)."))
    OPS.append(OpDef(name="relax.ewise_fma", script="R.ewise_fma", params=(arg("x1"), arg("x2"), arg("x3")),
                   infer=_fma_infer, check=_check_fma, reference=_fma_reference, category="elementwise",
                   legalize_exempt="TVM 0.25 registers no legalization for relax.ewise_fma",
                   doc="``R.ewise_fma(x1, x2, x3)``: x1 * x2 + x3 on equal shapes (OP.ewise_fma.C1)."))
    OPS.append(_make_nn("relu", False, _relu_ref, _te_relu, "relu", doc="max(x, 0)"))
    OPS.append(_make_nn("leakyrelu", True, _leakyrelu_ref, _te_leaky_relu, "leaky_relu",
                      (attr("alpha", "float", 0.01),), doc="x > 0 ? x : alpha * x"))
    OPS.append(_make_nn("gelu", True, _gelu_ref, _te_gelu, "gelu",
                      doc="x * (0.5 + erf(x / sqrt(2)) * 0.5)"))
    OPS.append(_make_nn("gelu_tanh", True, _gelu_tanh_ref, _te_gelu_tanh, "gelu_tanh",
                      doc="0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2)))"))
    OPS.append(_make_nn("silu", True, _silu_ref, _te_silu, "silu", doc="x * sigmoid(x)"))
    OPS.append(_make_nn("selu", True, _selu_ref, _te_selu, "selu",
                      doc="scale * (max(x, 0) + min(0, alpha * (exp(x) - 1)))"))
    OPS.append(_make_nn("softplus", True, _softplus_ref, _te_softplus, "softplus",
                      (attr("beta", "float", 1.0), attr("threshold", "float", 20.0)),
                      doc="beta x > threshold ? x : log(1 + exp(beta x)) / beta"))


_define_all()

__all__ = ["FLOAT_UNARY_OPS", "ANY_UNARY_OPS", "BINARY_OPS", "NN_OPS", "matched_dtype", "try_scalar_const",
           "broadcast_compute"]

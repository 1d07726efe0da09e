"""Elementwise operators: unary math, binary broadcasting arithmetic/comparison/logic, ``where``,
``ewise_fma``, ``clip`` and the elementwise ``nn`` activations (spec pages ``spec/ops/<op>.md``).

Every entry has TVM 0.25's script name and parameters, struct-info inference (through
:mod:`relax_ref.ops.common`), reference semantics over numpy and a legalization built with
:mod:`relax_ref.ops.te` mirroring TVM's ``LegalizeOps`` kernels (PrimFunc names ``tir_exp``, ``add``,
``gelu`` ...; block names ``compute``, ``T_add`` ...).

This module holds the family's table :data:`OPS`, the unary operators and ``clip``; the binary
operators, ``where`` and ``ewise_fma`` live in :mod:`.elementwise_binary`, the activations in
:mod:`.elementwise_activation`, the shared numpy and TE helpers in :mod:`.elementwise_util`.

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
   On bfloat16, ``sigmoid``, ``rsqrt``, ``nn.silu``, ``nn.gelu``, ``nn.gelu_tanh``, ``nn.selu`` and
   ``nn.softplus`` are their float32 formula rounded once (PRIM.FLOAT.7, OP.SEM.7, as TVM computes them).

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

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from ..errors import UnsupportedError
from ..ir import dtype as _dt
from ..ir.struct_info import TensorStructInfo
from . import common
from . import te
from . import te_ops
from .args import OpArgs
from .checks import no_kernel
from .elementwise_activation import ACTIVATIONS, NN_OPS
from .elementwise_binary import BINARY_OPS, EWISE_FMA, WHERE, binary_op
from .elementwise_util import (
    F32, broadcast_compute, dtype_of, elemwise_compute, fcompute, low_precision, matched_dtype, np_const, np_dtype,
    np_intrinsic, shapes_known, try_scalar_const, tvm_max, tvm_min, unsupported,
)
from .opdef import OpDef, arg, build_call, number_value

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
        dt = dtype_of(x)
        if name == "erf" and dt == "float16":  # TVM's kernel: erf of the value cast to float32
            return np_intrinsic("erf", "float32", x.astype(F32)).astype(x.dtype)
        return np_intrinsic(name, dt, x)

    def legalize(call, ctx):
        if not shapes_known(call):
            return None
        if name == "erf":
            def te_erf(x):
                if x.dtype == "float16":
                    a = elemwise_compute(lambda v: te_ops.cast("float32", v), x)
                    b = elemwise_compute(te.erf, a)
                    return elemwise_compute(lambda v: te_ops.cast("float16", v), b)
                return elemwise_compute(te.erf, x)
            return ctx.call_te(te_erf, call.args[0], primfunc_name_hint="erf")
        intrin = getattr(te, name)
        return ctx.call_te(lambda x: elemwise_compute(intrin, x), call.args[0],
                           primfunc_name_hint=f"tir_{name}")

    return OpDef(name=f"relax.{name}", script=f"R.{name}", params=(arg("x"),), infer=infer,
                 reference=reference, legalize=legalize, category="elementwise",
                 doc=_unary_doc(name, f"elementwise {name}; float dtypes only (OP.{name}.C1)."))


def _identity_if_int(fn: Callable[[np.ndarray], np.ndarray]):
    def f(x: np.ndarray) -> np.ndarray:
        dt = dtype_of(x)
        if not _dt.is_float(dt):
            return np.array(x, copy=True)
        return fcompute(dt, fn, x)
    return f


def _ref_abs(x, call):
    dt = dtype_of(x)
    if _dt.is_uint(dt):
        return np.array(x, copy=True)
    with np.errstate(all="ignore"):
        return np.abs(x)


def _ref_negative(x, call):
    with np.errstate(all="ignore"):
        return np.negative(x)


def _ref_sign(x, call):
    dt = dtype_of(x)
    one, mone, zero = np_const(1, dt), np_const(-1, dt), np_const(0, dt)
    return np.where(x > zero, one, np.where(x < zero, mone, zero)).astype(x.dtype)


def _ref_square(x, call):
    with np.errstate(all="ignore"):
        return np.multiply(x, x)


def _ref_check(kind: str):
    fns = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}
    const = {"isnan": False, "isinf": False, "isfinite": True}

    def f(x, call):
        dt = dtype_of(x)
        if not _dt.is_float(dt):
            return np.full(x.shape, const[kind], dtype=bool)
        return fns[kind](x.astype(F32) if low_precision(dt) else x)
    return f


def _ref_logical_not(x, call):
    return np.logical_not(x)


def _ref_bitwise_not(x, call):
    return np.invert(x)


def _te_abs(x):
    return elemwise_compute(te_ops.abs_, x)


def _te_negative(x):
    return elemwise_compute(te_ops.neg, x)


def _te_sign(x):
    dt = x.dtype
    zero, one, mone = te_ops.const(0, dt), te_ops.const(1, dt), te_ops.const(-1, dt)

    def f(v):
        return te_ops.select(te_ops.gt(v, zero), one, te_ops.select(te_ops.lt(v, zero), mone, zero))

    return elemwise_compute(f, x, name="T_sign", ax=True)


def _te_square(x):
    return elemwise_compute(lambda v: te_ops.mul(v, v), x, name="T_multiply", ax=True)


_TE_UNARY: Dict[str, Callable[[te.Tensor], te.Tensor]] = {
    "abs": _te_abs,
    "negative": _te_negative,
    "sign": _te_sign,
    "square": _te_square,
    "floor": lambda x: elemwise_compute(te_ops.floor, x),
    "ceil": lambda x: elemwise_compute(te_ops.ceil, x),
    "trunc": lambda x: elemwise_compute(te_ops.trunc, x),
    "round": lambda x: elemwise_compute(te_ops.round_, x),
    "isnan": lambda x: elemwise_compute(te_ops.isnan, x),
    "isinf": lambda x: elemwise_compute(te_ops.isinf, x),
    "isfinite": lambda x: elemwise_compute(te_ops.isfinite, x),
    "logical_not": lambda x: elemwise_compute(te_ops.logical_not, x, name="T_logical_not", ax=True),
    "bitwise_not": lambda x: elemwise_compute(te_ops.bitwise_not, x, name="T_bitwise_not", ax=True),
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
        if not shapes_known(call):
            return None
        dt = call.args[0].struct_info.dtype
        if lacks_kernel(dt):
            raise unsupported(call, f"{name} of a {dt} tensor")
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
    dt = dtype_of(x)
    lo_v = np.array(lo.value).astype(np_dtype(dt))
    hi_v = np.array(hi.value).astype(np_dtype(dt))
    return tvm_max(tvm_min(x, hi_v), lo_v).astype(x.dtype)


def _clip_legalize(call, ctx):
    if not shapes_known(call) or not isinstance(call.struct_info, TensorStructInfo):
        return None

    def te_clip(x, a_min, a_max):
        def f(v):
            lo = te_ops.cast(v.dtype, a_min)
            hi = te_ops.cast(v.dtype, a_max)
            return te_ops.max_(te_ops.min_(v, hi), lo)
        return elemwise_compute(f, x)

    return ctx.call_te(te_clip, call.args[0], call.args[1], call.args[2], primfunc_name_hint="tir_clip")


def _clip_parse_call(opdef: OpDef, args: list, kwargs: dict, span):
    """As TVM's Python API: Python numbers become PrimValues (ints int64, floats float64)."""
    def conv(v):
        pv = number_value(v, span)
        return v if pv is None else pv
    args = [a if i == 0 else conv(a) for i, a in enumerate(args)]
    kwargs = {k: (conv(v) if k in ("min", "max") else v) for k, v in kwargs.items()}
    return build_call(_CLIP_PLAIN, args, kwargs, span)


_CLIP_PARAMS = (arg("x"), arg("min", "prim"), arg("max", "prim"))
_CLIP_PLAIN = OpDef(name="relax.clip", script="R.clip", params=_CLIP_PARAMS)


# ---------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------

FLOAT_UNARY_OPS = _FLOAT_UNARY
ANY_UNARY_OPS = tuple(sorted(_ANY_UNARY))


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
        OPS.append(binary_op(n))
    OPS.extend((WHERE, EWISE_FMA))
    OPS.extend(ACTIVATIONS)


_define_all()

__all__ = ["FLOAT_UNARY_OPS", "ANY_UNARY_OPS", "BINARY_OPS", "NN_OPS", "matched_dtype", "try_scalar_const",
           "broadcast_compute"]

"""Lowerings of the elementwise operators (semantics: ``relax_ref.ops.elementwise``, OP.ELEMWISE.*).

All of them are exact on padded operands (``padding="elementwise"``): an output element depends only
on the operand elements at its position. Run-time errors of the reference -- integer division by
zero, ``INT_MIN / -1``, shift amounts out of range, shapes that do not broadcast -- are checks over the
valid region of the output.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from relax_ref.errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from relax_ref.ir import dtype as _dt
from relax_ref.ops.elementwise import matched_dtype

from ..lowering import lowering
from ..prim_jax import np_dtype
from ..values import PrimV
from .common import (
    F32, as_array, c, check_broadcast, dtype_of, fcompute, finish, inferred_dtype, low_precision,
    out_valid_mask, tvm_max, tvm_min,
)


def _unsupported(ctx, what: str) -> UnsupportedError:
    return ctx.error(UnsupportedError, f"{ctx.op_name}: {what} (TVM 0.25 has no kernel for it)")


# ---------------------------------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------------------------------

_FLOAT_UNARY = {
    "acos": jnp.arccos, "acosh": jnp.arccosh, "asin": jnp.arcsin, "asinh": jnp.arcsinh, "atan": jnp.arctan,
    "atanh": jnp.arctanh, "cos": jnp.cos, "cosh": jnp.cosh, "erf": lax.erf, "exp": jnp.exp, "log": jnp.log,
    "sin": jnp.sin, "sinh": jnp.sinh, "sqrt": jnp.sqrt, "tan": jnp.tan, "tanh": jnp.tanh,
}


def _float_unary(name: str, fn):
    @lowering(f"relax.{name}", padding="elementwise")
    def low(ctx, x):
        dt = dtype_of(x)
        return fcompute(dt, fn, x)
    return low


for _n, _f in _FLOAT_UNARY.items():
    _float_unary(_n, _f)


@lowering("relax.rsqrt", padding="elementwise")
def _rsqrt(ctx, x):
    dt = dtype_of(x)
    one = c(1, dt)
    if low_precision(dt):
        return (one / jnp.sqrt(x.astype(F32)).astype(np_dtype(dt))).astype(np_dtype(dt))
    return one / jnp.sqrt(x)


def sigmoid(x, dt: str):
    """The TIR intrinsic: ``1 / (1 + exp(-x))``, each step rounded in the dtype."""
    one = c(1, dt)
    e = fcompute(dt, lambda v: jnp.exp(-v), x)
    return fcompute(dt, lambda a: one.astype(a.dtype) / (one.astype(a.dtype) + a), e)


@lowering("relax.sigmoid", padding="elementwise")
def _sigmoid(ctx, x):
    return sigmoid(x, dtype_of(x))


def _identity_if_int(fn):
    def f(ctx, x):
        dt = dtype_of(x)
        if not _dt.is_float(dt):
            return x
        return fcompute(dt, fn, x)
    return f


for _n, _f in [("floor", jnp.floor), ("ceil", jnp.ceil), ("trunc", jnp.trunc), ("round", jnp.round)]:
    lowering(f"relax.{_n}", padding="elementwise")(_identity_if_int(_f))


def _unary_prim(fn):
    """Unary ops accept prim operands as shape-[1] tensors (NORM.OP.BCAST.3)."""
    def low(ctx, x):
        if isinstance(x, PrimV):
            out = fn(ctx, as_array(x))
            return out
        return fn(ctx, x)
    return low


@lowering("relax.abs", padding="elementwise")
def _abs(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if dt == "bool":
        raise _unsupported(ctx, "abs of a bool tensor")
    if _dt.is_uint(dt):
        return x
    return jnp.abs(x)


@lowering("relax.negative", padding="elementwise")
def _negative(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if dt == "bool" or _dt.is_uint(dt):
        raise _unsupported(ctx, f"negative of a {dt} tensor")
    return jnp.negative(x)


@lowering("relax.sign", padding="elementwise")
def _sign(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if dt == "bool" or _dt.is_uint(dt):
        raise _unsupported(ctx, f"sign of a {dt} tensor")
    one, mone, zero = c(1, dt), c(-1, dt), c(0, dt)
    return jnp.where(x > zero, one, jnp.where(x < zero, mone, zero)).astype(x.dtype)


@lowering("relax.square", padding="elementwise")
def _square(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if dt == "bool":
        return (x.astype(jnp.int64) * x.astype(jnp.int64)) != 0
    return fcompute(dt, lambda v: v * v, x) if _dt.is_float(dt) else x * x


def _check_kind(kind: str, fn, const: bool):
    def low(ctx, x):
        x = as_array(x)
        dt = dtype_of(x)
        if dt == "bool":
            raise _unsupported(ctx, f"{kind} of a bool tensor")
        if not _dt.is_float(dt):
            return jnp.full(x.shape, const, bool)
        return fn(x.astype(F32) if low_precision(dt) else x)
    return low


lowering("relax.isnan", padding="elementwise")(_check_kind("isnan", jnp.isnan, False))
lowering("relax.isinf", padding="elementwise")(_check_kind("isinf", jnp.isinf, False))
lowering("relax.isfinite", padding="elementwise")(_check_kind("isfinite", jnp.isfinite, True))


@lowering("relax.logical_not", padding="elementwise")
def _logical_not(ctx, x):
    x = as_array(x)
    if dtype_of(x) != "bool":
        raise _unsupported(ctx, f"logical_not of a {dtype_of(x)} tensor (only bool)")
    return jnp.logical_not(x)


@lowering("relax.bitwise_not", padding="elementwise")
def _bitwise_not(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if _dt.is_float(dt):
        raise _unsupported(ctx, f"bitwise_not of a {dt} tensor")
    return jnp.invert(x)


# the unary ops above were registered without the prim wrapper for the float ones; prim operands of
# float unary ops are converted the same way
for _n in list(_FLOAT_UNARY) + ["rsqrt", "sigmoid", "floor", "ceil", "trunc", "round"]:
    from ..lowering import LOWERINGS, JaxLowering

    _low = LOWERINGS[f"relax.{_n}"]
    LOWERINGS[f"relax.{_n}"] = JaxLowering(_unary_prim(_low.fn), "elementwise", False, f"relax.{_n}")


# ---------------------------------------------------------------------------------------------------
# clip
# ---------------------------------------------------------------------------------------------------


@lowering("relax.clip", padding="elementwise")
def _clip(ctx, x, lo, hi):
    if not hasattr(x, "shape") or isinstance(x, PrimV):
        raise ctx.error(UnsupportedError, "relax.clip: only tensor inputs can be clipped at run time")
    dt = dtype_of(x)
    t = np_dtype(dt)
    lo_v = jnp.asarray(lo.val).astype(t)
    hi_v = jnp.asarray(hi.val).astype(t)
    return tvm_max(tvm_min(x, hi_v), lo_v).astype(x.dtype)


# ---------------------------------------------------------------------------------------------------
# Binary
# ---------------------------------------------------------------------------------------------------

_BOOL_AS_INT = {"add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "maximum",
                "minimum"}
_CMP = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def _binary_support(ctx, name: str, dt: str) -> None:
    isf = _dt.is_float(dt)
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor") and isf:
        raise _unsupported(ctx, f"{name} of {dt} operands")
    if name in ("left_shift", "right_shift") and (isf or dt == "bool"):
        raise _unsupported(ctx, f"{name} of {dt} operands")
    if name in ("logical_and", "logical_or") and dt != "bool":
        raise _unsupported(ctx, f"{name} of {dt} operands (only bool)")
    if name in ("power", "log_add_exp", "atan2") and not isf:
        raise _unsupported(ctx, f"{name} of {dt} operands (only floats)")


def _int_div_checks(ctx, a, b, dt: str, vm) -> None:
    name = ctx.op_name
    zero = b == 0
    ctx.check(zero, lambda: DivisionByZeroError(f"{name}: integer division by zero"), vm)
    if _dt.is_int(dt):
        lo = _dt.min_value(dt)
        ovf = (a == c(lo, dt)) & (b == c(-1, dt))
        ctx.check(ovf, lambda: OpRuntimeError(f"{name}: integer division overflow ({lo} / -1)"), vm)


def _safe(b):
    return jnp.where(b == 0, jnp.ones((), b.dtype), b)


def _trunc_div(a, b):
    q = jnp.abs(a) // jnp.abs(b)
    return jnp.where((a < 0) == (b < 0), q, -q)


def _shift_check(ctx, b, dt: str, vm) -> None:
    bits = _dt.bits(dt)
    name = ctx.op_name
    ctx.check((b < 0) | (b >= bits),
              lambda: OpRuntimeError(f"{name}: shift amount out of range [0, {bits}) for {dt}"), vm)


def binary(ctx, name: str, a, b, dt: str, vm):
    """``a op b`` in the matched dtype ``dt`` (operands already converted); ``vm`` is the valid
    region for run-time checks."""
    if dt == "bool" and name in _BOOL_AS_INT:
        out = binary(ctx, name, a.astype(jnp.int64), b.astype(jnp.int64), "int64", vm)
        return out != 0
    isf = _dt.is_float(dt)
    if name == "add":
        return fcompute(dt, jnp.add, a, b) if isf else a + b
    if name == "subtract":
        return fcompute(dt, jnp.subtract, a, b) if isf else a - b
    if name == "multiply":
        return fcompute(dt, jnp.multiply, a, b) if isf else a * b
    if name == "divide":
        if isf:
            return fcompute(dt, jnp.divide, a, b)
        _int_div_checks(ctx, a, b, dt, vm)
        return _trunc_div(a, _safe(b)).astype(a.dtype)
    if name == "floor_divide":
        if isf:
            return jnp.floor(fcompute(dt, jnp.divide, a, b))
        _int_div_checks(ctx, a, b, dt, vm)
        return jnp.floor_divide(a, _safe(b))
    if name == "mod":
        if isf:
            return fcompute(dt, jnp.fmod, a, b)
        _int_div_checks(ctx, a, b, dt, vm)
        return jnp.fmod(a, _safe(b))
    if name == "floor_mod":
        if isf:
            q = jnp.floor(fcompute(dt, jnp.divide, a, b))
            return fcompute(dt, jnp.subtract, a, fcompute(dt, jnp.multiply, q, b))
        _int_div_checks(ctx, a, b, dt, vm)
        return jnp.remainder(a, _safe(b))
    if name == "power":
        return fcompute(dt, jnp.power, a, b)
    if name == "maximum":
        return tvm_max(a, b)
    if name == "minimum":
        return tvm_min(a, b)
    if name == "atan2":
        return fcompute(dt, jnp.arctan2, a, b)
    if name == "log_add_exp":
        ea = fcompute(dt, jnp.exp, a)
        eb = fcompute(dt, jnp.exp, b)
        return fcompute(dt, jnp.log, fcompute(dt, jnp.add, ea, eb))
    if name == "bitwise_and":
        return jnp.bitwise_and(a, b)
    if name == "bitwise_or":
        return jnp.bitwise_or(a, b)
    if name in ("bitwise_xor", "logical_xor"):
        return jnp.bitwise_xor(a, b)
    if name == "logical_and":
        return jnp.logical_and(a, b)
    if name == "logical_or":
        return jnp.logical_or(a, b)
    if name == "left_shift":
        _shift_check(ctx, b, dt, vm)
        bits = _dt.bits(dt)
        return jnp.left_shift(a, jnp.clip(b, 0, bits - 1).astype(a.dtype))
    if name == "right_shift":
        _shift_check(ctx, b, dt, vm)
        bits = _dt.bits(dt)
        return jnp.right_shift(a, jnp.clip(b, 0, bits - 1).astype(a.dtype))
    if name == "equal":
        return jnp.equal(a, b)
    if name == "not_equal":
        if isf:
            return jnp.not_equal(a, b) & ~jnp.isnan(a) & ~jnp.isnan(b)
        return jnp.not_equal(a, b)
    if name == "less":
        return jnp.less(a, b)
    if name == "less_equal":
        return jnp.less_equal(a, b)
    if name == "greater":
        return jnp.greater(a, b)
    if name == "greater_equal":
        return jnp.greater_equal(a, b)
    raise KeyError(name)


def _make_binary(name: str):
    @lowering(f"relax.{name}", padding="elementwise")
    def low(ctx, x1, x2):
        da, db = dtype_of(x1), dtype_of(x2)
        dt = matched_dtype(da, db)
        _binary_support(ctx, name, dt)
        check_broadcast(ctx, (0, 1))
        t = np_dtype(dt)
        a, b = as_array(x1).astype(t), as_array(x2).astype(t)
        shape = jnp.broadcast_shapes(a.shape, b.shape)
        vm = out_valid_mask(ctx, shape)
        out = binary(ctx, name, a, b, dt, vm)
        out_dt = "bool" if name in _CMP else inferred_dtype(ctx, da)
        return finish(ctx, out, [x1, x2], out_dt)
    return low


for _n in ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "power", "maximum",
           "minimum", "atan2", "log_add_exp", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
           "logical_or", "logical_xor", "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal",
           "greater", "greater_equal"]:
    _make_binary(_n)


# ---------------------------------------------------------------------------------------------------
# where, ewise_fma
# ---------------------------------------------------------------------------------------------------


@lowering("relax.where", padding="elementwise")
def _where(ctx, cond, x1, x2):
    dt = matched_dtype(dtype_of(x1), dtype_of(x2))
    check_broadcast(ctx, (0, 1, 2))
    t = np_dtype(dt)
    out = jnp.where(cond, x1.astype(t), x2.astype(t))
    return out.astype(np_dtype(inferred_dtype(ctx, dtype_of(x1))))


@lowering("relax.ewise_fma", padding="elementwise")
def _fma(ctx, x1, x2, x3):
    d1, d2, d3 = ctx.vals[0].dims(), ctx.vals[1].dims(), ctx.vals[2].dims()
    if len(d1) != len(d2) or len(d2) != len(d3) or x1.shape != x2.shape or x2.shape != x3.shape:
        raise ctx.error(OpRuntimeError, f"relax.ewise_fma: operand shapes {x1.shape}, {x2.shape}, {x3.shape} differ")
    for a, b, cc in zip(d1, d2, d3):
        if a.is_static and b.is_static and cc.is_static:
            if not (a.val == b.val == cc.val):
                raise ctx.error(OpRuntimeError, "relax.ewise_fma: operand shapes differ")
        else:
            bad = (jnp.asarray(a.val) != jnp.asarray(b.val)) | (jnp.asarray(b.val) != jnp.asarray(cc.val))
            ctx.check(bad, lambda: OpRuntimeError("relax.ewise_fma: operand shapes differ"))
    dt = dtype_of(x1)
    if dt == "bool":
        return (x1.astype(jnp.int64) * x2.astype(jnp.int64) + x3.astype(jnp.int64)) != 0
    if _dt.is_float(dt):
        return fcompute(dt, jnp.add, fcompute(dt, jnp.multiply, x1, x2), x3)
    return (x1 * x2 + x3).astype(x1.dtype)


# ---------------------------------------------------------------------------------------------------
# nn activations
# ---------------------------------------------------------------------------------------------------


@lowering("relax.nn.relu", padding="elementwise")
def _relu(ctx, x):
    dt = dtype_of(x)
    return tvm_max(x, c(0, dt)).astype(x.dtype)


@lowering("relax.nn.leakyrelu", padding="elementwise")
def _leakyrelu(ctx, x):
    dt = dtype_of(x)
    alpha = c(ctx.attrs["alpha"], dt)
    scaled = fcompute(dt, jnp.multiply, x, alpha)
    return jnp.where(x > c(0, dt), x, scaled).astype(x.dtype)


def _erf(dt, x):
    if dt == "float16":
        return lax.erf(x.astype(F32)).astype(x.dtype)
    return fcompute(dt, lax.erf, x)


def gelu(x, dt: str):
    t1 = fcompute(dt, jnp.multiply, x, c(0.5 ** 0.5, dt))
    e = _erf(dt, t1)
    t2 = fcompute(dt, jnp.multiply, e, c(0.5, dt))
    t3 = fcompute(dt, jnp.add, c(0.5, dt), t2)
    return fcompute(dt, jnp.multiply, x, t3)


@lowering("relax.nn.gelu", padding="elementwise")
def _gelu(ctx, x):
    return gelu(x, dtype_of(x))


@lowering("relax.nn.gelu_tanh", padding="elementwise")
def _gelu_tanh(ctx, x):
    dt = dtype_of(x)

    def f(fn, *xs):
        return fcompute(dt, fn, *xs)
    m1 = f(jnp.multiply, c(0.5, dt), x)
    m2 = f(jnp.multiply, c(math.sqrt(2.0 / math.pi), dt), x)
    m3 = f(jnp.multiply, c(0.044715, dt), x)
    m4 = f(jnp.multiply, m3, x)
    a1 = f(jnp.add, c(1.0, dt), m4)
    m5 = f(jnp.multiply, m2, a1)
    th = f(jnp.tanh, m5)
    a2 = f(jnp.add, c(1.0, dt), th)
    return f(jnp.multiply, m1, a2)


def silu(x, dt: str):
    return fcompute(dt, jnp.multiply, x, sigmoid(x, dt))


@lowering("relax.nn.silu", padding="elementwise")
def _silu(ctx, x):
    return silu(x, dtype_of(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@lowering("relax.nn.selu", padding="elementwise")
def _selu(ctx, x):
    dt = dtype_of(x)

    def f(fn, *xs):
        return fcompute(dt, fn, *xs)
    pos = tvm_max(x, c(0, dt))
    e = f(jnp.exp, x)
    sub = f(jnp.subtract, e, c(1, dt))
    mul = f(jnp.multiply, c(_SELU_ALPHA, dt), sub)
    neg = tvm_min(c(0, dt), mul)
    s = f(jnp.add, pos, neg)
    return f(jnp.multiply, c(_SELU_SCALE, dt), s)


@lowering("relax.nn.softplus", padding="elementwise")
def _softplus(ctx, x):
    dt = dtype_of(x)

    def f(fn, *xs):
        return fcompute(dt, fn, *xs)
    b, t = c(ctx.attrs["beta"], dt), c(ctx.attrs["threshold"], dt)
    bx = f(jnp.multiply, b, x)
    inv = f(jnp.divide, c(1, dt), b)
    soft = f(jnp.multiply, inv, f(jnp.log, f(jnp.add, c(1, dt), f(jnp.exp, bx))))
    return jnp.where(bx > t, x, soft).astype(x.dtype)


__all__ = ["binary", "gelu", "silu", "sigmoid"]

"""Lowerings of the elementwise operators (semantics: ``relax_ref.ops.elementwise``, OP.ELEMWISE.*).

All of them are exact on padded operands (``padding="elementwise"``): an output element depends only
on the operand elements at its position. The run-time errors -- integer division by zero,
``INT_MIN / -1``, shift amounts out of range, shapes that do not broadcast, dtypes without a TVM kernel
-- are the operators' ``check`` (``relax_ref.ops.elementwise``), over the valid region.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from relax_ref.ir import dtype as _dt
from relax_ref.ops.elementwise import matched_dtype
from relax_ref.ops.elementwise_binary import MULTI_STAGE

from ..float_rules import plain_products
from ..laxops import astype
from ..lowering import lowering
from ..prim_jax import np_dtype
from ..values import PrimV
from .common import (
    F32, as_array, broadcast_padding, c, dtype_of, fcompute, finish, float32_once, inferred_dtype, low_precision,
    tvm_max, tvm_min,
)


# ---------------------------------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------------------------------

_FLOAT_UNARY = {
    "acos": jnp.arccos, "acosh": jnp.arccosh, "asin": jnp.arcsin, "asinh": jnp.arcsinh, "atan": jnp.arctan,
    "atanh": jnp.arctanh, "cos": jnp.cos, "cosh": jnp.cosh, "erf": lax.erf, "exp": jnp.exp, "log": jnp.log,
    "sin": jnp.sin, "sinh": jnp.sinh, "sqrt": jnp.sqrt, "tan": jnp.tan, "tanh": jnp.tanh,
}


def _unary_prim(fn):
    """Unary ops accept prim operands as shape-[1] tensors (NORM.OP.BCAST.3)."""
    def low(ctx, x):
        if isinstance(x, PrimV):
            return fn(ctx, as_array(x))
        return fn(ctx, x)
    return low


def _float_unary(name: str, fn):
    def low(ctx, x):
        return fcompute(dtype_of(x), fn, x)
    lowering(f"relax.{name}", padding="elementwise")(_unary_prim(low))


for _n, _f in _FLOAT_UNARY.items():
    _float_unary(_n, _f)


@lowering("relax.rsqrt", padding="elementwise")
@_unary_prim
def _rsqrt(ctx, x):
    dt = dtype_of(x)
    one = c(1, dt)
    if _dt.float32_intermediates(dt):                 # PRIM.FLOAT.7: rounded once
        return (c(1, "float32") / jnp.sqrt(x.astype(F32))).astype(np_dtype(dt))
    if low_precision(dt):
        return (one / jnp.sqrt(x.astype(F32)).astype(np_dtype(dt))).astype(np_dtype(dt))
    return one / jnp.sqrt(x)


def sigmoid(x, dt: str):
    """The TIR intrinsic: ``1 / (1 + exp(-x))``, each step rounded in the dtype (a float16's ``1 + e``
    is rounded before the division, as the reference's); bfloat16: the float32 formula rounded once
    (PRIM.FLOAT.7)."""
    if _dt.float32_intermediates(dt):
        return sigmoid(x.astype(F32), "float32").astype(x.dtype)
    one = c(1, dt)
    e = fcompute(dt, lambda v: jnp.exp(-v), x)
    return fcompute(dt, jnp.divide, one, fcompute(dt, jnp.add, one, e))


@lowering("relax.sigmoid", padding="elementwise")
@_unary_prim
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
    lowering(f"relax.{_n}", padding="elementwise")(_unary_prim(_identity_if_int(_f)))


@lowering("relax.abs", padding="elementwise")
def _abs(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
    if _dt.is_uint(dt):
        return x
    return jnp.abs(x)


@lowering("relax.negative", padding="elementwise")
def _negative(ctx, x):
    return jnp.negative(as_array(x))


@lowering("relax.sign", padding="elementwise")
def _sign(ctx, x):
    x = as_array(x)
    dt = dtype_of(x)
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
        if not _dt.is_float(dt):
            return jnp.full(x.shape, const, bool)
        return fn(x.astype(F32) if low_precision(dt) else x)
    return low


lowering("relax.isnan", padding="elementwise")(_check_kind("isnan", jnp.isnan, False))
lowering("relax.isinf", padding="elementwise")(_check_kind("isinf", jnp.isinf, False))
lowering("relax.isfinite", padding="elementwise")(_check_kind("isfinite", jnp.isfinite, True))


@lowering("relax.logical_not", padding="elementwise")
def _logical_not(ctx, x):
    return jnp.logical_not(as_array(x))


@lowering("relax.bitwise_not", padding="elementwise")
def _bitwise_not(ctx, x):
    return jnp.invert(as_array(x))


# ---------------------------------------------------------------------------------------------------
# clip
# ---------------------------------------------------------------------------------------------------


@lowering("relax.clip", padding="elementwise")
def _clip(ctx, x, lo, hi):
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


def _safe(b):
    return jnp.where(b == 0, jnp.ones((), b.dtype), b)


def _trunc_div(a, b):
    q = jnp.abs(a) // jnp.abs(b)
    return jnp.where((a < 0) == (b < 0), q, -q)


def binary(name: str, a, b, dt: str):
    """``a op b`` in the matched dtype ``dt`` (operands already converted; the operator's check has
    excluded zero divisors, ``INT_MIN / -1`` and shift amounts out of range on the valid region)."""
    if dt == "bool" and name in _BOOL_AS_INT:
        out = binary(name, a.astype(jnp.int64), b.astype(jnp.int64), "int64")
        return out != 0
    if name in MULTI_STAGE and _dt.float32_intermediates(dt):       # OP.SEM.7: rounded once
        return binary(name, a.astype(F32), b.astype(F32), "float32").astype(a.dtype)
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
        return _trunc_div(a, _safe(b)).astype(a.dtype)
    if name == "floor_divide":
        if isf:
            return jnp.floor(fcompute(dt, jnp.divide, a, b))
        return jnp.floor_divide(a, _safe(b))
    if name == "mod":
        if isf:
            return fcompute(dt, jnp.fmod, a, b)
        return jnp.fmod(a, _safe(b))
    if name == "floor_mod":
        if isf:
            q = jnp.floor(fcompute(dt, jnp.divide, a, b))
            return fcompute(dt, jnp.subtract, a, fcompute(dt, jnp.multiply, q, b))
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
        bits = _dt.bits(dt)
        return jnp.left_shift(a, jnp.clip(b, 0, bits - 1).astype(a.dtype))
    if name == "right_shift":
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
        broadcast_padding(ctx, (0, 1))
        t = np_dtype(dt)
        a, b = astype(as_array(x1), t), astype(as_array(x2), t)
        out = binary(name, a, b, dt)
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
    broadcast_padding(ctx, (0, 1, 2))
    t = np_dtype(dt)
    out = jnp.where(cond, x1.astype(t), x2.astype(t))
    return out.astype(np_dtype(inferred_dtype(ctx, dtype_of(x1))))


@lowering("relax.ewise_fma", padding="elementwise")
@float32_once
def _fma(ctx, x1, x2, x3):
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
    """``x * (0.5 + erf(x * sqrt(1/2)) * 0.5)``, each node rounded (PRIM.FLOAT.1). Only the last
    product carries the multiply barrier (none when the walker finds the result used only as a
    factor): ``x * sqrt(1/2)`` is read only by ``erf``, whose XLA implementation clamps its argument
    first, and ``erf * 0.5`` is exact (a power of two times ``|erf| <= 1``; where it is not, below
    2**-126, the sum is 0.5 either way), so contracting it with the add changes nothing."""
    if _dt.float32_intermediates(dt):             # OP.SEM.7: the float32 formula, rounded once
        return gelu(x.astype(F32), "float32").astype(x.dtype)
    with plain_products():
        t1 = fcompute(dt, jnp.multiply, x, c(0.5 ** 0.5, dt))
        e = _erf(dt, t1)
        t2 = fcompute(dt, jnp.multiply, e, c(0.5, dt))
    t3 = fcompute(dt, jnp.add, c(0.5, dt), t2)
    return fcompute(dt, jnp.multiply, x, t3)


@lowering("relax.nn.gelu", padding="elementwise")
def _gelu(ctx, x):
    return gelu(x, dtype_of(x))


@lowering("relax.nn.gelu_tanh", padding="elementwise")
@float32_once
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
    """``x * sigmoid(x)``, two rounded stages; bfloat16: in float32, rounded once (OP.SEM.7)."""
    if _dt.float32_intermediates(dt):
        return silu(x.astype(F32), "float32").astype(x.dtype)
    return fcompute(dt, jnp.multiply, x, sigmoid(x, dt))


@lowering("relax.nn.silu", padding="elementwise")
def _silu(ctx, x):
    return silu(x, dtype_of(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@lowering("relax.nn.selu", padding="elementwise")
@float32_once
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
@float32_once
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

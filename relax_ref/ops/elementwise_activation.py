"""The elementwise ``nn`` activations ``relu``, ``leakyrelu``, ``gelu``, ``gelu_tanh``, ``silu``, ``selu``,
``softplus`` (entries listed in :data:`relax_ref.ops.elementwise.OPS`; semantics OP.ELEMWISE.SEM.* in that
module's docstring).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import common
from . import te
from . import te_ops
from .elementwise_util import (
    F32, broadcast_compute, dtype_of, elemwise_compute, fcompute, np_const, np_intrinsic, shapes_known, tvm_max,
    tvm_min,
)
from .opdef import OpDef, arg, attr
from .precision import float32_once


def _relu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    return tvm_max(x, np_const(0, dt)).astype(x.dtype)


def _leakyrelu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    alpha = np_const(attrs["alpha"], dt)
    with np.errstate(all="ignore"):
        scaled = fcompute(dt, np.multiply, x, alpha)
    return np.where(x > np_const(0, dt), x, scaled).astype(x.dtype)


def _staged(dt: str):
    """Evaluate float ops in dtype ``dt`` with rounding after each one (OP.ELEMWISE.SEM.7)."""
    def op(fn, *xs):
        return fcompute(dt, fn, *xs)
    return op


@float32_once
def _gelu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    f = _staged(dt)
    t1 = f(np.multiply, x, np_const(0.5 ** 0.5, dt))
    e = np_intrinsic("erf", "float32", t1.astype(F32)).astype(t1.dtype) if dt == "float16" else np_intrinsic("erf", dt,
                                                                                                             t1)
    t2 = f(np.multiply, e, np_const(0.5, dt))
    t3 = f(np.add, np_const(0.5, dt), t2)
    return f(np.multiply, x, t3)


@float32_once
def _gelu_tanh_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    f = _staged(dt)
    m1 = f(np.multiply, np_const(0.5, dt), x)
    m2 = f(np.multiply, np_const(math.sqrt(2.0 / math.pi), dt), x)
    m3 = f(np.multiply, np_const(0.044715, dt), x)
    m4 = f(np.multiply, m3, x)
    a1 = f(np.add, np_const(1.0, dt), m4)
    m5 = f(np.multiply, m2, a1)
    th = np_intrinsic("tanh", dt, m5)
    a2 = f(np.add, np_const(1.0, dt), th)
    return f(np.multiply, m1, a2)


@float32_once
def _silu_ref(args, attrs, call, ctx):
    """``x * sigmoid(x)``: two rounded stages; on bfloat16 one float32 formula rounded once (OP.SEM.7)."""
    x = args[0]
    dt = dtype_of(x)
    s = np_intrinsic("sigmoid", dt, x)
    return fcompute(dt, np.multiply, x, s)


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


@float32_once
def _selu_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    f = _staged(dt)
    pos = tvm_max(x, np_const(0, dt))
    e = np_intrinsic("exp", dt, x)
    sub = f(np.subtract, e, np_const(1, dt))
    mul = f(np.multiply, np_const(_SELU_ALPHA, dt), sub)
    neg = tvm_min(np_const(0, dt), mul)
    s = f(np.add, pos, neg)
    return f(np.multiply, np_const(_SELU_SCALE, dt), s)


@float32_once
def _softplus_ref(args, attrs, call, ctx):
    x = args[0]
    dt = dtype_of(x)
    f = _staged(dt)
    b, t = np_const(attrs["beta"], dt), np_const(attrs["threshold"], dt)
    bx = f(np.multiply, b, x)
    inv = f(np.divide, np_const(1, dt), b)
    soft = f(np.multiply, inv, np_intrinsic("log", dt, f(np.add, np_const(1, dt), np_intrinsic("exp", dt, bx))))
    return np.where(bx > t, x, soft).astype(x.dtype)


def _te_relu(x):
    return elemwise_compute(lambda v: te_ops.max_(v, te_ops.const(0, v.dtype)), x)


def _te_leaky_relu(x, alpha):
    def f(v):
        return te_ops.select(te_ops.gt(v, te_ops.const(0, v.dtype)), v, te_ops.mul(v, te_ops.const(alpha, v.dtype)))
    return elemwise_compute(f, x)


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
        c1 = elemwise_compute(lambda v: te_ops.cast("float32", v), m)
        c2 = elemwise_compute(te.erf, c1)
        e = elemwise_compute(lambda v: te_ops.cast("float16", v), c2)
    else:
        e = elemwise_compute(te.erf, m)
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
    th = elemwise_compute(te.tanh, m5)
    a2 = _bc("T_add", te_ops.add, te_ops.const(1.0, dt), th, shape=s)
    return _bc("T_multiply", te_ops.mul, m1, a2, shape=s)


def _te_silu(x):
    sg = elemwise_compute(te.sigmoid, x)
    return _bc("T_multiply", te_ops.mul, x, sg, shape=list(x.shape))


def _te_selu(x):
    dt, s = x.dtype, list(x.shape)
    pos = _bc("T_maximum", te_ops.max_, x, te_ops.const(0, dt), shape=s)
    e = elemwise_compute(te.exp, x)
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
    return elemwise_compute(f, x)


def _nn_legalize(te_fn, name: str, attr_names: Sequence[str] = ()):
    def legalize(call, ctx):
        if not shapes_known(call):
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


#: the entries of this module in definition order
ACTIVATIONS = (
    _make_nn("relu", False, _relu_ref, _te_relu, "relu", doc="max(x, 0)"),
    _make_nn("leakyrelu", True, _leakyrelu_ref, _te_leaky_relu, "leaky_relu", (attr("alpha", "float", 0.01),),
             doc="x > 0 ? x : alpha * x"),
    _make_nn("gelu", True, _gelu_ref, _te_gelu, "gelu", doc="x * (0.5 + erf(x / sqrt(2)) * 0.5)"),
    _make_nn("gelu_tanh", True, _gelu_tanh_ref, _te_gelu_tanh, "gelu_tanh",
             doc="0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2)))"),
    _make_nn("silu", True, _silu_ref, _te_silu, "silu", doc="x * sigmoid(x)"),
    _make_nn("selu", True, _selu_ref, _te_selu, "selu", doc="scale * (max(x, 0) + min(0, alpha * (exp(x) - 1)))"),
    _make_nn("softplus", True, _softplus_ref, _te_softplus, "softplus",
             (attr("beta", "float", 1.0), attr("threshold", "float", 20.0)),
             doc="beta x > threshold ? x : log(1 + exp(beta x)) / beta"),
)
NN_OPS = ("relu", "leakyrelu", "gelu", "gelu_tanh", "silu", "selu", "softplus")

__all__ = ["ACTIVATIONS", "NN_OPS"]

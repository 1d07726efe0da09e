"""The gradients of Relax operators used by the Gradient pass (PASS.GRAD.3).

``GRADIENTS[op](orig_var, call, out_grad, ctx)`` returns one partial per argument of ``call``: the
adjoint contribution ``d target / d arg`` given ``out_grad = d target / d orig_var``, as a (nested)
Relax expression, or :data:`NO_GRAD` for an argument that is not differentiable (a shape, indices,
a condition). ``ctx.struct_info(expr)`` infers struct info without emitting anything. The formulas
are the usual ones (those of TVM 0.25's registrations, written the same way so that the emitted
program has the same form):

* ``add``/``subtract``: the output gradient (negated for the second operand of ``subtract``);
  ``multiply``: ``g * y``, ``g * x``; ``divide``: ``g / y``, ``-g * z / y``; ``power``:
  ``g * y * x ** (y - 1)``, ``g * z * log(x)``; ``maximum``/``minimum``: the gradient where the operand
  won (``where``); comparison, ``*_like`` and ``zeros``/``ones``/``full``: no gradient. A partial whose
  shape differs from its operand's (broadcasting) is summed back with ``collapse_sum_to``.
* Unary: ``abs``, ``cos``, ``exp`` (``g * z``), ``log``, ``negative``, ``sigmoid`` (``g * z * (1 - z)``),
  ``sin``, ``sqrt`` (``0.5 * g / z``), ``tanh`` (``g * (1 - z * z)``), ``nn.relu``
  (``where(x < 0, 0, g)``), ``nn.silu``, ``nn.softmax`` (``(g - sum(g * z, axis, keepdims)) * z``),
  ``nn.log_softmax`` (``g - sum(g, axis, keepdims) * exp(z)``), ``astype`` (back to the input dtype).
* ``sum``/``mean``/``variance`` (the reduced axes restored with ``expand_dims``, then broadcast),
  ``permute_dims`` (the inverse permutation), ``concat``/``split`` (each other), ``expand_dims``
  (``squeeze``), ``reshape``, ``broadcast_to`` (``collapse_sum_to``), ``cumsum``, ``triu``, ``where``,
  ``matmul`` (transposing the last two dimensions; 1-d operands expanded), ``nn.cross_entropy_with_logits``
  and ``nn.conv2d`` (``NCHW``/``OIHW`` only: ``conv2d_transpose`` and a ``CNHW`` convolution).

Operators whose gradient needs TVM's dedicated ``relax.grad.*`` backward operators (``take``,
``nn.nll_loss``, ``nn.max_pool2d``, ``nn.avg_pool2d``) are not differentiated (an error names them).
"""

from __future__ import annotations

import functools
import operator
from typing import Callable, Dict, List

import numpy as np

from ..errors import RelaxError
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from .utils import op_call

NO_GRAD = object()


def C(name: str, *args, **attrs) -> rx.Call:
    return op_call("relax." + name, *args, **attrs)


def const(value, dtype: str) -> rx.Constant:
    from ..ir.dtype import to_numpy

    return rx.Constant(np.array(value, dtype=to_numpy(dtype)))


def neg(x):
    return C("negative", x)


def mul(a, b):
    return C("multiply", a, b)


def div(a, b):
    return C("divide", a, b)


def add(a, b):
    return C("add", a, b)


def sub(a, b):
    return C("subtract", a, b)


def _tensor(ctx, e) -> TensorStructInfo:
    si = ctx.struct_info(e)
    if not isinstance(si, TensorStructInfo) or not isinstance(si.shape, rx.ShapeExpr):
        raise RelaxError(f"Gradient: needs a tensor of known shape, got {si}")
    return si


def _shape(ctx, e) -> rx.ShapeExpr:
    return _tensor(ctx, e).shape


def _dtype(ctx, e) -> str:
    return _tensor(ctx, e).dtype


def fit_shape(ctx, grad, inp):
    """``grad`` when its shape provably equals ``inp``'s, else ``collapse_sum_to(grad, shape(inp))``."""
    target = _shape(ctx, inp)
    have = ctx.normalize(grad).struct_info      # emits the nested parts of grad now, as TVM does
    if not isinstance(have, TensorStructInfo) or not isinstance(have.shape, rx.ShapeExpr):
        raise RelaxError(f"Gradient: needs a tensor of known shape, got {have}")
    have = have.shape
    from ..arith import Analyzer

    an = Analyzer()
    if len(have.values) == len(target.values) and all(an.can_prove_equal(a, b) for a, b in
                                                      zip(have.values, target.values)):
        return grad
    return C("collapse_sum_to", grad, target)


def _shape_prod(ctx, e, axis) -> int:
    dims = _shape(ctx, e).values
    pick = dims if axis is None else [dims[int(i)] for i in axis]
    if not all(isinstance(d, P.IntImm) for d in pick):
        raise RelaxError("Gradient: mean and variance need static shapes on the reduced axes")
    return functools.reduce(operator.mul, (int(d.value) for d in pick), 1)


GRADIENTS: Dict[str, Callable] = {}


def register(*names: str):
    def deco(fn):
        for n in names:
            GRADIENTS["relax." + n] = fn
        return fn
    return deco


# ---- binary ------------------------------------------------------------------------------------------


@register("add")
def _add(z, call, g, ctx):
    return [fit_shape(ctx, g, call.args[0]), fit_shape(ctx, g, call.args[1])]


@register("subtract")
def _subtract(z, call, g, ctx):
    return [fit_shape(ctx, g, call.args[0]), fit_shape(ctx, neg(g), call.args[1])]


@register("multiply")
def _multiply(z, call, g, ctx):
    x, y = call.args
    return [fit_shape(ctx, mul(g, y), x), fit_shape(ctx, mul(g, x), y)]


@register("divide")
def _divide(z, call, g, ctx):
    x, y = call.args
    return [fit_shape(ctx, div(g, y), x), fit_shape(ctx, div(mul(neg(g), z), y), y)]


@register("power")
def _power(z, call, g, ctx):
    x, y = call.args
    one = const(1, _dtype(ctx, y))
    return [fit_shape(ctx, mul(mul(g, y), C("power", x, sub(y, one))), x),
            fit_shape(ctx, mul(mul(g, z), C("log", x)), y)]


@register("maximum")
def _maximum(z, call, g, ctx):
    x, y = call.args
    zero = const(0, _dtype(ctx, x))
    return [fit_shape(ctx, C("where", C("less", x, y), zero, g), x),
            fit_shape(ctx, C("where", C("greater_equal", x, y), zero, g), y)]


@register("minimum")
def _minimum(z, call, g, ctx):
    x, y = call.args
    zero = const(0, _dtype(ctx, x))
    return [fit_shape(ctx, C("where", C("greater_equal", x, y), zero, g), x),
            fit_shape(ctx, C("where", C("less", x, y), zero, g), y)]


@register("equal", "greater", "greater_equal", "less", "less_equal", "not_equal", "zeros_like", "ones_like",
          "full_like", "zeros", "ones", "full")
def _no_grad(z, call, g, ctx):
    return [NO_GRAD] * len(call.args)


@register("triu")
def _triu(z, call, g, ctx):
    return [C("triu", g, *call.args[1:])] + [NO_GRAD] * (len(call.args) - 1)


# ---- unary -------------------------------------------------------------------------------------------


@register("abs")
def _abs(z, call, g, ctx):
    x = call.args[0]
    zero, one = const(0, _dtype(ctx, x)), const(1, _dtype(ctx, x))
    return [mul(g, C("where", C("less", x, zero), neg(one), one))]


@register("cos")
def _cos(z, call, g, ctx):
    return [mul(neg(g), C("sin", call.args[0]))]


@register("exp")
def _exp(z, call, g, ctx):
    return [mul(g, z)]


@register("log")
def _log(z, call, g, ctx):
    return [div(g, call.args[0])]


@register("negative")
def _negative(z, call, g, ctx):
    return [neg(g)]


@register("sigmoid")
def _sigmoid(z, call, g, ctx):
    one = const(1, _dtype(ctx, call.args[0]))
    return [mul(mul(g, z), sub(one, z))]


@register("sin")
def _sin(z, call, g, ctx):
    return [mul(g, C("cos", call.args[0]))]


@register("sqrt")
def _sqrt(z, call, g, ctx):
    return [div(mul(const(0.5, _dtype(ctx, call.args[0])), g), z)]


@register("tanh")
def _tanh(z, call, g, ctx):
    one = const(1, _dtype(ctx, call.args[0]))
    return [mul(g, sub(one, mul(z, z)))]


@register("nn.relu")
def _relu(z, call, g, ctx):
    x = call.args[0]
    zero = const(0, _dtype(ctx, x))
    return [C("where", C("less", x, zero), zero, g)]


@register("nn.silu")
def _silu(z, call, g, ctx):
    x = call.args[0]
    sig = C("sigmoid", x)
    one = const(1, _dtype(ctx, x))
    return [mul(g, add(sig, mul(z, sub(one, sig))))]


@register("nn.softmax")
def _softmax(z, call, g, ctx):
    return [mul(sub(g, C("sum", mul(g, z), axis=call.attrs["axis"], keepdims=True)), z)]


@register("nn.log_softmax")
def _log_softmax(z, call, g, ctx):
    return [sub(g, mul(C("sum", g, axis=call.attrs["axis"], keepdims=True), C("exp", z)))]


@register("astype")
def _astype(z, call, g, ctx):
    return [C("astype", g, _dtype(ctx, call.args[0]))]


# ---- statistical and manipulation ------------------------------------------------------------------------


def _axis_list(call):
    axis = call.attrs.get("axis")
    return None if axis is None else [int(a) for a in axis]


@register("sum")
def _sum(z, call, g, ctx):
    axis = _axis_list(call)
    if not call.attrs.get("keepdims") and axis:
        g = C("expand_dims", g, axis)
    return [C("broadcast_to", g, _shape(ctx, call.args[0]))]


@register("mean")
def _mean(z, call, g, ctx):
    axis = _axis_list(call)
    g = div(g, const(_shape_prod(ctx, call.args[0], axis), _dtype(ctx, g)))
    if not call.attrs.get("keepdims") and axis:
        g = C("expand_dims", g, axis)
    return [C("broadcast_to", g, _shape(ctx, call.args[0]))]


@register("variance")
def _variance(z, call, g, ctx):
    x = call.args[0]
    axis = _axis_list(call)
    n = _shape_prod(ctx, x, axis)
    dtype = _dtype(ctx, x)
    grad1 = mul(const(2.0 / n, dtype), x)
    grad2 = mul(const(2.0 / n / n, dtype), C("sum", x, axis=axis, keepdims=True))
    if not call.attrs.get("keepdims") and axis:
        g = C("expand_dims", g, axis)
    return [mul(g, sub(grad1, grad2))]


@register("permute_dims")
def _permute_dims(z, call, g, ctx):
    axes = call.attrs.get("axes")
    if axes:
        inv = [0] * len(axes)
        for i, a in enumerate(axes):
            inv[int(a)] = i
        return [C("permute_dims", g, axes=inv)]
    return [C("permute_dims", g)]


@register("concat")
def _concat(z, call, g, ctx):
    axis = int(call.attrs["axis"])
    si = ctx.struct_info(call.args[0])
    if not isinstance(si, TupleStructInfo):
        raise RelaxError("Gradient: concat of a value that is not a tuple")
    indices: List[P.PrimExpr] = []
    for i, f in enumerate(si.fields[:-1]):
        if not isinstance(f, TensorStructInfo) or f.shape_values is None:
            raise RelaxError("Gradient: concat needs operands of known shape")
        index = f.shape_values[axis]
        if i > 0:
            index = P.add(index, indices[i - 1])
        indices.append(index)
    return [C("split", g, indices, axis=axis)]


@register("split")
def _split(z, call, g, ctx):
    return [C("concat", g, axis=int(call.attrs["axis"]))]


@register("expand_dims")
def _expand_dims(z, call, g, ctx):
    return [C("squeeze", g, [int(a) for a in call.attrs["axis"]])]


@register("reshape")
def _reshape(z, call, g, ctx):
    return [C("reshape", g, _shape(ctx, call.args[0])), NO_GRAD]


@register("broadcast_to")
def _broadcast_to(z, call, g, ctx):
    return [C("collapse_sum_to", g, _shape(ctx, call.args[0])), NO_GRAD]


@register("cumsum")
def _cumsum(z, call, g, ctx):
    axis = call.attrs.get("axis")
    if axis is not None:
        axis = int(axis)
        grad = add(sub(C("sum", g, axis=axis, keepdims=True), C("cumsum", g, axis=axis)), g)
    else:
        grad = C("reshape", add(sub(C("sum", g, keepdims=True), C("cumsum", g)), C("flatten", g)),
                 _shape(ctx, call.args[0]))
    if call.attrs.get("dtype") not in (None, "void", ""):
        grad = C("astype", grad, _dtype(ctx, call.args[0]))
    return [grad]


@register("where")
def _where(z, call, g, ctx):
    cond = call.args[0]
    return [NO_GRAD, C("where", cond, g, const(0, _dtype(ctx, call.args[1]))),
            C("where", cond, const(0, _dtype(ctx, call.args[2])), g)]


# ---- linear algebra and neural network -------------------------------------------------------------------


def _t(x, ndim):
    return C("permute_dims", x, axes=[i if i < ndim - 2 else 2 * ndim - 3 - i for i in range(ndim)])


@register("matmul")
def _matmul(z, call, g, ctx):
    a, b = call.args
    ad, bd = len(_shape(ctx, a).values), len(_shape(ctx, b).values)
    if ad > 1 and bd > 1:
        ga, gb = C("matmul", g, _t(b, bd)), C("matmul", _t(a, ad), g)
    elif ad == 1 and bd > 1:
        gx = C("expand_dims", g, [-2])
        ga, gb = C("matmul", gx, _t(b, bd)), C("matmul", C("expand_dims", a, [1]), gx)
    elif bd == 1 and ad > 1:
        gx = C("expand_dims", g, [-1])
        ga = C("matmul", gx, C("expand_dims", b, [0]))
        gb = C("squeeze", C("matmul", _t(a, ad), gx), [-1])
    else:
        ga, gb = mul(g, b), mul(g, a)
    return [fit_shape(ctx, ga, a), fit_shape(ctx, gb, b)]


@register("nn.cross_entropy_with_logits")
def _cross_entropy(z, call, g, ctx):
    x, y = call.args
    si = _tensor(ctx, x)
    if len(si.shape.values) > 1:
        n = si.shape.values[0]
        if not isinstance(n, P.IntImm):
            raise RelaxError("Gradient: cross_entropy_with_logits needs a static batch size")
        g = div(g, const(int(n.value), _dtype(ctx, g)))
    return [mul(neg(g), y), mul(neg(g), x)]


def _unsupported(name):
    def fn(z, call, g, ctx):
        raise RelaxError(f"Gradient: the gradient of {name} needs TVM's relax.grad backward operators, which "
                         f"relax-ref does not provide")
    return fn


for _n in ("take", "nn.nll_loss", "nn.max_pool2d", "nn.avg_pool2d"):
    GRADIENTS["relax." + _n] = _unsupported(_n)


__all__ = ["GRADIENTS", "NO_GRAD", "fit_shape"]

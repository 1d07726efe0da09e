"""The per-operator tables of the element-wise cases (gen_ops_elementwise.py): each operator's
NumPy formula (transcendental functions evaluated in float64 and rounded once, ``via_float64``), the
TVM kernels' rules where they differ from NumPy (OP.ELEMWISE.SEM.*), and the generators of operands
in each formula's domain."""

import math

import numpy as np

from relax_conformance.gen import via_float64


def uniform(rng, lo, hi, shape, dtype="float32"):
    return rng.uniform(lo, hi, shape).astype(dtype)


def ints(rng, lo, hi, shape, dtype="int32"):
    return rng.integers(lo, hi, shape).astype(dtype)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


#: float-only unary operators: (float64 formula, input range)
FLOAT_UNARY = {
    "acos": (np.arccos, (-0.95, 0.95)),
    "acosh": (np.arccosh, (1.05, 4.0)),
    "asin": (np.arcsin, (-0.95, 0.95)),
    "asinh": (np.arcsinh, (-3.0, 3.0)),
    "atan": (np.arctan, (-3.0, 3.0)),
    "atanh": (np.arctanh, (-0.9, 0.9)),
    "cos": (np.cos, (-3.0, 3.0)),
    "cosh": (np.cosh, (-3.0, 3.0)),
    "erf": (_erf, (-2.5, 2.5)),
    "exp": (np.exp, (-4.0, 4.0)),
    "log": (np.log, (0.05, 6.0)),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), (0.05, 6.0)),
    "sigmoid": (_sigmoid, (-6.0, 6.0)),
    "sin": (np.sin, (-3.0, 3.0)),
    "sinh": (np.sinh, (-3.0, 3.0)),
    "sqrt": (np.sqrt, (0.0, 6.0)),
    "tan": (np.tan, (-1.2, 1.2)),
    "tanh": (np.tanh, (-3.0, 3.0)),
}


def sign_of(x):
    z = np.zeros_like(x)
    return np.where(x > 0, np.ones_like(x), np.where(x < 0, -np.ones_like(x), z)).astype(x.dtype)


#: unary operators accepting any dtype: (formula on the input array, result dtype or None, doc)
ANY_UNARY = {
    "abs": (np.abs, None),
    "negative": (np.negative, None),
    "sign": (sign_of, None),
    "square": (lambda x: x * x, None),
    "floor": (np.floor, None),
    "ceil": (np.ceil, None),
    "trunc": (np.trunc, None),
    "round": (np.rint, None),          # half to even (OP.ELEMWISE.SEM.3)
    "isnan": (np.isnan, "bool"),
    "isinf": (np.isinf, "bool"),
    "isfinite": (np.isfinite, "bool"),
    "logical_not": (np.logical_not, None),
    "bitwise_not": (np.invert, None),
}


def trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) == (b < 0), q, -q).astype(a.dtype)


def tvm_max(a, b):
    return np.where(a > b, a, b)


def tvm_min(a, b):
    return np.where(a < b, a, b)


def _f64(fn):
    """A binary float formula evaluated in float64 and rounded once to the first operand's dtype."""
    return lambda a, b: via_float64(fn, a, b)


def _gen_float(lo, hi):
    return lambda rng, shape: uniform(rng, lo, hi, shape)


def _gen_int(lo, hi, dtype="int32"):
    return lambda rng, shape: ints(rng, lo, hi, shape, dtype)


def _gen_bool(rng, shape):
    return rng.integers(0, 2, shape).astype(bool)


#: binary operators: (kind, formula, plain-case dtype, operand generator)
#: kind: "arith" (NORM.OP.DTYPE.1 result dtype) or "cmp" (bool result, no dtype check)
BINARY = {
    "add": ("arith", lambda a, b: a + b, _gen_float(-5, 5), _gen_float(-5, 5)),
    "subtract": ("arith", lambda a, b: a - b, _gen_float(-5, 5), _gen_float(-5, 5)),
    "multiply": ("arith", lambda a, b: a * b, _gen_float(-5, 5), _gen_float(-5, 5)),
    "divide": ("arith", lambda a, b: a / b, _gen_float(-5, 5), _gen_float(0.5, 4)),
    "floor_divide": ("arith", lambda a, b: np.floor(a / b), _gen_float(-9, 9), _gen_float(0.5, 4)),
    "mod": ("arith", _f64(np.fmod), _gen_float(-9, 9), _gen_float(0.5, 4)),
    "floor_mod": ("arith", lambda a, b: a - np.floor(a / b) * b, _gen_float(-9, 9), _gen_float(0.5, 4)),
    "power": ("arith", _f64(np.power), _gen_float(0.1, 3), _gen_float(-2, 2)),
    "maximum": ("arith", tvm_max, _gen_float(-5, 5), _gen_float(-5, 5)),
    "minimum": ("arith", tvm_min, _gen_float(-5, 5), _gen_float(-5, 5)),
    "atan2": ("arith", _f64(np.arctan2), _gen_float(-5, 5), _gen_float(-5, 5)),
    "log_add_exp": ("arith", _f64(lambda a, b: np.log(np.exp(a) + np.exp(b))), _gen_float(-5, 5),
                    _gen_float(-5, 5)),
    "bitwise_and": ("arith", np.bitwise_and, _gen_int(-100, 100), _gen_int(-100, 100)),
    "bitwise_or": ("arith", np.bitwise_or, _gen_int(-100, 100), _gen_int(-100, 100)),
    "bitwise_xor": ("arith", np.bitwise_xor, _gen_int(-100, 100), _gen_int(-100, 100)),
    "logical_and": ("arith", np.logical_and, _gen_bool, _gen_bool),
    "logical_or": ("arith", np.logical_or, _gen_bool, _gen_bool),
    "logical_xor": ("arith", np.logical_xor, _gen_bool, _gen_bool),
    "left_shift": ("arith", np.left_shift, _gen_int(-1000, 1000), _gen_int(0, 20)),
    "right_shift": ("arith", np.right_shift, _gen_int(-100000, 100000), _gen_int(0, 31)),
    "equal": ("cmp", np.equal, _gen_int(-2, 3), _gen_int(-2, 3)),
    "not_equal": ("cmp", np.not_equal, _gen_int(-2, 3), _gen_int(-2, 3)),
    "less": ("cmp", np.less, _gen_float(-2, 2), _gen_float(-2, 2)),
    "less_equal": ("cmp", np.less_equal, _gen_int(-2, 3), _gen_int(-2, 3)),
    "greater": ("cmp", np.greater, _gen_float(-2, 2), _gen_float(-2, 2)),
    "greater_equal": ("cmp", np.greater_equal, _gen_int(-2, 3), _gen_int(-2, 3)),
}


#: ops whose results are not exactly rounded (compared with the default tolerances)
TRANSCENDENTAL_BINARY = {"power", "atan2", "log_add_exp"}


def tvm_clip(x, lo, hi):
    return tvm_max(tvm_min(x, hi), lo)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def gelu_erf(x):
    return x * (0.5 + _erf(x / math.sqrt(2.0)) * 0.5)


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * x * (1.0 + 0.044715 * x * x)))


def _silu(x):
    return x * _sigmoid(x)


def _selu(x):
    return _SELU_SCALE * (np.maximum(x, 0.0) + np.minimum(0.0, _SELU_ALPHA * (np.exp(x) - 1.0)))


def softplus_with(beta, threshold):
    def f(x):
        return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)
    return f


#: nn activations: (formula in float64, attribute text, float only)
NN = {
    "nn.relu": (lambda x: np.maximum(x, 0.0), "", False),
    "nn.gelu": (gelu_erf, "", True),
    "nn.gelu_tanh": (_gelu_tanh, "", True),
    "nn.silu": (_silu, "", True),
    "nn.selu": (_selu, "", True),
    "nn.leakyrelu": (lambda x: np.where(x > 0, x, x * 0.25), ", alpha=0.25", True),
    "nn.softplus": (softplus_with(2.0, 3.0), ", beta=2.0, threshold=3.0", True),
}

"""Reference semantics of the elementwise operators (OP.ELEMWISE.SEM.*, OP.ELEMWISE.DIV.*): each op
against an independent numpy formula written here, TVM-specific corner cases, and agreement with
TVM 0.25's compiled kernels (relax.build + VirtualMachine) on random inputs."""

import math

import numpy as np
import pytest

from relax_ref.analysis.context import InferContext, make_analyzer
from relax_ref.errors import DivisionByZeroError, OpRuntimeError, UnsupportedError
from relax_ref.interp import op_table
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.attrs import Attrs
from relax_ref.ir.dtype import from_numpy
from relax_ref.ir.struct_info import PrimStructInfo, TensorStructInfo
from relax_ref.ops import registry
from relax_ref.values import PrimScalar

from ops_helpers import same

rng = np.random.default_rng(1234)


def _sinfo(v):
    if isinstance(v, PrimScalar):
        return PrimStructInfo(v.dtype)
    return TensorStructInfo(rx.ShapeExpr(tuple(v.shape)), from_numpy(v.dtype))


def ref(op, *values, extra_args=(), **attrs):
    """Run ``op`` on ``values`` (plus literal Relax ``extra_args``) as the interpreter does: its check,
    then its reference semantics."""
    d = registry.get(op)
    args = [rx.Var(f"a{i}", struct_info=_sinfo(v)) for i, v in enumerate(values)] + list(extra_args)
    full = dict(d.attr_defaults())
    full.update(attrs)
    call = rx.Call(rx.Op(op), tuple(args), Attrs(full))
    sinfo = d.infer(call, InferContext(make_analyzer()))
    call = rx.Call(rx.Op(op), tuple(args), Attrs(full), struct_info=sinfo)
    vals = list(values) + [PrimScalar(e.value.value, e.value.dtype) for e in extra_args]
    return op_table.apply(call, vals)


def prim(value, dtype):
    return rx.PrimValue(P.const(value, dtype), struct_info=PrimStructInfo(value=P.const(value, dtype)))


def uniform(lo, hi, shape=(3, 4), dtype="float32"):
    return rng.uniform(lo, hi, shape).astype(dtype)


def assert_close(actual, expected, dtype="float32"):
    tol = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-6, "float64": 1e-12}.get(dtype, 0)
    assert actual.dtype == np.dtype(expected.dtype) if not hasattr(expected, "dtype") else True
    np.testing.assert_allclose(np.asarray(actual, "float64"), np.asarray(expected, "float64"),
                               rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------------------------------------------
# Independent formulas
# ---------------------------------------------------------------------------------------------------

FLOAT_UNARY = {
    "exp": (np.exp, -3, 3), "log": (np.log, 0.1, 4), "sqrt": (np.sqrt, 0.1, 4),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.1, 4), "sin": (np.sin, -3, 3), "cos": (np.cos, -3, 3),
    "tan": (np.tan, -1.2, 1.2), "sinh": (np.sinh, -3, 3), "cosh": (np.cosh, -3, 3), "tanh": (np.tanh, -3, 3),
    "asin": (np.arcsin, -0.95, 0.95), "acos": (np.arccos, -0.95, 0.95), "atan": (np.arctan, -3, 3),
    "asinh": (np.arcsinh, -3, 3), "acosh": (np.arccosh, 1.05, 4), "atanh": (np.arctanh, -0.95, 0.95),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -5, 5),
    "erf": (np.vectorize(math.erf), -3, 3),
}


@pytest.mark.parametrize("op", sorted(FLOAT_UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_float_unary(op, dtype):
    fn, lo, hi = FLOAT_UNARY[op]
    x = uniform(lo, hi, dtype=dtype)
    out = ref(f"relax.{op}", x)
    assert out.dtype == np.dtype(dtype) and out.shape == x.shape
    assert_close(out, fn(x.astype("float64")), dtype)


def test_bfloat16_unary():
    import ml_dtypes

    x = uniform(-2, 2).astype(ml_dtypes.bfloat16)
    out = ref("relax.tanh", x)
    assert out.dtype == x.dtype
    assert_close(out, np.tanh(x.astype("float64")), "bfloat16")


def test_rounding_family():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 2.7, np.nan], "float32")
    np.testing.assert_array_equal(ref("relax.round", x), [0, 2, 2, -0.0, -2, -3, 3, np.nan])
    np.testing.assert_array_equal(ref("relax.floor", x), [0, 1, 2, -1, -2, -3, 2, np.nan])
    np.testing.assert_array_equal(ref("relax.ceil", x), [1, 2, 3, -0.0, -1, -2, 3, np.nan])
    np.testing.assert_array_equal(ref("relax.trunc", x), [0, 1, 2, -0.0, -1, -2, 2, np.nan])
    i = np.array([-3, 4], "int32")
    for op in ("round", "floor", "ceil", "trunc"):
        np.testing.assert_array_equal(ref(f"relax.{op}", i), i)
        np.testing.assert_array_equal(ref(f"relax.{op}", np.array([True, False])), [True, False])


def test_sign_abs_negative_square():
    x = np.array([np.nan, 1.5, -0.0, -np.inf, 0.0, -2.0], "float32")
    np.testing.assert_array_equal(ref("relax.sign", x), [0, 1, 0, -1, 0, -1])  # sign(NaN) == 0
    np.testing.assert_array_equal(ref("relax.abs", x), [np.nan, 1.5, 0, np.inf, 0, 2])
    i8 = np.array([-128, -1, 5, 0], "int8")
    np.testing.assert_array_equal(ref("relax.abs", i8), [-128, 1, 5, 0])  # wraps
    np.testing.assert_array_equal(ref("relax.negative", i8), [-128, 1, -5, 0])
    np.testing.assert_array_equal(ref("relax.sign", i8), [-1, -1, 1, 0])
    np.testing.assert_array_equal(ref("relax.square", i8), [0, 1, 25, 0])  # (-128)**2 wraps to 0
    u8 = np.array([3, 200], "uint8")
    np.testing.assert_array_equal(ref("relax.abs", u8), u8)
    np.testing.assert_array_equal(ref("relax.square", u8), [9, 64])


def test_checks():
    x = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0], "float16")
    np.testing.assert_array_equal(ref("relax.isnan", x), [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(ref("relax.isinf", x), [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(ref("relax.isfinite", x), [0, 0, 0, 1, 1])
    i = np.array([1, -2], "int64")
    np.testing.assert_array_equal(ref("relax.isnan", i), [False, False])
    np.testing.assert_array_equal(ref("relax.isinf", i), [False, False])
    np.testing.assert_array_equal(ref("relax.isfinite", i), [True, True])
    assert ref("relax.isfinite", i).dtype == np.bool_


def test_logical_and_bitwise_not():
    b = np.array([True, False])
    np.testing.assert_array_equal(ref("relax.logical_not", b), [False, True])
    np.testing.assert_array_equal(ref("relax.bitwise_not", b), [False, True])
    np.testing.assert_array_equal(ref("relax.bitwise_not", np.array([0, -1, 5], "int32")), [-1, 0, -6])
    np.testing.assert_array_equal(ref("relax.bitwise_not", np.array([0, 250], "uint8")), [255, 5])


@pytest.mark.parametrize("op,value", [
    ("relax.abs", np.array([True])), ("relax.negative", np.array([1], "uint8")),
    ("relax.negative", np.array([True])), ("relax.sign", np.array([1], "uint16")),
    ("relax.isnan", np.array([True])), ("relax.logical_not", np.array([1.0], "float32")),
    ("relax.logical_not", np.array([1], "int32")), ("relax.bitwise_not", np.array([1.0], "float32")),
])
def test_unary_without_tvm_kernel(op, value):
    with pytest.raises(UnsupportedError, match="no kernel"):
        ref(op, value)


BINARY_FLOAT = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": lambda a, b: np.floor(a / b), "mod": np.fmod,
    "floor_mod": lambda a, b: a - np.floor(a / b) * b, "power": np.power,
    "maximum": lambda a, b: np.where(a > b, a, b), "minimum": lambda a, b: np.where(a < b, a, b),
    "atan2": np.arctan2, "log_add_exp": lambda a, b: np.log(np.exp(a) + np.exp(b)),
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


def float_operands(op, dtype="float32"):
    x = uniform(0.1, 3, dtype=dtype) if op == "power" else uniform(-3, 3, dtype=dtype)
    y = uniform(-2, 2, (4,), dtype)
    if op in ("divide", "floor_divide", "mod", "floor_mod"):
        y = (np.sign(y) + (y == 0)) * (np.abs(y) + 0.5)
    y = y.astype(dtype)
    return x, y


@pytest.mark.parametrize("op", sorted(BINARY_FLOAT))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_binary_float(op, dtype):
    x, y = float_operands(op, dtype)
    out = ref(f"relax.{op}", x, y)
    want = BINARY_FLOAT[op](x.astype("float64"), y.astype("float64"))
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(out, want)
    else:
        assert out.dtype == np.dtype(dtype)
        if op == "floor_mod":  # evaluated stepwise in the dtype: compare with that formula
            xf, yf = x.astype("float32"), y.astype("float32")
            want = (xf - np.floor(xf / yf).astype(dtype).astype("float32") * yf)
        assert_close(out, want, dtype)


INT_BINARY = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "divide": lambda a, b: int(a / b), "floor_divide": lambda a, b: a // b,
    "mod": lambda a, b: int(math.fmod(a, b)), "floor_mod": lambda a, b: a % b,
    "maximum": max, "minimum": min, "bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b, "logical_xor": lambda a, b: a ^ b,
    "left_shift": lambda a, b: a << b, "right_shift": lambda a, b: a >> b,
    "equal": lambda a, b: a == b, "less": lambda a, b: a < b, "greater_equal": lambda a, b: a >= b,
}


def _wrap(v, bits=32):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


@pytest.mark.parametrize("op", sorted(INT_BINARY))
def test_binary_int32(op):
    a = rng.integers(-1000, 1000, (3, 4)).astype("int32")
    b = rng.integers(-50, 50, (4,)).astype("int32")
    if op in ("left_shift", "right_shift"):
        b = rng.integers(0, 31, (4,)).astype("int32")
    if op in ("divide", "floor_divide", "mod", "floor_mod"):
        b[b == 0] = 7
    out = ref(f"relax.{op}", a, b)
    want = np.array([[INT_BINARY[op](int(a[i, j]), int(b[j])) for j in range(4)] for i in range(3)])
    if out.dtype == np.bool_:
        np.testing.assert_array_equal(out, want.astype(bool))
    else:
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, np.vectorize(_wrap)(want))


def test_integer_division_semantics():
    a = np.array([7, -7, 7, -7], "int32")
    b = np.array([2, 2, -2, -2], "int32")
    np.testing.assert_array_equal(ref("relax.divide", a, b), [3, -3, -3, 3])
    np.testing.assert_array_equal(ref("relax.mod", a, b), [1, -1, 1, -1])
    np.testing.assert_array_equal(ref("relax.floor_divide", a, b), [3, -4, -4, 3])
    np.testing.assert_array_equal(ref("relax.floor_mod", a, b), [1, 1, -1, -1])
    for op in ("divide", "floor_divide", "mod", "floor_mod"):
        with pytest.raises(DivisionByZeroError):
            ref(f"relax.{op}", a, np.array([1, 0, 1, 1], "int32"))
        with pytest.raises(OpRuntimeError, match="overflow"):
            ref(f"relax.{op}", np.array([-2 ** 31], "int32"), np.array([-1], "int32"))
    u = ref("relax.divide", np.array([250], "uint8"), np.array([3], "uint8"))
    assert u.dtype == np.uint8 and u[0] == 83


def test_float_division_by_zero():
    a = np.array([5.5, -5.5, 0.0, 1.0], "float32")
    z = np.array([0.0, 0.0, 0.0, 3.0], "float32")
    np.testing.assert_array_equal(ref("relax.floor_divide", a, z), [np.inf, -np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(ref("relax.mod", a, z), [np.nan, np.nan, np.nan, 1.0])
    np.testing.assert_array_equal(ref("relax.floor_mod", a, z), [np.nan, np.nan, np.nan, 1.0])


def test_nan_rules_of_min_max_relu_clip():
    f = np.array([np.nan, 1.0, np.nan, -np.inf, 0.0, -0.0], "float32")
    g = np.array([1.0, np.nan, np.nan, 0.0, -0.0, 0.0], "float32")
    mx = ref("relax.maximum", f, g)
    np.testing.assert_array_equal(mx, [1, np.nan, np.nan, 0, -0.0, 0])
    assert np.signbit(mx[4]) and not np.signbit(mx[5])
    np.testing.assert_array_equal(ref("relax.minimum", f, g), [1, np.nan, np.nan, -np.inf, -0.0, 0])
    np.testing.assert_array_equal(ref("relax.nn.relu", f), [0, 1, 0, 0, 0, 0])
    c = ref("relax.clip", f, extra_args=(prim(-1.0, "float64"), prim(0.5, "float64")))
    np.testing.assert_array_equal(c, [0.5, 0.5, 0.5, -1, 0, -0.0])  # NaN clips to the upper bound


def test_clip_bounds_are_cast_to_the_tensor_dtype():
    x = np.array([-5, 0, 3, 9], "int32")
    out = ref("relax.clip", x, extra_args=(prim(0.7, "float64"), prim(6, "int64")))
    np.testing.assert_array_equal(out, [0, 0, 3, 6])
    assert out.dtype == np.int32


def test_shifts():
    a = np.array([1, -8, 200], "int32")
    np.testing.assert_array_equal(ref("relax.right_shift", a, np.array([0, 1, 3], "int32")), [1, -4, 25])
    u = np.array([200, 8], "uint8")
    np.testing.assert_array_equal(ref("relax.left_shift", u, np.array([1, 1], "uint8")), [144, 16])
    for b in ([32, 0, 0], [-1, 0, 0]):
        with pytest.raises(OpRuntimeError, match="shift amount"):
            ref("relax.left_shift", a, np.array(b, "int32"))


def test_log_add_exp_is_naive():
    a = np.array([100.0, -100.0, 1000.0], "float32")
    b = np.array([100.0, -100.0, 0.0], "float32")
    out = ref("relax.log_add_exp", a, b)
    assert np.isinf(out[0]) and np.isinf(out[2])
    # exp(-100) is a float32 subnormal: the naive formula loses precision (as TVM's kernel)
    tiny = np.exp(np.float32(-100))
    assert out[1] == np.log(tiny + tiny) and abs(out[1] - (-100 + math.log(2))) > 1e-3


def test_mixed_dtypes_are_matched_as_tir():
    # int32 16777217 becomes float32 16777216 before comparing
    out = ref("relax.less", np.array([16777217, 1], "int32"), np.array([16777216, 1.5], "float32"))
    np.testing.assert_array_equal(out, [False, True])
    # the bool-LHS quirk: inferred bool, computed in float32, converted to bool
    out = ref("relax.add", np.array([False, True, False]), np.array([0.0, -1.0, 0.5], "float32"))
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, [False, False, True])
    out = ref("relax.add", np.array([0.5, -1.0], "float32"), np.array([False, True]))
    np.testing.assert_array_equal(out, [0.5, 0.0])


def test_prim_operands():
    out = ref("relax.add", np.array(1.0, "float32"), PrimScalar(2.0, "float32"))
    assert out.shape == (1,) and out[0] == 3.0  # a prim operand counts as shape [1]
    out = ref("relax.multiply", np.arange(3, dtype="int64"), PrimScalar(4, "int64"))
    np.testing.assert_array_equal(out, [0, 4, 8])
    out = ref("relax.less", PrimScalar(1, "int64"), PrimScalar(2, "int64"))
    assert out == PrimScalar(True, "bool")


def test_runtime_broadcast_failure():
    with pytest.raises(OpRuntimeError, match="broadcast"):
        op_table.apply(rx.Call(rx.Op("relax.add"), (), struct_info=TensorStructInfo(None, "float32", 1)),
                       [np.zeros(2, "float32"), np.zeros(3, "float32")])


@pytest.mark.parametrize("op,da,db", [
    ("bitwise_and", "float32", "float32"), ("left_shift", "bool", "bool"),
    ("logical_and", "int32", "int32"), ("logical_xor", "float32", "float32"), ("power", "int32", "int32"),
    ("log_add_exp", "int32", "int32"), ("atan2", "int32", "int32"),
])
def test_binary_without_tvm_kernel(op, da, db):
    with pytest.raises(UnsupportedError, match="no kernel"):
        ref(f"relax.{op}", np.ones(2, da), np.ones(2, db))


def test_bool_arithmetic_is_integer_arithmetic_on_0_1():
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    np.testing.assert_array_equal(ref("relax.add", a, b), [0, 1, 1, 1])  # 1 + 1 = 2 != 0
    np.testing.assert_array_equal(ref("relax.subtract", a, b), [0, 1, 1, 0])  # 0 - 1 = -1 != 0
    np.testing.assert_array_equal(ref("relax.multiply", a, b), [0, 0, 0, 1])
    np.testing.assert_array_equal(ref("relax.maximum", a, b), [0, 1, 1, 1])
    np.testing.assert_array_equal(ref("relax.less", a, b), [0, 1, 0, 0])
    np.testing.assert_array_equal(ref("relax.floor_mod", a, np.array([True] * 4)), [0, 0, 0, 0])
    with pytest.raises(DivisionByZeroError):
        ref("relax.divide", a, b)
    np.testing.assert_array_equal(ref("relax.square", a), a)
    np.testing.assert_array_equal(ref("relax.nn.relu", b), b)
    assert ref("relax.add", a, b).dtype == np.bool_


def test_bool_operands_with_kernels():
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    np.testing.assert_array_equal(ref("relax.bitwise_and", a, b), [0, 0, 0, 1])
    np.testing.assert_array_equal(ref("relax.logical_or", a, b), [0, 1, 1, 1])
    np.testing.assert_array_equal(ref("relax.logical_xor", a, b), [0, 1, 1, 0])
    np.testing.assert_array_equal(ref("relax.logical_xor", np.array([5], "int32"), np.array([3], "int32")), [6])


def test_where_and_fma():
    c = np.array([[True], [False]])
    x = np.array([1.0, 2.0, 3.0], "float32")
    y = np.array([-1.0], "float32")
    np.testing.assert_array_equal(ref("relax.where", c, x, y), [[1, 2, 3], [-1, -1, -1]])
    a, b, d = (uniform(-1, 1, (2, 3)) for _ in range(3))
    assert_close(ref("relax.ewise_fma", a, b, d), a * b + d)


ACTIVATIONS = {
    "relu": lambda x, **k: np.maximum(x, 0),
    "leakyrelu": lambda x, alpha=0.01: np.where(x > 0, x, alpha * x),
    "gelu": lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1)),
    "softplus": lambda x, beta=1.0, threshold=20.0: np.where(beta * x > threshold, x,
                                                             np.log1p(np.exp(beta * x)) / beta),
}


@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_activations(op, dtype):
    x = uniform(-4, 4, dtype=dtype)
    attrs = {"alpha": 0.2} if op == "leakyrelu" else {"beta": 2.0, "threshold": 3.0} if op == "softplus" else {}
    out = ref(f"relax.nn.{op}", x, **attrs)
    assert out.dtype == np.dtype(dtype)
    tol = 4e-3 if dtype == "float16" else 2e-6
    np.testing.assert_allclose(out.astype("float64"), ACTIVATIONS[op](x.astype("float64"), **attrs),
                               rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM's compiled kernels
# ---------------------------------------------------------------------------------------------------


def _tvm_run(calls, inputs):
    """Build one Relax function returning every call's result and run it on the VM."""
    import tvm
    from tvm import relax
    from tvm_compat import TensorSI

    bb = relax.BlockBuilder()
    params = [relax.Var(name, TensorSI(v.shape, str(v.dtype))) for name, v in inputs]
    with bb.function("main", params):
        with bb.dataflow():
            outs = [bb.emit(mk(*params)) for mk in calls]
            o = bb.emit_output(relax.Tuple(outs))
        bb.emit_func_output(o)
    ex = relax.build(bb.get(), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    res = [r.numpy() for r in vm["main"](*[tvm.runtime.tensor(v) for _, v in inputs])]
    assert len(res) == len(calls)
    return res


def _tol(dtype):
    return {"float16": 1e-3, "float32": 1e-5, "float64": 1e-12}.get(dtype, 0)


def _compare(ours, theirs, dtype):
    same(ours, theirs, _tol(dtype))


@pytest.mark.tvm
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_unary_float_ops_agree_with_tvm(dtype):
    pytest.importorskip("tvm")
    from tvm import relax

    # TVM 0.25's LLVM backend cannot compile these for float16
    no_fp16 = {"acos", "acosh", "asin", "asinh", "atan", "cosh", "sinh"}
    ops = [o for o in sorted(FLOAT_UNARY) if dtype != "float16" or o not in no_fp16]
    ops += ["abs", "negative", "sign", "square", "floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite"]
    inputs = {}
    for op in ops:
        lo, hi = FLOAT_UNARY[op][1:] if op in FLOAT_UNARY else (-3, 3)
        x = uniform(lo, hi, (2, 5), dtype)
        if op in ("isnan", "isinf", "isfinite", "sign", "abs"):
            x[0, :3] = [np.nan, np.inf, -np.inf]
        inputs[op] = x
    theirs = _tvm_run([(lambda *ps, i=i, op=op: getattr(relax.op, op)(ps[i])) for i, op in enumerate(ops)],
                      [(f"x{i}", inputs[op]) for i, op in enumerate(ops)])
    for op, t in zip(ops, theirs):
        _compare(ref(f"relax.{op}", inputs[op]), t, dtype)


@pytest.mark.tvm
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_binary_float_ops_agree_with_tvm(dtype):
    pytest.importorskip("tvm")
    from tvm import relax

    ops = [o for o in sorted(BINARY_FLOAT) if not (dtype == "float16" and o == "atan2")]
    pairs = [float_operands(op, dtype) for op in ops]
    for (x, y) in pairs:
        x[0, 0], y[1] = np.nan, np.inf
    inputs = []
    for i, (x, y) in enumerate(pairs):
        inputs += [(f"x{i}", x), (f"y{i}", y)]
    theirs = _tvm_run([(lambda *ps, i=i, op=op: getattr(relax.op, op)(ps[2 * i], ps[2 * i + 1]))
                       for i, op in enumerate(ops)], inputs)
    for op, (x, y), t in zip(ops, pairs, theirs):
        _compare(ref(f"relax.{op}", x, y), t, dtype)


@pytest.mark.tvm
@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_integer_ops_agree_with_tvm(dtype):
    pytest.importorskip("tvm")
    from tvm import relax

    info = np.iinfo(dtype)
    ops = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod", "maximum", "minimum",
           "bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "left_shift", "right_shift", "equal",
           "not_equal", "less", "less_equal", "greater", "greater_equal"]
    x = rng.integers(max(info.min, -10000), min(info.max, 10000), (3, 6), endpoint=True).astype(dtype)
    y = rng.integers(max(info.min, -300), min(info.max, 300), (6,), endpoint=True).astype(dtype)
    y[y == 0] = 3
    y[(y == -1)] = 5
    s = rng.integers(0, np.dtype(dtype).itemsize * 8, (6,)).astype(dtype)
    unary = ["abs", "square", "floor", "round", "bitwise_not", "isnan", "isfinite"]
    if dtype != "uint8":
        unary += ["negative", "sign"]
    calls = [(lambda xx, yy, ss, op=op: getattr(relax.op, op)(xx, ss if "shift" in op else yy)) for op in ops]
    calls += [(lambda xx, yy, ss, op=op: getattr(relax.op, op)(xx)) for op in unary]
    calls += [lambda xx, yy, ss: relax.op.nn.relu(xx), lambda xx, yy, ss: relax.op.clip(xx, 2, 50)]
    theirs = _tvm_run(calls, [("x", x), ("y", y), ("s", s)])
    names = ops + unary + ["nn.relu", "clip"]
    for name, t in zip(names, theirs):
        if name == "clip":
            ours = ref("relax.clip", x, extra_args=(prim(2, "int64"), prim(50, "int64")))
        elif name in unary or name == "nn.relu":
            ours = ref(f"relax.{name}", x)
        else:
            ours = ref(f"relax.{name}", x, s if "shift" in name else y)
        _compare(ours, t, dtype)


@pytest.mark.tvm
def test_bool_where_clip_activations_agree_with_tvm():
    pytest.importorskip("tvm")
    from tvm import relax

    a = rng.integers(0, 2, (3, 4)).astype(bool)
    b = rng.integers(0, 2, (4,)).astype(bool)
    x = uniform(-4, 4, (3, 4))
    x[0, 0] = np.nan
    y = uniform(-4, 4, (4,))
    calls = [
        lambda a_, b_, x_, y_: relax.op.logical_and(a_, b_),
        lambda a_, b_, x_, y_: relax.op.logical_or(a_, b_),
        lambda a_, b_, x_, y_: relax.op.logical_xor(a_, b_),
        lambda a_, b_, x_, y_: relax.op.bitwise_or(a_, b_),
        lambda a_, b_, x_, y_: relax.op.logical_not(a_),
        lambda a_, b_, x_, y_: relax.op.where(a_, x_, y_),
        lambda a_, b_, x_, y_: relax.op.add(x_, a_),
        lambda a_, b_, x_, y_: relax.op.clip(x_, -1.5, 2.0),
        lambda a_, b_, x_, y_: relax.op.nn.relu(x_),
        lambda a_, b_, x_, y_: relax.op.nn.leakyrelu(x_, 0.3),
        lambda a_, b_, x_, y_: relax.op.nn.gelu(x_),
        lambda a_, b_, x_, y_: relax.op.nn.gelu_tanh(x_),
        lambda a_, b_, x_, y_: relax.op.nn.silu(x_),
        lambda a_, b_, x_, y_: relax.op.nn.selu(x_),
        lambda a_, b_, x_, y_: relax.op.nn.softplus(x_, 1.5, 2.0),
    ]
    theirs = _tvm_run(calls, [("a", a), ("b", b), ("x", x), ("y", y)])
    ours = [
        ref("relax.logical_and", a, b), ref("relax.logical_or", a, b), ref("relax.logical_xor", a, b),
        ref("relax.bitwise_or", a, b), ref("relax.logical_not", a), ref("relax.where", a, x, y),
        ref("relax.add", x, a), ref("relax.clip", x, extra_args=(prim(-1.5, "float64"), prim(2.0, "float64"))),
        ref("relax.nn.relu", x), ref("relax.nn.leakyrelu", x, alpha=0.3), ref("relax.nn.gelu", x),
        ref("relax.nn.gelu_tanh", x), ref("relax.nn.silu", x), ref("relax.nn.selu", x),
        ref("relax.nn.softplus", x, beta=1.5, threshold=2.0),
    ]
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _compare(o, t, "float32")

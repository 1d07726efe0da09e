"""The TIR intrinsic table (PRIM.CALL.*): values, dtypes, scalars and arrays alike."""

import math

import ml_dtypes
import numpy as np
import pytest
from scipy import special

from relax_ref.arith import INTRINSICS, canonical_intrinsic_name, lookup_intrinsic
from relax_ref.errors import OpRuntimeError, UnsupportedError

F32 = np.float32
BF16 = ml_dtypes.bfloat16

# name -> (reference function on float64, sample inputs): transcendental functions are the float64
# value rounded once to the result dtype.
UNARY_REF = {
    "tir.exp": (math.exp, [-2.0, 0.0, 1.0, 3.5]),
    "tir.exp2": (lambda v: 2.0 ** v, [-2.5, 0.0, 3.0]),
    "tir.exp10": (lambda v: 10.0 ** v, [-1.0, 0.5, 2.5]),
    "tir.log": (math.log, [0.5, 1.0, 10.0]),
    "tir.log2": (math.log2, [0.25, 3.0]),
    "tir.log10": (math.log10, [0.01, 7.0]),
    "tir.log1p": (math.log1p, [1e-7, 0.5]),
    "tir.sqrt": (math.sqrt, [0.0, 2.0, 9.0]),
    "tir.sin": (math.sin, [-1.0, 0.5, 3.0]),
    "tir.cos": (math.cos, [-1.0, 0.5, 3.0]),
    "tir.tan": (math.tan, [-1.0, 0.5]),
    "tir.sinh": (math.sinh, [-1.0, 0.5]),
    "tir.cosh": (math.cosh, [-1.0, 0.5]),
    "tir.tanh": (math.tanh, [-1.0, 0.5, 20.0]),
    "tir.asin": (math.asin, [-1.0, 0.25]),
    "tir.acos": (math.acos, [-1.0, 0.25]),
    "tir.atan": (math.atan, [-3.0, 0.25]),
    "tir.asinh": (math.asinh, [-3.0, 0.25]),
    "tir.acosh": (math.acosh, [1.0, 4.0]),
    "tir.atanh": (math.atanh, [-0.5, 0.25]),
    "tir.erf": (math.erf, [-1.0, 0.0, 0.5, 2.0]),
}


@pytest.mark.parametrize("name", sorted(UNARY_REF))
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_transcendental_functions_round_once(name, dtype):
    ref, inputs = UNARY_REF[name]
    np_t = np.dtype(dtype).type
    fn = INTRINSICS[name]
    for v in inputs:
        v_d = float(np_t(v))  # the argument rounded to the dtype first
        got = fn(dtype, np_t(v))
        assert isinstance(got, np_t), (name, type(got))
        want = np_t(ref(v_d))
        if dtype == "float64":  # two float64 libms may differ in the last bit
            assert abs(got - want) <= 2 * np.spacing(abs(want)), (name, v, got)
        else:
            assert got == want, (name, v, got)
    arr = fn(dtype, np.array(inputs, dtype))
    assert arr.dtype == np.dtype(dtype) and arr.shape == (len(inputs),)
    assert arr.tolist() == [fn(dtype, np_t(v)) for v in inputs]


def test_transcendental_bfloat16():
    got = INTRINSICS["tir.exp"]("bfloat16", np.array([1.0, 2.0], BF16))
    assert got.dtype == np.dtype(BF16)
    assert got.tolist() == [BF16(math.exp(1.0)), BF16(math.exp(2.0))]
    assert INTRINSICS["tir.erf"]("bfloat16", BF16(0.5)) == BF16(special.erf(0.5))


def test_nan_and_domain_errors_give_nan():
    assert np.isnan(INTRINSICS["tir.log"]("float32", F32(-1.0)))
    assert INTRINSICS["tir.log"]("float32", F32(0.0)) == -np.inf
    assert np.isnan(INTRINSICS["tir.sqrt"]("float32", F32(-4.0)))
    assert np.isnan(INTRINSICS["tir.asin"]("float32", F32(2.0)))
    assert INTRINSICS["tir.exp"]("float16", np.float16(20.0)) == np.inf


@pytest.mark.parametrize("name, args, expected", [
    ("tir.atan2", (1.0, -1.0), math.atan2(1.0, -1.0)),
    ("tir.pow", (2.0, 0.5), math.sqrt(2.0)),
    ("tir.pow", (np.nan, 0.0), 1.0),
    ("tir.fmod", (-7.5, 2.0), -1.5),
    ("tir.copysign", (3.0, -0.0), -3.0),
    ("tir.hypot", (3e30, 4e30), 5e30),
])
def test_binary_float_functions(name, args, expected):
    got = INTRINSICS[name]("float32", *(F32(a) for a in args))
    assert isinstance(got, F32) and got == F32(expected)


def test_nextafter_steps_in_the_dtype():
    assert INTRINSICS["tir.nextafter"]("float16", np.float16(1.0), np.float16(2.0)) == np.float16(1.0009765625)
    assert INTRINSICS["tir.nextafter"]("float32", F32(1.0), F32(0.0)) == F32(1.0) - F32(2 ** -24)


def test_composites_round_each_step():
    x = F32(0.3)
    assert INTRINSICS["tir.sigmoid"]("float32", x) == F32(1) / (F32(1) + F32(math.exp(-float(x))))
    assert INTRINSICS["tir.rsqrt"]("float32", F32(2.0)) == F32(1) / np.sqrt(F32(2.0))
    assert INTRINSICS["tir.fma"]("float32", F32(2.0), F32(3.0), F32(1.0)) == F32(7.0)
    assert INTRINSICS["tir.fma"]("int32", np.int32(2 ** 20), np.int32(2 ** 12), np.int32(1)) == 1
    assert INTRINSICS["tir.ldexp"]("float32", F32(1.5), np.int32(4)) == F32(24.0)
    assert INTRINSICS["tir.ldexp"]("float16", np.float16(1.0), np.int32(20)) == np.inf


def test_rounding_functions():
    vals = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7], F32)
    assert INTRINSICS["tir.round"]("float32", vals).tolist() == [-2, -2, -0, 0, 2, 2, 3]
    assert INTRINSICS["tir.nearbyint"]("float32", vals).tolist() == [-2, -2, -0, 0, 2, 2, 3]
    assert INTRINSICS["tir.floor"]("float32", vals).tolist() == [-3, -2, -1, 0, 1, 2, 2]
    assert INTRINSICS["tir.ceil"]("float32", vals).tolist() == [-2, -1, -0, 1, 2, 3, 3]
    assert INTRINSICS["tir.trunc"]("float32", vals).tolist() == [-2, -1, -0, 0, 1, 2, 2]
    for name in ("tir.round", "tir.nearbyint", "tir.floor", "tir.ceil", "tir.trunc"):
        assert INTRINSICS[name]("int32", np.int32(-7)) == -7          # identity on integers


def test_abs():
    assert INTRINSICS["tir.fabs"]("float32", F32(-2.5)) == 2.5
    assert INTRINSICS["tir.abs"]("int8", np.int8(-128)) == -128       # two's complement
    assert INTRINSICS["tir.abs"]("int32", np.array([-3, 4], np.int32)).tolist() == [3, 4]
    assert INTRINSICS["tir.abs"]("uint8", np.uint8(200)) == 200


def test_classification():
    v = np.array([1.0, np.nan, np.inf, -np.inf], F32)
    assert INTRINSICS["tir.isnan"]("bool", v).tolist() == [False, True, False, False]
    assert INTRINSICS["tir.isinf"]("bool", v).tolist() == [False, False, True, True]
    assert INTRINSICS["tir.isfinite"]("bool", v).tolist() == [True, False, False, False]
    assert INTRINSICS["tir.isnan"]("bool", np.array([1.0, np.nan], BF16)).tolist() == [False, True]
    assert INTRINSICS["tir.isnan"]("bool", np.int32(3)) is np.False_
    assert INTRINSICS["tir.isfinite"]("bool", np.int32(3)) is np.True_


def test_shifts():
    sl, sr = INTRINSICS["tir.shift_left"], INTRINSICS["tir.shift_right"]
    assert sl("int32", np.int32(3), np.int32(31)) == -(2 ** 31)
    assert sl("int32", np.int32(3), np.int32(32)) == 0
    assert sr("int32", np.int32(-5), np.int32(1)) == -3               # arithmetic
    assert sr("uint32", np.uint32(2 ** 32 - 5), np.uint32(1)) == (2 ** 32 - 5) >> 1  # logical
    assert sr("int32", np.array([-5, 5], np.int32), np.array([40, 40])).tolist() == [-1, 0]
    assert sl("int64", np.array([1, 1], np.int64), np.array([62, 63])).tolist() == [2 ** 62, -(2 ** 63)]
    with pytest.raises(OpRuntimeError):
        sl("int32", np.int32(1), np.int32(-1))


def test_bitwise():
    a, b = np.int32(0b1100), np.int32(0b1010)
    assert INTRINSICS["tir.bitwise_and"]("int32", a, b) == 0b1000
    assert INTRINSICS["tir.bitwise_or"]("int32", a, b) == 0b1110
    assert INTRINSICS["tir.bitwise_xor"]("int32", a, b) == 0b0110
    assert INTRINSICS["tir.bitwise_not"]("int32", np.int32(5)) == -6
    assert INTRINSICS["tir.bitwise_not"]("uint8", np.uint8(5)) == 250
    assert INTRINSICS["tir.bitwise_and"]("bool", np.bool_(True), np.bool_(False)) == np.False_


def test_popcount_and_clz():
    pc, clz = INTRINSICS["tir.popcount"], INTRINSICS["tir.clz"]
    assert pc("int32", np.int32(-5)) == 31
    assert pc("int64", np.array([0, 7, -1], np.int64)).tolist() == [0, 3, 64]
    assert clz("int32", np.int32(0)) == 32
    assert clz("int32", np.int32(1)) == 31
    assert clz("int32", np.int32(-1)) == 0
    assert clz("int64", np.array([2 ** 40, 2 ** 62 + 5], np.int64)).tolist() == [23, 1]
    assert clz("uint8", np.uint8(1)) == 7


def test_reinterpret():
    r = INTRINSICS["tir.reinterpret"]("int32", F32(1.0))
    assert r == 0x3F800000 and isinstance(r, np.int32)
    back = INTRINSICS["tir.reinterpret"]("float32", np.array([0x3F800000, 0], np.int32))
    assert back.tolist() == [1.0, 0.0]
    with pytest.raises(UnsupportedError):
        INTRINSICS["tir.reinterpret"]("int64", F32(1.0))


def test_helpers_select_and_limits():
    assert INTRINSICS["tir.likely"]("bool", np.bool_(True)) == np.True_
    ite = INTRINSICS["tir.if_then_else"]
    assert ite("int32", np.array([True, False]), np.int32(1), np.array([5, 6], np.int32)).tolist() == [1, 6]
    assert INTRINSICS["tir.max_value"]("int8") == 127
    assert INTRINSICS["tir.min_value"]("float16") == np.float16(-65504.0)
    assert INTRINSICS["tir.infinity"]("float32") == np.inf
    assert INTRINSICS["tir.infinity"]("int32") == 2 ** 31 - 1


def test_type_and_arity_errors():
    with pytest.raises(UnsupportedError):
        INTRINSICS["tir.exp"]("int32", np.int32(1))
    with pytest.raises(UnsupportedError):
        INTRINSICS["tir.shift_left"]("float32", F32(1.0), F32(1.0))
    with pytest.raises(UnsupportedError):
        INTRINSICS["tir.exp"]("float32", F32(1.0), F32(2.0))
    with pytest.raises(UnsupportedError):
        lookup_intrinsic("tir.not_an_intrinsic")


def test_naming_and_descriptions():
    assert canonical_intrinsic_name("tirx.exp") == "tir.exp"
    assert canonical_intrinsic_name("tir.exp") == "tir.exp"
    assert lookup_intrinsic("tirx.sigmoid") is INTRINSICS["tir.sigmoid"]
    for name, it in INTRINSICS.items():
        assert name.startswith("tir.") and it.name == name
        assert it.description and len(it.description) > 5


def test_every_intrinsic_is_tested():
    source = open(__file__).read()
    untested = [n for n in INTRINSICS if f'"{n}"' not in source]
    assert not untested, untested

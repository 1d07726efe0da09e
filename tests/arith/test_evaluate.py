"""Scalar evaluation with TIR semantics (PRIM.*)."""

import math

import ml_dtypes
import numpy as np
import pytest

from relax_ref.arith import eval_prim
from relax_ref.arith import semantics as sem
from relax_ref.errors import DivisionByZeroError, RelaxError, RelaxRuntimeError, UnsupportedError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

i = P.PrimVar("i", "int32")
j = P.PrimVar("j", "int32")
n = P.PrimVar("n", "int64")
x = P.PrimVar("x", "float32")
h = P.PrimVar("h", "float16")
b = P.PrimVar("b", "bfloat16")
flag = P.PrimVar("c", "bool")


def test_integer_wraparound():
    assert eval_prim(i + 1, {i: 2 ** 31 - 1}) == -(2 ** 31)
    assert eval_prim(i * 2, {i: 2 ** 30}) == -(2 ** 31)
    assert eval_prim(n - 1, {n: -(2 ** 63)}) == 2 ** 63 - 1
    u = P.PrimVar("u", "uint8")
    assert eval_prim(u - 1, {u: 0}) == 255
    assert eval_prim(u * 3, {u: 100}) == 44


def test_floor_and_truncating_division():
    env = {i: -7, j: 2}
    assert eval_prim(i // j, env) == -4
    assert eval_prim(i % j, env) == 1
    assert eval_prim(P.truncdiv(i, j), env) == -3
    assert eval_prim(P.truncmod(i, j), env) == -1
    env = {i: 7, j: -2}
    assert eval_prim(i // j, env) == -4
    assert eval_prim(i % j, env) == -1
    assert eval_prim(P.truncdiv(i, j), env) == -3
    assert eval_prim(P.truncmod(i, j), env) == 1
    assert eval_prim(i // j, {i: -(2 ** 31), j: -1}) == -(2 ** 31)   # wraps


@pytest.mark.parametrize("node", [P.FloorDiv, P.FloorMod, P.Div, P.Mod])
def test_integer_division_by_zero(node):
    with pytest.raises(DivisionByZeroError):
        eval_prim(node(i, j), {i: 3, j: 0})


def test_float_division_is_ieee():
    assert eval_prim(P.div(x, P.FloatImm(0.0)), {x: 1.0}) == np.inf
    assert np.isnan(eval_prim(P.div(x, P.FloatImm(0.0)), {x: 0.0}))
    r = eval_prim(P.floordiv(x, P.FloatImm(2.0)), {x: -3.0})
    assert r == -2.0 and isinstance(r, np.float32)
    assert eval_prim(P.floormod(x, P.FloatImm(2.0)), {x: -3.0}) == 1.0
    assert eval_prim(P.truncmod(x, P.FloatImm(2.0)), {x: -3.0}) == -1.0


def test_float_arithmetic_rounds_in_the_dtype():
    r = eval_prim(x + P.FloatImm(1e-8), {x: 1.0})
    assert isinstance(r, np.float32) and r == np.float32(1.0)
    r16 = eval_prim(h + h, {h: 1000.3})
    assert isinstance(r16, np.float16) and r16 == np.float16(np.float16(1000.3) * 2)
    assert eval_prim(h * P.FloatImm(100.0, "float16"), {h: 1000.0}) == np.float16(np.inf)
    rb = eval_prim(b * b, {b: 1.1})
    assert rb.dtype == ml_dtypes.bfloat16
    bb = ml_dtypes.bfloat16(1.1)
    assert rb == bb * bb
    f64 = P.PrimVar("d", "float64")
    assert eval_prim(f64 + P.FloatImm(1e-8, "float64"), {f64: 1.0}) == 1.0 + 1e-8


def test_float_min_max_follow_llvm_select():
    a, c = P.PrimVar("a", "float32"), P.PrimVar("c", "float32")
    env = {a: np.nan, c: 1.0}
    assert eval_prim(P.max_(a, c), env) == 1.0
    assert np.isnan(eval_prim(P.max_(c, a), env))
    assert eval_prim(P.min_(a, c), env) == 1.0
    assert np.isnan(eval_prim(P.min_(c, a), env))


def test_comparisons_and_logic():
    assert eval_prim(P.lt(i, j), {i: 1, j: 2}) is True
    assert eval_prim(P.ge(i, j), {i: 1, j: 2}) is False
    nan_env = {x: np.nan}
    assert eval_prim(P.eq(x, x), nan_env) is False
    assert eval_prim(P.ne(x, x), nan_env) is True
    assert eval_prim(P.logical_and(flag, P.lt(i, 3)), {flag: True, i: 1}) is True
    assert eval_prim(P.logical_or(flag, P.lt(i, 3)), {flag: False, i: 5}) is False
    assert eval_prim(P.logical_not(flag), {flag: False}) is True


def test_and_or_evaluate_both_operands():
    bad = P.eq(i // j, 0)
    with pytest.raises(DivisionByZeroError):
        eval_prim(P.logical_and(P.IntImm(0, "bool"), bad), {i: 1, j: 0})


def test_select_is_eager_if_then_else_is_lazy():
    guarded = i // j
    sel = P.select(P.ne(j, 0), guarded, P.IntImm(-1, "int32"))
    with pytest.raises(DivisionByZeroError):
        eval_prim(sel, {i: 4, j: 0})
    ite = P.PrimCall("int32", "tir.if_then_else", (P.ne(j, 0), guarded, P.IntImm(-1, "int32")))
    assert eval_prim(ite, {i: 4, j: 0}) == -1
    assert eval_prim(ite, {i: 4, j: 2}) == 2
    tirx = P.PrimCall("int32", "tirx.if_then_else", (P.ne(j, 0), guarded, P.IntImm(-1, "int32")))
    assert eval_prim(tirx, {i: 4, j: 0}) == -1


CAST_INPUTS = [np.nan, np.inf, -np.inf, -10.7, 1050.9, 3e9, -3e9, 1e19, 2e19, -1e19, 4.5e9, 129.5,
               -129.5, 40000.5]
# Measured with TVM 0.25 compiled for x86-64 (LLVM) on the float32 values above.
CAST_EXPECTED = {
    "int8": [0, 0, 0, -10, 26, 0, 0, 0, 0, 0, 0, -127, 127, 64],
    "int16": [0, 0, 0, -10, 1050, 0, 0, 0, 0, 0, 0, 129, -129, -25536],
    "int32": [-2 ** 31] * 3 + [-10, 1050] + [-2 ** 31] * 6 + [129, -129, 40000],
    "int64": [-2 ** 63] * 3 + [-10, 1050, 3000000000, -3000000000] + [-2 ** 63] * 3
             + [4499999744, 129, -129, 40000],
    "uint8": [0, 0, 0, 246, 26, 0, 0, 0, 0, 0, 0, 129, 127, 64],
    "uint16": [0, 0, 0, 65526, 1050, 0, 0, 0, 0, 0, 0, 129, 65407, 40000],
    "uint32": [0, 0, 0, 4294967286, 1050, 3000000000, 1294967296, 0, 0, 0, 205032448, 129,
               4294967167, 40000],
    "uint64": [2 ** 63] * 3 + [2 ** 64 - 10, 1050, 3000000000, 2 ** 64 - 3000000000,
                               9999999980506447872, 2 ** 63, 2 ** 63, 4499999744, 129, 2 ** 64 - 129,
                               40000],
}


@pytest.mark.parametrize("dtype", sorted(CAST_EXPECTED))
def test_float_to_int_casts(dtype):
    got = [eval_prim(P.Cast(dtype, x), {x: v}) for v in CAST_INPUTS]
    assert got == CAST_EXPECTED[dtype]
    arr = sem.float_to_int(np.array(CAST_INPUTS, np.float32), dtype)
    assert arr.tolist() == CAST_EXPECTED[dtype]


def test_other_casts():
    assert eval_prim(P.Cast("int8", i), {i: 300}) == 44
    assert eval_prim(P.Cast("uint32", i), {i: -1}) == 2 ** 32 - 1
    assert eval_prim(P.Cast("bool", x), {x: np.nan}) is True
    assert eval_prim(P.Cast("bool", i), {i: -3}) is True
    assert eval_prim(P.Cast("bool", i), {i: 0}) is False
    assert eval_prim(P.Cast("int32", flag), {flag: True}) == 1
    r = eval_prim(P.Cast("float16", x), {x: 65520.0})
    assert isinstance(r, np.float16) and np.isinf(r)
    # int -> float rounds to nearest even, directly (no double rounding through float64)
    big = 2 ** 53 + 2 ** 29 + 1
    assert eval_prim(P.Cast("float32", n), {n: big}) == np.float32(2 ** 53 + 2 ** 30)
    assert eval_prim(P.Cast("float32", n), {n: 2 ** 24 + 1}) == np.float32(2 ** 24)
    assert eval_prim(P.Cast("float32", n), {n: 2 ** 24 + 3}) == np.float32(2 ** 24 + 4)
    assert float(eval_prim(P.Cast("bfloat16", i), {i: 257})) == 256.0
    u64 = P.PrimVar("u", "uint64")
    assert eval_prim(P.Cast("float64", u64), {u64: 2 ** 64 - 1}) == 2.0 ** 64


def test_let_and_loads():
    v = P.PrimVar("v", "int32")
    assert eval_prim(P.Let(v, i * 2, v + v), {i: 3}) == 12
    buf = tir.Buffer("A", (4,), "float32")
    data = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    ld = tir.BufferLoad(buf, (i + 1,))
    seen = []

    def load(buffer, idx):
        seen.append((buffer, idx))
        return data[idx]

    r = eval_prim(ld, {i: 2}, load=load)
    assert r == np.float32(4.5) and isinstance(r, np.float32)
    assert seen == [(buf, (3,))]
    with pytest.raises(UnsupportedError):
        eval_prim(ld, {i: 2})


def test_unbound_variable_is_named():
    with pytest.raises(RelaxRuntimeError) as info:
        eval_prim(n + 1, {})
    assert info.value.symbol == "n" and "'n'" in str(info.value)


def test_environment_values_are_coerced():
    assert eval_prim(i + 0, {i: np.int64(2 ** 32 + 5)}) == 5
    assert eval_prim(n + 0, {n: 7.0}) == 7
    with pytest.raises(RelaxError) as info:
        eval_prim(n + 0, {n: 7.5})
    assert info.value.symbol == "n"
    r = eval_prim(x + 0.0, {x: 1})
    assert isinstance(r, np.float32)


def test_constants_and_strings():
    assert eval_prim(P.IntImm(1, "bool"), {}) is True
    assert eval_prim(P.FloatImm(0.1), {}) == np.float32(0.1)
    assert eval_prim(P.PrimStringImm("hello"), {}) == "hello"


def test_intrinsic_calls():
    e = P.PrimCall("float32", "tir.exp", (x,))
    r = eval_prim(e, {x: 1.0})
    assert isinstance(r, np.float32) and r == np.float32(math.e)
    assert eval_prim(P.PrimCall("int32", "tir.clz", (i,)), {i: 1}) == 31
    assert eval_prim(P.PrimCall("bool", "tir.isnan", (x,)), {x: np.nan}) is True
    assert eval_prim(P.PrimCall("float32", "tirx.sqrt", (x,)), {x: 4.0}) == 2.0
    with pytest.raises(UnsupportedError):
        eval_prim(P.PrimCall("float32", "tir.no_such_intrinsic", (x,)), {x: 1.0})


def test_semantics_helpers():
    assert sem.wrap(256, "uint8") == 0 and sem.wrap(-129, "int8") == 127 and sem.wrap(2, "bool") == 1
    assert sem.int_to_float(2 ** 64 + 2 ** 40, "float32") == np.float32(2 ** 64)
    assert sem.to_value(True, "int32") == 1
    assert sem.float_binary("add", np.array([1, 2], np.float16), np.array([1, 2], np.float16),
                            "float16").dtype == np.float16

"""Edge cases of TensorIR evaluation, on the scalar and the vectorized path alike: ordered float
``!=`` (PRIM.FLOAT.3), the overflowing quotient ``INT_MIN // -1`` (PRIM.INT.4), shift amounts
(PRIM.INT.7), bitwise intrinsics on bool, and reductions into a rank-0 output (TIR.VEC.2-4)."""

import numpy as np
import pytest

from relax_ref.errors import OpRuntimeError
from relax_ref.interp.tir import run_prim_func
from relax_ref.script.parser import parse_function

HEADER = "from tvm.script import tirx as T\n"


def elementwise(body: str, dtype: str = "int32", out: str = "int32", n: int = 4):
    return parse_function(HEADER + f'''
@T.prim_func
def f(A: T.Buffer(({n},), "{dtype}"), B: T.Buffer(({n},), "{dtype}"), C: T.Buffer(({n},), "{out}")):
    for i in range({n}):
        {body}
''')


def run_both(f, *arrays, out_dtype="int32"):
    """Run on both paths; the outputs (last array) or the error messages of each."""
    results = []
    for vec in (False, True):
        args = [np.array(a) for a in arrays]
        try:
            run_prim_func(f, args, vectorize=vec)
            results.append(args[-1])
        except OpRuntimeError as e:
            results.append(e)
    return results


def test_float_not_equal_is_ordered():
    f = elementwise("C[i] = A[i] != B[i]", "float32", "bool")
    a = np.array([np.nan, 1.0, 2.0, np.nan], "float32")
    b = np.array([1.0, np.nan, 2.0, np.nan], "float32")
    for r in run_both(f, a, b, np.zeros(4, bool)):
        assert r.tolist() == [False, False, False, False]
    a[0] = 5.0
    for r in run_both(f, a, b, np.zeros(4, bool)):
        assert r.tolist() == [True, False, False, False]


def test_float16_not_equal_is_ordered():
    f = elementwise("C[i] = A[i] != B[i]", "float16", "bool")
    a = np.array([np.nan, 1.0, 2.0, 3.0], "float16")
    b = np.array([np.nan, 1.5, 2.0, np.nan], "float16")
    for r in run_both(f, a, b, np.zeros(4, bool)):
        assert r.tolist() == [False, True, False, False]


@pytest.mark.parametrize("op,text", [("floordiv", "A[i] // B[i]"), ("floormod", "A[i] % B[i]"),
                                     ("division", "T.truncdiv(A[i], B[i])"), ("modulo", "T.truncmod(A[i], B[i])")])
def test_most_negative_by_minus_one_is_op_runtime(op, text):
    f = elementwise(f"C[i] = {text}")
    a = np.array([5, -2147483648, 7, 8], "int32")
    b = np.array([2, -1, 3, 1], "int32")
    for r in run_both(f, a, b, np.zeros(4, "int32")):
        assert isinstance(r, OpRuntimeError) and "-1 overflows" in r.message


def test_overflowing_quotient_at_a_masked_point_does_not_raise():
    f = elementwise("if B[i] != -1:\n            C[i] = A[i] // B[i]")
    a = np.array([-2147483648, 5, -7, 8], "int32")
    b = np.array([-1, 2, 3, 1], "int32")
    for r in run_both(f, a, b, np.zeros(4, "int32")):
        assert r.tolist() == [0, 2, -3, 8]


@pytest.mark.parametrize("fn,counts", [("shift_left", [1, 32, 0, 2]), ("shift_right", [1, -1, 0, 2]),
                                       ("shift_left", [1, 99, 0, 2])])
def test_shift_amount_out_of_range_is_op_runtime(fn, counts):
    f = elementwise(f"C[i] = T.{fn}(A[i], B[i])")
    for r in run_both(f, np.array([1, 2, 3, 4], "int32"), np.array(counts, "int32"), np.zeros(4, "int32")):
        assert isinstance(r, OpRuntimeError) and "out of range [0, 32)" in r.message


def test_shifts_in_range_and_masked():
    f = elementwise("C[i] = T.shift_left(A[i], B[i])")
    for r in run_both(f, np.array([1, 2, 3, 4], "int32"), np.array([1, 31, 0, 2], "int32"), np.zeros(4, "int32")):
        assert r.tolist() == [2, 0, 3, 16]
    g = elementwise("if B[i] < 32:\n            C[i] = T.shift_right(A[i], B[i])")
    for r in run_both(g, np.array([-8, 2, 3, 4], "int32"), np.array([1, 40, 0, 2], "int32"), np.zeros(4, "int32")):
        assert r.tolist() == [-4, 0, 3, 1]


def test_bool_bitwise_kernels():
    # TVM's legalized logical_xor / bitwise_not on bool
    f = elementwise("C[i] = T.bitwise_xor(A[i], B[i])", "bool", "bool")
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    for r in run_both(f, a, b, np.zeros(4, bool)):
        assert r.tolist() == [False, True, True, False]
    g = elementwise("C[i] = T.bitwise_not(A[i]) | T.bitwise_and(A[i], B[i])", "bool", "bool")
    for r in run_both(g, a, b, np.zeros(4, bool)):
        assert r.tolist() == [True, False, True, True]


# -- reductions into a rank-0 output ----------------------------------------------------------------

REDUCE_0D = HEADER + '''
@T.prim_func(s_tir=True)
def f(x: T.Buffer((T.int64(6),), "{dtype}"), out: T.Buffer((), "{dtype}")):
    for k0 in range(T.int64(6)):
        with T.sblock("T_red"):
            {extra}v_k0 = T.axis.reduce(T.int64(6), k0)
            T.reads(x[v_k0])
            T.writes(out[()])
            with T.init():
                out[()] = {init}
            out[()] = {update}
'''


@pytest.mark.parametrize("dtype,init,update,expect", [
    ("float32", "T.float32(0.0)", "out[()] + x[v_k0]", 15.0),
    ("float32", "T.float32(-3.0e38)", "T.max(out[()], x[v_k0])", 5.0),
    ("int32", "0", "out[()] + x[v_k0] * x[v_k0]", 55),
    ("int64", "T.int64(1)", "out[()] * (x[v_k0] + T.int64(1))", 720),
])
@pytest.mark.parametrize("extra", ["", "vi = T.axis.spatial(1, T.int64(0))\n            "])
def test_reduction_into_rank_0(dtype, init, update, expect, extra):
    f = parse_function(REDUCE_0D.format(dtype=dtype, init=init, update=update, extra=extra))
    x = np.arange(6).astype(dtype)
    for vec in (False, True):
        out = np.full((), 7).astype(dtype)
        run_prim_func(f, [x, out], vectorize=vec)
        assert out.shape == () and out[()] == expect


def test_rank_0_max_reduction_with_nan_falls_back_exactly():
    f = parse_function(REDUCE_0D.format(dtype="float32", init="T.float32(-3.0e38)",
                                        update="T.max(out[()], x[v_k0])", extra=""))
    x = np.array([1, np.nan, 3, 2, 0, 1], "float32")
    outs = []
    for vec in (False, True):
        out = np.zeros((), "float32")
        run_prim_func(f, [x, out], vectorize=vec)
        outs.append(float(out))
    assert outs == [3.0, 3.0]


@pytest.mark.tvm
def test_not_equal_matches_tvm():
    tvm = pytest.importorskip("tvm")
    from tvm.script import tirx as T

    text = '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "bool")):
    for i in range(4):
        C[i] = A[i] != B[i]
'''
    lib = tvm.compile(tvm.script.from_source(text, extra_vars={"T": T}), target="llvm")
    a = np.array([np.nan, 1.0, 2.0, 5.0], "float32")
    b = np.array([1.0, np.nan, 2.0, 3.0], "float32")
    c = tvm.runtime.tensor(np.zeros(4, bool))
    lib(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
    for r in run_both(elementwise("C[i] = A[i] != B[i]", "float32", "bool"), a, b, np.zeros(4, bool)):
        assert r.tolist() == c.numpy().tolist()

"""The TensorIR evaluator: statements, blocks, argument binding and scalar semantics [TIR.*].

Most tests run a PrimFunc on both paths (scalar and vectorized, TIR.VEC.1) and require equal results.
"""

import numpy as np
import pytest

from relax_ref.errors import (
    ArityMismatchError, AssertionFailedError, DivisionByZeroError, DTypeMismatchError, NDimMismatchError,
    RelaxRuntimeError, ShapeMismatchError, TIRBoundsError, TypeMismatchError,
)
from relax_ref.interp import run_prim_func
from relax_ref.values import PrimScalar
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

import interp_tir_builders as tb


@pytest.fixture(scope="module")
def prim(parse_ir):
    """``prim(text)``: the single PrimFunc of a module text."""
    from relax_ref.script.parser import parse_module

    def get(text):
        mod = parse_module("@I.ir_module\nclass Module:\n" + "\n".join("    " + ln for ln in text.splitlines()))
        (name,) = list(mod)
        return mod[name]
    return get


def run_both(func, args):
    """Run on both paths on copies of ``args``; require identical results; return the scalar one."""
    outs = []
    for vec in (False, True):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        run_prim_func(func, a, vectorize=vec)
        outs.append(a)
    for x, y in zip(*outs):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
    return outs[0]


def raises_both(func, args, exc):
    errs = []
    for vec in (False, True):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        with pytest.raises(exc) as ei:
            run_prim_func(func, a, vectorize=vec)
        errs.append(ei.value)
    return errs


# ---------------------------------------------------------------------------------------------------
# Loops, blocks, init, predicates
# ---------------------------------------------------------------------------------------------------


def test_matmul_with_init_matches_numpy():
    """[TIR.BLOCK.INIT.1] [TIR.LOOP.1]"""
    f = tb.matmul_func(8, 5, 7)
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 7), dtype=np.float32), rng.random((7, 5), dtype=np.float32)
    _, _, c = run_both(f, [a, b, np.full((8, 5), 99, np.float32)])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_reduction_without_init_accumulates_into_existing_values():
    """[TIR.BLOCK.INIT.1] without T.init the accumulator keeps its previous contents."""
    f = tb.matmul_func(3, 3, 4, dtype="int32", with_init=False)
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = np.ones((4, 3), np.int32)
    _, _, c = run_both(f, [a, b, np.full((3, 3), 100, np.int32)])
    np.testing.assert_array_equal(c, a @ b + 100)


def test_init_runs_when_reduce_iters_at_domain_minimum(prim):
    """[TIR.BLOCK.INIT.1] a reversed reduction loop reaches the minimum last: the init then
    overwrites the partial sum and only the final element remains."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((2, 4), "int32"), B: T.Buffer((2,), "int32")):
    for i, k in T.grid(2, 4):
        with T.block("b"):
            vi = T.axis.spatial(2, i)
            vk = T.axis.reduce(4, 3 - k)
            with T.init():
                B[vi] = 1000
            B[vi] = B[vi] + A[vi, vk]
''')
    a = np.arange(8, dtype=np.int32).reshape(2, 4)
    _, b = run_both(f, [a, np.zeros(2, np.int32)])
    np.testing.assert_array_equal(b, 1000 + a[:, 0])


def test_block_predicate_skips_instances(prim):
    """[TIR.BLOCK.1] T.where: instances whose predicate is false do nothing, including their
    (otherwise out-of-bounds) accesses."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for io, ii in T.grid(3, 4):
        with T.block("b"):
            vi = T.axis.spatial(10, io * 4 + ii)
            T.where(io * 4 + ii < 10)
            B[vi] = A[vi] * T.float32(2)
''')
    a = np.arange(10, dtype=np.float32)
    _, b = run_both(f, [a, np.zeros(10, np.float32)])
    np.testing.assert_array_equal(b, a * 2)


def test_loop_kinds_run_serially_and_nonzero_min(prim):
    """[TIR.LOOP.1] every loop kind runs serially; loops may start at a non-zero minimum."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((8,), "int32")):
    for i in T.parallel(2, 4):
        for j in T.vectorized(0, 2):
            for k in T.unroll(1):
                for t in T.thread_binding(1, thread="threadIdx.x"):
                    A[i * 2 + j] = i * 10 + j + k + t
''')
    (a,) = run_both(f, [np.zeros(8, np.int32)])
    np.testing.assert_array_equal(a, [0, 0, 0, 0, 20, 21, 30, 31])


def test_sequential_dependency_through_buffer(prim):
    """[TIR.VEC.2] a store read at another index (a prefix sum) must see earlier iterations."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((6,), "int64")):
    for i in range(1, 6):
        A[i] = A[i] + A[i - 1]
''')
    (a,) = run_both(f, [np.arange(6, dtype=np.int64)])
    np.testing.assert_array_equal(a, np.cumsum(np.arange(6)))


def test_block_alloc_buffer_and_match_buffer(prim):
    """[TIR.BLOCK.ALLOC.1] [TIR.BLOCK.MATCH.1] [TIR.BUF.5]"""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
    tmp = T.alloc_buffer((4,), "float32")
    for i in range(4):
        with T.block("row"):
            vi = T.axis.spatial(4, i)
            S = T.match_buffer(A[vi, 0:4], (4,), "float32")
            t = T.alloc_buffer((1,), "float32")
            t[0] = t[0] + S[0] + S[3]
            tmp[vi] = t[0]
    for i in range(4):
        with T.block("c"):
            vi = T.axis.spatial(4, i)
            C[vi] = T.if_then_else(vi > 0, tmp[vi - 1], T.float32(-1))
''')
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    _, c = run_both(f, [a, np.zeros(4, np.float32)])
    np.testing.assert_array_equal(c, [-1, 3, 11, 19])


def test_match_buffer_binds_symbolic_shape_of_region(prim):
    """[TIR.BLOCK.MATCH.1] symbolic extents of a matched buffer are bound from the region."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((3, 6), "float32"), B: T.Buffer((3,), "float32")):
    for i in range(3):
        with T.block("row"):
            vi = T.axis.spatial(3, i)
            m = T.int32()
            S = T.match_buffer(A[vi, 1:5], (m,), "float32")
            B[vi] = T.Cast("float32", m) + S[m - 1]
''')
    a = np.arange(18, dtype=np.float32).reshape(3, 6)
    _, b = run_both(f, [a, np.zeros(3, np.float32)])
    np.testing.assert_array_equal(b, 4 + a[:, 4])


# ---------------------------------------------------------------------------------------------------
# Other statements
# ---------------------------------------------------------------------------------------------------


def test_if_while_let_bind_evaluate(prim):
    """[TIR.STMT.1]"""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((5,), "int32"), n: T.int32):
    T.evaluate(0)
    for i in range(5):
        if i % 2 == 0:
            A[i] = i * n
        else:
            with T.LetStmt(i + 100) as j:
                A[i] = j
    k: T.int32 = 0
    while A[0] < 3:
        A[0] = A[0] + 1
''')
    (a, _) = run_both(f, [np.zeros(5, np.int32), 3])
    np.testing.assert_array_equal(a, [3, 101, 6, 103, 12])


def test_assert_stmt():
    """[TIR.STMT.1] a false T.Assert raises AssertionFailedError with its message."""
    A = tb.buf("A", (2,), "int32")
    body = tir.AssertStmt(P.LT(tir.BufferLoad(A, (tb.i64(0),)), P.IntImm(5, "int32")), "A[0] must be < 5",
                          tir.BufferStore(A, P.IntImm(1, "int32"), (tb.i64(1),)))
    f = tb.prim_func([A], body)
    run_prim_func(f, [np.zeros(2, np.int32)])
    with pytest.raises(AssertionFailedError, match="A\\[0\\] must be < 5"):
        run_prim_func(f, [np.full(2, 9, np.int32)])


def test_flat_alloc_buffer_and_decl_buffer_view(prim):
    """[TIR.BUF.4] [TIR.BUF.5] a declared buffer over another buffer's data is a view of it."""
    A = tb.buf("A", (2, 3), "float32")
    flat = tir.Buffer("Aflat", (P.IntImm(6, "int64"),), "float32", data=A.data)
    i = P.PrimVar("i", "int64")
    body = tir.DeclBuffer(flat, tir.For(i, tb.i64(0), tb.i64(6), "serial",
                                        tir.BufferStore(flat, P.cast("float32", i), (i,))))
    f = tb.prim_func([A], body)
    (a,) = run_both(f, [np.zeros((2, 3), np.float32)])
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32).reshape(2, 3))


# ---------------------------------------------------------------------------------------------------
# Bounds (TIR.BOUNDS.1) and division by zero
# ---------------------------------------------------------------------------------------------------


def test_off_by_one_loop_raises_bounds_error_on_both_paths(prim):
    """[TIR.BOUNDS.1] [TIR.VEC.5] an off-by-one loop reads past the end: TIRBoundsError naming the
    buffer, the indices and the shape (TVM would read garbage)."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi + 1]
''')
    for e in raises_both(f, [np.zeros(8, np.float32), np.zeros(8, np.float32)], TIRBoundsError):
        assert e.buffer == "A" and e.indices == (8,) and e.shape == (8,)
        assert "A" in str(e) and "[8]" in str(e)


def test_out_of_bounds_write_raises(prim):
    """[TIR.BOUNDS.1]"""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4, 4), "int32")):
    for i, j in T.grid(4, 5):
        A[i, j] = i + j
''')
    for e in raises_both(f, [np.zeros((4, 4), np.int32)], TIRBoundsError):
        assert e.buffer == "A" and e.indices == (0, 4) and e.shape == (4, 4)


def test_negative_index_raises(prim):
    """[TIR.BOUNDS.1] negative indices are out of bounds (no Python wrap-around)."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = A[i - 1]
''')
    for e in raises_both(f, [np.zeros(4, np.int32), np.zeros(4, np.int32)], TIRBoundsError):
        assert e.indices == (-1,)


def test_if_then_else_is_lazy_select_is_eager(prim):
    """[PRIM.SELECT.1] if_then_else guards an out-of-range load; Select evaluates both arms."""
    lazy = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((5,), "float32")):
    for i in range(5):
        B[i] = T.if_then_else(i < 4, A[T.min(i, 7)], T.float32(0))
''')
    _, b = run_both(lazy, [np.arange(4, dtype=np.float32), np.ones(5, np.float32)])
    np.testing.assert_array_equal(b, [0, 1, 2, 3, 0])
    eager = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((5,), "float32")):
    for i in range(5):
        B[i] = T.Select(i < 4, A[T.min(i, 7)], T.float32(0))
''')
    raises_both(eager, [np.arange(4, dtype=np.float32), np.ones(5, np.float32)], TIRBoundsError)


def test_integer_division_by_zero_raises(prim):
    """[PRIM.INT.3] [TIR.VEC.5]"""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = 12 // A[i]
''')
    ok = run_both(f, [np.array([1, 2, 3, -5], np.int32), np.zeros(4, np.int32)])
    np.testing.assert_array_equal(ok[1], [12, 6, 4, -3])
    raises_both(f, [np.array([1, 0, 3, 4], np.int32), np.zeros(4, np.int32)], DivisionByZeroError)


def test_division_by_zero_under_false_guard_is_fine(prim):
    """[TIR.VEC.5] a masked-out point never raises."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = T.if_then_else(A[i] != 0, T.truncdiv(12, A[i]), -1)
''')
    _, b = run_both(f, [np.array([1, 0, -3, 4], np.int32), np.zeros(4, np.int32)])
    np.testing.assert_array_equal(b, [12, -1, -4, 3])


# ---------------------------------------------------------------------------------------------------
# Scalar semantics
# ---------------------------------------------------------------------------------------------------


def test_integer_semantics_wrap_floor_trunc(prim):
    """[PRIM.INT.1] [PRIM.INT.2] int32 wraps; // and % floor, truncdiv/truncmod truncate."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((5, 4), "int32")):
    for i in range(4):
        B[0, i] = A[i] // 3
        B[1, i] = A[i] % 3
        B[2, i] = T.truncdiv(A[i], 3)
        B[3, i] = T.truncmod(A[i], 3)
        B[4, i] = A[i] * 65536 * 65536 + A[i] * 2147483647
''')
    a = np.array([-7, 7, -1, 2147483647], np.int32)
    _, b = run_both(f, [a, np.zeros((5, 4), np.int32)])
    np.testing.assert_array_equal(b[0], [-3, 2, -1, 715827882])
    np.testing.assert_array_equal(b[1], [2, 1, 2, 1])
    np.testing.assert_array_equal(b[2], [-2, 2, 0, 715827882])
    np.testing.assert_array_equal(b[3], [-1, 1, -1, 1])
    np.testing.assert_array_equal(b[4], (a.astype(np.int64) * 2147483647).astype(np.int32))


def test_float32_arithmetic_rounds_in_float32(prim):
    """[PRIM.FLOAT.1] each operation rounds to float32 (not computed in float64)."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
    for i in range(3):
        B[i] = (A[i] + T.float32(1e8)) - T.float32(1e8)
''')
    _, b = run_both(f, [np.array([1.0, 3.0, 0.25], np.float32), np.zeros(3, np.float32)])
    np.testing.assert_array_equal(b, [0.0, 0.0, 0.0])


def test_casts_and_intrinsics(prim):
    """[PRIM.CAST.1] [PRIM.CAST.2] [PRIM.CALL.1]"""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), I: T.Buffer((4,), "int32"), F: T.Buffer((4,), "float32"), U: T.Buffer((4,), "uint8")):
    for i in range(4):
        I[i] = T.Cast("int32", A[i])
        F[i] = T.exp(A[i]) + T.sqrt(T.fabs(A[i])) + T.round(A[i])
        U[i] = T.Cast("uint8", T.Cast("int32", A[i]) + 250)
''')
    a = np.array([-2.5, 2.5, 0.75, 3.0], np.float32)
    _, i, fo, u = run_both(f, [a, np.zeros(4, np.int32), np.zeros(4, np.float32), np.zeros(4, np.uint8)])
    np.testing.assert_array_equal(i, [-2, 2, 0, 3])
    np.testing.assert_allclose(fo, np.exp(a) + np.sqrt(np.abs(a)) + np.rint(a), rtol=1e-6)
    np.testing.assert_array_equal(u, [248, 252, 250, 253])


def test_float_max_follows_select_semantics(prim):
    """[PRIM.FLOAT.2] max(a, b) = a if a > b else b, in scalar and vectorized reductions."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2,), "float32")):
    for i, k in T.grid(2, 3):
        with T.block("m"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(-3.4e38)
            B[vi] = T.max(B[vi], A[vi, vk])
''')
    nan = np.nan
    a = np.array([[1, nan, 2], [1, 5, nan]], np.float32)
    _, b = run_both(f, [a, np.zeros(2, np.float32)])
    assert b[0] == 2 and np.isnan(b[1])


# ---------------------------------------------------------------------------------------------------
# Argument binding (TIR.FUNC.2-3)
# ---------------------------------------------------------------------------------------------------

_SYM = '''
@T.prim_func
def f(a: T.handle, b: T.handle, m: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n, n), "float32")
    B = T.match_buffer(b, (n * 2,), "float32")
    for i in range(n):
        B[i] = A[i, i] + T.Cast("float32", m)
        B[i + n] = T.float32(0)
'''


def test_symbolic_buffer_dims_bind_and_compare(prim):
    """[TIR.FUNC.3] the first occurrence binds, later ones and expressions must match."""
    f = prim(_SYM)
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    _, b, _ = run_both(f, [a, np.ones(6, np.float32), 10])
    np.testing.assert_array_equal(b, [10, 14, 18, 0, 0, 0])
    with pytest.raises(ShapeMismatchError, match=r"A\.shape\[1\]") as ei:
        run_prim_func(f, [np.zeros((3, 4), np.float32), np.zeros(6, np.float32), 1])
    assert ei.value.site == "call_tir" and ei.value.binding == "A"
    with pytest.raises(ShapeMismatchError, match=r"B\.shape\[0\]"):
        run_prim_func(f, [np.zeros((3, 3), np.float32), np.zeros(7, np.float32), 1])


def test_argument_kind_rank_dtype_and_count_errors(prim):
    """[TIR.FUNC.2] [TIR.FUNC.3]"""
    f = prim(_SYM)
    good = [np.zeros((2, 2), np.float32), np.zeros(4, np.float32), 1]
    with pytest.raises(NDimMismatchError):
        run_prim_func(f, [np.zeros(4, np.float32)] + good[1:])
    with pytest.raises(DTypeMismatchError):
        run_prim_func(f, [np.zeros((2, 2), np.float64)] + good[1:])
    with pytest.raises(TypeMismatchError):
        run_prim_func(f, [[[0.0, 0.0], [0.0, 0.0]]] + good[1:])
    with pytest.raises(ArityMismatchError):
        run_prim_func(f, good[:2])
    with pytest.raises(DTypeMismatchError):
        run_prim_func(f, good[:2] + [1.5])
    run_prim_func(f, good[:2] + [PrimScalar(3, "int64")])


def test_constant_shape_mismatch(prim):
    """[TIR.FUNC.3] a constant extent must equal the array's."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(1)
''')
    with pytest.raises(ShapeMismatchError, match=r"A\.shape\[0\] is 5, expected 4"):
        run_prim_func(f, [np.zeros(5, np.float32)])


def test_unbound_variable_is_reported():
    """[TIR.FUNC.2] a variable that nothing binds is a run-time error, not a crash."""
    A = tb.buf("A", (2,), "int64")
    v = P.PrimVar("ghost", "int64")
    f = tb.prim_func([A], tir.BufferStore(A, v, (tb.i64(0),)))
    with pytest.raises(RelaxRuntimeError, match="ghost"):
        run_prim_func(f, [np.zeros(2, np.int64)])


def test_predicate_guards_bindings(prim):
    """[TIR.BLOCK.1] [TIR.BLOCK.2] a predicate that does not mention the iteration variables is tested
    first: the bindings of skipped instances (here a division by zero) are never evaluated. Domains
    are not checked at run time."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(2, 12 // A[i])
            T.where(A[i] != 0)
            B[i] = vi
''')
    _, b = run_both(f, [np.array([3, 0, 6, 1], np.int32), np.full(4, -1, np.int32)])
    np.testing.assert_array_equal(b, [4, -1, 2, 12])


def test_scalar_parameter_conversion(prim):
    """[TIR.FUNC.2] integer prim values convert (wrap) to the parameter's dtype; a float value for an
    integer parameter is a dtype mismatch; a non-prim value a type mismatch."""
    f = prim('''
@T.prim_func
def f(A: T.Buffer((1,), "int8"), n: T.int8):
    A[0] = n
''')
    a = np.zeros(1, np.int8)
    run_prim_func(f, [a, PrimScalar(300, "int64")])
    assert a[0] == 44
    with pytest.raises(DTypeMismatchError) as ei:
        run_prim_func(f, [a, PrimScalar(1.0, "float32")])
    assert ei.value.site == "call_tir" and ei.value.binding == "n"
    with pytest.raises(TypeMismatchError):
        run_prim_func(f, [a, "three"])


def test_declared_strides_and_offset_are_checked_against_dense_layout():
    """[TIR.FUNC.3] declared strides bind / compare against the dense row-major strides."""
    s0 = P.PrimVar("s0", "int64")
    A = tir.Buffer("A", (tb.i64(2), tb.i64(3)), "float32", strides=(s0, tb.i64(1)))
    B = tir.Buffer("B", (tb.i64(2), tb.i64(3)), "float32", strides=(tb.i64(4), tb.i64(1)))
    a = np.zeros((2, 3), np.float32)
    run_prim_func(tb.prim_func([A], tir.BufferStore(A, P.cast("float32", s0), (tb.i64(1), tb.i64(2)))), [a])
    assert a[1, 2] == 3
    with pytest.raises(ShapeMismatchError, match="strides"):
        run_prim_func(tb.prim_func([B], tir.BufferStore(B, P.FloatImm(1.0, "float32"),
                                                        (tb.i64(0), tb.i64(0)))), [np.zeros((2, 3), np.float32)])

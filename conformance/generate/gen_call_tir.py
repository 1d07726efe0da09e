"""``R.call_tir`` / ``R.call_tir_inplace`` with hand-written TensorIR PrimFuncs.

Oracles: each kernel's meaning is restated as a NumPy formula here (loops, reductions, integer
division semantics, casts); out-of-bounds accesses and integer division by zero must fail with the
error the TIR rules require.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, module_text, via_float64, vector_kernel

from call_tir_scalar_cases import scalar_edge_cases
from case_helpers import f32_sampler

RNG = np.random.default_rng(20240606)
f32 = f32_sampler(RNG)


def ints(lo, hi, shape, dtype="int32"):
    return RNG.integers(lo, hi, shape).astype(dtype)


def trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return (np.sign(a) * np.sign(b) * q).astype(a.dtype)


def buffer_cases(x4, s3, s7):
    """Static and symbolic buffers of one elementwise kernel."""
    out = []
    static = module_text('''
        @T.prim_func
        def affine(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                B[i] = A[i] * T.float32(2) + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.affine, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''')
    out.append(Case("elementwise_static", static, runs=[([x4], x4 * 2 + 1)], spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.FUNC.2", "TIR.LOOP.1", "TIR.STMT.2", "TIR.FUNC.4", "TIR.EXPR.1"], tags=["call_tir"]))
    sym = module_text("\n" + vector_kernel("square", 'B[i] = A[i] * A[i]') + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.square, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("symbolic_buffers", sym,
                    runs=[([s3], s3 * s3), ([s7], s7 * s7), ([f32(0)], np.zeros((0,), "float32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.FUNC.3", "TIR.BUF.2"], tags=["call_tir", "symbolic", "empty"]))
    return out


def reduction_cases():
    """Reductions with blocks and ``T.init`` and with plain loops."""
    out = []
    row_sum = module_text('''
        @T.prim_func(s_tir=True)
        def row_sum(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i, j in T.grid(n, m):
                with T.sblock("sum"):
                    vi, vj = T.axis.remap("SR", [i, j])
                    with T.init():
                        B[vi] = T.float32(0)
                    B[vi] = B[vi] + A[vi, vj]

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.row_sum, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    r1, r2 = f32(3, 5), f32(2, 1)
    out.append(Case("reduction_block_init", row_sum,
                    runs=[([r1], via_float64(lambda a: a.sum(axis=1), r1)),
                          ([r2], via_float64(lambda a: a.sum(axis=1), r2))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BLOCK.1", "TIR.BLOCK.INIT.1", "TIR.BLOCK.5", "TIR.VEC.4"], tags=["call_tir", "reduction", "symbolic"],
                    description="T.init runs when the reduce iterator is at its minimum (an empty reduction "
                                "never runs it and leaves the output unspecified, so it is not tested)"))
    matmul = module_text('''
        @T.prim_func(s_tir=True)
        def matmul(a: T.handle, b: T.handle, c: T.handle):
            n = T.int64()
            k = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, k), "float32")
            B = T.match_buffer(b, (k, m), "float32")
            C = T.match_buffer(c, (n, m), "float32")
            for i, j, r in T.grid(n, m, k):
                with T.sblock("matmul"):
                    vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]

        @R.function
        def main(x: R.Tensor(("n", "k"), "float32"), w: R.Tensor(("k", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
            n = T.int64()
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((n, m), "float32"))
            return y
    ''')
    a1, b1, a2, b2 = f32(2, 3), f32(3, 4), f32(5, 1), f32(1, 2)
    out.append(Case("matmul_blocks", matmul,
                    runs=[([a1, b1], via_float64(np.matmul, a1, b1)), ([a2, b2], via_float64(np.matmul, a2, b2))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BLOCK.1", "TIR.BLOCK.2", "TIR.BLOCK.INIT.1"], tags=["call_tir", "reduction", "symbolic"], rtol=1e-5, atol=1e-5))
    loops_sum = module_text('''
        @T.prim_func
        def col_sum(A: T.Buffer((T.int64(3), T.int64(4)), "int32"), B: T.Buffer((T.int64(4),), "int32")):
            for j in range(T.int64(4)):
                B[j] = 0
                for i in range(T.int64(3)):
                    B[j] = B[j] + A[i, j]

        @R.function
        def main(x: R.Tensor((3, 4), "int32")) -> R.Tensor((4,), "int32"):
            cls = Module
            y = R.call_tir(cls.col_sum, (x,), out_sinfo=R.Tensor((4,), "int32"))
            return y
    ''')
    c1 = ints(-100, 100, (3, 4))
    out.append(Case("reduction_plain_loops", loops_sum, runs=[([c1], c1.sum(axis=0).astype("int32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.STMT.1", "TIR.LOOP.1"], tags=["call_tir", "reduction"]))
    return out


def nan_fold_cases():
    """Float T.max / T.min block reductions over rows holding NaN: the fold in loop order (PRIM.FLOAT.2)."""
    out = []
    nan_max = module_text('''
        @T.prim_func(s_tir=True)
        def row_max(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i, j in T.grid(n, m):
                with T.sblock("max"):
                    vi, vj = T.axis.remap("SR", [i, j])
                    with T.init():
                        B[vi] = T.float32(-3.4028234663852886e38)
                    B[vi] = T.max(B[vi], A[vi, vj])

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.row_max, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    nan = np.nan
    x1 = np.array([[nan, 0.5, 0.25], [0.5, 0.25, nan], [nan, nan, nan], [2.0, nan, -1.0], [-0.25, 0.25, 0.5]],
                  "float32")
    x2 = np.array([[nan, -1.5, nan, 0.75, 0.5], [1.0, nan, 0.5, 0.25, nan]], "float32")
    out.append(Case("max_reduction_nan_fold", nan_max,
                    runs=[([x1], np.array([0.5, nan, nan, -1.0, 0.5], "float32")),
                          ([x2], np.array([0.75, nan], "float32"))],
                    spec=["CALL.TIR.5", "TIR.BLOCK.INIT.1", "TIR.VEC.4", "PRIM.FLOAT.2"],
                    tags=["call_tir", "reduction", "float", "nan", "symbolic"], oracle="hand",
                    description="T.max(acc, v) folds in loop order: a NaN stays only until the next element, so "
                                "the result is NaN only when the row ends with one"))
    nan_min = module_text('''
        @T.prim_func(s_tir=True)
        def row_min(A: T.Buffer((T.int64(4), T.int64(3)), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i, j in T.grid(T.int64(4), T.int64(3)):
                with T.sblock("min"):
                    vi, vj = T.axis.remap("SR", [i, j])
                    with T.init():
                        B[vi] = T.float32(1)
                    B[vi] = T.min(A[vi, vj], B[vi])

        @R.function
        def main(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.row_min, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''')
    x3 = np.array([[nan, 0.5, 0.25], [0.5, 0.25, nan], [nan, nan, nan], [2.0, nan, -1.0]], "float32")
    out.append(Case("min_reduction_value_first_skips_nan", nan_min,
                    runs=[([x3], np.array([0.25, 0.25, 1.0, -1.0], "float32"))],
                    spec=["CALL.TIR.5", "TIR.BLOCK.INIT.1", "TIR.VEC.4", "PRIM.FLOAT.2"],
                    tags=["call_tir", "reduction", "float", "nan"], oracle="hand",
                    description="T.min(v, acc) folds in loop order: v < acc is False for a NaN v, so every NaN "
                                "element is skipped (an all-NaN row keeps the init)"))
    return out


def signature_cases(s3, s7):
    """Scalar TIR parameters, two outputs and a symbolic output shape."""
    out = []
    tir_vars = module_text('''
        @T.prim_func
        def add_scalar(a: T.handle, b: T.handle, k: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int64")
            B = T.match_buffer(b, (n,), "int64")
            for i in range(n):
                B[i] = A[i] + k

        @R.function
        def main(x: R.Tensor(("n",), "int64")) -> R.Tensor(("n",), "int64"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.add_scalar, (x,), out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([n * 10]))
            return y
    ''')
    t3, t5 = ints(-9, 9, 3, "int64"), ints(-9, 9, 5, "int64")
    out.append(Case("tir_vars", tir_vars, runs=[([t3], t3 + 30), ([t5], t5 + 50)],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.FUNC.3", "DIV.1"], tags=["call_tir", "tir_vars", "symbolic"],
                    description="tir_vars values are passed after the output buffers"))
    multi = module_text('''
        @T.prim_func
        def split_sign(a: T.handle, p: T.handle, q: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            P = T.match_buffer(p, (n,), "float32")
            Q = T.match_buffer(q, (n,), "float32")
            for i in range(n):
                P[i] = T.max(A[i], T.float32(0))
                Q[i] = T.min(A[i], T.float32(0))

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.split_sign, (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n,), "float32")])
            return y
    ''')
    m5 = f32(5)
    out.append(Case("two_outputs", multi, runs=[([m5], (np.maximum(m5, 0), np.minimum(m5, 0)))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "CALL.TIR.3"], tags=["call_tir"]))
    repeat = module_text('''
        @T.prim_func
        def repeat2(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n * 2,), "float32")
            for i in range(n * 2):
                B[i] = A[i // 2]

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.repeat2, (x,), out_sinfo=R.Tensor((n * 2,), "float32"))
            return y
    ''')
    out.append(Case("symbolic_output_expression", repeat,
                    runs=[([s3], np.repeat(s3, 2)), ([s7], np.repeat(s7, 2))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.FUNC.3", "CALL.TIR.4"], tags=["call_tir", "symbolic"]))
    return out


def integer_division_cases():
    """Truncating and flooring integer division, and division by zero."""
    out = []
    divs = module_text('''
        @T.prim_func
        def divmod_all(a: T.handle, b: T.handle, o: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int32")
            B = T.match_buffer(b, (n,), "int32")
            O = T.match_buffer(o, (T.int64(4), n), "int32")
            for i in range(n):
                O[0, i] = A[i] // B[i]
                O[1, i] = A[i] % B[i]
                O[2, i] = T.truncdiv(A[i], B[i])
                O[3, i] = T.truncmod(A[i], B[i])

        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor((4, "n"), "int32"):
            n = T.int64()
            cls = Module
            z = R.call_tir(cls.divmod_all, (x, y), out_sinfo=R.Tensor((4, n), "int32"))
            return z
    ''')
    da = np.array([7, -7, 7, -7, 0, 9, -1], "int32")
    db = np.array([3, 3, -3, -3, 5, 1, 4], "int32")
    td = trunc_div(da, db)
    expected_divs = np.stack([np.floor_divide(da, db), np.mod(da, db), td, (da - db * td).astype("int32")])
    out.append(Case("integer_division_semantics", divs, runs=[([da, db], expected_divs.astype("int32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "PRIM.INT.2", "PRIM.INT.3"], tags=["call_tir", "integer"],
                    description="// and % are floor division/modulo; truncdiv/truncmod round toward zero"))
    div0 = module_text('''
        @T.prim_func
        def div(a: T.handle, b: T.handle, o: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int32")
            B = T.match_buffer(b, (n,), "int32")
            O = T.match_buffer(o, (n,), "int32")
            for i in range(n):
                O[i] = A[i] // B[i]

        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
            n = T.int64()
            cls = Module
            z = R.call_tir(cls.div, (x, y), out_sinfo=R.Tensor((n,), "int32"))
            return z
    ''')
    out.append(Case("integer_division_by_zero", div0,
                    runs=[([da, db], np.floor_divide(da, db)),
                          Fails([np.array([4, 5], "int32"), np.array([2, 0], "int32")], "division_by_zero")],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "PRIM.INT.4", "DIV.15"], tags=["call_tir", "integer", "error"]))
    return out


def out_of_bounds_cases():
    """Reads and writes outside a buffer fail."""
    out = []
    oob_read = module_text("\n" + vector_kernel("shift", 'B[i] = A[i + T.int64(1)]') + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("out_of_bounds_read", oob_read, runs=[Fails([f32(4)], "out_of_bounds")],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BOUNDS.1", "DIV.17", "PRIM.LOAD.1"], tags=["call_tir", "bounds", "error"], oracle="spec-rule",
                    description="reading A[n] (one past the end) is an error"))
    oob_write = module_text('''
        @T.prim_func
        def spill(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(4)):
                B[i] = A[T.min(i, T.int64(2))]

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.call_tir(cls.spill, (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("out_of_bounds_write", oob_write, runs=[Fails([f32(3)], "out_of_bounds")],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BOUNDS.1", "TIR.STMT.2"], tags=["call_tir", "bounds", "error"], oracle="spec-rule"))
    negative_index = module_text('''
        @T.prim_func
        def back(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i - T.int64(1)]

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.call_tir(cls.back, (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("out_of_bounds_negative_index", negative_index, runs=[Fails([f32(3)], "out_of_bounds")],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BOUNDS.1"], tags=["call_tir", "bounds", "error"], oracle="spec-rule",
                    description="A[-1] is out of bounds (no wrap-around)"))
    return out


def selection_cases(s3, s7):
    """``T.if_then_else`` evaluates one branch, ``T.Select`` both."""
    out = []
    guarded = module_text("\n" + vector_kernel(
        "shift_right", 'B[i] = T.if_then_else(i > T.int64(0), A[i - T.int64(1)], T.float32(0))') + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.shift_right, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("if_then_else_is_lazy", guarded,
                    runs=[([s3], np.concatenate([[0.0], s3[:-1]]).astype("float32")),
                          ([s7], np.concatenate([[0.0], s7[:-1]]).astype("float32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BOUNDS.2", "PRIM.SELECT.1", "TIR.VEC.5"], tags=["call_tir", "bounds"],
                    description="the arm not taken by if_then_else is not evaluated, so A[-1] is never read"))
    select_eager = module_text("\n" + vector_kernel(
        "shift_select", 'B[i] = T.Select(i > T.int64(0), A[i - T.int64(1)], T.float32(0))') + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.shift_select, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("select_is_eager", select_eager, runs=[Fails([s3], "out_of_bounds")],
                    spec=["PRIM.SELECT.1", "TIR.BOUNDS.1", "TIR.BOUNDS.2", "DIV.17"],
                    tags=["call_tir", "bounds", "error"], oracle="spec-rule",
                    description="Select evaluates both arms, so A[-1] is read at i = 0"))
    return out


def buffer_binding_cases(x4):
    """Argument shapes bind the kernel's buffer shapes."""
    out = []
    arg_shape = module_text('''
        @T.prim_func
        def copy4(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.copy4, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''')
    out.append(Case("buffer_shape_mismatch", arg_shape,
                    runs=[([x4], x4), Fails([f32(3)], "shape_mismatch"), Fails([f32(5)], "shape_mismatch")],
                    spec=["CALL.TIR.7", "TIR.FUNC.3", "EVAL.CHECK.8"], tags=["call_tir", "check"],
                    description="a tensor whose shape differs from the PrimFunc's buffer is rejected at the call"))
    repeated = module_text('''
        @T.prim_func
        def diag(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n, n), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                B[i] = A[i, i]

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.diag, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    q3 = f32(3, 3)
    out.append(Case("buffer_repeated_symbolic_dim", repeated,
                    runs=[([q3], np.diag(q3).copy()), Fails([f32(3, 2)], "shape_mismatch")],
                    spec=["CALL.TIR.7", "TIR.FUNC.3"], tags=["call_tir", "check", "symbolic"],
                    description="the second occurrence of n in a buffer shape must agree with the first"))
    return out


def cast_and_intrinsic_cases():
    """Casts, integer wraparound and math intrinsics."""
    out = []
    casts = module_text('''
        @T.prim_func
        def convert(A: T.Buffer((T.int64(6),), "float32"), B: T.Buffer((T.int64(6),), "int32"), C: T.Buffer((T.int64(6),), "int8")):
            for i in range(T.int64(6)):
                B[i] = T.Cast("int32", A[i])
                C[i] = T.Cast("int8", B[i] + B[i])

        @R.function
        def main(x: R.Tensor((6,), "float32")) -> R.Tuple(R.Tensor((6,), "int32"), R.Tensor((6,), "int8")):
            cls = Module
            y = R.call_tir(cls.convert, (x,), out_sinfo=[R.Tensor((6,), "int32"), R.Tensor((6,), "int8")])
            return y
    ''')
    cv = np.array([2.9, -2.9, 0.5, -0.5, 100.0, -100.25], "float32")
    ci = np.trunc(cv).astype("int32")
    c8 = ((ci.astype("int64") * 2 + 128) % 256 - 128).astype("int8")
    out.append(Case("casts_truncate_and_wrap", casts, runs=[([cv], (ci, c8))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "PRIM.CAST.2", "PRIM.CAST.1"], tags=["call_tir", "cast"],
                    description="float to int truncates toward zero; int32 to int8 keeps the low 8 bits"))
    int_wrap = module_text('''
        @T.prim_func
        def double8(A: T.Buffer((T.int64(4),), "int8"), B: T.Buffer((T.int64(4),), "int8")):
            for i in range(T.int64(4)):
                B[i] = A[i] + A[i]

        @R.function
        def main(x: R.Tensor((4,), "int8")) -> R.Tensor((4,), "int8"):
            cls = Module
            y = R.call_tir(cls.double8, (x,), out_sinfo=R.Tensor((4,), "int8"))
            return y
    ''')
    w8 = np.array([100, -100, 64, -64], "int8")
    out.append(Case("integer_wraparound", int_wrap,
                    runs=[([w8], ((w8.astype("int64") * 2 + 128) % 256 - 128).astype("int8"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "PRIM.INT.1"], tags=["call_tir", "integer"]))
    intrin = module_text('''
        @T.prim_func
        def math(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (T.int64(4), n), "float32")
            for i in range(n):
                B[0, i] = T.exp(A[i])
                B[1, i] = T.sqrt(T.fabs(A[i]))
                B[2, i] = T.Select(A[i] > T.float32(0), A[i], A[i] * T.float32(0.5))
                B[3, i] = T.tanh(A[i])

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4, "n"), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.math, (x,), out_sinfo=R.Tensor((4, n), "float32"))
            return y
    ''')
    mx = f32(6)
    expected_math = via_float64(lambda a: np.stack([np.exp(a), np.sqrt(np.abs(a)), np.where(a > 0, a, a * 0.5), np.tanh(a)]),
                        mx)
    out.append(Case("intrinsics", intrin, runs=[([mx], expected_math.astype("float32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "PRIM.INTRIN.1", "PRIM.SELECT.1", "PRIM.FLOAT.1"], tags=["call_tir", "float"], rtol=1e-5, atol=1e-6))
    return out


def loop_cases():
    """Loop kinds, a loop with a start, a scratch buffer and a while loop."""
    out = []
    loop_kinds = module_text('''
        @T.prim_func
        def kinds(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
            for i in T.parallel(T.int64(2)):
                for j in T.unroll(T.int64(2)):
                    for k in T.vectorized(T.int64(2)):
                        B[i * T.int64(4) + j * T.int64(2) + k] = A[T.int64(7) - (i * T.int64(4) + j * T.int64(2) + k)]

        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
            cls = Module
            y = R.call_tir(cls.kinds, (x,), out_sinfo=R.Tensor((8,), "float32"))
            return y
    ''')
    x8 = f32(8)
    out.append(Case("loop_kinds", loop_kinds, runs=[([x8], x8[::-1].copy())],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.LOOP.1"], tags=["call_tir", "loops"],
                    description="parallel, unrolled and vectorized loops mean the same as serial ones"))
    serial_range = module_text('''
        @T.prim_func
        def window(A: T.Buffer((T.int64(6),), "int32"), B: T.Buffer((T.int64(6),), "int32")):
            for i in range(T.int64(6)):
                B[i] = 0
            for i in T.serial(T.int64(2), T.int64(5)):
                B[i] = A[i] * 10

        @R.function
        def main(x: R.Tensor((6,), "int32")) -> R.Tensor((6,), "int32"):
            cls = Module
            y = R.call_tir(cls.window, (x,), out_sinfo=R.Tensor((6,), "int32"))
            return y
    ''')
    w6 = ints(-9, 9, 6)
    ew = np.zeros(6, "int32")
    ew[2:5] = w6[2:5] * 10
    out.append(Case("loop_with_start", serial_range, runs=[([w6], ew)], spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.LOOP.1", "TIR.LOOP.2"],
                    tags=["call_tir", "loops"]))
    scratch = module_text('''
        @T.prim_func
        def prefix_sum(A: T.Buffer((T.int64(5),), "int32"), B: T.Buffer((T.int64(5),), "int32")):
            acc = T.alloc_buffer((T.int64(1),), "int32")
            acc[0] = 0
            for i in range(T.int64(5)):
                acc[0] = acc[0] + A[i]
                B[i] = acc[0]

        @R.function
        def main(x: R.Tensor((5,), "int32")) -> R.Tensor((5,), "int32"):
            cls = Module
            y = R.call_tir(cls.prefix_sum, (x,), out_sinfo=R.Tensor((5,), "int32"))
            return y
    ''')
    p5 = ints(-20, 20, 5)
    out.append(Case("scratch_buffer", scratch, runs=[([p5], np.cumsum(p5).astype("int32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.BUF.4"], tags=["call_tir", "alloc"]))
    while_loop = module_text('''
        @T.prim_func
        def halvings(A: T.Buffer((T.int64(3),), "int32"), B: T.Buffer((T.int64(3),), "int32")):
            for i in range(T.int64(3)):
                v = T.alloc_buffer((T.int64(1),), "int32")
                c = T.alloc_buffer((T.int64(1),), "int32")
                v[0] = A[i]
                c[0] = 0
                while v[0] > 1:
                    v[0] = v[0] // 2
                    c[0] = c[0] + 1
                B[i] = c[0]

        @R.function
        def main(x: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
            cls = Module
            y = R.call_tir(cls.halvings, (x,), out_sinfo=R.Tensor((3,), "int32"))
            return y
    ''')
    hv = np.array([1, 8, 100], "int32")
    out.append(Case("while_loop", while_loop,
                    runs=[([hv], np.array([0, 3, 6], "int32"))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.STMT.4", "TIR.BUF.4"], tags=["call_tir", "loops"], oracle="hand",
                    description="number of halvings until the value is at most 1"))
    return out


def inplace_and_assert_cases():
    """``call_tir_inplace``, a direct PrimFunc call and ``T.Assert``."""
    out = []
    inplace = module_text('''
        @T.prim_func
        def add_into(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                A[i] = A[i] + B[i]

        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            z = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0], out_sinfo=R.Tensor((4,), "float32"))
            return z
    ''')
    i1, i2 = f32(4), f32(4)
    out.append(Case("call_tir_inplace", inplace, runs=[([i1, i2], i1 + i2)],
                    spec=["CALL.INPLACE.1", "CALL.INPLACE.3", "CALL.INPLACE.4"], tags=["call_tir", "inplace"]))
    direct = module_text('''
        @T.prim_func
        def fill(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i] + T.float32(1)

        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            u = cls.fill(x, y)
            return y
    ''')
    x3 = f32(3)
    out.append(Case("direct_primfunc_call_mutates", direct, runs=[([x3, f32(3)], x3 + 1)],
                    spec=["VAL.PRIMFUNC.1", "CALL.PRIMFUNC.1", "EVAL.ALIAS.1", "VAL.2"], tags=["call_tir", "impure"],
                    description="calling a PrimFunc directly writes into its arguments and returns unit"))
    assert_tir = module_text('''
        @T.prim_func
        def checked(A: T.Buffer((T.int64(2),), "int32"), B: T.Buffer((T.int64(2),), "int32")):
            assert A[0] >= 0, "A[0] must be non-negative"
            for i in range(T.int64(2)):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
            cls = Module
            y = R.call_tir(cls.checked, (x,), out_sinfo=R.Tensor((2,), "int32"))
            return y
    ''')
    g2 = np.array([3, -4], "int32")
    out.append(Case("tir_assert", assert_tir,
                    runs=[([g2], g2), Fails([np.array([-1, 2], "int32")], "assert_failed")],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.STMT.5"], tags=["call_tir", "assert"]))
    return out


def classic_block_cases(x4):
    """Blocks written in the classic spelling."""
    out = []
    # classic spelling
    classic_block = module_text('''
        @T.prim_func
        def row_max(a: T.handle, b: T.handle):
            T.func_attr({"tir.noalias": True})
            n = T.int64()
            A = T.match_buffer(a, (n, T.int64(3)), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i, j in T.grid(n, T.int64(3)):
                with T.block("max"):
                    vi, vj = T.axis.remap("SR", [i, j])
                    with T.init():
                        B[vi] = T.float32(-3.4028234663852886e38)
                    B[vi] = T.max(B[vi], A[vi, vj])

        @R.function
        def main(x: R.Tensor(("n", 3), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.row_max, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''', spelling="classic")
    k1, k2 = f32(4, 3), f32(1, 3)
    out.append(Case("classic_block_reduction", classic_block,
                    runs=[([k1], k1.max(axis=1)), ([k2], k2.max(axis=1))],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TEXT.DIALECT.1", "TEXT.DIALECT.2", "TIR.BLOCK.INIT.1"], tags=["call_tir", "reduction", "spelling:classic"]))
    classic_alloc = module_text('''
        @T.prim_func
        def twice_via_scratch(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            tmp = T.alloc_buffer((T.int64(4),), "float32")
            for i in range(T.int64(4)):
                with T.block("t"):
                    vi = T.axis.spatial(T.int64(4), i)
                    tmp[vi] = A[vi] + A[vi]
            for i in range(T.int64(4)):
                with T.block("b"):
                    vi = T.axis.spatial(T.int64(4), i)
                    B[vi] = tmp[vi] * T.float32(3)

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.twice_via_scratch, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''', spelling="classic")
    out.append(Case("classic_blocks_scratch", classic_alloc, runs=[([x4], (x4 + x4) * 3)],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TEXT.DIALECT.1", "TEXT.TIR.4", "TIR.BLOCK.ALLOC.1"], tags=["call_tir", "alloc", "spelling:classic"]))
    classic_elementwise = module_text('''
        @T.prim_func
        def scale_shift(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
            T.func_attr({"tir.noalias": True})
            for i, j in T.grid(T.int64(2), T.int64(3)):
                with T.block("compute"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(-2) + T.Cast("float32", vj)

        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            cls = Module
            with R.dataflow():
                y = R.call_tir(cls.scale_shift, (x,), out_sinfo=R.Tensor((2, 3), "float32"))
                R.output(y)
            return y
    ''', spelling="classic")
    e23 = f32(2, 3)
    out.append(Case("classic_spatial_block", classic_elementwise,
                    runs=[([e23], e23 * -2 + np.arange(3, dtype="float32"))],
                    spec=["CALL.TIR.5", "TEXT.DIALECT.1", "TIR.BLOCK.1", "TIR.BLOCK.3", "TIR.BLOCK.4"],
                    tags=["call_tir", "spelling:classic"],
                    description="classic T.block with T.reads/T.writes metadata"))
    return out


def argument_cases():
    """Inputs are read-only; ``call_tir_with_grad``; scalar edge cases."""
    out = []
    writes_input = module_text('''
        @T.prim_func
        def clobber(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i]
                A[i] = T.float32(0)

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.call_tir(cls.clobber, (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("input_is_read_only", writes_input, runs=[Fails([f32(3)], "op_runtime")],
                    spec=["CALL.TIR.6", "DIV.20"], tags=["call_tir", "purity", "error"], oracle="spec-rule",
                    description="a PrimFunc called through call_tir may not store into an input buffer"))
    with_grad = module_text('''
        @T.prim_func
        def triple(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                B[i] = A[i] * T.float32(3)

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir_with_grad(cls.triple, (x,), out_sinfo=R.Tensor((4,), "float32"), te_grad_name="triple_grad")
            return y
    ''')
    g4 = f32(4)
    out.append(Case("call_tir_with_grad", with_grad, runs=[([g4], g4 * 3)], spec=["CALL.TIR.8", "CALL.TIR.5"],
                    tags=["call_tir"], description="the gradient attributes have no effect on evaluation"))
    return out


def cases():
    x4 = f32(4)  # inputs several families use
    s3, s7 = f32(3), f32(7)
    return (buffer_cases(x4, s3, s7)
            + reduction_cases()
            + nan_fold_cases()
            + signature_cases(s3, s7)
            + integer_division_cases()
            + out_of_bounds_cases()
            + selection_cases(s3, s7)
            + buffer_binding_cases(x4)
            + cast_and_intrinsic_cases()
            + loop_cases()
            + inplace_and_assert_cases()
            + classic_block_cases(x4)
            + argument_cases()
            + scalar_edge_cases())


def generate():
    return {"call_tir": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_call_tir"])

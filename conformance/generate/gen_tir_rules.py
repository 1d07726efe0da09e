"""TensorIR rules no other category exercises: the order in which failing operands report their error,
intrinsic calls and their dtypes, block-level ``match_buffer`` windows, packed calls from TensorIR with
array descriptors, and a PrimFunc whose buffer shape uses a variable no parameter defines.

Oracles: NumPy restatements (transcendental intrinsics in float64, rounded once); errors from the cited
rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Malformed, Prim, module_text, via_float64

RNG = np.random.default_rng(20240730)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


ORDER = '''
        @T.prim_func
        def first(A: T.Buffer((T.int64(2),), "int32"), k: T.int64, B: T.Buffer((T.int64(1),), "int32")):
            B[T.int64(0)] = EXPR

        @R.function
        def main(x: R.Tensor((2,), "int32"), p: R.Prim(value="k")) -> R.Tensor((1,), "int32"):
            k = T.int64()
            cls = Module
            y = R.call_tir(cls.first, (x, p), out_sinfo=R.Tensor((1,), "int32"))
            return y
'''


def order_cases():
    out = []
    left = module_text(ORDER.replace("EXPR", "A[k] + T.int32(7) // A[T.int64(1)]"))
    runs = [([np.array([3, 2], "int32"), Prim(0, "int64")], np.array([3 + 7 // 2], "int32")),
            Fails([np.array([3, 0], "int32"), Prim(2, "int64")], "out_of_bounds",
                  "A[2] is evaluated before 7 // A[1] = 7 // 0"),
            Fails([np.array([3, 0], "int32"), Prim(0, "int64")], "division_by_zero", "A[0] is in bounds")]
    out.append(Case("first_failing_operand_left", left, runs=runs,
                    spec=["PRIM.EVAL.2", "PRIM.EVAL.1", "TIR.EXPR.1", "TIR.BOUNDS.1", "PRIM.INT.1"],
                    tags=["call_tir", "order"], oracle="hand",
                    description="both operands fail: the left one, evaluated first, reports its error"))
    right = module_text(ORDER.replace("EXPR", "T.int32(7) // A[T.int64(1)] + A[k]"))
    runs = [([np.array([3, 2], "int32"), Prim(1, "int64")], np.array([7 // 2 + 2], "int32")),
            Fails([np.array([3, 0], "int32"), Prim(2, "int64")], "division_by_zero",
                  "7 // A[1] is evaluated before A[2]"),
            Fails([np.array([3, 1], "int32"), Prim(5, "int64")], "out_of_bounds")]
    out.append(Case("first_failing_operand_right", right, runs=runs,
                    spec=["PRIM.EVAL.2", "PRIM.EVAL.1", "TIR.EXPR.1", "TIR.BOUNDS.1"],
                    tags=["call_tir", "order"], oracle="hand",
                    description="the same operands in the other order report the other error"))
    return out


def intrinsic_cases():
    out = []
    calls = module_text('''
        @T.prim_func
        def calls(a: T.handle, b: T.handle, c: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            C = T.match_buffer(c, (n,), "int32")
            for i in range(n):
                B[i] = T.exp(A[i]) * T.float32(0.5) + T.sqrt(T.fabs(A[i])) - T.tanh(A[i])
                C[i] = T.abs(T.Cast("int32", i) - T.int32(3)) * T.int32(2)

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "int32")):
            n = T.int64()
            cls = Module
            t = R.call_tir(cls.calls, (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n,), "int32")])
            return t
    ''')

    def expected(x):
        e = via_float64(np.exp, x)
        s = via_float64(lambda a: np.sqrt(np.abs(a)), x)
        t = via_float64(np.tanh, x)
        b = ((e * np.float32(0.5)) + s) - t
        c = (np.abs(np.arange(len(x)) - 3) * 2).astype("int32")
        return b.astype("float32"), c

    runs = [([x], expected(x)) for x in (f32(0), f32(1), f32(6))]
    out.append(Case("intrinsic_calls_and_their_dtypes", calls, runs=runs,
                    spec=["PRIM.CALL.1", "PRIM.CALL.2", "PRIM.INTRIN.1", "TIR.EXPR.1", "TEXT.DIALECT.4"],
                    tags=["call_tir", "intrinsics", "symbolic"], rtol=2e-6, atol=2e-6,
                    description="float intrinsics evaluated at the argument and rounded to float32; abs of an "
                                "int32 keeps its dtype"))
    return out


def block_cases():
    out = []
    window = module_text('''
        @T.prim_func(s_tir=True)
        def weighted(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                with T.sblock("row"):
                    vi = T.axis.spatial(n, i)
                    T.reads(A[vi, 0:m])
                    T.writes(B[vi])
                    W = T.match_buffer(A[vi, 0:m], (m,), "float32", offset_factor=1)
                    B[vi] = T.float32(0)
                    for j in range(m):
                        B[vi] = B[vi] + W[j] * T.Cast("float32", j + 1)

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.weighted, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    runs = []
    for n, m in ((0, 3), (2, 0), (1, 1), (3, 4)):
        x = np.round(f32(n, m) * 4) / 4   # quarters: every partial sum is exact in float32
        runs.append(([x.astype("float32")], (x * np.arange(1, m + 1, dtype="float32")).sum(axis=1).astype("float32")))
    out.append(Case("block_match_buffer_window", window, runs=runs,
                    spec=["TIR.BLOCK.MATCH.1", "TEXT.TIR.REGION.1", "TIR.BLOCK.1", "TEXT.DIALECT.4"],
                    tags=["call_tir", "symbolic"], requires=["tir-match-buffer"],
                    description="W is the window A[vi, 0:m] of the block's row: W[j] is A[vi, j]"))
    packed = module_text('''
        @T.prim_func
        def twice(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            T.call_packed("conformance.add_dps", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0), T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0))

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.twice, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    runs = [([x], x + x) for x in (f32(0), f32(1), f32(5))]
    out.append(Case("packed_call_from_tensorir", packed, runs=runs,
                    spec=["TIR.PACKED.1", "TIR.PACKED.2", "TEXT.TIR.PACKED.1", "CALL.PACKED.5"],
                    tags=["call_tir", "packed", "symbolic"], requires=["tir-packed-calls"],
                    description="a PrimFunc passes array descriptors of its buffers to a packed function, which "
                                "writes the output through its descriptor"))
    early = module_text('''
        @T.prim_func
        def shifted(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            T.call_packed("conformance.not_registered", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 1), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0))

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.shifted, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    runs = [Fails([f32(3)], "out_of_bounds", "elements 1..3 of a memory of 3: the descriptor is checked before "
                                             "the unknown name is looked up"),
            Fails([f32(0)], "out_of_bounds", "an empty array at offset 1 of an empty memory")]
    out.append(Case("packed_call_descriptor_before_lookup", early, runs=runs,
                    spec=["TIR.PACKED.5", "TIR.PACKED.2", "TIR.PACKED.1", "DIV.41"],
                    tags=["call_tir", "packed", "order", "symbolic"], requires=["tir-packed-calls"], oracle="hand",
                    description="a packed call with an out-of-bounds array descriptor and an unknown function: "
                                "the descriptor's error, checked before the look-up"))
    undefined = module_text('''
        @T.prim_func
        def k(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n * 2,), "float32")
            B = T.match_buffer(b, (n * 2,), "float32")
            for i in range(n * 2):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            return x
    ''')
    out.append(Invalid("primfunc_buffer_shape_uses_an_undefined_variable", undefined, "well_formed",
                       spec=["WF.TIR.2", "TIR.FUNC.3"], tags=["call_tir", "symbolic"],
                       description="n occurs in the buffer shapes only inside n * 2, never as a bare dimension, "
                                   "so no parameter defines it"))
    return out


def _void_buffer_module(store: str) -> str:
    """A module whose ``main(x)`` calls ``k`` (a void buffer ``A`` and a float32 ``B`` of length ``n``,
    a loop running ``store``) on ``x``."""
    return module_text(f'''
        @T.prim_func
        def k(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                {store}

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')


def void_buffer_cases():
    out = []
    out.append(Malformed("void_buffer_load", _void_buffer_module("B[i] = T.exp(A[i]) * T.float32(0.5)"), spec=["TIR.BUF.7"], tags=["tir", "void"],
        description="a void buffer has no elements: a load from it is a parse error"))
    bound = _void_buffer_module("B[i] = T.float32(1)")
    out.append(Case("void_buffer_bound_to_a_float32_tensor", bound,
                    runs=[Fails([np.ones(3, "float32")], "dtype_mismatch")], spec=["TIR.BUF.7", "TIR.FUNC.2"],
                    tags=["tir", "void", "runtime"],
                    description="a void buffer bound to a float32 argument is a dtype mismatch of the binding"))
    for name, target in (("cast_to_void", '""'), ("cast_to_handle", '"handle"')):
        text = module_text(f'''
            @T.prim_func
            def k(a: T.handle, b: T.handle, c: T.int64):
                n = T.int64()
                A = T.match_buffer(a, (n,), "float32")
                B = T.match_buffer(b, (n,), "float32")
                for i in range(n):
                    B[i] = A[i] + T.Cast({target}, c)

            @R.function
            def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
                n = T.int64()
                cls = Module
                y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([2]))
                return y
        ''')
        out.append(Malformed(name, text, spec=["PRIM.CAST.3"], tags=["tir", "void", "cast"],
                             description=f"a cast to {target} has no value to give: a parse error"))
    return out


def generate():
    return {"tir_rules": order_cases() + intrinsic_cases() + block_cases() + void_buffer_cases()}

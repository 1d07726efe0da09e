"""Cross-cutting semantic rules: dtype spellings, virtual devices, scalar-expression details, TensorIR
statements and buffers, struct-info joins and well-formedness of dataflow variables.

Oracles: hand-written values and NumPy formulas; rejections follow the cited rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240621)
f32 = f32_sampler(RNG)


def values_cases():
    out = []
    aliases = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float"), y: R.Tensor((3,), "int")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "int32")):
            return (x, y)
    ''')
    x3 = f32(3)
    i3 = RNG.integers(-9, 9, 3).astype("int32")
    out.append(Case(
        "dtype_aliases", aliases,
        runs=[([x3, i3], (x3, i3)),
              Fails([x3.astype("float64"), i3], "dtype_mismatch", "float is float32, not float64"),
              Fails([x3, i3.astype("int64")], "dtype_mismatch", "int is int32, not int64")],
        spec=["VAL.DTYPE.2", "EVAL.CHECK.2"], tags=["dtype", "check"], oracle="hand",
        description="the dtype spellings float and int denote float32 and int32"))
    void = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "")) -> R.Tensor((2,)):
            return x
    ''')
    xi = np.array([4, -5], "int8")
    out.append(Case(
        "void_dtype_is_unknown", void,
        runs=[([xi], xi), ([np.array([1.5, 2.0], "float64")], np.array([1.5, 2.0], "float64")),
              Fails([np.zeros(3, "float32")], "shape_mismatch")],
        spec=["VAL.DTYPE.3", "SI.TENSOR.1"], tags=["dtype", "check"], oracle="hand",
        description="the empty dtype string reads as void: any dtype matches"))
    tensors = module_text('''
        @R.function
        def main(x: R.Tensor((), "float32"), y: R.Tensor((0, 3), "float32")) -> R.Tuple(R.Tensor((), "float32"), R.Tensor((0, 3), "float32")):
            a = R.add(x, x)
            b = R.multiply(y, x)
            return (a, b)
    ''')
    s = np.array(1.25, "float32")
    e = np.zeros((0, 3), "float32")
    out.append(Case(
        "scalar_and_empty_tensors", tensors, runs=[([s, e], (np.array(s + s, "float32"), e * s))],
        spec=["VAL.TENSOR.1"], tags=["empty", "scalar"], oracle="numpy-formula",
        description="rank-0 tensors hold one element; a zero dimension leaves no elements"))
    vdev = module_text('''
        I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

        @R.function
        def main(x: R.Tensor((3,), "float32", "llvm")) -> R.Tensor((3,), "float32", "llvm"):
            y = R.add(x, x)
            return y
    ''')
    out.append(Case(
        "vdevice_annotation_not_checked", vdev, runs=[([x3], x3 + x3)],
        spec=["SI.TENSOR.3", "VAL.TENSOR.3", "EVAL.CHECK.7"], tags=["device", "check"], oracle="numpy-formula",
        description="a virtual-device annotation has no run-time meaning: a plain tensor matches it"))
    twice = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.multiply(x, x)
            z = R.subtract(y, x)
            return z
    ''')
    x5 = f32(5)
    out.append(Case(
        "deterministic_reruns", twice,
        runs=[([x5], x5 * x5 - x5), ([x5], x5 * x5 - x5), Fails([x5.reshape(5, 1)], "ndim_mismatch"),
              Fails([x5.reshape(5, 1)], "ndim_mismatch")],
        spec=["EVAL.PROG.3"], tags=["symbolic"], oracle="numpy-formula",
        description="the same module and inputs give the same result or the same error kind"))
    return out


def prim_cases():
    out = []
    ceil = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=3):
            n = T.int64()
            s = R.shape([T.ceildiv(n, 3), T.ceildiv(n + 1, 2), T.floordiv(n, 3)])
            return s
    ''')
    runs = []
    for n in (0, 1, 6, 7, 11):
        runs.append(([f32(n)], Shape([-(-n // 3), -(-(n + 1) // 2), n // 3])))
    out.append(Case(
        "ceildiv_in_shape", ceil, runs=runs,
        spec=["PRIM.INT.5", "EVAL.SHAPE.1", "PRIM.DTYPE.2"], tags=["shape", "symbolic"], oracle="numpy-formula"))
    nan_minmax = module_text('''
        @T.prim_func
        def minmax(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"),
                   C: T.Buffer((T.int64(4),), "float32"), D: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                C[i] = T.min(A[i], B[i])
                D[i] = T.max(A[i], B[i])

        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            cls = Module
            r = R.call_tir(cls.minmax, (a, b), out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
            return r
    ''')
    nan = np.float32("nan")
    a = np.array([nan, 1.0, nan, 2.0], "float32")
    b = np.array([3.0, nan, nan, -1.0], "float32")
    # Min(a, b) = a if a < b else b; Max(a, b) = a if a > b else b (comparisons with NaN are false)
    cmin = np.where(a < b, a, b).astype("float32")
    cmax = np.where(a > b, a, b).astype("float32")
    out.append(Case(
        "float_min_max_nan", nan_minmax, runs=[([a, b], (cmin, cmax))],
        spec=["PRIM.FLOAT.2", "PRIM.INT.6"], tags=["call_tir", "nan"], oracle="numpy-formula",
        description="Min(NaN, x) = x, Min(x, NaN) = NaN, and likewise for Max"))
    unsigned = module_text('''
        @T.prim_func
        def cmp(A: T.Buffer((T.int64(4),), "uint8"), B: T.Buffer((T.int64(4),), "int8"),
                C: T.Buffer((T.int64(4),), "bool"), D: T.Buffer((T.int64(4),), "bool")):
            for i in range(T.int64(4)):
                C[i] = A[i] > T.uint8(100)
                D[i] = B[i] > T.int8(100)

        @R.function
        def main(a: R.Tensor((4,), "uint8"), b: R.Tensor((4,), "int8")) -> R.Tuple(R.Tensor((4,), "bool"), R.Tensor((4,), "bool")):
            cls = Module
            r = R.call_tir(cls.cmp, (a, b), out_sinfo=[R.Tensor((4,), "bool"), R.Tensor((4,), "bool")])
            return r
    ''')
    ua = np.array([200, 100, 101, 0], "uint8")
    sb = np.array([-56, 100, 101, 127], "int8")
    out.append(Case(
        "unsigned_comparison", unsigned, runs=[([ua, sb], (ua.astype(np.int64) > 100, sb.astype(np.int64) > 100))],
        spec=["PRIM.BOOL.1"], tags=["call_tir", "dtype"], oracle="hand",
        description="integer comparisons are unsigned for unsigned dtypes and signed otherwise"))
    return out


def tir_let_and_dtype_cases():
    """TensorIR let bindings and let expressions, operands of mixed dtypes."""
    out = []
    let = module_text('''
        @T.prim_func
        def square_plus(A: T.Buffer((T.int64(5),), "float32"), B: T.Buffer((T.int64(5),), "float32")):
            for i in range(T.int64(5)):
                t = A[i] + T.float32(1)
                B[i] = t * t

        @R.function
        def main(x: R.Tensor((5,), "float32")) -> R.Tensor((5,), "float32"):
            cls = Module
            y = R.call_tir(cls.square_plus, (x,), out_sinfo=R.Tensor((5,), "float32"))
            return y
    ''')
    x5 = f32(5)
    out.append(Case(
        "tir_let_binding", let, runs=[([x5], (x5 + np.float32(1)) * (x5 + np.float32(1)))],
        spec=["TIR.STMT.3"], tags=["call_tir"], oracle="numpy-formula",
        description="a local binding in a kernel evaluates its value once and binds it for the rest of the body"))
    let_expr = module_text('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                v = T.float32()
                B[i] = T.Let(v * v + v, where={v: A[i] + T.float32(1)})

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    x3 = f32(3)
    v = x3 + np.float32(1)
    out.append(Case(
        "tir_let_expression", let_expr, runs=[([x3], v * v + v)],
        spec=["PRIM.LET.1"], tags=["call_tir"], oracle="numpy-formula",
        description="Let(v, e, body) evaluates body with v bound to the value of e"))
    mixed = module_text('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(3),), "int32"), F: T.Buffer((T.int64(3),), "float32"),
              B: T.Buffer((T.int64(3),), "int64"), G: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i] * T.int64(3000000000)
                G[i] = A[i] + F[i]

        @R.function
        def main(a: R.Tensor((3,), "int32"), f: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "int64"), R.Tensor((3,), "float32")):
            cls = Module
            r = R.call_tir(cls.k, (a, f), out_sinfo=[R.Tensor((3,), "int64"), R.Tensor((3,), "float32")])
            return r
    ''')
    ai = np.array([2, -3, 7], "int32")
    fa = np.array([0.5, 1.25, -8.0], "float32")
    # int32 * int64 is computed in int64 (no int32 wrap-around); int32 + float32 in float32
    out.append(Case(
        "mixed_dtype_operands_promoted", mixed,
        runs=[([ai, fa], (ai.astype(np.int64) * 3000000000, ai.astype("float32") + fa))],
        spec=["PRIM.DTYPE.1"], tags=["call_tir", "dtype"], oracle="numpy-formula",
        description="operands of different dtypes are cast to a common dtype before a binary operation"))
    return out


def tir_buffer_cases():
    """Memory scopes, declared strides and buffer views."""
    out = []
    scopes = module_text('''
        @T.prim_func
        def via_scratch(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            L = T.alloc_buffer((T.int64(4),), "float32", scope="local")
            S = T.alloc_buffer((T.int64(4),), "float32", scope="shared")
            for i in range(T.int64(4)):
                L[i] = A[i] * T.float32(3)
            for i in range(T.int64(4)):
                S[T.int64(3) - i] = L[i]
            for i in range(T.int64(4)):
                B[i] = S[i]

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.via_scratch, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''')
    x4 = f32(4)
    out.append(Case(
        "memory_scopes_no_effect", scopes, runs=[([x4], (x4 * np.float32(3))[::-1])],
        spec=["TIR.BUF.6", "TIR.BUF.4"], tags=["call_tir"], oracle="numpy-formula",
        description="local and shared scratch buffers behave as ordinary storage"))
    strides = module_text('''
        @T.prim_func
        def transpose(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "float32", strides=(m, T.int64(1)), elem_offset=T.int64(0))
            B = T.match_buffer(b, (m, n), "float32")
            for i, j in T.grid(m, n):
                B[i, j] = A[j, i]

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("m", "n"), "float32"):
            n = T.int64()
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.transpose, (x,), out_sinfo=R.Tensor((m, n), "float32"))
            return y
    ''')
    t1, t2 = f32(2, 3), f32(4, 1)
    out.append(Case(
        "dense_strides_declared", strides, runs=[([t1], t1.T.copy()), ([t2], t2.T.copy())],
        spec=["TIR.FUNC.7", "TIR.FUNC.3"], tags=["call_tir", "symbolic"], oracle="numpy-formula",
        description="declared row-major strides and a zero element offset restate the dense layout"))
    alias = module_text('''
        @T.prim_func
        def fill(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
            Bflat = T.Buffer((T.int64(6),), "float32", data=B.data)
            for i in range(T.int64(6)):
                Bflat[i] = T.float32(0)
            for i, j in T.grid(T.int64(2), T.int64(3)):
                B[i, j] = A[i, j] + Bflat[i * T.int64(3) + j] + T.float32(1)

        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            cls = Module
            y = R.call_tir(cls.fill, (x,), out_sinfo=R.Tensor((2, 3), "float32"))
            return y
    ''')
    a23 = f32(2, 3)
    out.append(Case(
        "buffer_view_aliases", alias, runs=[([a23], a23 + np.float32(1))],
        spec=["TIR.BUF.3", "WF.TIR.3"], tags=["call_tir"], oracle="numpy-formula",
        description="stores through a flat view of the output are seen by loads through the output"))
    return out


def tir_cases():
    return tir_let_and_dtype_cases() + tir_buffer_cases()


def struct_info_cases():
    out = []
    join = module_text('''
        @R.function
        def main(c: R.Prim("bool"), x: R.Tensor((2,), "float32")) -> R.Object:
            if c:
                r = x
            else:
                r = R.shape([2, 5])
            return r
    ''')
    x2 = f32(2)
    out.append(Case(
        "if_join_of_variants_is_object", join,
        runs=[([Prim(True, "bool"), x2], x2), ([Prim(False, "bool"), x2], Shape([2, 5]))],
        spec=["SI.LCA.1", "VAL.HOST.1"], tags=["if"], oracle="hand",
        description="branches of different struct-info variants join to R.Object; either value is returned"))
    return out


def static_cases():
    out = []
    def arg_mismatch(name, param, arg, rule, note):
        mod = module_text(f'''
            @R.function
            def f(p: {param}) -> R.Tuple:
                return R.tuple()

            @R.function
            def main(a: {arg}) -> R.Tuple:
                cls = Module
                r = cls.f(a)
                return r
        ''')
        return Invalid(name, mod, "struct_info", spec=[rule, "SI.CALL.3"], description=note)

    out.append(arg_mismatch("arg_prim_dtype_differs", 'R.Prim("float32")', 'R.Prim("int64")', "SI.BASE.3",
                            "prim struct infos of different dtypes are incompatible (L0)"))
    out.append(arg_mismatch("arg_shape_rank_differs", "R.Shape(ndim=3)", "R.Shape(ndim=2)", "SI.BASE.4",
                            "shape struct infos of different known ranks are incompatible (L0)"))
    out.append(arg_mismatch("arg_tuple_length_differs", 'R.Tuple(R.Tensor((2,), "float32"))',
                            'R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))', "SI.BASE.6",
                            "tuple struct infos of different lengths are incompatible (L0)"))
    out.append(arg_mismatch("arg_callable_purity_differs",
                            'R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"), purity=True)',
                            'R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"), purity=False)',
                            "SI.BASE.7", "an impure callable is not accepted where a pure one is required (L0)"))
    return out


def check_cases():
    out = []
    pflt = module_text('''
        @R.function
        def main(x: R.Prim(value=T.float32(1.5))) -> R.Prim("float32"):
            return x
    ''')
    out.append(Case(
        "prim_value_param_float_nan", pflt,
        runs=[([Prim(1.5, "float32")], Prim(1.5, "float32")), Fails([Prim(float("nan"), "float32")], "value_mismatch"),
              Fails([Prim(2.5, "float32")], "value_mismatch")],
        spec=["EVAL.CHECK.5"], tags=["check", "prim", "nan"], oracle="spec-rule",
        description="float prim values compare with ==, so NaN never matches"))
    return out


def folding_cases():
    """Shapes from shape variables, constant folding, float16 rounding."""
    out = []
    shape_var = module_text('''
        @R.function
        def main(s: R.Shape(ndim=2), x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
            y = R.match_cast(x, R.Tensor(s, "float32"))
            return y
    ''')
    x23 = f32(2, 3)
    out.append(Case(
        "tensor_shape_from_shape_var", shape_var,
        runs=[([Shape([2, 3]), x23], x23), Fails([Shape([3, 2]), x23], "shape_mismatch", "shape (2, 3) is not s = (3, 2)")],
        spec=["SI.2"], tags=["match_cast", "shape"], oracle="spec-rule",
        description="a tensor's shape may be a Relax shape variable, meaning that variable's run-time value"))
    fold_int = module_text('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(3),), "int32"), B: T.Buffer((T.int64(3),), "int32")):
            for i in range(T.int64(3)):
                B[i] = A[i] + (T.int32(2147483647) + T.int32(1))

        @R.function
        def main(a: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
            cls = Module
            r = R.call_tir(cls.k, (a,), out_sinfo=R.Tensor((3,), "int32"))
            return r
    ''')
    ia = np.array([0, 5, -7], "int32")
    # int32 max + 1 folds (wrapping) to int32 min
    out.append(Case(
        "constant_folding_int_wraps", fold_int,
        runs=[([ia], (ia.astype(np.int64) - 2 ** 31).astype("int32"))],
        spec=["PRIM.DTYPE.3", "PRIM.INT.1"], tags=["call_tir", "fold"], oracle="hand"))
    fold_f32 = module_text('''
        @T.prim_func
        def k(F: T.Buffer((T.int64(3),), "float32"), G: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                G[i] = F[i] + (T.float32(16777216) + T.float32(1))

        @R.function
        def main(f: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            r = R.call_tir(cls.k, (f,), out_sinfo=R.Tensor((3,), "float32"))
            return r
    ''')
    fa = np.array([0.0, 2.0, -16777216.0], "float32")
    # 2**24 + 1 rounds to 2**24 in single precision
    out.append(Case(
        "constant_folding_float32_single_precision", fold_f32, runs=[([fa], fa + np.float32(16777216))],
        spec=["PRIM.DTYPE.3"], tags=["call_tir", "fold"], oracle="hand"))
    f16 = module_text('''
        @R.function
        def main(x: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float16"):
            y = R.astype(x, "float16")
            return y
    ''')
    ties = np.array([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, -(1 + 2.0 ** -11), 70000.0, -70000.0, 65519.0], "float32")
    # IEEE round-to-nearest-even (NumPy's conversion); 65519 rounds down to the largest finite value 65504
    with np.errstate(over="ignore"):
        t16 = ties.astype("float16")
    out.append(Case(
        "float16_rounding_ties_even", f16, runs=[([ties], t16)],
        spec=["VAL.DTYPE.6"], tags=["op:astype", "dtype"], oracle="numpy-formula",
        description="conversion rounds to nearest, ties to even, and overflows to infinity"))
    return out


def dimension_cases():
    """Provably distinct dims, int32 dims, symbolic variables of the same name."""
    out = []
    distinct = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            z = R.add(x, y)
            return z
    ''')
    out.append(Invalid("add_provably_distinct_dims", distinct, "struct_info", spec=["ARITH.PROVE.3", "NORM.ERR.1"],
                       description="the dimensions 3 and 4 are provably unequal, so broadcasting them is a static error"))
    int32_dim = module_text('''
        @R.function
        def main(x: R.Tensor((T.int32(3),), "float32")) -> R.Tensor((3,), "float32"):
            return x
    ''')
    x3 = f32(3)
    out.append(Case(
        "int32_immediate_dimension", int32_dim,
        runs=[([x3], x3), Fails([f32(4)], "shape_mismatch")],
        spec=["SI.SHAPE.2", "EVAL.CHECK.2"], tags=["check", "shape"], oracle="spec-rule",
        description="an int32 immediate in a shape is the int64 dimension of the same value"))
    same_name = module_text('''
        @R.function
        def helper(a: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            b = R.add(a, a)
            return b

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            cls = Module
            z = cls.helper(y)
            w: R.Tensor((m,), "float32") = z
            return w
    ''')
    x2, y5 = f32(2), f32(5)
    out.append(Case(
        "same_name_symbolic_vars_distinct", same_name, runs=[([x2, y5], y5 + y5), ([y5, x2], x2 + x2)],
        spec=["PRIM.VAR.1", "SI.CALL.4"], tags=["symbolic", "call"], oracle="numpy-formula",
        description="the callee's n is not the caller's n: the call's result has the caller's m"))
    return out


#: ``main(x)``: ``helper(x)`` added to itself (a member text, as the functions handed to ``module_text``)
_ADD_OF_HELPER = '''        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = cls.helper(x)
            z = R.add(y, y)
            return z
'''

#: ``helper(x)``: the identity, without a return annotation
_HELPER_UNANNOTATED = '''        @R.function
        def helper(x: R.Tensor((3,), "float32")):
            return x
'''

def function_order_cases():
    """Return annotations across function order, direct PrimFunc calls, nested calls."""
    out = []
    later = module_text(_ADD_OF_HELPER + "\n" + _HELPER_UNANNOTATED)
    out.append(Invalid("later_function_without_return_annotation", later, "struct_info",
                       spec=["NORM.GLOBAL.4", "NORM.INFER.4", "NORM.ERR.1"],
                       description="a later function without a return annotation is seen as returning R.Object, "
                                   "which R.add rejects"))
    earlier = module_text(_HELPER_UNANNOTATED + "\n" + _ADD_OF_HELPER)
    x3 = f32(3)
    out.append(Case(
        "earlier_function_return_inferred", earlier, runs=[([x3], x3 + x3)],
        spec=["NORM.GLOBAL.4", "NORM.INFER.4"], tags=["call"], oracle="numpy-formula",
        description="an earlier function's return struct info is inferred from its body before later calls use it"))
    prim_gv = module_text('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i]

        @R.function(pure=False)
        def main(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            u = cls.k(x, y)
            return y
    ''')
    out.append(Invalid("direct_prim_func_call_dtype", prim_gv, "struct_info", spec=["NORM.GLOBAL.2", "SI.CALL.3"],
                       description="a PrimFunc's GlobalVar has buffer parameters R.Tensor(shape, dtype)"))
    impure = module_text('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            u = cls.k(x, y)
            return y
    ''')
    out.append(Invalid("direct_prim_func_call_in_pure_function", impure, "well_formed",
                       spec=["EXPR.PURITY.3", "WF.PURITY.1", "WF.CHECK.1"],
                       description="a kernel writing its output buffer is impure; a pure function may not call it"))
    nested = module_text('''
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            z = R.add(R.multiply(x, x), R.subtract(x, R.negative(y)))
            return z
    ''')
    x4, y4 = f32(4), f32(4)
    out.append(Case(
        "nested_calls_bound", nested, runs=[([x4, y4], x4 * x4 + (x4 - (-y4)))],
        spec=["NORM.ANF.2"], tags=["call"], oracle="numpy-formula",
        description="nested call arguments are bound to fresh variables and evaluated before their user"))
    return out


def more_cases():
    return folding_cases() + dimension_cases() + function_order_cases()


def wf_cases():
    out = []
    dfv = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv = R.add(x, x)

                @R.function
                def f(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                    z = R.add(y, lv)
                    return z

                gv = f(x)
                R.output(gv)
            return gv
    ''')
    out.append(Invalid("dataflow_var_used_in_nested_function", dfv, "well_formed",
                       spec=["WF.DATAFLOW.1", "EXPR.DATAFLOW.2", "WF.CHECK.1"]))
    return out


def generate():
    return {"semantics": values_cases() + prim_cases() + tir_cases() + struct_info_cases() + static_cases() + check_cases() + more_cases() + wf_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_semantics"])

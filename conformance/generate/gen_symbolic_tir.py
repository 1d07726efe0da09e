"""``call_tir`` and ``call_tir_inplace`` across symbolic shapes: in-place calls on tensors of symbolic shape
(the mutation seen through every alias, also inside a dataflow block where the input is read after the
call), ``tir_vars`` that define an output extent, calls without inputs, and the static validation of a
call's output struct info against the PrimFunc's signature when the shapes are symbolic.

Oracles: each kernel restated in NumPy; static decisions from CALL.TIR.4 and CALL.INPLACE.2.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text, vector_kernel

RNG = np.random.default_rng(20240728)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def i64(v):
    return Prim(v, "int64")


SIZES = (0, 1, 4, 7)

ADD_INTO = "\n" + vector_kernel("add_into", 'A[i] = A[i] + B[i]')


def inplace_alias_cases():
    out = []
    alias = module_text(ADD_INTO + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            z = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            r = (z, x)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        runs.append(([x, y], (x + y, x + y)))
    out.append(Case("inplace_symbolic_result_is_the_input", alias, runs=runs,
                    spec=["CALL.INPLACE.1", "CALL.INPLACE.3", "CALL.INPLACE.4", "EVAL.ALIAS.1", "EVAL.ALIAS.3",
                          "TIR.FUNC.3"],
                    tags=["symbolic", "call_tir", "inplace"],
                    description="the in-place output is x itself: both fields of the result show x + y"))
    second = module_text('''
        @T.prim_func
        def scale_into(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "float32")
            B = T.match_buffer(b, (n, m), "float32")
            for i, j in T.grid(n, m):
                B[i, j] = B[i, j] * A[i, j]

        @R.function
        def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n", "m"), "float32")) -> R.Tuple(R.Tensor(("n", "m"), "float32"), R.Tensor(("n", "m"), "float32")):
            n = T.int64()
            m = T.int64()
            cls = Module
            z = R.call_tir_inplace(cls.scale_into, (x, y), inplace_indices=[1], out_sinfo=R.Tensor((n, m), "float32"))
            r = (x, y)
            return r
    ''')
    runs = []
    for n, m in ((0, 2), (1, 1), (3, 5), (2, 0)):
        x, y = f32(n, m), f32(n, m)
        runs.append(([x, y], (x, y * x)))
    out.append(Case("inplace_symbolic_second_input", second, runs=runs,
                    spec=["CALL.INPLACE.3", "CALL.INPLACE.4", "EVAL.ALIAS.1"],
                    tags=["symbolic", "call_tir", "inplace"],
                    description="inplace_indices=[1] mutates the second input; the first stays as it was"))
    mixed = module_text('''
        @T.prim_func
        def split_into(a: T.handle, b: T.handle, c: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            C = T.match_buffer(c, (n * 2,), "float32")
            for i in range(n):
                C[i] = A[i] + B[i]
                C[i + n] = A[i] - B[i]
                A[i] = A[i] * T.float32(2)

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n * 2",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            t = R.call_tir_inplace(cls.split_into, (x, y), inplace_indices=[0, -1], out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n * 2,), "float32")])
            a = t[0]
            b = t[1]
            r = (a, b, y)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        runs.append(([x, y], (x * 2, np.concatenate([x + y, x - y]), y)))
    out.append(Case("inplace_symbolic_with_a_fresh_output", mixed, runs=runs,
                    spec=["CALL.INPLACE.3", "CALL.INPLACE.2", "CALL.ORDER.1", "CALL.TIR.5", "TIR.FUNC.3"],
                    tags=["symbolic", "call_tir", "inplace"],
                    description="output 0 is x (mutated), output 1 a fresh (n * 2,) tensor: the PrimFunc gets "
                                "x, y, then only the fresh output"))
    return out


def inplace_dataflow_cases():
    out = []
    dataflow = module_text('''
        @T.prim_func(s_tir=True)
        def double_into(a: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            for i in range(n):
                with T.sblock("double"):
                    vi = T.axis.spatial(n, i)
                    A[vi] = A[vi] * T.float32(2)

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            with R.dataflow():
                a = R.add(x, y)
                b = R.call_tir_inplace(cls.double_into, (a,), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
                c = R.add(a, y)
                d = R.add(b, c)
                R.output(d)
            return d
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        a = (x + y) * 2
        runs.append(([x, y], a + (a + y)))
    out.append(Case("inplace_in_dataflow_input_read_afterwards", dataflow, runs=runs,
                    spec=["CALL.INPLACE.4", "CALL.INPLACE.5", "EVAL.DATAFLOW.1", "EVAL.ALIAS.3", "EVAL.OPT.2"],
                    tags=["symbolic", "call_tir", "inplace", "dataflow"],
                    description="a is doubled in place; the later read of a in the same dataflow block sees "
                                "2 * (x + y), so d = 2a + (2a + y) with a = x + y (the written order)"))
    chain = module_text(ADD_INTO + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            with R.dataflow():
                a = R.multiply(x, y)
                b = R.call_tir_inplace(cls.add_into, (a, y), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
                c = R.call_tir_inplace(cls.add_into, (b, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
                d = (a, c)
                R.output(d)
            return d
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        v = x * y + y + x
        runs.append(([x, y], (v, v)))
    out.append(Case("inplace_chain_in_dataflow", chain, runs=runs,
                    spec=["CALL.INPLACE.3", "CALL.INPLACE.4", "EVAL.ALIAS.1", "EVAL.DATAFLOW.1"],
                    tags=["symbolic", "call_tir", "inplace", "dataflow"],
                    description="b is a, c is b: after both calls a, b and c are one tensor holding "
                                "x * y + y + x"))
    tv = module_text('''
        @T.prim_func
        def add_k(a: T.handle, k: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int64")
            for i in range(n):
                A[i] = A[i] + k * T.int64(3)

        @R.function
        def main(x: R.Tensor(("n",), "int64"), p: R.Prim(value="k")) -> R.Tensor(("n",), "int64"):
            n = T.int64()
            k = T.int64()
            cls = Module
            z = R.call_tir_inplace(cls.add_k, (x,), inplace_indices=[0], out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([k + 1]))
            return z
    ''')
    runs = []
    for n, k in ((0, 2), (1, -1), (5, 0), (3, 7)):
        x = RNG.integers(-50, 50, n).astype("int64")
        runs.append(([x, i64(k)], (x + 3 * (k + 1)).astype("int64")))
    runs.append(Fails([np.zeros(2, "int64"), i64(-4)], "shape_mismatch", "tir_vars is a shape: k + 1 = -3"))
    out.append(Case("inplace_with_tir_vars", tv, runs=runs,
                    spec=["CALL.INPLACE.1", "CALL.INPLACE.3", "CALL.TIR.5", "TIR.FUNC.3", "DIV.1", "EVAL.SHAPE.2"],
                    tags=["symbolic", "call_tir", "inplace", "tir_vars"],
                    description="no fresh output: the PrimFunc gets x, then the tir_vars value k + 1; tir_vars "
                                "is a shape, so a negative entry fails before the call"))
    unprovable = module_text(ADD_INTO + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            cls = Module
            z = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0], out_sinfo=R.Tensor((m,), "float32"))
            return z
    ''')
    out.append(Invalid("inplace_output_shape_not_provably_the_input", unprovable, "struct_info",
                       spec=["CALL.INPLACE.2", "OP.call_tir_inplace.C3"], tags=["symbolic", "call_tir", "inplace"],
                       description="output 0 is in place on x of shape (n,) but declared (m,): equal shapes must "
                                   "be provable statically"))
    return out


def inplace_cases():
    return inplace_alias_cases() + inplace_dataflow_cases()


def tir_vars_extent_cases():
    out = []
    head = module_text('''
        @T.prim_func
        def head(a: T.handle, b: T.handle, m: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (m,), "float32")
            for i in range(m):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.head, (x,), out_sinfo=R.Tensor((m,), "float32"), tir_vars=R.shape([m]))
            return y
    ''')
    runs = []
    for n, m in ((0, 0), (1, 0), (1, 1), (5, 3), (7, 7)):
        x = f32(n)
        runs.append(([x, Shape([m])], x[:m].copy()))
    runs += [Fails([f32(3), Shape([4])], "out_of_bounds", "B[3] = A[3] reads past A"),
             Fails([f32(0), Shape([1])], "out_of_bounds", "A is empty")]
    out.append(Case("tir_vars_define_the_output_extent", head, runs=runs,
                    spec=["CALL.TIR.1", "CALL.TIR.4", "CALL.TIR.5", "TIR.FUNC.3", "TIR.BOUNDS.1", "DIV.1"],
                    tags=["symbolic", "call_tir", "tir_vars"],
                    description="the output buffer's extent is the PrimFunc's scalar parameter m, passed as a "
                                "tir_var; validation derives (m,) from it"))
    iota = module_text('''
        @T.prim_func
        def ramp(a: T.handle, b: T.handle, m: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (m,), "float32")
            for i in range(m):
                B[i] = T.Cast("float32", i) * T.float32(0.5)

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2 + 1",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.ramp, (x,), out_sinfo=R.Tensor((n * 2 + 1,), "float32"), tir_vars=R.shape([n * 2 + 1]))
            return y
    ''')
    runs = [([f32(n)], (np.arange(2 * n + 1) * 0.5).astype("float32")) for n in SIZES]
    out.append(Case("tir_vars_expression_output_extent", iota, runs=runs,
                    spec=["CALL.TIR.4", "CALL.TIR.5", "SI.CALL.2", "TIR.FUNC.3", "TIR.EXPR.1"],
                    tags=["symbolic", "call_tir", "tir_vars"],
                    description="tir_vars=(n * 2 + 1,) gives the output extent m; at n = 0 the output has one "
                                "element"))
    disagree = module_text("\n" + vector_kernel("copy", 'B[i] = A[i]') + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((m,), "float32"))
            return y
    ''')
    out.append(Invalid("output_extent_not_provably_the_kernels", disagree, "struct_info",
                       spec=["CALL.TIR.4", "WF.OPVALID.1", "OP.call_tir.C4", "SI.BASE.9"],
                       tags=["symbolic", "call_tir"],
                       description="the PrimFunc's output is (n,) for an (n,) input; out_sinfo (m,) is not "
                                   "provably it"))
    return out


def output_expression_cases():
    out = []
    expr_sig = '''
        @T.prim_func
        def dup(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n * 2,), "float32")
            for i in range(n):
                B[i] = A[i]
                B[i + n] = A[i]

        @R.function
        def main(x: R.Tensor(("k",), "float32")) -> R.Tensor((OUT,), "float32"):
            k = T.int64()
            cls = Module
            y = R.call_tir(cls.dup, (x,), out_sinfo=R.Tensor((OUT,), "float32"))
            return y
    '''
    runs = []
    for n in SIZES:
        x = f32(n)
        runs.append(([x], np.concatenate([x, x])))
    out.append(Case("output_extent_is_an_expression_of_the_input", module_text(expr_sig.replace("OUT", "k * 2")),
                    runs=runs, spec=["CALL.TIR.4", "SI.CALL.2", "SI.CALL.4", "TIR.FUNC.3", "OP.call_tir.C4"],
                    tags=["symbolic", "call_tir"],
                    description="dup's output (n * 2,) becomes (k * 2,) for an input (k,)"))
    out.append(Invalid("output_extent_is_an_expression_of_the_input_mismatch",
                       module_text(expr_sig.replace("OUT", "k + 2")), "struct_info",
                       spec=["CALL.TIR.4", "WF.OPVALID.1", "SI.BASE.9"], tags=["symbolic", "call_tir"],
                       description="(k * 2,) is not provably (k + 2,)"))
    return out


def tir_vars_cases():
    return tir_vars_extent_cases() + output_expression_cases()


def zero_input_cases():
    out = []
    squares = module_text('''
        @T.prim_func
        def squares(b: T.handle, n: T.int64):
            B = T.match_buffer(b, (n,), "int64")
            for i in range(n):
                B[i] = i * i

        @R.function
        def main(s: R.Shape(["n"])) -> R.Tensor(("n",), "int64"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.squares, (), out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([n]))
            return y
    ''')
    runs = [([Shape([n])], (np.arange(n) ** 2).astype("int64")) for n in SIZES]
    out.append(Case("call_tir_without_inputs_tir_vars_extent", squares, runs=runs,
                    spec=["CALL.TIR.1", "CALL.TIR.4", "CALL.TIR.5", "CALL.ORDER.1", "TIR.FUNC.3"],
                    tags=["symbolic", "call_tir", "tir_vars"],
                    description="an empty input tuple: the PrimFunc gets the output, then n"))
    fill = module_text('''
        @T.prim_func
        def fill(b: T.handle):
            n = T.int64()
            m = T.int64()
            B = T.match_buffer(b, (n, m), "int32")
            for i, j in T.grid(n, m):
                B[i, j] = T.Cast("int32", i * m + j) - T.int32(3)

        @R.function
        def main(s: R.Shape(["n", "m"])) -> R.Tensor(("n", "m"), "int32"):
            n = T.int64()
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.fill, (), out_sinfo=R.Tensor((n, m), "int32"))
            return y
    ''')
    runs = [([Shape([n, m])], (np.arange(n * m).reshape(n, m) - 3).astype("int32"))
            for n, m in ((0, 3), (1, 1), (2, 5), (3, 0))]
    out.append(Case("call_tir_without_inputs_output_binds_the_kernel", fill, runs=runs,
                    spec=["CALL.TIR.1", "CALL.TIR.5", "TIR.FUNC.2", "TIR.FUNC.3", "CALL.TIR.4"],
                    tags=["symbolic", "call_tir"],
                    description="no inputs and no tir_vars: the kernel binds n and m from its output buffer"))
    static = module_text('''
        @T.prim_func
        def four(B: T.Buffer((T.int64(2), T.int64(2)), "float32")):
            for i, j in T.grid(T.int64(2), T.int64(2)):
                B[i, j] = T.Cast("float32", i) - T.Cast("float32", j) * T.float32(0.25)

        @R.function
        def main() -> R.Tensor((2, 2), "float32"):
            cls = Module
            y = R.call_tir(cls.four, (), out_sinfo=R.Tensor((2, 2), "float32"))
            z = R.add(y, y)
            return z
    ''')
    e = np.array([[0, -0.25], [1, 0.75]], "float32")
    out.append(Case("call_tir_without_inputs_or_parameters", static, runs=[([], e + e)],
                    spec=["CALL.TIR.1", "CALL.TIR.5", "EVAL.PROG.1"], tags=["call_tir"], oracle="hand",
                    description="an entry function without parameters whose call_tir has no inputs"))
    return out


def multi_output_and_check_cases():
    out = []
    two = module_text('''
        @T.prim_func
        def pair(a: T.handle, b: T.handle, c: T.handle, d: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (m,), "float32")
            C = T.match_buffer(c, (m, n), "float32")
            D = T.match_buffer(d, (n + m,), "float32")
            for i, j in T.grid(m, n):
                C[i, j] = A[j] * B[i]
            for i in range(n):
                D[i] = A[i]
            for j in range(m):
                D[n + j] = B[j]

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m", "n"), "float32"), R.Tensor(("n + m",), "float32")):
            n = T.int64()
            m = T.int64()
            cls = Module
            t = R.call_tir(cls.pair, (x, y), out_sinfo=[R.Tensor((m, n), "float32"), R.Tensor((n + m,), "float32")])
            return t
    ''')
    runs = []
    for n, m in ((0, 0), (0, 2), (1, 1), (3, 4)):
        x, y = f32(n), f32(m)
        runs.append(([x, y], (np.outer(y, x).astype("float32"), np.concatenate([x, y]))))
    out.append(Case("call_tir_two_symbolic_outputs", two, runs=runs,
                    spec=["CALL.TIR.1", "CALL.TIR.3", "CALL.TIR.4", "CALL.TIR.5", "TIR.FUNC.3"],
                    tags=["symbolic", "call_tir"],
                    description="outputs (m, n) and (n + m,) allocated from the caller's bindings"))
    checked = module_text('''
        @T.prim_func
        def sub(a: T.handle, b: T.handle, c: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            C = T.match_buffer(c, (n,), "float32")
            for i in range(n):
                C[i] = A[i] - B[i]

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            z = R.call_tir(cls.sub, (x, y), out_sinfo=R.Tensor((n,), "float32"))
            return z
    ''')
    runs = []
    for n in (0, 1, 5):
        x, y = f32(n), f32(n)
        runs.append(([x, y], x - y))
    runs += [Fails([f32(3), f32(2)], "shape_mismatch", "the kernel binds n = 3 from A; B has 2"),
             Fails([f32(0), f32(1)], "shape_mismatch", "n = 0, B has 1")]
    out.append(Case("call_tir_inputs_checked_against_the_kernel", checked, runs=runs,
                    spec=["CALL.TIR.4", "CALL.TIR.7", "TIR.FUNC.2", "TIR.FUNC.3"], tags=["symbolic", "call_tir", "check"],
                    description="statically the kernel's n meets x's n and y's m (L2); the kernel's argument "
                                "binding compares them at run time (site call_tir)"))
    dps = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
            n = T.int64()
            m = T.int64()
            z = R.call_dps_packed("conformance.add_dps", (x, y), out_sinfo=R.Tensor((n, m), "float32"))
            w = R.multiply(z, x)
            return w
    ''')
    runs = []
    for n, m in ((0, 3), (1, 1), (2, 5), (4, 0)):
        x, y = f32(n, m), f32(n, m)
        runs.append(([x, y], (x + y) * x))
    out.append(Case("call_dps_packed_symbolic_output", dps, runs=runs,
                    spec=["CALL.DPS.1", "CALL.DPS.2", "CALL.PACKED.5", "CALL.TIR.5"],
                    tags=["symbolic", "packed", "op:call_dps_packed"],
                    description="the output (n, m) is allocated from the bound variables and filled by the "
                                "packed function"))
    return out


def read_after_and_direct_call_cases():
    out = []
    plain = module_text(ADD_INTO + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            a = R.add(x, y)
            b = R.call_tir_inplace(cls.add_into, (a, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            c = R.subtract(a, y)
            t = (b, c)
            return t
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        a = x + y + x
        runs.append(([x, y], (a, a - y)))
    out.append(Case("inplace_input_read_afterwards", plain, runs=runs,
                    spec=["CALL.INPLACE.4", "CALL.INPLACE.5", "EVAL.ALIAS.1", "EVAL.ORDER.1"],
                    tags=["symbolic", "call_tir", "inplace"],
                    description="outside a dataflow block: c reads a after the in-place call and sees the new "
                                "contents"))
    flatten = module_text('''
        @T.prim_func
        def flat(a: T.handle, b: T.handle):
            n = T.int64()
            m = T.int64()
            A = T.match_buffer(a, (n, m), "int32")
            B = T.match_buffer(b, (n * m,), "int32")
            for i, j in T.grid(n, m):
                B[i * m + j] = A[i, j] * T.int32(2)

        @R.function
        def main(x: R.Tensor(("n", "m"), "int32")) -> R.Tensor(("n * m",), "int32"):
            n = T.int64()
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.flat, (x,), out_sinfo=R.Tensor((n * m,), "int32"))
            return y
    ''')
    runs = []
    for n, m in ((0, 4), (1, 1), (3, 5), (2, 0)):
        x = RNG.integers(-1000, 1000, (n, m)).astype("int32")
        runs.append(([x], (x.reshape(-1) * 2).astype("int32")))
    out.append(Case("call_tir_output_is_a_product_of_input_extents", flatten, runs=runs,
                    spec=["CALL.TIR.4", "CALL.TIR.5", "SI.CALL.4", "TIR.FUNC.3", "TIR.BUF.2"],
                    tags=["symbolic", "call_tir"]))
    direct = module_text('''
        @T.prim_func
        def scatter(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n * 2,), "float32")
            for i in range(n):
                B[i * 2] = A[i]
                B[i * 2 + 1] = A[i] * T.float32(-1)

        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            u = cls.scatter(x, y)
            return y
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        e = np.empty(2 * n, "float32")
        e[0::2], e[1::2] = x, -x
        runs.append(([x, np.zeros(2 * n, "float32")], e))
    runs += [Fails([f32(2), f32(3)], "shape_mismatch", "B must have 2 * 2 elements")]
    out.append(Case("direct_primfunc_call_with_symbolic_buffers", direct, runs=runs,
                    spec=["CALL.PRIMFUNC.1", "TIR.FUNC.2", "TIR.FUNC.3", "EVAL.ALIAS.1", "EXPR.PURITY.3"],
                    tags=["symbolic", "call_tir"],
                    description="a PrimFunc called directly writes the caller's y; its buffers bind n and "
                                "compare n * 2"))
    return out


def swap_twice_and_window_cases():
    out = []
    both = module_text('''
        @T.prim_func
        def swap_into(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int32")
            B = T.match_buffer(b, (n,), "int32")
            for i in range(n):
                A[i] = A[i] + B[i]
                B[i] = A[i] - B[i]
                A[i] = A[i] - B[i]

        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int32"), R.Tensor(("n",), "int32")):
            n = T.int64()
            cls = Module
            t = R.call_tir_inplace(cls.swap_into, (x, y), inplace_indices=[1, 0], out_sinfo=[R.Tensor((n,), "int32"), R.Tensor((n,), "int32")])
            return t
    ''')
    runs = []
    for n in SIZES:
        x, y = RNG.integers(-99, 99, n).astype("int32"), RNG.integers(-99, 99, n).astype("int32")
        runs.append(([x, y], (x.copy(), y.copy())))
    out.append(Case("inplace_both_inputs_swapped", both, runs=runs,
                    spec=["CALL.INPLACE.2", "CALL.INPLACE.3", "CALL.INPLACE.4"],
                    tags=["symbolic", "call_tir", "inplace"], oracle="hand",
                    description="the kernel swaps x and y in place; output 0 is y (now holding x's values) and "
                                "output 1 is x"))
    twice = module_text(ADD_INTO + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            z = R.call_tir_inplace(cls.add_into, (x, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            r = (z, x)
            return r
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        runs.append(([x], (x + x, x + x)))
    out.append(Case("inplace_input_passed_twice", twice, runs=runs,
                    spec=["CALL.INPLACE.3", "CALL.INPLACE.4", "EVAL.ALIAS.1", "TIR.FUNC.2"],
                    tags=["symbolic", "call_tir", "inplace"],
                    description="x is both the in-place input and the read-only one: A[i] = A[i] + B[i] reads the "
                                "element before writing it, so x becomes 2x"))
    two_vars = module_text('''
        @T.prim_func
        def window(a: T.handle, b: T.handle, lo: T.int64, m: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (m,), "float32")
            for i in range(m):
                B[i] = A[lo + i]

        @R.function
        def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["lo", "m"])) -> R.Tensor(("m",), "float32"):
            lo = T.int64()
            m = T.int64()
            cls = Module
            y = R.call_tir(cls.window, (x,), out_sinfo=R.Tensor((m,), "float32"), tir_vars=R.shape([lo, m]))
            return y
    ''')
    runs = []
    for n, lo, m in ((5, 1, 3), (4, 4, 0), (1, 0, 1), (7, 2, 5)):
        x = f32(n)
        runs.append(([x, Shape([lo, m])], x[lo:lo + m].copy()))
    runs += [Fails([f32(4), Shape([2, 3])], "out_of_bounds", "A[4] is past the end")]
    out.append(Case("tir_vars_with_two_entries", two_vars, runs=runs,
                    spec=["CALL.TIR.4", "CALL.TIR.5", "TIR.FUNC.3", "TIR.BOUNDS.1", "CALL.ORDER.1"],
                    tags=["symbolic", "call_tir", "tir_vars"],
                    description="tir_vars (lo, m) reach the PrimFunc's scalar parameters in order, after the "
                                "output"))
    return out


def more_cases():
    return multi_output_and_check_cases() + read_after_and_direct_call_cases() + swap_twice_and_window_cases()


def generate():
    return {"symbolic_tir": inplace_cases() + tir_vars_cases() + zero_input_cases() + more_cases()}

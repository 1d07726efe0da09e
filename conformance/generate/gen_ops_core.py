"""Core operators (spec/ops/<op>.md, semantics in chapter 8): shapes and their tensor forms,
``null_value``, ``print``, ``assert_op``, the packed-call operators, closures, the ``call_tir``
family, device placement and the allocation operators that lowering introduces.

Only the conformance packed functions of CALL.PACKED.5 are called. Oracles: NumPy formulas restating
each program (``conformance.add`` is ``a + b``), hand-written shapes, and the cited constraints for
rejections and run-time failures. Printed output is not compared (``print`` returns unit).
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text

from case_helpers import f32

RNG_SEED = 20240710


def i64(*values):
    return np.array(values, "int64")


# ---------------------------------------------------------------------------------------------------
# shapes
# ---------------------------------------------------------------------------------------------------


def shape_cases(rng):
    out = []
    sof = ["OP.shape_of.C1", "OP.shape_of.C2", "CALL.BUILTIN.3"]
    static = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Shape([2, 3]):
            s = R.shape_of(x)
            return s
    ''')
    out.append(Case("shape_of_static", static, runs=[([f32(rng, 2, 3)], Shape([2, 3]))], spec=sof,
                    tags=["op:shape_of", "static"], oracle="hand"))
    sym = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Shape(["n", "m"]):
            s = R.shape_of(x)
            return s
    ''')
    out.append(Case("shape_of_symbolic", sym,
                    runs=[([f32(rng, 2, 3)], Shape([2, 3])), ([f32(rng, 4, 1)], Shape([4, 1])),
                          ([f32(rng, 0, 5)], Shape([0, 5]))],
                    spec=sof, tags=["op:shape_of", "symbolic"], oracle="hand",
                    description="shape_of of (n, m) is the shape value (n, m)"))
    rank = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Shape(ndim=2):
            s = R.shape_of(x)
            return s
    ''')
    out.append(Case("shape_of_rank_only", rank, runs=[([f32(rng, 3, 2)], Shape([3, 2]))], spec=sof,
                    tags=["op:shape_of", "rank_only"], oracle="hand",
                    description="a tensor known only by rank gives a shape of that rank"))
    bad = module_text('''
        @R.function
        def main(s: R.Shape(["n", 2])) -> R.Shape(ndim=2):
            t = R.shape_of(s)
            return t
    ''')
    out.append(Invalid("shape_of_shape_operand", bad, "struct_info", spec=["OP.shape_of.C1"],
                       tags=["op:shape_of", "invalid"], description="shape_of takes a tensor"))

    s2t = ["OP.shape_to_tensor.C1", "OP.shape_to_tensor.C2", "CALL.BUILTIN.2"]
    to_tensor = module_text('''
        @R.function
        def main(s: R.Shape(["n", "m"])) -> R.Tensor((2,), "int64"):
            t = R.shape_to_tensor(s)
            return t
    ''')
    out.append(Case("shape_to_tensor", to_tensor,
                    runs=[([Shape([3, 4])], i64(3, 4)), ([Shape([0, 7])], i64(0, 7))], spec=s2t,
                    tags=["op:shape_to_tensor", "symbolic"], oracle="hand"))
    round_trip = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m", 2), "float32")) -> R.Tensor((3,), "int64"):
            s = R.shape_of(x)
            t = R.shape_to_tensor(s)
            return t
    ''')
    out.append(Case("shape_to_tensor_of_shape_of", round_trip,
                    runs=[([f32(rng, 5, 1, 2)], i64(5, 1, 2)), ([f32(rng, 2, 3, 2)], i64(2, 3, 2))],
                    spec=s2t + sof, tags=["op:shape_to_tensor", "op:shape_of", "symbolic"], oracle="hand"))

    t2s = ["OP.tensor_to_shape.C1", "OP.tensor_to_shape.C2", "CALL.BUILTIN.1"]
    to_shape = module_text('''
        @R.function
        def main(t: R.Tensor((3,), "int64")) -> R.Shape(ndim=3):
            s = R.tensor_to_shape(t)
            return s
    ''')
    out.append(Case("tensor_to_shape", to_shape,
                    runs=[([i64(2, 0, 5)], Shape([2, 0, 5])), ([i64(1, 1, 1)], Shape([1, 1, 1]))],
                    spec=t2s, tags=["op:tensor_to_shape", "static"], oracle="hand",
                    description="a (3,) tensor gives a shape of rank 3"))
    unknown_len = module_text('''
        @R.function
        def main(t: R.Tensor(("k",), "int64")) -> R.Shape:
            s = R.tensor_to_shape(t)
            return s
    ''')
    out.append(Case("tensor_to_shape_symbolic_length", unknown_len,
                    runs=[([i64(4, 2)], Shape([4, 2])), ([i64(7)], Shape([7]))], spec=t2s,
                    tags=["op:tensor_to_shape", "symbolic"], oracle="hand",
                    description="a (k,) tensor gives a shape of unknown rank"))
    int32 = module_text('''
        @R.function
        def main(t: R.Tensor((2,), "int32")) -> R.Shape(ndim=2):
            s = R.tensor_to_shape(t)
            return s
    ''')
    out.append(Case("tensor_to_shape_int32", int32, runs=[([np.array([6, 1], "int32")], Shape([6, 1]))],
                    spec=t2s, tags=["op:tensor_to_shape", "dtype"], oracle="hand",
                    description="an int32 tensor also converts"))
    matrix = module_text('''
        @R.function
        def main(t: R.Tensor((2, 2), "int64")) -> R.Shape:
            s = R.tensor_to_shape(t)
            return s
    ''')
    out.append(Invalid("tensor_to_shape_rank_2", matrix, "struct_info", spec=["OP.tensor_to_shape.C1"],
                       tags=["op:tensor_to_shape", "invalid"], description="tensor_to_shape needs a 1-D tensor"))
    return out


# ---------------------------------------------------------------------------------------------------
# null_value, print, assert_op
# ---------------------------------------------------------------------------------------------------


def shape_to_tensor_rank_cases():
    """shape_to_tensor of a shape whose rank is unknown (OP.shape_to_tensor.C2, DIV.40)."""
    out = []
    any_rank = module_text('''
        @R.function
        def main(s: R.Shape(ndim=-1)) -> R.Tensor(ndim=1, dtype="int64"):
            t = R.shape_to_tensor(s)
            return t
    ''')
    out.append(Case("shape_to_tensor_unknown_rank", any_rank,
                    runs=[([Shape([3, 4])], i64(3, 4)), ([Shape([5])], i64(5)), ([Shape([])], np.zeros((0,), "int64"))],
                    spec=["OP.shape_to_tensor.C1", "OP.shape_to_tensor.C2", "CALL.BUILTIN.2", "DIV.40"], tags=["op:shape_to_tensor", "symbolic"], oracle="hand",
                    description="a shape of unknown rank gives R.Tensor(ndim=1, dtype=\"int64\"), not TVM's "
                                "static shape (-1,)"))
    return out


def effect_cases(rng):
    out = []
    null = module_text('''
        @R.function
        def main() -> R.Object:
            n = R.null_value()
            return n
    ''')
    out.append(Case("null_value", null, runs=[([], None)], spec=["OP.null_value.C1", "CALL.BUILTIN.3", "VAL.NULL.1"],
                    tags=["op:null_value"], oracle="hand"))
    pr = ["OP.print.C1", "OP.print.C2", "CALL.PRINT.1"]
    unit = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32"), s: R.Shape([2, 3])) -> R.Tuple():
            u = R.print(x, s, format="x={} s={}")
            return u
    ''')
    x2 = f32(rng, 2)
    out.append(Case("print_returns_unit", unit, runs=[([x2, Shape([2, 3])], ())], spec=pr,
                    tags=["op:print", "impure"], oracle="hand", description="print returns unit"))
    then = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            u = R.print(x)
            y = R.add(x, x)
            return y
    ''')
    a, b = f32(rng, 3), f32(rng, 5)
    out.append(Case("print_then_compute", then, runs=[([a], a + a), ([b], b + b)], spec=pr,
                    tags=["op:print", "impure", "symbolic"],
                    description="printing without a format string does not change the values"))
    pure = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            u = R.print(x, format="{}")
            return x
    ''')
    out.append(Invalid("print_in_pure_function", pure, "well_formed",
                       spec=["OP.print.C2", "OP.PURE.1", "WF.PURITY.1"], tags=["op:print", "invalid", "impure"],
                       description="print is impure, so a pure function may not call it"))

    asr = ["OP.assert_op.C1", "OP.assert_op.C2", "CALL.ASSERT.1"]
    prim_cond = module_text('''
        @R.function(pure=False)
        def main(c: R.Prim("bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            u = R.assert_op(c, format="the condition must hold")
            return x
    ''')
    x3 = f32(rng, 3)
    out.append(Case("assert_op_prim_condition", prim_cond,
                    runs=[([Prim(True, "bool"), x3], x3), Fails([Prim(False, "bool"), x3], "assert_failed")],
                    spec=asr, tags=["op:assert_op", "impure"]))
    tensor_cond = module_text('''
        @R.function(pure=False)
        def main(a: R.Tensor((), "float32"), b: R.Tensor((), "float32")) -> R.Tensor((), "float32"):
            c = R.less(a, b)
            u = R.assert_op(c, [a, b], format="{} is not below {}")
            d = R.subtract(b, a)
            return d
    ''')
    lo, hi = np.array(1.25, "float32"), np.array(4.0, "float32")
    out.append(Case("assert_op_tensor_condition", tensor_cond,
                    runs=[([lo, hi], np.asarray(hi - lo)), Fails([hi, lo], "assert_failed", "4 is not below 1.25"),
                          Fails([lo, lo], "assert_failed", "equal values")],
                    spec=asr, tags=["op:assert_op", "op:less", "impure"],
                    description="a rank-0 bool tensor computed by an operator is the condition"))
    not_bool = module_text('''
        @R.function(pure=False)
        def main(c: R.Tensor((), "int32")) -> R.Tuple():
            u = R.assert_op(c, format="c")
            return u
    ''')
    out.append(Invalid("assert_op_int_condition", not_bool, "struct_info", spec=["OP.assert_op.C1"],
                       tags=["op:assert_op", "invalid"], description="the condition must be bool"))
    rank1 = module_text('''
        @R.function(pure=False)
        def main(c: R.Tensor((3,), "bool")) -> R.Tuple():
            u = R.assert_op(c, format="c")
            return u
    ''')
    out.append(Invalid("assert_op_rank_1_condition", rank1, "struct_info", spec=["OP.assert_op.C1"],
                       tags=["op:assert_op", "invalid"], description="the condition must be a scalar"))
    in_pure = module_text('''
        @R.function
        def main(c: R.Prim("bool")) -> R.Tuple():
            u = R.assert_op(c, format="c")
            return u
    ''')
    out.append(Invalid("assert_op_in_pure_function", in_pure, "well_formed",
                       spec=["OP.assert_op.C3", "OP.PURE.1", "WF.PURITY.1"], tags=["op:assert_op", "invalid", "impure"]))
    return out


# ---------------------------------------------------------------------------------------------------
# packed calls
# ---------------------------------------------------------------------------------------------------


def packed_cases(rng):
    out = []
    pk = ["CALL.PACKED.5"]
    pure = module_text('''
        @R.function
        def main(x: R.Tensor(("n", 2), "float32"), y: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 2), "float32"):
            n = T.int64()
            with R.dataflow():
                s = R.call_pure_packed("conformance.add", x, y, sinfo_args=R.Tensor((n, 2), "float32"))
                R.output(s)
            return s
    ''')
    a, b, c, d = f32(rng, 3, 2), f32(rng, 3, 2), f32(rng, 1, 2), f32(rng, 1, 2)
    out.append(Case("call_pure_packed", pure, runs=[([a, b], a + b), ([c, d], c + d)],
                    spec=pk + ["OP.call_pure_packed.C1", "OP.call_pure_packed.C2", "CALL.PACKED.4"],
                    tags=["op:call_pure_packed", "packed", "symbolic", "dataflow"]))
    checked = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_pure_packed("conformance.identity", x, sinfo_args=R.Tensor((3,), "float32"))
            z = R.multiply(y, x)
            return z
    ''')
    e = f32(rng, 3)
    out.append(Case("call_pure_packed_identity", checked, runs=[([e], e * e)],
                    spec=pk + ["OP.call_pure_packed.C2", "CALL.PACKED.4"], tags=["op:call_pure_packed", "packed"]))
    dps = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
            n = T.int64()
            z = R.call_dps_packed("conformance.add_dps", (x, y), out_sinfo=R.Tensor((n,), "int32"))
            return z
    ''')
    p, q = np.array([1, -2, 3], "int32"), np.array([10, 20, -30], "int32")
    out.append(Case("call_dps_packed", dps, runs=[([p, q], p + q), ([p[:1].copy(), q[:1].copy()], p[:1] + q[:1])],
                    spec=pk + ["OP.call_dps_packed.C1", "OP.call_dps_packed.C2", "CALL.DPS.1", "CALL.DPS.2"],
                    tags=["op:call_dps_packed", "packed", "symbolic"]))
    inplace = module_text('''
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            y = R.call_inplace_packed("conformance.add_inplace", a, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return (y, a)
    ''')
    g, h = f32(rng, 4), f32(rng, 4)
    out.append(Case("call_inplace_packed", inplace, runs=[([g, h], (g + h, g + h))],
                    spec=pk + ["OP.call_inplace_packed.C1", "OP.call_inplace_packed.C2", "OP.call_inplace_packed.C3",
                               "OP.call_inplace_packed.C4", "CALL.IPACKED.1", "EVAL.ALIAS.1"],
                    tags=["op:call_inplace_packed", "packed", "inplace"],
                    description="the result is the mutated first argument: both are a + b"))
    for name, idx, sinfo, cid, desc in (
            ("call_inplace_packed_no_index", "[-1]", 'R.Tensor((4,), "float32")', "OP.call_inplace_packed.C2",
             "at least one index must not be -1"),
            ("call_inplace_packed_index_out_of_range", "[2]", 'R.Tensor((4,), "float32")',
             "OP.call_inplace_packed.C2", "index 2 with two arguments"),
            ("call_inplace_packed_result_mismatch", "[0]", 'R.Tensor((5,), "float32")',
             "OP.call_inplace_packed.C3", "the result struct info must match the in-place argument")):
        text = module_text(f'''
            @R.function
            def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Object:
                y = R.call_inplace_packed("conformance.add_inplace", a, b, inplace_indices={idx}, sinfo_args={sinfo})
                return y
        ''')
        out.append(Invalid(name, text, "struct_info", spec=[cid], tags=["op:call_inplace_packed", "invalid"],
                           description=desc))
    return out


# ---------------------------------------------------------------------------------------------------
# closures
# ---------------------------------------------------------------------------------------------------


def closure_cases(rng):
    out = []
    impure = module_text('''
        @R.function
        def add_c(x: R.Tensor((3,), "float32"), c: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.add(x, c)
            return y

        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            clo = R.make_closure(cls.add_c, (c,))
            y = R.invoke_closure(clo, (x,), sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    a, c, b, d = f32(rng, 3), f32(rng, 3), f32(rng, 3), f32(rng, 3)
    out.append(Case("invoke_closure", impure, runs=[([a, c], a + c), ([b, d], b + d)],
                    spec=["OP.make_closure.C1", "OP.invoke_closure.C1", "OP.invoke_closure.C2", "CALL.CLOSURE.2",
                          "CALL.CLOSURE.3"],
                    tags=["op:make_closure", "op:invoke_closure", "closure"],
                    description="the captured value is passed after the explicit argument"))
    pure = module_text('''
        @R.function
        def affine(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.multiply(x, w)
            z = R.add(y, b)
            return z

        @R.function
        def main(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            clo = R.make_closure(cls.affine, (w, b))
            y = R.invoke_pure_closure(clo, (x,), sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    x, w, bb = f32(rng, 3), f32(rng, 3), f32(rng, 3)
    out.append(Case("invoke_pure_closure", pure, runs=[([x, w, bb], x * w + bb)],
                    spec=["OP.make_closure.C1", "OP.invoke_pure_closure.C1", "OP.invoke_pure_closure.C2",
                          "CALL.CLOSURE.2", "CALL.CLOSURE.3"],
                    tags=["op:make_closure", "op:invoke_pure_closure", "closure"],
                    description="two captured values, in order, after the explicit argument"))
    two = module_text('''
        @R.function
        def both(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
            s = R.add(x, c)
            p = R.multiply(x, c)
            return (s, p)

        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
            cls = Module
            clo = R.make_closure(cls.both, (c,))
            r = R.invoke_closure(clo, (x,), sinfo_args=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
            return r
    ''')
    x, c = f32(rng, 2), f32(rng, 2)
    out.append(Case("invoke_closure_tuple_result", two, runs=[([x, c], (x + c, x * c))],
                    spec=["OP.invoke_closure.C1", "CALL.CLOSURE.3"],
                    tags=["op:invoke_closure", "op:make_closure", "closure"],
                    description="several sinfo_args give a tuple result"))
    in_pure = module_text('''
        @R.function
        def ident(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            clo = R.make_closure(cls.ident, ())
            y = R.invoke_closure(clo, (x,), sinfo_args=R.Tensor((2,), "float32"))
            return y
    ''')
    out.append(Invalid("invoke_closure_in_pure_function", in_pure, "well_formed",
                       spec=["OP.invoke_closure.C3", "OP.PURE.1", "WF.PURITY.1"],
                       tags=["op:invoke_closure", "invalid", "impure"],
                       description="invoke_closure is impure; invoke_pure_closure is the pure form"))
    return out


# ---------------------------------------------------------------------------------------------------
# call_tir family
# ---------------------------------------------------------------------------------------------------

SCALE = '''
        @T.prim_func
        def scale(a: T.handle, b: T.handle, k: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                B[i] = A[i] * T.Cast("float32", k)
'''

ADD4 = '''
        @T.prim_func
        def add_into(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                A[i] = A[i] + B[i]
                C[i] = A[i] * B[i]
'''


def call_tir_call_cases(rng, ct, a, b):
    """call_tir with one and two outputs, a tuple variable as arguments, and its rejections."""
    out = []
    sym = module_text(SCALE + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.scale, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([n + 1]))
            return y
    ''')
    out.append(Case("call_tir", sym, runs=[([a], a * np.float32(4)), ([b], b * np.float32(6))], spec=ct,
                    tags=["op:call_tir", "call_tir", "symbolic"],
                    description="the PrimFunc receives the input, the output, then tir_vars (n + 1)"))
    two = module_text('''
        @T.prim_func
        def split_sign(A: T.Buffer((T.int64(3),), "float32"), P: T.Buffer((T.int64(3),), "float32"), N: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                P[i] = T.max(A[i], T.float32(0))
                N[i] = T.min(A[i], T.float32(0))

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
            cls = Module
            y = R.call_tir(cls.split_sign, (x,), out_sinfo=[R.Tensor((3,), "float32"), R.Tensor((3,), "float32")])
            return y
    ''')
    v = np.array([-1.5, 0.0, 2.0], "float32")
    out.append(Case("call_tir_two_outputs", two,
                    runs=[([v], (np.maximum(v, 0).astype("float32"), np.minimum(v, 0).astype("float32")))],
                    spec=["OP.call_tir.C1", "OP.call_tir.C4", "CALL.TIR.5"], tags=["op:call_tir", "call_tir"],
                    description="a list of output struct infos gives a tuple"))
    via_var = module_text('''
        @T.prim_func
        def sub(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32"), C: T.Buffer((T.int64(2),), "float32")):
            for i in range(T.int64(2)):
                C[i] = A[i] - B[i]

        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            t = (x, y)
            z = R.call_tir(cls.sub, t, out_sinfo=R.Tensor((2,), "float32"))
            return z
    ''')
    p, q = f32(rng, 2), f32(rng, 2)
    out.append(Case("call_tir_argument_tuple_variable", via_var, runs=[([p, q], p - q)],
                    spec=["OP.call_tir.C2", "CALL.TIR.2", "NORM.OPNORM.1", "OP.NORM.1"], tags=["op:call_tir", "call_tir"],
                    description="a variable bound to a tuple is replaced by the tuple literal"))
    conflict = module_text(SCALE + '''
        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tensor((7,), "float32"):
            cls = Module
            y = R.call_tir(cls.scale, (x,), out_sinfo=R.Tensor((7,), "float32"), tir_vars=R.shape([2]))
            return y
    ''')
    out.append(Invalid("call_tir_out_sinfo_incompatible", conflict, "struct_info",
                       spec=["OP.call_tir.C3", "CALL.TIR.4", "WF.OPVALID.1"], tags=["op:call_tir", "invalid"],
                       description="the PrimFunc binds n = 8 from the input, so its output is (8,), not (7,)"))
    not_gv = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            y = R.call_tir(x, (x,), out_sinfo=R.Tensor((2,), "float32"))
            return y
    ''')
    out.append(Invalid("call_tir_callee_not_global", not_gv, "struct_info", spec=["OP.call_tir.C1", "CALL.TIR.1"],
                       tags=["op:call_tir", "invalid"], description="the callee must be a GlobalVar"))
    return out


def call_tir_variant_cases(rng, a, b):
    """call_tir_inplace and call_tir_with_grad."""
    out = []
    ip = ["OP.call_tir_inplace.C1", "OP.call_tir_inplace.C2", "OP.call_tir_inplace.C3",
          "OP.call_tir_inplace.C4", "CALL.INPLACE.3", "CALL.INPLACE.4"]
    inplace = module_text(ADD4 + '''
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tuple(R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")), R.Tensor((4,), "float32")):
            cls = Module
            r = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0, -1], out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
            return (r, x)
    ''')
    g, h = f32(rng, 4), f32(rng, 4)
    s = g + h
    out.append(Case("call_tir_inplace", inplace, runs=[([g, h], ((s, s * h), s))], spec=ip,
                    tags=["op:call_tir_inplace", "call_tir", "inplace"],
                    description="output 0 is input 0 mutated; output 1 is fresh and passed after the inputs"))
    for name, idx, out_sinfo, cid, desc in (
            ("call_tir_inplace_index_count", "[0]", '[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")]',
             "OP.call_tir_inplace.C2", "one index for two outputs"),
            ("call_tir_inplace_no_index", "[-1, -1]", '[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")]',
             "OP.call_tir_inplace.C2", "every index is -1"),
            ("call_tir_inplace_repeated_index", "[0, 0]", '[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")]',
             "OP.call_tir_inplace.C2", "index 0 twice"),
            ("call_tir_inplace_dtype_mismatch", "[0, -1]", '[R.Tensor((4,), "int32"), R.Tensor((4,), "float32")]',
             "OP.call_tir_inplace.C3", "the in-place output must have the input's dtype")):
        main = f'''
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Object:
            cls = Module
            r = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices={idx}, out_sinfo={out_sinfo})
            return r
        '''
        text = module_text(ADD4 + main)
        out.append(Invalid(name, text, "struct_info", spec=[cid, "CALL.INPLACE.2"],
                           tags=["op:call_tir_inplace", "invalid"], description=desc))

    grad = module_text(SCALE + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir_with_grad(cls.scale, (x,), out_sinfo=R.Tensor((n,), "float32"), te_grad_name="scale_grad", tir_vars=R.shape([3]))
            return y
    ''')
    out.append(Case("call_tir_with_grad", grad, runs=[([a], a * np.float32(3)), ([b], b * np.float32(3))],
                    spec=["OP.call_tir_with_grad.C1", "OP.call_tir_with_grad.C2", "CALL.TIR.8"],
                    tags=["op:call_tir_with_grad", "call_tir", "symbolic"],
                    description="evaluated exactly as call_tir; the gradient name has no effect"))
    grad_bad = module_text(SCALE + '''
        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tensor((7,), "float32"):
            cls = Module
            y = R.call_tir_with_grad(cls.scale, (x,), out_sinfo=R.Tensor((7,), "float32"), te_grad_name="scale_grad", tir_vars=R.shape([2]))
            return y
    ''')
    out.append(Invalid("call_tir_with_grad_out_sinfo_incompatible", grad_bad, "struct_info",
                       spec=["OP.call_tir_with_grad.C1", "OP.call_tir.C3", "WF.OPVALID.1"],
                       tags=["op:call_tir_with_grad", "invalid"]))
    return out


def call_tir_cases(rng):
    a, b = f32(rng, 3), f32(rng, 5)
    ct = ["OP.call_tir.C1", "OP.call_tir.C2", "OP.call_tir.C3", "OP.call_tir.C4", "CALL.TIR.5"]
    return call_tir_call_cases(rng, ct, a, b) + call_tir_variant_cases(rng, a, b)


# ---------------------------------------------------------------------------------------------------
# devices and allocation
# ---------------------------------------------------------------------------------------------------

FILL = '''
        @T.prim_func
        def plus_one(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i] + T.float32(1)
'''


def device_cases(a, b):
    """hint_on_device and to_vdevice."""
    out = []
    hint = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.hint_on_device(x, R.device(1, 0))
            z = R.add(y, y)
            return z
    ''')
    out.append(Case("hint_on_device", hint, runs=[([a], a + a), ([b], b + b)],
                    spec=["OP.hint_on_device.C1", "OP.hint_on_device.C2", "CALL.BUILTIN.4"],
                    tags=["op:hint_on_device", "device", "symbolic"], description="the hint returns its argument"))
    to_vdev = module_text('''
        I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32", "llvm"):
            y = R.to_vdevice(x, "llvm:0:global")
            return y
    ''')
    out.append(Case("to_vdevice", to_vdev, runs=[([a], a)],
                    spec=["OP.to_vdevice.C1", "OP.to_vdevice.C2", "CALL.BUILTIN.4"], tags=["op:to_vdevice", "device"],
                    oracle="hand", description="a copy of the tensor on the named virtual device"))
    return out


def allocation_cases(rng, x):
    """Builtin, memory and VM allocation and kill operators, call_tir_dyn."""
    out = []
    builtin = module_text(FILL + '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.builtin.alloc_tensor(R.shape([3]), "float32", 0)
            u = cls.plus_one(x, y)
            return y
    ''')
    out.append(Case("builtin_alloc_tensor", builtin, runs=[([x], x + np.float32(1))],
                    spec=["OP.builtin.alloc_tensor.C1", "OP.builtin.alloc_tensor.C2", "CALL.ALLOC.1", "CALL.PRIMFUNC.1"],
                    tags=["op:builtin.alloc_tensor", "allocation"],
                    description="a fresh tensor, then filled by a PrimFunc call"))
    memory = module_text(FILL + '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            s = R.memory.alloc_storage(R.shape([12]), 0, "global", "uint8")
            y = R.memory.alloc_tensor(s, 0, R.shape([3]), "float32")
            u = cls.plus_one(x, y)
            k = R.memory.kill_storage(s)
            return y
    ''')
    out.append(Case("memory_alloc_tensor", memory, runs=[([x], x + np.float32(1))],
                    spec=["OP.memory.alloc_storage.C1", "OP.memory.alloc_tensor.C1", "OP.memory.alloc_tensor.C2",
                          "OP.memory.kill_storage.C1", "CALL.ALLOC.1"],
                    tags=["op:memory.alloc_storage", "op:memory.alloc_tensor", "op:memory.kill_storage", "allocation"],
                    description="a tensor carved out of a storage block; killing the storage does not free it early"))
    memory_kill = module_text(FILL + '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            s = R.memory.alloc_storage(R.shape([12]), 0, "global", "uint8")
            t = R.memory.alloc_tensor(s, 0, R.shape([3]), "float32")
            u = cls.plus_one(x, t)
            z = R.add(t, x)
            k = R.memory.kill_tensor(t)
            return z
    ''')
    out.append(Case("memory_kill_tensor", memory_kill, runs=[([x], (x + np.float32(1)) + x)],
                    spec=["OP.memory.alloc_tensor.C1", "OP.memory.kill_tensor.C1", "CALL.ALLOC.1"],
                    tags=["op:memory.alloc_tensor", "op:memory.kill_tensor", "allocation"]))
    vm = module_text(FILL + '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            s = R.vm.alloc_storage(R.shape([12]), 0, "uint8")
            y = R.vm.alloc_tensor(s, 0, R.shape([3]), "float32")
            u = cls.plus_one(x, y)
            return y
    ''')
    out.append(Case("vm_alloc_tensor", vm, runs=[([x], x + np.float32(1))],
                    spec=["OP.vm.alloc_storage.C1", "OP.vm.alloc_tensor.C1", "OP.vm.alloc_tensor.C2", "CALL.ALLOC.1"],
                    tags=["op:vm.alloc_storage", "op:vm.alloc_tensor", "allocation"]))
    vm_kill = module_text(FILL + '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            s = R.vm.alloc_storage(R.shape([12]), 0, "uint8")
            t = R.vm.alloc_tensor(s, 0, R.shape([3]), "float32")
            u = cls.plus_one(x, t)
            z = R.multiply(t, x)
            k = R.vm.kill_object(t)
            return z
    ''')
    out.append(Case("vm_kill_object", vm_kill, runs=[([x], (x + np.float32(1)) * x)],
                    spec=["OP.vm.kill_object.C1", "CALL.ALLOC.1"], tags=["op:vm.kill_object", "allocation"]))
    dyn = module_text(SCALE + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            u = R.vm.call_tir_dyn(cls.scale, (x, y, R.shape([n])))
            return y
    ''')
    c, d = f32(rng, 3), np.zeros(3, "float32")
    e, f = f32(rng, 5), np.zeros(5, "float32")
    out.append(Case("vm_call_tir_dyn", dyn, runs=[([c, d], c * np.float32(3)), ([e, f], e * np.float32(5))],
                    spec=["OP.vm.call_tir_dyn.C1", "CALL.PACKED.6"], tags=["op:vm.call_tir_dyn", "symbolic"],
                    description="the PrimFunc receives the tensors and then the shape's values (n)"))
    return out


def device_and_memory_cases(rng):
    a, b = f32(rng, 3), f32(rng, 4)
    x = f32(rng, 3)
    return device_cases(a, b) + allocation_cases(rng, x)


def builtin_and_freshness_cases():
    out = []
    rng = np.random.default_rng(RNG_SEED + 1)
    two = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Object:
            y = R.call_builtin_with_ctx("conformance.identity", (x,), sinfo_args=[R.Object, R.Object])
            return y
    ''')
    out.append(Invalid("call_builtin_with_ctx_two_sinfo_args", two, "struct_info",
                       spec=["OP.call_builtin_with_ctx.C1"], tags=["op:call_builtin_with_ctx", "packed", "invalid"],
                       description="at most one struct-info argument"))
    x3 = f32(rng, 3)
    bare = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Object:
            y = R.call_builtin_with_ctx("conformance.fail", x, sinfo_args=R.Object)
            return y
    ''')
    out.append(Case("call_builtin_with_ctx_bare_argument", bare, runs=[Fails([x3], "packed_func")],
                    spec=["OP.call_builtin_with_ctx.C2", "CALL.PACKED.5"],
                    tags=["op:call_builtin_with_ctx", "packed", "error"], oracle="spec-rule",
                    description="a single tensor argument is accepted (wrapped into a tuple) and the function is "
                                "called: conformance.fail raises"))
    unit = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tuple():
            y = R.call_builtin_with_ctx("conformance.fail", (x,))
            return y
    ''')
    out.append(Case("call_builtin_with_ctx_no_sinfo_args", unit, runs=[Fails([x3], "packed_func")],
                    spec=["OP.call_builtin_with_ctx.C1", "CALL.PACKED.5"],
                    tags=["op:call_builtin_with_ctx", "packed", "error"], oracle="spec-rule",
                    description="without sinfo_args the call's struct info is unit (it matches the R.Tuple() return "
                                "annotation); conformance.fail raises"))
    a, b = f32(rng, 2, 2), f32(rng, 4)
    fresh_reshape = module_text('''
        @R.function
        def main(a: R.Tensor((2, 2), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((2, 2), "float32")):
            r = R.reshape(a, R.shape([4]))
            y = R.call_inplace_packed("conformance.add_inplace", r, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return (y, a)
    ''')
    out.append(Case("pure_operator_result_is_fresh_reshape", fresh_reshape, runs=[([a, b], (a.reshape(-1) + b, a))],
                    spec=["OP.SEM.4", "EVAL.ALIAS.2", "CALL.IPACKED.1"],
                    tags=["op:reshape", "op:call_inplace_packed", "packed", "inplace"], oracle="hand",
                    description="mutating the result of reshape leaves its argument unchanged"))
    fresh_astype = module_text('''
        @R.function
        def main(b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            c = R.astype(b, "float32")
            z = R.call_inplace_packed("conformance.add_inplace", c, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return (z, b)
    ''')
    out.append(Case("pure_operator_result_is_fresh_astype", fresh_astype, runs=[([b], (b + b, b))],
                    spec=["OP.SEM.4", "EVAL.ALIAS.2", "CALL.IPACKED.1"],
                    tags=["op:astype", "op:call_inplace_packed", "packed", "inplace"], oracle="hand",
                    description="mutating the result of an astype to the same dtype leaves its argument unchanged"))
    both = module_text('''
        @R.function
        def main(a: R.Tensor((2, 2), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((2, 2), "float32"), R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            r = R.reshape(a, R.shape([4]))
            y = R.call_inplace_packed("conformance.add_inplace", r, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            c = R.astype(b, "float32")
            z = R.call_inplace_packed("conformance.add_inplace", c, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return (y, a, z, b)
    ''')
    out.append(Case("inplace_result_outlives_its_argument", both, runs=[([a, b], (a.reshape(-1) + b, a, b + b, b))],
                    spec=["CALL.IPACKED.1", "EVAL.ALIAS.1", "OP.SEM.4"],
                    tags=["op:reshape", "op:astype", "op:call_inplace_packed", "packed", "inplace"], oracle="hand",
                    description="y is r mutated in place: it stays live (and distinct from the later astype result) "
                                "after r's last use"))
    return out


def generate():
    rng = np.random.default_rng(RNG_SEED)
    cases = (shape_cases(rng) + shape_to_tensor_rank_cases() + effect_cases(rng) + packed_cases(rng) + closure_cases(rng) + call_tir_cases(rng)
             + device_and_memory_cases(rng) + builtin_and_freshness_cases())
    return {"op_core": cases}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_core"])

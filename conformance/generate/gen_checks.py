"""Run-time struct-info checks at function boundaries (parameters, returns, callee entry).

Oracles: the accepted runs return NumPy-computed values; the rejected runs fail with the error kind
the cited rules require (a value outside its parameter's struct info, SI.TENSOR.4 / EVAL.CHECK.*).
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240601)
f32 = f32_sampler(RNG)


def i32(*shape):
    return RNG.integers(-50, 50, shape).astype("int32")


def mod(body):
    return module_text(body)


STATIC_ADD = mod('''
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.add(x, x)
        return y
''')

SYM_PAIR = mod('''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        z = R.add(x, y)
        return z
''')


def tensor_param_cases(x):
    """A static tensor parameter against matching and mismatching arguments."""
    out = []
    out.append(Case(
        "param_static_accepts", STATIC_ADD, runs=[([x], x + x)], spec=["CALL.FUNC.2", "EVAL.CHECK.1", "SI.TENSOR.4", "EXPR.SCOPE.1"],
        tags=["check", "param"], description="a tensor matching a fully static parameter annotation"))
    out.append(Case(
        "param_const_dim_mismatch", STATIC_ADD, runs=[Fails([f32(2, 4)], "shape_mismatch"),
                                                     Fails([f32(3, 3)], "shape_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3"], tags=["check", "param"], oracle="spec-rule",
        description="a dimension differing from a constant in the parameter annotation"))
    out.append(Case(
        "param_ndim_mismatch", STATIC_ADD, runs=[Fails([f32(6)], "ndim_mismatch"),
                                                Fails([f32(2, 3, 1)], "ndim_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2"], tags=["check", "param"], oracle="spec-rule"))
    out.append(Case(
        "param_dtype_mismatch", STATIC_ADD, runs=[Fails([x.astype("float64")], "dtype_mismatch"),
                                                 Fails([i32(2, 3)], "dtype_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2"], tags=["check", "param"], oracle="spec-rule"))
    out.append(Case(
        "param_kind_mismatch", STATIC_ADD, runs=[Fails([Shape([2, 3])], "type_mismatch"),
                                                Fails([(x,)], "type_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "CALL.HOST.1"], tags=["check", "param"], oracle="spec-rule",
        description="a shape or a tuple passed where a tensor is expected"))
    return out


def symbolic_param_cases():
    """Symbolic dims shared, zero, computed, two variables, and shape parameters."""
    out = []
    a3, b3, a5, b5 = f32(3), f32(3), f32(5), f32(5)
    out.append(Case(
        "symbolic_shared_dim", SYM_PAIR, runs=[([a3, b3], a3 + b3), ([a5, b5], a5 + b5),
                                               Fails([a3, b5], "shape_mismatch", "n bound to 3 by x, y has 5")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3", "SI.SYM.2", "SI.SYM.6"], tags=["check", "param", "symbolic"],
        description="the first parameter binds n, the second must agree"))
    out.append(Case(
        "symbolic_zero_extent", SYM_PAIR,
        runs=[([f32(0), f32(0)], np.zeros((0,), "float32")), Fails([f32(0), f32(1)], "shape_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3", "VAL.SHAPE.1"], tags=["check", "symbolic", "empty"]))
    expr_dims = mod('''
        @R.function
        def main(y: R.Tensor(("n * 2",), "float32"), x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n * 2",), "float32")):
            return (x, y)
    ''')
    x2, y4, x3, y6 = f32(2), f32(4), f32(3), f32(6)
    out.append(Case(
        "symbolic_expression_dim", expr_dims,
        runs=[([y4, x2], (x2, y4)), ([y6, x3], (x3, y6)), Fails([y4, x3], "shape_mismatch", "n*2 = 6 != 4")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.4", "SI.SYM.3"], tags=["check", "param", "symbolic"],
        description="a dimension n*2 checked after n is bound by a later parameter (bare dims first)"))
    two_sym = mod('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("n", "m"), "float32"):
            z = R.permute_dims(y)
            w = R.add(x, z)
            return w
    ''')
    x23, y32, x41, y14 = f32(2, 3), f32(3, 2), f32(4, 1), f32(1, 4)
    out.append(Case(
        "symbolic_two_vars", two_sym,
        runs=[([x23, y32], x23 + y32.T), ([x41, y14], x41 + y14.T),
              Fails([x23, f32(2, 3)], "shape_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3", "SI.SYM.2"], tags=["check", "param", "symbolic"]))
    shape_param = mod('''
        @R.function
        def main(s: R.Shape(["n", "m"]), x: R.Tensor(("n", "m"), "float32")) -> R.Shape(["m", "n"]):
            n = T.int64()
            m = T.int64()
            r = R.shape([m, n])
            return r
    ''')
    out.append(Case(
        "shape_param", shape_param,
        runs=[([Shape([2, 3]), f32(2, 3)], Shape([3, 2])), ([Shape([1, 0]), f32(1, 0)], Shape([0, 1])),
              Fails([Shape([2, 3]), f32(3, 2)], "shape_mismatch"),
              Fails([Shape([2, 3, 1]), f32(2, 3)], "ndim_mismatch"),
              Fails([f32(2, 3), f32(2, 3)], "type_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "EVAL.CHECK.3", "VAL.SHAPE.1", "SI.SHAPE.1"], tags=["check", "param", "shape"]))
    return out


def prim_symbolic_cases():
    """A prim parameter whose value is a symbolic variable."""
    out = []
    prim_sym = mod('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), k: R.Prim(value="n")) -> R.Tensor(("n",), "float32"):
            return x
    ''')
    x4 = f32(4)
    out.append(Case(
        "prim_param_symbolic_value", prim_sym,
        runs=[([x4, Prim(4, "int64")], x4), Fails([x4, Prim(5, "int64")], "value_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3", "SI.PRIM.1", "VAL.PRIM.1"], tags=["check", "param", "prim"]))
    return out


def prim_literal_cases(x3):
    """Prim parameters with a literal value and with a dtype only."""
    out = []
    prim_lit = mod('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), k: R.Prim(value=3)) -> R.Tensor((3,), "float32"):
            return x
    ''')
    out.append(Case(
        "prim_param_literal_value", prim_lit,
        runs=[([x3, Prim(3, "int64")], x3), Fails([x3, Prim(4, "int64")], "value_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.3", "SI.PRIM.1", "EVAL.CHECK.5"], tags=["check", "param", "prim"],
        description="R.Prim(value=3) accepts exactly the int64 value 3"))
    float_lit = mod('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            c = R.prim_value(T.float32(0.1))
            return c
    ''')
    out.append(Case(
        "return_float_prim_literal_rounded", float_lit,
        runs=[([x3], Prim(np.float32(0.1), "float32"))],
        spec=["SI.PRIM.1", "SI.PRIM.2", "VAL.DTYPE.6", "EVAL.CHECK.5"], tags=["check", "return", "prim", "float"],
        description="a returned R.prim_value(T.float32(0.1)): its struct info R.Prim(value=0.1) describes "
                    "float32(0.1), the literal rounded once to its dtype, so the return check accepts the value"))
    beyond = mod('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            c = R.prim_value(T.float32(-1e300))
            return c
    ''')
    out.append(Case(
        "return_float_prim_literal_beyond_float32", beyond,
        runs=[([x3], Prim(float("-inf"), "float32"))],
        spec=["SI.PRIM.1", "VAL.DTYPE.6", "DIV.38"], tags=["check", "return", "prim", "float"],
        description="R.prim_value(T.float32(-1e300)), a finite literal beyond float32, is the float32 -inf, "
                    "and its struct info describes -inf, so the return check accepts the value"))
    prim_dtype = mod('''
        @R.function
        def main(k: R.Prim("int64"), b: R.Prim("bool")) -> R.Tuple(R.Prim("int64"), R.Prim("bool")):
            return (k, b)
    ''')
    out.append(Case(
        "prim_param_dtype", prim_dtype,
        runs=[([Prim(7, "int64"), Prim(True, "bool")], (Prim(7, "int64"), Prim(True, "bool"))),
              ([Prim(-3, "int64"), Prim(False, "bool")], (Prim(-3, "int64"), Prim(False, "bool"))),
              Fails([Prim(1.5, "float32"), Prim(True, "bool")], "dtype_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "VAL.PRIM.1"], tags=["check", "param", "prim"]))
    return out


def structured_param_cases():
    """Tuple, nested, ndim-only, dtype-only, object and per-dtype parameters."""
    out = []
    tup = mod('''
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor(("n",), "int32"))) -> R.Tensor(("n",), "int32"):
            b = t[1]
            return b
    ''')
    ta, tb = f32(2), i32(4)
    out.append(Case(
        "tuple_param", tup,
        runs=[([(ta, tb)], tb), ([(ta, i32(0))], np.zeros((0,), "int32")),
              Fails([(ta,)], "arity_mismatch", "one field instead of two"),
              Fails([(ta, tb, tb)], "arity_mismatch"),
              Fails([(f32(3), tb)], "shape_mismatch"),
              Fails([(ta, tb.astype("int64"))], "dtype_mismatch"),
              Fails([ta], "type_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "VAL.TUPLE.1", "SI.TUPLE.1"], tags=["check", "param", "tuple"]))
    nested = mod('''
        @R.function
        def main(t: R.Tuple(R.Tuple(R.Tensor(("n",), "float32"), R.Shape(["n"])), R.Prim("int64"))) -> R.Tuple(R.Prim("int64"), R.Tensor(("n",), "float32")):
            inner = t[0]
            x = inner[0]
            k = t[1]
            return (k, x)
    ''')
    v3 = f32(3)
    out.append(Case(
        "nested_tuple_param", nested,
        runs=[([((v3, Shape([3])), Prim(9, "int64"))], (Prim(9, "int64"), v3)),
              Fails([((v3, Shape([4])), Prim(9, "int64"))], "shape_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "SI.TUPLE.1"], tags=["check", "param", "tuple"]))
    ndim_only = mod('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
            return x
    ''')
    p, q = f32(1, 5), f32(3, 0)
    out.append(Case(
        "ndim_only_param", ndim_only,
        runs=[([p], p), ([q], q), Fails([f32(4)], "ndim_mismatch"),
              Fails([i32(2, 2)], "dtype_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "SI.TENSOR.1"], tags=["check", "param"]))
    dtype_only = mod('''
        @R.function
        def main(x: R.Tensor(dtype="int32")) -> R.Tensor(dtype="int32"):
            return x
    ''')
    s0, s1, s3 = np.array(5, "int32"), i32(4), i32(2, 1, 2)
    out.append(Case(
        "dtype_only_param", dtype_only,
        runs=[([s0], s0), ([s1], s1), ([s3], s3), Fails([f32(2)], "dtype_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "SI.TENSOR.1"], tags=["check", "param"]))
    obj = mod('''
        @R.function
        def main(x: R.Object) -> R.Object:
            return x
    ''')
    o = f32(2)
    out.append(Case(
        "object_param", obj,
        runs=[([o], o), ([Shape([1, 2])], Shape([1, 2])), ([(o, Shape([]))], (o, Shape([])))],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "SI.OBJ.1"], tags=["check", "param"],
        description="R.Object accepts a value of any kind and returns it unchanged"))
    dtypes = mod('''
        @R.function
        def main(a: R.Tensor((3,), "bool"), b: R.Tensor((3,), "int8"), c: R.Tensor((3,), "uint8"), d: R.Tensor((3,), "float16"), e: R.Tensor((3,), "float64"), f: R.Tensor((3,), "int64")) -> R.Tuple(R.Tensor((3,), "bool"), R.Tensor((3,), "int8"), R.Tensor((3,), "uint8"), R.Tensor((3,), "float16"), R.Tensor((3,), "float64"), R.Tensor((3,), "int64")):
            return (a, b, c, d, e, f)
    ''')
    vals = [np.array([True, False, True]), np.array([-128, 0, 127], "int8"), np.array([0, 200, 255], "uint8"),
            np.array([0.5, -2.0, 65504.0], "float16"), np.array([1e300, -0.0, 3.25], "float64"),
            np.array([-2**62, 0, 2**62], "int64")]
    out.append(Case(
        "param_dtypes", dtypes,
        runs=[(vals, tuple(vals)),
              Fails([vals[0], vals[1].astype("int16")] + vals[2:], "dtype_mismatch"),
              Fails(vals[:2] + [vals[2].astype("int8")] + vals[3:], "dtype_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.2", "VAL.DTYPE.1"], tags=["check", "param", "dtype"]))
    return out


def return_cases(x3, r4):
    """The return annotation is checked: a constant dim, a dtype, a symbolic dim."""
    out = []
    ret_shape = mod('''
        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor((4,), "float32"):
            return x
    ''')
    out.append(Case(
        "return_const_dim", ret_shape, runs=[([r4], r4), Fails([f32(3)], "shape_mismatch")],
        spec=["CALL.FUNC.4", "EVAL.CHECK.3", "NORM.FUNC.1"], tags=["check", "return"],
        description="the return annotation is checked when the body's struct info cannot prove it"))
    ret_dtype = mod('''
        @R.function
        def main(x: R.Tensor((3,))) -> R.Tensor((3,), "float32"):
            return x
    ''')
    out.append(Case(
        "return_dtype", ret_dtype, runs=[([x3], x3), Fails([i32(3)], "dtype_mismatch")],
        spec=["CALL.FUNC.4", "EVAL.CHECK.2"], tags=["check", "return"]))
    ret_sym = mod('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
            return x
    ''')
    out.append(Case(
        "return_symbolic_from_other_param", ret_sym,
        runs=[([x3, Shape([3])], x3), Fails([x3, Shape([2])], "shape_mismatch")],
        spec=["CALL.FUNC.4", "EVAL.CHECK.4", "SI.SYM.4", "WF.SYM.1"], tags=["check", "return", "symbolic"]))
    return out


def call_boundary_cases(x3, r4):
    """Arity, checks at a callee's entry, callable parameters, less specific annotations."""
    out = []
    arity = mod('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            z = R.subtract(x, y)
            return z
    ''')
    y3 = f32(3)
    out.append(Case(
        "entry_arity", arity,
        runs=[([x3, y3], x3 - y3), Fails([x3], "arity_mismatch"), Fails([x3, y3, y3], "arity_mismatch")],
        spec=["CALL.FUNC.1", "EVAL.PROG.1", "CALL.HOST.1"], tags=["check", "param", "arity"]))
    callee = mod('''
        @R.function
        def helper(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            b = R.multiply(a, a)
            return b

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = cls.helper(x)
            return y
    ''')
    out.append(Case(
        "callee_entry_check", callee, runs=[([r4], r4 * r4), Fails([f32(5)], "shape_mismatch")],
        spec=["CALL.FUNC.3", "NORM.CALL.3", "SI.CALL.2", "EVAL.CALL.2", "EXPR.CALL.1"], tags=["check", "call"],
        description="an argument whose shape is only possibly right statically is checked at the callee's entry"))
    callee_sym = mod('''
        @R.function
        def helper(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            c = R.add(a, b)
            return c

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("n",), "float32"):
            z = Module.helper(x, y)
            return z
    ''')
    out.append(Case(
        "callee_symbolic_check", callee_sym,
        runs=[([x3, y3], x3 + y3), Fails([x3, f32(2)], "shape_mismatch")],
        spec=["CALL.FUNC.3", "EVAL.CHECK.3", "SI.SYM.6", "SI.CALL.4"], tags=["check", "call", "symbolic"]))
    callable_param = mod('''
        @R.function
        def main(f: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32")), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            y = f(x)
            return y
    ''')
    c2 = f32(2)
    out.append(Case(
        "callable_param_kind", callable_param,
        runs=[Fails([c2, c2], "type_mismatch"), Fails([Shape([2]), c2], "type_mismatch")],
        spec=["CALL.FUNC.2", "EVAL.CHECK.6"], tags=["check", "param", "callable"], oracle="spec-rule",
        description="a value that is not a function passed where R.Callable is expected"))
    less_specific = mod('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            y = R.add(x, x)
            return y
    ''')
    out.append(Case(
        "return_annotation_less_specific", less_specific,
        runs=[([x3], x3 + x3), Fails([f32(4)], "shape_mismatch")],
        spec=["NORM.FUNC.1", "CALL.FUNC.2"], tags=["check", "return"],
        description="a return annotation less specific than the body is valid; the parameter is still checked"))
    stamped = mod('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            y: R.Tensor((4,), "float32") = R.add(x, x)
            return y
    ''')
    s4 = f32(4)
    out.append(Case(
        "annotated_call_result", stamped,
        runs=[([s4], s4 + s4), Fails([f32(3)], "shape_mismatch", "the annotation says (4,), the sum is (3,)")],
        spec=["EVAL.CALL.3", "NORM.ANNOT.1", "TEXT.STMT.3", "DIV.19"], tags=["check", "binding"],
        description="an annotation stamped on a call is only possibly wrong statically, so it is checked at run time"))
    return out


def cases():
    x = f32(2, 3)
    out = tensor_param_cases(x) + symbolic_param_cases() + prim_symbolic_cases()
    x3 = f32(3)  # drawn here, between the families, as the cases were first generated
    out += prim_literal_cases(x3) + structured_param_cases()
    r4 = f32(4)
    return out + return_cases(x3, r4) + call_boundary_cases(x3, r4)


def generate():
    return {"checks": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_checks"])

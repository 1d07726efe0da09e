"""Leaf expressions and values: constants, tuples, shapes, prim values, strings, aliasing.

Oracles: hand-written values and NumPy formulas.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240604)
f32 = f32_sampler(RNG)


def constant_cases():
    """Scalar and tensor constants."""
    out = []
    consts = module_text('''
        @R.function
        def main() -> R.Tuple(R.Tensor((), "float32"), R.Tensor((), "int32"), R.Tensor((), "bool"), R.Tensor((), "int8"), R.Tensor((), "float64")):
            a = R.const(1.5, "float32")
            b = R.const(-7, "int32")
            c = R.const(True, "bool")
            d = R.const(-128, "int8")
            e = R.const(0.25, "float64")
            return (a, b, c, d, e)
    ''')
    out.append(Case(
        "scalar_constants", consts,
        runs=[([], (np.array(1.5, "float32"), np.array(-7, "int32"), np.array(True), np.array(-128, "int8"),
                    np.array(0.25, "float64")))],
        spec=["EVAL.CONST.1", "EXPR.CONST.1", "TEXT.EXPR.5", "NORM.INFER.3"], tags=["const"], oracle="hand"))
    tconst = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "int32"):
            c = R.const([[1, 2, 3], [4, 5, 6]], "int32")
            y = R.add(x, c)
            return y
    ''')
    xi = RNG.integers(-9, 9, (2, 3)).astype("int32")
    out.append(Case(
        "tensor_constant", tconst, runs=[([xi], xi + np.array([[1, 2, 3], [4, 5, 6]], "int32"))],
        spec=["EVAL.CONST.1", "TEXT.EXPR.5", "TEXT.EXPR.5"], tags=["const"]))
    return out


def operator_and_tuple_cases(x2, x3):
    """Operator sugar, nested tuples and the unit value."""
    out = []
    sugar = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = x + x
            z = y * x
            w = z - R.const(1.0, "float32")
            return w
    ''')
    out.append(Case(
        "operator_sugar", sugar, runs=[([x3], (x3 + x3) * x3 - 1)],
        spec=["TEXT.EXPR.3", "EXPR.OP.1"], tags=["text"], description="Python operators map to R.add / R.multiply / R.subtract"))
    tuples = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tuple(R.Tensor((2,), "float32"), R.Tuple), R.Tensor((2,), "float32")):
            t = (x, (y, x))
            inner = t[1]
            a = inner[0]
            b = inner[1]
            u = (a, (b, R.tuple()), t[0])
            return u
    ''')
    out.append(Case(
        "nested_tuples", tuples, runs=[([x2, x3], (x3, (x2, ()), x2))],
        spec=["EVAL.TUPLE.1", "EVAL.TGI.1", "TEXT.EXPR.2", "VAL.TUPLE.1"], tags=["tuple"], oracle="hand"))
    unit = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tuple:
            u = R.tuple()
            return u
    ''')
    out.append(Case(
        "unit_return", unit, runs=[([x2], ())],
        spec=["VAL.TUPLE.1", "EXPR.TUPLE.1"], tags=["tuple"], oracle="hand", description="the empty tuple is the unit value"))
    return out


def shape_and_prim_cases():
    """Shape expressions, negative dims, division by zero, prim expressions, shape_of."""
    out = []
    shape_expr = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Shape(ndim=5):
            n = T.int64()
            m = T.int64()
            s = R.shape([n * m, n + m, n // 2, m % 3, 7])
            return s
    ''')
    out.append(Case(
        "shape_expression", shape_expr,
        runs=[([f32(3, 4)], Shape([12, 7, 1, 1, 7])), ([f32(5, 8)], Shape([40, 13, 2, 2, 7])),
              ([f32(0, 2)], Shape([0, 2, 0, 2, 7]))],
        spec=["EVAL.SHAPE.1", "EXPR.SHAPE.1", "PRIM.INT.2", "PRIM.EVAL.1", "VAL.SHAPE.1"], tags=["shape", "symbolic"]))
    negative = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=1):
            n = T.int64()
            s = R.shape([n - 3])
            return s
    ''')
    out.append(Case(
        "negative_shape_dimension", negative,
        runs=[([f32(5)], Shape([2])), ([f32(3)], Shape([0])), Fails([f32(1)], "shape_mismatch", "n - 3 = -2")],
        spec=["EVAL.SHAPE.2", "VAL.SHAPE.1"], tags=["shape", "symbolic", "error"]))
    shape_div = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Shape(ndim=2):
            n = T.int64()
            m = T.int64()
            s = R.shape([n // m, n % m])
            return s
    ''')
    out.append(Case(
        "shape_division_by_zero", shape_div,
        runs=[([f32(7), f32(3)], Shape([2, 1])), ([f32(0), f32(5)], Shape([0, 0])),
              Fails([f32(4), f32(0)], "division_by_zero")],
        spec=["EVAL.SHAPE.1", "PRIM.INT.4", "DIV.15"], tags=["shape", "symbolic", "error"]))
    prim_expr = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Prim("int64"), R.Prim("int64")):
            n = T.int64()
            a = R.prim_value(n * 3 + 1)
            b = R.prim_value(T.max(n - 4, 0))
            return (a, b)
    ''')
    out.append(Case(
        "prim_value_expression", prim_expr,
        runs=[([f32(2)], (Prim(7, "int64"), Prim(0, "int64"))), ([f32(9)], (Prim(28, "int64"), Prim(5, "int64")))],
        spec=["EVAL.PRIM.1", "EXPR.PRIMVALUE.1", "PRIM.INT.6", "SI.PRIM.2"], tags=["prim", "symbolic"]))
    shape_of = module_text('''
        @R.function
        def main(x: R.Tensor(dtype="float32")) -> R.Shape:
            s = R.shape_of(x)
            return s
    ''')
    out.append(Case(
        "shape_of", shape_of,
        runs=[([f32(2, 3)], Shape([2, 3])), ([np.zeros((), "float32")], Shape([])), ([f32(0, 1, 4)], Shape([0, 1, 4]))],
        spec=["OP.SEM.1", "VAL.SHAPE.1", "CALL.BUILTIN.3"], tags=["shape"]))
    return out


def binding_cases(x2):
    """Aliases, strings, prim pass-through, unknown shapes, unit calls, null, shape_to_tensor."""
    out = []
    alias = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
            y = x
            z: R.Tensor((2,), "float32") = y
            return (y, z)
    ''')
    out.append(Case(
        "var_to_var_binding", alias, runs=[([x2], (x2, x2))],
        spec=["EVAL.BIND.1", "EVAL.VAR.1", "TEXT.STMT.3", "VAL.TENSOR.2", "EXPR.BIND.1", "EXPR.VAR.1", "NORM.VAR.1"], tags=["binding"], oracle="hand"))
    strings = module_text('''
        @R.function
        def main() -> R.Object:
            s = R.str("relax")
            return s
    ''')
    out.append(Case(
        "string_value", strings, runs=[([], "relax")],
        spec=["EVAL.STRING.1", "VAL.STRING.1", "EXPR.STRING.1"], tags=["string"], oracle="hand"))
    prim_args = module_text('''
        @R.function
        def main(a: R.Prim("int64"), b: R.Prim("float32")) -> R.Tuple(R.Prim("float32"), R.Prim("int64")):
            return (b, a)
    ''')
    out.append(Case(
        "prim_passthrough", prim_args,
        runs=[([Prim(-4, "int64"), Prim(0.5, "float32")], (Prim(0.5, "float32"), Prim(-4, "int64")))],
        spec=["VAL.PRIM.1", "CALL.HOST.1", "EVAL.PROG.1"], tags=["prim"], oracle="hand"))
    unknown = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32"), y: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
            z = R.multiply(x, y)
            return z
    ''')
    a, b, c, d = f32(2, 3), f32(2, 3), f32(1, 4), f32(3, 1)
    out.append(Case(
        "op_on_unknown_shapes", unknown, runs=[([a, b], a * b), ([c, d], c * d)],
        spec=["NORM.OP.BCAST.2", "OP.SEM.1", "SI.TENSOR.1", "EVAL.CALL.1", "CALL.OP.1"], tags=["op:multiply"],
        description="an operator whose operand shapes are only known by rank (the second run broadcasts)"))
    unit_call = module_text('''
        @R.function(pure=False)
        def show(x: R.Tensor((2,), "float32")) -> R.Tuple:
            R.print(x, format="{}")
            return R.tuple()

        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            cls.show(x)
            y = R.multiply(x, x)
            return y
    ''')
    out.append(Case(
        "unit_call_statement", unit_call, runs=[([x2], x2 * x2)],
        spec=["TEXT.STMT.6", "VAL.TUPLE.1"], tags=["text", "impure"],
        description="a call returning unit may stand alone as a statement"))
    null = module_text('''
        @R.function
        def main() -> R.Object:
            n = R.null_value()
            return n
    ''')
    out.append(Case("null_value", null, runs=[([], None)], spec=["VAL.NULL.1", "CALL.BUILTIN.3"], tags=["null"], oracle="hand"))
    s2t = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor((3,), "int64"):
            n = T.int64()
            m = T.int64()
            t = R.shape_to_tensor(R.shape([n, m, n * m]))
            return t
    ''')
    out.append(Case(
        "shape_to_tensor", s2t, runs=[([f32(2, 5)], np.array([2, 5, 10], "int64")),
                                      ([f32(0, 3)], np.array([0, 3, 0], "int64"))],
        spec=["CALL.BUILTIN.2", "EVAL.SHAPE.1"], tags=["shape"]))
    return out


def cases():
    out = constant_cases()
    x3 = f32(3)  # drawn here, between the families, as the cases were first generated
    x2 = f32(2)
    return out + operator_and_tuple_cases(x2, x3) + shape_and_prim_cases() + binding_cases(x2)


def generate():
    return {"expressions": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_expressions"])

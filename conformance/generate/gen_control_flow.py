"""``if``/``else``, dataflow blocks, and sequencing of bindings.

Oracles: NumPy formulas for the branch taken (decided by the condition in the generator).
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240603)
f32 = f32_sampler(RNG)


def bool_prim(v):
    return Prim(v, "bool")


def condition_cases(x):
    """Prim, tensor, computed and nested conditions."""
    out = []
    prim_cond = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((3,), "float32"):
            if c:
                y = R.add(x, x)
            else:
                y = R.multiply(x, x)
            return y
    ''')
    out.append(Case(
        "if_prim_bool", prim_cond,
        runs=[([x, Prim(True, "bool")], x + x), ([x, Prim(False, "bool")], x * x)],
        spec=["EVAL.IF.1", "EVAL.IF.2", "EXPR.IF.1"], tags=["if"]))
    tensor_cond = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((3,), "float32"):
            if c:
                y = R.subtract(x, x)
            else:
                y = x
            return y
    ''')
    out.append(Case(
        "if_tensor_bool", tensor_cond,
        runs=[([x, np.array(True)], x - x), ([x, np.array(False)], x)],
        spec=["EVAL.IF.1", "EVAL.IF.2"], tags=["if"]))
    computed = module_text('''
        @R.function
        def main(a: R.Tensor((), "int32"), b: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            c = R.greater(a, b)
            if c:
                r = R.subtract(a, b)
            else:
                r = R.subtract(b, a)
            return r
    ''')
    i = lambda v: np.array(v, "int32")  # noqa: E731
    out.append(Case(
        "if_computed_condition", computed,
        runs=[([i(7), i(3)], i(4)), ([i(3), i(7)], i(4)), ([i(5), i(5)], i(0)), ([i(-2), i(-9)], i(7))],
        spec=["EVAL.IF.1", "EVAL.IF.2"], tags=["if"], description="|a - b| through a comparison and a branch"))
    nested = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32"), c1: R.Prim("bool"), c2: R.Prim("bool")) -> R.Tensor((2,), "float32"):
            if c1:
                if c2:
                    y = R.add(x, R.const(1, "float32"))
                else:
                    y = R.add(x, R.const(2, "float32"))
            else:
                if c2:
                    y = R.add(x, R.const(3, "float32"))
                else:
                    y = R.add(x, R.const(4, "float32"))
            return y
    ''')
    x2 = np.array([0.5, -1.0], "float32")
    out.append(Case(
        "if_nested", nested,
        runs=[([x2, bool_prim(True), bool_prim(True)], x2 + 1), ([x2, bool_prim(True), bool_prim(False)], x2 + 2),
              ([x2, bool_prim(False), bool_prim(True)], x2 + 3), ([x2, bool_prim(False), bool_prim(False)], x2 + 4)],
        spec=["EVAL.IF.1", "TEXT.STMT.4"], tags=["if"]))
    return out


def _double_if(cond: str) -> str:
    """A module whose ``main(x: (2,) float32, c: cond)`` returns ``x + x`` when ``c`` holds, else ``x``."""
    return module_text(f'''
        @R.function
        def main(x: R.Tensor((2,), "float32"), c: {cond}) -> R.Tensor((2,), "float32"):
            if c:
                y = R.add(x, x)
            else:
                y = x
            return y
    ''')


def branch_cases(x):
    """Integer, wrongly ranked and float conditions; branches of different shapes and tuples."""
    out = []
    int_cond = _double_if('R.Prim("int64")')
    x2i = np.array([1.5, -3.0], "float32")
    out.append(Case(
        "if_integer_condition", int_cond,
        runs=[([x2i, Prim(7, "int64")], x2i + x2i), ([x2i, Prim(0, "int64")], x2i),
              ([x2i, Prim(-1, "int64")], x2i + x2i)],
        spec=["EVAL.IF.2"], tags=["if"], description="an integer condition is true when nonzero"))
    bad_cond = _double_if('R.Tensor(dtype="bool")')
    out.append(Case(
        "if_condition_rank", bad_cond,
        runs=[([x2i, np.array(True)], x2i + x2i), Fails([x2i, np.array([False, True])], "ndim_mismatch"),
              Fails([x2i, np.array([True])], "ndim_mismatch")],
        spec=["EVAL.IF.2", "DIV.4"], tags=["if", "error"],
        description="a condition tensor must have rank 0 (TVM reads element 0 of any tensor)"))
    float_cond = _double_if('R.Tensor((), "float32")')
    out.append(Case(
        "if_condition_float", float_cond, runs=[Fails([x2i, np.array(1.0, "float32")], "dtype_mismatch")],
        spec=["EVAL.IF.2", "EVAL.CHECK.8"], tags=["if", "error"], oracle="spec-rule"))
    shapes = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((2,), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            if c:
                r = x
            else:
                r = y
            return r
    ''')
    y2 = f32(2)
    out.append(Case(
        "if_branches_differ_in_shape", shapes,
        runs=[([x, y2, bool_prim(True)], x), ([x, y2, bool_prim(False)], y2)],
        spec=["EVAL.IF.1", "NORM.IF.1", "SI.LCA.4"], tags=["if"],
        description="the If's struct info is the join of the branches; each run returns one branch"))
    tup = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "int32"), c: R.Prim("bool")) -> R.Tuple(R.Tensor((2,), "int32"), R.Shape(ndim=1)):
            if c:
                r = (x, R.shape([1]))
            else:
                r = (R.add(x, x), R.shape([2]))
            return r
    ''')
    xi = np.array([5, -6], "int32")
    out.append(Case(
        "if_returns_tuple", tup,
        runs=[([xi, bool_prim(True)], (xi, Shape([1]))), ([xi, bool_prim(False)], (xi + xi, Shape([2])))],
        spec=["EVAL.IF.1", "EVAL.TUPLE.1", "SI.LCA.5", "SI.LCA.3"], tags=["if", "tuple"]))
    return out


def branch_scope_cases():
    """Bindings local to a branch and match_cast in a branch."""
    out = []
    locals_ = module_text('''
        @R.function
        def main(x: R.Tensor((4,), "float32"), c: R.Prim("bool")) -> R.Tensor((4,), "float32"):
            if c:
                a = R.add(x, x)
                y = R.multiply(a, x)
            else:
                b = R.subtract(x, x)
                y = R.add(b, x)
            return y
    ''')
    x4 = f32(4)
    out.append(Case(
        "if_branch_local_bindings", locals_,
        runs=[([x4, bool_prim(True)], (x4 + x4) * x4), ([x4, bool_prim(False)], (x4 - x4) + x4)],
        spec=["EVAL.IF.1", "EVAL.IF.3", "EXPR.SCOPE.4"], tags=["if"],
        description="both branches compute through intermediate bindings local to the branch"))
    mc = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                z = R.add(y, y)
            else:
                z = x
            return z
    ''')
    out.append(Case(
        "if_match_cast_in_branch", mc,
        runs=[([x4, bool_prim(True)], x4 + x4), ([x4, bool_prim(False)], x4)],
        spec=["EVAL.IF.3", "EVAL.MATCHCAST.1", "NORM.IF.1", "NORM.SEQ.1", "SI.ERASE.5"], tags=["if", "match_cast"]))
    return out


def dataflow_cases(p, q):
    """Dataflow blocks, an if between two of them, and two block outputs."""
    out = []
    df = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                a = R.add(x, y)
                b = R.multiply(a, y)
                c = R.subtract(b, x)
                R.output(c)
            return c
    ''')
    out.append(Case(
        "dataflow_block", df, runs=[([p, q], (p + q) * q - p)],
        spec=["EXPR.DATAFLOW.1", "EVAL.SEQ.1", "EVAL.ORDER.1", "EVAL.DATAFLOW.1"], tags=["dataflow"]))
    df2 = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                a = R.add(x, x)
                R.output(a)
            if c:
                b = R.multiply(a, a)
            else:
                b = a
            with R.dataflow():
                d = R.subtract(b, x)
                e = R.add(d, d)
                R.output(e)
            return e
    ''')
    out.append(Case(
        "dataflow_if_dataflow", df2,
        runs=[([p, bool_prim(True)], ((p + p) * (p + p) - p) * 2), ([p, bool_prim(False)], ((p + p) - p) * 2)],
        spec=["EXPR.DATAFLOW.1", "EXPR.BLOCK.1", "EVAL.SEQ.1", "EVAL.IF.1", "EXPR.SEQ.1", "EXPR.SCOPE.2"], tags=["dataflow", "if"],
        description="dataflow blocks before and after an If in the same function"))
    df_outputs = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
            with R.dataflow():
                a = R.add(x, x)
                b = R.multiply(a, a)
                c = R.subtract(b, a)
                R.output(a, c)
            return (a, c)
    ''')
    r = f32(2)
    out.append(Case(
        "dataflow_two_outputs", df_outputs, runs=[([r], (r + r, (r + r) * (r + r) - (r + r)))],
        spec=["EXPR.DATAFLOW.1", "TEXT.STMT.5", "EVAL.ENV.2"], tags=["dataflow"]))
    return out


def sequencing_cases(p):
    """Rebinding a name, assert, print and force_pure."""
    out = []
    rebind = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.add(x, x)
            y = R.multiply(y, x)
            y = R.subtract(y, x)
            return y
    ''')
    out.append(Case(
        "rebinding_a_name", rebind, runs=[([p], (p + p) * p - p)],
        spec=["TEXT.STMT.1", "EXPR.SCOPE.6", "EXPR.SCOPE.2"], tags=["binding"],
        description="rebinding a name in the text creates a new variable each time"))
    assert_ok = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((3,), "float32"):
            R.assert_op(c, x, format="x={}")
            y = R.add(x, x)
            return y
    ''')
    out.append(Case(
        "assert_op", assert_ok,
        runs=[([p, np.array(True)], p + p), Fails([p, np.array(False)], "assert_failed")],
        spec=["OP.PURE.1", "EXPR.PURITY.1", "ERR.KIND.1", "CALL.ASSERT.1", "EVAL.ERR.1"], tags=["assert", "impure"]))
    printed = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            R.print(x, format="x = {}")
            return x
    ''')
    out.append(Case(
        "print_returns_unit_and_continues", printed, runs=[([p], p)],
        spec=["OP.PURE.1", "TEXT.STMT.6", "CALL.PRINT.1"], tags=["print", "impure"], oracle="hand",
        description="R.print has no effect on the result (its output is not checked)"))
    force_pure = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            R.func_attr({"relax.force_pure": True})
            R.print(x, format="{}")
            y = R.add(x, x)
            return y
    ''')
    out.append(Case(
        "force_pure_allows_impure_calls", force_pure, runs=[([p], p + p)],
        spec=["EXPR.FUNC.3", "TEXT.FUNC.2", "CALL.PRINT.1", "WF.PURITY.1"], tags=["purity", "print"],
        description="relax.force_pure lets a pure function contain an impure call"))
    return out


def cases():
    x = f32(3)
    out = condition_cases(x) + branch_cases(x) + branch_scope_cases()
    p, q = f32(3), f32(3)  # drawn here, between the families, as the cases were first generated
    return out + dataflow_cases(p, q) + sequencing_cases(p)


def generate():
    return {"control_flow": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_control_flow"])

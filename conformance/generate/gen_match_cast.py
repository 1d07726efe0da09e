"""``R.match_cast``: binding symbolic variables from run-time values, and its failures.

Oracles: returned values and shapes are NumPy/hand computed from the inputs; a value outside the
target struct info fails with ``match_cast_failed`` (the failure is reported at the MatchCast site).
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240602)
f32 = f32_sampler(RNG)


def tensor_cases(a, b, c, x4):
    """Tensor targets: two symbolic dims, a constant dim, a dtype, a rank, a bound variable."""
    out = []
    bind = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tuple(R.Tensor(ndim=2, dtype="float32"), R.Shape(ndim=2)):
            n = T.int64()
            m = T.int64()
            y = R.match_cast(x, R.Tensor((n, m), "float32"))
            s = R.shape([m, n * m])
            return (y, s)
    ''')
    out.append(Case(
        "bind_two_dims", bind,
        runs=[([a], (a, Shape([3, 6]))), ([b], (b, Shape([1, 4]))), ([c], (c, Shape([5, 0])))],
        spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "SI.SYM.2", "EVAL.SHAPE.1", "NORM.MATCHCAST.1", "NORM.SCOPE.1"], tags=["match_cast", "symbolic"],
        description="match_cast binds n and m from the value; a shape expression then uses them"))
    const = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor((4,), "float32"):
            y = R.match_cast(x, R.Tensor((4,), "float32"))
            return y
    ''')
    out.append(Case(
        "const_dim", const, runs=[([x4], x4), Fails([f32(3)], "match_cast_failed"),
                                  Fails([f32(0)], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.3", "EXPR.MATCHCAST.1", "EVAL.CHECK.8"], tags=["match_cast"]))
    dtype = module_text('''
        @R.function
        def main(x: R.Tensor((3,))) -> R.Tensor((3,), "int32"):
            y = R.match_cast(x, R.Tensor((3,), "int32"))
            return y
    ''')
    i3 = np.array([1, -2, 3], "int32")
    out.append(Case(
        "dtype", dtype, runs=[([i3], i3), Fails([f32(3)], "match_cast_failed"),
                              Fails([i3.astype("int64")], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.2"], tags=["match_cast", "dtype"]))
    ndim = module_text('''
        @R.function
        def main(x: R.Tensor(dtype="float32")) -> R.Shape(ndim=2):
            n = T.int64()
            m = T.int64()
            y = R.match_cast(x, R.Tensor((n, m), "float32"))
            s = R.shape([n, m])
            return s
    ''')
    out.append(Case(
        "ndim", ndim, runs=[([f32(2, 5)], Shape([2, 5])), Fails([f32(10)], "match_cast_failed"),
                            Fails([np.zeros((), "float32")], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.2"], tags=["match_cast"]))
    prev = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            z = R.match_cast(y, R.Tensor((n,), "float32"))
            w = R.add(x, z)
            return w
    ''')
    p3, q3 = f32(3), f32(3)
    out.append(Case(
        "previously_bound", prev, runs=[([p3, q3], p3 + q3), Fails([p3, f32(4)], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.3", "SI.SYM.6"], tags=["match_cast", "symbolic"],
        description="a variable bound by a parameter is compared, not rebound, by a later match_cast"))
    return out


def shape_cases():
    """An expression dim and shape values."""
    out = []
    expr = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            z = R.match_cast(y, R.Tensor((n * 2 + 1,), "float32"))
            return z
    ''')
    y7 = f32(7)
    out.append(Case(
        "expression_dim", expr,
        runs=[([f32(3), y7], y7), Fails([f32(3), f32(6)], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.4", "SI.SYM.3"], tags=["match_cast", "symbolic"]))
    shape_val = module_text('''
        @R.function
        def main(s: R.Shape(ndim=2)) -> R.Prim("int64"):
            a = T.int64()
            b = T.int64()
            t = R.match_cast(s, R.Shape([a, b]))
            p = R.prim_value(a * b + 1)
            return p
    ''')
    out.append(Case(
        "shape_value", shape_val,
        runs=[([Shape([3, 4])], Prim(13, "int64")), ([Shape([0, 9])], Prim(1, "int64"))],
        spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "VAL.SHAPE.1", "EVAL.PRIM.1"], tags=["match_cast", "shape"]))
    shape_fail = module_text('''
        @R.function
        def main(s: R.Shape) -> R.Shape([2, 3]):
            t = R.match_cast(s, R.Shape([2, 3]))
            return t
    ''')
    out.append(Case(
        "shape_value_mismatch", shape_fail,
        runs=[([Shape([2, 3])], Shape([2, 3])), Fails([Shape([2, 4])], "match_cast_failed"),
              Fails([Shape([2])], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.2", "EVAL.CHECK.3"], tags=["match_cast", "shape"]))
    return out


def structure_cases(x4, x5):
    """Prim values, tuples, objects, the result's identity, match_cast in a dataflow block."""
    out = []
    prim = module_text('''
        @R.function
        def main(p: R.Prim("int64"), x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(ndim=1, dtype="float32"):
            k = T.int64()
            q = R.match_cast(p, R.Prim(value=k))
            y = R.match_cast(x, R.Tensor((k,), "float32"))
            return y
    ''')
    out.append(Case(
        "prim_value", prim,
        runs=[([Prim(5, "int64"), x5], x5), Fails([Prim(4, "int64"), x5], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "SI.PRIM.1"], tags=["match_cast", "prim"],
        description="a prim value binds k, which a second match_cast then checks"))
    tup = module_text('''
        @R.function
        def main(t: R.Tuple(R.Tensor(ndim=1, dtype="float32"), R.Tensor(ndim=1, dtype="float32"))) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            u = R.match_cast(t, R.Tuple(R.Tensor((n,), "float32"), R.Tensor((n,), "float32")))
            a = u[0]
            b = u[1]
            c = R.multiply(a, b)
            return c
    ''')
    u1, u2 = f32(4), f32(4)
    out.append(Case(
        "tuple", tup, runs=[([(u1, u2)], u1 * u2), Fails([(u1, f32(3))], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.2", "SI.TUPLE.1"], tags=["match_cast", "tuple"]))
    obj = module_text('''
        @R.function
        def main(x: R.Object) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case(
        "from_object", obj,
        runs=[([x4], x4), Fails([Shape([4])], "match_cast_failed"), Fails([(x4,)], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.2", "SI.OBJ.1"], tags=["match_cast"]))
    alias = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tuple(R.Tensor(ndim=1, dtype="float32"), R.Tensor(ndim=1, dtype="float32")):
            n = T.int64()
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            return (x, y)
    ''')
    out.append(Case(
        "result_is_same_value", alias, runs=[([x5], (x5, x5))],
        spec=["EVAL.MATCHCAST.1", "EVAL.ALIAS.1", "VAL.TENSOR.2"], tags=["match_cast"], oracle="hand",
        description="the match_cast result is the checked value itself"))
    df = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
            n = T.int64()
            with R.dataflow():
                y = R.match_cast(x, R.Tensor((n, 2), "float32"))
                z = R.add(y, y)
                R.output(z)
            return z
    ''')
    d = f32(3, 2)
    out.append(Case(
        "in_dataflow", df, runs=[([d], d + d), Fails([f32(3, 3)], "match_cast_failed")],
        spec=["EVAL.MATCHCAST.1", "EXPR.DATAFLOW.1", "EVAL.ENV.2"], tags=["match_cast", "dataflow"]))
    return out


def data_dependent_cases(x5):
    """Values known only at run time, the classic header, negative shapes."""
    out = []
    data_dep = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            k = T.int64()
            y = R.call_pure_packed("conformance.add", x, x, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
            z = R.match_cast(y, R.Tensor((k,), "float32"))
            w = R.add(z, z)
            return w
    ''')
    out.append(Case(
        "data_dependent_packed", data_dep, runs=[([x5], (x5 * 2) * 2), ([f32(0)], np.zeros((0,), "float32"))],
        spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "CALL.PACKED.4", "CALL.PACKED.5"], tags=["match_cast", "packed", "data-dependent"],
        description="the result of a packed call has an unknown length; match_cast names it"))
    t2s = module_text('''
        @R.function
        def main(t: R.Tensor((2,), "int64")) -> R.Shape(ndim=2):
            a = T.int64()
            b = T.int64()
            s = R.tensor_to_shape(t)
            u = R.match_cast(s, R.Shape([a, b]))
            v = R.shape([b, a + b])
            return v
    ''')
    out.append(Case(
        "data_dependent_tensor_to_shape", t2s,
        runs=[([np.array([3, 4], "int64")], Shape([4, 7])), ([np.array([0, 2], "int64")], Shape([2, 2]))],
        spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "EVAL.SHAPE.1", "CALL.BUILTIN.1"], tags=["match_cast", "data-dependent"]))
    classic = module_text('''
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Shape(ndim=2):
            a = T.int64()
            b = T.int64()
            y = R.match_cast(x, R.Tensor((a, b), "float32"))
            s = R.shape([b, a])
            return s
    ''', spelling="classic")
    out.append(Case(
        "classic_header", classic, runs=[([f32(3, 1)], Shape([1, 3]))],
        spec=["EVAL.MATCHCAST.1", "TEXT.DIALECT.1"], tags=["match_cast", "spelling:classic"],
        description="a Relax-only module under the classic import line (tir as T)"))
    t2s_bad = module_text('''
        @R.function
        def main(t: R.Tensor((2,), "int64")) -> R.Shape(ndim=2):
            s = R.tensor_to_shape(t)
            a = T.int64()
            b = T.int64()
            u = R.match_cast(s, R.Shape([a, b]))
            return u
    ''')
    out.append(Case(
        "tensor_to_shape_negative", t2s_bad,
        runs=[([np.array([4, 0], "int64")], Shape([4, 0])), Fails([np.array([3, -1], "int64")], "op_runtime")],
        spec=["CALL.BUILTIN.1", "VAL.SHAPE.1"], tags=["shape", "data-dependent", "error"],
        description="a shape value cannot hold a negative dimension"))
    return out


def cases():
    a, b, c = f32(2, 3), f32(4, 1), f32(0, 5)
    x4 = f32(4)
    out = tensor_cases(a, b, c, x4) + shape_cases()
    x5 = f32(5)  # drawn here, between the families, as the cases were first generated
    return out + structure_cases(x4, x5) + data_dependent_cases(x5)


def generate():
    return {"match_cast": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_match_cast"])

"""Symbolic shapes across function calls: callee signatures that bind expressions (``R.Tensor(("n * 2",))``
with ``R.Prim(value="n")``), the substitution of a callee's variables in the call's struct info, nested
tuples of symbolic values passed and returned, and where each check happens.

Oracles: NumPy formulas restating each function; static decisions and error kinds from the cited rules
(SI.CALL.*, CALL.FUNC.*). Every module runs at several sizes, including 0, 1 and odd ones.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text

RNG = np.random.default_rng(20240724)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def i64(v):
    return Prim(v, "int64")


SIZES = (0, 1, 3, 4, 7)


def halves_cases():
    """A callee whose tensor parameter is an expression of a variable another parameter binds."""
    out = []
    halves = module_text('''
        @R.function
        def halves(x: R.Tensor(("n * 2",), "float32"), k: R.Prim(value="n")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            y = R.reshape(x, R.shape([2, n]))
            z = R.sum(y, axis=[0])
            return z

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            cls = Module
            d = R.concat((x, x), axis=0)
            r = cls.halves(d, R.prim_value(m))
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], x + x))
    out.append(Case("callee_binds_through_prim_value", halves, runs=runs,
                    spec=["SI.SYM.2", "SI.CALL.2", "SI.CALL.4", "CALL.FUNC.2", "CALL.FUNC.4", "EVAL.CHECK.4"],
                    tags=["symbolic", "call", "prim"],
                    description="the caller's m reaches the callee's n through R.Prim(value=n); the tensor "
                                "parameter n * 2 is compared after n is bound, and the call's struct info is (m,)"))
    runs = []
    for n in (0, 1, 2, 5):
        x = f32(2 * n)
        runs.append(([x, i64(n)], x[:n] + x[n:]))
    runs += [Fails([f32(5), i64(2)], "shape_mismatch", "odd length 5 against n * 2 with n = 2"),
             Fails([f32(5), i64(3)], "shape_mismatch", "length 5 against n * 2 = 6"),
             Fails([f32(1), i64(0)], "shape_mismatch", "length 1 against n * 2 = 0"),
             Fails([f32(4), Shape([2])], "type_mismatch", "k is a shape value")]
    out.append(Case("callee_binds_through_prim_value_entry", halves, entry="halves", runs=runs,
                    spec=["SI.SYM.2", "CALL.FUNC.2", "CALL.FUNC.5", "EVAL.CHECK.1", "EVAL.CHECK.2", "EVAL.CHECK.3",
                          "EVAL.CHECK.4"],
                    tags=["symbolic", "check", "prim"],
                    description="the same callee called from the host: n from k, then x's length against n * 2"))
    later = module_text('''
        @R.function
        def pairs(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            a = R.reshape(x, R.shape([n, 2]))
            b = R.sum(a, axis=[1])
            c = R.multiply(b, y)
            return c

        @R.function
        def main(x: R.Tensor(("a",), "float32"), y: R.Tensor(("b",), "float32")) -> R.Tensor(("b",), "float32"):
            cls = Module
            r = cls.pairs(x, y)
            return r
    ''')
    runs = []
    for n in (0, 1, 3, 6):
        x, y = f32(2 * n), f32(n)
        runs.append(([x, y], (x.reshape(n, 2).sum(axis=1, dtype="float32") * y).astype("float32")))
    runs += [Fails([f32(7), f32(3)], "shape_mismatch", "x has 7 elements, 2 * n = 6"),
             Fails([f32(2), f32(0)], "shape_mismatch", "x has 2 elements, 2 * n = 0"),
             Fails([f32(0), f32(1)], "shape_mismatch", "x has 0 elements, 2 * n = 2")]
    out.append(Case("variable_bound_by_later_parameter", later, runs=runs,
                    spec=["SI.SYM.2", "SI.CALL.2", "SI.CALL.3", "CALL.FUNC.2", "CALL.FUNC.3", "EVAL.CHECK.1"],
                    tags=["symbolic", "call", "check"],
                    description="n is defined by the second parameter; the caller's a and b are unrelated "
                                "statically (L2), so the callee's parameter check decides"))
    return out


def substitution_cases():
    """The call's struct info is the callee's return struct info with the callee's variables replaced."""
    out = []
    base = '''
        @R.function
        def grow(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
            n = T.int64()
            one = R.ones(R.shape([1]), "float32")
            y = R.concat((x, one), axis=0)
            return y

        @R.function
        def take4(v: R.Tensor((DIM,), "float32")) -> R.Tensor((DIM,), "float32"):
            w = R.add(v, v)
            return w

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((DIM,), "float32"):
            cls = Module
            g = cls.grow(x)
            r = cls.take4(g)
            return r
    '''
    x = f32(3)
    ok = module_text(base.replace("DIM", "4"))
    out.append(Case("call_struct_info_substitutes_immediate", ok,
                    runs=[([x], np.concatenate([x, np.ones(1, "float32")]) * 2)],
                    spec=["SI.CALL.2", "SI.CALL.4", "SI.ERASE.1", "SI.ERASE.2", "SI.ERASE.5", "SI.BASE.9"],
                    tags=["symbolic", "call"],
                    description="grow(x) with x of shape (3,) has struct info (4,), which take4 accepts"))
    out.append(Invalid("call_struct_info_substitutes_immediate_mismatch", module_text(base.replace("DIM", "5")),
                       "struct_info", spec=["SI.CALL.2", "SI.CALL.3", "SI.CALL.4", "SI.ERASE.2", "SI.BASE.9"],
                       tags=["symbolic", "call"],
                       description="grow(x) has struct info (4,) after substitution; passing it for (5,) is a "
                                   "definite mismatch (L0)"))
    unmatched = module_text('''
        @R.function
        def square(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n", "n"), "float32"):
            n = T.int64()
            a = R.reshape(x, R.shape([n, 1]))
            b = R.reshape(x, R.shape([1, n]))
            c = R.multiply(a, b)
            return c

        @R.function
        def three(m: R.Tensor((3, 3), "float32")) -> R.Tensor((3, 3), "float32"):
            return m

        @R.function
        def main(x: R.Tensor("float32", ndim=1)) -> R.Tensor((3, 3), "float32"):
            cls = Module
            s = cls.square(x)
            r = cls.three(s)
            return r
    ''')
    x3 = f32(3)
    out.append(Case("unmatched_variable_erased_then_checked", unmatched,
                    runs=[([x3], np.outer(x3, x3).astype("float32")),
                          Fails([f32(2)], "shape_mismatch", "square returns (2, 2); three wants (3, 3)"),
                          Fails([f32(0)], "shape_mismatch", "square returns (0, 0)"),
                          Fails([f32(2, 2)], "ndim_mismatch", "x has rank 2")],
                    spec=["SI.CALL.2", "SI.CALL.4", "SI.ERASE.1", "SI.CALL.3", "CALL.FUNC.2", "SI.BASE.5"],
                    tags=["symbolic", "call"],
                    description="x has no shape, so n is not matched and square's result is R.Tensor(ndim=2); "
                                "three accepts it statically (L2) and checks it at run time"))
    chain = module_text('''
        @R.function
        def double(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
            n = T.int64()
            y = R.concat((x, x), axis=0)
            return y

        @R.function
        def fold(y: R.Tensor(("k",), "float32")) -> R.Tensor(("k // 2",), "float32"):
            k = T.int64()
            h = R.strided_slice(y, axes=[0], begin=[0], end=[k // 2])
            return h

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            d = cls.double(x)
            f = cls.fold(d)
            g = R.add(f, x)
            return g
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], x + x))
    out.append(Case("substitution_through_two_calls", chain, runs=runs,
                    spec=["SI.CALL.2", "SI.CALL.4", "SI.ERASE.2", "ARITH.CANON.1", "CALL.FUNC.4"],
                    tags=["symbolic", "call"],
                    description="double(x) has struct info (m * 2,); fold binds k to m * 2 and returns "
                                "(m * 2 // 2,), which the analyzer proves equal to m for the add"))
    return out


def nested_tuple_cases():
    out = []
    nested = module_text('''
        @R.function
        def unpack(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Tensor(("n", "m"), "float32"), R.Prim(value="m")))) -> R.Tensor(("n", "m"), "float32"):
            n = T.int64()
            m = T.int64()
            v = t[0]
            inner = t[1]
            w = inner[0]
            a = R.reshape(v, R.shape([n, 1]))
            p = R.add(w, a)
            return p

        @R.function
        def main(v: R.Tensor(("a",), "float32"), w: R.Tensor(("a", "b"), "float32")) -> R.Tensor(("a", "b"), "float32"):
            b = T.int64()
            cls = Module
            t = (v, (w, R.prim_value(b)))
            r = cls.unpack(t)
            return r
    ''')
    runs = []
    for a, b in ((0, 3), (1, 1), (3, 0), (2, 5)):
        v, w = f32(a), f32(a, b)
        runs.append(([v, w], w + v[:, None]))
    out.append(Case("nested_tuple_argument", nested, runs=runs,
                    spec=["SI.SYM.1", "SI.SYM.2", "SI.CALL.2", "SI.CALL.4", "CALL.FUNC.2", "EVAL.TUPLE.1",
                          "EVAL.TGI.1"],
                    tags=["symbolic", "call", "tuple"],
                    description="a tuple nesting a tensor, a tuple of a matrix and a prim value binds n and m "
                                "in the callee; the call's struct info is (a, b)"))
    v, w = f32(2), f32(2, 3)
    entry_runs = [([(v, (w, i64(3)))], w + v[:, None]),
                  ([(f32(0), (f32(0, 4), i64(4)))], np.zeros((0, 4), "float32")),
                  ([(f32(3), (f32(3, 0), i64(0)))], np.zeros((3, 0), "float32")),
                  Fails([(f32(2), (f32(3, 3), i64(3)))], "shape_mismatch", "n = 2 from the first field, 3 rows"),
                  Fails([(f32(2), (f32(2, 3), i64(4)))], "value_mismatch", "m = 3 from the matrix, 4 given"),
                  Fails([(f32(2), (f32(2, 3),))], "arity_mismatch", "the inner tuple has one field"),
                  Fails([(f32(2), (Shape([2, 3]), i64(3)))], "type_mismatch", "a shape where the matrix goes")]
    out.append(Case("nested_tuple_argument_entry", nested, entry="unpack", runs=entry_runs,
                    spec=["EVAL.CHECK.1", "EVAL.CHECK.2", "EVAL.CHECK.3", "SI.TUPLE.1", "CALL.HOST.1"],
                    tags=["symbolic", "check", "tuple"],
                    description="the nested-tuple parameter checked from the host: structure first, then "
                                "bindings in depth-first order"))
    ret = module_text('''
        @R.function
        def describe(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Shape(["n", "n + 1"]), R.Prim(value="n * 2"))):
            n = T.int64()
            y = R.negative(x)
            t = (y, (R.shape([n, n + 1]), R.prim_value(n * 2)))
            return t

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Shape(["m", "m + 1"]), R.Prim(value="m * 2"), R.Tensor(("m",), "float32")):
            m = T.int64()
            cls = Module
            d = cls.describe(x)
            inner = d[1]
            s = inner[0]
            p = inner[1]
            y = d[0]
            z = R.add(y, x)
            r = (s, p, z)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], (Shape([m, m + 1]), i64(2 * m), np.zeros(m, "float32"))))
    out.append(Case("nested_tuple_result", ret, runs=runs,
                    spec=["SI.CALL.4", "SI.ERASE.1", "EVAL.TGI.1", "EVAL.SHAPE.1", "EVAL.PRIM.1", "CALL.FUNC.4"],
                    tags=["symbolic", "call", "tuple", "shape", "prim"], oracle="hand",
                    description="a callee returns a nested tuple of a tensor, a shape and a prim value over n; "
                                "the caller's view substitutes m"))
    return out


def shared_variable_tuple_cases():
    out = []
    repeated = module_text('''
        @R.function
        def same(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32"))) -> R.Tensor(("n",), "float32"):
            a = t[0]
            b = t[1]
            c = R.subtract(a, b)
            return c

        @R.function
        def main(x: R.Tensor(("p",), "float32"), y: R.Tensor(("q",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            r = cls.same((x, y))
            return r
    ''')
    runs = []
    for n in (0, 1, 5):
        x, y = f32(n), f32(n)
        runs.append(([x, y], x - y))
    runs += [Fails([f32(2), f32(3)], "shape_mismatch"), Fails([f32(0), f32(1)], "shape_mismatch"),
             Fails([f32(1), f32(0)], "shape_mismatch")]
    out.append(Case("tuple_fields_share_a_variable", repeated, runs=runs,
                    spec=["SI.CALL.2", "SI.CALL.3", "CALL.FUNC.2", "EVAL.CHECK.3"],
                    tags=["symbolic", "call", "tuple", "check"],
                    description="both fields of a tuple parameter use n: the first binds it, the second is "
                                "compared; the caller's p and q are accepted statically (L2)"))
    return out


def tuple_cases():
    """Nested tuples of symbolic values across calls."""
    return nested_tuple_cases() + shared_variable_tuple_cases()


def shape_value_and_scope_cases():
    out = []
    shape_param = module_text('''
        @R.function
        def fold(s: R.Shape(["a", "b"]), x: R.Tensor(("a * b",), "float32")) -> R.Tensor(("b",), "float32"):
            a = T.int64()
            b = T.int64()
            y = R.reshape(x, R.shape([a, b]))
            z = R.max(y, axis=[0])
            return z

        @R.function
        def main(m: R.Tensor(("r", "c"), "float32")) -> R.Tensor(("c",), "float32"):
            r = T.int64()
            c = T.int64()
            cls = Module
            s = R.shape_of(m)
            flat = R.reshape(m, R.shape([r * c]))
            z = cls.fold(s, flat)
            return z
    ''')
    runs = []
    for r, c in ((1, 1), (3, 5), (2, 1), (1, 4), (3, 0)):
        m = f32(r, c)
        runs.append(([m], m.max(axis=0)))
    out.append(Case("shape_value_binds_callee_variables", shape_param, runs=runs,
                    spec=["SI.SYM.2", "SI.CALL.2", "SI.CALL.4", "CALL.FUNC.2", "EVAL.CHECK.4"],
                    tags=["symbolic", "call", "shape"],
                    description="the callee's a and b come from a shape value; its tensor is a * b long"))
    x6 = f32(6)
    fold_entry_runs = [([Shape([2, 3]), x6], x6.reshape(2, 3).max(axis=0)),
                       ([Shape([1, 0]), f32(0)], np.zeros(0, "float32")),
                       Fails([Shape([2, 3]), f32(5)], "shape_mismatch", "5 != 2 * 3"),
                       Fails([Shape([2, 3, 1]), f32(6)], "ndim_mismatch", "a shape of rank 3")]
    out.append(Case("shape_value_binds_callee_variables_entry", shape_param, entry="fold", runs=fold_entry_runs,
                    spec=["EVAL.CHECK.2", "EVAL.CHECK.3", "EVAL.CHECK.4", "VAL.SHAPE.1"],
                    tags=["symbolic", "check", "shape"],
                    description="a and b bound from a shape parameter, then the tensor's length compared"))
    same_name = module_text('''
        @R.function
        def inner(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.multiply(x, x)
            return y

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
            n = T.int64()
            cls = Module
            one = R.zeros(R.shape([1]), "float32")
            g = R.concat((x, one), axis=0)
            r = cls.inner(g)
            return r
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        g = np.concatenate([x, np.zeros(1, "float32")])
        runs.append(([x], g * g))
    out.append(Case("same_name_distinct_variables_across_functions", same_name, runs=runs,
                    spec=["SI.SYM.5", "WF.SYM.2", "EVAL.ENV.1", "SI.CALL.2", "SI.CALL.4"],
                    tags=["symbolic", "call"],
                    description="main's n and inner's n are different variables; inner's n is bound to main's "
                                "n + 1 in a fresh symbolic environment"))
    ret_fail = module_text('''
        @R.function
        def liar(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.concat((x, x), axis=0)
            z = R.match_cast(y, R.Tensor(ndim=1, dtype="float32"))
            return z

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.liar(x)
            return r
    ''')
    out.append(Case("callee_return_check_across_call", ret_fail,
                    runs=[([f32(0)], np.zeros(0, "float32")), Fails([f32(1)], "shape_mismatch"),
                          Fails([f32(4)], "shape_mismatch")],
                    spec=["CALL.FUNC.4", "DIV.6", "NORM.FUNC.1", "EVAL.CHECK.4"],
                    tags=["symbolic", "call", "check"],
                    description="the callee's body has struct info ndim=1 and its annotation (n,) is kept; the "
                                "return check fails for n > 0 inside the callee"))
    return out


def compound_and_prim_cases():
    out = []
    compound = module_text('''
        @R.function
        def outer(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n * n",), "float32")) -> R.Tensor(("n", "n"), "float32"):
            n = T.int64()
            a = R.reshape(y, R.shape([n, n]))
            b = R.reshape(x, R.shape([n, 1]))
            c = R.add(a, b)
            return c

        @R.function
        def main(x: R.Tensor(("p",), "float32"), y: R.Tensor(("q",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
            cls = Module
            r = cls.outer(x, y)
            return r
    ''')
    runs = []
    for n in (0, 1, 3):
        x, y = f32(n), f32(n * n)
        runs.append(([x, y], y.reshape(n, n) + x.reshape(n, 1)))
    runs += [Fails([f32(2), f32(5)], "shape_mismatch", "5 != 2 * 2"),
             Fails([f32(0), f32(1)], "shape_mismatch", "1 != 0 * 0"),
             Fails([f32(1), f32(0)], "shape_mismatch", "0 != 1 * 1")]
    out.append(Case("compound_dimension_across_call", compound, runs=runs,
                    spec=["SI.CALL.2", "SI.CALL.3", "CALL.FUNC.2", "EVAL.CHECK.4", "SI.ERASE.1"],
                    tags=["symbolic", "call", "check"],
                    description="n * n is not a bare variable, so binding mode does not solve it; the callee "
                                "compares it at run time"))
    prim_shape = module_text('''
        @R.function
        def widen(k: R.Prim(value="n"), s: R.Shape(["n + 1", "n * 3"])) -> R.Shape(["n * 3", "n + 1", "n"]):
            n = T.int64()
            r = R.shape([n * 3, n + 1, n])
            return r

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Shape(["m * 3", "m + 1", "m"]):
            m = T.int64()
            cls = Module
            r = cls.widen(R.prim_value(m), R.shape([m + 1, m * 3]))
            return r
    ''')
    runs = [([f32(m)], Shape([3 * m, m + 1, m])) for m in SIZES]
    out.append(Case("prim_and_shape_parameters_across_call", prim_shape, runs=runs,
                    spec=["SI.SYM.2", "SI.CALL.2", "SI.CALL.4", "EVAL.SHAPE.1", "CALL.FUNC.4"],
                    tags=["symbolic", "call", "shape", "prim"], oracle="hand"))
    widen_runs = [([i64(n), Shape([n + 1, 3 * n])], Shape([3 * n, n + 1, n])) for n in (0, 1, 4)]
    widen_runs += [Fails([i64(2), Shape([4, 6])], "shape_mismatch", "n = 2 needs (3, 6)"),
                   Fails([i64(2), Shape([3, 7])], "shape_mismatch", "n = 2 needs (3, 6)"),
                   Fails([i64(-1), Shape([0, 0])], "shape_mismatch", "n = -1 gives -3 for n * 3")]
    out.append(Case("prim_and_shape_parameters_entry", prim_shape, entry="widen", runs=widen_runs,
                    spec=["EVAL.CHECK.3", "EVAL.CHECK.4", "CALL.FUNC.2", "VAL.SHAPE.1"],
                    tags=["symbolic", "check", "shape", "prim"], oracle="hand",
                    description="n comes from a prim value; both shape entries are expressions compared "
                                "afterwards (a negative n makes n * 3 negative, which no shape entry equals)"))
    return out


def shape_and_scope_cases():
    return shape_value_and_scope_cases() + compound_and_prim_cases()


def erasure_and_phase_cases():
    out = []
    fieldwise = '''
        @R.function
        def parts(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("m",), "float32")):
            m = T.int64()
            z = R.zeros(R.shape([m]), "float32")
            y = R.add(x, x)
            t = (y, z)
            return t

        @R.function
        def want(a: R.Tensor((DIM,), "float32")) -> R.Tensor((DIM,), "float32"):
            return a

        @R.function
        def main(x: R.Tensor((3,), "float32"), s: R.Shape(ndim=1)) -> R.Tensor((DIM,), "float32"):
            cls = Module
            t = cls.parts(x, s)
            FIELD
            r = cls.want(f)
            return r
    '''
    x = f32(3)
    out.append(Case("erasure_is_fieldwise", module_text(fieldwise.replace("DIM", "3").replace("FIELD", "f = t[1]")),
                    runs=[([x, Shape([3])], np.zeros(3, "float32")),
                          Fails([x, Shape([2])], "shape_mismatch", "field 1 has 2 elements"),
                          Fails([x, Shape([0])], "shape_mismatch", "field 1 has 0 elements")],
                    spec=["SI.ERASE.1", "SI.CALL.4", "SI.CALL.3", "CALL.FUNC.2"], tags=["symbolic", "call", "tuple"],
                    description="s has no values, so m is not matched: field 1 of the call's struct info is erased "
                                "to ndim=1 and checked by want at run time"))
    out.append(Invalid("erasure_is_fieldwise_kept_field", module_text(fieldwise.replace("DIM", "4").replace("FIELD", "f = t[0]")),
                       "struct_info", spec=["SI.ERASE.1", "SI.CALL.4", "SI.BASE.9", "SI.CALL.3"],
                       tags=["symbolic", "call", "tuple"],
                       description="field 0 keeps (3,) (n is matched to 3) although field 1 is erased; (4,) rejects it"))
    conflict = module_text('''
        @R.function
        def take(k: R.Prim(value="n"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            r = cls.take(R.prim_value(T.int64(3)), x)
            return r
    ''')
    out.append(Case("binding_mode_conflict_checked_at_run_time", conflict,
                    runs=[Fails([f32(4)], "shape_mismatch", "n = 3 from the prim value, x has 4 elements")],
                    spec=["SI.CALL.2", "SI.CALL.3", "SI.BASE.9", "CALL.FUNC.2"], oracle="spec-rule",
                    tags=["symbolic", "call", "check"],
                    description="binding mode maps n to 3, then compares 4 with it: not provably equal is L2, "
                                "never L0, so the call is accepted and fails in the callee's parameter check"))
    phases = module_text('''
        @R.function
        def main(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            a = R.reshape(x, R.shape([n, 2]))
            b = R.max(a, axis=[1])
            return b
    ''')
    x6 = f32(6)
    runs = [([x6, np.zeros(3, "int32")], x6.reshape(3, 2).max(axis=1)),
            ([f32(0), np.zeros(0, "int32")], np.zeros(0, "float32")),
            Fails([np.zeros(5, "int32"), np.zeros(2, "int32")], "dtype_mismatch",
                  "x has the wrong dtype and the wrong length: the structure phase comes first"),
            Fails([f32(5), np.zeros(2, "float32")], "dtype_mismatch", "y's dtype fails before x's length"),
            Fails([f32(5), np.zeros(2, "int32")], "shape_mismatch", "5 != 2 * 2"),
            Fails([f32(4), np.zeros((2, 1), "int32")], "ndim_mismatch", "y has rank 2")]
    out.append(Case("check_phases_across_parameters", phases, runs=runs,
                    spec=["EVAL.CHECK.1", "EVAL.CHECK.2", "EVAL.CHECK.3", "EVAL.CHECK.4", "CALL.FUNC.2",
                          "CALL.FUNC.5"],
                    tags=["symbolic", "check"],
                    description="kinds, ranks and dtypes of all parameters are checked before any dimension"))
    return out


def dataflow_and_deep_tuple_cases():
    out = []
    df = module_text('''
        @R.function
        def scale(k: R.Prim(value="n"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
            n = T.int64()
            y = R.concat((x, x), axis=0)
            return y

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
            m = T.int64()
            cls = Module
            with R.dataflow():
                a = R.multiply(x, x)
                b = cls.scale(R.prim_value(m), a)
                c = R.add(b, b)
                R.output(c)
            return c
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], np.concatenate([x * x, x * x]) * 2))
    out.append(Case("symbolic_call_in_a_dataflow_block", df, runs=runs,
                    spec=["SI.CALL.4", "EXPR.DATAFLOW.1", "EXPR.PURITY.6", "CALL.FUNC.3"],
                    tags=["symbolic", "call", "dataflow"],
                    description="a pure global function with a symbolic signature called inside a dataflow block"))
    deep = module_text('''
        @R.function
        def main(t: R.Tuple(R.Tuple(R.Tuple(R.Tensor(("n",), "float32"))), R.Shape(["n", "m"]), R.Prim(value="m * n"))) -> R.Tensor(("n",), "float32"):
            a = t[0]
            b = a[0]
            c = b[0]
            d = R.negative(c)
            return d
    ''')
    runs = []
    for n, m in ((0, 2), (1, 1), (3, 4)):
        x = f32(n)
        runs.append(([(((x,),), Shape([n, m]), i64(m * n))], -x))
    runs += [Fails([(((f32(2),),), Shape([3, 1]), i64(6))], "shape_mismatch", "n = 2 from the tensor, 3 in the shape"),
             Fails([(((f32(2),),), Shape([2, 5]), i64(11))], "value_mismatch", "m * n = 10"),
             Fails([((f32(2),), Shape([2, 5]), i64(10))], "type_mismatch", "one tuple level missing")]
    out.append(Case("deeply_nested_tuple_parameter", deep, runs=runs,
                    spec=["SI.SYM.1", "EVAL.CHECK.1", "EVAL.CHECK.2", "EVAL.CHECK.3", "EVAL.CHECK.4", "SI.TUPLE.1"],
                    tags=["symbolic", "check", "tuple"],
                    description="n is defined three tuple levels down; m by the shape; m * n is compared last"))
    ret_expr = module_text('''
        @R.function
        def pad(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
            z = R.zeros(R.shape([1]), "float32")
            y = R.concat((x, z), axis=0)
            return y

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Shape(["m + 1"]), R.Tensor(("m + 1",), "float32")):
            cls = Module
            y = cls.pad(x)
            s = R.shape_of(y)
            r = (s, y)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], (Shape([m + 1]), np.concatenate([x, np.zeros(1, "float32")]))))
    out.append(Case("shape_of_a_call_result", ret_expr, runs=runs,
                    spec=["SI.CALL.4", "CALL.BUILTIN.3", "OP.shape_of.C1", "OP.shape_of.C2", "CALL.FUNC.4"],
                    tags=["symbolic", "call", "shape"],
                    description="shape_of of the call result has struct info R.Shape([m + 1]) from the callee's "
                                "return struct info"))
    return out


def erasure_and_nesting_cases():
    out = []
    erased = module_text('''
        @R.function
        def squeeze(x: R.Tensor(ndim=2, dtype="float32")):
            m = T.int64()
            y = R.match_cast(x, R.Tensor((1, m), "float32"))
            z = R.reshape(y, R.shape([m]))
            return z

        @R.function
        def want(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return v

        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            s = cls.squeeze(x)
            r = cls.want(s)
            return r
    ''')
    x13 = f32(1, 3)
    out.append(Case("return_struct_info_erases_body_variables", erased,
                    runs=[([x13], x13.reshape(3)), Fails([f32(1, 2)], "shape_mismatch", "want's (3,) against 2"),
                          Fails([f32(2, 3)], "match_cast_failed", "squeeze's first dimension must be 1")],
                    spec=["SI.ERASE.5", "SI.ERASE.6", "NORM.FUNC.1", "SI.CALL.3", "CALL.FUNC.2"],
                    tags=["symbolic", "call", "match_cast"],
                    description="squeeze's body defines m, so its return struct info is erased to ndim=1; want "
                                "accepts it statically (L2) and checks it at run time"))
    negative = module_text('''
        @R.function
        def inc(k: R.Prim(value="n"), x: R.Tensor(("n + 1",), "float32")) -> R.Tensor(("n + 1",), "float32"):
            y = R.add(x, x)
            return y

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            m = T.int64()
            cls = Module
            r = cls.inc(R.prim_value(m - 1), x)
            return r
    ''')
    runs = [([x], x + x) for x in (f32(m) for m in SIZES)]
    out.append(Case("prim_value_binds_a_negative_value", negative, runs=runs,
                    spec=["EVAL.CHECK.3", "EVAL.CHECK.4", "SI.SYM.6", "EVAL.PRIM.1", "CALL.FUNC.2"],
                    tags=["symbolic", "call", "prim"],
                    description="for m = 0 the callee's n is bound to -1 by the prim value; the checks use the "
                                "actual values, so x of n + 1 = 0 elements fits"))
    three = module_text('''
        @R.function
        def h(x: R.Tensor(("c",), "float32")) -> R.Tensor(("c + 1",), "float32"):
            z = R.zeros(R.shape([1]), "float32")
            y = R.concat((z, x), axis=0)
            return y

        @R.function
        def g(x: R.Tensor(("b",), "float32")) -> R.Tensor(("b + 2",), "float32"):
            cls = Module
            y = cls.h(x)
            w = cls.h(y)
            return w

        @R.function
        def main(x: R.Tensor(("a",), "float32")) -> R.Tensor(("a + 3",), "float32"):
            cls = Module
            y = cls.g(x)
            w = cls.h(y)
            return w
    ''')
    runs = [([x], np.concatenate([np.zeros(3, "float32"), x])) for x in (f32(m) for m in SIZES)]
    out.append(Case("symbolic_shape_through_nested_calls", three, runs=runs,
                    spec=["SI.CALL.2", "SI.CALL.4", "SI.ERASE.2", "CALL.FUNC.4", "NORM.FUNC.1"],
                    tags=["symbolic", "call"],
                    description="main calls g, which calls h twice: each level substitutes its own variables, "
                                "(a + 2) + 1 is proved equal to a + 3"))
    return out


def more_cases():
    return erasure_and_phase_cases() + dataflow_and_deep_tuple_cases() + erasure_and_nesting_cases()


def generate():
    return {"symbolic_calls": halves_cases() + substitution_cases() + tuple_cases() + shape_and_scope_cases()
            + more_cases()}

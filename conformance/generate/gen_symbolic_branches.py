"""Symbolic variables and If: variables bound by a ``match_cast`` inside a branch (their scope, binding them
in both branches, defining them again after the If), branch-local checks against variables bound before
the If, and the struct info of the join observed where it matters -- by a callee's static argument check
(dtype, rank or kind lost: rejected) or its run-time parameter check (a dimension lost: checked).

Oracles: NumPy restatements of the taken branch; static decisions from SI.LCA.*, SI.BASE.* and SI.CALL.3.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text

RNG = np.random.default_rng(20240726)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def B(v):  # noqa: N802 - reads as a value
    return Prim(bool(v), "bool")


def i64(v):
    return Prim(v, "int64")


SIZES = (0, 1, 4, 5)


def branch_scope_cases():
    out = []
    inside = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape(ndim=1):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n * 2 + 1])
            else:
                s = R.shape([7])
            return s
    ''')
    runs = []
    for n in SIZES:
        runs += [([f32(n), B(True)], Shape([2 * n + 1])), ([f32(n), B(False)], Shape([7]))]
    out.append(Case("branch_variable_used_in_its_branch", inside, runs=runs,
                    spec=["SI.SYM.4", "SI.SYM.7", "EVAL.MATCHCAST.2", "EVAL.IF.1", "EVAL.IF.3", "SI.LCA.3"],
                    tags=["symbolic", "if", "match_cast"], oracle="hand",
                    description="n is defined by a match_cast in the true branch and used there; the join of "
                                "R.Shape([2n+1]) (erased) and R.Shape([7]) has rank 1"))
    both = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape(ndim=1):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n * 2])
            else:
                z = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n + 1])
            return s
    ''')
    runs = []
    for n in SIZES:
        runs += [([f32(n), B(True)], Shape([2 * n])), ([f32(n), B(False)], Shape([n + 1]))]
    out.append(Case("both_branches_bind_the_same_variable", both, runs=runs,
                    spec=["SI.SYM.7", "SI.SYM.4", "EVAL.MATCHCAST.2", "EVAL.IF.3", "EXPR.SCOPE.4", "NORM.SCOPE.1"],
                    tags=["symbolic", "if", "match_cast"], oracle="hand",
                    description="each branch defines the same variable n; only the taken branch binds it"))
    after_use = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape(ndim=1):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n])
            else:
                s = R.shape([1])
            t = R.shape([n + 1])
            return t
    ''')
    out.append(Invalid("branch_variable_used_after_the_if", after_use, "well_formed",
                       spec=["WF.IF.1", "WF.SYM.1", "SI.SYM.7", "EXPR.SCOPE.4"], tags=["symbolic", "if"],
                       description="n, defined in a branch, is used in a shape after the If"))
    after_annot = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor("float32", ndim=1):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
            else:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
            z: R.Tensor((n,), "float32") = R.add(y, y)
            return z
    ''')
    out.append(Invalid("branch_variable_in_an_annotation_after_the_if", after_annot, "well_formed",
                       spec=["WF.IF.1", "WF.SYM.1", "SI.SYM.7"], tags=["symbolic", "if"],
                       description="both branches define n, but neither definition reaches the annotation "
                                   "after the If"))
    again = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=1)):
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                r = R.concat((y, y), axis=0)
            else:
                r = x
            w = R.match_cast(r, R.Tensor((n,), "float32"))
            v = R.multiply(w, w)
            s = R.shape([n * 3])
            t = (v, s)
            return t
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        d = np.concatenate([x, x])
        runs += [([x, B(True)], (d * d, Shape([6 * n]))), ([x, B(False)], (x * x, Shape([3 * n])))]
    out.append(Case("variable_defined_again_after_the_if", again, runs=runs,
                    spec=["SI.SYM.7", "EVAL.MATCHCAST.2", "EVAL.ENV.2", "EVAL.IF.3", "NORM.MATCHCAST.1",
                          "EVAL.SEQ.1"],
                    tags=["symbolic", "if", "match_cast"],
                    description="n is bound to the length of x in the true branch and removed with it; the "
                                "match_cast after the If binds n afresh to the length of the result"))
    return out


def outer_variable_and_condition_cases():
    out = []
    compared = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            if c:
                z = R.match_cast(y, R.Tensor((n,), "float32"))
                r = R.add(x, z)
            else:
                r = x
            return r
    ''')
    runs = []
    for n in (0, 1, 3):
        x, y = f32(n), f32(n)
        runs += [([x, y, B(True)], x + y), ([x, y, B(False)], x)]
    runs += [Fails([f32(2), f32(3), B(True)], "match_cast_failed", "n = 2 is compared, not rebound"),
             Fails([f32(0), f32(1), B(True)], "match_cast_failed", "n = 0, y has 1 element")]
    x2 = f32(2)
    runs.append(([x2, f32(3), B(False)], x2))
    out.append(Case("outer_variable_compared_in_a_branch", compared, runs=runs,
                    spec=["SI.SYM.7", "EVAL.MATCHCAST.2", "EVAL.CHECK.3", "EVAL.IF.1"],
                    tags=["symbolic", "if", "match_cast", "check"],
                    description="n is bound by the parameter; the branch's match_cast compares y with it, and "
                                "fails only when that branch runs"))
    parity = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            c = R.prim_value(n % 2 == 0)
            if c:
                r = R.add(x, x)
            else:
                r = R.negative(x)
            return r
    ''')
    runs = []
    for n in (0, 1, 2, 3, 6, 7):
        x = f32(n)
        runs.append(([x], x + x if n % 2 == 0 else -x))
    out.append(Case("condition_computed_from_a_symbolic_variable", parity, runs=runs,
                    spec=["EVAL.IF.2", "EVAL.PRIM.1", "PRIM.INT.1", "SI.PRIM.2", "NORM.IF.1"],
                    tags=["symbolic", "if", "prim"],
                    description="the condition is a PrimValue of n % 2 == 0; the join of two (n,) tensors "
                                "keeps (n,)"))
    nested = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool"), d: R.Prim("bool")) -> R.Shape(ndim=1):
            n = T.int64()
            m = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                if d:
                    z = R.concat((y, y, y), axis=0)
                    w = R.match_cast(z, R.Tensor((m,), "float32"))
                    s = R.shape([m + n])
                else:
                    s = R.shape([n])
                t = s
            else:
                t = R.shape([0])
            return t
    ''')
    runs = []
    for n in (0, 1, 3):
        x = f32(n)
        runs += [([x, B(True), B(True)], Shape([4 * n])), ([x, B(True), B(False)], Shape([n])),
                 ([x, B(False), B(True)], Shape([0]))]
    out.append(Case("nested_branches_bind_in_turn", nested, runs=runs,
                    spec=["SI.SYM.4", "SI.SYM.7", "EVAL.IF.3", "NORM.SEQ.1", "SI.ERASE.5"],
                    tags=["symbolic", "if", "match_cast"], oracle="hand",
                    description="the outer branch binds n, the inner one m (using n); both are gone after "
                                "their branches"))
    return out


def scope_cases():
    return branch_scope_cases() + outer_variable_and_condition_cases()


def _join_then_call(other: str, call: str) -> str:
    """``main(x, c)``: ``y`` is ``x`` when ``c`` holds, else ``other``; returns ``call`` (a member text
    indented as the functions handed to ``module_text`` are)."""
    return f'''        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            if c:
                y = x
            else:
                y = {other}
            r = {call}
            return r
'''


def _prim_join_then_want(other: str) -> str:
    """``main(c)``: ``p`` is the prim value 3 (int64) when ``c`` holds, else ``other``; returns ``cls.want(p)``."""
    return f'''        @R.function
        def main(c: R.Prim("bool")) -> R.Prim("int64"):
            cls = Module
            if c:
                p = R.prim_value(T.int64(3))
            else:
                p = R.prim_value({other})
            r = cls.want(p)
            return r
'''

def join_loss_cases():
    out = []
    lost_dim = module_text('''
        @R.function
        def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            r = R.multiply(a, b)
            return r

''' + _join_then_call("R.concat((x, x), axis=0)", "cls.pair(y, x)"))
    runs = []
    for n in (1, 3):
        x = f32(n)
        runs += [([x, B(True)], x * x), Fails([x, B(False)], "shape_mismatch", f"2n = {2 * n} against n")]
    runs += [([f32(0), B(True)], np.zeros(0, "float32")), ([f32(0), B(False)], np.zeros(0, "float32"))]
    out.append(Case("join_loses_a_dimension_callee_checks_it", lost_dim, runs=runs,
                    spec=["NORM.IF.1", "SI.LCA.4", "SI.SYM.8", "SI.CALL.3", "CALL.FUNC.2", "CALL.FUNC.3"],
                    tags=["symbolic", "if", "call", "check"],
                    description="the join of (n,) and (n * 2,) is R.Tensor(ndim=1); pair accepts it statically "
                                "(L2) and its parameter check decides (at n = 0 both branches fit)"))
    lost_dtype = module_text('''
        @R.function
        def takes_f32(a: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            return a

''' + _join_then_call('R.astype(x, "int32")', "cls.takes_f32(y)"))
    out.append(Invalid("join_loses_the_dtype_callee_rejects_it", lost_dtype, "struct_info",
                       spec=["SI.LCA.4", "SI.SYM.8", "SI.BASE.5", "SI.CALL.3", "NORM.IF.1"],
                       tags=["symbolic", "if", "call"],
                       description="float32 and int32 branches join to dtype void; an argument of unknown dtype "
                                   "for a float32 parameter is L1, a static error"))
    lost_rank = module_text('''
        @R.function
        def takes_vector(a: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            return a

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            cls = Module
            if c:
                y = x
            else:
                y = R.reshape(x, R.shape([n, 1]))
            r = cls.takes_vector(y)
            return r
    ''')
    out.append(Invalid("join_loses_the_rank_callee_rejects_it", lost_rank, "struct_info",
                       spec=["SI.LCA.4", "SI.SYM.8", "SI.BASE.5", "SI.CALL.3"], tags=["symbolic", "if", "call"],
                       description="(n,) and (n, 1) join to ndim=-1; a vector parameter rejects it (L1)"))
    prim_kept = '''
        @R.function
        def want(k: R.Prim(value=WANT)) -> R.Prim("int64"):
            return k

''' + _prim_join_then_want("T.int64(OTHER)")
    out.append(Invalid("join_keeps_an_equal_prim_value", module_text(prim_kept.replace("WANT", "4").replace("OTHER", "3")),
                       "struct_info", spec=["SI.LCA.2", "SI.BASE.3", "SI.BASE.9", "SI.CALL.3"],
                       tags=["symbolic", "if", "prim"],
                       description="both branches yield 3, so the join is R.Prim(value=3), which a parameter "
                                   "R.Prim(value=4) rejects (L0)"))
    out.append(Case("join_drops_different_prim_values",
                    module_text(prim_kept.replace("WANT", "4").replace("OTHER", "4")),
                    runs=[([B(False)], i64(4)), Fails([B(True)], "value_mismatch", "the branch yields 3")],
                    spec=["SI.LCA.2", "SI.BASE.3", "SI.CALL.3", "CALL.FUNC.2", "EVAL.CHECK.3"],
                    tags=["symbolic", "if", "prim", "check"], oracle="hand",
                    description="branches yield 3 and 4: the join is R.Prim(\"int64\") without a value, "
                                "accepted statically (L2) and checked by the callee"))
    return out


def join_of_prims_and_shapes_cases():
    out = []
    prim_dtype = module_text('''
        @R.function
        def want(k: R.Prim("int64")) -> R.Prim("int64"):
            return k

''' + _prim_join_then_want("T.float32(3)"))
    out.append(Invalid("join_of_prim_dtypes_is_object", prim_dtype, "struct_info",
                       spec=["SI.LCA.2", "SI.LCA.1", "SI.BASE.2", "SI.CALL.3", "SI.SYM.8"],
                       tags=["symbolic", "if", "prim"],
                       description="an int64 and a float32 prim value join to R.Object, which an R.Prim "
                                   "parameter rejects (L1)"))
    shape_rank = module_text('''
        @R.function
        def want(s: R.Shape(ndim=1)) -> R.Shape(ndim=1):
            return s

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=1):
            n = T.int64()
            cls = Module
            if c:
                s = R.shape([n])
            else:
                s = R.shape([n, 1])
            r = cls.want(s)
            return r
    ''')
    out.append(Invalid("join_of_shape_ranks_is_unknown_rank", shape_rank, "struct_info",
                       spec=["SI.LCA.3", "SI.BASE.4", "SI.CALL.3"], tags=["symbolic", "if", "shape"],
                       description="R.Shape([n]) and R.Shape([n, 1]) join to R.Shape(ndim=-1); a rank-1 shape "
                                   "parameter rejects it (L1)"))
    shape_vals = module_text('''
        @R.function
        def want(s: R.Shape(["a", 2])) -> R.Shape(["a", 2]):
            return s

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=2):
            n = T.int64()
            cls = Module
            if c:
                s = R.shape([n, 2])
            else:
                s = R.shape([n, 3])
            r = cls.want(s)
            return r
    ''')
    runs = []
    for n in SIZES:
        runs += [([f32(n), B(True)], Shape([n, 2])),
                 Fails([f32(n), B(False)], "shape_mismatch", "the second entry is 3")]
    out.append(Case("join_of_shape_values_drops_them", shape_vals, runs=runs,
                    spec=["SI.LCA.3", "SI.BASE.4", "SI.CALL.3", "CALL.FUNC.2", "EVAL.CHECK.3"],
                    tags=["symbolic", "if", "shape", "check"], oracle="hand",
                    description="(n, 2) and (n, 3) join to R.Shape(ndim=2) without values; the callee's "
                                "parameter check rejects the second at run time"))
    static_kept = '''
        @R.function
        def want(a: R.Tensor((DIM,), "float32")) -> R.Tensor((DIM,), "float32"):
            return a

        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((DIM,), "float32"):
            cls = Module
            if c:
                y = R.add(x, x)
            else:
                y = R.multiply(x, x)
            r = cls.want(y)
            return r
    '''
    x3 = f32(3)
    out.append(Case("join_keeps_an_equal_shape", module_text(static_kept.replace("DIM", "3")),
                    runs=[([x3, B(True)], x3 + x3), ([x3, B(False)], x3 * x3)],
                    spec=["SI.LCA.4", "SI.CALL.3", "NORM.IF.1"], tags=["symbolic", "if"]))
    out.append(Invalid("join_keeps_an_equal_shape_mismatch", module_text(static_kept.replace("DIM", "4")),
                       "struct_info", spec=["SI.LCA.4", "SI.BASE.5", "SI.BASE.9", "SI.CALL.3"],
                       tags=["symbolic", "if"],
                       description="both branches are (3,), so the join is (3,), which (4,) rejects (L0)"))
    return out


def join_of_tuples_cases():
    out = []
    tuple_len = module_text('''
        @R.function
        def want(t: R.Tuple(R.Tensor(("k",), "float32"), R.Tensor(("k",), "float32"))) -> R.Tensor(("k",), "float32"):
            a = t[0]
            return a

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            if c:
                t = (x, x)
            else:
                t = (x,)
            r = cls.want(t)
            return r
    ''')
    out.append(Invalid("join_of_tuple_lengths_is_object", tuple_len, "struct_info",
                       spec=["SI.LCA.5", "SI.BASE.2", "SI.CALL.3", "SI.SYM.8"], tags=["symbolic", "if", "tuple"],
                       description="tuples of 2 and 1 fields join to R.Object; a tuple parameter rejects it (L1)"))
    tuple_fields = module_text('''
        @R.function
        def want(t: R.Tuple(R.Tensor(("k",), "float32"), R.Shape(["k", "j"]))) -> R.Shape(["j", "k"]):
            k = T.int64()
            j = T.int64()
            r = R.shape([j, k])
            return r

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Shape(ndim=2):
            n = T.int64()
            cls = Module
            if c:
                t = (x, R.shape([n, 1]))
            else:
                t = (x, R.shape([n + 1, 2]))
            r = cls.want(t)
            return r
    ''')
    runs = []
    for n in SIZES:
        runs += [([f32(n), B(True)], Shape([1, n])),
                 Fails([f32(n), B(False)], "shape_mismatch", "the shape's first entry is n + 1")]
    out.append(Case("join_of_tuples_is_fieldwise", tuple_fields, runs=runs,
                    spec=["SI.LCA.5", "SI.LCA.4", "SI.LCA.3", "CALL.FUNC.2", "EVAL.CHECK.3"],
                    tags=["symbolic", "if", "tuple", "check"], oracle="hand",
                    description="field 0 keeps (n,), field 1 loses its values; the callee binds k from the "
                                "tensor and compares the shape"))
    local_extent = module_text('''
        @R.function
        def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            r = R.subtract(a, b)
            return r

        @R.function
        def main(x: R.Tensor(("n",), "float32"), u: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            m = T.int64()
            if c:
                y = R.match_cast(u, R.Tensor((m,), "float32"))
                z = R.multiply(y, y)
            else:
                z = x
            r = cls.pair(z, x)
            return r
    ''')
    runs = []
    for n in (0, 1, 3):
        x, u = f32(n), f32(n)
        runs += [([x, u, B(True)], u * u - x), ([x, u, B(False)], x - x)]
    runs += [Fails([f32(2), f32(3), B(True)], "shape_mismatch", "the branch's m = 3, x has 2"),
             ([f32(2), f32(3), B(False)], np.zeros(2, "float32"))]
    out.append(Case("join_of_a_branch_local_extent", local_extent, runs=runs,
                    spec=["SI.ERASE.5", "SI.SYM.7", "SI.SYM.8", "NORM.IF.1", "CALL.FUNC.2"],
                    tags=["symbolic", "if", "match_cast", "call"],
                    description="the true branch's (m,) is erased at the join (m is branch-local); pair "
                                "checks the result against x at run time"))
    return out


def function_join_cases():
    out = []
    func_join = module_text('''
        @R.function
        def pick(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")):
            n = T.int64()
            if c:
                r = R.add(x, x)
            else:
                one = R.ones(R.shape([1]), "float32")
                r = R.concat((x, one), axis=0)
            return r

        @R.function
        def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            r = R.add(a, b)
            return r

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
            cls = Module
            p = cls.pick(x, c)
            r = cls.pair(p, x)
            return r
    ''')
    runs = []
    for n in (0, 1, 4):
        x = f32(n)
        runs += [([x, B(True)], x + x + x), Fails([x, B(False)], "shape_mismatch", "pick returns n + 1 elements")]
    out.append(Case("function_returning_a_join", func_join, runs=runs,
                    spec=["NORM.FUNC.1", "NORM.IF.1", "SI.LCA.4", "SI.ERASE.5", "SI.CALL.3", "CALL.FUNC.2"],
                    tags=["symbolic", "if", "call"],
                    description="pick has no return annotation: its return struct info is the join "
                                "R.Tensor(ndim=1), which pair accepts statically (L2) and checks against x"))
    return out


def join_cases():
    return join_loss_cases() + join_of_prims_and_shapes_cases() + join_of_tuples_cases() + function_join_cases()


def rebinding_cases():
    out = []
    bare = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Shape:
            n = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n])
            else:
                z = R.match_cast(x, R.Tensor((n,), "float32"))
                s = R.shape([n, n])
            return s
    ''')
    runs = []
    for n in SIZES:
        runs += [([f32(n), B(True)], Shape([n])), ([f32(n), B(False)], Shape([n, n]))]
    out.append(Case("both_branches_bind_a_variable_used_bare", bare, runs=runs,
                    spec=["SI.SYM.7", "EVAL.MATCHCAST.2", "SI.LCA.3", "EVAL.IF.3"],
                    tags=["symbolic", "if", "match_cast", "shape"], oracle="hand",
                    description="both branches bind n and use it as a whole dimension; the join of shapes of "
                                "ranks 1 and 2 is R.Shape(ndim=-1)"))
    twice = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), y: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
            n = T.int64()
            if c:
                a = R.match_cast(x, R.Tensor((n,), "float32"))
                p = R.add(a, a)
            else:
                p = x
            if c:
                b = R.match_cast(y, R.Tensor((n,), "float32"))
                q = R.multiply(b, b)
            else:
                q = y
            t = (p, q)
            return t
    ''')
    runs = []
    for n, m in ((0, 0), (1, 3), (4, 2), (5, 5)):
        x, y = f32(n), f32(m)
        runs += [([x, y, B(True)], (x + x, y * y)), ([x, y, B(False)], (x, y))]
    out.append(Case("second_if_binds_the_variable_afresh", twice, runs=runs,
                    spec=["SI.SYM.7", "EVAL.IF.3", "EVAL.ENV.2", "EVAL.MATCHCAST.2", "DIV.36"],
                    tags=["symbolic", "if", "match_cast"],
                    description="the first If binds n to the length of x; the second binds n again, to the length "
                                "of y, which may differ"))
    shape_branch = module_text('''
        @R.function
        def main(s: R.Shape(ndim=2), c: R.Prim("bool")) -> R.Shape(ndim=2):
            a = T.int64()
            b = T.int64()
            if c:
                u = R.match_cast(s, R.Shape([a, b]))
                r = R.shape([b, a])
            else:
                r = s
            return r
    ''')
    runs = []
    for a, b in ((0, 2), (1, 1), (3, 7)):
        runs += [([Shape([a, b]), B(True)], Shape([b, a])), ([Shape([a, b]), B(False)], Shape([a, b]))]
    runs += [Fails([Shape([1, 2, 3]), B(True)], "ndim_mismatch", "the parameter check: rank 3")]
    out.append(Case("branch_matches_a_shape_value", shape_branch, runs=runs,
                    spec=["SI.SYM.7", "EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "SI.LCA.3"],
                    tags=["symbolic", "if", "match_cast", "shape"], oracle="hand"))
    compare = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            n = T.int64()
            m = T.int64()
            c = R.prim_value(n < m)
            if c:
                r = R.concat((x, y), axis=0)
            else:
                r = R.concat((y, x), axis=0)
            return r
    ''')
    runs = []
    for n, m in ((0, 0), (0, 1), (1, 0), (2, 5), (4, 3)):
        x, y = f32(n), f32(m)
        runs.append(([x, y], np.concatenate([x, y]) if n < m else np.concatenate([y, x])))
    out.append(Case("condition_compares_two_symbolic_variables", compare, runs=runs,
                    spec=["EVAL.IF.2", "EVAL.PRIM.1", "PRIM.BOOL.1", "SI.LCA.4"], tags=["symbolic", "if", "prim"],
                    description="c = (n < m); both branches are (n + m,), which the join keeps"))
    return out


def join_observed_by_match_cast_cases():
    out = []
    rank_join = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=2, dtype="float32"):
            n = T.int64()
            if c:
                y = R.reshape(x, R.shape([n, 1]))
            else:
                y = x
            z = R.match_cast(y, R.Tensor(ndim=2, dtype="float32"))
            return z
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        runs += [([x, B(True)], x.reshape(n, 1)), Fails([x, B(False)], "match_cast_failed", "rank 1")]
    out.append(Case("join_of_ranks_checked_by_a_match_cast", rank_join, runs=runs,
                    spec=["SI.LCA.4", "SI.SYM.8", "EVAL.MATCHCAST.1", "EVAL.CHECK.2", "NORM.MATCHCAST.2"],
                    tags=["symbolic", "if", "match_cast"],
                    description="ranks 2 and 1 join to ndim=-1; a match_cast to rank 2 is accepted statically "
                                "and fails for the rank-1 branch"))
    tup = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1), c: R.Prim("bool")) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=1)):
            n = T.int64()
            k = T.int64()
            if c:
                y = R.match_cast(x, R.Tensor((n,), "float32"))
                z = R.add(y, y)
                t = (z, R.shape([n]))
            else:
                t = (x, R.shape([0]))
            a = t[0]
            b = t[1]
            u = R.match_cast(b, R.Shape([k]))
            r = (a, u)
            return r
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        runs += [([x, B(True)], (x + x, Shape([n]))), ([x, B(False)], (x, Shape([0])))]
    out.append(Case("tuple_join_erases_a_branch_local_field", tup, runs=runs,
                    spec=["SI.ERASE.5", "SI.LCA.5", "SI.LCA.3", "SI.SYM.7", "EVAL.MATCHCAST.2"],
                    tags=["symbolic", "if", "tuple", "match_cast"],
                    description="the true branch's fields mention its own n and are erased at the join; a "
                                "match_cast after the If names the shape's entry afresh"))
    return out


def more_cases():
    return rebinding_cases() + join_observed_by_match_cast_cases()


def generate():
    return {"symbolic_branches": scope_cases() + join_cases() + more_cases()}

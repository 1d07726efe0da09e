"""Closures and higher-order functions with symbolic signatures: ``R.Callable`` parameters whose struct info
binds symbolic variables, local functions called at several sizes, closures made by ``make_closure`` and
called through ``invoke_pure_closure``, and what happens when a function value's own signature does not
hold for the caller's view of it (EVAL.CALL.3, EVAL.CALL.4).

Oracles: NumPy restatements; the failing calls are those EVAL.CALL.3 requires to be checked.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text
from case_helpers import SCALED_CLOSURE_MAIN

RNG = np.random.default_rng(20240727)


#: ``main(s, x)``: the function ``cls.make(s)`` returns, called on ``x`` (the module defines ``make(s)``)
MAKE_THEN_CALL_MAIN = '''        @R.function
        def main(s: R.Tensor(("n",), "float32"), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            f = cls.make(s)
            r = f(x)
            return r
'''


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def B(v):  # noqa: N802
    return Prim(bool(v), "bool")


def i64(v):
    return Prim(v, "int64")


SIZES = (0, 1, 3, 4)

DOUBLER = '''
        @R.function
        def doubler(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.concat((u, u), axis=0)
            return w
'''


def callable_signature_cases():
    out = []
    honest = module_text(DOUBLER + '''
        @R.function
        def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n * 2",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
            y = f(x)
            return y

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
            cls = Module
            r = cls.apply(cls.doubler, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], np.concatenate([x, x])))
    out.append(Case("callable_parameter_with_symbolic_signature", honest, runs=runs,
                    spec=["SI.FUNC.1", "SI.FUNC.4", "SI.BASE.7", "SI.CALL.2", "SI.CALL.4", "EVAL.CALL.3",
                          "EVAL.CHECK.6"],
                    tags=["symbolic", "closure", "higher-order", "call"],
                    description="f's signature binds n at each call; the call f(x) has struct info (m * 2,), "
                                "which doubler's result meets"))
    lie = module_text('''
        @R.function
        def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            y = f(x)
            return y

        @R.function
        def twice(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.concat((u, u), axis=0)
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.apply(cls.twice, x)
            return r
    ''')
    out.append(Case("callable_signature_does_not_hold", lie,
                    runs=[([f32(0)], np.zeros(0, "float32")),
                          Fails([f32(1)], "shape_mismatch", "twice returns 2 elements where f promises 1"),
                          Fails([f32(3)], "shape_mismatch", "6 elements where f promises 3")],
                    spec=["EVAL.CALL.3", "EVAL.CALL.4", "SI.FUNC.4", "EVAL.CHECK.6", "SI.BASE.7", "DIV.32"],
                    tags=["symbolic", "closure", "higher-order", "check"],
                    description="twice's signature (ndim=1 to ndim=1) is L2 against f's, so the call is "
                                "accepted; the result of f(x) is checked against (m,) at the call"))
    observed = module_text('''
        @R.function
        def measure(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Shape(["m"]):
            y = f(x)
            s = R.shape_of(y)
            return s

        @R.function
        def grow(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            one = R.ones(R.shape([1]), "float32")
            w = R.concat((u, one), axis=0)
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Shape(["m"]):
            cls = Module
            r = cls.measure(cls.grow, x)
            return r
    ''')
    out.append(Case("callable_signature_does_not_hold_shape_of", observed,
                    runs=[Fails([f32(m)], "shape_mismatch", f"grow returns {m + 1} elements") for m in (0, 1, 5)],
                    spec=["EVAL.CALL.3", "EVAL.CALL.4", "EVAL.TGI.1", "CALL.BUILTIN.3", "DIV.32"],
                    tags=["symbolic", "closure", "higher-order", "check"], oracle="spec-rule",
                    description="without the check at the call, shape_of(y) would return (m + 1,) from a "
                                "function whose return struct info (m,) is statically satisfied"))
    return out


def callable_signature_field_cases():
    out = []
    tuple_lie = module_text('''
        @R.function
        def first(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32"))), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            t = f(x)
            a = t[0]
            b = t[1]
            c = R.add(a, b)
            return c

        @R.function
        def split(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.concat((u, u), axis=0)
            t = (u, w)
            return t

        @R.function
        def same(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Tensor("float32", ndim=1)):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.negative(u)
            t = (u, w)
            return t

        @R.function
        def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Tensor(("m",), "float32"):
            cls = Module
            if c:
                r = cls.first(cls.same, x)
            else:
                r = cls.first(cls.split, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        runs.append(([f32(m), B(True)], np.zeros(m, "float32")))
    runs += [([f32(0), B(False)], np.zeros(0, "float32")),
             Fails([f32(1), B(False)], "shape_mismatch", "field 1 has 2 elements"),
             Fails([f32(4), B(False)], "shape_mismatch", "field 1 has 8 elements")]
    out.append(Case("callable_signature_does_not_hold_in_a_tuple_field", tuple_lie, runs=runs,
                    spec=["EVAL.CALL.3", "EVAL.TGI.1", "EVAL.CHECK.2", "EVAL.CHECK.4", "SI.BASE.6", "SI.BASE.7"],
                    tags=["symbolic", "closure", "higher-order", "tuple", "check"],
                    description="the second field of the returned tuple contradicts f's signature; the call "
                                "is checked before any TupleGetItem reads the fields"))
    prim_lie = module_text('''
        @R.function
        def ask(f: R.Callable((R.Prim(value="n"),), R.Prim(value="n")), x: R.Tensor(("m",), "float32")) -> R.Prim(value="m"):
            m = T.int64()
            p = f(R.prim_value(m))
            return p

        @R.function
        def succ(k: R.Prim("int64")) -> R.Prim("int64"):
            j = T.int64()
            q = R.match_cast(k, R.Prim(value=j))
            r = R.prim_value(j + 1)
            return r

        @R.function
        def ident(k: R.Prim("int64")) -> R.Prim("int64"):
            return k

        @R.function
        def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Prim("int64"):
            cls = Module
            if c:
                r = cls.ask(cls.ident, x)
            else:
                r = cls.ask(cls.succ, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        runs += [([f32(m), B(True)], i64(m)), Fails([f32(m), B(False)], "value_mismatch", f"succ returns {m + 1}")]
    out.append(Case("callable_signature_does_not_hold_for_a_prim_value", prim_lie, runs=runs,
                    spec=["EVAL.CALL.3", "SI.PRIM.1", "EVAL.CHECK.3", "SI.BASE.3", "SI.BASE.7"],
                    tags=["symbolic", "closure", "higher-order", "prim", "check"],
                    description="f promises to return its argument's value; succ's signature (int64 to "
                                "int64) is L2 against it, and its result is checked at the call"))
    return out


def callable_static_cases():
    out = []
    rank_reject = module_text('''
        @R.function
        def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            y = f(x)
            return y

        @R.function
        def column(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=2):
            w = R.expand_dims(v, axis=[1])
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.apply(cls.column, x)
            return r
    ''')
    out.append(Invalid("callable_return_rank_rejected", rank_reject, "struct_info",
                       spec=["SI.BASE.7", "SI.BASE.5", "SI.CALL.3"], tags=["symbolic", "closure", "higher-order"],
                       description="column returns rank 2 where f's signature says rank 1: L0"))
    loose = module_text('''
        @R.function
        def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            y = f(x)
            return y

        @R.function
        def absval(v: R.Tensor("float32")) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.abs(u)
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.apply(cls.absval, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], np.abs(x)))
    out.append(Case("callable_parameter_of_unknown_rank_accepted", loose, runs=runs,
                    spec=["SI.BASE.7", "SI.CALL.3", "SI.FUNC.4", "EVAL.CALL.3"],
                    tags=["symbolic", "closure", "higher-order"],
                    description="absval's parameter has unknown rank: L1 against f's (n,), raised to L2 for a "
                                "parameter list (covariant, best effort), so the call is accepted"))
    chained = module_text('''
        @R.function
        def twice(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n + 1",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m + 2",), "float32"):
            a = f(x)
            b = f(a)
            return b

        @R.function
        def pad(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            z = R.zeros(R.shape([1]), "float32")
            w = R.concat((z, u), axis=0)
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m + 2",), "float32"):
            cls = Module
            r = cls.twice(cls.pad, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], np.concatenate([np.zeros(2, "float32"), x])))
    out.append(Case("callable_applied_twice_binds_afresh", chained, runs=runs,
                    spec=["SI.FUNC.1", "SI.CALL.2", "SI.CALL.4", "SI.ERASE.2", "EVAL.CALL.3"],
                    tags=["symbolic", "closure", "higher-order"],
                    description="each call of f binds n afresh: f(x) is (m + 1,), f(f(x)) is (m + 2,)"))
    return out


def callable_param_cases():
    return callable_signature_cases() + callable_signature_field_cases() + callable_static_cases()


def local_function_scope_cases():
    out = []
    fresh = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 4 + 2",), "float32"):
            n = T.int64()
            @R.function
            def dup(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k * 2",), "float32"):
                w = R.concat((z, z), axis=0)
                return w
            one = R.ones(R.shape([1]), "float32")
            y = R.concat((x, one), axis=0)
            a = dup(x)
            b = dup(y)
            c = R.concat((a, b), axis=0)
            return c
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        y = np.concatenate([x, np.ones(1, "float32")])
        runs.append(([x], np.concatenate([x, x, y, y])))
    out.append(Case("local_function_symbolic_signature_per_call", fresh, runs=runs,
                    spec=["SI.SYM.4", "EVAL.ENV.1", "EVAL.FUNC.1", "CALL.CLOSURE.1", "SI.CALL.4",
                          "ARITH.PROVE.2"],
                    tags=["symbolic", "closure"],
                    description="dup's k is bound to n, then to n + 1, each call in a fresh environment; the "
                                "result (n * 2 + (n + 1) * 2,) is proved equal to (n * 4 + 2,)"))
    outer_sym = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            @R.function
            def inner(z: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
                w = R.add(z, z)
                return w
            y = inner(x)
            return y
    ''')
    x3 = f32(3)
    out.append(Case("local_function_defines_its_own_variable", outer_sym,
                    runs=[([x3], x3 + x3), ([f32(0)], np.zeros(0, "float32"))],
                    spec=["SI.SYM.4", "DIV.10", "EVAL.FUNC.1", "WF.SYM.1"], tags=["symbolic", "closure"],
                    description="the string dimension in inner's signature defines a variable of inner's own "
                                "(symbolic variables are not captured)"))
    uses_outer = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor("float32", ndim=1):
            n = T.int64()
            @R.function
            def inner(z: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
                w = R.match_cast(z, R.Tensor("float32", ndim=1))
                s = R.zeros(R.shape([n]), "float32")
                return s
            y = inner(x)
            return y
    ''')
    out.append(Invalid("local_function_uses_an_outer_variable", uses_outer, "well_formed",
                       spec=["SI.SYM.4", "WF.SYM.1", "DIV.10", "EXPR.SCOPE.7"], tags=["symbolic", "closure"],
                       description="inner uses the enclosing function's n in a shape: not in scope there"))
    captured = module_text('''
        @R.function
        def make(s: R.Tensor("float32", ndim=1)) -> R.Callable((R.Tensor("float32", ndim=1),), R.Tensor("float32", ndim=1)):
            @R.function
            def add_s(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
                k = T.int64()
                u = R.match_cast(v, R.Tensor((k,), "float32"))
                t = R.match_cast(s, R.Tensor((k,), "float32"))
                w = R.add(u, t)
                return w
            return add_s

''' + MAKE_THEN_CALL_MAIN)
    runs = []
    for n in (0, 1, 5):
        s, x = f32(n), f32(n)
        runs.append(([s, x], x + s))
    runs += [Fails([f32(2), f32(3)], "match_cast_failed", "captured s has 2 elements, v has 3"),
             Fails([f32(1), f32(0)], "match_cast_failed", "captured s has 1 element, v has 0")]
    out.append(Case("returned_closure_checks_a_captured_tensor", captured, runs=runs,
                    spec=["EVAL.FUNC.1", "CALL.CLOSURE.1", "EVAL.MATCHCAST.2", "SI.SYM.4", "EVAL.CALL.3"],
                    tags=["symbolic", "closure", "match_cast"],
                    description="the closure's k comes from its parameter; the captured tensor's length is "
                                "compared with it by a match_cast"))
    return out


def closure_signature_leak_cases():
    out = []
    leaked = module_text('''
        @R.function
        def make(s: R.Tensor("float32", ndim=1)) -> R.Callable((R.Tensor("float32", ndim=1),), R.Tensor("float32", ndim=1)):
            @R.function
            def add_s(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
                k = T.int64()
                t = R.match_cast(s, R.Tensor((k,), "float32"))
                w = R.add(v, t)
                return w
            return add_s

''' + MAKE_THEN_CALL_MAIN)
    out.append(Invalid("returned_closure_signature_variables_reach_the_caller", leaked, "well_formed",
                       spec=["WF.SYM.2", "SI.SYM.5", "NORM.FUNC.1", "DIV.6", "SI.ERASE.3"],
                       tags=["symbolic", "closure"],
                       description="make's body is more specific than its annotation, so its return struct info "
                                   "becomes add_s's signature, whose k then occurs in main's binding of f as well"))
    symbolic_capture = module_text('''
        @R.function
        def make(s: R.Tensor(("n",), "float32")) -> R.Callable((R.Tensor("float32", ndim=1),), R.Tensor("float32", ndim=1)):
            @R.function
            def add_s(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
                w = R.add(v, s)
                return w
            return add_s
    ''')
    out.append(Invalid("local_function_captures_a_tensor_of_symbolic_shape", symbolic_capture, "well_formed",
                       spec=["SI.SYM.4", "WF.SYM.1", "DIV.10", "EXPR.SCOPE.7"], tags=["symbolic", "closure"],
                       description="capturing s is allowed, but its struct info (n,) names the enclosing "
                                   "function's n, which is not in scope inside add_s"))
    same_sig = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
            @R.function
            def neg(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
                w = R.negative(z)
                return w
            @R.function
            def sq(z: R.Tensor(("j",), "float32")) -> R.Tensor(("j",), "float32"):
                w = R.multiply(z, z)
                return w
            if c:
                f = neg
            else:
                f = sq
            r = f(x)
            return r
    ''')
    runs = []
    for n in SIZES:
        x = f32(n)
        runs += [([x, B(True)], -x), ([x, B(False)], x * x)]
    out.append(Case("join_of_equal_signatures_up_to_renaming", same_sig, runs=runs,
                    spec=["SI.3", "SI.LCA.6", "SI.CALL.4", "NORM.IF.1", "EVAL.CALL.3"],
                    tags=["symbolic", "closure", "if"],
                    description="neg's (k,) -> (k,) and sq's (j,) -> (j,) are equal up to renaming, so the join "
                                "keeps the signature and f(x) has struct info (n,)"))
    return out


def closure_join_cases():
    out = []
    diff_sig = module_text('''
        @R.function
        def pair(a: R.Tensor(("m",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            r = R.add(a, b)
            return r

        @R.function
        def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            @R.function
            def neg(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
                w = R.negative(z)
                return w
            @R.function
            def dup(z: R.Tensor(("j",), "float32")) -> R.Tensor(("j * 2",), "float32"):
                w = R.concat((z, z), axis=0)
                return w
            if c:
                f = neg
            else:
                f = dup
            y = f(x)
            r = cls.pair(y, x)
            return r
    ''')
    runs = []
    for n in (1, 3):
        x = f32(n)
        runs += [([x, B(True)], np.zeros(n, "float32")), Fails([x, B(False)], "shape_mismatch", "(2n,) against (n,)")]
    runs += [([f32(0), B(True)], np.zeros(0, "float32")), ([f32(0), B(False)], np.zeros(0, "float32"))]
    out.append(Case("join_of_different_signatures", diff_sig, runs=runs,
                    spec=["SI.LCA.6", "SI.LCA.4", "SI.CALL.4", "CALL.FUNC.2", "SI.SYM.8"],
                    tags=["symbolic", "closure", "if", "check"],
                    description="(k,) -> (k,) and (j,) -> (j * 2,) join to a callable returning ndim=1; pair "
                                "checks the result against x at run time"))
    return out


def local_function_cases():
    return local_function_scope_cases() + closure_signature_leak_cases() + closure_join_cases()


def make_closure_cases():
    out = []
    scaled = '''
        @R.function
        def scaled(x: R.Tensor("float32", ndim=1), s: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            a = R.match_cast(x, R.Tensor((k,), "float32"))
            b = R.match_cast(s, R.Tensor((k,), "float32"))
            w = R.multiply(a, b)
            return w

''' + SCALED_CLOSURE_MAIN
    runs = []
    for n in (0, 1, 4):
        x, s = f32(n), f32(n)
        runs.append(([x, s], x * s))
    runs += [Fails([f32(2), f32(3)], "match_cast_failed", "the captured s has 3 elements"),
             Fails([f32(0), f32(1)], "match_cast_failed", "the captured s has 1 element")]
    out.append(Case("make_closure_captured_after_explicit", module_text(scaled), runs=runs,
                    spec=["CALL.CLOSURE.2", "CALL.CLOSURE.3", "EVAL.CALL.3", "EVAL.MATCHCAST.2", "CALL.ORDER.1"],
                    tags=["symbolic", "closure", "op:make_closure", "op:invoke_pure_closure"],
                    description="the captured s is passed after x; scaled checks both against one k"))
    lie = scaled.replace('''            w = R.multiply(a, b)
            return w''', '''            m = R.multiply(a, b)
            w = R.concat((m, b), axis=0)
            return w''')
    out.append(Case("invoke_pure_closure_result_checked", module_text(lie),
                    runs=[([f32(0), f32(0)], np.zeros(0, "float32")),
                          Fails([f32(1), f32(1)], "shape_mismatch", "the closure returns 2 elements, sinfo_args (1,)"),
                          Fails([f32(3), f32(3)], "shape_mismatch", "6 elements, sinfo_args (3,)")],
                    spec=["CALL.CLOSURE.3", "EVAL.CALL.3", "SI.FUNC.4"],
                    tags=["symbolic", "closure", "op:invoke_pure_closure", "check"],
                    description="invoke_pure_closure's sinfo_args (n,) is checked against what the closure "
                                "returns"))
    return out


def tuple_field_and_recursion_cases():
    out = []
    in_tuple = module_text('''
        @R.function
        def run(t: R.Tuple(R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), R.Tensor(("m",), "float32"))) -> R.Tensor(("m",), "float32"):
            f = t[0]
            x = t[1]
            y = f(x)
            return y

        @R.function
        def sq(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.multiply(u, u)
            return w

        @R.function
        def cut(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.strided_slice(u, axes=[0], begin=[1], end=[k])
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32"), c: R.Prim("bool")) -> R.Tensor(("m",), "float32"):
            cls = Module
            if c:
                r = cls.run((cls.sq, x))
            else:
                r = cls.run((cls.cut, x))
            return r
    ''')
    runs = []
    for m in (0, 1, 3):
        x = f32(m)
        runs.append(([x, B(True)], x * x))
    runs += [Fails([f32(m), B(False)], "shape_mismatch", f"cut returns {m - 1} elements") for m in (1, 3)]
    out.append(Case("callable_taken_from_a_tuple_field", in_tuple, runs=runs,
                    spec=["EVAL.CALL.3", "EVAL.CALL.2", "EVAL.TGI.1", "SI.BASE.7", "SI.TUPLE.1"],
                    tags=["symbolic", "closure", "higher-order", "tuple", "check"],
                    description="the callee is a tuple field; its result is checked against (m,) at the call "
                                "(cut of an empty tensor is empty, so it is not run at m = 0)"))
    rec = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            @R.function
            def rev(w: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
                k = T.int64()
                v = R.match_cast(w, R.Tensor((k,), "float32"))
                c = R.prim_value(k > 1)
                if c:
                    head = R.strided_slice(v, axes=[0], begin=[0], end=[1])
                    tail = R.strided_slice(v, axes=[0], begin=[1], end=[k])
                    t = rev(tail)
                    j = T.int64()
                    u = R.match_cast(t, R.Tensor((j,), "float32"))
                    r = R.concat((u, head), axis=0)
                else:
                    r = v
                return r
            y = rev(x)
            return y
    ''')
    runs = [([x], x[::-1].copy()) for x in (f32(0), f32(1), f32(2), f32(7))]
    out.append(Case("local_recursive_function_shrinking_shape", rec, runs=runs,
                    spec=["EXPR.SCOPE.5", "EVAL.FUNC.1", "CALL.FUNC.6", "SI.SYM.4", "NORM.ANNOT.4", "EVAL.IF.2",
                          "EVAL.ENV.1"],
                    tags=["symbolic", "closure", "recursion", "if"],
                    description="rev binds k afresh at each level (a match_cast in a fresh environment) and "
                                "recurses on k - 1 elements"))
    return out


def callable_shape_and_dataflow_cases():
    out = []
    shape_sig = module_text('''
        @R.function
        def apply(f: R.Callable((R.Shape(["n"]), R.Tensor(("n",), "float32")), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            s = R.shape_of(x)
            y = f(s, x)
            return y

        @R.function
        def halve(s: R.Shape(ndim=1), v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.multiply(u, R.const(0.5, "float32"))
            return w

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.apply(cls.halve, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], x * np.float32(0.5)))
    out.append(Case("callable_with_shape_and_tensor_parameters", shape_sig, runs=runs,
                    spec=["SI.FUNC.1", "SI.SYM.2", "SI.BASE.7", "SI.CALL.4", "EVAL.CALL.3"],
                    tags=["symbolic", "closure", "higher-order", "shape"],
                    description="f's n is bound by a shape parameter and used by the tensor parameter and the "
                                "result"))
    df = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            @R.function
            def mix(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
                w = R.subtract(a, b)
                return w
            with R.dataflow():
                p = R.add(x, y)
                q = mix(p, y)
                r = mix(q, x)
                R.output(r)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        runs.append(([x, y], ((x + y) - y) - x))
    out.append(Case("local_function_called_in_a_dataflow_block", df, runs=runs,
                    spec=["EXPR.PURITY.1", "EXPR.DATAFLOW.1", "CALL.CLOSURE.1", "SI.CALL.4"],
                    tags=["symbolic", "closure", "dataflow"], rtol=1e-5, atol=1e-5,
                    description="a pure local function with a symbolic signature, defined outside the block and "
                                "called inside it"))
    tuple_ret = module_text('''
        @R.function
        def describe(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tuple(R.Tensor(("n",), "float32"), R.Shape(["n", "n"]))), x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m",), "float32"), R.Shape(["m", "m"])):
            t = f(x)
            return t

        @R.function
        def square(v: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor("float32", ndim=1), R.Shape(ndim=2)):
            k = T.int64()
            u = R.match_cast(v, R.Tensor((k,), "float32"))
            w = R.multiply(u, u)
            t = (w, R.shape([k, k]))
            return t

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m",), "float32"), R.Shape(["m", "m"])):
            cls = Module
            r = cls.describe(cls.square, x)
            return r
    ''')
    runs = []
    for m in SIZES:
        x = f32(m)
        runs.append(([x], (x * x, Shape([m, m]))))
    out.append(Case("callable_returning_a_tuple_of_symbolic_values", tuple_ret, runs=runs,
                    spec=["SI.FUNC.1", "SI.CALL.4", "EVAL.CALL.3", "SI.BASE.6", "SI.BASE.7"],
                    tags=["symbolic", "closure", "higher-order", "tuple", "shape"],
                    description="f's result binds nothing but uses n in a tensor and a shape; the call's "
                                "struct info substitutes m in both fields"))
    return out


def captured_shape_cases():
    out = []
    shape_capture = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=2)) -> R.Tensor("float32", ndim=2):
            s = R.shape_of(x)
            @R.function
            def flip(v: R.Tensor("float32", ndim=2)) -> R.Tensor("float32", ndim=2):
                a = T.int64()
                b = T.int64()
                t = R.match_cast(s, R.Shape([a, b]))
                u = R.match_cast(v, R.Tensor((a, b), "float32"))
                w = R.permute_dims(u, axes=[1, 0])
                return w
            y = flip(x)
            return y
    ''')
    runs = [([x], x.T.copy()) for x in (f32(0, 2), f32(1, 1), f32(3, 4))]
    out.append(Case("local_function_captures_a_shape_value", shape_capture, runs=runs,
                    spec=["EVAL.FUNC.1", "CALL.CLOSURE.1", "EVAL.MATCHCAST.2", "SI.SYM.4", "EXPR.SCOPE.7"],
                    tags=["symbolic", "closure", "shape", "match_cast"],
                    description="flip captures a shape value of struct info R.Shape(ndim=2) and names its "
                                "entries a and b itself (symbolic variables are not captured)"))
    return out


def more_cases():
    return tuple_field_and_recursion_cases() + callable_shape_and_dataflow_cases() + captured_shape_cases()


def generate():
    return {"symbolic_closures": callable_param_cases() + local_function_cases() + make_closure_cases()
            + more_cases()}

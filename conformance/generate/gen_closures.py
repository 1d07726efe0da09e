"""Closures, higher-order functions and recursion.

Oracles: NumPy formulas; for recursion the closed form of the recurrence (written in the generator).
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240605)
f32 = f32_sampler(RNG)


def i32(v):
    return np.array(v, "int32")


def capture_cases(x, y, x2):
    """Closures that capture or do not, local higher-order use, a global function as a value."""
    out = []
    capture = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            @R.function
            def inner(z: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                w = R.multiply(x, z)
                return w
            a = inner(y)
            b = inner(a)
            return b
    ''')
    out.append(Case("capture_parameter", capture, runs=[([x, y], x * (x * y))], spec=["VAL.CLOSURE.1", "EVAL.FUNC.1", "CALL.FUNC.1", "EXPR.SCOPE.7", "CALL.CLOSURE.1", "EXPR.SCOPE.1"], tags=["closure"]))
    no_capture = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            @R.function
            def sq(z: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                w = R.multiply(z, z)
                return w
            a = sq(x)
            return a
    ''')
    out.append(Case("no_capture", no_capture, runs=[([x2], x2 * x2)], spec=["EVAL.FUNC.1", "EXPR.FUNC.2", "TEXT.STMT.9"], tags=["closure"]))
    higher = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            @R.function
            def twice(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                a = f(v)
                b = f(a)
                return b
            @R.function
            def inc(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                w = R.add(v, R.const(1.0, "float32"))
                return w
            r = twice(inc, x)
            return r
    ''')
    out.append(Case("higher_order_local", higher, runs=[([x], x + 2)], spec=["VAL.CLOSURE.1", "EVAL.FUNC.1", "CALL.FUNC.1", "SI.FUNC.1", "EVAL.CHECK.6", "EXPR.FUNC.1", "EXPR.FUNC.4"],
                    tags=["closure", "higher-order"]))
    global_as_value = module_text('''
        @R.function
        def double(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = R.add(v, v)
            return w

        @R.function
        def apply(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = f(v)
            return w

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            r = cls.apply(cls.double, x)
            return r
    ''')
    out.append(Case("global_function_as_value", global_as_value, runs=[([x], x + x)],
                    spec=["EVAL.GLOBAL.1", "VAL.CLOSURE.2", "CALL.FUNC.1", "EXPR.GVAR.1", "NORM.GLOBAL.1", "EVAL.CALL.2"], tags=["closure", "higher-order"]))
    return out


def escaping_closure_cases(x, x2):
    """Closures that escape, sit in a tuple, check their parameters, capture closures."""
    out = []
    returned = module_text('''
        @R.function
        def make_scaler(s: R.Tensor((3,), "float32")) -> R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")):
            @R.function
            def scale(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                w = R.multiply(v, s)
                return w
            return scale

        @R.function
        def main(x: R.Tensor((3,), "float32"), s: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            f = cls.make_scaler(s)
            r = f(x)
            return r
    ''')
    s = f32(3)
    out.append(Case("closure_escapes_its_creator", returned, runs=[([x, s], x * s)], spec=["VAL.CLOSURE.1", "EVAL.FUNC.1", "CALL.FUNC.1", "EXPR.SCOPE.7", "EVAL.ALIAS.1", "CALL.CLOSURE.1"],
                    tags=["closure"], description="a closure returned by the function that created it"))
    in_tuple = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32"), c: R.Prim("bool")) -> R.Tensor((2,), "float32"):
            @R.function
            def f(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                w = R.add(v, x)
                return w
            @R.function
            def g(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                w = R.multiply(v, x)
                return w
            fs = (f, g)
            if c:
                h = fs[0]
            else:
                h = fs[1]
            r = h(x)
            return r
    ''')
    out.append(Case("closures_in_tuple", in_tuple,
                    runs=[([x2, Prim(True, "bool")], x2 + x2), ([x2, Prim(False, "bool")], x2 * x2)],
                    spec=["VAL.CLOSURE.1", "EVAL.FUNC.1", "CALL.FUNC.1", "VAL.TUPLE.1", "NORM.IF.1", "SI.LCA.6"], tags=["closure", "if", "tuple"]))
    param_check = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
            @R.function
            def inner(z: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                w = R.add(z, z)
                return w
            r = inner(x)
            return r
    ''')
    out.append(Case("closure_parameter_check", param_check,
                    runs=[([x], x + x), Fails([f32(4)], "shape_mismatch")],
                    spec=["CALL.FUNC.2", "CALL.FUNC.3", "EVAL.CHECK.3"], tags=["closure", "check"],
                    description="calling a closure checks its parameters like any function"))
    capture_closure = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            @R.function
            def add_x(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                w = R.add(v, x)
                return w
            @R.function
            def add_x_twice(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                a = add_x(v)
                b = add_x(a)
                return b
            r = add_x_twice(x)
            return r
    ''')
    out.append(Case("closure_captures_closure", capture_closure, runs=[([x2], x2 * 3)], spec=["VAL.CLOSURE.1", "EVAL.FUNC.1", "CALL.FUNC.1", "EXPR.SCOPE.7"],
                    tags=["closure"], rtol=1e-6))
    return out


def closures():
    x, y = f32(3), f32(3)
    x2 = f32(2)
    return capture_cases(x, y, x2) + escaping_closure_cases(x, x2)


def global_recursion_cases():
    """Self recursion, factorial and mutual recursion of global functions."""
    out = []
    countdown = module_text('''
        @R.function
        def main(n: R.Tensor((), "int32"), acc: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            cls = Module
            c = R.greater(n, R.const(0, "int32"))
            if c:
                m = R.subtract(n, R.const(1, "int32"))
                a = R.add(acc, R.const(2, "int32"))
                r = cls.main(m, a)
            else:
                r = acc
            return r
    ''')
    out.append(Case("global_self_recursion", countdown,
                    runs=[([i32(n), i32(a)], i32(a + 2 * n)) for n, a in ((0, 5), (1, 0), (7, -3), (20, 1))],
                    spec=["MOD.3", "CALL.FUNC.6", "EVAL.IF.1"], tags=["recursion", "if"], description="acc + 2*n computed by recursion on n"))
    fact = module_text('''
        @R.function
        def fact(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            cls = Module
            c = R.less_equal(n, R.const(1, "int64"))
            if c:
                r = R.const(1, "int64")
            else:
                m = R.subtract(n, R.const(1, "int64"))
                f = cls.fact(m)
                r = R.multiply(n, f)
            return r

        @R.function
        def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            cls = Module
            r = cls.fact(n)
            return r
    ''')
    facts = {0: 1, 1: 1, 5: 120, 12: 479001600, 20: 2432902008176640000}
    out.append(Case("factorial", fact,
                    runs=[([np.array(n, "int64")], np.array(v, "int64")) for n, v in facts.items()],
                    spec=["MOD.3", "CALL.FUNC.1"], tags=["recursion", "if"], oracle="hand"))
    mutual = module_text('''
        @R.function
        def is_even(n: R.Tensor((), "int32")) -> R.Tensor((), "bool"):
            cls = Module
            z = R.equal(n, R.const(0, "int32"))
            if z:
                r = R.const(True, "bool")
            else:
                m = R.subtract(n, R.const(1, "int32"))
                r = cls.is_odd(m)
            return r

        @R.function
        def is_odd(n: R.Tensor((), "int32")) -> R.Tensor((), "bool"):
            cls = Module
            z = R.equal(n, R.const(0, "int32"))
            if z:
                r = R.const(False, "bool")
            else:
                m = R.subtract(n, R.const(1, "int32"))
                r = cls.is_even(m)
            return r

        @R.function
        def main(n: R.Tensor((), "int32")) -> R.Tuple(R.Tensor((), "bool"), R.Tensor((), "bool")):
            cls = Module
            a = cls.is_even(n)
            b = cls.is_odd(n)
            return (a, b)
    ''')
    out.append(Case("mutual_recursion", mutual,
                    runs=[([i32(n)], (np.array(n % 2 == 0), np.array(n % 2 == 1))) for n in (0, 1, 6, 11)],
                    spec=["MOD.3", "CALL.FUNC.1"], tags=["recursion", "if"]))
    return out


def local_and_shape_recursion_cases():
    """A recursive local closure, Fibonacci pairs, recursion on a symbolic shape."""
    out = []
    local = module_text('''
        @R.function
        def main(n: R.Tensor((), "int32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            @R.function
            def loop(k: R.Tensor((), "int32"), v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                c = R.greater(k, R.const(0, "int32"))
                if c:
                    k1 = R.subtract(k, R.const(1, "int32"))
                    v1 = R.add(v, x)
                    r = loop(k1, v1)
                else:
                    r = v
                return r
            out = loop(n, x)
            return out
    ''')
    x2 = np.array([0.5, -1.25], "float32")
    out.append(Case("local_recursive_closure", local,
                    runs=[([i32(n), x2], x2 * (n + 1)) for n in (0, 1, 4)],
                    spec=["EXPR.SCOPE.5", "NORM.ANNOT.4", "EXPR.SCOPE.7"], tags=["recursion", "closure"],
                    description="a local function calling itself and capturing x"))
    fib = module_text('''
        @R.function
        def fib(n: R.Tensor((), "int64")) -> R.Tuple(R.Tensor((), "int64"), R.Tensor((), "int64")):
            cls = Module
            c = R.equal(n, R.const(0, "int64"))
            if c:
                r = (R.const(0, "int64"), R.const(1, "int64"))
            else:
                m = R.subtract(n, R.const(1, "int64"))
                p = cls.fib(m)
                a = p[0]
                b = p[1]
                s = R.add(a, b)
                r = (b, s)
            return r

        @R.function
        def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            cls = Module
            p = cls.fib(n)
            r = p[0]
            return r
    ''')
    fibs = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55]
    out.append(Case("fibonacci_pairs", fib,
                    runs=[([np.array(n, "int64")], np.array(fibs[n], "int64")) for n in (0, 1, 2, 10)],
                    spec=["MOD.3", "EVAL.TUPLE.1", "EVAL.TGI.1"], tags=["recursion", "tuple"], oracle="hand"))
    shape_rec = module_text('''
        @R.function
        def halve(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            n = T.int64()
            c = R.prim_value(n > 1)
            if c:
                h = R.strided_slice(x, axes=[0], begin=[0], end=[n // 2])
                r = cls.halve(h)
            else:
                r = x
            return r

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            cls = Module
            r = cls.halve(x)
            return r
    ''')
    v8, v6, v1 = f32(8), f32(6), f32(1)
    out.append(Case("recursion_on_symbolic_shape", shape_rec,
                    runs=[([v8], v8[:1]), ([v6], v6[:1]), ([v1], v1)],
                    spec=["CALL.FUNC.2", "SI.SYM.6", "EVAL.PRIM.1", "EVAL.IF.2"], tags=["recursion", "symbolic"],
                    description="each call binds n afresh; the length halves until it is 1"))
    return out


def recursion():
    return global_recursion_cases() + local_and_shape_recursion_cases()


def generate():
    return {"closures": closures(), "recursion": recursion()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_closures"])

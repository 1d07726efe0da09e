"""In-place calls and what a program may do around them (CALL.INPLACE.*, CALL.IPACKED.*): the result of
an in-place packed function must be its argument itself, a read of the argument after the call sees
the new contents, an argument may be named twice (once in place), and a parameter that the call
consumes (CALL.INPLACE.6) -- the pattern an executor may run without a copy.

Expected values are numpy formulas of the inputs worked out from the rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, module_text

from case_helpers import rng_for

RNG = rng_for("inplace")
TAGS = ["inplace"]
ADD_INPLACE = ('R.call_inplace_packed("conformance.{f}", {a}, {b}, inplace_indices=[0], '
               'sinfo_args=R.Tensor((4,), "float32"))')
SET_ROW = '''
        @T.prim_func
        def add_row(A: T.Buffer((T.int64(6), T.int64(4)), "float32"), V: T.Buffer((T.int64(4),), "float32")):
            for j in range(T.int64(4)):
                A[T.int64(2), j] = A[T.int64(2), j] + V[j]
'''


def _f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _add_row(x, v):
    out = np.array(x)
    out[2] = out[2] + v
    return out


def packed_cases():
    out = []
    a, b = _f32(4), _f32(4)
    other = module_text(f'''
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = {ADD_INPLACE.format(f="add", a="a", b="b")}
            return y
    ''')
    out.append(Case("packed_returns_another_value", other, runs=[Fails([a, b], "packed_func")],
                    spec=["CALL.IPACKED.2", "CALL.PACKED.5", "DIV.39"], tags=TAGS + ["op:call_inplace_packed", "packed", "error"], oracle="spec-rule",
                    description="conformance.add returns a fresh tensor where inplace_indices=[0] declares that the "
                                "result is argument 0 itself"))
    read_after = module_text(f'''
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            y = {ADD_INPLACE.format(f="add_inplace", a="a", b="b")}
            c = R.add(a, b)
            return (y, c)
    ''')
    out.append(Case("packed_argument_read_after_the_call", read_after, runs=[([a, b], (a + b, (a + b) + b))],
                    spec=["CALL.IPACKED.1", "CALL.INPLACE.5", "EVAL.ALIAS.1"], tags=TAGS + ["op:call_inplace_packed", "packed"],
                    description="c reads a after the call and sees a + b"))
    twice = module_text(f'''
        @R.function
        def main(a: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            y = {ADD_INPLACE.format(f="add_inplace", a="a", b="a")}
            return (y, a)
    ''')
    out.append(Case("packed_same_argument_twice", twice, runs=[([a], (a + a, a + a))],
                    spec=["CALL.IPACKED.1", "CALL.INPLACE.5", "EVAL.ALIAS.1"], tags=TAGS + ["op:call_inplace_packed", "packed"],
                    description="a is the in-place argument and the read-only one: it becomes a + a"))
    return out


def tir_cases():
    out = []
    x, v = _f32(6, 4), _f32(4)
    consumed = module_text(SET_ROW + '''
        @R.function
        def main(x: R.Tensor((6, 4), "float32"), v: R.Tensor((4,), "float32")) -> R.Tensor((6, 4), "float32"):
            cls = Module
            y = R.call_tir_inplace(cls.add_row, (x, v), inplace_indices=[0], out_sinfo=R.Tensor((6, 4), "float32"))
            z = R.call_tir_inplace(cls.add_row, (y, v), inplace_indices=[0], out_sinfo=R.Tensor((6, 4), "float32"))
            return z
    ''')
    out.append(Case("tir_parameter_consumed", consumed, runs=[([x, v], _add_row(_add_row(x, v), v))],
                    spec=["CALL.INPLACE.3", "CALL.INPLACE.4", "CALL.INPLACE.6"], tags=TAGS + ["op:call_tir_inplace", "call_tir"],
                    description="x is consumed by two in-place calls and the result returned: row 2 gains 2v"))
    kept = module_text(SET_ROW + '''
        @R.function
        def main(x: R.Tensor((6, 4), "float32"), v: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((6, 4), "float32"), R.Tensor((6, 4), "float32")):
            cls = Module
            s = R.multiply(x, x)
            y = R.call_tir_inplace(cls.add_row, (x, v), inplace_indices=[0], out_sinfo=R.Tensor((6, 4), "float32"))
            t = R.subtract(x, s)
            return (y, t)
    ''')
    out.append(Case("tir_parameter_read_after_the_call", kept, runs=[([x, v], (_add_row(x, v), _add_row(x, v) - x * x))],
                    spec=["CALL.INPLACE.4", "CALL.INPLACE.5", "EVAL.ALIAS.1"], tags=TAGS + ["op:call_tir_inplace", "call_tir"],
                    description="s was computed before the call from the old x; t reads x after it and sees the "
                                "new row 2"))
    return out


def generate():
    return {"inplace": packed_cases() + tir_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_inplace"])

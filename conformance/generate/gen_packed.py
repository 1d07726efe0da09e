"""Packed functions: ``R.call_dps_packed``, ``R.call_packed``, ``R.call_pure_packed``,
``R.call_inplace_packed``.

Only the conformance packed functions of CALL.PACKED.5 are called; their meaning is restated here as
NumPy formulas. A missing function, a failing one, or a call outside a function's domain must give
``packed_func``.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240607)
PK = ["VAL.PACKED.1", "VAL.PACKED.2", "CALL.PACKED.1", "CALL.PACKED.5"]

f32 = f32_sampler(RNG)


def packed_call_cases(a3, b3, a6, b6):
    """call_dps_packed, call_packed, call_pure_packed, identity and call_inplace_packed."""
    out = []
    dps = module_text('''
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            y = R.call_dps_packed("conformance.add_dps", (a, b), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("call_dps_packed", dps, runs=[([a3, b3], a3 + b3), ([a6, b6], a6 + b6)],
                    spec=PK + ["CALL.DPS.1", "CALL.DPS.2", "CALL.PACKED.7"], tags=["packed", "dps"]))
    dps_int = module_text('''
        @R.function
        def main(x: R.Tensor((2, 2), "int32")) -> R.Tensor((2, 2), "int32"):
            with R.dataflow():
                y = R.call_dps_packed("conformance.add_dps", (x, x), out_sinfo=R.Tensor((2, 2), "int32"))
                z = R.add(y, x)
                R.output(z)
            return z
    ''')
    i22 = RNG.integers(-9, 9, (2, 2)).astype("int32")
    out.append(Case("call_dps_packed_in_dataflow", dps_int, runs=[([i22], i22 * 3)],
                    spec=PK + ["CALL.DPS.2", "EXPR.DATAFLOW.1", "EXPR.PURITY.4"], tags=["packed", "dps", "dataflow"]))
    call_packed = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Shape(ndim=2)):
            n = T.int64()
            y = R.call_packed("conformance.add", x, x, sinfo_args=R.Tensor((n,), "float32"))
            s = R.call_packed("conformance.identity", R.shape([n, 2]), sinfo_args=R.Shape(ndim=2))
            return (y, s)
    ''')
    out.append(Case("call_packed", call_packed, runs=[([a3], (a3 + a3, Shape([3, 2])))],
                    spec=PK + ["CALL.PACKED.2", "EXPR.PURITY.1", "EXPR.EXTERN.1", "NORM.GLOBAL.3"], tags=["packed", "impure"]))
    pure_packed = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                s = R.call_pure_packed("conformance.add", x, y, sinfo_args=R.Tensor((2, 3), "float32"))
                z = R.multiply(s, x)
                R.output(z)
            return z
    ''')
    g, h = f32(2, 3), f32(2, 3)
    out.append(Case("call_pure_packed_in_dataflow", pure_packed, runs=[([g, h], (g + h) * g)],
                    spec=PK + ["CALL.PACKED.4", "EXPR.DATAFLOW.1"], tags=["packed", "dataflow"]))
    identity = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
            y = R.call_pure_packed("conformance.identity", x, sinfo_args=R.Tensor((3,), "float32"))
            return (x, y)
    ''')
    out.append(Case("identity", identity, runs=[([a3], (a3, a3))], spec=PK + ["CALL.PACKED.4"],
                    tags=["packed"], oracle="hand"))
    inplace = module_text('''
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = R.call_inplace_packed("conformance.add_inplace", a, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return y
    ''')
    p4, q4 = f32(4), f32(4)
    out.append(Case("call_inplace_packed", inplace, runs=[([p4, q4], p4 + q4)],
                    spec=PK + ["CALL.IPACKED.1", "EVAL.ALIAS.1"], tags=["packed", "inplace"]))
    return out


def packed_failure_cases(a3, b3):
    """Inputs outside a function's domain, missing and raising functions, checked results."""
    out = []
    domain = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            z = R.call_packed("conformance.add", x, y, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
            return z
    ''')
    out.append(Case("outside_domain", domain,
                    runs=[([a3, b3], a3 + b3), Fails([a3, f32(4)], "packed_func", "shapes (3,) and (4,)")],
                    spec=PK + ["CALL.PACKED.3"], tags=["packed", "error"]))
    missing = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_packed("conformance.not_registered", x, sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("missing_function", missing, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["EVAL.EXTERN.1", "CALL.PACKED.3"], tags=["packed", "error"], oracle="spec-rule"))
    failing = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_packed("conformance.fail", x, sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("function_raises", failing, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["CALL.PACKED.3"], tags=["packed", "error"], oracle="spec-rule"))
    missing_dps = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_dps_packed("conformance.not_registered", (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("missing_dps_function", missing_dps, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["CALL.DPS.2", "EVAL.EXTERN.1"], tags=["packed", "dps", "error"],
                    oracle="spec-rule"))
    result_checked = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
            y = R.call_pure_packed("conformance.identity", x, sinfo_args=R.Tensor((4,), "float32"))
            return y
    ''')
    r4 = f32(4)
    out.append(Case("declared_result_is_checked", result_checked,
                    runs=[([r4], r4), Fails([a3], "shape_mismatch", "the packed function returns a (3,) tensor")],
                    spec=PK + ["EVAL.CALL.3", "DIV.19"], tags=["packed", "check"],
                    description="a packed call's sinfo_args are checked against the value it returns"))
    return out


def cases():
    a3, b3, a6, b6 = f32(3), f32(3), f32(6), f32(6)
    return packed_call_cases(a3, b3, a6, b6) + packed_failure_cases(a3, b3)


def generate():
    return {"packed": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_packed"])

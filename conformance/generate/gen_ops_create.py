"""Creation operators (spec/ops/create.md and one page per operator) -- ``full full_like zeros
zeros_like ones ones_like arange tril triu eye eye_like hamming_window`` -- and the data-type
operators ``astype``/``wrap_param`` (category ``op_datatype``).

Each operator gets static and symbolic cases (symbolic ones run at two sizes) and invalid operands;
edge cases follow OP.CREATE.SEM.1-5: fill values converted with TIR's Cast, arange lengths (negative
steps, float ranges), triangles with negative/positive k and a symbolic k, off-diagonal eyes,
periodic/symmetric Hamming windows and the window of size 1; integer wrapping and float truncation
of ``astype``.

Oracles: NumPy formulas written below (the Hamming window in float64 rounded once, compared with
the default tolerance); rejections are the cited constraints.
"""

import math

import numpy as np

from relax_conformance.gen import Case, Invalid, Prim

from case_helpers import module_body, tensor

CATEGORY = "op_create"
DATATYPE = "op_datatype"


def full_cases():
    out = []
    fill = np.array(2.7, "float32")
    xs = [np.zeros(3, "int32"), np.zeros(1, "int32")]
    out.append(Case("full_static", module_body([("v", tensor((), "float32"))], "y = R.full((2, 3), v)",
                                               tensor((2, 3), "float32")),
                    runs=[([fill], np.full((2, 3), 2.7, "float32"))], spec=["OP.full.C1", "OP.full.C3"],
                    tags=["op:full", "create", "static"]))
    out.append(Case("full_symbolic_cast", module_body([("x", tensor(("n",), "int32")), ("v", tensor((), "float32"))],
                                                      'n = T.int64()\ny = R.full((2, n), v, "int32")',
                                                      tensor((2, "n"), "int32")),
                    runs=[([x, fill], np.full((2, x.shape[0]), 2, "int32")) for x in xs],
                    spec=["OP.full.C1", "OP.full.C3", "OP.CREATE.SEM.1"], tags=["op:full", "create", "symbolic"],
                    description="the fill value 2.7 converts to int32 with TIR's Cast (truncation)"))
    out.append(Invalid("full_fill_not_scalar", module_body([("v", tensor((2,), "float32"))], "y = R.full((2, 3), v)",
                                                           tensor((2, 3), "float32")),
                       "struct_info", spec=["OP.full.C2"], tags=["op:full", "create", "invalid"]))
    out.append(Case("full_like", module_body([("x", tensor(("n", 2), "int32")), ("v", tensor((), "float32"))],
                                             "y = R.full_like(x, v)", tensor(("n", 2), "int32")),
                    runs=[([np.zeros((k, 2), "int32"), np.array(-3.5, "float32")], np.full((k, 2), -3, "int32"))
                          for k in (1, 3)],
                    spec=["OP.full_like.C1", "OP.CREATE.SEM.1"], tags=["op:full_like", "create", "symbolic"]))
    out.append(Invalid("full_like_fill_not_scalar",
                       module_body([("x", tensor((2,), "int32")), ("v", tensor((2,), "float32"))], "y = R.full_like(x, v)",
                                   tensor((2,), "int32")),
                       "struct_info", spec=["OP.full_like.C2"], tags=["op:full_like", "create", "invalid"]))
    for op, value in (("zeros", 0), ("ones", 1)):
        out.append(Case(f"{op}_symbolic", module_body([("x", tensor(("n",), "int32"))],
                                                      f'n = T.int64()\ny = R.{op}((n, 2), "float16")',
                                                      tensor(("n", 2), "float16")),
                        runs=[([x], np.full((x.shape[0], 2), value, "float16")) for x in xs],
                        spec=[f"OP.{op}.C1"], tags=[f"op:{op}", "create", "symbolic"]))
        out.append(Case(f"{op}_like_dtype", module_body([("x", tensor(("n", 2), "float32"))], f'y = R.{op}_like(x, "bool")',
                                                        tensor(("n", 2), "bool")),
                        runs=[([np.zeros((k, 2), "float32")], np.full((k, 2), bool(value))) for k in (1, 4)],
                        spec=[f"OP.{op}_like.C1"], tags=[f"op:{op}_like", "create", "symbolic"]))
    return out


def arange_cases():
    out = []
    tags = ["op:arange", "create"]
    out.append(Case("arange_int", module_body([], "y = R.arange(2, 11, 3)", tensor((3,), "int64")),
                    runs=[([], np.arange(2, 11, 3, dtype="int64"))], spec=["OP.arange.C1", "OP.arange.C2"],
                    tags=tags + ["static"]))
    out.append(Case("arange_one_argument", module_body([], 'y = R.arange(4, dtype="int32")', tensor((4,), "int32")),
                    runs=[([], np.arange(4, dtype="int32"))], spec=["OP.arange.C1"], tags=tags))
    out.append(Case("arange_symbolic_end",
                    module_body([("x", tensor(("n",), "float32"))], "n = T.int64()\ny = R.arange(1, n, 3)",
                                tensor(("(n + 1) // 3",), "int64")),
                    runs=[([np.zeros(k, "float32")], np.arange(1, k, 3, dtype="int64")) for k in (8, 2)],
                    spec=["OP.arange.C2", "OP.CREATE.SEM.2"], tags=tags + ["symbolic"],
                    description="length (n - 1 + 3 - 1) // 3 == (n + 1) // 3; run at two sizes"))
    out.append(Case("arange_float", module_body([], "y = R.arange(0.5, 3.0, 0.5)", tensor((5,), "float32")),
                    runs=[([], (np.float32(0.5) + np.float32(0.5) * np.arange(5, dtype="float32")).astype("float32"))],
                    spec=["OP.arange.C2", "OP.CREATE.SEM.2"], tags=tags + ["float"]))
    out.append(Case("arange_negative_step", module_body([], "y = R.arange(5, 0, -2)", tensor((3,), "int64")),
                    runs=[([], np.array([5, 3, 1], "int64"))], spec=["OP.arange.C2", "OP.CREATE.DIV.1"],
                    tags=tags + ["negative-step"], oracle="hand",
                    description="a negative step counts ceil((end - start) / step) elements"))
    out.append(Case("arange_empty", module_body([], "y = R.arange(5, 0, 1)", tensor((0,), "int64")),
                    runs=[([], np.zeros(0, "int64"))], spec=["OP.arange.C2", "OP.CREATE.DIV.1"], tags=tags + ["empty"],
                    oracle="hand"))
    out.append(Invalid("arange_zero_step", module_body([], "y = R.arange(0, 5, 0)", tensor(1, "int64")),
                       "struct_info", spec=["OP.arange.C2"], tags=tags + ["invalid"]))
    return out


def trilu_cases():
    out = []
    x = np.arange(1, 25, dtype="float32").reshape(2, 3, 4)
    out.append(Case("tril_batched", module_body([("x", tensor((2, 3, 4), "float32"))], "y = R.tril(x, -1)",
                                                tensor((2, 3, 4), "float32")),
                    runs=[([x], np.tril(x, -1))], spec=["OP.tril.C1", "OP.CREATE.SEM.3"], tags=["op:tril", "create"]))
    y = np.arange(1, 13, dtype="int32").reshape(3, 4)
    out.append(Case("triu_symbolic_rows", module_body([("x", tensor(("n", 4), "int32"))], "y = R.triu(x, 1)",
                                                      tensor(("n", 4), "int32")),
                    runs=[([y], np.triu(y, 1)), ([y[:1]], np.triu(y[:1], 1))], spec=["OP.triu.C1", "OP.CREATE.SEM.3"],
                    tags=["op:triu", "create", "symbolic"]))
    out.append(Case("triu_prim_k", module_body([("x", tensor((3, 4), "int32")), ("k", 'R.Prim("int64")')], "y = R.triu(x, k)",
                                               tensor((3, 4), "int32")),
                    runs=[([y, Prim(k, "int64")], np.triu(y, k)) for k in (-1, 2)],
                    spec=["OP.triu.C1", "OP.triu.C2", "OP.CREATE.SEM.3"], tags=["op:triu", "create", "prim"]))
    out.append(Invalid("tril_k_tensor", module_body([("x", tensor((3, 3), "float32")), ("k", tensor((), "int64"))],
                                                    "y = R.tril(x, k)", tensor((3, 3), "float32")),
                       "struct_info", spec=["OP.tril.C2"], tags=["op:tril", "create", "invalid"]))
    out.append(Invalid("tril_rank_1", module_body([("x", tensor((4,), "float32"))], "y = R.tril(x)", tensor((4,), "float32")),
                       "struct_info", spec=["OP.tril.C1"], tags=["op:tril", "create", "invalid"]))
    return out


def eye_cases():
    out = []
    out.append(Case("eye_offset", module_body([], 'y = R.eye(3, 4, -1, "int32")', tensor((3, 4), "int32")),
                    runs=[([], np.eye(3, 4, -1, dtype="int32"))], spec=["OP.eye.C1", "OP.CREATE.SEM.4"],
                    tags=["op:eye", "create"]))
    out.append(Case("eye_symbolic", module_body([("x", tensor(("n",), "float32"))], "n = T.int64()\ny = R.eye(n, k=1)",
                                                tensor(("n", "n"), "float32")),
                    runs=[([np.zeros(k, "float32")], np.eye(k, k=1, dtype="float32")) for k in (3, 1)],
                    spec=["OP.eye.C1", "OP.CREATE.SEM.4"], tags=["op:eye", "create", "symbolic"]))
    out.append(Case("eye_like", module_body([("x", tensor(("n", 4), "float32"))], "y = R.eye_like(x, 1)",
                                            tensor(("n", 4), "float32")),
                    runs=[([np.zeros((k, 4), "float32")], np.eye(k, 4, 1, dtype="float32")) for k in (2, 5)],
                    spec=["OP.eye_like.C1", "OP.CREATE.SEM.4"], tags=["op:eye_like", "create", "symbolic"]))
    out.append(Invalid("eye_like_rank_3", module_body([("x", tensor((2, 3, 4), "float32"))], "y = R.eye_like(x)",
                                                      tensor((2, 3, 4), "float32")),
                       "struct_info", spec=["OP.eye_like.C1"], tags=["op:eye_like", "create", "invalid"]))
    return out


def _hamming(n, periodic, alpha, beta):
    if n == 1:
        return np.ones(1)
    m = n + 1 if periodic else n
    return alpha - beta * np.cos(2 * math.pi * np.arange(n) / (m - 1))


def hamming_cases():
    out = []
    tags = ["op:hamming_window", "create"]
    for name, n, periodic in (("hamming_window_periodic", 7, True), ("hamming_window_symmetric", 6, False),
                              ("hamming_window_size_1", 1, False)):
        out.append(Case(name, module_body([], f'y = R.hamming_window({n}, {periodic}, 0.54, 0.46, "float32")',
                                          tensor((n,), "float32")),
                        runs=[([], _hamming(n, periodic, 0.54, 0.46).astype("float32"))],
                        spec=["OP.hamming_window.C1", "OP.CREATE.SEM.5"], tags=tags))
    out.append(Invalid("hamming_window_int_dtype", module_body([], 'y = R.hamming_window(4, True, 0.5, 0.5, "int32")',
                                                               tensor((4,), "int32")),
                       "struct_info", spec=["OP.hamming_window.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("hamming_window_size_0", module_body([], 'y = R.hamming_window(0, True, 0.5, 0.5, "float32")',
                                                            tensor((0,), "float32")),
                       "struct_info", spec=["OP.hamming_window.C3"], tags=tags + ["invalid"]))
    out.append(Invalid("hamming_window_alpha_tensor",
                       module_body([("a", tensor((2,), "float32"))], 'y = R.hamming_window(4, True, a, 0.5, "float32")',
                                   tensor((4,), "float32")),
                       "struct_info", spec=["OP.hamming_window.C1", "OP.INFER.3"], tags=tags + ["invalid"],
                       description="alpha is a prim value: a tensor there is rejected by inference"))
    return out


def datatype_cases():
    out = []
    x = np.array([[1.5, -2.7, 0.0], [100.9, -0.2, 7.0]], "float32")
    out.append(Case("astype_float_to_int_truncates",
                    module_body([("x", tensor(("n", 3), "float32"))], 'y = R.astype(x, "int32")', tensor(("n", 3), "int32")),
                    runs=[([x], np.trunc(x).astype("int32")), ([x[:1]], np.trunc(x[:1]).astype("int32"))],
                    spec=["OP.astype.C1", "PRIM.CAST.2"], tags=["op:astype", "datatype", "symbolic"]))
    i = np.array([0, 200, -300, 127], "int32")
    out.append(Case("astype_int_wraps", module_body([("x", tensor((4,), "int32"))], 'y = R.astype(x, "int8")',
                                                    tensor((4,), "int8")),
                    runs=[([i], ((i.astype("int64") + 128) % 256 - 128).astype("int8"))],
                    spec=["OP.astype.C1", "PRIM.CAST.1"], tags=["op:astype", "datatype", "int"]))
    out.append(Case("astype_to_bool", module_body([("x", tensor((2, 3), "float32"))], 'y = R.astype(x, "bool")',
                                                  tensor((2, 3), "bool")),
                    runs=[([x], x != 0)], spec=["OP.astype.C1", "PRIM.CAST.1"], tags=["op:astype", "datatype", "bool"]))
    out.append(Case("astype_to_float16", module_body([("x", tensor((2, 3), "float32"))], 'y = R.astype(x, "float16")',
                                                     tensor((2, 3), "float16")),
                    runs=[([x], x.astype("float16"))], spec=["OP.astype.C1"], tags=["op:astype", "datatype", "float16"]))
    out.append(Invalid("astype_prim_operand", module_body([("p", 'R.Prim("float32")')], 'y = R.astype(p, "int32")',
                                                          tensor((), "int32")),
                       "struct_info", spec=["OP.astype.C1"], tags=["op:astype", "datatype", "invalid"]))
    out.append(Case("wrap_param", module_body([("x", tensor(("n", 3), "float32"))], 'y = R.wrap_param(x, "float16")',
                                              tensor(("n", 3), "float16")),
                    runs=[([x], x.astype("float16"))], spec=["OP.wrap_param.C1"], tags=["op:wrap_param", "datatype"]))
    return out


def generate():
    return {CATEGORY: full_cases() + arange_cases() + trilu_cases() + eye_cases() + hamming_cases(),
            DATATYPE: datatype_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_create"])

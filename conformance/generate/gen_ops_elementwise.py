"""Element-wise operators (spec/ops/elementwise.md and one page per operator): unary math, binary
broadcasting arithmetic, comparisons and logic, ``clip``, ``where``, ``ewise_fma`` and the
element-wise ``R.nn`` activations.

Every operator gets a case with static shapes and a case with symbolic shapes run at two sizes;
float-only operators get an integer operand that must be rejected, binary operators a dtype mismatch
and a non-broadcastable pair of constant dimensions. The edge cases follow TVM 0.25's kernels where
they differ from NumPy (OP.ELEMWISE.SEM.1 to OP.ELEMWISE.SEM.7): truncating integer ``divide`` and
``mod``, floored ``floor_divide``/``floor_mod``, ``round`` half to even, the NaN rules of
``maximum``/``minimum``/``relu``/``clip``, shifts, bool logic, float16, integer division by zero.

Oracles: every expected value is a NumPy formula, per operator in elementwise_tables.py
(transcendental functions evaluated in float64 and rounded once, ``via_float64``) or written below;
rejections are the cited constraints.
"""

import math

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Run, via_float64

from case_helpers import module, rng_for, tensor
from elementwise_tables import (
    ANY_UNARY, BINARY, FLOAT_UNARY, NN, TRANSCENDENTAL_BINARY, gelu_erf, ints, sign_of, softplus_with, trunc_div,
    tvm_clip, tvm_max, tvm_min, uniform,
)

CATEGORY = "op_elementwise"
EVAL = "OP.ELEMWISE.EVAL.1"
INFER1 = "OP.ELEMWISE.INFER.1"
INFER2 = "OP.ELEMWISE.INFER.2"
RESULT_DTYPE = "OP.ELEMWISE.EVAL.2"


def script(op):
    return f"R.{op}"


def slug(op):
    return op.replace(".", "_")


def unary_module(op, shape, dtype, out_dtype=None, out_shape=None, attrs=""):
    out = tensor(shape if out_shape is None else out_shape, out_dtype or dtype)
    return module([("x", tensor(shape, dtype))], f"{script(op)}(x{attrs})", out)


def binary_module(op, sa, sb, da, db, out_shape, out_dtype):
    return module([("a", tensor(sa, da)), ("b", tensor(sb, db))], f"{script(op)}(a, b)",
                  tensor(out_shape, out_dtype))


# ---------------------------------------------------------------------------------------------------
# Unary operators
# ---------------------------------------------------------------------------------------------------


#: the input dtype of the plain cases of the any-dtype unary operators
ANY_UNARY_DTYPE = {"logical_not": "bool", "bitwise_not": "int32"}


def _any_unary_input(op, rng, shape):
    dt = ANY_UNARY_DTYPE.get(op, "float32")
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dt == "int32":
        return ints(rng, -50, 50, shape)
    return uniform(rng, -4.0, 4.0, shape)


def float_unary_cases():
    out = []
    for op, (fn, (lo, hi)) in FLOAT_UNARY.items():
        ids = [f"OP.{op}.C1", f"OP.{op}.C2", INFER1, EVAL, "PRIM.FLOAT.5"]
        rng = rng_for(op)
        x = uniform(rng, lo, hi, (2, 3))
        out.append(Case(op, unary_module(op, (2, 3), "float32"), runs=[([x], via_float64(fn, x))],
                        spec=ids, tags=[f"op:{op}", "unary", "static"],
                        description=f"{op} of a static float32 tensor"))
        x1, x2 = uniform(rng, lo, hi, (3, 4)), uniform(rng, lo, hi, (1, 7))
        out.append(Case(f"{op}_symbolic", unary_module(op, ("m", "n"), "float32"),
                        runs=[([x1], via_float64(fn, x1)), ([x2], via_float64(fn, x2))],
                        spec=ids + ["NORM.OP.UNARY.1"], tags=[f"op:{op}", "unary", "symbolic"],
                        description=f"{op} keeps the symbolic shape (m, n); run at two sizes"))
        out.append(Invalid(f"{op}_int_operand", unary_module(op, (3,), "int32"), "struct_info",
                           spec=[f"OP.{op}.C1", "NORM.OP.DTYPE.2"], tags=[f"op:{op}", "unary", "invalid"],
                           description=f"{op} requires a float dtype"))
    return out


def any_unary_cases():
    out = []
    for op, (fn, out_dtype) in ANY_UNARY.items():
        ids = [f"OP.{op}.C1", f"OP.{op}.C2", INFER1, EVAL]
        rng = rng_for(op)
        dt = ANY_UNARY_DTYPE.get(op, "float32")
        x = _any_unary_input(op, rng, (2, 3))
        out.append(Case(op, unary_module(op, (2, 3), dt, out_dtype), runs=[([x], fn(x))], spec=ids,
                        tags=[f"op:{op}", "unary", "static"], description=f"{op} of a static {dt} tensor"))
        x1, x2 = _any_unary_input(op, rng, (4,)), _any_unary_input(op, rng, (9,))
        out.append(Case(f"{op}_symbolic", unary_module(op, ("n",), dt, out_dtype),
                        runs=[([x1], fn(x1)), ([x2], fn(x2))], spec=ids + ["NORM.OP.UNARY.1"],
                        tags=[f"op:{op}", "unary", "symbolic"],
                        description=f"{op} keeps the symbolic shape (n,); run at two sizes"))
        out.append(Invalid(f"{op}_prim_operand", module([("x", 'R.Prim("float32")')], f"{script(op)}(x)",
                                                         'R.Prim("float32")'),
                           "struct_info", spec=[f"OP.{op}.C1"], tags=[f"op:{op}", "unary", "invalid"],
                           description=f"{op} takes a tensor, not a prim value"))
    return out


def unary_edge_cases():
    out = []
    # rounding: half to even, negative halves, -0.0
    r = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.7, -3.7, 1e7 + 0.5], "float32")
    out.append(Case("round_half_to_even", unary_module("round", (10,), "float32"), runs=[([r], np.rint(r))],
                    spec=["OP.round.C2", "OP.ELEMWISE.SEM.3", EVAL], tags=["op:round", "unary", "rounding"],
                    oracle="hand", description="round ties to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2"))
    f = np.array([-2.5, -1.0, -0.5, 0.0, 0.5, 2.5, 7.9, -7.9], "float32")
    for op, fn in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)):
        out.append(Case(f"{op}_negative_halves", unary_module(op, (8,), "float32"), runs=[([f], fn(f))],
                        spec=[f"OP.{op}.C2", EVAL], tags=[f"op:{op}", "unary", "rounding"], oracle="hand",
                        description=f"{op} of negative and positive non-integers"))
    i = np.array([-7, -1, 0, 3, 2147483647, -2147483648], "int32")
    for op in ("floor", "ceil", "trunc", "round"):
        out.append(Case(f"{op}_int32_identity", unary_module(op, (6,), "int32"), runs=[([i], i.copy())],
                        spec=[f"OP.{op}.C1", f"OP.{op}.C2", "OP.ELEMWISE.SEM.3"],
                        tags=[f"op:{op}", "unary", "dtype"], oracle="hand",
                        description=f"{op} of an integer tensor is the identity"))
    # integer abs / negative / square wrap
    w = np.array([-5, 0, 7, 2147483647, -2147483648], "int32")
    out.append(Case("abs_int32_wraps", unary_module("abs", (5,), "int32"), runs=[([w], np.abs(w))],
                    spec=["OP.abs.C1", "OP.ELEMWISE.SEM.3", "PRIM.INT.1"], tags=["op:abs", "unary", "dtype"],
                    description="abs of the most negative int32 wraps to itself"))
    out.append(Case("negative_int32_wraps", unary_module("negative", (5,), "int32"), runs=[([w], np.negative(w))],
                    spec=["OP.negative.C1", "OP.ELEMWISE.SEM.3", "PRIM.INT.1"],
                    tags=["op:negative", "unary", "dtype"],
                    description="negating the most negative int32 wraps to itself"))
    sq = np.array([-3, 46341, 65536, 7], "int32")
    with np.errstate(over="ignore"):
        sq_expected = sq * sq
    out.append(Case("square_int32_wraps", unary_module("square", (4,), "int32"), runs=[([sq], sq_expected)],
                    spec=["OP.square.C1", "OP.ELEMWISE.SEM.3", "PRIM.INT.1"], tags=["op:square", "unary", "dtype"],
                    description="integer square wraps modulo 2**32"))
    # sign: NaN gives 0, -0.0 gives 0
    s = np.array([-3.5, -0.0, 0.0, 2.0, np.nan, -np.inf, np.inf], "float32")
    out.append(Case("sign_nan_is_zero", unary_module("sign", (7,), "float32"), runs=[([s], sign_of(s))],
                    spec=["OP.sign.C2", "OP.ELEMWISE.SEM.3", EVAL], tags=["op:sign", "unary", "nan"],
                    oracle="hand", description="sign(NaN) is 0 (x > 0 ? 1 : x < 0 ? -1 : 0)"))
    si = np.array([-9, 0, 4, -2147483648], "int32")
    out.append(Case("sign_int32", unary_module("sign", (4,), "int32"), runs=[([si], np.sign(si))],
                    spec=["OP.sign.C1", "OP.sign.C2", EVAL], tags=["op:sign", "unary", "dtype"]))
    # isnan family on specials and on integers
    v = np.array([0.0, -1.5, np.nan, np.inf, -np.inf, 3.0e38], "float32")
    for op, fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        out.append(Case(f"{op}_specials", unary_module(op, (6,), "float32", "bool"), runs=[([v], fn(v))],
                        spec=[f"OP.{op}.C2", EVAL], tags=[f"op:{op}", "unary", "nan"]))
        iv = np.array([0, -4, 2147483647], "int32")
        out.append(Case(f"{op}_int32_constant", unary_module(op, (3,), "int32", "bool"), runs=[([iv], fn(iv))],
                        spec=[f"OP.{op}.C1", f"OP.{op}.C2", "OP.ELEMWISE.SEM.3"],
                        tags=[f"op:{op}", "unary", "dtype"], oracle="hand",
                        description=f"{op} of integers is a constant"))
    # float16: exact operations and a transcendental one through float32
    rng = rng_for("float16_unary")
    h = uniform(rng, -3.0, 3.0, (2, 4), "float16")
    out.append(Case("negative_float16", unary_module("negative", (2, 4), "float16"), runs=[([h], -h)],
                    spec=["OP.negative.C2", EVAL, "PRIM.FLOAT.4"], tags=["op:negative", "unary", "float16"]))
    out.append(Case("exp_float16", unary_module("exp", (2, 4), "float16"),
                    runs=[Run([h], via_float64(np.exp, h), rtol=2e-3, atol=2e-3)],
                    spec=["OP.exp.C1", "OP.exp.C2", EVAL, "PRIM.FLOAT.5", "OP.ELEMWISE.SEM.7"],
                    tags=["op:exp", "unary", "float16"], description="float16 exp, within float16 accuracy"))
    hs = uniform(rng, 0.0, 5.0, (5,), "float16")
    out.append(Case("sqrt_float16", unary_module("sqrt", (5,), "float16"),
                    runs=[Run([hs], via_float64(np.sqrt, hs), rtol=1e-3, atol=1e-3)],
                    spec=["OP.sqrt.C1", "OP.sqrt.C2", EVAL, "PRIM.FLOAT.4", "OP.ELEMWISE.SEM.7"],
                    tags=["op:sqrt", "unary", "float16"]))
    # special values of transcendental functions (C99 Annex F)
    sp = np.array([0.0, -1.0, np.inf], "float32")
    with np.errstate(all="ignore"):
        out.append(Case("log_special_values", unary_module("log", (3,), "float32"),
                        runs=[([sp], np.log(sp.astype("float64")).astype("float32"))],
                        spec=["OP.log.C2", EVAL, "PRIM.FLOAT.5"], tags=["op:log", "unary", "nan"], oracle="hand",
                        description="log(0) = -inf, log(-1) = NaN, log(inf) = inf"))
    # bitwise_not on other integer widths
    u = np.array([0, 1, 200, 255], "uint8")
    out.append(Case("bitwise_not_uint8", unary_module("bitwise_not", (4,), "uint8"), runs=[([u], np.invert(u))],
                    spec=["OP.bitwise_not.C1", "OP.bitwise_not.C2", EVAL, "PRIM.INT.7"],
                    tags=["op:bitwise_not", "unary", "dtype"]))
    # empty dimension
    e = np.zeros((0, 3), "float32")
    out.append(Case("exp_empty", unary_module("exp", ("n", 3), "float32"),
                    runs=[([e], e.copy()), ([np.ones((2, 3), "float32")], via_float64(np.exp, np.ones((2, 3), "float32")))],
                    spec=["OP.exp.C2", EVAL, "NORM.OP.UNARY.1"], tags=["op:exp", "unary", "empty", "symbolic"],
                    description="a zero-size dimension gives an empty result"))
    # unknown shape: only the rank is known
    out.append(Case("abs_rank_only", module([("x", tensor(2, "float32"))], "R.abs(x)", tensor(2, "float32")),
                    runs=[([np.array([[-1.0, 2.0]], "float32")], np.array([[1.0, 2.0]], "float32"))],
                    spec=["OP.abs.C2", "NORM.OP.UNARY.1", EVAL], tags=["op:abs", "unary", "rank_only"],
                    description="a tensor known only by rank keeps its rank"))
    return out


# ---------------------------------------------------------------------------------------------------
# Binary operators
# ---------------------------------------------------------------------------------------------------


def _dt(x):
    return "bool" if x.dtype == bool else str(x.dtype)


def binary_ids(op):
    return [f"OP.{op}.C1", f"OP.{op}.C2", f"OP.{op}.C3", f"OP.{op}.C4", INFER2, EVAL]


def binary_cases():
    out = []
    for op, (kind, fn, ga, gb) in BINARY.items():
        rng = rng_for(op)
        ids = binary_ids(op)
        extra = ["PRIM.FLOAT.5"] if op in TRANSCENDENTAL_BINARY else []
        a, b = ga(rng, (2, 3)), gb(rng, (2, 3))
        r = fn(a, b)
        out_dt = "bool" if kind == "cmp" else _dt(a)
        out.append(Case(op, binary_module(op, (2, 3), (2, 3), _dt(a), _dt(b), (2, 3), out_dt),
                        runs=[([a, b], np.asarray(r).astype(out_dt))], spec=ids + extra,
                        tags=[f"op:{op}", "binary", "static"], description=f"{op} of two static {_dt(a)} tensors"))
        runs = []
        for m, n in ((3, 4), (1, 6)):
            a, b = ga(rng, (m, n)), gb(rng, (n,))
            runs.append(([a, b], np.asarray(fn(a, b)).astype(out_dt)))
        out.append(Case(f"{op}_symbolic", binary_module(op, ("m", "n"), ("n",), _dt(a), _dt(b), ("m", "n"), out_dt),
                        runs=runs, spec=ids + extra + ["NORM.OP.BCAST.1", "NORM.OP.BCAST.2"],
                        tags=[f"op:{op}", "binary", "symbolic", "broadcast"],
                        description=f"{op} of (m, n) and (n,) broadcasts to (m, n); run at two sizes"))
        out.append(Invalid(f"{op}_not_broadcastable",
                           binary_module(op, (2, 3), (4,), _dt(a), _dt(b), 2, out_dt), "struct_info",
                           spec=[f"OP.{op}.C3", "NORM.OP.BCAST.1"], tags=[f"op:{op}", "binary", "invalid"],
                           description="dimensions 3 and 4 cannot be broadcast"))
        if kind == "arith":
            other = "int32" if _dt(a) == "float32" else "float32"
            if _dt(a) == "bool":
                other, first = "float32", "int32"
            else:
                first = _dt(a)
            out.append(Invalid(f"{op}_dtype_mismatch",
                               binary_module(op, (3,), (3,), first, other, (3,), first), "struct_info",
                               spec=[f"OP.{op}.C2", "NORM.OP.DTYPE.1"], tags=[f"op:{op}", "binary", "invalid"],
                               description=f"{first} and {other} operands: no implicit promotion"))
        out.append(Invalid(f"{op}_shape_operand",
                           module([("a", tensor((3,), _dt(a))), ("s", "R.Shape([3])")], f"{script(op)}(a, s)",
                                  tensor((3,), out_dt)),
                           "struct_info", spec=[f"OP.{op}.C1"], tags=[f"op:{op}", "binary", "invalid"],
                           description="a shape is neither a tensor nor a prim value"))
    return out


def _i32(*v):
    return np.array(v, "int32")


def _f32(*v):
    return np.array(v, "float32")


def _binary_collector():
    """A list of cases and ``bcase``, which appends a binary call on fixed operands to it."""
    out = []

    def bcase(name, op, a, b, expected, spec, tags, description="", oracle="numpy-formula", out_dtype=None):
        out_dt = out_dtype or _dt(np.asarray(expected))
        out.append(Case(name, binary_module(op, a.shape, b.shape, _dt(a), _dt(b), np.asarray(expected).shape, out_dt),
                        runs=[([a, b], expected)], spec=spec, tags=[f"op:{op}", "binary"] + tags,
                        description=description, oracle=oracle))

    return out, bcase


def division_edge_cases():
    """Integer and float division and remainders with negative operands, by zero, overflowing."""
    out, bcase = _binary_collector()
    # integer division family with negative operands (OP.ELEMWISE.SEM.1)
    a, b = _i32(7, -7, 7, -7, 6, -1, 0), _i32(2, 2, -2, -2, 3, 5, -4)
    bcase("divide_int32_truncates", "divide", a, b, trunc_div(a, b),
          ["OP.divide.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.3"], ["integer_division"],
          "integer divide rounds toward zero: -7 / 2 = -3")
    bcase("mod_int32_sign_of_dividend", "mod", a, b, np.fmod(a, b),
          ["OP.mod.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.3"], ["integer_division"],
          "integer mod has the sign of the dividend: -7 mod 2 = -1")
    bcase("floor_divide_int32_negative", "floor_divide", a, b, np.floor_divide(a, b),
          ["OP.floor_divide.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.2"], ["integer_division"],
          "floor_divide rounds toward negative infinity: -7 // 2 = -4")
    bcase("floor_mod_int32_negative", "floor_mod", a, b, np.mod(a, b),
          ["OP.floor_mod.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.2"], ["integer_division"],
          "floor_mod has the sign of the divisor: -7 mod 2 = 1, 7 mod -2 = -1")
    a64, b64 = a.astype("int64"), b.astype("int64")
    bcase("floor_divide_int64_negative", "floor_divide", a64, b64, np.floor_divide(a64, b64),
          ["OP.floor_divide.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.2"], ["integer_division", "dtype"])
    fa, fb = _f32(7.5, -7.5, 7.5, -7.5, -0.5, 6.0), _f32(2.0, 2.0, -2.0, -2.0, 4.0, 3.0)
    bcase("floor_divide_float32_negative", "floor_divide", fa, fb, np.floor(fa / fb),
          ["OP.floor_divide.C4", "OP.ELEMWISE.SEM.1", "PRIM.FLOAT.1"], ["integer_division"])
    bcase("floor_mod_float32_negative", "floor_mod", fa, fb, fa - np.floor(fa / fb) * fb,
          ["OP.floor_mod.C4", "OP.ELEMWISE.SEM.1", "PRIM.FLOAT.1"], ["integer_division"],
          "float floor_mod is a - floor(a / b) * b")
    bcase("mod_float32_fmod", "mod", fa, fb, np.fmod(fa, fb),
          ["OP.mod.C4", "OP.ELEMWISE.SEM.1", "PRIM.FLOAT.1"], ["integer_division"],
          "float mod is C fmod (sign of the dividend)")
    # float division by zero is not an error
    za, zb = _f32(1.0, -1.0, 0.0, 2.0), _f32(0.0, 0.0, 0.0, -0.0)
    with np.errstate(all="ignore"):
        bcase("divide_float32_by_zero", "divide", za, zb, za / zb,
              ["OP.divide.C4", "PRIM.FLOAT.1", EVAL], ["nan"], "float division by zero gives inf or NaN",
              oracle="hand")
    # integer division by zero (OP.ELEMWISE.SEM.1): division_by_zero
    for op, fn in (("divide", trunc_div), ("floor_divide", np.floor_divide), ("mod", np.fmod),
                   ("floor_mod", np.mod)):
        x, y, z = _i32(7, -9, 4), _i32(2, 4, -3), _i32(2, 0, 1)
        out.append(Case(f"{op}_int32_by_zero", binary_module(op, ("n",), ("n",), "int32", "int32", ("n",), "int32"),
                        runs=[([x, y], fn(x, y)), Fails([x, z], "division_by_zero", "the second divisor is 0")],
                        spec=[f"OP.{op}.C4", "OP.ELEMWISE.SEM.1", "PRIM.INT.4", "DIV.15"],
                        tags=[f"op:{op}", "binary", "integer_division", "error"],
                        description=f"integer {op} by zero raises division_by_zero"))
    mn = _i32(-2147483648, 6)
    out.append(Case("divide_int32_overflow", binary_module("divide", (2,), (2,), "int32", "int32", (2,), "int32"),
                    runs=[([_i32(-2147483647, 6), _i32(-1, 3)], _i32(2147483647, 2)),
                          Fails([mn, _i32(-1, 3)], "op_runtime", "-2147483648 / -1 overflows")],
                    spec=["OP.divide.C4", "OP.ELEMWISE.SEM.1"], tags=["op:divide", "binary", "integer_division", "error"],
                    oracle="spec-rule", description="the most negative int32 divided by -1 is an op_runtime error"))
    return out


def comparison_edge_cases():
    """maximum/minimum with NaN, ordered not_equal, mixed dtypes, uint8 comparisons."""
    out, bcase = _binary_collector()
    # NaN handling of maximum / minimum (OP.ELEMWISE.SEM.2)
    nan = np.float32(np.nan)
    na, nb = _f32(nan, 1.0, nan, -2.0, 3.0), _f32(1.0, nan, nan, 5.0, -0.0)
    bcase("maximum_nan", "maximum", na, nb, tvm_max(na, nb), ["OP.maximum.C4", "OP.ELEMWISE.SEM.2"], ["nan"],
          "maximum(a, b) is a > b ? a : b: a NaN first operand is dropped, a NaN second operand kept")
    bcase("minimum_nan", "minimum", na, nb, tvm_min(na, nb), ["OP.minimum.C4", "OP.ELEMWISE.SEM.2"], ["nan"],
          "minimum(a, b) is a < b ? a : b")
    ia, ib = _i32(-3, 5, 2147483647), _i32(4, -8, -2147483648)
    bcase("maximum_int32", "maximum", ia, ib, np.maximum(ia, ib), ["OP.maximum.C4", EVAL], ["dtype"])
    bcase("minimum_int32", "minimum", ia, ib, np.minimum(ia, ib), ["OP.minimum.C4", EVAL], ["dtype"])
    # comparisons with NaN (OP.ELEMWISE.SEM.5) and of mixed dtypes (OP.ELEMWISE.SEM.4)
    ca, cb = _f32(nan, 1.0, nan, 2.0), _f32(1.0, nan, nan, 2.0)
    ordered_ne = (ca != cb) & ~np.isnan(ca) & ~np.isnan(cb)
    bcase("not_equal_nan", "not_equal", ca, cb, ordered_ne, ["OP.not_equal.C4", "OP.ELEMWISE.SEM.5"], ["nan"],
          "float not_equal is an ordered comparison: a NaN operand gives False", oracle="hand")
    for op, fn in (("equal", np.equal), ("less", np.less), ("greater_equal", np.greater_equal)):
        bcase(f"{op}_nan", op, ca, cb, fn(ca, cb), [f"OP.{op}.C4", "OP.ELEMWISE.SEM.5", "PRIM.FLOAT.3"], ["nan"])
    ma, mb = _f32(1.5, -2.0, 3.0), _i32(1, -2, 4)
    bcase("less_mixed_dtypes", "less", ma, mb, ma < mb.astype("float32"),
          ["OP.less.C2", "OP.less.C4", "OP.ELEMWISE.SEM.4", RESULT_DTYPE], ["dtype"],
          "a comparison accepts operands of different dtypes; the int32 operand is converted to float32")
    ua, ub = np.array([0, 200, 255], "uint8"), np.array([1, 100, 255], "uint8")
    bcase("greater_uint8", "greater", ua, ub, ua > ub, ["OP.greater.C4", EVAL], ["dtype"],
          "unsigned comparison")
    return out


def bitwise_and_bool_edge_cases():
    """Bitwise operators, shifts, bool arithmetic and logical_xor."""
    out, bcase = _binary_collector()
    # wrap-around
    with np.errstate(over="ignore"):
        wa, wb = _i32(2147483647, -2147483648, 5), _i32(1, -1, 7)
        bcase("add_int32_wraps", "add", wa, wb, wa + wb, ["OP.add.C4", "PRIM.INT.1", EVAL], ["dtype"],
              "int32 addition wraps modulo 2**32")
        sa, sb = np.array([0, 1, 250], "uint8"), np.array([1, 2, 10], "uint8")
        bcase("subtract_uint8_wraps", "subtract", sa, sb, sa - sb, ["OP.subtract.C4", "PRIM.INT.1", EVAL], ["dtype"],
              "uint8 subtraction wraps modulo 256")
        ma8, mb8 = np.array([100, -128, 16], "int8"), np.array([3, -1, 8], "int8")
        bcase("multiply_int8_wraps", "multiply", ma8, mb8, ma8 * mb8, ["OP.multiply.C4", "PRIM.INT.1", EVAL],
              ["dtype"])
    # shifts (OP.ELEMWISE.SEM.6)
    la, lb = _i32(1, -3, 5, 1), _i32(0, 4, 30, 31)
    shifted = np.left_shift(la.astype("uint32"), lb.astype("uint32")).astype("int32")
    bcase("left_shift_int32", "left_shift", la, lb, shifted,
              ["OP.left_shift.C4", "OP.ELEMWISE.SEM.6", "PRIM.INT.7"], ["shift"],
              "1 << 31 wraps to the most negative int32")
    ra, rb = _i32(-16, -1, 1024, 2147483647), _i32(2, 31, 3, 30)
    bcase("right_shift_int32_arithmetic", "right_shift", ra, rb, np.right_shift(ra, rb),
          ["OP.right_shift.C4", "OP.ELEMWISE.SEM.6", "PRIM.INT.7"], ["shift"],
          "a signed right shift is arithmetic: -16 >> 2 = -4")
    rua, rub = np.array([240, 255, 1], "uint8"), np.array([2, 7, 0], "uint8")
    bcase("right_shift_uint8_logical", "right_shift", rua, rub, np.right_shift(rua, rub),
          ["OP.right_shift.C4", "OP.ELEMWISE.SEM.6", "PRIM.INT.7"], ["shift", "dtype"],
          "an unsigned right shift is logical")
    for op in ("left_shift", "right_shift"):
        x = _i32(1, 2, 3)
        out.append(Case(f"{op}_out_of_range", binary_module(op, (3,), (3,), "int32", "int32", (3,), "int32"),
                        runs=[Fails([x, _i32(1, 32, 0)], "op_runtime", "shift by 32 on int32"),
                              Fails([x, _i32(1, -1, 0)], "op_runtime", "shift by -1")],
                        spec=[f"OP.{op}.C4", "OP.ELEMWISE.SEM.6", "PRIM.INT.7"],
                        tags=[f"op:{op}", "binary", "shift", "error"], oracle="spec-rule",
                        description="a shift amount outside [0, 32) is an op_runtime error"))
    # bool logic
    t, f = True, False
    pa, pb = np.array([t, t, f, f]), np.array([t, f, t, f])
    for op, fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor),
                   ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor),
                   ("equal", np.equal)):
        bcase(f"{op}_bool_truth_table", op, pa, pb, fn(pa, pb), [f"OP.{op}.C4", EVAL], ["bool"], oracle="hand")
    bcase("not_equal_bool", "not_equal", pa, pb, pa != pb, ["OP.not_equal.C4", EVAL], ["bool"], oracle="hand",
          description="not_equal of two bool tensors is exclusive or")
    bcase("add_bool_is_or", "add", pa, pb, pa | pb, ["OP.add.C4", "OP.ELEMWISE.DIV.4"], ["bool"], oracle="hand",
          description="bool arithmetic is integer arithmetic on 0/1 whose result is != 0: add is or")
    lxa, lxb = _i32(0, 3, 5, 0), _i32(0, 0, 6, 9)
    bcase("logical_xor_int32", "logical_xor", lxa, lxb, np.bitwise_xor(lxa, lxb),
          ["OP.logical_xor.C4", "OP.ELEMWISE.SEM.8"], ["dtype"], oracle="hand",
          description="logical_xor of integers is their bitwise xor, as TVM's kernel")
    return out


def float_width_edge_cases():
    """float16 and float64 operands."""
    out, bcase = _binary_collector()
    # float16
    rng = rng_for("float16_binary")
    h1, h2 = uniform(rng, -4, 4, (3, 2), "float16"), uniform(rng, -4, 4, (3, 2), "float16")
    for op, fn in (("add", np.add), ("multiply", np.multiply), ("subtract", np.subtract)):
        bcase(f"{op}_float16", op, h1, h2, fn(h1, h2), [f"OP.{op}.C4", EVAL, "PRIM.FLOAT.4"], ["float16"],
              f"float16 {op} rounds once to float16")
    hd = uniform(rng, 0.5, 4, (3, 2), "float16")
    bcase("divide_float16", "divide", h1, hd, (h1.astype("float32") / hd.astype("float32")).astype("float16"),
          ["OP.divide.C4", EVAL, "PRIM.FLOAT.4"], ["float16"])
    bcase("maximum_float16", "maximum", h1, h2, np.maximum(h1, h2), ["OP.maximum.C4", EVAL], ["float16"])
    # float64
    d1, d2 = uniform(rng, -4, 4, (4,), "float64"), uniform(rng, 0.5, 4, (4,), "float64")
    bcase("divide_float64", "divide", d1, d2, d1 / d2, ["OP.divide.C4", EVAL, "PRIM.FLOAT.1"], ["dtype"])
    return out


def binary_edge_cases():
    return (division_edge_cases()
            + comparison_edge_cases()
            + bitwise_and_bool_edge_cases()
            + float_width_edge_cases())


def broadcast_cases():
    out = []
    rng = rng_for("broadcast")
    ids = ["OP.add.C3", "OP.add.C4", EVAL, "NORM.OP.BCAST.1", "NORM.OP.BCAST.2"]
    a, b = uniform(rng, -3, 3, (2, 3, 4)), uniform(rng, -3, 3, (4,))
    out.append(Case("add_broadcast_rank_mismatch", binary_module("add", (2, 3, 4), (4,), "float32", "float32",
                                                                 (2, 3, 4), "float32"),
                    runs=[([a, b], a + b)], spec=ids, tags=["op:add", "binary", "broadcast"],
                    description="(2, 3, 4) + (4,): the shorter shape is aligned at the right"))
    a, b = uniform(rng, -3, 3, (3, 1)), uniform(rng, -3, 3, (1, 4))
    out.append(Case("add_broadcast_one_dims", binary_module("add", (3, 1), (1, 4), "float32", "float32", (3, 4),
                                                            "float32"),
                    runs=[([a, b], a + b)], spec=ids, tags=["op:add", "binary", "broadcast"],
                    description="(3, 1) + (1, 4) = (3, 4)"))
    a, b = uniform(rng, -3, 3, ()), uniform(rng, -3, 3, (2, 3))
    out.append(Case("multiply_scalar_tensor", binary_module("multiply", (), (2, 3), "float32", "float32", (2, 3),
                                                            "float32"),
                    runs=[([a, b], a * b)], spec=["OP.multiply.C3", "OP.multiply.C4", EVAL, "NORM.OP.BCAST.1"],
                    tags=["op:multiply", "binary", "broadcast"], description="a rank-0 tensor broadcasts"))
    runs = []
    for n, m in ((3, 4), (1, 1), (2, 5)):
        x, y = uniform(rng, -3, 3, (n, 1)), uniform(rng, -3, 3, (1, m))
        runs.append(([x, y], x - y))
    out.append(Case("subtract_broadcast_symbolic_one_dims",
                    binary_module("subtract", ("n", 1), (1, "m"), "float32", "float32", ("n", "m"), "float32"),
                    runs=runs, spec=["OP.subtract.C3", "OP.subtract.C4", EVAL, "NORM.OP.BCAST.1"],
                    tags=["op:subtract", "binary", "broadcast", "symbolic"],
                    description="(n, 1) - (1, m) = (n, m): a literal 1 takes the other side's dimension"))
    x3, y3 = uniform(rng, -3, 3, (3,)), uniform(rng, -3, 3, (3,))
    x1 = uniform(rng, -3, 3, (1,))
    out.append(Case("add_broadcast_symbolic_vs_static",
                    binary_module("add", ("n",), (3,), "float32", "float32", 1, "float32"),
                    runs=[([x3, y3], x3 + y3), ([x1, y3], x1 + y3),
                          Fails([uniform(rng, -3, 3, (2,)), y3], "op_runtime", "n = 2 against 3")],
                    spec=["OP.add.C3", "OP.add.C4", "NORM.OP.BCAST.1", "NORM.OP.BCAST.2", "OP.SEM.2", EVAL],
                    tags=["op:add", "binary", "broadcast", "symbolic", "error"],
                    description="(n,) + (3,) has an unknown shape of rank 1; the sizes are checked at run time"))
    e, f = np.zeros((0, 3), "float32"), uniform(rng, -3, 3, (3,))
    out.append(Case("add_broadcast_empty", binary_module("add", (0, 3), (3,), "float32", "float32", (0, 3), "float32"),
                    runs=[([e, f], e + f)], spec=ids, tags=["op:add", "binary", "broadcast", "empty"],
                    description="broadcasting against a zero-size dimension"))
    e1, e0 = uniform(rng, -3, 3, (2, 1)), np.zeros((2, 0), "float32")
    out.append(Case("multiply_broadcast_one_vs_zero",
                    binary_module("multiply", (2, 1), (2, 0), "float32", "float32", (2, 0), "float32"),
                    runs=[([e1, e0], e1 * e0)], spec=["OP.multiply.C3", "OP.multiply.C4", EVAL, "NORM.OP.BCAST.1"],
                    tags=["op:multiply", "binary", "broadcast", "empty"], description="1 broadcasts to 0"))
    # prim operands and scalar constants
    x = uniform(rng, -3, 3, (2, 3))
    out.append(Case("add_prim_operand",
                    module([("x", tensor((2, 3), "float32")), ("s", 'R.Prim("float32")')], "R.add(x, s)",
                           tensor((2, 3), "float32")),
                    runs=[([x, Prim(2.5, "float32")], x + np.float32(2.5))],
                    spec=["OP.add.C1", "OP.add.C4", "NORM.OP.BCAST.3", EVAL], tags=["op:add", "binary", "prim"],
                    description="a prim value operand broadcasts as a (1,) tensor"))
    out.append(Case("multiply_scalar_constant",
                    module([("x", tensor(("n",), "float32"))], 'R.multiply(x, R.const(-1.5, "float32"))',
                           tensor(("n",), "float32")),
                    runs=[([x[0].copy()], x[0] * np.float32(-1.5)), ([x[1, :2].copy()], x[1, :2] * np.float32(-1.5))],
                    spec=["OP.multiply.C3", "OP.multiply.C4", EVAL], tags=["op:multiply", "binary", "symbolic"],
                    description="a rank-0 constant operand"))
    s0 = uniform(rng, -3, 3, ())
    out.append(Case("add_scalar_and_prim",
                    module([("x", tensor((), "float32")), ("s", 'R.Prim("float32")')], "R.add(x, s)",
                           tensor((1,), "float32")),
                    runs=[([s0, Prim(0.5, "float32")], (s0 + np.float32(0.5)).reshape(1))],
                    spec=["OP.add.C4", "NORM.OP.BCAST.3", "OP.SEM.3", "OP.ELEMWISE.DIV.2"],
                    tags=["op:add", "binary", "prim"],
                    description="a rank-0 tensor plus a prim value has the inferred shape (1,)"))
    out.append(Case("add_two_prims",
                    module([("p", 'R.Prim("int64")'), ("q", 'R.Prim("int64")')], "R.add(p, q)", 'R.Prim("int64")'),
                    runs=[([Prim(40, "int64"), Prim(2, "int64")], Prim(42, "int64"))],
                    spec=["OP.add.C4", "NORM.OP.BCAST.3", "OP.ELEMWISE.DIV.2"], tags=["op:add", "binary", "prim"],
                    oracle="hand", description="two prim operands give a prim value"))
    # bool with another dtype: the result has the left operand's dtype
    bb, ff = np.array([True, False, True]), _f32(0.5, -1.0, 2.0)
    out.append(Case("multiply_float_by_bool",
                    binary_module("multiply", (3,), (3,), "float32", "bool", (3,), "float32"),
                    runs=[([ff, bb], ff * bb.astype("float32"))],
                    spec=["OP.multiply.C2", "OP.multiply.C4", "NORM.OP.DTYPE.1", "OP.ELEMWISE.SEM.4", RESULT_DTYPE],
                    tags=["op:multiply", "binary", "dtype", "bool"],
                    description="float32 * bool is float32: the bool operand is converted"))
    out.append(Case("add_bool_lhs_float",
                    binary_module("add", (3,), (3,), "bool", "float32", (3,), "bool"),
                    runs=[([bb, _f32(0.5, 0.0, -1.0)], np.array([True, False, False]))],
                    spec=["OP.add.C2", "OP.add.C4", "NORM.OP.DTYPE.1", "OP.SEM.3", RESULT_DTYPE, "OP.ELEMWISE.DIV.1", "DIV.23"],
                    tags=["op:add", "binary", "dtype", "bool"], oracle="hand",
                    description="bool + float32 is inferred bool: the float32 sum converted to bool (nonzero)"))
    # where: three-way broadcasting
    c = np.array([[True], [False], [True]])
    w1, w2 = uniform(rng, -3, 3, (1, 4)), uniform(rng, -3, 3, ())
    out.append(Case("where_broadcast_three_way",
                    module([("c", tensor((3, 1), "bool")), ("a", tensor((1, 4), "float32")),
                            ("b", tensor((), "float32"))], "R.where(c, a, b)", tensor((3, 4), "float32")),
                    runs=[([c, w1, w2], np.where(c, w1, w2).astype("float32"))],
                    spec=["OP.where.C3", "OP.where.C4", EVAL], tags=["op:where", "ternary", "broadcast"],
                    description="condition (3, 1), x1 (1, 4), x2 () broadcast to (3, 4)"))
    return out


# ---------------------------------------------------------------------------------------------------
# clip, where, ewise_fma
# ---------------------------------------------------------------------------------------------------


def ternary_cases():
    out = []
    rng = rng_for("clip")
    clip_call = "R.clip(x, R.prim_value(T.float32(-1.0)), R.prim_value(T.float32(1.5)))"
    x = uniform(rng, -3, 3, (2, 3))
    lo, hi = np.float32(-1.0), np.float32(1.5)
    ids = ["OP.clip.C1", "OP.clip.C2", EVAL]
    out.append(Case("clip", module([("x", tensor((2, 3), "float32"))], clip_call, tensor((2, 3), "float32")),
                    runs=[([x], tvm_clip(x, lo, hi))], spec=ids, tags=["op:clip", "unary", "static"]))
    x1, x2 = uniform(rng, -3, 3, (5,)), uniform(rng, -3, 3, (2,))
    out.append(Case("clip_symbolic", module([("x", tensor(("n",), "float32"))], clip_call, tensor(("n",), "float32")),
                    runs=[([x1], tvm_clip(x1, lo, hi)), ([x2], tvm_clip(x2, lo, hi))], spec=ids,
                    tags=["op:clip", "unary", "symbolic"]))
    xn = _f32(np.nan, -5.0, 5.0, 0.25)
    out.append(Case("clip_nan", module([("x", tensor((4,), "float32"))], clip_call, tensor((4,), "float32")),
                    runs=[([xn], tvm_clip(xn, lo, hi))], spec=["OP.clip.C2", "OP.ELEMWISE.SEM.2"],
                    tags=["op:clip", "unary", "nan"], oracle="hand",
                    description="clip is max(min(x, max), min): NaN becomes the upper bound"))
    xi = _i32(-100, -3, 0, 7, 100)
    out.append(Case("clip_int32", module([("x", tensor((5,), "int32"))], "R.clip(x, -3, 7)", tensor((5,), "int32")),
                    runs=[([xi], np.clip(xi, -3, 7).astype("int32"))], spec=ids,
                    tags=["op:clip", "unary", "dtype"],
                    description="int64 literal bounds are converted to the tensor's dtype"))
    out.append(Case("clip_bounds_cast_to_int", module([("x", tensor((4,), "int32"))], "R.clip(x, -1.5, 2.5)",
                                                      tensor((4,), "int32")),
                    runs=[([_i32(-5, -1, 2, 9)], _i32(-1, -1, 2, 2))], spec=ids + ["PRIM.CAST.2"],
                    tags=["op:clip", "unary", "dtype"], oracle="hand",
                    description="float bounds of an int32 clip are truncated to -1 and 2"))
    out.append(Invalid("clip_tensor_bound",
                       module([("x", tensor((3,), "float32")), ("lo", tensor((), "float32"))],
                              "R.clip(x, lo, R.prim_value(T.float32(1.0)))", tensor((3,), "float32")),
                       "struct_info", spec=["OP.clip.C1"], tags=["op:clip", "invalid"],
                       description="the bounds of clip must be PrimValue expressions"))
    # where
    rng = rng_for("where")
    c, a, b = rng.integers(0, 2, (2, 3)).astype(bool), uniform(rng, -3, 3, (2, 3)), uniform(rng, -3, 3, (2, 3))
    wids = ["OP.where.C1", "OP.where.C2", "OP.where.C3", "OP.where.C4", EVAL]
    wmod = module([("c", tensor((2, 3), "bool")), ("a", tensor((2, 3), "float32")), ("b", tensor((2, 3), "float32"))],
                  "R.where(c, a, b)", tensor((2, 3), "float32"))
    out.append(Case("where", wmod, runs=[([c, a, b], np.where(c, a, b))], spec=wids,
                    tags=["op:where", "ternary", "static"]))
    runs = []
    for m, n in ((2, 5), (4, 1)):
        cc, aa, bb = rng.integers(0, 2, (m, n)).astype(bool), ints(rng, -9, 9, (m, n)), ints(rng, -9, 9, (n,))
        runs.append(([cc, aa, bb], np.where(cc, aa, bb).astype("int32")))
    out.append(Case("where_symbolic",
                    module([("c", tensor(("m", "n"), "bool")), ("a", tensor(("m", "n"), "int32")),
                            ("b", tensor(("n",), "int32"))], "R.where(c, a, b)", tensor(("m", "n"), "int32")),
                    runs=runs, spec=wids + ["NORM.OP.BCAST.1"], tags=["op:where", "ternary", "symbolic"]))
    out.append(Invalid("where_condition_not_bool",
                       module([("c", tensor((3,), "int32")), ("a", tensor((3,), "float32")),
                               ("b", tensor((3,), "float32"))], "R.where(c, a, b)", tensor((3,), "float32")),
                       "struct_info", spec=["OP.where.C1"], tags=["op:where", "invalid"]))
    out.append(Invalid("where_dtype_mismatch",
                       module([("c", tensor((3,), "bool")), ("a", tensor((3,), "float32")),
                               ("b", tensor((3,), "int32"))], "R.where(c, a, b)", tensor((3,), "float32")),
                       "struct_info", spec=["OP.where.C2", "NORM.OP.DTYPE.1"], tags=["op:where", "invalid"]))
    out.append(Invalid("where_not_broadcastable",
                       module([("c", tensor((2, 1), "bool")), ("a", tensor((3,), "float32")),
                               ("b", tensor((4,), "float32"))], "R.where(c, a, b)", tensor((2, 3), "float32")),
                       "struct_info", spec=["OP.where.C3", "NORM.OP.BCAST.1"], tags=["op:where", "invalid"]))
    # ewise_fma
    rng = rng_for("ewise_fma")
    fids = ["OP.ewise_fma.C1", "OP.ewise_fma.C2", "OP.ewise_fma.C3", "OP.ewise_fma.C4", EVAL, "OP.ELEMWISE.DIV.5"]
    p, q, r = (uniform(rng, -3, 3, (2, 3)) for _ in range(3))
    fmod = module([("a", tensor((2, 3), "float32")), ("b", tensor((2, 3), "float32")),
                   ("c", tensor((2, 3), "float32"))], "R.ewise_fma(a, b, c)", tensor((2, 3), "float32"))
    out.append(Case("ewise_fma", fmod, runs=[([p, q, r], p * q + r)], spec=fids,
                    tags=["op:ewise_fma", "ternary", "static"],
                    description="x1 * x2 + x3 with two roundings (not fused)"))
    runs = []
    for n in (4, 7):
        p, q, r = (ints(rng, -50, 50, (n,)) for _ in range(3))
        runs.append(([p, q, r], (p * q + r).astype("int32")))
    out.append(Case("ewise_fma_symbolic",
                    module([("a", tensor(("n",), "int32")), ("b", tensor(("n",), "int32")),
                            ("c", tensor(("n",), "int32"))], "R.ewise_fma(a, b, c)", tensor(("n",), "int32")),
                    runs=runs, spec=fids, tags=["op:ewise_fma", "ternary", "symbolic"]))
    out.append(Invalid("ewise_fma_shape_mismatch",
                       module([("a", tensor((3,), "float32")), ("b", tensor((3,), "float32")),
                               ("c", tensor((4,), "float32"))], "R.ewise_fma(a, b, c)", tensor((3,), "float32")),
                       "struct_info", spec=["OP.ewise_fma.C3"], tags=["op:ewise_fma", "invalid"]))
    out.append(Invalid("ewise_fma_symbolic_shapes_unprovable",
                       module([("a", tensor(("n",), "float32")), ("b", tensor(("m",), "float32")),
                               ("c", tensor(("n",), "float32"))], "R.ewise_fma(a, b, c)", tensor(("n",), "float32")),
                       "struct_info", spec=["OP.ewise_fma.C3"], tags=["op:ewise_fma", "invalid", "symbolic"],
                       description="shapes (n,) and (m,) are not provably equal: rejected, no broadcasting"))
    out.append(Invalid("ewise_fma_dtype_mismatch",
                       module([("a", tensor((3,), "float32")), ("b", tensor((3,), "float32")),
                               ("c", tensor((3,), "int32"))], "R.ewise_fma(a, b, c)", tensor((3,), "float32")),
                       "struct_info", spec=["OP.ewise_fma.C2"], tags=["op:ewise_fma", "invalid"]))
    out.append(Invalid("ewise_fma_rank_mismatch",
                       module([("a", tensor((3,), "float32")), ("b", tensor((3,), "float32")),
                               ("c", tensor((3, 1), "float32"))], "R.ewise_fma(a, b, c)", tensor((3,), "float32")),
                       "struct_info", spec=["OP.ewise_fma.C1"], tags=["op:ewise_fma", "invalid"]))
    return out


def fma_open_dtype_cases():
    """ewise_fma with an operand whose dtype is open: OP.SEM.6's run-time re-check on every operand's value."""
    out = []
    a4, b4, c4 = (np.array(v, "int32") for v in ([19, 1, -23, -46], [3, 17, 32, 35], [-2, 31, -41, -12]))
    out.append(Case("ewise_fma_dtype_open_operand",
                    module([("a", tensor(("n",), "int32")), ("b", 'R.Tensor(("n",))'),
                            ("c", tensor(("n",), "int32"))], "R.ewise_fma(a, b, c)", tensor(("n",), "int32")),
                    runs=[([a4, b4, c4], a4 * b4 + c4),
                          Fails([a4, b4.astype("float32"), c4], "op_runtime", "b's value is float32")],
                    spec=["OP.SEM.6", "OP.ewise_fma.C2", "OP.ewise_fma.C3"],
                    tags=["op:ewise_fma", "ternary", "symbolic"],
                    description="b's dtype is open, so the rules run again on the values: n is 4 for all three "
                                "(agrees), and a float32 b differs from the int32 operands (op_runtime)"))
    return out


# ---------------------------------------------------------------------------------------------------
# nn activations
# ---------------------------------------------------------------------------------------------------


def nn_cases():
    out = []
    for op, (fn, attrs, float_only) in NN.items():
        rng = rng_for(op)
        ids = [f"OP.{op}.C1", f"OP.{op}.C2", INFER1, EVAL] + (["PRIM.FLOAT.5"] if op != "nn.relu" else [])
        x = uniform(rng, -4, 4, (2, 3))
        out.append(Case(slug(op), unary_module(op, (2, 3), "float32", attrs=attrs), runs=[([x], via_float64(fn, x))],
                        spec=ids, tags=[f"op:{op}", "unary", "static", "nn"]))
        x1, x2 = uniform(rng, -4, 4, (2, 5)), uniform(rng, -4, 4, (3, 1))
        out.append(Case(f"{slug(op)}_symbolic", unary_module(op, ("m", "n"), "float32", attrs=attrs),
                        runs=[([x1], via_float64(fn, x1)), ([x2], via_float64(fn, x2))],
                        spec=ids + ["NORM.OP.UNARY.1"], tags=[f"op:{op}", "unary", "symbolic", "nn"]))
        if float_only:
            out.append(Invalid(f"{slug(op)}_int_operand", unary_module(op, (3,), "int32", attrs=attrs), "struct_info",
                               spec=[f"OP.{op}.C1", "NORM.OP.DTYPE.2"], tags=[f"op:{op}", "invalid", "nn"]))
    xn = _f32(np.nan, -1.0, 2.0, -0.0)
    out.append(Case("nn_relu_nan", unary_module("nn.relu", (4,), "float32"),
                    runs=[([xn], tvm_max(xn, np.float32(0)))], spec=["OP.nn.relu.C2", "OP.ELEMWISE.SEM.2"],
                    tags=["op:nn.relu", "unary", "nan", "nn"], oracle="hand",
                    description="relu(x) = max(x, 0) maps NaN to 0"))
    xi = _i32(-7, 0, 9)
    out.append(Case("nn_relu_int32", unary_module("nn.relu", (3,), "int32"), runs=[([xi], np.maximum(xi, 0))],
                    spec=["OP.nn.relu.C1", "OP.nn.relu.C2", EVAL], tags=["op:nn.relu", "unary", "dtype", "nn"]))
    xs = _f32(1.4, 1.6, 10.0, -2.0)
    out.append(Case("nn_softplus_default_attrs", unary_module("nn.softplus", (4,), "float32"),
                    runs=[([xs], via_float64(softplus_with(1.0, 20.0), xs))],
                    spec=["OP.nn.softplus.C2", EVAL, "PRIM.FLOAT.5"], tags=["op:nn.softplus", "unary", "nn"],
                    description="beta = 1, threshold = 20 by default"))
    xl = _f32(-2.0, 3.0, -0.5)
    out.append(Case("nn_leakyrelu_default_alpha", unary_module("nn.leakyrelu", (3,), "float32"),
                    runs=[([xl], np.where(xl > 0, xl, xl * np.float32(0.01)))],
                    spec=["OP.nn.leakyrelu.C2", EVAL], tags=["op:nn.leakyrelu", "unary", "nn"],
                    description="alpha = 0.01 by default"))
    rng = rng_for("nn_float16")
    h = uniform(rng, -3, 3, (6,), "float16")
    out.append(Case("nn_gelu_float16", unary_module("nn.gelu", (6,), "float16"),
                    runs=[Run([h], via_float64(gelu_erf, h), rtol=5e-3, atol=5e-3)],
                    spec=["OP.nn.gelu.C2", EVAL, "OP.ELEMWISE.SEM.7"], tags=["op:nn.gelu", "unary", "float16", "nn"],
                    description="float16 gelu (erf through float32), within float16 accuracy"))
    out.append(Case("nn_relu_float16", unary_module("nn.relu", (6,), "float16"), runs=[([h], np.maximum(h, 0))],
                    spec=["OP.nn.relu.C2", EVAL], tags=["op:nn.relu", "unary", "float16", "nn"]))
    return out


def generate():
    cases = (float_unary_cases() + any_unary_cases() + unary_edge_cases() + binary_cases() + binary_edge_cases()
             + broadcast_cases() + ternary_cases() + fma_open_dtype_cases() + nn_cases())
    return {CATEGORY: cases}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_elementwise"])

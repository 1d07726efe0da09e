"""Reductions and scans (spec/ops/statistical.md and one page per operator): ``sum prod mean variance
std max min median cumsum cumprod``.

Every reduction gets a static case (negative axes), a symbolic case with ``keepdims`` run at two
sizes, an all-axes integer case, and invalid axes (out of range, repeated). Edge cases follow
OP.STAT.SEM.1-7: empty reductions give the identity, the NaN rule of max/min, bool sums, integer
mean truncation, float16 accumulation, the lower median, exclusive scans and dtype conversion.

Oracles: NumPy formulas written below (float sums evaluated in float64 and rounded once,
``via_float64``, compared with the default tolerance; integer results exact); rejections are the
cited constraints.
"""


import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, via_float64

from case_helpers import module, rng_for, tensor

CATEGORY = "op_statistical"
REDUCTIONS = ("sum", "prod", "mean", "variance", "std", "max", "min")


#: the NumPy method of each reduction
NUMPY_REDUCTION = {"sum": "sum", "prod": "prod", "mean": "mean", "variance": "var", "std": "std", "max": "max",
                   "min": "min"}


def _f64(op, x, axis, keepdims):
    ax = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    return getattr(np.asarray(x, "float64"), NUMPY_REDUCTION[op])(axis=ax, keepdims=keepdims)


def _int_reduce(op, x, axis, keepdims):
    """The integer rules of OP.STAT.SEM.1/5: int32 wrapping sums, truncating int64 division."""
    ax = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    count = int(np.prod([x.shape[a] for a in ax]))

    def tdiv(s):
        return np.sign(s) * (np.abs(s) // count)

    if op == "sum":
        return x.sum(axis=ax, keepdims=keepdims, dtype="int32")
    if op == "prod":
        return x.prod(axis=ax, keepdims=keepdims, dtype="int32")
    if op == "max":
        return x.max(axis=ax, keepdims=keepdims)
    if op == "min":
        return x.min(axis=ax, keepdims=keepdims)
    mean = tdiv(x.sum(axis=ax, keepdims=True, dtype="int32").astype("int64"))
    if op == "mean":
        return (mean if keepdims else mean.reshape([d for i, d in enumerate(mean.shape) if i not in ax])).astype(
            x.dtype)
    d = x.astype("int64") - mean
    var = tdiv((d * d).sum(axis=ax, keepdims=keepdims))
    if op == "variance":
        return var.astype(x.dtype)
    return np.sqrt(var.astype("float32")).astype(x.dtype)


def reduction_cases():
    out = []
    for op in REDUCTIONS:
        ids = [f"OP.{op}.C1", f"OP.{op}.C2", "OP.STAT.C1", "OP.STAT.SEM.1"]
        tags = [f"op:{op}", "reduction"]
        rng = rng_for(op)
        x = rng.uniform(0.5, 1.5, (2, 3, 4)).astype("float32")
        out.append(Case(f"{op}_static", module([("x", tensor((2, 3, 4), "float32"))],
                                              f"R.{op}(x, axis=[-1, 0])", tensor((3,), "float32")),
                        runs=[([x], via_float64(lambda v: _f64(op, v, (-1, 0), False), x, dtype="float32"))],
                        spec=ids + ["NORM.OP.AXIS.1", "OP.STAT.SEM.4"], tags=tags + ["static"],
                        description=f"{op} over axes [-1, 0] of a (2, 3, 4) tensor"))
        x1 = rng.uniform(0.5, 1.5, (3, 5)).astype("float32")
        x2 = rng.uniform(0.5, 1.5, (1, 2)).astype("float32")
        out.append(Case(f"{op}_symbolic_keepdims",
                        module([("x", tensor(("n", "m"), "float32"))], f"R.{op}(x, axis=[0], keepdims=True)",
                               tensor((1, "m"), "float32")),
                        runs=[([v], via_float64(lambda a: _f64(op, a, (0,), True), v, dtype="float32"))
                              for v in (x1, x2)],
                        spec=ids + ["OP.STAT.SEM.4"], tags=tags + ["symbolic"],
                        description=f"{op} over axis 0 with keepdims keeps the symbolic m; run at two sizes"))
        xi = rng.integers(-6, 7, (2, 3)).astype("int32")
        out.append(Case(f"{op}_int32_all_axes",
                        module([("x", tensor((2, 3), "int32"))], f"R.{op}(x)", tensor((), "int32")),
                        runs=[([xi], np.asarray(_int_reduce(op, xi, None, False)))],
                        spec=ids + ["OP.STAT.SEM.5"] if op in ("mean", "variance", "std") else ids,
                        tags=tags + ["int"], oracle="numpy-formula",
                        description=f"{op} of every element of an int32 tensor keeps int32"))
        out.append(Invalid(f"{op}_axis_out_of_range",
                           module([("x", tensor((2, 3), "float32"))], f"R.{op}(x, axis=[2])",
                                  tensor((2,), "float32")),
                           "struct_info", spec=["OP.STAT.C1", "NORM.OP.AXIS.1"], tags=tags + ["invalid"]))
        out.append(Invalid(f"{op}_axis_repeated",
                           module([("x", tensor((2, 3), "float32"))], f"R.{op}(x, axis=[1, -1])",
                                  tensor((2,), "float32")),
                           "struct_info", spec=["OP.STAT.C1", "NORM.OP.AXIS.1"], tags=tags + ["invalid"]))
    return out


def edge_cases():
    out = []
    lo, hi = np.finfo("float32").min, np.finfo("float32").max
    empty = np.zeros((0, 3), "float32")
    # (sum and mean over no elements are covered by the unit tests: TVM 0.25 returns uninitialized
    # memory there, which may happen to hold the expected 0 / NaN, so a case would be unstable on TVM)
    for op, ident in (("prod", 1.0), ("max", lo), ("min", hi)):
        out.append(Case(f"{op}_empty_axis",
                        module([("x", tensor(("n", 3), "float32"))], f"R.{op}(x, axis=[0])", tensor((3,), "float32")),
                        runs=[([empty], np.full(3, ident, "float32")),
                              ([np.ones((2, 3), "float32")], np.asarray(_f64(op, np.ones((2, 3)), (0,), False),
                                                                         "float32"))],
                        spec=[f"OP.{op}.C1", "OP.STAT.SEM.2"], tags=[f"op:{op}", "reduction", "empty"],
                        oracle="hand",
                        description=f"{op} over a zero-length axis is the reducer's identity"))
    for op in ("mean", "variance"):
        out.append(Case(f"{op}_int_empty_result",
                        module([("x", tensor(("n", "m"), "int32"))], f"R.{op}(x, axis=[0])", tensor(("m",), "int32")),
                        runs=[([np.zeros((0, 0), "int32")], np.zeros((0,), "int32")),
                              ([np.zeros((3, 0), "int32")], np.zeros((0,), "int32"))],
                        spec=[f"OP.{op}.C1", "OP.STAT.SEM.2"], tags=[f"op:{op}", "reduction", "empty"],
                        oracle="hand",
                        description=f"an integer {op} whose result has no elements divides nothing: an empty result"))
    x = np.array([[1, np.nan, 2], [1, 2, np.nan], [np.nan, 1, 2]], "float32")
    out.append(Case("max_nan_order",
                    module([("x", tensor((3, 3), "float32"))], "R.max(x, axis=[1])", tensor((3,), "float32")),
                    runs=[([x], np.array([2, np.nan, 2], "float32"))],
                    spec=["OP.max.C1", "OP.STAT.SEM.3"], tags=["op:max", "reduction", "nan"], oracle="hand",
                    description="a NaN is kept only until the next element (acc > v ? acc : v)"))
    out.append(Case("min_nan_order",
                    module([("x", tensor((3, 3), "float32"))], "R.min(x, axis=[1])", tensor((3,), "float32")),
                    runs=[([x], np.array([2, np.nan, 1], "float32"))],
                    spec=["OP.min.C1", "OP.STAT.SEM.3"], tags=["op:min", "reduction", "nan"], oracle="hand"))
    b = np.array([[True, False], [False, False]])
    out.append(Case("sum_bool_is_or",
                    module([("x", tensor((2, 2), "bool"))], "R.sum(x, axis=[1])", tensor((2,), "bool")),
                    runs=[([b], np.array([True, False]))],
                    spec=["OP.sum.C1", "OP.STAT.SEM.1"], tags=["op:sum", "reduction", "bool"], oracle="hand"))
    out.append(Case("prod_bool_is_and",
                    module([("x", tensor((2, 2), "bool"))], "R.prod(x, axis=[1])", tensor((2,), "bool")),
                    runs=[([np.array([[True, True], [True, False]])], np.array([True, False]))],
                    spec=["OP.prod.C1", "OP.STAT.SEM.1"], tags=["op:prod", "reduction", "bool"], oracle="hand"))
    xi = np.array([[1, 2, 4], [-7, 0, 0]], "int32")
    out.append(Case("mean_int32_truncates",
                    module([("x", tensor((2, 3), "int32"))], "R.mean(x, axis=[1])", tensor((2,), "int32")),
                    runs=[([xi], np.array([2, -2], "int32"))],
                    spec=["OP.mean.C1", "OP.STAT.SEM.5", "DIV.23"], tags=["op:mean", "reduction", "int"],
                    oracle="hand", description="7 / 3 and -7 / 3 truncate toward zero; the result stays int32"))
    out.append(Case("sum_int8_wraps",
                    module([("x", tensor((2,), "int8"))], "R.sum(x)", tensor((), "int8")),
                    runs=[([np.array([100, 100], "int8")], np.array(-56, "int8"))],
                    spec=["OP.sum.C1", "OP.STAT.SEM.1"], tags=["op:sum", "reduction", "int"], oracle="hand"))
    out.append(Case("sum_float16_accumulates_in_float16",
                    module([("x", tensor((3000,), "float16"))], "R.sum(x)", tensor((), "float16")),
                    runs=[([np.ones(3000, "float16")], np.array(2048, "float16"))],
                    spec=["OP.sum.C1", "OP.STAT.SEM.4"], tags=["op:sum", "reduction", "float16"], oracle="hand",
                    description="float16 accumulation saturates at 2048 + 1 == 2048, as TVM's kernel"))
    out.append(Case("sum_no_axes_is_identity",
                    module([("x", tensor((2, 3), "float32"))], "R.sum(x, axis=[])", tensor((2, 3), "float32")),
                    runs=[([xi.astype("float32")], xi.astype("float32"))],
                    spec=["OP.sum.C1", "OP.STAT.C1"], tags=["op:sum", "reduction"], oracle="hand"))
    return out


def median_cases():
    out = []
    x = np.array([[4, 1, 3, 2], [5, 5, 1, 1], [0, -1, 9, 9]], "float32")

    def med(a):
        s = np.argsort(a, axis=1, kind="stable")
        k = (a.shape[1] - 1) // 2
        idx = s[:, k]
        return np.take_along_axis(a, idx[:, None], axis=1)[:, 0], idx.astype("int64")

    out.append(Case("median_axis",
                    module([("x", tensor(("n", 4), "float32"))], "R.median(x, axis=[1])",
                           f'R.Tuple({tensor(("n",), "float32")}, {tensor(("n",), "int64")})'),
                    runs=[([x], med(x)), ([x[:1]], med(x[:1]))],
                    spec=["OP.median.C1", "OP.STAT.SEM.6"], tags=["op:median", "reduction", "symbolic"],
                    description="the lower median along one axis and its index; run at two sizes"))
    y = np.array([[3, 1], [np.nan, 2], [7, 0]], "float32")
    flat = np.sort(y.reshape(-1))  # NaN sorts last
    out.append(Case("median_all_keepdims",
                    module([("x", tensor((3, 2), "float32"))], "R.median(x, keepdims=True)", tensor((1, 1), "float32")),
                    runs=[([y], np.array([[flat[(6 - 1) // 2]]], "float32"))],
                    spec=["OP.median.C1", "OP.STAT.SEM.6"], tags=["op:median", "reduction", "nan"]))
    z = rng_for("median_axes").integers(-9, 10, (2, 3, 4)).astype("int32")
    want = np.array([np.sort(z[:, j, :].reshape(-1))[(8 - 1) // 2] for j in range(3)])
    out.append(Case("median_two_axes",
                    module([("x", tensor((2, 3, 4), "int32"))], "R.median(x, axis=[0, 2])", tensor((3,), "int32")),
                    runs=[([z], want.astype("int32"))],
                    spec=["OP.median.C1", "OP.STAT.SEM.6"], tags=["op:median", "reduction"],
                    description="several axes are reduced together; no index is returned"))
    out.append(Case("median_empty", module([("x", tensor(("n",), "float32"))], "R.median(x)", tensor((), "float32")),
                    runs=[([np.array([2, 9, 4], "float32")], np.array(4, "float32")),
                          Fails([np.zeros(0, "float32")], "op_runtime")],
                    spec=["OP.median.C2", "OP.STAT.SEM.6"], tags=["op:median", "reduction", "empty", "error"],
                    oracle="spec-rule", description="the median of no elements is an error"))
    return out


def scan_cases():
    out = []
    rng = rng_for("scans")
    x1 = rng.integers(-3, 4, (2, 4)).astype("float32")
    x2 = rng.integers(-3, 4, (3, 4)).astype("float32")
    for op, fn, ident in (("cumsum", np.cumsum, 0), ("cumprod", np.cumprod, 1)):
        ids = [f"OP.{op}.C1", f"OP.{op}.C2", "OP.STAT.SEM.7"]
        tags = [f"op:{op}", "scan"]
        out.append(Case(f"{op}_axis1", module([("x", tensor(("n", 4), "float32"))], f"R.{op}(x, axis=1)",
                                              tensor(("n", 4), "float32")),
                        runs=[([v], fn(v, axis=1)) for v in (x1, x2)], spec=ids, tags=tags + ["symbolic"],
                        description=f"{op} along the last axis; run at two sizes"))
        out.append(Case(f"{op}_flatten", module([("x", tensor(("n", 4), "float32"))], f"R.{op}(x)",
                                                tensor(("n * 4",), "float32")),
                        runs=[([v], fn(v.reshape(-1))) for v in (x1, x2)], spec=ids, tags=tags + ["symbolic"],
                        description=f"axis=None scans the row-major flattening"))
        xi = rng.integers(-3, 4, (3, 2)).astype("int32")
        acc = fn(xi.astype("int64"), axis=0)
        excl = np.concatenate([np.full((1, 2), ident, "int64"), acc[:-1]], axis=0)
        out.append(Case(f"{op}_exclusive_dtype",
                        module([("x", tensor((3, 2), "int32"))], f'R.{op}(x, axis=0, dtype="int64", exclusive=True)',
                               tensor((3, 2), "int64")),
                        runs=[([xi], excl)], spec=ids, tags=tags + ["int"],
                        description="exclusive scan in int64 starts with the identity"))
        out.append(Invalid(f"{op}_axis_out_of_range",
                           module([("x", tensor((2, 3), "float32"))], f"R.{op}(x, axis=2)", tensor((2, 3), "float32")),
                           "struct_info", spec=[f"OP.{op}.C1", "OP.STAT.DIV.1"], tags=tags + ["invalid"]))
    b = np.array([True, False, True, True])
    out.append(Case("cumsum_bool_to_int32",
                    module([("x", tensor((4,), "bool"))], 'R.cumsum(x, axis=0, dtype="int32")', tensor((4,), "int32")),
                    runs=[([b], np.cumsum(b.astype("int32")).astype("int32"))],
                    spec=["OP.cumsum.C1", "OP.STAT.SEM.7"], tags=["op:cumsum", "scan", "bool"]))
    return out


def generate():
    return {CATEGORY: reduction_cases() + edge_cases() + median_cases() + scan_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_statistical"])

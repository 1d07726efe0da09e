"""Search, sort and set operators (spec/ops/search.md and one page per operator): ``argmax argmin
sort argsort topk bucketize nonzero unique``.

Each operator gets a static case, a symbolic case run at two sizes and invalid operands; the edge
cases follow OP.SEARCH.SEM.1-6: first index on ties, TVM's NaN rule for argmax/argmin, stable sorts in
both directions, NaN ordering, ``topk`` with ``k`` of 0 / larger than the axis, ``bucketize`` sides,
data-dependent ``nonzero``/``unique``.

Oracles: NumPy formulas written below (stable argsort on a negated key for descending order), hand
values for the NaN rules; rejections are the cited constraints.
"""


import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import module, rng_for, tensor

CATEGORY = "op_search"


def stable_order(x, axis, descending):
    """The stable sorting permutation (descending: stable on the negated key)."""
    key = -x.astype("float64") if descending else x
    return np.argsort(key, axis=axis, kind="stable")


def ties(rng, shape, dtype):
    return (rng.integers(-3, 4, shape) / (2 if dtype.startswith("float") else 1)).astype(dtype)


def arg_cases():
    out = []
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        ids = [f"OP.{op}.C1", "OP.SEARCH.SEM.1"]
        tags = [f"op:{op}", "search"]
        rng = rng_for(op)
        x = ties(rng, (3, 5), "float32")
        out.append(Case(f"{op}_axis", module([("x", tensor((3, 5), "float32"))], f"R.{op}(x, axis=1)",
                                             tensor((3,), "int64")),
                        runs=[([x], fn(x, axis=1).astype("int64"))], spec=ids, tags=tags + ["static", "ties"],
                        description=f"{op} along the last axis; ties give the first index"))
        a, b = ties(rng, (2, 4), "int32"), ties(rng, (5, 4), "int32")
        out.append(Case(f"{op}_all_keepdims_symbolic",
                        module([("x", tensor(("n", 4), "int32"))], f"R.{op}(x, keepdims=True)", tensor((1, 1), "int64")),
                        runs=[([v], np.array(fn(v)).reshape(1, 1).astype("int64")) for v in (a, b)],
                        spec=ids, tags=tags + ["symbolic"],
                        description=f"{op} of all elements (row-major flat index) with keepdims; two sizes"))
        out.append(Invalid(f"{op}_axis_out_of_range",
                           module([("x", tensor((3, 5), "float32"))], f"R.{op}(x, axis=-3)", tensor((3,), "int64")),
                           "struct_info", spec=[f"OP.{op}.C1", "NORM.OP.AXIS.1"], tags=tags + ["invalid"]))
    nan = np.array([[1, np.nan, 2], [1, 2, np.nan], [np.nan, 1, 2]], "float32")
    out.append(Case("argmax_nan", module([("x", tensor((3, 3), "float32"))], "R.argmax(x, axis=1)",
                                         tensor((3,), "int64")),
                    runs=[([nan], np.array([2, 2, 2], "int64"))], spec=["OP.argmax.C1", "OP.SEARCH.SEM.1"],
                    tags=["op:argmax", "search", "nan"], oracle="hand",
                    description="a NaN is taken when met and kept only until the next element"))
    out.append(Case("argmin_nan", module([("x", tensor((3, 3), "float32"))], "R.argmin(x, axis=1)",
                                         tensor((3,), "int64")),
                    runs=[([nan], np.array([2, 2, 1], "int64"))], spec=["OP.argmin.C1", "OP.SEARCH.SEM.1"],
                    tags=["op:argmin", "search", "nan"], oracle="hand"))
    for op in ("argmax", "argmin"):
        out.append(Case(f"{op}_empty_axis", module([("x", tensor(("n", 3), "float32"))], f"R.{op}(x, axis=0)",
                                                   tensor((3,), "int64")),
                        runs=[Fails([np.zeros((0, 3), "float32")], "op_runtime")],
                        spec=[f"OP.{op}.C2", "OP.SEARCH.SEM.1"], tags=[f"op:{op}", "search", "empty", "error"],
                        oracle="spec-rule", description=f"{op} over a zero-length axis is an error"))
    return out


def sort_cases():
    out = []
    rng = rng_for("sort")
    x = ties(rng, (3, 6), "float32")
    out.append(Case("sort_static", module([("x", tensor((3, 6), "float32"))], "R.sort(x)", tensor((3, 6), "float32")),
                    runs=[([x], np.sort(x, axis=-1))], spec=["OP.sort.C1", "OP.SEARCH.SEM.2"],
                    tags=["op:sort", "sort", "static"]))
    a, b = ties(rng, (2, 3), "int32"), ties(rng, (4, 3), "int32")
    out.append(Case("sort_descending_axis0_symbolic",
                    module([("x", tensor(("n", 3), "int32"))], "R.sort(x, axis=0, descending=True)",
                           tensor(("n", 3), "int32")),
                    runs=[([v], -np.sort(-v, axis=0)) for v in (a, b)], spec=["OP.sort.C1", "OP.SEARCH.SEM.2"],
                    tags=["op:sort", "sort", "symbolic"]))
    out.append(Case("argsort_stable", module([("x", tensor((3, 6), "float32"))], "R.argsort(x)",
                                             tensor((3, 6), "int32")),
                    runs=[([x], stable_order(x, -1, False).astype("int32"))],
                    spec=["OP.argsort.C1", "OP.SEARCH.SEM.2"], tags=["op:argsort", "sort", "ties"],
                    description="equal elements keep their input order"))
    out.append(Case("argsort_descending_stable_int64",
                    module([("x", tensor(("n", 6), "float32"))], 'R.argsort(x, descending=True, dtype="int64")',
                           tensor(("n", 6), "int64")),
                    runs=[([v], stable_order(v, -1, True).astype("int64")) for v in (x, x[:1])],
                    spec=["OP.argsort.C1", "OP.SEARCH.SEM.2"], tags=["op:argsort", "sort", "ties", "symbolic"],
                    description="descending order is stable too (equal elements keep their input order)"))
    y = np.array([3, np.nan, 1, 1, np.nan, 0], "float32")
    out.append(Case("argsort_nan", module([("x", tensor((6,), "float32"))], "R.argsort(x)", tensor((6,), "int32")),
                    runs=[([y], np.array([5, 2, 3, 0, 1, 4], "int32"))],
                    spec=["OP.argsort.C1", "OP.SEARCH.SEM.2", "OP.SEARCH.KERNEL.2"], tags=["op:argsort", "sort", "nan"],
                    oracle="hand",
                    description="NaN sorts after every number"))
    out.append(Case("sort_descending_nan", module([("x", tensor((6,), "float32"))], "R.sort(x, descending=True)",
                                                  tensor((6,), "float32")),
                    runs=[([y], np.array([np.nan, np.nan, 3, 1, 1, 0], "float32"))],
                    spec=["OP.sort.C1", "OP.SEARCH.SEM.2", "OP.SEARCH.KERNEL.2"], tags=["op:sort", "sort", "nan"],
                    oracle="hand",
                    description="descending order puts NaNs first"))
    out.append(Case("sort_bool_unsupported", module([("x", tensor((3,), "bool"))], "R.sort(x)", tensor((3,), "bool")),
                    runs=[Fails([np.array([True, False, True])], "unsupported")],
                    spec=["OP.sort.C1", "OP.SEARCH.SEM.6"], tags=["op:sort", "sort", "bool", "error"],
                    oracle="spec-rule", description="TVM 0.25 has no sort kernel for bool tensors"))
    out.append(Invalid("sort_axis_out_of_range",
                       module([("x", tensor((3, 6), "float32"))], "R.sort(x, axis=2)", tensor((3, 6), "float32")),
                       "struct_info", spec=["OP.sort.C1", "OP.SEARCH.DIV.1"], tags=["op:sort", "sort", "invalid"]))
    return out


def topk_cases():
    out = []
    rng = rng_for("topk")
    x = ties(rng, (3, 6), "float32")
    o = stable_order(x, -1, True)
    out.append(Case("topk_both", module([("x", tensor((3, 6), "float32"))], "R.topk(x, 2)",
                                        f'R.Tuple({tensor((3, 2), "float32")}, {tensor((3, 2), "int32")})'),
                    runs=[([x], (np.take_along_axis(x, o[:, :2], -1), o[:, :2].astype("int32")))],
                    spec=["OP.topk.C1", "OP.topk.C2", "OP.SEARCH.SEM.3"], tags=["op:topk", "sort", "ties"]))
    a, b = ties(rng, (2, 5), "int32"), ties(rng, (4, 5), "int32")
    out.append(Case("topk_smallest_values_symbolic",
                    module([("x", tensor(("n", 5), "int32"))], 'R.topk(x, 3, ret_type="values", largest=False)',
                           tensor(("n", 3), "int32")),
                    runs=[([v], np.sort(v, axis=-1)[:, :3]) for v in (a, b)],
                    spec=["OP.topk.C1", "OP.SEARCH.SEM.3"], tags=["op:topk", "sort", "symbolic"]))
    out.append(Case("topk_indices_axis0",
                    module([("x", tensor((3, 6), "float32"))], 'R.topk(x, 1, axis=0, ret_type="indices", dtype="int64")',
                           tensor((1, 6), "int64")),
                    runs=[([x], stable_order(x, 0, True)[:1].astype("int64"))],
                    spec=["OP.topk.C1", "OP.SEARCH.SEM.3"], tags=["op:topk", "sort"]))
    out.append(Case("topk_k_zero_is_whole_axis",
                    module([("x", tensor((3, 6), "float32"))], 'R.topk(x, 0, ret_type="values")', tensor((3, 6), "float32")),
                    runs=[([x], np.take_along_axis(x, o, -1))], spec=["OP.topk.C1", "OP.topk.C2"],
                    tags=["op:topk", "sort"]))
    out.append(Case("topk_k_larger_than_axis",
                    module([("x", tensor((3, 6), "float32"))], 'R.topk(x, 9, ret_type="values")', tensor((3, 6), "float32")),
                    runs=[([x], np.take_along_axis(x, o, -1))], spec=["OP.topk.C1", "OP.topk.C2"],
                    tags=["op:topk", "sort"], description="k at least the static axis length keeps the whole axis"))
    out.append(Case("topk_k_exceeds_symbolic_axis",
                    module([("x", tensor(("n",), "float32"))], 'R.topk(x, 3, ret_type="values")', tensor((3,), "float32")),
                    runs=[([np.array([3, 1, 2, 0], "float32")], np.array([3, 2, 1], "float32")),
                          Fails([np.array([1, 2], "float32")], "op_runtime")],
                    spec=["OP.topk.C2", "OP.SEM.2"], tags=["op:topk", "sort", "error"], oracle="spec-rule",
                    description="with a symbolic axis the result has k elements; a shorter axis is an error"))
    return out


def bucketize_cases():
    out = []
    bnd = np.array([-1.0, 0.0, 0.5, 2.0], "float32")
    x = np.array([[-2, -1, 0.25, 0.5], [2, 3, 0, 1]], "float32")
    out.append(Case("bucketize_left", module([("x", tensor(("n", 4), "float32")), ("b", tensor((4,), "float32"))],
                                             "R.bucketize(x, b)", tensor(("n", 4), "int64")),
                    runs=[([v, bnd], np.searchsorted(bnd, v, side="left").astype("int64")) for v in (x, x[:1])],
                    spec=["OP.bucketize.C1", "OP.SEARCH.SEM.4"], tags=["op:bucketize", "search", "symbolic"]))
    out.append(Case("bucketize_right_int32",
                    module([("x", tensor((2, 4), "int32")), ("b", tensor((3,), "int32"))],
                           "R.bucketize(x, b, out_int32=True, right=True)", tensor((2, 4), "int32")),
                    runs=[([np.array([[0, 1, 2, 3], [5, -1, 1, 4]], "int32"), np.array([1, 2, 4], "int32")],
                           np.searchsorted([1, 2, 4], [[0, 1, 2, 3], [5, -1, 1, 4]], side="right").astype("int32"))],
                    spec=["OP.bucketize.C1", "OP.SEARCH.SEM.4"], tags=["op:bucketize", "search", "int"]))
    out.append(Case("bucketize_boundaries_rank_at_run_time",
                    module([("x", tensor((3,), "int32")), ("b", 'R.Tensor(dtype="int32")')], "R.bucketize(x, b)",
                           tensor((3,), "int64")),
                    runs=[([np.array([0, 2, 5], "int32"), np.array([1, 3], "int32")], np.array([0, 1, 2], "int64")),
                          Fails([np.array([0, 2, 5], "int32"), np.array([[1, 3]], "int32")], "op_runtime")],
                    spec=["OP.bucketize.C2"], tags=["op:bucketize", "search", "error"], oracle="spec-rule",
                    description="boundaries of unknown rank must be 1-d at run time"))
    out.append(Invalid("bucketize_2d_boundaries",
                       module([("x", tensor((3,), "float32")), ("b", tensor((2, 2), "float32"))],
                              "R.bucketize(x, b)", tensor((3,), "int64")),
                       "struct_info", spec=["OP.bucketize.C1"], tags=["op:bucketize", "search", "invalid"]))
    return out


def data_dependent_cases():
    out = []
    rng = rng_for("nonzero")
    a = rng.integers(-1, 2, (2, 3)).astype("int32")
    b = rng.integers(-1, 2, (4, 3)).astype("int32")
    out.append(Case("nonzero", module([("x", tensor(("n", 3), "int32"))], "R.nonzero(x)", tensor(2, "int64")),
                    runs=[([v], np.stack(np.nonzero(v)).astype("int64")) for v in (a, b)],
                    spec=["OP.nonzero.C1", "OP.nonzero.C2", "OP.SEARCH.SEM.5"],
                    tags=["op:nonzero", "data-dependent", "symbolic"]))
    out.append(Case("nonzero_scalar", module([("x", tensor((), "float32"))], "R.nonzero(x)", tensor(2, "int64")),
                    runs=[([np.array(2.5, "float32")], np.zeros((1, 1), "int64")),
                          ([np.array(0.0, "float32")], np.zeros((1, 0), "int64"))],
                    spec=["OP.nonzero.C2", "OP.SEARCH.SEM.5"], tags=["op:nonzero", "data-dependent"],
                    oracle="hand", description="a 0-d input counts as 1-d"))
    x = np.array([[3, 1, 2], [2, 2, -1]], "int32")
    out.append(Case("unique_sorted", module([("x", tensor(("n", 3), "int32"))], "R.unique(x)", tensor(1, "int32")),
                    runs=[([x], np.unique(x)), ([x[:1]], np.unique(x[:1]))],
                    spec=["OP.unique.C1", "OP.unique.C2", "OP.SEARCH.SEM.5"],
                    tags=["op:unique", "data-dependent", "symbolic"]))
    flat = x.reshape(-1)
    order = [3, 1, 2, -1]
    first = np.array([0, 1, 2, 5], "int64")
    inverse = np.array([order.index(v) for v in flat], "int64")
    counts = np.array([int((flat == v).sum()) for v in order], "int64")
    out.append(Case("unique_unsorted_all_outputs",
                    module([("x", tensor((2, 3), "int32"))],
                           "R.unique(x, sorted=False, return_index=True, return_inverse=True, return_counts=True)",
                           f'R.Tuple({tensor(1, "int32")}, {tensor(1, "int64")}, {tensor(1, "int64")}, '
                           f'{tensor(1, "int64")})'),
                    runs=[([x], (np.array(order, "int32"), first, inverse, counts))],
                    spec=["OP.unique.C1", "OP.unique.C2", "OP.SEARCH.SEM.5"], tags=["op:unique", "data-dependent"],
                    oracle="hand", description="first-occurrence order; the inverse is 1-d"))
    y = np.array([[1, 2, 1], [3, 4, 3]], "int32")
    out.append(Case("unique_axis_counts",
                    module([("x", tensor((2, 3), "int32"))], "R.unique(x, return_counts=True, axis=1)",
                           f'R.Tuple({tensor(2, "int32")}, {tensor(1, "int64")})'),
                    runs=[([y], (np.array([[1, 2], [3, 4]], "int32"), np.array([2, 1], "int64")))],
                    spec=["OP.unique.C1", "OP.unique.C2"], tags=["op:unique", "data-dependent"], oracle="hand"))
    out.append(Invalid("unique_axis_out_of_range",
                       module([("x", tensor((2, 3), "int32"))], "R.unique(x, axis=2)", tensor(2, "int32")),
                       "struct_info", spec=["OP.unique.C1", "NORM.OP.AXIS.1"], tags=["op:unique", "invalid"]))
    out.append(Invalid("unique_sorted_tensor",
                       module([("x", tensor((4,), "float32")), ("w", tensor((2,), "float32"))], "R.unique(x, w)",
                              tensor(1, "float32")),
                       "struct_info", spec=["OP.unique.C1", "OP.INFER.3"], tags=["op:unique", "invalid"],
                       description="sorted is read as one integer: a tensor there is rejected by inference"))
    return out


def generate():
    return {CATEGORY: arg_cases() + sort_cases() + topk_cases() + bucketize_cases() + data_dependent_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_search"])

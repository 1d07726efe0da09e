"""Indexing and scatter operators (one page per operator under spec/ops/): ``take strided_slice
dynamic_strided_slice gather_elements gather_nd index_tensor one_hot scatter_elements scatter_nd
index_put slice_scatter``.

Each operator gets a static case, a symbolic case run at two sizes, edge cases (take modes and
negative indices, DIV.25; Python slicing with negative strides and clamped bounds; empty
results; duplicate scatter indices applied in row-major order) and invalid operands.

Oracles: NumPy formulas written below (Python slicing for strided_slice, ``take_along_axis``, explicit
loops for the sequential scatters); rejections and run-time errors are the cited constraints.
"""


import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, module_text

from case_helpers import f32, module, rng_for, tensor, tup

CATEGORY = "op_index"


def take_cases():
    rng = rng_for("take")
    tags = ["op:take", "indexing"]
    out = []
    x = f32(rng, 3, 4)
    i = np.array([[0, 3], [2, 1]], "int64")
    out.append(Case("take_axis_static", module([("x", tensor((3, 4))), ("i", tensor((2, 2), "int64"))],
                                               "R.take(x, i, axis=-1)", tensor((3, 2, 2))),
                    runs=[([x, i], x[:, i])], spec=["OP.take.C4"], tags=tags + ["static", "negative-axis"]))
    j, j2 = np.array([2, 0, 1], "int32"), np.array([5, 5], "int32")
    x6 = f32(rng, 6, 4)
    out.append(Case("take_symbolic", module([("x", tensor(("n", 4))), ("i", tensor(("k",), "int32"))],
                                            "R.take(x, i, axis=0)", tensor(("k", 4))),
                    runs=[([x, j], x[j]), ([x6, j2], x6[j2])], spec=["OP.take.C4"], tags=tags + ["symbolic"]))
    k = np.array([-5, -1, 0, 3, 9], "int64")
    out.append(Case("take_clip_and_wrap", module([("x", tensor((3, 4))), ("i", tensor((5,), "int64"))],
                                                 "(R.take(x, i, axis=1, mode='clip'), R.take(x, i, axis=1, mode='wrap'))",
                                                 tup(tensor((3, 5)), tensor((3, 5)))),
                    runs=[([x, k], (x[:, np.clip(k, 0, 3)], x[:, np.mod(k, 4)]))],
                    spec=["OP.take.C4", "OP.take.C5"], tags=tags + ["modes", "negative-index"]))
    y = np.arange(12, dtype="float32").reshape(3, 4) + 1
    out.append(Case("take_fast_negative_index", module([("x", tensor((3, 4)))],
                                                       'R.take(x, R.const(-1, "int64"), axis=1, mode="fast")',
                                                       tensor((3,))),
                    runs=[Fails([y], "op_runtime")], spec=["OP.take.C6", "OP.INDEX.RANGE"],
                    tags=tags + ["negative-index", "error"], oracle="spec-rule",
                    description="'fast' does not wrap -1 (PyTorch's x[:, -1] imports as this call); TVM reads out of bounds ([0, 4, 8])"))
    x5 = f32(rng, 5)
    out.append(Case("take_prim_index", module([("x", tensor((5,))), ("i", 'R.Prim("int64")')], "R.take(x, i)",
                                              tensor(())),
                    runs=[([x5, Prim(3, "int64")], np.asarray(x5[3]))], spec=["OP.take.C1"], tags=tags + ["prim"]))
    out.append(Invalid("take_float_indices", module([("x", tensor((5,))), ("i", tensor((2,)))], "R.take(x, i)",
                                                    tensor((2,))),
                       "struct_info", spec=["OP.take.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("take_no_axis_2d", module([("x", tensor((2, 3))), ("i", tensor((2,), "int64"))],
                                                 "R.take(x, i)", tensor((2,))),
                       "struct_info", spec=["OP.take.C3"], tags=tags + ["invalid"]))
    return out


def slice_cases():
    rng = rng_for("slice")
    tags = ["op:strided_slice", "indexing"]
    out = []
    x = f32(rng, 10, 4)
    out.append(Case("strided_slice_static", module([("x", tensor((10, 4)))],
                                                   "R.strided_slice(x, [0, 1], [1, -1], [100, 0], [3, -1])",
                                                   tensor((3, 3))),
                    runs=[([x], x[1:100:3, -1:0:-1])], spec=["OP.strided_slice.C6"],
                    tags=tags + ["static", "negative-stride", "clamp"]))
    out.append(Case("strided_slice_object_bound_not_a_tuple",
                    module([("x", tensor((3, 4)))], 'R.strided_slice(x, [1], R.str("a"), [2])', tensor(2)),
                    runs=[Fails([x[:3]], "type_mismatch")], spec=["OP.strided_slice.C3", "OP.INFER.3"],
                    tags=tags + ["runtime"],
                    description="an R.Object bound is accepted statically; a string there is a type mismatch"))
    out.append(Case("strided_slice_symbolic_end", module([("x", tensor(("n", 4)))],
                                                         "R.strided_slice(x, [0], [0], [-1])",
                                                         tensor(("T.max(n - 1, 0)", 4))),
                    runs=[([v], v[0:-1]) for v in (x, f32(rng, 1, 4))],
                    spec=["OP.strided_slice.C6"], tags=tags + ["symbolic"]))
    out.append(Case("strided_slice_symbolic_negative_stride", module([("x", tensor(("n",)))],
                                                                     "R.strided_slice(x, [0], [-1], [-100], [-2])",
                                                                     tensor(1)),
                    runs=[([v], v[-1:-100:-2]) for v in (f32(rng, 5), f32(rng, 2))],
                    spec=["OP.strided_slice.C6"], tags=tags + ["symbolic", "negative-stride"],
                    description="TVM's symbolic kernel indexes with the raw begin -1 and reads out of bounds"))
    out.append(Case("strided_slice_static_empty", module([("x", tensor((5,)))], "R.strided_slice(x, [0], [4], [1])",
                                                         tensor((0,))),
                    runs=[([f32(rng, 5)], np.zeros(0, "float32"))], spec=["OP.strided_slice.C6"],
                    tags=tags + ["static", "empty"], description="x[4:1] is empty (TVM infers the extent -3)"))
    out.append(Case("strided_slice_symbolic_formula_negative", module([("x", tensor(("n",)))],
                                                                      "R.strided_slice(x, [0], [1], [-1])",
                                                                      tensor(1)),
                    runs=[([np.arange(4, dtype="float32")], np.array([1, 2], "float32")),
                          Fails([np.arange(1, dtype="float32")], "op_runtime")],
                    spec=["OP.strided_slice.C6", "OP.SEM.3"], tags=tags + ["symbolic", "error"], oracle="spec-rule",
                    description="x[1:-1]: TVM's extent formula is -1 for n = 1"))
    annotated = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            y: R.Tensor((0,), "float32") = R.strided_slice(x, [0], [1], [-1])
            return y
    ''')
    out.append(Case("strided_slice_formula_before_the_annotation", annotated,
                    runs=[Fails([np.arange(1, dtype="float32")], "op_runtime",
                                "the formula is -1 for n = 1, although the empty result matches the annotation"),
                          ([np.arange(2, dtype="float32")], np.zeros(0, "float32")),
                          Fails([np.arange(4, dtype="float32")], "shape_mismatch",
                                "the result (2,) agrees with the formula, not with the annotation (0,)")],
                    spec=["OP.strided_slice.C6", "OP.SEM.3", "EVAL.CALL.3"], tags=tags + ["symbolic", "error", "order"],
                    oracle="spec-rule",
                    description="x[1:-1] annotated (0,): the operator checks its own formula first (op_runtime "
                                "for n = 1), the annotation after it (shape_mismatch for n = 4)"))
    out.append(Case("strided_slice_assume_inbound", module([("x", tensor(("n",)))],
                                                           "R.strided_slice(x, [0], [1], [3], assume_inbound=True)",
                                                           tensor((2,))),
                    runs=[([v], v[1:3]) for v in (f32(rng, 3), f32(rng, 8))] + [Fails([f32(rng, 2)], "op_runtime")],
                    spec=["OP.strided_slice.C7"], tags=tags + ["symbolic", "error"]))
    out.append(Invalid("strided_slice_axis_out_of_range", module([("x", tensor((4,)))],
                                                                 "R.strided_slice(x, [1], [0], [1])", tensor((1,))),
                       "struct_info", spec=["OP.strided_slice.C5"], tags=tags + ["invalid"]))
    b, e, s = np.array([1, -1], "int64"), np.array([6, 0], "int64"), np.array([2, -2], "int64")
    z = f32(rng, 6, 5)
    ps = [("x", tensor(("n", 5))), ("b", tensor((2,), "int64")), ("e", tensor((2,), "int64")),
          ("s", tensor((2,), "int64"))]
    out.append(Case("dynamic_strided_slice", module(ps, "R.dynamic_strided_slice(x, b, e, s)", tensor(2)),
                    runs=[([z, b, e, s], z[1:6:2, -1:0:-2]),
                          ([z[:3], np.array([0, 0], "int64"), np.array([3, 5], "int64"), np.array([1, 1], "int64")],
                           z[:3])],
                    spec=["OP.dynamic_strided_slice.C4"], tags=["op:dynamic_strided_slice", "indexing", "symbolic"],
                    description="TVM's kernel uses the raw begin -1 and reads out of bounds"))
    out.append(Invalid("dynamic_strided_slice_wrong_length",
                       module([("x", tensor((2, 3, 4))), ("b", tensor((2,), "int64"))],
                              "R.dynamic_strided_slice(x, b, b, b)", tensor(3)),
                       "struct_info", spec=["OP.dynamic_strided_slice.C2"],
                       tags=["op:dynamic_strided_slice", "indexing", "invalid"]))
    return out


def gather_cases():
    rng = rng_for("gather")
    out = []
    x = f32(rng, 3, 4)
    gi = np.array([[0, 3, 1, 1], [2, 2, 0, 3]], "int64")
    out.append(Case("gather_elements_axis1", module([("x", tensor(("n", 4))), ("i", tensor(("n", 4), "int64"))],
                                                    "R.gather_elements(x, i, axis=1)", tensor(("n", 4))),
                    runs=[([x[:2], gi], np.take_along_axis(x[:2], gi, 1)),
                          ([x[:1], gi[:1]], np.take_along_axis(x[:1], gi[:1], 1))],
                    spec=["OP.gather_elements.C4"], tags=["op:gather_elements", "indexing", "symbolic"]))
    out.append(Case("gather_elements_out_of_range", module([("x", tensor((3, 4))), ("i", tensor((1, 4), "int64"))],
                                                           "R.gather_elements(x, i)", tensor((1, 4))),
                    runs=[Fails([x, np.array([[0, 1, -1, 2]], "int64")], "op_runtime")],
                    spec=["OP.INDEX.RANGE"], tags=["op:gather_elements", "indexing", "error"], oracle="spec-rule"))
    out.append(Invalid("gather_elements_rank", module([("x", tensor((3, 4))), ("i", tensor((4,), "int64"))],
                                                      "R.gather_elements(x, i)", tensor((4,))),
                       "struct_info", spec=["OP.gather_elements.C4"], tags=["op:gather_elements", "indexing", "invalid"]))
    y = f32(rng, 3, 4, 5)
    ni = np.array([[0, 1], [2, 3], [1, 0]], "int64")
    out.append(Case("gather_nd", module([("x", tensor((3, 4, 5))), ("i", tensor(("k", 2), "int64"))],
                                        "R.gather_nd(x, i)", tensor(("k", 5))),
                    runs=[([y, ni], y[ni[:, 0], ni[:, 1]]), ([y, ni[:1]], y[ni[:1, 0], ni[:1, 1]])],
                    spec=["OP.gather_nd.C5"], tags=["op:gather_nd", "indexing", "symbolic"]))
    bi = np.array([[[1], [3]], [[0], [0]], [[2], [1]]], "int64")
    out.append(Case("gather_nd_batch_dims", module([("x", tensor((3, 4, 5))), ("i", tensor((3, 2, 1), "int64"))],
                                                   "R.gather_nd(x, i, batch_dims=1)", tensor((3, 2, 5))),
                    runs=[([y, bi], np.stack([y[b][bi[b, :, 0]] for b in range(3)]))],
                    spec=["OP.gather_nd.C5"], tags=["op:gather_nd", "indexing", "static"]))
    out.append(Invalid("gather_nd_int32_indices", module([("x", tensor((3, 4))), ("i", tensor((2, 2), "int32"))],
                                                         "R.gather_nd(x, i)", tensor((2,))),
                       "struct_info", spec=["OP.gather_nd.C2"], tags=["op:gather_nd", "indexing", "invalid"]))
    i1, i2 = np.array([[0], [2]], "int64"), np.array([1, 3, 0], "int64")
    out.append(Case("index_tensor_broadcast", module([("x", tensor(("n", 4, 2))), ("i", tensor((2, 1), "int64")),
                                                      ("j", tensor((3,), "int64"))],
                                                     "R.index_tensor(x, (i, j))", tensor((2, 3, 2))),
                    runs=[([v, i1, i2], v[i1, i2]) for v in (f32(rng, 3, 4, 2), f32(rng, 5, 4, 2))],
                    spec=["OP.index_tensor.C4", "OP.index_tensor.C5"], tags=["op:index_tensor", "indexing", "symbolic"]))
    out.append(Invalid("index_tensor_too_many", module([("x", tensor((4,))), ("i", tensor((2,), "int64"))],
                                                       "R.index_tensor(x, (i, i))", tensor((2,))),
                       "struct_info", spec=["OP.index_tensor.C3"], tags=["op:index_tensor", "indexing", "invalid"]))
    oh = np.array([[0, 2, 5], [-1, 1, 3]], "int32")
    hot = np.where(oh[..., None] == np.arange(4), 1.0, 0.0).astype("float32")
    out.append(Case("one_hot", module([("i", tensor(("n", 3), "int32"))],
                                      "R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=4)",
                                      tensor(("n", 3, 4))),
                    runs=[([oh], hot), ([oh[:1]], hot[:1])], spec=["OP.one_hot.C6"],
                    tags=["op:one_hot", "indexing", "symbolic"],
                    description="indices outside [0, depth) give an all-off row"))
    out.append(Case("one_hot_axis0_int", module([("i", tensor((2, 3), "int32"))],
                                                "R.one_hot(i, R.prim_value(T.int64(7)), R.prim_value(T.int64(-1)), "
                                                "depth=3, axis=0)", tensor((3, 2, 3), "int64")),
                    runs=[([oh], np.moveaxis(np.where(oh[..., None] == np.arange(3), 7, -1), -1, 0).astype("int64"))],
                    spec=["OP.one_hot.C5", "OP.one_hot.C6"], tags=["op:one_hot", "indexing", "static"]))
    out.append(Invalid("one_hot_float_indices", module([("i", tensor((2,)))],
                                                       "R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=3)",
                                                       tensor((2, 3))),
                       "struct_info", spec=["OP.one_hot.C4"], tags=["op:one_hot", "indexing", "invalid"]))
    return out


def _scatter_elements(data, ind, upd, axis, red):
    out = data.copy()
    for pos in np.ndindex(*ind.shape):
        k = ind[pos] + (data.shape[axis] if ind[pos] < 0 else 0)
        t = pos[:axis] + (k,) + pos[axis + 1:]
        u = upd[pos]
        out[t] = {"update": u, "add": out[t] + u, "mul": out[t] * u, "min": min(out[t], u),
                  "max": max(out[t], u), "mean": (out[t] + u) / 2}[red]
    return out


def scatter_cases():
    rng = rng_for("scatter")
    out = []
    d = f32(rng, 4, 3)
    i = np.array([[0, 3, 1], [2, 1, 3]], "int64")
    u = f32(rng, 2, 3)
    d5 = f32(rng, 5, 3)
    ps = [("d", tensor(("n", 3))), ("i", tensor((2, 3), "int64")), ("u", tensor((2, 3)))]
    out.append(Case("scatter_elements_update", module(ps, "R.scatter_elements(d, i, u)", tensor(("n", 3))),
                    runs=[([v, i, u], _scatter_elements(v, i, u, 0, "update")) for v in (d, d5)],
                    spec=["OP.scatter_elements.C5", "OP.SCATTER.4"], tags=["op:scatter_elements", "indexing", "symbolic"]))
    dup = np.array([[1, -1, 1], [1, 0, 2]], "int64")
    out.append(Case("scatter_elements_duplicates_add", module(ps, "R.scatter_elements(d, i, u, axis=1, reduction='add')",
                                                             tensor(("n", 3))),
                    runs=[([d[:2], dup, u], _scatter_elements(d[:2], dup, u, 1, "add"))],
                    spec=["OP.SCATTER.1", "OP.SCATTER.2", "OP.SCATTER.4"],
                    tags=["op:scatter_elements", "indexing", "duplicates"],
                    description="repeated targets combine in row-major order; -1 wraps once"))
    di = np.array([0, 0, 1], "int32")
    out.append(Case("scatter_elements_mean_int", module([("d", tensor((2,), "int32")), ("i", tensor((3,), "int32")),
                                                         ("u", tensor((3,), "int32"))],
                                                        "R.scatter_elements(d, i, u, reduction='mean')",
                                                        tensor((2,), "int32")),
                    runs=[([np.array([3, -3], "int32"), di, np.array([4, 0, 0], "int32")], np.array([1, -1], "int32"))],
                    spec=["OP.SCATTER.3"], tags=["op:scatter_elements", "indexing", "duplicates"], oracle="hand",
                    description="mean is the running (out + u) / 2, truncating on integers: ((3+4)/2 + 0)/2 = 1"))
    # (no out-of-range scatter case: TVM 0.25 writes out of bounds, which corrupts the memory of the
    # process that runs the following cases; OP.SCATTER.2 is covered by tests/ops/test_index_reference.py)
    out.append(Invalid("scatter_elements_bad_reduction", module(ps, "R.scatter_elements(d, i, u, reduction='sum')",
                                                                tensor(("n", 3))),
                       "struct_info", spec=["OP.scatter_elements.C6"],
                       tags=["op:scatter_elements", "indexing", "invalid"]))
    ni, nu = np.array([[3], [0], [3]], "int64"), f32(rng, 3, 3)
    want = d.copy()
    for p in range(3):
        want[ni[p, 0]] = want[ni[p, 0]] + nu[p]
    out.append(Case("scatter_nd_add_duplicates", module([("d", tensor((4, 3))), ("i", tensor((3, 1), "int64")),
                                                         ("u", tensor((3, 3)))],
                                                        "R.scatter_nd(d, i, u, reduction='add')", tensor((4, 3))),
                    runs=[([d, ni, nu], want)], spec=["OP.SCATTER.1", "OP.scatter_nd.C6"],
                    tags=["op:scatter_nd", "indexing", "duplicates"]))
    pi = np.array([[0, 2], [3, 1]], "int64")
    pu = f32(rng, 2)
    w2 = d.copy()
    w2[pi[:, 0], pi[:, 1]] = pu
    out.append(Case("scatter_nd_points", module([("d", tensor(("n", 3))), ("i", tensor((2, 2), "int64")),
                                                 ("u", tensor((2,)))], "R.scatter_nd(d, i, u)", tensor(("n", 3))),
                    runs=[([d, pi, pu], w2)], spec=["OP.scatter_nd.C6"], tags=["op:scatter_nd", "indexing"]))
    # (a statically invalid scatter_nd update shape (C6) is not a case: TVM 0.25 sometimes aborts (SIGABRT)
    # while it formats that error; OP.scatter_nd.C6 rejections are covered by tests/ops/test_index_infer.py;
    # the index-tuple length (C4, updates of the rank C5 asks for) and the updates rank (C5) are invalid cases below)
    a, b = np.array([0, 2, -1, 0], "int64"), np.array([1, 0, 2, 1], "int64")
    vals = f32(rng, 4)
    put = d.copy()
    put[a, b] = vals  # numpy assigns in order: the last duplicate wins
    acc = d.copy()
    np.add.at(acc, (a, b), vals)
    ps = [("d", tensor(("n", 3))), ("a", tensor((4,), "int64")), ("b", tensor((4,), "int64")), ("v", tensor((4,)))]
    out.append(Case("index_put_update_and_accumulate",
                    module(ps, "(R.index_put(d, (a, b), v), R.index_put(d, (a, b), v, accumulate=True))",
                           tup(tensor(("n", 3)), tensor(("n", 3)))),
                    runs=[([d, a, b, vals], (put, acc))], spec=["OP.SCATTER.1", "OP.SCATTER.2", "OP.index_put.C4"],
                    tags=["op:index_put", "indexing", "duplicates", "negative-index"]))
    out.append(Invalid("index_put_index_count", module([("d", tensor((4, 3))), ("a", tensor((2,), "int64")),
                                                        ("v", tensor((2,)))], "R.index_put(d, (a,), v)", tensor((4, 3))),
                       "struct_info", spec=["OP.index_put.C4"], tags=["op:index_put", "indexing", "invalid"]))
    a2, b2 = np.array([[3], [0]], "int64"), np.array([0, 2], "int64")
    v22 = f32(rng, 2, 2)
    put2 = d.copy()
    for pos in np.ndindex(2, 2):  # the indices broadcast to (2, 2); values read in row-major order
        put2[a2[pos[0], 0], b2[pos[1]]] = v22.reshape(-1)[pos[0] * 2 + pos[1]]
    out.append(Case("index_put_values_row_major",
                    module([("d", tensor((4, 3))), ("a", tensor((2, 1), "int64")), ("b", tensor((2,), "int64")),
                            ("v", tensor(("p", "q")))], "R.index_put(d, (a, b), v)", tensor((4, 3))),
                    runs=[([d, a2, b2, v22], put2), Fails([d, a2, b2, f32(rng, 1, 5)], "op_runtime",
                                                           note="5 values for 4 index positions")],
                    spec=["OP.SCATTER.5", "OP.SCATTER.1"], tags=["op:index_put", "indexing", "symbolic", "error"],
                    description="values (2, 2) fill the broadcast (2, 2) positions in row-major order"))
    src = f32(rng, 4, 2)
    ss = d.copy()
    for col in range(3):
        if col % 2 == 0:
            ss[:, col] = src[:, col // 2]
    out.append(Case("slice_scatter_step", module([("d", tensor(("n", 3))), ("s", tensor(("n", 2)))],
                                                 "R.slice_scatter(d, s, 0, 3, 2, axis=1)", tensor(("n", 3))),
                    runs=[([d, src], ss), ([d[:1], src[:1]], ss[:1])], spec=["OP.SCATTER.6", "OP.slice_scatter.C7"],
                    tags=["op:slice_scatter", "indexing", "symbolic"]))
    out.append(Invalid("slice_scatter_src_extent", module([("d", tensor((4, 3))), ("s", tensor((4, 1)))],
                                                          "R.slice_scatter(d, s, 0, 3, 2, axis=1)", tensor((4, 3))),
                       "struct_info", spec=["OP.slice_scatter.C7"], tags=["op:slice_scatter", "indexing", "invalid"]))
    return out


#: (name, op, parameters, call, return annotation, cited constraints): statically invalid operands
INVALID = [
    ("strided_slice_not_a_tensor", "strided_slice", [("x", 'R.Prim("int64")')], "R.strided_slice(x, [0], [0], [1])",
     tensor((1,)), ["OP.strided_slice.C2"]),
    ("strided_slice_int32_bounds", "strided_slice", [("x", tensor((4,)))],
     "R.strided_slice(x, (R.prim_value(T.int32(0)),), (R.prim_value(T.int32(0)),), (R.prim_value(T.int32(2)),))",
     tensor((2,)), ["OP.strided_slice.C3"]),
    ("strided_slice_lengths", "strided_slice", [("x", tensor((4, 4)))], "R.strided_slice(x, [0], [0, 1], [2])",
     tensor((2, 4)), ["OP.strided_slice.C4"]),
    ("dynamic_strided_slice_not_1d", "dynamic_strided_slice", [("x", tensor((4,))), ("b", tensor((1, 1), "int64"))],
     "R.dynamic_strided_slice(x, b, b, b)", tensor(1), ["OP.dynamic_strided_slice.C1"]),
    ("dynamic_strided_slice_int32", "dynamic_strided_slice", [("x", tensor((4,))), ("b", tensor((1,), "int32"))],
     "R.dynamic_strided_slice(x, b, b, b)", tensor(1), ["OP.dynamic_strided_slice.C3"]),
    ("gather_elements_not_a_tensor", "gather_elements", [("x", tensor((2,))), ("i", 'R.Prim("int64")')],
     "R.gather_elements(x, i)", tensor((2,)), ["OP.gather_elements.C1"]),
    ("gather_elements_float_indices", "gather_elements", [("x", tensor((2,))), ("i", tensor((2,)))],
     "R.gather_elements(x, i)", tensor((2,)), ["OP.gather_elements.C2"]),
    ("gather_elements_axis", "gather_elements", [("x", tensor((2,))), ("i", tensor((2,), "int64"))],
     "R.gather_elements(x, i, axis=1)", tensor((2,)), ["OP.gather_elements.C3"]),
    ("gather_nd_not_a_tensor", "gather_nd", [("x", 'R.Prim("float32")'), ("i", tensor((1, 1), "int64"))],
     "R.gather_nd(x, i)", tensor((1,)), ["OP.gather_nd.C1"]),
    ("gather_nd_batch_dims_too_large", "gather_nd", [("x", tensor((2, 2))), ("i", tensor((2, 1), "int64"))],
     "R.gather_nd(x, i, batch_dims=2)", tensor((2,)), ["OP.gather_nd.C3"]),
    ("gather_nd_tuple_too_long", "gather_nd", [("x", tensor((2, 2))), ("i", tensor((2, 3), "int64"))],
     "R.gather_nd(x, i)", tensor((2,)), ["OP.gather_nd.C4"]),
    ("index_tensor_empty", "index_tensor", [("x", tensor((2,)))], "R.index_tensor(x, ())", tensor((2,)),
     ["OP.index_tensor.C1"]),
    ("index_tensor_float_index", "index_tensor", [("x", tensor((2,))), ("i", tensor((2,)))], "R.index_tensor(x, (i,))",
     tensor((2,)), ["OP.index_tensor.C2"]),
    ("one_hot_not_prim_values", "one_hot", [("i", tensor((2,), "int64")), ("v", 'R.Prim("float32")')],
     "R.one_hot(i, v, R.prim_value(0.0), depth=2)", tensor((2, 2)), ["OP.one_hot.C1"]),
    ("one_hot_value_dtypes", "one_hot", [("i", tensor((2,), "int64"))],
     "R.one_hot(i, R.prim_value(1.0), R.prim_value(T.int64(0)), depth=2)", tensor((2, 2)), ["OP.one_hot.C2"]),
    ("one_hot_depth_zero", "one_hot", [("i", tensor((2,), "int64"))],
     "R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=0)", tensor((2, 0)), ["OP.one_hot.C3"]),
    ("scatter_elements_not_a_tensor", "scatter_elements", [("d", 'R.Prim("float32")'), ("i", tensor((1,), "int64")),
     ("u", tensor((1,)))], "R.scatter_elements(d, i, u)", tensor((1,)), ["OP.scatter_elements.C1"]),
    ("scatter_elements_rank", "scatter_elements", [("d", tensor((2, 2))), ("i", tensor((2,), "int64")),
     ("u", tensor((2,)))], "R.scatter_elements(d, i, u)", tensor((2, 2)), ["OP.scatter_elements.C2"]),
    ("scatter_elements_axis_out_of_range", "scatter_elements", [("d", tensor((2, 2))), ("i", tensor((2, 2), "int64")),
     ("u", tensor((2, 2)))], "R.scatter_elements(d, i, u, axis=2)", tensor((2, 2)), ["OP.scatter_elements.C7"]),
    ("scatter_elements_dtype", "scatter_elements", [("d", tensor((2,))), ("i", tensor((2,), "int64")),
     ("u", tensor((2,), "int32"))], "R.scatter_elements(d, i, u)", tensor((2,)), ["OP.scatter_elements.C3"]),
    ("scatter_elements_float_indices", "scatter_elements", [("d", tensor((2,))), ("i", tensor((2,))),
     ("u", tensor((2,)))], "R.scatter_elements(d, i, u)", tensor((2,)), ["OP.scatter_elements.C4"]),
    ("scatter_elements_shape", "scatter_elements", [("d", tensor((4,))), ("i", tensor((2,), "int64")),
     ("u", tensor((3,)))], "R.scatter_elements(d, i, u)", tensor((4,)), ["OP.scatter_elements.C5"]),
    ("scatter_nd_not_a_tensor", "scatter_nd", [("d", tensor((2,))), ("i", 'R.Prim("int64")'), ("u", tensor((1,)))],
     "R.scatter_nd(d, i, u)", tensor((2,)), ["OP.scatter_nd.C1"]),
    ("scatter_nd_dtype", "scatter_nd", [("d", tensor((2,))), ("i", tensor((1, 1), "int64")), ("u", tensor((1,), "int32"))],
     "R.scatter_nd(d, i, u)", tensor((2,)), ["OP.scatter_nd.C2"]),
    ("scatter_nd_float_indices", "scatter_nd", [("d", tensor((2,))), ("i", tensor((1, 1))), ("u", tensor((1,)))],
     "R.scatter_nd(d, i, u)", tensor((2,)), ["OP.scatter_nd.C3"]),
    ("scatter_nd_index_tuple_too_long", "scatter_nd", [("d", tensor((2, 2))), ("i", tensor((1, 3), "int64")),
     ("u", tensor(()))], "R.scatter_nd(d, i, u)", tensor((2, 2)), ["OP.scatter_nd.C4"]),
    ("scatter_nd_updates_rank", "scatter_nd", [("d", tensor((4, 3))), ("i", tensor((2, 1), "int64")),
     ("u", tensor((2,)))], "R.scatter_nd(d, i, u)", tensor((4, 3)), ["OP.scatter_nd.C5"]),
    ("scatter_nd_bad_reduction", "scatter_nd", [("d", tensor((2,))), ("i", tensor((1, 1), "int64")), ("u", tensor((1,)))],
     "R.scatter_nd(d, i, u, reduction='mean')", tensor((2,)), ["OP.scatter_nd.C7"]),
    ("index_put_not_a_tensor", "index_put", [("d", 'R.Prim("float32")'), ("i", tensor((1,), "int64")), ("v", tensor((1,)))],
     "R.index_put(d, (i,), v)", tensor((1,)), ["OP.index_put.C1"]),
    ("index_put_scalar_index", "index_put", [("d", tensor((2,))), ("i", tensor((), "int64")), ("v", tensor((1,)))],
     "R.index_put(d, (i,), v)", tensor((2,)), ["OP.index_put.C2"]),
    ("index_put_float_index", "index_put", [("d", tensor((2,))), ("i", tensor((1,))), ("v", tensor((1,)))],
     "R.index_put(d, (i,), v)", tensor((2,)), ["OP.index_put.C3"]),
    ("index_put_dtype", "index_put", [("d", tensor((2,))), ("i", tensor((1,), "int64")), ("v", tensor((1,), "int32"))],
     "R.index_put(d, (i,), v)", tensor((2,)), ["OP.index_put.C5"]),
    ("slice_scatter_not_a_tensor", "slice_scatter", [("d", tensor((4,))), ("s", 'R.Prim("float32")')],
     "R.slice_scatter(d, s, 0, 1, 1)", tensor((4,)), ["OP.slice_scatter.C1"]),
    ("slice_scatter_axis", "slice_scatter", [("d", tensor((4,))), ("s", tensor((1,)))],
     "R.slice_scatter(d, s, 0, 1, 1, axis=1)", tensor((4,)), ["OP.slice_scatter.C2"]),
    ("slice_scatter_rank", "slice_scatter", [("d", tensor((4,))), ("s", tensor((1, 1)))],
     "R.slice_scatter(d, s, 0, 1, 1)", tensor((4,)), ["OP.slice_scatter.C3"]),
    ("slice_scatter_dtype", "slice_scatter", [("d", tensor((4,))), ("s", tensor((1,), "int32"))],
     "R.slice_scatter(d, s, 0, 1, 1)", tensor((4,)), ["OP.slice_scatter.C4"]),
    ("slice_scatter_float_bound", "slice_scatter", [("d", tensor((4,))), ("s", tensor((1,)))],
     "R.slice_scatter(d, s, R.prim_value(T.float32(0.0)), 1, 1)", tensor((4,)), ["OP.slice_scatter.C5"]),
    ("slice_scatter_zero_step", "slice_scatter", [("d", tensor((4,))), ("s", tensor((1,)))],
     "R.slice_scatter(d, s, 0, 1, 0)", tensor((4,)), ["OP.slice_scatter.C6"]),
]


def invalid_cases():
    return [Invalid(name, module(params, call, ret), "struct_info", spec=spec, tags=[f"op:{op}", "indexing", "invalid"])
            for name, op, params, call, ret, spec in INVALID]


def generate():
    return {CATEGORY: take_cases() + slice_cases() + gather_cases() + scatter_cases() + invalid_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_index"])

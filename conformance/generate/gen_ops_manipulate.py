"""Manipulation operators (one page per operator under spec/ops/): ``reshape permute_dims expand_dims
squeeze flatten concat split broadcast_to collapse_sum_like collapse_sum_to repeat tile flip stack
meshgrid``.

Each operator gets a static case, a symbolic case run at two sizes, axis/attribute edge cases (negative
axes, empty dims, ``-1``/``0`` in reshape targets, ceil-size split sections with empty parts) and
invalid operands. Run-time failures are the checks the op pages require where TVM 0.25 reads out of
bounds (reshape element counts, DIV.25; squeeze of a non-unit symbolic dim).
``layout_transform`` cases use TVM's printed form of the index map, ``T.index_map(lambda ...)``.

Oracles: NumPy formulas written below; rejections are the cited constraints.
"""


import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Shape, via_float64

from case_helpers import f32, module, rng_for, tensor, tup

CATEGORY = "op_manipulate"


def reshape_cases():
    rng = rng_for("reshape")
    tags = ["op:reshape", "manipulation"]
    out = []
    x = f32(rng, 2, 3, 4)
    out.append(Case("reshape_static_minus_one", module([("x", tensor((2, 3, 4)))], "R.reshape(x, (4, -1))",
                                                        tensor((4, 6))),
                    runs=[([x], x.reshape(4, 6))], spec=["OP.reshape.C4", "OP.reshape.C5"], tags=tags + ["static"],
                    description="-1 is resolved when the call is built"))
    a, b = f32(rng, 2, 6), f32(rng, 5, 6)
    out.append(Case("reshape_symbolic_zero_minus_one",
                    module([("x", tensor(("n", 6)))], "R.reshape(x, (0, 2, -1))", tensor(("n", 2, 3))),
                    runs=[([v], v.reshape(v.shape[0], 2, 3)) for v in (a, b)],
                    spec=["OP.reshape.C4", "OP.reshape.C5"], tags=tags + ["symbolic"],
                    description="0 copies the input dim; -1 is (n * 6) // (n * 2) = 3"))
    out.append(Case("reshape_flatten_symbolic", module([("x", tensor(("n", "m")))], "R.reshape(x, (-1,))",
                                                       tensor(("n * m",))),
                    runs=[([v], v.reshape(-1)) for v in (a, f32(rng, 3, 1))],
                    spec=["OP.reshape.C5"], tags=tags + ["symbolic"]))
    out.append(Case("reshape_shape_param", module([("x", tensor((2, 6))), ("s", 'R.Shape(["a", "b"])')],
                                                  "R.reshape(x, s)", tensor(("a", "b"))),
                    runs=[([a, Shape([3, 4])], a.reshape(3, 4)), ([a, Shape([12, 1])], a.reshape(12, 1))],
                    spec=["OP.reshape.C4"], tags=tags + ["shape-var"],
                    description="a shape variable as target (TVM's legalization asserts)"))
    out.append(Case("reshape_count_mismatch_runtime",
                    module([("x", tensor(("b", 32)))], "R.reshape(x, (b, 72))", tensor(("b", 72))),
                    runs=[Fails([f32(rng, 2, 32)], "op_runtime"), ([np.zeros((0, 32), "float32")],
                                                                   np.zeros((0, 72), "float32"))],
                    spec=["OP.reshape.C3"], tags=tags + ["symbolic", "error"], oracle="spec-rule",
                    description="element counts differ only through the symbolic factor b"))
    out.append(Invalid("reshape_count_mismatch_static",
                       module([("x", tensor((2, 3)))], "R.reshape(x, (4, 2))", tensor((4, 2))),
                       "struct_info", spec=["OP.reshape.C3"], tags=tags + ["invalid"]))
    out.append(Invalid("reshape_not_a_tensor",
                       module([("x", 'R.Prim("int64")')], "R.reshape(x, (1,))", tensor((1,))),
                       "struct_info", spec=["OP.reshape.C1"], tags=tags + ["invalid"]))
    return out


def layout_cases():
    out = []
    rng = rng_for("layout")
    x = f32(rng, 2, 3, 4)
    out.append(Case("permute_dims_default_and_axes",
                    module([("x", tensor((2, 3, 4)))], "(R.permute_dims(x), R.permute_dims(x, axes=[1, -1, 0]))",
                           tup(tensor((4, 3, 2)), tensor((3, 4, 2)))),
                    runs=[([x], (x.transpose(), x.transpose(1, 2, 0)))], spec=["OP.permute_dims.C3"],
                    tags=["op:permute_dims", "manipulation", "static", "negative-axis"]))
    a, b = f32(rng, 2, 5), f32(rng, 4, 1)
    out.append(Case("permute_dims_symbolic", module([("x", tensor(("n", "m")))], "R.permute_dims(x)",
                                                    tensor(("m", "n"))),
                    runs=[([v], v.T) for v in (a, b)], spec=["OP.permute_dims.C3"],
                    tags=["op:permute_dims", "manipulation", "symbolic"]))
    out.append(Invalid("permute_dims_repeated_axis",
                       module([("x", tensor((2, 3)))], "R.permute_dims(x, axes=[0, -2])", tensor((2, 3))),
                       "struct_info", spec=["OP.permute_dims.C2", "NORM.OP.AXIS.1"],
                       tags=["op:permute_dims", "manipulation", "invalid"]))
    out.append(Invalid("permute_dims_axis_count",
                       module([("x", tensor((2, 3)))], "R.permute_dims(x, axes=[0])", tensor((2, 3))),
                       "struct_info", spec=["OP.permute_dims.C1"], tags=["op:permute_dims", "manipulation", "invalid"]))
    out.append(Case("expand_dims_negative_axes",
                    module([("x", tensor(("n", 3)))], "R.expand_dims(x, axis=[0, -1])", tensor((1, "n", 3, 1))),
                    runs=[([v], v[None, :, :, None]) for v in (f32(rng, 2, 3), f32(rng, 0, 3))],
                    spec=["OP.expand_dims.C1", "OP.expand_dims.C2"],
                    tags=["op:expand_dims", "manipulation", "symbolic", "negative-axis", "empty"]))
    out.append(Invalid("expand_dims_axis_out_of_range",
                       module([("x", tensor((2,)))], "R.expand_dims(x, axis=[2])", tensor((2, 1))),
                       "struct_info", spec=["OP.expand_dims.C1"], tags=["op:expand_dims", "manipulation", "invalid"]))
    y = f32(rng, 1, 3, 1)
    out.append(Case("squeeze_static", module([("x", tensor((1, 3, 1)))],
                                              "(R.squeeze(x), R.squeeze(x, axis=[-1]), R.squeeze(x, axis=[0, 1]))",
                                              tup(tensor((3,)), tensor((1, 3)), tensor((3, 1)))),
                    runs=[([y], (y.reshape(3), y.reshape(1, 3), y.reshape(3, 1)))],
                    spec=["OP.squeeze.C2"], tags=["op:squeeze", "manipulation", "static"],
                    description="a listed axis whose static extent is not 1 is kept (TVM's rule)"))
    one = f32(rng, 1, 3)
    out.append(Case("squeeze_symbolic_axis", module([("x", tensor(("n", 3)))], "R.squeeze(x, axis=[0])",
                                                    tensor((3,))),
                    runs=[([one], one.reshape(3)), Fails([f32(rng, 2, 3)], "op_runtime")],
                    spec=["OP.squeeze.C2", "OP.squeeze.C3"], tags=["op:squeeze", "manipulation", "symbolic", "error"],
                    oracle="spec-rule",
                    description="a symbolic dim is removed; it must be 1 at run time (TVM reads index 0)"))
    out.append(Case("flatten_symbolic", module([("x", tensor(("n", 2, 3)))], "R.flatten(x)", tensor(("n * 6",))),
                    runs=[([v], v.reshape(-1)) for v in (f32(rng, 2, 2, 3), f32(rng, 0, 2, 3))],
                    spec=["OP.flatten.C1"], tags=["op:flatten", "manipulation", "symbolic", "empty"]))
    z = np.array(2.5, "float32")
    out.append(Case("flatten_scalar", module([("x", tensor(()))], "R.flatten(x)", tensor((1,))),
                    runs=[([z], z.reshape(1))], spec=["OP.flatten.C1"], tags=["op:flatten", "manipulation", "static"]))
    return out


def join_cases():
    out = []
    rng = rng_for("join")
    a, b = f32(rng, 2, 3), f32(rng, 4, 3)
    out.append(Case("concat_static", module([("a", tensor((2, 3))), ("b", tensor((4, 3)))],
                                            "R.concat((a, b, a), axis=-2)", tensor((8, 3))),
                    runs=[([a, b], np.concatenate([a, b, a]))], spec=["OP.concat.C4"],
                    tags=["op:concat", "manipulation", "static", "negative-axis"]))
    out.append(Case("concat_symbolic", module([("a", tensor((2, "n"))), ("b", tensor((2, "m")))],
                                              "R.concat((a, b), axis=1)", tensor((2, "n + m"))),
                    runs=[([u, v], np.concatenate([u, v], 1)) for u, v in
                          ((f32(rng, 2, 1), f32(rng, 2, 3)), (f32(rng, 2, 0), f32(rng, 2, 2)))],
                    spec=["OP.concat.C4"], tags=["op:concat", "manipulation", "symbolic", "empty"]))
    out.append(Case("concat_runtime_mismatch", module([("a", tensor(("n", "k"))), ("b", tensor(("m", "j")))],
                                                      "R.concat((a, b))", tensor(2)),
                    runs=[([a, b], np.concatenate([a, b])), Fails([a, f32(rng, 2, 4)], "op_runtime")],
                    spec=["OP.concat.C5"], tags=["op:concat", "manipulation", "symbolic", "error"], oracle="spec-rule"))
    out.append(Invalid("concat_dtype_mismatch", module([("a", tensor((2,))), ("b", tensor((2,), "int32"))],
                                                       "R.concat((a, b))", tensor((4,))),
                       "struct_info", spec=["OP.concat.C2"], tags=["op:concat", "manipulation", "invalid"]))
    out.append(Invalid("concat_shape_mismatch", module([("a", tensor((2, 3))), ("b", tensor((2, 4)))],
                                                       "R.concat((a, b))", tensor((4, 3))),
                       "struct_info", spec=["OP.concat.C5"], tags=["op:concat", "manipulation", "invalid"]))
    x = f32(rng, 4, 5)
    out.append(Case("split_sections_empty_part",
                    module([("x", tensor((4, 5)))], "R.split(x, 3)",
                           tup(tensor((2, 5)), tensor((2, 5)), tensor((0, 5)))),
                    runs=[([x], (x[:2], x[2:4], x[4:]))], spec=["OP.split.C2", "OP.split.C4"],
                    tags=["op:split", "manipulation", "static", "empty"],
                    description="sections of ceil(4 / 3) = 2 rows; the last part is empty"))
    out.append(Case("split_indices", module([("x", tensor((4, 5)))], "R.split(x, [1, 3], axis=-1)",
                                            tup(tensor((4, 1)), tensor((4, 2)), tensor((4, 2)))),
                    runs=[([x], (x[:, :1], x[:, 1:3], x[:, 3:]))], spec=["OP.split.C3", "OP.split.C4"],
                    tags=["op:split", "manipulation", "static", "negative-axis"]))
    out.append(Case("split_indices_clamped", module([("x", tensor((4, 5)))], "R.split(x, [3, 1, 9])",
                                                    tup(tensor((3, 5)), tensor((0, 5)), tensor((3, 5)), tensor((0, 5)))),
                    runs=[([x], (x[:3], x[3:1], x[1:], x[4:]))], spec=["OP.split.C3"],
                    tags=["op:split", "manipulation", "static", "empty"],
                    description="cut points clamp to [0, d]; an unsorted point gives an empty part"))
    out.append(Case("split_sections_symbolic",
                    module([("x", tensor(("n", 3)))], "R.split(x, 2)",
                           tup(tensor(("(n + 1) // 2", 3)), tensor(("n - (n + 1) // 2", 3)))),
                    runs=[([v], (v[:(len(v) + 1) // 2], v[(len(v) + 1) // 2:])) for v in (f32(rng, 5, 3), f32(rng, 2, 3))],
                    spec=["OP.split.C2", "OP.split.C4"], tags=["op:split", "manipulation", "symbolic"]))
    out.append(Invalid("split_zero_sections", module([("x", tensor((4, 5)))], "R.split(x, 2, axis=2)",
                                                     tup(tensor((4, 5)), tensor((4, 5)))),
                       "struct_info", spec=["OP.split.C1", "NORM.OP.AXIS.1"],
                       tags=["op:split", "manipulation", "invalid"]))
    s = f32(rng, 3)
    out.append(Case("stack_axes", module([("a", tensor(("n",))), ("b", tensor(("n",)))],
                                         "(R.stack((a, b)), R.stack((a, b, a), axis=-1))",
                                         tup(tensor((2, "n")), tensor(("n", 3)))),
                    runs=[([u, v], (np.stack([u, v]), np.stack([u, v, u], -1))) for u, v in
                          ((s, s + 1), (f32(rng, 0), f32(rng, 0)))],
                    spec=["OP.stack.C4"], tags=["op:stack", "manipulation", "symbolic", "negative-axis", "empty"]))
    out.append(Case("stack_runtime_mismatch", module([("a", tensor(("n",))), ("b", tensor(("m",)))],
                                                     "R.stack((a, b))", tensor(2)),
                    runs=[([s, s], np.stack([s, s])), Fails([s, f32(rng, 2)], "op_runtime")],
                    spec=["OP.stack.C5"], tags=["op:stack", "manipulation", "error"], oracle="spec-rule"))
    out.append(Invalid("stack_shape_mismatch", module([("a", tensor((2,))), ("b", tensor((3,)))],
                                                      "R.stack((a, b))", tensor((2, 2))),
                       "struct_info", spec=["OP.stack.C5"], tags=["op:stack", "manipulation", "invalid"]))
    p, q = np.arange(3, dtype="int64"), np.arange(2, dtype="int64") + 10
    out.append(Case("meshgrid_ij", module([("a", tensor(("n",), "int64")), ("b", tensor((2,), "int64"))],
                                          "R.meshgrid((a, b))", tup(tensor(("n", 2), "int64"), tensor(("n", 2), "int64"))),
                    runs=[([u, q], tuple(np.meshgrid(u, q, indexing="ij"))) for u in (p, p[:1])],
                    spec=["OP.meshgrid.C3"], tags=["op:meshgrid", "manipulation", "symbolic"]))
    out.append(Invalid("meshgrid_not_1d", module([("a", tensor((2, 2), "int64"))], "R.meshgrid((a,))",
                                                 tup(tensor((2,), "int64"))),
                       "struct_info", spec=["OP.meshgrid.C1"], tags=["op:meshgrid", "manipulation", "invalid"]))
    return out


def broadcast_cases():
    out = []
    rng = rng_for("broadcast")
    x = f32(rng, 1, 3)
    out.append(Case("broadcast_to_symbolic", module([("x", tensor((1, "n")))], 'R.broadcast_to(x, R.shape([2, 4, n]))',
                                                    tensor((2, 4, "n"))),
                    runs=[([v], np.broadcast_to(v, (2, 4) + v.shape[1:]).copy()) for v in (x, f32(rng, 1, 0))],
                    spec=["OP.broadcast_to.C4"], tags=["op:broadcast_to", "manipulation", "symbolic", "empty"]))
    out.append(Case("broadcast_to_runtime_check", module([("x", tensor(("n", "m")))],
                                                         "R.broadcast_to(x, R.shape([3, 4]))", tensor((3, 4))),
                    runs=[([v], np.broadcast_to(v, (3, 4)).copy()) for v in (f32(rng, 1, 4), f32(rng, 3, 1))]
                    + [Fails([f32(rng, 2, 4)], "op_runtime")],
                    spec=["OP.broadcast_to.C3"], tags=["op:broadcast_to", "manipulation", "symbolic", "error"],
                    oracle="spec-rule", description="a symbolic dim must be 1 or the target dim at run time"))
    out.append(Invalid("broadcast_to_incompatible", module([("x", tensor((2, 3)))],
                                                           "R.broadcast_to(x, R.shape([4, 3, 3]))", tensor((4, 3, 3))),
                       "struct_info", spec=["OP.broadcast_to.C3"], tags=["op:broadcast_to", "manipulation", "invalid"]))
    y = f32(rng, 2, 4, 3)
    out.append(Case("collapse_sum_to_static", module([("x", tensor((2, 4, 3)))],
                                                     "R.collapse_sum_to(x, R.shape([4, 1]))", tensor((4, 1))),
                    runs=[([y], via_float64(lambda v: v.sum(axis=(0, 2)).reshape(4, 1), y))],
                    spec=["OP.collapse_sum_to.C3", "OP.collapse_sum_to.C4"],
                    tags=["op:collapse_sum_to", "manipulation", "static"]))
    out.append(Case("collapse_sum_like_symbolic", module([("x", tensor((2, "n", 3))), ("t", tensor(("n", 1)))],
                                                         "R.collapse_sum_like(x, t)", tensor(("n", 1))),
                    runs=[([v, np.zeros((v.shape[1], 1), "float32")],
                           via_float64(lambda a: a.sum(axis=(0, 2)).reshape(-1, 1), v))
                          for v in (y.transpose(0, 1, 2), f32(rng, 2, 1, 3))],
                    spec=["OP.collapse_sum_like.C3"], tags=["op:collapse_sum_like", "manipulation", "symbolic"]))
    out.append(Invalid("collapse_sum_to_mismatch", module([("x", tensor((2, 3)))],
                                                          "R.collapse_sum_to(x, R.shape([2]))", tensor((2,))),
                       "struct_info", spec=["OP.collapse_sum_to.C3"],
                       tags=["op:collapse_sum_to", "manipulation", "invalid"]))
    return out


def repeat_cases():
    out = []
    rng = rng_for("repeat")
    x = f32(rng, 2, 3)
    out.append(Case("repeat_axis_and_flat", module([("x", tensor(("n", 3)))],
                                                   "(R.repeat(x, 2, axis=-1), R.repeat(x, 3))",
                                                   tup(tensor(("n", 6)), tensor(("n * 9",)))),
                    runs=[([v], (np.repeat(v, 2, -1), np.repeat(v.reshape(-1), 3))) for v in (x, f32(rng, 1, 3))],
                    spec=["OP.repeat.C3"], tags=["op:repeat", "manipulation", "symbolic", "negative-axis"]))
    out.append(Invalid("repeat_axis_out_of_range", module([("x", tensor((2,)))], "R.repeat(x, 2, axis=1)",
                                                          tensor((4,))),
                       "struct_info", spec=["OP.repeat.C1"], tags=["op:repeat", "manipulation", "invalid"]))
    out.append(Case("tile_longer_and_shorter", module([("x", tensor(("n", 3)))],
                                                      "(R.tile(x, [2, 1, 2]), R.tile(x, 2))",
                                                      tup(tensor((2, "n", 6)), tensor(("n", 6)))),
                    runs=[([v], (np.tile(v, (2, 1, 2)), np.tile(v, 2))) for v in (x, f32(rng, 0, 3))],
                    spec=["OP.tile.C2"], tags=["op:tile", "manipulation", "symbolic", "empty"]))
    out.append(Case("flip_axes", module([("x", tensor(("n", 3)))], "(R.flip(x, axis=0), R.flip(x, axis=-1))",
                                        tup(tensor(("n", 3)), tensor(("n", 3)))),
                    runs=[([v], (v[::-1], v[:, ::-1])) for v in (x, f32(rng, 4, 3))],
                    spec=["OP.flip.C1"], tags=["op:flip", "manipulation", "symbolic", "negative-axis"]))
    out.append(Invalid("flip_axis_out_of_range", module([("x", tensor((2, 3)))], "R.flip(x, axis=2)", tensor((2, 3))),
                       "struct_info", spec=["OP.flip.C1"], tags=["op:flip", "manipulation", "invalid"]))
    return out


def layout_transform_cases():
    rng = rng_for("layout_transform")
    tags = ["op:layout_transform", "manipulation"]
    out = []
    x = f32(rng, 2, 3)
    out.append(Case("layout_transform_permute", module([("x", tensor((2, 3)))],
                                                       "R.layout_transform(x, index_map=T.index_map(lambda a, b: (b, a)))",
                                                       tensor((3, 2))),
                    runs=[([x], x.T.copy())], spec=["OP.layout_transform.C3", "OP.layout_transform.C4"],
                    tags=tags + ["static"]))

    def split_pad(v, pad):
        p = np.pad(v, ((0, 0), (0, (-v.shape[1]) % 2)), constant_values=pad)
        return p.reshape(v.shape[0], 3, 2)

    out.append(Case("layout_transform_split_padded_symbolic",
                    module([("x", tensor(("n", 5)))],
                           "R.layout_transform(x, index_map=T.index_map(lambda a, b: (a, b // 2, b % 2)), "
                           "pad_value=R.prim_value(T.float32(1.5)))", tensor(("n", 3, 2))),
                    runs=[([v], split_pad(v, 1.5)) for v in (f32(rng, 2, 5), f32(rng, 0, 5))],
                    spec=["OP.layout_transform.C3", "OP.layout_transform.C4"], tags=tags + ["symbolic", "padding"],
                    description="the unmapped position of the padded last block holds the pad value"))
    i = np.arange(7 * 2, dtype="int32").reshape(7, 2)
    want = np.zeros((3, 2, 3), "int32")
    for a in range(7):
        want[a // 3, :, a % 3] = i[a]
    out.append(Case("layout_transform_default_pad_int",
                    module([("x", tensor((7, 2), "int32"))],
                           "R.layout_transform(x, index_map=T.index_map(lambda a, b: (a // 3, b, a % 3)))",
                           tensor((3, 2, 3), "int32")),
                    runs=[([i], want)], spec=["OP.layout_transform.C3", "OP.layout_transform.C4"],
                    tags=tags + ["static", "padding"], description="without pad_value the padding is 0"))
    out.append(Invalid("layout_transform_pad_dtype", module([("x", tensor((2, 3)))],
                                                            "R.layout_transform(x, index_map=T.index_map(lambda a, b: "
                                                            "(b, a)), pad_value=R.prim_value(T.int32(1)))",
                                                            tensor((3, 2))),
                       "struct_info", spec=["OP.layout_transform.C1"], tags=tags + ["invalid"]))
    out.append(Invalid("layout_transform_arity", module([("x", tensor((2, 3)))],
                                                        "R.layout_transform(x, index_map=T.index_map(lambda a: (a,)))",
                                                        tensor((2,))),
                       "struct_info", spec=["OP.layout_transform.C2"], tags=tags + ["invalid"]))
    return out


#: (name, op, parameters, call, return annotation, cited constraints): statically invalid operands
INVALID = [
    ("reshape_shape_not_a_shape", "reshape", [("x", tensor((2,))), ("s", tensor((2,), "int64"))], "R.reshape(x, s)",
     tensor((2,)), ["OP.reshape.C2"]),
    ("squeeze_axis_out_of_range", "squeeze", [("x", tensor((1, 2)))], "R.squeeze(x, axis=[2])", tensor((2,)),
     ["OP.squeeze.C1"]),
    ("concat_rank_mismatch", "concat", [("a", tensor((2,))), ("b", tensor((2, 1)))], "R.concat((a, b))", tensor((4,)),
     ["OP.concat.C1", "OP.concat.C3"]),
    ("broadcast_to_rank_too_small", "broadcast_to", [("x", tensor((2, 3)))], "R.broadcast_to(x, R.shape([3]))",
     tensor((3,)), ["OP.broadcast_to.C1", "OP.broadcast_to.C2"]),
    ("collapse_sum_to_data_not_tensor", "collapse_sum_to", [("x", 'R.Prim("float32")')],
     "R.collapse_sum_to(x, R.shape([1]))", tensor((1,)), ["OP.collapse_sum_to.C1", "OP.collapse_sum_to.C2"]),
    ("collapse_sum_like_target_mismatch", "collapse_sum_like", [("x", tensor((2, 3))), ("t", tensor((2,)))],
     "R.collapse_sum_like(x, t)", tensor((2,)), ["OP.collapse_sum_like.C1", "OP.collapse_sum_like.C2"]),
    ("repeat_negative", "repeat", [("x", tensor((2,)))], "R.repeat(x, -1, axis=0)", tensor((2,)), ["OP.repeat.C2"]),
    ("tile_negative", "tile", [("x", tensor((2,)))], "R.tile(x, [-1])", tensor((2,)), ["OP.tile.C1"]),
    ("stack_dtype_mismatch", "stack", [("a", tensor((2,))), ("b", tensor((2,), "int32"))], "R.stack((a, b))",
     tensor((2, 2)), ["OP.stack.C1", "OP.stack.C2"]),
    ("stack_rank_mismatch", "stack", [("a", tensor((2,))), ("b", tensor((2, 1)))], "R.stack((a, b))", tensor((2, 2)),
     ["OP.stack.C3"]),
    ("meshgrid_dtype_mismatch", "meshgrid", [("a", tensor((2,), "int64")), ("b", tensor((2,), "int32"))],
     "R.meshgrid((a, b))", tup(tensor((2, 2), "int64"), tensor((2, 2), "int64")), ["OP.meshgrid.C2"]),
    ("meshgrid_unknown_indexing", "meshgrid", [("a", tensor((2,), "int64"))], 'R.meshgrid((a,), indexing="ab")',
     tup(tensor((2,), "int64")), ["OP.meshgrid.C4"]),
]


def invalid_cases():
    return [Invalid(name, module(params, call, ret), "struct_info", spec=spec, tags=[f"op:{op}", "manipulation", "invalid"])
            for name, op, params, call, ret, spec in INVALID]


def generate():
    return {CATEGORY: reshape_cases() + layout_cases() + join_cases() + broadcast_cases() + repeat_cases() + invalid_cases() + layout_transform_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_manipulate"])

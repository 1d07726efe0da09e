"""Gradient operators (spec/ops/grad.*.md): the identity markers and the backward operators of
``take``, ``nn.nll_loss``, ``nn.max_pool2d`` and ``nn.avg_pool2d``.

Oracles: numpy formulas written here (a scatter-add loop for take's gradient, the one-hot weighted
gradient of the negative log-likelihood, a loop over the pooling windows) and values worked out by
hand.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import module, module_body, rng_for, tensor

CATEGORY = "op_grad"


def marker_cases():
    out = []
    rng = rng_for("grad_markers")
    x = rng.standard_normal((2, 3)).astype("float32")
    for op in ("no_grad", "start_checkpoint", "end_checkpoint"):
        tags = [f"op:grad.{op}", "gradient"]
        ids = [f"OP.grad.{op}.C1"]
        out.append(Case(f"{op}_identity", module([("x", tensor((2, 3)))], f"R.grad.{op}(x)", tensor((2, 3))),
                        runs=[([x], x)], spec=ids, tags=tags))
        body = (f"a = R.grad.{op}(x)\n"
                "b = R.add(a, x)\n"
                "y = (a, b)")
        out.append(Case(f"{op}_symbolic_in_expression", module_body([("x", tensor(("n",), "int32"))], body),
                        runs=[([np.arange(n, dtype="int32")], (np.arange(n, dtype="int32"),
                                                               2 * np.arange(n, dtype="int32"))) for n in (0, 3)],
                        spec=ids, tags=tags + ["symbolic", "edge"]))
    out.append(Invalid("start_checkpoint_of_constant", module([("x", tensor((2,)))],
                                                              'R.grad.start_checkpoint(R.const(1, "float32"))'),
                       "struct_info", spec=["OP.grad.start_checkpoint.C1"],
                       tags=["op:grad.start_checkpoint", "gradient", "invalid"]))
    out.append(Invalid("end_checkpoint_of_constant", module([("x", tensor((2,)))],
                                                            'R.grad.end_checkpoint(R.const(1, "float32"))'),
                       "struct_info", spec=["OP.grad.end_checkpoint.C1"],
                       tags=["op:grad.end_checkpoint", "gradient", "invalid"]))
    out.append(Case("no_grad_of_tuple", module_body([("x", tensor((2,)))], "tp = (x, x)\ny = R.grad.no_grad(tp)"),
                    runs=[([x[0, :2].copy()], (x[0, :2].copy(), x[0, :2].copy()))], spec=["OP.grad.no_grad.C1"],
                    tags=["op:grad.no_grad", "gradient", "edge"], description="any argument, not only a tensor"))
    return out


def take_grad_np(g, x_shape, idx, axis):
    out = np.zeros(x_shape if axis is not None else (int(np.prod(x_shape)),), "float64")
    moved = np.moveaxis(out, 0 if axis is None else axis, 0)
    gm = np.moveaxis(g.astype("float64").reshape(-1) if axis is None else g.astype("float64"),
                     0 if axis is None else axis, 0)
    for l, i in enumerate(idx):
        moved[i] += gm[l]
    return out.reshape(x_shape).astype("float32")


def take_backward_cases():
    tags = ["op:grad.take_backward", "gradient"]
    ids = ["OP.grad.take_backward.C1"]
    out = []
    out.append(Case("take_backward_hand", module([("g", tensor((3,))), ("x", tensor((4,))), ("i", tensor((3,), "int64"))],
                                                 "R.grad.take_backward(g, x, i, axis=0)", tensor((4,))),
                    runs=[([np.array([1, 2, 3], "float32"), np.zeros(4, "float32"), np.array([2, 0, 2])],
                           np.array([2, 0, 4, 0], "float32"))], spec=ids, tags=tags, oracle="hand",
                    description="index 2 twice: 1 + 3"))
    rng = rng_for("take_backward")
    g = rng.standard_normal((2, 5, 3)).astype("float32")
    idx = np.array([0, 3, 3, 1, 3], "int32")
    out.append(Case("take_backward_axis_1_repeats",
                    module([("g", tensor((2, 5, 3))), ("x", tensor((2, 4, 3))), ("i", tensor((5,), "int32"))],
                           "R.grad.take_backward(g, x, i, axis=1)", tensor((2, 4, 3))),
                    runs=[([g, np.zeros((2, 4, 3), "float32"), idx], take_grad_np(g, (2, 4, 3), idx, 1))],
                    spec=ids, tags=tags, rtol=1e-5, atol=1e-6))
    g1 = rng.standard_normal(4).astype("float32")
    i1 = np.array([5, 0, 5, 2], "int64")
    out.append(Case("take_backward_flattened",
                    module([("g", tensor((4,))), ("x", tensor((2, 3))), ("i", tensor((4,), "int64"))],
                           "R.grad.take_backward(g, x, i)", tensor((2, 3))),
                    runs=[([g1, np.zeros((2, 3), "float32"), i1], take_grad_np(g1, (2, 3), i1, None)),
                          Fails([g1, np.zeros((2, 3), "float32"), np.array([5, 0, 6, 2], "int64")], "op_runtime")],
                    spec=ids + ["OP.grad.take_backward.C3"], tags=tags + ["edge"],
                    description="no axis: indices into the flattened x; then index 6 of 6 elements"))
    out.append(Invalid("take_backward_2d_indices",
                       module([("g", tensor((4,))), ("x", tensor((2, 3))), ("i", tensor((2, 2), "int64"))],
                              "R.grad.take_backward(g, x, i)"), "struct_info", spec=["OP.grad.take_backward.C2"],
                       tags=tags + ["invalid"]))
    return out


def nll_grad_np(g, p_shape, t, w, red, ign):
    c = p_shape[0] if len(p_shape) == 1 else p_shape[1]
    w = np.ones(c) if w is None else w.astype("float64")
    keep = t != ign
    tc = np.where(keep, t, 0)
    wt = np.where(keep, w[tc], 0.0)
    gg = np.broadcast_to(np.asarray(g, "float64"), t.shape)
    if red == "mean":
        gg = gg / wt.sum()
    out = np.zeros(p_shape)
    for pos in np.ndindex(*t.shape):
        if keep[pos]:
            full = (pos[0], tc[pos]) + pos[1:] if len(p_shape) > 1 else (tc[pos],)
            out[full] = -wt[pos] * gg[pos]
    return out.astype("float32")


def nll_backward_cases():
    tags = ["op:grad.nll_loss_backward", "gradient"]
    ids = ["OP.grad.nll_loss_backward.C1"]
    out = []
    out.append(Case("nll_loss_backward_sum_hand",
                    module([("g", tensor(())), ("p", tensor((2, 3))), ("t", tensor((2,), "int64"))],
                           'R.grad.nll_loss_backward(g, p, t, reduction="sum")', tensor((2, 3))),
                    runs=[([np.array(2, "float32"), np.zeros((2, 3), "float32"), np.array([1, 2])],
                           np.array([[0, -2, 0], [0, 0, -2]], "float32"))], spec=ids, tags=tags, oracle="hand"))
    rng = rng_for("nll_backward")
    p = rng.standard_normal((3, 4, 2)).astype("float32")
    t = np.array([[0, 1], [3, 2], [1, 1]], "int64")
    w = rng.uniform(0.5, 2, 4).astype("float32")
    g = np.array(1.5, "float32")
    out.append(Case("nll_loss_backward_mean_weights_ignore",
                    module([("g", tensor(())), ("p", tensor((3, 4, 2))), ("t", tensor((3, 2), "int64")),
                            ("w", tensor((4,)))],
                           'R.grad.nll_loss_backward(g, p, t, w, reduction="mean", ignore_index=1)', tensor((3, 4, 2))),
                    runs=[([g, p, t, w], nll_grad_np(g, p.shape, t, w, "mean", 1))], spec=ids, tags=tags,
                    rtol=1e-5, atol=1e-6, description="class 1 ignored: its targets give 0 and leave the weight sum"))
    gn = rng.standard_normal(3).astype("float32")
    tn = np.array([2, -100, 0], "int64")
    out.append(Case("nll_loss_backward_none_default_ignore",
                    module([("g", tensor((3,))), ("p", tensor((3, 4))), ("t", tensor((3,), "int64"))],
                           'R.grad.nll_loss_backward(g, p, t, reduction="none")', tensor((3, 4))),
                    runs=[([gn, p[:, :, 0].copy(), tn], nll_grad_np(gn, (3, 4), tn, None, "none", -100)),
                          Fails([gn, p[:, :, 0].copy(), np.array([2, 4, 0], "int64")], "op_runtime")],
                    spec=ids + ["OP.grad.nll_loss_backward.C3"], tags=tags + ["edge"],
                    description="a target of -100 is ignored; then target 4 of 4 classes"))
    out.append(Invalid("nll_loss_backward_bad_reduction",
                       module([("g", tensor(())), ("p", tensor((2, 3))), ("t", tensor((2,), "int64"))],
                              'R.grad.nll_loss_backward(g, p, t, reduction="max")'), "struct_info",
                       spec=["OP.grad.nll_loss_backward.C2"], tags=tags + ["invalid"]))
    out.append(Case("nll_loss_backward_weights_not_of_the_classes",
                    module([("g", tensor(())), ("p", tensor(("n", "c"))), ("t", tensor(("n",), "int64")),
                            ("w", tensor(("k",)))],
                           'R.grad.nll_loss_backward(g, p, t, w, reduction="sum")', tensor(("n", "c"))),
                    runs=[Fails([np.array(1, "float32"), np.zeros((2, 6), "float32"), np.array([4, 1], "int64"),
                                 np.ones((4,), "float32")], "op_runtime")],
                    spec=["OP.grad.nll_loss_backward.C4"], tags=tags + ["edge"],
                    description="6 classes and 4 weights, a target 4: refused before a weight is read"))
    out.append(Invalid("nll_loss_backward_weights_known_unequal",
                       module([("g", tensor(())), ("p", tensor((2, 6))), ("t", tensor((2,), "int64")),
                               ("w", tensor((4,)))],
                              'R.grad.nll_loss_backward(g, p, t, w, reduction="sum")'), "struct_info",
                       spec=["OP.grad.nll_loss_backward.C4"], tags=tags + ["invalid"]))
    return out


def _pool_out(n, k, s, pb, pe, d, ceil_mode):
    span = n + pb + pe - d * (k - 1) - 1
    o = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + pb:
        o -= 1               # a last window that would start in the end padding is dropped
    return o


def pool_grad_np(kind, g, x, k, s, p, d=(1, 1), ceil_mode=False, include_pad=False):
    """A loop over the windows of the forward pool (NCHW): the max's gradient goes to the first
    position (row-major) holding the window's maximum, the average's is shared by the window's
    positions, divided by the forward's element count."""
    n, c, h, w = x.shape
    oh = _pool_out(h, k[0], s[0], p[0], p[2], d[0], ceil_mode)
    ow = _pool_out(w, k[1], s[1], p[1], p[3], d[1], ceil_mode)
    assert g.shape == (n, c, oh, ow)
    out = np.zeros(x.shape, "float64")
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        pos = [(i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + e * d[1]) for a in range(k[0]) for e in range(k[1])]
        inside = [(y, z) for y, z in pos if 0 <= y < h and 0 <= z < w]
        if kind == "max":
            vals = [x[b, ch, y, z] if (y, z) in inside else -np.inf for y, z in pos]
            y, z = pos[int(np.argmax(vals))]          # argmax: the first of equal maxima
            if (y, z) in inside:
                out[b, ch, y, z] += g[b, ch, i, j]
            continue
        if include_pad:       # positions inside the explicitly padded input
            cnt = sum(1 for y, z in pos if -p[0] <= y < h + p[2] and -p[1] <= z < w + p[3])
        else:
            cnt = max(len(inside), 1)
        for y, z in inside:
            out[b, ch, y, z] += g[b, ch, i, j] / cnt
    return out.astype(x.dtype)


def _pool_call(kind, attrs):
    return f"R.grad.{kind}_pool2d_backward(g, x{attrs})"


def pool_backward_cases():
    out = []
    rng = rng_for("pool_backward")
    x4 = np.array([[3, 1, 0, 2], [5, 4, 7, 7], [1, 0, 2, 6], [9, 8, 3, 1]], "float32").reshape(1, 1, 4, 4)
    g2 = np.array([1, 2, 3, 4], "float32").reshape(1, 1, 2, 2)
    params4 = [("g", tensor((1, 1, 2, 2))), ("x", tensor((1, 1, 4, 4)))]
    for kind, want, note in (
            ("max", [[0, 0, 0, 0], [1, 0, 2, 0], [0, 0, 0, 4], [3, 0, 0, 0]],
             "2x2 windows of stride 2: each gradient to its window's maximum (7, 7: the first)"),
            ("avg", [[.25, .25, .5, .5], [.25, .25, .5, .5], [.75, .75, 1, 1], [.75, .75, 1, 1]],
             "2x2 windows of stride 2: each gradient shared by its four positions")):
        tags = [f"op:grad.{kind}_pool2d_backward", "gradient"]
        ids = [f"OP.grad.{kind}_pool2d_backward.C1", f"OP.grad.{kind}_pool2d_backward.C4"]
        out.append(Case(f"{kind}_pool2d_backward_hand",
                        module(params4, _pool_call(kind, ", pool_size=[2, 2], strides=[2, 2]"), tensor((1, 1, 4, 4))),
                        runs=[([g2, x4], np.array(want, "float32").reshape(1, 1, 4, 4))], spec=ids, tags=tags,
                        oracle="hand", description=note))
    # overlapping windows with padding, NHWC
    x = rng.standard_normal((2, 5, 6, 3)).astype("float32")
    xc = x.transpose(0, 3, 1, 2)
    for kind in ("max", "avg"):
        tags = [f"op:grad.{kind}_pool2d_backward", "gradient", "layout"]
        ids = [f"OP.grad.{kind}_pool2d_backward.C1", f"OP.grad.{kind}_pool2d_backward.C4"]
        g = rng.standard_normal((2, 3, 3, 3)).astype("float32")
        want = pool_grad_np(kind, g, xc, (3, 3), (2, 2), (1, 1, 1, 1)).transpose(0, 2, 3, 1)
        attrs = ', pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout="NHWC"'
        bad_g = np.zeros((2, 3, 2, 3), "float32")
        out.append(Case(f"{kind}_pool2d_backward_overlap_padding_nhwc",
                        module([("g", tensor((2, 3, 3, 3))), ("x", tensor((2, 5, 6, 3)))], _pool_call(kind, attrs),
                               tensor((2, 5, 6, 3))),
                        runs=[([g.transpose(0, 2, 3, 1).copy(), x], want)], spec=ids, tags=tags, rtol=1e-5, atol=1e-6,
                        description="3x3 windows of stride 2 overlap; padding 1; NHWC"))
        out.append(Case(f"{kind}_pool2d_backward_grad_shape_mismatch",
                        module([("g", tensor((2, 3, 2, 3))), ("x", tensor((2, 3, 5, 6)))],
                               _pool_call(kind, ", pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]"),
                               tensor((2, 3, 5, 6))),
                        runs=[Fails([bad_g, xc.copy()], "op_runtime")],
                        spec=[f"OP.grad.{kind}_pool2d_backward.C3"], tags=tags[:2] + ["edge"],
                        description="output_grad (2, 3, 2, 3) for a pool result of (2, 3, 3, 3)"))
        out.append(Invalid(f"{kind}_pool2d_backward_dtype_mismatch",
                           module([("g", tensor((1, 1, 2, 2), "float16")), ("x", tensor((1, 1, 4, 4)))],
                                  _pool_call(kind, ", pool_size=[2, 2], strides=[2, 2]")),
                           "struct_info", spec=[f"OP.grad.{kind}_pool2d_backward.C2"], tags=tags[:2] + ["invalid"]))
    # ceil mode (avg counting the padding), dilation (max)
    xa = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    ga = rng.standard_normal((1, 2, 3, 3)).astype("float32")
    out.append(Case("avg_pool2d_backward_ceil_count_pad",
                    module([("g", tensor((1, 2, 3, 3))), ("x", tensor((1, 2, 5, 5)))],
                           _pool_call("avg", ", pool_size=[2, 2], strides=[2, 2], ceil_mode=True, "
                                             "count_include_pad=True"), tensor((1, 2, 5, 5))),
                    runs=[([ga, xa], pool_grad_np("avg", ga, xa, (2, 2), (2, 2), (0, 0, 0, 0), ceil_mode=True,
                                                  include_pad=True))],
                    spec=["OP.grad.avg_pool2d_backward.C4"], tags=["op:grad.avg_pool2d_backward", "gradient", "edge"],
                    rtol=1e-5, atol=1e-6,
                    description="the last windows hang over the end: counted without the ceil padding (1 or 2)"))
    gd = rng.standard_normal((1, 2, 3, 1)).astype("float32")
    out.append(Case("max_pool2d_backward_dilation",
                    module([("g", tensor((1, 2, 3, 1))), ("x", tensor((1, 2, 5, 5)))],
                           _pool_call("max", ", pool_size=[2, 3], strides=[1, 1], dilation=[2, 2]"),
                           tensor((1, 2, 5, 5))),
                    runs=[([gd, xa], pool_grad_np("max", gd, xa, (2, 3), (1, 1), (0, 0, 0, 0), d=(2, 2)))],
                    spec=["OP.grad.max_pool2d_backward.C4"], tags=["op:grad.max_pool2d_backward", "gradient", "edge"],
                    description="dilated windows"))
    return out


def generate():
    return {CATEGORY: marker_cases() + take_backward_cases() + nll_backward_cases() + pool_backward_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_grad"])

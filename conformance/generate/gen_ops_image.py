"""Image operators (spec/ops/image.*.md): ``image.resize2d``, ``image.resize3d``, ``image.affine_grid``
and ``image.grid_sample``.

Cases: bilinear with half-pixel centres (static and with a symbolic input size at two sizes),
align_corners, nearest neighbour with asymmetric/floor (integer upscale) and half-pixel/round
(half-to-even ties), cubic, the NHWC layout, integer data, ``out_dtype``, and invalid operands.

Oracles: for grid_sample a per-point loop in float64 (unnormalize, clip or mirror, then the nearest,
linear or Keys-cubic read of the neighbours, 0 outside); for affine_grid the matrix applied to the homogeneous grid coordinates in float64 (and a
grid worked out by hand); for resize2d the interpolation formulas written below in float64 (source coordinate, clamped reads,
linear or Keys-cubic weights); for resize3d one (out, in) weight matrix per axis contracted with the
data; both compared with a tolerance covering TVM's float32 arithmetic; nearest neighbour results are
exact.
"""


import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import module, rng_for, tensor

CATEGORY = "op_image"
TOL = dict(rtol=1e-5, atol=1e-5)


def coords(out, n, mode):
    i = np.arange(out, dtype="float64")
    if mode == "half_pixel":
        return (i + 0.5) * n / out - 0.5
    if mode == "align_corners":
        return i * (n - 1) / (out - 1)
    return i * n / out  # asymmetric


def resize(x, oh, ow, method, mode, rounding="round", alpha=-0.75):
    """x (N, C, H, W) in float64."""
    x = np.asarray(x, "float64")
    h, w = x.shape[2:]
    ys, xs = coords(oh, h, mode), coords(ow, w, mode)

    def px(yi, xi):
        return x[:, :, np.clip(yi, 0, h - 1)][:, :, :, np.clip(xi, 0, w - 1)]

    if method == "nearest_neighbor":
        f = np.rint if rounding == "round" else lambda v: np.floor(v + 1e-5)
        return px(f(ys).astype(int), f(xs).astype(int))
    if method == "linear":
        y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
        ty, tx = (ys - y0)[:, None], (xs - x0)[None, :]
        top = px(y0, x0) * (1 - tx) + px(y0, x0 + 1) * tx
        bot = px(y0 + 1, x0) * (1 - tx) + px(y0 + 1, x0 + 1) * tx
        return top * (1 - ty) + bot * ty

    def weights(t):
        a = alpha
        d = np.stack([1 + t, t, 1 - t, 2 - t], -1)  # distances to the four taps
        near = ((a + 2) * d ** 3 - (a + 3) * d ** 2 + 1)
        far = (a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a)
        return np.where(d <= 1, near, far)

    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    wy, wx = weights(ys - y0), weights(xs - x0)
    out = np.zeros(x.shape[:2] + (oh, ow))
    for j in range(4):
        for i in range(4):
            out += px(y0 + j - 1, x0 + i - 1) * wy[:, j][:, None] * wx[:, i][None, :]
    return out


def r32(v):
    return np.asarray(v, "float64").astype("float32")


def resize_cases():
    out = []
    rng = rng_for("resize2d")
    tags = ["op:image.resize2d", "image"]
    ids = ["OP.image.resize2d.C4", "OP.image.resize2d.C5"]
    x = rng.standard_normal((2, 3, 5, 6)).astype("float32")
    p = [("x", tensor((2, 3, 5, 6)))]
    out.append(Case("resize2d_linear_half_pixel", module(p, "R.image.resize2d(x, (8, 9))", tensor((2, 3, 8, 9))),
                    runs=[([x], r32(resize(x, 8, 9, "linear", "half_pixel")))], spec=ids, tags=tags, **TOL))
    runs = [([xs], r32(resize(xs, 4, 7, "linear", "half_pixel")))
            for xs in (rng.standard_normal((1, 2, 3, 5)).astype("float32"),
                       rng.standard_normal((1, 2, 6, 2)).astype("float32"))]
    out.append(Case("resize2d_linear_symbolic_input", module([("x", tensor((1, 2, "h", "w")))],
                                                             "R.image.resize2d(x, (4, 7))", tensor((1, 2, 4, 7))),
                    runs=runs, spec=ids, tags=tags + ["symbolic"], **TOL))
    out.append(Case("resize2d_align_corners", module(p, 'R.image.resize2d(x, (9, 11), coordinate_transformation_mode='
                                                        '"align_corners")', tensor((2, 3, 9, 11))),
                    runs=[([x], r32(resize(x, 9, 11, "linear", "align_corners")))], spec=ids, tags=tags, **TOL))
    out.append(Case("resize2d_nearest_asymmetric_floor",
                    module(p, 'R.image.resize2d(x, (10, 12), method="nearest_neighbor", '
                              'coordinate_transformation_mode="asymmetric", rounding_method="floor")',
                           tensor((2, 3, 10, 12))),
                    runs=[([x], x[:, :, np.arange(10) // 2][:, :, :, np.arange(12) // 2])], spec=ids, tags=tags))
    out.append(Case("resize2d_nearest_half_pixel_ties",
                    module(p, 'R.image.resize2d(x, (5, 3), method="nearest_neighbor")', tensor((2, 3, 5, 3))),
                    runs=[([x], x[:, :, :, [0, 2, 4]])], spec=ids, tags=tags,
                    description="source x = 2i + 0.5 rounds half to even"))
    out.append(Case("resize2d_cubic", module(p, 'R.image.resize2d(x, (7, 4), method="cubic")', tensor((2, 3, 7, 4))),
                    runs=[([x], r32(resize(x, 7, 4, "cubic", "half_pixel")))], spec=ids, tags=tags, **TOL))
    xn = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    out.append(Case("resize2d_nhwc", module([("x", tensor((2, 5, 6, 3)))],
                                            'R.image.resize2d(x, (8, 9), layout="NHWC")', tensor((2, 8, 9, 3))),
                    runs=[([xn], r32(resize(x, 8, 9, "linear", "half_pixel")).transpose(0, 2, 3, 1))],
                    spec=ids + ["OP.NN.LAYOUT.1"], tags=tags + ["layout"], **TOL))
    xi = rng.integers(-1000, 1000, (1, 2, 3, 4)).astype("int32")
    out.append(Case("resize2d_int32_nearest", module([("x", tensor((1, 2, 3, 4), "int32"))],
                                                     'R.image.resize2d(x, (6, 8), method="nearest_neighbor", '
                                                     'coordinate_transformation_mode="asymmetric")',
                                                     tensor((1, 2, 6, 8), "int32")),
                    runs=[([xi], resize(xi, 6, 8, "nearest_neighbor", "asymmetric").astype("int32"))], spec=ids,
                    tags=tags + ["int"], description="rounding_method round: source 1.5 rounds to 2, 0.5 to 0"))
    out.append(Case("resize2d_out_dtype", module(p, 'R.image.resize2d(x, (8, 9), out_dtype="float16")',
                                                 tensor((2, 3, 8, 9), "float16")),
                    runs=[([x], resize(x, 8, 9, "linear", "half_pixel").astype("float16"))],
                    spec=ids + ["OP.image.resize2d.C3"], tags=tags, rtol=1e-3, atol=1e-3,
                    description="the interpolated float32 value converted to out_dtype"))
    for name, call, cid in (("resize2d_unknown_method", 'R.image.resize2d(x, (8, 9), method="bicubic")', "C2"),
                            ("resize2d_size_rank", "R.image.resize2d(x, (8, 9, 2))", "C1"),
                            ("resize2d_bad_layout", 'R.image.resize2d(x, (8, 9), layout="NCHD")', "C3")):
        out.append(Invalid(name, module(p, call), "struct_info", spec=[f"OP.image.resize2d.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def axis_matrix(n, out, method, mode, rounding, alpha=-0.75, exclude=False, start=0.0, end=1.0):
    """The (out, n) float64 matrix that maps one input axis to one output axis: row i holds the weights
    of the input samples read for output index i (reads clamped to the axis), and the source coordinate
    of each row; a separable resize is these matrices applied axis by axis."""
    i = np.arange(out, dtype="float64")
    if mode == "tf_crop_and_resize":
        src = start * (n - 1) + i * (end - start) * (n - 1) / (out - 1) if out > 1 else \
            np.full(out, 0.5 * (start + end) * (n - 1))
    else:
        src = coords(out, n, mode)
    m = np.zeros((out, n))
    for r, v in enumerate(src):
        if method == "nearest_neighbor":
            m[r, int(np.clip(np.rint(v) if rounding == "round" else np.floor(v + 1e-5), 0, n - 1))] = 1
            continue
        base = int(np.floor(v))
        t = v - base
        if method == "linear":
            taps, w = [base, base + 1], [1 - t, t]
        else:
            d = np.array([1 + t, t, 1 - t, 2 - t])
            w = list(np.where(d <= 1, (alpha + 2) * d ** 3 - (alpha + 3) * d ** 2 + 1,
                              alpha * d ** 3 - 5 * alpha * d ** 2 + 8 * alpha * d - 4 * alpha))
            taps = [base - 1, base, base + 1, base + 2]
            if exclude:
                w = [wk if 0 <= tk < n else 0.0 for tk, wk in zip(taps, w)]
                w = [wk / sum(w) for wk in w]
        for tk, wk in zip(taps, w):
            m[r, int(np.clip(tk, 0, n - 1))] += wk
    return m, src


def resize3d_np(x, outs, method="linear", mode="half_pixel", rounding="floor", exclude=False, roi=None, ext=0.0):
    """x (N, C, D, H, W) in float64: the axis matrices of D, H and W contracted with the data; with
    ``tf_crop_and_resize`` an output whose source coordinate on any axis is outside the image is ``ext``
    (``roi``: the starts of D, H, W, then their ends)."""
    x = np.asarray(x, "float64")
    roi = roi or [0.0] * 6
    mats = [axis_matrix(n, o, method, mode, rounding, exclude=exclude, start=roi[a], end=roi[a + 3])
            for a, (n, o) in enumerate(zip(x.shape[2:], outs))]
    out = np.einsum("ncdhw,zd,yh,xw->nczyx", x, mats[0][0], mats[1][0], mats[2][0])
    if mode == "tf_crop_and_resize":
        outside = [(src < 0) | (src > n - 1) for (_, src), n in zip(mats, x.shape[2:])]
        mask = outside[0][:, None, None] | outside[1][None, :, None] | outside[2][None, None, :]
        out = np.where(mask, ext, out)
    return out


def resize3d_cases():
    out = []
    rng = rng_for("resize3d")
    tags = ["op:image.resize3d", "image"]
    ids = ["OP.image.resize3d.C4", "OP.image.resize3d.C5"]
    x = rng.standard_normal((2, 3, 3, 4, 5)).astype("float32")
    p = [("x", tensor((2, 3, 3, 4, 5)))]

    def case(name, call, outs, expect, extra_ids=(), extra_tags=(), out_dtype="float32", **kw):
        shape = (2, 3) + tuple(outs)
        out.append(Case(name, module(p, call, tensor(shape, out_dtype)), runs=[([x], expect)],
                        spec=ids + list(extra_ids), tags=tags + list(extra_tags), **kw))

    case("resize3d_linear_half_pixel", "R.image.resize3d(x, (5, 6, 7))", (5, 6, 7),
         r32(resize3d_np(x, (5, 6, 7))), **TOL)
    case("resize3d_align_corners", 'R.image.resize3d(x, (4, 7, 9), coordinate_transformation_mode="align_corners")',
         (4, 7, 9), r32(resize3d_np(x, (4, 7, 9), mode="align_corners")), **TOL)
    case("resize3d_nearest_default_floor", 'R.image.resize3d(x, (4, 6, 8), method="nearest_neighbor")', (4, 6, 8),
         resize3d_np(x, (4, 6, 8), "nearest_neighbor").astype("float32"), extra_ids=["OP.image.resize3d.C2"],
         description="rounding_method defaults to empty: floor (with a 1e-5 nudge) for half_pixel, where "
                     "resize2d's default is round")
    case("resize3d_nearest_align_corners_round",
         'R.image.resize3d(x, (5, 3, 9), method="nearest_neighbor", coordinate_transformation_mode="align_corners")',
         (5, 3, 9), resize3d_np(x, (5, 3, 9), "nearest_neighbor", "align_corners", "round").astype("float32"),
         description="the empty rounding_method rounds half to even under align_corners")
    case("resize3d_cubic", 'R.image.resize3d(x, (4, 6, 7), method="cubic")', (4, 6, 7),
         r32(resize3d_np(x, (4, 6, 7), "cubic")), **TOL)
    case("resize3d_cubic_exclude", 'R.image.resize3d(x, (4, 6, 7), method="cubic", cubic_exclude=1)', (4, 6, 7),
         r32(resize3d_np(x, (4, 6, 7), "cubic", exclude=True)), **TOL,
         description="taps outside the image dropped and the weights of each axis renormalized")
    roi = [0.0, 0.1, 0.2, 1.5, 0.8, 1.2]
    case("resize3d_tf_crop_and_resize",
         'R.image.resize3d(x, (3, 4, 3), coordinate_transformation_mode="tf_crop_and_resize", '
         'roi=[0.0, 0.1, 0.2, 1.5, 0.8, 1.2], extrapolation_value=-7.0)', (3, 4, 3),
         r32(resize3d_np(x, (3, 4, 3), mode="tf_crop_and_resize", roi=roi, ext=-7.0)), **TOL,
         description="roi is [start_d, start_h, start_w, end_d, end_h, end_w]; depth 2 and widths past the "
                     "image give the extrapolation value")
    case("resize3d_out_dtype", 'R.image.resize3d(x, (5, 6, 7), out_dtype="float16")', (5, 6, 7),
         resize3d_np(x, (5, 6, 7)).astype("float16"), extra_ids=["OP.image.resize3d.C3"], out_dtype="float16",
         rtol=1e-3, atol=1e-3, description="the interpolated float32 value converted to out_dtype")
    xn = np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1))
    out.append(Case("resize3d_ndhwc", module([("x", tensor((2, 3, 4, 5, 3)))],
                                             'R.image.resize3d(x, (5, 6, 7), layout="NDHWC")', tensor((2, 5, 6, 7, 3))),
                    runs=[([xn], r32(resize3d_np(x, (5, 6, 7))).transpose(0, 2, 3, 4, 1))],
                    spec=ids + ["OP.NN.LAYOUT.1"], tags=tags + ["layout"], **TOL))
    runs = [([xs], r32(resize3d_np(xs, (2, 4, 3))))
            for xs in (rng.standard_normal((1, 2, 3, 2, 5)).astype("float32"),
                       rng.standard_normal((1, 2, 1, 6, 2)).astype("float32"))]
    out.append(Case("resize3d_linear_symbolic_input", module([("x", tensor((1, 2, "d", "h", "w")))],
                                                             "R.image.resize3d(x, (2, 4, 3))", tensor((1, 2, 2, 4, 3))),
                    runs=runs, spec=ids, tags=tags + ["symbolic"], **TOL))
    for name, call, cid in (("resize3d_size_rank", "R.image.resize3d(x, (5, 6))", "C1"),
                            ("resize3d_unknown_rounding", 'R.image.resize3d(x, (5, 6, 7), rounding_method="up")', "C2"),
                            ("resize3d_bad_layout", 'R.image.resize3d(x, (5, 6, 7), layout="NCHW")', "C3")):
        out.append(Invalid(name, module(p, call), "struct_info", spec=[f"OP.image.resize3d.{cid}"],
                           tags=tags + ["invalid"]))
    out.append(Case("resize3d_align_corners_size_one",
                    module(p, 'R.image.resize3d(x, (1, 6, 7), coordinate_transformation_mode="align_corners")',
                           tensor((2, 3, 1, 6, 7))),
                    runs=[Fails([x], "op_runtime")], spec=["OP.image.resize3d.C5"], tags=tags + ["edge"],
                    description="align_corners divides by out - 1"))
    return out


def affine_grid_np(theta, sizes, align_corners):
    """theta @ (x, y[, z], 1) over the grid, in float64; with align_corners the coordinates run from -1
    in steps of (2 - 1e-7) / (s - 1) (TVM's kernel stops just short of 1), else over pixel centres."""
    axes = []
    for s in sizes:
        i = np.arange(s, dtype="float64")
        axes.append(-1 + i * (2 - 1e-7) / (s - 1) if align_corners else (2 * i + 1) / s - 1)
    mesh = np.meshgrid(*axes, indexing="ij")                      # slowest first: (z,) y, x
    homog = np.stack(list(mesh[::-1]) + [np.ones(mesh[0].shape)])       # x, y, (z,) 1
    return np.einsum("nkc,c...->nk...", theta.astype("float64"), homog).astype(theta.dtype)


def affine_grid_cases():
    tags = ["op:image.affine_grid", "image"]
    out = []
    ident = np.array([[[1, 0, 0], [0, 1, 0]]], "float32")
    third = np.float32(2 / 3)
    want = np.stack([np.broadcast_to(np.array([-third, 0, third], "float32"), (2, 3)),
                     np.broadcast_to(np.array([[-0.5], [0.5]], "float32"), (2, 3))])[None]
    out.append(Case("affine_grid_identity_pixel_centres",
                    module([("t", tensor((1, 2, 3)))], "R.image.affine_grid(t, (2, 3), align_corners=False)",
                           tensor((1, 2, 2, 3))),
                    runs=[([ident], want)], spec=["OP.image.affine_grid.C1", "OP.image.affine_grid.C3",
                                                 "OP.image.affine_grid.C5"], tags=tags,
                    oracle="hand", rtol=1e-6, atol=1e-6,
                    description="the identity matrix gives the pixel centres: x in (-2/3, 0, 2/3), y in (-1/2, 1/2)"))
    rng = rng_for("affine_grid")
    theta = rng.standard_normal((2, 2, 3)).astype("float32")
    out.append(Case("affine_grid_align_corners_symbolic_batch",
                    module([("t", tensor(("n", 2, 3)))], "R.image.affine_grid(t, (3, 4))", tensor(("n", 2, 3, 4))),
                    runs=[([theta[:1].copy()], affine_grid_np(theta[:1], (3, 4), True)),
                          ([theta], affine_grid_np(theta, (3, 4), True))],
                    spec=["OP.image.affine_grid.C3", "OP.image.affine_grid.C5"], tags=tags + ["symbolic"],
                    rtol=1e-5, atol=1e-6, description="the default align_corners=True; batch n of 1 and 2"))
    theta3 = rng.standard_normal((1, 3, 4)).astype("float32")
    out.append(Case("affine_grid_3d",
                    module([("t", tensor((1, 3, 4)))], "R.image.affine_grid(t, (2, 3, 4), align_corners=False)",
                           tensor((1, 3, 2, 3, 4))),
                    runs=[([theta3], affine_grid_np(theta3, (2, 3, 4), False))],
                    spec=["OP.image.affine_grid.C3", "OP.image.affine_grid.C5"], tags=tags, rtol=1e-5, atol=1e-6,
                    description="a (D, H, W) target with 3 x 4 matrices; the columns are x, y, z"))
    out.append(Invalid("affine_grid_matrix_size_mismatch",
                       module([("t", tensor((1, 2, 3)))], "R.image.affine_grid(t, (2, 3, 4))"), "struct_info",
                       spec=["OP.image.affine_grid.C2"], tags=tags + ["invalid"],
                       description="2 x 3 matrices for a 3-d target"))
    out.append(Case("affine_grid_align_corners_size_one",
                    module([("t", tensor((1, 2, 3)))], "R.image.affine_grid(t, (1, 3))", tensor((1, 2, 1, 3))),
                    runs=[Fails([ident], "op_runtime")], spec=["OP.image.affine_grid.C4"], tags=tags + ["edge"],
                    description="align_corners divides by size - 1"))
    return out


def _mirror(x, lo, hi):
    if hi == lo:
        return lo
    d = abs(x - lo)
    flips = int(d // (hi - lo))
    extra = d - flips * (hi - lo)
    return lo + extra if flips % 2 == 0 else hi - extra


def _px(x, idx):
    """data[n, c][idx] or 0 outside."""
    if all(0 <= i < s for i, s in zip(idx, x.shape)):
        return float(x[tuple(idx)])
    return 0.0


def _keys(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    if t < 2:
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
    return 0.0


def grid_sample_np(x, grid, method, padding, align):
    """Per output point: the source coordinate of each spatial dim (slowest first), then the read."""
    k = x.ndim - 2
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + grid.shape[2:], "float64")
    for n in range(x.shape[0]):
        for pos in np.ndindex(*grid.shape[2:]):
            src = []
            for r in range(k):
                g = float(grid[(n, k - 1 - r) + pos])
                s = sizes[r]
                c = (g + 1) * (s - 1) / 2 if align else ((g + 1) * s - 1) / 2
                if method != "bicubic":
                    if padding == "reflection":
                        c = _mirror(c, 0.0, s - 1.0) if align else _mirror(c, -0.5, s - 0.5)
                    if padding in ("reflection", "border"):
                        c = min(max(c, 0.0), s - 1.0)
                src.append(c)
            for ch in range(x.shape[1]):
                img = x[n, ch]
                if method == "nearest":
                    v = _px(img, [int(np.rint(c)) for c in src])
                elif method == "bilinear":
                    lo = [int(np.floor(c)) for c in src]
                    v = 0.0
                    for corner in np.ndindex(*(2,) * k):
                        w = np.prod([(c - l) if b else (1 - (c - l)) for c, l, b in zip(src, lo, corner)])
                        v += w * _px(img, [l + b for l, b in zip(lo, corner)])
                else:
                    lo = [int(np.floor(c)) for c in src]
                    v = 0.0
                    for dy in range(-1, 3):
                        for dx in range(-1, 3):
                            v += _keys(src[0] - lo[0] - dy) * _keys(src[1] - lo[1] - dx) * \
                                _px(img, [lo[0] + dy, lo[1] + dx])
                out[(n, ch) + pos] = v
    return out.astype(x.dtype)


def grid_sample_cases():
    tags = ["op:image.grid_sample", "image"]
    ids = ["OP.image.grid_sample.C1", "OP.image.grid_sample.C3", "OP.image.grid_sample.C5"]
    rng = rng_for("grid_sample")
    out = []
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    g = rng.uniform(-1.2, 1.2, (2, 2, 3, 4)).astype("float32")
    params = [("x", tensor((2, 3, 4, 5))), ("g", tensor((2, 2, 3, 4)))]
    for name, attrs, method, padding, align, note in (
            ("grid_sample_bilinear_zeros", "", "bilinear", "zeros", False,
             "the defaults: bilinear, zeros outside, pixel-centre coordinates"),
            ("grid_sample_nearest_border_align_corners", ', method="nearest", padding_mode="border", '
             "align_corners=True", "nearest", "border", True, "nearest neighbour, coordinates clipped to the border"),
            ("grid_sample_bilinear_reflection", ', padding_mode="reflection"', "bilinear", "reflection", False,
             "coordinates mirrored about the image's outer edges"),
            ("grid_sample_bicubic_zeros", ', method="bicubic"', "bicubic", "zeros", False,
             "Keys cubic (A = -0.75) over the 4 x 4 neighbours")):
        out.append(Case(name, module(params, f"R.image.grid_sample(x, g{attrs})", tensor((2, 3, 3, 4))),
                        runs=[([x, g], grid_sample_np(x, g, method, padding, align))], spec=ids, tags=tags,
                        rtol=1e-4, atol=1e-5, description=note))
    x3 = rng.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    g3 = rng.uniform(-1.3, 1.3, (1, 3, 2, 3, 2)).astype("float32")
    out.append(Case("grid_sample_trilinear_reflection_3d",
                    module([("x", tensor((1, 2, 3, 4, 5))), ("g", tensor((1, 3, 2, 3, 2)))],
                           'R.image.grid_sample(x, g, layout="NCDHW", padding_mode="reflection", align_corners=True)',
                           tensor((1, 2, 2, 3, 2))),
                    runs=[([x3, g3], grid_sample_np(x3, g3, "bilinear", "reflection", True))], spec=ids, tags=tags,
                    rtol=1e-4, atol=1e-5, description="a volume: the grid holds x, y, z; mirrored about the corners"))
    xh = x.transpose(0, 2, 3, 1).copy()
    out.append(Case("grid_sample_nhwc",
                    module([("x", tensor((2, 4, 5, 3))), ("g", tensor((2, 2, 3, 4)))],
                           'R.image.grid_sample(x, g, layout="NHWC")', tensor((2, 3, 4, 3))),
                    runs=[([xh, g], grid_sample_np(x, g, "bilinear", "zeros", False).transpose(0, 2, 3, 1))],
                    spec=ids, tags=tags + ["layout"], rtol=1e-4, atol=1e-5,
                    description="the data and the result in NHWC; the grid keeps (N, 2, H, W)"))
    out.append(Invalid("grid_sample_grid_rank_3", module([("x", tensor((2, 3, 4, 5))), ("g", tensor((2, 2, 3)))],
                                                         "R.image.grid_sample(x, g)"), "struct_info",
                       spec=["OP.image.grid_sample.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("grid_sample_bicubic_3d",
                       module([("x", tensor((1, 2, 3, 4, 5))), ("g", tensor((1, 3, 2, 3, 2)))],
                              'R.image.grid_sample(x, g, method="bicubic", layout="NCDHW")'), "struct_info",
                       spec=["OP.image.grid_sample.C2"], tags=tags + ["invalid"],
                       description="bicubic sampling is 2-d only"))
    out.append(Case("grid_sample_grid_batch_mismatch",
                    module([("x", tensor((2, 3, 4, 5))), ("g", tensor(("n", 2, 3, 4)))], "R.image.grid_sample(x, g)",
                           tensor((2, 3, 3, 4))),
                    runs=[Fails([x, np.concatenate([g, g])], "op_runtime")], spec=["OP.image.grid_sample.C4"],
                    tags=tags + ["edge"], description="a grid of batch 4 for data of batch 2"))
    return out


def generate():
    return {CATEGORY: resize_cases() + resize3d_cases() + affine_grid_cases() + grid_sample_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_image"])

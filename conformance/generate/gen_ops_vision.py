"""Vision operators (spec/ops/vision.*.md): ROI align and pool, SSD box decoding, valid-box
compaction, single-class (hard and soft) and all-class non-maximum suppression.

Oracles: values worked out by hand, and straightforward loops written below in float64 from the
operators' definitions (bilinear sampling, bin windows, box decoding, greedy suppression). Random
inputs keep coordinates away from rounding boundaries and IoUs away from the thresholds, so float32
evaluation takes the same decisions.
"""

import math

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import module, rng_for, tensor, tup

CATEGORY = "op_vision"


# ---------------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------------


def _bilinear(img, y, x):
    """img (C, H, W) at (y, x) inside [0, H-1] x [0, W-1]; taps outside the image weigh nothing."""
    h, w = img.shape[1:]
    y0, x0 = math.floor(y), math.floor(x)
    out = np.zeros(img.shape[0])
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                out += wy * wx * img[:, yy, xx]
    return out


def roi_align_oracle(x, rois, ph, pw, scale, ratio=-1, aligned=False, mode="avg"):
    """x in NCHW; each bin averages (or maxes) a grid of bilinear samples at the sub-cell centres."""
    n_c, h, w = x.shape[1:]
    out = np.zeros((len(rois), n_c, ph, pw))
    for r, roi in enumerate(rois.astype("float64")):
        img = x[int(roi[0])].astype("float64")
        x1, y1, x2, y2 = roi[1:] * scale
        rh, rw = (y2 - y1, x2 - x1) if aligned else (max(y2 - y1, 1.0), max(x2 - x1, 1.0))
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                vals = []
                for a in range(gh):
                    for b in range(gw):
                        yy = y1 + i * rh / ph + (a + 0.5) * rh / ph / gh
                        xx = x1 + j * rw / pw + (b + 0.5) * rw / pw / gw
                        if yy < -1 or xx < -1 or yy > h or xx > w:
                            vals.append(np.zeros(n_c))
                        else:
                            vals.append(_bilinear(img, min(max(yy, 0), h - 1), min(max(xx, 0), w - 1)))
                out[r, :, i, j] = np.mean(vals, axis=0) if mode == "avg" else np.max(vals, axis=0)
    return out.astype(x.dtype)


def roi_pool_oracle(x, rois, ph, pw, scale):
    """The maximum over each bin's pixel window (rounded outwards), 0 for an empty window."""
    _, n_c, h, w = x.shape
    out = np.zeros((len(rois), n_c, ph, pw), x.dtype)
    for r, roi in enumerate(rois.astype("float64")):
        x1, y1, x2, y2 = (math.floor(v * scale + 0.5) for v in roi[1:])
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            hs, he = (min(max(v + y1, 0), h) for v in (math.floor(i * bh), math.ceil((i + 1) * bh)))
            for j in range(pw):
                ws, we = (min(max(v + x1, 0), w) for v in (math.floor(j * bw), math.ceil((j + 1) * bw)))
                if he > hs and we > ws:
                    out[r, :, i, j] = x[int(roi[0]), :, hs:he, ws:we].max(axis=(1, 2))
    return out


def multibox_oracle(cls, loc, anchor, clip=False, threshold=0.0, var=(1, 1, 1, 1), keep_bg=True, softmax=True):
    c64, l64, a64 = (v.astype("float64") for v in (cls, loc, anchor))
    b, _, n = cls.shape
    boxes = np.zeros((b, n, 4))
    for i in range(b):
        for k in range(n):
            left, top, right, bottom = a64[0, k]
            ex, ey, ew, eh = l64[i, 4 * k:4 * k + 4]
            cy = ey * var[1] * (bottom - top) + (top + bottom) / 2
            cx = ex * var[0] * (right - left) + (left + right) / 2
            hh, hw = math.exp(eh * var[3]) * (bottom - top) / 2, math.exp(ew * var[2]) * (right - left) / 2
            boxes[i, k] = (cy - hh, cx - hw, cy + hh, cx + hw)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    s = np.exp(c64) / np.exp(c64).sum(axis=1, keepdims=True) if softmax else c64
    s = np.where(s >= threshold, s, 0.0)
    if not keep_bg:
        s[:, 0] = 0
    return boxes.astype(cls.dtype), s.astype(cls.dtype)


def valid_counts_oracle(d, th, id_index, score_index):
    b, n, k = d.shape
    cnt, out, idx = np.zeros(b, "int32"), np.full(d.shape, -1, d.dtype), np.full((b, n), -1, "int32")
    for i in range(b):
        rows = [j for j in range(n) if d[i, j, score_index] > th and (id_index < 0 or d[i, j, id_index] >= 0)]
        cnt[i] = len(rows)
        out[i, :len(rows)] = d[i, rows]
        idx[i, :len(rows)] = rows
    return cnt, out, idx


def overlap(a, b):
    """IoU of two boxes given by opposite corners (either order)."""
    a = [min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])]
    b = [min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])]
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return 0.0 if union <= 0 else inter / union


def nms_oracle(d, vc, ind, max_out=-1, iou=0.5, force=False, top_k=-1, cs=2, si=1, ii=0, ret=True,
               to_bottom=False, sigma=0.0, sth=0.0):
    """Greedy NMS over the rows sorted by score (stable), following the operator's page."""
    b, n, k = d.shape
    data_out = np.full(d.shape, -1.0)
    box_out = np.full((b, n), -1, "int32")
    counts = np.zeros((b, 1), "int32")
    for i in range(b):
        nv = max(int(vc[i]), 0)
        order = sorted(range(nv), key=lambda j: -float(d[i, j, si]))
        if 0 < top_k < nv:
            order = order[:top_k]
        rows = [list(map(float, d[i, j])) for j in order]
        ids = list(order)
        alive = [True] * len(rows)
        kept = []
        if sigma > 0:
            pending = list(range(len(rows)))
            while pending and (max_out <= 0 or len(kept) < max_out):
                cands = [p for p in pending if alive[p] and rows[p][si] > sth]
                if not cands:
                    break
                best = max(cands, key=lambda p: (rows[p][si], -p))
                pending.remove(best)
                kept.append(best)
                for p in pending:
                    if not (alive[p] and rows[p][si] > sth):
                        continue
                    if force or ii < 0 or rows[p][ii] == rows[best][ii]:
                        o = overlap(rows[best][cs:cs + 4], rows[p][cs:cs + 4])
                        if o >= iou:
                            alive[p] = False
                        else:
                            rows[p][si] *= math.exp(-0.5 / sigma * o * o)
                            alive[p] = rows[p][si] > sth
        else:
            for j in range(len(rows)):
                if not (alive[j] and rows[j][si] > 0 and (max_out <= 0 or len(kept) < max_out)):
                    continue
                kept.append(j)
                for p in range(j + 1, len(rows)):
                    if alive[p] and rows[p][si] > 0 and (force or ii < 0 or rows[p][ii] == rows[j][ii]) and \
                            overlap(rows[j][cs:cs + 4], rows[p][cs:cs + 4]) >= iou:
                        alive[p] = False
        counts[i, 0] = len(kept)
        box_out[i, :len(kept)] = [ind[i, ids[p]] for p in kept]
        if (sigma > 0 or to_bottom) and kept:
            data_out[i, :len(kept)] = [rows[p] for p in kept]
        else:
            for p in kept:
                data_out[i, p] = rows[p]
    data_out = data_out.astype(d.dtype)
    if ret:
        return (data_out, box_out, counts) if sigma > 0 else (box_out, counts)
    return data_out


def all_class_oracle(boxes, scores, max_out, iou, sth, fmt="onnx"):
    b, c, n = scores.shape
    sel = {}
    for i in range(b):
        for k in range(c):
            order = sorted((j for j in range(n) if scores[i, k, j] > sth), key=lambda j: -float(scores[i, k, j]))
            kept = []
            for j in order:
                if iou > 0 and len(kept) < max_out and all(overlap(boxes[i, q], boxes[i, j]) < iou for q in kept):
                    kept.append(j)
            sel[i, k] = kept
    if fmt == "onnx":
        rows = [(i, k, j) for i in range(b) for k in range(c) for j in sel[i, k]]
        out = np.zeros((b * c * n, 3), "int64")
        out[:len(rows)] = rows
        return out, np.array([len(rows)], "int64")
    idx, sc, cnt = np.zeros((b, c * n, 2), "int64"), np.zeros((b, c * n), "float32"), np.zeros(b, "int64")
    for i in range(b):
        rows = [(k, j) for k in range(c) for j in sel[i, k]]
        cnt[i] = len(rows)
        idx[i, :len(rows)] = rows
        sc[i, :len(rows)] = [scores[i, k, j] for k, j in rows]
    return idx, sc, cnt


# ---------------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------------


def _f(shape):
    return tensor(shape, "float32")


def roi_cases():
    out = []
    rng = rng_for("roi")
    ra = ["OP.vision.roi_align.C6"]
    tags = ["op:vision.roi_align", "vision"]
    x = rng.standard_normal((2, 2, 6, 7)).astype("float32")
    rois = np.array([[0, 0.3, 0.6, 4.7, 3.9], [1, 1.2, 0.1, 6.4, 5.8], [1, -1.3, -0.7, 2.2, 1.4]], "float32")
    out.append(Case("roi_align_avg_adaptive_grid",
                    module([("x", _f((2, 2, 6, 7))), ("rois", _f(("r", 5)))],
                           "R.vision.roi_align(x, rois, (2, 3), 1.0)", _f(("r", 2, 2, 3))),
                    runs=[([x, rois], roi_align_oracle(x, rois, 2, 3, 1.0))], spec=ra + ["OP.vision.roi_align.C4"],
                    tags=tags + ["symbolic"], rtol=1e-5, atol=1e-5,
                    description="the grid of each bin is ceil(roi size / pooled size) samples per axis"))
    xh = np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1)))
    r2 = rois.copy()
    r2[:, 1:] *= 2
    out.append(Case("roi_align_max_nhwc_fixed_grid_aligned",
                    module([("x", _f((2, 6, 7, 2))), ("rois", _f((3, 5)))],
                           'R.vision.roi_align(x, rois, 2, 0.5, sample_ratio=2, aligned=True, layout="NHWC", '
                           'mode="max")', _f((3, 2, 2, 2))),
                    runs=[([xh, r2], np.transpose(roi_align_oracle(x, r2, 2, 2, 0.5, 2, True, "max"),
                                                        (0, 2, 3, 1)))],
                    spec=ra + ["OP.vision.roi_align.C3"], tags=tags, rtol=1e-5, atol=1e-5))
    img = np.array([[[[1, 2], [3, 4]]]], "float32")
    hand_rois = np.array([[0, 0, 0, 1, 1], [0, 10, 10, 12, 12]], "float32")
    out.append(Case("roi_align_hand_center_and_outside",
                    module([("x", _f((1, 1, 2, 2))), ("rois", _f((2, 5)))],
                           "R.vision.roi_align(x, rois, 1, 1.0, sample_ratio=1, aligned=True)", _f((2, 1, 1, 1))),
                    runs=[([img, hand_rois], np.array([2.5, 0], "float32").reshape(2, 1, 1, 1))], spec=ra,
                    tags=tags + ["edge"], oracle="hand",
                    description="one sample at (0.5, 0.5) averages the four pixels; a ROI beyond the image is 0"))
    out.append(Case("roi_align_batch_index_out_of_range",
                    module([("x", _f((1, 1, 2, 2))), ("rois", _f((1, 5)))],
                           "R.vision.roi_align(x, rois, 1, 1.0)", _f((1, 1, 1, 1))),
                    runs=[Fails([img, np.array([[1, 0, 0, 1, 1]], "float32")], "op_runtime")],
                    spec=["OP.vision.roi_align.C5"], tags=tags + ["runtime"]))
    for name, params, call, cid in (
            ("roi_align_rois_of_four", [("x", _f((1, 1, 4, 4))), ("rois", _f((2, 4)))],
             "R.vision.roi_align(x, rois, 2, 1.0)", "C4"),
            ("roi_align_bad_layout", [("x", _f((1, 1, 4, 4))), ("rois", _f((2, 5)))],
             'R.vision.roi_align(x, rois, 2, 1.0, layout="NCWH")', "C3"),
            ("roi_align_rank_3_data", [("x", _f((1, 4, 4))), ("rois", _f((2, 5)))],
             "R.vision.roi_align(x, rois, 2, 1.0)", "C1"),
            ("roi_align_int_data", [("x", tensor((1, 1, 4, 4), "int32")), ("rois", _f((2, 5)))],
             "R.vision.roi_align(x, rois, 2, 1.0)", "C2")):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.vision.roi_align.{cid}"],
                           tags=tags + ["invalid"]))

    tags = ["op:vision.roi_pool", "vision"]
    rp = ["OP.vision.roi_pool.C5"]
    xp = rng.standard_normal((2, 2, 7, 7)).astype("float32")
    prois = np.array([[0, 1.3, 2.2, 9.6, 11.1], [1, 0.2, 0.3, 13.3, 5.7], [1, 8.2, 8.9, 30.4, 30.3]], "float32")
    out.append(Case("roi_pool_scaled",
                    module([("x", _f((2, 2, 7, 7))), ("rois", _f((3, 5)))],
                           "R.vision.roi_pool(x, rois, (3, 2), 0.5)", _f((3, 2, 3, 2))),
                    runs=[([xp, prois], roi_pool_oracle(xp, prois, 3, 2, 0.5))], spec=rp, tags=tags))
    ar = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    out.append(Case("roi_pool_hand_windows_and_empty_bin",
                    module([("x", _f((1, 1, 4, 4))), ("rois", _f((2, 5)))],
                           "R.vision.roi_pool(x, rois, 2, 1.0)", _f((2, 1, 2, 2))),
                    runs=[([ar, np.array([[0, 0, 0, 3, 3], [0, 10, 10, 12, 12]], "float32")],
                           np.array([[[[5, 7], [13, 15]]], [[[0, 0], [0, 0]]]], "float32"))],
                    spec=rp + ["OP.vision.roi_pool.C3"], tags=tags + ["edge"], oracle="hand",
                    description="2x2 windows of a 4x4 ROI; a ROI beyond the image has empty windows (0)"))
    out.append(Case("roi_pool_negative_batch_index",
                    module([("x", _f((1, 1, 4, 4))), ("rois", _f((1, 5)))],
                           "R.vision.roi_pool(x, rois, 2, 1.0)", _f((1, 1, 2, 2))),
                    runs=[Fails([ar, np.array([[-1, 0, 0, 3, 3]], "float32")], "op_runtime")],
                    spec=["OP.vision.roi_pool.C4"], tags=tags + ["runtime"]))
    for name, op, bad, rule in (
            ("roi_align_nan_corner", 'R.vision.roi_align(x, rois, 2, 1.0, sample_ratio=2)', [0, 0, 0, np.nan, 3],
             "OP.vision.roi_align.C7"),
            ("roi_align_infinite_corner", "R.vision.roi_align(x, rois, 2, 1.0)", [0, 0, -np.inf, 3, 3],
             "OP.vision.roi_align.C7"),
            ("roi_pool_infinite_corner", "R.vision.roi_pool(x, rois, 2, 1.0)", [0, 0, 0, np.inf, 3],
             "OP.vision.roi_pool.C6"),
            ("roi_pool_corner_beyond_int32", "R.vision.roi_pool(x, rois, 2, 1.0)", [0, 0, 0, 3, 3e9],
             "OP.vision.roi_pool.C6")):
        out.append(Case(name, module([("x", _f((1, 1, 4, 4))), ("rois", _f((1, 5)))], op, _f((1, 1, 2, 2))),
                        runs=[Fails([ar, np.array([bad], "float32")], "op_runtime")], spec=[rule],
                        tags=["op:" + op.split("(")[0][2:], "vision", "runtime"],
                        description="a ROI corner that is not finite (or beyond int32 once rounded) is an error "
                                    "before any sample"))
    for name, params, call, cid in (
            ("roi_pool_nhwc", [("x", _f((1, 4, 4, 1))), ("rois", _f((2, 5)))],
             'R.vision.roi_pool(x, rois, 2, 1.0, layout="NHWC")', "C3"),
            ("roi_pool_rank_1_rois", [("x", _f((1, 1, 4, 4))), ("rois", _f((5,)))],
             "R.vision.roi_pool(x, rois, 2, 1.0)", "C1"),
            ("roi_pool_int_rois", [("x", _f((1, 1, 4, 4))), ("rois", tensor((2, 5), "int32"))],
             "R.vision.roi_pool(x, rois, 2, 1.0)", "C2")):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.vision.roi_pool.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def multibox_cases():
    out = []
    rng = rng_for("multibox")
    tags = ["op:vision.multibox_transform_loc", "vision"]
    ids = ["OP.vision.multibox_transform_loc.C5"]
    cls = rng.standard_normal((2, 3, 4)).astype("float32")
    loc = (rng.standard_normal((2, 16)) * 0.4).astype("float32")
    lt = rng.uniform(0, 0.6, (1, 4, 2))
    anc = np.concatenate([lt, lt + rng.uniform(0.1, 0.4, (1, 4, 2))], axis=-1).astype("float32")
    sig = [("c", _f((2, 3, 4))), ("l", _f((2, 16))), ("a", _f((1, 4, 4)))]
    ret = tup(_f((2, 4, 4)), _f((2, 3, 4)))
    out.append(Case("multibox_defaults", module(sig, "R.vision.multibox_transform_loc(c, l, a)", ret),
                    runs=[([cls, loc, anc], multibox_oracle(cls, loc, anc))], spec=ids + ["OP.vision.multibox_transform_loc.C4"],
                    tags=tags, rtol=1e-5, atol=1e-6))
    call = ("R.vision.multibox_transform_loc(c, l, a, clip=True, threshold=0.2, variances=(0.1, 0.1, 0.2, 0.2), "
            "keep_background=False, apply_softmax=False)")
    cl = np.abs(cls) / 3
    out.append(Case("multibox_clip_threshold_no_background", module(sig, call, ret),
                    runs=[([cl, loc * 10, anc], multibox_oracle(cl, loc * 10, anc, True, 0.2, (0.1, 0.1, 0.2, 0.2),
                                                               False, False))],
                    spec=ids, tags=tags, rtol=1e-5, atol=1e-6))
    out.append(Case("multibox_hand_unit_anchor",
                    module([("c", _f((1, 2, 1))), ("l", _f((1, 4))), ("a", _f((1, 1, 4)))],
                           "R.vision.multibox_transform_loc(c, l, a, threshold=0.6)", tup(_f((1, 1, 4)), _f((1, 2, 1)))),
                    runs=[([np.zeros((1, 2, 1), "float32"), np.zeros((1, 4), "float32"),
                            np.array([[[0, 0, 1, 1]]], "float32")],
                           (np.array([[[0, 0, 1, 1]]], "float32"), np.zeros((1, 2, 1), "float32")))],
                    spec=ids, tags=tags + ["edge"], oracle="hand",
                    description="zero offsets reproduce the anchor (as ymin, xmin, ymax, xmax); two equal logits "
                                "give 0.5 each, below the threshold"))
    out.append(Case("multibox_symbolic_anchor_count_mismatch",
                    module([("c", _f((1, 2, "n"))), ("l", _f((1, "m"))), ("a", _f((1, "k", 4)))],
                           "R.vision.multibox_transform_loc(c, l, a)", tup(_f((1, "n", 4)), _f((1, 2, "n")))),
                    runs=[Fails([np.zeros((1, 2, 3), "float32"), np.zeros((1, 12), "float32"),
                                 np.zeros((1, 2, 4), "float32")], "op_runtime")],
                    spec=["OP.vision.multibox_transform_loc.C3"], tags=tags + ["runtime", "symbolic"]))
    for name, params, cid in (
            ("multibox_loc_not_multiple_of_4", [("c", _f((1, 2, 3))), ("l", _f((1, 10))), ("a", _f((1, 3, 4)))], "C3"),
            ("multibox_anchor_batch_2", [("c", _f((1, 2, 3))), ("l", _f((1, 12))), ("a", _f((2, 3, 4)))], "C3"),
            ("multibox_dtype_mismatch", [("c", _f((1, 2, 3))), ("l", tensor((1, 12), "float16")),
                                         ("a", _f((1, 3, 4)))], "C2"),
            ("multibox_rank_2_cls", [("c", _f((2, 3))), ("l", _f((1, 12))), ("a", _f((1, 3, 4)))], "C1")):
        out.append(Invalid(name, module(params, "R.vision.multibox_transform_loc(c, l, a)"), "struct_info",
                           spec=[f"OP.vision.multibox_transform_loc.{cid}"], tags=tags + ["invalid"]))
    return out


def valid_counts_cases():
    out = []
    rng = rng_for("get_valid_counts")
    tags = ["op:vision.get_valid_counts", "vision"]
    ids = ["OP.vision.get_valid_counts.C3"]
    d = np.array([[[0, 0.9, 1], [-1, 0.8, 2], [2, 0.5, 3], [1, 0.6, 4]]], "float32")
    out.append(Case("get_valid_counts_hand",
                    module([("d", _f((1, 4, 3)))], "R.vision.get_valid_counts(d, 0.5)",
                           tup(tensor((1,), "int32"), _f((1, 4, 3)), tensor((1, 4), "int32"))),
                    runs=[([d], (np.array([2], "int32"),
                                 np.array([[[0, 0.9, 1], [1, 0.6, 4], [-1, -1, -1], [-1, -1, -1]]], "float32"),
                                 np.array([[0, 3, -1, -1]], "int32")))],
                    spec=ids, tags=tags, oracle="hand",
                    description="score 0.5 is not above the threshold; class id -1 is invalid; the rest is -1"))
    dr = rng.uniform(-1, 1, (2, 6, 5)).astype("float32")
    out.append(Case("get_valid_counts_no_class_id",
                    module([("d", _f((2, 6, 5)))], "R.vision.get_valid_counts(d, 0.2, id_index=-1, score_index=0)",
                           tup(tensor((2,), "int32"), _f((2, 6, 5)), tensor((2, 6), "int32"))),
                    runs=[([dr], valid_counts_oracle(dr, 0.2, -1, 0))], spec=ids + ["OP.vision.get_valid_counts.C2"],
                    tags=tags))
    out.append(Case("get_valid_counts_symbolic_length_too_short",
                    module([("d", _f((1, 2, "k")))], "R.vision.get_valid_counts(d, score_index=2)",
                           tup(tensor((1,), "int32"), _f((1, 2, "k")), tensor((1, 2), "int32"))),
                    runs=[(lambda a: ([a], valid_counts_oracle(a, 0.0, 0, 2)))(
                        np.array([[[0, 1, 0.5], [1, 0, -0.5]]], "float32")),
                        Fails([np.zeros((1, 2, 2), "float32")], "op_runtime")],
                    spec=["OP.vision.get_valid_counts.C2"], tags=tags + ["runtime", "symbolic"]))
    for name, params, call, cid in (
            ("get_valid_counts_score_index_out_of_range", [("d", _f((1, 4, 3)))],
             "R.vision.get_valid_counts(d, score_index=3)", "C2"),
            ("get_valid_counts_rank_2", [("d", _f((4, 3)))], "R.vision.get_valid_counts(d)", "C1")):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.vision.get_valid_counts.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def _detections(rng, b, n, classes=2):
    """Rows ``[class id, score, x0, y0, x1, y1]`` of overlapping boxes with distinct scores."""
    d = np.zeros((b, n, 6), "float32")
    d[..., 0] = rng.integers(0, classes, (b, n))
    d[..., 1] = rng.permutation(np.linspace(0.05, 0.95, b * n)).reshape(b, n)
    xy = rng.uniform(0, 4, (b, n, 2))
    d[..., 2:4] = xy
    d[..., 4:6] = xy + rng.uniform(1, 3, (b, n, 2))
    return d


def nms_cases():
    out = []
    rng = rng_for("non_max_suppression")
    tags = ["op:vision.non_max_suppression", "vision", "nms"]
    hard = ["OP.vision.non_max_suppression.C7", "OP.VISION.SORT.1", "OP.VISION.IOU.1"]
    sig = [("d", _f((1, 5, 6))), ("vc", tensor((1,), "int32")), ("ind", tensor((1, 5), "int32"))]
    d = np.array([[[0, 0.6, 0, 0, 2, 2], [0, 0.9, 0, 0, 2, 2.2], [1, 0.8, 0, 0, 2, 2], [0, 0.7, 3, 3, 4, 4],
                   [0, -0.5, 3, 3, 4, 4]]], "float32")
    ind = np.array([[10, 11, 12, 13, 14]], "int32")
    out.append(Case("nms_hand_indices",
                    module(sig, "R.vision.non_max_suppression(d, vc, ind)",
                           tup(tensor((1, 5), "int32"), tensor((1, 1), "int32"))),
                    runs=[([d, np.array([5], "int32"), ind],
                           (np.array([[11, 12, 13, -1, -1]], "int32"), np.array([[3]], "int32"))),
                          ([d, np.array([1], "int32"), ind], (np.array([[10, -1, -1, -1, -1]], "int32"),
                                                              np.array([[1]], "int32")))],
                    spec=hard + ["OP.vision.non_max_suppression.C4"], tags=tags, oracle="hand",
                    description="0.9 suppresses its same-class twin (IoU 0.91); class 1 is kept; the negative score "
                                "is dropped; valid_count 1 keeps only the first row"))
    b, n = 3, 8
    dr = _detections(rng, b, n)
    vc = np.array([8, 5, 0], "int32")
    ir = rng.permutation(100)[:b * n].reshape(b, n).astype("int32")
    sig = [("d", _f((b, n, 6))), ("vc", tensor((b,), "int32")), ("ind", tensor((b, n), "int32"))]
    pair = tup(tensor((b, n), "int32"), tensor((b, 1), "int32"))
    out.append(Case("nms_random_indices", module(sig, "R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.3)",
                                                 pair),
                    runs=[([dr, vc, ir], nms_oracle(dr, vc, ir, iou=0.3))], spec=hard, tags=tags))
    call = ("R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.2, return_indices=False, "
            "invalid_to_bottom=True, force_suppress=True)")
    out.append(Case("nms_data_to_bottom_force", module(sig, call, _f((b, n, 6))),
                    runs=[([dr, vc, ir], nms_oracle(dr, vc, ir, iou=0.2, force=True, ret=False, to_bottom=True))],
                    spec=hard + ["OP.vision.non_max_suppression.C4"], tags=tags))
    call = ("R.vision.non_max_suppression(d, vc, ind, max_output_size=2, top_k=4, id_index=-1, "
            "return_indices=False)")
    out.append(Case("nms_data_in_place_top_k_max_output", module(sig, call, _f((b, n, 6))),
                    runs=[([dr, vc, ir], nms_oracle(dr, vc, ir, max_out=2, top_k=4, ii=-1, ret=False))],
                    spec=hard, tags=tags))
    call = "R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.6, soft_nms_sigma=0.5, score_threshold=0.3)"
    out.append(Case("nms_soft_gaussian", module(sig, call, tup(_f((b, n, 6)), tensor((b, n), "int32"),
                                                               tensor((b, 1), "int32"))),
                    runs=[([dr, vc, ir], nms_oracle(dr, vc, ir, iou=0.6, sigma=0.5, sth=0.3))],
                    spec=["OP.vision.non_max_suppression.C8", "OP.vision.non_max_suppression.C4"], tags=tags,
                    rtol=1e-5, atol=1e-6))
    out.append(Case("nms_valid_count_above_anchors", module(sig, "R.vision.non_max_suppression(d, vc, ind)", pair),
                    runs=[Fails([dr, np.array([9, 0, 0], "int32"), ir], "op_runtime")],
                    spec=["OP.vision.non_max_suppression.C6"], tags=tags + ["runtime"]))
    base = [("d", _f((2, 4, 6))), ("vc", tensor((2,), "int32")), ("ind", tensor((2, 4), "int32"))]
    for name, params, call, cid in (
            ("nms_valid_count_int64", [base[0], ("vc", tensor((2,), "int64")), base[2]],
             "R.vision.non_max_suppression(d, vc, ind)", "C2"),
            ("nms_indices_shape_mismatch", [base[0], base[1], ("ind", tensor((2, 5), "int32"))],
             "R.vision.non_max_suppression(d, vc, ind)", "C3"),
            ("nms_coord_start_past_end", base, "R.vision.non_max_suppression(d, vc, ind, coord_start=3)", "C5"),
            ("nms_rank_2_data", [("d", _f((4, 6))), base[1], base[2]],
             "R.vision.non_max_suppression(d, vc, ind)", "C1")):
        out.append(Invalid(name, module(params, call), "struct_info",
                           spec=[f"OP.vision.non_max_suppression.{cid}"], tags=tags + ["invalid"]))
    return out


def all_class_cases():
    out = []
    rng = rng_for("all_class_non_max_suppression")
    tags = ["op:vision.all_class_non_max_suppression", "vision", "nms"]
    ids = ["OP.vision.all_class_non_max_suppression.C6", "OP.VISION.IOU.1"]
    one = tensor((), "float32")
    sig = [("b", _f((1, 3, 4))), ("s", _f((1, 2, 3))), ("m", tensor((), "int64")), ("i", one), ("t", one)]
    boxes = np.array([[[0, 0, 2, 2], [0, 0, 2, 2.2], [3, 3, 4, 4]]], "float32")
    scores = np.array([[[0.6, 0.9, 0.7], [0.3, 0.1, 0.05]]], "float32")
    onnx = tup(tensor((6, 3), "int64"), tensor((1,), "int64"))
    rows = np.zeros((6, 3), "int64")
    rows[:3] = [[0, 0, 1], [0, 0, 2], [0, 1, 0]]
    out.append(Case("all_class_nms_hand_onnx",
                    module(sig, "R.vision.all_class_non_max_suppression(b, s, m, i, t)", onnx),
                    runs=[([boxes, scores, np.array(5, "int64"), np.array(0.5, "float32"), np.array(0.08, "float32")],
                           (rows, np.array([3], "int64"))),
                          ([boxes, scores, np.array(5, "int64"), np.array(0.0, "float32"), np.array(0.08, "float32")],
                           (np.zeros((6, 3), "int64"), np.array([0], "int64")))],
                    spec=ids + ["OP.vision.all_class_non_max_suppression.C5"], tags=tags + ["edge"], oracle="hand",
                    description="class 0: box 1 (0.9) suppresses box 0 (IoU 0.91), box 2 stays; class 1: box 0 "
                                "suppresses box 1, box 2 is below the score threshold; an IoU threshold of 0 "
                                "selects nothing"))
    b, c, n = 2, 3, 6
    bx = np.concatenate([rng.uniform(0, 4, (b, n, 2)), np.zeros((b, n, 2))], axis=-1).astype("float32")
    bx[..., 2:] = bx[..., :2] + rng.uniform(1, 3, (b, n, 2)).astype("float32")
    sc = rng.permutation(np.linspace(0.02, 0.98, b * c * n)).reshape(b, c, n).astype("float32")
    sig = [("b", _f((b, n, 4))), ("s", _f((b, c, n))), ("m", tensor((1,), "int64")), ("i", one), ("t", one)]
    args = [bx, sc, np.array([2], "int64"), np.array(0.3, "float32"), np.array(0.25, "float32")]
    tf = tup(tensor((b, c * n, 2), "int64"), _f((b, c * n)), tensor((b,), "int64"))
    out.append(Case("all_class_nms_tensorflow_limit_from_parameter",
                    module(sig, 'R.vision.all_class_non_max_suppression(b, s, m, i, t, "tensorflow")', tf),
                    runs=[(args, all_class_oracle(bx, sc, 2, 0.3, 0.25, "tensorflow"))],
                    spec=ids + ["OP.vision.all_class_non_max_suppression.C5", "OP.VISION.SORT.1"], tags=tags,
                    description="the per-class limit is a function parameter, read at run time"))
    out.append(Case("all_class_nms_tensorflow",
                    module([p for p in sig if p[0] != "m"],
                           'R.vision.all_class_non_max_suppression(b, s, R.const(3, "int64"), i, t, "tensorflow")',
                           tf),
                    runs=[([bx, sc, args[3], args[4]], all_class_oracle(bx, sc, 3, 0.3, 0.25, "tensorflow"))],
                    spec=ids + ["OP.vision.all_class_non_max_suppression.C5", "OP.VISION.SORT.1"], tags=tags))
    sig_c = [("b", _f((b, n, 4))), ("s", _f((b, c, n))), ("i", _f((1,))), ("t", one)]
    out.append(Case("all_class_nms_onnx_constant_limit",
                    module(sig_c, 'R.vision.all_class_non_max_suppression(b, s, R.const(2, "int64"), i, t)',
                           tup(tensor((b * c * n, 3), "int64"), tensor((1,), "int64"))),
                    runs=[([bx, sc, np.array([0.3], "float32"), args[4]], all_class_oracle(bx, sc, 2, 0.3, 0.25))],
                    spec=ids + ["OP.vision.all_class_non_max_suppression.C5"], tags=tags,
                    description="rows past the detection count are zero"))
    out.append(Case("all_class_nms_threshold_of_two_values",
                    module(sig[:4] + [("t", _f(("k",)))], "R.vision.all_class_non_max_suppression(b, s, m, i, t)",
                           tup(tensor((b * c * n, 3), "int64"), tensor((1,), "int64"))),
                    runs=[Fails(args[:4] + [np.array([0.1, 0.2], "float32")], "op_runtime")],
                    spec=["OP.vision.all_class_non_max_suppression.C4"], tags=tags + ["runtime"]))
    for name, params, cid in (
            ("all_class_nms_rank_2_boxes", [("b", _f((3, 4))), ("s", _f((1, 2, 3))), ("m", tensor((), "int64")),
                                            ("i", one), ("t", one)], "C1"),
            ("all_class_nms_float_limit", [("b", _f((1, 3, 4))), ("s", _f((1, 2, 3))), ("m", one), ("i", one),
                                           ("t", one)], "C2"),
            ("all_class_nms_boxes_of_five", [("b", _f((1, 3, 5))), ("s", _f((1, 2, 3))), ("m", tensor((), "int64")),
                                             ("i", one), ("t", one)], "C3")):
        out.append(Invalid(name, module(params, "R.vision.all_class_non_max_suppression(b, s, m, i, t)"),
                           "struct_info", spec=[f"OP.vision.all_class_non_max_suppression.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def generate():
    return {CATEGORY: roi_cases() + multibox_cases() + valid_counts_cases() + nms_cases() + all_class_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_vision"])

"""Reference semantics of the vision operators (spec pages ``spec/ops/vision.*.md``), over numpy
arrays: the kernels :mod:`relax_ref.ops.vision` calls after the operators' checks.

Arithmetic follows the order of operations of TVM's kernels in the operands' own float type (a
float32 ROI computes its bin boundaries in float32), so that ``floor``/``ceil`` decisions agree:

* ``roi_align`` (OP.vision.roi_align.C6) and ``roi_pool`` (OP.vision.roi_pool.C5): one output per
  ROI and bin, sampled bilinearly on a regular grid (align) or the maximum over the bin's integer
  window (pool);
* ``multibox_transform_loc`` (OP.vision.multibox_transform_loc.C5): center-size box decoding
  against ``ltrb`` anchors, softmax over classes, a score threshold and the background class;
* ``get_valid_counts`` (OP.vision.get_valid_counts.C3): stable compaction of the valid rows;
* ``non_max_suppression`` (OP.vision.non_max_suppression.C6-C8): hard or soft (Gaussian) NMS over
  the rows sorted by score, with the padding conventions of TVM's kernel (-1 rows and indices);
* ``all_class_non_max_suppression`` (OP.vision.all_class_non_max_suppression.C5-C6): per batch and
  class NMS in ONNX or TensorFlow output layout, zero padded.

Sorting by score is stable and descending; NaN scores sort after every number (OP.VISION.SORT.1).
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np


def _lowest(dtype) -> np.generic:
    return np.asarray(np.finfo(dtype).min, dtype)


# ---------------------------------------------------------------------------------------------------
# ROI align / ROI pool
# ---------------------------------------------------------------------------------------------------


def _bilinear(img: np.ndarray, y, x, h: int, w: int, ft) -> np.ndarray:
    """TOPI's bilinear sample of ``img`` (C, H, W) at ``(y, x)`` (already clamped to the image)."""
    y_low, x_low = int(np.floor(y)), int(np.floor(x))
    wy_h = ft(y - ft(y_low))
    wx_h = ft(x - ft(x_low))
    wy_l, wx_l = ft(1) - wy_h, ft(1) - wx_h
    val = np.zeros(img.shape[0], img.dtype)
    for wx, xp in ((wx_l, x_low), (wx_h, x_low + 1)):
        for wy, yp in ((wy_l, y_low), (wy_h, y_low + 1)):
            if 0 <= yp <= h - 1 and 0 <= xp <= w - 1:
                val = val + (ft(wx * wy) * img[:, yp, xp]).astype(img.dtype)
    return val


def roi_align(data: np.ndarray, rois: np.ndarray, pooled: Tuple[int, int], scale: float, sample_ratio: int,
              aligned: bool, layout: str, mode: str) -> np.ndarray:
    """OP.vision.roi_align.C6: NCHW or NHWC data, ROIs ``[batch, x1, y1, x2, y2]``."""
    x = data if layout == "NCHW" else np.transpose(data, (0, 3, 1, 2))
    _, c, h, w = x.shape
    ph_n, pw_n = pooled
    ft = rois.dtype.type
    out = np.zeros((rois.shape[0], c, ph_n, pw_n), data.dtype)
    s = ft(scale)
    for i, roi in enumerate(rois):
        b = int(roi[0])
        sw, sh, ew, eh = (ft(roi[k] * s) for k in (1, 2, 3, 4))
        rh, rw = ft(eh - sh), ft(ew - sw)
        if not aligned:
            rh, rw = max(rh, ft(1)), max(rw, ft(1))
        bh, bw = ft(rh / ft(ph_n)), ft(rw / ft(pw_n))
        gh = sample_ratio if sample_ratio > 0 else int(np.ceil(ft(rh / ft(ph_n))))
        gw = sample_ratio if sample_ratio > 0 else int(np.ceil(ft(rw / ft(pw_n))))
        count = ft(gh * gw)
        img = x[b]
        for ph in range(ph_n):
            y0 = ft(sh + ft(ft(ph) * bh))
            for pw in range(pw_n):
                x0 = ft(sw + ft(ft(pw) * bw))
                acc = np.zeros(c, data.dtype) if mode == "avg" else np.full(c, _lowest(data.dtype))
                for iy in range(max(gh, 0)):
                    yy = ft(y0 + ft(ft(ft(iy) + ft(0.5)) * bh) / ft(gh))
                    for ix in range(max(gw, 0)):
                        xx = ft(x0 + ft(ft(ft(ix) + ft(0.5)) * bw) / ft(gw))
                        if yy < -1.0 or xx < -1.0 or yy > ft(h) or xx > ft(w):
                            v = np.zeros(c, data.dtype)
                        else:
                            yc = min(max(yy, ft(0)), ft(h - 1))
                            xc = min(max(xx, ft(0)), ft(w - 1))
                            v = _bilinear(img, yc, xc, h, w, ft)
                        if mode == "avg":
                            acc = (acc + v / np.asarray(count, data.dtype)).astype(data.dtype)
                        else:
                            acc = np.maximum(acc, v)
                out[i, :, ph, pw] = acc
    return out if layout == "NCHW" else np.ascontiguousarray(np.transpose(out, (0, 2, 3, 1)))


def roi_pool(data: np.ndarray, rois: np.ndarray, pooled: Tuple[int, int], scale: float) -> np.ndarray:
    """OP.vision.roi_pool.C5: NCHW data; each bin's window is rounded outwards to whole pixels."""
    _, c, h, w = data.shape
    ph_n, pw_n = pooled
    ft = rois.dtype.type
    s = ft(scale)
    out = np.zeros((rois.shape[0], c, ph_n, pw_n), data.dtype)
    for i, roi in enumerate(rois):
        b = int(roi[0])
        sw, sh, ew, eh = (int(np.floor(ft(ft(roi[k] * s) + ft(0.5)))) for k in (1, 2, 3, 4))
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bh, bw = ft(ft(rh) / ft(ph_n)), ft(ft(rw) / ft(pw_n))
        for ph in range(ph_n):
            hs = min(max(int(np.floor(ft(ft(ph) * bh))) + sh, 0), h)
            he = min(max(int(np.ceil(ft(ft(ph + 1) * bh))) + sh, 0), h)
            for pw in range(pw_n):
                ws = min(max(int(np.floor(ft(ft(pw) * bw))) + sw, 0), w)
                we = min(max(int(np.ceil(ft(ft(pw + 1) * bw))) + sw, 0), w)
                if he > hs and we > ws:
                    out[i, :, ph, pw] = data[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


# ---------------------------------------------------------------------------------------------------
# multibox_transform_loc / get_valid_counts
# ---------------------------------------------------------------------------------------------------


def multibox_transform_loc(cls: np.ndarray, loc: np.ndarray, anchor: np.ndarray, clip: bool, threshold: float,
                           variances: Sequence[float], keep_background: bool, apply_softmax: bool):
    """OP.vision.multibox_transform_loc.C5."""
    ft = cls.dtype.type
    b, _, n = cls.shape
    e = loc.reshape(b, n, 4)
    vx, vy, vw, vh = (ft(v) for v in variances)
    half = ft(0.5)
    with np.errstate(all="ignore"):
        left, top, right, bottom = (anchor[0, :, k] for k in range(4))
        ay, ax = (top + bottom) * half, (left + right) * half
        ah, aw = bottom - top, right - left
        yc = e[..., 1] * vy * ah + ay
        xc = e[..., 0] * vx * aw + ax
        hh = half * np.exp(e[..., 3] * vh) * ah
        hw = half * np.exp(e[..., 2] * vw) * aw
        boxes = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1).astype(cls.dtype)
        if clip:
            boxes = np.maximum(ft(0), np.minimum(ft(1), boxes))
        if apply_softmax and cls.shape[1]:      # no classes: nothing to normalize (an empty result)
            z = np.exp(cls - cls.max(axis=1, keepdims=True))
            scores = (z / z.sum(axis=1, keepdims=True)).astype(cls.dtype)
        else:
            scores = cls.copy()
        scores = (scores * (scores >= ft(threshold)).astype(cls.dtype)).astype(cls.dtype)
    if not keep_background and scores.shape[1]:     # class 0, when there is one
        scores[:, 0, :] = 0
    return boxes, scores


def get_valid_counts(data: np.ndarray, threshold: float, id_index: int, score_index: int):
    """OP.vision.get_valid_counts.C3: valid rows (score above the threshold, class id not negative)
    move to the top in their order; the rest are -1."""
    bsz, n, k = data.shape
    th = data.dtype.type(threshold)
    counts = np.zeros(bsz, "int32")
    out = np.full(data.shape, -1, data.dtype)
    idx = np.full((bsz, n), -1, "int32")
    for i in range(bsz):
        for j in range(n):
            ok = data[i, j, score_index] > th and (id_index < 0 or data[i, j, id_index] >= 0)
            if ok:
                out[i, counts[i]] = data[i, j]
                idx[i, counts[i]] = j
                counts[i] += 1
    return counts, out, idx


# ---------------------------------------------------------------------------------------------------
# NMS
# ---------------------------------------------------------------------------------------------------


def sort_desc(scores: np.ndarray) -> np.ndarray:
    """The stable descending order of ``scores``, NaN last (OP.VISION.SORT.1)."""
    nan = np.isnan(scores)
    return np.lexsort((np.arange(scores.shape[0]), np.where(nan, 0, -scores.astype("float64")), nan))


def _tmin(a, b):
    return a if a < b else b          # TIR's min: ``a < b ? a : b``


def _tmax(a, b):
    return a if a > b else b


def iou(a: np.ndarray, b: np.ndarray) -> np.generic:
    """The overlap of two boxes given by two opposite corners ``(x0, y0, x1, y1)`` in any order
    (OP.VISION.IOU.1); 0 when the union is not positive."""
    ft = a.dtype.type
    al, at, ar, ab = _tmin(a[0], a[2]), _tmin(a[1], a[3]), _tmax(a[0], a[2]), _tmax(a[1], a[3])
    bl, bt, br, bb = _tmin(b[0], b[2]), _tmin(b[1], b[3]), _tmax(b[0], b[2]), _tmax(b[1], b[3])
    with np.errstate(all="ignore"):
        wd = _tmax(ft(0), ft(_tmin(ar, br) - _tmax(al, bl)))
        ht = _tmax(ft(0), ft(_tmin(ab, bb) - _tmax(at, bt)))
        inter = ft(ht * wd)
        union = ft(ft(ft((ar - al) * (ab - at)) + ft((br - bl) * (bb - bt))) - inter)
        return ft(0) if union <= 0 else ft(inter / union)


def _same_class(row_a, row_b, attrs) -> bool:
    if attrs["force_suppress"] or attrs["id_index"] < 0:
        return True
    return bool(row_a[attrs["id_index"]] == row_b[attrs["id_index"]])


def _hard_nms(out, box, nkeep, attrs):
    si, cs = attrs["score_index"], attrs["coord_start"]
    ft = out.dtype.type
    th = ft(attrs["iou_threshold"])
    mx = attrs["max_output_size"]
    nv = 0
    for j in range(nkeep):
        if out[j, si] > 0 and (mx <= 0 or nv < mx):
            nv += 1
            for k in range(j + 1, nkeep):
                if out[k, si] > 0 and _same_class(out[j], out[k], attrs) and \
                        iou(out[j, cs:cs + 4], out[k, cs:cs + 4]) >= th:
                    out[k, si] = -1
                    box[k] = -1
        else:
            out[j] = -1
            box[j] = -1


def _soft_nms(out, box, nkeep, attrs) -> int:
    si, cs = attrs["score_index"], attrs["coord_start"]
    ft = out.dtype.type
    th, thresh = ft(attrs["iou_threshold"]), ft(attrs["score_threshold"])
    scale = ft(np.float32(-0.5 / attrs["soft_nms_sigma"]))
    mx = attrs["max_output_size"]
    nv = 0
    for _ in range(nkeep):
        if not (mx <= 0 or nv < mx):
            continue
        best, best_score = -1, thresh
        for j in range(nv, nkeep):
            if box[j] >= 0 and out[j, si] > best_score:
                best, best_score = j, out[j, si]
        if best < 0:
            continue
        if best != nv:
            box[[nv, best]] = box[[best, nv]]
            out[[nv, best]] = out[[best, nv]]
        for j in range(nv + 1, nkeep):
            if box[j] >= 0 and out[j, si] > thresh and _same_class(out[nv], out[j], attrs):
                o = iou(out[nv, cs:cs + 4], out[j, cs:cs + 4])
                if o >= th:
                    box[j] = -1
                else:
                    with np.errstate(all="ignore"):
                        out[j, si] = ft(out[j, si] * ft(np.exp(ft(ft(scale * o) * o))))
                    if out[j, si] <= thresh:
                        box[j] = -1
        nv += 1
    return nv


def non_max_suppression(data: np.ndarray, valid_count: np.ndarray, indices: np.ndarray, attrs) -> object:
    """OP.vision.non_max_suppression.C6-C8 (``attrs``: the call's attributes as a dict)."""
    bsz, n, _ = data.shape
    soft = attrs["soft_nms_sigma"] > 0.0
    out = np.full(data.shape, -1, data.dtype)
    box = np.full((bsz, n), -1, "int32")
    counts = np.zeros((bsz, 1), "int32")
    for i in range(bsz):
        nvalid = max(int(valid_count[i]), 0)
        order = np.concatenate([sort_desc(data[i, :nvalid, attrs["score_index"]]), np.arange(nvalid, n)])
        top_k = attrs["top_k"]
        nkeep = top_k if 0 < top_k < nvalid else nvalid
        out[i, :nkeep] = data[i, order[:nkeep]]
        box[i, :nkeep] = order[:nkeep]
        if soft:
            nv = _soft_nms(out[i], box[i], nkeep, attrs)
            if attrs["return_indices"]:
                box[i, :nv] = indices[i, box[i, :nv]]
            out[i, nv:] = -1
            box[i, nv:] = -1
            counts[i, 0] = nv
            continue
        _hard_nms(out[i], box[i], nkeep, attrs)
        kept = box[i][box[i] >= 0]
        counts[i, 0] = len(kept)
        box[i] = -1
        box[i, :len(kept)] = indices[i, kept]
    if attrs["return_indices"]:
        return (out, box, counts) if soft else (box, counts)
    if attrs["invalid_to_bottom"]:
        res = np.full(data.shape, -1, data.dtype)
        for i in range(bsz):
            rows = out[i][out[i, :, attrs["score_index"]] >= 0]
            res[i, :len(rows)] = rows
        return res
    return out


def _class_nms(boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_th, score_th) -> List[Tuple[int, float]]:
    """The boxes kept for one batch and class, in selection order, with their scores."""
    order = sort_desc(scores)
    live = scores[order].astype(scores.dtype)
    valid = int(np.sum(live > score_th))
    sel: List[Tuple[int, float]] = []
    if not (iou_th > 0 and valid > 0):
        return sel
    for j in range(valid):
        if live[j] > -1 and len(sel) < max_out and live[j] > score_th:
            sel.append((int(order[j]), float(live[j])))
            for k in range(j + 1, valid):
                if live[k] > 0 and iou(boxes[order[j]], boxes[order[k]]) >= iou_th:
                    live[k] = -1
    return sel


def all_class_nms(boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_th, score_th, fmt: str):
    """OP.vision.all_class_non_max_suppression.C5-C6."""
    bsz, ncls, n = scores.shape
    ft = scores.dtype.type
    iou_t, score_t = boxes.dtype.type(iou_th), ft(score_th)
    sel = [[_class_nms(boxes[b], scores[b, c], max_out, iou_t, score_t) for c in range(ncls)] for b in range(bsz)]
    if fmt == "onnx":
        rows = np.zeros((bsz * ncls * n, 3), "int64")
        r = 0
        for b in range(bsz):
            for c in range(ncls):
                for k, _ in sel[b][c]:
                    rows[r] = (b, c, k)
                    r += 1
        return rows, np.array([r], "int64")
    idx = np.zeros((bsz, ncls * n, 2), "int64")
    sc = np.zeros((bsz, ncls * n), "float32")
    counts = np.zeros(bsz, "int64")
    for b in range(bsz):
        r = 0
        for c in range(ncls):
            for k, s in sel[b][c]:
                idx[b, r] = (c, k)
                sc[b, r] = s
                r += 1
        counts[b] = r
    return idx, sc, counts


__all__ = ["roi_align", "roi_pool", "multibox_transform_loc", "get_valid_counts", "non_max_suppression",
           "all_class_nms", "sort_desc", "iou"]

"""Lowerings of the vision operators (semantics: ``relax_ref.ops.vision`` and ``vision_ref``), with
fixed shapes so they trace under ``jax.jit``:

* ``roi_align`` gathers each ROI's image and walks the sampling grids with one loop whose trip count is
  the largest grid of the batch (an adaptive grid depends on the ROI values; RUNTIME.LIMIT.8 bounds
  it), masking the samples a smaller ROI does not take; ``roi_pool`` is a masked maximum over each bin's window, rows then columns;
* ``multibox_transform_loc`` is elementwise arithmetic and a softmax;
* ``get_valid_counts`` scatters the valid rows to their running count;
* ``non_max_suppression`` and ``all_class_non_max_suppression`` sort stably by score (NaN last) and
  run the reference's sequential selection as a ``fori_loop`` over the sorted rows, each step
  suppressing every later row at once; the padded outputs are scattered into fixed-size arrays.

Exact shapes (``padding="none"``); the run-time constraints are the operators' ``check``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.ops.vision import nms_attrs, roi_align_grid, roi_align_samples

from ..float_rules import rounded_multiply
from ..lowering import lowering
from .common import tvm_max, tvm_min


def _lowest(dt):
    return jnp.asarray(np.finfo(dt).min, dt)


# ---------------------------------------------------------------------------------------------------
# roi_align / roi_pool
# ---------------------------------------------------------------------------------------------------


def _roi_common(x, rois):
    b = jnp.trunc(rois[:, 0]).astype(jnp.int32)
    return x[b]


def _finite_corners(rois, s):
    """The scaled corners with a ROI whose corners are not all finite replaced by zeros: the check
    (OP.vision.roi_align.C7, OP.vision.roi_pool.C6) fails that call, and the compiled loops must
    not run ``ceil(inf)`` samples meanwhile."""
    corners = rounded_multiply(rois[:, 1:5], s)   # each product rounded (PRIM.FLOAT.1)
    ok = jnp.all(jnp.isfinite(corners), axis=1, keepdims=True)
    return jnp.where(ok, corners, jnp.zeros((), corners.dtype))


@lowering("relax.vision.roi_align")
def _roi_align(ctx, data, rois):
    a = ctx.attrs
    ph_n, pw_n = (int(v) for v in a["pooled_size"])
    layout, mode = a.get("layout", "NCHW"), a.get("mode", "avg")
    aligned = bool(a.get("aligned", False))
    x = data if layout == "NCHW" else jnp.transpose(data, (0, 3, 1, 2))
    _, c, h, w = x.shape
    ft, dt = rois.dtype, data.dtype
    s = jnp.asarray(float(a["spatial_scale"]), ft)
    img = _roi_common(x, rois)                                   # (R, C, H, W)
    if h == 0 or w == 0:   # no sample lies in an empty image (all zeros); a zero row or column to gather from
        img = jnp.pad(img, ((0, 0), (0, 0), (0, int(h == 0)), (0, int(w == 0))))
    corners = _finite_corners(rois, s)
    sw, sh, ew, eh = (corners[:, k] for k in range(4))
    rh, rw = eh - sh, ew - sw
    if not aligned:
        rh, rw = tvm_max(rh, jnp.asarray(1, ft)), tvm_max(rw, jnp.asarray(1, ft))
    bh, bw = rh / jnp.asarray(ph_n, ft), rw / jnp.asarray(pw_n, ft)
    # the grids of OP.vision.roi_align.C6; past the step budget (RUNTIME.LIMIT.8: the check fails the
    # call) every grid is empty, so that the loop below does not run
    gh, gw = roi_align_grid(jnp, rois, a)
    over = roi_align_samples(jnp, rois, a) > float(ctx.walker.exe.limits.max_steps)
    gh = jnp.where(over, 0, gh).astype(jnp.int64)
    gw = jnp.where(over, 0, gw).astype(jnp.int64)
    count = (gh * gw).astype(dt)
    # each product rounded before the add that consumes it (PRIM.FLOAT.1), as the reference's
    y0 = sh[:, None] + rounded_multiply(jnp.arange(ph_n).astype(ft)[None, :], bh[:, None])       # (R, PH)
    x0 = sw[:, None] + rounded_multiply(jnp.arange(pw_n).astype(ft)[None, :], bw[:, None])       # (R, PW)
    r = jnp.arange(rois.shape[0])[:, None, None]

    def sample(iy, ix):
        yy = (y0 + ((iy.astype(ft) + jnp.asarray(0.5, ft)) * bh / gh.astype(ft))[:, None])[:, :, None]
        xx = (x0 + ((ix.astype(ft) + jnp.asarray(0.5, ft)) * bw / gw.astype(ft))[:, None])[:, None, :]
        outside = (yy < -1.0) | (xx < -1.0) | (yy > h) | (xx > w)
        yc = tvm_min(tvm_max(yy, jnp.asarray(0, ft)), jnp.asarray(h - 1, ft))
        xc = tvm_min(tvm_max(xx, jnp.asarray(0, ft)), jnp.asarray(w - 1, ft))
        yl, xl = jnp.floor(yc).astype(jnp.int32), jnp.floor(xc).astype(jnp.int32)
        wyh, wxh = yc - yl.astype(ft), xc - xl.astype(ft)
        val = jnp.zeros((rois.shape[0], ph_n, pw_n, c), dt)
        for wx, xp in ((1 - wxh, xl), (wxh, xl + 1)):
            for wy, yp in ((1 - wyh, yl), (wyh, yl + 1)):
                ok = (yp >= 0) & (yp <= h - 1) & (xp >= 0) & (xp <= w - 1)
                g = img[r, :, jnp.clip(yp, 0, max(h - 1, 0)), jnp.clip(xp, 0, max(w - 1, 0))]   # (R, PH, PW, C)
                val = val + jnp.where(ok[..., None], rounded_multiply((wx * wy)[..., None].astype(dt), g),
                                      jnp.zeros((), dt))
        return jnp.where(outside[..., None], jnp.zeros((), dt), val)

    def step(k, acc):
        # sample k of every ROI's grid, row by row (the reference's order): the trip count is the
        # largest grid, not the largest rows times the largest columns
        iy, ix = k // jnp.maximum(gw, 1), k % jnp.maximum(gw, 1)
        take = (k < gh * gw)[:, None, None, None]
        v = sample(iy, ix)
        if mode == "avg":
            return acc + jnp.where(take, v / count[:, None, None, None], jnp.zeros((), dt))
        return tvm_max(acc, jnp.where(take, v, _lowest(dt)))

    init = jnp.zeros((rois.shape[0], ph_n, pw_n, c), dt) if mode == "avg" else \
        jnp.full((rois.shape[0], ph_n, pw_n, c), _lowest(dt))
    out = lax.fori_loop(jnp.int64(0), jnp.max(gh * gw, initial=0), step, init)     # (R, PH, PW, C)
    return jnp.transpose(out, (0, 3, 1, 2)) if layout == "NCHW" else out


@lowering("relax.vision.roi_pool")
def _roi_pool(ctx, data, rois):
    a = ctx.attrs
    ph_n, pw_n = (int(v) for v in a["pooled_size"])
    _, c, h, w = data.shape
    ft, dt = rois.dtype, data.dtype
    s = jnp.asarray(float(a["spatial_scale"]), ft)
    img = _roi_common(data, rois)
    corners = _finite_corners(rois, s)
    sw, sh, ew, eh = (jnp.floor(corners[:, k] + jnp.asarray(0.5, ft)).astype(jnp.int32) for k in range(4))
    rh, rw = jnp.maximum(eh - sh + 1, 1), jnp.maximum(ew - sw + 1, 1)
    bh, bw = rh.astype(ft) / jnp.asarray(ph_n, ft), rw.astype(ft) / jnp.asarray(pw_n, ft)

    def bounds(n, size, bin_, start):
        k = jnp.arange(n).astype(ft)[None, :]
        lo = jnp.clip(jnp.floor(k * bin_[:, None]).astype(jnp.int32) + start[:, None], 0, size)
        hi = jnp.clip(jnp.ceil((k + 1) * bin_[:, None]).astype(jnp.int32) + start[:, None], 0, size)
        return lo, hi

    hs, he = bounds(ph_n, h, bh, sh)
    ws, we = bounds(pw_n, w, bw, sw)
    if h == 0 or w == 0:
        # every bin is empty (OP.vision.roi_pool: an empty bin is 0); no max over a zero-size axis
        return jnp.zeros((rois.shape[0], c, ph_n, pw_n), dt)
    hm = (jnp.arange(h) >= hs[..., None]) & (jnp.arange(h) < he[..., None])        # (R, PH, H)
    wm = (jnp.arange(w) >= ws[..., None]) & (jnp.arange(w) < we[..., None])        # (R, PW, W)
    low = _lowest(dt)
    m1 = jnp.max(jnp.where(wm[:, None, None], img[:, :, :, None, :], low), axis=-1)   # (R, C, H, PW)
    out = jnp.max(jnp.where(hm[:, None, :, :, None], m1[:, :, None], low), axis=3)     # (R, C, PH, PW)
    empty = (he <= hs)[:, :, None] | (we <= ws)[:, None, :]
    return jnp.where(empty[:, None], jnp.zeros((), dt), out)


# ---------------------------------------------------------------------------------------------------
# multibox_transform_loc / get_valid_counts
# ---------------------------------------------------------------------------------------------------


@lowering("relax.vision.multibox_transform_loc")
def _multibox(ctx, cls, loc, anchor):
    a = ctx.attrs
    dt = cls.dtype
    b, _, n = cls.shape
    e = loc.reshape(b, n, 4)
    vx, vy, vw, vh = (jnp.asarray(float(v), dt) for v in a["variances"])
    half = jnp.asarray(0.5, dt)
    left, top, right, bottom = (anchor[0, :, k] for k in range(4))
    ay, ax = (top + bottom) * half, (left + right) * half
    ah, aw = bottom - top, right - left
    yc = e[..., 1] * vy * ah + ay
    xc = e[..., 0] * vx * aw + ax
    hh = half * jnp.exp(e[..., 3] * vh) * ah
    hw = half * jnp.exp(e[..., 2] * vw) * aw
    boxes = jnp.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1)
    if a.get("clip", False):
        boxes = tvm_max(jnp.zeros((), dt), tvm_min(jnp.ones((), dt), boxes))
    scores = jax.nn.softmax(cls, axis=1) if a.get("apply_softmax", True) else cls
    scores = scores * (scores >= jnp.asarray(float(a.get("threshold", 0.0)), dt)).astype(dt)
    if not a.get("keep_background", True) and scores.shape[1]:     # class 0, when there is one
        scores = scores.at[:, 0, :].set(0)
    return boxes, scores


def _compact(keep, rows, fill, n):
    """``rows[keep]`` moved to the front in order along axis 0, the rest ``fill``."""
    target = jnp.where(keep, jnp.cumsum(keep) - 1, n)
    out = jnp.full(rows.shape, fill, rows.dtype)
    return out.at[target].set(rows, mode="drop")


@lowering("relax.vision.get_valid_counts")
def _get_valid_counts(ctx, data):
    a = ctx.attrs
    si, ii = int(a.get("score_index", 1)), int(a.get("id_index", 0))
    n = data.shape[1]
    valid = data[..., si] > jnp.asarray(float(a.get("score_threshold", 0.0)), data.dtype)
    if ii >= 0:
        valid = valid & (data[..., ii] >= 0)
    out = jax.vmap(lambda k, r: _compact(k, r, -1, n))(valid, data)
    idx = jax.vmap(lambda k: _compact(k, jnp.arange(n, dtype=jnp.int32), -1, n))(valid)
    return jnp.sum(valid, axis=1).astype(jnp.int32), out, idx


# ---------------------------------------------------------------------------------------------------
# NMS
# ---------------------------------------------------------------------------------------------------


def _sort_desc(scores, nvalid):
    """Stable descending order of the first ``nvalid`` scores (NaN last); later positions stay."""
    n = scores.shape[0]
    idx = jnp.arange(n)
    inval = idx >= nvalid
    nan = jnp.isnan(scores) & ~inval
    key = jnp.where(inval | nan, jnp.zeros((), scores.dtype), -scores)
    return lax.sort((inval, nan, key, idx), num_keys=4)[3]


def _iou(a, bs):
    """OP.VISION.IOU.1 of the box ``a`` (4,) against every row of ``bs`` (N, 4)."""
    al, at = tvm_min(a[0], a[2]), tvm_min(a[1], a[3])
    ar, ab = tvm_max(a[0], a[2]), tvm_max(a[1], a[3])
    bl, bt = tvm_min(bs[:, 0], bs[:, 2]), tvm_min(bs[:, 1], bs[:, 3])
    br, bb = tvm_max(bs[:, 0], bs[:, 2]), tvm_max(bs[:, 1], bs[:, 3])
    zero = jnp.zeros((), bs.dtype)
    wd = tvm_max(zero, tvm_min(ar, br) - tvm_max(al, bl))
    ht = tvm_max(zero, tvm_min(ab, bb) - tvm_max(at, bt))
    inter = ht * wd
    union = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - inter
    return jnp.where(union <= 0, zero, inter / jnp.where(union <= 0, jnp.ones((), bs.dtype), union))


def _same(at, rows, a):
    if a["force_suppress"] or a["id_index"] < 0:
        return jnp.ones(rows.shape[0], bool)
    return rows[:, a["id_index"]] == at[a["id_index"]]


def _hard(out, box, nkeep, a):
    si, cs, n = a["score_index"], a["coord_start"], out.shape[0]
    th, mx = jnp.asarray(a["iou_threshold"], out.dtype), a["max_output_size"]
    ks = jnp.arange(n)

    def body(j, st):
        out, box, nv = st
        active = j < nkeep
        take = active & (out[j, si] > 0) & ((mx <= 0) | (nv < mx))
        o = _iou(out[j, cs:cs + 4], out[:, cs:cs + 4])
        sup = take & (ks > j) & (ks < nkeep) & (out[:, si] > 0) & _same(out[j], out, a) & (o >= th)
        out = out.at[:, si].set(jnp.where(sup, jnp.asarray(-1, out.dtype), out[:, si]))
        box = jnp.where(sup, -1, box)
        wipe = active & ~take
        out = out.at[j].set(jnp.where(wipe, jnp.asarray(-1, out.dtype), out[j]))
        box = box.at[j].set(jnp.where(wipe, -1, box[j]))
        return out, box, nv + take.astype(jnp.int32)

    return lax.fori_loop(0, n, body, (out, box, jnp.int32(0)))


def _soft(out, box, nkeep, a):
    si, cs, n = a["score_index"], a["coord_start"], out.shape[0]
    dt = out.dtype
    th, thresh = jnp.asarray(a["iou_threshold"], dt), jnp.asarray(a["score_threshold"], dt)
    scale = jnp.asarray(np.float32(-0.5 / a["soft_nms_sigma"]), dt)
    mx = a["max_output_size"]
    js = jnp.arange(n)

    def body(t, st):
        out, box, nv = st
        go = (t < nkeep) & ((mx <= 0) | (nv < mx))
        cand = (js >= nv) & (js < nkeep) & (box >= 0) & (out[:, si] > thresh)
        best = jnp.argmax(jnp.where(cand, out[:, si], jnp.asarray(-np.inf, dt)))
        has = go & jnp.any(cand)
        rn, rb = out[nv], out[best]
        out = out.at[nv].set(jnp.where(has, rb, rn)).at[best].set(jnp.where(has, rn, rb))
        bn, bb = box[nv], box[best]
        box = box.at[nv].set(jnp.where(has, bb, bn)).at[best].set(jnp.where(has, bn, bb))
        cur = out[nv]
        m = has & (js > nv) & (js < nkeep) & (box >= 0) & (out[:, si] > thresh) & _same(cur, out, a)
        o = _iou(cur[cs:cs + 4], out[:, cs:cs + 4])
        dec = m & (o < th)
        sc = jnp.where(dec, out[:, si] * jnp.exp(scale * o * o), out[:, si])
        kill = (m & (o >= th)) | (dec & (sc <= thresh))
        return out.at[:, si].set(sc), jnp.where(kill, -1, box), nv + has.astype(jnp.int32)

    return lax.fori_loop(0, n, body, (out, box, jnp.int32(0)))


@lowering("relax.vision.non_max_suppression")
def _nms(ctx, data, valid_count, indices):
    a = nms_attrs(ctx.attrs)
    n = data.shape[1]
    si = a["score_index"]
    soft = a["soft_nms_sigma"] > 0.0

    def one(d, vc, ind):
        nvalid = jnp.clip(vc, 0, n)
        order = _sort_desc(d[:, si], nvalid)
        top_k = a["top_k"]
        nkeep = jnp.where((top_k > 0) & (top_k < nvalid), top_k, nvalid)
        keep = jnp.arange(n) < nkeep
        out = jnp.where(keep[:, None], d[order], jnp.asarray(-1, d.dtype))
        box = jnp.where(keep, order.astype(jnp.int32), -1)
        if soft:
            out, box, nv = _soft(out, box, nkeep, a)
            first = jnp.arange(n) < nv
            if a["return_indices"]:
                box = jnp.where(first, ind[jnp.clip(box, 0, n - 1)], -1)
            out = jnp.where(first[:, None], out, jnp.asarray(-1, d.dtype))
            return out, jnp.where(first, box, -1), nv.reshape(1)
        out, box, _ = _hard(out, box, nkeep, a)
        kept = box >= 0
        mapped = _compact(kept, ind[jnp.clip(box, 0, n - 1)], -1, n)
        return out, mapped, jnp.sum(kept).astype(jnp.int32).reshape(1)

    out, box, cnt = jax.vmap(one)(data, valid_count, indices)
    if a["return_indices"]:
        return (out, box, cnt) if soft else (box, cnt)
    if a["invalid_to_bottom"]:
        return jax.vmap(lambda r: _compact(r[:, si] >= 0, r, -1, n))(out)
    return out


@lowering("relax.vision.all_class_non_max_suppression")
def _all_class(ctx, boxes, scores, mx, iou_th, score_th):
    bsz, ncls, n = scores.shape
    mx = mx.reshape(-1)[0]
    iou_t = iou_th.reshape(-1)[0].astype(boxes.dtype)
    score_t = score_th.reshape(-1)[0].astype(scores.dtype)
    ks = jnp.arange(n)

    def one(s, bxs):
        order = _sort_desc(s, n)
        live = s[order]
        valid = jnp.sum(live > score_t)
        ok = (iou_t > 0) & (valid > 0)
        sorted_boxes = bxs[order]

        def body(j, st):
            live, sel, scs, ns = st
            take = ok & (j < valid) & (live[j] > -1) & (ns < mx) & (live[j] > score_t)
            sel = sel.at[ns].set(jnp.where(take, order[j], sel[ns]), mode="drop")
            scs = scs.at[ns].set(jnp.where(take, live[j].astype(jnp.float32), scs[ns]), mode="drop")
            o = _iou(sorted_boxes[j], sorted_boxes)
            sup = take & (ks > j) & (ks < valid) & (live > 0) & (o >= iou_t)
            live = jnp.where(sup, jnp.asarray(-1, live.dtype), live)
            return live, sel, scs, ns + take.astype(jnp.int32)

        init = (live, jnp.zeros(n, jnp.int64), jnp.zeros(n, jnp.float32), jnp.int32(0))
        _, sel, scs, ns = lax.fori_loop(0, n, body, init)
        return sel, scs, ns

    flat_scores = scores.reshape(bsz * ncls, n)
    flat_boxes = jnp.repeat(boxes, ncls, axis=0)
    sel, scs, ns = jax.vmap(one)(flat_scores, flat_boxes)          # (BC, N), (BC, N), (BC,)
    slot = ks[None, :] < ns[:, None]
    bc = jnp.arange(bsz * ncls)
    if ctx.attrs.get("output_format", "onnx") == "onnx":
        off = jnp.cumsum(ns) - ns
        rows = jnp.where(slot, off[:, None] + ks[None, :], bsz * ncls * n).reshape(-1)
        vals = jnp.stack([jnp.broadcast_to((bc // ncls)[:, None], (bsz * ncls, n)),
                          jnp.broadcast_to((bc % ncls)[:, None], (bsz * ncls, n)), sel], axis=-1).astype(jnp.int64)
        out = jnp.zeros((bsz * ncls * n, 3), jnp.int64).at[rows].set(vals.reshape(-1, 3), mode="drop")
        return out, jnp.sum(ns).astype(jnp.int64).reshape(1)
    per = ns.reshape(bsz, ncls)
    off = (jnp.cumsum(per, axis=1) - per).reshape(-1)
    rows = jnp.where(slot, off[:, None] + ks[None, :], ncls * n)              # (BC, N) within the batch
    bidx = jnp.broadcast_to((bc // ncls)[:, None], (bsz * ncls, n))
    vals = jnp.stack([jnp.broadcast_to((bc % ncls)[:, None], (bsz * ncls, n)), sel], axis=-1).astype(jnp.int64)
    idx = jnp.zeros((bsz, ncls * n, 2), jnp.int64).at[bidx, rows].set(vals, mode="drop")
    sc = jnp.zeros((bsz, ncls * n), jnp.float32).at[bidx, rows].set(scs, mode="drop")
    return idx, sc, jnp.sum(per, axis=1).astype(jnp.int64)

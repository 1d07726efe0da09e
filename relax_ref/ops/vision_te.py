"""Legalization of the vision operators that are loop nests (OP.vision.roi_align.C6,
OP.vision.roi_pool.C5, OP.vision.multibox_transform_loc.C5): TE computes with the order of
operations of the reference (:mod:`relax_ref.ops.vision_ref`). ``roi_align`` is legalized only with
a fixed ``sample_ratio``: the adaptive grid's extent depends on ROI values.
"""

from __future__ import annotations

from typing import Sequence, Tuple

from . import te
from . import te_ops as O


def _c(v, dt):
    return O.const(v, dt)


def roi_pool_te(pooled: Tuple[int, int], scale: float):
    def fte(data: te.Tensor, rois: te.Tensor) -> te.Tensor:
        _, c, h, w = data.shape
        ft = rois.dtype
        ph_n, pw_n = pooled

        def rnd(i, k):
            return O.cast("int32", te.floor(O.add(O.mul(rois[i, k], _c(scale, ft)), _c(0.5, ft))))

        def bounds(i, ph, pw):
            sw, sh, ew, eh = (rnd(i, k) for k in (1, 2, 3, 4))
            rh = O.max_(O.add(O.sub(eh, sh), _c(1, "int32")), _c(1, "int32"))
            rw = O.max_(O.add(O.sub(ew, sw), _c(1, "int32")), _c(1, "int32"))
            bh = O.div(O.cast(ft, rh), _c(float(ph_n), ft))
            bw = O.div(O.cast(ft, rw), _c(float(pw_n), ft))
            hi32, wi32 = O.cast("int32", h), O.cast("int32", w)

            def clamp(v, hi):
                return O.min_(O.max_(v, _c(0, "int32")), hi)
            hs = clamp(O.add(O.cast("int32", te.floor(O.mul(O.cast(ft, ph), bh))), sh), hi32)
            he = clamp(O.add(O.cast("int32", te.ceil(O.mul(O.cast(ft, O.add(ph, _c(1, ph.dtype))), bh))), sh), hi32)
            ws = clamp(O.add(O.cast("int32", te.floor(O.mul(O.cast(ft, pw), bw))), sw), wi32)
            we = clamp(O.add(O.cast("int32", te.ceil(O.mul(O.cast(ft, O.add(pw, _c(1, pw.dtype))), bw))), sw), wi32)
            return hs, he, ws, we

        rh_ax = te.reduce_axis(h, "rh")
        rw_ax = te.reduce_axis(w, "rw")

        def pooled_max(i, cc, ph, pw):
            hs, he, ws, we = bounds(i, ph, pw)
            yy, xx = O.cast("int32", rh_ax.var), O.cast("int32", rw_ax.var)
            ok = O.logical_and(O.logical_and(O.le(hs, yy), O.lt(yy, he)), O.logical_and(O.le(ws, xx), O.lt(xx, we)))
            b = O.cast("int64", O.cast("int32", rois[i, 0]))
            v = O.if_then_else(ok, data[b, cc, rh_ax.var, rw_ax.var], _c(float("-inf"), data.dtype))
            return te.max(v, axis=[rh_ax, rw_ax])

        mx = te.compute((rois.shape[0], c, ph_n, pw_n), pooled_max, name="roi_pool_max")

        def fin(i, cc, ph, pw):
            hs, he, ws, we = bounds(i, ph, pw)
            empty = O.logical_or(O.le(he, hs), O.le(we, ws))
            return O.if_then_else(empty, _c(0, data.dtype), mx[i, cc, ph, pw])

        return te.compute((rois.shape[0], c, ph_n, pw_n), fin, name="roi_pool")
    return fte


def roi_align_te(pooled: Tuple[int, int], scale: float, ratio: int, aligned: bool, layout: str, mode: str):
    def fte(data: te.Tensor, rois: te.Tensor) -> te.Tensor:
        if layout == "NCHW":
            _, c, h, w = data.shape
        else:
            _, h, w, c = data.shape
        ft, dt = rois.dtype, data.dtype
        ph_n, pw_n = pooled
        iy, ix = te.reduce_axis(ratio, "iy"), te.reduce_axis(ratio, "ix")
        hf, wf = O.cast(ft, h), O.cast(ft, w)

        def load(b, cc, y, x):
            return data[b, cc, y, x] if layout == "NCHW" else data[b, y, x, cc]

        def bilinear(b, cc, y, x):
            yl, xl = O.cast("int32", te.floor(y)), O.cast("int32", te.floor(x))
            wyh, wxh = O.sub(y, O.cast(ft, yl)), O.sub(x, O.cast(ft, xl))
            one = _c(1.0, ft)
            val = _c(0.0, dt)
            for wx, xp in ((O.sub(one, wxh), xl), (wxh, O.add(xl, _c(1, "int32")))):
                for wy, yp in ((O.sub(one, wyh), yl), (wyh, O.add(yl, _c(1, "int32")))):
                    ok = O.logical_and(
                        O.logical_and(O.le(_c(0, "int32"), yp), O.le(yp, O.cast("int32", O.sub(h, _c(1, h.dtype))))),
                        O.logical_and(O.le(_c(0, "int32"), xp), O.le(xp, O.cast("int32", O.sub(w, _c(1, w.dtype))))))
                    v = load(b, cc, O.cast("int64", yp), O.cast("int64", xp))
                    val = O.add(val, O.if_then_else(ok, O.mul(O.cast(dt, O.mul(wx, wy)), v), _c(0.0, dt)))
            return val

        def cell(i, cc, ph, pw):
            s = _c(scale, ft)
            sw, sh, ew, eh = (O.mul(rois[i, k], s) for k in (1, 2, 3, 4))
            rh, rw = O.sub(eh, sh), O.sub(ew, sw)
            if not aligned:
                rh, rw = O.max_(rh, _c(1.0, ft)), O.max_(rw, _c(1.0, ft))
            bh, bw = O.div(rh, _c(float(ph_n), ft)), O.div(rw, _c(float(pw_n), ft))
            y0 = O.add(sh, O.mul(O.cast(ft, ph), bh))
            x0 = O.add(sw, O.mul(O.cast(ft, pw), bw))
            g = _c(float(ratio), ft)
            yy = O.add(y0, O.div(O.mul(O.add(O.cast(ft, iy.var), _c(0.5, ft)), bh), g))
            xx = O.add(x0, O.div(O.mul(O.add(O.cast(ft, ix.var), _c(0.5, ft)), bw), g))
            outside = O.logical_or(O.logical_or(O.lt(yy, _c(-1.0, ft)), O.lt(xx, _c(-1.0, ft))),
                                   O.logical_or(O.lt(hf, yy), O.lt(wf, xx)))
            yc = O.min_(O.max_(yy, _c(0.0, ft)), O.cast(ft, O.sub(h, _c(1, h.dtype))))
            xc = O.min_(O.max_(xx, _c(0.0, ft)), O.cast(ft, O.sub(w, _c(1, w.dtype))))
            b = O.cast("int64", O.cast("int32", rois[i, 0]))
            v = O.if_then_else(outside, _c(0.0, dt), bilinear(b, cc, yc, xc))
            if mode == "avg":
                return te.sum(O.div(v, _c(float(ratio * ratio), dt)), axis=[iy, ix])
            return te.max(v, axis=[iy, ix])

        if layout == "NCHW":
            return te.compute((rois.shape[0], c, ph_n, pw_n), cell, name="roi_align")
        return te.compute((rois.shape[0], ph_n, pw_n, c), lambda i, ph, pw, cc: cell(i, cc, ph, pw), name="roi_align")
    return fte


def multibox_te(clip: bool, threshold: float, variances: Sequence[float], keep_background: bool,
                apply_softmax: bool):
    def fte(cls: te.Tensor, loc: te.Tensor, anchor: te.Tensor):
        b, ncls, n = cls.shape
        dt = cls.dtype
        vx, vy, vw, vh = (_c(float(v), dt) for v in variances)
        half, zero, one = _c(0.5, dt), _c(0.0, dt), _c(1.0, dt)

        def decode(bi, a, k):
            def e(j):
                return loc[bi, O.add(O.mul(a, _c(4, a.dtype)), _c(j, a.dtype))]
            left, top, right, bottom = (anchor[0, a, j] for j in range(4))
            ay, ax = O.mul(O.add(top, bottom), half), O.mul(O.add(left, right), half)
            ah, aw = O.sub(bottom, top), O.sub(right, left)
            yc = O.add(O.mul(O.mul(e(1), vy), ah), ay)
            xc = O.add(O.mul(O.mul(e(0), vx), aw), ax)
            hh = O.mul(O.mul(half, te.exp(O.mul(e(3), vh))), ah)
            hw = O.mul(O.mul(half, te.exp(O.mul(e(2), vw))), aw)
            vals = [O.sub(yc, hh), O.sub(xc, hw), O.add(yc, hh), O.add(xc, hw)]
            if clip:
                vals = [O.max_(zero, O.min_(one, v)) for v in vals]
            return O.select(O.eq(k, _c(0, k.dtype)), vals[0], O.select(O.eq(k, _c(1, k.dtype)), vals[1],
                            O.select(O.eq(k, _c(2, k.dtype)), vals[2], vals[3])))

        boxes = te.compute((b, n, 4), decode, name="multibox_boxes")
        if apply_softmax:
            rc = te.reduce_axis(ncls, "rc")
            mx = te.compute((b, n), lambda bi, a: te.max(cls[bi, rc, a], axis=rc), name="cls_max")
            ex = te.compute((b, ncls, n), lambda bi, ci, a: te.exp(O.sub(cls[bi, ci, a], mx[bi, a])), name="cls_exp")
            rs = te.reduce_axis(ncls, "rs")
            tot = te.compute((b, n), lambda bi, a: te.sum(ex[bi, rs, a], axis=rs), name="cls_sum")
            prob = te.compute((b, ncls, n), lambda bi, ci, a: O.div(ex[bi, ci, a], tot[bi, a]), name="cls_softmax")
        else:
            prob = cls
        th = _c(float(threshold), dt)

        def score(bi, ci, a):
            p = prob[bi, ci, a]
            v = O.mul(p, O.cast(dt, O.le(th, p)))
            if not keep_background:
                v = O.if_then_else(O.eq(ci, _c(0, ci.dtype)), zero, v)
            return v

        return boxes, te.compute((b, ncls, n), score, name="multibox_scores")
    return fte

"""Vision operators (TVM 0.27): ``vision.roi_align``, ``vision.roi_pool``,
``vision.multibox_transform_loc``, ``vision.get_valid_counts``, ``vision.non_max_suppression`` and
``vision.all_class_non_max_suppression`` (spec pages ``spec/ops/vision.<op>.md``).

Inference follows TVM 0.27's ``FInferStructInfo`` of each operator (ranks, dtypes, attribute ranges
checked where the sizes are known) and is stricter where TVM's kernels would read out of bounds
(the ``OP.vision.<op>.C<n>`` constraints say which). The reference semantics are the numpy kernels
of :mod:`relax_ref.ops.vision_ref`. Outputs whose contents depend on data (the NMS family) keep the
fixed shapes TVM infers, padded as TVM's kernels pad them.

Legalization: ``roi_align`` with a fixed ``sample_ratio``, ``roi_pool`` and
``multibox_transform_loc`` lower to TensorIR through the TE builder. ``roi_align`` with the adaptive
grid (``sample_ratio <= 0``) reduces over a grid whose extent depends on the ROI values, which a
TensorIR block's iteration domain cannot express; ``get_valid_counts`` and the NMS operators are
sequential, data-dependent compactions and suppressions (TVM lowers them to IR-builder kernels and
a packed sort call): these stay operator calls after legalization.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..errors import LimitExceededError, OpRuntimeError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.struct_info import TensorStructInfo, TupleStructInfo
from . import common
from . import nn_common
from . import vision_ref as K
from .args import OpArgs
from .opdef import OpDef, arg, attr
from .statistical import known_shapes

FLOATS = ("float16", "float32", "float64", "bfloat16")
NOT_LEGALIZED = ("a sequential, data-dependent compaction/suppression: TVM lowers it to IR-builder kernels "
                 "and a packed sort call, which a TensorIR block cannot express without them")


def _i64(v: int) -> P.IntImm:
    return P.IntImm(v, "int64")


def _float_input(call, s: TensorStructInfo, what: str, ctx) -> None:
    if s.dtype != "void" and s.dtype not in FLOATS:
        raise common.error(call, f"the {what} must have a float dtype, but it has {s.dtype}", ctx)


def _rank(call, s: TensorStructInfo, n: int, what: str, ctx) -> None:
    if s.ndim not in (-1, n):
        raise common.error(call, f"the {what} must be {n}-D, but it has rank {s.ndim}", ctx)


def _static(d: P.PrimExpr) -> Optional[int]:
    return d.value if isinstance(d, P.IntImm) else None


def _tuple(*fields: TensorStructInfo) -> TupleStructInfo:
    return TupleStructInfo(tuple(fields))


def _t(shape, dtype, ndim, vdev) -> TensorStructInfo:
    return common.tensor_sinfo(shape, dtype, ndim if shape is None else -1, vdev)


# ---------------------------------------------------------------------------------------------------
# roi_align / roi_pool
# ---------------------------------------------------------------------------------------------------


def _complete_pooled(attrs, span):
    attrs["pooled_size"] = nn_common.repeat_to(attrs["pooled_size"], 2, "pooled_size", "R.vision.roi_*", span)
    return attrs


def _infer_roi(layouts, modes):
    def infer(call: rx.Call, ctx: Any) -> TensorStructInfo:
        """OP.vision.roi_align.C1-C5 / OP.vision.roi_pool.C1-C4 (TVM's ``InferStructInfoROIAlign``/``ROIPool``)."""
        data, rois = common.tensor_args(call, 2, ctx, ("data", "rois"))
        _rank(call, data, 4, "data", ctx)
        _rank(call, rois, 2, "rois", ctx)
        _float_input(call, data, "data", ctx)
        _float_input(call, rois, "rois", ctx)
        a = call.attrs
        layout = a.get("layout", "NCHW")
        if layout not in layouts:
            raise common.error(call, f"layout must be one of {', '.join(layouts)}, but it is {layout}", ctx)
        if modes and a.get("mode", "avg") not in modes:
            raise common.error(call, f"mode must be avg or max, but it is {a.get('mode')}", ctx)
        pooled = tuple(int(v) for v in a["pooled_size"])
        if len(pooled) != 2 or min(pooled) < 1:
            raise common.error(call, f"pooled_size must be two positive sizes, but it is {list(pooled)}", ctx)
        rs = rois.shape_values
        if rs is not None and _static(rs[1]) not in (None, 5):
            raise common.error(call, f"rois must have shape (num_roi, 5), but its last dim is {rs[1]}", ctx)
        ds = data.shape_values
        if ds is None or rs is None:
            return _t(None, data.dtype, 4, data.vdevice)
        ph, pw = _i64(pooled[0]), _i64(pooled[1])
        out = (rs[0], ds[1], ph, pw) if layout == "NCHW" else (rs[0], ph, pw, ds[3])
        return _t(out, data.dtype, 4, data.vdevice)
    return infer


def _check_roi(args: OpArgs) -> None:
    """OP.vision.roi_align.C5 / OP.vision.roi_pool.C4 at run time: every ROI's batch index (truncated
    toward zero) names an image of the data."""
    name = args.op_name.replace("relax.", "")
    nb = args.shape(0)[0]
    if len(args.shape(1)) != 2 or (args.is_static(args.shape(1)[1]) and args.shape(1)[1] != 5):
        raise args.error(OpRuntimeError, f"{args.op_name}: rois must have shape (num_roi, 5), "
                                         f"got {args.size_text(args.shape(1))}")
    b = args.xp.trunc(args.data(1)[:, 0])
    bad = (b < 0) | (b >= nb) | args.xp.isnan(b)
    args.fail_if(bad, lambda: OpRuntimeError(f"{args.op_name}: a ROI's batch index is outside [0, batch) "
                                             f"(OP.{name}.C{5 if 'align' in name else 4})"))
    _check_roi_corners(args, name)
    if "align" in name:
        _check_roi_samples(args)


def roi_align_grid(xp: Any, rois: Any, attrs: Any) -> Any:
    """OP.vision.roi_align.C6: the sampling grid ``(gh, gw)`` of every ROI, as arrays of the ROI
    dtype (``xp``: the evaluator's array namespace). A ROI whose scaled corners are not all finite
    (OP.vision.roi_align.C7 fails the call) counts as the zero ROI; a negative grid (an ``aligned``
    ROI with ``y2 < y1``) counts as empty. A grid may be infinite (corners so far apart that their
    difference overflows the dtype)."""
    ph_n, pw_n = (int(v) for v in attrs["pooled_size"])
    ratio = int(attrs.get("sample_ratio", -1))
    ft = rois.dtype
    n = rois.shape[0]
    if ratio > 0:
        g = xp.full((n,), ratio, ft)
        return g, g
    corners = rois[:, 1:5] * xp.asarray(float(attrs["spatial_scale"]), ft)
    ok = xp.all(xp.isfinite(corners), axis=1, keepdims=True)
    corners = xp.where(ok, corners, xp.zeros((), ft))
    rh, rw = corners[:, 3] - corners[:, 1], corners[:, 2] - corners[:, 0]
    if not bool(attrs.get("aligned", False)):
        one = xp.asarray(1, ft)
        rh, rw = xp.maximum(rh, one), xp.maximum(rw, one)
    zero = xp.zeros((), ft)
    gh = xp.maximum(xp.ceil(rh / xp.asarray(ph_n, ft)), zero)
    gw = xp.maximum(xp.ceil(rw / xp.asarray(pw_n, ft)), zero)
    return gh, gw


def roi_align_samples(xp: Any, rois: Any, attrs: Any) -> Any:
    """RUNTIME.LIMIT.8: the samples ``roi_align`` takes, ``PH * PW * sum_r gh[r] * gw[r]`` (a float64
    scalar of ``xp``, infinite for an infinite grid)."""
    ph_n, pw_n = (int(v) for v in attrs["pooled_size"])
    gh, gw = roi_align_grid(xp, rois, attrs)
    f64 = xp.float64
    return xp.sum(gh.astype(f64) * gw.astype(f64)) * float(ph_n * pw_n)


def _check_roi_samples(args: OpArgs) -> None:
    """RUNTIME.LIMIT.8: the samples of ``roi_align`` (its sampling grids, which the ROI values size)
    count against the step budget ``max_steps``, checked before any sample is taken."""
    if not _dt.is_float(args.dtype(1)):
        return
    budget = args.limits.max_steps
    n = roi_align_samples(args.xp, args.data(1), args.attrs)

    def make() -> LimitExceededError:
        static = isinstance(n, (float, np.floating, np.ndarray))
        count = (f"{int(n)} samples" if np.isfinite(n) else "an infinite number of samples") if static \
            else "more samples"
        value = int(n) if static and np.isfinite(n) else None
        return LimitExceededError(f"{args.op_name}: the sampling grids take {count} than max_steps = {budget} "
                                  f"allows (RUNTIME.LIMIT.8)" if not static else
                                  f"{args.op_name}: the sampling grids take {count}, more than max_steps = "
                                  f"{budget} (RUNTIME.LIMIT.8)", limit="max_steps", value=value)
    args.fail_if(n > float(budget), make)


def _check_roi_corners(args: OpArgs, name: str) -> None:
    """OP.vision.roi_align.C7 / OP.vision.roi_pool.C6: the scaled corners ``rois[r, 1:5] *
    spatial_scale`` (in the ROI dtype) are finite; roi_pool's rounded corners lie in int32, the type
    in which TVM's kernel computes them."""
    xp = args.xp
    rois = args.data(1)
    if not _dt.is_float(args.dtype(1)):
        return
    corners = rois[:, 1:5] * xp.asarray(float(args.attrs["spatial_scale"]), rois.dtype)
    bad = ~xp.isfinite(corners)
    rule = "C7" if "align" in name else "C6"
    if "pool" in name:
        rounded = xp.floor(corners + xp.asarray(0.5, rois.dtype))
        bad = bad | (rounded < -2.0 ** 31) | (rounded >= 2.0 ** 31)
        what = "is not finite, or its rounded pixel lies outside int32"
    else:
        what = "is not finite"
    args.fail_if(bad, lambda: OpRuntimeError(f"{args.op_name}: a ROI corner times spatial_scale {what} "
                                             f"(OP.{name}.{rule})"))


def _ref_roi_align(args, attrs, call, ctx):
    return K.roi_align(args[0], args[1], tuple(attrs["pooled_size"]), float(attrs["spatial_scale"]),
                       int(attrs.get("sample_ratio", -1)), bool(attrs.get("aligned", False)),
                       attrs.get("layout", "NCHW"), attrs.get("mode", "avg"))


def _ref_roi_pool(args, attrs, call, ctx):
    return K.roi_pool(args[0], args[1], tuple(attrs["pooled_size"]), float(attrs["spatial_scale"]))


# ---------------------------------------------------------------------------------------------------
# multibox_transform_loc
# ---------------------------------------------------------------------------------------------------


def _infer_multibox(call: rx.Call, ctx: Any) -> TupleStructInfo:
    """OP.vision.multibox_transform_loc.C1-C4 (TVM's ``InferStructInfoMultiboxTransformLoc``)."""
    cls, loc, anc = common.tensor_args(call, 3, ctx, ("cls_pred", "loc_pred", "anchor"))
    _rank(call, cls, 3, "cls_pred", ctx)
    _rank(call, loc, 2, "loc_pred", ctx)
    _rank(call, anc, 3, "anchor", ctx)
    for what, s in (("loc_pred", loc), ("anchor", anc)):
        if "void" not in (cls.dtype, s.dtype) and cls.dtype != s.dtype:
            raise common.error(call, f"cls_pred and {what} must have the same dtype, got {cls.dtype} and {s.dtype}",
                               ctx)
    _float_input(call, cls, "cls_pred", ctx)
    if len(tuple(call.attrs.get("variances", ()))) != 4:
        raise common.error(call, "variances must hold four values", ctx)
    cs, ls, as_ = cls.shape_values, loc.shape_values, anc.shape_values
    if ls is not None and _static(ls[1]) is not None and _static(ls[1]) % 4:
        raise common.error(call, f"loc_pred.shape[1] must be divisible by 4, got {ls[1]}", ctx)
    if as_ is not None:
        if _static(as_[0]) not in (None, 1):
            raise common.error(call, f"anchor.shape[0] must be 1, got {as_[0]}", ctx)
        if _static(as_[2]) not in (None, 4):
            raise common.error(call, f"anchor.shape[2] must be 4 (ltrb), got {as_[2]}", ctx)
    if cs is None:
        return _tuple(_t(None, cls.dtype, 3, cls.vdevice), _t(None, cls.dtype, 3, cls.vdevice))
    b, c, n = cs
    if ls is not None:
        if not common.prove_equal(ctx, ls[0], b) and None not in (_static(ls[0]), _static(b)):
            raise common.error(call, f"cls_pred.shape[0] must match loc_pred.shape[0], got {b} and {ls[0]}", ctx)
        if None not in (_static(n), _static(ls[1])) and _static(ls[1]) != 4 * _static(n):
            raise common.error(call, f"loc_pred.shape[1] must be 4*N with N = cls_pred.shape[2] = {n}, "
                                     f"got {ls[1]}", ctx)
    if as_ is not None and None not in (_static(n), _static(as_[1])) and _static(as_[1]) != _static(n):
        raise common.error(call, f"anchor.shape[1] must be N = cls_pred.shape[2] = {n}, got {as_[1]}", ctx)
    return _tuple(_t((b, n, _i64(4)), cls.dtype, 3, cls.vdevice), _t((b, c, n), cls.dtype, 3, cls.vdevice))


def _check_multibox(args: OpArgs) -> None:
    """OP.vision.multibox_transform_loc.C3 at run time (sizes the inference could not compare)."""
    b, _, n = args.shape(0)
    lb, l4 = args.shape(1)
    a1, an, a4 = args.shape(2)
    bad = (lb != b) | (l4 != 4 * n) | (a1 != 1) | (an != n) | (a4 != 4)
    args.fail_if(bad, lambda: OpRuntimeError(
        f"{args.op_name}: expected loc_pred (B, 4*N) and anchor (1, N, 4) for cls_pred (B, C, N), got "
        f"{args.size_text(args.shape(1))} and {args.size_text(args.shape(2))} (OP.vision.multibox_transform_loc.C3)"))


def _ref_multibox(args, attrs, call, ctx):
    return K.multibox_transform_loc(args[0], args[1], args[2], bool(attrs.get("clip", False)),
                                    float(attrs.get("threshold", 0.0)), tuple(attrs.get("variances")),
                                    bool(attrs.get("keep_background", True)), bool(attrs.get("apply_softmax", True)))


# ---------------------------------------------------------------------------------------------------
# get_valid_counts / non_max_suppression
# ---------------------------------------------------------------------------------------------------


def _check_indices(call, ctx, k: Optional[int], score_index: int, id_index: int, coord_start=None) -> None:
    if k is None:
        return
    if not 0 <= score_index < k:
        raise common.error(call, f"score_index must be in [0, {k}), but it is {score_index}", ctx)
    if not -1 <= id_index < k:
        raise common.error(call, f"id_index must be in [-1, {k}), but it is {id_index}", ctx)
    if coord_start is not None and not (0 <= coord_start and coord_start + 3 < k):
        raise common.error(call, f"coord_start must name four consecutive coordinates within {k} values, "
                                 f"but it is {coord_start}", ctx)


def _infer_get_valid_counts(call: rx.Call, ctx: Any) -> TupleStructInfo:
    """OP.vision.get_valid_counts.C1-C2 (TVM's ``InferStructInfoGetValidCounts``)."""
    (data,) = common.tensor_args(call, 1, ctx, ("data",))
    _rank(call, data, 3, "data", ctx)
    _float_input(call, data, "data", ctx)
    a = call.attrs
    ds = data.shape_values
    v = data.vdevice
    if ds is None:
        return _tuple(_t(None, "int32", 1, v), _t(None, data.dtype, 3, v), _t(None, "int32", 2, v))
    _check_indices(call, ctx, _static(ds[2]), int(a.get("score_index", 1)), int(a.get("id_index", 0)))
    b, n, k = ds
    return _tuple(_t((b,), "int32", 1, v), _t((b, n, k), data.dtype, 3, v), _t((b, n), "int32", 2, v))


def _check_elem_indices(args: OpArgs, cid: str, coords: bool) -> None:
    """The attribute indices fit an element length known only at run time."""
    k = args.shape(0)[2]
    a = args.attrs
    si, ii, cs = int(a.get("score_index", 1)), int(a.get("id_index", 0)), int(a.get("coord_start", 2))
    need = max(si + 1, ii + 1, cs + 4 if coords else 0)
    if si < 0 or ii < -1 or (coords and cs < 0):
        raise args.error(OpRuntimeError, f"{args.op_name}: a negative element index ({cid})")
    args.fail_if(k < need, lambda: OpRuntimeError(
        f"{args.op_name}: the elements are shorter than the {need} values the indices name ({cid})"))


def _check_get_valid_counts(args: OpArgs) -> None:
    _check_elem_indices(args, "OP.vision.get_valid_counts.C2", False)


def _ref_get_valid_counts(args, attrs, call, ctx):
    return K.get_valid_counts(args[0], float(attrs.get("score_threshold", 0.0)), int(attrs.get("id_index", 0)),
                              int(attrs.get("score_index", 1)))


def _infer_nms(call: rx.Call, ctx: Any):
    """OP.vision.non_max_suppression.C1-C5 (TVM's ``InferStructInfoNMS``)."""
    data, vc, ind = common.tensor_args(call, 3, ctx, ("data", "valid_count", "indices"))
    _rank(call, data, 3, "data", ctx)
    _rank(call, vc, 1, "valid_count", ctx)
    _rank(call, ind, 2, "indices", ctx)
    for what, s in (("valid_count", vc), ("indices", ind)):
        if s.dtype not in ("void", "int32"):
            raise common.error(call, f"{what} must have dtype int32, but it has {s.dtype}", ctx)
    _float_input(call, data, "data", ctx)
    ds = data.shape_values
    if ds is not None:
        vs, is_ = vc.shape_values, ind.shape_values
        if vs is not None and not common.prove_equal(ctx, vs[0], ds[0]):
            raise common.error(call, f"valid_count must have shape [batch_size] = [{ds[0]}], but it has "
                                     f"[{vs[0]}]", ctx)
        if is_ is not None and not (common.prove_equal(ctx, is_[0], ds[0]) and common.prove_equal(ctx, is_[1], ds[1])):
            raise common.error(call, f"indices must have shape [batch_size, num_anchors] = [{ds[0]}, {ds[1]}], "
                                     f"but it has [{is_[0]}, {is_[1]}]", ctx)
        a = call.attrs
        _check_indices(call, ctx, _static(ds[2]), int(a.get("score_index", 1)), int(a.get("id_index", 0)),
                       int(a.get("coord_start", 2)))
    a = call.attrs
    v = data.vdevice
    full = _t(ds, data.dtype, 3, v)
    if not a.get("return_indices", True):
        return full
    bn = _t(None if ds is None else ds[:2], "int32", 2, v)
    b1 = _t(None if ds is None else (ds[0], _i64(1)), "int32", 2, v)
    if float(a.get("soft_nms_sigma", 0.0)) > 0.0:
        return _tuple(full, bn, b1)
    return _tuple(bn, b1)


def _check_nms(args: OpArgs) -> None:
    """OP.vision.non_max_suppression.C3 and C5 at run time; C6: ``valid_count[i] <= num_anchors``."""
    b, n, _ = args.shape(0)
    bad_shape = (args.shape(1)[0] != b) | (args.shape(2)[0] != b) | (args.shape(2)[1] != n)
    args.fail_if(bad_shape, lambda: OpRuntimeError(
        f"{args.op_name}: valid_count and indices must have shapes [batch] and [batch, num_anchors] "
        f"(OP.vision.non_max_suppression.C3)"))
    _check_elem_indices(args, "OP.vision.non_max_suppression.C5", True)
    args.fail_if(args.data(1) > n, lambda: OpRuntimeError(
        f"{args.op_name}: a valid_count exceeds the number of anchors (OP.vision.non_max_suppression.C6)"))


def nms_attrs(attrs) -> dict:
    """The attributes of a ``non_max_suppression`` call with TVM's defaults filled in."""
    d = dict(max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1,
             id_index=0, return_indices=True, invalid_to_bottom=False, soft_nms_sigma=0.0, score_threshold=0.0)
    d.update({k: v for k, v in attrs.items() if v is not None})
    return d


def _ref_nms(args, attrs, call, ctx):
    return K.non_max_suppression(args[0], args[1], args[2], nms_attrs(attrs))


# ---------------------------------------------------------------------------------------------------
# all_class_non_max_suppression
# ---------------------------------------------------------------------------------------------------


def _infer_all_class(call: rx.Call, ctx: Any) -> TupleStructInfo:
    """OP.vision.all_class_non_max_suppression.C1-C4 (TVM's ``InferStructInfoAllClassNMS``)."""
    names = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold")
    boxes, scores, mx, iou, sth = common.tensor_args(call, 5, ctx, names)
    if boxes.ndim == -1 or scores.ndim == -1:
        raise common.error(call, "boxes and scores must have a known rank", ctx)
    _rank(call, boxes, 3, "boxes", ctx)
    _rank(call, scores, 3, "scores", ctx)
    for what, s in (("boxes", boxes), ("scores", scores), ("iou_threshold", iou), ("score_threshold", sth)):
        _float_input(call, s, what, ctx)
    if mx.dtype != "void" and not mx.dtype.startswith(("int", "uint")):
        raise common.error(call, f"max_output_boxes_per_class must have an integer dtype, but it has {mx.dtype}",
                           ctx)
    fmt = call.attrs.get("output_format", "onnx")
    if fmt not in ("onnx", "tensorflow"):
        raise common.error(call, f"output_format must be onnx or tensorflow, but it is {fmt}", ctx)
    bs, ss = boxes.shape_values, scores.shape_values
    v = boxes.vdevice
    if bs is not None and ss is not None:
        if _static(bs[2]) not in (None, 4):
            raise common.error(call, f"boxes must have shape (batch, num_boxes, 4), but its last dim is {bs[2]}", ctx)
        for x, y, what in ((bs[0], ss[0], "batch"), (bs[1], ss[2], "number of boxes")):
            if None not in (_static(x), _static(y)) and _static(x) != _static(y):
                raise common.error(call, f"boxes and scores disagree on the {what}: {x} and {y}", ctx)
    if bs is None or ss is None:
        if fmt == "onnx":
            return _tuple(_t(None, "int64", 2, v), _t(None, "int64", 1, v))
        return _tuple(_t(None, "int64", 3, v), _t(None, "float32", 2, v), _t(None, "int64", 1, v))
    b, c, n = bs[0], ss[1], bs[1]
    if fmt == "onnx":
        return _tuple(_t((common.shape_product((b, c, n)), _i64(3)), "int64", 2, v), _t((_i64(1),), "int64", 1, v))
    cn = common.shape_product((c, n))
    return _tuple(_t((b, cn, _i64(2)), "int64", 3, v), _t((b, cn), "float32", 2, v), _t((b,), "int64", 1, v))


def _check_all_class(args: OpArgs) -> None:
    """OP.vision.all_class_non_max_suppression.C3-C4 at run time."""
    b, n, four = args.shape(0)
    sb, _, sn = args.shape(1)
    args.fail_if((b != sb) | (n != sn) | (four != 4), lambda: OpRuntimeError(
        f"{args.op_name}: boxes {args.size_text(args.shape(0))} and scores {args.size_text(args.shape(1))} must be "
        f"(batch, num_boxes, 4) and (batch, num_classes, num_boxes) (OP.vision.all_class_non_max_suppression.C3)"))
    for i in (2, 3, 4):
        shp = args.shape(i)
        if len(shp) > 1 or (len(shp) == 1 and args.is_static(shp[0]) and shp[0] != 1):
            raise args.error(OpRuntimeError, f"{args.op_name}: argument {i} must hold one value, but it has shape "
                                             f"{args.size_text(shp)} (OP.vision.all_class_non_max_suppression.C4)")
        if len(shp) == 1:
            args.fail_if(shp[0] != 1, lambda i=i: OpRuntimeError(
                f"{args.op_name}: argument {i} must hold one value (OP.vision.all_class_non_max_suppression.C4)"))


def _ref_all_class(args, attrs, call, ctx):
    boxes, scores, mx, iou, sth = args
    return K.all_class_nms(boxes, scores, int(np.asarray(mx).reshape(-1)[0]), np.asarray(iou).reshape(-1)[0],
                           np.asarray(sth).reshape(-1)[0], attrs.get("output_format", "onnx"))


# ---------------------------------------------------------------------------------------------------
# Legalization (roi_pool, roi_align with a fixed grid, multibox_transform_loc)
# ---------------------------------------------------------------------------------------------------


def _legalize_with(build):
    def legalize(call: rx.Call, ctx: Any) -> Optional[rx.Expr]:
        if not known_shapes(call):
            return None
        fte = build(call)
        if fte is None:
            return None
        return ctx.call_te(fte, *call.args, primfunc_name_hint=call.op.name.replace("relax.vision.", ""))
    return legalize


def _te_roi_pool(call):
    from .vision_te import roi_pool_te
    return roi_pool_te(tuple(call.attrs["pooled_size"]), float(call.attrs["spatial_scale"]))


def _te_roi_align(call):
    from .vision_te import roi_align_te
    a = call.attrs
    if int(a.get("sample_ratio", -1)) <= 0:
        return None
    return roi_align_te(tuple(a["pooled_size"]), float(a["spatial_scale"]), int(a["sample_ratio"]),
                        bool(a.get("aligned", False)), a.get("layout", "NCHW"), a.get("mode", "avg"))


def _te_multibox(call):
    from .vision_te import multibox_te
    a = call.attrs
    return multibox_te(bool(a.get("clip", False)), float(a.get("threshold", 0.0)), tuple(a["variances"]),
                       bool(a.get("keep_background", True)), bool(a.get("apply_softmax", True)))


def _ops() -> List[OpDef]:
    roi_params = (arg("data"), arg("rois"), attr("pooled_size", "ints"), attr("spatial_scale", "float"))
    nms_params = (arg("data"), arg("valid_count"), arg("indices"), attr("max_output_size", "int", -1),
                  attr("iou_threshold", "float", 0.5), attr("force_suppress", "bool", False),
                  attr("top_k", "int", -1), attr("coord_start", "int", 2), attr("score_index", "int", 1),
                  attr("id_index", "int", 0), attr("return_indices", "bool", True),
                  attr("invalid_to_bottom", "bool", False), attr("soft_nms_sigma", "float", 0.0),
                  attr("score_threshold", "float", 0.0))
    ops = [
        nn_common.with_constructor(OpDef(
            name="relax.vision.roi_align", script="R.vision.roi_align",
            params=roi_params + (attr("sample_ratio", "int", -1), attr("aligned", "bool", False),
                                 attr("layout", "str", "NCHW"), attr("mode", "str", "avg")),
            infer=_infer_roi(("NCHW", "NHWC"), ("avg", "max")), check=_check_roi, reference=_ref_roi_align,
            legalize=_legalize_with(_te_roi_align), category="vision",
            doc="``R.vision.roi_align(data, rois, pooled_size, spatial_scale, sample_ratio=-1, aligned=False, "
                "layout='NCHW', mode='avg')`` (OP.vision.roi_align.C1-C6)."), _complete_pooled),
        nn_common.with_constructor(OpDef(
            name="relax.vision.roi_pool", script="R.vision.roi_pool",
            params=roi_params + (attr("layout", "str", "NCHW"),),
            infer=_infer_roi(("NCHW",), ()), check=_check_roi, reference=_ref_roi_pool,
            legalize=_legalize_with(_te_roi_pool), category="vision",
            doc="``R.vision.roi_pool(data, rois, pooled_size, spatial_scale, layout='NCHW')`` "
                "(OP.vision.roi_pool.C1-C5)."), _complete_pooled),
        OpDef(name="relax.vision.multibox_transform_loc", script="R.vision.multibox_transform_loc",
              params=(arg("cls_pred"), arg("loc_pred"), arg("anchor"), attr("clip", "bool", False),
                      attr("threshold", "float", 0.0), attr("variances", "floats", (1.0, 1.0, 1.0, 1.0)),
                      attr("keep_background", "bool", True), attr("apply_softmax", "bool", True)),
              infer=_infer_multibox, check=_check_multibox, reference=_ref_multibox,
              legalize=_legalize_with(_te_multibox), category="vision",
              doc="``R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip=False, threshold=0.0, "
                  "variances=(1, 1, 1, 1), keep_background=True, apply_softmax=True)`` "
                  "(OP.vision.multibox_transform_loc.C1-C5)."),
        OpDef(name="relax.vision.get_valid_counts", script="R.vision.get_valid_counts",
              params=(arg("data"), attr("score_threshold", "float", 0.0), attr("id_index", "int", 0),
                      attr("score_index", "int", 1)),
              infer=_infer_get_valid_counts, check=_check_get_valid_counts, reference=_ref_get_valid_counts,
              category="vision", legalize_exempt=NOT_LEGALIZED,
              doc="``R.vision.get_valid_counts(data, score_threshold=0.0, id_index=0, score_index=1)`` "
                  "(OP.vision.get_valid_counts.C1-C3)."),
        OpDef(name="relax.vision.non_max_suppression", script="R.vision.non_max_suppression", params=nms_params,
              infer=_infer_nms, check=_check_nms, reference=_ref_nms, category="vision",
              legalize_exempt=NOT_LEGALIZED,
              doc="``R.vision.non_max_suppression(data, valid_count, indices, max_output_size=-1, "
                  "iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1, id_index=0, "
                  "return_indices=True, invalid_to_bottom=False, soft_nms_sigma=0.0, score_threshold=0.0)`` "
                  "(OP.vision.non_max_suppression.C1-C8)."),
        OpDef(name="relax.vision.all_class_non_max_suppression", script="R.vision.all_class_non_max_suppression",
              params=(arg("boxes"), arg("scores"), arg("max_output_boxes_per_class"), arg("iou_threshold"),
                      arg("score_threshold"), attr("output_format", "str", "onnx")),
              infer=_infer_all_class, check=_check_all_class, reference=_ref_all_class, category="vision",
              legalize_exempt=NOT_LEGALIZED,
              doc="``R.vision.all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class, "
                  "iou_threshold, score_threshold, output_format='onnx')`` "
                  "(OP.vision.all_class_non_max_suppression.C1-C6)."),
    ]
    return ops


#: the operators of this family in definition order (read once by :mod:`relax_ref.ops.registry`)
OPS: List[OpDef] = _ops()

__all__ = ["nms_attrs", "FLOATS", "roi_align_grid", "roi_align_samples"]

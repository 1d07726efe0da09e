"""Neural-network operators (spec/ops/nn.md and one page per operator): convolutions, pooling,
normalizations, softmax, pad, prelu, batch_flatten, pixel_shuffle, dropout, attention and losses.

Per operator: a static case, a symbolic case run at two sizes (where the operator has spatial or
batch dims), layout / attribute edge cases (groups, dilation, asymmetric padding, ceil mode,
count_include_pad, causal masks, ignore_index, the pad modes, training and inference batch_norm) and
invalid operands (``struct_info``), plus run-time failures (``op_runtime``).

Oracles: NumPy formulas (nn_oracles.py), evaluated in float64 (naive loops for windows) and rounded
once to the result dtype; float sums are compared with the tolerance stated per case (OP.SEM.5),
integer results exactly; rejections are the cited constraints.
"""

import itertools

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import f32, module, rng_for, tensor
from nn_invalid import INVALID
from nn_oracles import adaptive, attention, avg_pool_f16, conv, conv_transpose, normalize, pool, r32, softmax

CATEGORY = "op_nn"
SUM_TOL = dict(rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------------------------------


def conv2d_cases(rng, ids, tags):
    """conv2d: groups, strides, padding, dilation, symbolic shapes, layouts, int8, rejections."""
    out = []
    x, w = f32(rng, 2, 4, 6, 5), f32(rng, 6, 2, 3, 3)
    out.append(Case("conv2d_groups_stride_padding",
                    module([("x", tensor((2, 4, 6, 5))), ("w", tensor((6, 2, 3, 3)))],
                           "R.nn.conv2d(x, w, strides=2, padding=1, groups=2)", tensor((2, 6, 3, 3))),
                    runs=[([x, w], r32(conv(x, w, (2, 2), (1,) * 4, (1, 1), 2)))], spec=ids + ["OP.SEM.5"],
                    tags=tags + ["static"],
                    description="one padding value on every side, one stride for both dims", **SUM_TOL))
    y = conv(x, w, (1, 2), (1, 0, 2, 1), (2, 2), 2)
    out.append(Case("conv2d_dilation_asymmetric_padding",
                    module([("x", tensor((2, 4, 6, 5))), ("w", tensor((6, 2, 3, 3)))],
                           "R.nn.conv2d(x, w, strides=(1, 2), padding=(1, 0, 2, 1), dilation=2, groups=2)",
                           tensor(y.shape)),
                    runs=[([x, w], r32(y))], spec=ids, tags=tags,
                    description="padding is (top, left, bottom, right)", **SUM_TOL))
    w4 = f32(rng, 3, 4, 3, 3)
    runs = []
    for n, h in ((1, 7), (2, 4)):
        xs = f32(rng, n, 4, h, 6)
        runs.append(([xs, w4], r32(conv(xs, w4, (2, 1), (0, 1, 0, 1), (1, 1), 1))))
    out.append(Case("conv2d_symbolic",
                    module([("x", tensor(("n", 4, "h", 6))), ("w", tensor((3, 4, 3, 3)))],
                           "R.nn.conv2d(x, w, strides=(2, 1), padding=(0, 1))", tensor(4)),
                    runs=runs, spec=ids, tags=tags + ["symbolic"],
                    description="out height (h - 3) // 2 + 1; two padding values are (top/bottom, left/right)",
                    **SUM_TOL))
    xn = np.ascontiguousarray(x[:, :, :, :].transpose(0, 2, 3, 1))
    wn = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    out.append(Case("conv2d_nhwc_hwio",
                    module([("x", tensor((2, 6, 5, 4))), ("w", tensor((3, 3, 2, 6)))],
                           'R.nn.conv2d(x, w, padding=1, groups=2, data_layout="NHWC", kernel_layout="HWIO")',
                           tensor((2, 6, 5, 6))),
                    runs=[([xn, wn], r32(conv(x, w, (1, 1), (1,) * 4, (1, 1), 2).transpose(0, 2, 3, 1)))],
                    spec=ids + ["OP.NN.LAYOUT.1"], tags=tags + ["layout"], **SUM_TOL))
    out.append(Case("conv2d_out_layout",
                    module([("x", tensor((2, 4, 6, 5))), ("w", tensor((6, 2, 3, 3)))],
                           'R.nn.conv2d(x, w, groups=2, out_layout="NHWC")', tensor((2, 4, 3, 6))),
                    runs=[([x, w], r32(conv(x, w, (1, 1), (0,) * 4, (1, 1), 2).transpose(0, 2, 3, 1)))],
                    spec=ids + ["OP.NN.LAYOUT.1"], tags=tags + ["layout"], **SUM_TOL))
    xi = rng.integers(-128, 128, (1, 2, 4, 4)).astype("int8")
    wi = rng.integers(-128, 128, (3, 2, 3, 3)).astype("int8")
    exact = np.rint(conv(xi, wi, (1, 1), (1,) * 4, (1, 1), 1)).astype("int64")
    out.append(Case("conv2d_int8_out_int32",
                    module([("x", tensor((1, 2, 4, 4), "int8")), ("w", tensor((3, 2, 3, 3), "int8"))],
                           'R.nn.conv2d(x, w, padding=1, out_dtype="int32")', tensor((1, 3, 4, 4), "int32")),
                    runs=[([xi, wi], exact.astype("int32"))], spec=ids + ["OP.nn.conv2d.C3", "OP.SEM.5"],
                    tags=tags + ["int"],
                    description="operands converted to int32 before the products"))
    out.append(Case("conv2d_int8_wraps",
                    module([("x", tensor((1, 2, 4, 4), "int8")), ("w", tensor((3, 2, 3, 3), "int8"))],
                           "R.nn.conv2d(x, w, padding=1)", tensor((1, 3, 4, 4), "int8")),
                    runs=[([xi, wi], exact.astype("int8"))], spec=ids + ["OP.nn.conv2d.C3"], tags=tags + ["int"],
                    description="int8 accumulation wraps"))
    ones_x, ones_w = np.ones((1, 2, 4, 4), "float32"), np.ones((2, 2, 3, 3), "float32")
    out.append(Case("conv2d_channels_at_run_time",
                    module([("x", tensor((1, "c", 4, 4))), ("w", tensor((2, "d", 3, 3)))], "R.nn.conv2d(x, w)",
                           tensor((1, 2, 2, 2))),
                    runs=[([ones_x, ones_w], np.full((1, 2, 2, 2), 18.0, "float32")),
                          Fails([f32(rng, 1, 3, 4, 4), f32(rng, 2, 2, 3, 3)], "op_runtime")],
                    spec=["OP.NN.CONV.SEM.3", "OP.SEM.2", "OP.INFER.2"], tags=tags + ["error"], oracle="hand",
                    description="c == d * groups is checked when the arguments arrive"))
    for name, sw, call, cid in (("conv2d_channel_mismatch", (6, 3, 3, 3), "R.nn.conv2d(x, w)", "C4"),
                                ("conv2d_groups_not_dividing", (5, 2, 3, 3), "R.nn.conv2d(x, w, groups=2)", "C4"),
                                ("conv2d_weight_rank", (6, 4, 3), "R.nn.conv2d(x, w)", "C1"),
                                ("conv2d_bad_layout", (6, 4, 3, 3), 'R.nn.conv2d(x, w, data_layout="NCHD")', "C2"),
                                ("conv2d_zero_stride", (6, 4, 3, 3), "R.nn.conv2d(x, w, strides=0)", "C4"),
                                ("conv2d_zero_dilation", (6, 4, 3, 3), "R.nn.conv2d(x, w, dilation=(1, 0))", "C4")):
        out.append(Invalid(name, module([("x", tensor((1, 4, 8, 8))), ("w", tensor(sw))], call),
                           "struct_info", spec=[f"OP.nn.conv2d.{cid}"], tags=tags + ["invalid"]))
    out.append(Invalid("conv2d_dtype_mismatch", module([("x", tensor((1, 4, 8, 8))), ("w", tensor((6, 4, 3, 3), "int32"))],
                                                       "R.nn.conv2d(x, w)"),
                       "struct_info", spec=["OP.nn.conv2d.C3"], tags=tags + ["invalid"]))
    return out


def conv1d_conv3d_cases(rng):
    """conv1d and conv3d."""
    out = []
    tags1 = ["op:nn.conv1d", "nn"]
    x1, w1 = f32(rng, 2, 2, 9), f32(rng, 4, 1, 3)
    out.append(Case("conv1d_groups_dilation",
                    module([("x", tensor((2, 2, 9))), ("w", tensor((4, 1, 3)))],
                           "R.nn.conv1d(x, w, strides=2, padding=(2, 1), dilation=2, groups=2)", tensor((2, 4, 4))),
                    runs=[([x1, w1], r32(conv(x1, w1, (2,), (2, 1), (2,), 2)))],
                    spec=["OP.nn.conv1d.C5", "OP.nn.conv1d.C6", "OP.NN.CONV.SEM.1"], tags=tags1, **SUM_TOL))
    runs = [([xs, w1], r32(conv(xs, w1, (1,), (1, 1), (1,), 2))) for xs in (f32(rng, 1, 2, 5), f32(rng, 3, 2, 8))]
    out.append(Case("conv1d_symbolic", module([("x", tensor(("n", 2, "l"))), ("w", tensor((4, 1, 3)))],
                                              "R.nn.conv1d(x, w, padding=1, groups=2)", tensor(3)),
                    runs=runs, spec=["OP.nn.conv1d.C5", "OP.NN.CONV.SEM.1"], tags=tags1 + ["symbolic"], **SUM_TOL))
    out.append(Invalid("conv1d_rank", module([("x", tensor((2, 2, 9, 1))), ("w", tensor((4, 1, 3)))],
                                             "R.nn.conv1d(x, w)"), "struct_info", spec=["OP.nn.conv1d.C1"],
                       tags=tags1 + ["invalid"]))

    tags3 = ["op:nn.conv3d", "nn"]
    x3, w3 = f32(rng, 1, 2, 3, 4, 3), f32(rng, 2, 2, 2, 2, 2)
    out.append(Case("conv3d_static", module([("x", tensor((1, 2, 3, 4, 3))), ("w", tensor((2, 2, 2, 2, 2)))],
                                            "R.nn.conv3d(x, w, strides=(1, 2, 1), padding=1)", tensor((1, 2, 4, 3, 4))),
                    runs=[([x3, w3], r32(conv(x3, w3, (1, 2, 1), (1,) * 6, (1, 1, 1), 1)))],
                    spec=["OP.nn.conv3d.C5", "OP.nn.conv3d.C6", "OP.NN.CONV.SEM.1"], tags=tags3, **SUM_TOL))
    out.append(Invalid("conv3d_channel_mismatch", module([("x", tensor((1, 2, 3, 4, 3))), ("w", tensor((2, 3, 2, 2, 2)))],
                                                         "R.nn.conv3d(x, w)"), "struct_info",
                       spec=["OP.nn.conv3d.C4"], tags=tags3 + ["invalid"]))
    return out


def conv_transpose_cases(rng):
    """The transposed convolutions in 1, 2 and 3 dimensions."""
    out = []
    tagst = ["op:nn.conv2d_transpose", "nn"]
    idt = ["OP.nn.conv2d_transpose.C5", "OP.nn.conv2d_transpose.C6", "OP.NN.CONV.SEM.2"]
    xt, wt = f32(rng, 1, 4, 3, 4), f32(rng, 4, 3, 3, 3)
    out.append(Case("conv2d_transpose_stride_output_padding",
                    module([("x", tensor((1, 4, 3, 4))), ("w", tensor((4, 3, 3, 3)))],
                           "R.nn.conv2d_transpose(x, w, strides=2, padding=1, output_padding=1)", tensor((1, 3, 6, 8))),
                    runs=[([xt, wt], r32(conv_transpose(xt, wt, (2, 2), (1,) * 4, (1, 1), (1, 1), 1)))],
                    spec=idt, tags=tagst, **SUM_TOL))
    out.append(Case("conv2d_transpose_groups_asymmetric",
                    module([("x", tensor((1, 4, 3, 4))), ("w", tensor((4, 3, 3, 3)))],
                           "R.nn.conv2d_transpose(x, w, strides=(2, 1), padding=(0, 1, 1, 2), output_padding=(1, 0), "
                           "groups=2)", tensor((1, 6, 7, 3))),
                    runs=[([xt, wt], r32(conv_transpose(xt, wt, (2, 1), (0, 1, 1, 2), (1, 0), (1, 1), 2)))],
                    spec=idt, tags=tagst, **SUM_TOL))
    runs = [([xs, wt], r32(conv_transpose(xs, wt, (2, 2), (0,) * 4, (0, 0), (1, 1), 1)))
            for xs in (f32(rng, 1, 4, 2, 3), f32(rng, 2, 4, 3, 3))]
    out.append(Case("conv2d_transpose_symbolic",
                    module([("x", tensor(("n", 4, "h", 3))), ("w", tensor((4, 3, 3, 3)))],
                           "R.nn.conv2d_transpose(x, w, strides=2)", tensor(4)),
                    runs=runs, spec=idt, tags=tagst + ["symbolic"], description="out height h * 2 + 1", **SUM_TOL))
    out.append(Invalid("conv2d_transpose_output_padding_too_large",
                       module([("x", tensor((1, 4, 3, 4))), ("w", tensor((4, 3, 3, 3)))],
                              "R.nn.conv2d_transpose(x, w, strides=2, output_padding=2)"),
                       "struct_info", spec=["OP.nn.conv2d_transpose.C4"], tags=tagst + ["invalid"]))
    out.append(Invalid("conv2d_transpose_negative_output_padding",
                       module([("x", tensor((1, 4, 3, 4))), ("w", tensor((4, 3, 3, 3)))],
                              "R.nn.conv2d_transpose(x, w, strides=2, output_padding=(1, -1))"),
                       "struct_info", spec=["OP.nn.conv2d_transpose.C4", "DIV.42"], tags=tagst + ["invalid"]))
    out.append(Case("conv1d_transpose_groups",
                    module([("x", tensor((1, 4, 5))), ("w", tensor((4, 2, 3)))],
                           "R.nn.conv1d_transpose(x, w, strides=3, output_padding=2, groups=2)", tensor((1, 4, 17))),
                    runs=[([x5 := f32(rng, 1, 4, 5), w5 := f32(rng, 4, 2, 3)],
                           r32(conv_transpose(x5, w5, (3,), (0, 0), (2,), (1,), 2)))],
                    spec=["OP.nn.conv1d_transpose.C5", "OP.nn.conv1d_transpose.C6", "OP.NN.CONV.SEM.2"],
                    tags=["op:nn.conv1d_transpose", "nn"],
                    **SUM_TOL))
    x6, w6 = f32(rng, 1, 2, 2, 3, 2), f32(rng, 2, 2, 2, 2, 2)
    out.append(Case("conv3d_transpose_static",
                    module([("x", tensor((1, 2, 2, 3, 2))), ("w", tensor((2, 2, 2, 2, 2)))],
                           "R.nn.conv3d_transpose(x, w, strides=2, output_padding=1)", tensor((1, 2, 5, 7, 5))),
                    runs=[([x6, w6], r32(conv_transpose(x6, w6, (2, 2, 2), (0,) * 6, (1, 1, 1), (1, 1, 1), 1)))],
                    spec=["OP.nn.conv3d_transpose.C5", "OP.nn.conv3d_transpose.C6", "OP.NN.CONV.SEM.2"],
                    tags=["op:nn.conv3d_transpose", "nn"],
                    **SUM_TOL))
    return out


def conv_cases():
    rng = rng_for("conv")
    tags = ["op:nn.conv2d", "nn"]
    ids = ["OP.nn.conv2d.C5", "OP.nn.conv2d.C6", "OP.NN.CONV.SEM.1", "OP.NN.ATTR.1"]
    return conv2d_cases(rng, ids, tags) + conv1d_conv3d_cases(rng) + conv_transpose_cases(rng)


# ---------------------------------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------------------------------


def pool2d_cases(x, rng, p):
    """max_pool2d and avg_pool2d over a table of attributes, and their rejections."""
    out = []
    specs = {
        "max": ["OP.nn.max_pool2d.C2", "OP.nn.max_pool2d.C3", "OP.NN.POOL.SEM.1", "OP.NN.POOL.SEM.2"],
        "avg": ["OP.nn.avg_pool2d.C2", "OP.nn.avg_pool2d.C3", "OP.NN.POOL.SEM.1", "OP.NN.POOL.SEM.3"],
    }
    configs = [
        ("basic", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, False, "pool_size=3, strides=2, padding=1"),
        ("ceil_mode", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, False,
         "pool_size=3, strides=2, padding=1, ceil_mode=True"),
        ("ceil_mode_include_pad", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, True,
         "pool_size=3, strides=2, padding=1, ceil_mode=True, count_include_pad=True"),
        ("dilation_asymmetric", (2, 3), (1, 2), (0, 1, 1, 2), (2, 1), False, False,
         "pool_size=(2, 3), strides=(1, 2), padding=(0, 1, 1, 2), dilation=(2, 1)"),
        ("last_window_dropped", (2, 2), (3, 3), (1, 0, 0, 1), (1, 1), True, True,
         "pool_size=2, strides=3, padding=(1, 0, 0, 1), ceil_mode=True, count_include_pad=True"),
    ]
    for kind in ("max", "avg"):
        for label, ks, st, pad, dil, ceil, inc, attrs in configs:
            if kind == "max" and label == "ceil_mode_include_pad":
                continue
            y = pool(x, kind, ks, st, pad, dil, ceil, inc)
            out.append(Case(f"{kind}_pool2d_{label}", module(p, f"R.nn.{kind}_pool2d(x, {attrs})", tensor(y.shape)),
                            runs=[([x], r32(y))], spec=specs[kind] + ["OP.NN.POOL.C2"],
                            tags=[f"op:nn.{kind}_pool2d", "nn"] + (["ceil_mode"] if ceil else []),
                            description=attrs))
        runs = []
        for n, h in ((1, 5), (2, 8)):
            xs = f32(rng, n, 3, h, 6)
            runs.append(([xs], r32(pool(xs, kind, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True, False))))
        out.append(Case(f"{kind}_pool2d_symbolic",
                        module([("x", tensor(("n", 3, "h", 6)))],
                               f"R.nn.{kind}_pool2d(x, pool_size=3, strides=2, padding=1, ceil_mode=True)", tensor(4)),
                        runs=runs, spec=specs[kind] + ["OP.NN.POOL.C2"], tags=[f"op:nn.{kind}_pool2d", "nn", "symbolic"],
                        description="out height h // 2 + 1"))
        xn = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        y = pool(x, kind, (2, 2), (2, 2), (0,) * 4, (2, 2), False, False).transpose(0, 2, 3, 1)
        out.append(Case(f"{kind}_pool2d_nhwc", module([("x", tensor((2, 7, 6, 3)))],
                                                      f'R.nn.{kind}_pool2d(x, 2, 2, dilation=2, layout="NHWC")',
                                                      tensor(y.shape)),
                        runs=[([xn], r32(y))], spec=specs[kind] + ["OP.NN.LAYOUT.1"],
                        tags=[f"op:nn.{kind}_pool2d", "nn", "layout"]))
    xs = f32(rng, 1, 1, 2, 2)
    out.append(Case("max_pool2d_window_in_padding",
                    module([("x", tensor((1, 1, 2, 2)))], "R.nn.max_pool2d(x, 1, 1, padding=(1, 1, 0, 0))",
                           tensor((1, 1, 3, 3))),
                    runs=[([xs], np.pad(xs, [(0, 0), (0, 0), (1, 0), (1, 0)],
                                        constant_values=np.finfo("float32").min))],
                    spec=["OP.NN.POOL.SEM.2"], tags=["op:nn.max_pool2d", "nn", "padding"],
                    description="a window entirely in the padding gives the lowest finite float32"))
    out.append(Invalid("max_pool2d_rank", module([("x", tensor((2, 3, 7)))], "R.nn.max_pool2d(x, 2)"),
                       "struct_info", spec=["OP.nn.max_pool2d.C1"], tags=["op:nn.max_pool2d", "nn", "invalid"]))
    out.append(Invalid("avg_pool2d_bad_layout", module([("x", tensor((2, 3, 7, 6)))],
                                                       'R.nn.avg_pool2d(x, 2, layout="NCHD")'),
                       "struct_info", spec=["OP.nn.avg_pool2d.C1"], tags=["op:nn.avg_pool2d", "nn", "invalid"]))
    return out


def pool1d_pool3d_cases(rng):
    """Pooling in 1 and 3 dimensions."""
    out = []
    # 1-d and 3-d
    x1 = f32(rng, 2, 7, 3)
    y1 = pool(x1.transpose(0, 2, 1), "max", (3,), (2,), (1, 1), (1,), True, False).transpose(0, 2, 1)
    out.append(Case("max_pool1d_nwc_ceil", module([("x", tensor((2, 7, 3)))],
                                                  'R.nn.max_pool1d(x, 3, 2, 1, ceil_mode=True, layout="NWC")',
                                                  tensor(y1.shape)),
                    runs=[([x1], r32(y1))], spec=["OP.nn.max_pool1d.C2", "OP.nn.max_pool1d.C3", "OP.NN.POOL.SEM.2"],
                    tags=["op:nn.max_pool1d", "nn"]))
    x1b = f32(rng, 2, 3, 7)
    y1b = pool(x1b, "avg", (3,), (2,), (1, 1), (1,), False, True)
    out.append(Case("avg_pool1d_default_include_pad", module([("x", tensor((2, 3, 7)))], "R.nn.avg_pool1d(x, 3, 2, 1)",
                                                             tensor(y1b.shape)),
                    runs=[([x1b], r32(y1b))], spec=["OP.nn.avg_pool1d.C2", "OP.nn.avg_pool1d.C3", "OP.NN.POOL.SEM.3"],
                    tags=["op:nn.avg_pool1d", "nn"], description="count_include_pad defaults to True for 1-d"))
    x3 = f32(rng, 1, 2, 3, 4, 5)
    y3 = pool(x3, "avg", (2, 2, 2), (2, 2, 2), (1,) * 6, (1, 1, 1), False, True)
    out.append(Case("avg_pool3d_static", module([("x", tensor((1, 2, 3, 4, 5)))], "R.nn.avg_pool3d(x, 2, 2, 1)",
                                                tensor(y3.shape)),
                    runs=[([x3], r32(y3))], spec=["OP.nn.avg_pool3d.C2", "OP.nn.avg_pool3d.C3", "OP.NN.POOL.SEM.3"],
                    tags=["op:nn.avg_pool3d", "nn"]))
    y3m = pool(x3, "max", (2, 3, 2), (1, 2, 2), (0, 1, 0, 1, 0, 1), (1, 1, 2), True, False)
    out.append(Case("max_pool3d_static", module([("x", tensor((1, 2, 3, 4, 5)))],
                                                "R.nn.max_pool3d(x, (2, 3, 2), (1, 2, 2), (0, 1, 0, 1, 0, 1), (1, 1, 2), "
                                                "ceil_mode=True)", tensor(y3m.shape)),
                    runs=[([x3], r32(y3m))], spec=["OP.nn.max_pool3d.C2", "OP.nn.max_pool3d.C3", "OP.NN.POOL.SEM.2"],
                    tags=["op:nn.max_pool3d", "nn"]))
    return out


def adaptive_pool_cases(rng, x):
    """adaptive_avg_pool in 1, 2 and 3 dimensions."""
    out = []
    # adaptive
    tags = ["op:nn.adaptive_avg_pool2d", "nn"]
    ids = ["OP.nn.adaptive_avg_pool2d.C2", "OP.nn.adaptive_avg_pool2d.C3", "OP.NN.POOL.SEM.4"]
    xa = f32(rng, 2, 3, 8, 6)
    out.append(Case("adaptive_avg_pool2d_dividing", module([("x", tensor((2, 3, 8, 6)))],
                                                           "R.nn.adaptive_avg_pool2d(x, (4, 3))", tensor((2, 3, 4, 3))),
                    runs=[([xa], r32(adaptive(xa, (4, 3))))], spec=ids, tags=tags))
    out.append(Case("adaptive_avg_pool2d_overlapping_windows",
                    module([("x", tensor((2, 3, 7, 6)))], "R.nn.adaptive_avg_pool2d(x, (3, 4))", tensor((2, 3, 3, 4))),
                    runs=[([x], r32(adaptive(x, (3, 4))))], spec=ids, tags=tags,
                    description="windows [floor(i*n/m), ceil((i+1)*n/m)) overlap when m does not divide n"))
    runs = [([xs], r32(adaptive(xs, (1, 1)))) for xs in (f32(rng, 1, 3, 5, 6), f32(rng, 2, 3, 4, 2))]
    out.append(Case("adaptive_avg_pool2d_global_symbolic",
                    module([("x", tensor(("n", 3, "h", "w")))], "R.nn.adaptive_avg_pool2d(x, 1)", tensor(4)),
                    runs=runs, spec=ids + ["OP.NN.ATTR.1"], tags=tags + ["symbolic"]))
    out.append(Case("adaptive_avg_pool2d_none_keeps_size",
                    module([("x", tensor((2, 3, 7, 6)))], "R.nn.adaptive_avg_pool2d(x)", tensor((2, 3, 7, 6))),
                    runs=[([x], x)], spec=ids, tags=tags))
    x1c = f32(rng, 2, 3, 8)
    out.append(Case("adaptive_avg_pool1d_static", module([("x", tensor((2, 3, 8)))], "R.nn.adaptive_avg_pool1d(x, 4)",
                                                         tensor((2, 3, 4))),
                    runs=[([x1c], r32(adaptive(x1c, (4,))))],
                    spec=["OP.nn.adaptive_avg_pool1d.C2", "OP.nn.adaptive_avg_pool1d.C3", "OP.NN.POOL.SEM.4"], tags=["op:nn.adaptive_avg_pool1d", "nn"]))
    x3c = f32(rng, 1, 2, 4, 6, 2)
    out.append(Case("adaptive_avg_pool3d_static", module([("x", tensor((1, 2, 4, 6, 2)))],
                                                         "R.nn.adaptive_avg_pool3d(x, (2, 3, 1))", tensor((1, 2, 2, 3, 1))),
                    runs=[([x3c], r32(adaptive(x3c, (2, 3, 1))))],
                    spec=["OP.nn.adaptive_avg_pool3d.C2", "OP.nn.adaptive_avg_pool3d.C3", "OP.NN.POOL.SEM.4"], tags=["op:nn.adaptive_avg_pool3d", "nn"]))
    return out


def pool_cases():
    rng = rng_for("pool")
    x = f32(rng, 2, 3, 7, 6)
    p = [("x", tensor((2, 3, 7, 6)))]
    return pool2d_cases(x, rng, p) + pool1d_pool3d_cases(rng) + adaptive_pool_cases(rng, x)


# ---------------------------------------------------------------------------------------------------
# softmax and normalizations
# ---------------------------------------------------------------------------------------------------


def softmax_cases(rng):
    """softmax and log_softmax, large values."""
    out = []
    x = f32(rng, 2, 3, 4) * 4
    for op in ("softmax", "log_softmax"):
        tags = [f"op:nn.{op}", "nn"]
        ids = [f"OP.nn.{op}.C1", f"OP.nn.{op}.C3"]

        def fn(a, axis, op=op):
            s = softmax(a, axis)
            return s if op == "softmax" else np.log(s)

        out.append(Case(f"{op}_axis1", module([("x", tensor((2, 3, 4)))], f"R.nn.{op}(x, axis=1)", tensor((2, 3, 4))),
                        runs=[([x], r32(fn(x, 1)))], spec=ids, tags=tags))
        runs = [([xs], r32(fn(xs, -1))) for xs in (f32(rng, 2, 5), f32(rng, 3, 1))]
        out.append(Case(f"{op}_symbolic", module([("x", tensor(("n", "m")))], f"R.nn.{op}(x)", tensor(("n", "m"))),
                        runs=runs, spec=ids, tags=tags + ["symbolic"]))
        out.append(Invalid(f"{op}_int_input", module([("x", tensor((2, 3), "int32"))], f"R.nn.{op}(x)"),
                           "struct_info", spec=[f"OP.nn.{op}.C1"], tags=tags + ["invalid"]))
        out.append(Invalid(f"{op}_axis_out_of_range", module([("x", tensor((2, 3)))], f"R.nn.{op}(x, axis=2)"),
                           "struct_info", spec=[f"OP.nn.{op}.C2"], tags=tags + ["invalid"]))
    big = np.array([[1000.0, 1001.0, 999.0]], "float32")
    out.append(Case("softmax_large_values", module([("x", tensor((1, 3)))], "R.nn.softmax(x)", tensor((1, 3))),
                    runs=[([big], r32(softmax(big, -1)))], spec=["OP.nn.softmax.C3"], tags=["op:nn.softmax", "nn"],
                    description="the maximum is subtracted before exp"))
    return out


def layer_norm_cases(rng, x):
    """layer_norm over two axes, symbolic shapes, center/scale, gamma checks."""
    out = []
    # layer_norm
    tags = ["op:nn.layer_norm", "nn"]
    ids = ["OP.nn.layer_norm.C3", "OP.nn.layer_norm.C4", "OP.NN.NORM.SEM.2", "OP.NN.NORM.C3"]
    g, b = f32(rng, 4, 5), f32(rng, 4, 5)
    out.append(Case("layer_norm_two_axes",
                    module([("x", tensor((2, 3, 4, 5))), ("g", tensor((4, 5))), ("b", tensor((4, 5)))],
                           "R.nn.layer_norm(x, g, b, axes=[2, 3], epsilon=1e-3)", tensor((2, 3, 4, 5))),
                    runs=[([x, g, b], r32(normalize(x, (2, 3), 1e-3) * g + b))], spec=ids, tags=tags, **SUM_TOL))
    g1 = f32(rng, 5)
    runs = [([xs, g1, g1], r32(normalize(xs, (-1,), 1e-5) * g1 + g1)) for xs in (f32(rng, 2, 5), f32(rng, 4, 5))]
    out.append(Case("layer_norm_symbolic", module([("x", tensor(("n", 5))), ("g", tensor((5,))), ("b", tensor((5,)))],
                                                  "R.nn.layer_norm(x, g, b, axes=-1)", tensor(("n", 5))),
                    runs=runs, spec=ids + ["OP.NN.ATTR.1"], tags=tags + ["symbolic"], **SUM_TOL))
    out.append(Case("layer_norm_ignores_center_scale",
                    module([("x", tensor((2, 5))), ("g", tensor((5,))), ("b", tensor((5,)))],
                           "R.nn.layer_norm(x, g, b, axes=[1], center=False, scale=False)", tensor((2, 5))),
                    runs=[([x2 := f32(rng, 2, 5), g1, g1], r32(normalize(x2, (1,), 1e-5) * g1 + g1))],
                    spec=["OP.NN.NORM.SEM.1", "OP.nn.layer_norm.C4"], tags=tags,
                    description="TVM's legalization applies gamma and beta whatever center/scale say", **SUM_TOL))
    out.append(Invalid("layer_norm_gamma_size", module([("x", tensor((2, 5))), ("g", tensor((4,))), ("b", tensor((5,)))],
                                                       "R.nn.layer_norm(x, g, b, axes=[1])"),
                       "struct_info", spec=["OP.nn.layer_norm.C2", "OP.NN.NORM.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("layer_norm_gamma_rank", module([("x", tensor((2, 5))), ("g", tensor((1, 5))), ("b", tensor((5,)))],
                                                       "R.nn.layer_norm(x, g, b, axes=[1])"),
                       "struct_info", spec=["OP.nn.layer_norm.C1", "OP.NN.NORM.C1"], tags=tags + ["invalid"]))
    return out


def rms_group_instance_norm_cases(rng, x):
    """rms_norm, group_norm and instance_norm."""
    out = []
    # rms_norm
    w = f32(rng, 5)
    x64 = x.astype("float64")
    out.append(Case("rms_norm_last_axis", module([("x", tensor((2, 3, 4, 5))), ("w", tensor((5,)))],
                                                 "R.nn.rms_norm(x, w)", tensor((2, 3, 4, 5))),
                    runs=[([x, w], r32(x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + 1e-5) * w))],
                    spec=["OP.nn.rms_norm.C3", "OP.nn.rms_norm.C4"], tags=["op:nn.rms_norm", "nn"], **SUM_TOL))
    out.append(Invalid("rms_norm_int", module([("x", tensor((2, 5), "int32")), ("w", tensor((5,), "int32"))],
                                              "R.nn.rms_norm(x, w)"),
                       "struct_info", spec=["OP.nn.rms_norm.C1", "OP.NN.NORM.C1"], tags=["op:nn.rms_norm", "nn", "invalid"]))
    # group_norm / instance_norm
    c = f32(rng, 4)
    xg = f32(rng, 2, 4, 3, 5)
    bc = c[:, None, None]
    out.append(Case("group_norm_two_groups",
                    module([("x", tensor((2, 4, 3, 5))), ("c", tensor((4,)))],
                           "R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, axes=[2, 3])", tensor((2, 4, 3, 5))),
                    runs=[([xg, c], r32(normalize(xg.reshape(2, 2, 2, 3, 5), (2, 3, 4), 1e-5).reshape(xg.shape) * bc + bc))],
                    spec=["OP.nn.group_norm.C4", "OP.nn.group_norm.C5", "OP.NN.NORM.SEM.2"],
                    tags=["op:nn.group_norm", "nn"], **SUM_TOL))
    out.append(Invalid("group_norm_groups_not_dividing",
                       module([("x", tensor((2, 4, 3, 5))), ("c", tensor((4,)))],
                              "R.nn.group_norm(x, c, c, num_groups=3, channel_axis=1, axes=[2, 3])"),
                       "struct_info", spec=["OP.nn.group_norm.C3"], tags=["op:nn.group_norm", "nn", "invalid"]))
    runs = [([xs, c], r32(normalize(xs, (2,), 1e-5) * c[:, None] + c[:, None])) for xs in (f32(rng, 1, 4, 3), f32(rng, 2, 4, 6))]
    out.append(Case("instance_norm_symbolic",
                    module([("x", tensor(("n", 4, "l"))), ("c", tensor((4,)))],
                           "R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2])", tensor(("n", 4, "l"))),
                    runs=runs, spec=["OP.nn.instance_norm.C3", "OP.nn.instance_norm.C4", "OP.NN.NORM.SEM.2"],
                    tags=["op:nn.instance_norm", "nn", "symbolic"], **SUM_TOL))
    out.append(Invalid("instance_norm_channel_in_axes",
                       module([("x", tensor((2, 4, 3))), ("c", tensor((4,)))],
                              "R.nn.instance_norm(x, c, c, channel_axis=1, axes=[1, 2])"),
                       "struct_info", spec=["OP.nn.instance_norm.C1"], tags=["op:nn.instance_norm", "nn", "invalid"]))
    return out


def batch_norm_cases(rng):
    """batch_norm in inference and training mode."""
    out = []
    # batch_norm
    tags = ["op:nn.batch_norm", "nn"]
    xb = f32(rng, 3, 4, 5)
    gb, bb, mm, mv = f32(rng, 4), f32(rng, 4), f32(rng, 4), (np.abs(f32(rng, 4)) + 0.5).astype("float32")
    params = [("x", tensor((3, 4, 5))), ("g", tensor((4,))), ("b", tensor((4,))), ("m", tensor((4,))),
              ("v", tensor((4,)))]
    sl = (None, slice(None), None)
    ret = f'R.Tuple({tensor((3, 4, 5))}, {tensor((4,))}, {tensor((4,))})'
    inf = (xb.astype("float64") - mm[sl]) / np.sqrt(mv[sl].astype("float64") + 1e-5) * gb[sl] + bb[sl]
    out.append(Case("batch_norm_inference", module(params, "R.nn.batch_norm(x, g, b, m, v, axis=1, training=False)", ret),
                    runs=[([xb, gb, bb, mm, mv], (r32(inf), mm, mv))],
                    spec=["OP.nn.batch_norm.C3", "OP.nn.batch_norm.C4"], tags=tags, **SUM_TOL))
    bm = xb.astype("float64").mean(axis=(0, 2))
    bv = xb.astype("float64").var(axis=(0, 2))
    tr = (xb - bm[sl]) / np.sqrt(bv[sl] + 1e-5) * gb[sl]
    out.append(Case("batch_norm_training", module(params, "R.nn.batch_norm(x, g, b, m, v, axis=1, momentum=0.2, "
                                                          "center=False)", ret),
                    runs=[([xb, gb, bb, mm, mv], (r32(tr), r32(0.8 * mm.astype("float64") + 0.2 * bm),
                                                  r32(0.8 * mv.astype("float64") + 0.2 * bv)))],
                    spec=["OP.nn.batch_norm.C5"], tags=tags,
                    description="training=True (the default): batch statistics, momentum updates, beta skipped",
                    **SUM_TOL))
    out.append(Invalid("batch_norm_stat_size", module(params[:3] + [("m", tensor((5,))), ("v", tensor((4,)))],
                                                      "R.nn.batch_norm(x, g, b, m, v, axis=1)"),
                       "struct_info", spec=["OP.nn.batch_norm.C2", "OP.NN.NORM.C2"], tags=tags + ["invalid"]))
    return out


def softmax_norm_cases():
    rng = rng_for("norm")
    out = softmax_cases(rng)
    x = f32(rng, 2, 3, 4, 5)  # the input of layer_norm and rms_norm, drawn here as the cases were first generated
    return out + layer_norm_cases(rng, x) + rms_group_instance_norm_cases(rng, x) + batch_norm_cases(rng)


# ---------------------------------------------------------------------------------------------------
# pad, prelu, batch_flatten, pixel_shuffle, dropout
# ---------------------------------------------------------------------------------------------------


def misc_cases():
    out = []
    rng = rng_for("misc")
    x = f32(rng, 2, 3, 4)
    p = [("x", tensor((2, 3, 4)))]
    widths = [0, 0, 2, 1, 3, 2]
    npw = [(0, 0), (2, 1), (3, 2)]
    for mode, np_mode, extra in (("constant", "constant", ", pad_value=1.5"), ("reflect", "reflect", ""),
                                 ("replicate", "edge", ""), ("circular", "wrap", "")):
        kw = {"constant_values": 1.5} if mode == "constant" else {}
        mode_arg = "" if mode == "constant" else f', pad_mode="{mode}"'
        out.append(Case(f"pad_{mode}", module(p, f"R.nn.pad(x, {widths}{mode_arg}{extra})", tensor((2, 6, 9))),
                        runs=[([x], np.pad(x, npw, mode=np_mode, **kw))], spec=["OP.nn.pad.C3", "OP.nn.pad.C4"],
                        tags=["op:nn.pad", "nn"]))
    runs = [([xs], np.pad(xs, [(1, 0), (0, 2)])) for xs in (f32(rng, 2, 3), f32(rng, 4, 1))]
    out.append(Case("pad_symbolic", module([("x", tensor(("n", "m")))], "R.nn.pad(x, [1, 0, 0, 2])",
                                           tensor(("n + 1", "m + 2"))),
                    runs=runs, spec=["OP.nn.pad.C3", "OP.nn.pad.C4"], tags=["op:nn.pad", "nn", "symbolic"]))
    out.append(Case("pad_reflect_too_wide", module(p, 'R.nn.pad(x, [0, 0, 3, 0, 0, 0], pad_mode="reflect")',
                                                   tensor((2, 6, 4))),
                    runs=[Fails([x], "op_runtime")], spec=["OP.nn.pad.C4"], tags=["op:nn.pad", "nn", "error"],
                    oracle="spec-rule", description="reflect padding needs pad < dim"))
    out.append(Invalid("pad_width_length", module(p, "R.nn.pad(x, [1, 1])"), "struct_info", spec=["OP.nn.pad.C1"],
                       tags=["op:nn.pad", "nn", "invalid"]))
    # prelu
    a = f32(rng, 3)
    out.append(Case("prelu_channel_axis", module(p + [("a", tensor((3,)))], "R.nn.prelu(x, a)", tensor((2, 3, 4))),
                    runs=[([x, a], np.where(x > 0, x, r32(x.astype("float64") * a[None, :, None])))],
                    spec=["OP.nn.prelu.C3"], tags=["op:nn.prelu", "nn"]))
    out.append(Invalid("prelu_int", module([("x", tensor((2, 3), "int32")), ("a", tensor((3,), "int32"))],
                                           "R.nn.prelu(x, a)"), "struct_info", spec=["OP.nn.prelu.C1"],
                       tags=["op:nn.prelu", "nn", "invalid"]))
    # batch_flatten
    runs = [([xs], xs.reshape(xs.shape[0], -1)) for xs in (f32(rng, 2, 3, 4), f32(rng, 1, 3, 2))]
    out.append(Case("batch_flatten_symbolic", module([("x", tensor(("n", 3, "m")))], "R.nn.batch_flatten(x)",
                                                     tensor(("n", "3 * m"))),
                    runs=runs, spec=["OP.nn.batch_flatten.C2"], tags=["op:nn.batch_flatten", "nn", "symbolic"]))
    out.append(Invalid("batch_flatten_rank1", module([("x", tensor((3,)))], "R.nn.batch_flatten(x)"), "struct_info",
                       spec=["OP.nn.batch_flatten.C1"], tags=["op:nn.batch_flatten", "nn", "invalid"]))
    # pixel_shuffle
    y = f32(rng, 2, 8, 2, 3)
    ref = np.zeros((2, 2, 4, 6), "float32")
    for n, c, h, w in itertools.product(range(2), range(2), range(4), range(6)):
        ref[n, c, h, w] = y[n, c * 4 + (h % 2) * 2 + (w % 2), h // 2, w // 2]
    out.append(Case("pixel_shuffle_factor2", module([("x", tensor((2, 8, 2, 3)))], "R.nn.pixel_shuffle(x, 2)",
                                                    tensor((2, 2, 4, 6))),
                    runs=[([y], ref)], spec=["OP.nn.pixel_shuffle.C3", "OP.nn.pixel_shuffle.C4"],
                    tags=["op:nn.pixel_shuffle", "nn"]))
    out.append(Invalid("pixel_shuffle_channels", module([("x", tensor((1, 6, 2, 2)))], "R.nn.pixel_shuffle(x, 2)"),
                       "struct_info", spec=["OP.nn.pixel_shuffle.C3"], tags=["op:nn.pixel_shuffle", "nn", "invalid"]))
    # dropout
    out.append(Case("dropout_inference", module(p, "R.nn.dropout(x, 0.3)",
                                                f"R.Tuple({tensor((2, 3, 4))}, {tensor((2, 3, 4))})"),
                    runs=[([x], (x, np.ones_like(x)))], spec=["OP.nn.dropout.C1", "OP.nn.dropout.C2"],
                    tags=["op:nn.dropout", "nn"], description="inference mode: the input and a mask of ones"))
    return out


# ---------------------------------------------------------------------------------------------------
# attention and losses
# ---------------------------------------------------------------------------------------------------


def attention_cases():
    out = []
    rng = rng_for("attention")
    tags = ["op:nn.attention", "nn"]
    ids = ["OP.nn.attention.C4", "OP.nn.attention.C5"]
    for s, skv, mask in ((3, 5, None), (3, 5, "TopLeft"), (3, 5, "BottomRight"), (5, 3, "BottomRight")):
        q, k, v = f32(rng, 2, s, 2, 4), f32(rng, 2, skv, 2, 4), f32(rng, 2, skv, 2, 3)
        m = "None" if mask is None else f'"{mask}"'
        name = "attention_" + ("no_mask" if mask is None else f"{mask.lower()}_{s}x{skv}")
        out.append(Case(name, module([("q", tensor((2, s, 2, 4))), ("k", tensor((2, skv, 2, 4))),
                                      ("v", tensor((2, skv, 2, 3)))],
                                     f"R.nn.attention(q, k, v, causal_mask={m})", tensor((2, s, 2, 3))),
                        runs=[([q, k, v], r32(attention(q, k, v, mask=mask)))], spec=ids, tags=tags, **SUM_TOL))
    runs = []
    for skv in (4, 2):
        q, k = f32(rng, 1, 3, 2, 4), f32(rng, 1, skv, 2, 4)
        runs.append(([q, k], r32(attention(q, k, k))))
    out.append(Case("attention_symbolic_keys", module([("q", tensor((1, 3, 2, 4))), ("k", tensor((1, "s", 2, 4)))],
                                                      "R.nn.attention(q, k, k)", tensor((1, 3, 2, 4))),
                    runs=runs, spec=ids, tags=tags + ["symbolic"], **SUM_TOL))
    q, k, v, b = f32(rng, 2, 3, 2, 4), f32(rng, 2, 5, 2, 4), f32(rng, 2, 5, 2, 3), f32(rng, 1, 2, 1, 5)
    out.append(Case("attention_bias_scale", module([("q", tensor((2, 3, 2, 4))), ("k", tensor((2, 5, 2, 4))),
                                                   ("v", tensor((2, 5, 2, 3))), ("b", tensor((1, 2, 1, 5)))],
                                                  "R.nn.attention(q, k, v, b, scale=0.25)", tensor((2, 3, 2, 3))),
                    runs=[([q, k, v, b], r32(attention(q, k, v, bias=b, scale=0.25)))],
                    spec=["OP.nn.attention.C3", "OP.nn.attention_bias.C3", "OP.nn.attention_bias.C4",
                          "OP.nn.attention_bias.C5", "OP.NN.ATTR.1"],
                    tags=["op:nn.attention_bias", "nn"], description="a bias argument builds attention_bias",
                    **SUM_TOL))
    out.append(Invalid("attention_head_dim_mismatch",
                       module([("q", tensor((2, 3, 2, 4))), ("k", tensor((2, 5, 2, 3)))], "R.nn.attention(q, k, k)"),
                       "struct_info", spec=["OP.nn.attention.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("attention_rank", module([("q", tensor((2, 3, 4)))], "R.nn.attention(q, q, q)"),
                       "struct_info", spec=["OP.nn.attention.C1"], tags=tags + ["invalid"]))
    return out


def loss_cases():
    out = []
    rng = rng_for("loss")
    x, y = f32(rng, 3, 4), f32(rng, 3, 4)
    tags = ["op:nn.cross_entropy_with_logits", "nn"]
    out.append(Case("cross_entropy_with_logits_batch",
                    module([("x", tensor((3, 4))), ("y", tensor((3, 4)))], "R.nn.cross_entropy_with_logits(x, y)",
                           tensor(())),
                    runs=[([x, y], r32(-(x.astype("float64") * y).sum() / 3))],
                    spec=["OP.nn.cross_entropy_with_logits.C3", "OP.nn.cross_entropy_with_logits.C4"], tags=tags,
                    **SUM_TOL))
    v = f32(rng, 5)
    out.append(Case("cross_entropy_with_logits_vector",
                    module([("x", tensor((5,))), ("y", tensor((5,)))], "R.nn.cross_entropy_with_logits(x, y)",
                           tensor(())),
                    runs=[([v, v], r32(-(v.astype("float64") ** 2).sum()))],
                    spec=["OP.nn.cross_entropy_with_logits.C4"], tags=tags, **SUM_TOL))
    out.append(Invalid("cross_entropy_with_logits_shape",
                       module([("x", tensor((3, 4))), ("y", tensor((2, 4)))], "R.nn.cross_entropy_with_logits(x, y)"),
                       "struct_info", spec=["OP.nn.cross_entropy_with_logits.C3"], tags=tags + ["invalid"]))
    tags = ["op:nn.nll_loss", "nn"]
    p, w = f32(rng, 4, 5, 3), (np.abs(f32(rng, 5)) + 0.1).astype("float32")
    t = np.array([[0, 2, 4], [1, 1, 3], [4, 0, 2], [3, 3, 0]], "int64")
    per = np.zeros((4, 3))
    wt = np.zeros((4, 3))
    for n, d in itertools.product(range(4), range(3)):
        if t[n, d] != 3:
            per[n, d] = -float(p[n, t[n, d], d]) * float(w[t[n, d]])
            wt[n, d] = float(w[t[n, d]])
    params = [("p", tensor((4, 5, 3))), ("t", tensor((4, 3), "int64")), ("w", tensor((5,)))]
    for red, exp, ret in (("none", per, tensor((4, 3))), ("sum", per.sum(), tensor(())),
                          ("mean", per.sum() / wt.sum(), tensor(()))):
        out.append(Case(f"nll_loss_{red}_ignore_index", module(params, f'R.nn.nll_loss(p, t, w, reduction="{red}", '
                                                                      f"ignore_index=3)", ret),
                        runs=[([p, t, w], r32(exp))], spec=["OP.nn.nll_loss.C6", "OP.nn.nll_loss.C7"], tags=tags,
                        **SUM_TOL))
    p2, t2 = f32(rng, 3, 4), np.array([1, 0, 3], "int32")
    out.append(Case("nll_loss_default_weights", module([("p", tensor((3, 4))), ("t", tensor((3,), "int32"))],
                                                       "R.nn.nll_loss(p, t)", tensor(())),
                    runs=[([p2, t2], r32(-np.mean([float(p2[i, t2[i]]) for i in range(3)])))],
                    spec=["OP.nn.nll_loss.C7"], tags=tags, **SUM_TOL))
    out.append(Case("nll_loss_target_out_of_range", module([("p", tensor((3, 4))), ("t", tensor((3,), "int32"))],
                                                           "R.nn.nll_loss(p, t)", tensor(())),
                    runs=[Fails([p2, np.array([1, 4, 0], "int32")], "op_runtime")], spec=["OP.nn.nll_loss.C7"],
                    tags=tags + ["error"], oracle="spec-rule", description="a target outside [0, C)"))
    out.append(Invalid("nll_loss_float_targets", module([("p", tensor((3, 4))), ("t", tensor((3,)))],
                                                        "R.nn.nll_loss(p, t)"),
                       "struct_info", spec=["OP.nn.nll_loss.C2"], tags=tags + ["invalid"]))
    out.append(Invalid("nll_loss_batch_mismatch", module([("p", tensor((3, 4))), ("t", tensor((2,), "int64"))],
                                                         "R.nn.nll_loss(p, t)"),
                       "struct_info", spec=["OP.nn.nll_loss.C4"], tags=tags + ["invalid"]))
    return out

# ---------------------------------------------------------------------------------------------------
# Further constraints: invalid operands and attributes, results without a provable shape, 16-bit pools
# ---------------------------------------------------------------------------------------------------


def constraint_cases():
    out = [Invalid(name, module(params, call), "struct_info", spec=spec, tags=[f"op:nn.{op}", "nn", "invalid"])
           for name, op, params, call, spec in INVALID]
    rng = rng_for("constraints")
    # layer_norm / rms_norm whose parameter size cannot be proved equal to the data's: no error, and a
    # result with the data's dtype and rank only
    x, g = f32(rng, 3, 4), f32(rng, 4)
    out.append(Case("layer_norm_undecided_parameter_size",
                    module([("x", tensor(("n", "k"))), ("g", tensor(("m",))), ("b", tensor(("m",)))],
                           "R.nn.layer_norm(x, g, b, axes=[1])", tensor(2)),
                    runs=[([x, g, g], r32(normalize(x, (1,), 1e-5) * g + g))],
                    spec=["OP.nn.layer_norm.C3", "OP.NN.NORM.C3", "OP.INFER.2"], tags=["op:nn.layer_norm", "nn", "symbolic"],
                    description="k == m cannot be proved: inference keeps dtype and rank and does not reject",
                    **SUM_TOL))
    out.append(Case("rms_norm_undecided_weight_size",
                    module([("x", tensor(("n", "k"))), ("w", tensor(("m",)))], "R.nn.rms_norm(x, w)", tensor(2)),
                    runs=[([x, g], r32(x.astype("float64") / np.sqrt((x.astype("float64") ** 2).mean(-1, keepdims=True)
                                                                   + 1e-5) * g))],
                    spec=["OP.nn.rms_norm.C3", "OP.NN.NORM.C3", "OP.INFER.2"], tags=["op:nn.rms_norm", "nn", "symbolic"],
                    **SUM_TOL))
    # attention with a bias and a causal mask
    q, k, v, b = f32(rng, 1, 3, 2, 4), f32(rng, 1, 5, 2, 4), f32(rng, 1, 5, 2, 3), f32(rng, 1, 1, 3, 5)
    out.append(Case("attention_bias_bottomright_mask",
                    module([("q", tensor((1, 3, 2, 4))), ("k", tensor((1, 5, 2, 4))), ("v", tensor((1, 5, 2, 3))),
                            ("b", tensor((1, 1, 3, 5)))],
                           'R.nn.attention(q, k, v, b, causal_mask="BottomRight")', tensor((1, 3, 2, 3))),
                    runs=[([q, k, v, b], r32(attention(q, k, v, bias=b, mask="BottomRight")))],
                    spec=["OP.nn.attention.C3", "OP.nn.attention_bias.C4", "OP.nn.attention_bias.C5"],
                    tags=["op:nn.attention_bias", "nn"], description="the bias is added before the mask", **SUM_TOL))
    # float16 average pool: every addition and the division round to float16
    xh = (rng.standard_normal((1, 2, 5, 5)) * 300).astype("float16")
    out.append(Case("avg_pool2d_float16_rounding",
                    module([("x", tensor((1, 2, 5, 5), "float16"))], "R.nn.avg_pool2d(x, 3)",
                           tensor((1, 2, 3, 3), "float16")),
                    runs=[([xh], avg_pool_f16(xh, 3))],
                    spec=["OP.NN.SEM.1", "OP.NN.POOL.SEM.3", "OP.SEM.5"], tags=["op:nn.avg_pool2d", "nn", "float16"],
                    oracle="numpy-formula", rtol=0.0, atol=0.0,
                    description="the window sum is accumulated in float16 in row-major order (no wider accumulator)"))
    return out


def packed_layout_cases():
    """max_pool2d in NCHW4c (OP.NN.LAYOUT.1-3); a sub-axis of another extent is op_runtime (LAYOUT.2)."""
    rng, tags = rng_for("packed_layout"), ["op:nn.max_pool2d", "nn", "layout", "packed_layout"]
    x = f32(rng, 1, 2, 4, 6, 4)
    mx = x.transpose(0, 1, 4, 2, 3).reshape(1, 8, 2, 2, 3, 2).max(axis=(3, 5))
    call = 'R.nn.max_pool2d(x, pool_size=(2, 2), strides=(2, 2), layout="NCHW4c")'
    return [Case("max_pool2d_nchw4c", module([("x", tensor((1, 2, 4, 6, 4)))], call, tensor((1, 2, 2, 3, 4))),
                 runs=[([x], mx.reshape(1, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2))], tags=tags, oracle="hand",
                 spec=["OP.NN.LAYOUT.1", "OP.NN.LAYOUT.2", "OP.NN.LAYOUT.3", "OP.NN.POOL.SEM.1", "OP.NN.POOL.SEM.2"]),
            Case("max_pool2d_nchw4c_sub_axis_extent", module([("x", tensor((1, 2, 4, 4, "k")))], call),
                 runs=[Fails([f32(rng, 1, 2, 4, 4, 3)], "op_runtime", "the sub-axis c has extent 3, not 4")],
                 spec=["OP.NN.LAYOUT.2"], tags=tags + ["error"], oracle="spec-rule")]


def generate():
    return {CATEGORY: conv_cases() + pool_cases() + softmax_norm_cases() + misc_cases() + attention_cases()
            + loss_cases() + constraint_cases() + packed_layout_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_nn"])

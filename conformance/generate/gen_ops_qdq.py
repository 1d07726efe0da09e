"""Quantization operators (spec/ops/quantize.md, spec/ops/dequantize.md).

Cases: per-channel and per-tensor quantization with ties (half to even) and saturation, a float16
input, uint8 with an int32 zero point, parameters of unknown shape whose size is wrong at run time, dequantization to float32 and to float16 (saturating at 65504), and invalid dtypes, axes and
parameter sizes.

Oracles: the affine formulas written below with numpy (round half to even, clamp, cast) and values
worked out by hand.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid

from case_helpers import module, rng_for, tensor

CATEGORY = "op_quantize"


def quant(x, s, z, out, axis=-1, ft="float32"):
    """clamp(round_half_even(x / s) + z) for integer ``out``."""
    x = np.asarray(x, ft)
    if np.ndim(s) == 1 and x.ndim > 0:
        shape = [1] * x.ndim
        shape[axis] = -1
        s, z = np.reshape(s, shape), np.reshape(z, shape)
    q = np.rint(x / np.asarray(s, ft)) + np.asarray(z, ft)
    info = np.iinfo(out)
    return np.clip(q, info.min, info.max).astype(out)


def dequant(x, s, z, out, axis=-1):
    x = np.asarray(x, "int64")
    if np.ndim(s) == 1 and x.ndim > 0:
        shape = [1] * x.ndim
        shape[axis] = -1
        s, z = np.reshape(s, shape), np.reshape(z, shape)
    r = (x - np.asarray(z, "int64")).astype("float32") * np.asarray(s, "float32")
    if out == "float16":
        r = np.clip(r, -65504, 65504)
    return r.astype(out)


def quantize_cases():
    out = []
    rng = rng_for("quantize")
    tags = ["op:quantize", "quantization"]
    ids = ["OP.quantize.C5"]
    p3 = [("x", tensor((2, 4))), ("s", tensor((4,))), ("z", tensor((4,), "int8"))]
    x = np.array([[0.5, 1.5, 2.5, -0.5], [-1.5, 300.0, -300.0, 3.49]], "float32")
    s = np.array([1, 1, 1, 0.5], "float32")
    z = np.array([0, 0, 3, -2], "int8")
    out.append(Case("quantize_per_channel_ties_and_saturation",
                    module(p3, 'R.quantize(x, s, z, axis=1, out_dtype="int8")', tensor((2, 4), "int8")),
                    runs=[([x, s, z], np.array([[0, 2, 5, -3], [-2, 127, -128, 5]], "int8"))], spec=ids,
                    tags=tags, oracle="hand", description="0.5 -> 0, 1.5 -> 2, 2.5 -> 2 (+3); 300 saturates"))
    xr = (rng.standard_normal((3, 5)) * 40).astype("float32")
    sr = np.array(0.37, "float32")
    zr = np.array(128, "int32")
    out.append(Case("quantize_per_tensor_uint8_int32_zero_point",
                    module([("x", tensor((3, 5))), ("s", tensor(())), ("z", tensor((), "int32"))],
                           'R.quantize(x, s, z, out_dtype="uint8")', tensor((3, 5), "uint8")),
                    runs=[([xr, sr, zr], quant(xr, sr, zr, "uint8"))], spec=ids, tags=tags))
    xa = (rng.standard_normal((3, 2)) * 10).astype("float32")
    sa = np.array([0.5, 0.25, 2.0], "float32")
    za = np.array([1, -1, 0], "int16")
    out.append(Case("quantize_axis_0_int16",
                    module([("x", tensor((3, 2))), ("s", tensor((3,))), ("z", tensor((3,), "int16"))],
                           'R.quantize(x, s, z, axis=0, out_dtype="int16")', tensor((3, 2), "int16")),
                    runs=[([xa, sa, za], quant(xa, sa, za, "int16", axis=0))], spec=ids + ["OP.quantize.C3"],
                    tags=tags))
    xh = np.array([[1.0, -2.5, 7.75, 100.0]], "float16")
    sh = np.array(0.5, "float32")
    zh = np.array(0, "int8")
    out.append(Case("quantize_float16_input",
                    module([("x", tensor((1, 4), "float16")), ("s", tensor(())), ("z", tensor((), "int8"))],
                           "R.quantize(x, s, z)", tensor((1, 4), "int8")),
                    runs=[([xh, sh, zh], np.array([[2, -5, 16, 127]], "int8"))], spec=ids, tags=tags,
                    oracle="hand", description="x / s in float32: 15.5 rounds to 16, 200 saturates"))
    xs = rng.standard_normal((2, 3)).astype("float32")
    s3 = np.array([1.0, 2.0, 4.0], "float32")
    z3 = np.array([0, 1, 2], "int8")
    out.append(Case("quantize_unknown_parameter_shape_mismatch",
                    module([("x", tensor((2, "c"))), ("s", tensor(1)), ("z", tensor(1, "int8"))],
                           "R.quantize(x, s, z)", tensor((2, "c"), "int8")),
                    runs=[([xs, s3, z3], quant(xs, s3, z3, "int8")),
                          Fails([rng.standard_normal((2, 4)).astype("float32"), s3, z3], "op_runtime")],
                    spec=["OP.quantize.C4"], tags=tags + ["symbolic"]))
    p = [("x", tensor((2, 4))), ("s", tensor((4,))), ("z", tensor((4,), "int8"))]
    for name, call, cid, params in (
            ("quantize_bad_out_dtype", 'R.quantize(x, s, z, out_dtype="int32")', "C1", p),
            ("quantize_int_input", "R.quantize(x, s, z)", "C2",
             [("x", tensor((2, 4), "int32")), ("s", tensor((4,))), ("z", tensor((4,), "int8"))]),
            ("quantize_axis_out_of_range", "R.quantize(x, s, z, axis=2)", "C3", p),
            ("quantize_scale_size_mismatch", "R.quantize(x, s, z, axis=0)", "C4", p)):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.quantize.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def dequantize_cases():
    out = []
    rng = rng_for("dequantize")
    tags = ["op:dequantize", "quantization"]
    ids = ["OP.dequantize.C5"]
    xi = np.array([[127, -128, 0, 5], [1, 2, 3, 4]], "int8")
    out.append(Case("dequantize_float16_saturates",
                    module([("x", tensor((2, 4), "int8")), ("s", tensor(())), ("z", tensor((), "int8"))],
                           'R.dequantize(x, s, z, axis=0, out_dtype="float16")', tensor((2, 4), "float16")),
                    runs=[([xi, np.array(1000.0, "float32"), np.array(-3, "int8")],
                           np.array([[65504, -65504, 3000, 8000], [4000, 5000, 6000, 7000]], "float16"))],
                    spec=ids, tags=tags, oracle="hand", description="(127 + 3) * 1000 clamps to 65504"))
    xq = rng.integers(-128, 128, (3, 4)).astype("int8")
    sq = rng.uniform(0.01, 1.0, 4).astype("float32")
    zq = rng.integers(-10, 10, 4).astype("int8")
    out.append(Case("dequantize_per_channel",
                    module([("x", tensor((3, 4), "int8")), ("s", tensor((4,))), ("z", tensor((4,), "int8"))],
                           "R.dequantize(x, s, z)", tensor((3, 4))),
                    runs=[([xq, sq, zq], dequant(xq, sq, zq, "float32"))], spec=ids, tags=tags))
    xu = rng.integers(0, 256, (5,)).astype("uint8")
    out.append(Case("dequantize_uint8_singleton_params",
                    module([("x", tensor((5,), "uint8")), ("s", tensor((1,))), ("z", tensor((1,), "int32"))],
                           "R.dequantize(x, s, z)", tensor((5,))),
                    runs=[([xu, np.array([0.125], "float32"), np.array([128], "int32")],
                           dequant(xu, np.float32(0.125), 128, "float32"))], spec=ids + ["OP.dequantize.C4"],
                    tags=tags))
    p = [("x", tensor((2, 4), "int8")), ("s", tensor((4,))), ("z", tensor((4,), "int8"))]
    for name, call, cid, params in (
            ("dequantize_bad_out_dtype", 'R.dequantize(x, s, z, out_dtype="float64")', "C1", p),
            ("dequantize_float64_scale", "R.dequantize(x, s, z)", "C2",
             [("x", tensor((2, 4), "int8")), ("s", tensor((4,), "float64")), ("z", tensor((4,), "int8"))]),
            ("dequantize_axis_out_of_range", "R.dequantize(x, s, z, axis=-3)", "C3", p),
            ("dequantize_zero_point_rank_2", "R.dequantize(x, s, z)", "C4",
             [("x", tensor((2, 4), "int8")), ("s", tensor((4,))), ("z", tensor((4, 2), "int8"))])):
        out.append(Invalid(name, module(params, call), "struct_info", spec=[f"OP.dequantize.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def generate():
    return {CATEGORY: quantize_cases() + dequantize_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_qdq"])

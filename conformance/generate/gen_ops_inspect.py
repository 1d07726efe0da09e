"""Tensor inspection operators (spec/ops/inspect.*.md): the fields of a tensor's container.

Cases: each field for float32, integer, bool, bfloat16 and float8 tensors (made inside the function
with ``R.zeros``, so no special input encoding is needed), symbolic extents at two sizes, a 0-d
tensor, the run-time axis check with an axis passed as a prim value, and invalid arguments.

Oracles: DLPack's type codes and widths (``dlpack.h``: int 0, uint 1, float 2, bfloat 4, bool 6,
float8_e4m3fn 10, float8_e5m2 12), numpy shapes and products of extents, written by hand.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim

from case_helpers import module, module_body, rng_for, tensor

CATEGORY = "op_inspect"

CODE = {"float32": 2, "float16": 2, "float64": 2, "int8": 0, "int64": 0, "uint8": 1, "uint16": 1, "bool": 6,
        "bfloat16": 4, "float8_e4m3fn": 10, "float8_e5m2": 12}
BITS = {"float32": 32, "float16": 16, "float64": 64, "int8": 8, "int64": 64, "uint8": 8, "uint16": 16, "bool": 8,
        "bfloat16": 16, "float8_e4m3fn": 8, "float8_e5m2": 8}
OUT = {"tensor_dtype_code": "uint8", "tensor_dtype_bits": "uint8", "tensor_dtype_lanes": "uint16",
       "tensor_ndim": "int32", "tensor_shape_i": "int64", "tensor_stride_i": "int64",
       "tensor_byte_offset": "uint64", "tensor_elem_offset": "uint64"}


def made_inside(op, dtypes, field):
    """``main()`` makes a (2, 3) tensor of each dtype with R.zeros and returns the op on each."""
    body = "\n".join(f'z{i} = R.zeros(R.shape([2, 3]), "{d}")\nr{i} = R.inspect.{op}(z{i})'
                     for i, d in enumerate(dtypes))
    body += "\ny = (" + ", ".join(f"r{i}" for i in range(len(dtypes))) + ("," if len(dtypes) == 1 else "") + ")"
    want = tuple(Prim(field(d), OUT[op]) for d in dtypes)
    return module_body([], body), want


def dtype_cases():
    out = []
    groups = (("float_int_uint", ("float32", "int8", "uint16", "float64")),
              ("bool_bfloat16_float8", ("bool", "bfloat16", "float8_e4m3fn", "float8_e5m2")))
    for op, field in (("tensor_dtype_code", CODE.get), ("tensor_dtype_bits", BITS.get),
                      ("tensor_dtype_lanes", lambda d: 1)):
        tags = [f"op:inspect.{op}", "inspection"]
        for gname, dts in groups:
            text, want = made_inside(op, dts, field)
            out.append(Case(f"{op}_{gname}", text, runs=[([], want)], spec=[f"OP.inspect.{op}.C2"], tags=tags,
                            oracle="hand"))
        x = np.zeros((4,), "float16")
        out.append(Case(f"{op}_of_parameter", module([("x", tensor((4,), "float16"))], f"R.inspect.{op}(x)",
                                                     f'R.Prim("{OUT[op]}")'),
                        runs=[([x], Prim(field("float16"), OUT[op]))], spec=[f"OP.inspect.{op}.C2"], tags=tags,
                        oracle="hand"))
        out.append(Invalid(f"{op}_of_shape", module([("s", "R.Shape([2, 3])")], f"R.inspect.{op}(s)"), "struct_info",
                           spec=[f"OP.inspect.{op}.C1"], tags=tags + ["invalid"]))
    return out


def ndim_cases():
    out = []
    op = "tensor_ndim"
    tags = [f"op:inspect.{op}", "inspection"]
    rng = rng_for("inspect_ndim")
    text = module([("x", tensor(3, "float32"))], "R.inspect.tensor_ndim(x)", 'R.Prim("int32")')
    out.append(Case("tensor_ndim_rank_3", text, runs=[([rng.standard_normal((2, 1, 4)).astype("float32")],
                                                       Prim(3, "int32"))], spec=["OP.inspect.tensor_ndim.C2"],
                    tags=tags, oracle="hand"))
    text = module([("x", 'R.Tensor(dtype="float32", ndim=-1)')], "R.inspect.tensor_ndim(x)")
    out.append(Case("tensor_ndim_unknown_rank", text,
                    runs=[([np.zeros((), "float32")], Prim(0, "int32")),
                          ([np.zeros((1, 2, 3, 4, 5), "float32")], Prim(5, "int32"))],
                    spec=["OP.inspect.tensor_ndim.C2"], tags=tags + ["edge"], oracle="hand",
                    description="a 0-d tensor has rank 0"))
    out.append(Invalid("tensor_ndim_of_prim",
                       module([("x", 'R.Prim("int64")')], "R.inspect.tensor_ndim(x)"), "struct_info",
                       spec=["OP.inspect.tensor_ndim.C1"], tags=tags + ["invalid"]))
    return out


def axis_cases():
    out = []
    for op, f in (("tensor_shape_i", lambda s, a: s[a]), ("tensor_stride_i", lambda s, a: int(np.prod(s[a + 1:])))):
        tags = [f"op:inspect.{op}", "inspection"]
        ids = [f"OP.inspect.{op}.C1", f"OP.inspect.{op}.C4"]
        body = "\n".join(f"r{a} = R.inspect.{op}(x, {a})" for a in range(3)) + "\ny = (r0, r1, r2)"
        text = module_body([("x", tensor(("n", 3, "m")))], body)
        runs = [([np.zeros(s, "float32")], tuple(Prim(f(s, a), "int64") for a in range(3)))
                for s in ((2, 3, 5), (7, 3, 1))]
        out.append(Case(f"{op}_symbolic", text, runs=runs, spec=ids, tags=tags + ["symbolic"], oracle="hand"))
        text = module([("x", tensor(4, "int8")), ("a", 'R.Prim("int64")')], f"R.inspect.{op}(x, a)", 'R.Prim("int64")')
        s = (2, 0, 3, 4)
        out.append(Case(f"{op}_axis_prim_value", text,
                        runs=[([np.zeros(s, "int8"), Prim(a, "int64")], Prim(f(s, a), "int64")) for a in (0, 1, 3)]
                        + [Fails([np.zeros(s, "int8"), Prim(4, "int64")], "op_runtime"),
                           Fails([np.zeros(s, "int8"), Prim(-1, "int64")], "op_runtime")],
                        spec=ids + [f"OP.inspect.{op}.C3"], tags=tags + ["edge"], oracle="hand",
                        description="a zero extent; axes 4 and -1 are out of range at run time"))
        out.append(Invalid(f"{op}_constant_axis_out_of_range",
                           module([("x", tensor((2, 3)))], f"R.inspect.{op}(x, 2)"), "struct_info",
                           spec=[f"OP.inspect.{op}.C2"], tags=tags + ["invalid"]))
        out.append(Invalid(f"{op}_float_axis", module([("x", tensor((2, 3)))], f'R.inspect.{op}(x, R.prim_value(T.float32(1)))'),
                           "struct_info", spec=[f"OP.inspect.{op}.C2"], tags=tags + ["invalid"]))
    return out


def offset_cases():
    out = []
    for op in ("tensor_byte_offset", "tensor_elem_offset"):
        tags = [f"op:inspect.{op}", "inspection"]
        ids = [f"OP.inspect.{op}.C2"]
        out.append(Case(f"{op}_fresh_tensor", module([("x", tensor((2, 3)))], f"R.inspect.{op}(x)", 'R.Prim("uint64")'),
                        runs=[([np.ones((2, 3), "float32")], Prim(0, "uint64"))], spec=ids, tags=tags, oracle="hand"))
        text = module_body([("x", tensor((8,), "int16"))],
                           f"v = R.memory.view(x, R.shape([2]), R.dtype(\"int16\"), R.prim_value(T.int64(6)))\n"
                           f"y = R.inspect.{op}(v)")
        want = 6 if op == "tensor_byte_offset" else 3
        out.append(Case(f"{op}_of_view", text, runs=[([np.arange(8, dtype="int16")], Prim(want, "uint64"))],
                        spec=ids + ["VAL.TENSOR.VIEW.1"], tags=tags + ["op:memory.view"], oracle="hand",
                        description="a view 6 bytes into an int16 tensor: byte offset 6, element offset 3"))
        out.append(Invalid(f"{op}_of_tuple", module([("x", tensor((2,)))], f"R.inspect.{op}((x, x))"), "struct_info",
                           spec=[f"OP.inspect.{op}.C1"], tags=tags + ["invalid"]))
    return out


def generate():
    return {CATEGORY: dtype_cases() + ndim_cases() + axis_cases() + offset_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_inspect"])

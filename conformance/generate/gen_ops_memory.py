"""Views and markers (spec/ops/memory.view.md, spec/ops/memory.ensure_zero_offset.md,
spec/ops/builtin.stop_lift_params.md).

Cases: a slice at a byte offset, a reinterpretation of the bytes, a reshape, a misaligned offset,
in-place writes through a view and through ``ensure_zero_offset`` seen by every tensor sharing the
storage (VAL.TENSOR.VIEW.2), the run-time bounds check with a symbolic source, statically rejected
views, and the identity marker.

Oracles: numpy's own byte views of the inputs (``ndarray.view``), written independently of the
implementations, and values worked out by hand.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim

from case_helpers import module, module_body, rng_for, tensor, tup

CATEGORY = "op_memory"

FILL = '''
@T.prim_func
def fill(A: T.Buffer((2,), "int16")):
    for i in range(2):
        A[i] = T.int16(-1)
'''


def with_fill(body, params):
    """A module with the kernel ``fill`` (stores -1 into its argument) and an impure ``main(params)``
    running ``body``, which may call ``cls.fill(t)`` to write into a tensor in place."""
    text = module_body(params, body)
    head, rest = text.split("@I.ir_module\nclass Module:\n", 1)
    kernel = "\n".join("    " + ln if ln else ln for ln in FILL.strip("\n").split("\n"))
    rest = rest.replace("@R.function\n", "@R.function(pure=False)\n", 1)
    return head + "@I.ir_module\nclass Module:\n" + kernel + "\n\n" + rest.replace("):\n", "):\n        cls = Module\n", 1)


def view_cases():
    out = []
    tags = ["op:memory.view", "memory"]
    ids = ["OP.memory.view.C7", "VAL.TENSOR.VIEW.1"]
    x8 = (np.arange(8) + 256).astype("int16")
    out.append(Case("view_slice_at_byte_offset",
                    module([("x", tensor((8,), "int16"))],
                           'R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))',
                           tensor((2,), "int16")),
                    runs=[([x8], np.array([259, 260], "int16"))], spec=ids + ["OP.memory.view.C1", "OP.memory.view.C3"],
                    tags=tags, oracle="hand"))
    rng = rng_for("memory_view")
    xf = rng.standard_normal(6).astype("float32")
    out.append(Case("view_reinterpret_as_bytes",
                    module([("x", tensor((6,)))], 'R.memory.view(x, R.shape([24]), R.dtype("uint8"))',
                           tensor((24,), "uint8")),
                    runs=[([xf], xf.view("uint8"))], spec=ids, tags=tags))
    out.append(Case("view_keep_shape_smaller_dtype",
                    module([("x", tensor((2, 3)))], 'R.memory.view(x, dtype=R.dtype("int8"))', tensor((2, 3), "int8")),
                    runs=[([xf.reshape(2, 3)], xf.view("int8")[:6].reshape(2, 3))], spec=ids, tags=tags,
                    description="no shape: the source's shape with 1-byte elements covers its first 6 bytes"))
    out.append(Case("view_reshape_only",
                    module([("x", tensor((8,), "int16"))], "R.memory.view(x, [2, 4])", tensor((2, 4), "int16")),
                    runs=[([x8], x8.reshape(2, 4))], spec=ids, tags=tags))
    out.append(Case("view_misaligned_offset",
                    module([("x", tensor((8,), "int16"))],
                           'R.memory.view(x, R.shape([3]), R.dtype("int16"), R.prim_value(T.int64(3)))',
                           tensor((3,), "int16")),
                    runs=[([x8], x8.view("uint8")[3:9].copy().view("<i2"))], spec=ids, tags=tags + ["edge"],
                    description="an odd byte offset: the int16 elements straddle the source's elements"))
    body = ('v = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))\n'
            "y = v")
    out.append(Case("view_bounds_checked_at_run_time",
                    module_body([("x", tensor(("n",), "int16"))], body),
                    runs=[([x8], np.array([259, 260], "int16")), ([x8[:5].copy()], np.array([259, 260], "int16")),
                          Fails([x8[:4].copy()], "op_runtime")],
                    spec=["OP.memory.view.C6"], tags=tags + ["symbolic"],
                    description="bytes 6 to 9 exist for n = 8 and n = 5 (exactly), not for n = 4"))
    x64 = np.arange(64).astype("int16")
    body = ('b = R.add(x, R.const(0, "int16"))\n'
            'v = R.memory.view(b, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(64)))\n'
            'w = R.memory.view(b, dtype=R.dtype("uint8"))\n'
            "e = R.memory.ensure_zero_offset(v)\n"
            "u = cls.fill(e)\n"
            "y = (b, v, w)")
    after = x64.copy()
    after[32:34] = -1
    out.append(Case("view_in_place_write_is_shared", with_fill(body, [("x", tensor((64,), "int16"))]),
                    runs=[([x64], (after, np.array([-1, -1], "int16"), after.view("uint8")[:64].copy()))],
                    spec=["VAL.TENSOR.VIEW.2", "OP.memory.view.C7"], tags=tags + ["aliasing"],
                    description="writing -1 through the zero-offset form of the view changes the source's "
                                "elements 32 and 33, the view, and the bytes seen by the uint8 view of the source (byte "
                                "offset 64: ensure_zero_offset shares the storage)"))
    body = ('v = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))\n'
            "u = cls.fill(v)\n"
            "y = v")
    out.append(Case("view_at_offset_binds_no_buffer", with_fill(body, [("x", tensor((8,), "int16"))]),
                    runs=[Fails([x8], "shape_mismatch")], spec=["TIR.FUNC.7", "VAL.TENSOR.VIEW.1"],
                    tags=tags + ["aliasing", "invalid"], oracle="spec-rule",
                    description="a PrimFunc buffer of the default layout needs byte offset 0"))
    p = [("x", tensor((8,), "int16"))]
    for name, call, cid in (
            ("view_grows_element_size", 'R.memory.view(x, dtype=R.dtype("int32"))', "C5"),
            ("view_more_elements", "R.memory.view(x, [9])", "C5"),
            ("view_offset_past_end", 'R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(14)))',
             "C5"),
            ("view_offset_int32", 'R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int32(2)))',
             "C4"),
            ("view_shape_is_a_tensor", "R.memory.view(x, x)", "C2")):
        out.append(Invalid(name, module(p, call), "struct_info", spec=[f"OP.memory.view.{cid}"],
                           tags=tags + ["invalid"]))
    return out


def ensure_zero_offset_cases():
    out = []
    tags = ["op:memory.ensure_zero_offset", "memory"]
    x8 = (np.arange(8) + 256).astype("int16")
    body = ('v = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))\n'
            "e = R.memory.ensure_zero_offset(v)\n"
            "o = R.inspect.tensor_byte_offset(v)\n"
            "z = R.inspect.tensor_byte_offset(e)\n"
            "y = (e, o, z)")
    out.append(Case("ensure_zero_offset_of_view", module_body([("x", tensor((8,), "int16"))], body),
                    runs=[([x8], (np.array([259, 260], "int16"), Prim(6, "uint64"), Prim(0, "uint64")))],
                    spec=["OP.memory.ensure_zero_offset.C1", "VAL.TENSOR.VIEW.1"],
                    tags=tags + ["op:inspect.tensor_byte_offset"], oracle="hand"))
    xf = rng_for("ensure_zero_offset").standard_normal((2, 3)).astype("float32")
    out.append(Case("ensure_zero_offset_of_fresh_tensor",
                    module([("x", tensor((2, 3)))], "R.memory.ensure_zero_offset(x)", tensor((2, 3))),
                    runs=[([xf], xf)], spec=["OP.memory.ensure_zero_offset.C1"], tags=tags + ["edge"]))
    body = ('b = R.add(x, R.const(0, "int16"))\n'
            'v = R.memory.view(b, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(10)))\n'
            "e = R.memory.ensure_zero_offset(v)\n"
            "u = cls.fill(e)\n"
            "y = (b, v, e)")
    out.append(Case("ensure_zero_offset_copies_at_unaligned_offset",
                    with_fill(body, [("x", tensor((8,), "int16"))]),
                    runs=[([x8], (x8, x8[5:7].copy(), np.array([-1, -1], "int16")))],
                    spec=["VAL.TENSOR.VIEW.1", "OP.memory.ensure_zero_offset.C1"], tags=tags + ["aliasing"],
                    description="offset 10 is not a multiple of 64: the result is a copy, the write does not "
                                "reach the view or its source"))
    x96 = np.arange(96).astype("int16")
    body = body.replace("T.int64(10)", "T.int64(128)")
    after = x96.copy()
    after[64:66] = -1
    out.append(Case("ensure_zero_offset_shares_storage", with_fill(body, [("x", tensor((96,), "int16"))]),
                    runs=[([x96], (after, after[64:66].copy(), after[64:66].copy()))],
                    spec=["VAL.TENSOR.VIEW.2", "OP.memory.ensure_zero_offset.C1"], tags=tags + ["aliasing"],
                    description="offset 128 is a multiple of 64: a write through the zero-offset tensor reaches "
                                "the view and its source"))
    out.append(Case("ensure_zero_offset_of_non_tensor",
                    module([("s", "R.Object")], "R.memory.ensure_zero_offset(s)"),
                    runs=[Fails([Prim(3, "int64")], "op_runtime")], spec=["OP.memory.ensure_zero_offset.C2"],
                    tags=tags + ["invalid"], oracle="spec-rule"))
    return out


def stop_lift_params_cases():
    out = []
    tags = ["op:builtin.stop_lift_params", "memory"]
    rng = rng_for("stop_lift_params")
    x = rng.standard_normal((3, 2)).astype("float32")
    out.append(Case("stop_lift_params_identity",
                    module([("x", tensor((3, 2)))], "R.builtin.stop_lift_params(x)", tensor((3, 2))),
                    runs=[([x], x)], spec=["OP.builtin.stop_lift_params.C1"], tags=tags))
    body = ("with R.dataflow():\n"
            "    a = R.builtin.stop_lift_params(x)\n"
            "    b = R.multiply(a, a)\n"
            "    R.output(b)\n"
            "y = b")
    out.append(Case("stop_lift_params_symbolic_in_dataflow", module_body([("x", tensor(("n",), "int32"))], body),
                    runs=[([np.arange(n, dtype="int32")], np.arange(n, dtype="int32") ** 2) for n in (0, 5)],
                    spec=["OP.builtin.stop_lift_params.C1"], tags=tags + ["symbolic", "edge"]))
    out.append(Invalid("stop_lift_params_of_tuple", module([("x", tensor((2,)))], "R.builtin.stop_lift_params((x,))"),
                       "struct_info", spec=["OP.builtin.stop_lift_params.C1"], tags=tags + ["invalid"]))
    return out


def generate():
    return {CATEGORY: view_cases() + ensure_zero_offset_cases() + stop_lift_params_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_ops_memory"])

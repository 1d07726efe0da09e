"""The scalar-semantics family of the ``call_tir`` cases (gen_call_tir.py): one two-operand kernel
per rule, on fixed inputs (no random draws), with hand-written expected values."""

import numpy as np

from relax_conformance.gen import Case, Fails, module_text


def _binary_kernel(name: str, dtype: str, out_dtype: str, body: str) -> str:
    return module_text(f'''
        @T.prim_func
        def {name}(A: T.Buffer((T.int64(4),), "{dtype}"), B: T.Buffer((T.int64(4),), "{dtype}"), C: T.Buffer((T.int64(4),), "{out_dtype}")):
            for i in range(T.int64(4)):
                C[i] = {body}

        @R.function
        def main(x: R.Tensor((4,), "{dtype}"), y: R.Tensor((4,), "{dtype}")) -> R.Tensor((4,), "{out_dtype}"):
            cls = Module
            z = R.call_tir(cls.{name}, (x, y), out_sinfo=R.Tensor((4,), "{out_dtype}"))
            return z
    ''')


def scalar_edge_cases():
    """Scalar semantics at their edges: ordered float ``!=``, the overflowing quotient, shift amounts,
    bitwise intrinsics on bool (fixed inputs, no random draws)."""
    out = []
    a = np.array([np.nan, 1.0, 2.0, 5.0], "float32")
    b = np.array([1.0, np.nan, 2.0, 3.0], "float32")
    nan2 = np.array([np.nan, np.nan, 0.0, -0.0], "float32")
    zero2 = np.array([np.nan, 0.0, -0.0, 0.0], "float32")
    out.append(Case("float_not_equal_is_ordered", _binary_kernel("ne", "float32", "bool", "A[i] != B[i]"),
                    runs=[([a, b], np.array([False, False, False, True])),
                          ([nan2, zero2], np.array([False, False, False, False]))],
                    spec=["CALL.TIR.5", "PRIM.FLOAT.3"], tags=["call_tir", "float", "nan"],
                    description="a NaN operand makes != False, as TVM's ordered comparison; -0.0 equals 0.0"))
    lo = np.iinfo("int32").min
    ok_a, ok_b = np.array([lo, 7, -7, lo], "int32"), np.array([1, -1, 2, 2], "int32")
    out.append(Case("most_negative_floordiv_minus_one", _binary_kernel("fdiv", "int32", "int32", "A[i] // B[i]"),
                    runs=[([ok_a, ok_b], np.floor_divide(ok_a, ok_b)),
                          Fails([np.array([5, lo, 3, 4], "int32"), np.array([2, -1, 1, 1], "int32")], "op_runtime")],
                    spec=["CALL.TIR.5", "PRIM.INT.4", "PRIM.INT.2"], tags=["call_tir", "integer", "error"],
                    description="the quotient of the most negative int32 by -1 overflows: op_runtime"))
    x = np.array([1, 2, 3, -8], "int32")
    out.append(Case("shift_amount_out_of_range", _binary_kernel("shl", "int32", "int32", "T.shift_left(A[i], B[i])"),
                    runs=[([x, np.array([1, 31, 0, 2], "int32")], np.array([2, 0, 3, -32], "int32")),
                          Fails([x, np.array([1, 32, 0, 2], "int32")], "op_runtime"),
                          Fails([x, np.array([1, -1, 0, 2], "int32")], "op_runtime")],
                    spec=["CALL.TIR.5", "PRIM.INT.7", "PRIM.INT.1"], tags=["call_tir", "integer", "error"],
                    description="a shift amount outside [0, 32) is op_runtime; inside it wraps"))
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    out.append(Case("bool_bitwise_intrinsics",
                    _binary_kernel("bxor", "bool", "bool", "T.bitwise_xor(A[i], B[i]) | T.bitwise_not(A[i] | B[i])"),
                    runs=[([p, q], np.array([False, True, True, True]))],
                    spec=["CALL.TIR.5", "PRIM.INT.7", "TEXT.PRIM.3"], tags=["call_tir", "bool"],
                    description="bitwise intrinsics on bool, as in TVM's kernels for logical_xor"))
    return out

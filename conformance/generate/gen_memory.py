"""Memory planning observed: declared bounds of symbolic variables (``tir_var_upper_bound``,
``tir_var_lower_bound``, CALL.FUNC.7), tensors carved out of one storage object and aliasing its bytes
(CALL.ALLOC.2), and allocations that do not fit their storage (CALL.ALLOC.3) -- in the explicit form that
TVM's memory planning produces and that modules may also write by hand.

Oracles: NumPy restatements; for aliasing, the bytes of each tensor computed with ``ndarray.view`` over
one little-endian byte buffer; errors from the cited rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text, vector_kernel

RNG = np.random.default_rng(20240729)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def i64(v):
    return Prim(v, "int64")


DOUBLE_PLUS = '''
        @T.prim_func(s_tir=True)
        def dbl(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                with T.sblock("dbl"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = A[vi] * T.float32(2)

        @T.prim_func(s_tir=True)
        def inc(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                with T.sblock("inc"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = A[vi] + T.float32(1)
'''

PIPELINE = DOUBLE_PLUS + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({ATTRS})
            n = T.int64()
            cls = Module
            with R.dataflow():
                a = R.call_tir(cls.dbl, (x,), out_sinfo=R.Tensor((n,), "float32"))
                b = R.call_tir(cls.inc, (a,), out_sinfo=R.Tensor((n,), "float32"))
                c = R.call_tir(cls.dbl, (b,), out_sinfo=R.Tensor((n,), "float32"))
                R.output(c)
            return c
'''


def pipeline(x):
    return (x * 2 + 1) * 2


def bound_cases():
    out = []
    upper = module_text(PIPELINE.replace("ATTRS", '"tir_var_upper_bound": {"n": 4}'))
    runs = []
    for n in (0, 1, 3, 4):
        x = f32(n)
        runs.append(([x], pipeline(x)))
    out.append(Case("upper_bound_respected", upper, runs=runs,
                    spec=["CALL.FUNC.7", "CALL.FUNC.8", "EXPR.FUNC.3", "EVAL.OPT.3"],
                    tags=["symbolic", "memory", "bounds"],
                    description="n up to its declared upper bound 4: the bound changes nothing else"))
    runs = [Fails([f32(5)], "shape_mismatch", "n = 5 > 4"),
            Fails([f32(9)], "shape_mismatch", "n = 9 > 4"),
            Fails([f32(2000)], "shape_mismatch", "n = 2000 > 4")]
    out.append(Case("upper_bound_exceeded", upper, runs=runs,
                    spec=["CALL.FUNC.7", "CALL.FUNC.8", "DIV.33", "ERR.CONTENT.1"], oracle="spec-rule",
                    tags=["symbolic", "memory", "bounds", "check"],
                    description="a call beyond the declared bound fails at the parameter check, before any "
                                "storage planned for the bound could be overrun"))
    both = module_text(PIPELINE.replace("ATTRS", '"tir_var_lower_bound": {"n": 2}, "tir_var_upper_bound": {"n": 5}'))
    runs = []
    for n in (2, 3, 5):
        x = f32(n)
        runs.append(([x], pipeline(x)))
    runs += [Fails([f32(0)], "shape_mismatch", "n = 0 < 2"), Fails([f32(1)], "shape_mismatch", "n = 1 < 2"),
             Fails([f32(6)], "shape_mismatch", "n = 6 > 5")]
    out.append(Case("lower_and_upper_bounds", both, runs=runs,
                    spec=["CALL.FUNC.7", "EXPR.FUNC.3"], tags=["symbolic", "memory", "bounds", "check"],
                    description="n must lie in [2, 5]"))
    prim = module_text('''
        @R.function
        def halves(k: R.Prim(value="n"), x: R.Tensor(("n * 2",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({"tir_var_upper_bound": {"n": 8}})
            n = T.int64()
            y = R.reshape(x, R.shape([2, n]))
            z = R.sum(y, axis=[0])
            return z
    ''')
    runs = []
    for n in (0, 1, 5, 8):
        x = f32(2 * n)
        runs.append(([i64(n), x], x[:n] + x[n:]))
    runs += [Fails([i64(9), f32(18)], "value_mismatch", "n = 9 > 8, defined by the prim value"),
             Fails([i64(9), f32(17)], "shape_mismatch", "17 != 2 * 9: the parameter check fails first")]
    out.append(Case("upper_bound_of_a_prim_defined_variable", prim, entry="halves", runs=runs,
                    spec=["CALL.FUNC.7", "CALL.FUNC.8", "CALL.FUNC.2", "SI.SYM.2"],
                    tags=["symbolic", "memory", "bounds", "check", "prim"],
                    description="n is defined by R.Prim(value=n), so a value over the bound is a value_mismatch; "
                                "the bounds are checked after the whole parameter check"))
    inner = module_text('''
        @R.function
        def tail(y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({"tir_var_upper_bound": {"n": 6}})
            z = R.negative(y)
            return z

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
            cls = Module
            d = R.concat((x, x), axis=0)
            r = cls.tail(d)
            return r
    ''')
    runs = []
    for m in (0, 1, 3):
        x = f32(m)
        runs.append(([x], -np.concatenate([x, x])))
    runs += [Fails([f32(4)], "shape_mismatch", "tail's n = 8 > 6"), Fails([f32(7)], "shape_mismatch", "n = 14")]
    out.append(Case("bound_checked_on_an_inner_call", inner, runs=runs,
                    spec=["CALL.FUNC.7", "CALL.FUNC.3", "SI.CALL.4"], tags=["symbolic", "memory", "bounds", "call"],
                    description="the callee's bound is checked on every call, not only from the host"))
    shape = module_text('''
        @R.function
        def main(s: R.Shape(["n", "m"]), x: R.Tensor(("n * m",), "float32")) -> R.Tensor(("m", "n"), "float32"):
            R.func_attr({"tir_var_upper_bound": {"m": 3, "q": 0}})
            n = T.int64()
            m = T.int64()
            q = T.int64()
            y = R.reshape(x, R.shape([n, m]))
            z = R.permute_dims(y, axes=[1, 0])
            w = R.match_cast(z, R.Tensor((q, n), "float32"))
            return w
    ''')
    runs = []
    for n, m in ((0, 3), (5, 1), (2, 3), (9, 0)):
        x = f32(n * m)
        runs.append(([Shape([n, m]), x], x.reshape(n, m).T.copy()))
    runs += [Fails([Shape([1, 4]), f32(4)], "shape_mismatch", "m = 4 > 3")]
    out.append(Case("bounds_apply_to_signature_variables_only", shape, runs=runs,
                    spec=["CALL.FUNC.7", "EXPR.FUNC.3", "EVAL.MATCHCAST.2"],
                    tags=["symbolic", "memory", "bounds", "shape"],
                    description="m, defined by the shape parameter, is bounded; q, defined by a match_cast, is "
                                "not, although the attribute names it"))
    return out + bound_attribute_cases()


def bound_attribute_cases():
    """Declared bounds that are not int64 integers: refused when the module is loaded (WF.ATTR.1)."""
    out = []
    bad = module_text(PIPELINE.replace("ATTRS", '"tir_var_upper_bound": {"n": "many"}'))
    out.append(Invalid("bound_attribute_is_not_an_integer", bad, "well_formed",
                       spec=["WF.ATTR.1", "CALL.FUNC.7"], tags=["memory", "bounds"],
                       description="a declared bound must be an integer"))
    huge = module_text(PIPELINE.replace("ATTRS", '"tir_var_upper_bound": {"n": 9223372036854775808}'))
    out.append(Invalid("bound_attribute_outside_int64", huge, "well_formed",
                       spec=["WF.ATTR.1", "CALL.FUNC.7"], tags=["memory", "bounds", "limits"],
                       description="a declared bound is an int64: 2**63 is refused before any call reads it"))
    return out


def planned_cases():
    """Modules in the form memory planning gives them: storage sized for a bound, tensors carved out."""
    out = []
    planned = "\n" + vector_kernel("dbl", 'B[i] = A[i] * T.float32(2)') + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            ATTRS
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            cls.dbl(x, t)
            u = R.builtin.alloc_tensor(R.shape([n]), R.dtype("float32"), R.prim_value(0), R.str("global"))
            cls.dbl(t, u)
            k = R.memory.kill_storage(s)
            return u
    '''
    runs = []
    for n in (0, 1, 4):
        x = f32(n)
        runs.append(([x], x * 4))
    with_bound = module_text(planned.replace("ATTRS", 'R.func_attr({"tir_var_upper_bound": {"n": 4}})'))
    out.append(Case("planned_storage_guarded_by_the_bound", with_bound,
                    runs=runs + [Fails([f32(5)], "shape_mismatch", "the bound fails before the storage overflows")],
                    spec=["CALL.FUNC.7", "CALL.FUNC.8", "CALL.ALLOC.1", "CALL.ALLOC.2", "EVAL.OPT.1",
                          "CALL.PRIMFUNC.1"],
                    tags=["symbolic", "memory", "bounds", "op:memory.alloc_storage", "op:memory.alloc_tensor"],
                    description="16 bytes hold n <= 4 float32 elements; n = 5 is rejected by the bound, not by "
                                "an overflowing allocation"))
    no_bound = module_text(planned.replace("            ATTRS\n", ""))
    out.append(Case("planned_storage_without_a_bound_overflows", no_bound,
                    runs=runs + [Fails([f32(5)], "op_runtime", "20 bytes do not fit in 16"),
                                 Fails([f32(1025)], "op_runtime", "4100 bytes do not fit in 16")],
                    spec=["CALL.ALLOC.3", "CALL.ALLOC.2", "DIV.34", "OP.memory.alloc_tensor.C2"],
                    tags=["symbolic", "memory", "op:memory.alloc_storage", "op:memory.alloc_tensor"],
                    description="without the bound, n = 5 reaches the allocation, which does not fit"))
    return out


def _bytes_of(*pieces):
    return b"".join(np.asarray(p).tobytes() for p in pieces)


def storage_overlap_cases():
    out = []
    overlap = module_text("\n" + vector_kernel("fill", 'B[i] = A[i] + T.float32(1)') + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            t2 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            cls.fill(x, t1)
            r = (t1, t2)
            return r
    ''')
    runs = []
    for n in (0, 1, 5):
        x = f32(n)
        runs.append(([x], (x + 1, x + 1)))
    out.append(Case("storage_tensors_share_their_bytes", overlap, runs=runs,
                    spec=["CALL.ALLOC.2", "EVAL.ALIAS.1", "OP.memory.alloc_storage.C1", "OP.memory.alloc_tensor.C1",
                          "OP.memory.alloc_tensor.C2"],
                    tags=["symbolic", "memory", "aliasing", "op:memory.alloc_storage", "op:memory.alloc_tensor"],
                    description="two tensors over the same n * 4 bytes: writing one shows in the other"))
    partial = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            s = R.memory.alloc_storage(R.shape([24]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"))
            t2 = R.memory.alloc_tensor(s, R.prim_value(8), R.shape([4]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, t1, sinfo_args=R.Object)
            v = R.call_packed("conformance.add_dps", y, y, t2, sinfo_args=R.Object)
            r = (t1, t2)
            return r
    ''')
    x, y = f32(4), f32(4)
    buf = np.zeros(24, np.uint8)
    buf[0:16] = np.frombuffer((x + x).tobytes(), np.uint8)
    buf[8:24] = np.frombuffer((y + y).tobytes(), np.uint8)
    out.append(Case("storage_tensors_overlap_in_part", partial,
                    runs=[([x, y], (buf[0:16].view("<f4").copy(), buf[8:24].view("<f4").copy()))],
                    spec=["CALL.ALLOC.2", "CALL.PACKED.5", "EVAL.ALIAS.1"],
                    tags=["memory", "aliasing", "op:memory.alloc_tensor", "packed"],
                    description="t2 starts 8 bytes into t1: writing t2 overwrites t1's last two elements"))
    odd = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((12,), "uint8")):
            s = R.memory.alloc_storage(R.shape([13]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t = R.memory.alloc_tensor(s, R.prim_value(1), R.shape([3]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, t, sinfo_args=R.Object)
            b = R.memory.alloc_tensor(s, R.prim_value(1), R.shape([12]), R.dtype("uint8"))
            r = (t, b)
            return r
    ''')
    x3 = f32(3)
    b12 = np.frombuffer((x3 + x3).astype("<f4").tobytes(), np.uint8).copy()
    out.append(Case("storage_offset_needs_no_alignment", odd, runs=[([x3], (x3 + x3, b12))],
                    spec=["CALL.ALLOC.2", "TIR.BUF.5"], tags=["memory", "aliasing", "op:memory.alloc_tensor"],
                    oracle="numpy-formula",
                    description="a float32 tensor at byte offset 1; a uint8 view of the same 12 bytes shows "
                                "its little-endian bytes (byte 0, never written, is not read)"))
    handle = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((12,), "uint8"):
            s = R.memory.alloc_storage(R.shape([13]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            b = R.memory.alloc_tensor(s, R.prim_value(1), R.shape([12]), R.dtype("handle"))
            return b
    ''')
    out.append(Invalid("alloc_tensor_of_dtype_handle", handle, "struct_info",
                       spec=["VAL.DTYPE.4", "OP.memory.alloc_tensor.C2"],
                       tags=["memory", "op:memory.alloc_tensor"],
                       description="handle is no tensor's element type, for an allocation as for an annotation"))
    bytes_view = module_text('''
        @T.prim_func
        def put(A: T.Buffer((T.int64(2),), "int32"), B: T.Buffer((T.int64(2),), "int32")):
            for i in range(T.int64(2)):
                B[i] = A[i]

        @R.function(pure=False)
        def main(x: R.Tensor((2,), "int32")) -> R.Tuple(R.Tensor((8,), "uint8"), R.Tensor((2,), "int16"), R.Tensor((1,), "int64")):
            cls = Module
            s = R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([2]), R.dtype("int32"))
            cls.put(x, t)
            u8 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([8]), R.dtype("uint8"))
            i16 = R.memory.alloc_tensor(s, R.prim_value(2), R.shape([2]), R.dtype("int16"))
            i64 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([1]), R.dtype("int64"))
            r = (u8, i16, i64)
            return r
    ''')
    runs = []
    for v in ([1, -2], [65537, 2147483647], [0, -1]):
        xi = np.array(v, "<i4")
        raw = np.frombuffer(xi.tobytes(), np.uint8).copy()
        runs.append(([xi.astype("int32")], (raw, raw[2:6].view("<i2").astype("int16"), raw.view("<i8").astype("int64"))))
    out.append(Case("storage_bytes_read_as_other_dtypes", bytes_view, runs=runs,
                    spec=["CALL.ALLOC.2", "VAL.DTYPE.7", "EVAL.DTYPE.1"],
                    tags=["memory", "aliasing", "op:memory.alloc_tensor"],
                    description="int32 elements written, then read back as bytes, as int16 from byte 2 and as "
                                "one int64 (little-endian)"))
    return out


def storage_reuse_cases():
    out = []
    later = module_text("\n" + vector_kernel("fill", 'B[i] = A[i] * A[i]') + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            cls.fill(x, t)
            k = R.memory.kill_tensor(t)
            u = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            return u
    ''')
    runs = []
    for n in (0, 1, 6):
        x = f32(n)
        runs.append(([x], x * x))
    out.append(Case("storage_tensor_allocated_later_sees_written_bytes", later, runs=runs,
                    spec=["CALL.ALLOC.2", "CALL.ALLOC.1", "OP.memory.kill_tensor.C1"],
                    tags=["symbolic", "memory", "aliasing", "op:memory.alloc_tensor", "op:memory.kill_tensor"],
                    description="t is killed and u allocated over the same bytes: u shows what was written "
                                "through t (a kill has no effect on evaluation)"))
    disjoint = module_text("\n" + vector_kernel("fill", 'B[i] = A[i] - T.float32(3)') + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 8]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            t2 = R.memory.alloc_tensor(s, R.prim_value(n * 4), R.shape([n]), R.dtype("float32"))
            cls.fill(x, t1)
            u = R.call_packed("conformance.add_dps", y, y, t2, sinfo_args=R.Object)
            r = (t1, t2)
            return r
    ''')
    runs = []
    for n in (0, 1, 5):
        x, y = f32(n), f32(n)
        runs.append(([x, y], (x - 3, y + y)))
    out.append(Case("storage_disjoint_tensors_are_independent", disjoint, runs=runs,
                    spec=["CALL.ALLOC.2", "EVAL.PRIM.1"], tags=["symbolic", "memory", "op:memory.alloc_tensor"],
                    description="t2 starts at the symbolic offset n * 4, right after t1"))
    at_offset = module_text("\n" + vector_kernel("fill", 'B[i] = A[i] + T.float32(0.5)') + '''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n + 1",), "float32")):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 4 + 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            z = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([1]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", R.const([1.5], "float32"), R.const([1.0], "float32"), z, sinfo_args=R.Object)
            t = R.memory.alloc_tensor(s, R.prim_value(4), R.shape([n]), R.dtype("float32"))
            cls.fill(x, t)
            w = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n + 1]), R.dtype("float32"))
            r = (t, w)
            return r
    ''')
    runs = []
    for n in (0, 1, 5):
        x = f32(n)
        runs.append(([x], (x + 0.5, np.concatenate([np.array([2.5], "float32"), x + 0.5]))))
    out.append(Case("storage_tensor_at_an_offset_in_a_primfunc", at_offset, runs=runs,
                    spec=["CALL.ALLOC.2", "TIR.FUNC.2", "DIV.35"],
                    tags=["symbolic", "memory", "aliasing", "op:memory.alloc_tensor"],
                    description="a PrimFunc writes a tensor that starts 4 bytes into its storage; a tensor over "
                                "the whole storage shows the element before it and the written ones"))
    return out


def storage_cases():
    return storage_overlap_cases() + storage_reuse_cases()


def overflow_cases():
    out = []
    offset = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            s = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t = R.memory.alloc_tensor(s, R.prim_value(12), R.shape([n]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, t, sinfo_args=R.Object)
            return t
    ''')
    runs = []
    for n in (0, 1, 5):
        x = f32(n)
        runs.append(([x], x + x))
    runs += [Fails([f32(6)], "op_runtime", "12 + 24 > 32"), Fails([f32(9)], "op_runtime", "12 + 36 > 32")]
    out.append(Case("storage_overflow_at_an_offset", offset, runs=runs,
                    spec=["CALL.ALLOC.3", "DIV.34", "OP.memory.alloc_tensor.C2"],
                    tags=["symbolic", "memory", "op:memory.alloc_tensor"],
                    description="20 bytes are left after offset 12: up to 5 float32 elements fit"))
    edge = module_text('''
        @R.function(pure=False)
        def main(p: R.Prim(value="k")) -> R.Tensor((0,), "float32"):
            k = T.int64()
            s = R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t = R.memory.alloc_tensor(s, R.prim_value(k), R.shape([0]), R.dtype("float32"))
            return t
    ''')
    runs = [([i64(k)], np.zeros(0, "float32")) for k in (0, 3, 8)]
    runs += [Fails([i64(9)], "op_runtime", "offset 9 > 8"), Fails([i64(-1)], "op_runtime", "a negative offset")]
    out.append(Case("storage_empty_tensor_fits_up_to_the_end", edge, runs=runs,
                    spec=["CALL.ALLOC.3", "OP.memory.alloc_tensor.C2"],
                    tags=["symbolic", "memory", "empty", "op:memory.alloc_tensor"],
                    description="a tensor of 0 elements fits at any offset in [0, 8]"))
    return out


def storage_object_cases():
    out = []
    tup = module_text("\n" + vector_kernel("fill", 'B[i] = A[i] * T.float32(-1)') + '''
        @R.function(pure=False)
        def carve(s: R.Object, shape: R.Shape(["n"])) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            return t

        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            pair = (s, x)
            s2 = pair[0]
            t = cls.carve(s2, R.shape([n]))
            cls.fill(x, t)
            u = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            return u
    ''')
    runs = []
    for n in (0, 1, 4):
        x = f32(n)
        runs.append(([x], -x))
    out.append(Case("storage_object_in_a_tuple_and_a_call", tup, runs=runs,
                    spec=["VAL.OBJ.1", "CALL.ALLOC.2", "SI.OBJ.1", "EVAL.CHECK.2"],
                    tags=["symbolic", "memory", "aliasing", "tuple", "call"],
                    description="a storage object is an opaque value: it goes into a tuple and through an "
                                "R.Object parameter, and stays the same storage"))
    cast = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            s = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            t = R.match_cast(s, R.Tensor((n,), "float32"))
            return t
    ''')
    out.append(Case("storage_object_is_not_a_tensor", cast,
                    runs=[Fails([f32(4)], "type_mismatch", "a storage object matched against R.Tensor"),
                          Fails([f32(0)], "type_mismatch")],
                    spec=["VAL.OBJ.1", "EVAL.MATCHCAST.1", "EVAL.CHECK.2", "NORM.MATCHCAST.2"], oracle="spec-rule",
                    tags=["memory", "match_cast", "op:memory.alloc_storage"],
                    description="alloc_storage has struct info R.Object, so the match_cast is accepted "
                                "statically (L1) and fails at run time"))
    vm = module_text('''
        @T.prim_func
        def fill(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int32")
            B = T.match_buffer(b, (n,), "int32")
            for i in range(n):
                B[i] = A[i] * T.int32(3)

        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int32"), R.Tensor(("n",), "int32")):
            n = T.int64()
            cls = Module
            s = R.vm.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.dtype("uint8"))
            t = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
            u = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
            cls.fill(x, t)
            k = R.vm.kill_object(s)
            r = (t, u)
            return r
    ''')
    runs = []
    for n in (0, 1, 3):
        x = RNG.integers(-100, 100, n).astype("int32")
        runs.append(([x], ((x * 3).astype("int32"), (x * 3).astype("int32"))))
    out.append(Case("vm_storage_tensors_share_their_bytes", vm, runs=runs,
                    spec=["CALL.ALLOC.2", "CALL.ALLOC.1", "OP.vm.alloc_storage.C1", "OP.vm.alloc_tensor.C1",
                          "OP.vm.alloc_tensor.C2", "OP.vm.kill_object.C1"],
                    tags=["symbolic", "memory", "aliasing", "op:vm.alloc_storage", "op:vm.alloc_tensor"],
                    description="the vm.* allocation operators alias like the memory.* ones"))
    kinds = module_text('''
        @R.function(pure=False)
        def main(v: R.Tensor((2,), "float32")) -> R.Object:
            s = R.vm.alloc_storage(R.shape([16]), v, R.dtype("uint8"))
            return s
    ''')
    out.append(Case("vm_alloc_storage_tensor_device_index", kinds,
                    runs=[Fails([np.ones(2, "float32")], "type_mismatch")],
                    spec=["CALL.ALLOC.2", "OP.INFER.3", "OP.vm.alloc_storage.C1"],
                    tags=["memory", "runtime", "op:vm.alloc_storage"],
                    description="the device index is not checked statically; a tensor there is a type mismatch "
                                "before anything is allocated"))
    return out


def dtype_value_cases():
    out = []
    dtype_value = module_text('''
        @T.prim_func
        def fill(b: T.handle):
            n = T.int64()
            B = T.match_buffer(b, (n,), "int16")
            for i in range(n):
                B[i] = T.Cast("int16", i) * T.int16(-7)

        @R.function(pure=False)
        def main(s: R.Shape(["n"])) -> R.Tensor(("n",), "int16"):
            n = T.int64()
            cls = Module
            t = R.builtin.alloc_tensor(R.shape([n]), R.dtype("int16"), R.prim_value(0), R.str("global"))
            cls.fill(t)
            return t
    ''')
    runs = [([Shape([n])], (np.arange(n) * -7).astype("int16")) for n in (0, 1, 5)]
    out.append(Case("data_type_value_names_the_allocated_dtype", dtype_value, runs=runs,
                    spec=["EVAL.DTYPE.1", "VAL.DTYPE.7", "CALL.ALLOC.1", "OP.builtin.alloc_tensor.C1",
                          "OP.builtin.alloc_tensor.C2"],
                    tags=["symbolic", "memory", "op:builtin.alloc_tensor"],
                    description="the argument R.dtype(\"int16\") evaluates to a data-type value, which the "
                                "allocation uses"))
    return out


def object_cases():
    return storage_object_cases() + dtype_value_cases()


def storage_layout_and_more_bounds_cases():
    out = []
    bits = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "int32"):
            n = T.int64()
            s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            f = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, f, sinfo_args=R.Object)
            i = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
            return i
    ''')
    runs = []
    for v in ([], [0.5], [1.0, -2.0, 0.0], [3.25, -0.125, 1e-30, 7.0, -1e30]):
        x = np.array(v, "float32")
        runs.append(([x], (x + x).view("int32").copy()))
    out.append(Case("storage_float_bits_read_as_int32", bits, runs=runs,
                    spec=["CALL.ALLOC.2", "VAL.DTYPE.1"], tags=["symbolic", "memory", "aliasing"],
                    description="float32 elements written, read through an int32 tensor over the same bytes: "
                                "their IEEE-754 bit patterns"))
    size = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            s = R.memory.alloc_storage(R.shape([8]), R.prim_value(0), R.str("global"), R.dtype("float64"))
            t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, t, sinfo_args=R.Object)
            return t
    ''')
    runs = []
    for n in (0, 1, 2):
        x = f32(n)
        runs.append(([x], x + x))
    runs += [Fails([f32(3)], "op_runtime", "12 bytes do not fit in 8"), Fails([f32(8)], "op_runtime")]
    out.append(Case("storage_size_is_in_bytes", size, runs=runs,
                    spec=["CALL.ALLOC.2", "CALL.ALLOC.3", "OP.memory.alloc_storage.C1"],
                    tags=["symbolic", "memory", "op:memory.alloc_storage"],
                    description="R.shape([8]) with dtype float64 is 8 bytes, not 8 elements: two float32 fit"))
    boolean = module_text('''
        @T.prim_func
        def mark(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "int32")
            B = T.match_buffer(b, (n,), "bool")
            for i in range(n):
                B[i] = A[i] > T.int32(0)

        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "uint8"):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n]), R.prim_value(0), R.str("global"), R.dtype("bool"))
            b = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("bool"))
            cls.mark(x, b)
            u = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("uint8"))
            return u
    ''')
    runs = []
    for v in ([], [5], [-1, 0, 3, 2, -7]):
        x = np.array(v, "int32")
        runs.append(([x], (x > 0).astype("uint8")))
    out.append(Case("storage_bool_elements_are_bytes", boolean, runs=runs,
                    spec=["CALL.ALLOC.2", "VAL.DTYPE.1"], tags=["symbolic", "memory", "aliasing"],
                    description="a bool element occupies one byte holding 0 or 1"))
    two = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("m", "n"), "float32"):
            R.func_attr({"tir_var_upper_bound": {"n": 3, "m": 2}})
            y = R.permute_dims(x, axes=[1, 0])
            return y
    ''')
    runs = []
    for n, m in ((0, 0), (3, 2), (1, 0), (2, 1)):
        x = f32(n, m)
        runs.append(([x], x.T.copy()))
    runs += [Fails([f32(4, 1)], "shape_mismatch", "n = 4 > 3"), Fails([f32(1, 3)], "shape_mismatch", "m = 3 > 2"),
             Fails([f32(4, 3)], "shape_mismatch", "both over their bounds")]
    out.append(Case("upper_bounds_of_two_variables", two, runs=runs,
                    spec=["CALL.FUNC.7", "EXPR.FUNC.3"], tags=["symbolic", "memory", "bounds", "check"]))
    tup = module_text('''
        @R.function
        def main(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Shape(["k"])))) -> R.Tensor(("n",), "float32"):
            R.func_attr({"tir_var_lower_bound": {"k": 1}})
            x = t[0]
            y = R.add(x, x)
            return y
    ''')
    runs = []
    for n, k in ((0, 1), (2, 5), (3, 1)):
        x = f32(n)
        runs.append(([(x, (Shape([k]),))], x + x))
    runs += [Fails([(f32(2), (Shape([0]),))], "shape_mismatch", "k = 0 < 1")]
    out.append(Case("lower_bound_of_a_variable_inside_a_tuple", tup, runs=runs,
                    spec=["CALL.FUNC.7", "SI.SYM.1"], tags=["symbolic", "memory", "bounds", "tuple", "check"],
                    description="a lower bound alone, on a variable defined inside a nested tuple parameter"))
    return out


def local_bounds_and_pure_aliasing_cases():
    out = []
    local = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
            @R.function
            def dup(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k * 2",), "float32"):
                R.func_attr({"tir_var_upper_bound": {"k": 4}})
                w = R.concat((v, v), axis=0)
                return w
            y = dup(x)
            return y
    ''')
    runs = []
    for n in (0, 1, 4):
        x = f32(n)
        runs.append(([x], np.concatenate([x, x])))
    runs += [Fails([f32(5)], "shape_mismatch", "dup's k = 5 > 4")]
    out.append(Case("bound_of_a_local_function", local, runs=runs,
                    spec=["CALL.FUNC.7", "CALL.CLOSURE.1", "EXPR.FUNC.3"], tags=["symbolic", "memory", "bounds", "closure"],
                    description="a local function declares its own bound, checked when it is called"))
    pure = ("\n" + vector_kernel("copy_into", 'A[i] = B[i]') + "\n" + vector_kernel("add_into", 'A[i] = A[i] + B[i]')
            + '''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("m",), "float32")):
            n = T.int64()
            cls = Module
            s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
            t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
            t2 = R.memory.alloc_tensor(s, R.prim_value(@OFF@), R.shape([@M@]), R.dtype("float32"))
            u = R.call_tir_inplace(cls.copy_into, (t1, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
            v = R.call_tir_inplace(cls.add_into, (t2, t2), inplace_indices=[0], out_sinfo=R.Tensor((@M@,), "float32"))
            r = (u, v)
            return r
    ''')
    runs = []
    for n in (0, 1, 5):
        x = f32(n)
        runs.append(([x], (x + x, x + x)))
    out.append(Case("storage_aliasing_in_a_pure_function",
                    module_text(pure.replace("@OFF@", "0").replace("@M@", "n").replace('R.Tensor(("m",)', 'R.Tensor(("n",)')),
                    runs=runs, spec=["CALL.ALLOC.2", "CALL.INPLACE.4", "EVAL.ALIAS.1"],
                    tags=["symbolic", "memory", "aliasing", "inplace"],
                    description="two tensors over one storage, written by call_tir_inplace in a pure function: "
                                "t1 receives x, then t2 (the same bytes) is doubled in place, which t1 shows"))
    runs = []
    for n in (2, 3, 6):
        x = f32(n)
        w = x.copy()
        w[2:] = w[2:] * 2
        runs.append(([x], (w, w[2:].copy())))
    out.append(Case("storage_partial_aliasing_in_a_pure_function",
                    module_text(pure.replace("@OFF@", "8").replace("@M@", "n - 2").replace('R.Tensor(("m",)', 'R.Tensor(("n - 2",)')),
                    runs=runs + [Fails([f32(1)], "shape_mismatch", "n - 2 = -1")],
                    spec=["CALL.ALLOC.2", "CALL.INPLACE.4", "EVAL.SHAPE.2", "DIV.35"],
                    tags=["symbolic", "memory", "aliasing", "inplace"],
                    description="t2 covers t1's elements from index 2 on: doubling t2 in place doubles them in t1"))
    return out


def more_cases():
    return storage_layout_and_more_bounds_cases() + local_bounds_and_pure_aliasing_cases()


def generate():
    return {"memory": bound_cases() + planned_cases() + storage_cases() + overflow_cases() + object_cases()
            + more_cases()}

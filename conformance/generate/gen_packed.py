"""Packed functions: ``R.call_dps_packed``, ``R.call_packed``, ``R.call_pure_packed``,
``R.call_inplace_packed``; and the packed functions TVM's lowering passes leave in Relax modules
(``VMShapeLower``'s shape heap and checks, ``LegalizeOps``' ``relax.run.*``, ``invoke_closure`` with
the VM context), written here in the form those passes print.

Only the conformance packed functions of CALL.PACKED.5 are called; their meaning is restated here as
NumPy formulas. A missing function, a failing one, or a call outside a function's domain must give
``packed_func``.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import f32_sampler

RNG = np.random.default_rng(20240607)
PK = ["VAL.PACKED.1", "VAL.PACKED.2", "CALL.PACKED.1", "CALL.PACKED.5"]

f32 = f32_sampler(RNG)


def packed_call_cases(a3, b3, a6, b6):
    """call_dps_packed, call_packed, call_pure_packed, identity and call_inplace_packed."""
    out = []
    dps = module_text('''
        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            y = R.call_dps_packed("conformance.add_dps", (a, b), out_sinfo=R.Tensor((n,), "float32"))
            return y
    ''')
    out.append(Case("call_dps_packed", dps, runs=[([a3, b3], a3 + b3), ([a6, b6], a6 + b6)],
                    spec=PK + ["CALL.DPS.1", "CALL.DPS.2", "CALL.PACKED.7"], tags=["packed", "dps"]))
    dps_int = module_text('''
        @R.function
        def main(x: R.Tensor((2, 2), "int32")) -> R.Tensor((2, 2), "int32"):
            with R.dataflow():
                y = R.call_dps_packed("conformance.add_dps", (x, x), out_sinfo=R.Tensor((2, 2), "int32"))
                z = R.add(y, x)
                R.output(z)
            return z
    ''')
    i22 = RNG.integers(-9, 9, (2, 2)).astype("int32")
    out.append(Case("call_dps_packed_in_dataflow", dps_int, runs=[([i22], i22 * 3)],
                    spec=PK + ["CALL.DPS.2", "EXPR.DATAFLOW.1", "EXPR.PURITY.4"], tags=["packed", "dps", "dataflow"]))
    call_packed = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Shape(ndim=2)):
            n = T.int64()
            y = R.call_packed("conformance.add", x, x, sinfo_args=R.Tensor((n,), "float32"))
            s = R.call_packed("conformance.identity", R.shape([n, 2]), sinfo_args=R.Shape(ndim=2))
            return (y, s)
    ''')
    out.append(Case("call_packed", call_packed, runs=[([a3], (a3 + a3, Shape([3, 2])))],
                    spec=PK + ["CALL.PACKED.2", "EXPR.PURITY.1", "EXPR.EXTERN.1", "NORM.GLOBAL.3"], tags=["packed", "impure"]))
    pure_packed = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                s = R.call_pure_packed("conformance.add", x, y, sinfo_args=R.Tensor((2, 3), "float32"))
                z = R.multiply(s, x)
                R.output(z)
            return z
    ''')
    g, h = f32(2, 3), f32(2, 3)
    out.append(Case("call_pure_packed_in_dataflow", pure_packed, runs=[([g, h], (g + h) * g)],
                    spec=PK + ["CALL.PACKED.4", "EXPR.DATAFLOW.1"], tags=["packed", "dataflow"]))
    identity = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")):
            y = R.call_pure_packed("conformance.identity", x, sinfo_args=R.Tensor((3,), "float32"))
            return (x, y)
    ''')
    out.append(Case("identity", identity, runs=[([a3], (a3, a3))], spec=PK + ["CALL.PACKED.4"],
                    tags=["packed"], oracle="hand"))
    inplace = module_text('''
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = R.call_inplace_packed("conformance.add_inplace", a, b, inplace_indices=[0], sinfo_args=R.Tensor((4,), "float32"))
            return y
    ''')
    p4, q4 = f32(4), f32(4)
    out.append(Case("call_inplace_packed", inplace, runs=[([p4, q4], p4 + q4)],
                    spec=PK + ["CALL.IPACKED.1", "EVAL.ALIAS.1"], tags=["packed", "inplace"]))
    return out


def packed_failure_cases(a3, b3):
    """Inputs outside a function's domain, missing and raising functions, checked results."""
    out = []
    domain = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            z = R.call_packed("conformance.add", x, y, sinfo_args=R.Tensor(ndim=1, dtype="float32"))
            return z
    ''')
    out.append(Case("outside_domain", domain,
                    runs=[([a3, b3], a3 + b3), Fails([a3, f32(4)], "packed_func", "shapes (3,) and (4,)")],
                    spec=PK + ["CALL.PACKED.3"], tags=["packed", "error"]))
    missing = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_packed("conformance.not_registered", x, sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("missing_function", missing, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["EVAL.EXTERN.1", "CALL.PACKED.3"], tags=["packed", "error"], oracle="spec-rule"))
    failing = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_packed("conformance.fail", x, sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("function_raises", failing, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["CALL.PACKED.3"], tags=["packed", "error"], oracle="spec-rule"))
    missing_dps = module_text('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.call_dps_packed("conformance.not_registered", (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''')
    out.append(Case("missing_dps_function", missing_dps, runs=[Fails([a3], "packed_func")],
                    spec=PK + ["CALL.DPS.2", "EVAL.EXTERN.1"], tags=["packed", "dps", "error"],
                    oracle="spec-rule"))
    result_checked = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
            y = R.call_pure_packed("conformance.identity", x, sinfo_args=R.Tensor((4,), "float32"))
            return y
    ''')
    r4 = f32(4)
    out.append(Case("declared_result_is_checked", result_checked,
                    runs=[([r4], r4), Fails([a3], "shape_mismatch", "the packed function returns a (3,) tensor")],
                    spec=PK + ["EVAL.CALL.3", "DIV.19"], tags=["packed", "check"],
                    description="a packed call's sinfo_args are checked against the value it returns"))
    return out


SH = ["CALL.SHAPEHEAP.1", "CALL.SHAPEHEAP.2", "CALL.SHAPEHEAP.3", "CALL.PACKED.6"]


def shape_heap_cases():
    """VMShapeLower's functions: the heap written and read by every code, the checks' error kinds."""
    out = []
    heap = module_text('''
        @T.prim_func(private=True)
        def twice(H: T.Buffer((T.int64(3),), "int64")):
            H[T.int64(2)] = H[T.int64(0)] * T.int64(2)

        @R.function(pure=False)
        def main(x: R.Tensor, k: R.Prim("int64"), y: R.Tensor):
            cls = Module
            heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(3),),
                                           sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
            R.call_packed("vm.builtin.check_tensor_info", x, R.prim_value(2), R.dtype("float32"), R.str("param x"),
                          sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.check_prim_value_info", k, R.dtype("int64"), R.str("param k"),
                          sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.check_tensor_info", y, R.prim_value(-1), R.str("param y"), sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.match_shape", x, heap, R.prim_value(2), R.prim_value(1), R.prim_value(0),
                          R.prim_value(0), R.prim_value(4), R.str("param x"), sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.match_prim_value", k, heap, R.prim_value(1), R.prim_value(1), R.str("param k"),
                          sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.match_shape", y, heap, R.prim_value(2), R.prim_value(3), R.prim_value(0),
                          R.prim_value(2), R.prim_value(0), R.str("param y"), sinfo_args=(R.Tuple,))
            cls.twice(heap)
            s = R.call_packed("vm.builtin.make_shape", heap, R.prim_value(3), R.prim_value(1), R.prim_value(0),
                              R.prim_value(1), R.prim_value(2), R.prim_value(0), R.prim_value(7),
                              sinfo_args=(R.Shape(ndim=3),))
            p = R.call_packed("vm.builtin.make_prim_value", heap, R.prim_value(1), R.prim_value(1),
                              sinfo_args=(R.Prim("int64"),))
            return (s, p, heap)
    ''')
    x34, y3 = f32(3, 4), f32(3, 2)
    k5 = Prim(5, "int64")
    out.append(Case("lowered_shape_heap", heap,
                    runs=[([x34, k5, y3], (Shape([3, 6, 7]), Prim(5, "int64"), np.array([3, 5, 6], np.int64))),
                          Fails([f32(3, 4, 1), k5, y3], "ndim_mismatch", "check_tensor_info: rank 3 for 2"),
                          Fails([x34.astype(np.int32), k5, y3], "dtype_mismatch", "check_tensor_info: int32"),
                          Fails([f32(3, 5), k5, y3], "shape_mismatch", "match_shape code 0: 5 for 4"),
                          Fails([x34, k5, f32(2, 2)], "shape_mismatch", "match_shape code 3: 2 for heap 3")],
                    spec=SH + ["CALL.PRIMFUNC.1", "EVAL.CHECK.8"], tags=["packed", "lowered", "shape_heap"],
                    oracle="hand",
                    description="a module as VMShapeLower prints it: the heap is written by match_shape code 1 and "
                                "match_prim_value, read by match_shape code 3, a PrimFunc and make_shape"))
    checks = module_text('''
        @R.function(pure=False)
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Prim("int64")), s: R.Shape, k: R.Prim("int64"), q: R.Object):
            R.call_packed("vm.builtin.check_tuple_info", t, R.prim_value(2), R.str("param t"), sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.check_shape_info", s, R.prim_value(2), R.str("param s"), sinfo_args=(R.Tuple,))
            R.call_packed("vm.builtin.check_prim_value_info", q, R.dtype("int64"), R.str("param q"),
                          sinfo_args=(R.Tuple,))
            heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(1),),
                                           sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
            R.call_packed("vm.builtin.match_prim_value", k, heap, R.prim_value(0), R.prim_value(4), R.str("param k"),
                          sinfo_args=(R.Tuple,))
            return t[0]
    ''')
    a2 = f32(2)
    out.append(Case("lowered_value_checks", checks,
                    runs=[([(a2, Prim(1, "int64")), Shape([2, 3]), Prim(4, "int64"), Prim(9, "int64")], a2),
                          Fails([(a2, Prim(1, "int64")), Shape([2]), Prim(4, "int64"), Prim(9, "int64")],
                                "ndim_mismatch", "check_shape_info: 1 dimension for 2"),
                          Fails([(a2, Prim(1, "int64")), Shape([2, 3]), Prim(5, "int64"), Prim(9, "int64")],
                                "value_mismatch", "match_prim_value code 0: 5 for 4"),
                          Fails([(a2, Prim(1, "int64")), Shape([2, 3]), Prim(4, "int64"), Prim(9, "int32")],
                                "dtype_mismatch", "check_prim_value_info: an int32 value for int64 (DIV.37)")],
                    spec=SH + ["EVAL.CHECK.8", "DIV.37"], tags=["packed", "lowered", "shape_heap"], oracle="hand"))
    return out


def lowered_call_cases():
    """relax.run.* (what LegalizeOps calls for print, assert_op, shape_to_tensor) and
    vm.builtin.invoke_closure with the VM context (what LowerRuntimeBuiltin emits)."""
    out = []
    run_funcs = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((2, 2), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((3,), "int64"):
            R.call_packed("relax.run.print", R.str("x={} n={}"), x, R.prim_value(3), sinfo_args=(R.Tuple,))
            R.call_packed("relax.run.assert_op", c, R.str("x={}"), x, sinfo_args=(R.Tuple,))
            t = R.call_pure_packed("relax.run.shape_to_tensor", R.shape([2, 7, 0]), sinfo_args=(R.Tensor((3,), "int64"),))
            return t
    ''')
    x22 = f32(2, 2)
    out.append(Case("relax_run_functions", run_funcs,
                    runs=[([x22, np.array(True)], np.array([2, 7, 0], np.int64)),
                          Fails([x22, np.array(False)], "assert_failed", "relax.run.assert_op of a false condition")],
                    spec=["CALL.PACKED.8", "CALL.PRINT.1", "CALL.ASSERT.1", "CALL.BUILTIN.2"],
                    tags=["packed", "lowered"], oracle="hand",
                    description="the packed functions LegalizeOps calls for R.print, R.assert_op, R.shape_to_tensor"))
    closure = module_text('''
        @R.function(private=True)
        def inner(y: R.Tensor((2,), "float32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            z = R.subtract(y, x)
            return z

        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            c = R.call_packed("vm.builtin.make_closure", cls.inner, x, sinfo_args=(R.Object,))
            r = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, y), sinfo_args=(R.Object,))
            s = R.match_cast(r, R.Tensor((2,), "float32"))
            return s
    ''')
    p2, q2 = f32(2), f32(2)
    out.append(Case("invoke_closure_with_vm_context", closure, runs=[([p2, q2], q2 - p2)],
                    spec=["CALL.PACKED.6", "CALL.CLOSURE.2", "CALL.PACKED.1"], tags=["packed", "lowered", "closure"],
                    description="make_closure and invoke_closure as LowerRuntimeBuiltin emits them; the captured "
                                "value comes after the argument"))
    view = module_text('''
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), off: R.Prim("int64")) -> R.Tensor((3,), "float32"):
            v = R.call_pure_packed("runtime.TVMTensorCreateView", x, R.shape([3]), R.dtype("float32"), off,
                                   sinfo_args=(R.Tensor((3,), "float32"),))
            return v
    ''')
    x24 = f32(2, 4)
    out.append(Case("tensor_create_view", view,
                    runs=[([x24, Prim(8, "int64")], x24.reshape(-1)[2:5]),
                          ([x24, Prim(20, "int64")], x24.reshape(-1)[5:8]),
                          Fails([x24, Prim(24, "int64")], "op_runtime", "12 bytes from byte 24 of 32")],
                    spec=["CALL.PACKED.6"], tags=["packed", "lowered", "view"], oracle="hand",
                    description="what R.memory.view lowers to: the tensor's bytes from an offset, seen with a shape"))
    out.extend(disco_cases())
    return out


def disco_cases():
    """The collective library LegalizeOps lowers the ccl operators to (CALL.PACKED.9), on the lone
    worker of a group of one: allreduce, allgather and broadcast give the worker's tensor, scatter the
    one block of its input, worker_id the rank 0."""
    out = []
    funcs = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"), R.Tensor((1,), "int64")):
            a = R.call_dps_packed("runtime.disco.allreduce", (x, R.shape([3]), R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
            g = R.call_dps_packed("runtime.disco.allgather", (x, R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
            b = R.call_dps_packed("runtime.disco.broadcast_from_worker0", (x, R.prim_value(T.bool(False))), out_sinfo=R.Tensor((2, 3), "float32"))
            y = R.reshape(x, R.shape([1, 2, 3]))
            s = R.call_dps_packed("runtime.disco.scatter_from_worker0", (y, R.prim_value(T.bool(False))), out_sinfo=R.Tensor((2, 3), "float32"))
            w = R.call_pure_packed("runtime.disco.worker_id", sinfo_args=(R.Shape(ndim=-1),))
            v = R.match_cast(w, R.Shape(ndim=1))
            r = R.shape_to_tensor(v)
            return (a, g, b, s, r)
    ''')
    x23 = f32(2, 3)
    out.append(Case("disco_functions_one_worker", funcs,
                    runs=[([x23], (x23, x23, x23, x23, np.array([0], np.int64)))],
                    spec=["CALL.PACKED.9", "DIST.LOCAL.2"], tags=["packed", "lowered", "distributed"], oracle="hand",
                    description="the runtime.disco.* functions LegalizeOps lowers the collectives to, on a group of "
                                "one worker"))
    bad = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            a = R.call_dps_packed("runtime.disco.allreduce", (x, R.shape([7]), R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
            return a
    ''')
    out.append(Case("rejects_disco_allreduce_unknown_code", bad,
                    runs=[Fails([f32(2, 3)], "op_runtime", "reduction code 7 is none of 0-4")],
                    spec=["CALL.PACKED.9"], tags=["packed", "lowered", "distributed"], oracle="hand",
                    description="runtime.disco.allreduce with a reduction code outside 0-4"))
    return out


def cases():
    a3, b3, a6, b6 = f32(3), f32(3), f32(6), f32(6)
    return packed_call_cases(a3, b3, a6, b6) + packed_failure_cases(a3, b3) + shape_heap_cases() + \
        lowered_call_cases()


def generate():
    return {"packed": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_packed"])

"""Limits as semantics (spec chapter 15, RUNTIME.LIMIT.*): sizes past int64, allocations past any byte
budget, TensorIR loops past the step budget, and padding that must not change what is legal.

Every size here is far beyond any budget an implementation may configure (element counts past int64,
petabytes, 2**62 loop iterations), so the expectation does not depend on the machine. Oracles: the
cited rules and hand values.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Malformed, module_text


def _tir_main(kernel: str, n: int, dtype: str) -> str:
    return module_text(kernel + f'''
        @R.function
        def main(x: R.Tensor(({n},), "{dtype}")) -> R.Tensor(({n},), "{dtype}"):
            cls = Module
            y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor(({n},), "{dtype}"))
            return y
    ''')


def size_cases():
    out = []
    x1 = np.array([1.5], "float32")
    huge = module_text('''
        @R.function
        def main(x: R.Tensor((1,), "float32")):
            y = R.broadcast_to(x, R.shape([2147483648, 2147483648]))
            return y
    ''')
    out.append(Case(
        "broadcast_to_past_the_byte_budget", huge, runs=[Fails([x1], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.3", "RUNTIME.LIMIT.5"], tags=["limits", "op:broadcast_to"], oracle="spec-rule",
        description="a result of 2**62 float32 elements (2**64 bytes) is never allocated: limit_exceeded"))
    count = module_text('''
        @R.function
        def main(x: R.Tensor((1,), "bool")):
            y = R.broadcast_to(x, R.shape([4294967296, 4294967296]))
            return y
    ''')
    out.append(Case(
        "element_count_past_int64", count, runs=[Fails([np.array([True])], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.1", "RUNTIME.LIMIT.5"], tags=["limits", "op:broadcast_to"], oracle="spec-rule",
        description="a shape whose element count (2**64) is outside int64 is limit_exceeded, never wrapped"))
    zeros = module_text('''
        @R.function
        def main():
            y = R.zeros(R.shape([1099511627776, 1024]), "float32")
            return y
    ''')
    out.append(Case(
        "zeros_of_four_petabytes", zeros, runs=[Fails([], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.3"], tags=["limits", "op:zeros"], oracle="spec-rule",
        description="R.zeros of 2**52 bytes: the byte budget is checked before allocating"))
    out.append(Malformed(
        "attribute_literal_past_int64", module_text('''
            @R.function
            def main(x: R.Tensor((3,), "float32")):
                y = R.repeat(x, 18446744073709551616, axis=0)
                return y
        '''), spec=["RUNTIME.LIMIT.1"], tags=["limits", "op:repeat"],
        description="an integer attribute outside int64 is a parse error naming it"))
    out.append(Invalid(
        "inferred_size_overflows_int64", module_text('''
            @R.function
            def main(x: R.Tensor((3,), "float32")):
                y = R.repeat(x, 4611686018427387904, axis=0)
                return y
        '''), "struct_info", spec=["RUNTIME.LIMIT.1"], tags=["limits", "op:repeat"],
        description="3 * 2**62 overflows int64: the inferred size would be negative, a struct_info error"))
    return out


def fuzz_cases():
    """Sizes of the third fuzzing run's findings (docs/FUZZING.md)."""
    out = []
    one_hot = module_text('''
        @R.function
        def main(i: R.Tensor((0, 3), "int32")):
            y = R.one_hot(i, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), depth=9223372036854775807)
            return y
    ''')
    out.append(Case(
        "empty_result_whose_extents_pass_int64", one_hot, runs=[Fails([np.zeros((0, 3), "int32")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.1"], tags=["limits", "op:one_hot"], oracle="spec-rule",
        description="a result of shape (0, 3, 2**63 - 1) has no elements, but its other extents span more bytes "
                    "than int64 holds: limit_exceeded"))
    void = module_text('''
        @R.function
        def main(x: R.Tensor((1,))):
            y = R.broadcast_to(x, R.shape([4294967296, 4294967296]))
            return y
    ''')
    out.append(Case(
        "element_count_past_int64_of_an_unknown_dtype", void, runs=[Fails([np.array([1.5], "float32")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.1", "RUNTIME.LIMIT.3"], tags=["limits", "op:broadcast_to"], oracle="spec-rule",
        description="a result whose dtype the struct info leaves open is checked too: 2**64 elements"))
    view = module_text('''
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.memory.view(x, R.shape([9223372036854775807]), R.dtype("int16"), R.prim_value(6))
            return y
    ''')
    out.append(Case(
        "result_size_before_the_operator_checks", view, runs=[Fails([np.ones(4, "float32")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.3"], tags=["limits", "op:memory.view"], oracle="spec-rule",
        description="a view past the byte budget that also lies outside its tensor: the size is checked first"))
    x = np.arange(12, dtype="int16").reshape(3, 4)
    sl = module_text('''
        @R.function
        def main(x: R.Tensor((3, 4), "int16")):
            y = R.strided_slice(x, [0, 1], [1, -1], [100, 0], [9223372036854775807, -1])
            return y
    ''')
    out.append(Case(
        "slice_with_a_stride_near_int64_max", sl, runs=[([x], x[1:100:9223372036854775807, -1:0:-1])],
        spec=["RUNTIME.LIMIT.1", "OP.strided_slice.C6"], tags=["limits", "op:strided_slice"], oracle="numpy-formula",
        description="the length of a slice with a stride of 2**63 - 1 is computed without overflow: one row"))
    storage = module_text('''
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            s = R.memory.alloc_storage(R.shape([4611686018427387904]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
            t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"))
            t2 = R.memory.alloc_tensor(s, R.prim_value(16), R.shape([4]), R.dtype("float32"))
            u = R.call_packed("conformance.add_dps", x, x, t1, sinfo_args=R.Object)
            v = R.call_packed("conformance.add_dps", y, y, t2, sinfo_args=R.Object)
            r = (t1, t2)
            return r
    ''')
    x4 = np.array([0.25, -0.5, 0.75, -0.25], "float32")
    out.append(Case(
        "storage_past_the_budget_of_which_little_is_used", storage, runs=[Fails([x4, x4], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.3", "CALL.ALLOC.2"], tags=["limits", "memory", "op:memory.alloc_storage"],
        oracle="spec-rule",
        description="a storage of 2**62 bytes of which two 16-byte tensors are used: the whole storage counts "
                    "when it is allocated, limit_exceeded at alloc_storage"))
    return out


def step_cases():
    out = []
    long_loop = _tir_main('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4611686018427387904)):
                B[i % T.int64(4)] = A[i % T.int64(4)] + T.float32(1)
    ''', 4, "float32")
    x4 = np.arange(4, dtype="float32")
    out.append(Case(
        "loop_past_the_step_budget", long_loop, runs=[Fails([x4], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.4", "RUNTIME.LIMIT.5"], tags=["limits", "call_tir", "loop"], oracle="spec-rule",
        description="a loop of 2**62 iterations fails when it is entered, before its first iteration"))
    nested = _tir_main('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):
            B[0] = A[0]
            for i in range(T.int64(2097152)):
                for j in range(T.int64(2097152)):
                    B[0] = B[0] + T.int64(1)
    ''', 1, "int64")
    out.append(Case(
        "nested_loops_past_the_step_budget", nested, runs=[Fails([np.array([0], "int64")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.4"], tags=["limits", "call_tir", "loop"], oracle="spec-rule",
        description="2**21 + 2**42 iterations: every iteration of every loop counts, nested loops multiply"))
    fine = _tir_main('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):
            B[0] = A[0]
            for i in range(T.int64(64)):
                for j in range(T.int64(64)):
                    B[0] = B[0] + T.int64(1)
    ''', 1, "int64")
    out.append(Case(
        "nested_loops_within_the_budget", fine, runs=[([np.array([5], "int64")], np.array([5 + 64 * 64], "int64"))],
        spec=["RUNTIME.LIMIT.4"], tags=["limits", "call_tir", "loop"], oracle="hand",
        description="64 + 64*64 iterations are well within any step budget"))
    return out


def endless_cases():
    """Programs that never end are errors under any budget (RUNTIME.LIMIT.4, RUNTIME.LIMIT.7)."""
    forever = _tir_main('''
        @T.prim_func
        def k(A: T.Buffer((T.int64(1),), "int32"), B: T.Buffer((T.int64(1),), "int32")):
            v = T.alloc_buffer((T.int64(1),), "int32")
            v[0] = A[0]
            while v[0] > 0:
                v[0] = v[0] + 1
                v[0] = v[0] - 1
            B[0] = v[0]
    ''', 1, "int32")
    recursion = module_text('''
        @R.function
        def down(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            cls = Module
            m = R.add(n, R.const(1, "int64"))
            r = cls.down(m)
            return r

        @R.function
        def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            cls = Module
            r = cls.down(n)
            return r
    ''')
    return [
        Case("while_loop_that_never_ends", forever,
             runs=[([np.array([0], "int32")], np.array([0], "int32")), Fails([np.array([1], "int32")], "limit_exceeded")],
             spec=["RUNTIME.LIMIT.4"], tags=["limits", "call_tir", "loop"], oracle="spec-rule",
             description="a while loop whose condition stays true stops at the step budgets: limit_exceeded"),
        Case("recursion_that_never_ends", recursion, runs=[Fails([np.array(0, "int64")], "limit_exceeded")],
             spec=["RUNTIME.LIMIT.7", "CALL.FUNC.6"], tags=["limits", "recursion"], oracle="spec-rule",
             description="a function that always calls itself stops at the call-depth budget: limit_exceeded"),
    ]


def padding_cases():
    out = []
    rng = np.random.default_rng(1515)
    for op, fn, dt in (("add", np.add, "float32"), ("multiply", np.multiply, "float32"),
                       ("floor_mod", np.mod, "int32")):
        mod = module_text(f'''
            @R.function
            def main(x: R.Tensor((2, "n"), "{dt}"), y: R.Tensor((4,), "{dt}")):
                z = R.{op}(x, y)
                return z
        ''')
        if dt == "float32":
            x3, x4, x1 = (rng.standard_normal((2, n)).astype(dt) for n in (3, 4, 1))
            y = rng.standard_normal(4).astype(dt)
        else:
            x3, x4, x1 = (rng.integers(-9, 9, (2, n)).astype(dt) for n in (3, 4, 1))
            y = rng.integers(1, 9, 4).astype(dt)
        out.append(Case(
            f"symbolic_broadcast_{op}", mod,
            runs=[([x4, y], fn(x4, y)), ([x1, y], fn(x1, y)), Fails([x3, y], "op_runtime"),
                  ([x4, y], fn(x4, y))],
            spec=["RUNTIME.LIMIT.6", "OP.SEM.2", "NORM.OP.BCAST.1"], tags=["limits", "symbolic", f"op:{op}"],
            oracle="numpy-formula",
            description="n = 3 does not broadcast with 4 even where an executor pads n to 4"))
    return out


def host_cases():
    from relax_conformance.gen import Prim

    mod = module_text('''
        @R.function
        def main(n: R.Prim("int8")) -> R.Prim("int8"):
            return n
    ''')
    return [Case(
        "host_integer_outside_its_dtype", mod,
        runs=[([np.array(127, "int64")], Prim(127, "int8")), Fails([np.array(300, "int64")], "limit_exceeded"),
              Fails([np.array(-129, "int64")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.2"], tags=["limits", "host"], oracle="spec-rule",
        description="a host integer outside the parameter's dtype is limit_exceeded, never wrapped")]


def rank_cases():
    loose = module_text('''
        @R.function
        def main(x: R.Tensor, y: R.Tensor):
            z = R.matmul(x, y)
            return z
    ''')
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.arange(6, dtype="float32").reshape(3, 2)
    return [Case(
        "ranks_checked_at_run_time", loose,
        runs=[([a, b], a @ b), Fails([np.array(1.5, "float32"), np.array(2.5, "float32")], "op_runtime"),
              Fails([a, a], "op_runtime")],
        spec=["OP.SEM.6", "OP.SEM.2"], tags=["limits", "op:matmul"], oracle="numpy-formula",
        description="a rank left open by the annotation is checked against the operator's rules at run time"),
        Case("tuple_field_dtype_checked_at_run_time", module_text('''
        @R.function
        def main(v: R.Tensor("float32", ndim=1), w: R.Tensor(ndim=1)):
            z = R.zeros(R.shape([1]), "float32")
            y = R.concat((z, v, w), axis=0)
            return y
    '''), runs=[([a[0], a[1]], np.concatenate([np.zeros(1, "float32"), a[0], a[1]])),
              Fails([a[0], np.array([1, 2], "uint32")], "op_runtime"),
              Fails([a[0], np.array([1, 2], "float64")], "op_runtime")],
            spec=["OP.SEM.6", "OP.concat.C2"], tags=["limits", "op:concat"], oracle="numpy-formula",
            description="a tensor inside a tuple argument whose dtype the annotation leaves open is checked at "
                        "run time: concat of float32 fields with a uint32 or float64 one is op_runtime"),
        Case("tuple_field_rank_checked_at_run_time", module_text('''
        @R.function
        def main(v: R.Tensor((2, 3), "float32"), w: R.Tensor("float32")):
            y = R.concat((v, w), axis=1)
            return y
    '''), runs=[([a, b.T.copy()], np.concatenate([a, b.T], axis=1)),
              Fails([a, np.arange(3, dtype="float32")], "op_runtime")],
            spec=["OP.SEM.6", "OP.concat.C2"], tags=["limits", "op:concat"], oracle="numpy-formula",
            description="a tuple field whose rank is open: a rank-1 field among rank-2 ones is op_runtime, before "
                        "the concatenation"),
        Case("index_tensor_dtype_checked_at_run_time", module_text('''
        @R.function
        def main(d: R.Tensor((1, 2, 6), "float32"), vc: R.Tensor((1,), "int32"), ind: R.Tensor((1, 2))):
            y = R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.3)
            return y
    '''), runs=[Fails([np.zeros((1, 2, 6), "float32"), np.array([2], "int32"), np.zeros((1, 2), "float32")],
                    "op_runtime"),
              Fails([np.zeros((1, 2, 6), "float32"), np.array([2], "int32"), np.zeros((1, 2), "int64")],
                    "op_runtime")],
            spec=["OP.SEM.6"], tags=["limits", "op:vision.non_max_suppression"], oracle="spec-rule",
            description="an index tensor whose dtype the annotation leaves open is checked before the operator "
                        "runs: float32 and int64 indices of non_max_suppression are op_runtime")]


def work_cases():
    text = module_text('''
        @R.function
        def main(x: R.Tensor((1, 1, 4, 4), "float32"), r: R.Tensor((1, 5), "float32")):
            y = R.vision.roi_align(x, r, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=-1, layout="NCHW")
            return y
    ''')
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    return [Case(
        "roi_align_samples_past_the_step_budget", text,
        runs=[Fails([x, np.array([[0, 0, 0, 1e6, 1e6]], "float32")], "limit_exceeded"),
              Fails([x, np.array([[0, -3e38, 0, 3e38, 1]], "float32")], "limit_exceeded")],
        spec=["RUNTIME.LIMIT.8", "OP.vision.roi_align.C6"], tags=["limits", "op:vision.roi_align"],
        oracle="spec-rule",
        description="adaptive sampling grids of 10**12 samples (corners of 1e6), and of infinitely many (a width "
                    "that overflows float32), are limit_exceeded before any sample is taken")]


def generate():
    return {"limits": size_cases() + fuzz_cases() + step_cases() + endless_cases() + padding_cases() + rank_cases()
            + host_cases() + work_cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_limits"])

"""Data-dependent shapes: the results of ``unique``, ``nonzero`` and ``tensor_to_shape`` have sizes known only
at run time; a ``match_cast`` names them (EVAL.MATCHCAST.2) and later bindings use the names -- in shapes,
allocations, callee signatures, ``call_tir`` output extents and further checks.

Oracles: ``np.unique``, ``np.nonzero`` and NumPy restatements of each function; errors from the cited rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

RNG = np.random.default_rng(20240725)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def ints(lo, hi, n, dtype="int32"):
    return RNG.integers(lo, hi, n).astype(dtype)


def i64(v):
    return Prim(v, "int64")


def t64(*v):
    return np.array(v, "int64")


# int32 inputs with 0, 1, several and all-distinct unique values (sizes 0, 1, odd, even)
UNIQUE_INPUTS = [np.zeros(0, "int32"), np.array([4], "int32"), np.array([2, 2, 2], "int32"),
                 np.array([3, -1, 3, 0, -1, 7, 0], "int32"), np.array([5, 1, 4, 2], "int32")]


def _unique_then(call: str) -> str:
    """``main(x)``: the unique values of ``x``, cast to ``(k,)`` for a symbolic ``k``, then ``r = call``
    (a member text, indented as the functions handed to ``module_text`` are)."""
    return f'''        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
            k = T.int64()
            cls = Module
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "int32"))
            r = {call}
            return r
'''


def unique_count_cases():
    out = []
    named = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Shape(ndim=1), R.Tensor(ndim=1, dtype="int32")):
            k = T.int64()
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "int32"))
            s = R.shape([k * 2 + 1])
            w = R.add(v, v)
            r = (s, w)
            return r
    ''')
    runs = []
    for x in UNIQUE_INPUTS:
        u = np.unique(x)
        runs.append(([x], (Shape([2 * len(u) + 1]), (u + u).astype("int32"))))
    out.append(Case("unique_count_named_and_used", named, runs=runs,
                    spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "SI.SYM.2", "SI.SYM.6", "OP.unique.C1",
                          "OP.unique.C2", "EVAL.SHAPE.1", "NORM.FUNC.1"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:unique"],
                    description="the number of unique values is named k by a match_cast and used in a shape; "
                                "the return struct info cannot mention k (SI.ERASE.5)"))
    alloc = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=2, dtype="int32"):
            k = T.int64()
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "int32"))
            col = R.reshape(v, R.shape([k, 1]))
            z = R.zeros(R.shape([k, 3]), "int32")
            w = R.add(z, col)
            return w
    ''')
    runs = []
    for x in UNIQUE_INPUTS:
        u = np.unique(x)
        runs.append(([x], np.repeat(u.reshape(-1, 1), 3, axis=1).astype("int32")))
    out.append(Case("unique_count_sizes_an_allocation", alloc, runs=runs,
                    spec=["EVAL.MATCHCAST.2", "SI.SYM.4", "OP.unique.C2", "NORM.OP.BCAST.1"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:unique", "op:zeros"],
                    description="a data-dependent extent k sizes R.zeros((k, 3)) and a reshape"))
    callee = module_text('''
        @R.function
        def scale(p: R.Prim(value="m"), v: R.Tensor(("m",), "int32")) -> R.Tensor(("m",), "int32"):
            m = T.int64()
            c = R.full(R.shape([m]), R.const(3, "int32"), "int32")
            w = R.multiply(v, c)
            return w

''' + _unique_then("cls.scale(R.prim_value(k), v)"))
    runs = [([x], (np.unique(x) * 3).astype("int32")) for x in UNIQUE_INPUTS]
    out.append(Case("unique_count_passed_to_callee", callee, runs=runs,
                    spec=["EVAL.MATCHCAST.2", "SI.CALL.2", "SI.CALL.4", "CALL.FUNC.2", "OP.unique.C2"],
                    tags=["symbolic", "data-dependent", "call", "op:unique"],
                    description="k, known only at run time, reaches a callee as a tensor extent and as "
                                "R.Prim(value=m); the call's struct info is (k,)"))
    wrong = module_text('''
        @R.function
        def scale(p: R.Prim(value="m"), v: R.Tensor(("m",), "int32")) -> R.Tensor(("m",), "int32"):
            return v

''' + _unique_then("cls.scale(R.prim_value(k + 1), v)"))
    out.append(Case("unique_count_wrong_prim_for_callee", wrong,
                    runs=[Fails([x], "shape_mismatch", f"k = {len(np.unique(x))}, k + 1 passed")
                          for x in UNIQUE_INPUTS[:4]],
                    spec=["CALL.FUNC.2", "EVAL.CHECK.3", "SI.CALL.3"], oracle="spec-rule",
                    tags=["symbolic", "data-dependent", "call", "check"],
                    description="the callee binds m from the prim value k + 1 and compares the tensor's k "
                                "elements with it (L2 statically: k + 1 is not provably different from k)"))
    return out


def unique_extent_cases():
    out = []
    two = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("p",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
            k = T.int64()
            u = R.unique(x)
            a = R.match_cast(u, R.Tensor((k,), "int32"))
            w = R.unique(y)
            b = R.match_cast(w, R.Tensor((k,), "int32"))
            d = R.subtract(a, b)
            return d
    ''')
    x1, y1 = np.array([1, 5, 1], "int32"), np.array([9, 9, 2, 2], "int32")
    runs = [([x1, y1], (np.unique(x1) - np.unique(y1)).astype("int32")),
            ([np.zeros(0, "int32"), np.zeros(0, "int32")], np.zeros(0, "int32")),
            Fails([np.array([1, 2], "int32"), np.array([3, 3], "int32")], "match_cast_failed",
                  "2 unique values, then 1"),
            Fails([np.zeros(0, "int32"), np.array([3], "int32")], "match_cast_failed", "0, then 1")]
    out.append(Case("two_data_dependent_extents_must_agree", two, runs=runs,
                    spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "EVAL.CHECK.3", "SI.SYM.6"],
                    tags=["symbolic", "data-dependent", "match_cast", "check"],
                    description="the first match_cast binds k, the second compares against it"))
    counts = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int64"):
            k = T.int64()
            t = R.unique(x, return_counts=True)
            m = R.match_cast(t, R.Tuple(R.Tensor((k,), "int32"), R.Tensor((k,), "int64")))
            vals = m[0]
            cnts = m[1]
            v64 = R.astype(vals, "int64")
            w = R.multiply(v64, cnts)
            return w
    ''')
    runs = []
    for x in UNIQUE_INPUTS:
        u, c = np.unique(x, return_counts=True)
        runs.append(([x], (u.astype("int64") * c).astype("int64")))
    out.append(Case("unique_tuple_fields_share_an_extent", counts, runs=runs,
                    spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "EVAL.CHECK.3", "OP.unique.C1", "OP.unique.C2",
                          "SI.TUPLE.1"],
                    tags=["symbolic", "data-dependent", "match_cast", "tuple", "op:unique"],
                    description="one match_cast of the (values, counts) tuple binds k from the first field and "
                                "checks the second against it"))
    tir = module_text('''
        @T.prim_func
        def reverse(a: T.handle, b: T.handle):
            k = T.int64()
            A = T.match_buffer(a, (k,), "int32")
            B = T.match_buffer(b, (k,), "int32")
            for i in range(k):
                B[i] = A[k - 1 - i]

''' + _unique_then('R.call_tir(cls.reverse, (v,), out_sinfo=R.Tensor((k,), "int32"))'))
    runs = [([x], np.unique(x)[::-1].copy()) for x in UNIQUE_INPUTS]
    out.append(Case("data_dependent_extent_in_call_tir", tir, runs=runs,
                    spec=["EVAL.MATCHCAST.2", "CALL.TIR.5", "CALL.TIR.7", "TIR.FUNC.3", "OP.unique.C2"],
                    tags=["symbolic", "data-dependent", "call_tir", "op:unique"],
                    description="k sizes the call_tir output; the PrimFunc binds its own k from the buffer"))
    dataflow = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            k = T.int64()
            with R.dataflow():
                u = R.unique(x)
                v = R.match_cast(u, R.Tensor((k,), "float32"))
                w = R.multiply(v, v)
                R.output(w)
            return w
    ''')
    xs = [np.zeros(0, "float32"), np.array([1.5], "float32"), np.array([2.0, -1.0, 2.0, 0.5, -1.0], "float32")]
    runs = [([x], np.unique(x) * np.unique(x)) for x in xs]
    out.append(Case("data_dependent_extent_in_dataflow", dataflow, runs=runs,
                    spec=["EVAL.MATCHCAST.2", "EXPR.DATAFLOW.1", "EVAL.DATAFLOW.1", "OP.unique.C2"],
                    tags=["symbolic", "data-dependent", "match_cast", "dataflow", "op:unique"]))
    return out


def unique_cases():
    return unique_count_cases() + unique_extent_cases()


def nonzero_cases():
    out = []
    cols = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tuple(R.Shape(ndim=1), R.Tensor(ndim=1, dtype="int64")):
            c = T.int64()
            nz = R.nonzero(x)
            p = R.match_cast(nz, R.Tensor((2, c), "int64"))
            s = R.sum(p, axis=[0])
            r = (R.shape([c]), s)
            return r
    ''')
    xs = [np.zeros((0, 3), "float32"), np.zeros((2, 2), "float32"), np.array([[0, 1.5]], "float32"),
          np.array([[1, 0, 2], [0, 0, 3], [4, 5, 0]], "float32")]
    runs = []
    for x in xs:
        r, c = np.nonzero(x)
        runs.append(([x], (Shape([len(r)]), (r + c).astype("int64"))))
    out.append(Case("nonzero_count_named_and_used", cols, runs=runs,
                    spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "OP.nonzero.C1", "OP.nonzero.C2", "SI.SYM.2"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:nonzero"],
                    description="the number of non-zero elements of a matrix is named c; (2, c) is matched and "
                                "each column's coordinates summed"))
    rank = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
            c = T.int64()
            nz = R.nonzero(x)
            p = R.match_cast(nz, R.Tensor((1, c), "int64"))
            return p
    ''')
    out.append(Case("nonzero_first_dimension_is_the_rank", rank,
                    runs=[Fails([np.ones((2, 2), "float32")], "match_cast_failed", "nonzero gives (2, 4)"),
                          Fails([np.zeros((0, 1), "float32")], "match_cast_failed", "nonzero gives (2, 0)")],
                    spec=["EVAL.MATCHCAST.1", "EVAL.CHECK.3", "OP.nonzero.C2", "NORM.MATCHCAST.2"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:nonzero"], oracle="spec-rule",
                    description="statically possible (R.Tensor(ndim=2) against (1, c)), fails at run time"))
    bound = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            k = T.int64()
            nz = R.nonzero(x)
            p = R.match_cast(nz, R.Tensor((1, k), "int64"))
            q = R.reshape(p, R.shape([k]))
            f = R.astype(q, "float32")
            r = R.add(f, y)
            return r
    ''')
    x1, y1 = np.array([0, 3, 0, -2, 1], "int32"), f32(3)
    runs = [([x1, y1], np.array([1, 3, 4], "float32") + y1),
            ([np.zeros(4, "int32"), f32(0)], np.zeros(0, "float32")),
            ([np.array([7], "int32"), np.array([0.5], "float32")], np.array([0.5], "float32")),
            Fails([x1, f32(2)], "match_cast_failed", "3 non-zeros, k = 2"),
            Fails([np.zeros(0, "int32"), f32(1)], "match_cast_failed", "0 non-zeros, k = 1")]
    out.append(Case("nonzero_count_compared_with_parameter", bound, runs=runs,
                    spec=["EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "EVAL.CHECK.3", "OP.nonzero.C2"],
                    tags=["symbolic", "data-dependent", "match_cast", "check", "op:nonzero"],
                    description="k is bound by the parameter y; the match_cast compares the non-zero count"))
    return out


def tensor_to_shape_cases():
    out = []
    reshape = module_text('''
        @R.function
        def main(t: R.Tensor((2,), "int64"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
            a = T.int64()
            b = T.int64()
            s = R.tensor_to_shape(t)
            u = R.match_cast(s, R.Shape([a, b]))
            y = R.match_cast(x, R.Tensor((a * b,), "float32"))
            z = R.reshape(y, R.shape([a, b]))
            w = R.permute_dims(z, axes=[1, 0])
            return w
    ''')
    runs = []
    for a, b in ((2, 3), (0, 5), (1, 1), (3, 0), (1, 7)):
        x = f32(a * b)
        runs.append(([t64(a, b), x], x.reshape(a, b).T.copy()))
    runs += [Fails([t64(2, 3), f32(5)], "match_cast_failed", "5 elements, a * b = 6"),
             Fails([t64(0, 3), f32(1)], "match_cast_failed", "1 element, a * b = 0"),
             Fails([t64(-1, 2), f32(0)], "op_runtime", "a negative element")]
    out.append(Case("tensor_to_shape_binds_and_reshapes", reshape, runs=runs,
                    spec=["CALL.BUILTIN.1", "EVAL.MATCHCAST.1", "EVAL.MATCHCAST.2", "EVAL.CHECK.4",
                          "OP.tensor_to_shape.C2", "SI.SYM.2"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:tensor_to_shape"],
                    description="a shape read from data binds a and b; a second match_cast compares the "
                                "tensor's length with a * b"))
    symlen = module_text('''
        @R.function
        def main(t: R.Tensor(("r",), "int64")) -> R.Shape(ndim=2):
            a = T.int64()
            b = T.int64()
            s = R.tensor_to_shape(t)
            u = R.match_cast(s, R.Shape([a, b]))
            v = R.shape([b, a * b])
            return v
    ''')
    runs = [([t64(3, 4)], Shape([4, 12])), ([t64(0, 9)], Shape([9, 0])),
            Fails([t64(1, 2, 3)], "ndim_mismatch", "a shape of rank 3"),
            Fails([np.zeros(0, "int64")], "ndim_mismatch", "a shape of rank 0")]
    out.append(Case("tensor_to_shape_of_symbolic_length", symlen, runs=runs,
                    spec=["OP.tensor_to_shape.C2", "CALL.BUILTIN.1", "EVAL.MATCHCAST.1", "EVAL.CHECK.2"],
                    tags=["symbolic", "data-dependent", "match_cast", "shape", "op:tensor_to_shape"],
                    oracle="hand",
                    description="a tensor of symbolic length gives R.Shape(ndim=-1); the match_cast checks the "
                                "rank at run time"))
    computed = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tuple(R.Shape(ndim=2), R.Tensor(ndim=2, dtype="float32")):
            p = T.int64()
            q = T.int64()
            s = R.shape_of(x)
            t = R.shape_to_tensor(s)
            t2 = R.match_cast(t, R.Tensor((2,), "int64"))
            t1 = R.add(t2, R.const(1, "int64"))
            s1 = R.tensor_to_shape(t1)
            u = R.match_cast(s1, R.Shape([p, q]))
            z = R.ones(R.shape([q, p]), "float32")
            r = (R.shape([p * q, p + q]), z)
            return r
    ''')
    runs = []
    for n, m in ((0, 0), (1, 1), (2, 3), (5, 1)):
        p_, q_ = n + 1, m + 1
        runs.append(([f32(n, m)], (Shape([p_ * q_, p_ + q_]), np.ones((q_, p_), "float32"))))
    out.append(Case("tensor_to_shape_of_computed_tensor", computed, runs=runs,
                    spec=["CALL.BUILTIN.1", "CALL.BUILTIN.2", "CALL.BUILTIN.3", "EVAL.MATCHCAST.2",
                          "OP.tensor_to_shape.C2"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:tensor_to_shape", "op:shape_to_tensor"],
                    description="x's shape plus one, through a tensor and back, names p = n + 1 and q = m + 1, "
                                "which size an allocation and a shape"))
    return out


def data_dependent_control_cases():
    out = []
    branch = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
            k = T.int64()
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "int32"))
            c = R.prim_value(k > 2)
            if c:
                r = R.strided_slice(v, axes=[0], begin=[0], end=[2])
            else:
                r = R.negative(v)
            return r
    ''')
    runs = []
    for x in UNIQUE_INPUTS:
        u = np.unique(x)
        runs.append(([x], u[:2].copy() if len(u) > 2 else (-u).astype("int32")))
    out.append(Case("condition_on_a_data_dependent_count", branch, runs=runs,
                    spec=["EVAL.MATCHCAST.2", "EVAL.IF.2", "EVAL.PRIM.1", "NORM.IF.1", "OP.unique.C2"],
                    tags=["symbolic", "data-dependent", "if", "op:unique"],
                    description="the If condition is computed from the data-dependent k"))
    scalar = module_text('''
        @R.function
        def main(x: R.Tensor((), "int32")) -> R.Tuple(R.Shape(ndim=1), R.Tensor(ndim=2, dtype="int64")):
            c = T.int64()
            nz = R.nonzero(x)
            p = R.match_cast(nz, R.Tensor((1, c), "int64"))
            r = (R.shape([c]), p)
            return r
    ''')
    out.append(Case("nonzero_of_a_scalar", scalar,
                    runs=[([np.array(5, "int32")], (Shape([1]), np.zeros((1, 1), "int64"))),
                          ([np.array(0, "int32")], (Shape([0]), np.zeros((1, 0), "int64")))],
                    spec=["OP.nonzero.C2", "EVAL.MATCHCAST.2"], tags=["symbolic", "data-dependent", "op:nonzero"],
                    oracle="hand", description="a 0-d input counts as 1-d: (1, 1) or (1, 0)"))
    flat = module_text('''
        @R.function
        def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
            k = T.int64()
            u = R.unique(x)
            v = R.match_cast(u, R.Tensor((k,), "float32"))
            w = R.cumsum(v, axis=0)
            return w
    ''')
    xs = [np.zeros((0, 4), "float32"), np.array([[2.0]], "float32"),
          np.array([[1.0, 0.5, 1.0], [0.5, -2.0, 3.0]], "float32")]
    runs = [([x], np.cumsum(np.unique(x).astype("float64")).astype("float32")) for x in xs]
    out.append(Case("unique_of_a_matrix_is_flat", flat, runs=runs,
                    spec=["OP.unique.C1", "OP.unique.C2", "EVAL.MATCHCAST.2"],
                    tags=["symbolic", "data-dependent", "op:unique", "op:cumsum"],
                    description="unique without an axis flattens: k counts the distinct elements of n x m"))
    callee = module_text('''
        @R.function
        def shaped(s: R.Shape(["p", "q"]), x: R.Tensor(("p * q",), "float32")) -> R.Tensor(("q", "p"), "float32"):
            p = T.int64()
            q = T.int64()
            y = R.reshape(x, R.shape([p, q]))
            z = R.permute_dims(y, axes=[1, 0])
            return z

        @R.function
        def main(t: R.Tensor((2,), "int64"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
            a = T.int64()
            b = T.int64()
            cls = Module
            s = R.tensor_to_shape(t)
            u = R.match_cast(s, R.Shape([a, b]))
            r = cls.shaped(u, x)
            return r
    ''')
    runs = []
    for a, b in ((2, 3), (0, 4), (1, 1)):
        x = f32(a * b)
        runs.append(([t64(a, b), x], x.reshape(a, b).T.copy()))
    runs += [Fails([t64(2, 3), f32(7)], "shape_mismatch", "7 != 2 * 3, checked by the callee")]
    out.append(Case("shape_from_data_passed_to_a_callee", callee, runs=runs,
                    spec=["CALL.BUILTIN.1", "EVAL.MATCHCAST.2", "SI.CALL.2", "CALL.FUNC.2"],
                    tags=["symbolic", "data-dependent", "call", "op:tensor_to_shape"],
                    description="a and b read from data reach the callee's p and q through a shape argument"))
    return out


def unique_inverse_and_nonzero_rank_cases():
    out = []
    inverse = module_text('''
        @R.function
        def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int64"), R.Tensor(ndim=1, dtype="int64")):
            n = T.int64()
            k = T.int64()
            t = R.unique(x, return_inverse=True, return_counts=True)
            m = R.match_cast(t, R.Tuple(R.Tensor((k,), "int32"), R.Tensor((n,), "int64"), R.Tensor((k,), "int64")))
            inv = m[1]
            cnt = m[2]
            r = (inv, cnt)
            return r
    ''')
    runs = []
    for x in UNIQUE_INPUTS:
        u, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
        runs.append(([x], (inv.reshape(-1).astype("int64"), cnt.astype("int64"))))
    out.append(Case("unique_inverse_has_the_input_length", inverse, runs=runs,
                    spec=["OP.unique.C1", "OP.unique.C2", "EVAL.MATCHCAST.2", "EVAL.CHECK.3"],
                    tags=["symbolic", "data-dependent", "match_cast", "op:unique"],
                    description="one match_cast: the inverse is compared with the parameter's n, the values "
                                "and counts bind and share k"))
    cube = module_text('''
        @R.function
        def main(x: R.Tensor(("a", "b", "c"), "int32")) -> R.Shape(ndim=2):
            q = T.int64()
            nz = R.nonzero(x)
            p = R.match_cast(nz, R.Tensor((3, q), "int64"))
            s = R.shape_of(p)
            return s
    ''')
    xs = [np.zeros((0, 2, 2), "int32"), np.ones((1, 1, 1), "int32"), RNG.integers(0, 2, (2, 3, 4)).astype("int32")]
    runs = [([x], Shape([3, int(np.count_nonzero(x))])) for x in xs]
    out.append(Case("nonzero_of_a_rank_3_tensor", cube, runs=runs,
                    spec=["OP.nonzero.C2", "EVAL.MATCHCAST.2", "CALL.BUILTIN.3"],
                    tags=["symbolic", "data-dependent", "op:nonzero"], oracle="numpy-formula"))
    return out


def more_cases():
    return data_dependent_control_cases() + unique_inverse_and_nonzero_rank_cases()


def generate():
    return {"symbolic_data": unique_cases() + nonzero_cases() + tensor_to_shape_cases() + more_cases()}

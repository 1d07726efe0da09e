"""Linear algebra (matmul einsum outer): inference on static, symbolic and invalid operands
(OP.matmul.C1-C4, OP.einsum.C1-C3, OP.outer.C1), reference semantics against numpy formulas
(OP.LINALG.SEM.*), legalized TensorIR == reference (static and symbolic), property tests over random
batch broadcasting and 1-d promotion, and agreement with TVM 0.25."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.analysis.context import InferContext, make_analyzer
from relax_ref.errors import OpRuntimeError, StructInfoError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.attrs import Attrs
from relax_ref.ir.struct_info import TensorStructInfo, TupleStructInfo, VDevice
from relax_ref.ops import registry

from ops_helpers import (
    Both, T, call_text, check_signatures_match_tvm, check_sinfo_with_tvm, check_table_row, check_table_with_tvm,
    infer, module, same,
)

n, m = P.PrimVar("n"), P.PrimVar("m")
RNG = np.random.default_rng(11)


def infer_tuple(op, sinfos, **attrs):
    d = registry.get(op)
    t = rx.Var("t", struct_info=TupleStructInfo(tuple(sinfos)))
    return d.infer(rx.Call(rx.Op(op), (t,), Attrs(attrs)), InferContext(make_analyzer()))


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------


def test_matmul_inference():
    mm = "relax.matmul"
    assert infer(mm, T((n, 4)), T((4, m))) == T((n, m))
    assert infer(mm, T((2, n, 4)), T((4, m))) == T((2, n, m))
    assert infer(mm, T((n, 4)), T((4,))) == T((n,))
    assert infer(mm, T((4,)), T((3, 4, 5))) == T((3, 5))
    assert infer(mm, T((4,)), T((4,))) == T(())
    assert infer(mm, T((5, 1, 2, 3)), T((4, 3, 6))) == T((5, 4, 2, 6))
    assert infer(mm, T((n, 4)), T((m, 5))) == T((n, 5))  # n, m: not provably unequal
    assert infer(mm, T((2, 3), "int8"), T((3, 4), "int8"), out_dtype="int32") == T((2, 4), "int32")
    assert infer(mm, T((2, 3), "int8"), T((3, 4), "float32"), out_dtype="float32") == T((2, 4), "float32")
    assert infer(mm, T((2, 3), "bool"), T((3, 4), "float32")) == T((2, 4), "bool")  # LHS dtype
    assert infer(mm, T(None, "float32", 3), T((3, 4))) == T(None, "float32", 3)
    assert infer(mm, T(None, "float32"), T((3, 4))) == T(None, "float32", -1)
    assert infer(mm, T((n, 2, 3)), T((m, 3, 4))) == T(None, "float32", 3)  # batch dims unknown
    assert infer(mm, T(None, "float32", 1), T((3, 4))) == T(None, "float32", 1)
    for a, b, msg in [(T((2, 3)), T((4, 5)), "reduction length"), (T((3,)), T((4,)), "reduction length"),
                      (T(()), T((3,)), "scalar"), (T((3,)), T(()), "scalar"),
                      (T((2, 3), "int32"), T((3, 4)), "same datatype"),
                      (T((2, 2, 3)), T((3, 3, 4)), "not broadcastable")]:
        with pytest.raises(StructInfoError, match=msg):
            infer(mm, a, b)
    vd, vd2 = VDevice("llvm", 0, "global"), VDevice("cuda", 0, "global")
    a = TensorStructInfo(rx.ShapeExpr((2, 3)), "float32", vdevice=vd)
    b = TensorStructInfo(rx.ShapeExpr((3, 4)), "float32", vdevice=vd2)
    assert infer(mm, a, T((3, 4))).vdevice == vd
    assert infer(mm, a, b).vdevice is None  # TVM: mismatching vdevices give none, no error


def test_einsum_inference():
    es = "relax.einsum"
    assert infer_tuple(es, [T((n, 3)), T((3, m))], subscripts="ij,jk->ik") == T((n, m))
    assert infer_tuple(es, [T((2, 3)), T((3, 4))], subscripts="ij,jk") == T((2, 4))
    assert infer_tuple(es, [T((2, 3)), T((3, 4))], subscripts="Ab,bc") == T((2, 4))
    assert infer_tuple(es, [T((5, 2, 3)), T((3, 4))], subscripts="...ij,...jk->...ik") == T((5, 2, 4))
    assert infer_tuple(es, [T((n, 2, 3)), T((7, 3, 4))], subscripts="...ij,...jk") == T((7, 2, 4))
    assert infer_tuple(es, [T((n, 2, 3)), T((m, 3, 4))], subscripts="...ij,...jk") == \
        T((P.Max(n, m), 2, 4))
    assert infer_tuple(es, [T((3, 3))], subscripts="ii") == T(())
    assert infer_tuple(es, [T((1, n))], subscripts="ii->i") == T((n,))
    assert infer_tuple(es, [T((n, 1)), T((4, m))], subscripts="ij,jk->ik") == T((n, m))
    assert infer_tuple(es, [T((3, 4))], subscripts=" i j -> j") == T((4,))
    assert infer_tuple(es, [T(None, "float32", 3), T((3, 4))], subscripts="...j,jk") == T(None, "float32", 3)
    bad = [([T((2, 3)), T((4, 5))], "ij,jk->ik", "broadcast"),
           ([T((3, 3))], "ij,jk->ik", "operands"),
           ([T((3, 3))], "ijk->ij", "labels"),
           ([T((3,))], "1i->i", "invalid character"),
           ([T((3, 3))], "ij->k", "does not occur"),
           ([T((3, 3))], "ij->ii", "repeated"),
           ([T((3, 3))], "ij->...", "ellipsis"),
           ([T((2,)), T((2,), "int32")], "i,i", "same dtype"),
           ([], "", "empty")]
    for ops, sub, msg in bad:
        with pytest.raises(StructInfoError, match=msg):
            infer_tuple(es, ops, subscripts=sub)


def test_outer_inference():
    assert infer("relax.outer", T((n,)), T((3,), "int32")) == T((n, 3))
    assert infer("relax.outer", T(None, "float32", 1), T((3,))) == T(None, "float32", 2)
    for a, b in [(T((2, 3)), T((3,))), (T(None, "float32"), T((3,)))]:
        with pytest.raises(StructInfoError, match="1-D"):
            infer("relax.outer", a, b)


# ---------------------------------------------------------------------------------------------------
# Reference vs numpy, legalized vs reference
# ---------------------------------------------------------------------------------------------------

FUNCS = [
    ("mm", 'x: R.Tensor(("n", 3), "float32"), y: R.Tensor((3, "m"), "float32")', "r = R.matmul(x, y)"),
    ("mm_batch", 'x: R.Tensor((2, 1, "n", 3), "float32"), y: R.Tensor((4, 3, 5), "float32")', "r = R.matmul(x, y)"),
    ("mm_vec_l", 'x: R.Tensor((3,), "float32"), y: R.Tensor((2, 3, "m"), "float32")', "r = R.matmul(x, y)"),
    ("mm_vec_r", 'x: R.Tensor(("n", 2, 3), "float32"), y: R.Tensor((3,), "float32")', "r = R.matmul(x, y)"),
    ("mm_i8", 'x: R.Tensor(("n", 3), "int8"), y: R.Tensor((3, 4), "int8")', 'r = R.matmul(x, y, out_dtype="int32")'),
    ("mm_i8w", 'x: R.Tensor(("n", 3), "int8"), y: R.Tensor((3, 4), "int8")', "r = R.matmul(x, y)"),
    ("einsum_mm", 'x: R.Tensor(("n", 3), "float32"), y: R.Tensor((3, 4), "float32")', 'r = R.einsum((x, y), "ij,jk->ik")'),
    ("einsum_batch", 'x: R.Tensor((2, "n", 3), "float32"), y: R.Tensor((2, 3, 4), "float32")',
     'r = R.einsum((x, y), "bij,bjk->bik")'),
    ("einsum_ell", 'x: R.Tensor(("n", 2, 3), "float32"), y: R.Tensor((3, 4), "float32")', 'r = R.einsum((x, y), "...j,jk")'),
    ("einsum_trace", 'x: R.Tensor(("n", "n"), "float32")', 'r = R.einsum((x,), "ii")'),
    ("einsum_outer3", 'x: R.Tensor(("n",), "float32"), y: R.Tensor((2,), "float32"), z: R.Tensor((3,), "float32")',
     'r = R.einsum((x, y, z), "i,j,k->kji")'),
    ("einsum_bcast", 'x: R.Tensor(("n", 1), "float32"), y: R.Tensor((3, 4), "float32")', 'r = R.einsum((x, y), "ij,jk->ik")'),
    ("outer", 'x: R.Tensor(("n",), "int32"), y: R.Tensor((3,), "int32")', "r = R.outer(x, y)"),
]


def _inputs(name, rows):
    import re

    params = dict((f, p) for f, p, _ in FUNCS)[name]
    args = []
    for shape_text, dt in re.findall(r'R\.Tensor\(\(([^)]*)\), "(\w+)"\)', params):
        dims = [d.strip() for d in shape_text.split(",") if d.strip()]
        shape = tuple(rows if d.startswith('"') else int(d) for d in dims)
        if dt == "int8":
            args.append(RNG.integers(-50, 50, shape).astype("int8"))
        elif dt == "int32":
            args.append(RNG.integers(-9, 10, shape).astype("int32"))
        else:
            args.append(RNG.standard_normal(shape).astype(dt))
    return args


def _numpy_expected(name, args):
    f64 = [a.astype("float64") for a in args]
    if name.startswith("mm_i8"):
        r = args[0].astype("int64") @ args[1].astype("int64")
        return r.astype("int32") if name == "mm_i8" else r.astype("int8")
    if name.startswith("mm"):
        return (f64[0] @ f64[1]).astype("float32")
    if name == "outer":
        return np.multiply.outer(args[0], args[1])
    sub = {"einsum_mm": "ij,jk->ik", "einsum_batch": "bij,bjk->bik", "einsum_ell": "...j,jk",
           "einsum_trace": "ii", "einsum_outer3": "i,j,k->kji"}.get(name)
    if name == "einsum_bcast":
        return (np.broadcast_to(f64[0], (args[0].shape[0], 3)) @ f64[1]).astype("float32")
    return np.einsum(sub, *f64).astype("float32")


@pytest.mark.parametrize("name", [f[0] for f in FUNCS])
def test_reference_matches_numpy_and_legalized(name):
    for rows in (2, 3):
        args = _inputs(name, rows)
        check_table_row(FUNCS, name, args, _numpy_expected(name, args), tol=1e-5)


def test_zero_length_reduction_and_runtime_checks():
    """OP.LINALG.SEM.1: a zero-length reduction gives 0 (static: T_full, symbolic: T_select guard);
    run-time disagreement of the reduction or batch dims is an OpRuntimeError."""
    b = Both(module(("s", 'x: R.Tensor((2, 0), "float32"), y: R.Tensor((0, 4), "float32")', "r = R.matmul(x, y)"),
                    ("d", 'x: R.Tensor((2, "k"), "float32"), y: R.Tensor(("k", 4), "float32")', "r = R.matmul(x, y)"),
                    ("e", 'x: R.Tensor(("n",), "float32")', 'r = R.einsum((x,), "i->")'),
                    ("u", 'x: R.Tensor((2, "k"), "float32"), y: R.Tensor(("l", 4), "float32")', "r = R.matmul(x, y)")))
    z0, z1 = np.zeros((2, 0), "float32"), np.zeros((0, 4), "float32")
    for fn in ("s", "d"):
        same(b.ref(fn, z0, z1), np.zeros((2, 4), "float32"))
        same(b.tir(fn, z0, z1), np.zeros((2, 4), "float32"))
    same(b.ref("e", np.zeros(0, "float32")), np.array(0, "float32"))
    same(b.tir("e", np.zeros(0, "float32")), np.array(0, "float32"))
    with pytest.raises(OpRuntimeError, match="reduction"):
        b.ref("u", np.zeros((2, 3), "float32"), np.zeros((2, 4), "float32"))


def test_bool_and_float16():
    b = Both(module(("b", 'x: R.Tensor((2, 2), "bool"), y: R.Tensor((2, 2), "bool")', "r = R.matmul(x, y)"),
                    ("h", 'x: R.Tensor((1, 3000), "float16"), y: R.Tensor((3000, 1), "float16")', "r = R.matmul(x, y)")))
    x = np.array([[True, False], [False, False]])
    same(b.ref("b", x, np.ones((2, 2), bool)), np.array([[True, True], [False, False]]))
    same(b.tir("b", x, np.ones((2, 2), bool)), np.array([[True, True], [False, False]]))
    # float16 accumulation in float16, as TVM's kernel: 3000 ones sum to 2048
    same(b.ref("h", np.ones((1, 3000), "float16"), np.ones((3000, 1), "float16")), np.array([[2048]], "float16"))


# ---------------------------------------------------------------------------------------------------
# Property tests: matmul batch broadcasting and 1-d promotion
# ---------------------------------------------------------------------------------------------------


@st.composite
def matmul_case(draw):
    k = draw(st.integers(0, 3))
    rank_a = draw(st.integers(1, 4))
    rank_b = draw(st.integers(1, 4))
    batch = draw(st.lists(st.integers(1, 3), min_size=3, max_size=3))
    ones_a = draw(st.lists(st.booleans(), min_size=3, max_size=3))
    ones_b = draw(st.lists(st.booleans(), min_size=3, max_size=3))
    nb_a, nb_b = max(rank_a - 2, 0), max(rank_b - 2, 0)
    ba = [1 if o else d for d, o in zip(batch[3 - nb_a:], ones_a[3 - nb_a:])]
    bb = [1 if o else d for d, o in zip(batch[3 - nb_b:], ones_b[3 - nb_b:])]
    a = (k,) if rank_a == 1 else tuple(ba) + (draw(st.integers(1, 3)), k)
    b = (k,) if rank_b == 1 else tuple(bb) + (k, draw(st.integers(1, 3)))
    dtype = draw(st.sampled_from(["float32", "int32"]))
    symbolic = draw(st.booleans())
    return a, b, dtype, symbolic


def _dims(shape, names):
    return ", ".join(f'"{nm}"' if nm else str(d) for d, nm in zip(shape, names)) + ("," if len(shape) == 1 else "")


@settings(max_examples=30)
@given(matmul_case())
def test_property_matmul(case):
    """Random batch broadcasting (1-dims on either side) and 1-d operands: reference == numpy's
    matmul, legalized TIR == reference. Symbolic cases name the row, column and reduction dims
    (shared ``k``); batch dims stay static so that the call is legalizable."""
    a_shape, b_shape, dtype, symbolic = case

    def names(shape, is_a):
        out = [None] * len(shape)
        if symbolic:
            out[-1 if is_a else (0 if len(shape) == 1 else -2)] = "k"
            if len(shape) > 1:
                out[-2 if is_a else -1] = "m" if is_a else "n"
        return out

    params = f'x: R.Tensor(({_dims(a_shape, names(a_shape, True))}), "{dtype}"), ' \
             f'y: R.Tensor(({_dims(b_shape, names(b_shape, False))}), "{dtype}")'
    b = Both(module(("f", params, "r = R.matmul(x, y)")))
    assert "R.matmul" not in b.legal.script()
    rng = np.random.default_rng(sum(a_shape) * 13 + sum(b_shape))
    x = (rng.integers(-4, 5, a_shape) if dtype == "int32" else rng.standard_normal(a_shape)).astype(dtype)
    y = (rng.integers(-4, 5, b_shape) if dtype == "int32" else rng.standard_normal(b_shape)).astype(dtype)
    want = np.matmul(x.astype("float64"), y.astype("float64")).astype(dtype)
    ref = b.ref("f", x, y)
    same(ref, np.asarray(want), tol=1e-5)
    same(b.tir("f", x, y), ref, tol=1e-5)


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM 0.25
# ---------------------------------------------------------------------------------------------------

SINFO_CASES = [
    ('x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4, "m"), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((2, "n", 4), "float32"), y: R.Tensor((4,), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((4,), "float32"), y: R.Tensor((3, 4, 5), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((5, 1, 2, 3), "float32"), y: R.Tensor((4, 3, 6), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((2, 3), "int8"), y: R.Tensor((3, 4), "int8")', 'R.matmul(x, y, out_dtype="int32")'),
    ('x: R.Tensor((2, 3), "bool"), y: R.Tensor((3, 4), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor(("n", 2, 3), "float32"), y: R.Tensor(("m", 3, 4), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor("float32", ndim=3), y: R.Tensor((3, 4), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((), "float32"), y: R.Tensor((3,), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((2, 3), "int32"), y: R.Tensor((3, 4), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor((2, 2, 3), "float32"), y: R.Tensor((3, 3, 4), "float32")', "R.matmul(x, y)"),
    ('x: R.Tensor(("n", 3), "float32"), y: R.Tensor((3, "m"), "float32")', 'R.einsum((x, y), "ij,jk->ik")'),
    ('x: R.Tensor((5, 2, 3), "float32"), y: R.Tensor((3, 4), "float32")', 'R.einsum((x, y), "...ij,...jk->...ik")'),
    ('x: R.Tensor(("n", 2, 3), "float32"), y: R.Tensor(("m", 3, 4), "float32")', 'R.einsum((x, y), "...ij,...jk")'),
    ('x: R.Tensor((3, 3), "float32")', 'R.einsum((x,), "ii->i")'),
    ('x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 4), "float32")', 'R.einsum((x, y), "Ab,bc")'),
    ('x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32")', 'R.einsum((x, y), "ij,jk->ik")'),
    ('x: R.Tensor((3,), "float32")', 'R.einsum((x,), "1i->i")'),
    ('x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "int32")', 'R.einsum((x, y), "i,i")'),
    ('x: R.Tensor("float32", ndim=3), y: R.Tensor((3, 4), "float32")', 'R.einsum((x, y), "...j,jk")'),
    ('x: R.Tensor(("n",), "float32"), y: R.Tensor((3,), "int32")', "R.outer(x, y)"),
    ('x: R.Tensor("float32", ndim=1), y: R.Tensor((3,), "float32")', "R.outer(x, y)"),
    ('x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")', "R.outer(x, y)"),
]


@pytest.mark.tvm
@pytest.mark.parametrize("case", SINFO_CASES, ids=[c[1] + "-" + str(i) for i, c in enumerate(SINFO_CASES)])
def test_struct_info_agrees_with_tvm(case):
    check_sinfo_with_tvm(call_text(*case))


@pytest.mark.tvm
def test_results_agree_with_tvm():
    check_table_with_tvm(FUNCS, lambda name: _inputs(name, 3), tol=1e-5)


@pytest.mark.tvm
def test_script_names_and_parameters_match_tvm():
    check_signatures_match_tvm(("matmul", "einsum", "outer"))
    assert registry.get("relax.matmul").attr_defaults() == {"out_dtype": "void"}

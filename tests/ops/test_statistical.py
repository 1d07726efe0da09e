"""Reductions and scans (sum prod mean variance std max min median cumsum cumprod): inference on
static, symbolic and invalid operands (OP.STAT.C1, OP.median.C1, OP.cumsum.C1), reference semantics
against independent numpy formulas (OP.STAT.SEM.*), legalized TensorIR == reference (static and
symbolic shapes), property tests over random axes/keepdims, and agreement with TVM 0.25 (struct info
and VM results)."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import DivisionByZeroError, OpRuntimeError, StructInfoError, UnsupportedError
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import ObjectStructInfo, TupleStructInfo
from relax_ref.transform.legalize_ops import LegalizeOps

from ops_helpers import (
    Both, T, both_of, call_text, check_signatures_match_tvm, check_sinfo_with_tvm, check_table_row, infer,
    module, run_tvm_table, same,
)

n, m = P.PrimVar("n"), P.PrimVar("m")
RNG = np.random.default_rng(11)


# ---------------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------------

REDUCTIONS = ("sum", "prod", "mean", "variance", "std", "max", "min")


@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_inference(op):
    name = f"relax.{op}"
    assert infer(name, T((2, 3, 4)), axis=(1,)) == T((2, 4))
    assert infer(name, T((2, 3, 4)), axis=(-1, 0), keepdims=True) == T((1, 3, 1))
    assert infer(name, T((2, 3, 4))) == T(())
    assert infer(name, T((2, 3, 4)), keepdims=True) == T((1, 1, 1))
    assert infer(name, T((2, 3, 4)), axis=()) == T((2, 3, 4))
    assert infer(name, T((n, m), "int32"), axis=(0,)) == T((m,), "int32")
    assert infer(name, T(None, "float16", 3), axis=(0,)) == T(None, "float16", 2)
    assert infer(name, T(None, "float32", 3), keepdims=True) == T((1, 1, 1))
    assert infer(name, T(None, "float32", 3)) == T(())
    assert infer(name, T(None, "float32"), axis=(0,)) == T(None, "float32", -1)
    assert infer(name, T(None, "float32"), keepdims=True) == T(None, "float32", -1)
    with pytest.raises(StructInfoError, match="non-repetitive"):
        infer(name, T((2, 3)), axis=(1, -1))
    with pytest.raises(StructInfoError, match="out of range"):
        infer(name, T((2, 3)), axis=(2,))
    with pytest.raises(StructInfoError, match="tensor"):
        infer(name, ObjectStructInfo())


def test_median_inference():
    i64 = "int64"
    assert infer("relax.median", T((n, 4)), axis=(1,)) == TupleStructInfo((T((n,)), T((n,), i64)))
    assert infer("relax.median", T((n, 4)), axis=(1,), keepdims=True) == TupleStructInfo((T((n, 1)), T((n, 1), i64)))
    assert infer("relax.median", T((2, 4)), axis=(0, 1)) == T(())
    assert infer("relax.median", T((2, 4))) == T(())
    assert infer("relax.median", T((2, 4)), keepdims=True) == T((1, 1))
    # unknown shape: a tuple whenever the rank is not 0 (TVM's rule)
    assert infer("relax.median", T(None, "float32", 3), axis=(0, 1)) == TupleStructInfo(
        (T(None, "float32", 1), T(None, i64, 1)))
    with pytest.raises(StructInfoError, match="out of range"):
        infer("relax.median", T((2, 4)), axis=(5,))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scan_inference(op):
    name = f"relax.{op}"
    assert infer(name, T((2, 3))) == T((6,))
    assert infer(name, T((n, 3))) == T((n * 3,))
    assert infer(name, T((2, 3), "int32"), axis=1, dtype="int64") == T((2, 3), "int64")
    assert infer(name, T(None, "float32", 2), axis=0) == T(None, "float32", 2)
    assert infer(name, T(None, "float32", 2)) == T(None, "float32", 2)
    assert infer(name, T(())) == T((1,))
    with pytest.raises(StructInfoError, match="out of range"):  # relax-ref checks the axis (OP.STAT.DIV.1)
        infer(name, T((2, 3)), axis=2)


# ---------------------------------------------------------------------------------------------------
# Reference semantics against numpy formulas
# ---------------------------------------------------------------------------------------------------

FUNCS = [
    ("sum_ax1", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.sum(x, axis=1)"),
    ("prod_all", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.prod(x)"),
    ("mean_keep", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.mean(x, axis=[0, 2], keepdims=True)"),
    ("var_ax", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.variance(x, axis=[-1])"),
    ("std_all", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.std(x)"),
    ("max_ax", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.max(x, axis=[0, 1])"),
    ("min_keep", 'x: R.Tensor(("n", 3, 4), "float32")', "r = R.min(x, keepdims=True)"),
    ("sum_i", 'x: R.Tensor(("n", 3), "int32")', "r = R.sum(x, axis=1)"),
    ("mean_i", 'x: R.Tensor(("n", 3), "int32")', "r = R.mean(x, axis=1)"),
    ("var_i", 'x: R.Tensor(("n", 3), "int32")', "r = R.variance(x, axis=1)"),
    ("std_i", 'x: R.Tensor(("n", 3), "int32")', "r = R.std(x, axis=1)"),
    ("max_i", 'x: R.Tensor(("n", 3), "int8")', "r = R.max(x, axis=0)"),
    ("median1", 'x: R.Tensor(("n", 4), "float32")', "r = R.median(x, axis=1)"),
    ("median_all", 'x: R.Tensor(("n", 4), "float32")', "r = R.median(x)"),
    ("cumsum1", 'x: R.Tensor(("n", 4), "float32")', "r = R.cumsum(x, axis=1)"),
    ("cumsum_flat", 'x: R.Tensor(("n", 4), "int32")', 'r = R.cumsum(x, dtype="int64", exclusive=True)'),
    ("cumprod0", 'x: R.Tensor(("n", 4), "float32")', "r = R.cumprod(x, axis=0, exclusive=True)"),
]


def _numpy_expected(name, x):
    if name == "sum_ax1":
        return x.sum(axis=1)
    if name == "prod_all":
        return np.prod(x.astype("float64")).astype("float32")
    if name == "mean_keep":
        return x.astype("float64").mean(axis=(0, 2), keepdims=True).astype("float32")
    if name == "var_ax":
        return x.astype("float64").var(axis=-1).astype("float32")
    if name == "std_all":
        return np.float32(x.astype("float64").std())
    if name == "max_ax":
        return x.max(axis=(0, 1))
    if name == "min_keep":
        return x.min(keepdims=True)
    if name == "sum_i":
        return x.sum(axis=1, dtype="int32")
    if name == "mean_i":
        s = x.astype("int64").sum(axis=1)
        return (np.sign(s) * (np.abs(s) // x.shape[1])).astype("int32")
    if name == "var_i":
        mean = np.trunc(x.sum(axis=1, dtype="int64") / x.shape[1]).astype("int64")
        d = x.astype("int64") - mean[:, None]
        return np.trunc((d * d).sum(axis=1) / x.shape[1]).astype("int32")
    if name == "std_i":
        mean = np.trunc(x.sum(axis=1, dtype="int64") / x.shape[1]).astype("int64")
        d = x.astype("int64") - mean[:, None]
        return np.sqrt(np.trunc((d * d).sum(axis=1) / x.shape[1]).astype("float32")).astype("int32")
    if name == "max_i":
        return x.max(axis=0)
    if name == "median1":
        s = np.sort(x, axis=1, kind="stable")
        idx = np.argsort(x, axis=1, kind="stable")[:, (x.shape[1] - 1) // 2]
        return s[:, (x.shape[1] - 1) // 2], idx.astype("int64")
    if name == "median_all":
        return np.sort(x.reshape(-1))[(x.size - 1) // 2]
    if name == "cumsum1":
        return np.cumsum(x, axis=1)
    if name == "cumsum_flat":
        c = np.cumsum(x.reshape(-1).astype("int64"))
        return np.concatenate([[0], c[:-1]]).astype("int64")
    if name == "cumprod0":
        c = np.cumprod(x, axis=0)
        return np.concatenate([np.ones((1, x.shape[1]), "float32"), c[:-1]], axis=0)
    raise AssertionError(name)


def _input(name, rows):
    params = dict((f, p) for f, p, _ in FUNCS)[name]
    dtype = params.split('"')[-2]
    cols = (3, 4) if "3, 4" in params else ((3,) if '"n", 3)' in params else (4,))
    shape = (rows,) + cols
    if dtype.startswith("int"):
        return RNG.integers(-9, 10, shape).astype(dtype)
    return RNG.uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize("name", [f[0] for f in FUNCS])
def test_reference_matches_numpy_and_legalized(name):
    """OP.STAT.SEM.1-7: reference vs a numpy formula; legalized TIR vs reference (symbolic n at two
    sizes)."""
    for rows in (2, 5):
        x = _input(name, rows)
        check_table_row(FUNCS, name, [x], _numpy_expected(name, x), tol=1e-5)


def test_nan_and_tie_semantics():
    """OP.STAT.SEM.3: max/min fold with ``acc > v ? acc : v``: a NaN survives only until the next
    element."""
    b = Both(module(("mx", 'x: R.Tensor((3, 3), "float32")', "r = R.max(x, axis=1)"),
                    ("mn", 'x: R.Tensor((3, 3), "float32")', "r = R.min(x, axis=1)")))
    x = np.array([[1, np.nan, 2], [1, 2, np.nan], [np.nan, 1, 2]], "float32")
    same(b.ref("mx", x), np.array([2, np.nan, 2], "float32"))
    same(b.ref("mn", x), np.array([2, np.nan, 1], "float32"))
    same(b.tir("mx", x), b.ref("mx", x))
    same(b.tir("mn", x), b.ref("mn", x))


def test_empty_reductions_give_the_identity():
    """OP.STAT.SEM.2, static and symbolic zero-length axes (kernel: T_full / T_select guard)."""
    funcs = [(f"{op}_{k}", 'x: R.Tensor((0, 3), "float32")' if k == "s" else 'x: R.Tensor(("n", 3), "float32")',
              f"r = R.{op}(x, axis=0)") for op in ("sum", "prod", "max", "min", "mean") for k in ("s", "d")]
    b = Both(module(*funcs))
    x = np.zeros((0, 3), "float32")
    lo, hi = np.finfo("float32").min, np.finfo("float32").max
    want = {"sum": 0.0, "prod": 1.0, "max": lo, "min": hi, "mean": np.nan}
    for name, _, _ in funcs:
        op = name.split("_")[0]
        exp = np.full(3, want[op], "float32")
        same(b.ref(name, x), exp)
        same(b.tir(name, x), exp)
    bi = Both(module(("f", 'x: R.Tensor(("n", 3), "int32")', "r = R.mean(x, axis=0)")))
    with pytest.raises(DivisionByZeroError):
        bi.ref("f", np.zeros((0, 3), "int32"))
    with pytest.raises(DivisionByZeroError):
        bi.tir("f", np.zeros((0, 3), "int32"))


def test_bool_and_wrapping():
    """OP.STAT.SEM.1: bool sum is or, prod is and; integer sums wrap; max of bool has no kernel."""
    b = Both(module(("s", 'x: R.Tensor((2, 2), "bool")', "r = R.sum(x, axis=1)"),
                    ("p", 'x: R.Tensor((2, 2), "bool")', "r = R.prod(x, axis=1)"),
                    ("w", 'x: R.Tensor((2,), "int8")', "r = R.sum(x)")))
    x = np.array([[True, False], [True, True]])
    same(b.ref("s", x), np.array([True, True]))
    same(b.ref("p", x), np.array([False, True]))
    same(b.tir("s", x), np.array([True, True]))
    same(b.tir("p", x), np.array([False, True]))
    same(b.ref("w", np.array([100, 100], "int8")), np.array(-56, "int8"))
    same(b.tir("w", np.array([100, 100], "int8")), np.array(-56, "int8"))
    mx = relax_ref.parse(module(("f", 'x: R.Tensor((2,), "bool")', "r = R.max(x)")))
    with pytest.raises(UnsupportedError):
        relax_ref.evaluate(mx, "f", np.array([True, False]))
    with pytest.raises(UnsupportedError):
        LegalizeOps()(mx)


def test_float16_sum_accumulates_in_float16():
    """OP.STAT.SEM.4: as TVM's kernel, 3000 float16 ones sum to 2048."""
    b = Both(module(("f", 'x: R.Tensor((3000,), "float16")', "r = R.sum(x)")))
    same(b.ref("f", np.ones(3000, "float16")), np.array(2048, "float16"))


def test_median_and_scan_edges():
    b = Both(module(("med", 'x: R.Tensor(("n",), "float32")', "r = R.median(x)"),
                    ("cs", 'x: R.Tensor(("n",), "bool")', 'r = R.cumsum(x, axis=0, dtype="int32")')))
    with pytest.raises(OpRuntimeError):
        b.ref("med", np.zeros(0, "float32"))
    same(b.ref("med", np.array([3, np.nan, 1, 2], "float32")), np.array(2, "float32"))  # NaN sorts last
    x = np.array([True, False, True])
    same(b.ref("cs", x), np.array([1, 1, 2], "int32"))
    same(b.tir("cs", x), np.array([1, 1, 2], "int32"))
    cb = relax_ref.parse(module(("cb", 'x: R.Tensor(("n",), "bool")', "r = R.cumsum(x, axis=0)")))
    with pytest.raises(UnsupportedError):
        relax_ref.evaluate(cb, "cb", x)
    with pytest.raises(UnsupportedError):
        LegalizeOps()(cb)


def test_median_kernel_multiple_axes():
    b = Both(module(("f", 'x: R.Tensor((2, "n", 3), "float32")', "r = R.median(x, axis=[0, 2], keepdims=True)")))
    x = RNG.standard_normal((2, 4, 3)).astype("float32")
    want = np.sort(np.moveaxis(x, 1, -1).reshape(-1, 4), axis=0)[(6 - 1) // 2]
    same(b.ref("f", x), want.reshape(1, 4, 1))
    same(b.tir("f", x), want.reshape(1, 4, 1))


# ---------------------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------------------


@st.composite
def reduction_case(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    if draw(st.booleans()):
        axes = None
    else:
        axes = draw(st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim))
    keepdims = draw(st.booleans())
    op = draw(st.sampled_from(REDUCTIONS))
    dtype = draw(st.sampled_from(["float32", "int32"]))
    symbolic = draw(st.booleans())
    return op, shape, axes, keepdims, dtype, symbolic


def _np_reduce(op, x, axes, keepdims):
    ax = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    count = int(np.prod([x.shape[a] for a in ax]))
    if x.dtype.kind == "f":
        x64 = x.astype("float64")
        with np.errstate(all="ignore"):
            if op == "sum":
                r = x64.sum(axis=ax, keepdims=keepdims)
            elif op == "prod":
                r = x64.prod(axis=ax, keepdims=keepdims)
            elif op == "max":
                r = x64.max(axis=ax, keepdims=keepdims, initial=np.finfo("float32").min)
            elif op == "min":
                r = x64.min(axis=ax, keepdims=keepdims, initial=np.finfo("float32").max)
            else:
                s = x64.sum(axis=ax, keepdims=True)
                mean = s / count
                if op == "mean":
                    r = x64.sum(axis=ax, keepdims=keepdims) / count
                else:
                    r = ((x64 - mean) ** 2).sum(axis=ax, keepdims=keepdims) / count
                    if op == "std":
                        r = np.sqrt(r)
        return np.asarray(r).astype("float32")
    if op in ("mean", "variance", "std") and count == 0:
        return DivisionByZeroError
    if op == "sum":
        return np.asarray(x.sum(axis=ax, keepdims=keepdims, dtype="int32"))
    if op == "prod":
        return np.asarray(x.prod(axis=ax, keepdims=keepdims, dtype="int32"))
    if op == "max":
        return np.asarray(x.max(axis=ax, keepdims=keepdims, initial=np.iinfo("int32").min))
    if op == "min":
        return np.asarray(x.min(axis=ax, keepdims=keepdims, initial=np.iinfo("int32").max))
    s = x.sum(axis=ax, keepdims=True, dtype="int32").astype("int64")
    mean = np.sign(s) * (np.abs(s) // count)
    if op == "mean":
        r = mean if keepdims else mean.reshape([d for i, d in enumerate(mean.shape) if i not in ax])
        return np.asarray(r).astype("int32")
    d = x.astype("int64") - mean
    ss = (d * d).sum(axis=ax, keepdims=keepdims)
    var = np.sign(ss) * (np.abs(ss) // count)
    if op == "variance":
        return np.asarray(var).astype("int32")
    return np.sqrt(var.astype("float32")).astype("int32")


@settings(max_examples=25)
@given(reduction_case())
def test_property_reductions(case):
    """Random shapes (zero-size dims included), axes and keepdims: reference == independent numpy
    formula, and legalized TIR == reference (symbolic or static dims)."""
    op, shape, axes, keepdims, dtype, symbolic = case
    dims = ", ".join(f'"d{i}"' if symbolic else str(d) for i, d in enumerate(shape))
    ax = "None" if axes is None else "[" + ", ".join(str(a) for a in axes) + "]"
    b = Both(module(("f", f'x: R.Tensor(({dims},), "{dtype}")', f"r = R.{op}(x, axis={ax}, keepdims={keepdims})")))
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    x = (rng.integers(-5, 6, shape) if dtype == "int32" else rng.uniform(-2, 2, shape)).astype(dtype)
    want = _np_reduce(op, x, axes, keepdims)
    if want is DivisionByZeroError:
        with pytest.raises(DivisionByZeroError):
            b.ref("f", x)
        with pytest.raises(DivisionByZeroError):
            b.tir("f", x)
        return
    ref = b.ref("f", x)
    same(ref, want, tol=1e-4)
    same(b.tir("f", x), ref, tol=1e-5)


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM 0.25
# ---------------------------------------------------------------------------------------------------

SINFO_CASES = [
    ('x: R.Tensor((2, 3, 4), "float32")', "R.sum(x, axis=[1])"),
    ('x: R.Tensor((2, 3, 4), "float32")', "R.mean(x, axis=[0, -1], keepdims=True)"),
    ('x: R.Tensor(("n", "m"), "int32")', "R.max(x)"),
    ('x: R.Tensor(("n", "m"), "int32")', "R.min(x, keepdims=True)"),
    ('x: R.Tensor("float32", ndim=3)', "R.prod(x, axis=[1])"),
    ('x: R.Tensor("float32", ndim=3)', "R.variance(x, keepdims=True)"),
    ('x: R.Tensor("float32")', "R.std(x, axis=[1])"),
    ('x: R.Tensor((2, 3), "float32")', "R.sum(x, axis=[1, 1])"),
    ('x: R.Tensor((2, 3), "float32")', "R.sum(x, axis=[2])"),
    ('x: R.Tensor(("n", 4), "float32")', "R.median(x, axis=[1])"),
    ('x: R.Tensor(("n", 4), "float32")', "R.median(x, axis=[0, 1])"),
    ('x: R.Tensor(("n", 4), "float32")', "R.median(x, keepdims=True)"),
    ('x: R.Tensor("float32", ndim=2)', "R.median(x, axis=[1])"),
    ('x: R.Tensor(("n", 4), "float32")', "R.cumsum(x)"),
    ('x: R.Tensor(("n", 4), "int32")', 'R.cumprod(x, axis=1, dtype="int64")'),
    ('x: R.Tensor("float32", ndim=2)', "R.cumsum(x, axis=0, exclusive=True)"),
    ('x: R.Tensor((2, 3), "float32")', "R.sum(x, axis=None, keepdims=False)"),
]


@pytest.mark.tvm
@pytest.mark.parametrize("case", SINFO_CASES, ids=[c[1] for c in SINFO_CASES])
def test_struct_info_agrees_with_tvm(case):
    check_sinfo_with_tvm(call_text(*case))


#: functions whose TVM 0.25 result differs from relax-ref by design (see the spec pages)
TVM_DIFFERENT = {"mean_i", "var_i", "std_i"}  # TVM returns int64 / float32 (DIV.23)


@pytest.mark.tvm
def test_results_agree_with_tvm():
    pytest.importorskip("tvm")
    inputs = {name: [_input(name, 3)] for name, _, _ in FUNCS}
    theirs = run_tvm_table(FUNCS, inputs)
    b = both_of(FUNCS)
    for name, args in inputs.items():
        ours = b.ref(name, *args)
        if name in TVM_DIFFERENT:
            # the values agree; only the dtype differs
            np.testing.assert_allclose(np.asarray(ours).astype("float64"),
                                       np.trunc(np.asarray(theirs[name]).astype("float64")), rtol=1e-6)
            continue
        same(ours, theirs[name], tol=1e-5)


@pytest.mark.tvm
def test_script_names_and_parameters_match_tvm():
    check_signatures_match_tvm(REDUCTIONS + ("median", "cumsum", "cumprod"))

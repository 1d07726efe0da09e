"""Findings of the fourteenth fuzzing run (docs/FUZZING.md, seed 20261219): a convolution with an
empty kernel window on relax_jax (OP.NN.CONV.SEM.1), ``einsum`` on an 8-bit float on the reference
(OP.LINALG.SEM.2/4) and the implicit promotion of a float constant in TensorIR text (PRIM.DTYPE.1,
TEXT.RT.1). Expected values come from numpy formulas written here, never from the evaluators."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_ref.errors import RelaxError  # noqa: E402
from relax_ref.ir import prim_expr as P  # noqa: E402
from relax_ref.ir import tir  # noqa: E402

from limits.fuzz_cases import HEAD, relax_main as _fn, results_on_both as _both  # noqa: E402

F8 = {"float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


# ---------------------------------------------------------------------------------------------------
# (1) a convolution whose kernel has a spatial extent of 0
# ---------------------------------------------------------------------------------------------------

REPRODUCER_CONV = _fn('x: R.Tensor(("n", 4, "h", 6), "float32"), w: R.Tensor((3, 4, 3, 0), "float32")',
                      "y = R.nn.conv2d(x, w, strides=(2, 1), padding=(0, 1))\nreturn y",
                      'R.Tensor(ndim=4, dtype="float32")')


def _out_size(n: int, k: int, s: int = 1, pb: int = 0, pe: int = 0, d: int = 1) -> int:
    return (n + pb + pe - d * (k - 1) - 1) // s + 1


def test_the_conv_reproducer_is_zeros_of_the_inferred_shape_on_both():
    """The run's ``crash|jax|run|ValueError|relax_jax/guard.py:guarded_compile``: XLA's verifier
    refused the window dimension 0. A sum over no terms is 0 (the reference's answer, and TVM's
    inferred shape); relax_jax gives the same."""
    mod = relax_ref.parse(REPRODUCER_CONV)
    x = np.random.default_rng(0).standard_normal((2, 4, 3, 6)).astype("float32")
    w = np.zeros((3, 4, 3, 0), "float32")
    want = np.zeros((2, 3, _out_size(3, 3, s=2), _out_size(6, 0, pb=1, pe=1)), "float32")
    assert want.shape == (2, 3, 1, 9)
    for got in _both(mod, x, w):
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(np.asarray(got), want)


EMPTY_KERNELS = [
    # call, data shape, weight shape, expected result shape (hand-computed with k = 0)
    ("R.nn.conv1d(x, w)", (2, 4, 6), (3, 4, 0), (2, 3, _out_size(6, 0))),
    ("R.nn.conv1d(x, w, strides=2, padding=(1, 2), dilation=3)", (2, 4, 6), (3, 4, 0),
     (2, 3, _out_size(6, 0, s=2, pb=1, pe=2, d=3))),
    ("R.nn.conv2d(x, w, groups=2)", (1, 4, 5, 5), (6, 2, 0, 2), (1, 6, _out_size(5, 0), _out_size(5, 2))),
    ("R.nn.conv3d(x, w)", (2, 4, 3, 6, 5), (3, 4, 3, 0, 2), (2, 3, 1, _out_size(6, 0), _out_size(5, 2))),
    ("R.nn.conv3d(x, w)", (1, 2, 3, 3, 3), (2, 2, 0, 0, 0), (1, 2, 4, 4, 4)),
    ('R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO")', (2, 3, 6, 4), (3, 0, 4, 3),
     (2, 1, _out_size(6, 0), 3)),
    ("R.nn.conv1d_transpose(x, w)", (2, 4, 6), (4, 3, 0), (2, 3, (6 - 1) + 0)),
    ("R.nn.conv2d_transpose(x, w, strides=2)", (2, 4, 3, 6), (4, 3, 3, 0), (2, 3, 2 * 2 + 3, 2 * 5 + 0)),
    ("R.nn.conv3d_transpose(x, w)", (2, 4, 3, 6, 5), (4, 3, 3, 0, 2), (2, 3, 5, 5, 6)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool"])
@pytest.mark.parametrize("call, xs, ws, want", EMPTY_KERNELS)
def test_an_empty_kernel_window_gives_zeros_on_both(call, xs, ws, want, dtype):
    """OP.NN.CONV.SEM.1: every convolution (and transpose) with a kernel extent of 0 is all zeros of
    the inferred shape, in the output dtype, on both evaluators."""
    mod = relax_ref.parse(_fn(f'x: R.Tensor({xs}, "{dtype}"), w: R.Tensor({ws}, "{dtype}")', f"y = {call}\nreturn y"))
    x = (np.arange(np.prod(xs)).reshape(xs) % 3 + 1).astype(dtype)
    w = np.ones(ws, dtype)
    for got in _both(mod, x, w):
        assert not isinstance(got, Exception), got
        got = np.asarray(got)
        assert got.dtype == np.dtype(dtype) and got.shape == want
        assert not got.any()


def test_zero_input_features_and_a_nonempty_window_give_zeros_on_both():
    """``C / groups = 0`` is the other sum over no terms (XLA accepts it; the guard is for windows)."""
    mod = relax_ref.parse(_fn('x: R.Tensor((2, 0, 3, 6), "float32"), w: R.Tensor((3, 0, 3, 3), "float32")',
                              "y = R.nn.conv2d(x, w, padding=1)\nreturn y"))
    for got in _both(mod, np.zeros((2, 0, 3, 6), "float32"), np.zeros((3, 0, 3, 3), "float32")):
        np.testing.assert_array_equal(np.asarray(got), np.zeros((2, 3, 3, 6), "float32"))


def test_a_zero_pool_window_is_refused_at_inference():
    """The pools' zero windows never reach an evaluator: a pool size of 0 is a struct_info error."""
    for call in ("R.nn.max_pool2d(x, pool_size=(0, 1))", "R.nn.avg_pool1d(x, pool_size=0)",
                 "R.nn.max_pool3d(x, pool_size=(1, 0, 1))"):
        nd = 3 if "1d" in call else 4 if "2d" in call else 5
        with pytest.raises(RelaxError) as info:
            relax_ref.parse(_fn(f'x: R.Tensor({(2,) * nd}, "float32")', f"y = {call}\nreturn y"))
        assert info.value.kind == "struct_info"


# ---------------------------------------------------------------------------------------------------
# (2) einsum (and matmul) on the 8-bit floats
# ---------------------------------------------------------------------------------------------------

REPRODUCER_EINSUM = _fn('a: R.Tensor((3, 3), "float8_e4m3fn")', 'y = R.einsum((a,), "ii")\nreturn y',
                        'R.Tensor((), "float32")')


def test_the_einsum_reproducer_is_the_same_dtype_mismatch_on_both():
    """The run's ``crash|ref|run|TypeError|ops/linalg.py:einsum_values``: numpy's einsum refused the
    dtype. The program declares a float32 result for a float8 trace: both evaluators now compute the
    trace and report the return value's dtype."""
    mod = relax_ref.parse(REPRODUCER_EINSUM)
    a = np.arange(9).reshape(3, 3).astype(ml_dtypes.float8_e4m3fn)
    for got in _both(mod, a):
        assert isinstance(got, RelaxError) and got.kind == "dtype_mismatch", got


def _trace_rounded_once(a: np.ndarray) -> np.ndarray:
    return np.asarray(sum(float(a[i, i]) for i in range(a.shape[0]))).astype(a.dtype)


@pytest.mark.parametrize("dtype", sorted(F8))
def test_float8_einsum_sums_in_float32_and_rounds_once(dtype):
    """OP.LINALG.SEM.4: 1 + 4 * 2**-4 is 1.25 rounded once; rounding every step to e4m3 (3 mantissa
    bits) or e5m2 (2) would keep 1 + 2**-4 at 1 each time."""
    nd = F8[dtype]
    a = np.diag([1.0, 0.0625, 0.0625, 0.0625, 0.0625]).astype(nd)
    want = _trace_rounded_once(a)
    assert float(want) == 1.25 and float(np.asarray(1.0625).astype(nd)) == 1.0
    mod = relax_ref.parse(_fn(f'a: R.Tensor((5, 5), "{dtype}")', 'y = R.einsum((a,), "ii")\nreturn y'))
    for got in _both(mod, a):
        got = np.asarray(got)
        assert got.dtype == nd and float(got) == float(want), got


@pytest.mark.parametrize("dtype", sorted(F8))
@pytest.mark.parametrize("subscripts, kind", [("ij,jk->ik", "matmul"), ("ij,ij->i", "rowdot"), ("ij,kj", "implicit")])
def test_float8_contractions_agree_with_float64_rounded_once(dtype, subscripts, kind):
    """Operands of small multiples of 1/4 (every float32 product and partial sum exact): the result is
    the float64 contraction rounded once to the dtype, on both evaluators, for einsum and matmul."""
    nd = F8[dtype]
    rng = np.random.default_rng(7)
    a = (rng.integers(-8, 9, (4, 6)) / 4).astype(nd)
    b = (rng.integers(-8, 9, (6, 5) if kind == "matmul" else (4, 6) if kind == "rowdot" else (3, 6)) / 4).astype(nd)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = {"matmul": lambda: a64 @ b64, "rowdot": lambda: (a64 * b64).sum(1), "implicit": lambda: a64 @ b64.T}[kind]()
    want = exact.astype(nd)
    call = f'R.einsum((a, b), "{subscripts}")'
    calls = [call] + (["R.matmul(a, b)"] if kind == "matmul" else [])
    for c in calls:
        mod = relax_ref.parse(_fn(f'a: R.Tensor({a.shape}, "{dtype}"), b: R.Tensor({b.shape}, "{dtype}")',
                                  f"y = {c}\nreturn y"))
        for got in _both(mod, a, b):
            got = np.asarray(got)
            assert got.dtype == nd, (c, got.dtype)
            np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64), err_msg=c)


# ---------------------------------------------------------------------------------------------------
# (3) the implicit promotion of a float constant in TensorIR text
# ---------------------------------------------------------------------------------------------------

REPRODUCER_TIR = HEAD + '''    @T.prim_func
    def shift(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            t = A[i] + T.Cast("float64", k)
            if t > T.float32(0):
                B[i] = T.float32(0)
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([2]))
        return y
'''


def _fixed_point(mod):
    text = mod.script()
    back = relax_ref.parse(text)
    assert relax_ref.structural_equal(mod, back), text
    assert back.script() == text


def test_the_tir_reproducer_round_trips():
    """The run's ``roundtrip|RoundTrip``: ``t > T.float32(0)`` with ``t`` float64 was built as
    ``t > T.Cast("float64", T.float32(0.0))``, which printed and parsed back as ``T.float64(0.0)``."""
    mod = relax_ref.parse(REPRODUCER_TIR)
    _fixed_point(mod)
    assert "T.float64(0.0)" in mod.script()


def _prim(body: str, dtype: str = "float64") -> str:
    return HEAD + f'''    @T.prim_func
    def f(A: T.Buffer((2,), "{dtype}"), B: T.Buffer((2,), "float64")):
        for i in range(2):
{body}
    @R.function
    def main(x: R.Tensor((2,), "{dtype}")) -> R.Tensor((2,), "float64"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((2,), "float64"))
        return y
'''


def _stored(mod) -> P.PrimExpr:
    body = mod["f"].body
    while not isinstance(body, tir.BufferStore):
        body = body.body
    return body.value


def test_an_implicitly_promoted_constant_is_folded_as_tvm_does():
    """PRIM.DTYPE.1: TVM 0.25 and 0.27 build ``A[i] + T.float64(0.1)`` (the written value, not the
    float32-rounded one) for a float64 ``A`` and ``T.float32(0.1)``."""
    mod = relax_ref.parse(_prim("            B[i] = A[i] + T.float32(0.1)"))
    v = _stored(mod)
    assert isinstance(v, P.Add) and v.b == P.FloatImm(0.1, "float64")
    _fixed_point(mod)
    x = np.array([1.0, -2.0])
    for got in _both(mod, x):
        np.testing.assert_array_equal(np.asarray(got), x + 0.1)


def test_a_written_float_cast_of_a_constant_is_kept_and_rounds_first():
    """``T.Cast("float64", T.float32(0.1))`` stays a Cast (as in TVM), so its value is the float32
    constant widened, 0.100000001490116..., and print -> parse keeps it."""
    mod = relax_ref.parse(_prim('            B[i] = A[i] + T.Cast("float64", T.float32(0.1))'))
    v = _stored(mod)
    assert isinstance(v.b, P.Cast) and v.b.value == P.FloatImm(0.1, "float32")
    _fixed_point(mod)
    x = np.array([1.0, -2.0])
    for got in _both(mod, x):
        np.testing.assert_array_equal(np.asarray(got), x + np.float64(np.float32(0.1)))


@pytest.mark.parametrize("expr", [
    "A[i] > T.float32(0.5)", "T.float16(0.5) < A[i]", "A[i] * T.float16(3.0) > A[i]",
    'A[i] + T.Cast("float64", T.float16(0.25)) > T.float32(1)', "T.max(A[i], T.float32(-1.5)) > A[i]",
    "T.if_then_else(A[i] > 0, A[i], T.float32(2.5)) > A[i]",
])
def test_mixed_float_comparisons_round_trip(expr):
    """Every float promotion of TIR text, written in any place, prints to text that parses back to the
    same module (TEXT.RT.1)."""
    mod = relax_ref.parse(_prim(f"            B[i] = T.Select({expr}, T.float64(1), T.float64(0))"))
    _fixed_point(mod)

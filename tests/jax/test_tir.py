"""TensorIR lowering: vectorized block nests (no per-element loops), sums of products as dot_general,
sequential fallbacks for loop-carried dependences, bounds and other run-time errors."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import AssertionFailedError, DivisionByZeroError, OpRuntimeError, TIRBoundsError
from relax_ref.transform.legalize_ops import LegalizeOps
from tir_prims import HEADER, prims

RNG = np.random.default_rng(0)

#: the start of a ``main`` binding s = softmax(gelu(x @ w)) in a dataflow block
SOFTMAX_OF_GELU = '''    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 8), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            h = R.matmul(x, w)
            g = R.nn.gelu(h)
            s = R.nn.softmax(g, axis=-1)
'''

LEGAL_SRC = HEADER + "\n" + SOFTMAX_OF_GELU + '''            m = R.mean(s, axis=[1], keepdims=True)
            y = R.subtract(R.exp(s), m)
            R.output(y)
        return y
'''


def test_legalized_module_is_vectorized_and_exact_under_bucketing():
    mod = relax_ref.parse(LEGAL_SRC)
    legal = LegalizeOps()(mod)
    assert any(True for _ in legal.prim_funcs())
    exe = relax_jax.compile(legal)
    w = RNG.standard_normal((16, 8)).astype(np.float32)
    for n in (3, 4, 7):
        x = RNG.standard_normal((n, 16)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w),
                                   rtol=1e-5, atol=1e-6)
    assert exe.stats.fallbacks == 0 and exe.stats.compiles == 2
    c = prims(exe, "main", x, w)
    assert c["dot_general"] == 1
    assert c["while"] == 0 and c["scan"] == 0 and c["gather"] == 0 and c["scatter"] == 0
    assert c["reduce_or"] == 0          # every access proven in bounds: no run-time checks


CONV_SRC = HEADER + '''
    @T.prim_func
    def conv(X: T.Buffer((T.int64(1), T.int64(4), T.int64(10), T.int64(10)), "float32"),
             W: T.Buffer((T.int64(6), T.int64(4), T.int64(3), T.int64(3)), "float32"),
             Y: T.Buffer((T.int64(1), T.int64(6), T.int64(8), T.int64(8)), "float32")):
        for n, f, y, x, rc, ry, rx in T.grid(T.int64(1), T.int64(6), T.int64(8), T.int64(8), T.int64(4), T.int64(3), T.int64(3)):
            with T.block("conv"):
                vn, vf, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
                with T.init():
                    Y[vn, vf, vy, vx] = T.float32(0)
                Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + X[vn, vrc, vy + vry, vx + vrx] * W[vf, vrc, vry, vrx]

    @R.function
    def main(x: R.Tensor((1, 4, 10, 10), "float32"), w: R.Tensor((6, 4, 3, 3), "float32")) -> R.Tensor((1, 6, 8, 8), "float32"):
        cls = Module
        y = R.call_tir(cls.conv, (x, w), out_sinfo=R.Tensor((1, 6, 8, 8), "float32"))
        return y
'''


def test_convolution_window_becomes_one_convolution():
    mod = relax_ref.parse(CONV_SRC)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal((1, 4, 10, 10)).astype(np.float32)
    w = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w), rtol=1e-4,
                               atol=1e-5)
    c = prims(exe, "main", x, w)
    assert c["conv_general_dilated"] == 1 and c["dot_general"] == 0
    assert c["while"] == 0 and c["gather"] == 0


@pytest.mark.parametrize("kw", [
    dict(strides=(2, 2), dilation=(1, 1), padding=(0, 0, 0, 0), groups=1),
    dict(strides=(1, 2), dilation=(2, 1), padding=(1, 2, 0, 1), groups=1),
    dict(strides=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), groups=2),
    dict(strides=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), groups=4),
])
def test_legalized_conv2d_variants_match_the_reference(kw):
    src = HEADER + f'''
    @R.function
    def main(x: R.Tensor((2, 4, 9, 11), "float32"), w: R.Tensor((8, {4 // kw["groups"]}, 3, 3), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, strides={kw["strides"]}, padding={kw["padding"]}, dilation={kw["dilation"]},
                            groups={kw["groups"]})
            R.output(y)
        return y
'''
    mod = relax_ref.parse(src)
    legal = LegalizeOps()(mod)
    exe = relax_jax.compile(legal)
    x = RNG.standard_normal((2, 4, 9, 11)).astype(np.float32)
    w = RNG.standard_normal((8, 4 // kw["groups"], 3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w), rtol=1e-4,
                               atol=1e-4)
    c = prims(exe, "main", x, w)
    assert c["while"] == 0 and c["scan"] == 0
    if kw["groups"] == 1:
        assert c["conv_general_dilated"] == 1


CONV1D_SRC = HEADER + '''
    @T.prim_func
    def conv(X: T.Buffer((T.int64(3), T.int64(23)), "float64"), W: T.Buffer((T.int64(5), T.int64(3), T.int64(4)), "float64"),
             Y: T.Buffer((T.int64(5), T.int64(6)), "float64")):
        for f, y, c, r in T.grid(T.int64(5), T.int64(6), T.int64(3), T.int64(4)):
            with T.block("conv"):
                vf, vy, vc, vr = T.axis.remap("SSRR", [f, y, c, r])
                with T.init():
                    Y[vf, vy] = T.float64(1)
                Y[vf, vy] = Y[vf, vy] + T.float64(0.5) * X[vc, vy * 3 + vr * 2 + 1] * W[vf, vc, vr]

    @R.function
    def main(x: R.Tensor((3, 23), "float64"), w: R.Tensor((5, 3, 4), "float64")) -> R.Tensor((5, 6), "float64"):
        cls = Module
        y = R.call_tir(cls.conv, (x, w), out_sinfo=R.Tensor((5, 6), "float64"))
        return y
'''


def test_strided_dilated_window_with_scale_and_init():
    mod = relax_ref.parse(CONV1D_SRC)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal((3, 23))
    w = RNG.standard_normal((5, 3, 4))
    np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(mod, "main", x, w), rtol=1e-12,
                               atol=1e-12)
    c = prims(exe, "main", x, w)
    assert c["conv_general_dilated"] == 1


SCAN_SRC = HEADER + '''
    @T.prim_func
    def prefix(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        acc = T.alloc_buffer((T.int64(1),), "int32")
        acc[0] = 0
        for i in range(n):
            acc[0] = acc[0] + A[i]
            B[i] = acc[0]

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.prefix, (x,), out_sinfo=R.Tensor((n,), "int32"))
        return y
'''


def test_loop_carried_dependence_runs_as_a_loop():
    mod = relax_ref.parse(SCAN_SRC)
    exe = relax_jax.compile(mod)
    for n in (1, 5, 6):
        x = RNG.integers(-9, 9, n).astype(np.int32)
        np.testing.assert_array_equal(np.asarray(exe("main", x)), np.cumsum(x))
    assert prims(exe, "main", x)["while"] == 1


def _shifted_call(name: str, kernel: str) -> str:
    """A Relax function ``name(x, k)`` calling ``kernel`` with the scalar ``k`` as its shift."""
    return f'''    @R.function
    def {name}(x: R.Tensor(("n",), "int32"), k: R.Prim("int64")) -> R.Tensor(("n",), "int32"):
        n = T.int64()
        k1 = T.int64()
        cls = Module
        _ = R.match_cast(k, R.Prim(value=k1))
        y = R.call_tir(cls.{kernel}, (x,), out_sinfo=R.Tensor((n,), "int32"), tir_vars=R.shape([k1]))
        return y
'''


ERR_SRC = HEADER + '''
    @T.prim_func
    def kernel(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            with T.block("b"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] // A[(vi + k) % n]

    @T.prim_func
    def write(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            B[i + k] = A[i]

    @T.prim_func
    def check(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            assert A[i] >= 0, "negative input"
            B[i] = A[i]

    @T.prim_func
    def into_input(A: T.Buffer((T.int64(2),), "int32"), B: T.Buffer((T.int64(2),), "int32")):
        for i in range(T.int64(2)):
            A[i] = B[i]

''' + _shifted_call("div", "kernel") + "\n" + _shifted_call("oob", "write") + '''
    @R.function
    def asserted(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.check, (x,), out_sinfo=R.Tensor((n,), "int32"))
        return y

    @R.function
    def readonly(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        cls = Module
        y = R.call_tir(cls.into_input, (x,), out_sinfo=R.Tensor((2,), "int32"))
        return y
'''


@pytest.mark.parametrize("entry, args, err", [
    ("div", (np.array([4, 0, 6], np.int32), 1), DivisionByZeroError),
    ("oob", (np.array([1, 2, 3], np.int32), 1), TIRBoundsError),
    ("asserted", (np.array([1, -2, 3], np.int32),), AssertionFailedError),
    ("readonly", (np.array([1, 2], np.int32),), OpRuntimeError),
])
def test_run_time_errors_match_the_reference(entry, args, err):
    mod = relax_ref.parse(ERR_SRC)
    exe = relax_jax.compile(mod)
    with pytest.raises(err):
        relax_ref.evaluate(mod, entry, *args)
    with pytest.raises(err):
        exe(entry, *args)


def test_run_time_checks_accept_valid_data():
    mod = relax_ref.parse(ERR_SRC)
    exe = relax_jax.compile(mod)
    x = np.array([4, 2, 6], np.int32)
    np.testing.assert_array_equal(np.asarray(exe("div", x, 1)), relax_ref.evaluate(mod, "div", x, 1))
    np.testing.assert_array_equal(np.asarray(exe("oob", x, 0)), x)
    np.testing.assert_array_equal(np.asarray(exe("asserted", x)), x)


@pytest.mark.tvm
def test_tvm_legalized_and_fused_module():
    tvm = pytest.importorskip("tvm")
    from tvm import relax
    from tvm.script import from_source

    src = '''
@I.ir_module
class Module:
''' + SOFTMAX_OF_GELU + '''            R.output(s)
        return s
'''
    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
                                    relax.transform.FuseOps(), relax.transform.FuseTIR()])
    text = seq(from_source(src)).script()
    mod = relax_ref.parse(text)
    exe = relax_jax.compile(mod)
    w = RNG.standard_normal((16, 8)).astype(np.float32)
    ref = relax_ref.parse("from tvm.script import ir as I, relax as R, tirx as T\n" + src)
    for n in (3, 5):
        x = RNG.standard_normal((n, 16)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(exe("main", x, w)), relax_ref.evaluate(ref, "main", x, w), rtol=1e-5,
                                   atol=1e-6)
    c = prims(exe, "main", x, w)
    assert c["dot_general"] == 1 and c["while"] == 0

"""``Executable.as_jax_function`` composes with jax.jit, jax.grad and jax.vmap."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import ShapeMismatchError, UnsupportedError

MOD = relax_ref.parse('''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def mlp(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            h = R.matmul(x, w)
            a = R.nn.gelu(h)
            s = R.nn.softmax(a, axis=-1)
            R.output(s)
        return s

    @R.function
    def loss(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 4), "float32")) -> R.Tensor((), "float32"):
        cls = Module
        with R.dataflow():
            y = cls.mlp(x, w)
            l = R.sum(R.multiply(y, y))
            R.output(l)
        return l

    @T.prim_func
    def scale(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)), "float32")
        B = T.match_buffer(b, (n, T.int64(4)), "float32")
        for i, j in T.grid(n, T.int64(4)):
            with T.block("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(3)

    @R.function
    def tir(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.scale, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
        return y

    @R.function
    def div(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
        z = R.floor_divide(x, y)
        return z
''')

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 8)).astype(np.float32)
W = RNG.standard_normal((8, 4)).astype(np.float32)


def test_inside_jit_matches_the_reference():
    exe = relax_jax.compile(MOD)
    f = jax.jit(exe.as_jax_function("mlp"))
    np.testing.assert_allclose(np.asarray(f(X, W)), relax_ref.evaluate(MOD, "mlp", X, W), rtol=1e-5, atol=1e-6)


def test_grad_matches_finite_differences():
    exe = relax_jax.compile(MOD)
    loss = exe.as_jax_function("loss")
    g = jax.grad(lambda w: loss(X, w))(jnp.asarray(W))
    eps = 1e-3
    fd = np.zeros_like(W)
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            wp, wm = W.copy(), W.copy()
            wp[i, j] += eps
            wm[i, j] -= eps
            fd[i, j] = (float(relax_ref.evaluate(MOD, "loss", X, wp)) - float(relax_ref.evaluate(MOD, "loss", X, wm))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g), fd, rtol=2e-2, atol=2e-3)


def test_vmap_over_a_batch():
    exe = relax_jax.compile(MOD)
    xs = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    out = jax.vmap(exe.as_jax_function("mlp"), in_axes=(0, None))(xs, W)
    for b in range(3):
        np.testing.assert_allclose(np.asarray(out[b]), relax_ref.evaluate(MOD, "mlp", xs[b], W), rtol=1e-5, atol=1e-6)


def test_tir_kernel_under_jit_grad_and_vmap():
    exe = relax_jax.compile(MOD)
    f = exe.as_jax_function("tir")
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(x)), 3 * x)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: jnp.sum(f(v)))(x)), np.full_like(x, 3))
    np.testing.assert_allclose(np.asarray(jax.vmap(f)(np.stack([x, x]))), 3 * np.stack([x, x]))


def test_parameter_checks_happen_while_tracing():
    exe = relax_jax.compile(MOD)
    with pytest.raises(ShapeMismatchError):
        jax.jit(exe.as_jax_function("mlp"))(X, W[:7])


def test_data_checks_need_an_explicit_mode():
    exe = relax_jax.compile(MOD)
    a = np.array([4, 5, 6], np.int32)
    b = np.array([2, 1, 3], np.int32)
    with pytest.raises(UnsupportedError, match="checks="):
        jax.jit(exe.as_jax_function("div"))(a, b)
    np.testing.assert_array_equal(np.asarray(jax.jit(exe.as_jax_function("div", checks="off"))(a, b)), [2, 5, 2])
    from jax.experimental import checkify

    f = checkify.checkify(exe.as_jax_function("div", checks="checkify"))
    err, out = f(a, np.array([2, 0, 3], np.int32))
    assert err.get() is not None
    err, out = f(a, b)
    assert err.get() is None

"""relax_jax: block-level ``T.match_buffer`` windows (TIR.BLOCK.MATCH.1) and packed calls from TensorIR to
functions other than the sort kernels (TIR.PACKED.1-2), against hand-computed values and the reference
interpreter's errors."""

from __future__ import annotations

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import OpRuntimeError, PackedFuncError, TIRBoundsError

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"

WINDOW = HEADER + '''
    @T.prim_func(s_tir=True)
    def shift_rows(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i in range(n):
            with T.sblock("row"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi, 0:m])
                T.writes(B[vi, 0:m])
                W = T.match_buffer(B[vi, 0:m], (m,), "float32", offset_factor=1)
                for j in range(m):
                    W[j] = A[vi, j] + T.Cast("float32", vi * 10 + OFFSET)

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.shift_rows, (x,), out_sinfo=R.Tensor((n, m), "float32"))
        return y
'''


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (2, 0), (3, 4)])
def test_writes_through_a_window_reach_the_buffer(shape):
    exe = relax_jax.compile(relax_ref.parse(WINDOW.replace("OFFSET", "0")))
    x = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
    want = x + (np.arange(shape[0], dtype="float32") * 10)[:, None]
    np.testing.assert_array_equal(np.asarray(exe("main", x)), want)


def test_a_window_outside_its_buffer_is_out_of_bounds():
    text = WINDOW.replace("OFFSET", "0").replace("B[vi, 0:m], (m,)", "B[vi, 1:m + 1], (m,)")
    x = np.ones((2, 3), "float32")
    with pytest.raises(TIRBoundsError):
        relax_ref.evaluate(relax_ref.parse(text), "main", x)
    with pytest.raises(TIRBoundsError):
        relax_jax.compile(relax_ref.parse(text))("main", x)


def test_a_window_of_a_read_only_input_is_read_only():
    text = WINDOW.replace("OFFSET", "0").replace("B[vi, 0:m], (m,)", "A[vi, 0:m], (m,)")
    x = np.ones((2, 3), "float32")
    with pytest.raises(OpRuntimeError, match="read-only"):
        relax_ref.evaluate(relax_ref.parse(text), "main", x)
    with pytest.raises(OpRuntimeError, match="read-only"):
        relax_jax.compile(relax_ref.parse(text))("main", x)


PACKED = HEADER + '''
    @T.prim_func
    def call_it(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        T.call_packed("test.axpy", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0), T.float32(3), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0))

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.call_it, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


def _axpy(a, s, out):
    out[...] = a * s + 1


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_packed_function_writes_its_output_descriptor(n):
    exe = relax_jax.compile(relax_ref.parse(PACKED))
    exe.register_func("test.axpy", _axpy)
    x = np.arange(n, dtype="float32") - 2
    np.testing.assert_array_equal(np.asarray(exe("main", x)), x * 3 + 1)


def test_a_failing_packed_function_is_a_packed_func_error():
    def bad(a, s, out):
        raise ValueError("no")

    exe = relax_jax.compile(relax_ref.parse(PACKED))
    exe.register_func("test.axpy", bad)
    with pytest.raises(PackedFuncError, match="ValueError: no"):
        exe("main", np.ones(2, "float32"))


def test_a_packed_function_cannot_write_a_read_only_input():
    def into_input(a, s, out):
        a[...] = 0

    mod = relax_ref.parse(PACKED)
    interp = relax_ref.Interpreter(mod)
    interp.register_func("test.axpy", into_input)
    with pytest.raises(PackedFuncError):
        interp.run("main", np.ones(2, "float32"))
    exe = relax_jax.compile(mod)
    exe.register_func("test.axpy", into_input)
    with pytest.raises(PackedFuncError):
        exe("main", np.ones(2, "float32"))


def test_an_unknown_packed_function_fails_only_when_its_call_runs():
    text = PACKED.replace('        T.call_packed("test.axpy"', '        if n > 3:\n            T.call_packed("nowhere"')
    mod = relax_ref.parse(text)
    exe = relax_jax.compile(mod)
    for n in (0, 2):
        x = np.ones(n, "float32")
        assert np.asarray(exe("main", x)).shape == (n,)
        assert relax_ref.evaluate(mod, "main", x).shape == (n,)
    with pytest.raises(PackedFuncError, match="nowhere"):
        relax_ref.evaluate(mod, "main", np.ones(4, "float32"))
    with pytest.raises(PackedFuncError, match="nowhere"):
        exe("main", np.ones(4, "float32"))


def test_an_unconditional_check_site_keeps_its_code_when_later_sites_pass():
    import jax
    import jax.numpy as jnp

    from relax_jax.errors import ErrorSink

    def traced(x):
        sink = ErrorSink(True)
        sink.check(np.bool_(True), lambda: PackedFuncError("first"))
        sink.check(x > 10, lambda: TIRBoundsError("second", buffer="b"))
        return jnp.asarray(sink.code, jnp.int32), sink

    code, sink = traced(jnp.asarray(0))
    assert int(code) == 1 and isinstance(sink.error_for(int(code)), PackedFuncError)
    code = jax.jit(lambda x: traced(x)[0])(jnp.asarray(0))
    assert int(code) == 1

"""relax_jax: tensors carved out of one storage alias its bytes in traced and host mode (CALL.ALLOC.2), a
tensor passed twice to an in-place call keeps the mutation, and declared bounds of symbolic variables are
checked on every call, also when the callee is inlined into a compiled caller (CALL.FUNC.7)."""

from __future__ import annotations

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import ShapeMismatchError, ValueMismatchError

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"

ADD_INTO = '''
    @T.prim_func
    def add_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            A[i] = A[i] + B[i]

    @T.prim_func
    def copy_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            A[i] = B[i]
'''

STORAGE = HEADER + ADD_INTO + '''
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((2,), "float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        t2 = R.memory.alloc_tensor(s, R.prim_value(8), R.shape([2]), R.dtype("float32"))
        u = R.call_tir_inplace(cls.copy_into, (t1, x), inplace_indices=[0], out_sinfo=R.Tensor((4,), "float32"))
        v = R.call_tir_inplace(cls.add_into, (t2, t2), inplace_indices=[0], out_sinfo=R.Tensor((2,), "float32"))
        r = (u, v)
        return r
'''


def _expected_storage(x):
    t1 = x.copy()
    t1[2:] *= 2
    return t1, t1[2:].copy()


def test_storage_tensors_alias_in_a_compiled_function():
    exe = relax_jax.compile(relax_ref.parse(STORAGE))
    x = np.array([1.0, -2.0, 3.5, 0.25], "float32")
    u, v = exe("main", x)
    eu, ev = _expected_storage(x)
    np.testing.assert_array_equal(np.asarray(u), eu)
    np.testing.assert_array_equal(np.asarray(v), ev)
    assert "main" not in exe.fallback_reasons          # traced, not host mode
    ru, rv = relax_ref.evaluate(relax_ref.parse(STORAGE), "main", x)
    np.testing.assert_array_equal(ru, eu)
    np.testing.assert_array_equal(rv, ev)


def test_storage_tensors_alias_in_host_mode():
    # a storage sized by a prim value: relax_jax evaluates the function in host mode
    text = STORAGE.replace('def main(x: R.Tensor((4,), "float32"))',
                           'def main(x: R.Tensor((4,), "float32"), p: R.Prim(value="k"))')
    text = text.replace("        cls = Module\n        s = R.memory.alloc_storage(R.shape([16])",
                        "        k = T.int64()\n        cls = Module\n        s = R.memory.alloc_storage(R.shape([k * 16])")
    exe = relax_jax.compile(relax_ref.parse(text))
    x = np.array([1.0, -2.0, 3.5, 0.25], "float32")
    u, v = exe("main", x, 1)
    eu, ev = _expected_storage(x)
    np.testing.assert_array_equal(np.asarray(u), eu)
    np.testing.assert_array_equal(np.asarray(v), ev)
    assert "data-dependent size" in exe.fallback_reasons.get("main", "")


def test_inplace_input_passed_twice_keeps_the_mutation():
    text = HEADER + ADD_INTO + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        z = R.call_tir_inplace(cls.add_into, (x, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
        return z
'''
    exe = relax_jax.compile(relax_ref.parse(text))
    for n in (1, 3, 5):
        x = np.arange(n, dtype="float32") + 1
        np.testing.assert_array_equal(np.asarray(exe("main", x.copy())), 2 * x)


BOUNDS = HEADER + '''
    @R.function
    def tail(y: R.Tensor(("n",), "float32"), k: R.Prim(value="m")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 6, "m": 3}})
        z = R.negative(y)
        return z

    @R.function
    def main(x: R.Tensor(("p",), "float32"), k: R.Prim(value="q")) -> R.Tensor(("p * 2",), "float32"):
        q = T.int64()
        cls = Module
        d = R.concat((x, x), axis=0)
        r = cls.tail(d, R.prim_value(q))
        return r
'''


def test_bounds_of_an_inlined_callee_are_checked():
    exe = relax_jax.compile(relax_ref.parse(BOUNDS))
    for p in (0, 1, 3):
        x = np.arange(p, dtype="float32")
        np.testing.assert_array_equal(np.asarray(exe("main", x, 2)), -np.concatenate([x, x]))
    with pytest.raises(ShapeMismatchError, match="upper bound 6"):
        exe("main", np.zeros(4, "float32"), 2)
    with pytest.raises(ValueMismatchError, match="upper bound 3"):
        exe("main", np.zeros(1, "float32"), 4)
    # the entry with bounds itself goes through the checked path on every call
    np.testing.assert_array_equal(np.asarray(exe("tail", np.ones(6, "float32"), 3)), -np.ones(6, "float32"))
    for _ in range(3):
        with pytest.raises(ShapeMismatchError):
            exe("tail", np.ones(7, "float32"), 3)

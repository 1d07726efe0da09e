"""TensorIR nests over padded (bucketed) extents: a padded spatial axis is not masked where it only
produces padding (the einsum's factors, the write-back of a register whose padded points land past the
buffer's logical extents), a padded reduction axis always is, and a loop that covers less than its
buffer keeps the elements it does not write. Values equal to the reference interpreter's with the
padding filled with NaN (``pad_poison``)."""

import re

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import LimitExceededError
from tir_prims import HEADER

RNG = np.random.default_rng(11)

SRC = HEADER + '''
    @T.prim_func
    def mm(a: T.handle, w: T.Buffer((T.int64(6), T.int64(5)), "float32"), b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(6)))
        B = T.match_buffer(b, (n, T.int64(5)))
        for i, j, k in T.grid(n, T.int64(5), T.int64(6)):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    B[vi, vj] = T.float32(0)
                B[vi, vj] = B[vi, vj] + A[vi, vk] * w[vk, vj]

    @T.prim_func
    def mm_t(a: T.handle, w: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (T.int64(3), n))
        W = T.match_buffer(w, (n, T.int64(4)))
        B = T.match_buffer(b, (T.int64(3), T.int64(4)))
        for i, j, k in T.grid(T.int64(3), T.int64(4), n):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    B[vi, vj] = T.float32(0)
                B[vi, vj] = B[vi, vj] + A[vi, vk] * W[vk, vj]

    @T.prim_func
    def rowsum(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(6)))
        B = T.match_buffer(b, (n,))
        for i, k in T.grid(n, T.int64(6)):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(1)
                B[vi] = B[vi] + T.exp(A[vi, vk])

    @T.prim_func
    def scale(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(6)))
        B = T.match_buffer(b, (n, T.int64(6)))
        for i, j in T.grid(n, T.int64(6)):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)

    @T.prim_func
    def head(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.block("init"):
                vi = T.axis.spatial(n, i)
                B[vi] = T.float32(-1)
        for i in range(m):
            with T.block("B"):
                vi = T.axis.spatial(m, i)
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func
    def shifted(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n + T.int64(2),))
        for i in range(n + T.int64(2)):
            with T.block("init"):
                vi = T.axis.spatial(n + T.int64(2), i)
                B[vi] = T.float32(7)
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi + T.int64(1)] = A[vi] + T.float32(1)

    @R.function
    def f_mm(x: R.Tensor(("n", 6), "float32"), w: R.Tensor((6, 5), "float32")) -> R.Tensor(("n", 5), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.mm, (x, w), out_sinfo=R.Tensor((n, 5), "float32"))
        return y

    @R.function
    def f_mm_t(x: R.Tensor((3, "n"), "float32"), w: R.Tensor(("n", 4), "float32")) -> R.Tensor((3, 4), "float32"):
        cls = Module
        y = R.call_tir(cls.mm_t, (x, w), out_sinfo=R.Tensor((3, 4), "float32"))
        return y

    @R.function
    def f_rowsum(x: R.Tensor(("n", 6), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.rowsum, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y

    @R.function
    def f_scale(x: R.Tensor(("n", 6), "float32")) -> R.Tensor(("n", 6), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.scale, (x,), out_sinfo=R.Tensor((n, 6), "float32"))
        return y

    @R.function
    def f_head(x: R.Tensor(("n",), "float32"), k: R.Prim("int64")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        k1 = T.int64()
        cls = Module
        _ = R.match_cast(k, R.Prim(value=k1))
        y = R.call_tir(cls.head, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([k1]))
        return y

    @R.function
    def f_shifted(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 2",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shifted, (x,), out_sinfo=R.Tensor((n + 2,), "float32"))
        return y
'''

ARGS = {
    "f_mm": lambda n: (RNG.standard_normal((n, 6)), RNG.standard_normal((6, 5))),
    "f_mm_t": lambda n: (RNG.standard_normal((3, n)), RNG.standard_normal((n, 4))),
    "f_rowsum": lambda n: (RNG.standard_normal((n, 6)),),
    "f_scale": lambda n: (RNG.standard_normal((n, 6)),),
    "f_shifted": lambda n: (RNG.standard_normal(n),),
}


def _f32(args):
    return tuple(np.asarray(a, np.float32) for a in args)


@pytest.mark.parametrize("entry", sorted(ARGS))
def test_values_equal_the_reference_with_poisoned_padding(entry):
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod, pad_poison=True)
    for n in (1, 3, 5, 6):
        args = _f32(ARGS[entry](n))
        np.testing.assert_allclose(np.asarray(exe(entry, *args)), relax_ref.evaluate(mod, entry, *args),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("m", [0, 2, 5])
def test_a_loop_shorter_than_its_buffer_keeps_the_rest(m):
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod, pad_poison=True)
    x = RNG.standard_normal(5).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(exe("f_head", x, m)), relax_ref.evaluate(mod, "f_head", x, m))


def _float_selects(exe, entry):
    """The shapes of the float selects in ``entry``'s compiled computation."""
    plan = exe._plans[entry]
    hlo = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    return sorted(re.findall(r"= f32\[([0-9,]*)\]\{[0-9,]*\} select\(", hlo))


def test_only_reduction_padding_is_masked():
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    # n = 3 runs in a bucket of 4: the rows of mm, rowsum and scale are padded (only padded rows
    # come of them: nothing selects), the reduction of mm_t is padded (both factors are zeroed there), and
    # shifted's loop stops short of its buffer's last element (its write-back is masked)
    for entry in ARGS:
        exe(entry, *_f32(ARGS[entry](3)))
    assert _float_selects(exe, "f_mm") == []
    assert _float_selects(exe, "f_rowsum") == []
    assert _float_selects(exe, "f_scale") == []
    assert {"3,4", "4,4"} <= set(_float_selects(exe, "f_mm_t"))
    assert _float_selects(exe, "f_shifted") != []


def _has_check_sites(exe, entry):
    plan = exe._plans[entry]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].has_code


@pytest.mark.parametrize("budget,checked,ok", [(28, False, True), (27, True, True), (21, True, True),
                                               (20, True, False)])
def test_step_budget_proven_at_the_bucket_needs_no_check_site(budget, checked, ok):
    """RUNTIME.LIMIT.4 over a padded extent: ``scale``'s nest takes ``n + 6n`` steps; n = 3 runs in the
    bucket 4, whose 28 steps bound every size the compilation serves. A budget of at least 28 cannot be
    exceeded (no run-time check, no error code read back); below it the count is checked at run time
    and a budget under 21 is an error, as on the reference."""
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod, max_steps=budget)
    x, = _f32(ARGS["f_scale"](3))
    if ok:
        np.testing.assert_array_equal(np.asarray(exe("f_scale", x)),
                                      relax_ref.Interpreter(mod, max_steps=budget)("f_scale", x))
    else:
        with pytest.raises(LimitExceededError):
            relax_ref.Interpreter(mod, max_steps=budget)("f_scale", x)
        with pytest.raises(LimitExceededError):
            exe("f_scale", x)
    assert _has_check_sites(exe, "f_scale") is checked

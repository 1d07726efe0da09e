"""TensorIR lowering of reshape-like index forms (relax_jax.tir.grid): indices simplified under the
grid's loop ranges, digits of one expression read from merged axes, mixed-radix sums read from split
axes, loads whose indices cannot fail read as slices without lowering the indices. Values equal to the
reference interpreter's (padded symbolic extents included); the lowered computation has no gather where
a rule applies, and keeps the gather (and its run-time checks) where none does."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import DivisionByZeroError, TIRBoundsError

from tir_prims import HEADER, prims

RNG = np.random.default_rng(7)


def _module(kernels: str, entries: str) -> str:
    return HEADER + kernels + entries


def _call(name: str, kernel: str, in_shape: str, out_shape: str, dtype: str = "float32") -> str:
    return f'''
    @R.function
    def {name}(x: R.Tensor({in_shape}, "{dtype}")) -> R.Tensor({out_shape}, "{dtype}"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.{kernel}, (x,), out_sinfo=R.Tensor({out_shape}, "{dtype}"))
        return y
'''


KERNELS = '''
    @T.prim_func
    def k_flatten(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(8), T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(32)))
        for i, j in T.grid(n, T.int64(32)):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[(vj // T.int64(32) + vi) % n, vj % T.int64(32) // T.int64(4), vj % T.int64(4)]

    @T.prim_func
    def k_unflatten(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(32)))
        B = T.match_buffer(b, (T.int64(1), n, T.int64(8), T.int64(4)))
        for i0, i, j, k in T.grid(T.int64(1), n, T.int64(8), T.int64(4)):
            with T.block("B"):
                v0, vi, vj, vk = T.axis.remap("SSSS", [i0, i, j, k])
                B[v0, vi, vj, vk] = A[((vj * T.int64(4) + vk) // T.int64(32) + v0 * n + vi) % n,
                                      (vj * T.int64(4) + vk) % T.int64(32)]

    @T.prim_func
    def k_strided(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(70)))
        B = T.match_buffer(b, (n, T.int64(8), T.int64(4)))
        for i, j, k in T.grid(n, T.int64(8), T.int64(4)):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, (vj * T.int64(4) + vk) * T.int64(2) + T.int64(3)]

    @T.prim_func
    def k_heads(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (T.int64(1), T.int64(3), n, T.int64(4)))
        B = T.match_buffer(b, (T.int64(3), n, T.int64(4)))
        for h, i, d in T.grid(T.int64(3), n, T.int64(4)):
            with T.block("B"):
                vh, vi, vd = T.axis.remap("SSS", [h, i, d])
                B[vh, vi, vd] = A[T.int64(0), (vd // T.int64(4) + vh * n + vi) // n % T.int64(3),
                                  (vd // T.int64(4) + vh * n + vi) % n, vd % T.int64(4)]

    @T.prim_func
    def k_wrapped(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(2), T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(16)))
        for i, j in T.grid(n, T.int64(16)):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj // T.int64(4) % T.int64(2), vj % T.int64(4)]

    @T.prim_func
    def k_offset(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(40)))
        B = T.match_buffer(b, (n, T.int64(2), T.int64(4)))
        for i, j, k in T.grid(n, T.int64(2), T.int64(4)):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, (vj * T.int64(4) + vk + T.int64(5)) % T.int64(40)]
'''

ENTRIES = (_call("flatten", "k_flatten", '("n", 8, 4)', '(n, 32)')
           + _call("unflatten", "k_unflatten", '("n", 32)', '(1, n, 8, 4)')
           + _call("strided", "k_strided", '("n", 70)', '(n, 8, 4)')
           + _call("heads", "k_heads", '(1, 3, "n", 4)', '(3, n, 4)')
           + _call("wrapped", "k_wrapped", '("n", 2, 4)', '(n, 16)')
           + _call("offset", "k_offset", '("n", 40)', '(n, 2, 4)'))

SRC = _module(KERNELS, ENTRIES)

SHAPES = {"flatten": lambda n: (n, 8, 4), "unflatten": lambda n: (n, 32), "strided": lambda n: (n, 70),
          "heads": lambda n: (1, 3, n, 4), "wrapped": lambda n: (n, 2, 4), "offset": lambda n: (n, 40)}


@pytest.mark.parametrize("entry", sorted(SHAPES))
@pytest.mark.parametrize("buckets", ["pow2", None])
def test_values_equal_the_reference(entry, buckets):
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod, shape_buckets=buckets)
    for n in (1, 3, 4, 5):
        x = RNG.standard_normal(SHAPES[entry](n)).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(exe(entry, x)), relax_ref.evaluate(mod, entry, x))


@pytest.mark.parametrize("entry, gathers", [
    ("flatten", 0), ("unflatten", 0), ("strided", 0), ("heads", 0), ("offset", 0),
    # the digits wrap (j // 4 % 2 for j up to 15): no merge, the gather stays
    ("wrapped", 1),
])
def test_rules_leave_no_gather(entry, gathers):
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal(SHAPES[entry](5)).astype(np.float32)
    exe(entry, x)
    c = prims(exe, entry, x)
    assert c["gather"] == gathers
    if not gathers:
        # indices that cannot fail are not computed point by point, nor checked
        checked = prims(exe, entry, x, checks="raise")
        assert checked["rem"] == checked["div"] == checked["gather"] == 0


DIV_SRC = HEADER + '''
    @T.prim_func
    def by_m(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi // m * m]

    @T.prim_func
    def by_n(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[(vi + n) % n]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: R.Prim("int64")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        k1 = T.int64()
        cls = Module
        _ = R.match_cast(k, R.Prim(value=k1))
        y = R.call_tir(cls.by_m, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([k1]))
        return y

    @R.function
    def mod_n(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.by_n, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


def test_a_divisor_that_may_be_zero_keeps_its_check():
    mod = relax_ref.parse(DIV_SRC)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal(6).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(exe("main", x, 2)), relax_ref.evaluate(mod, "main", x, 2))
    for impl in (lambda: relax_ref.evaluate(mod, "main", x, 0), lambda: exe("main", x, 0)):
        with pytest.raises(DivisionByZeroError):
            impl()
    np.testing.assert_array_equal(np.asarray(exe("main", x, 4)), relax_ref.evaluate(mod, "main", x, 4))


def test_a_divisor_proven_non_zero_reads_a_slice():
    mod = relax_ref.parse(DIV_SRC)
    exe = relax_jax.compile(mod)
    for n in (1, 3, 6):
        x = RNG.standard_normal(n).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(exe("mod_n", x)), relax_ref.evaluate(mod, "mod_n", x))
    c = prims(exe, "mod_n", x, checks="raise")
    assert c["gather"] == c["rem"] == 0


OOB_SRC = HEADER + '''
    @T.prim_func
    def reads_past(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(8)))
        B = T.match_buffer(b, (n, T.int64(2), T.int64(8)))
        for i, j, k in T.grid(n, T.int64(2), T.int64(8)):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj * T.int64(8) + vk]
''' + _call("main", "reads_past", '("n", 8)', '(n, 2, 8)')


def test_a_split_read_past_the_end_is_still_an_error():
    mod = relax_ref.parse(OOB_SRC)
    exe = relax_jax.compile(mod)
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    for impl in (lambda: relax_ref.evaluate(mod, "main", x), lambda: exe("main", x)):
        with pytest.raises(TIRBoundsError):
            impl()

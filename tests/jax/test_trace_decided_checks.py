"""Run-time checks decided while tracing: a check that holds for every value of the symbolic
variables is left out of the compiled program (no error code), one that may fail stays and raises the
reference's error."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import RelaxError

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"


def _compiled(exe, entry="main"):
    """The function's one compilation (every value of these tests in one bucket)."""
    (c,) = [c for c in exe._plans[entry].cache.values()]
    return c


def _same_error(mod, *args):
    with pytest.raises(RelaxError) as want:
        relax_ref.evaluate(mod, "main", *args)
    with pytest.raises(type(want.value)):
        relax_jax.compile(mod)("main", *args)


def test_reshape_with_the_same_symbolic_element_count_has_no_check():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4, 6), "float32")) -> R.Tensor(("n", 24), "float32"):
        n = T.int64()
        y = R.reshape(x, R.shape([n, 24]))
        z = R.reshape(y, R.shape([n * 2, 12]))
        w = R.reshape(z, R.shape([n, 24]))
        return w
''')
    exe = relax_jax.compile(mod, pad_poison=True)
    for n in (3, 4):
        x = np.arange(n * 24, dtype=np.float32).reshape(n, 4, 6)
        np.testing.assert_array_equal(np.asarray(exe("main", x)), relax_ref.evaluate(mod, "main", x))
    assert not _compiled(exe).has_code


def test_reshape_whose_counts_may_differ_keeps_its_check():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m", 4), "float32"):
        m = T.int64()
        y = R.reshape(x, R.shape([m, 4]))
        return y
''')
    x = np.ones((3, 4), np.float32)
    exe = relax_jax.compile(mod)
    np.testing.assert_array_equal(np.asarray(exe("main", x, (3,))), relax_ref.evaluate(mod, "main", x, (3,)))
    assert _compiled(exe).has_code
    _same_error(mod, x, (2,))


def test_shape_entries_of_sizes_need_no_sign_check_others_keep_it():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(ndim=1, dtype="float32"):
        n = T.int64()
        m = T.int64()
        y = R.zeros(R.shape([n * 2 + m // 2]), "float32")
        return y
''')
    exe = relax_jax.compile(mod)
    for n, m in ((3, 5), (4, 7)):
        x = np.ones((n,), np.float32)
        np.testing.assert_array_equal(np.asarray(exe("main", x, (m,))), relax_ref.evaluate(mod, "main", x, (m,)))
    assert not _compiled(exe).has_code
    neg = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), p: R.Prim(value="k")):
        n = T.int64()
        k = T.int64()
        y = R.zeros(R.shape([n - 3]), "float32")
        z = R.zeros(R.shape([k]), "float32")
        return (y, z)
''')
    exe = relax_jax.compile(neg)
    x = np.ones((4,), np.float32)
    got = exe("main", x, 2)
    assert [np.asarray(g).shape for g in got] == [(1,), (2,)]
    assert _compiled(exe).has_code
    _same_error(neg, np.ones((2,), np.float32), 2)
    _same_error(neg, x, -1)


def test_concat_and_broadcast_of_the_same_symbolic_extent_have_no_check():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 3), "float32")) -> R.Tensor((2, "n", 7), "float32"):
        n = T.int64()
        z = R.concat((x, y), axis=1)
        w = R.broadcast_to(R.reshape(z, R.shape([1, n, 7])), R.shape([2, n, 7]))
        return w
''')
    exe = relax_jax.compile(mod, pad_poison=True)
    for n in (3, 4):
        x, y = np.ones((n, 4), np.float32), np.full((n, 3), 2, np.float32)
        np.testing.assert_array_equal(np.asarray(exe("main", x, y)), relax_ref.evaluate(mod, "main", x, y))
    assert not _compiled(exe).has_code

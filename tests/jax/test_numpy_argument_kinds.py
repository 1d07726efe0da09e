"""NumPy arrays that JAX does not take as they are -- big-endian, masked, other subclasses -- as
arguments of relax_jax: the reference evaluator's values (a masked array read as its values, the mask
ignored, as the reference reads it), on a first and a warm call, with and without donate_argnums,
inside a tuple too."""

import numpy as np
import pytest

import relax_jax
import relax_ref

SRC = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return R.add(x, y * R.const(10, "float32"))

    @R.function
    def g(t: R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((3,), "int64"))) -> R.Tensor((2, 3), "float32"):
        a = t[0]
        b = t[1]
        return R.add(a, R.astype(b, "float32"))
'''

_MOD = relax_ref.parse(SRC)
_X = np.arange(6, dtype="float32").reshape(2, 3) - 2.5

_KINDS = {
    "big-endian": lambda a: a.astype(a.dtype.newbyteorder(">")),
    "masked": lambda a: np.ma.masked_array(a, mask=np.arange(a.size).reshape(a.shape) % 2 == 0),
    "matrix-like subclass": lambda a: a.view(type("Sub", (np.ndarray,), {})),
}


@pytest.mark.parametrize("donate", [False, True])
@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_argument_kinds(kind, donate):
    make = _KINDS[kind]
    exe = relax_jax.compile(_MOD, donate_argnums={"f": (0,)} if donate else None)
    ref = relax_ref.Interpreter(_MOD)
    want = np.asarray(ref("f", np.asarray(_X), np.asarray(_X * 2)))
    for _ in range(3):                  # a first call, then the warm path
        x, y = make(_X.copy()), make(_X * 2)
        got = exe("f", x, y)
        np.testing.assert_array_equal(np.asarray(got), want)
        np.testing.assert_array_equal(np.asarray(ref("f", x, y)), want)
        np.testing.assert_array_equal(np.asarray(x), _X)         # the caller's array unchanged
        plain = exe("f", np.asarray(_X), np.asarray(_X * 2))    # and plain arrays after it
        np.testing.assert_array_equal(np.asarray(plain), want)


@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_argument_kinds_in_a_tuple(kind):
    make = _KINDS[kind]
    b = np.array([1, -2, 3], dtype="int64")
    exe = relax_jax.compile(_MOD)
    want = np.asarray(relax_ref.Interpreter(_MOD)("g", (_X, b)))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(exe("g", (make(_X), make(b)))), want)

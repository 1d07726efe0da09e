"""CALL.INPLACE.6 on relax_jax: a consumed in-place parameter is donated to XLA (no copy)."""

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax

_SRC = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def set_row(A: T.Buffer((T.int64(64), T.int64(8)), "float32"), V: T.Buffer((T.int64(8),), "float32")):
        for j in range(T.int64(8)):
            A[T.int64(3), j] = V[j] + A[T.int64(3), j]

    @R.function
    def main(x: R.Tensor((64, 8), "float32"), v: R.Tensor((8,), "float32")):
        cls = Module
        y = R.call_tir_inplace(cls.set_row, (x, v), inplace_indices=[0], out_sinfo=R.Tensor((64, 8), "float32"))
        return {ret}
'''


def _expected(x, v):
    out = np.array(x)
    out[3] += v
    return out


def _compiled(exe):
    plan = exe._plans["main"]
    return next(iter(plan.exact_cache.values() or plan.cache.values()))


@pytest.mark.parametrize("consent", [False, True])
def test_consumed_parameter_is_donated(consent):
    exe = relax_jax.compile(_SRC.format(ret="y"), shape_buckets=None, donate_inplace=consent)
    x0 = np.arange(512, dtype=np.float32).reshape(64, 8)
    v = np.full(8, 2.0, np.float32)
    x = jnp.asarray(x0)
    y = exe("main", x, jnp.asarray(v))
    np.testing.assert_array_equal(np.asarray(y), _expected(x0, v))
    c = _compiled(exe)
    assert c.donated == (0,)
    # the executable aliases the buffer of parameter 0 with its only output: no copy of x is made
    hlo = c.fn.as_text()
    assert "input_output_alias={ {}: (0, {}, may-alias) }" in hlo
    # the caller's array is consumed only with its consent; otherwise a copy of it was donated
    assert x.is_deleted() == consent
    if not consent:
        np.testing.assert_array_equal(np.asarray(x), x0)


def test_numpy_argument_is_written_back():
    exe = relax_jax.compile(_SRC.format(ret="y"), shape_buckets=None)
    x = np.ones((64, 8), np.float32)
    y = exe("main", x, np.ones(8, np.float32))
    np.testing.assert_array_equal(x, _expected(np.ones((64, 8), np.float32), np.ones(8, np.float32)))
    np.testing.assert_array_equal(np.asarray(y), x)


def test_decode_loop_feeds_the_result_back():
    exe = relax_jax.compile(_SRC.format(ret="y"), shape_buckets=None, donate_inplace=True)
    x = jnp.zeros((64, 8), jnp.float32)
    v = jnp.ones(8, jnp.float32)
    for _ in range(5):
        x = exe("main", x, v)
    assert float(np.asarray(x)[3].sum()) == 40.0 and float(np.asarray(x).sum()) == 40.0


@pytest.mark.parametrize("ret", ["(y, x)", "v"])
def test_not_consumed_is_not_donated(ret):
    # x is returned under its old name (read after the call), or the new contents are not returned
    exe = relax_jax.compile(_SRC.format(ret=ret), shape_buckets=None, donate_inplace=True)
    x = jnp.zeros((64, 8), jnp.float32)
    exe("main", x, jnp.ones(8, jnp.float32))
    c = _compiled(exe)
    assert c.donated == ()
    assert "input_output_alias" not in c.fn.as_text()
    assert not x.is_deleted()


def test_same_array_twice_is_copied():
    src = _SRC.replace('v: R.Tensor((8,), "float32")', 'v: R.Tensor((64, 8), "float32")').replace(
        'V: T.Buffer((T.int64(8),), "float32")', 'V: T.Buffer((T.int64(64), T.int64(8)), "float32")').replace(
        "V[j]", "V[T.int64(3), j]").replace("out_sinfo=R.Tensor((64, 8), \"float32\"))", "out_sinfo=R.Tensor((64, 8), \"float32\"))")
    exe = relax_jax.compile(src.format(ret="y"), shape_buckets=None, donate_inplace=True)
    x = jnp.ones((64, 8), jnp.float32)
    y = exe("main", x, x)
    assert not x.is_deleted()
    assert float(np.asarray(y)[3, 0]) == 2.0 and float(np.asarray(y)[2, 0]) == 1.0


def test_static_shapes_donate_under_bucketing():
    # nothing is padded when the signature has no symbolic variable
    exe = relax_jax.compile(_SRC.format(ret="y"), donate_inplace=True)
    x = jnp.zeros((64, 8), jnp.float32)
    exe("main", x, jnp.ones(8, jnp.float32))
    assert x.is_deleted()
    assert next(iter(exe._plans["main"].cache.values())).donated == (0,)


_CHECKED = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def set_row(A: T.Buffer((T.int64(64), T.int64(8)), "float32"), V: T.Buffer((T.int64(8),), "float32"), i: T.int64):
        for j in range(T.int64(8)):
            A[i, j] = V[j]

    @R.function
    def main(x: R.Tensor((64, 8), "float32"), v: R.Tensor((8,), "float32"), i: R.Prim("int64")):
        cls = Module
        y = R.call_tir_inplace(cls.set_row, (x, v, i), inplace_indices=[0], out_sinfo=R.Tensor((64, 8), "float32"))
        return y
'''


@pytest.mark.parametrize("consent", [False, True])
def test_failing_check_in_a_donating_call(consent):
    from relax_ref.errors import TIRBoundsError

    exe = relax_jax.compile(_CHECKED, donate_inplace=consent)
    x = jnp.zeros((64, 8), jnp.float32)
    y = exe("main", x, jnp.ones(8, jnp.float32), 5)
    assert float(np.asarray(y)[5, 0]) == 1.0
    x = jnp.zeros((64, 8), jnp.float32)
    with pytest.raises(TIRBoundsError) as e:
        exe("main", x, jnp.ones(8, jnp.float32), 100)
    assert "set_row" in str(e.value)
    # without consent the call is re-run on the host for the reference's error (binding named); with it
    # the argument was consumed and the traced check's error is raised
    assert x.is_deleted() == consent
    assert (e.value.binding == "y") == (not consent)

"""relax_jax.laxops binds what the jax.numpy spelling binds: the same traced computation, so the same
values (the lowerings use it for the speed of tracing only)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from relax_jax import laxops

F32 = np.dtype("float32")


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):          # as the executor traces
        yield


def _flat(jaxpr):
    """The primitives bound, with their parameters and result types, ``jit`` calls inlined."""
    out = []
    for e in jaxpr.eqns:
        if e.primitive.name in ("jit", "pjit"):
            out += _flat(e.params["jaxpr"].jaxpr)
            continue
        params = {k: v for k, v in e.params.items() if k != "sharding"}
        out.append((e.primitive.name, str(params), tuple(str(v.aval) for v in e.outvars)))
    return out


def _same(f, g, *args):
    assert _flat(jax.make_jaxpr(f)(*args).jaxpr) == _flat(jax.make_jaxpr(g)(*args).jaxpr)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1, 3), (4, 1)), ((2, 3), ())])
def test_binary_same_as_jnp(name, shapes):
    a = jnp.ones(shapes[0], F32)
    b = jnp.full(shapes[1], 2, F32)
    _same(lambda x, y: getattr(laxops, name)(x, y), lambda x, y: getattr(jnp, name)(x, y), a, b)
    # a numpy scalar of the dtype as the second operand
    _same(lambda x: getattr(laxops, name)(x, np.float32(3)), lambda x: getattr(jnp, name)(x, np.float32(3)), a)


def test_binary_falls_back_on_mixed_dtypes():
    a = jnp.ones((2, 3), F32)
    b = jnp.ones((2, 3), jnp.int32)
    _same(lambda x, y: laxops.add(x, y), lambda x, y: jnp.add(x, y), a, b)
    _same(lambda x: laxops.multiply(x, 2.0), lambda x: jnp.multiply(x, 2.0), a)


def test_integer_divide_is_jnp():
    a = jnp.ones((2, 3), jnp.int32)
    _same(lambda x: laxops.divide(x, x), lambda x: jnp.divide(x, x), a)


def test_astype_binds_nothing_for_the_same_dtype():
    a = jnp.ones((2, 3), F32)
    assert len(jax.make_jaxpr(lambda x: laxops.astype(x, F32))(a).eqns) == 0
    _same(lambda x: laxops.astype(x, np.dtype("float64")), lambda x: x.astype(np.float64), a)
    _same(lambda x: laxops.astype(x, jnp.bfloat16), lambda x: x.astype(jnp.bfloat16), a)


@pytest.mark.parametrize("fn", [jnp.exp, jnp.sqrt, jnp.cos, jnp.sin, jnp.tanh, jnp.log, jnp.negative])
def test_unary_same_as_jnp(fn):
    a = jnp.ones((2, 3), F32)
    _same(laxops.fast_fn(fn), fn, a)
    i = jnp.ones((2, 3), jnp.int32)
    _same(laxops.fast_fn(fn), fn, i)


def test_where_same_as_jnp():
    c = jnp.ones((4, 1), bool)
    a = jnp.ones((2, 4, 3), F32)
    _same(lambda m, x: laxops.where(m, x, np.float32(0)), lambda m, x: jnp.where(m, x, np.float32(0)), c, a)


@pytest.mark.parametrize("axis,keep", [(1, True), ((0, 2), False), (-1, True), (None, False)])
def test_reductions_same_as_jnp(axis, keep):
    a = jnp.ones((2, 4, 3), F32)
    _same(lambda x: laxops.reduce_sum(x, axis=axis, keepdims=keep), lambda x: jnp.sum(x, axis=axis, keepdims=keep), a)
    _same(lambda x: laxops.reduce_max(x, axis=axis, keepdims=keep), lambda x: jnp.max(x, axis=axis, keepdims=keep), a)
    h = jnp.ones((2, 4, 3), jnp.bfloat16)
    _same(lambda x: laxops.reduce_sum(x, axis=axis, keepdims=keep), lambda x: jnp.sum(x, axis=axis, keepdims=keep), h)


def test_reshape_and_iota_lt():
    a = jnp.ones((2, 6), F32)
    _same(lambda x: laxops.reshape(x, (3, 4)), lambda x: x.reshape((3, 4)), a)
    n = jnp.asarray(3, jnp.int64)
    _same(lambda k: laxops.iota_lt(5, k, (1, 5, 1), 1),
          lambda k: jnp.arange(5, dtype=jnp.int64).reshape((1, 5, 1)) < k, n)

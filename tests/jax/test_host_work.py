"""The host work of a compiled call under bucketing: result extents the host computes from the symbolic
values are no outputs of the compiled function (one fewer output per padded axis), the counts of
padded shapes towards ``specialize_after`` are bounded (the most recently seen shapes), and the fast
path takes a new static argument each step and refuses one of another shape or dtype (the executable's
check) without deleting a donated argument. Values are the reference's."""

import gc

import jax.numpy as jnp
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.pytree import host_known
from relax_ref.errors import DTypeMismatchError, ShapeMismatchError
from relax_ref.ir import prim_expr as P

from program_texts import GROWING_CACHE

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"

ADD = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        z = R.add(x, y)
        return z
''')


def _compiled(exe, name):
    """The bucketed compilations of function ``name``."""
    return list(exe._plans[name].cache.values())


def _extents(spec):
    """The extent entries ``(phys, expr, carried)`` of every tensor of an output spec."""
    if spec[0] == "T":
        return [e for e in spec[1] if e is not None]
    if spec[0] == "U":
        return [e for s in spec[1] for e in _extents(s)]
    return []


def test_extents_the_host_computes_leave_no_output():
    mod = relax_ref.parse(GROWING_CACHE)
    exe = relax_jax.compile(mod, donate_argnums={"step": (1,)})
    rng = np.random.default_rng(0)
    tok, w = (jnp.asarray(rng.standard_normal((1, 4), np.float32)) for _ in range(2))
    cache0 = rng.standard_normal((3, 4), np.float32)
    cache, want = jnp.asarray(cache0), cache0
    for _ in range(6):
        total, cache = exe("step", tok, cache, w)
        want_total, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
        np.testing.assert_allclose(np.asarray(total), want_total, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(cache), want)
    compiled = _compiled(exe, "step")       # one per bucket of m + 1 (growth-aware)
    assert len(compiled) >= 2
    for c in compiled:
        ents = _extents(c.out_spec)
        assert ents and all(carried is False for _phys, _expr, carried in ents)   # m + 1: no output


def test_an_extent_of_the_variables_on_their_buckets_is_cut_when_derived():
    """``n - 1`` rows while ``n`` sits on its bucket (the unpadded fast path's arguments): the result
    is still cut, every call."""
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n - 1", 4), "float32"):
        n = T.int64()
        y = R.strided_slice(x, axes=[0], begin=[0], end=[n - 1])
        return y
''')
    exe = relax_jax.compile(mod)
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    for _ in range(3):
        got = exe("main", x)
        assert got.shape == (3, 4)
        np.testing.assert_array_equal(np.asarray(got), x[:3])


def test_which_extents_the_host_computes():
    n, m = P.PrimVar("n", "int64"), P.PrimVar("m", "int64")
    known = frozenset({id(n)})
    one = P.IntImm(1, "int64")
    assert host_known(P.Add(n, one), known)
    assert host_known(P.Max(P.Mul(n, one), P.Sub(n, one)), known)
    assert not host_known(P.Add(m, one), known)              # not a variable of the entry
    assert not host_known(P.FloorDiv(n, one), known)         # a division: read back where it was decided


def test_padded_call_counts_keep_the_most_recently_seen_shapes():
    exe = relax_jax.compile(ADD, specialize_after=4)
    exe.padded_calls_size = 3
    plan_calls = []
    for n in range(65, 100):            # bucket 128: every length padded, each seen once
        x = np.full((n, 4), n, np.float32)
        np.testing.assert_array_equal(np.asarray(exe("main", x, x)), 2 * x)
        plan_calls.append(len(exe._plans["main"].padded_calls))
    assert max(plan_calls) == 3 and exe.stats.specializations == 0
    # a shape that keeps coming back between others stays counted (least recently seen go first)
    for n in (70, 71, 70, 72, 70, 73, 70):
        x = np.full((n, 4), n, np.float32)
        np.testing.assert_array_equal(np.asarray(exe("main", x, x)), 2 * x)
    assert exe.stats.specializations == 1
    assert len(exe._plans["main"].padded_calls) <= 3


def test_static_arguments_of_a_new_object_each_step():
    exe = relax_jax.compile(GROWING_CACHE, donate_argnums={"step": (1,)}, padded_results={"step"})
    mod = relax_ref.parse(GROWING_CACHE)
    tok = jnp.ones((1, 4), jnp.float32)
    cache = jnp.zeros((3, 4), jnp.float32)
    want = np.zeros((3, 4), np.float32)
    for k in range(6):
        w = jnp.full((1, 4), float(k), jnp.float32)      # a new object each step, the old one collected
        gc.collect()
        _total, cache = exe("step", tok, cache, w)
        _t, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
        np.testing.assert_array_equal(np.asarray(cache), want)
    assert exe._plans["step"].hot is not None
    with pytest.raises(DTypeMismatchError):
        exe("step", tok, cache, jnp.ones((1, 4), jnp.int32))
    with pytest.raises(ShapeMismatchError):
        exe("step", tok, cache, jnp.ones((1, 5), jnp.float32))


@pytest.mark.parametrize("policy", ["pow2", [8, 64, 100, 512]])
@pytest.mark.parametrize("reserve", [None, 100])
def test_the_values_of_one_bucket_are_an_interval(policy, reserve):
    """``Plan.bucket_range`` (what the padded fast path compares a value with) against the bucket of
    every value: ``step``'s ``m`` has headroom 1 (its result has ``m + 1`` rows)."""
    from relax_jax.plan import make_plan
    from relax_jax.symbolic import ShapeBuckets

    plan = make_plan(relax_ref.parse(GROWING_CACHE), "step", ShapeBuckets(policy), reserve, frozenset())
    (m,) = plan.sym_vars
    assert plan.headroom[m] == 1
    values: dict = {}
    for n in range(0, 1100):
        values.setdefault(plan.bucket(m, n), []).append(n)
    del values[plan.bucket(m, 1099)]                # (its values go on past the ones tried)
    for b, ns in values.items():
        assert plan.bucket_range(m, b) == (min(ns), max(ns)), b
        assert ns == list(range(min(ns), max(ns) + 1))
    assert plan.bucket_range(m, 3) is None          # no value has bucket 3
    plan.buckets = ShapeBuckets(lambda n: n + 5)    # the caller's function: not known to be monotone
    assert plan.bucket_range(m, 16) is None


def test_the_padded_fast_path_keeps_64_bit_values():
    """int64 values beyond int32 through the padded fast path (results cut or handles) stay exact and
    keep their dtype."""
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "int64"), y: R.Tensor(("n", 4), "int64")) -> R.Tensor(("n", 4), "int64"):
        z = R.add(x, y)
        return z
''')
    for padded in (None, {"main"}):
        exe = relax_jax.compile(mod, padded_results=padded)
        for n in (5, 6, 7, 5, 6, 7):
            x = np.full((n, 4), 2 ** 40 + n, np.int64)
            got = exe("main", x, x)
            assert got.dtype == np.int64 and got.shape == (n, 4)
            np.testing.assert_array_equal(np.asarray(got), 2 * x)
        assert exe._plans["main"].hot is not None and exe.stats.host_calls == 0


@pytest.mark.parametrize("policy", [lambda n: max(8, 1 << max(n - 1, 0).bit_length()), [6, 9, 16]])
def test_the_padded_fast_path_checks_the_bucket_of_each_value(policy):
    """Values moving between buckets (a bucket function of the caller's, listed sizes): each call
    runs its own bucket's compilation."""
    exe = relax_jax.compile(ADD, shape_buckets=policy, specialize_after=None)
    for n in (5, 3, 7, 9, 10, 4, 12, 16, 6, 5, 13):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        np.testing.assert_array_equal(np.asarray(exe("main", x, x)), 2 * x)
    assert exe.stats.host_calls == 0


def test_the_symbolic_values_travel_as_int32_halves_exactly():
    import jax

    from relax_jax.plan import pack_sym, unpack_sym

    values = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 5, 2 ** 63 - 1]
    packed = pack_sym(values)
    assert packed.dtype == np.int32 and packed.shape == (2 * len(values),)
    with jax.enable_x64(True):
        got = jax.jit(lambda p: unpack_sym(p, len(values)))(packed)
    assert got.dtype == np.int64 and [int(v) for v in np.asarray(got)] == values


def test_a_symbolic_value_beyond_int32_reaches_the_compiled_code_exactly():
    """``k`` of a zero-size tensor read into a tensor by the compiled function (not the host)."""
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", "k"), "float32"), y: R.Tensor((1,), "int64")) -> R.Tensor((1,), "int64"):
        n = T.int64()
        k = T.int64()
        t = R.shape_to_tensor(R.shape([k]))
        z = R.add(y, t)
        return z
''')
    exe = relax_jax.compile(mod)
    for k in (3_000_000_000, 3_000_000_001, 5):
        x = np.zeros((0, k), np.float32)
        y = np.asarray([7], np.int64)
        got = exe("main", x, y)
        np.testing.assert_array_equal(np.asarray(got), relax_ref.evaluate(mod, "main", x, y))
        assert np.asarray(got)[0] == k + 7
    assert exe.stats.host_calls == 0


@pytest.mark.parametrize("padded", [None, {"step"}])
def test_a_static_argument_of_another_shape_deletes_no_donated_argument(padded):
    """The padded fast path leaves a static argument's shape and dtype to the executable, which refuses
    it only when called: a donated argument that is a view of its padded buffer (deleted before the
    call, so that the buffer is donated) is kept when a static argument does not fit, and the call gets
    the reference's error; the next call with fitting arguments goes on from the same cache."""
    exe = relax_jax.compile(GROWING_CACHE, donate_argnums={"step": (1,)}, padded_results=padded)
    mod = relax_ref.parse(GROWING_CACHE)
    tok, w = jnp.ones((1, 4), jnp.float32), jnp.full((1, 4), 2.0, jnp.float32)
    cache, want = jnp.zeros((3, 4), jnp.float32), np.zeros((3, 4), np.float32)
    for _ in range(3):
        _total, cache = exe("step", tok, cache, w)
        _t, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
    assert exe._plans["step"].hot is not None
    for bad, err in ((jnp.ones((1, 5), jnp.float32), ShapeMismatchError), (jnp.ones((1, 4), jnp.int32), DTypeMismatchError),
                     (np.ones((1, 4), np.float64), DTypeMismatchError)):
        with pytest.raises(err):
            exe("step", tok, cache, bad)
        assert not cache.is_deleted()
        np.testing.assert_array_equal(np.asarray(cache), want)
    total, cache = exe("step", tok, cache, w)
    t, want = relax_ref.evaluate(mod, "step", np.asarray(tok), want, np.asarray(w))
    np.testing.assert_array_equal(np.asarray(cache), want)
    np.testing.assert_array_equal(np.asarray(total), t)


def test_the_fast_paths_call_a_compiled_function_without_its_python_frame():
    """``direct_call`` gives what a compiled JAX function's ``__call__`` forwards to (one Python frame
    fewer per fast-path call): the same results, the same TypeError for arguments of another shape or
    dtype (the fast paths' MISS), and the function itself keeps working; anything else is itself."""
    import jax

    from relax_jax.hotpath import direct_call

    fn = jax.jit(lambda a, b: (a * b, a + 1)).lower(jnp.zeros((3,), jnp.float32), jnp.zeros((3,), jnp.float32)).compile()
    call = direct_call(fn)
    assert call is not fn and direct_call(fn) is call
    x, y = jnp.arange(3, dtype=jnp.float32), jnp.full((3,), 2.0, jnp.float32)
    got, want = call(x, y), fn(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    np.testing.assert_array_equal(np.asarray(got[0]), [0.0, 2.0, 4.0])
    for bad in (jnp.zeros((4,), jnp.float32), jnp.zeros((3,), jnp.int32)):
        with pytest.raises(TypeError):
            call(x, bad)
        with pytest.raises(TypeError):
            fn(x, bad)
    plain = lambda a: a                 # noqa: E731
    assert direct_call(plain) is plain

"""Shape bucketing: results equal the exact computation (the reference interpreter) at sizes inside a
bucket, padding-aware operators compile once per bucket, others fall back to exact shapes, and a
decode loop with a growing KV cache compiles a bounded number of times (counted, not timed)."""

import numpy as np
import pytest

import relax_jax
import relax_ref

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"


def unary_mod(expr: str, out: str = 'R.Tensor(ndim=2, dtype="float32")', dtype: str = "float32"):
    return relax_ref.parse(HEADER + f'''
    @R.function
    def main(x: R.Tensor(("n", "m"), "{dtype}")) -> {out}:
        n = T.int64()
        m = T.int64()
        y = {expr}
        return y
''')


def _check(mod, make_args, sizes, *, fallbacks=0, rtol=1e-5, atol=1e-5):
    exe = relax_jax.compile(mod, pad_poison=True)
    for size in sizes:
        args = make_args(*size)
        got = exe("main", *args)
        want = relax_ref.evaluate(mod, "main", *args)
        got, want = (got if isinstance(got, tuple) else (got,)), (want if isinstance(want, tuple) else (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            assert g.shape == np.shape(w) and g.dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    assert exe.stats.fallbacks == fallbacks, exe.fallback_reasons
    return exe


RNG = np.random.default_rng(0)


def fx(n, m):
    return [RNG.standard_normal((n, m)).astype(np.float32)]


SIZES = [(3, 5), (4, 7), (6, 5), (7, 3)]   # n, m padded to 4/8 and 8/8 (two buckets)

PADDING_EXACT = [
    "R.sum(x, axis=[1])", "R.sum(x, axis=[0], keepdims=True)", "R.max(x, axis=[1])", "R.min(x, axis=[0])",
    "R.mean(x, axis=[1])", "R.variance(x, axis=[0])", "R.std(x, axis=[1])", "R.prod(x, axis=[1])",
    "R.nn.softmax(x, axis=-1)", "R.nn.log_softmax(x, axis=0)", "R.cumsum(x, axis=1)", "R.cumprod(x, axis=0)",
    "R.sort(x, axis=-1)", "R.sort(x, axis=0, descending=True)", "R.flip(x, axis=1)", "R.permute_dims(x)",
    "R.tril(x, 0)", "R.triu(x, 1)", "R.nn.relu(R.exp(x))", "R.concat([x, x], axis=1)", "R.concat([x, x], axis=0)",
    "R.zeros_like(x)", "R.expand_dims(x, axis=[0])",
]


@pytest.mark.parametrize("expr", PADDING_EXACT)
def test_padding_aware_operators_are_exact(expr):
    _check(unary_mod(expr, 'R.Tensor(dtype="float32")'), fx, SIZES)


@pytest.mark.parametrize("expr, dt", [("R.argmax(x, axis=1)", "int64"), ("R.argmin(x, axis=0)", "int64"),
                                      ("R.argsort(x, axis=1)", "int32")])
def test_search_operators_are_exact(expr, dt):
    _check(unary_mod(expr, f'R.Tensor(dtype="{dt}")'), fx, SIZES)


def test_median_and_reduction_of_garbage():
    # log of the zero padding is -inf: it must not reach the sums
    _check(unary_mod("R.sum(R.log(R.abs(x)), axis=[1])", 'R.Tensor(dtype="float32")'), fx, SIZES)
    _check(unary_mod("R.median(x, axis=[1])", 'R.Tuple(R.Tensor(dtype="float32"), R.Tensor(dtype="int64"))'), fx,
           SIZES)


def test_matmul_with_a_padded_reduction_axis():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(a: R.Tensor(("n", "k"), "float32"), b: R.Tensor(("k", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        c = R.matmul(R.exp(a), R.log(R.abs(b)))
        return c
''')

    def args(n, k):
        return [RNG.standard_normal((n, k)).astype(np.float32), RNG.standard_normal((k, 3)).astype(np.float32)]
    _check(mod, args, [(3, 5), (4, 6), (2, 7)], rtol=1e-4)


def test_norms_and_attention():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), g: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
        n = T.int64()
        h = R.nn.rms_norm(x, g, axes=[-1])
        l = R.nn.layer_norm(h, g, g, axes=[-1])
        q = R.reshape(l, R.shape([1, n, 2, 4]))
        o = R.nn.attention(q, q, q, causal_mask="BottomRight")
        y = R.reshape(o, R.shape([n, 8]))
        return y
''')

    def args(n, _):
        return [RNG.standard_normal((n, 8)).astype(np.float32), RNG.standard_normal(8).astype(np.float32)]
    _check(mod, args, [(3, 0), (5, 0), (7, 0)], rtol=1e-4)


def test_creation_and_indexing_with_symbolic_sizes():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), i: R.Tensor(("k",), "int64")) -> R.Tensor(("k",), "float32"):
        n = T.int64()
        r = R.arange(T.int64(0), n, T.int64(1), dtype="float32")
        z = R.add(x, r)
        y = R.take(z, i, axis=0)
        return y
''')

    def args(n, k):
        return [RNG.standard_normal(n).astype(np.float32), RNG.integers(0, n, k).astype(np.int64)]
    _check(mod, args, [(3, 2), (4, 3), (7, 5)])


def test_take_out_of_range_index_is_an_error_even_inside_the_padding():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32"), i: R.Tensor((1,), "int64")) -> R.Tensor((1,), "float32"):
        y = R.take(x, i, axis=0)
        return y
''')
    exe = relax_jax.compile(mod, pad_poison=True)
    x = np.ones(3, np.float32)           # padded to 4: index 3 is physically there, logically not
    with pytest.raises(relax_ref.OpRuntimeError):
        exe("main", x, np.array([3], np.int64))


def test_reshape_merging_an_inner_padded_axis_falls_back_to_exact_shapes():
    mod = unary_mod("R.reshape(x, R.shape([n * m]))", 'R.Tensor(dtype="float32")')
    exe = _check(mod, fx, SIZES, fallbacks=1)
    assert "reshape" in exe.fallback_reasons["main"]


def test_integer_checks_see_only_valid_elements():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(a: R.Tensor(("n",), "int32"), b: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "int32"):
        c = R.floor_divide(a, b)
        return c
''')
    _check(mod, lambda n, _: [np.arange(n, dtype=np.int32), np.full(n, 2, np.int32)], [(3, 0), (5, 0)])


DECODE = relax_ref.parse(HEADER + '''
    @R.function
    def decode(x: R.Tensor((1, 16), "float32"), kc: R.Tensor(("L", 2, 8), "float32"),
               vc: R.Tensor(("L", 2, 8), "float32"), wq: R.Tensor((16, 16), "float32"),
               wk: R.Tensor((16, 16), "float32"), wv: R.Tensor((16, 16), "float32")) -> R.Tuple(R.Tensor((1, 16), "float32"), R.Tensor(("L + 1", 2, 8), "float32"),
                       R.Tensor(("L + 1", 2, 8), "float32")):
        with R.dataflow():
            q = R.reshape(R.matmul(x, wq), R.shape([1, 2, 8]))
            k = R.reshape(R.matmul(x, wk), R.shape([1, 2, 8]))
            v = R.reshape(R.matmul(x, wv), R.shape([1, 2, 8]))
            k2 = R.concat([kc, k], axis=0)
            v2 = R.concat([vc, v], axis=0)
            s = R.matmul(R.permute_dims(q, [1, 0, 2]), R.permute_dims(k2, [1, 2, 0]))
            p = R.nn.softmax(s, axis=-1)
            o = R.permute_dims(R.matmul(p, R.permute_dims(v2, [1, 0, 2])), [1, 0, 2])
            y = R.add(x, R.reshape(o, R.shape([1, 16])))
            R.output(y, k2, v2)
        return (y, k2, v2)
''')


def test_decode_loop_compiles_once_per_bucket():
    from jax import monitoring

    compiles = []

    def listener(name, *a, **k):
        if name == "/jax/core/compile/backend_compile_duration":
            compiles.append(name)

    monitoring.register_event_duration_secs_listener(listener)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    k = rng.standard_normal((64, 2, 8)).astype(np.float32)
    v = rng.standard_normal((64, 2, 8)).astype(np.float32)
    exe = relax_jax.compile(DECODE)
    import jax.numpy as jnp

    jx, jws = jnp.asarray(x), [jnp.asarray(w) for w in ws]
    kk, vv = jnp.asarray(k), jnp.asarray(v)
    before = len(compiles)
    for step in range(64):
        y, kk, vv = exe("decode", jx, kk, vv, *jws)
        if step in (0, 1, 40, 63):
            want = relax_ref.evaluate(DECODE, "decode", x, np.asarray(kk)[:-1], np.asarray(vv)[:-1], *ws)
            np.testing.assert_allclose(np.asarray(y), want[0], rtol=1e-4, atol=1e-5)
    assert kk.shape == (128, 2, 8)
    # growth-aware buckets: the result extent L + 1 puts L = 64..127 in one bucket (128)
    assert exe.stats.compiles == 1
    assert len(compiles) - before == 1      # and nothing else reaches XLA (no per-shape pad/slice ops)
    assert exe.stats.fallbacks == 0 and exe.stats.host_calls == 0


def test_growth_aware_bucket_of_a_variable_with_a_longer_result():
    exe = relax_jax.compile(DECODE)
    plan = exe._plan("decode")
    (var,) = plan.sym_vars
    assert plan.headroom == {var: 1}
    assert [plan.bucket(var, n) for n in (63, 64, 127, 128)] == [64, 128, 128, 256]
    plain = relax_jax.compile(ADD_MOD)._plan("main")
    assert plain.headroom == {}


def test_a_static_arange_is_a_constant_of_the_one_compilation():
    """R.arange with known bounds becomes a constant of the function's compilation: no XLA compilation
    of its own (jnp.asarray under compile-time evaluation stages one per length)."""
    from jax import monitoring

    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor((13,), "float32")) -> R.Tensor((13,), "float32"):
        r = R.arange(T.int64(0), T.int64(13), T.int64(1), dtype="float32")
        y = R.add(x, r)
        return y
''')
    compiles: list = []
    monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)
    x = np.linspace(0, 1, 13, dtype=np.float32)
    got = relax_jax.compile(mod)("main", x)
    np.testing.assert_array_equal(np.asarray(got), relax_ref.evaluate(mod, "main", x))
    assert len(compiles) == 1


def test_reserve_puts_a_whole_decode_loop_in_one_bucket():
    """reserve=R: a growing variable (result extent L + 1) takes at least the bucket of R, so a loop
    from 16 to 79 cached rows compiles once (pow2 alone: 32, 64 and 128); a variable that does not grow
    keeps its own bucket; results are the reference's at every step, in padding full of junk."""
    import jax.numpy as jnp

    exe = relax_jax.compile(DECODE, reserve=80, pad_poison=True, specialize_after=None)
    plan = exe._plan("decode")
    (var,) = plan.sym_vars
    assert [plan.bucket(var, n) for n in (1, 16, 79, 127, 128)] == [128, 128, 128, 128, 256]
    assert relax_jax.compile(ADD_MOD, reserve=80)._plan("main").bucket(
        relax_jax.compile(ADD_MOD)._plan("main").sym_vars[0], 5) == 8
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    rk = rv = rng.standard_normal((16, 2, 8)).astype(np.float32)
    kk, vv = jnp.asarray(rk), jnp.asarray(rv)
    for step in range(64):
        y, kk, vv = exe("decode", x, kk, vv, *ws)
        if step in (0, 15, 16, 47, 48, 63):
            want = relax_ref.evaluate(DECODE, "decode", x, rk, rv, *ws)
            np.testing.assert_allclose(np.asarray(y), want[0], rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(kk), want[1], rtol=1e-6)
        rk, rv = np.asarray(kk), np.asarray(vv)
    assert kk.shape == (80, 2, 8)
    assert exe.stats.compiles == 1 and exe.stats.host_pads == 2
    plain = relax_jax.compile(DECODE, specialize_after=None)
    kk = vv = jnp.asarray(rng.standard_normal((16, 2, 8)).astype(np.float32))
    for _ in range(64):
        _, kk, vv = plain("decode", x, kk, vv, *ws)
    assert plain.stats.compiles == 3
    with pytest.raises(relax_ref.errors.UnsupportedError, match="reserve"):
        relax_jax.compile(DECODE, reserve=-1)


ADD_MOD = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.add(x, x)
        return y
''')


@pytest.mark.parametrize("reuse", [True, False])
def test_decode_loop_pads_on_the_host_only_once_when_results_come_back(reuse):
    """reuse_padded: a result cut from a padded buffer comes back as the next step's argument and is
    passed as that buffer (whose padding holds whatever the computation left there), not padded again;
    results are the reference's either way."""
    import jax.numpy as jnp

    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    k = rng.standard_normal((64, 2, 8)).astype(np.float32)
    exe = relax_jax.compile(DECODE, reuse_padded=reuse, pad_poison=True, specialize_after=None)
    rk, rv = k, k
    kk, vv = jnp.asarray(k), jnp.asarray(k)
    for step in range(20):
        y, kk, vv = exe("decode", x, kk, vv, *ws)
        want = relax_ref.evaluate(DECODE, "decode", x, rk, rv, *ws)
        rk, rv = want[1], want[2]
        np.testing.assert_allclose(np.asarray(y), want[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(kk), rk, rtol=1e-6)
        assert kk.shape == (65 + step, 2, 8)
    assert exe.stats.compiles == 1
    if reuse:
        assert exe.stats.host_pads == 2 and exe.stats.reused_pads == 38
    else:
        assert exe.stats.host_pads == 40 and exe.stats.reused_pads == 0


def test_concat_of_a_bounded_cache_stays_in_its_bucket():
    """Growth-aware bounds: with L <= 127 in bucket 128, concat([kc, k]) of L + 1 rows keeps 128 rows."""
    exe = relax_jax.compile(DECODE, specialize_after=None)
    rng = np.random.default_rng(3)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    k = rng.standard_normal((100, 2, 8)).astype(np.float32)
    y, k2, v2 = exe("decode", rng.standard_normal((1, 16)).astype(np.float32), k, k, *ws)
    assert k2.shape == (101, 2, 8)
    padded = [buf for ref, buf in exe._padded_src.values() if ref() is k2]
    assert len(padded) == 1 and padded[0].shape == (128, 2, 8)


def test_results_of_a_padded_call_are_freed_when_dropped():
    """The padded fast path's results (and the padded buffers they were cut from) are freed by
    reference counting when the caller drops them, not only when the cyclic collector runs: a decode
    loop of 1024-row caches held up to 84 dead steps' buffers (40 MB) between collections."""
    import gc
    import weakref

    exe = relax_jax.compile(DECODE, specialize_after=None)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    ws = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(3)]
    k = rng.standard_normal((100, 2, 8)).astype(np.float32)
    _, kk, vv = exe("decode", x, k, k, *ws)
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):              # the fast path (arguments come back as cut results)
            out = exe("decode", x, kk, vv, *ws)
            refs = [weakref.ref(a) for a in out]
            kk, vv = out[1], out[2]
            del out
        assert exe.stats.reused_pads >= 4
        del kk, vv
        assert [r() is None for r in refs] == [True, True, True]
        assert exe._padded_src == {}
    finally:
        gc.enable()


SLICES = [
    ('R.strided_slice(x, axes=[0], begin=[n - 1], end=[n], assume_inbound=True)', 'R.Tensor((1, 4), "float32")'),
    ('R.strided_slice(x, axes=[0], begin=[0], end=[n - 1])', 'R.Tensor(("n - 1", 4), "float32")'),
    ('R.strided_slice(x, axes=[0], begin=[1], end=[n], strides=[2])', 'R.Tensor(dtype="float32", ndim=2)'),
    ('R.strided_slice(x, axes=[0], begin=[-2], end=[n])', 'R.Tensor(dtype="float32", ndim=2)'),
    ('R.strided_slice(x, axes=[0], begin=[-3], end=[100])', 'R.Tensor(dtype="float32", ndim=2)'),
    ('R.strided_slice(x, axes=[0, 1], begin=[0, 1], end=[2, 3])', 'R.Tensor(dtype="float32", ndim=2)'),
    ('R.strided_slice(x, axes=[1], begin=[1], end=[3])', 'R.Tensor(("n", 2), "float32")'),
]


@pytest.mark.parametrize("expr, ret", SLICES)
def test_strided_slice_with_symbolic_bounds_or_of_a_padded_axis(expr, ret):
    """Symbolic bounds (traced under bucketing) and slices of a padded axis: a dynamic slice or a gather
    of the length the struct info gives (static, or padded to a bound), one compilation per bucket."""
    mod = relax_ref.parse(HEADER + f'''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> {ret}:
        n = T.int64()
        y = {expr}
        return y
''')

    def args(n):
        return [np.arange(n * 4, dtype=np.float32).reshape(n, 4)]
    exe = _check(mod, args, [(3,), (5,), (6,), (7,), (2,)])
    assert exe.stats.compiles == 3        # buckets 4, 8, 2


def test_strided_slice_assume_inbound_violation_is_an_error_under_bucketing():
    mod = relax_ref.parse(HEADER + '''
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor((1, 4), "float32"):
        n = T.int64()
        y = R.strided_slice(x, axes=[0], begin=[n], end=[n + 1], assume_inbound=True)
        return y
''', check_well_formed=False)
    exe = relax_jax.compile(mod, pad_poison=True)
    x = np.ones((3, 4), np.float32)
    with pytest.raises(relax_ref.RelaxError) as want:
        relax_ref.evaluate(mod, "main", x)
    with pytest.raises(type(want.value)):
        exe("main", x)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=10, deadline=None)
@given(st.lists(st.one_of(st.just("feed"), st.integers(1, 40)), min_size=1, max_size=12),
       st.integers(0, 2 ** 31 - 1))
def test_decode_sequences_with_fed_back_and_fresh_caches_agree_with_the_reference(steps, seed):
    """Random call sequences on the decode module: a step either feeds the grown caches back (passed as
    their padded buffers, whose padding holds leftovers) or starts over from fresh caches of a random
    length; with NaN-poisoned host padding every step equals the reference."""
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    ws = [jnp.asarray(rng.standard_normal((16, 16)).astype(np.float32)) for _ in range(3)]
    exe = relax_jax.compile(DECODE, pad_poison=True, specialize_after=3)
    kk = vv = None
    for step in steps:
        if step == "feed" and kk is not None:
            k_in, v_in = kk, vv
        else:
            n = 5 if step == "feed" else step
            k_in = jnp.asarray(rng.standard_normal((n, 2, 8)).astype(np.float32))
            v_in = jnp.asarray(rng.standard_normal((n, 2, 8)).astype(np.float32))
        y, kk, vv = exe("decode", x, k_in, v_in, *ws)
        want = relax_ref.evaluate(DECODE, "decode", x, np.asarray(k_in), np.asarray(v_in), *[np.asarray(w) for w in ws])
        np.testing.assert_allclose(np.asarray(y), want[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(np.asarray(kk), want[1])
        np.testing.assert_array_equal(np.asarray(vv), want[2])

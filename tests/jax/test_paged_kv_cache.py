"""TVM's paged KV cache in relax_jax (CALL.PAGEDKV.*): a cache held across calls as a serving loop
holds it, the page pool a donated device buffer updated in place, one kernel compilation per bucket,
and the same values as the reference step by step."""

import jax
import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.interp.paged_kv_cache import PagedKVCache
from relax_jax import paged_kv_cache as jpk

CREATE_ARGS = ", ".join(
    ["R.shape([4, 64, 32, 4, 0])", "R.shape([0, 1])", "R.prim_value(4)", "R.prim_value(2)", "R.prim_value(8)",
     "R.prim_value(8)", "R.shape([0])", "R.prim_value(0)", "R.prim_value(1)", "R.prim_value(1.0)",
     "R.prim_value(10000.0)", "R.prim_value(0)", 'R.zeros(R.shape([]), "float32")'] + ["R.prim_value(0)"] * 15)

SRC = f'''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function(pure=False)
    def create() -> R.Object:
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", {CREATE_ARGS}, sinfo_args=R.Object)
        _ = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        return c

    @R.function(pure=False)
    def fork(c: R.Object, parent: R.Prim("int64"), child: R.Prim("int64"), pos: R.Prim("int64")) -> R.Prim("int64"):
        _ = R.call_packed("vm.builtin.kv_state_fork_sequence", c, parent, child, pos, sinfo_args=R.Object)
        n = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        return n

    @R.function(pure=False)
    def step(c: R.Object, ids: R.Shape, lens: R.Shape, qkv: R.Tensor(("t", 8, 8), "float32")) -> R.Tensor(("t", 4, 8), "float32"):
        t = T.int64()
        _ = R.call_packed("vm.builtin.kv_state_begin_forward", c, ids, lens, sinfo_args=R.Object)
        o = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv",
                              (c, R.prim_value(0), R.prim_value(0.35), qkv), out_sinfo=R.Tensor((t, 4, 8), "float32"))
        _1 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        return o
'''


def _run(call, steps):
    """A generation: prefill, fork, batched decode steps; every output and page count."""
    rng = np.random.default_rng(0)
    c = call("create")
    outs = [call("step", c, (0,), (7,), rng.standard_normal((7, 8, 8)).astype("float32"))]
    outs.append(call("fork", c, 0, 1, 5))
    for _ in range(steps):
        outs.append(call("step", c, (1, 0), (1, 1), rng.standard_normal((2, 8, 8)).astype("float32")))
    return c, outs


def test_generation_matches_the_reference_and_compiles_once_per_bucket():
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    _, ref = _run(lambda f, *a: relax_ref.evaluate(mod, f, *a), 6)
    before = jpk._forward_kernel._cache_size()
    c, got = _run(lambda f, *a: exe(f, *a), 6)
    assert isinstance(c, PagedKVCache) and not isinstance(c.pool, np.ndarray)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(r, dtype=np.float64), rtol=1e-5, atol=1e-6)
    # 7 prefill tokens (bucket 8) and 6 decode steps of 2 tokens over 6..12 rows: the history
    # buckets 8 and 16, one batch bucket each: at most 3 kernels
    assert jpk._forward_kernel._cache_size() - before <= 3


def test_the_pool_is_donated():
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    c = exe("create")
    old = c.pool
    exe("step", c, (0,), (3,), np.ones((3, 8, 8), "float32"))
    assert old.is_deleted() and not c.pool.is_deleted()


# -- functions that take the cache while the host keeps the forward open: compiled as a whole ------------

ATT = "vm.builtin.attention_kv_cache_attention_with_fused_qkv"
TWO_LAYERS = CREATE_ARGS.replace("R.shape([0, 1])", "R.shape([0, 2])").replace("R.shape([0])", "R.shape([0, 0])")

COMPILED_SRC = f'''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function(pure=False)
    def create() -> R.Object:
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", {TWO_LAYERS}, sinfo_args=R.Object)
        _ = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        return c

    @R.function
    def layers(c: R.Object, qkv: R.Tensor(("t", 8, 8), "float32")) -> R.Tensor(("t", 4, 8), "float32"):
        t = T.int64()
        o = R.call_dps_packed("{ATT}", (c, R.prim_value(0), R.prim_value(0.35), qkv),
                              out_sinfo=R.Tensor((t, 4, 8), "float32"))
        q2 = R.concat((o, R.multiply(R.strided_slice(qkv, axes=[1], begin=[4], end=[8]), R.const(0.5, "float32"))), axis=1)
        o2 = R.call_dps_packed("{ATT}", (c, R.prim_value(1), R.prim_value(0.35), q2),
                               out_sinfo=R.Tensor((t, 4, 8), "float32"))
        return o2

    @R.function
    def decode2(c: R.Object, qkv: R.Tensor((2, 8, 8), "float32")) -> R.Tensor((2, 4, 8), "float32"):
        o = R.call_dps_packed("{ATT}", (c, R.prim_value(1), R.prim_value(0.35), qkv),
                              out_sinfo=R.Tensor((2, 4, 8), "float32"))
        return o

    @R.function
    def decode1(c: R.Object, qkv: R.Tensor((1, 8, 8), "float32")) -> R.Tensor((1, 4, 8), "float32"):
        o = R.call_dps_packed("{ATT}", (c, R.prim_value(1), R.prim_value(0.35), qkv),
                              out_sinfo=R.Tensor((1, 4, 8), "float32"))
        return o

    @R.function
    def both(a: R.Object, b: R.Object, qkv: R.Tensor(("t", 8, 8), "float32")) -> R.Tensor(("t", 4, 8), "float32"):
        t = T.int64()
        o = R.call_dps_packed("{ATT}", (a, R.prim_value(0), R.prim_value(0.35), qkv),
                              out_sinfo=R.Tensor((t, 4, 8), "float32"))
        o2 = R.call_dps_packed("{ATT}", (b, R.prim_value(1), R.prim_value(0.35), qkv),
                               out_sinfo=R.Tensor((t, 4, 8), "float32"))
        return o2
'''


def _serve(call, ops, steps):
    """A serving loop: the host adds, forks and brackets each call with begin/end forward."""
    from relax_ref.values import ShapeValue

    rng = np.random.default_rng(1)
    c = call("create")

    def fwd(ids, lens):
        ops.begin_forward(c, ShapeValue(ids), ShapeValue(lens))
        out = call("layers", c, rng.standard_normal((sum(lens), 8, 8)).astype("float32"))
        ops.end_forward(c)
        return np.asarray(out)
    outs = [fwd([0], [5])]
    ops.fork_sequence(c, 0, 1, 3)
    outs += [fwd([1, 0], [1, 1]) for _ in range(steps)]
    outs.append(fwd([0], [3]))
    return c, outs


@pytest.mark.parametrize("pad_poison", [False, True])
def test_a_function_taking_the_cache_compiles_once_per_bucket(pad_poison):
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
    from relax_ref.testing.compare import compare

    mod = relax_ref.parse(COMPILED_SRC)
    ref_cache, ref = _serve(lambda f, *a: relax_ref.evaluate(mod, f, *a), NUMPY_PAGED, 6)
    exe = relax_jax.compile(mod, pad_poison=pad_poison)
    cache, got = _serve(lambda f, *a: exe(f, *a), jpk.JAX_PAGED, 6)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    assert compare(ref_cache, cache) is None
    # create in host mode; prefill of 5 tokens (history 5), decode of 2 tokens over histories 6-11
    # (buckets 8 and 16), 3 tokens over 14: four compilations for eight calls
    assert exe.stats.host_calls == 1 and exe.stats.compiles == 4 and exe.stats.cache_hits == 4


def _open(c, ops, n):
    from relax_ref.values import ShapeValue

    ops.begin_forward(c, ShapeValue([0]), ShapeValue([n]))


def test_the_pool_of_a_compiled_call_is_donated_and_written_back():
    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod)
    c = exe("create")
    _open(c, jpk.JAX_PAGED, 3)
    old = c.pool
    exe("layers", c, np.ones((3, 8, 8), "float32"))
    assert exe.stats.compiles == 1 and old.is_deleted() and not c.pool.is_deleted()
    k = np.zeros((2, 3, 2, 8), "float32")
    jpk.JAX_PAGED.end_forward(c)
    kk, vv = jpk.JAX_PAGED.debug_get_kv(c, 0, 0, 3, k, k)
    vv = np.asarray(vv)
    assert np.all(vv[0] == 1.0) and np.all(vv[1] == 0.5)    # layer 0: the qkv's ones, layer 1: q2's halves
    assert not np.all(np.asarray(kk) == 0.0)


@pytest.mark.parametrize("opened, rows", [(4, 3), (None, 2)])
def test_a_forward_the_call_does_not_fit_is_the_reference_error(opened, rows):
    """A token count other than the open forward's, or no forward: host mode reports the reference's
    error before anything is donated (CALL.PAGEDKV.7-8)."""
    mod = relax_ref.parse(COMPILED_SRC)
    qkv = np.ones((rows, 8, 8), "float32")
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED

    ref_c = relax_ref.evaluate(mod, "create")
    exe = relax_jax.compile(mod)
    c = exe("create")
    if opened:
        _open(ref_c, NUMPY_PAGED, opened)
        _open(c, jpk.JAX_PAGED, opened)
    with pytest.raises(relax_ref.errors.OpRuntimeError) as want:
        relax_ref.evaluate(mod, "layers", ref_c, qkv)
    pool = c.pool
    with pytest.raises(relax_ref.errors.OpRuntimeError) as got:
        exe("layers", c, qkv)
    assert str(got.value) == str(want.value) and not pool.is_deleted()
    if opened:                                      # the same compilation then serves a fitting call
        exe("layers", c, np.ones((opened, 8, 8), "float32"))
        assert exe.stats.compiles == 1


def test_one_cache_passed_twice_runs_on_the_host():
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED

    mod = relax_ref.parse(COMPILED_SRC)
    qkv = np.random.default_rng(2).standard_normal((4, 8, 8)).astype("float32")
    ref_c = relax_ref.evaluate(mod, "create")
    _open(ref_c, NUMPY_PAGED, 4)
    want = relax_ref.evaluate(mod, "both", ref_c, ref_c, qkv)
    exe = relax_jax.compile(mod)
    c = exe("create")
    _open(c, jpk.JAX_PAGED, 4)
    np.testing.assert_allclose(np.asarray(exe("both", c, c, qkv)), want, rtol=1e-5, atol=1e-6)
    assert exe.stats.host_calls == 2 and not c.pool.is_deleted()      # create, and this call


def test_decode_steps_take_the_fast_path():
    """A decode step of static shapes: after the first call of a history bucket, the per-call fast path
    (relax_jax.kvhot) passes the pool and the plan; a step whose forward does not fit leaves it for the
    general path, which reports the reference's error."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
    from relax_ref.testing.compare import compare
    from relax_ref.values import ShapeValue

    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod)
    rng = np.random.default_rng(3)
    caches = [relax_ref.evaluate(mod, "create"), exe("create")]
    for c, ops in zip(caches, (NUMPY_PAGED, jpk.JAX_PAGED)):
        ops.add_sequence(c, 1)
    for step in range(6):
        qkv = rng.standard_normal((2, 8, 8)).astype("float32")
        outs = []
        for c, ops, call in zip(caches, (NUMPY_PAGED, jpk.JAX_PAGED), (lambda *a: relax_ref.evaluate(mod, *a), exe)):
            ops.begin_forward(c, ShapeValue([0, 1]), ShapeValue([1, 1]))
            outs.append(np.asarray(call("decode2", c, qkv)))
            ops.end_forward(c)
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
        if step == 0:
            assert exe._plans["decode2"].hot is not None
    assert compare(caches[0], caches[1]) is None
    # histories 1-6: buckets 1, 2, 4, 8: four compilations, the other two steps on the fast path
    assert exe.stats.compiles == 4 and exe.stats.host_calls == 1
    c = caches[1]
    from relax_jax.hotpath import MISS

    jpk.JAX_PAGED.begin_forward(c, ShapeValue([0, 1]), ShapeValue([1, 1]))      # history 7: bucket 8
    assert exe._plans["decode2"].hot((c, qkv)) is not MISS
    jpk.JAX_PAGED.end_forward(c)
    jpk.JAX_PAGED.begin_forward(c, ShapeValue([0]), ShapeValue([1]))
    pool = c.pool
    with pytest.raises(relax_ref.errors.OpRuntimeError, match="fused qkv"):
        exe("decode2", c, np.ones((2, 8, 8), "float32"))
    assert not pool.is_deleted()


def test_one_token_steps_take_the_fast_path():
    """A one-token step (a decode step of one sequence): its plan built directly, the values the
    reference's across pages (of 4 tokens) and buckets; a pool of another dtype than the compiled one
    leaves the call to the general path before anything is donated (the executable's own check)."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
    from relax_ref.testing.compare import compare
    from relax_ref.values import ShapeValue
    from relax_jax.hotpath import MISS

    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod)
    rng = np.random.default_rng(4)
    caches = [relax_ref.evaluate(mod, "create"), exe("create")]
    calls = (lambda *a: relax_ref.evaluate(mod, *a), exe)
    for step in range(11):
        qkv = rng.standard_normal((1, 8, 8)).astype("float32")
        outs = []
        for c, ops, call in zip(caches, (NUMPY_PAGED, jpk.JAX_PAGED), calls):
            ops.begin_forward(c, ShapeValue([0]), ShapeValue([1]))
            outs.append(np.asarray(call("decode1", c, qkv)))
            ops.end_forward(c)
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
    assert compare(caches[0], caches[1]) is None
    # histories 1-11: buckets 1, 2, 4, 8, 16: five compilations, the other six steps on the fast path
    assert exe.stats.compiles == 5 and exe.stats.cache_hits == 6
    c = caches[1]
    jpk.JAX_PAGED.begin_forward(c, ShapeValue([0]), ShapeValue([1]))           # history 12: bucket 16
    c.pool = c.pool.astype("float16")
    pool = c.pool
    assert exe._plans["decode1"].hot((c, qkv)) is MISS and not pool.is_deleted()


CREATE_ONLY = f'''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def create() -> R.Object:
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", {TWO_LAYERS}, sinfo_args=R.Object)
        return c
'''


def test_a_create_function_runs_on_the_host():
    """A function that only creates the cache (as MLC's ``create_paged_kv_cache``) has nothing to
    compute on the device: it runs in host mode, no XLA compilation of its own, each call a new cache
    with a zeroed pool of its own (CALL.PAGEDKV.1)."""
    from relax_ref.testing.compare import compare

    mod = relax_ref.parse(CREATE_ONLY)
    exe = relax_jax.compile(mod)
    a, b = exe("create"), exe("create")
    ref = relax_ref.evaluate(mod, "create")
    assert exe.stats.compiles == 0 and exe.stats.host_calls == 2
    assert type(a) is PagedKVCache and a is not b and a.pool is not b.pool and compare(ref, a) is None
    assert isinstance(a.pool, jax.Array) and a.state.forward is None
    assert a.config == ref.config and a.pool.shape == ref.pool.shape and not np.any(np.asarray(a.pool))


def test_a_function_that_creates_and_computes_compiles():
    """A function that creates the cache and computes anything else is compiled as before: the pool is
    zeros in the compiled code and leaves it as the new cache's pool (CALL.PAGEDKV.1)."""
    from relax_ref.testing.compare import compare

    src = CREATE_ONLY.replace("return c", "return (c, R.add(R.const(1.0, \"float32\"), R.const(2.0, \"float32\")))")
    mod = relax_ref.parse(src)
    exe = relax_jax.compile(mod)
    got = exe("create")
    ref = relax_ref.evaluate(mod, "create")
    assert exe.stats.compiles == 1 and exe.stats.host_calls == 0
    assert type(got[0]) is PagedKVCache and compare(ref[0], got[0]) is None and float(np.asarray(got[1])) == 3.0


def test_only_allocating_functions_skip_the_compilation():
    """``plan.allocates_only``: no parameter, and only a cache's create, the static constants it takes
    and tuples of them; a parameter, another packed function or a computed tensor makes it compile."""
    from relax_jax.plan import allocates_only

    assert allocates_only(relax_ref.parse(CREATE_ONLY)["create"])
    for old, new in (("vm.builtin.paged_attention_kv_cache_create", "vm.builtin.other"),
                     ("def create()", "def create(x: R.Tensor((2,), \"float32\"))"),
                     ("return c", "return (c, R.add(R.const(1.0, \"float32\"), R.const(2.0, \"float32\")))")):
        assert old in CREATE_ONLY
        assert not allocates_only(relax_ref.parse(CREATE_ONLY.replace(old, new))["create"]), new


def test_the_history_bucket_is_at_least_the_reserve():
    """``compile(reserve=n)``: the history of a sequence up to ``n`` rows takes the bucket of ``n``, so
    every decode step of a generation within it is one compilation; a longer history buckets as before."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
    from relax_ref.values import ShapeValue

    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod, reserve=8)
    rng = np.random.default_rng(4)
    caches = [relax_ref.evaluate(mod, "create"), exe("create")]
    for c, ops in zip(caches, (NUMPY_PAGED, jpk.JAX_PAGED)):
        ops.add_sequence(c, 1)
    compiles = []
    for _ in range(10):                                 # histories 1..10
        qkv = rng.standard_normal((2, 8, 8)).astype("float32")
        outs = []
        for c, ops, call in zip(caches, (NUMPY_PAGED, jpk.JAX_PAGED), (lambda *a: relax_ref.evaluate(mod, *a), exe)):
            ops.begin_forward(c, ShapeValue([0, 1]), ShapeValue([1, 1]))
            outs.append(np.asarray(call("decode2", c, qkv)))
            ops.end_forward(c)
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
        compiles.append(exe.stats.compiles)
    # histories 1-8 are one bucket (8), 9 and 10 the bucket 16
    assert compiles == [1] * 8 + [2, 2] and exe.stats.host_calls == 1      # (create adds a sequence: host mode)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
@pytest.mark.parametrize("pad_poison", [False, True])
def test_a_masked_non_finite_value_contributes_nothing(bad, pad_poison):
    """CALL.PAGEDKV.8: a later token of a prefill chunk holding an infinity or a NaN in its value leaves
    the earlier tokens' outputs finite, on the per-layer kernels (a function that opens the forward
    itself, host mode) and in a compiled function (its tokens padded to their bucket), as on the
    reference; the tokens that see it get what the reference gives them."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED

    qkv = np.random.default_rng(7).standard_normal((5, 8, 8)).astype("float32")
    qkv[3, 6] = bad
    mod, cmod = relax_ref.parse(SRC), relax_ref.parse(COMPILED_SRC)
    exe, cexe = relax_jax.compile(mod, pad_poison=pad_poison), relax_jax.compile(cmod, pad_poison=pad_poison)
    want = relax_ref.evaluate(mod, "step", relax_ref.evaluate(mod, "create"), (0,), (5,), qkv)
    got = np.asarray(exe("step", exe("create"), (0,), (5,), qkv))
    ref_c, c = relax_ref.evaluate(cmod, "create"), cexe("create")
    _open(ref_c, NUMPY_PAGED, 5)
    _open(c, jpk.JAX_PAGED, 5)
    cwant, cgot = relax_ref.evaluate(cmod, "layers", ref_c, qkv), np.asarray(cexe("layers", c, qkv))
    # the compiled call takes the plain sums and is computed again on the host (recompute_on_host)
    assert cexe.stats.compiles == 1 and cexe.stats.error_reruns == 1
    for w, g in ((want, got), (cwant, cgot)):
        assert np.all(np.isfinite(w[:3])) and not np.all(np.isfinite(w[3:]))
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    jpk.JAX_PAGED.end_forward(c)
    NUMPY_PAGED.end_forward(ref_c)
    k = np.zeros((2, 5, 2, 8), "float32")
    # the pool as the reference's (both layers' keys and values): the recomputed writes are the same
    for w, g in zip(NUMPY_PAGED.debug_get_kv(ref_c, 0, 0, 5, k, k), jpk.JAX_PAGED.debug_get_kv(c, 0, 0, 5, k, k)):
        np.testing.assert_array_equal(np.isfinite(g), np.isfinite(w))
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)


def _compiled_text(exe, entry):
    """The text of the last compiled module of ``entry``."""
    plan = exe._plans[entry]
    text = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    assert "ENTRY" in text                                          # the compiled module's text
    return text


def _whiles(exe, entry):
    import re

    return len(re.findall(r"\) while\(", _compiled_text(exe, entry)))


@pytest.mark.parametrize("bad", [None, np.nan])
def test_a_compiled_forward_takes_the_plain_sums_unless_it_cannot_be_recomputed(bad):
    """A compiled function's attention calls of several tokens compile the plain weighted sums, not the
    exact branch (a loop over the tokens per layer; only the chunk writer's loop is left), and a forward
    that stored a value that is not finite is computed again on the host; with an argument given up to
    XLA (``donate_argnums``) the call could not be, so the branch is compiled and taken in the
    compiled code. The values are the reference's either way."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED

    qkv = np.random.default_rng(9).standard_normal((5, 8, 8)).astype("float32")
    if bad is not None:
        qkv[2, 7] = bad
    cmod = relax_ref.parse(COMPILED_SRC)
    ref_c = relax_ref.evaluate(cmod, "create")
    _open(ref_c, NUMPY_PAGED, 5)
    want = relax_ref.evaluate(cmod, "layers", ref_c, qkv.copy())
    whiles = []
    for donate in (None, {"layers": [1]}):
        exe = relax_jax.compile(cmod, donate_argnums=donate)
        c = exe("create")
        _open(c, jpk.JAX_PAGED, 5)
        got = np.asarray(exe("layers", c, qkv.copy()))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert exe.stats.error_reruns == (1 if bad is not None and donate is None else 0)
        whiles.append(_whiles(exe, "layers"))
    assert whiles == [2, 4]         # two layers: their chunk writers, and with the branch its loops


def test_a_stale_slot_past_the_length_is_not_read():
    """The compiled code reads whole pages; a slot past a sequence's length (here the infinite value of a
    popped token, left in its page) reads as zero, so it cannot reach an output."""
    from relax_ref.interp.paged_kv_cache import NUMPY_PAGED

    qkv = np.random.default_rng(8).standard_normal((3, 8, 8)).astype("float32")
    qkv[2, 6] = np.inf
    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod)
    outs = []
    for c, ops, call in ((relax_ref.evaluate(mod, "create"), NUMPY_PAGED, lambda *a: relax_ref.evaluate(mod, *a)),
                         (exe("create"), jpk.JAX_PAGED, exe)):
        _open(c, ops, 3)
        call("layers", c, qkv)
        ops.end_forward(c)
        ops.popn(c, 0, 2)                           # positions 1-2 popped: slot 2 keeps the infinity
        _open(c, ops, 1)                            # position 1: the history is slots 0-1 of the page
        outs.append(np.asarray(call("layers", c, qkv[:1] * 0.5)))
        ops.end_forward(c)
    assert np.all(np.isfinite(outs[0]))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lens", [(7,), (1, 1), (5, 9), (3, 1, 6)])
def test_the_plan_runs_cover_each_new_token_once_within_a_page(lens):
    """The runs of slots of a compiled forward (``_plan_arrays``' chunk table): each real token's slot
    written by exactly one run, a run within one page, unused runs empty on the scratch page."""
    from relax_ref.values import ShapeValue

    mod = relax_ref.parse(SRC)
    c = relax_jax.compile(mod)("create")
    ops = jpk.JAX_PAGED
    ops.begin_forward(c, ShapeValue([0]), ShapeValue([6]))      # a history of 6 tokens, then forks off it
    ops.end_forward(c)
    ids = list(range(len(lens)))
    for s in ids[1:]:
        ops.fork_sequence(c, 0, s, 3 + s)
    ops.begin_forward(c, ShapeValue(ids), ShapeValue(list(lens)))
    size, scratch = c.config.page_size, c.config.num_pages * c.config.page_size
    tok, _, runs = jpk._plan_arrays(c.state, c.config, jpk._buckets(c.state))
    written = {}
    for dst, src, count in runs.T:
        assert count >= 0 and dst % size + count <= size
        if count == 0:
            assert dst == scratch
        for i in range(count):
            assert src + i not in written
            written[src + i] = dst + i
    real = [t for t in range(tok.shape[1]) if tok[0, t] != scratch]
    assert sorted(written) == real == list(range(sum(lens)))
    assert all(written[t] == tok[0, t] for t in real)


def test_a_forward_of_several_tokens_compiles_no_chain_of_transposes():
    """The paged attention's scores in the dot's own order: relax_jax's compilations run without XLA's
    algebraic simplifier, and scores laid out otherwise (tokens first) compiled into a chain of
    hundreds of transposes and copies inside the masked maximum's loop, a third of a prefill's time."""
    import re

    mod = relax_ref.parse(COMPILED_SRC)
    exe = relax_jax.compile(mod)
    c = exe("create")
    _open(c, jpk.JAX_PAGED, 32)
    exe("layers", c, np.ones((32, 8, 8), "float32"))
    jpk.JAX_PAGED.end_forward(c)
    assert len(re.findall(r"= \S+ transpose\(", _compiled_text(exe, "layers"))) < 40


@pytest.mark.parametrize("reserve", [None, 3, 8, 12])
def test_the_one_token_reader_is_the_general_inputs(reserve):
    """The fast path's reader of a one-token compilation (``paged_hot_reader``) gives what the general
    ``paged_hot_inputs`` gives for the same compilation key, for every history and history bucket:
    the pool and the same plan row where the forward fits the key, None where it does not."""
    from relax_ref.values import ShapeValue

    c = relax_jax.compile(relax_ref.parse(COMPILED_SRC))("create")
    ops = jpk.JAX_PAGED
    facts = [("paged", c.config, tuple(c.pool.shape), str(c.pool.dtype), (1, 1, lp)) for lp in (1, 2, 4, 8, 16)]
    readers = [(f, jpk.paged_hot_reader(f, (1,), reserve)) for f in facts]
    fits = []
    for _ in range(14):                                 # histories 0..13, one token each
        ops.begin_forward(c, ShapeValue([0]), ShapeValue([1]))
        for fact, read in readers:
            want, got = jpk.paged_hot_inputs(c, fact, (1,), reserve), read(c)
            assert (want is None) == (got is None)
            if want is not None:
                assert got[0] is want[0] and got[1].dtype == want[1].dtype
                np.testing.assert_array_equal(got[1], want[1])
        fits.append(sum(read(c) is not None for _, read in readers))
        ops.end_forward(c)
    assert fits == [1] * 14                             # exactly one bucket fits each forward
    ops.begin_forward(c, ShapeValue([0]), ShapeValue([2]))      # two tokens: no one-token key fits
    assert all(read(c) is None for _, read in readers)

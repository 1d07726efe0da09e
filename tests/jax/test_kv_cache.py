"""KV-cache objects in relax_jax (CALL.KVCACHE.*): a cache parameter compiles to a donated buffer with a
traced fill count; expected values are the appended rows themselves (numpy concatenation)."""

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import OpRuntimeError
from relax_ref.interp.kv_cache import AttentionKVCache
from program_texts import KV_CREATE, KV_STEP_SUM

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
''' + KV_CREATE + '''
    @R.function
    def create_reserved(a: R.Tensor((2, 3), "float32")) -> R.Tuple(R.Object, R.Object):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([32, 3]), "float32"),
                               R.shape([32, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, a, inplace_indices=[0],
                                   sinfo_args=R.Object())
        return (c1, c1)

    @R.function
    def step(c: R.Object, b: R.Tensor((1, 3), "float32"), s: R.Shape(["m"])) -> R.Tuple(R.Object, R.Tensor(("m", 3), "float32")):
        m = T.int64()
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([m, 3]),
                               sinfo_args=R.Tensor((m, 3), "float32"))
        return (c1, v)
''' + KV_STEP_SUM


@pytest.fixture(scope="module")
def mod():
    return relax_ref.parse(SRC)


def test_decode_loop_matches_the_appended_rows_and_compiles_per_capacity(mod):
    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    assert isinstance(cache, AttentionKVCache) and cache.fill == 2
    rows = [a]
    for i in range(20):
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        c2, v = exe("step", cache, b, (3 + i,))
        assert c2 is cache                                  # the same object, mutated (CALL.KVCACHE.2)
        np.testing.assert_array_equal(np.asarray(v), np.concatenate(rows))
    assert cache.fill == 22 and cache.data.shape[0] == 32   # 4 -> 8 -> 16 -> 32 (doubling)
    # one compilation per capacity (the length bucket follows it), not one per step; the creation
    # compiled too (its cache leaves compiled code)
    assert exe.stats.compiles <= 9 and exe.stats.host_calls == 0


def test_a_reserved_cache_compiles_one_step_for_every_length(mod):
    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    c1, c2 = exe("create_reserved", a)
    assert c1 is c2 and c1.fill == 2 and c1.data.shape == (32, 3)   # one object, twice (host mode)
    rows = [a]
    for i in range(25):
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        c, t = exe("step_sum", c1, b, (3 + i,))
        assert c is c1
        np.testing.assert_array_equal(np.asarray(t), np.concatenate(rows).sum(axis=0))
    # lengths 3..27 all in the capacity's bucket: one compilation of the step
    assert exe.stats.compiles == 1 and c1.data.shape == (32, 3)
    with pytest.raises(OpRuntimeError, match="not the cached"):
        exe("step_sum", c1, np.ones((1, 3), "float32"), (30,))


def test_the_reference_agrees(mod):
    interp = relax_ref.Interpreter(mod)
    a = np.ones((2, 3), "float32")
    cache = interp("create", a)
    b = np.full((1, 3), 5, "float32")
    _, v = interp("step", cache, b, (3,))
    np.testing.assert_array_equal(v, np.concatenate([a, b]))


def test_the_buffer_is_donated(mod):
    exe = relax_jax.compile(mod)
    cache = exe("create", np.zeros((2, 3), "float32"))
    b = np.ones((1, 3), "float32")
    exe("step", cache, b, (3,))                 # compile at this capacity
    old = cache.data
    exe("step", cache, b, (4,))
    assert old.is_deleted() and not cache.data.is_deleted()


def test_a_view_of_other_rows_fails_at_run_time(mod):
    exe = relax_jax.compile(mod)
    cache = exe("create", np.zeros((2, 3), "float32"))
    with pytest.raises(OpRuntimeError, match="not the cached"):
        exe("step", cache, np.ones((1, 3), "float32"), (7,))


def test_steps_of_one_compilation_take_the_fast_path(mod):
    exe = relax_jax.compile(mod)
    general = []
    dispatch = exe._dispatch
    exe._dispatch = lambda *a, **k: general.append(1) or dispatch(*a, **k)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    rows = [a]
    for i in range(20):
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        c2, t = exe("step_sum", cache, b, (3 + i,))
        assert c2 is cache
        np.testing.assert_array_equal(np.asarray(t), np.concatenate(rows).sum(axis=0))
    assert cache.fill == 22
    # the general path only for a new capacity or length bucket (at most 9), the other steps direct
    assert len(general) <= 9 and exe.stats.cache_hits >= 11
    with pytest.raises(OpRuntimeError, match="not the cached"):   # the check, on the fast path too
        exe("step_sum", cache, np.ones((1, 3), "float32"), (30,))


def test_a_full_cache_compiles_only_at_its_grown_capacity(mod):
    """A call whose cache must grow first (its first call at a capacity that is already full) is
    traced at the old capacity, not compiled there: one compilation, at the new capacity."""
    import jax.numpy as jnp

    exe = relax_jax.compile(mod)
    rows = [np.arange(12, dtype="float32").reshape(4, 3)]
    cache = AttentionKVCache(jnp.asarray(rows[0]), 4, 4)     # capacity 4, full
    b = np.full((1, 3), 7, "float32")
    rows.append(b)
    c, v = exe("step", cache, b, (5,))
    assert c is cache and cache.fill == 5 and cache.data.shape == (8, 3)
    np.testing.assert_array_equal(np.asarray(v), np.concatenate(rows))
    assert exe.stats.compiles == 1 and exe.stats.grown_before_compile == 1
    for i in range(3):                                       # 6..8 rows: the same compilation
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        exe("step", cache, b, (6 + i,))
    np.testing.assert_array_equal(np.asarray(exe("step", cache, b, (9,))[1]), np.concatenate(rows + [b]))
    # the ninth row: the length's bucket follows the capacity, so the call at capacity 8 is a new key
    # too, traced and not compiled (before: four compilations, at 4, 8, 8 and 16)
    assert cache.data.shape == (16, 3) and exe.stats.compiles == 2 and exe.stats.grown_before_compile == 2


def test_the_fast_path_checks_a_tensor_once_per_object(mod):
    """The same JAX array passed at every step is checked once; a new object, a NumPy array of another
    dtype, an array of another shape are checked again (the reference's errors)."""
    import jax.numpy as jnp

    from relax_ref.errors import DTypeMismatchError, ShapeMismatchError

    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    rows = [a]
    b = jnp.full((1, 3), 2.0, jnp.float32)
    for i in range(6):
        if i == 3:
            b = jnp.full((1, 3), 5.0, jnp.float32)      # a new object: checked, then reused
        rows.append(np.asarray(b))
        _c, t = exe("step_sum", cache, b, (3 + i,))
        np.testing.assert_array_equal(np.asarray(t), np.concatenate(rows).sum(axis=0))
    assert exe._plans["step_sum"].hot is not None
    with pytest.raises(DTypeMismatchError):
        exe("step_sum", cache, np.ones((1, 3), "float64"), (9,))
    with pytest.raises(DTypeMismatchError):
        exe("step_sum", cache, jnp.ones((1, 3), jnp.int32), (9,))
    with pytest.raises(ShapeMismatchError):
        exe("step_sum", cache, jnp.ones((1, 4), jnp.float32), (9,))


def test_the_fill_counts_travel_with_the_symbolic_values(mod):
    """The compiled step takes no 64-bit scalar per cache: the fill counts and window positions are
    packed after the symbolic values (one transfer per call). A fill count the caller changes between
    fast-path calls is the one the step appends at (expected: the rows kept, then the new row)."""
    import jax

    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    rows = [a]
    for i in range(4):
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        exe("step_sum", cache, b, (3 + i,))
    (c,) = [c for c in exe._plans["step_sum"].cache.values() if c.kv[0][3] == cache.data.shape[0]]
    assert c.lifted and not any(x.shape == () for x in jax.tree_util.tree_leaves(c.fn.in_avals))
    assert exe._plans["step_sum"].hot is not None
    hits = exe.stats.cache_hits
    cache.fill -= 2                                     # the caller drops the last two rows
    b = np.full((1, 3), 9, "float32")
    _, t = exe("step_sum", cache, b, (5,))
    np.testing.assert_array_equal(np.asarray(t), np.concatenate(rows[:3] + [b]).sum(axis=0))
    assert cache.fill == 5 and exe.stats.cache_hits == hits + 1      # on the fast path
    _, v = exe("step", cache, b, (6,))                  # the general path sees the same rows
    np.testing.assert_array_equal(np.asarray(v), np.concatenate(rows[:3] + [b, b]))


def test_a_cache_buffer_of_another_dtype_or_capacity_leaves_the_fast_path(mod):
    """The fast path leaves a cache buffer's shape and dtype to the compiled executable's own check:
    another capacity compiles anew (the right rows), another dtype gets the reference's error."""
    import jax.numpy as jnp

    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    rows = [a]
    for i in range(3):
        b = np.full((1, 3), i, "float32")
        rows.append(b)
        exe("step_sum", cache, b, (3 + i,))
    compiles = exe.stats.compiles
    cache.data = jnp.concatenate([cache.data, jnp.zeros((64 - cache.data.shape[0], 3), jnp.float32)])
    b = np.full((1, 3), 7, "float32")
    rows.append(b)
    _, t = exe("step_sum", cache, b, (6,))
    np.testing.assert_array_equal(np.asarray(t), np.concatenate(rows).sum(axis=0))
    assert exe.stats.compiles == compiles + 1 and cache.data.shape == (64, 3)
    cache.data = jnp.zeros((64, 3), jnp.int32)
    with pytest.raises(OpRuntimeError, match="dtype mismatch"):
        exe("step_sum", cache, b, (7,))


@pytest.mark.parametrize("shape", [(6,), [6], (6, 1), (), (-1,), (True,), ("6",), (2 ** 64,), (9,), (2,)])
def test_the_fast_path_reads_a_shape_argument_as_the_reference(mod, shape):
    """The length a decode step passes as ``R.Shape([m])``, read inline on the fast path: a tuple of one
    non-negative int binds ``m``; anything else goes to the general path. Either way the outcome is the
    reference's: its values, or a RelaxError where the reference raises one."""
    import jax.numpy as jnp
    from relax_ref.errors import RelaxError

    exe = relax_jax.compile(mod)
    a = np.arange(6, dtype="float32").reshape(2, 3)
    cache = exe("create", a)
    for i in range(3):
        exe("step_sum", cache, np.full((1, 3), i, "float32"), (3 + i,))
    assert exe._plans["step_sum"].hot is not None
    b = np.full((1, 3), 7, "float32")
    ref_cache = AttentionKVCache(np.asarray(cache.data).copy(), cache.fill, cache.pos)
    try:
        want = relax_ref.evaluate(mod, "step_sum", ref_cache, b, shape)
    except RelaxError:
        want = None
    data, fill = cache.data, cache.fill
    if want is None:
        with pytest.raises(RelaxError):
            exe("step_sum", cache, b, shape)
        return
    _, t = exe("step_sum", cache, b, shape)
    np.testing.assert_array_equal(np.asarray(t), np.asarray(want[1]))
    assert cache.fill == ref_cache.fill == fill + 1
    np.testing.assert_array_equal(np.asarray(cache.data)[:cache.fill], np.asarray(ref_cache.data)[:cache.fill])

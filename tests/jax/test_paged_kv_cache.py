"""TVM's paged KV cache in relax_jax (CALL.PAGEDKV.*): a cache held across calls as a serving loop
holds it, the page pool a donated device buffer updated in place, one kernel compilation per bucket,
and the same values as the reference step by step."""

import numpy as np

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

"""TVM as the witness of the paged KV cache's values and page accounting (CALL.PAGEDKV.*).

The conformance cases cannot run on TVM: its ``create`` needs a kernel library (the recorded
divergence). Here TVM's own CPU kernels (built from ``relax.frontend.nn.llm.kv_cache``) are passed
to TVM's cache, and one scenario of sequence operations and forwards (prefill, batched decode,
forks mid-page and at a page boundary, pops into shared pages, removal) runs on TVM and on the
reference; every attention output, every stored key/value read back and every free-page count must
agree, in each rope mode.
"""

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
tvm_ffi = pytest.importorskip("tvm_ffi")

from relax_ref.interp.paged_kv_cache import PAGED_KV_FUNCS  # noqa: E402
from relax_ref.values import ShapeValue  # noqa: E402

pytestmark = pytest.mark.tvm

LAYERS, HQ, HKV, D, PAGE, CAP, BATCH, CHUNK = 2, 4, 2, 8, 16, 512, 8, 128     # TVM's CPU decode kernel: pages of 16
SCALE, THETA = 1.0, 10000.0
SM = 1.0 / np.sqrt(D)

# (operation, arguments): the same scenario on both
SCENARIO = [
    ("add", 0), ("forward", [(0, 24)]), ("pages",), ("fork", 0, 1, 20), ("fork", 0, 2, -1), ("pages",),
    ("forward", [(0, 1), (1, 1), (2, 1)]), ("pages",), ("popn", 2, 10), ("pages",),
    ("forward", [(2, 2), (0, 3)]), ("fork", 1, 3, -1), ("remove", 0), ("pages",),
    ("forward", [(3, 1), (1, 2)]), ("debug", 1, 0, 23), ("debug", 2, 0, 17), ("debug", 3, 0, 22),
    ("add", 5), ("forward", [(5, 32)]), ("fork", 5, 6, -1), ("pages",), ("popn", 6, 3), ("pages",),
    ("forward", [(6, 2)]), ("debug", 5, 0, 32), ("debug", 6, 0, 31), ("pages",),
    ("popn", 5, 32), ("remove", 6), ("pages",),
]


def _tvm_kernels():
    from tvm.relax.frontend.nn.llm import kv_cache as kc
    from tvm.s_tir import dlight as dl

    device = tvm.cpu()
    target = tvm.target.Target.from_device(device)
    funcs = {
        "append": kc._kv_cache_transpose_append(HKV, D, "float32", page_size=PAGE),
        "debug": kc._kv_cache_debug_get_kv(LAYERS, HKV, D, "float32"),
        "prefill": kc._attention_prefill_cpu(HKV, HQ, D, "float32", False, {}),
        "decode": kc._attention_decode_cpu(HKV, HQ, D, "float32", False, {}),
        "ragged": kc._attention_prefill_ragged_cpu(HKV, HQ, D, D, "float32", {}),
        "merge": kc._merge_state_inplace_cpu("float32"),
        "rotary": kc.llama_rope_with_position_map(THETA, SCALE, D, HQ, HKV, "float32", {}),
        "copy_page": kc._copy_single_page_cpu(HKV, PAGE, D, "float32"),
        "compact": kc._compact_kv_copy_cpu(HKV, D, "float32", page_size=PAGE),
    }
    built = {}
    for name, f in funcs.items():
        mod = tvm.IRModule({"main": f})
        with target:
            mod = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)
        built[name] = tvm.tirx.build(mod["main"], target=target).main
    return built


@pytest.fixture(scope="module")
def kernels():
    return _tvm_kernels()


class TvmSide:
    def __init__(self, k, mode):
        g = tvm.get_global_func
        self.g = g
        self.dev = tvm.cpu()
        self.c = g("vm.builtin.paged_attention_kv_cache_create")(
            tvm_ffi.Shape([BATCH, CAP, CHUNK, PAGE, 0]), tvm_ffi.Shape([0, LAYERS]), HQ, HKV, D, D,
            tvm_ffi.Shape([0] * LAYERS), False, mode, SCALE, THETA, None,
            tvm.runtime.empty((), "float32", device=self.dev), k["append"], None,
            ["tirx", k["ragged"]], ["tirx", k["prefill"]], ["tirx", k["decode"]], ["tirx", k["prefill"]],
            ["tirx", k["decode"]], ["tirx", k["prefill"]], ["tirx", k["ragged"]], [], [k["merge"]], k["rotary"],
            k["copy_page"], k["debug"], k["compact"])

    def call(self, name, *args):
        return self.g("vm.builtin." + name)(self.c, *args)

    def shape(self, xs):
        return tvm_ffi.Shape(xs)

    def attention(self, layer, qkv):
        out = tvm.runtime.empty((qkv.shape[0], HQ, D), "float32", device=self.dev)
        self.call("attention_kv_cache_attention_with_fused_qkv", layer, SM, tvm.runtime.tensor(qkv, self.dev), out)
        return out.numpy()

    def debug(self, seq, a, b):
        k = tvm.runtime.empty((LAYERS, b - a, HKV, D), "float32", device=self.dev)
        v = tvm.runtime.empty((LAYERS, b - a, HKV, D), "float32", device=self.dev)
        self.call("attention_kv_cache_debug_get_kv", seq, a, b, k, v)
        return k.numpy(), v.numpy()

    def pages(self):
        return int(self.call("attention_kv_cache_get_num_available_pages"))


class RefSide:
    def __init__(self, mode):
        args = [ShapeValue([BATCH, CAP, CHUNK, PAGE, 0]), ShapeValue([0, LAYERS]), HQ, HKV, D, D,
                ShapeValue([0] * LAYERS), False, mode, SCALE, THETA, None, np.zeros((), "float32")] + [None] * 15
        self.c = PAGED_KV_FUNCS["vm.builtin.paged_attention_kv_cache_create"](*args)

    def call(self, name, *args):
        return PAGED_KV_FUNCS["vm.builtin." + name](self.c, *args)

    def shape(self, xs):
        return ShapeValue(xs)

    def attention(self, layer, qkv):
        out = np.zeros((qkv.shape[0], HQ, D), "float32")
        self.call("attention_kv_cache_attention_with_fused_qkv", layer, SM, qkv, out)
        return out

    def debug(self, seq, a, b):
        k, v = (np.zeros((LAYERS, b - a, HKV, D), "float32") for _ in range(2))
        self.call("attention_kv_cache_debug_get_kv", seq, a, b, k, v)
        return k, v

    def pages(self):
        return self.call("attention_kv_cache_get_num_available_pages").value


def run(side, seed):
    rng = np.random.default_rng(seed)
    seen = []
    for op, *args in SCENARIO:
        if op == "add":
            side.call("kv_state_add_sequence", args[0])
        elif op == "remove":
            side.call("kv_state_remove_sequence", args[0])
        elif op == "fork":
            side.call("kv_state_fork_sequence", *args)
        elif op == "popn":
            side.call("kv_state_popn", *args)
        elif op == "pages":
            seen.append(("pages", side.pages()))
        elif op == "debug":
            seen.append(("debug", side.debug(*args)))
        else:
            batch = args[0]
            side.call("kv_state_begin_forward", side.shape([s for s, _ in batch]), side.shape([n for _, n in batch]))
            total = sum(n for _, n in batch)
            for layer in range(LAYERS):
                qkv = rng.standard_normal((total, HQ + 2 * HKV, D)).astype("float32")
                seen.append(("attention", side.attention(layer, qkv)))
            side.call("kv_state_end_forward")
    return seen


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_tvm_cpu_kernels_agree_with_the_reference(kernels, mode):
    got, want = run(RefSide(mode), mode), run(TvmSide(kernels, mode), mode)
    assert [k for k, _ in got] == [k for k, _ in want]
    for i, ((kind, g), (_, w)) in enumerate(zip(got, want)):
        if kind == "pages":
            assert g == w, (i, SCENARIO)
        elif kind == "debug":
            np.testing.assert_allclose(g[0], w[0], rtol=1e-4, atol=1e-5, err_msg=f"keys, step {i}")
            np.testing.assert_allclose(g[1], w[1], rtol=1e-4, atol=1e-5, err_msg=f"values, step {i}")
        else:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"attention, step {i}")


@pytest.mark.parametrize("bad", [np.inf, np.nan])
@pytest.mark.parametrize("mode", [0, 1])
def test_a_masked_non_finite_value_on_tvm_is_the_recorded_divergence(kernels, mode, bad):
    """DIV.PAGEDKV.2: TVM's CPU kernels add a masked position's value times a weight of 0, so a later
    token of a prefill chunk holding an infinity or a NaN in key/value head 0 turns the outputs of the
    tokens before it NaN in that head's query heads; the reference (CALL.PAGEDKV.8) leaves them finite;
    the tokens that see it and the other heads agree. (Fails once TVM's kernels skip masked positions.)"""
    outs = []
    for side in (RefSide(mode), TvmSide(kernels, mode)):
        side.call("kv_state_add_sequence", 0)
        side.call("kv_state_begin_forward", side.shape([0]), side.shape([20]))
        qkv = np.random.default_rng(11).standard_normal((20, HQ + 2 * HKV, D)).astype("float32")
        qkv[12, HQ + HKV] = bad                    # token 12's value, key/value head 0
        outs.append(side.attention(0, qkv))
        side.call("kv_state_end_forward")
    ref, got = outs
    group = HQ // HKV
    assert np.all(np.isfinite(ref[:12])) and not np.any(np.isfinite(ref[12:, :group]))
    assert np.all(np.isnan(got[:12, :group]))                      # the tokens before it: NaN on TVM
    np.testing.assert_allclose(ref[12:], got[12:], rtol=1e-4, atol=1e-5)        # those that see it agree
    np.testing.assert_allclose(ref[:, group:], got[:, group:], rtol=1e-4, atol=1e-5)

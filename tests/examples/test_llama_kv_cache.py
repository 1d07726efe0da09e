"""examples/llama_tiny.py with KV-cache objects (``build_kv_module``, CALL.KVCACHE.*): well formed,
round-trips, and greedy generation matches the independent numpy implementation on the reference and
on relax_jax (whose decode steps compile once per cache-length bucket, the caches donated)."""

from pathlib import Path

import numpy as np
import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
PROMPT = [1, 2, 3, 4, 5]

llama = load_file("llama_tiny_example", ROOT / "examples" / "llama_tiny.py")
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))


@pytest.fixture(scope="module")
def model_and_module():
    model = llama.make_model(0)
    return model, llama.build_kv_module(model, reserve=8)


def test_module_wellformed_roundtrip(model_and_module):
    model, mod = model_and_module
    check_well_formed(mod)
    for dialect in ("classic", "tvm-0.25", "tvm-0.27"):
        relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect)))
    text = mod.script(dialect="tvm-0.25")
    assert 'R.call_inplace_packed("vm.builtin.attention_kv_cache_append"' in text
    assert "sinfo_args=[R.Object()]" in text        # what TVM's parser reads for call_inplace_packed


def test_reference_matches_numpy(model_and_module):
    model, mod = model_and_module
    run = llama.ref_runner(mod)
    weights = model.param_arrays()
    _, caches = run("create_caches", [])
    logits, caches = run("prefill", [np.asarray([PROMPT], "int32"), *caches, *weights])
    ref_logits, _ = oracle.forward(model, PROMPT)
    np.testing.assert_allclose(logits[0], ref_logits, rtol=1e-4, atol=1e-4)
    assert llama.generate_kv(run, weights, PROMPT, 4) == oracle.generate(model, PROMPT, 4)


def test_relax_jax_matches_numpy_and_compiles_per_bucket(model_and_module):
    relax_jax = pytest.importorskip("relax_jax")
    model, mod = model_and_module
    exe = relax_jax.compile(mod)
    tokens = llama.generate_kv(lambda e, a: llama._split(e, exe(e, *a)), model.param_arrays(), PROMPT, 6)
    assert tokens == oracle.generate(model, PROMPT, 6)
    # prefill once; decode at cache lengths 6..10 over capacities 8 and 16: at most 2 buckets x 2 capacities
    assert exe.stats.compiles <= 5
    assert "prefill" not in exe.fallback_reasons and "decode" not in exe.fallback_reasons


@pytest.mark.tvm
def test_tvm_runs_the_printed_module(model_and_module):
    pytest.importorskip("tvm")
    model, mod = model_and_module
    run = llama.tvm_runner(mod)
    assert llama.generate_kv(run, model.param_arrays(), PROMPT, 4) == oracle.generate(model, PROMPT, 4)

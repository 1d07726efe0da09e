"""examples/llama_tiny_paged.py: the tiny Llama with TVM's paged KV cache (CALL.PAGEDKV.*) as the nn
frontend writes it (one fused-QKV attention call per layer, the cache applying the rotary embedding):
well formed, round-trips through every dialect, and greedy generation gives the tokens of the
independent numpy implementation on the reference and on relax_jax."""

from pathlib import Path

import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
PROMPT = [1, 2, 3, 4, 5]

paged = load_file("llama_tiny_paged_example", ROOT / "examples" / "llama_tiny_paged.py")
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))


@pytest.fixture(scope="module")
def model_and_module():
    model = paged.llama_tiny.make_model(0)
    return model, paged.build_paged_module(model, capacity=32, page_size=4)


def test_module_wellformed_roundtrip(model_and_module):
    _, mod = model_and_module
    check_well_formed(mod)
    for dialect in ("classic", "tvm-0.25", "tvm-0.27"):
        relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect)))
    assert mod.script().count(paged.FUSED) == 2 * 2      # two layers, prefill and decode


@pytest.mark.parametrize("impl", ["ref", "jax"])
def test_generation_matches_numpy(model_and_module, impl):
    if impl == "jax":
        pytest.importorskip("relax_jax")
    model, mod = model_and_module
    call, ops = paged.runner(impl, mod)
    # 5 prompt tokens and 5 decode steps over pages of 4: the sequence spans 3 pages
    assert paged.generate(call, ops, model.param_arrays(), PROMPT, 6) == oracle.generate(model, PROMPT, 6)


@pytest.mark.tvm
def test_tvm_reads_the_module(model_and_module):
    """TVM parses the printed module in its own dialect and finds the same functions (it cannot run
    them: the kernel arguments of create are placeholders, see the paged_kv_cache divergences)."""
    tvm = pytest.importorskip("tvm")
    from relax_ref.script.dialect import installed_tvm_dialect

    _, mod = model_and_module
    tmod = tvm.script.from_source(mod.script(dialect=installed_tvm_dialect()))
    assert sorted(gv.name_hint for gv in tmod.get_global_vars()) == ["create_cache", "decode", "prefill"]

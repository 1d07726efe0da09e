"""examples/llama_tiny_paged.py in bfloat16 (``Config(dtype="bfloat16")``): the pages, the fused
query/key/value heads and the attention output are bfloat16 (CALL.PAGEDKV.1, CALL.PAGEDKV.8); the
reference and relax_jax give the same greedy token ids and the same logits to one unit in the last
place (each operator computes in float32 and rounds once, OP.SEM.7; the cache's scores and sums are
float32, defined up to reassociation), the logits stay within bfloat16's accuracy of the independent
float32 numpy implementation, and the token ids are those of the concat style in bfloat16."""

from pathlib import Path

import numpy as np
import pytest

from relax_ref.static.well_formed import check_well_formed

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
PROMPT = [1, 2, 3, 4, 5]
TOKENS = 6

paged = load_file("llama_tiny_paged_example", ROOT / "examples" / "llama_tiny_paged.py")
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))


def _logged(call):
    seen = []

    def rec(entry, *args):
        out = call(entry, *args)
        if entry != "create_cache":
            seen.append(np.asarray(out))
        return out

    return rec, seen


@pytest.fixture(scope="module")
def model_and_module():
    model = paged.llama_tiny.make_model(0, paged.llama_tiny.Config(dtype="bfloat16"))
    return model, paged.build_paged_module(model, capacity=32, page_size=4)


def test_module_is_bfloat16(model_and_module):
    model, mod = model_and_module
    check_well_formed(mod)
    assert "float32" not in mod.script()          # no tensor of the forward, the pages' witness included
    assert all(str(p.dtype) == "bfloat16" for p in model.param_arrays())


def test_reference_and_relax_jax_agree(model_and_module):
    pytest.importorskip("relax_jax")
    model, mod = model_and_module
    weights = model.param_arrays()
    ref_call, ref_ops = paged.runner("ref", mod)
    jax_call, jax_ops = paged.runner("jax", mod)
    ref, ref_logits = _logged(ref_call)
    jx, jax_logits = _logged(jax_call)
    # 5 prompt tokens and 5 decode steps over pages of 4: the sequence spans 3 pages
    ids = paged.generate(ref, ref_ops, weights, PROMPT, TOKENS)
    assert paged.generate(jx, jax_ops, weights, PROMPT, TOKENS) == ids
    assert len(ref_logits) == len(jax_logits) == TOKENS
    differ = 0
    for a, b in zip(ref_logits, jax_logits):
        assert a.dtype == b.dtype == np.dtype("bfloat16")
        assert np.max(oracle.bf16_ulps(a, b)) <= 1
        differ += int(np.count_nonzero(oracle.bf16_ulps(a, b)))
    assert differ <= sum(a.size for a in ref_logits) // 100        # 0 of 1536 measured
    # the same model as the float32 one, to bfloat16's accuracy (weights rounded, every node rounded)
    want, _ = oracle.forward(paged.llama_tiny.make_model(0), PROMPT)
    got = ref_logits[0][0].astype(np.float32)
    assert np.max(np.abs(got - want)) < 0.1 * np.max(np.abs(want))     # 0.6% measured
    assert int(np.argmax(got)) == int(np.argmax(want))


def test_tokens_are_the_concat_styles(model_and_module):
    """The paged cache keeps the keys and values the concat style concatenates, rotated by the same
    rule in float32 and rounded to bfloat16: the same greedy token ids on the reference."""
    model, mod = model_and_module
    L = paged.llama_tiny
    call, ops = paged.runner("ref", mod)
    want = L.generate(L.ref_runner(L.build_module(model)), model.param_arrays(), PROMPT, TOKENS)
    assert paged.generate(call, ops, model.param_arrays(), PROMPT, TOKENS) == want

"""Comparing KV-cache objects (relax_ref.testing.compare): by what a program can observe of them
(CALL.KVCACHE.1, CALL.PAGEDKV.1, CALL.PAGEDKV.10), not by identity -- a function that returns a fresh
cache gives equal results on the reference and relax_jax (the ninth fuzzing run's ``value|jax|-``
finding was the identity comparison of the two cache objects)."""

import pickle
from pathlib import Path

import numpy as np
import pytest

import relax_ref
from relax_ref.interp.kv_cache import AttentionKVCache
from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
from relax_ref.testing.compare import compare
from relax_ref.testing.fuzz_findings import classify
from relax_ref.testing.fuzz_worker import _evaluator, _handle
from relax_ref.values import ShapeValue

CASE = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "paged_kv_cache" / "add_an_existing_sequence"


def _fresh_cache_text(dtype: str) -> str:
    """The finding's program: the case without its second ``add_sequence`` (so it returns the fresh
    cache), the dtype witness of ``create`` changed."""
    lines = (CASE / "module.py").read_text().split("\n")
    return "\n".join(l for l in lines if "_2 = " not in l).replace('"float32"', f'"{dtype}"')


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_a_fresh_paged_cache_is_the_same_result_on_ref_and_jax(dtype):
    pytest.importorskip("relax_jax")
    req = {"text": _fresh_cache_text(dtype), "entry": "main", "inputs": [("right", [])]}
    ref, jax = _handle(req, _evaluator("ref")), _handle(req, _evaluator("jax"))
    assert ref.runs[0].kind == jax.runs[0].kind == "value"
    assert type(jax.runs[0].value.pool) is np.ndarray          # sent back as host data
    ref, jax = pickle.loads(pickle.dumps(ref)), pickle.loads(pickle.dumps(jax))
    assert classify(ref, jax) == []


def _prefilled(tokens: int, seed: int = 0):
    mod = relax_ref.parse(_fresh_cache_text("float32"))
    c = relax_ref.evaluate(mod, "main")
    NUMPY_PAGED.begin_forward(c, ShapeValue([0]), ShapeValue([tokens]))
    qkv = np.random.default_rng(seed).standard_normal((tokens, 8, 8)).astype("float32")
    NUMPY_PAGED.attention(c, 0, 0.35, qkv, np.zeros((tokens, 4, 8), "float32"))
    NUMPY_PAGED.end_forward(c)
    return c


def test_paged_caches_differ_by_their_observable_state():
    a, b = _prefilled(5), _prefilled(5)
    assert compare(a, b) is None and compare((a,), (b,)) is None
    b.pool[:, :, 20:] = 7.0                     # slots no sequence holds (page 5 onwards): not observable
    assert compare(a, b) is None
    assert "sequence[0]" in compare(a, _prefilled(5, seed=1))
    assert "sequence lengths" in compare(a, _prefilled(6))
    c = _prefilled(5)
    NUMPY_PAGED.add_sequence(c, 3)
    assert "sequence lengths" in compare(a, c)
    NUMPY_PAGED.begin_forward(c, ShapeValue([3]), ShapeValue([1]))
    assert compare(a, c) is not None
    assert "AttentionKVCache != expected PagedKVCache" in compare(a, AttentionKVCache(np.zeros((2, 2)), 0, 0))


def test_attention_caches_compare_their_cached_rows_only():
    data = np.arange(12, dtype="float32").reshape(4, 3)
    a = AttentionKVCache(data, 2, 0)
    more = np.concatenate([data, np.full((4, 3), 9.0, "float32")])     # reserved rows past the fill count
    assert compare(a, AttentionKVCache(more, 2, 0)) is None
    assert "fill 3" in compare(a, AttentionKVCache(data, 3, 0))
    assert "rows" in compare(a, AttentionKVCache(data + np.float32(1), 2, 0))
    assert "shape" in compare(a, AttentionKVCache(data[:, :2], 2, 0))

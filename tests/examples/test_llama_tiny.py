"""examples/llama_tiny.py: the module is well formed and round-trips; greedy generation on the
reference interpreter matches an independent numpy implementation of the same model; the command
line agrees across implementations (``jax`` when the executor is importable, ``tvm`` when TVM is)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "llama_tiny.py"
PROMPT = [1, 2, 3, 4, 5]


llama = load_file("llama_tiny_example", EXAMPLE)
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))


@pytest.fixture(scope="module")
def model_and_module():
    model = llama.make_model(0)
    return model, llama.build_module(model)


def _cli(*args, timeout=300):
    env = dict(os.environ)
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def test_module_signature_wellformed_roundtrip(model_and_module):
    model, mod = model_and_module
    check_well_formed(mod)
    for dialect in ("classic", "tvm"):
        relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect)))
    cfg = model.cfg
    pre, dec = mod["prefill"], mod["decode"]
    n_w = len(model.parameters())
    assert len(pre.params) == 1 + n_w and pre.attrs["num_input"] == 1
    assert len(dec.params) == 1 + 2 * cfg.num_layers + n_w and dec.attrs["num_input"] == 1 + 2 * cfg.num_layers
    n = pre.params[0].struct_info.shape_values[1]
    m = dec.params[1].struct_info.shape_values[1]
    ret_pre, ret_dec = pre.ret_struct_info.fields, dec.ret_struct_info.fields
    assert ret_pre[0].shape_values[1].value == cfg.vocab_size
    assert ret_pre[1].shape_values[1] is n
    cache_len = ret_dec[1].shape_values[1]
    from relax_ref.arith import Analyzer

    assert Analyzer().can_prove_equal(cache_len, m + 1)


def test_reference_generation_matches_numpy_oracle(model_and_module):
    model, mod = model_and_module
    run = llama.ref_runner(mod)
    weights = model.param_arrays()
    logits, caches = run("prefill", [np.asarray([PROMPT], "int32"), *weights])
    ref_logits, ref_caches = oracle.forward(model, PROMPT)
    np.testing.assert_allclose(logits[0], ref_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(caches[0][0], ref_caches[0][0], rtol=1e-4, atol=1e-5)
    logits, caches = run("decode", [np.asarray([[7]], "int32"), *caches, *weights])
    ref_logits, ref_caches = oracle.forward(model, [7], ref_caches)
    np.testing.assert_allclose(logits[0], ref_logits, rtol=1e-4, atol=1e-4)
    assert caches[2].shape == (1, len(PROMPT) + 1, model.cfg.num_kv_heads, model.cfg.head_dim)
    assert llama.generate(run, weights, PROMPT, 4) == oracle.generate(model, PROMPT, 4)


def test_mismatch_gives_exit_status_1(monkeypatch, capsys):
    """The comparison is real: an implementation whose logits prefer another token fails."""

    def skewed(mod):
        inner = llama.ref_runner(mod)

        def run(entry, args):
            logits, caches = inner(entry, args)
            shifted = np.roll(logits, 1, axis=-1)
            return shifted, caches

        return run

    monkeypatch.setitem(llama.RUNNERS, "jax", skewed)
    assert llama.main(["--impl", "ref,jax", "--tokens", "2"]) == 1
    assert "equal: False" in capsys.readouterr().out


def test_cli_ref_and_print():
    r = _cli("--impl", "ref", "--tokens", "4")
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip().splitlines()[0]
    assert line.startswith("ref: [") and len(line.split("]")[0].split(",")) == 4
    p = _cli("--print")
    assert p.returncode == 0, p.stderr
    assert "from tvm.script import tirx as T" in p.stdout
    mod = relax_ref.parse(p.stdout)
    assert sorted(mod) == ["decode", "prefill"]
    bad = _cli("--impl", "cuda")
    assert bad.returncode == 2 and "unknown implementation" in bad.stderr


def test_cli_ref_vs_jax():
    pytest.importorskip("relax_jax")
    r = _cli("--impl", "ref,jax", "--tokens", "4")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    seqs = {ln.split(":")[0]: ln.split("]")[0].split("[")[1] for ln in lines[:2]}
    assert seqs["ref"] == seqs["jax"]
    assert lines[-1] == "equal: True"


@pytest.mark.tvm
def test_cli_ref_vs_tvm():
    pytest.importorskip("tvm")
    r = _cli("--impl", "ref,tvm", "--tokens", "4")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "equal: True"

"""examples/llama_tp.py (``llama_tiny.py --mesh N``): the tensor-parallel tiny Llama is a well-formed
DTensor module whose logits, in the local view on 2 and 4 workers and in the global view, are the
independent numpy implementation's (``llama_numpy.py``), and whose greedy token ids are the
single-device model's, on the reference and on relax_jax (simulated workers here; ``shard_map`` on 8
host devices in a fresh process)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import relax_ref
from relax_ref.interp.workers import evaluate_local
from relax_ref.static.well_formed import check_well_formed

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
PROMPT = [1, 2, 3, 4, 5]

llama = load_file("llama_tiny_example", ROOT / "examples" / "llama_tiny.py")
tp = load_file("llama_tp_example", ROOT / "examples" / "llama_tp.py")
oracle = load_file("llama_numpy_oracle", Path(__file__).with_name("llama_numpy.py"))


@pytest.fixture(scope="module")
def model():
    return llama.make_model(0)


@pytest.mark.parametrize("n", [2, 4])
def test_module_is_well_formed_and_sharded_as_megatron(model, n):
    mod = tp.build_tp_module(model.cfg, n)
    check_well_formed(mod)
    relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect="tvm")))
    calls = [b.value.op.name for b in mod["forward"].body.blocks[0].bindings if hasattr(b.value, "op")]
    assert calls.count("relax.ccl.allreduce") == 2 * model.cfg.num_layers      # one per attention, one per MLP
    places = {p.name_hint: str(p.struct_info.placement) for p in mod["forward"].params}
    assert places["l0_wq"] == "S[0]" and places["l0_gate"] == "S[1]" and places["l0_down"] == "S[0]"
    # the output projection: (heads * head_dim, hidden) split by rows, fed by the attention output
    # reshaped to (n, heads * head_dim) with its columns (the heads) sharded (DIST.OP.2, DIST.LOCAL.4)
    cfg = model.cfg
    assert places["l0_wo"] == "S[0]"
    wo = next(p for p in mod["forward"].params if p.name_hint == "l0_wo")
    assert [d.value for d in wo.struct_info.shape_values] == [cfg.num_heads * cfg.head_dim, cfg.hidden_size]
    reshapes = [b.var.struct_info for b in mod["forward"].body.blocks[0].bindings
                if getattr(getattr(b.value, "op", None), "name", None) == "relax.reshape"]
    assert len(reshapes) == cfg.num_layers and all(str(s.placement) == "S[1]" for s in reshapes)
    assert places["embed"] == "R"


@pytest.mark.parametrize("view,n", [("local", 2), ("local", 4), ("global", 2)])
def test_reference_logits_match_numpy(model, view, n):
    mod = tp.build_tp_module(model.cfg, n)
    args = [*tp.tp_inputs(model.cfg, PROMPT), *tp.tp_weights(model)]
    logits = np.asarray(tp.ref_tp_runner(mod, view)(args))
    want, _ = oracle.forward(model, PROMPT)
    np.testing.assert_allclose(logits[-1], want, rtol=1e-4, atol=1e-4)


def test_token_ids_are_the_single_device_ones(model):
    want = oracle.generate(model, PROMPT, 4)
    assert llama.generate(llama.ref_runner(llama.build_module(model)), model.param_arrays(), PROMPT, 4) == want
    w = tp.tp_weights(model)
    for n in (2, 4):
        mod = tp.build_tp_module(model.cfg, n)
        assert tp.generate_tp(tp.ref_tp_runner(mod), model.cfg, w, PROMPT, 4) == want
    mod = tp.build_tp_module(model.cfg, 2)
    assert tp.generate_tp(tp.jax_tp_runner(mod), model.cfg, w, PROMPT, 4) == want


def test_indivisible_heads_are_refused(model):
    with pytest.raises(ValueError, match="divide into 3 workers"):
        tp.build_tp_module(model.cfg, 3)


def test_shard_map_on_host_devices(model):
    """``llama_tp_script.py`` in a fresh process with 8 host devices: meshes of 2 and 4 devices under
    ``shard_map``, the single-device token ids, 2 all-reduces per layer in the compiled program."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "executors"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(Path(__file__).with_name("llama_tp_script.py"))], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    want = oracle.generate(model, PROMPT, 4)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2, out.stdout
    for n, line in zip((2, 4), lines):
        assert line == f"mesh {n}: {want} simulated=False all-reduces={2 * model.cfg.num_layers}", out.stdout

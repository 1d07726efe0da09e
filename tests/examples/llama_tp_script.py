"""Run in a fresh process with 8 host CPU devices (``XLA_FLAGS`` set before JAX starts): the
tensor-parallel tiny Llama (``examples/llama_tp.py``) under ``shard_map`` on meshes of 2 and 4 devices.
Prints, per mesh, the token ids and the number of all-reduce operations in the compiled program."""

import os
import re
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

import jax  # noqa: E402

import llama_tiny  # noqa: E402
import llama_tp  # noqa: E402

PROMPT = [1, 2, 3, 4, 5]


def main() -> int:
    assert len(jax.devices()) == 8, jax.devices()
    model = llama_tiny.make_model(0)
    weights = llama_tp.tp_weights(model)
    for n in (2, 4):
        mod = llama_tp.build_tp_module(model.cfg, n)
        run = llama_tp.jax_tp_runner(mod)
        ids = llama_tp.generate_tp(run, model.cfg, weights, PROMPT, 4)
        args = [*llama_tp.tp_inputs(model.cfg, PROMPT), *weights]
        view = run.view
        hlo = view.compiled_text(*args)
        reduces = len(re.findall(r"= \S+ all-reduce(?:-start)?\(", hlo))
        print(f"mesh {n}: {ids} simulated={view.simulated} all-reduces={reduces}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

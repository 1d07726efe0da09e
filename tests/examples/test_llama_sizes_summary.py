"""benchmarks/llama_sizes.py's summary (no timing, no child processes): medians, the ratio of the medians
and the per-run ratios against the hand-written program, from hand-made run records."""

import argparse
from pathlib import Path

import pytest

from file_modules import load_file

ROOT = Path(__file__).resolve().parents[2]
sizes = load_file("llama_sizes_under_test", ROOT / "benchmarks" / "llama_sizes.py")

ARGS = argparse.Namespace(config="tiny", dtype="float32", runs=3, repeats=5, decode_steps=64, decode_windows=16,
                          gen_tokens=64)


def _runs():
    return {
        "jax": [{"prefill_128_s": 2.0, "tokens": [1, 2]}, {"prefill_128_s": 4.0, "tokens": [1, 2]},
                {"prefill_128_s": 3.0, "tokens": [1, 2]}],
        "relax_jax": [{"prefill_128_s": 2.2, "tokens": [1, 2]}, {"prefill_128_s": 4.4, "tokens": [1, 2]},
                      {"prefill_128_s": 2.7, "tokens": [1, 3]}],
    }


def test_medians_and_ratio_of_the_medians():
    res = sizes.summarize(ARGS, _runs(), [0.5])
    assert res["jax.prefill_128_s"] == 3.0
    assert res["relax_jax.prefill_128_s"] == 2.7
    assert res["relax_jax.prefill_128_s.ratio"] == pytest.approx(0.9)
    assert "jax.prefill_128_s.ratio" not in res


def test_per_run_ratios_pair_each_run_with_its_own_hand_written_run():
    res = sizes.summarize(ARGS, _runs(), [0.5])
    assert res["relax_jax.prefill_128_s.ratio_runs"] == pytest.approx([1.1, 1.1, 0.9])
    assert "jax.prefill_128_s.ratio_runs" not in res


def test_tokens_compared_per_run():
    res = sizes.summarize(ARGS, _runs(), [0.5])
    assert res["jax.same_tokens"] is True
    assert res["relax_jax.same_tokens"] is False


def test_table_shows_the_per_run_spread(capsys):
    sizes.print_table(sizes.summarize(ARGS, _runs(), [0.5, 0.7]))
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| prefill_128_s"))
    assert "2.7 [2.2-4.4] (0.90x; runs 0.90-1.10x)" in row
    assert "3 [2-4]" in row

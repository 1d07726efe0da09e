"""The fuzzing harness (relax_ref.testing.fuzz): mutations, the worker processes and their outcomes,
findings by signature, minimization, and a short campaign on the suite with a fixed seed.

The planted evaluators (``fuzz_planted``: a TypeError on ``R.add``, a result off by one, an abort, a
hang) show that each kind of finding is found, that a crashed or hung worker is replaced, and that a
finding's example is minimized.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from relax_ref.testing.fuzz import Campaign, Seed, load_seeds, main, run_campaign
from relax_ref.testing.fuzz_findings import FindingSet, classify, ddmin_lines
from relax_ref.testing.fuzz_mutate import TEXT_MUTATIONS, mutate_text, wrong_inputs

HERE = Path(__file__).resolve().parent

MODULE = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        a = R.multiply(x, y)
        b = R.subtract(a, x)
        c = R.add(b, y)
        d = R.multiply(c, c)
        return d
'''


@pytest.fixture
def planted(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))    # the workers import fuzz_planted


def _campaign(other, **kw):
    kw.setdefault("timeout", 60.0)
    return Campaign([Seed("t/add", MODULE, "main")], impls=("ref", f"fuzz_planted:{other}"), **kw)


def test_text_mutations_are_deterministic_and_named():
    a = mutate_text(MODULE, np.random.default_rng(5), 3)
    b = mutate_text(MODULE, np.random.default_rng(5), 3)
    assert a == b and a[0] != MODULE and a[1] and set(a[1]) <= set(TEXT_MUTATIONS)
    for name, fn in TEXT_MUTATIONS.items():
        assert isinstance(fn(MODULE, np.random.default_rng(1)), str), name


def test_wrong_inputs_change_the_arguments():
    args = [np.ones((2, 3), "float32"), 3]
    variants = wrong_inputs(args, np.random.default_rng(0), 30)
    assert len(variants) == 30
    for label, v in variants:
        assert label and (len(v) != len(args) or any(
            type(a) is not type(b) or (isinstance(a, np.ndarray) and (a.shape != b.shape or a.dtype != b.dtype
                                                                     or not np.array_equal(a, b, equal_nan=True)))
            or (not isinstance(a, np.ndarray) and a != b) for a, b in zip(v, args))), label
    assert args[0].sum() == 6 and args[1] == 3            # the originals are left alone


def test_wrong_input_labels_are_unique_within_a_program():
    """Two variants changing the same argument are told apart (a finding's label named the first of
    them, so the report could show another run's arguments)."""
    from relax_ref.testing.fuzz_findings import describe_inputs, describe_value
    from relax_ref.testing.fuzz_worker import Outcome, Response

    args = [np.ones((2,), "float32")]
    variants = wrong_inputs(args, np.random.default_rng(0), 30)
    labels = [label for label, _ in variants]
    assert len(set(labels)) == len(labels) == 30
    assert sum(label.endswith(": argument 0") for label in labels) > 1
    assert labels[0].startswith("wrong 1: ") and labels[-1].startswith("wrong 30: ")
    resp = Response(Outcome("value"), inputs=[("right", args)] + variants)
    for label, v in variants:
        assert describe_inputs(resp, label) == describe_value(list(v))


def test_ddmin_keeps_the_failure_and_drops_the_rest():
    text = "\n".join(f"line {i}" for i in range(40)) + "\nBOOM\n" + "\n".join(f"tail {i}" for i in range(9))
    small, steps = ddmin_lines(text, lambda t: "BOOM" in t, 10.0)
    assert small == "BOOM" and steps > 0


def test_planted_crash_is_found_once_and_minimized(planted):
    c = _campaign("crash_on_add", minimize_seconds=60.0, wrong=1)
    try:
        ref, other = c.evaluate(MODULE, "main", 1, ())
        found = c.classify(ref, other)
        sigs = {f[1] for f in found}
        assert "crash|fuzz_planted:crash_on_add|run|TypeError|crash_on_add" in sigs
        sig = "crash|fuzz_planted:crash_on_add|run|TypeError|crash_on_add"
        new = [c.findings.add(k, s, d, r, "t/add", [], MODULE) for k, s, d, r in found]
        assert new[0] and not new[1]                    # the right and the wrong arguments: one signature
        f = c.findings.by_signature[sig]
        assert f.count == 2 and f.kind == "crash"
        c._minimize(f, Seed("t/add", MODULE, "main"), 1)
        assert "R.add(" in f.minimized and f.minimized.count("\n") < MODULE.count("\n")
        assert "import" not in f.minimized and f.minimize_steps > 0
    finally:
        for w in c.workers:
            w.close()


def test_planted_value_disagreement(planted):
    c = _campaign("off_by_one", wrong=0)
    try:
        ref, other = c.evaluate(MODULE, "main", 1, ())
        kinds = {f[0] for f in c.classify(ref, other)}
        assert kinds == {"value"}
    finally:
        for w in c.workers:
            w.close()


@pytest.mark.parametrize("what", ["abort", "hang"])
def test_a_dead_or_hung_worker_is_a_finding_and_is_replaced(planted, what):
    c = _campaign(what, wrong=0, timeout={"abort": 30.0, "hang": 4.0}[what])
    try:
        c.workers[0].timeout = 120.0                    # only the planted worker is hurried
        for _ in range(2):
            ref, other = c.evaluate(MODULE, "main", 1, ())
            assert other.parse.kind == what
            assert [f[0] for f in c.classify(ref, other)] == [what]
        # a hang and an abort are confirmed once on a fresh worker (two restarts per program)
        assert c.workers[1].restarts == 4 and c.workers[1].unrepeated_aborts == []
        assert c.workers[0].request(MODULE, "main", seed=1).runs[0].kind == "value"
    finally:
        for w in c.workers:
            w.close()


def test_classify_without_a_second_implementation():
    from relax_ref.testing.fuzz_worker import Outcome, Response

    r = Response(Outcome("value"), runs=[Outcome("crash", "IndexError", "x", "ops/a.py:f")],
                 inputs=[("right", [])])
    assert classify(r, None) == [("crash", "crash|ref|run|IndexError|ops/a.py:f", "x", "right")]
    assert FindingSet().add("crash", "s", "", "", "o", [], "t")


def test_short_campaign_on_the_suite(tmp_path):
    seeds = load_seeds(Path(__file__).resolve().parents[2] / "conformance" / "cases")
    assert len(seeds) > 1000 and sum(bool(s.base) for s in seeds) > 300
    # enough programs that some parse (a third of the mutated texts do; the first six of seed 7 do not)
    rep = run_campaign(120.0, seed=7, max_programs=12, minimize_seconds=1.0, wrong=2)
    assert rep["programs"] == 12 and rep["seed"] == 7
    assert rep["accepted_programs"] > 0 and rep["evaluations"]["ref"] > 0
    assert set(rep) >= {"accepted_programs", "findings", "findings_by_kind", "worker_restarts", "elapsed_s"}
    json.dumps(rep, default=str)
    out = tmp_path / "r.json"
    assert main(["--minutes", "2", "--max-programs", "1", "--impl", "ref", "--json", str(out), "-q",
                 "--minimize-seconds", "1"]) == 0
    assert json.loads(out.read_text())["programs"] == 1


def test_a_worker_that_does_not_start_stops_the_campaign_with_a_report(planted, monkeypatch):
    """A worker whose start fails three times (here: no time to start at all) is not a finding: the
    campaign stops and reports what it found and why it stopped (it ended in a traceback)."""
    from relax_ref.testing import fuzz_worker

    monkeypatch.setattr(fuzz_worker.time, "sleep", lambda s: None)
    c = _campaign("abort", wrong=0)
    c.workers[1].startup_timeout = 0.0
    rep = c.run(60.0)
    assert rep["stopped_early"] == "the fuzz_planted:abort worker did not start"
    assert rep["worker_start_failures"] == {"ref": 0, "fuzz_planted:abort": fuzz_worker.START_ATTEMPTS}
    assert rep["programs"] >= 1 and rep["findings"] == []     # (the first programs the reference rejects)


def test_a_slow_answer_on_a_loaded_machine_is_not_a_hang(planted, monkeypatch, tmp_path):
    """A request that outlasts its timeout is tried again on a fresh worker with three times the
    timeout; one that answers then is counted as slow, not reported as a hang."""
    monkeypatch.setenv("FUZZ_PLANTED_SLOW_MARK", str(tmp_path / "slept"))
    c = _campaign("slow_once", wrong=0, timeout=4.0)
    try:
        c.workers[0].timeout = 120.0
        ref, other = c.evaluate(MODULE, "main", 1, ())
        assert other.parse.kind == "value" and c.workers[1].slow == 1
        assert c.classify(ref, other) == []
    finally:
        for w in c.workers:
            w.close()


def test_an_abort_a_fresh_worker_does_not_repeat_is_kept_apart(planted, monkeypatch, tmp_path):
    """A worker that dies once of what it had built up (here: a planted abort on its first call) is
    not an abort of the program: the fresh worker's answer counts, and the program is reported apart."""
    monkeypatch.setenv("FUZZ_PLANTED_ABORT_MARK", str(tmp_path / "aborted"))
    c = _campaign("abort_once", wrong=0, timeout=30.0)
    try:
        ref, other = c.evaluate(MODULE, "main", 1, ())
        assert other.parse.kind == "value" and c.classify(ref, other) == []
        kept = c.workers[1].unrepeated_aborts
        assert len(kept) == 1 and kept[0]["how"] == "signal 6" and kept[0]["text"] == MODULE
        assert c.report(1.0)["unrepeated_aborts"]["fuzz_planted:abort_once"] == kept
    finally:
        for w in c.workers:
            w.close()


FLOOR_MOD = '''from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32"), b: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        c = R.floor_mod(a, b)
        return c
'''


@pytest.mark.parametrize("other, found", [("flushing", []), ("flushing_off_by_one", ["value"])])
def test_a_difference_that_flushing_subnormals_explains_is_allowed(planted, other, found):
    """PRIM.FLOAT.6 (the third run's floor_mod finding): floor_mod(-0.25, 3.4e38) is 3.4e38 on the
    reference and -0.25 where the subnormal quotient is flushed; the harness evaluates the reference
    again with subnormals flushed, and only a difference that remains is a finding."""
    from relax_ref.testing import ftz

    if not ftz.available():
        pytest.skip("flush-to-zero is not available on this platform")
    c = Campaign([Seed("t/floor_mod", FLOOR_MOD, "main")], impls=("ref", f"fuzz_planted:{other}"), wrong=0,
                 timeout=60.0)
    try:
        args = [np.array([-0.25, 7.0], "float32"), np.array([3.4028235e38, 2.0], "float32")]
        ref = c.workers[0].request(FLOOR_MOD, "main", inputs=[("right", args)])
        o = c.workers[1].request(FLOOR_MOD, "main", inputs=[("right", args)])
        assert ref.runs[0].value[0] == np.float32(3.4028235e38) and o.runs[0].value[0] in (-0.25, 0.75)
        assert [f[0] for f in c.classify(ref, o, FLOOR_MOD, "main")] == found
        assert c.stats.ftz_allowed == (1 if not found else 0)
    finally:
        for w in c.workers:
            w.close()


def test_workers_register_the_suite_packed_functions():
    """The suite's packed functions (CALL.PACKED.5) are registered in every worker, for both evaluators
    alike, so that the suite's packed calls run there instead of all ending at the look-up."""
    from relax_ref.testing.fuzz_worker import Worker

    pytest.importorskip("relax_conformance")
    text = (Path(__file__).resolve().parents[2] / "conformance" / "cases" / "packed" / "call_dps_packed"
            / "module.py").read_text(encoding="utf-8")
    a, b = np.arange(3, dtype="float32"), np.ones(3, dtype="float32")
    for impl in ("ref", "jax"):
        w = Worker(impl, timeout=120.0)
        try:
            run = w.request(text, "main", inputs=[("right", [a, b])]).runs[0]
            assert run.kind == "value", (impl, run)
            np.testing.assert_array_equal(run.value, a + b)
        finally:
            w.close()

"""check_pass's search: budgets and profiles, determinism, coverage, the coverage-guided schedule,
IR reduction, the reproducer's dialect and the pytest helpers."""

import pytest

from relax_ref.errors import UnsupportedError
from relax_ref.testing import PassCheckError, check_pass, pass_test
from relax_ref.testing.coverage import CONSTRUCTS, Coverage, program_features, universe
from relax_ref.testing.mutants import swap_operands
from relax_ref.testing.profiles import ENV_VAR, SEED_ENV_VAR, get_profile, resolve
from relax_ref.testing.program import GenConfig, generate
from relax_ref.testing.reduce import reduce_program
from relax_ref.testing.schedule import Scheduler
from relax_ref.testing.source import RandomSource
from relax_ref.transform import LegalizeOps, function_pass


def test_profiles_and_their_selection(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv(SEED_ENV_VAR, raising=False)
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    assert get_profile().name == "quick" and get_profile().max_examples is not None
    monkeypatch.setenv(ENV_VAR, "deep")
    assert get_profile().name == "deep"
    assert resolve("nightly").seed is not None                 # deep draws a seed per run
    assert resolve("default").seed == 0                         # the default run is deterministic
    monkeypatch.setenv(SEED_ENV_VAR, "17")
    assert resolve("default").seed == 17
    assert resolve("quick", seconds=5).max_examples is None     # an explicit time is the bound
    assert resolve("default", max_examples=9).max_examples == 9
    with pytest.raises(UnsupportedError):
        get_profile("weekly")


def test_a_count_bounded_search_is_deterministic():
    a = check_pass(LegalizeOps(), max_examples=20, seed=5)
    b = check_pass(LegalizeOps(), max_examples=20, seed=5)
    assert a.programs == b.programs == 20
    assert a.coverage.counts == b.coverage.counts
    assert a.coverage.covered("op:") > 10 and a.coverage.covered("construct:") > 10
    assert sum(a.modes.values()) == 20 and a.modes["focus"] > 0


def test_a_time_budget_ends_the_search():
    stats = check_pass(function_pass(lambda m: m, "Id"), seconds=1.0)
    assert stats.programs > 0 and stats.found_at is None
    assert "programs" in stats.describe() and "coverage" in stats.describe()


def test_the_schedule_depends_on_the_seed_only():
    cov = Coverage(universe(["relax.add"]))
    a = [Scheduler(GenConfig(), 3).next(cov) for _ in range(5)]
    b = [Scheduler(GenConfig(), 3).next(cov) for _ in range(5)]
    assert a == b
    s = Scheduler(GenConfig(ops=("relax.add", "relax.exp")), 1)
    for _ in range(20):
        cfg = s.next(cov)
        assert cfg.ops is None or set(cfg.ops) <= {"relax.add", "relax.exp"}   # within the user's operators


def test_program_features(parse_ir):
    mod = parse_ir("""
from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class M:
    @R.function(private=True)
    def helper(t: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
        a = t[0]
        return a

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor((4,), "float32"), flag: R.Prim("bool")):
        n = T.int64()
        k = T.int64()
        with R.dataflow():
            lv = R.match_cast(x, R.Tensor((k,), "float32"))
            gv = R.exp(lv)
            R.output(gv)
        h = M.helper((y, y))
        if flag:
            r = R.add(y, y)
        else:
            r = y
        return (gv, r, h)
""")
    f = program_features(mod)
    for name in ("op:relax.exp", "op:relax.add", "construct:dataflow", "construct:dataflow_output",
                 "construct:match_cast:fresh", "construct:if:flag", "construct:helper",
                 "construct:helper_tuple_param", "construct:tuple_result", "construct:symbolic:1",
                 "construct:rank:1", "construct:dtype:float32"):
        assert name in f, name
    assert all(c.startswith("construct:") is False for c in f if c.startswith("op:"))
    assert set(CONSTRUCTS) >= {x.split(":", 1)[1] for x in f if x.startswith("construct:")}


def test_a_failure_is_reported_in_the_requested_dialect():
    def run(dialect):
        with pytest.raises(PassCheckError) as info:
            check_pass(swap_operands(LegalizeOps()), max_examples=100, shrink_seconds=2, dialect=dialect)
        return str(info.value)

    classic, tvm = run("classic"), run("tvm")
    assert "found by check_pass(LegalizeOps[swap_operands], seed=0" in tvm
    assert "T.block(" in classic and "T.sblock(" not in classic
    assert "T.sblock(" in tvm


def test_reducing_to_an_earlier_result():
    prog = generate(RandomSource(9), GenConfig(ops=("relax.exp", "relax.add", "relax.multiply"), max_bindings=10))
    assert "R.exp" in prog.mod.script()

    def has_exp(p):
        return "R.exp" in p.mod.script()

    small = reduce_program(prog, has_exp)
    assert has_exp(small)
    from relax_ref.testing.engine import count_bindings

    assert count_bindings(small.mod) < count_bindings(prog.mod)
    assert [p.name_hint for p in small.mod["main"].params] == [p.name_hint for p in prog.mod["main"].params]


def test_pass_test_makes_a_collectable_test():
    t = pass_test(LegalizeOps, max_examples=3)
    assert t.__name__ == "test_LegalizeOps"
    t()
    bad = pass_test(swap_operands(LegalizeOps()), max_examples=100, shrink_seconds=1)
    with pytest.raises(PassCheckError):
        bad()


def test_the_readme_example_catches_the_broken_pass():
    """The user-written broken pass of README.md ("Passes and property testing") fails check_pass."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class SortInputs" in b)
    with pytest.raises(PassCheckError) as info:
        exec(compile(block, "README.md", "exec"), {})
    out = info.value.outcome
    # swapped inputs either compute something else or no longer fit the kernel's signature
    assert out.symptom in ("mismatch", "ill-formed") and out.failed_pass == "SortInputs", out.report()


def test_the_search_does_not_depend_on_hash_randomization():
    """Two processes with different string hashing check the same programs (set order of strings
    never feeds the seeded choices)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "from relax_ref.testing import check_pass\n"
            "from relax_ref.transform import DeadCodeElimination\n"
            "s = check_pass(DeadCodeElimination(), max_examples=25, seed=2)\n"
            "print(sorted(s.coverage.counts.items()), sorted(s.modes.items()))\n")
    root = Path(__file__).resolve().parents[2]
    outs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed,
                   PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert outs[0] == outs[1]


def test_reducing_by_zeros():
    from relax_ref.testing.reduce import with_zeros

    prog = generate(RandomSource(9), GenConfig(ops=("relax.exp", "relax.add", "relax.multiply"), max_bindings=10))
    main = prog.mod["main"]
    last = [b for blk in main.body.blocks for b in blk.bindings][-1]
    cand = with_zeros(prog, last.var)
    assert cand is not None and "R.zeros" in cand.mod.script()
    from relax_ref.testing.engine import count_bindings

    assert count_bindings(cand.mod) <= count_bindings(prog.mod)

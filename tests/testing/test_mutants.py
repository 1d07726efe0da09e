"""The mutant zoo: every entry builds and names its pass, faults stay out of programs they cannot
affect, and check_pass catches a sample of them -- one per way of injecting a fault -- within a
small, fixed number of programs (the full kill-rate measurement is benchmarks/mutant_bench.py)."""

import pytest

from relax_ref.testing import PassCheckError, check_pass
from relax_ref.testing.mutants import ZOO, MutantPass, get, names
from relax_ref.testing.passes import CATALOG, ref_pass


def test_zoo_has_thirty_named_mutants_of_catalogued_passes():
    assert len(ZOO) >= 30
    assert len(set(names())) == len(ZOO)
    for spec in ZOO:
        assert spec.target in CATALOG, spec.name
        assert spec.name.startswith(spec.target + "."), spec.name
        assert spec.fault and spec.modelled_on
        if ref_pass(spec.target) is None:
            continue  # a pass this build does not have yet (the benchmark lists it as skipped)
        p = spec.make()
        assert isinstance(p, MutantPass) and p.name.startswith(spec.target + "[")


def test_a_mutant_returns_the_real_output_when_its_fault_does_not_apply(parse_ir):
    mod = parse_ir("""
from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.exp(x)
        return y
""")
    from relax_ref.analysis.structural_equal import structural_equal
    from relax_ref.transform import LegalizeOps

    m = get("LegalizeOps.floor_mod_as_trunc_mod").make()
    assert structural_equal(m(mod), LegalizeOps()(mod))
    assert m.fired == 0


def test_a_fault_fires_on_the_program_it_needs(parse_ir):
    mod = parse_ir("""
from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((5,), "int32")):
        y = R.floor_mod(x, R.const(3, "int32"))
        return y
""")
    import numpy as np

    from relax_ref.interp import Interpreter

    m = get("LegalizeOps.floor_mod_as_trunc_mod").make()
    out = m(mod)
    assert m.fired == 1
    x = np.array([-4, -1, 0, 2, 5], "int32")
    np.testing.assert_array_equal(Interpreter(out)("main", x), np.fmod(x, 3))  # truncating, not floor_mod


# one mutant per kind of injection: kernel rewrite, input rewrite, patched analysis, Relax bindings,
# lifted functions, fusion, and two that need the newer generator shapes (tuple parameters,
# closures spelled with the caller's symbolic variables)
SAMPLE = [
    ("LegalizeOps.flip_off_by_one", "mismatch"),
    ("LegalizeOps.cumsum_exclusive_ignored", "mismatch"),
    ("StaticPlanBlockMemory.storage_across_branches", "ill-formed"),
    ("DeadCodeElimination.ignores_if_condition", "ill-formed"),
    ("LambdaLift.capture_dropped", "ill-formed"),
    ("FuseOps.drops_output", "ill-formed"),
    ("ExpandTupleArguments.fields_reversed", "mismatch"),
    ("LambdaLift.symbolic_vars_shared", "ill-formed"),
]


@pytest.mark.parametrize("name,symptom", SAMPLE, ids=[n for n, _ in SAMPLE])
def test_check_pass_catches_the_mutant(name, symptom):
    spec = get(name)
    with pytest.raises(PassCheckError) as info:
        check_pass(spec.make(), profile="quick", max_examples=400, **spec.check_kwargs())
    out = info.value.outcome
    assert out.symptom == symptom, out.report()
    assert out.failed_pass == spec.make().name            # the failure is the mutant's, not a prepare pass's
    stats = info.value.stats
    # the quick profile bounds shrinking by attempts; the benchmark measures reproducer sizes
    assert stats.bindings_after <= stats.bindings_before and stats.shrink_attempts <= 60

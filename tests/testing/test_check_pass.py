"""check_pass / check_pass_sequence: every available pass passes; injected bugs are caught, shrunk
and reported as TVMScript; every symptom of the oracle is reachable; bundles round-trip."""

import json
import time
import pytest

from relax_ref.ir import expr as rx
from relax_ref.ir.struct_info import FuncStructInfo, ObjectStructInfo
from relax_ref.testing import GenConfig, PassCheckError, check_pass, check_pass_sequence
from relax_ref.testing.bundle import list_bundles, load_bundle
from relax_ref.testing.mutants import drop_binding, swap_operands
from relax_ref.testing.oracle import check_case
from relax_ref.testing.passes import CATALOG, available_passes, prepare_passes, ref_pass, pass_for_property_tests
from relax_ref.testing.program import generate
from relax_ref.testing.source import RandomSource
from relax_ref.transform import LegalizeOps, function_pass

SPECS = available_passes()


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_available_pass(spec):
    """(a) well formed, (b) same results at sizes 1 and 3, (c) public signatures kept."""
    check_pass(pass_for_property_tests(spec), max_examples=15, prepare=prepare_passes(spec), config=spec.gen_config(),
               signature=spec.signature)


def test_catalog_knows_the_passes_of_this_build():
    import relax_ref.transform as T

    for name in dir(T):
        obj = getattr(T, name)
        if isinstance(obj, type) and issubclass(obj, T.Pass) and not obj.__module__.endswith("pass_infra") \
                and not name.startswith("_"):
            assert name in CATALOG, f"add {name} to relax_ref.testing.passes.CATALOG"


def _target(name):
    """The pass to break: DCE / FuseOps once they exist, LegalizeOps until then."""
    p = ref_pass(name)
    return (p, prepare_passes(CATALOG[name])) if p is not None else (LegalizeOps(), [])


def _bindings(text: str) -> int:
    return sum(1 for line in text.splitlines() if " = " in line and not line.strip().startswith("#"))


def test_dropped_binding_is_caught_and_shrunk():
    inner, prepare = _target("DeadCodeElimination")
    with pytest.raises(PassCheckError) as info:
        check_pass(drop_binding(inner), prepare=prepare, max_examples=60)
    out = info.value.outcome
    assert out.symptom == "ill-formed"
    msg = str(info.value)
    assert "@I.ir_module" in msg and "def main" in msg          # the reproducer, as TVMScript
    main_text = msg.split("--- input module ---")[1].split("---")[0]
    assert _bindings(main_text) <= 3, msg                       # shrunk to a handful of bindings


def test_swapped_operands_are_caught_as_a_mismatch():
    inner, prepare = _target("FuseOps")
    cfg = GenConfig(ops=("relax.subtract", "relax.exp"), max_bindings=3, max_params=2, max_rank=2,
                    op_pattern=True, features=frozenset({"dataflow"}))
    with pytest.raises(PassCheckError) as info:
        check_pass(swap_operands(inner), prepare=prepare, config=cfg, max_examples=80)
    out = info.value.outcome
    assert out.symptom == "mismatch"
    assert "R.subtract" in str(info.value) or "call_tir" in str(info.value)
    assert out.inputs is not None and out.expected is not None


def _prog(seed=0, **cfg):
    return generate(RandomSource(seed), GenConfig(**cfg))


def test_crash_symptom():
    def boom(mod):
        raise RuntimeError("boom")

    out = check_case(_prog(), [function_pass(boom, "Boom")])
    assert out.symptom == "crash" and out.failed_pass == "Boom" and "boom" in out.message


def test_timeout_symptom():
    def slow(mod):
        time.sleep(5)
        return mod

    out = check_case(_prog(), [function_pass(slow, "Slow")], timeout=0.2)
    assert out.symptom == "timeout"


def test_signature_symptom():
    def weaken(mod):
        # a return annotation weaker than the body (the normalizer would restore the specific one)
        f = mod["main"]
        fsi = FuncStructInfo(tuple(p.struct_info for p in f.params), ObjectStructInfo(), f.is_pure)
        g = rx.Function(f.params, f.body, ObjectStructInfo(), f.is_pure, attrs=f.attrs, struct_info=fsi)
        return mod.with_function(rx.GlobalVar("main", struct_info=fsi), g)

    out = check_case(_prog(), [function_pass(weaken, "Weaken")])
    assert out.symptom == "signature" and "weakened" in out.message


def test_ill_formed_symptom_names_the_failing_pass_in_a_sequence():
    out = check_case(_prog(seed=4), [LegalizeOps(), drop_binding(function_pass(lambda m: m, "Id"))])
    assert out.symptom == "ill-formed"
    assert out.failed_at == 1 and out.failed_pass == "Id[drop_binding]"


def test_sequences_report_and_bundles(tmp_path):
    passes = [LegalizeOps(), drop_binding(function_pass(lambda m: m, "Id"))]
    report = check_pass_sequence(passes, max_length=3, max_examples=12, bundle_dir=tmp_path,
                                 stop_on_failure=False)
    assert report.programs == 12
    assert report.per_pass["Id[drop_binding]"]["ill-formed"] >= 1
    bundles = list_bundles(tmp_path)
    assert bundles and all(p.name.startswith("ill-formed-Id_drop_binding") for p in bundles)
    b = load_bundle(bundles[0])
    assert b["meta"]["symptom"] == "ill-formed"
    assert "Id[drop_binding]" in b["meta"]["passes"]
    assert b["input"].startswith("# from tvm.script") and "def main" in b["input"]
    assert "T.int64" not in json.dumps(b["meta"]["passes"])


def test_sequence_failure_raises_by_default():
    passes = [LegalizeOps(), swap_operands(function_pass(lambda m: m, "Id"))]
    cfg = GenConfig(ops=("relax.subtract",), max_bindings=3, features=frozenset())
    with pytest.raises(PassCheckError):
        check_pass_sequence(passes, config=cfg, max_examples=60)


def test_user_strategy_of_modules(parse_ir):
    from hypothesis import strategies as st

    mod = parse_ir("""
from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        y = R.add(x, x)
        return y
""")
    check_pass(LegalizeOps(), strategy=st.just(mod), max_examples=2)

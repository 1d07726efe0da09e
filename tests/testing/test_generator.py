"""The program generator (relax_ref.testing.program / rules / tir_gen): every generated module is
well formed and runs on the reference interpreter at several sizes; every rule of the table fires;
generation is a deterministic function of the choice list."""

import numpy as np
import pytest
from hypothesis import given, settings

from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.static.well_formed import check_well_formed
from relax_ref.ops import registry
from relax_ref.testing import strategies
from relax_ref.testing.domain import MAX_SYM, Dim, broadcast_dims, const
from relax_ref.testing.inputs import module_inputs, program_inputs
from relax_ref.testing.oracle import expected_results, run_entry
from relax_ref.testing.program import GenConfig, Program, generate
from relax_ref.testing.rules import RULES, active_rules, rule_ops
from relax_ref.testing.source import RandomSource, ReplaySource
from relax_ref.ir import prim_expr as P


@settings(max_examples=40, deadline=None)
@given(prog=strategies.programs())
def test_generated_programs_are_well_formed_and_run(prog):
    check_well_formed(prog.mod)
    for size, inputs, result in expected_results(prog, (1, 2, 4), seed=7):
        assert result is not None
        for a in _arrays(result):
            if a.dtype.kind == "f":
                assert np.isfinite(a).all(), prog.script()


def _arrays(v):
    if isinstance(v, np.ndarray):
        yield v
    elif isinstance(v, tuple):
        for x in v:
            yield from _arrays(x)


def test_generation_is_a_function_of_the_choices():
    for seed in range(5):
        a = generate(RandomSource(seed))
        b = generate(RandomSource(seed))
        assert structural_equal(a.mod, b.mod)
        c = generate(ReplaySource(a.choices))
        assert structural_equal(a.mod, c.mod)


def test_empty_choice_list_gives_the_simplest_program():
    prog = generate(ReplaySource([]))
    main = prog.mod["main"]
    assert len(main.params) == 1
    assert sum(len(b.bindings) for b in main.body.blocks) == 1


@pytest.mark.parametrize("op", rule_ops())
def test_every_rule_builds_a_valid_call(op):
    """Each operator with a rule appears in a generated program, which runs before and after
    legalization (the registry's reference semantics and its legalization agree there)."""
    if not any(r.op == op for r in active_rules()):
        pytest.skip(f"{op} is not registered with inference and reference semantics")
    script = registry.get(op).script + "("
    cfg = GenConfig(ops=(op,), features=frozenset({"dataflow", "symbolic"}))
    for seed in range(80):
        prog = generate(RandomSource(seed), cfg)
        if script in prog.script():
            expected_results(prog, (1, 3), seed)
            return
    pytest.fail(f"no program with {op} in 80 tries")


def test_rules_are_keyed_by_registered_operator_names():
    for key, rule in RULES.items():
        assert key.split("#")[0] == rule.op
        assert rule.op.startswith("relax.")


def test_features_can_be_switched_off():
    cfg = GenConfig(features=frozenset())
    for seed in range(30):
        text = generate(RandomSource(seed), cfg).script()
        for construct in ("R.dataflow", "call_tir", "match_cast", "if ", "helper", "local_fn"):
            assert construct not in text


def test_symbolic_sizes_bind_the_entry_variables():
    cfg = GenConfig(max_params=2)
    for seed in range(40):
        prog = generate(RandomSource(seed), cfg)
        if prog.sym_vars:
            env = prog.sym_env(3)
            assert list(env.values())[0] == 3
            args = program_inputs(prog, 3, 0)
            for spec, arg in zip(prog.params, args):
                if spec.kind == "tensor":
                    assert arg.shape == tuple(d.value(env) for d in spec.dims)
            return
    pytest.fail("no symbolic program in 40 tries")


def test_broadcast_dims_needs_equal_or_static_one():
    n = P.PrimVar("n")
    assert broadcast_dims((Dim(1, n), const(4)), (const(4),)) == (Dim(1, n), const(4))
    assert broadcast_dims((Dim(1, n),), (const(1),)) == (Dim(1, n),)
    assert broadcast_dims((Dim(1, n),), (const(4),)) is None
    assert broadcast_dims((Dim(2, n),), (Dim(1, n),)) is None


def test_value_ranges_of_inputs():
    prog = generate(RandomSource(3))
    for size in (1, MAX_SYM):
        for spec, arg in zip(prog.params, program_inputs(prog, size, 11)):
            if spec.kind == "tensor" and arg.size:
                assert spec.range.lo <= float(arg.min()) and float(arg.max()) <= spec.range.hi


def test_module_inputs_from_struct_info(parse_ir):
    mod = parse_ir("""
from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), s: R.Shape(["n"]), p: R.Prim("int64"), b: R.Prim("bool")):
        return x
""")
    x, s, p, b = module_inputs(mod, "main", 3, 0)
    assert x.shape == (3, 2) and x.dtype == np.float32
    assert tuple(s) == (3,)
    assert isinstance(p, int) and isinstance(b, bool)
    run_entry(mod, "main", [x, s, p, b])


def test_program_repr_is_short():
    prog = generate(RandomSource(1))
    assert len(repr(prog)) < 100 and "Program(" in repr(prog)
    assert Program.from_module(prog.mod).params == ()

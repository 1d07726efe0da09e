"""The pass infrastructure (PASS.INFRA.*): passes, Sequential, PassContext, instruments."""

import textwrap

import pytest

import relax_ref
from relax_ref.errors import RelaxError, WellFormedError
from relax_ref.ir import expr as rx
from relax_ref.ir.module import IRModule
from relax_ref.transform import (
    DeadCodeElimination, FunctionPass, Pass, PassContext, PassInfo, PassInstrument, PassTimingInstrument,
    PassTraceInstrument, Sequential, WellFormedInstrument, config_options, function_pass, module_pass,
)

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"


def parse(text):
    return relax_ref.parse(HEADER + textwrap.dedent(text))


SRC = """
@I.ir_module
class Module:
    @R.function(private=True)
    def unused(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        a = R.add(x, x)
        b = R.multiply(x, x)
        return a
"""


def _rename_pass(name="Rename", opt_level=0):
    calls = []

    def fn(mod):
        calls.append(mod)
        return mod

    return module_pass(fn, name, opt_level), calls


def test_pass_is_pure_and_named():
    mod = parse(SRC)
    out = DeadCodeElimination()(mod)
    assert "unused" in mod and "unused" not in out  # the input is untouched
    assert DeadCodeElimination().info == PassInfo("DeadCodeElimination", 1, ())
    with pytest.raises(TypeError):
        DeadCodeElimination()("not a module")


def test_sequential_skips_passes_above_opt_level():
    mod = parse(SRC)
    p0, c0 = _rename_pass("P0", 0)
    p3, c3 = _rename_pass("P3", 3)
    seq = Sequential([p0, p3, DeadCodeElimination()])
    out = seq(mod)
    assert len(c0) == 1 and len(c3) == 0  # default opt_level is 2 (PASS.INFRA.3)
    assert "unused" not in out
    with PassContext(opt_level=0):
        out0 = seq(mod)
    assert len(c0) == 2 and "unused" in out0  # DCE has opt_level 1: skipped
    with PassContext(opt_level=3):
        seq(mod)
    assert len(c3) == 1
    # required beats disabled beats opt level
    with PassContext(opt_level=0, required_pass=["DeadCodeElimination"]):
        assert "unused" not in seq(mod)
    with PassContext(opt_level=3, disabled_pass=["P3", "DeadCodeElimination"]):
        out3 = seq(mod)
    assert len(c3) == 1 and "unused" in out3


def test_direct_call_ignores_opt_level():
    mod = parse(SRC)
    with PassContext(opt_level=0):
        assert "unused" not in DeadCodeElimination()(mod)


def test_context_nesting_and_current():
    default = PassContext.current()
    assert default.opt_level == 2
    with PassContext(opt_level=1) as outer:
        assert PassContext.current() is outer
        with PassContext(opt_level=3) as inner:
            assert PassContext.current() is inner
        assert PassContext.current() is outer
    assert PassContext.current().opt_level == 2


def test_config_options_are_checked():
    assert config_options()["relax.FuseOps.max_depth"] is int
    with pytest.raises(RelaxError, match="unknown config option"):
        PassContext(config={"relax.NoSuchPass.option": 1})
    with pytest.raises(RelaxError, match="expects int"):
        PassContext(config={"relax.FuseOps.max_depth": "3"})
    with pytest.raises(RelaxError, match="opt_level"):
        PassContext(opt_level=-1)
    ctx = PassContext(config={"relax.FuseOps.max_depth": 3})
    assert ctx.get_config("relax.FuseOps.max_depth", 256) == 3
    assert PassContext().get_config("relax.FuseOps.max_depth", 256) == 256


def test_instruments_see_nested_passes_in_order():
    mod = parse(SRC)
    p0, _ = _rename_pass("Inner", 0)
    seq = Sequential([p0, Sequential([DeadCodeElimination()], "Nested")], "Outer")
    trace, timing = PassTraceInstrument(), PassTimingInstrument()

    class Events(PassInstrument):
        def __init__(self):
            self.events = []

        def enter_pass_ctx(self):
            self.events.append("enter")

        def exit_pass_ctx(self):
            self.events.append("exit")

        def run_before_pass(self, mod, info):
            self.events.append(("before", info.name))

        def run_after_pass(self, mod, info):
            self.events.append(("after", info.name, "unused" in mod))

    ev = Events()
    with PassContext(instruments=[trace, timing, ev]):
        seq(mod)
    assert trace.names == ["Outer", "Inner", "Nested", "DeadCodeElimination"]
    assert ev.events == ["enter", ("before", "Outer"), ("before", "Inner"), ("after", "Inner", True),
                         ("before", "Nested"), ("before", "DeadCodeElimination"),
                         ("after", "DeadCodeElimination", False), ("after", "Nested", False),
                         ("after", "Outer", False), "exit"]
    assert [t.name for t in timing.timings] == ["Inner", "DeadCodeElimination", "Nested", "Outer"]
    assert [t.depth for t in timing.timings] == [1, 2, 1, 0]
    assert all(t.seconds >= 0 for t in timing.timings)
    assert "DeadCodeElimination" in timing.render()


def test_should_run_can_veto():
    mod = parse(SRC)

    class Veto(PassInstrument):
        def should_run(self, mod, info):
            return info.name != "DeadCodeElimination"

    with PassContext(instruments=[Veto()]):
        out = DeadCodeElimination()(mod)
    assert out is mod


def test_well_formed_instrument_names_the_bad_pass():
    mod = parse(SRC)

    def breaks_scoping(m):
        f = m["main"]
        ghost = rx.Var("ghost", struct_info=f.params[0].struct_info)
        body = rx.SeqExpr(f.body.blocks, ghost)
        return m.with_function("main", rx.Function(f.params, body, f.ret_struct_info, f.is_pure, attrs=f.attrs))

    bad = module_pass(breaks_scoping, "BreaksScoping")
    wf = WellFormedInstrument()
    with PassContext(instruments=[wf]):
        DeadCodeElimination()(mod)
        with pytest.raises(WellFormedError, match="after pass BreaksScoping"):
            bad(mod)
    assert wf.checked == ["DeadCodeElimination"]


def test_function_pass_and_backward_compatible_helpers():
    mod = parse(SRC)
    seen = []

    class Names(FunctionPass):
        name = "Names"

        def transform_function(self, func, m, name):
            seen.append(name)
            return func

    assert Names()(mod) is mod  # nothing changed: the same module
    assert sorted(seen) == ["main", "unused"]
    legacy = function_pass(lambda m: m.without_function("unused"), "DropUnused")
    assert legacy.name == "DropUnused" and "unused" not in legacy(mod)

    class Bad(Pass):
        name = "Bad"

        def transform(self, m):
            return None

    with pytest.raises(RelaxError, match="not an IRModule"):
        Bad()(mod)
    with pytest.raises(TypeError, match="abstract"):  # a pass without transform() cannot be made
        Pass()
    assert isinstance(mod, IRModule)

"""check_pass on TVM pass objects (relax_ref.testing.tvm_bridge.tvm_pass): by name in a fresh worker,
and any pass object -- here one written in Python -- in a forked worker."""

import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from relax_ref.testing import GenConfig, PassCheckError, check_pass, tvm_pass  # noqa: E402
from relax_ref.testing.tvm_bridge import TvmPass, dialect_for  # noqa: E402

pytestmark = pytest.mark.tvm


@relax.expr_functor.mutator
class _SwapSubtract(relax.PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.subtract":
            return relax.Call(call.op, [call.args[1], call.args[0]], call.attrs)
        return call


@tvm.transform.module_pass(opt_level=0, name="SwapSubtract")
def swap_subtract(mod, ctx):
    """A broken TVM pass written in Python: it swaps the operands of every subtraction."""
    out = tvm.IRModule()
    for gv, f in mod.functions.items():
        out[gv] = _SwapSubtract().visit_expr(f) if isinstance(f, relax.Function) else f
    return out


def test_a_tvm_pass_object_is_checked_directly():
    with pytest.raises(PassCheckError) as info:
        check_pass(swap_subtract, max_examples=300, shrink_seconds=3,
                   config=GenConfig(ops=("relax.subtract", "relax.add", "relax.exp"), max_bindings=6))
    out = info.value.outcome
    assert out.symptom == "mismatch" and out.failed_pass == "tvm.SwapSubtract"
    assert "R.subtract" in str(info.value)


def test_a_tvm_pass_by_name_with_arguments():
    p = tvm_pass("DeadCodeElimination", ["main"])
    assert isinstance(p, TvmPass) and p.name == "tvm.DeadCodeElimination"
    try:
        stats = check_pass(p, max_examples=6)
    finally:
        p.close()
    assert stats.programs == 6


def test_the_dialect_follows_the_tvm_version():
    assert dialect_for("0.25.0").startswith("tvm")
    assert dialect_for("unknown") == "tvm"

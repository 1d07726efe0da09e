"""VMShapeLower (PASS.SHAPELOWER.*): the shape heap, checks and shape computations, evaluated."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.testing import check_pass
from relax_ref.transform import LambdaLift, RemovePurityChecking, ToNonDataflow, VMShapeLower

SRC = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), y: R.Tensor(ndim=2, dtype="float32")) -> R.Shape(ndim=2):
        R.func_attr({"relax.force_pure": True})
        n = T.int64()
        k = T.int64()
        z = R.match_cast(y, R.Tensor((k, k * 2 + n), "float32"))
        return R.shape([k * 2 + n, n])
'''


def _calls(func, name):
    return [b.value for blk in func.body.blocks for b in blk.bindings
            if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.ExternFunc)
            and b.value.op.global_symbol == f"vm.builtin.{name}"]


def _ints(call, start):
    return [a.value.value for a in call.args[start:] if isinstance(a, rx.PrimValue)]


def test_slots_codes_and_shape_func():
    out = VMShapeLower(emit_err_ctx=False)(relax_ref.parse(SRC))
    main = out["main"]
    heap = main.body.blocks[0].bindings[0].value
    assert heap.args[1].fields[0].value.value == 3            # slots: n, k, k*2+n (PASS.SHAPELOWER.1)
    matches = _calls(main, "match_shape")
    # x: n stored in slot 0, 2 compared; y: k stored in slot 1, k*2+n skipped, then all compared
    assert [_ints(m, 2) for m in matches] == [[2, 1, 0, 0, 2], [2, 1, 1, 2, 0], [2, 3, 1, 3, 2]]
    assert [_ints(c, 1) for c in _calls(main, "make_shape")] == [[2, 1, 2, 1, 0]]
    assert [n.name_hint for n, f in out.functions_items() if not isinstance(f, rx.Function)] == ["shape_func"]
    assert [str(c.args[2].value) for c in _calls(main, "check_tensor_info")] == ["float32", "float32"]


def test_lowered_module_computes_the_same_and_checks_the_same():
    mod = relax_ref.parse(SRC)
    out = VMShapeLower()(mod)
    x, y = np.zeros((3, 2), "float32"), np.zeros((4, 11), "float32")
    assert tuple(relax_ref.evaluate(out, "main", x, y)) == tuple(relax_ref.evaluate(mod, "main", x, y)) == (11, 3)
    bad = np.zeros((4, 10), "float32")
    with pytest.raises(RelaxError) as before:
        relax_ref.evaluate(mod, "main", x, bad)
    with pytest.raises(RelaxError) as after:
        relax_ref.evaluate(out, "main", x, bad)
    assert before.value.kind == after.value.kind
    assert "ErrorContext(match_cast" in str(after.value) or after.value.kind


def test_no_symbolic_shapes_uses_a_null_heap():
    src = SRC.split("    @R.function")[0] + """    @R.function
    def main(x: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        return x
"""
    out = VMShapeLower(emit_err_ctx=False)(relax_ref.parse(src))
    first = out["main"].body.blocks[0].bindings[0].value
    assert first.op.name == "relax.null_value"
    assert [_ints(m, 2) for m in _calls(out["main"], "match_shape")] == [[2, 0, 3, 0, 2]]


def test_local_functions_are_refused():
    src = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        @R.function
        def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            return y
        return inner(x)
'''
    with pytest.raises(RelaxError, match="LambdaLift"):
        VMShapeLower()(relax_ref.parse(src))


def test_check_pass():
    check_pass(VMShapeLower(), max_examples=15, prepare=[LambdaLift(), ToNonDataflow(), RemovePurityChecking()])

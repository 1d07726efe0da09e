"""EliminateCommonSubexpr, RemoveUnusedOutputs, InlinePrivateFunctions, UpdateParamStructInfo,
LowerAllocTensor and KillAfterLastUse: hand cases and property tests (check_pass)."""

import pytest

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir.functor import ExprVisitor
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.testing import GenConfig, check_pass
from relax_ref.transform import (
    CallTIRRewrite, EliminateCommonSubexpr, InlinePrivateFunctions, KillAfterLastUse, LegalizeOps,
    LowerAllocTensor, RemovePurityChecking, RemoveUnusedOutputs, StaticPlanBlockMemory, ToNonDataflow,
    UpdateParamStructInfo, module_pass,
)
from relax_ref.transform.inline_private_functions import recursive_functions

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


def _eq(a, b):
    relax_ref.assert_structural_equal(a, b)


# ---------------------------------------------------------------------------------------------------
# EliminateCommonSubexpr
# ---------------------------------------------------------------------------------------------------


def test_cse_merges_within_scopes_only():
    before = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c: R.Tensor((), "bool")):
        a = R.add(x, x)
        b = R.add(x, x)
        if c:
            d = R.add(x, x)
            e = R.multiply(d, d)
            r = e
        else:
            f = R.multiply(x, x)
            r = f
        g = R.multiply(x, x)
        out = (a, b, r, g)
        return out
''')
    expected = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c: R.Tensor((), "bool")):
        a = R.add(x, x)
        b = a
        if c:
            d = a
            e = R.multiply(a, a)
            r = e
        else:
            f = R.multiply(x, x)
            r = f
        g = R.multiply(x, x)
        out = (a, a, r, g)
        return out
''')
    _eq(EliminateCommonSubexpr()(before), expected)


def test_cse_call_only_and_impure():
    before = _mod('''
@I.ir_module
class M:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        t1 = (x, x)
        t2 = (x, x)
        p1 = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
        p2 = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
        out = (t1, t2, p1, p2)
        return out
''')
    assert relax_ref.structural_equal(EliminateCommonSubexpr(call_only=True)(before), before)
    out = EliminateCommonSubexpr()(before)
    binds = out["main"].body.blocks[0].bindings
    assert binds[1].value is binds[0].var          # the tuple is merged
    assert isinstance(binds[3].value, rx.Call)      # the impure call is not


# ---------------------------------------------------------------------------------------------------
# RemoveUnusedOutputs / InlinePrivateFunctions
# ---------------------------------------------------------------------------------------------------

OUTPUTS = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        t = M.helper(x)
        a = t[2]
        return a

    @R.function(private=True)
    def helper(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        a = R.add(x, x)
        b = R.multiply(x, x)
        c = R.subtract(x, x)
        return (a, b, c)
'''


def test_remove_unused_outputs():
    out = RemoveUnusedOutputs()(_mod(OUTPUTS))
    expected = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        a = M.helper(x)
        return a

    @R.function(private=True)
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.subtract(x, x)
        return c
''')
    _eq(out, expected)


def test_inline_private_functions_and_recursion():
    out = InlinePrivateFunctions()(_mod(OUTPUTS))
    expected = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        c = R.subtract(x, x)
        return c
''')
    _eq(out, expected)
    rec = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = M.a(x)
        return y

    @R.function(private=True)
    def a(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = M.b(x)
        return y

    @R.function(private=True)
    def b(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = M.a(x)
        return y
''')
    assert recursive_functions(rec) == {"a", "b"}
    _eq(InlinePrivateFunctions()(rec), rec)


def test_inline_substitutes_symbolic_variables():
    mod = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")):
        y = M.sub(x)
        return y

    @R.function(private=True)
    def sub(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n * m",), "float32"):
        n = T.int64()
        m = T.int64()
        y = R.reshape(x, R.shape([n * m]))
        return y
''')
    out = InlinePrivateFunctions()(mod)
    assert list(out) == ["main"]
    shape = out["main"].body.blocks[0].bindings[-1].value.args[1]
    assert [int(v.value) for v in shape.values] == [20]


# ---------------------------------------------------------------------------------------------------
# UpdateParamStructInfo
# ---------------------------------------------------------------------------------------------------


def test_update_param_struct_info():
    mod = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((16,), "float32"), w: R.Tensor((32, 16), "float32")):
        y = R.matmul(w, x)
        return y
''')

    def new(v):
        if v.name_hint == "w":
            return TensorStructInfo(rx.ShapeExpr((64, 16)), "float32")
        return None

    out = UpdateParamStructInfo(new)(mod)
    assert [int(d.value) for d in out["main"].ret_struct_info.shape.values] == [64]
    with pytest.raises(RelaxError):
        UpdateParamStructInfo(lambda v: 3)(mod)


# ---------------------------------------------------------------------------------------------------
# LowerAllocTensor / KillAfterLastUse
# ---------------------------------------------------------------------------------------------------


def test_lower_alloc_tensor_symbolic_size():
    mod = _mod('''
@I.ir_module
class M:
    @R.function(pure=False)
    def main(x: R.Tensor(("n", 3), "float16")):
        n = T.int64()
        y = R.builtin.alloc_tensor(R.shape([n, 3]), R.dtype("float16"), R.prim_value(0), R.str("global"))
        return y
''')
    out = LowerAllocTensor()(mod)
    b = out["main"].body.blocks[0].bindings
    assert b[0].value.op.name == "relax.memory.alloc_storage"
    assert relax_ref.ir.prim_expr.to_str(b[0].value.args[0].values[0]) == "2 * n * 3"   # TVM folds constants only pairwise
    assert b[1].value.op.name == "relax.memory.alloc_tensor"


class _UseAfterKill(ExprVisitor):
    """Fails on a use of a variable after a kill of it in the same SeqExpr."""

    def __init__(self):
        self.killed = set()

    def visit_Var(self, v):
        assert v not in self.killed, f"{v.name_hint} used after it was killed"

    visit_DataflowVar = visit_Var

    def visit_binding(self, b):
        if isinstance(b.value, rx.Call) and isinstance(b.value.op, rx.Op) and b.value.op.name in (
                "relax.memory.kill_tensor", "relax.memory.kill_storage", "relax.vm.kill_object"):
            self.killed.add(b.value.args[0])
            return
        super().visit_binding(b)


@module_pass
def kill_and_check(mod):
    out = KillAfterLastUse()(mod)
    for _, f in out.relax_functions():
        _UseAfterKill().visit_expr(f)
    return out


_LOWER = [LegalizeOps(), ToNonDataflow(), RemovePurityChecking(), CallTIRRewrite()]


@pytest.mark.parametrize("name, pass_, prepare", [
    ("EliminateCommonSubexpr", EliminateCommonSubexpr(), []),
    ("EliminateCommonSubexpr(call_only)", EliminateCommonSubexpr(True), []),
    ("RemoveUnusedOutputs", RemoveUnusedOutputs(), []),
    ("InlinePrivateFunctions", InlinePrivateFunctions(), []),
    ("UpdateParamStructInfo", UpdateParamStructInfo(lambda v: v.struct_info), []),
    ("LowerAllocTensor", LowerAllocTensor(), _LOWER),
    ("KillAfterLastUse", kill_and_check, _LOWER + [StaticPlanBlockMemory()]),
], ids=lambda x: x if isinstance(x, str) else "")
def test_preserves_meaning(name, pass_, prepare):
    check_pass(pass_, prepare=prepare, config=GenConfig(), max_examples=15)

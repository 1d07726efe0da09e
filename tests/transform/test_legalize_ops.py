"""The LegalizeOps pass (PASS.LEGALIZE.*) and the minimal pass protocol of relax_ref.transform."""

import numpy as np
import pytest

import relax_ref
from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.errors import RelaxError, UnsupportedError
from relax_ref.ir import expr as rx
from relax_ref.ir import tir
from relax_ref.ir.module import IRModule
from relax_ref.script.parser import parse as _parse
from relax_ref.transform import LegalizeOps, Pass, Sequential, function_pass
from relax_ref.transform.legalize_ops import know_all_shape_values, prim_func_key

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"


def parse(text):
    return _parse(HEADER + text, check_well_formed=False)


def calls_in(func):
    """(binding name, callee) of every call binding of a Relax function, in order."""
    out = []

    class V(relax_ref.ir.functor.ExprVisitor):
        def visit_binding(self, b):
            if isinstance(b.value, rx.Call):
                op = b.value.op
                name = op.name if isinstance(op, rx.Op) else getattr(op, "name_hint", type(op).__name__)
                callee = b.value.args[0].name_hint if name == "relax.call_tir" else None
                out.append((b.var.name_hint, name, callee))
            super().visit_binding(b)

    V().visit_expr(func)
    return out


SIMPLE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.add(x, y)
            c = R.add(a, b)
            d = R.add(x, R.const(1.0, "float32"))
            e = R.add(x, R.const(2.0, "float32"))
            f = R.exp(e)
            R.output(c, d, f)
        return (c, d, f)
"""


def test_names_and_deduplication():
    mod = LegalizeOps()(parse(SIMPLE))
    prims = sorted(gv.name_hint for gv, _ in mod.prim_funcs())
    assert prims == ["add", "add1", "add2", "tir_exp"]
    got = {v: callee for v, _, callee in calls_in(mod["main"])}
    # structurally equal kernels (up to buffer names) are shared, as TVM's BlockBuilder does
    assert got["a"] == got["b"] == got["c"] == "add"
    assert got["d"] == "add1" and got["e"] == "add2" and got["f"] == "tir_exp"


def test_existing_function_names_are_avoided():
    text = SIMPLE.replace("    @R.function", """    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(2),), "float32")):
        A[0] = T.float32(1)

    @R.function""", 1)
    mod = LegalizeOps()(parse(text))
    assert isinstance(mod["add"], tir.PrimFunc) and len(mod["add"].params) == 1
    assert sorted(gv.name_hint for gv, _ in mod.prim_funcs()) == ["add", "add1", "add2", "add3", "tir_exp"]


def test_results_are_preserved_end_to_end():
    before = parse(SIMPLE)
    after = LegalizeOps()(before)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.ones((2, 3), "float32")
    for a, b in zip(relax_ref.evaluate(before, "main", x, y), relax_ref.evaluate(after, "main", x, y)):
        np.testing.assert_array_equal(a, b)


def test_idempotent_and_no_change_returns_input():
    once = LegalizeOps()(parse(SIMPLE))
    assert LegalizeOps()(once) is once
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")):
        z = R.add(x, y)
        return z
""")
    assert LegalizeOps()(m) is m  # unknown output shape: not legalized (TVM skips it too)


def test_unknown_shapes_are_skipped():
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=2), s: R.Shape(["a", "b"]), y: R.Tensor((3,), "float32")):
        u = R.exp(x)
        v = R.exp(y)
        return (u, v)
""")
    out = LegalizeOps()(m)
    names = [(v, op) for v, op, _ in calls_in(out["main"])]
    assert names == [("u", "relax.exp"), ("v", "relax.call_tir")]


def test_symbolic_shapes_and_tir_vars():
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "int64"), k: R.Shape(["m"])):
        m = T.int64()
        n = T.int64()
        y = R.clip(x, R.prim_value(0), R.prim_value(m))
        z = R.add(y, y)
        return z
""")
    out = LegalizeOps()(m)
    clip_call = [b.value for b in out["main"].body.blocks[0].bindings][0]
    assert clip_call.op == rx.Op("relax.call_tir") and len(clip_call.args) == 3
    assert [v.name for v in clip_call.args[2].values] == ["m"]
    kernel = out["tir_clip"]
    assert kernel.params[-1].name == "m" and kernel.params[-1].dtype == "int64"
    res = relax_ref.evaluate(out, "main", np.array([[-1, 2, 5, 9]] * 2), relax_ref.ShapeValue([4]))
    np.testing.assert_array_equal(res, [[0, 4, 8, 8]] * 2)


def test_skip_ops():
    mod = LegalizeOps(skip_ops=["relax.exp"])(parse(SIMPLE))
    ops = [op for _, op, _ in calls_in(mod["main"])]
    assert ops.count("relax.exp") == 1 and "relax.add" not in ops


def test_customize_and_iteration():
    """A custom legalization may produce other operators; they are legalized in a later round."""

    def exp_as_multiply(call, ctx):
        (x,) = call.args
        return rx.Call(rx.Op("relax.multiply"), (rx.Call(rx.Op("relax.add"), (x, x)), x))

    mod = LegalizeOps(customize={"relax.exp": exp_as_multiply})(parse(SIMPLE))
    ops = [op for _, op, _ in calls_in(mod["main"])]
    assert set(ops) == {"relax.call_tir"}
    assert "multiply" in mod and "tir_exp" not in mod
    x = np.full((2, 3), 2.0, "float32")
    res = relax_ref.evaluate(mod, "main", x, x)
    e = x + 2.0
    np.testing.assert_array_equal(res[2], (e + e) * e)


def test_customize_returning_none_keeps_the_call():
    mod = LegalizeOps(customize={"relax.exp": lambda call, ctx: None})(parse(SIMPLE))
    assert "relax.exp" in [op for _, op, _ in calls_in(mod["main"])]


def test_impure_result_is_wrapped_in_call_pure_packed():
    def packed(call, ctx):
        return rx.Call(rx.ExternFunc("my_exp"), call.args, sinfo_args=(call.struct_info,))

    mod = LegalizeOps(customize={"relax.exp": packed})(parse(SIMPLE))
    (f_call,) = [b.value for blk in mod["main"].body.blocks for b in blk.bindings if b.var.name_hint == "f"]
    assert f_call.op == rx.Op("relax.call_pure_packed")
    assert f_call.args[0] == rx.ExternFunc("my_exp")


def test_non_terminating_legalization_is_an_error():
    def loop(call, ctx):
        return rx.Call(rx.Op("relax.exp"), call.args)

    with pytest.raises(RelaxError, match="fixpoint"):
        LegalizeOps(customize={"relax.exp": loop})(parse(SIMPLE))


def test_legalization_errors_carry_the_span():
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.bitwise_not(x)
        return y
""")
    with pytest.raises(UnsupportedError) as ei:
        LegalizeOps()(m)
    assert ei.value.span is not None and ei.value.span.line == 7


def test_nested_function_and_if():
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
        @R.function
        def inner(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            z = R.negative(y)
            return z
        if c:
            r = R.exp(x)
        else:
            r = inner(x)
        return r
""")
    out = LegalizeOps()(m)
    assert "tir_negative" in out and "tir_exp" in out
    x = np.array([1.0, -2.0, 0.5], "float32")
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", x, np.array(True)), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(relax_ref.evaluate(out, "main", x, np.array(False)), -x)


def test_prim_value_operands():
    m = parse("""
@I.ir_module
class Module:
    @R.function
    def main(p: R.Prim("int64"), x: R.Tensor((2,), "int64")):
        q = R.add(p, p)
        y = R.multiply(x, p)
        return (q, y)
""")
    out = LegalizeOps()(m)
    ops = [op for _, op, _ in calls_in(out["main"])]
    assert ops == ["relax.add", "relax.call_tir"]  # prim + prim stays, as in TVM
    q, y = relax_ref.evaluate(out, "main", 3, np.array([1, 2]))
    assert q == 6
    np.testing.assert_array_equal(y, [3, 6])


def test_know_all_shape_values_and_keys():
    from relax_ref.ir.struct_info import (
        ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
    )

    s = rx.Var("s", struct_info=ShapeStructInfo(ndim=1))
    assert know_all_shape_values(TensorStructInfo(rx.ShapeExpr((2,)), "float32"))
    assert not know_all_shape_values(TensorStructInfo(s, "float32"))
    assert know_all_shape_values(TupleStructInfo((PrimStructInfo("int64"), ShapeStructInfo((3,)))))
    assert not know_all_shape_values(TupleStructInfo((ShapeStructInfo(ndim=1),)))
    assert not know_all_shape_values(ObjectStructInfo())
    mod = LegalizeOps()(parse(SIMPLE))
    assert prim_func_key(mod["add"]) != prim_func_key(mod["add1"])


def test_pass_protocol():
    lo = LegalizeOps()
    assert isinstance(lo, Pass) and lo.name == "LegalizeOps"
    seen = []

    def record(mod):
        seen.append(sorted(mod))
        return mod

    seq = Sequential([function_pass(record, "before"), lo, function_pass(record)])
    out = seq(parse(SIMPLE))
    assert seen[0] == ["main"] and "tir_exp" in seen[1]
    assert seq.name == "Sequential" and "before" in repr(seq)
    assert isinstance(out, IRModule)
    with pytest.raises(TypeError):
        lo("not a module")


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM's LegalizeOps on whole modules
# ---------------------------------------------------------------------------------------------------

WHOLE = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((1, 4), "float32"), z: R.Tensor((3,), "int32")):
        n = T.int64()
        with R.dataflow():
            a = R.add(x, y)
            b = R.exp(a)
            e = R.divide(z, z)
            g = R.nn.gelu(x)
            h = R.clip(x, 0.0, 6.0)
            w = R.where(R.greater(x, y), x, y)
            k = R.add(z, R.const(2, "int32"))
            m = R.logical_xor(z, z)
            q = R.bitwise_xor(z, z)
            R.output(a, b, e, g, h, w, k, m, q)
        return (a, b, e, g, h, w, k, m, q)
"""


@pytest.mark.tvm
def test_whole_module_matches_tvm():
    tvm = pytest.importorskip("tvm")
    from tvm import relax as tr
    from tvm.script import ir as I, relax as R, tirx as T

    theirs_mod = tr.transform.LegalizeOps()(tvm.script.from_source(WHOLE, extra_vars={"I": I, "R": R, "T": T}))
    theirs = _parse(theirs_mod.script(), check_well_formed=False)
    ours = LegalizeOps()(parse(WHOLE))
    assert sorted(ours) == sorted(theirs)
    assert structural_equal(ours, theirs)

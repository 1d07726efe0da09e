"""Structural equality up to renaming of bound variables (spec rule EXPR.EQ.1, EXPR.EQ.2)."""

import numpy as np
import pytest

from relax_ref.analysis.structural_equal import (
    StructuralMismatchError, assert_structural_equal, first_difference, structural_equal, structural_hash,
)
from relax_ref.ir import (
    BindingBlock, Call, Constant, DataflowBlock, DataflowVar, Function, GlobalVar, If, IRModule, MatchCast,
    Op, PrimValue, SeqExpr, ShapeExpr, Tuple, TupleGetItem, Var, VarBinding,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)

ADD, MUL = Op("relax.add"), Op("relax.multiply")


def tensor(*dims, dtype="float32"):
    return TensorStructInfo(ShapeExpr(list(dims)), dtype)


def make_func(names=("x", "y", "z"), sym="n", op=ADD, df=True, ann_dtype="float32"):
    """f(x: (n, 4)) { y = op(x, x); z = mul(y, y); return z } built from scratch each call."""
    n = P.PrimVar(sym)
    x = Var(names[0], struct_info=tensor(n, 4))
    vcls = DataflowVar if df else Var
    y = vcls(names[1], struct_info=tensor(n, 4, dtype=ann_dtype))
    z = Var(names[2], struct_info=tensor(n, 4))
    blk = (DataflowBlock if df else BindingBlock)([VarBinding(y, Call(op, (x, x))), VarBinding(z, Call(MUL, (y, y)))])
    return Function([x], SeqExpr([blk], z), tensor(n, 4), attrs={"global_symbol": "main"})


def test_alpha_equivalent_functions_are_equal():
    a = make_func()
    b = make_func(names=("p", "q", "r"), sym="m")
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)
    assert_structural_equal(a, b)


@pytest.mark.parametrize("kw", [dict(op=MUL), dict(df=False), dict(ann_dtype="float16")])
def test_differences_are_detected(kw):
    assert not structural_equal(make_func(), make_func(**kw))


def test_mismatch_message_names_the_path_in_words():
    with pytest.raises(StructuralMismatchError) as info:
        assert_structural_equal(make_func(), make_func(op=MUL))
    err = info.value
    assert isinstance(err, AssertionError)
    assert err.path == "binding 'y' (dataflow block 1, binding 1) > value > callee"
    assert "lhs: R.add" in str(err) and "rhs: R.multiply" in str(err)
    msg = first_difference(make_func(), make_func(ann_dtype="float16"))
    assert msg.startswith("structural mismatch at binding 'y' (dataflow block 1, binding 1) > bound variable > struct info")
    assert 'float32' in msg and 'float16' in msg


def test_mismatch_report_prints_both_functions_and_marks_the_line():
    with pytest.raises(StructuralMismatchError) as info:
        assert_structural_equal(make_func(), make_func(op=MUL))
    err = info.value
    marked_l = [ln for ln in err.lhs_text.splitlines() if ln.startswith(">>")]
    marked_r = [ln for ln in err.rhs_text.splitlines() if ln.startswith(">>")]
    assert len(marked_l) == 1 and "= R.add(x, x)" in marked_l[0]
    assert len(marked_r) == 1 and "= R.multiply(x, x)" in marked_r[0]
    assert "def main(" in err.lhs_text and "return z" in err.rhs_text
    assert err.lhs_text in str(err) and err.rhs_text in str(err)


TIR_MODULE = """
from tvm.script import ir as I, tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def scale(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("compute"):
                vi = T.axis.spatial(8, i)
                b[vi] = a[vi] * T.float32(2)
"""


def test_mismatch_report_marks_tir_lines_and_block_names_need_strict():
    import relax_ref

    a = relax_ref.parse(TIR_MODULE)
    with pytest.raises(StructuralMismatchError) as info:
        assert_structural_equal(a, relax_ref.parse(TIR_MODULE.replace("T.float32(2)", "T.float32(3)")))
    err = info.value
    assert err.path == "PrimFunc 'scale' > block 'root' > loop over 'i' > block 'compute' > stored value"
    assert [ln for ln in err.lhs_text.splitlines() if ln.startswith(">>")][0].endswith("b[vi] = a[vi] * T.float32(2.0)")
    assert [ln for ln in err.rhs_text.splitlines() if ln.startswith(">>")][0].endswith("b[vi] = a[vi] * T.float32(3.0)")
    renamed = relax_ref.parse(TIR_MODULE.replace('"compute"', '"scale_block"'))
    assert_structural_equal(a, renamed)
    with pytest.raises(StructuralMismatchError) as info:
        assert_structural_equal(a, renamed, strict=True)
    assert "a TIR block named 'compute'" in str(info.value) and "'scale_block'" in str(info.value)
    assert [ln for ln in info.value.rhs_text.splitlines() if ln.startswith(">>")][0].endswith('T.sblock("scale_block"):')


def test_mismatch_of_plain_objects_prints_them():
    with pytest.raises(StructuralMismatchError) as info:
        assert_structural_equal(tensor(4), tensor(5))
    assert info.value.path == "dimension 1"
    assert 'R.Tensor((4,), dtype="float32")' in str(info.value)


class _ForeignModule:
    """Stands for a tvm.IRModule: only the type's module name matters (nothing is imported)."""


_ForeignModule.__module__ = "tvm.ir.module"
_ForeignModule.__qualname__ = "IRModule"


def test_foreign_objects_are_rejected_with_their_type_name():
    from relax_ref.errors import TypeMismatchError

    for fn in (structural_equal, assert_structural_equal, first_difference):
        with pytest.raises(TypeMismatchError, match=r"tvm\.ir\.module\.IRModule"):
            fn(_ForeignModule(), make_func())
        with pytest.raises(TypeMismatchError, match=r"tvm\.ir\.module\.IRModule"):
            fn(make_func(), _ForeignModule())
    with pytest.raises(TypeMismatchError, match="structural_hash"):
        structural_hash(_ForeignModule())
    with pytest.raises(TypeMismatchError, match=r"got a .*_Other"):
        structural_equal(type("_Other", (), {})(), 1)


def test_bijection_is_enforced():
    """Using x twice vs using two different params once each is not alpha-equivalent."""
    x1, y1 = Var("x", struct_info=tensor(4)), Var("y", struct_info=tensor(4))
    f1 = Function([x1, y1], SeqExpr([], Call(ADD, (x1, x1))), tensor(4))
    x2, y2 = Var("x", struct_info=tensor(4)), Var("y", struct_info=tensor(4))
    f2 = Function([x2, y2], SeqExpr([], Call(ADD, (x2, y2))), tensor(4))
    assert not structural_equal(f1, f2)


def test_free_vars_need_identity_unless_mapped():
    a, b = Var("a", struct_info=tensor(4)), Var("b", struct_info=tensor(4))
    e1, e2 = Call(ADD, (a, a)), Call(ADD, (b, b))
    assert not structural_equal(e1, e2)
    assert structural_equal(e1, e2, map_free_vars=True)
    assert structural_equal(e1, Call(ADD, (a, a)))
    n, m = P.PrimVar("n"), P.PrimVar("m")
    assert not structural_equal(tensor(n, 2), tensor(m, 2))
    assert structural_equal(tensor(n, 2), tensor(m, 2), map_free_vars=True)
    assert structural_equal(tensor(n, 2), tensor(n, 2))


def test_symbolic_vars_defined_by_match_cast():
    def build(name):
        x = Var("x", struct_info=TensorStructInfo(None, "float32", 2))
        a = P.PrimVar(name)
        y = Var("y", struct_info=tensor(a, 3))
        sh = Var("s", struct_info=ShapeStructInfo([a * 2]))
        blk = BindingBlock([MatchCast(y, x, tensor(a, 3)), VarBinding(sh, ShapeExpr([a * 2]))])
        return Function([x], SeqExpr([blk], sh), ShapeStructInfo(ndim=1))
    assert structural_equal(build("a"), build("b"))


def test_constants_compare_bytes_nan_aware():
    c = lambda v, dt="float32": Constant(np.array(v, dtype=dt))
    assert structural_equal(c([1.0, np.nan]), c([1.0, np.nan]))
    assert structural_equal(c(np.float32(np.nan)), c(-np.float32(np.nan)))
    assert not structural_equal(c([0.0]), c([-0.0]))
    assert not structural_equal(c([1.0]), c([1.0], "float64"))
    assert not structural_equal(c([[1.0, 2.0]]), c([1.0, 2.0]))
    assert not structural_equal(c([1, 2], "int32"), c([1, 3], "int32"))


def test_module_matches_functions_by_name_and_globals_by_name():
    def mod(order):
        g_main, g_h = GlobalVar("main"), GlobalVar("helper")
        x = Var("x", struct_info=tensor(4))
        h = Function([x], SeqExpr([], x), tensor(4))
        y = Var("y", struct_info=tensor(4))
        r = Var("r", struct_info=tensor(4))
        main = Function([y], SeqExpr([BindingBlock([VarBinding(r, Call(g_h, (y,)))])], r), tensor(4),
                        attrs={"global_symbol": "main"})
        items = [(g_main, main), (g_h, h)]
        return IRModule(dict(items if order else items[::-1]), attrs={"a": 1})
    assert structural_equal(mod(True), mod(False))
    m2 = mod(True).with_attrs({"a": 2})
    assert not structural_equal(mod(True), m2)
    assert not structural_equal(mod(True), mod(True).without_function("helper"))


def test_plain_block_boundaries_are_not_significant():
    def build(split):
        x = Var("x", struct_info=tensor(4))
        y, z = Var("y", struct_info=tensor(4)), Var("z", struct_info=tensor(4))
        b1, b2 = VarBinding(y, Call(ADD, (x, x))), VarBinding(z, Call(ADD, (y, y)))
        blocks = [BindingBlock([b1]), BindingBlock([]), BindingBlock([b2])] if split else [BindingBlock([b1, b2])]
        return Function([x], SeqExpr(blocks, z), tensor(4))
    assert structural_equal(build(True), build(False))

    def df(split):
        x = Var("x", struct_info=tensor(4))
        y, z = Var("y", struct_info=tensor(4)), Var("z", struct_info=tensor(4))
        b1, b2 = VarBinding(y, Call(ADD, (x, x))), VarBinding(z, Call(ADD, (y, y)))
        blocks = [DataflowBlock([b1]), DataflowBlock([b2])] if split else [DataflowBlock([b1, b2])]
        return Function([x], SeqExpr(blocks, z), tensor(4))
    assert not structural_equal(df(True), df(False))


def test_if_branches_and_struct_info():
    def build(swap):
        c = Var("c", struct_info=TensorStructInfo(ShapeExpr([]), "bool"))
        x = Var("x", struct_info=tensor(4))
        t, e = Var("t", struct_info=tensor(4)), Var("e", struct_info=tensor(4))
        tb = SeqExpr([BindingBlock([VarBinding(t, Call(ADD, (x, x)))])], t)
        eb = SeqExpr([BindingBlock([VarBinding(e, Call(MUL, (x, x)))])], e)
        y = Var("y", struct_info=tensor(4))
        branches = (eb, tb) if swap else (tb, eb)
        return Function([c, x], SeqExpr([BindingBlock([VarBinding(y, If(c, *branches))])], y), tensor(4))
    assert structural_equal(build(False), build(False))
    assert not structural_equal(build(False), build(True))


def test_struct_info_kinds():
    n = P.PrimVar("n")
    cases = [ObjectStructInfo(), PrimStructInfo("int64"), PrimStructInfo(value=n), ShapeStructInfo([n, 2]),
             ShapeStructInfo(ndim=2), TensorStructInfo(None, "float32", 2), tensor(n, 2),
             TupleStructInfo([tensor(n, 2), ObjectStructInfo()]),
             FuncStructInfo([tensor(n, 2)], tensor(n, 2)), FuncStructInfo.opaque(ObjectStructInfo())]
    for i, a in enumerate(cases):
        for j, b in enumerate(cases):
            assert structural_equal(a, b) == (i == j), (a, b)


def test_func_struct_info_params_define_their_vars():
    def callable_(name):
        k = P.PrimVar(name)
        return FuncStructInfo([tensor(k)], tensor(k))
    assert structural_equal(callable_("k"), callable_("j"))


def test_tuple_and_prim_values():
    x = Var("x", struct_info=tensor(4))
    assert structural_equal(TupleGetItem(Tuple((x, x)), 1), TupleGetItem(Tuple((x, x)), 1))
    assert not structural_equal(TupleGetItem(Tuple((x, x)), 1), TupleGetItem(Tuple((x, x)), 0))
    assert structural_equal(PrimValue(P.IntImm(3, "int64")), PrimValue(P.IntImm(3, "int64")))
    assert not structural_equal(PrimValue(P.IntImm(3, "int64")), PrimValue(P.IntImm(3, "int32")))
    assert not structural_equal(Call(ADD, (x, x), attrs={"a": 1}), Call(ADD, (x, x), attrs={"a": True}))


# ---------------------------------------------------------------------------------------------------
# TensorIR
# ---------------------------------------------------------------------------------------------------


def make_prim_func(names=("A", "B", "i", "vi"), key="tir.noalias", extra_attrs=None, nested_seq=False):
    ah, bh = P.PrimVar(names[0], "handle"), P.PrimVar(names[1], "handle")
    n = P.PrimVar("n", "int64")
    A = tir.Buffer(names[0], (n,), "float32")
    B = tir.Buffer(names[1], (n,), "float32")
    i, vi = P.PrimVar(names[2], "int64"), P.PrimVar(names[3], "int64")
    one = P.IntImm(1, "int64")
    store = tir.BufferStore(B, tir.BufferLoad(A, (vi,)) * P.FloatImm(2.0, "float32"), (vi,))
    body = tir.SeqStmt([tir.SeqStmt([store])]) if nested_seq else store
    blk = tir.Block("b", (tir.IterVar(vi, tir.Range(P.IntImm(0, "int64"), n)),),
                    (tir.BufferRegion(A, (tir.Range(vi, one),)),), (tir.BufferRegion(B, (tir.Range(vi, one),)),), body)
    loop = tir.For(i, P.IntImm(0, "int64"), n, "serial", tir.BlockRealize((i,), None, blk))
    root = tir.BlockRealize((), None, tir.Block("root", body=loop))
    attrs = {key: True}
    attrs.update(extra_attrs or {})
    return tir.PrimFunc((ah, bh), root, ((ah, A), (bh, B)), attrs=attrs)


def test_prim_funcs_alpha_equivalence():
    a = make_prim_func()
    b = make_prim_func(names=("X", "Y", "j", "vj"))
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_prim_func_representation_details_ignored():
    a = make_prim_func()
    assert structural_equal(a, make_prim_func(key="tirx.noalias"))
    assert structural_equal(a, make_prim_func(extra_attrs={"s_tir": True}))
    assert structural_equal(a, make_prim_func(nested_seq=True))
    assert not structural_equal(a, make_prim_func(extra_attrs={"op_pattern": 0}))


def test_tir_buffer_mismatch_detected():
    n = P.PrimVar("n", "int64")
    A = tir.Buffer("A", (n,), "float32")
    A2 = tir.Buffer("A", (n,), "float16")
    i = P.PrimVar("i", "int64")
    s1 = tir.For(i, P.IntImm(0, "int64"), n, "serial", tir.BufferStore(A, P.FloatImm(1.0, "float32"), (i,)))
    s2 = tir.For(i, P.IntImm(0, "int64"), n, "serial", tir.BufferStore(A2, P.FloatImm(1.0, "float32"), (i,)))
    assert not structural_equal(s1, s2, map_free_vars=True)
    s3 = tir.For(i, P.IntImm(0, "int64"), n, "parallel", tir.BufferStore(A, P.FloatImm(1.0, "float32"), (i,)))
    assert not structural_equal(s1, s3)
    assert structural_equal(s1, s1)


def test_scalar_expressions():
    x = P.PrimVar("x", "int32")
    assert structural_equal(x + 1, x + 1)
    assert not structural_equal(P.Div(x, P.IntImm(2, "int32")), P.FloorDiv(x, P.IntImm(2, "int32")))
    assert structural_equal(P.FloatImm(float("nan"), "float32"), P.FloatImm(float("nan"), "float32"))
    assert structural_equal(P.PrimCall("float32", "tir.exp", ()), P.PrimCall("float32", "tirx.exp", ()))
    assert not structural_equal(P.PrimCall("float32", "tir.exp", ()), P.PrimCall("float32", "tir.log", ()))
    v1, v2 = P.PrimVar("a", "int32"), P.PrimVar("b", "int32")
    assert structural_equal(P.Let(v1, x, v1 + 1), P.Let(v2, x, v2 + 1))

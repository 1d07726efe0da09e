"""The normalizer (spec NORM.*): ANF, inference, annotation rules, function return rule, GlobalVar
struct info, If/SeqExpr struct info, block merging, operator hooks and the builder API."""

import numpy as np
import pytest

from relax_ref.static.normalize import Normalizer, normalize_function, normalize_module
from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.analysis.struct_info_ops import format_struct_info
from relax_ref.static.well_formed import check_well_formed
from relax_ref.errors import StructInfoError, UnsupportedError, WellFormedError, Span
from relax_ref.ir import (
    BindingBlock, Call, Constant, DataflowBlock, DataflowVar, Function, GlobalVar, If, IRModule, MatchCast,
    Op, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple, TupleGetItem, Var, VarBinding,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)
from relax_ref.ops import registry
from relax_ref.ops.registry import OpDef

ADD, MUL = Op("relax.add"), Op("relax.multiply")
SHAPE_OF, PRINT = Op("relax.shape_of"), Op("relax.print")
CALL_TIR = Op("relax.call_tir")


def T(*dims, dtype="float32"):
    return TensorStructInfo(ShapeExpr(tuple(dims)), dtype)


def TN(ndim=-1, dtype="float32"):
    return TensorStructInfo(None, dtype, ndim)


def func(params, blocks, body, ret=None, name="main", pure=True):
    return Function(tuple(params), SeqExpr(tuple(blocks), body), ret, pure, attrs={"global_symbol": name})


def module(**funcs):
    return IRModule({GlobalVar(k): v for k, v in funcs.items()})


def bindings(f):
    return [b for blk in f.body.blocks for b in blk.bindings]


def sig(f):
    """[(kind, name, struct info text)] of a normalized function's bindings."""
    return [(type(b.var).__name__, b.var.name_hint, format_struct_info(b.var.struct_info)) for b in bindings(f)]


# ---------------------------------------------------------------------------------------------------
# ANF and inference (NORM.ANF.*, NORM.INFER.*)
# ---------------------------------------------------------------------------------------------------


def test_anf_binds_nested_calls_before_their_user_with_tvm_names():
    x = Var("x", struct_info=T(3))
    y, z = Var("y"), DataflowVar("z")
    o = Var("o")
    f = func([x], [BindingBlock([VarBinding(y, Call(ADD, (Call(MUL, (x, x)), Call(MUL, (x, x)))))]),
                   DataflowBlock([VarBinding(z, Call(ADD, (Call(MUL, (y, y)), y))), VarBinding(o, z)])], o)
    out = normalize_module(module(main=f))["main"]
    assert sig(out) == [
        ("Var", "gv", 'R.Tensor((3,), dtype="float32")'),
        ("Var", "gv1", 'R.Tensor((3,), dtype="float32")'),
        ("Var", "y", 'R.Tensor((3,), dtype="float32")'),
        ("DataflowVar", "lv", 'R.Tensor((3,), dtype="float32")'),
        ("DataflowVar", "z", 'R.Tensor((3,), dtype="float32")'),
        ("Var", "o", 'R.Tensor((3,), dtype="float32")'),
    ]
    assert [type(b).__name__ for b in out.body.blocks] == ["BindingBlock", "DataflowBlock"]
    assert out.ret_struct_info == T(3)
    check_well_formed(normalize_module(module(main=f)))


def test_leaves_get_struct_info():
    x = Var("x", struct_info=T(2))
    t = Var("t")
    c = Constant(np.zeros((2, 5), "int32"))
    body = Tuple((c, ShapeExpr((3, 4)), PrimValue(P.IntImm(7, "int64"))))
    f = func([x], [BindingBlock([VarBinding(t, body)])], t)
    out = normalize_module(module(main=f))["main"]
    tsi = bindings(out)[0].var.struct_info
    assert tsi == TupleStructInfo((T(2, 5, dtype="int32"), ShapeStructInfo((3, 4)),
                                   PrimStructInfo("int64", P.IntImm(7, "int64"))))


def test_tuple_fields_and_tuple_get_item():
    x = Var("x", struct_info=T(3))
    a, b = Var("a"), Var("b")
    f = func([x], [BindingBlock([VarBinding(a, Tuple((x, Call(SHAPE_OF, (x,))))),
                                 VarBinding(b, TupleGetItem(a, 1))])], b)
    out = normalize_module(module(main=f))["main"]
    assert sig(out)[0][1] == "gv"  # the shape_of call inside the tuple is bound first
    assert out.ret_struct_info == ShapeStructInfo((3,))


def test_tuple_get_item_errors():
    x = Var("x", struct_info=T(3))
    b = Var("b")
    f = func([x], [BindingBlock([VarBinding(b, TupleGetItem(x, 0))])], b)
    with pytest.raises(StructInfoError, match="TupleGetItem needs a tuple") as ei:
        normalize_module(module(main=f))
    assert ei.value.binding == "b" and ei.value.function == "main"
    t = Var("t", struct_info=TupleStructInfo((T(3),)))
    f = func([t], [BindingBlock([VarBinding(b, TupleGetItem(t, 1))])], b)
    with pytest.raises(StructInfoError, match="Index out of bounds"):
        normalize_module(module(main=f))


# ---------------------------------------------------------------------------------------------------
# Binding annotations (NORM.ANNOT.*)
# ---------------------------------------------------------------------------------------------------


def test_annotation_stamped_on_fresh_call_with_leaf_args():
    x = Var("x", struct_info=T(3))
    z = Var("z", struct_info=TN(1, "void"))
    f = func([x], [BindingBlock([VarBinding(z, Call(ADD, (x, x)))])], z)
    out = normalize_module(module(main=f))["main"]
    b = bindings(out)[0]
    assert b.var.struct_info == TN(1, "void") and b.value.struct_info == TN(1, "void")
    assert b.var is z  # the annotated var already has its final struct info (NORM.VAR.1)


def test_annotation_more_specific_than_inference_is_kept():
    x = Var("x", struct_info=TN(1))
    z = Var("z", struct_info=T(3))
    f = func([x], [BindingBlock([VarBinding(z, Call(ADD, (x, x)))])], z)
    out = normalize_module(module(main=f))["main"]
    assert bindings(out)[0].var.struct_info == T(3)


def test_annotation_lost_when_arguments_are_normalized():
    x = Var("x", struct_info=T(3))
    y = Var("y", struct_info=TN(1, "void"))
    f = func([x], [BindingBlock([VarBinding(y, Call(ADD, (Call(MUL, (x, x)), x)))])], y)
    out = normalize_module(module(main=f))["main"]
    assert sig(out)[1] == ("Var", "y", 'R.Tensor((3,), dtype="float32")')


def test_annotation_on_typed_value_is_checked_then_ignored():
    x = Var("x", struct_info=T(3))
    w = Var("w", struct_info=ObjectStructInfo())
    t = Var("t", struct_info=TupleStructInfo((TN(1, "void"), ObjectStructInfo())))
    f = func([x], [BindingBlock([VarBinding(w, x), VarBinding(t, Tuple((x, x)))])], t)
    out = normalize_module(module(main=f))["main"]
    assert sig(out) == [("Var", "w", 'R.Tensor((3,), dtype="float32")'),
                        ("Var", "t", 'R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))')]


def test_invalid_annotation_is_a_struct_info_error_with_location():
    x = Var("x", struct_info=T(3))
    span = Span("prog.py", 7, 9, 7, 20)
    w = Var("w", struct_info=T(3, dtype="int32"))
    f = func([x], [BindingBlock([VarBinding(w, x, span=span)])], w)
    with pytest.raises(StructInfoError, match="Invalid annotation") as ei:
        normalize_module(module(main=f))
    assert ei.value.binding == "w" and ei.value.function == "main" and ei.value.span == span


def test_plain_normalizer_keeps_declared_var_struct_info():
    x = Var("x", struct_info=T(3))
    w = Var("w", struct_info=ObjectStructInfo())
    f = func([x], [BindingBlock([VarBinding(w, x)])], w)
    out = normalize_module(module(main=f), script_annotations=False)["main"]
    assert bindings(out)[0].var is w and out.ret_struct_info == ObjectStructInfo()


# ---------------------------------------------------------------------------------------------------
# Functions (NORM.FUNC.1) and GlobalVars (NORM.GLOBAL.*)
# ---------------------------------------------------------------------------------------------------


def _add_func(ret, name="main"):
    x = Var("x", struct_info=T(3))
    y = Var("y")
    return func([x], [BindingBlock([VarBinding(y, Call(ADD, (x, x)))])], y, ret=ret, name=name)


def test_function_return_rule():
    assert normalize_module(module(main=_add_func(None)))["main"].ret_struct_info == T(3)
    # a less specific annotation is replaced by the body's struct info
    assert normalize_module(module(main=_add_func(TN(1))))["main"].ret_struct_info == T(3)
    # an incompatible annotation is kept (checked at run time only)
    assert normalize_module(module(main=_add_func(T(3, dtype="int32"))))["main"].ret_struct_info == \
        T(3, dtype="int32")


def test_function_return_erases_match_cast_symbols():
    n = P.PrimVar("n")
    a = P.PrimVar("a")
    x = Var("x", struct_info=T(n))
    y, z = Var("y"), Var("z")
    f = func([x], [BindingBlock([MatchCast(y, x, T(a)), VarBinding(z, Call(ADD, (y, y)))])],
             Tuple((x, z)))
    out = normalize_module(module(main=f))["main"]
    assert out.body.struct_info == TupleStructInfo((T(n), T(a)))  # a in scope inside the body
    assert out.ret_struct_info == TupleStructInfo((T(n), TN(1)))  # but not in the signature


def test_global_var_struct_info_for_relax_and_prim_funcs():
    n = P.PrimVar("n", "int64")
    pa, pb, pm = P.PrimVar("a", "handle"), P.PrimVar("b", "handle"), P.PrimVar("m", "int64")
    A = tir.Buffer("A", (n,), "float32")
    B = tir.Buffer("B", (n,), "float32")
    i = P.PrimVar("i", "int64")
    body = tir.For(i, P.IntImm(0, "int64"), n, "serial",
                   tir.BufferStore(B, tir.BufferLoad(A, (i,)), (i,)))
    pf = tir.PrimFunc((pa, pb, pm), body, ((pa, A), (pb, B)))
    mod = IRModule({GlobalVar("kern"): pf, GlobalVar("main"): _add_func(None)})
    out = normalize_module(mod)
    assert out.get_global_var("kern").struct_info == FuncStructInfo(
        (T(n), T(n), PrimStructInfo("int64")), TupleStructInfo(()), False)
    assert out.get_global_var("main").struct_info == FuncStructInfo((T(3),), T(3), True)
    check_well_formed(out)


def test_calls_use_struct_info_known_at_normalization_time():
    # helper has no return annotation: a call from a function normalized before it sees R.Object,
    # a call from a function normalized after it sees the inferred return (TVMScript parse order)
    helper = _add_func(None, "helper")
    gh = GlobalVar("helper")

    def caller(name):
        x = Var("x", struct_info=T(3))
        r = Var("r")
        return func([x], [BindingBlock([VarBinding(r, Call(gh, (x,)))])], r, name=name)

    mod = IRModule({GlobalVar("first"): caller("first"), gh: helper, GlobalVar("last"): caller("last")})
    out = normalize_module(mod)
    assert out["first"].ret_struct_info == ObjectStructInfo()
    assert out["last"].ret_struct_info == T(3)
    for name in ("first", "last"):
        assert bindings(out[name])[0].value.op is out.get_global_var("helper")
    check_well_formed(out)


def test_call_argument_mismatch_is_reported_at_the_binding():
    helper = _add_func(None, "helper")
    gh = GlobalVar("helper")
    x = Var("x", struct_info=T(4))
    r = Var("r")
    main = func([x], [BindingBlock([VarBinding(r, Call(gh, (x,)))])], r)
    with pytest.raises(StructInfoError, match="Argument 0 type mismatch") as ei:
        normalize_module(IRModule({gh: helper, GlobalVar("main"): main}))
    assert ei.value.binding == "r" and ei.value.function == "main"


def test_unknown_global_var_is_an_error():
    x = Var("x", struct_info=T(3))
    r = Var("r")
    main = func([x], [BindingBlock([VarBinding(r, Call(GlobalVar("nowhere"), (x,)))])], r)
    with pytest.raises(WellFormedError, match="nowhere"):
        normalize_module(module(main=main))


# ---------------------------------------------------------------------------------------------------
# If, SeqExpr, blocks, void (NORM.IF.1, NORM.SEQ.1, NORM.BLOCK.*, NORM.VOID.1)
# ---------------------------------------------------------------------------------------------------


def test_if_struct_info_is_the_lca_of_erased_branches():
    x = Var("x", struct_info=T(3))
    c = Var("c", struct_info=TensorStructInfo(ShapeExpr(()), "bool"))
    k = P.PrimVar("k")
    y1, y2, r = Var("y"), Var("y"), Var("r")
    m = Var("m")
    then = SeqExpr((BindingBlock((VarBinding(y1, Call(ADD, (x, x))),)),), y1)
    other = SeqExpr((BindingBlock((MatchCast(m, x, T(k)), VarBinding(y2, Call(ADD, (m, m))))),), y2)
    f = func([x, c], [BindingBlock([VarBinding(r, If(c, then, other))])], r)
    out = normalize_module(module(main=f))["main"]
    iff = bindings(out)[0].value
    assert iff.false_branch.struct_info == T(k)
    assert iff.struct_info == TN(1)  # k is erased when leaving the branch
    assert out.ret_struct_info == TN(1)
    check_well_formed(normalize_module(module(main=f)))


def test_nested_seq_is_flattened_and_blocks_merged():
    x = Var("x", struct_info=T(3))
    a, b, c, d = Var("a"), Var("b"), Var("c"), Var("d")
    inner = SeqExpr((BindingBlock((VarBinding(b, Call(ADD, (x, x))),)),), b)
    f = func([x], [BindingBlock([VarBinding(a, x)]), BindingBlock([]), BindingBlock([VarBinding(c, inner)]),
                   BindingBlock([VarBinding(d, c)])], d)
    out = normalize_module(module(main=f))["main"]
    assert len(out.body.blocks) == 1
    assert [b.var.name_hint for b in bindings(out)] == ["a", "b", "c", "d"]
    check_well_formed(normalize_module(module(main=f)))


def test_void_var_uses_become_the_unit_literal():
    x = Var("x", struct_info=T(3))
    u = Var("_")
    f = func([x], [BindingBlock([VarBinding(u, Call(PRINT, (StringImm(""), x)))])], u, pure=False)
    out = normalize_module(module(main=f))["main"]
    assert isinstance(out.body.body, Tuple) and out.body.body.fields == ()
    assert out.ret_struct_info == TupleStructInfo(())


# ---------------------------------------------------------------------------------------------------
# MatchCast, errors, operator hooks
# ---------------------------------------------------------------------------------------------------


def test_impossible_match_cast_is_an_error():
    x = Var("x", struct_info=T(3))
    y = Var("y")
    f = func([x], [BindingBlock([MatchCast(y, x, T(4))])], y)
    with pytest.raises(StructInfoError, match="impossible to match cast") as ei:
        normalize_module(module(main=f))
    assert ei.value.binding == "y"


def test_undefined_and_doubly_defined_vars():
    x = Var("x", struct_info=T(3))
    ghost, y = Var("ghost"), Var("y")
    f = func([x], [BindingBlock([VarBinding(y, Call(ADD, (ghost, x)))])], y)
    with pytest.raises(WellFormedError, match="ghost is not defined"):
        normalize_module(module(main=f))
    y = Var("y")
    f = func([x], [BindingBlock([VarBinding(y, x), VarBinding(y, x)])], y)
    with pytest.raises(WellFormedError, match="defined more than once"):
        normalize_module(module(main=f))


def test_inline_prim_func_is_rejected():
    x = Var("x", struct_info=T(3))
    y = Var("y")
    pf = tir.PrimFunc((), tir.Evaluate(P.IntImm(0, "int32")))
    f = func([x], [BindingBlock([VarBinding(y, pf)])], x)
    with pytest.raises(WellFormedError, match="Inline PrimFunc"):
        normalize_module(module(main=f))


def test_operator_without_infer_is_unsupported(monkeypatch):
    name = "relax.test_analysis_no_infer"
    fake = OpDef(name=name, script="R.test_analysis_no_infer")
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda n: fake if n == name else real(n))
    x = Var("x", struct_info=T(3))
    y = Var("y")
    f = func([x], [BindingBlock([VarBinding(y, Call(Op(name), (x,)))])], y)
    with pytest.raises(UnsupportedError, match="no struct-info inference"):
        normalize_module(module(main=f))


def _prim_kernel(n_dims=(4,)):
    pa, pb = P.PrimVar("a", "handle"), P.PrimVar("b", "handle")
    A = tir.Buffer("A", n_dims, "float32")
    B = tir.Buffer("B", n_dims, "float32")
    i = P.PrimVar("i", "int32")
    body = tir.For(i, P.IntImm(0, "int32"), P.IntImm(n_dims[0], "int32"), "serial",
                   tir.BufferStore(B, tir.BufferLoad(A, (i,)), (i,)))
    return tir.PrimFunc((pa, pb), body, ((pa, A), (pb, B)))


def test_call_tir_arguments_become_an_inline_tuple():
    gk = GlobalVar("kern")
    x = Var("x", struct_info=T(4))
    t, y, z = Var("t"), Var("y"), Var("z")
    f = func([x], [BindingBlock([
        VarBinding(t, Tuple((x,))),
        VarBinding(y, Call(CALL_TIR, (gk, t), sinfo_args=(T(4),))),  # var bound to a tuple: inlined
        VarBinding(z, Call(CALL_TIR, (gk, y), sinfo_args=(T(4),))),  # a single tensor: wrapped
    ])], z)
    out = normalize_module(IRModule({gk: _prim_kernel(), GlobalVar("main"): f}))
    bs = bindings(out["main"])
    assert isinstance(bs[1].value.args[1], Tuple)
    assert bs[1].value.args[1].fields == (x,)
    assert isinstance(bs[2].value.args[1], Tuple) and bs[2].value.args[1].fields == (bs[1].var,)
    check_well_formed(out)


def test_call_tir_tuple_parameter_is_split():
    gk = GlobalVar("kern")
    p = Var("p", struct_info=TupleStructInfo((T(4),)))
    y = Var("y")
    f = func([p], [BindingBlock([VarBinding(y, Call(CALL_TIR, (gk, p), sinfo_args=(T(4),)))])], y)
    out = normalize_module(IRModule({gk: _prim_kernel(), GlobalVar("main"): f}))
    bs = bindings(out["main"])
    assert isinstance(bs[0].value, TupleGetItem) and bs[0].var.name_hint == "gv"
    assert bs[1].value.args[1].fields == (bs[0].var,)
    check_well_formed(out)


# ---------------------------------------------------------------------------------------------------
# Idempotence and the builder API
# ---------------------------------------------------------------------------------------------------


def test_normalizing_normalized_ir_is_the_identity():
    x = Var("x", struct_info=T(3))
    c = Var("c", struct_info=TensorStructInfo(ShapeExpr(()), "bool"))
    y1, y2, r, z = Var("y"), Var("y"), Var("r"), Var("z")
    then = SeqExpr((BindingBlock((VarBinding(y1, Call(ADD, (x, x))),)),), y1)
    other = SeqExpr((BindingBlock((VarBinding(y2, Call(MUL, (Call(ADD, (x, x)), x))),)),), y2)
    f = func([x, c], [BindingBlock([VarBinding(r, If(c, then, other)), VarBinding(z, Tuple((r, Call(SHAPE_OF, (r,)))))])],
             z)
    once = normalize_module(module(main=f))
    twice = normalize_module(once)
    assert structural_equal(once, twice)
    assert twice.get_global_var("main") is once.get_global_var("main")


def test_builder_api():
    n = P.PrimVar("n")
    x = Var("x", struct_info=T(n, 4))
    bb = Normalizer()
    bb.begin_scope([x])
    bb.begin_dataflow_block()
    lv = bb.emit(Call(ADD, (Call(MUL, (x, x)), x)))
    m = P.PrimVar("m")
    mc = bb.match_cast(lv, T(m, 4), "mc")
    gv = bb.emit_output(Call(SHAPE_OF, (mc,)), "out")
    block = bb.end_block()
    seq = SeqExpr((block,), gv)
    bb.end_scope()
    assert [type(b.var).__name__ for b in block.bindings] == ["DataflowVar", "DataflowVar", "DataflowVar", "Var"]
    assert [b.var.name_hint for b in block.bindings] == ["lv", "lv1", "mc", "out"]
    assert gv.struct_info == ShapeStructInfo((m, P.IntImm(4, "int64")))
    assert bb.lookup_binding(lv).op == ADD
    fn = bb.make_function([x], replace_sinfo(seq, ShapeStructInfo(ndim=2)), None)
    assert fn.ret_struct_info == ShapeStructInfo(ndim=2)
    check_well_formed(fn)
    with pytest.raises(WellFormedError):
        Normalizer().emit(x)


def replace_sinfo(e, si):
    from dataclasses import replace

    return replace(e, struct_info=si)


def test_normalize_function_resolves_globals_against_the_module():
    mod = normalize_module(module(helper=_add_func(None, "helper")))
    x = Var("x", struct_info=T(3))
    r = Var("r")
    f = func([x], [BindingBlock([VarBinding(r, Call(mod.get_global_var("helper"), (x,)))])], r)
    out = normalize_function(f, mod)
    assert out.ret_struct_info == T(3)
    assert bindings(out)[0].value.op is mod.get_global_var("helper")

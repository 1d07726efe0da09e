"""Well-formedness (spec WF.*): ill-formed programs are rejected with the right error class, message
and location (span line, function, binding, symbol); well-formed ones pass.

Programs expressible in TVMScript are written as text and go through the parser, the normalizer and
the checker (``relax_ref.script.parser.parse``); the rest are built as (already normalized) IR."""

from dataclasses import replace

import pytest

from relax_ref.static.normalize import normalize_module
from relax_ref.static.well_formed import check_prim_func, check_well_formed, is_well_formed
from relax_ref.errors import RelaxError, StructInfoError, WellFormedError
from relax_ref.ir import (
    BindingBlock, Call, DataflowBlock, DataflowVar, Function, GlobalVar, If, IRModule, Op, SeqExpr, ShapeExpr,
    Tuple, Var, VarBinding,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import FuncStructInfo, TensorStructInfo
from program_texts import COPY

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"
ADD = Op("relax.add")


def T(*dims, dtype="float32"):
    return TensorStructInfo(ShapeExpr(tuple(dims)), dtype)


def parse(text):
    from relax_ref.script.parser import parse as _parse

    return _parse(HEADER + text)


def module_text(body, pure=True, params='x: R.Tensor((3,), "float32")', extra=""):
    deco = "@R.function" if pure else "@R.function(pure=False)"
    lines = body.strip("\n").splitlines()
    return (f"@I.ir_module\nclass Module:\n{extra}    {deco}\n    def main({params}):\n"
            + "\n".join("        " + ln for ln in lines) + "\n")


def _calls_g(params: str) -> str:
    """A module whose ``main(params)`` calls ``g``, a function of one ``(n, 4)`` tensor."""
    g = '    @R.function\n    def g(a: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):\n        return a\n\n'
    return module_text("cls = Module\ny = cls.g(x)\nreturn y", params=params, extra=g)


def _call_tir_main(kernel: str, call: str, n: int) -> str:
    """A module of ``kernel`` (a member's text) and a ``main`` of one ``(n,)`` tensor ``x`` that binds
    ``y`` to ``call`` (reading the kernel through ``cls``) and returns it."""
    return module_text(f"cls = Module\n{call}\nreturn y", params=f'x: R.Tensor(({n},), "float32")', extra=kernel + "\n")


# (id, text, error class, message regex, expected attributes) -- line numbers count the header line
TEXT_CASES = [
    ("W16_impure_in_pure_function", module_text('R.print(x, format="{}")\nreturn x'),
     WellFormedError, "annotated as pure but contains an impure call", {"function": "main"}),
    ("W15_impure_in_dataflow_block", module_text(
        'with R.dataflow():\n    y = R.add(x, x)\n    R.print(y, format="{}")\n    R.output(y)\nreturn y', pure=False),
     WellFormedError, "Impure function call relax.print occurs within a dataflow block",
     {"function": "main", "line": 8}),
    ("W14_if_in_dataflow_block", module_text(
        'with R.dataflow():\n    if c:\n        y = R.add(x, x)\n    else:\n        y = x\n    R.output(y)\nreturn y',
        params='x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")'),
     WellFormedError, "an If cannot appear in a dataflow block", {"binding": "y", "line": 7}),
    ("W9_local_function_uses_dataflow_var", module_text(
        'with R.dataflow():\n    y = R.add(x, x)\n    @R.function\n    def inner(a: R.Tensor((3,), "float32")) -> '
        'R.Tensor((3,), "float32"):\n        return y\n    z = inner(x)\n    R.output(z)\nreturn z'),
     WellFormedError, "DataflowVar y is used outside DataflowBlock", {"function": "main", "binding": "inner"}),
    ("W3_global_symbol_mismatch", module_text('R.func_attr({"global_symbol": "other"})\nreturn x'),
     WellFormedError, "global_symbol 'other' differs from the GlobalVar name 'main'", {"function": "main"}),
    ("W17_force_pure_needs_pure", module_text('R.func_attr({"relax.force_pure": True})\nreturn x', pure=False),
     WellFormedError, "relax.force_pure", {"function": "main"}),
    ("W8_undefined_symbolic_var", module_text('m = T.int64()\ny: R.Tensor((m,), "float32") = R.add(x, x)\nreturn y'),
     WellFormedError, "Symbolic Var m is not defined", {"symbol": "m", "binding": "y", "line": 7}),
    ("W8_undefined_symbolic_var_in_shape", module_text('m = T.int64()\ns = R.shape([m, 2])\nreturn s'),
     WellFormedError, "Symbolic Var m is not defined", {"symbol": "m", "binding": "s"}),
    ("W21_stamped_shape_provably_wrong", module_text('y: R.Tensor((4,), "float32") = R.add(x, x)\nreturn y'),
     StructInfoError, "All information in StructInfo annotations must be correct", {"binding": "y", "line": 6}),
    ("W21_stamped_dtype_provably_wrong", module_text('y: R.Tensor((3,), "int32") = R.add(x, x)\nreturn y'),
     StructInfoError, "All information in StructInfo annotations must be correct", {"binding": "y"}),
    ("W21_stamped_kind_wrong", module_text('y: R.Shape([3]) = R.add(x, x)\nreturn y'),
     StructInfoError, "All information in StructInfo annotations must be correct", {"binding": "y"}),
    ("NORM_invalid_var_to_var_annotation", module_text('z: R.Tensor((3,), "int32") = x\nreturn z'),
     StructInfoError, "Invalid annotation", {"binding": "z", "function": "main", "line": 6}),
    ("NORM_impossible_match_cast", module_text('y = R.match_cast(x, R.Tensor((4,), "float32"))\nreturn y'),
     StructInfoError, "impossible to match cast", {"binding": "y", "line": 6}),
    ("NORM_call_argument_mismatch", _calls_g('x: R.Tensor((3, 5), "float32")'), StructInfoError,
     "Argument 0 type mismatch", {"binding": "y", "function": "main", "line": 11}),
    ("NORM_call_argument_unknown_ndim", _calls_g('x: R.Tensor("float32")'), StructInfoError,
     "Argument 0 type mismatch", {"binding": "y"}),
    ("OP_assert_condition_not_bool", module_text('R.assert_op(x, format="bad")\nreturn x', pure=False),
     StructInfoError, "must be a boolean scalar", {"function": "main"}),
    ("OP_shape_of_non_tensor", module_text('s = R.shape_of(R.shape([1]))\nreturn s'),
     StructInfoError, "R.shape_of needs a tensor argument", {"binding": "s"}),
    ("W20_call_tir_out_sinfo_incompatible",
     _call_tir_main(COPY, 'y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((7,), "float32"))', 5),
     StructInfoError, "out_sinfo` argument for R.call_tir must be compatible", {"binding": "y", "line": 15}),
    ("W20_call_tir_input_mismatch",
     _call_tir_main('''    @T.prim_func(private=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]
''', 'y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((4,), "float32"))', 5),
     StructInfoError, "Argument 0 type mismatch", {"binding": "y"}),
    ("OP_call_tir_inplace_bad_index",
     _call_tir_main('''    @T.prim_func(private=True)
    def inc(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + T.float32(1)
''', 'y = R.call_tir_inplace(cls.inc, (x,), inplace_indices=[3], out_sinfo=R.Tensor((4,), "float32"))', 4),
     StructInfoError, "in-place index 0 is 3, outside -1..0", {"binding": "y"}),
]


@pytest.mark.parametrize("case", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_ill_formed_text_is_rejected(case):
    _id, text, cls, msg, attrs = case
    with pytest.raises(cls, match=msg) as ei:
        parse(text)
    err = ei.value
    for k, v in attrs.items():
        if k == "line":
            assert err.span is not None and err.span.line == v, (err.span, str(err))
        else:
            assert getattr(err, k) == v, (k, str(err))


def test_well_formed_text_passes():
    mod = parse(module_text('with R.dataflow():\n    y = R.add(x, x)\n    R.output(y)\nreturn y'))
    check_well_formed(mod)
    assert is_well_formed(mod)


# ---------------------------------------------------------------------------------------------------
# Programs built as IR (not expressible in TVMScript)
# ---------------------------------------------------------------------------------------------------


def normalized(params, bindings, body, name="main", pure=True, block=BindingBlock):
    f = Function(tuple(params), SeqExpr((block(tuple(bindings)),), body), None, pure,
                 attrs={"global_symbol": name})
    return normalize_module(IRModule({GlobalVar(name): f}))


def with_func(mod, name, f):
    return IRModule({gv: (f if gv.name_hint == name else fn) for gv, fn in mod.functions_items()})


def add_module():
    x = Var("x", struct_info=T(3))
    y = Var("y")
    return normalized([x], [VarBinding(y, Call(ADD, (x, x)))], y)


def expect(mod, cls, msg, **attrs):
    with pytest.raises(cls, match=msg) as ei:
        check_well_formed(mod)
    for k, v in attrs.items():
        assert getattr(ei.value, k) == v, (k, str(ei.value))
    assert not is_well_formed(mod)
    return ei.value


def test_W1_missing_struct_info():
    mod = add_module()
    f = mod["main"]
    blk = f.body.blocks[0]
    b = blk.bindings[0]
    bad = replace(b, value=replace(b.value, struct_info=None))
    f2 = replace(f, body=replace(f.body, blocks=(replace(blk, bindings=(bad,)),)))
    expect(with_func(mod, "main", f2), WellFormedError, "expression Call has no struct info", binding="y")


def test_W2_foreign_global_var():
    mod = add_module()
    x = Var("x", struct_info=T(3))
    r = Var("r", struct_info=T(3))
    stranger = GlobalVar("main", struct_info=mod.get_global_var("main").struct_info)
    call = Call(stranger, (x,), struct_info=T(3))
    f = Function((x,), SeqExpr((BindingBlock((VarBinding(r, call),)),), r, struct_info=T(3)), T(3),
                 attrs={"global_symbol": "user"}, struct_info=FuncStructInfo((T(3),), T(3)))
    gu = GlobalVar("user", struct_info=f.struct_info)
    mod2 = IRModule({mod.get_global_var("main"): mod["main"], gu: f})
    expect(mod2, WellFormedError, "GlobalVar main is not defined", function="user")


def test_W4_parameter_shared_by_two_functions():
    mod = add_module()
    f = mod["main"]
    g = replace(f, attrs=f.attrs.with_items(global_symbol="other"))
    mod2 = IRModule({mod.get_global_var("main"): f, GlobalVar("other", struct_info=f.struct_info): g})
    expect(mod2, WellFormedError, r'parameter x is shared by function "main" and function "other"')


def test_W5_symbolic_var_shared_by_two_functions():
    n = P.PrimVar("n")
    fs = []
    for name in ("main", "other"):
        x = Var("x", struct_info=T(n))
        y = Var("y")
        fs.append(normalized([x], [VarBinding(y, Call(ADD, (x, x)))], y, name=name)[name])
    mod = IRModule({GlobalVar(f.global_symbol, struct_info=f.struct_info): f for f in fs})
    expect(mod, WellFormedError, r"symbolic variable n occurs in both function", symbol="n")


def test_W6_var_used_before_definition():
    x = Var("x", struct_info=T(3))
    y, z = Var("y", struct_info=T(3)), Var("z", struct_info=T(3))
    f = Function((x,), SeqExpr((BindingBlock((VarBinding(y, Call(ADD, (z, x), struct_info=T(3))),
                                              VarBinding(z, x))),), y, struct_info=T(3)), T(3),
                 attrs={"global_symbol": "main"}, struct_info=FuncStructInfo((T(3),), T(3)))
    mod = IRModule({GlobalVar("main", struct_info=f.struct_info): f})
    expect(mod, WellFormedError, "Var z is not defined", binding="y", function="main")


def test_W7_var_defined_twice():
    mod = add_module()
    f = mod["main"]
    blk = f.body.blocks[0]
    f2 = replace(f, body=replace(f.body, blocks=(replace(blk, bindings=blk.bindings * 2),)))
    expect(with_func(mod, "main", f2), WellFormedError, "Var y is defined more than once", binding="y")


def test_W8_symbol_defined_only_inside_an_expression():
    n = P.PrimVar("n")
    x = Var("x", struct_info=T(n * 2))
    f = Function((x,), SeqExpr((), x, struct_info=T(n * 2)), T(n * 2), attrs={"global_symbol": "main"},
                 struct_info=FuncStructInfo((T(n * 2),), T(n * 2)))
    e = expect(IRModule({GlobalVar("main", struct_info=f.struct_info): f}), WellFormedError,
               "Symbolic Var n is not defined", symbol="n")
    assert e.function == "main"


def test_W8_return_annotation_with_undefined_symbol():
    x = Var("x", struct_info=T(3))
    k = P.PrimVar("k")
    f = Function((x,), SeqExpr((), x, struct_info=T(3)), T(k), attrs={"global_symbol": "main"},
                 struct_info=FuncStructInfo((T(3),), T(k)))
    expect(IRModule({GlobalVar("main", struct_info=f.struct_info): f}), WellFormedError,
           "Symbolic Var k is not defined", symbol="k")


def test_W9_dataflow_var_outside_its_block():
    x = Var("x", struct_info=T(3))
    y = DataflowVar("y", struct_info=T(3))
    blk = DataflowBlock((VarBinding(y, Call(ADD, (x, x), struct_info=T(3))),))
    f = Function((x,), SeqExpr((blk,), y, struct_info=T(3)), T(3), attrs={"global_symbol": "main"},
                 struct_info=FuncStructInfo((T(3),), T(3)))
    expect(IRModule({GlobalVar("main", struct_info=f.struct_info): f}), WellFormedError,
           "DataflowVar y is used outside DataflowBlock", function="main")
    bad = BindingBlock((VarBinding(y, Call(ADD, (x, x), struct_info=T(3))),))
    f2 = replace(f, body=replace(f.body, blocks=(bad,), body=x))
    expect(IRModule({GlobalVar("main", struct_info=f.struct_info): f2}), WellFormedError,
           "DataflowVar y is defined outside DataflowBlock", binding="y")


def test_W10_branch_var_used_after_if():
    x = Var("x", struct_info=T(3))
    c = Var("c", struct_info=TensorStructInfo(ShapeExpr(()), "bool"))
    a, r = Var("a", struct_info=T(3)), Var("r", struct_info=T(3))
    then = SeqExpr((BindingBlock((VarBinding(a, Call(ADD, (x, x), struct_info=T(3))),)),), a, struct_info=T(3))
    other = SeqExpr((), x, struct_info=T(3))
    blk = BindingBlock((VarBinding(r, If(c, then, other, struct_info=T(3))),))
    f = Function((x, c), SeqExpr((blk,), Tuple((r, a), struct_info=None), struct_info=T(3)), T(3),
                 attrs={"global_symbol": "main"})
    f = replace(f, body=replace(f.body, body=replace(f.body.body, struct_info=f.body.body.fields[0].struct_info)))
    f = replace(f, struct_info=FuncStructInfo((T(3), c.struct_info), T(3)))
    expect(IRModule({GlobalVar("main", struct_info=f.struct_info): f}), WellFormedError, "Var a is not defined")


def test_W11_seq_expr_as_a_value():
    mod = add_module()
    f = mod["main"]
    x = f.params[0]
    w = Var("w", struct_info=T(3))
    inner = SeqExpr((), x, struct_info=T(3))
    blk = f.body.blocks[0]
    f2 = replace(f, body=replace(f.body, blocks=(replace(blk, bindings=blk.bindings + (VarBinding(w, inner),)),)))
    expect(with_func(mod, "main", f2), WellFormedError, "a SeqExpr may only be a function body", binding="w")


def test_W12_nested_call_is_not_anf():
    mod = add_module()
    f = mod["main"]
    x = f.params[0]
    b = f.body.blocks[0].bindings[0]
    nested = replace(b.value, args=(Call(ADD, (x, x), struct_info=T(3)), x))
    f2 = replace(f, body=replace(f.body, blocks=(BindingBlock((replace(b, value=nested),)),)))
    expect(with_func(mod, "main", f2), WellFormedError, "argument 0 of a call is a Call, not a leaf", binding="y")


def test_W13_missing_return_struct_info():
    mod = add_module()
    f2 = replace(mod["main"], ret_struct_info=None)
    expect(with_func(mod, "main", f2), WellFormedError, "function has no ret_struct_info")


def test_W18_inline_prim_func():
    mod = add_module()
    f = mod["main"]
    pf = tir.PrimFunc((), tir.Evaluate(P.IntImm(0, "int32")))
    w = Var("w", struct_info=T(3))
    blk = f.body.blocks[0]
    f2 = replace(f, body=replace(f.body, blocks=(replace(blk, bindings=blk.bindings + (VarBinding(w, pf),)),)))
    expect(with_func(mod, "main", f2), WellFormedError, "Inline PrimFunc is disallowed", binding="w")


def test_W19_call_tir_arguments_not_inline():
    text = """
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        t = (x,)
        y = R.call_tir(cls.copy, t, out_sinfo=R.Tensor((4,), "float32"))
        return y
"""
    mod = parse(text)  # normalization inlines the tuple
    f = mod["main"]
    t_var = f.body.blocks[0].bindings[0].var
    b = f.body.blocks[0].bindings[1]
    f2 = replace(f, body=replace(f.body, blocks=(replace(f.body.blocks[0], bindings=(
        f.body.blocks[0].bindings[0], replace(b, value=replace(b.value, args=(b.value.args[0], t_var))))),)))
    expect(with_func(mod, "main", f2), WellFormedError, "not in the operator's normal form", binding="y")


def test_W22_variable_less_specific_than_value_is_not_allowed_the_other_way():
    mod = add_module()
    f = mod["main"]
    b = f.body.blocks[0].bindings[0]
    narrow = Var("y", struct_info=T(3))
    wide_value = replace(b.value, struct_info=TensorStructInfo(None, "float32", 1))
    f2 = replace(f, body=replace(f.body, blocks=(BindingBlock((VarBinding(narrow, wide_value),)),), body=narrow))
    expect(with_func(mod, "main", f2), StructInfoError, "cannot be assigned to a variable of type", binding="y")


def test_W23_shape_values_must_be_integers():
    x = Var("x", struct_info=T(3))
    s = Var("s")
    mod = normalized([x], [VarBinding(s, ShapeExpr((P.FloatImm(1.5, "float32"),)))], s)
    expect(mod, WellFormedError, "ShapeExpr values must be integers, got dtype float32", binding="s")


def test_WF_DATAFLOW_4_recursion_in_dataflow_only_with_spec_strict():
    text = """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        with R.dataflow():
            y = cls.main(x)
            R.output(y)
        return y
"""
    mod = parse(text)  # TVM 0.25 accepts it
    with pytest.raises(WellFormedError, match="may recurse") as ei:
        check_well_formed(mod, spec_strict=True)
    assert ei.value.binding == "y"


def test_check_struct_info_false_skips_struct_info_rules():
    mod = add_module()
    f = mod["main"]
    b = f.body.blocks[0].bindings[0]
    f2 = replace(f, body=replace(f.body, blocks=(BindingBlock((replace(b, value=replace(
        b.value, struct_info=T(4))),)),)))
    bad = with_func(mod, "main", f2)
    expect(bad, StructInfoError, "All information in StructInfo annotations must be correct")
    check_well_formed(bad, check_struct_info=False)


# ---------------------------------------------------------------------------------------------------
# PrimFuncs (WF.TIR.*)
# ---------------------------------------------------------------------------------------------------


def _kernel(extent=None, store_buf=None, bm_key=None):
    pa, pb = P.PrimVar("a", "handle"), P.PrimVar("b", "handle")
    n = P.PrimVar("n", "int64")
    A = tir.Buffer("A", (n,), "float32")
    B = tir.Buffer("B", (n,), "float32")
    i = P.PrimVar("i", "int64")
    target = store_buf if store_buf is not None else B
    body = tir.For(i, P.IntImm(0, "int64"), extent if extent is not None else n, "serial",
                   tir.BufferStore(target, tir.BufferLoad(A, (i,)), (i,)))
    return tir.PrimFunc((pa, pb), body, ((pa if bm_key is None else bm_key, A), (pb, B)))


def test_prim_func_checks():
    check_prim_func(_kernel())
    with pytest.raises(WellFormedError, match="variable m is used but not defined") as ei:
        check_prim_func(_kernel(extent=P.PrimVar("m", "int64")), "kern")
    assert ei.value.symbol == "m" and ei.value.function == "kern"
    with pytest.raises(WellFormedError, match="buffer C is used but not declared"):
        check_prim_func(_kernel(store_buf=tir.Buffer("C", (4,), "float32")))
    with pytest.raises(WellFormedError, match="is not a parameter"):
        check_prim_func(_kernel(bm_key=P.PrimVar("q", "handle")))
    mod = add_module()
    bad = IRModule({mod.get_global_var("main"): mod["main"], GlobalVar("k"): _kernel(extent=P.PrimVar("m", "int64"))})
    expect(bad, WellFormedError, "variable m is used but not defined", function="k")


def test_every_error_is_a_relax_error_with_a_location():
    for _id, text, cls, _msg, _attrs in TEXT_CASES:
        with pytest.raises(RelaxError) as ei:
            parse(text)
        assert ei.value.span is not None and ei.value.span.line > 0, _id
        assert ei.value.function is not None, _id

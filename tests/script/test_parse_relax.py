"""Parsing Relax TVMScript into raw IR (the parser/normalizer contract; spec TEXT.*)."""

import math

import numpy as np
import pytest

from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ops import registry
from relax_ref.script.parser import parse_function, parse_module

from script_helpers import parse_unknown_ops_with, record_call

# ---------------------------------------------------------------------------------------------------
# Operators: the parser resolves R.xxx through the registry. Operators not registered (yet) get a
# test-only entry that records positional arguments and keyword attributes.
# ---------------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _test_ops(monkeypatch):
    parse_unknown_ops_with(monkeypatch, record_call)


def _bindings(func):
    return [b for blk in func.body.blocks for b in blk.bindings]


def _binding(func, name):
    for b in _bindings(func):
        if b.var.name_hint == name:
            return b
    raise KeyError(name)


HEADER = "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tirx as T\n"

# ---------------------------------------------------------------------------------------------------
# Signatures and struct-info annotations
# ---------------------------------------------------------------------------------------------------


def test_param_annotations_all_forms():
    text = HEADER + '''
@R.function
def f(a: R.Tensor(("n", 4), "float32"), b: R.Tensor(("n * 2", 2), dtype="float32"),
      c: R.Tensor("float32", ndim=2), d: R.Tensor(ndim=3), e: R.Tensor, s: R.Shape(["n", 4]),
      s2: R.Shape(ndim=2), p: R.Prim("int64"), pv: R.Prim(value="m"), p3: R.Prim(value=3),
      t: R.Tuple(R.Tensor((2,), "int32"), R.Object), o: R.Object,
      fn: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"), True),
      sc: R.Tensor((), "bool")) -> R.Tensor(("n", 4), "float32"):
    return a
'''
    f = parse_function(text, normalize=False)
    ps = {p.name_hint: p for p in f.params}
    a = ps["a"].struct_info
    assert isinstance(a, si.TensorStructInfo) and a.dtype == "float32" and a.ndim == 2
    n = a.shape.values[0]
    assert isinstance(n, P.PrimVar) and n.name == "n" and n.dtype == "int64"
    assert a.shape.values[1] == P.IntImm(4, "int64")
    b = ps["b"].struct_info
    assert isinstance(b.shape.values[0], P.Mul) and b.shape.values[0].a is n  # same variable as in a
    assert ps["c"].struct_info == si.TensorStructInfo(None, "float32", 2)
    assert ps["d"].struct_info == si.TensorStructInfo(None, "void", 3)
    assert ps["e"].struct_info == si.TensorStructInfo()
    assert ps["s"].struct_info.values[0] is n
    assert ps["s2"].struct_info == si.ShapeStructInfo(None, 2)
    assert ps["p"].struct_info == si.PrimStructInfo("int64")
    m = ps["pv"].struct_info.value
    assert isinstance(m, P.PrimVar) and m.name == "m"
    assert ps["p3"].struct_info == si.PrimStructInfo("int64", P.IntImm(3, "int64"))
    t = ps["t"].struct_info
    assert isinstance(t, si.TupleStructInfo) and t.fields[1] == si.ObjectStructInfo()
    assert ps["o"].struct_info == si.ObjectStructInfo()
    fn = ps["fn"].struct_info
    assert isinstance(fn, si.FuncStructInfo) and fn.purity is True and len(fn.params) == 1
    assert ps["sc"].struct_info.ndim == 0 and ps["sc"].struct_info.dtype == "bool"
    assert f.ret_struct_info.shape.values[0] is n
    assert f.attrs["global_symbol"] == "f" and f.is_pure


def test_symbolic_vars_may_be_used_before_their_bare_occurrence():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
    return x
''', normalize=False)
    n = f.params[1].struct_info.shape.values[0]
    assert f.params[0].struct_info.shape.values[0] == P.Mul(n, P.IntImm(2, "int64"))


def test_string_dim_expressions_with_tir_calls():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor(("k",), "float32")) -> R.Tensor(("T.min(1, k)", 6), "float32"):
    return x
''', normalize=False)
    k = f.params[0].struct_info.shape.values[0]
    d0 = f.ret_struct_info.shape.values[0]
    assert isinstance(d0, P.Min) and d0.b is k and d0.a == P.IntImm(1, "int64")


def test_return_annotation_prim_and_shape_strings():
    f = parse_function(HEADER + '''
@R.function
def f(k: R.Prim(value="k1"), s: R.Shape(["n", "m"])) -> R.Tuple(R.Prim(value="k1 + 1"), R.Shape(["n * 2", "m // 2"])):
    return (k, s)
''', normalize=False)
    k1 = f.params[0].struct_info.value
    ret = f.ret_struct_info
    assert ret.fields[0].value == P.Add(k1, P.IntImm(1, "int64"))
    assert isinstance(ret.fields[1].values[1], P.FloorDiv)


def test_callable_opaque_defaults_to_impure():
    f = parse_function(HEADER + '''
@R.function
def f(g: R.Callable(ret=R.Object, derive_func="my.deriver")) -> R.Object:
    return g
''', normalize=False)
    s = f.params[0].struct_info
    assert s.params is None and s.purity is False and s.derive_func == "my.deriver"


def test_vdevice_forms_with_module_global_infos():
    mod = parse_module(HEADER + '''
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm", 5, "global"),
                                       I.vdevice({"kind": "llvm", "keys": ["cpu"]}, 7, "shared")]})
    I.module_attrs({"attr1": 10, "name": "m"})
    @R.function
    def main(x: R.Tensor((3,), "float32", "llvm:1")) -> R.Tensor((3,), "float32", vdevice="llvm:0:global"):
        y: R.Tensor((3,), "float32", vdevice="cuda") = x
        return y
''')
    devs = mod.global_infos["vdevice"]
    assert [d.kind for d in devs] == ["cuda", "llvm", "llvm"]
    f = mod["main"]
    assert f.params[0].struct_info.vdevice is devs[2]  # the second llvm device (index among llvm ones)
    assert f.ret_struct_info.vdevice is devs[1]
    assert _binding(f, "y").var.struct_info.vdevice is devs[0]
    assert mod.attrs["attr1"] == 10 and mod.attrs["name"] == "m"


def test_vdevice_without_module_is_built_from_the_string():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((3,), "float32", "llvm")) -> R.Tensor((3,), "float32", vdevice="cuda:1:shared"):
    return x
''', normalize=False)
    assert f.params[0].struct_info.vdevice == si.VDevice("llvm", 0, "global")
    assert f.ret_struct_info.vdevice == si.VDevice("cuda", 1, "shared")


def test_tensor_shape_given_by_a_shape_variable():
    f = parse_function(HEADER + '''
@R.function
def f(s: R.Shape(ndim=2), x: R.Tensor(ndim=2)) -> R.Tensor(ndim=2):
    y: R.Tensor(s, "float32") = x
    return y
''', normalize=False)
    ann = _binding(f, "y").var.struct_info
    assert ann.shape is f.params[0] and ann.ndim == 2


# ---------------------------------------------------------------------------------------------------
# Module structure, global references, options
# ---------------------------------------------------------------------------------------------------

MODULE = HEADER + '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("b"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = A[vi] + T.float32(1)

    @R.function(private=True)
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"num_input": 1, "relax.force_pure": False})
        cls = Module
        a = cls.helper(x)
        b = Module.helper(a)
        return b
'''


def test_module_functions_global_vars_and_options():
    mod = parse_module(MODULE)
    assert list(mod) == ["add_one", "helper", "main"]
    assert isinstance(mod["add_one"], tir.PrimFunc) and "global_symbol" not in mod["add_one"].attrs
    helper = mod["helper"]
    assert "global_symbol" not in helper.attrs
    main = mod["main"]
    assert main.is_pure is False
    assert main.attrs["global_symbol"] == "main" and main.attrs["num_input"] == 1
    assert main.attrs["relax.force_pure"] is False
    a, b = _bindings(main)
    gv = mod.get_global_var("helper")
    assert isinstance(a.value, rx.Call) and a.value.op is gv and a.value.args == (main.params[0],)
    assert b.value.op is gv and b.value.args == (a.var,)
    assert main.body.body is b.var


def test_forward_reference_to_a_later_function():
    mod = parse_module(HEADER + '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = Module.later(x)
        return y

    @R.function
    def later(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
''')
    (b,) = _bindings(mod["main"])
    assert b.value.op is mod.get_global_var("later")


def test_standalone_functions_make_a_module():
    mod = parse_module(HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    return x

@T.prim_func
def g(A: T.Buffer((2,), "float32")):
    A[0] = T.float32(1)
''')
    assert list(mod) == ["f", "g"]
    assert mod["g"].attrs["global_symbol"] == "g"


def test_parse_function_of_a_single_function_module():
    f = parse_function(HEADER + '''
@I.ir_module
class Module:
    @R.function
    def only(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
''', normalize=False)
    assert isinstance(f, rx.Function) and f.attrs["global_symbol"] == "only"


def test_check_well_formed_flag_is_read_from_the_text():
    from relax_ref.script.parser import module as pm
    from relax_ref.script.parser.source import Source

    res = pm.parse_source(Source(HEADER + '''
@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
'''))
    assert res.check_well_formed is False


# ---------------------------------------------------------------------------------------------------
# Bindings, dataflow, if, match_cast, local functions
# ---------------------------------------------------------------------------------------------------


def test_dataflow_outputs_are_vars_and_the_rest_dataflow_vars():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        a = R.add(x, x)
        b: R.Tensor((4,), "float32") = R.multiply(a, a)
        a = R.add(b, a)
        R.output(a)
    c = R.add(a, x)
    return c
''', normalize=False)
    blk0, blk1 = f.body.blocks
    assert isinstance(blk0, rx.DataflowBlock) and not isinstance(blk1, rx.DataflowBlock)
    a1, b, a2 = blk0.bindings
    assert type(a1.var) is rx.DataflowVar and type(b.var) is rx.DataflowVar
    assert type(a2.var) is rx.Var  # only the last binding of an output name is exported
    assert b.var.struct_info == si.TensorStructInfo(rx.ShapeExpr((P.IntImm(4, "int64"),)), "float32")
    assert a1.var.struct_info is None and a2.value.args == (b.var, a1.var)
    (c,) = blk1.bindings
    assert c.value.args[0] is a2.var


def test_nested_calls_and_operator_sugar_stay_nested():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    z = -(x + y) * x - y / x // y % x
    w = x < y
    v = x ** y
    return (z, w, v)
''', normalize=False)
    z, w, v = _bindings(f)
    assert z.value.op.name == "relax.subtract"
    mul = z.value.args[0]
    assert mul.op.name == "relax.multiply" and mul.args[0].op.name == "relax.negative"
    assert mul.args[0].args[0].op.name == "relax.add" and mul.args[0].args[0].struct_info is None
    mod_ = z.value.args[1]
    assert mod_.op.name == "relax.mod" and mod_.args[0].op.name == "relax.floor_divide"
    assert mod_.args[0].args[0].op.name == "relax.divide"
    assert w.value.op.name == "relax.less" and v.value.op.name == "relax.power"
    assert isinstance(f.body.body, rx.Tuple) and f.ret_struct_info is None


def test_match_cast_and_symbolic_declarations():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
    n = T.int64()
    a = T.int64()
    b, c = T.int64(), T.int32()
    y = R.match_cast(x, R.Tensor((a, n), "float32"))
    z: R.Tensor((a, n), "float32") = R.match_cast(y, R.Tensor((a, n), "float32"))
    s = R.shape([n * 2, a // 2, T.max(n - 1, 0), T.int64(4)])
    return z
''', normalize=False)
    n = f.params[0].struct_info.shape.values[0]
    y, z, s = _bindings(f)
    assert isinstance(y, rx.MatchCast) and y.var.struct_info is None and y.value is f.params[0]
    a = y.struct_info.shape.values[0]
    assert a.name == "a" and y.struct_info.shape.values[1] is n  # `n = T.int64()` reuses the signature's n
    assert isinstance(z, rx.MatchCast) and z.struct_info == y.struct_info
    vals = s.value.values
    assert vals[0] == P.Mul(n, P.IntImm(2, "int64")) and vals[1] == P.FloorDiv(a, P.IntImm(2, "int64"))
    assert vals[2] == P.Max(P.Sub(n, P.IntImm(1, "int64")), P.IntImm(0, "int64"))
    assert vals[3] == P.IntImm(4, "int64")


def test_if_else_branches():
    f = parse_function(HEADER + '''
@R.function
def f(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    if c:
        y = R.add(x, x)
        z = R.multiply(y, y)
    else:
        z_else: R.Tensor((2,), "float32") = R.subtract(x, x)
        z = z_else
    w = R.add(z, x)
    return w
''', normalize=False)
    ifb, w = _bindings(f)
    assert isinstance(ifb.value, rx.If) and ifb.var.name_hint == "z" and ifb.value.cond is f.params[0]
    then, other = ifb.value.true_branch, ifb.value.false_branch
    # TVM's branch rule: the last binding is removed and its value is the body; a non-leaf value is
    # bound to ``z_then`` / ``z_else``, a leaf value is the body itself
    y, z_then = then.blocks[0].bindings
    assert y.var.name_hint == "y" and then.body is z_then.var and z_then.var.name_hint == "z_then"
    assert z_then.value.op.name == "relax.multiply" and z_then.var is not ifb.var
    (z_else,) = other.blocks[0].bindings
    assert other.body is z_else.var and z_else.var.name_hint == "z_else"
    assert z_else.var.struct_info is not None  # the annotation is kept
    assert w.value.args[0] is ifb.var


def test_if_branch_ending_in_a_leaf_has_that_leaf_as_body():
    f = parse_function(HEADER + '''
@R.function
def f(c: R.Prim("bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = x
    else:
        y = R.const(1.0, "float32")
    return y
''', normalize=False)
    (b,) = _bindings(f)
    assert b.value.true_branch.body is f.params[1] and b.value.true_branch.blocks == ()
    assert isinstance(b.value.false_branch.body, rx.Constant)


def test_elif_chains_nest():
    f = parse_function(HEADER + '''
@R.function
def f(c: R.Prim("bool"), d: R.Prim("bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = x
    elif d:
        y = R.add(x, x)
    else:
        y = R.multiply(x, x)
    return y
''', normalize=False)
    (b,) = _bindings(f)
    inner = b.value.false_branch.blocks[0].bindings[0]
    assert isinstance(inner.value, rx.If) and b.value.false_branch.body is inner.var
    assert inner.var.name_hint == "y_else"


def test_local_functions_closures_and_recursion():
    f = parse_function(HEADER + '''
@R.function
def main(x: R.Tensor((2,), "float32"), k: R.Prim("int64")) -> R.Tensor((2,), "float32"):
    @R.function
    def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.add(x, y)
        return z

    @R.function
    def loop(i: R.Prim("int64"), acc: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        if i:
            r = loop(i, acc)
        else:
            r = acc
        return r

    a = inner(x)
    b = loop(k, a)
    return b
''', normalize=False)
    inner_b, loop_b, a, b = _bindings(f)
    assert isinstance(inner_b.value, rx.Function) and "global_symbol" not in inner_b.value.attrs
    assert inner_b.var.struct_info is None
    assert inner_b.value.body.blocks[0].bindings[0].value.args[0] is f.params[0]  # closure capture
    loop_fn = loop_b.value
    assert isinstance(loop_b.var.struct_info, si.FuncStructInfo)
    rec = loop_fn.body.blocks[0].bindings[0].value.true_branch.blocks[0].bindings[0].value
    assert loop_fn.body.blocks[0].bindings[0].value.false_branch.body is loop_fn.params[1]
    assert rec.op is loop_b.var  # the recursive call refers to the function's own variable
    assert a.value.op is inner_b.var and b.value.op is loop_b.var


def test_tuples_and_tuple_get_item():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    t = (x, (x, x))
    u = t[1][0]
    e = R.tuple()
    v = x, x
    return u
''', normalize=False)
    t, u, e, v = _bindings(f)
    assert isinstance(t.value, rx.Tuple) and isinstance(t.value.fields[1], rx.Tuple)
    assert isinstance(u.value, rx.TupleGetItem) and u.value.index == 0
    assert u.value.tuple_value.tuple_value is t.var and u.value.tuple_value.index == 1
    assert isinstance(e.value, rx.Tuple) and e.value.fields == ()
    assert isinstance(v.value, rx.Tuple) and len(v.value.fields) == 2


def test_tuple_unpacking_of_relax_values():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32"), t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))):
    a, b = t
    c, d = R.split(x, 2)
    e, g = x, a
    return (a, b, c, d, e, g)
''', normalize=False)
    a, b, tmp, c, d, e, g = _bindings(f)
    t = f.params[1]
    assert a.value.tuple_value is t and a.value.index == 0 and b.value.index == 1
    assert tmp.var.name_hint == "_" and tmp.value.op.name == "relax.split"  # evaluated once
    assert c.value.tuple_value is tmp.var and d.value.index == 1
    assert e.value is f.params[0] and g.value is a.var  # a Python tuple unpacks element-wise


def test_func_attr_may_appear_anywhere_in_the_body():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        R.func_attr({"inner": 1})
        y = R.add(x, x)
        R.output(y)
    R.func_attr({"outer": "o"})
    return y
''', normalize=False)
    assert f.attrs["inner"] == 1 and f.attrs["outer"] == "o"


def test_expression_statements_bind_underscore():
    f = parse_function(HEADER + '''
@R.function(pure=False)
def f(x: R.Tensor((2,), "float32")):
    R.print(x, format="{}")
    R.call_packed("my.func", x, sinfo_args=R.Object)
    return x
''', normalize=False)
    a, b = _bindings(f)
    assert a.var.name_hint == "_" and a.value.op.name == "relax.print"
    assert isinstance(b.value.op, rx.ExternFunc) and b.value.op.global_symbol == "my.func"
    assert b.value.sinfo_args == (si.ObjectStructInfo(),)


# ---------------------------------------------------------------------------------------------------
# Leaf values
# ---------------------------------------------------------------------------------------------------


def test_constants_default_dtypes_and_lists():
    f = parse_function(HEADER + '''
@R.function
def f():
    a = R.const(1)
    b = R.const(1.5)
    c = R.const(True)
    d = R.const([[1, 2], [3, 4]], "int64")
    e = R.const([1.0, 2])
    g = R.const(3, dtype="float16")
    h = R.const(1.5, "int32")
    i = 7
    j = R.const([True, False])
    k = R.const(250, "uint8")
    return (a, b, c, d, e, g, h, i, j, k)
''', normalize=False)
    vals = {b.var.name_hint: b.value.data for b in _bindings(f)}
    assert vals["a"].dtype == np.int32 and vals["a"].shape == () and vals["a"] == 1
    assert vals["b"].dtype == np.float32 and vals["b"] == 1.5
    assert vals["c"].dtype == np.bool_ and vals["c"]
    assert vals["d"].dtype == np.int64 and vals["d"].tolist() == [[1, 2], [3, 4]]
    assert vals["e"].dtype == np.float32 and vals["e"].tolist() == [1.0, 2.0]
    assert vals["g"].dtype == np.float16
    assert vals["h"].dtype == np.int32 and vals["h"] == 1  # TVM truncates
    assert vals["i"].dtype == np.int32 and vals["i"] == 7  # a bare number is R.const
    assert vals["j"].tolist() == [True, False]
    assert vals["k"].dtype == np.uint8 and vals["k"] == 250


@pytest.mark.parametrize("text, expect", [
    ('R.const("-inf", "float32")', -math.inf),
    ('R.const("inf", "float32")', math.inf),
    ('R.const(float("-inf"), "float32")', -math.inf),
    ('R.const("nan", "float16")', None),
    ('R.const(["inf", 1.0], "float32")', math.inf),
])
def test_non_finite_constants(text, expect):
    f = parse_function(HEADER + f'''
@R.function
def f():
    a = {text}
    return a
''', normalize=False)
    data = _bindings(f)[0].value.data
    first = data.flat[0]
    if expect is None:
        assert np.isnan(first) and data.dtype == np.float16
    else:
        assert first == expect


def test_shape_prim_value_str_dtype_leaves():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    a = R.shape([n, 4])
    b = R.prim_value(3)
    c = R.prim_value(n + 1)
    d = R.prim_value(1.5)
    e = R.str("hello")
    g = R.dtype("float32")
    h = R.prim_value(T.float32(2.5))
    return (a, b, c, d, e, g, h)
''', normalize=False)
    v = {b.var.name_hint: b.value for b in _bindings(f)}
    n = f.params[0].struct_info.shape.values[0]
    assert v["a"] == rx.ShapeExpr((n, P.IntImm(4, "int64")))
    assert v["b"] == rx.PrimValue(P.IntImm(3, "int64"))
    assert v["c"] == rx.PrimValue(P.Add(n, P.IntImm(1, "int64")))
    assert v["d"] == rx.PrimValue(P.FloatImm(1.5, "float32"))
    assert v["e"] == rx.StringImm("hello") and v["g"] == rx.DataTypeImm("float32")
    assert v["h"] == rx.PrimValue(P.FloatImm(2.5, "float32"))


def test_prim_arithmetic_in_shapes_follows_tir_rules():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()
    s = R.shape([T.min(n, m), T.Select(n > m, n, m), T.cast(T.int32(3), "int64"), n + 0, 2 * 3 + n * 1,
                 T.floordiv(n, 2), T.floormod(m, 3), T.truncdiv(n, 2)])
    p = R.prim_value(T.float32(1.0) * 2.5)
    return s
''', normalize=False)
    s, p = _bindings(f)
    n, m = f.params[0].struct_info.shape.values
    v = s.value.values
    assert v[0] == P.Min(n, m) and isinstance(v[1], P.Select)
    assert v[2] == P.IntImm(3, "int64")
    assert v[3] is n  # x + 0 folds as in TVM
    assert v[4] == P.Add(P.IntImm(6, "int64"), n)
    assert v[5] == P.FloorDiv(n, P.IntImm(2, "int64")) and v[6] == P.FloorMod(m, P.IntImm(3, "int64"))
    assert v[7] == P.Div(n, P.IntImm(2, "int64"))
    assert p.value.value == P.FloatImm(2.5, "float32")


def test_spans_point_at_the_source():
    text = HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    y = R.add(x, x)
    return y
'''
    f = parse_function(text, file="prog.py", normalize=False)
    (b,) = _bindings(f)
    assert b.span.file == "prog.py" and b.span.line == 7 and b.span.col == 5
    assert b.value.span.line == 7 and b.value.span.col == 9
    assert f.params[0].span.line == 6 and f.params[0].span.col == 7


def test_line_offset_shifts_spans():
    f = parse_function(HEADER + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
''', line_offset=100, normalize=False)
    assert f.span.line == 100 + 6  # the def line


def test_import_aliases_are_data():
    f = parse_function('''
from relax_ref.script import relax as rx, tir as tx
@rx.function
def f(x: rx.Tensor(("n",), "float32")) -> rx.Tensor(("n",), "float32"):
    n = tx.int64()
    y = rx.add(x, x)
    return y
''', normalize=False)
    assert f.attrs["global_symbol"] == "f"


def test_commented_header_is_accepted():
    f = parse_function('''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    return x''', normalize=False)
    assert f.params[0].name_hint == "x"


def test_module_level_symbolic_declaration():
    mod = parse_module(HEADER + '''
n = T.int64()

@R.function
def f(x: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
    return x

@R.function
def g(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
    return x
''')
    nf = mod["f"].params[0].struct_info.shape.values[0]
    ng = mod["g"].params[0].struct_info.shape.values[0]
    assert nf.name == ng.name == "n" and nf is not ng  # one variable per function
    assert mod["f"].ret_struct_info.shape.values[0] is nf

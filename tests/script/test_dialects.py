"""The dialect table and the spellings of each dialect (TEXT.DIALECT.1-6): what every dialect reads,
what each one prints, and what a release cannot write."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import ParseError, UnsupportedError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.script.dialect import (
    DIALECTS, NEWEST, TVM025, TVM027, dialect_for_version, dialect_names, get_dialect,
)
from relax_ref.script.parser import parse_function
from relax_ref.script.parser.header import detect_relax_dialect, read_header
from relax_ref.script.parser.source import Source, parse_python

H27 = "from typing import TypeVar\nfrom tvm.script import ir as I, relax as R, tirx as T\n\n"
H25 = "from tvm.script import ir as I, relax as R, tirx as T\n\n"


def module(body: str, header: str = H27) -> str:
    lines = ["    " + ln if ln else ln for ln in body.strip("\n").split("\n")]
    return header + "@I.ir_module\nclass Module:\n" + "\n".join(lines) + "\n"


def roundtrips(mod):
    for dialect in DIALECTS:
        assert relax_ref.structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect))), dialect


# ---------------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------------


def test_table_names_and_the_newest():
    assert list(DIALECTS) == ["classic", "tvm-0.25", "tvm-0.27"]
    assert get_dialect("tvm") is NEWEST is TVM027
    assert "tvm" in dialect_names()
    with pytest.raises(UnsupportedError, match="unknown TVMScript dialect 'tvm-9'"):
        get_dialect("tvm-9")


@pytest.mark.parametrize("version,name", [("0.25.0", "tvm-0.25"), ("0.26.1", "tvm-0.25"), ("0.27.0.post1", "tvm-0.27"),
                                          ("0.30.dev0", "tvm-0.27"), ("0.19.0", "classic"), ("1.0.0", "tvm-0.27")])
def test_dialect_for_version(version, name):
    assert dialect_for_version(version) == name


def test_bad_version():
    with pytest.raises(UnsupportedError):
        dialect_for_version("main")


@pytest.mark.parametrize("text,expected", [
    ("x = 1", "tvm-0.25"),
    ("# from typing import TypeVar\nx = 1", "tvm-0.27"),
    ("y = f(out_ty=z)", "tvm-0.27"),
    ("y = R.call_pure_packed('f', ty_args=z)", "tvm-0.27"),
    ("y: R.Any = x", "tvm-0.27"),
    ('y = metadata["ir.GenericConst"][0]', "tvm-0.27"),
    ("@R.function\ndef f(x: T.int64):\n    return x", "tvm-0.27"),
    ("@R.function\ndef f(x: R.Prim('int64')):\n    return x", "tvm-0.25"),
])
def test_detection(text, expected):
    src = Source(text)
    tree = parse_python(src)
    assert detect_relax_dialect(tree, read_header(tree, src), text) == expected


# ---------------------------------------------------------------------------------------------------
# reading TVM 0.27
# ---------------------------------------------------------------------------------------------------


def test_typevar_symbols_and_scalar_parameters():
    mod = relax_ref.parse(H27 + '''n = TypeVar("n")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), "float32"), k: T.int64, p: T.int64) -> R.Shape(ndim=2):
        y: T.int64 = k + n
        s = R.shape([y, k])
        return s
''')
    f = mod["main"]
    n = f.params[0].struct_info.shape.values[0]
    k_param, p_param = f.params[1], f.params[2]
    assert isinstance(n, P.PrimVar) and n.name == "n"
    # k is used as a symbol: the parameter holds it; p is not: a plain scalar
    assert isinstance(k_param.struct_info.value, P.PrimVar) and k_param.struct_info.value.name == "k"
    assert p_param.struct_info == si.PrimStructInfo("int64")
    binding = f.body.blocks[0].bindings[0]
    assert isinstance(binding.value, rx.PrimValue)  # y = k + n binds the scalar value
    out = relax_ref.evaluate(mod, "main", np.zeros(3, "float32"), 4, 9)
    assert tuple(out) == (7, 4)
    roundtrips(mod)


def test_prim_name_without_binding_in_tvm025():
    mod = relax_ref.parse(H25 + '''@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=1):
    n = T.int64()
    m = n * 2
    s = R.shape([m])
    return s
''')
    assert len(mod["main"].body.blocks[0].bindings) == 1  # m names n * 2; only s is bound


def test_prim_value_float_dtype_follows_the_release():
    body = '''@R.function
def main(x: R.Tensor((2,), "float32")) -> {ret}:
    v = R.prim_value(0.5)
    return v
'''
    f27 = relax_ref.parse(H27 + body.format(ret="T.float64"))["main"]
    f25 = relax_ref.parse(H25 + body.format(ret='R.Prim("float32")'))["main"]
    assert f27.body.blocks[0].bindings[0].value.value.dtype == "float64"
    assert f25.body.blocks[0].bindings[0].value.value.dtype == "float32"


def test_keywords_any_and_annotations():
    mod = relax_ref.parse(module('''
@T.prim_func(private=True)
def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
    for i in range(T.int64(3)):
        B[i] = A[i] * T.float32(2)

@R.function
def main(x: R.Tensor((3,), "float32"), o: R.Any, q: R.Tuple(R.Prim("int64"), R.Any)) -> R.Tensor((3,), "float32"):
    cls = Module
    y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((3,), "float32"))
    z = R.call_pure_packed("conformance.identity", y, ty_args=R.Tensor((3,), "float32"))
    return z
'''))
    f = mod["main"]
    assert f.params[1].struct_info == si.ObjectStructInfo()
    call = f.body.blocks[0].bindings[0].value
    assert call.op.name == "relax.call_tir" and call.sinfo_args[0].shape.values[0].value == 3
    roundtrips(mod)


def test_metadata_generic_const_both_ways():
    mod = relax_ref.parse(H25 + '''@R.function
def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
    c = R.const([[1.0, 2.0], [3.0, 4.5]], "float32")
    y = R.add(x, c)
    return y
''')
    text = mod.script(dialect="tvm-0.27", show_meta=True)
    assert 'metadata["ir.GenericConst"][0]' in text and '\\"type\\": \\"ir.GenericConst\\"' in text
    assert relax_ref.structural_equal(mod, relax_ref.parse(text))


def test_prim_func_string_extents_and_return():
    f = parse_function(H27 + '''M = TypeVar("M")
N = TypeVar("N")


@T.prim_func(s_tir=True)
def flatten(A: T.Buffer((M, N), "float16"), B: T.Buffer(("M * N",), "float16"), C: T.Buffer(("k",), "int32")):
    k = T.int32()
    for i in range(M * N):
        B[i] = A[i // N, i % N]
''')
    m, n = f.buffer_map[0][1].shape
    assert f.buffer_map[1][1].shape[0] == P.mul(m, n)
    assert f.buffer_map[2][1].shape[0].dtype == "int32"  # the body's declaration gives k its dtype
    g = parse_function(H27 + '''@T.prim_func(private=True)
def positive(n: T.int64) -> T.bool:
    return n > T.int64(0)
''')
    assert g.body.value.op == "tir.ret"
    assert "return n > T.int64(0)" in relax_ref.IRModule({rx.GlobalVar("positive"): g}).script(dialect="tvm-0.27")
    assert "T.ret(n > T.int64(0))" in relax_ref.IRModule({rx.GlobalVar("positive"): g}).script(dialect="tvm-0.25")


def test_number_operands_attribute_access_and_lambdas():
    mod = relax_ref.parse(module('''
@R.function
def main(x: R.Tensor((3, 4), "float32"), q: R.Tensor((4,), "float32")) -> R.Tensor((3, 4), "float32"):
    y = R.take(x, 1, axis=0)
    z = R.call_pure_packed("conformance.identity", x, ty_args=x.struct_info)
    w = R.layout_transform(q, index_map=lambda i: (i // 2, i % 2))
    return z
''', H25))
    take = mod["main"].body.blocks[0].bindings[0].value
    assert take.args[1] == rx.PrimValue(P.IntImm(1, "int64"))
    assert mod["main"].body.blocks[0].bindings[1].value.sinfo_args[0].shape.values[1].value == 4
    roundtrips(mod)


# ---------------------------------------------------------------------------------------------------
# TVM's other module spellings
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("head,decorator", [
    ("import tvm\nfrom tvm.script import relax as R\n", "@tvm.script.ir_module"),
    ("import tvm\nfrom tvm.script import relax as R\n", "@tvm.script.ir.ir_module"),
    ("from tvm.script.parser import ir as I\nfrom tvm.script.parser import relax as R\n", "@I.ir_module(s_tir=True)"),
])
def test_decorator_spellings(head, decorator):
    mod = relax_ref.parse(head + decorator + '''
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = relax.op.add(x, x) if False else R.add(x, x)
        return y
'''.replace("relax.op.add(x, x) if False else ", ""))
    assert list(mod) == ["main"]


def test_standalone_function_named_by_its_global_symbol():
    mod = relax_ref.parse(H25 + '''@R.function
def before(x: R.Tensor((2,), "float32")):
    R.func_attr({"global_symbol": "main"})
    return x
''')
    assert list(mod) == ["main"]


def test_tir_builtins_and_meta_vars_round_trip():
    mod = relax_ref.parse(H25 + '''@T.prim_func(private=True)
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    K = T.meta_var(2)
    for i in range(4):
        T.assume(i < 4)
        B[i] = T.exp(A[i] * T.float32(K), dtype="float32") + T.FloatImm("float32", 0.5)
''')
    text = mod.script(dialect="tvm-0.27")
    assert "T.assume(i < 4)" in text and "T.float32(0.5)" in text and "K" not in text
    roundtrips(mod)


# ---------------------------------------------------------------------------------------------------
# what a release cannot write
# ---------------------------------------------------------------------------------------------------


def test_tvm027_cannot_write_a_symbol_held_by_a_later_parameter():
    mod = relax_ref.parse(H25 + '''@R.function
def main(x: R.Tensor(("n",), "float32"), k: R.Prim(value="n")) -> R.Tensor(("n",), "float32"):
    return x
''')
    with pytest.raises(UnsupportedError, match="tvm-0.27 cannot write the scalar parameter 'k'"):
        mod.script(dialect="tvm-0.27")
    mod.script(dialect="tvm-0.25")


def test_tvm027_writes_tir_vars_as_scalar_arguments():
    mod = relax_ref.parse(H25 + '''@I.ir_module
class Module:
    @T.prim_func(private=True)
    def shift(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i] + T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.call_tir(Module.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([3]))
        return y
''')
    text = mod.script(dialect="tvm-0.27")
    assert "def shift(a: T.handle, k: T.int64, b: T.handle)" in text and "(x, 3)" in text
    again = relax_ref.parse(text)
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(relax_ref.evaluate(again, "main", x), x + 3)
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x), x + 3)


def test_typevar_rules():
    with pytest.raises(ParseError, match="must match its declared name"):
        relax_ref.parse(H27 + 'n = TypeVar("m")\n\n@R.function\ndef f(x: R.Tensor((n,), "float32")):\n    return x\n')
    with pytest.raises(ParseError, match="without constraints or a bound"):
        relax_ref.parse(H27 + 'n = TypeVar("n", bound=int)\n\n@R.function\ndef f(x: R.Tensor((n,), "float32")):\n'
                              '    return x\n')


def test_several_assert_format_arguments_round_trip():
    """TVM reads several format arguments only as a list; numbers among them are scalar values."""
    mod = relax_ref.parse(H25 + '''@R.function(pure=False)
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    n = T.int64()
    R.assert_op(n % 4 == 0, 4, R.prim_value(n), format=R.str("{} does not divide {}"))
    return x
''')
    assert "[R.prim_value(4), R.prim_value(n)], format=" in mod.script(dialect="tvm-0.25")
    assert "R.assert_op(n % 4 == 0, [4, n], format=" in mod.script(dialect="tvm-0.27")
    roundtrips(mod)


RAW_SCALARS = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(p: R.Prim("int64")) -> R.Prim("int64"):
        return p

    @R.function
    def main(x: R.Tensor((2,), "float32"), k: R.Prim(value=3)):
        cls = Module
        a = R.prim_value(5)
        b = cls.f(R.prim_value(7))
        return (a, b)
'''


def test_tvm027_writes_an_unannotated_integer_value_typed():
    """TVM 0.27 reads ``a = 5`` as a tensor constant and refuses ``f(5)``: a scalar value without an
    annotation is written ``T.int64(5)`` (the raw module of a text has no inferred annotations)."""
    from relax_ref.script.parser import parse_module
    from relax_ref.script.printer import print_module

    raw = parse_module(RAW_SCALARS.replace(", k: R.Prim(value=3)", ""))
    text = print_module(raw, dialect="tvm-0.27")
    assert "a = T.int64(5)" in text and "cls.f(T.int64(7))" in text
    mod = relax_ref.parse(text)
    a = mod["main"].body.blocks[0].bindings[1].var
    assert isinstance(a.struct_info, si.PrimStructInfo) and a.struct_info.dtype == "int64"
    # an annotated binding keeps TVM's own spelling
    assert "a: T.int64 = 5" in relax_ref.parse(RAW_SCALARS.replace(", k: R.Prim(value=3)", "")).script(
        dialect="tvm-0.27")


def test_exact_printing_refuses_what_tvm027_cannot_write():
    from relax_ref.script.parser import parse_module
    from relax_ref.script.printer import print_module

    raw = parse_module(RAW_SCALARS)
    assert "k: R.Prim(\"int64\")" in print_module(raw, dialect="tvm-0.27")  # the value 3 is left out
    with pytest.raises(UnsupportedError, match=r"the value of R.Prim\(value=3\) cannot be written"):
        print_module(raw, dialect="tvm-0.27", exact=True)
    assert "R.Prim(value=3)" in print_module(raw, dialect="tvm-0.25", exact=True)


def test_a_constant_if_condition_as_tvm027_prints_it():
    text = '''# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        if False:
            r: R.Tensor((2,), dtype="float32") = R.add(x, x)
        else:
            r: R.Tensor((2,), dtype="float32") = x
        return r
'''
    mod = relax_ref.parse(text)
    (b,) = mod["main"].body.blocks[0].bindings
    assert b.value.cond == rx.PrimValue(P.IntImm(0, "bool"))
    x = np.array([1.0, 2.0], "float32")
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x), x)
    # TVM 0.27 prints it so in a text without any other spelling of its own: every dialect reads it
    mod = relax_ref.parse(text.replace("# from typing import TypeVar\n", ""))
    assert mod["main"].body.blocks[0].bindings[0].value.cond == rx.PrimValue(P.IntImm(0, "bool"))
    with pytest.raises(ParseError, match="not a Python literal"):
        relax_ref.parse(text.replace("if False:", "if 0:"))

"""``parse`` = parse_module -> normalize_module -> check_well_formed, end to end (spec TEXT.*)."""

import pytest

from relax_ref.errors import ParseError, RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir import struct_info as si
from relax_ref.ops import registry
from relax_ref.script.parser import parse, parse_function

pytest.importorskip("relax_ref.static.normalize")
pytest.importorskip("relax_ref.static.well_formed")

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n"


@pytest.fixture(autouse=True)
def _needs_ops():
    for name in ("R.add", "R.multiply", "R.call_tir", "R.print"):
        if registry.lookup_script(name) is None:
            pytest.skip(f"{name} is not registered yet")


PROGRAM = HEAD + '''
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(var_x: T.handle, var_y: T.handle):
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(4)))
        y = T.match_buffer(var_y, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] + T.float32(1)

    @R.function(private=True)
    def helper(a: R.Tensor(("m", 4), "float32")) -> R.Tensor(("m", 4), "float32"):
        return a

    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), c: R.Tensor((), "bool")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
            z = R.add(R.add(y, x), x)
            R.output(z)
        if c:
            w = cls.helper(z)
        else:
            w = R.multiply(z, z)
        t = (w, x)
        return t[0]
'''


def test_parse_normalizes_nested_calls_and_infers_struct_info():
    mod = parse(PROGRAM)
    main = mod["main"]
    df = main.body.blocks[0]
    assert isinstance(df, rx.DataflowBlock)
    names = [b.var.name_hint for b in df.bindings]
    assert len(names) == 3 and names[0] == "y" and names[-1] == "z"  # the nested add got its own binding
    for b in df.bindings:
        assert isinstance(b.var.struct_info, si.TensorStructInfo)
    assert isinstance(main.ret_struct_info, si.TensorStructInfo)


def test_match_cast_local_functions_and_recursion_normalize():
    mod = parse(HEAD + '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), k: R.Prim("int64")) -> R.Tensor(ndim=1, dtype="float32"):
        a = T.int64()
        y = R.match_cast(x, R.Tensor((a,), "float32"))

        @R.function
        def inner(v: R.Tensor(("p",), "float32")) -> R.Tensor(("p",), "float32"):
            w = R.add(v, v)
            return w

        z = inner(y)
        return z
''')
    main = mod["main"]
    mc = main.body.blocks[0].bindings[0]
    assert isinstance(mc, rx.MatchCast) and mc.var.struct_info == mc.struct_info


def test_text_flag_turns_the_well_formed_check_off():
    text = HEAD + '''
@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.print(x)
        return x
'''
    mod = parse(text)  # impure call in a pure function: not checked, as the text asks
    assert "main" in mod
    with pytest.raises(RelaxError):
        parse(text.replace("(check_well_formed=False)", ""))


def test_ill_formed_annotation_is_reported_with_a_location():
    with pytest.raises(RelaxError) as info:
        parse_function(HEAD + '''
@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y: R.Tensor((3,), "float32") = R.add(x, x)
    return y
''')
    assert not isinstance(info.value, ParseError)
    assert info.value.span is not None and info.value.span.line == 5


def test_parse_file(tmp_path):
    from relax_ref.script.parser import parse_file

    p = tmp_path / "prog.py"
    p.write_text(PROGRAM)
    mod = parse_file(p)
    assert list(mod) == ["add_one", "helper", "main"]
    bad = tmp_path / "bad.py"
    bad.write_text(HEAD + "@R.function\ndef f(x):\n    return x\n")
    with pytest.raises(ParseError) as info:
        parse_file(bad)
    assert info.value.span.file == str(bad)

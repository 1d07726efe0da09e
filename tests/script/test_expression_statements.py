"""Relax expression statements: only a unit value may stand alone (spec TEXT.STMT.6); an annotation
that can never hold on a variable-to-variable binding (TEXT.STMT.3, NORM.ANNOT.2)."""

import pytest

from relax_ref.errors import ParseError, StructInfoError
from relax_ref.script.parser import parse, parse_module

HEADER = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"


def module(body: str, pure: bool = True) -> str:
    deco = "@R.function" if pure else "@R.function(pure=False)"
    lines = "\n".join("        " + ln for ln in body.strip("\n").split("\n"))
    return HEADER + f'''
@I.ir_module
class Module:
    @R.function(pure=False)
    def show(x: R.Tensor((3,), "float32")) -> R.Tuple:
        R.print(x, format="{{}}")
        return R.tuple()

    {deco}
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
{lines}
'''


@pytest.mark.parametrize("stmt", ["R.add(x, x)", "x", "R.shape([1, 2])", "R.tuple(x, x)"])
def test_non_unit_statement_is_a_parse_error(stmt):
    text = module(f"{stmt}\nreturn x")
    with pytest.raises(ParseError, match="Non-void relax expressions must be bound to a variable") as e:
        parse(text)
    assert e.value.span is not None and e.value.span.line == text.split("\n").index(f"        {stmt}") + 1


def test_non_unit_statement_in_dataflow_and_branch():
    with pytest.raises(ParseError, match="Non-void"):
        parse(module("with R.dataflow():\n    R.multiply(x, x)\n    y = x\n    R.output(y)\nreturn y"))
    with pytest.raises(ParseError, match="Non-void"):
        parse(module("c = R.const(True)\nif c:\n    R.add(x, x)\n    y = x\nelse:\n    y = x\nreturn y"))


@pytest.mark.parametrize("stmt", ['R.print(x, format="{}")', "cls.show(x)", "R.tuple()"])
def test_unit_statements_are_allowed(stmt):
    mod = parse(module(f"{stmt}\nreturn x", pure=False))
    assert "main" in mod


def test_explicit_binding_of_a_non_unit_value_is_fine():
    mod = parse(module("_ = R.add(x, x)\nreturn x"))
    assert "main" in mod


def test_raw_parse_does_not_infer():
    # without normalization the value's struct info is unknown: the rule applies when normalizing
    assert "main" in parse_module(module("R.add(x, x)\nreturn x"))


def test_wrong_annotation_on_a_variable_binding():
    with pytest.raises(StructInfoError, match="can never match"):
        parse(module('y: R.Tensor((3,), "int32") = x\nreturn y'))
    assert "main" in parse(module('y: R.Tensor(ndim=1) = x\nreturn y'))


@pytest.mark.tvm
def test_tvm_rejects_the_same_statements():
    tvm = pytest.importorskip("tvm")
    from tvm.script import ir as TI, relax as TR

    text = module("R.add(x, x)\nreturn x").split("\n", 2)[2]
    with pytest.raises(Exception, match="Non-void relax expressions must be bound to a variable"):
        tvm.script.from_source(text, extra_vars={"I": TI, "R": TR})

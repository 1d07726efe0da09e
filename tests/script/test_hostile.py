"""Untrusted text is data (spec TEXT.SAFE.1-4): hostile scripts raise ParseError and have no effect.

Every script below tries to create a file (or run a command that would). The test asserts that
parsing raises ParseError and that the file does not exist afterwards; ``eval``/``exec`` and
``importlib.import_module`` are replaced by tripwires during the parse.
"""

import builtins
import importlib
import time

import pytest

from relax_ref.errors import ParseError
from relax_ref.script.parser import parse_module

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n"


def _relax(body: str) -> str:
    return HEAD + '''
@R.function
def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
''' + "".join("    " + line + "\n" for line in body.splitlines()) + "    return x\n"


def _tir(body: str) -> str:
    return HEAD + '''
@T.prim_func
def k(A: T.Buffer((2,), "float32")):
''' + "".join("    " + line + "\n" for line in body.splitlines())


HOSTILE = {
    "dunder_import_system": lambda p: _relax(f'y = __import__("os").system("touch {p}")'),
    "open_write": lambda p: _relax(f'y = open("{p}", "w").write("pwned")'),
    "class_bases_walk": lambda p: _relax(
        'y = ().__class__.__bases__[0].__subclasses__()[0].__init__.__globals__["sys"]'
        f'.modules["os"].system("touch {p}")'),
    "lambda_call": lambda p: _relax(f'y = (lambda: open("{p}", "w"))()'),
    "list_comprehension": lambda p: _relax(f'y = [open("{p}", "w") for _ in (1,)]'),
    "generator_in_call": lambda p: _relax(f'y = R.tuple(*(open("{p}", "w") for _ in (1,)))'),
    "walrus": lambda p: _relax(f'y = (z := open("{p}", "w"))'),
    "fstring": lambda p: _relax(f'y = R.str(f"{{open(\'{p}\', \'w\')}}")'),
    "eval_call": lambda p: _relax(f'y = eval("open(\'{p}\', \'w\')")'),
    "exec_statement_call": lambda p: _relax(f'exec("open(\'{p}\', \'w\')")'),
    "namespace_dunder": lambda p: _relax(
        f'y = R.__class__.__init__.__globals__["__builtins__"]["open"]("{p}", "w")'),
    "getattr_builtin": lambda p: _relax(f'y = getattr(R, "__dict__")["open"]("{p}", "w")'),
    "annotation_payload": lambda p: HEAD + f'''
@R.function
def f(x: R.Tensor((open("{p}", "w"),), "float32")) -> R.Tensor((2,), "float32"):
    return x
''',
    "string_dim_payload": lambda p: HEAD + f'''
@R.function
def f(x: R.Tensor(("__import__('os').system('touch {p}')",), "float32")):
    return x
''',
    "return_annotation_string_payload": lambda p: HEAD + f'''
@R.function
def f(x: R.Tensor(("n",), "float32")) -> R.Tensor(("open('{p}', 'w') and n",), "float32"):
    return x
''',
    "decorator_payload": lambda p: HEAD + f'''
@__import__("os").system("touch {p}")
def f(x: R.Tensor((2,), "float32")):
    return x
''',
    "decorator_option_payload": lambda p: HEAD + f'''
@R.function(pure=open("{p}", "w"))
def f(x: R.Tensor((2,), "float32")):
    return x
''',
    "import_os": lambda p: f'''import os
os.system("touch {p}")
''',
    "from_import": lambda p: f'''from os import system
system("touch {p}")
''',
    "top_level_call": lambda p: f'open("{p}", "w")\n',
    "class_body_code": lambda p: HEAD + f'''
@I.ir_module
class M:
    open("{p}", "w")
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        return x
''',
    "metadata_header_payload": lambda p: HEAD + f'''
metadata = tvm.ir.load_json(open("{p}", "w").read())
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
''',
    "tir_store_payload": lambda p: _tir(f'A[0] = __import__("os").system("touch {p}")'),
    "tir_loop_payload": lambda p: _tir(f'for i in open("{p}", "w"):\n    A[0] = T.float32(0)'),
    "tir_with_payload": lambda p: _tir(f'with open("{p}", "w") as fh:\n    A[0] = T.float32(0)'),
    "func_attr_payload": lambda p: _relax(f'R.func_attr({{"a": open("{p}", "w")}})'),
    "dict_unpack": lambda p: _relax(f'R.func_attr({{**open("{p}", "w")}})'),
    "op_keyword_payload": lambda p: _relax(f'y = R.add(x, x, extra=open("{p}", "w"))'),
    "buffer_attribute_payload": lambda p: _tir(f'A[0] = A.__class__.__init__("{p}")'),
    "module_ref_attribute_payload": lambda p: HEAD + f'''
@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        g = M.__init__.__globals__["os"].system("touch {p}")
        return x
''',
}


@pytest.fixture
def tripwires(monkeypatch):
    calls = []

    def trip(name):
        def f(*a, **k):
            calls.append(name)
            raise AssertionError(f"{name} was called during parsing")
        return f

    monkeypatch.setattr(builtins, "eval", trip("eval"))
    monkeypatch.setattr(builtins, "exec", trip("exec"))
    monkeypatch.setattr(importlib, "import_module", trip("import_module"))
    return calls


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_script_is_rejected_without_effect(name, tmp_path, tripwires):
    target = tmp_path / "pwned"
    text = HOSTILE[name](target)
    with pytest.raises(ParseError) as info:
        parse_module(text)
    assert info.value.span is not None and info.value.span.line >= 1
    assert not target.exists()
    assert tripwires == []


def test_at_least_eight_hostile_variants():
    assert len(HOSTILE) >= 8


def test_tripwires_do_not_affect_a_normal_parse(tripwires):
    mod = parse_module(_relax('y = R.const([1.0, 2.0], "float32")\nz = R.shape([2, 3])'))
    assert "f" in mod and tripwires == []


@pytest.mark.parametrize("expr", [
    "10 ** 10 ** 10",
    "2 ** 100000",
    '"a" * 10 ** 9',
    "[0] * 10 ** 9",
    "(1 << 10 ** 6)",
    "T.int64(10) ** 10 ** 10",
])
def test_resource_exhaustion_is_refused_quickly(expr):
    start = time.monotonic()
    with pytest.raises(ParseError):
        parse_module(_relax(f"y = R.shape([{expr}])"))
    assert time.monotonic() - start < 5.0


def test_deep_nesting_is_a_parse_error_not_a_crash():
    deep = "(" * 150 + "1" + ")" * 150
    with pytest.raises(ParseError):
        parse_module(_relax(f"y = R.shape([{deep} + x])"))
    long_sum = " + ".join(["A[0]"] * 30000)
    with pytest.raises(ParseError, match="nested too deeply"):
        parse_module(_tir(f"A[1] = {long_sum}"))


def test_huge_integer_literal_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_module(_relax("y = R.shape([" + "9" * 5000 + "])"))


def test_nul_bytes_and_non_text_are_rejected():
    with pytest.raises(ParseError):
        parse_module(_relax("y = x") + "\x00")
    with pytest.raises(ParseError):         # ERR.1: never another exception
        parse_module(b"@R.function\n")  # type: ignore[arg-type]

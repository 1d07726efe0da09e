"""Malformed TVMScript: every case raises ParseError located at the offending code (spec TEXT.2).

Each case gives the text, a marker -- the source text that starts where the error must be reported
-- and a pattern for the message. The expected line and column are computed from the marker's
position, so a wrong location fails the test.
"""

import re

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.attrs import Attrs
from relax_ref.ops import registry
from relax_ref.script.parser import parse_module


def _test_parse_call(opdef, args, kwargs, span):
    def conv(v):
        if isinstance(v, rx.Expr):
            return v
        if isinstance(v, (tuple, list)):
            return rx.Tuple(tuple(conv(x) for x in v))
        raise ParseError(f"{opdef.script}: please convert {v!r} with R.const or R.prim_value first", span)
    return rx.Call(rx.Op(opdef.name), tuple(conv(a) for a in args), Attrs(kwargs), span=span)


@pytest.fixture(autouse=True)
def _test_ops(monkeypatch):
    real = registry.lookup_script

    def lookup(name):
        d = real(name)
        if d is None and name in ("R.add", "R.multiply", "R.print"):
            d = registry.OpDef("relax." + name[2:], name, parse_call=_test_parse_call)
        return d

    monkeypatch.setattr(registry, "lookup_script", lookup)


HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n"


def _y(value: str) -> str:
    """A function of a tensor ``x`` that binds ``y`` to ``value`` and returns it."""
    return f'\n@R.function\ndef f(x: R.Tensor((2,), "float32")):\n    y = {value}\n    return y\n'


def position(text: str, marker: str, nth: int = 1):
    idx = -1
    for _ in range(nth):
        idx = text.index(marker, idx + 1)
    line = text.count("\n", 0, idx) + 1
    col = idx - (text.rfind("\n", 0, idx) + 1) + 1
    return line, col


CASES = [
    # ---- names and callees ------------------------------------------------------------------
    ("unknown_callee", _y('R.frobnicate(x)'), "R.frobnicate", r"unknown Relax operator 'R\.frobnicate'"),
    ("misspelled_operator", _y('R.nn.sofmax(x)'), "R.nn.sofmax",
     r"unknown Relax operator 'R\.nn\.sofmax'; did you mean 'R\.nn\.softmax'\?"),
    ("unknown_tir_function", '''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    A[0] = T.frobnicate(A[1])
''', "T.frobnicate", r"unknown TVMScript function 'T\.frobnicate'"),
    ("undefined_variable", _y('R.add(x, zz)'), "zz", r"undefined name 'zz'"),
    ("dataflow_var_used_after_block", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        b = R.add(a, x)
        R.output(b)
    c = R.add(a, b)
    return c
''', "a, b)", r"undefined name 'a'"),
    ("metadata_omitted", _y('R.add(x, metadata["relax.expr.Constant"][0])'), "metadata[", r"omitted.*show_meta=True"),
    # ---- signatures -------------------------------------------------------------------------
    ("missing_param_annotation", '''
@R.function
def f(x: R.Tensor((2,), "float32"), y):
    return x
''', "y):", r"type annotation is required"),
    ("unknown_symbol_in_signature", '''
@R.function
def f(x: R.Tensor(("n * k",), "float32")):
    return x
''', 'n * k"', r"undefined name 'n'"),
    ("return_annotation_undefined_symbol", '''
@R.function
def f(x: R.Tensor(("n",), "float32")) -> R.Tensor(("m",), "float32"):
    return x
''', 'm",), "float32"):', r"undefined name 'm'"),
    ("param_named_like_its_symbolic_var", '''
@R.function
def f(x: R.Tensor(("n",), "float32"), k: R.Prim(value="k")):
    return x
''', "k: R.Prim", r"same name as the symbolic variable 'k'"),
    ("bad_dtype_string", '''
@R.function
def f(x: R.Tensor((2,), "float33")):
    return x
''', "R.Tensor((2,)", r"unknown data type 'float33'"),
    ("struct_info_constructor_arity", '''
@R.function
def f(x: R.Tensor((2,), "float32", "llvm", 1, 5)):
    return x
''', "R.Tensor((2,)", r"R\.Tensor takes at most 4 positional arguments, got 5"),
    ("prim_without_dtype_or_value", '''
@R.function
def f(x: R.Prim()):
    return x
''', "R.Prim()", r"R\.Prim needs a dtype or a value"),
    ("star_args_parameter", '''
@R.function
def f(*xs: R.Tensor((2,), "float32")):
    return xs
''', "xs: R", r"\*args"),
    ("unknown_decorator_option", '''
@R.function(fast=True)
def f(x: R.Tensor((2,), "float32")):
    return x
''', "fast=True", r"unexpected option 'fast'"),
    ("missing_decorator", '''
@I.ir_module
class M:
    def f(x: R.Tensor((2,), "float32")):
        return x
''', "def f", r"needs exactly one decorator"),
    # ---- bodies -------------------------------------------------------------------------------
    ("string_dims_in_the_body", _y('R.match_cast(x, R.Tensor(("m",), "float32"))'), '"m",), "float32"))',
     r"only allowed in function parameter and return annotations"),
    ("if_without_else", '''
@R.function
def f(c: R.Prim("bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = R.add(x, x)
    return x
''', "if c:", r"needs an else branch"),
    ("branches_bind_different_names", '''
@R.function
def f(c: R.Prim("bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = R.add(x, x)
    else:
        z = R.multiply(x, x)
    return x
''', "z = R.multiply", r"same variable \('y' in the then branch, 'z' in the else branch\)"),
    ("branch_ends_without_binding", '''
@R.function(pure=False)
def f(c: R.Prim("bool"), x: R.Tensor((2,), "float32")):
    if c:
        y = R.add(x, x)
    else:
        R.print(x)
    return x
''', "R.print(x)", r"both branches of an if must end by binding the same variable \('y' in the then branch, "
                   r"'_' in the else branch\)"),
    ("two_returns", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
    return x
''', "return x", r"single return statement"),
    ("return_not_last", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
    y = R.add(x, x)
''', "return x", r"single return statement"),
    ("no_return", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    y = R.add(x, x)
''', "y = R.add", r"must end with a return statement"),
    ("output_not_last", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a)
        b = R.add(a, x)
    return a
''', "R.output(a)", r"R\.output must be the last statement"),
    ("output_twice", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a)
        R.output(a)
    return a
''', "R.output(a)", r"only once", 2),
    ("output_of_unbound_name", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        R.output(a, x)
    return a
''', "x)\n    return", r"'x' is not bound in this dataflow block"),
    ("nested_dataflow", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        R.output(a)
    return a
''', "with R.dataflow():\n            a", r"cannot be nested"),
    ("while_in_relax", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    while True:
        x = R.add(x, x)
    return x
''', "while True", r"while loops are not supported in Relax"),
    ("lambda", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    g = lambda v: v
    return x
''', "lambda v", r"lambda expressions"),
    ("comprehension", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    t = [x for _ in range(2)]
    return x
''', "[x for", r"list comprehensions"),
    ("star_args_of_a_relax_value", _y('R.add(*x)'), "*x", r"only a tuple or list can be unpacked"),
    ("kwargs_unpacking", _y('R.add(x, **x)'), "x)\n    return y", r"keyword-argument unpacking"),
    ("const_of_a_variable", _y('R.const(x)'), "x)\n    return y", r"R\.const needs a literal value"),
    ("python_float_in_operator_sugar", _y('x + 1.0'), "x + 1.0", r"please convert 1\.0 with R\.const"),
    ("equality_on_relax_values", _y('x == x'), "x == x", r"not defined on Relax expressions"),
    ("chained_assignment", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    a = b = x
    return a
''', "a = b = x", r"chained assignments"),
    ("unpacking_length_mismatch", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    a, b = x, x, x
    return a
''', "a, b = x", r"tuple unpacking needs a tuple of 2 values"),
    ("match_cast_annotation_mismatch", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    y: R.Tensor((3,), "float32") = R.match_cast(x, R.Tensor((2,), "float32"))
    return y
''', "y: R.Tensor((3,)", r"must equal its struct info"),
    ("relax_var_redeclared_symbolic", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    x = T.int64()
    return x
''', "x = T.int64()", r"cannot redefine 'x'"),
    ("string_in_shape_value", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    s = R.shape(["n"])
    return s
''', '"n"]', r"string-defined shape dimensions"),
    ("recursive_local_without_return_annotation", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    @R.function
    def g(y: R.Tensor((2,), "float32")):
        z = g(y)
        return z
    return x
''', "def g", r"needs a return annotation"),
    ("private_function_with_global_symbol", '''
@R.function(private=True)
def f(x: R.Tensor((2,), "float32")):
    R.func_attr({"global_symbol": "f"})
    return x
''', "def f", r"private function cannot have a 'global_symbol'"),
    ("module_statement_in_function", '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    I.module_attrs({"a": 1})
    return x
''', "I.module_attrs", r"statement in the module class body"),
    ("undeclared_vdevice", '''
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    @R.function
    def f(x: R.Tensor((2,), "float32", "cuda")):
        return x
''', 'R.Tensor((2,), "float32", "cuda")', r"vdevice 'cuda' is not declared"),
    # ---- module level -----------------------------------------------------------------------
    ("unsupported_import", '''
import os
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
''', "import os", r"unsupported import 'os'"),
    ("class_without_ir_module", '''
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        return x
''', "class M", r"needs the decorator @I\.ir_module"),
    ("top_level_statement", '''
print("hello")
@R.function
def f(x: R.Tensor((2,), "float32")):
    return x
''', 'print("hello")', r"only imports"),
    ("syntax_error", _y('R.add(x, x'), "(x, x\n", r"invalid syntax"),
    # ---- TensorIR ---------------------------------------------------------------------------
    ("axis_outside_block", '''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    for i in range(2):
        vi = T.axis.spatial(2, i)
        A[vi] = T.float32(0)
''', "T.axis.spatial(2, i)", r"only be defined inside a block"),
    ("reads_outside_block", '''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    T.reads(A[0])
''', "T.reads(A[0])", r"must be inside a block"),
    ("loop_over_a_list", '''
@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    for i in [0, 1]:
        A[i] = T.float32(0)
''', "[0, 1]", r"iterates over range"),
    ("integer_true_division", '''
@T.prim_func
def f(A: T.Buffer((2,), "int32"), n: T.int32):
    A[0] = n / 2
''', "n / 2", r"'/' on integer scalar expressions is ambiguous"),
    ("wrong_number_of_indices", '''
@T.prim_func
def f(A: T.Buffer((2, 2), "float32")):
    A[0] = T.float32(0)
''', "A[0]", r"has 2 dimensions but is indexed with 1"),
    ("remap_of_a_non_loop_variable", '''
@T.prim_func
def f(A: T.Buffer((2,), "float32"), n: T.int32):
    with T.sblock("b"):
        vi = T.axis.remap("S", [n])
        A[vi] = T.float32(0)
''', 'T.axis.remap("S", [n])', r"binds loop variables only"),
    ("out_of_range_literal", '''
@T.prim_func
def f(A: T.Buffer((2,), "int8")):
    A[0] = T.int8(300)
''', "T.int8(300)", r"out of range for int8"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed(case):
    name, body, marker, pattern = case[:4]
    nth = case[4] if len(case) > 4 else 1
    text = HEAD + body
    with pytest.raises(ParseError) as info:
        parse_module(text, file="bad.py")
    err = info.value
    assert re.search(pattern, err.message), err.message
    line, col = position(text, marker, nth)
    assert err.span is not None and err.span.file == "bad.py"
    assert (err.span.line, err.span.col) == (line, col), str(err)


def test_enough_cases():
    assert len(CASES) >= 30


def test_error_text_shows_location_and_caret():
    text = HEAD + _y('R.frobnicate(x)')
    with pytest.raises(ParseError) as info:
        parse_module(text, file="prog.py")
    s = str(info.value)
    first, src, caret = s.splitlines()[:3]
    assert first.startswith("prog.py:5:9: ParseError: unknown Relax operator")
    assert src.strip() == "y = R.frobnicate(x)"
    assert caret.strip() == "^" * len("R.frobnicate") and caret.index("^") == src.index("R.frobnicate")


def test_line_offset_applies_to_errors():
    text = HEAD + _y('R.frobnicate(x)')
    with pytest.raises(ParseError) as info:
        parse_module(text, line_offset=40)
    assert info.value.span.line == 45 and info.value.span.col == 9


def test_division_by_literal_zero():
    with pytest.raises(ParseError, match="division by zero"):  # Python literals are computed at parse time
        parse_module(HEAD + '''
@T.prim_func
def f(A: T.Buffer((2,), "int32")):
    A[0] = 4 // 0
''')
    # an immediate zero divisor is not folded (PRIM.DTYPE.3): the division fails when evaluated
    mod = parse_module(HEAD + '''
@T.prim_func
def f(A: T.Buffer((2,), "int32")):
    A[0] = T.int32(4) // 0
''')
    assert mod["f"].body.value == P.FloorDiv(P.IntImm(4, "int32"), P.IntImm(0, "int32"))


def test_out_of_range_prim_literal_in_shapes():
    with pytest.raises(ParseError, match="does not fit in int64"):
        parse_module(HEAD + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    s = R.shape([2 ** 70])
    return s
''')


def test_negative_tuple_index():
    with pytest.raises(ParseError, match="negative tuple indices"):
        parse_module(HEAD + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    t = (x, x)
    y = t[-1]
    return y
''')


def test_scalar_literal_dtypes_are_checked():
    with pytest.raises(ParseError, match="out of range for uint8"):
        parse_module(HEAD + '''
@R.function
def f():
    c = R.const(-1, "uint8")
    return c
''')
    assert P.IntImm(0, "int8").value == 0

"""PrimFuncs with a return value (TIR.FUNC.5, CALL.PRIMFUNC.1): ``T.ret`` / ``return``, parsed,
printed back and evaluated when Relax calls the function directly."""

import pytest

import relax_ref
from relax_ref.errors import ParseError, UnsupportedError
from relax_ref.script.printer.module import print_module

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"

SRC = '''
@I.ir_module
class M:
    @T.prim_func(private=True)
    def f(n: T.int64, m: T.int64) -> T.int64:
        RET(T.max(n, m) * T.int64(3) - n // T.int64(2))

    @T.prim_func(private=True)
    def is_even(n: T.int64) -> T.bool:
        if n % T.int64(2) == T.int64(0):
            RET(T.bool(True))
        RET(T.bool(False))

    @R.function
    def main(a: R.Prim("int64"), b: R.Prim("int64")):
        x = M.f(a, b)
        y = M.is_even(a)
        return (x, y)
'''


@pytest.mark.parametrize("spelling", ["T.ret", "return"])
def test_return_values_reach_relax(spelling):
    text = SRC.replace("RET(", "T.ret(") if spelling == "T.ret" else \
        SRC.replace("RET(T.bool(True))", "return T.bool(True)").replace("RET(T.bool(False))", "return T.bool(False)") \
        .replace("RET(T.max(n, m) * T.int64(3) - n // T.int64(2))", "return T.max(n, m) * T.int64(3) - n // T.int64(2)")
    mod = relax_ref.parse(HEAD + text)
    x, y = relax_ref.evaluate(mod, "main", 7, 2)
    assert int(x) == 7 * 3 - 3 and bool(y) is False
    x, y = relax_ref.evaluate(mod, "main", -4, 1)
    assert int(x) == 1 * 3 - (-2) and bool(y) is True
    again = relax_ref.parse(print_module(mod))
    relax_ref.assert_structural_equal(mod, again)


def test_ret_needs_a_return_type_of_its_dtype():
    with pytest.raises(ParseError, match="without a return type"):
        relax_ref.parse(HEAD + '''
@T.prim_func
def f(n: T.int64):
    T.ret(n)
''')
    with pytest.raises(ParseError, match="returning"):
        relax_ref.parse(HEAD + '''
@T.prim_func
def f(n: T.int64) -> T.int32:
    T.ret(n)
''')


def test_falling_off_the_end_is_not_implemented():
    mod = relax_ref.parse(HEAD + '''
@I.ir_module
class M:
    @T.prim_func(private=True)
    def f(n: T.int64) -> T.int64:
        if n > T.int64(0):
            T.ret(n)

    @R.function
    def main(a: R.Prim("int64")):
        x = M.f(a)
        return x
''')
    assert int(relax_ref.evaluate(mod, "main", 3)) == 3
    with pytest.raises(UnsupportedError, match="without T.ret"):
        relax_ref.evaluate(mod, "main", -3)

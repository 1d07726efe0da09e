"""R.emit_with_sinfo / R.emit_with_ty (TEXT.RELAX.1, TEXT.CALL.1): read, and printed for an operator call
with struct-info arguments that its script function does not take."""

import pytest

import relax_ref
from relax_ref.errors import ParseError
from relax_ref.ir import expr as rx

ALLOC = '''
from tvm.script import ir as I, relax as R
@I.ir_module
class M:
    @R.function
    def foo(x: R.Tensor((2, 3), "int32")):
        R.func_attr({"relax.force_pure": True})
        gv0: R.Tensor((2, 3), dtype="int32") = SPELLING(
            "relax.builtin.alloc_tensor",
            (R.shape([2, 3]), R.dtype("int32"), R.prim_value(0), R.str("global")),
            KW(R.Tensor((2, 3), dtype="int32"),),
        )
        return gv0
'''


@pytest.mark.parametrize("spelling,kw", [("R.emit_with_sinfo", ""), ("R.emit_with_ty", ""),
                                         ("R.emit_with_type", "ty_args=")])
def test_read(spelling, kw):
    mod = relax_ref.parse(ALLOC.replace("SPELLING", spelling).replace("KW", kw))
    call = mod["foo"].body.blocks[0].bindings[0].value
    assert isinstance(call, rx.Call) and call.op.name == "relax.builtin.alloc_tensor"
    assert len(call.args) == 4 and len(call.sinfo_args) == 1 and not call.attrs


@pytest.mark.parametrize("dialect,spelling", [("classic", "R.emit_with_sinfo"), ("tvm-0.25", "R.emit_with_sinfo"),
                                              ("tvm-0.27", "R.emit_with_ty")])
def test_printed_and_read_back(dialect, spelling):
    mod = relax_ref.parse(ALLOC.replace("SPELLING", "R.emit_with_sinfo").replace("KW", ""))
    text = mod.script(dialect=dialect)
    assert f'{spelling}("relax.builtin.alloc_tensor", ' in text
    assert relax_ref.structural_equal(relax_ref.parse(text), mod)


def test_unknown_operator():
    with pytest.raises(ParseError, match="name of a Relax operator"):
        relax_ref.parse(ALLOC.replace("SPELLING", "R.emit_with_sinfo").replace("KW", "")
                        .replace('"relax.builtin.alloc_tensor"', '"relax.no_such_op"'))

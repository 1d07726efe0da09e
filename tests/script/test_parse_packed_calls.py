"""``T.call_packed`` / ``T.call_cpacked`` with ``T.tvm_stack_make_array`` / ``T.tvm_stack_make_shape``
arguments: parsing, printing and round trips (TEXT.TIR.PACKED.1, TEXT.TIR.ROOT.1, TEXT.RT.1-2)."""

from __future__ import annotations

import pytest

import relax_ref
from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.errors import ParseError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.script.dialect import installed_tvm_dialect

TEXT = '''
# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def main(A: T.Buffer((T.int64(16),), "float32"), n: T.int64):
        T.call_cpacked("f", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(4), 0, 1, T.float32(0.0), 0), 1)
        T.call_packed("g", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n, 2), T.tvm_stack_make_shape(2, 1), 2, T.float32(0.0), n), "s", T.float32(2.5), T.bool(True))
'''


def _calls(mod):
    body = mod["main"].body
    return [s.value for s in body.seq]


def test_packed_calls_parse_to_the_intrinsics():
    mod = relax_ref.parse(TEXT)
    c, p = _calls(mod)
    assert (c.op, c.dtype) == ("tir.tvm_call_cpacked", "int32")
    assert (p.op, p.dtype) == ("tir.tvm_call_packed", "int32")
    assert p.args[0] == P.PrimStringImm("g") and p.args[2] == P.PrimStringImm("s")
    arr = p.args[1]
    assert (arr.op, arr.dtype) == ("tir.tvm_stack_make_array", "handle")
    assert arr.args[1].op == "tir.tvm_stack_make_shape" and arr.args[2].op == "tir.tvm_stack_make_shape"
    assert arr.args[4] == P.FloatImm(0.0, "float32")


@pytest.mark.parametrize("dialect", ["tvm", "classic"])
def test_packed_calls_round_trip(dialect):
    mod = relax_ref.parse(TEXT)
    text = mod.script(dialect=dialect)
    assert "T.call_packed(\"g\"" in text and "T.call_cpacked(\"f\"" in text
    assert structural_equal(relax_ref.parse(text), mod)


def test_tvm_call_packed_spelling_is_accepted():
    mod = relax_ref.parse(TEXT.replace("T.call_packed(", "T.tvm_call_packed(")
                          .replace("T.call_cpacked(", "T.tvm_call_cpacked("))
    assert structural_equal(mod, relax_ref.parse(TEXT))


def test_single_opaque_block_is_the_root_block():
    """TEXT.TIR.ROOT.1: a lone block without iteration variables is the root block, whatever its name."""
    text = '''
@T.prim_func(private=True, s_tir=True)
def main(A: T.Buffer((4,), "float32")):
    with T.sblock("sort_cpu"):
        T.reads()
        T.writes()
        T.call_packed("f", A.data)
'''
    mod = relax_ref.parse("from tvm.script import tirx as T\n" + text)
    f = mod["main"]
    assert isinstance(f.body, tir.BlockRealize) and f.body.block.name == "sort_cpu"
    for dialect in ("tvm", "classic"):
        again = relax_ref.parse(mod.script(dialect=dialect))
        assert structural_equal(again, mod) and again["main"].body.block.name == "sort_cpu"


@pytest.mark.parametrize("call, msg", [
    ('T.call_packed()', "function name"),
    ('T.call_packed(B.data)', "function name"),
    ('T.call_packed("f", x=1)', "unexpected keyword"),
    ('T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(4), 0, 1, 0)', "6 positional"),
    ('T.tvm_stack_make_array(B, T.tvm_stack_make_shape(4), 0, 1, 0, 0)', r"B\.data"),
    ('T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(4), 0, n, 0, 0)', "ndim"),
    ('T.tvm_stack_make_array(n, T.tvm_stack_make_shape(4), 0, 1, 0, 0)', "pointer"),
    ('T.tvm_stack_make_shape(T.float32(1.0))', "integers"),
])
def test_malformed_packed_calls(call, msg):
    text = f'''
from tvm.script import tirx as T

@T.prim_func(private=True)
def main(B: T.Buffer((4,), "float32"), n: T.int64):
    T.evaluate({call})
'''
    with pytest.raises(ParseError, match=msg):
        relax_ref.parse(text)


# -- TVM's own output ----------------------------------------------------------------------------------

GRAPH = '''
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor(("n", 3), dtype="int32")):
        n = T.int64()
        a = R.sort(x)
        b = R.argsort(x, descending=True, dtype="int32")
        c = R.argsort(y, axis=0, dtype="int64")
        d = R.topk(y, k=2, axis=0, ret_type="both", largest=False)
        e = R.topk(x, k=3, ret_type="values")
        f = R.topk(x, k=3, ret_type="indices", dtype="int64")
        g = R.sort(y, axis=0, descending=True)
        h = R.median(x, axis=None)
        i = R.median(y, axis=1, keepdims=True)
        return (a, b, c, d, e, f, g, h, i)
'''


@pytest.mark.tvm
@pytest.mark.parametrize("stage", ["dispatch", "legalize"])
def test_tvm_lowered_sort_modules_round_trip(stage):
    """TEXT.RT.2: the text TVM prints after DispatchSortScan (sort, argsort, topk) and LegalizeOps
    (median) parses; relax-ref prints exactly TVM 0.25's text, and TVM (0.25 or 0.27) reads it back to the same module."""
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    mod = tvm.script.from_source(GRAPH)
    if stage == "dispatch":
        with tvm.target.Target("llvm"):
            mod = relax.backend.DispatchSortScan()(mod)
    else:
        mod = relax.transform.LegalizeOps()(mod)
    text = mod.script()
    assert "T.call_packed(\"tvm.contrib.sort." in text
    ours = relax_ref.parse(text)
    printed = ours.script(dialect=installed_tvm_dialect())
    if installed_tvm_dialect() == "tvm-0.25":
        assert printed.strip() == text.strip()
    # TVM 0.27 writes every buffer parameter in the signature (align=8 and symbolic shapes included);
    # relax-ref writes such a buffer as a handle and T.match_buffer, which TVM 0.27 reads as the same module
    tvm.ir.assert_structural_equal(tvm.script.from_source(printed), tvm.script.from_source(text))
    assert structural_equal(relax_ref.parse(ours.script(dialect="classic")), ours)

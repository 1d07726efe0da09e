"""Texts printed by TVM 0.25 parse, with the structure TVM has (spec TEXT.*, TEXT.CONST.3-4).

The programs are built with the installed TVM (legalized, fused, with metadata constants) and
printed with ``mod.script(show_meta=True)``; the parsed IR is compared with TVM's objects.
"""

import functools
import re

import numpy as np
import pytest

from relax_ref.errors import ParseError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ops import registry
from relax_ref.script.dialect import get_dialect
from relax_ref.script.parser import parse_module

from script_helpers import parse_unknown_ops_with, record_call

tvm = pytest.importorskip("tvm")
pytestmark = pytest.mark.tvm

from tvm import relax, tirx  # noqa: E402

import tvm_compat as tc  # noqa: E402


@pytest.fixture(autouse=True)
def _test_ops(monkeypatch):
    parse_unknown_ops_with(monkeypatch, functools.partial(record_call, skip_none=True))


# ---------------------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------------------

def _build(params, body):
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = body(bb, *params)
            o = bb.emit_output(out)
        bb.emit_func_output(o)
    return bb.get()


def _programs():
    R = tvm.script.relax
    n = tirx.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 16), "float32"))
    w = relax.Var("w", R.Tensor((16, 8), "float32"))
    img = relax.Var("x", R.Tensor((1, 3, 8, 8), "float32"))
    ker = relax.Var("w", R.Tensor((4, 3, 3, 3), "float32"))
    x2 = relax.Var("x", R.Tensor((4, 8), "float32"))
    g = relax.Var("g", R.Tensor((8,), "float32"))
    b = relax.Var("b", R.Tensor((8,), "float32"))
    idx = relax.Var("i", R.Tensor((3,), "int64"))

    def split_concat(bb, x):
        t = bb.emit(relax.op.split(x, 2, axis=1))
        a = bb.emit(relax.TupleGetItem(t, 1))
        c = bb.emit(relax.TupleGetItem(t, 0))
        return bb.emit(relax.op.concat([a, c], axis=1))

    return {
        "softmax_matmul": _build([x, w], lambda bb, x, w: bb.emit(relax.op.nn.softmax(relax.op.matmul(x, w)))),
        "conv2d_relu": _build([img, ker], lambda bb, x, w: bb.emit(
            relax.op.nn.relu(relax.op.nn.conv2d(x, w, padding=1)))),
        "layer_norm": _build([x2, g, b], lambda bb, x, g, b: bb.emit(relax.op.nn.layer_norm(x, g, b, axes=[-1]))),
        "take": _build([x2, idx], lambda bb, x, i: bb.emit(relax.op.take(x, i, axis=0))),
        "strided_slice": _build([x2], lambda bb, x: bb.emit(
            relax.op.strided_slice(x, axes=[1], begin=[1], end=[7], strides=[2]))),
        "split_concat": _build([x2], split_concat),
        "constants": _build([x2], lambda bb, x: bb.emit(relax.op.add(
            relax.op.multiply(x, relax.const(np.arange(8, dtype="float32"))), relax.const(1.5, "float32")))),
    }


@pytest.fixture(scope="module")
def programs():
    return _programs()


def _variants(mod):
    legal = relax.transform.LegalizeOps()(mod)
    fused = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(legal))
    return {"raw": mod, "legal": legal, "fused": fused, "fusetir": relax.transform.FuseTIR()(fused)}


def _tvm_blocks(stmt):
    names = []

    def visit(s):
        if isinstance(s, tc.SBlock):
            names.append(tc.name(s))

    tc.post_order_stmts(stmt, visit)
    return names


def _our_blocks(stmt):
    out = []

    def visit(s):
        if isinstance(s, tir.BlockRealize):
            out.append(s.block.name)
            visit(s.block.body)
            if s.block.init is not None:
                visit(s.block.init)
        elif isinstance(s, tir.SeqStmt):
            for x in s.seq:
                visit(x)
        elif isinstance(s, (tir.For, tir.LetStmt, tir.While)):
            visit(s.body)
        elif isinstance(s, tir.IfThenElse):
            visit(s.then_case)
            if s.else_case is not None:
                visit(s.else_case)

    visit(stmt)
    return out


def _check_prim_func(ours: tir.PrimFunc, theirs) -> None:
    assert len(ours.params) == len(theirs.params)
    tbuffers = tc.buffers(theirs)
    for p, tp in zip(ours.params, theirs.params):
        assert p.dtype == tc.param_dtype(theirs, tp)
        if tp not in tbuffers:
            assert p.name == tc.name(tp)
        else:
            tb = tbuffers[tp]
            ob = ours.buffer_of(p)
            # TVM's printer renames duplicate buffer names with a numeric suffix
            assert ob is not None and re.fullmatch(re.escape(tc.buffer_name(tp, tb)) + r"(_\d+)?", ob.name)
            assert ob.dtype == str(tb.dtype)
            assert len(ob.shape) == len(tb.shape)
            for d, td in zip(ob.shape, tb.shape):
                if isinstance(td, tvm.tirx.IntImm):
                    assert d == P.IntImm(int(td), tc.dtype(td))
                else:
                    assert str(d) == str(td)
    tblocks = _tvm_blocks(theirs.body)
    assert tblocks  # every legalized kernel here is block-based
    assert sorted(_our_blocks(ours.body)) == sorted(tblocks)
    for k in theirs.attrs.keys() if theirs.attrs is not None else ():
        if k == "global_symbol":
            continue
        assert k in ours.attrs


def _check_relax_function(ours: rx.Function, theirs) -> None:
    assert [p.name_hint for p in ours.params] == [tc.name(p) for p in theirs.params]
    ours_names = [b.var.name_hint for blk in ours.body.blocks for b in blk.bindings]
    theirs_names = [tc.name(b.var) for blk in theirs.body.blocks for b in blk.bindings]
    assert ours_names == theirs_names
    for blk, tblk in zip(ours.body.blocks, theirs.body.blocks):
        assert isinstance(blk, rx.DataflowBlock) == isinstance(tblk, relax.DataflowBlock)
        for bd, tbd in zip(blk.bindings, tblk.bindings):
            assert isinstance(bd.var, rx.DataflowVar) == isinstance(tbd.var, relax.DataflowVar)


NAMES = ["softmax_matmul", "conv2d_relu", "layer_norm", "take", "strided_slice", "split_concat", "constants"]


@pytest.mark.parametrize("stage", ["raw", "legal", "fused", "fusetir"])
@pytest.mark.parametrize("name", NAMES)
def test_tvm_print_parses_with_tvm_structure(programs, name, stage):
    tmod = _variants(programs[name])[stage]
    mod = parse_module(tmod.script(show_meta=True))
    assert sorted(mod) == sorted(tc.name(gv) for gv in tmod.get_global_vars())
    for gv in tmod.get_global_vars():
        theirs = tmod[gv]
        ours = mod[tc.name(gv)]
        if isinstance(theirs, tvm.tirx.PrimFunc):
            assert isinstance(ours, tir.PrimFunc)
            _check_prim_func(ours, theirs)
        else:
            assert isinstance(ours, rx.Function)
            _check_relax_function(ours, theirs)
            assert ("global_symbol" in ours.attrs) == ("global_symbol" in (theirs.attrs or {}))


def test_call_tir_targets_are_the_module_global_vars(programs):
    tmod = _variants(programs["softmax_matmul"])["legal"]
    mod = parse_module(tmod.script())
    calls = [b.value for blk in mod["main"].body.blocks for b in blk.bindings if isinstance(b.value, rx.Call)]
    targets = {c.args[0].name_hint for c in calls if isinstance(c.op, rx.Op) and c.op.name == "relax.call_tir"}
    assert targets == {"matmul", "softmax"}
    for c in calls:
        if isinstance(c.op, rx.Op) and c.op.name == "relax.call_tir":
            assert c.args[0] is mod.get_global_var(c.args[0].name_hint)


# ---------------------------------------------------------------------------------------------------
# Metadata constants
# ---------------------------------------------------------------------------------------------------

CONSTANTS = [
    np.arange(12, dtype="float32").reshape(3, 4) / 7,
    np.array([[-(2 ** 62), 5, 2 ** 40]], dtype="int64"),
    np.array([[True, False, True], [False, False, True]]),
    (np.arange(5, dtype="float16") - 2.5) / 3,
    np.array([1.0, -0.0, np.inf, -np.inf], dtype="float32"),
    np.zeros((2, 0, 3), dtype="float32"),
    np.array([3, 200, 7], dtype="uint8"),
    np.array([[1, -2], [3, -4]], dtype="int8"),
]


def _constant_module():
    R = tvm.script.relax
    x = relax.Var("x", R.Tensor((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        fields = [bb.emit(relax.const(tvm.runtime.tensor(c))) for c in CONSTANTS]
        t = bb.emit(relax.Tuple(fields))
        bb.emit_func_output(t)
    return bb.get()


def test_metadata_constants_decode_exactly_like_tvm():
    tmod = _constant_module()
    text = tmod.script(show_meta=True)
    assert text.startswith("metadata = tvm.ir.load_json(")
    mod = parse_module(text)
    consts = [b.value for blk in mod["main"].body.blocks for b in blk.bindings if isinstance(b.value, rx.Constant)]
    theirs = [tc.constant_array(b.value) for blk in tmod["main"].body.blocks for b in blk.bindings
              if isinstance(b.value, tc.Constant)]
    assert len(consts) == len(CONSTANTS) == len(theirs)
    for ours, t, orig in zip(consts, theirs, CONSTANTS):
        assert ours.data.dtype == t.dtype == orig.dtype
        assert ours.data.shape == t.shape
        assert np.array_equal(ours.data, t, equal_nan=ours.data.dtype.kind == "f")
        assert ours.data.tobytes() == t.tobytes()


def test_metadata_bfloat16_constant():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    arr = np.array([1.5, -2.25, 3.0], dtype=ml_dtypes.bfloat16)
    R = tvm.script.relax
    x = relax.Var("x", R.Tensor((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        c = bb.emit(relax.const(tvm.runtime.tensor(arr)))
        bb.emit_func_output(c)
    mod = parse_module(bb.get().script(show_meta=True))
    (b,) = mod["main"].body.blocks[0].bindings
    assert b.value.data.dtype == arr.dtype and b.value.data.tobytes() == arr.tobytes()


def test_metadata_omitted_is_a_clear_error():
    text = _constant_module().script()
    assert "Metadata omitted" in text
    with pytest.raises(ParseError, match="omitted") as info:
        parse_module(text)
    assert info.value.span.line > 0


def test_metadata_index_out_of_range():
    key = get_dialect(tc.DIALECT).constant_key
    text = _constant_module().script(show_meta=True).replace(f'metadata["{key}"][0]', f'metadata["{key}"][99]')
    assert f'metadata["{key}"][99]' in text
    with pytest.raises(ParseError, match="out of range"):
        parse_module(text)


def test_non_finite_scalar_constants_as_tvm_prints_them():
    R = tvm.script.relax
    x = relax.Var("x", R.Tensor((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        a = bb.emit(relax.const(float("-inf"), "float32"))
        c = bb.emit(relax.const(float("nan"), "float32"))
        d = bb.emit(relax.const(float("inf"), "float16"))
        bb.emit_func_output(relax.Tuple([a, c, d]))
    text = bb.get().script()
    assert 'R.const("-inf", "float32")' in text
    mod = parse_module(text)
    a, c, d = [b.value.data for b in mod["main"].body.blocks[0].bindings]
    assert a == -np.inf and np.isnan(c) and d == np.inf and d.dtype == np.float16


def test_tvm_if_else_print_with_branch_names():
    src = '''
@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    if c:
        y = R.add(x, x)
        z = R.multiply(y, y)
    else:
        z = R.subtract(x, x)
    return z
'''
    tf = tvm.script.from_source(src)
    text = tf.script()
    assert "z_then" in text
    mod = parse_module(text)
    (b,) = mod["main"].body.blocks[0].bindings
    (tb,) = tf.body.blocks[0].bindings
    assert isinstance(b.value, rx.If) and b.var.name_hint == tc.name(tb.var) == "z"
    for ours, theirs in ((b.value.true_branch, tb.value.true_branch), (b.value.false_branch, tb.value.false_branch)):
        assert [x.var.name_hint for blk in ours.blocks for x in blk.bindings] == \
            [tc.name(x.var) for blk in theirs.blocks for x in blk.bindings]
        assert ours.body.name_hint == tc.name(theirs.body)


def test_tvm_prim_func_statements_round_trip_through_tvm_print():
    src = '''
@T.prim_func(private=True)
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), n: T.int32):
    t = A[0] * T.float32(2)
    w: T.let[T.float32] = A[2] + T.float32(1)
    for i in range(4):
        B[i] = t + w
    if n > 2:
        B[0] = T.float32(1)
    else:
        B[1] = T.float32(2)
    assert n > 0, "n positive"
    k: T.int32 = 0
    while k < n:
        k = k + 1
    C = T.alloc_buffer((4,))
    C[0] = T.Cast("float32", T.truncdiv(n, 3) + T.truncmod(n, 2) + n // 2)
'''
    tf = tvm.script.from_source(src)
    f = parse_module(tf.script())["main"]
    kinds = [type(s).__name__ for s in f.body.seq]
    assert kinds == [type(s).__name__.replace("SBlock", "Block") for s in tf.body.seq]
    assert f.body.seq[-1].value.value.a.a == P.Div(f.params[2], P.IntImm(3, "int32"))


@pytest.mark.parametrize("stage", ["legal", "fusetir"])
@pytest.mark.parametrize("name", ["softmax_matmul", "conv2d_relu", "split_concat", "constants"])
def test_tvm_print_normalizes_and_is_well_formed(programs, name, stage, monkeypatch):
    """With the real registry only (no test operators), parse -> normalize -> well-formedness."""
    pytest.importorskip("relax_ref.static.normalize")
    pytest.importorskip("relax_ref.static.well_formed")
    from relax_ref.script.parser import parse

    monkeypatch.undo()
    if registry.lookup_script("R.call_tir") is None:
        pytest.skip("R.call_tir is not registered yet")
    tmod = _variants(programs[name])[stage]
    mod = parse(tmod.script(show_meta=True))
    main = mod["main"]
    assert main.ret_struct_info is not None
    for blk in main.body.blocks:
        for b in blk.bindings:
            assert b.var.struct_info is not None

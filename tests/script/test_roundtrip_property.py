"""Property: random IR prints and reads back to a structurally equal module in both dialects
(spec rule TEXT.RT.1).

The generator builds raw Relax IR -- random graphs of registered element-wise operators over
static and symbolic shapes, scalar constants (non-finite ones included), tuples and
``TupleGetItem``, ``If``, ``match_cast`` with new symbolic variables, shape and prim values, local
functions, dataflow blocks -- plus small random PrimFuncs (loops of every kind, blocks with
spatial/reduce/opaque axes, ``T.init`` reductions, predicates, allocations, lets, scalar arithmetic
and intrinsics) called through ``R.call_tir``. The module is normalized, printed, parsed and
compared.
"""

from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relax_ref.static.normalize import normalize_module
from relax_ref.analysis.structural_equal import assert_structural_equal
from relax_ref.ir import (
    BindingBlock, Call, Constant, DataflowBlock, DataflowVar, Function, GlobalVar, If, IRModule, MatchCast, Op,
    PrimValue, SeqExpr, ShapeExpr, Tuple, TupleGetItem, Var, VarBinding,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.script.dialect import DIALECTS, installed_tvm_dialect
from relax_ref.script.parser import parse
from relax_ref.script.printer import print_module

UNARY = ["relax.exp", "relax.negative", "relax.abs", "relax.nn.relu", "relax.sigmoid", "relax.tanh",
         "relax.square", "relax.floor"]
BINARY = ["relax.add", "relax.subtract", "relax.multiply", "relax.maximum", "relax.minimum", "relax.divide"]
# Literal values. 0 and 1 matter: TVM folds ``x + 0``/``x * 1``/``2 * 3`` when it reads text, so the
# printer spells such nodes with node constructors (``T.Add(x, 0)``).
FLOATS = st.sampled_from([0.0, 1.0, 0.5, -2.25, 3.0, 1e-5, 1e30, float("inf"), float("-inf"), float("nan")])
INTS = st.integers(min_value=0, max_value=9)
DIVISORS = st.integers(min_value=1, max_value=9)  # TVM rejects a literal division by zero
I64 = lambda v: P.IntImm(v, "int64")  # noqa: E731


def tensor(shape, dtype="float32"):
    return TensorStructInfo(ShapeExpr(list(shape)), dtype)


# ---------------------------------------------------------------------------------------------------
# random PrimFuncs
# ---------------------------------------------------------------------------------------------------


@st.composite
def tir_value(draw, loads, idx_vars, depth=0):
    """A float32 scalar expression over buffer loads and index variables."""
    kinds = ["load", "const"] + (["arith", "arith", "div", "intrinsic", "select", "if_then_else", "cast"]
                                 if depth < 2 else [])
    choice = draw(st.sampled_from(kinds))
    if choice == "load":
        return draw(st.sampled_from(loads))
    if choice == "const":
        return P.FloatImm(draw(FLOATS), "float32")
    a = draw(tir_value(loads, idx_vars, depth + 1))
    b = draw(tir_value(loads, idx_vars, depth + 1))
    if choice == "arith":
        op = draw(st.sampled_from([P.Add, P.Sub, P.Mul, P.Min, P.Max]))
        if op in (P.Min, P.Max) and isinstance(a, P.FloatImm) and isinstance(b, P.FloatImm):
            b = loads[1]  # TVM re-prints Min(c1, c2) as T.min(c1, c2), which folds when read
        return op(a, b)
    if choice == "div":
        if isinstance(b, P.FloatImm) and b.value == 0:
            b = loads[0]  # TVM's own printer fails on a literal division by zero
        return P.Div(a, b)
    if choice == "intrinsic":
        return P.PrimCall("float32", draw(st.sampled_from(["tir.exp", "tir.sqrt", "tir.tanh"])), (a,))
    iv = draw(st.sampled_from(idx_vars))
    k = I64(draw(DIVISORS))
    cond = draw(st.sampled_from([P.lt, P.gt, P.ge, P.ne]))(iv, I64(draw(INTS)))
    if choice == "select":
        return P.Select(cond, a, b)
    if choice == "if_then_else":
        return P.PrimCall("float32", "tir.if_then_else", (cond, a, b))
    ix = draw(st.sampled_from([P.FloorDiv, P.FloorMod, P.Div, P.Mod, P.Add, P.Mul]))(iv, k)
    return P.Cast("float32", ix)


@st.composite
def prim_funcs(draw, rows=None):
    """An element-wise or row-reduction kernel over ``(rows, 4)``; ``rows=None`` is symbolic."""
    d0 = P.PrimVar("m") if rows is None else rows
    d1 = I64(4)
    reduce = draw(st.booleans())
    ha, hb = P.PrimVar("var_A", "handle"), P.PrimVar("var_B", "handle")
    A = tir.Buffer("A", (d0, d1), "float32")
    B = tir.Buffer("B", (d0,) if reduce else (d0, d1), "float32")
    i, j = P.PrimVar("i", "int64"), P.PrimVar("j", "int64")
    vi, vj = P.PrimVar("vi", "int64"), P.PrimVar("vj", "int64")
    one = I64(1)
    kinds = draw(st.lists(st.sampled_from(["serial", "serial", "parallel", "unrolled", "vectorized"]),
                          min_size=2, max_size=2))
    tmp = tir.Buffer("tmp", (d1,), "float32", scope=draw(st.sampled_from(["global", "local"])))
    loads = [tir.BufferLoad(A, (vi, vj)), tir.BufferLoad(tmp, (vj,))]
    value = draw(tir_value(loads, [vi, vj]))
    reads = (tir.BufferRegion(A, (tir.Range(vi, one), tir.Range(vj, one))), tir.BufferRegion(tmp, (tir.Range(vj, one),)))
    if reduce:
        store = tir.BufferStore(B, tir.BufferLoad(B, (vi,)) + value, (vi,))
        init = tir.BufferStore(B, P.FloatImm(0.0, "float32"), (vi,))
        writes = (tir.BufferRegion(B, (tir.Range(vi, one),)),)
        jtype = "reduce"
    else:
        store = tir.BufferStore(B, value, (vi, vj))
        init = None
        writes = (tir.BufferRegion(B, (tir.Range(vi, one), tir.Range(vj, one))),)
        jtype = draw(st.sampled_from(["spatial", "opaque"]))
    if draw(st.booleans()):
        t = P.PrimVar("t", "float32")
        body = tir.SeqStmt([tir.Bind(t, loads[0] * P.FloatImm(2.5, "float32") - value),
                            tir.BufferStore(tmp, t, (vj,)), store])
    else:
        body = store
    zero = I64(0)
    block = tir.Block("compute", (tir.IterVar(vi, tir.Range(zero, d0)), tir.IterVar(vj, tir.Range(zero, d1), jtype)),
                      reads, writes, body, init, annotations=draw(st.sampled_from([{}, {"tag": "x", "n": 3}])))
    pred = P.lt(i, d0) if draw(st.booleans()) else None
    realize = tir.BlockRealize((i, j), pred, block)
    loop = tir.For(i, zero, d0, kinds[0], tir.For(j, zero, d1, kinds[1], realize))
    k = P.PrimVar("k", "int64")
    fill = tir.For(k, zero, d1, "serial", tir.BufferStore(tmp, P.FloatImm(0.5, "float32"), (k,)))
    root = tir.BlockRealize((), None, tir.Block("root", body=tir.SeqStmt([fill, loop]), alloc_buffers=(tmp,)))
    attrs = {"tir.noalias": True}
    if draw(st.booleans()):
        attrs["op_pattern"] = 4
    f = tir.PrimFunc((ha, hb), root, ((ha, A), (hb, B)), attrs=attrs)
    return f, reduce


# ---------------------------------------------------------------------------------------------------
# random Relax functions
# ---------------------------------------------------------------------------------------------------


@dataclass
class Gen:
    draw: object
    shape: list
    pool: List[Var]                      # tensors of the main shape
    others: List[Var] = field(default_factory=list)   # other tensors (unary ops only)
    bindings: List[object] = field(default_factory=list)
    kinds: List[str] = field(default_factory=list)    # "pure" | "control" per binding
    kernels: Dict[GlobalVar, tir.PrimFunc] = field(default_factory=dict)
    counter: int = 0

    def fresh(self, hint="v"):
        self.counter += 1
        return Var(f"{hint}{self.counter}")

    def operand(self):
        if self.draw(st.integers(0, 4)) == 0:
            return Constant(np.array(self.draw(FLOATS), dtype="float32"))
        return self.draw(st.sampled_from(self.pool))

    def emit(self, value, kind="pure", pool=True, hint="v"):
        v = self.fresh(hint)
        self.bindings.append(VarBinding(v, value))
        self.kinds.append(kind)
        if pool:
            self.pool.append(v)
        return v


def step(g: Gen, cond_var):
    draw = g.draw
    kind = draw(st.sampled_from(["unary", "binary", "binary", "tuple", "values", "if", "match_cast",
                                 "local_fn", "call_tir", "other_unary"]))
    if kind == "unary":
        g.emit(Call(Op(draw(st.sampled_from(UNARY))), (draw(st.sampled_from(g.pool)),)))
    elif kind == "binary":
        g.emit(Call(Op(draw(st.sampled_from(BINARY))), (g.operand(), draw(st.sampled_from(g.pool)))))
    elif kind == "tuple":
        a, b = draw(st.sampled_from(g.pool)), draw(st.sampled_from(g.pool))
        t = g.emit(Tuple((a, Tuple((b,)), PrimValue(I64(draw(INTS))))), pool=False, hint="t")
        g.emit(TupleGetItem(t, draw(st.sampled_from([0]))))
    elif kind == "values":
        dims = [d for d in g.shape if isinstance(d, P.PrimVar)] or [I64(3)]
        d = dims[0]
        g.emit(ShapeExpr([d * I64(draw(INTS)), P.floordiv(d, I64(draw(DIVISORS))) + I64(draw(INTS))]),
               pool=False, hint="s")
        g.emit(PrimValue(d + I64(draw(INTS))), pool=False, hint="p")
    elif kind == "if" and cond_var is not None:
        def branch(hint):
            t = Var(hint)
            op = draw(st.sampled_from(UNARY))
            return SeqExpr([BindingBlock([VarBinding(t, Call(Op(op), (draw(st.sampled_from(g.pool)),)))])], t)
        g.emit(If(cond_var, branch("a"), branch("b")), kind="control", hint="y")
    elif kind == "match_cast":
        src = draw(st.sampled_from(g.pool))
        new = [P.PrimVar(f"a{g.counter}_{k}") for k in range(len(g.shape))]
        v = g.fresh("mc")
        g.bindings.append(MatchCast(v, src, tensor(new)))
        g.kinds.append("pure")
        g.others.append(v)
    elif kind == "local_fn":
        p = Var("p", struct_info=tensor(g.shape))
        r = Var("r")
        body = SeqExpr([BindingBlock([VarBinding(r, Call(Op(draw(st.sampled_from(UNARY))), (p,)))])], r)
        fn = g.emit(Function([p], body, tensor(g.shape)), kind="control", pool=False, hint="f")
        g.emit(Call(fn, (draw(st.sampled_from(g.pool)),)), kind="control")
    elif kind == "call_tir":
        if len(g.shape) != 2 or g.shape[1] != I64(4):
            return
        rows = None if isinstance(g.shape[0], P.PrimVar) else g.shape[0]
        f, reduce = draw(prim_funcs(rows))
        gv = GlobalVar(f"kernel{len(g.kernels)}")
        g.kernels[gv] = f
        out = tensor([g.shape[0]] if reduce else g.shape)
        call = Call(Op("relax.call_tir"), (gv, Tuple((draw(st.sampled_from(g.pool)),))), sinfo_args=(out,))
        v = g.emit(call, pool=not reduce, hint="k")
        if reduce:
            g.others.append(v)
    elif kind == "other_unary" and g.others:
        v = g.emit(Call(Op(draw(st.sampled_from(UNARY))), (draw(st.sampled_from(g.others)),)), pool=False)
        g.others.append(v)


def _substitute(e, m):
    """Replace vars in the generated expression kinds."""
    if isinstance(e, Var):
        return m.get(e, e)
    if isinstance(e, Call):
        return Call(_substitute(e.op, m), tuple(_substitute(a, m) for a in e.args), e.attrs, e.sinfo_args)
    if isinstance(e, Tuple):
        return Tuple(tuple(_substitute(f, m) for f in e.fields))
    if isinstance(e, TupleGetItem):
        return TupleGetItem(_substitute(e.tuple_value, m), e.index)
    return e


def _uses(e, out):
    if isinstance(e, Var):
        out.add(e)
    elif isinstance(e, Call):
        _uses(e.op, out)
        for a in e.args:
            _uses(a, out)
    elif isinstance(e, Tuple):
        for f in e.fields:
            _uses(f, out)
    elif isinstance(e, TupleGetItem):
        _uses(e.tuple_value, out)
    elif isinstance(e, If):
        _uses(e.cond, out)
        for br in (e.true_branch, e.false_branch):
            for b in br.blocks:
                for x in b.bindings:
                    _uses(x.value, out)
    elif isinstance(e, SeqExpr):
        _uses(e.body, out)
    return out


def blocks_of(g: Gen, ret: Var, draw):
    """Split the bindings into plain and dataflow blocks; dataflow-local vars become DataflowVars."""
    n = len(g.bindings)
    cut = sorted(draw(st.sets(st.integers(0, n), max_size=3)) | {0, n})
    segments = [(a, b) for a, b in zip(cut, cut[1:]) if a < b]
    remap: Dict[Var, Var] = {}
    blocks = []
    for a, b in segments:
        seg = g.bindings[a:b]
        df = draw(st.booleans()) and all(k == "pure" for k in g.kinds[a:b])
        later = set()
        for x in g.bindings[b:]:
            _uses(x.value, later)
        later.add(ret)
        out = []
        for x in seg:
            value = _substitute(x.value, remap)
            var = x.var
            if df and var not in later:
                nv = DataflowVar(var.name_hint)
                remap[var] = nv
                var = nv
            if isinstance(x, MatchCast):
                out.append(MatchCast(var, value, x.struct_info))
            else:
                out.append(VarBinding(var, value))
        blocks.append((DataflowBlock if df else BindingBlock)(out))
    return blocks


@st.composite
def modules(draw):
    n = P.PrimVar("n")
    rank = draw(st.integers(1, 3))
    shape = [draw(st.sampled_from([n, I64(2), I64(3), I64(4)])) for _ in range(rank)]
    if draw(st.booleans()):
        shape = [n, I64(4)]
    x = Var("x", struct_info=tensor(shape))
    y = Var("y", struct_info=tensor(shape))
    c = Var("c", struct_info=TensorStructInfo(ShapeExpr([]), "bool"))
    g = Gen(draw, shape, [x, y])
    for _ in range(draw(st.integers(1, 7))):
        step(g, c)
    ret = g.emit(Call(Op("relax.add"), (draw(st.sampled_from(g.pool)), x)), hint="out")
    blocks = blocks_of(g, ret, draw)
    attrs = {"global_symbol": "main"}
    if draw(st.booleans()):
        attrs["num_input"] = 1
    main = Function([x, y, c], SeqExpr(blocks, ret), None, attrs=attrs)
    funcs = {GlobalVar("main"): main}
    funcs.update(g.kernels)
    return normalize_module(IRModule(funcs))


@given(st.data())
def test_random_modules_roundtrip(data):
    mod = data.draw(modules())
    for dialect in DIALECTS:
        text = print_module(mod, dialect=dialect)
        back = parse(text)
        assert_structural_equal(mod, back)


@given(st.data())
def test_random_prim_funcs_roundtrip(data):
    f, _ = data.draw(prim_funcs(data.draw(st.sampled_from([None, I64(2), I64(3)]))))
    mod = IRModule({GlobalVar("kernel"): f})
    for dialect in DIALECTS:
        back = parse(print_module(mod, dialect=dialect))
        assert_structural_equal(mod, back)


@pytest.mark.tvm
@settings(max_examples=15)
@given(st.data())
def test_random_modules_tvm_spelling_is_accepted_by_tvm(data):
    """TVM 0.25 reads the tvm spelling, and its re-print reads back to the same module."""
    tvm = pytest.importorskip("tvm")
    mod = data.draw(modules())
    tvm_mod = tvm.script.from_source(print_module(mod, dialect=installed_tvm_dialect()))
    assert_structural_equal(mod, parse(tvm_mod.script(show_meta=True)))

"""Parsing TensorIR (``@T.prim_func``) in the classic and the TVM 0.25 spellings (spec TEXT.TIR.1-5)."""

import math
import textwrap

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.script.parser import parse_function, parse_module
from program_texts import ADDN_TOP

TVM_HEADER = "from tvm.script import tirx as T\n"
CLASSIC_HEADER = "from tvm.script import tir as T\n"


def pf(text: str) -> tir.PrimFunc:
    return parse_function(text, normalize=False)


def walk(s):
    """All statements of a tree, pre-order."""
    yield s
    if isinstance(s, tir.SeqStmt):
        for x in s.seq:
            yield from walk(x)
    elif isinstance(s, tir.BlockRealize):
        yield from walk(s.block)
    elif isinstance(s, tir.Block):
        if s.init is not None:
            yield from walk(s.init)
        yield from walk(s.body)
    else:
        for a in ("body", "then_case", "else_case"):
            v = getattr(s, a, None)
            if isinstance(v, tir.Stmt):
                yield from walk(v)


def blocks(f):
    return [s for s in walk(f.body) if isinstance(s, tir.Block)]


MATMUL_TVM = TVM_HEADER + '''
@T.prim_func(private=True, s_tir=True)
def matmul(var_x: T.handle, w: T.Buffer((T.int64(16), T.int64(8)), "float32"), var_out: T.handle):
    T.func_attr({"tirx.noalias": True})
    n = T.int64()
    x = T.match_buffer(var_x, (n, T.int64(16)))
    out = T.match_buffer(var_out, (n, T.int64(8)))
    # with T.sblock("root"):
    acc = T.sblock_alloc_buffer((n, T.int64(8)))
    for i0, i1, k in T.grid(n, T.int64(8), T.int64(16)):
        with T.sblock("matmul"):
            v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
            T.reads(x[v_i0, v_k], w[v_k, v_i1])
            T.writes(acc[v_i0, v_i1])
            with T.init():
                acc[v_i0, v_i1] = T.float32(0.0)
            acc[v_i0, v_i1] = acc[v_i0, v_i1] + x[v_i0, v_k] * w[v_k, v_i1]
    for i0, i1 in T.grid(n, T.int64(8)):
        with T.sblock("relu"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.sblock_attr({"op": "relu"})
            out[v0, v1] = T.max(acc[v0, v1], T.float32(0.0))
'''


def test_tvm_spelling_matmul_structure():
    f = pf(MATMUL_TVM)
    assert "global_symbol" not in f.attrs and f.attrs["tirx.noalias"] is True
    var_x, w_handle, var_out = f.params
    assert var_x.dtype == "handle" and var_x.name == "var_x"
    bm = dict((p.name, b) for p, b in f.buffer_map)
    x, w, out = bm["var_x"], bm["w"], bm["var_out"]
    n = x.shape[0]
    assert isinstance(n, P.PrimVar) and n.dtype == "int64" and out.shape[0] is n
    assert w.shape == (P.IntImm(16, "int64"), P.IntImm(8, "int64")) and w.dtype == "float32"
    # root block rule: the body is wrapped in a root block holding the top-level block allocation
    assert isinstance(f.body, tir.BlockRealize) and f.body.block.name == "root"
    (acc,) = f.body.block.alloc_buffers
    assert acc.name == "acc" and acc.shape[0] is n
    mm, relu = [b for b in blocks(f) if b.name != "root"]
    assert [iv.iter_type for iv in mm.iter_vars] == ["spatial", "spatial", "reduce"]
    assert all(iv.var.dtype == "int64" for iv in mm.iter_vars)
    assert mm.iter_vars[2].dom == tir.Range(P.IntImm(0, "int64"), P.IntImm(16, "int64"))
    assert [r.buffer for r in mm.reads] == [x, w] and [r.buffer for r in mm.writes] == [acc]
    assert isinstance(mm.init, tir.BufferStore) and mm.init.value == P.FloatImm(0.0, "float32")
    assert relu.annotations["op"] == "relu"
    store = relu.body
    assert isinstance(store.value, P.Max) and store.buffer is out
    # loops: T.grid nests, loop var dtype follows the extent
    loops = [s for s in walk(f.body) if isinstance(s, tir.For)]
    assert loops[0].loop_var.dtype == "int64" and loops[0].extent is n and loops[0].kind == "serial"
    realize = [s for s in walk(f.body) if isinstance(s, tir.BlockRealize)][1]
    assert realize.iter_values == tuple(l.loop_var for l in loops[:3])


CLASSIC = CLASSIC_HEADER + '''
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    C = T.alloc_buffer((128,))
    for i in T.serial(128):
        for k in T.unroll(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vk = T.axis.reduce(128, k)
                T.reads([A[vi, vk]])
                T.writes([C[vi]])
                T.block_attr({"meta": 1})
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]
    for i in T.parallel(0, 128):
        with T.block("B"):
            vi = T.axis.S(128, i)
            T.where(i < 128)
            tmp = T.alloc_buffer((1,), scope="local")
            tmp[0] = C[vi] * T.float32(2)
            B[vi] = tmp[0]
'''


def test_classic_spelling_blocks_and_allocations():
    f = pf(CLASSIC)
    assert f.attrs["global_symbol"] == "main" and f.attrs["tir.noalias"] is True
    root = f.body
    assert isinstance(root, tir.BlockRealize) and root.block.name == "root"
    (c,) = root.block.alloc_buffers  # classic T.alloc_buffer at the top level is a root allocation
    assert c.name == "C" and c.shape == (P.IntImm(128, "int32"),)
    cblk, bblk = [b for b in blocks(f) if b.name != "root"]
    assert cblk.annotations["meta"] == 1 and cblk.reads[0].buffer.name == "A"
    assert [iv.var.dtype for iv in cblk.iter_vars] == ["int32", "int32"]
    (tmp,) = bblk.alloc_buffers  # inside a block: the block's allocation
    assert tmp.scope == "local"
    realize = [s for s in walk(f.body) if isinstance(s, tir.BlockRealize)][2]
    assert isinstance(realize.predicate, P.LT)
    kinds = [s.kind for s in walk(f.body) if isinstance(s, tir.For)]
    assert kinds == ["serial", "unrolled", "parallel"]
    assert not any(isinstance(s, tir.AllocBuffer) for s in walk(f.body))


def test_tvm_flat_alloc_buffer_and_scalars():
    f = pf(TVM_HEADER + '''
@T.prim_func(private=True)
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), n: T.int32):
    t = A[0] * T.float32(2)
    u: T.float32 = A[1]
    u = u + t
    w: T.let[T.float32] = A[2] + T.float32(1)
    z: T.let = n + 1
    q = T.bind(n * 2)
    for i in range(4):
        B[i] = t + u + w + T.Cast("float32", z + q)
    C = T.alloc_buffer((4,))
    C[0] = T.float32(1)
    k: T.int32 = 0
    while k < n:
        k = k + 1
''')
    stmts = f.body.seq
    kinds = [type(s).__name__ for s in stmts]
    assert kinds[:7] == ["AllocBuffer", "BufferStore", "AllocBuffer", "BufferStore", "BufferStore", "Bind", "Bind"]
    t_buf = stmts[0].buffer
    assert t_buf.name == "t" and t_buf.scope == "local" and t_buf.shape == (P.IntImm(1, "int32"),)
    assert t_buf.dtype == "float32"
    u_buf = stmts[2].buffer
    upd = stmts[4]
    assert upd.buffer is u_buf and isinstance(upd.value, P.Add)
    assert upd.value.a == tir.BufferLoad(u_buf, (P.IntImm(0, "int32"),))  # reads of a scalar load x[0]
    w_bind, z_bind = stmts[5], stmts[6]
    assert w_bind.var.dtype == "float32" and z_bind.var.dtype == "int32"
    q_bind = stmts[7]
    assert isinstance(q_bind, tir.Bind) and q_bind.var.name == "q"
    loop = stmts[8]
    assert isinstance(loop, tir.For) and loop.loop_var.dtype == "int32"
    assert isinstance(stmts[9], tir.AllocBuffer) and stmts[9].buffer.name == "C"
    assert isinstance(stmts[-1], tir.While)
    assert not isinstance(f.body, tir.BlockRealize)  # no blocks: no root block


def test_classic_scalar_assignment_is_a_let_statement():
    f = pf(CLASSIC_HEADER + '''
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    t = A[0] * T.float32(2)
    u: T.float32 = t + T.float32(1)
    A[1] = u
    A[2] = t
''')
    let = f.body
    assert isinstance(let, tir.LetStmt) and let.var.name == "t" and let.var.dtype == "float32"
    inner = let.body
    assert isinstance(inner, tir.LetStmt) and inner.var.name == "u"
    s1, s2 = inner.body.seq
    assert s1.value is inner.var and s2.value is let.var


def test_explicit_root_block_is_not_wrapped_again():
    f = pf(CLASSIC_HEADER + '''
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    with T.block("root"):
        B = T.alloc_buffer((4,))
        for i in range(4):
            with T.block("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]
''')
    assert f.body.block.name == "root" and f.body.block.alloc_buffers[0].name == "B"
    assert [b.name for b in blocks(f)] == ["root", "b"]


def test_loop_dtypes_literals_and_casts():
    f = pf(TVM_HEADER + '''
@T.prim_func
def g(B: T.Buffer((4,), "float32"), n: T.int64, m: T.int32):
    for i in range(n):
        B[i] = 1
    for j in range(2, n):
        B[j] = m
    for a, b in T.grid(2, n):
        B[a + b] = T.float32(1)
    B[0] = T.ceildiv(n, 3)
    B[1] = T.abs(T.Cast("float32", n)) + T.Cast("float32", T.abs(n))
    B[2] = T.float32(n) + T.max_value("float32") + T.infinity("float32") + T.min_value("float32")
    B[3] = T.float32("-inf")
''')
    loops = [s for s in walk(f.body) if isinstance(s, tir.For)]
    i, j, a, b = loops
    assert i.loop_var.dtype == "int64" and i.min == P.IntImm(0, "int64")
    st = i.body
    assert st.value == P.FloatImm(1.0, "float32")  # literal stored with the buffer's dtype
    assert j.min == P.IntImm(2, "int64") and j.extent == P.Sub(j.extent.a, P.IntImm(2, "int64"))
    assert j.body.value == P.Cast("float32", j.body.value.value)  # int32 value cast to float32 on store
    assert a.loop_var.dtype == "int32" and b.loop_var.dtype == "int64"
    idx = b.body.indices[0]
    assert idx == P.Add(P.Cast("int64", a.loop_var), b.loop_var)  # int32 + int64 promotes
    stores = [s for s in walk(f.body) if isinstance(s, tir.BufferStore)][3:]
    ceil = stores[0].value.value
    assert isinstance(ceil, P.FloorDiv)
    fabs = stores[1].value.a
    assert isinstance(fabs, P.PrimCall) and fabs.op == "tir.fabs"
    assert isinstance(stores[1].value.b.value, P.Select)
    limits = stores[2].value
    assert limits.b.value == np_f32_min()
    assert math.isinf(limits.a.b.value) and limits.a.a.b.value == -np_f32_min()
    assert stores[3].value == P.FloatImm(-math.inf, "float32")


def np_f32_min():
    import numpy as np

    return float(np.finfo(np.float32).min)


def test_intrinsics_and_integer_divisions():
    f = pf(TVM_HEADER + '''
@T.prim_func
def g(A: T.Buffer((4,), "float32"), I: T.Buffer((4,), "int32"), n: T.int32):
    A[0] = T.exp(A[1]) + T.sqrt(A[2]) + T.pow(A[0], T.float32(2)) + T.if_then_else(n > 0, A[0], A[1])
    A[1] = T.Select(T.isnan(A[0]), T.float32(0), A[0])
    I[0] = T.truncdiv(n, 3) + T.truncmod(n, 2) + n // 2 + n % 3 + T.Div(n, 4) + T.Mod(n, 5)
    I[1] = T.min(n, 3) + T.max(n, 1) + T.cast(A[0], "int32")
''')
    s0, s1, s2, s3 = f.body.seq
    e = s0.value
    calls = [x for x in _prims(e) if isinstance(x, P.PrimCall)]
    assert [c.op for c in calls] == ["tir.exp", "tir.sqrt", "tir.pow", "tir.if_then_else"]
    assert calls[0].dtype == "float32"
    assert isinstance(s1.value, P.Select) and s1.value.condition.op == "tir.isnan"
    assert s1.value.condition.dtype == "bool"
    kinds = {type(x).__name__ for x in _prims(s2.value)}
    assert {"Div", "Mod", "FloorDiv", "FloorMod"} <= kinds
    assert {"Min", "Max", "Cast"} <= {type(x).__name__ for x in _prims(s3.value)}


def _prims(e):
    yield e
    for c in P.children(e):
        yield from _prims(c)


def test_if_while_assert_evaluate():
    f = pf(TVM_HEADER + '''
@T.prim_func
def g(A: T.Buffer((4,), "int32"), n: T.int32):
    if n > 2:
        A[0] = 1
    elif n > 1:
        A[0] = 2
    else:
        A[1] = 3
    assert n > 0, "n must be positive"
    assert n < 100, ("ValueError", ["n is ", "small"])
    T.evaluate(0)
    T.evaluate(T.call_extern("int32", "my_fn", n))
''')
    ite, a1, a2, ev0, ev1 = f.body.seq
    assert isinstance(ite, tir.IfThenElse) and isinstance(ite.else_case, tir.IfThenElse)
    assert a1.message == "n must be positive" and a2.message == "n is small" and a1.body is None
    assert ev0.value == P.IntImm(0, "int32")
    assert ev1.value.op == "tir.call_extern" and ev1.value.args[0] == P.PrimStringImm("my_fn")


def test_block_match_buffer_and_regions():
    f = pf(TVM_HEADER + '''
@T.prim_func(s_tir=True)
def g(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(4):
        with T.sblock("tile"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4, 0:16])
            T.writes(B[vi * 4:vi * 4 + 4, 0:16])
            sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16))
            for j, k in T.grid(4, 16):
                B[vi * 4 + j, k] = sub[j, k]
''')
    tile = [b for b in blocks(f) if b.name == "tile"][0]
    (mb,) = tile.match_buffers
    assert mb.buffer.name == "sub" and mb.source.buffer.name == "A"
    r0 = mb.source.region[0]
    assert r0.extent == P.IntImm(4, "int32")
    assert tile.reads[0].region[1] == tir.Range(P.IntImm(0, "int32"), P.IntImm(16, "int32"))


def test_access_regions_are_detected_when_omitted():
    f = pf(TVM_HEADER + '''
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, k in T.grid(4, 8):
        with T.sblock("red"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i in range(3):
        with T.sblock("stencil"):
            vi = T.axis.spatial(3, i)
            T.reads()
            C[vi, 0] = A[vi, 0] + A[vi + 1, 0]
    for i in range(4):
        with T.sblock("inner"):
            vi = T.axis.spatial(4, i)
            for j in range(8):
                C[vi, j] = A[vi, 7 - j]
''')
    red, stencil, inner = [b for b in blocks(f) if b.name != "root"]
    vi, vk = (iv.var for iv in red.iter_vars)
    one = P.IntImm(1, "int32")
    assert red.reads == (tir.BufferRegion(red.reads[0].buffer, (tir.Range(vi, one), tir.Range(vk, one))),)
    assert [r.buffer.name for r in red.writes] == ["B"]  # B is not a read of the reduction
    assert stencil.reads == ()  # written explicitly empty
    assert stencil.writes[0].buffer.name == "C"
    ivar = inner.iter_vars[0].var
    assert inner.reads[0].region == (tir.Range(ivar, one), tir.Range(P.IntImm(0, "int32"), P.IntImm(8, "int32")))


def test_thread_binding_and_annotations():
    f = pf(TVM_HEADER + '''
@T.prim_func
def g(A: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(8, thread="blockIdx.x"):
        for tx in T.thread_binding(0, 8, "threadIdx.x", annotations={"pragma": 1}):
            A[bx * 8 + tx] = T.float32(0)
    for v in T.vectorized(4):
        A[v] = T.float32(1)
''')
    bx, tx, v = [s for s in walk(f.body) if isinstance(s, tir.For)]
    assert bx.kind == "thread_binding" and bx.thread_binding == "blockIdx.x"
    assert tx.thread_binding == "threadIdx.x" and tx.annotations["pragma"] == 1
    assert v.kind == "vectorized"


def test_scalar_params_and_handle_params():
    f = pf(TVM_HEADER + '''
''' + ADDN_TOP)
    a, b, m = f.params
    assert m.dtype == "int64" and [p for p, _ in f.buffer_map] == [a, b]
    assert f.buffer_of(a).dtype == "float32"


def test_old_subscript_buffer_annotation():
    f = pf(CLASSIC_HEADER + '''
@T.prim_func
def g(A: T.Buffer[(4,), "int32"]):
    A[0] = 1
''')
    assert f.buffer_of(f.params[0]).dtype == "int32"


def test_dialect_inferred_from_spelling_without_imports():
    classic = pf('''
@T.prim_func
def g(A: T.Buffer((4,), "float32")):
    C = T.alloc_buffer((4,))
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            C[vi] = A[vi]
''')
    assert classic.body.block.alloc_buffers[0].name == "C"
    tvm = pf('''
@T.prim_func
def g(A: T.Buffer((4,), "float32")):
    C = T.alloc_buffer((4,))
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            C[vi] = A[vi]
''')
    assert isinstance(tvm.body.block.body.seq[0], tir.AllocBuffer)


def test_prim_func_inside_module():
    body = MATMUL_TVM.split("\n", 1)[1]
    text = "from tvm.script import ir as I, tirx as T\n@I.ir_module\nclass M:\n" + textwrap.indent(body, "    ")
    mod = parse_module(text)
    assert isinstance(mod["matmul"], tir.PrimFunc) and mod["matmul"].attrs["tirx.noalias"] is True


def test_inline_prim_func_in_relax_is_rejected():
    with pytest.raises(ParseError, match="inline prim_func"):
        parse_module('''
@R.function
def f(x: R.Tensor((2,), "float32")):
    @T.prim_func
    def k(A: T.Buffer((2,), "float32")):
        A[0] = T.float32(0)
    return x
''')


def test_allocate_decl_buffer_and_scoped_forms():
    f = pf(CLASSIC_HEADER + '''
@T.prim_func
def f(n: T.int32):
    ptr = T.allocate([16], "float32", "global")
    B = T.decl_buffer((16,), "float32", data=ptr)
    for i in range(16):
        B[i] = T.float32(0)
    with T.allocate([4], "int32", "local") as p2:
        C = T.Buffer((4,), "int32", data=p2)
        C[0] = n
    with T.LetStmt(n * 2) as m:
        with T.Assert(m > 0, "positive"):
            B[1] = T.Cast("float32", m)
''')
    alloc = f.body
    assert isinstance(alloc, tir.Allocate) and alloc.dtype == "float32" and alloc.scope == "global"
    decl, loop, inner, let = alloc.body.seq
    assert isinstance(decl, tir.DeclBuffer) and decl.buffer.data is alloc.buffer_var
    assert isinstance(inner, tir.Allocate) and inner.scope == "local"
    assert inner.body.buffer.data is inner.buffer_var
    assert isinstance(let, tir.LetStmt) and isinstance(let.body, tir.AssertStmt)
    assert let.body.message == "positive" and isinstance(let.body.body, tir.BufferStore)
    assert let.body.body.value.value is let.var


def test_node_constructors_do_not_fold_but_operators_do():
    f = pf(TVM_HEADER + '''
@T.prim_func
def g(A: T.Buffer((4,), "int32"), t: T.int32):
    A[0] = T.Add(A[1], 0) + T.Mul(t, 1) * 1
    A[1] = T.Select(T.And(T.LT(2, 3), T.EQ(t, t)), T.FloorDiv(t, 1), T.Sub(t, 0) - 0)
    A[2] = T.Div(7, 2) + (7 - 0) * 1 // 1
''')
    s0, s1, s2 = f.body.seq
    assert s0.value == P.Add(P.Add(tir.BufferLoad(s0.buffer, (P.IntImm(1, "int32"),)), P.IntImm(0, "int32")),
                             P.Mul(f.params[1], P.IntImm(1, "int32")))
    sel = s1.value
    assert sel.condition == P.And(P.LT(P.IntImm(2, "int32"), P.IntImm(3, "int32")), P.EQ(f.params[1], f.params[1]))
    assert sel.true_value == P.FloorDiv(f.params[1], P.IntImm(1, "int32"))
    assert sel.false_value == P.Sub(f.params[1], P.IntImm(0, "int32"))
    assert s2.value == P.Add(P.Div(P.IntImm(7, "int32"), P.IntImm(2, "int32")), P.IntImm(7, "int32"))


def test_classic_alloc_buffer_outside_blocks_in_a_block_free_function_is_flat():
    f = pf(CLASSIC_HEADER + '''
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    t = T.alloc_buffer((1,), scope="local")
    t[0] = A[0]
    A[1] = t[0]
''')
    alloc, store, load = f.body.seq
    assert isinstance(alloc, tir.AllocBuffer) and alloc.buffer.scope == "local"
    assert not isinstance(f.body, tir.BlockRealize)


def test_literal_defaults_int64_in_relax_int32_in_tir():
    mod = parse_module(TVM_HEADER.replace("tirx as T", "ir as I, relax as R, tirx as T") + '''
@R.function
def f(x: R.Tensor((2,), "float32")):
    s = R.shape([T.Mul(3, 0), T.Select(True, 1, 2), T.Add(T.FloorDiv(3, 1), 0)])
    return s

@T.prim_func
def g(A: T.Buffer((2,), "int32")):
    A[0] = T.Mul(3, 0)
''')
    dims = mod["f"].body.blocks[0].bindings[0].value.values
    assert dims[0] == P.Mul(P.IntImm(3, "int64"), P.IntImm(0, "int64"))
    assert dims[1].dtype == "int64" and dims[2].dtype == "int64"
    assert mod["g"].body.value == P.Mul(P.IntImm(3, "int32"), P.IntImm(0, "int32"))

"""The tensor-expression builder (relax_ref.ops.te, te_ops, te_bridge): structure of the generated
PrimFuncs (TIR.TE.GEN.*), scalar construction rules (TIR.TE.OPS.*), the Relax bridge
(TIR.TE.BRIDGE.*) and execution through the TensorIR interpreter."""


import numpy as np
import pytest

from relax_ref.errors import RelaxError, UnsupportedError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.struct_info import PrimStructInfo, ShapeStructInfo, TensorStructInfo
from relax_ref.ops import te, te_ops
from relax_ref.ops.te_bridge import gen_call_tir_inputs


def run(func, *arrays, vectorize=True):
    from relax_ref.interp.tir import run_prim_func

    run_prim_func(func, list(arrays), vectorize=vectorize)


def blocks_of(stmt):
    """Every BlockRealize below ``stmt`` (pre-order)."""
    out = []

    def walk(s):
        if isinstance(s, tir.BlockRealize):
            out.append(s)
            walk(s.block.body)
        elif isinstance(s, tir.SeqStmt):
            for x in s.seq:
                walk(x)
        elif isinstance(s, tir.For):
            walk(s.body)

    walk(stmt)
    return out


def loops_of(stmt):
    out = []
    while isinstance(stmt, tir.For):
        out.append(stmt)
        stmt = stmt.body
    return out, stmt


# ---------------------------------------------------------------------------------------------------
# Scalar construction rules (TIR.TE.OPS)
# ---------------------------------------------------------------------------------------------------


def test_literal_takes_other_operand_dtype():
    x = P.PrimVar("x", "int32")
    e = te_ops.mul(x, -1)
    assert isinstance(e, P.Mul) and e.b == P.IntImm(-1, "int32")
    f = P.PrimVar("f", "float16")
    e = te_ops.mul(f, 0.5)
    assert e.b == P.FloatImm(0.5, "float16")


def test_python_float_with_int_promotes_to_float32():
    x = P.PrimVar("x", "int32")
    e = te_ops.mul(x, 0.5)
    assert e.dtype == "float32" and isinstance(e.a, P.Cast) and e.a.dtype == "float32"


@pytest.mark.parametrize("da,db,expected", [
    ("int32", "int64", "int64"), ("int64", "int32", "int64"), ("float16", "float32", "float32"),
    ("int32", "float32", "float32"), ("float32", "int8", "float32"), ("bool", "int32", "int32"),
    ("bool", "float32", "float32"), ("int32", "uint32", "uint32"), ("uint32", "int32", "uint32"),
    ("int8", "uint32", "uint32"), ("int64", "uint8", "int64"),
])
def test_type_matching(da, db, expected):
    a, b = te_ops.match_types(P.PrimVar("a", da), P.PrimVar("b", db))
    assert a.dtype == b.dtype == expected


def test_constant_folding_rules():
    x = P.PrimVar("x", "float32")
    i = P.PrimVar("i", "int32")
    assert te_ops.mul(x, 1.0) is x
    assert te_ops.mul(1, i) is i
    assert te_ops.add(x, 0.0) is x
    assert te_ops.sub(i, 0) is i
    assert te_ops.div(x, 1.0) is x
    assert te_ops.mul(x, 0.0) == P.FloatImm(0.0, "float32")  # TVM folds x * 0 even for floats
    assert te_ops.add(P.IntImm(3, "int32"), P.IntImm(4, "int32")) == P.IntImm(7, "int32")
    assert te_ops.div(P.IntImm(-7, "int32"), P.IntImm(2, "int32")) == P.IntImm(-3, "int32")
    assert te_ops.floordiv(P.IntImm(-7, "int64"), P.IntImm(2, "int64")) == P.IntImm(-4, "int64")
    assert te_ops.truncmod(P.IntImm(-7, "int64"), P.IntImm(2, "int64")) == P.IntImm(-1, "int64")
    assert te_ops.floormod(P.IntImm(-7, "int64"), P.IntImm(2, "int64")) == P.IntImm(1, "int64")
    # float32 folding happens in single precision
    third = te_ops.div(P.FloatImm(1.0, "float32"), P.FloatImm(3.0, "float32"))
    assert third.value == float(np.float32(1) / np.float32(3))
    assert te_ops.logical_and(P.IntImm(1, "bool"), P.PrimVar("c", "bool")).name == "c"
    assert te_ops.gt(P.IntImm(3, "int32"), 2) == P.IntImm(1, "bool")


def test_unsupported_operand_dtypes_raise():
    f = P.PrimVar("f", "float32")
    i = P.PrimVar("i", "int32")
    with pytest.raises(UnsupportedError):
        te_ops.bitwise_and(f, f)
    with pytest.raises(UnsupportedError):
        te_ops.logical_and(i, i)
    with pytest.raises(UnsupportedError):
        te_ops.floordiv(f, f)
    with pytest.raises(UnsupportedError):
        te_ops.power(i, i)
    with pytest.raises(UnsupportedError):
        te_ops.const(-1, "uint8")
    with pytest.raises(UnsupportedError):
        te_ops.abs_(P.PrimVar("b", "bool"))


def test_expanded_intrinsics():
    f = P.PrimVar("f", "float16")
    assert te_ops.isnan(f).args[0] == P.Cast("float32", f)  # 16-bit floats tested through float32
    assert te_ops.isnan(P.PrimVar("i", "int8")) == P.IntImm(0, "bool")
    assert te_ops.isfinite(P.PrimVar("i", "int8")) == P.IntImm(1, "bool")
    i = P.PrimVar("i", "int32")
    a = te_ops.abs_(i)
    assert isinstance(a, P.Select) and isinstance(a.condition, P.GE)
    assert te_ops.abs_(P.PrimVar("u", "uint8")).name == "u"
    assert te_ops.floor(i) is i and te_ops.round_(i) is i


# ---------------------------------------------------------------------------------------------------
# Generated structure (TIR.TE.GEN)
# ---------------------------------------------------------------------------------------------------


def test_elementwise_structure():
    n = P.PrimVar("n")
    x = te.placeholder((n, 4), "float32", "x")
    y = te.placeholder((1, 4), "float32", "y")
    z = te.compute((n, 4), lambda ax0, ax1: te.add(x[ax0, ax1], y[0, ax1]), name="T_add")
    f = te.create_prim_func([x, y, z])
    assert [p.name for p in f.params] == ["var_x", "var_y", "var_T_add"]
    assert all(p.dtype == "handle" for p in f.params)
    bufs = [f.buffer_of(p) for p in f.params]
    assert [b.name for b in bufs] == ["x", "y", "T_add"]
    assert bufs[0].shape == (n, P.IntImm(4, "int64"))
    assert dict(f.attrs) == {"tir.noalias": True}
    root = f.body
    assert isinstance(root, tir.BlockRealize) and root.block.name == "root"
    assert root.block.alloc_buffers == () and root.iter_values == ()
    loops, inner = loops_of(root.block.body)
    assert [lp.loop_var.name for lp in loops] == ["ax0", "ax1"]
    assert all(lp.loop_var.dtype == "int64" and lp.kind == "serial" for lp in loops)
    assert loops[0].extent is n
    blk = inner.block
    assert blk.name == "T_add"
    assert [iv.var.name for iv in blk.iter_vars] == ["v_ax0", "v_ax1"]
    assert [iv.iter_type for iv in blk.iter_vars] == ["spatial", "spatial"]
    assert inner.iter_values == tuple(lp.loop_var for lp in loops)
    v0, v1 = (iv.var for iv in blk.iter_vars)
    assert [r.buffer.name for r in blk.reads] == ["x", "y"]
    assert blk.reads[1].region[0].min == P.IntImm(0, "int64")
    assert blk.reads[1].region[1].min is v1
    assert blk.writes[0].buffer is bufs[2] and blk.writes[0].region[0].min is v0
    store = blk.body
    assert isinstance(store, tir.BufferStore) and store.indices == (v0, v1)
    assert isinstance(store.value, P.Add)


def test_multi_stage_names_and_allocations():
    x = te.placeholder((2, 3), "float32", "x")
    m = te.compute(x.shape, lambda ax0, ax1: te.mul(x[ax0, ax1], 2.0), name="T_multiply")
    e = te.compute(x.shape, lambda *i: te.exp(m(*i)))
    out = te.compute(x.shape, lambda ax0, ax1: te.mul(e[ax0, ax1], x[ax0, ax1]), name="T_multiply")
    f = te.create_prim_func([x, out])
    root = f.body.block
    assert [b.name for b in root.alloc_buffers] == ["T_multiply_1", "compute"]
    names = [br.block.name for br in blocks_of(root.body)]
    assert names == ["T_multiply", "compute", "T_multiply_1"]
    # default index names of a ``*i`` compute
    loops, _ = loops_of(root.body.seq[1])
    assert [lp.loop_var.name for lp in loops] == ["i0", "i1"]


def test_duplicate_argument_names_are_made_unique():
    a = te.placeholder((3,), "int32", "z")
    b = te.placeholder((3,), "int32", "z")
    c = te.compute((3,), lambda ax0: te.add(a[ax0], b[ax0]), name="T_add")
    f = te.create_prim_func([a, b, c])
    assert [f.buffer_of(p).name for p in f.params] == ["z", "z_1", "T_add"]


def test_comparisons_are_normalized_and_int_conditions_widened():
    x = te.placeholder((4,), "int32", "x")
    y = te.compute((4,), lambda i: te.select(te.gt(x[i], 0), 1, 0), name="c")
    f = te.create_prim_func([x, y])
    sel = f.body.block.body.body.block.body.value
    cond = sel.condition
    # x > 0 becomes 0 < x, and in a condition the int32 comparison is widened to int64
    assert isinstance(cond, P.LT)
    assert cond.a == P.IntImm(0, "int64")
    assert isinstance(cond.b, P.Cast) and cond.b.dtype == "int64"
    # the arms are not conditions: their constants stay int32
    assert sel.true_value == P.IntImm(1, "int32")


def test_zero_dim_stage_has_dummy_iter_var():
    s = te.placeholder((), "float32", "s")
    o = te.compute((), lambda: te.add(s(), s()), name="T_add")
    f = te.create_prim_func([s, o])
    realize = f.body.block.body
    assert isinstance(realize, tir.BlockRealize)
    (iv,) = realize.block.iter_vars
    assert iv.var.name == "vi" and iv.dom.extent == P.IntImm(1, "int32")
    assert realize.iter_values == (P.IntImm(0, "int64"),)
    assert realize.block.body.indices == ()
    a = np.array(1.5, "float32")
    out = np.zeros((), "float32")
    run(f, a, out)
    assert out == 3.0


def test_reduction_structure_and_identity():
    n = P.PrimVar("n")
    x = te.placeholder((n, 4), "float32", "x")
    k = te.reduce_axis(n, "k0")
    r = te.compute((4,), lambda ax0: te.max(x[k, ax0], axis=k), name="x_red")
    f = te.create_prim_func([x, r])
    loops, realize = loops_of(f.body.block.body)
    assert [lp.loop_var.name for lp in loops] == ["ax0", "k0"]
    blk = realize.block
    assert [iv.iter_type for iv in blk.iter_vars] == ["spatial", "reduce"]
    assert [r.buffer.name for r in blk.reads] == ["x"]  # the accumulator is not a read
    init = blk.init
    assert init.value == P.FloatImm(-340282346638528859811704183484516925440.0, "float32")
    assert isinstance(blk.body.value, P.Max)
    assert isinstance(blk.body.value.a, tir.BufferLoad) and blk.body.value.a.buffer.name == "x_red"
    data = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    out = np.zeros(4, "float32")
    run(f, data, out)
    np.testing.assert_array_equal(out, data.max(axis=0))


@pytest.mark.parametrize("reducer,np_fn,init", [
    (te.sum, np.sum, 0.0), (te.prod, np.prod, 1.0), (te.min, np.min, None),
])
def test_reducers_run(reducer, np_fn, init):
    x = te.placeholder((3, 5), "float32", "x")
    k = te.reduce_axis(5, "k1")
    r = te.compute((3,), lambda ax0: reducer(x[ax0, k], axis=k), name="x_red")
    f = te.create_prim_func([x, r])
    blk = blocks_of(f.body)[1].block
    if init is not None:
        assert blk.init.value == P.FloatImm(init, "float32")
    data = np.random.default_rng(1).uniform(0.5, 1.5, (3, 5)).astype("float32")
    out = np.zeros(3, "float32")
    run(f, data, out)
    np.testing.assert_allclose(out, np_fn(data, axis=1), rtol=1e-6)


def test_reduction_with_condition_and_init():
    x = te.placeholder((6,), "int32", "x")
    k = te.reduce_axis(6, "k")
    r = te.compute((), lambda: te.sum(x[k], axis=k, where=te.lt(k.var, 3), init=100), name="s")
    f = te.create_prim_func([x, r])
    out = np.zeros((), "int32")
    run(f, np.arange(6, dtype="int32"), out, vectorize=False)
    assert out == 100 + 0 + 1 + 2


def test_multi_value_reduction_argmax():
    def fcombine(x, y):
        li, lv = x
        ri, rv = y
        keep = te.logical_or(te.gt(lv, rv), te.logical_and(te.eq(lv, rv), te.lt(li, ri)))
        return te.select(keep, li, ri), te.select(te.gt(lv, rv), lv, rv)

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), "argmax")
    y = te.placeholder((3, 4), "float32", "y")
    k = te.reduce_axis(4, "k1")
    tmp = te.compute((3,), lambda ax0: argmax((k.var, y[ax0, k]), axis=k), name="y_red_temp")
    assert [t.name for t in tmp] == ["y_red_temp_v0", "y_red_temp_v1"]
    out = te.compute((3,), lambda ax0: tmp[0][ax0], name="y_red")
    f = te.create_prim_func([y, out])
    root = f.body.block
    assert [b.name for b in root.alloc_buffers] == ["y_red_temp_v0", "y_red_temp_v1"]
    blk = blocks_of(root.body)[0].block
    assert len(blk.writes) == 2 and isinstance(blk.init, tir.SeqStmt)
    binds = [s for s in blk.body.seq if isinstance(s, tir.Bind)]
    assert [b.var.name for b in binds] == ["v_y_red_temp_v0", "v_y_red_temp_v1"]
    data = np.array([[1, 3, 3, 0], [5, 1, 2, 5], [-1, -2, -3, -4]], "float32")
    res = np.zeros(3, "int64")
    run(f, data, res)
    np.testing.assert_array_equal(res, [1, 0, 0])


def test_block_annotations_from_attrs():
    x = te.placeholder((2,), "float32", "x")
    y = te.compute((2,), lambda i: x[i], name="T_softmax_norm", attrs={"axis": 1})
    f = te.create_prim_func([x, y])
    assert dict(blocks_of(f.body)[1].block.annotations) == {"axis": 1}


def test_read_regions_cover_several_accesses():
    x = te.placeholder((8,), "float32", "x")
    y = te.compute((6,), lambda i: te.add(te.add(x[i], x[te.add(i, 2)]), x[te.add(i, 1)]), name="s")
    f = te.create_prim_func([x, y])
    (read,) = blocks_of(f.body)[1].block.reads
    assert read.region[0].extent == P.IntImm(3, "int64")
    data = np.arange(8, dtype="float32")
    out = np.zeros(6, "float32")
    run(f, data, out)
    np.testing.assert_array_equal(out, data[:6] + data[1:7] + data[2:8])


def test_scalar_params_and_if_then_else():
    m = P.PrimVar("m", "int64")
    x = te.placeholder((5,), "float32", "x")
    y = te.compute((5,), lambda i: te.if_then_else(te.lt(i, m), x[i], te.const(0.0, "float32")), name="pad")
    f = te.create_prim_func([x, y], tir_vars=[m])
    assert f.params[-1] is m
    out = np.zeros(5, "float32")
    run(f, np.arange(1, 6, dtype="float32"), out, 3)
    np.testing.assert_array_equal(out, [1, 2, 3, 0, 0])


def test_errors():
    x = te.placeholder((2,), "float32", "x")
    y = te.compute((2,), lambda i: te.exp(x[i]))
    with pytest.raises(RelaxError, match="not an argument"):
        te.create_prim_func([y])
    with pytest.raises(RelaxError, match="indexed with 2"):
        te.compute((2,), lambda i: x[i, i])
    with pytest.raises(RelaxError, match="listed twice"):
        te.create_prim_func([x, y, y])
    k = te.reduce_axis(3)
    with pytest.raises(RelaxError, match="whole body"):
        te.compute((2,), lambda i: [te.sum(x[k], axis=k), x[i]])
    with pytest.raises(RelaxError, match="reduce axes"):
        te.sum(x[0], axis=te.IterAxis(P.PrimVar("q"), P.IntImm(0, "int64"), P.IntImm(2, "int64")))


# ---------------------------------------------------------------------------------------------------
# Extern stages (TIR.TE.GEN.9)
# ---------------------------------------------------------------------------------------------------


def _argsort(t, axis, name="argsort_cpu"):
    data = te.decl_buffer(t.shape, t.dtype, "data_buf", data_alignment=8)
    out = te.decl_buffer(t.shape, "int64", "out_buf", data_alignment=8)
    return te.extern(t.shape, [t], lambda ins, outs: te.call_packed("tvm.contrib.sort.argsort", ins[0], outs[0],
                                                                     axis, True),
                     dtype="int64", in_buffers=[data], out_buffers=[out], name=name)


def test_extern_stage_binds_an_argument_to_its_buffer_and_runs():
    x = te.placeholder((3, 4), "float32", "x")
    order = _argsort(x, 1)
    y = te.compute((3, 4), lambda ax0, ax1: x[ax0, order[ax0, ax1]], name="T_gather")
    f = te.create_prim_func([x, y])
    param = f.buffer_of(f.params[0])
    assert f.params[0].name == "var_x" and param.name == "data_buf" and param.align == 8
    root = f.body.block
    assert [b.name for b in root.alloc_buffers] == ["out_buf"] and root.alloc_buffers[0].align == 8
    ext = blocks_of(root.body)[0].block
    assert ext.name == "argsort_cpu" and ext.iter_vars == () and ext.reads == () and ext.writes == ()
    call = ext.body.value
    assert call.op == "tir.tvm_call_packed" and call.args[0].value == "tvm.contrib.sort.argsort"
    assert call.args[1].op == "tir.tvm_stack_make_array" and call.args[1].args[0] is param.data
    assert call.args[3:] == (P.IntImm(1, "int32"), P.IntImm(1, "bool"))
    a = np.array([[3, 1, 2, 0], [np.nan, 5, -1, 5], [2, 2, 2, 1]], "float32")
    out = np.zeros((3, 4), "float32")
    run(f, a, out)
    np.testing.assert_array_equal(out, np.array([[0, 1, 2, 3], [-1, 5, 5, np.nan], [1, 2, 2, 2]], "float32"))


def test_extern_stage_reading_a_computed_tensor_uses_its_buffer():
    x = te.placeholder((5,), "int32", "x")
    neg = te.compute((5,), lambda ax0: te.sub(0, x[ax0]), name="T_negative")
    order = _argsort(neg, 0)
    f = te.create_prim_func([x, order])
    assert [f.buffer_of(p).name for p in f.params] == ["x", "out_buf"]
    assert f.params[1].name == "var_argsort_cpu"
    root = f.body.block
    (tmp,) = root.alloc_buffers
    assert tmp.name == "T_negative"
    ext = blocks_of(root.body)[1].block
    assert ext.body.value.args[1].args[0] is tmp.data       # the statement was moved to the computed buffer
    out = np.zeros(5, "int64")
    run(f, np.array([1, 4, -2, 4, 0], "int32"), out)
    np.testing.assert_array_equal(out, [1, 3, 0, 4, 2])        # stable: -4 at 1 before -4 at 3


def test_extern_stage_errors():
    x = te.placeholder((2,), "float32", "x")
    with pytest.raises(RelaxError, match="does not describe"):
        te.extern((2,), [x], lambda ins, outs: te.call_packed("f", ins[0]),
                  in_buffers=[te.decl_buffer((2,), "int32", "b")])
    with pytest.raises(RelaxError, match="statement or an expression"):
        te.extern((2,), [x], lambda ins, outs: None)
    with pytest.raises(RelaxError, match="dtype"):
        te.extern((2,), [], lambda ins, outs: te.call_packed("f"))


# ---------------------------------------------------------------------------------------------------
# The Relax bridge (TIR.TE.BRIDGE)
# ---------------------------------------------------------------------------------------------------


def tensor_var(name, shape, dtype="float32"):
    return rx.Var(name, struct_info=TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype))


def test_bridge_maps_symbolic_vars_and_names():
    n = P.PrimVar("n")
    x = tensor_var("x", (n, 4))
    c = rx.Constant(np.ones((4,), "float32"), struct_info=TensorStructInfo(rx.ShapeExpr((4,)), "float32"))

    def fte(a, b):
        return te.compute(a.shape, lambda ax0, ax1: te.add(a[ax0, ax1], b[ax1]), name="T_add")

    res = gen_call_tir_inputs(fte, [x, c])
    assert res.args == (x, c) and res.tir_vars is None
    bufs = [res.func.buffer_of(p) for p in res.func.params]
    assert [b.name for b in bufs] == ["x", "B", "T_add"]
    inner_n = bufs[0].shape[0]
    assert isinstance(inner_n, P.PrimVar) and inner_n is not n and inner_n.name == "n"
    (out,) = res.out_sinfo
    assert out.shape.values[0] is n and out.dtype == "float32"


def test_bridge_prim_arguments_and_tir_vars():
    n = P.PrimVar("n")
    x = tensor_var("x", (4,))
    known = rx.PrimValue(P.FloatImm(2.0, "float64"), struct_info=PrimStructInfo(value=P.FloatImm(2.0, "float64")))
    unknown = rx.Var("s", struct_info=PrimStructInfo("float32"))
    sym = rx.PrimValue(n * 2, struct_info=PrimStructInfo(value=n * 2))

    def fte(a, k, s, m):
        assert isinstance(k, P.FloatImm) and isinstance(s, P.PrimVar)
        return te.compute((4,), lambda i: te.add(te.add(a[i], te.cast("float32", k)),
                                                 te.add(s, te.cast("float32", m))), name="o")

    res = gen_call_tir_inputs(fte, [x, known, unknown, sym])
    assert res.args == (x, unknown)
    params = res.func.params
    assert params[1].name == "s" and params[1].dtype == "float32"
    assert params[-1].name == "n"  # the unbound symbolic var becomes a trailing scalar parameter
    assert isinstance(res.tir_vars, rx.ShapeExpr) and res.tir_vars.values == (n,)
    out = np.zeros(4, "float32")
    run(res.func, np.arange(4, dtype="float32"), 1.0, out, 3)
    np.testing.assert_array_equal(out, np.arange(4) + 2.0 + 1.0 + 6.0)


def test_bridge_rejects_unknown_shapes():
    x = rx.Var("x", struct_info=TensorStructInfo(None, "float32", 2))
    with pytest.raises(RelaxError, match="ShapeExpr"):
        gen_call_tir_inputs(lambda a: a, [x])
    s = rx.Var("s", struct_info=ShapeStructInfo(ndim=2))
    with pytest.raises(RelaxError, match="ShapeExpr"):
        gen_call_tir_inputs(lambda a: a, [s])

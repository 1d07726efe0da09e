"""Reference semantics and legalization of the manipulation operators: every result equals an
independent numpy formula written here, and the legalized module (TensorIR kernels run by the
TensorIR interpreter) computes the same values, for static and symbolic shapes; run-time errors;
hypothesis property tests for reshape/permute_dims and concat/split."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxRuntimeError, OpRuntimeError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.module import IRModule
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.transform import LegalizeOps

from ops_helpers import check_calls, legalized_equals_reference, parse_calls, same

rng = np.random.default_rng(11)


def f32(*shape):
    return rng.standard_normal(shape).astype("float32")


# ---------------------------------------------------------------------------------------------------
# Static and symbolic cases
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sym", [False, True])
def test_shape_ops(sym):
    x = f32(2, 3, 4)
    p = 'x: R.Tensor(("a", "b", 4), "float32")' if sym else 'x: R.Tensor((2, 3, 4), "float32")'
    check_calls(p, ["R.reshape(x, (-1, 4))", "R.reshape(x, (0, 12))", "R.permute_dims(x)",
                    "R.permute_dims(x, axes=[1, -1, 0])", "R.expand_dims(x, axis=[0, -1])", "R.flatten(x)",
                    "R.flip(x, axis=1)", "R.repeat(x, 2, axis=-1)", "R.repeat(x, 3)", "R.tile(x, [2, 1])",
                    "R.tile(x, [2, 1, 1, 2])"],
                [x], [x.reshape(-1, 4), x.reshape(2, 12), x.transpose(), x.transpose(1, 2, 0), x[None, ..., None],
                      x.reshape(-1), x[:, ::-1], np.repeat(x, 2, axis=2), np.repeat(x.reshape(-1), 3),
                      np.tile(x, (2, 1)), np.tile(x, (2, 1, 1, 2))])
    for shape in [(5, 2, 4), (1, 1, 4)]:  # the same module at other sizes
        if sym:
            y = f32(*shape)
            mod = parse_calls(p, ["R.reshape(x, (-1, 4))", "R.permute_dims(x)"])
            r = relax_ref.evaluate(mod, "main", y)
            np.testing.assert_array_equal(r[0], y.reshape(-1, 4))
            np.testing.assert_array_equal(r[1], y.transpose())


def test_squeeze():
    x = f32(1, 3, 1)
    check_calls('x: R.Tensor((1, 3, 1), "float32")', ["R.squeeze(x)", "R.squeeze(x, axis=[0])", "R.squeeze(x, axis=-1)",
                                                       "R.squeeze(x, axis=[0, 1])"],
                [x], [x.reshape(3), x.reshape(3, 1), x.reshape(1, 3), x.reshape(3, 1)])  # a static 3 is kept (C2)
    mod = check_calls('x: R.Tensor(("n", 3, 1), "float32")', ["R.squeeze(x, axis=[0, 2])"], [x], [x.reshape(3)])
    with pytest.raises(OpRuntimeError, match="must be 1"):  # OP.squeeze.C3
        relax_ref.evaluate(mod, "main", f32(2, 3, 1))
    with pytest.raises(RelaxRuntimeError):
        relax_ref.evaluate(LegalizeOps()(mod), "main", f32(2, 3, 1))
    check_calls('x: R.Tensor(("n", 3, 1), "float32")', ["R.squeeze(x)"], [x], [x.reshape(3)], legalize=False)


def test_concat_split_stack():
    a, b = f32(2, 3), f32(4, 3)
    check_calls('a: R.Tensor(("n", 3), "float32"), b: R.Tensor(("m", 3), "float32")',
                ["R.concat((a, b))", "R.concat((a, a, b), axis=-2)", "R.split(b, 3)", "R.split(b, [1, 3])",
                 "R.split(a, 2, axis=1)", "R.stack((a, a), axis=1)", "R.stack((b,), axis=-1)"],
                [a, b], [np.concatenate([a, b]), np.concatenate([a, a, b]), (b[0:2], b[2:4], b[4:4]),
                         (b[:1], b[1:3], b[3:]), (a[:, :2], a[:, 2:]), np.stack([a, a], 1), b[..., None]])
    x = f32(4, 5)
    check_calls('x: R.Tensor((4, 5), "float32")', ["R.split(x, 3)", "R.split(x, [3, 1])", "R.split(x, [1, 6])",
                                                   "R.split(x, 5, axis=1)"],
                [x], [(x[:2], x[2:4], x[4:]), (x[:3], x[3:3], x[1:]), (x[:1], x[1:], x[4:]),
                      tuple(x[:, i:i + 1] for i in range(5))])
    y = f32(1, 5)
    check_calls('x: R.Tensor((1, 5), "float32")', ["R.split(x, 3)"], [y], [(y, y[1:], y[1:])])  # clamped
    sym = parse_calls('x: R.Tensor(("n", 5), "float32")', ["R.split(x, 3)"])
    with pytest.raises(OpRuntimeError, match="inferred"):  # TVM's formula is negative for n = 1
        relax_ref.evaluate(sym, "main", y)
    z = f32(7, 5)
    r = relax_ref.evaluate(sym, "main", z)[0]
    assert [p.shape[0] for p in r] == [3, 3, 1]
    with pytest.raises(OpRuntimeError, match="concatenated"):
        relax_ref.evaluate(parse_calls('a: R.Tensor(("n", "k"), "float32"), b: R.Tensor(("m", "j"), "float32")',
                                       ["R.concat((a, b))"]), "main", a, f32(2, 4))
    with pytest.raises(OpRuntimeError, match="stack"):
        relax_ref.evaluate(parse_calls('a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")',
                                       ["R.stack((a, b))"]), "main", f32(2), f32(3))


def test_split_into_symbolic_sections_legalizes_as_topi():
    """OP.split.KERNEL.1: TOPI's section extents, unsimplified, with the symbolic variable they need as a
    scalar parameter; the parts as the reference's. A static split whose last TOPI extent would be
    negative keeps the inferred extents."""
    mod = relax_ref.parse(parse_calls('d: R.Tensor(("n",), "float32"), x: R.Tensor(("m", "n * 3"), "float32")',
                                      ["R.split(x, 3, axis=1)"]).script())
    legal = LegalizeOps()(mod)
    text = legal.script()
    assert "tir_vars=R.shape([n])" in text and "(n * 3 + 3 - 1) // 3" in text
    x = f32(2, 12)
    same(relax_ref.evaluate(legal, "main", f32(4), x), (tuple(np.split(x, 3, axis=1)),))
    y = f32(5, 2)
    small = LegalizeOps()(parse_calls('x: R.Tensor((5, 2), "float32")', ["R.split(x, 4)"]))
    assert "T.int64(-1)" not in small.script()
    same(relax_ref.evaluate(small, "main", y), ((y[:2], y[2:4], y[4:], y[5:]),))


def test_concat_tuple_variable_is_legalized():
    a = f32(2, 3)
    check_calls('t: R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"))',
                ["R.concat(t, axis=1)", "R.stack(t)"], [(a, a + 1)],
                [np.concatenate([a, a + 1], 1), np.stack([a, a + 1])])


def test_broadcast_and_collapse():
    x = f32(1, 3)
    check_calls('x: R.Tensor((1, "n"), "float32")',
                ['R.broadcast_to(x, R.shape([2, 4, n]))', "R.collapse_sum_to(r0, R.shape([4, 1]))"], [x],
                [np.broadcast_to(x, (2, 4, 3)), np.broadcast_to(x, (2, 4, 3)).sum((0, 2))[:, None]], legalize=False)
    y = f32(2, 4, 3)
    mod = parse_calls('y: R.Tensor((2, 4, 3), "float32"), t: R.Tensor((4, 1), "float32")',
                      ["R.collapse_sum_to(y, R.shape([4, 1]))", "R.collapse_sum_like(y, t)",
                       "R.collapse_sum_to(y, R.shape([3]))"])
    got = relax_ref.evaluate(mod, "main", y, f32(4, 1))
    np.testing.assert_allclose(got[0], y.sum(axis=(0, 2))[:, None], rtol=1e-5)
    np.testing.assert_allclose(got[1], got[0])
    np.testing.assert_allclose(got[2], y.sum(axis=(0, 1)), rtol=1e-5)
    lgot = relax_ref.evaluate(LegalizeOps()(mod), "main", y, f32(4, 1))
    same(lgot, got, tol=1e-5)
    m = check_calls('x: R.Tensor((1, "n"), "float32")', ['R.broadcast_to(x, R.shape([2, n]))'], [x],
                    [np.broadcast_to(x, (2, 3))])
    ints = np.arange(6, dtype="int32").reshape(2, 3)
    check_calls('x: R.Tensor((2, 3), "int32")', ["R.collapse_sum_to(x, R.shape([1, 3]))"], [ints],
                [ints.sum(0, keepdims=True).astype("int32")])
    mod = parse_calls('x: R.Tensor(("n", "m"), "float32")', ["R.broadcast_to(x, R.shape([3, 4]))"])
    with pytest.raises(OpRuntimeError, match="broadcast"):
        relax_ref.evaluate(mod, "main", f32(2, 4))
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x.reshape(1, 3)[:, :1].repeat(4, 1))[0],
                                  np.broadcast_to(x[:, :1], (3, 4)))
    assert m is not None


def test_reshape_runtime_count_mismatch():
    """DIV.25: (b, 32) -> (b, 72) is accepted statically; at run time the counts differ."""
    mod = parse_calls('x: R.Tensor(("b", 32), "float32")', ["R.reshape(x, (b, 72))"])
    with pytest.raises(OpRuntimeError, match="cannot reshape"):  # OP.reshape.C3 at run time
        relax_ref.evaluate(mod, "main", f32(2, 32))
    with pytest.raises(RelaxRuntimeError, match="element count"):  # the legalized kernel asserts it
        relax_ref.evaluate(LegalizeOps()(mod), "main", f32(2, 32))
    x = f32(9, 32)
    mod = parse_calls('x: R.Tensor(("b", 32), "float32")', ["R.reshape(x, (4, 72))"])
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x)[0], x.reshape(4, 72))


def test_reshape_to_shape_variable():
    """A shape variable target (TVM's legalization asserts) with known values is legalized through its values."""
    x = f32(2, 6)
    check_calls('x: R.Tensor((2, 6), "float32"), s: R.Shape(["a", "b"])', ["R.reshape(x, s)"], [x, (3, 4)],
                [x.reshape(3, 4)])
    mod = parse_calls('x: R.Tensor((2, 6), "float32"), s: R.Shape(ndim=2)', ["R.reshape(x, s)"])
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x, (4, 3))[0], x.reshape(4, 3))


def test_meshgrid():
    a, b = np.arange(3, dtype="int64"), np.arange(2, dtype="int64") + 10
    check_calls('a: R.Tensor(("n",), "int64"), b: R.Tensor((2,), "int64")',
                ["R.meshgrid((a, b))", 'R.meshgrid((a, b), indexing="xy")', "R.meshgrid((a,))"],
                [a, b], [tuple(np.meshgrid(a, b, indexing="ij")), tuple(np.meshgrid(a, b, indexing="xy")), (a,)])


def test_empty_and_zero_size():
    x = np.zeros((0, 3), "float32")
    check_calls('x: R.Tensor(("n", 3), "float32")', ["R.reshape(x, (3, -1))", "R.permute_dims(x)", "R.tile(x, [2, 2])",
                                                     "R.concat((x, x))", "R.split(x, 2)", "R.repeat(x, 2, axis=1)",
                                                     "R.flip(x, axis=0)"],
                [x], [x.reshape(3, 0), x.T, np.tile(x, (2, 2)), x, (x, x), np.repeat(x, 2, 1), x])


def test_layout_transform():
    from relax_ref.static.normalize import normalize_module
    from relax_ref.ops.layout_transform import layout_transform_call

    n = P.PrimVar("n")
    for dims, fn, pad, want in [
        ((n, 5), lambda a, b: (b // 2, a, b % 2), 1.5,
         lambda v: np.pad(v, ((0, 0), (0, 1)), constant_values=1.5).reshape(v.shape[0], 3, 2).transpose(1, 0, 2)),
        ((P.IntImm(2, "int64"), P.IntImm(3, "int64")), lambda a, b: (b, a), None, lambda v: v.T),
    ]:
        x = rx.Var("x", struct_info=TensorStructInfo(rx.ShapeExpr(dims), "float32"))
        y = rx.Var("y")
        f = rx.Function((x,), rx.SeqExpr((rx.BindingBlock((rx.VarBinding(y, layout_transform_call(x, fn, pad)),)),), y))
        mod = normalize_module(IRModule({rx.GlobalVar("main"): f}))
        v = f32(2, 5) if len(dims) == 2 and isinstance(dims[0], P.PrimVar) else f32(2, 3)
        got = relax_ref.evaluate(mod, "main", v)
        np.testing.assert_array_equal(got, want(v))
        np.testing.assert_array_equal(relax_ref.evaluate(LegalizeOps()(mod), "main", v), got)
        assert "T.index_map(lambda" in mod.script()


# ---------------------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------------------


@st.composite
def reshape_permute_case(draw):
    ndim = draw(st.integers(1, 4))
    shape = [draw(st.integers(0, 3)) for _ in range(ndim)]
    perm = draw(st.permutations(range(ndim)))
    size = int(np.prod(shape))
    if size == 0:
        target = [draw(st.integers(1, 3)), -1]  # a literal 0 would mean "copy the input dim"
    else:
        divisors = [d for d in range(1, size + 1) if size % d == 0]
        d = draw(st.sampled_from(divisors))
        target = [d, -1] if draw(st.booleans()) else [size // d, d]
    sym = draw(st.booleans())
    return shape, list(perm), target, sym


@settings(deadline=None)
@given(reshape_permute_case())
def test_property_reshape_permute(case):
    shape, perm, target, sym = case
    dims = ", ".join(f'"d{i}"' if sym else str(s) for i, s in enumerate(shape))
    x = rng.integers(-50, 50, shape).astype("int32")
    mod = parse_calls(f'x: R.Tensor(({dims},), "int32")',
                      [f"R.permute_dims(x, axes={perm})", f"R.reshape(r0, {tuple(target)})"])
    got = legalized_equals_reference(mod, [x])
    np.testing.assert_array_equal(got[0], x.transpose(perm))
    np.testing.assert_array_equal(got[1], x.transpose(perm).reshape(target))


@st.composite
def concat_split_case(draw):
    ndim = draw(st.integers(1, 3))
    axis = draw(st.integers(-ndim, ndim - 1))
    base = [draw(st.integers(1, 3)) for _ in range(ndim)]
    sizes = [draw(st.integers(0, 4)) for _ in range(draw(st.integers(1, 3)))]
    total = sum(sizes)
    if draw(st.booleans()):
        ios = draw(st.integers(1, 4))
    else:
        ios = sorted(draw(st.lists(st.integers(0, total + 1), min_size=1, max_size=3)))
    return axis, base, sizes, ios, draw(st.booleans())


@settings(deadline=None)
@given(concat_split_case())
def test_property_concat_split(case):
    axis, base, sizes, ios, sym = case
    ndim = len(base)
    a = axis % ndim
    arrays, params = [], []
    for i, s in enumerate(sizes):
        shape = list(base)
        shape[a] = s
        arrays.append(rng.standard_normal(shape).astype("float32"))
        dims = ", ".join((f'"s{i}"' if k == a else f'"d{k}"') if sym else str(shape[k]) for k in range(ndim))
        params.append(f'x{i}: R.Tensor(({dims},), "float32")')
    xs = ", ".join(f"x{i}" for i in range(len(sizes)))
    ios_text = ios if isinstance(ios, int) else list(ios)
    mod = parse_calls(", ".join(params), [f"R.concat(({xs},), axis={axis})",
                                          f"R.split(r0, {ios_text}, axis={axis})"])
    whole = np.concatenate(arrays, axis=a)
    d = whole.shape[a]
    if isinstance(ios, int):
        c = -(-d // ios)
        cuts = [min(i * c, d) for i in range(1, ios)]
    else:
        cuts = [min(v, d) for v in ios]
    want = np.split(whole, cuts, axis=a) if isinstance(ios, list) else \
        [np.take(whole, range(min(i * c, d), min((i + 1) * c, d) if i < ios - 1 else d), axis=a) for i in range(ios)]
    try:
        got = legalized_equals_reference(mod, arrays)
    except OpRuntimeError as e:  # TVM's symbolic section formula is negative for this size
        assert sym and isinstance(ios, int) and "inferred" in str(e)
        return
    np.testing.assert_array_equal(got[0], whole)
    parts = got[1] if isinstance(got[1], tuple) else (got[1],)
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        np.testing.assert_array_equal(p, w)


def test_broadcast_to_of_a_symbolic_dim_that_is_one_at_run_time_is_legalized():
    """A symbolic input dim may be 1 at run time: the legalized kernel reads index 0 then (TVM 0.25's
    TOPI aborts instead, TVM-F10), and still raises when the dim is neither 1 nor the target dim."""
    for x in (f32(1), f32(3)):
        check_calls('x: R.Tensor(("k",), "float32")', ["R.broadcast_to(x, R.shape([2, 3]))"], [x],
                    [np.broadcast_to(x, (2, 3))])
    x1 = f32(1)
    check_calls('x: R.Tensor(("k",), "float32")', ["R.broadcast_to(x, R.shape([2, 1]))"], [x1],
                [np.broadcast_to(x1, (2, 1))])
    mod = LegalizeOps()(parse_calls('x: R.Tensor(("k",), "float32")', ["R.broadcast_to(x, R.shape([2, 3]))"]))
    with pytest.raises(relax_ref.RelaxError):
        relax_ref.evaluate(mod, "main", f32(2))

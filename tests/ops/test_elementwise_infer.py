"""Struct-info inference of the elementwise operators (OP.<op>.C1, NORM.OP.*): hand-written
expectations for static, symbolic and invalid operands, and agreement with TVM 0.25 on a large table
of calls (each call is parsed by both from the same TVMScript text)."""

import pytest

from relax_ref.analysis.context import InferContext, make_analyzer
from relax_ref.errors import StructInfoError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.struct_info import ObjectStructInfo, PrimStructInfo, ShapeStructInfo, VDevice
from relax_ref.ops import common as C
from relax_ref.ops import registry
from relax_ref.ops.elementwise import ANY_UNARY_OPS, BINARY_OPS, FLOAT_UNARY_OPS, NN_OPS

from ops_helpers import T, check_print_roundtrip, check_signatures_match_tvm, infer, sinfo_agreement_test

CMP_OPS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


n, m = P.PrimVar("n"), P.PrimVar("m")


# ---------------------------------------------------------------------------------------------------
# Hand-written expectations
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", FLOAT_UNARY_OPS)
def test_float_unary(op):
    name = f"relax.{op}"
    assert infer(name, T((2, 3))) == T((2, 3))
    assert infer(name, T((n, 3), "float16")) == T((n, 3), "float16")
    assert infer(name, T(None, "bfloat16", 2)) == T(None, "bfloat16", 2)
    assert infer(name, T((2,), "void")) == T((2,), "void")
    for bad in ("int32", "bool", "float8_e4m3fn"):
        with pytest.raises(StructInfoError, match="float dtype"):
            infer(name, T((2,), bad))
    with pytest.raises(StructInfoError, match="tensor"):
        infer(name, PrimStructInfo("float32"))


@pytest.mark.parametrize("op", ANY_UNARY_OPS)
def test_any_dtype_unary(op):
    name = f"relax.{op}"
    out = "bool" if op in ("isnan", "isinf", "isfinite") else None
    for dt in ("float32", "int32", "bool", "uint8"):
        assert infer(name, T((n, 2), dt)) == T((n, 2), out or dt)
    assert infer(name, T(None, "void")) == T(None, out or "void")
    with pytest.raises(StructInfoError):
        infer(name, ObjectStructInfo())
    with pytest.raises(StructInfoError, match="expects 1 arguments"):
        infer(name, T((2,)), T((2,)))


def test_unary_keeps_shape_variable_and_vdevice():
    s = rx.Var("s", struct_info=ShapeStructInfo(ndim=2))
    vd = VDevice("llvm", 0, "global")
    r = infer("relax.exp", T(s, "float32", vdevice=vd))
    assert r.shape is s and r.vdevice == vd
    r = infer("relax.isnan", T(s, "float32"))
    assert r.shape is s and r.dtype == "bool" and r.ndim == 2


@pytest.mark.parametrize("op", [o for o in BINARY_OPS if o not in CMP_OPS])
def test_binary_arith(op):
    name = f"relax.{op}"
    assert infer(name, T((2, 3)), T((3,))) == T((2, 3))
    assert infer(name, T((n, 1)), T((1, m))) == T((n, m))
    assert infer(name, T((n + 1,)), T((1 + n,))) == T((n + 1,))  # provably equal: LHS dim kept
    assert infer(name, T((n,)), T((m,))) == T(None, "float32", 1)
    assert infer(name, T((4, n)), T((3, 1, m))) == T(None, "float32", 3)
    assert infer(name, T(None, "float32"), T((3,))) == T(None, "float32")
    assert infer(name, T(None, "float32", 2), T((3,))) == T(None, "float32", 2)
    assert infer(name, T((2,), "void"), T((2,))) == T((2,), "void")
    assert infer(name, T((2,), "bool"), T((2,))) == T((2,), "bool")  # TVM 0.25: the LHS dtype
    assert infer(name, T((2,)), T((2,), "bool")) == T((2,))
    with pytest.raises(StructInfoError, match="not broadcastable"):
        infer(name, T((2, 3)), T((4,)))
    with pytest.raises(StructInfoError, match="same datatype"):
        infer(name, T((2,), "int32"), T((2,), "float32"))
    with pytest.raises(StructInfoError, match="R.Tensor or R.Prim"):
        infer(name, T((2,)), ShapeStructInfo(ndim=1))


@pytest.mark.parametrize("op", CMP_OPS)
def test_comparison(op):
    name = f"relax.{op}"
    assert infer(name, T((2, 3)), T((3,))) == T((2, 3), "bool")
    assert infer(name, T((2,), "int32"), T((2,), "float32")) == T((2,), "bool")  # no dtype check
    assert infer(name, T((n,)), T((m,))) == T(None, "bool", 1)
    assert infer(name, PrimStructInfo("int64"), PrimStructInfo("float32")) == PrimStructInfo("bool")
    with pytest.raises(StructInfoError, match="not broadcastable"):
        infer(name, T((2,)), T((3,)))


def test_prim_operands():
    pv = rx.PrimValue(P.FloatImm(1.0, "float32"), struct_info=PrimStructInfo(value=P.FloatImm(1.0, "float32")))
    # a prim operand counts as shape [1] (TVM 0.25 quirk)
    assert infer("relax.add", T(()), pv) == T((1,))
    assert infer("relax.add", T((n,)), pv) == T((n,))
    assert infer("relax.add", PrimStructInfo("float32"), PrimStructInfo("float32")) == PrimStructInfo("float32")
    with pytest.raises(StructInfoError, match="same datatype"):
        infer("relax.add", T((2, 3)), PrimStructInfo("int64"))


def test_same_shape_variable_is_propagated():
    s = rx.Var("s", struct_info=ShapeStructInfo(ndim=2))
    r = infer("relax.add", T(s), T(s))
    assert r.shape is s
    t = rx.Var("t", struct_info=ShapeStructInfo(ndim=2))
    assert infer("relax.add", T(s), T(t)) == T(None, "float32", 2)


def test_binary_vdevice():
    a, b = VDevice("llvm", 0, "global"), VDevice("cuda", 0, "global")
    assert infer("relax.add", T((2,), vdevice=a), T((2,))).vdevice == a
    assert infer("relax.add", T((2,)), T((2,), vdevice=a)).vdevice == a
    with pytest.raises(StructInfoError, match="VDevice"):
        infer("relax.add", T((2,), vdevice=a), T((2,), vdevice=b))


def test_where():
    assert infer("relax.where", T((2, 1), "bool"), T((3,)), T((1,))) == T((2, 3))
    assert infer("relax.where", T((n, 1), "bool"), T((n, m)), T((1,))) == T((n, m))
    assert infer("relax.where", T((n,), "bool"), T((m,)), T((1,))) == T(None, "float32", 1)
    with pytest.raises(StructInfoError, match="boolean"):
        infer("relax.where", T((2,), "int32"), T((2,)), T((2,)))
    with pytest.raises(StructInfoError, match="boolean"):
        infer("relax.where", T((2,), "void"), T((2,)), T((2,)))
    with pytest.raises(StructInfoError, match="same datatype"):
        infer("relax.where", T((2,), "bool"), T((2,)), T((2,), "int32"))
    with pytest.raises(StructInfoError, match="not broadcastable"):
        infer("relax.where", T((2, 1), "bool"), T((3,)), T((4,)))
    with pytest.raises(StructInfoError, match="tensor"):
        infer("relax.where", PrimStructInfo("bool"), T((2,)), T((2,)))


def test_ewise_fma():
    assert infer("relax.ewise_fma", T((n, 3)), T((n, 3)), T((n, 3))) == T((n, 3))
    assert infer("relax.ewise_fma", T(None, "float32", 2), T((2, 3)), T((2, 3))) == T(None, "float32", 2)
    assert infer("relax.ewise_fma", T((2,), "void"), T((2,)), T((2,))) == T((2,), "void")
    with pytest.raises(StructInfoError, match="same shape"):
        infer("relax.ewise_fma", T((2, 3)), T((3,)).__class__(rx.ShapeExpr((2, 4)), "float32"), T((2, 3)))
    with pytest.raises(StructInfoError, match="same number of dimensions"):
        infer("relax.ewise_fma", T((2, 3)), T((3,)), T((2, 3)))
    with pytest.raises(StructInfoError, match="must be equal"):
        infer("relax.ewise_fma", T((2,)), T((2,), "int32"), T((2,)))


def test_clip():
    pv0 = rx.PrimValue(P.IntImm(0, "int64"), struct_info=PrimStructInfo(value=P.IntImm(0, "int64")))
    pv6 = rx.PrimValue(P.FloatImm(6.0, "float64"), struct_info=PrimStructInfo(value=P.FloatImm(6.0, "float64")))
    assert infer("relax.clip", T((n, 2), "int32"), pv0, pv6) == T((n, 2), "int32")
    # TVM returns the struct info of x whatever it is
    assert infer("relax.clip", ObjectStructInfo(), pv0, pv6) == ObjectStructInfo()
    v = rx.Var("lo", struct_info=PrimStructInfo("float32"))
    with pytest.raises(StructInfoError, match="PrimValue"):
        infer("relax.clip", T((2,)), v, pv6)


@pytest.mark.parametrize("op", NN_OPS)
def test_nn_activations(op):
    name = f"relax.nn.{op}"
    assert infer(name, T((n, 3), "float16")) == T((n, 3), "float16")
    if op == "relu":
        assert infer(name, T((2,), "int8")) == T((2,), "int8")
        assert infer(name, T((2,), "float8_e5m2")) == T((2,), "float8_e5m2")
    else:
        with pytest.raises(StructInfoError, match="float dtype"):
            infer(name, T((2,), "int32"))


def test_axis_helpers():
    call = rx.Call(rx.Op("relax.sum"), ())
    assert C.normalize_axes(call, 3, [-1, 0]) == [2, 0]
    with pytest.raises(StructInfoError, match="out of range"):
        C.normalize_axes(call, 3, [3])
    with pytest.raises(StructInfoError, match="non-repetitive"):
        C.normalize_axes(call, 3, [1, -2])
    assert C.normalize_axis(call, 1, -1) == 0


def test_broadcast_helper_statuses():
    ctx = InferContext(make_analyzer())
    assert C.broadcast_shapes(ctx, (P.IntImm(1, "int64"), n), (m, n)).shape == (m, n)
    assert C.broadcast_shapes(ctx, (P.IntImm(2, "int64"),), (P.IntImm(3, "int64"),)).status == "conflict"
    assert C.broadcast_shapes(ctx, (n,), (P.IntImm(3, "int64"),)).status == "unknown"
    assert C.shape_product([P.IntImm(2, "int64"), P.IntImm(3, "int64")]) == P.IntImm(6, "int64")


# ---------------------------------------------------------------------------------------------------
# Agreement with TVM 0.25
# ---------------------------------------------------------------------------------------------------

F2 = '"float32"'


def _sig(*params):
    return ", ".join(params)


def _binary_cases():
    cases = []
    for op in BINARY_OPS:
        dt = '"int32"' if op in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift") else F2
        if op in ("logical_and", "logical_or", "logical_xor"):
            dt = '"bool"'
        cases += [
            (f"{op}-static", _sig(f"x: R.Tensor((2, 3), {dt})", f"y: R.Tensor((3,), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-sym", _sig(f"x: R.Tensor(('n', 1), {dt})", f"y: R.Tensor((1, 'm'), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-unknown", _sig(f"x: R.Tensor(('n',), {dt})", f"y: R.Tensor(('m',), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-conflict", _sig(f"x: R.Tensor((2, 3), {dt})", f"y: R.Tensor((4,), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-mixed", _sig('x: R.Tensor((2,), "int32")', 'y: R.Tensor((2,), "float32")'), f"R.{op}(x, y)"),
            (f"{op}-boollhs", _sig('x: R.Tensor((2,), "bool")', 'y: R.Tensor((2,), "float32")'), f"R.{op}(x, y)"),
            (f"{op}-ndim", _sig(f"x: R.Tensor({dt}, ndim=2)", f"y: R.Tensor((3,), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-void", _sig("x: R.Tensor((3,))", f"y: R.Tensor((3,), {dt})"), f"R.{op}(x, y)"),
            (f"{op}-prim", _sig(f"x: R.Tensor((), {dt})", f"p: R.Prim({dt})"), f"R.{op}(x, p)"),
            (f"{op}-primprim", _sig(f"p: R.Prim({dt})", f"q: R.Prim({dt})"), f"R.{op}(p, q)"),
        ]
    return cases


def _unary_cases():
    cases = []
    for op in FLOAT_UNARY_OPS + ANY_UNARY_OPS:
        for tag, ann in [("f32", 'R.Tensor((2, 3), "float32")'), ("sym", 'R.Tensor(("n", 3), "float16")'),
                         ("i32", 'R.Tensor((2,), "int32")'), ("bool", 'R.Tensor((2,), "bool")'),
                         ("void", 'R.Tensor((2,))'), ("ndim", 'R.Tensor("float32", ndim=3)'),
                         ("prim", 'R.Prim("float32")'), ("f8", 'R.Tensor((2,), "float8_e4m3fn")')]:
            cases.append((f"{op}-{tag}", f"x: {ann}", f"R.{op}(x)"))
    for op in NN_OPS:
        for tag, ann in [("f32", 'R.Tensor((2, 3), "float32")'), ("sym", 'R.Tensor(("n",), "bfloat16")'),
                         ("i32", 'R.Tensor((2,), "int32")'), ("void", 'R.Tensor((2,))')]:
            cases.append((f"nn.{op}-{tag}", f"x: {ann}", f"R.nn.{op}(x)"))
    cases += [
        ("leakyrelu-alpha", 'x: R.Tensor((2,), "float32")', "R.nn.leakyrelu(x, alpha=0.2)"),
        ("softplus-attrs", 'x: R.Tensor((2,), "float32")', "R.nn.softplus(x, beta=2.0, threshold=5.0)"),
        ("clip-int", 'x: R.Tensor(("n", 2), "int32")', "R.clip(x, 0, 6)"),
        ("clip-float", 'x: R.Tensor((2,), "float16")', "R.clip(x, 0.5, 1.5)"),
    ]
    return cases


def _other_cases():
    return [
        ("where-static", _sig('c: R.Tensor((2, 1), "bool")', 'x: R.Tensor((3,), "float32")',
                              'y: R.Tensor((1,), "float32")'), "R.where(c, x, y)"),
        ("where-sym", _sig('c: R.Tensor(("n", 1), "bool")', 'x: R.Tensor(("n", "m"), "float32")',
                           'y: R.Tensor((1,), "float32")'), "R.where(c, x, y)"),
        ("where-unknown", _sig('c: R.Tensor(("n",), "bool")', 'x: R.Tensor(("m",), "float32")',
                               'y: R.Tensor((1,), "float32")'), "R.where(c, x, y)"),
        ("where-intcond", _sig('c: R.Tensor((2,), "int32")', 'x: R.Tensor((2,), "float32")',
                               'y: R.Tensor((2,), "float32")'), "R.where(c, x, y)"),
        ("where-mixed", _sig('c: R.Tensor((2,), "bool")', 'x: R.Tensor((2,), "float32")',
                             'y: R.Tensor((2,), "int32")'), "R.where(c, x, y)"),
        ("where-conflict", _sig('c: R.Tensor((2, 1), "bool")', 'x: R.Tensor((3,), "float32")',
                                'y: R.Tensor((4,), "float32")'), "R.where(c, x, y)"),
        ("fma-sym", _sig('a: R.Tensor(("n", 3), "float32")', 'b: R.Tensor(("n", 3), "float32")',
                         'c: R.Tensor(("n", 3), "float32")'), "R.ewise_fma(a, b, c)"),
        ("fma-shape", _sig('a: R.Tensor((2, 3), "float32")', 'b: R.Tensor((2, 4), "float32")',
                           'c: R.Tensor((2, 3), "float32")'), "R.ewise_fma(a, b, c)"),
        ("fma-ndim", _sig('a: R.Tensor((2, 3), "float32")', 'b: R.Tensor((3,), "float32")',
                          'c: R.Tensor((2, 3), "float32")'), "R.ewise_fma(a, b, c)"),
        ("fma-dtype", _sig('a: R.Tensor((2,), "float32")', 'b: R.Tensor((2,), "int32")',
                           'c: R.Tensor((2,), "float32")'), "R.ewise_fma(a, b, c)"),
    ]


CASES = _binary_cases() + _unary_cases() + _other_cases()


test_agrees_with_tvm = sinfo_agreement_test(CASES)


@pytest.mark.tvm
def test_script_names_and_parameters_match_tvm():
    """Every elementwise entry exists in TVM 0.25 under its script name with the same parameters."""
    entries = [d.name for d in registry.all_ops() if d.category == "elementwise"]
    assert len(entries) == 67
    check_signatures_match_tvm(entries, defaults_agree=lambda ours, theirs: ours == theirs)


def test_every_op_parses_prints_and_reparses():
    """The registry entries drive the parser and the printer: a module calling every elementwise op
    survives print -> parse in both spellings (clip bounds become float64 / int64 PrimValues, as TVM's
    Python API makes them)."""
    body = [f"R.{o}(x)" for o in FLOAT_UNARY_OPS + ANY_UNARY_OPS] + [f"R.{o}(x, y)" for o in BINARY_OPS]
    body += ["R.nn.relu(x)", "R.nn.leakyrelu(x, alpha=0.2)", "R.nn.gelu(x)", "R.nn.gelu_tanh(x)",
             "R.nn.silu(x)", "R.nn.selu(x)", "R.nn.softplus(x, beta=2.0, threshold=10.0)",
             "R.clip(x, 0.5, 6)", "R.where(c, x, y)", "R.ewise_fma(x, x, x)"]
    mod = check_print_roundtrip('x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32"), '
                                'c: R.Tensor((2, 3), "bool")', body)
    bindings = mod["main"].body.blocks[0].bindings
    clip = [b.value for b in bindings if isinstance(b.value, rx.Call) and b.value.op.name == "relax.clip"][0]
    assert clip.args[1].value == P.FloatImm(0.5, "float64") and clip.args[2].value == P.IntImm(6, "int64")
    leaky = [b.value for b in bindings if isinstance(b.value, rx.Call) and b.value.op.name == "relax.nn.leakyrelu"][0]
    assert leaky.attrs["alpha"] == 0.2

"""Basic properties of IR nodes: identity vs structural equality, dtype promotion, immutability."""

import dataclasses

import numpy as np
import pytest

from relax_ref.ir import (
    Attrs, Call, Constant, DataflowVar, Function, GlobalVar, IRModule, Op, PrimValue, SeqExpr, ShapeExpr,
    ShapeStructInfo, TensorStructInfo, Var,
)
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir


def test_prim_var_identity_and_structural_nodes():
    n, m = P.PrimVar("n"), P.PrimVar("n")
    assert n is not m and n != m
    assert n * 2 == P.Mul(n, P.IntImm(2))
    assert n * 2 != m * 2
    assert hash(n + 1) == hash(n + 1)


def test_dtype_promotion():
    i32 = P.PrimVar("i", "int32")
    i64 = P.PrimVar("j", "int64")
    assert (i32 + i64).dtype == "int64"
    assert (i32 + 1).b == P.IntImm(1, "int32")
    f = P.PrimVar("f", "float16")
    assert (f + P.PrimVar("g", "float32")).dtype == "float32"
    assert (i32 + f).dtype == "float16"
    assert P.lt(i32, 3).dtype == "bool"


def test_intimm_wraps():
    assert P.IntImm(300, "int8").value == 44
    assert P.IntImm(-1, "uint8").value == 255
    assert P.IntImm(2**63, "int64").value == -(2**63)


def test_prim_expr_has_no_truth_value():
    with pytest.raises(TypeError):
        bool(P.PrimVar("n") + 1)


def test_struct_info_structural_equality():
    n = P.PrimVar("n")
    a = TensorStructInfo(ShapeExpr((n, 4)), "float32")
    b = TensorStructInfo(ShapeExpr((n, 4)), "float32")
    assert a == b and hash(a) == hash(b)
    assert a.ndim == 2
    assert TensorStructInfo(dtype="float", ndim=3).dtype == "float32"
    assert ShapeStructInfo((1, n)).ndim == 2


def test_vars_identity_and_immutability():
    x = Var("x", struct_info=TensorStructInfo(ndim=1))
    y = Var("x", struct_info=TensorStructInfo(ndim=1))
    assert x != y
    assert isinstance(DataflowVar("d"), Var)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.name_hint = "z"


def test_constant_is_read_only_copy():
    arr = np.arange(4, dtype="float32")
    c = Constant(arr)
    arr[0] = 100
    assert c.data[0] == 0
    assert not c.data.flags.writeable
    assert c.dtype == "float32"


def test_value_nodes_compare_structurally():
    n = P.PrimVar("n")
    assert ShapeExpr((n, 2)) == ShapeExpr((n, 2))
    assert PrimValue(P.IntImm(3)) == PrimValue(P.IntImm(3))
    assert Op("relax.add") == Op("relax.add")


def test_attrs_frozen_hashable():
    a = Attrs({"axis": [1, 2], "keepdims": False})
    assert a["axis"] == (1, 2)
    assert a == {"axis": (1, 2), "keepdims": False}
    assert hash(a) == hash(Attrs({"keepdims": False, "axis": (1, 2)}))
    with pytest.raises(AttributeError):
        a.x = 1


def test_module_functional_update():
    x = Var("x", struct_info=TensorStructInfo(ndim=1))
    f = Function(params=(x,), body=SeqExpr((), x), ret_struct_info=x.struct_info)
    mod = IRModule({GlobalVar("main"): f})
    assert mod["main"] is f and list(mod) == ["main"]
    mod2 = mod.with_function("helper", f)
    assert list(mod2) == ["main", "helper"] and list(mod) == ["main"]
    assert mod2.get_global_var("main") is mod.get_global_var("main")


def test_call_normalises_fields():
    x = Var("x")
    c = Call(Op("relax.sum"), [x], {"axis": [0]})
    assert isinstance(c.args, tuple) and c.attrs["axis"] == (0,)


def test_buffer_and_load():
    n = P.PrimVar("n")
    b = tir.Buffer("A", (n, 4), "float16")
    assert b.shape[1] == P.IntImm(4, "int32")
    assert tir.BufferLoad(b, (P.IntImm(0), P.IntImm(0))).dtype == "float16"

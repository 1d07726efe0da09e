"""The Python decorators of relax_ref.script (spec TEXT.1).

This module deliberately has no ``from __future__ import annotations``: parameter annotations such as
``R.Tensor((n, 4), "float32")`` are evaluated by Python at definition time and must be inert.
"""

import inspect

import pytest

from relax_ref.errors import ParseError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir import tir
from relax_ref.ir.attrs import Attrs
from relax_ref.ir.module import IRModule
from relax_ref.script import ir as I
from relax_ref.script import relax as R
from relax_ref.script import tir as T

from script_helpers import parse_unknown_ops_with

RX = R  # a second alias of the Relax namespace

n = T.int64()


def _test_parse_call(opdef, args, kwargs, span):
    return rx.Call(rx.Op(opdef.name), tuple(args), Attrs({}), span=span)


@pytest.fixture(autouse=True)
def _test_ops(monkeypatch):
    parse_unknown_ops_with(monkeypatch, _test_parse_call)


def test_markers_are_inert():
    m = R.Tensor((n, 4), "float32")
    assert "R.Tensor" in repr(m)
    assert R.Tuple(R.Tensor, R.Object) is not None and T.Buffer((4,), "float32") is not None
    assert T.Buffer[(4,), "float32"] is not None and R.nn.softmax is not None
    with pytest.raises(AttributeError):
        R.__secret__  # noqa: B018
    with pytest.raises(AttributeError):
        m._path = "x"


def test_ir_module_class_decorator():
    def make():
        @I.ir_module(normalize=False)
        class Module:
            I.module_attrs({"tag": "decorated"})
            I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

            @T.prim_func(private=True, s_tir=True)
            def add_two(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
                for i in range(T.int64(4)):
                    with T.sblock("c"):
                        vi = T.axis.spatial(T.int64(4), i)
                        B[vi] = A[vi] + T.float32(2)

            @R.function
            def main(x: R.Tensor((4,), "float32", "llvm")) -> R.Tensor((4,), "float32"):
                cls = Module
                y = R.call_tir(cls.add_two, (x,), out_sinfo=R.Tensor((4,), "float32"))
                return y

        return Module

    mod = make()
    assert isinstance(mod, IRModule) and list(mod) == ["add_two", "main"]
    assert mod.attrs["tag"] == "decorated"
    assert mod["main"].params[0].struct_info.vdevice is mod.global_infos["vdevice"][0]
    assert isinstance(mod["add_two"], tir.PrimFunc)
    # spans are positions in this file
    lines, start = inspect.getsourcelines(make)
    main = mod["main"]
    def_line = start + next(i for i, l in enumerate(lines) if "def main(" in l)
    assert main.span.file == __file__ and main.span.line == def_line
    assert main.params[0].span.col == lines[def_line - start].index("x: R.Tensor") + 1


def test_function_and_prim_func_decorators():
    @R.function(normalize=False)
    def f(x: R.Tensor((n, 4), "float32"), kv: R.Prim(value="k")) -> R.Tensor((n, 4), "float32"):
        y = R.add(x, x)
        return y

    @T.prim_func(normalize=False)
    def g(A: T.Buffer((4,), "float32"), m: T.int32):
        for i in range(4):
            A[i] = T.Cast("float32", m)

    assert isinstance(f, rx.Function) and f.attrs["global_symbol"] == "f"
    dim = f.params[0].struct_info.shape.values[0]
    assert isinstance(dim, P.PrimVar) and dim.name == "n"  # module-level `n = T.int64()`
    assert f.ret_struct_info.shape.values[0] is dim
    assert isinstance(f.params[1].struct_info, si.PrimStructInfo)
    assert isinstance(g, tir.PrimFunc) and g.params[1].dtype == "int32"


def test_alias_of_a_namespace_module():
    @RX.function(normalize=False)
    def f(x: RX.Tensor((2,), "float32")) -> RX.Tensor((2,), "float32"):
        return x

    assert f.params[0].struct_info.dtype == "float32"


def test_decorated_code_is_never_run(tmp_path):
    target = tmp_path / "pwned"
    with pytest.raises(ParseError) as info:
        @R.function(normalize=False)
        def f(x: R.Tensor((2,), "float32")):
            y = open(str(target), "w")  # noqa: SIM115
            return x
    assert not target.exists()
    err = info.value
    assert err.span.file == __file__
    src = inspect.getsource(test_decorated_code_is_never_run)
    start = inspect.getsourcelines(test_decorated_code_is_never_run)[1]
    expected = start + src.splitlines().index(next(l for l in src.splitlines() if "y = open(" in l))
    assert err.span.line == expected
    assert "open" in str(err)


def test_normalized_by_default():
    pytest.importorskip("relax_ref.static.normalize")
    pytest.importorskip("relax_ref.static.well_formed")

    @R.function
    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    assert f.params[0].struct_info is not None and f.ret_struct_info is not None

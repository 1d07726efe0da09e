"""The builder API (relax_ref.builder): programs it produces are normalized and well formed (WF.*),
print and re-parse to structurally equal modules in both dialects (TEXT.RT.1), and compute what the
equivalent numpy program computes."""

import os
import textwrap

import numpy as np
import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed
from relax_ref.builder import block_builder
from relax_ref.builder import (
    BlockBuilder, Object, Prim, Shape, Tensor, Tuple, call, call_packed, const, get_item, if_, op, prim_value,
    shape, sym_var, tuple_, var,
)
from relax_ref.errors import StructInfoError, WellFormedError
from relax_ref.ir import expr as rx
from relax_ref.ir import struct_info as si
from relax_ref.ops import te


def roundtrip(mod):
    """Well formed, and parse(print(mod)) == mod in both dialects (TEXT.RT.1)."""
    check_well_formed(mod)
    for dialect in ("classic", "tvm"):
        text = mod.script(dialect=dialect)
        back = relax_ref.parse(text)
        relax_ref.assert_structural_equal(mod, back)
        assert back.script(dialect=dialect) == text
    return mod


def _usage_example() -> dict:
    """The names the usage example of ``relax_ref.builder.block_builder``'s docstring binds, after it ran
    (the documented example is this test's program)."""
    doc = block_builder.__doc__
    code = textwrap.dedent(doc.split("Usage::\n", 1)[1].split("\n(", 1)[0])
    names: dict = {}
    exec(compile(code, "block_builder usage", "exec"), names)  # noqa: S102  (the project's own docstring)
    return names


def test_dataflow_function_names_and_struct_info():
    example = _usage_example()
    n, y, z = example["n"], example["y"], example["z"]
    mod = roundtrip(example["mod"])
    # TVM's naming: DataflowVars lv, lv1, ...; the output Var gv; nested calls bound first (NORM.ANF.2)
    assert [type(v).__name__ for v in (y, z)] == ["DataflowVar", "Var"]
    assert (y.name_hint, z.name_hint) == ("lv", "gv")
    assert y.struct_info == Tensor((n, 8), "float32")
    f = mod["main"]
    assert f.attrs["global_symbol"] == "main" and f.attrs["num_input"] == 1
    assert f.ret_struct_info == Tensor((n, 8), "float32")
    names = [b.var.name_hint for b in f.body.blocks[0].bindings]
    assert names == ["lv", "lv1", "gv"]
    xv = np.arange(12, dtype="float32").reshape(3, 4)
    wv = np.linspace(-1, 1, 32, dtype="float32").reshape(4, 8)
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", xv, wv), np.maximum(xv @ wv + 1.0, 0), rtol=1e-6)


def test_bindings_outside_dataflow_and_tuples():
    bb = BlockBuilder()
    m = bb.sym_var("m")
    x = var("x", Tensor((m,), "float32"))
    with bb.function("f", [x]):
        a = bb.emit(op.exp(x))
        t = bb.emit(tuple_(a, x), name_hint="t")
        b = bb.emit(get_item(t, 0), name_hint="b")
        s = bb.emit(op.shape_of(b))
        bb.emit_func_output([b, s])
    mod = roundtrip(bb.get())
    assert type(a) is rx.Var and a.name_hint == "gv"
    assert t.name_hint == "t" and isinstance(t.struct_info, si.TupleStructInfo)
    assert not any(isinstance(blk, rx.DataflowBlock) for blk in mod["f"].body.blocks)
    out = relax_ref.evaluate(mod, "f", np.array([0.0, 1.0], "float32"))
    np.testing.assert_allclose(out[0], np.exp([0.0, 1.0]), rtol=1e-6)
    assert tuple(out[1]) == (2,)


def test_match_cast_defines_symbolic_vars_and_return_is_erased():
    """A match_cast defines its new symbolic variables (NORM.MATCHCAST.1); the return struct info is
    erased to what the parameters define (NORM.FUNC.1)."""
    bb = BlockBuilder()
    x = var("x", Tensor(ndim=2, dtype="float32"))
    k = sym_var("k")
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.match_cast(x, Tensor((k, 3), "float32"))
            z = bb.emit(op.sum(y, axis=[1]))
            o = bb.emit_output(op.add(z, z))
        bb.emit_func_output(o)
    mod = roundtrip(bb.get())
    assert y.struct_info == Tensor((k, 3), "float32")
    assert z.struct_info == Tensor((k,), "float32")
    assert mod["main"].ret_struct_info == si.TensorStructInfo(None, "float32", 1)
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", np.ones((5, 3), "float32")), np.full(5, 6.0))
    with pytest.raises(relax_ref.RelaxError):
        relax_ref.evaluate(mod, "main", np.ones((5, 4), "float32"))


def test_if_impure_packed_call_and_prim_values():
    bb = BlockBuilder()
    x = var("x", Tensor((3,), "float32"))
    c = var("c", Prim("bool"))
    with bb.function("main", [x, c], pure=False):
        r = bb.emit(if_(c, op.multiply(x, const(2.0)), op.negative(op.exp(x))), name_hint="r")
        bb.emit(call_packed("test.builder.record", r, sinfo_args=Object()), name_hint="_")
        p = bb.emit(prim_value(7))
        sh = bb.emit(shape([4, 2]))
        bb.emit_func_output(tuple_(r, p, sh))
    mod = roundtrip(bb.get())
    assert isinstance(mod["main"].body.blocks[0].bindings[0].value, rx.If)
    seen = []
    relax_ref.register_func("test.builder.record", lambda v: seen.append(np.array(v)))
    xv = np.array([1.0, -2.0, 0.5], "float32")
    out = relax_ref.evaluate(mod, "main", xv, True)
    np.testing.assert_allclose(out[0], 2 * xv)
    assert out[1] == 7 and tuple(out[2]) == (4, 2)
    out = relax_ref.evaluate(mod, "main", xv, False)
    np.testing.assert_allclose(out[0], -np.exp(xv), rtol=1e-6)
    assert len(seen) == 2


def test_calls_between_functions_and_private_functions():
    bb = BlockBuilder()
    n = bb.sym_var("n")
    a = var("a", Tensor((n,), "float32"))
    with bb.function("double", [a], private=True):
        bb.emit_func_output(bb.emit(op.add(a, a)))
    gv = bb.get_global_var("double")
    m = bb.sym_var("m")
    x = var("x", Tensor((m,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(call(gv, x))
            z = bb.emit_output(call(gv, y))
        bb.emit_func_output(z)
    mod = roundtrip(bb.get())
    assert "global_symbol" not in mod["double"].attrs
    assert z.struct_info == Tensor((m,), "float32")
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", np.arange(3, dtype="float32")), 4 * np.arange(3))


def _te_scale_add(a, b):
    t = te.compute(a.shape, lambda i, j: te.mul(a[i, j], te.const(3.0, "float32")), name="scale")
    return te.compute(a.shape, lambda i, j: te.add(t[i, j], b[j]), name="T_add")


def test_emit_te_adds_deduplicated_prim_funcs():
    bb = BlockBuilder()
    n = bb.sym_var("n")
    x = var("x", Tensor((n, 4), "float32"))
    b = var("b", Tensor((4,), "float32"))
    with bb.function("main", [x, b]):
        with bb.dataflow():
            y = bb.emit_te(_te_scale_add, x, b, primfunc_name_hint="scale_add")
            z = bb.emit_output(bb.call_te(_te_scale_add, y, b, primfunc_name_hint="scale_add"))
        bb.emit_func_output(z)
    mod = roundtrip(bb.get())
    assert sorted(mod) == ["main", "scale_add"]  # the second, equal kernel is not added again
    assert y.struct_info == Tensor((n, 4), "float32")
    xv = np.arange(8, dtype="float32").reshape(2, 4)
    bv = np.array([1, 2, 3, 4], "float32")
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", xv, bv), 3 * (3 * xv + bv) + bv)


def test_builder_starting_from_a_module_keeps_its_global_vars():
    base = relax_ref.parse('''
from tvm.script import ir as I, relax as R
@I.ir_module
class Module:
    @R.function
    def inc(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return R.add(x, R.const(1.0, "float32"))
    @R.function
    def twice(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        cls = Module
        y = cls.inc(x)
        return cls.inc(y)
''')
    bb = BlockBuilder(base)
    k = sym_var("k")
    x = var("x", Tensor((k,), "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(call(bb.get_global_var("twice"), x)))
    mod = roundtrip(bb.get())
    assert mod.get_global_var("inc") is base.get_global_var("inc")
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", np.zeros(2, "float32")), [2.0, 2.0])


def test_struct_info_constructors():
    n = sym_var("n")
    assert Tensor((n, 2), "float32").ndim == 2
    assert Tensor("int32").dtype == "int32" and Tensor("int32").ndim == -1
    assert Shape([n, 3]).ndim == 2 and Shape(ndim=3).values is None
    assert Prim(value=n).dtype == "int64" and Prim("float16").value is None
    assert Tuple(Object(), Prim("bool")).fields[1] == si.PrimStructInfo("bool")
    assert Tuple() == si.TupleStructInfo(())
    with pytest.raises(StructInfoError, match="sym_var"):
        Tensor(("n", 2), "float32")
    with pytest.raises(StructInfoError):
        Tensor((-1, 2), "float32")
    with pytest.raises(StructInfoError):
        Tensor((2,), "float33")
    assert const(1).dtype == "int32" and const(1.5).dtype == "float32" and const([True]).dtype == "bool"
    with pytest.raises(StructInfoError, match="out of range"):
        const(300, "int8")


# ---------------------------------------------------------------------------------------------------
# Errors: WellFormedError / StructInfoError naming the function and the user's line (ERR.1)
# ---------------------------------------------------------------------------------------------------


def test_misuse_errors():
    bb = BlockBuilder()
    x = var("x", Tensor((2,), "float32"))
    with pytest.raises(WellFormedError, match="inside `with bb.function"):
        bb.emit(op.exp(x))
    with pytest.raises(WellFormedError, match="inside a dataflow block"):
        with bb.function("f", [x]):
            bb.emit_output(op.exp(x))
    with pytest.raises(WellFormedError, match="outside the dataflow block"):
        with bb.function("f", [x]):
            with bb.dataflow():
                bb.emit_func_output(bb.emit_output(op.exp(x)))
    with pytest.raises(WellFormedError, match="without emit_func_output"):
        with bb.function("f", [x]):
            bb.emit(op.exp(x))
    with pytest.raises(StructInfoError, match="no struct info"):
        with bb.function("f", [rx.Var("y")]):
            pass
    assert len(bb.get(check=False)) == 0  # failed functions are not added
    with bb.function("f", [x]):
        bb.emit_func_output(x)
    with pytest.raises(WellFormedError, match="already has a function named 'f'"):
        with bb.function("f", [x]):
            pass


def test_dataflow_var_escaping_is_reported_by_get():
    bb = BlockBuilder()
    x = var("x", Tensor((2,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(op.exp(x))
        bb.emit_func_output(y)
    with pytest.raises(WellFormedError, match="outside DataflowBlock"):
        bb.get()


def test_inference_error_names_function_and_caller_line():
    bb = BlockBuilder()
    x = var("x", Tensor((2, 3), "float32"))
    with pytest.raises(StructInfoError) as info:
        with bb.function("main", [x]):
            bb.emit(op.matmul(x, x))  # (2, 3) @ (2, 3): reduction lengths differ
    err = info.value
    assert err.function == "main"
    assert err.span is not None and os.path.samefile(err.span.file, __file__)


def test_op_argument_errors_are_well_formed_errors_with_span():
    x = var("x", Tensor((2,), "float32"))
    with pytest.raises(WellFormedError, match="unexpected keyword argument 'axes'") as info:
        op.nn.softmax(x, axes=0)
    assert os.path.samefile(info.value.span.file, __file__)
    with pytest.raises(WellFormedError, match="missing required argument"):
        op.add(x)


def test_op_namespace_covers_the_registry():
    from relax_ref.ops import registry

    for opdef in registry.all_ops():
        path = opdef.script[2:].split(".")
        obj = op
        for part in path:
            obj = getattr(obj, part)
        assert obj.opdef is opdef, opdef.name
    assert "add" in dir(op) and "nn" in dir(op) and "softmax" in dir(op.nn)
    with pytest.raises(AttributeError):
        op.no_such_operator
    with pytest.raises(AttributeError):
        op.nn.no_such_operator
    import inspect

    assert list(inspect.signature(op.nn.softmax).parameters) == ["data", "axis"]
    call_ = op.nn.softmax(var("x", Tensor((2,), "float32")), axis=0)
    assert call_.op.name == "relax.nn.softmax" and call_.attrs["axis"] == 0 and call_.struct_info is None

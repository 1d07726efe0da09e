"""Packed functions that TVM's lowering passes leave in Relax modules, on the interpreter and on the
JAX executor: the shape heap and checks of VMShapeLower [CALL.SHAPEHEAP.1-3], the ``relax.run.*``
functions of LegalizeOps [CALL.PACKED.8] and ``vm.builtin.invoke_closure`` with its VM context
[CALL.PACKED.6]. The programs are written here in the form those passes print; expected values are
hand values and numpy formulas."""

import io

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import (
    ArityMismatchError, AssertionFailedError, DTypeMismatchError, NDimMismatchError, OpRuntimeError,
    ShapeMismatchError, TypeMismatchError, ValueMismatchError,
)
from relax_ref.values import ShapeValue
from program_texts import case_text


def _jax_run(mod, entry, args, out):
    import relax_jax

    return relax_jax.compile(mod, stdout=out)(entry, *args)


def _ref_run(mod, entry, args, out):
    return relax_ref.Interpreter(mod, stdout=out)(entry, *args)


@pytest.fixture(params=["ref", "jax"])
def run(request):
    """``run(text, *args, entry="main") -> (result, printed text)`` on one evaluator."""
    impl = _ref_run if request.param == "ref" else _jax_run

    def go(text, *args, entry="main"):
        out = io.StringIO()
        result = impl(relax_ref.parse(text), entry, list(args), out)
        return result, out.getvalue()
    return go


#: the case ``packed/lowered_shape_heap`` with ``k`` and ``y`` left open (``R.Object``), so that a wrong value
#: reaches the checks of the lowered program
HEAP = case_text("packed", "lowered_shape_heap").replace(
    'def main(x: R.Tensor, k: R.Prim("int64"), y: R.Tensor):', "def main(x: R.Tensor, k: R.Object, y: R.Object):")
assert "k: R.Object" in HEAP


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_shape_heap_match_and_make(run):
    """[CALL.SHAPEHEAP.1] [CALL.SHAPEHEAP.2] codes 0-3 of match_shape, make_shape and the prim-value
    forms; a PrimFunc called directly with the heap computes a slot."""
    (s, p, heap), _ = run(HEAP, f32(3, 4), 5, np.zeros((3, 9), np.int8))
    assert tuple(s) == (3, 6, 7)
    assert p == 5
    np.testing.assert_array_equal(np.asarray(heap), np.array([3, 5, 6], np.int64))


@pytest.mark.parametrize("args,error,words", [
    ((f32(3, 4, 1), 5, np.zeros((3, 1))), NDimMismatchError, "param x: rank is 3, expected 2"),
    ((np.zeros((3, 4), np.int32), 5, np.zeros((3, 1))), DTypeMismatchError, "param x: dtype is int32"),
    ((f32(3, 5), 5, np.zeros((3, 1))), ShapeMismatchError, "param x: shape[1] is 5, expected 4"),
    ((f32(3, 4), 5, np.zeros((2, 1))), ShapeMismatchError, "param y: shape[0] is 2, expected 3"),
    ((f32(3, 4), f32(1), np.zeros((3, 1))), TypeMismatchError, "param k: expected a prim value"),
    ((f32(3, 4), 5, (1, 2)), TypeMismatchError, "param y: expected a tensor"),
])
def test_shape_heap_checks_fail_as_the_unlowered_checks(run, args, error, words):
    """[CALL.SHAPEHEAP.3] [EVAL.CHECK.8] the error kinds of the parameter checks they replace, with
    TVM's error context first."""
    with pytest.raises(error) as info:
        run(HEAP, *args)
    assert words in str(info.value)


CHECKS = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(t: R.Object, s: R.Object, f: R.Object):
        R.call_packed("vm.builtin.check_tuple_info", t, R.prim_value(2), R.str("param t"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_shape_info", s, R.prim_value(2), R.str("param s"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_func_info", f, R.str("param f"), sinfo_args=(R.Tuple,))
        return t

    @R.function
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function(pure=False)
    def with_func(t: R.Object, s: R.Object):
        cls = Module
        r = cls.main(t, s, cls.helper)
        return r
'''


def test_tuple_shape_and_function_checks(run):
    """[CALL.SHAPEHEAP.3]"""
    t = (f32(2), 3)
    r, _ = run(CHECKS, t, ShapeValue((2, 3)), entry="with_func")
    np.testing.assert_array_equal(r[0], f32(2))
    with pytest.raises(ArityMismatchError, match="param t: tuple has 1 fields, expected 2"):
        run(CHECKS, (f32(2),), ShapeValue((2, 3)), entry="with_func")
    with pytest.raises(NDimMismatchError, match="param s: rank is 1, expected 2"):
        run(CHECKS, t, ShapeValue((2,)), entry="with_func")
    with pytest.raises(TypeMismatchError, match="param s: expected a shape"):
        run(CHECKS, t, f32(2), entry="with_func")
    with pytest.raises(TypeMismatchError, match="param f: expected a function"):
        run(CHECKS, t, ShapeValue((2, 3)), f32(2))


def test_prim_value_match_mismatch_and_bad_code(run):
    """[CALL.SHAPEHEAP.2] a prim value that differs from its immediate is value_mismatch; an unknown
    code is op_runtime."""
    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(k: R.Prim("int64"), code: R.Prim("int64")):
        heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(1),),
                                       sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.match_prim_value", k, heap, code, R.prim_value(4), R.str("param k"),
                      sinfo_args=(R.Tuple,))
        return k
'''
    assert run(text, 4, 0)[0] == 4
    with pytest.raises(ValueMismatchError, match="param k: the prim value is 5, expected 4"):
        run(text, 5, 0)
    with pytest.raises(OpRuntimeError, match="unknown match code 7"):
        run(text, 4, 7)
    with pytest.raises(OpRuntimeError, match="slot 4 is out of range"):
        run(text, 4, 1)


RUN_FUNCS = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 2), "float32"), c: R.Tensor((), "bool")):
        R.call_packed("relax.run.print", R.str("x={} n={}"), x, R.prim_value(3), sinfo_args=(R.Tuple,))
        R.call_packed("relax.run.print", R.str(""), R.shape([2, 5]), R.prim_value(T.float32(0.5)),
                      sinfo_args=(R.Tuple,))
        R.call_packed("relax.run.assert_op", c, R.str("x={}"), x, sinfo_args=(R.Tuple,))
        R.call_packed("relax.run.assert_op", c, R.str(""), x, R.prim_value(2), sinfo_args=(R.Tuple,))
        t = R.call_pure_packed("relax.run.shape_to_tensor", R.shape([2, 7, 0]), sinfo_args=(R.Tensor((3,), "int64"),))
        return t
'''


def test_relax_run_functions(run):
    """[CALL.PACKED.8] relax.run.print writes where R.print writes, relax.run.assert_op fails as
    R.assert_op, relax.run.shape_to_tensor is R.shape_to_tensor."""
    x = f32(2, 2)
    t, printed = run(RUN_FUNCS, x, np.array(True))
    np.testing.assert_array_equal(t, np.array([2, 7, 0], np.int64))
    assert np.asarray(t).dtype == np.int64
    assert printed == f"x={x} n=3\n(2, 5) 0.5\n"
    with pytest.raises(AssertionFailedError, match=r"x=\[\[0\. 1\.\]"):
        run(RUN_FUNCS, x, np.array(False))


def test_relax_run_assert_op_message_without_format(run):
    """[CALL.PACKED.8] [CALL.ASSERT.1] with an empty format the values are joined by ", "."""
    line = '        R.call_packed("relax.run.assert_op", c, R.str("x={}"), x, sinfo_args=(R.Tuple,))\n'
    assert line in RUN_FUNCS
    text = RUN_FUNCS.replace(line, "")
    with pytest.raises(AssertionFailedError, match=r"\]\], 2 \(in function"):
        run(text, f32(2, 2), np.array(False))


def test_invoke_closure_takes_the_vm_context_first(run):
    """[CALL.PACKED.6] ``vm.builtin.invoke_closure(ctx, closure, args...)`` as LowerRuntimeBuiltin
    emits it; the captured values come after the arguments."""
    text = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def inner(y: R.Tensor((2,), "float32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.subtract(y, x)
        return z

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        cls = Module
        c = R.call_packed("vm.builtin.make_closure", cls.inner, x, sinfo_args=(R.Object,))
        r = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, y), sinfo_args=(R.Object,))
        return r
'''
    x, y = f32(2), np.array([5.0, 7.0], np.float32)
    r, _ = run(text, x, y)
    np.testing.assert_array_equal(r, y - x)


def test_tensor_create_view(run):
    """[CALL.PACKED.6] ``runtime.TVMTensorCreateView``: a shape, dtype and byte offset over the same
    bytes; a view beyond them is op_runtime."""
    text = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), off: R.Prim("int64")):
        v = R.call_pure_packed("runtime.TVMTensorCreateView", x, R.shape([3]), R.dtype("float32"), off,
                               sinfo_args=(R.Tensor((3,), "float32"),))
        u = R.call_pure_packed("runtime.TVMTensorCreateView", x, R.shape([2, 4]), R.dtype("int32"), R.prim_value(0),
                               sinfo_args=(R.Tensor((2, 4), "int32"),))
        return (v, u)
'''
    x = f32(2, 4)
    (v, u), _ = run(text, x, 8)
    np.testing.assert_array_equal(v, np.array([2.0, 3.0, 4.0], np.float32))
    np.testing.assert_array_equal(u, x.view(np.int32))
    with pytest.raises(OpRuntimeError, match="needs 12 bytes"):
        run(text, x, 24)

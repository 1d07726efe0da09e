"""Evaluation of Relax constructs [EVAL.*] and calling conventions [CALL.*]."""

import io

import numpy as np
import pytest

from relax_ref.errors import (
    ArityMismatchError, AssertionFailedError, DTypeMismatchError, NDimMismatchError, PackedFuncError,
    ShapeMismatchError, TIRBoundsError, TypeMismatchError, UnsupportedError,
)
from relax_ref.interp import Interpreter, ShapeValue, evaluate, register_func
from program_texts import ADDN_TOP, FACT_TOP


def module(body: str) -> str:
    return "@I.ir_module\nclass Module:\n" + "\n".join("    " + ln for ln in body.strip("\n").splitlines())


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


# ---------------------------------------------------------------------------------------------------
# Bindings, tuples, shapes, prim values
# ---------------------------------------------------------------------------------------------------


def test_dataflow_bindings_tuples_and_projection(parse_ir):
    """[EVAL.BIND.1] [EVAL.DATAFLOW.1] [EVAL.TUPLE.1] [EVAL.TGI.1]"""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        a = R.add(x, y)
        t = (a, x)
        b = t[0]
        c = R.multiply(b, t[1])
        R.output(c, t)
    return (c, t, R.tuple())
'''))
    x, y = f32(2, 3), np.ones((2, 3), np.float32)
    c, t, unit = evaluate(mod, "main", x, y)
    np.testing.assert_array_equal(c, (x + y) * x)
    assert isinstance(t, tuple) and t[1] is x
    assert unit == ()


def test_binding_aliases_tensors(parse_ir):
    """[EVAL.VAR.1] [EVAL.CONST.1] a variable aliases its value; each constant evaluation is fresh."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = x
    c = R.const(1.5, "float32")
    return (x, y, c)
'''))
    x = f32(3)
    a, b, c = evaluate(mod, "main", x)
    assert a is x and b is x
    assert c.dtype == np.float32 and c.shape == () and c == 1.5


def test_shape_expr_and_prim_value_use_symbolic_environment(parse_ir):
    """[EVAL.SHAPE.1] [EVAL.PRIM.1] shape and prim values are computed from bound symbolic vars."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()
    s = R.shape([n * m, n // 2, (m + 1) // 2])
    p = R.prim_value(n * 10 + m)
    return (s, p, R.shape_of(x))
'''))
    s, p, so = evaluate(mod, "main", np.zeros((5, 3), np.float32))
    assert s == ShapeValue((15, 2, 2)) and isinstance(s, ShapeValue)
    assert p == 53 and so == (5, 3)


def test_strings_and_dtypes_evaluate_to_themselves(parse_ir):
    """[EVAL.STRING.1] [EVAL.DTYPE.1]"""
    mod = parse_ir(module('''
@R.function
def main():
    return (R.str("hello"), R.dtype("float16"))
'''))
    assert evaluate(mod, "main") == ("hello", "float16")


# ---------------------------------------------------------------------------------------------------
# If
# ---------------------------------------------------------------------------------------------------

_IF = '''
@R.function
def main(c: {ann}, x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    if c:
        y = R.add(x, x)
    else:
        y = R.multiply(x, x)
    return y
'''


@pytest.mark.parametrize("ann,cond,taken", [
    ('R.Prim("bool")', True, "then"), ('R.Prim("bool")', False, "else"),
    ('R.Prim("int64")', 3, "then"), ('R.Prim("int64")', 0, "else"),
    ('R.Tensor((), "bool")', np.array(True), "then"), ('R.Tensor((), "int32")', np.array(0, np.int32), "else"),
])
def test_if_takes_one_branch(parse_ir, ann, cond, taken):
    """[EVAL.IF.1] [EVAL.IF.2] bool / int prim values and rank-0 bool / int tensors."""
    mod = parse_ir(module(_IF.format(ann=ann)))
    x = np.array([3, 4], np.float32)
    out = evaluate(mod, "main", cond, x)
    np.testing.assert_array_equal(out, x + x if taken == "then" else x * x)


def test_if_condition_rejects_non_scalar_and_float_tensors(parse_ir):
    """[EVAL.IF.2] TVM reads element 0 of a non-scalar tensor; relax-ref raises. Floats fail in both."""
    x = np.ones(2, np.float32)
    mod = parse_ir(module(_IF.format(ann='R.Tensor((2,), "bool")')))
    with pytest.raises(NDimMismatchError):
        evaluate(mod, "main", np.array([False, True]), x)
    mod = parse_ir(module(_IF.format(ann='R.Tensor((), "float32")')))
    with pytest.raises(DTypeMismatchError):
        evaluate(mod, "main", np.array(1.0, np.float32), x)


def test_match_cast_in_branch_binds_branch_local_symbolic_vars(parse_ir):
    """[EVAL.SEQ.1] [EVAL.MATCHCAST.1] symbolic vars bound in a branch are dropped after it."""
    mod = parse_ir(module('''
@R.function
def main(c: R.Prim("bool"), x: R.Tensor("float32", ndim=1)) -> R.Shape(ndim=1):
    a = T.int64()
    if c:
        y = R.match_cast(x, R.Tensor((a,), "float32"))
        s = R.shape([a * 2])
    else:
        s = R.shape([0])
    b = T.int64()
    z = R.match_cast(x, R.Tensor((b,), "float32"))
    return s
'''))
    assert evaluate(mod, "main", True, np.zeros(4, np.float32)) == (8,)
    assert evaluate(mod, "main", False, np.zeros(4, np.float32)) == (0,)


# ---------------------------------------------------------------------------------------------------
# Functions, closures, recursion
# ---------------------------------------------------------------------------------------------------


def test_nested_calls_with_symbolic_signatures_and_recursion(parse_ir):
    """[CALL.FUNC.1-3] [EVAL.GLOBAL.1] global calls (incl. recursion) check their own signatures."""
    mod = parse_ir(module('''
@R.function
def double(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
    return R.add(v, v)

''' + FACT_TOP + '''
@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    cls = Module
    y = cls.double(x)
    z = cls.double(y)
    return z
'''))
    np.testing.assert_array_equal(evaluate(mod, "main", f32(5)), 4 * f32(5))
    assert evaluate(mod, "fact", np.array(10)) == 3628800


def test_closures_capture_by_reference_and_recurse(parse_ir):
    """[EVAL.FUNC.1] [VAL.CLOSURE.1] a local function captures outer variables and itself."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((2,), "float32"), n: R.Tensor((), "int64")) -> R.Tensor((2,), "float32"):
    @R.function
    def loop(i: R.Tensor((), "int64"), acc: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        c = R.less(i, n)
        if c:
            acc2 = R.add(acc, x)
            j = R.add(i, R.const(1, "int64"))
            r = loop(j, acc2)
        else:
            r = acc
        return r
    out = loop(R.const(0, "int64"), R.multiply(x, R.const(0, "float32")))
    return out
'''))
    np.testing.assert_array_equal(evaluate(mod, "main", np.array([1, 2], np.float32), np.array(4)), [4, 8])


def test_function_values_passed_around(parse_ir):
    """[CALL.FUNC.1] a global function as a value; a callable parameter."""
    mod = parse_ir(module('''
@R.function
def inc(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    return R.add(v, R.const(1, "float32"))

@R.function
def apply(f: R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")), v: R.Tensor((2,), "float32")):
    return f(v)

@R.function
def main(x: R.Tensor((2,), "float32")):
    cls = Module
    return cls.apply(cls.inc, x)
'''))
    np.testing.assert_array_equal(evaluate(mod, "main", np.zeros(2, np.float32)), [1, 1])


def test_wrong_argument_count(parse_ir):
    """[CALL.FUNC.1] ArityMismatchError at the host boundary."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((2,), "float32")):
    return x
'''))
    with pytest.raises(ArityMismatchError):
        evaluate(mod, "main", f32(2), f32(2))


# ---------------------------------------------------------------------------------------------------
# call_tir family
# ---------------------------------------------------------------------------------------------------

_CALL_TIR = '''
''' + ADDN_TOP + '''
@T.prim_func
def split2(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(2),), "float32"), C: T.Buffer((T.int64(2),), "float32")):
    for i in range(T.int64(2)):
        B[i] = A[i]
        C[i] = A[i + T.int64(2)]

@T.prim_func
def scale_inplace(A: T.Buffer((T.int64(4),), "float32")):
    for i in range(T.int64(4)):
        A[i] = A[i] * T.float32(2)

@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor((4,), "float32")):
    n = T.int64()
    cls = Module
    a = R.call_tir(cls.addn, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([n * 10]))
    parts = R.call_tir(cls.split2, (y,), out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
    return (a, parts)

@R.function
def inplace(y: R.Tensor((4,), "float32")):
    cls = Module
    z = R.call_tir_inplace(cls.scale_inplace, (y,), out_sinfo=R.Tensor((4,), "float32"), inplace_indices=[0])
    return z

@R.function(pure=False)
def direct(y: R.Tensor((4,), "float32")):
    cls = Module
    u = cls.scale_inplace(y)
    return (y, u)
'''


def test_call_tir_allocates_outputs_and_passes_tir_vars_last(parse_ir):
    """[CALL.TIR.1-3] outputs from out_sinfo (symbolic dims), PrimFunc args (inputs, outputs,
    tir_vars) -- TVM's order -- and tuple results for several outputs."""
    mod = parse_ir(module(_CALL_TIR))
    a, (p, q) = evaluate(mod, "main", f32(3), f32(4))
    np.testing.assert_array_equal(a, f32(3) + 30)
    np.testing.assert_array_equal(p, [0, 1])
    np.testing.assert_array_equal(q, [2, 3])


def test_call_tir_inplace_mutates_and_aliases(parse_ir):
    """[CALL.INPLACE.1] the input is mutated and the result is the same tensor."""
    mod = parse_ir(module(_CALL_TIR))
    y = f32(4)
    z = evaluate(mod, "inplace", y)
    assert z is y
    np.testing.assert_array_equal(y, 2 * f32(4))


def test_direct_prim_func_call_runs_in_place_and_returns_unit(parse_ir):
    """[CALL.PRIMFUNC.1]"""
    mod = parse_ir(module(_CALL_TIR))
    y = f32(4)
    out, unit = evaluate(mod, "direct", y)
    assert out is y and unit == ()
    np.testing.assert_array_equal(y, 2 * f32(4))


def test_call_tir_with_off_by_one_kernel_raises_bounds_error(parse_ir):
    """[TIR.BOUNDS.1] through call_tir, with the PrimFunc named."""
    mod = parse_ir(module('''
@T.prim_func
def bad(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
    for i in range(T.int64(4)):
        B[i] = A[i + T.int64(1)]

@R.function
def main(x: R.Tensor((4,), "float32")):
    cls = Module
    y = R.call_tir(cls.bad, (x,), out_sinfo=R.Tensor((4,), "float32"))
    return y
'''))
    for vec in (True, False):
        with pytest.raises(TIRBoundsError) as ei:
            Interpreter(mod, vectorize=vec)("main", f32(4))
        assert ei.value.buffer == "A" and ei.value.indices == (4,) and ei.value.function == "bad"


def test_call_tir_buffer_shape_mismatch_is_reported(parse_ir):
    """[CALL.TIR.3] [TIR.FUNC.3] the PrimFunc checks its buffers against the actual tensors."""
    mod = parse_ir(module('''
@T.prim_func
def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
    for i in range(T.int64(4)):
        B[i] = A[i]

@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((4,), "float32"))
    return y
'''))
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(mod, "main", f32(5))
    assert ei.value.site == "call_tir" and ei.value.binding == "A"


# ---------------------------------------------------------------------------------------------------
# Packed functions, closures as values, printing, assertions
# ---------------------------------------------------------------------------------------------------


def test_packed_calls_and_registries(parse_ir):
    """[CALL.PACKED.1-3] [CALL.DPS.1] call_packed, call_pure_packed, call_dps_packed; interpreter and
    global registries; decorator use."""
    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    a = R.call_packed("test.interp.twice", x, sinfo_args=R.Tensor((3,), "float32"))
    b = R.call_pure_packed("test.interp.count", x, sinfo_args=R.Prim("int32"))
    c = R.call_dps_packed("test.interp.fill", (x,), out_sinfo=R.Tensor((3,), "float32"))
    return (a, b, c)
'''))

    @register_func("test.interp.twice")
    def twice(t):
        return t * 2

    register_func("test.interp.count", lambda t: int(t.size))
    it = Interpreter(mod)

    @it.register_func("test.interp.fill")
    def fill(t, out):
        out[:] = t + 7

    a, b, c = it("main", f32(3))
    np.testing.assert_array_equal(a, 2 * f32(3))
    assert b == 3
    np.testing.assert_array_equal(c, f32(3) + 7)
    with pytest.raises(PackedFuncError, match="test.interp.fill"):
        evaluate(mod, "main", f32(3))          # registered on the other interpreter only


def test_packed_function_failure_is_a_packed_func_error(parse_ir):
    """[CALL.PACKED.3]"""
    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    a = R.call_packed("test.interp.boom", x, sinfo_args=R.Tensor((3,), "float32"))
    return a
'''))
    it = Interpreter(mod)
    it.register_func("test.interp.boom", lambda t: 1 / 0)
    with pytest.raises(PackedFuncError, match="ZeroDivisionError"):
        it("main", f32(3))


def test_make_and_invoke_closure(parse_ir):
    """[CALL.CLOSURE.1] [CALL.CLOSURE.2] lambda-lifted closures."""
    mod = parse_ir(module('''
@R.function
def lifted(v: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    r = R.subtract(v, c)
    return r

@R.function(pure=False)
def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
    cls = Module
    clo = R.make_closure(cls.lifted, (x,))
    r = R.invoke_closure(clo, (y,), sinfo_args=R.Tensor((2,), "float32"))
    return r
'''))
    # captured values come after the explicit arguments: lifted(y, x) = y - x
    np.testing.assert_array_equal(evaluate(mod, "main", f32(2), np.ones(2, np.float32)), [1, 0])


def test_print_and_assert(parse_ir):
    """[CALL.PRINT.1] [CALL.ASSERT.1]"""
    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32"), ok: R.Prim("bool")):
    R.print(x, R.shape([1, 2]), R.prim_value(3), format="x={} s={} p={}")
    R.print(R.str("plain"), R.prim_value(1))
    R.assert_op(ok, x, format="bad {}")
    return x
'''))
    out = io.StringIO()
    it = Interpreter(mod, stdout=out)
    it("main", np.ones(3, np.float32), True)
    assert out.getvalue() == "x=[1. 1. 1.] s=(1, 2) p=3\nplain 1\n"
    with pytest.raises(AssertionFailedError, match=r"bad \[1\. 1\. 1\.\]"):
        it("main", np.ones(3, np.float32), False)


def test_tensor_to_shape_and_match_cast_to_data_dependent_shape(parse_ir):
    """[EVAL.MATCHCAST.1] a shape read from data defines a symbolic variable."""
    mod = parse_ir(module('''
@R.function
def main(s: R.Tensor((2,), "int64"), x: R.Tensor("float32", ndim=1)):
    shp = R.tensor_to_shape(s)
    a = T.int64()
    b = T.int64()
    shp2 = R.match_cast(shp, R.Shape([a, b]))
    y = R.match_cast(x, R.Tensor((a * b,), "float32"))
    return (y, R.shape([b, a]))
'''))
    y, s = evaluate(mod, "main", np.array([2, 3]), f32(6))
    np.testing.assert_array_equal(y, f32(6))
    assert s == (3, 2)
    with pytest.raises(ShapeMismatchError):
        evaluate(mod, "main", np.array([2, 3]), f32(7))


def _without_implementation(monkeypatch, name: str) -> None:
    """The interpreter's table of operator implementations without ``name``."""
    from relax_ref.interp import op_table

    monkeypatch.setattr(op_table, "IMPLEMENTATIONS",
                        {k: v for k, v in op_table.IMPLEMENTATIONS.items() if k != name})


def test_operator_without_reference_is_unsupported(parse_ir, monkeypatch):
    """[CALL.OP.1] never a silent fallback."""

    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.add(x, x)
    return y
'''))
    _without_implementation(monkeypatch, "relax.add")
    with pytest.raises(UnsupportedError, match="relax.add"):
        evaluate(mod, "main", f32(3))


def test_prim_func_entry_and_type_errors(parse_ir):
    """[CALL.PRIMFUNC.1] a PrimFunc may be the entry; a non-function callee is a type error."""
    mod = parse_ir(module(_CALL_TIR))
    y = f32(4)
    assert evaluate(mod, "scale_inplace", y) == ()
    np.testing.assert_array_equal(y, 2 * f32(4))
    it = Interpreter(mod)
    with pytest.raises(TypeMismatchError):
        it.call_value(np.zeros(2), [], None)


def test_builtins_for_lowered_modules(parse_ir):
    """[CALL.PACKED.5] vm.builtin functions used by printed lowered modules."""
    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((2, 3), "float32")):
    s = R.call_packed("vm.builtin.shape_of", x, sinfo_args=R.Shape(ndim=2))
    r = R.call_packed("vm.builtin.reshape", x, R.shape([3, 2]), sinfo_args=R.Tensor((3, 2), "float32"))
    c = R.call_packed("vm.builtin.read_if_cond", R.prim_value(T.bool(True)), sinfo_args=R.Prim("bool"))
    return (s, r, c)
'''))
    s, r, c = evaluate(mod, "main", f32(2, 3))
    assert s == (2, 3) and c is True
    np.testing.assert_array_equal(r, f32(3, 2))


def test_unknown_packed_function(parse_ir):
    """[CALL.PACKED.1]"""
    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((2,), "float32")):
    a = R.call_packed("no.such.function", x, sinfo_args=R.Tensor((2,), "float32"))
    return a
'''))
    with pytest.raises(PackedFuncError, match="no.such.function"):
        evaluate(mod, "main", f32(2))


def test_allocation_builtins_of_lowered_modules(parse_ir):
    """[CALL.ALLOC.1] R.builtin.alloc_tensor and R.memory.* followed by direct PrimFunc calls, as
    printed after TVM's CallTIRRewrite / memory planning."""
    mod = parse_ir(module('''
@T.prim_func
def twice(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
    for i in range(T.int64(4)):
        B[i] = A[i] * T.float32(2)

@R.function(pure=False)
def main(x: R.Tensor((4,), "float32")):
    cls = Module
    a = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
    cls.twice(x, a)
    st = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
    t = R.memory.alloc_tensor(st, R.prim_value(16), R.shape([4]), R.dtype("float32"))
    cls.twice(a, t)
    k = R.memory.kill_storage(st)
    return (a, t)
'''))
    a, t = evaluate(mod, "main", f32(4))
    np.testing.assert_array_equal(a, 2 * f32(4))
    np.testing.assert_array_equal(t, 4 * f32(4))


def test_call_tir_reduction_kernel(parse_ir):
    """[CALL.TIR.1] a hand-written reduction (T.init) over a symbolic extent."""
    mod = parse_ir(module('''
@T.prim_func
def rowsum(a: T.handle, b: T.handle):
    n = T.int64()
    m = T.int64()
    A = T.match_buffer(a, (n, m), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i, k in T.grid(n, m):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]

@R.function
def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
    n = T.int64()
    cls = Module
    y = R.call_tir(cls.rowsum, (x,), out_sinfo=R.Tensor((n,), "float32"))
    return y
'''))
    for vec in (True, False):
        np.testing.assert_allclose(Interpreter(mod, vectorize=vec)("main", f32(3, 5)), f32(3, 5).sum(1))


def test_vm_reshape_builtin_checks_element_count(parse_ir):
    """[CALL.PACKED.5] TVM reads out of bounds for a reshape whose element count differs (DIV.25);
    relax-ref raises OpRuntimeError."""
    from relax_ref.errors import OpRuntimeError

    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((2, 3), "float32")):
    r = R.call_packed("vm.builtin.reshape", x, R.shape([2, 4]), sinfo_args=R.Tensor((2, 4), "float32"))
    return r
'''))
    with pytest.raises(OpRuntimeError, match="element counts differ"):
        evaluate(mod, "main", f32(2, 3))


def test_call_tir_inputs_are_read_only(parse_ir):
    """[CALL.TIR.6] a kernel that writes to an input of call_tir raises OpRuntimeError (TVM lets it
    silently break purity, DIV.20); a direct call of the same PrimFunc may write."""
    from relax_ref.errors import OpRuntimeError

    mod = parse_ir(module('''
@T.prim_func
def sneaky(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
    for i in range(T.int64(3)):
        B[i] = A[i]
        A[i] = T.float32(0)

@R.function
def main(x: R.Tensor((3,), "float32")):
    cls = Module
    y = R.call_tir(cls.sneaky, (x,), out_sinfo=R.Tensor((3,), "float32"))
    return y

@R.function(pure=False)
def direct(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
    cls = Module
    u = cls.sneaky(x, y)
    return x
'''))
    x = f32(3) + 1
    for vec in (True, False):
        with pytest.raises(OpRuntimeError, match="read-only"):
            Interpreter(mod, vectorize=vec)("main", x)
        assert x.flags.writeable
    np.testing.assert_array_equal(evaluate(mod, "direct", x, np.zeros(3, np.float32)), [0, 0, 0])


def test_call_result_checked_against_annotation(parse_ir):
    """[EVAL.CALL.3] a call whose struct info comes from an annotation is checked (DIV.19)."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.call_pure_packed("test.interp.grow", x, sinfo_args=R.Tensor((3,), "float32"))
    return y
'''))
    it = Interpreter(mod)
    it.register_func("test.interp.grow", lambda t: np.zeros(4, np.float32))
    with pytest.raises(ShapeMismatchError) as ei:
        it("main", f32(3))
    assert ei.value.site == "call_result" and ei.value.binding == "y"


def test_closure_symbolic_variables_are_not_captured(parse_ir):
    """[EVAL.FUNC.1] [EVAL.ENV.1] a local function binds its own symbolic variables afresh."""
    mod = parse_ir(module('''
@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")):
    @R.function
    def size(v: R.Tensor(("k",), "float32")) -> R.Shape(["k"]):
        k = T.int64()
        return R.shape([k])
    a = size(x)
    b = size(y)
    return (a, b)
'''))
    assert evaluate(mod, "main", f32(3), f32(5)) == ((3,), (5,))


def test_operator_without_semantics_fails_when_reached(parse_ir, monkeypatch):
    """[CALL.OP.1] an operator without reference semantics is unsupported when a call to it is
    evaluated: what ran before it (the print) has happened, unreached functions do not matter."""

    mod = parse_ir(module('''
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    R.print(x)
    y = R.exp(x)
    return y

@R.function
def other(x: R.Tensor((3,), "float32")):
    y = R.exp(x)
    return y

@R.function
def fine(x: R.Tensor((3,), "float32")):
    return x
'''))
    _without_implementation(monkeypatch, "relax.exp")
    out = io.StringIO()
    it = Interpreter(mod, stdout=out)
    np.testing.assert_array_equal(it("fine", f32(3)), f32(3))
    with pytest.raises(UnsupportedError, match="relax.exp"):
        it("main", f32(3))
    assert out.getvalue() == "[0. 1. 2.]\n"

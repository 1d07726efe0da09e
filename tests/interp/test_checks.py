"""Run-time struct-info checks at function entry, match_cast and return [EVAL.CHECK.*]."""

import numpy as np
import pytest

from relax_ref.errors import (
    ArityMismatchError, DTypeMismatchError, NDimMismatchError, RelaxRuntimeError, ShapeMismatchError,
    TypeMismatchError, ValueMismatchError,
)
from relax_ref.interp import ShapeValue, evaluate


def module(body: str) -> str:
    return "@I.ir_module\nclass Module:\n" + "\n".join("    " + ln for ln in body.strip("\n").splitlines())


def z(*shape, dtype="float32"):
    return np.zeros(shape, dtype)


@pytest.fixture(scope="module")
def sig(parse_ir):
    return parse_ir(module('''
@R.function
def mm(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("m", "k"), "float32")) -> R.Shape(["n", "k"]):
    n = T.int64()
    k = T.int64()
    return R.shape([n, k])

@R.function
def arith(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "float32"), s: R.Shape(["n", "n + 1"])):
    return x

@R.function
def kinds(t: R.Tensor((3, 4), "float32"), s: R.Shape(ndim=2), p: R.Prim("int32"),
          tup: R.Tuple(R.Tensor((2,), "int64"), R.Prim("bool")), o: R.Object):
    return o

@R.function
def pv(p: R.Prim(value="n"), x: R.Tensor(("n",), "float32")):
    return x

@R.function
def ret(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "int32"):
    return x

@R.function
def mc(x: R.Tensor("float32")):
    a = T.int64()
    y = R.match_cast(x, R.Tensor((2, a), "float32"))
    return R.shape([a])
'''))


def test_symbolic_dims_shared_across_parameters(sig):
    """[EVAL.CHECK.1] [EVAL.CHECK.2] ``x: (n, m)``, ``y: (m, k)``: m binds at x and is checked at y."""
    assert evaluate(sig, "mm", z(2, 3), z(3, 5)) == ShapeValue((2, 5))
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(sig, "mm", z(2, 3), z(4, 5))
    e = ei.value
    assert (e.site, e.function, e.binding) == ("param", "mm", "y")
    assert e.expected == 'R.Tensor((3, k), "float32")' and e.actual == "Tensor((4, 5), float32)"


def test_shape_arithmetic_in_signature_checked_after_bare_vars(sig):
    """[EVAL.CHECK.2] ``n * 2`` appears before ``n`` is bound: compared after all bare vars bind."""
    evaluate(sig, "arith", z(6), z(3), (3, 4))
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(sig, "arith", z(7), z(3), (3, 4))
    assert ei.value.binding == "x" and ei.value.expected == 'R.Tensor((6,), "float32")'
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(sig, "arith", z(6), z(3), (3, 5))
    assert ei.value.binding == "s" and ei.value.expected == "R.Shape([3, 4])"


@pytest.mark.parametrize("index,value,exc", [
    (0, ShapeValue((3, 4)), TypeMismatchError),   # a shape where a tensor is expected
    (0, np.zeros((3, 4, 1), np.float32), NDimMismatchError),
    (0, np.zeros((3, 4), np.float64), DTypeMismatchError),
    (0, np.zeros((3, 5), np.float32), ShapeMismatchError),
    (1, (1, 2, 3), NDimMismatchError),
    (1, np.zeros(2, np.int64), TypeMismatchError),
    (2, 2.5, DTypeMismatchError),
    (3, (np.zeros(2, np.int64),), ArityMismatchError),
    (3, (np.zeros(2, np.int32), True), DTypeMismatchError),
    (3, np.zeros(2), TypeMismatchError),
])
def test_parameter_kind_rank_dtype_arity_errors(sig, index, value, exc):
    """[EVAL.CHECK.3] each kind of mismatch raises its own error class, with site "param"."""
    args = [z(3, 4), (1, 2), 7, (np.zeros(2, np.int64), False), "anything"]
    assert evaluate(sig, "kinds", *args) == "anything"
    args[index] = value
    with pytest.raises(exc) as ei:
        evaluate(sig, "kinds", *args)
    assert ei.value.site == "param" and ei.value.function == "kinds"
    assert ei.value.binding == ["t", "s", "p", "tup", "o"][index]


def test_prim_value_parameter_binds_and_checks(sig):
    """[EVAL.CHECK.1] ``R.Prim(value=n)`` binds n; a later tensor dim must agree."""
    np.testing.assert_array_equal(evaluate(sig, "pv", 3, z(3)), z(3))
    with pytest.raises(ShapeMismatchError):
        evaluate(sig, "pv", 3, z(4))


def test_prim_value_mismatch_against_expression(parse_ir):
    """[EVAL.CHECK.3] ValueMismatchError for ``R.Prim(value=...)``."""
    mod = parse_ir(module('''
@R.function
def f(x: R.Tensor(("n",), "float32"), p: R.Prim(value="n + 1")):
    return x
'''))
    evaluate(mod, "f", z(3), 4)
    with pytest.raises(ValueMismatchError) as ei:
        evaluate(mod, "f", z(3), 5)
    assert ei.value.expected == "R.Prim(value=4)"


def test_return_value_checked_against_annotation(sig):
    """[EVAL.CHECK.4] a return annotation incompatible with the body fails at run time."""
    with pytest.raises(DTypeMismatchError) as ei:
        evaluate(sig, "ret", z(3))
    assert ei.value.site == "return" and ei.value.function == "ret"
    assert ei.value.expected == 'R.Tensor((3,), "int32")'


def test_match_cast_checks_and_binds(sig):
    """[EVAL.MATCHCAST.1-2] match_cast binds new vars, checks bound ones, raises with its site."""
    assert evaluate(sig, "mc", z(2, 5)) == (5,)
    with pytest.raises(NDimMismatchError) as ei:
        evaluate(sig, "mc", z(4))
    assert ei.value.site == "match_cast" and ei.value.binding == "y" and ei.value.function == "mc"


def test_match_cast_binds_data_dependent_dims(parse_ir):
    """[EVAL.MATCHCAST.1] a dimension only known at run time becomes a bound symbolic variable."""
    mod = parse_ir(module('''
@R.function
def f(x: R.Tensor("float32", ndim=2)):
    a = T.int64()
    b = T.int64()
    y = R.match_cast(x, R.Tensor((a, b), "float32"))
    w = R.match_cast(x, R.Tensor((a, a), "float32"))
    return R.shape([b, a * b])
'''))
    assert evaluate(mod, "f", z(3, 3)) == (3, 9)
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(mod, "f", z(3, 4))
    e = ei.value
    assert e.site == "match_cast" and e.binding == "w" and e.expected == 'R.Tensor((3, 3), "float32")'


def test_host_conversions(sig):
    """[VAL.HOST.1] [CALL.HOST.1] lists of ints become shapes, Python scalars prim values, a numpy
    scalar a 0-d tensor of its dtype; the function is named first or with ``entry=``."""
    assert evaluate(sig, "mm", np.ones((1, 2), np.float32), np.zeros((2, 7), np.float32)) == (1, 7)
    assert evaluate(sig, "kinds", z(3, 4), [5, 6], np.int32(3), (np.zeros(2, np.int64), 1 == 1), None) is None
    assert evaluate(sig, z(3, 4), [5, 6], np.int32(3), (np.zeros(2, np.int64), True), None, entry="kinds") is None


@pytest.mark.parametrize("arg", [[[1.0, 2.0]], [[1, 2]], 1.5, 7, True, ((1.0, 2.0),)])
def test_python_values_for_a_tensor_are_refused(sig, arg):
    """[CALL.HOST.1] a Python list, tuple or scalar for a tensor parameter is a type mismatch naming
    the parameter (never converted to the annotated dtype), on the reference and on relax_jax."""
    import relax_jax

    y = np.zeros((2, 7), np.float32)
    exe = relax_jax.compile(sig)
    for run in (lambda *a: evaluate(sig, *a), exe):
        with pytest.raises(TypeMismatchError) as ei:
            run("mm", arg, y)
        assert ei.value.binding == "x"


def test_misspelled_function_name_suggests_the_right_one(sig):
    """ERR.1: a misspelled entry names the closest function."""
    with pytest.raises(RelaxRuntimeError, match="did you mean 'arith'"):
        evaluate(sig, "arth", z(4), z(2), (2, 3))


def test_structure_phase_errors_come_first(parse_ir):
    """[EVAL.CHECK.1] [CALL.FUNC.2] a dtype error on a later parameter is reported before a shape
    mismatch on an earlier one (kinds, ranks and dtypes of all arguments are checked first)."""
    mod = parse_ir(module('''
@R.function
def f(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32"), z: R.Tensor((2,), "float32")):
    return x
'''))
    with pytest.raises(DTypeMismatchError) as ei:
        evaluate(mod, "f", z(3), z(3), np.zeros(5, np.int32))
    assert ei.value.binding == "z"
    with pytest.raises(ShapeMismatchError) as ei:
        evaluate(mod, "f", z(3), z(4), z(5))
    assert ei.value.binding == "y"


def test_parameter_errors_point_at_the_parameter(parse_ir):
    """ERR.1: a host argument that does not fit is reported at the parameter's annotation, not at
    the whole ``def`` line, on the reference and on relax_jax."""
    import relax_jax

    mod = parse_ir(module('''
@R.function
def f(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "float32")):
    return x
'''))
    for run in (lambda *a: evaluate(mod, *a), relax_jax.compile(mod)):
        with pytest.raises(ShapeMismatchError) as ei:
            run("f", z(2), z(4))
        src, caret = str(ei.value).splitlines()[1:3]
        underlined = src[caret.index("^"):caret.rindex("^") + 1]
        assert underlined == 'y: R.Tensor((3,), "float32")', str(ei.value)

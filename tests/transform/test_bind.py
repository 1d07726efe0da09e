"""BindParams and BindSymbolicVars (PASS.BIND.*): hand cases and property tests."""

import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.testing import GenConfig, check_pass
from relax_ref.testing.inputs import inputs_for
from relax_ref.testing.oracle import InvalidCaseError, expected_results, run_entry
from relax_ref.testing.compare import compare
from relax_ref.testing.strategies import programs
from relax_ref.transform import BindParams, BindSymbolicVars, module_pass

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body: str):
    return relax_ref.parse(HEAD + body)


def _eq(a, b):
    relax_ref.assert_structural_equal(a, b)


SYMBOLIC = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", "m"), "float32"), w: R.Tensor(("m", "n"), "float32")) -> R.Tensor(dtype="float32", ndim=1):
        b = T.int64()
        n = T.int64()
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.reshape(y, R.shape([b * n]))
            R.output(z)
        return z

    @R.function
    def other(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return x
'''


def test_bind_symbolic_vars_by_name_in_one_function():
    out = BindSymbolicVars({"b": 2, "n": 3}, "main")(_mod(SYMBOLIC))
    expected = _mod('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, "m"), "float32"), w: R.Tensor(("m", 3), "float32")) -> R.Tensor(dtype="float32", ndim=1):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.reshape(y, R.shape([6]))
            R.output(z)
        return z

    @R.function
    def other(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return x
''')
    _eq(out, expected)


def test_bind_symbolic_vars_across_the_module_and_by_variable():
    mod = _mod(SYMBOLIC)
    out = BindSymbolicVars({"m": 5})(mod)
    assert out["main"].params[0].struct_info.shape.values[1].value == 5
    assert out["other"].params[0].struct_info.shape.values[0].value == 5
    m_other = mod["other"].params[0].struct_info.shape.values[0]
    out = BindSymbolicVars({m_other: 7})(mod)
    assert out["other"].params[0].struct_info.shape.values[0].value == 7
    _eq(out["main"], mod["main"])


@pytest.mark.parametrize("binding, func", [({"zzz": 1}, None), ({"zzz": 1}, "main"), ({"b": 1}, "nowhere")])
def test_bind_symbolic_vars_errors(binding, func):
    with pytest.raises(RelaxError):
        BindSymbolicVars(binding, func)(_mod(SYMBOLIC))


def test_bind_symbolic_vars_of_an_expression():
    mod = _mod('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.reshape(x, R.shape([n * 2 // 2]))
        return y
''')
    k = relax_ref.ir.prim_expr.PrimVar("k", "int64")
    out = BindSymbolicVars({"n": k + 1})
    with pytest.raises(RelaxError):      # k would be left undefined
        out(mod)


PARAMS = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), w: R.Tensor((2, "k"), "float32")) -> R.Tensor(("n", "k"), "float32"):
        n = T.int64()
        k = T.int64()
        y: R.Tensor((n, k), "float32") = R.matmul(x, w)
        return y
'''


def test_bind_params_by_name_fixes_symbolic_variables():
    w = np.arange(6, dtype="float32").reshape(2, 3)
    out = BindParams("main", {"w": w})(_mod(PARAMS))
    f = out["main"]
    assert [p.name_hint for p in f.params] == ["x"]
    assert relax_ref.ir.prim_expr.to_str(f.ret_struct_info.shape.values[1]) == "3"
    x = np.ones((4, 2), "float32")
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", x), x @ w)


def test_bind_params_errors():
    with pytest.raises(RelaxError):
        BindParams("main", {"nope": np.zeros((2, 3), "float32")})(_mod(PARAMS))
    mod = _mod(PARAMS)
    assert BindParams("absent", {"w": np.zeros((2, 3), "float32")})(mod) is mod


# ---------------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------------

_ENV = weakref.WeakKeyDictionary()
_SIZE = 3


def _remember(program):
    _ENV[program.mod] = (program.entry, program.sym_env(_SIZE))
    return program


@module_pass
def bind_every_symbolic_var(mod):
    entry, env = _ENV[mod]
    return BindSymbolicVars(dict(env), entry)(mod)


def test_bind_symbolic_vars_preserves_meaning_at_the_bound_size():
    """Binding every symbolic variable of the entry to its value at size 3 keeps the results there."""
    check_pass(bind_every_symbolic_var, strategy=programs(GenConfig()).map(_remember), sizes=(_SIZE,),
               signature=False, max_examples=15)


@settings(max_examples=15, deadline=None)
@given(prog=programs(GenConfig()), seed=st.integers(0, 2 ** 16), which=st.integers(0, 7))
def test_bind_params_preserves_meaning(prog, seed, which):
    """Binding one tensor parameter of the entry to its input value keeps the results."""
    try:
        (size, inputs, result), = expected_results(prog, (1,), seed)
    except InvalidCaseError:
        return
    f = prog.mod[prog.entry]
    tensors = [i for i, p in enumerate(f.params) if isinstance(inputs[i], np.ndarray)]
    if not tensors:
        return
    i = tensors[which % len(tensors)]
    out = BindParams(prog.entry, {f.params[i].name_hint: inputs[i]})(prog.mod) \
        if sum(p.name_hint == f.params[i].name_hint for p in f.params) == 1 else None
    if out is None:
        return
    relax_ref.static.well_formed.check_well_formed(out)
    got = run_entry(out, prog.entry, inputs[:i] + inputs[i + 1:])
    problem = compare(result, got)
    assert problem is None, problem

"""CALL.IPACKED.2: an in-place packed function must return its argument itself (both evaluators)."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import PackedFuncError
from relax_ref.interp.relax import Interpreter

_SRC = '''
from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        y = R.call_inplace_packed("t.{name}", a, b, inplace_indices={idx}, sinfo_args={sinfo})
        return (y, a)
'''
_T4 = 'R.Tensor((4,), "float32")'


def _add_into(a, b):
    a += b
    return a


def _fresh(a, b):
    return a + b


def _pair(a, b):
    a += b
    return (a, np.array(b))


def _swapped(a, b):
    a += b
    return (np.array(b), a)


FUNCS = {"add_into": _add_into, "fresh": _fresh, "pair": _pair, "swapped": _swapped}


def _run(impl, name, idx="[0]", sinfo=_T4):
    mod = relax_ref.parse(_SRC.format(name=name, idx=idx, sinfo=sinfo))
    a, b = np.ones(4, np.float32), np.full(4, 2.0, np.float32)
    if impl == "ref":
        it = Interpreter(mod)
        for k, f in FUNCS.items():
            it.register_func(f"t.{k}", f)
        return it("main", a, b)
    import relax_jax

    exe = relax_jax.compile(mod)
    for k, f in FUNCS.items():
        exe.register_func(f"t.{k}", f)
    return exe("main", a, b)


@pytest.mark.parametrize("impl", ["ref", "jax"])
def test_argument_returned(impl):
    y, a = _run(impl, "add_into")
    np.testing.assert_array_equal(np.asarray(y), np.full(4, 3.0, np.float32))
    np.testing.assert_array_equal(np.asarray(a), np.full(4, 3.0, np.float32))


@pytest.mark.parametrize("impl", ["ref", "jax"])
def test_tuple_with_a_fresh_field(impl):
    (y0, y1), _ = _run(impl, "pair", "[0, -1]", f"R.Tuple({_T4}, {_T4})")
    np.testing.assert_array_equal(np.asarray(y0), np.full(4, 3.0, np.float32))


@pytest.mark.parametrize("impl", ["ref", "jax"])
@pytest.mark.parametrize("name,idx,sinfo,where", [
    ("fresh", "[0]", _T4, "its result"),
    ("swapped", "[0, -1]", f"R.Tuple({_T4}, {_T4})", "field 0"),
])
def test_another_value_is_an_error_naming_the_binding(impl, name, idx, sinfo, where):
    with pytest.raises(PackedFuncError) as e:
        _run(impl, name, idx, sinfo)
    assert e.value.binding == "y"
    assert where in str(e.value) and "CALL.IPACKED.2" in str(e.value)

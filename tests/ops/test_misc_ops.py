"""size, reverse_sequence, multinomial_from_uniform, call_py_func and nn.attention_var_len (their spec
pages): legalization against the conformance cases, the script forms read back from the printer in
both dialects, and inference details checked against TVM 0.27's rules."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import StructInfoError
from relax_ref.interp.builtins import register_func

from ops_helpers import call_sinfo, legalized_cases_agree

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n"


def test_legalized_cases_agree():
    assert legalized_cases_agree("op_misc", skip_tag="op:call_py_func") >= 10


PROGRAM = HEAD + '''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 5, 2, 4), "float32"), s: R.Tensor((3,), "int32"), m: R.Tensor((), "int32"),
             l: R.Tensor((1,), "int64")):
        a = R.nn.attention_var_len(q, q, q, s, m, causal_mask="TopLeft", scale=0.25)
        b = R.reverse_sequence(q, l, seq_axis=1, batch_axis=0)
        c = R.call_py_func("test.misc.twice", a, out_sinfo=R.Tensor((1, 5, 2, 4), "float32"))
        d = R.size(c)
        return (b, c, d)
'''


@pytest.mark.parametrize("dialect", ["tvm-0.25", "tvm-0.27"])
def test_print_and_read_back(dialect):
    register_func("test.misc.twice", lambda x: x * 2, override=True)
    mod = relax_ref.parse(PROGRAM)
    again = relax_ref.parse(mod.script(dialect=dialect))
    q = np.random.default_rng(3).standard_normal((1, 5, 2, 4)).astype("float32")
    args = (q, np.array([0, 2, 5], "int32"), np.array(3, "int32"), np.array([4], "int64"))
    for x, y in zip(relax_ref.evaluate(mod, "main", *args), relax_ref.evaluate(again, "main", *args)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("params,expr,ok", [
    # TVM 0.27: only a provable difference of the length count is an error
    ('x: R.Tensor(("b", 4), "float32"), l: R.Tensor(("c",), "int32")', "R.reverse_sequence(x, l)", True),
    ('x: R.Tensor((2, 4), "float32"), l: R.Tensor((2,), "int16")', "R.reverse_sequence(x, l)", False),
    ('x: R.Tensor((2, 4), "float32"), l: R.Tensor(ndim=2, dtype="int32")', "R.reverse_sequence(x, l)", False),
    # samples: (n, 1) with a literal 1, first dims provably equal
    ('p: R.Tensor((2, 3), "float32"), u: R.Tensor(("n", 1), "float32"), i: R.Tensor(("n", 1), "int64")',
     "R.multinomial_from_uniform(p, u, i)", True),
    ('p: R.Tensor((2, 3), "float32"), u: R.Tensor(("n", 1), "float32"), i: R.Tensor(("m", 1), "int64")',
     "R.multinomial_from_uniform(p, u, i)", False),
    ('p: R.Tensor((2, 3), "float32"), u: R.Tensor((2, 2), "float32"), i: R.Tensor((2, 2), "int64")',
     "R.multinomial_from_uniform(p, u, i)", False),
    ('p: R.Tensor((2, 3), "float32"), u: R.Tensor((2, 1), "float32"), i: R.Tensor((2, 1), "uint8")',
     "R.multinomial_from_uniform(p, u, i)", False),
])
def test_inference_rules(params, expr, ok):
    if ok:
        assert call_sinfo(params, expr) is not None
    else:
        with pytest.raises(StructInfoError):
            call_sinfo(params, expr)


def test_multinomial_unknown_shapes():
    s = call_sinfo('p: R.Tensor(ndim=2, dtype="float32"), u: R.Tensor(ndim=2, dtype="float32"), '
                   'i: R.Tensor(ndim=2, dtype="int64")', 'R.multinomial_from_uniform(p, u, i, dtype="int32")')
    assert s.ndim == 2 and s.shape is None and s.dtype == "int32"

"""CanonicalizeBindings' symbolic-variable step (PASS.CANON.1): a variable that a match_cast defines in
terms of another cast's variable stays defined after the earlier cast is removed."""

import numpy as np

import relax_ref
from relax_ref.transform import CanonicalizeBindings

CHAINED_CASTS = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")):
        k = T.int64()
        k1 = T.int64()
        a = R.match_cast(x, R.Tensor((k,), "float32"))
        b = R.match_cast(y, R.Tensor((k + 1,), "float32"))
        c = R.match_cast(b, R.Tensor((k1,), "float32"))
        return (a, c)
'''


def test_chained_casts_keep_their_variables_defined():
    mod = relax_ref.parse(CHAINED_CASTS)
    out = CanonicalizeBindings()(mod)
    relax_ref.well_formed(out)
    x, y = np.arange(2, dtype="float32"), np.arange(3, dtype="float32")
    got = relax_ref.evaluate(out, "main", x, y)
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], y)

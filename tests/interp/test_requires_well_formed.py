"""EVAL.PROG.2 / TEXT.MOD.3: ``check_well_formed=False`` only suppresses the check at parse time;
the interpreter still refuses an ill-formed module before running anything."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import WellFormedError

TEXT = '''
from tvm.script import ir as I, relax as R

@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"global_symbol": "other"})
        return x
'''


def test_ill_formed_module_parsed_without_the_check_is_not_evaluated():
    mod = relax_ref.parse(TEXT)            # accepted: the text asked not to check
    with pytest.raises(WellFormedError, match="global_symbol"):
        relax_ref.evaluate(mod, "main", np.zeros(2, "float32"))


def test_well_formed_module_is_checked_once():
    mod = relax_ref.parse(TEXT.replace('        R.func_attr({"global_symbol": "other"})\n', ""))
    for _ in range(3):
        np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", np.ones(2, "float32")), np.ones(2))

"""``relax_ref.interp.cli_run``: the function behind ``relax-ref run``."""

import numpy as np
import pytest

from relax_ref.errors import RelaxRuntimeError
from relax_ref.interp import cli_run

TEXT = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["n"]), p: R.Prim("int64")):
        y = R.add(x, x)
        return (y, s, p)
'''


def test_cli_run_reads_inputs_by_name_and_writes_flattened_outputs(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(TEXT)
    inp = tmp_path / "in.npz"
    np.savez(inp, x=np.arange(3, dtype=np.float32), s=np.array([3]), p=np.array(7))
    out = tmp_path / "out.npz"
    text = cli_run(str(src), "main", str(inp), str(out))
    assert "out.0: tensor (3,) float32" in text and "out.2: 7" in text
    with np.load(out) as z:
        np.testing.assert_array_equal(z["out.0"], [0, 2, 4])
        np.testing.assert_array_equal(z["out.1"], [3])
        assert int(z["out.2"]) == 7


def test_cli_run_positional_inputs_and_missing_input(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(TEXT)
    inp = tmp_path / "in.npz"
    np.savez(inp, arg0=np.ones(2, np.float32), arg1=np.array([2]), arg2=np.array(1))
    assert "out.0: tensor (2,) float32" in cli_run(str(src), "main", str(inp), None)
    np.savez(inp, arg0=np.ones(2, np.float32))
    with pytest.raises(RelaxRuntimeError, match="parameter 1 's'"):
        cli_run(str(src), "main", str(inp), None)

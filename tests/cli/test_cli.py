"""The ``relax-ref`` command line: check, print, run, ops."""

import json

import numpy as np
import pytest

from relax_ref.cli import main
from program_texts import DOUBLE_IN_DATAFLOW

GOOD = '''
from tvm.script import ir as I, relax as R

''' + DOUBLE_IN_DATAFLOW + '''            R.output(y)
        return y
'''

BAD = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        y = R.add(x, z)
        return y
'''


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    return good, bad


def test_check_ok_and_error(files, capsys):
    good, bad = files
    assert main(["check", str(good)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.py:8" in err and "^" in err and "z" in err


def test_print_both_dialects(files, capsys):
    good, _ = files
    assert main(["print", str(good)]) == 0
    out = capsys.readouterr().out
    assert "R.add(x, x)" in out and "tirx" not in out
    assert main(["print", str(good), "--dialect", "tvm"]) == 0
    assert "R.add(x, x)" in capsys.readouterr().out


def test_run_with_inputs_and_outputs(files, tmp_path, capsys):
    good, _ = files
    inp = tmp_path / "in.npz"
    np.savez(inp, x=np.arange(8, dtype="float32").reshape(2, 4))
    out = tmp_path / "out.npz"
    assert main(["run", str(good), "--inputs", str(inp), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(2, 4)" in text and "float32" in text
    with np.load(out) as data:
        np.testing.assert_array_equal(data[data.files[0]], 2 * np.arange(8, dtype="float32").reshape(2, 4))


def test_run_reports_shape_mismatch(files, tmp_path, capsys):
    good, _ = files
    inp = tmp_path / "in.npz"
    np.savez(inp, x=np.zeros((2, 5), "float32"))
    assert main(["run", str(good), "--inputs", str(inp)]) == 1
    assert "ShapeMismatchError" in capsys.readouterr().err


def test_ops_table_and_json(capsys):
    assert main(["ops"]) == 0
    table = capsys.readouterr().out
    assert "relax.add" in table and "relax.nn.softmax" in table
    assert main(["ops", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"op", "infer", "reference", "legalize", "jax", "spec", "cases", "tvm"} <= set(rows[0])
    add = next(r for r in rows if r["op"] == "relax.add")
    assert add["infer"] and add["reference"] and add["legalize"] and add["spec"] and add["cases"] > 0

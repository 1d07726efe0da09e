"""Reading case directories: valid cases load, every malformed one gives a clear CaseFormatError."""

import json
import subprocess
import sys

import numpy as np
import pytest

from relax_conformance.case import CaseFormatError, discover_cases, load_case
from relax_conformance.gen import Case, Fails, GenerationError, Invalid, Prim, Shape, module_text, write_cases

ADD = module_text('''
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.add(x, x)
        return y
''')


def _one_case(root):
    x = np.array([1.0, 2.0], "float32")
    write_cases("cat", [Case("c", ADD, runs=[([x], x + x), Fails([np.zeros(3, "float32")], "shape_mismatch")],
                             spec=["CALL.FUNC.2"], tags=["t"])], root)
    return root / "cat" / "c"


def test_written_case_loads(tmp_path):
    case = load_case(_one_case(tmp_path))
    assert case.id == "cat/c"
    assert case.expect == "return"
    assert [r.expect for r in case.runs] == ["return", "runtime_error"]
    assert case.runs[1].error_kind == "shape_mismatch"
    (x,) = case.inputs(case.runs[0])
    np.testing.assert_array_equal(case.expected(case.runs[0]), x + x)


def test_generation_is_deterministic(tmp_path):
    a, b = _one_case(tmp_path / "a"), _one_case(tmp_path / "b")
    for f in sorted(p.name for p in a.iterdir()):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_generator_refuses_inconsistent_cases(tmp_path):
    with pytest.raises(GenerationError, match="spec rule"):
        write_cases("cat", [Case("c", ADD, runs=[([np.zeros(2, "float32")], np.zeros(2, "float32"))])], tmp_path)
    with pytest.raises(GenerationError, match="duplicate"):
        write_cases("cat", [Invalid("c", ADD, None, spec=["WF.SINFO.1"]), Invalid("c", ADD, None, spec=["WF.SINFO.1"])],
                    tmp_path)
    with pytest.raises(GenerationError, match="not a run-time error kind"):
        Fails([], "struct_info")


@pytest.mark.parametrize("mutate, message", [
    (lambda d: (d / "meta.json").write_text("{not json"), "not valid JSON"),
    (lambda d: (d / "meta.json").unlink(), "missing meta.json"),
    (lambda d: (d / "module.py").unlink(), "missing module.py"),
    (lambda d: (d / "run0.in.npz").unlink(), "no such file"),
    (lambda d: _edit(d, lambda m: m.update(format_version=2)), "format_version 2"),
    (lambda d: _edit(d, lambda m: m.update(colour="red")), "unknown keys ['colour']"),
    (lambda d: _edit(d, lambda m: m.update(expect="maybe")), "'expect' must be one of"),
    (lambda d: _edit(d, lambda m: m.update(spec=[])), "at least one rule"),
    (lambda d: _edit(d, lambda m: m.update(oracle="tvm")), "'oracle' must be one of"),
    (lambda d: _edit(d, lambda m: m["runs"][1].update(error_kind="shape_mismatched")), "unknown error_kind"),
    (lambda d: _edit(d, lambda m: m["runs"][1].update(error_kind="parse")), "belongs to 'malformed'"),
    (lambda d: _edit(d, lambda m: m["runs"][0].update(expected=None)), "needs an 'expected' npz"),
    (lambda d: _edit(d, lambda m: m.update(args=[{"kind": "tensor", "key": "zz"}])), "member 'zz' is missing"),
    (lambda d: _edit(d, lambda m: m.update(args=[{"kind": "matrix", "key": "a0"}])), "unknown value kind"),
    (lambda d: _edit(d, lambda m: m.update(expect="invalid")), "must have no runs"),
])
def test_malformed_case_directories_are_reported(tmp_path, mutate, message):
    d = _one_case(tmp_path)
    mutate(d)
    with pytest.raises(CaseFormatError) as info:
        load_case(d)
    assert message in str(info.value)
    assert str(d) in str(info.value)
    cases, errors = discover_cases([tmp_path])
    assert cases == [] and len(errors) == 1


def _edit(d, change):
    meta = json.loads((d / "meta.json").read_text())
    change(meta)
    (d / "meta.json").write_text(json.dumps(meta))


def test_cli_reports_malformed_cases_without_a_traceback(tmp_path):
    d = _one_case(tmp_path)
    (d / "meta.json").write_text("{not json")
    (tmp_path / "cat" / "stray").mkdir()
    (tmp_path / "cat" / "stray" / "module.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "relax_conformance", "run", "--cases", str(tmp_path),
                           "--impl", "cmd:true"], capture_output=True, text=True, env=_env())
    assert proc.returncode == 2
    assert "2 malformed case directories" in proc.stderr
    assert "not valid JSON" in proc.stderr and "missing meta.json" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_values_of_all_kinds_survive_a_case(tmp_path):
    mod = module_text('''
        @R.function
        def main(t: R.Tuple(R.Shape(["n"]), R.Prim("int64"))) -> R.Tuple(R.Shape(["n"]), R.Prim("int64")):
            return t
    ''')
    v = (Shape([4]), Prim(-2, "int64"))
    write_cases("cat", [Case("c", mod, runs=[([v], v)], spec=["VAL.TUPLE.1"], oracle="hand")], tmp_path)
    case = load_case(tmp_path / "cat" / "c")
    assert case.inputs(case.runs[0]) == [v]
    assert case.expected(case.runs[0]) == v


def _env():
    import os
    from pathlib import Path

    import relax_conformance

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(relax_conformance.__file__).parents[1]),
                                         env.get("PYTHONPATH", "")])
    return env

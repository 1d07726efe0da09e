"""The runner judges correct, wrong, crashing and hanging implementations correctly.

The implementation under test is the example of the subprocess protocol
(``conformance/examples/toy_impl.py``), made deliberately wrong with ``TOY_BUG``, plus in-process fake
adapters; the cases are written into a temporary directory with the generator library.
"""

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import relax_conformance
from relax_conformance import run_cases
from relax_conformance.adapter import Adapter, LoadError, RunError
from relax_conformance.case import discover_cases
from relax_conformance.gen import Case, Fails, Invalid, Malformed, module_text, write_cases
from relax_conformance.runner import judge_case
from relax_conformance.values import Prim

PKG_PARENT = Path(relax_conformance.__file__).resolve().parents[1]
TOY = PKG_PARENT / "examples" / "toy_impl.py"


def fn(body):
    return module_text(body)


ADD = fn('''
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.add(x, y)
        return z
''')
SUB_MUL = fn('''
    @R.function
    def main(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "int32")):
        a = R.subtract(x, y)
        b = R.multiply(x, y)
        return (a, b)
''')
SYMBOLIC = fn('''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return x
''')
DTYPE_CLASH = fn('''
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "int32")):
        z = R.add(x, y)
        return z
''')
CLASSIC = module_text('''
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        return x
''', spelling="classic")


@pytest.fixture(scope="module")
def cases_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("cases")
    x, y = np.array([1.5, -2.0], "float32"), np.array([0.25, 4.0], "float32")
    p, q = np.array([3, -4, 5], "int32"), np.array([2, 2, -7], "int32")
    write_cases("t", [
        Case("add", ADD, runs=[([x, y], x + y), Fails([x, np.zeros(3, "float32")], "shape_mismatch")],
             spec=["CALL.FUNC.2"], tags=["add"]),
        Case("sub_mul", SUB_MUL, runs=[([p, q], (p - q, p * q))], spec=["CALL.FUNC.1"], tags=["tuple"]),
        Case("symbolic", SYMBOLIC, runs=[([x], x)], spec=["SI.SYM.2"]),
        Case("classic", CLASSIC, runs=[([x], x)], spec=["TEXT.DIALECT.1"]),
        Invalid("dtype_clash", DTYPE_CLASH, "struct_info", spec=["NORM.OP.DTYPE.1"]),
        Malformed("syntax", "from tvm.script import ir as I, relax as R, tirx as T\n\nclass (\n",
                  spec=["TEXT.2"]),
    ], root)
    return root


def _cases(root):
    cases, errors = discover_cases([root])
    assert errors == []
    return cases


def _cli(*args, env_extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PKG_PARENT), env.get("PYTHONPATH", "")])
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "relax_conformance", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def _toy(bug=None):
    return f"cmd:{sys.executable} {TOY}", ({"TOY_BUG": bug} if bug else {})


def _results(json_path):
    return {c["id"]: c for c in json.loads(Path(json_path).read_text())["cases"]}


def test_correct_implementation_passes_and_skips(cases_root, tmp_path):
    impl, env = _toy()
    proc = _cli("run", "--impl", impl, "--cases", str(cases_root), "--json", str(tmp_path / "r.json"),
                "--junit", str(tmp_path / "r.xml"), "-q", env_extra=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = _results(tmp_path / "r.json")
    assert {k: v["result"] for k, v in res.items()} == {
        "t/add": "pass", "t/sub_mul": "pass", "t/dtype_clash": "pass", "t/syntax": "pass",
        "t/symbolic": "skip", "t/classic": "skip"}
    assert "classic-spelling" in res["t/classic"]["detail"]
    root = ET.parse(tmp_path / "r.xml").getroot()
    suite = root.find("testsuite")
    assert suite.get("tests") == "6" and suite.get("skipped") == "2" and suite.get("failures") == "0"
    # the root carries the totals; a cmd: adapter's class name is its short name, not the command line
    assert (root.get("tests"), root.get("skipped"), root.get("failures"), root.get("errors")) == ("6", "2", "0", "0")
    classes = {tc.get("classname") for tc in root.iter("testcase")}
    assert classes == {"toy-relax.t"}, classes  # the name toy_impl.py gives itself in the handshake
    assert "OK: 0 unexpected" in proc.stdout


def test_impl_label():
    from relax_conformance.report import impl_label

    assert impl_label("ref") == "ref"
    assert impl_label("pkg.mod:MyAdapter") == "MyAdapter"
    assert impl_label("cmd:node /x/y/add_impl.js --fast", "node /x/y/add_impl.js --fast") == "add_impl"
    assert impl_label("cmd:node /x/y/add_impl.js", "node /x/y/add_impl.js") == "add_impl"
    assert impl_label("cmd:./impl", "my-impl 1.0") == "my-impl_1_0"


@pytest.mark.parametrize("mode", ["--in-process", "--isolate"])
def test_module_class_adapter_in_the_working_directory(cases_root, tmp_path, mode):
    """A MODULE:CLASS adapter in the working directory loads without PYTHONPATH=. (as from the
    relax-conformance command, whose sys.path does not hold the working directory)."""
    (tmp_path / "my_impl.py").write_text("from relax_conformance.adapters.ref import RefAdapter as MyImpl\n")
    code = ("import os, sys; sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]; "
            "from relax_conformance.cli import main; sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PKG_PARENT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", code, "run", "--impl", "my_impl:MyImpl", "--cases", str(cases_root),
                           "--filter", "add", mode, "-q"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: 0 unexpected" in proc.stdout


@pytest.mark.parametrize("bug, failing, detail", [
    ("add_is_sub", {"t/add": 0}, "elements differ"),
    ("shape_kind", {"t/add": 1}, "expected runtime_error (shape_mismatch), got run error dtype_mismatch"),
])
def test_wrong_implementation_fails_exactly_the_right_cases(cases_root, tmp_path, bug, failing, detail):
    impl, env = _toy(bug)
    proc = _cli("run", "--impl", impl, "--cases", str(cases_root), "--json", str(tmp_path / "r.json"), "-q",
                "-j", "2", env_extra=env)
    assert proc.returncode == 1
    res = _results(tmp_path / "r.json")
    failed = {k: v["run"] for k, v in res.items() if v["result"] == "fail"}
    assert failed == failing
    assert detail in res["t/add"]["detail"]
    assert res["t/sub_mul"]["result"] == "pass"


def test_known_and_stale_divergences(cases_root, tmp_path):
    divs = tmp_path / "divergences.json"
    entry = {"impl": "toy", "category": "tvm-bug", "observed": "x", "reason": "y"}

    def listed(case, behaviour):
        divs.write_text(json.dumps({"format_version": 1, "divergences": [
            dict(entry, case=case, behaviour=behaviour)]}))

    listed("t/add", "run 0: wrong value")
    impl, env = _toy("add_is_sub")
    common = ("run", "--impl", impl, "--cases", str(cases_root), "--divergences", str(divs),
              "--divergence-key", "toy", "--json", str(tmp_path / "r.json"), "-q")
    proc = _cli(*common, env_extra=env)
    assert proc.returncode == 0, proc.stdout
    assert _results(tmp_path / "r.json")["t/add"]["result"] == "known-divergence"
    # the same case failing differently (a wrong error kind on run 1) is not the known divergence
    impl, env = _toy("shape_kind")
    proc = _cli(*common[:2], impl, *common[3:], env_extra=env)
    assert proc.returncode == 1
    res = _results(tmp_path / "r.json")["t/add"]
    assert res["result"] == "fail" and res["behaviour"] == "run 1: error dtype_mismatch@param"
    assert "listed as a known divergence with the behaviour 'run 0: wrong value'" in res["detail"]
    listed("t/sub_mul", "run 0: wrong value")
    proc = _cli(*common)  # the correct toy: the listed case passes, so the entry is stale
    assert proc.returncode == 1
    assert _results(tmp_path / "r.json")["t/sub_mul"]["stale_divergence"] is True
    assert "stale divergences" in proc.stdout


def test_divergence_behaviours_are_recorded_from_a_report(cases_root, tmp_path):
    from relax_conformance.divergences import load_divergences, record_behaviours

    divs = tmp_path / "divergences.json"
    entry = {"impl": "toy", "category": "tvm-bug", "observed": "x", "reason": "y"}
    divs.write_text(json.dumps({"format_version": 1, "divergences": [
        dict(entry, case="t/add"), dict(entry, case="t/sub_mul", behaviour="run 0: wrong value")]}))
    impl, env = _toy("shape_kind")
    _cli("run", "--impl", impl, "--cases", str(cases_root), "--json", str(tmp_path / "r.json"), "-q", env_extra=env)
    report = json.loads((tmp_path / "r.json").read_text())
    text, notes = record_behaviours(divs, report, "toy")
    divs.write_text(text)
    by_case = {d.case: d for d in load_divergences(divs)}
    assert by_case["t/add"].behaviour == "run 1: error dtype_mismatch@param"
    assert notes == ["t/sub_mul: passes in the report (a stale entry); behaviour left as is"]


def test_divergence_entries_need_a_behaviour(tmp_path):
    from relax_conformance.divergences import DivergenceFileError, load_divergences

    entry = {"impl": "toy", "case": "t/add", "category": "tvm-bug", "observed": "x", "reason": "y"}
    for bad in (entry, dict(entry, behaviour="it fails"), dict(entry, behaviour="run x: wrong value")):
        (tmp_path / "d.json").write_text(json.dumps({"format_version": 1, "divergences": [bad]}))
        with pytest.raises(DivergenceFileError, match="behaviour"):
            load_divergences(tmp_path / "d.json")


def test_filters(cases_root, tmp_path):
    impl, env = _toy()
    proc = _cli("run", "--impl", impl, "--cases", str(cases_root), "--filter", "tuple", "--filter", "t/sy*",
                "--json", str(tmp_path / "r.json"), "-q", env_extra=env)
    assert proc.returncode == 0
    assert set(_results(tmp_path / "r.json")) == {"t/sub_mul", "t/symbolic", "t/syntax"}
    assert _cli("run", "--impl", impl, "--cases", str(cases_root), "--filter", "nothing").returncode == 2


class ReturnsZero(Adapter):
    """Loads everything and returns a zero scalar: wrong for every case."""

    name = "zero"

    def load(self, text, case):
        return text

    def run(self, handle, entry, args):
        return Prim(0, "int64")


class Raises(Adapter):
    name = "raises"

    def load(self, text, case):
        return text

    def run(self, handle, entry, args):
        raise KeyError("adapter bug")


class Classifies(Adapter):
    """Rejects every text with a fixed kind, or raises a fixed run-time error."""

    def __init__(self, load_kind=None, run_kind=None, site=None):
        self.load_kind, self.run_kind, self.site = load_kind, run_kind, site

    def load(self, text, case):
        if self.load_kind:
            raise LoadError(self.load_kind, "rejected")
        return text

    def run(self, handle, entry, args):
        raise RunError(self.run_kind, "failed", self.site)


def test_in_process_wrong_adapters(cases_root):
    cases = _cases(cases_root)
    by_id = {r.case_id: r for r in run_cases(cases, ReturnsZero)}
    assert {k: r.result for k, r in by_id.items()} == {k: "fail" for k in by_id}
    assert "loaded without error" in by_id["t/dtype_clash"].detail
    by_id = {r.case_id: r for r in run_cases(cases, Raises, jobs=2)}
    assert by_id["t/add"].result == "error" and "KeyError: 'adapter bug'" in by_id["t/add"].detail
    assert by_id["t/syntax"].result == "fail"  # it loads a text that must be rejected


def test_error_classes_and_phases(cases_root):
    case = {c.id: c for c in _cases(cases_root)}
    assert judge_case(Classifies(load_kind="parse"), case["t/syntax"])[0] == "pass"
    assert judge_case(Classifies(load_kind="unclassified"), case["t/syntax"])[0] == "fail"
    assert judge_case(Classifies(load_kind="well_formed"), case["t/dtype_clash"])[0] == "fail"
    assert judge_case(Classifies(load_kind="parse"), case["t/dtype_clash"])[0] == "fail"
    assert judge_case(Classifies(load_kind="struct_info"), case["t/dtype_clash"])[0] == "pass"
    result, detail, kind, run = judge_case(Classifies(run_kind="shape_mismatch"), case["t/add"])
    assert (result, run) == ("fail", 0) and "expected a value" in detail


def test_isolated_crash_and_timeout_fail_only_their_case(tmp_path, cases_root):
    mod = tmp_path / "fake_impls.py"
    mod.write_text(textwrap.dedent('''
        import os, signal, time
        from relax_conformance.adapter import Adapter

        class Crashy(Adapter):
            name = "crashy"
            def load(self, text, case):
                if case.name == "sub_mul":
                    os.kill(os.getpid(), signal.SIGSEGV)
                if case.name == "syntax":
                    time.sleep(60)
                return text
            def run(self, handle, entry, args):
                return args[0]
    '''))
    proc = _cli("run", "--impl", "fake_impls:Crashy", "--isolate", "--timeout", "8", "--cases", str(cases_root),
                "--json", str(tmp_path / "r.json"), "-q", env_extra={"PYTHONPATH": os.pathsep.join(
                    [str(tmp_path), str(PKG_PARENT), os.environ.get("PYTHONPATH", "")])})
    assert proc.returncode == 1
    res = _results(tmp_path / "r.json")
    assert res["t/sub_mul"]["kind"] == "crash" and "SIGSEGV" in res["t/sub_mul"]["detail"]
    assert res["t/syntax"]["kind"] == "timeout"
    assert res["t/symbolic"]["result"] == "pass"  # the worker was restarted after the crash


def test_protocol_violations_are_clear(cases_root):
    proc = _cli("run", "--impl", f"cmd:{sys.executable} -c \"print('hello there')\"", "--cases", str(cases_root))
    assert proc.returncode == 2
    assert "cannot start the adapter" in proc.stderr and "not a JSON line" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _cli("run", "--impl", "no_such_module:Adapter", "--cases", str(cases_root))
    assert proc.returncode == 2 and "cannot import no_such_module" in proc.stderr

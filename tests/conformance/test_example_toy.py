"""The shipped example implementation ``conformance/examples/toy_impl.py`` runs the whole suite with no
unexpected result: what it implements (static element-wise add/subtract/multiply with broadcasting and
bool operands, dtype aliases, the import rule) passes, everything else is declared unsupported."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_toy_impl_runs_the_whole_suite(tmp_path):
    report = tmp_path / "toy.json"
    cmd = [sys.executable, "-c", "import sys; from relax_conformance.cli import main; sys.exit(main())", "run",
           "--impl", f"cmd:{sys.executable} {ROOT / 'conformance' / 'examples' / 'toy_impl.py'}", "-q",
           "--json", str(report)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = Counter(c["result"] for c in json.loads(report.read_text())["cases"])
    assert set(results) == {"pass", "skip"}
    assert results["pass"] >= 38
    passed = {c["id"] for c in json.loads(report.read_text())["cases"] if c["result"] == "pass"}
    for case in ("op_elementwise/add_broadcast_rank_mismatch", "op_elementwise/add_bool_lhs_float",
                 "text/import_of_other_module"):
        assert case in passed, case

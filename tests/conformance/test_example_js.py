"""The JavaScript implementation of the guide "an adapter in another language"
(``conformance/examples/add_impl.js``) speaks the subprocess protocol: run by the suite's runner, it
passes the ``R.add`` case it implements and reports the rest as unsupported. Needs Node.js."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_add_impl_js(tmp_path):
    report = tmp_path / "r.json"
    cmd = [sys.executable, "-c", "import sys; from relax_conformance.cli import main; sys.exit(main())", "run",
           "--impl", f"cmd:{NODE} {ROOT / 'conformance' / 'examples' / 'add_impl.js'}",
           "--filter", "op_elementwise/add*", "-q", "--json", str(report)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    results = {c["id"]: c["result"] for c in json.loads(report.read_text())["cases"]}
    assert results.pop("op_elementwise/add") == "pass"
    assert results and set(results.values()) == {"skip"}

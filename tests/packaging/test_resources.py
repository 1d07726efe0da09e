"""The data that ships in the wheel (relax_ref.resources): found in the checkout, copied by the build
into the package, and found there through importlib.resources from any directory."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relax_ref import resources

ROOT = Path(__file__).resolve().parents[2]


def test_checkout_paths():
    assert resources.source_root() == ROOT
    for name, rel in resources.DATA.items():
        assert resources.data_path(name) == ROOT / rel, name
    assert (resources.data_path("spec") / "ops" / "add.md").is_file()


def test_unknown_name():
    with pytest.raises(KeyError, match="unknown data 'nope'"):
        resources.data_path("nope")


def test_packaged_data_wins(tmp_path, monkeypatch):
    """An installed package's _data directory is used before the checkout."""
    fake = tmp_path / "relax_ref" / resources.PACKAGE_DIR / "divergences.json"
    fake.parent.mkdir(parents=True)
    fake.write_text("{}")
    monkeypatch.setattr(resources.resources, "files", lambda pkg: tmp_path / pkg)
    assert resources.data_path("divergences.json") == fake
    assert resources.data_path("cases") == ROOT / "conformance" / "cases"  # not packaged there: checkout


def test_missing_everywhere(monkeypatch):
    monkeypatch.setattr(resources, "source_root", lambda: None)
    monkeypatch.setattr(resources, "packaged", lambda name: None)
    with pytest.raises(resources.DataNotFound, match="reinstall relax-ref"):
        resources.data_path("cases")
    with pytest.raises(resources.DataNotFound, match="source checkout"):
        resources.source_path("cases")


def test_build_copies_the_data(tmp_path):
    """setup.py's build_py puts every DATA entry under relax_ref/_data (spec tools left out), and the
    built packages find it from another directory with no checkout on the path."""
    build = tmp_path / "lib"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)], cwd=ROOT,
                   env=env, check=True, capture_output=True)
    data = build / "relax_ref" / resources.PACKAGE_DIR
    assert sorted(p.name for p in data.iterdir()) == sorted(resources.DATA)
    assert not (data / "spec" / "tools").exists()
    n_src = sum(1 for _ in (ROOT / "conformance" / "cases").rglob("meta.json"))
    assert sum(1 for _ in (data / "cases").rglob("meta.json")) == n_src
    for pkg in ("relax_ref", "relax_jax", "relax_conformance"):
        assert (build / pkg / "py.typed").is_file(), pkg
    probe = ("import json, relax_ref.resources as r; "
             "print(json.dumps({n: str(r.data_path(n)) for n in r.DATA}))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={**env, "PYTHONPATH": str(build)},
                         check=True, capture_output=True, text=True).stdout
    for name, path in json.loads(out).items():
        assert Path(path) == data / name, name


def test_testing_without_hypothesis_names_the_extra():
    """relax_ref.testing needs Hypothesis, which only the 'testing' (and 'test') extra installs."""
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "import relax_ref.testing as t\n"
            "try:\n    t.check_pass\nexcept ModuleNotFoundError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "relax-ref[testing]"' in out


def test_versions_agree():
    import relax_conformance
    import relax_jax

    import relax_ref

    assert relax_ref.__version__ == relax_jax.__version__ == relax_conformance.__version__
    for cmd in ("relax_ref.cli", "relax_conformance.cli"):
        out = subprocess.run([sys.executable, "-c", f"import sys; from {cmd} import main; sys.exit(main())",
                              "--version"], capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip().endswith(relax_ref.__version__), out

"""Make ``relax_conformance`` importable from a source checkout that was installed before the package
was added to the distribution."""

import sys
from pathlib import Path

try:
    import relax_conformance  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "conformance"))

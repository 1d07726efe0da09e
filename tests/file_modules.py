"""Loading a script of the repository that is not on the import path (examples, benchmarks, the spec
tools) as a module, for the tests that exercise it."""

import importlib.util
import sys
from pathlib import Path

#: the repository root
REPO = Path(__file__).resolve().parents[1]


def load_file(name, path):
    """The module ``name`` executed from ``path``, once. It is registered in ``sys.modules`` before it
    runs: dataclasses look their module up, and sibling scripts import each other by name."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

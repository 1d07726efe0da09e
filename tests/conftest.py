"""Shared pytest configuration.

Property tests are deterministic unless asked otherwise: the default profile draws the same examples
on every run (a seed derived from each test, no example database), so that a fresh checkout passes
or fails the same way everywhere. Explore with ``HYPOTHESIS_PROFILE=random`` (new examples each run,
as many as by default) or ``HYPOTHESIS_PROFILE=long`` (2000 random examples per test); a failure
they find is a bug to fix and then to pin with an explicit example.

Tests marked ``tvm`` need the optional ``tvm`` extra and are skipped when TVM is not installed.
"""

import importlib.util
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("default", max_examples=50, derandomize=True, database=None, **_COMMON)
# CI sets this name; it is the default profile
settings.register_profile("ci", max_examples=50, derandomize=True, database=None, **_COMMON)
settings.register_profile("random", max_examples=50, **_COMMON)
settings.register_profile("long", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# helper modules at the top of the test tree (tvm_struct_info) are importable by name
sys.path.append(os.path.dirname(__file__))

_HAS_TVM = importlib.util.find_spec("tvm") is not None


def pytest_runtest_setup(item):
    if not _HAS_TVM and item.get_closest_marker("tvm") is not None:
        pytest.skip("needs the optional tvm extra (pip install -e '.[tvm]'), which is not installed")

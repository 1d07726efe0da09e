"""Shared pytest configuration."""

import os
import sys

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=50, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
# CI: the same examples on every run (a fixed seed, no example database), so that a clean checkout
# passes or fails deterministically; explore new examples locally with the default or long profile
settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# helper modules at the top of the test tree (tvm_struct_info) are importable by name
sys.path.append(os.path.dirname(__file__))

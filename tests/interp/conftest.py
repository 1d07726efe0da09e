"""Shared helpers for the interpreter tests: ``interp_tir_builders`` (programmatic PrimFuncs) is
importable from the test modules, and the ``parse_ir`` fixture parses TVMScript text."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def parse_ir():
    """``parse_ir(text) -> IRModule``: parse, normalize and check TVMScript text (relax_ref.parse)."""
    import relax_ref

    return relax_ref.parse

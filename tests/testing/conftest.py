"""Fixtures for the property-testing toolkit tests."""

import pytest


@pytest.fixture(scope="session")
def parse_ir():
    """``parse_ir(text) -> IRModule`` (relax_ref.parse: parse, normalize, check)."""
    import relax_ref

    return relax_ref.parse

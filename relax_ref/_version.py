"""The version of relax-ref, one definition for the packages relax_ref, relax_jax and
relax_conformance and for the build (pyproject.toml reads it)."""

__version__ = "0.1.0"

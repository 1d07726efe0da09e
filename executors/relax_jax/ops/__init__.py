"""Operator lowerings, one module per category (mirroring ``relax_ref.ops``). Importing this package
defines every lowering; :func:`relax_jax.lowering.install` attaches them to the registry."""

from . import core, create, elementwise, index, manipulate, nn, search, statistical  # noqa: F401

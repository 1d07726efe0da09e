"""Operator lowerings, one module per family (mirroring ``relax_ref.ops``). Importing this package
defines every lowering, in the executor's table ``relax_jax.lowering.LOWERINGS``."""

from . import core, create, elementwise, index, manipulate, nn, search, statistical  # noqa: F401

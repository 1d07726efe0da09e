"""Operator lowerings, one module per family, named as the family's module in ``relax_ref.ops``
(tests/test_layers.py checks it); ``common``, ``nn_common`` and ``reduce_util`` are shared helpers.
Importing this package defines every lowering, in the executor's table ``relax_jax.lowering.LOWERINGS``."""

from . import (  # noqa: F401
    ccl, core, create, datatype, dist, elementwise, grad, image, index, inspect, layout_transform, linalg, manipulate, memory,
    nn, nn_attention, nn_attention_var_len, nn_conv, nn_loss, nn_norm, nn_pool, qdq, sampling, scatter, search,
    statistical,
)

"""Imports every operator module so that its entries register themselves.

Keep this list sorted; each module registers its OpDefs at import time.
"""

import importlib

_MODULES = [
    "core",
    "create",
    "datatype",
    "elementwise",
    "image",
    "index",
    "layout_transform",
    "linalg",
    "manipulate",
    "nn",
    "nn_attention",
    "nn_conv",
    "nn_loss",
    "nn_norm",
    "nn_pool",
    "scatter",
    "search",
    "statistical",
]

for _m in _MODULES:
    importlib.import_module(f"relax_ref.ops.{_m}")

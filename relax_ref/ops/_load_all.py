"""Imports every operator module so that its entries register themselves.

Keep this list sorted; each module registers its OpDefs at import time.
"""

import importlib

_MODULES = [
    "core",
    "elementwise",
]

for _m in _MODULES:
    importlib.import_module(f"relax_ref.ops.{_m}")

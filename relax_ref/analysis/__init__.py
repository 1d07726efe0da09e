"""Analyses over Relax IR that need no operator (spec chapters SI, VAR, EXPR.PURITY.3).

* :mod:`.struct_info_ops` -- erasure, the four-level base check, LCA, ``erase_to_well_defined``,
  call-result derivation;
* :mod:`.structural_equal` -- structural equality up to renaming of bound variables;
* :mod:`.free_vars` -- variable, symbolic-variable and global-reference sets;
* :mod:`.signatures` -- struct info of module-level functions; :mod:`.tir_purity` -- purity of
  PrimFuncs;
* :mod:`.context` -- ``InferContext`` handed to operator inference hooks.

The analyses that consult the operator registry (normalization, well-formedness, call purity) sit
above :mod:`relax_ref.ops`, in :mod:`relax_ref.static`.

Names are loaded lazily (``relax_ref.analysis.is_base_of`` ...), so importing one analysis module
does not import the others. ``relax_ref.analysis.free_vars`` is the module; the function is
``relax_ref.analysis.free_vars.free_vars``.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "BaseCheckResult": "struct_info_ops", "struct_info_base_check": "struct_info_ops",
    "is_base_of": "struct_info_ops", "struct_info_lca": "struct_info_ops",
    "erase_to_well_defined": "struct_info_ops", "erase_to_static_type": "struct_info_ops",
    "derive_call_ret_struct_info": "struct_info_ops", "definable_sym_vars": "struct_info_ops",
    "sym_vars_in_struct_info": "struct_info_ops", "signature_sym_vars": "struct_info_ops",
    "bound_vars": "free_vars", "all_vars": "free_vars",
    "free_symbolic_vars": "free_vars", "defined_symbolic_vars": "free_vars",
    "all_global_vars": "free_vars", "called_global_vars": "free_vars",
    "prim_func_is_pure": "tir_purity",
    "InferContext": "context",
}


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'relax_ref.analysis' has no attribute '{name}'")
    return getattr(importlib.import_module(f"relax_ref.analysis.{mod}"), name)


__all__ = sorted(_EXPORTS)

"""Analyses over Relax IR (spec chapters SI, NORM, WF).

* :mod:`.struct_info_ops` -- erasure, the four-level base check, LCA, ``erase_to_well_defined``,
  call-result derivation;
* :mod:`.normalize` -- raw IR -> normalized IR (``normalize_module``, ``Normalizer``);
* :mod:`.well_formed` -- ``check_well_formed`` / ``is_well_formed``;
* :mod:`.free_vars`, :mod:`.purity`, :mod:`.signatures` -- variable, purity and signature helpers;
* :mod:`.context` -- ``InferContext`` handed to operator inference hooks.

Names are loaded lazily (``relax_ref.analysis.normalize_module`` ...) to keep imports acyclic.
``relax_ref.analysis.free_vars`` is the module; the function is ``relax_ref.analysis.free_vars.free_vars``.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "BaseCheckResult": "struct_info_ops", "struct_info_base_check": "struct_info_ops",
    "is_base_of": "struct_info_ops", "struct_info_lca": "struct_info_ops",
    "erase_to_well_defined": "struct_info_ops", "erase_to_static_type": "struct_info_ops",
    "derive_call_ret_struct_info": "struct_info_ops", "definable_sym_vars": "struct_info_ops",
    "sym_vars_in_struct_info": "struct_info_ops", "signature_sym_vars": "struct_info_ops",
    "Normalizer": "normalize", "normalize_module": "normalize", "normalize_function": "normalize",
    "check_well_formed": "well_formed", "is_well_formed": "well_formed",
    "bound_vars": "free_vars", "all_vars": "free_vars",
    "free_symbolic_vars": "free_vars", "defined_symbolic_vars": "free_vars",
    "all_global_vars": "free_vars", "called_global_vars": "free_vars",
    "is_impure_call": "purity", "find_impure_call": "purity", "contains_impure_call": "purity",
    "InferContext": "context",
}


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'relax_ref.analysis' has no attribute '{name}'")
    return getattr(importlib.import_module(f"relax_ref.analysis.{mod}"), name)


__all__ = sorted(_EXPORTS)

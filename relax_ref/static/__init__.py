"""Static semantics of Relax programs: the analyses that consult the operator registry, and so sit
above :mod:`relax_ref.ops` (spec chapters NORM, WF, EXPR.PURITY).

* :mod:`.normalize` -- raw IR -> normalized IR (``normalize_module``, ``Normalizer``): A-normal form,
  struct-info inference through each operator's ``infer``, annotation checks;
* :mod:`.well_formed` -- ``check_well_formed`` / ``is_well_formed`` (the WF rules);
* :mod:`.purity` -- purity of calls (``is_impure_call``, ``find_impure_call``).
"""

from .normalize import Normalizer, normalize_function, normalize_module
from .purity import contains_impure_call, find_impure_call, is_impure_call
from .well_formed import check_well_formed, is_well_formed

__all__ = ["Normalizer", "normalize_module", "normalize_function", "check_well_formed", "is_well_formed",
           "is_impure_call", "find_impure_call", "contains_impure_call"]

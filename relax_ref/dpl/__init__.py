"""relax-ref's dataflow pattern language (PASS.DPL.*), after TVM's ``tvm.relax.dpl``.

* :mod:`relax_ref.dpl.pattern` -- patterns and their constructors: :func:`is_op`, :func:`wildcard`,
  :func:`is_const`, :func:`is_tuple`, :func:`is_tuple_get_item`, :func:`has_dtype`, ``p.has_shape``,
  ``|``, ``&``, ``~``, ``^`` (``used_by``), :func:`make_fused_bias_activation_pattern`, ...
* :mod:`relax_ref.dpl.matcher` -- :func:`match` and :func:`extract_matched_expr` (PASS.DPL.MATCH.*).
* :mod:`relax_ref.dpl.rewrite` -- :func:`rewrite_call` (PASS.DPL.REWRITE.1).

Passes built on it: ``FuseOpsByPattern`` and ``MergeCompositeFunctions``
(:mod:`relax_ref.transform.fuse_ops_by_pattern`).
"""

from .matcher import extract_matched_expr, match
from .pattern import *  # noqa: F401,F403
from .pattern import __all__ as _pattern_all
from .rewrite import rewrite_call

__all__ = list(_pattern_all) + ["match", "extract_matched_expr", "rewrite_call"]

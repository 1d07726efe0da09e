"""Scalar (TIR) expressions: exact evaluation with TIR semantics and symbolic integer reasoning.

* :func:`eval_prim` -- the value of a scalar expression (spec chapter PRIM);
* :data:`INTRINSICS` -- the TIR intrinsic functions (``"tir.exp"``, ...), usable on numpy scalars
  and arrays;
* :class:`Analyzer`, :func:`simplify`, :func:`can_prove`, :func:`can_prove_equal` -- simplification and
  proofs about integer expressions (spec chapter ARITH).
"""

from .analyzer import Analyzer, can_prove, can_prove_equal, simplify
from .evaluate import eval_prim
from .intrinsics import INTRINSICS, Intrinsic, canonical_name as canonical_intrinsic_name
from .intrinsics import lookup as lookup_intrinsic

__all__ = [
    "Analyzer", "simplify", "can_prove", "can_prove_equal", "eval_prim", "INTRINSICS", "Intrinsic",
    "canonical_intrinsic_name", "lookup_intrinsic",
]

"""The fixed vocabularies of case format v1: expectations, error kinds, oracles and results.

Error kinds form the tree of the spec's ERR.KIND.1. An implementation's reported kind *meets* an
expected kind when it is the same kind or a descendant of it (ERR.KIND.2): ``ndim_mismatch`` meets an
expected ``shape_mismatch``, the reverse does not. ``match_cast_failed`` is a *condition*, not a kind
(ERR.KIND.3): it is met by any ``struct_info_mismatch`` error whose site is ``match_cast``. The
abstract ``runtime`` and ``struct_info_mismatch`` may be expected when a case leaves the precise kind
open.
"""

from __future__ import annotations

from typing import Optional

FORMAT_VERSION = 1

#: What a case (or one run of it) expects.
EXPECTS = ("return", "runtime_error", "invalid", "malformed")

#: Expectations decided when the module is loaded (no run happens).
LOAD_EXPECTS = ("invalid", "malformed")

#: kind -> parent kind (None for the roots), as in ERR.KIND.1. Keep in sync with FORMAT.md.
ERROR_KIND_PARENT: dict[str, Optional[str]] = {
    "parse": None,
    "well_formed": None,
    "struct_info": None,
    "unsupported": None,
    "runtime": None,
    "struct_info_mismatch": "runtime",
    "type_mismatch": "struct_info_mismatch",
    "shape_mismatch": "struct_info_mismatch",
    "ndim_mismatch": "shape_mismatch",
    "dtype_mismatch": "struct_info_mismatch",
    "arity_mismatch": "struct_info_mismatch",
    "value_mismatch": "struct_info_mismatch",
    "out_of_bounds": "runtime",
    "division_by_zero": "runtime",
    "assert_failed": "runtime",
    "packed_func": "runtime",
    "op_runtime": "runtime",
    "limit_exceeded": "runtime",
}

#: The condition of ERR.KIND.3 (a struct_info_mismatch at a match_cast site).
MATCH_CAST_FAILED = "match_cast_failed"

#: Values a case may give as ``error_kind``.
EXPECTABLE_KINDS = tuple(ERROR_KIND_PARENT) + (MATCH_CAST_FAILED,)

#: Sites a run-time struct-info error may carry (EVAL.CHECK.8).
SITES = ("param", "return", "match_cast", "call_result", "if_cond", "call_tir")

#: Kinds an adapter may report that never meet any expectation.
NON_MATCHING_KINDS = (
    "unclassified",  # the adapter could not map the implementation's error to the vocabulary
    "crash",         # the implementation's process died (signal, abort)
    "timeout",       # the implementation did not answer in time
)

ERROR_KINDS = tuple(ERROR_KIND_PARENT)
ALL_REPORTABLE_KINDS = ERROR_KINDS + NON_MATCHING_KINDS

#: How the expectation of a case was obtained. Never an implementation's own output.
ORACLES = (
    "numpy-formula",  # expected values computed by a NumPy formula written in the generator
    "hand",           # values or decisions worked out by hand and written into the generator
    "spec-rule",      # a rejection (or run-time error) that a cited spec rule requires
)

#: Results of running one case.
RESULTS = ("pass", "fail", "error", "known-divergence", "skip")


def ancestors(kind: str) -> list[str]:
    """``kind`` followed by its ancestors up to the root."""
    out = []
    k: Optional[str] = kind
    while k is not None:
        out.append(k)
        k = ERROR_KIND_PARENT.get(k)
    return out


def root_of(kind: str) -> Optional[str]:
    """The root of a vocabulary kind (``parse``, ``struct_info``, ``runtime``...); None otherwise."""
    if kind not in ERROR_KIND_PARENT:
        return None
    return ancestors(kind)[-1]


def kind_matches(expected: Optional[str], actual: str, site: Optional[str] = None) -> bool:
    """Whether an error of kind ``actual`` (raised at ``site``) meets a case expecting ``expected``.

    ``expected is None`` means the case only checks that an error of the right phase happens; then
    any kind meets it except ``crash`` and ``timeout`` (an ``unclassified`` error still counts).
    """
    if expected is None:
        return actual not in ("crash", "timeout")
    if actual not in ERROR_KIND_PARENT:
        return False
    if expected == MATCH_CAST_FAILED:
        return site == "match_cast" and "struct_info_mismatch" in ancestors(actual)
    return expected in ancestors(actual)


def expect_for_kind(kind: str) -> Optional[str]:
    """The expectation class of a kind or condition (``malformed``/``invalid``/``runtime_error``);
    None for ``unsupported`` (static or run time, ERR.PHASE.1) and for non-vocabulary kinds."""
    if kind == MATCH_CAST_FAILED:
        return "runtime_error"
    root = root_of(kind)
    return {"parse": "malformed", "well_formed": "invalid", "struct_info": "invalid",
            "runtime": "runtime_error"}.get(root or "")


__all__ = [
    "FORMAT_VERSION", "EXPECTS", "LOAD_EXPECTS", "ERROR_KIND_PARENT", "ERROR_KINDS", "NON_MATCHING_KINDS",
    "MATCH_CAST_FAILED", "EXPECTABLE_KINDS", "SITES",
    "ALL_REPORTABLE_KINDS", "ORACLES", "RESULTS", "ancestors", "root_of", "kind_matches", "expect_for_kind",
]

"""The mutant zoo: deliberately broken passes, to measure how fast ``check_pass`` finds real bugs.

Each entry of :data:`ZOO` is a :class:`~relax_ref.testing.mutants.base.MutantSpec`: a relax-ref
pass with one realistic fault injected from the outside (its output rewritten, its input
rewritten, or a helper of its analysis patched while it runs -- :mod:`.base`), modelled on a bug
class from TVM's history: the ten findings of ``docs/tvm-findings.md`` (TVM-F1..F10) and fixed-bug
commits on TVM's Relax passes. ``benchmarks/mutant_bench.py`` runs ``check_pass`` on every one and
reports how many are caught, how fast, and how small the reproducers are.

::

    from relax_ref.testing import check_pass
    from relax_ref.testing.mutants import ZOO, get

    spec = get("LegalizeOps.floor_mod_as_trunc_mod")
    check_pass(spec.make(), **spec.check_kwargs())       # raises PassCheckError

``spec.make(inner)`` breaks any instance of the target pass (default: relax-ref's). The generic
:func:`drop_binding` and :func:`swap_operands` break any pass.
"""

from __future__ import annotations

from typing import Dict, List

from . import bindings, functions, kernels, memory
from .base import MutantPass, MutantSpec
from .bindings import NON_COMMUTATIVE, drop_binding, swap_operands

_LOWER_WITH_RESHAPE = ("LegalizeOps", "RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking",
                       "CallTIRRewrite")

ZOO: List[MutantSpec] = [
    # -- LegalizeOps: kernels ------------------------------------------------------------------------
    MutantSpec("LegalizeOps.reduction_init_dropped", "LegalizeOps",
               "reduction kernels lose T.init(): the accumulator starts from uninitialized memory",
               "TVM #19680 (reductions over zero-size dims return uninitialized memory)",
               kernels.reduction_init_dropped),
    MutantSpec("LegalizeOps.reduce_loop_off_by_one", "LegalizeOps",
               "a reduction loop over a symbolic extent stops one iteration early",
               "off-by-one in a legalized loop bound", kernels.reduce_loop_off_by_one),
    MutantSpec("LegalizeOps.keepdims_ignored", "LegalizeOps",
               "a full reduction with keepdims=True is lowered to shape (1,)",
               "TVM-F3 (median keepdims)", kernels.keepdims_ignored),
    MutantSpec("LegalizeOps.floor_mod_as_trunc_mod", "LegalizeOps",
               "integer floor_mod/floor_divide lowered with truncating % and /",
               "floordiv/truncdiv confusion", kernels.floor_mod_as_trunc_mod),
    MutantSpec("LegalizeOps.round_half_up", "LegalizeOps",
               "round lowered as floor(x + 0.5) instead of half-to-even",
               "rounding-mode bugs in unary legalizations (TVM #14789)", kernels.round_half_up),
    MutantSpec("LegalizeOps.astype_floor_cast", "LegalizeOps",
               "float-to-int astype floors instead of truncating",
               "dtype/cast handling in legalization (TVM #19936)", kernels.astype_floor_cast),
    MutantSpec("LegalizeOps.argmax_ties_last", "LegalizeOps",
               "argmax/argmin keep the last index among ties",
               "reversed comparison in a reduction combiner", kernels.argmax_ties_last),
    MutantSpec("LegalizeOps.concat_boundary_off_by_one", "LegalizeOps",
               "concat's input selection uses < for <= at the boundary",
               "off-by-one in a lowered index boundary", kernels.concat_boundary_off_by_one),
    MutantSpec("LegalizeOps.flip_off_by_one", "LegalizeOps",
               "flip reads x[n - i] instead of x[n - 1 - i]",
               "off-by-one in a lowered index", kernels.flip_off_by_one),
    MutantSpec("LegalizeOps.strided_slice_stride_ignored", "LegalizeOps",
               "strided_slice ignores its stride when reading the input",
               "TVM #16232 / #17502 (strided_slice legalization)", kernels.strided_slice_stride_ignored),
    MutantSpec("LegalizeOps.symbolic_dim_broadcast", "LegalizeOps",
               "a symbolic dim of a broadcast operand is read at index 0",
               "TVM-F10 (broadcast of a symbolic dim)", kernels.symbolic_dim_broadcast),
    MutantSpec("LegalizeOps.cumsum_exclusive_ignored", "LegalizeOps",
               "cumsum/cumprod legalized without the exclusive attribute",
               "attributes dropped by a legalization (TVM #19936)", kernels.cumsum_exclusive_ignored),
    MutantSpec("LegalizeOps.swap_operands", "LegalizeOps",
               "operands of non-commutative calls swapped after legalization",
               "argument order in a lowered call", swap_operands),
    # -- FuseOps / FuseTIR -------------------------------------------------------------------------------
    MutantSpec("FuseOps.drops_output", "FuseOps",
               "one output of a multi-output fused group is not rebound",
               "TVM-F5 (FuseOps drops an output binding)", functions.fuse_ops_drops_output),
    MutantSpec("FuseOps.symbolic_vars_erased", "FuseOps",
               "fused functions' parameters erased to R.Tensor(ndim=k)",
               "TVM #16637 (preserve symbolic variables in FuseOps)", functions.fuse_ops_symbolic_vars_erased),
    MutantSpec("FuseTIR.intermediate_symbolic_index", "FuseTIR",
               "a fused kernel reads an intermediate buffer at index 0 along symbolic dims",
               "TVM #14931 (tir expression in shape in fuse_tir); a wrong broadcast in a fused kernel",
               functions.fuse_tir_intermediate_symbolic_index),
    MutantSpec("FuseTIR.intermediates_merged", "FuseTIR",
               "two live intermediate buffers of a fused kernel share one allocation",
               "TVM #14603 (same buffer read with different access patterns)", functions.fuse_tir_intermediates_merged),
    MutantSpec("FuseTIR.swap_operands", "FuseTIR",
               "the fused kernel is called with two same-typed arguments swapped",
               "argument order after fusion", swap_operands),
    # -- memory ------------------------------------------------------------------------------------------
    MutantSpec("StaticPlanBlockMemory.reuse_while_live", "StaticPlanBlockMemory",
               "a storage with one use left is reused by the next allocation of its size",
               "storage reused while still live", memory.memory_reuse_while_live),
    MutantSpec("StaticPlanBlockMemory.reshape_not_alias", "StaticPlanBlockMemory",
               "R.reshape is not tracked as a view of its input's storage",
               "TVM #20134 (track lowered reshape storage aliases)", memory.memory_reshape_not_alias,
               prepare=_LOWER_WITH_RESHAPE),
    MutantSpec("StaticPlanBlockMemory.match_cast_tokens_dropped", "StaticPlanBlockMemory",
               "uses through a match_cast variable are not counted",
               "TVM 0.25's planner (PASS.MEMPLAN.4); TVM #15854", memory.memory_match_cast_tokens_dropped),
    MutantSpec("StaticPlanBlockMemory.storage_across_branches", "StaticPlanBlockMemory",
               "a storage allocated in an If branch is reused outside it",
               "TVM 0.25's planner (PASS.MEMPLAN.4): wrong memory reuse across branches",
               memory.memory_storage_across_branches),
    MutantSpec("CallTIRRewrite.output_into_input", "CallTIRRewrite",
               "a kernel's output is written into a same-typed input that is still live",
               "in-place decisions without a liveness check", memory.call_tir_rewrite_output_into_input),
    MutantSpec("RewriteDataflowReshape.accepts_transpose", "RewriteDataflowReshape",
               "a transpose kernel is rewritten to R.reshape",
               "TVM #15125 (RewriteDataflowReshape condition)", memory.rewrite_reshape_accepts_transpose),
    # -- functions ---------------------------------------------------------------------------------------
    MutantSpec("LambdaLift.capture_dropped", "LambdaLift",
               "a closure's captured parameter is removed but still used",
               "TVM-F9 (a lifted closure's parameter removed)", functions.lambda_lift_capture_dropped),
    MutantSpec("LambdaLift.captures_swapped", "LambdaLift",
               "make_closure passes two same-typed captures in the wrong order",
               "capture order in lambda lifting", functions.lambda_lift_captures_swapped),
    MutantSpec("LambdaLift.symbolic_vars_shared", "LambdaLift",
               "the lifted function keeps the caller's symbolic variables",
               "TVM-F8, TVM #16411 (symbolic variables in LambdaLift)", functions.lambda_lift_symbolic_vars_shared),
    MutantSpec("RemoveUnusedParameters.symbolic_var_lost", "RemoveUnusedParameters",
               "a removed parameter was the only definition of a used symbolic variable",
               "TVM #19901 (RemoveUnusedParameters symbolic var promotion)",
               functions.remove_unused_params_symbolic_var_lost),
    MutantSpec("ExpandTupleArguments.fields_reversed", "ExpandTupleArguments",
               "the flattened fields of a tuple argument are passed in the wrong order",
               "argument order after flattening", functions.expand_tuple_fields_reversed),
    # -- bindings ----------------------------------------------------------------------------------------
    MutantSpec("CanonicalizeBindings.dataflow_var_escapes", "CanonicalizeBindings",
               "a block output is rebound as a DataflowVar that is used after the block",
               "TVM #15523 (non-dataflow var assigned to a dataflow var)", bindings.dataflow_var_escapes),
    MutantSpec("CanonicalizeBindings.if_const_inverted", "CanonicalizeBindings",
               "an If on a constant condition is folded to the wrong branch",
               "inverted condition folding", bindings.if_const_inverted),
    MutantSpec("DeadCodeElimination.drop_binding", "DeadCodeElimination",
               "a binding that is still used is removed",
               "TVM-F5 / TVM #14087 (dropped bindings)", drop_binding),
    MutantSpec("DeadCodeElimination.ignores_closure_captures", "DeadCodeElimination",
               "values used only by a closure are removed",
               "liveness missing a kind of use (TVM #16118)", bindings.dce_ignores_closure_captures),
    MutantSpec("DeadCodeElimination.ignores_if_condition", "DeadCodeElimination",
               "a binding used only as an If condition is removed",
               "liveness missing a kind of use", bindings.dce_ignores_if_condition),
    MutantSpec("DeadCodeElimination.removes_match_cast", "DeadCodeElimination",
               "an unused match_cast is removed with the symbolic variables it defines",
               "a match_cast check removed", bindings.dce_removes_match_cast),
    MutantSpec("EliminateCommonSubexpr.ignores_attrs", "EliminateCommonSubexpr",
               "calls with the same operator and arguments merged although their attributes differ",
               "TVM #16852 (CSE merging what is not the same value)", bindings.cse_ignores_attrs),
    MutantSpec("EliminateCommonSubexpr.across_branches", "EliminateCommonSubexpr",
               "an else-branch computation replaced by the then-branch's variable",
               "CSE ignoring scopes", bindings.cse_across_branches),
    MutantSpec("ConvertToDataflow.hoists_branch_binding", "ConvertToDataflow",
               "an If branch's binding is hoisted above the If past its dependency",
               "TVM #17148 (block restructuring); an If branch's binding hoisted",
               bindings.convert_to_dataflow_hoists_branch_binding),
    MutantSpec("ToNonDataflow.keeps_tuple_item_dataflow_vars", "ToNonDataflow",
               "DataflowVars bound to TupleGetItem survive the conversion",
               "incomplete conversion of one binding kind", bindings.to_non_dataflow_keeps_tuple_items),
    MutantSpec("Normalize.weakens_return", "Normalize",
               "the entry's return struct info loses its shape",
               "TVM #16637 (EraseToWellDefined)", bindings.normalize_weakens_return),
    MutantSpec("FoldConstant.wrong_dtype", "FoldConstant",
               "folded results keep the dtype of the evaluation (float64/int64)",
               "TVM-F1 class (FoldConstant evaluating calls); dtype of folded values", bindings.fold_constant_wrong_dtype),
]

_BY_NAME: Dict[str, MutantSpec] = {m.name: m for m in ZOO}


def get(name: str) -> MutantSpec:
    """The zoo entry called ``name``."""
    return _BY_NAME[name]


def names() -> List[str]:
    return [m.name for m in ZOO]


__all__ = ["ZOO", "get", "names", "MutantSpec", "MutantPass", "drop_binding", "swap_operands", "NON_COMMUTATIVE"]

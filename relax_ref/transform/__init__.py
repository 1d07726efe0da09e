"""Passes: pure ``IRModule -> IRModule`` functions (PASS.*).

The protocol (:mod:`relax_ref.transform.pass_infra`):

* a pass is any object with a ``name`` (str) that is callable as ``pass_(mod) -> IRModule`` and never
  mutates its input (IR nodes are immutable anyway);
* :class:`Pass` is the base class for passes with configuration; subclasses implement
  :meth:`Pass.transform`; :class:`FunctionPass` applies ``transform_function`` to every Relax
  function;
* :class:`Sequential` runs passes in order (skipping those the :class:`PassContext` does not
  enable); :func:`function_pass` / :func:`module_pass` wrap a plain function;
* :class:`PassContext` (``opt_level``, ``config``, ``required_pass``, ``disabled_pass``,
  ``instruments``) is a context manager; :class:`PassInstrument` hooks see every pass.

Passes (TVM 0.25 semantics, see each module): LegalizeOps, Normalize, AnnotateTIROpPattern, FuseOps,
FuseTIR, ExpandTupleArguments, RemoveUnusedParameters, DeadCodeElimination, CanonicalizeBindings,
ConvertToDataflow, ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory,
FoldConstant, LambdaLift, RewriteDataflowReshape, DecomposeOpsForInference; pipelines in
:mod:`relax_ref.transform.pipeline` (:func:`default_pipeline`, :func:`vm_lowering`).
"""

from __future__ import annotations

from .alter_op_impl import AlterOpImpl
from .annotate_tir_op_pattern import AnnotateTIROpPattern, OpPatternKind
from .bind import BindParams, BindSymbolicVars
from .call_tir_rewrite import CallTIRRewrite
from .canonicalize_bindings import CanonicalizeBindings
from .compute_prim_value import ComputePrimValue
from .convert_layout import ConvertLayout
from .convert_to_dataflow import ConvertToDataflow
from .dead_code_elimination import DeadCodeElimination
from .decompose_ops import DecomposeOpsForInference
from .eliminate_common_subexpr import EliminateCommonSubexpr
from .fold_constant import FoldConstant
from .fuse_ops import FuseOps
from .fuse_ops_by_pattern import FuseOpsByPattern, FusionPattern, MergeCompositeFunctions
from .fuse_tir import ExpandTupleArguments, FuseTIR, RemoveUnusedParameters
from .gradient import Gradient
from .inline_private_functions import InlinePrivateFunctions
from .lambda_lift import LambdaLift
from .legalize_ops import LegalizeContext, LegalizeOps
from .lift_transform_params import BundleModelParams, LiftTransformParams
from .lower_memory import KillAfterLastUse, LowerAllocTensor
from .normalize import Normalize
from .pass_infra import (
    FunctionPass, Pass, PassContext, PassInfo, PassInstrument, PassTiming, PassTimingInstrument,
    PassTraceInstrument, Sequential, WellFormedInstrument, config_options, function_pass, module_pass,
    register_config_option,
)
from .legalize_redistribute import LegalizeRedistribute
from .lower_dist_ir import LowerDistIR
from .lower_global_view import LowerGlobalViewToLocalView
from .propagate_sharding import PropagateSharding
from .pipeline import default_pipeline, full_pipeline, vm_lowering
from .remove_purity_checking import RemovePurityChecking
from .remove_unused_outputs import RemoveUnusedOutputs
from .rewrite_dataflow_reshape import RewriteDataflowReshape
from .static_plan_block_memory import StaticPlanBlockMemory
from .to_non_dataflow import ToNonDataflow
from .update_param_struct_info import UpdateParamStructInfo
from .vm_shape_lower import VMShapeLower

__all__ = [
    "Pass", "FunctionPass", "Sequential", "function_pass", "module_pass", "PassContext", "PassInfo",
    "PassInstrument", "PassTiming", "PassTimingInstrument", "PassTraceInstrument", "WellFormedInstrument",
    "register_config_option", "config_options", "LegalizeOps", "LegalizeContext", "AnnotateTIROpPattern",
    "OpPatternKind", "CallTIRRewrite", "CanonicalizeBindings", "ConvertToDataflow", "DeadCodeElimination",
    "DecomposeOpsForInference", "FoldConstant", "FuseOps", "FuseTIR", "ExpandTupleArguments",
    "RemoveUnusedParameters", "LambdaLift", "Normalize", "RemovePurityChecking", "RewriteDataflowReshape",
    "StaticPlanBlockMemory", "ToNonDataflow", "default_pipeline", "vm_lowering", "full_pipeline",
    "BindParams", "BindSymbolicVars", "KillAfterLastUse", "LowerAllocTensor", "EliminateCommonSubexpr",
    "RemoveUnusedOutputs", "InlinePrivateFunctions", "UpdateParamStructInfo", "FuseOpsByPattern",
    "FusionPattern", "MergeCompositeFunctions", "BundleModelParams", "LiftTransformParams", "Gradient",
    "ConvertLayout", "AlterOpImpl", "ComputePrimValue", "VMShapeLower", "PropagateSharding", "LegalizeRedistribute",
    "LowerGlobalViewToLocalView", "LowerDistIR",
]

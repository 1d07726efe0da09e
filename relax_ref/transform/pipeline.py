"""Pass pipelines (PASS.PIPELINE.*), in the order of TVM 0.25's CPU pipeline
(``python/tvm/relax/backend/cpu_generic/pipeline.py``, ``relax.get_default_pipeline``).

* :func:`default_pipeline` -- the graph-level lowering (TVM's ``legalize_passes`` plus a final
  dead-code elimination): LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR,
  DeadCodeElimination (PASS.PIPELINE.1). Its output calls fused PrimFuncs through ``call_tir``.
* :func:`vm_lowering` -- TVM's dataflow lowering plus the first finalization pass:
  RewriteDataflowReshape, ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory
  (PASS.PIPELINE.2). Its output allocates explicitly (``R.builtin.alloc_tensor``,
  ``R.memory.alloc_storage`` / ``alloc_tensor``) and calls PrimFuncs directly or through
  ``R.vm.call_tir_dyn``.
* :func:`full_pipeline` -- both.

TVM's remaining finalization passes (LowerAllocTensor, KillAfterLastUse, LowerRuntimeBuiltin,
ComputePrimValue, VMShapeLower, AttachGlobalSymbol) and its library dispatch passes
(DispatchSampling, DispatchSortScan) target the VM's instruction set and are not provided.

**What runs on the reference interpreter** (PASS.PIPELINE.3): the output of every pass here, and of
both pipelines, is executable by :func:`relax_ref.evaluate` -- ``call_tir`` / ``call_tir_inplace``
of (fused) PrimFuncs, ``R.reshape`` views, direct PrimFunc calls (run in place on their
arguments), ``R.builtin.alloc_tensor``, ``R.memory.alloc_storage`` / ``R.memory.alloc_tensor``
(tensors are views into the storage's bytes, so storage reuse is real and a wrong plan shows up as
wrong results), ``R.vm.call_tir_dyn``, ``R.make_closure`` / ``R.invoke_(pure_)closure`` and the
``vm.builtin.tensor_to_shape`` packed function.
"""

from __future__ import annotations

from .annotate_tir_op_pattern import AnnotateTIROpPattern
from .call_tir_rewrite import CallTIRRewrite
from .dead_code_elimination import DeadCodeElimination
from .fold_constant import FoldConstant
from .fuse_ops import FuseOps
from .fuse_tir import FuseTIR
from .legalize_ops import LegalizeOps
from .pass_infra import Sequential
from .remove_purity_checking import RemovePurityChecking
from .rewrite_dataflow_reshape import RewriteDataflowReshape
from .static_plan_block_memory import StaticPlanBlockMemory
from .to_non_dataflow import ToNonDataflow


def default_pipeline() -> Sequential:
    """(PASS.PIPELINE.1)"""
    return Sequential([LegalizeOps(), AnnotateTIROpPattern(), FoldConstant(), FuseOps(), FuseTIR(),
                       DeadCodeElimination()], "default_pipeline")


def vm_lowering() -> Sequential:
    """(PASS.PIPELINE.2)"""
    return Sequential([RewriteDataflowReshape(), ToNonDataflow(), RemovePurityChecking(), CallTIRRewrite(),
                       StaticPlanBlockMemory()], "vm_lowering")


def full_pipeline() -> Sequential:
    """:func:`default_pipeline` then :func:`vm_lowering`."""
    return Sequential([default_pipeline(), vm_lowering()], "full_pipeline")


__all__ = ["default_pipeline", "vm_lowering", "full_pipeline"]

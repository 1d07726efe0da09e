"""The catalog of passes under test: how to build each one and what input it needs.

A :class:`PassSpec` names a pass class of :mod:`relax_ref.transform` (or of ``tvm.relax.transform``
for differential testing, :mod:`relax_ref.testing.tvm_bridge`), the passes to run first so that the
pass sees the input it is written for, whether it promises to keep public signatures, and generator
settings suited to it. The prepare lists follow the order of TVM 0.25's default build pipeline
(``relax.backend`` / ``relax.pipeline``): ``LegalizeOps -> AnnotateTIROpPattern -> FuseOps ->
FuseTIR -> ... -> ToNonDataflow -> RemovePurityChecking -> CallTIRRewrite -> StaticPlanBlockMemory``
(``FuseOps`` needs kernels with an ``op_pattern``; ``CallTIRRewrite`` emits impure calls, so it runs
outside dataflow blocks and after purity checking is removed).

:func:`discover_passes` lists every pass class that ``relax_ref.transform`` exports and that can be
built without arguments -- catalogued or not -- so a test parametrized over it picks up passes as
they are written; a missing *prepare* pass is skipped (the generator then sets ``op_pattern`` on its
own kernels where fusion needs it).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple

from .program import GenConfig


@dataclass(frozen=True)
class PassSpec:
    name: str
    prepare: Tuple[str, ...] = ()
    signature: bool = True
    config: Dict[str, Any] = field(default_factory=dict)
    kwargs: Dict[str, Any] = field(default_factory=dict)
    #: for a pass with a narrow domain (Gradient): whether a module is in it; property tests apply the
    #: pass only there (:func:`pass_for_property_tests`)
    applicable: Optional[Any] = None

    def gen_config(self, base: Optional[GenConfig] = None) -> GenConfig:
        cfg = base if base is not None else GenConfig()
        return replace(cfg, **self.config) if self.config else cfg


_FUSION = {"op_pattern": True}


def _offload_patterns():
    """Patterns for FuseOpsByPattern on generated programs: binary operators, optionally followed by
    a unary one, for one backend; matmul and reductions for another."""
    from ..dpl import is_op, wildcard

    binary = is_op("relax.add")(wildcard(), wildcard()) | is_op("relax.multiply")(wildcard(), wildcard()) | \
        is_op("relax.subtract")(wildcard(), wildcard())
    return [("cg.binary_unary", is_op("relax.nn.relu")(binary) | is_op("relax.exp")(binary)),
            ("cg.binary", binary), ("other.matmul", is_op("relax.matmul")(wildcard(), wildcard())),
            ("other.reduce", is_op("relax.sum")(wildcard()) | is_op("relax.max")(wildcard()))]


class _LazyKwargs(dict):
    """Keyword arguments whose values are built when the pass is (``name -> factory``)."""

    def __getitem__(self, k):
        return dict.__getitem__(self, k)()

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __iter__(self):      # not dict's own iterator, so that dict(...) calls __getitem__
        return iter(list(self.keys()))


_LOWER = ("LegalizeOps", "ToNonDataflow", "RemovePurityChecking")

CATALOG: Dict[str, PassSpec] = {s.name: s for s in [
    PassSpec("LegalizeOps"),
    PassSpec("Normalize"),
    PassSpec("AnnotateTIROpPattern", prepare=("LegalizeOps",)),
    PassSpec("FuseOps", prepare=("LegalizeOps", "AnnotateTIROpPattern"), config=_FUSION),
    PassSpec("FuseTIR", prepare=("LegalizeOps", "AnnotateTIROpPattern", "FuseOps"), config=_FUSION),
    PassSpec("ExpandTupleArguments"),
    PassSpec("RemoveUnusedParameters"),
    PassSpec("DeadCodeElimination"),
    PassSpec("CanonicalizeBindings"),
    PassSpec("ConvertToDataflow"),
    PassSpec("ToNonDataflow"),
    PassSpec("RemovePurityChecking"),
    PassSpec("CallTIRRewrite", prepare=_LOWER),
    PassSpec("StaticPlanBlockMemory", prepare=_LOWER + ("CallTIRRewrite",)),
    PassSpec("FoldConstant"),
    PassSpec("LambdaLift"),
    PassSpec("RewriteDataflowReshape", prepare=("LegalizeOps",)),
    PassSpec("DecomposeOpsForInference"),
    PassSpec("EliminateCommonSubexpr"),
    PassSpec("BindParams", kwargs={"func_name": "main", "params": {}}),
    PassSpec("BindSymbolicVars", kwargs={"binding_map": {}}),
    PassSpec("UpdateParamStructInfo", kwargs={"sinfo_func": lambda v: None}),
    PassSpec("RemoveUnusedOutputs"),
    PassSpec("InlinePrivateFunctions"),
    PassSpec("LowerAllocTensor", prepare=_LOWER + ("CallTIRRewrite",)),
    PassSpec("KillAfterLastUse", prepare=_LOWER + ("CallTIRRewrite", "StaticPlanBlockMemory")),
    PassSpec("FuseOpsByPattern", kwargs=_LazyKwargs(patterns=_offload_patterns)),
    PassSpec("MergeCompositeFunctions", prepare=("FuseOpsByPattern",)),
    PassSpec("LiftTransformParams"),
    PassSpec("BundleModelParams"),
    PassSpec("Gradient", kwargs={"func_name": "main"}, applicable=lambda mod: _differentiable(mod, "main")),
    PassSpec("ConvertLayout", kwargs={"desired_layouts": {"relax.nn.conv2d": ["NHWC", "OHWI"]}}),
    # generated kernels carry no operator_name: the replacement of tagged kernels is tested on its own
    # (tests/transform/test_alter_op_impl.py)
    PassSpec("AlterOpImpl", kwargs={"op_impl_map": {}}),
    PassSpec("ComputePrimValue"),
    # TVM runs it last, on lifted, non-dataflow code without purity checks
    PassSpec("VMShapeLower", prepare=("LambdaLift", "ToNonDataflow", "RemovePurityChecking")),
    # the distributed passes keep generated programs (no annotation, no DTensor) as they are; their
    # property tests draw annotated programs (tests/dist/test_dist_passes.py)
    PassSpec("PropagateSharding", signature=False),
    PassSpec("LowerGlobalViewToLocalView"),
    PassSpec("LegalizeRedistribute"),
    PassSpec("LowerDistIR"),
]}


def _differentiable(mod, name: str) -> bool:
    """Gradient's domain (PASS.GRAD.1): one dataflow block returning a float scalar."""
    from ..ir import expr as rx
    from ..ir.struct_info import TensorStructInfo

    f = mod.get(name)
    if not isinstance(f, rx.Function) or not isinstance(f.body, rx.SeqExpr):
        return False
    body = f.body
    si = body.body.struct_info
    return (len(body.blocks) == 1 and isinstance(body.blocks[0], rx.DataflowBlock) and isinstance(body.body, rx.Var)
            and isinstance(si, TensorStructInfo) and si.ndim == 0 and si.dtype.startswith(("float", "bfloat"))
            and all(_float_tensors(p.struct_info) for p in f.params))


def _float_tensors(si) -> bool:
    """A float tensor or a tuple of them (what Gradient differentiates by default, PASS.GRAD.1)."""
    from ..ir.struct_info import TensorStructInfo, TupleStructInfo

    if isinstance(si, TupleStructInfo):
        return all(_float_tensors(f) for f in si.fields)
    return isinstance(si, TensorStructInfo) and si.dtype.startswith(("float", "bfloat"))

#: modules of ``relax_ref.transform`` that hold pass machinery (base classes), not passes
_INFRA_MODULES = frozenset({"relax_ref.transform", "relax_ref.transform.pass_infra"})


def _transform_module():
    from .. import transform

    return transform


def spec_for(name: str) -> PassSpec:
    """The catalog entry of ``name`` (a default entry for a pass the catalog does not know)."""
    return CATALOG.get(name) or PassSpec(name)


def ref_pass(name: str, **kwargs) -> Optional[Any]:
    """An instance of ``relax_ref.transform.<name>`` or None when this build has no such pass."""
    cls = getattr(_transform_module(), name, None)
    if cls is None:
        return None
    args = dict(spec_for(name).kwargs)
    args.update(kwargs)
    return cls(**args)


def pass_for_property_tests(spec: PassSpec) -> Optional[Any]:
    """:func:`ref_pass` of the spec, applied only to modules in its domain when it has one."""
    p = ref_pass(spec.name)
    if p is None or spec.applicable is None:
        return p
    from ..transform import module_pass

    return module_pass(lambda mod: p(mod) if spec.applicable(mod) else mod, name=spec.name)


def _constructible(cls) -> bool:
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return False
    return all(p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in sig.parameters.values())


def discover_passes() -> List[PassSpec]:
    """Every pass class exported by ``relax_ref.transform`` that needs no constructor argument
    (sorted by name), with its catalog entry."""
    t = _transform_module()
    base = t.Pass
    out = []
    for name in sorted(dir(t)):
        obj = getattr(t, name)
        if name.startswith("_") or not inspect.isclass(obj) or obj.__module__ in _INFRA_MODULES:
            continue
        if issubclass(obj, base) and obj is not base and _constructible(obj):
            out.append(spec_for(name))
    return out


def available_passes() -> List[PassSpec]:
    """The catalog entries implemented by ``relax_ref.transform``."""
    t = _transform_module()
    return [s for s in CATALOG.values() if getattr(t, s.name, None) is not None]


def prepare_passes(spec: PassSpec) -> List[Any]:
    """Instances of the spec's prepare passes that exist (in order)."""
    out = []
    for n in spec.prepare:
        p = ref_pass(n)
        if p is not None:
            out.append(p)
    return out


__all__ = ["PassSpec", "CATALOG", "spec_for", "discover_passes", "available_passes", "ref_pass",
           "prepare_passes", "pass_for_property_tests"]

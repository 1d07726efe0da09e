"""Normalize: re-run the normalizer over every Relax function (PASS.NORMALIZE.*).

TVM 0.25's ``relax.transform.Normalize`` applies its ``Normalizer`` (``src/relax/transform/normalize.cc``):
ANF, flattened and merged blocks, struct info filled in. relax-ref's equivalent is
:func:`relax_ref.static.normalize.normalize_module` with the plain (non-TVMScript) annotation rule:
variables keep the struct info they carry (PASS.NORMALIZE.1). Normalizing a normalized module gives a
structurally equal module.
"""

from __future__ import annotations

from ..ir.module import IRModule
from .pass_infra import Pass
from .utils import renormalize


class Normalize(Pass):
    """(PASS.NORMALIZE.1)"""

    name = "Normalize"
    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        return renormalize(mod)


__all__ = ["Normalize"]

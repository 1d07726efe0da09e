"""Cross-level fusion against TVM 0.25: our LegalizeOps -> AnnotateTIROpPattern -> FuseOps -> FuseTIR
and TVM's, each applied to the same Relax module, give fused PrimFunc groups that compute the same
results (interpreted by relax-ref at several symbolic sizes) and the same grouping (PASS.FUSEOPS.*,
PASS.FUSETIR.*)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed
from relax_ref.ir.tir import PrimFunc
from relax_ref.script.dialect import installed_tvm_dialect
from relax_ref.testing.inputs import module_inputs
from relax_ref.testing.program import GenConfig, generate
from relax_ref.testing.source import RandomSource
from relax_ref.transform import AnnotateTIROpPattern, FuseOps, FuseTIR, LegalizeOps

from .test_fuse_ops import GRAPHS, graph_text

tvm = pytest.importorskip("tvm")
from tvm import relax as tvm_relax  # noqa: E402

pytestmark = pytest.mark.tvm

PIPELINE = ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR")


def ours(mod):
    out = FuseTIR()(FuseOps()(AnnotateTIROpPattern()(LegalizeOps()(mod))))
    check_well_formed(out)
    return out


def theirs(text: str):
    tmod = tvm.script.from_source(re.sub(r"^from tvm.*$", "", text, flags=re.M))
    for name in PIPELINE:
        tmod = getattr(tvm_relax.transform, name)()(tmod)
    out = relax_ref.parse(tmod.script(show_meta=True))
    check_well_formed(out)
    return out


def prim_funcs(mod):
    """The PrimFunc names without the numeric suffixes of the name supply (``matmul1``), whose order
    depends on the order in which kernels were created."""
    return sorted(re.sub(r"\d+(?=_|$)", "", name) for name in mod if isinstance(mod[name], PrimFunc))


def call_tir_count(mod):
    main = mod.script().split("def main(")[1]
    return main.count("R.call_tir(")


def same_results(before, a, b, sizes=(1, 3), seed=0):
    """Both fused modules compute what ``before`` computes, output by output, at every size."""
    for size in sizes:
        args = module_inputs(before, "main", size, seed)
        want = list(_flat(relax_ref.evaluate(before, "main", *args)))
        assert want
        for got in (relax_ref.evaluate(a, "main", *args), relax_ref.evaluate(b, "main", *args)):
            got = list(_flat(got))
            assert len(got) == len(want), (len(got), len(want))
            for w, g in zip(want, got):
                np.testing.assert_allclose(np.asarray(g, dtype="float64"), np.asarray(w, dtype="float64"),
                                           rtol=1e-4, atol=1e-5)


def _flat(v):
    if isinstance(v, (tuple, list)):
        for x in v:
            yield from _flat(x)
    else:
        yield v


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_fused_groups_match_tvm(name):
    text = graph_text(name)
    before = relax_ref.parse(text)
    a, b = ours(before), theirs(text)
    # the same groups: the same fused kernels, called the same number of times from main
    assert prim_funcs(a) == prim_funcs(b), name
    assert call_tir_count(a) == call_tir_count(b), name
    same_results(before, a, b)


@pytest.mark.parametrize("seed", range(6))
def test_generated_programs_fuse_like_tvm(seed):
    """Random dataflow programs of fusible operators (the property-test generator, no control flow
    so that both pipelines see the same dataflow blocks)."""
    prog = generate(RandomSource(seed), GenConfig(op_pattern=True, max_bindings=6))
    text = prog.mod.script(dialect=installed_tvm_dialect())
    before = relax_ref.parse(text)
    a = ours(before)
    b = theirs(text)
    same_results(before, a, b, seed=seed)

"""The installed TVM reads what relax-ref prints in its dialect, for every case of the suite
(TEXT.DIALECT.5-6).

Every case module relax-ref accepts is printed in the dialect of the installed TVM
(``installed_tvm_dialect()``: ``tvm-0.25`` under TVM 0.25, ``tvm-0.27`` under TVM 0.27, with the metadata
section) and handed to ``tvm.script.from_source``. The modules a dialect cannot write are refused by the
printer with an ``unsupported`` error naming the construct; they are listed here, per dialect, so that a
new one is noticed. The check is TVM's parse (without its well-formedness check, which some cases fail on
purpose); whether TVM then runs the case as the suite expects is the conformance run's business. (A
``call_tir(..., tir_vars=...)`` is written in tvm-0.27 as the equivalent call with the scalars in the
argument tuple.)
"""

import json
from pathlib import Path

import pytest

import relax_ref
from relax_ref.errors import RelaxError, UnsupportedError
from relax_ref.script.dialect import installed_tvm_dialect

pytestmark = pytest.mark.tvm

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"

#: cases a dialect cannot write, and the construct the printer names (TEXT.DIALECT.5)
NOT_WRITABLE = {
    "tvm-0.25": {
        # keywords TVM 0.27 added, given a value TVM 0.25's operator does not have (its affine_grid
        # always aligns the corners, its multibox_transform_loc always applies the softmax)
        "op_image/affine_grid_3d": "align_corners",
        "op_image/affine_grid_identity_pixel_centres": "align_corners",
        "op_vision/multibox_clip_threshold_no_background": "apply_softmax",
    },
    "tvm-0.27": {
        "checks/prim_param_symbolic_value": "scalar parameter",
        "match_cast/prim_value": "R.Prim(value=...)",
        # the point of these cases: a parameter R.Prim(value="n") after x: R.Tensor(("n * 2",)), and a
        # callee's promise about a scalar value
        "symbolic_calls/callee_binds_through_prim_value": "scalar parameter",
        "symbolic_calls/callee_binds_through_prim_value_entry": "scalar parameter",
        "symbolic_closures/callable_signature_does_not_hold_for_a_prim_value": "R.Prim(value=...)",
    },
}


#: as TVM_FAILS, for one release only
TVM_FAILS_IN = {
    "tvm-0.27": {
        # TVM 0.27's parser aborts the mesh of 2**40 devices with a C++ error (the spec bounds the
        # local view's workers instead, RUNTIME.LIMIT.9); TVM 0.25 reads it
        "dist_ops/local_view_of_a_mesh_past_max_workers": "bad optional access",
    },
}

#: script names the TVM release's parser has no function for (it registers the operators, and TVM 0.27
#: prints calls to the inspection operators as ``R.inspect.<name>``, but cannot read them back); cases
#: calling them are not handed to TVM, and the test checks that TVM indeed lacks each name
NO_SPELLING = {
    "tvm-0.25": ("R.inspect", "R.reverse_sequence"),
    "tvm-0.27": ("R.inspect",),
}


#: cases TVM's parser fails on for a reason of TVM's own, with a word of the error it gives; the test
#: checks that it still fails (a fixed TVM is noticed)
TVM_FAILS = {
    # TVM 0.25 and 0.27 have no struct-info LCA of two DTensors (the join of if/else branches, DIST.SI.5)
    "dist/join_of_two_placements_is_an_object": "Do not have a default for relax.DTensor",
    # TVM 0.25 and 0.27 reject a finite float literal beyond its dtype; the spec rounds it (to -inf,
    # SI.PRIM.1, DIV.38)
    "checks/return_float_prim_literal_beyond_float32": "exceeds minimum of float32",
    # TVM 0.25 and 0.27 keep one_hot's depth in 32 bits: 2**63 - 1 wraps to -1 (the spec keeps int64
    # attributes and rejects the empty result at run time, RUNTIME.LIMIT.1)
    "limits/empty_result_whose_extents_pass_int64": "depth must be positive",
    # TVM's Python API types vm.alloc_storage's device index as a PrimValue node; the spec checks the
    # argument's kind at run time, as TVM's inference leaves it unchecked (OP.INFER.3, CALL.ALLOC.2)
    "memory/vm_alloc_storage_tensor_device_index": "Mismatched type on argument #1",
}


def _tvm_lacks(tvm, script_name: str) -> bool:
    from tvm.script import relax as R

    obj = R
    for part in script_name.split(".")[1:]:
        if not hasattr(obj, part):
            return True
        obj = getattr(obj, part)
    return False


def _modules():
    for meta in sorted(CASES.glob("*/*/meta.json")):
        if json.loads(meta.read_text())["expect"] == "malformed":
            continue
        yield str(meta.parent.relative_to(CASES)), (meta.parent / "module.py").read_text()


def test_tvm_reads_every_case_printed_in_its_dialect():
    tvm = pytest.importorskip("tvm")
    dialect = installed_tvm_dialect()
    rejected, refused, checked = [], {}, 0
    fails = {**TVM_FAILS, **TVM_FAILS_IN.get(dialect, {})}
    lacking = NO_SPELLING.get(dialect, ())
    assert all(_tvm_lacks(tvm, name) for name in lacking), lacking
    for case, text in _modules():
        if any(f"{name}." in text or f"{name}(" in text for name in lacking):
            continue
        try:
            mod = relax_ref.parse(text)
        except RelaxError:
            continue  # a case relax-ref rejects by design (expect: invalid)
        try:
            printed = mod.script(dialect=dialect, show_meta=True)
        except UnsupportedError as e:
            refused[case] = e.message
            continue
        checked += 1
        try:
            tvm.script.from_source(printed, check_well_formed=False)
        except Exception as e:  # noqa: BLE001 - every TVM rejection is a failure, reported with its case
            if fails.get(case, "\0") not in str(e):
                rejected.append(f"{case}: {str(e).strip().splitlines()[0]}")
        else:
            if case in fails:
                rejected.append(f"{case}: TVM now reads it; remove it from TVM_FAILS(_IN)")
    assert checked > 700
    assert not rejected, "\n".join(rejected)
    expected = NOT_WRITABLE.get(dialect, {})
    assert set(refused) == set(expected), sorted(set(refused) ^ set(expected))
    for case, construct in expected.items():
        assert construct in refused[case] and dialect in refused[case], (case, refused[case])

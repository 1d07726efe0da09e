"""Vision operators (spec/ops/vision.*.md): inference with symbolic and unknown shapes, printing,
legalization against the conformance cases, the JAX lowerings under jit, and TVM 0.27's inference
and kernels on the same calls."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError, StructInfoError
from relax_ref.transform.legalize_ops import LegalizeOps

from ops_helpers import call_sinfo as _call_sinfo, calls_text as _calls_text, check_print_roundtrip, \
    check_signatures_match_tvm, call_text, legalized_cases_agree, run_tvm, unlegalized_calls

VISION = ["vision.roi_align", "vision.roi_pool", "vision.multibox_transform_loc", "vision.get_valid_counts",
          "vision.non_max_suppression", "vision.all_class_non_max_suppression"]


def _params(ps):
    return ", ".join(f"{n}: {a}" for n, a in ps)


def call_sinfo(ps, expr):
    return _call_sinfo(_params(ps), expr)


F = 'R.Tensor({}, "float32")'
I32 = 'R.Tensor({}, "int32")'


def test_legalized_cases_agree():
    assert legalized_cases_agree("op_vision") >= 20


def test_roi_pool_multibox_and_fixed_grid_roi_align_legalize_adaptive_grid_and_nms_stay():
    ps = [("x", F.format("(1, 2, 6, 6)")), ("r", F.format("(3, 5)")), ("d", F.format("(1, 4, 6)")),
          ("vc", I32.format("(1,)")), ("i", I32.format("(1, 4)"))]
    mod = relax_ref.parse(_calls_text(_params(ps), [
        "R.vision.roi_pool(x, r, 2, 1.0)", "R.vision.roi_align(x, r, 2, 1.0, sample_ratio=2)",
        "R.vision.roi_align(x, r, 2, 1.0)", "R.vision.non_max_suppression(d, vc, i)", "R.vision.get_valid_counts(d)"]))
    left = sorted(unlegalized_calls(LegalizeOps()(mod)))
    assert left == ["relax.vision.get_valid_counts", "relax.vision.non_max_suppression", "relax.vision.roi_align"]


def test_symbolic_shapes_flow_to_the_outputs():
    s = call_sinfo([("x", F.format('("b", 3, "h", "w")')), ("r", F.format('("n", 5)'))],
                   'R.vision.roi_align(x, r, (2, 3), 0.25, layout="NCHW")')
    assert [str(d) for d in s.shape_values] == ["n", "3", "2", "3"]
    s = call_sinfo([("b", F.format('("n", "m", 4)')), ("s", F.format('("n", "c", "m")')),
                    ("k", 'R.Tensor((), "int64")'), ("t", F.format("()"))],
                   "R.vision.all_class_non_max_suppression(b, s, k, t, t)")
    assert [str(d) for d in s.fields[0].shape_values] == ["n * c * m", "3"]


def test_unknown_shapes_give_ranks():
    s = call_sinfo([("d", 'R.Tensor(ndim=3, dtype="float32")'), ("vc", 'R.Tensor(ndim=1, dtype="int32")'),
                    ("i", 'R.Tensor(ndim=2, dtype="int32")')],
                   "R.vision.non_max_suppression(d, vc, i, soft_nms_sigma=0.5)")
    assert [f.ndim for f in s.fields] == [3, 2, 2]
    s = call_sinfo([("d", 'R.Tensor(ndim=3, dtype="float32")')], "R.vision.get_valid_counts(d, score_index=7)")
    assert [f.dtype for f in s.fields] == ["int32", "float32", "int32"]


def test_unknown_rank_boxes_are_rejected_as_tvm_does():
    with pytest.raises(StructInfoError):
        call_sinfo([("b", 'R.Tensor(dtype="float32")'), ("s", F.format("(1, 2, 3)")), ("t", F.format("()"))],
                   "R.vision.all_class_non_max_suppression(b, s, t, t, t)")


def test_print_roundtrip_keeps_every_attribute():
    mod = check_print_roundtrip(_params([("x", F.format("(1, 2, 6, 6)")), ("r", F.format("(3, 5)"))]),
                                ['R.vision.roi_align(x, r, 2, 0.5, sample_ratio=2, aligned=True, mode="max")',
                                 "R.vision.roi_pool(x, r, (2, 3), 1.0)"])
    text = mod.script(dialect="tvm")
    assert "pooled_size=[2, 2]" in text or "pooled_size=(2, 2)" in text


def test_nms_negative_valid_count_keeps_nothing():
    text = call_text(_params([("d", F.format("(1, 3, 6)")), ("vc", I32.format("(1,)")), ("i", I32.format("(1, 3)"))]),
                     "R.vision.non_max_suppression(d, vc, i)")
    d = np.tile(np.array([0, 0.9, 0, 0, 1, 1], "float32"), (1, 3, 1))
    got = relax_ref.evaluate(relax_ref.parse(text), "main", d, np.array([-2], "int32"),
                             np.arange(3, dtype="int32")[None])
    np.testing.assert_array_equal(np.asarray(got[0]), [[-1, -1, -1]])
    np.testing.assert_array_equal(np.asarray(got[1]), [[0]])


def test_roi_batch_index_is_checked_at_run_time():
    text = call_text(_params([("x", F.format("(1, 1, 2, 2)")), ("r", F.format("(1, 5)"))]),
                     "R.vision.roi_pool(x, r, 1, 1.0)")
    with pytest.raises(OpRuntimeError, match="OP.vision.roi_pool.C4"):
        relax_ref.evaluate(relax_ref.parse(text), "main", np.zeros((1, 1, 2, 2), "float32"),
                           np.array([[1, 0, 0, 1, 1]], "float32"))


def test_jax_lowerings_trace_under_jit():
    jax = pytest.importorskip("jax")
    import relax_jax

    text = call_text(_params([("d", F.format("(2, 5, 6)")), ("vc", I32.format("(2,)")), ("i", I32.format("(2, 5)"))]),
                     "R.vision.non_max_suppression(d, vc, i, soft_nms_sigma=0.3)")
    mod = relax_ref.parse(text)
    f = relax_jax.compile(mod).as_jax_function("main", checks="off")
    rng = np.random.default_rng(3)
    d = rng.uniform(0, 3, (2, 5, 6)).astype("float32")
    d[..., 4:] += 1
    args = (d, np.array([5, 3], "int32"), np.arange(10, dtype="int32").reshape(2, 5))
    with jax.enable_x64(True):
        got = jax.jit(f)(*args)
    want = relax_ref.evaluate(mod, "main", *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


@pytest.mark.tvm
def test_signatures_match_tvm():
    tvm = pytest.importorskip("tvm")
    if not hasattr(tvm.relax.op, "vision"):
        pytest.skip("this TVM has no vision operators")
    # TVM 0.25's multibox_transform_loc has no apply_softmax (added in 0.27)
    old = not hasattr(tvm.relax.op.vision.multibox_transform_loc, "__code__") or \
        "apply_softmax" not in tvm.relax.op.vision.multibox_transform_loc.__code__.co_varnames
    check_signatures_match_tvm([op for op in VISION if not (old and op == "vision.multibox_transform_loc")])


_SINFO = [
    ([("x", F.format('(2, 3, 8, 8)')), ("r", F.format('("n", 5)'))], "R.vision.roi_align(x, r, (2, 3), 0.5)"),
    ([("x", F.format('(2, 8, 8, 3)')), ("r", F.format("(4, 5)"))], 'R.vision.roi_align(x, r, 2, 1.0, layout="NHWC")'),
    ([("x", F.format('(2, 3, 8, 8)')), ("r", F.format("(4, 4)"))], "R.vision.roi_pool(x, r, 2, 1.0)"),
    ([("c", F.format("(2, 3, 5)")), ("l", F.format("(2, 20)")), ("a", F.format("(1, 5, 4)"))],
     "R.vision.multibox_transform_loc(c, l, a)"),
    ([("c", F.format("(2, 3, 5)")), ("l", F.format("(2, 18)")), ("a", F.format("(1, 5, 4)"))],
     "R.vision.multibox_transform_loc(c, l, a)"),
    ([("d", F.format('("b", 6, 6)'))], "R.vision.get_valid_counts(d, 0.3)"),
    ([("d", F.format("(2, 6, 6)"))], "R.vision.get_valid_counts(d, score_index=6)"),
    ([("d", F.format("(2, 6, 6)")), ("v", I32.format("(2,)")), ("i", I32.format("(2, 6)"))],
     "R.vision.non_max_suppression(d, v, i, return_indices=False)"),
    ([("d", F.format("(2, 6, 6)")), ("v", I32.format("(2,)")), ("i", I32.format("(2, 6)"))],
     "R.vision.non_max_suppression(d, v, i, soft_nms_sigma=0.5)"),
    ([("d", F.format("(2, 6, 6)")), ("v", I32.format("(3,)")), ("i", I32.format("(2, 6)"))],
     "R.vision.non_max_suppression(d, v, i)"),
    ([("b", F.format("(2, 6, 4)")), ("s", F.format("(2, 3, 6)")), ("m", 'R.Tensor((1,), "int64")'),
      ("t", F.format("(1,)"))], 'R.vision.all_class_non_max_suppression(b, s, m, t, t, "tensorflow")'),
]


@pytest.mark.tvm
@pytest.mark.parametrize("params,expr", _SINFO, ids=[str(i) for i in range(len(_SINFO))])
def test_inference_agrees_with_tvm(params, expr):
    tvm = pytest.importorskip("tvm")
    if not hasattr(tvm.relax.op, "vision"):
        pytest.skip("this TVM has no vision operators")
    text = call_text(_params(params), expr)
    body = text.split("\n", 1)[1]
    from tvm.script import ir as I, relax as R  # noqa: E741
    try:
        var = tvm.script.from_source(body, extra_vars={"I": I, "R": R})["main"].body.blocks[-1].bindings[-1].var
    except Exception:  # noqa: BLE001 - any TVM error means the call is rejected
        with pytest.raises(StructInfoError):
            relax_ref.parse(text)
        return
    theirs = getattr(var, "struct_info", None) or var.ty
    ours = relax_ref.parse(text)["main"].body.blocks[-1].bindings[-1].var.struct_info
    if hasattr(theirs, "fields"):
        assert [str(f) for f in ours.fields] == [str(f) for f in theirs.fields]
    else:
        assert str(ours) == str(theirs)


@pytest.mark.tvm
def test_kernels_agree_with_tvm():
    tvm = pytest.importorskip("tvm")
    if not hasattr(tvm.relax.op, "vision"):
        pytest.skip("this TVM has no vision operators")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 8, 8)).astype("float32")
    r = np.array([[0, 1, 1, 6, 5], [1, 0.5, 2.2, 7.9, 7.1], [0, -2, -1, 3, 9]], "float32")
    d = rng.uniform(0, 3, (2, 6, 6)).astype("float32")
    d[..., 0] = rng.integers(0, 2, (2, 6))
    d[..., 4:] += 1
    vc, ind = np.array([6, 4], "int32"), np.arange(12, dtype="int32").reshape(2, 6)
    ps = _params([("x", F.format("(2, 3, 8, 8)")), ("r", F.format("(3, 5)")), ("d", F.format("(2, 6, 6)")),
                  ("v", I32.format("(2,)")), ("i", I32.format("(2, 6)"))])
    adaptive = ["R.vision.roi_align(x, r, (2, 3), 0.5)", 'R.vision.roi_align(x, r, 2, 1.0, mode="max", aligned=True)']
    # TVM 0.25 cannot lower the adaptive grid (a reduce extent read from the ROIs)
    for expr in ([] if tvm.__version__.startswith("0.25") else adaptive) + [
                 'R.vision.roi_align(x, r, 2, 0.5, sample_ratio=2, layout="NCHW")', "R.vision.roi_pool(x, r, (3, 2), 0.5)", "R.vision.non_max_suppression(d, v, i, iou_threshold=0.3)",
                 "R.vision.non_max_suppression(d, v, i, soft_nms_sigma=0.4, score_threshold=0.2)",
                 "R.vision.non_max_suppression(d, v, i, return_indices=False, invalid_to_bottom=True)"]:
        text = call_text(ps, expr)
        (theirs,) = run_tvm(text, [("main", [x, r, d, vc, ind])])
        ours = relax_ref.evaluate(relax_ref.parse(text), "main", x, r, d, vc, ind)
        ours = ours if isinstance(theirs, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(np.asarray(o), t, rtol=1e-5, atol=1e-5, err_msg=expr)

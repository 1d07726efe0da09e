"""Findings of the fifth fuzzing run (docs/FUZZING.md, seed 20261208): nll_loss_backward's weights
counted against the classes, the order of layout_transform's result checks, and aliased storage
written in place."""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import RelaxError
from program_texts import case_text

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import FUNC_HEAD as HEAD, lists_on_both as _both  # noqa: E402


NLL = HEAD + ('    def main(g: R.Tensor((), "float32"), p: R.Tensor(("n", "c"), "float32"), t: R.Tensor(("n",), "int64"),'
              ' w: R.Tensor(("k",), "float32")) -> R.Tensor(("n", "c"), "float32"):\n'
              '        y = R.grad.nll_loss_backward(g, p, t, w, reduction="sum")\n        return y\n')


def test_nll_loss_backward_counts_the_weights_against_the_classes_at_run_time():
    """OP.grad.nll_loss_backward.C4: 255 classes and 4 weights with a target 4 (the reference read
    ``w[4]`` and crashed with an IndexError): op_runtime on both evaluators."""
    g = np.array(1.0, "float32")
    p = np.zeros((2, 255), "float32")
    t = np.array([4, 1], "int64")
    w = np.ones((4,), "float32")
    assert _both(NLL, g, p, t, w) == [("op_runtime", None)] * 2


def test_nll_loss_backward_with_as_many_weights_as_classes_computes():
    g = np.array(2.0, "float32")
    p = np.zeros((2, 3), "float32")
    t = np.array([1, 2], "int64")
    w = np.array([0.5, 1.5, 3.0], "float32")
    expected = [[0.0, -3.0, 0.0], [0.0, 0.0, -6.0]]  # -w[t] * g at each target class
    assert _both(NLL, g, p, t, w) == [("value", expected)] * 2


def test_nll_loss_backward_refuses_known_unequal_weights_statically():
    text = HEAD + ('    def main(g: R.Tensor((), "float32"), p: R.Tensor((2, 5), "float32"), t: R.Tensor((2,), "int64"),'
                   ' w: R.Tensor((4,), "float32")) -> R.Tensor((2, 5), "float32"):\n'
                   '        y = R.grad.nll_loss_backward(g, p, t, w, reduction="sum")\n        return y\n')
    with pytest.raises(RelaxError) as err:
        relax_ref.parse(text)
    assert err.value.kind == "struct_info" and "C4" in str(err.value)


LT = HEAD + ('    def main(x: R.Tensor(("m", 2), "float32")) -> R.Tensor(ndim=3, dtype="float32"):\n'
             '        y{ann} = R.layout_transform(x, index_map=lambda a, b: (a // 3, b, a % 3))\n        return y\n')


@pytest.mark.parametrize("ann", ["", ': R.Tensor((3, 2, 3), "float32")'])
def test_layout_transform_checks_its_inferred_extent_before_the_annotation(ann):
    """EVAL.CALL.3 (order), OP.SEM.3: with m = 2 the map gives (1, 2, 2) where the inference
    ``((m + 2) // 3, 2, 3)`` says (1, 2, 3): op_runtime on both evaluators, annotated or not (relax_jax
    once checked the annotation first, shape_mismatch, and without it had no check of its own)."""
    x = np.arange(4, dtype="float32").reshape(2, 2)
    assert _both(LT.format(ann=ann), x) == [("op_runtime", None)] * 2


def test_layout_transform_result_against_a_wrong_annotation_is_a_call_result_mismatch():
    """EVAL.CALL.3: with m = 3 the result (1, 2, 3) agrees with the inference; the annotation (3, 2, 3)
    is wrong: shape_mismatch on both (the reference once compared the annotation in the operator)."""
    x = np.zeros((3, 2), "float32")
    assert _both(LT.format(ann=': R.Tensor((3, 2, 3), "float32")'), x) == [("shape_mismatch", None)] * 2


def test_layout_transform_values_where_the_extents_agree():
    x = np.arange(18, dtype="float32").reshape(9, 2)
    expected = x.reshape(3, 3, 2).transpose(0, 2, 1).tolist()   # y[a // 3, b, a % 3] = x[a, b]
    assert _both(LT.format(ann=""), x) == [("value", expected)] * 2


STORAGE = case_text("memory", "storage_aliasing_in_a_pure_function")   # u and v view one storage


@pytest.mark.parametrize("x", [[-0.75, np.nan], [np.nan, 1.0], [1.0, 2.0], [-0.0, 0.5]])
def test_in_place_write_through_a_tensor_passed_twice_survives_a_nan(x):
    """EVAL.ALIAS.3, CALL.ALLOC.2: ``add_into(t2, t2)`` doubles the storage that ``u`` and ``v`` both
    view. relax_jax wrote back the unchanged read parameter after the written one when the two
    compared unequal, and a NaN made them unequal: the doubling was undone (-0.75 where the
    reference has -1.5; the fuzzing report named an object array, the label of another run)."""
    x = np.array(x, "float32")
    mod = relax_ref.parse(STORAGE)
    want = [(2 * x).tolist()] * 2
    for got in (relax_ref.evaluate(mod, "main", x), relax_jax.compile(mod)("main", x)):
        got = [np.asarray(v) for v in got]
        np.testing.assert_array_equal(np.array(got), np.array(want, "float32"))
        assert [np.signbit(v).tolist() for v in got] == [np.signbit(np.array(w, "float32")).tolist() for w in want]


def test_an_object_array_for_the_storage_program_is_refused_on_both():
    """VAL.HOST.1: the object array of the report's label is refused before any write."""
    x = np.array([object(), object()], dtype=object)
    assert _both(STORAGE, x) == [("type_mismatch", None)] * 2


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("shape", [(1, 1, 4, 0), (1, 1, 0, 3)])
def test_roi_align_on_an_empty_image_samples_zeros(mode, shape):
    """Sixth fuzzing run: relax_jax gathered from an empty spatial axis (TypeError); no bilinear tap lies in
    an empty image, so every sample is 0 on both evaluators (OP.vision.roi_align.C6)."""
    text = ('@I.ir_module\nclass Module:\n    @R.function\n'
            f'    def main(x: R.Tensor({shape}, "float32"), rois: R.Tensor((1, 5), "float32")):\n'
            f'        y = R.vision.roi_align(x, rois, 2, 1.0, mode="{mode}")\n        return y\n')
    rois = np.array([[-0.5, -1.0, 0.25, 1.0, -1.0]], "float32")
    out = _both(text, np.zeros(shape, "float32"), rois)
    assert out[0] == out[1] and out[0][0] == "value", out

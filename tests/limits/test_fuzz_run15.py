"""Findings of the scouting fuzzing run (docs/FUZZING.md, seed 20261220) and of the review for their
siblings: ``multibox_transform_loc`` without classes (OP.vision.multibox_transform_loc.C5), a reshape
whose ``-1`` resolved to 0 (OP.reshape.C5, TEXT.RT.1), a TensorIR ``while`` condition that fails on
relax_jax, and the reference's sort of 8-bit floats. Expected values come from numpy formulas written
here, never from the evaluators."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_ref.errors import RelaxError, UnsupportedError  # noqa: E402
from relax_ref.ir import expr as rx  # noqa: E402
from relax_ref.ir import prim_expr as P  # noqa: E402

from limits.fuzz_cases import HEAD, relax_main as _fn, results_on_both as _both  # noqa: E402


# ---------------------------------------------------------------------------------------------------
# multibox_transform_loc without classes
# ---------------------------------------------------------------------------------------------------


def _boxes(loc: np.ndarray, anchor: np.ndarray, var, clip: bool) -> np.ndarray:
    """The decoded boxes of OP.vision.multibox_transform_loc.C5, in float64 (compared with a tolerance)."""
    b, n4 = loc.shape
    e = loc.reshape(b, n4 // 4, 4).astype(np.float64)
    a = anchor[0].astype(np.float64)
    ay, ax = (a[:, 1] + a[:, 3]) / 2, (a[:, 0] + a[:, 2]) / 2
    ah, aw = a[:, 3] - a[:, 1], a[:, 2] - a[:, 0]
    yc, xc = e[..., 1] * var[1] * ah + ay, e[..., 0] * var[0] * aw + ax
    hh, hw = np.exp(e[..., 3] * var[3]) * ah / 2, np.exp(e[..., 2] * var[2]) * aw / 2
    out = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1)
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize("keep_background", [False, True])
@pytest.mark.parametrize("apply_softmax", [False, True])
def test_multibox_without_classes_is_empty_scores_and_the_boxes(keep_background, apply_softmax):
    """The run's ``crash|ref|run|IndexError|ops/vision_ref.py:multibox_transform_loc`` and
    ``crash|jax|run|IndexError|ops/vision.py:_multibox``: ``cls_pred`` of shape ``(2, 0, 4)`` and
    ``keep_background=False`` zeroed a class 0 that does not exist (and the softmax took the maximum of
    no classes). TVM 0.27 returns the boxes and scores of shape ``(2, 0, 4)``."""
    mod = relax_ref.parse(_fn(
        'c: R.Tensor((2, 0, 4), "float32"), l: R.Tensor((2, 16), "float32"), a: R.Tensor((1, 4, 4), "float32")',
        "y = R.vision.multibox_transform_loc(c, l, a, clip=True, threshold=0.2, variances=(0.1, 0.1, 0.2, 0.2), "
        f"keep_background={keep_background}, apply_softmax={apply_softmax})\nreturn y"))
    rng = np.random.default_rng(3)
    loc = rng.uniform(-1, 1, (2, 16)).astype("float32")
    anchor = np.sort(rng.uniform(0, 1, (1, 4, 4)).astype("float32").reshape(1, 4, 2, 2), axis=2).reshape(1, 4, 4)
    want = _boxes(loc, anchor, (0.1, 0.1, 0.2, 0.2), True)
    for got in _both(mod, np.zeros((2, 0, 4), "float32"), loc, anchor):
        assert not isinstance(got, Exception), got
        boxes, scores = (np.asarray(t) for t in got)
        assert scores.shape == (2, 0, 4) and scores.dtype == np.float32
        np.testing.assert_allclose(boxes, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------------
# a reshape whose -1 resolved to 0
# ---------------------------------------------------------------------------------------------------


def _round_trip(mod):
    text = mod.script()
    back = relax_ref.parse(text)
    assert relax_ref.structural_equal(mod, back), text
    assert back.script() == text
    return text


def test_the_reshape_reproducer_round_trips():
    """The run's ``roundtrip|StructInfoError``: ``(0, 3, 4)`` reshaped to ``(4, -1)`` is ``(4, 0)``,
    printed as ``R.shape([4, 0])``, whose 0 the parser reads as a copy of the input's dim 1 (3): 12
    elements for 0. It is printed with the -1 now (TVM 0.25 and 0.27 print the 0 and fail alike)."""
    mod = relax_ref.parse(_fn('x: R.Tensor((0, 3, 4), "float32")', "y = R.reshape(x, (4, -1))\nreturn y",
                              'R.Tensor((4, 6), "float32")'))
    text = _round_trip(mod)
    assert "R.reshape(x, R.shape([4, -1]))" in text
    assert mod["main"].body.blocks[0].bindings[0].value.args[1].values[1] == P.IntImm(0, "int64")


@pytest.mark.parametrize("shape, new, want", [
    ((0, 3, 4), "(4, -1)", (4, 0)),
    ((0, 3, 4), "(0, -1)", (0, 0)),           # the first 0 copies the input's 0
    ((2, 0), "(-1, 5)", (0, 5)),
    ((2, 0), "(0, 0, -1)", None),             # 0 at position 1 copies 0, -1 -> 0: (2, 0, 0)
    (("n", 0), "(-1, 7)", (0, 7)),
    (("n", 0), "(0, -1)", None),              # (n, 0)
])
def test_reshapes_of_empty_tensors_round_trip_and_agree(shape, new, want):
    """A literal 0 that is a copy is printed as 0, the one that -1 resolved to as -1; every such
    module is a fixed point of print and parse, and both evaluators give the resolved shape."""
    mod = relax_ref.parse(_fn(f'x: R.Tensor({shape}, "float32")', f"y = R.reshape(x, {new})\nreturn y"))
    _round_trip(mod)
    concrete = tuple(2 if d == "n" else d for d in shape)
    expected = np.zeros(concrete, "float32").reshape(want if want is not None else
                                                     {"(0, 0, -1)": (2, 0, 0), "(0, -1)": (2, 0)}[new])
    for got in _both(mod, np.zeros(concrete, "float32")):
        assert not isinstance(got, Exception), got
        assert np.asarray(got).shape == expected.shape


def test_a_target_that_no_new_shape_spells_is_not_printed():
    """A reshape built by a pass to ``(0, 0, 0)`` of a ``(3, 4, 0)`` tensor: a 0 at position 0 or 1
    would copy 3 or 4 and at most one -1 is allowed, so no text reads back to it: an UnsupportedError,
    not a wrong print. ``(0, 0)`` of a ``(3, 0)`` tensor is ``R.shape([-1, 0])``."""
    from relax_ref.ir.struct_info import TensorStructInfo
    from relax_ref.ops.manipulate import reshape_spelling

    def call(shape, target):
        x = rx.Var("x", struct_info=TensorStructInfo(rx.ShapeExpr(tuple(P.IntImm(d, "int64") for d in shape)),
                                                     "float32"))
        return rx.Call(rx.Op("relax.reshape"), (x, rx.ShapeExpr(tuple(P.IntImm(d, "int64") for d in target))))

    assert reshape_spelling(call((3, 0), (0, 0))) == (P.IntImm(-1, "int64"), P.IntImm(0, "int64"))
    with pytest.raises(UnsupportedError, match="copies the input's dim"):
        reshape_spelling(call((3, 4, 0), (0, 0, 0)))


# ---------------------------------------------------------------------------------------------------
# a TensorIR while condition that fails (relax_jax said "unsupported")
# ---------------------------------------------------------------------------------------------------

FIRST_ZERO = HEAD + '''    @T.prim_func
    def first_zero(A: T.Buffer((T.int64(6),), "int32"), B: T.Buffer((T.int64(1),), "int32")):
        j = T.alloc_buffer((T.int64(1),), "int32")
        j[0] = 0
        while A[j[0]] != 0:
            j[0] = j[0] + 1
        B[0] = j[0]
    @R.function
    def main(x: R.Tensor((6,), "int32")) -> R.Tensor((1,), "int32"):
        cls = Module
        y = R.call_tir(cls.first_zero, (x,), out_sinfo=R.Tensor((1,), "int32"))
        return y
'''

REPRODUCER_WHILE = HEAD + '''    @T.prim_func
    def halvings(A: T.Buffer((T.int64(3),), "int32"), B: T.Buffer((T.int64(3),), "int32")):
            v = T.alloc_buffer((T.int64(1),), "int32")
            c = T.alloc_buffer((T.int64(1),), "int32")
            while v[255] > 1:
                c[0] = c[0] + 1
    @R.function
    def main(x: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
        cls = Module
        y = R.call_tir(cls.halvings, (x,), out_sinfo=R.Tensor((3,), "int32"))
        return y
'''


def test_the_while_reproducer_is_a_bounds_error_on_both():
    """The run's ``unsupported|jax``: relax_jax refused a while condition with a check site; it is
    evaluated in the loop's carried state now, and the out-of-bounds read fails as on the reference."""
    mod = relax_ref.parse(REPRODUCER_WHILE)
    for got in _both(mod, np.array([0, 1, 1], "int32")):
        assert isinstance(got, RelaxError) and type(got).__name__ == "TIRBoundsError", got


@pytest.mark.parametrize("values", [[3, 2, 1, 0, 5, 0], [0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0], [7, -1, 4, 4, 0, 0]])
def test_a_checked_while_condition_runs_where_it_is_in_bounds(values):
    """The condition reads ``A[j]`` with ``j`` carried by the loop: the first zero's index."""
    mod = relax_ref.parse(FIRST_ZERO)
    want = np.array([values.index(0)], "int32")
    for got in _both(mod, np.array(values, "int32")):
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(np.asarray(got), want)


def test_a_checked_while_condition_fails_where_the_reference_fails():
    """Without a zero the condition reads ``A[6]``: the bounds error on both, not an endless loop."""
    mod = relax_ref.parse(FIRST_ZERO)
    for got in _both(mod, np.array([1, 2, 3, 4, 5, 6], "int32")):
        assert isinstance(got, RelaxError) and type(got).__name__ == "TIRBoundsError", got


# ---------------------------------------------------------------------------------------------------
# sort, argsort and topk of the 8-bit floats on the reference (found reviewing for siblings)
# ---------------------------------------------------------------------------------------------------

ROW = [1.5, float("nan"), -2.0, 1.5, 0.25, float("nan"), -0.0, 0.0]


def _order(descending: bool):
    """The stable order of OP.SEARCH.KERNEL.2 by hand: NaN larger than every number."""
    key = [(1, 0.0) if v != v else (0, v) for v in ROW]
    idx = sorted(range(len(ROW)), key=lambda i: key[i])
    if descending:      # stable descending: reverse by key, ties in their original order
        idx = sorted(range(len(ROW)), key=lambda i: (-key[i][0], -key[i][1]))
    return idx


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2", "bfloat16"])
@pytest.mark.parametrize("descending", [False, True])
def test_narrow_float_sorts_agree_with_a_hand_order(dtype, descending):
    """``np.floating`` does not hold ml_dtypes' types: the reference took the integer branch (``~x``,
    a TypeError for float8) for a descending sort of them."""
    nd = np.dtype(getattr(ml_dtypes, dtype))
    x = np.array([ROW], nd)
    want = _order(descending)
    flag = "True" if descending else "False"
    for call, expect in ((f"R.argsort(x, axis=-1, descending={flag}, dtype=\"int32\")", np.array([want])),
                         (f"R.sort(x, axis=-1, descending={flag})", x[:, want])):
        mod = relax_ref.parse(_fn(f'x: R.Tensor((1, 8), "{dtype}")', f"y = {call}\nreturn y"))
        for got in _both(mod, x):
            assert not isinstance(got, Exception), got
            np.testing.assert_array_equal(np.asarray(got).astype(np.float64), expect.astype(np.float64))


def test_float_numpy_dtypes_include_the_ml_dtypes():
    from relax_ref.ir.dtype import is_float_numpy

    assert all(is_float_numpy(d) for d in (np.float16, np.float64, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                           ml_dtypes.float8_e5m2))
    assert not any(is_float_numpy(d) for d in (np.int8, np.bool_, np.complex64, object, np.dtype([("a", "i4")])))


ALLREDUCE_AVG = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})
    @R.function
    def main(x: R.DTensor((4,), "DT", "mesh[0]", "R"), t: R.Tensor((2, 4), "DT")):
        s = R.dist.redistribute_replica_to_shard(t, num_workers=2, axis=1)
        a = R.ccl.allreduce(s, op_type="avg")
        return a
'''


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e5m2"])
def test_allreduce_avg_of_narrow_floats_is_not_truncated(dtype):
    """The reference's ``avg`` chose the integer (truncating) average for ml_dtypes' floats."""
    from relax_ref.interp.workers import evaluate_local

    nd = np.dtype(getattr(ml_dtypes, dtype))
    t = np.array([[0.5, 1.0, 2.0, 0.25], [-1.0, 0.5, 3.0, 1.0]], nd)
    mod = relax_ref.parse(ALLREDUCE_AVG.replace('"DT"', f'"{dtype}"'))
    got = np.asarray(evaluate_local(mod, "main", np.zeros(4, nd), t))
    left, right = t[:, :2].astype(np.float64), t[:, 2:].astype(np.float64)
    np.testing.assert_array_equal(got.astype(np.float64), ((left + right) / 2).astype(nd).astype(np.float64))


# ---------------------------------------------------------------------------------------------------
# nll_loss without classes (found reviewing for zero-extent siblings)
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("pshape, targets", [((3, 0), [-100, -100, -100]), ((0,), -100),
                                             ((2, 0, 2), [[-100, -100], [-100, -100]])])
def test_nll_loss_without_classes_and_every_target_ignored(pshape, targets, reduction):
    """OP.nn.nll_loss.C7 with ``C = 0``: every target is ignored, so each output is 0, the sum 0 and the
    mean ``0 / 0`` (NaN). The reference raised an IndexError, relax_jax a TypeError (a gather from an
    empty axis)."""
    t = np.array(targets, "int32")
    mod = relax_ref.parse(_fn(f'p: R.Tensor({pshape}, "float32"), t: R.Tensor({t.shape}, "int32")',
                              f'y = R.nn.nll_loss(p, t, reduction="{reduction}")\nreturn y'))
    per = np.zeros(t.shape, "float32")
    want = {"none": per, "sum": np.float32(0), "mean": np.float32(np.nan)}[reduction]
    if pshape == (0,) and reduction != "mean":
        want = np.float32(0)
    for got in _both(mod, np.zeros(pshape, "float32"), t):
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(np.asarray(got), want)


def test_nll_loss_without_classes_and_a_kept_target_is_the_range_error():
    mod = relax_ref.parse(_fn('p: R.Tensor((3, 0), "float32"), t: R.Tensor((3,), "int32")',
                              "y = R.nn.nll_loss(p, t)\nreturn y"))
    for got in _both(mod, np.zeros((3, 0), "float32"), np.array([0, -100, -100], "int32")):
        assert isinstance(got, RelaxError) and got.kind == "op_runtime", got


# ---------------------------------------------------------------------------------------------------
# the fifteenth run (30 minutes, seed 20261221): arange's wrapped length, a reinterpreting view
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("start, step, n", [(9223372036854775807, 3, 2), (10, 1, 2), (5, 2, 0)])
def test_arange_with_a_negative_struct_info_length_is_a_shape_mismatch_on_both(start, step, n):
    """The run's ``crash|jax|run|TypeError|ops/create.py:_arange``: ``R.arange(2**63 - 1, n, 3)`` has
    the struct-info length ``(n - 9223372036854775805) // 3`` (OP.arange.C2), negative for ``n = 2``,
    while the values hold 0 elements: the reference reports the mismatch of the result against its
    struct info (EVAL.CHECK.1) and relax_jax handed XLA an iota of negative length."""
    mod = relax_ref.parse(_fn('x: R.Tensor(("n",), "float32")', f"y = R.arange({start}, n, {step})\nreturn y"))
    got = _both(mod, np.zeros((n,), "float32"))
    for g in got:
        assert isinstance(g, relax_ref.errors.ShapeMismatchError), g
    # the struct-info length, evaluated by hand in int64 (Python's floor division on the true value
    # is the same here: no operand wraps)
    assert (n - start + step - 1) // step < 0


_VIEW = HEAD + '''    @T.prim_func
    def f(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64({m}),), "{dt}")):
        V = T.Buffer((T.int64({m}),), "{dt}", data=A.data)
        for i in range(T.int64({m})):
            B[i] = V[i]
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor(({m},), "{dt}"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor(({m},), "{dt}"))
        return y
'''

_STORE = HEAD + '''    @T.prim_func
    def f(A: T.Buffer((T.int64(6),), "float32"), B: T.Buffer((T.int64(6),), "float32")):
        W = T.Buffer((T.int64({m}),), "{dt}", data=B.data)
        for i in range(T.int64({m})):
            W[i] = T.Cast("{dt}", {base} + i)
    @R.function
    def main(x: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((6,), "float32"))
        return y
'''


@pytest.mark.parametrize("dt, m", [("int32", 6), ("int16", 12), ("uint8", 24), ("int64", 3), ("float16", 12)])
def test_a_view_reading_float32_memory_as_another_dtype(dt, m):
    """The run's ``unsupported|jax|-`` (``semantics/buffer_view_aliases``, dtype mutations): a buffer
    declared over another buffer's data with another dtype reads its bytes (TIR.BUF.4), as numpy's
    ``ndarray.view``; relax_jax refused it. Views narrower, as wide and wider than the memory."""
    mod = relax_ref.parse(_VIEW.format(m=m, dt=dt))
    a = np.array([[1.0, -2.5, 3.25], [0.1, 1e-3, -7.0]], "float32")
    want = np.frombuffer(a.tobytes(), dtype=dt)   # the little-endian bytes, read as dt
    for got in _both(mod, a):
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dt, m, base", [("int32", 6, 1065353216), ("int16", 12, 16256), ("int64", 3, 4575657222473777152)])
def test_a_view_writing_float32_memory_as_another_dtype(dt, m, base):
    """Stores through a reinterpreting view write the bytes of the stored values; the output read
    back as float32 is those bytes (expected: numpy's view of the hand-built integer array)."""
    mod = relax_ref.parse(_STORE.format(m=m, dt=dt, base=base))
    want = (np.int64(base) + np.arange(m, dtype=np.int64)).astype(dt).view("float32")
    for got in _both(mod, np.zeros((6,), "float32")):
        assert not isinstance(got, Exception), got
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))


def test_a_boolean_view_of_float32_memory_stays_unsupported_on_relax_jax():
    """relax_jax reinterprets whole-byte dtypes only: a boolean view (bytes other than 0 and 1 have
    no boolean value in XLA) is an UnsupportedError there, never a wrong value."""
    mod = relax_ref.parse(_VIEW.format(m=24, dt="bool"))
    with pytest.raises(UnsupportedError):
        relax_jax.compile(mod)("main", np.ones((2, 3), "float32"))

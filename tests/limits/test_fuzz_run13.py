"""Findings of the thirteenth fuzzing run (docs/FUZZING.md, seed 20261218): a rank beyond int32 and an
absurd in-range rank (SI.SHAPE.1, SI.TENSOR.1, RUNTIME.LIMIT.1), and the harness's wrong argument for a
tensor without elements of shape ``(0, 2**32)``. Each reproducer is a RelaxError, quickly and without a
large allocation, on the reference and on relax_jax (which parses with the reference's parser)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_ref.errors import ParseError, RelaxError, StructInfoError  # noqa: E402
from relax_ref.ops.common import MAX_LISTED_RANK  # noqa: E402
from relax_ref.testing import fuzz_worker  # noqa: E402
from relax_ref.testing.fuzz_findings import classify  # noqa: E402
from relax_ref.testing.fuzz_mutate import MAX_WRONG_BYTES, wrong_inputs  # noqa: E402

from limits.fuzz_cases import relax_main as _fn  # noqa: E402

INT32_MAX = 2**31 - 1


def _cheap(fn):
    """``fn()`` in under 5 s with under 1 GB allocated (its result or the RelaxError it raised)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        out = fn()
    except RelaxError as e:
        out = e
    finally:
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < 5.0, elapsed
    assert peak < 1 << 30, peak
    return out


REPRODUCER_NDIM = _fn('v: R.Tensor("float32", ndim=2147483648)', "w = R.expand_dims(v, axis=[1])\nreturn w",
                      'R.Tensor("float32", ndim=2)', name="column")


def test_the_reproducer_is_a_parse_error_naming_the_rank():
    """The run's ``crash|ref|parse|MemoryError|ops/common.py:normalize_axes``: ``ndim=2**31`` (TVM's C++
    ``int`` wraps it to a negative rank) is a parse error at the annotation, before any inference."""
    err = _cheap(lambda: relax_ref.parse(REPRODUCER_NDIM))
    assert isinstance(err, ParseError), err
    assert "2147483648" in str(err) and "int32" in str(err)
    assert err.span is not None and err.span.line == 7


@pytest.mark.parametrize("ndim", [2**31, 2**32 + 1, 2**63])
@pytest.mark.parametrize("annotation", ['R.Tensor("float32", ndim={n})', "R.Shape(ndim={n})", "R.Tensor(ndim={n})"])
def test_a_rank_beyond_int32_is_a_parse_error(ndim, annotation):
    err = _cheap(lambda: relax_ref.parse(_fn(f"v: {annotation.format(n=ndim)}", "return v")))
    assert isinstance(err, ParseError) and str(ndim) in str(err), err


def test_the_largest_rank_parses_and_is_kept_as_a_number():
    mod = _cheap(lambda: relax_ref.parse(_fn(f'v: R.Tensor("float32", ndim={INT32_MAX})', "return v")))
    assert mod["main"].params[0].struct_info.ndim == INT32_MAX
    assert relax_ref.structural_equal(mod, relax_ref.parse(mod.script()))


def test_struct_info_constructors_refuse_a_rank_beyond_int32():
    from relax_ref.ir.struct_info import ShapeStructInfo, TensorStructInfo

    for make in (lambda n: TensorStructInfo(None, "float32", n), lambda n: ShapeStructInfo(None, n)):
        assert make(INT32_MAX).ndim == INT32_MAX
        with pytest.raises(StructInfoError, match="int32"):
            make(INT32_MAX + 1)


#: operators whose inference took memory in proportion to a stated rank (normalize_axes, squeeze's and
#: permute_dims' axis lists), with what their result is for a rank of 2**31 - 1
ABSURD_RANK = [
    ("R.expand_dims(v, axis=[1])", None),                       # the result's rank 2**31: struct_info
    ("R.expand_dims(v, axis=[0, 1])", None),
    ("R.squeeze(v)", -1),
    ("R.squeeze(v, axis=[1])", INT32_MAX - 1),
    ("R.squeeze(v, axis=[-1, 0])", INT32_MAX - 2),
    ("R.permute_dims(v)", INT32_MAX),
    ("R.sum(v, axis=[3, -2])", INT32_MAX - 2),
    ("R.mean(v, axis=[0], keepdims=True)", INT32_MAX),
    ("R.argmax(v, axis=-1)", INT32_MAX - 1),
    ("R.sum(v, keepdims=True)", None),                          # all-ones shape of 2**31 - 1 dims
    ("R.max(v, keepdims=True)", None),
    ("R.median(v, keepdims=True)", None),
    ("R.argmax(v, keepdims=True)", None),
    ("R.argmin(v, keepdims=True)", None),
    ("R.sum(v)", 0),
    ("R.add(v, v)", INT32_MAX),
]


@pytest.mark.parametrize("call, ndim", ABSURD_RANK)
def test_inference_never_takes_memory_in_proportion_to_a_stated_rank(call, ndim):
    text = _fn(f'v: R.Tensor("float32", ndim={INT32_MAX})', f"w = {call}\nreturn w")
    out = _cheap(lambda: relax_ref.parse(text))
    if ndim is None:
        assert isinstance(out, StructInfoError), out
        assert out.span is not None and out.span.line == 8
        return
    assert not isinstance(out, Exception), out
    si = out["main"].body.blocks[0].bindings[0].var.struct_info
    assert si.ndim == ndim


@pytest.mark.parametrize("call", ["R.sum(v, keepdims=True)", "R.argmin(v, keepdims=True)"])
def test_a_listed_all_ones_shape_up_to_the_limit(call):
    """RUNTIME.LIMIT.1: the all-ones shape of a reduction over every axis is listed up to 2**16 dims."""
    ok = relax_ref.parse(_fn(f'v: R.Tensor("float32", ndim={MAX_LISTED_RANK})', f"w = {call}\nreturn w"))
    si = ok["main"].body.blocks[0].bindings[0].var.struct_info
    assert si.ndim == MAX_LISTED_RANK and [int(d.value) for d in si.shape.values[:3]] == [1, 1, 1]
    with pytest.raises(StructInfoError, match=str(MAX_LISTED_RANK + 1)):
        relax_ref.parse(_fn(f'v: R.Tensor("float32", ndim={MAX_LISTED_RANK + 1})', f"w = {call}\nreturn w"))


def test_an_absurd_rank_is_an_ndim_mismatch_at_run_time_on_both():
    mod = relax_ref.parse(_fn(f'v: R.Tensor("float32", ndim={INT32_MAX})', "w = R.squeeze(v)\nreturn w"))
    for run in (lambda a: relax_ref.evaluate(mod, "main", a), lambda a: relax_jax.compile(mod)("main", a)):
        for a in (np.zeros(3, "float32"), np.zeros((1,) * 64, "float32")):
            with pytest.raises(RelaxError) as info:
                run(a)
            assert info.value.kind == "struct_info" or "rank" in str(info.value), info.value


# ---------------------------------------------------------------------------------------------------
# the harness: a wrong argument for a tensor of shape (0, 2**32)
# ---------------------------------------------------------------------------------------------------

REPRODUCER_EMPTY = _fn('x: R.Tensor((), "float32"), y: R.Tensor((0, 4294967296), "float32")',
                       "a = R.add(x, x)\nb = R.multiply(y, x)\nreturn (a, b)",
                       'R.Tuple(R.Tensor((), "float32"), R.Tensor((0, 3), "float32"))')


def test_the_reproducer_is_a_shape_mismatch_on_both():
    """The run's ``abort|ref|program|exit 1``: with right arguments both evaluators report the declared
    return shape ``(0, 3)`` against ``(0, 4294967296)``."""
    mod = relax_ref.parse(REPRODUCER_EMPTY)
    args = (np.float32(1.0) * np.ones((), "float32"), np.zeros((0, 2**32), "float32"))
    for run in (lambda: relax_ref.evaluate(mod, "main", *args), lambda: relax_jax.compile(mod)("main", *args)):
        err = _cheap(run)
        assert isinstance(err, RelaxError) and err.kind == "shape_mismatch", err


def test_wrong_arguments_of_a_tensor_without_elements_stay_small():
    """The worker died (exit 1) making a wrong argument: growing the extent 0 of ``(0, 2**32)`` to 1
    asked numpy for 16 GiB, a MemoryError outside the guarded runs. A grown extent is now one whose
    tensor stays within MAX_WRONG_BYTES (here the extent 2**32: still no element)."""
    args = [np.ones((), "float32"), np.zeros((0, 2**32), "float32")]
    shapes = set()
    for seed in range(60):
        for _, wrong in wrong_inputs(args, np.random.default_rng(seed), 3):
            for a in wrong:
                if isinstance(a, np.ndarray):
                    assert a.nbytes <= MAX_WRONG_BYTES, (seed, a.shape)
                    shapes.add(a.shape)
    assert (0, 2**32 + 1) in shapes


def test_wrong_arguments_of_a_tensor_of_numpys_largest_rank():
    args = [np.zeros((1,) * 64, "float32")]
    for seed in range(40):
        for _, wrong in wrong_inputs(args, np.random.default_rng(seed), 3):
            assert all(a.ndim <= 64 for a in wrong if isinstance(a, np.ndarray))


def test_the_worker_answers_the_reproducer():
    """Seed 14 draws the grown extent for ``y``: the worker answers every run with a RelaxError."""
    w = fuzz_worker.Worker("ref", timeout=120.0)
    try:
        resp = w.request(REPRODUCER_EMPTY, "main", seed=14, wrong=3)
    finally:
        w.close()
    assert resp.parse.kind == "value", resp.parse
    assert w.restarts == 0 and len(resp.runs) == len(resp.inputs) == 4
    assert all(r.kind == "error" for r in resp.runs), resp.runs
    assert any(lab.startswith("wrong") and "argument 1" in lab for lab, _ in resp.inputs)


def test_a_failure_of_the_harness_is_reported_with_the_program(monkeypatch):
    """Whatever fails while the worker makes arguments is a ``crash|<impl>|harness|...`` finding of the
    program, never an exception that ends the worker's loop."""
    def boom(*_a, **_k):
        raise MemoryError("no room")

    monkeypatch.setattr(fuzz_worker, "_make_inputs", boom)
    req = {"text": REPRODUCER_EMPTY, "entry": "main", "inputs": None, "seed": 0, "wrong": 3, "base": [],
           "roundtrip": False, "ftz": False}
    resp = fuzz_worker._handle(req, fuzz_worker._evaluator("ref"))
    assert resp.parse.kind == "crash" and resp.parse.cls == "MemoryError"
    assert resp.parse.message.startswith("harness: making the arguments failed")
    [(kind, sig, _, _)] = classify(resp, None)
    assert kind == "crash" and sig.startswith("crash|ref|harness|MemoryError|")

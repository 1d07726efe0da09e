"""Findings of the sixteenth fuzzing run (docs/FUZZING.md, seed 20261222) and of the review for their
siblings: ``R.grad.nll_loss_backward`` with weights of a narrower float dtype than the predictions on
relax_jax, the order of relax_jax's step-budget check (RUNTIME.LIMIT.4, RUNTIME.LIMIT.5) and an
earlier failing check, and ``R.invoke_closure``'s ``sinfo_args`` (None, an empty list) in print and
parse (CALL.CLOSURE.3, TEXT.CALL.1). Expected values come from numpy formulas written here, never from
the evaluators."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_ref.errors import ParseError, RelaxError  # noqa: E402

from limits.fuzz_cases import HEAD, relax_main as _fn, results_on_both  # noqa: E402


def _both(mod, *args, **limits):
    """The outcome on the reference and on relax_jax: the value, or the error's class name."""
    return [type(o).__name__ if isinstance(o, RelaxError) else o for o in results_on_both(mod, *args, **limits)]


# ---------------------------------------------------------------------------------------------------
# nll_loss_backward with weights of another float dtype
# ---------------------------------------------------------------------------------------------------


def _nll_grad(g, shape, t, w, reduction, ignore):
    """OP.grad.nll_loss_backward in float64: ``-w[t] * g'`` at each kept target's class, 0 elsewhere."""
    t = np.asarray(t, np.int64)
    keep = t != ignore
    wt = np.where(keep, np.asarray(w, np.float64)[np.where(keep, t, 0)], 0.0)
    gg = np.broadcast_to(np.asarray(g, np.float64), t.shape)
    if reduction == "mean":
        gg = gg / wt.sum()
    out = np.zeros(shape, np.float64)
    for n in range(shape[0]):
        for d in range(shape[2]):
            if keep[n, d]:
                out[n, t[n, d], d] = -wt[n, d] * gg[n, d]
    return out


@pytest.mark.parametrize("wdtype", ["float8_e4m3fn", "float8_e5m2", "bfloat16", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_backward_takes_weights_of_a_narrower_float_dtype(wdtype, reduction):
    """The run's ``crash|jax|run|TypePromotionError|ops/grad.py:_nll_loss_backward``: float32
    predictions with float8 weights; jax refused to promote the float8 weights implicitly. The weights
    are converted to the predictions' dtype (exactly, for these values), as the reference's result."""
    gshape = "()" if reduction != "none" else "(3, 2)"
    mod = relax_ref.parse(_fn(
        f'g: R.Tensor({gshape}, "float32"), p: R.Tensor((3, 4, 2), "float32"), t: R.Tensor((3, 2), "int64"), '
        f'w: R.Tensor((4,), "{wdtype}")',
        f'y = R.grad.nll_loss_backward(g, p, t, w, reduction="{reduction}", ignore_index=1)\nreturn y'))
    wvals = [0.5, 1.25, 2.0, 1.5]                   # exact in every weight dtype above
    w = np.array(wvals, getattr(ml_dtypes, wdtype, None) or np.dtype(wdtype))
    t = np.array([[0, 1], [3, 2], [1, 0]], "int64")
    g = np.array(1.5, "float32") if reduction != "none" else np.arange(1, 7, dtype="float32").reshape(3, 2)
    p = np.zeros((3, 4, 2), "float32")
    want = _nll_grad(g, (3, 4, 2), t, wvals, reduction, 1)
    for got in _both(mod, g, p, t, w):
        assert not isinstance(got, str), got
        assert np.asarray(got).dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=0)


def test_nll_loss_backward_with_float32_weights_of_bfloat16_predictions():
    """The other direction: wider weights are rounded to the predictions' dtype once."""
    mod = relax_ref.parse(_fn(
        'g: R.Tensor((), "bfloat16"), p: R.Tensor((2, 3, 1), "bfloat16"), t: R.Tensor((2, 1), "int64"), '
        'w: R.Tensor((3,), "float32")',
        'y = R.grad.nll_loss_backward(g, p, t, w, reduction="sum")\nreturn y'))
    w = np.array([0.5, 3.0, 0.25], "float32")
    t = np.array([[1], [2]], "int64")
    g = np.array(2, ml_dtypes.bfloat16)
    want = np.zeros((2, 3, 1))
    want[0, 1, 0], want[1, 2, 0] = -6.0, -0.5
    for got in _both(mod, g, np.zeros((2, 3, 1), ml_dtypes.bfloat16), t, w):
        assert not isinstance(got, str), got
        assert np.asarray(got).dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(np.asarray(got).astype(np.float64), want)


# ---------------------------------------------------------------------------------------------------
# the step budget in program order
# ---------------------------------------------------------------------------------------------------

STEPS = 1 << 20                 # the fuzzing harness's budget; the loops below run 2**21 iterations


def _kernel(first: str, after: str = "", n: int = 2) -> str:
    """A PrimFunc over ``A`` (``n`` int64) into ``B`` (1 int64): ``first``, then a loop of 2**21
    iterations, then ``after``; ``main`` calls it."""
    body = "".join(f"        {line}\n" for line in first.strip().splitlines())
    body += "        for i in range(T.int64(2097152)):\n            B[0] = B[0] + T.int64(1)\n"
    body += "".join(f"        {line}\n" for line in after.strip().splitlines())
    return (HEAD + "    @T.prim_func\n"
            f'    def k(A: T.Buffer((T.int64({n}),), "int64"), B: T.Buffer((T.int64(1),), "int64")):\n' + body +
            "\n    @R.function\n"
            f'    def main(x: R.Tensor(({n},), "int64")) -> R.Tensor((1,), "int64"):\n'
            "        cls = Module\n"
            '        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int64"))\n'
            "        return y\n")


def test_an_out_of_bounds_read_before_a_loop_past_the_budget_comes_first():
    """The run's ``error-kind|ref=TIRBoundsError|jax=LimitExceededError``: ``B[0] = A[1]`` of a
    one-element ``A``, then a loop past the step budget. relax_jax refused the whole call at compile
    time for the loop's count; the budget is now a check site at the loop's position (RUNTIME.LIMIT.5)."""
    mod = relax_ref.parse(_kernel("B[0] = A[1]", n=1))
    assert _both(mod, np.ones(1, "int64"), max_steps=STEPS) == ["TIRBoundsError"] * 2


def test_the_fuzzed_nest_past_the_budget_yields_to_an_earlier_read():
    """The run's module itself: a perfect nest of 2**21 x 2**21 iterations (a whole-array nest on
    relax_jax) after the failing read."""
    text = (HEAD + "    @T.prim_func\n"
            '    def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):\n'
            "        B[0] = A[1]\n"
            "        for i in range(T.int64(2097152)):\n"
            "            for j in range(T.int64(2097152)):\n"
            "                B[0] = B[0] + T.int64(1)\n\n"
            "    @R.function\n"
            '    def main(x: R.Tensor((1,), "int64")) -> R.Tensor((1,), "int64"):\n'
            "        cls = Module\n"
            '        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int64"))\n'
            "        return y\n")
    mod = relax_ref.parse(text)
    assert _both(mod, np.ones(1, "int64"), max_steps=STEPS) == ["TIRBoundsError"] * 2
    mod = relax_ref.parse(text.replace("A[1]", "A[0]"))
    assert _both(mod, np.ones(1, "int64"), max_steps=STEPS) == ["LimitExceededError"] * 2


@pytest.mark.parametrize("a0, want", [(5, "TIRBoundsError"), (-1, "TIRBoundsError"), (0, "LimitExceededError")])
def test_a_data_dependent_read_before_the_loop_decides_by_the_data(a0, want):
    """Whether the read fails depends on ``A[0]``: out of bounds, its error; in bounds, the budget's."""
    mod = relax_ref.parse(_kernel("B[0] = A[A[0]]"))
    assert _both(mod, np.array([a0, 7], "int64"), max_steps=STEPS) == [want] * 2


@pytest.mark.parametrize("a0, want", [(0, "AssertionFailedError"), (3, "LimitExceededError")])
def test_a_failing_assert_before_the_loop_comes_first(a0, want):
    mod = relax_ref.parse(_kernel('assert A[0] > T.int64(0), "A[0] must be positive"'))
    assert _both(mod, np.array([a0, 7], "int64"), max_steps=STEPS) == [want] * 2


def test_a_loop_past_the_budget_before_a_failing_read_comes_first():
    """Program order the other way: the loop fails before the read runs."""
    mod = relax_ref.parse(_kernel("B[0] = A[0]", "B[0] = A[2]"))
    assert _both(mod, np.array([1, 2], "int64"), max_steps=STEPS) == ["LimitExceededError"] * 2


def test_an_earlier_call_tir_that_fails_comes_before_a_later_one_past_the_budget():
    """At the Relax level too: the first call's data-dependent read, then a call past the budget."""
    text = (HEAD + "    @T.prim_func\n"
            '    def first(A: T.Buffer((T.int64(2),), "int64"), B: T.Buffer((T.int64(2),), "int64")):\n'
            "        B[0] = A[A[0]]\n"
            "        B[1] = A[1]\n\n"
            "    @T.prim_func\n"
            '    def second(A: T.Buffer((T.int64(2),), "int64"), B: T.Buffer((T.int64(1),), "int64")):\n'
            "        B[0] = A[0]\n"
            "        for i in range(T.int64(2097152)):\n"
            "            B[0] = B[0] + T.int64(1)\n\n"
            "    @R.function\n"
            '    def main(x: R.Tensor((2,), "int64")) -> R.Tensor((1,), "int64"):\n'
            "        cls = Module\n"
            '        y = R.call_tir(cls.first, (x,), out_sinfo=R.Tensor((2,), "int64"))\n'
            '        z = R.call_tir(cls.second, (y,), out_sinfo=R.Tensor((1,), "int64"))\n'
            "        return z\n")
    mod = relax_ref.parse(text)
    assert _both(mod, np.array([9, 1], "int64"), max_steps=STEPS) == ["TIRBoundsError"] * 2
    assert _both(mod, np.array([1, 1], "int64"), max_steps=STEPS) == ["LimitExceededError"] * 2


HUGE = 'C = T.alloc_buffer((T.int64(1099511627776),), "int64")'      # 8 TiB, past any max_bytes


def _with_huge_buffer(first: str, after: str = "") -> str:
    """:func:`_kernel` with the loop replaced by an allocation of 8 TiB that is used."""
    return _kernel(first + "\n" + HUGE + "\nC[0] = B[0]\nB[0] = C[0]", after).replace(
        "        for i in range(T.int64(2097152)):\n            B[0] = B[0] + T.int64(1)\n", "")


@pytest.mark.parametrize("a0, want", [(5, "TIRBoundsError"), (0, "LimitExceededError")])
def test_a_read_before_a_buffer_past_max_bytes_comes_first(a0, want):
    """The sibling of the step guard: a TensorIR buffer past ``max_bytes`` was refused while compiling,
    before the read that fails first on the reference; it is a check site at its statement now."""
    mod = relax_ref.parse(_with_huge_buffer("B[0] = A[A[0]]"))
    assert _both(mod, np.array([a0, 7], "int64")) == [want] * 2


@pytest.mark.parametrize("a0, want", [(5, "TIRBoundsError"), (0, "LimitExceededError")])
def test_a_buffer_past_max_bytes_after_a_loop_and_a_failing_read(a0, want):
    """After a compiled loop (within the budget) the allocation still certainly executes."""
    text = _with_huge_buffer("B[0] = A[A[0]]\nfor i in range(T.int64(3)):\n    B[0] = B[0] + T.int64(1)")
    assert _both(relax_ref.parse(text), np.array([a0, 7], "int64")) == [want] * 2


def test_a_buffer_past_max_bytes_before_a_failing_read_comes_first():
    mod = relax_ref.parse(_with_huge_buffer("B[0] = A[0]", "B[0] = A[A[0]]"))
    assert _both(mod, np.array([5, 7], "int64")) == ["LimitExceededError"] * 2


@pytest.mark.parametrize("a0, want", [(5, "TIRBoundsError"), (0, "LimitExceededError")])
def test_a_block_buffer_past_max_bytes_after_a_failing_read(a0, want):
    text = _kernel("B[0] = A[A[0]]\nwith T.block(\"b\"):\n    " + HUGE + "\n    C[0] = B[0]\n    B[0] = C[0]").replace(
        "        for i in range(T.int64(2097152)):\n            B[0] = B[0] + T.int64(1)\n", "")
    assert _both(relax_ref.parse(text), np.array([a0, 7], "int64")) == [want] * 2


def test_a_loop_within_the_budget_still_runs():
    mod = relax_ref.parse(_kernel("B[0] = A[1]"))
    for got in _both(mod, np.array([4, 10], "int64"), max_steps=1 << 22):
        assert not isinstance(got, str), got
        np.testing.assert_array_equal(np.asarray(got), [10 + 2097152])


# ---------------------------------------------------------------------------------------------------
# invoke_closure's sinfo_args
# ---------------------------------------------------------------------------------------------------

CLOSURE = (HEAD + "    @R.function\n"
           '    def add(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
           "        y = R.add(x, c)\n"
           "        return y\n\n"
           "    @R.function{deco}\n"
           '    def main(x: R.Tensor((2,), "float32"), c: R.Tensor((2,), "float32")):\n'
           "        cls = Module\n"
           "        clo = R.make_closure(cls.add, (c,))\n"
           "        r = R.{op}(clo, (x,), {kw}={value})\n"
           "        return r\n")


def _closure(op: str, value: str, kw: str = "sinfo_args") -> str:
    return CLOSURE.format(op=op, value=value, kw=kw, deco="(pure=False)" if op == "invoke_closure" else "")


@pytest.mark.parametrize("op", ["invoke_closure", "invoke_pure_closure"])
def test_invoke_closure_refuses_sinfo_args_none(op):
    """The run's ``roundtrip|ParseError``: ``sinfo_args=None`` was read as no struct-info arguments and
    printed without the argument, which the parser requires. TVM refuses ``None`` (0.25: the call
    has no struct info; 0.27: not a struct info): a parse error naming the argument."""
    with pytest.raises(ParseError, match="sinfo_args"):
        relax_ref.parse(_closure(op, "None"))


@pytest.mark.parametrize("dialect", ["classic", "tvm-0.25", "tvm-0.27"])
@pytest.mark.parametrize("empty", ["[]", "()"])
@pytest.mark.parametrize("op", ["invoke_closure", "invoke_pure_closure"])
def test_invoke_closure_with_no_sinfo_args_prints_an_empty_list(op, empty, dialect):
    """An empty list is no struct-info arguments (the result is ``R.Object``, OP.invoke_closure.C1):
    printed as an empty list in every dialect, it reads back equal."""
    mod = relax_ref.parse(_closure(op, empty))
    text = mod.script(dialect=dialect)
    kw = "ty_args" if dialect == "tvm-0.27" else "sinfo_args"
    assert f"R.{op}(clo, (x,), {kw}=[])" in text
    back = relax_ref.parse(text)
    assert relax_ref.structural_equal(mod, back)
    assert back.script(dialect=dialect) == text
    x, c = np.array([1, 2], "float32"), np.array([3, 5], "float32")
    for got in _both(mod, x, c):
        assert not isinstance(got, str), got
        np.testing.assert_array_equal(np.asarray(got), [4, 7])


def test_invoke_closure_with_one_struct_info_still_prints_it():
    mod = relax_ref.parse(_closure("invoke_closure", 'R.Tensor((2,), "float32")'))
    text = mod.script()
    assert 'sinfo_args=(R.Tensor((2,), dtype="float32"),)' in text or 'sinfo_args=R.Tensor' in text
    assert relax_ref.structural_equal(mod, relax_ref.parse(text))

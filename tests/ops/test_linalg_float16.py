"""float16 contractions (OP.LINALG.SEM.5): ``einsum`` and ``matmul`` accumulate sequentially in
float16, the reduction labels iterated in ASCII order (the last fastest), the operands multiplied left
to right with every product and every partial sum rounded -- what TVM 0.25 and 0.27 compute. Expected
values come from the plain-Python loop of the conformance cases (numpy float16 scalars,
``float16_sequential`` of the op_linalg generator, one definition for both), never from the evaluators."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_conformance.regen import load_generator  # noqa: E402

#: OP.LINALG.SEM.5 one scalar at a time, the oracle of the op_linalg conformance cases
float16_sequential = load_generator(
    Path(__file__).resolve().parents[2] / "conformance" / "generate" / "gen_ops_linalg.py").float16_sequential

HEAD = "from tvm.script import ir as I, relax as R\n\n\n@I.ir_module\nclass Module:\n"


def _module(shapes, call: str):
    params = ", ".join(f'x{i}: R.Tensor({tuple(s)}, "float16")' for i, s in enumerate(shapes))
    return relax_ref.parse(HEAD + f"    @R.function\n    def main({params}):\n        y = {call}\n        return y\n")


def _both(mod, arrays):
    """The reference's and relax_jax's results. (The legalized kernel on the reference's TensorIR
    evaluator may reassociate a float sum, TIR.VEC.4, so it is not compared bit for bit here.)"""
    return [np.asarray(relax_ref.evaluate(mod, "main", *arrays)),
            np.asarray(relax_jax.compile(mod)("main", *arrays))]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.float16).view(np.uint16)


CASES = [
    ("ij,jk->ik", [(4, 64), (64, 4)]),          # the review's finding: up to 0.0625 between the evaluators
    ("ij,jk,kl->il", [(3, 9), (9, 7), (7, 2)]),  # two reduction labels, three operands
    ("ikj,kj->i", [(3, 6, 8), (6, 8)]),          # loop order j then k, whatever the subscripts' order
    ("ji,ik->k", [(5, 7), (7, 3)]),
    ("bij,bjk->bik", [(2, 3, 16), (2, 16, 3)]),
    ("ii->", [(24, 24)]),                        # a diagonal
    ("ij,ij->", [(6, 8), (6, 8)]),
    ("ij,jk->ik", [(3, 1), (5, 4)]),             # a label of extent 1 broadcast
    ("i,j->ij", [(5,), (3,)]),                   # no reduction: the rounded product
]


@pytest.mark.parametrize("eq, shapes", CASES)
def test_einsum_float16_is_the_sequential_loop_on_both(eq, shapes):
    rng = np.random.default_rng(5)
    arrays = [(rng.standard_normal(s) * 2).astype(np.float16) for s in shapes]
    want = float16_sequential(eq, *arrays)
    mod = _module(shapes, f'R.einsum(({", ".join(f"x{i}" for i in range(len(shapes)))},), "{eq}")')
    for got in _both(mod, arrays):
        assert got.dtype == np.float16 and got.shape == want.shape
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_einsum_float16_differs_from_a_single_rounding():
    """The finding's shape separates the rules: the sequential loop is not the float64 contraction
    rounded once (the case would pass vacuously otherwise)."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((4, 64)) * 2).astype(np.float16)
    b = (rng.standard_normal((64, 4)) * 2).astype(np.float16)
    once = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    assert (_bits(float16_sequential("ij,jk->ik", a, b)) != _bits(once)).any()


def test_einsum_float16_ones_stop_at_2048():
    """A hand value: 3000 products of ones summed in float16 stop at 2048 (2048 + 1 rounds to even),
    as matmul's."""
    ones = [np.ones((1, 3000), np.float16), np.ones((3000, 1), np.float16)]
    for call in ('R.einsum((x0, x1), "ij,jk->ik")', "R.matmul(x0, x1)"):
        for got in _both(_module([(1, 3000), (3000, 1)], call), ones):
            assert got.tolist() == [[2048.0]], call


def test_einsum_and_matmul_agree_on_float16():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 5, 40)).astype(np.float16)
    b = rng.standard_normal((2, 40, 3)).astype(np.float16)
    e = _both(_module([a.shape, b.shape], 'R.einsum((x0, x1), "bij,bjk->bik")'), [a, b])
    m = _both(_module([a.shape, b.shape], "R.matmul(x0, x1)"), [a, b])
    for got in e + m:
        np.testing.assert_array_equal(_bits(got), _bits(float16_sequential("bij,bjk->bik", a, b)))


def test_einsum_float16_empty_reduction_and_ellipsis():
    """A reduction over no elements is 0; an ellipsis that is summed is iterated before the labels
    (the kernel's loop order) on both evaluators alike."""
    z = [np.zeros((2, 0), np.float16), np.zeros((0, 3), np.float16)]
    for got in _both(_module([(2, 0), (0, 3)], 'R.einsum((x0, x1), "ij,jk->ik")'), z):
        assert got.shape == (2, 3) and not got.any()
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((3, 4, 5)) * 4).astype(np.float16)
    b = (rng.standard_normal((3, 4, 5)) * 4).astype(np.float16)
    # "...i,...i->i": the ellipsis dims (3, 4) are the reduction, row-major
    want = float16_sequential("abi,abi->i", a, b)
    for got in _both(_module([a.shape, b.shape], 'R.einsum((x0, x1), "...i,...i->i")'), [a, b]):
        np.testing.assert_array_equal(_bits(got), _bits(want))

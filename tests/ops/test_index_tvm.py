"""The reference semantics of the indexing and scatter operators agree with TVM 0.25's compiled VM output
(many calls batched into one module per test; static and symbolic shapes, each module run at two
sizes). Cases where TVM is known to differ are in the op pages' "TVM divergences"."""

import numpy as np
import pytest

from ops_helpers import check_with_tvm

pytestmark = pytest.mark.tvm

rng = np.random.default_rng(3)


def f32(*s):
    return rng.standard_normal(s).astype("float32")


def test_take_and_slices():
    x = f32(5, 4)
    i = np.array([[0, 3], [4, 1]], "int64")
    j = np.array([-7, -1, 0, 2, 9], "int32")
    check_with_tvm('x: R.Tensor(("n", 4), "float32"), i: R.Tensor((2, 2), "int64"), j: R.Tensor((5,), "int32")',
                   ["R.take(x, i, axis=0)", "R.take(x, j, axis=1, mode='clip')", "R.take(x, j, axis=0, mode='wrap')",
                    "R.take(x, R.const(2, 'int64'), axis=1)",
                    "R.strided_slice(x, [0, 1], [1, 3], [4, 0], [2, -1])", "R.strided_slice(x, [1], [0], [100], [3])"],
                   [x, i, j], [f32(7, 4), i, j])
    check_with_tvm('x: R.Tensor((6, 5), "float32")',
                   ["R.strided_slice(x, [0], [-2], [100])", "R.strided_slice(x, [0, 1], [-1, -1], [-100, 0], [-2, -1])",
                    "R.strided_slice(x, [1], [1], [4], assume_inbound=True)"], [f32(6, 5)])


def test_dynamic_strided_slice():
    x = f32(6, 5)
    b, e, s = np.array([1, 0], "int64"), np.array([6, 5], "int64"), np.array([2, 3], "int64")
    check_with_tvm('x: R.Tensor((6, 5), "float32"), b: R.Tensor((2,), "int64"), e: R.Tensor((2,), "int64"), '
                   's: R.Tensor((2,), "int64")', ["R.dynamic_strided_slice(x, b, e, s)"],
                   [x, b, e, s], [x, np.array([5, 4], "int64"), np.array([0, 0], "int64"), np.array([-1, -2], "int64")])


def test_gathers_and_one_hot():
    x = f32(3, 4, 5)
    gi = rng.integers(0, 4, (3, 2, 5)).astype("int64")
    ni = np.array([[0, 1], [2, 3]], "int64")
    it = np.array([2, 0], "int64")
    oh = np.array([[0, 3], [5, 1]], "int32")
    check_with_tvm('x: R.Tensor(("n", 4, 5), "float32"), gi: R.Tensor(("n", 2, 5), "int64"), '
                   'ni: R.Tensor((2, 2), "int64"), it: R.Tensor((2,), "int64"), oh: R.Tensor((2, 2), "int32")',
                   ["R.gather_elements(x, gi, axis=1)", "R.gather_nd(x, ni)", "R.index_tensor(x, (it, it))",
                    "R.one_hot(oh, R.prim_value(1.0), R.prim_value(0.0), depth=4)",
                    "R.one_hot(oh, R.prim_value(T.int64(5)), R.prim_value(T.int64(-1)), depth=3, axis=0)"],
                   [x, gi, ni, it, oh])


def test_scatters_without_duplicates():
    """Distinct target positions: TVM's parallel update loops are then deterministic."""
    d = f32(4, 3)
    i = np.array([[0, 3, 1], [2, 1, 3]], "int64")
    u = f32(2, 3)
    ni = np.array([[3], [0]], "int64")
    nu = f32(2, 3)
    pi, pj = np.array([0, 3], "int64"), np.array([2, 0], "int64")
    pv = f32(2)
    src = f32(4, 2)
    exprs = ["R.scatter_elements(d, i, u, axis=0)", "R.scatter_elements(d, i, u, axis=0, reduction='add')",
             "R.scatter_elements(d, i, u, axis=0, reduction='max')", "R.scatter_nd(d, ni, nu)",
             "R.scatter_nd(d, ni, nu, reduction='mul')", "R.index_put(d, (pi, pj), pv)",
             "R.index_put(d, (pi, pj), pv, accumulate=True)", "R.slice_scatter(d, src, 0, 3, 2, axis=1)"]
    check_with_tvm('d: R.Tensor((4, 3), "float32"), i: R.Tensor((2, 3), "int64"), u: R.Tensor((2, 3), "float32"), '
                   'ni: R.Tensor((2, 1), "int64"), nu: R.Tensor((2, 3), "float32"), pi: R.Tensor((2,), "int64"), '
                   'pj: R.Tensor((2,), "int64"), pv: R.Tensor((2,), "float32"), src: R.Tensor((4, 2), "float32")',
                   exprs, [d, i, u, ni, nu, pi, pj, pv, src])

"""The reference semantics of the manipulation operators agree with TVM 0.25's compiled VM output
(many calls batched into one module per test; static and symbolic shapes, each module run at two
sizes). Cases where TVM is known to differ are in the op pages' "TVM divergences"."""

import numpy as np
import pytest

import relax_ref
from relax_ref.script.parser import parse

from ops_helpers import (
    MANIPULATE_AND_INDEX_CALLS, MANIPULATE_AND_INDEX_PARAMS, calls_text, check_with_tvm, run_tvm, same,
    tvm_module,
)

pytestmark = pytest.mark.tvm

rng = np.random.default_rng(3)


def f32(*s):
    return rng.standard_normal(s).astype("float32")


def test_static():
    x = f32(2, 3, 4)
    check_with_tvm('x: R.Tensor((2, 3, 4), "float32")',
                   ["R.reshape(x, (4, -1))", "R.reshape(x, (0, 12))", "R.permute_dims(x)",
                    "R.permute_dims(x, axes=[1, 2, 0])", "R.expand_dims(x, axis=[0, -1])",
                    "R.squeeze(R.expand_dims(x, 1))", "R.squeeze(x, axis=[0])", "R.flatten(x)",
                    "R.concat((x, x), axis=1)", "R.split(x, 3, axis=2)", "R.split(x, [1, 3], axis=2)",
                    "R.broadcast_to(x, R.shape([5, 2, 3, 4]))", "R.collapse_sum_to(x, R.shape([3, 1]))",
                    "R.repeat(x, 2, axis=1)", "R.repeat(x, 2)", "R.tile(x, [2, 1, 3])", "R.tile(x, [2, 1, 1, 2])",
                    "R.flip(x, axis=-1)", "R.stack((x, x), axis=2)", "R.meshgrid((R.flatten(x), R.flatten(x)))"],
                   [x], [f32(2, 3, 4)], rtol=1e-5)


def test_symbolic_two_sizes():
    check_with_tvm('x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n", 3), "float32")',
                   ["R.reshape(x, (-1,))", "R.permute_dims(x)", "R.expand_dims(x, 1)", "R.flatten(x)",
                    "R.concat((x, y), axis=1)", "R.split(x, 2, axis=0)", "R.split(y, [1, 2], axis=1)",
                    "R.repeat(x, 3, axis=0)", "R.tile(y, [2, 2])", "R.flip(x, axis=0)", "R.stack((y, y))",
                    'R.broadcast_to(y, R.shape([2, n, 3]))'],
                   [f32(4, 5), f32(4, 3)], [f32(6, 2), f32(6, 3)])


def test_integer_and_bool_dtypes():
    i = rng.integers(-9, 9, (3, 4)).astype("int32")
    b = rng.integers(0, 2, (3, 4)).astype(bool)
    check_with_tvm('i: R.Tensor((3, 4), "int32"), b: R.Tensor((3, 4), "bool")',
                   ["R.permute_dims(i)", "R.collapse_sum_to(i, R.shape([4]))", "R.tile(b, [2])", "R.reshape(b, (2, 6))",
                    "R.concat((b, b))"], [i, b])


def test_collapse_sum_like_and_zero_size():
    check_with_tvm('x: R.Tensor(("n", 4), "float32"), t: R.Tensor((1, 4), "float32")', ["R.collapse_sum_like(x, t)"],
                   [f32(3, 4), f32(1, 4)], rtol=1e-5)
    # a sum over an empty axis is 0 in relax-ref; TVM 0.25's kernel leaves the output uninitialized
    check_with_tvm('x: R.Tensor(("n", 4), "float32")', ["R.reshape(x, (4, -1))", "R.split(x, 2)", "R.concat((x, x))"],
                   [f32(3, 4)], [np.zeros((0, 4), "float32")])


def test_meshgrid_xy_differs_from_tvm_inference_only():
    """TVM infers (n, m) for meshgrid(indexing="xy") of (n,) and (m,) tensors, but its kernel returns
    numpy's (m, n); relax-ref infers (m, n). The values agree."""
    a, b = np.arange(2, dtype="int64"), np.arange(3, dtype="int64")
    text = calls_text('a: R.Tensor((2,), "int64"), b: R.Tensor((3,), "int64")', ['R.meshgrid((a, b), indexing="xy")'])
    (theirs,) = run_tvm(text, [("main", [a, b])])
    ours = relax_ref.evaluate(parse(text), "main", a, b)
    want = (tuple(np.meshgrid(a, b)),)  # main returns (r0,)
    same(ours, want)
    same(theirs, want)


def test_tvm_printed_calls_parse_with_the_same_struct_info():
    """TVM's print of calls of every manipulation/indexing operator (positional strided_slice tuples,
    ``mode="fast"``, ``axes=None`` ...) parses here and gets the same struct info."""
    pytest.importorskip("tvm")
    text = calls_text(MANIPULATE_AND_INDEX_PARAMS.format('"n"', '"n"'), MANIPULATE_AND_INDEX_CALLS)
    theirs = tvm_module(text)
    ours = parse(theirs.script(), check_well_formed=False)
    direct = parse(text, check_well_formed=False)
    a = [b.var.struct_info for b in ours["main"].body.blocks[0].bindings]
    b = [b.var.struct_info for b in direct["main"].body.blocks[0].bindings]
    assert len(a) == len(b)
    from relax_ref.ops.common import describe_sinfo  # symbolic variables compared by name

    for x, y in zip(a, b):
        assert describe_sinfo(x) == describe_sinfo(y), (x, y)

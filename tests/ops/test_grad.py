"""The backward operators agree with ``jax.vjp`` of their forward operators (a property test over
shapes, axes, indices, reductions, ignored targets and pooling windows); the forward operators are
compiled by the JAX executor (``relax_jax``) from Relax programs, the backward ones evaluated by the
reference interpreter (spec/ops/grad.*.md). The checkpoint markers are the identity on values; the
pooling gradients' legalizations compute the conformance cases' values."""

import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import relax_jax
import relax_ref
from relax_ref.transform.legalize_ops import LegalizeOps

from ops_helpers import legalized_cases_agree

HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n"


def _module(params, body):
    plist = ", ".join(f"{n}: {a}" for n, a in params)
    return HEAD + f"@I.ir_module\nclass Module:\n    @R.function\n    def main({plist}):\n" + "".join(
        f"        {ln}\n" for ln in body.strip().split("\n"))


def _t(shape, dtype="float32"):
    return f'R.Tensor(({", ".join(map(str, shape))}{"," if len(shape) == 1 else ""}), "{dtype}")'


@st.composite
def take_problems(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axis = draw(st.one_of(st.none(), st.integers(0, rank - 1)))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    idx = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6))
    seed = draw(st.integers(0, 2 ** 16))
    return shape, axis, np.array(idx, "int64"), seed


@settings(max_examples=12, deadline=None)
@given(take_problems())
def test_take_backward_is_the_vjp_of_take(problem):
    shape, axis, idx, seed = problem
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype("float32")
    ax = "" if axis is None else f", axis={axis}"
    # without an axis the forward is take of the flattened x (relax.take itself needs a 1-D x then)
    fwd_body = (f"y = R.take(x, i{ax})" if axis is not None
                else f"f = R.reshape(x, R.shape([{int(np.prod(shape))}]))\ny = R.take(f, i)")
    fwd = relax_jax.compile(relax_ref.parse(_module([("x", _t(shape)), ("i", _t(idx.shape, "int64"))],
                                                    fwd_body + "\nreturn y"))).as_jax_function("main", checks="off")
    y, vjp = jax.vjp(lambda a: fwd(a, idx), x)
    g = rng.standard_normal(y.shape).astype("float32")
    (want,) = vjp(g)
    bwd = relax_ref.parse(_module([("g", _t(g.shape)), ("x", _t(shape)), ("i", _t(idx.shape, "int64"))],
                                  f"y = R.grad.take_backward(g, x, i{ax})\nreturn y"))
    got = relax_ref.evaluate(bwd, "main", g, x, idx)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


@st.composite
def nll_problems(draw):
    batch = draw(st.integers(1, 4))
    classes = draw(st.integers(1, 4))
    extra = draw(st.sampled_from([(), (2,)]))
    red = draw(st.sampled_from(["none", "sum", "mean"]))
    ign = draw(st.sampled_from([-100, 0, 1]))
    targets = draw(st.lists(st.integers(0, classes - 1), min_size=batch * int(np.prod(extra)),
                            max_size=batch * int(np.prod(extra))))
    weighted = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 16))
    # (checks are off in the compiled forward: the targets are valid by construction)
    return batch, classes, extra, red, ign, np.array(targets, "int64").reshape((batch,) + extra), weighted, seed


@settings(max_examples=12, deadline=None)
@given(nll_problems())
def test_nll_loss_backward_is_the_vjp_of_nll_loss(problem):
    batch, classes, extra, red, ign, t, weighted, seed = problem
    if red == "mean" and np.all(t == ign):
        return          # the forward mean divides by a zero weight sum: NaN on both sides
    rng = np.random.default_rng(seed)
    p_shape = (batch, classes) + extra
    p = rng.standard_normal(p_shape).astype("float32")
    w = rng.uniform(0.5, 2.0, classes).astype("float32")
    params = [("p", _t(p_shape)), ("t", _t(t.shape, "int64"))] + ([("w", _t((classes,)))] if weighted else [])
    wa = ", w" if weighted else ""
    attrs = f'reduction="{red}", ignore_index={ign}'
    fwd = relax_jax.compile(relax_ref.parse(_module(params, f"y = R.nn.nll_loss(p, t{wa}, {attrs})\nreturn y"))
                            ).as_jax_function("main", checks="off")
    extra_args = (w,) if weighted else ()
    y, vjp = jax.vjp(lambda a: fwd(a, t, *extra_args), p)
    g = rng.standard_normal(y.shape).astype("float32")
    (want,) = vjp(g)
    bwd = relax_ref.parse(_module([("g", _t(g.shape))] + params,
                                  f"y = R.grad.nll_loss_backward(g, p, t{wa}, {attrs})\nreturn y"))
    got = relax_ref.evaluate(bwd, "main", g, p, t, *extra_args)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["no_grad", "start_checkpoint", "end_checkpoint"])
def test_markers_are_the_identity(op):
    mod = relax_ref.parse(_module([("x", _t((3,)))], f"y = R.grad.{op}(x)\nz = R.multiply(y, y)\nreturn (y, z)"))
    x = np.array([1.0, -2.0, 3.0], "float32")
    y, z = relax_ref.evaluate(mod, "main", x)
    np.testing.assert_array_equal(y, x)
    f = relax_jax.compile(mod).as_jax_function("main")
    np.testing.assert_allclose(jax.grad(lambda a: f(a)[1].sum())(x), 2 * x)


@st.composite
def pool_problems(draw):
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=2, max_size=2)))
    strides = tuple(draw(st.lists(st.integers(1, 3), min_size=2, max_size=2)))
    dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=2, max_size=2)))
    padding = tuple(draw(st.lists(st.integers(0, 1), min_size=4, max_size=4)))
    padding = tuple(min(p, k - 1) for p, k in zip(padding, kernel + kernel))
    spatial = tuple(dilation[i] * (kernel[i] - 1) + 1 + draw(st.integers(0, 3)) for i in range(2))
    ceil_mode = draw(st.booleans())
    include_pad = draw(st.booleans())
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    seed = draw(st.integers(0, 2 ** 16))
    return kernel, strides, dilation, padding, spatial, ceil_mode, include_pad, layout, seed


@settings(max_examples=16, deadline=None)
@given(st.sampled_from(["max", "avg"]), pool_problems())
def test_pool_backward_is_the_vjp_of_the_pool(kind, problem):
    kernel, strides, dilation, padding, spatial, ceil_mode, include_pad, layout, seed = problem
    rng = np.random.default_rng(seed)
    shape = (2, 3) + spatial if layout == "NCHW" else (2,) + spatial + (3,)
    x = rng.standard_normal(shape).astype("float32")      # distinct values: no ties for the maximum
    attrs = (f"pool_size={list(kernel)}, strides={list(strides)}, dilation={list(dilation)}, padding={list(padding)}, "
             f"ceil_mode={ceil_mode}, count_include_pad={include_pad}, layout=\"{layout}\"")
    fwd = relax_jax.compile(relax_ref.parse(_module([("x", _t(shape))], f"y = R.nn.{kind}_pool2d(x, {attrs})\nreturn y"))
                            ).as_jax_function("main", checks="off")
    y, vjp = jax.vjp(fwd, x)
    g = rng.standard_normal(y.shape).astype("float32")
    (want,) = vjp(g)
    bwd = relax_ref.parse(_module([("g", _t(g.shape)), ("x", _t(shape))],
                                  f"y = R.grad.{kind}_pool2d_backward(g, x, {attrs})\nreturn y"))
    np.testing.assert_allclose(relax_ref.evaluate(bwd, "main", g, x), np.asarray(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_backward_legalizes_to_kernels_computing_the_cases(kind):
    text = _module([("g", _t((1, 1, 2, 2))), ("x", _t((1, 1, 4, 4)))],
                   f"y = R.grad.{kind}_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2])\nreturn y")
    assert "R.grad." not in LegalizeOps()(relax_ref.parse(text)).script()
    assert legalized_cases_agree("op_grad", tag=f"op:grad.{kind}_pool2d_backward") >= 3


@pytest.mark.parametrize("attrs,layout,topi", [
    ("pool_size=[5, 5], strides=[2, 2], padding=[2, 1, 2, 1], ceil_mode=True", "NCHW", True),
    ("pool_size=[3, 2], strides=[1, 2], padding=[1, 0, 2, 1], count_include_pad=True", "NHWC", True),
    ("pool_size=[2, 2], strides=[2, 2], ceil_mode=True, count_include_pad=True", "NCHW", False),
])
def test_avg_pool2d_backward_legalizes_as_topi(attrs, layout, topi):
    """OP.grad.avg_pool2d_backward.KERNEL.1: TOPI's kernel (a reduction over the candidate output windows
    ``wh``, ``ww``) where its divisor is the operator's; the values are the reference's on both
    evaluators (as for the kernel it replaces, within a rounding of the float sum)."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 7, 6)).astype("float32")
    head = "from tvm.script import ir as I, relax as R, tirx as T\n@I.ir_module\nclass Module:\n    @R.function\n"
    fwd = relax_ref.parse(head + '    def main(x: R.Tensor((1, 2, 7, 6), "float32")):\n'
                          f'        y = R.nn.avg_pool2d(x, {attrs})\n        return y\n')
    gshape = relax_ref.evaluate(fwd, "main", x).shape
    if layout == "NHWC":
        x, gshape = x.transpose(0, 2, 3, 1).copy(), (gshape[0], gshape[2], gshape[3], gshape[1])
    g = rng.standard_normal(gshape).astype("float32")
    mod = relax_ref.parse(head + f'    def main(g: R.Tensor({tuple(gshape)}, "float32"), x: R.Tensor({x.shape}, "float32")):\n'
                          f'        y = R.grad.avg_pool2d_backward(g, x, {attrs}, layout="{layout}")\n        return y\n')
    legal = LegalizeOps()(mod)
    assert ("wh, ww" in legal.script()) == topi
    want = relax_ref.evaluate(mod, "main", g, x)
    for got in (relax_ref.evaluate(legal, "main", g, x), relax_jax.compile(legal)("main", g, x)):
        got = np.asarray(got)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)

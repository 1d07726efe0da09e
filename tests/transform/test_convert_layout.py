"""ConvertLayout (PASS.LAYOUT.*): layouts, hand cases and a property test on generated programs."""

import numpy as np
import pytest
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.testing import GenConfig, check_pass
from relax_ref.transform import ConvertLayout
from relax_ref.transform.layout import (
    SLayout, can_prove_layout_transform, find_axis, follow_decision, forward_index, transpose_like,
    transpose_sub_layout_str_like,
)

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


def test_layout_strings():
    nchw4c = SLayout("NCHW4c")
    assert (nchw4c.ndim, nchw4c.ndim_primal, nchw4c.name) == (5, 4, "NCHW4c")
    assert transpose_like(SLayout("ABCD"), SLayout("NCHW"), SLayout("NHWC")).name == "ACDB"
    assert transpose_sub_layout_str_like("ABCD", "NCHW", "NCHW4c") == "ABCD4b"
    assert find_axis(SLayout("ACDB"), 1) == 3 and find_axis(SLayout("ABCD4b"), 3) == 3
    assert follow_decision(SLayout("BA"), 4).name == "ABDC"
    i = [P.PrimVar(f"i{k}", "int32") for k in range(4)]
    assert [P.to_str(e) for e in forward_index(SLayout("NCHW"), SLayout("NCHW4c"), i)] == \
        ["i0", "i1 // 4", "i2", "i3", "i1 % 4"]
    shape = [P.IntImm(v, "int64") for v in (2, 8, 5, 5)]
    assert can_prove_layout_transform(SLayout("NCHW"), SLayout("NCHW4c"), shape)
    assert not can_prove_layout_transform(SLayout("NCHW"), SLayout("NCHW3c"), shape)
    with pytest.raises(RelaxError):
        SLayout("NC4")


CONV = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"), b: R.Tensor((1, 4, 1, 1), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            s = R.sum(r, axis=[1], keepdims=True)
            gv = R.nn.max_pool2d(s, pool_size=[2, 2])
            R.output(gv)
        return gv
'''


def test_conv_chain_to_nhwc():
    mod = _mod(CONV)
    out = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(mod)
    calls = [b.value for b in out["main"].body.blocks[0].bindings]
    conv = next(c for c in calls if c.op.name == "relax.nn.conv2d")
    assert (conv.attrs["data_layout"], conv.attrs["kernel_layout"]) == ("NHWC", "OHWI")
    pool = next(c for c in calls if c.op.name == "relax.nn.max_pool2d")
    assert pool.attrs["layout"] == "NHWC"
    red = next(c for c in calls if c.op.name == "relax.sum")
    assert list(red.attrs["axis"]) == [3]
    assert calls[-1].op.name == "relax.permute_dims"            # back to NCHW for the output
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 3, 8, 8), (4, 3, 3, 3), (1, 4, 1, 1))]
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", *args), relax_ref.evaluate(mod, "main", *args),
                               rtol=1e-5, atol=1e-5)


STACK = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 5), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"), y: R.Tensor((4,), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w)
            s = R.stack((c, c), axis=AXIS)
            t = R.stack((y, y), axis=0)
            R.output(s, t)
        return (s, t)
'''


@pytest.mark.parametrize("axis,physical", [(0, 0), (1, 3), (2, 1), (4, 4), (-1, 4)])
def test_stack_of_converted_tensors(axis, physical):
    """(PASS.LAYOUT.8) stack in the converted layout, and back to the initial one for the output."""
    mod = _mod(STACK.replace("AXIS", str(axis)))
    out = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(mod)
    stacks = [b.value for b in out["main"].body.blocks[0].bindings if b.value.op.name == "relax.stack"]
    assert [int(c.attrs["axis"]) for c in stacks] == [physical, 0]
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 3, 5, 5), (4, 3, 3, 3), (4,))]
    for got, want in zip(relax_ref.evaluate(out, "main", *args), relax_ref.evaluate(mod, "main", *args)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


EXPAND = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 5), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w)
            e = R.expand_dims(c, axis=AXES)
            R.output(e)
        return e
'''


@pytest.mark.parametrize("axes,back", [
    ([1], [0, 1, 4, 2, 3]),             # NHWC -> (N, 1, H, W, C): layout ABDEC
    ([-1], [0, 3, 1, 2, 4]),            # -> (N, H, W, C, 1): ACDBE
    ([0, 2], [0, 1, 2, 5, 3, 4]),       # -> (1, N, 1, H, W, C): ABCEFD
    ([-1, 1], [0, 1, 4, 2, 3, 5]),      # -> (N, 1, H, W, C, 1): ABDECF
])
def test_expand_dims_of_a_converted_tensor(axes, back):
    """expand_dims keeps the operand's layout (its axes attribute unchanged, each new axis where the
    attribute puts it in the output); the permutation back to the initial layout is the inverse of the
    output layout derived by hand."""
    mod = _mod(EXPAND.replace("AXES", str(axes)))
    out = ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(mod)
    calls = [b.value for b in out["main"].body.blocks[0].bindings]
    assert [c.op.name for c in calls[-3:]] == ["relax.nn.conv2d", "relax.expand_dims", "relax.permute_dims"]
    assert [int(a) for a in calls[-2].attrs["axis"]] == axes
    assert [int(a) for a in calls[-1].attrs["axes"]] == back
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 3, 5, 5), (4, 3, 3, 3))]
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", *args), relax_ref.evaluate(mod, "main", *args),
                               rtol=1e-5, atol=1e-5)


def test_packed_layouts():
    mod = _mod(CONV)
    out = ConvertLayout({"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]})(mod)   # 3 channels do not split by 4
    relax_ref.assert_structural_equal(out, mod)
    four = _mod(CONV.replace("(2, 3, 8, 8)", "(2, 4, 8, 8)").replace("(4, 3, 3, 3)", "(4, 4, 3, 3)"))
    out = ConvertLayout({"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]})(four)  # PASS.LAYOUT.7
    convs = [b.value for b in out["main"].body.blocks[0].bindings
             if isinstance(b.value, rx.Call) and getattr(b.value.op, "name", "") == "relax.nn.conv2d"]
    assert [str(c.attrs["data_layout"]) for c in convs] == ["NCHW4c"]
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32") for s in ((2, 4, 8, 8), (4, 4, 3, 3), (1, 4, 1, 1))]
    for got, want in zip(relax_ref.evaluate(out, "main", *args), relax_ref.evaluate(four, "main", *args)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# Programs around a convolution: conv2d, then a chain of operators with layout inference
_STEPS = [
    "R.nn.relu({x})", "R.tanh({x})", "R.add({x}, R.const(0.5, 'float32'))", "R.multiply({x}, {x})",
    "R.sum({x}, axis=[1], keepdims=True)", "R.mean({x}, axis=[2, 3], keepdims=True)",
    "R.nn.max_pool2d({x}, pool_size=[2, 2], padding=[1, 1, 1, 1])", "R.nn.avg_pool2d({x}, pool_size=[1, 1])",
    "R.nn.softmax({x}, axis=1)", "R.concat(({x}, {x}), axis=1)", "R.flip({x}, axis=3)",
    "R.permute_dims({x}, axes=[0, 2, 3, 1])", "R.nn.conv2d({x}, R.const(np_w, 'float32'))",
    "R.strided_slice({x}, axes=[1], begin=[0], end=[1])", "R.expand_dims({x}, axis=[0])",
]


@st.composite
def conv_programs(draw):
    n, c, h, o, k = (draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(3, 6)),
                     draw(st.integers(1, 4)), draw(st.integers(1, 3)))
    lines = ["y0 = R.nn.conv2d(x, w)"]
    cur, rank = "y0", 4
    for i in range(draw(st.integers(0, 4))):
        step = draw(st.sampled_from(_STEPS))
        if rank != 4 and ("pool" in step or "conv2d" in step or "axis=3" in step or "[2, 3]" in step
                          or "axes=[0, 2, 3, 1]" in step):
            continue
        if "conv2d" in step:
            continue                    # a second convolution needs a weight of the current channels
        lines.append(f"y{i + 1} = {step.format(x=cur)}")
        cur = f"y{i + 1}"
        if "expand_dims" in step:
            rank += 1
    body = "\n".join("            " + line for line in lines)
    text = f"""
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(({n}, {c}, {h}, {h}), "float32"), w: R.Tensor(({o}, {c}, {k}, {k}), "float32")):
        with R.dataflow():
{body}
            R.output({cur})
        return {cur}
"""
    return _mod(text)


@pytest.mark.parametrize("desired", [
    {"relax.nn.conv2d": ["NHWC", "OHWI"]},
    {"relax.nn.conv2d": ["NHWC", "HWIO"]},
    {"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]},
], ids=["NHWC-OHWI", "NHWC-HWIO", "packed"])
def test_preserves_meaning_around_convolutions(desired):
    check_pass(ConvertLayout(desired), strategy=conv_programs(), max_examples=20)


_OPS = ("relax.nn.conv2d", "relax.add", "relax.multiply", "relax.nn.relu", "relax.tanh", "relax.sum", "relax.mean",
        "relax.permute_dims", "relax.concat", "relax.split", "relax.nn.max_pool2d", "relax.nn.avg_pool2d",
        "relax.expand_dims", "relax.squeeze", "relax.nn.softmax", "relax.strided_slice", "relax.flip",
        "relax.nn.layer_norm", "relax.repeat", "relax.tile")


@pytest.mark.parametrize("desired", [
    {"relax.nn.conv2d": ["NHWC", "OHWI"]},
    {"relax.nn.conv2d": ["NHWC", "HWIO"]},
    {"relax.nn.conv2d": ["NCHW", "OIHW"], "relax.nn.conv1d": ["NWC", "OWI"]},
], ids=["NHWC-OHWI", "NHWC-HWIO", "noop"])
def test_preserves_meaning(desired):
    check_pass(ConvertLayout(desired), config=GenConfig(ops=_OPS, features=frozenset({"dataflow", "tuple",
                                                                                        "symbolic"})),
               max_examples=20)

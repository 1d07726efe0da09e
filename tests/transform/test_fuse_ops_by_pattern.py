"""relax_ref.dpl (DPL.*), FuseOpsByPattern and MergeCompositeFunctions (PASS.FUSEPAT.*, PASS.MERGECOMP.*)."""

import numpy as np
import pytest

import relax_ref
from relax_ref.dpl import (
    has_dtype, is_const, is_op, is_tuple, is_tuple_get_item, is_var, make_fused_bias_activation_pattern, match,
    rewrite_call, wildcard, extract_matched_expr,
)
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.testing import GenConfig, check_pass
from relax_ref.transform import FuseOpsByPattern, MergeCompositeFunctions

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


BLOCK = _mod('''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(R.const(1.0, "float32"), y)
            r = R.nn.relu(z)
            t = (r, z)
            u = t[1]
            R.output(u)
        return u
''')


def _bindings(mod=BLOCK):
    bs = mod["main"].body.blocks[0].bindings
    return bs, {b.var: b.value for b in bs}


def test_match_through_bindings_commutative_and_memo():
    bs, var2val = _bindings()
    relu = bs[2].value
    pat = make_fused_bias_activation_pattern("relax.matmul", with_bias=True, activation="relax.nn.relu")
    assert match(pat, relu, var2val)
    assert not match(pat, relu)                             # without the bindings the add is a variable
    same = wildcard()
    assert not match(is_op("relax.add")(same, same), bs[1].value, var2val)   # one pattern, one expression
    m = extract_matched_expr(pat, relu, var2val)
    assert m[pat] is relu and sum(isinstance(v, rx.Call) for v in m.values()) == 3


def test_leaf_and_combinator_patterns():
    bs, var2val = _bindings()
    add = bs[1].value
    assert match(is_op("relax.add")(is_const(), wildcard()), add)
    assert match(is_op("relax.add")(wildcard(), is_const()), add)          # commutative
    assert match(is_op("relax.add")(wildcard(), wildcard()).has_dtype("float32"), add)
    assert not match(has_dtype("float16"), bs[1].var)
    assert match(wildcard().has_shape([2, 3]), bs[1].var)
    assert match(is_op("relax.multiply") | is_op("relax.add"), add.op)
    assert not match(~is_op("relax.add"), add.op)
    assert match(is_op("relax.matmul")(is_var("x"), is_var()), bs[0].value)
    assert not match(is_op("relax.matmul")(is_var("w"), wildcard()), bs[0].value)
    tup = is_tuple([wildcard(), wildcard()])
    assert match(is_tuple_get_item(tup, 1), bs[4].value, var2val)
    assert not match(is_tuple_get_item(tup, 0), bs[4].value, var2val)
    with pytest.raises(RelaxError):
        is_op("relax.no_such_op")


def test_rewrite_call():
    def to_subtract(e, m):
        return rx.Call(rx.Op("relax.subtract"), e.args)

    f = rewrite_call(is_op("relax.add")(wildcard(), wildcard()), to_subtract, BLOCK["main"])
    assert f.body.blocks[0].bindings[1].value.op.name == "relax.subtract"
    same = rewrite_call(is_op("relax.divide")(wildcard(), wildcard()), to_subtract, BLOCK["main"])
    assert same is BLOCK["main"]


CONV = '''
@I.ir_module
class M:
    @R.function
    def main(d: R.Tensor((1, 4, 8, 8), "float32"), w1: R.Tensor((4, 4, 3, 3), "float32"),
             w2: R.Tensor((4, 4, 3, 3), "float32")):
        with R.dataflow():
            a = R.nn.conv2d(d, w1, padding=(1, 1))
            b = R.nn.relu(a)
            c = R.nn.conv2d(b, w2, padding=(1, 1))
            e = R.add(b, c)
            R.output(e)
        return e
'''

CONV_RELU = make_fused_bias_activation_pattern("relax.nn.conv2d", activation="relax.nn.relu")
CONV_ONLY = make_fused_bias_activation_pattern("relax.nn.conv2d")


def test_fuse_ops_by_pattern_groups_and_names():
    out = FuseOpsByPattern([("dnnl.conv2d_relu", CONV_RELU), ("dnnl.conv2d", CONV_ONLY)])(_mod(CONV))
    names = sorted(n for n in out if n != "main")
    assert names == ["fused_relax_nn_conv2d", "fused_relax_nn_conv2d_relax_nn_relu"]
    assert out["fused_relax_nn_conv2d_relax_nn_relu"].attrs["Composite"] == "dnnl.conv2d_relu"
    assert out["fused_relax_nn_conv2d"].attrs["Primitive"]
    x = [np.random.default_rng(0).standard_normal(s).astype("float32") for s in ((1, 4, 8, 8), (4, 4, 3, 3), (4, 4, 3, 3))]
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", *x), relax_ref.evaluate(_mod(CONV), "main", *x),
                               rtol=1e-5, atol=1e-5)
    annotated = FuseOpsByPattern([("dnnl.conv2d_relu", CONV_RELU)], annotate_codegen=True)(_mod(CONV))
    wrapper = annotated["fused_relax_nn_conv2d_relax_nn_relu_dnnl"]
    assert wrapper.attrs["Codegen"] == "dnnl" and wrapper.global_symbol == "fused_relax_nn_conv2d_relax_nn_relu_dnnl"


def test_check_and_bad_names():
    never = FuseOpsByPattern([("dnnl.conv2d", CONV_ONLY, {}, lambda ctx: False)])
    mod = _mod(CONV)
    assert relax_ref.structural_equal(never(mod), mod)
    with pytest.raises(RelaxError):
        FuseOpsByPattern(["not a pattern"])


def test_merge_composite_functions():
    fused = FuseOpsByPattern([("dnnl.conv2d_relu", CONV_RELU), ("dnnl.conv2d", CONV_ONLY),
                              ("other.add", is_op("relax.add")(wildcard(), wildcard()))])(_mod(CONV))
    merged = MergeCompositeFunctions()(fused)
    offloaded = [n for n in merged if merged[n].attrs.get("Codegen")]
    assert sorted(merged[n].attrs["Codegen"] for n in offloaded) == ["dnnl", "other"]
    dnnl = next(merged[n] for n in offloaded if merged[n].attrs["Codegen"] == "dnnl")
    assert dnnl.global_symbol.endswith("_dnnl")
    x = [np.ones(s, "float32") for s in ((1, 4, 8, 8), (4, 4, 3, 3), (4, 4, 3, 3))]
    np.testing.assert_allclose(relax_ref.evaluate(merged, "main", *x), relax_ref.evaluate(_mod(CONV), "main", *x))


_ANY_BINARY = is_op("relax.add")(wildcard(), wildcard()) | is_op("relax.multiply")(wildcard(), wildcard()) | \
    is_op("relax.subtract")(wildcard(), wildcard())
_PATTERNS = [
    ("cg.binary_unary", is_op("relax.nn.relu")(_ANY_BINARY) | is_op("relax.exp")(_ANY_BINARY)),
    ("cg.binary", _ANY_BINARY),
    ("other.matmul", is_op("relax.matmul")(wildcard(), wildcard())),
    ("other.reduce", is_op("relax.sum")(wildcard()) | is_op("relax.max")(wildcard())),
]


@pytest.mark.parametrize("bind_constants", [True, False])
def test_fuse_ops_by_pattern_preserves_meaning(bind_constants):
    check_pass(FuseOpsByPattern(_PATTERNS, bind_constants=bind_constants), config=GenConfig(), max_examples=15)


def test_annotate_codegen_preserves_meaning():
    check_pass(FuseOpsByPattern(_PATTERNS, annotate_codegen=True), config=GenConfig(), max_examples=15)


def test_merge_composite_functions_preserves_meaning():
    check_pass(MergeCompositeFunctions(), prepare=[FuseOpsByPattern(_PATTERNS)], config=GenConfig(),
               max_examples=15)

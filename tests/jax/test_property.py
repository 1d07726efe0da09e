"""Property: random well-formed programs over registered operators, with a symbolic size, give the
same results on the reference interpreter and on the JAX executor (bucketing on) at several sizes --
sizes that share a bucket and sizes that do not."""

import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_jax
import relax_ref

C = 6
EXAMPLES = 300 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 12

# kinds of values: "A" (n, C), "V" (n,), "K" (C,)
UNARY_A = ["R.tanh({})", "R.sigmoid({})", "R.nn.relu({})", "R.negative({})", "R.abs({})", "R.cos({})",
           "R.square(R.tanh({}))", "R.nn.silu({})", "R.nn.gelu({})", "R.exp(R.tanh({}))",
           "R.nn.softmax({}, axis=-1)", "R.nn.softmax({}, axis=0)", "R.cumsum({}, axis=0)", "R.cumsum({}, axis=1)",
           "R.sort({}, axis=0)", "R.flip({}, axis=0)", "R.nn.rms_norm({}, wk, axes=[-1])",
           "R.nn.layer_norm({}, wk, wk, axes=[-1])", "R.matmul({}, w)", "R.tril(R.matmul({}, w), 0)",
           "R.nn.log_softmax(R.tanh({}), axis=1)"]
BINARY_A = ["R.add({}, {})", "R.subtract({}, {})", "R.multiply({}, {})", "R.maximum({}, {})", "R.minimum({}, {})"]
A_TO_V = ["R.sum({}, axis=[1])", "R.max({}, axis=[1])", "R.min({}, axis=[1])", "R.mean({}, axis=[1])",
          "R.variance({}, axis=[1])"]
A_TO_K = ["R.sum({}, axis=[0])", "R.max({}, axis=[0])", "R.mean({}, axis=[0])",
          "R.sum(R.concat([{}, {}], axis=0), axis=[0])", "R.prod(R.tanh({}), axis=[0])"]
V_OPS = ["R.cumsum({}, axis=0)", "R.exp(R.tanh({}))", "R.sort({})", "R.nn.softmax({}, axis=0)"]
MIX = ["R.add({a}, R.expand_dims({v}, axis=[1]))", "R.multiply({a}, {k})", "R.subtract({a}, R.reshape({k}, R.shape([1, 6])))"]


@st.composite
def programs(draw):
    vals = {"A": ["x", "y"], "V": [], "K": ["wk"]}
    lines = []
    for i in range(draw(st.integers(2, 7))):
        kinds = ["unary", "binary", "a2v", "a2k", "mix"] + (["v"] if vals["V"] else [])
        kind = draw(st.sampled_from(kinds))
        name = f"t{i}"
        pick = lambda k: draw(st.sampled_from(vals[k]))  # noqa: E731
        if kind == "unary":
            e, out = draw(st.sampled_from(UNARY_A)).format(pick("A")), "A"
        elif kind == "binary":
            e, out = draw(st.sampled_from(BINARY_A)).format(pick("A"), pick("A")), "A"
        elif kind == "a2v":
            e, out = draw(st.sampled_from(A_TO_V)).format(pick("A")), "V"
        elif kind == "a2k":
            a = pick("A")
            e, out = draw(st.sampled_from(A_TO_K)).format(a, a), "K"
        elif kind == "v":
            e, out = draw(st.sampled_from(V_OPS)).format(pick("V")), "V"
        else:
            tpl = draw(st.sampled_from(MIX))
            if "{v}" in tpl and not vals["V"]:
                tpl = MIX[1]
            e, out = tpl.format(a=pick("A"), v=pick("V") if vals["V"] else "", k=pick("K")), "A"
        lines.append(f"            {name} = {e}")
        vals[out].append(name)
    res = [vals["A"][-1]] + ([vals["V"][-1]] if vals["V"] else []) + [vals["K"][-1]]
    outs = {"A": 'R.Tensor(("n", 6), "float32")', "V": 'R.Tensor(("n",), "float32")', "K": 'R.Tensor((6,), "float32")'}
    kinds = ["A"] + (["V"] if vals["V"] else []) + ["K"]
    ret = "R.Tuple(" + ", ".join(outs[k] for k in kinds) + ")"
    body = "\n".join(lines)
    return f'''from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), "float32"), y: R.Tensor(("n", 6), "float32"), w: R.Tensor((6, 6), "float32"),
             wk: R.Tensor((6,), "float32")) -> {ret}:
        n = T.int64()
        with R.dataflow():
{body}
            r = ({", ".join(res)},)
            R.output(r)
        return r
'''


@settings(max_examples=EXAMPLES)
@given(programs(), st.integers(0, 2 ** 31 - 1))
def test_random_programs_agree_with_the_reference(text, seed):
    mod = relax_ref.parse(text)
    exe = relax_jax.compile(mod, pad_poison=True)
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((C, C)) / 3).astype(np.float32)
    wk = (1 + 0.1 * rng.standard_normal(C)).astype(np.float32)
    for n in (3, 4, 1, 7):
        x = rng.standard_normal((n, C)).astype(np.float32)
        y = rng.standard_normal((n, C)).astype(np.float32)
        want = relax_ref.evaluate(mod, "main", x, y, w, wk)
        got = exe("main", x, y, w, wk)
        assert len(got) == len(want)
        for g, r in zip(got, want):
            g = np.asarray(g)
            assert g.shape == r.shape, text
            np.testing.assert_allclose(g, r, rtol=2e-4, atol=2e-5, err_msg=text)
    # n = 3 and 4 share bucket 4; every function compiled at most once per bucket (1, 4, 8) or per exact shape
    assert exe.stats.compiles <= 3 + exe.stats.fallbacks * 4

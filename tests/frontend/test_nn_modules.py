"""The module library (relax_ref.frontend.nn): each module builds a well-formed function with
symbolic batch / sequence (and cache) dimensions whose inferred shapes are right, and the reference
interpreter computes what an independent numpy formula computes at several sizes."""

import numpy as np
import pytest

import relax_ref
from relax_ref.static.well_formed import check_well_formed
from relax_ref.builder import BlockBuilder, Tensor, var
from relax_ref.errors import StructInfoError, WellFormedError
from relax_ref.frontend import nn

SIZES = ((1, 1), (2, 3), (3, 5))


def build(module, inputs, body, name="main"):
    bb = BlockBuilder()
    nn.build_function(bb, name, inputs, module, body)
    mod = bb.get()
    check_well_formed(mod)
    relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script(dialect="tvm")))
    return mod


def run(mod, module, *inputs):
    return relax_ref.evaluate(mod, "main", *inputs, *module.param_arrays())


def rand(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def rms(x, w, eps=1e-5):
    x = x.astype(np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def test_linear_embedding_rmsnorm_mlp_at_several_sizes():
    lin = nn.Linear(8, 6, bias=True).init_params(1)
    emb = nn.Embedding(10, 8).init_params(2)
    norm = nn.RMSNorm(8).init_params(3)
    mlp = nn.GatedMLP(8, 12).init_params(4)
    bb0 = BlockBuilder()
    b, n = bb0.sym_var("b"), bb0.sym_var("n")
    x = var("x", Tensor((b, n, 8), "float32"))
    ids = var("ids", Tensor((b, n), "int32"))
    mods = {
        "linear": (lin, build(lin, [x], lin.forward)),
        "norm": (norm, build(norm, [var("x", Tensor((b, n, 8), "float32"))], norm.forward)),
        "mlp": (mlp, build(mlp, [var("x", Tensor((b, n, 8), "float32"))], mlp.forward)),
        "embed": (emb, build(emb, [ids], emb.forward)),
    }
    expected = {"linear": (b, n, 6), "norm": (b, n, 8), "mlp": (b, n, 8), "embed": (b, n, 8)}
    for name, (module, mod) in mods.items():
        assert mod["main"].ret_struct_info == Tensor(expected[name], "float32"), name
    rng = np.random.default_rng(0)
    for bs, sl in SIZES:
        xv = rand(rng, bs, sl, 8)
        W, B = lin.weight.data, lin.bias.data
        np.testing.assert_allclose(run(mods["linear"][1], lin, xv), xv @ W + B, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(run(mods["norm"][1], norm, xv), rms(xv, norm.weight.data), rtol=1e-5, atol=1e-5)
        g = xv @ mlp.gate_proj.weight.data
        ref = (g / (1 + np.exp(-g)) * (xv @ mlp.up_proj.weight.data)) @ mlp.down_proj.weight.data
        np.testing.assert_allclose(run(mods["mlp"][1], mlp, xv), ref, rtol=1e-4, atol=1e-5)
        iv = rng.integers(0, 10, (bs, sl)).astype("int32")
        np.testing.assert_allclose(run(mods["embed"][1], emb, iv), emb.weight.data[iv])


def rope_np(x, pos, theta):
    d = x.shape[-1]
    inv = theta ** (-2.0 * np.arange(d // 2) / d)
    ang = pos[:, None] * inv[None, :]
    emb = np.concatenate([ang, ang], -1)[None, :, None, :]
    rot = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1)
    return x * np.cos(emb) + rot * np.sin(emb)


def test_rotary_embedding_with_symbolic_offset():
    rope = nn.RotaryEmbedding(8, theta=500.0)
    bb0 = BlockBuilder()
    b, n, m = bb0.sym_var("b"), bb0.sym_var("n"), bb0.sym_var("m")
    q = var("q", Tensor((b, n, 4, 8), "float32"))
    k = var("k", Tensor((b, n, 2, 8), "float32"))
    start = var("start", Tensor((m,), "float32"))  # only provides the offset m
    mod = build(rope, [q, k, start], lambda q, k, s: list(rope.forward(q, k, m)))
    ret = mod["main"].ret_struct_info
    assert ret.fields[0] == Tensor((b, n, 4, 8), "float32") and ret.fields[1] == Tensor((b, n, 2, 8), "float32")
    rng = np.random.default_rng(1)
    for (bs, sl), off in zip(SIZES, (0, 4, 9)):
        qv, kv = rand(rng, bs, sl, 4, 8), rand(rng, bs, sl, 2, 8)
        out = relax_ref.evaluate(mod, "main", qv, kv, np.zeros(off, "float32"))
        pos = off + np.arange(sl, dtype=np.float64)
        np.testing.assert_allclose(out[0], rope_np(qv, pos, 500.0), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out[1], rope_np(kv, pos, 500.0), rtol=1e-4, atol=1e-4)
    with pytest.raises(StructInfoError, match="even head dimension"):
        nn.RotaryEmbedding(7)


def attention_np(att, x, kc, vc):
    """Independent grouped-query causal attention with a KV cache (float64)."""
    bs, sl, _ = x.shape
    h, kvh, d = att.num_heads, att.num_kv_heads, att.head_dim
    m = kc.shape[1]
    q = (x @ att.q_proj.weight.data).reshape(bs, sl, h, d).astype(np.float64)
    k = (x @ att.k_proj.weight.data).reshape(bs, sl, kvh, d).astype(np.float64)
    v = (x @ att.v_proj.weight.data).reshape(bs, sl, kvh, d).astype(np.float64)
    pos = m + np.arange(sl, dtype=np.float64)
    q, k = rope_np(q, pos, att.rope.theta), rope_np(k, pos, att.rope.theta)
    K = np.concatenate([kc, k], 1)
    V = np.concatenate([vc, v], 1)
    out = np.zeros((bs, sl, h, d))
    mask = np.arange(m + sl)[None, :] <= (m + np.arange(sl))[:, None]
    for bi in range(bs):
        for hi in range(h):
            g = hi // (h // kvh)
            s = q[bi, :, hi] @ K[bi, :, g].T / np.sqrt(d)
            s = np.where(mask, s, -np.inf)
            p = np.exp(s - s.max(1, keepdims=True))
            out[bi, :, hi] = (p / p.sum(1, keepdims=True)) @ V[bi, :, g]
    return out.reshape(bs, sl, h * d) @ att.o_proj.weight.data, K, V


@pytest.mark.parametrize("heads,kv_heads", [(4, 2), (2, 2), (4, 1)])
def test_attention_with_kv_cache(heads, kv_heads):
    att = nn.Attention(16, heads, kv_heads).init_params(7)
    d = att.head_dim
    bb0 = BlockBuilder()
    b, n, m = bb0.sym_var("b"), bb0.sym_var("n"), bb0.sym_var("m")
    x = var("x", Tensor((b, n, 16), "float32"))
    kc = var("k_cache", Tensor((b, m, kv_heads, d), "float32"))
    vc = var("v_cache", Tensor((b, m, kv_heads, d), "float32"))
    mod = build(att, [x, kc, vc], lambda x, kc, vc: list(att.forward(x, (kc, vc))))
    ret = mod["main"].ret_struct_info
    assert ret.fields[0] == Tensor((b, n, 16), "float32")
    assert ret.fields[1] == Tensor((b, m + n, kv_heads, d), "float32") == ret.fields[2]
    rng = np.random.default_rng(3)
    for (bs, sl), mlen in zip(SIZES, (0, 2, 4)):
        xv = rand(rng, bs, sl, 16)
        kcv, vcv = rand(rng, bs, mlen, kv_heads, d), rand(rng, bs, mlen, kv_heads, d)
        out = run(mod, att, xv, kcv, vcv)
        ref, K, V = attention_np(att, xv, kcv, vcv)
        np.testing.assert_allclose(out[0], ref, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out[1], K, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(out[2], V, rtol=1e-5, atol=1e-6)


def test_attention_without_cache_is_causal():
    att = nn.Attention(16, 4, 2).init_params(8)
    bb0 = BlockBuilder()
    b, n = bb0.sym_var("b"), bb0.sym_var("n")
    mod = build(att, [var("x", Tensor((b, n, 16), "float32"))], lambda x: list(att.forward(x)))
    assert mod["main"].ret_struct_info.fields[1] == Tensor((b, n, 2, 4), "float32")
    rng = np.random.default_rng(4)
    xv = rand(rng, 2, 5, 16)
    empty = np.zeros((2, 0, 2, 4), "float32")
    out = run(mod, att, xv)
    np.testing.assert_allclose(out[0], attention_np(att, xv, empty, empty)[0], rtol=1e-4, atol=1e-4)
    # causality: changing the last position does not change earlier outputs
    x2 = xv.copy()
    x2[:, -1] += 1.0
    out2 = run(mod, att, x2)
    np.testing.assert_allclose(out2[0][:, :-1], out[0][:, :-1], rtol=1e-6, atol=1e-6)
    assert not np.allclose(out2[0][:, -1], out[0][:, -1])


def test_attention_rejects_bad_shapes():
    att = nn.Attention(16, 4, 2)
    bb = BlockBuilder()
    x = var("x", Tensor((1, 3, 16), "float32"))
    bad = var("k", Tensor((1, 2, 4, 4), "float32"))  # 4 KV heads, the module has 2
    with att.bind_params() as ws, pytest.raises(StructInfoError, match="key cache"):
        with bb.function("main", [x, bad, *ws]):
            att.forward(x, (bad, bad))
    with pytest.raises(StructInfoError, match="multiple"):
        nn.Attention(16, 4, 3)


def test_parameters_names_order_values_and_scopes():
    mlp = nn.GatedMLP(4, 6)
    names = [n for n, _ in mlp.named_parameters()]
    assert names == ["gate_proj_weight", "up_proj_weight", "down_proj_weight"]
    with pytest.raises(WellFormedError, match="init_params"):
        mlp.param_arrays()
    a = [p.copy() for p in mlp.init_params(5).param_arrays()]
    b = nn.GatedMLP(4, 6).init_params(5).param_arrays()
    c = nn.GatedMLP(4, 6).init_params(6).param_arrays()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])
    assert [p.shape for p in a] == [(4, 6), (4, 6), (6, 4)] and all(p.dtype == np.float32 for p in a)
    with pytest.raises(WellFormedError, match="bind_params"):
        mlp.gate_proj.weight.expr
    # two functions from one module get distinct parameter variables (WF.PARAM.1)
    bb = BlockBuilder()
    for name in ("f", "g"):
        n = bb.sym_var("n")
        nn.build_function(bb, name, [var("x", Tensor((n, 4), "float32"))], mlp, mlp.forward)
    mod = bb.get()
    assert mod["f"].params[1] is not mod["g"].params[1]
    assert [p.name_hint for p in mod["f"].params] == ["x"] + names
    assert mod["f"].attrs["num_input"] == 1
    xv = np.ones((3, 4), "float32")
    np.testing.assert_allclose(relax_ref.evaluate(mod, "g", xv, *mlp.param_arrays()),
                               relax_ref.evaluate(mod, "f", xv, *mlp.param_arrays()))
    out = relax_ref.evaluate(mod, "f", xv, *mlp.param_arrays())
    assert out.shape == (3, 4)

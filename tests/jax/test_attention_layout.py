"""``nn.attention``'s lowering picks the dot's operand order by shape (keys on the left while the query
rows per KV head, ``rep * s``, are fewer than the head size; queries on the left otherwise): values equal
to the reference interpreter's on both sides of the boundary, with grouped-query heads read from a
``repeat``'s source, padded sequence axes and every causal mask; and the compiled prefill form makes
no copy of the ``s x t`` scores."""

import re

import numpy as np
import pytest

import relax_jax
import relax_ref

SRC = '''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, "s", {nh}, {e}), "float32"), k: R.Tensor((2, "t", {nkv}, {e}), "float32"),
             v: R.Tensor((2, "t", {nkv}, {e}), "float32")) -> R.Tensor((2, "s", {nh}, {e}), "float32"):
        with R.dataflow():
            kr = R.repeat(k, {rep}, axis=2)
            vr = R.repeat(v, {rep}, axis=2)
            o = R.nn.attention(q, kr, vr{mask})
            R.output(o)
        return o
'''


def _module(nkv: int, rep: int, e: int, mask) -> str:
    m = "" if mask is None else f', causal_mask="{mask}"'
    return SRC.format(nh=nkv * rep, nkv=nkv, rep=rep, e=e, mask=m)


# (kv heads, repeat, head size, query rows, key rows): rep * s below, at and above e
SHAPES = [(2, 2, 8, 1, 9), (2, 2, 8, 3, 5), (2, 2, 8, 4, 4), (2, 2, 8, 5, 7), (1, 4, 4, 1, 6), (3, 1, 4, 4, 4),
          (3, 1, 4, 6, 3), (1, 1, 16, 20, 20), (2, 3, 6, 2, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "g{}r{}e{}s{}t{}".format(*s))
@pytest.mark.parametrize("mask", [None, "TopLeft", "BottomRight"])
@pytest.mark.parametrize("buckets", ["pow2", None])
def test_values_equal_the_reference(shape, mask, buckets):
    nkv, rep, e, s, t = shape
    mod = relax_ref.parse(_module(nkv, rep, e, mask))
    rng = np.random.default_rng(sum(shape))
    q = rng.standard_normal((2, s, nkv * rep, e)).astype(np.float32)
    k = rng.standard_normal((2, t, nkv, e)).astype(np.float32)
    v = rng.standard_normal((2, t, nkv, e)).astype(np.float32)
    want = relax_ref.evaluate(mod, "main", q, k, v)
    got = relax_jax.compile(mod, shape_buckets=buckets)("main", q, k, v)
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=2e-6)


def _compiled_text(exe) -> str:
    plan = exe._plans["main"]
    return list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()


def _moves(hlo: str, at_least: int):
    """The transposes of the compiled computation (fused or not) that move data: a permutation that
    is not the identity once the axes of extent 1 are left out, of at least ``at_least`` elements."""
    out = []
    for dims, perm in re.findall(r"= f32\[([0-9,]+)\]\{[0-9,]+\} transpose\(.*?dimensions=\{([0-9,]+)\}", hlo):
        shape = [int(d) for d in dims.split(",")]
        order = [int(p) for p in perm.split(",")]
        kept = [a for a in order if shape[order.index(a)] != 1]
        if int(np.prod(shape)) >= at_least and kept != sorted(kept):
            out.append((shape, order))
    return out


@pytest.mark.parametrize("rep", [1, 4])
def test_prefill_scores_are_not_transposed(rep):
    s = 64
    exe = relax_jax.compile(relax_ref.parse(_module(2, rep, 8, "TopLeft")), shape_buckets=None)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, s, 2 * rep, 8)).astype(np.float32)
    kv = rng.standard_normal((2, s, 2, 8)).astype(np.float32)
    exe("main", q, kv, kv)
    # the scores hold s * s elements per query head; the operands at most s * 8 per head
    assert _moves(_compiled_text(exe), 2 * 2 * rep * s * s) == []


def test_decode_reads_the_cache_without_transposing_it():
    t = 256
    exe = relax_jax.compile(relax_ref.parse(_module(2, 4, 16, "BottomRight")), shape_buckets=None)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 1, 8, 16)).astype(np.float32)
    kv = rng.standard_normal((2, t, 2, 16)).astype(np.float32)
    exe("main", q, kv, kv)
    hlo = _compiled_text(exe)
    # the keys may be copied as rows of the head size, never with the sequence axis moved past them,
    # and no KV head is copied per query head
    assert [m for m in _moves(hlo, 2 * t * 2 * 16) if m[0][-1] == t] == []
    assert not re.search(rf"f32\[2,{t},8,16\]", hlo)


@pytest.mark.parametrize("mask, buckets", [("TopLeft", "pow2"), ("BottomRight", None), (None, "pow2")])
def test_prefill_keeps_few_score_sized_temporaries(mask, buckets):
    # the masked scores are made once and read by both the maximum and the exponential: at most two
    # arrays of the scores' size live at once (the scores and their exponentials), three before
    s, nkv, rep = 64, 2, 2
    exe = relax_jax.compile(relax_ref.parse(_module(nkv, rep, 8, mask)), shape_buckets=buckets)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, s - 3, nkv * rep, 8)).astype(np.float32)      # padded to 64 with pow2
    kv = rng.standard_normal((2, s - 3, nkv, 8)).astype(np.float32)
    mod = relax_ref.parse(_module(nkv, rep, 8, mask))
    np.testing.assert_allclose(np.asarray(exe("main", q, kv, kv)), relax_ref.evaluate(mod, "main", q, kv, kv),
                               rtol=2e-6, atol=2e-6)
    plan = exe._plans["main"]
    c = list(plan.exact_cache.values() or plan.cache.values())[-1]
    scores = 2 * nkv * rep * s * s * 4
    assert c.fn.memory_analysis().temp_size_in_bytes < 2.5 * scores


@pytest.mark.parametrize("mask", ["TopLeft", None])
def test_row_sums_fuse_with_the_exponentials(mask):
    # a row of 64 keys (a multiple of XLA's window of 32) is summed in windows inside the fusion that
    # makes its exponentials: no windowed reduction of the scores is left to XLA, which would read a
    # score-sized array written out for it (relax_jax.reductions.window_sums)
    s, nkv, rep = 64, 2, 2
    mod = relax_ref.parse(_module(nkv, rep, 8, mask))
    exe = relax_jax.compile(mod, shape_buckets=None)
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, s, nkv * rep, 8)).astype(np.float32)
    kv = rng.standard_normal((2, s, nkv, 8)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", q, kv, kv)), relax_ref.evaluate(mod, "main", q, kv, kv),
                               rtol=2e-6, atol=2e-6)
    assert "reduce-window" not in _compiled_text(exe)


def _computations(hlo: str):
    """The named computations of a compiled module's text, each as its body."""
    return re.findall(r"^%?[\w.-]+ \([^\n]*\{\n(.*?)\n\}", hlo, flags=re.M | re.S)


@pytest.mark.parametrize("mask, buckets", [("TopLeft", "pow2"), ("BottomRight", None), (None, "pow2")])
def test_the_exponentials_loop_computes_no_mask(mask, buckets):
    # the causal and padding masks are applied after the exponential (in the row sum's and the
    # division's loops): XLA's CPU backend vectorizes an exponential's loop poorly with an iota
    # comparison fused into it
    s, nkv, rep = 64, 2, 2
    mod = relax_ref.parse(_module(nkv, rep, 8, mask))
    exe = relax_jax.compile(mod, shape_buckets=buckets)
    rng = np.random.default_rng(4)
    q = rng.standard_normal((2, s - 5, nkv * rep, 8)).astype(np.float32)
    kv = rng.standard_normal((2, s - 5, nkv, 8)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(exe("main", q, kv, kv)), relax_ref.evaluate(mod, "main", q, kv, kv),
                               rtol=2e-6, atol=2e-6)
    bodies = [b for b in _computations(_compiled_text(exe)) if "exponential(" in b]
    assert bodies and all("iota(" not in b for b in bodies)

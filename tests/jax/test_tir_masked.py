"""``relax_jax.tir.masked``: in a masked softmax written as TensorIR nests, the subtraction before the
exponential reads the scores themselves where only the mask's kept points of its result are ever
observed (the values there are the same); any other reader of those points keeps the masked copy."""

import re

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.tir.masked import forward_masked_loads
from relax_ref.ir import tir
from relax_ref.ir.functor import post_order_visit_stmt
from tir_prims import HEADER

N = 64

_BODY = '''
    @T.prim_func
    def {name}(s: T.Buffer((T.int64(2), T.int64(N), T.int64(N)), "float32"),
               out: T.Buffer((T.int64(2), T.int64(N), T.int64(N)), "float32"){extra_param}):
        scaled = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(N)))
        masked = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(N)))
        mx = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(1)))
        sub = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(N)))
        ex = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(N)))
        kept = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(N)))
        total = T.alloc_buffer((T.int64(2), T.int64(N), T.int64(1)))
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("scaled"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                scaled[vb, vi, vj] = s[vb, vi, vj] / T.float32(8.0)
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("masked"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                masked[vb, vi, vj] = T.Select(vj <= vi, scaled[vb, vi, vj], T.float32(0.0))
        for b, i, k, j in T.grid(T.int64(2), T.int64(N), T.int64(1), T.int64(N)):
            with T.block("mx"):
                vb, vi, vk, vj = T.axis.remap("SSSR", [b, i, k, j])
                with T.init():
                    mx[vb, vi, vk] = T.float32(-3.4028234663852886e38)
                mx[vb, vi, vk] = T.max(mx[vb, vi, vk], masked[vb, vi, vj])
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("sub"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                sub[vb, vi, vj] = masked[vb, vi, vj] - mx[vb, vi, T.int64(0)]
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("ex"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                ex[vb, vi, vj] = T.exp(sub[vb, vi, vj])
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("kept"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                kept[vb, vi, vj] = T.Select({cond}, ex[vb, vi, vj], T.float32(0.0))
        for b, i, k, j in T.grid(T.int64(2), T.int64(N), T.int64(1), T.int64(N)):
            with T.block("total"):
                vb, vi, vk, vj = T.axis.remap("SSSR", [b, i, k, j])
                with T.init():
                    total[vb, vi, vk] = T.float32(0.0)
                total[vb, vi, vk] = total[vb, vi, vk] + kept[vb, vi, vj]
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("out"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                out[vb, vi, vj] = kept[vb, vi, vj] / total[vb, vi, T.int64(0)]{extra_store}
'''

_LEAK_PARAM = ', exps: T.Buffer((T.int64(2), T.int64(N), T.int64(N)), "float32")'
_LEAK_STORE = '''
        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("leak"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                exps[vb, vi, vj] = ex[vb, vi, vj]'''

_MASK_NEST = """        for b, i, j in T.grid(T.int64(2), T.int64(N), T.int64(N)):
            with T.block("masked"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                masked[vb, vi, vj] = T.Select(vj <= vi, scaled[vb, vi, vj], T.float32(0.0))
"""
# the mask under a branch: it may not run, so its source is no stand-in for it
_GUARDED = _BODY.replace(_MASK_NEST, "        if s[0, 0, 0] < T.float32(1e30):\n" +
                         "".join("    " + line + "\n" for line in _MASK_NEST.splitlines()))
assert _GUARDED != _BODY

_T = 'R.Tensor((2, {N}, {N}), "float32")'.format(N=N)
SRC = HEADER + "".join(body.format(name=n, cond=c, extra_param=p, extra_store=st).replace("T.int64(N)", f"T.int64({N})")
                       for body, n, c, p, st in [(_BODY, "softmax", "vj <= vi", "", ""),
                                                 (_BODY, "other_mask", "vj < vi", "", ""),
                                                 (_BODY, "leaky", "vj <= vi", _LEAK_PARAM, _LEAK_STORE),
                                                 (_GUARDED, "guarded", "vj <= vi", "", "")]) + "".join(f'''
    @R.function
    def {entry}(s: {_T}) -> {ret}:
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.{prim}, (s,), out_ty={out})
            R.output(y)
        return y
''' for entry, prim, ret, out in [("f", "softmax", _T, _T), ("f_other", "other_mask", _T, _T),
                                   ("f_leaky", "leaky", f"R.Tuple({_T}, {_T})", f"[{_T}, {_T}]")])


def _reads(func, name: str):
    """The buffers the store into ``name`` loads (index loads excluded)."""
    out = []

    def visit(s):
        if isinstance(s, tir.BufferStore) and s.buffer.name == name:
            out.extend(sorted(re.findall(r"(\w+)\[", str(s.value))))
    post_order_visit_stmt(func.body, visit)
    return out


def test_the_subtraction_reads_the_scores_where_only_kept_points_are_observed():
    mod = relax_ref.parse(SRC)
    func = mod["softmax"]
    assert _reads(func, "sub") == ["masked", "mx"]
    new = forward_masked_loads(func)
    assert _reads(new, "sub") == ["mx", "scaled"]
    # the maximum still reads the masked copy, and nothing else changed
    assert _reads(new, "mx") == _reads(func, "mx") and _reads(new, "ex") == ["sub"]
    assert forward_masked_loads(func) is new                        # cached per function


@pytest.mark.parametrize("name", ["other_mask", "leaky", "guarded"])
def test_other_masks_and_other_readers_keep_the_masked_copy(name):
    # another condition keeps other points of the exponentials; an output parameter shows all of them;
    # a mask under a branch may not have run
    func = relax_ref.parse(SRC)[name]
    assert forward_masked_loads(func) is func


@pytest.mark.parametrize("entry", ["f", "f_other", "f_leaky"])
def test_values_equal_the_reference_with_non_finite_masked_scores(entry):
    # the masked scores are NaN and infinite: read from the source, they stay at the points the mask drops
    rng = np.random.default_rng(7)
    s = (rng.standard_normal((2, N, N)) * 4).astype(np.float32)
    upper = np.triu(np.ones((N, N), bool), 1)
    s[0][upper] = np.nan
    s[1][upper] = np.inf
    mod = relax_ref.parse(SRC)
    want = relax_ref.evaluate(mod, entry, s)
    got = relax_jax.compile(mod)(entry, s)
    for w, g in zip(want if isinstance(want, tuple) else [want], got if isinstance(got, tuple) else [got]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-7)


def test_the_exponentials_loop_computes_no_mask():
    mod = relax_ref.parse(SRC)
    exe = relax_jax.compile(mod)
    exe("f", np.zeros((2, N, N), np.float32))
    plan = exe._plans["f"]
    hlo = list(plan.exact_cache.values() or plan.cache.values())[-1].fn.as_text()
    bodies = re.findall(r"^%?[\w.-]+ \([^\n]*\{\n(.*?)\n\}", hlo, flags=re.M | re.S)
    exps = [b for b in bodies if "exponential(" in b]
    assert exps and all("iota(" not in b for b in exps)

"""The local view on JAX (DIST.LOCAL.1-3, ``relax_jax.local_view``) in this process: the workers
simulated as ``vmap`` lanes over the mesh's named axes (one device; the 8-device runs, partitioned lanes and ``shard_map``, are
in ``test_jax_mesh.py``). Expected values: NumPy formulas over the workers' blocks, and the reference's
own local view for generated programs (an independent implementation: threads exchanging numpy
arrays)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import relax_ref
from relax_ref.errors import OpRuntimeError, UnsupportedError
from relax_ref.interp.workers import evaluate_local
from relax_jax.local_view import LocalView, run_local
from relax_jax.float_rules import YNN_FUSION_TYPES

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"
_spec = importlib.util.spec_from_file_location("dist_views", Path(__file__).with_name("test_views.py"))
_views = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_views)


@settings(max_examples=15, deadline=None)
@given(_views.programs(), st.integers(0, 2 ** 31 - 1))
def test_generated_programs_agree_with_the_reference_local_view(prog, seed):
    mod, args = _views.program_and_args(prog, seed)
    got = run_local(mod, "main", *args, simulate=True)
    np.testing.assert_allclose(np.asarray(got), evaluate_local(mod, "main", *args), rtol=1e-5, atol=1e-5)


COLLECTIVES = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4))]})
    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "S[0], R"), t: R.Tensor((8, 3), "float32")):
        s = R.ccl.scatter_from_worker0(t, num_workers=4, axis=0)
        g = R.ccl.allgather(s, num_workers=4)
        b = R.ccl.broadcast_from_worker0(s)
        a = R.ccl.allreduce(s, op_type="sum")
        m = R.ccl.allreduce(s, op_type="max")
        n = R.ccl.allreduce(s, op_type="min")
        v = R.ccl.allreduce(s, op_type="avg")
        p = R.ccl.allreduce(s, op_type="prod")
        k = R.dist.redistribute_replica_to_shard(t, num_workers=4, axis=0)
        return (x, s, g, b, a, m, n, v, p, k)
'''


def test_collectives_on_a_2x2_mesh():
    """Worker r scatters to block r of 4 (row-major over the mesh); the plain results are worker 0's
    (DIST.LOCAL.1), equal on every worker for the reductions and the gathers."""
    mod = relax_ref.parse(COLLECTIVES)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(4).astype("float32")
    t = rng.standard_normal((8, 3)).astype("float32")
    blocks = t.reshape(4, 2, 3)
    out = run_local(mod, "main", x, t, simulate=True)
    want = (x, blocks[0], t, blocks[0], blocks.sum(0), blocks.max(0), blocks.min(0), blocks.mean(0),
            blocks.prod(0), blocks[0])
    assert len(out) == len(want)
    for got, w in zip(out, want):
        np.testing.assert_allclose(np.asarray(got), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src,dst", [("S[0], S[1]", "R, R"), ("S[1], S[0]", "S[0], S[0]"), ("R, S[1]", "S[1], R"),
                                     ("S[0], S[0]", "S[1], R"), ("R, R", "S[1], S[0]")])
def test_redistribute_on_a_2x2_mesh(src, dst):
    """Every worker receives the block its new placement gives it (DIST.LOCAL.3); the result,
    assembled by the return placement, is the global tensor."""
    mod = relax_ref.parse(HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh((2, 2), I.Range(0, 4))]}})
    @R.function
    def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "{src}")) -> R.DTensor((8, 4), "float32", "mesh[0]", "{dst}"):
        y = R.dist.redistribute(x, "mesh[0]", "{dst}")
        z = R.add(y, y)
        return z
''')
    x = np.arange(32, dtype="float32").reshape(8, 4)
    np.testing.assert_array_equal(np.asarray(run_local(mod, "main", x, simulate=True)), 2 * x)


def test_num_workers_other_than_the_mesh_is_an_op_runtime_error():
    mod = relax_ref.parse(COLLECTIVES.replace("R.ccl.allgather(s, num_workers=4)", "R.ccl.allgather(s, num_workers=3)"))
    with pytest.raises(OpRuntimeError, match="num_workers is 3, but the program runs on 4 worker"):
        run_local(mod, "main", np.zeros(4, "float32"), np.zeros((8, 3), "float32"), simulate=True)


def test_a_shard_that_does_not_split_evenly_is_an_op_runtime_error():
    mod = relax_ref.parse(COLLECTIVES)
    with pytest.raises(OpRuntimeError, match="does not split evenly"):
        LocalView(mod, simulate=True)(np.zeros(5, "float32"), np.zeros((8, 3), "float32"))


def test_a_function_without_dtensors_has_no_mesh():
    mod = relax_ref.parse(HEAD + '''@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((2,), "float32")):
        return t
''')
    with pytest.raises(UnsupportedError, match="DTensor"):
        LocalView(mod)


def _llama_tp():
    spec = importlib.util.spec_from_file_location("llama_tp_layer", Path(__file__).parents[2] / "examples" / "llama_tp.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_decoder_layer_on_simulated_lanes_is_the_reference_local_view():
    """The tensor-parallel decoder layer (RMSNorm, attention with its heads split, the MLP; two
    allreduces) on 2 lanes under the strict float rules: with the YNN library's default fusions and
    XLA's algebraic simplifier off, jaxlib 0.10 computed it off by 4.06 at these sizes (the strict
    options, ``float_rules.STRICT_OPTIONS``, restrict YNN to single dots)."""
    T, H, nh, hd, inter = 32, 128, 2, 64, 256
    mod = _llama_tp().layer_module(2, T, H, nh, hd, inter)
    rng = np.random.default_rng(0)
    f = lambda *s: (rng.standard_normal(s) / np.sqrt(s[-2] if len(s) > 1 else 1)).astype("float32")
    causal = np.triu(np.full((T, T), -1e9, "float32"), 1)
    args = [rng.standard_normal((T, H)).astype("float32"), f(T, hd), f(T, hd), f(hd, hd), causal,
            np.array([1e-5], "float32"), np.array([hd ** -0.5], "float32"),
            1 + 0.1 * f(H), f(nh, H, hd), f(nh, H, hd), f(nh, H, hd), f(nh * hd, H), 1 + 0.1 * f(H),
            f(H, inter), f(H, inter), f(inter, H)]
    view = LocalView(mod, simulate=True)
    assert view.compiler_options().get("xla_cpu_experimental_ynn_fusion_type") == YNN_FUSION_TYPES
    np.testing.assert_allclose(np.asarray(view(*args)), evaluate_local(mod, "main", *args), rtol=1e-5, atol=1e-4)

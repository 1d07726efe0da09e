"""``reshape`` of DTensors in the local view (DIST.LOCAL.4): a worker reshapes its block to its block
of the result, on the reference (threads) and on relax_jax (simulated workers here; ``shard_map`` on
host devices in ``tests/examples/test_llama_tp.py``); a sharded axis that the reshape does not keep is
an ``op_runtime`` error on both. Expected values: NumPy formulas on the global tensors."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import OpRuntimeError
from relax_ref.interp.workers import evaluate_local
from relax_jax.local_view import run_local

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"


def _module(n: int, params: str, body: str, ret: str) -> relax_ref.IRModule:
    lines = "".join(f"        {ln}\n" for ln in body.split("; "))
    return relax_ref.parse(HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh(({n},), I.Range(0, {n}))]}})
    @R.function
    def main({params}) -> {ret}:
{lines}''')


def _heads(n: int) -> relax_ref.IRModule:
    """Attention's output projection as tensor parallelism writes it: ``(heads, tokens, head_dim)``
    sharded by heads to ``(tokens, heads * head_dim)`` sharded by columns, times row-sharded weights."""
    return _module(n, 'o: R.DTensor((4, 3, 2), "float32", "mesh[0]", "S[0]"), '
                      'w: R.DTensor((8, 5), "float32", "mesh[0]", "S[0]")',
                   "t = R.permute_dims(o, [1, 0, 2]); r = R.reshape(t, R.shape([3, 8])); p = R.matmul(r, w); "
                   'y = R.ccl.allreduce(p, op_type="sum"); return y',
                   'R.DTensor((3, 5), "float32", "mesh[0]", "R")')


@pytest.mark.parametrize("n", [2, 4])
def test_merged_heads_stay_sharded_and_each_worker_reshapes_its_block(n):
    mod = _heads(n)
    binds = {b.var.name_hint: b.var.struct_info for b in mod["main"].body.blocks[0].bindings}
    assert str(binds["t"].placement) == "S[1]" and str(binds["r"].placement) == "S[1]"     # DIST.OP.2
    assert str(binds["p"].placement) == "R"                                                 # contracted
    rng = np.random.default_rng(n)
    o, w = rng.standard_normal((4, 3, 2)).astype("float32"), rng.standard_normal((8, 5)).astype("float32")
    want = np.transpose(o, (1, 0, 2)).reshape(3, 8) @ w
    np.testing.assert_allclose(evaluate_local(mod, "main", o, w), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(run_local(mod, "main", o, w, simulate=True)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", o, w), want, rtol=1e-5, atol=1e-5)   # global view


def test_a_split_axis_keeps_the_sharding_of_the_axis_it_came_from():
    """``(4, 6)`` sharded by columns to ``(4, 2, 3)``: the outer split axis is paired with the columns
    (DIST.OP.2), and back to ``(4, 6)`` (DIST.LOCAL.4 both ways)."""
    mod = _module(2, 'x: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]")',
                  "s = R.reshape(x, R.shape([4, 2, 3])); e = R.exp(s); b = R.reshape(e, R.shape([4, 6])); return b",
                  'R.DTensor((4, 6), "float32", "mesh[0]", "S[1]")')
    assert str(mod["main"].body.blocks[0].bindings[0].var.struct_info.placement) == "S[1]"
    x = np.arange(24, dtype="float32").reshape(4, 6) / 8
    np.testing.assert_allclose(evaluate_local(mod, "main", x), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(run_local(mod, "main", x, simulate=True)), np.exp(x), rtol=1e-6)


@pytest.mark.parametrize("placement,shape", [("S[1]", (24,)), ("S[0]", (4, 6))])
def test_a_sharded_axis_the_reshape_does_not_keep_is_an_error(placement, shape):
    """Flattening a column-sharded tensor, or any reshape of a row-sharded one (TVM's rule never
    pairs axis 0): the result is replicated, which a worker's block does not hold."""
    dims = ", ".join(map(str, shape))
    mod = _module(2, f'x: R.DTensor((4, 6), "float32", "mesh[0]", "{placement}")',
                  f"r = R.reshape(x, R.shape([{dims}])); return r", f'R.DTensor({shape}, "float32", "mesh[0]", "R")')
    assert str(mod["main"].body.blocks[0].bindings[0].var.struct_info.placement) == "R"
    x = np.arange(24, dtype="float32").reshape(4, 6)
    np.testing.assert_array_equal(relax_ref.evaluate(mod, "main", x), x.reshape(shape))     # global view
    for run in (lambda: evaluate_local(mod, "main", x), lambda: run_local(mod, "main", x, simulate=True)):
        with pytest.raises(OpRuntimeError, match="DIST.LOCAL.4"):
            run()

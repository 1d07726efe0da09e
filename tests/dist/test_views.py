"""The two views of a distributed program (DIST.SEM.1, DIST.LOCAL.1-3): generated programs over
DTensors evaluated in the global view equal their evaluation on the simulated workers with the
shards gathered; the sharding inference of operators (DIST.OP.*); shard arithmetic. Expected values
are NumPy restatements of the global computation."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import relax_ref
from relax_ref.errors import OpRuntimeError
from relax_ref.interp.workers import evaluate_local
from relax_ref.ir import expr as rx
from relax_ref.ir.distributed import DeviceMesh, DTensorStructInfo, Placement
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.ops.dist_shards import assemble, shard_of

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"


def _dt(shape, mesh, text):
    return DTensorStructInfo.of(TensorStructInfo(rx.ShapeExpr(shape), "float32"), mesh, Placement.from_text(text))


@pytest.mark.parametrize("mesh_shape,text", [((2,), "S[0]"), ((2,), "R"), ((2, 2), "S[0], S[1]"),
                                             ((2, 2), "S[1], S[0]"), ((2, 2), "S[0], S[0]"), ((2, 2), "R, S[1]")])
def test_shards_assemble_to_the_global_tensor(mesh_shape, text):
    mesh = DeviceMesh.from_range(mesh_shape, 0, int(np.prod(mesh_shape)))
    x = np.arange(8 * 4, dtype="float32").reshape(8, 4)
    s = _dt((8, 4), mesh, text)
    shards = [shard_of(x, s, mesh.coords(w)) for w in range(mesh.size)]
    np.testing.assert_array_equal(assemble(shards, s), x)


def test_split_over_two_mesh_axes_is_outermost_first():
    mesh = DeviceMesh.from_range((2, 2), 0, 4)
    s = _dt((8, 4), mesh, "S[0], S[0]")
    x = np.arange(8, dtype="float32").repeat(4).reshape(8, 4)
    # worker (0, 1) holds block 1 of 4, worker (1, 0) block 2 (DIST.PLACE.1)
    assert shard_of(x, s, (0, 1))[:, 0].tolist() == [2, 3]
    assert shard_of(x, s, (1, 0))[:, 0].tolist() == [4, 5]


UNARY = ("R.nn.relu", "R.exp", "R.negative", "R.tanh")
BINARY = ("R.add", "R.multiply", "R.subtract", "R.maximum")


@st.composite
def programs(draw):
    """A chain of elementwise operators, redistributes, matmuls (with the allreduce a sharded
    contraction needs) and reshapes over DTensors on a 1-d mesh of 2 or 4 workers."""
    n = draw(st.sampled_from([2, 4]))
    rows, cols = 4 * draw(st.integers(1, 2)), 4
    place = draw(st.sampled_from(["R", "S[0]", "S[1]"]))
    lines, cur, cur_place, k = [], "x", place, 0
    for _ in range(draw(st.integers(1, 5))):
        k += 1
        kind = draw(st.sampled_from(["unary", "binary", "redistribute", "matmul", "reshape"]))
        v = f"v{k}"
        if kind == "reshape" and (cur_place == "R" or (cur_place == "S[1]" and n == 2)):
            # (rows, 4) -> (rows, 2, 2) -> (rows, 4): the columns stay paired with the outer split axis
            # (DIST.OP.2), so a worker reshapes its block both ways (DIST.LOCAL.4)
            lines.append(f"{v}s = R.reshape({cur}, R.shape([{rows}, 2, 2]))")
            lines.append(f"{v} = R.reshape({v}s, R.shape([{rows}, 4]))")
        elif kind in ("unary", "reshape"):     # rows sharded: TVM's reshape rule never keeps axis 0
            op = draw(st.sampled_from(UNARY))
            lines.append(f"{v} = {op}({cur})")
        elif kind == "binary":
            op = draw(st.sampled_from(BINARY))
            lines.append(f"{v} = {op}({cur}, y{cur_place[-2] if cur_place != 'R' else 'r'})")
        elif kind == "redistribute":
            cur_place = draw(st.sampled_from(["R", "S[0]", "S[1]"]))
            lines.append(f'{v} = R.dist.redistribute({cur}, "mesh[0]", "{cur_place}")')
        else:
            # a weight sharding that does not conflict with the left operand's (DIST.OP.3)
            wp = {"S[1]": "S[0]", "S[0]": "R"}.get(cur_place) or draw(st.sampled_from(["R", "S[1]"]))
            lines.append(f"{v} = R.matmul({cur}, w{'0' if wp == 'S[0]' else ('1' if wp == 'S[1]' else 'r')})")
            if cur_place == "S[1]" and wp == "S[0]":
                k += 1
                lines.append(f'v{k} = R.ccl.allreduce({v}, op_type="sum")')
                v = f"v{k}"
                cur_place = "R"
            else:
                cur_place = "S[0]" if cur_place == "S[0]" else ("S[1]" if wp == "S[1]" else "R")
        cur = v
    k += 1
    lines.append(f'v{k} = R.dist.redistribute({cur}, "mesh[0]", "R")')
    dt = f'"float32", "mesh[0]"'
    shape = f"({rows}, {cols})"
    params = (f'x: R.DTensor({shape}, {dt}, "{place}"), yr: R.DTensor({shape}, {dt}, "R"), '
              f'y0: R.DTensor({shape}, {dt}, "S[0]"), y1: R.DTensor({shape}, {dt}, "S[1]"), '
              f'wr: R.DTensor((4, 4), {dt}, "R"), w0: R.DTensor((4, 4), {dt}, "S[0]"), w1: R.DTensor((4, 4), {dt}, "S[1]")')
    body = "".join(f"        {ln}\n" for ln in lines)
    text = HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{"mesh": [R.device_mesh(({n},), I.Range(0, {n}))]}})
    @R.function
    def main({params}):
{body}        return v{k}
'''
    return text, rows


def program_and_args(prog, seed):
    """The module of a generated program and its arguments ``(x, yr, y0, y1, wr, w0, w1)``, drawn from ``seed``."""
    text, rows = prog
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 4)).astype("float32")
    y = rng.standard_normal((rows, 4)).astype("float32")
    w = rng.standard_normal((4, 4)).astype("float32")
    return relax_ref.parse(text), (x, y, y, y, w, w, w)


@given(programs(), st.integers(0, 2 ** 31 - 1))
def test_global_view_equals_local_view(prog, seed):
    """DIST.SEM.1 = DIST.LOCAL.1-3 with the shards gathered, for generated programs."""
    mod, args = program_and_args(prog, seed)
    g = relax_ref.evaluate(mod, "main", *args)
    loc = evaluate_local(mod, "main", *args)
    np.testing.assert_allclose(loc, g, rtol=1e-5, atol=1e-5)


MLP = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})
    @R.function
    def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "R"), w1: R.DTensor((8, 6), "float32", "mesh[0]", "S[1]"), w2: R.DTensor((6, 8), "float32", "mesh[0]", "S[0]")):
        h = R.matmul(x, w1)
        y = R.matmul(h, w2)
        z = R.ccl.allreduce(y, op_type="sum")
        return z
'''


def test_inferred_placements_and_values():
    mod = relax_ref.parse(MLP)
    body = mod["main"].body.blocks[0].bindings
    assert str(body[0].var.struct_info.placement) == "S[1]"        # rows of x, columns of w1 (DIST.OP.2)
    assert str(body[1].var.struct_info.placement) == "R"           # contracted shard: replicated (DIST.OP.3)
    rng = np.random.default_rng(1)
    x, w1, w2 = (rng.standard_normal(s).astype("float32") for s in ((4, 8), (8, 6), (6, 8)))
    np.testing.assert_allclose(evaluate_local(mod, "main", x, w1, w2), x @ w1 @ w2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(relax_ref.evaluate(mod, "main", x, w1, w2), x @ w1 @ w2, rtol=1e-5, atol=1e-5)


def test_local_view_without_allreduce_gives_a_partial_sum():
    """The allreduce is what makes the local view whole: without it worker 0's partial product is the
    result (DIST.OP.5)."""
    mod = relax_ref.parse(MLP.replace('z = R.ccl.allreduce(y, op_type="sum")', "z = y"))
    rng = np.random.default_rng(2)
    x, w1, w2 = (rng.standard_normal(s).astype("float32") for s in ((4, 8), (8, 6), (6, 8)))
    part = x @ w1[:, :3] @ w2[:3]
    np.testing.assert_allclose(evaluate_local(mod, "main", x, w1, w2), part, rtol=1e-5, atol=1e-5)


def test_a_failing_worker_fails_the_evaluation():
    text = MLP.replace('z = R.ccl.allreduce(y, op_type="sum")', "z = R.ccl.allgather(h, num_workers=3)")
    with pytest.raises(relax_ref.RelaxError):
        relax_ref.parse(text)     # allgather of a DTensor (OP.ccl.allgather.C1)
    t2 = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})
    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "R"), t: R.Tensor((2,), "float32")):
        g = R.ccl.allgather(t, num_workers=3)
        return g
'''
    with pytest.raises(OpRuntimeError, match="num_workers is 3"):
        evaluate_local(relax_ref.parse(t2), "main", np.zeros(4, "float32"), np.zeros(2, "float32"))

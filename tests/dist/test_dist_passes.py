"""The distributed passes. PropagateSharding (PASS.SHARD.*): placements written by hand for small programs, the property that
the global view computes the same before and after the pass on generated annotated programs, and
the errors of conflicting annotations; the same for LowerGlobalViewToLocalView, LegalizeRedistribute and
LowerDistIR, whose outputs run on the simulated workers and are gathered (DIST.LOCAL.1)."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir.distributed import DTensorStructInfo
from relax_ref.script.parser import parse
from relax_ref.testing import check_pass
from relax_ref.transform import LegalizeOps, PropagateSharding

_MESHES = '''    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})'''


def _module(params: str, body: str) -> str:
    return f'''
@I.ir_module
class M:
{_MESHES}
    @R.function
    def main({params}):
{body}
'''


def _placements(mod) -> dict:
    f = mod["main"]
    out = {p.name_hint: str(p.struct_info.placement) for p in f.params if isinstance(p.struct_info, DTensorStructInfo)}
    for b in f.body.blocks:
        for x in b.bindings:
            if isinstance(x.var.struct_info, DTensorStructInfo):
                out[x.var.name_hint] = str(x.var.struct_info.placement)
    return out


def test_column_then_row_parallel_matmuls():
    """An annotation on the hidden activation shards the first weight's columns and the second
    weight's rows (the contracted axis meets it as a sibling); the result is replicated."""
    text = _module('x: R.Tensor((4, 8), "float32"), w1: R.Tensor((8, 6), "float32"), w2: R.Tensor((6, 8), "float32")', '''
        h = R.matmul(x, w1)
        a = R.nn.relu(h)
        s = R.dist.annotate_sharding(a, device_mesh="mesh[0]", placement="S[1]")
        y = R.matmul(s, w2)
        return y''')
    got = _placements(PropagateSharding()(parse(text)))
    assert got == {"x": "R", "w1": "S[1]", "w2": "S[0]", "h": "S[1]", "a": "S[1]", "y": "R"}


def test_annotation_on_a_second_mesh_becomes_a_redistribute():
    text = _module('x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 8), "float32")', '''
        h = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        y = R.matmul(h, w)
        z = R.dist.annotate_sharding(y, device_mesh="mesh[1]", placement="R, R")
        u = R.exp(z)
        return u''')
    mod = PropagateSharding()(parse(text))
    calls = [x.value.op.name for b in mod["main"].body.blocks for x in b.bindings if isinstance(x.value, rx.Call)]
    assert "relax.dist.redistribute" in calls and "relax.dist.annotate_sharding" not in calls
    assert str(mod["main"].ret_struct_info.placement) == "R, R"
    assert _placements(mod)["w"] == "S[0]"


def test_two_dimensional_mesh():
    text = _module('x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 6), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[1]", placement="S[0], S[1]")
        y = R.matmul(s, w)
        return y''')
    got = _placements(PropagateSharding()(parse(text)))
    assert got["x"] == "S[0], S[1]" and got["w"] == "R, S[0]" and got["y"] == "S[0], R"


def test_constant_operand_becomes_a_replicated_dist_const():
    text = _module('x: R.Tensor((4, 8), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        y = R.add(s, R.const(2, "float32"))
        return y''')
    mod = PropagateSharding()(parse(text))
    (b,) = [x for blk in mod["main"].body.blocks for x in blk.bindings]
    c = b.value.args[1]
    assert isinstance(c, rx.Constant) and str(c.struct_info.placement) == "R"
    from relax_ref.script.printer import print_module
    assert "R.dist.const(2" in print_module(mod)
    assert parse(print_module(mod))["main"].body.blocks[0].bindings[0].value.args[1].struct_info == c.struct_info


def test_two_meshes_on_one_tensor_are_an_error():
    text = _module('x: R.Tensor((4, 8), "float32"), w: R.Tensor((4, 8), "float32")', '''
        a = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[0]")
        b = R.dist.annotate_sharding(w, device_mesh="mesh[1]", placement="R, R")
        y = R.add(a, b)
        return y''')
    with pytest.raises(RelaxError, match="PASS.SHARD"):
        PropagateSharding()(parse(text))


def test_functions_without_annotations_are_kept():
    text = _module('x: R.Tensor((4, 8), "float32")', '''
        y = R.exp(x)
        return y''')
    mod = parse(text)
    assert PropagateSharding()(mod) is mod


# ---------------------------------------------------------------------------------------------------
# The property: the global view computes the same (DIST.SEM.1)
# ---------------------------------------------------------------------------------------------------

_ACTS = ("R.nn.relu", "R.exp", "R.nn.gelu", "R.tanh")


@st.composite
def annotated_mlps(draw, one_d: bool = False):
    """Two matmuls with an activation between them, an annotation at a drawn place with a drawn
    placement on a 1-d or 2-d mesh, and sometimes a reduction or a transpose at the end."""
    m, k, n, p = (draw(st.sampled_from((4, 8))) for _ in range(4))
    mesh = draw(st.sampled_from(("mesh[0]",) if one_d else ("mesh[0]", "mesh[1]")))
    dims = 1 if mesh == "mesh[0]" else 2
    spec = [draw(st.sampled_from(("R", "S[0]", "S[1]"))) for _ in range(dims)]
    where = draw(st.sampled_from(("x", "h", "a", "y")))
    act = draw(st.sampled_from(_ACTS))
    tail = draw(st.sampled_from(("", "sum", "permute")))
    names = {"x": "x", "h": "h", "a": "a", "y": "y"}
    lines = []

    def emit(var, expr):
        lines.append(f"        {var} = {expr}")
        if var == where:
            lines.append(f'        {var}_s = R.dist.annotate_sharding({var}, device_mesh="{mesh}", '
                         f'placement="{", ".join(spec)}")')
            names[var] = f"{var}_s"

    if where == "x":
        lines.append(f'        x_s = R.dist.annotate_sharding(x, device_mesh="{mesh}", placement="{", ".join(spec)}")')
        names["x"] = "x_s"
    emit("h", f"R.matmul({names['x']}, w1)")
    emit("a", f"{act}({names['h']})")
    emit("y", f"R.matmul({names['a']}, w2)")
    out = names["y"]
    if tail == "sum":
        lines.append(f"        t = R.sum({out}, axis=[0])")
        out = "t"
    elif tail == "permute":
        lines.append(f"        t = R.permute_dims({out}, axes=[1, 0])")
        out = "t"
    lines.append(f"        return {out}")
    params = (f'x: R.Tensor(({m}, {k}), "float32"), w1: R.Tensor(({k}, {n}), "float32"), '
              f'w2: R.Tensor(({n}, {p}), "float32")')
    return parse(_module(params, "\n".join(lines)))


def test_global_view_is_kept_on_generated_programs():
    check_pass(PropagateSharding(), strategy=annotated_mlps(), max_examples=25, signature=False)


def test_global_view_is_kept_after_legalization():
    """TVM's order: the kernels are legalized first, and PropagateSharding follows them through
    their axis groups (``R.dist.call_tir``)."""
    check_pass(PropagateSharding(), strategy=annotated_mlps(), prepare=[LegalizeOps()], max_examples=10,
               signature=False)


def test_the_whole_lowering_keeps_the_value_on_the_workers():
    """PropagateSharding, LowerGlobalViewToLocalView, LegalizeRedistribute and LowerDistIR after
    LegalizeOps: the workers' gathered results are the global view's (DIST.LOCAL.1)."""
    from relax_ref.transform import LegalizeRedistribute, LowerDistIR, LowerGlobalViewToLocalView

    check_pass(LowerDistIR(), strategy=annotated_mlps(one_d=True),
               prepare=[LegalizeOps(), PropagateSharding(), LowerGlobalViewToLocalView(), LegalizeRedistribute()],
               max_examples=10, signature=False)


def test_a_lowering_that_forgets_the_allreduce_is_caught():
    """The local-view oracle is not vacuous: without the allreduce of a sharded contraction the
    workers' partial sums are gathered and differ from the global view."""
    from relax_ref.ir.functor import ExprMutator
    from relax_ref.testing.oracle import PassCheckError
    from relax_ref.transform import LowerGlobalViewToLocalView, module_pass

    class Drop(ExprMutator):
        def visit_Call(self, c):
            c = self.generic_mutate_expr(c)
            if isinstance(c.op, rx.Op) and c.op.name == "relax.ccl.allreduce":
                return c.args[0]
            return c

    def forgetful(mod):
        from relax_ref.transform.utils import renormalize, update_module

        low = LowerGlobalViewToLocalView()(mod)
        return renormalize(update_module(low, {gv.name_hint: Drop().visit_expr(f) for gv, f in low.relax_functions()}))

    text = _module('x: R.Tensor((4, 8), "float32"), w1: R.Tensor((8, 8), "float32"), w2: R.Tensor((8, 4), "float32")', '''
        h = R.matmul(x, w1)
        s = R.dist.annotate_sharding(h, device_mesh="mesh[0]", placement="S[1]")
        y = R.matmul(s, w2)
        return y''')
    mod = parse(text)
    check_pass(LowerGlobalViewToLocalView(), strategy=st.just(mod), prepare=[LegalizeOps(), PropagateSharding()],
               max_examples=1, signature=False)
    with pytest.raises(PassCheckError, match="mismatch"):
        check_pass(module_pass(forgetful, "Forgetful"), strategy=st.just(mod),
                   prepare=[LegalizeOps(), PropagateSharding()], max_examples=1, signature=False)


# ---------------------------------------------------------------------------------------------------
# LowerGlobalViewToLocalView (PASS.LOCALVIEW.*)
# ---------------------------------------------------------------------------------------------------


def test_row_parallel_kernel_is_compacted_and_completed_by_an_allreduce():
    from relax_ref.ir import tir
    from relax_ref.transform import LowerGlobalViewToLocalView

    text = _module('x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 6), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        y = R.matmul(s, w)
        return y''')
    mod = LowerGlobalViewToLocalView()(PropagateSharding()(LegalizeOps()(parse(text))))
    calls = [b.value for blk in mod["main"].body.blocks for b in blk.bindings]
    assert [c.op.name for c in calls] == ["relax.dist.call_tir_local_view", "relax.ccl.allreduce"]
    kernel = mod[calls[0].args[0].name_hint]
    shapes = [tuple(d.value for d in kernel.buffer_of(p).shape) for p in kernel.params]
    assert shapes == [(4, 4), (4, 6), (4, 6)]          # x and w split along the contracted axis by 2
    assert calls[1].attrs["op_type"] == "sum"


def test_high_level_reduction_over_a_sharded_axis_gets_an_allreduce():
    from relax_ref.transform import LowerGlobalViewToLocalView

    text = _module('x: R.Tensor((4, 8), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        y = R.max(s, axis=[1])
        return y''')
    mod = LowerGlobalViewToLocalView()(PropagateSharding()(parse(text)))
    names = [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings]
    assert names == ["relax.max", "relax.ccl.allreduce"]
    check_pass(LowerGlobalViewToLocalView(), strategy=st.just(parse(text)), prepare=[PropagateSharding()],
               max_examples=1, signature=False)


def test_variance_over_a_sharded_axis_is_refused():
    from relax_ref.transform import LowerGlobalViewToLocalView

    text = _module('x: R.Tensor((4, 8), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        y = R.variance(s, axis=[1])
        return y''')
    with pytest.raises(RelaxError, match="PASS.LOCALVIEW.5"):
        LowerGlobalViewToLocalView()(PropagateSharding()(parse(text)))


def test_local_view_is_kept_on_generated_programs():
    from relax_ref.transform import LowerGlobalViewToLocalView

    check_pass(LowerGlobalViewToLocalView(), strategy=annotated_mlps(one_d=True),
               prepare=[LegalizeOps(), PropagateSharding()], max_examples=10, signature=False)


def test_local_view_of_high_level_operators_on_generated_programs():
    from relax_ref.transform import LowerGlobalViewToLocalView

    check_pass(LowerGlobalViewToLocalView(), strategy=annotated_mlps(one_d=True), prepare=[PropagateSharding()],
               max_examples=15, signature=False)


def test_partial_sum_on_a_two_dimensional_mesh_is_refused():
    """The collectives span every worker: a sum sharded along one mesh axis and replicated along
    the other would be counted twice (PASS.LOCALVIEW.4)."""
    from relax_ref.transform import LowerGlobalViewToLocalView

    text = _module('x: R.Tensor((4, 8), "float32")', '''
        s = R.dist.annotate_sharding(x, device_mesh="mesh[1]", placement="R, S[1]")
        y = R.sum(s, axis=[1])
        return y''')
    with pytest.raises(RelaxError, match="PASS.LOCALVIEW.4"):
        LowerGlobalViewToLocalView()(PropagateSharding()(parse(text)))


# ---------------------------------------------------------------------------------------------------
# LegalizeRedistribute (PASS.REDIST.*) and LowerDistIR (PASS.DISTIR.*)
# ---------------------------------------------------------------------------------------------------

def _redistributing(target: str) -> str:
    return _module('x: R.DTensor((4, 8), "float32", "mesh[0]", "R"), y: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")',
                   f'''
        a = R.dist.redistribute(x, device_mesh="mesh[0]", placement="{target}")
        b = R.dist.redistribute(y, device_mesh="mesh[0]", placement="S[0]")
        c = R.exp(a)
        return (c, b)''')


def test_replica_to_shard_and_no_change():
    from relax_ref.transform import LegalizeRedistribute

    mod = LegalizeRedistribute()(parse(_redistributing("S[1]")))
    bs = [b for blk in mod["main"].body.blocks for b in blk.bindings]
    assert bs[0].value.op.name == "relax.dist.redistribute_replica_to_shard"
    assert (bs[0].value.attrs["num_workers"], bs[0].value.attrs["axis"]) == (2, 1)
    assert bs[1].value is mod["main"].params[1]


@pytest.mark.parametrize("text, what", [
    (_module('y: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")', '''
        b = R.dist.redistribute(y, device_mesh="mesh[0]", placement="R")
        return b'''), "all-gather"),
    (_module('y: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")', '''
        b = R.dist.redistribute(y, device_mesh="mesh[0]", placement="S[1]")
        return b'''), "all-to-all"),
    (_module('y: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]")', '''
        b = R.dist.redistribute(y, device_mesh="mesh[1]", placement="S[0], R")
        return b'''), "another mesh"),
], ids=["allgather", "alltoall", "other-mesh"])
def test_redistributions_without_a_lowering_are_refused(text, what):
    from relax_ref.transform import LegalizeRedistribute

    with pytest.raises(RelaxError, match=what):
        LegalizeRedistribute()(parse(text))


@pytest.mark.parametrize("target", ["R", "S[0]", "S[1]"])
def test_redistribute_legalized_and_lowered_keeps_the_value(target):
    """Global view before; LegalizeRedistribute in the global view, then LowerDistIR evaluated on
    the workers (the replicated input is split by redistribute_replica_to_shard)."""
    from relax_ref.transform import LegalizeRedistribute, LowerDistIR

    mod = parse(_redistributing(target))
    check_pass(LegalizeRedistribute(), strategy=st.just(mod), max_examples=1, signature=False)
    check_pass(LowerDistIR(), strategy=st.just(mod), prepare=[LegalizeRedistribute()], max_examples=1,
               signature=False)


def test_lower_dist_ir_distributes_parameters_and_shards_reshapes():
    from relax_ref.transform import LowerDistIR

    text = _module('x: R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"), w: R.DTensor((8, 4), "float32", "mesh[0]", "R")',
                   '''
        r = R.reshape(x, R.shape([4, 2, 4]))
        return r''')
    mod = parse(text)
    out = LowerDistIR()(mod)
    f = out["main"]
    assert [str(p.struct_info) for p in f.params] == [str(p.struct_info.tensor) for p in mod["main"].params]
    bs = [b for blk in f.body.blocks for b in blk.bindings]
    assert [b.value.op.name for b in bs] == ["relax.ccl.scatter_from_worker0", "relax.ccl.broadcast_from_worker0",
                                             "relax.reshape"]
    assert [d.value for d in bs[2].value.args[1].values] == [4, 1, 4]
    check_pass(LowerDistIR(), strategy=st.just(mod), max_examples=1, signature=False)


def test_annotated_output_of_a_dataflow_block_stays_bound():
    from relax_ref.static.well_formed import check_well_formed

    text = _module('x: R.Tensor((4, 8), "float32")', '''
        with R.dataflow():
            y = R.exp(x)
            k = R.dist.annotate_sharding(y, device_mesh="mesh[0]", placement="S[1]")
            R.output(k)
        return k''')
    mod = PropagateSharding()(parse(text))
    check_well_formed(mod)
    assert str(mod["main"].ret_struct_info.placement) == "S[1]"
    check_pass(PropagateSharding(), strategy=st.just(parse(text)), max_examples=1, signature=False)

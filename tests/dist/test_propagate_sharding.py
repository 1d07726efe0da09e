"""PropagateSharding (PASS.SHARD.*): placements written by hand for small programs, the property that
the global view computes the same before and after the pass on generated annotated programs, and
the errors of conflicting annotations."""

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
def annotated_mlps(draw):
    """Two matmuls with an activation between them, an annotation at a drawn place with a drawn
    placement on a 1-d or 2-d mesh, and sometimes a reduction or a transpose at the end."""
    m, k, n, p = (draw(st.sampled_from((4, 8))) for _ in range(4))
    mesh = draw(st.sampled_from(("mesh[0]", "mesh[1]")))
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
        emit("x", None) if False else None
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

"""AlterOpImpl: hand cases (layout changes, padding, several outputs) and property tests (check_pass)."""

import textwrap

import pytest
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.module import IRModule
from relax_ref.ops.layout_transform import IndexMap
from relax_ref.testing import GenConfig, check_pass
from relax_ref.transform import AlterOpImpl, DeadCodeElimination, LegalizeOps, module_pass
from relax_ref.transform.alter_op_impl import inverse_index_map

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


def _prim(body):
    return relax_ref.parse(HEAD + body)


def _eq(a, b):
    relax_ref.assert_structural_equal(a, b)


ADD_1D = '''
@I.ir_module
class M:
    @T.prim_func(private=True)
    def add(arg0: T.Buffer((N,), "float32"), arg1: T.Buffer((N,), "float32"), output: T.Buffer((N,), "float32")):
        T.func_attr({"operator_name": "relax.add"})
        for ax0 in range(N):
            with T.block("T_add"):
                v_ax0 = T.axis.spatial(N, ax0)
                T.reads(arg0[v_ax0], arg1[v_ax0])
                T.writes(output[v_ax0])
                output[v_ax0] = arg0[v_ax0] + arg1[v_ax0]

    @R.function
    def main(x: R.Tensor((N,), dtype="float32"), y: R.Tensor((N,), dtype="float32")):
        with R.dataflow():
            lv = R.call_tir(M.add, (x, y), out_sinfo=R.Tensor((N,), dtype="float32"))
            gv: R.Tensor((N,), dtype="float32") = lv
            R.output(gv)
        return gv
'''

#: the loop nest of ``add_2d``, at the indentation of a top-level function's body and of a member's
_ADD_2D_LOOP = textwrap.indent('''for ax0, ax1 in T.grid(4, 4):
    with T.block("T_add"):
        v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
        T.reads(arg0[v_ax0, v_ax1], arg1[v_ax0, v_ax1])
        T.writes(output[v_ax0, v_ax1])
        output[v_ax0, v_ax1] = arg0[v_ax0, v_ax1] + arg1[v_ax0, v_ax1]
''', "    ")
_ADD_2D_MEMBER_LOOP = textwrap.indent(_ADD_2D_LOOP, "    ")

ADD_2D = '''
@T.prim_func(private=True)
def add_2d(arg0: T.Buffer((4, 4), "float32"), arg1: T.Buffer((4, 4), "float32"), output: T.Buffer((4, 4), "float32")):
''' + _ADD_2D_LOOP


def _add_2d():
    f = _prim(ADD_2D)
    return f if isinstance(f, tir.PrimFunc) else next(iter(f.values()))


def _split4(i):
    return (i // 4, i % 4)


def test_single_output_layout_change():
    before = _mod(ADD_1D.replace("N", "16"))
    after = DeadCodeElimination()(AlterOpImpl({"relax.add": _add_2d()}, {"relax.add": [_split4] * 3})(before))
    expected = _mod('''
@I.ir_module
class M:
    @T.prim_func(private=True)
    def relax_add_replacement(arg0: T.Buffer((4, 4), "float32"), arg1: T.Buffer((4, 4), "float32"), output: T.Buffer((4, 4), "float32")):
        T.func_attr({"operator_name": "relax.add"})
''' + _ADD_2D_MEMBER_LOOP + '''
    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor((16,), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None)
            lv1: R.Tensor((4, 4), dtype="float32") = R.layout_transform(y, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None)
            lv2 = R.call_tir(M.relax_add_replacement, (lv, lv1), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            lv_1: R.Tensor((16,), dtype="float32") = R.layout_transform(lv2, index_map=T.index_map(lambda axis0, axis1: (axis0 * 4 + axis1,)), pad_value=None)
            gv: R.Tensor((16,), dtype="float32") = lv_1
            R.output(gv)
        return gv
''')
    _eq(after, expected)
    # the replaced module computes the same
    check_pass(AlterOpImpl({"relax.add": _add_2d()}, {"relax.add": [_split4] * 3}),
               strategy=st.just(before), max_examples=2)


def test_padding_is_cropped_by_remove_pad():
    before = _mod(ADD_1D.replace("N", "14"))
    pass_ = AlterOpImpl({"relax.add": _add_2d()}, {"relax.add": [_split4] * 3})
    after = pass_(before)
    names = sorted(after.keys())
    assert names == ["add", "main", "relax_add_replacement", "remove_pad"], names
    rp = after["remove_pad"]
    assert rp.attrs["operator_name"] == "remove_pad"
    check_pass(pass_, strategy=st.just(before), max_examples=2)


def test_no_layout_changes_swaps_the_kernel_only():
    before = _mod(ADD_1D.replace("N", "16"))
    repl = before["add"]
    after = AlterOpImpl({"relax.add": repl})(before)
    assert sorted(after.keys()) == ["add", "main", "relax_add_replacement"]
    assert after["relax_add_replacement"].body is repl.body


def test_unmatched_operator_leaves_the_module():
    before = _mod(ADD_1D.replace("N", "16"))
    assert AlterOpImpl({"relax.multiply": _add_2d()})(before) is before
    assert AlterOpImpl({})(before) is before


def test_parameter_count_mismatch_is_an_error():
    before = _mod(ADD_1D.replace("N", "16"))
    with pytest.raises(RelaxError):
        AlterOpImpl({"relax.add": _add_2d()}, {"relax.add": [_split4] * 2})(before)


def test_inverse_index_map_forms():
    i, j = P.PrimVar("i", "int64"), P.PrimVar("j", "int64")
    c4 = P.IntImm(4, "int64")
    imap = IndexMap((i, j), (j, P.FloorDiv(i, c4), P.FloorMod(i, c4)))
    inv, pads = inverse_index_map(imap, (P.IntImm(16, "int64"), P.IntImm(3, "int64")))
    assert not pads and len(inv.initial_indices) == 3 and len(inv.final_indices) == 2
    _, pads = inverse_index_map(imap, (P.IntImm(14, "int64"), P.IntImm(3, "int64")))
    assert pads
    with pytest.raises(RelaxError):
        inverse_index_map(IndexMap((i,), (P.Add(i, c4),)), (P.IntImm(16, "int64"),))


# ---------------------------------------------------------------------------------------------------
# property: legalized programs whose kernels carry an operator_name are replaced by copies of
# themselves (no layout change); the result computes the same
# ---------------------------------------------------------------------------------------------------


def _tag_fn(mod: IRModule) -> IRModule:
    items = {}
    for gv, f in mod.functions_items():
        if isinstance(f, tir.PrimFunc):
            attrs = dict(f.attrs)
            attrs["operator_name"] = "op." + gv.name_hint
            f = tir.PrimFunc(f.params, f.body, f.buffer_map, f.ret_type, attrs=attrs, span=f.span)
        items[gv] = f
    return IRModule(items, mod.attrs, mod.global_infos)


def _alter_all_fn(mod: IRModule) -> IRModule:
    impls = {f.attrs["operator_name"]: f for f in mod.values()
             if isinstance(f, tir.PrimFunc) and "operator_name" in f.attrs}
    return AlterOpImpl(impls)(mod)


_tag = module_pass(_tag_fn, "TagOperatorNames")
_alter_all = module_pass(_alter_all_fn, "AlterEveryKernel")


def test_preserves_meaning_when_kernels_are_replaced():
    check_pass(_alter_all, prepare=[LegalizeOps(), _tag], max_examples=15,
               config=GenConfig(features=frozenset({"dataflow", "tuple"})))

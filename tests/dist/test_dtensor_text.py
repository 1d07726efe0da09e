"""DTensor struct info, device meshes and placements: reading, printing in every dialect, structural
equality, the struct-info lattice and well-formedness (DIST.MESH.*, DIST.PLACE.*, DIST.SI.*,
DIST.TEXT.*, DIST.WF.*). Expected texts are written by hand from TVM's printing rules."""

import pytest

import relax_ref
from relax_ref.analysis.struct_info_ops import BaseCheckResult, is_base_of, struct_info_base_check, struct_info_lca
from relax_ref.errors import ParseError, RelaxError, StructInfoError, WellFormedError
from relax_ref.ir import expr as rx
from relax_ref.ir.distributed import DeviceMesh, DTensorStructInfo, Placement, REPLICA, shard
from relax_ref.ir.struct_info import ObjectStructInfo, TensorStructInfo
from relax_ref.script.dialect import DIALECTS

HEAD = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n"

MOD = HEAD + '''@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4)), R.device_mesh((2,), [5, 7])]})
    @R.function
    def foo(x: R.DTensor((128, 64), "float32", "mesh[0]", "S[0], R"), y: R.DTensor((64,), "float16", "mesh[1]", "R"), z: R.DTensor(dtype="int32", device_mesh="mesh[0]", placement="R, R", ndim=3), w: R.DTensor(device_mesh="mesh[1]", placement="R")) -> R.DTensor((128, 64), "float32", "mesh[0]", "S[0], R"):
        return x
'''


def _mesh22():
    return DeviceMesh.from_range((2, 2), 0, 4)


def test_module_prints_as_written_in_every_dialect():
    mod = relax_ref.parse(MOD)
    for d in DIALECTS:
        text = mod.script(dialect=d)
        assert text.strip() == MOD.strip(), d
        assert relax_ref.structural_equal(relax_ref.parse(text), mod)


def test_struct_info_fields():
    mod = relax_ref.parse(MOD)
    x, y, z, w = mod["foo"].params
    sx = x.struct_info
    assert isinstance(sx, DTensorStructInfo)
    assert sx.device_mesh == _mesh22() and tuple(sx.device_mesh.device_ids) == (0, 1, 2, 3)
    assert sx.placement == Placement((shard(0), REPLICA))
    assert sx.tensor == TensorStructInfo(rx.ShapeExpr((128, 64)), "float32")
    assert y.struct_info.device_mesh.device_ids == (5, 7) and y.struct_info.device_mesh.device_range is None
    assert z.struct_info.ndim == 3 and z.struct_info.shape is None
    assert w.struct_info.dtype == "void" and w.struct_info.ndim == -1


def test_standalone_function_prints_meshes_inline():
    mod = relax_ref.parse(MOD)
    text = relax_ref.script.printer.print_function(mod["foo"], "foo")
    assert 'x: R.DTensor((128, 64), "float32", R.device_mesh((2, 2), R.Range(0, 4)), "S[0], R")' in text
    assert 'R.DTensor((64,), "float16", R.device_mesh((2,), [5, 7]), "R")' in text
    back = relax_ref.parse(text)
    assert back["foo"].params[0].struct_info == mod["foo"].params[0].struct_info


def test_str_of_struct_info():
    s = DTensorStructInfo.of(TensorStructInfo(rx.ShapeExpr((4, 8)), "float32"), _mesh22(), Placement.from_text("S[1],R"))
    assert str(s) == 'R.DTensor((4, 8), "float32", R.device_mesh((2, 2), R.Range(0, 4)), "S[1], R")'


def test_placement_text():
    assert str(Placement.from_text(" S[1] ,  R ")) == "S[1], R"
    assert Placement.from_text("") == Placement(())
    for bad in ("X", "S[]", "S[-1]", "S[1", "R R", "S[a]"):
        with pytest.raises(StructInfoError, match="DIST.PLACE.2"):
            Placement.from_text(bad)


def test_mesh_checks():
    with pytest.raises(StructInfoError, match="DIST.MESH.1"):
        DeviceMesh((2, 2), (0, 1, 2))
    with pytest.raises(StructInfoError, match="distinct"):
        DeviceMesh((2,), (1, 1))
    with pytest.raises(StructInfoError, match="positive"):
        DeviceMesh((0,), ())
    assert _mesh22().coords(3) == (1, 1) and _mesh22().coords(1) == (0, 1)


def test_dtensor_checks():
    t = TensorStructInfo(rx.ShapeExpr((4, 8)), "float32")
    with pytest.raises(StructInfoError, match="DIST.SI.2"):
        DTensorStructInfo.of(t, _mesh22(), Placement.from_text("R"))
    with pytest.raises(StructInfoError, match="DIST.SI.2"):
        DTensorStructInfo.of(t, _mesh22(), Placement.from_text("S[2], R"))


def _bad(body, globals_='"mesh": [R.device_mesh((2, 2), I.Range(0, 4))]'):
    return HEAD + f'''@I.ir_module
class Module:
    I.module_global_infos({{{globals_}}})
    @R.function
    def foo({body}):
        return x
'''


@pytest.mark.parametrize("param,message", [
    ('x: R.DTensor((4, 4), "float32", "mesh[3]", "R, R")', "out of range"),
    ('x: R.DTensor((4, 4), "float32", "grid[0]", "R, R")', "does not declare"),
    ('x: R.DTensor((4, 4), "float32", "mesh0", "R, R")', "name\\[index\\]"),
    ('x: R.DTensor((4, 4), "float32", "mesh[0]", "S[2], R")', "DIST.SI.2"),
    ('x: R.DTensor((4, 4), "float32", "mesh[0]", "R")', "DIST.SI.2"),
    ('x: R.DTensor((4, 4), "float32", "mesh[0]", "Q, R")', "DIST.PLACE.2"),
    ('x: R.DTensor((4, 4), "float32", "mesh[0]", 3)', "placement must be a string"),
    ('x: R.DTensor((4, 4), "float32", R.device_mesh((3,), I.Range(0, 2)), "R")', "DIST.MESH.1"),
])
def test_parse_errors(param, message):
    with pytest.raises(ParseError, match=message):
        relax_ref.parse(_bad(param))


def test_mesh_name_without_module_is_an_error():
    text = '# from tvm.script import relax as R\n\n@R.function\ndef f(x: R.DTensor((4,), "float32", "mesh[0]", "R")):\n    return x\n'
    with pytest.raises(ParseError, match="does not declare"):
        relax_ref.parse(text)


def test_well_formed_divisibility():
    with pytest.raises(WellFormedError, match="DIST.WF.2"):
        relax_ref.parse(_bad('x: R.DTensor((6, 4), "float32", "mesh[0]", "S[0], S[0]")'))
    relax_ref.parse(_bad('x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], S[0]")'))
    relax_ref.parse(_bad('x: R.DTensor(("n", 4), "float32", "mesh[0]", "S[0], S[1]")'))


def test_well_formed_undeclared_mesh():
    text = _bad('x: R.DTensor((8, 4), "float32", R.device_mesh((4,), I.Range(0, 4)), "S[0]")')
    with pytest.raises(WellFormedError, match="DIST.WF.1"):
        relax_ref.parse(text)


def test_lattice():
    t = TensorStructInfo(rx.ShapeExpr((4, 8)), "float32")
    a = DTensorStructInfo.of(t, _mesh22(), Placement.from_text("S[0], R"))
    b = DTensorStructInfo.of(t, _mesh22(), Placement.from_text("R, R"))
    loose = DTensorStructInfo.of(TensorStructInfo(None, "float32", 2), _mesh22(), Placement.from_text("S[0], R"))
    assert is_base_of(a, a) and is_base_of(loose, a) and not is_base_of(a, loose)
    assert struct_info_base_check(a, b) == BaseCheckResult.FAIL_L1
    assert struct_info_base_check(t, a) == BaseCheckResult.FAIL_L0      # a Tensor and a DTensor are unrelated
    assert struct_info_base_check(a, t) == BaseCheckResult.FAIL_L0
    assert struct_info_lca(a, b) == ObjectStructInfo()
    assert struct_info_lca(a, t) == ObjectStructInfo()
    assert struct_info_lca(a, loose) == loose


def test_structural_equality_sees_placement():
    m1 = relax_ref.parse(_bad('x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")'))
    m2 = relax_ref.parse(_bad('x: R.DTensor((8, 4), "float32", "mesh[0]", "R, S[0]")'))
    m3 = relax_ref.parse(_bad('x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")',
                              '"mesh": [R.device_mesh((2, 2), [0, 1, 2, 3])]'))
    assert not relax_ref.structural_equal(m1, m2)
    assert not relax_ref.structural_equal(m1, m3)
    assert relax_ref.structural_equal(m1, relax_ref.parse(m1.script()))


def test_errors_are_relax_errors():
    assert issubclass(StructInfoError, RelaxError) and issubclass(WellFormedError, RelaxError)


_CONST_MODULE = '''
from tvm.script import ir as I, relax as R
@I.ir_module
class M:
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4))]})
    @R.function
    def main(x: R.DTensor((4, 4), "float32", "mesh[0]", "S[0], R")):
        y = R.add(x, R.dist.const(1, ty=R.DTensor((), "float32", "mesh[0]", "R, R")))
        z = R.add(y, R.dist.const([1, 2, 3, 4], struct_info=R.DTensor((4,), "float32", "mesh[0]", "R, R")))
        return z
'''


def test_dist_const_reads_both_keywords_and_prints_positionally():
    """DIST.TEXT.5: TVM 0.25 names the keyword struct_info, TVM 0.27 ty; the printer writes the
    value in the DTensor's dtype and the struct info positionally, and the text reads back."""
    from relax_ref.analysis.structural_equal import structural_equal
    from relax_ref.script.parser import parse
    from relax_ref.script.printer import print_module

    mod = parse(_CONST_MODULE)
    text = print_module(mod)
    assert 'R.dist.const(1.0, R.DTensor((), "float32", "mesh[0]", "R, R"))' in text
    assert 'R.dist.const([1.0, 2.0, 3.0, 4.0], R.DTensor((4,), "float32", "mesh[0]", "R, R"))' in text
    assert structural_equal(parse(text), mod)


@pytest.mark.parametrize("const, message", [
    ('R.dist.const([1, 2], R.DTensor((3,), "float32", "mesh[0]", "R, R"))', "shape"),
    ('R.dist.const(1, R.Tensor((), "float32"))', "R.DTensor"),
])
def test_dist_const_rejects_a_value_of_another_shape_and_a_tensor(const, message):
    from relax_ref.errors import ParseError
    from relax_ref.script.parser import parse

    text = _CONST_MODULE.replace('R.dist.const(1, ty=R.DTensor((), "float32", "mesh[0]", "R, R"))', const)
    with pytest.raises(ParseError, match=message):
        parse(text)

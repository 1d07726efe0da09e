"""Core operators (spec pages spec/ops/call_tir.md, shape_of.md, ...): registry entries, inference, purity,
normalization hooks and script forms; purity, FNormalize/FValidate presence and script spellings are
cross-checked with TVM 0.25."""

import pytest

from relax_ref.analysis.struct_info_ops import format_struct_info
from relax_ref.errors import ParseError, StructInfoError
from relax_ref.ir.struct_info import TensorStructInfo, VDevice
from relax_ref.ops import registry
from relax_ref.ops.core import parse_device, parse_vdevice

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"

CORE_OPS = [
    "relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad", "relax.call_dps_packed",
    "relax.call_pure_packed", "relax.call_inplace_packed", "relax.shape_of", "relax.null_value", "relax.print",
    "relax.assert_op", "relax.make_closure", "relax.invoke_closure", "relax.invoke_pure_closure",
    "relax.tensor_to_shape", "relax.shape_to_tensor", "relax.hint_on_device", "relax.to_vdevice",
    "relax.builtin.alloc_tensor", "relax.memory.alloc_storage", "relax.memory.alloc_tensor",
    "relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.call_builtin_with_ctx",
    "relax.vm.alloc_storage", "relax.vm.alloc_tensor", "relax.vm.call_tir_dyn", "relax.vm.kill_object",
]
IMPURE = {"relax.print", "relax.assert_op", "relax.invoke_closure", "relax.memory.kill_storage",
          "relax.memory.kill_tensor", "relax.call_builtin_with_ctx", "relax.vm.call_tir_dyn", "relax.vm.kill_object"}


def parse(text, **kw):
    from relax_ref.script.parser import parse as _parse

    return _parse(HEADER + text, **kw)


def main_text(body, params='x: R.Tensor((3,), "float32")', pure=False, extra=""):
    deco = "@R.function" if pure else "@R.function(pure=False)"
    lines = "\n".join("        " + ln for ln in body.strip("\n").splitlines())
    return f"@I.ir_module\nclass Module:\n{extra}    {deco}\n    def main({params}):\n{lines}\n"


def sinfos(mod, name="main"):
    f = mod[name]
    return {b.var.name_hint: format_struct_info(b.var.struct_info) for blk in f.body.blocks for b in blk.bindings}


def test_registry_entries():
    for name in CORE_OPS:
        d = registry.get(name)
        assert d.infer is not None, name
        assert d.purity == (name not in IMPURE), name
        assert d.script == "R." + name[len("relax."):]
        assert registry.lookup_script(d.script) is d


@pytest.mark.tvm
def test_registry_entries_match_tvm():
    tvm = pytest.importorskip("tvm")
    from tvm.script import relax as R

    for name in CORE_OPS:
        op = tvm.ir.Op.get(name)
        d = registry.get(name)
        assert bool(op.get_attr("FPurity")) == d.purity, name
        assert (op.get_attr("FValidate") is not None) == (d.validate is not None), name
        if op.get_attr("FNormalize") is not None:
            assert d.normalize is not None and d.extra.get("wf_normalized_check", True), name
        obj = R
        for part in d.script.split(".")[1:]:
            obj = getattr(obj, part)
        assert callable(obj), d.script


def test_inference_results():
    mod = parse(main_text("""
s = R.shape_of(x)
u = R.shape_of(y)
t = R.shape_to_tensor(s)
v = R.tensor_to_shape(t)
w = R.tensor_to_shape(z)
nv = R.null_value()
p = R.call_pure_packed("f", x, sinfo_args=R.Tensor((3,), "float32"))
q = R.call_pure_packed("f", x, sinfo_args=[R.Tensor((3,), "float32"), R.Object])
o = R.call_pure_packed("f", x, sinfo_args=[])
d = R.call_dps_packed("f", x, out_sinfo=[R.Tensor((2,), "int32"), R.Tensor((3,), "float32")])
at = R.builtin.alloc_tensor(R.shape([2, 3]), "int8", 0)
st = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
mt = R.memory.alloc_tensor(st, 0, s, "float16")
vst = R.vm.alloc_storage(R.shape([64]), 0, "float32")
vt = R.vm.alloc_tensor(vst, 0, R.shape([8]), "float32")
ws = R.vm.alloc_tensor(vst, 0, u, "float32")
cb = R.call_builtin_with_ctx("vm.builtin.f", (x,))
return x
""", params='x: R.Tensor((3,), "float32"), y: R.Tensor("float32", ndim=2), z: R.Tensor(("k",), "int64")'))
    got = sinfos(mod)
    assert got == {
        "s": "R.Shape([3])", "u": "R.Shape(ndim=2)", "t": 'R.Tensor((1,), dtype="int64")',
        "v": "R.Shape(ndim=1)", "w": "R.Shape(ndim=-1)", "nv": "R.Object",
        "p": 'R.Tensor((3,), dtype="float32")', "q": 'R.Tuple(R.Tensor((3,), dtype="float32"), R.Object)',
        "o": "R.Object", "d": 'R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((3,), dtype="float32"))',
        "at": 'R.Tensor((2, 3), dtype="int8")', "st": "R.Object", "mt": 'R.Tensor(s, dtype="float16")',
        "vst": "R.Object", "vt": 'R.Tensor((8,), dtype="float32")', "ws": 'R.Tensor(dtype="float32", ndim=2)',
        "cb": "R.Tuple()",
    }


def test_alloc_tensor_uses_the_module_vdevice():
    from relax_ref.analysis.context import InferContext
    from relax_ref.arith import Analyzer
    from relax_ref.ir import Call, DataTypeImm, IRModule, PrimValue, ShapeExpr, StringImm
    from relax_ref.ir import prim_expr as P

    dev = VDevice("cuda", 0, "global")
    mod = IRModule({}, global_infos={"vdevice": (VDevice("llvm", 0, "global"), dev)})
    d = registry.get("relax.builtin.alloc_tensor")
    call = Call(d.op, (ShapeExpr((2,)), DataTypeImm("float32"), PrimValue(P.IntImm(1, "int64")), StringImm("global")))
    si = d.infer(call, InferContext(Analyzer(), mod))
    assert si == TensorStructInfo(ShapeExpr((2,)), "float32", vdevice=dev)
    call0 = Call(d.op, (ShapeExpr((2,)), DataTypeImm("float32"), PrimValue(P.IntImm(5, "int64")), StringImm("global")))
    assert d.infer(call0, InferContext(Analyzer(), mod)).vdevice is None


def test_to_vdevice_and_hint_on_device_round_trip():
    mod = parse(main_text("""
v = R.to_vdevice(x, "cuda:1:global")
h = R.hint_on_device(x, "cuda:1")
return (v, h)
""", pure=True))
    got = sinfos(mod)
    assert got["v"] == 'R.Tensor((3,), dtype="float32", vdevice="cuda:1:global")'
    assert got["h"] == 'R.Tensor((3,), dtype="float32")'
    text = mod.script()
    assert 'R.to_vdevice(x, dst_vdevice="cuda:1:global")' in text
    assert 'R.hint_on_device(x, R.device(device_type=2, index=1), "global")' in text
    assert parse_vdevice("llvm") == VDevice("llvm", 0, "global")
    assert parse_device({"device_type": 1, "index": 0}) == (1, 0)
    with pytest.raises(ParseError):
        parse_device("tpu")


def test_print_assert_and_closure_forms_round_trip():
    from relax_ref.analysis.structural_equal import structural_equal

    src = """
@I.ir_module
class Module:
    @R.function
    def lifted(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
        cls = Module
        R.print(x, x, format="{} {}")
        R.assert_op(c, x, x, format="bad {} {}")
        clo = R.make_closure(cls.lifted, (x,))
        r = R.invoke_closure(clo, (x,), sinfo_args=R.Tensor((3,), "float32"))
        p = R.call_inplace_packed("h", x, x, inplace_indices=[1], sinfo_args=R.Tensor((3,), "float32"))
        return (r, p)
"""
    mod = parse(src)
    again = parse(mod.script())
    assert structural_equal(mod, again)
    main = mod["main"]
    calls = [b.value for b in main.body.blocks[0].bindings]
    assert [c.op.name for c in calls] == ["relax.print", "relax.assert_op", "relax.make_closure",
                                          "relax.invoke_closure", "relax.call_inplace_packed"]
    assert calls[0].args[0].value == "{} {}" and len(calls[1].args) == 4


@pytest.mark.parametrize("body,msg", [
    ('s = R.tensor_to_shape(x)', "needs a 1-D tensor"),
    ('s = R.shape_to_tensor(x)', "needs a shape argument"),
    ('R.assert_op(x)', "must be a boolean scalar"),
    ('h = R.hint_on_device(R.shape([1]), "cpu")', "relax.hint_on_device needs a tensor argument"),
    ('p = R.call_pure_packed(cls.lifted, x, sinfo_args=R.Object)', "must be called with an opaque function"),
    ('q = R.call_inplace_packed("h", x, inplace_indices=[-1], sinfo_args=R.Tensor((3, 2), "float32"))',
     "no in-place index other than -1"),
    ('q = R.call_inplace_packed("h", x, inplace_indices=[0], sinfo_args=R.Tensor((3,), "int32"))',
     "does not match in-place argument 0"),
    ('q = R.call_inplace_packed("h", x, x, inplace_indices=[1, 1], sinfo_args=[R.Object, R.Object])',
     "must be unique"),
    ('y = R.call_tir_inplace(cls.k, (x,), inplace_indices=[-1], out_sinfo=R.Tensor((3, 2), "float32"))',
     "no in-place index other than -1"),
    ('y = R.call_tir_inplace(cls.k, (x,), inplace_indices=[0], out_sinfo=R.Tensor((3, 3), "float32"))',
     "needs identical shape and dtype"),
    ('y = R.call_tir_inplace(cls.k, (x,), inplace_indices=[0, -1], out_sinfo=R.Tensor((3, 2), "float32"))',
     "one per output is needed"),
    ('y = R.call_tir(cls.lifted, (x,), out_sinfo=R.Tensor((3, 2), "float32"))', None),
    ('at = R.builtin.alloc_tensor((2, 3), "int8", 0)', "must be a ShapeExpr"),
])
def test_core_op_errors(body, msg):
    extra = """    @T.prim_func(private=True)
    def k(A: T.Buffer((3, 2), "float32")):
        for i in range(3):
            A[i, 0] = A[i, 1]

    @R.function
    def lifted(x: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        return x

"""
    text = main_text("cls = Module\n" + body + "\nreturn x", params='x: R.Tensor((3, 2), "float32")', extra=extra)
    with pytest.raises(StructInfoError, match=msg) as ei:
        parse(text)
    assert ei.value.function == "main" and ei.value.span is not None


def test_call_tir_needs_a_tensor_out_sinfo_with_a_shape():
    text = main_text('cls = Module\ny = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor("float32", ndim=1))\nreturn y',
                     extra="""    @T.prim_func(private=True)
    def k(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
        for i in range(3):
            B[i] = A[i]

""")
    with pytest.raises(ParseError, match="defined shape"):
        parse(text)


@pytest.mark.tvm
def test_script_parameter_names_match_tvm():
    pytest.importorskip("tvm")
    import inspect

    from tvm.script import relax as R
    from tvm_compat import script_params

    for name in CORE_OPS:
        d = registry.get(name)
        fn = R
        for part in d.script.split(".")[1:]:
            fn = getattr(fn, part)
        theirs = [p for p in inspect.signature(fn).parameters]
        assert script_params(d.script, [p.name for p in d.params]) == theirs, name


def test_keyword_arguments_are_accepted():
    text = main_text('cls = Module\ny = R.call_tir(gvar=cls.k, args=(x,), out_sinfo=R.Tensor((3,), "float32"))\n'
                     'p = R.call_pure_packed(func="f", sinfo_args=R.Object)\nreturn y', pure=True,
                     extra="""    @T.prim_func(private=True)
    def k(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
        for i in range(3):
            B[i] = A[i]

""")
    mod = parse(text)
    assert sinfos(mod) == {"y": 'R.Tensor((3,), dtype="float32")', "p": "R.Object"}
    with pytest.raises(ParseError, match="unexpected keyword argument 'outs'"):
        parse(text.replace("out_sinfo=", "outs="))


def test_shape_to_tensor_of_an_unknown_rank_is_a_1d_tensor_of_unknown_length():
    """OP.shape_to_tensor.C2, DIV.40: not TVM's static shape ``(-1,)``, which RUNTIME.LIMIT.1 refuses."""
    import relax_ref
    from relax_ref.ir.struct_info import TensorStructInfo

    mod = relax_ref.parse('@I.ir_module\nclass Module:\n    @R.function\n    def main(s: R.Shape(ndim=-1)):\n'
                          '        y = R.shape_to_tensor(s)\n        return y\n')
    sinfo = mod["main"].body.blocks[-1].bindings[-1].var.struct_info
    assert isinstance(sinfo, TensorStructInfo) and sinfo.shape is None and sinfo.ndim == 1 and sinfo.dtype == "int64"
    assert relax_ref.evaluate(mod, "main", (2, 3)).tolist() == [2, 3]

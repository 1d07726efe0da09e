"""Devices in text: ``R.device(...)`` of ``R.hint_on_device`` and the virtual-device strings of
``R.to_vdevice`` and struct info (spec TEXT.MOD.4, OP.hint_on_device, OP.to_vdevice)."""

import pytest

from relax_ref.analysis.structural_equal import structural_equal
from relax_ref.errors import ParseError
from relax_ref.ir.struct_info import VDevice
from relax_ref.ops.core import parse_device, parse_vdevice
from relax_ref.script.parser import parse
from relax_ref.script.printer import print_module

HEADER = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"

HINTS = HEADER + '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.hint_on_device(x, R.device(device_type=2, index=1), "global")
        z = R.hint_on_device(y, R.device(1))
        w = R.hint_on_device(z, R.device("cuda", 3))
        return w
'''


def _bindings(mod):
    return {b.var.name_hint: b for blk in mod["main"].body.blocks for b in blk.bindings}


def test_r_device_gives_what_parse_device_reads():
    b = _bindings(parse(HINTS))
    got = {k: (b[k].value.attrs["device_type"], b[k].value.attrs["index"]) for k in ("y", "z", "w")}
    assert got == {"y": (2, 1), "z": (1, 0), "w": (2, 3)}
    assert parse_device({"device_type": 2, "index": 1}) == (2, 1)


@pytest.mark.parametrize("dialect", ["tvm", "classic"])
def test_hint_on_device_round_trip(dialect):
    mod = parse(HINTS)
    text = print_module(mod, dialect=dialect)
    assert 'R.hint_on_device(x, R.device(device_type=2, index=1), "global")' in text
    assert 'R.device(device_type=2, index=3)' in text
    assert structural_equal(mod, parse(text))


@pytest.mark.parametrize("bad", ['R.device(1.5)', 'R.device("tpu")', 'R.device(1, index="a")'])
def test_malformed_device(bad):
    text = HINTS.replace("R.device(1)", bad)
    with pytest.raises(ParseError):
        parse(text)


DECLARED = HEADER + '''
@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("cuda", 0, "global"),
                                       I.vdevice("llvm", 3, "global"), I.vdevice("cuda", 5, "global")]})
    @R.function
    def main(x: R.Tensor((2,), "float32", vdevice="llvm:1")):
        y = R.to_vdevice(x, "cuda:1:global")
        z = R.to_vdevice(x, dst_vdevice="llvm:1:local")
        return (y, z)
'''


def test_to_vdevice_index_counts_declared_devices_of_the_kind():
    mod = parse(DECLARED)
    devs = mod.global_infos["vdevice"]
    b = _bindings(mod)
    assert b["y"].value.attrs["dst_vdevice"] is devs[3]  # the second cuda device, vdevice_id 5
    assert b["z"].value.attrs["dst_vdevice"] is devs[2]  # the written scope is ignored, as in TVM
    assert b["y"].var.struct_info.vdevice is devs[3]
    assert mod["main"].params[0].struct_info.vdevice is devs[2]
    text = print_module(mod, dialect="tvm-0.25")
    assert 'R.to_vdevice(x, dst_vdevice="cuda:1:global")' in text
    assert structural_equal(mod, parse(text))


def test_to_vdevice_of_an_undeclared_device_is_a_parse_error():
    with pytest.raises(ParseError, match="not declared"):
        parse(DECLARED.replace('"cuda:1:global"', '"cuda:2"'))


def test_parse_vdevice_with_and_without_declarations():
    declared = (VDevice("llvm", 0), VDevice("cuda", 7), VDevice("llvm", 4, "shared"))
    assert parse_vdevice("llvm:1:global", declared=declared) is declared[2]
    assert parse_vdevice("cuda", declared=declared) is declared[1]
    with pytest.raises(ParseError):
        parse_vdevice("cuda:1", declared=declared)
    assert parse_vdevice("cuda:1:shared") == VDevice("cuda", 1, "shared")
    for bad in ("", ":1", "llvm:x", "a:1:b:c"):
        with pytest.raises(ParseError):
            parse_vdevice(bad)


@pytest.mark.tvm
def test_to_vdevice_matches_tvm():
    tvm = pytest.importorskip("tvm")
    from tvm.script import ir as TI, relax as TR

    ref = tvm.script.from_source(DECLARED.split("\n", 2)[2], extra_vars={"I": TI, "R": TR})
    ids = [int(b.value.attrs.dst_vdevice.vdevice_id) for b in ref["main"].body.blocks[0].bindings]
    b = _bindings(parse(DECLARED))
    assert [b["y"].value.attrs["dst_vdevice"].vdevice_id, b["z"].value.attrs["dst_vdevice"].vdevice_id] == ids

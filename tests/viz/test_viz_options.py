"""``relax-ref viz --function F --collapse --depth N --compact``: how many levels of calls are drawn
inside their callers, calls drawn as one node naming what they compute, weights inside their users'
labels, and the picture of the example decoder that these make legible."""

import re
import shutil
import struct

import pytest

import relax_ref
from relax_ref.cli import main as cli_main

pytest.importorskip("graphviz")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="the graphviz 'dot' program is not installed")

NESTED = '''
from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def fused_add_relu(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": True})
        with R.dataflow():
            y = R.add(x, x)
            z = R.nn.relu(y)
            R.output(z)
        return z

    @R.function
    def block(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            y = cls.fused_add_relu(x)
            z = R.multiply(y, y)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        a = cls.block(x)
        b = cls.block(a)
        c = R.add(b, w)
        return c
'''


def _dot(tmp_path, *args, text=NESTED):
    src = tmp_path / "m.py"
    src.write_text(text)
    out = tmp_path / "g.dot"
    assert cli_main(["viz", str(src), *args, "-o", str(out)]) == 0
    dot = out.read_text()
    labels = [s.replace("\\n", "\n") for s in re.findall(r'label="((?:[^"\\]|\\.)*)"', dot)]
    return dot, labels


def test_default_draws_plain_calls_as_nodes(tmp_path):
    _, labels = _dot(tmp_path)
    assert "a = cls.block" in labels and "b = cls.block" in labels
    assert not any("R.multiply" in t for t in labels)


def test_collapse_names_what_a_call_computes(tmp_path):
    dot, labels = _dot(tmp_path, "--collapse")
    assert "a = cls.block\ncls.fused_add_relu, multiply" in labels
    assert "subgraph cluster_" not in dot  # main has no dataflow block, and no call is drawn inside
    _, labels0 = _dot(tmp_path, "--depth", "0")
    assert labels0 == labels


def test_depth_one_and_two(tmp_path):
    _, labels = _dot(tmp_path, "--depth", "1")
    assert labels.count("a = cls.block") == 1  # the box of the first call
    assert labels.count("y = cls.fused_add_relu (fused)\nadd, nn.relu") == 2
    assert labels.count("z = R.multiply") == 2
    _, labels = _dot(tmp_path, "--depth", "2")
    assert labels.count("y = cls.fused_add_relu (fused)") == 2  # now boxes
    assert labels.count("y = R.add") == 2 and labels.count("z = R.nn.relu") == 2


def test_function_option_and_bad_depth(tmp_path, capsys):
    _, labels = _dot(tmp_path, "--function", "block")
    assert "y = cls.fused_add_relu (fused)" in labels and "y = R.add" in labels  # fused drawn inside
    src = tmp_path / "m.py"
    assert cli_main(["viz", str(src), "--depth", "-1", "-o", str(tmp_path / "x.dot")]) == 1
    assert "depth must be >= 0" in capsys.readouterr().err


def test_compact_names_weights_in_labels(tmp_path):
    dot, labels = _dot(tmp_path, "--compact")
    assert "c = R.add\nw: w" in labels
    assert not any(t.startswith("w\n") for t in labels)  # the weight is no node
    assert any(t.startswith("x\n") for t in labels)  # the input is
    assert "(4,) f32" not in re.findall(r'->[^\[]*\[label="([^"]*)"', dot)  # edges unlabelled


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@needs_dot
def test_fused_decoder_is_legible(tmp_path):
    """The two-layer decode step of the example, fused: with --collapse --compact each decoder layer
    is one column of named nodes, and the picture is less than half the size of the default one."""
    from file_modules import REPO, load_file

    from relax_ref.transform import AnnotateTIROpPattern, FuseOps, LegalizeOps, Sequential

    llama = load_file("llama_tiny_viz_options", REPO / "examples" / "llama_tiny.py")
    mod = Sequential([LegalizeOps(), AnnotateTIROpPattern(), FuseOps()])(llama.build_module(llama.make_model(0)))
    src = tmp_path / "fused.py"
    src.write_text(mod.script(dialect="tvm"))
    assert relax_ref.parse(src.read_text())  # the printed module reads back
    full, small = tmp_path / "full.png", tmp_path / "small.png"
    assert cli_main(["viz", str(src), "--function", "decode", "-o", str(full)]) == 0
    assert cli_main(["viz", str(src), "--function", "decode", "--collapse", "--compact", "-o", str(small)]) == 0
    (w0, h0), (w1, h1) = _png_size(full), _png_size(small)
    assert w1 * h1 < 0.25 * w0 * h0 and h1 < 0.5 * h0
    _, labels = _dot(tmp_path, "--function", "decode", "--collapse", "--compact", text=src.read_text())
    assert sum(1 for t in labels if "w: layers_0_mlp_down_proj_weight" in t) == 1
    assert sum(1 for t in labels if "(fused)" in t) >= 10
    assert not any(t.startswith("layers_") for t in labels)  # no weight nodes

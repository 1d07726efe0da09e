"""``relax-ref viz``: the SVG of a fused module is valid XML whose nodes carry the bindings' labels,
whose edges carry struct info, and whose fused groups are boxes around their nodes. Needs the Python
package ``graphviz``; SVG/PNG also need the ``dot`` program (skipped when absent)."""

import shutil
import xml.etree.ElementTree as ET

import pytest

from relax_ref.builder import BlockBuilder, Object, Prim, Tensor, call, call_packed, const, if_, op, var
from relax_ref.cli import main as cli_main
from relax_ref.ops import te

graphviz = pytest.importorskip("graphviz")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="the graphviz 'dot' program is not installed")
SVG = "{http://www.w3.org/2000/svg}"


def _te_matmul(a, b):
    k = te.reduce_axis(a.shape[1], "k")
    return te.compute((a.shape[0], b.shape[1]), lambda i, j: te.sum(te.mul(a[i, k], b[k, j]), axis=k), name="matmul")


def _te_bias(a, b):
    return te.compute(a.shape, lambda i, j: te.add(a[i, j], b[j]), name="T_add")


def _te_relu(a):
    return te.compute(a.shape, lambda i, j: te.max_(a[i, j], te.const(0.0, "float32")), name="relu")


def _te_add_exp(a):
    t = te.compute(a.shape, lambda i, j: te.add(a[i, j], te.const(1.0, "float32")), name="T_add")
    return te.compute(a.shape, lambda i, j: te.exp(t[i, j]), name="compute")


def fused_module():
    """main: a call of a Primitive function (FuseOps form), a call_tir of a fused PrimFunc
    (FuseTIR form), an operator and a packed call."""
    bb = BlockBuilder()
    n1 = bb.sym_var("n")
    px, pw, pb = var("x", Tensor((n1, 16), "float32")), var("w", Tensor((16, 8), "float32")), \
        var("b", Tensor((8,), "float32"))
    with bb.function("fused_matmul_add_relu", [px, pw, pb], attrs={"Primitive": True}, private=True):
        with bb.dataflow():
            y = bb.emit_te(_te_matmul, px, pw, primfunc_name_hint="matmul")
            z = bb.emit_te(_te_bias, y, pb, primfunc_name_hint="add")
            r = bb.emit_output(bb.call_te(_te_relu, z, primfunc_name_hint="relu"))
        bb.emit_func_output(r)
    n = bb.sym_var("n")
    x, w, b = var("x", Tensor((n, 16), "float32")), var("w", Tensor((16, 8), "float32")), \
        var("b", Tensor((8,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            h = bb.emit(call(bb.get_global_var("fused_matmul_add_relu"), x, w, b))
            e = bb.emit_te(_te_add_exp, h, primfunc_name_hint="fused_add_exp")
            s = bb.emit(op.nn.softmax(e, axis=-1))
            o = bb.emit_output(op.call_dps_packed("ext.postprocess", (s,), out_sinfo=Tensor((n, 8), "float32")))
        bb.emit_func_output(o)
    return bb.get()


def _write(tmp_path, mod, name="mod.py"):
    path = tmp_path / name
    path.write_text(mod.script(dialect="tvm"))
    return path


def _svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    nodes, clusters, edges = {}, {}, []
    for g in root.iter(SVG + "g"):
        cls = g.get("class")
        texts = [t.text or "" for t in g.iter(SVG + "text")]
        if cls == "node":
            shape = next((c for c in g if c.tag in (SVG + "polygon", SVG + "ellipse", SVG + "path")), None)
            nodes[g.find(SVG + "title").text] = ("\n".join(texts), _bbox(shape))
        elif cls == "cluster":
            shape = g.find(SVG + "polygon")
            clusters["\n".join(texts)] = _bbox(shape if shape is not None else g.find(SVG + "path"))
        elif cls == "edge":
            edges.append((g.find(SVG + "title").text, " ".join(texts)))
    return nodes, clusters, edges


def _bbox(shape):
    if shape is None:
        return None
    if shape.tag.endswith("ellipse"):
        cx, cy, rx, ry = (float(shape.get(k)) for k in ("cx", "cy", "rx", "ry"))
        return cx - rx, cy - ry, cx + rx, cy + ry
    if shape.tag.endswith("polygon"):
        pts = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
    else:  # path: take every number pair
        import re

        nums = list(map(float, re.findall(r"-?\d+(?:\.\d+)?", shape.get("d"))))
        pts = list(zip(nums[0::2], nums[1::2]))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _inside(inner, outer):
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


@needs_dot
def test_viz_svg_of_fused_module(tmp_path, capsys):
    path = _write(tmp_path, fused_module())
    out = tmp_path / "main.svg"
    assert cli_main(["viz", str(path), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    nodes, clusters, edges = _svg(out)
    labels = {text: box for text, box in nodes.values()}
    by_first = {text.split("\n")[0]: (text, box) for text, box in labels.items()}
    # parameters, the Primitive function's bindings, the fused PrimFunc call, the op, the packed call
    assert by_first["x"][0] == "x\n(n, 16) f32"
    assert by_first["b"][0] == "b\n(8,) f32"
    assert "lv = call_tir\nmatmul" in labels and "gv = call_tir\nrelu" in labels
    assert "lv1 = call_tir\nfused_add_exp\nblocks: T_add, compute" in labels
    assert "lv2 = R.nn.softmax\naxis=-1" in labels
    assert "gv = R.call_dps_packed\next.postprocess" in labels
    assert "return" in labels
    # fused groups are boxed: the Primitive function's nodes lie inside its cluster, the others outside
    fused = clusters["lv = cls.fused_matmul_add_relu (fused)"]
    prim_box = clusters["fused PrimFunc fused_add_exp"]
    for text in ("lv = call_tir\nmatmul", "lv1 = call_tir\nadd", "gv = call_tir\nrelu"):
        assert _inside(labels[text], fused), text
    assert not _inside(labels["lv2 = R.nn.softmax\naxis=-1"], fused)
    assert not _inside(by_first["x"][1], fused)
    assert _inside(labels["lv1 = call_tir\nfused_add_exp\nblocks: T_add, compute"], prim_box)
    assert "dataflow" in clusters
    # edges carry the struct info of the value flowing along them
    assert sum(1 for _, label in edges if label == "(n, 8) f32") >= 5
    assert any(label == "(n, 16) f32" for _, label in edges)
    assert len(edges) == 9


@needs_dot
def test_viz_control_flow_packed_calls_and_stdout(tmp_path, capsysbinary):
    bb = BlockBuilder()
    n = bb.sym_var("n")
    x = var("x", Tensor((n,), "float32"))
    c = var("c", Prim("bool"))
    with bb.function("main", [x, c], pure=False):
        r = bb.emit(if_(c, op.exp(x), op.negative(x)), name_hint="r")
        bb.emit(call_packed("my.log", r, sinfo_args=Object()), name_hint="logged")
        k = bb.match_cast(r, Tensor((bb.sym_var("k"),), "float32"), name_hint="kc")
        bb.emit_func_output(bb.emit(op.add(k, const(1.0))))
    path = _write(tmp_path, bb.get())
    assert cli_main(["viz", str(path)]) == 0
    data = capsysbinary.readouterr().out
    out = tmp_path / "stdout.svg"
    out.write_bytes(data)
    nodes, clusters, _ = _svg(out)
    labels = [t for t, _ in nodes.values()]
    assert "r = if" in labels and "then" in clusters and "else" in clusters
    assert "logged = R.call_packed\nmy.log" in labels
    assert "kc = match_cast\n(k,) f32" in labels
    assert any(t.startswith("gv") and "R.add" in t and "const 1.0" in t for t in labels)


def test_viz_dot_output_without_dot_program(tmp_path):
    path = _write(tmp_path, fused_module())
    out = tmp_path / "g.dot"
    assert cli_main(["viz", str(path), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("digraph main {") and "subgraph cluster_" in text
    assert '"lv = cls.fused_matmul_add_relu (fused)"' in text


@needs_dot
def test_viz_llama_decode_and_png(tmp_path):
    from file_modules import REPO, load_file

    llama = load_file("llama_tiny_viz", REPO / "examples" / "llama_tiny.py")
    path = _write(tmp_path, llama.build_module(llama.make_model(0)))
    out = tmp_path / "decode.svg"
    assert cli_main(["viz", str(path), "--entry", "decode", "-o", str(out)]) == 0
    nodes, _, edges = _svg(out)
    labels = [t for t, _ in nodes.values()]
    assert sum(1 for t in labels if "R.nn.attention" in t) == 2
    assert any("match_cast" in t and "kv_len" in t for t in labels)
    assert any(label == "(1, m + 1, 2, 32) f32" for _, label in edges)
    png = tmp_path / "small.png"
    assert cli_main(["viz", str(_write(tmp_path, fused_module(), "f.py")), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_viz_errors(tmp_path, capsys):
    path = _write(tmp_path, fused_module())
    assert cli_main(["viz", str(path), "--entry", "nope", "-o", str(tmp_path / "x.dot")]) == 1
    assert "no function named 'nope'" in capsys.readouterr().err
    assert cli_main(["viz", str(path), "--entry", "matmul", "-o", str(tmp_path / "x.dot")]) == 1
    assert "PrimFunc" in capsys.readouterr().err
    assert cli_main(["viz", str(path), "-o", str(tmp_path / "x.jpg")]) == 1
    assert "cannot tell the format" in capsys.readouterr().err

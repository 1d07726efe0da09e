"""Export with symbolic dimensions (relax_jax.export): the artifact is serialized, read back and run at
three sizes against the reference interpreter; what cannot export says why."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_jax.export import argument_specs, deserialize, describe, export_function, stablehlo_bytecode, stablehlo_text
from relax_ref.errors import UnsupportedError

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from tvm.script import ir as I, relax as R, tir as T\n\n@I.ir_module\nclass Module:\n"

MLP = HEAD + '''    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            y = R.nn.relu(R.add(R.matmul(x, w), b))
            R.output(y)
        return y
'''
CONCAT = HEAD + '''    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("m", 4), "float32")) -> R.Tensor(("n + m", 4), "float32"):
        with R.dataflow():
            z = R.concat((x, y), axis=0)
            o = R.multiply(z, R.sum(z, axis=1, keepdims=True))
            R.output(o)
        return o
'''
RESHAPE = HEAD + '''    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n * m",), "float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            z = R.reshape(R.nn.softmax(x, axis=-1), R.shape([n * m]))
            R.output(z)
        return z
'''
TAKE = HEAD + '''    @R.function
    def main(ids: R.Tensor(("n",), "int32"), emb: R.Tensor((10, 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            z = R.take(emb, ids, axis=0)
            R.output(z)
        return z
'''


def _args(exported, n, rng):
    out = []
    for a in exported.in_avals:
        shape = tuple(d if isinstance(d, int) else n for d in a.shape)
        if np.issubdtype(a.dtype, np.integer):
            out.append(rng.integers(0, 10, shape).astype(a.dtype))
        else:
            out.append(rng.standard_normal(shape).astype(a.dtype))
    return out


def _round_trip(text, entry="main", sizes=(1, 3, 8), **kw):
    pytest.importorskip("flatbuffers")  # a dependency of relax-ref: serialization of jax.export
    mod = relax_ref.parse(text)
    data = relax_jax.compile(mod).export(entry, **kw)
    assert isinstance(data, bytes)
    back = deserialize(data)
    rng = np.random.default_rng(0)
    for n in sizes:
        args = _args(back, n, rng)
        got = back.call(*args)
        want = relax_ref.evaluate(mod, entry, *args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert np.asarray(g).shape == np.asarray(w).shape, n
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
    return back


@pytest.mark.parametrize("text", [MLP, CONCAT, RESHAPE], ids=["mlp", "concat", "reshape"])
def test_round_trip_three_sizes(text):
    back = _round_trip(text)
    assert all(not isinstance(d, int) for d in back.in_avals[0].shape[:1])  # the leading extent is symbolic


def test_signature_is_symbolic():
    exe = relax_jax.compile(relax_ref.parse(CONCAT))
    exported = export_function(exe)
    assert describe(exported).startswith("(float32[n,4], float32[m,4]) -> (float32[n + m,4])")
    text = stablehlo_text(exported)
    assert "func.func public @main" in text and "tensor<?x4xf32>" in text
    assert stablehlo_bytecode(exported)[:4] == b"ML\xefR"  # MLIR bytecode


def test_shared_variable_is_checked_at_call_time():
    pytest.importorskip("flatbuffers")
    text = HEAD + '''    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return R.add(x, y)
'''
    back = deserialize(relax_jax.compile(relax_ref.parse(text)).export())
    with pytest.raises(Exception, match="n"):
        back.call(np.ones(3, "float32"), np.ones(4, "float32"))


def test_data_checks_need_checks_off():
    exe = relax_jax.compile(relax_ref.parse(TAKE))
    with pytest.raises(UnsupportedError, match="run-time checks on data"):
        export_function(exe)
    _round_trip(TAKE, checks="off")


def test_llama_decode_round_trips():
    """The decode step of the example decoder (KV caches of symbolic length m) exports once and runs
    at three cache lengths like the reference."""
    pytest.importorskip("flatbuffers")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import llama_tiny
    finally:
        sys.path.pop(0)
    model = llama_tiny.make_model(0)
    mod = llama_tiny.build_module(model)
    back = deserialize(relax_jax.compile(mod).export("decode", checks="off"))
    cfg, weights = model.cfg, model.param_arrays()
    rng = np.random.default_rng(1)
    for m in (1, 4, 11):
        caches = [rng.standard_normal((1, m, cfg.num_kv_heads, cfg.head_dim)).astype("float32")
                  for _ in range(2 * cfg.num_layers)]
        args = [np.asarray([[7]], "int32"), *caches, *weights]
        got, want = back.call(*args), relax_ref.evaluate(mod, "decode", *args)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("param, match", [
    ('x: R.Tensor("float32")', "unknown rank"),
    ('x: R.Shape(["n"])', "Shape"),
    ('x: R.Prim(value="n")', "data, not a dimension"),
])
def test_unsupported_parameters(param, match):
    text = HEAD + f'''    @R.function
    def main({param}) -> R.Tuple:
        return R.tuple()
'''
    exe = relax_jax.compile(relax_ref.parse(text))
    with pytest.raises(UnsupportedError, match=match):
        export_function(exe)


def test_constraints():
    exe = relax_jax.compile(relax_ref.parse(MLP))
    exported = export_function(exe, constraints=["n <= 4096"])
    assert describe(exported).startswith("(float32[n,4]")
    with pytest.raises(UnsupportedError, match="constraint"):
        argument_specs(exe, constraints=["n <<= 3"])


def test_cli_writes_stablehlo(tmp_path):
    pytest.importorskip("flatbuffers")
    src = tmp_path / "mlp.py"
    src.write_text(MLP)
    out = tmp_path / "main.stablehlo"
    r = subprocess.run([sys.executable, "-c", "import sys; from relax_ref.cli import main; sys.exit(main())",
                        "export", str(src), "--entry", "main", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "float32[n,4]" in r.stdout
    assert out.read_text().lstrip().startswith("#loc") or "module @" in out.read_text()
    assert "stablehlo." in out.read_text()
    assert Path(str(out) + ".mlirbc").read_bytes()[:4] == b"ML\xefR"
    back = deserialize(Path(str(out) + ".jax").read_bytes())
    x, w, b = np.ones((5, 4), "float32"), np.ones((4, 8), "float32"), np.zeros(8, "float32")
    np.testing.assert_allclose(np.asarray(back.call(x, w, b)), np.full((5, 8), 4.0, "float32"))


def test_cli_reports_unsupported(tmp_path):
    src = tmp_path / "take.py"
    src.write_text(TAKE)
    r = subprocess.run([sys.executable, "-c", "import sys; from relax_ref.cli import main; sys.exit(main())",
                        "export", str(src), "-o", str(tmp_path / "o.stablehlo")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "run-time checks on data" in r.stderr and "index is out of range" in r.stderr
    assert "--checks off" in r.stderr

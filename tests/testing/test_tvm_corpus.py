"""The corpus measurement (relax_ref.testing.tvm_corpus): extraction with ast, standalone detection,
parsing and round trips, on a source file written here."""

import textwrap

from relax_ref.testing import tvm_corpus

SOURCE = textwrap.dedent('''
    import tvm
    import numpy as np
    from tvm.script import ir as I, relax as R, tir as T

    n = T.int64()
    SIZE = 4

    @I.ir_module
    class Top:
        @R.function
        def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
            y = R.add(x, x)
            return y

    def test_inside():
        @R.function
        def f(x: R.Tensor((SIZE,), "float32")):
            return x

        @T.prim_func
        def g(a: T.Buffer((4,), "float32")):
            for i in range(4):
                a[i] = T.float32(0)

        np.testing.assert_equal(1, 1)
''')


def test_extraction_finds_definitions_and_their_free_names(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text(SOURCE)
    defs = {d.name: d for d in tvm_corpus.extract([tmp_path])}
    assert set(defs) == {"Top", "f", "g"}
    assert defs["Top"].kind == "module" and defs["Top"].standalone
    assert "n = T.int64()" in defs["Top"].text and defs["Top"].decls == (("n", "int64", ""),)
    assert not defs["f"].standalone and defs["f"].free_names == ("SIZE",)
    assert defs["g"].standalone and defs["g"].text.lstrip().startswith("from tvm.script import tir as T")
    assert defs["g"].body.startswith("@T.prim_func")


def test_measure_parses_and_round_trips(tmp_path):
    (tmp_path / "test_x.py").write_text(SOURCE)
    defs = tvm_corpus.extract([tmp_path])
    results = tvm_corpus.measure(defs)
    summary = tvm_corpus.summarize(defs, results)
    assert summary["standalone"] == 2 and summary["parsed"] == 2 and summary["roundtrip"] == 2
    assert summary["crashes"] == 0


def test_failures_are_reported_as_masked_causes(tmp_path):
    (tmp_path / "test_y.py").write_text(textwrap.dedent('''
        from tvm.script import relax as R

        @R.function
        def bad(x: R.Tensor((4,), "float32")):
            return R.no_such_operator(x)
    '''))
    defs = tvm_corpus.extract([tmp_path])
    results = tvm_corpus.measure(defs)
    assert [r.parse for r in results] == ["ParseError"]
    summary = tvm_corpus.summarize(defs, results)
    assert summary["causes"][0][0].startswith("[operator] ParseError:") and "'_'" in summary["causes"][0][0]
    # an unknown operator belongs to the operator work, counted apart from the reading of the text
    assert summary["categories"] == {"operator": 1} and summary["without_other_work"] == 0

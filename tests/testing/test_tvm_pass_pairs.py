"""The pass-pair measurement: extraction of (input, passes, expected) from test sources written in the
shapes TVM's pass tests use (our own sources, never TVM's), and the per-pass tally."""

import textwrap

import pytest

from relax_ref.testing.tvm_pass_extract import extract_pairs, primary_pass
from relax_ref.testing.tvm_pass_pairs import format_table, measure, table

HEADER = '''
import inspect
import pytest
import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.relax.transform import ToNonDataflow

'''

def _dataflow_pair(op: str) -> str:
    """A module ``Before`` binding ``y = op(x, x)`` in a dataflow block and the start of ``Expected``,
    the same binding outside it."""
    return f'''
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                y = R.{op}(x, x)
                R.output(y)
            return y

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            y = R.{op}(x, x)
'''


_IDENTITY = '''    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            return x
'''

PLAIN = '''
def test_direct():''' + _dataflow_pair("add") + '''            return y

    After = relax.transform.ToNonDataflow()(Before)
    tvm.ir.assert_structural_equal(After, Expected)


def verify(before, expected, level=2):
    seq = tvm.transform.Sequential([ToNonDataflow(), relax.transform.Normalize()])
    with tvm.transform.PassContext(opt_level=level):
        mod = seq(before)
    tvm.ir.assert_structural_equal(expected, mod)


def test_through_helper():''' + _dataflow_pair("multiply") + '''            # a deliberate difference: the expected module adds instead
            z = R.add(y, x)
            return z

    verify(Before, Expected, level=3)


@pytest.mark.parametrize("fuse", [1, 2])
def test_parametrized(fuse):
''' + _IDENTITY + '''
    after = relax.transform.FuseOps(fuse)(Before)
    tvm.ir.assert_structural_equal(after, Before)


def test_error_expected():
''' + _IDENTITY + '''
    with pytest.raises(ValueError):
        after = relax.transform.NoSuchPass()(Before)
        tvm.ir.assert_structural_equal(after, Before)


def test_python_built():
    bb = relax.BlockBuilder()
    mod = bb.get()
    after = relax.transform.ToNonDataflow()(mod)
    tvm.ir.assert_structural_equal(after, mod)


class Base:
    def test_compare(self):
        transform = relax.transform.ToNonDataflow()
        if inspect.isclass(self.Expected) and issubclass(self.Expected, Exception):
            with pytest.raises(self.Expected):
                transform(self.Before)
        else:
            after = transform(self.Before)
            tvm.ir.assert_structural_equal(self.Expected, after["main"])


class TestInherited(Base):
    @I.ir_module
    class Before:
        @R.function(private=True)
        def main(x: R.Tensor((2,), "float32")):
            return x

    @R.function(private=True)
    def Expected(x: R.Tensor((2,), "float32")):
        return x


class TestInheritedError(Base):
    Before = None
    Expected = ValueError
'''


def _write(tmp_path, body=PLAIN):
    d = tmp_path / "tests" / "python" / "relax"
    d.mkdir(parents=True)
    (d / "test_transform_example.py").write_text(HEADER + textwrap.dedent(body))
    (d / "test_other.py").write_text(HEADER + "def test_x():\n    tvm.ir.assert_structural_equal(1, 2)\n")
    return tmp_path


def test_extraction_shapes(tmp_path):
    root = _write(tmp_path)
    pairs, sites = extract_pairs(root)
    by_test = {}
    for p in pairs:
        by_test.setdefault(p.test, []).append(p)
    assert set(by_test) == {"test_direct", "test_through_helper", "test_parametrized", "TestInherited.test_compare"}
    direct, = by_test["test_direct"]
    assert (direct.input.name, direct.expected.name) == ("Before", "Expected")
    assert [p.name for p in direct.chain] == ["ToNonDataflow"] and direct.pass_name == "ToNonDataflow"
    helper, = by_test["test_through_helper"]
    assert [p.name for p in helper.chain] == ["ToNonDataflow", "Normalize"]
    assert dict(helper.chain[0].context)["opt_level"].value == 3
    fused = sorted(p.chain[0].arg(0, "fuse_opt_level") for p in by_test["test_parametrized"])
    assert fused == [1, 2]
    inherited, = by_test["TestInherited.test_compare"]
    assert inherited.select == "main" and inherited.expected.kind == "function"
    reasons = sorted(s.reason for s in sites)
    assert reasons == ["expects an error", "not followed: call of an unknown function"], reasons


def test_measurement_counts(tmp_path):
    root = _write(tmp_path)
    outcomes, sites = measure(root)
    rows = table(outcomes)
    assert rows["ToNonDataflow"]["pairs"] == 3
    assert rows["ToNonDataflow"]["equal"] == 2 and rows["ToNonDataflow"]["different"] == 1
    different = [o for o in outcomes if o.status == "different"]
    assert different and different[0].test == "test_through_helper"
    assert "| ToNonDataflow | 3 | 2 | 1 | 0 | 0 | 0 | 67% | 0 | 1 |" in format_table(rows)


def test_recorded_divergences_and_check(tmp_path, monkeypatch, capsys):
    """(PASS.FIDELITY.6) A difference is accepted only with a record naming its test; --check fails on
    any other, and a record that explains nothing is listed."""
    from relax_ref.testing import tvm_pass_divergences as D
    from relax_ref.testing.tvm_pass_pairs import main, unrecorded

    root = _write(tmp_path)
    outcomes, _ = measure(root)
    assert [o.test for o in unrecorded(outcomes)] == ["test_through_helper"]
    assert main([str(root), "--check"]) == 1
    assert "not equal, no recorded divergence" in capsys.readouterr().out
    records = (D.Recorded("test_transform_example.py", "test_through_helper", "ToNonDataflow", "PASS.TONONDF.1",
                          "the expected module adds"),
               D.Recorded("test_transform_example.py", "test_gone", "ToNonDataflow", "PASS.TONONDF.1", "fixed"))
    monkeypatch.setattr(D, "RECORDED", records)
    monkeypatch.setattr(D, "_INDEX", {})
    outcomes, _ = measure(root)
    assert unrecorded(outcomes) == []
    assert [o.recorded for o in outcomes if o.test == "test_through_helper"] == ["PASS.TONONDF.1"]
    assert "| ToNonDataflow | 3 | 2 | 1 | 0 | 0 | 0 | 67% | 1 | 0 |" in format_table(table(outcomes))
    assert main([str(root), "--check"]) == 0
    assert "test_transform_example.py::test_gone" in capsys.readouterr().out


def test_unreadable_and_raising_pairs(tmp_path):
    body = '''
    def test_unreadable():
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((2,), "float32")):
                return R.no_such_operator(x)

        after = relax.transform.ToNonDataflow()(Before)
        tvm.ir.assert_structural_equal(after, Before)


    def test_raises():
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((2,), "float32")):
                return x

        after = relax.transform.DeadCodeElimination(12)(Before)
        tvm.ir.assert_structural_equal(after, Before)
    '''
    root = _write(tmp_path, body)
    outcomes, _ = measure(root)
    status = {o.test: o.status for o in outcomes}
    assert status == {"test_unreadable": "unreadable", "test_raises": "raised"}


def test_primary_pass():
    from relax_ref.testing.tvm_pass_extract import PassCall

    chain = [PassCall("AnnotateTIROpPattern"), PassCall("FuseOps"), PassCall("DeadCodeElimination")]
    assert primary_pass(chain) == "FuseOps"
    assert primary_pass([PassCall("CanonicalizeBindings"), PassCall("DeadCodeElimination")]) == "CanonicalizeBindings"


@pytest.mark.tvm
def test_measurement_under_tvm_equality(tmp_path):
    """(PASS.FIDELITY.2) --tvm: the compared pairs again, under the installed TVM's structural equality."""
    pytest.importorskip("tvm")
    root = _write(tmp_path)
    outcomes, _ = measure(root, with_tvm=True)
    assert sorted((o.status, o.tvm) for o in outcomes if o.pass_name == "ToNonDataflow") == \
        [("different", "different"), ("equal", "equal"), ("equal", "equal")]
    text = format_table(table(outcomes))
    assert "TVM: equal of readable" in text and "| ToNonDataflow | 3 | 2 | 1 | 0 | 0 | 0 | 67% | 2 | 67% | 0 | 1 |" in text


COPIED = '''
def test_copied_kernels():
    @I.ir_module
    class Before:
        @T.prim_func(private=True)
        def twice(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("b"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] * T.float32(2)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            with R.dataflow():
                y = R.call_tir(cls.twice, (x,), out_sinfo=R.Tensor((4,), "float32"))
                R.output(y)
            return y

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.call_tir(Before.get_global_var("twice"), (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y

    for gv, func in Before.functions_items():
        if gv.name_hint != "main":
            Expected[gv] = func

    After = relax.transform.ToNonDataflow()(Before)
    tvm.ir.assert_structural_equal(After, Expected)
'''


def test_expected_module_completed_with_the_inputs_kernels(tmp_path):
    """An expected module that copies the input's other functions in a ``functions_items()`` loop and
    names them ``Before.get_global_var(...)`` is read as the module that loop builds; the test files
    of a ``distributed/`` directory are read too (PASS.FIDELITY.2)."""
    d = tmp_path / "tests" / "python" / "relax" / "distributed"
    d.mkdir(parents=True)
    (d / "test_distributed_transform_example.py").write_text(
        HEADER + "from tvm.script import tir as T\n" + textwrap.dedent(COPIED))
    outcomes, _sites = measure(tmp_path)
    (o,) = outcomes
    assert (o.test, o.pass_name, o.status) == ("test_copied_kernels", "ToNonDataflow", "equal"), o

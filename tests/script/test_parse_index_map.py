"""``T.index_map(lambda ...)`` in ``R.layout_transform`` is read as data (TEXT.INDEXMAP.1)."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import ParseError
from relax_ref.script.dialect import DIALECTS, installed_tvm_dialect

TEXT = '''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 8), "float32")):
        y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j // 4, i, j % 4)), pad_value=None,
                               axis_separators=[], input_axis_separators=[])
        return y
'''


def test_index_map_parses_and_round_trips():
    mod = relax_ref.parse(TEXT)
    for dialect in DIALECTS:
        again = relax_ref.parse(mod.script(dialect=dialect))
        assert relax_ref.structural_equal(mod, again)
    x = np.arange(24, dtype="float32").reshape(3, 8)
    out = relax_ref.evaluate(mod, "main", x)
    np.testing.assert_array_equal(out, x.reshape(3, 2, 4).transpose(1, 0, 2))


@pytest.mark.parametrize("lam", [
    "lambda i, j: __import__('os').system('true')",
    "lambda i, j=1: (i, j)",
    "lambda *a: a",
    "lambda i, j: (i, 1.5)",
])
def test_bad_index_maps_are_parse_errors(lam):
    with pytest.raises(ParseError):
        relax_ref.parse(TEXT.replace("lambda i, j: (j // 4, i, j % 4)", lam))


def test_bare_lambda_argument_is_an_index_map():
    """TVM also accepts the lambda itself as the argument; it means the same index map."""
    bare = relax_ref.parse(TEXT.replace("T.index_map(lambda i, j: (j // 4, i, j % 4))", "lambda i, j: (j // 4, i, j % 4)"))
    assert relax_ref.structural_equal(bare, relax_ref.parse(TEXT))


def test_lambda_elsewhere_is_still_rejected():
    with pytest.raises(ParseError, match="lambda"):
        relax_ref.parse(TEXT.replace("        y = R.layout_transform", "        g = lambda i: i\n        y = R.layout_transform"))


@pytest.mark.tvm
def test_tvm_reads_our_index_map():
    tvm = pytest.importorskip("tvm")
    mod = relax_ref.parse(TEXT)
    tmod = tvm.script.from_source(mod.script(dialect=installed_tvm_dialect()))
    again = relax_ref.parse(tmod.script())
    assert relax_ref.structural_equal(mod, again)

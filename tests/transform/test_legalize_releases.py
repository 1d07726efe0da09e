"""Pass output in the form of a TVM release (PASS.RELEASE.1-3): the forms differ, the values do not."""

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import UnsupportedError
from relax_ref.ir import expr as rx
from relax_ref.ir.struct_info import PrimStructInfo, ShapeStructInfo
from relax_ref.ops.releases import CURRENT, RELEASES, get_release, release_of_tag
from relax_ref.testing.tvm_pass_pairs import release_of_root
from relax_ref.transform import FuseTIR, LegalizeOps, RemoveUnusedParameters

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"
RNG = np.random.default_rng(17)


def parse(text):
    return relax_ref.parse(HEADER + text)


def both(mod):
    return {r: LegalizeOps(release=r)(mod) for r in RELEASES}


def values(x):
    if isinstance(x, (tuple, list)):
        return [values(v) for v in x]
    return np.asarray(x)


def same_values(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            same_values(x, y)
        return
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def test_table_and_tags():
    assert get_release(None) is CURRENT and CURRENT.name == "0.27"
    assert list(RELEASES) == ["0.25", "0.27"]
    with pytest.raises(UnsupportedError, match="unknown TVM release"):
        get_release("0.26")
    assert release_of_tag("v0.25.0") == "0.25" and release_of_tag("v0.26.1") == "0.25"
    assert release_of_tag("v0.27.0") == "0.27" and release_of_tag("v0.30.0") == "0.27"
    assert release_of_tag("main") == "0.27" and release_of_tag("v0.20.0") == "0.25"
    assert release_of_root("/x/tvm-tests/v0.25.0") == "0.25"
    assert release_of_root("/x/tvm-tests/v0.25.0/tests/python/relax") == "0.25"
    assert release_of_root("/x/tvm-tests/main/tests/python/relax") == "0.27"
    with pytest.raises(UnsupportedError):
        LegalizeOps(release="1.0")


SHAPE_TO_TENSOR = """
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("m", 3), "float32"), s: R.Shape(ndim=2)):
        a = R.shape_to_tensor(R.shape_of(x))
        b = R.shape_to_tensor(R.shape([2, 5]))
        c = R.shape_to_tensor(s)
        return (a, b, c)
"""


def test_shape_to_tensor():
    mod = parse(SHAPE_TO_TENSOR)
    out = both(mod)
    old, new = out["0.25"].script(), out["0.27"].script()
    assert old.count("R.shape_to_tensor(") == 3
    assert "R.shape_to_tensor(" not in new and new.count("R.call_tir(") == 2
    assert 'R.call_pure_packed("relax.run.shape_to_tensor"' in new
    args = (RNG.standard_normal((4, 3)).astype("float32"), (7, 0))
    want = values(relax_ref.evaluate(mod, "main", *args))
    same_values(want, [np.array([4, 3]), np.array([2, 5]), np.array([7, 0])])
    for m in out.values():
        same_values(values(relax_ref.evaluate(m, "main", *args)), want)


def test_dropout_and_dilated_transposed_convolution():
    mod = parse("""
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4), "float32"), w: R.Tensor((2, 3, 2, 2), "float32")):
        a = R.nn.dropout(x, rate=0.25)
        b = R.nn.conv2d_transpose(x, w, strides=2, padding=1, dilation=(2, 3))
        return (a, b)
""")
    out = both(mod)
    assert "R.nn.dropout(" in out["0.25"].script() and "R.nn.conv2d_transpose(" in out["0.25"].script()
    new = out["0.27"].script()
    assert "R.nn." not in new and '"kernel_dilate"' in new
    args = (RNG.standard_normal((1, 2, 4, 4)).astype("float32"), RNG.standard_normal((2, 3, 2, 2)).astype("float32"))
    want = values(relax_ref.evaluate(mod, "main", *args))
    got = values(relax_ref.evaluate(out["0.27"], "main", *args))
    same_values(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)
    same_values(values(relax_ref.evaluate(out["0.25"], "main", *args)), want)


def test_read_region_of_a_conditional_index():
    mod = parse("""
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 2, 3), "float32"), n: R.Tensor((2,), "int64")):
        a = R.reverse_sequence(x, n, seq_axis=0, batch_axis=1)
        return a
""")
    out = both(mod)
    assert "T.reads(x[T.if_then_else(" in out["0.25"].script()
    assert "T.reads(x[0:T.int64(4), v_ax1, v_ax2]" in out["0.27"].script().replace("T.int64(0):", "0:")
    args = (RNG.standard_normal((4, 2, 3)).astype("float32"), np.array([3, 1]))
    want = values(relax_ref.evaluate(mod, "main", *args))
    for m in out.values():
        same_values(values(relax_ref.evaluate(m, "main", *args)), want)


REMOVE_UNUSED = """
@I.ir_module
class M:
    @R.function(private=True)
    def func(a: R.Tensor(("m", "n"), "float32"), b: R.Tensor(("n",), "float32")) -> R.Tensor(("m", "n"), "float32"):
        m = T.int64()
        n = T.int64()
        return R.ones(R.shape([m, n]), "float32")

    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((3,), "float32")):
        c = M.func(a, b)
        return c
"""


@pytest.mark.parametrize("make", [RemoveUnusedParameters, FuseTIR])
def test_remove_unused_parameters(make):
    mod = parse(REMOVE_UNUSED)
    kinds = {}
    for r in RELEASES:
        out = make(release=r)(mod)
        func = out["func"]
        kinds[r] = [type(p.struct_info) for p in func.params]
        got = relax_ref.evaluate(out, "main", np.zeros((2, 3), "float32"), np.zeros(3, "float32"))
        same_values(values(got), np.ones((2, 3), "float32"))
    assert kinds == {"0.25": [PrimStructInfo, PrimStructInfo], "0.27": [ShapeStructInfo, ShapeStructInfo]}
    call = next(b.value for blk in make()(mod)["main"].body.blocks for b in blk.bindings)
    assert all(isinstance(a, rx.ShapeExpr) for a in call.args)


def test_convolution_channels_not_provable_keep_the_call():
    """PASS.RELEASE.2: a kernel does not check OP.NN.CONV.SEM.3's channel relations, so a convolution
    whose channel counts are not provably related keeps its call (and its run-time check) at every
    release, grouped (which TVM 0.27 legalizes) or not."""
    text = """
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n", "c", 6, 6), "float32"), w: R.Tensor(("f", "d", 3, 3), "float32"),
             v: R.Tensor(("f", "c", 3, 3), "float32")):
        a = R.nn.conv2d(x, w)
        b = R.nn.conv2d(x, w, groups=2)
        c = R.nn.conv2d(x, v)
        return (a, b, c)
"""
    mod = parse(text)
    for r, out in both(mod).items():
        s = out.script()
        assert s.count("R.nn.conv2d(") == 2 and s.count("R.call_tir(") == 1, r
    x, w = RNG.standard_normal((1, 4, 6, 6)).astype("float32"), RNG.standard_normal((2, 3, 3, 3)).astype("float32")
    with pytest.raises(relax_ref.RelaxError):
        relax_ref.evaluate(LegalizeOps()(mod), "main", x, w, RNG.standard_normal((2, 4, 3, 3)).astype("float32"))


def test_measurement_builds_passes_of_the_release():
    """PASS.RELEASE.3: the measurement hands its release to the passes that take one, and only to them."""
    from relax_ref.testing.tvm_pass_pairs import build_pass
    from relax_ref.testing.tvm_pass_values import PassCall

    assert build_pass(PassCall("LegalizeOps"), release="0.25").release == "0.25"
    assert build_pass(PassCall("RemoveUnusedParameters"), release="0.25").release == "0.25"
    assert build_pass(PassCall("FuseTIR")).release == CURRENT.name
    assert not hasattr(build_pass(PassCall("DeadCodeElimination"), release="0.25"), "release")

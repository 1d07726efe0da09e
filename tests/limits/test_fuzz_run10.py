"""Findings of the tenth fuzzing run (docs/FUZZING.md, seed 20261213): one_hot of a padded index
tensor in relax_jax, contracted products in relax_jax's normalizations (PRIM.FLOAT.1), ``handle`` as the
dtype of an allocated tensor (VAL.DTYPE.4), a unit-valued call as an operator's argument (NORM.VOID.1)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import relax_ref
import relax_ref.values
from relax_ref.errors import ParseError, RelaxError, StructInfoError

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import HEAD  # noqa: E402
from limits.reproducers import on_both  # noqa: E402

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases"

ONE_HOT = HEAD + '''    @R.function
    def main(i: R.Tensor(("n", 3), "int32")) -> R.Tensor(SHAPE, "float32"):
        y = R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=4, axis=AXIS)
        return y
'''


def _one_hot_np(i: np.ndarray, depth: int, axis: int) -> np.ndarray:
    """OP.one_hot.C6 by hand: on where the index equals the position, off elsewhere (an index outside
    ``[0, depth)`` gives an all-off row)."""
    axis = axis % (i.ndim + 1)
    j = np.arange(depth).reshape((1,) * axis + (depth,) + (1,) * (i.ndim - axis))
    return (np.expand_dims(i, axis) == j).astype("float32")


@pytest.mark.parametrize("axis, shape", [(-1, '("n", 3, 4)'), (0, '(4, "n", 3)'), (1, '("n", 4, 3)')])
@pytest.mark.parametrize("i", [
    np.zeros((3, 3), "int32"),                                              # the finding: n = 3 on bucket 4
    np.array([[0, 2, 5], [-1, 1, 3], [3, 3, -2**31]], "int32"),
    np.array([[1, 2, 3], [0, 2**31 - 1, 2], [4, 0, 1], [2, 2, 2], [0, 0, 0]], "int32"),
])
def test_one_hot_of_a_padded_index_tensor(axis, shape, i):
    """relax_jax lowered one_hot as an elementwise operator, so the result's padding was taken by
    right-aligned broadcasting: the padded axis of ``(n, 3, 4)`` read as an exact 4 and the call's
    struct-info check failed inside compiled code (the host run then found nothing: a
    RelaxRuntimeError). The new axis is exact, the others keep the index tensor's padding."""
    text = ONE_HOT.replace("SHAPE", shape).replace("AXIS", str(axis))
    want = _one_hot_np(i, 4, axis)
    got = on_both(text, i)
    assert [k for k, _ in got] == ["value", "value"]
    for _, v in got:
        np.testing.assert_array_equal(v, want)
    exe = relax_jax.compile(relax_ref.parse(text))
    for _ in range(2):                              # the compiled path, then its fast path
        np.testing.assert_array_equal(np.asarray(exe("main", i)), want)
    assert exe.stats.host_calls == 0 and exe.stats.error_reruns == 0


NORM = HEAD + '''    @R.function
    def main(x: R.Tensor((2, 4, 3, 5), "float32"), c: R.Tensor((4,), "float32"),
             g: R.Tensor((3, 5), "float32"), w: R.Tensor((5,), "float32")) -> R.Tensor((2, 4, 3, 5), "float32"):
        y = BODY
        return y
'''

NORMS = {
    "group_norm": "R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, axes=[2, 3])",
    "instance_norm": "R.nn.instance_norm(x, c, c, channel_axis=1, axes=[2, 3])",
    "layer_norm": "R.nn.layer_norm(x, g, g, axes=[2, 3])",
    "rms_norm": "R.nn.rms_norm(x, w, axes=[3])",
}


def _group_norm_np(x, gamma, beta, groups, eps=1e-5):
    """OP.nn.group_norm.C5 by hand in float32, every operation rounded (OP.NN.NORM.SEM.2: one pass,
    ``var = E[x^2] - E[x]^2``)."""
    f = np.float32
    n, c = x.shape[:2]
    xs = x.reshape(n, groups, c // groups, -1)
    cnt = f(xs.shape[2] * xs.shape[3])
    with np.errstate(all="ignore"):
        mean = (xs.sum(axis=(2, 3), keepdims=True, dtype=f) / cnt).astype(f)
        ex2 = ((xs * xs).astype(f).sum(axis=(2, 3), keepdims=True, dtype=f) / cnt).astype(f)
        var = (ex2 - (mean * mean).astype(f)).astype(f)
        r = (f(1) / np.sqrt((var + f(eps)).astype(f))).astype(f)
        norm = ((xs - mean).astype(f) * r).astype(f).reshape(x.shape)
        return ((norm * gamma.reshape(1, c, 1, 1)).astype(f) + beta.reshape(1, c, 1, 1)).astype(f)


def _norm_args(x, c=None):
    rng = np.random.default_rng(3)
    c = np.array([0.0, -0.5, -0.5, 0.0], "float32") if c is None else c
    return x, c, rng.standard_normal((3, 5)).astype("float32"), rng.standard_normal(5).astype("float32")


def test_group_norm_whose_squares_overflow_is_nan_on_both():
    """The finding: a group holding the float32 maximum. Its square overflows, so ``E[x^2]`` is inf and
    so is ``E[x]^2``: the variance is ``inf - inf = nan`` and the whole group is nan. relax_jax's
    ``mean * mean`` was contracted with the subtraction into one fma (an exact square, never inf), the
    variance became inf, rsqrt 0, and the group gave ``beta`` (-0.5 and 0)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 3, 5)).astype("float32")
    x[0, 2, 0, 0] = np.finfo("float32").max
    args = _norm_args(x)
    want = _group_norm_np(x, args[1], args[1], 2)
    assert np.isnan(want[0, 2:]).all() and np.isfinite(np.delete(want.reshape(4, -1), 1, axis=0)).all()
    for kind, got in on_both(NORM.replace("BODY", NORMS["group_norm"]), *args):
        assert kind == "value"
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)     # sums may reassociate


@pytest.mark.parametrize("op", sorted(NORMS))
def test_normalizations_round_each_product_on_both(op):
    """PRIM.FLOAT.1 inside an operator's definition: on data whose sums are exact (quarters of small
    integers), no reassociation can change a bit, so the reference and relax_jax agree bit for bit
    only if no product is contracted into the add, subtract or sum that consumes it (group and
    instance norm differed in 865 and 903 of 2400 elements before)."""
    text = NORM.replace("BODY", NORMS[op])
    rng = np.random.default_rng(7)
    exe = relax_jax.compile(relax_ref.parse(text))
    for _ in range(6):
        x = (rng.integers(-8, 8, (2, 4, 3, 5)) * 0.25).astype("float32")
        args = _norm_args(x, rng.standard_normal(4).astype("float32"))
        ref = np.asarray(relax_ref.evaluate(relax_ref.parse(text), "main", *args))
        got = np.asarray(exe("main", *args))
        if op == "group_norm":
            np.testing.assert_array_equal(ref, _group_norm_np(x, args[1], args[1], 2))
        if op == "layer_norm":          # two passes: x - mean is not exact, its squares' sum may reassociate
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got.view("int32"), ref.view("int32"))


HANDLE = HEAD + '''    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        s = R.memory.alloc_storage(R.shape([13]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        b = CALL
        return b
'''


@pytest.mark.parametrize("call", [
    'R.memory.alloc_tensor(s, R.prim_value(1), R.shape([12]), R.dtype("handle"))',     # the finding
    'R.vm.alloc_tensor(s, R.prim_value(1), R.shape([12]), R.dtype("handle"), R.prim_value(0))',
    'R.builtin.alloc_tensor(R.shape([12]), R.dtype("handle"), R.prim_value(0), R.str("global"))',
    'R.memory.view(x, R.shape([3]), R.dtype("handle"), R.prim_value(0))',
])
def test_handle_is_no_allocated_tensor_dtype(call):
    """VAL.DTYPE.4, one rule for parser and inference (``relax_ref.ir.dtype.value_dtype``): the parser
    refused ``R.Tensor(..., "handle")`` in annotations while the allocation operators inferred such a
    tensor from their dtype argument, so an accepted module printed an annotation it could not read
    back. The operators now refuse it when their struct info is inferred."""
    with pytest.raises(StructInfoError, match="'handle' is not the dtype of a Relax value"):
        relax_ref.parse(HANDLE.replace("CALL", call))


@pytest.mark.parametrize("text", [
    'y: R.Tensor((3,), "handle") = x',
    'y = R.astype(x, "handle")',
    'y = R.zeros(R.shape([2]), "handle")',
])
def test_handle_is_refused_with_the_same_words_at_parse(text):
    src = HEAD + f'''    @R.function
    def main(x: R.Tensor((3,), "float32")):
        {text}
        return y
'''
    with pytest.raises((ParseError, StructInfoError), match="'handle' is not the dtype of a Relax value"):
        relax_ref.parse(src)


UNIT_ARG = HEAD + '''    @T.prim_func
    def fill(b: T.handle):
        n = T.int64()
        B = T.match_buffer(b, (n,), "int16")
        for i in range(n):
            B[i] = T.Cast("int16", i) * T.int16(-7)

    @R.function(pure=False)
    def main(s: R.Shape(["n"])) -> R.Tensor(("n",), "int16"):
        n = T.int64()
        t = R.builtin.alloc_tensor(R.shape([n]), R.dtype("int16"), UNIT, R.str("global"))
        return t
'''

_PRIM_ARG = re.compile(r"R\.prim_value\([^()]*\)")


def _round_trips_or_is_refused(text: str) -> bool:
    """True when the module is accepted and its print reads back equal; False when it is refused."""
    try:
        mod = relax_ref.parse(text)
    except RelaxError:
        return False
    assert relax_ref.structural_equal(relax_ref.parse(mod.script()), mod), text
    return True


@pytest.mark.parametrize("unit", ["R.memory.kill_tensor(0)", "R.vm.kill_object(0)", "R.memory.kill_storage(s)"])
def test_a_unit_call_as_an_operator_argument_round_trips(unit):
    """The finding (``R.memory.kill_tensor(0)`` as alloc_tensor's device index): normalization binds
    the call to a variable of struct info ``R.Tuple()`` and, as every use of such a variable,
    the argument becomes the literal ``R.tuple()`` (NORM.VOID.1), so the printed text reads back to
    the same module; both evaluators run it alike (builtin.alloc_tensor reads its device index only
    for the result's virtual device, OP.builtin.alloc_tensor.C2)."""
    assert _round_trips_or_is_refused(UNIT_ARG.replace("UNIT", unit))
    kinds = [k for k, _ in on_both(UNIT_ARG.replace("UNIT", unit), relax_ref.values.ShapeValue((3,)))]
    assert kinds[0] == kinds[1]


def test_a_unit_call_in_any_prim_value_argument_of_the_suite_round_trips():
    """The same for every operator of the suite: each module whose function binds a call with an
    ``R.prim_value`` argument gets ``R.vm.kill_object(0)`` in its place (the function made impure);
    whatever the parser accepts must print and read back equal."""
    accepted = 0
    for path in sorted(CASES.glob("*/*/module.py")):
        text = path.read_text()
        lines = text.split("\n")
        for k, line in enumerate(lines):
            m = _PRIM_ARG.search(line)
            if m is None or " = R." not in line or line.index(" = R.") > m.start():
                continue
            lines[k] = line[:m.start()] + "R.vm.kill_object(0)" + line[m.end():]
            mutated = "\n".join(lines).replace("@R.function\n", "@R.function(pure=False)\n")
            accepted += _round_trips_or_is_refused(mutated)
            break
    assert accepted >= 20


STORAGE = HEAD + '''    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        s = R.memory.alloc_storage(R.shape([4294967296]), R.prim_value(0), R.str("global"), R.dtype("float64"))
        t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        return t
'''


def test_a_storage_of_4_gib_of_which_one_small_tensor_is_used_is_refused_on_both():
    """The run's fifth signature (ref a value, jax limit_exceeded): a storage counts in full when it
    is allocated (RUNTIME.LIMIT.3), so both refuse the ``alloc_storage`` under a 1 GiB budget."""
    assert on_both(STORAGE, np.zeros(2, "float32"), by_limit=True, max_bytes=2**30) == [("max_bytes", None)] * 2


TAKE_BACKWARD = HEAD + '''    @R.function
    def main(g: R.Tensor((2, 5, 3), GDT), x: R.Tensor((2, 4, 3), "float32"), i: R.Tensor((5,), "int32")) -> R.Tensor((2, 4, 3), "float32"):
        y = R.grad.take_backward(g, x, i, axis=1)
        return y
'''


@pytest.mark.parametrize("gdt", ["float8_e4m3fn", "float16", "float64", "int32"])
def test_take_backward_gradient_of_another_dtype_is_refused(gdt):
    """A later 10-minute run (seed 20261215): ``take_backward`` with a float8 gradient for a float32
    ``x`` crashed relax_jax (JAX has no implicit float8 promotion) while the reference added across
    dtypes with numpy's promotion. OP.grad.take_backward.C1: ``output_grad`` has ``x``'s dtype,
    ``struct_info`` at inference, ``op_runtime`` for a dtype-open gradient (OP.SEM.6) on both."""
    import ml_dtypes

    with pytest.raises(StructInfoError, match="output_grad has dtype"):
        relax_ref.parse(TAKE_BACKWARD.replace("GDT", f'"{gdt}"'))
    np_gdt = getattr(ml_dtypes, gdt, None) or gdt
    g = np.ones((2, 5, 3), "float32").astype(np_gdt)
    args = (g, np.zeros((2, 4, 3), "float32"), np.array([3, 0, 3, 0, 3], "int32"))
    kinds = [k for k, _ in on_both(TAKE_BACKWARD.replace("GDT", "ndim=3"), *args)]
    assert kinds == ["op_runtime", "op_runtime"]          # OP.SEM.6: inference on the actual values
    got = on_both(TAKE_BACKWARD.replace("GDT", "ndim=3"), np.ones((2, 5, 3), "float32"), *args[1:])
    want = np.zeros((2, 4, 3), "float32")
    want[:, 3], want[:, 0] = 3, 2
    for kind, v in got:
        assert kind == "value"
        np.testing.assert_array_equal(v, want)

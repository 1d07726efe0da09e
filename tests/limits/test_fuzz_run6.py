"""Findings of the sixth fuzzing run (docs/FUZZING.md, seed 20261209) and the questions its triage left
open: the order of a packed call's checks in TensorIR (TIR.PACKED.5)."""

from __future__ import annotations

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import FUNC_HEAD  # noqa: E402
from limits.reproducers import on_both  # noqa: E402

PACKED = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        T.call_packed("conformance.not_registered", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), STRIDES, NDIM, T.float32(0), OFFSET), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0))

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


def _packed(strides="0", ndim="1", offset="0"):
    return PACKED.replace("STRIDES", strides).replace("NDIM", ndim).replace("OFFSET", offset)


@pytest.mark.parametrize("strides, ndim, offset, kind", [
    ("-n", "1", "0", "unsupported"),                            # the sixth run's finding: a strides form
    ("0", "2", "0", "ndim_mismatch"),                           # ndim against the shape
    ("0", "1", "1", "out_of_bounds"),                           # one element past the memory
    ("T.tvm_stack_make_shape(2)", "1", "0", "out_of_bounds"),   # strided past the memory
    ("0", "1", "0", "packed_func"),                             # a valid descriptor: the look-up fails
])
def test_packed_call_checks_its_descriptors_before_the_lookup(strides, ndim, offset, kind):
    """TIR.PACKED.5: the function (here unknown) is looked up only after every descriptor passed its
    checks; the reference checked first and relax_jax looked up first (ref ``unsupported``, jax
    ``packed_func`` for strides ``-n``)."""
    x = np.arange(3, dtype="float32")
    assert [k for k, _ in on_both(_packed(strides, ndim, offset), x)] == [kind, kind]


ATTENTION = '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 1024, 1, 1), "float32"), s: R.Tensor((2,), "int32")):
        u = R.unique(s)
        y = R.nn.attention(q, q, q)
        return y
'''


def _attention_args():
    return np.linspace(-1, 1, 1024, dtype="float32").reshape(1, 1024, 1, 1), np.array([2, 1], "int32")


def test_attention_scores_count_against_max_bytes_on_both():
    """RUNTIME.LIMIT.3 (spec/ops/nn.attention.md): the scores (1, 1, 1024, 1024) of float32 are 4 MiB,
    operands and result 4 KiB each: past a budget of 1 MiB the call is limit_exceeded on both, under
    8 MiB both compute the same values."""
    small = on_both(ATTENTION, *_attention_args(), by_limit=True, max_bytes=1 << 20)
    assert [k for k, _ in small] == ["max_bytes", "max_bytes"]
    big = on_both(ATTENTION, *_attention_args(), max_bytes=8 << 20)
    assert [k for k, _ in big] == ["value", "value"]
    np.testing.assert_allclose(big[0][1], big[1][1], rtol=1e-5, atol=1e-6)


def test_host_mode_checks_the_arrays_a_lowering_makes(monkeypatch):
    """RUNTIME.LIMIT.3 in relax_jax's host mode (``R.unique`` keeps the function there), as in the
    compiled path: with attention's own check of its scores taken away, the lowering's 4 MiB
    intermediate is still refused under a budget of 1 MiB before it is made -- and made without the
    guard (the value comes back), which is what the guard prevents."""
    import dataclasses

    import relax_ref
    from relax_ref.errors import LimitExceededError
    from relax_ref.ops import registry
    from relax_jax.walker import Walker

    name = "relax.nn.attention"
    lookup, unchecked = registry.lookup, dataclasses.replace(registry.lookup(name), check=None)
    monkeypatch.setattr(registry, "lookup", lambda op: unchecked if op == name else lookup(op))
    mod = relax_ref.parse(ATTENTION)
    exe = relax_jax.compile(mod, max_bytes=1 << 20)
    with pytest.raises(LimitExceededError, match="max_bytes") as info:
        exe("main", *_attention_args())
    assert info.value.limit == "max_bytes" and "binding 'y'" in str(info.value)
    assert exe.stats.host_calls == 1 and exe.stats.compiles == 0
    monkeypatch.setattr(Walker, "_guard_host_op", lambda *a: None)
    unguarded = relax_jax.compile(mod, max_bytes=1 << 20)
    assert np.asarray(unguarded("main", *_attention_args())).shape == (1, 1024, 1, 1)


ORDER = (FUNC_HEAD + '    def main(x: R.Tensor(("m",), "float32")):\n        y{ann} = {call}\n        return y\n')
SPLIT3 = "R.split(x, indices_or_sections=3, axis=0)"
SPLIT2 = "R.split(x, indices_or_sections=2, axis=0)"
SLICE = "R.strided_slice(x, axes=[0], begin=[1], end=[-1])"
T0 = 'R.Tensor((0,), "float32")'


@pytest.mark.parametrize("call, ann, m, kind", [
    # the inferred sections (m + 2) // 3, (m + 2) // 3, m - (m + 2) // 3 * 2 are 1, 1, -1 for m = 1:
    # op_runtime although the annotation (0, 0, 0) is what numpy's parts are
    (SPLIT3, f": R.Tuple({T0}, {T0}, {T0})", 1, "op_runtime"),
    (SPLIT3, f": R.Tuple({T0}, {T0}, {T0})", 0, "value"),
    # the inference (3, 3) holds for m = 6, the annotation (2, 2) does not: the call result's check
    (SPLIT2, ': R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))', 6, "shape_mismatch"),
    # x[1:-1]: the formula is -1 for m = 1, the result and the annotation have 0 elements
    (SLICE, f": {T0}", 1, "op_runtime"),
    (SLICE, f": {T0}", 2, "value"),
    (SLICE, ': R.Tensor((5,), "float32")', 2, "shape_mismatch"),
])
def test_split_and_strided_slice_check_their_inference_before_the_annotation(call, ann, m, kind):
    """EVAL.CALL.3 (order), OP.SEM.3 as for layout_transform: the operator's run-time check compares
    its result with the struct info the operator infers (``op_runtime``), the annotation on the binding
    is checked after it (``shape_mismatch``); the reference compared the annotation inside the operator
    (``value`` or ``op_runtime`` where relax_jax said otherwise)."""
    x = np.arange(m, dtype="float32")
    assert [k for k, _ in on_both(ORDER.format(ann=ann, call=call), x)] == [kind, kind]


def test_negative_output_padding_is_a_struct_info_error():
    """OP.nn.conv2d_transpose.C4 (DIV.42), the seventh fuzzing run's two crash rows: ``output_padding=(1,
    -1)`` reached both evaluators' kernels (a ValueError from numpy's and from XLA's broadcasting); it
    is refused when the call's struct info is inferred."""
    import relax_ref
    from relax_ref.errors import RelaxError

    text = ('from tvm.script import ir as I, relax as R\n\n\n@I.ir_module\nclass Module:\n    @R.function\n'
            '    def main(x: R.Tensor((1, 4, 3, 4), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):\n'
            '        y = R.nn.conv2d_transpose(x, w, strides=2, output_padding=OPAD)\n        return y\n')
    for opad in ("(1, -1)", "-1"):
        with pytest.raises(RelaxError) as err:
            relax_ref.parse(text.replace("OPAD", opad))
        assert err.value.kind == "struct_info" and "output_padding must not be negative" in str(err.value)
    x, w = np.ones((1, 4, 3, 4), "float32"), np.ones((4, 3, 3, 3), "float32")
    assert [k for k, _ in on_both(text.replace("OPAD", "(1, 0)"), x, w)] == ["value", "value"]


@pytest.mark.parametrize("n", [2, 4, 8])
def test_fast_path_cuts_a_derived_extent_on_its_bucket(n):
    """The second fuzzing run of this round (seed 20261211, ``value|jax``): ``x[1:-1]`` of an ``(n,)``
    tensor with ``n`` on its bucket: relax_jax's fast path for a repeated shape returned the physical
    result ``(n,)`` from the second call on (it took every padded output extent to equal its
    physical size once ``n`` does; ``n - 2`` does not)."""
    import relax_ref
    from program_texts import case_text

    exe = relax_jax.compile(relax_ref.parse(case_text("op_index", "strided_slice_symbolic_formula_negative")))
    x = np.arange(n, dtype="float32")
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(exe("main", x)), x[1:-1])


def test_tensors_inside_a_tuple_argument_are_rechecked_at_run_time():
    """OP.SEM.6, the eighth fuzzing run's ``error-vs-value`` row: ``R.concat((z, u))`` with ``u`` of an
    open dtype (a float32 value) and ``z`` uint32: OP.concat.C2 is re-checked on the actual values of
    the tensors in the tuple, ``op_runtime`` on both (the reference's numpy promotion gave float64 and
    failed the return check, relax_jax's gave float32)."""
    text = (FUNC_HEAD + '    def main(v: R.Tensor("float32", ndim=1)):\n        k = T.int64()\n'
            '        u = R.match_cast(v, R.Tensor((k,)))\n        z = R.zeros(R.shape([1]), "DT")\n'
            '        w = R.concat((z, u), axis=0)\n        return w\n')
    x = np.array([0.5, 1.5], "float32")
    assert [k for k, _ in on_both(text.replace("DT", "uint32"), x)] == ["op_runtime", "op_runtime"]
    same = on_both(text.replace("DT", "float32"), x)
    assert [k for k, _ in same] == ["value", "value"] and same[0][1].tolist() == same[1][1].tolist() == [0, 0.5, 1.5]

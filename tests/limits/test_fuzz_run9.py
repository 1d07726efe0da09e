"""Findings of the ninth fuzzing run (docs/FUZZING.md, seed 20261212): each minimized program, on the
reference and on relax_jax."""

from __future__ import annotations

import numpy as np
import pytest

relax_jax = pytest.importorskip("relax_jax")

import relax_ref  # noqa: E402
from relax_ref.errors import ParseError, WellFormedError  # noqa: E402

from limits.fuzz_cases import HEAD, relax_main as _main  # noqa: E402
from limits.reproducers import on_both  # noqa: E402


@pytest.mark.parametrize("call", ["R.argmin(x, keepdims=True)", "R.argmax(x)", "R.argmax(x, axis=1)"])
@pytest.mark.parametrize("shape, value", [('("n", 0)', (2, 0)), ('("n", "m")', (3, 0)), ('("n", "m")', (0, 2))])
def test_arg_extreme_of_an_empty_symbolic_axis_is_op_runtime_on_both(call, shape, value):
    """The ninth run's ``crash|jax|run|ValueError|ops/search.py``: relax_jax reduced the zero-size
    physical array before OP.argmax.C2's check site could fail (``max`` has no identity)."""
    text = _main(f'x: R.Tensor({shape}, "int32")', f"y = {call}\nreturn y")
    x = np.zeros(value, "int32")
    out = [k for k, _ in on_both(text, x)]
    assert out[0] == out[1] and out[0] in ("op_runtime", "value")
    if call != "R.argmax(x, axis=1)" or value[1] == 0:
        assert out == ["op_runtime", "op_runtime"]


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("value", [(2, 0), (0, 2), (0, 0)])
def test_softmax_of_an_empty_symbolic_axis_is_empty_on_both(op, value):
    """relax_jax took the maximum of a zero-size axis (the same gap as argmin's): the result is empty."""
    text = _main('x: R.Tensor(("n", "m"), "float32")', f"y = R.nn.{op}(x, axis=1)\nreturn y")
    out = on_both(text, np.zeros(value, "float32"))
    assert [k for k, _ in out] == ["value", "value"] and out[0][1].shape == out[1][1].shape == value


def test_a_bound_past_int64_is_refused_where_it_is_read():
    """WF.ATTR.1, the ninth run's ``crash|jax|run|OverflowError|walker.py:check_bounds``: a local
    function's ``tir_var_upper_bound`` of 2**63 reached relax_jax's traced check as a Python int; it is
    a well-formedness error of the module now, so no evaluator reads it."""
    text = _main('x: R.Tensor(("n",), "float32")', '''
@R.function
def dup(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k * 2",), "float32"):
    R.func_attr({"tir_var_upper_bound": {"k": BOUND}})
    w = R.concat((v, v), axis=0)
    return w
y = dup(x)
return y''', 'R.Tensor(("n * 2",), "float32")')
    for bound in ("9223372036854775808", "-9223372036854775809", str(10**30)):
        with pytest.raises(WellFormedError, match="outside the int64 range"):
            relax_ref.parse(text.replace("BOUND", bound))
    ok = on_both(text.replace("BOUND", "9223372036854775807"), np.array([1.0, 0.5], "float32"))
    assert [k for k, _ in ok] == ["value", "value"] and ok[0][1].tolist() == ok[1][1].tolist() == [1, 0.5, 1, 0.5]


@pytest.mark.parametrize("target", ['""', '"handle"'])
@pytest.mark.parametrize("spelling", ["T.Cast({t}, k)", "T.cast(k, {t})"])
def test_a_cast_to_void_or_handle_is_a_parse_error(target, spelling):
    """PRIM.CAST.3, the ninth run's ``error-kind|ref=UnsupportedError|jax=StructInfoError``: one check,
    in the parser, for both evaluators (and for a loop that never runs the cast)."""
    cast = spelling.format(t=target)
    text = HEAD + f'''    @T.prim_func
    def shift(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + {cast}

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([2]))
        return y
'''
    with pytest.raises(ParseError, match="a cast gives a bool, integer or float value"):
        relax_ref.parse(text)
    good = on_both(text.replace(cast, spelling.format(t='"float32"')), np.array([0.5, 1.5], "float32"))
    assert [k for k, _ in good] == ["value", "value"] and good[0][1].tolist() == good[1][1].tolist() == [2.5, 3.5]


STORAGE = _main('x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")', '''
s = R.memory.alloc_storage(R.shape([SIZE]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"))
t2 = R.memory.alloc_tensor(s, R.prim_value(8), R.shape([4]), R.dtype("float32"))
u = R.call_packed("conformance.add_dps", x, x, t1, sinfo_args=R.Object)
v = R.call_packed("conformance.add_dps", y, y, t2, sinfo_args=R.Object)
r = (t1, t2)
return r''', pure=False)


def test_a_storage_counts_in_full_when_it_is_allocated():
    """RUNTIME.LIMIT.3, the ninth run's ``error-vs-value|ref=value|jax=LimitExceededError``: 2 GiB of
    storage of which two 16-byte tensors are used; the reference allocated lazily and answered,
    relax_jax's allocation failed under the budget. Both refuse it at ``alloc_storage`` now, and
    both answer under a budget that holds it."""
    from relax_ref.testing.fuzz_worker import register_suite_funcs

    register_suite_funcs()
    x = np.array([0.25, -0.5, 0.75, -0.25], "float32")
    big = on_both(STORAGE.replace("SIZE", str(2**31)), x, x, by_limit=True, max_bytes=2**30)
    assert [k for k, _ in big] == ["max_bytes", "max_bytes"]
    small = on_both(STORAGE.replace("SIZE", "4096"), x, x, max_bytes=2**30)
    assert [k for k, _ in small] == ["value", "value"]
    for a, b in zip(small[0][1], small[1][1]):
        np.testing.assert_array_equal(a, b)
    # the byte budget itself holds the storage exactly
    at = on_both(STORAGE.replace("SIZE", "4096"), x, x, by_limit=True, max_bytes=4096)
    assert [k for k, _ in at] == ["value", "value"]
    over = on_both(STORAGE.replace("SIZE", "4097"), x, x, by_limit=True, max_bytes=4096)
    assert [k for k, _ in over] == ["max_bytes", "max_bytes"]


def test_a_unit_argument_lifted_by_normalization_prints_back_the_same():
    """NORM.VOID.1, the ninth run's ``roundtrip``: ``R.vm.kill_object(0)`` written as a call argument is
    bound to a variable by normalization; that variable's use is the literal ``R.tuple()`` too, so the
    printed text reads back to the same module (it read back with ``R.tuple()`` where the first
    parse kept the variable)."""
    text = HEAD + '''    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        c = R.call_packed("conformance.opaque", x, R.vm.kill_object(0), R.vm.kill_object(1), sinfo_args=R.Object)
        return c
'''
    mod = relax_ref.parse(text)
    for dialect in ("classic", "tvm-0.25", "tvm-0.27"):
        back = relax_ref.parse(mod.script(dialect=dialect))
        relax_ref.assert_structural_equal(mod, back)
    printed = mod.script()
    assert printed.count("R.vm.kill_object(") == 2 and "R.tuple(), R.tuple()" in printed


def test_the_paged_cache_create_with_a_kill_object_argument_round_trips():
    """The minimized program of the ninth run's ``roundtrip`` row itself."""
    args = ", ".join(["R.shape([4, 32, 16, 4, 0])", "R.shape([0, 2])"] + ["R.prim_value(4)", "R.prim_value(2)"]
                     + ["R.prim_value(8)"] * 2 + ["R.shape([0, 0])", "R.prim_value(0)", "R.prim_value(1)",
                                                  "R.prim_value(1.0)", "R.prim_value(10000.0)", "R.prim_value(0)",
                                                  'R.zeros(R.shape([]), "float32")'] + ["R.prim_value(0)"] * 4
                     + ["R.vm.kill_object(0)"] + ["R.prim_value(0)"] * 10)
    text = HEAD + f'''    @R.function(pure=False)
    def main() -> R.Object:
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", {args}, sinfo_args=R.Object)
        return c
'''
    mod = relax_ref.parse(text)
    relax_ref.assert_structural_equal(mod, relax_ref.parse(mod.script()))


VAR_LEN = _main('q: R.Tensor((1, "t", 1, 1), "float32"), k: R.Tensor((1, "u", 1, 1), "float32"), '
                's: R.Tensor(("b",), "int32"), sk: R.Tensor(("b",), "int32"), m: R.Tensor((), "int32")',
                "y = R.nn.attention_var_len(q, k, k, s, m, sk, m)\nreturn y")


def test_attention_var_len_scores_count_against_max_bytes_on_both():
    """RUNTIME.LIMIT.3 (spec/ops/nn.attention_var_len.md): the scores of all rows, (1, 1, 1024, 1024)
    float32, 4 MiB, as nn.attention's (tests/limits/test_fuzz_run6.py); relax_jax builds that matrix,
    the reference one per sequence, and both count the same."""
    q = np.linspace(-1, 1, 1024, dtype="float32").reshape(1, 1024, 1, 1)
    s, m = np.array([0, 512, 1024], "int32"), np.array(512, "int32")
    small = on_both(VAR_LEN, q, q, s, s, m, by_limit=True, max_bytes=1 << 20)
    assert [k for k, _ in small] == ["max_bytes", "max_bytes"]
    big = on_both(VAR_LEN, q, q, s, s, m, max_bytes=8 << 20)
    assert [k for k, _ in big] == ["value", "value"]
    np.testing.assert_allclose(big[0][1], big[1][1], rtol=1e-5, atol=1e-6)


def test_attention_var_len_without_keys_gives_zeros_on_both():
    """No key rows (every sequence without queries, OP.nn.attention_var_len.C5): zeros; relax_jax took
    the row maximum of an empty axis."""
    q = np.ones((1, 3, 1, 1), "float32")
    k = np.ones((1, 0, 1, 1), "float32")
    z = np.array([0, 0], "int32")
    out = on_both(VAR_LEN, q, k, z, z, np.array(0, "int32"))
    assert [r for r, _ in out] == ["value", "value"]
    assert out[0][1].tolist() == out[1][1].tolist() == np.zeros((1, 3, 1, 1)).tolist()


_X = np.arange(12, dtype="float32").reshape(3, 4)
INDEX_OPS = [
    ("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((2,))", "R.take(x, i, axis=0)", lambda d: (_X, np.array([0, 2], d))),
    ("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((2, 2))", "R.gather_nd(x, i)", lambda d: (_X, np.ones((2, 2), d))),
    ("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((2, 1)), u: R.Tensor((2, 4), \"float32\")", "R.scatter_nd(x, i, u)",
     lambda d: (_X, np.ones((2, 1), d), _X[:2])),
    ("i: R.Tensor((3,))", "R.one_hot(i, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), depth=4)",
     lambda d: (np.array([0, 1, 3], d),)),
    ("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3,))", "R.nn.nll_loss(x, i)", lambda d: (_X, np.array([0, 1, 3], d))),
    ("x: R.Tensor((2, 4), \"float32\"), i: R.Tensor((2,))", "R.reverse_sequence(x, i, seq_axis=1, batch_axis=0)",
     lambda d: (_X[:2], np.array([1, 3], d))),
    ("d: R.Tensor((1, 2, 6), \"float32\"), vc: R.Tensor((1,)), ind: R.Tensor((1, 2), \"int32\")",
     "R.vision.non_max_suppression(d, vc, ind, iou_threshold=0.3)",
     lambda d: (np.zeros((1, 2, 6), "float32"), np.array([2], d), np.zeros((1, 2), "int32"))),
]


@pytest.mark.parametrize("params, call, make", INDEX_OPS, ids=[c.split("(")[0] for _, c, _ in INDEX_OPS])
def test_dtype_open_index_tensors_are_checked_before_the_lowering(params, call, make):
    """OP.SEM.6, the sweep after the ninth run's ``abort`` row: an index or integer tensor whose dtype
    the annotation leaves open is checked against the operator's rules on its value before either
    evaluator computes: a float or bool index is ``op_runtime`` on both, one of the operator's dtype a value."""
    body = f"t = {call}\ny = t[0]\nreturn y" if "non_max_suppression" in call else f"y = {call}\nreturn y"
    text = _main(params, body)
    for dt in ("float32", "bool"):
        assert [k for k, _ in on_both(text, *make(dt))] == ["op_runtime", "op_runtime"], dt
    good = "int32" if "non_max_suppression" in call else "int64"
    assert [k for k, _ in on_both(text, *make(good))] == ["value", "value"]

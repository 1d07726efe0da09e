"""The JAX executor on TensorIR that calls TVM's sort kernels through ``T.call_packed``
(TIR.PACKED.1-3): the lowering to ``lax.sort`` equals the reference interpreter, and an unknown packed
function is a packed_func error in both."""

from __future__ import annotations

import numpy as np
import pytest

import relax_jax
import relax_ref
from relax_ref.errors import PackedFuncError

RNG = np.random.default_rng(11)

# The shape of what TVM 0.25 prints after DispatchSortScan (sort, argsort, topk) and LegalizeOps (median).
TEXT = '''
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def argsort(var_x: T.handle, var_out: T.handle):
        T.func_attr({"tirx.noalias": True})
        data_buf = T.match_buffer(var_x, (T.int64(6),), align=8)
        out_buf = T.match_buffer(var_out, (T.int64(6),), "int32", align=8)
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(data_buf.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, 0, T.int64(0)), -1, T.bool(False))

    @T.prim_func(private=True, s_tir=True)
    def sort(var_y: T.handle, var_out: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        data_buf = T.match_buffer(var_y, (n, T.int64(3)), "int32", align=8)
        out_buf = T.match_buffer(var_out, (n, T.int64(3)), "int32", align=8)
        with T.sblock("sort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.sort", T.tvm_stack_make_array(data_buf.data, T.tvm_stack_make_shape(n, T.int64(3)), 0, 2, 0, T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(n, T.int64(3)), 0, 2, 0, T.int64(0)), 0, T.bool(True))

    @T.prim_func(private=True, s_tir=True)
    def topk(var_y: T.handle, var_v: T.handle, var_i: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        data_buf = T.match_buffer(var_y, (n, T.int64(3)), "int32", align=8)
        value_buf = T.match_buffer(var_v, (n, T.int64(2)), "int32", align=8)
        indices_buf = T.match_buffer(var_i, (n, T.int64(2)), "int64", align=8)
        with T.sblock("topk_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.topk", T.tvm_stack_make_array(data_buf.data, T.tvm_stack_make_shape(n, T.int64(3)), 0, 2, 0, T.int64(0)), T.tvm_stack_make_array(value_buf.data, T.tvm_stack_make_shape(n, T.int64(2)), 0, 2, 0, 0), T.tvm_stack_make_array(indices_buf.data, T.tvm_stack_make_shape(n, T.int64(2)), 0, 2, T.int64(0), 0), 2, -1, "both", T.bool(False))

    @T.prim_func(private=True, s_tir=True)
    def median(x: T.Buffer((T.int64(6),), "float32"), T_out: T.Buffer((), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_copy = T.sblock_alloc_buffer((T.int64(6),))
        out_buf = T.sblock_alloc_buffer((T.int64(6),), "int64", align=8)
        for ax0 in range(T.int64(6)):
            with T.sblock("T_copy"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(x[v_ax0])
                T.writes(T_copy[v_ax0])
                T_copy[v_ax0] = x[v_ax0]
        with T.sblock("argsort_cpu"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(T_copy.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(T.int64(6)), 0, 1, T.int64(0), T.int64(0)), -1, T.bool(True))
        with T.sblock("T_out"):
            T.reads(T_copy[out_buf[T.int64(2)]], out_buf[T.int64(2)])
            T.writes(T_out[()])
            T_out[()] = T_copy[out_buf[T.int64(2)]]

    @R.function
    def main(x: R.Tensor((6,), dtype="float32"), y: R.Tensor(("n", 3), dtype="int32")):
        n = T.int64()
        cls = Module
        a = R.call_tir(cls.argsort, (x,), out_sinfo=R.Tensor((6,), dtype="int32"))
        b = R.call_tir(cls.sort, (y,), out_sinfo=R.Tensor((n, 3), dtype="int32"))
        c = R.call_tir(cls.topk, (y,), out_sinfo=[R.Tensor((n, 2), dtype="int32"), R.Tensor((n, 2), dtype="int64")])
        d = R.call_tir(cls.median, (x,), out_sinfo=R.Tensor((), dtype="float32"))
        return (a, b, c, d)
'''


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [z for e in v for z in _flat(e)]
    return [np.asarray(v)]


def test_sort_kernels_lower_to_jax_and_match_the_reference():
    mod = relax_ref.parse(TEXT)
    exe = relax_jax.compile(mod)
    for n in (1, 3, 5, 8):
        x = RNG.integers(-2, 3, 6).astype("float32")
        x[RNG.integers(0, 6)] = np.nan if n == 5 else x[0]
        x[1] = -0.0 if n == 3 else x[1]
        y = RNG.integers(0, 3, (n, 3)).astype("int32")
        got = _flat(exe("main", x, y))
        want = _flat(relax_ref.evaluate(mod, "main", x, y))
        assert len(got) == len(want) == 5
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_an_unknown_packed_function_is_a_packed_func_error():
    text = TEXT.replace('"tvm.contrib.sort.sort"', '"my.sort"')
    args = (np.zeros(6, "float32"), np.zeros((2, 3), "int32"))
    with pytest.raises(PackedFuncError, match="my.sort"):
        relax_ref.evaluate(relax_ref.parse(text), "main", *args)
    exe = relax_jax.compile(relax_ref.parse(text))
    with pytest.raises(PackedFuncError, match="my.sort"):
        exe("main", *args)


MEDIANS = [
    ((2, 3, 4), "float32", "R.median(x, axis=[1])"),
    ((3, 4), "float32", "R.median(x, axis=[-1], keepdims=True)"),
    (("n", 4), "float32", "R.median(x)"),
    ((4, 6), "int32", "R.median(x, axis=[0])"),
    ((4, 6), "float16", "R.median(x, axis=[1])"),
]


@pytest.mark.parametrize("shape,dtype,call", MEDIANS)
def test_legalized_median_sorts_through_the_packed_argsort(shape, dtype, call):
    """OP.STAT.KERNEL.1: the legalized median (TOPI's, an extern argsort stage) gives the operator's values,
    bit for bit, on the reference interpreter and on the JAX executor (ties, NaN and -inf included)."""
    from relax_ref.transform.legalize_ops import LegalizeOps

    dims = ", ".join(str(d) if isinstance(d, int) else f'"{d}"' for d in shape)
    text = ("from tvm.script import ir as I, relax as R, tirx as T\n@I.ir_module\nclass Module:\n"
            f"    @R.function\n    def main(x: R.Tensor(({dims},), \"{dtype}\")):\n"
            f"        y = {call}\n        return y\n")
    mod = relax_ref.parse(text)
    legal = LegalizeOps()(mod)
    assert "argsort_cpu" in legal.script()
    exe = relax_jax.compile(legal)
    for n in (3, 5):
        conc = tuple(n if isinstance(d, str) else d for d in shape)
        x = RNG.integers(-3, 4, conc).astype(dtype)
        if dtype.startswith("float"):
            x.reshape(-1)[::3] = np.nan
            x.reshape(-1)[1::5] = -np.inf
        want = relax_ref.evaluate(mod, "main", x)
        want = want if isinstance(want, tuple) else (want,)
        for got in (relax_ref.evaluate(legal, "main", x), exe("main", x)):
            got = got if isinstance(got, tuple) else (got,)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                g = np.asarray(g)
                assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()

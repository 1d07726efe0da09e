"""``T.call_packed`` in TensorIR and the built-in ``tvm.contrib.sort.*`` kernels (TIR.PACKED.1-3).

The first part runs hand-written kernels in TVM 0.25's spelling (no TVM needed); the second part
(``@pytest.mark.tvm``) takes the modules TVM itself produces -- ``DispatchSortScan`` for ``sort`` /
``argsort`` / ``topk`` and ``LegalizeOps`` for ``median`` -- and checks that the interpreter on them
equals the interpreter on the graph-level module and TVM's virtual machine.
"""

from __future__ import annotations

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import NDimMismatchError, PackedFuncError, TIRBoundsError

RNG = np.random.default_rng(7)


def _kernel(call: str, *, x_shape="(T.int64(4),)", x_dtype="float32", out_shape="(T.int64(4),)",
            out_dtype="float32", extra_out: str = "", sym: bool = False) -> str:
    """A module whose ``main`` calls one PrimFunc holding ``call`` on buffers ``data_buf``/``out_buf``
    (and ``idx_buf`` when ``extra_out`` gives its shape and dtype)."""
    n_decl = "        n = T.int64()\n" if sym else ""
    params = "var_x: T.handle, var_out: T.handle" + (", var_idx: T.handle" if extra_out else "")
    idx = ""
    if extra_out:
        shp, dt = extra_out.split("|")
        idx = f'        idx_buf = T.match_buffer(var_idx, {shp}, "{dt}", align=8)\n'
        out_sinfo = f'[R.Tensor({_rx(out_shape, True)}, dtype="{out_dtype}"), R.Tensor({_rx(shp, True)}, dtype="{dt}")]'
    else:
        out_sinfo = f'R.Tensor({_rx(out_shape, True)}, dtype="{out_dtype}")'
    rel_n = '        n = T.int64()\n' if sym else ""
    return f'''
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def kern({params}):
        T.func_attr({{"tirx.noalias": True}})
{n_decl}        data_buf = T.match_buffer(var_x, {x_shape}, "{x_dtype}", align=8)
        out_buf = T.match_buffer(var_out, {out_shape}, "{out_dtype}", align=8)
{idx}        with T.sblock("kern"):
            T.reads()
            T.writes()
            {call}

    @R.function
    def main(x: R.Tensor({_rx(x_shape)}, dtype="{x_dtype}")):
{rel_n}        cls = Module
        r = R.call_tir(cls.kern, (x,), out_sinfo={out_sinfo})
        return r
'''


def _rx(shape: str, body: bool = False) -> str:
    """A TIR shape literal as a Relax one (``T.int64(4)`` -> ``4``; ``n`` -> ``"n"`` in a signature)."""
    shape = shape.replace("T.int64(", "(")
    return shape if body else shape.replace("n,", '"n",').replace("(n)", '("n")')


def _arr(buf: str, shape: str, ndim: int, hint: str, strides: str = "0", offset: str = "T.int64(0)") -> str:
    return f"T.tvm_stack_make_array({buf}.data, T.tvm_stack_make_shape({shape}), {strides}, {ndim}, {hint}, {offset})"


def _sort_call(fn: str, axis: int, asc: bool, x_hint="T.float32(0.0)", o_hint="T.float32(0.0)",
               shape="T.int64(4)", ndim=1) -> str:
    return (f'T.call_packed("tvm.contrib.sort.{fn}", {_arr("data_buf", shape, ndim, x_hint)}, '
            f'{_arr("out_buf", shape, ndim, o_hint)}, {axis}, T.bool({asc}))')


def _run(text: str, *args, **kw):
    return relax_ref.evaluate(relax_ref.parse(text), "main", *args, **kw)


# -- semantics (no TVM) --------------------------------------------------------------------------------


@pytest.mark.parametrize("asc", [True, False])
def test_sort_and_argsort_are_stable_with_nan_above_numbers(asc):
    """TIR.PACKED.3 / OP.SEARCH.KERNEL.2: ties keep their input order in both directions, NaN counts
    as the largest value."""
    x = np.array([2.0, np.nan, 1.0, 2.0], "float32")
    got = _run(_kernel(_sort_call("sort", -1, asc)), x)
    order = _run(_kernel(_sort_call("argsort", -1, asc, o_hint="0"), out_dtype="int32"), x)
    if asc:
        np.testing.assert_array_equal(got, [1.0, 2.0, 2.0, np.nan])
        np.testing.assert_array_equal(order, [2, 0, 3, 1])
    else:
        np.testing.assert_array_equal(got, [np.nan, 2.0, 2.0, 1.0])
        np.testing.assert_array_equal(order, [1, 0, 3, 2])
    assert order.dtype == np.int32


def test_sort_matches_the_graph_level_operator_on_every_axis():
    x = RNG.integers(-3, 3, (3, 4)).astype("int32")
    for axis in (0, 1, -1, -2):
        for asc in (True, False):
            call = _sort_call("argsort", axis, asc, x_hint="0", o_hint="T.int64(0)",
                              shape="T.int64(3), T.int64(4)", ndim=2)
            got = _run(_kernel(call, x_shape="(T.int64(3), T.int64(4))", x_dtype="int32",
                               out_shape="(T.int64(3), T.int64(4))", out_dtype="int64"), x)
            want = np.argsort(-x if not asc else x, axis=axis, kind="stable")
            np.testing.assert_array_equal(got, want)


def test_sort_over_a_symbolic_shape():
    call = _sort_call("sort", 0, False, x_hint="0", o_hint="0", shape="n, T.int64(3)", ndim=2)
    text = _kernel(call, x_shape="(n, T.int64(3))", x_dtype="int32", out_shape="(n, T.int64(3))",
                   out_dtype="int32", sym=True)
    for n in (1, 2, 5):
        x = RNG.integers(0, 3, (n, 3)).astype("int32")
        np.testing.assert_array_equal(_run(text, x), -np.sort(-x, axis=0))


@pytest.mark.parametrize("ret_type", ["both", "values", "indices"])
@pytest.mark.parametrize("asc", [True, False])
def test_topk(ret_type, asc):
    x = np.array([[1, 3, 3, 0, 1], [4, 4, 4, 2, 2]], "int32")
    k = 3
    shape = "T.int64(2), T.int64(3)"
    outs = []
    if ret_type in ("both", "values"):
        outs.append(_arr("out_buf", shape, 2, "0"))
    if ret_type == "both":
        outs.append(_arr("idx_buf", shape, 2, "T.int64(0)"))
    if ret_type == "indices":
        outs.append(_arr("out_buf", shape, 2, "T.int64(0)"))
    call = (f'T.call_packed("tvm.contrib.sort.topk", {_arr("data_buf", "T.int64(2), T.int64(5)", 2, "0")}, '
            f'{", ".join(outs)}, {k}, -1, "{ret_type}", T.bool({asc}))')
    out_dtype = "int64" if ret_type == "indices" else "int32"
    text = _kernel(call, x_shape="(T.int64(2), T.int64(5))", x_dtype="int32",
                   out_shape="(T.int64(2), T.int64(3))", out_dtype=out_dtype,
                   extra_out="(T.int64(2), T.int64(3))|int64" if ret_type == "both" else "")
    got = _run(text, x)
    order = np.argsort(x if asc else -x, axis=-1, kind="stable")[:, :k]
    values = np.take_along_axis(x, order, axis=-1)
    if ret_type == "both":
        np.testing.assert_array_equal(got[0], values)
        np.testing.assert_array_equal(got[1], order)
    elif ret_type == "values":
        np.testing.assert_array_equal(got, values)
    else:
        np.testing.assert_array_equal(got, order)


def test_views_write_through_and_local_functions_are_found():
    """TIR.PACKED.1/2: an interpreter-local function receives views of the buffers (strides,
    offset and the dtype of the hint) and its writes reach the output."""
    call = ('T.call_packed("test.fill", T.tvm_stack_make_array(out_buf.data, T.tvm_stack_make_shape(2), '
            'T.tvm_stack_make_shape(2), 1, T.float32(0.0), 1), "tag", 2, T.float32(0.5), T.bool(True))')
    mod = relax_ref.parse(_kernel(call))
    seen = {}
    interp = relax_ref.Interpreter(mod)

    @interp.register_func("test.fill")
    def fill(view, tag, two, half, flag):
        seen.update(shape=view.shape, strides=view.strides, args=(tag, two, half, flag))
        view[...] = [7.0, 8.0]

    got = interp("main", np.zeros(4, "float32"))
    np.testing.assert_array_equal(got, [0.0, 7.0, 0.0, 8.0])
    assert seen == {"shape": (2,), "strides": (8,), "args": ("tag", 2, 0.5, True)}


def test_buffer_arguments_are_packed_by_the_parser():
    """TEXT.TIR.PACKED.1: a buffer argument of T.call_packed is its array descriptor."""
    a = relax_ref.parse(_kernel('T.call_packed("tvm.contrib.sort.sort", data_buf, out_buf, 0, T.bool(True))'))
    b = relax_ref.parse(_kernel(_sort_call("sort", 0, True)))
    from relax_ref.analysis.structural_equal import structural_equal

    assert structural_equal(a, b)


# -- errors --------------------------------------------------------------------------------------------


def test_unknown_packed_function_is_a_packed_func_error():
    text = _kernel(_sort_call("sort", -1, True).replace("tvm.contrib.sort.sort", "no.such.function"))
    with pytest.raises(PackedFuncError, match="no.such.function"):
        _run(text, np.zeros(4, "float32"))


def test_wrong_output_shape_is_a_packed_func_error():
    call = (f'T.call_packed("tvm.contrib.sort.sort", {_arr("data_buf", "T.int64(4)", 1, "T.float32(0.0)")}, '
            f'{_arr("out_buf", "T.int64(3)", 1, "T.float32(0.0)")}, -1, T.bool(True))')
    with pytest.raises(PackedFuncError, match="shape"):
        _run(_kernel(call), np.zeros(4, "float32"))


def test_axis_out_of_range_and_bad_ret_type():
    with pytest.raises(PackedFuncError, match="axis"):
        _run(_kernel(_sort_call("sort", 1, True)), np.zeros(4, "float32"))
    call = (f'T.call_packed("tvm.contrib.sort.topk", {_arr("data_buf", "T.int64(4)", 1, "T.float32(0.0)")}, '
            f'{_arr("out_buf", "T.int64(4)", 1, "T.float32(0.0)")}, 0, -1, "neither", T.bool(True))')
    with pytest.raises(PackedFuncError, match="ret_type"):
        _run(_kernel(call), np.zeros(4, "float32"))


def test_topk_larger_than_the_axis_is_a_packed_func_error():
    call = (f'T.call_packed("tvm.contrib.sort.topk", {_arr("data_buf", "T.int64(4)", 1, "T.float32(0.0)")}, '
            f'{_arr("out_buf", "T.int64(5)", 1, "T.float32(0.0)")}, 5, -1, "values", T.bool(True))')
    with pytest.raises(PackedFuncError, match="exceeds"):
        _run(_kernel(call, out_shape="(T.int64(5),)"), np.zeros(4, "float32"))


def test_descriptor_errors():
    bad_ndim = _sort_call("sort", -1, True).replace(", 0, 1, T.float32(0.0)", ", 0, 2, T.float32(0.0)", 1)
    with pytest.raises(NDimMismatchError, match="ndim"):
        _run(_kernel(bad_ndim), np.zeros(4, "float32"))
    too_big = _sort_call("sort", -1, True).replace("T.tvm_stack_make_shape(T.int64(4))",
                                                   "T.tvm_stack_make_shape(T.int64(5))", 1)
    with pytest.raises(TIRBoundsError, match="exceeds its memory"):
        _run(_kernel(too_big), np.zeros(4, "float32"))


def test_writing_a_call_tir_input_is_a_packed_func_error():
    call = (f'T.call_packed("tvm.contrib.sort.sort", {_arr("out_buf", "T.int64(4)", 1, "T.float32(0.0)")}, '
            f'{_arr("data_buf", "T.int64(4)", 1, "T.float32(0.0)")}, -1, T.bool(True))')
    with pytest.raises(PackedFuncError, match="read-only"):
        _run(_kernel(call), np.zeros(4, "float32"))


def test_parse_errors():
    from relax_ref.errors import ParseError

    for call, msg in [('T.call_packed(1, 2)', "function name"),
                      ('T.call_packed("f", T.tvm_stack_make_array(data_buf.data, 1))', "6 positional"),
                      ('T.call_packed("f", T.tvm_stack_make_array(data_buf, T.tvm_stack_make_shape(4), 0, 1, 0, 0))',
                       r"\.data"),
                      ('T.call_packed("f", T.tvm_stack_make_shape(T.float32(1.0)))', "integers")]:
        with pytest.raises(ParseError, match=msg):
            relax_ref.parse(_kernel(call))


# -- against TVM 0.25 ----------------------------------------------------------------------------------

GRAPH = '''
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), dtype="float32"), y: R.Tensor(("n", 4), dtype="int32")):
        n = T.int64()
        a = R.sort(x)
        b = R.argsort(x, descending=True, dtype="int32")
        c = R.argsort(y, axis=0, descending=False, dtype="int64")
        d = R.topk(y, k=2, axis=-1, ret_type="both", largest=False, dtype="int32")
        e = R.topk(x, k=3, ret_type="values", largest=True)
        f = R.topk(y, k=1, axis=0, ret_type="indices", largest=True, dtype="int64")
        g = R.sort(y, axis=0, descending=True)
        h = R.median(x, axis=None)
        i = R.median(y, axis=1, keepdims=True)
        j = R.median(y, axis=0)
        return (a, b, c, d, e, f, g, h, i, j)
'''


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [z for e in v for z in _flat(e)]
    if hasattr(v, "numpy"):
        return [v.numpy()]
    if not isinstance(v, np.ndarray) and hasattr(v, "__len__"):
        return [z for e in v for z in _flat(e)]
    return [np.asarray(v)]


def _tvm_lowered():
    tvm = pytest.importorskip("tvm")
    from tvm import relax

    mod = tvm.script.from_source(GRAPH)
    with tvm.target.Target("llvm"):
        mod = relax.backend.DispatchSortScan()(mod)
    mod = relax.transform.LegalizeOps()(mod)
    return tvm, relax, mod


@pytest.mark.tvm
def test_tvm_lowered_module_matches_graph_level_and_tvm_vm():
    tvm, relax, tmod = _tvm_lowered()
    text = tmod.script()
    assert "T.call_packed" in text
    lowered = relax_ref.parse(text)
    graph = relax_ref.parse(GRAPH)
    vm = relax.VirtualMachine(relax.build(tmod, target="llvm"), tvm.cpu())
    for n in (1, 3, 6):
        # small ranges: many ties (stability), both signs
        x = RNG.integers(-2, 3, 5).astype("float32")
        y = RNG.integers(-2, 3, (n, 4)).astype("int32")
        ours = _flat(relax_ref.evaluate(lowered, "main", x, y))
        graph_level = _flat(relax_ref.evaluate(graph, "main", x, y))
        theirs = _flat(vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y)))
        assert len(ours) == len(graph_level) == len(theirs) == 13
        for k, (a, b, c) in enumerate(zip(ours, graph_level, theirs)):
            assert a.dtype == b.dtype == c.dtype, (n, k)
            np.testing.assert_array_equal(a, b, err_msg=f"n={n} output {k} (graph level)")
            np.testing.assert_array_equal(a, c, err_msg=f"n={n} output {k} (TVM)")


@pytest.mark.tvm
def test_tvm_sort_kernels_directly_agree_on_ties():
    """The registered functions against TVM's own ``tvm.contrib.sort.*`` on tie-heavy data."""
    tvm = pytest.importorskip("tvm")
    from relax_ref.interp.tir_packed import contrib_argsort, contrib_sort, contrib_topk

    for dtype in ("float32", "int32", "int64", "float64"):
        x = RNG.integers(0, 3, (3, 7)).astype(dtype)
        for axis in (0, 1, -1):
            for asc in (True, False):
                mine = np.zeros(x.shape, "int64")
                contrib_argsort(x, mine, axis, asc)
                theirs = tvm.runtime.tensor(np.zeros(x.shape, "int64"))
                tvm.get_global_func("tvm.contrib.sort.argsort")(tvm.runtime.tensor(x), theirs, axis, asc)
                np.testing.assert_array_equal(mine, theirs.numpy())
                mine_s = np.zeros_like(x)
                contrib_sort(x, mine_s, axis, asc)
                theirs_s = tvm.runtime.tensor(np.zeros_like(x))
                tvm.get_global_func("tvm.contrib.sort.sort")(tvm.runtime.tensor(x), theirs_s, axis, asc)
                np.testing.assert_array_equal(mine_s, theirs_s.numpy())
                k = 2
                shp = list(x.shape)
                shp[axis] = k
                mv, mi = np.zeros(shp, dtype), np.zeros(shp, "int32")
                contrib_topk(x, mv, mi, k, axis, "both", asc)
                tv, ti = tvm.runtime.tensor(np.zeros(shp, dtype)), tvm.runtime.tensor(np.zeros(shp, "int32"))
                tvm.get_global_func("tvm.contrib.sort.topk")(tvm.runtime.tensor(x), tv, ti, k, axis, "both", asc)
                np.testing.assert_array_equal(mv, tv.numpy())
                np.testing.assert_array_equal(mi, ti.numpy())

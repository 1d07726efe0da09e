"""Findings of the third 30-minute fuzzing run (docs/FUZZING.md) on the reference's side -- the parser,
the inference of operator attributes, the reference kernels -- each a regression test on both
evaluators: a RelaxError of the kind the spec gives, never a Python exception or an exhausted machine."""

from __future__ import annotations

import time

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import RelaxError

relax_jax = pytest.importorskip("relax_jax")

from limits.fuzz_cases import HEAD, kinds_on_both as _both, relax_main as _main  # noqa: E402


def _parse_error(text) -> RelaxError:
    with pytest.raises(RelaxError) as info:
        relax_ref.parse(text)
    return info.value


def _mesh_module(devices: str, shape: str = "(2, 2)") -> str:
    return HEAD + (f'    I.module_global_infos({{"mesh": [R.device_mesh({shape}, {devices})]}})\n\n'
                   '    @R.function\n    def main(x: R.Tensor((2,), "float32")):\n        return x\n')


@pytest.mark.parametrize("end", ["2**31 - 1", "2**62"])
def test_a_device_range_larger_than_its_mesh_is_a_parse_error_at_once(end):
    """DIST.MESH.1: the mesh's extents and its id count are compared before any id is enumerated (the
    range of 2**31 - 1 ids was materialized first: a MemoryError at parse)."""
    start = time.perf_counter()
    err = _parse_error(_mesh_module(f"I.Range(0, {end})"))
    assert err.kind == "parse" and "holds 4 devices" in str(err) and str(eval(end)) in str(err)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("end", [2 ** 64 + 3, 2 ** 63])
def test_a_device_range_beyond_int64_is_a_parse_error(end):
    """DIST.MESH.1, RUNTIME.LIMIT.1: I.Range(0, 2**64 + 3) raised OverflowError at parse (third run),
    I.Range(0, 2**63) the same (fourth run)."""
    err = _parse_error(_mesh_module(f"I.Range(0, {end})"))
    assert err.kind == "parse" and "does not fit in int64" in str(err) and str(end) in str(err)


def test_a_mesh_of_2p40_devices_is_not_enumerated():
    mod = relax_ref.parse(_mesh_module("I.Range(0, 2**40)", shape="(2**20, 2**20)"))
    mesh = mod.global_infos["mesh"][0]
    assert mesh.size == 2 ** 40 and mesh.device_range == (0, 2 ** 40) and mesh.coords(2 ** 40 - 1) == (2 ** 20 - 1,) * 2
    assert relax_ref.structural_equal(relax_ref.parse(mod.script()), mod)


@pytest.mark.parametrize("sorted_arg, kind", [
    ("w", "R.Tensor"), ("R.shape([1])", "R.Shape"), ("R.prim_value(T.float32(0.5))", "R.Prim"),
])
def test_unique_sorted_must_be_an_integer_prim_value(sorted_arg, kind):
    """OP.unique.C1, OP.INFER.3: R.unique(x, w) with a tensor for ``sorted`` raised TypeError at run time
    on both evaluators; every argument is checked at inference."""
    err = _parse_error(_main('x: R.Tensor((4,), "float32"), w: R.Tensor((2,), "float32")',
                             f"y = R.unique(x, {sorted_arg})\nreturn y"))
    assert err.kind == "struct_info" and "(sorted)" in str(err) and kind in str(err)


def test_unique_axis_must_be_an_integer_prim_value():
    err = _parse_error(_main('x: R.Tensor((3, 2), "float32"), w: R.Tensor((2,), "float32")',
                             "y = R.unique(x, True, False, False, False, w)\nreturn y"))
    assert err.kind == "struct_info" and "(axis)" in str(err)


def test_unique_with_prim_variables_for_sorted_and_axis():
    """Prim values that are not literals are accepted: a given axis keeps x's rank (OP.unique.C1)."""
    x = np.array([[3, 4], [1, 2], [3, 4]], "float32")
    text = _main('x: R.Tensor((3, 2), "float32"), s: R.Prim("int64"), a: R.Prim("int64")',
                 "y = R.unique(x, s, False, False, False, a)\nreturn y")
    for sorted_flag, expected in ((1, [[1, 2], [3, 4]]), (0, [[3, 4], [1, 2]])):
        for kind, got in _both(text, x, sorted_flag, 0):
            assert kind == "value"
            np.testing.assert_array_equal(np.asarray(got), np.array(expected, "float32"))


@pytest.mark.parametrize("pos", [1, 2, 3])
@pytest.mark.parametrize("bad", ["w", "R.shape([2])", "R.str('a')"])
def test_hamming_window_flags_must_be_prim_values(pos, bad):
    """OP.hamming_window.C1, OP.INFER.3: ``periodic``, ``alpha``, ``beta`` given a tensor, a shape or a
    string were accepted and crashed both evaluators (found by an audit of the prim arguments)."""
    args = ["4", "1", "0.54", "0.46"]
    args[pos] = bad
    err = _parse_error(_main('w: R.Tensor((2,), "float32")',
                             f"y = R.hamming_window({', '.join(args)}, dtype='float32')\nreturn y"))
    assert err.kind == "struct_info" and f"argument {pos}" in str(err)


def test_hamming_window_float_periodic_is_rejected():
    err = _parse_error(_main("", "y = R.hamming_window(4, R.prim_value(T.float32(1)), 0.54, 0.46, dtype='float32')\n"
                                 "return y"))
    assert err.kind == "struct_info" and "integer prim value" in str(err)


@pytest.mark.parametrize("bad", ["R.str('a')", "R.dtype('int8')", "o"])
def test_an_object_for_strided_slice_bounds_is_checked_at_run_time(bad):
    """OP.strided_slice.C3: R.Object is accepted statically (as TVM does); a value that is no tuple of
    integers is a type_mismatch on both (ValueError/TypeError before)."""
    text = _main('x: R.Tensor((3, 4), "float32"), o: R.Object',
                 f"y = R.strided_slice(x, [1], {bad}, [2])\nreturn y")
    assert [k for k, _ in _both(text, np.ones((3, 4), "float32"), np.ones(2, "float32"))] == ["type_mismatch"] * 2


@pytest.mark.parametrize("bad", ["R.str('a')", "o"])
def test_an_object_for_a_view_dtype_is_checked_at_run_time(bad):
    """OP.memory.view.C3: an R.Object dtype holding a string or a tensor is a type_mismatch on both
    (AttributeError before)."""
    text = _main('x: R.Tensor((3, 4), "float32"), o: R.Object',
                 f"y = R.memory.view(x, R.shape([4]), {bad}, R.prim_value(0))\nreturn y")
    assert [k for k, _ in _both(text, np.ones((3, 4), "float32"), np.ones(2, "float32"))] == ["type_mismatch"] * 2


@pytest.mark.parametrize("call", [
    'R.vm.alloc_storage((2, n), v, "int32")',                         # the fuzz finding: a tuple, a tensor
    'R.vm.alloc_storage(R.shape([16]), v, "uint8")',
    'R.vm.alloc_storage(R.shape([]), R.prim_value(0), "uint8")',
    'R.memory.alloc_storage(v, R.prim_value(0), "global", "uint8")',
    'R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.prim_value(0))',
    'R.memory.alloc_tensor(R.memory.alloc_storage(R.shape([16]), 0, "global", "uint8"), v, R.shape([2]), "int8")',
    'R.vm.alloc_tensor(R.vm.alloc_storage(R.shape([16]), 0, "uint8"), 0, v, "int8", 0)',
])
def test_the_argument_kinds_of_the_allocation_builtins(call):
    """CALL.ALLOC.2, OP.INFER.3: unchecked statically (as TVM), checked at run time before anything is
    allocated: a type_mismatch on both (the reference raised TypeError/IndexError)."""
    text = _main('v: R.Tensor((2,), "float32"), n: R.Prim("int64")', f"s = {call}\nreturn s")
    assert [k for k, _ in _both(text, np.ones(2, "float32"), 3)] == ["type_mismatch"] * 2


def test_a_storage_of_an_integer_prim_size():
    text = _main('n: R.Prim("int64")', 's = R.vm.alloc_storage(n, R.prim_value(0), "uint8")\n'
                                       't = R.vm.alloc_tensor(s, 0, R.shape([2]), "int32", 0)\nreturn t')
    for kind, got in _both(text, 8):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(got), np.zeros(2, "int32"))


ROI_CALLS = {
    "align": 'R.vision.roi_align(x, r, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio={ratio}, layout="NCHW")',
    "pool": 'R.vision.roi_pool(x, r, pooled_size=(2, 2), spatial_scale=1.0, layout="NCHW")',
}


@pytest.mark.parametrize("op, ratio", [("align", 2), ("align", -1), ("pool", None)])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_roi_corner_that_is_not_finite_is_an_op_runtime_error(op, ratio, bad):
    """OP.vision.roi_align.C7, OP.vision.roi_pool.C6: the third run's roi_align/roi_pool with a NaN or
    infinite corner raised ValueError/OverflowError on the reference and returned values on relax_jax;
    with adaptive sampling relax_jax's loop ran ceil(inf) times."""
    text = _main('x: R.Tensor((1, 1, 4, 4), "float32"), r: R.Tensor((1, 5), "float32")',
                 f"y = {ROI_CALLS[op].format(ratio=ratio)}\nreturn y")
    rois = np.array([[0, 0, 0, bad, 2]], "float32")
    assert [k for k, _ in _both(text, np.ones((1, 1, 4, 4), "float32"), rois)] == ["op_runtime"] * 2


def test_roi_pool_corners_beyond_int32_are_an_error_and_large_ones_a_value():
    text = _main('x: R.Tensor((1, 1, 4, 4), "float32"), r: R.Tensor((1, 5), "float32")',
                 f"y = {ROI_CALLS['pool']}\nreturn y")
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    assert [k for k, _ in _both(text, x, np.array([[0, 0, 0, 3, 3e9]], "float32"))] == ["op_runtime"] * 2
    # a corner of 2e9 fits: the ROI covers the whole image in rows; every bin's window is clamped
    got = _both(text, x, np.array([[0, 0, 0, 3, 2e9]], "float32"))
    assert [k for k, _ in got] == ["value"] * 2
    np.testing.assert_array_equal(np.asarray(got[0][1]), np.asarray(got[1][1]))


def test_conv2d_transpose_of_an_empty_batch():
    """OP.NN.CONV.SEM.2: conv2d_transpose(x, w, strides=2) of an empty batch raised ValueError on the
    reference and ZeroDivisionError on relax_jax (third run): the result is empty, of the inferred shape."""
    text = _main('x: R.Tensor(("n", 2, 3, 3), "float32"), w: R.Tensor((2, 2, 3, 3), "float32")',
                 "y = R.nn.conv2d_transpose(x, w, strides=2)\nreturn y")
    for kind, got in _both(text, np.ones((0, 2, 3, 3), "float32"), np.ones((2, 2, 3, 3), "float32")):
        assert kind == "value" and np.asarray(got).shape == (0, 2, 7, 7)


def test_conv2d_transpose_of_an_empty_spatial_dim_is_zeros():
    text = _main('x: R.Tensor((1, 2, "h", 3), "float32"), w: R.Tensor((2, 2, 3, 3), "float32")',
                 "y = R.nn.conv2d_transpose(x, w, strides=2)\nreturn y")
    for kind, got in _both(text, np.ones((1, 2, 0, 3), "float32"), np.ones((2, 2, 3, 3), "float32")):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(got), np.zeros((1, 2, 1, 7), "float32"))   # (0 - 1) * 2 + 3 rows


@pytest.mark.parametrize("shape, expected", [
    ((0, 3, 3, 4), np.zeros((0, 3, 1, 1), "float32")),                 # the fuzz finding: an empty batch
    ((2, 3, 0, 4), np.full((2, 3, 1, 1), np.nan, "float32")),          # an empty window: 0 / 0
])
def test_adaptive_avg_pool2d_of_an_empty_input(shape, expected):
    """OP.NN.POOL.SEM.4: adaptive_avg_pool2d(x, 1) of an empty batch raised ValueError on the reference
    and ZeroDivisionError on relax_jax (third run and the fourth)."""
    text = _main('x: R.Tensor(("n", 3, "h", "w"), "float32")', "y = R.nn.adaptive_avg_pool2d(x, 1)\nreturn y")
    for kind, got in _both(text, np.ones(shape, "float32")):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_integer_adaptive_average_of_an_empty_window_is_an_error():
    text = _main('x: R.Tensor(("n", 3, "h", "w"), "int32")', "y = R.nn.adaptive_avg_pool2d(x, 1)\nreturn y")
    assert [k for k, _ in _both(text, np.ones((2, 3, 0, 4), "int32"))] == ["op_runtime"] * 2


@pytest.mark.parametrize("dim", ["-3", "-9223372036854775808"])
def test_layout_transform_of_a_negative_static_dim_is_a_struct_info_error(dim):
    """OP.layout_transform.C3, RUNTIME.LIMIT.1: R.Tensor((7, -2**63)) reached numpy's grid (ValueError at
    parse, third run)."""
    err = _parse_error(_main(f'x: R.Tensor((7, {dim}), "int32")',
                             "y = R.layout_transform(x, index_map=lambda a, b: (b // 2, a, b % 2))\nreturn y"))
    assert err.kind == "struct_info" and f"extent {dim} is negative" in str(err)


def test_layout_transform_extent_of_a_product_past_int64_is_not_wrapped():
    """A map that uses two constant dims of 2**40 each: the element count 2**80 is not wrapped to 0 (an
    int64 product gave an extent of 0); beyond the evaluated points the extent is left unknown."""
    mod = relax_ref.parse(_main('x: R.Tensor((1099511627776, 1099511627776), "int8")',
                                "y = R.layout_transform(x, index_map=lambda a, b: (a * 2 + b,))\nreturn y"))
    ret = mod["main"].ret_struct_info
    assert ret.ndim == 1 and (ret.shape is None or ret.shape_values[0].value > 0)


VOID_KERNEL = HEAD + '''    @T.prim_func
    def k(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            BODY

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
'''


@pytest.mark.parametrize("body", ["B[i] = T.exp(A[i]) * T.float32(0.5) + T.sqrt(T.fabs(A[i]))",
                                  "B[i] = T.Cast('float32', A[i])", "A[i] = B[i]"])
def test_a_load_from_or_store_into_a_void_buffer_is_a_parse_error(body):
    """TIR.BUF.7: the third run's void buffer given a float32 tensor was a StructInfoError on the
    reference (its compiled body) and a DTypeMismatchError on relax_jax (its binding); TVM rejects the
    load when parsing, and so does the parser now."""
    err = _parse_error(VOID_KERNEL.replace("BODY", body))
    assert err.kind == "parse" and "buffer 'A' has dtype void" in str(err)


def test_a_void_buffer_without_accesses_is_a_dtype_mismatch_when_bound():
    text = VOID_KERNEL.replace("BODY", "B[i] = T.float32(1)")
    assert [k for k, _ in _both(text, np.ones(3, "float32"))] == ["dtype_mismatch"] * 2


TWO_INPUT_KERNEL = HEAD + '''    @T.prim_func
    def k(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"),
          C: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            C[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Module
        z = R.call_tir(cls.k, (x, y), out_sinfo=R.Tensor((4,), "float32"))
        return z
'''


@pytest.mark.parametrize("order", ["view_first", "base_first"])
def test_call_tir_inputs_that_view_one_another(order):
    """CALL.TIR.6: the inputs are read-only during the call and writeable again after it; with a view
    of an array passed before the array itself the reference failed to restore the view ("cannot set
    WRITEABLE flag to True of this array", a ValueError)."""
    base = np.arange(4, dtype="float32")
    args = (base[:], base) if order == "view_first" else (base, base[:])
    for kind, got in _both(TWO_INPUT_KERNEL, *args):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(got), 2 * np.arange(4, dtype="float32"))
    assert base.flags.writeable and args[0].flags.writeable and args[1].flags.writeable


def test_a_read_only_non_owned_input():
    data = np.frombuffer(np.arange(4, dtype="float32").tobytes(), "float32")    # read-only, views bytes
    for kind, got in _both(TWO_INPUT_KERNEL, data, data):
        assert kind == "value"
        np.testing.assert_array_equal(np.asarray(got), 2 * np.arange(4, dtype="float32"))
    assert not data.flags.writeable


@pytest.mark.parametrize("call", ['R.call_inplace_packed("f", a, inplace_indices=[0], sinfo_args=R.Object)',
                                  'R.call_pure_packed("f", a, sinfo_args=R.Object)',
                                  'R.call_packed("f", a, sinfo_args=R.Object)'])
def test_a_bare_object_annotation_as_sinfo_args(call):
    """TEXT.SINFO.1: a bare R.Object is R.Object() in the three packed calls (TVM 0.25 rejects it only in
    call_inplace_packed, whose constructor receives it unconverted); the printed text parses back."""
    text = HEAD + f'    @R.function(pure=False)\n    def main(a: R.Tensor((2, 3), "float32")):\n        c = {call}\n' \
                  '        return c\n'
    mod = relax_ref.parse(text)
    printed = mod.script()
    assert "R.Object()" in printed or "R.Object," in printed
    assert relax_ref.structural_equal(relax_ref.parse(printed), mod)


@pytest.mark.parametrize("call", ['R.call_pure_packed("f", a, sinfo_args=())',
                                  'R.call_inplace_packed("f", a, inplace_indices=[0], sinfo_args=[])'])
def test_empty_sinfo_args_print_and_parse_back(call):
    """TEXT.CALL.1: the fourth run's roundtrip finding: call_pure_packed with an empty sinfo_args list
    (TVM 0.25 accepts it) printed without sinfo_args, which the parser requires."""
    text = HEAD + f'    @R.function(pure=False)\n    def main(a: R.Tensor((2, 3), "float32")):\n        c = {call}\n' \
                  '        return c\n'
    mod = relax_ref.parse(text)
    printed = mod.script()
    assert "sinfo_args=[]" in printed
    assert relax_ref.structural_equal(relax_ref.parse(printed), mod)

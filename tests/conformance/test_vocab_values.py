"""Error-kind matching (ERR.KIND.2, ERR.KIND.3), npz determinism, value encoding and comparison."""

import zipfile

import ml_dtypes
import numpy as np
import pytest

from relax_conformance import vocab
from relax_conformance.npz import read_npz, to_storable, write_npz
from relax_conformance.values import Prim, Shape, ValueSpecError, decode, encode, mismatches


def test_kind_matching_follows_the_tree():
    assert vocab.kind_matches("shape_mismatch", "ndim_mismatch")
    assert not vocab.kind_matches("ndim_mismatch", "shape_mismatch")
    assert vocab.kind_matches("runtime", "out_of_bounds")
    assert vocab.kind_matches("struct_info_mismatch", "value_mismatch")
    assert not vocab.kind_matches("struct_info_mismatch", "packed_func")
    assert not vocab.kind_matches("struct_info", "well_formed")
    assert not vocab.kind_matches("shape_mismatch", "unclassified")


def test_match_cast_failed_is_a_condition_on_the_site():
    assert vocab.kind_matches("match_cast_failed", "shape_mismatch", "match_cast")
    assert vocab.kind_matches("match_cast_failed", "dtype_mismatch", "match_cast")
    assert not vocab.kind_matches("match_cast_failed", "shape_mismatch", "param")
    assert not vocab.kind_matches("match_cast_failed", "out_of_bounds", "match_cast")
    # a match_cast failure still meets the plain kind
    assert vocab.kind_matches("shape_mismatch", "shape_mismatch", "match_cast")


def test_null_expectation_accepts_any_error_but_crashes():
    assert vocab.kind_matches(None, "unclassified")
    assert vocab.kind_matches(None, "assert_failed")
    assert not vocab.kind_matches(None, "crash")
    assert not vocab.kind_matches(None, "timeout")


def test_phases():
    assert vocab.expect_for_kind("parse") == "malformed"
    assert vocab.expect_for_kind("well_formed") == "invalid"
    assert vocab.expect_for_kind("struct_info") == "invalid"
    assert vocab.expect_for_kind("ndim_mismatch") == "runtime_error"
    assert vocab.expect_for_kind("match_cast_failed") == "runtime_error"
    assert vocab.expect_for_kind("unsupported") is None


def test_npz_is_byte_identical_and_readable(tmp_path):
    arrays = {"b": np.arange(6, dtype="int32").reshape(2, 3), "a": np.array(2.5, "float32"),
              "c": np.array([True, False])}
    write_npz(tmp_path / "one.npz", arrays)
    write_npz(tmp_path / "two.npz", dict(reversed(list(arrays.items()))))
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    with zipfile.ZipFile(tmp_path / "one.npz") as zf:
        assert [i.filename for i in zf.infolist()] == ["a.npy", "b.npy", "c.npy"]
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    back = read_npz(tmp_path / "one.npz")
    assert back["a"].shape == () and back["a"].dtype == np.float32
    np.testing.assert_array_equal(back["b"], arrays["b"])


def test_bit_stored_dtypes_round_trip(tmp_path):
    x = np.array([1.5, -2.0, 3.0], dtype=ml_dtypes.bfloat16)
    arrays = {}
    spec = encode(x, "a0", arrays)
    assert spec == {"kind": "tensor", "key": "a0", "dtype": "bfloat16"}
    assert arrays["a0"].dtype == np.uint16
    write_npz(tmp_path / "x.npz", arrays)
    y = decode(spec, read_npz(tmp_path / "x.npz"))
    assert y.dtype == x.dtype and np.array_equal(y.astype("float32"), x.astype("float32"))
    assert to_storable(np.zeros(2, "float32"))[1] is None


def test_encode_decode_nested_values():
    value = (np.zeros((2, 0), "float32"), (Shape([3, 4]), Prim(7, "int64")), "s", None, ())
    arrays = {}
    spec = encode(value, "r", arrays)
    assert set(arrays) == {"r_0", "r_1_0", "r_1_1"}
    assert arrays["r_1_1"].shape == () and arrays["r_1_1"].dtype == np.int64
    back = decode(spec, arrays)
    assert mismatches(value, back, 0.0, 0.0) == []
    inline = encode(value, "r", {}, inline_scalars=True)
    assert inline["fields"][1]["fields"][0] == {"kind": "shape", "value": [3, 4]}


def test_bare_scalars_are_refused():
    with pytest.raises(ValueSpecError, match="ambiguous"):
        encode(3, "a0", {})


def test_comparison_rules():
    e = np.array([1.0, np.nan, np.inf], "float32")
    assert mismatches(e, e.copy(), 1e-6, 0.0) == []
    assert mismatches(e, np.array([1.0, np.nan, -np.inf], "float32"), 1e-6, 0.0)
    assert mismatches(e, e.astype("float64"), 1e-6, 0.0)  # dtype differs
    assert mismatches(np.array([1, 2], "int32"), np.array([1, 3], "int32"), 1.0, 1.0)  # ints are exact
    assert mismatches(Shape([2]), (2,), 0, 0)  # a tuple is not a shape
    assert mismatches((), Shape([]), 0, 0)      # and a shape is not a tuple
    assert mismatches(Prim(3, "int64"), Prim(3.0, None), 0, 0)  # an int reported as a float
    assert mismatches(Prim(3, "int64"), Prim(3, "int32"), 0, 0)
    assert mismatches(Prim(3, "int64"), Prim(3, None), 0, 0) == []
    assert mismatches(Prim(0.5, "float32"), 0.5000001, 1e-5, 0) == []

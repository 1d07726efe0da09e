"""Values crossing the adapter boundary, their npz/JSON encoding, and output comparison.

=================  =========================================  ===========================================
Relax value        Python value handed to / taken from         value spec (meta.json and protocol)
                   adapters
=================  =========================================  ===========================================
tensor             ``numpy.ndarray``                           ``{"kind": "tensor", "key": K}``
shape              :class:`Shape` (tuple of ints)              ``{"kind": "shape", "key": K}`` or
                                                               ``{"kind": "shape", "value": [..]}``
prim value         :class:`Prim` (value + dtype)               ``{"kind": "prim", "key": K}`` or
                                                               ``{"kind": "prim", "value": v, "dtype": d}``
tuple              ``tuple``                                   ``{"kind": "tuple", "fields": [..]}``
string             ``str``                                     ``{"kind": "string", "value": s}``
null               ``None``                                    ``{"kind": "null"}``
=================  =========================================  ===========================================

``K`` names a member of the accompanying npz file; a tensor spec may carry ``"dtype"`` when the
member holds the bit pattern of a dtype NumPy cannot store (bfloat16, float8). Shapes are stored as
1-D int64 members and prim values as 0-d members whose NumPy dtype is the prim's dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

import numpy as np

from .npz import NpzError, as_dtype, np_dtype, to_storable


class Shape(tuple):
    """A Relax shape value: a tuple of non-negative Python ints."""

    def __new__(cls, dims=()):
        return super().__new__(cls, (int(d) for d in dims))

    def __repr__(self) -> str:
        return f"Shape({list(self)!r})"


@dataclass(frozen=True)
class Prim:
    """A Relax prim value. ``dtype`` is None when an implementation returns an untyped scalar."""

    value: Any
    dtype: Optional[str] = None

    def __post_init__(self):
        v = self.value
        if isinstance(v, np.generic):
            object.__setattr__(self, "value", v.item())


class ValueSpecError(ValueError):
    """A value spec is malformed or does not fit the npz data."""


_INT_KINDS = "iu"


def _prim_from_array(arr: np.ndarray) -> Prim:
    if arr.ndim != 0:
        raise ValueSpecError(f"a prim member must be 0-d, got shape {arr.shape}")
    return Prim(arr.item(), str(arr.dtype))


# ---------------------------------------------------------------------------------------------------
# decoding
# ---------------------------------------------------------------------------------------------------


def decode(spec: Any, arrays: Mapping[str, np.ndarray], where: str = "value") -> Any:
    """Build the Python value described by ``spec`` from npz members ``arrays``."""
    if not isinstance(spec, dict) or "kind" not in spec:
        raise ValueSpecError(f"{where}: a value spec must be an object with a 'kind', got {spec!r}")
    kind = spec["kind"]

    def member(key_field: str = "key") -> np.ndarray:
        key = spec.get(key_field)
        if not isinstance(key, str):
            raise ValueSpecError(f"{where}: '{kind}' spec needs a string 'key'")
        if key not in arrays:
            raise ValueSpecError(f"{where}: npz member {key!r} is missing")
        return arrays[key]

    if kind == "tensor":
        try:
            return as_dtype(member(), spec.get("dtype"))
        except NpzError as err:
            raise ValueSpecError(f"{where}: {err}") from err
    if kind == "shape":
        if "value" in spec:
            dims = spec["value"]
            if not isinstance(dims, list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
                raise ValueSpecError(f"{where}: shape 'value' must be a list of ints")
            return Shape(dims)
        arr = member()
        if arr.ndim != 1 or arr.dtype.kind not in _INT_KINDS:
            raise ValueSpecError(f"{where}: a shape member must be a 1-D integer array")
        return Shape(arr.tolist())
    if kind == "prim":
        if "value" in spec:
            v = spec["value"]
            dtype = spec.get("dtype")
            if not isinstance(v, (int, float, bool)):
                raise ValueSpecError(f"{where}: prim 'value' must be a number or bool")
            return Prim(v, dtype)
        return _prim_from_array(member())
    if kind == "tuple":
        fields = spec.get("fields")
        if not isinstance(fields, list):
            raise ValueSpecError(f"{where}: tuple spec needs a 'fields' list")
        return tuple(decode(f, arrays, f"{where}[{i}]") for i, f in enumerate(fields))
    if kind == "string":
        if not isinstance(spec.get("value"), str):
            raise ValueSpecError(f"{where}: string spec needs a string 'value'")
        return spec["value"]
    if kind == "null":
        return None
    raise ValueSpecError(f"{where}: unknown value kind {kind!r}")


def check_spec(spec: Any, where: str = "value") -> None:
    """Validate the structure of a value spec without data."""
    if not isinstance(spec, dict) or "kind" not in spec:
        raise ValueSpecError(f"{where}: a value spec must be an object with a 'kind', got {spec!r}")
    kind = spec["kind"]
    if kind in ("tensor",):
        if not isinstance(spec.get("key"), str):
            raise ValueSpecError(f"{where}: tensor spec needs a string 'key'")
    elif kind in ("shape", "prim"):
        if not isinstance(spec.get("key"), str) and "value" not in spec:
            raise ValueSpecError(f"{where}: {kind} spec needs a 'key' or a 'value'")
    elif kind == "tuple":
        if not isinstance(spec.get("fields"), list):
            raise ValueSpecError(f"{where}: tuple spec needs a 'fields' list")
        for i, f in enumerate(spec["fields"]):
            check_spec(f, f"{where}[{i}]")
    elif kind == "string":
        if not isinstance(spec.get("value"), str):
            raise ValueSpecError(f"{where}: string spec needs a string 'value'")
    elif kind != "null":
        raise ValueSpecError(f"{where}: unknown value kind {kind!r}")


# ---------------------------------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------------------------------


def encode(value: Any, key: str, arrays: dict[str, np.ndarray], *, inline_scalars: bool = False) -> dict:
    """Describe ``value`` as a spec, adding its arrays to ``arrays`` under keys derived from ``key``.

    With ``inline_scalars`` shapes and prim values are written into the spec itself (the protocol
    form); otherwise they become npz members (the case-file form).
    """
    if isinstance(value, np.ndarray):
        stored, dtype = to_storable(value)
        arrays[key] = stored
        spec = {"kind": "tensor", "key": key}
        if dtype is not None:
            spec["dtype"] = dtype
        return spec
    if isinstance(value, Shape):
        if inline_scalars:
            return {"kind": "shape", "value": [int(d) for d in value]}
        arrays[key] = np.asarray(list(value), dtype=np.int64).reshape(len(value))
        return {"kind": "shape", "key": key}
    if isinstance(value, Prim):
        if inline_scalars:
            spec = {"kind": "prim", "value": value.value}
            if value.dtype is not None:
                spec["dtype"] = value.dtype
            return spec
        if value.dtype is None:
            raise ValueSpecError(f"{key}: a prim stored in a case needs a dtype")
        arrays[key] = np.asarray(value.value, dtype=np_dtype(value.dtype))
        return {"kind": "prim", "key": key}
    if isinstance(value, (tuple, list)):
        return {"kind": "tuple",
                "fields": [encode(v, f"{key}_{i}", arrays, inline_scalars=inline_scalars)
                           for i, v in enumerate(value)]}
    if isinstance(value, str):
        return {"kind": "string", "value": value}
    if value is None:
        return {"kind": "null"}
    if isinstance(value, (bool, int, float, np.generic)):
        raise ValueSpecError(f"{key}: bare scalar {value!r} is ambiguous; wrap it as Prim(value, dtype) "
                             "or a 0-d numpy array")
    raise ValueSpecError(f"{key}: cannot encode a value of type {type(value).__name__}")


# ---------------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------------


def describe(v: Any) -> str:
    """A short description of a value for reports."""
    if isinstance(v, np.ndarray):
        return f"Tensor({tuple(v.shape)}, {v.dtype})"
    if isinstance(v, Shape):
        return f"Shape({list(v)})"
    if isinstance(v, Prim):
        return f"Prim({v.value!r}, {v.dtype})"
    if isinstance(v, (tuple, list)):
        return "Tuple(" + ", ".join(describe(x) for x in v) + ")"
    if v is None:
        return "null"
    if isinstance(v, str):
        return f"String({v!r})"
    return f"{type(v).__name__}({v!r})"


def _is_floatish(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" or (dtype.kind == "V" and "float" in str(dtype)) or "float" in str(dtype)


def _tensor_mismatch(exp: np.ndarray, act: Any, rtol: float, atol: float, path: str) -> Optional[str]:
    if not isinstance(act, np.ndarray):
        return f"{path}: expected {describe(exp)}, got {describe(act)}"
    if str(act.dtype) != str(exp.dtype):
        return f"{path}: dtype {act.dtype} != expected {exp.dtype}"
    if act.shape != exp.shape:
        return f"{path}: shape {act.shape} != expected {exp.shape}"
    if exp.size == 0:
        return None
    if _is_floatish(exp.dtype):
        e = exp.astype(np.float64) if exp.dtype.kind != "c" else exp
        a = act.astype(np.float64) if act.dtype.kind != "c" else act
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if not np.all(ok):
            bad = np.argwhere(~ok)
            idx = tuple(int(i) for i in bad[0]) if bad.ndim == 2 and bad.shape[1] else ()
            return (f"{path}: {int((~ok).sum())}/{exp.size} elements differ (rtol={rtol}, atol={atol}); "
                    f"first at {list(idx)}: got {a[idx]!r}, expected {e[idx]!r}")
        return None
    if not np.array_equal(act, exp):
        bad = np.argwhere(act != exp)
        idx = tuple(int(i) for i in bad[0]) if bad.ndim == 2 and bad.shape[1] else ()
        return (f"{path}: {int((act != exp).sum())}/{exp.size} elements differ; "
                f"first at {list(idx)}: got {act[idx]!r}, expected {exp[idx]!r}")
    return None


def _prim_mismatch(exp: Prim, act: Any, rtol: float, atol: float, path: str) -> Optional[str]:
    if isinstance(act, Prim):
        if act.dtype is not None and exp.dtype is not None and act.dtype != exp.dtype:
            return f"{path}: prim dtype {act.dtype} != expected {exp.dtype}"
        av = act.value
    elif isinstance(act, (bool, int, float, np.generic)) and not isinstance(act, np.ndarray):
        av = act.item() if isinstance(act, np.generic) else act
    else:
        return f"{path}: expected {describe(exp)}, got {describe(act)}"
    ev = exp.value
    dt = np_dtype(exp.dtype) if exp.dtype else None
    if dt is not None and dt.kind in "biu":
        if isinstance(av, float):
            return f"{path}: expected an integer prim {ev!r}, got the float {av!r}"
        if int(av) != int(ev):
            return f"{path}: prim {av!r} != expected {ev!r}"
        return None
    if not np.isclose(float(av), float(ev), rtol=rtol, atol=atol, equal_nan=True):
        return f"{path}: prim {av!r} != expected {ev!r} (rtol={rtol}, atol={atol})"
    return None


def mismatches(expected: Any, actual: Any, rtol: float, atol: float, path: str = "result") -> list[str]:
    """Differences between an expected value and an implementation's output (empty if they agree).

    Tensors must agree in dtype and shape exactly; integer and bool elements exactly; float elements
    within ``|a - e| <= atol + rtol * |e|`` with NaN equal to NaN and infinities equal by sign.
    """
    if isinstance(expected, np.ndarray):
        m = _tensor_mismatch(expected, actual, rtol, atol, path)
        return [m] if m else []
    if isinstance(expected, Shape):
        if not isinstance(actual, Shape):
            return [f"{path}: expected {describe(expected)}, got {describe(actual)}"]
        if list(actual) != list(expected):
            return [f"{path}: shape {list(actual)} != expected {list(expected)}"]
        return []
    if isinstance(expected, Prim):
        m = _prim_mismatch(expected, actual, rtol, atol, path)
        return [m] if m else []
    if isinstance(expected, tuple):
        if not isinstance(actual, (tuple, list)) or isinstance(actual, Shape):
            return [f"{path}: expected {describe(expected)}, got {describe(actual)}"]
        if len(actual) != len(expected):
            return [f"{path}: tuple of {len(actual)} fields != expected {len(expected)}"]
        out: list[str] = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(mismatches(e, a, rtol, atol, f"{path}[{i}]"))
        return out
    if expected is None:
        return [] if actual is None else [f"{path}: expected null, got {describe(actual)}"]
    if isinstance(expected, str):
        return [] if actual == expected else [f"{path}: expected {expected!r}, got {describe(actual)}"]
    return [f"{path}: cannot compare against {describe(expected)}"]


__all__ = ["Shape", "Prim", "ValueSpecError", "decode", "encode", "check_spec", "describe", "mismatches"]

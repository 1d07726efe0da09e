"""``relax-ref run``: evaluate a module from a text file on inputs from an ``.npz`` file.

Inputs come from an untrusted file: it is read by :func:`relax_ref.npz.read_npz` (no pickles, numeric
arrays only, a size limit checked before decompressing), every entry must name a parameter, and
integers handed to ``R.Shape`` and integer ``R.Prim`` parameters must fit the declared type (int64
for shapes). Every problem is a :class:`~relax_ref.errors.RelaxError` naming the entry.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from ..ir import dtype as _dt
from ..errors import DTypeMismatchError, RelaxRuntimeError, TypeMismatchError, did_you_mean
from ..files import read_source
from ..ir import expr as rx
from ..ir import struct_info as si
from ..npz import DEFAULT_MAX_BYTES, read_npz
from .relax import Interpreter
from ..values import ShapeValue

_INT64 = (-(1 << 63), (1 << 63) - 1)


def _int_range(dtype: str) -> Optional[tuple]:
    """``(min, max)`` of an integer dtype name, None for other dtypes."""
    if not _dt.is_integer(dtype):
        return None
    try:
        return _dt.min_value(dtype), _dt.max_value(dtype)
    except (TypeError, ValueError):   # a width numpy has no iinfo for
        return None


def _host_input(v: np.ndarray, sinfo: Optional[si.StructInfo], label: str) -> Any:
    """The host value for one npz entry, checked against the parameter's struct info."""
    if isinstance(sinfo, si.ShapeStructInfo) and v.ndim == 1 and v.dtype.kind in "iu":
        dims = [int(x) for x in v]
        bad = [d for d in dims if not _INT64[0] <= d <= _INT64[1]]
        if bad:
            raise TypeMismatchError(f"input {label}: shape dimension {bad[0]} is outside the int64 range",
                                    site="param", expected="int64", actual=str(bad[0]))
        return tuple(dims)
    if isinstance(sinfo, si.PrimStructInfo) and v.ndim == 0:
        x = v[()].item()
        rng = _int_range(sinfo.dtype) if sinfo.dtype != "void" else None
        if rng is not None and isinstance(x, int) and not isinstance(x, bool) and not rng[0] <= x <= rng[1]:
            raise DTypeMismatchError(f"input {label}: {x} does not fit in {sinfo.dtype} "
                                     f"([{rng[0]}, {rng[1]}])", site="param", expected=sinfo.dtype,
                                     actual=str(v.dtype))
        return x
    return v


def _load_inputs(func: Any, path: Optional[str], max_bytes: int = DEFAULT_MAX_BYTES) -> List[Any]:
    """Inputs for ``func``: ``.npz`` entries named after the parameters, or ``arg0``, ``arg1``, ...
    A 1-D integer array passed to an ``R.Shape`` parameter becomes a shape; a 0-d array passed to an
    ``R.Prim`` parameter a scalar. An entry that names no parameter is an error."""
    params = list(func.params) if isinstance(func, rx.Function) else []
    data: Dict[str, np.ndarray] = {} if path is None else read_npz(path, max_bytes=max_bytes)
    n = len(params) if params else len(data)
    args = []
    used = set()
    for i in range(n):
        name = params[i].name_hint if params else None
        if name is not None and name in data:
            key = name
        elif f"arg{i}" in data:
            key = f"arg{i}"
        else:
            raise RelaxRuntimeError(f"input file has no entry for parameter {i}"
                                    + (f" '{name}'" if name else "") + f" (expected '{name}' or 'arg{i}')"
                                    if name else f"input file has no entry 'arg{i}'")
        used.add(key)
        sinfo = params[i].struct_info if params else None
        args.append(_host_input(data[key], sinfo, f"'{key}'" + (f" (parameter '{name}')" if name else "")))
    extra = sorted(set(data) - used)
    if extra:
        raise RelaxRuntimeError(f"input file entries {extra} name no parameter of the function "
                                f"(expected {', '.join(repr(p.name_hint) for p in params) or 'none'}, "
                                "or arg0, arg1, ...)")
    return args


def _flatten(v: Any, name: str, out: Dict[str, np.ndarray], lines: List[str]) -> None:
    if isinstance(v, ShapeValue):
        out[name] = np.array(list(v), dtype=np.int64)
        lines.append(f"{name}: shape {tuple(v)}")
    elif isinstance(v, tuple):
        if not v:
            lines.append(f"{name}: ()")
        for i, x in enumerate(v):
            _flatten(x, f"{name}.{i}", out, lines)
    elif isinstance(v, np.ndarray):
        out[name] = v
        lines.append(f"{name}: tensor {tuple(v.shape)} {v.dtype}\n{np.array2string(v, threshold=64)}")
    elif isinstance(v, (bool, int, float, np.generic)):
        out[name] = np.asarray(v)
        lines.append(f"{name}: {v!r}")
    elif v is None:
        lines.append(f"{name}: null")
    else:
        raise TypeMismatchError(f"result '{name}' ({type(v).__name__}) cannot be written to an .npz file")


def cli_run(path: str, entry: str = "main", inputs_npz: Optional[str] = None,
            out_npz: Optional[str] = None, *, vectorize: bool = True, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Parse the module in ``path``, evaluate ``entry`` on the inputs of ``inputs_npz`` and return a
    text summary of the result; with ``out_npz`` also save it (``out`` for a single value, ``out.0``,
    ``out.1``, ... for tuple fields, recursively)."""
    from ..script.parser import parse

    mod = parse(read_source(path), file=path)
    if entry not in mod:
        raise RelaxRuntimeError(f"module has no function named '{entry}'{did_you_mean(entry, mod)} (it has {', '.join(mod) or 'none'})")
    args = _load_inputs(mod[entry], inputs_npz, max_bytes)
    result = Interpreter(mod, vectorize=vectorize)(entry, *args)
    out: Dict[str, np.ndarray] = {}
    lines: List[str] = []
    _flatten(result, "out", out, lines)
    if out_npz is not None:
        try:
            np.savez(out_npz, **out)
        except OSError as err:
            from ..files import InputFileError

            raise InputFileError(f"{out_npz}: cannot write ({err.strerror or err})") from None
        lines.append(f"saved {len(out)} array(s) to {out_npz}")
    return "\n".join(lines)


__all__ = ["cli_run"]

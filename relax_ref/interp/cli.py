"""``relax-ref run``: evaluate a module from a text file on inputs from an ``.npz`` file."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from ..errors import RelaxRuntimeError, TypeMismatchError
from ..ir import expr as rx
from ..ir import struct_info as si
from .relax import Interpreter
from .values import ShapeValue


def _load_inputs(func: Any, path: Optional[str]) -> List[Any]:
    """Inputs for ``func``: ``.npz`` entries named after the parameters, or ``arg0``, ``arg1``, ...
    A 1-D integer array passed to an ``R.Shape`` parameter becomes a shape; a 0-d array passed to an
    ``R.Prim`` parameter a scalar."""
    params = list(func.params) if isinstance(func, rx.Function) else []
    if path is None:
        data: Dict[str, np.ndarray] = {}
    else:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    n = len(params) if params else len(data)
    args = []
    for i in range(n):
        name = params[i].name_hint if params else None
        if name is not None and name in data:
            v = data[name]
        elif f"arg{i}" in data:
            v = data[f"arg{i}"]
        else:
            raise RelaxRuntimeError(f"input file has no entry for parameter {i}"
                                    + (f" '{name}'" if name else "") + f" (expected '{name}' or 'arg{i}')")
        sinfo = params[i].struct_info if params else None
        if isinstance(sinfo, si.ShapeStructInfo) and isinstance(v, np.ndarray) and v.ndim == 1:
            v = tuple(int(x) for x in v)
        elif isinstance(sinfo, si.PrimStructInfo) and isinstance(v, np.ndarray) and v.ndim == 0:
            v = v[()].item()
        args.append(v)
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
            out_npz: Optional[str] = None, *, vectorize: bool = True) -> str:
    """Parse the module in ``path``, evaluate ``entry`` on the inputs of ``inputs_npz`` and return a
    text summary of the result; with ``out_npz`` also save it (``out`` for a single value, ``out.0``,
    ``out.1``, ... for tuple fields, recursively)."""
    from ..script.parser import parse_file

    mod = parse_file(path)
    if entry not in mod:
        raise RelaxRuntimeError(f"module has no function named '{entry}'")
    args = _load_inputs(mod[entry], inputs_npz)
    result = Interpreter(mod, vectorize=vectorize)(entry, *args)
    out: Dict[str, np.ndarray] = {}
    lines: List[str] = []
    _flatten(result, "out", out, lines)
    if out_npz is not None:
        np.savez(out_npz, **out)
        lines.append(f"saved {len(out)} array(s) to {out_npz}")
    return "\n".join(lines)


__all__ = ["cli_run"]

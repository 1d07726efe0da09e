"""Concrete arguments for an entry function at several sizes.

For a generated :class:`~relax_ref.testing.program.Program` the generator knows each parameter's
true dims and value range, so :func:`program_inputs` draws values inside those ranges (no NaN, no
Inf, no integer overflow downstream); for odd seeds the values of each tensor are all different
(as far as the range allows), for even seeds they are independent draws (with ties). For any other module, :func:`module_inputs` works from the
entry function's struct info alone: tensors with known shapes (symbolic dims get values from the
size), ``R.Prim`` and ``R.Shape`` parameters, tuples of those; floats in ``[-1, 1]``, integers in
``[0, 4]``. A parameter it cannot describe (unknown shape) is an ``UnsupportedError``.

Both take a ``size`` (the value of the first symbolic variable; the k-th gets ``size + k``, capped at
:data:`~relax_ref.testing.domain.MAX_SYM`) and a ``seed``; the same arguments give the same values.
"""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from ..arith import eval_prim
from ..errors import UnsupportedError
from ..ir import dtype as _dt
from ..ir import expr as rx
from ..ir import prim_expr as P
from ..ir.module import IRModule
from ..ir.struct_info import PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .domain import MAX_SYM, Range, is_float
from .program import Program, values_in


def program_inputs(program: Program, size: int, seed: int) -> List[Any]:
    """Arguments for ``program``'s entry at ``size``."""
    rng = np.random.default_rng([seed, size])
    env = program.sym_env(size)
    distinct = seed % 2 == 1  # every other seed: all-different values (see values_in)
    out: List[Any] = []
    for p in program.params:
        if p.kind == "bool":
            out.append(bool(rng.integers(0, 2)))
        else:
            shape = tuple(d.value(env) for d in p.dims)
            out.append(values_in(rng, shape, p.dtype, p.range, distinct=distinct))
    return out


def sym_env_for(params, size: int) -> Dict[P.PrimVar, int]:
    """Values for the symbolic variables defined by ``params`` (in order of appearance)."""
    from ..analysis.struct_info_ops import definable_sym_vars

    env: Dict[P.PrimVar, int] = {}
    for p in params:
        if p.struct_info is None:
            continue
        for v in definable_sym_vars(p.struct_info):
            if v not in env:
                env[v] = max(0, min(size + len(env), MAX_SYM))
    return env


def _value(si: StructInfo, env, rng, where: str) -> Any:
    if isinstance(si, TensorStructInfo):
        vals = si.shape_values
        if vals is None or si.dtype == "void":
            raise UnsupportedError(f"cannot make an input for {where}: its shape or dtype is unknown")
        shape = tuple(int(eval_prim(v, env)) for v in vals)
        if si.dtype == "bool":
            r = Range(0, 1)
        elif is_float(si.dtype):
            r = Range(-1.0, 1.0)
        else:
            r = Range(0, 4)
        return values_in(rng, shape, si.dtype, r)
    if isinstance(si, PrimStructInfo):
        if si.value is not None:
            v = eval_prim(si.value, env)
            return bool(v) if si.dtype == "bool" else v
        if si.dtype == "bool":
            return bool(rng.integers(0, 2))
        if _dt.is_float(si.dtype):
            return float(rng.integers(-4, 5)) / 4
        return int(rng.integers(0, 5))
    if isinstance(si, ShapeStructInfo):
        if si.values is None:
            raise UnsupportedError(f"cannot make an input for {where}: its shape values are unknown")
        from ..values import ShapeValue

        return ShapeValue(int(eval_prim(v, env)) for v in si.values)
    if isinstance(si, TupleStructInfo):
        return tuple(_value(f, env, rng, f"{where}[{i}]") for i, f in enumerate(si.fields))
    raise UnsupportedError(f"cannot make an input for {where} of struct info {si}")


def module_inputs(mod: IRModule, entry: str, size: int, seed: int) -> List[Any]:
    """Arguments for ``mod[entry]`` at ``size`` from its parameters' struct info."""
    func = mod[entry]
    if not isinstance(func, rx.Function):
        raise UnsupportedError(f"'{entry}' is not a Relax function")
    rng = np.random.default_rng([seed, size])
    env = sym_env_for(func.params, size)
    return [_value(p.struct_info, env, rng, f"parameter {p.name_hint}") for p in func.params]


def inputs_for(program: Program, size: int, seed: int) -> List[Any]:
    """:func:`program_inputs` when the program came from the generator, else :func:`module_inputs`."""
    if program.params or not program.mod[program.entry].params:
        return program_inputs(program, size, seed)
    return module_inputs(program.mod, program.entry, size, seed)


__all__ = ["program_inputs", "module_inputs", "inputs_for", "sym_env_for"]

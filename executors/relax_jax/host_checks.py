"""Run-time checks made by the host before a compiled call.

A check site (:mod:`relax_jax.errors`) costs every call of its compilation a read of the error code,
and the read waits for the computation: the call cannot return before the step has run. Some checks
depend only on values the host holds before the call -- the symbolic values bound from the arguments,
a KV cache's fill count, the data of a small tensor argument -- and are made there instead, before
anything is donated or dispatched:

* :class:`IndexRange` -- an operator's indices that are a tensor parameter itself (``R.take`` of the
  token ids) against a static extent;
* :class:`ViewRows` -- an attention KV cache's view (CALL.KVCACHE.1): the requested rows, an expression
  over the symbolic values, against the cache's incoming fill count plus the rows appended before it.

A compilation whose checks all moved to the host has no error code. A failing host check sends the
call to host mode, which raises the error of the first check that fails in execution order, as the
reference does (the compiled code is not run). Only checks at the function's top level move (a check
inside traced control flow may not run at all), and only where the host can evaluate them: a
symbolic expression with a value, a tensor of at most :data:`MAX_HOST_ELEMENTS` elements (larger
index tensors keep their check site: reading them on the host would cost more than the check).
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from relax_ref.ir import prim_expr as P

from .symbolic import host_value_fn

#: the most elements of a tensor argument whose data the host reads for a check
MAX_HOST_ELEMENTS = 4096


@dataclass(frozen=True)
class IndexRange:
    """The data of the tensor parameter at ``path`` lies in ``[0, extent)``."""

    path: Tuple[int, ...]
    extent: int


@dataclass(frozen=True)
class ViewRows:
    """``want`` (an expression over the entry's symbolic variables) equals the fill count of the cache at
    ``path`` plus ``delta`` (an int, or an expression over the symbolic variables)."""

    path: Tuple[int, ...]
    want: P.PrimExpr
    delta: Any


HostCheck = Any             # IndexRange | ViewRows

#: a compiled host check: ``fails(args, vals)`` with the call's arguments and the symbolic values in
#: the plan's order
Failing = Callable[[Sequence[Any], Sequence[int]], bool]


def _path_getter(path: Tuple[int, ...]) -> Callable[[Sequence[Any]], Any]:
    """The argument at ``path``, as ``layouts.get_path`` (not imported: ``layouts`` imports ``kv_cache``,
    which imports this module)."""
    if len(path) == 1:
        return operator.itemgetter(path[0])
    return lambda args: functools.reduce(operator.getitem, path, args)


def _index_range(check: IndexRange) -> Failing:
    get, extent = _path_getter(check.path), check.extent

    def fails(args, vals) -> bool:
        a = get(args)
        x = a if type(a) is np.ndarray else np.asarray(a)
        if x.size == 1:
            v = x.item()
            return not 0 <= v < extent
        return bool(x.size) and (x.min() < 0 or x.max() >= extent)
    return fails


def _view_rows(check: ViewRows, sym_vars) -> Failing:
    get, want, delta = _path_getter(check.path), host_value_fn(check.want, sym_vars), host_value_fn(check.delta, sym_vars)

    def fails(args, vals) -> bool:
        return want(vals) != get(args).fill + delta(vals)
    return fails


def compile_checks(checks: Sequence[HostCheck], sym_vars: Sequence[P.PrimVar]) -> Optional[Failing]:
    """One function that says whether any of ``checks`` fails (None when there is none); equal checks
    are made once."""
    made: List[Failing] = []
    for c in dict.fromkeys(checks):
        made.append(_index_range(c) if isinstance(c, IndexRange) else _view_rows(c, sym_vars))
    if not made:
        return None
    if len(made) == 1:
        return made[0]

    def fails(args, vals) -> bool:
        for f in made:
            if f(args, vals):
                return True
        return False
    return fails


def host_param(sink: Any, data: Any) -> Optional[Tuple[int, ...]]:
    """The path of the tensor parameter whose traced data is ``data`` when the host may read it for a
    check (a small tensor at the function's top level), else None."""
    params = sink.host_params
    if not params:
        return None
    hit = params.get(id(data))
    if hit is None or hit[1] is not data or int(np.prod(np.shape(data))) > MAX_HOST_ELEMENTS:
        return None
    return hit[0]


__all__ = ["IndexRange", "ViewRows", "MAX_HOST_ELEMENTS", "compile_checks", "host_param"]

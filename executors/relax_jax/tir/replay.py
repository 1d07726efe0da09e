"""Map nests evaluated anew: for the exact float max/min fold of a reduction nest
(:func:`relax_jax.tir.nest._fold_part`, PRIM.FLOAT.2 / TIR.VEC.4), whose ``lax.cond`` branch runs only
when a row holds a NaN.

A branch that closes over a value makes XLA write the value out as an operand of the conditional on
every call, even when the branch does not run. The branch therefore evaluates the reduction's operand
anew from the buffers it loads, and a buffer that a map nest wrote (a chain of elementwise nests, as
TVM's legalized attention: scores, scaled, masked) is computed anew by running that nest again
(:func:`remember` keeps what it needs: the arrays, environment and bounds facts it ran with, by the
identity of the value it wrote). The branch's operands are then the buffers no map nest wrote
(parameters, results of reductions and products), which XLA has written out anyway, and the fused
reduction alone remains on the common path. The nests run the same operations again, so the values
are the same bits; run-time checks, pad sources and recipes were recorded by the first run and are not
recorded again (:meth:`KExec.again`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict

from relax_ref.ir import prim_expr as P


@dataclass(frozen=True)
class Recipe:
    value: Any          # the array the nest wrote (kept alive: recipes are found by its identity)
    dv: P.PrimVar       # the buffer's data variable
    arrays: Dict[Any, Any]
    env: Dict[Any, Any]
    facts: tuple
    nest: Any
    mask: Any
    run: Callable       # relax_jax.tir.nest.run_nest


def snapshot(kx) -> tuple:
    """The state a map nest starts from (for :func:`remember`)."""
    return dict(kx.arrays), dict(kx.env), kx.ranges.facts()


def remember(kx, nest, mask, before: tuple, run: Callable) -> None:
    """Keep how to compute anew each buffer the map ``nest`` (just run from ``before``) wrote."""
    if kx.replaying:
        return
    arrays, env, facts = before
    for buf in nest.written:
        v = kx.arrays.get(buf.data)
        if v is not None and v is not arrays.get(buf.data):
            kx.recipes[id(v)] = Recipe(v, buf.data, arrays, env, facts, nest, mask, run)


class _Anew(dict):
    """Arrays whose values written by a remembered map nest read as that nest's result computed anew
    (once per evaluation: ``memo``)."""

    def __init__(self, kx, arrays: dict, memo: dict) -> None:
        super().__init__(arrays)
        self._kx = kx
        self._memo = memo

    def __getitem__(self, key):
        v = dict.__getitem__(self, key)
        r = self._kx.recipes.get(id(v))
        if r is None or r.value is not v:
            return v
        hit = self._memo.get(id(v))
        if hit is None:
            hit = self._memo[id(v)] = (v, _rerun(self._kx, r, self._memo))
        return hit[1]


def _rerun(kx, r: Recipe, memo: dict) -> Any:
    saved = kx.arrays, dict(kx.env), kx.grid, kx.ranges.facts()
    kx.arrays = _Anew(kx, r.arrays, memo)
    kx.env.clear()
    kx.env.update(r.env)
    kx.ranges.reset(r.facts)
    kx.grid = None
    try:
        with kx.again():
            ran = r.run(kx, r.nest, r.mask)
        out = dict.__getitem__(kx.arrays, r.dv) if ran else r.value
    finally:
        kx.arrays, kx.grid = saved[0], saved[2]
        kx.env.clear()
        kx.env.update(saved[1])
        kx.ranges.reset(saved[3])
    return out


def evaluate_anew(kx, fn: Callable[[], Any]) -> Any:
    """``fn()`` evaluated again (no check site recorded), the buffers written by remembered map
    nests computed anew; the executor's arrays, environment, grid and facts left as they were."""
    saved = kx.arrays, dict(kx.env), kx.grid, kx.ranges.facts()
    kx.arrays = _Anew(kx, kx.arrays, {})
    try:
        with kx.again():
            return fn()
    finally:
        kx.arrays, kx.grid = saved[0], saved[2]
        kx.env.clear()
        kx.env.update(saved[1])
        kx.ranges.reset(saved[3])


__all__ = ["Recipe", "snapshot", "remember", "evaluate_anew"]

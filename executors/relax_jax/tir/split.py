"""Index-set splitting of a map nest at a static point (a rule of the vectorized TensorIR lowering).

A map nest whose only statement stores ``if_then_else(c, A, B)``, where ``c``
compares one loop variable ``v`` with a value that is static in this compilation (``0 <= v - L``:
TVM's ``concatenate`` kernel ``T_concat[v] = if_then_else(0 <= v - L, k[v - L], kc[v])``), takes
``B`` at every point with ``v < t`` and ``A`` at every point with ``v >= t`` (or the other way round)
for one split point ``t`` inside the loop's range. The nest then runs as two nests over
``[lo, t)`` and ``[t, lo + extent)``, each storing its own arm (and split again when that arm is
itself such a choice), and the written registers are joined along ``v``'s axis with one
``concatenate``. Evaluated over the whole grid instead, both arms are read at every point: the
out-of-range arm through a padded copy of its buffer, and the result is a ``select`` of two ``pad``s
that XLA computes element by element, where the split form is XLA's ``concatenate`` (the graph
path's lowering of ``R.concat``). Every point gets the value of the arm that ``c`` chooses there,
so the stored values are the same (TIR.VEC.3), and the arm not chosen at a point is not evaluated
there either (``if_then_else``, TIR.EXPR.*). ``T.Select`` evaluates both arms at every point (a
load out of bounds in the arm not chosen is an error), so it is not split.

Only nests over exact extents (no padded loop; in a bucketed compilation ``L`` is traced and the
nest runs over the whole grid as before), without an enclosing mask, predicate or ``T.init``, whose
registers are written at every point, are split.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Optional, Tuple

import jax.numpy as jnp
import numpy as np

from relax_ref.arith.intrinsics import canonical_name
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir

from ..prim_jax import is_static
from .analysis import Nest, linear_form, substitute_bindings
from .grid import Axis, Grid, enter, make_register, write_back

#: the deepest nesting of choices split (a concatenation of this many + 1 inputs)
MAX_DEPTH = 8

_CMP = (P.LT, P.LE, P.GT, P.GE)


def _choice(st: tir.Stmt):
    """``(c, A, B)`` when ``st`` stores ``if_then_else(c, A, B)``."""
    if not isinstance(st, tir.BufferStore):
        return None
    v = st.value
    if isinstance(v, P.PrimCall) and canonical_name(v.op) == "tir.if_then_else" and len(v.args) == 3:
        return tuple(v.args)
    return None


def split_point(kx, nest: Nest, info) -> Optional[Tuple[int, P.PrimExpr, P.PrimExpr, P.PrimExpr]]:
    """``(k, t, below, above)``: the loop at position ``k`` splits at ``t`` (an expression whose value is
    static and strictly inside the loop's exact range), ``below`` the arm stored at the points with
    ``v < t``, ``above`` at ``v >= t``; None when ``nest`` is not of the module docstring's form."""
    if nest.reduction is not None or nest.init is not None or nest.predicate is not None:
        return None
    ch = _choice(nest.body)
    if ch is None:
        return None
    cond, yes, no = ch
    if not isinstance(cond, _CMP):
        return None
    binding_of = dict(nest.bindings)
    gvars = [v for v, *_ in info]
    a = linear_form(substitute_bindings(cond.a, binding_of), gvars)
    b = linear_form(substitute_bindings(cond.b, binding_of), gvars)
    if a is None or b is None:
        return None
    coefs = dict(a[0])
    for v, n in b[0].items():
        coefs[v] = coefs.get(v, 0) - n
    coefs = {v: n for v, n in coefs.items() if n}
    if len(coefs) != 1:
        return None
    (var, s), = coefs.items()
    if s not in (1, -1) or not var.dtype.startswith("int"):
        return None
    d = P.cast(var.dtype, P.sub(a[1], b[1]))       # cond is ``s * var + d  <op>  0``
    t_cls = type(cond)
    if t_cls in (P.GE, P.GT):           # as ``-s * var - d <= 0`` / ``< 0``
        s, d, t_cls = -s, P.sub(P.IntImm(0, var.dtype), d), (P.LE if t_cls is P.GE else P.LT)
    if t_cls is P.LT:                   # integers: ``x < 0`` is ``x + 1 <= 0``
        d = P.add(d, P.IntImm(1, var.dtype))
    # ``s * var + d <= 0``: s = 1 holds for var < 1 - d, s = -1 for var >= d
    if s == 1:
        t, below, above = P.sub(P.IntImm(1, var.dtype), d), yes, no
    else:
        t, below, above = d, no, yes
    tv = kx.ev(t)
    k = gvars.index(var)
    _, lo, ph, ext = info[k]
    if not is_static(tv) or not is_static(ext) or int(ext) != ph or not lo < int(tv) < lo + ph:
        return None
    return k, t, below, above


def _part(nest: Nest, k: int, lo: P.PrimExpr, end: P.PrimExpr, value: P.PrimExpr) -> Nest:
    """The nest restricted to ``[lo, end)`` along loop ``k``, storing ``value``. The bounds stay
    expressions (``L``, not its value), so that the arm's loads are proven in bounds as before."""
    loops = list(nest.loops)
    lp = loops[k]
    loops[k] = dataclasses.replace(lp, min=lo, extent=P.sub(end, lo))
    body = dataclasses.replace(nest.body, value=value)
    return dataclasses.replace(nest, loops=loops, body=body)


def _values(kx, nest: Nest, info, map_grid: Callable, depth: int) -> Optional[Dict[Any, Any]]:
    """The registers' values of ``nest`` over its grid (not written back), split where it can be."""
    sp = split_point(kx, nest, info) if depth < MAX_DEPTH else None
    if sp is None:
        grid = map_grid(kx, nest, info, None)
        if grid is None or any(not (is_static(r.written) and bool(r.written)) for r in grid.regs.values()):
            return None
        return {dv: r.acc for dv, r in grid.regs.items()}
    k, t, below, above = sp
    var, lo, ph, _ = info[k]
    lp = nest.loops[k]
    tv = int(kx.ev(t))
    parts = []
    for (plo, n), (start, end), arm in (((lo, tv - lo), (lp.min, t), below),
                                        ((tv, lo + ph - tv), (t, P.add(lp.min, lp.extent)), above)):
        sub_info = list(info)
        sub_info[k] = (var, plo, n, n)
        saved, mark = dict(kx.env), kx.ranges.mark()
        try:
            got = _values(kx, _part(nest, k, start, end, arm), sub_info, map_grid, depth + 1)
        finally:
            kx.grid = None
            kx.env.clear()
            kx.env.update(saved)
            kx.ranges.pop_to(mark)
        if got is None:
            return None
        parts.append(got)
    return {dv: jnp.concatenate([parts[0][dv], parts[1][dv]], axis=k) for dv in parts[0]}


def run_split(kx, nest: Nest, info, mask, map_grid: Callable) -> bool:
    """Run the map nest split at its static point (module docstring); False (nothing written) when
    it is not of that form. ``map_grid(kx, nest, info, mask)`` runs a map nest over its grid and
    returns the grid with its registers, not written back."""
    if mask is not None or split_point(kx, nest, info) is None:
        return False
    vals = _values(kx, nest, info, map_grid, 0)
    if vals is None:
        return False
    grid = Grid([Axis(v, lo, ph, ext, k) for k, (v, lo, ph, ext) in enumerate(info)], dict(nest.bindings))
    kx.grid = None
    m = enter(kx, grid, info, nest, None)
    for buf in nest.written:
        reg = make_register(kx, grid, buf, nest.index_of[buf.data], m)
        write_back(kx, grid, reg, vals[buf.data], np.bool_(True))
    return True


__all__ = ["split_point", "run_split", "MAX_DEPTH"]

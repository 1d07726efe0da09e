"""Vectorized execution of a TensorIR loop nest (the array counterpart of TIR.VEC.*).

The nest's loops become the axes of a *grid*; every loop variable is an ``iota`` array along its axis,
so evaluating the leaf's expressions once computes them at every point. Two strategies:

* **map** -- every loop is spatial (the written indices depend on it). Each written buffer is
  promoted to a *register* (its elements at the written index, one per point: TIR.VEC.3 ensures they
  are distinct, proven statically here), the leaf runs once over the grid with masks for ``T.where``,
  ``T.init``, branches and padded extents, and the registers are written back -- as one
  ``dynamic_update_slice`` when the written index is a box, else as a scatter. Points past a padded
  extent that write only into the buffer's padding (past its logical extents: unspecified, never
  read) are not masked out of the write (:func:`_pads_only`).
* **reduce** -- ``X[I] = X[I] op e`` with optional ``T.init`` (TIR.VEC.4): ``e`` is evaluated over the
  spatial x reduction grid and reduced with the operator's identity filling the padded reduction
  points (padded spatial points only give padded results). A sum of
  products of loads becomes ``jnp.einsum`` (``dot_general``); a float32/64 window sum of two loads
  (``X[n, c, y * s + ry * d] * W[f, c, ry]``) becomes one ``conv_general_dilated`` (reading the source
  of a zero-padding nest with the convolution's own padding, :mod:`relax_jax.tir.pad`); otherwise reduction
  variables that appear in an index together with another loop variable (pooling ``y * 2 + ry``) are
  unrolled over their (static, small) range, so every load is a strided slice. Floating-point sums are
  reassociated, as TIR.VEC.4 allows.

Loads whose index is ``a * loop_var + c`` per axis become strided slices (no gather), also once the
index is simplified under the loop ranges or is a reshape form (:mod:`relax_jax.tir.index_forms`:
digits of one expression over merged axes, a mixed-radix sum over split axes); other loads gather
with clamped indices. Nests that do not fit run as loops (:mod:`relax_jax.tir.kernel`). The grid,
its registers and the slicing of loads are :mod:`relax_jax.tir.grid`.
"""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.analysis.loop_nest import loads_in
from relax_ref.errors import OpRuntimeError
from relax_ref.ir import dtype as _dt
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in

from .. import extreme_fold
from ..prim_jax import and_mask, cast, const, is_static, np_dtype
from ..reductions import window_sums, windowed
from .analysis import Nest, linear_form, substitute_bindings
from .grid import Axis, Grid, check_bounds, enter, grid_size, init_mask, make_register, slice_view, write_back
from . import pad, split
from .products import product_free
from .index_forms import linear_index, one_var_index

#: the largest number of grid points materialised at once
GRID_LIMIT = 1 << 26
#: the most combinations of unrolled reduction variables
UNROLL_LIMIT = 64




# ---------------------------------------------------------------------------------------------------
# Entry
# ---------------------------------------------------------------------------------------------------


def run_nest(kx, nest: Nest, mask) -> bool:
    """Execute ``nest`` vectorized; False when it does not fit (the caller runs loops)."""
    info = []
    for lp in nest.loops:
        lo = kx.ev(lp.min)
        if not is_static(lo):
            return False
        ext = kx.ev(lp.extent)
        ph = kx.phys_of(lp.extent)
        if ph is None:
            return False
        info.append((lp.loop_var, int(lo), max(int(ph), 0), int(ext) if is_static(ext) else ext))
    if any(ph == 0 for _, _, ph, _ in info) or any(is_static(e) and e <= 0 for *_, e in info):
        return True
    spatial = set(nest.spatial)
    rax = [k for k in range(len(info)) if k not in spatial]
    saved_env = dict(kx.env)
    mark = kx.ranges.mark()
    try:
        if not rax:
            return _run_map(kx, nest, info, mask)
        if nest.reduction is not None:
            return _run_reduce(kx, nest, info, rax, mask)
        return False
    finally:
        kx.grid = None
        kx.env.clear()
        kx.env.update(saved_env)
        kx.ranges.pop_to(mark)


# ---------------------------------------------------------------------------------------------------
# Map
# ---------------------------------------------------------------------------------------------------


def _run_map(kx, nest: Nest, info, mask) -> bool:
    if split.run_split(kx, nest, info, mask, _map_grid):
        return True
    grid = _map_grid(kx, nest, info, mask)
    if grid is None:
        return False
    for reg in grid.regs.values():
        write_back(kx, grid, reg, reg.acc, reg.written)
    pad.record(kx, nest)
    return True


def _map_grid(kx, nest: Nest, info, mask) -> Optional[Grid]:
    """Run the map nest over its grid: the grid with its registers, not yet written back (None when
    the grid is too large)."""
    axes = [Axis(v, lo, ph, ext, k) for k, (v, lo, ph, ext) in enumerate(info)]
    grid = Grid(axes, dict(nest.bindings))
    if grid_size(grid.shape) > GRID_LIMIT:
        return None
    kx.grid = None
    m = enter(kx, grid, info, nest, mask)
    for buf in nest.written:
        reg = make_register(kx, grid, buf, nest.index_of[buf.data], m)
        reg.pads_only = _pads_only(kx, grid, nest, reg)
        grid.regs[buf.data] = reg
    kx.grid = grid
    if nest.init is not None:
        kx.exec(nest.init, init_mask(kx, nest, m))
    kx.exec(nest.body, m)
    kx.grid = None
    return grid


# ---------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------

_IDENTITY = {"add": 0, "mul": 1}


def _identity(op: str, dtype: str):
    if op in _IDENTITY:
        return const(_IDENTITY[op], dtype)
    if _dt.is_float(dtype):
        return const(np.inf if op == "min" else -np.inf, dtype)
    return const(_dt.max_value(dtype) if op == "min" else _dt.min_value(dtype), dtype)


def _combine(op: str, a, b):
    if op == "add":
        return a + b
    if op == "mul":
        return a * b
    if op == "min":
        return jnp.where(b < a, b, a)
    return jnp.where(b > a, b, a)


def _reduce(op: str, x, axes, dtype):
    if tuple(axes) == (x.ndim - 1,):
        w = windowed(op, x)     # a max/min over a long last axis in XLA's windows, fused (relax_jax.reductions)
        if w is not None:
            x = w
    t = np_dtype(dtype)
    if op == "add":
        return jnp.sum(x, axis=axes, dtype=t)
    if op == "mul":
        return jnp.prod(x, axis=axes, dtype=t)
    if op == "min":
        return jnp.min(x, axis=axes)
    return jnp.max(x, axis=axes)


def _fold_part(val, keep, na: int, red):
    """The :mod:`relax_jax.extreme_fold` summary of the float max/min operand ``val`` over its
    reduction axes (from ``na`` on, flattened in loop order), the padded points skipped: no
    conditional, a long row read once by the plain windowed reduction (the exact fold works on the
    window holding a row's last NaN)."""
    is_max = red.op == "max"
    lead = val.shape[:na]
    flat = val.reshape(lead + (-1,))
    ok = None if keep is None else jnp.broadcast_to(keep, val.shape).reshape(flat.shape)
    if red.acc_first and flat.shape[-1] == 1 and ok is None:
        # one element per point (every reduction axis unrolled, as pooling): the element itself
        return jnp.isnan(flat[..., 0]), flat[..., 0]
    return extreme_fold.summarize(flat, ok, is_max, red.acc_first)


def _init_first(kx, nest: Nest, info, rax) -> bool:
    """T.init runs at the first point of the reduction loops: every reduction iteration variable is
    bound to one reduction loop variable starting at the variable's domain minimum, and every
    reduction loop drives one."""
    loop_vars = [info[k][0] for k in rax]
    driven = set()
    binding_of = dict(nest.bindings)
    for v, mn in nest.reduce_ivs:
        b = substitute_bindings(binding_of.get(v, v), binding_of)
        if isinstance(b, P.Cast):
            b = b.value
        if not isinstance(b, P.PrimVar) or b not in loop_vars:
            return False
        k = rax[loop_vars.index(b)]
        lo = info[k][1]
        m = kx.ev(mn)
        if not is_static(m) or int(m) != lo:
            return False
        driven.add(b)
    return driven == set(loop_vars)


def _factors(e: P.PrimExpr, out: list) -> bool:
    """Flatten a product into factors (loads, casts of loads, constants)."""
    if isinstance(e, P.Mul):
        return _factors(e.a, out) and _factors(e.b, out)
    out.append(e)
    return True


def _run_reduce(kx, nest: Nest, info, rax, mask) -> bool:
    red = nest.reduction
    if nest.predicate is not None:
        return False
    if red.init_value is not None and not _init_first(kx, nest, info, rax):
        return False
    if red.init_value is None and nest.reduce_ivs and nest.init is not None:
        return False
    spatial = [k for k in range(len(info)) if k not in rax]
    binding_of = dict(nest.bindings)
    unroll = _unrolled_axes(red, info, rax, binding_of)
    if any(not is_static(info[k][3]) for k in unroll):
        return False
    conv = _conv(kx, nest, info, spatial, rax, unroll, red, binding_of) if unroll and red.op == "add" else None
    combos = 1
    for k in unroll:
        combos *= max(int(info[k][3]), 0)
    if combos > UNROLL_LIMIT and conv is None:
        return False
    dtype = red.buffer.dtype
    # float max/min fold in loop order (PRIM.FLOAT.2): the unrolled parts must be consecutive runs
    fold = red.op in ("max", "min") and _dt.is_float(dtype)
    if fold and unroll and any(u > k for u in unroll for k in rax if k not in unroll):
        return False
    # the spatial grid (for the register and init) and the evaluation grid
    a_axes = [Axis(info[k][0], info[k][1], info[k][2], info[k][3], j) for j, k in enumerate(spatial)]
    rest = [k for k in rax if k not in unroll]
    e_axes = a_axes + [Axis(info[k][0], info[k][1], info[k][2], info[k][3], len(a_axes) + j)
                       for j, k in enumerate(rest)]
    egrid = Grid(e_axes, binding_of)
    if conv is None and grid_size(egrid.shape) > GRID_LIMIT and not _is_sum_of_products(red):
        return False
    total = conv
    # one element per point and a constant init (pooling): the fold runs from the init itself
    seed = None
    if fold and red.acc_first and not rest and red.init_value is not None and \
            not prim_vars_in(red.init_value) and not any(True for _ in loads_in(red.init_value)):
        seed = cast(kx.ev(red.init_value), red.init_value.dtype, dtype)
    ranges_u = [range(info[k][1], info[k][1] + int(info[k][3])) for k in sorted(unroll)] if conv is None else []
    uvars = [info[k][0] for k in sorted(unroll)]
    mark = kx.ranges.mark()
    for combo in (itertools.product(*ranges_u) if conv is None else ()):
        for v, val in zip(uvars, combo):
            kx.env[v] = const(val, v.dtype)
            kx.ranges.push_bind(v, P.IntImm(val, v.dtype) if v.dtype.startswith(("int", "uint")) else P.const(val))
        m = enter(kx, egrid, info, nest, None)
        part = None
        if red.op == "add":
            part = _einsum(kx, egrid, red, len(a_axes), m)
        if part is None:
            kx.grid = egrid
            val = cast(kx.ev(red.operand, m), red.operand.dtype, dtype)
            kx.grid = None
            val = jnp.broadcast_to(val, egrid.shape)
            # the identity at the padded reduction points (padded spatial points only give padded
            # results, which the write-back keeps out of the buffer's logical extents)
            keep = egrid.extent_mask(len(a_axes))
            if seed is not None:
                part = val
            elif fold:
                part = _fold_part(val, keep, len(a_axes), red)
            else:
                if keep is not None:
                    val = jnp.where(keep, val, _identity(red.op, dtype))
                part = _reduce(red.op, val, tuple(range(len(a_axes), egrid.ndim)), dtype)
        if seed is not None:
            total = extreme_fold.select(seed if total is None else total, part, red.op == "max")
        elif total is None:
            total = part
        else:
            total = extreme_fold.then(total, part, red.op == "max", red.acc_first) if fold else \
                _combine(red.op, total, part)
        kx.ranges.pop_to(mark)
    _store_reduction(kx, nest, info, rax, mask, Grid(a_axes, binding_of), total, fold, seed)
    return True


def _store_reduction(kx, nest: Nest, info, rax, mask, agrid: Grid, total, fold: bool, seed) -> None:
    """The register of the accumulator over the spatial grid ``agrid``: the reduced ``total`` (a fold
    summary for a float max/min, the folded values themselves from a constant ``seed``) combined with
    the init or the buffer's accumulator, and written back where the reduction loops ran."""
    red = nest.reduction
    dtype = red.buffer.dtype
    kx.env.update({a.var: agrid.iota(a) for a in agrid.axes})
    for k in rax:
        v, lo = info[k][0], info[k][1]
        kx.env[v] = const(lo, v.dtype)
    am = and_mask(mask, agrid.extent_mask())
    for lp in nest.loops:
        kx.ranges.push_range(lp.loop_var, lp.min, lp.extent)
    for v, e in nest.bindings:
        kx.env[v] = cast(kx.ev(e, am), e.dtype, v.dtype)
        kx.ranges.push_bind(v, e)
    agrid.assume(kx.ranges.analyzer())
    reg = make_register(kx, agrid, red.buffer, nest.index_of[red.buffer.data], am)
    if not reg.proven:
        check_bounds(kx, reg.buf, reg.idx, am, write=True)
    if reg.dv in kx.readonly:
        name = reg.buf.name
        kx.check(np.bool_(True), am, lambda: OpRuntimeError(
            f"store into buffer '{name}', whose tensor is read-only here (an input of call_tir may not be written, "
            "CALL.TIR.6)"))
    if fold and seed is None:
        total = tuple(None if t is None else jnp.broadcast_to(t, agrid.shape) for t in total)
    else:
        total = jnp.broadcast_to(total, agrid.shape)
    if red.init_value is not None:
        base = jnp.broadcast_to(cast(kx.ev(red.init_value, am), red.init_value.dtype, dtype), agrid.shape)
    else:
        base = reg.acc
    if seed is not None:
        result = total
    elif fold:
        result = extreme_fold.apply(total, base, red.op == "max", red.acc_first)
    else:
        result = _combine(red.op, base, total)
    executed = None
    for k in rax:
        ext = info[k][3]
        if not is_static(ext):
            c = jnp.asarray(ext) > 0
            executed = c if executed is None else jnp.logical_and(executed, c)
    written = and_mask(mask if _pads_only(kx, agrid, nest, reg) else am, executed)
    if written is None:
        written = np.bool_(True)
    write_back(kx, agrid, reg, result.astype(reg.acc.dtype), written)


def _unrolled_axes(red, info, rax, binding_of) -> set:
    """The reduction axes (positions in ``info``) to unroll: those whose loop variable appears in an
    index of the operand next to another loop variable, or in an index that is not linear."""
    loop_vars = [v for v, *_ in info]
    unroll = set()
    for ld in loads_in(red.operand):
        for i in ld.indices:
            fe = substitute_bindings(i, binding_of)
            used = [v for v in prim_vars_in(fe) if v in loop_vars]
            if len(used) > 1 or (used and linear_form(fe, loop_vars) is None):
                unroll.update(k for k in (loop_vars.index(v) for v in used) if k in rax)
    return unroll


def _pads_only(kx, grid: Grid, nest: Nest, reg) -> bool:
    """Whether the points of ``grid`` past its loops' extents write only into the padding of the
    register's buffer (past its logical extents), so that the write-back need not mask them: the
    written index is a box (``v + c`` per position, ``c`` static) and ``c + extent >= `` the
    buffer's extent along every padded loop's position."""
    padded = [a for a in grid.axes if not (is_static(a.ext) and int(a.ext) == a.phys)]
    if not padded or grid.analyzer is None:
        return not padded
    if kx.resolve(reg.buf)[1] is not None:
        return False
    gvars = list(grid.by_var)
    extent = {lp.loop_var: lp.extent for lp in nest.loops}
    shape = reg.buf.shape
    exprs = [grid.flat(i) for i in reg.exprs]
    if len(exprs) != len(shape):
        return False
    for a in padded:
        hit = None
        for p, e in enumerate(exprs):
            lf = one_var_index(kx, e, gvars)
            if lf is not None and lf[0] is a.var and lf[1] == 1:
                hit = (p, lf[2])
        if hit is None:
            return False
        p, c = hit
        end = P.add(P.IntImm(c + a.lo, extent[a.var].dtype), extent[a.var])
        try:
            if not grid.analyzer.can_prove(P.ge(end, shape[p])):
                return False
        except Exception:  # noqa: BLE001 - unprovable: masked
            return False
    return True


def _conv_view(kx, grid: Grid, f, ld, dtype: str, sp_vars, win_vars) -> Optional[Tuple[Any, list, dict]]:
    """One operand of :func:`_conv`: the slice of the loaded buffer that the nest reads, cast to the
    reduction's dtype, a label per remaining axis (a grid variable, or ``("win", y, s, r, d)`` for
    an index ``s*y + d*r + c``) and the zero padding of window labels (a buffer written by a pad
    nest is read from its source, :mod:`relax_jax.tir.pad`); None when a load index is not of that
    form."""
    gvars = list(grid.by_var)
    dv, view = kx.resolve(ld.buffer)
    if view is not None or not kx._proven(ld.buffer, ld.indices):
        return None
    arr = kx.arrays[dv]
    if arr.ndim != len(ld.indices):
        return None
    starts, limits, strides, labels, keep = [], [], [], [], []
    for p, i in enumerate(ld.indices):
        lf = linear_index(kx, grid.flat(i), gvars)
        if lf is None:
            return None
        coefs, c = lf
        items = list(coefs.items())
        if any(a <= 0 for _, a in items):
            return None
        if not items:
            starts.append(c), limits.append(c + 1), strides.append(1)
            continue
        if len(items) == 1:
            (v, a), = items
            ax = grid.by_var[v]
            s0 = a * int(ax.lo) + c
            starts.append(s0), limits.append(s0 + a * (ax.phys - 1) + 1), strides.append(a)
            labels.append(v)
        elif len(items) == 2:
            (v1, a1), (v2, a2) = items
            if v1 in win_vars and v2 in sp_vars:
                (v1, a1), (v2, a2) = (v2, a2), (v1, a1)
            if not (v1 in sp_vars and v2 in win_vars):
                return None
            ay, ar = grid.by_var[v1], grid.by_var[v2]
            s0 = a1 * int(ay.lo) + a2 * int(ar.lo) + c
            starts.append(s0), limits.append(s0 + a1 * (ay.phys - 1) + a2 * (ar.phys - 1) + 1)
            strides.append(1)
            labels.append(("win", v1, a1, v2, a2))
        else:
            return None
        keep.append(p)
    if any(s0 < 0 or lim > n for s0, lim, n in zip(starts, limits, arr.shape)):
        return None
    pads = {}
    src = pad.source_of(kx, dv)
    if src is not None:
        moved = _unpadded(src, starts, limits, strides, [ld_label(labels, keep, p) for p in range(arr.ndim)])
        if moved is not None:
            arr, starts, limits, pads = src.source, moved[0], moved[1], moved[2]
    x = lax.slice(arr, starts, limits, strides) if arr.ndim else arr
    x = x.reshape([x.shape[p] for p in keep])
    x = _apply_casts(f, x)
    if x.dtype != np_dtype(dtype):
        x = cast(x, _dt.from_numpy(np.dtype(x.dtype)), dtype)
    return x, labels, pads


def ld_label(labels, keep, p):
    """The label of the load's position ``p`` (None for a constant position)."""
    return labels[keep.index(p)] if p in keep else None


def _unpadded(src, starts, limits, strides, labels):
    """The slice of a pad record's source that a slice ``[starts, limits)`` of the padded buffer
    reads, and the zero padding per window label (pad.py): ``(starts, limits, {label: (lo, hi)})``;
    None when the slice reaches the padding along an axis that is not a unit-stride window."""
    n_src = src.source.shape
    s2, l2, pads = [], [], {}
    for s0, lim, st, lb, lo, n in zip(starts, limits, strides, labels, src.lo, n_src):
        a, b = s0 - lo, lim - lo
        before, after = max(0, -a), max(0, b - n)
        if before or after:
            if not (isinstance(lb, tuple) and st == 1) or before >= b - a or after >= b - a:
                return None
            pads[lb] = (before, after)
        s2.append(a + before)
        l2.append(b - after)
    return s2, l2, pads


def _conv(kx, nest: Nest, info, spatial, rax, unroll, red, binding_of) -> Any:
    """A window sum of products ``X[.., s*y + d*r + c, ..] * W[.., r, ..]`` (``y`` spatial, ``r`` a
    window reduction variable) as one ``conv_general_dilated``: the other axes of ``X`` only are its
    batch, of ``W`` only its output features, of both (reduced) its input features. Float32/64 with
    exact extents and loads proven in bounds; None when the nest is not of that form."""
    dtype = red.buffer.dtype
    if dtype not in ("float32", "float64"):
        return None
    fs: list = []
    _factors(red.operand, fs)
    loads, consts = [], []
    for f in fs:
        core = _strip_cast(f)
        if isinstance(core, (P.IntImm, P.FloatImm)):
            consts.append(f)
        elif isinstance(core, tir.BufferLoad):
            loads.append((f, core))
        else:
            return None
    if len(loads) != 2:
        return None
    order = list(spatial) + list(rax)
    axes = [Axis(info[k][0], info[k][1], info[k][2], info[k][3], j) for j, k in enumerate(order)]
    if any(not is_static(a.ext) or int(a.ext) != a.phys or a.phys <= 0 or not is_static(a.lo) for a in axes):
        return None
    grid = Grid(axes, binding_of)
    n_sp = len(spatial)
    sp_vars = {a.var for a in axes[:n_sp]}
    win_vars = {info[k][0] for k in unroll}
    red_vars = {a.var for a in axes[n_sp:]} - win_vars
    gvars = list(grid.by_var)
    mark = kx.ranges.mark()
    try:
        if enter(kx, grid, info, nest, None) is not None:
            return None
        views = []
        for f, ld in loads:
            v = _conv_view(kx, grid, f, ld, dtype, sp_vars, win_vars)
            if v is None:
                return None
            views.append(v)
    finally:
        kx.ranges.pop_to(mark)
    has_win = [any(isinstance(lb, tuple) for lb in labels) for _, labels, _ in views]
    if has_win.count(True) != 1:
        return None
    (xa, xl, xpads), (wa, wl, wpads) = views if has_win[0] else views[::-1]
    if wpads:
        return None
    wins = [lb for lb in xl if isinstance(lb, tuple)]
    x_plain = [lb for lb in xl if not isinstance(lb, tuple)]
    used = x_plain + [lb[1] for lb in wins] + [lb[3] for lb in wins]
    if len(set(used)) != len(used) or len(set(wl)) != len(wl):
        return None
    if {lb[3] for lb in wins} != win_vars or not all(lb[3] in wl for lb in wins):
        return None
    if any(lb[1] in wl for lb in wins):
        return None
    n_ax = [v for v in x_plain if v in sp_vars and v not in wl]
    c_ax = [v for v in x_plain if v in red_vars and v in wl]
    o_ax = [v for v in wl if v in sp_vars and v not in x_plain]
    if len(n_ax) + len(c_ax) != len(x_plain) or len(o_ax) + len(c_ax) + len(wins) != len(wl):
        return None
    if red_vars - set(c_ax):
        return None
    size = {a.var: a.phys for a in axes}
    lhs = jnp.transpose(xa, [xl.index(v) for v in n_ax + c_ax] + [xl.index(lb) for lb in wins])
    lhs = lhs.reshape([grid_size([size[v] for v in n_ax]), grid_size([size[v] for v in c_ax])] + list(lhs.shape[-len(wins):]))
    rhs = jnp.transpose(wa, [wl.index(v) for v in o_ax + c_ax + [lb[3] for lb in wins]])
    rhs = rhs.reshape([grid_size([size[v] for v in o_ax]), grid_size([size[v] for v in c_ax])]
                      + list(rhs.shape[-len(wins):]))
    r = lax.conv_general_dilated(lhs, rhs, window_strides=[lb[2] for lb in wins],
                                 padding=[xpads.get(lb, (0, 0)) for lb in wins], rhs_dilation=[lb[4] for lb in wins], precision=lax.Precision.HIGHEST)
    out = n_ax + o_ax + [lb[1] for lb in wins]
    r = r.reshape([size[v] for v in out])
    pos = {a.var: a.pos for a in axes}
    perm = sorted(range(len(out)), key=lambda j: pos[out[j]])
    r = jnp.transpose(r, perm)
    present = {pos[v] for v in out}
    r = r.reshape([axes[j].phys if j in present else 1 for j in range(n_sp)])
    for f in consts:
        r = r * cast(kx.ev(f), f.dtype, dtype)
    return r.astype(np_dtype(dtype))


def _is_sum_of_products(red) -> bool:
    if red.op != "add":
        return False
    fs: list = []
    _factors(red.operand, fs)
    return all(isinstance(_strip_cast(f), (tir.BufferLoad, P.IntImm, P.FloatImm)) for f in fs)


def _strip_cast(e):
    while isinstance(e, P.Cast):
        e = e.value
    return e


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum(kx, grid: Grid, red, n_spatial: int, m) -> Any:
    """A sum over the reduction axes of a product of loads as one einsum (dot_general)."""
    fs: list = []
    _factors(red.operand, fs)
    dtype = red.buffer.dtype
    ops, subs = [], []
    scalar = None
    for f in fs:
        core = _strip_cast(f)
        if isinstance(core, (P.IntImm, P.FloatImm)):
            c = cast(kx.ev(f), f.dtype, dtype)
            scalar = c if scalar is None else scalar * c
            continue
        if not isinstance(core, tir.BufferLoad):
            return None
        dv, view = kx.resolve(core.buffer)
        if view is not None:
            return None
        if not kx._proven(core.buffer, core.indices):
            return None
        axes: List[int] = []
        v = slice_view(kx, grid, kx.arrays[dv], [grid.flat(i) for i in core.indices], axes)
        if v is None:
            return None
        # casts between the load and the product
        v = _apply_casts(f, v)
        if v.dtype != np_dtype(dtype):
            v = cast(v, _dt.from_numpy(np.dtype(v.dtype)), dtype)
        ops.append(v)
        subs.append(axes)
    if not ops:
        return None
    # masks: padded reduction extents zero the factors that span them (every one: 0 * NaN is NaN);
    # a padded spatial extent only gives padded results, which nothing reads
    for a in grid.axes[n_spatial:]:
        if is_static(a.ext) and int(a.ext) == a.phys:
            continue
        for j, axes in enumerate(subs):
            if a.pos in axes:
                k = axes.index(a.pos)
                shape = [1] * len(axes)
                shape[k] = a.phys
                keep = jnp.arange(a.phys, dtype=jnp.int64).reshape(shape) < jnp.asarray(a.ext, jnp.int64)
                ops[j] = jnp.where(keep, ops[j], jnp.zeros((), ops[j].dtype))
    out_axes = list(range(n_spatial))
    present = set(itertools.chain.from_iterable(subs))
    # spatial axes no factor spans: the sum does not depend on them (broadcast later)
    out_used = [a for a in out_axes if a in present]
    spec = ",".join("".join(_LETTERS[a] for a in s) for s in subs) + "->" + "".join(_LETTERS[a] for a in out_used)
    if _dt.is_float(dtype):
        if len(ops) == 1 and scalar is None and dtype in ("float32", "float64") and \
                _free_row_sum(kx, fs[0], subs[0], grid, n_spatial):
            ops[0] = window_sums(ops[0])    # summed where its operand is made (relax_jax.reductions)
        r = jnp.einsum(spec, *ops, precision=lax.Precision.HIGHEST)
    else:
        r = jnp.einsum(spec, *ops, preferred_element_type=np_dtype(dtype))
    # reduction axes no factor spans multiply the sum by their extent
    for a in grid.axes[n_spatial:]:
        if a.pos not in present:
            r = r * cast(jnp.asarray(a.ext), "int64", dtype)
    if scalar is not None:
        r = r * scalar
    shape = [grid.shape[a] if a in out_used else 1 for a in out_axes]
    return r.reshape(shape).astype(np_dtype(dtype))


def _free_row_sum(kx, f, axes: List[int], grid: Grid, n_spatial: int) -> bool:
    """A sum of one load, with no cast, over the last axis of its view alone, of a buffer that holds
    no product (:func:`relax_jax.tir.products.product_free`): its first stage may be fused."""
    return isinstance(f, tir.BufferLoad) and len(grid.axes) == n_spatial + 1 and bool(axes) and \
        axes[-1] == grid.axes[n_spatial].pos and axes.count(axes[-1]) == 1 and product_free(kx.func, f.buffer)


def _apply_casts(f, v):
    chain = []
    while isinstance(f, P.Cast):
        chain.append(f)
        f = f.value
    for c in reversed(chain):
        v = cast(v, c.value.dtype, c.dtype)
    return v


__all__ = ["run_nest", "Grid", "slice_view", "GRID_LIMIT", "UNROLL_LIMIT"]

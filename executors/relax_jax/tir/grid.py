"""The grid of a vectorized TensorIR loop nest (the array side of TIR.VEC.2-3): the nest's loops as
the axes of a grid, loads as strided slices of the grid's index arrays, written buffers promoted to
*registers* (one element per grid point) and written back as one ``dynamic_update_slice`` when the
written index is a box, else as a scatter. The strategies that run a nest over a grid (map, reduce)
are :mod:`relax_jax.tir.nest`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from relax_ref.errors import OpRuntimeError, TIRBoundsError
from relax_ref.ir import prim_expr as P
from relax_ref.ir import tir
from relax_ref.ir.functor import prim_vars_in

from ..prim_jax import and_mask, cast, const, is_static, np_dtype
from .analysis import Nest, substitute_bindings
from .index_forms import cannot_fail, divides, merged_axes, one_var_index, split_axes
from .memory import flat_index, flat_memory, gather, owner_memory


class Axis:
    __slots__ = ("var", "lo", "phys", "ext", "pos")

    def __init__(self, var, lo, phys, ext, pos):
        self.var = var
        self.lo = lo
        self.phys = phys
        self.ext = ext
        self.pos = pos


class Register:
    __slots__ = ("buf", "dv", "acc", "idx", "exprs", "proven", "written", "pads_only")

    def __init__(self, buf, dv, acc, idx, exprs, proven):
        self.buf = buf
        self.dv = dv
        self.acc = acc
        self.idx = idx
        self.exprs = exprs
        self.proven = proven
        self.written: Any = np.bool_(False)
        #: the grid's points past its loops' extents write only into the buffer's padding
        #: (``nest._pads_only``): stores under the grid's own mask need not mask them
        self.pads_only = False


class Grid:
    """The active iteration grid of a nest being vectorized."""

    def __init__(self, axes: List[Axis], bindings: Dict[P.PrimVar, P.PrimExpr]) -> None:
        self.axes = axes
        self.by_var = {a.var: a for a in axes}
        self.ndim = len(axes)
        self.shape = tuple(a.phys for a in axes)
        self.bindings = bindings
        self.regs: Dict[Any, Register] = {}
        self._subst: Dict[int, tuple] = {}
        #: the facts that hold at every executing point of the grid (``assume``)
        self.analyzer = None
        #: the mask of the executing points (``enter``) and the same without the extents' part
        self.top_mask: Any = None
        self.write_mask: Any = None
        self._quiet: Dict[int, tuple] = {}

    def assume(self, analyzer) -> None:
        """Simplify indices under ``analyzer``'s facts from now on (the loop ranges, bindings and
        enclosing conditions that hold at every executing point)."""
        self.analyzer = analyzer
        self._subst = {}
        self._quiet = {}

    def iota(self, a: Axis):
        shape = [1] * self.ndim
        shape[a.pos] = a.phys
        return (jnp.arange(a.phys, dtype=np_dtype(a.var.dtype)) + const(a.lo, a.var.dtype)).reshape(shape)

    def extent_mask(self, first: int = 0) -> Any:
        """The points inside every loop's extent (of the axes from position ``first`` on)."""
        m = None
        for a in self.axes[first:]:
            if is_static(a.ext) and int(a.ext) == a.phys:
                continue
            shape = [1] * self.ndim
            shape[a.pos] = a.phys
            c = (jnp.arange(a.phys, dtype=jnp.int64).reshape(shape) < jnp.asarray(a.ext, jnp.int64))
            m = c if m is None else jnp.logical_and(m, c)
        return m

    def flat(self, e: P.PrimExpr) -> P.PrimExpr:
        """``e`` over the loop variables: the block bindings substituted and, when it divides or
        takes a remainder, simplified under the grid's facts (a reshape kernel's
        ``(v1 * 64 + v2) // 64 % 8`` is ``v1`` at every point where it executes; the points masked
        out may read elsewhere, their values are never used)."""
        hit = self._subst.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        r = substitute_bindings(e, self.bindings)
        if self.analyzer is not None and divides(r):
            try:
                r = self.analyzer.simplify(r)
            except Exception:  # noqa: BLE001 - a form the analyzer cannot simplify stays as written
                pass
        self._subst[id(e)] = (e, r)
        return r

    def quiet(self, node: tir.BufferLoad) -> bool:
        """Whether lowering ``node``'s indices can raise nothing: no load inside them and every
        divisor provably non-zero under the grid's facts (so skipping their lowering loses no
        run-time check)."""
        hit = self._quiet.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        ok = self.analyzer is not None and all(cannot_fail(i, self.analyzer) for i in node.indices)
        self._quiet[id(node)] = (node, ok)
        return ok

    # -- registers (written buffers) -------------------------------------------------------------------

    def register_load(self, kx, node: tir.BufferLoad, mask) -> Any:
        reg = self.regs.get(node.buffer.data)
        if reg is None:
            return None
        if not reg.proven:
            check_bounds(kx, reg.buf, reg.idx, mask, write=False)
        return reg.acc

    def register_store(self, kx, st: tir.BufferStore, mask) -> None:
        reg = self.regs[st.buffer.data]
        val = cast(kx.ev_stored(st, mask), st.value.dtype, reg.buf.dtype)
        if reg.dv in kx.readonly:
            name = reg.buf.name
            kx.check(np.bool_(True), mask, lambda: OpRuntimeError(
                f"store into buffer '{name}', whose tensor is read-only here (an input of call_tir may not be "
                "written, CALL.TIR.6)"))
        if not reg.proven:
            check_bounds(kx, reg.buf, reg.idx, mask, write=True)
        if reg.pads_only and mask is self.top_mask:
            mask = self.write_mask
        if mask is None:
            reg.acc = jnp.broadcast_to(jnp.asarray(val, reg.acc.dtype), self.shape)
            reg.written = np.bool_(True)
        else:
            reg.acc = jnp.where(mask, val, reg.acc).astype(reg.acc.dtype)
            reg.acc = jnp.broadcast_to(reg.acc, self.shape)
            reg.written = jnp.logical_or(reg.written, mask) if not is_static(reg.written) else (
                mask if not bool(reg.written) else np.bool_(True))

    # -- loads of read-only buffers -----------------------------------------------------------------------

    def structured_load(self, kx, arr, node: tir.BufferLoad, idx) -> Any:
        """``arr`` at the node's index over the grid as a strided slice, or None."""
        exprs = [self.flat(i) for i in node.indices]
        return slice_view(kx, self, arr, exprs)


def slice_view(kx, grid: Grid, arr, exprs, axes_out: Optional[List[int]] = None):
    """``arr[exprs]`` over the grid when every index is ``a * v + c`` (``v`` a grid variable used once,
    ``a > 0``, ``c`` static) or a static constant. Returns an array of the grid's rank (size-1 axes
    for grid axes not used), or, with ``axes_out`` given, the array with only the used axes and their
    grid positions appended to ``axes_out``. None when the index is not of that form."""
    if arr.ndim != len(exprs):
        return None
    gvars = list(grid.by_var)
    if grid.analyzer is not None:
        arr, exprs = merged_axes(kx, grid, arr, list(exprs))
        arr, exprs = split_axes(kx, grid, arr, exprs)
    starts, strides, counts, used = [], [], [], []
    take = []
    for p, e in enumerate(exprs):
        lf = one_var_index(kx, e, gvars)
        if lf is None:
            return None
        v, a, c = lf
        if v is None:
            starts.append(c)
            strides.append(1)
            counts.append(1)
            take.append(p)
            continue
        if a <= 0:
            return None
        ax = grid.by_var[v]
        if ax.pos in used:
            return None
        used.append(ax.pos)
        starts.append(a * ax.lo + c)
        strides.append(a)
        counts.append(ax.phys)
    # pad the array so that the slice stays inside it (padded elements are only read at masked points)
    pad = []
    for p, (s, st, n) in enumerate(zip(starts, strides, counts)):
        last = s + st * (n - 1) if n > 0 else s
        lo = max(0, -s)
        hi = max(0, last + 1 - arr.shape[p]) if n > 0 else max(0, s + 1 - arr.shape[p])
        if lo + hi > st * max(n, 1) + 1:
            return None         # a slice mostly outside the array: the gather path (bounds checks) takes it
        pad.append((lo, hi))
    if any(lo or hi for lo, hi in pad):
        arr = jnp.pad(arr, pad)
        starts = [s + lo for s, (lo, _) in zip(starts, pad)]
    limits = [s + st * (n - 1) + 1 if n > 0 else s for s, st, n in zip(starts, strides, counts)]
    v = lax.slice(arr, starts, limits, strides) if arr.ndim else arr
    # drop the constant positions, order the rest by grid axis
    keep = [p for p in range(len(exprs)) if p not in take]
    if take:
        v = v.reshape([v.shape[p] for p in keep])
    if axes_out is not None:
        # the array's own axis order (an einsum operand needs no transpose)
        axes_out.extend(used)
        return v
    order = sorted(range(len(used)), key=lambda j: used[j])
    if order != list(range(len(used))):
        v = jnp.transpose(v, order)
    pos_sorted = sorted(used)
    shape = [1] * grid.ndim
    for p, n in zip(pos_sorted, v.shape):
        shape[p] = n
    return v.reshape(shape)


def check_bounds(kx, buf, idx, mask, write: bool) -> None:
    dv, view = kx.resolve(buf)
    ext = kx.buffer_extents(buf, dv, view)
    bad = None
    for i, n in zip(idx, ext):
        b = jnp.logical_or(jnp.less(i, 0), jnp.greater_equal(i, n))
        bad = b if bad is None else jnp.logical_or(bad, b)
    if bad is None:
        return
    kind = "write to" if write else "read of"
    name = buf.name
    shape = [int(n) if is_static(n) else "?" for n in ext]
    kx.check(bad, mask, lambda: TIRBoundsError(f"out-of-bounds {kind} buffer '{name}' (shape {shape})", buffer=name))
def grid_size(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def enter(kx, grid: Grid, loops_info, nest: Nest, outer_mask):
    """Bind loop variables to iotas, iteration variables to their values; returns the mask."""
    for a in grid.axes:
        kx.env[a.var] = grid.iota(a)
        lp = next(lp for lp in nest.loops if lp.loop_var is a.var)
        kx.ranges.push_range(a.var, lp.min, lp.extent)
    m = and_mask(outer_mask, grid.extent_mask())
    w = outer_mask
    pred = nest.predicate
    ivs = [v for v, _ in nest.bindings]
    early = pred is not None and not any(v in prim_vars_in(pred) for v in ivs)
    if early:
        pv = kx.ev(pred, m)
        m, w = and_mask(m, pv), and_mask(w, pv)
    for v, e in nest.bindings:
        kx.env[v] = cast(kx.ev(e, m), e.dtype, v.dtype)
        kx.ranges.push_bind(v, e)
    if pred is not None and not early:
        pv = kx.ev(pred, m)
        m, w = and_mask(m, pv), and_mask(w, pv)
    grid.assume(kx.ranges.analyzer())
    grid.top_mask, grid.write_mask = m, w
    return m


def init_mask(kx, nest: Nest, m):
    c = None
    for v, mn in nest.reduce_ivs:
        eq = jnp.equal(kx.env[v], kx.ev(mn))
        c = eq if c is None else jnp.logical_and(c, eq)
    if c is None:
        return m
    return and_mask(m, c)


def make_register(kx, grid: Grid, buf: tir.Buffer, index: Tuple[P.PrimExpr, ...], m) -> Register:
    dv, view = kx.resolve(buf)
    arr = kx.arrays[dv]
    idx = [kx.ev(i, m) for i in index]
    proven = kx._proven(buf, index)
    acc = None
    if view is None:
        acc = slice_view(kx, grid, arr, [grid.flat(i) for i in index])
    if acc is None:
        acc = gather(arr, idx, view)
    dt = arr.dtype if view is None or view.dtype is None else view.dtype
    acc = jnp.broadcast_to(jnp.asarray(acc, dt), grid.shape)
    return Register(buf, dv, acc, idx, index, proven)


def write_back(kx, grid: Grid, reg: Register, value, written) -> None:
    """Store ``value`` (grid-shaped) at the register's index where ``written``."""
    if is_static(written) and not bool(written):
        return
    dv, view = kx.resolve(reg.buf)
    arr = kx.arrays[dv]
    if view is None and (is_static(written) and bool(written) or True):
        out = box_update(kx, grid, arr, [grid.flat(i) for i in reg.exprs], value, written, reg)
        if out is not None:
            kx.arrays[dv] = out
            return
    # general scatter: unwritten points get an out-of-range index and are dropped
    idx = [jnp.broadcast_to(jnp.asarray(i, jnp.int64), grid.shape) for i in reg.idx]
    if view is not None:
        flat = flat_memory(arr, view.dtype)
        f = jnp.broadcast_to(flat_index(reg.idx, view), grid.shape)
        if not (is_static(written) and bool(written)):
            f = jnp.where(written, f, flat.shape[0])
        kx.arrays[dv] = owner_memory(flat.at[f].set(value, mode="drop"), arr)
        return
    if arr.ndim == 0:
        if is_static(written) and bool(written):
            kx.arrays[dv] = value.reshape(-1)[-1].reshape(())
        else:
            w = jnp.broadcast_to(written, grid.shape).reshape(-1)
            vals = value.reshape(-1)
            last = jnp.max(jnp.where(w, jnp.arange(vals.shape[0]), -1))
            kx.arrays[dv] = jnp.where(last >= 0, vals[jnp.maximum(last, 0)], arr)
        return
    if not (is_static(written) and bool(written)):
        w = jnp.broadcast_to(written, grid.shape)
        idx = [jnp.where(w, i, n) for i, n in zip(idx, arr.shape)]
    bad = [(i < 0) for i in idx]
    idx = [jnp.where(b, n, i) for i, b, n in zip(idx, bad, arr.shape)]
    kx.arrays[dv] = arr.at[tuple(idx)].set(value, mode="drop")


def box_update(kx, grid: Grid, arr, exprs, value, written, reg) -> Any:
    """The update as a ``dynamic_update_slice`` when the index is a box: each position is ``v + c``
    for a distinct grid variable ``v`` (or a constant)."""
    gvars = list(grid.by_var)
    if arr.ndim != len(exprs):
        return None
    starts, vars_ = [], []
    for p, e in enumerate(exprs):
        lf = one_var_index(kx, e, gvars, static=False)
        if lf is None:
            return None
        v, a, c = lf
        if v is None:
            starts.append(c)
            vars_.append(None)
            continue
        if a != 1:
            return None
        ax = grid.by_var[v]
        if not is_static(c):
            return None
        starts.append(ax.lo + int(c))
        vars_.append(ax)
    used = [a.pos for a in vars_ if a is not None]
    if len(set(used)) != len(used) or sorted(used) != list(range(grid.ndim)):
        return None
    if not (is_static(written) and bool(written)) and value is not reg.acc:
        value = jnp.where(written, value, reg.acc)
    order = [a.pos for a in vars_ if a is not None]
    upd = jnp.transpose(value, order) if order != sorted(order) else value
    shape = [a.phys if a is not None else 1 for a in vars_]
    upd = upd.reshape(shape)
    for p, (s, n) in enumerate(zip(starts, shape)):
        if is_static(s) and (int(s) < 0 or int(s) + n > arr.shape[p]):
            return None
        if not is_static(s) and n > arr.shape[p]:
            return None
    if all(is_static(s) and int(s) == 0 for s in starts) and tuple(shape) == tuple(arr.shape):
        return upd.astype(arr.dtype)
    return lax.dynamic_update_slice(arr, upd.astype(arr.dtype),
                                     [jnp.asarray(s, jnp.int64) if not is_static(s) else int(s) for s in starts])


__all__ = ["Axis", "Register", "Grid", "slice_view", "check_bounds", "grid_size", "enter", "init_mask",
           "make_register", "write_back", "box_update"]
